/* The runtime's correctly rounded slow path (rt_math_slow) and the checks
 * that decide when an element needs it (rt_math_narrow, rt_math_narrow_ld).
 *
 * Why: the fast paths evaluate in a wider type (double for f16, bf16 and
 * f32 results; x87 long double for f64) and round once. That is within the
 * ULP bounds wherever the result is normal, but the numerics contract wants
 * subnormal, zero and infinite results EXACT, and a wide value that sits on
 * (or within its error of) a rounding boundary of the target cannot decide
 * them — atan2(0x007FFFFF, 2) in f32 is the classic: y/x is exactly a
 * midpoint in double, the exact value lies just below it. Only results in
 * those ranges are checked, with the function's error bound (Ziv's
 * strategy); an undecided one is recomputed here with MPFR at the target's
 * own precision and exponent range, subnormalized, in one rounding (MPFR's
 * functions are correctly rounded, exact results included). */
#include <math.h>
#include <mpfr.h>

#include "rt_internal.h"
#include "rt_math.h"

/* MPFR's exponent range of t (MPFR's significands lie in [1/2, 1)): the
 * largest finite value is just below 2^emax, the smallest subnormal is
 * 2^(emin-1). */
static void range_of(plumb_dtype t, mpfr_exp_t *emin, mpfr_exp_t *emax, mpfr_prec_t *prec)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    long bias = (1l << (d->exp_bits - 1)) - 1;
    *emax = bias + 1;
    *emin = -bias - (long)d->mant_bits + 2;
    *prec = (mpfr_prec_t)d->mant_bits + 1;
}

static uint64_t to_bits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);   /* exact: v has t's precision */
    default: return plumb_f64_bits(v);
    }
}

/* 1/(1 + e^-a) has no MPFR primitive: evaluated at growing precision until
 * the value decides the rounding to prec bits (its error is below 4 units
 * of the working precision: three correctly rounded steps, no cancellation
 * since e^-a > 0). Rounding toward zero at prec + 1 bits makes the sign of
 * the ternary value right too (MPFR's documented idiom for mpfr_can_round).
 * a != 0 (the only input with an exact result, 1/2, is handled by the
 * caller), so the loop ends. */
static int logistic_mpfr(mpfr_t r, const mpfr_t a)
{
    mpfr_t w;
    mpfr_init2(w, 64);
    int inex = 0;
    for (mpfr_prec_t p = 128; p <= 1 << 16; p *= 2) {
        mpfr_set_prec(w, p);
        mpfr_neg(w, a, MPFR_RNDN);
        mpfr_exp(w, w, MPFR_RNDN);
        mpfr_add_ui(w, w, 1, MPFR_RNDN);
        mpfr_ui_div(w, 1, w, MPFR_RNDN);
        if (mpfr_can_round(w, p - 3, MPFR_RNDN, MPFR_RNDZ, mpfr_get_prec(r) + 1))
            break;
    }
    inex = mpfr_set(r, w, MPFR_RNDN);
    mpfr_clear(w);
    return inex;
}

uint64_t rt_math_slow(plumb_opcode op, plumb_dtype t, double av, double bv)
{
    if (op == PLUMB_OP_LOGISTIC && av == 0)
        return to_bits(t, 0.5);
    mpfr_exp_t emin, emax, old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_prec_t prec;
    range_of(t, &emin, &emax, &prec);
    mpfr_t a, b, r;
    mpfr_inits2(53, a, b, (mpfr_ptr)0);
    mpfr_init2(r, prec);
    mpfr_set_d(a, av, MPFR_RNDN);   /* exact: operands are values of t */
    mpfr_set_d(b, bv, MPFR_RNDN);
    /* Operands of t lie in t's range, so every call below sees in-range
     * inputs; the result is rounded into the range once. */
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    int inex;
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: inex = mpfr_exp(r, a, MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: inex = mpfr_expm1(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG: inex = mpfr_log(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG_PLUS_ONE: inex = mpfr_log1p(r, a, MPFR_RNDN); break;
    case PLUMB_OP_TANH: inex = mpfr_tanh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_SINE: inex = mpfr_sin(r, a, MPFR_RNDN); break;
    case PLUMB_OP_COSINE: inex = mpfr_cos(r, a, MPFR_RNDN); break;
    case PLUMB_OP_TAN: inex = mpfr_tan(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ERF: inex = mpfr_erf(r, a, MPFR_RNDN); break;
    case PLUMB_OP_RSQRT: inex = mpfr_rec_sqrt(r, a, MPFR_RNDN); break;
    case PLUMB_OP_CBRT: inex = mpfr_cbrt(r, a, MPFR_RNDN); break;
    case PLUMB_OP_POWER: inex = mpfr_pow(r, a, b, MPFR_RNDN); break;
    case PLUMB_OP_ATAN2: inex = mpfr_atan2(r, a, b, MPFR_RNDN); break;
    case PLUMB_OP_ACOS: inex = mpfr_acos(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ASIN: inex = mpfr_asin(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ATAN: inex = mpfr_atan(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ACOSH: inex = mpfr_acosh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ASINH: inex = mpfr_asinh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ATANH: inex = mpfr_atanh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_COSH: inex = mpfr_cosh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_SINH: inex = mpfr_sinh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ERFC: inex = mpfr_erfc(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LGAMMA: {
        int sign;
        inex = mpfr_lgamma(r, &sign, a, MPFR_RNDN);
        break;
    }
    case PLUMB_OP_DIGAMMA: inex = mpfr_digamma(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOGISTIC:
        /* the intermediate e^-a may leave t's range: work in the default one */
        mpfr_set_emin(old_min);
        mpfr_set_emax(old_max);
        inex = logistic_mpfr(r, a);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        break;
    default: inex = mpfr_set(r, a, MPFR_RNDN); break;
    }
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    double v = mpfr_get_d(r, MPFR_RNDN);   /* exact: r has <= 53 bits in double's range */
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clears(a, b, r, (mpfr_ptr)0);
    return to_bits(t, v);
}

/* The smallest normal and largest finite magnitudes of t, as doubles. */
static double min_normal(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: return 0x1p-14;
    case PLUMB_F64: return 0x1p-1022;
    default: return 0x1p-126;
    }
}
static double max_finite(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: return 65504.0;
    case PLUMB_BF16: return 0x1.FEp127;
    case PLUMB_F32: return 0x1.FFFFFEp127;
    default: return 0x1.FFFFFFFFFFFFFp1023;
    }
}

uint64_t rt_math_narrow(plumb_opcode op, plumb_dtype t, double v, double rel, double a, double b)
{
    double m = fabs(v);
    if (rel > 0 && (m < min_normal(t) || (m >= max_finite(t) && m < INFINITY))) {
        /* on |v|: rounding is symmetric, and an exact -0 would straddle
         * itself (-0 + 0 = +0) and take the slow path for nothing */
        double e = m * rel;
        if (to_bits(t, m - e) != to_bits(t, m + e))
            return rt_math_slow(op, t, a, b);
    }
    return to_bits(t, v);
}

uint64_t rt_math_narrow_ld(plumb_opcode op, long double v, long double rel, double a, double b)
{
    long double m = fabsl(v);
    if (m < 0x1p-1022L || (m >= 0x1.FFFFFFFFFFFFFp1023L && m < INFINITY)) {
        long double e = m * rel;
        if ((double)(m - e) != (double)(m + e))
            return rt_math_slow(op, PLUMB_F64, a, b);
    }
    return plumb_f64_bits((double)v);
}

void rt_math_thread_done(void)
{
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
}
