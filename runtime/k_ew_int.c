/* Vectorized elementwise loops for integer and i1 element types (see rt_ew_args in
 * rt_internal.h): the element engine offers each op here first.
 *
 * Every (op, width, signedness) is one plain typed C loop whose body is a
 * macro argument written once; INT_LOOPS instantiates all of them for each
 * ISA with a target attribute, and the compiler vectorizes them for that
 * target. Each loop computes what k_elementwise.c's elem() computes for the
 * op (docs/runtime-ew-int.md says why, op by op); arithmetic is in unsigned
 * types so wrap-around is defined. Division and remainder of 8/16/32-bit
 * elements go through f32/f64 division, which is exact after truncation at
 * these widths (the argument is in the doc); 64-bit ones stay scalar. */
#include <string.h>

#include "rt_internal.h"

/* At -O2 GCC only vectorizes loops that need no run-time alias check; these
 * loops need one (the result may be an operand's buffer). */
#if !defined(__clang__)   /* gcc only; clang's cost model has no such switch */
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

/* ---- per-element helpers (inlined into each ISA's loops) --------------------- */

/* StableHLO shifts: an amount that is >= the width, read as unsigned (so a
 * negative amount too), gives 0, or all sign bits for the arithmetic shift. */
#define SHIFT_HELPERS(W)                                                                    \
    static inline uint##W##_t shl##W(uint##W##_t a, uint##W##_t s)                          \
    {                                                                                       \
        uint##W##_t r = (uint##W##_t)(1u * a << (s & (W - 1)));                             \
        return s < W ? r : 0;                                                               \
    }                                                                                       \
    static inline uint##W##_t srl##W(uint##W##_t a, uint##W##_t s)                          \
    {                                                                                       \
        uint##W##_t r = (uint##W##_t)(a >> (s & (W - 1)));                                  \
        return s < W ? r : 0;                                                               \
    }                                                                                       \
    static inline uint##W##_t sra##W(uint##W##_t a, uint##W##_t s)                          \
    {   /* a logical shift of a or ~a: no 8/16-bit variable arithmetic shifts in AVX2 */    \
        uint##W##_t m = (uint##W##_t)(0u - (a >> (W - 1)));                                 \
        return (uint##W##_t)(m ^ srl##W((uint##W##_t)(a ^ m), s));                          \
    }
SHIFT_HELPERS(8)
SHIFT_HELPERS(16)
SHIFT_HELPERS(32)
SHIFT_HELPERS(64)

/* chlo.mulhi: the high half of the double-width product (ref/elementwise.c
 * states the semantics). Up to 32 bits the product is exact in the next
 * wider type, and its unsigned bits shifted down are the high half's
 * pattern (no right shift of a negative value); the widening multiplies
 * vectorize. 64 bits take a 128-bit product where the compiler has one,
 * else four 32x32-bit partial products; a signed high half is the unsigned
 * one less y where x < 0 and less x where y < 0 (mod 2^64). */
static inline uint8_t mulhi_s8(uint8_t a, uint8_t b)
{ return (uint8_t)((uint16_t)((int16_t)(int8_t)a * (int16_t)(int8_t)b) >> 8); }
static inline uint8_t mulhi_u8(uint8_t a, uint8_t b) { return (uint8_t)((uint16_t)(1u * a * b) >> 8); }
static inline uint16_t mulhi_s16(uint16_t a, uint16_t b)
{ return (uint16_t)((uint32_t)((int32_t)(int16_t)a * (int32_t)(int16_t)b) >> 16); }
static inline uint16_t mulhi_u16(uint16_t a, uint16_t b) { return (uint16_t)((uint32_t)a * b >> 16); }
static inline uint32_t mulhi_s32(uint32_t a, uint32_t b)
{ return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32); }
static inline uint32_t mulhi_u32(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b >> 32); }
static inline uint64_t mulhi_u64(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)((u128)a * b >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t lh = al * bh, hl = ah * bl;
    uint64_t mid = (al * bl >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}
static inline uint64_t mulhi_s64(uint64_t a, uint64_t b)
{
    return mulhi_u64(a, b) - (b & (0u - (a >> 63))) - (a & (0u - (b >> 63)));
}

uint64_t rt_mulhi(plumb_dtype t, uint64_t a, uint64_t b)
{
    bool sg = plumb_dtype_is_signed(t);
    switch (plumb_dtype_get(t)->bits) {
    case 8: return sg ? mulhi_s8((uint8_t)a, (uint8_t)b) : mulhi_u8((uint8_t)a, (uint8_t)b);
    case 16: return sg ? mulhi_s16((uint16_t)a, (uint16_t)b) : mulhi_u16((uint16_t)a, (uint16_t)b);
    case 32: return sg ? mulhi_s32((uint32_t)a, (uint32_t)b) : mulhi_u32((uint32_t)a, (uint32_t)b);
    case 64: return sg ? mulhi_s64(a, b) : mulhi_u64(a, b);
    default: {   /* i2/i4/ui2/ui4: the product is exact in int64_t */
        unsigned w = plumb_dtype_get(t)->bits;
        uint64_t m = (1ull << w) - 1;
        if (sg) {
            int64_t x = (int64_t)((a & m) ^ (1ull << (w - 1))) - (int64_t)(1ull << (w - 1));
            int64_t y = (int64_t)((b & m) ^ (1ull << (w - 1))) - (int64_t)(1ull << (w - 1));
            return ((uint64_t)(x * y) >> w) & m;
        }
        return ((a & m) * (b & m) >> w) & m;
    }
    }
}

/* Population counts by bit-slice sums (no vector popcount instruction in
 * the ISAs dispatched to); every step stays in the element's width. */
static inline uint8_t pop8(uint8_t x)
{
    x = (uint8_t)(x - ((x >> 1) & 0x55u));
    x = (uint8_t)((x & 0x33u) + ((x >> 2) & 0x33u));
    return (uint8_t)((x + (x >> 4)) & 0x0Fu);
}
static inline uint16_t pop16(uint16_t x)
{
    x = (uint16_t)(x - ((x >> 1) & 0x5555u));
    x = (uint16_t)((x & 0x3333u) + ((x >> 2) & 0x3333u));
    x = (uint16_t)((x + (x >> 4)) & 0x0F0Fu);
    return (uint16_t)((x + (x >> 8)) & 0x1Fu);
}
static inline uint32_t pop32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    x = x + (x >> 8);
    return (x + (x >> 16)) & 0x3Fu;
}
static inline uint64_t pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    x = x + (x >> 8);
    x = x + (x >> 16);
    return (x + (x >> 32)) & 0x7Fu;
}

/* Leading zeros: smear the top set bit down, then count the ones (0 -> width). */
static inline uint8_t clz8(uint8_t x)
{
    x = (uint8_t)(x | (x >> 1));
    x = (uint8_t)(x | (x >> 2));
    x = (uint8_t)(x | (x >> 4));
    return (uint8_t)(8u - pop8(x));
}
static inline uint16_t clz16(uint16_t x)
{
    x = (uint16_t)(x | (x >> 1));
    x = (uint16_t)(x | (x >> 2));
    x = (uint16_t)(x | (x >> 4));
    x = (uint16_t)(x | (x >> 8));
    return (uint16_t)(16u - pop16(x));
}
static inline uint32_t clz32(uint32_t x)
{
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return 32u - pop32(x);
}
static inline uint64_t clz64(uint64_t x)
{
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    x |= x >> 32;
    return 64u - pop64(x);
}

/* Division and remainder, StableHLO's (and elem()'s) values: x / 0 is all
 * ones, x % 0 is x, MIN / -1 is MIN (wrap-around) and MIN % -1 is 0.
 *
 * 8 and 16 bits: the f32 quotient of the exactly converted operands,
 * truncated, is the integer quotient. |x| <= 2^16 and 1 <= |d| < 2^16; a
 * non-integral x/d lies at least 1/|d| from every integer while rounding
 * moves it by at most |x/d| 2^-24 <= 2^-8/|d|, so truncation cannot cross an
 * integer, and integral quotients are exact. x / -1 = -x needs no special
 * case: |x| <= 2^15 is exact in f32 and in int32_t, and wraps on the store. */
#define SMALL_DIV(W)                                                                        \
    static inline uint##W##_t sdiv##W(uint##W##_t a, uint##W##_t b)                         \
    {                                                                                       \
        int32_t x = (int##W##_t)a, y = (int##W##_t)b, d = y + (y == 0);                     \
        int32_t q = (int32_t)((float)x / (float)d);                                         \
        return (uint##W##_t)(q | -(int32_t)(y == 0));                                       \
    }                                                                                       \
    static inline uint##W##_t srem##W(uint##W##_t a, uint##W##_t b)                         \
    {                                                                                       \
        int32_t x = (int##W##_t)a, y = (int##W##_t)b, d = y + (y == 0);                     \
        int32_t q = (int32_t)((float)x / (float)d);                                         \
        return (uint##W##_t)((x - q * d) | (x & -(int32_t)(y == 0)));                       \
    }                                                                                       \
    static inline uint##W##_t udiv##W(uint##W##_t a, uint##W##_t b)                         \
    {                                                                                       \
        int32_t x = a, y = b, d = y + (y == 0);                                             \
        int32_t q = (int32_t)((float)x / (float)d);                                         \
        return (uint##W##_t)(q | -(int32_t)(y == 0));                                       \
    }                                                                                       \
    static inline uint##W##_t urem##W(uint##W##_t a, uint##W##_t b)                         \
    {                                                                                       \
        int32_t x = a, y = b, d = y + (y == 0);                                             \
        int32_t q = (int32_t)((float)x / (float)d);                                         \
        return (uint##W##_t)((x - q * d) | (x & -(int32_t)(y == 0)));                       \
    }
SMALL_DIV(8)
SMALL_DIV(16)

/* 32 bits: the same argument in f64 (|x| <= 2^32, rounding <= |x/d| 2^-53).
 * Divisors 0 and -1 (signed), 0 and 1 (unsigned) are replaced so that the
 * truncated quotient fits int32_t, and their results set after. */
static inline uint32_t sdiv32(uint32_t a, uint32_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b, d = y + (y == 0) + 2 * (y == -1);
    uint32_t q = (uint32_t)(int32_t)((double)x / (double)d);
    uint32_t m0 = 0u - (y == 0), m1 = 0u - (y == -1);
    return ((q ^ m1) - m1) | m0;   /* d = 1 there: q = x, so -q = -x */
}
static inline uint32_t srem32(uint32_t a, uint32_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b, d = y + (y == 0) + 2 * (y == -1);
    uint32_t q = (uint32_t)(int32_t)((double)x / (double)d);
    return (a - q * (uint32_t)d) | (a & (0u - (y == 0)));   /* 0 where d = 1 */
}
static inline uint32_t udiv32(uint32_t a, uint32_t b)
{
    uint32_t d = b + 2 * (b == 0) + (b == 1);
    uint32_t q = (uint32_t)(int32_t)((double)a / (double)d);
    uint32_t m0 = 0u - (b == 0), m1 = 0u - (b == 1);
    return (q & ~(m0 | m1)) | (a & m1) | m0;
}
static inline uint32_t urem32(uint32_t a, uint32_t b)
{
    uint32_t d = b + 2 * (b == 0) + (b == 1);
    uint32_t q = (uint32_t)(int32_t)((double)a / (double)d);
    uint32_t m0 = 0u - (b == 0), m1 = 0u - (b == 1);
    return ((a - q * d) & ~(m0 | m1)) | (a & m0);
}

/* 64 bits: the hardware's division, with divisors 0 and -1 replaced by 1
 * so it never traps. */
static inline uint64_t sdiv64(uint64_t a, uint64_t b)
{
    int64_t x = (int64_t)a, y = (int64_t)b, d = (y == 0 || y == -1) ? 1 : y;
    uint64_t q = (uint64_t)(x / d);
    return y == 0 ? ~0ull : y == -1 ? 0 - a : q;
}
static inline uint64_t srem64(uint64_t a, uint64_t b)
{
    int64_t x = (int64_t)a, y = (int64_t)b, d = (y == 0 || y == -1) ? 1 : y;
    uint64_t r = (uint64_t)(x % d);
    return y == 0 ? a : y == -1 ? 0 : r;
}
static inline uint64_t udiv64(uint64_t a, uint64_t b)
{
    uint64_t q = a / (b == 0 ? 1 : b);
    return b == 0 ? ~0ull : q;
}
static inline uint64_t urem64(uint64_t a, uint64_t b)
{
    uint64_t r = a % (b == 0 ? 1 : b);
    return b == 0 ? a : r;
}

/* ---- power ------------------------------------------------------------------------
 * elem()'s ipow: x^e by square-and-multiply with wrap-around, e the exponent
 * read in the type (unsigned: its W bits; signed and >= 0: the same bits);
 * a negative signed exponent gives 1 for x = 1, (-1)^e for x = -1 and 0
 * otherwise. Products modulo 2^64 truncated to W bits equal products modulo
 * 2^W, so W-bit arithmetic gives elem()'s bits. Branch-free over a block:
 * every element of the block takes as many rounds as the longest exponent
 * in it (a round with a zero exponent bit multiplies by 1); a negative
 * exponent is replaced by its parity, which is all x = +-1 needs, and the
 * other bases are masked to 0 at the end. POW_B elements per block, the
 * state in stack arrays so that every pass is a plain vectorizable loop. */
#define POW_B 256

#define POW_LOOP(SUF, TGT, W)                                                               \
    TGT static void pow##W##SUF(const void *xp, const void *yp, void *op, size_t n, bool sg)  \
    {                                                                                       \
        const uint##W##_t *x = xp, *y = yp;                                                 \
        uint##W##_t *o = op;                                                                \
        uint##W##_t r[POW_B], b[POW_B], e[POW_B];                                           \
        const uint##W##_t top = (uint##W##_t)(sg ? (uint##W##_t)1 << (W - 1) : 0);         \
        for (size_t i0 = 0; i0 < n; i0 += POW_B) {                                          \
            size_t m = n - i0 < POW_B ? n - i0 : POW_B;                                     \
            uint##W##_t acc = 0;                                                            \
            for (size_t j = 0; j < m; j++) {                                                \
                uint##W##_t ex = y[i0 + j];                                                 \
                uint##W##_t neg = (uint##W##_t)(0u - (uint##W##_t)((ex & top) != 0));       \
                ex = (uint##W##_t)((ex & ~neg) | (ex & neg & 1u));                          \
                e[j] = ex;                                                                  \
                b[j] = x[i0 + j];                                                           \
                r[j] = 1;                                                                   \
                acc |= ex;                                                                  \
            }                                                                               \
            for (; acc != 0; acc >>= 1) {                                                   \
                for (size_t j = 0; j < m; j++) {                                            \
                    uint##W##_t bit = (uint##W##_t)(0u - (uint##W##_t)(e[j] & 1u));         \
                    uint##W##_t f = (uint##W##_t)((b[j] & bit) | (1u & ~bit));              \
                    r[j] = (uint##W##_t)(1u * r[j] * f);                                    \
                    b[j] = (uint##W##_t)(1u * b[j] * b[j]);                                 \
                    e[j] = (uint##W##_t)(e[j] >> 1);                                        \
                }                                                                           \
            }                                                                               \
            for (size_t j = 0; j < m; j++) {                                                \
                uint##W##_t a = x[i0 + j];                                                  \
                uint##W##_t unit = (uint##W##_t)(0u - (uint##W##_t)((a == 1u) | (a == (uint##W##_t)~(uint##W##_t)0))); \
                uint##W##_t neg = (uint##W##_t)(0u - (uint##W##_t)((y[i0 + j] & top) != 0)); \
                o[i0 + j] = (uint##W##_t)(r[j] & (unit | ~neg));                            \
            }                                                                               \
        }                                                                                   \
    }

/* ---- loop generators ------------------------------------------------------------ */

typedef void (*bin_fn)(const void *x, const void *y, void *o, size_t n);

#define UN(NAME, SUF, TGT, T, R, EXPR)                                                      \
    TGT static void NAME##SUF(const void *xp, void *op, size_t n)                           \
    {                                                                                       \
        const T *x = xp;                                                                    \
        R *o = op;                                                                          \
        for (size_t i = 0; i < n; i++) {                                                    \
            T a = x[i];                                                                     \
            o[i] = (R)(EXPR);                                                               \
        }                                                                                   \
    }
#define BIN(NAME, SUF, TGT, T, R, EXPR)                                                     \
    TGT static void NAME##SUF(const void *xp, const void *yp, void *op, size_t n)           \
    {                                                                                       \
        const T *x = xp, *y = yp;                                                           \
        R *o = op;                                                                          \
        for (size_t i = 0; i < n; i++) {                                                    \
            T a = x[i], b = y[i];                                                           \
            o[i] = (R)(EXPR);                                                               \
        }                                                                                   \
    }
/* clamp(lo, v, hi) = minimum(maximum(v, lo), hi), elem()'s order */
#define CLAMP(NAME, SUF, TGT, T)                                                            \
    TGT static void NAME##SUF(const void *lp, const void *vp, const void *hp, void *op,     \
                              size_t n)                                                     \
    {                                                                                       \
        const T *l = lp, *v = vp, *h = hp;                                                  \
        T *o = op;                                                                          \
        for (size_t i = 0; i < n; i++) {                                                    \
            T r = v[i] > l[i] ? v[i] : l[i];                                                \
            o[i] = r > h[i] ? h[i] : r;                                                     \
        }                                                                                   \
    }

/* The loops of one signedness (S = the C type values are read as). */
#define SIGNED_LOOPS(SUF, TGT, W, SG, S, SIGN)                                                  \
    BIN(max_##SG##W, SUF, TGT, S, S, a > b ? a : b)                                         \
    BIN(min_##SG##W, SUF, TGT, S, S, a > b ? b : a)                                         \
    UN(sign_##SG##W, SUF, TGT, S, S, SIGN)                                                  \
    BIN(lt_##SG##W, SUF, TGT, S, uint8_t, a < b)                                            \
    BIN(le_##SG##W, SUF, TGT, S, uint8_t, a <= b)                                           \
    BIN(gt_##SG##W, SUF, TGT, S, uint8_t, a > b)                                            \
    BIN(ge_##SG##W, SUF, TGT, S, uint8_t, a >= b)                                           \
    CLAMP(clamp_##SG##W, SUF, TGT, S)                                                       \
    BIN(div_##SG##W, SUF, TGT, uint##W##_t, uint##W##_t, SG##div##W(a, b))                  \
    BIN(rem_##SG##W, SUF, TGT, uint##W##_t, uint##W##_t, SG##rem##W(a, b))

#define WIDTH_LOOPS(SUF, TGT, W)                                                            \
    BIN(add##W, SUF, TGT, uint##W##_t, uint##W##_t, a + b)                                  \
    BIN(sub##W, SUF, TGT, uint##W##_t, uint##W##_t, a - b)                                  \
    BIN(mul##W, SUF, TGT, uint##W##_t, uint##W##_t, 1u * a * b)                             \
    BIN(mulhi_s##W, SUF, TGT, uint##W##_t, uint##W##_t, mulhi_s##W(a, b))                  \
    BIN(mulhi_u##W, SUF, TGT, uint##W##_t, uint##W##_t, mulhi_u##W(a, b))                  \
    BIN(and##W, SUF, TGT, uint##W##_t, uint##W##_t, a & b)                                  \
    BIN(or##W, SUF, TGT, uint##W##_t, uint##W##_t, a | b)                                   \
    BIN(xor##W, SUF, TGT, uint##W##_t, uint##W##_t, a ^ b)                                  \
    UN(not##W, SUF, TGT, uint##W##_t, uint##W##_t, ~a)                                      \
    UN(neg##W, SUF, TGT, uint##W##_t, uint##W##_t, 0u - a)                                  \
    UN(abs##W, SUF, TGT, int##W##_t, uint##W##_t, a < 0 ? 0u - (uint##W##_t)a : (uint##W##_t)a) \
    UN(pop##W, SUF, TGT, uint##W##_t, uint##W##_t, pop##W(a))                               \
    UN(clz##W, SUF, TGT, uint##W##_t, uint##W##_t, clz##W(a))                               \
    BIN(shl##W, SUF, TGT, uint##W##_t, uint##W##_t, shl##W(a, b))                           \
    BIN(srl##W, SUF, TGT, uint##W##_t, uint##W##_t, srl##W(a, b))                           \
    BIN(sra##W, SUF, TGT, uint##W##_t, uint##W##_t, sra##W(a, b))                           \
    BIN(eq##W, SUF, TGT, uint##W##_t, uint8_t, a == b)                                      \
    BIN(ne##W, SUF, TGT, uint##W##_t, uint8_t, a != b)                                      \
    POW_LOOP(SUF, TGT, W)                                                                   \
    SIGNED_LOOPS(SUF, TGT, W, s, int##W##_t, (a > 0) - (a < 0))                             \
    SIGNED_LOOPS(SUF, TGT, W, u, uint##W##_t, a != 0)                                       \
    static bool run##W##SUF(const rt_ew_args *a, bool sg, bool cmp_sg)                      \
    {                                                                                       \
        const void *x = a->in[0], *y = a->in[1];                                            \
        void *o = a->out;                                                                   \
        size_t n = a->n;                                                                    \
        switch (a->code) {                                                                  \
        case PLUMB_OP_ADD: add##W##SUF(x, y, o, n); return true;                            \
        case PLUMB_OP_SUBTRACT: sub##W##SUF(x, y, o, n); return true;                       \
        case PLUMB_OP_MULTIPLY: mul##W##SUF(x, y, o, n); return true;                       \
        case PLUMB_OP_MULHI: (sg ? mulhi_s##W##SUF : mulhi_u##W##SUF)(x, y, o, n); return true; \
        case PLUMB_OP_AND: and##W##SUF(x, y, o, n); return true;                            \
        case PLUMB_OP_OR: or##W##SUF(x, y, o, n); return true;                              \
        case PLUMB_OP_XOR: xor##W##SUF(x, y, o, n); return true;                            \
        case PLUMB_OP_NOT: not##W##SUF(x, o, n); return true;                               \
        case PLUMB_OP_NEGATE: neg##W##SUF(x, o, n); return true;                            \
        case PLUMB_OP_POPCNT: pop##W##SUF(x, o, n); return true;                            \
        case PLUMB_OP_COUNT_LEADING_ZEROS: clz##W##SUF(x, o, n); return true;               \
        case PLUMB_OP_SHIFT_LEFT: shl##W##SUF(x, y, o, n); return true;                     \
        case PLUMB_OP_SHIFT_RIGHT_LOGICAL: srl##W##SUF(x, y, o, n); return true;            \
        case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: sra##W##SUF(x, y, o, n); return true;         \
        case PLUMB_OP_ABS:                                                                  \
            if (sg)                                                                         \
                abs##W##SUF(x, o, n);                                                       \
            else if (o != x)                                                                \
                memmove(o, x, n * (W / 8));                                                 \
            return true;                                                                    \
        case PLUMB_OP_SIGN: (sg ? sign_s##W##SUF : sign_u##W##SUF)(x, o, n); return true;   \
        case PLUMB_OP_MAXIMUM: (sg ? max_s##W##SUF : max_u##W##SUF)(x, y, o, n); return true; \
        case PLUMB_OP_MINIMUM: (sg ? min_s##W##SUF : min_u##W##SUF)(x, y, o, n); return true; \
        case PLUMB_OP_DIVIDE: (sg ? div_s##W##SUF : div_u##W##SUF)(x, y, o, n); return true; \
        case PLUMB_OP_REMAINDER: (sg ? rem_s##W##SUF : rem_u##W##SUF)(x, y, o, n); return true; \
        case PLUMB_OP_POWER: pow##W##SUF(x, y, o, n, sg); return true;                     \
        case PLUMB_OP_CLAMP:                                                                \
            (sg ? clamp_s##W##SUF : clamp_u##W##SUF)(x, y, a->in[2], o, n);                 \
            return true;                                                                    \
        case PLUMB_OP_COMPARE: {                                                            \
            bin_fn f;                                                                       \
            switch (a->op->a.cmp_dir) {                                                     \
            case IR_CMP_EQ: f = eq##W##SUF; break;                                          \
            case IR_CMP_NE: f = ne##W##SUF; break;                                          \
            case IR_CMP_LT: f = cmp_sg ? lt_s##W##SUF : lt_u##W##SUF; break;                \
            case IR_CMP_LE: f = cmp_sg ? le_s##W##SUF : le_u##W##SUF; break;                \
            case IR_CMP_GT: f = cmp_sg ? gt_s##W##SUF : gt_u##W##SUF; break;                \
            case IR_CMP_GE: f = cmp_sg ? ge_s##W##SUF : ge_u##W##SUF; break;                \
            default: return false;                                                          \
            }                                                                               \
            f(x, y, o, n);                                                                  \
            return true;                                                                    \
        }                                                                                   \
        default:                                                                            \
            return false;                                                                   \
        }                                                                                   \
    }

/* i1: elem() reads bit 0 of each byte and the store keeps bit 0, so add is
 * or, multiply and minimum are and, maximum is or, and compares order
 * false < true under both comparison types. */
#define I1_LOOPS(SUF, TGT)                                                                  \
    BIN(or1, SUF, TGT, uint8_t, uint8_t, (a | b) & 1u)                                      \
    BIN(and1, SUF, TGT, uint8_t, uint8_t, a & b & 1u)                                       \
    BIN(xor1, SUF, TGT, uint8_t, uint8_t, (a ^ b) & 1u)                                     \
    UN(not1, SUF, TGT, uint8_t, uint8_t, (a & 1u) ^ 1u)                                     \
    BIN(eq1, SUF, TGT, uint8_t, uint8_t, ((a ^ b) & 1u) ^ 1u)                               \
    BIN(lt1, SUF, TGT, uint8_t, uint8_t, ~a & b & 1u)                                       \
    BIN(le1, SUF, TGT, uint8_t, uint8_t, (~a | b) & 1u)                                     \
    BIN(gt1, SUF, TGT, uint8_t, uint8_t, a & ~b & 1u)                                       \
    BIN(ge1, SUF, TGT, uint8_t, uint8_t, (a | ~b) & 1u)                                     \
    TGT static void clamp1##SUF(const void *lp, const void *vp, const void *hp, void *op,   \
                                size_t n)                                                   \
    {                                                                                       \
        const uint8_t *l = lp, *v = vp, *h = hp;                                            \
        uint8_t *o = op;                                                                    \
        for (size_t i = 0; i < n; i++)                                                      \
            o[i] = (uint8_t)((v[i] | l[i]) & h[i] & 1u);                                    \
    }                                                                                       \
    static bool run1##SUF(const rt_ew_args *a)                                              \
    {                                                                                       \
        const void *x = a->in[0], *y = a->in[1];                                            \
        void *o = a->out;                                                                   \
        size_t n = a->n;                                                                    \
        switch (a->code) {                                                                  \
        case PLUMB_OP_ADD: case PLUMB_OP_OR: case PLUMB_OP_MAXIMUM:                         \
            or1##SUF(x, y, o, n);                                                           \
            return true;                                                                    \
        case PLUMB_OP_MULTIPLY: case PLUMB_OP_AND: case PLUMB_OP_MINIMUM:                   \
            and1##SUF(x, y, o, n);                                                          \
            return true;                                                                    \
        case PLUMB_OP_XOR: xor1##SUF(x, y, o, n); return true;                              \
        case PLUMB_OP_NOT: not1##SUF(x, o, n); return true;                                 \
        case PLUMB_OP_CLAMP: clamp1##SUF(x, y, a->in[2], o, n); return true;                \
        case PLUMB_OP_COMPARE:                                                              \
            switch (a->op->a.cmp_dir) {                                                     \
            case IR_CMP_EQ: eq1##SUF(x, y, o, n); return true;                              \
            case IR_CMP_NE: xor1##SUF(x, y, o, n); return true;                             \
            case IR_CMP_LT: lt1##SUF(x, y, o, n); return true;                              \
            case IR_CMP_LE: le1##SUF(x, y, o, n); return true;                              \
            case IR_CMP_GT: gt1##SUF(x, y, o, n); return true;                              \
            case IR_CMP_GE: ge1##SUF(x, y, o, n); return true;                              \
            default: return false;                                                          \
            }                                                                               \
        default:                                                                            \
            return false;                                                                   \
        }                                                                                   \
    }

#define INT_LOOPS(SUF, TGT)                                                                 \
    I1_LOOPS(SUF, TGT)                                                                      \
    WIDTH_LOOPS(SUF, TGT, 8)                                                                \
    WIDTH_LOOPS(SUF, TGT, 16)                                                               \
    WIDTH_LOOPS(SUF, TGT, 32)                                                               \
    WIDTH_LOOPS(SUF, TGT, 64)                                                               \
    static bool run##SUF(const rt_ew_args *a, bool sg, bool cmp_sg)                         \
    {                                                                                       \
        switch (plumb_dtype_get(a->t)->bits) {                                              \
        case 1: return run1##SUF(a);                                                        \
        case 8: return run8##SUF(a, sg, cmp_sg);                                            \
        case 16: return run16##SUF(a, sg, cmp_sg);                                          \
        case 32: return run32##SUF(a, sg, cmp_sg);                                          \
        case 64: return run64##SUF(a, sg, cmp_sg);                                          \
        default: return false;                                                              \
        }                                                                                   \
    }

INT_LOOPS(_portable, )
#if defined(__x86_64__) || defined(__i386__)
INT_LOOPS(_avx2, __attribute__((target("avx2,fma"))))
INT_LOOPS(_avx512, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))))
#endif

/* ---- entry ------------------------------------------------------------------------ */

/* Which ops are done here and how many operands each has. */
static uint32_t arity_of(plumb_opcode c)
{
    switch (c) {
    case PLUMB_OP_NOT: case PLUMB_OP_NEGATE: case PLUMB_OP_ABS: case PLUMB_OP_SIGN: case PLUMB_OP_POPCNT:
    case PLUMB_OP_COUNT_LEADING_ZEROS:
        return 1;
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM: case PLUMB_OP_AND:
    case PLUMB_OP_OR: case PLUMB_OP_XOR: case PLUMB_OP_SHIFT_LEFT: case PLUMB_OP_SHIFT_RIGHT_LOGICAL:
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: case PLUMB_OP_COMPARE: case PLUMB_OP_POWER: case PLUMB_OP_MULHI:
        return 2;
    case PLUMB_OP_CLAMP:
        return 3;
    default:
        return 0;
    }
}

bool rt_ew_int(const rt_ew_args *a)
{
    plumb_dtype t = a->t;
    if (!plumb_dtype_is_int(t) && !plumb_dtype_is_bool(t))
        return false;
    uint32_t ar = arity_of(a->code);
    if (ar == 0 || a->n_in != ar || !a->out)
        return false;
    for (uint32_t k = 0; k < ar; k++)
        if (!a->in[k])
            return false;
    bool sg = plumb_dtype_is_signed(t), cmp_sg = sg;
    if (a->code == PLUMB_OP_COMPARE) {
        if (a->rt != PLUMB_I1 || !a->op)
            return false;
        switch (a->op->a.cmp_type) {
        case IR_CMP_TYPE_NONE: break;
        case IR_CMP_SIGNED: cmp_sg = true; break;
        case IR_CMP_UNSIGNED: cmp_sg = false; break;
        default: return false;   /* float comparison types: not an integer compare */
        }
    } else if (a->rt != t) {
        return false;
    }
    if (a->n == 0)
        return true;
#if defined(__x86_64__) || defined(__i386__)
    if (a->isa == PLUMB_ISA_AVX512)
        return run_avx512(a, sg, cmp_sg);
    if (a->isa == PLUMB_ISA_AVX2)
        return run_avx2(a, sg, cmp_sg);
#endif
    return run_portable(a, sg, cmp_sg);
}
