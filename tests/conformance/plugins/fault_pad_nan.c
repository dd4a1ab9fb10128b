/* Planted fault: pad writes +0 where the pad value is a NaN (a fill
 * routine that takes the value through an integer path). The results are in
 * the order of the pads, pad k taking input k + 1 as its value. */
#define FAULT_NAME "fault_pad_nan"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.pad ") || n_in != o->n_buffers + 1) return;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        plumb_dtype t = fault_dtype(b);
        if (!plumb_dtype_is_float(t) || in[k + 1].rank != 0) continue;
        uint64_t v = plumb_load_bits(t, in[k + 1].data, 0);
        if (!isnan(fd_load(&in[k + 1], 0))) continue;
        for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
            if (plumb_load_bits(t, b->data, i) == v) plumb_store_bits(t, b->data, i, 0);
    }
}
