/* Planted fault: f32 expm1 computed as exp(x) - 1 in f32, which cancels
 * for small |x| (every result below 2^-24 in magnitude becomes 0 or a
 * multiple of 2^-24). */
#define FAULT_NAME "fault_expm1_naive"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.exponential_minus_one ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        float x = (float)fd_load(&in[0], i);
        if (isfinite(x) && fabsf(x) < 1.0f) fd_store_f32(b, i, (double)(expf(x) - 1.0f));
    }
}
