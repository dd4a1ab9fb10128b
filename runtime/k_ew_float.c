/* Vectorized elementwise loops for f32 (outside the vector math) and f64 element types (see rt_ew_args in
 * rt_internal.h): the element engine offers each op here first.
 *
 * Every loop computes the bits of the engine's per-element path (elem() in
 * k_elementwise.c; docs/runtime-ew-float.md says why each formula agrees):
 * NaN operands quieted with the first operand's NaN winning, the positive
 * default NaN when an operation creates one, -0 < +0 in maximum/minimum,
 * no flush of subnormals, MXCSR untouched.
 *
 * The body below EWF_BODY is compiled three times by including this file
 * into itself: portable (16-byte vectors, SSE2 on x86-64), AVX2 (32-byte)
 * and AVX-512 (64-byte), each on GCC vectors of the target's native width
 * (a wider generic vector makes GCC 12 lower comparisons and selects one
 * lane at a time). Only the rounding and square-root primitives differ per
 * ISA, and each gives the IEEE result (roundToIntegral, squareRoot), so the
 * bits are the same at every level. Lane choices are nested two-way
 * selects, which GCC keeps as vector blends. A tail shorter than a vector
 * runs the same vector code on a zero-padded copy. */
#ifndef EWF_BODY

#include <math.h>
#include <string.h>

#include "rt_internal.h"
#include "rt_math.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EWF_X86 1
#endif

/* vector values cross inlined helpers only; no ABI is exposed */
#pragma GCC diagnostic ignored "-Wpsabi"

#define F32_ABS 0x7FFFFFFF
#define F32_SIGN ((int32_t)0x80000000u)
#define F32_INF 0x7F800000
#define F32_QUIET 0x00400000
#define F32_DNAN 0x7FC00000
#define F32_ONE 0x3F800000
#define F32_2P23 0x4B000000
#define F64_ABS 0x7FFFFFFFFFFFFFFFll
#define F64_SIGN ((int64_t)0x8000000000000000ull)
#define F64_INF 0x7FF0000000000000ll
#define F64_QUIET 0x0008000000000000ll
#define F64_DNAN 0x7FF8000000000000ll
#define F64_ONE 0x3FF0000000000000ll
#define F64_2P52 0x4330000000000000ll

#define INL static inline __attribute__((always_inline))
#define EWF_CAT2(a, b) a##b
#define EWF_CAT(a, b) EWF_CAT2(a, b)
#define N(name) EWF_CAT(name, SUF)

enum ewf_rnd { R_EVEN, R_FLOOR, R_CEIL, R_TRUNC };

/* f32 remainder (fmod: the sign of x) of the lanes f32_rem does not take,
 * by the engine's rule (k_elementwise.c farith): a NaN operand quieted,
 * the first of two; an invalid operation the positive default NaN. */
static float f32_rem_lane(float x, float y)
{
    uint32_t b;
    if (x != x || y != y) {
        memcpy(&b, x != x ? &x : &y, 4);
        b |= F32_QUIET;
    } else {
        float r = fmodf(x, y);
        if (r == r)
            return r;
        b = F32_DNAN;
    }
    float r;
    memcpy(&r, &b, 4);
    return r;
}

/* f64 remainder of the lanes f64_rem does not take, by the same rule */
static double f64_rem_lane(double x, double y)
{
    uint64_t b;
    if (x != x || y != y) {
        memcpy(&b, x != x ? &x : &y, 8);
        b |= 0x0008000000000000ull;
    } else {
        double r = fmod(x, y);
        if (r == r)
            return r;
        b = 0x7FF8000000000000ull;
    }
    double r;
    memcpy(&r, &b, 8);
    return r;
}

/* the f64 exponential's table and scalar lanes (the vector code is in the
 * per-ISA body) */
#define MATH_F64_SHARED 1
#include "math_f64.h"
#undef MATH_F64_SHARED

/* ---- the loops ------------------------------------------------------------------ */

/* n elements of ET from in to out through the vector expression EXPR of x;
 * the tail runs the same expression on a zero-padded copy. */
#define UNARY_LOOP(VT, ET, LANES, EXPR)                                                 \
    do {                                                                                \
        size_t i_ = 0;                                                                  \
        for (; i_ + LANES <= n; i_ += LANES) {                                          \
            VT x, r;                                                                    \
            memcpy(&x, (const ET *)in + i_, sizeof x);                                  \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, sizeof r);                                       \
        }                                                                               \
        if (i_ < n) {                                                                   \
            VT x = {0}, r;                                                              \
            memcpy(&x, (const ET *)in + i_, (n - i_) * sizeof(ET));                     \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, (n - i_) * sizeof(ET));                          \
        }                                                                               \
    } while (0)

#define BINARY_LOOP(VT, ET, LANES, EXPR)                                                \
    do {                                                                                \
        size_t i_ = 0;                                                                  \
        for (; i_ + LANES <= n; i_ += LANES) {                                          \
            VT x, y, r;                                                                 \
            memcpy(&x, (const ET *)in0 + i_, sizeof x);                                 \
            memcpy(&y, (const ET *)in1 + i_, sizeof y);                                 \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, sizeof r);                                       \
        }                                                                               \
        if (i_ < n) {                                                                   \
            VT x = {0}, y = {0}, r;                                                     \
            memcpy(&x, (const ET *)in0 + i_, (n - i_) * sizeof(ET));                    \
            memcpy(&y, (const ET *)in1 + i_, (n - i_) * sizeof(ET));                    \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, (n - i_) * sizeof(ET));                          \
        }                                                                               \
    } while (0)

/* clamp(lo, x, hi) = minimum(maximum(x, lo), hi), as the engine nests it. */
#define TERNARY_LOOP(VT, ET, LANES, EXPR)                                               \
    do {                                                                                \
        size_t i_ = 0;                                                                  \
        for (; i_ + LANES <= n; i_ += LANES) {                                          \
            VT lo, x, hi, r;                                                            \
            memcpy(&lo, (const ET *)in0 + i_, sizeof lo);                               \
            memcpy(&x, (const ET *)in1 + i_, sizeof x);                                 \
            memcpy(&hi, (const ET *)in2 + i_, sizeof hi);                               \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, sizeof r);                                       \
        }                                                                               \
        if (i_ < n) {                                                                   \
            VT lo = {0}, x = {0}, hi = {0}, r;                                          \
            memcpy(&lo, (const ET *)in0 + i_, (n - i_) * sizeof(ET));                   \
            memcpy(&x, (const ET *)in1 + i_, (n - i_) * sizeof(ET));                    \
            memcpy(&hi, (const ET *)in2 + i_, (n - i_) * sizeof(ET));                   \
            r = EXPR;                                                                   \
            memcpy((ET *)out + i_, &r, (n - i_) * sizeof(ET));                          \
        }                                                                               \
    } while (0)

/* i1 results, one byte 0/1 per element, from the lane mask EXPR (-1/0). */
#define MASK_LOOP(VT, ET, LANES, VC, NIN, EXPR)                                         \
    do {                                                                                \
        size_t i_ = 0;                                                                  \
        for (; i_ + LANES <= n; i_ += LANES) {                                          \
            VT x, y = {0};                                                              \
            memcpy(&x, (const ET *)in0 + i_, sizeof x);                                 \
            if (NIN > 1)                                                                \
                memcpy(&y, (const ET *)in1 + i_, sizeof y);                             \
            VC c = __builtin_convertvector(EXPR, VC) & 1;                               \
            memcpy(out + i_, &c, sizeof c);                                             \
        }                                                                               \
        if (i_ < n) {                                                                   \
            VT x = {0}, y = {0};                                                        \
            memcpy(&x, (const ET *)in0 + i_, (n - i_) * sizeof(ET));                    \
            if (NIN > 1)                                                                \
                memcpy(&y, (const ET *)in1 + i_, (n - i_) * sizeof(ET));                \
            VC c = __builtin_convertvector(EXPR, VC) & 1;                               \
            memcpy(out + i_, &c, n - i_);                                               \
        }                                                                               \
    } while (0)

#define CMP_SWITCH(VT, ET, LANES, VC, X, Y)                                             \
    switch (dir) {                                                                      \
    case IR_CMP_EQ: MASK_LOOP(VT, ET, LANES, VC, 2, (X) == (Y)); break;                 \
    case IR_CMP_NE: MASK_LOOP(VT, ET, LANES, VC, 2, (X) != (Y)); break;                 \
    case IR_CMP_LT: MASK_LOOP(VT, ET, LANES, VC, 2, (X) < (Y)); break;                  \
    case IR_CMP_LE: MASK_LOOP(VT, ET, LANES, VC, 2, (X) <= (Y)); break;                 \
    case IR_CMP_GT: MASK_LOOP(VT, ET, LANES, VC, 2, (X) > (Y)); break;                  \
    default: MASK_LOOP(VT, ET, LANES, VC, 2, (X) >= (Y)); break;                        \
    }

/* One ISA's loops. */
typedef struct ewf_impl {
    void (*f32_unary)(plumb_opcode, const void *, void *, size_t);
    void (*f64_unary)(plumb_opcode, const void *, void *, size_t);
    void (*f64_binary)(plumb_opcode, const void *, const void *, void *, size_t);
    void (*f64_math)(plumb_opcode, const void *, void *, size_t);   /* transcendentals (math_f64.h) */
    void (*f64_math2)(plumb_opcode, const void *, const void *, void *, size_t);   /* power, atan2 (math_f64.h) */
    void (*f32_rem)(const void *, const void *, void *, size_t);
    void (*f64_rem)(const void *, const void *, void *, size_t);
    void (*f32_clamp)(const void *, const void *, const void *, void *, size_t);
    void (*f64_clamp)(const void *, const void *, const void *, void *, size_t);
    void (*f32_finite)(const void *, uint8_t *, size_t);
    void (*f64_finite)(const void *, uint8_t *, size_t);
    void (*f32_cmp_total)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
    void (*f64_cmp_total)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
    void (*f64_cmp_float)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
} ewf_impl;

#define EWF_BODY 1
#define EWF_PASS 1
#define SUF _portable
#define VBYTES 16
#define TARGET
#include "k_ew_float.c"
#undef EWF_PASS
#undef SUF
#undef VBYTES
#undef TARGET
#ifdef EWF_X86
#define EWF_PASS 2
#define SUF _avx2
#define VBYTES 32
#define TARGET __attribute__((target("avx2,fma")))
#include "k_ew_float.c"
#undef EWF_PASS
#undef SUF
#undef VBYTES
#undef TARGET
#define EWF_PASS 3
#define SUF _avx512
#define VBYTES 64
#define TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#include "k_ew_float.c"
#undef EWF_PASS
#undef SUF
#undef VBYTES
#undef TARGET
#endif

/* ---- dispatch --------------------------------------------------------------------- */

static const ewf_impl *impl_for(plumb_isa isa)
{
#ifdef EWF_X86
    if (isa == PLUMB_ISA_AVX512)
        return &impl_avx512;
    if (isa == PLUMB_ISA_AVX2)
        return &impl_avx2;
#endif
    (void)isa;
    return &impl_portable;
}

static ir_cmp_type cmp_type(const rt_ew_args *a)
{
    ir_cmp_type ty = a->op ? a->op->a.cmp_type : IR_CMP_TYPE_NONE;
    return ty == IR_CMP_TYPE_NONE ? IR_CMP_FLOAT : ty;
}

/* f32: only the ops the engine has no vector loop for, and remainder
 * (f32_rem: exact, in double); add/subtract/multiply/divide/maximum/
 * minimum, negate/abs, FLOAT compare and the vector math (unary, power,
 * atan2) stay on the engine's paths. */
static bool f32_ops(const rt_ew_args *a, const ewf_impl *f)
{
    switch (a->code) {
    case PLUMB_OP_REMAINDER:
        if (a->n_in != 2 || a->rt != PLUMB_F32)
            return false;
        f->f32_rem(a->in[0], a->in[1], a->out, a->n);
        return true;
    case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL: case PLUMB_OP_ROUND_NEAREST_EVEN:
    case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_SQRT:
        if (a->n_in != 1 || a->rt != PLUMB_F32)
            return false;
        f->f32_unary(a->code, a->in[0], a->out, a->n);
        return true;
    case PLUMB_OP_IS_FINITE:
        if (a->n_in != 1 || a->rt != PLUMB_I1)
            return false;
        f->f32_finite(a->in[0], a->out, a->n);
        return true;
    case PLUMB_OP_COMPARE:
        if (a->n_in != 2 || a->rt != PLUMB_I1 || cmp_type(a) != IR_CMP_TOTALORDER)
            return false;
        f->f32_cmp_total(a->op->a.cmp_dir, a->in[0], a->in[1], a->out, a->n);
        return true;
    case PLUMB_OP_CLAMP:
        if (a->n_in != 3 || a->rt != PLUMB_F32)
            return false;
        f->f32_clamp(a->in[0], a->in[1], a->in[2], a->out, a->n);
        return true;
    default:
        return false;
    }
}

/* f64: everything exact (remainder through f64_rem), and exponential,
 * exponential_minus_one, log, log_plus_one, logistic, tanh, sine, cosine,
 * power and atan2 (math_f64.h, within their 1, 1, 1, 1, 2, 2, 1, 1, 1 and
 * 2 ULP); the other transcendentals stay on the engine's long double
 * paths. */
static bool f64_ops(const rt_ew_args *a, const ewf_impl *f)
{
    switch (a->code) {
    case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
        if (a->n_in != 1 || a->rt != PLUMB_F64)
            return false;
        f->f64_math(a->code, a->in[0], a->out, a->n);
        return true;
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_SQRT:
        if (a->n_in != 1 || a->rt != PLUMB_F64)
            return false;
        f->f64_unary(a->code, a->in[0], a->out, a->n);
        return true;
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
        if (a->n_in != 2 || a->rt != PLUMB_F64)
            return false;
        f->f64_binary(a->code, a->in[0], a->in[1], a->out, a->n);
        return true;
    case PLUMB_OP_REMAINDER:
        if (a->n_in != 2 || a->rt != PLUMB_F64)
            return false;
        f->f64_rem(a->in[0], a->in[1], a->out, a->n);
        return true;
    case PLUMB_OP_POWER: case PLUMB_OP_ATAN2:
        if (a->n_in != 2 || a->rt != PLUMB_F64)
            return false;
        f->f64_math2(a->code, a->in[0], a->in[1], a->out, a->n);
        return true;
    case PLUMB_OP_IS_FINITE:
        if (a->n_in != 1 || a->rt != PLUMB_I1)
            return false;
        f->f64_finite(a->in[0], a->out, a->n);
        return true;
    case PLUMB_OP_COMPARE: {
        if (a->n_in != 2 || a->rt != PLUMB_I1)
            return false;
        ir_cmp_type ty = cmp_type(a);
        if (ty == IR_CMP_TOTALORDER)
            f->f64_cmp_total(a->op->a.cmp_dir, a->in[0], a->in[1], a->out, a->n);
        else if (ty == IR_CMP_FLOAT)
            f->f64_cmp_float(a->op->a.cmp_dir, a->in[0], a->in[1], a->out, a->n);
        else
            return false;
        return true;
    }
    case PLUMB_OP_CLAMP:
        if (a->n_in != 3 || a->rt != PLUMB_F64)
            return false;
        f->f64_clamp(a->in[0], a->in[1], a->in[2], a->out, a->n);
        return true;
    default:
        return false;
    }
}

bool rt_ew_float(const rt_ew_args *a)
{
    if (!a || a->n == 0 || !a->op)
        return false;
    if (a->t == PLUMB_F32)
        return f32_ops(a, impl_for(a->isa));
    if (a->t == PLUMB_F64)
        return f64_ops(a, impl_for(a->isa));
    return false;
}

#else /* EWF_BODY: one ISA's loops, included above once per ISA */

/* ---- one ISA's loops (compiled once per pass) ------------------------------------ */

#define VF_LANES (VBYTES / 4)
#define VD_LANES (VBYTES / 8)
typedef float N(vf) __attribute__((vector_size(VBYTES)));
typedef int32_t N(vi) __attribute__((vector_size(VBYTES)));
typedef double N(vd) __attribute__((vector_size(VBYTES)));
typedef int64_t N(vl) __attribute__((vector_size(VBYTES)));
typedef int8_t N(vcf) __attribute__((vector_size(VBYTES / 4)));
typedef int8_t N(vcd) __attribute__((vector_size(VBYTES / 8)));
#define vf N(vf)
#define vi N(vi)
#define vd N(vd)
#define vl N(vl)
#define TI INL TARGET

TI vi N(seli)(vi m, vi a, vi b) { return (m & a) | (~m & b); }
TI vl N(sell)(vl m, vl a, vl b) { return (m & a) | (~m & b); }
/* Float comparisons rather than integer ones on the bits: SSE2 has no
 * 64-bit integer compare, and these are the same tests. */
TI vi N(f_isnan)(vf x) { return x != x; }
TI vl N(d_isnan)(vd x) { return x != x; }

/* NaN lanes of x quieted, other lanes r (the rule of every unary op). */
TI vf N(f_nanfix)(vf x, vf r) { return (vf)N(seli)(N(f_isnan)(x), (vi)x | F32_QUIET, (vi)r); }
TI vd N(d_nanfix)(vd x, vd r) { return (vd)N(sell)(N(d_isnan)(x), (vl)x | F64_QUIET, (vl)r); }

/* The NaN rule of binary arithmetic for the NaN lanes of r: x's NaN
 * quieted, else y's, else the positive default NaN. */
TI vd N(d_nan2fix)(vd x, vd y, vd r)
{
    vl v = N(sell)(N(d_isnan)(r), (vl){0} + F64_DNAN, (vl)r);
    v = N(sell)(N(d_isnan)(y), (vl)y | F64_QUIET, v);
    return (vd)N(sell)(N(d_isnan)(x), (vl)x | F64_QUIET, v);
}

/* Square root: a NaN operand quieted; a negative operand gives the
 * positive default NaN (the hardware's default NaN is negative). */
TI vf N(f_sqrtfix)(vf x, vf r)
{
    vi v = N(seli)(N(f_isnan)(r), (vi){0} + F32_DNAN, (vi)r);
    return (vf)N(seli)(N(f_isnan)(x), (vi)x | F32_QUIET, v);
}
TI vd N(d_sqrtfix)(vd x, vd r)
{
    vl v = N(sell)(N(d_isnan)(r), (vl){0} + F64_DNAN, (vl)r);
    return (vd)N(sell)(N(d_isnan)(x), (vl)x | F64_QUIET, v);
}

/* sign: NaN quieted, zeros kept, else +-1 with the operand's sign. */
TI vf N(f_sign)(vf x)
{
    vi xi = (vi)x;
    vi r = N(seli)(x == 0.0f, xi, (xi & F32_SIGN) | F32_ONE);
    return N(f_nanfix)(x, (vf)r);
}
TI vd N(d_sign)(vd x)
{
    vl xi = (vl)x;
    vl r = N(sell)(x == 0.0, xi, (xi & F64_SIGN) | F64_ONE);
    return N(d_nanfix)(x, (vd)r);
}

/* IEEE 754-2019 maximum/minimum on bits: keys order the floats as signed
 * integers with -0 below +0 (totalOrder on non-NaNs); the first NaN
 * operand wins, quieted. */
TI vi N(f_key)(vf x) { vi xi = (vi)x; return xi ^ ((xi >> 31) & F32_ABS); }
TI vl N(d_key)(vd x) { vl xi = (vl)x; return xi ^ ((xi >> 63) & F64_ABS); }
TI vf N(f_minmax)(vf x, vf y, int want_max)
{
    vi kx = N(f_key)(x), ky = N(f_key)(y);
    vi r = N(seli)(want_max ? kx > ky : kx < ky, (vi)x, (vi)y);
    r = N(seli)(N(f_isnan)(y), (vi)y | F32_QUIET, r);
    return (vf)N(seli)(N(f_isnan)(x), (vi)x | F32_QUIET, r);
}
TI vd N(d_minmax)(vd x, vd y, int want_max)
{
    vl kx = N(d_key)(x), ky = N(d_key)(y);
    vl r = N(sell)(want_max ? kx > ky : kx < ky, (vl)x, (vl)y);
    r = N(sell)(N(d_isnan)(y), (vl)y | F64_QUIET, r);
    return (vd)N(sell)(N(d_isnan)(x), (vl)x | F64_QUIET, r);
}

/* Round half away from zero from the truncation t of x: x - t is exact
 * (|x| < 2^p: t = 0, or |t| <= |x| < 2|t|, Sterbenz), so the test
 * |x - t| >= 1/2 is exact (none of x + 0.5's rounding at 0.49999997 or at
 * odd integers >= 2^23), and t +- 1 is exact below 2^p. t is kept where
 * the fraction is below 1/2, so -0.3 gives -0; inf - inf (NaN) is not
 * >= 1/2, so infinities stay. */
TI vf N(f_afz)(vf x, vf t)
{
    vf d = (vf)((vi)(x - t) & F32_ABS);
    vi up = d >= 0.5f;
    vf r = t + (vf)(((vi)x & F32_SIGN) | F32_ONE);
    return (vf)N(seli)(up, (vi)r, (vi)t);
}
TI vd N(d_afz)(vd x, vd t)
{
    vd d = (vd)((vl)(x - t) & F64_ABS);
    vl up = d >= 0.5;
    vd r = t + (vd)(((vl)x & F64_SIGN) | F64_ONE);
    return (vd)N(sell)(up, (vl)r, (vl)t);
}

#if EWF_PASS == 1
/* Portable roundToIntegral: for |x| < 2^p (p = 23 for f32, 52 for f64)
 * the sum |x| + 2^p lies in [2^p, 2^(p+1)), where the spacing is 1, so one
 * round-to-nearest-even addition rounds |x| to the nearest integer, ties to
 * even, and subtracting 2^p is exact (-ffp-contract=off and no
 * reassociation in this build). Truncation and ceiling of |x| step back or
 * forward by one from there; floor(x) is -ceil(|x|) for negative x. Lanes
 * with |x| >= 2^p, infinities and NaNs are integers already and pass
 * through (NaNs are quieted by the callers). The sign goes back by bits,
 * so -0.3 gives -0. */
TI vf N(f_round_magic)(vf x, enum ewf_rnd mode)
{
    vi xi = (vi)x, s = xi & F32_SIGN, neg = xi >> 31;
    vf a = (vf)(xi & F32_ABS), m = (vf)((vi){0} + F32_2P23);
    vf re = (a + m) - m;
    vf tr = (vf)N(seli)(re > a, (vi)(re - 1.0f), (vi)re);
    vf ce = (vf)N(seli)(re < a, (vi)(re + 1.0f), (vi)re);
    vi mag;
    switch (mode) {
    case R_EVEN: mag = (vi)re; break;
    case R_TRUNC: mag = (vi)tr; break;
    case R_FLOOR: mag = N(seli)(neg, (vi)ce, (vi)tr); break;
    default: mag = N(seli)(neg, (vi)tr, (vi)ce); break;
    }
    return (vf)N(seli)(a < m, mag | s, xi);   /* false for NaN */
}
TI vd N(d_round_magic)(vd x, enum ewf_rnd mode)
{
    vl xi = (vl)x, s = xi & F64_SIGN, neg = xi >> 63;
    vd a = (vd)(xi & F64_ABS), m = (vd)((vl){0} + F64_2P52);
    vd re = (a + m) - m;
    vd tr = (vd)N(sell)(re > a, (vl)(re - 1.0), (vl)re);
    vd ce = (vd)N(sell)(re < a, (vl)(re + 1.0), (vl)re);
    vl mag;
    switch (mode) {
    case R_EVEN: mag = (vl)re; break;
    case R_TRUNC: mag = (vl)tr; break;
    case R_FLOOR: mag = N(sell)(neg, (vl)ce, (vl)tr); break;
    default: mag = N(sell)(neg, (vl)tr, (vl)ce); break;
    }
    return (vd)N(sell)(a < m, mag | s, xi);
}

#endif

/* The ISA's primitives. AVX2 and AVX-512 round in one instruction
 * (vroundps/pd, vrndscaleps/pd; inexact exception suppressed), every
 * level has a vector square root (sqrtps/pd, vsqrtps/pd). */
#define RND_SWITCH(F, v)                                                                  \
    switch (mode) {                                                                       \
    case R_EVEN: return F(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);              \
    case R_FLOOR: return F(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);                 \
    case R_CEIL: return F(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);                  \
    default: return F(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);                         \
    }
#if EWF_PASS == 3
TI vf N(f_round)(vf x, enum ewf_rnd mode) { __m512 v = (__m512)x; RND_SWITCH((vf)_mm512_roundscale_ps, v) }
TI vd N(d_round)(vd x, enum ewf_rnd mode) { __m512d v = (__m512d)x; RND_SWITCH((vd)_mm512_roundscale_pd, v) }
TI vf N(f_sqrt)(vf x) { return (vf)_mm512_sqrt_ps((__m512)x); }
TI vd N(d_sqrt)(vd x) { return (vd)_mm512_sqrt_pd((__m512d)x); }
#elif EWF_PASS == 2
TI vf N(f_round)(vf x, enum ewf_rnd mode) { __m256 v = (__m256)x; RND_SWITCH((vf)_mm256_round_ps, v) }
TI vd N(d_round)(vd x, enum ewf_rnd mode) { __m256d v = (__m256d)x; RND_SWITCH((vd)_mm256_round_pd, v) }
TI vf N(f_sqrt)(vf x) { return (vf)_mm256_sqrt_ps((__m256)x); }
TI vd N(d_sqrt)(vd x) { return (vd)_mm256_sqrt_pd((__m256d)x); }
#else
TI vf N(f_round)(vf x, enum ewf_rnd mode) { return N(f_round_magic)(x, mode); }
TI vd N(d_round)(vd x, enum ewf_rnd mode) { return N(d_round_magic)(x, mode); }
#if defined(__SSE2__)
TI vf N(f_sqrt)(vf x) { return (vf)_mm_sqrt_ps((__m128)x); }
TI vd N(d_sqrt)(vd x) { return (vd)_mm_sqrt_pd((__m128d)x); }
#else
TI vf N(f_sqrt)(vf x)
{
    for (int k = 0; k < VF_LANES; k++)
        x[k] = sqrtf(x[k]);
    return x;
}
TI vd N(d_sqrt)(vd x)
{
    for (int k = 0; k < VD_LANES; k++)
        x[k] = sqrt(x[k]);
    return x;
}
#endif
#endif
#undef RND_SWITCH

TARGET static void N(f32_unary)(plumb_opcode code, const void *in, void *out, size_t n)
{
    switch (code) {
    case PLUMB_OP_SIGN: UNARY_LOOP(vf, float, VF_LANES, N(f_sign)(x)); break;
    case PLUMB_OP_FLOOR: UNARY_LOOP(vf, float, VF_LANES, N(f_nanfix)(x, N(f_round)(x, R_FLOOR))); break;
    case PLUMB_OP_CEIL: UNARY_LOOP(vf, float, VF_LANES, N(f_nanfix)(x, N(f_round)(x, R_CEIL))); break;
    case PLUMB_OP_ROUND_NEAREST_EVEN: UNARY_LOOP(vf, float, VF_LANES, N(f_nanfix)(x, N(f_round)(x, R_EVEN))); break;
    case PLUMB_OP_ROUND_NEAREST_AFZ:
        UNARY_LOOP(vf, float, VF_LANES, N(f_nanfix)(x, N(f_afz)(x, N(f_round)(x, R_TRUNC))));
        break;
    default: UNARY_LOOP(vf, float, VF_LANES, N(f_sqrtfix)(x, N(f_sqrt)(x))); break;
    }
}

TARGET static void N(f64_unary)(plumb_opcode code, const void *in, void *out, size_t n)
{
    switch (code) {
    case PLUMB_OP_ABS: UNARY_LOOP(vd, double, VD_LANES, (vd)((vl)x & F64_ABS)); break;
    case PLUMB_OP_NEGATE: UNARY_LOOP(vd, double, VD_LANES, (vd)((vl)x ^ F64_SIGN)); break;
    case PLUMB_OP_SIGN: UNARY_LOOP(vd, double, VD_LANES, N(d_sign)(x)); break;
    case PLUMB_OP_FLOOR: UNARY_LOOP(vd, double, VD_LANES, N(d_nanfix)(x, N(d_round)(x, R_FLOOR))); break;
    case PLUMB_OP_CEIL: UNARY_LOOP(vd, double, VD_LANES, N(d_nanfix)(x, N(d_round)(x, R_CEIL))); break;
    case PLUMB_OP_ROUND_NEAREST_EVEN: UNARY_LOOP(vd, double, VD_LANES, N(d_nanfix)(x, N(d_round)(x, R_EVEN))); break;
    case PLUMB_OP_ROUND_NEAREST_AFZ:
        UNARY_LOOP(vd, double, VD_LANES, N(d_nanfix)(x, N(d_afz)(x, N(d_round)(x, R_TRUNC))));
        break;
    default: UNARY_LOOP(vd, double, VD_LANES, N(d_sqrtfix)(x, N(d_sqrt)(x))); break;
    }
}

TARGET static void N(f64_binary)(plumb_opcode code, const void *in0, const void *in1, void *out, size_t n)
{
    switch (code) {
    case PLUMB_OP_ADD: BINARY_LOOP(vd, double, VD_LANES, N(d_nan2fix)(x, y, x + y)); break;
    case PLUMB_OP_SUBTRACT: BINARY_LOOP(vd, double, VD_LANES, N(d_nan2fix)(x, y, x - y)); break;
    case PLUMB_OP_MULTIPLY: BINARY_LOOP(vd, double, VD_LANES, N(d_nan2fix)(x, y, x * y)); break;
    case PLUMB_OP_DIVIDE: BINARY_LOOP(vd, double, VD_LANES, N(d_nan2fix)(x, y, x / y)); break;
    case PLUMB_OP_MAXIMUM: BINARY_LOOP(vd, double, VD_LANES, N(d_minmax)(x, y, 1)); break;
    default: BINARY_LOOP(vd, double, VD_LANES, N(d_minmax)(x, y, 0)); break;
    }
}

/* clamp(lo, x, hi) = minimum(maximum(x, lo), hi), nested as the engine does. */
TARGET static void N(f32_clamp)(const void *in0, const void *in1, const void *in2, void *out, size_t n)
{
    TERNARY_LOOP(vf, float, VF_LANES, N(f_minmax)(N(f_minmax)(x, lo, 1), hi, 0));
}
TARGET static void N(f64_clamp)(const void *in0, const void *in1, const void *in2, void *out, size_t n)
{
    TERNARY_LOOP(vd, double, VD_LANES, N(d_minmax)(N(d_minmax)(x, lo, 1), hi, 0));
}

TARGET static void N(f32_finite)(const void *in0, uint8_t *out, size_t n)
{
    const void *in1 = in0;
    MASK_LOOP(vf, float, VF_LANES, N(vcf), 1, (vf)((vi)x & F32_ABS) < (vf)((vi){0} + F32_INF));
}
TARGET static void N(f64_finite)(const void *in0, uint8_t *out, size_t n)
{
    const void *in1 = in0;
    MASK_LOOP(vd, double, VD_LANES, N(vcd), 1, (vd)((vl)x & F64_ABS) < (vd)((vl){0} + F64_INF));
}

TARGET static void N(f32_cmp_total)(ir_cmp_dir dir, const void *in0, const void *in1, uint8_t *out, size_t n)
{
    CMP_SWITCH(vf, float, VF_LANES, N(vcf), N(f_key)(x), N(f_key)(y))
}
TARGET static void N(f64_cmp_total)(ir_cmp_dir dir, const void *in0, const void *in1, uint8_t *out, size_t n)
{
    CMP_SWITCH(vd, double, VD_LANES, N(vcd), N(d_key)(x), N(d_key)(y))
}
/* IEEE comparisons: false with a NaN operand, != true (as C's scalar ones) */
TARGET static void N(f64_cmp_float)(ir_cmp_dir dir, const void *in0, const void *in1, uint8_t *out, size_t n)
{
    CMP_SWITCH(vd, double, VD_LANES, N(vcd), x, y)
}

#include "math_f64.h"

/* GCC scheduling attribute: see f64_pow_loop */
#if defined(__GNUC__) && !defined(__clang__)
#define EWF_POW_SCHED __attribute__((optimize("schedule-insns")))
#else
#define EWF_POW_SCHED
#endif
/* Two vectors per step at every level, for the same reason as power's
 * loop below: each function is one long dependency chain (log's division
 * and polynomial, exp's table and scaling, ...), and GCC's scheduling pass
 * (EWF_POW_SCHED) interleaves two independent ones. Both cores run before
 * either vector's rare lanes are redone by the scalar rule (a branch
 * between them would end the scheduled block), from the copies x0, x1 in
 * registers, and both loads come before both stores, so a result written
 * over its operand (in place) stays correct. Every lane takes the same
 * operations as one vector per step: the same bits. Measured in cache
 * (8,192 elements, process CPU time, pinned, alternated): AVX-512 exp 0.82
 * -> 0.72 ns/element, log 0.91 -> 0.80, tanh 1.94 -> 1.75, sine and cosine
 * 1.03 -> 0.90, expm1 1.35 -> 1.05, log1p 1.15 -> 0.98, logistic 1.24 ->
 * 1.03; AVX2 (unlike power's, no spill cost measured) 3.38 -> 3.00 (tanh),
 * 1.24 -> 1.18 (exp), 1.73 -> 1.58 (log), 1.88 -> 1.79 (sine), 2.41 -> 1.98
 * (expm1), 2.11 -> 2.05 (log1p), 1.97 -> 1.75 (logistic); portable 7.6 ->
 * 6.9 (tanh), 4.58 -> 3.77 (log), 4.80 -> 4.31 (sine), 3.13 -> 3.03 (exp). */
#define EWF_MATH_X2 1
#define MATH_X2_STEPS(CORE, FINISH, LANE)                                                      \
    do {                                                                                \
        size_t i_ = 0;                                                                  \
        const double *xs_ = in;                                                         \
        double *o_ = out;                                                               \
        for (; EWF_MATH_X2 && i_ + 2 * VD_LANES <= n; i_ += 2 * VD_LANES) {             \
            vd x0, x1;                                                                  \
            vl b0, b1;                                                                  \
            memcpy(&x0, xs_ + i_, sizeof x0);                                           \
            memcpy(&x1, xs_ + i_ + VD_LANES, sizeof x1);                                \
            vd r0 = CORE(x0, &b0);                                                      \
            vd r1 = CORE(x1, &b1);                                                      \
            r0 = FINISH(r0, x0);                                                        \
            r1 = FINISH(r1, x1);                                                        \
            r0 = N(d_fix_lanes)(r0, x0, b0, LANE);                                      \
            r1 = N(d_fix_lanes)(r1, x1, b1, LANE);                                      \
            memcpy(o_ + i_, &r0, sizeof r0);                                            \
            memcpy(o_ + i_ + VD_LANES, &r1, sizeof r1);                                 \
        }                                                                               \
        in = xs_ + i_;                                                                  \
        out = o_ + i_;                                                                  \
        n -= i_;                                                                        \
    } while (0)

#define MATH_X2_ID(r, x) (r)

/* sine (cosine = 0) or cosine: both cheap paths first, then each
 * vector's other lanes (d_sincos_slow) */
TARGET EWF_POW_SCHED static void N(f64_sincos_loop)(const double *xs, double *o, size_t n, int cosine)
{
    size_t i = 0;
#if EWF_MATH_X2
    for (; i + 2 * VD_LANES <= n; i += 2 * VD_LANES) {
        vd x0, x1;
        vl f0, f1;
        memcpy(&x0, xs + i, sizeof x0);
        memcpy(&x1, xs + i + VD_LANES, sizeof x1);
        vd r0 = N(d_sincos_fast)(x0, cosine, &f0);
        vd r1 = N(d_sincos_fast)(x1, cosine, &f1);
        r0 = N(d_sincos_slow)(r0, x0, cosine, f0);
        r1 = N(d_sincos_slow)(r1, x1, cosine, f1);
        memcpy(o + i, &r0, sizeof r0);
        memcpy(o + i + VD_LANES, &r1, sizeof r1);
    }
#endif
    const void *in = xs + i;
    void *out = o + i;
    n -= i;
    UNARY_LOOP(vd, double, VD_LANES, N(d_sincosv)(x, cosine));
}

/* log: d_log reads its table rows' offsets from the operands in memory
 * (pow_log_rows), so the loop hands it pointers; two vectors per step as
 * MATH_X2_STEPS (both cores, both loads before both stores: in place is
 * fine), the last partial vector from a copy padded with 1 */
TARGET EWF_POW_SCHED static void N(f64_log_loop)(const double *xs, double *o, size_t n)
{
    size_t i = 0;
#if EWF_MATH_X2
    for (; i + 2 * VD_LANES <= n; i += 2 * VD_LANES) {
        vd x0, x1;
        vl b0, b1;
        memcpy(&x0, xs + i, sizeof x0);
        memcpy(&x1, xs + i + VD_LANES, sizeof x1);
        vd r0 = N(d_log)(x0, xs + i, &b0);
        vd r1 = N(d_log)(x1, xs + i + VD_LANES, &b1);
        r0 = N(d_fix_lanes)(r0, x0, b0, f64_log_lane);
        r1 = N(d_fix_lanes)(r1, x1, b1, f64_log_lane);
        memcpy(o + i, &r0, sizeof r0);
        memcpy(o + i + VD_LANES, &r1, sizeof r1);
    }
#endif
    for (; i + VD_LANES <= n; i += VD_LANES)
        N(d_logv)(xs + i, o + i);
    if (i < n) {
        double xt[VD_LANES], rt[VD_LANES];
        for (int l = 0; l < VD_LANES; l++)
            xt[l] = 1.0;
        memcpy(xt, xs + i, (n - i) * sizeof *xt);
        N(d_logv)(xt, rt);
        memcpy(o + i, rt, (n - i) * sizeof *rt);
    }
}

/* the transcendentals f64_ops hands here: exponential, exponential_minus_one, log, log_plus_one, logistic, tanh,
 * sine, cosine; two vectors per step (MATH_X2_STEPS), the rest (fewer than
 * two vectors) one vector at a time */
TARGET EWF_POW_SCHED static void N(f64_math)(plumb_opcode code, const void *in, void *out, size_t n)
{
    if (code == PLUMB_OP_EXPONENTIAL_MINUS_ONE) {
        MATH_X2_STEPS(N(d_expm1), MATH_X2_ID, f64_expm1_lane);
        UNARY_LOOP(vd, double, VD_LANES, N(d_expm1v)(x));
    } else if (code == PLUMB_OP_LOG)
        N(f64_log_loop)(in, out, n);
    else if (code == PLUMB_OP_LOG_PLUS_ONE) {
        MATH_X2_STEPS(N(d_log1p), MATH_X2_ID, f64_log1p_lane);
        UNARY_LOOP(vd, double, VD_LANES, N(d_log1pv)(x));
    } else if (code == PLUMB_OP_SINE)
        N(f64_sincos_loop)(in, out, n, 0);
    else if (code == PLUMB_OP_COSINE)
        N(f64_sincos_loop)(in, out, n, 1);
    else if (code == PLUMB_OP_LOGISTIC) {
        MATH_X2_STEPS(N(d_logistic), MATH_X2_ID, f64_logistic_lane);
        UNARY_LOOP(vd, double, VD_LANES, N(d_logisticv)(x));
    } else if (code == PLUMB_OP_TANH) {
        MATH_X2_STEPS(N(d_tanh_core), N(d_tanh_finish), f64_nan_lane);
        UNARY_LOOP(vd, double, VD_LANES, N(d_tanhv)(x));
    } else {
        MATH_X2_STEPS(N(d_exp), MATH_X2_ID, f64_exp_lane);
        UNARY_LOOP(vd, double, VD_LANES, N(d_expv)(x));
    }
}

/* power (math_f64_pow.h), two vectors per step. d_pow is one long
 * dependency chain (about 115 cycles from the loads to the store at
 * AVX-512, 170 instructions per 8 lanes): written one vector after the
 * other, the out-of-order window held little more than one chain and the
 * loop ran at about 2.4 instructions per cycle. GCC's scheduling before
 * register allocation (off at -O2 on x86) interleaves the two inlined
 * chains; measured (rt_ew_float in cache, pinned, alternated 3x, AVX-512)
 * 2.12 -> 1.97 ns/pair, against 2.06 with the scheduling alone and 2.12
 * with two vectors alone; portable 9.9 -> 9.3. AVX2 (16 registers) takes
 * one vector per step: two spilled, 4.35 -> 4.6-4.7. The attribute only
 * reorders: every operation
 * and its rounding stay (no contraction: -ffp-contract=off holds, no fma
 * in the object, tested bit for bit against the other levels). */
TARGET EWF_POW_SCHED static void N(f64_pow_loop)(const double *xs, const double *ys, double *o, size_t n)
{
    size_t i = 0;
#if EWF_PASS != 2
    for (; i + 2 * VD_LANES <= n; i += 2 * VD_LANES)
        N(d_powv2)(xs + i, ys + i, o + i);
#endif
    for (; i + VD_LANES <= n; i += VD_LANES)
        N(d_powv)(xs + i, ys + i, o + i);
    if (i < n) {
        /* the last partial vector from zero-padded copies (0^0 = 1 on the
         * padding lanes, by the scalar rule) */
        double xt[VD_LANES] = {0}, yt[VD_LANES] = {0}, rt[VD_LANES];
        memcpy(xt, xs + i, (n - i) * sizeof *xt);
        memcpy(yt, ys + i, (n - i) * sizeof *yt);
        N(d_powv)(xt, yt, rt);
        memcpy(o + i, rt, (n - i) * sizeof *rt);
    }
}

/* power and atan2 (math_f64.h): in0 is power's base and atan2's y */
TARGET EWF_POW_SCHED static void N(f64_math2)(plumb_opcode code, const void *in0, const void *in1, void *out, size_t n)
{
    if (code == PLUMB_OP_POWER)
        N(f64_pow_loop)(in0, in1, out, n);
    else {
        size_t i = 0;
        const double *ys = in0, *xs = in1;
        double *o = out;
#if EWF_MATH_X2
        /* two vectors per step, as f64_math: both cores, then the rare
         * lanes from the copies, then the stores. In cache (8,192 pairs in
         * uniform(-2, 2), CPU time, alternated 3x): AVX2 3.20 -> 2.97
         * ns/pair, portable 15.8 -> 11.8 (an earlier portable figure from
         * the broad suite on a loaded machine had it slower: noise) */
        for (; i + 2 * VD_LANES <= n; i += 2 * VD_LANES) {
            vd y0, y1, x0, x1;
            vl b0, b1;
            memcpy(&y0, ys + i, sizeof y0);
            memcpy(&y1, ys + i + VD_LANES, sizeof y1);
            memcpy(&x0, xs + i, sizeof x0);
            memcpy(&x1, xs + i + VD_LANES, sizeof x1);
            vd r0 = N(d_atan2)(y0, x0, &b0);
            vd r1 = N(d_atan2)(y1, x1, &b1);
            r0 = N(d_fix_lanes2)(r0, y0, x0, b0, f64_atan2_lane);
            r1 = N(d_fix_lanes2)(r1, y1, x1, b1, f64_atan2_lane);
            memcpy(o + i, &r0, sizeof r0);
            memcpy(o + i + VD_LANES, &r1, sizeof r1);
        }
#endif
        in0 = ys + i;
        in1 = xs + i;
        out = o + i;
        n -= i;
        BINARY_LOOP(vd, double, VD_LANES, N(d_atan2v)(x, y));
    }
}

/* f32 remainder x - trunc(x/y) y, exact, in double on |x|, |y| < 2^28 |y|:
 * n = trunc(RN(|x|/|y|)) is the true quotient's integer part. |x|/|y| =
 * mx 2^e / my (24-bit integers mx, my) is an integer or at least
 * 1/(my 2^max(0,-e)) > 2^-24 away from every integer (my 2^-e <= mx <
 * 2^24 when the quotient is >= 1), i.e. more than 2^-52 relative below
 * 2^28, where RN's 2^-53 cannot cross one. Then n |y| is exact (n < 2^28,
 * |y| has 24 bits) and so is r = |x| - n |y| (a multiple of the finer of
 * the two grids, in [0, |y|)). The result is exactly a float (fmod's
 * always is) with x's sign, zeros included. Other lanes (y = 0, y or x infinite, NaN, |x| >= 2^28 |y|):
 * f32_rem_lane. */
TARGET static void N(f32_rem)(const void *in0, const void *in1, void *out, size_t n)
{
    typedef float vfh __attribute__((vector_size(VD_LANES * 4)));
    const float *xs = in0, *ys = in1;
    float *o = out;
    for (size_t i = 0; i < n; i += VD_LANES) {
        size_t m = n - i < VD_LANES ? n - i : VD_LANES;
        vd x = {0}, y = {0};
        if (m == VD_LANES) {
            /* whole vectors loaded and widened at once: the lane-by-lane
             * loads (and stores below) were most of the loop's cost */
            vfh xf, yf;
            memcpy(&xf, xs + i, sizeof xf);
            memcpy(&yf, ys + i, sizeof yf);
            x = __builtin_convertvector(xf, vd);
            y = __builtin_convertvector(yf, vd);
        } else
            for (size_t l = 0; l < VD_LANES; l++) {
                x[l] = l < m ? xs[i + l] : 0.0f;
                y[l] = l < m ? ys[i + l] : 1.0f;
            }
        vd ax = (vd)((vl)x & F64_ABS), ay = (vd)((vl)y & F64_ABS);
        vl ok = (ax < ay * 0x1p28) & (ay < (vd)((vl){0} + F64_INF));
        vd q = ax / ay;
        q = N(d_round)((vd)N(sell)(ok, (vl)q, (vl)((vd){0})), R_TRUNC);
        vd r = ax - q * ay;
        r = (vd)((vl)r | ((vl)x & F64_SIGN));
        vl all = ~(vl){0};
        if (m == VD_LANES && memcmp(&ok, &all, sizeof ok) == 0) {
            vfh rf = __builtin_convertvector(r, vfh);   /* exact: r is a float's value */
            memcpy(o + i, &rf, sizeof rf);
            continue;
        }
        for (size_t l = 0; l < m; l++)
            o[i + l] = ok[l] ? (float)r[l] : f32_rem_lane(xs[i + l], ys[i + l]);
    }
}

/* f64 remainder, exact, on 2^-960 <= |y| <= 2^960, |x| < 2^51 |y| (the
 * other lanes: f64_rem_lane). q = trunc(RN(|x|/|y|)) is the integer part
 * n of the true quotient or n + 1 (RN is monotone and n < 2^51 is a double,
 * so RN never falls below n; it may round up to n + 1). q |y| = p + e
 * exactly (Dekker's product with Veltkamp's 2^27 + 1 split: q < 2^52, |y|
 * <= 2^960 cannot overflow; every partial product is a multiple of
 * ulp(|y|) >= 2^-1012, no underflow). q = 0: r = |x|. q >= 1: p is within
 * [|x|/2, 2|x|] (|x| < (q + 1)|y| <= 2q|y|, and q|y| < |x| + |y| when q
 * is n + 1 with the quotient above n), so |x| - p is exact (Sterbenz), and
 * (|x| - p) - e = |x| - q|y| is exact: it is fmod's result or that minus
 * |y|, in (-|y|, |y|) on the grid of the finer of x's and y's ULPs, which
 * has 53 bits there. A negative r (q = n + 1) gets |y| back, exact for the
 * same reason. The result takes x's sign, zeros included, as fmod's. */
TARGET static void N(f64_rem)(const void *in0, const void *in1, void *out, size_t n)
{
    const double *xs = in0, *ys = in1;
    double *o = out;
    for (size_t i = 0; i < n; i += VD_LANES) {
        size_t m = n - i < VD_LANES ? n - i : VD_LANES;
        vd x = {0}, y = {0};
        if (m == VD_LANES) {   /* whole vectors at once, as f32_rem */
            memcpy(&x, xs + i, sizeof x);
            memcpy(&y, ys + i, sizeof y);
        } else
            for (size_t l = 0; l < VD_LANES; l++) {
                x[l] = l < m ? xs[i + l] : 0.0;
                y[l] = l < m ? ys[i + l] : 1.0;
            }
        vd ax = (vd)((vl)x & F64_ABS), ay = (vd)((vl)y & F64_ABS);
        vl ok = (ay >= 0x1p-960) & (ay <= 0x1p960) & (ax < ay * 0x1p51);   /* false for NaN */
        ax = (vd)N(sell)(ok, (vl)ax, (vl)((vd){0}));
        ay = (vd)N(sell)(ok, (vl)ay, (vl)((vd){0} + 1.0));
        vd q = N(d_round)(ax / ay, R_TRUNC);
        vd p = q * ay;
        vd t = q * 134217729.0;   /* Veltkamp: 2^27 + 1 */
        vd qh = t - (t - q), ql = q - qh;
        t = ay * 134217729.0;
        vd yh = t - (t - ay), yl = ay - yh;
        vd e = (((qh * yh - p) + qh * yl) + ql * yh) + ql * yl;
        vd r = (ax - p) - e;
        r = (vd)N(sell)(r < 0.0, (vl)(r + ay), (vl)r);
        r = (vd)((vl)r | ((vl)x & F64_SIGN));
        vl all = ~(vl){0};
        if (m == VD_LANES && memcmp(&ok, &all, sizeof ok) == 0) {
            memcpy(o + i, &r, sizeof r);
            continue;
        }
        for (size_t l = 0; l < m; l++)
            o[i + l] = ok[l] ? r[l] : f64_rem_lane(xs[i + l], ys[i + l]);
    }
}

static const ewf_impl N(impl) = {N(f32_unary), N(f64_unary), N(f64_binary), N(f64_math), N(f64_math2), N(f32_rem), N(f64_rem), N(f32_clamp), N(f64_clamp),
                                 N(f32_finite), N(f64_finite), N(f32_cmp_total), N(f64_cmp_total),
                                 N(f64_cmp_float)};

#undef vf
#undef vi
#undef vd
#undef vl
#undef TI
#undef VF_LANES
#undef VD_LANES
#undef EWF_POW_SCHED
#undef EWF_MATH_X2
#undef MATH_X2_STEPS
#undef MATH_X2_ID

#endif /* EWF_BODY */
