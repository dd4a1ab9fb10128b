/* Planted fault: chlo.mulhi on signed integers returns the high half of the
 * operands' product read as unsigned (a backend that lowers every mulhi to
 * an unsigned widening multiply). It differs from the signed high half
 * wherever exactly one operand is negative or both are, by y and x. */
#define FAULT_NAME "fault_mulhi_unsigned"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "chlo.mulhi") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_signed(t) || !fd_same_numel(in, n_in, b)) return;
    unsigned bits = plumb_dtype_get(t)->bits;
    if (bits > 32) return;   /* the narrow types show it; their product fits 64 bits */
    uint64_t mask = (1ull << bits) - 1;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t x = plumb_load_bits(t, in[0].data, i) & mask, y = plumb_load_bits(t, in[1].data, i) & mask;
        plumb_store_bits(t, b->data, i, (x * y) >> bits);
    }
}
