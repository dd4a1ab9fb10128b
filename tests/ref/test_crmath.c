/* Tests of the correctly rounded scalar math (ref/crmath.c).
 *
 * Expected values are independent of the code under test: hand-derived
 * special values, and an oracle that evaluates each function with MPFR at
 * high precision (no exponent range tricks) and rounds the result to the
 * target format with this file's own integer rounding code. An MPFR result
 * at precision P >= p + 1 with its ternary value decides the rounding to p
 * bits exactly (a midpoint of the target is a P-bit number, so the P-bit
 * result is on the same side of it as the exact value, or on it with the
 * ternary value telling the side). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../ref/crmath.h"

static const plumb_dtype FLOATS[4] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

static bool quick(void) { return getenv("PLUMB_TEST_QUICK") != NULL; }

/* ---- the oracle's own format description and rounding ------------------- */

typedef struct tfmt {
    int bits, mant, prec;
    long emin;   /* exponent of the smallest normal, IEEE convention (2^emin) */
    long emax;   /* exponent of the largest finite, IEEE convention */
} tfmt;

static tfmt tf(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: return (tfmt){16, 10, 11, -14, 15};
    case PLUMB_BF16: return (tfmt){16, 7, 8, -126, 127};
    case PLUMB_F32: return (tfmt){32, 23, 24, -126, 127};
    default: return (tfmt){64, 52, 53, -1022, 1023};
    }
}

static uint64_t t_inf(tfmt f, int neg)
{
    uint64_t e = ((1ull << (f.bits - 1 - f.mant)) - 1) << f.mant;
    return e | ((uint64_t)neg << (f.bits - 1));
}

/* Marker for "the exact result is NaN": any quiet NaN is accepted. */
#define ORACLE_NAN UINT64_MAX

/* Rounds v (with ternary: sign of v - exact) to nearest even in t. */
static uint64_t oracle_round(plumb_dtype t, mpfr_t v, int ternary)
{
    tfmt f = tf(t);
    if (mpfr_nan_p(v))
        return ORACLE_NAN;
    int neg = mpfr_signbit(v) != 0;
    if (mpfr_inf_p(v))
        return t_inf(f, neg);
    if (mpfr_zero_p(v))
        return (uint64_t)neg << (f.bits - 1);
    /* |v| in [2^(E), 2^(E+1)) */
    long E = (long)mpfr_get_exp(v) - 1;
    if (E > f.emax)
        return t_inf(f, neg);
    if (E < f.emin - f.mant - 1)       /* below half the smallest subnormal */
        return (uint64_t)neg << (f.bits - 1);
    long q = (E < f.emin ? f.emin : E) - (f.prec - 1);   /* quantum exponent */
    mpz_t z, n, rem, half;
    mpz_inits(z, n, rem, half, NULL);
    long fe = (long)mpfr_get_z_2exp(z, v);               /* v = z * 2^fe */
    mpz_abs(z, z);
    int cmp = -1;                                        /* rem vs half */
    if (fe >= q) {
        mpz_mul_2exp(n, z, (unsigned long)(fe - q));
        mpz_set_ui(rem, 0);
    } else {
        unsigned long s = (unsigned long)(q - fe);
        mpz_fdiv_q_2exp(n, z, s);
        mpz_fdiv_r_2exp(rem, z, s);
        mpz_set_ui(half, 1);
        mpz_mul_2exp(half, half, s - 1);
        cmp = mpz_cmp(rem, half);
        if (cmp == 0 && ternary != 0) {
            /* v sits on the midpoint; the exact |value| is below it when
             * |v| > |exact|, i.e. ternary has the sign of v. */
            int v_above = neg ? ternary < 0 : ternary > 0;
            cmp = v_above ? -1 : 1;
        }
    }
    if (cmp > 0 || (cmp == 0 && mpz_odd_p(n)))
        mpz_add_ui(n, n, 1);
    uint64_t N = mpz_get_ui(n);
    mpz_clears(z, n, rem, half, NULL);
    /* value = N * 2^q with N <= 2^prec */
    if (N == (1ull << f.prec)) {
        N >>= 1;
        q++;
    }
    uint64_t sign = (uint64_t)neg << (f.bits - 1);
    if (N == 0)
        return sign;
    if (N < (1ull << (f.mant))) {            /* subnormal (q is the minimum) */
        return sign | N;
    }
    long e = q + f.prec - 1;                 /* exponent of the leading bit */
    if (e > f.emax)
        return t_inf(f, neg);
    uint64_t biased = (uint64_t)(e + ((1l << (f.bits - 2 - f.mant)) - 1));
    return sign | (biased << f.mant) | (N & ((1ull << f.mant) - 1));
}

static void set_input(mpfr_t a, plumb_dtype t, uint64_t bits)
{
    mpfr_set_d(a, cr_to_double(t, bits), MPFR_RNDN);   /* exact: a has 53 bits */
}

static uint64_t oracle_unary(cr_unary_fn f, plumb_dtype t, uint64_t xb)
{
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    mpfr_prec_t P = (t == PLUMB_F64) ? 200 : (t == PLUMB_F32 ? 128 : 96);
    mpfr_t r, a;
    mpfr_init2(r, P);
    mpfr_init2(a, 53);
    set_input(a, t, xb);
    int inex = 0;
    switch (f) {
    case CR_SQRT: inex = mpfr_sqrt(r, a, MPFR_RNDN); break;
    case CR_RSQRT:
        if (mpfr_zero_p(a))   /* IEEE 754-2019: rSqrt(+-0) = +-inf */
            mpfr_set_inf(r, mpfr_signbit(a) ? -1 : 1);
        else
            inex = mpfr_rec_sqrt(r, a, MPFR_RNDN);
        break;
    case CR_CBRT: inex = mpfr_cbrt(r, a, MPFR_RNDN); break;
    case CR_EXP: inex = mpfr_exp(r, a, MPFR_RNDN); break;
    case CR_EXPM1: inex = mpfr_expm1(r, a, MPFR_RNDN); break;
    case CR_LOG: inex = mpfr_log(r, a, MPFR_RNDN); break;
    case CR_LOG1P: inex = mpfr_log1p(r, a, MPFR_RNDN); break;
    case CR_LOGISTIC: {
        /* Composite at 3x the precision; its ternary is unknown, which only
         * matters if the value lands exactly on a midpoint (it never does:
         * logistic is transcendental away from 0). */
        mpfr_t e;
        mpfr_init2(e, 3 * P + 64);
        mpfr_neg(e, a, MPFR_RNDN);
        mpfr_exp(e, e, MPFR_RNDN);
        mpfr_add_ui(e, e, 1, MPFR_RNDN);
        mpfr_ui_div(e, 1, e, MPFR_RNDN);
        mpfr_set(r, e, MPFR_RNDN);
        mpfr_clear(e);
        inex = 0;
        break;
    }
    case CR_TANH: inex = mpfr_tanh(r, a, MPFR_RNDN); break;
    case CR_SIN: inex = mpfr_sin(r, a, MPFR_RNDN); break;
    case CR_COS: inex = mpfr_cos(r, a, MPFR_RNDN); break;
    case CR_TAN: inex = mpfr_tan(r, a, MPFR_RNDN); break;
    case CR_ERF: inex = mpfr_erf(r, a, MPFR_RNDN); break;
    case CR_ACOS: inex = mpfr_acos(r, a, MPFR_RNDN); break;
    case CR_ASIN: inex = mpfr_asin(r, a, MPFR_RNDN); break;
    case CR_ATAN: inex = mpfr_atan(r, a, MPFR_RNDN); break;
    case CR_ACOSH: inex = mpfr_acosh(r, a, MPFR_RNDN); break;
    case CR_ASINH: inex = mpfr_asinh(r, a, MPFR_RNDN); break;
    case CR_ATANH: inex = mpfr_atanh(r, a, MPFR_RNDN); break;
    case CR_COSH: inex = mpfr_cosh(r, a, MPFR_RNDN); break;
    case CR_SINH: inex = mpfr_sinh(r, a, MPFR_RNDN); break;
    case CR_ERFC: inex = mpfr_erfc(r, a, MPFR_RNDN); break;
    case CR_LGAMMA: {
        int sign;
        inex = mpfr_lgamma(r, &sign, a, MPFR_RNDN);
        break;
    }
    case CR_DIGAMMA: inex = mpfr_digamma(r, a, MPFR_RNDN); break;
    default: break;
    }
    uint64_t out = oracle_round(t, r, inex);
    mpfr_clear(r);
    mpfr_clear(a);
    return out;
}

static uint64_t oracle_binary(cr_binary_fn f, plumb_dtype t, uint64_t ab, uint64_t bb)
{
    mpfr_t r, a, b;
    mpfr_init2(r, t == PLUMB_F64 ? 200 : 128);
    mpfr_init2(a, 53);
    mpfr_init2(b, 53);
    set_input(a, t, ab);
    set_input(b, t, bb);
    int inex = 0;
    switch (f) {
    case CR_ADD: inex = mpfr_add(r, a, b, MPFR_RNDN); break;
    case CR_SUB: inex = mpfr_sub(r, a, b, MPFR_RNDN); break;
    case CR_MUL: inex = mpfr_mul(r, a, b, MPFR_RNDN); break;
    case CR_DIV: inex = mpfr_div(r, a, b, MPFR_RNDN); break;
    case CR_REM: inex = mpfr_fmod(r, a, b, MPFR_RNDN); break;
    case CR_POW: inex = mpfr_pow(r, a, b, MPFR_RNDN); break;
    case CR_ATAN2: inex = mpfr_atan2(r, a, b, MPFR_RNDN); break;
    default: break;
    }
    uint64_t out = oracle_round(t, r, inex);
    mpfr_clear(r);
    mpfr_clear(a);
    mpfr_clear(b);
    return out;
}

/* ---- comparison ----------------------------------------------------------- */

static int g_fail_printed;

static bool same(plumb_dtype t, uint64_t got, uint64_t want)
{
    if (want == ORACLE_NAN)
        return cr_is_nan(t, got) && got == cr_quiet(t, got);
    return got == want;
}

static void report(const char *what, plumb_dtype t, uint64_t a, uint64_t b, bool binary,
                   uint64_t got, uint64_t want)
{
    if (g_fail_printed++ >= 10)
        return;
    if (binary)
        print_error("%s %s(%a [0x%llx], %a [0x%llx]): got 0x%llx, want 0x%llx\n", what,
                    plumb_dtype_name(t), cr_to_double(t, a), (unsigned long long)a,
                    cr_to_double(t, b), (unsigned long long)b, (unsigned long long)got,
                    (unsigned long long)want);
    else
        print_error("%s %s(%a [0x%llx]): got 0x%llx (%a), want 0x%llx\n", what,
                    plumb_dtype_name(t), cr_to_double(t, a), (unsigned long long)a,
                    (unsigned long long)got, cr_to_double(t, got), (unsigned long long)want);
}

static unsigned check_unary(cr_unary_fn f, plumb_dtype t, uint64_t x)
{
    uint64_t got = cr_unary(f, t, x), want = oracle_unary(f, t, x);
    if (same(t, got, want))
        return 0;
    report(cr_unary_name(f), t, x, 0, false, got, want);
    return 1;
}

static unsigned check_binary(cr_binary_fn f, plumb_dtype t, uint64_t a, uint64_t b)
{
    uint64_t got = cr_binary(f, t, a, b), want = oracle_binary(f, t, a, b);
    if (same(t, got, want))
        return 0;
    report(cr_binary_name(f), t, a, b, true, got, want);
    return 1;
}

/* xorshift64*: deterministic random bits. */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

static uint64_t bits_of(plumb_dtype t, double x)
{
    return cr_from_double(t, x);   /* used only on values exact in t */
}

/* ---- hand-derived special values ------------------------------------------ */

typedef struct special { cr_unary_fn f; double x, want; } special;

static const special SPECIALS[] = {
    {CR_SQRT, -0.0, -0.0}, {CR_SQRT, 0.0, 0.0}, {CR_SQRT, -1, NAN}, {CR_SQRT, INFINITY, INFINITY},
    {CR_SQRT, -INFINITY, NAN}, {CR_SQRT, 4, 2}, {CR_SQRT, 0.25, 0.5},
    {CR_RSQRT, 0.0, INFINITY}, {CR_RSQRT, -0.0, -INFINITY}, {CR_RSQRT, INFINITY, 0.0},
    {CR_RSQRT, -1, NAN}, {CR_RSQRT, -INFINITY, NAN}, {CR_RSQRT, 4, 0.5}, {CR_RSQRT, 0.25, 2},
    {CR_CBRT, -8, -2}, {CR_CBRT, -0.0, -0.0}, {CR_CBRT, -INFINITY, -INFINITY}, {CR_CBRT, 0.125, 0.5},
    {CR_EXP, -INFINITY, 0.0}, {CR_EXP, INFINITY, INFINITY}, {CR_EXP, 0.0, 1}, {CR_EXP, -0.0, 1},
    {CR_EXPM1, -0.0, -0.0}, {CR_EXPM1, 0.0, 0.0}, {CR_EXPM1, -INFINITY, -1}, {CR_EXPM1, INFINITY, INFINITY},
    {CR_LOG, 0.0, -INFINITY}, {CR_LOG, -0.0, -INFINITY}, {CR_LOG, -1, NAN}, {CR_LOG, 1, 0.0},
    {CR_LOG, INFINITY, INFINITY}, {CR_LOG, -INFINITY, NAN},
    {CR_LOG1P, -1, -INFINITY}, {CR_LOG1P, -2, NAN}, {CR_LOG1P, -0.0, -0.0}, {CR_LOG1P, INFINITY, INFINITY},
    {CR_LOG1P, -INFINITY, NAN},
    {CR_LOGISTIC, 0.0, 0.5}, {CR_LOGISTIC, -0.0, 0.5}, {CR_LOGISTIC, INFINITY, 1}, {CR_LOGISTIC, -INFINITY, 0.0},
    {CR_TANH, -0.0, -0.0}, {CR_TANH, INFINITY, 1}, {CR_TANH, -INFINITY, -1},
    {CR_SIN, -0.0, -0.0}, {CR_SIN, INFINITY, NAN}, {CR_SIN, -INFINITY, NAN},
    {CR_COS, -0.0, 1}, {CR_COS, 0.0, 1}, {CR_COS, -INFINITY, NAN},
    {CR_TAN, -0.0, -0.0}, {CR_TAN, INFINITY, NAN},
    {CR_ERF, -0.0, -0.0}, {CR_ERF, INFINITY, 1}, {CR_ERF, -INFINITY, -1},
};

static unsigned run_specials(void)
{
    unsigned bad = 0;
    for (size_t i = 0; i < sizeof SPECIALS / sizeof SPECIALS[0]; i++) {
        const special *s = &SPECIALS[i];
        for (int k = 0; k < 4; k++) {
            plumb_dtype t = FLOATS[k];
            uint64_t got = cr_unary(s->f, t, bits_of(t, s->x));
            uint64_t want = isnan(s->want) ? ORACLE_NAN : bits_of(t, s->want);
            if (!same(t, got, want)) {
                report(cr_unary_name(s->f), t, bits_of(t, s->x), 0, false, got, want);
                bad++;
            }
        }
    }
    return bad;
}

/* Special values (zeros, infinities, NaN, exact cases) match the IEEE 754 /
 * C99 Annex F tables in every type, on the fast path. */
static void test_special_values(void **state)
{
    (void)state;
    g_fail_printed = 0;
    assert_int_equal(run_specials(), 0);
}

/* The same table holds on the MPFR path. */
static void test_special_values_mpfr(void **state)
{
    (void)state;
    g_fail_printed = 0;
    cr_force_mpfr(true);
    unsigned bad = run_specials();
    cr_force_mpfr(false);
    assert_int_equal(bad, 0);
}

/* Interesting inputs of type t: signed zeros, smallest/largest subnormal and
 * normal, one ULP around 1 and 2, overflow thresholds of exp, integers. */
static size_t interesting(plumb_dtype t, uint64_t *out)
{
    tfmt f = tf(t);
    uint64_t one = bits_of(t, 1.0), two = bits_of(t, 2.0);
    uint64_t maxf = t_inf(f, 0) - 1, minn = 1ull << f.mant;
    uint64_t base[] = {
        0, 1, 2, (1ull << f.mant) - 1, minn, minn + 1, maxf, maxf - 1,
        one, one - 1, one + 1, two, two - 1, two + 1, bits_of(t, 0.5), bits_of(t, 0.5) - 1,
        bits_of(t, 3), bits_of(t, 10), bits_of(t, 100),
        cr_from_double(t, log(ldexp(1.0, (int)f.emax + 1))),        /* ~ln(max) */
        cr_from_double(t, log(ldexp(1.0, (int)f.emax + 1))) + 1,
        cr_from_double(t, log(ldexp(1.0, (int)f.emax + 1))) - 1,
        cr_from_double(t, log(ldexp(1.0, (int)f.emin - f.mant))),   /* ~ln(min subnormal) */
        cr_from_double(t, log(ldexp(1.0, (int)f.emin - f.mant))) + 1,
        cr_from_double(t, 1.5707963267948966), cr_from_double(t, 3.141592653589793),
        cr_from_double(t, 0.7853981633974483), cr_from_double(t, 1e-3), cr_from_double(t, 30),
        t_inf(f, 0), cr_default_nan(t),
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        out[n++] = base[i];
        out[n++] = base[i] | (1ull << (f.bits - 1));   /* its negative */
    }
    return n;
}

/* Every unary function at the interesting inputs of every type agrees with
 * the oracle, on the fast path and on the MPFR path. */
static void test_unary_interesting(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    uint64_t in[128];
    for (int mode = 0; mode < 2; mode++) {
        cr_force_mpfr(mode == 1);
        for (int k = 0; k < 4; k++) {
            size_t n = interesting(FLOATS[k], in);
            for (int f = 0; f < CR_UNARY_COUNT; f++)
                for (size_t i = 0; i < n; i++)
                    bad += check_unary((cr_unary_fn)f, FLOATS[k], in[i]);
        }
    }
    cr_force_mpfr(false);
    assert_int_equal(bad, 0);
}

static unsigned exhaustive16(plumb_dtype t, bool force, unsigned stride)
{
    unsigned bad = 0;
    cr_force_mpfr(force);
    for (int f = 0; f < CR_UNARY_COUNT; f++)
        for (uint32_t x = 0; x < 65536; x += stride)
            bad += check_unary((cr_unary_fn)f, t, x);
    cr_force_mpfr(false);
    return bad;
}

/* All 65,536 f16 inputs of every unary function are correctly rounded. */
static void test_exhaustive_f16(void **state)
{
    (void)state;
    g_fail_printed = 0;
    assert_int_equal(exhaustive16(PLUMB_F16, false, 1), 0);
}

/* All 65,536 bf16 inputs of every unary function are correctly rounded. */
static void test_exhaustive_bf16(void **state)
{
    (void)state;
    g_fail_printed = 0;
    assert_int_equal(exhaustive16(PLUMB_BF16, false, 1), 0);
}

/* The MPFR path alone (exponent range, subnormalize, logistic's Ziv loop) is
 * correctly rounded on f16 and bf16 inputs too. */
static void test_exhaustive_half_mpfr(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned stride = quick() ? 61 : 7;
    assert_int_equal(exhaustive16(PLUMB_F16, true, stride) + exhaustive16(PLUMB_BF16, true, stride), 0);
}

static double wide_ref(cr_unary_fn f, double x)
{
    switch (f) {
    case CR_SQRT: return sqrt(x);
    case CR_RSQRT: return 1 / sqrt(x);
    case CR_CBRT: return cbrt(x);
    case CR_EXP: return exp(x);
    case CR_EXPM1: return expm1(x);
    case CR_LOG: return log(x);
    case CR_LOG1P: return log1p(x);
    case CR_LOGISTIC: return 1 / (1 + exp(-x));
    case CR_TANH: return tanh(x);
    case CR_SIN: return sin(x);
    case CR_COS: return cos(x);
    case CR_TAN: return tan(x);
    case CR_ACOS: return acos(x);
    case CR_ASIN: return asin(x);
    case CR_ATAN: return atan(x);
    case CR_ACOSH: return acosh(x);
    case CR_ASINH: return asinh(x);
    case CR_ATANH: return atanh(x);
    case CR_COSH: return cosh(x);
    case CR_SINH: return sinh(x);
    case CR_ERFC: return erfc(x);
    case CR_LGAMMA: { int sg; return lgamma_r(x, &sg); }
    case CR_DIGAMMA: return NAN;   /* no C function: no hard-case scan */
    default: return erf(x);
    }
}

/* Distance of y (a double) from the nearest f32 rounding midpoint, in units
 * of the f32 ulp: small means hard to round. */
static double midpoint_distance(double y)
{
    if (!isfinite(y) || y == 0)
        return 1;
    int e;
    double m = frexp(fabs(y), &e);          /* y = m 2^e, m in [0.5, 1) */
    if (e - 1 < -126)
        e = -125;
    double scaled = ldexp(fabs(y), 24 - e); /* f32 ulps */
    double frac = scaled - floor(scaled);
    (void)m;
    return fabs(frac - 0.5);
}

/* f32: random bit patterns (every exponent), random values in [-10, 10], and
 * generated hard cases (inputs whose double result lies closest to an f32
 * midpoint, found by scanning) agree with the oracle. */
static void test_f32_random_and_hard(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    unsigned n = quick() ? 1500 : 15000;
    uint64_t calls0 = cr_mpfr_calls();
    for (int f = 0; f < CR_UNARY_COUNT; f++) {
        for (unsigned i = 0; i < n; i++) {
            bad += check_unary((cr_unary_fn)f, PLUMB_F32, rnd() & 0xffffffffu);
            float v = (float)((double)(rnd() >> 11) * 0x1p-53 * 20 - 10);
            bad += check_unary((cr_unary_fn)f, PLUMB_F32, plumb_f32_bits(v));
        }
        /* Hard cases: scan a stride of all positive f32 patterns. */
        enum { KEEP = 64 };
        uint32_t best[KEEP];
        double bestd[KEEP];
        for (int k = 0; k < KEEP; k++) {
            best[k] = 0;
            bestd[k] = 1;
        }
        uint32_t step = quick() ? 4099 : 1021;
        for (uint32_t u = 1; u < 0x7f800000u - step; u += step) {
            double x = (double)plumb_f32_from_bits(u);
            for (int sgn = 0; sgn < 2; sgn++) {
                double d = midpoint_distance(wide_ref((cr_unary_fn)f, sgn ? -x : x));
                if (d < bestd[KEEP - 1]) {
                    int k = KEEP - 1;
                    while (k > 0 && bestd[k - 1] > d) {
                        bestd[k] = bestd[k - 1];
                        best[k] = best[k - 1];
                        k--;
                    }
                    bestd[k] = d;
                    best[k] = u | (sgn ? 0x80000000u : 0);
                }
            }
        }
        for (int k = 0; k < KEEP; k++)
            bad += check_unary((cr_unary_fn)f, PLUMB_F32, best[k]);
    }
    assert_int_equal(bad, 0);
    /* The hard cases reach the fallback (it is not dead code). */
    assert_true(cr_mpfr_calls() > calls0);
}

/* f64: random bit patterns and random values in [-10, 10] agree with the
 * oracle (long double fast path, MPFR fallback). */
static void test_f64_random(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    unsigned n = quick() ? 200 : 2000;
    for (int f = 0; f < CR_UNARY_COUNT; f++) {
        for (unsigned i = 0; i < n; i++) {
            bad += check_unary((cr_unary_fn)f, PLUMB_F64, rnd());
            double v = (double)(rnd() >> 11) * 0x1p-53 * 20 - 10;
            bad += check_unary((cr_unary_fn)f, PLUMB_F64, plumb_f64_bits(v));
        }
    }
    assert_int_equal(bad, 0);
}

/* sin/cos/tan of huge arguments (argument reduction) in f32 and f64. */
static void test_trig_huge(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    const double xs[] = {1e22, 0x1p30, 0x1p60, 0x1p100, 3.4e38, 1e300, 1.7976931348623157e308,
                         0x1.921fb54442d18p+0 * 0x1p40};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (int f = CR_SIN; f <= CR_TAN; f++) {
            if (xs[i] <= 3.4e38)
                bad += check_unary((cr_unary_fn)f, PLUMB_F32, bits_of(PLUMB_F32, (float)xs[i]));
            bad += check_unary((cr_unary_fn)f, PLUMB_F64, plumb_f64_bits(xs[i]));
            bad += check_unary((cr_unary_fn)f, PLUMB_F64, plumb_f64_bits(-xs[i]));
        }
    assert_int_equal(bad, 0);
}

/* ---- binary ops ----------------------------------------------------------- */

static size_t specials_binary(plumb_dtype t, uint64_t *out)
{
    tfmt f = tf(t);
    const double vals[] = {0.0, 1, 2, 0.5, 3, 1.5, 10, 0.1, 2.5, 7};
    size_t n = 0;
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        out[n++] = cr_from_double(t, vals[i]);
    out[n++] = t_inf(f, 0);
    out[n++] = 1;                                   /* smallest subnormal */
    out[n++] = (1ull << f.mant) - 1;                /* largest subnormal */
    out[n++] = 1ull << f.mant;                      /* smallest normal */
    out[n++] = t_inf(f, 0) - 1;                     /* largest finite */
    out[n++] = cr_from_double(t, 1.0) + 1;          /* 1 + ulp */
    out[n++] = cr_from_double(t, 1.0) - 1;          /* 1 - ulp/2 */
    size_t m = n;
    for (size_t i = 0; i < m; i++)
        out[n++] = out[i] | (1ull << (f.bits - 1));
    out[n++] = cr_default_nan(t);
    return n;
}

/* Every binary function on the grid special x special, in every type. */
static void test_binary_special_grid(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    uint64_t v[64];
    for (int mode = 0; mode < 2; mode++) {
        cr_force_mpfr(mode == 1);
        for (int k = 0; k < 4; k++) {
            size_t n = specials_binary(FLOATS[k], v);
            for (int f = 0; f < CR_BINARY_COUNT; f++)
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < n; j++) {
                        /* pow(NaN, 0) = pow(1, NaN) = 1: checked below */
                        bad += check_binary((cr_binary_fn)f, FLOATS[k], v[i], v[j]) &&
                               !(f == CR_POW && (cr_is_nan(FLOATS[k], v[i]) || cr_is_nan(FLOATS[k], v[j])));
                    }
        }
    }
    cr_force_mpfr(false);
    assert_int_equal(bad, 0);
}

/* Random operand pairs: f16 and bf16 with operands over the whole exponent
 * range (bf16 sums need more than a double: the round-to-odd path), and f32. */
static void test_binary_random(void **state)
{
    (void)state;
    g_fail_printed = 0;
    unsigned bad = 0;
    unsigned n = quick() ? 3000 : 30000;
    for (int f = 0; f < CR_BINARY_COUNT; f++)
        for (unsigned i = 0; i < n; i++) {
            uint64_t r = rnd();
            bad += check_binary((cr_binary_fn)f, PLUMB_F16, r & 0xffff, (r >> 16) & 0xffff);
            bad += check_binary((cr_binary_fn)f, PLUMB_BF16, (r >> 32) & 0xffff, r >> 48);
            /* bf16 pairs of close exponents: cancellation and ties */
            uint64_t a = (r >> 32) & 0xffff, b = (a ^ (r & 0x0fff)) & 0xffff;
            bad += check_binary((cr_binary_fn)f, PLUMB_BF16, a, b);
            bad += check_binary((cr_binary_fn)f, PLUMB_F32, r & 0xffffffffu, r >> 32);
            if (i % 8 == 0)
                bad += check_binary((cr_binary_fn)f, PLUMB_F64, r, rnd());
        }
    assert_int_equal(bad, 0);
}

/* Hand-derived bf16 sums around ties (bf16 has 8 significant bits, so its
 * ulp at 1 is 2^-7 and at 2^100 it is 2^93). */
static void test_bf16_add_hand(void **state)
{
    (void)state;
    const plumb_dtype B = PLUMB_BF16;
    /* 1 + 2^-8 is exactly the midpoint between 1 and 1 + 2^-7: ties to even -> 1 */
    assert_int_equal(cr_binary(CR_ADD, B, bits_of(B, 1.0), bits_of(B, 0x1p-8)), bits_of(B, 1.0));
    /* (1 + 2^-7) + 2^-8: midpoint, the lower neighbour is odd -> up to 1 + 2^-6 */
    assert_int_equal(cr_binary(CR_ADD, B, bits_of(B, 1.0 + 0x1p-7), bits_of(B, 0x1p-8)),
                     bits_of(B, 1.0 + 0x1p-6));
    /* 1 + (2^-8 + 2^-15): just above the midpoint -> up */
    assert_int_equal(cr_binary(CR_ADD, B, bits_of(B, 1.0), bits_of(B, 0x1p-8 + 0x1p-15)),
                     bits_of(B, 1.0 + 0x1p-7));
    /* 2^100 + 2^-100: far below half an ulp -> 2^100 (the double sum is not exact) */
    assert_int_equal(cr_binary(CR_ADD, B, bits_of(B, 0x1p100), bits_of(B, 0x1p-100)), bits_of(B, 0x1p100));
    /* 2^100 - 2^-100: just below 2^100, whose lower neighbour is 2^100 - 2^92
     * (ulp 2^92 below a power of two) -> still 2^100 */
    assert_int_equal(cr_binary(CR_SUB, B, bits_of(B, 0x1p100), bits_of(B, 0x1p-100)), bits_of(B, 0x1p100));
    /* (2^100 + 2^93) + 2^92: midpoint with odd lower neighbour -> 2^100 + 2^94 */
    assert_int_equal(cr_binary(CR_ADD, B, bits_of(B, 0x1p100 + 0x1p93), bits_of(B, 0x1p92)),
                     bits_of(B, 0x1p100 + 0x1p94));
    /* products: 3 * 2^-130 is exact (a bf16 subnormal) */
    assert_int_equal(cr_binary(CR_MUL, B, bits_of(B, 3.0), bits_of(B, 0x1p-130)), bits_of(B, 0x1.8p-129));
    /* 2^-133 * 0.5 = 2^-134: half the smallest subnormal, ties to even -> +0 */
    assert_int_equal(cr_binary(CR_MUL, B, 1, bits_of(B, 0.5)), 0);
    /* 3 * 2^-133 * 0.5 = 1.5 * 2^-133: midpoint, odd lower (1) -> 2 * 2^-133 */
    assert_int_equal(cr_binary(CR_MUL, B, 3, bits_of(B, 0.5)), 2);
}

/* NaN propagation: the first NaN operand is returned quieted with its sign
 * and payload; invalid operations return the default NaN; pow(x, 0) and
 * pow(1, y) are 1 even with a NaN. */
static void test_nan_rules(void **state)
{
    (void)state;
    uint32_t snan = 0xFF800123u;     /* negative signaling NaN, payload 0x123 */
    uint32_t qnan2 = 0x7FC00456u;
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F32, snan), 0xFFC00123u);
    assert_int_equal(cr_binary(CR_ADD, PLUMB_F32, snan, qnan2), 0xFFC00123u);
    assert_int_equal(cr_binary(CR_ADD, PLUMB_F32, plumb_f32_bits(1.0f), qnan2), qnan2);
    assert_int_equal(cr_binary(CR_SUB, PLUMB_F32, 0x7f800000u, 0x7f800000u), 0x7FC00000u);
    assert_int_equal(cr_binary(CR_MUL, PLUMB_F16, 0x7c00, 0x0000), 0x7E00);
    assert_int_equal(cr_unary(CR_LOG, PLUMB_BF16, bits_of(PLUMB_BF16, -1.0)), 0x7FC0);
    assert_int_equal(cr_unary(CR_SQRT, PLUMB_F64, plumb_f64_bits(-2.0)), 0x7FF8000000000000ull);
    assert_int_equal(cr_unary(CR_TANH, PLUMB_F16, 0xFD01), 0xFF01);
    for (int k = 0; k < 4; k++) {
        plumb_dtype t = FLOATS[k];
        uint64_t nan = cr_default_nan(t), one = bits_of(t, 1.0), zero = bits_of(t, 0.0);
        assert_int_equal(cr_binary(CR_POW, t, nan, zero), one);
        assert_int_equal(cr_binary(CR_POW, t, nan, zero | (1ull << (tf(t).bits - 1))), one);
        assert_int_equal(cr_binary(CR_POW, t, one, nan), one);
        assert_true(cr_is_nan(t, cr_binary(CR_POW, t, nan, one)));
        assert_true(cr_is_nan(t, cr_binary(CR_POW, t, bits_of(t, -2.0), bits_of(t, 0.5))));
    }
}

/* Hand-derived correctly rounded results: f16 exp(1) = 2.71875 (e =
 * 2.71828..., f16 neighbours 2.716796875 and 2.71875; e is closer to the
 * latter), overflow of exp just past ln(65504) in f16, and subnormal results
 * of exp in f32. */
static void test_hand_values(void **state)
{
    (void)state;
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F16, bits_of(PLUMB_F16, 1.0)), bits_of(PLUMB_F16, 2.71875));
    /* ln(65520) = 11.0900...: exp(11.09375) in f16 is > 65520 (the overflow
     * threshold, halfway to 2^16) -> inf; exp(11.0859375) = 65247.14 -> 65248 (ulp 32) */
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F16, bits_of(PLUMB_F16, 11.09375)), 0x7c00);
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F16, bits_of(PLUMB_F16, 11.0859375)), bits_of(PLUMB_F16, 65248.0));
    /* exp(-103.97) in f32 ~ 7.0e-46 = 0.50 * 2^-149: rounds to the smallest
     * subnormal 2^-149 = 1.4e-45 only when above 2^-150. ln(2^-150) =
     * -103.972077...; exp(-103.97) > 2^-150 -> 2^-149; exp(-104) < 2^-150 -> 0. */
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F32, plumb_f32_bits(-103.97f)), 1u);
    assert_int_equal(cr_unary(CR_EXP, PLUMB_F32, plumb_f32_bits(-104.0f)), 0u);
    /* sqrt(2) in bf16: 1.41421356 -> neighbours 1.40625, 1.4140625, 1.421875 -> 1.4140625 */
    assert_int_equal(cr_unary(CR_SQRT, PLUMB_BF16, bits_of(PLUMB_BF16, 2.0)), bits_of(PLUMB_BF16, 1.4140625));
    /* remainder: fmod(-7, 3) = -1; fmod(7, -3) = 1; fmod(-0, 3) = -0 */
    assert_int_equal(cr_binary(CR_REM, PLUMB_F16, bits_of(PLUMB_F16, -7), bits_of(PLUMB_F16, 3)), bits_of(PLUMB_F16, -1));
    assert_int_equal(cr_binary(CR_REM, PLUMB_F32, bits_of(PLUMB_F32, 7), bits_of(PLUMB_F32, -3)), bits_of(PLUMB_F32, 1));
    assert_int_equal(cr_binary(CR_REM, PLUMB_BF16, 0x8000, bits_of(PLUMB_BF16, 3)), 0x8000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_special_values_mpfr),
        cmocka_unit_test(test_unary_interesting),
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_nan_rules),
        cmocka_unit_test(test_bf16_add_hand),
        cmocka_unit_test(test_exhaustive_f16),
        cmocka_unit_test(test_exhaustive_bf16),
        cmocka_unit_test(test_exhaustive_half_mpfr),
        cmocka_unit_test(test_f32_random_and_hard),
        cmocka_unit_test(test_f64_random),
        cmocka_unit_test(test_trig_huge),
        cmocka_unit_test(test_binary_special_grid),
        cmocka_unit_test(test_binary_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
