/* Planted fault: convert i32 -> i8 saturates to [-128, 127] instead
 * of keeping the low 8 bits. */
#define FAULT_NAME "fault_convert_sat"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "i8") || strcmp(in[0].dtype, "i32") || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        int32_t x = (int32_t)plumb_load_bits(PLUMB_I32, in[0].data, i);
        int32_t r = x < -128 ? -128 : x > 127 ? 127 : x;
        plumb_store_bits(PLUMB_I8, b->data, i, (uint64_t)(uint8_t)(int8_t)r);
    }
}
