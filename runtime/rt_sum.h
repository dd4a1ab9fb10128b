/* Block-at-a-time form of the deterministic float row sum (k_reduce.c), for
 * callers that produce the summed terms themselves (a fused row group
 * squaring values while it computes them) and must get the bits
 * rt_sum_f32 would give on the stored terms. */
#ifndef PLUMB_RT_SUM_H
#define PLUMB_RT_SUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Element i of a block goes to double lane i % RT_SUM_LANES. */
#define RT_SUM_LANES 32
#define RT_SUM_BLOCK 2048

/* Sums the terms of elements [start, start + n) of the row, n <= RT_SUM_BLOCK,
 * start a multiple of RT_SUM_BLOCK: lanes start at -0.0, element i is added
 * to lane i % RT_SUM_LANES in increasing i, and the lanes are folded with
 * rt_sum_fold_lanes. */
typedef double (*rt_sum_block_fn)(void *ctx, size_t start, size_t n);

/* One step of Neumaier's compensated sum: s + c holds the sum of the terms
 * added so far with an error below about 2u·|sum| + n·u²·Σ|x| (Higham,
 * §4.3), for the rare results computed again after an overflow (k_reduce.c
 * f64_rescaled_sum, k_dot.c rescued_dot), which must match the reference's
 * correctly rounded value and not just its bound. Once s is infinite or
 * NaN, c is left alone (s - t would be inf - inf); return s then, else
 * s + c. */
static inline void rt_csum_add(double *s, double *c, double x)
{
    double t = *s + x;
    if (t - t == 0.0) {   /* t is finite */
        double as = *s < 0 ? -*s : *s, ax = x < 0 ? -x : x;
        *c += as >= ax ? (*s - t) + x : (x - t) + *s;
    }
    *s = t;
}

/* f16/bf16 add reductions (k_reduce.c): a double sum of half-type terms
 * rounded to the half type rounds twice when an add rounds in double, and
 * an exact sum on a half-type midpoint plus a term below double's
 * resolution then ties to even where the reference's correctly rounded sum
 * rounds away. rt_two_add adds v to *hi and the add's exact error (Knuth's
 * TwoSum, no magnitude ordering) to *lo; once *hi is not finite only *hi
 * means anything. */
static inline void rt_two_add(double *hi, double *lo, double v)
{
    double a = *hi, s = a + v, bv = s - a;
    *lo += (a - (s - bv)) + (v - bv);
    *hi = s;
}

/* hi + lo rounded to odd in double (the TwoSum of the two, moved to the
 * odd neighbour on the exact value's side when inexact and even): rounding
 * it to a format of at most 51 significant bits rounds hi + lo once. With
 * lo == 0 it is hi, bit for bit (so -0 + -0 stays -0). */
static inline double rt_sum_odd(double hi, double lo)
{
    if (lo == 0 || hi - hi != 0)
        return hi;
    double s = hi + lo, bv = s - hi, e = (hi - (s - bv)) + (lo - bv);
    if (e == 0)
        return s;
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    if (bits & 1)
        return s;
    /* the exact value lies strictly between s and its neighbour toward e */
    bits += (e > 0) == (s > 0) ? 1 : -1;
    memcpy(&s, &bits, sizeof bits);
    return s;
}

/* Folds RT_SUM_LANES lane sums (overwritten) as the row sum does. */
double rt_sum_fold_lanes(double *lanes);
/* The row sum of n terms from per-block sums, folded in the tree rt_sum_f32
 * uses; -0.0 when n == 0. Every block is computed exactly once. */
double rt_sum_blocks(rt_sum_block_fn block, void *ctx, size_t n);

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The lanes in four AVX-512 registers (a[0] lanes 0-7, a[1] 8-15, a[2]
 * 16-23, a[3] 24-31), for the f32 row sums at the AVX-512 level
 * (k_reduce.c, fusion_exec.c's one-pass sums): the same additions as the lane
 * array and rt_sum_fold_lanes, without storing the lanes and reloading
 * them one by one (the fold was 5% of layer_norm: the wide stores did not
 * forward to the narrow loads). Callers run only after rt_isa chose
 * AVX-512. */
#define RT_SUM_X16 static inline __attribute__((target("avx512f"), always_inline, unused))

RT_SUM_X16 void rt_sum_lanes_init(__m512d *a)
{
    for (unsigned k = 0; k < 4; k++)
        a[k] = _mm512_set1_pd(-0.0);
}

/* 32 terms: v0 elements 0-15, v1 16-31, each to its lane */
RT_SUM_X16 void rt_sum_lanes_add32(__m512d *a, __m512 v0, __m512 v1)
{
    a[0] = _mm512_add_pd(a[0], _mm512_cvtps_pd(_mm512_castps512_ps256(v0)));
    a[1] = _mm512_add_pd(a[1], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v0), 1))));
    a[2] = _mm512_add_pd(a[2], _mm512_cvtps_pd(_mm512_castps512_ps256(v1)));
    a[3] = _mm512_add_pd(a[3], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v1), 1))));
}

/* k < 32 terms t[0..k) to lanes 0..k-1; the other lanes keep their sums */
RT_SUM_X16 void rt_sum_lanes_add_tail(__m512d *a, const float *t, size_t k)
{
    __mmask16 m0 = (__mmask16)(k >= 16 ? 0xFFFFu : (1u << k) - 1u);
    __mmask16 m1 = (__mmask16)(k > 16 ? (1u << (k - 16)) - 1u : 0u);
    __m512 v0 = _mm512_maskz_loadu_ps(m0, t), v1 = _mm512_maskz_loadu_ps(m1, t + 16);
    a[0] = _mm512_mask_add_pd(a[0], (__mmask8)m0, a[0], _mm512_cvtps_pd(_mm512_castps512_ps256(v0)));
    a[1] = _mm512_mask_add_pd(a[1], (__mmask8)(m0 >> 8), a[1],
                              _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v0), 1))));
    a[2] = _mm512_mask_add_pd(a[2], (__mmask8)m1, a[2], _mm512_cvtps_pd(_mm512_castps512_ps256(v1)));
    a[3] = _mm512_mask_add_pd(a[3], (__mmask8)(m1 >> 8), a[3],
                              _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v1), 1))));
}

/* rt_sum_fold_lanes' tree: lane i + lane i+16 (i < 16), then + i+8 (i < 8),
 * + i+4, + i+2, + i+1, each sum's first operand the lower lane */
RT_SUM_X16 double rt_sum_lanes_fold(const __m512d *a)
{
    __m512d b0 = _mm512_add_pd(a[0], a[2]), b1 = _mm512_add_pd(a[1], a[3]);
    __m512d c = _mm512_add_pd(b0, b1);
    __m256d d = _mm256_add_pd(_mm512_castpd512_pd256(c), _mm512_extractf64x4_pd(c, 1));
    __m128d e = _mm_add_pd(_mm256_castpd256_pd128(d), _mm256_extractf128_pd(d, 1));
    return _mm_cvtsd_f64(_mm_add_sd(e, _mm_unpackhi_pd(e, e)));
}
#endif

#endif
