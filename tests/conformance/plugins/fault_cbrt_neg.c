/* Planted fault: f32 cbrt as powf(x, 1/3), NaN for negative x. */
#define FAULT_NAME "fault_cbrt_neg"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.cbrt ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (fd_load(&in[0], i) < 0) fd_store_f32(b, i, NAN);
}
