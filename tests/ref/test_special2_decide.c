/* chlo.zeta and chlo.polygamma decided without Ziv's loop (ref/special2.c,
 * docs/spec/special2.md "Results decided early"): a small format's result
 * beyond its range, from an evaluation (small_beyond) or from bounds before
 * any (small_range, q > 0 and q < 0), and a result whose leading term is a
 * double that the rest of the sum cannot move past the next double
 * (lead_dyadic), checked at and around the thresholds on every format.
 *
 * Expected values, computed here without ref/special2.c's evaluation:
 *  - bounds: for q > 0 and s > 1 the sum zeta(s, q) = sum_k (q + k)^-s of
 *    decreasing terms lies between q^-s + I and q^-s + (q+1)^-s + I, with
 *    I = int_(q+1)^inf x^-s dx = (q+1)^(1-s)/(s-1) (the integral test), so
 *      zeta(s, q) = q^-s Z,  1 + r c <= Z <= 1 + r (1 + c),
 *      r = (q/(q+1))^s,  c = (q+1)/(s-1);
 *    times n! (-1)^(n+1) for polygamma(n, q) = (-1)^(n+1) n! zeta(n+1, q).
 *    The bounds are computed with MPFR in directed rounding (in logarithms,
 *    so 2^(2^127) fits) and rounded to the target: a small format by its
 *    codec (ir/fp8.c, monotone) applied to doubles below and above the
 *    bounds, f16/bf16/f32/f64 by MPFR at the type's precision (normal range
 *    only). When both bounds give the same result, it is the correctly
 *    rounded one; other pairs are skipped;
 *  - Riemann's zeta: zeta(s, 1) = zeta(s) and zeta(s, 2) = zeta(s) - 1 from
 *    MPFR's mpfr_zeta_ui (correctly rounded at the target's precision, or
 *    at s + 200 bits before the exact subtraction), and polygamma(n, 1) =
 *    (-1)^(n+1) n! zeta(n + 1). These pass through the threshold of
 *    lead_dyadic: zeta(53, 1) = 1 + 2^-53 + 3^-53 + ... rounds up to the
 *    double after 1, which the shortcut, fired too early, would miss. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"

#include "../../ref/crmath.h"
#include "../../ref/special2.h"

/* the bounds' precision: 96 bits decide the small formats (whose
 * thresholds are a factor of 2 or more apart), 128 bits f16..f64 */
#define BP_SMALL 96
#define BP_WIDE 128

/* lo <= sign F zeta(s, q) <= hi in magnitude (F = n! when n >= 1, else 1),
 * as MPFR numbers of any exponent: the directed-rounding evaluation of the
 * bounds in the header. mpfr's exponent range must be the widest. */
static void zeta_bounds(mpfr_t lo, mpfr_t hi, double s, double q, double n)
{
    mpfr_t a, b, r_lo, r_hi, c_lo, c_hi, t;
    mpfr_inits2(mpfr_get_prec(lo), a, b, r_lo, r_hi, c_lo, c_hi, t, (mpfr_ptr)0);
    /* r = exp(-s log1p(1/q)) */
    mpfr_set_d(a, q, MPFR_RNDN);
    mpfr_ui_div(b, 1, a, MPFR_RNDU);
    mpfr_log1p(b, b, MPFR_RNDU);
    mpfr_mul_d(b, b, s, MPFR_RNDU);
    mpfr_neg(b, b, MPFR_RNDN);
    mpfr_exp(r_lo, b, MPFR_RNDD);
    mpfr_ui_div(b, 1, a, MPFR_RNDD);
    mpfr_log1p(b, b, MPFR_RNDD);
    mpfr_mul_d(b, b, s, MPFR_RNDD);
    mpfr_neg(b, b, MPFR_RNDN);
    mpfr_exp(r_hi, b, MPFR_RNDU);
    /* c = (q + 1)/(s - 1) */
    mpfr_set_d(b, s, MPFR_RNDN);
    mpfr_sub_ui(b, b, 1, MPFR_RNDU);
    mpfr_add_ui(t, a, 1, MPFR_RNDD);
    mpfr_div(c_lo, t, b, MPFR_RNDD);
    mpfr_set_d(b, s, MPFR_RNDN);
    mpfr_sub_ui(b, b, 1, MPFR_RNDD);
    mpfr_add_ui(t, a, 1, MPFR_RNDU);
    mpfr_div(c_hi, t, b, MPFR_RNDU);
    /* log Z */
    mpfr_mul(c_lo, c_lo, r_lo, MPFR_RNDD);
    mpfr_log1p(c_lo, c_lo, MPFR_RNDD);                  /* log Z >= this */
    mpfr_add_ui(c_hi, c_hi, 1, MPFR_RNDU);
    mpfr_mul(c_hi, c_hi, r_hi, MPFR_RNDU);
    mpfr_log1p(c_hi, c_hi, MPFR_RNDU);                  /* log Z <= this */
    /* log F */
    mpfr_set_ui(r_lo, 0, MPFR_RNDN);
    mpfr_set_ui(r_hi, 0, MPFR_RNDN);
    if (n >= 1) {
        mpfr_set_d(t, n, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);                /* exact: n < 2^128 */
        mpfr_lngamma(r_lo, t, MPFR_RNDD);
        mpfr_lngamma(r_hi, t, MPFR_RNDU);
    }
    /* -s log q */
    mpfr_log(b, a, MPFR_RNDU);
    mpfr_mul_d(b, b, s, MPFR_RNDU);
    mpfr_sub(r_lo, r_lo, b, MPFR_RNDD);
    mpfr_log(b, a, MPFR_RNDD);
    mpfr_mul_d(b, b, s, MPFR_RNDD);
    mpfr_sub(r_hi, r_hi, b, MPFR_RNDU);
    mpfr_add(r_lo, r_lo, c_lo, MPFR_RNDD);
    mpfr_add(r_hi, r_hi, c_hi, MPFR_RNDU);
    mpfr_exp(lo, r_lo, MPFR_RNDD);
    mpfr_exp(hi, r_hi, MPFR_RNDU);
    mpfr_clears(a, b, r_lo, r_hi, c_lo, c_hi, t, (mpfr_ptr)0);
}

/* The result in t that every value of sign `neg` between lo and hi rounds
 * to, or false when they round apart (or leave f16..f64's normal range). */
static bool decided(plumb_dtype t, const mpfr_t lo, const mpfr_t hi, bool neg, uint64_t *want)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f) {
        double dl = mpfr_get_d(lo, MPFR_RNDD), dh = mpfr_get_d(hi, MPFR_RNDU);
        if (isinf(dl))
            dl = DBL_MAX;                                /* still a lower bound */
        uint32_t a = plumb_f64_to_small(f, neg ? -dl : dl), b = plumb_f64_to_small(f, neg ? -dh : dh);
        *want = a;
        return a == b;
    }
    const plumb_dtype_info *d = plumb_dtype_get(t);
    mpfr_t rl, rh;
    mpfr_inits2((mpfr_prec_t)d->mant_bits + 1, rl, rh, (mpfr_ptr)0);
    mpfr_set(rl, lo, MPFR_RNDN);
    mpfr_set(rh, hi, MPFR_RNDN);
    long emax = 1l << (d->exp_bits - 1);                 /* values below 2^emax */
    bool ok = mpfr_equal_p(rl, rh) && mpfr_get_exp(rl) <= emax && mpfr_get_exp(rl) >= 3 - emax;
    if (ok) {
        double v = mpfr_get_d(rl, MPFR_RNDN);            /* exact */
        *want = cr_from_double(t, neg ? -v : v);
        ok = cr_to_double(t, *want) == (neg ? -v : v);  /* within t's largest finite */
    }
    mpfr_clears(rl, rh, (mpfr_ptr)0);
    return ok;
}

static const plumb_dtype smalls[] = {
    PLUMB_F8E4M3FN, PLUMB_F8E5M2, PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ, PLUMB_F8E4M3B11FNUZ, PLUMB_F8E3M4,
    PLUMB_F8E4M3, PLUMB_F8E8M0FNU, PLUMB_F6E2M3FN, PLUMB_F6E3M2FN, PLUMB_F4E2M1FN,
};

/* log2 of a rough magnitude of n! zeta(s, q), to pick the pairs near a
 * threshold (a filter only: the expected values are the bounds'). */
static double rough_log2(double s, double q, double n)
{
    double lf = n >= 1 ? lgamma(n + 1) / log(2.0) : 0;
    return lf - s * log2(q) + log2(1 + q / (s - 1));
}

/* Every pair of positive patterns (s > 1 for zeta, n >= 1 an integer for
 * polygamma) of every small format whose value lies within 2 binades of the
 * format's overflow threshold 2^hi or its rounding-to-zero threshold 2^lo
 * (small_beyond's, ref/special2.c), and every 12th other pair (the far ones,
 * q a power of two): cr_zeta and cr_polygamma return the result the bounds
 * decide. Counts how many pairs were decided and at which side. */
static void check_small(bool poly)
{
    long checked = 0, over = 0, under = 0, inside = 0;
    for (size_t i = 0; i < sizeof smalls / sizeof smalls[0]; i++) {
        plumb_dtype t = smalls[i];
        const plumb_fpfmt *f = plumb_fpfmt_get(t);
        double minpos = f->nan == PLUMB_FPNAN_E8M0 ? ldexp(1.0, -f->bias) : ldexp(1.0, 1 - f->bias - f->mant);
        int hi = ilogb(plumb_small_max(f)) + 1, lo = ilogb(minpos) - 1;
        uint32_t np = 1u << f->bits;
        mpfr_t bl, bh;
        mpfr_inits2(BP_SMALL, bl, bh, (mpfr_ptr)0);
        long far = 0;
        for (uint32_t a = 0; a < np; a++) {
            double s = plumb_small_to_f64(f, a);
            if (!isfinite(s) || (poly ? !(s >= 1 && s == floor(s)) : !(s > 1)))
                continue;
            for (uint32_t b = 0; b < np; b++) {
                double q = plumb_small_to_f64(f, b);
                if (!isfinite(q) || !(q > 0))
                    continue;
                double sz = poly ? s + 1 : s, m = rough_log2(sz, q, poly ? s : 0);
                bool near = fabs(m - hi) <= 2 || fabs(m - lo) <= 2;
                if (!near && far++ % 12 != 0)
                    continue;                            /* a sample of the others */
                zeta_bounds(bl, bh, sz, q, poly ? s : 0);
                bool neg = poly && fmod(s, 2) == 0;
                uint64_t want;
                if (!decided(t, bl, bh, neg, &want))
                    continue;
                uint64_t got = poly ? cr_polygamma(t, a, b) : cr_zeta(t, a, b);
                if (got != want)
                    fail_msg("%s %s(%g, %g): got 0x%llx, bounds decide 0x%llx", plumb_dtype_name(t),
                             poly ? "polygamma" : "zeta", s, q, (unsigned long long)got, (unsigned long long)want);
                checked++;
                double v = mpfr_get_d(bl, MPFR_RNDD);
                if (v >= ldexp(1.0, hi))
                    over++;
                else if (mpfr_cmp_d(bh, ldexp(1.0, lo)) < 0)
                    under++;
                else
                    inside++;
            }
        }
        mpfr_clears(bl, bh, (mpfr_ptr)0);
    }
    print_message("%s: %ld pairs decided by the bounds (%ld beyond the overflow threshold, %ld below the zero "
                  "threshold, %ld inside)\n", poly ? "polygamma" : "zeta", checked, over, under, inside);
    assert_true(over > 100 && under > 100 && inside > 100);
}

/* q < 0, not an integer, s an integer: zeta(s, q) = S + zeta(s, f) with
 * the finite sum S = sum_{k<m} (q + k)^-s (m = ceil(-q), each term at
 * BP_SMALL bits, their rounding errors counted as 2^-90 of sum |terms|)
 * and f = q + m in (0, 1), bounded as above. Times n! (exact for n <= 40)
 * and (-1)^(n+1) for polygamma. Every such pair of every small format with
 * n <= 40 within 3 binades of the overflow threshold, and every 8th other
 * one: the result the bounds decide (most overflow: small_range's q < 0
 * rule; the rest through the loop). */
static void check_small_negq(bool poly)
{
    long checked = 0, over = 0;
    mpfr_t S, T, A, zl, zh, vl, vh, F;
    mpfr_inits2(BP_SMALL, S, T, A, zl, zh, vl, vh, (mpfr_ptr)0);
    mpfr_init2(F, 300);
    for (size_t i = 0; i < sizeof smalls / sizeof smalls[0]; i++) {
        plumb_dtype t = smalls[i];
        const plumb_fpfmt *f = plumb_fpfmt_get(t);
        uint32_t np = 1u << f->bits;
        int hi = ilogb(plumb_small_max(f)) + 1;
        long far = 0;
        for (uint32_t a = 0; a < np; a++) {
            double s = plumb_small_to_f64(f, a);
            if (!isfinite(s) || s != floor(s) || (poly ? !(s >= 1 && s <= 40) : !(s > 1)))
                continue;
            double sz = poly ? s + 1 : s;
            bool neg = poly && fmod(s, 2) == 0;          /* (-1)^(n+1) */
            mpfr_fac_ui(F, poly ? (unsigned long)s : 1, MPFR_RNDN);   /* exact: 40! < 2^160 */
            for (uint32_t b = 0; b < np; b++) {
                double q = plumb_small_to_f64(f, b);
                if (!isfinite(q) || !(q < 0) || q == floor(q))
                    continue;
                double m = ceil(-q), d = fabs(q - nearbyint(q));
                double est = (poly ? lgamma(s + 1) / log(2.0) : 0) - sz * log2(d);   /* a filter only */
                if (fabs(est - hi) > 3 && ++far % 8 != 0)
                    continue;                            /* every 8th pair away from small_range's threshold */
                mpfr_set_ui(S, 0, MPFR_RNDN);
                mpfr_set_ui(A, 0, MPFR_RNDN);
                for (double k = 0; k < m; k++) {
                    mpfr_set_d(T, q + k, MPFR_RNDN);     /* exact */
                    mpfr_pow_ui(T, T, (unsigned long)sz, MPFR_RNDN);
                    mpfr_ui_div(T, 1, T, MPFR_RNDN);
                    mpfr_add(S, S, T, MPFR_RNDN);
                    mpfr_abs(T, T, MPFR_RNDN);
                    mpfr_add(A, A, T, MPFR_RNDU);
                }
                mpfr_mul_2si(A, A, -90, MPFR_RNDU);       /* the finite sum's error bound */
                zeta_bounds(zl, zh, sz, q + m, 0);        /* zeta(s, f), f = q + m exact */
                mpfr_sub(vl, S, A, MPFR_RNDD);
                mpfr_add(vl, vl, zl, MPFR_RNDD);
                mpfr_add(vh, S, A, MPFR_RNDU);
                mpfr_add(vh, vh, zh, MPFR_RNDU);
                mpfr_mul(vl, vl, F, MPFR_RNDD);
                mpfr_mul(vh, vh, F, MPFR_RNDU);
                if (neg) {
                    mpfr_swap(vl, vh);
                    mpfr_neg(vl, vl, MPFR_RNDN);
                    mpfr_neg(vh, vh, MPFR_RNDN);
                }
                if (mpfr_sgn(vl) != mpfr_sgn(vh))
                    continue;                             /* the FNUZ formats' one NaN for both overflows */
                uint32_t wl = plumb_f64_to_small(f, mpfr_get_d(vl, MPFR_RNDD));
                uint32_t wh = plumb_f64_to_small(f, mpfr_get_d(vh, MPFR_RNDU));
                if (wl != wh)
                    continue;
                uint64_t got = poly ? cr_polygamma(t, a, b) : cr_zeta(t, a, b);
                if (got != wl)
                    fail_msg("%s %s(%g, %g): got 0x%llx, bounds decide 0x%x", plumb_dtype_name(t),
                             poly ? "polygamma" : "zeta", s, q, (unsigned long long)got, wl);
                checked++;
                over += wl == plumb_f64_to_small(f, mpfr_sgn(vl) < 0 ? -INFINITY : INFINITY);
            }
        }
    }
    mpfr_clears(S, T, A, zl, zh, vl, vh, F, (mpfr_ptr)0);
    print_message("%s, q < 0: %ld pairs decided by the bounds, %ld overflowing\n", poly ? "polygamma" : "zeta",
                  checked, over);
    assert_true(over > 100 && checked - over > 100);
}

/* zeta on every small format: at and around both of small_beyond's and
 * small_range's thresholds, q a power of two (lead_dyadic), and q < 0: the
 * bounds' result. */
static void test_small_zeta(void **state)
{
    (void)state;
    mpfr_exp_t omin = mpfr_get_emin(), omax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    check_small(false);
    check_small_negq(false);
    mpfr_set_emin(omin);
    mpfr_set_emax(omax);
}

/* polygamma likewise (negative results for even n: E8M0's NaN, the FNUZ
 * formats' +0). */
static void test_small_polygamma(void **state)
{
    (void)state;
    mpfr_exp_t omin = mpfr_get_emin(), omax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    check_small(true);
    check_small_negq(true);
    mpfr_set_emin(omin);
    mpfr_set_emax(omax);
}

static const plumb_dtype wides[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

static uint64_t bits_of(plumb_dtype t, double v)
{
    uint64_t b = cr_from_double(t, v);
    assert_true(cr_to_double(t, b) == v);                /* an input exact in t */
    return b;
}

/* zeta(s, 1) and zeta(s, 2) for s = 2..160 and a few huge s, in f16, bf16,
 * f32 and f64, against MPFR's Riemann zeta: through lead_dyadic's threshold
 * (the rest of the sum below 2^-60 of the leading term: s >= 61 at q = 1,
 * s >= 104 at q = 2), where a shortcut fired early would return the
 * leading term 1 or 2^-s instead. */
static void test_wide_riemann(void **state)
{
    (void)state;
    static const double huge[] = {1000, 65504, 1048576, 1e15, 1e300};
    for (size_t i = 0; i < sizeof wides / sizeof wides[0]; i++) {
        plumb_dtype t = wides[i];
        mpfr_prec_t p = (mpfr_prec_t)plumb_dtype_get(t)->mant_bits + 1;
        for (int k = 0; k < 159 + 5; k++) {
            double s = k < 159 ? 2 + k : huge[k - 159];
            if (cr_to_double(t, cr_from_double(t, s)) != s)
                continue;                                /* s not a value of t */
            mpfr_t z, w;
            mpfr_init2(w, p);
            /* zeta(s, 1) */
            if (s <= 1e6) {
                mpfr_zeta_ui(w, (unsigned long)s, MPFR_RNDN);
            } else {
                mpfr_set_ui(w, 1, MPFR_RNDN);            /* 1 + 2^-s + ...: below 1 + 2^-1000 */
            }
            uint64_t got = cr_zeta(t, bits_of(t, s), bits_of(t, 1));
            uint64_t want = cr_from_double(t, mpfr_get_d(w, MPFR_RNDN));
            if (got != want)
                fail_msg("%s zeta(%g, 1): got 0x%llx, want 0x%llx", plumb_dtype_name(t), s,
                         (unsigned long long)got, (unsigned long long)want);
            /* zeta(s, 2) = zeta(s) - 1 = 2^-s (1 + (2/3)^s + ...) */
            if (s <= 160 && s < (t == PLUMB_F16 ? 24 : t == PLUMB_F64 ? 1074 : 149)) {
                mpfr_init2(z, (mpfr_prec_t)s + 200);
                mpfr_zeta_ui(z, (unsigned long)s, MPFR_RNDN);
                mpfr_sub_ui(z, z, 1, MPFR_RNDN);         /* exact */
                mpfr_set(w, z, MPFR_RNDN);
                mpfr_clear(z);
                double v = mpfr_get_d(w, MPFR_RNDN);
                if (mpfr_get_exp(w) >= (t == PLUMB_F16 ? -13 : t == PLUMB_F64 ? -1021 : -125)) {  /* normal */
                    got = cr_zeta(t, bits_of(t, s), bits_of(t, 2));
                    want = cr_from_double(t, v);
                    if (got != want)
                        fail_msg("%s zeta(%g, 2): got 0x%llx, want 0x%llx", plumb_dtype_name(t), s,
                                 (unsigned long long)got, (unsigned long long)want);
                }
            }
            mpfr_clear(w);
        }
    }
}

/* polygamma(n, 1) = (-1)^(n+1) n! zeta(n + 1) for n = 1..20 in every wide
 * type: the leading term n! is a double, but the rest (about 2^-(n+1) of
 * it) is never small enough for lead_dyadic. And polygamma(n, 2^-k) =
 * (-1)^(n+1) n! (2^(k(n+1)) + zeta(n+1, 1 + 2^-k)) with the bounds, where
 * it decides from k (n+1) > 60 on (k (n+1) from 30 to 130 here). */
static void test_wide_polygamma(void **state)
{
    (void)state;
    mpfr_exp_t omin = mpfr_get_emin(), omax = mpfr_get_emax();
    long fired = 0;
    for (size_t i = 0; i < sizeof wides / sizeof wides[0]; i++) {
        plumb_dtype t = wides[i];
        mpfr_prec_t p = (mpfr_prec_t)plumb_dtype_get(t)->mant_bits + 1;
        for (int n = 1; n <= 20; n++) {
            mpfr_t z, w;
            mpfr_inits2(300, z, (mpfr_ptr)0);
            mpfr_init2(w, p);
            mpfr_zeta_ui(z, (unsigned long)n + 1, MPFR_RNDN);
            mpfr_t f;
            mpfr_init2(f, 64);
            mpfr_fac_ui(f, (unsigned long)n, MPFR_RNDN);  /* exact: 20! < 2^62 */
            mpfr_mul(z, z, f, MPFR_RNDN);                 /* 300 bits */
            if (n % 2 == 0)
                mpfr_neg(z, z, MPFR_RNDN);
            mpfr_set(w, z, MPFR_RNDN);
            double v = mpfr_get_d(w, MPFR_RNDN);
            if (cr_to_double(t, cr_from_double(t, n)) == n && fabs(v) < (t == PLUMB_F16 ? 65504 : DBL_MAX)) {
                uint64_t got = cr_polygamma(t, bits_of(t, n), bits_of(t, 1));
                uint64_t want = cr_from_double(t, v);
                if (got != want)
                    fail_msg("%s polygamma(%d, 1): got 0x%llx, want 0x%llx", plumb_dtype_name(t), n,
                             (unsigned long long)got, (unsigned long long)want);
            }
            mpfr_clears(z, w, f, (mpfr_ptr)0);
            mpfr_set_emin(mpfr_get_emin_min());
            mpfr_set_emax(mpfr_get_emax_max());
            for (int k = 1; k <= 130; k++) {
                double q = ldexp(1.0, -k);
                if (k * (n + 1) < 30 || k * (n + 1) > 130)
                    continue;                            /* around the threshold 60 only */
                if (cr_to_double(t, cr_from_double(t, q)) != q || cr_to_double(t, cr_from_double(t, n)) != n)
                    continue;
                mpfr_t bl, bh;
                mpfr_inits2(BP_WIDE, bl, bh, (mpfr_ptr)0);
                zeta_bounds(bl, bh, n + 1, q, n);
                uint64_t want;
                bool ok = decided(t, bl, bh, n % 2 == 0, &want);
                mpfr_clears(bl, bh, (mpfr_ptr)0);
                if (!ok)
                    continue;
                uint64_t got = cr_polygamma(t, bits_of(t, n), bits_of(t, q));
                if (got != want)
                    fail_msg("%s polygamma(%d, 2^-%d): got 0x%llx, bounds decide 0x%llx", plumb_dtype_name(t), n,
                             k, (unsigned long long)got, (unsigned long long)want);
                fired += k * (n + 1) > 60;
            }
            mpfr_set_emin(omin);
            mpfr_set_emax(omax);
        }
    }
    assert_true(fired > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_zeta),
        cmocka_unit_test(test_small_polygamma),
        cmocka_unit_test(test_wide_riemann),
        cmocka_unit_test(test_wide_polygamma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
