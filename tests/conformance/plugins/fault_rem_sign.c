/* Planted fault: signed integer remainder takes the sign of the divisor
 * (floored modulo, as in Python) instead of the dividend's. */
#define FAULT_NAME "fault_rem_sign"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.remainder ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_signed(t) || !fd_same_numel(in, n_in, b)) return;
    unsigned bits = plumb_dtype_get(t)->bits;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        int64_t y = (int64_t)(plumb_load_bits(t, in[1].data, i) << (64 - bits)) >> (64 - bits);
        int64_t r = (int64_t)(plumb_load_bits(t, b->data, i) << (64 - bits)) >> (64 - bits);
        if (y != 0 && r != 0 && (r < 0) != (y < 0)) plumb_store_bits(t, b->data, i, (uint64_t)(r + y));
    }
}
