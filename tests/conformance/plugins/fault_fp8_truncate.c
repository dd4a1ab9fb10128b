/* Planted fault: convert from f16, bf16, f32 or f64 into a small float
 * format (FP8/FP6/FP4) truncates toward zero instead of rounding to
 * nearest, ties to even: a finite result the reference rounded up in
 * magnitude is stepped one pattern back toward zero. Only inputs above a
 * midpoint of the target show it (the midpoint family's upper neighbours). */
#define FAULT_NAME "fault_fp8_truncate"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"
#include "plumb/fp8.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype s = fault_dtype(&in[0]), d = fault_dtype(b);
    const plumb_fpfmt *f = plumb_fpfmt_get(d);
    if (!f || !fd_same_numel(in, n_in, b)) return;
    if (s != PLUMB_F16 && s != PLUMB_BF16 && s != PLUMB_F32 && s != PLUMB_F64) return;
    uint32_t sign = d == PLUMB_F8E8M0FNU ? 0 : 1u << (f->bits - 1);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double x = plumb_load_f64(s, in[0].data, i);
        uint32_t r = (uint32_t)plumb_load_bits(d, b->data, i);
        double v = plumb_small_to_f64(f, r);
        if (!isfinite(x) || !isfinite(v) || fabs(v) <= fabs(x)) continue;
        uint32_t mag = r & ~sign;
        if (mag == 0) continue;
        plumb_store_bits(d, b->data, i, (r & sign) | (mag - 1));
    }
}
