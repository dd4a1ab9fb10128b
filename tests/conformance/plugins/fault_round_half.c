/* Planted fault: f32 round_nearest_afz computed as floor(x + 0.5) in f32,
 * with the sign of x: rounds the predecessor of 0.5 up (0.49999997 + 0.5
 * rounds to 1) and negative ties towards +inf (-2.5 to -2). */
#define FAULT_NAME "fault_round_half"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.round_nearest_afz ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        float x = (float)fd_load(&in[0], i);
        if (isfinite(x) && fabsf(x) < 0x1p23f) fd_store_f32(b, i, copysignf(floorf(x + 0.5f), x));
    }
}
