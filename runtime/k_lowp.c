/* The runtime's elementwise kernels on the small float formats (FP8, FP6,
 * FP4, E8M0) and the sub-byte integers (i2, i4, ui2, ui4).
 *
 * Every element of these types holds at most 8 bits, so every unary op is
 * a table of 2^bits results and every binary op a table of 2^(2*bits)
 * (64 KiB for an 8-bit format): a kernel is one load per operand and one
 * table load per element, whatever the op costs. The tables are built once
 * per process on first use (under a lock, published with release/acquire)
 * from this file's scalar functions, which compute each entry correctly
 * rounded in the format on their own (never through ref/):
 *   add, subtract, multiply, divide, remainder, sqrt: the double result
 *     plus the sign of its error (TwoSum, an fma residual; products of two
 *     <= 5-bit significands and fmod are exact) turned into the double
 *     rounded to odd, then rounded once by the codec (ir/fp8.c): rounding
 *     to odd at 53 bits then to p <= 51 bits is one correct rounding
 *     (Boldo & Melquiond 2008);
 *   the transcendental ops, power, atan2: the C library's double value y,
 *     taken when y +- 16 ulp round to the same pattern (its error is far
 *     below 16 ulp), else MPFR at 53 bits rounded toward zero and made odd
 *     when inexact, then the codec (Ziv's strategy, as ref/crmath.c);
 *     lgamma and digamma always through MPFR;
 *   the bit-level and ordering ops (abs, negate, sign, compare, max, min,
 *     is_*) by the rules of docs/spec/types.md;
 *   integers: exact int64 arithmetic wrapped to the width, the rules of
 *     the other integer types (division by 0 gives -1, INT_MIN / -1 wraps,
 *     shifts by >= w give 0 or the sign).
 * Tests: tests/runtime/test_lowp.c compares every table entry with the
 * reference (every pattern, every pair) and runs the kernels at every ISA
 * level. */
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "rt_internal.h"
#include "rt_lowp.h"
#include "../ref/special2.h"

#define WIDE_ULPS 16
#define LOWP_GRAIN 16384u

/* ---- small floats: scalar functions ---------------------------------------- */

static bool f_has_sign(const plumb_fpfmt *f) { return f->nan != PLUMB_FPNAN_E8M0; }
static uint32_t f_sbit(const plumb_fpfmt *f) { return 1u << (f->bits - 1); }
static bool f_isnan(const plumb_fpfmt *f, uint32_t x) { return plumb_small_is_nan(f, x); }
static double f_val(const plumb_fpfmt *f, uint32_t x) { return plumb_small_to_f64(f, x); }
static uint32_t f_round(const plumb_fpfmt *f, double x) { return plumb_f64_to_small(f, x); }

/* A NaN operand's result: IEEE-like formats set the top fraction bit, the
 * others have one NaN pattern (FN: one per sign) and keep it. */
static uint32_t f_quiet(const plumb_fpfmt *f, uint32_t x)
{
    return f->nan == PLUMB_FPNAN_IEEE ? x | (1u << (f->mant - 1)) : x;
}

static uint32_t f_invalid(const plumb_fpfmt *f) { return f_round(f, NAN); }

/* hi + (an error of sign lo) rounded once: by way of hi rounded to odd. */
static uint32_t f_round_odd(const plumb_fpfmt *f, double hi, double lo)
{
    if (isnan(hi))
        return f_invalid(f);
    if (lo != 0 && isfinite(hi) && (plumb_f64_bits(hi) & 1) == 0)
        hi = nextafter(hi, lo > 0 ? INFINITY : -INFINITY);
    return f_round(f, hi);
}

/* y (the exact value rounded toward zero to 53 bits, inexact when inex !=
 * 0) made odd, then rounded by the codec. */
static uint32_t f_from_mpfr(const plumb_fpfmt *f, mpfr_t y, int inex)
{
    if (mpfr_nan_p(y))
        return f_invalid(f);
    double d = mpfr_get_d(y, MPFR_RNDZ);
    if (inex != 0 && isfinite(d) && d != 0 && (plumb_f64_bits(d) & 1) == 0)
        d = nextafter(d, signbit(d) ? -INFINITY : INFINITY);
    return f_round(f, d);
}

/* Whether y, within WIDE_ULPS ulps of double of the exact value, decides
 * the rounding. */
static bool f_decide(const plumb_fpfmt *f, double y, uint32_t *out)
{
    if (isnan(y)) {
        *out = f_invalid(f);
        return true;
    }
    if (y == 0 || isinf(y)) {
        *out = f_round(f, y);
        return true;
    }
    double e = fabs(y) * (WIDE_ULPS * 0x1p-53) + WIDE_ULPS * 0x1p-1074;
    uint32_t a = f_round(f, y - e), b = f_round(f, y + e);
    if (a != b)
        return false;
    *out = a;
    return true;
}

static int mpfr_logistic_z(mpfr_t y, const mpfr_t a)
{
    /* exact only at 0 (handled by the caller); Ziv's loop otherwise */
    mpfr_t w;
    mpfr_init2(w, 64);
    int inex = 1;
    for (mpfr_prec_t p = 128; p <= 1 << 14; p *= 2) {
        mpfr_set_prec(w, p);
        mpfr_neg(w, a, MPFR_RNDN);
        mpfr_exp(w, w, MPFR_RNDN);
        mpfr_add_ui(w, w, 1, MPFR_RNDN);
        mpfr_ui_div(w, 1, w, MPFR_RNDN);
        if (mpfr_can_round(w, p - 4, MPFR_RNDN, MPFR_RNDZ, 53))
            break;
    }
    mpfr_set(y, w, MPFR_RNDZ);
    mpfr_clear(w);
    return inex;
}

static uint32_t f_mpfr1(plumb_opcode c, const plumb_fpfmt *f, double x)
{
    mpfr_t y, a;
    mpfr_init2(y, 53);
    mpfr_init2(a, 53);
    mpfr_set_d(a, x, MPFR_RNDN);   /* exact */
    int inex, sign;
    switch (c) {
    case PLUMB_OP_RSQRT: inex = mpfr_rec_sqrt(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_CBRT: inex = mpfr_cbrt(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_EXPONENTIAL: inex = mpfr_exp(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: inex = mpfr_expm1(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_LOG: inex = mpfr_log(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_LOG_PLUS_ONE: inex = mpfr_log1p(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_LOGISTIC: inex = mpfr_logistic_z(y, a); break;
    case PLUMB_OP_TANH: inex = mpfr_tanh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_SINE: inex = mpfr_sin(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_COSINE: inex = mpfr_cos(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_TAN: inex = mpfr_tan(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ERF: inex = mpfr_erf(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ACOS: inex = mpfr_acos(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ASIN: inex = mpfr_asin(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ATAN: inex = mpfr_atan(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ACOSH: inex = mpfr_acosh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ASINH: inex = mpfr_asinh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ATANH: inex = mpfr_atanh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_COSH: inex = mpfr_cosh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_SINH: inex = mpfr_sinh(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_ERFC: inex = mpfr_erfc(y, a, MPFR_RNDZ); break;
    case PLUMB_OP_LGAMMA: inex = mpfr_lgamma(y, &sign, a, MPFR_RNDZ); break;
    case PLUMB_OP_DIGAMMA: inex = mpfr_digamma(y, a, MPFR_RNDZ); break;
    default: mpfr_set_nan(y); inex = 0; break;
    }
    uint32_t r = f_from_mpfr(f, y, inex);
    mpfr_clear(y);
    mpfr_clear(a);
    return r;
}

static bool f_libm1(plumb_opcode c, double x, double *y)
{
    switch (c) {
    case PLUMB_OP_RSQRT: *y = 1.0 / sqrt(x); return true;
    case PLUMB_OP_CBRT: *y = cbrt(x); return true;
    case PLUMB_OP_EXPONENTIAL: *y = exp(x); return true;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: *y = expm1(x); return true;
    case PLUMB_OP_LOG: *y = log(x); return true;
    case PLUMB_OP_LOG_PLUS_ONE: *y = log1p(x); return true;
    case PLUMB_OP_LOGISTIC: *y = 1.0 / (1.0 + exp(-x)); return true;
    case PLUMB_OP_TANH: *y = tanh(x); return true;
    case PLUMB_OP_SINE: *y = sin(x); return true;
    case PLUMB_OP_COSINE: *y = cos(x); return true;
    case PLUMB_OP_TAN: *y = tan(x); return true;
    case PLUMB_OP_ERF: *y = erf(x); return true;
    case PLUMB_OP_ACOS: *y = acos(x); return true;
    case PLUMB_OP_ASIN: *y = asin(x); return true;
    case PLUMB_OP_ATAN: *y = atan(x); return true;
    case PLUMB_OP_ACOSH: *y = acosh(x); return true;
    case PLUMB_OP_ASINH: *y = asinh(x); return true;
    case PLUMB_OP_ATANH: *y = atanh(x); return true;
    case PLUMB_OP_COSH: *y = cosh(x); return true;
    case PLUMB_OP_SINH: *y = sinh(x); return true;
    case PLUMB_OP_ERFC: *y = erfc(x); return true;
    default: return false;   /* lgamma, digamma: MPFR only */
    }
}

static uint32_t f_total_key(const plumb_fpfmt *f, uint32_t b)
{
    uint32_t m = (1u << f->bits) - 1;
    if (!f_has_sign(f))
        return b;
    return (b & f_sbit(f)) ? (~b & m) : (b | f_sbit(f));
}

static uint32_t f_unary(plumb_opcode c, const plumb_fpfmt *f, uint32_t x)
{
    bool nan = f_isnan(f, x);
    double v = f_val(f, x);
    switch (c) {
    case PLUMB_OP_ABS:
        if (!f_has_sign(f) || (f->nan == PLUMB_FPNAN_FNUZ && nan))
            return x;
        return x & ~f_sbit(f);
    case PLUMB_OP_NEGATE:
        if (!f_has_sign(f))
            return plumb_small_qnan(f);
        if (f->nan == PLUMB_FPNAN_FNUZ && (x & ~f_sbit(f)) == 0)
            return x;
        return x ^ f_sbit(f);
    case PLUMB_OP_CONJ: return x;   /* a real value is its own conjugate, bit for bit */
    case PLUMB_OP_IS_FINITE: return !nan && !plumb_small_is_inf(f, x);
    case PLUMB_OP_IS_INF: return plumb_small_is_inf(f, x);
    case PLUMB_OP_IS_POS_INF: return plumb_small_is_inf(f, x) && v > 0;
    case PLUMB_OP_IS_NEG_INF: return plumb_small_is_inf(f, x) && v < 0;
    default: break;
    }
    if (nan)
        return f_quiet(f, x);
    switch (c) {
    case PLUMB_OP_SIGN: return v == 0 ? x : f_round(f, v < 0 ? -1.0 : 1.0);
    case PLUMB_OP_FLOOR: return f_round(f, floor(v));
    case PLUMB_OP_CEIL: return f_round(f, ceil(v));
    case PLUMB_OP_ROUND_NEAREST_AFZ: return f_round(f, round(v));
    case PLUMB_OP_ROUND_NEAREST_EVEN: {
        double y = floor(v), d = v - y;   /* exact */
        if (d > 0.5 || (d == 0.5 && fmod(y, 2.0) != 0))
            y += 1;
        return f_round(f, copysign(y, v));
    }
    case PLUMB_OP_SQUARE: return f_round(f, v * v);   /* exact product */
    case PLUMB_OP_ERF_INV: return ir_lowp_erf_inv(f, x);   /* ir/lowp.c: bisection on MPFR's erf */
    case PLUMB_OP_SQRT: {
        double hi = sqrt(v), lo = 0;
        if (isfinite(hi) && hi != 0) {
            double r = fma(-hi, hi, v);
            lo = (r > 0) - (r < 0);
        }
        return f_round_odd(f, hi, lo);
    }
    case PLUMB_OP_RSQRT:
        if (v == 0)   /* IEEE 754-2019 rSqrt(+-0) = +-inf */
            return f_round(f, signbit(v) ? -INFINITY : INFINITY);
        break;
    case PLUMB_OP_LOGISTIC:
        if (v == 0)
            return f_round(f, 0.5);
        break;
    default: break;
    }
    double y;
    uint32_t r;
    if (f_libm1(c, v, &y) && f_decide(f, y, &r))
        return r;
    return f_mpfr1(c, f, v);
}

static uint32_t f_minmax(const plumb_fpfmt *f, uint32_t a, uint32_t b, bool want_max)
{
    if (f_isnan(f, a))
        return f_quiet(f, a);
    if (f_isnan(f, b))
        return f_quiet(f, b);
    double x = f_val(f, a), y = f_val(f, b);
    if (x == y) {
        bool a_neg = f_has_sign(f) && (a & f_sbit(f));
        return (want_max ? !a_neg : a_neg) ? a : b;
    }
    return ((x > y) == want_max) ? a : b;
}

static uint32_t f_binary(plumb_opcode c, const plumb_fpfmt *f, uint32_t ab, uint32_t bb)
{
    if (c == PLUMB_OP_MAXIMUM || c == PLUMB_OP_MINIMUM)
        return f_minmax(f, ab, bb, c == PLUMB_OP_MAXIMUM);
    double a = f_val(f, ab), b = f_val(f, bb);
    if (c == PLUMB_OP_POWER && ((!f_isnan(f, bb) && b == 0) || (!f_isnan(f, ab) && a == 1)))
        return f_round(f, 1.0);   /* IEEE 754-2019 9.2.1, even for NaN */
    if (f_isnan(f, ab))
        return f_quiet(f, ab);
    if (f_isnan(f, bb))
        return f_quiet(f, bb);
    if (c == PLUMB_OP_NEXT_AFTER)
        return ir_lowp_next_after(f, ab, bb);   /* ir/lowp.c: the format's value set */
    double hi, lo = 0;
    switch (c) {
    case PLUMB_OP_ADD:
    case PLUMB_OP_SUBTRACT:
        if (c == PLUMB_OP_SUBTRACT)
            b = -b;
        hi = a + b;
        if (isfinite(hi)) {
            double bb2 = hi - a;
            lo = (a - (hi - bb2)) + (b - bb2);
        }
        return f_round_odd(f, hi, lo);
    case PLUMB_OP_MULTIPLY:
        return f_round_odd(f, a * b, 0);   /* exact: 2 x <= 5 significant bits */
    case PLUMB_OP_DIVIDE:
        hi = a / b;
        if (isfinite(hi) && hi != 0) {
            double r = fma(-hi, b, a);
            lo = (r == 0) ? 0 : ((r > 0) == (b > 0) ? 1.0 : -1.0);
        }
        return f_round_odd(f, hi, lo);
    case PLUMB_OP_REMAINDER:
        return f_round_odd(f, fmod(a, b), 0);   /* exact */
    default: break;
    }
    uint32_t r;
    double y = c == PLUMB_OP_POWER ? pow(a, b) : atan2(a, b);
    if (f_decide(f, y, &r))
        return r;
    mpfr_t m, x1, x2;
    mpfr_inits2(53, m, x1, x2, (mpfr_ptr)0);
    mpfr_set_d(x1, a, MPFR_RNDN);
    mpfr_set_d(x2, b, MPFR_RNDN);
    int inex = c == PLUMB_OP_POWER ? mpfr_pow(m, x1, x2, MPFR_RNDZ) : mpfr_atan2(m, x1, x2, MPFR_RNDZ);
    r = f_from_mpfr(f, m, inex);
    mpfr_clears(m, x1, x2, (mpfr_ptr)0);
    return r;
}

static bool dir_holds(ir_cmp_dir d, int c)
{
    switch (d) {
    case IR_CMP_EQ: return c == 0;
    case IR_CMP_NE: return c != 0;
    case IR_CMP_LT: return c < 0;
    case IR_CMP_LE: return c <= 0;
    case IR_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static uint32_t f_compare(const plumb_fpfmt *f, ir_cmp_type ty, ir_cmp_dir d, uint32_t a, uint32_t b)
{
    if (ty == IR_CMP_TOTALORDER) {
        uint32_t x = f_total_key(f, a), y = f_total_key(f, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    if (f_isnan(f, a) || f_isnan(f, b))
        return d == IR_CMP_NE;
    double x = f_val(f, a), y = f_val(f, b);
    return dir_holds(d, (x > y) - (x < y));
}

/* ---- sub-byte integers -------------------------------------------------------- */

static uint32_t i_unary(plumb_opcode c, plumb_dtype t, uint32_t xb)
{
    uint32_t w = plumb_dtype_get(t)->bits, m = (1u << w) - 1;
    int64_t x = plumb_subint_value(t, xb);
    switch (c) {
    case PLUMB_OP_ABS: return (uint32_t)plumb_subint_bits(t, x < 0 ? -x : x);
    case PLUMB_OP_NEGATE: return (uint32_t)plumb_subint_bits(t, -x);
    case PLUMB_OP_SIGN: return (uint32_t)plumb_subint_bits(t, (x > 0) - (x < 0));
    case PLUMB_OP_NOT: return ~xb & m;
    case PLUMB_OP_POPCNT: return (uint32_t)__builtin_popcount(xb & m);
    case PLUMB_OP_COUNT_LEADING_ZEROS: {
        uint32_t n = 0;
        for (uint32_t bit = w; bit-- > 0 && !((xb >> bit) & 1);)
            n++;
        return n;
    }
    default: return 0;
    }
}

static uint32_t i_binary(plumb_opcode c, plumb_dtype t, uint32_t ab, uint32_t bb)
{
    uint32_t w = plumb_dtype_get(t)->bits, m = (1u << w) - 1;
    bool sg = plumb_dtype_is_signed(t);
    int64_t a = plumb_subint_value(t, ab), b = plumb_subint_value(t, bb);
    int64_t r;
    switch (c) {
    case PLUMB_OP_ADD: r = a + b; break;
    case PLUMB_OP_SUBTRACT: r = a - b; break;
    case PLUMB_OP_MULTIPLY: r = a * b; break;
    case PLUMB_OP_DIVIDE: r = b == 0 ? -1 : (sg && b == -1) ? -a : a / b; break;
    case PLUMB_OP_REMAINDER: r = b == 0 ? a : (sg && b == -1) ? 0 : a % b; break;
    case PLUMB_OP_POWER:
        if (b < 0) {
            r = a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
        } else {
            r = 1;
            for (int64_t k = 0; k < b; k++)   /* b < 16 */
                r = (int64_t)plumb_subint_value(t, plumb_subint_bits(t, r * a));
        }
        break;
    case PLUMB_OP_MAXIMUM: r = a > b ? a : b; break;
    case PLUMB_OP_MINIMUM: r = a < b ? a : b; break;
    case PLUMB_OP_AND: return ab & bb & m;
    case PLUMB_OP_OR: return (ab | bb) & m;
    case PLUMB_OP_XOR: return (ab ^ bb) & m;
    case PLUMB_OP_SHIFT_LEFT: return (bb & m) >= w ? 0 : (ab << (bb & m)) & m;
    case PLUMB_OP_SHIFT_RIGHT_LOGICAL: return (bb & m) >= w ? 0 : (ab & m) >> (bb & m);
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: {
        /* the w-bit pattern as a signed number, whatever the type's sign */
        int64_t s = (ab >> (w - 1)) & 1 ? (int64_t)(ab & m) - (1ll << w) : (int64_t)(ab & m);
        uint32_t k = bb & m;
        return (uint32_t)((k >= w ? (s < 0 ? -1 : 0) : s >> k) & m);
    }
    default: r = 0; break;
    }
    return (uint32_t)plumb_subint_bits(t, r);
}

static uint32_t i_compare(plumb_dtype t, ir_cmp_type ty, ir_cmp_dir d, uint32_t ab, uint32_t bb)
{
    uint32_t w = plumb_dtype_get(t)->bits, m = (1u << w) - 1;
    int64_t a, b;
    if (ty == IR_CMP_SIGNED || (ty == IR_CMP_TYPE_NONE && plumb_dtype_is_signed(t))) {
        a = (ab >> (w - 1)) & 1 ? (int64_t)(ab & m) - (1ll << w) : (int64_t)(ab & m);
        b = (bb >> (w - 1)) & 1 ? (int64_t)(bb & m) - (1ll << w) : (int64_t)(bb & m);
    } else {
        a = ab & m;
        b = bb & m;
    }
    return dir_holds(d, (a > b) - (a < b));
}

/* ---- tables ------------------------------------------------------------------------ */

#define N_CMP 5
static _Atomic(uint8_t *) g_un[PLUMB_OP_COUNT][PLUMB_DTYPE_COUNT];
static _Atomic(uint8_t *) g_bin[PLUMB_OP_COUNT][PLUMB_DTYPE_COUNT];
static _Atomic(uint8_t *) g_cmp[PLUMB_DTYPE_COUNT][6][N_CMP];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t rt_lowp_scalar1(plumb_opcode c, plumb_dtype t, uint32_t x)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f && c == PLUMB_OP_BESSEL_I1E)
        return (uint32_t)cr_bessel_i1e(t, x);   /* MPFR series, rounded to odd, then the codec */
    return f ? f_unary(c, f, x) : i_unary(c, t, x);
}

uint32_t rt_lowp_scalar2(plumb_opcode c, ir_cmp_type ty, ir_cmp_dir d, plumb_dtype t, uint32_t a, uint32_t b)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (c == PLUMB_OP_COMPARE) {
        if (f)
            return f_compare(f, ty == IR_CMP_TYPE_NONE ? IR_CMP_FLOAT : ty, d, a, b);
        return i_compare(t, ty, d, a, b);
    }
    /* zeta and polygamma: the MPFR evaluation with an error bound
     * (ref/special2.c, as runtime/math_special2.c's slow path), rounded to
     * odd at 53 bits, then once by the codec; a table entry is built once */
    if (f && c == PLUMB_OP_ZETA)
        return (uint32_t)cr_zeta(t, a, b);
    if (f && c == PLUMB_OP_POLYGAMMA)
        return (uint32_t)cr_polygamma(t, a, b);
    return f ? f_binary(c, f, a, b) : i_binary(c, t, a, b);
}

/* The table of (c, t) (compare: and ty, d); NULL when memory runs out. */
static const uint8_t *table(plumb_opcode c, plumb_dtype t, ir_cmp_type ty, ir_cmp_dir d, bool binary)
{
    _Atomic(uint8_t *) *slot = c == PLUMB_OP_COMPARE ? &g_cmp[t][d][ty] : binary ? &g_bin[c][t] : &g_un[c][t];
    uint8_t *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p)
        return p;
    pthread_mutex_lock(&g_lock);
    p = atomic_load_explicit(slot, memory_order_relaxed);
    if (!p) {
        uint32_t w = plumb_dtype_get(t)->bits, n = 1u << w;
        size_t size = binary ? (size_t)n * n : n;
        /* kept for the life of the process: one per (op, type) at most */
        p = malloc(size);
        if (p) {
            for (uint32_t a = 0; a < n; a++) {
                if (!binary) {
                    p[a] = (uint8_t)rt_lowp_scalar1(c, t, a);
                    continue;
                }
                for (uint32_t b = 0; b < n; b++)
                    p[(a << w) | b] = (uint8_t)rt_lowp_scalar2(c, ty, d, t, a, b);
            }
            atomic_store_explicit(slot, p, memory_order_release);
        }
    }
    pthread_mutex_unlock(&g_lock);
    return p;
}

const uint8_t *rt_lowp_table2(plumb_opcode c, plumb_dtype t)
{
    return table(c, t, IR_CMP_TYPE_NONE, IR_CMP_EQ, true);
}

static _Atomic(float *) g_widen[PLUMB_DTYPE_COUNT];

const float *rt_lowp_f32_table(plumb_dtype t)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (!f)
        return NULL;
    float *p = atomic_load_explicit(&g_widen[t], memory_order_acquire);
    if (p)
        return p;
    pthread_mutex_lock(&g_lock);
    p = atomic_load_explicit(&g_widen[t], memory_order_relaxed);
    if (!p && (p = malloc(256 * sizeof *p))) {
        /* every value of the format is an f32 (f8E8M0FNU's 2^-127 a
         * subnormal one); the patterns above the width read as their low
         * bits, which the loaders never produce */
        for (uint32_t b = 0; b < 256; b++)
            p[b] = (float)plumb_small_to_f64(f, b & ((1u << f->bits) - 1));
        atomic_store_explicit(&g_widen[t], p, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
    return p;
}

/* ---- kernels ------------------------------------------------------------------------ */

typedef struct lowp_job {
    plumb_opcode code;
    uint32_t w, n_in;
    uint8_t mask;
    const uint8_t *in[3];
    bool bc[3];                 /* a one-element operand (select's predicate, clamp's bounds) */
    const uint8_t *t1, *t2;     /* the op's table; clamp: maximum then minimum */
    uint8_t *out;
} lowp_job;

static void lowp_range(void *ctx, uint64_t b, uint64_t e, uint32_t chunk)
{
    (void)chunk;
    const lowp_job *j = ctx;
    const uint8_t m = j->mask, *t1 = j->t1, *t2 = j->t2;
    const uint8_t *x = j->in[0], *y = j->in[1], *z = j->in[2];
    const uint32_t w = j->w;
    uint8_t *o = j->out;
    if (j->code == PLUMB_OP_SELECT) {
        for (uint64_t i = b; i < e; i++)
            o[i] = (x[j->bc[0] ? 0 : i] & 1) ? y[i] : z[i];
    } else if (j->code == PLUMB_OP_CLAMP) {
        for (uint64_t i = b; i < e; i++) {
            uint8_t lo = x[j->bc[0] ? 0 : i] & m, hi = z[j->bc[2] ? 0 : i] & m;
            uint8_t r = t1[((uint32_t)(y[i] & m) << w) | lo];
            o[i] = t2[((uint32_t)r << w) | hi];
        }
    } else if (j->n_in == 1) {
        for (uint64_t i = b; i < e; i++)
            o[i] = t1[x[i] & m];
    } else if (w == 8) {
        for (uint64_t i = b; i < e; i++)
            o[i] = t1[((uint32_t)x[i] << 8) | y[i]];
    } else {
        for (uint64_t i = b; i < e; i++)
            o[i] = t1[((uint32_t)(x[i] & m) << w) | (y[i] & m)];
    }
}

bool rt_lowp_run(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_opcode c = plumb_op_semantic(op->code);   /* chlo.tan takes tan's tables */
    uint32_t n_in = op->n_operands;
    if (n_in != (uint32_t)plumb_op_get(c)->arity || op->n_results != 1 || n_in > 3)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s: wrong number of operands or results", plumb_op_name(op->code));
    plumb_dtype t = in[c == PLUMB_OP_SELECT || c == PLUMB_OP_CLAMP ? 1 : 0]->dtype;
    if (!plumb_dtype_is_lowp(t) || !ir_lowp_accepts(c, t))
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "%s: element type %s is not supported",
                       plumb_op_name(op->code), plumb_dtype_name(t));
    uint64_t n = plumb_tensor_numel(out[0]);
    lowp_job j = {.code = c, .n_in = n_in, .out = out[0]->data};
    uint8_t rp_tab[256];
    j.w = plumb_dtype_get(t)->bits;
    j.mask = (uint8_t)((1u << j.w) - 1);
    for (uint32_t k = 0; k < n_in; k++) {
        uint64_t have = plumb_tensor_numel(in[k]);
        bool scalar_ok = (c == PLUMB_OP_SELECT && k == 0) || (c == PLUMB_OP_CLAMP && k != 1);
        if (have != n && !(scalar_ok && have == 1))
            return rt_fail(x, op, PLUMB_ERR_INVALID, "%s: operand %u has %llu elements but the result has %llu",
                           plumb_op_name(op->code), k, (unsigned long long)have, (unsigned long long)n);
        j.in[k] = in[k]->data;
        j.bc[k] = have == 1 && n != 1;
    }
    ir_cmp_type ty = op->a.cmp_type;
    if (c == PLUMB_OP_COMPARE) {
        bool fl = plumb_fpfmt_get(t) != NULL;
        if (ty == IR_CMP_TYPE_NONE)
            ty = fl ? IR_CMP_FLOAT : plumb_dtype_is_signed(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
        if ((ty == IR_CMP_FLOAT || ty == IR_CMP_TOTALORDER) != fl)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "compare: the comparison type does not apply to %s",
                           plumb_dtype_name(t));
    }
    if ((c == PLUMB_OP_ZETA || c == PLUMB_OP_POLYGAMMA) && plumb_fpfmt_get(t)) {
        /* per element, no table: an entry costs up to milliseconds of MPFR
         * (a far negative q), so a 2^16-entry table would cost seconds
         * however few elements the program has */
        const uint8_t *a = j.in[0], *b = j.in[1];
        for (uint64_t i = 0; i < n; i++)
            j.out[i] = (uint8_t)rt_lowp_scalar2(c, IR_CMP_TYPE_NONE, IR_CMP_EQ, t, a[j.bc[0] ? 0 : i] & j.mask,
                                               b[j.bc[1] ? 0 : i] & j.mask);
        return true;
    }
    if (c == PLUMB_OP_CLAMP) {
        j.t1 = table(PLUMB_OP_MAXIMUM, t, 0, 0, true);
        j.t2 = table(PLUMB_OP_MINIMUM, t, 0, 0, true);
        if (!j.t1 || !j.t2)
            return rt_fail(x, op, PLUMB_ERR_NOMEM, "clamp: out of memory for the %s tables", plumb_dtype_name(t));
    } else if (c == PLUMB_OP_REDUCE_PRECISION) {
        /* one table per run: (exponent_bits, mantissa_bits) are the op's, and
         * 2^bits entries cost less than caching them per pair */
        const plumb_fpfmt *f = plumb_fpfmt_get(t);
        int eb = op->a.exponent_bits, mb = op->a.mantissa_bits;
        if (eb < 1 || mb < 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "reduce_precision: exponent_bits = %d must be >= 1 and "
                           "mantissa_bits = %d >= 0", eb, mb);
        for (uint32_t a = 0; a < (1u << j.w); a++)
            rp_tab[a] = (uint8_t)ir_lowp_reduce_precision(f, a, eb, mb);   /* ir/lowp.c */
        j.t1 = rp_tab;
    } else if (c != PLUMB_OP_SELECT) {
        j.t1 = table(c, t, ty, op->a.cmp_dir, n_in == 2);
        if (!j.t1)
            return rt_fail(x, op, PLUMB_ERR_NOMEM, "%s: out of memory for the %s table", plumb_op_name(op->code),
                           plumb_dtype_name(t));
    }
    if (n)
        rt_parallel_for(x, n, LOWP_GRAIN, lowp_range, &j);
    return true;
}
