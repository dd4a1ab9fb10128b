/* Planted fault: f32 tanh is 3 ULP too small in magnitude for 4 <= |x| < 8
 * (a polynomial segment fitted badly), where the result is not yet ±1. */
#define FAULT_NAME "fault_tanh_mid"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.tanh ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double x = fabs(fd_load(&in[0], i));
        uint64_t r = plumb_load_bits(PLUMB_F32, b->data, i);
        if (x >= 4.0 && x < 8.0 && (r & 0x7FFFFFFFu) < 0x3F800000u) plumb_store_bits(PLUMB_F32, b->data, i, r - 3);
    }
}
