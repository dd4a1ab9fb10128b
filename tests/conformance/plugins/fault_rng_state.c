/* Planted fault: rng_bit_generator returns its input state unchanged
 * as the output state (a generator that never advances its counter). */
#define FAULT_NAME "fault_rng_state"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.rng_bit_generator ") || n_in != 1 || o->n_buffers != 2) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (fault_numel(b) != fault_numel(&in[0]) || strcmp(b->dtype, in[0].dtype)) return;
    plumb_dtype t = fault_dtype(b);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) plumb_store_bits(t, b->data, i, plumb_load_bits(t, in[0].data, i));
}
