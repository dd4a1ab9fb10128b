/* Float column sums in strips of columns, a strip row per read.
 *
 * Semantics: the documented order of a float column sum (rt_sum.h,
 * docs/runtime-reduce.md "Which loops may reorder"): within a block of at
 * most RT_SUM_BLOCK rows, row r is added to lane r % RT_SUM_LANES of its
 * column, each lane starting at -0 and taking its rows in increasing r; the
 * 32 lanes are then folded by halving (lane i += lane i + w for w = 16, 8,
 * 4, 2, 1). Every add is the same double add, with the same operands in
 * the same operand order, as k_reduce.c's col_block, so the bits are the
 * same at every level; tests/runtime/test_colsum.c checks them against a
 * scalar model of the order.
 *
 * How: the halving fold is evaluated depth first: lane(i) for the 32 lanes
 * in the bit-reversed order 0, 16, 8, 24, ..., each finished lane pushed on
 * a stack of at most six partial sums and combined like a binary counter
 * (after the k-th lane, one add per trailing zero of k), which gives
 * exactly halving's tree: halving adds lane i and lane i + 16 first, then
 * those pairs i and i + 8, ... The stack is six rows of CS_STRIP doubles
 * (12 KiB, in L1), so a strip of 256 columns is summed by visiting its rows
 * in lane order, two rows of a lane per visit, each read as one run of
 * 1 KiB (f32) or 2 KiB (f64) straight into the lane's partial sums; the
 * lane's last visit also does its combines in registers. The row read
 * CS_AHEAD rows later (in the next strip after the last) is prefetched
 * line by line as the visit goes.
 *
 * Why: an earlier form kept the stack in registers for 16 columns and so
 * read 64 bytes of every row of the block per pass: for 64 rows a MiB
 * apart (64x512x512 summed over dim 0) that is 64 streams whose lines all
 * fall in one L1 and one L2 set, at 41% of STREAM against 68% here
 * (docs/runtime-reduce.md "Columns").
 *
 * Edge cases: rows < 32 leaves lanes without rows, pushed as -0 as
 * col_block adds them; NaN and infinity go through the same adds; columns
 * past the last whole chunk (16 columns at AVX-512, 8 at AVX2) take the
 * scalar form of the same order.
 */
#include "rt_colsum.h"

#include <stddef.h>

#include "plumb/runtime.h"
#include "rt_sum.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CS_X86 1
#else
#define CS_X86 0
#endif

_Static_assert(RT_SUM_LANES == 32, "the bit-reversed lane order below is for 32 lanes");

#if CS_X86
/* Lane k of the depth-first order: k's five bits reversed. */
static const unsigned char cs_lane_order[RT_SUM_LANES] = {
    0, 16, 8, 24, 4, 20, 12, 28, 2, 18, 10, 26, 6, 22, 14, 30,
    1, 17, 9, 25, 5, 21, 13, 29, 3, 19, 11, 27, 7, 23, 15, 31,
};

/* Columns per pass: the six stack rows of partial sums take 12 KiB of L1,
 * and each visit reads 1 KiB (f32) or 2 KiB (f64) of a row in one run. */
#define CS_STRIP 256
/* Rows (in visit order) between a row's read and its prefetch. */
#define CS_AHEAD 4

/* The scalar form, one column (the columns past the last whole chunk). */
static double cs_column(bool f64, const void *base, uint64_t rows, uint64_t stride, uint64_t j)
{
    double st[6];
    unsigned sp = 0;
    for (unsigned k = 0; k < RT_SUM_LANES; k++) {
        double a = -0.0;
        for (uint64_t r = cs_lane_order[k]; r < rows; r += RT_SUM_LANES)
            a = a + (f64 ? ((const double *)base)[r * stride + j] : (double)((const float *)base)[r * stride + j]);
        st[sp++] = a;
        for (unsigned c = k + 1; !(c & 1); c >>= 1, sp--)
            st[sp - 2] = st[sp - 2] + st[sp - 1];
    }
    return st[0];
}

/* The rows of a block in visit order: lane cs_lane_order[k]'s rows, in
 * increasing r, at vis[start[k]] .. vis[start[k + 1] - 1]. */
typedef struct cs_plan {
    uint16_t vis[RT_SUM_BLOCK];
    uint16_t start[RT_SUM_LANES + 1];
} cs_plan;

static void cs_plan_rows(cs_plan *pl, uint64_t rows)
{
    unsigned n = 0;
    for (unsigned k = 0; k < RT_SUM_LANES; k++) {
        pl->start[k] = (uint16_t)n;
        for (uint64_t r = cs_lane_order[k]; r < rows; r += RT_SUM_LANES) pl->vis[n++] = (uint16_t)r;
    }
    pl->start[RT_SUM_LANES] = (uint16_t)n;
}

/* A chunk of columns as two vectors of doubles, per level: 16 columns
 * (two zmm) at AVX-512, 8 (two ymm) at AVX2. */
typedef struct { __m512d a, b; } cs_v512;
#define CS_CW512 16
#define CS_TGT512 "avx512f"
#define CS_INL512 __attribute__((target("avx512f"), always_inline)) static inline
CS_INL512 cs_v512 cs_neg0_512(void) { cs_v512 v = {_mm512_set1_pd(-0.0), _mm512_set1_pd(-0.0)}; return v; }
CS_INL512 cs_v512 cs_ld_512(const double *p) { cs_v512 v = {_mm512_load_pd(p), _mm512_load_pd(p + 8)}; return v; }
CS_INL512 void cs_st_512(double *p, cs_v512 v) { _mm512_storeu_pd(p, v.a), _mm512_storeu_pd(p + 8, v.b); }
CS_INL512 cs_v512 cs_add_512(cs_v512 x, cs_v512 y) { x.a = _mm512_add_pd(x.a, y.a), x.b = _mm512_add_pd(x.b, y.b); return x; }
CS_INL512 cs_v512 cs_addf64_512(cs_v512 x, const double *p)
{
    x.a = _mm512_add_pd(x.a, _mm512_loadu_pd(p)), x.b = _mm512_add_pd(x.b, _mm512_loadu_pd(p + 8));
    return x;
}
CS_INL512 cs_v512 cs_addf32_512(cs_v512 x, const float *p)
{
    x.a = _mm512_add_pd(x.a, _mm512_cvtps_pd(_mm256_loadu_ps(p)));
    x.b = _mm512_add_pd(x.b, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)));
    return x;
}

typedef struct { __m256d a, b; } cs_v256;
#define CS_CW256 8
#define CS_TGT256 "avx2"
#define CS_INL256 __attribute__((target("avx2"), always_inline)) static inline
CS_INL256 cs_v256 cs_neg0_256(void) { cs_v256 v = {_mm256_set1_pd(-0.0), _mm256_set1_pd(-0.0)}; return v; }
CS_INL256 cs_v256 cs_ld_256(const double *p) { cs_v256 v = {_mm256_load_pd(p), _mm256_load_pd(p + 4)}; return v; }
CS_INL256 void cs_st_256(double *p, cs_v256 v) { _mm256_storeu_pd(p, v.a), _mm256_storeu_pd(p + 4, v.b); }
CS_INL256 cs_v256 cs_add_256(cs_v256 x, cs_v256 y) { x.a = _mm256_add_pd(x.a, y.a), x.b = _mm256_add_pd(x.b, y.b); return x; }
CS_INL256 cs_v256 cs_addf64_256(cs_v256 x, const double *p)
{
    x.a = _mm256_add_pd(x.a, _mm256_loadu_pd(p)), x.b = _mm256_add_pd(x.b, _mm256_loadu_pd(p + 4));
    return x;
}
CS_INL256 cs_v256 cs_addf32_256(cs_v256 x, const float *p)
{
    x.a = _mm256_add_pd(x.a, _mm256_cvtps_pd(_mm_loadu_ps(p)));
    x.b = _mm256_add_pd(x.b, _mm256_cvtps_pd(_mm_loadu_ps(p + 4)));
    return x;
}

/* One visit: chunks [0, w) of the m <= 2 rows at p[0], p[1] (element type
 * ET: float or double) added into the lane in progress, slot (from -0 when
 * first); when last, the lane is combined with the ncomb stack rows below
 * it (stack row + lane, the older operand first) and stored to dst. pf[0],
 * pf[1]: the rows read CS_AHEAD rows later, prefetched chunk by chunk. */
#define CS_VISIT(S, ET, M)                                                                          \
    for (uint64_t c = 0; c < w; c += CS_CW##S) {                                                   \
        for (int i = 0; i < (M); i++)                                                         \
            for (unsigned l = 0; l < CS_CW##S * sizeof(ET); l += 64)                               \
                _mm_prefetch((const char *)((const ET *)pf[i] + c) + l, _MM_HINT_T0);             \
        cs_v##S v = first ? cs_neg0_##S() : cs_ld_##S(slot + c);                                   \
        for (int i = 0; i < (M); i++) v = cs_add##ET##_##S(v, (const ET *)p[i] + c);          \
        if (last) {                                                                                \
            for (unsigned q = 1; q <= ncomb; q++) v = cs_add_##S(cs_ld_##S(slot - q * CS_STRIP + c), v); \
            cs_st_##S(dst + c, v);                                                                 \
        } else {                                                                                   \
            cs_st_##S(slot + c, v);                                                                \
        }                                                                                          \
    }

typedef float cs_f32;
typedef double cs_f64;
#define cs_addcs_f32_512 cs_addf32_512
#define cs_addcs_f64_512 cs_addf64_512
#define cs_addcs_f32_256 cs_addf32_256
#define cs_addcs_f64_256 cs_addf64_256

/* Columns [0, w) (w <= CS_STRIP, a multiple of the chunk) of the rows at
 * base (row r at base + r * rb bytes), in the documented order, to out.
 * Each lane's rows are read two at a time, a whole strip row each, into
 * the lane's partial sums in the stack (st, six rows of CS_STRIP doubles);
 * next (or NULL): where the next strip starts, for the prefetches of the
 * last rows. */
#define CS_DEFINE_STRIP(S, ET)                                                                     \
    __attribute__((target(CS_TGT##S))) static void cs_strip_##ET##_##S(                            \
        const unsigned char *base, size_t rb, uint64_t w, const cs_plan *pl, double *st, double *out, \
        const unsigned char *next)                                                                 \
    {                                                                                              \
        unsigned sp = 0, nv = pl->start[RT_SUM_LANES];                                             \
        for (unsigned k = 0; k < RT_SUM_LANES; k++) {                                              \
            unsigned ncomb = (unsigned)__builtin_ctz(k + 1u);                                      \
            unsigned g = pl->start[k], e = pl->start[k + 1];                                       \
            double *slot = st + (size_t)sp * CS_STRIP;                                             \
            double *dst = k + 1 == RT_SUM_LANES ? out : slot - (size_t)ncomb * CS_STRIP;           \
            bool first = true;                                                                     \
            do {                                                                                   \
                unsigned m = e - g < 2 ? e - g : 2;                                                \
                bool last = g + m >= e;                                                            \
                const unsigned char *p[2], *pf[2];                                                 \
                for (unsigned i = 0; i < m; i++) {                                                 \
                    unsigned f = g + i + CS_AHEAD;                                                 \
                    p[i] = base + pl->vis[g + i] * rb;                                             \
                    pf[i] = f < nv ? base + pl->vis[f] * rb : next && f - nv < nv ? next + pl->vis[f - nv] * rb : p[i]; \
                }                                                                                  \
                if (m == 2) { CS_VISIT(S, ET, 2) }                                                 \
                else if (m == 1) { CS_VISIT(S, ET, 1) }                                            \
                else { CS_VISIT(S, ET, 0) }                                                        \
                g += m, first = false;                                                             \
            } while (g < e);                                                                       \
            sp = sp - ncomb + 1;                                                                   \
        }                                                                                          \
    }
CS_DEFINE_STRIP(512, cs_f32)
CS_DEFINE_STRIP(512, cs_f64)
CS_DEFINE_STRIP(256, cs_f32)
CS_DEFINE_STRIP(256, cs_f64)
#endif

bool rt_colsum_block(bool f64, const void *base, uint64_t rows, uint64_t stride, uint64_t inner, double *out,
                     int lv)
{
#if CS_X86
    if (rows == 0 || rows > RT_SUM_BLOCK || (lv != PLUMB_ISA_AVX512 && lv != PLUMB_ISA_AVX2))
        return false;
    size_t es = f64 ? sizeof(double) : sizeof(float), rb = (size_t)stride * es;
    uint64_t cw = lv == PLUMB_ISA_AVX512 ? CS_CW512 : CS_CW256, whole = inner / cw * cw;
    cs_plan pl;
    _Alignas(64) double st[6 * CS_STRIP];
    cs_plan_rows(&pl, rows);
    const unsigned char *b = base;
    for (uint64_t j = 0; j < whole; j += CS_STRIP) {
        uint64_t w = whole - j < CS_STRIP ? whole - j : CS_STRIP;
        const unsigned char *s = b + j * es, *next = j + w < whole ? s + w * es : NULL;
        if (lv == PLUMB_ISA_AVX512) {
            if (f64) cs_strip_cs_f64_512(s, rb, w, &pl, st, out + j, next);
            else cs_strip_cs_f32_512(s, rb, w, &pl, st, out + j, next);
        } else {
            if (f64) cs_strip_cs_f64_256(s, rb, w, &pl, st, out + j, next);
            else cs_strip_cs_f32_256(s, rb, w, &pl, st, out + j, next);
        }
    }
    for (uint64_t j = whole; j < inner; j++)
        out[j] = cs_column(f64, base, rows, stride, j);
    return true;
#else
    /* no vector level: k_reduce.c's portable loops */
    (void)f64, (void)base, (void)rows, (void)stride, (void)inner, (void)out, (void)lv;
    return false;
#endif
}
