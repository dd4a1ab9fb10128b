/* complex<f32> and complex<f64> on the reference (docs/spec/complex.md).
 *
 * The interpreter hands every op that reads or writes a complex value and
 * that ir_complex_kernel names to ref_complex_run; data movement ops keep
 * their byte-copying kernels. Each component is rounded once, to nearest
 * even, from a value that is exact or carries far more precision:
 *
 *   add, subtract, negate   one IEEE operation per component: exact rounding
 *   multiply, divide        numerators and denominator exact in MPFR
 *                           (REF_CPLX_EXACT bits hold any sum of products of
 *                           two doubles), the quotient at REF_CPLX_WIDE bits:
 *                           correctly rounded per component
 *   abs, sign, sqrt, rsqrt, exp, expm1, log, log1p, sin, cos, tan, tanh,
 *   power, logistic, cbrt, chlo.asinh, asin, acos, atan, atanh
 *                           MPFR from 128 bits plus the operands' binade
 *                           spread (first_prec), doubled until both rounded
 *                           components agree at two precisions (Ziv's
 *                           strategy): correctly rounded unless a component
 *                           lies that close to a rounding boundary
 *   chlo.square             the multiply above
 *   reduce (add body), dot_general
 *                           every product exact, the sums exact (accum.h),
 *                           one rounding per component
 *
 * Non-finite operands (and the poles: divide by 0, log 0, rsqrt 0, power of
 * 0) follow C11 Annex G, whose special values StableHLO's interpreter
 * inherits from std::complex: those elements are computed with <complex.h>
 * in long double, where every such result is an infinity, a NaN, a zero or
 * an exact value. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include <mpfr.h>

#include "accum.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "ref_complex.h"

#define REF_CPLX_EXACT 4400   /* > 4196 bits: products of doubles span 2^-2148 .. 2^2048 */
#define REF_CPLX_WIDE 256

typedef struct cz {
    double re, im;
} cz;

static bool cz_finite(cz z) { return isfinite(z.re) && isfinite(z.im); }
static bool cz_zero(cz z) { return z.re == 0 && z.im == 0; }

/* Rounds an MPFR value once to the component type c. */
static double round_to(const mpfr_t x, plumb_dtype c)
{
    return c == PLUMB_F32 ? (double)mpfr_get_flt(x, MPFR_RNDN) : mpfr_get_d(x, MPFR_RNDN);
}

static double round_ld(long double x, plumb_dtype c)
{
    return c == PLUMB_F32 ? (double)(float)x : (double)x;
}

static cz from_c(long double _Complex z, plumb_dtype c)
{
    cz r = {round_ld(creall(z), c), round_ld(cimagl(z), c)};
    return r;
}

static long double _Complex to_c(cz z)
{
    long double _Complex r;
    __real__ r = z.re;
    __imag__ r = z.im;
    return r;
}

/* ---- MPFR complex helpers ---------------------------------------------------- */

typedef struct mz {
    mpfr_t re, im;
} mz;

static void mz_init(mz *z, mpfr_prec_t p)
{
    mpfr_init2(z->re, p);
    mpfr_init2(z->im, p);
}

static void mz_clear(mz *z)
{
    mpfr_clear(z->re);
    mpfr_clear(z->im);
}

typedef enum cfn {
    CF_ABS, CF_SIGN, CF_SQRT, CF_RSQRT, CF_EXP, CF_EXPM1, CF_LOG, CF_LOG1P,
    CF_SIN, CF_COS, CF_TAN, CF_TANH, CF_POW, CF_ASINH, CF_ATANH, CF_LOGISTIC, CF_CBRT,
} cfn;

/* |z| at r's precision. */
static void m_hypot(mpfr_t r, double a, double b)
{
    mpfr_t x, y;
    mpfr_init2(x, 64);
    mpfr_init2(y, 64);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    mpfr_hypot(r, x, y, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_clear(y);
}

/* The principal square root of a + ib (finite, not zero) at precision p. */
static void m_sqrt(mz *r, double a, double b, mpfr_prec_t p)
{
    mpfr_t h, t;
    mpfr_init2(h, p);
    mpfr_init2(t, p);
    m_hypot(h, a, b);
    /* t = sqrt((|a| + |z|) / 2) > 0 */
    mpfr_add_d(t, h, fabs(a), MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    /* the other component is |b| / (2t) */
    mpfr_set_d(h, fabs(b), MPFR_RNDN);
    mpfr_div(h, h, t, MPFR_RNDN);
    mpfr_div_2ui(h, h, 1, MPFR_RNDN);
    if (a >= 0) {
        mpfr_set(r->re, t, MPFR_RNDN);
        mpfr_set(r->im, h, MPFR_RNDN);
        if (signbit(b))
            mpfr_neg(r->im, r->im, MPFR_RNDN);
    } else {
        mpfr_set(r->re, h, MPFR_RNDN);
        mpfr_set(r->im, t, MPFR_RNDN);
        if (signbit(b))
            mpfr_neg(r->im, r->im, MPFR_RNDN);
    }
    mpfr_clear(h);
    mpfr_clear(t);
}

/* log z of a finite nonzero z at precision p. */
static void m_log(mz *r, double a, double b, mpfr_prec_t p)
{
    mpfr_t x, y;
    mpfr_init2(x, 64);
    mpfr_init2(y, 64);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    m_hypot(r->re, a, b);
    mpfr_log(r->re, r->re, MPFR_RNDN);
    mpfr_atan2(r->im, y, x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_clear(y);
    (void)p;
}

/* exp of (re, im) given in MPFR at precision p. */
static void m_exp(mz *r, const mpfr_t re, const mpfr_t im, mpfr_prec_t p)
{
    mpfr_t e, s, c;
    mpfr_inits2(p, e, s, c, (mpfr_ptr)0);
    mpfr_exp(e, re, MPFR_RNDN);
    if (mpfr_zero_p(im)) {   /* exp(x + i0) = exp(x) + i0, even when exp(x) overflows */
        mpfr_set(r->re, e, MPFR_RNDN);
        mpfr_set(r->im, im, MPFR_RNDN);
    } else {
        mpfr_sin_cos(s, c, im, MPFR_RNDN);
        mpfr_mul(r->re, e, c, MPFR_RNDN);
        mpfr_mul(r->im, e, s, MPFR_RNDN);
    }
    mpfr_clears(e, s, c, (mpfr_ptr)0);
}

/* One evaluation of f at precision p (finite, non-pole arguments). */
static void eval_at(cfn f, cz z, cz w, mpfr_prec_t p, mz *r)
{
    mpfr_t a, b, t, u, v;
    mpfr_inits2(p, a, b, t, u, v, (mpfr_ptr)0);
    mpfr_set_d(a, z.re, MPFR_RNDN);
    mpfr_set_d(b, z.im, MPFR_RNDN);
    switch (f) {
    case CF_ABS:
        m_hypot(r->re, z.re, z.im);
        mpfr_set_zero(r->im, 1);
        break;
    case CF_SIGN:
        m_hypot(t, z.re, z.im);
        mpfr_div(r->re, a, t, MPFR_RNDN);
        mpfr_div(r->im, b, t, MPFR_RNDN);
        break;
    case CF_SQRT:
        m_sqrt(r, z.re, z.im, p);
        break;
    case CF_RSQRT: {
        /* 1/sqrt(z) = conj(sqrt(z)) / |z| */
        m_sqrt(r, z.re, z.im, p);
        m_hypot(t, z.re, z.im);
        mpfr_div(r->re, r->re, t, MPFR_RNDN);
        mpfr_div(r->im, r->im, t, MPFR_RNDN);
        mpfr_neg(r->im, r->im, MPFR_RNDN);
        break;
    }
    case CF_EXP:
        m_exp(r, a, b, p);
        break;
    case CF_EXPM1:
        if (z.im == 0) {   /* expm1(x + i0) = expm1(x) + i0 */
            mpfr_expm1(r->re, a, MPFR_RNDN);
            mpfr_set(r->im, b, MPFR_RNDN);
            break;
        }
        /* re = expm1(a) cos b - 2 sin^2(b/2), im = exp(a) sin b: each term
         * accurate, so only their difference can cancel (Ziv catches it) */
        mpfr_expm1(t, a, MPFR_RNDN);
        mpfr_sin_cos(u, v, b, MPFR_RNDN);
        mpfr_mul(t, t, v, MPFR_RNDN);
        mpfr_div_2ui(v, b, 1, MPFR_RNDN);
        mpfr_sin(v, v, MPFR_RNDN);
        mpfr_sqr(v, v, MPFR_RNDN);
        mpfr_mul_2ui(v, v, 1, MPFR_RNDN);
        mpfr_sub(r->re, t, v, MPFR_RNDN);
        mpfr_exp(t, a, MPFR_RNDN);
        mpfr_mul(r->im, t, u, MPFR_RNDN);
        break;
    case CF_LOG:
        m_log(r, z.re, z.im, p);
        break;
    case CF_CBRT:
        /* the principal root |z|^(1/3) e^(i arg(z)/3): arg(z)/3 lies in
         * (-pi/3, pi/3], so cos is >= 1/2 and sin is small only with its
         * argument, and neither component cancels */
        m_hypot(t, z.re, z.im);
        mpfr_cbrt(t, t, MPFR_RNDN);
        mpfr_atan2(u, b, a, MPFR_RNDN);
        mpfr_div_ui(u, u, 3, MPFR_RNDN);
        mpfr_sin_cos(r->im, r->re, u, MPFR_RNDN);
        mpfr_mul(r->re, r->re, t, MPFR_RNDN);
        mpfr_mul(r->im, r->im, t, MPFR_RNDN);
        break;
    case CF_LOGISTIC: {
        /* L(z) = 1/(1 + e^-z) = e^z/(1 + e^z). With t = -|a| and E = e^t
         * <= 1, the denominator d = 1 + e^(-z) (a >= 0) or 1 + e^z (a < 0)
         * has Re d = -expm1(t) + 2E cos^2(b/2), a sum of nonnegative terms,
         * and Im d = -+E sin b: neither overflows nor cancels, even next to
         * the poles z = i pi (2k + 1). For a < 0 the numerator is e^z. */
        bool neg = mpfr_sgn(a) < 0;
        mpfr_t q;
        mpfr_init2(q, p);
        mpfr_abs(t, a, MPFR_RNDN);
        mpfr_neg(t, t, MPFR_RNDN);
        mpfr_expm1(u, t, MPFR_RNDN);
        mpfr_neg(u, u, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);                 /* E */
        mpfr_div_2ui(v, b, 1, MPFR_RNDN);
        mpfr_cos(v, v, MPFR_RNDN);
        mpfr_sqr(v, v, MPFR_RNDN);
        mpfr_mul(v, v, t, MPFR_RNDN);
        mpfr_mul_2ui(v, v, 1, MPFR_RNDN);
        mpfr_add(u, u, v, MPFR_RNDN);              /* Re d */
        mpfr_sin(v, b, MPFR_RNDN);
        mpfr_mul(v, v, t, MPFR_RNDN);
        if (!neg)
            mpfr_neg(v, v, MPFR_RNDN);             /* Im d */
        mpfr_sqr(q, u, MPFR_RNDN);
        mpfr_sqr(a, v, MPFR_RNDN);
        mpfr_add(q, q, a, MPFR_RNDN);
        mpfr_div(u, u, q, MPFR_RNDN);              /* 1/d = conj(d)/|d|^2 */
        mpfr_div(v, v, q, MPFR_RNDN);
        mpfr_neg(v, v, MPFR_RNDN);
        if (!neg) {
            mpfr_set(r->re, u, MPFR_RNDN);
            mpfr_set(r->im, v, MPFR_RNDN);
        } else {
            /* (E cos b + i E sin b)(u + i v) */
            mpfr_sin_cos(a, q, b, MPFR_RNDN);
            mpfr_mul(a, a, t, MPFR_RNDN);          /* E sin b */
            mpfr_mul(q, q, t, MPFR_RNDN);          /* E cos b */
            mpfr_fmms(r->re, q, u, a, v, MPFR_RNDN);
            mpfr_fmma(r->im, q, v, a, u, MPFR_RNDN);
        }
        mpfr_clear(q);
        break;
    }
    case CF_LOG1P:
        /* re = log1p(2a + a^2 + b^2) / 2, im = atan2(b, 1 + a) */
        mpfr_sqr(t, a, MPFR_RNDN);
        mpfr_sqr(u, b, MPFR_RNDN);
        mpfr_add(t, t, u, MPFR_RNDN);
        mpfr_mul_2ui(u, a, 1, MPFR_RNDN);
        mpfr_add(t, t, u, MPFR_RNDN);
        mpfr_log1p(r->re, t, MPFR_RNDN);
        mpfr_div_2ui(r->re, r->re, 1, MPFR_RNDN);
        mpfr_add_ui(t, a, 1, MPFR_RNDN);
        mpfr_atan2(r->im, b, t, MPFR_RNDN);
        break;
    case CF_SIN:
        /* sin(a + ib) = sin a cosh b + i cos a sinh b */
        mpfr_sin_cos(t, u, a, MPFR_RNDN);
        if (z.re == 0) {
            mpfr_set(r->re, a, MPFR_RNDN);
            mpfr_sinh(r->im, b, MPFR_RNDN);
            break;
        }
        mpfr_cosh(v, b, MPFR_RNDN);
        mpfr_mul(r->re, t, v, MPFR_RNDN);
        mpfr_sinh(v, b, MPFR_RNDN);
        mpfr_mul(r->im, u, v, MPFR_RNDN);
        break;
    case CF_COS:
        /* cos(a + ib) = cos a cosh b - i sin a sinh b */
        mpfr_sin_cos(t, u, a, MPFR_RNDN);
        mpfr_cosh(v, b, MPFR_RNDN);
        mpfr_mul(r->re, u, v, MPFR_RNDN);
        if (z.re == 0 || z.im == 0) {
            mpfr_set_zero(r->im, (signbit(z.re) != 0) != (signbit(z.im) != 0) ? 1 : -1);
            break;
        }
        mpfr_sinh(v, b, MPFR_RNDN);
        mpfr_mul(r->im, t, v, MPFR_RNDN);
        mpfr_neg(r->im, r->im, MPFR_RNDN);
        break;
    case CF_TAN:
    case CF_TANH: {
        /* tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y);
         * tan(z) = -i tanh(iz), i.e. tan(a + ib) from tanh(-b + ia) */
        double x = f == CF_TANH ? z.re : -z.im, y = f == CF_TANH ? z.im : z.re;
        mpfr_t X, Y;
        mpfr_inits2(p, X, Y, (mpfr_ptr)0);
        if (fabs(x) > 1e6) {
            /* |tanh| = 1 within 2^-2000000: the imaginary part underflows
             * every type, keeping the sign of sin 2y */
            mpfr_set_si(X, x > 0 ? 1 : -1, MPFR_RNDN);
            mpfr_set_d(Y, y, MPFR_RNDN);
            mpfr_mul_2ui(Y, Y, 1, MPFR_RNDN);
            mpfr_sin(Y, Y, MPFR_RNDN);
            mpfr_set_zero(Y, mpfr_sgn(Y) < 0 ? -1 : 1);
        } else {
            mpfr_set_d(t, x, MPFR_RNDN);
            mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
            mpfr_set_d(u, y, MPFR_RNDN);
            mpfr_mul_2ui(u, u, 1, MPFR_RNDN);
            mpfr_cosh(v, t, MPFR_RNDN);
            mpfr_cos(X, u, MPFR_RNDN);
            mpfr_add(v, v, X, MPFR_RNDN);
            mpfr_sinh(X, t, MPFR_RNDN);
            mpfr_div(X, X, v, MPFR_RNDN);
            if (y == 0) {
                mpfr_set_d(Y, y, MPFR_RNDN);
            } else {
                mpfr_sin(Y, u, MPFR_RNDN);
                mpfr_div(Y, Y, v, MPFR_RNDN);
            }
        }
        if (f == CF_TANH) {
            mpfr_set(r->re, X, MPFR_RNDN);
            mpfr_set(r->im, Y, MPFR_RNDN);
        } else {   /* tan(z) = -i * tanh(X + iY) = Y - iX */
            mpfr_set(r->re, Y, MPFR_RNDN);
            mpfr_neg(r->im, X, MPFR_RNDN);
        }
        mpfr_clears(X, Y, (mpfr_ptr)0);
        break;
    }
    case CF_ASINH: {
        /* asinh(z) = log(z + sqrt(z^2 + 1)) for Re z >= 0 (no cancellation
         * there); callers use oddness, asinh(z) = -asinh(-z), otherwise */
        mz q;
        mz_init(&q, p);
        mpfr_sqr(t, a, MPFR_RNDN);
        mpfr_sqr(u, b, MPFR_RNDN);
        mpfr_sub(t, t, u, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);          /* re(z^2 + 1) */
        mpfr_mul(u, a, b, MPFR_RNDN);
        mpfr_mul_2ui(u, u, 1, MPFR_RNDN);         /* im(z^2 + 1) */
        /* principal sqrt of (t, u) */
        mpfr_hypot(v, t, u, MPFR_RNDN);
        mpfr_add(q.re, v, t, MPFR_RNDN);          /* |w| + re w >= 0 */
        mpfr_abs(q.re, q.re, MPFR_RNDN);
        if (mpfr_sgn(t) >= 0) {
            mpfr_div_2ui(q.re, q.re, 1, MPFR_RNDN);
            mpfr_sqrt(q.re, q.re, MPFR_RNDN);     /* sqrt((|w| + re)/2) */
            if (mpfr_zero_p(q.re)) {
                mpfr_set_zero(q.im, 1);
            } else {
                mpfr_div(q.im, u, q.re, MPFR_RNDN);
                mpfr_div_2ui(q.im, q.im, 1, MPFR_RNDN);
            }
        } else {
            mpfr_sub(q.im, v, t, MPFR_RNDN);      /* |w| - re > 0 */
            mpfr_div_2ui(q.im, q.im, 1, MPFR_RNDN);
            mpfr_sqrt(q.im, q.im, MPFR_RNDN);
            mpfr_div(q.re, u, q.im, MPFR_RNDN);
            mpfr_div_2ui(q.re, q.re, 1, MPFR_RNDN);
            mpfr_abs(q.re, q.re, MPFR_RNDN);
            if (mpfr_sgn(u) < 0 || (mpfr_zero_p(u) && mpfr_signbit(u)))
                mpfr_neg(q.im, q.im, MPFR_RNDN);
        }
        mpfr_add(q.re, q.re, a, MPFR_RNDN);
        mpfr_add(q.im, q.im, b, MPFR_RNDN);
        mpfr_hypot(t, q.re, q.im, MPFR_RNDN);
        mpfr_log(r->re, t, MPFR_RNDN);
        mpfr_atan2(r->im, q.im, q.re, MPFR_RNDN);
        mz_clear(&q);
        break;
    }
    case CF_ATANH:
        /* atanh(z) = (log(1 + z) - log(1 - z)) / 2, each log's real part
         * as log1p(+-2a + a^2 + b^2) / 2 */
        mpfr_sqr(t, a, MPFR_RNDN);
        mpfr_sqr(u, b, MPFR_RNDN);
        mpfr_add(t, t, u, MPFR_RNDN);
        mpfr_mul_2ui(u, a, 1, MPFR_RNDN);
        mpfr_add(v, t, u, MPFR_RNDN);
        mpfr_sub(t, t, u, MPFR_RNDN);
        mpfr_log1p(v, v, MPFR_RNDN);
        mpfr_log1p(t, t, MPFR_RNDN);
        mpfr_sub(r->re, v, t, MPFR_RNDN);
        mpfr_div_2ui(r->re, r->re, 2, MPFR_RNDN);
        mpfr_add_ui(t, a, 1, MPFR_RNDN);
        mpfr_atan2(v, b, t, MPFR_RNDN);
        mpfr_ui_sub(t, 1, a, MPFR_RNDN);
        mpfr_neg(u, b, MPFR_RNDN);
        mpfr_atan2(u, u, t, MPFR_RNDN);
        mpfr_sub(r->im, v, u, MPFR_RNDN);
        mpfr_div_2ui(r->im, r->im, 1, MPFR_RNDN);
        break;
    case CF_POW: {
        /* z^w = exp(w log z) */
        mz l;
        mz_init(&l, p);
        m_log(&l, z.re, z.im, p);
        mpfr_t wr, wi;
        mpfr_inits2(p, wr, wi, (mpfr_ptr)0);
        mpfr_set_d(wr, w.re, MPFR_RNDN);
        mpfr_set_d(wi, w.im, MPFR_RNDN);
        mpfr_mul(t, wr, l.re, MPFR_RNDN);
        mpfr_mul(u, wi, l.im, MPFR_RNDN);
        mpfr_sub(t, t, u, MPFR_RNDN);
        mpfr_mul(u, wr, l.im, MPFR_RNDN);
        mpfr_mul(v, wi, l.re, MPFR_RNDN);
        mpfr_add(u, u, v, MPFR_RNDN);
        m_exp(r, t, u, p);
        mpfr_clears(wr, wi, (mpfr_ptr)0);
        mz_clear(&l);
        break;
    }
    }
    mpfr_clears(a, b, t, u, v, (mpfr_ptr)0);
}

/* The first working precision: 128 bits plus the binade spread of the
 * nonzero parts and 1, so that a tiny part next to a large one (asinh(x + i),
 * x = 2^-1022, whose real part is about sqrt(x)) is not lost at two
 * successive precisions alike, which Ziv's test alone would accept. */
static mpfr_prec_t first_prec(cz z, cz w)
{
    double v[4] = {z.re, z.im, w.re, w.im};
    int lo = 0, hi = 0;   /* the formulas add 1 (log1p, asinh, atanh) */
    for (int i = 0; i < 4; i++) {
        if (v[i] == 0)
            continue;
        int e = ilogb(v[i]);
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    return 128 + (mpfr_prec_t)(hi - lo);
}

/* f rounded to component type c with Ziv's strategy. */
static cz eval_cr(cfn f, cz z, cz w, plumb_dtype c)
{
    cz prev = {NAN, NAN};
    bool have = false;
    mpfr_prec_t p0 = first_prec(z, w);
    for (mpfr_prec_t p = p0; p <= 4 * p0 + 4096; p *= 2) {
        mz r;
        mz_init(&r, p);
        eval_at(f, z, w, p, &r);
        cz cur = {round_to(r.re, c), round_to(r.im, c)};
        mz_clear(&r);
        if (have && memcmp(&cur, &prev, sizeof cur) == 0)
            return cur;
        prev = cur;
        have = true;
    }
    return prev;
}

/* ---- element functions ----------------------------------------------------------- */

static cz c_mul(cz x, cz y, plumb_dtype c)
{
    if (!cz_finite(x) || !cz_finite(y))
        return from_c(to_c(x) * to_c(y), c);
    mpfr_t re, im;
    mpfr_inits2(REF_CPLX_EXACT, re, im, (mpfr_ptr)0);
    mpfr_t a, b, cc, d;
    mpfr_inits2(64, a, b, cc, d, (mpfr_ptr)0);
    mpfr_set_d(a, x.re, MPFR_RNDN);
    mpfr_set_d(b, x.im, MPFR_RNDN);
    mpfr_set_d(cc, y.re, MPFR_RNDN);
    mpfr_set_d(d, y.im, MPFR_RNDN);
    mpfr_fmms(re, a, cc, b, d, MPFR_RNDN);   /* exact at this precision */
    mpfr_fmma(im, a, d, b, cc, MPFR_RNDN);
    cz r = {round_to(re, c), round_to(im, c)};
    /* an exact zero takes IEEE's sign of the two products' sum; products
     * that overflow a double are nonzero and cancel exactly, which rounds
     * to +0 (inf - inf would make it a NaN: (max, max)^2 in complex<f64>) */
    if (mpfr_zero_p(re)) {
        double p = x.re * y.re, q = x.im * y.im;
        r.re = isinf(p) || isinf(q) ? 0.0 : p - q;
    }
    if (mpfr_zero_p(im)) {
        double p = x.re * y.im, q = x.im * y.re;
        r.im = isinf(p) || isinf(q) ? 0.0 : p + q;
    }
    mpfr_clears(re, im, a, b, cc, d, (mpfr_ptr)0);
    return r;
}

/* atan2 on complex, the spec's (and StableHLO's interpreter's) definition
 * atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), in long double under
 * Annex G: the form taken for non-finite operands and at the pole s = 0
 * (x = +-iy), the same expression as the runtime's. */
static long double _Complex atan2_ld(long double _Complex y, long double _Complex x)
{
    return -I * clogl((x + I * y) / csqrtl(x * x + y * y));
}

/* s = x^2 + y^2 and w = x + iy are formed exactly (REF_CPLX_EXACT bits hold
 * any sum of products of doubles), then q = w conj(sqrt s) / |s| and
 * log q = (log|q|, arg q) at Ziv's precisions, and the result is (arg q,
 * -log|q|). |q| is exactly 1 when |w|^4 = |s|^2 (x and y real, for one),
 * decided exactly: log|q| is then 0, which no finite precision would show. */
static cz c_atan2(cz y, cz x, plumb_dtype c)
{
    if (!cz_finite(x) || !cz_finite(y))
        return from_c(atan2_ld(to_c(y), to_c(x)), c);
    mpfr_t xr, xi, yr, yi, sr, si, wr, wi, t, w4, s2;
    mpfr_inits2(64, xr, xi, yr, yi, (mpfr_ptr)0);
    mpfr_inits2(REF_CPLX_EXACT, sr, si, wr, wi, t, (mpfr_ptr)0);
    mpfr_inits2(4 * REF_CPLX_EXACT + 64, w4, s2, (mpfr_ptr)0);
    mpfr_set_d(xr, x.re, MPFR_RNDN);
    mpfr_set_d(xi, x.im, MPFR_RNDN);
    mpfr_set_d(yr, y.re, MPFR_RNDN);
    mpfr_set_d(yi, y.im, MPFR_RNDN);
    mpfr_fmms(sr, xr, xr, xi, xi, MPFR_RNDN);
    mpfr_fmms(t, yr, yr, yi, yi, MPFR_RNDN);
    mpfr_add(sr, sr, t, MPFR_RNDN);
    mpfr_fmma(si, xr, xi, yr, yi, MPFR_RNDN);
    mpfr_mul_2ui(si, si, 1, MPFR_RNDN);
    cz prev = {NAN, NAN};
    if (mpfr_zero_p(sr) && mpfr_zero_p(si)) {
        prev = from_c(atan2_ld(to_c(y), to_c(x)), c);
        goto out;
    }
    mpfr_sub(wr, xr, yi, MPFR_RNDN);
    mpfr_add(wi, xi, yr, MPFR_RNDN);
    mpfr_fmma(w4, wr, wr, wi, wi, MPFR_RNDN);
    mpfr_sqr(w4, w4, MPFR_RNDN);
    mpfr_fmma(s2, sr, sr, si, si, MPFR_RNDN);
    bool unit = mpfr_equal_p(w4, s2);
    bool have = false;
    mpfr_prec_t p0 = first_prec(x, y);
    for (mpfr_prec_t p = p0; p <= 4 * p0 + 4096; p *= 2) {
        mpfr_t h, a, b, qr, qi, lr, li;
        mpfr_inits2(p, h, a, b, qr, qi, lr, li, (mpfr_ptr)0);
        /* the principal sqrt(s) = (g_r, g_i): a = sqrt((|s_r| + |s|)/2),
         * b = |s_i| / 2a, the larger on the real side when s_r >= 0 */
        mpfr_hypot(h, sr, si, MPFR_RNDN);
        mpfr_abs(a, sr, MPFR_RNDN);
        mpfr_add(a, a, h, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        mpfr_sqrt(a, a, MPFR_RNDN);
        mpfr_abs(b, si, MPFR_RNDN);
        mpfr_div(b, b, a, MPFR_RNDN);
        mpfr_div_2ui(b, b, 1, MPFR_RNDN);
        mpfr_ptr gr = mpfr_sgn(sr) >= 0 ? a : b, gi = mpfr_sgn(sr) >= 0 ? b : a;
        if (mpfr_signbit(si))
            mpfr_neg(gi, gi, MPFR_RNDN);
        mpfr_fmma(qr, wr, gr, wi, gi, MPFR_RNDN);
        mpfr_div(qr, qr, h, MPFR_RNDN);
        mpfr_fmms(qi, wi, gr, wr, gi, MPFR_RNDN);
        mpfr_div(qi, qi, h, MPFR_RNDN);
        if (unit) {
            mpfr_set_zero(lr, 1);
        } else {
            mpfr_hypot(lr, qr, qi, MPFR_RNDN);
            mpfr_log(lr, lr, MPFR_RNDN);
        }
        mpfr_atan2(li, qi, qr, MPFR_RNDN);
        mpfr_neg(lr, lr, MPFR_RNDN);
        cz cur = {round_to(li, c), round_to(lr, c)};
        /* |q| = 1: the imaginary part is (-0) arg q + (-1)(+0) in IEEE
         * arithmetic, as -i = (-0, -1) times log q gives it */
        if (unit)
            cur.im = mpfr_signbit(li) ? 0.0 : -0.0;
        mpfr_clears(h, a, b, qr, qi, lr, li, (mpfr_ptr)0);
        if (have && memcmp(&cur, &prev, sizeof cur) == 0)
            break;
        prev = cur;
        have = true;
    }
out:
    mpfr_clears(xr, xi, yr, yi, (mpfr_ptr)0);
    mpfr_clears(sr, si, wr, wi, t, (mpfr_ptr)0);
    mpfr_clears(w4, s2, (mpfr_ptr)0);
    return prev;
}

static cz c_div(cz x, cz y, plumb_dtype c)
{
    if (!cz_finite(x) || !cz_finite(y) || cz_zero(y))
        return from_c(to_c(x) / to_c(y), c);
    mpfr_t nr, ni, den, a, b, cc, d, q;
    mpfr_inits2(REF_CPLX_EXACT, nr, ni, den, (mpfr_ptr)0);
    mpfr_inits2(64, a, b, cc, d, (mpfr_ptr)0);
    mpfr_init2(q, REF_CPLX_WIDE);
    mpfr_set_d(a, x.re, MPFR_RNDN);
    mpfr_set_d(b, x.im, MPFR_RNDN);
    mpfr_set_d(cc, y.re, MPFR_RNDN);
    mpfr_set_d(d, y.im, MPFR_RNDN);
    /* (a + ib) / (c + id) = ((ac + bd) + i(bc - ad)) / (c^2 + d^2), all exact */
    mpfr_fmma(nr, a, cc, b, d, MPFR_RNDN);
    mpfr_fmms(ni, b, cc, a, d, MPFR_RNDN);
    mpfr_fmma(den, cc, cc, d, d, MPFR_RNDN);
    cz r;
    mpfr_div(q, nr, den, MPFR_RNDN);
    r.re = round_to(q, c);
    mpfr_div(q, ni, den, MPFR_RNDN);
    r.im = round_to(q, c);
    if (mpfr_zero_p(nr))
        r.re = copysign(0.0, x.re * y.re + x.im * y.im);
    if (mpfr_zero_p(ni))
        r.im = copysign(0.0, x.im * y.re - x.re * y.im);
    mpfr_clears(nr, ni, den, a, b, cc, d, q, (mpfr_ptr)0);
    return r;
}

static cz c_unary(plumb_opcode code, cz z, plumb_dtype c)
{
    cz none = {0, 0};
    bool fin = cz_finite(z);
    long double _Complex Z = to_c(z);
    switch (code) {
    case PLUMB_OP_NEGATE: {
        cz r = {-z.re, -z.im};
        return r;
    }
    case PLUMB_OP_ABS: {
        if (!fin) {
            cz r = {isinf(z.re) || isinf(z.im) ? INFINITY : NAN, 0};
            return r;
        }
        return eval_cr(CF_ABS, z, none, c);
    }
    case PLUMB_OP_SIGN: {
        /* spec: NaN -> (NaN, NaN); zero -> zero; else z / |z| */
        if (isnan(z.re) || isnan(z.im)) {
            cz r = {NAN, NAN};
            return r;
        }
        if (cz_zero(z))
            return z;
        if (!fin)
            return from_c(Z / cabsl(Z), c);
        return eval_cr(CF_SIGN, z, none, c);
    }
    case PLUMB_OP_SQRT:
        if (!fin || cz_zero(z))
            return from_c(csqrtl(Z), c);
        return eval_cr(CF_SQRT, z, none, c);
    case PLUMB_OP_RSQRT:
        if (!fin || cz_zero(z))
            return from_c(1.0L / csqrtl(Z), c);
        return eval_cr(CF_RSQRT, z, none, c);
    case PLUMB_OP_EXPONENTIAL:
        return fin ? eval_cr(CF_EXP, z, none, c) : from_c(cexpl(Z), c);
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE:
        return fin ? eval_cr(CF_EXPM1, z, none, c) : from_c(cexpl(Z) - 1.0L, c);
    case PLUMB_OP_CBRT:
        if (!fin || cz_zero(z)) {
            /* StableHLO's interpreter: |z|^(1/3) (cos t, sin t), t = atan2(im, re)/3,
             * a real times a complex (an infinite modulus times sin 0 is NaN) */
            long double m = cbrtl(hypotl(z.re, z.im)), th = atan2l(z.im, z.re) / 3;
            cz r = {round_ld(m * cosl(th), c), round_ld(m * sinl(th), c)};
            return r;
        }
        return eval_cr(CF_CBRT, z, none, c);
    case PLUMB_OP_LOGISTIC:
        /* non-finite operands: the spec's 1/(1 + exp(-z)) under Annex G */
        return fin ? eval_cr(CF_LOGISTIC, z, none, c) : from_c(1.0L / (1.0L + cexpl(-Z)), c);
    case PLUMB_OP_LOG:
        if (!fin || cz_zero(z))
            return from_c(clogl(Z), c);
        return eval_cr(CF_LOG, z, none, c);
    case PLUMB_OP_LOG_PLUS_ONE:
        if (!fin || (z.re == -1 && z.im == 0))
            return from_c(clogl(1.0L + Z), c);
        return eval_cr(CF_LOG1P, z, none, c);
    case PLUMB_OP_SINE:
        return fin ? eval_cr(CF_SIN, z, none, c) : from_c(csinl(Z), c);
    case PLUMB_OP_COSINE:
        return fin ? eval_cr(CF_COS, z, none, c) : from_c(ccosl(Z), c);
    case PLUMB_OP_TAN: case PLUMB_OP_CHLO_TAN:
        return fin ? eval_cr(CF_TAN, z, none, c) : from_c(ctanl(Z), c);
    case PLUMB_OP_TANH:
        return fin ? eval_cr(CF_TANH, z, none, c) : from_c(ctanhl(Z), c);
    case PLUMB_OP_ASINH:
    case PLUMB_OP_ASIN: {
        /* asin(z) = -i asinh(iz): asinh of (-b, a), then (im, -re) */
        cz w = code == PLUMB_OP_ASIN ? (cz){-z.im, z.re} : z;
        cz r;
        if (!fin) {
            r = from_c(code == PLUMB_OP_ASIN ? casinl(Z) : casinhl(Z), c);
            return r;
        }
        bool flip = signbit(w.re) != 0;   /* oddness keeps Re >= 0 */
        cz v = flip ? (cz){-w.re, -w.im} : w;
        r = eval_cr(CF_ASINH, v, none, c);
        if (flip) {
            r.re = -r.re;
            r.im = -r.im;
        }
        if (code == PLUMB_OP_ASIN) {
            cz s = {r.im, -r.re};
            return s;
        }
        return r;
    }
    case PLUMB_OP_ACOS: {
        /* acos(z) = pi/2 - asin(z), evaluated as one expression */
        if (!fin)
            return from_c(cacosl(Z), c);
        cz w = {-z.im, z.re};
        bool flip = signbit(w.re) != 0;
        cz v = flip ? (cz){-w.re, -w.im} : w;
        cz prev = {NAN, NAN};
        mpfr_prec_t p0 = first_prec(z, none);
        for (mpfr_prec_t p = p0; p <= 4 * p0 + 4096; p *= 2) {
            mz r;
            mz_init(&r, p);
            eval_at(CF_ASINH, v, none, p, &r);
            if (flip) {
                mpfr_neg(r.re, r.re, MPFR_RNDN);
                mpfr_neg(r.im, r.im, MPFR_RNDN);
            }
            /* asin = (r.im, -r.re); acos = (pi/2 - r.im, r.re) */
            mpfr_t h;
            mpfr_init2(h, p);
            mpfr_const_pi(h, MPFR_RNDN);
            mpfr_div_2ui(h, h, 1, MPFR_RNDN);
            mpfr_sub(h, h, r.im, MPFR_RNDN);
            cz cur = {round_to(h, c), round_to(r.re, c)};
            mpfr_clear(h);
            mz_clear(&r);
            if (memcmp(&cur, &prev, sizeof cur) == 0)
                return cur;
            prev = cur;
        }
        return prev;
    }
    case PLUMB_OP_ATANH:
    case PLUMB_OP_ATAN: {
        /* atan(z) = -i atanh(iz) */
        if (!fin || (code == PLUMB_OP_ATANH && fabs(z.re) == 1 && z.im == 0) ||
            (code == PLUMB_OP_ATAN && fabs(z.im) == 1 && z.re == 0))
            return from_c(code == PLUMB_OP_ATAN ? catanl(Z) : catanhl(Z), c);
        cz w = code == PLUMB_OP_ATAN ? (cz){-z.im, z.re} : z;
        cz r = eval_cr(CF_ATANH, w, none, c);
        if (code == PLUMB_OP_ATAN) {
            cz s = {r.im, -r.re};
            return s;
        }
        return r;
    }
    case PLUMB_OP_SQUARE:
        return c_mul(z, z, c);
    case PLUMB_OP_CONJ:   /* the imaginary part negated as negate does: NaN and signed zero kept */
        return (cz){z.re, -z.im};
    /* CHLO's cosh, sinh and acosh by identities that only swap and negate
     * components, so each stays rounded once: cosh(z) = cos(iz),
     * sinh(z) = -i sin(iz), acosh(z) = i acos(z) for Im z >= 0 (+0
     * included) and -i acos(z) below (Re acosh >= 0, C11 G.6.2.1) */
    case PLUMB_OP_COSH:
        return c_unary(PLUMB_OP_COSINE, (cz){-z.im, z.re}, c);
    case PLUMB_OP_SINH: {
        cz s = c_unary(PLUMB_OP_SINE, (cz){-z.im, z.re}, c);
        return (cz){s.im, -s.re};
    }
    case PLUMB_OP_ACOSH: {
        if (!fin)
            return from_c(cacoshl(Z), c);
        cz s = c_unary(PLUMB_OP_ACOS, z, c);
        return signbit(z.im) ? (cz){s.im, -s.re} : (cz){-s.im, s.re};
    }
    default: {
        cz r = {NAN, NAN};
        return r;
    }
    }
}

static cz c_binary(plumb_opcode code, cz x, cz y, plumb_dtype c)
{
    cz r;
    switch (code) {
    case PLUMB_OP_ADD:
        if (c == PLUMB_F32) {
            r.re = (float)x.re + (float)y.re;
            r.im = (float)x.im + (float)y.im;
        } else {
            r.re = x.re + y.re;
            r.im = x.im + y.im;
        }
        return r;
    case PLUMB_OP_SUBTRACT:
        if (c == PLUMB_F32) {
            r.re = (float)x.re - (float)y.re;
            r.im = (float)x.im - (float)y.im;
        } else {
            r.re = x.re - y.re;
            r.im = x.im - y.im;
        }
        return r;
    case PLUMB_OP_MULTIPLY:
        return c_mul(x, y, c);
    case PLUMB_OP_DIVIDE:
        return c_div(x, y, c);
    case PLUMB_OP_ATAN2:
        return c_atan2(x, y, c);   /* atan2(lhs, rhs): lhs is the y of the definition */
    case PLUMB_OP_POWER:
        if (!cz_finite(x) || !cz_finite(y) || cz_zero(x))
            return from_c(cpowl(to_c(x), to_c(y)), c);
        return eval_cr(CF_POW, x, y, c);
    default:
        r.re = r.im = NAN;
        return r;
    }
}

/* ---- kernels -------------------------------------------------------------------- */

static uint64_t bidx(const plumb_tensor *t, uint64_t i) { return plumb_tensor_numel(t) == 1 ? 0 : i; }

static cz load(const plumb_tensor *t, uint64_t i)
{
    cz z;
    plumb_complex_load(t->dtype, t->data, (size_t)i, &z.re, &z.im);
    return z;
}

static void store(plumb_tensor *t, uint64_t i, cz z) { plumb_complex_store(t->dtype, t->data, (size_t)i, z.re, z.im); }

/* A real operand's element as a double (exact for every float type). */
static double load_real(const plumb_tensor *t, uint64_t i) { return plumb_load_f64(t->dtype, t->data, (size_t)i); }

static bool poll_every(ref_ctx *c, const ir_op *op, uint64_t i)
{
    return (i & 1023) != 1023 || ref_poll(c, op);
}

static bool ew(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    plumb_dtype ct = plumb_dtype_component(in[0]->dtype);
    uint64_t n = plumb_tensor_numel(r);
    for (uint64_t i = 0; i < n; i++) {
        if (!poll_every(c, op, i))
            return false;
        cz x = load(in[0], bidx(in[0], i));
        if (op->n_operands == 1) {
            cz v = c_unary(op->code, x, ct);
            if (op->code == PLUMB_OP_ABS)
                plumb_store_bits(r->dtype, r->data, (size_t)i,
                                 ct == PLUMB_F32 ? plumb_f32_bits((float)v.re) : plumb_f64_bits(v.re));
            else
                store(r, i, v);
        } else {
            cz y = load(in[1], bidx(in[1], i));
            store(r, i, c_binary(op->code, x, y, ct));
        }
    }
    return true;
}

/* The spec's compare on complex: the lexicographic order of (real, imag)
 * pairs with IEEE quiet comparisons per component (comparison_type FLOAT):
 * x < y when x.re < y.re, or x.re == y.re and x.im < y.im; so a NaN
 * component makes every ordered direction and EQ false, and NE true. */
static bool compare(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        cz x = load(in[0], bidx(in[0], i)), y = load(in[1], bidx(in[1], i));
        bool req = x.re == y.re, v;
        switch (op->a.cmp_dir) {
        case IR_CMP_EQ: v = req && x.im == y.im; break;
        case IR_CMP_NE: v = !(req && x.im == y.im); break;
        case IR_CMP_LT: v = x.re < y.re || (req && x.im < y.im); break;
        case IR_CMP_LE: v = x.re < y.re || (req && x.im <= y.im); break;
        case IR_CMP_GT: v = x.re > y.re || (req && x.im > y.im); break;
        default: v = x.re > y.re || (req && x.im >= y.im); break;   /* GE */
        }
        plumb_store_bits(PLUMB_I1, out[0]->data, (size_t)i, v);
    }
    return true;
}

/* A real value rounded once to the component type c. */
static double real_to(plumb_dtype from, const void *data, uint64_t i, plumb_dtype c)
{
    if (plumb_dtype_is_signed(from) || plumb_dtype_is_bool(from)) {
        int64_t v = plumb_load_i64(from, data, (size_t)i);
        return c == PLUMB_F32 ? (double)(float)v : (double)v;
    }
    if (plumb_dtype_is_unsigned(from)) {
        uint64_t v = plumb_load_u64(from, data, (size_t)i);
        return c == PLUMB_F32 ? (double)(float)v : (double)v;
    }
    double v = plumb_load_f64(from, data, (size_t)i);   /* exact */
    return c == PLUMB_F32 ? (double)(float)v : v;
}

/* convert: complex -> complex rounds each component once; real -> complex
 * gives (x, +0); complex -> any real type converts the real part as an f64
 * value of that type would be (floats rounded once; integers truncated,
 * saturated, NaN -> 0; i1 is re != 0), the imaginary part dropped, as
 * StableHLO's interpreter does (its convert.mlir: (0, 1) -> false). */
static bool convert(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *x = in[0], *r = out[0];
    uint64_t n = plumb_tensor_numel(r);
    bool cin = plumb_dtype_is_complex(x->dtype), cout = plumb_dtype_is_complex(r->dtype);
    for (uint64_t i = 0; i < n; i++) {
        if (cout) {
            plumb_dtype ct = plumb_dtype_component(r->dtype);
            cz z;
            if (cin) {
                z = load(x, i);
                if (ct == PLUMB_F32) {
                    z.re = (float)z.re;
                    z.im = (float)z.im;
                }
            } else {
                z.re = real_to(x->dtype, x->data, i, ct);
                z.im = 0;
            }
            store(r, i, z);
        } else {
            double v = load(x, i).re;
            uint64_t bits;
            switch (r->dtype) {
            case PLUMB_F16: bits = plumb_f64_to_f16(v); break;
            case PLUMB_BF16: bits = plumb_f64_to_bf16(v); break;
            case PLUMB_F32: bits = plumb_f32_bits((float)v); break;
            case PLUMB_F64: bits = plumb_f64_bits(v); break;
            default:   /* the small floats: the shared codec rounds the exact double once;
                        * integers and i1 by its float -> int and x != 0 rules */
                bits = plumb_lowp_convert_bits(PLUMB_F64, r->dtype, plumb_f64_bits(v));
                break;
            }
            plumb_store_bits(r->dtype, r->data, (size_t)i, bits);
        }
    }
    return true;
}

static bool select_op(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c;
    (void)op;
    size_t es = plumb_dtype_size(out[0]->dtype);
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        bool p = plumb_load_bits(PLUMB_I1, in[0]->data, (size_t)bidx(in[0], i)) != 0;
        const plumb_tensor *s = p ? in[1] : in[2];
        memcpy((unsigned char *)out[0]->data + i * es, (const unsigned char *)s->data + bidx(s, i) * es, es);
    }
    return true;
}

static bool iota(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    plumb_tensor *r = out[0];
    int64_t d = op->a.dimension;
    if (d < 0 || (uint64_t)d >= r->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "iota_dimension %lld is out of range", (long long)d);
    uint64_t n = plumb_tensor_numel(r);
    int64_t idx[PLUMB_MAX_RANK];
    for (uint64_t i = 0; i < n; i++) {
        ref_unravel(i, r->rank, r->dims, idx);
        double v = (double)idx[d];
        cz z = {plumb_dtype_component(r->dtype) == PLUMB_F32 ? (double)(float)v : v, 0};
        store(r, i, z);
    }
    return true;
}

/* The body `return add(a0, a1)` (either order) of a one-input reduce. */
static bool add_body(const ir_op *op)
{
    const ir_block *b = &op->regions[0];
    if (op->n_operands != 2 || b->n_args != 2 || b->n_ops != 2 || !b->first || !b->first->next)
        return false;
    const ir_op *x = b->first, *ret = x->next;
    if (x->code != PLUMB_OP_ADD || ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 ||
        ret->operands[0] != x->results[0] || x->n_operands != 2)
        return false;
    return (x->operands[0] == b->args[0] && x->operands[1] == b->args[1]) ||
           (x->operands[0] == b->args[1] && x->operands[1] == b->args[0]);
}

/* reduce over complex inputs: an add body sums each component exactly and
 * rounds once (the order does not matter); any other body is evaluated in
 * the reference's documented order (ref/reduce.c): acc = init, then
 * acc = body(acc, x) over the reduced indices in row-major order. */
static bool reduce(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n_in = op->n_operands / 2;
    const plumb_tensor *x0 = in[0];
    bool red[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= x0->rank)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce dimension %lld is out of range", (long long)d);
        red[d] = true;
    }
    int64_t kd[PLUMB_MAX_RANK], rd[PLUMB_MAX_RANK];
    uint32_t nk = 0, nr = 0;
    for (uint32_t d = 0; d < x0->rank; d++) {
        if (red[d])
            rd[nr++] = x0->dims[d];
        else
            kd[nk++] = x0->dims[d];
    }
    uint64_t n_out = plumb_tensor_numel(out[0]), n_red = 1;
    for (uint32_t i = 0; i < nr; i++)
        n_red *= (uint64_t)rd[i];
    int64_t ko[PLUMB_MAX_RANK], ro[PLUMB_MAX_RANK], full[PLUMB_MAX_RANK];
    bool sum = n_in == 1 && plumb_dtype_is_complex(x0->dtype) && add_body(op);
    if (sum) {
        plumb_dtype ct = plumb_dtype_component(x0->dtype);
        ref_acc ar, ai;
        ref_acc_init(&ar, true);
        ref_acc_init(&ai, true);
        bool ok = true;
        for (uint64_t o = 0; o < n_out && ok; o++) {
            ref_unravel(o, nk, kd, ko);
            ref_acc_reset(&ar);
            ref_acc_reset(&ai);
            cz init = load(in[1], 0);
            ref_acc_add(&ar, init.re);
            ref_acc_add(&ai, init.im);
            for (uint64_t k = 0; k < n_red; k++) {
                if (!(ok = poll_every(c, op, k)))
                    break;
                ref_unravel(k, nr, rd, ro);
                for (uint32_t d = 0, a = 0, b = 0; d < x0->rank; d++)
                    full[d] = red[d] ? ro[a++] : ko[b++];
                cz v = load(x0, ref_ravel(x0->rank, x0->dims, full));
                ref_acc_add(&ar, v.re);
                ref_acc_add(&ai, v.im);
            }
            cz r = {ct == PLUMB_F32 ? (double)plumb_f32_from_bits((uint32_t)ref_acc_round(&ar, ct))
                                    : plumb_f64_from_bits(ref_acc_round(&ar, ct)),
                    ct == PLUMB_F32 ? (double)plumb_f32_from_bits((uint32_t)ref_acc_round(&ai, ct))
                                    : plumb_f64_from_bits(ref_acc_round(&ai, ct))};
            store(out[0], o, r);
        }
        ref_acc_clear(&ar);
        ref_acc_clear(&ai);
        return ok;
    }
    /* generic body: scalar tensors for the 2N arguments and N results */
    const ir_block *body = &op->regions[0];
    if (n_in > 8 || body->n_args != 2 * n_in)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "unsupported: a reduce of %u complex inputs", n_in);
    plumb_tensor args[16], res[8];
    unsigned char abuf[16][16], rbuf[8][16];
    plumb_tensor *argp[16], *resp[8];
    for (uint32_t k = 0; k < 2 * n_in; k++) {
        memset(&args[k], 0, sizeof args[k]);
        args[k].dtype = in[k % n_in]->dtype;
        args[k].nbytes = plumb_dtype_size(args[k].dtype);
        args[k].data = abuf[k];
        argp[k] = &args[k];
    }
    for (uint32_t k = 0; k < n_in; k++) {
        memset(&res[k], 0, sizeof res[k]);
        res[k].dtype = out[k]->dtype;
        res[k].nbytes = plumb_dtype_size(res[k].dtype);
        res[k].data = rbuf[k];
        resp[k] = &res[k];
    }
    for (uint64_t o = 0; o < n_out; o++) {
        ref_unravel(o, nk, kd, ko);
        for (uint32_t k = 0; k < n_in; k++)
            memcpy(abuf[k], in[n_in + k]->data, args[k].nbytes);
        for (uint64_t j = 0; j < n_red; j++) {
            ref_unravel(j, nr, rd, ro);
            for (uint32_t d = 0, a = 0, b = 0; d < x0->rank; d++)
                full[d] = red[d] ? ro[a++] : ko[b++];
            uint64_t off = ref_ravel(x0->rank, x0->dims, full);
            for (uint32_t k = 0; k < n_in; k++)
                memcpy(abuf[n_in + k], (const unsigned char *)in[k]->data + off * args[k].nbytes, args[k].nbytes);
            if (!ref_eval_region(c, body, argp, resp))
                return false;
            for (uint32_t k = 0; k < n_in; k++)
                memcpy(abuf[k], rbuf[k], args[k].nbytes);
        }
        for (uint32_t k = 0; k < n_in; k++)
            memcpy((unsigned char *)out[k]->data + o * args[k].nbytes, abuf[k], args[k].nbytes);
    }
    return true;
}

/* dot_general with a complex operand (the other complex or real): every
 * product exact, each component's sum exact, rounded once. */
static bool dot_general(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *l = in[0], *r = in[1];
    plumb_tensor *o = out[0];
    const ir_ints *lb = &op->a.lhs_batch, *rb = &op->a.rhs_batch, *lc = &op->a.lhs_contract, *rc = &op->a.rhs_contract;
    if (op->code == PLUMB_OP_DOT) {
        static const int64_t zero = 0, one = 1;
        static ir_ints none, l1, r0;
        l1.n = 1;
        l1.v = (int64_t *)(l->rank == 2 ? &one : &zero);
        r0.n = 1;
        r0.v = (int64_t *)&zero;
        lb = rb = &none;
        lc = &l1;
        rc = &r0;
    }
    bool lu[PLUMB_MAX_RANK] = {false}, ru[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < lb->n; i++) lu[lb->v[i]] = true;
    for (uint32_t i = 0; i < lc->n; i++) lu[lc->v[i]] = true;
    for (uint32_t i = 0; i < rb->n; i++) ru[rb->v[i]] = true;
    for (uint32_t i = 0; i < rc->n; i++) ru[rc->v[i]] = true;
    uint32_t lfree[PLUMB_MAX_RANK], rfree[PLUMB_MAX_RANK], nlf = 0, nrf = 0;
    for (uint32_t d = 0; d < l->rank; d++) if (!lu[d]) lfree[nlf++] = d;
    for (uint32_t d = 0; d < r->rank; d++) if (!ru[d]) rfree[nrf++] = d;
    int64_t cd[PLUMB_MAX_RANK], ci[PLUMB_MAX_RANK], oi[PLUMB_MAX_RANK], li[PLUMB_MAX_RANK], ri[PLUMB_MAX_RANK];
    uint64_t nc = 1;
    for (uint32_t i = 0; i < lc->n; i++) {
        cd[i] = l->dims[lc->v[i]];
        nc *= (uint64_t)cd[i];
    }
    bool lcx = plumb_dtype_is_complex(l->dtype), rcx = plumb_dtype_is_complex(r->dtype);
    plumb_dtype ct = plumb_dtype_component(o->dtype);
    uint64_t n = plumb_tensor_numel(o);
    if (!ref_work(c, op, n * nc))
        return false;
    ref_acc ar, ai;
    ref_acc_init(&ar, true);
    ref_acc_init(&ai, true);
    for (uint64_t e = 0; e < n; e++) {
        ref_unravel(e, o->rank, o->dims, oi);
        uint32_t p = 0;
        for (uint32_t i = 0; i < lb->n; i++, p++) {
            li[lb->v[i]] = oi[p];
            ri[rb->v[i]] = oi[p];
        }
        for (uint32_t i = 0; i < nlf; i++, p++) li[lfree[i]] = oi[p];
        for (uint32_t i = 0; i < nrf; i++, p++) ri[rfree[i]] = oi[p];
        ref_acc_reset(&ar);
        ref_acc_reset(&ai);
        for (uint64_t k = 0; k < nc; k++) {
            ref_unravel(k, lc->n, cd, ci);
            for (uint32_t i = 0; i < lc->n; i++) {
                li[lc->v[i]] = ci[i];
                ri[rc->v[i]] = ci[i];
            }
            uint64_t lo = ref_ravel(l->rank, l->dims, li), ro = ref_ravel(r->rank, r->dims, ri);
            cz a = lcx ? load(l, lo) : (cz){load_real(l, lo), 0};
            cz b = rcx ? load(r, ro) : (cz){load_real(r, ro), 0};
            ref_acc_add_prod(&ar, a.re, b.re);
            if (lcx && rcx)
                ref_acc_add_prod(&ar, -a.im, b.im);
            if (rcx)
                ref_acc_add_prod(&ai, a.re, b.im);
            if (lcx)
                ref_acc_add_prod(&ai, a.im, b.re);
        }
        uint64_t br = ref_acc_round(&ar, ct), bi = ref_acc_round(&ai, ct);
        cz z = {ct == PLUMB_F32 ? (double)plumb_f32_from_bits((uint32_t)br) : plumb_f64_from_bits(br),
                ct == PLUMB_F32 ? (double)plumb_f32_from_bits((uint32_t)bi) : plumb_f64_from_bits(bi)};
        store(o, e, z);
    }
    ref_acc_clear(&ar);
    ref_acc_clear(&ai);
    return true;
}

/* maximum, minimum and clamp on complex, as StableHLO's interpreter
 * defines them (Element max/min in its Element.cpp): max(x, y) is x when
 * x.re == y.re ? x.im > y.im : x.re > y.re, else y; min the same with <;
 * IEEE quiet compares, so a NaN component selects y, and -0 == +0 (the
 * real parts tie and the imaginary parts decide). clamp(lo, x, hi) is
 * min(max(x, lo), hi) (its evalClampOp). The chosen element is copied
 * whole: the result is exact, NaN payloads and signed zeros included. */
static bool lex_gt(cz x, cz y) { return x.re == y.re ? x.im > y.im : x.re > y.re; }
static bool lex_lt(cz x, cz y) { return x.re == y.re ? x.im < y.im : x.re < y.re; }

static bool minmax(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    size_t es = plumb_dtype_size(r->dtype);
    uint64_t n = plumb_tensor_numel(r);
    for (uint64_t i = 0; i < n; i++) {
        if (!poll_every(c, op, i))
            return false;
        const plumb_tensor *pick;
        uint64_t pi;
        if (op->code == PLUMB_OP_CLAMP) {
            /* operands (lo, x, hi): max(x, lo), then min of that and hi */
            uint64_t il = bidx(in[0], i), ix = bidx(in[1], i), ih = bidx(in[2], i);
            cz lo = load(in[0], il), x = load(in[1], ix), hi = load(in[2], ih);
            pick = lex_gt(x, lo) ? in[1] : in[0];
            pi = pick == in[1] ? ix : il;
            cz m = pick == in[1] ? x : lo;
            if (!lex_lt(m, hi)) {
                pick = in[2];
                pi = ih;
            }
        } else {
            uint64_t ix = bidx(in[0], i), iy = bidx(in[1], i);
            cz x = load(in[0], ix), y = load(in[1], iy);
            bool first = op->code == PLUMB_OP_MAXIMUM ? lex_gt(x, y) : lex_lt(x, y);
            pick = first ? in[0] : in[1];
            pi = first ? ix : iy;
        }
        memcpy((char *)r->data + (size_t)i * es, (const char *)pick->data + (size_t)pi * es, es);
    }
    return true;
}

bool ref_complex_run(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    switch (op->code) {
    case PLUMB_OP_MAXIMUM:
    case PLUMB_OP_MINIMUM:
    case PLUMB_OP_CLAMP: return minmax(c, op, in, out);
    case PLUMB_OP_COMPARE: return compare(c, op, in, out);
    case PLUMB_OP_CONVERT: return convert(c, op, in, out);
    case PLUMB_OP_SELECT: return select_op(c, op, in, out);
    case PLUMB_OP_IOTA: return iota(c, op, in, out);
    case PLUMB_OP_REDUCE: return reduce(c, op, in, out);
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_DOT: return dot_general(c, op, in, out);
    default: return ew(c, op, in, out);
    }
}

/* ---- complex, real, imag ---------------------------------------------------------- */

bool ref_op_COMPLEX(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c;
    (void)op;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        cz z = {load_real(in[0], bidx(in[0], i)), load_real(in[1], bidx(in[1], i))};
        store(out[0], i, z);
    }
    return true;
}

/* real and imag of a float operand are the operand and zero (spec). */
static bool part(const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, bool imag)
{
    (void)op;
    const plumb_tensor *x = in[0];
    plumb_tensor *r = out[0];
    uint64_t n = plumb_tensor_numel(r);
    plumb_dtype ct = r->dtype;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits;
        if (plumb_dtype_is_complex(x->dtype))
            bits = plumb_load_bits(ct, x->data, (size_t)(2 * i + imag));
        else
            bits = imag ? 0 : plumb_load_bits(ct, x->data, (size_t)i);
        plumb_store_bits(ct, r->data, (size_t)i, bits);
    }
    return true;
}

bool ref_op_REAL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c;
    return part(op, in, out, false);
}

bool ref_op_IMAG(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c;
    return part(op, in, out, true);
}
