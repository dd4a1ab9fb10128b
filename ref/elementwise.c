/* Reference kernels of the elementwise ops: an element loop over a scalar
 * function per element-type class. docs/spec/elementwise.md states every
 * op's semantics, type rules and edge cases; the block above each kernel
 * summarizes them.
 *
 * Elements are handled as bit patterns (uint64_t, zero-extended): integers
 * are computed in unsigned arithmetic modulo 2^64 and truncated to their
 * width, so wrap-around is two's complement and never C undefined behaviour;
 * floats go through ref/crmath.c, which rounds every result correctly.
 * Every kernel works on empty tensors (the loop does nothing). */
#include <math.h>
#include <stdint.h>

#include "crmath.h"
#include "plumb/fp8.h"
#include "ref_internal.h"

/* Elements between two ref_poll calls. */
#define POLL_EVERY 4096

/* ---- element helpers ---------------------------------------------------- */

static unsigned width(plumb_dtype t) { return plumb_dtype_get(t)->bits; }

static uint64_t mask_of(plumb_dtype t)
{
    unsigned w = width(t);
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* The bits of a signed integer element as an int64_t (sign-extended). */
static int64_t sext(plumb_dtype t, uint64_t b)
{
    unsigned w = width(t);
    if (w >= 64)
        return (int64_t)b;
    uint64_t m = 1ull << (w - 1);
    b &= (1ull << w) - 1;
    return (b & m) ? -(int64_t)((m << 1) - b) : (int64_t)b;
}

static uint64_t ld(const plumb_tensor *t, uint64_t i) { return plumb_load_bits(t->dtype, t->data, i); }
static void st(plumb_tensor *t, uint64_t i, uint64_t v) { plumb_store_bits(t->dtype, t->data, i, v & mask_of(t->dtype)); }

static bool is_float(plumb_dtype t) { return plumb_dtype_is_float(t); }
static bool is_sint(plumb_dtype t) { return plumb_dtype_is_signed(t); }
static bool is_bool(plumb_dtype t) { return plumb_dtype_is_bool(t); }

static uint64_t sign_bit(plumb_dtype t) { return 1ull << (width(t) - 1); }

static bool fp_is_inf_or_nan(plumb_dtype t, uint64_t b)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint64_t e = (b >> d->mant_bits) & ((1ull << d->exp_bits) - 1);
    return e == (1ull << d->exp_bits) - 1;
}

static bool fp_is_zero(plumb_dtype t, uint64_t b) { return (b & ~sign_bit(t) & mask_of(t)) == 0; }

/* Index of element i in an operand that may be a scalar broadcast (select's
 * predicate, clamp's bounds). */
static uint64_t bidx(const plumb_tensor *t, uint64_t i) { return plumb_tensor_numel(t) == 1 ? 0 : i; }

/* Operands must have as many elements as the result (the verifier ensures
 * it; checked again so that a bad op is an error, never an out-of-bounds
 * read). A scalar is accepted where scalar_ok says so. */
static bool check_sizes(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, uint32_t n,
                        const plumb_tensor *out, uint32_t scalar_ok_mask)
{
    if (op->n_operands < n || op->n_results < 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "expected %u operands and 1 result", n);
    uint64_t want = plumb_tensor_numel(out);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t have = plumb_tensor_numel(in[k]);
        if (have != want && !((scalar_ok_mask >> k & 1) && have == 1))
            return ref_fail(c, op, PLUMB_ERR_INVALID,
                            "operand %u has %llu elements but the result has %llu", k,
                            (unsigned long long)have, (unsigned long long)want);
    }
    return true;
}

static bool bad_type(ref_ctx *c, const ir_op *op, plumb_dtype t)
{
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "element type %s is not supported by %s",
                    plumb_dtype_name(t), plumb_op_name(op->code));
}

static bool same_dtype(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, uint32_t first, uint32_t n,
                       plumb_dtype t)
{
    for (uint32_t k = first; k < first + n; k++)
        if (in[k]->dtype != t)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u has element type %s, expected %s", k,
                            plumb_dtype_name(in[k]->dtype), plumb_dtype_name(t));
    return true;
}

/* Polls every POLL_EVERY elements. */
static bool tick(ref_ctx *c, const ir_op *op, uint64_t i)
{
    return (i % POLL_EVERY) != 0 || i == 0 || ref_poll(c, op);
}

/* ---- generic loops -------------------------------------------------------- */

typedef uint64_t (*scalar1_fn)(plumb_dtype t, uint64_t x, const ir_op *op);
typedef uint64_t (*scalar2_fn)(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op);

/* out[i] = fn(in[0][i]); fn gets the operand's element type. */
static bool map1(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                 scalar1_fn fn)
{
    if (!check_sizes(c, op, in, 1, out[0], 0))
        return false;
    plumb_dtype t = in[0]->dtype;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, fn(t, ld(in[0], i), op));
    }
    return true;
}

static bool map2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                 scalar2_fn fn)
{
    if (!check_sizes(c, op, in, 2, out[0], 0) || !same_dtype(c, op, in, 1, 1, in[0]->dtype))
        return false;
    plumb_dtype t = in[0]->dtype;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, fn(t, ld(in[0], i), ld(in[1], i), op));
    }
    return true;
}

/* Float-only unary ops that crmath rounds correctly. */
static bool unary_cr(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                     cr_unary_fn f)
{
    if (!check_sizes(c, op, in, 1, out[0], 0))
        return false;
    plumb_dtype t = in[0]->dtype;
    if (!is_float(t))
        return bad_type(c, op, t);
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, cr_unary(f, t, ld(in[0], i)));
    }
    return true;
}

/* ---- correctly rounded float unary ops --------------------------------------
 * sqrt, rsqrt, cbrt, exponential, exponential_minus_one, log, log_plus_one,
 * logistic (1/(1+e^-x)), tanh, sine, cosine, tan, chlo.erf.
 * Floats only (f16, bf16, f32, f64). Result: the exact value rounded once to
 * nearest even, subnormals kept. NaN operand -> that NaN, quieted. Special
 * values per IEEE 754-2019 / C99 Annex F: sqrt(-0) = -0, sqrt(x<0) = NaN,
 * rsqrt(+-0) = +-inf, rsqrt(+inf) = +0, log(+-0) = -inf, log(x<0) = NaN,
 * log_plus_one(-1) = -inf, exp(-inf) = +0, expm1(-inf) = -1, tanh(+-inf) =
 * +-1, erf(+-inf) = +-1, logistic(-inf) = +0, logistic(+inf) = 1, sin, cos,
 * tan of +-inf = NaN; odd functions keep the sign of zero. Arguments of any
 * size are reduced exactly (sin(1e300) is correctly rounded). */
#define CR_UNARY_KERNEL(E, F) \
    bool ref_op_##E(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out) \
    { return unary_cr(c, op, in, out, F); }

CR_UNARY_KERNEL(SQRT, CR_SQRT)
CR_UNARY_KERNEL(RSQRT, CR_RSQRT)
CR_UNARY_KERNEL(CBRT, CR_CBRT)
CR_UNARY_KERNEL(EXPONENTIAL, CR_EXP)
CR_UNARY_KERNEL(EXPONENTIAL_MINUS_ONE, CR_EXPM1)
CR_UNARY_KERNEL(LOG, CR_LOG)
CR_UNARY_KERNEL(LOG_PLUS_ONE, CR_LOG1P)
CR_UNARY_KERNEL(LOGISTIC, CR_LOGISTIC)
CR_UNARY_KERNEL(TANH, CR_TANH)
CR_UNARY_KERNEL(SINE, CR_SIN)
CR_UNARY_KERNEL(COSINE, CR_COS)
CR_UNARY_KERNEL(TAN, CR_TAN)
CR_UNARY_KERNEL(CHLO_TAN, CR_TAN)   /* chlo.tan: stablehlo.tan under its CHLO name */
CR_UNARY_KERNEL(ERF, CR_ERF)

/* ---- CHLO's unary math (op set v2) ------------------------------------------
 * acos, asin, atan, acosh, asinh, atanh, cosh, sinh, erfc, lgamma, digamma.
 * Floats only; every result is the exact value rounded once to nearest even
 * in the operand's type, subnormals kept, overflow to +-inf. NaN operand ->
 * that NaN, quieted; an operand outside the domain -> the default NaN.
 * Domains and special values (C99 Annex F where C has the function; MPFR's
 * definitions, which agree with it, otherwise):
 *   acos: [-1, 1]; acos(1) = +0, acos(-1) = pi (rounded), acos(+-0) = pi/2.
 *   asin, atan, asinh, atanh and sinh are odd and keep the sign of zero:
 *   f(+-0) = +-0. asin: [-1, 1], asin(+-1) = +-pi/2 (rounded).
 *   atan(+-inf) = +-pi/2. asinh(+-inf) = +-inf. sinh(+-inf) = +-inf.
 *   acosh: [1, +inf]; acosh(1) = +0, acosh(x < 1) = NaN, acosh(+inf) = +inf.
 *   atanh: [-1, 1]; atanh(+-1) = +-inf, |x| > 1 -> NaN.
 *   cosh(+-0) = 1, cosh(+-inf) = +inf.
 *   erfc(-inf) = 2, erfc(+inf) = +0, erfc(+-0) = 1; underflows to
 *   subnormals and 0 for x > ~9 (f32) / ~27 (f64).
 *   lgamma(x) = log|gamma(x)|: +inf at +-0 and at the negative integers
 *   (poles), lgamma(1) = lgamma(2) = +0, lgamma(+-inf) = +inf.
 *   digamma(x) = gamma'(x)/gamma(x): digamma(+0) = -inf, digamma(-0) = +inf,
 *   NaN at the negative integers and at -inf, digamma(+inf) = +inf,
 *   digamma(1) = -0.5772156649... (minus Euler's constant).
 * Arguments of any size are exact (cosh(710.5) in f64 is +inf, cosh(89.5)
 * in f32 too; sinh keeps the sign). */
CR_UNARY_KERNEL(ACOS, CR_ACOS)
CR_UNARY_KERNEL(ASIN, CR_ASIN)
CR_UNARY_KERNEL(ATAN, CR_ATAN)
CR_UNARY_KERNEL(ACOSH, CR_ACOSH)
CR_UNARY_KERNEL(ASINH, CR_ASINH)
CR_UNARY_KERNEL(ATANH, CR_ATANH)
CR_UNARY_KERNEL(COSH, CR_COSH)
CR_UNARY_KERNEL(SINH, CR_SINH)
CR_UNARY_KERNEL(ERFC, CR_ERFC)
CR_UNARY_KERNEL(LGAMMA, CR_LGAMMA)
CR_UNARY_KERNEL(DIGAMMA, CR_DIGAMMA)

/* ---- chlo.square --------------------------------------------------------------
 * Floats only: x * x correctly rounded (one IEEE multiplication, so exact
 * agreement): square(+-0) = +0, square(+-inf) = +inf, NaN -> NaN quieted,
 * overflow to +inf, underflow to subnormals and +0. */
static uint64_t s_square(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    return cr_binary(CR_MUL, t, x, x);
}

bool ref_op_SQUARE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_square);
}

/* ---- abs -----------------------------------------------------------------------
 * Floats: clears the sign bit (IEEE abs is a bit operation: NaN payloads,
 * even signaling ones, are kept). Signed integers: |x| modulo 2^w, so
 * abs(INT_MIN) = INT_MIN. Unsigned: x. */
static uint64_t s_abs(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return x & ~sign_bit(t);
    if (is_sint(t))
        return sext(t, x) < 0 ? 0 - x : x;
    return x;
}

bool ref_op_ABS(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (is_bool(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_abs);
}

/* ---- negate ---------------------------------------------------------------------
 * Floats: flips the sign bit (NaN payload kept; -(+0) = -0). Integers:
 * 0 - x modulo 2^w (negate(INT_MIN) = INT_MIN; unsigned wraps: -1 -> max). */
static uint64_t s_negate(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    return is_float(t) ? x ^ sign_bit(t) : 0 - x;
}

bool ref_op_NEGATE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (is_bool(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_negate);
}

/* ---- chlo.conj -----------------------------------------------------------------
 * Floats: the operand itself, bit for bit (CHLO's ConjOp takes floats; its
 * legalization passes them through). Complex operands run in ref/complex.c. */
static uint64_t s_conj(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)t;
    (void)op;
    return x;
}

bool ref_op_CONJ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_conj);
}

/* ---- sign ----------------------------------------------------------------------
 * Floats: NaN -> NaN (quieted), +-0 -> +-0, otherwise +-1 (+-inf -> +-1).
 * Signed integers: -1, 0 or 1. Unsigned: 0 or 1. */
static uint64_t s_sign(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    if (is_float(t)) {
        if (cr_is_nan(t, x))
            return cr_quiet(t, x);
        if (fp_is_zero(t, x))
            return x;
        return cr_from_double(t, (x & sign_bit(t)) ? -1.0 : 1.0);
    }
    if (is_sint(t)) {
        int64_t v = sext(t, x);
        return v < 0 ? ~0ull : (v > 0);
    }
    return x != 0;
}

bool ref_op_SIGN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (is_bool(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_sign);
}

/* ---- floor, ceil, round_nearest_even, round_nearest_afz ---------------------------
 * Floats only; exact (an integral value of a float type is representable in
 * it). NaN -> NaN quieted, +-inf and +-0 unchanged, the sign of zero kept
 * (floor(-0.5) = -1, ceil(-0.5) = -0, round_nearest_even(-0.5) = -0,
 * round_nearest_afz(-0.5) = -1, round_nearest_afz(2.5) = 3,
 * round_nearest_even(2.5) = 2). Computed on the exact double value. */
enum rounding { RD_FLOOR, RD_CEIL, RD_EVEN, RD_AFZ };

static uint64_t round_int(plumb_dtype t, uint64_t x, enum rounding r)
{
    if (cr_is_nan(t, x))
        return cr_quiet(t, x);
    double v = cr_to_double(t, x), y;
    switch (r) {
    case RD_FLOOR: y = floor(v); break;
    case RD_CEIL: y = ceil(v); break;
    case RD_AFZ: y = round(v); break;
    default: {
        /* ties to even without relying on the current rounding mode */
        y = floor(v);
        double d = v - y;          /* exact: 0 <= d < 1 */
        if (d > 0.5 || (d == 0.5 && fmod(y, 2.0) != 0))
            y += 1;
        y = copysign(y, v);        /* keeps -0 for -0.5 <= v <= -0 */
        break;
    }
    }
    return cr_from_double(t, y);   /* exact */
}

static uint64_t s_floor(plumb_dtype t, uint64_t x, const ir_op *op) { (void)op; return round_int(t, x, RD_FLOOR); }
static uint64_t s_ceil(plumb_dtype t, uint64_t x, const ir_op *op) { (void)op; return round_int(t, x, RD_CEIL); }
static uint64_t s_rne(plumb_dtype t, uint64_t x, const ir_op *op) { (void)op; return round_int(t, x, RD_EVEN); }
static uint64_t s_afz(plumb_dtype t, uint64_t x, const ir_op *op) { (void)op; return round_int(t, x, RD_AFZ); }

static bool float_map1(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                       scalar1_fn fn)
{
    if (!is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, fn);
}

bool ref_op_FLOOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return float_map1(c, op, in, out, s_floor); }
bool ref_op_CEIL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return float_map1(c, op, in, out, s_ceil); }
bool ref_op_ROUND_NEAREST_EVEN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return float_map1(c, op, in, out, s_rne); }
bool ref_op_ROUND_NEAREST_AFZ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return float_map1(c, op, in, out, s_afz); }

/* ---- is_finite -------------------------------------------------------------------
 * Floats in, i1 out: true unless the operand is +-inf or NaN. */
static uint64_t s_is_finite(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    return !fp_is_inf_or_nan(t, x);
}

bool ref_op_IS_FINITE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (out[0]->dtype != PLUMB_I1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the result must have element type i1");
    return float_map1(c, op, in, out, s_is_finite);
}

/* ---- chlo.is_inf, chlo.is_pos_inf, chlo.is_neg_inf --------------------------------
 * Floats in, i1 out: is_inf is true for +inf and -inf, is_pos_inf for +inf
 * only, is_neg_inf for -inf only; false for NaN (whatever its sign), zeros
 * and every finite value. */
static bool fp_is_inf(plumb_dtype t, uint64_t b)
{
    return fp_is_inf_or_nan(t, b) && !cr_is_nan(t, b);
}

static uint64_t s_is_inf(plumb_dtype t, uint64_t x, const ir_op *op)
{
    if (!fp_is_inf(t, x))
        return 0;
    switch (op->code) {
    case PLUMB_OP_IS_POS_INF: return (x & sign_bit(t)) == 0;
    case PLUMB_OP_IS_NEG_INF: return (x & sign_bit(t)) != 0;
    default: return 1;
    }
}

static bool is_inf_kernel(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (out[0]->dtype != PLUMB_I1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the result must have element type i1");
    return float_map1(c, op, in, out, s_is_inf);
}

bool ref_op_IS_INF(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return is_inf_kernel(c, op, in, out); }
bool ref_op_IS_POS_INF(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return is_inf_kernel(c, op, in, out); }
bool ref_op_IS_NEG_INF(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return is_inf_kernel(c, op, in, out); }

/* ---- not, popcnt, count_leading_zeros ----------------------------------------------
 * not: i1 -> logical not; integers -> bitwise complement.
 * popcnt: number of set bits of the w-bit pattern (signed integers too).
 * count_leading_zeros: leading zero bits of the w-bit pattern; of 0 it is w. */
static uint64_t s_not(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    return is_bool(t) ? (x == 0) : ~x;
}

static uint64_t s_popcnt(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    return (uint64_t)__builtin_popcountll(x & mask_of(t));
}

static uint64_t s_clz(plumb_dtype t, uint64_t x, const ir_op *op)
{
    (void)op;
    x &= mask_of(t);
    if (x == 0)
        return width(t);
    return (uint64_t)(__builtin_clzll(x) - (64 - (int)width(t)));
}

bool ref_op_NOT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, s_not);
}

static bool int_map1(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                     scalar1_fn fn)
{
    if (!plumb_dtype_is_int(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map1(c, op, in, out, fn);
}

bool ref_op_POPCNT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return int_map1(c, op, in, out, s_popcnt); }
bool ref_op_COUNT_LEADING_ZEROS(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return int_map1(c, op, in, out, s_clz); }

/* ---- reduce_precision ---------------------------------------------------------------
 * Rounds a float to a format with exponent_bits and mantissa_bits and back,
 * bit for bit as XLA (whose results the StableHLO testdata records): the
 * mantissa is rounded to nearest even on the bit pattern (a carry may raise
 * the exponent); then, if the exponent range shrinks, values above the
 * reduced format's largest exponent become +-inf and values at or below its
 * smallest normal exponent minus one become +-0 (the reduced format has no
 * subnormals). A NaN operand is returned unchanged when the reduced format
 * keeps a mantissa bit; with mantissa_bits = 0 it has no NaN to round to
 * and the result is +inf whatever the NaN's sign, as StableHLO's
 * interpreter (reducePrecision in Element.cpp) and XLA return. */
static uint64_t reduce_precision(plumb_dtype t, uint64_t x, int eb, int mb)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    int smant = (int)d->mant_bits, sexp = (int)d->exp_bits;
    if (cr_is_nan(t, x))
        return mb > 0 ? x : ((1ull << sexp) - 1) << smant;
    uint64_t v = x, m = mask_of(t);
    if (mb < smant) {
        int s = smant - mb;
        uint64_t last = 1ull << s;
        uint64_t base_bias = (last >> 1) - 1;
        uint64_t last_bit = (v & last) >> s;
        v = ((v + last_bit + base_bias) & ~(last - 1)) & m;
    }
    if (eb < sexp) {
        uint64_t sign = sign_bit(t);
        uint64_t expmask = ((1ull << sexp) - 1) << smant;
        uint64_t bias = (1ull << (sexp - 1)) - 1;
        uint64_t rbias = (1ull << (eb - 1)) - 1;
        uint64_t rmax = bias + rbias, rmin = bias - rbias;
        uint64_t xe = v & expmask;
        if (xe > (rmax << smant))
            v = (v & sign) | expmask;
        else if (xe <= (rmin << smant))
            v = v & sign;
    }
    return v;
}

bool ref_op_REDUCE_PRECISION(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!check_sizes(c, op, in, 1, out[0], 0))
        return false;
    plumb_dtype t = in[0]->dtype;
    if (!is_float(t))
        return bad_type(c, op, t);
    int eb = op->a.exponent_bits, mb = op->a.mantissa_bits;
    if (eb < 1 || mb < 0)
        return ref_fail(c, op, PLUMB_ERR_INVALID,
                        "exponent_bits must be >= 1 and mantissa_bits >= 0 (got %d and %d)", eb, mb);
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, reduce_precision(t, ld(in[0], i), eb, mb));
    }
    return true;
}

/* ---- add, subtract, multiply -------------------------------------------------------
 * Floats: correctly rounded (IEEE). Integers: modulo 2^w (two's complement
 * wrap-around). i1: add is logical or, multiply is logical and (the
 * StableHLO spec's boolean semantics); subtract does not take i1. */
static uint64_t s_add(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return cr_binary(CR_ADD, t, a, b);
    return is_bool(t) ? (a | b) : a + b;
}

static uint64_t s_sub(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    return is_float(t) ? cr_binary(CR_SUB, t, a, b) : a - b;
}

static uint64_t s_mul(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return cr_binary(CR_MUL, t, a, b);
    return is_bool(t) ? (a & b) : a * b;
}

bool ref_op_ADD(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return map2(c, op, in, out, s_add); }
bool ref_op_MULTIPLY(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return map2(c, op, in, out, s_mul); }

static bool nobool_map2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                        scalar2_fn fn)
{
    if (is_bool(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, fn);
}

bool ref_op_SUBTRACT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return nobool_map2(c, op, in, out, s_sub); }

/* ---- divide, remainder ------------------------------------------------------------------
 * Floats: divide is IEEE division (correctly rounded; x/+-0 = +-inf, 0/0 =
 * NaN); remainder is C fmod (exact; sign of the dividend; x rem 0 = NaN,
 * x rem inf = x).
 * Integers: quotient truncated toward zero, remainder with the sign of the
 * dividend (a == (a/b)*b + a%b). Division by zero (which StableHLO leaves to
 * the implementation) follows XLA: a/0 = -1 (all bits set, so the unsigned
 * maximum), a%0 = a. Signed overflow: INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0. */
static uint64_t s_div(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return cr_binary(CR_DIV, t, a, b);
    uint64_t m = mask_of(t);
    if ((b & m) == 0)
        return ~0ull;
    if (is_sint(t)) {
        int64_t x = sext(t, a), y = sext(t, b);
        if (y == -1)
            return 0 - (uint64_t)x;            /* wraps INT_MIN to itself */
        return (uint64_t)(x / y);
    }
    return (a & m) / (b & m);
}

static uint64_t s_rem(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return cr_binary(CR_REM, t, a, b);
    uint64_t m = mask_of(t);
    if ((b & m) == 0)
        return a;
    if (is_sint(t)) {
        int64_t x = sext(t, a), y = sext(t, b);
        if (y == -1)
            return 0;
        return (uint64_t)(x % y);
    }
    return (a & m) % (b & m);
}

bool ref_op_DIVIDE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return nobool_map2(c, op, in, out, s_div); }
bool ref_op_REMAINDER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return nobool_map2(c, op, in, out, s_rem); }

/* ---- power ----------------------------------------------------------------------------
 * Floats: IEEE 754-2019 / C99 pow, correctly rounded: pow(x, +-0) = 1 and
 * pow(+1, y) = 1 even for NaN; pow(x<0, non-integer) = NaN; pow(+-0, y<0)
 * = +inf or +-inf for odd integers; pow(-1, +-inf) = 1.
 * Integers: exact power modulo 2^w (repeated squaring), 0^0 = 1. Negative
 * exponents (signed types): the quotient 1 / x^|y| truncated toward zero:
 * 1 for x = 1, +-1 for x = -1 (by the parity of y), 0 otherwise, and 0 for
 * x = 0 (no infinity in integers; StableHLO leaves it open). */
static uint64_t s_pow(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (is_float(t))
        return cr_binary(CR_POW, t, a, b);
    uint64_t e = b & mask_of(t);
    if (is_sint(t)) {
        int64_t y = sext(t, b), x = sext(t, a);
        if (y < 0) {
            if (x == 1)
                return 1;
            if (x == -1)
                return (y & 1) ? ~0ull : 1;
            return 0;
        }
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

bool ref_op_POWER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return nobool_map2(c, op, in, out, s_pow); }

/* ---- atan2 ----------------------------------------------------------------------------
 * Floats only: atan2(lhs = y, rhs = x), correctly rounded, C99 F.9.1.4 for
 * special values (atan2(+-0, -0) = +-pi, atan2(+-0, +0) = +-0,
 * atan2(+-inf, -inf) = +-3pi/4, ...). */
static uint64_t s_atan2(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    return cr_binary(CR_ATAN2, t, a, b);
}

bool ref_op_ATAN2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, s_atan2);
}

/* ---- chlo.next_after --------------------------------------------------------------------
 * Floats only, exact: the next value of the type after x (first operand) in
 * the direction of y (second), as C's nextafter. A NaN operand gives it
 * quieted (x's first); x == y gives y (so next_after(+0, -0) = -0); from
 * +-0 the result is the smallest subnormal with y's sign; from +-max toward
 * +-inf it is +-inf, from +-inf toward a finite y it is +-max. Subnormals
 * are stepped like every other value (no flush). */
static uint64_t s_next_after(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    if (cr_is_nan(t, a))
        return cr_quiet(t, a);
    if (cr_is_nan(t, b))
        return cr_quiet(t, b);
    double x = cr_to_double(t, a), y = cr_to_double(t, b);
    if (x == y)
        return b;
    if (fp_is_zero(t, a))
        return (b & sign_bit(t)) | 1;
    /* sign-magnitude bits: moving away from zero adds one to the pattern */
    return ((x < y) == (x > 0)) ? a + 1 : a - 1;
}

bool ref_op_NEXT_AFTER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, s_next_after);
}

/* ---- chlo.mulhi ------------------------------------------------------------------------
 * Integers only (i8..i64, ui8..ui64), exact: the high W bits of the 2W-bit
 * product of the operands, both read as signed for a signed type (two's
 * complement: mulhi(-64, 4) on i8 = -256 >> 8 = -1) and as unsigned for an
 * unsigned type (mulhi(240, 16) on ui8 = 3840 >> 8 = 15). The high half is
 * floor(x * y / 2^W), so a negative product rounds toward -inf. It never
 * overflows: |x * y| < 2^(2W-2) except INT_MIN * INT_MIN = 2^(2W-2), whose
 * high half 2^(W-2) fits. Widths up to 32 take the product exactly in
 * int64_t/uint64_t; 64-bit ones assemble the 128-bit unsigned product from
 * four 32x32-bit partial products, then correct it to the signed one by
 * hi_s = hi_u - (x < 0 ? y : 0) - (y < 0 ? x : 0) mod 2^64 (reading a
 * negative x as unsigned adds 2^64 * y to the product, and likewise y). */
static uint64_t umulhi64(uint64_t x, uint64_t y)
{
    uint64_t xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu, yh = y >> 32;
    uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    /* carry out of bits 32..63: the sum of three values below 2^32 each */
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint64_t s_mulhi(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    unsigned w = width(t);
    if (w == 64) {
        uint64_t hi = umulhi64(a, b);
        if (is_sint(t)) {
            if (a >> 63)
                hi -= b;
            if (b >> 63)
                hi -= a;
        }
        return hi;
    }
    if (is_sint(t)) {
        /* exact in int64_t (|product| <= 2^62); the shift of its unsigned
         * bits keeps the two's complement pattern, the store truncates */
        uint64_t p = (uint64_t)(sext(t, a) * sext(t, b));
        return (p >> w) & mask_of(t);
    }
    return (((a & mask_of(t)) * (b & mask_of(t))) >> w) & mask_of(t);
}

bool ref_op_MULHI(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!plumb_dtype_is_int(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, s_mulhi);
}

/* ---- maximum, minimum ---------------------------------------------------------------------
 * Floats: IEEE 754-2019 maximum/minimum: a NaN operand propagates (the
 * first NaN, quieted), -0 < +0. Integers: signed or unsigned order. i1:
 * maximum is or, minimum is and. */
static uint64_t minmax(plumb_dtype t, uint64_t a, uint64_t b, bool want_max)
{
    if (is_float(t)) {
        if (cr_is_nan(t, a))
            return cr_quiet(t, a);
        if (cr_is_nan(t, b))
            return cr_quiet(t, b);
        double x = cr_to_double(t, a), y = cr_to_double(t, b);
        if (x == y) {                  /* equal, or zeros of either sign */
            bool a_neg = (a & sign_bit(t)) != 0;
            return (want_max ? !a_neg : a_neg) ? a : b;
        }
        return ((x > y) == want_max) ? a : b;
    }
    bool a_gt;
    if (is_sint(t))
        a_gt = sext(t, a) > sext(t, b);
    else
        a_gt = (a & mask_of(t)) > (b & mask_of(t));
    return (a_gt == want_max) ? a : b;
}

static uint64_t s_max(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op) { (void)op; return minmax(t, a, b, true); }
static uint64_t s_min(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op) { (void)op; return minmax(t, a, b, false); }

bool ref_op_MAXIMUM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return map2(c, op, in, out, s_max); }
bool ref_op_MINIMUM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return map2(c, op, in, out, s_min); }

/* ---- and, or, xor -------------------------------------------------------------------------
 * i1 and integers: bitwise (on i1, logical). */
static uint64_t s_and(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op) { (void)t; (void)op; return a & b; }
static uint64_t s_or(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op) { (void)t; (void)op; return a | b; }
static uint64_t s_xor(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op) { (void)t; (void)op; return a ^ b; }

static bool bits_map2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                      scalar2_fn fn)
{
    if (is_float(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, fn);
}

bool ref_op_AND(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return bits_map2(c, op, in, out, s_and); }
bool ref_op_OR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return bits_map2(c, op, in, out, s_or); }
bool ref_op_XOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return bits_map2(c, op, in, out, s_xor); }

/* ---- shift_left, shift_right_arithmetic, shift_right_logical ----------------------------------
 * Integers. The shift amount is the rhs read as an unsigned w-bit number, so
 * a negative amount is a huge one. Amounts >= w (as StableHLO's
 * interpreter and XLA define them): shift_left and shift_right_logical give
 * 0; shift_right_arithmetic gives 0 or -1 (the sign filled in). */
static uint64_t s_shl(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    uint64_t s = b & mask_of(t);
    return s >= width(t) ? 0 : a << s;
}

static uint64_t s_shr_logical(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    uint64_t s = b & mask_of(t);
    return s >= width(t) ? 0 : (a & mask_of(t)) >> s;
}

static uint64_t s_shr_arith(plumb_dtype t, uint64_t a, uint64_t b, const ir_op *op)
{
    (void)op;
    uint64_t s = b & mask_of(t), w = width(t);
    bool neg = (a & sign_bit(t)) != 0;
    if (s >= w)
        return neg ? ~0ull : 0;
    uint64_t r = (a & mask_of(t)) >> s;
    if (neg && s > 0)
        r |= ~0ull << (w - s);         /* fill the vacated high bits with ones */
    return r;
}

static bool shift_map2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                       scalar2_fn fn)
{
    if (!plumb_dtype_is_int(in[0]->dtype))
        return bad_type(c, op, in[0]->dtype);
    return map2(c, op, in, out, fn);
}

bool ref_op_SHIFT_LEFT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return shift_map2(c, op, in, out, s_shl); }
bool ref_op_SHIFT_RIGHT_ARITHMETIC(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return shift_map2(c, op, in, out, s_shr_arith); }
bool ref_op_SHIFT_RIGHT_LOGICAL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{ return shift_map2(c, op, in, out, s_shr_logical); }

/* ---- compare ---------------------------------------------------------------------------------
 * Result i1. Directions EQ NE LT LE GT GE. Types:
 *   FLOAT       IEEE comparison: NaN is unordered (every direction false but
 *               NE, which is true), -0 == +0.
 *   TOTALORDER  IEEE 754-2019 totalOrder: -NaN < -inf < ... < -0 < +0 < ...
 *               < +inf < +NaN (NaNs ordered by payload).
 *   WEAKORDER   a weak order: every NaN (either sign, any payload) equals
 *               every other NaN and is above +inf; -0 == +0; other values
 *               in numeric order (StableHLO's interpreter tests,
 *               compare.mlir: -NaN == +NaN, +inf < -NaN).
 *   SIGNED      two's complement order; UNSIGNED: unsigned order (i1: 0 < 1).
 *   not given   the element type decides: FLOAT for floats, SIGNED for
 *               signed integers, UNSIGNED for unsigned integers and i1.
 * FLOAT, TOTALORDER and WEAKORDER need floats; SIGNED and UNSIGNED need i1
 * or integers. */
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

static uint64_t total_key(plumb_dtype t, uint64_t b)
{
    uint64_t m = mask_of(t);
    b &= m;
    return (b & sign_bit(t)) ? (~b & m) : (b | sign_bit(t));
}

static uint64_t compare_elems(plumb_dtype t, ir_cmp_type ty, ir_cmp_dir d, uint64_t a, uint64_t b)
{
    switch (ty) {
    case IR_CMP_FLOAT: {
        if (cr_is_nan(t, a) || cr_is_nan(t, b))
            return d == IR_CMP_NE;
        double x = cr_to_double(t, a), y = cr_to_double(t, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    case IR_CMP_TOTALORDER: {
        uint64_t x = total_key(t, a), y = total_key(t, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    case IR_CMP_WEAKORDER: {
        bool na = cr_is_nan(t, a), nb = cr_is_nan(t, b);
        if (na || nb)
            return dir_holds(d, (int)na - (int)nb);
        double x = cr_to_double(t, a), y = cr_to_double(t, b);
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

bool ref_op_COMPARE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!check_sizes(c, op, in, 2, out[0], 0) || !same_dtype(c, op, in, 1, 1, in[0]->dtype))
        return false;
    plumb_dtype t = in[0]->dtype;
    if (out[0]->dtype != PLUMB_I1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the result must have element type i1");
    ir_cmp_type ty = op->a.cmp_type;
    if (ty == IR_CMP_TYPE_NONE)
        ty = is_float(t) ? IR_CMP_FLOAT : is_sint(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
    bool float_ty = ty == IR_CMP_FLOAT || ty == IR_CMP_TOTALORDER || ty == IR_CMP_WEAKORDER;
    if (float_ty != is_float(t))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "comparison type %s does not apply to element type %s",
                        ty == IR_CMP_FLOAT ? "FLOAT" : ty == IR_CMP_TOTALORDER ? "TOTALORDER"
                        : ty == IR_CMP_WEAKORDER ? "WEAKORDER"
                        : ty == IR_CMP_SIGNED ? "SIGNED" : "UNSIGNED", plumb_dtype_name(t));
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, compare_elems(t, ty, op->a.cmp_dir, ld(in[0], i), ld(in[1], i)));
    }
    return true;
}

/* ---- select ------------------------------------------------------------------------------------
 * select(pred, on_true, on_false): pred is i1, either one element for the
 * whole tensor or one per element; the value is copied bit for bit (NaN
 * payloads kept). */
bool ref_op_SELECT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!check_sizes(c, op, in, 3, out[0], 1u) || !same_dtype(c, op, in, 2, 1, in[1]->dtype))
        return false;
    if (in[0]->dtype != PLUMB_I1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the predicate must have element type i1");
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        bool p = ld(in[0], bidx(in[0], i)) != 0;
        st(out[0], i, ld(p ? in[1] : in[2], i));
    }
    return true;
}

/* ---- clamp ---------------------------------------------------------------------------------------
 * clamp(min, operand, max) = minimum(maximum(operand, min), max) with the
 * maximum/minimum semantics above (floats: NaN in any operand gives NaN,
 * -0 < +0); min and max may each be a single element for the whole tensor.
 * min > max is not an error: the result is then max. */
bool ref_op_CLAMP(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!check_sizes(c, op, in, 3, out[0], 5u))
        return false;
    plumb_dtype t = in[1]->dtype;
    if (!same_dtype(c, op, in, 0, 1, t) || !same_dtype(c, op, in, 2, 1, t))
        return false;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        uint64_t lo = ld(in[0], bidx(in[0], i)), x = ld(in[1], i), hi = ld(in[2], bidx(in[2], i));
        st(out[0], i, minmax(t, minmax(t, x, lo, true), hi, false));
    }
    return true;
}

/* ---- convert --------------------------------------------------------------------------------------
 * Element type conversion (not bitcast_convert):
 *   i1 -> number      false = 0, true = 1.
 *   number -> i1      x != 0 (IEEE compare: NaN != 0 is true, so NaN -> true;
 *                     -0 -> false).
 *   int -> int        two's complement truncation / sign or zero extension
 *                     (modulo 2^w, as XLA; StableHLO leaves it open).
 *   int -> float      rounded once to nearest even (i64 and ui64 to f16 or
 *                     bf16 never pass through another float type).
 *   float -> float    rounded once to nearest even; subnormals kept; NaN stays
 *                     NaN (quiet, sign and top payload bits kept).
 *   float -> int      truncated toward zero, saturated to the integer range
 *                     (+-inf too), NaN -> 0 (as XLA; StableHLO leaves it open).
 *                     Done with explicit comparisons: a C cast of an
 *                     out-of-range value is undefined behaviour. */
static uint64_t int_to_float(plumb_dtype dst, bool neg, uint64_t mag)
{
    if (dst == PLUMB_F64) {
        double d = (double)mag;                 /* one IEEE rounding */
        return plumb_f64_bits(neg ? -d : d);
    }
    if (dst == PLUMB_F32) {
        float f = (float)mag;                   /* one IEEE rounding */
        return plumb_f32_bits(neg ? -f : f);
    }
    /* f16, bf16: make an exact-or-odd 53-bit double, then round once. A
     * value rounded to odd at 53 bits rounds to <= 51 bits exactly as the
     * integer itself would. */
    double d;
    if (mag < (1ull << 53)) {
        d = (double)mag;                        /* exact */
    } else {
        int shift = 64 - __builtin_clzll(mag) - 53;
        uint64_t kept = mag >> shift;
        if (mag & ((1ull << shift) - 1))
            kept |= 1;                          /* sticky bit: round to odd */
        d = ldexp((double)kept, shift);         /* exact */
    }
    return cr_from_double(dst, neg ? -d : d);
}

static uint64_t float_to_int(plumb_dtype dst, double x)
{
    if (isnan(x))
        return 0;
    double t = trunc(x);
    unsigned w = width(dst);
    if (is_sint(dst)) {
        double lo = -ldexp(1.0, (int)w - 1), hi = ldexp(1.0, (int)w - 1);
        if (t < lo)
            return (uint64_t)1 << (w - 1);                /* INT_MIN */
        if (t >= hi)
            return ((uint64_t)1 << (w - 1)) - 1;          /* INT_MAX */
        return (uint64_t)(int64_t)t;                      /* in range: exact */
    }
    if (t < 0)
        return 0;
    if (t >= ldexp(1.0, (int)w))
        return mask_of(dst);
    return (uint64_t)t;
}

static uint64_t convert_elem(plumb_dtype src, plumb_dtype dst, uint64_t x)
{
    if (is_bool(dst)) {
        if (plumb_fpfmt_get(src))   /* E8M0 has no zero code; compare values */
            return cr_to_double(src, x) != 0;
        if (is_float(src))
            return cr_is_nan(src, x) || !fp_is_zero(src, x);
        return (x & mask_of(src)) != 0;
    }
    if (is_float(src)) {
        if (is_float(dst))
            return cr_from_double(dst, cr_to_double(src, x));   /* exact widening, one rounding */
        return float_to_int(dst, cr_to_double(src, x));
    }
    /* src is i1 or an integer */
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
    return neg ? 0 - mag : mag;                               /* truncated by st() */
}

bool ref_op_CONVERT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!check_sizes(c, op, in, 1, out[0], 0))
        return false;
    plumb_dtype src = in[0]->dtype, dst = out[0]->dtype;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (!tick(c, op, i))
            return false;
        st(out[0], i, convert_elem(src, dst, ld(in[0], i)));
    }
    return true;
}
