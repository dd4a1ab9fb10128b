/* Planted fault: transpose of rank 5 or more falls back to a plain copy (a
 * dim-merging pass that collapses the permutation to the identity past
 * rank 4): the result holds the operand's elements in their own order.
 * Before the sizes family's rank5/rank6 cases no transpose had rank > 4. */
#define FAULT_NAME "fault_transpose_rank5"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.transpose ") || n_in < 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (b->rank < 5 || !b->data || b->byte_size != in[0].byte_size) return;
    memcpy(b->data, in[0].data, b->byte_size);
}
