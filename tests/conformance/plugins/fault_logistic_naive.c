/* Planted fault: f32 logistic computed as 1/(1 + exp(-x)) in f32, so for
 * x < -88.72 exp(-x) overflows and the result is 0 where the true value is
 * a subnormal down to x = -103.97 (the underflow threshold). */
#define FAULT_NAME "fault_logistic_naive"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.logistic ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        float x = (float)fd_load(&in[0], i);
        if (isinf(expf(-x)) && !isnan(x)) fd_store_f32(b, i, 0.0);
    }
}
