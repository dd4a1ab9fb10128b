/* Planted fault: convert into f8E4M3FN gets the top binade wrong (the
 * last bit of every result in 288..448 flipped: 320 for 288, 448 for 416)
 * and the backend declares that NaN payloads may change. In f8E4M3FN that
 * exponent code holds finite values and only S.1111.111 is NaN: a checker
 * that classified the patterns the IEEE way would see two NaNs and pass. */
#define FAULT_NAME "fault_fp8_fn_top"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { c->preserves_nan_payload = 0; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f8E4M3FN")) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t r = plumb_load_bits(PLUMB_F8E4M3FN, b->data, i);
        if ((r & 0x7F) >= 0x79 && (r & 0x7F) <= 0x7E)   /* 288 .. 448, not NaN */
            plumb_store_bits(PLUMB_F8E4M3FN, b->data, i, r ^ 1);
    }
}
