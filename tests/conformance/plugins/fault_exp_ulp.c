/* Planted fault: exp is off by 2 ULP on every f32 input whose low bits are 3 mod 8. */
#define FAULT_NAME "fault_exp_ulp"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.exponential ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32")) return;
    /* Element i of the result comes from element i of the input only when
     * they have as many elements (a broadcast case's input is smaller). */
    if (fault_numel(&in[0]) != fault_numel(b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t x = plumb_load_bits(PLUMB_F32, in[0].data, i), r = plumb_load_bits(PLUMB_F32, b->data, i);
        if ((x & 7) == 3 && (r & 0x7F800000u) != 0x7F800000u && (r & 0x7F800000u) >= 0x00800000u &&
            (r & 0x7F800000u) < 0x7F000000u)
            plumb_store_bits(PLUMB_F32, b->data, i, r + 2);
    }
}
