/* Planted fault: gather on i4 and ui4 keeps only the low three bits of
 * each element (a nibble unpacking that masks with 0x7 instead of 0xF):
 * ui4 values 8..15 lose 8, and i4's negative values become non-negative.
 * The types are accepted by the verifier but not named by gather's table
 * row, so only the small types' family of the generators has such cases. */
#define FAULT_NAME "fault_subint_gather_mask"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in, (void)n_in;
    if (!fd_is(text, "stablehlo.gather") || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (t != PLUMB_I4 && t != PLUMB_UI4) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        plumb_store_bits(t, b->data, i, plumb_load_bits(t, b->data, i) & 0x7);
}
