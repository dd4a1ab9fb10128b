/* Vectorized elementwise loops for f32 (outside the vector math) and f64 element types (see rt_ew_args in
 * rt_internal.h): the element engine offers each op here first.
 *
 * Every loop computes the bits of the engine's per-element path (elem() in
 * k_elementwise.c, docs/runtime-ew-float.md says why each formula agrees):
 * NaN operands quieted with the first operand's NaN winning, the positive
 * default NaN when an operation creates one, -0 < +0 in maximum/minimum,
 * no flush of subnormals. One source is compiled three times (portable,
 * AVX2, AVX-512) on 64-byte GCC vectors (16 f32 or 8 f64 lanes); only the
 * rounding and square-root primitives differ per ISA, and each gives the
 * IEEE result (roundToIntegral, squareRoot), so the bits are the same at
 * every level. A tail of fewer than 16 (8) elements runs the same vector
 * code on a zero-padded copy. */
#include <math.h>
#include <string.h>

#include "rt_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EWF_X86 1
#endif

/* 64-byte vector values cross inlined helpers only; no ABI is exposed */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float vf __attribute__((vector_size(64)));
typedef int32_t vi __attribute__((vector_size(64)));
typedef double vd __attribute__((vector_size(64)));
typedef int64_t vl __attribute__((vector_size(64)));
typedef int8_t vc16 __attribute__((vector_size(16)));
typedef int8_t vc8 __attribute__((vector_size(8)));

#define VF_LANES 16
#define VD_LANES 8
#define F32_ABS 0x7FFFFFFF
#define F32_SIGN ((int32_t)0x80000000u)
#define F32_INF 0x7F800000
#define F32_QUIET 0x00400000
#define F32_DNAN 0x7FC00000
#define F32_ONE 0x3F800000
#define F64_ABS 0x7FFFFFFFFFFFFFFFll
#define F64_SIGN ((int64_t)0x8000000000000000ull)
#define F64_INF 0x7FF0000000000000ll
#define F64_QUIET 0x0008000000000000ll
#define F64_DNAN 0x7FF8000000000000ll
#define F64_ONE 0x3FF0000000000000ll

#define INL static inline __attribute__((always_inline))
#define TGT_AVX2 __attribute__((target("avx2,fma")))
#define TGT_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

/* ---- ISA-independent pieces ---------------------------------------------------- */

INL vi f_isnan(vf x) { return ((vi)x & F32_ABS) > F32_INF; }
INL vl d_isnan(vd x) { return ((vl)x & F64_ABS) > F64_INF; }

/* NaN lanes of x quieted, other lanes r (the rule of every unary op). */
INL vf f_nanfix(vf x, vf r)
{
    vi n = f_isnan(x);
    return (vf)((n & ((vi)x | F32_QUIET)) | (~n & (vi)r));
}
INL vd d_nanfix(vd x, vd r)
{
    vl n = d_isnan(x);
    return (vd)((n & ((vl)x | F64_QUIET)) | (~n & (vl)r));
}

/* The NaN rule of binary arithmetic for the NaN lanes of r: x's NaN
 * quieted, else y's, else the positive default NaN. */
INL vd d_nan2fix(vd x, vd y, vd r)
{
    vl rn = d_isnan(r), xn = d_isnan(x), yn = d_isnan(y);
    vl nanv = (xn & ((vl)x | F64_QUIET)) | (~xn & ((yn & ((vl)y | F64_QUIET)) | (~yn & F64_DNAN)));
    return (vd)((rn & nanv) | (~rn & (vl)r));
}

/* Square root: NaN operands quieted, a negative operand gives the positive
 * default NaN (the hardware's would be negative). */
INL vf f_sqrtfix(vf x, vf r)
{
    vi xn = f_isnan(x), rn = f_isnan(r) & ~xn;
    vi v = (xn & ((vi)x | F32_QUIET)) | (rn & F32_DNAN) | (~(xn | rn) & (vi)r);
    return (vf)v;
}
INL vd d_sqrtfix(vd x, vd r)
{
    vl xn = d_isnan(x), rn = d_isnan(r) & ~xn;
    vl v = (xn & ((vl)x | F64_QUIET)) | (rn & F64_DNAN) | (~(xn | rn) & (vl)r);
    return (vd)v;
}

/* sign: NaN quieted, zeros kept, else +-1 with the operand's sign. */
INL vf f_sign(vf x)
{
    vi xi = (vi)x, z = (xi & F32_ABS) == 0;
    vi r = (z & xi) | (~z & ((xi & F32_SIGN) | F32_ONE));
    return f_nanfix(x, (vf)r);
}
INL vd d_sign(vd x)
{
    vl xi = (vl)x, z = (xi & F64_ABS) == 0;
    vl r = (z & xi) | (~z & ((xi & F64_SIGN) | F64_ONE));
    return d_nanfix(x, (vd)r);
}

/* IEEE 754-2019 maximum/minimum on bits: keys order the floats as signed
 * integers with -0 below +0; the first NaN operand wins, quieted. */
INL vf f_minmax(vf x, vf y, int want_max)
{
    vi xi = (vi)x, yi = (vi)y;
    vi kx = xi ^ ((xi >> 31) & F32_ABS), ky = yi ^ ((yi >> 31) & F32_ABS);
    vi pick_x = want_max ? kx > ky : kx < ky;
    vi r = (pick_x & xi) | (~pick_x & yi);
    vi xn = f_isnan(x), yn = f_isnan(y);
    return (vf)((xn & (xi | F32_QUIET)) | (~xn & ((yn & (yi | F32_QUIET)) | (~yn & r))));
}
INL vd d_minmax(vd x, vd y, int want_max)
{
    vl xi = (vl)x, yi = (vl)y;
    vl kx = xi ^ ((xi >> 63) & F64_ABS), ky = yi ^ ((yi >> 63) & F64_ABS);
    vl pick_x = want_max ? kx > ky : kx < ky;
    vl r = (pick_x & xi) | (~pick_x & yi);
    vl xn = d_isnan(x), yn = d_isnan(y);
    return (vd)((xn & (xi | F64_QUIET)) | (~xn & ((yn & (yi | F64_QUIET)) | (~yn & r))));
}

/* totalOrder keys: the bits as signed integers, negative magnitudes
 * reflected, so -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. */
INL vi f_key(vf x) { vi xi = (vi)x; return xi ^ ((xi >> 31) & F32_ABS); }
INL vl d_key(vd x) { vl xi = (vl)x; return xi ^ ((xi >> 63) & F64_ABS); }

/* Round half away from zero from the truncation t of x: x - t is exact
 * (|x| < 2^p: t = 0, or t <= |x| < 2|t|, Sterbenz), so the comparison with
 * 0.5 is exact (no x + 0.5 rounding at 0.49999997 or at odd integers
 * >= 2^23), and t +- 1 is exact below 2^p. t is kept where the fraction is
 * below 1/2, so -0.3 gives -0. */
INL vf f_afz(vf x, vf t)
{
    vf d = x - t;
    vi up = ((vi)d & F32_ABS) >= 0x3F000000;   /* |d| >= 0.5; NaN (inf - inf) is not below */
    up &= ((vi)d & F32_ABS) <= F32_INF;
    vf one = (vf)(((vi)x & F32_SIGN) | F32_ONE);
    vf r = t + one;
    return (vf)((up & (vi)r) | (~up & (vi)t));
}
INL vd d_afz(vd x, vd t)
{
    vd d = x - t;
    vl up = ((vl)d & F64_ABS) >= 0x3FE0000000000000ll;
    up &= ((vl)d & F64_ABS) <= F64_INF;
    vd one = (vd)(((vl)x & F64_SIGN) | F64_ONE);
    vd r = t + one;
    return (vd)((up & (vl)r) | (~up & (vl)t));
}

/* ---- portable rounding: (|x| + 2^p) - 2^p ------------------------------------
 * For |x| < 2^p (p = 23 for f32, 52 for f64) the sum lies in [2^p, 2^(p+1)),
 * where the spacing is 1, so one round-to-nearest-even addition rounds |x|
 * to the nearest integer (ties to even) and the subtraction is exact
 * (needs -ffp-contract=off and no reassociation, which the build has).
 * |x| >= 2^p, infinities and NaNs are integers already (NaNs fixed by the
 * callers). The sign is put back by bits, so -0.3 gives -0. */
enum ewf_rnd { R_EVEN, R_FLOOR, R_CEIL, R_TRUNC };

INL vf f_round_magic(vf x, enum ewf_rnd mode)
{
    vi xi = (vi)x, s = xi & F32_SIGN, neg = xi >> 31;
    vf a = (vf)(xi & F32_ABS);
    const vf m = (vf)((vi){0} + 0x4B000000);   /* 2^23 */
    vi small = (vi)a < 0x4B000000;
    vf re = (a + m) - m;                        /* nearest even integer to |x| */
    vi gt = (vi)(re > a), lt = (vi)(re < a);
    vf tr = (vf)((gt & (vi)(re - 1.0f)) | (~gt & (vi)re));     /* trunc |x| */
    vf ce = (vf)((lt & (vi)(re + 1.0f)) | (~lt & (vi)re));     /* ceil |x| */
    vf mag;
    switch (mode) {
    case R_EVEN: mag = re; break;
    case R_TRUNC: mag = tr; break;
    case R_FLOOR: mag = (vf)((neg & (vi)ce) | (~neg & (vi)tr)); break;
    default: mag = (vf)((neg & (vi)tr) | (~neg & (vi)ce)); break;
    }
    return (vf)((small & ((vi)mag | s)) | (~small & xi));
}
INL vd d_round_magic(vd x, enum ewf_rnd mode)
{
    vl xi = (vl)x, s = xi & F64_SIGN;
    vd a = (vd)(xi & F64_ABS);
    const vd m = (vd)((vl){0} + 0x4330000000000000ll);   /* 2^52 */
    vl small = (vl)a < 0x4330000000000000ll;
    vd re = (a + m) - m;
    vl gt = (vl)(re > a), lt = (vl)(re < a);
    vd tr = (vd)((gt & (vl)(re - 1.0)) | (~gt & (vl)re));
    vd ce = (vd)((lt & (vl)(re + 1.0)) | (~lt & (vl)re));
    vl neg = xi >> 63;
    vd mag;
    switch (mode) {
    case R_EVEN: mag = re; break;
    case R_TRUNC: mag = tr; break;
    case R_FLOOR: mag = (vd)((neg & (vl)ce) | (~neg & (vl)tr)); break;
    default: mag = (vd)((neg & (vl)tr) | (~neg & (vl)ce)); break;
    }
    return (vd)((small & ((vl)mag | s)) | (~small & xi));
}

INL vf f_round_port(vf x, enum ewf_rnd mode) { return f_round_magic(x, mode); }
INL vd d_round_port(vd x, enum ewf_rnd mode) { return d_round_magic(x, mode); }

INL vf f_sqrt_port(vf x)
{
#if defined(__SSE2__)
    union { vf v; __m128 h[4]; } u = {.v = x};
    for (int k = 0; k < 4; k++)
        u.h[k] = _mm_sqrt_ps(u.h[k]);
    return u.v;
#else
    vf r;
    for (int k = 0; k < VF_LANES; k++)
        r[k] = sqrtf(x[k]);
    return r;
#endif
}
INL vd d_sqrt_port(vd x)
{
#if defined(__SSE2__)
    union { vd v; __m128d h[4]; } u = {.v = x};
    for (int k = 0; k < 4; k++)
        u.h[k] = _mm_sqrt_pd(u.h[k]);
    return u.v;
#else
    vd r;
    for (int k = 0; k < VD_LANES; k++)
        r[k] = sqrt(x[k]);
    return r;
#endif
}

/* ---- AVX2 and AVX-512 primitives: roundToIntegral and squareRoot in one
 * instruction each (vroundps/pd, vrndscaleps/pd with the inexact exception
 * suppressed; vsqrtps/pd). Modes: 0 nearest even, 1 down, 2 up, 3 toward zero. */
#ifdef EWF_X86
#define ROUND_CASES(F, x, SUP)                                                             \
    switch (mode) {                                                                         \
    case R_EVEN: return F(x, _MM_FROUND_TO_NEAREST_INT | SUP);                              \
    case R_FLOOR: return F(x, _MM_FROUND_TO_NEG_INF | SUP);                                 \
    case R_CEIL: return F(x, _MM_FROUND_TO_POS_INF | SUP);                                  \
    default: return F(x, _MM_FROUND_TO_ZERO | SUP);                                         \
    }

TGT_AVX2 INL __m256 r256(__m256 x, enum ewf_rnd mode) { ROUND_CASES(_mm256_round_ps, x, _MM_FROUND_NO_EXC) }
TGT_AVX2 INL __m256d r256d(__m256d x, enum ewf_rnd mode) { ROUND_CASES(_mm256_round_pd, x, _MM_FROUND_NO_EXC) }
TGT_AVX2 INL vf f_round_avx2(vf x, enum ewf_rnd mode)
{
    union { vf v; __m256 h[2]; } u = {.v = x};
    u.h[0] = r256(u.h[0], mode);
    u.h[1] = r256(u.h[1], mode);
    return u.v;
}
TGT_AVX2 INL vd d_round_avx2(vd x, enum ewf_rnd mode)
{
    union { vd v; __m256d h[2]; } u = {.v = x};
    u.h[0] = r256d(u.h[0], mode);
    u.h[1] = r256d(u.h[1], mode);
    return u.v;
}
TGT_AVX2 INL vf f_sqrt_avx2(vf x)
{
    union { vf v; __m256 h[2]; } u = {.v = x};
    u.h[0] = _mm256_sqrt_ps(u.h[0]);
    u.h[1] = _mm256_sqrt_ps(u.h[1]);
    return u.v;
}
TGT_AVX2 INL vd d_sqrt_avx2(vd x)
{
    union { vd v; __m256d h[2]; } u = {.v = x};
    u.h[0] = _mm256_sqrt_pd(u.h[0]);
    u.h[1] = _mm256_sqrt_pd(u.h[1]);
    return u.v;
}

TGT_AVX512 INL vf f_round_avx512(vf x, enum ewf_rnd mode)
{
    __m512 v = (__m512)x;
    ROUND_CASES((vf)_mm512_roundscale_ps, v, _MM_FROUND_NO_EXC)
}
TGT_AVX512 INL vd d_round_avx512(vd x, enum ewf_rnd mode)
{
    __m512d v = (__m512d)x;
    ROUND_CASES((vd)_mm512_roundscale_pd, v, _MM_FROUND_NO_EXC)
}
TGT_AVX512 INL vf f_sqrt_avx512(vf x) { return (vf)_mm512_sqrt_ps((__m512)x); }
TGT_AVX512 INL vd d_sqrt_avx512(vd x) { return (vd)_mm512_sqrt_pd((__m512d)x); }
#endif

/* ---- the loops (one source, three targets) -------------------------------------- */

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

/* FROUND/DROUND and FSQRT/DSQRT name the ISA's primitives. */
#define EWF_LOOPS(SUF, TARGET, FROUND, DROUND, FSQRT, DSQRT)                                       \
    TARGET static void f32_unary##SUF(plumb_opcode code, const void *in, void *out, size_t n)      \
    {                                                                                              \
        switch (code) {                                                                            \
        case PLUMB_OP_SIGN: UNARY_LOOP(vf, float, VF_LANES, f_sign(x)); break;                     \
        case PLUMB_OP_FLOOR: UNARY_LOOP(vf, float, VF_LANES, f_nanfix(x, FROUND(x, R_FLOOR))); break; \
        case PLUMB_OP_CEIL: UNARY_LOOP(vf, float, VF_LANES, f_nanfix(x, FROUND(x, R_CEIL))); break; \
        case PLUMB_OP_ROUND_NEAREST_EVEN:                                                          \
            UNARY_LOOP(vf, float, VF_LANES, f_nanfix(x, FROUND(x, R_EVEN)));                       \
            break;                                                                                 \
        case PLUMB_OP_ROUND_NEAREST_AFZ:                                                           \
            UNARY_LOOP(vf, float, VF_LANES, f_nanfix(x, f_afz(x, FROUND(x, R_TRUNC))));            \
            break;                                                                                 \
        default: UNARY_LOOP(vf, float, VF_LANES, f_sqrtfix(x, FSQRT(x))); break;                   \
        }                                                                                          \
    }                                                                                              \
    TARGET static void f64_unary##SUF(plumb_opcode code, const void *in, void *out, size_t n)      \
    {                                                                                              \
        switch (code) {                                                                            \
        case PLUMB_OP_ABS: UNARY_LOOP(vd, double, VD_LANES, (vd)((vl)x & F64_ABS)); break;          \
        case PLUMB_OP_NEGATE: UNARY_LOOP(vd, double, VD_LANES, (vd)((vl)x ^ F64_SIGN)); break;      \
        case PLUMB_OP_SIGN: UNARY_LOOP(vd, double, VD_LANES, d_sign(x)); break;                    \
        case PLUMB_OP_FLOOR: UNARY_LOOP(vd, double, VD_LANES, d_nanfix(x, DROUND(x, R_FLOOR))); break; \
        case PLUMB_OP_CEIL: UNARY_LOOP(vd, double, VD_LANES, d_nanfix(x, DROUND(x, R_CEIL))); break; \
        case PLUMB_OP_ROUND_NEAREST_EVEN:                                                          \
            UNARY_LOOP(vd, double, VD_LANES, d_nanfix(x, DROUND(x, R_EVEN)));                      \
            break;                                                                                 \
        case PLUMB_OP_ROUND_NEAREST_AFZ:                                                           \
            UNARY_LOOP(vd, double, VD_LANES, d_nanfix(x, d_afz(x, DROUND(x, R_TRUNC))));           \
            break;                                                                                 \
        default: UNARY_LOOP(vd, double, VD_LANES, d_sqrtfix(x, DSQRT(x))); break;                  \
        }                                                                                          \
    }                                                                                              \
    TARGET static void f64_binary##SUF(plumb_opcode code, const void *in0, const void *in1,        \
                                       void *out, size_t n)                                        \
    {                                                                                              \
        switch (code) {                                                                            \
        case PLUMB_OP_ADD: BINARY_LOOP(vd, double, VD_LANES, d_nan2fix(x, y, x + y)); break;       \
        case PLUMB_OP_SUBTRACT: BINARY_LOOP(vd, double, VD_LANES, d_nan2fix(x, y, x - y)); break;  \
        case PLUMB_OP_MULTIPLY: BINARY_LOOP(vd, double, VD_LANES, d_nan2fix(x, y, x * y)); break;  \
        case PLUMB_OP_DIVIDE: BINARY_LOOP(vd, double, VD_LANES, d_nan2fix(x, y, x / y)); break;    \
        case PLUMB_OP_MAXIMUM: BINARY_LOOP(vd, double, VD_LANES, d_minmax(x, y, 1)); break;        \
        default: BINARY_LOOP(vd, double, VD_LANES, d_minmax(x, y, 0)); break;                      \
        }                                                                                          \
    }                                                                                              \
    TARGET static void f32_clamp##SUF(const void *in0, const void *in1, const void *in2,           \
                                      void *out, size_t n)                                         \
    {                                                                                              \
        TERNARY_LOOP(vf, float, VF_LANES, f_minmax(f_minmax(x, lo, 1), hi, 0));                    \
    }                                                                                              \
    TARGET static void f64_clamp##SUF(const void *in0, const void *in1, const void *in2,           \
                                      void *out, size_t n)                                         \
    {                                                                                              \
        TERNARY_LOOP(vd, double, VD_LANES, d_minmax(d_minmax(x, lo, 1), hi, 0));                   \
    }                                                                                              \
    TARGET static void f32_finite##SUF(const void *in0, uint8_t *out, size_t n)                    \
    {                                                                                              \
        const void *in1 = in0;                                                                     \
        (void)in1;                                                                                 \
        MASK_LOOP(vf, float, VF_LANES, vc16, 1, ((vi)x & F32_ABS) < F32_INF);                      \
    }                                                                                              \
    TARGET static void f64_finite##SUF(const void *in0, uint8_t *out, size_t n)                    \
    {                                                                                              \
        const void *in1 = in0;                                                                     \
        (void)in1;                                                                                 \
        MASK_LOOP(vd, double, VD_LANES, vc8, 1, ((vl)x & F64_ABS) < F64_INF);                      \
    }                                                                                              \
    TARGET static void f32_cmp_total##SUF(ir_cmp_dir dir, const void *in0, const void *in1,        \
                                          uint8_t *out, size_t n)                                  \
    {                                                                                              \
        CMP_SWITCH(vf, float, VF_LANES, vc16, f_key(x), f_key(y))                                  \
    }                                                                                              \
    TARGET static void f64_cmp_total##SUF(ir_cmp_dir dir, const void *in0, const void *in1,        \
                                          uint8_t *out, size_t n)                                  \
    {                                                                                              \
        CMP_SWITCH(vd, double, VD_LANES, vc8, d_key(x), d_key(y))                                  \
    }                                                                                              \
    /* IEEE comparisons: false with a NaN operand, != true */                                      \
    TARGET static void f64_cmp_float##SUF(ir_cmp_dir dir, const void *in0, const void *in1,        \
                                          uint8_t *out, size_t n)                                  \
    {                                                                                              \
        CMP_SWITCH(vd, double, VD_LANES, vc8, x, y)                                                \
    }

EWF_LOOPS(_portable, , f_round_port, d_round_port, f_sqrt_port, d_sqrt_port)
#ifdef EWF_X86
EWF_LOOPS(_avx2, TGT_AVX2, f_round_avx2, d_round_avx2, f_sqrt_avx2, d_sqrt_avx2)
EWF_LOOPS(_avx512, TGT_AVX512, f_round_avx512, d_round_avx512, f_sqrt_avx512, d_sqrt_avx512)
#endif

/* ---- dispatch --------------------------------------------------------------------- */

typedef struct ewf_impl {
    void (*f32_unary)(plumb_opcode, const void *, void *, size_t);
    void (*f64_unary)(plumb_opcode, const void *, void *, size_t);
    void (*f64_binary)(plumb_opcode, const void *, const void *, void *, size_t);
    void (*f32_clamp)(const void *, const void *, const void *, void *, size_t);
    void (*f64_clamp)(const void *, const void *, const void *, void *, size_t);
    void (*f32_finite)(const void *, uint8_t *, size_t);
    void (*f64_finite)(const void *, uint8_t *, size_t);
    void (*f32_cmp_total)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
    void (*f64_cmp_total)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
    void (*f64_cmp_float)(ir_cmp_dir, const void *, const void *, uint8_t *, size_t);
} ewf_impl;

#define IMPL(SUF)                                                                          \
    {f32_unary##SUF, f64_unary##SUF, f64_binary##SUF, f32_clamp##SUF, f64_clamp##SUF,       \
     f32_finite##SUF, f64_finite##SUF, f32_cmp_total##SUF, f64_cmp_total##SUF, f64_cmp_float##SUF}
static const ewf_impl impl_portable = IMPL(_portable);
#ifdef EWF_X86
static const ewf_impl impl_avx2 = IMPL(_avx2);
static const ewf_impl impl_avx512 = IMPL(_avx512);
#endif

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

/* f32: only the ops the engine has no vector loop for; add/subtract/
 * multiply/divide/maximum/minimum, negate/abs, FLOAT compare, the vector
 * math (unary, power, atan2) and remainder (fmod, no exact vector form
 * here) stay on the engine's paths. */
static bool f32_ops(const rt_ew_args *a, const ewf_impl *f)
{
    switch (a->code) {
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

/* f64: everything exact; the transcendentals, power, atan2 and remainder
 * stay on the engine's long double paths. */
static bool f64_ops(const rt_ew_args *a, const ewf_impl *f)
{
    switch (a->code) {
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
