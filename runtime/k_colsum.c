/* Float column sums with each column's lanes in registers.
 *
 * Semantics: the documented order of a float column sum (rt_sum.h,
 * docs/runtime-reduce.md "Which loops may reorder"): within a block of at
 * most RT_SUM_BLOCK rows, row r is added to lane r % RT_SUM_LANES of its
 * column, each lane starting at -0 and taking its rows in increasing r; the
 * 32 lanes are then folded by halving (lane i += lane i + w for w = 16, 8,
 * 4, 2, 1). Every add is the same double add, with the same operands in
 * the same operand order, as k_reduce.c's col_block, so the bits are the
 * same at every level; tests/runtime/test_colsum.c checks them against it
 * and against a scalar model of the order.
 *
 * Why: col_block keeps the lanes of a whole strip as 32 rows of doubles
 * (1 MiB for 4096 columns) and passes over them once per input row and 31
 * times to fold them, four times the input's bytes in L2 traffic. Here the
 * halving fold is evaluated depth first: lane(i) for the 32 lanes in the
 * bit-reversed order 0, 16, 8, 24, ..., each finished lane pushed on a
 * stack of at most six partial sums and combined like a binary counter
 * (after the k-th lane, one add per trailing zero of k), which gives
 * exactly halving's tree: halving adds lane i and lane i + 16 first, then
 * those pairs i and i + 8, ... The stack lives in registers for a group of
 * 16 columns (AVX-512) or 8 (AVX2), so the input is read once and nothing
 * else touches memory. Each group reads one 64-byte piece of every row;
 * the rows are many streams a page or more apart, so each is prefetched
 * a few groups ahead.
 *
 * Edge cases: rows < 32 leaves lanes at -0, added as col_block adds them;
 * NaN and infinity go through the same adds; columns past the last whole
 * group take the scalar form of the same order.
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

/* Elements ahead of the current group that each row's prefetch asks for. */
#define CS_PREFETCH_BYTES 1024

/* The scalar form, one column (the tail of the vector loops). */
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

/* 16 columns of f32 rows from column j: two zmm of 8 doubles per lane. */
__attribute__((target("avx512f")))
static void cs_group_f32_avx512(const float *base, uint64_t rows, uint64_t stride, uint64_t j, double *out)
{
    __m512d sa[6], sb[6];
    unsigned sp = 0;
#pragma GCC unroll 32
    for (unsigned k = 0; k < RT_SUM_LANES; k++) {
        __m512d a = _mm512_set1_pd(-0.0), b = a;
        for (uint64_t r = cs_lane_order[k]; r < rows; r += RT_SUM_LANES) {
            const float *p = base + r * stride + j;
            _mm_prefetch((const char *)p + CS_PREFETCH_BYTES, _MM_HINT_T0);
            a = _mm512_add_pd(a, _mm512_cvtps_pd(_mm256_loadu_ps(p)));
            b = _mm512_add_pd(b, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)));
        }
        sa[sp] = a, sb[sp] = b, sp++;
        for (unsigned c = k + 1; !(c & 1); c >>= 1, sp--) {
            sa[sp - 2] = _mm512_add_pd(sa[sp - 2], sa[sp - 1]);
            sb[sp - 2] = _mm512_add_pd(sb[sp - 2], sb[sp - 1]);
        }
    }
    _mm512_storeu_pd(out + j, sa[0]);
    _mm512_storeu_pd(out + j + 8, sb[0]);
}

/* 16 columns of f64 rows from column j. */
__attribute__((target("avx512f")))
static void cs_group_f64_avx512(const double *base, uint64_t rows, uint64_t stride, uint64_t j, double *out)
{
    __m512d sa[6], sb[6];
    unsigned sp = 0;
#pragma GCC unroll 32
    for (unsigned k = 0; k < RT_SUM_LANES; k++) {
        __m512d a = _mm512_set1_pd(-0.0), b = a;
        for (uint64_t r = cs_lane_order[k]; r < rows; r += RT_SUM_LANES) {
            const double *p = base + r * stride + j;
            _mm_prefetch((const char *)p + CS_PREFETCH_BYTES, _MM_HINT_T0);
            _mm_prefetch((const char *)p + CS_PREFETCH_BYTES + 64, _MM_HINT_T0);
            a = _mm512_add_pd(a, _mm512_loadu_pd(p));
            b = _mm512_add_pd(b, _mm512_loadu_pd(p + 8));
        }
        sa[sp] = a, sb[sp] = b, sp++;
        for (unsigned c = k + 1; !(c & 1); c >>= 1, sp--) {
            sa[sp - 2] = _mm512_add_pd(sa[sp - 2], sa[sp - 1]);
            sb[sp - 2] = _mm512_add_pd(sb[sp - 2], sb[sp - 1]);
        }
    }
    _mm512_storeu_pd(out + j, sa[0]);
    _mm512_storeu_pd(out + j + 8, sb[0]);
}

/* 8 columns from column j: two ymm of 4 doubles per lane. */
__attribute__((target("avx2")))
static void cs_group_avx2(bool f64, const void *base, uint64_t rows, uint64_t stride, uint64_t j, double *out)
{
    __m256d sa[6], sb[6];
    unsigned sp = 0;
#pragma GCC unroll 32
    for (unsigned k = 0; k < RT_SUM_LANES; k++) {
        __m256d a = _mm256_set1_pd(-0.0), b = a;
        for (uint64_t r = cs_lane_order[k]; r < rows; r += RT_SUM_LANES) {
            if (f64) {
                const double *p = (const double *)base + r * stride + j;
                _mm_prefetch((const char *)p + CS_PREFETCH_BYTES, _MM_HINT_T0);
                a = _mm256_add_pd(a, _mm256_loadu_pd(p));
                b = _mm256_add_pd(b, _mm256_loadu_pd(p + 4));
            } else {
                const float *p = (const float *)base + r * stride + j;
                _mm_prefetch((const char *)p + CS_PREFETCH_BYTES, _MM_HINT_T0);
                a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm_loadu_ps(p)));
                b = _mm256_add_pd(b, _mm256_cvtps_pd(_mm_loadu_ps(p + 4)));
            }
        }
        sa[sp] = a, sb[sp] = b, sp++;
        for (unsigned c = k + 1; !(c & 1); c >>= 1, sp--) {
            sa[sp - 2] = _mm256_add_pd(sa[sp - 2], sa[sp - 1]);
            sb[sp - 2] = _mm256_add_pd(sb[sp - 2], sb[sp - 1]);
        }
    }
    _mm256_storeu_pd(out + j, sa[0]);
    _mm256_storeu_pd(out + j + 4, sb[0]);
}
#endif

bool rt_colsum_block(bool f64, const void *base, uint64_t rows, uint64_t stride, uint64_t inner, double *out,
                     int lv)
{
#if CS_X86
    if (rows == 0 || rows > RT_SUM_BLOCK || (lv != PLUMB_ISA_AVX512 && lv != PLUMB_ISA_AVX2))
        return false;
    uint64_t j = 0;
    if (lv == PLUMB_ISA_AVX512) {
        for (; j + 16 <= inner; j += 16) {
            if (f64) cs_group_f64_avx512(base, rows, stride, j, out);
            else cs_group_f32_avx512(base, rows, stride, j, out);
        }
    } else {
        for (; j + 8 <= inner; j += 8)
            cs_group_avx2(f64, base, rows, stride, j, out);
    }
    for (; j < inner; j++)
        out[j] = cs_column(f64, base, rows, stride, j);
    return true;
#else
    /* no vector level: k_reduce.c's portable loops */
    (void)f64, (void)base, (void)rows, (void)stride, (void)inner, (void)out, (void)lv;
    return false;
#endif
}
