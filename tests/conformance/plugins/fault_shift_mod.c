/* Planted fault: integer shift_left by the bit width or more shifts by the
 * amount modulo the width (what x86's shl does) instead of giving 0. */
#define FAULT_NAME "fault_shift_mod"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.shift_left ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (plumb_dtype_is_float(t) || plumb_dtype_is_bool(t) || !fd_same_numel(in, n_in, b)) return;
    unsigned bits = plumb_dtype_get(t)->bits;
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t x = plumb_load_bits(t, in[0].data, i), y = plumb_load_bits(t, in[1].data, i);
        if (y >= bits) plumb_store_bits(t, b->data, i, (x << (y % bits)) & mask);
    }
}
