/* Planted fault: f32 exp returns +inf from x > 88.70 on, a little before
 * the real overflow threshold ln(FLT_MAX + ulp/2) = 88.7228 (a range check
 * with a rounded constant). */
#define FAULT_NAME "fault_exp_early_inf"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.exponential ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (fd_load(&in[0], i) > 88.70) fd_store_f32(b, i, INFINITY);
}
