/* Runtime kernels of the elementwise ops (docs/spec/elementwise.md states
 * the semantics; docs/runtime-math.md the numerics of the fast paths).
 *
 * One element engine (ew_run) serves both the whole-tensor kernels
 * rt_op_<OP> (split over the thread pool with rt_parallel_for; every
 * element is computed independently, so the split never changes a bit) and
 * the fused executor's rt_ew_tile, so the two agree bit for bit.
 *
 * Fast paths: f32 add/subtract/multiply/divide/maximum/minimum and FLOAT
 * compare, select of every element width and the f32 transcendentals
 * (runtime/math_*.c) are vectorized per ISA at its native width; f16
 * and bf16 transcendentals run the f32 function on the exactly widened
 * operand and round its result once to the narrow type (the f32 result is
 * within the f32 bound, far below half a narrow ULP, so the narrow result
 * is within 1 ULP). f64 transcendentals use the C library's long double
 * functions (64-bit significand) and one rounding to double. Everything
 * else works on bit patterns element by element, with integer arithmetic
 * in uint64_t modulo 2^64 (never signed overflow). */
#include <math.h>
#include <string.h>

#include "plumb/fp8.h"
#include "rt_internal.h"
#include "rt_math.h"

#define EW_GRAIN 16384u   /* elements per parallel chunk at least */
#define EW_BLOCK 256u     /* f16/bf16 elements widened to f32 at a time */

typedef struct ew {
    const ir_op *op;
    plumb_opcode code;
    plumb_isa isa;
    plumb_dtype t;          /* element type of the primary operand */
    plumb_dtype rt;         /* element type of the result */
    uint32_t n_in;
    const uint8_t *in[3];
    plumb_dtype in_t[3];
    bool bc[3];             /* operand is one element for the whole tensor */
    uint8_t *out;
} ew;

/* ---- bit helpers ------------------------------------------------------------ */

static unsigned width(plumb_dtype t) { return plumb_dtype_get(t)->bits; }
static uint64_t mask_of(plumb_dtype t) { unsigned w = width(t); return w >= 64 ? ~0ull : (1ull << w) - 1; }
static uint64_t sign_bit(plumb_dtype t) { return 1ull << (width(t) - 1); }
static bool is_float(plumb_dtype t) { return plumb_dtype_is_float(t); }
static bool is_sint(plumb_dtype t) { return plumb_dtype_is_signed(t); }
static bool is_bool(plumb_dtype t) { return plumb_dtype_is_bool(t); }

static int64_t sext(plumb_dtype t, uint64_t b)
{
    unsigned w = width(t);
    if (w >= 64)
        return (int64_t)b;
    uint64_t m = 1ull << (w - 1);
    b &= (1ull << w) - 1;
    return (b & m) ? -(int64_t)((m << 1) - b) : (int64_t)b;
}

static uint64_t exp_mask(plumb_dtype t)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    return ((1ull << d->exp_bits) - 1) << d->mant_bits;
}
static bool f_isnan(plumb_dtype t, uint64_t b)
{
    return (b & exp_mask(t)) == exp_mask(t) && (b & ((1ull << plumb_dtype_get(t)->mant_bits) - 1));
}
static bool f_inf_or_nan(plumb_dtype t, uint64_t b) { return (b & exp_mask(t)) == exp_mask(t); }
static bool f_iszero(plumb_dtype t, uint64_t b) { return (b & mask_of(t) & ~sign_bit(t)) == 0; }
static uint64_t f_quiet(plumb_dtype t, uint64_t b) { return b | (1ull << (plumb_dtype_get(t)->mant_bits - 1)); }
static uint64_t f_default_nan(plumb_dtype t) { return exp_mask(t) | (1ull << (plumb_dtype_get(t)->mant_bits - 1)); }

static double f_to_d(plumb_dtype t, uint64_t b)
{
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)b);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)b);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)b);
    default: return plumb_f64_from_bits(b);
    }
}

/* One rounding of a double to t. */
static uint64_t d_to_f(plumb_dtype t, double x)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);
    default: return plumb_f64_bits(x);
    }
}

/* hi + (a residual of sign lo) rounded once to t by way of hi rounded to
 * odd at 53 bits (exact for targets of <= 51 bits: Boldo & Melquiond 2008). */
static uint64_t round_odd(plumb_dtype t, double hi, double lo)
{
    if (lo != 0 && (plumb_f64_bits(hi) & 1) == 0)
        hi = nextafter(hi, lo > 0 ? INFINITY : -INFINITY);
    return d_to_f(t, hi);
}

static uint64_t ld(plumb_dtype t, const uint8_t *p, size_t i) { return plumb_load_bits(t, p, i); }
static void st(plumb_dtype t, uint8_t *p, size_t i, uint64_t v) { plumb_store_bits(t, p, i, v & mask_of(t)); }

/* ---- float arithmetic (exact class) -------------------------------------------- */

/* NaN rule of every float op: a NaN operand gives it quieted (the first of
 * two); an invalid operation gives the positive default NaN. */
static uint64_t nan2(plumb_dtype t, uint64_t a, uint64_t b)
{
    return f_isnan(t, a) ? f_quiet(t, a) : f_isnan(t, b) ? f_quiet(t, b) : f_default_nan(t);
}

static uint64_t farith(plumb_opcode code, plumb_dtype t, uint64_t ab, uint64_t bb)
{
    if (f_isnan(t, ab) || f_isnan(t, bb))
        return nan2(t, ab, bb);
    double a = f_to_d(t, ab), b = f_to_d(t, bb), hi = 0, lo = 0;
    if (t == PLUMB_F32) {
        float x = (float)a, y = (float)b, r;
        switch (code) {
        case PLUMB_OP_ADD: r = x + y; break;
        case PLUMB_OP_SUBTRACT: r = x - y; break;
        case PLUMB_OP_MULTIPLY: r = x * y; break;
        case PLUMB_OP_DIVIDE: r = x / y; break;
        default: r = fmodf(x, y); break;
        }
        return isnan(r) ? f_default_nan(t) : plumb_f32_bits(r);
    }
    if (t == PLUMB_F64) {
        double r;
        switch (code) {
        case PLUMB_OP_ADD: r = a + b; break;
        case PLUMB_OP_SUBTRACT: r = a - b; break;
        case PLUMB_OP_MULTIPLY: r = a * b; break;
        case PLUMB_OP_DIVIDE: r = a / b; break;
        default: r = fmod(a, b); break;
        }
        return isnan(r) ? f_default_nan(t) : plumb_f64_bits(r);
    }
    switch (code) {
    case PLUMB_OP_ADD:
    case PLUMB_OP_SUBTRACT:
        if (code == PLUMB_OP_SUBTRACT)
            b = -b;
        hi = a + b;
        if (isfinite(hi)) {                 /* TwoSum: lo is the exact error */
            double bb2 = hi - a;
            lo = (a - (hi - bb2)) + (b - bb2);
        }
        break;
    case PLUMB_OP_MULTIPLY:
        hi = a * b;                          /* <= 22 significant bits: exact */
        break;
    case PLUMB_OP_DIVIDE:
        hi = a / b;
        if (isfinite(hi) && hi != 0) {
            double r = fma(-hi, b, a);       /* exact residual */
            lo = r == 0 ? 0 : ((r > 0) == (b > 0) ? 1.0 : -1.0);
        }
        break;
    default:
        hi = fmod(a, b);                     /* exact */
        break;
    }
    if (isnan(hi))
        return f_default_nan(t);
    return round_odd(t, hi, lo);
}

static uint64_t fsqrt(plumb_dtype t, uint64_t xb)
{
    if (f_isnan(t, xb))
        return f_quiet(t, xb);
    double x = f_to_d(t, xb);
    if (t == PLUMB_F32) {
        float r = sqrtf((float)x);
        return isnan(r) ? f_default_nan(t) : plumb_f32_bits(r);
    }
    double hi = sqrt(x), lo = 0;
    if (isnan(hi))
        return f_default_nan(t);
    if (t == PLUMB_F64)
        return plumb_f64_bits(hi);
    if (isfinite(hi) && hi != 0) {
        double r = fma(-hi, hi, x);
        lo = (r > 0) - (r < 0);
    }
    return round_odd(t, hi, lo);
}

/* ---- f64 transcendentals: long double, one rounding ------------------------------ */

static uint64_t f64_unary(plumb_opcode code, uint64_t xb)
{
    if (f_isnan(PLUMB_F64, xb))
        return f_quiet(PLUMB_F64, xb);
    long double x = plumb_f64_from_bits(xb), r;
    switch (code) {
    case PLUMB_OP_RSQRT:
        if (x == 0)
            return plumb_f64_bits(signbit(x) ? -INFINITY : INFINITY);
        r = 1.0L / sqrtl(x);
        break;
    case PLUMB_OP_CBRT: r = cbrtl(x); break;
    case PLUMB_OP_EXPONENTIAL: r = expl(x); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: r = expm1l(x); break;
    case PLUMB_OP_LOG: r = logl(x); break;
    case PLUMB_OP_LOG_PLUS_ONE: r = log1pl(x); break;
    case PLUMB_OP_LOGISTIC: r = 1.0L / (1.0L + expl(-x)); break;
    case PLUMB_OP_TANH: r = tanhl(x); break;
    case PLUMB_OP_SINE: r = sinl(x); break;
    case PLUMB_OP_COSINE: r = cosl(x); break;
    case PLUMB_OP_TAN: r = tanl(x); break;
    default: r = erfl(x); break;
    }
    if (isnan(r))
        return f_default_nan(PLUMB_F64);
    return rt_math_narrow_ld(code, r, RT_MATH_LDERR, (double)x, 0);
}

static uint64_t f64_binary(plumb_opcode code, uint64_t ab, uint64_t bb)
{
    long double a = plumb_f64_from_bits(ab), b = plumb_f64_from_bits(bb), r;
    if (code == PLUMB_OP_POWER) {
        /* IEEE 754-2019 9.2.1: pow(x, +-0) = pow(+1, y) = 1, even for NaN */
        if ((!f_isnan(PLUMB_F64, bb) && b == 0) || (!f_isnan(PLUMB_F64, ab) && a == 1))
            return plumb_f64_bits(1.0);
    }
    if (f_isnan(PLUMB_F64, ab) || f_isnan(PLUMB_F64, bb))
        return nan2(PLUMB_F64, ab, bb);
    r = code == PLUMB_OP_POWER ? powl(a, b) : atan2l(a, b);
    if (isnan(r))
        return f_default_nan(PLUMB_F64);
    return rt_math_narrow_ld(code, r, RT_MATH_LDERR, (double)a, (double)b);
}

/* ---- CHLO's unary math: one wider evaluation and one rounding per element -----------
 * acos, asin, atan, acosh, asinh, atanh, cosh, sinh, erfc and lgamma run the
 * C library's function per element: in double for f16, bf16 and f32 results
 * (glibc documents these within a few units of 2^-53; RT_CHLO_DERR allows
 * 2^-44 relative), in long double for f64 results (RT_MATH_LDERR), then one
 * rounding to the type, through rt_math_narrow so that subnormal, zero and
 * overflowing results are exact. Elsewhere the result is within 1 ULP of
 * the correctly rounded one (docs/runtime-math.md has the measured errors).
 * digamma has no C library function: digamma_round evaluates it in long
 * double with a proven error bound and rounds it correctly (MPFR when the
 * bound cannot decide). lgamma_r/lgammal_r, not lgamma: the
 * latter writes the global signgam from every pool thread. */
#define RT_CHLO_DERR 0x1p-44

static bool is_chlo_unary(plumb_opcode c)
{
    switch (c) {
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH:
    case PLUMB_OP_ASINH: case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH:
    case PLUMB_OP_ERFC: case PLUMB_OP_LGAMMA: case PLUMB_OP_DIGAMMA: case PLUMB_OP_ERF_INV:
        return true;
    default:
        return false;
    }
}

static double chlo_d(plumb_opcode code, double x)
{
    int sg;
    switch (code) {
    case PLUMB_OP_ACOS: return acos(x);
    case PLUMB_OP_ASIN: return asin(x);
    case PLUMB_OP_ATAN: return atan(x);
    case PLUMB_OP_ACOSH: return acosh(x);
    case PLUMB_OP_ASINH: return asinh(x);
    case PLUMB_OP_ATANH: return atanh(x);
    case PLUMB_OP_COSH: return cosh(x);
    case PLUMB_OP_SINH: return sinh(x);
    case PLUMB_OP_ERFC: return erfc(x);
    default: return lgamma_r(x, &sg);
    }
}

static long double chlo_ld(plumb_opcode code, long double x)
{
    int sg;
    switch (code) {
    case PLUMB_OP_ACOS: return acosl(x);
    case PLUMB_OP_ASIN: return asinl(x);
    case PLUMB_OP_ATAN: return atanl(x);
    case PLUMB_OP_ACOSH: return acoshl(x);
    case PLUMB_OP_ASINH: return asinhl(x);
    case PLUMB_OP_ATANH: return atanhl(x);
    case PLUMB_OP_COSH: return coshl(x);
    case PLUMB_OP_SINH: return sinhl(x);
    case PLUMB_OP_ERFC: return erfcl(x);
    default: return lgammal_r(x, &sg);
    }
}

/* digamma(x) in long double (x87: 64-bit significand) for x not NaN, with
 * *mag the sum of the magnitudes of every term added, which bounds the
 * rounding error. With u = 2^-64: each of the <= 17 terms (16 reciprocals
 * of the recurrence, at 0.5u each plus ~1.6u from a rounded x + 1; logl's
 * and tanl's few u; pi cot's argument pi r at 1u) is within 4u of its own
 * magnitude, and each of the <= 19 additions adds <= u * mag, so
 * |result - exact| <= 23u (mag + 1) < 2^-58 (mag + 1); the + 1 covers the
 * absolute error of pi * cot where cot is small (~10u). Method:
 *  - x < 0: reflection psi(x) = psi(1 - x) - pi cot(pi x), with
 *    r = x - nearest integer (exact) so that cot(pi r) is accurate; NaN at
 *    the negative integers (r = 0);
 *  - 0 < x < 16: psi(x) = psi(x + n) - sum 1/(x + k) up to x + n >= 16;
 *  - y >= 16: psi(y) = ln y - 1/(2y) - sum_{k=1..8} B_2k / (2k y^2k); the
 *    first omitted term, B_18/(18 y^18) < 2^-66, is below the rounding
 *    error. */
static long double digamma_ld(long double x, long double *mag)
{
    long double acc = 0, m = 0;
    if (x < 0) {
        long double r = x - nearbyintl(x);
        if (r == 0) {
            *mag = 0;
            return NAN;
        }
        long double c = 3.14159265358979323846264338327950288L / tanl(3.14159265358979323846264338327950288L * r);
        acc = -c;
        m = fabsl(c);
        x = 1 - x;
    }
    for (; x < 16; x += 1) {
        long double t = 1 / x;
        acc -= t;
        m += fabsl(t);
    }
    long double z = 1 / (x * x);
    long double series =
        z * (1.0L / 12 -
             z * (1.0L / 120 -
                  z * (1.0L / 252 -
                       z * (1.0L / 240 -
                            z * (1.0L / 132 - z * (691.0L / 32760 - z * (1.0L / 12 - z * (3617.0L / 8160))))))));
    long double l = logl(x), h = 0.5L / x;
    acc += l - h - series;
    m += fabsl(l) + h + series;
    *mag = m;
    return acc;
}

/* digamma rounded once to t: the long double value decides the rounding
 * whenever [v - e, v + e] (e from digamma_ld's bound) rounds to one value
 * of t, which is then the correctly rounded result (Ziv's strategy). For
 * f16, bf16 and f32 that is nearly every input; otherwise (near the zeros
 * of digamma, where the terms cancel) MPFR decides, so those results are
 * always correctly rounded. For f64 the interval straddles a rounding
 * boundary of double for ~8% of inputs; there, when e <= 2^-54 |v| (so
 * e <= half an ULP of v) and the result is finite, v rounded once is within
 * 0.5 ULP + e <= 1 ULP of the exact value, hence within 1 ULP of the
 * correctly rounded one (the op's bound), and is returned; only the
 * cancelling and overflowing inputs take MPFR (about 250 us each). */
static uint64_t digamma_round(plumb_dtype t, double x)
{
    if (x == 0)   /* the one-sided limits at the pole: digamma(+-0) = -+inf */
        return d_to_f(t, signbit(x) ? INFINITY : -INFINITY);
    if (isinf(x))
        return x > 0 ? d_to_f(t, INFINITY) : f_default_nan(t);
    long double m, v = digamma_ld(x, &m);
    if (isnan(v))
        return f_default_nan(t);
    long double e = (m + 1) * 0x1p-58L;
    if (t == PLUMB_F64) {
        double lo = (double)(v - e), hi = (double)(v + e), r = (double)v;
        if (plumb_f64_bits(lo) == plumb_f64_bits(hi))
            return plumb_f64_bits(lo);
        if (e <= fabsl(v) * 0x1p-54L && fabs(r) < 0x1.FFFFFFFFFFFFFp1023)
            return plumb_f64_bits(r);
    } else {
        /* v +- e to double is exact enough: its own rounding (2^-53) is
         * covered by taking the ends outward once more */
        double lo = (double)(v - e), hi = (double)(v + e);
        lo -= fabs(lo) * 0x1p-52;
        hi += fabs(hi) * 0x1p-52;
        uint64_t a = d_to_f(t, lo), b = d_to_f(t, hi);
        if (a == b)
            return a;
    }
    uint64_t r = rt_math_slow(PLUMB_OP_DIGAMMA, t, x, 0);
    return f_isnan(t, r) ? f_default_nan(t) : r;
}

static uint64_t chlo_unary(plumb_opcode code, plumb_dtype t, uint64_t xb)
{
    if (f_isnan(t, xb))
        return f_quiet(t, xb);
    if (code == PLUMB_OP_ERF_INV)   /* runtime/math_erfinv.c */
        return rt_erf_inv(t, xb);
    double x = f_to_d(t, xb);
    if (code == PLUMB_OP_DIGAMMA)
        return digamma_round(t, x);
    if (t == PLUMB_F64) {
        long double r = chlo_ld(code, x);
        if (isnan(r))
            return f_default_nan(t);
        return rt_math_narrow_ld(code, r, RT_MATH_LDERR, x, 0);
    }
    double r = chlo_d(code, x);
    if (isnan(r))
        return f_default_nan(t);
    return rt_math_narrow(code, t, r, RT_CHLO_DERR, x, 0);
}

/* chlo.next_after on bit patterns, as ref/elementwise.c: NaN operands
 * quieted (x's first), y when x == y, the smallest subnormal of y's sign
 * from +-0, else one step of the sign-magnitude pattern. */
static uint64_t next_after(plumb_dtype t, uint64_t a, uint64_t b)
{
    if (f_isnan(t, a))
        return f_quiet(t, a);
    if (f_isnan(t, b))
        return f_quiet(t, b);
    double x = f_to_d(t, a), y = f_to_d(t, b);
    if (x == y)
        return b;
    if (f_iszero(t, a))
        return (b & sign_bit(t)) | 1;
    return ((x < y) == (x > 0)) ? a + 1 : a - 1;
}

static bool is_vmath_unary(plumb_opcode c)
{
    switch (c) {
    case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_ERF:
        return true;
    default:
        return false;
    }
}

/* ---- exact-class element functions on bit patterns -------------------------------- */

enum rnd { RD_FLOOR, RD_CEIL, RD_EVEN, RD_AFZ };

static uint64_t round_int(plumb_dtype t, uint64_t x, enum rnd r)
{
    if (f_isnan(t, x))
        return f_quiet(t, x);
    double v = f_to_d(t, x), y;
    switch (r) {
    case RD_FLOOR: y = floor(v); break;
    case RD_CEIL: y = ceil(v); break;
    case RD_AFZ: y = round(v); break;
    default:
        y = floor(v);
        if (v - y > 0.5 || (v - y == 0.5 && fmod(y, 2.0) != 0))
            y += 1;
        y = copysign(y, v);
        break;
    }
    return d_to_f(t, y);
}

static uint64_t minmax(plumb_dtype t, uint64_t a, uint64_t b, bool want_max)
{
    if (is_float(t)) {
        if (f_isnan(t, a))
            return f_quiet(t, a);
        if (f_isnan(t, b))
            return f_quiet(t, b);
        double x = f_to_d(t, a), y = f_to_d(t, b);
        if (x == y) {
            bool a_neg = (a & sign_bit(t)) != 0;
            return (want_max ? !a_neg : a_neg) ? a : b;
        }
        return ((x > y) == want_max) ? a : b;
    }
    bool a_gt = is_sint(t) ? sext(t, a) > sext(t, b) : (a & mask_of(t)) > (b & mask_of(t));
    return (a_gt == want_max) ? a : b;
}

/* As ref/elementwise.c: a NaN stays itself unless mantissa_bits = 0, where
 * it becomes +inf (the reduced format has no NaN). */
static uint64_t reduce_precision(plumb_dtype t, uint64_t x, int eb, int mb)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    int smant = (int)d->mant_bits, sexp = (int)d->exp_bits;
    if (f_isnan(t, x))
        return mb > 0 ? x : exp_mask(t);
    uint64_t v = x, m = mask_of(t);
    if (mb < smant) {
        int s = smant - mb;
        uint64_t last = 1ull << s;
        v = ((v + ((v & last) >> s) + ((last >> 1) - 1)) & ~(last - 1)) & m;
    }
    if (eb < sexp) {
        uint64_t em = exp_mask(t), bias = (1ull << (sexp - 1)) - 1, rb = (1ull << (eb - 1)) - 1;
        uint64_t xe = v & em;
        if (xe > ((bias + rb) << smant))
            v = (v & sign_bit(t)) | em;
        else if (xe <= ((bias - rb) << smant))
            v = v & sign_bit(t);
    }
    return v;
}

static uint64_t ipow(plumb_dtype t, uint64_t a, uint64_t b)
{
    uint64_t e = b & mask_of(t);
    if (is_sint(t)) {
        int64_t y = sext(t, b), x = sext(t, a);
        if (y < 0)
            return x == 1 ? 1 : x == -1 ? ((y & 1) ? ~0ull : 1) : 0;
        e = (uint64_t)y;
    }
    uint64_t r = 1, base = a;
    while (e) {
        if (e & 1)
            r *= base;
        base *= base;
        e >>= 1;
    }
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

static ir_cmp_type cmp_type_of(const ir_op *op, plumb_dtype t)
{
    ir_cmp_type ty = op->a.cmp_type;
    if (ty == IR_CMP_TYPE_NONE)
        ty = is_float(t) ? IR_CMP_FLOAT : is_sint(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
    return ty;
}

static uint64_t compare(plumb_dtype t, ir_cmp_type ty, ir_cmp_dir d, uint64_t a, uint64_t b)
{
    switch (ty) {
    case IR_CMP_FLOAT: {
        if (f_isnan(t, a) || f_isnan(t, b))
            return d == IR_CMP_NE;
        double x = f_to_d(t, a), y = f_to_d(t, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    case IR_CMP_TOTALORDER: {
        uint64_t m = mask_of(t);
        a &= m;
        b &= m;
        uint64_t x = (a & sign_bit(t)) ? (~a & m) : (a | sign_bit(t));
        uint64_t y = (b & sign_bit(t)) ? (~b & m) : (b | sign_bit(t));
        return dir_holds(d, (x > y) - (x < y));
    }
    case IR_CMP_WEAKORDER: {   /* every NaN equal and above +inf, -0 == +0 (ref/elementwise.c) */
        bool na = f_isnan(t, a), nb = f_isnan(t, b);
        if (na || nb)
            return dir_holds(d, (int)na - (int)nb);
        double x = f_to_d(t, a), y = f_to_d(t, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    case IR_CMP_SIGNED: {
        int64_t x = is_bool(t) ? (int64_t)(a & 1) : sext(t, a), y = is_bool(t) ? (int64_t)(b & 1) : sext(t, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    default: {
        uint64_t x = a & mask_of(t), y = b & mask_of(t);
        return dir_holds(d, (x > y) - (x < y));
    }
    }
}

static uint64_t int_to_float(plumb_dtype dst, bool neg, uint64_t mag)
{
    if (dst == PLUMB_F64) {
        double d = (double)mag;
        return plumb_f64_bits(neg ? -d : d);
    }
    if (dst == PLUMB_F32) {
        float f = (float)mag;
        return plumb_f32_bits(neg ? -f : f);
    }
    double d;
    if (mag < (1ull << 53)) {
        d = (double)mag;
    } else {   /* round to odd at 53 bits, then once to the target */
        int shift = 64 - __builtin_clzll(mag) - 53;
        uint64_t kept = mag >> shift;
        if (mag & ((1ull << shift) - 1))
            kept |= 1;
        d = ldexp((double)kept, shift);
    }
    return d_to_f(dst, neg ? -d : d);
}

static uint64_t float_to_int(plumb_dtype dst, double x)
{
    if (isnan(x))
        return 0;
    double t = trunc(x);
    unsigned w = width(dst);
    if (is_sint(dst)) {
        if (t < -ldexp(1.0, (int)w - 1))
            return 1ull << (w - 1);
        if (t >= ldexp(1.0, (int)w - 1))
            return (1ull << (w - 1)) - 1;
        return (uint64_t)(int64_t)t;
    }
    if (t < 0)
        return 0;
    if (t >= ldexp(1.0, (int)w))
        return mask_of(dst);
    return (uint64_t)t;
}

static uint64_t convert(plumb_dtype src, plumb_dtype dst, uint64_t x)
{
    if (plumb_dtype_is_lowp(src) || plumb_dtype_is_lowp(dst))   /* ir/fp8.c */
        return plumb_lowp_convert_bits(src, dst, x);
    if (is_bool(dst))
        return is_float(src) ? (f_isnan(src, x) || !f_iszero(src, x)) : (x & mask_of(src)) != 0;
    if (is_float(src)) {
        if (is_float(dst)) {
            if (f_isnan(src, x) && src == PLUMB_F64)
                return d_to_f(dst, plumb_f64_from_bits(x));
            return d_to_f(dst, f_to_d(src, x));
        }
        return float_to_int(dst, f_to_d(src, x));
    }
    bool neg = false;
    uint64_t mag;
    if (is_bool(src)) {
        mag = x != 0;
    } else if (is_sint(src)) {
        int64_t v = sext(src, x);
        neg = v < 0;
        mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    } else {
        mag = x & mask_of(src);
    }
    if (is_float(dst))
        return int_to_float(dst, neg, mag);
    return neg ? 0 - mag : mag;
}

/* One element of every op the fast paths do not take. */
static uint64_t elem(const ew *e, uint64_t a, uint64_t b, uint64_t c)
{
    plumb_dtype t = e->t;
    unsigned w = width(t);
    switch (e->code) {
    case PLUMB_OP_ABS:
        if (is_float(t))
            return a & ~sign_bit(t);
        return is_sint(t) && sext(t, a) < 0 ? 0 - a : a;
    case PLUMB_OP_NEGATE:
        return is_float(t) ? a ^ sign_bit(t) : 0 - a;
    case PLUMB_OP_CONJ: return a;   /* a float is its own conjugate; complex runs in k_complex.c */
    case PLUMB_OP_SIGN:
        if (is_float(t)) {
            if (f_isnan(t, a))
                return f_quiet(t, a);
            if (f_iszero(t, a))
                return a;
            return d_to_f(t, (a & sign_bit(t)) ? -1.0 : 1.0);
        }
        if (is_sint(t))
            return sext(t, a) < 0 ? ~0ull : sext(t, a) > 0;
        return (a & mask_of(t)) != 0;
    case PLUMB_OP_FLOOR: return round_int(t, a, RD_FLOOR);
    case PLUMB_OP_CEIL: return round_int(t, a, RD_CEIL);
    case PLUMB_OP_ROUND_NEAREST_EVEN: return round_int(t, a, RD_EVEN);
    case PLUMB_OP_ROUND_NEAREST_AFZ: return round_int(t, a, RD_AFZ);
    case PLUMB_OP_SQRT: return fsqrt(t, a);
    case PLUMB_OP_IS_FINITE: return !f_inf_or_nan(t, a);
    case PLUMB_OP_IS_INF: return f_inf_or_nan(t, a) && !f_isnan(t, a);
    case PLUMB_OP_IS_POS_INF: return f_inf_or_nan(t, a) && !f_isnan(t, a) && !(a & sign_bit(t));
    case PLUMB_OP_IS_NEG_INF: return f_inf_or_nan(t, a) && !f_isnan(t, a) && (a & sign_bit(t));
    case PLUMB_OP_SQUARE: return farith(PLUMB_OP_MULTIPLY, t, a, a);
    case PLUMB_OP_NEXT_AFTER: return next_after(t, a, b);
    case PLUMB_OP_MULHI: return rt_mulhi(t, a, b);   /* k_ew_int.c */
    case PLUMB_OP_BESSEL_I1E: case PLUMB_OP_ZETA: case PLUMB_OP_POLYGAMMA:
        return rt_special2(e->code, t, a, b);   /* runtime/math_special2.c */
    case PLUMB_OP_NOT: return is_bool(t) ? (a & 1) == 0 : ~a;
    case PLUMB_OP_POPCNT: return (uint64_t)__builtin_popcountll(a & mask_of(t));
    case PLUMB_OP_COUNT_LEADING_ZEROS:
        a &= mask_of(t);
        return a == 0 ? w : (uint64_t)(__builtin_clzll(a) - (64 - (int)w));
    case PLUMB_OP_REDUCE_PRECISION:
        return reduce_precision(t, a, e->op->a.exponent_bits, e->op->a.mantissa_bits);
    case PLUMB_OP_ADD:
        if (is_float(t))
            return farith(e->code, t, a, b);
        return is_bool(t) ? ((a | b) & 1) : a + b;
    case PLUMB_OP_SUBTRACT:
        return is_float(t) ? farith(e->code, t, a, b) : a - b;
    case PLUMB_OP_MULTIPLY:
        if (is_float(t))
            return farith(e->code, t, a, b);
        return is_bool(t) ? (a & b & 1) : a * b;
    case PLUMB_OP_DIVIDE:
        if (is_float(t))
            return farith(e->code, t, a, b);
        if ((b & mask_of(t)) == 0)
            return ~0ull;
        if (is_sint(t)) {
            int64_t x = sext(t, a), y = sext(t, b);
            return y == -1 ? 0 - (uint64_t)x : (uint64_t)(x / y);
        }
        return (a & mask_of(t)) / (b & mask_of(t));
    case PLUMB_OP_REMAINDER:
        if (is_float(t))
            return farith(e->code, t, a, b);
        if ((b & mask_of(t)) == 0)
            return a;
        if (is_sint(t)) {
            int64_t x = sext(t, a), y = sext(t, b);
            return y == -1 ? 0 : (uint64_t)(x % y);
        }
        return (a & mask_of(t)) % (b & mask_of(t));
    case PLUMB_OP_POWER:
        return ipow(t, a, b);
    case PLUMB_OP_MAXIMUM: return minmax(t, a, b, true);
    case PLUMB_OP_MINIMUM: return minmax(t, a, b, false);
    case PLUMB_OP_AND: return a & b;
    case PLUMB_OP_OR: return a | b;
    case PLUMB_OP_XOR: return a ^ b;
    case PLUMB_OP_SHIFT_LEFT: {
        uint64_t s = b & mask_of(t);
        return s >= w ? 0 : a << s;
    }
    case PLUMB_OP_SHIFT_RIGHT_LOGICAL: {
        uint64_t s = b & mask_of(t);
        return s >= w ? 0 : (a & mask_of(t)) >> s;
    }
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: {
        uint64_t s = b & mask_of(t);
        bool neg = (a & sign_bit(t)) != 0;
        if (s >= w)
            return neg ? ~0ull : 0;
        uint64_t r = (a & mask_of(t)) >> s;
        if (neg && s > 0)
            r |= ~0ull << (w - s);
        return r;
    }
    case PLUMB_OP_COMPARE:
        return compare(t, cmp_type_of(e->op, t), e->op->a.cmp_dir, a, b);
    case PLUMB_OP_SELECT:
        return (a & 1) ? b : c;
    case PLUMB_OP_CLAMP:
        return minmax(t, minmax(t, b, a, true), c, false);
    case PLUMB_OP_CONVERT:
        return convert(e->in_t[0], e->rt, a);
    default:
        return 0;
    }
}

/* ---- vectorized f32 loops (one source, three targets) ------------------------------
 * Each ISA runs the loops on GCC vectors of its native width: 16 bytes
 * portable (SSE2 on x86-64), 32 at AVX2, 64 at AVX-512. A generic vector
 * wider than the target's registers has its comparisons and selects lowered
 * one lane at a time by GCC 12 (the 64-byte version ran 1.4-2.9 ns/element
 * at AVX2 and portable), and a three-way and/or select is scalarized even
 * at the native width, so every lane choice is a chain of two-way selects
 * (docs/runtime-ew-float.md, "The engine's f32 loops"). NaN tests are float
 * comparisons (x != x), the same test as on the bits. The tail (fewer
 * elements than a vector) runs the engine's scalar functions, which define
 * the bits the vector body reproduces. */

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));

/* m ? a : b lane by lane (m all ones or all zeros per lane) */
#define EW_SEL(m, a, b) (((m) & (a)) | (~(m) & (b)))

/* The binary loop of one op: EXPR of the vectors x, y (VF) gives the VI
 * result; the scalar tail is SCALAR of the bit patterns ab, bb. */
#define F32_BIN_LOOP(VF, VI, EXPR, SCALAR)                                              \
    do {                                                                                \
        size_t i = 0;                                                                   \
        for (; i + sizeof(VF) / 4 <= n; i += sizeof(VF) / 4) {                          \
            VF x, y;                                                                    \
            memcpy(&x, a + i, sizeof x);                                                \
            memcpy(&y, b + i, sizeof y);                                                \
            VI r = EXPR;                                                                \
            memcpy(o + i, &r, sizeof r);                                                \
        }                                                                               \
        for (; i < n; i++) {                                                            \
            uint32_t ab, bb;                                                            \
            memcpy(&ab, a + i, 4);                                                      \
            memcpy(&bb, b + i, 4);                                                      \
            uint32_t r = (uint32_t)(SCALAR);                                            \
            memcpy(o + i, &r, 4);                                                       \
        }                                                                               \
    } while (0)

#define F32_LOOPS(SUF, TARGET, VF, VI)                                                  \
    /* NaN lanes of r: x's NaN quieted, else y's, else the positive default NaN */    \
    TARGET static inline __attribute__((always_inline)) VI f32_nan2##SUF(VF x, VF y, VF r) \
    {                                                                                   \
        VI v = EW_SEL(r != r, (VI){0} + 0x7FC00000, (VI)r);                             \
        v = EW_SEL(y != y, (VI)y | 0x400000, v);                                        \
        return EW_SEL(x != x, (VI)x | 0x400000, v);                                     \
    }                                                                                   \
    TARGET static void f32_arith##SUF(plumb_opcode code, const float *a, const float *b,  \
                                      float *o, size_t n)                               \
    {                                                                                   \
        switch (code) {                                                                 \
        case PLUMB_OP_ADD:                                                              \
            F32_BIN_LOOP(VF, VI, f32_nan2##SUF(x, y, x + y), farith(code, PLUMB_F32, ab, bb)); \
            break;                                                                      \
        case PLUMB_OP_SUBTRACT:                                                         \
            F32_BIN_LOOP(VF, VI, f32_nan2##SUF(x, y, x - y), farith(code, PLUMB_F32, ab, bb)); \
            break;                                                                      \
        case PLUMB_OP_MULTIPLY:                                                         \
            F32_BIN_LOOP(VF, VI, f32_nan2##SUF(x, y, x * y), farith(code, PLUMB_F32, ab, bb)); \
            break;                                                                      \
        default:                                                                        \
            F32_BIN_LOOP(VF, VI, f32_nan2##SUF(x, y, x / y), farith(code, PLUMB_F32, ab, bb)); \
            break;                                                                      \
        }                                                                               \
    }                                                                                   \
    /* IEEE 754-2019 maximum/minimum: keys (negative magnitudes reflected) order   \
     * the non-NaN floats as signed integers with -0 below +0; NaN lanes then     \
     * take the first NaN operand, quieted. */                                     \
    TARGET static inline __attribute__((always_inline)) VI f32_mm##SUF(VF x, VF y, int want_max) \
    {                                                                                   \
        VI xi = (VI)x, yi = (VI)y;                                                      \
        VI kx = xi ^ ((xi >> 31) & 0x7FFFFFFF), ky = yi ^ ((yi >> 31) & 0x7FFFFFFF);    \
        VI r = EW_SEL(want_max ? kx > ky : kx < ky, xi, yi);                            \
        r = EW_SEL(y != y, yi | 0x400000, r);                                           \
        return EW_SEL(x != x, xi | 0x400000, r);                                        \
    }                                                                                   \
    TARGET static void f32_minmax##SUF(bool want_max, const float *a, const float *b,    \
                                       float *o, size_t n)                              \
    {                                                                                   \
        if (want_max)                                                                   \
            F32_BIN_LOOP(VF, VI, f32_mm##SUF(x, y, 1), minmax(PLUMB_F32, ab, bb, true)); \
        else                                                                            \
            F32_BIN_LOOP(VF, VI, f32_mm##SUF(x, y, 0), minmax(PLUMB_F32, ab, bb, false)); \
    }

/* f32 FLOAT compare: the vector comparisons are IEEE's (false with a NaN
 * operand, != true), as C's scalar ones in compare(). Four vectors of lane
 * masks are packed to one byte 0/1 per element (PACK, per ISA); the tail
 * runs the scalar comparison. */
#define F32_CMP_LOOP(VF, VI, PACK, OP)                                                  \
    do {                                                                                \
        const size_t l_ = sizeof(VF) / 4;                                               \
        size_t i = 0;                                                                   \
        for (; i + 4 * l_ <= n; i += 4 * l_) {                                          \
            VF x0, x1, x2, x3, y0, y1, y2, y3;                                          \
            memcpy(&x0, a + i, sizeof x0);                                              \
            memcpy(&x1, a + i + l_, sizeof x1);                                         \
            memcpy(&x2, a + i + 2 * l_, sizeof x2);                                     \
            memcpy(&x3, a + i + 3 * l_, sizeof x3);                                     \
            memcpy(&y0, b + i, sizeof y0);                                              \
            memcpy(&y1, b + i + l_, sizeof y1);                                         \
            memcpy(&y2, b + i + 2 * l_, sizeof y2);                                     \
            memcpy(&y3, b + i + 3 * l_, sizeof y3);                                     \
            VI c[4] = {x0 OP y0, x1 OP y1, x2 OP y2, x3 OP y3};                         \
            PACK(c, o + i);                                                             \
        }                                                                               \
        for (; i < n; i++)                                                              \
            o[i] = a[i] OP b[i];                                                        \
    } while (0)

#define F32_CMP(SUF, TARGET, VF, VI, PACK)                                              \
    TARGET static void f32_cmp##SUF(ir_cmp_dir dir, const float *a, const float *b, uint8_t *o, size_t n) \
    {                                                                                   \
        switch (dir) {                                                                  \
        case IR_CMP_EQ: F32_CMP_LOOP(VF, VI, PACK, ==); break;                          \
        case IR_CMP_NE: F32_CMP_LOOP(VF, VI, PACK, !=); break;                          \
        case IR_CMP_LT: F32_CMP_LOOP(VF, VI, PACK, <); break;                           \
        case IR_CMP_LE: F32_CMP_LOOP(VF, VI, PACK, <=); break;                          \
        case IR_CMP_GT: F32_CMP_LOOP(VF, VI, PACK, >); break;                           \
        default: F32_CMP_LOOP(VF, VI, PACK, >=); break;                                 \
        }                                                                               \
    }

/* select of one element width W (bytes): MASK widens the predicate bytes
 * at p to lane masks (low bit set -> all ones), then a two-way select of
 * the bits; the tail copies element by element. */
#define SEL_LOOP_W(SUF, TARGET, VBYTES, W, ET, EI, MASK)                                \
    TARGET static void sel##W##SUF(const uint8_t *p, const ET *x, const ET *y, ET *o, size_t n) \
    {                                                                                   \
        typedef EI vt_ __attribute__((vector_size(VBYTES)));                            \
        size_t i = 0;                                                                   \
        for (; i + VBYTES / W <= n; i += VBYTES / W) {                                  \
            vt_ xv, yv, m;                                                              \
            memcpy(&xv, x + i, sizeof xv);                                              \
            memcpy(&yv, y + i, sizeof yv);                                              \
            MASK(m, vt_, VBYTES / W, p + i);                                            \
            vt_ r = EW_SEL(m, xv, yv);                                                  \
            memcpy(o + i, &r, sizeof r);                                                \
        }                                                                               \
        for (; i < n; i++)                                                              \
            o[i] = (p[i] & 1) ? x[i] : y[i];                                            \
    }
/* the compiler's widening of L predicate bytes */
#define SEL_MASK_CONVERT(m, VT, L, pp)                                                  \
    do {                                                                                \
        typedef uint8_t vp_ __attribute__((vector_size(L)));                            \
        vp_ pb_;                                                                        \
        memcpy(&pb_, pp, sizeof pb_);                                                   \
        m = __builtin_convertvector(pb_ & 1, VT) != 0;                                  \
    } while (0)
#define SEL_LOOPS(SUF, TARGET, VBYTES, MASK4, MASK8)                                    \
    SEL_LOOP_W(SUF, TARGET, VBYTES, 1, uint8_t, int8_t, SEL_MASK_CONVERT)               \
    SEL_LOOP_W(SUF, TARGET, VBYTES, 2, uint16_t, int16_t, SEL_MASK_CONVERT)             \
    SEL_LOOP_W(SUF, TARGET, VBYTES, 4, uint32_t, int32_t, MASK4)                        \
    SEL_LOOP_W(SUF, TARGET, VBYTES, 8, uint64_t, int64_t, MASK8)

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* 4 x 4 lane masks (-1/0) -> 16 bytes 0/1 in element order (saturating packs keep -1/0) */
#define PACK_SSE2(c, out)                                                               \
    do {                                                                                \
        __m128i lo_ = _mm_packs_epi32((__m128i)c[0], (__m128i)c[1]);                    \
        __m128i hi_ = _mm_packs_epi32((__m128i)c[2], (__m128i)c[3]);                    \
        __m128i r_ = _mm_and_si128(_mm_packs_epi16(lo_, hi_), _mm_set1_epi8(1));        \
        _mm_storeu_si128((__m128i *)(void *)(out), r_);                                 \
    } while (0)
/* SSE2 widening of 4 predicate bytes to 32-bit lane masks: unpacking a
 * register with itself repeats each byte through its lane, and shifting
 * the low bit to the sign and back arithmetically spreads it. The
 * compiler's own widening here was slower than the scalar loop. */
#define SEL_MASK_SSE2_4(m, VT, L, pp)                                                   \
    do {                                                                                \
        int32_t w_;                                                                     \
        memcpy(&w_, pp, 4);                                                             \
        __m128i v_ = _mm_cvtsi32_si128(w_);                                             \
        v_ = _mm_unpacklo_epi8(v_, v_);                                                 \
        v_ = _mm_unpacklo_epi16(v_, v_);                                                \
        m = (VT)_mm_srai_epi32(_mm_slli_epi32(v_, 31), 31);                             \
    } while (0)
/* 4 x 8 lane masks -> 32 bytes; the packs work per 128-bit half, so the
 * dwords (4 elements each) come out as 0,8,16,24 | 4,12,20,28 and one
 * cross-lane permutation restores element order. */
#define PACK_AVX2(c, out)                                                               \
    do {                                                                                \
        __m256i lo_ = _mm256_packs_epi32((__m256i)c[0], (__m256i)c[1]);                 \
        __m256i hi_ = _mm256_packs_epi32((__m256i)c[2], (__m256i)c[3]);                 \
        __m256i r_ = _mm256_packs_epi16(lo_, hi_);                                      \
        r_ = _mm256_permutevar8x32_epi32(r_, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)); \
        r_ = _mm256_and_si256(r_, _mm256_set1_epi8(1));                                 \
        _mm256_storeu_si256((__m256i *)(void *)(out), r_);                              \
    } while (0)
/* 4 x 16 lane masks -> 64 bytes, one truncating narrow per vector */
#define PACK_AVX512(c, out)                                                             \
    do {                                                                                \
        __m512i one_ = _mm512_set1_epi32(1);                                            \
        _mm_storeu_si128((__m128i *)(void *)(out), _mm512_cvtepi32_epi8(_mm512_and_si512((__m512i)c[0], one_))); \
        _mm_storeu_si128((__m128i *)(void *)((out) + 16), _mm512_cvtepi32_epi8(_mm512_and_si512((__m512i)c[1], one_))); \
        _mm_storeu_si128((__m128i *)(void *)((out) + 32), _mm512_cvtepi32_epi8(_mm512_and_si512((__m512i)c[2], one_))); \
        _mm_storeu_si128((__m128i *)(void *)((out) + 48), _mm512_cvtepi32_epi8(_mm512_and_si512((__m512i)c[3], one_))); \
    } while (0)
#endif
/* without SSE2: lane by lane, the compiler's business */
#define PACK_PLAIN(c, out)                                                              \
    do {                                                                                \
        for (int k_ = 0; k_ < 4; k_++)                                                  \
            for (size_t j_ = 0; j_ < sizeof c[0] / 4; j_++)                             \
                (out)[k_ * (sizeof c[0] / 4) + j_] = (uint8_t)(c[k_][j_] & 1);          \
    } while (0)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
F32_LOOPS(_portable, , v4f, v4i)
#if defined(__SSE2__)
F32_CMP(_portable, , v4f, v4i, PACK_SSE2)
SEL_LOOP_W(_portable, , 16, 1, uint8_t, int8_t, SEL_MASK_CONVERT)
SEL_LOOP_W(_portable, , 16, 2, uint16_t, int16_t, SEL_MASK_CONVERT)
SEL_LOOP_W(_portable, , 16, 4, uint32_t, int32_t, SEL_MASK_SSE2_4)
/* 64-bit elements four at a time: the 32-bit lane masks of 4 predicate
 * bytes, each unpacked with itself into two 64-bit lane masks (two
 * elements per register made the widening cost more than the scalar loop). */
static void sel8_portable(const uint8_t *p, const uint64_t *x, const uint64_t *y, uint64_t *o, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4i m;
        SEL_MASK_SSE2_4(m, v4i, 4, p + i);
        __m128i m0 = _mm_unpacklo_epi32((__m128i)m, (__m128i)m), m1 = _mm_unpackhi_epi32((__m128i)m, (__m128i)m);
        __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)(x + i));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(x + i + 2));
        __m128i y0 = _mm_loadu_si128((const __m128i *)(const void *)(y + i));
        __m128i y1 = _mm_loadu_si128((const __m128i *)(const void *)(y + i + 2));
        _mm_storeu_si128((__m128i *)(void *)(o + i), _mm_or_si128(_mm_and_si128(m0, x0), _mm_andnot_si128(m0, y0)));
        _mm_storeu_si128((__m128i *)(void *)(o + i + 2), _mm_or_si128(_mm_and_si128(m1, x1), _mm_andnot_si128(m1, y1)));
    }
    for (; i < n; i++)
        o[i] = (p[i] & 1) ? x[i] : y[i];
}
#else
F32_CMP(_portable, , v4f, v4i, PACK_PLAIN)
SEL_LOOPS(_portable, , 16, SEL_MASK_CONVERT, SEL_MASK_CONVERT)
#endif
#if defined(__x86_64__) || defined(__i386__)
F32_LOOPS(_avx2, __attribute__((target("avx2,fma"))), v8f, v8i)
F32_CMP(_avx2, __attribute__((target("avx2,fma"))), v8f, v8i, PACK_AVX2)
SEL_LOOPS(_avx2, __attribute__((target("avx2,fma"))), 32, SEL_MASK_CONVERT, SEL_MASK_CONVERT)
F32_LOOPS(_avx512, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))), v16f, v16i)
F32_CMP(_avx512, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))), v16f, v16i, PACK_AVX512)
SEL_LOOPS(_avx512, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))), 64, SEL_MASK_CONVERT, SEL_MASK_CONVERT)
#endif
#pragma GCC diagnostic pop

#if defined(__x86_64__) || defined(__i386__)
/* The AVX-512 arithmetic loop with the operation chosen outside the loop and
 * the NaN fix-up (same rule as F32_LOOPS) only in vectors that hold a NaN:
 * one mask test per 16 lanes in the common case. */
#define F32_AVX512_ARITH(NAME, INSN)                                                   \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))              \
    static void NAME(const float *a, const float *b, float *o, size_t n)                \
    {                                                                                   \
        size_t i = 0;                                                                   \
        for (; i + 16 <= n; i += 16) {                                                  \
            __m512 x = _mm512_loadu_ps(a + i), y = _mm512_loadu_ps(b + i);              \
            __m512 r = INSN(x, y);                                                      \
            __mmask16 rn = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);                      \
            if (__builtin_expect(rn != 0, 0)) {                                         \
                __m512i q = _mm512_set1_epi32(0x400000);                                \
                __mmask16 xn = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);                  \
                __mmask16 yn = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q) & ~xn;            \
                __m512i v = _mm512_set1_epi32(0x7FC00000);                              \
                v = _mm512_mask_or_epi32(v, yn, _mm512_castps_si512(y), q);             \
                v = _mm512_mask_or_epi32(v, xn, _mm512_castps_si512(x), q);             \
                r = _mm512_mask_mov_ps(r, rn, _mm512_castsi512_ps(v));                  \
            }                                                                           \
            _mm512_storeu_ps(o + i, r);                                                 \
        }                                                                               \
        if (i < n)                                                                      \
            f32_arith_avx512(CODE_OF_##NAME, a + i, b + i, o + i, n - i);               \
    }
#define CODE_OF_f32_add_avx512 PLUMB_OP_ADD
#define CODE_OF_f32_sub_avx512 PLUMB_OP_SUBTRACT
#define CODE_OF_f32_mul_avx512 PLUMB_OP_MULTIPLY
#define CODE_OF_f32_div_avx512 PLUMB_OP_DIVIDE
F32_AVX512_ARITH(f32_add_avx512, _mm512_add_ps)
F32_AVX512_ARITH(f32_sub_avx512, _mm512_sub_ps)
F32_AVX512_ARITH(f32_mul_avx512, _mm512_mul_ps)
F32_AVX512_ARITH(f32_div_avx512, _mm512_div_ps)
#endif

static void f32_arith(plumb_isa isa, plumb_opcode code, const float *a, const float *b, float *o, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512) {
        switch (code) {
        case PLUMB_OP_ADD: return f32_add_avx512(a, b, o, n);
        case PLUMB_OP_SUBTRACT: return f32_sub_avx512(a, b, o, n);
        case PLUMB_OP_MULTIPLY: return f32_mul_avx512(a, b, o, n);
        default: return f32_div_avx512(a, b, o, n);
        }
    }
    if (isa == PLUMB_ISA_AVX2)
        return f32_arith_avx2(code, a, b, o, n);
#endif
    f32_arith_portable(code, a, b, o, n);
}

static void f32_minmax(plumb_isa isa, bool want_max, const float *a, const float *b, float *o, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return f32_minmax_avx512(want_max, a, b, o, n);
    if (isa == PLUMB_ISA_AVX2)
        return f32_minmax_avx2(want_max, a, b, o, n);
#endif
    f32_minmax_portable(want_max, a, b, o, n);
}

static void f32_cmp(plumb_isa isa, ir_cmp_dir dir, const float *a, const float *b, uint8_t *o, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    if (isa == PLUMB_ISA_AVX512)
        return f32_cmp_avx512(dir, a, b, o, n);
    if (isa == PLUMB_ISA_AVX2)
        return f32_cmp_avx2(dir, a, b, o, n);
#endif
    f32_cmp_portable(dir, a, b, o, n);
}

#if defined(__x86_64__) || defined(__i386__)
#define SEL_DISPATCH(W)                                                                 \
    (isa == PLUMB_ISA_AVX512 ? sel##W##_avx512 : isa == PLUMB_ISA_AVX2 ? sel##W##_avx2 : sel##W##_portable)
#else
#define SEL_DISPATCH(W) sel##W##_portable
#endif
/* n elements of width w (bytes) picked by the predicate bytes p */
static void sel_run(plumb_isa isa, size_t w, const uint8_t *p, const void *x, const void *y, void *o, size_t n)
{
    switch (w) {
    case 1: SEL_DISPATCH(1)(p, x, y, o, n); break;
    case 2: SEL_DISPATCH(2)(p, x, y, o, n); break;
    case 4: SEL_DISPATCH(4)(p, x, y, o, n); break;
    default: SEL_DISPATCH(8)(p, x, y, o, n); break;
    }
}
#undef SEL_DISPATCH

/* ---- the element engine ------------------------------------------------------------ */

static float widen16(plumb_dtype t, uint64_t h)
{
    return t == PLUMB_F16 ? plumb_f16_to_f32((uint16_t)h) : plumb_bf16_to_f32((uint16_t)h);
}

static const uint8_t *at(const ew *e, uint32_t k, size_t i);

/* f16/bf16 transcendentals: the function's double value (relative error
 * <= RT_MATH_DERR) on the exactly widened operand, rounded ONCE to the
 * narrow type by rt_math_narrow (which settles the subnormal, zero and
 * overflow-threshold results it cannot decide); never through f32. */
static void narrow_unary(const ew *e, size_t b, size_t n)
{
    plumb_dtype t = e->t;
    rt_vmath_f32d_fn f = rt_vmath_f32d(e->code, e->isa);
    float buf[EW_BLOCK];
    double v[EW_BLOCK];
    for (size_t i = 0; i < n; i += EW_BLOCK) {
        size_t m = n - i < EW_BLOCK ? n - i : EW_BLOCK;
        for (size_t j = 0; j < m; j++)
            buf[j] = widen16(t, ld(t, e->in[0], b + i + j));
        f(buf, v, m);
        for (size_t j = 0; j < m; j++) {
            uint64_t x = ld(t, e->in[0], b + i + j), r;
            if (f_isnan(t, x))
                r = f_quiet(t, x);
            else if (isnan(v[j]))
                r = f_default_nan(t);
            else
                r = rt_math_narrow(e->code, t, v[j], RT_MATH_DERR, buf[j], 0);
            st(t, e->out, b + i + j, r);
        }
    }
}

static void narrow_binary(const ew *e, size_t b, size_t n)
{
    plumb_dtype t = e->t;
    rt_vmath2_f32d_fn f = rt_vmath2_f32d(e->code, e->isa);
    float ba[EW_BLOCK], bb[EW_BLOCK];
    double v[EW_BLOCK];
    for (size_t i = 0; i < n; i += EW_BLOCK) {
        size_t m = n - i < EW_BLOCK ? n - i : EW_BLOCK;
        for (size_t j = 0; j < m; j++) {
            ba[j] = widen16(t, ld(t, at(e, 0, b + i + j), 0));
            bb[j] = widen16(t, ld(t, at(e, 1, b + i + j), 0));
        }
        f(ba, bb, v, m);
        for (size_t j = 0; j < m; j++) {
            uint64_t x = ld(t, at(e, 0, b + i + j), 0), y = ld(t, at(e, 1, b + i + j), 0), r;
            /* IEEE 754-2019 9.2.1: pow(x, +-0) = pow(+1, y) = 1, even for NaN */
            if (e->code == PLUMB_OP_POWER && ((!f_isnan(t, y) && f_iszero(t, y)) || x == d_to_f(t, 1.0)))
                r = d_to_f(t, 1.0);
            else if (f_isnan(t, x) || f_isnan(t, y))
                r = nan2(t, x, y);
            else if (isnan(v[j]))
                r = f_default_nan(t);
            else
                r = rt_math_narrow(e->code, t, v[j], RT_MATH_DERR, ba[j], bb[j]);
            st(t, e->out, b + i + j, r);
        }
    }
}

static const uint8_t *at(const ew *e, uint32_t k, size_t i)
{
    return e->in[k] + (e->bc[k] ? 0 : i * plumb_dtype_size(e->in_t[k]));
}

/* ---- direct loops of the common ops (no per-element dispatch) -------------------
 * Loops over the element type's storage (negate/abs plain loops the
 * compiler vectorizes; compare and select the per-ISA loops above); each
 * computes exactly what elem() computes for these ops (the tests compare
 * both with the reference). true when the op was handled. */

static bool direct_unary(const ew *e, size_t b, size_t n)
{
    plumb_dtype t = e->t;
    if (e->bc[0] || !is_float(t) || (e->code != PLUMB_OP_NEGATE && e->code != PLUMB_OP_ABS))
        return false;
    bool neg = e->code == PLUMB_OP_NEGATE;
    switch (plumb_dtype_size(t)) {
    case 2: {
        const uint16_t *x = (const uint16_t *)e->in[0] + b;
        uint16_t *o = (uint16_t *)e->out + b;
        if (neg)
            for (size_t i = 0; i < n; i++) o[i] = x[i] ^ 0x8000u;
        else
            for (size_t i = 0; i < n; i++) o[i] = x[i] & 0x7FFFu;
        return true;
    }
    case 4: {
        const uint32_t *x = (const uint32_t *)e->in[0] + b;
        uint32_t *o = (uint32_t *)e->out + b;
        if (neg)
            for (size_t i = 0; i < n; i++) o[i] = x[i] ^ 0x80000000u;
        else
            for (size_t i = 0; i < n; i++) o[i] = x[i] & 0x7FFFFFFFu;
        return true;
    }
    default: {
        const uint64_t *x = (const uint64_t *)e->in[0] + b;
        uint64_t *o = (uint64_t *)e->out + b;
        uint64_t sb = 0x8000000000000000ull;
        if (neg)
            for (size_t i = 0; i < n; i++) o[i] = x[i] ^ sb;
        else
            for (size_t i = 0; i < n; i++) o[i] = x[i] & ~sb;
        return true;
    }
    }
}

/* f32 compare (FLOAT or the default type): C's comparisons are IEEE's
 * (false with a NaN operand, != true), as compare() computes. */
static bool direct_compare(const ew *e, size_t b, size_t n)
{
    if (e->code != PLUMB_OP_COMPARE || e->t != PLUMB_F32 || e->bc[0] || e->bc[1] ||
        cmp_type_of(e->op, PLUMB_F32) != IR_CMP_FLOAT)
        return false;
    f32_cmp(e->isa, e->op->a.cmp_dir, (const float *)e->in[0] + b, (const float *)e->in[1] + b, e->out + b, n);
    return true;
}

/* f32 <-> bf16/f16 converts. f32 -> bf16 in bits: round to nearest even
 * at bit 16 (a carry into the exponent gives the next binade or infinity;
 * subnormals round the same way, bf16 has f32's exponent range); a NaN
 * keeps its sign and top payload with the quiet bit set. bf16 -> f32 is
 * exact, a NaN quieted (as the widening through double does). f16 goes
 * through the shared scalar conversions, without per-element dispatch. */
static bool direct_convert(const ew *e, size_t b, size_t n)
{
    plumb_dtype s = e->in_t[0], d = e->rt;
    if (e->code != PLUMB_OP_CONVERT || e->bc[0])
        return false;
    if (s == PLUMB_F32 && d == PLUMB_BF16) {
        const uint32_t *x = (const uint32_t *)e->in[0] + b;
        uint16_t *o = (uint16_t *)e->out + b;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = x[i];
            bool nan = (v & 0x7FFFFFFFu) > 0x7F800000u;
            uint32_t r = (v + 0x7FFFu + ((v >> 16) & 1u)) >> 16;
            o[i] = (uint16_t)(nan ? (v >> 16) | 0x40u : r);
        }
        return true;
    }
    if (s == PLUMB_BF16 && d == PLUMB_F32) {
        const uint16_t *x = (const uint16_t *)e->in[0] + b;
        uint32_t *o = (uint32_t *)e->out + b;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)x[i] << 16;
            o[i] = (v & 0x7FFFFFFFu) > 0x7F800000u ? v | 0x00400000u : v;
        }
        return true;
    }
    if (s == PLUMB_F32 && d == PLUMB_F16) {
        const float *x = (const float *)e->in[0] + b;
        uint16_t *o = (uint16_t *)e->out + b;
        for (size_t i = 0; i < n; i++)
            o[i] = plumb_f32_to_f16(x[i]);
        return true;
    }
    if (s == PLUMB_F16 && d == PLUMB_F32) {
        const uint16_t *x = (const uint16_t *)e->in[0] + b;
        float *o = (float *)e->out + b;
        for (size_t i = 0; i < n; i++)
            o[i] = plumb_f16_to_f32(x[i]);
        return true;
    }
    return false;
}

/* select of any element width without broadcast operands: the predicate
 * picks whole elements, so copying bits is exact. */
static bool direct_select(const ew *e, size_t b, size_t n)
{
    if (e->code != PLUMB_OP_SELECT || e->bc[1] || e->bc[2])
        return false;
    const uint8_t *p = e->in[0];
    size_t w = plumb_dtype_size(e->rt);
    const uint8_t *x = e->in[1] + b * w, *y = e->in[2] + b * w;
    uint8_t *o = e->out + b * w;
    if (e->bc[0])
        memcpy(o, (p[0] & 1) ? x : y, n * w);
    else
        sel_run(e->isa, w, p + b, x, y, o, n);
    return true;
}

/* Elements [b, b + n) of e. */
static void ew_engine(const ew *e, size_t b, size_t n);

/* The per-type vector loops (rt_ew_args) on elements [b, b + n) of
 * unbroadcast operands; false when none handles the op. */
static bool ew_vector(const ew *e, size_t b, size_t n)
{
    rt_ew_args a = {.op = e->op, .code = e->code, .isa = e->isa, .t = e->t, .rt = e->rt, .n_in = e->n_in,
                    .out = e->out + b * plumb_dtype_size(e->rt), .n = n};
    for (uint32_t k = 0; k < e->n_in && k < 3; k++)
        a.in[k] = e->in[k] + b * plumb_dtype_size(e->in_t[k]);
    /* The small types convert one element at a time (rt_ew_convert); the
     * other loops would take an i4 for an i8. */
    if (e->code == PLUMB_OP_CONVERT && (plumb_dtype_is_lowp(e->in_t[0]) || plumb_dtype_is_lowp(e->rt)))
        return rt_ew_convert(&a);
    return rt_ew_half(&a) || rt_ew_int(&a) || rt_ew_float(&a) || rt_ew_convert(&a);
}

/* The same with one-element operands (select's predicate, clamp's bounds):
 * each is repeated into a block buffer once and the loops run block by
 * block, so a scalar bound costs one copy per block instead of the
 * per-element path. Whether a loop takes the op depends on the op and the
 * types only, so the first block decides for all. */
#define EW_BC_BLOCK 512
static bool ew_vector_bc(const ew *e, size_t b, size_t n)
{
    _Alignas(64) uint8_t rep[3][EW_BC_BLOCK * 8];
    ew blk = *e;
    for (uint32_t k = 0; k < e->n_in && k < 3; k++) {
        if (!e->bc[k])
            continue;
        size_t es = plumb_dtype_size(e->in_t[k]);
        for (size_t i = 0; i < EW_BC_BLOCK; i++)
            memcpy(rep[k] + i * es, e->in[k], es);
        blk.bc[k] = false;
    }
    for (size_t i = 0; i < n; i += EW_BC_BLOCK) {
        size_t m = n - i < EW_BC_BLOCK ? n - i : EW_BC_BLOCK;
        /* operands as if the block started at element 0 of each */
        for (uint32_t k = 0; k < e->n_in && k < 3; k++)
            blk.in[k] = e->bc[k] ? rep[k] : e->in[k] + (b + i) * plumb_dtype_size(e->in_t[k]);
        blk.out = e->out + (b + i) * plumb_dtype_size(e->rt);
        if (!ew_vector(&blk, 0, m)) {
            if (i == 0)
                return false;
            ew_engine(e, b + i, m);   /* not reached: the decision does not depend on the block */
        }
    }
    return true;
}

/* The engine's own paths: vector math, the f32 loops, the direct loops,
 * and one element at a time for the rest. */
static void ew_engine(const ew *e, size_t b, size_t n)
{
    plumb_dtype t = e->t;
    bool no_bc = !e->bc[0] && !e->bc[1] && !e->bc[2];
    if (is_vmath_unary(e->code) && is_float(t)) {
        if (t == PLUMB_F32) {
            rt_vmath_f32(e->code, e->isa)((const float *)at(e, 0, b), (float *)(e->out + b * 4), n);
            return;
        }
        if (t == PLUMB_F64) {
            for (size_t i = 0; i < n; i++)
                st(t, e->out, b + i, f64_unary(e->code, ld(t, e->in[0], b + i)));
            return;
        }
        narrow_unary(e, b, n);
        return;
    }
    if (is_chlo_unary(e->code) && is_float(t)) {
        if (e->code == PLUMB_OP_ERFC && t == PLUMB_F32) {   /* vector erfc (runtime/math_*.c) */
            rt_vmath_f32(e->code, e->isa)((const float *)at(e, 0, b), (float *)(e->out + b * 4), n);
            return;
        }
        for (size_t i = 0; i < n; i++)
            st(t, e->out, b + i, chlo_unary(e->code, t, ld(t, at(e, 0, b + i), 0)));
        return;
    }
    if ((e->code == PLUMB_OP_POWER || e->code == PLUMB_OP_ATAN2) && is_float(t)) {
        if (t == PLUMB_F32) {
            rt_vmath2_f32(e->code, e->isa)((const float *)at(e, 0, b), (const float *)at(e, 1, b),
                                           (float *)(e->out + b * 4), n);
            return;
        }
        if (t == PLUMB_F64) {
            for (size_t i = 0; i < n; i++)
                st(t, e->out, b + i, f64_binary(e->code, ld(t, e->in[0], b + i), ld(t, e->in[1], b + i)));
            return;
        }
        narrow_binary(e, b, n);
        return;
    }
    if (t == PLUMB_F32 && no_bc) {
        const float *x = (const float *)at(e, 0, b), *y = e->n_in > 1 ? (const float *)at(e, 1, b) : NULL;
        float *o = (float *)(e->out + b * 4);
        switch (e->code) {
        case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
            f32_arith(e->isa, e->code, x, y, o, n);
            return;
        case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
            f32_minmax(e->isa, e->code == PLUMB_OP_MAXIMUM, x, y, o, n);
            return;
        default:
            break;
        }
    }
    if (direct_unary(e, b, n) || direct_compare(e, b, n) || direct_convert(e, b, n) || direct_select(e, b, n))
        return;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = ld(e->in_t[0], at(e, 0, b + i), 0);
        uint64_t y = e->n_in > 1 ? ld(e->in_t[1], at(e, 1, b + i), 0) : 0;
        uint64_t z = e->n_in > 2 ? ld(e->in_t[2], at(e, 2, b + i), 0) : 0;
        st(e->rt, e->out, b + i, elem(e, a, y, z));
    }
}

static void ew_run(const ew *e, size_t b, size_t n)
{
    if (n == 0)
        return;
    bool no_bc = !e->bc[0] && !e->bc[1] && !e->bc[2];
    if (no_bc ? ew_vector(e, b, n) : ew_vector_bc(e, b, n))
        return;
    ew_engine(e, b, n);
}

/* ---- validation ------------------------------------------------------------------- */

/* Which element types op accepts on its primary operand, beyond the table's
 * mask (the reference's rules). */
static bool type_ok(plumb_opcode c, plumb_dtype t)
{
    switch (c) {
    case PLUMB_OP_SUBTRACT: case PLUMB_OP_DIVIDE: case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER:
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN:
        return !is_bool(t);
    case PLUMB_OP_NOT: case PLUMB_OP_AND: case PLUMB_OP_OR: case PLUMB_OP_XOR:
        return !is_float(t);
    case PLUMB_OP_POPCNT: case PLUMB_OP_COUNT_LEADING_ZEROS: case PLUMB_OP_SHIFT_LEFT:
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: case PLUMB_OP_SHIFT_RIGHT_LOGICAL: case PLUMB_OP_MULHI:
        return plumb_dtype_is_int(t);
    case PLUMB_OP_ADD: case PLUMB_OP_MULTIPLY: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_COMPARE: case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP: case PLUMB_OP_CONVERT:
        return true;
    default:
        return is_float(t);   /* float-only unary ops, atan2 */
    }
}

/* Fills e from op's types; NULL-free message on a type error. */
static const char *ew_setup(ew *e, const ir_op *op, plumb_isa isa, const plumb_dtype *in_t, uint32_t n_in,
                            plumb_dtype rt)
{
    memset(e, 0, sizeof *e);
    e->op = op;
    e->code = plumb_op_semantic(op->code);   /* chlo.tan runs as stablehlo.tan */
    e->isa = isa;
    e->n_in = n_in;
    e->rt = rt;
    for (uint32_t k = 0; k < n_in && k < 3; k++)
        e->in_t[k] = in_t[k];
    plumb_opcode c = e->code;
    /* complex values, and complex/real/imag, run in runtime/k_complex.c:
     * never in this engine or a fused group */
    if (c == PLUMB_OP_COMPLEX || c == PLUMB_OP_REAL || c == PLUMB_OP_IMAG || plumb_dtype_is_complex(rt))
        return "complex values run in runtime/k_complex.c";
    for (uint32_t k = 0; k < n_in && k < 3; k++)
        if (plumb_dtype_is_complex(in_t[k]))
            return "complex values run in runtime/k_complex.c";
    /* the small types run as tables in runtime/k_lowp.c (convert excepted) */
    if (c != PLUMB_OP_CONVERT && c != PLUMB_OP_BITCAST_CONVERT) {
        if (plumb_dtype_is_lowp(rt))
            return "the small types run in runtime/k_lowp.c";
        for (uint32_t k = 0; k < n_in && k < 3; k++)
            if (plumb_dtype_is_lowp(in_t[k]))
                return "the small types run in runtime/k_lowp.c";
    }
    e->t = (c == PLUMB_OP_SELECT || c == PLUMB_OP_CLAMP) ? in_t[1] : in_t[0];
    if (!type_ok(c, e->t))
        return "element type not supported by this op";
    uint32_t want = (uint32_t)plumb_op_get(c)->arity;
    if (n_in != want)
        return "wrong number of operands";
    if (c == PLUMB_OP_SELECT) {
        if (in_t[0] != PLUMB_I1 || in_t[2] != in_t[1] || rt != in_t[1])
            return "select needs an i1 predicate and two operands of the result type";
    } else if (c == PLUMB_OP_COMPARE || c == PLUMB_OP_IS_FINITE || c == PLUMB_OP_IS_INF || c == PLUMB_OP_IS_POS_INF ||
               c == PLUMB_OP_IS_NEG_INF) {
        if (rt != PLUMB_I1 || (n_in > 1 && in_t[1] != in_t[0]))
            return "the result must have element type i1 and the operands one type";
        if (c == PLUMB_OP_COMPARE) {
            ir_cmp_type ty = cmp_type_of(op, e->t);
            if ((ty == IR_CMP_FLOAT || ty == IR_CMP_TOTALORDER || ty == IR_CMP_WEAKORDER) != is_float(e->t))
                return "comparison type does not apply to the element type";
        }
    } else if (c != PLUMB_OP_CONVERT) {
        for (uint32_t k = 0; k < n_in; k++)
            if (in_t[k] != e->t)
                return "operands must have one element type";
        if (rt != e->t)
            return "the result must have the operands' element type";
    }
    if (c == PLUMB_OP_REDUCE_PRECISION && (op->a.exponent_bits < 1 || op->a.mantissa_bits < 0))
        return "exponent_bits must be >= 1 and mantissa_bits >= 0";
    return NULL;
}

bool rt_ew_supported(const ir_op *op)
{
    if (!op || op->code >= PLUMB_OP_COUNT || plumb_op_get(op->code)->kind != PLUMB_KIND_ELEMENTWISE)
        return false;
    if (op->n_results != 1 || op->n_operands > 3 || op->n_operands != (uint32_t)plumb_op_get(op->code)->arity)
        return false;
    plumb_dtype in_t[3];
    for (uint32_t k = 0; k < op->n_operands; k++)
        in_t[k] = op->operands[k]->type.dtype;
    ew e;
    return ew_setup(&e, op, PLUMB_ISA_PORTABLE, in_t, op->n_operands, op->results[0]->type.dtype) == NULL;
}

bool rt_ew_tile(rt_exec *x, const ir_op *op, const void *const *in, void *out, size_t n)
{
    /* rt_ew_supported's checks with one ew_setup (called per tile) */
    if (!op || op->code >= PLUMB_OP_COUNT || plumb_op_get(op->code)->kind != PLUMB_KIND_ELEMENTWISE)
        return false;
    if (op->n_results != 1 || op->n_operands > 3 || op->n_operands != (uint32_t)plumb_op_get(op->code)->arity)
        return false;
    plumb_dtype in_t[3];
    for (uint32_t k = 0; k < op->n_operands; k++)
        in_t[k] = op->operands[k]->type.dtype;
    ew e;
    if (ew_setup(&e, op, rt_isa(x), in_t, op->n_operands, op->results[0]->type.dtype) != NULL)
        return false;
    for (uint32_t k = 0; k < op->n_operands; k++)
        e.in[k] = in[k];
    e.out = out;
    ew_run(&e, 0, n);
    return true;
}

static void ew_chunk(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    ew_run(ctx, (size_t)begin, (size_t)(end - begin));
}

/* Which operands may be a single element: select's predicate, clamp's bounds. */
static uint32_t scalar_ok(plumb_opcode c)
{
    return c == PLUMB_OP_SELECT ? 1u : c == PLUMB_OP_CLAMP ? 5u : 0u;
}

static bool ew_kernel(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t arity = (uint32_t)plumb_op_get(op->code)->arity;
    if (op->n_operands != arity || op->n_results != 1 || !out || !out[0])
        return rt_fail(x, op, PLUMB_ERR_INVALID, "expected %u operands and 1 result", arity);
    plumb_dtype in_t[3];
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint32_t k = 0; k < arity; k++) {
        in_t[k] = in[k]->dtype;
        uint64_t have = plumb_tensor_numel(in[k]);
        if (have != n && !((scalar_ok(op->code) >> k & 1) && have == 1))
            return rt_fail(x, op, PLUMB_ERR_INVALID, "operand %u has %llu elements but the result has %llu", k,
                           (unsigned long long)have, (unsigned long long)n);
    }
    ew e;
    const char *err = ew_setup(&e, op, rt_isa(x), in_t, arity, out[0]->dtype);
    if (err)
        return rt_fail(x, op, is_bool(e.t) || !type_ok(op->code, e.t) ? PLUMB_ERR_UNSUPPORTED : PLUMB_ERR_INVALID,
                       "%s (operand element type %s, result %s)", err, plumb_dtype_name(e.t),
                       plumb_dtype_name(out[0]->dtype));
    if (n == 0)
        return true;
    for (uint32_t k = 0; k < arity; k++) {
        e.in[k] = in[k]->data;
        e.bc[k] = plumb_tensor_numel(in[k]) == 1 && n != 1;
    }
    e.out = out[0]->data;
    rt_parallel_for(x, n, EW_GRAIN, ew_chunk, &e);
    return true;
}

#define EW_KERNEL(E) \
    bool rt_op_##E(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out) \
    { return ew_kernel(x, op, in, out); }

EW_KERNEL(ABS) EW_KERNEL(NEGATE) EW_KERNEL(SIGN) EW_KERNEL(FLOOR) EW_KERNEL(CEIL)
EW_KERNEL(ROUND_NEAREST_EVEN) EW_KERNEL(ROUND_NEAREST_AFZ) EW_KERNEL(SQRT) EW_KERNEL(RSQRT)
EW_KERNEL(CBRT) EW_KERNEL(EXPONENTIAL) EW_KERNEL(EXPONENTIAL_MINUS_ONE) EW_KERNEL(LOG)
EW_KERNEL(LOG_PLUS_ONE) EW_KERNEL(LOGISTIC) EW_KERNEL(TANH) EW_KERNEL(SINE) EW_KERNEL(COSINE)
EW_KERNEL(TAN) EW_KERNEL(IS_FINITE) EW_KERNEL(NOT) EW_KERNEL(POPCNT) EW_KERNEL(COUNT_LEADING_ZEROS)
EW_KERNEL(REDUCE_PRECISION) EW_KERNEL(ERF) EW_KERNEL(ADD) EW_KERNEL(SUBTRACT) EW_KERNEL(MULTIPLY)
EW_KERNEL(DIVIDE) EW_KERNEL(REMAINDER) EW_KERNEL(POWER) EW_KERNEL(MAXIMUM) EW_KERNEL(MINIMUM)
EW_KERNEL(ATAN2) EW_KERNEL(AND) EW_KERNEL(OR) EW_KERNEL(XOR) EW_KERNEL(SHIFT_LEFT)
EW_KERNEL(SHIFT_RIGHT_ARITHMETIC) EW_KERNEL(SHIFT_RIGHT_LOGICAL) EW_KERNEL(COMPARE)
EW_KERNEL(SELECT) EW_KERNEL(CLAMP) EW_KERNEL(CONVERT)
EW_KERNEL(ACOS) EW_KERNEL(ASIN) EW_KERNEL(ATAN) EW_KERNEL(ACOSH) EW_KERNEL(ASINH) EW_KERNEL(ATANH)
EW_KERNEL(COSH) EW_KERNEL(SINH) EW_KERNEL(ERFC) EW_KERNEL(SQUARE) EW_KERNEL(IS_INF) EW_KERNEL(IS_POS_INF)
EW_KERNEL(IS_NEG_INF) EW_KERNEL(LGAMMA) EW_KERNEL(DIGAMMA) EW_KERNEL(NEXT_AFTER) EW_KERNEL(ERF_INV)
EW_KERNEL(BESSEL_I1E) EW_KERNEL(ZETA) EW_KERNEL(POLYGAMMA) EW_KERNEL(CONJ) EW_KERNEL(CHLO_TAN) EW_KERNEL(MULHI)
