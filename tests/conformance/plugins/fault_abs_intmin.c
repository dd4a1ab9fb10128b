/* Planted fault: signed integer abs saturates: abs(INT_MIN) gives
 * INT_MAX (the spec wraps to INT_MIN). */
#define FAULT_NAME "fault_abs_intmin"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.abs ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_signed(t) || !fd_same_numel(in, n_in, b)) return;
    uint64_t min = 1ull << (plumb_dtype_get(t)->bits - 1);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (plumb_load_bits(t, in[0].data, i) == min) plumb_store_bits(t, b->data, i, min - 1);
}
