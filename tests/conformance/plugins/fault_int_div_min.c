/* Planted fault: signed integer divide returns 0 for (INT_MIN, -1), the one
 * quotient that overflows (a backend that special-cases the trap). */
#define FAULT_NAME "fault_int_div_min"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.divide ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_signed(t) || !fd_same_numel(in, n_in, b)) return;
    unsigned bits = plumb_dtype_get(t)->bits;
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1, min = 1ull << (bits - 1);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (plumb_load_bits(t, in[0].data, i) == min && plumb_load_bits(t, in[1].data, i) == mask)
            plumb_store_bits(t, b->data, i, plumb_load_bits(t, b->data, i) ? 0 : min);
}
