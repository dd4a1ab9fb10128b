/* Planted fault: an f32 add-reduce ignores its init value (starts from 0). */
#define FAULT_NAME "fault_reduce_init"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.reduce(") || !fd_is(text, "applies stablehlo.add") || n_in != 2 || o->n_buffers != 1)
        return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || in[1].rank != 0 || strcmp(in[1].dtype, "f32")) return;
    double init = fd_load(&in[1], 0);
    if (!isfinite(init)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double r = fd_load(b, i);
        if (isfinite(r)) fd_store_f32(b, i, r - init);
    }
}
