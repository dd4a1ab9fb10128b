/* Operand values for the batch norm conformance cases
 * (docs/spec/batchnorm.md, "Conformance"). Per feature c, with a center
 * m_c and a spread w_c:
 *   normal    x = m_c + w_c U(-1, 1), m_c in U(-1, 1), w_c in U(0.5, 2);
 *   shifted   the same around |m_c| in U(32, 64) with w_c in U(0.25, 1):
 *             a mean far larger than the spread, where E[x^2] - E[x]^2
 *             cancels and only the two-pass variance is accurate;
 *   constant  x = m_c everywhere: variance 0 (the cases use eps > 0).
 * scale is +-U(0.5, 2), offset U(-1, 1), grad_output U(-1, 1); the mean
 * and variance operands of inference and grad are the feature's own (the
 * data's mean and biased variance, rounded to the element type), as a
 * network passes them. Every value is rounded once into the element type.
 * On the FP8/FP6/FP4 formats (value class "patterns", the small types'
 * family of gen.c) the values are the normal class's, rounded once by the
 * format's codec: with 3 or 4 significant bits most draws land on few
 * codes, ties and repeated values included.
 * f8E8M0FNU (powers of two 2^-127 .. 2^127 and a NaN, no zero, no sign):
 * the "patterns" class draws every operand from the format's own patterns,
 * 2^k with k in [-2, 2] (x, grad_output), [-1, 1] (scale) and [-1, 2]
 * (offset), mean and variance the data's rounded once (a variance of 0
 * becomes 2^-127); x - mean is negative for about half the elements, so
 * results are NaN (the format's negative) as often as powers of two, and
 * the offsets put many on both sides of the rounding midpoints 1.5 * 2^e.
 * Its specials (docs/spec/types.md): feature 0 holds 2^-127 and 2^127 in
 * x (a variance near 2^253), feature 1 a NaN scale (grad: a NaN
 * grad_output too), feature 2 the offset 2^127 (1.5 * 2^127 and above
 * overflow to NaN). */
#include <math.h>
#include <string.h>

#include "batchnorm_bound.h"
#include "plumb/dtype.h"
#include "plumb/fp8.h"

static void put(plumb_tensor *t, size_t i, double v)
{
    uint64_t b;
    switch (t->dtype) {
    case PLUMB_F16: b = plumb_f64_to_f16(v); break;
    case PLUMB_BF16: b = plumb_f64_to_bf16(v); break;
    case PLUMB_F32: b = plumb_f32_bits((float)v); break;
    default: b = plumb_fpfmt_get(t->dtype) ? plumb_f64_to_small(plumb_fpfmt_get(t->dtype), v) : plumb_f64_bits(v); break;
    }
    plumb_store_bits(t->dtype, t->data, i, b);
}

static double uni(gsl_rng *r, double lo, double hi) { return lo + (hi - lo) * gsl_rng_uniform(r); }

/* 2^k, k uniform in [lo, hi] */
static double pow2(gsl_rng *r, int lo, int hi) { return ldexp(1.0, lo + (int)gsl_rng_uniform_int(r, (unsigned long)(hi - lo + 1))); }

/* f8E8M0FNU operands (the class at the top) */
static void fill_e8m0(bool inf, bool train, int64_t fi, plumb_tensor *const *in, gsl_rng *rng)
{
    plumb_tensor *x = in[0];
    uint64_t outer = 1, inner = 1, F = (uint64_t)x->dims[fi];
    for (uint32_t d = 0; d < x->rank; d++) {
        if ((int64_t)d < fi) outer *= (uint64_t)x->dims[d];
        if ((int64_t)d > fi) inner *= (uint64_t)x->dims[d];
    }
    uint64_t N = outer * inner;
    for (uint64_t f = 0; f < F; f++) {
        long double s = 0, ss = 0;
        uint64_t k = 0;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++, k++) {
                size_t at = (size_t)((o * F + f) * inner + i);
                double v = pow2(rng, -2, 2);
                if (f == 0 && k == 0) v = 0x1p-127;
                if (f == 0 && k == 1) v = 0x1p127;
                put(x, at, v);
                s += v;
            }
        long double mean = N ? s / (long double)N : 0;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                long double d = plumb_load_f64(x->dtype, x->data, (size_t)((o * F + f) * inner + i)) - mean;
                ss += d * d;
            }
        double var = N ? (double)(ss / (long double)N) : 0;
        put(in[1], f, f == 1 ? NAN : pow2(rng, -1, 1));
        if (inf || train) put(in[2], f, f == 2 ? 0x1p127 : pow2(rng, -1, 2));
        if (inf) { put(in[3], f, (double)mean); put(in[4], f, var); }
        if (!inf && !train) {
            put(in[2], f, (double)mean);
            put(in[3], f, var);
            for (uint64_t o = 0; o < outer; o++)
                for (uint64_t i = 0; i < inner; i++)
                    put(in[4], (size_t)((o * F + f) * inner + i), f == 1 && o == 0 && i == 0 ? NAN : pow2(rng, -2, 1));
        }
    }
}

bool conf_bn_fill(plumb_opcode op, const char *vc, int64_t fi, plumb_tensor *const *in, uint32_t n, gsl_rng *rng)
{
    bool inf = op == PLUMB_OP_BATCH_NORM_INFERENCE, train = op == PLUMB_OP_BATCH_NORM_TRAINING;
    if (!inf && !train && op != PLUMB_OP_BATCH_NORM_GRAD) return false;
    if (n != (train ? 3u : 5u)) return false;
    int cls = !strcmp(vc, "normal") ? 0 : !strcmp(vc, "shifted") ? 1 : !strcmp(vc, "constant") ? 2 : -1;
    if (!strcmp(vc, "patterns") && plumb_fpfmt_get(in[0]->dtype)) cls = 0;
    if (cls < 0) return false;
    plumb_tensor *x = in[0];
    if (fi < 0 || (uint64_t)fi >= x->rank) return false;
    if (x->dtype == PLUMB_F8E8M0FNU) {
        if (strcmp(vc, "patterns")) return false;
        fill_e8m0(inf, train, fi, in, rng);
        return true;
    }
    uint64_t outer = 1, inner = 1, F = (uint64_t)x->dims[fi];
    for (uint32_t d = 0; d < x->rank; d++) {
        if ((int64_t)d < fi) outer *= (uint64_t)x->dims[d];
        if ((int64_t)d > fi) inner *= (uint64_t)x->dims[d];
    }
    for (uint64_t f = 0; f < F; f++) {
        double m = cls == 1 ? uni(rng, 32, 64) * (gsl_rng_uniform(rng) < 0.5 ? -1 : 1) : uni(rng, -1, 1);
        double w = cls == 1 ? uni(rng, 0.25, 1) : uni(rng, 0.5, 2);
        double s = 0, ss = 0;
        uint64_t N = outer * inner;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                size_t at = (size_t)((o * F + f) * inner + i);
                put(x, at, cls == 2 ? m : m + w * uni(rng, -1, 1));
                double v = plumb_load_f64(x->dtype, x->data, at);
                s += v;
            }
        double mean = N ? s / (double)N : 0;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                double d = plumb_load_f64(x->dtype, x->data, (size_t)((o * F + f) * inner + i)) - mean;
                ss += d * d;
            }
        double var = N ? ss / (double)N : 0;
        put(in[1], f, uni(rng, 0.5, 2) * (gsl_rng_uniform(rng) < 0.5 ? -1 : 1));
        if (inf || train) put(in[2], f, uni(rng, -1, 1));
        if (inf) { put(in[3], f, mean); put(in[4], f, var); }
        if (!inf && !train) {
            put(in[2], f, mean);
            put(in[3], f, var);
            for (uint64_t o = 0; o < outer; o++)
                for (uint64_t i = 0; i < inner; i++) put(in[4], (size_t)((o * F + f) * inner + i), uni(rng, -1, 1));
        }
    }
    return true;
}
