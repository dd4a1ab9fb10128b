/* chlo.erf_inv on the runtime: erf^-1 in x87 long double by Newton's
 * method, rounded once with a proven error bound deciding the rounding
 * (Ziv's strategy), MPFR only where the bound cannot decide.
 *
 * Evaluation (0 < a < 1). |a| < 2^-32: the series sqrt(pi)/2 (a + pi a^3/12),
 * whose truncation is below 0.2 a^4 < 2^-128 relative. Otherwise a seed
 * from Giles' single-precision approximation ("Approximating the erfinv
 * function", GPU Computing Gems, 2011; relative error ~1e-7 where it
 * applies) and Newton steps y -= f(y) / erf'(y) with f(y) = erf(y) - a for
 * a < 1/2 and f(y) = (1 - a) - erfc(y) above (1 - a exact by Sterbenz; erfc
 * keeps its relative accuracy where erf(y) is close to 1). erf is concave
 * and erfc convex on y > 0, so after the first step the iterates approach
 * the root from one side, quadratically: an iterate whose step s is below
 * 2^-40 |y| has an error near |y| s^2 < 2^-74 |y| and ends the loop.
 *
 * Error bound. The fixed point is off by the error of f: glibc's erfl and
 * erfcl are within a few ULP of long double (2^-63 relative), which moves
 * y by at most a few 2^-63 |f| / erf'(y) — below 2^-61 |y| for a < 1/2
 * (erf'(y) > 0.88 there, |f| <= 1.2 a) and below 2^-61 / y^2 relative in
 * the tail (erfc(y) / erf'(y) < 1 / (2y)). RT_ERFINV_REL = 2^-56 keeps a
 * factor 32 on that. When v +- 2^-56 |v| round to one value of the type,
 * that value is the correctly rounded result; otherwise rt_erf_inv_slow
 * decides it with MPFR. docs/runtime-math.md has the measurements. */
#include <math.h>
#include <mpfr.h>

#include "rt_internal.h"
#include "rt_math.h"

#define RT_ERFINV_REL 0x1p-56L

static const long double TWO_OVER_SQRTPI = 1.1283791670955125738961589031215452L;
static const long double SQRTPI_OVER_2 = 0.88622692545275801364908374167057259L;
static const long double PI_OVER_12 = 0.26179938779914943653855361527329190L;

/* Giles' single-precision erf^-1 (the coefficients of his paper), used only
 * as the seed of the Newton steps. */
static double giles_seed(double a)
{
    double w = -log((1.0 - a) * (1.0 + a)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return p * a;
}

long double rt_erf_inv_ld(long double a)
{
    if (a < 0x1p-32L)
        return SQRTPI_OVER_2 * a * (1 + PI_OVER_12 * a * a);
    long double y = giles_seed((double)a), b = 1 - a;
    if (!(y > 0) || !isfinite(y))
        y = SQRTPI_OVER_2 * a;
    /* 40 steps bound the loop; from Giles' seed it ends after two or three */
    for (int i = 0; i < 40; i++) {
        long double d = TWO_OVER_SQRTPI * expl(-y * y);
        long double f = a < 0.5L ? erfl(y) - a : b - erfcl(y);
        if (d == 0)
            break;
        long double s = f / d;
        y -= s;
        if (fabsl(s) <= fabsl(y) * 0x1p-40L)
            break;
    }
    return y;
}

/* MPFR's bits of v rounded once to t (prec bits; emin/emax: t's range). */
static uint64_t mpfr_to_t(plumb_dtype t, const mpfr_t v)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    long bias = (1l << (d->exp_bits - 1)) - 1;
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_t r;
    mpfr_init2(r, (mpfr_prec_t)d->mant_bits + 1);
    int inex = mpfr_set(r, v, MPFR_RNDN);
    mpfr_set_emin(-bias - (long)d->mant_bits + 2);
    mpfr_set_emax(bias + 1);
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    double x = mpfr_get_d(r, MPFR_RNDN);   /* exact: <= 53 bits in double's range */
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clear(r);
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);
    default: return plumb_f64_bits(x);
    }
}

/* The correctly rounded erf^-1(a), 0 < a < 1, in t: Newton's method in MPFR
 * at working precision w, then a proven enclosure [y - dl, y + dl] (erf at
 * both ends, directed roundings, on the right side of a) whose ends round
 * to the same value of t; w doubles until they do. */
uint64_t rt_erf_inv_slow(plumb_dtype t, double a)
{
    bool tail = a >= 0.5;
    uint64_t out = 0;
    mpfr_t y, f, d, lo, hi, q;
    mpfr_inits2(64, y, f, d, lo, hi, q, (mpfr_ptr)0);
    for (mpfr_prec_t w = 128; w <= (1 << 15); w *= 2) {
        mpfr_set_prec(y, w);
        mpfr_set_prec(f, w);
        mpfr_set_prec(d, w);
        mpfr_set_prec(lo, w);
        mpfr_set_prec(hi, w);
        mpfr_set_prec(q, w);
        mpfr_set_ld(y, rt_erf_inv_ld(a), MPFR_RNDN);
        mpfr_set_d(q, tail ? 1.0 - a : a, MPFR_RNDN);   /* exact */
        for (int i = 0; i < 64; i++) {
            mpfr_sqr(d, y, MPFR_RNDN);
            mpfr_neg(d, d, MPFR_RNDN);
            mpfr_exp(d, d, MPFR_RNDN);
            mpfr_const_pi(f, MPFR_RNDN);
            mpfr_sqrt(f, f, MPFR_RNDN);
            mpfr_div(d, d, f, MPFR_RNDN);
            mpfr_mul_2ui(d, d, 1, MPFR_RNDN);             /* erf'(y) */
            if (tail) {
                mpfr_erfc(f, y, MPFR_RNDN);
                mpfr_sub(f, q, f, MPFR_RNDN);             /* erf(y) - a */
            } else {
                mpfr_erf(f, y, MPFR_RNDN);
                mpfr_sub(f, f, q, MPFR_RNDN);
            }
            mpfr_div(f, f, d, MPFR_RNDN);
            mpfr_sub(y, y, f, MPFR_RNDN);
            if (mpfr_zero_p(f) || mpfr_get_exp(f) < mpfr_get_exp(y) - (mpfr_exp_t)w + 8)
                break;
        }
        /* enclosure: y -+ 2^(EXP(y) - w + 16) */
        mpfr_set_ui_2exp(d, 1, mpfr_get_exp(y) - (mpfr_exp_t)w + 16, MPFR_RNDN);
        mpfr_sub(lo, y, d, MPFR_RNDD);
        mpfr_add(hi, y, d, MPFR_RNDU);
        bool ok;
        if (tail) {   /* erfc decreasing: erfc(lo) > 1 - a > erfc(hi) */
            mpfr_erfc(f, lo, MPFR_RNDD);
            ok = mpfr_cmp(f, q) > 0;
            mpfr_erfc(f, hi, MPFR_RNDU);
            ok = ok && mpfr_cmp(f, q) < 0;
        } else {      /* erf(lo) < a < erf(hi) */
            mpfr_erf(f, lo, MPFR_RNDU);
            ok = mpfr_cmp(f, q) < 0;
            mpfr_erf(f, hi, MPFR_RNDD);
            ok = ok && mpfr_cmp(f, q) > 0;
        }
        if (ok) {
            uint64_t rl = mpfr_to_t(t, lo), rh = mpfr_to_t(t, hi);
            if (rl == rh) {
                out = rl;
                goto out_clear;
            }
        }
        out = mpfr_to_t(t, y);   /* only if no precision decides (never seen) */
    }
out_clear:
    mpfr_clears(y, f, d, lo, hi, q, (mpfr_ptr)0);
    return out;
}

static uint64_t d_to_t(plumb_dtype t, double x)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);
    default: return plumb_f64_bits(x);
    }
}

uint64_t rt_erf_inv(plumb_dtype t, uint64_t xb)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1), mag = xb & (sign - 1);
    uint64_t inf = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    if (mag > inf)   /* NaN: quieted */
        return xb | (1ull << (di->mant_bits - 1));
    double x;
    switch (t) {
    case PLUMB_F16: x = plumb_f16_to_f64((uint16_t)xb); break;
    case PLUMB_BF16: x = plumb_bf16_to_f64((uint16_t)xb); break;
    case PLUMB_F32: x = (double)plumb_f32_from_bits((uint32_t)xb); break;
    default: x = plumb_f64_from_bits(xb); break;
    }
    if (x == 0)
        return xb;
    if (fabs(x) == 1)
        return inf | (xb & sign);
    if (!(fabs(x) < 1))
        return inf | (1ull << (di->mant_bits - 1));   /* the default NaN */
    double a = fabs(x);
    long double v = rt_erf_inv_ld(a), e = v * RT_ERFINV_REL;
    uint64_t r;
    if (t == PLUMB_F64) {
        double lo = (double)(v - e), hi = (double)(v + e);
        if (plumb_f64_bits(lo) == plumb_f64_bits(hi))
            return plumb_f64_bits(lo) | (xb & sign);
    } else {
        /* the ends' own rounding to double (2^-53) is covered by moving
         * them outward once more */
        double lo = (double)(v - e), hi = (double)(v + e);
        lo -= lo * 0x1p-52;
        hi += hi * 0x1p-52;
        if ((r = d_to_t(t, lo)) == d_to_t(t, hi))
            return r | (xb & sign);
    }
    return rt_erf_inv_slow(t, a) | (xb & sign);
}
