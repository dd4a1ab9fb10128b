/* Which ops take the small float formats and sub-byte integers
 * (include/plumb/lowp.h, docs/spec/types.md). */
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "plumb/lowp.h"
#include "plumb/fp8.h"
#include "plumb/ir.h"

/* Ops StableHLO gives floats that plumb runs on the FP8/FP6/FP4 formats:
 * each is correctly rounded in the format (ref/lowp.c, ref/crmath.c). */
static bool float_op(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT:
    case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG:
    case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE:
    case PLUMB_OP_COSINE: case PLUMB_OP_TAN: case PLUMB_OP_CHLO_TAN: case PLUMB_OP_IS_FINITE: case PLUMB_OP_ERF:
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH: case PLUMB_OP_ASINH:
    case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE:
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF: case PLUMB_OP_LGAMMA:
    case PLUMB_OP_DIGAMMA: case PLUMB_OP_ERF_INV: case PLUMB_OP_NEXT_AFTER:
    case PLUMB_OP_BESSEL_I1E: case PLUMB_OP_ZETA: case PLUMB_OP_POLYGAMMA:   /* ref/special2.c, rounded to odd */
    case PLUMB_OP_CONJ:   /* a real value's conjugate: the operand's bits */
    case PLUMB_OP_BATCH_NORM_INFERENCE: case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD:   /* statistics wide, each result rounded once (docs/spec/batchnorm.md) */
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_ATAN2: case PLUMB_OP_COMPARE: case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP:
    case PLUMB_OP_DOT_GENERAL: case PLUMB_OP_DOT: case PLUMB_OP_REDUCE_PRECISION:
    case PLUMB_OP_CONVOLUTION: case PLUMB_OP_DYNAMIC_CONV:   /* dot_general's numerics (docs/spec/conv.md) */
    case PLUMB_OP_TRIANGULAR_SOLVE: case PLUMB_OP_CHOLESKY:   /* computed wide, rounded once (docs/spec/linalg.md) */
    case PLUMB_OP_RNG_BIT_GENERATOR:   /* output: the unsigned integer output's bits (docs/spec/rng.md) */
        return true;
    default:
        return false;
    }
}

/* Ops StableHLO gives integers that plumb runs on i2/i4/ui2/ui4, wrapping
 * modulo 2^w as for the other integer types. */
static bool int_op(plumb_opcode op, bool is_signed)
{
    switch (op) {
    case PLUMB_OP_ABS: case PLUMB_OP_SIGN:
        return is_signed;
    case PLUMB_OP_NEGATE: case PLUMB_OP_NOT: case PLUMB_OP_POPCNT: case PLUMB_OP_COUNT_LEADING_ZEROS:
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_AND: case PLUMB_OP_OR: case PLUMB_OP_XOR: case PLUMB_OP_SHIFT_LEFT:
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: case PLUMB_OP_SHIFT_RIGHT_LOGICAL: case PLUMB_OP_COMPARE:
    case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP:
    case PLUMB_OP_DOT_GENERAL: case PLUMB_OP_DOT:   /* sums of products: wrapping, or rounded once to a float result */
    case PLUMB_OP_CONVOLUTION: case PLUMB_OP_DYNAMIC_CONV:   /* sums of products, wrapping */
    case PLUMB_OP_RNG_BIT_GENERATOR:   /* output: the low w bits of each 32-bit value (docs/spec/rng.md) */
        return true;
    default:
        return false;
    }
}

/* Ops that fold, window or scatter values of any element type through a
 * body region: the body's ops decide the arithmetic (each step rounded to
 * the element type by the elementwise ops above), ref/reduce.c and
 * runtime/k_lowp_reduce.c the order (docs/spec/types.md, "Reductions"). */
static bool region_op(plumb_opcode op)
{
    return op == PLUMB_OP_REDUCE || op == PLUMB_OP_REDUCE_WINDOW || op == PLUMB_OP_SELECT_AND_SCATTER;
}

/* Ops that move, index, order or pass values of any element type (the
 * spec's "tensor" operands): bytes to the kernels, order through compare
 * (ref/lowp.c, runtime/k_lowp.c) where they compare. */
static bool any_type_op(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_GATHER: case PLUMB_OP_SCATTER:
    case PLUMB_OP_SORT: case PLUMB_OP_TOP_K: case PLUMB_OP_OPTIMIZATION_BARRIER: case PLUMB_OP_WHILE:
    case PLUMB_OP_IF: case PLUMB_OP_CASE: case PLUMB_OP_MAP: case PLUMB_OP_GET_DIMENSION_SIZE:
    /* the dynamic-shape ops run their static counterparts' kernels */
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE: case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD: case PLUMB_OP_DYNAMIC_GATHER:
        return true;
    default:
        return false;
    }
}

bool ir_lowp_accepts(plumb_opcode op, plumb_dtype t)
{
    if (region_op(op) || any_type_op(op))
        return plumb_fpfmt_get(t) || plumb_dtype_is_subbyte_int(t);
    if (plumb_fpfmt_get(t))
        return float_op(op);
    if (plumb_dtype_is_subbyte_int(t))
        return int_op(op, plumb_dtype_is_signed(t));
    return false;
}

bool ir_lowp_elementwise(const ir_op *op)
{
    if (op->code >= PLUMB_OP_COUNT || plumb_op_get(op->code)->kind != PLUMB_KIND_ELEMENTWISE ||
        op->code == PLUMB_OP_CONVERT || op->code == PLUMB_OP_BITCAST_CONVERT)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] && plumb_dtype_is_lowp(op->operands[i]->type.dtype))
            return true;
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] && plumb_dtype_is_lowp(op->results[i]->type.dtype))
            return true;
    return false;
}

/* ---- next_after and erf_inv on the small float formats ------------------------
 * Shared by ref/lowp.c and runtime/k_lowp.c (whose tables are built from
 * it): both are decided on the format's own value set, which the IEEE
 * pattern arithmetic of the wide types does not fit (FNUZ spends -0 on its
 * NaN, FN has no infinity above its largest value, E8M0 has no sign and no
 * zero). docs/spec/types.md, "next_after and erf_inv". */

static uint32_t lowp_quiet(const plumb_fpfmt *f, uint32_t x)
{
    return f->nan == PLUMB_FPNAN_IEEE ? x | (1u << (f->mant - 1)) : x;
}

#define LOWP_NONE UINT32_MAX

/* The nearest value beyond v[x] upward (up) or downward in the format's
 * value set; of the two zeros, the one on x's side (IEEE: nextafter(-tiny,
 * +1) is -0). LOWP_NONE when there is none. Depends on x and the direction
 * only, never on the target y. */
static uint32_t lowp_scan(const double *v, const bool *nan, uint32_t n, uint32_t x, bool up)
{
    double a = v[x], bv = 0;
    bool neg_side = a < 0, found = false;
    uint32_t best = LOWP_NONE;
    for (uint32_t p = 0; p < n; p++) {
        if (nan[p])
            continue;
        double w = v[p];
        if (up ? !(w > a) : !(w < a))
            continue;
        bool better = !found || (up ? w < bv : w > bv);
        if (!better && w == bv && w == 0 && (signbit(w) != 0) == neg_side)
            better = true;
        if (better) {
            best = p;
            bv = w;
            found = true;
        }
    }
    return best;
}

/* The value set of one format, decoded once per format and thread (the
 * last format used): v[p] the value of pattern p, nan[p] whether it is a
 * NaN, and each non-NaN pattern's neighbours up[p] and down[p] by
 * lowp_scan. next_after used to decode all 2^bits patterns and scan them
 * for every element; the scan is the same, made once per pattern and
 * direction, so the result is the same. */
typedef struct lowp_values {
    const plumb_fpfmt *f;
    double v[256];
    bool nan[256];
    uint32_t up[256], down[256];
} lowp_values;

static const lowp_values *lowp_values_of(const plumb_fpfmt *f)
{
    static _Thread_local lowp_values tab;
    if (tab.f != f) {
        uint32_t n = 1u << f->bits;
        for (uint32_t p = 0; p < n; p++) {
            tab.nan[p] = plumb_small_is_nan(f, p);
            tab.v[p] = tab.nan[p] ? 0 : plumb_small_to_f64(f, p);
        }
        for (uint32_t p = 0; p < n; p++) {
            tab.up[p] = tab.nan[p] ? LOWP_NONE : lowp_scan(tab.v, tab.nan, n, p, true);
            tab.down[p] = tab.nan[p] ? LOWP_NONE : lowp_scan(tab.v, tab.nan, n, p, false);
        }
        tab.f = f;
    }
    return &tab;
}

uint32_t ir_lowp_next_after(const plumb_fpfmt *f, uint32_t x, uint32_t y)
{
    if (plumb_small_is_nan(f, x))
        return lowp_quiet(f, x);
    if (plumb_small_is_nan(f, y))
        return lowp_quiet(f, y);
    double a = plumb_small_to_f64(f, x), b = plumb_small_to_f64(f, y);
    if (a == b)
        return y;
    /* every small format has <= 8 bits */
    const lowp_values *tab = lowp_values_of(f);
    uint32_t r = b > a ? tab->up[x] : tab->down[x];
    /* y itself lies beyond a, so a value was found: a format's largest
     * value never steps further (y would have to exceed it) */
    return r != LOWP_NONE ? r : y;
}

/* erf(m) < x, with erf(m) at 200 bits (x has at most 5 significant bits,
 * erf(m) for a double m != 0 is not a dyadic rational: never equal).
 * Shortcut: erfl(m) (m is exact in long double) is taken to lie within 16
 * ulps of erf(m), the bound ref/crmath.c's fast path assumes of the C
 * library; the comparison is decided by it when erfl(m) and x are more
 * than 128 of its ulps apart (then erf(m) and its 200-bit rounding lie on
 * the same side of x as erfl(m)), and by MPFR otherwise. */
static bool erf_below(double m, double x, mpfr_t t)
{
    long double el = erfl((long double)m);
    long double e = ldexpl(fabsl(el), 7 - LDBL_MANT_DIG);
    if (el + e < x)
        return true;
    if (el - e > x)
        return false;
    mpfr_set_d(t, m, MPFR_RNDN);
    mpfr_erf(t, t, MPFR_RNDN);
    return mpfr_cmp_d(t, x) < 0;
}

uint32_t ir_lowp_erf_inv(const plumb_fpfmt *f, uint32_t x)
{
    if (plumb_small_is_nan(f, x))
        return lowp_quiet(f, x);
    double a = plumb_small_to_f64(f, x);
    if (a == 0)
        return x;
    if (fabs(a) > 1)
        return plumb_f64_to_small(f, NAN);
    if (fabs(a) == 1)
        return plumb_f64_to_small(f, copysign(INFINITY, a));
    /* erf^-1 is odd: bisect for |y| over doubles until lo and hi are
     * neighbours, erf(lo) < |a| <= erf(hi); y lies strictly between them,
     * so the one of the two with an odd last bit is y rounded to odd at 53
     * bits, which the codec rounds once more correctly (Boldo & Melquiond
     * 2008: 53 >= p + 2). |a| <= 1 - 2^-5 in every format, so y < 1.6. */
    double ax = fabs(a), lo = 0, hi = 2;
    mpfr_t t;
    mpfr_init2(t, 200);
    for (;;) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (erf_below(mid, ax, t))
            lo = mid;
        else
            hi = mid;
    }
    mpfr_clear(t);
    uint64_t lb;
    memcpy(&lb, &lo, sizeof lb);
    double y = (lb & 1) ? lo : hi;
    return plumb_f64_to_small(f, copysign(y, a));
}

/* ---- reduce_precision on the small float formats --------------------------------
 * x is widened exactly to f64 and rounded there as the wide types are
 * (ref/elementwise.c, after XLA): the significand to mb bits, nearest even
 * (a carry may raise the exponent); then, when eb < 11, a magnitude whose
 * exponent lies above the (eb, mb) format's largest becomes +-inf and one
 * below its smallest normal becomes +-0 (that format has no subnormals).
 * A NaN is returned unchanged when mb > 0 and is +inf when mb = 0 (the
 * reduced format has no NaN), as for the wide types. The result goes back
 * through the format's codec (ir/fp8.c), convert's rule, since StableHLO's
 * result type is the operand's: an infinity becomes the NaN of the
 * formats that have a NaN but no infinity (f8E4M3FN, the FNUZ formats,
 * f8E8M0FNU) and the largest finite value of those with neither (FP6,
 * FP4); -0 becomes +0 in FNUZ and 0 becomes 2^-127 in f8E8M0FNU. A source subnormal is a normal f64, so its
 * significand is rounded relative to its own leading bit: the value is
 * rounded to the (eb, mb) format, not to the source's bit layout.
 * docs/spec/types.md, "reduce_precision". */
uint32_t ir_lowp_reduce_precision(const plumb_fpfmt *f, uint32_t x, int eb, int mb)
{
    if (plumb_small_is_nan(f, x))
        return mb > 0 ? x : plumb_f64_to_small(f, INFINITY);
    double v = plumb_small_to_f64(f, x);
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    if (mb < 52) {
        int s = 52 - mb;
        uint64_t last = 1ull << s;
        b = (b + ((b & last) >> s) + ((last >> 1) - 1)) & ~(last - 1);
    }
    if (eb < 11) {
        const uint64_t em = 0x7ffull << 52, sign = 1ull << 63;
        uint64_t bias = 1023, rb = (1ull << (eb - 1)) - 1, xe = b & em;
        if (xe > ((bias + rb) << 52))
            b = (b & sign) | em;
        else if (xe <= ((bias - rb) << 52))
            b &= sign;
    }
    memcpy(&v, &b, sizeof v);
    return plumb_f64_to_small(f, v);
}
