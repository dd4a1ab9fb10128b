/* The reference's shortcuts for its costly special functions:
 *  - digamma and lgamma on targets of <= 24 bits: a double evaluation with a
 *    rigorous error bound, MPFR only where that leaves the rounding open
 *    (ref/crmath.c, fast_digamma / fast_lgamma / decide_abs);
 *  - erf_inv's comparisons of erf(midpoint) with x decided by erfl/erfcl
 *    when they are far apart (ref/special.c erf_cmp, ir/lowp.c erf_below);
 *  - next_after on the small formats scanning a per-thread table of the
 *    format's decoded values (ir/lowp.c).
 *
 * Expected values are independent of the code under test: MPFR at 200 to
 * 320 bits (digamma and lgamma directly; erf^-1 by Newton's method on
 * MPFR's erf), rounded to odd at 53 bits by this file and then once to the
 * target by the format's codec (rounding to odd at 53 bits, then to p <= 51
 * bits, is one correct rounding: Boldo & Melquiond, IEEE TC 2008), and
 * hand-derived neighbours for next_after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"

#include "../../ref/crmath.h"

static const plumb_dtype SMALLS[] = {PLUMB_F8E4M3FN, PLUMB_F8E5M2, PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ,
                                     PLUMB_F8E4M3B11FNUZ, PLUMB_F8E3M4, PLUMB_F8E4M3, PLUMB_F8E8M0FNU,
                                     PLUMB_F6E2M3FN, PLUMB_F6E3M2FN, PLUMB_F4E2M1FN};
#define N_SMALLS (sizeof SMALLS / sizeof SMALLS[0])

/* v (a high-precision value with ternary inex) rounded to odd at 53 bits. */
static double to_odd53(mpfr_t v, int inex)
{
    double d = mpfr_get_d(v, MPFR_RNDZ);
    if (isfinite(d) && d != 0 && (inex != 0 || mpfr_cmp_d(v, d) != 0)) {
        uint64_t b;
        memcpy(&b, &d, sizeof b);
        b |= 1;
        memcpy(&d, &b, sizeof d);
    }
    return d;
}

/* The double rounded to odd, rounded once to t by the format's codec. */
static uint64_t round_to(plumb_dtype t, double d)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(d);
    case PLUMB_BF16: return plumb_f64_to_bf16(d);
    case PLUMB_F32: {
        float f = (float)d;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return b;
    }
    default: return plumb_f64_to_small(plumb_fpfmt_get(t), d);
    }
}

static double value_of(plumb_dtype t, uint64_t b)
{
    if (plumb_fpfmt_get(t))
        return plumb_small_to_f64(plumb_fpfmt_get(t), (uint32_t)b);
    if (t == PLUMB_F16)
        return plumb_f16_to_f64((uint16_t)b);
    if (t == PLUMB_BF16)
        return plumb_bf16_to_f64((uint16_t)b);
    float f;
    uint32_t u = (uint32_t)b;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* digamma or lgamma of a finite non-pole x at 200 bits, rounded to t. */
static uint64_t gamma_oracle(cr_unary_fn f, plumb_dtype t, double x)
{
    mpfr_t r, a;
    mpfr_inits2(200, r, a, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    int sign, inex = f == CR_LGAMMA ? mpfr_lgamma(r, &sign, a, MPFR_RNDN) : mpfr_digamma(r, a, MPFR_RNDN);
    uint64_t out = round_to(t, to_odd53(r, inex));
    mpfr_clears(r, a, (mpfr_ptr)0);
    return out;
}

static bool pole(double x) { return x == 0 || (x < 0 && x == nearbyint(x)); }

static unsigned check_gamma(cr_unary_fn f, plumb_dtype t, uint64_t b)
{
    double x = value_of(t, b);
    if (!isfinite(x) || pole(x) || isnan(x))
        return 0;
    uint64_t got = cr_unary(f, t, b), want = gamma_oracle(f, t, x);
    if (got == want)
        return 0;
    print_error("%s %s(%a): got 0x%llx, want 0x%llx\n", cr_unary_name(f), plumb_dtype_name(t), x,
                (unsigned long long)got, (unsigned long long)want);
    return 1;
}

/* Every finite non-pole pattern of every small format: digamma and lgamma
 * equal the high-precision value rounded once (E8M0 takes arguments and
 * results from 2^-127 to 2^127, far outside the double fast path's
 * comfortable range; FN and FNUZ saturate or give NaN on overflow). */
static void test_gamma_small_formats(void **state)
{
    (void)state;
    unsigned bad = 0;
    for (unsigned k = 0; k < N_SMALLS; k++) {
        uint32_t n = 1u << plumb_fpfmt_get(SMALLS[k])->bits;
        for (uint32_t b = 0; b < n; b++) {
            if (plumb_small_is_nan(plumb_fpfmt_get(SMALLS[k]), b))
                continue;
            bad += check_gamma(CR_DIGAMMA, SMALLS[k], b) + check_gamma(CR_LGAMMA, SMALLS[k], b);
        }
    }
    assert_int_equal(bad, 0);
}

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Around the zeros of digamma (1.4616..., -0.5040..., -1.5734..., -2.6107...)
 * and of lgamma (1 and 2, exact; -2.4570..., -2.7476..., -3.1435...), the
 * result is far smaller than the error bound's scale: the fast path must
 * leave these to MPFR, and every f32 pattern within 48 of each zero (and
 * the f16 and bf16 ones within 8) is correctly rounded. With the bound
 * shrunk (SF_TOL 2^-40 -> 2^-60) this test fails. */
static void test_gamma_near_zeros(void **state)
{
    (void)state;
    static const double dz[] = {1.4616321449683622, -0.5040830082644554, -1.5734984731623999,
                                -2.6107208684441394};
    static const double lz[] = {1, 2, -2.4570247382208006, -2.7476826467274127, -3.1435808883499798};
    static const plumb_dtype halves[] = {PLUMB_F16, PLUMB_BF16};
    unsigned bad = 0;
    for (int fn = 0; fn < 2; fn++) {
        const double *z = fn ? dz : lz;
        size_t nz = fn ? sizeof dz / sizeof dz[0] : sizeof lz / sizeof lz[0];
        cr_unary_fn f = fn ? CR_DIGAMMA : CR_LGAMMA;
        for (size_t i = 0; i < nz; i++) {
            uint32_t c = f32_bits((float)z[i]);
            for (int d = -48; d <= 48; d++)
                bad += check_gamma(f, PLUMB_F32, (uint32_t)((int64_t)c + d));
            for (int h = 0; h < 2; h++) {
                uint64_t hc = round_to(halves[h], z[i]);
                for (int d = -8; d <= 8; d++)
                    bad += check_gamma(f, halves[h], (uint64_t)((int64_t)hc + d));
            }
        }
    }
    assert_int_equal(bad, 0);
    /* the exact zeros are never decided by the bound: lgamma(1) = +0 */
    uint64_t before = cr_mpfr_calls();
    assert_int_equal(cr_unary(CR_LGAMMA, PLUMB_F32, f32_bits(1.0f)), 0);
    assert_int_equal(cr_unary(CR_LGAMMA, PLUMB_F16, 0x4000), 0);   /* lgamma(2) = +0 */
    assert_true(cr_mpfr_calls() == before + 2);
}

/* Away from the zeros the bound decides: typical arguments of both signs,
 * tiny and huge, take no MPFR evaluation and are correctly rounded;
 * hand check: digamma(1) = -gamma = -0.5772156649 -> f16 0xb89e
 * (-0.57714844, the f16 neighbours are 2^-11 apart), lgamma(3) = ln 2 =
 * 0.6931471806 -> f16 0x398c (0.69335938). */
static void test_gamma_fast_decides(void **state)
{
    (void)state;
    static const float xs[] = {0.3f, 3.5f, 7.25f, 15.9f, 16.0f, 100.5f, 1e10f, 3e38f, 1e-30f, 1e-45f,
                               -0.3f, -1.5f, -3.7f, -15.2f, -100.5f, -1e6f + 0.5f};
    uint64_t before = cr_mpfr_calls();
    unsigned bad = 0;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (int fn = 0; fn < 2; fn++) {
            cr_unary_fn f = fn ? CR_DIGAMMA : CR_LGAMMA;
            uint64_t got = cr_unary(f, PLUMB_F32, f32_bits(xs[i]));
            bad += got != gamma_oracle(f, PLUMB_F32, xs[i]);
        }
    assert_int_equal(bad, 0);
    assert_true(cr_mpfr_calls() == before);
    assert_int_equal(cr_unary(CR_DIGAMMA, PLUMB_F16, 0x3c00), 0xb89e);
    assert_int_equal(cr_unary(CR_LGAMMA, PLUMB_F16, 0x4200), 0x398c);
    /* poles and zeros keep MPFR's values: digamma(-2) NaN, lgamma(-2) +inf */
    assert_true(cr_is_nan(PLUMB_F16, cr_unary(CR_DIGAMMA, PLUMB_F16, 0xc000)));
    assert_int_equal(cr_unary(CR_LGAMMA, PLUMB_F16, 0xc000), 0x7c00);
}

/* erf^-1(x), 0 < x < 1, at 320 bits by Newton's method on MPFR's erf:
 * rounded to odd at 53 bits (odd53) or to nearest (the f64 answer; the
 * 320-bit root is never within 2^-260 of a double midpoint for the
 * operands used here). */
static double erfinv_root(double x, bool odd53)
{
    double lo = 0, hi = 6;
    for (int i = 0; i < 200; i++) {   /* seed: bisection on the C library's erfc */
        double mid = (lo + hi) / 2;
        if (erfc(mid) > 1 - x)
            lo = mid;
        else
            hi = mid;
    }
    mpfr_t y, e, d;
    mpfr_inits2(320, y, e, d, (mpfr_ptr)0);
    mpfr_set_d(y, lo, MPFR_RNDN);
    for (int i = 0; i < 12; i++) {
        mpfr_erf(e, y, MPFR_RNDN);
        mpfr_sub_d(e, e, x, MPFR_RNDN);           /* erf(y) - x */
        mpfr_sqr(d, y, MPFR_RNDN);
        mpfr_exp(d, d, MPFR_RNDN);                /* 1 / (erf'(y) * sqrt(pi) / 2) */
        mpfr_mul(e, e, d, MPFR_RNDN);
        mpfr_const_pi(d, MPFR_RNDN);
        mpfr_sqrt(d, d, MPFR_RNDN);
        mpfr_mul(e, e, d, MPFR_RNDN);
        mpfr_div_2ui(e, e, 1, MPFR_RNDN);
        mpfr_sub(y, y, e, MPFR_RNDN);
    }
    double r = odd53 ? to_odd53(y, 1) : mpfr_get_d(y, MPFR_RNDN);
    mpfr_clears(y, e, d, (mpfr_ptr)0);
    return r;
}

static uint64_t erfinv_oracle(plumb_dtype t, double x)
{
    return round_to(t, copysign(erfinv_root(fabs(x), true), x));
}

/* Every pattern of every small format strictly inside (-1, 1) and not 0:
 * ir_lowp_erf_inv (erfl deciding the bisection's comparisons) equals the
 * high-precision erf^-1 rounded once. */
static void test_erfinv_small_formats(void **state)
{
    (void)state;
    unsigned bad = 0;
    for (unsigned k = 0; k < N_SMALLS; k++) {
        const plumb_fpfmt *f = plumb_fpfmt_get(SMALLS[k]);
        for (uint32_t b = 0; b < (1u << f->bits); b++) {
            if (plumb_small_is_nan(f, b))
                continue;
            double x = plumb_small_to_f64(f, b);
            if (x == 0 || !(fabs(x) < 1))
                continue;
            uint32_t got = ir_lowp_erf_inv(f, b), want = (uint32_t)erfinv_oracle(SMALLS[k], x);
            if (got != want && bad++ < 10)
                print_error("%s erf_inv(%a): got 0x%x, want 0x%x\n", plumb_dtype_name(SMALLS[k]), x, got, want);
        }
    }
    assert_int_equal(bad, 0);
}

/* The f16 and bf16 operands whose erf^-1 lies closest to a rounding
 * midpoint (found by a search over every pattern with mpmath at 120 bits:
 * f16 0x30d9 is 1.6e-5 ulp from one; 0x3a72, 0x38e1, 0x3b2d take the erfc
 * side, x >= 1/2), both signs, and f32 and f64 operands near 1 (erfc side)
 * and near 0: cr_erf_inv equals the oracle. */
static void test_erfinv_hard_cases(void **state)
{
    (void)state;
    static const uint16_t h16[] = {0x30d9, 0x3a72, 0x1a9c, 0x3384, 0x38e1, 0x3570, 0x3b2d, 0x2079, 0x3bff, 0x0001};
    static const uint16_t hb16[] = {0x3cc6, 0x3d2c, 0x3bbd, 0x3c69, 0x3cfb, 0x3c3d, 0x3b3d, 0x0091, 0x3f7f, 0x0001};
    unsigned bad = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < 10; i++) {
            uint64_t a = h16[i] | (s ? 0x8000u : 0), b = hb16[i] | (s ? 0x8000u : 0);
            bad += cr_erf_inv(PLUMB_F16, a) != erfinv_oracle(PLUMB_F16, plumb_f16_to_f64((uint16_t)a));
            bad += cr_erf_inv(PLUMB_BF16, b) != erfinv_oracle(PLUMB_BF16, plumb_bf16_to_f64((uint16_t)b));
        }
    static const float f32s[] = {0.5f, 0.75f, 0.9999999f, 1 - 0x1p-24f, 0x1p-149f, 1e-20f, 0.1f, 0.999f};
    for (size_t i = 0; i < sizeof f32s / sizeof f32s[0]; i++)
        bad += cr_erf_inv(PLUMB_F32, f32_bits(f32s[i])) != erfinv_oracle(PLUMB_F32, f32s[i]);
    static const double f64s[] = {0.5, 1 - 0x1p-53, 1 - 0x1p-40, 0.3, 0x1p-1074, 0.8, -0.99};
    for (size_t i = 0; i < sizeof f64s / sizeof f64s[0]; i++) {
        double x = f64s[i], want = copysign(erfinv_root(fabs(x), false), x);
        uint64_t xb, wb;
        memcpy(&xb, &x, sizeof xb);
        memcpy(&wb, &want, sizeof wb);
        bad += cr_erf_inv(PLUMB_F64, xb) != wb;
    }
    assert_int_equal(bad, 0);
}

/* ---- next_after ------------------------------------------------------------ */

static uint32_t enc(plumb_dtype t, double v) { return plumb_f64_to_small(plumb_fpfmt_get(t), v); }

static uint32_t na(plumb_dtype t, double a, double b)
{
    return ir_lowp_next_after(plumb_fpfmt_get(t), enc(t, a), enc(t, b));
}

/* Hand-derived neighbours, with the format changing between calls so the
 * per-thread value table is rebuilt each time: f8E4M3FN 1 -> 1.125
 * (3 fraction bits), f8E5M2 1 -> 1.25 (2 bits), f8E8M0FNU 1 -> 2 and
 * 1 -> 0.5, f8E4M3FN 448 (largest) -> 416 downward, f8E5M2 from the
 * smallest subnormal 2^-16 toward -1 -> +0 and from -2^-16 toward +1 -> -0,
 * f4E2M1FN 6 (largest) -> 4, f8E4M3FNUZ 2^-10 (its smallest) toward -1
 * -> 0 (its only zero). */
static void test_next_after_hand(void **state)
{
    (void)state;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(na(PLUMB_F8E4M3FN, 1, 2), enc(PLUMB_F8E4M3FN, 1.125));
        assert_int_equal(na(PLUMB_F8E5M2, 1, 2), enc(PLUMB_F8E5M2, 1.25));
        assert_int_equal(na(PLUMB_F8E4M3FN, 1, 0), enc(PLUMB_F8E4M3FN, 0.9375));
        assert_int_equal(na(PLUMB_F8E8M0FNU, 1, 4), enc(PLUMB_F8E8M0FNU, 2));
        assert_int_equal(na(PLUMB_F8E8M0FNU, 1, 0.25), enc(PLUMB_F8E8M0FNU, 0.5));
        assert_int_equal(na(PLUMB_F8E4M3FN, 448, 0), enc(PLUMB_F8E4M3FN, 416));
        assert_int_equal(na(PLUMB_F8E5M2, 0x1p-16, -1), 0x00u);
        assert_int_equal(na(PLUMB_F8E5M2, -0x1p-16, 1), 0x80u);
        assert_int_equal(na(PLUMB_F4E2M1FN, 6, 0), enc(PLUMB_F4E2M1FN, 4));
        assert_int_equal(na(PLUMB_F8E4M3FNUZ, 0x1p-10, -1), 0x00u);
        assert_int_equal(na(PLUMB_F8E4M3FNUZ, 0, -1), 0x81u);
    }
}

/* The neighbour by definition, from the format's values alone (val: every
 * pattern decoded by this test, NaN for the NaN patterns): the nearest value
 * beyond a toward b; of two zeros the one on a's side. */
static uint32_t na_by_definition(const double *val, uint32_t n, uint32_t x, uint32_t y)
{
    double a = val[x], b = val[y];
    uint32_t best = y;
    double bv = NAN;
    for (uint32_t p = 0; p < n; p++) {
        double v = val[p];
        if (isnan(v) || (b > a ? !(v > a) : !(v < a)))
            continue;
        if (isnan(bv) || (b > a ? v < bv : v > bv) ||
            (v == 0 && bv == 0 && (signbit(v) != 0) == (a < 0))) {
            best = p;
            bv = v;
        }
    }
    return best;
}

typedef struct na_job {
    plumb_dtype t;
    unsigned bad;
} na_job;

static void *na_sweep(void *arg)
{
    na_job *j = arg;
    const plumb_fpfmt *f = plumb_fpfmt_get(j->t);
    uint32_t n = 1u << f->bits;
    double val[256];
    for (uint32_t p = 0; p < n; p++)
        val[p] = plumb_small_is_nan(f, p) ? NAN : plumb_small_to_f64(f, p);
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = 0; y < n; y++) {
            if (isnan(val[x]) || isnan(val[y]) || val[x] == val[y])
                continue;
            j->bad += ir_lowp_next_after(f, x, y) != na_by_definition(val, n, x, y);
        }
    return NULL;
}

/* Every pair of f8E5M2 (sign, both zeros, infinities) and f6E3M2FN, on one
 * thread, then f8E4M3FNUZ and f8E8M0FNU on two threads at once (each
 * thread's table is its own): next_after equals the definition. */
static void test_next_after_threads(void **state)
{
    (void)state;
    na_job a = {PLUMB_F8E5M2, 0}, b = {PLUMB_F6E3M2FN, 0};
    na_sweep(&a);
    na_sweep(&b);
    assert_int_equal(a.bad + b.bad, 0);
    na_job c = {PLUMB_F8E4M3FNUZ, 0}, d = {PLUMB_F8E8M0FNU, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, na_sweep, &c), 0);
    na_sweep(&d);
    pthread_join(th, NULL);
    assert_int_equal(c.bad + d.bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gamma_small_formats),
        cmocka_unit_test(test_gamma_near_zeros),
        cmocka_unit_test(test_gamma_fast_decides),
        cmocka_unit_test(test_erfinv_small_formats),
        cmocka_unit_test(test_erfinv_hard_cases),
        cmocka_unit_test(test_next_after_hand),
        cmocka_unit_test(test_next_after_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
