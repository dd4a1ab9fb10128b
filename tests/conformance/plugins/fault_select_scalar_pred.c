/* Planted fault: select with a tensor<i1> predicate and non-scalar
 * operands takes on_false everywhere (a kernel written for elementwise
 * predicates, reading the scalar's absent mask as false). Every select
 * case had a predicate of the operands' shape before the sizes family
 * (conformance/gen_sizes.c: select/T/scalar_pred/pred_true). */
#define FAULT_NAME "fault_select_scalar_pred"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.select ") || n_in != 3 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (in[0].rank != 0 || b->rank == 0 || in[2].byte_size != b->byte_size || !b->byte_size) return;
    memcpy(b->data, in[2].data, b->byte_size);
}
