/* Correctly rounded scalar math: see crmath.h for the contract.
 *
 * Fast path. y = f(x) in double (f16/bf16/f32 results) or long double (f64
 * results) with the C library, whose functions are within a few ULP of their
 * type (the C library's published bounds are <= 4 ULP for these functions;
 * we assume CR_WIDE_ULPS = 16 to be safe). The exact result then lies in
 * [y - e, y + e]; if both ends round to the same target value, that is the
 * answer. The check is made in terms of the target's own rounding (each end
 * is rounded to the target, and the two results compared), so it is right at
 * every rounding boundary of the target, subnormal ones included.
 *
 * Slow path. MPFR at the target's precision in MPFR's default exponent range,
 * then mpfr_check_range + mpfr_subnormalize in the target's exponent range
 * (the documented way to emulate IEEE formats: subnormalize uses the ternary
 * value of the first rounding, so there is no double rounding). logistic has
 * no MPFR function: it is evaluated at increasing precision until
 * mpfr_can_round decides the rounding to p+1 bits (which also decides the
 * ternary value that subnormalize needs).
 *
 * Arithmetic. f32 and f64 add/sub/mul/div/sqrt are the host's IEEE operations
 * (single rounding; the library is built with -ffp-contract=off). For f16
 * and bf16 the exact result is obtained as a double plus the sign of its
 * error (TwoSum, or an fma residual), turned into the double rounded to odd,
 * and rounded once to the target: rounding to odd at 53 bits followed by
 * rounding to p <= 51 bits equals one direct rounding (Boldo & Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd", IEEE TC 2008). */
#include "crmath.h"
#include "plumb/fp8.h"

#include <math.h>
#include <mpfr.h>
#include <string.h>

#define CR_WIDE_ULPS 16

static _Thread_local bool g_force_mpfr;
static _Thread_local uint64_t g_mpfr_calls;

void cr_force_mpfr(bool on) { g_force_mpfr = on; }
uint64_t cr_mpfr_calls(void) { return g_mpfr_calls; }

static const char *const unary_names[CR_UNARY_COUNT] = {
    "sqrt", "rsqrt", "cbrt", "exp", "expm1", "log", "log1p", "logistic",
    "tanh", "sin", "cos", "tan", "erf", "acos", "asin", "atan", "acosh", "asinh",
    "atanh", "cosh", "sinh", "erfc", "lgamma", "digamma",
};
static const char *const binary_names[CR_BINARY_COUNT] = {
    "add", "sub", "mul", "div", "rem", "pow", "atan2",
};

const char *cr_unary_name(cr_unary_fn f) { return (unsigned)f < CR_UNARY_COUNT ? unary_names[f] : "?"; }
const char *cr_binary_name(cr_binary_fn f) { return (unsigned)f < CR_BINARY_COUNT ? binary_names[f] : "?"; }

/* ---- formats -------------------------------------------------------------- */

typedef struct fmt {
    int bits;        /* storage width */
    int mant;        /* explicit fraction bits */
    int prec;        /* significand precision p = mant + 1 */
    mpfr_exp_t emax; /* MPFR exponent of the largest finite value (x = m*2^e, 1/2 <= m < 1) */
    mpfr_exp_t emin; /* MPFR exponent of the smallest subnormal */
} fmt;

static fmt fmt_of(plumb_dtype t)
{
    /* The small formats (FP8/FP6/FP4, ir/fp8.c): MPFR works at 53 bits in
     * its default range and small_finish rounds that to odd, so the codec's
     * one rounding applies the format's own overflow, NaN and E8M0 rules. */
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    if (sf)
        return (fmt){sf->bits, sf->mant, 53, 1024, -1073};
    switch (t) {
    case PLUMB_F16:  return (fmt){16, 10, 11, 16, -23};
    case PLUMB_BF16: return (fmt){16, 7, 8, 128, -132};
    case PLUMB_F32:  return (fmt){32, 23, 24, 128, -148};
    default:         return (fmt){64, 52, 53, 1024, -1073};
    }
}

bool cr_is_nan(plumb_dtype t, uint64_t bits)
{
    if (plumb_fpfmt_get(t))
        return plumb_small_is_nan(plumb_fpfmt_get(t), (uint32_t)bits);
    fmt f = fmt_of(t);
    uint64_t mag = bits & ((f.bits == 64) ? ~(1ull << 63) : ((1ull << (f.bits - 1)) - 1));
    uint64_t inf = ((1ull << (f.bits - 1 - f.mant)) - 1) << f.mant;
    return mag > inf;
}

uint64_t cr_quiet(plumb_dtype t, uint64_t bits)
{
    /* FN, FNUZ and E8M0 NaNs have no quiet bit: a NaN stays its pattern
     * (FN keeps its sign); the IEEE-like FP8 formats set their top
     * fraction bit as the wide types do. */
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    if (sf && sf->nan != PLUMB_FPNAN_IEEE)
        return bits;
    return bits | (1ull << (fmt_of(t).mant - 1));
}

uint64_t cr_default_nan(plumb_dtype t)
{
    /* the codec's NaN: +0 for FP6/FP4, which have none (types.md) */
    if (plumb_fpfmt_get(t))
        return plumb_f64_to_small(plumb_fpfmt_get(t), NAN);
    fmt f = fmt_of(t);
    uint64_t inf = ((1ull << (f.bits - 1 - f.mant)) - 1) << f.mant;
    return inf | (1ull << (f.mant - 1));
}

double cr_to_double(plumb_dtype t, uint64_t bits)
{
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)bits);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)bits);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)bits);
    default:
        if (plumb_fpfmt_get(t))   /* exact: every small-format value is a double */
            return plumb_small_to_f64(plumb_fpfmt_get(t), (uint32_t)bits);
        return plumb_f64_from_bits(bits);
    }
}

uint64_t cr_from_double(plumb_dtype t, double x)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);   /* one IEEE rounding */
    default:
        if (plumb_fpfmt_get(t))   /* one rounding, the format's rules (ir/fp8.c) */
            return plumb_f64_to_small(plumb_fpfmt_get(t), x);
        return plumb_f64_bits(x);
    }
}

/* ---- the decision of the fast path ----------------------------------------- */

/* y approximates the exact result within CR_WIDE_ULPS ulps of double. True
 * (with *out) when that decides the rounding to t. Zeros and infinities of
 * the wide type are taken as they are: the wide range exceeds the target's,
 * so a wide zero or infinity is the target's zero or infinity too. */
static bool decide_d(plumb_dtype t, double y, uint64_t *out)
{
    if (y == 0 || isinf(y)) {
        *out = cr_from_double(t, y);
        return true;
    }
    double e = fabs(y) * (CR_WIDE_ULPS * 0x1p-53) + CR_WIDE_ULPS * 0x1p-1074;
    uint64_t lo = cr_from_double(t, y - e), hi = cr_from_double(t, y + e);
    if (lo != hi)
        return false;
    *out = lo;
    return true;
}

static bool decide_ld(long double y, uint64_t *out)
{
    if (y == 0 || isinf(y)) {
        *out = plumb_f64_bits((double)y);
        return true;
    }
    /* 64-bit significand: one ulp is 2^-63 relative at most. */
    long double e = fabsl(y) * (CR_WIDE_ULPS * 0x1p-63L) + CR_WIDE_ULPS * 0x1p-16445L;
    double lo = (double)(y - e), hi = (double)(y + e);
    if (plumb_f64_bits(lo) != plumb_f64_bits(hi))
        return false;
    *out = plumb_f64_bits(lo);
    return true;
}

/* ---- wide evaluations -------------------------------------------------------- */

static double wide_unary_d(cr_unary_fn f, double x)
{
    switch (f) {
    case CR_SQRT: return sqrt(x);
    case CR_RSQRT: return 1.0 / sqrt(x);
    case CR_CBRT: return cbrt(x);
    case CR_EXP: return exp(x);
    case CR_EXPM1: return expm1(x);
    case CR_LOG: return log(x);
    case CR_LOG1P: return log1p(x);
    case CR_LOGISTIC: return 1.0 / (1.0 + exp(-x));
    case CR_TANH: return tanh(x);
    case CR_SIN: return sin(x);
    case CR_COS: return cos(x);
    case CR_TAN: return tan(x);
    case CR_ERF: return erf(x);
    case CR_ACOS: return acos(x);
    case CR_ASIN: return asin(x);
    case CR_ATAN: return atan(x);
    case CR_ACOSH: return acosh(x);
    case CR_ASINH: return asinh(x);
    case CR_ATANH: return atanh(x);
    case CR_COSH: return cosh(x);
    case CR_SINH: return sinh(x);
    case CR_ERFC: return erfc(x);
    default: return NAN;
    }
}

static long double wide_unary_ld(cr_unary_fn f, long double x)
{
    switch (f) {
    case CR_SQRT: return sqrtl(x);
    case CR_RSQRT: return 1.0L / sqrtl(x);
    case CR_CBRT: return cbrtl(x);
    case CR_EXP: return expl(x);
    case CR_EXPM1: return expm1l(x);
    case CR_LOG: return logl(x);
    case CR_LOG1P: return log1pl(x);
    case CR_LOGISTIC: return 1.0L / (1.0L + expl(-x));
    case CR_TANH: return tanhl(x);
    case CR_SIN: return sinl(x);
    case CR_COS: return cosl(x);
    case CR_TAN: return tanl(x);
    case CR_ERF: return erfl(x);
    case CR_ACOS: return acosl(x);
    case CR_ASIN: return asinl(x);
    case CR_ATAN: return atanl(x);
    case CR_ACOSH: return acoshl(x);
    case CR_ASINH: return asinhl(x);
    case CR_ATANH: return atanhl(x);
    case CR_COSH: return coshl(x);
    case CR_SINH: return sinhl(x);
    case CR_ERFC: return erfcl(x);
    default: return NAN;
    }
}

/* ---- MPFR ------------------------------------------------------------------- */

/* y holds the result rounded to the target precision in MPFR's default
 * exponent range, with ternary value inex. Applies the target's exponent
 * range (overflow, underflow, subnormals) and returns the target's bits. */
/* y is the exact result rounded to 53 bits (any direction) with ternary
 * value inex: the double rounded to odd is the odd one of y and its
 * neighbour on the exact value's side, and the codec rounds that once
 * (Boldo & Melquiond: 53 >= p + 2 for every small format). Outside the
 * double range the small formats' results are decided anyway: beyond
 * 2^1024 every format overflows, below 2^-1074 every one rounds to its zero
 * (E8M0: its smallest value). */
static uint64_t small_finish(plumb_dtype t, mpfr_t y, int inex)
{
    if (mpfr_nan_p(y))
        return cr_default_nan(t);
    double d = mpfr_get_d(y, MPFR_RNDN);   /* exact inside the double range */
    if (inex != 0 && isfinite(d) && d != 0 && (plumb_f64_bits(d) & 1) == 0)
        d = nextafter(d, inex > 0 ? -INFINITY : INFINITY);
    return plumb_f64_to_small(plumb_fpfmt_get(t), d);
}

static uint64_t mpfr_finish(plumb_dtype t, mpfr_t y, int inex)
{
    if (plumb_fpfmt_get(t))
        return small_finish(t, y, inex);
    fmt f = fmt_of(t);
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(f.emin);
    mpfr_set_emax(f.emax);
    inex = mpfr_check_range(y, inex, MPFR_RNDN);
    mpfr_subnormalize(y, inex, MPFR_RNDN);
    double d = mpfr_get_d(y, MPFR_RNDN);   /* exact: y has <= 53 bits, double range */
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    if (isnan(d))
        return cr_default_nan(t);
    return cr_from_double(t, d);           /* exact: d is a value of t */
}

/* logistic(x) = 1/(1+exp(-x)) by Ziv's strategy. Exact only at x = 0 and
 * saturated far out, both handled before the loop so it terminates. */
static int mpfr_logistic(mpfr_t y, double x)
{
    mpfr_prec_t p = mpfr_get_prec(y);
    if (x == 0)
        return mpfr_set_d(y, 0.5, MPFR_RNDN);
    if (x > 100) {    /* 1 - e^-100 < 1 - 2^-144: rounds to 1 in every format */
        mpfr_set_d(y, 1.0, MPFR_RNDN);
        return 1;     /* y = 1 lies above the exact result */
    }
    if (x < -1200) {  /* < e^-1200 < 2^-1700: below half of every smallest subnormal */
        mpfr_set_ui_2exp(y, 1, -1700, MPFR_RNDN);
        return 1;     /* y lies above the exact result */
    }
    int inex = 0;
    mpfr_t t;
    for (mpfr_prec_t w = p + 40;; w += w / 2) {
        mpfr_init2(t, w);
        mpfr_set_d(t, -x, MPFR_RNDN);                 /* exact: w >= 53 */
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_ui_div(t, 1, t, MPFR_RNDN);
        /* Three roundings of relative error 2^-w each: well within 2^(4-w)
         * of |t| < 2^EXP(t). */
        if (mpfr_can_round(t, w - 4, MPFR_RNDN, MPFR_RNDZ, p + 1) || w > 20000) {
            inex = mpfr_set(y, t, MPFR_RNDN);
            mpfr_clear(t);
            return inex;
        }
        mpfr_clear(t);
    }
}

static uint64_t mpfr_unary(cr_unary_fn f, plumb_dtype t, double x)
{
    g_mpfr_calls++;
    mpfr_t y, a;
    mpfr_init2(y, fmt_of(t).prec);
    mpfr_init2(a, 53);
    mpfr_set_d(a, x, MPFR_RNDN);
    int inex;
    switch (f) {
    case CR_SQRT: inex = mpfr_sqrt(y, a, MPFR_RNDN); break;
    case CR_RSQRT: inex = mpfr_rec_sqrt(y, a, MPFR_RNDN); break;
    case CR_CBRT: inex = mpfr_cbrt(y, a, MPFR_RNDN); break;
    case CR_EXP: inex = mpfr_exp(y, a, MPFR_RNDN); break;
    case CR_EXPM1: inex = mpfr_expm1(y, a, MPFR_RNDN); break;
    case CR_LOG: inex = mpfr_log(y, a, MPFR_RNDN); break;
    case CR_LOG1P: inex = mpfr_log1p(y, a, MPFR_RNDN); break;
    case CR_LOGISTIC: inex = mpfr_logistic(y, x); break;
    case CR_TANH: inex = mpfr_tanh(y, a, MPFR_RNDN); break;
    case CR_SIN: inex = mpfr_sin(y, a, MPFR_RNDN); break;
    case CR_COS: inex = mpfr_cos(y, a, MPFR_RNDN); break;
    case CR_TAN: inex = mpfr_tan(y, a, MPFR_RNDN); break;
    case CR_ERF: inex = mpfr_erf(y, a, MPFR_RNDN); break;
    case CR_ACOS: inex = mpfr_acos(y, a, MPFR_RNDN); break;
    case CR_ASIN: inex = mpfr_asin(y, a, MPFR_RNDN); break;
    case CR_ATAN: inex = mpfr_atan(y, a, MPFR_RNDN); break;
    case CR_ACOSH: inex = mpfr_acosh(y, a, MPFR_RNDN); break;
    case CR_ASINH: inex = mpfr_asinh(y, a, MPFR_RNDN); break;
    case CR_ATANH: inex = mpfr_atanh(y, a, MPFR_RNDN); break;
    case CR_COSH: inex = mpfr_cosh(y, a, MPFR_RNDN); break;
    case CR_SINH: inex = mpfr_sinh(y, a, MPFR_RNDN); break;
    case CR_ERFC: inex = mpfr_erfc(y, a, MPFR_RNDN); break;
    case CR_LGAMMA: {
        int sign;
        inex = mpfr_lgamma(y, &sign, a, MPFR_RNDN);
        break;
    }
    case CR_DIGAMMA: inex = mpfr_digamma(y, a, MPFR_RNDN); break;
    default: mpfr_set_nan(y); inex = 0; break;
    }
    uint64_t r = mpfr_finish(t, y, inex);
    mpfr_clear(y);
    mpfr_clear(a);
    return r;
}

static uint64_t mpfr_binary(cr_binary_fn f, plumb_dtype t, double xa, double xb)
{
    g_mpfr_calls++;
    mpfr_t y, a, b;
    mpfr_init2(y, fmt_of(t).prec);
    mpfr_init2(a, 53);
    mpfr_init2(b, 53);
    mpfr_set_d(a, xa, MPFR_RNDN);
    mpfr_set_d(b, xb, MPFR_RNDN);
    int inex;
    switch (f) {
    case CR_ADD: inex = mpfr_add(y, a, b, MPFR_RNDN); break;
    case CR_SUB: inex = mpfr_sub(y, a, b, MPFR_RNDN); break;
    case CR_MUL: inex = mpfr_mul(y, a, b, MPFR_RNDN); break;
    case CR_DIV: inex = mpfr_div(y, a, b, MPFR_RNDN); break;
    case CR_REM: inex = mpfr_fmod(y, a, b, MPFR_RNDN); break;
    case CR_POW: inex = mpfr_pow(y, a, b, MPFR_RNDN); break;
    case CR_ATAN2: inex = mpfr_atan2(y, a, b, MPFR_RNDN); break;
    default: mpfr_set_nan(y); inex = 0; break;
    }
    uint64_t r = mpfr_finish(t, y, inex);
    mpfr_clear(y);
    mpfr_clear(a);
    mpfr_clear(b);
    return r;
}

/* ---- digamma and lgamma in double, with a rigorous error bound ----------------
 *
 * Used for the targets of at most 24 significant bits (f16, bf16, f32 and
 * the small formats; not f64). Each returns y and a bound E with the exact
 * result in [y - E, y + E], or false where it does not apply (zero, a pole,
 * a non-finite x); the caller takes y only when both ends round to the same
 * target value (decide_abs), else MPFR decides, so the result is the
 * correctly rounded one either way.
 *
 * Method. For x > 0: shift X = x + n >= 16 by the recurrences
 * psi(x) = psi(X) - sum 1/(x+k) and lgamma(x) = lgamma(X) - log prod (x+k),
 * then the asymptotic series at X: psi(X) = ln X - 1/(2X) - 1/(12X^2) +
 * 1/(120X^4) - 1/(252X^6) + 1/(240X^8) - ..., and Stirling's
 * lgamma(X) = (X-1/2) ln X - X + ln(2 pi)/2 + 1/(12X) - 1/(360X^3) +
 * 1/(1260X^5) - 1/(1680X^7) + ...; for real X > 0 both series' remainders
 * are bounded by their first omitted term (DLMF 5.11.10 and 5.15.8),
 * 1/(132X^10) and 1/(1188X^9), added to E twice over. For x < 0 (not an
 * integer): psi(x) = psi(1-x) - pi cot(pi x) and
 * lgamma(x) = ln(pi / |sin(pi x)|) - lgamma(1-x) (DLMF 5.5.4, 5.5.3), with
 * r = x - nearest integer (exact) so the trigonometric argument lies in
 * (0, pi/2] or (0, pi/4], where it is well conditioned.
 *
 * Error. Every double operation rounds with relative error 2^-53; log, tan
 * and sin are taken within 16 ulps (CR_WIDE_ULPS, the assumption of the
 * fast path above). Each computed quantity q then carries an error below a
 * small multiple (< 100) of 2^-53 |q|, and so the result one below 2^-40
 * times the sum of the magnitudes of the quantities combined (mag below),
 * plus 2^-40 for the rounding of the shifted arguments (x + k, 1 - x, whose
 * effect on psi and lgamma is below 2 ulps of 1 and of (X-1/2) ln X). 2^-40
 * is 8192 times 2^-53: a margin far above the sum of the constants. Near a
 * zero of the result, or an exact result (lgamma(1) = lgamma(2) = 0), the
 * interval straddles a rounding boundary (or zero, whose two signs differ)
 * and MPFR decides. */

#define SF_TOL 0x1p-40

static bool fast_digamma(double x, double *y, double *err)
{
    if (!isfinite(x) || x == 0 || (x < 0 && x == nearbyint(x)))
        return false;
    double c = 0, cmag = 0;
    double z = x;
    if (x < 0) {
        /* psi(x) = psi(1 - x) - pi cot(pi x); cot has period pi */
        double r = x - nearbyint(x);   /* exact, 0 < |r| <= 1/2 */
        double ar = fabs(r), ct;
        if (ar <= 0.25)
            ct = 1.0 / tan(M_PI * ar);
        else
            ct = tan(M_PI * (0.5 - ar));   /* 0.5 - ar exact (Sterbenz) */
        c = copysign(M_PI * ct, r);
        cmag = fabs(c);
        z = 1.0 - x;
    }
    double s = 0;
    while (z < 16) {
        s += 1.0 / z;
        z += 1.0;
    }
    double X = z, i2 = 1.0 / (X * X);
    double l = log(X);
    double ser = 1.0 / (2 * X) + i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 * (1.0 / 240))));
    double i10 = i2 * i2 * i2 * i2 * i2;
    *y = (l - ser) - s - c;
    double mag = fabs(l) + fabs(ser) + s + cmag + 1.0;
    *err = SF_TOL * mag + 2.0 * i10 / 132;
    return true;
}

static bool fast_lgamma(double x, double *y, double *err)
{
    if (!isfinite(x) || x == 0 || (x < 0 && x == nearbyint(x)))
        return false;
    double c = 0, cmag = 0;
    double z = x;
    if (x < 0) {
        /* lgamma(x) = ln(pi / |sin(pi x)|) - lgamma(1 - x) */
        double r = x - nearbyint(x);   /* exact, 0 < |r| <= 1/2 */
        double sn = sin(M_PI * fabs(r));
        c = log(M_PI / sn);
        cmag = fabs(c) + 1.0;
        z = 1.0 - x;
    }
    double prod = 1, lp = 0;
    int n = 0;
    while (z < 16) {
        prod *= z;
        z += 1.0;
        n++;
    }
    if (n)
        lp = log(prod);   /* prod >= x * 15! / 1: finite, and normal for every x here */
    double X = z, i1 = 1.0 / X, i2 = i1 * i1;
    double l = log(X);
    double a = (X - 0.5) * l;
    double ser = i1 * (1.0 / 12 - i2 * (1.0 / 360 - i2 * (1.0 / 1260 - i2 * (1.0 / 1680))));
    double st = ((a - X) + 0.91893853320467274178) + ser;
    double i9 = i2 * i2 * i2 * i2 * i1;
    double res = st - lp;
    *y = x < 0 ? c - res : res;
    double mag = fabs(a) + X + 1.0 + fabs(ser) + fabs(lp) + n + cmag + 1.0;
    *err = SF_TOL * mag + 2.0 * i9 / 1188;
    return true;
}

/* [y - e, y + e] holds the exact result: true (with *out) when both ends
 * round to the same value of t (the target's own rounding, as decide_d). */
static bool decide_abs(plumb_dtype t, double y, double e, uint64_t *out)
{
    uint64_t lo = cr_from_double(t, y - e), hi = cr_from_double(t, y + e);
    if (lo != hi)
        return false;
    *out = lo;
    return true;
}

/* ---- public entry points ------------------------------------------------------ */

/* Rounds the exact value hi + lo (lo: only its sign matters; 0 when hi is
 * exact) once to t, by way of hi rounded to odd. hi is finite, nonzero and
 * normal in double whenever lo != 0. */
static uint64_t round_via_odd(plumb_dtype t, double hi, double lo)
{
    if (lo != 0 && (plumb_f64_bits(hi) & 1) == 0)
        hi = nextafter(hi, lo > 0 ? INFINITY : -INFINITY);
    return cr_from_double(t, hi);
}

static uint64_t arith_half(cr_binary_fn f, plumb_dtype t, double a, double b)
{
    double hi, lo = 0;
    switch (f) {
    case CR_ADD:
    case CR_SUB: {
        if (f == CR_SUB)
            b = -b;
        hi = a + b;
        if (isfinite(hi)) {     /* TwoSum (Knuth): lo = exact error of hi */
            double bb = hi - a;
            lo = (a - (hi - bb)) + (b - bb);
        }
        break;
    }
    case CR_MUL:
        hi = a * b;             /* 2 x 11 or 2 x 8 significant bits: exact */
        break;
    case CR_DIV:
        hi = a / b;
        if (isfinite(hi) && hi != 0) {
            double r = fma(-hi, b, a);   /* exact residual a - hi*b */
            lo = (r == 0) ? 0 : ((r > 0) == (b > 0) ? 1.0 : -1.0);
        }
        break;
    default: /* CR_REM */
        hi = fmod(a, b);        /* exact, and representable in t */
        break;
    }
    if (isnan(hi))
        return cr_default_nan(t);
    return round_via_odd(t, hi, lo);
}

uint64_t cr_unary(cr_unary_fn f, plumb_dtype t, uint64_t xb)
{
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    double x = cr_to_double(t, xb);
    if (f == CR_SQRT && t != PLUMB_F64 && t != PLUMB_F32) {
        double hi = sqrt(x), lo = 0;
        if (isnan(hi))
            return cr_default_nan(t);
        if (isfinite(hi) && hi != 0) {
            double r = fma(-hi, hi, x);
            lo = (r > 0) - (r < 0);
        }
        return round_via_odd(t, hi, lo);
    }
    if (f == CR_SQRT && t == PLUMB_F32) {
        float r = sqrtf((float)x);
        return isnan(r) ? cr_default_nan(t) : plumb_f32_bits(r);
    }
    if (f == CR_SQRT) {
        double r = sqrt(x);
        return isnan(r) ? cr_default_nan(t) : plumb_f64_bits(r);
    }
    /* IEEE 754-2019 rSqrt(+-0) = +-inf; the C expression and MPFR give +inf. */
    if (f == CR_RSQRT && x == 0)
        return cr_from_double(t, signbit(x) ? -INFINITY : INFINITY);
    uint64_t r;
    /* lgamma and digamma take no C library function: near the zeros of
     * lgamma and of digamma the C library's error relative to the result is
     * not bounded by a few ULP in every implementation (and C has no
     * digamma). Targets of <= 24 bits evaluate them in double with a
     * rigorous absolute bound (fast_digamma, fast_lgamma); MPFR decides
     * what that leaves open, and every f64 result. */
    if (!g_force_mpfr && t != PLUMB_F64 && (f == CR_LGAMMA || f == CR_DIGAMMA)) {
        double y, e;
        if ((f == CR_LGAMMA ? fast_lgamma(x, &y, &e) : fast_digamma(x, &y, &e)) && decide_abs(t, y, e, &r))
            return r;
    }
    bool fast = f != CR_LGAMMA && f != CR_DIGAMMA;
    if (!g_force_mpfr && fast) {
        if (t == PLUMB_F64) {
            long double y = wide_unary_ld(f, x);
            if (isnan(y))
                return cr_default_nan(t);
            if (decide_ld(y, &r))
                return r;
        } else {
            double y = wide_unary_d(f, x);
            if (isnan(y))
                return cr_default_nan(t);
            if (decide_d(t, y, &r))
                return r;
        }
    }
    return mpfr_unary(f, t, x);
}

uint64_t cr_binary(cr_binary_fn f, plumb_dtype t, uint64_t ab, uint64_t bb)
{
    double a = cr_to_double(t, ab), b = cr_to_double(t, bb);
    if (f == CR_POW) {
        /* IEEE 754-2019 9.2.1: pow(x, +-0) = 1 and pow(+1, y) = 1, even for NaN. */
        if ((!cr_is_nan(t, bb) && b == 0) || (!cr_is_nan(t, ab) && a == 1))
            return cr_from_double(t, 1.0);
    }
    if (cr_is_nan(t, ab))
        return cr_quiet(t, ab);
    if (cr_is_nan(t, bb))
        return cr_quiet(t, bb);

    switch (f) {
    case CR_ADD: case CR_SUB: case CR_MUL: case CR_DIV: case CR_REM:
        if (t == PLUMB_F32) {
            float x = (float)a, y = (float)b, r;
            switch (f) {
            case CR_ADD: r = x + y; break;
            case CR_SUB: r = x - y; break;
            case CR_MUL: r = x * y; break;
            case CR_DIV: r = x / y; break;
            default: r = fmodf(x, y); break;
            }
            return isnan(r) ? cr_default_nan(t) : plumb_f32_bits(r);
        }
        if (t == PLUMB_F64) {
            double r;
            switch (f) {
            case CR_ADD: r = a + b; break;
            case CR_SUB: r = a - b; break;
            case CR_MUL: r = a * b; break;
            case CR_DIV: r = a / b; break;
            default: r = fmod(a, b); break;
            }
            return isnan(r) ? cr_default_nan(t) : plumb_f64_bits(r);
        }
        return arith_half(f, t, a, b);
    default:
        break;
    }

    uint64_t r;
    if (!g_force_mpfr) {
        if (t == PLUMB_F64) {
            long double y = f == CR_POW ? powl(a, b) : atan2l(a, b);
            if (isnan(y))
                return cr_default_nan(t);
            if (decide_ld(y, &r))
                return r;
        } else {
            double y = f == CR_POW ? pow(a, b) : atan2(a, b);
            if (isnan(y))
                return cr_default_nan(t);
            if (decide_d(t, y, &r))
                return r;
        }
    }
    return mpfr_binary(f, t, a, b);
}
