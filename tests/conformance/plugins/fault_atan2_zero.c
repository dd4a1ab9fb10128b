/* Planted fault: f32 atan2(±0, -0) gives ±0 (the sign of the zero x
 * ignored) instead of ±π. */
#define FAULT_NAME "fault_atan2_zero"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.atan2 ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double y = fd_load(&in[0], i), x = fd_load(&in[1], i);
        if (y == 0 && x == 0) fd_store_f32(b, i, y);
    }
}
