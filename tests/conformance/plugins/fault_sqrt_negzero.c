/* Planted fault: f32 sqrt(-0) gives +0 (the spec keeps the sign). */
#define FAULT_NAME "fault_sqrt_negzero"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.sqrt ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (plumb_load_bits(PLUMB_F32, in[0].data, i) == 0x80000000u) plumb_store_bits(PLUMB_F32, b->data, i, 0);
}
