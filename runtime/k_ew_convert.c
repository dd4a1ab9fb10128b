/* Vectorized stablehlo.convert loops between element types (see rt_ew_args
 * in rt_internal.h): the element engine offers each convert here first.
 * docs/runtime-ew-convert.md explains why every loop gives the engine's bits.
 *
 * Every conversion is a branch-free scalar expression applied to a block of
 * CV_B elements; the constant trip count lets the compiler vectorize the loop
 * at -O2 without a scalar epilogue, and the tail runs the same block code on
 * a zero-padded copy. The kernels are compiled three times from this one
 * file (it includes itself with CV_PASS set): plain C, AVX2 and AVX-512. The
 * operations used (IEEE conversions of in-range values, exact additions,
 * integer bit operations) have one defined result, so the three builds give
 * the same bits. Two-step conversions (f16/bf16 sources, integer -> f16/bf16)
 * go through an exact f32 or (round-to-odd) f64 block. */
#ifndef CV_PASS

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CV_X86 1
#else
#define CV_X86 0   /* only the plain-C kernels */
#endif
#include <string.h>

#include "plumb/fp8.h"
#include "rt_internal.h"
#include "rt_target.h"

#define CV_B 64   /* elements per block: a multiple of every vector width */

typedef void (*cv_fn)(const void *restrict src, void *restrict dst);   /* CV_B elements */

static inline uint32_t cv_fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float cv_bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t cv_dbits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static inline double cv_bitsd(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

/* A NaN keeps its bits with the quiet bit set, as the engine's widening to
 * double and back does. */
static inline uint32_t cv_f32_quiet(uint32_t x)
{
    return (x & 0x7FFFFFFFu) > 0x7F800000u ? x | 0x00400000u : x;
}

/* f16 -> f32, exact. Normal and subnormal halves: the half's exponent and
 * fraction fields placed in an f32 and scaled by 2^(127-15) (an exact
 * multiplication: the product is a normal f32). Inf/NaN: exponent all ones,
 * NaN quieted, payload kept at the top. */
static inline uint32_t cv_h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7FFFu;
    uint32_t r = cv_fbits(cv_bitsf(em << 13) * 0x1p112f);
    uint32_t special = (em << 13) | 0x7F800000u | (em > 0x7C00u ? 0x00400000u : 0u);
    return s | (em >= 0x7C00u ? special : r);
}

/* f32 -> bf16: round to nearest even at bit 16 (a carry moves into the
 * exponent; past the largest finite value it gives infinity); NaN keeps
 * sign and top payload, quiet bit set. */
static inline uint16_t cv_f2bf(uint32_t v)
{
    bool nan = (v & 0x7FFFFFFFu) > 0x7F800000u;
    uint32_t r = (v + 0x7FFFu + ((v >> 16) & 1u)) >> 16;
    return (uint16_t)(nan ? (v >> 16) | 0x40u : r);
}

/* f32 -> f16 rounded once to nearest even. At or above the smallest normal
 * f16 (2^-14) the rounding is done on the bits (carry into the exponent,
 * clamped to infinity); below it, |x| + 0.5 rounds |x| to a multiple of
 * 2^-24 (the f16 subnormal step, which is ulp(0.5) in f32) in one IEEE
 * addition, and the difference of the bit patterns counts those steps. */
static inline uint16_t cv_f2h(uint32_t b)
{
    uint32_t a = b & 0x7FFFFFFFu, sign = (b >> 16) & 0x8000u;
    uint32_t rn = ((a + 0xFFFu + ((a >> 13) & 1u)) >> 13) - ((127u - 15u) << 10);
    rn = rn > 0x7C00u ? 0x7C00u : rn;
    uint32_t rs = cv_fbits(cv_bitsf(a) + 0.5f) - 0x3F000000u;
    uint32_t rnan = 0x7E00u | ((a >> 13) & 0x3FFu);
    uint32_t r = a > 0x7F800000u ? rnan : a < 0x38800000u ? rs : rn;
    return (uint16_t)(sign | r);
}

/* f64 -> f16 / bf16 rounded once, directly from the double (never through
 * f32: that would round twice). Same scheme as cv_f2h: bit rounding in the
 * normal range (in unsigned arithmetic: a NaN's pattern plus the increment
 * passes INT64_MAX; below the range the difference wraps and is not
 * selected), and below the smallest normal one IEEE addition of 2^(52-24)
 * (f16) or 2^(52-133) (bf16), whose ulp is the target's subnormal step. */
static inline uint16_t cv_d2h(uint64_t b)
{
    int64_t a = (int64_t)(b & 0x7FFFFFFFFFFFFFFFull);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    uint64_t ua = (uint64_t)a;
    uint64_t un = ((ua + ((1ull << 41) - 1) + ((ua >> 42) & 1)) >> 42) - ((1023ull - 15) << 10);
    int64_t rn = un > 0x7C00 ? 0x7C00 : (int64_t)un;
    int64_t rs = (int64_t)(cv_dbits(cv_bitsd((uint64_t)a) + 0x1p28) - cv_dbits(0x1p28));
    int64_t rnan = 0x7E00 | ((a >> 42) & 0x3FF);
    int64_t r = a > 0x7FF0000000000000ll ? rnan : a < 0x3F10000000000000ll ? rs : rn;
    return (uint16_t)(sign | (uint16_t)r);
}

static inline uint16_t cv_d2bf(uint64_t b)
{
    int64_t a = (int64_t)(b & 0x7FFFFFFFFFFFFFFFull);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    uint64_t ua = (uint64_t)a;
    uint64_t un = ((ua + ((1ull << 44) - 1) + ((ua >> 45) & 1)) >> 45) - ((1023ull - 127) << 7);
    int64_t rn = un > 0x7F80 ? 0x7F80 : (int64_t)un;
    int64_t rs = (int64_t)(cv_dbits(cv_bitsd((uint64_t)a) + 0x1p-81) - cv_dbits(0x1p-81));
    int64_t rnan = 0x7FC0 | ((a >> 45) & 0x7F);
    int64_t r = a > 0x7FF0000000000000ll ? rnan : a < 0x3810000000000000ll ? rs : rn;
    return (uint16_t)(sign | (uint16_t)r);
}

/* A 64-bit integer as a double that rounds to <= 51 bits exactly as the
 * integer would: exact below 2^53; above, the bits under 2^11 collapse
 * into a sticky bit (every rounding position of f16/bf16 lies above bit
 * 11 there), the same result as the engine's round to odd at 53 bits. */
static inline double cv_u64_odd(uint64_t mag)
{
    bool big = mag >= (1ull << 53);
    uint64_t kept = big ? (mag >> 11) | ((mag & 0x7FFu) != 0) : mag;
    return (double)(int64_t)kept * (big ? 2048.0 : 1.0);
}
static inline double cv_i64_odd(int64_t v)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    double d = cv_u64_odd(mag);
    return v < 0 ? -d : d;
}

/* float -> integer: truncated, saturated, NaN -> 0 (float_to_int of the
 * engine). NaN is replaced by 0 first; then the value is clamped into a
 * range whose conversion is defined; the upper bound where the integer
 * maximum is not a float of the source type is handled by a comparison. */
#define CV_NAN0(x) ((x) == (x) ? (x) : 0)
#define CV_CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

static inline int32_t cv_f_i32(float x)
{
    float c = CV_NAN0(x);
    c = CV_CLAMP(c, -0x1p31f, 2147483520.0f);
    return x >= 0x1p31f ? INT32_MAX : (int32_t)c;
}
/* 2^31 <= c < 2^32 subtracts exactly (ulp >= 1), so the low 31 bits come
 * from a signed conversion and bit 31 is put back. */
static inline uint32_t cv_f_u32(float x)
{
    float c = CV_NAN0(x);
    c = CV_CLAMP(c, 0.0f, 4294967040.0f);
    bool hi = c >= 0x1p31f;
    uint32_t r = (uint32_t)(int32_t)(hi ? c - 0x1p31f : c) ^ (hi ? 0x80000000u : 0u);
    return x >= 0x1p32f ? UINT32_MAX : r;
}
static inline int64_t cv_f_i64(float x)
{
    float c = CV_NAN0(x);
    c = CV_CLAMP(c, -0x1p63f, 9223371487098961920.0f);
    return x >= 0x1p63f ? INT64_MAX : (int64_t)c;
}
static inline uint64_t cv_f_u64(float x)
{
    float c = CV_NAN0(x);
    c = CV_CLAMP(c, 0.0f, 18446742974197923840.0f);
    return x >= 0x1p64f ? UINT64_MAX : (uint64_t)c;
}
static inline int32_t cv_d_i32(double x)
{
    double c = CV_NAN0(x);
    return (int32_t)CV_CLAMP(c, -0x1p31, 2147483647.0);
}
static inline uint32_t cv_d_u32(double x)
{
    double c = CV_NAN0(x);
    c = CV_CLAMP(c, 0.0, 4294967295.0);
    bool hi = c >= 0x1p31;
    return (uint32_t)(int32_t)(hi ? c - 0x1p31 : c) ^ (hi ? 0x80000000u : 0u);
}
static inline int64_t cv_d_i64(double x)
{
    double c = CV_NAN0(x);
    c = CV_CLAMP(c, -0x1p63, 9223372036854774784.0);
    return x >= 0x1p63 ? INT64_MAX : (int64_t)c;
}
static inline uint64_t cv_d_u64(double x)
{
    double c = CV_NAN0(x);
    c = CV_CLAMP(c, 0.0, 18446744073709549568.0);
    return x >= 0x1p64 ? UINT64_MAX : (uint64_t)c;
}
/* i8, i16, ui8, ui16: both limits are floats of either source type. */
#define CV_F_SMALL(x, lo, hi) ((int32_t)CV_CLAMP(CV_NAN0(x), (lo), (hi)))

/* Runs f1 (then f2 through an intermediate block) over n elements; the
 * tail goes through zero-padded blocks so the kernels never read or write
 * past the caller's n elements. */
static void cv_drive(cv_fn f1, cv_fn f2, size_t ss, size_t ds, const uint8_t *in, uint8_t *out, size_t n)
{
    _Alignas(64) uint8_t mid[CV_B * 8];
    size_t full = n / CV_B * CV_B;
    for (size_t i = 0; i < full; i += CV_B) {
        if (f2) {
            f1(in + i * ss, mid);
            f2(mid, out + i * ds);
        } else {
            f1(in + i * ss, out + i * ds);
        }
    }
    size_t r = n - full;
    if (r) {
        _Alignas(64) uint8_t sb[CV_B * 8], db[CV_B * 8];
        memset(sb, 0, sizeof sb);
        memcpy(sb, in + full * ss, r * ss);
        if (f2) {
            f1(sb, mid);
            f2(mid, db);
        } else {
            f1(sb, db);
        }
        memcpy(out + full * ds, db, r * ds);
    }
}

#define CV_PASS 1
#define CV(name) cv_##name##_port
#include "k_ew_convert.c"
#undef CV
#undef CV_PASS

#if CV_X86
RT_TARGET_PUSH("avx2,f16c")
#define CV_PASS 2
#define CV(name) cv_##name##_avx2
#include "k_ew_convert.c"
#undef CV
#undef CV_PASS
RT_TARGET_POP

RT_TARGET_PUSH("avx512f,avx512bw,avx512dq,avx512vl")
#define CV_PASS 3
#define CV(name) cv_##name##_avx512
#include "k_ew_convert.c"
#undef CV
#undef CV_PASS
RT_TARGET_POP
#endif

bool rt_ew_convert(const rt_ew_args *a)
{
    if (a->code != PLUMB_OP_CONVERT || a->n_in != 1)
        return false;
    plumb_dtype s = a->t, d = a->rt;
    if (s >= PLUMB_DTYPE_COUNT || d >= PLUMB_DTYPE_COUNT)
        return false;
    /* complex values run in runtime/k_complex.c (two components per element) */
    if (plumb_dtype_is_complex(s) || plumb_dtype_is_complex(d))
        return false;
    /* Identity without rounding or quieting: the engine keeps every bit
     * (f64 through a double register, integers by value). */
    if (s == d && (s == PLUMB_F64 || plumb_dtype_is_int(s))) {
        if (a->n && a->out != a->in[0])
            memmove(a->out, a->in[0], a->n * plumb_dtype_size(s));
        return true;
    }
    if (plumb_dtype_is_lowp(s) || plumb_dtype_is_lowp(d)) {
        /* The small floats and sub-byte integers: one byte per element,
         * converted one at a time by the shared codec (ir/fp8.c). */
        const uint8_t *in = a->in[0];
        uint8_t *out = a->out;
        for (size_t i = 0; i < a->n; i++)
            plumb_store_bits(d, out, i, plumb_lowp_convert_bits(s, d, plumb_load_bits(s, in, i)));
        return true;
    }
    cv_fn f1 = NULL, f2 = NULL;
    bool ok;
#if CV_X86
    if (a->isa == PLUMB_ISA_AVX512)
        ok = cv_plan_avx512(s, d, &f1, &f2);
    else if (a->isa >= PLUMB_ISA_AVX2 && rt_cpu_has_f16c())
        ok = cv_plan_avx2(s, d, &f1, &f2);
    else
#endif
        ok = cv_plan_port(s, d, &f1, &f2);
    if (!ok)
        return false;
    cv_drive(f1, f2, plumb_dtype_size(s), plumb_dtype_size(d), a->in[0], a->out, a->n);
    return true;
}

#else /* CV_PASS: the kernels of one ISA level */

#define CV_K(name, ST, DT, expr)                                              \
    static void CV(name)(const void *restrict vs, void *restrict vd)          \
    {                                                                         \
        const ST *restrict xs = vs;                                           \
        DT *restrict o = vd;                                                  \
        for (int i = 0; i < CV_B; i++) {                                      \
            ST x = xs[i];                                                     \
            o[i] = (DT)(expr);                                                \
        }                                                                     \
    }

/* ---- float sources ---- */
CV_K(f32_f32, uint32_t, uint32_t, cv_f32_quiet(x))
CV_K(f32_f64, float, double, (double)x)
CV_K(f64_f32, double, float, (float)x)
#if CV_PASS == 2
/* F16C rounds to nearest even (immediate 0), keeps subnormals whatever
 * MXCSR says, and quiets NaN keeping sign and top payload: the bits of
 * cv_f2h / cv_h2f (the test compares all of them with the reference). */
static void CV(f32_f16)(const void *restrict vs, void *restrict vd)
{
    const float *x = vs;
    uint16_t *o = vd;
    for (int i = 0; i < CV_B; i += 8)
        _mm_storeu_si128((__m128i *)(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), 0));
}
static void CV(f16_f32)(const void *restrict vs, void *restrict vd)
{
    const uint16_t *x = vs;
    float *o = vd;
    for (int i = 0; i < CV_B; i += 8)
        _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
}
#else
CV_K(f32_f16, uint32_t, uint16_t, cv_f2h(x))
CV_K(f16_f32, uint16_t, uint32_t, cv_h2f(x))
#endif
CV_K(f32_bf16, uint32_t, uint16_t, cv_f2bf(x))
CV_K(bf16_f32, uint16_t, uint32_t, cv_f32_quiet((uint32_t)x << 16))
CV_K(f64_f16, uint64_t, uint16_t, cv_d2h(x))
CV_K(f64_bf16, uint64_t, uint16_t, cv_d2bf(x))
CV_K(h_i1, uint16_t, uint8_t, (x & 0x7FFFu) != 0)
CV_K(f32_i1, uint32_t, uint8_t, (x & 0x7FFFFFFFu) != 0)
CV_K(f64_i1, uint64_t, uint8_t, (x & 0x7FFFFFFFFFFFFFFFull) != 0)

CV_K(f32_i8, float, uint8_t, CV_F_SMALL(x, -128.0f, 127.0f))
CV_K(f32_i16, float, uint16_t, CV_F_SMALL(x, -32768.0f, 32767.0f))
CV_K(f32_u8, float, uint8_t, CV_F_SMALL(x, 0.0f, 255.0f))
CV_K(f32_u16, float, uint16_t, CV_F_SMALL(x, 0.0f, 65535.0f))
CV_K(f32_i32, float, uint32_t, cv_f_i32(x))
CV_K(f32_u32, float, uint32_t, cv_f_u32(x))
CV_K(f32_i64, float, uint64_t, cv_f_i64(x))
CV_K(f32_u64, float, uint64_t, cv_f_u64(x))
CV_K(f64_i8, double, uint8_t, CV_F_SMALL(x, -128.0, 127.0))
CV_K(f64_i16, double, uint16_t, CV_F_SMALL(x, -32768.0, 32767.0))
CV_K(f64_u8, double, uint8_t, CV_F_SMALL(x, 0.0, 255.0))
CV_K(f64_u16, double, uint16_t, CV_F_SMALL(x, 0.0, 65535.0))
CV_K(f64_i32, double, uint32_t, cv_d_i32(x))
CV_K(f64_u32, double, uint32_t, cv_d_u32(x))
CV_K(f64_i64, double, uint64_t, cv_d_i64(x))
CV_K(f64_u64, double, uint64_t, cv_d_u64(x))

/* ---- integer and i1 sources ----
 * CV_SRC(ENUM, storage type, value as a C integer, value clamped to
 * [-65520, 65520] (beyond it f16 is infinity either way), value as a double
 * that rounds to f16/bf16 as the integer does). An i1 byte is true when
 * nonzero, as the engine reads it. */
#define CV_SRCS(X)                                                                 \
    X(I1, uint8_t, (x != 0), (x != 0), (double)(x != 0))                           \
    X(I8, int8_t, x, x, (double)x)                                                 \
    X(I16, int16_t, x, x, (double)x)                                               \
    X(I32, int32_t, x, CV_CLAMP(x, -65520, 65520), (double)x)                      \
    X(I64, int64_t, x, (int32_t)CV_CLAMP(x, -65520, 65520), cv_i64_odd(x))         \
    X(UI8, uint8_t, x, x, (double)x)                                               \
    X(UI16, uint16_t, x, x, (double)x)                                             \
    X(UI32, uint32_t, x, (int32_t)(x > 65520u ? 65520u : x), (double)x)            \
    X(UI64, uint64_t, x, (int32_t)(x > 65520u ? 65520u : x), cv_u64_odd(x))

/* integer destinations as unsigned storage: the conversion is modulo 2^w */
#define CV_DSTS(X, S, ST, V)                                                       \
    X(S, ST, V, I1, uint8_t, ((V) != 0))                                           \
    X(S, ST, V, I8, uint8_t, (V))                                                  \
    X(S, ST, V, I16, uint16_t, (V))                                                \
    X(S, ST, V, I32, uint32_t, (V))                                                \
    X(S, ST, V, I64, uint64_t, (V))                                                \
    X(S, ST, V, UI8, uint8_t, (V))                                                 \
    X(S, ST, V, UI16, uint16_t, (V))                                               \
    X(S, ST, V, UI32, uint32_t, (V))                                               \
    X(S, ST, V, UI64, uint64_t, (V))

#define CV_II(S, ST, V, D, DT, E) CV_K(S##_##D, ST, DT, E)
#define CV_INT_SRC(S, ST, V, H, DB)                                                \
    CV_DSTS(CV_II, S, ST, V)                                                       \
    CV_K(S##_F32, ST, float, (float)(V))                                           \
    CV_K(S##_F64, ST, double, (double)(V))                                         \
    CV_K(S##_h, ST, float, (float)(H))                                             \
    CV_K(S##_d, ST, double, DB)
CV_SRCS(CV_INT_SRC)
CV_K(i1_i1, uint8_t, uint8_t, x & 1u)   /* the engine masks an i1 to its one bit */

#define CV_ROW_ENTRY(S, ST, V, D, DT, E) CV(S##_##D),
#define CV_ROW(S, ST, V, H, DB) {CV_DSTS(CV_ROW_ENTRY, S, ST, V)},
static const cv_fn CV(int_int)[9][9] = {CV_SRCS(CV_ROW)};
#define CV_COL(S, ST, V, H, DB) {CV(S##_F32), CV(S##_F64), CV(S##_h), CV(S##_d)},
static const cv_fn CV(int_flt)[9][4] = {CV_SRCS(CV_COL)};
#undef CV_ROW_ENTRY
#undef CV_ROW
#undef CV_COL
#undef CV_II
#undef CV_INT_SRC

/* f32 -> every type */
static cv_fn CV(from_f32)(plumb_dtype d)
{
    switch (d) {
    case PLUMB_I1: return CV(f32_i1);
    case PLUMB_I8: return CV(f32_i8);
    case PLUMB_I16: return CV(f32_i16);
    case PLUMB_I32: return CV(f32_i32);
    case PLUMB_I64: return CV(f32_i64);
    case PLUMB_UI8: return CV(f32_u8);
    case PLUMB_UI16: return CV(f32_u16);
    case PLUMB_UI32: return CV(f32_u32);
    case PLUMB_UI64: return CV(f32_u64);
    case PLUMB_F16: return CV(f32_f16);
    case PLUMB_BF16: return CV(f32_bf16);
    case PLUMB_F32: return CV(f32_f32);
    case PLUMB_F64: return CV(f32_f64);
    default: return NULL;
    }
}

static cv_fn CV(from_f64)(plumb_dtype d)
{
    switch (d) {
    case PLUMB_I1: return CV(f64_i1);
    case PLUMB_I8: return CV(f64_i8);
    case PLUMB_I16: return CV(f64_i16);
    case PLUMB_I32: return CV(f64_i32);
    case PLUMB_I64: return CV(f64_i64);
    case PLUMB_UI8: return CV(f64_u8);
    case PLUMB_UI16: return CV(f64_u16);
    case PLUMB_UI32: return CV(f64_u32);
    case PLUMB_UI64: return CV(f64_u64);
    case PLUMB_F16: return CV(f64_f16);
    case PLUMB_BF16: return CV(f64_bf16);
    case PLUMB_F32: return CV(f64_f32);
    default: return NULL;
    }
}

/* The one or two block kernels of s -> d (false: none). */
static bool CV(plan)(plumb_dtype s, plumb_dtype d, cv_fn *f1, cv_fn *f2)
{
    static_assert(PLUMB_I1 == 0 && PLUMB_UI64 == 8 && PLUMB_F16 == 9 && PLUMB_F64 == 12,
                  "integer types must index the tables");
    *f2 = NULL;
    if (s <= PLUMB_UI64) {
        if (d <= PLUMB_UI64)
            *f1 = s == PLUMB_I1 && d == PLUMB_I1 ? CV(i1_i1) : CV(int_int)[s][d];
        else if (d == PLUMB_F32)
            *f1 = CV(int_flt)[s][0];
        else if (d == PLUMB_F64)
            *f1 = CV(int_flt)[s][1];
        else if (d == PLUMB_F16)
            *f1 = CV(int_flt)[s][2], *f2 = CV(f32_f16);
        else
            *f1 = CV(int_flt)[s][3], *f2 = CV(f64_bf16);
        return true;
    }
    if (s == PLUMB_F16 || s == PLUMB_BF16) {
        /* widening to f32 is exact and quiets NaN as the engine's widening
         * to double does, so f32's conversion finishes the job */
        if (d == PLUMB_I1) {
            *f1 = CV(h_i1);
            return true;
        }
        *f1 = s == PLUMB_F16 ? CV(f16_f32) : CV(bf16_f32);
        if (d != PLUMB_F32)
            *f2 = CV(from_f32)(d);
        return true;
    }
    *f1 = s == PLUMB_F32 ? CV(from_f32)(d) : CV(from_f64)(d);
    return *f1 != NULL;
}

#endif /* CV_PASS */
