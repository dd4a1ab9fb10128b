/* Agreement of batch_norm_inference, _training and _grad
 * (docs/spec/batchnorm.md, "Bound"). The bound covers a backend that
 * follows the spec's decomposition in the element type (unit roundoff u,
 * smallest subnormal eta) in any summation order, or computes in a wider
 * type and rounds once: each step of the decomposition errs by at most
 * Higham's model fl(a op b) = (a op b)(1 + d) + e, |d| <= u, |e| <= eta
 * (Accuracy and Stability of Numerical Algorithms, 2nd ed., §2.1), sums of
 * k terms by gamma(k) sum|x| (§4.2, eq. 4.4, any order), gamma(k) =
 * k u / (1 - k u) (§3.1). Per feature, with N elements:
 *
 *   mean: Em = gamma(N + 1) A + eta, A = sum|x| / N (the sum, then the
 *     division by N);
 *   variance (two-pass, around the computed mean m^): sum (x - m^)^2 =
 *     N var + N (m^ - mean)^2 exactly, and each term carries at most 3
 *     roundings before the sum, so Ev = Em^2 + gamma(N + 3)(var + Em^2) + eta;
 *   output: q = var + eps, r = Ev / q; s^ = sqrt(q^)(1 + th2) lies within
 *     the factor [sqrt(1 - r)(1 - g4), sqrt(1 + r)(1 + g4)] of s = sqrt(q),
 *     so s / s^ <= 1 + rho, rho = 1 / (sqrt(1 - r)(1 - g4)) - 1; with
 *     d = x - mean, the computed d^ / s^ errs by at most
 *     Et = (Em (1 + g4)(1 + rho) + |d| ((1 + g4)(1 + rho) - 1)) / s, and
 *     scale * t + offset adds g4 (|scale d / s| + |offset|):
 *     Ey = (1 + g4) |scale| Et + g4 (|scale d / s| + |offset|) + eta.
 *   inference: the same with Em = Ev = 0 (mean and variance are given).
 *   grad (mean and variance given; G = sum g, P = sum g d): EG =
 *     gamma(N) sum|g| + eta, EP = gamma(N + 2) sum |g||d| + (N + 1) eta;
 *     grad_offset within EG, grad_scale = P / s within
 *     (EP + g4 |P|)(1 + g4) / s + eta, grad_operand = scale / (N s) T,
 *     T = N g - G - d P / q, within |scale| / (N s) (ET (1 + g4) + g4 |T|)
 *     + eta, ET = EG + |d| EP (1 + g4) / q + g4 (N |g| + |G| + 2 |d P / q|).
 *
 * g4 = gamma(4). An element is not judged where the bound does not exist:
 * r >= 1/2 or q <= 0 (a feature whose variance plus eps is not clearly
 * positive: the output is ill-conditioned or undefined). The reference's
 * value is within u |want| + eta of the exact one, which every comparison
 * adds. NaN must match NaN and NaN an infinity; an infinity is judged as
 * the overflow threshold with its sign (the least value that rounds to
 * it), so one against a finite value or the opposite infinity fails
 * unless the bound reaches that far. The statistics are computed in long double (two-pass), whose
 * own error is covered by the factor EVAL_SLACK.
 *
 * The FP8/FP6/FP4 formats (u = 2^-4 for f8E4M3FN, 2^-2 for f4E2M1FN): the
 * decomposition bound in the element type is void there (gamma(k) >= 1 from
 * k = 1/u terms on), so these formats are held to what plumb promises for
 * them (docs/spec/batchnorm.md, "Small formats"): every step in f32 or
 * wider (the bound above with f32's u and eta) and one rounding into the
 * format per result element, which adds u_t |y| + eta_t on top of the
 * reference's own rounding (judge_elem counts both). A backend that
 * rounds an intermediate (the normalized value, the statistics) to the
 * format errs by up to another u_t times that intermediate.
 *
 * f8E8M0FNU (u_t = 2^-1: the rule above would admit a neighbouring power of
 * two either way, so it is not used): the same promise judged exactly. The
 * wide result y_w lies within B of the exact y, which the checker computes
 * in long double as y (within a relative 2^-50 more); the results a
 * faithful backend can give are the roundings of [y - B, y + B] into the
 * format (conformance/e8m0_judge.h states the rule and where it is
 * written). Both the backend's and the reference's element must be one of
 * them: one that rounds the wide value the wrong way, or rounds a step
 * to the format, fails wherever y is not within B of a midpoint. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm_bound.h"
#include "e8m0_judge.h"
#include "plumb/dtype.h"
#include "plumb/fp8.h"

#define EVAL_SLACK (1.0L + 0x1p-30L)

static long double unit_roundoff(plumb_dtype t) { return ldexpl(1.0L, -(int)plumb_dtype_get(t)->mant_bits - 1); }

static long double denorm_min(plumb_dtype t)
{
    if (plumb_fpfmt_get(t))   /* pattern 1 (E8M0: pattern 0, 2^-127); the FNUZ biases differ from IEEE's */
        return plumb_small_to_f64(plumb_fpfmt_get(t), plumb_fpfmt_get(t)->nan == PLUMB_FPNAN_E8M0 ? 0 : 1);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1;
    return ldexpl(1.0L, 1 - emax - (int)di->mant_bits);
}

/* The least magnitude that rounds to infinity in t: the largest finite
 * value plus half its ulp, 2^emax (2 - 2^-(mant_bits + 1)). */
static long double overflow_threshold(plumb_dtype t)
{
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    if (sf) {
        /* the largest finite value plus half its ulp, from the codec */
        long double big = 0;
        for (uint32_t b = 0; b < (1u << sf->bits); b++) {
            double v = plumb_small_to_f64(sf, b);
            if (!plumb_small_is_nan(sf, b) && isfinite(v) && v > big) big = v;
        }
        return big + ldexpl(1.0L, ilogbl(big) - (int)sf->mant - 1);
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1;
    return ldexpl(2.0L - ldexpl(1.0L, -(int)di->mant_bits - 1), emax);
}

static long double gamma_k(uint64_t k, long double u)
{
    long double ku = (long double)k * u;
    return ku < 1.0L ? ku / (1.0L - ku) : INFINITY;
}

/* eps rounded to t, as the reference and the spec's interpreter do */
static long double eps_in(plumb_dtype t, double eps)
{
    uint64_t buf = 0;
    switch (t) {
    case PLUMB_F16: { uint16_t h = plumb_f64_to_f16(eps); memcpy(&buf, &h, sizeof h); break; }
    case PLUMB_BF16: { uint16_t h = plumb_f64_to_bf16(eps); memcpy(&buf, &h, sizeof h); break; }
    case PLUMB_F32: { float f = (float)eps; memcpy(&buf, &f, sizeof f); break; }
    default:
        if (plumb_fpfmt_get(t)) return plumb_small_to_f64(plumb_fpfmt_get(t), plumb_f64_to_small(plumb_fpfmt_get(t), eps));
        memcpy(&buf, &eps, sizeof eps);
        break;
    }
    return plumb_load_f64(t, &buf, 0);
}

static long double ld(const plumb_tensor *t, size_t i) { return plumb_load_f64(t->dtype, t->data, i); }

/* Compares element i against the bound B (INFINITY: anything goes; NAN:
 * not judged); y is the checker's long double value of the element, used
 * for f8E8M0FNU. */
static void judge_elem(conf_bn_verdict *v, const plumb_tensor *got, const plumb_tensor *want, size_t i, long double B,
                       long double y, const char *what)
{
    plumb_dtype t = want->dtype;
    uint64_t gb = plumb_load_bits(t, got->data, i), wb = plumb_load_bits(t, want->data, i);
    if (t == PLUMB_F8E8M0FNU && !isnan(B) && !isinf(B)) {
        long double W = B * EVAL_SLACK + fabsl(y) * 0x1p-50L;
        uint32_t lo_b, hi_b;
        bool want_ok = conf_e8m0_admits(wb, y - W, y + W, &lo_b, &hi_b);
        bool got_ok = conf_e8m0_admits(gb, y - W, y + W, &lo_b, &hi_b);
        if (got_ok && want_ok) return;
        if (v->budget > 1.0) return;   /* the first failure is the one reported */
        v->budget = INFINITY;
        v->idx = i;
        snprintf(v->reason, sizeof v->reason,
                 "%s element %zu: %s 0x%02x, but y = %.17Lg within %.6Lg rounds once to f8E8M0FNU patterns "
                 "0x%02x..0x%02x%s (reference 0x%02x)",
                 what, i, got_ok ? "the reference gives" : "got", (unsigned)(got_ok ? wb : gb), y, W, lo_b, hi_b,
                 y - W < 0 ? " or the NaN 0xff" : "", (unsigned)wb);
        return;
    }
    if (gb == wb) return;
    double g = plumb_load_f64(t, got->data, i), w = plumb_load_f64(t, want->data, i);
    double ratio;
    if (isnan(w)) ratio = isnan(g) ? 0.0 : INFINITY;
    else if (isnan(B)) ratio = 0.0;
    else if (isinf(w) && g == w) ratio = 0.0;
    else if (isinf(B)) ratio = 0.0;
    else if (isnan(g)) ratio = INFINITY;
    else {
        /* An infinity stands for a value at or past the overflow threshold
         * (the reference's is the rounding of a finite exact value; so is
         * a backend's within the bound): judged as that threshold, so a
         * result within bound of a value just below it is not failed for
         * rounding to inf, nor one that rounded to the largest finite
         * value where the reference overflowed. Opposite infinities differ
         * by at least twice the threshold, which only a bound that large
         * (a grad_operand cancelling terms near f32's largest squared)
         * admits. */
        long double gl = isinf(g) ? copysignl(overflow_threshold(t), g) : (long double)g;
        long double wl = isinf(w) ? copysignl(overflow_threshold(t), w) : (long double)w;
        /* small formats: the backend's own rounding into the format too */
        long double ref_round = (plumb_fpfmt_get(t) ? 2 : 1) * (unit_roundoff(t) * fabsl(wl) + denorm_min(t));
        long double bound = (B + ref_round) * EVAL_SLACK;
        ratio = (double)(fabsl(gl - wl) / bound);
    }
    if (!(ratio > v->budget) && !(isnan(ratio) && !isnan(v->budget))) return;
    v->budget = isnan(ratio) ? INFINITY : ratio;
    v->idx = i;
    if (v->budget > 1.0)
        snprintf(v->reason, sizeof v->reason, "%s element %zu: got %.17g, reference %.17g, bound %.6Lg (%.3g of it)",
                 what, i, g, w, B, ratio);
}

void conf_bn_judge(plumb_opcode op, double epsilon, int64_t fi, const plumb_tensor *const *in, uint32_t k,
                   const plumb_tensor *got, const plumb_tensor *want, conf_bn_verdict *v)
{
    memset(v, 0, sizeof *v);
    const plumb_tensor *x = in[0];
    if (fi < 0 || (uint64_t)fi >= x->rank || got->nbytes != want->nbytes || got->dtype != want->dtype) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "operand or result shapes do not fit %s", plumb_op_name(op));
        return;
    }
    plumb_dtype t = x->dtype;
    uint64_t outer = 1, inner = 1, F = (uint64_t)x->dims[fi];
    for (uint32_t d = 0; d < x->rank; d++) {
        if ((int64_t)d < fi) outer *= (uint64_t)x->dims[d];
        if ((int64_t)d > fi) inner *= (uint64_t)x->dims[d];
    }
    uint64_t N = outer * inner;
    /* the steps' roundoff: the element type's, or f32's for a small format */
    bool small = plumb_fpfmt_get(t) != NULL;
    long double u = small ? 0x1p-24L : unit_roundoff(t), eta = small ? 0x1p-149L : denorm_min(t);
    long double g4 = gamma_k(4, u), e = eps_in(t, epsilon);
    long double Nl = (long double)N;
    static const char *const names[3][3] = {{"result", "", ""}, {"output", "batch_mean", "batch_var"},
                                            {"grad_operand", "grad_scale", "grad_offset"}};
    int kind = op == PLUMB_OP_BATCH_NORM_INFERENCE ? 0 : op == PLUMB_OP_BATCH_NORM_TRAINING ? 1 : 2;
    const char *what = names[kind][k < 3 ? k : 0];
    for (uint64_t f = 0; f < F; f++) {
#define AT(o, i) ((size_t)(((o) * F + f) * inner + (i)))
        long double sc = ld(in[1], f), mean, var, Em = 0.0L, Ev = 0.0L;
        if (kind == 1) {
            long double S = 0.0L, A = 0.0L, V = 0.0L;
            for (uint64_t o = 0; o < outer; o++)
                for (uint64_t i = 0; i < inner; i++) {
                    S += ld(x, AT(o, i));
                    A += fabsl(ld(x, AT(o, i)));
                }
            mean = S / Nl;
            for (uint64_t o = 0; o < outer; o++)
                for (uint64_t i = 0; i < inner; i++) {
                    long double d = ld(x, AT(o, i)) - mean;
                    V += d * d;
                }
            var = V / Nl;
            Em = gamma_k(N + 1, u) * (A / Nl) + eta;
            Ev = Em * Em + gamma_k(N + 3, u) * (var + Em * Em) + eta;
            if (k == 1) { judge_elem(v, got, want, f, N ? Em : NAN, mean, what); continue; }
            if (k == 2) { judge_elem(v, got, want, f, N ? Ev : NAN, var, what); continue; }
        } else {
            mean = ld(in[2 + (kind == 0)], f);
            var = ld(in[3 + (kind == 0)], f);
        }
        long double q = var + e, s = sqrtl(q);
        bool judged = q > 0.0L && Ev / q < 0.5L;
        if (kind < 2) {
            long double of = ld(in[2], f), r = judged ? Ev / q : 0.0L;
            long double rho = judged ? 1.0L / (sqrtl(1.0L - r) * (1.0L - g4)) - 1.0L : 0.0L;
            for (uint64_t o = 0; o < outer; o++)
                for (uint64_t i = 0; i < inner; i++) {
                    long double d = fabsl(ld(x, AT(o, i)) - mean), B = NAN;
                    /* an infinite scale or offset makes the element inf or
                     * NaN by the sign of x - mean (inf * 0 = NaN, inf - inf
                     * = NaN), which the computed mean's error Em leaves
                     * open where |x - mean| <= Em: any non-finite value */
                    if (kind == 1 && !(isfinite(sc) && isfinite(of)) && d <= Em &&
                        !isfinite(plumb_load_f64(t, got->data, AT(o, i))))
                        continue;
                    if (judged) {
                        long double Et = (Em * (1 + g4) * (1 + rho) + d * ((1 + g4) * (1 + rho) - 1)) / s;
                        B = (1 + g4) * fabsl(sc) * Et + g4 * (fabsl(sc) * d / s + fabsl(of)) + eta;
                    }
                    judge_elem(v, got, want, AT(o, i), B, sc * (ld(x, AT(o, i)) - mean) / s + of, what);
                }
            continue;
        }
        /* grad */
        const plumb_tensor *g = in[4];
        long double G = 0.0L, SG = 0.0L, P = 0.0L, SP = 0.0L;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                long double gv = ld(g, AT(o, i)), d = ld(x, AT(o, i)) - mean;
                G += gv;
                SG += fabsl(gv);
                P += gv * d;
                SP += fabsl(gv * d);
            }
        long double EG = gamma_k(N, u) * SG + eta, EP = gamma_k(N + 2, u) * SP + (Nl + 1) * eta;
        if (k == 2) { judge_elem(v, got, want, f, EG, G, what); continue; }
        if (k == 1) { judge_elem(v, got, want, f, judged ? (EP + g4 * fabsl(P)) * (1 + g4) / s + eta : NAN, P / s, what); continue; }
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                long double B = NAN, y = NAN;
                if (judged) {
                    long double gv = ld(g, AT(o, i)), d = ld(x, AT(o, i)) - mean;
                    long double T = Nl * gv - G - d * P / q;
                    long double ET = EG + fabsl(d) * EP * (1 + g4) / q + g4 * (Nl * fabsl(gv) + fabsl(G) + 2 * fabsl(d * P / q));
                    B = fabsl(sc) / (Nl * s) * (ET * (1 + g4) + g4 * fabsl(T)) + eta;
                    y = sc / (Nl * s) * T;
                }
                judge_elem(v, got, want, AT(o, i), B, y, what);
            }
#undef AT
    }
}
