/* Vectorized elementwise loops for f16 and bf16 element types (see rt_ew_args in
 * rt_internal.h): the element engine offers each op here first.
 *
 * Every loop gives the engine's per-element bits (docs/runtime-ew-half.md has
 * the argument for each op):
 * - add, subtract, multiply, divide, sqrt: both operands widened exactly to
 *   f32, one f32 operation, one rounding to the half type. f32 has at least
 *   2p+2 bits for both half types, so the double rounding is innocuous
 *   (Figueroa 1995), subnormal results included.
 * - floor, ceil, round_nearest_even, round_nearest_afz: exact in f32, so
 *   widen, round to an integer, narrow (exactly).
 * - maximum, minimum, clamp, sign, is_finite, compare: on the 16-bit
 *   patterns directly.
 * - the transcendental unary ops: the double result of rt_vmath_f32d on the
 *   exactly widened operand, rounded once to the half type (round to odd at
 *   f32's 24 bits, then to nearest even: one correct rounding, Boldo and
 *   Melquiond 2008); lanes whose result is NaN, subnormal, zero or at the
 *   overflow threshold go to rt_math_narrow as in the engine. Except:
 *   exp, logistic and tanh at the AVX2 and AVX-512 levels, computed by the
 *   f32 register functions and rounded once (within 0.5 + 2^-11 ULP of the
 *   exact value, inside the bound of 1; not always the engine's bits), the
 *   lanes above flagged and redone by the engine's rules.
 * NaN operands give the first NaN operand quieted; invalid operations the
 * positive default NaN of the type. Blocks of HB elements are widened into
 * f32 buffers on the stack; a tail shorter than one vector runs through
 * zero-padded buffers, so it takes the same code as the body. */
#include <math.h>
#include <string.h>

#include "rt_internal.h"
#include "rt_math.h"
#include "rt_fusion.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define EWH_X86 1
#include "math_x16.h"
#else
#define EWH_X86 0
#endif

#define HB 256u   /* elements per block; a multiple of HV */
#define HV 32u    /* elements per step of every block loop */

/* The loops below are one source built three times with the target's
 * native vector width (VB bytes: 16 portable, 32 AVX2, 64 AVX-512), so
 * no operation is split or scalarized by the compiler. */

/* Bit layout of a half type. */
typedef struct hinfo {
    uint16_t em;      /* exponent field mask (infinity's pattern) */
    uint16_t q;       /* quiet bit */
    uint16_t one;     /* 1.0 */
    uint16_t dnan;    /* default NaN */
    double min_normal, max_finite;
    uint32_t min_normal32, max_finite32;   /* the same two as f32 patterns */
} hinfo;

static const hinfo H_F16 = {0x7C00, 0x200, 0x3C00, 0x7E00, 0x1p-14, 65504.0, 0x38800000u, 0x477FE000u};
static const hinfo H_BF16 = {0x7F80, 0x40, 0x3F80, 0x7FC0, 0x1p-126, 0x1.FEp127, 0x00800000u, 0x7F7F0000u};

enum hclass { HC_ARITH, HC_SQRT, HC_ROUND, HC_MINMAX, HC_CLAMP, HC_SIGN, HC_FINITE, HC_CMP, HC_VMATH, HC_VMATH2 };
enum hround { HR_FLOOR, HR_CEIL, HR_EVEN, HR_AFZ };

/* One run of the op over blocks. */
typedef struct hjob {
    plumb_opcode code;
    plumb_dtype t;
    const hinfo *h;
    enum hclass cls;
    int sub;              /* HR_* of HC_ROUND; want_max of HC_MINMAX */
    ir_cmp_dir dir;
    bool total;           /* TOTALORDER comparison */
    rt_vmath_f32d_fn fn;  /* HC_VMATH */
    rt_vmath_f32_fn fn32; /* HC_VMATH when the level computes the op in f32 registers, else NULL */
    rt_vmath2_f32d_fn fn2; /* HC_VMATH2 */
} hjob;

/* 64-byte vector values between static functions of one file: no ABI to keep */
#pragma GCC diagnostic ignored "-Wpsabi"

/* ---- f16 <-> f32 in bit arithmetic (the portable path) ---------------------------
 * Widening: the 15 magnitude bits shifted into f32's place give 2^-112 times
 * the value (subnormal halves become f32 subnormals), so one exact
 * multiplication by 2^112 rebiases; infinities and NaNs get f32's exponent,
 * NaNs the quiet bit (as the shared conversion and F16C do). Narrowing:
 * below 2^-14, adding 0.5 rounds to a multiple of 2^-24 (the ulp of [0.5, 1))
 * to nearest even in hardware; above, the classic rebias with a round bit. */
#define HALF_LOOPS(SUF, TARGET, VB)                                                                   \
    typedef float vf##SUF __attribute__((vector_size(VB)));                                      \
    typedef int32_t vi##SUF __attribute__((vector_size(VB)));                                    \
    typedef uint32_t vu##SUF __attribute__((vector_size(VB)));                                   \
    typedef uint16_t vh##SUF __attribute__((vector_size(VB / 2)));                               \
    typedef uint16_t vw##SUF __attribute__((vector_size(VB)));                                   \
    typedef int16_t vs##SUF __attribute__((vector_size(VB)));                                    \
    typedef int8_t vb##SUF __attribute__((vector_size(VB / 2)));                                 \
    typedef double vd##SUF __attribute__((vector_size(VB)));                                     \
    typedef int64_t vl##SUF __attribute__((vector_size(VB)));                                    \
    typedef uint64_t vq##SUF __attribute__((vector_size(VB)));                                   \
    typedef uint32_t vn##SUF __attribute__((vector_size(VB / 2)));                               \
    typedef int8_t vc##SUF __attribute__((vector_size(VB / 8)));                                 \
    typedef int8_t vk##SUF __attribute__((vector_size(VB / 4)));                                 \
TARGET static inline __attribute__((always_inline)) vf##SUF f16_widen_lanes##SUF(vu##SUF h)             \
{                                                                                                 \
    vu##SUF s = (h & 0x8000) << 16, m = h & 0x7FFF;                                                  \
    vf##SUF f;                                                                                       \
    vu##SUF mb = m << 13;                                                                            \
    memcpy(&f, &mb, VB);                                                                          \
    f = f * 0x1p112f;                                                                             \
    vu##SUF fb;                                                                                      \
    memcpy(&fb, &f, VB);                                                                          \
    vu##SUF special = (vu##SUF)(m >= 0x7C00);                                                           \
    vu##SUF nan = (vu##SUF)(m > 0x7C00);                                                                \
    vu##SUF sp = 0x7F800000 | ((m & 0x3FF) << 13) | (nan & 0x400000);                                \
    fb = (special & sp) | (~special & fb);                                                        \
    fb |= s;                                                                                      \
    memcpy(&f, &fb, VB);                                                                          \
    return f;                                                                                     \
}                                                                                                 \
TARGET static inline __attribute__((always_inline)) vu##SUF f16_narrow_lanes##SUF(vf##SUF x)            \
{                                                                                                 \
    vu##SUF u;                                                                                       \
    memcpy(&u, &x, VB);                                                                           \
    vu##SUF s = (u >> 16) & 0x8000, a = u & 0x7FFFFFFF;                                              \
    vu##SUF nan = (vu##SUF)(a > 0x7F800000);                                                            \
    vu##SUF big = (vu##SUF)(a >= 0x477FF000);          /* 65520 and above round to infinity */          \
    vu##SUF small = (vu##SUF)(a < 0x38800000);         /* below 2^-14 */                                \
    vf##SUF af, half = {0};                                                                          \
    half += 0.5f;                                                                                 \
    memcpy(&af, &a, VB);                                                                          \
    vf##SUF d = af + half;                                                                           \
    vu##SUF db, hb;                                                                                  \
    memcpy(&db, &d, VB);                                                                          \
    memcpy(&hb, &half, VB);                                                                       \
    vu##SUF sub = db - hb;                                                                           \
    vu##SUF nrm = (a + ((uint32_t)(15 - 127) << 23) + 0xFFF + ((a >> 13) & 1)) >> 13;                \
    vu##SUF r = (small & sub) | (~small & nrm);                                                      \
    r = (big & 0x7C00) | (~big & r);                                                              \
    r = (nan & (0x7E00 | ((a >> 13) & 0x3FF))) | (~nan & r);                                      \
    return r | s;                                                                                 \
}                                                                                                 \
    __attribute__((unused)) TARGET static void f16_widen_bits##SUF(const uint16_t *x, float *o, size_t n) \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vh##SUF h;                                                                               \
            memcpy(&h, x + i, VB / 2);                                                                \
            vf##SUF f = f16_widen_lanes##SUF(__builtin_convertvector(h, vu##SUF));                           \
            memcpy(o + i, &f, VB);                                                                \
        }                                                                                         \
    }                                                                                             \
    __attribute__((unused)) TARGET static void f16_narrow_bits##SUF(const float *x, uint16_t *o, size_t n) \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vf##SUF f;                                                                               \
            memcpy(&f, x + i, VB);                                                                \
            vh##SUF h = __builtin_convertvector(f16_narrow_lanes##SUF(f), vh##SUF);                          \
            memcpy(o + i, &h, VB / 2);                                                                \
        }                                                                                         \
    }                                                                                             \
    /* bf16 is the top half of an f32: widening is a shift (a NaN keeps its  */                  \
    /* bits; the loops quiet NaNs where the op needs it); narrowing rounds   */                  \
    /* to nearest even at bit 16, a NaN keeps sign and top payload, quieted. */                  \
    TARGET static void bf16_widen##SUF(const uint16_t *x, float *o, size_t n)                    \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vh##SUF h;                                                                               \
            memcpy(&h, x + i, VB / 2);                                                                \
            vu##SUF u = __builtin_convertvector(h, vu##SUF) << 16;                                      \
            memcpy(o + i, &u, VB);                                                                \
        }                                                                                         \
    }                                                                                             \
    TARGET static void bf16_narrow##SUF(const float *x, uint16_t *o, size_t n)                   \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vu##SUF v;                                                                               \
            memcpy(&v, x + i, VB);                                                                \
            vu##SUF nan = (vu##SUF)((v & 0x7FFFFFFF) > 0x7F800000);                                     \
            vu##SUF r = (v + 0x7FFF + ((v >> 16) & 1)) >> 16;                                        \
            r = (nan & ((v >> 16) | 0x40)) | (~nan & r);                                          \
            vh##SUF h = __builtin_convertvector(r, vh##SUF);                                            \
            memcpy(o + i, &h, VB / 2);                                                                \
        }                                                                                         \
    }                                                                                             \
    /* add, subtract, multiply, divide of two half vectors in f32 registers: */                  \
    /* widen, one f32 operation, the NaN rule, one rounding, store; the     */                  \
    /* same bits as widen + arith + narrow through the block buffers.       */                  \
    TARGET static inline __attribute__((always_inline)) void arith_h_loop##SUF(                 \
        int code, bool f16, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)        \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                  \
            vh##SUF ha, hb;                                                                       \
            memcpy(&ha, a + i, VB / 2);                                                           \
            memcpy(&hb, b + i, VB / 2);                                                           \
            vu##SUF ua = __builtin_convertvector(ha, vu##SUF), ub = __builtin_convertvector(hb, vu##SUF); \
            vf##SUF x, y, r;                                                                      \
            if (f16) {                                                                            \
                x = f16_widen_lanes##SUF(ua);                                                     \
                y = f16_widen_lanes##SUF(ub);                                                     \
            } else {                                                                              \
                ua <<= 16;                                                                        \
                ub <<= 16;                                                                        \
                memcpy(&x, &ua, VB);                                                              \
                memcpy(&y, &ub, VB);                                                              \
            }                                                                                     \
            switch (code) {                                                                       \
            case PLUMB_OP_ADD: r = x + y; break;                                                  \
            case PLUMB_OP_SUBTRACT: r = x - y; break;                                             \
            case PLUMB_OP_MULTIPLY: r = x * y; break;                                             \
            default: r = x / y; break;                                                            \
            }                                                                                     \
            vi##SUF rn = ((vi##SUF)r & 0x7FFFFFFF) > 0x7F800000;                                  \
            vi##SUF xn = ((vi##SUF)x & 0x7FFFFFFF) > 0x7F800000;                                  \
            vi##SUF yn = ((vi##SUF)y & 0x7FFFFFFF) > 0x7F800000;                                  \
            vi##SUF nanv = (xn & ((vi##SUF)x | 0x400000)) |                                       \
                           (~xn & ((yn & ((vi##SUF)y | 0x400000)) | (~yn & 0x7FC00000)));         \
            r = (vf##SUF)((rn & nanv) | (~rn & (vi##SUF)r));                                      \
            vu##SUF q;                                                                            \
            if (f16) {                                                                            \
                q = f16_narrow_lanes##SUF(r);                                                     \
            } else {                                                                              \
                vu##SUF v;                                                                        \
                memcpy(&v, &r, VB);                                                               \
                vu##SUF nan = (vu##SUF)((v & 0x7FFFFFFF) > 0x7F800000);                           \
                q = (v + 0x7FFF + ((v >> 16) & 1)) >> 16;                                         \
                q = (nan & ((v >> 16) | 0x40)) | (~nan & q);                                      \
            }                                                                                     \
            vh##SUF h = __builtin_convertvector(q, vh##SUF);                                      \
            memcpy(o + i, &h, VB / 2);                                                            \
        }                                                                                         \
    }                                                                                             \
    __attribute__((unused)) TARGET static void arith_h##SUF(plumb_opcode code, bool f16,          \
                                    const uint16_t *a, const uint16_t *b,                         \
                                    uint16_t *o, size_t n)                                        \
    {                                                                                             \
        switch (code) {                                                                           \
        case PLUMB_OP_ADD:                                                                        \
            f16 ? arith_h_loop##SUF(PLUMB_OP_ADD, true, a, b, o, n)                               \
                : arith_h_loop##SUF(PLUMB_OP_ADD, false, a, b, o, n);                             \
            break;                                                                                \
        case PLUMB_OP_SUBTRACT:                                                                   \
            f16 ? arith_h_loop##SUF(PLUMB_OP_SUBTRACT, true, a, b, o, n)                          \
                : arith_h_loop##SUF(PLUMB_OP_SUBTRACT, false, a, b, o, n);                        \
            break;                                                                                \
        case PLUMB_OP_MULTIPLY:                                                                   \
            f16 ? arith_h_loop##SUF(PLUMB_OP_MULTIPLY, true, a, b, o, n)                          \
                : arith_h_loop##SUF(PLUMB_OP_MULTIPLY, false, a, b, o, n);                        \
            break;                                                                                \
        default:                                                                                  \
            f16 ? arith_h_loop##SUF(PLUMB_OP_DIVIDE, true, a, b, o, n)                            \
                : arith_h_loop##SUF(PLUMB_OP_DIVIDE, false, a, b, o, n);                          \
            break;                                                                                \
        }                                                                                         \
    }                                                                                             \
    /* f32 arithmetic with the NaN rule fixed up per lane (the operation    */                  \
    /* itself may pick either operand's NaN).                                */                  \
    TARGET static void arith##SUF(plumb_opcode code, const float *a, const float *b, float *o,   \
                                  size_t n)                                                       \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vf##SUF x, y, r;                                                                         \
            memcpy(&x, a + i, VB);                                                                \
            memcpy(&y, b + i, VB);                                                                \
            switch (code) {                                                                       \
            case PLUMB_OP_ADD: r = x + y; break;                                                  \
            case PLUMB_OP_SUBTRACT: r = x - y; break;                                             \
            case PLUMB_OP_MULTIPLY: r = x * y; break;                                             \
            default: r = x / y; break;                                                            \
            }                                                                                     \
            vi##SUF rn = ((vi##SUF)r & 0x7FFFFFFF) > 0x7F800000;                                        \
            vi##SUF xn = ((vi##SUF)x & 0x7FFFFFFF) > 0x7F800000;                                        \
            vi##SUF yn = ((vi##SUF)y & 0x7FFFFFFF) > 0x7F800000;                                        \
            vi##SUF nanv = (xn & ((vi##SUF)x | 0x400000)) |                                             \
                        (~xn & ((yn & ((vi##SUF)y | 0x400000)) | (~yn & 0x7FC00000)));               \
            r = (vf##SUF)((rn & nanv) | (~rn & (vi##SUF)r));                                            \
            memcpy(o + i, &r, VB);                                                                \
        }                                                                                         \
    }                                                                                             \
    /* Rounding to an integer in f32: below 2^23, (|x| + 2^23) - 2^23 is     */                  \
    /* |x| rounded to nearest even (the default mode, never changed); the    */                  \
    /* other directions step from it by one; the sign is x's (floor(-0.3) =  */                  \
    /* -1, ceil(-0.7) = -0). Both steps are exact.                           */                  \
    TARGET static void round##SUF(enum hround mode, const float *a, float *o, size_t n)          \
    {                                                                                             \
        const vf##SUF two23 = (vf##SUF){0} + 0x1p23f, onef = (vf##SUF){0} + 1.0f, halff = (vf##SUF){0} + 0.5f; \
        for (size_t i = 0; i < n; i += VB / 4) {                                                      \
            vi##SUF u;                                                                               \
            memcpy(&u, a + i, VB);                                                                \
            vi##SUF sg = u & (int32_t)0x80000000, ab = u & 0x7FFFFFFF;                                \
            vf##SUF ax = (vf##SUF)ab;                                                                   \
            vf##SUF r = (ax + two23) - two23, m;                                                     \
            vi##SUF up = r < ax, down = r > ax;                                                      \
            vi##SUF neg = sg != 0;                                                                   \
            switch (mode) {                                                                       \
            case HR_FLOOR: /* magnitude: down for +, up for - */                                  \
                m = r - (vf##SUF)(down & ~neg & (vi##SUF)onef) + (vf##SUF)(up & neg & (vi##SUF)onef);         \
                break;                                                                            \
            case HR_CEIL:                                                                         \
                m = r + (vf##SUF)(up & ~neg & (vi##SUF)onef) - (vf##SUF)(down & neg & (vi##SUF)onef);         \
                break;                                                                            \
            case HR_AFZ:                                                                          \
                m = r + (vf##SUF)(((ax - r) >= halff) & (vi##SUF)onef);                                 \
                break;                                                                            \
            default:                                                                              \
                m = r;                                                                            \
                break;                                                                            \
            }                                                                                     \
            vi##SUF big = ab >= 0x4B000000; /* 2^23 and above (inf too): integral */                 \
            vi##SUF res = (big & ab) | (~big & (vi##SUF)m);                                             \
            res |= sg;                                                                            \
            vi##SUF xn = ab > 0x7F800000;                                                            \
            res = (xn & (u | 0x400000)) | (~xn & res);                                            \
            memcpy(o + i, &res, VB);                                                              \
        }                                                                                         \
    }                                                                                             \
    /* maximum/minimum on the patterns: the signed keys x ^ (sign ? 0x7FFF : 0) */               \
    /* order the non-NaN values with -0 below +0; NaN operands fixed after.    */                \
    TARGET static inline __attribute__((always_inline)) vw##SUF minmax_v##SUF(const hinfo *h, bool want_max, vw##SUF x, vw##SUF y)              \
    {                                                                                             \
        vs##SUF kx = (vs##SUF)x ^ (((vs##SUF)x >> 15) & 0x7FFF), ky = (vs##SUF)y ^ (((vs##SUF)y >> 15) & 0x7FFF); \
        vs##SUF px = want_max ? kx > ky : kx < ky;                                                   \
        vs##SUF r = (px & (vs##SUF)x) | (~px & (vs##SUF)y);                                                \
        vs##SUF xn = (vs##SUF)(x & 0x7FFF) > (int16_t)h->em, yn = (vs##SUF)(y & 0x7FFF) > (int16_t)h->em;  \
        vs##SUF q = (vs##SUF){0} + (int16_t)h->q;                                                       \
        r = (xn & ((vs##SUF)x | q)) | (~xn & ((yn & ((vs##SUF)y | q)) | (~yn & r)));                   \
        return (vw##SUF)r;                                                                           \
    }                                                                                             \
    TARGET static void hops##SUF(const hjob *j, const uint16_t *a, const uint16_t *b,            \
                                 const uint16_t *c, void *out, size_t n)                          \
    {                                                                                             \
        const hinfo *h = j->h;                                                                    \
        uint16_t *o = out;                                                                        \
        uint8_t *ob = out;                                                                        \
        for (size_t i = 0; i < n; i += VB / 2) {                                                      \
            vw##SUF x, y, z, r;                                                                      \
            memcpy(&x, a + i, VB);                                                                \
            switch (j->cls) {                                                                     \
            case HC_MINMAX:                                                                       \
                memcpy(&y, b + i, VB);                                                            \
                r = minmax_v##SUF(h, j->sub != 0, x, y);                                          \
                memcpy(o + i, &r, VB);                                                            \
                break;                                                                            \
            case HC_CLAMP: /* clamp(lo, x, hi) = min(max(x, lo), hi), x's NaN first */            \
                memcpy(&y, b + i, VB);                                                            \
                memcpy(&z, c + i, VB);                                                            \
                r = minmax_v##SUF(h, false, minmax_v##SUF(h, true, y, x), z);                     \
                memcpy(o + i, &r, VB);                                                            \
                break;                                                                            \
            case HC_SIGN: {                                                                       \
                vs##SUF m = (vs##SUF)(x & 0x7FFF), xn = m > (int16_t)h->em, zr = m == 0;                \
                vs##SUF s = ((vs##SUF)x & (int16_t)0x8000) | (int16_t)h->one;                          \
                s = (zr & (vs##SUF)x) | (~zr & s);                                                   \
                s = (xn & ((vs##SUF)x | (int16_t)h->q)) | (~xn & s);                                 \
                memcpy(o + i, &s, VB);                                                            \
                break;                                                                            \
            }                                                                                     \
            case HC_FINITE: {                                                                     \
                vs##SUF f = (vs##SUF)(x & h->em) != (int16_t)h->em;                                     \
                vb##SUF fb = __builtin_convertvector(f, vb##SUF) & 1;                                   \
                memcpy(ob + i, &fb, VB / 2);                                                          \
                break;                                                                            \
            }                                                                                     \
            default: { /* HC_CMP */                                                               \
                memcpy(&y, b + i, VB);                                                            \
                vs##SUF xs = (vs##SUF)x, ys = (vs##SUF)y, un = (vs##SUF){0};                                  \
                if (!j->total) { /* -0 == +0; a NaN operand: only NE holds */                     \
                    un = ((vs##SUF)(x & 0x7FFF) > (int16_t)h->em) | ((vs##SUF)(y & 0x7FFF) > (int16_t)h->em); \
                    xs &= (vs##SUF)(x & 0x7FFF) != 0;                                                \
                    ys &= (vs##SUF)(y & 0x7FFF) != 0;                                                \
                }                                                                                 \
                vs##SUF kx = xs ^ ((xs >> 15) & 0x7FFF), ky = ys ^ ((ys >> 15) & 0x7FFF), m;         \
                switch (j->dir) {                                                                 \
                case IR_CMP_EQ: m = kx == ky; break;                                              \
                case IR_CMP_NE: m = kx != ky; break;                                              \
                case IR_CMP_LT: m = kx < ky; break;                                               \
                case IR_CMP_LE: m = kx <= ky; break;                                              \
                case IR_CMP_GT: m = kx > ky; break;                                               \
                default: m = kx >= ky; break;                                                     \
                }                                                                                 \
                m = j->dir == IR_CMP_NE ? (m | un) : (m & ~un);                                   \
                vb##SUF mb = __builtin_convertvector(m, vb##SUF) & 1;                                   \
                memcpy(ob + i, &mb, VB / 2);                                                          \
                break;                                                                            \
            }                                                                                     \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    /* The double results v of a transcendental: each rounded to odd at    */                    \
    /* f32's 24 bits (exact rounding to the half type comes after); flag   */                    \
    /* set where the engine's special handling applies: the operand or v   */                    \
    /* NaN, or |v| below the smallest normal or at the overflow threshold.  */                   \
    /* The f32 results r of a transcendental computed in f32: flag set     */                    \
    /* where one rounding of r may not keep the op's bound or the exact    */                    \
    /* special cases: the operand or r NaN, |r| below the half type's      */                    \
    /* smallest normal (zero included) or finite at/above its largest      */                    \
    /* finite value (the overflow threshold lies just above it).           */                    \
    TARGET static void flag32##SUF(const hinfo *h, const float *x, const float *r, uint8_t *flag, \
                                   size_t n)                                                      \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 4) {                                                  \
            vu##SUF xb, rb;                                                                       \
            memcpy(&xb, x + i, VB);                                                               \
            memcpy(&rb, r + i, VB);                                                               \
            vu##SUF a = rb & 0x7FFFFFFF, xa = xb & 0x7FFFFFFF;                                    \
            vi##SUF fl = (xa > 0x7F800000) | (a > 0x7F800000) | (a < h->min_normal32) |           \
                         ((a >= h->max_finite32) & (a < 0x7F800000));                             \
            vk##SUF f8 = __builtin_convertvector(fl, vk##SUF) & 1;                                \
            memcpy(flag + i, &f8, VB / 4);                                                        \
        }                                                                                         \
    }                                                                                             \
    TARGET static void odd##SUF(const hinfo *h, const double *v, const float *x, float *o,        \
                                uint8_t *flag, size_t n)                                          \
    {                                                                                             \
        for (size_t i = 0; i < n; i += VB / 8) {                                                       \
            vq##SUF u;                                                                                \
            vd##SUF d;                                                                                \
            vn##SUF xb;                                                                               \
            memcpy(&u, v + i, VB);                                                                \
            memcpy(&xb, x + i, VB / 2);                                                               \
            vq##SUF a = u & 0x7FFFFFFFFFFFFFFFull;                                                    \
            memcpy(&d, &a, VB);                                                                   \
            vl##SUF fl = (d < h->min_normal) | ((d >= h->max_finite) & (a < 0x7FF0000000000000ull)) | \
                     (a > 0x7FF0000000000000ull);                                                 \
            vn##SUF xn = (vn##SUF)((xb & 0x7FFFFFFF) > 0x7F800000);                                            \
            vq##SUF mant = a & 0xFFFFFFFFFFFFFull;                                                    \
            vq##SUF fb = (((a >> 52) - (1023 - 127)) << 23) | (mant >> 29) |                          \
                     ((vq##SUF)((mant & 0x1FFFFFFF) != 0) & 1);                                         \
            vq##SUF inf = (vq##SUF)(a == 0x7FF0000000000000ull);                                          \
            fb = (inf & 0x7F800000) | (~inf & fb);                                                \
            fb |= (u >> 32) & 0x80000000u;                                                        \
            vn##SUF f32 = __builtin_convertvector(fb, vn##SUF);                                           \
            memcpy(o + i, &f32, VB / 2);                                                              \
            vc##SUF fl8 = (__builtin_convertvector(fl, vc##SUF) | __builtin_convertvector(xn, vc##SUF)) & 1;  \
            memcpy(flag + i, &fl8, VB / 8);                                                            \
        }                                                                                         \
    }

HALF_LOOPS(_portable, , 16)
#if EWH_X86
#define T_AVX2 __attribute__((target("avx2,fma,f16c")))
#define T_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
/* vm32_loop's bf16 exp rounds with vcvtneps2bf16 where rt_hseg_bf16cvt
 * says the CPU has it; nothing else here uses bf16 types */
#define T_AVX512BF __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,avx512bf16")))
HALF_LOOPS(_avx2, T_AVX2, 32)
HALF_LOOPS(_avx512, T_AVX512, 64)

/* F16C and AVX-512 conversions: widening is exact (a NaN quieted, payload
 * kept); narrowing with imm 0 rounds to nearest even from the f32 and makes
 * subnormals and infinities; a NaN keeps sign and top payload, quieted:
 * the shared conversion's bits (the exhaustive tests compare them). */
T_AVX2 static void f16_widen_avx2(const uint16_t *x, float *o, size_t n)
{
    for (size_t i = 0; i < n; i += 8)
        _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
}
T_AVX2 static void f16_narrow_avx2(const float *x, uint16_t *o, size_t n)
{
    for (size_t i = 0; i < n; i += 8)
        _mm_storeu_si128((__m128i *)(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
}
T_AVX512 static void f16_widen_avx512(const uint16_t *x, float *o, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        _mm512_storeu_ps(o + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))));
}
T_AVX512 static void f16_narrow_avx512(const float *x, uint16_t *o, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        _mm256_storeu_si256((__m256i *)(o + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
/* sqrt with the NaN rule: a NaN operand quieted, a negative one the
 * positive default NaN (the instruction gives a negative one). */
T_AVX2 static void sqrt_avx2(const float *a, float *o, size_t n)
{
    const __m256i q = _mm256_set1_epi32(0x400000), dn = _mm256_set1_epi32(0x7FC00000);
    for (size_t i = 0; i < n; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i), r = _mm256_sqrt_ps(x);
        __m256 rn = _mm256_cmp_ps(r, r, _CMP_UNORD_Q), xn = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
        __m256 nanv = _mm256_blendv_ps(_mm256_castsi256_ps(dn),
                                       _mm256_or_ps(x, _mm256_castsi256_ps(q)), xn);
        _mm256_storeu_ps(o + i, _mm256_blendv_ps(r, nanv, rn));
    }
}
T_AVX512 static void sqrt_avx512(const float *a, float *o, size_t n)
{
    const __m512i q = _mm512_set1_epi32(0x400000);
    for (size_t i = 0; i < n; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i), r = _mm512_sqrt_ps(x);
        __mmask16 rn = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), xn = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        __m512i v = _mm512_mask_mov_epi32(_mm512_set1_epi32(0x7FC00000), xn,
                                          _mm512_or_si512(_mm512_castps_si512(x), q));
        _mm512_storeu_ps(o + i, _mm512_mask_mov_ps(r, rn, _mm512_castsi512_ps(v)));
    }
}

/* f16 add/subtract/multiply/divide in f32 registers with the F16C and
 * AVX-512 conversions (the bit-arithmetic widening and narrowing of the
 * generic loops cost about 30 instructions per vector; these are one
 * each, with the same bits): widen, one f32 operation, the NaN rule
 * (the first NaN operand quieted, else the default NaN), one rounding. */
#define ARITH16_LOOP(TGT, VT, STEP, LOAD, STORE, OPER, FIX)                                           \
    for (size_t i = 0; i < n; i += STEP) {                                                            \
        VT x = LOAD(a + i), y = LOAD(b + i);                                                          \
        STORE(o + i, FIX(x, y, OPER(x, y)));                                                          \
    }
#define ARITH16_ALL(LOAD, STORE, FIX, ADD, SUB, MUL, DIV, VT, STEP)                                   \
    switch (code) {                                                                                   \
    case PLUMB_OP_ADD: ARITH16_LOOP(, VT, STEP, LOAD, STORE, ADD, FIX) break;                         \
    case PLUMB_OP_SUBTRACT: ARITH16_LOOP(, VT, STEP, LOAD, STORE, SUB, FIX) break;                    \
    case PLUMB_OP_MULTIPLY: ARITH16_LOOP(, VT, STEP, LOAD, STORE, MUL, FIX) break;                    \
    default: ARITH16_LOOP(, VT, STEP, LOAD, STORE, DIV, FIX) break;                                   \
    }

T_AVX512 static inline __attribute__((always_inline)) __m512 nanfix_avx512(__m512 x, __m512 y, __m512 r)
{
    const __m512i q = _mm512_set1_epi32(0x400000);
    __mmask16 rn = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    /* a NaN operand gives a NaN result, so with no NaN lane in r there is
     * nothing to fix: the common vector pays one compare */
    if (__builtin_expect(rn == 0, 1))
        return r;
    __mmask16 xn = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), yn = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
    __m512i v = _mm512_set1_epi32(0x7FC00000);
    v = _mm512_mask_or_epi32(v, yn, _mm512_castps_si512(y), q);
    v = _mm512_mask_or_epi32(v, xn, _mm512_castps_si512(x), q);
    return _mm512_mask_mov_ps(r, rn, _mm512_castsi512_ps(v));
}
#define LD16_512(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define ST16_512(p, v) _mm256_storeu_si256((__m256i *)(p), _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
T_AVX512 static void arith_f16_avx512(plumb_opcode code, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)
{
    ARITH16_ALL(LD16_512, ST16_512, nanfix_avx512, _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps,
                __m512, 16)
}

T_AVX2 static inline __attribute__((always_inline)) __m256 nanfix_avx2(__m256 x, __m256 y, __m256 r)
{
    const __m256 q = _mm256_castsi256_ps(_mm256_set1_epi32(0x400000));
    __m256 rn = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    if (__builtin_expect(_mm256_movemask_ps(rn) == 0, 1))   /* no NaN lane: nothing to fix */
        return r;
    __m256 xn = _mm256_cmp_ps(x, x, _CMP_UNORD_Q), yn = _mm256_cmp_ps(y, y, _CMP_UNORD_Q);
    __m256 v = _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_or_ps(y, q), yn);
    v = _mm256_blendv_ps(v, _mm256_or_ps(x, q), xn);
    return _mm256_blendv_ps(r, v, rn);
}
#define LD16_256(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define ST16_256(p, v) _mm_storeu_si128((__m128i *)(p), _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT))
T_AVX2 static void arith_f16_avx2(plumb_opcode code, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)
{
    ARITH16_ALL(LD16_256, ST16_256, nanfix_avx2, _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps,
                __m256, 8)
}

/* The same for bf16: widening is a zero extension shifted into the top
 * half, narrowing the integer round to nearest even at bit 16 (a NaN keeps
 * sign and top payload, quieted), as bf16_narrow does. */
T_AVX512 static inline __attribute__((always_inline)) __m512 bf_ld512(const uint16_t *p)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 16));
}
T_AVX512 static inline __attribute__((always_inline)) void bf_st512(uint16_t *p, __m512 f)
{
    __m512i v = _mm512_castps_si512(f);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(v, _mm512_set1_epi32(0x7FFFFFFF)),
                                            _mm512_set1_epi32(0x7F800000));
    __m512i r = _mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                                     _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1))));
    r = _mm512_srli_epi32(r, 16);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(v, 16), _mm512_set1_epi32(0x40));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(r));
}
T_AVX512 static void arith_bf16_avx512(plumb_opcode code, const uint16_t *a, const uint16_t *b, uint16_t *o,
                                       size_t n)
{
    ARITH16_ALL(bf_ld512, bf_st512, nanfix_avx512, _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps,
                __m512, 16)
}
T_AVX2 static inline __attribute__((always_inline)) __m256 bf_ld256(const uint16_t *p)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
}
T_AVX2 static inline __attribute__((always_inline)) void bf_st256(uint16_t *p, __m256 f)
{
    __m256i v = _mm256_castps_si256(f);
    /* magnitudes above infinity's pattern are NaNs; as signed integers the
     * masked magnitudes compare correctly */
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x7F800000));
    __m256i r = _mm256_add_epi32(v, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF),
                                                     _mm256_and_si256(_mm256_srli_epi32(v, 16), _mm256_set1_epi32(1))));
    r = _mm256_srli_epi32(r, 16);
    r = _mm256_blendv_epi8(r, _mm256_or_si256(_mm256_srli_epi32(v, 16), _mm256_set1_epi32(0x40)), nan);
    /* r's lanes hold 16-bit values: pack the two 128-bit halves in order */
    __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
    _mm_storeu_si128((__m128i *)p, _mm_packus_epi32(lo, hi));
}
T_AVX2 static void arith_bf16_avx2(plumb_opcode code, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)
{
    ARITH16_ALL(bf_ld256, bf_st256, nanfix_avx2, _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps,
                __m256, 8)
}

/* exp, logistic and tanh (j->fn32) at the AVX-512 level in one pass per
 * vector of 16: load and widen, the x16_* function, the flag32 screen on
 * its result, one rounding, store; fm[i / 16] bit i % 16 set where the
 * engine's exact rules apply (the caller's fix-up). A vector where x16_*
 * flags a lane is redone after the loop by j->fn32 itself (x16_arr_*:
 * x16_* plus the exact f32 path for those lanes), so every lane's f32
 * value is the one the widen / fn32 / flag32 / narrow passes computed, and
 * the bits are theirs; with no call inside, the loop keeps its constants
 * in registers. Returns whether any lane is flagged. n: a multiple of 16,
 * at most HB. */
T_AVX512 static inline __attribute__((always_inline)) __mmask16 vm32_vec(plumb_opcode code, bool f16, __m512 v,
                                                                         __m512i mn, __m512i mx, uint16_t *o)
{
    const __m512i inf = _mm512_set1_epi32(0x7F800000);
    __m512i ab = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
    /* flag32's screen: NaN, below the smallest normal (zero included),
     * finite at or above the largest finite value: |v| - mn, unsigned, at
     * or above mx - mn, except infinity itself */
    __mmask16 f = _mm512_mask_cmpneq_epi32_mask(
        _mm512_cmpge_epu32_mask(_mm512_sub_epi32(ab, mn), _mm512_sub_epi32(mx, mn)), ab, inf);
    if (f16) {
        _mm256_storeu_si256((__m256i *)o, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else {
        /* bf_st512 without its NaN rule: a NaN lane is flagged above and
         * its stored pattern replaced by the fix-up, and on every other
         * lane the two roundings agree (three operations fewer per 16) */
        __m512i u = _mm512_castps_si512(v);
        __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                                         _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1))));
        _mm256_storeu_si256((__m256i *)o, _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
    }
    (void)code;
    return f;
}
T_AVX512BF static inline __attribute__((always_inline)) bool vm32_loop(const hjob *j, plumb_opcode code, bool f16,
                                                                       bool nebf, const uint16_t *x, uint16_t *o,
                                                                       uint16_t *fm, size_t n)
{
    const __m512i mn = _mm512_set1_epi32((int)j->h->min_normal32), mx = _mm512_set1_epi32((int)j->h->max_finite32);
    uint32_t redo[HB / 16 / 32 + 1] = {0};
    bool any = false, again = false;
    for (size_t i = 0; i < n; i += 16) {
        __m256i hx = _mm256_loadu_si256((const __m256i *)(x + i));
        __m512 a = f16 ? _mm512_cvtph_ps(hx) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(hx), 16));
        __mmask16 bad;
        __m512 v = code == PLUMB_OP_EXPONENTIAL ? x16_exp(a, &bad)
                   : code == PLUMB_OP_LOGISTIC  ? x16_logistic(a, &bad)
                                                : x16_tanh(a, &bad);
        __mmask16 f;
        if (!f16 && code == PLUMB_OP_EXPONENTIAL) {
            /* bf16 exp: a vector without a lane x16_exp flags has every
             * result in [2^-125, 2^127) (operands in [-86.5, 88],
             * math_x16.h), where flag32's screen never fires, so it is not
             * run; nebf rounds them with vcvtneps2bf16, the same rounding
             * to nearest even on such normal values (its subnormal flush
             * and NaN rule never apply). A vector with a flagged lane is
             * redone below with the screen and the integer rounding. */
            f = 0;
            if (nebf)
                _mm256_storeu_si256((__m256i *)(o + i), (__m256i)_mm512_cvtneps_pbh(v));
            else
                vm32_vec(code, false, v, mn, mx, o + i);
        } else {
            f = vm32_vec(code, f16, v, mn, mx, o + i);
        }
        fm[i / 16] = f;
        any |= f != 0;
        if (__builtin_expect(bad != 0, 0)) {
            redo[i / 16 / 32] |= 1u << (i / 16 % 32);
            again = true;
        }
    }
    if (__builtin_expect(again, 0))
        for (size_t i = 0; i < n; i += 16) {
            if (!((redo[i / 16 / 32] >> (i / 16 % 32)) & 1))
                continue;
            float fa[16] __attribute__((aligned(64))), fr[16] __attribute__((aligned(64)));
            __m256i hx = _mm256_loadu_si256((const __m256i *)(x + i));
            _mm512_store_ps(fa, f16 ? _mm512_cvtph_ps(hx)
                                    : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(hx), 16)));
            j->fn32(fa, fr, 16);
            __mmask16 f = vm32_vec(code, f16, _mm512_load_ps(fr), mn, mx, o + i);
            fm[i / 16] = f;
            any |= f != 0;
        }
    return any;
}
T_AVX512BF static bool vm32_avx512(const hjob *j, const uint16_t *x, uint16_t *o, uint16_t *fm, size_t n)
{
    bool f16 = j->t == PLUMB_F16;
    switch (j->code) {
    case PLUMB_OP_EXPONENTIAL:
        return f16                    ? vm32_loop(j, PLUMB_OP_EXPONENTIAL, true, false, x, o, fm, n)
               : rt_hseg_bf16cvt(-1) ? vm32_loop(j, PLUMB_OP_EXPONENTIAL, false, true, x, o, fm, n)
                                     : vm32_loop(j, PLUMB_OP_EXPONENTIAL, false, false, x, o, fm, n);
    case PLUMB_OP_LOGISTIC:
        return f16 ? vm32_loop(j, PLUMB_OP_LOGISTIC, true, false, x, o, fm, n)
                   : vm32_loop(j, PLUMB_OP_LOGISTIC, false, false, x, o, fm, n);
    default:
        return f16 ? vm32_loop(j, PLUMB_OP_TANH, true, false, x, o, fm, n)
                   : vm32_loop(j, PLUMB_OP_TANH, false, false, x, o, fm, n);
    }
}

static bool have_f16c(void);

/* arith_h of the level: the intrinsic loops (F16C for f16 when the CPU has it) */
static void arith_hx_avx512(plumb_opcode code, bool f16, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)
{
    if (f16)
        arith_f16_avx512(code, a, b, o, n);
    else
        arith_bf16_avx512(code, a, b, o, n);
}
static void arith_hx_avx2(plumb_opcode code, bool f16, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n)
{
    if (f16 && !have_f16c())
        arith_h_avx2(code, true, a, b, o, n);
    else if (f16)
        arith_f16_avx2(code, a, b, o, n);
    else
        arith_bf16_avx2(code, a, b, o, n);
}

static bool have_f16c(void)
{
    static int known = -1;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        unsigned a, b, c, d;
        k = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) ? 1 : 0;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 1;
}
#endif

static void sqrt_portable(const float *a, float *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t xb, rb;
        memcpy(&xb, a + i, 4);
        float r = sqrtf(a[i]);
        memcpy(&rb, &r, 4);
        if ((rb & 0x7FFFFFFFu) > 0x7F800000u)
            rb = (xb & 0x7FFFFFFFu) > 0x7F800000u ? xb | 0x400000u : 0x7FC00000u;
        memcpy(o + i, &rb, 4);
    }
}

/* The kernels of one ISA level. */
typedef struct hkern {
    void (*widen)(const uint16_t *x, float *o, size_t n);
    void (*narrow)(const float *x, uint16_t *o, size_t n);
    void (*arith)(plumb_opcode code, const float *a, const float *b, float *o, size_t n);
    void (*sqrt)(const float *a, float *o, size_t n);
    void (*round)(enum hround mode, const float *a, float *o, size_t n);
    void (*hops)(const hjob *j, const uint16_t *a, const uint16_t *b, const uint16_t *c, void *out, size_t n);
    void (*odd)(const hinfo *h, const double *v, const float *x, float *o, uint8_t *flag, size_t n);
    void (*flag32)(const hinfo *h, const float *x, const float *r, uint8_t *flag, size_t n);
    void (*arith_h)(plumb_opcode code, bool f16, const uint16_t *a, const uint16_t *b, uint16_t *o, size_t n);
    /* exp, logistic, tanh in one register pass (AVX-512; NULL elsewhere) */
    bool (*vm32)(const hjob *j, const uint16_t *x, uint16_t *o, uint16_t *fm, size_t n);
} hkern;

static hkern kernels(plumb_isa isa, plumb_dtype t)
{
    bool f16 = t == PLUMB_F16;
#if EWH_X86
    if (isa == PLUMB_ISA_AVX512)
        return (hkern){f16 ? f16_widen_avx512 : bf16_widen_avx512, f16 ? f16_narrow_avx512 : bf16_narrow_avx512,
                       arith_avx512, sqrt_avx512, round_avx512, hops_avx512, odd_avx512, flag32_avx512, arith_hx_avx512,
                       vm32_avx512};
    if (isa == PLUMB_ISA_AVX2) {
        bool f = have_f16c();
        return (hkern){!f16 ? bf16_widen_avx2 : f ? f16_widen_avx2 : f16_widen_bits_avx2,
                       !f16 ? bf16_narrow_avx2 : f ? f16_narrow_avx2 : f16_narrow_bits_avx2,
                       arith_avx2, sqrt_avx2, round_avx2, hops_avx2, odd_avx2, flag32_avx2,
                       arith_hx_avx2, NULL};
    }
#else
    (void)isa;
#endif
    return (hkern){f16 ? f16_widen_bits_portable : bf16_widen_portable,
                   f16 ? f16_narrow_bits_portable : bf16_narrow_portable,
                   arith_portable, sqrt_portable, round_portable, hops_portable, odd_portable,
                   flag32_portable, arith_h_portable, NULL};
}

static bool classify(const rt_ew_args *a, hjob *j)
{
    memset(j, 0, sizeof *j);
    j->code = a->code;
    j->t = a->t;
    j->h = a->t == PLUMB_F16 ? &H_F16 : &H_BF16;
    switch (a->code) {
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
        j->cls = HC_ARITH;
        break;
    case PLUMB_OP_SQRT: j->cls = HC_SQRT; break;
    case PLUMB_OP_FLOOR: j->cls = HC_ROUND; j->sub = HR_FLOOR; break;
    case PLUMB_OP_CEIL: j->cls = HC_ROUND; j->sub = HR_CEIL; break;
    case PLUMB_OP_ROUND_NEAREST_EVEN: j->cls = HC_ROUND; j->sub = HR_EVEN; break;
    case PLUMB_OP_ROUND_NEAREST_AFZ: j->cls = HC_ROUND; j->sub = HR_AFZ; break;
    case PLUMB_OP_MAXIMUM: j->cls = HC_MINMAX; j->sub = 1; break;
    case PLUMB_OP_MINIMUM: j->cls = HC_MINMAX; j->sub = 0; break;
    case PLUMB_OP_CLAMP: j->cls = HC_CLAMP; break;
    case PLUMB_OP_SIGN: j->cls = HC_SIGN; break;
    case PLUMB_OP_IS_FINITE:
        if (a->rt != PLUMB_I1)
            return false;
        j->cls = HC_FINITE;
        break;
    case PLUMB_OP_COMPARE: {
        ir_cmp_type ty = a->op->a.cmp_type;
        if (a->rt != PLUMB_I1 || (ty != IR_CMP_TYPE_NONE && ty != IR_CMP_FLOAT && ty != IR_CMP_TOTALORDER))
            return false;
        if ((unsigned)a->op->a.cmp_dir > IR_CMP_GE)
            return false;
        j->cls = HC_CMP;
        j->dir = a->op->a.cmp_dir;
        j->total = ty == IR_CMP_TOTALORDER;
        break;
    }
    case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_ERF:
        j->cls = HC_VMATH;
        j->fn = rt_vmath_f32d(a->code, a->isa);
        if (!j->fn)
            return false;
        /* exp, logistic and tanh have f32 register implementations at the
         * vector levels (docs/runtime-math.md): their f32 result, within
         * 2.5 f32 ULP of the exact value, rounded once to the half type is
         * within 0.5 + 2^-11 half ULP of it, inside the op's bound of 1
         * (docs/runtime-ew-half.md, "Transcendentals in f32"); the other
         * functions are evaluated in double at every level, so the double
         * value rounded once costs no more */
        if ((a->code == PLUMB_OP_EXPONENTIAL || a->code == PLUMB_OP_LOGISTIC || a->code == PLUMB_OP_TANH) &&
            (a->isa == PLUMB_ISA_AVX2 || a->isa == PLUMB_ISA_AVX512))
            j->fn32 = rt_vmath_f32(a->code, a->isa);
        break;
    case PLUMB_OP_POWER: case PLUMB_OP_ATAN2:
        j->cls = HC_VMATH2;
        j->fn2 = rt_vmath2_f32d(a->code, a->isa);
        if (!j->fn2)
            return false;
        break;
    default:
        return false;
    }
    return true;
}

/* n elements, n a multiple of HV and at most HB. */
static void run_block(const hjob *j, const hkern *k, const uint16_t *x, const uint16_t *y, const uint16_t *z,
                      void *out, size_t n)
{
    float fa[HB], fb[HB];
    switch (j->cls) {
    case HC_ARITH:
        k->arith_h(j->code, j->t == PLUMB_F16, x, y, out, n);
        return;
    case HC_SQRT:
        k->widen(x, fa, n);
        k->sqrt(fa, fa, n);
        k->narrow(fa, out, n);
        return;
    case HC_ROUND:
        k->widen(x, fa, n);
        k->round((enum hround)j->sub, fa, fa, n);
        k->narrow(fa, out, n);
        return;
    case HC_VMATH: {
        double v[HB];
        uint8_t flag[HB];
        uint16_t *o = out;
        if (j->fn32 && k->vm32) {
            /* the same f32 values, flags and rounding in one pass */
            /* the fix-up reads the operands after the pass has stored the
             * results: a copy only when the two share memory (in place) */
            uint16_t xc[HB], fm[HB / 16];
            const uint16_t *xs = x;
            uintptr_t xa = (uintptr_t)x, oa = (uintptr_t)o;
            if (oa < xa + 2 * n && xa < oa + 2 * n) {
                memcpy(xc, x, n * sizeof *xc);
                xs = xc;
            }
            if (!k->vm32(j, xs, o, fm, n))
                return;
            k->widen(xs, fa, n);
            for (size_t v16 = 0; v16 < n / 16; v16++)
                for (unsigned b = fm[v16]; b; b &= b - 1) {
                    size_t l = 16 * v16 + (unsigned)__builtin_ctz(b);
                    uint16_t xb = xs[l];
                    double vl;
                    if ((xb & 0x7FFF) > j->h->em) {
                        o[l] = xb | j->h->q;
                        continue;
                    }
                    j->fn(fa + l, &vl, 1);
                    o[l] = isnan(vl) ? j->h->dnan
                                     : (uint16_t)rt_math_narrow(j->code, j->t, vl, RT_MATH_DERR, fa[l], 0);
                }
            return;
        }
        k->widen(x, fa, n);
        if (j->fn32) {
            /* in f32 registers; flagged lanes take the engine's exact rules
             * on the double value of the same operand */
            j->fn32(fa, fb, n);
            k->flag32(j->h, fa, fb, flag, n);
            uint16_t xs[HB];
            memcpy(xs, x, n * sizeof *xs);
            k->narrow(fb, o, n);
            for (size_t i = 0; i < n; i += 8) {
                uint64_t f8;
                memcpy(&f8, flag + i, 8);
                if (f8 == 0)
                    continue;
                for (size_t l = i; l < i + 8; l++) {
                    if (!flag[l])
                        continue;
                    uint16_t xb = xs[l];
                    double vl;
                    if ((xb & 0x7FFF) > j->h->em) {
                        o[l] = xb | j->h->q;
                        continue;
                    }
                    j->fn(fa + l, &vl, 1);
                    o[l] = isnan(vl) ? j->h->dnan
                                     : (uint16_t)rt_math_narrow(j->code, j->t, vl, RT_MATH_DERR, fa[l], 0);
                }
            }
            return;
        }
        j->fn(fa, v, n);
        k->odd(j->h, v, fa, fb, flag, n);
        /* the fix-up below reads the inputs after the narrowing has written
         * the outputs, which may be the inputs' own buffer */
        uint16_t xs[HB];
        memcpy(xs, x, n * sizeof *xs);
        k->narrow(fb, o, n);
        for (size_t i = 0; i < n; i += 8) {
            uint64_t f8;
            memcpy(&f8, flag + i, 8);
            if (f8 == 0)
                continue;
            for (size_t l = i; l < i + 8; l++) {
                if (!flag[l])
                    continue;
                uint16_t xb = xs[l];
                if ((xb & 0x7FFF) > j->h->em)
                    o[l] = xb | j->h->q;
                else if (isnan(v[l]))
                    o[l] = j->h->dnan;
                else
                    o[l] = (uint16_t)rt_math_narrow(j->code, j->t, v[l], RT_MATH_DERR, fa[l], 0);
            }
        }
        return;
    }
    case HC_VMATH2: {
        /* the engine's narrow_binary: the double value on the exactly
         * widened operands, rounded once; flagged lanes (a NaN operand, a
         * NaN, subnormal, zero or overflow-threshold value, and for power
         * pow(x, +-0) = pow(+1, y) = 1) take its per-element rules */
        double v[HB];
        float fo[HB];
        uint8_t flag[HB], spec[HB];
        uint16_t *o = out;
        const hinfo *h = j->h;
        bool pw = j->code == PLUMB_OP_POWER;
        k->widen(x, fa, n);
        k->widen(y, fb, n);
        j->fn2(fa, fb, v, n);
        k->odd(h, v, fa, fo, flag, n);
        uint16_t xs[HB], ys[HB];
        memcpy(xs, x, n * sizeof *xs);
        memcpy(ys, y, n * sizeof *ys);
        for (size_t i = 0; i < n; i++) {
            unsigned ax = xs[i] & 0x7FFFu, ay = ys[i] & 0x7FFFu;
            spec[i] = (uint8_t)((ax > h->em) | (ay > h->em) | (pw & ((ay == 0) | (xs[i] == h->one))));
        }
        k->narrow(fo, o, n);
        for (size_t i = 0; i < n; i += 8) {
            uint64_t f8, s8;
            memcpy(&f8, flag + i, 8);
            memcpy(&s8, spec + i, 8);
            if ((f8 | s8) == 0)
                continue;
            for (size_t l = i; l < i + 8; l++) {
                if (!flag[l] && !spec[l])
                    continue;
                uint16_t xb = xs[l], yb = ys[l];
                bool xn = (xb & 0x7FFF) > h->em, yn = (yb & 0x7FFF) > h->em;
                if (pw && ((!yn && (yb & 0x7FFF) == 0) || xb == h->one))
                    o[l] = h->one;
                else if (xn)
                    o[l] = xb | h->q;
                else if (yn)
                    o[l] = yb | h->q;
                else if (isnan(v[l]))
                    o[l] = h->dnan;
                else
                    o[l] = (uint16_t)rt_math_narrow(j->code, j->t, v[l], RT_MATH_DERR, fa[l], fb[l]);
            }
        }
        return;
    }
    default:
        k->hops(j, x, y, z, out, n);
        return;
    }
}

bool rt_ew_half(const rt_ew_args *a)
{
    if (a->t != PLUMB_F16 && a->t != PLUMB_BF16)
        return false;
    if (a->code == PLUMB_OP_CLAMP || a->code == PLUMB_OP_COMPARE || a->code == PLUMB_OP_POWER ||
        a->code == PLUMB_OP_ATAN2) {
        if (a->n_in != (a->code == PLUMB_OP_CLAMP ? 3u : 2u))
            return false;
        for (uint32_t i = 0; i < a->n_in; i++)
            if (!a->in[i])
                return false;
    }
    hjob j;
    if (!classify(a, &j))
        return false;
    if (j.cls != HC_FINITE && j.cls != HC_CMP && a->rt != a->t)
        return false;
    hkern k = kernels(a->isa, a->t);
    uint32_t nin = j.cls == HC_CLAMP ? 3 : (j.cls == HC_ARITH || j.cls == HC_MINMAX || j.cls == HC_CMP || j.cls == HC_VMATH2) ? 2 : 1;
    size_t osz = (j.cls == HC_FINITE || j.cls == HC_CMP) ? 1 : 2;
    for (size_t i = 0; i < a->n; i += HB) {
        size_t m = a->n - i < HB ? a->n - i : HB;
        const uint16_t *in[3] = {NULL, NULL, NULL};
        for (uint32_t q = 0; q < nin; q++)
            in[q] = (const uint16_t *)a->in[q] + i;
        uint8_t *o = (uint8_t *)a->out + i * osz;
        if (m % HV == 0) {
            run_block(&j, &k, in[0], in[1], in[2], o, m);
            continue;
        }
        /* the tail: zero-padded to whole steps, the same loops */
        uint16_t pad[3][HB], po[HB];
        size_t mm = (m + HV - 1) / HV * HV;
        for (uint32_t q = 0; q < nin; q++) {
            memcpy(pad[q], in[q], m * 2);
            memset(pad[q] + m, 0, (mm - m) * 2);
        }
        run_block(&j, &k, pad[0], nin > 1 ? pad[1] : NULL, nin > 2 ? pad[2] : NULL, po, mm);
        memcpy(o, po, m * osz);
    }
    return true;
}
