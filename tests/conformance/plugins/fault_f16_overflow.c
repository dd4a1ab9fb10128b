/* Planted fault: convert f32 -> f16 saturates to infinity from 65504 on
 * (the largest finite f16) instead of from the rounding threshold 65520. */
#define FAULT_NAME "fault_f16_overflow"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f16") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double x = fd_load(&in[0], i);
        if (fabs(x) > 65504.0 && isfinite(x)) plumb_store_bits(PLUMB_F16, b->data, i, x > 0 ? 0x7C00 : 0xFC00);
    }
}
