/* Planted fault: convert f64 -> f16 goes through f32 (two roundings), which
 * differs from one rounding when the f32 value lands on an f16 midpoint. */
#define FAULT_NAME "fault_double_round"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f16") || strcmp(in[0].dtype, "f64") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        plumb_store_bits(PLUMB_F16, b->data, i, plumb_f64_to_f16((double)(float)fd_load(&in[0], i)));
}
