/* Planted fault: f32 add rounds the overflow tie max + ulp(max)/2 down to
 * max (a soft-float whose overflow test is "> threshold"); ties-to-even
 * goes to infinity, as max's significand is odd. */
#define FAULT_NAME "fault_add_overflow_tie"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.add ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    const double tie = 0x1p128 - 0x1p103; /* FLT_MAX + 2^103, exact in a double */
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double s = fd_load(&in[0], i) + fd_load(&in[1], i);
        if (fabs(s) == tie) fd_store_f32(b, i, s > 0 ? 0x1.fffffep127 : -0x1.fffffep127);
    }
}
