/* Planted fault: batch_norm_inference on f8E8M0FNU rounds each result
 * toward zero (the largest power of two not above it: the exponent field
 * of the wide value, its significand dropped) instead of to nearest with
 * ties up, the one rounding the format's rule asks for (docs/spec/types.md,
 * "Conversions"). A backend that builds E8M0 values by taking the exponent
 * of a float makes this slip; it is one power of two low wherever the wide
 * result's significand is 1.5 or more. Planted after the inner backend
 * ran: each element recomputed in double from the operands, the epsilon and
 * feature_index attributes read from the program; elements whose wide
 * value is not positive and finite keep the inner backend's NaN. */
#define FAULT_NAME "fault_e8m0_bn_truncate"
#include <math.h>
#include <stdio.h>

#include "plumb/backend.h"
#include "plumb/fp8.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.batch_norm_inference") || o->n_buffers != 1 || n_in != 5) return;
    const plumb_backend_buffer *y = &o->buffers[0];
    plumb_dtype t = fault_dtype(y);
    const char *pe = strstr(text, "epsilon = "), *pf = strstr(text, "feature_index = ");
    if (t != PLUMB_F8E8M0FNU || !pe || !pf) return;
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    double eps = plumb_small_to_f64(f, plumb_f64_to_small(f, strtod(pe + 10, NULL)));
    long fi = strtol(pf + 16, NULL, 10);
    if (fi < 0 || (uint32_t)fi >= in[0].rank) return;
    uint64_t outer = 1, inner = 1, F = (uint64_t)in[0].dims[fi];
    for (uint32_t d = 0; d < in[0].rank; d++) {
        if ((long)d < fi) outer *= (uint64_t)in[0].dims[d];
        if ((long)d > fi) inner *= (uint64_t)in[0].dims[d];
    }
    for (uint64_t c = 0; c < F; c++) {
        double sc = plumb_load_f64(t, in[1].data, c), of = plumb_load_f64(t, in[2].data, c);
        double m = plumb_load_f64(t, in[3].data, c), v = plumb_load_f64(t, in[4].data, c);
        for (uint64_t a = 0; a < outer; a++)
            for (uint64_t i = 0; i < inner; i++) {
                size_t at = (size_t)((a * F + c) * inner + i);
                double w = sc * (plumb_load_f64(t, in[0].data, at) - m) / sqrt(v + eps) + of;
                if (!(w > 0) || !isfinite(w)) continue;
                int e;
                frexp(w, &e);   /* w = s 2^e, s in [1/2, 1): truncated, 2^(e - 1) */
                double tr = ldexp(1.0, e - 1);
                if (tr < 0x1p-127) tr = 0x1p-127;
                if (tr > 0x1p127) continue;
                plumb_store_bits(t, y->data, at, plumb_f64_to_small(f, tr));
            }
    }
}
