/* stablehlo.reduce and the deterministic row reductions.
 *
 * Recognised bodies (one input, `return op(a, b)` of the two arguments in
 * either order: add, multiply, maximum, minimum, and, or, xor) take fast
 * paths (the exact ones as vector loops, docs/runtime-reduce.md);
 * every other body is interpreted through rt_eval_region in the
 * reference's order (init, then the reduced indices in row-major order), so
 * argmax/argmin bodies return the same index and the same NaN.
 *
 * Float sums accumulate in double whatever the element type, in an order
 * that is a fixed function of the row length alone (RT_SUM_LANES strided
 * lanes per block of RT_SUM_BLOCK elements, lanes folded as a tree, blocks
 * folded pairwise), identical in the portable and vector code, so results
 * are bitwise identical across thread counts and ISA levels. Double
 * accumulation of f32 terms cannot overflow and errs by far less than the
 * f32 bound gamma(n-1)*sum|x| + u*|exact| (DESIGN.md); the result is
 * rounded once to the element type. Lanes start at -0, the additive
 * identity, so an all -0 sum stays -0 as in the reference. f64 sums use the
 * same order in double (pairwise error growth, O(log n) instead of n).
 * An f64 sum that comes out NaN or infinite is summed again with its terms
 * scaled by 2^-64 and compensated (f64_rescaled_sum), so that partial sums overflowing in
 * opposite lanes do not turn an exact ±inf into NaN or a finite sum into an
 * infinity (docs/runtime-reduce.md, "Overflow").
 *
 * Column sums (reduced dimension followed by kept ones) run the same
 * pairwise scheme over rows, vectorised across the kept columns; the exact
 * column folds take eight whole rows per pass into a row of accumulators,
 * in strips of columns that the threads share (docs/runtime-reduce.md,
 * "Columns").
 * max/min, integer and boolean reductions are exact in any order. Float
 * products accumulate in long double (64-bit significand, 15-bit exponent:
 * no intermediate overflow in practice) and round once. */
#include <math.h>
#include <string.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "rt_argfold.h"
#include "rt_internal.h"
#include "rt_lowp.h"
#include "rt_colsum.h"
#include "rt_sum.h"
#include "rt_target.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#else
#define RT_X86 0
#endif

/* Bytes of accumulators per column strip of the exact folds (and the
 * vector loops' column block), the unit the threads share: 16 KiB stay in
 * L1 and make the 4096 f32 columns of a square 4096 matrix one strip, read
 * row after row in order. Narrower strips read part of each row per pass
 * and lose the prefetch at the row's jump: on the broad suite's 4096x4096
 * column max, one thread, 4 KiB strips took 4.7-5.5 ms where 16 KiB took
 * 4.2-4.3 (four rows per pass), and splitting the 16 KiB strip into four
 * or two for the threads' sake cost 3.9 or 3.5-3.9 ms against 3.3-3.4
 * (eight rows per pass). So one slice narrower than a strip runs on one
 * thread. */
#ifndef RV_STRIP_BYTES
#define RV_STRIP_BYTES 16384
#endif
#define RV_COL_BLOCK RV_STRIP_BYTES

typedef enum red_kind { RK_GENERIC, RK_ADD, RK_MUL, RK_MAX, RK_MIN, RK_AND, RK_OR, RK_XOR } red_kind;

/* ---- row sums in double ------------------------------------------------------- */

/* Loads element i of a float row as double. */
typedef enum { EL_F32, EL_F64, EL_F16, EL_BF16 } el_kind;

static inline double ld(el_kind k, const void *p, size_t i)
{
    switch (k) {
    case EL_F32: return ((const float *)p)[i];
    case EL_F64: return ((const double *)p)[i];
    case EL_F16: return plumb_f16_to_f64(((const uint16_t *)p)[i]);
    default: return plumb_f32_from_bits((uint32_t)((const uint16_t *)p)[i] << 16);
    }
}

double rt_sum_fold_lanes(double *l)
{
    for (unsigned w = RT_SUM_LANES / 2; w >= 1; w /= 2)
        for (unsigned i = 0; i < w; i++)
            l[i] = l[i] + l[i + w];
    return l[0];
}

/* One block (n <= RT_SUM_BLOCK): element i goes to lane i % RT_SUM_LANES. */
static double block_sum_portable(el_kind k, const void *p, size_t n)
{
    double l[RT_SUM_LANES];
    for (unsigned i = 0; i < RT_SUM_LANES; i++) l[i] = -0.0;
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES)
        for (unsigned j = 0; j < RT_SUM_LANES; j++)
            l[j] = l[j] + ld(k, p, i + j);
    for (unsigned j = 0; i + j < n; j++)
        l[j] = l[j] + ld(k, p, i + j);
    return rt_sum_fold_lanes(l);
}

#if RT_X86
/* The same lanes as block_sum_portable, 4 x 8 doubles per zmm group. */
__attribute__((target("avx512f")))
static double block_sum_f32_avx512(const float *p, size_t n)
{
    __m512d a[4];
    rt_sum_lanes_init(a);
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        /* eight floats per load straight into the conversion: no lane
         * extraction (same lanes, same order) */
        a[0] = _mm512_add_pd(a[0], _mm512_cvtps_pd(_mm256_loadu_ps(p + i)));
        a[1] = _mm512_add_pd(a[1], _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 8)));
        a[2] = _mm512_add_pd(a[2], _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 16)));
        a[3] = _mm512_add_pd(a[3], _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 24)));
    }
    if (i < n)
        rt_sum_lanes_add_tail(a, p + i, n - i);
    return rt_sum_lanes_fold(a);
}

__attribute__((target("avx512f")))
static double block_sum_f64_avx512(const double *p, size_t n)
{
    __m512d a0 = _mm512_set1_pd(-0.0), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        a0 = _mm512_add_pd(a0, _mm512_loadu_pd(p + i));
        a1 = _mm512_add_pd(a1, _mm512_loadu_pd(p + i + 8));
        a2 = _mm512_add_pd(a2, _mm512_loadu_pd(p + i + 16));
        a3 = _mm512_add_pd(a3, _mm512_loadu_pd(p + i + 24));
    }
    double l[RT_SUM_LANES];
    _mm512_storeu_pd(l, a0);
    _mm512_storeu_pd(l + 8, a1);
    _mm512_storeu_pd(l + 16, a2);
    _mm512_storeu_pd(l + 24, a3);
    for (unsigned j = 0; i + j < n; j++)
        l[j] = l[j] + p[i + j];
    return rt_sum_fold_lanes(l);
}

/* f16 and bf16 widen exactly to f32 (F16C's conversion keeps subnormals and
 * NaN payloads; a bf16 pattern is the top half of an f32's) and from there
 * to double, so these loops add the same doubles to the same lanes in the
 * same order as block_sum_portable. */
__attribute__((target("avx512f,f16c")))
static inline __m512d cvt8_avx512(el_kind k, const void *p, size_t i)
{
    __m128i h = _mm_loadu_si128((const __m128i *)((const uint16_t *)p + i));
    __m256 f = k == EL_F16 ? _mm256_cvtph_ps(h)
                           : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    return _mm512_cvtps_pd(f);
}

__attribute__((target("avx512f,f16c")))
static double block_sum_half_avx512(el_kind k, const void *p, size_t n)
{
    __m512d a0 = _mm512_set1_pd(-0.0), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        a0 = _mm512_add_pd(a0, cvt8_avx512(k, p, i));
        a1 = _mm512_add_pd(a1, cvt8_avx512(k, p, i + 8));
        a2 = _mm512_add_pd(a2, cvt8_avx512(k, p, i + 16));
        a3 = _mm512_add_pd(a3, cvt8_avx512(k, p, i + 24));
    }
    double l[RT_SUM_LANES];
    _mm512_storeu_pd(l, a0);
    _mm512_storeu_pd(l + 8, a1);
    _mm512_storeu_pd(l + 16, a2);
    _mm512_storeu_pd(l + 24, a3);
    for (unsigned j = 0; i + j < n; j++)
        l[j] = l[j] + ld(k, p, i + j);
    return rt_sum_fold_lanes(l);
}

/* Four doubles from element i of any float row, exactly. */
__attribute__((target("avx2,f16c")))
static inline __m256d cvt4_avx2(el_kind k, const void *p, size_t i)
{
    switch (k) {
    case EL_F32: return _mm256_cvtps_pd(_mm_loadu_ps((const float *)p + i));
    case EL_F64: return _mm256_loadu_pd((const double *)p + i);
    case EL_F16: return _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)((const uint16_t *)p + i))));
    default:
        return _mm256_cvtps_pd(_mm_castsi128_ps(
            _mm_slli_epi32(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)((const uint16_t *)p + i))), 16)));
    }
}

/* The same 32 lanes as block_sum_portable in 8 ymm of 4 doubles. */
__attribute__((target("avx2,f16c")))
static double block_sum_avx2(el_kind k, const void *p, size_t n)
{
    __m256d a[8];
    for (unsigned q = 0; q < 8; q++) a[q] = _mm256_set1_pd(-0.0);
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES)
        for (unsigned q = 0; q < 8; q++)
            a[q] = _mm256_add_pd(a[q], cvt4_avx2(k, p, i + 4 * q));
    double l[RT_SUM_LANES];
    for (unsigned q = 0; q < 8; q++) _mm256_storeu_pd(l + 4 * q, a[q]);
    for (unsigned j = 0; i + j < n; j++)
        l[j] = l[j] + ld(k, p, i + j);
    return rt_sum_fold_lanes(l);
}

/* l[j] = l[j] + (double)src[j], j < n: independent per j, so any width
 * gives the portable loop's bits. */
__attribute__((target("avx512f,f16c")))
static void add_row_avx512(el_kind k, double *l, const void *src, size_t n)
{
    size_t j = 0;
    if (k == EL_F32)
        for (; j + 8 <= n; j += 8)
            _mm512_storeu_pd(l + j, _mm512_add_pd(_mm512_loadu_pd(l + j), _mm512_cvtps_pd(_mm256_loadu_ps((const float *)src + j))));
    else if (k == EL_F64)
        for (; j + 8 <= n; j += 8)
            _mm512_storeu_pd(l + j, _mm512_add_pd(_mm512_loadu_pd(l + j), _mm512_loadu_pd((const double *)src + j)));
    else
        for (; j + 8 <= n; j += 8)
            _mm512_storeu_pd(l + j, _mm512_add_pd(_mm512_loadu_pd(l + j), cvt8_avx512(k, src, j)));
    for (; j < n; j++) l[j] = l[j] + ld(k, src, j);
}

__attribute__((target("avx2,f16c")))
static void add_row_avx2(el_kind k, double *l, const void *src, size_t n)
{
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        _mm256_storeu_pd(l + j, _mm256_add_pd(_mm256_loadu_pd(l + j), cvt4_avx2(k, src, j)));
    for (; j < n; j++) l[j] = l[j] + ld(k, src, j);
}

/* The level the vector loops of this file may use: the run's level capped
 * by what the CPU has (a negative isa: the CPU's best). */
static int cpu_level = -1;   /* read and written atomically: pool threads may race to set it */
static int vec_level(int isa)
{
    int lv = __atomic_load_n(&cpu_level, __ATOMIC_RELAXED);
    if (lv < 0) {
        __builtin_cpu_init();
        bool f16c = rt_cpu_has_f16c();
        if (f16c && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
            lv = PLUMB_ISA_AVX512;
        else if (f16c && __builtin_cpu_supports("avx2"))
            lv = PLUMB_ISA_AVX2;
        else
            lv = PLUMB_ISA_PORTABLE;
        __atomic_store_n(&cpu_level, lv, __ATOMIC_RELAXED);
    }
    return isa < 0 || isa > lv ? lv : isa;
}
#endif

/* ISA level < 0: decide from the CPU (the order is the same at every
 * level anyway). */
static double block_sum(el_kind k, const void *p, size_t n, int isa)
{
#if RT_X86
    int lv = vec_level(isa);
    if (lv == PLUMB_ISA_AVX512) {
        if (k == EL_F32) return block_sum_f32_avx512(p, n);
        if (k == EL_F64) return block_sum_f64_avx512(p, n);
        return block_sum_half_avx512(k, p, n);
    }
    if (lv == PLUMB_ISA_AVX2) return block_sum_avx2(k, p, n);
#else
    (void)isa;
#endif
    return block_sum_portable(k, p, n);
}

/* Pairwise fold of block partials [0, nb): split at the largest power of two
 * below nb, a function of nb only. */
static double fold_blocks(const double *b, size_t nb)
{
    if (nb == 1) return b[0];
    size_t h = 1;
    while (h * 2 < nb) h *= 2;
    return fold_blocks(b, h) + fold_blocks(b + h, nb - h);
}

static size_t el_size(el_kind k) { return k == EL_F64 ? 8 : k == EL_F32 ? 4 : 2; }

/* The sum of n f64 terms (stride apart) when the lanes' sum came out NaN
 * or infinite: in index order with every term scaled by 2^-64, so no
 * partial sum can overflow (|x|·2^-64 <= 2^960 and n < 2^63), compensated
 * (rt_csum_add) so that it is the correctly rounded sum but for rare ties
 * and cancellations beyond 2^53, then scaled back, overflowing only when
 * the sum itself does: the reference's result. Infinities and NaNs among
 * the terms combine as in the exact sum (an infinity wins, +inf with -inf
 * or a NaN gives NaN). Terms below 2^-1010 lose bits to the scaling: at
 * most n·2^-1011 in all, far inside γ(n)·Σ|x|, which is at least
 * 2^-53·2^1023 whenever a partial sum overflowed. A fixed order, so the
 * bits do not depend on threads or ISA, like the lane sum's. */
static double f64_rescaled_sum(const double *v, size_t n, size_t stride)
{
    double s = -0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) rt_csum_add(&s, &c, v[i * stride] * 0x1p-64);
    if (s - s == 0.0) s += c;
    return s * 0x1p64;
}

static double f64_checked(double lanes_sum, const double *v, size_t n, size_t stride)
{
    return isfinite(lanes_sum) ? lanes_sum : f64_rescaled_sum(v, n, stride);
}

/* f16/bf16 add reductions round init + the double lane sum to the half
 * type: two roundings when an add rounded in double (exact -> double ->
 * half), which can tie to even where the exact sum lies just off a
 * half-type midpoint. f16 terms are multiples of 2^-24 below 2^16, so with
 * at most 8192 of them (init included) every partial sum is a multiple of
 * 2^-24 below 2^29 and exact in double: those keep the fast sum. Other
 * half sums go through half_csum. */
static bool half_comp(el_kind k, uint64_t n)
{
    return k == EL_BF16 || (k == EL_F16 && n >= 8192);
}

/* init + the n terms stride apart, for half_comp sums: RT_SUM_LANES lanes
 * of TwoSum pairs (rt_two_add), init then the lanes folded the same way,
 * rounded to odd (rt_sum_odd), so rounding the result to the half type is
 * the correctly rounded sum unless the errors' own double sum loses a
 * residue's sign (terms spanning more than about 2 x 53 binades). Where no
 * add rounds it is the exact sum, the fast path's bits. */
#if RT_X86
/* half_csum's whole groups of 32 contiguous terms at AVX-512: the same
 * TwoSum operations on the same lanes (IEEE adds, no contraction), so the
 * same bits; returns the terms consumed. */
__attribute__((target("avx512f,f16c")))
static size_t half_csum_avx512(el_kind k, const void *p, size_t n, double *h, double *l)
{
    __m512d hv[4], lv[4];
    for (unsigned q = 0; q < 4; q++) hv[q] = _mm512_loadu_pd(h + 8 * q), lv[q] = _mm512_loadu_pd(l + 8 * q);
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES)
        for (unsigned q = 0; q < 4; q++) {
            __m512d t = cvt8_avx512(k, p, i + 8 * q), a = hv[q], sv = _mm512_add_pd(a, t);
            __m512d bv = _mm512_sub_pd(sv, a);
            __m512d e = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(sv, bv)), _mm512_sub_pd(t, bv));
            lv[q] = _mm512_add_pd(lv[q], e);
            hv[q] = sv;
        }
    for (unsigned q = 0; q < 4; q++) _mm512_storeu_pd(h + 8 * q, hv[q]), _mm512_storeu_pd(l + 8 * q, lv[q]);
    return i;
}
#endif

static double half_csum(el_kind k, const void *p, size_t n, size_t stride, double init, int isa)
{
    double h[RT_SUM_LANES], l[RT_SUM_LANES];
    for (unsigned j = 0; j < RT_SUM_LANES; j++) h[j] = -0.0, l[j] = 0.0;
    size_t i = 0;
#if RT_X86
    if (stride == 1 && vec_level(isa) == PLUMB_ISA_AVX512)
        i = half_csum_avx512(k, p, n, h, l);
#else
    (void)isa;
#endif
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        /* the terms first, then the TwoSums as straight-line array code
         * the compiler vectorises */
        double t[RT_SUM_LANES];
        for (unsigned j = 0; j < RT_SUM_LANES; j++) t[j] = ld(k, p, (i + j) * stride);
        for (unsigned j = 0; j < RT_SUM_LANES; j++) {
            double a = h[j], sj = a + t[j], bv = sj - a;
            l[j] += (a - (sj - bv)) + (t[j] - bv);
            h[j] = sj;
        }
    }
    for (unsigned j = 0; i + j < n; j++)
        rt_two_add(&h[j], &l[j], ld(k, p, (i + j) * stride));
    double hi = init, lo = 0.0;
    for (unsigned j = 0; j < RT_SUM_LANES; j++) {
        rt_two_add(&hi, &lo, h[j]);
        lo += l[j];
    }
    return rt_sum_odd(hi, lo);
}

/* ---- exact half sums ----------------------------------------------------------------
 * A finite f16/bf16 term is an integer multiple of the lsb of its binade,
 * 2^(max(E,1) - bias - mant) for exponent field E (mant 10 for f16, 7 for
 * bf16), and lies below 2^(max(E,1) - bias + 1). If the smallest nonzero
 * term's lsb is 2^q and the N terms (init included) lie below 2^t, every
 * partial sum of any subset of them is a multiple of 2^q below N·2^t; when
 * N·2^t <= 2^(q+53) every such value is a double, so double adds in any
 * order are exact and the sum rounded once is the correctly rounded sum,
 * the reference's (ref/accum.h: its double-double is exact then too). The
 * vector loops sum in double lanes in one pass that also keeps the
 * largest magnitude pattern (for t) and the smallest nonzero one (for q,
 * as magnitude - 1 wrapped, so zeros drop out as 0xffff); rows whose
 * range fails the test (or holding inf/NaN) take half_csum. Typical rows
 * pass: softmax's exponentials span 2^-24..1 in 1024 terms with room to
 * spare. The exactness makes the order free, so the blocks of one long
 * row may be summed on any thread and combined in any order. */
typedef struct half_stats {
    unsigned mx;     /* largest (bits & 0x7fff) */
    unsigned mnm1;   /* smallest ((bits & 0x7fff) - 1) mod 2^16: 0xffff when every term is ±0 */
} half_stats;

static inline void half_stats_add(half_stats *s, unsigned bits)
{
    unsigned m = bits & 0x7fffu, m1 = (m - 1u) & 0xffffu;
    if (m > s->mx) s->mx = m;
    if (m1 < s->mnm1) s->mnm1 = m1;
}

static inline void half_stats_merge(half_stats *s, const half_stats *o)
{
    if (o->mx > s->mx) s->mx = o->mx;
    if (o->mnm1 < s->mnm1) s->mnm1 = o->mnm1;
}

/* Whether double adds of nterms terms with these stats are exact (above). */
static bool half_exact_ok(el_kind k, const half_stats *s, uint64_t nterms)
{
    unsigned inf = k == EL_F16 ? 0x7c00u : 0x7f80u, sh = k == EL_F16 ? 10 : 7;
    if (s->mx >= inf) return false;          /* inf or NaN: half_csum's special handling */
    if (s->mnm1 == 0xffffu) return true;    /* only zeros: -0 + -0 = -0, else +0, as exact */
    int emx = (int)(s->mx >> sh), emn = (int)((s->mnm1 + 1u) >> sh);
    if (emx < 1) emx = 1;
    if (emn < 1) emn = 1;
    int lg = 0;
    while (lg < 64 && ((uint64_t)1 << lg) < nterms) lg++;
    /* N·2^t <= 2^(q+53) with t = emx - bias + 1, q = emn - bias - mant */
    return lg + emx + 1 <= emn - (int)sh + 53;
}

static double half_xsum_portable(el_kind k, const uint16_t *p, size_t n, half_stats *st)
{
    double s = -0.0;
    for (size_t i = 0; i < n; i++) {
        half_stats_add(st, p[i]);
        s += ld(k, p, i);
    }
    return s;
}

#if RT_X86
__attribute__((target("avx512f,avx512bw,f16c")))
static inline __m512 half16_to_ps(el_kind k, __m256i h)
{
    return k == EL_F16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* 64 terms per step into two sets of 4 double accumulators (8 adds in
 * flight), then 32 more if left, then the tail loaded masked with -0
 * (0x8000, the sum's identity and neutral for the stats). The two sets are
 * named registers: an earlier form picked the set through a pointer per
 * step, which kept all eight in memory (perf annotate of layer_norm_bf16:
 * the accumulator stores and the adds waiting on them were half of this
 * loop's samples). The sum is used only when half_exact_ok holds, when
 * every partial sum is exact, so the grouping of the terms is free. */
__attribute__((target("avx512f,avx512bw,f16c"), always_inline))
static inline void half_xsum_step32(el_kind k, __m512i h, __m512d *acc, __m512i *vmx, __m512i *vmn)
{
    __m512i mg = _mm512_and_si512(h, _mm512_set1_epi16(0x7fff));
    *vmx = _mm512_max_epu16(*vmx, mg);
    *vmn = _mm512_min_epu16(*vmn, _mm512_sub_epi16(mg, _mm512_set1_epi16(1)));
    /* bf16: unpacking with zero words gives each term's f32 value (its
     * pattern in the high half) in two instructions for the 32 terms,
     * in an interleaved order, which the exact sum does not see */
    __m512 f0 = k == EL_BF16 ? _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), h))
                             : half16_to_ps(k, _mm512_castsi512_si256(h));
    __m512 f1 = k == EL_BF16 ? _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), h))
                             : half16_to_ps(k, _mm512_extracti64x4_epi64(h, 1));
    acc[0] = _mm512_add_pd(acc[0], _mm512_cvtps_pd(_mm512_castps512_ps256(f0)));
    acc[1] = _mm512_add_pd(acc[1], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f0), 1))));
    acc[2] = _mm512_add_pd(acc[2], _mm512_cvtps_pd(_mm512_castps512_ps256(f1)));
    acc[3] = _mm512_add_pd(acc[3], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f1), 1))));
}

__attribute__((target("avx512f,avx512bw,f16c")))
static double half_xsum_avx512(el_kind k, const uint16_t *p, size_t n, half_stats *st)
{
    __m512d a[4], b[4];
    for (unsigned q = 0; q < 4; q++) a[q] = b[q] = _mm512_set1_pd(-0.0);
    __m512i vmx = _mm512_setzero_si512(), vmn = _mm512_set1_epi16(-1);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        half_xsum_step32(k, _mm512_loadu_si512((const void *)(p + i)), a, &vmx, &vmn);
        half_xsum_step32(k, _mm512_loadu_si512((const void *)(p + i + 32)), b, &vmx, &vmn);
    }
    if (i + 32 <= n) {
        half_xsum_step32(k, _mm512_loadu_si512((const void *)(p + i)), a, &vmx, &vmn);
        i += 32;
    }
    if (i < n) {
        __mmask32 m = (__mmask32)((1ull << (n - i)) - 1);
        half_xsum_step32(k, _mm512_mask_loadu_epi16(_mm512_set1_epi16((short)0x8000), m, p + i), b, &vmx, &vmn);
    }
    uint16_t mx[32], mn[32];
    _mm512_storeu_si512((void *)mx, vmx);
    _mm512_storeu_si512((void *)mn, vmn);
    for (unsigned j = 0; j < 32; j++) {
        if (mx[j] > st->mx) st->mx = mx[j];
        if (mn[j] < st->mnm1) st->mnm1 = mn[j];
    }
    __m512d s = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a[0], b[0]), _mm512_add_pd(a[1], b[1])),
                              _mm512_add_pd(_mm512_add_pd(a[2], b[2]), _mm512_add_pd(a[3], b[3])));
    return _mm512_reduce_add_pd(s);
}

/* 16 terms per step into 4 double accumulators, a scalar tail */
__attribute__((target("avx2,f16c")))
static double half_xsum_avx2(el_kind k, const uint16_t *p, size_t n, half_stats *st)
{
    __m256d a[4];
    for (unsigned q = 0; q < 4; q++) a[q] = _mm256_set1_pd(-0.0);
    const __m256i mag = _mm256_set1_epi16(0x7fff), one = _mm256_set1_epi16(1);
    __m256i vmx = _mm256_setzero_si256(), vmn = _mm256_set1_epi16(-1);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i mg = _mm256_and_si256(h, mag);
        vmx = _mm256_max_epu16(vmx, mg);
        vmn = _mm256_min_epu16(vmn, _mm256_sub_epi16(mg, one));
        __m128i h0 = _mm256_castsi256_si128(h), h1 = _mm256_extracti128_si256(h, 1);
        __m256 f0 = k == EL_F16 ? _mm256_cvtph_ps(h0) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h0), 16));
        __m256 f1 = k == EL_F16 ? _mm256_cvtph_ps(h1) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h1), 16));
        a[0] = _mm256_add_pd(a[0], _mm256_cvtps_pd(_mm256_castps256_ps128(f0)));
        a[1] = _mm256_add_pd(a[1], _mm256_cvtps_pd(_mm256_extractf128_ps(f0, 1)));
        a[2] = _mm256_add_pd(a[2], _mm256_cvtps_pd(_mm256_castps256_ps128(f1)));
        a[3] = _mm256_add_pd(a[3], _mm256_cvtps_pd(_mm256_extractf128_ps(f1, 1)));
    }
    uint16_t mx[16], mn[16];
    _mm256_storeu_si256((__m256i *)mx, vmx);
    _mm256_storeu_si256((__m256i *)mn, vmn);
    for (unsigned j = 0; j < 16; j++) {
        if (mx[j] > st->mx) st->mx = mx[j];
        if (mn[j] < st->mnm1) st->mnm1 = mn[j];
    }
    double l[4];
    _mm256_storeu_pd(l, _mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3])));
    double s = (l[0] + l[1]) + (l[2] + l[3]);
    return s + half_xsum_portable(k, p + i, n - i, st);
}
#endif

/* The double sum of n contiguous half terms (exact when half_exact_ok
 * holds for the merged stats), their stats merged into st. */
static double half_xsum(el_kind k, const void *p, size_t n, half_stats *st, int isa)
{
    if (n == 0) return 0.0;   /* p may be NULL for an empty operand */
#if RT_X86
    int lv = vec_level(isa);
    if (lv == PLUMB_ISA_AVX512) return half_xsum_avx512(k, p, n, st);
    if (lv == PLUMB_ISA_AVX2) return half_xsum_avx2(k, p, n, st);
#else
    (void)isa;
#endif
    return half_xsum_portable(k, p, n, st);
}

/* init + the n contiguous terms for a half_comp sum, to be rounded once to
 * the half type: the exact double sum where half_exact_ok allows, else
 * half_csum (which gives the same value whenever the sum is exact). */
static double half_row_sum(el_kind k, const void *p, size_t n, unsigned init_bits, int isa)
{
    half_stats st = {0, 0xffffu};
    half_stats_add(&st, init_bits);
    double init = plumb_load_f64(k == EL_F16 ? PLUMB_F16 : PLUMB_BF16, &(uint16_t){(uint16_t)init_bits}, 0);
    double s = half_xsum(k, p, n, &st, isa);
    if (half_exact_ok(k, &st, (uint64_t)n + 1))
        return init + s;
    return half_csum(k, p, n, 1, init, isa);
}

/* Sum of a row without a run context: blocks in sequence, partials folded
 * on the stack in the same tree as fold_blocks. */
static double row_sum(el_kind k, const void *p, size_t n, int isa)
{
    if (n <= RT_SUM_BLOCK) return n ? block_sum(k, p, n, isa) : -0.0;
    size_t nb = (n + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK;
    size_t h = 1;
    while (h * 2 < nb) h *= 2;
    size_t split = h * RT_SUM_BLOCK;
    return row_sum(k, p, split, isa) + row_sum(k, (const unsigned char *)p + split * el_size(k), n - split, isa);
}

/* The same tree as row_sum, over blocks the caller computes. */
static double blocks_sum(rt_sum_block_fn block, void *ctx, size_t start, size_t n)
{
    if (n <= RT_SUM_BLOCK) return block(ctx, start, n);
    size_t nb = (n + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK;
    size_t h = 1;
    while (h * 2 < nb) h *= 2;
    size_t split = h * RT_SUM_BLOCK;
    double lo = blocks_sum(block, ctx, start, split);
    return lo + blocks_sum(block, ctx, start + split, n - split);
}

double rt_sum_blocks(rt_sum_block_fn block, void *ctx, size_t n)
{
    return n ? blocks_sum(block, ctx, 0, n) : -0.0;
}

float rt_sum_f32(const float *v, size_t n, plumb_isa isa) { return (float)row_sum(EL_F32, v, n, (int)isa); }
double rt_sum_f64(const double *v, size_t n, plumb_isa isa)
{
    return f64_checked(row_sum(EL_F64, v, n, (int)isa), v, n, 1);
}

static inline float fmax_ieee(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* With a NaN in the row the result is the first NaN in row order, as
 * the reduce kernel's sequential fold gives (callers quiet it the way the
 * kernel's round trip through double does). */
static float max_f32_seq(const float *v, size_t n)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != v[i])
            return v[i];
        m = fmax_ieee(m, v[i]);
    }
    return m;
}

#if RT_X86
/* Without NaNs the IEEE maximum (-0 < +0) of a set is one value whatever
 * the order, and it is the integer maximum of the bit patterns mapped to
 * ordered integers (negative floats mirrored below zero, -0 -> -1 < +0 -> 0),
 * an associative exact operation. Returns false when the row holds a NaN. */
__attribute__((target("avx512f")))
static bool max_f32_avx512(const float *v, size_t n, float *out)
{
    const __m512i mag = _mm512_set1_epi32(0x7fffffff);
    __m512i m0 = _mm512_set1_epi32(INT32_MIN), m1 = m0, m2 = m0, m3 = m0;
    __mmask16 nan = 0;
    size_t i = 0;
#define RT_MAP(x) _mm512_xor_si512(x, _mm512_and_si512(_mm512_srai_epi32(x, 31), mag))
    for (; i + 64 <= n; i += 64) {
        __m512 a = _mm512_loadu_ps(v + i), b = _mm512_loadu_ps(v + i + 16);
        __m512 c = _mm512_loadu_ps(v + i + 32), e = _mm512_loadu_ps(v + i + 48);
        nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(c, e, _CMP_UNORD_Q);
        __m512i ia = _mm512_castps_si512(a), ib = _mm512_castps_si512(b);
        __m512i ic = _mm512_castps_si512(c), ie = _mm512_castps_si512(e);
        m0 = _mm512_max_epi32(m0, RT_MAP(ia));
        m1 = _mm512_max_epi32(m1, RT_MAP(ib));
        m2 = _mm512_max_epi32(m2, RT_MAP(ic));
        m3 = _mm512_max_epi32(m3, RT_MAP(ie));
    }
    for (; i + 16 <= n; i += 16) {
        __m512 a = _mm512_loadu_ps(v + i);
        nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
        __m512i ia = _mm512_castps_si512(a);
        m0 = _mm512_max_epi32(m0, RT_MAP(ia));
    }
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        __m512 a = _mm512_maskz_loadu_ps(k, v + i);
        nan |= _mm512_mask_cmp_ps_mask(k, a, a, _CMP_UNORD_Q);
        __m512i ia = _mm512_castps_si512(a);
        m0 = _mm512_mask_max_epi32(m0, k, m0, RT_MAP(ia));
    }
#undef RT_MAP
    if (nan)
        return false;
    m0 = _mm512_max_epi32(_mm512_max_epi32(m0, m1), _mm512_max_epi32(m2, m3));
    int32_t r = _mm512_reduce_max_epi32(m0);
    uint32_t bits = (uint32_t)(r ^ ((r >> 31) & 0x7fffffff));
    memcpy(out, &bits, 4);
    return true;
}
#endif

float rt_max_f32(const float *v, size_t n, plumb_isa isa)
{
#if RT_X86
    float m;
    if (n >= 16 && vec_level((int)isa) == PLUMB_ISA_AVX512 && max_f32_avx512(v, n, &m))
        return m;
#endif
    return max_f32_seq(v, n);
}

/* ---- body recognition ------------------------------------------------------------ */

static red_kind recognise(const ir_op *op, plumb_dtype elem)
{
    if (op->n_operands != 2 || op->n_regions != 1)
        return RK_GENERIC;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 || b->n_ops != 2 || !b->first || !b->first->next)
        return RK_GENERIC;
    const ir_op *x = b->first, *ret = x->next;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || ret->operands[0] != x->results[0])
        return RK_GENERIC;
    if (x->n_operands != 2 || x->n_results != 1)
        return RK_GENERIC;
    for (uint32_t i = 0; i < 2; i++)
        if (b->args[i]->type.rank != 0 || b->args[i]->type.dtype != elem)
            return RK_GENERIC;
    if (x->results[0]->type.dtype != elem || x->results[0]->type.rank != 0)
        return RK_GENERIC;
    bool direct = x->operands[0] == b->args[0] && x->operands[1] == b->args[1];
    bool swapped = x->operands[0] == b->args[1] && x->operands[1] == b->args[0];
    if (!direct && !swapped)
        return RK_GENERIC;
    bool fl = plumb_dtype_is_float(elem);
    switch (x->code) {
    case PLUMB_OP_ADD: return RK_ADD;
    case PLUMB_OP_MULTIPLY: return RK_MUL;
    case PLUMB_OP_MAXIMUM: return RK_MAX;
    case PLUMB_OP_MINIMUM: return RK_MIN;
    case PLUMB_OP_AND: return fl ? RK_GENERIC : RK_AND;
    case PLUMB_OP_OR: return fl ? RK_GENERIC : RK_OR;
    case PLUMB_OP_XOR: return fl ? RK_GENERIC : RK_XOR;
    default: return RK_GENERIC;
    }
}

/* ---- layout -------------------------------------------------------------------- */

typedef struct red_plan {
    const ir_op *op;
    red_kind kind;
    plumb_dtype t;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];
    bool red[PLUMB_MAX_RANK];
    uint64_t outer, len, inner;   /* [outer, len, inner] view when contiguous */
    bool simple;                  /* the view above holds */
    uint64_t nout;                /* result elements */
    const void *src;              /* input data (possibly a transposed copy) */
    void *dst;
    uint64_t init_bits;
    el_kind ek;
} red_plan;

/* ---- exact-class folds (max/min/int/bool) ------------------------------------------ */

static double fmax_d(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static double fmin_d(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

static uint64_t ifold(red_kind k, plumb_dtype t, uint64_t acc, uint64_t v)
{
    if (t == PLUMB_I1) {
        if (k == RK_ADD || k == RK_MAX || k == RK_OR) return (acc | v) & 1;
        if (k == RK_XOR) return (acc ^ v) & 1;
        return acc & v & 1;
    }
    switch (k) {
    case RK_ADD: return acc + v;
    case RK_MUL: return acc * v;
    case RK_AND: return acc & v;
    case RK_OR: return acc | v;
    case RK_XOR: return acc ^ v;
    case RK_MAX:
    case RK_MIN: {
        bool gt = plumb_dtype_is_signed(t) ? (int64_t)acc > (int64_t)v : acc > v;
        return (k == RK_MAX) == gt ? acc : v;
    }
    default: return acc;
    }
}

/* Stores a double to a float type with one rounding. */
static uint64_t round_to(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    default: return plumb_f64_to_bf16(v);
    }
}

/* ---- certified half sums in f32 ----------------------------------------------------
 * Every path above gives the half-type rounding of init + the row, r(S),
 * S the exact sum: half_xsum's exact double sum (half_exact_ok), row_sum's
 * f16 sums (exact in double below 8192 terms), or half_csum, whose
 * hi + lo is within E = 2^-60 Σ|x| of S (TwoSum pairs are exact; only the
 * double sums of their errors round, each error at most 2^-53 of a
 * partial sum, so for n < 2^20 terms the lost part is below n^2 2^-106
 * Σ|x|) and is rounded once (round to odd, then to the half type).
 * Those double loops convert every term to double: half_xsum was a fifth
 * of layer_norm_bf16 (two row sums per row). This pass sums the terms in
 * f32 instead, s, and with it an a-posteriori bound on its error: every
 * add's rounding error is at most u |r| (u = 2^-24, r the add's computed
 * result: half an ulp of a normal r is at most u |r|; an add whose exact
 * result is below 2^-126 is exact, every half value being a multiple of
 * f32's smallest subnormal), so |s - S| <= u B, B the sum of |r| over
 * the adds (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd
 * ed., 4.2, the bound before it is weakened to (n - 1) u Σ|x|). B is
 * summed in f32 too, of nonnegative terms in a tree of depth at most
 * n/64 + 11, each add rounding down by at most a factor (1 - u), so for
 * n <= 2^17 the true B is below B' (1 + 2^-12) (B' the computed one) and
 * R0 = u B' (1 + 2^-10) bounds |s - S|. This replaces the a-priori d u
 * Σ|x| (d the tree depth, n/64 + 9): for zero-mean rows the partial sums
 * stay near sqrt(k) times a term where d u Σ|x| counts every term d
 * times, so it was about ten times wider and refused about a quarter of
 * layer_norm's normal-distributed row sums (docs/runtime-passes.md,
 * "A tighter certificate"). If the half rounding is the same at both
 * ends of [s - R, s + R], R = R0 + E plus the double rounding of the
 * ends (E = 2^-60 Σ|x| covers half_csum's hi + lo; each term is at most
 * (1 + u)|r| + |r'| of the two partials around its add, so Σ|x| <=
 * (2 + u) B), then (rounding to nearest is monotone) it is r(S), and
 * also the rounding of half_csum's hi + lo, which lies within E of S:
 * the same bits as the double paths, whatever the order of this pass's
 * adds. Rows near a rounding boundary (by about u B), with inf or NaN,
 * or whose f32 sums overflow, take the double paths. */
#if RT_X86
/* 64 terms per step into four pairs of 16-lane f32 accumulators (the sum,
 * and the bound: |r| of each add's result r), then 32, then a tail loaded
 * masked with -0 (the sum's identity). */
/* Lane 0 of the tree sum of v's 16 lanes: lane j + lane j + w for w = 8,
 * 4, 2, 1 (each the same IEEE add of the same two values as a loop over
 * the stored lanes would do). */
__attribute__((target("avx512f,avx512dq"))) static inline float hf_fold16(__m512 v)
{
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
    return _mm_cvtss_f32(q);
}

__attribute__((target("avx512f,avx512bw,avx512dq,f16c"))) static inline __attribute__((always_inline)) void
half_fsum_body(el_kind k, const uint16_t *p, size_t n, float *s, float *a)
{
    const __m512 nz = _mm512_set1_ps(-0.0f), z = _mm512_castsi512_ps(_mm512_setzero_si512());
    __m512 s0 = nz, s1 = nz, s2 = nz, s3 = nz, a0 = z, a1 = z, a2 = z, a3 = z;
#define HF_TERMS(h, f0, f1)                                                                                     \
    __m512 f0 = k == EL_BF16 ? _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), h))             \
                             : _mm512_cvtph_ps(_mm512_castsi512_si256(h));                                     \
    __m512 f1 = k == EL_BF16 ? _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), h))             \
                             : _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1))
#define HF_ABS(f) _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32(0x7fffffff)))
    /* the add to the sum, then its result's magnitude to the bound (a
     * separate chain: the bound's add waits for the sum's, but neither
     * waits for the other's previous iteration beyond its own) */
#define HF_ADD(sx, ax, f) (sx = _mm512_add_ps(sx, f), ax = _mm512_add_ps(ax, HF_ABS(sx)))
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i h0 = _mm512_loadu_si512((const void *)(p + i)), h1 = _mm512_loadu_si512((const void *)(p + i + 32));
        HF_TERMS(h0, f0, f1);
        HF_TERMS(h1, f2, f3);
        HF_ADD(s0, a0, f0);
        HF_ADD(s1, a1, f1);
        HF_ADD(s2, a2, f2);
        HF_ADD(s3, a3, f3);
    }
    if (i + 32 <= n) {
        __m512i h0 = _mm512_loadu_si512((const void *)(p + i));
        HF_TERMS(h0, f0, f1);
        HF_ADD(s0, a0, f0);
        HF_ADD(s1, a1, f1);
        i += 32;
    }
    if (i < n) {
        __mmask32 m = (__mmask32)((1ull << (n - i)) - 1);
        __m512i h0 = _mm512_mask_loadu_epi16(_mm512_set1_epi16((short)0x8000), m, p + i);
        HF_TERMS(h0, f2, f3);
        HF_ADD(s2, a2, f2);
        HF_ADD(s3, a3, f3);
    }
#undef HF_TERMS
#undef HF_ADD
    __m512 s01 = _mm512_add_ps(s0, s1), s23 = _mm512_add_ps(s2, s3), sv = _mm512_add_ps(s01, s23);
    /* the fold adds' results: s01, s23 and sv lane by lane, and the four
     * levels of hf_fold16 below, whose results sum (per level) to at most
     * (1 + u)^4 Σ|sv lanes|: 8 |sv| covers sv and those (5.0001 |sv|);
     * the factor 8 is exact (f32 overflow gives inf: refused) */
    __m512 av = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                              _mm512_add_ps(_mm512_add_ps(HF_ABS(s01), HF_ABS(s23)),
                                            _mm512_mul_ps(HF_ABS(sv), _mm512_set1_ps(8.0f))));
#undef HF_ABS
    /* the 16 lanes as a tree of depth 4, lane j += lane j + w for w = 8,
     * 4, 2, 1, halved in the registers: the stores and the scalar loop
     * over them (a store-forwarding stall and 30 dependent scalar adds)
     * were a third of this function in layer_norm_f16 (perf annotate) */
    *s = hf_fold16(sv);
    *a = hf_fold16(av);
}

/* The loop compiled once per type (k a constant inside): GCC kept the
 * type test in the loop, a compare and a branch per 64 terms. */
__attribute__((target("avx512f,avx512bw,avx512dq,f16c")))
static void half_fsum_avx512(el_kind k, const uint16_t *p, size_t n, float *s, float *a)
{
    if (k == EL_BF16)
        half_fsum_body(EL_BF16, p, n, s, a);
    else
        half_fsum_body(EL_F16, p, n, s, a);
}
#endif

#if RT_X86
/* The half-type rounding of every point of [S - R, S + R] (R >= 0) when
 * they all have the same one, without a conversion call per end: the two
 * round_to calls (a generic scalar narrowing each) were 9% of
 * layer_norm_f16. With p the type's precision and emin its smallest
 * normal exponent, the rounding boundaries of a binade 2^e (e >= emin, the
 * subnormals on emin's grid) are the odd multiples of u = 2^(e - p) (the
 * midpoints between multiples of its ulp 2u; for f16's top binade 65520
 * is one, the overflow threshold, and every value past it rounds to
 * infinity like the even multiples of u above 65504). If both ends lie in
 * one binade of one sign and no odd multiple of u lies in the closed
 * interval [lo/u, hi/u] (integers from ceil(lo/u) to floor(hi/u), exact:
 * u is a power of two), every point rounds to the same even multiple v of
 * u, which is a value of the type (or past its largest finite one:
 * infinity, as (float)v and the conversion give). HR_OTHER (ends in two
 * binades or on both sides of zero) leaves it to round_to; HR_SPLIT (a
 * boundary inside) refuses the row at once: the two ends round apart
 * unless the boundary is an end itself (a midpoint rounding to the even
 * side), and refusing that rare row too only sends it to the double
 * paths, which give the same bits (the two round_to calls were a third
 * of the certificate's cost in layer_norm_f16, mostly on rows refused
 * anyway). */
enum { HR_DONE, HR_SPLIT, HR_OTHER };
__attribute__((target("avx512f,f16c")))
static int half_round_span(bool f16, double S, double R, uint16_t *out)
{
    double lo = S - R, hi = S + R;
    if (!(lo > 0.0) && !(hi < 0.0))
        return HR_OTHER;
    /* a = |lo|, b = |hi| for a positive interval, the other way round for
     * a negative one (0 < a <= b, both finite), chosen by masks: a branch
     * on the sum's sign mispredicts on zero-mean rows (layer_norm's Σx)
     * half the time, and so did one on the parity of the result below */
    uint64_t neg = hi < 0.0, lb, hb;
    memcpy(&lb, &lo, sizeof lb);
    memcpy(&hb, &hi, sizeof hb);
    lb &= ~(1ull << 63), hb &= ~(1ull << 63);
    uint64_t m = 0 - neg, ab = (lb & ~m) | (hb & m), bb = (hb & ~m) | (lb & m);
    double a, b;
    memcpy(&a, &ab, sizeof a);
    memcpy(&b, &bb, sizeof b);
    int emin = f16 ? -14 : -126, p = f16 ? 11 : 8;
    /* binade exponents from the bits (a call to ilogb, ldexp or fmod per
     * end cost more than the conversions this replaces) */
    int ea = (int)(ab >> 52) - 1023, eb = (int)(bb >> 52) - 1023;
    ea = ea < emin ? emin : ea;
    eb = eb < emin ? emin : eb;
    if (ea != eb)
        return HR_OTHER;
    uint64_t ub = (uint64_t)(ea - p + 1023) << 52, ib = (uint64_t)(p - ea + 1023) << 52;
    double u, iu;
    memcpy(&u, &ub, sizeof u);
    memcpy(&iu, &ib, sizeof iu);   /* 1/u: both powers of two, normal */
    double x1 = ceil(a * iu), x2 = floor(b * iu);   /* exact: below 2^(p+1) */
    int64_t i1 = (int64_t)x1, i2 = (int64_t)x2;
    /* one even multiple x1 = x2 inside, or none between x2 and x1 = x2 + 1:
     * the value is the even one of x2 and x2 + 1, x2 + (i2 & 1) (exact) */
    if (!(i1 == i2 + 1 || (i1 == i2 && (i1 & 1) == 0)))
        return HR_SPLIT;   /* a boundary (odd multiple of u) in [a, b] */
    double v = x2 + (double)(i2 & 1);
    float fv = (float)(v * u);   /* exact, or infinity past f32 (bf16) */
    uint16_t sign = (uint16_t)(neg << 15);   /* both conversions are odd functions */
    if (f16) {
        *out = (uint16_t)(_cvtss_sh(fv, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) | sign);   /* exact */
    } else {
        uint32_t w;
        memcpy(&w, &fv, sizeof w);
        *out = (uint16_t)((w >> 16) | sign);   /* v is a bf16 value: the low half is zero */
    }
    return HR_DONE;
}
#endif

/* round_to for a half type at the AVX-512 level: the rounding of one
 * point is half_round_span with R = 0 (an exact value of the type, or the
 * even multiple of u next to a point between it and a midpoint: the
 * nearest value, so round to nearest even), without the generic
 * narrowing call; exact midpoints (HR_SPLIT), zeros, infinities, NaN and
 * the other levels take round_to. The rows the certificate refuses end
 * here (rt_fold_half_row): with normal data about a quarter of
 * layer_norm's centred row sums, whose f64_to_narrow was ~10% of the
 * broad suite's layer_norm_f16. */
static uint64_t round_half_to(plumb_dtype t, double v, int isa)
{
#if RT_X86
    uint16_t o;
    if ((t == PLUMB_F16 || t == PLUMB_BF16) && vec_level(isa) == PLUMB_ISA_AVX512 && isfinite(v) &&
        half_round_span(t == PLUMB_F16, v, 0.0, &o) == HR_DONE)
        return o;
#else
    (void)isa;
#endif
    return round_to(t, v);
}

/* The half-type bits of init + the n terms when the f32 pass certifies
 * them (above); false sends the caller to the double paths. */
static bool half_cert_sum(el_kind k, const uint16_t *p, size_t n, uint16_t init_bits, int isa, uint16_t *out)
{
#if RT_X86
    if ((k != EL_F16 && k != EL_BF16) || n == 0 || n > ((size_t)1 << 17) || vec_level(isa) != PLUMB_ISA_AVX512)
        return false;
    float s, b;
    half_fsum_avx512(k, p, n, &s, &b);
    double init = ld(k, &init_bits, 0);
    if (!isfinite(s) || !isfinite(b) || !isfinite(init))
        return false;
    /* R0 = u B (1 + 2^-10); E = 2^-60 (Σ|x| + |init|) with Σ|x| <= 2.0001 B
     * (above); init's add is in double, its rounding in the last term */
    double B = (double)b, S = (double)s + init;
    double R = B * 0x1p-24 * (1.0 + 0x1p-10) + B * 0x1p-57 + fabs(init) * 0x1p-60;
    R += (fabs(S) + R) * 0x1p-50;   /* the double roundings of S, R and the ends */
    int hr = half_round_span(k == EL_F16, S, R, out);
    if (hr != HR_OTHER)
        return hr == HR_DONE;
    plumb_dtype t = k == EL_F16 ? PLUMB_F16 : PLUMB_BF16;
    uint64_t lo = round_to(t, S - R), hi = round_to(t, S + R);
    if (lo != hi)
        return false;
    *out = (uint16_t)lo;
    return true;
#else
    (void)k, (void)p, (void)n, (void)init_bits, (void)isa, (void)out;
    return false;
#endif
}

#if RT_X86
/* ---- exact folds as vector loops ---------------------------------------------------- */

/* Integer folds and float max/min, which are exact in any order: wrapping
 * add and multiply, and, or and xor are associative and commutative modulo
 * 2^width, and so are the integer maximum and minimum. A float maximum or
 * minimum without NaNs is the integer maximum or minimum of the bit
 * patterns mapped to ordered integers (negative values mirrored below zero:
 * -0 -> -1 < +0 -> 0), so the vector loops reorder freely and still give the
 * portable loops' bits. With a NaN anywhere (init included) the result is
 * the first NaN in the reference's order: the loops report it and the
 * caller runs the sequential loop. The loops are written once with vector
 * types and compiled per ISA level: 64 bytes for AVX-512, 32 for AVX2. */
enum vop { VO_ADD, VO_MUL, VO_AND, VO_OR, VO_XOR, VO_SMAX, VO_SMIN, VO_UMAX, VO_UMIN, VO_FMAX, VO_FMIN };

static inline uint64_t w_mask(unsigned w) { return w == 64 ? ~0ull : (1ull << w) - 1; }
static inline int64_t w_sext(unsigned w, uint64_t v)
{
    return w == 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w);
}
/* The ordered-integer image of a float bit pattern (an involution). */
static inline uint64_t w_fmap(unsigned w, uint64_t x)
{
    return (x ^ (w_sext(w, x) < 0 ? w_mask(w) >> 1 : 0)) & w_mask(w);
}

static uint64_t w_fold(int op, unsigned w, uint64_t a, uint64_t b)
{
    uint64_t m = w_mask(w), r;
    switch (op) {
    case VO_ADD: r = a + b; break;
    case VO_MUL: r = a * b; break;
    case VO_AND: r = a & b; break;
    case VO_OR: r = a | b; break;
    case VO_XOR: r = a ^ b; break;
    case VO_SMAX: case VO_FMAX: r = w_sext(w, a) > w_sext(w, b) ? a : b; break;
    case VO_SMIN: case VO_FMIN: r = w_sext(w, a) < w_sext(w, b) ? a : b; break;
    case VO_UMAX: r = (a & m) > (b & m) ? a : b; break;
    default: r = (a & m) < (b & m) ? a : b; break;
    }
    return r & m;
}

static uint64_t w_ident(int op, unsigned w, uint64_t init)
{
    switch (op) {
    case VO_ADD: case VO_OR: case VO_XOR: return 0;
    case VO_MUL: return 1;
    case VO_AND: return w_mask(w);
    case VO_FMAX: case VO_FMIN: return w_fmap(w, init);
    default: return init & w_mask(w);
    }
}

typedef uint8_t rv_u8 __attribute__((vector_size(64)));
typedef int8_t rv_s8 __attribute__((vector_size(64)));
typedef uint16_t rv_u16 __attribute__((vector_size(64)));
typedef int16_t rv_s16 __attribute__((vector_size(64)));
typedef uint32_t rv_u32 __attribute__((vector_size(64)));
typedef int32_t rv_s32 __attribute__((vector_size(64)));
typedef uint64_t rv_u64 __attribute__((vector_size(64)));
typedef int64_t rv_s64 __attribute__((vector_size(64)));
/* The AVX2 level's types: GCC splits 64-byte vectors into ymm halves for
 * loads, adds and logic but turns their compares and selects (max, min,
 * the NaN test) into scalar code, 1.2 ns per element on a column max. */
typedef uint8_t rv32_u8 __attribute__((vector_size(32)));
typedef int8_t rv32_s8 __attribute__((vector_size(32)));
typedef uint16_t rv32_u16 __attribute__((vector_size(32)));
typedef int16_t rv32_s16 __attribute__((vector_size(32)));
typedef uint32_t rv32_u32 __attribute__((vector_size(32)));
typedef int32_t rv32_s32 __attribute__((vector_size(32)));
typedef uint64_t rv32_u64 __attribute__((vector_size(32)));
typedef int64_t rv32_s64 __attribute__((vector_size(32)));

#define RV_SEL(m, a, b) ((b) ^ (((a) ^ (b)) & (VU)(m)))
#define RV_ADD(a, b) ((a) + (b))
#define RV_MUL(a, b) ((a) * (b))
#define RV_AND(a, b) ((a) & (b))
#define RV_OR(a, b) ((a) | (b))
#define RV_XOR(a, b) ((a) ^ (b))
#define RV_SMAX(a, b) RV_SEL((VS)(a) > (VS)(b), a, b)
#define RV_SMIN(a, b) RV_SEL((VS)(a) < (VS)(b), a, b)
#define RV_UMAX(a, b) RV_SEL((a) > (b), a, b)
#define RV_UMIN(a, b) RV_SEL((a) < (b), a, b)
/* Float lanes: note NaNs (magnitude above infinity's), then map. */
#define RV_PRE_NONE(x) (x)
#define RV_PRE_F(x) (nanv |= (VU)((VS)((x) & magv) > (VS)infv), (x) ^ ((VU)((VS)(x) >> (W - 1)) & magv))

/* Row fold: 4 accumulators of L lanes, lanes then tail folded in scalar. */
#define RV_ROW(OPV, PRE)                                                                   \
    do {                                                                                   \
        VU a0 = (VU){0} + (T)id, a1 = a0, a2 = a0, a3 = a0, x0, x1, x2, x3;                \
        for (; i + 4 * L <= n; i += 4 * L) {                                               \
            memcpy(&x0, s + i, sizeof(VU)); memcpy(&x1, s + i + L, sizeof(VU));                            \
            memcpy(&x2, s + i + 2 * L, sizeof(VU)); memcpy(&x3, s + i + 3 * L, sizeof(VU));                \
            x0 = PRE(x0); x1 = PRE(x1); x2 = PRE(x2); x3 = PRE(x3);                        \
            a0 = OPV(a0, x0); a1 = OPV(a1, x1); a2 = OPV(a2, x2); a3 = OPV(a3, x3);        \
        }                                                                                  \
        for (; i + L <= n; i += L) {                                                       \
            memcpy(&x0, s + i, sizeof(VU));                                                        \
            x0 = PRE(x0);                                                                  \
            a0 = OPV(a0, x0);                                                              \
        }                                                                                  \
        a0 = OPV(a0, a1); a2 = OPV(a2, a3); a0 = OPV(a0, a2);                              \
        /* the L lanes halved in the vector (lane j with lane j + h) down to    \
         * lane 0: the scalar fold of each lane through w_fold's switch was a   \
         * tenth of softmax_bf16's row max (perf). Exact ops: any order. */     \
        for (unsigned h_ = L / 2; h_; h_ /= 2) {                                           \
            T t_[L];                                                                       \
            memcpy(t_, &a0, sizeof(VU));                                                   \
            memmove(t_, t_ + h_, h_ * sizeof(T));                                          \
            memcpy(&x0, t_, sizeof(VU));                                                   \
            a0 = OPV(a0, x0);                                                              \
        }                                                                                  \
        memcpy(lanes, &a0, sizeof(VU));                                                            \
    } while (0)

/* Column fold of rows x [j0, j1) (j1 - j0 a multiple of L; rows `stride`
 * elements apart) into d, which holds the identity (or mapped init) on
 * entry. Eight rows per pass over d: an eighth of the loads and stores of
 * the accumulators (which stay in L1), eight read streams in flight (4.0 ms
 * with four rows, 3.2 ms with eight on the broad suite's 4096x4096 column
 * max); the folds are exact, so the grouping does not change the result. */
#define RV_COL(OPV, PRE)                                                                   \
    do {                                                                                   \
        size_t r = 0;                                                                      \
        for (; r + 8 <= rows; r += 8) {                                                    \
            const T *s0 = s + r * stride;                                                  \
            for (size_t j = j0; j < j1; j += L) {                                          \
                VU a, x0, x1, x2, x3, x4, x5, x6, x7;                                      \
                memcpy(&a, d + j, sizeof(VU));                                                     \
                memcpy(&x0, s0 + j, sizeof(VU)); memcpy(&x1, s0 + stride + j, sizeof(VU));                \
                memcpy(&x2, s0 + 2 * stride + j, sizeof(VU)); memcpy(&x3, s0 + 3 * stride + j, sizeof(VU)); \
                memcpy(&x4, s0 + 4 * stride + j, sizeof(VU)); memcpy(&x5, s0 + 5 * stride + j, sizeof(VU)); \
                memcpy(&x6, s0 + 6 * stride + j, sizeof(VU)); memcpy(&x7, s0 + 7 * stride + j, sizeof(VU)); \
                x0 = PRE(x0); x1 = PRE(x1); x2 = PRE(x2); x3 = PRE(x3);                    \
                x4 = PRE(x4); x5 = PRE(x5); x6 = PRE(x6); x7 = PRE(x7);                    \
                x0 = OPV(x0, x1); x2 = OPV(x2, x3); x4 = OPV(x4, x5); x6 = OPV(x6, x7);    \
                x0 = OPV(x0, x2); x4 = OPV(x4, x6);                                        \
                a = OPV(a, x0); a = OPV(a, x4);                                            \
                memcpy(d + j, &a, sizeof(VU));                                                     \
            }                                                                              \
        }                                                                                  \
        for (; r < rows; r++) {                                                            \
            const T *sr = s + r * stride;                                                  \
            for (size_t j = j0; j < j1; j += L) {                                          \
                VU a, x;                                                                   \
                memcpy(&a, d + j, sizeof(VU)); memcpy(&x, sr + j, sizeof(VU));                             \
                x = PRE(x);                                                                \
                a = OPV(a, x);                                                             \
                memcpy(d + j, &a, sizeof(VU));                                                     \
            }                                                                              \
        }                                                                                  \
    } while (0)

#define RV_SWITCH(M)                                                                       \
    switch (op) {                                                                          \
    case VO_ADD: M(RV_ADD, RV_PRE_NONE); break;                                            \
    case VO_MUL: M(RV_MUL, RV_PRE_NONE); break;                                            \
    case VO_AND: M(RV_AND, RV_PRE_NONE); break;                                            \
    case VO_OR: M(RV_OR, RV_PRE_NONE); break;                                              \
    case VO_XOR: M(RV_XOR, RV_PRE_NONE); break;                                            \
    case VO_SMAX: M(RV_SMAX, RV_PRE_NONE); break;                                          \
    case VO_SMIN: M(RV_SMIN, RV_PRE_NONE); break;                                          \
    case VO_UMAX: M(RV_UMAX, RV_PRE_NONE); break;                                          \
    case VO_UMIN: M(RV_UMIN, RV_PRE_NONE); break;                                          \
    case VO_FMAX: M(RV_SMAX, RV_PRE_F); break;                                             \
    default: M(RV_SMIN, RV_PRE_F); break;                                                  \
    }

/* Folds row p[0, n) with op, starting from init; false when a float op
 * meets a NaN. *out gets the folded bits (unmapped). */
#define RV_DEF_ROW(WW, SUF, ATTR, TP)                                                      \
    ATTR static bool vrow_##WW##SUF(int op, const void *p, size_t n, uint64_t init,         \
                                    uint64_t inf, uint64_t *out)                           \
    {                                                                                      \
        typedef TP##u##WW VU;                                                                 \
        typedef TP##s##WW VS;                                                                 \
        typedef uint##WW##_t T;                                                            \
        enum { W = WW, L = sizeof(VU) / (WW / 8) };                                                \
        const T *s = p;                                                                    \
        const VU magv = (VU){0} + (T)(w_mask(W) >> 1), infv = (VU){0} + (T)inf;            \
        VU nanv = (VU){0};                                                                 \
        uint64_t id = w_ident(op, W, init);                                                \
        T lanes[L];                                                                        \
        size_t i = 0;                                                                      \
        RV_SWITCH(RV_ROW)                                                                  \
        bool fl = op == VO_FMAX || op == VO_FMIN;                                          \
        uint64_t nl[sizeof(VU) / 8], nany = 0;                                             \
        memcpy(nl, &nanv, sizeof(VU));                                                             \
        for (unsigned k = 0; k < sizeof(VU) / 8; k++) nany |= nl[k];                       \
        if (nany) return false;                                                            \
        uint64_t acc = w_fold(op, W, id, lanes[0]);   /* lane 0 holds every lane's fold */  \
        for (; i < n; i++) {                                                               \
            uint64_t v = s[i];                                                             \
            if (fl) {                                                                      \
                if ((v & (w_mask(W) >> 1)) > inf) return false;                            \
                v = w_fmap(W, v);                                                          \
            }                                                                              \
            acc = w_fold(op, W, acc, v);                                                   \
        }                                                                                  \
        if (!fl) acc = w_fold(op, W, init, acc);                                           \
        *out = fl ? w_fmap(W, acc) : acc;                                                  \
        return true;                                                                       \
    }

/* Folds columns [0, width) of src [rows, stride] into dst [width]; false
 * (dst undefined) when a float op meets a NaN. The column blocks of JB
 * elements keep the accumulators in L1 when a strip is wide. */
#define RV_DEF_COL(WW, SUF, ATTR, TP)                                                      \
    ATTR static bool vcol_##WW##SUF(int op, void *dst, const void *src, size_t rows,        \
                                    size_t stride, size_t width, uint64_t init, uint64_t inf) \
    {                                                                                      \
        typedef TP##u##WW VU;                                                                 \
        typedef TP##s##WW VS;                                                                 \
        typedef uint##WW##_t T;                                                            \
        enum { W = WW, L = sizeof(VU) / (WW / 8), JB = RV_COL_BLOCK / (WW / 8) };                   \
        const T *s = src;                                                                  \
        T *d = dst;                                                                        \
        const VU magv = (VU){0} + (T)(w_mask(W) >> 1), infv = (VU){0} + (T)inf;            \
        VU nanv = (VU){0};                                                                 \
        bool fl = op == VO_FMAX || op == VO_FMIN;                                          \
        uint64_t id = w_ident(op, W, init);                                                \
        size_t vend = width - width % L;                                                   \
        for (size_t j = 0; j < width; j++) d[j] = (T)id;                                   \
        for (size_t j0 = 0; j0 < vend; j0 += JB) {                                         \
            size_t j1 = j0 + JB < vend ? j0 + JB : vend;                                   \
            RV_SWITCH(RV_COL)                                                              \
        }                                                                                  \
        T nl[L];                                                                           \
        memcpy(nl, &nanv, sizeof(VU));                                                             \
        for (unsigned k = 0; k < L; k++)                                                   \
            if (nl[k]) return false;                                                       \
        for (size_t r = 0; r < rows; r++)                                                  \
            for (size_t j = vend; j < width; j++) {                                        \
                uint64_t v = s[r * stride + j];                                            \
                if (fl) {                                                                  \
                    if ((v & (w_mask(W) >> 1)) > inf) return false;                        \
                    v = w_fmap(W, v);                                                      \
                }                                                                          \
                d[j] = (T)w_fold(op, W, d[j], v);                                          \
            }                                                                              \
        for (size_t j = 0; j < width; j++)                                                 \
            d[j] = (T)(fl ? w_fmap(W, d[j]) : w_fold(op, W, init, d[j]));                  \
        return true;                                                                       \
    }

#define RV_ATTR_512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define RV_ATTR_256 __attribute__((target("avx2")))
RV_DEF_ROW(8, _512, RV_ATTR_512, rv_)
RV_DEF_ROW(16, _512, RV_ATTR_512, rv_)
RV_DEF_ROW(32, _512, RV_ATTR_512, rv_)
RV_DEF_ROW(64, _512, RV_ATTR_512, rv_)
RV_DEF_ROW(8, _256, RV_ATTR_256, rv32_)
RV_DEF_ROW(16, _256, RV_ATTR_256, rv32_)
RV_DEF_ROW(32, _256, RV_ATTR_256, rv32_)
RV_DEF_ROW(64, _256, RV_ATTR_256, rv32_)
RV_DEF_COL(8, _512, RV_ATTR_512, rv_)
RV_DEF_COL(16, _512, RV_ATTR_512, rv_)
RV_DEF_COL(32, _512, RV_ATTR_512, rv_)
RV_DEF_COL(64, _512, RV_ATTR_512, rv_)
RV_DEF_COL(8, _256, RV_ATTR_256, rv32_)
RV_DEF_COL(16, _256, RV_ATTR_256, rv32_)
RV_DEF_COL(32, _256, RV_ATTR_256, rv32_)
RV_DEF_COL(64, _256, RV_ATTR_256, rv32_)

typedef bool (*vrow_fn)(int, const void *, size_t, uint64_t, uint64_t, uint64_t *);
typedef bool (*vcol_fn)(int, void *, const void *, size_t, size_t, size_t, uint64_t, uint64_t);

/* The vector fold for a plan, or -1 (float sums and products keep their
 * ordered loops). i1 holds 0 or 1 per byte: or/and/xor of bytes keep the
 * low bit's fold, and add/max are or, multiply/min are and. */
static int plan_vop(const red_plan *p)
{
    if (plumb_dtype_is_float(p->t))
        return p->kind == RK_MAX ? VO_FMAX : p->kind == RK_MIN ? VO_FMIN : -1;
    bool sg = plumb_dtype_is_signed(p->t);
    if (p->t == PLUMB_I1) {
        switch (p->kind) {
        case RK_ADD: case RK_MAX: case RK_OR: return VO_OR;
        case RK_XOR: return VO_XOR;
        default: return VO_AND;
        }
    }
    switch (p->kind) {
    case RK_ADD: return VO_ADD;
    case RK_MUL: return VO_MUL;
    case RK_AND: return VO_AND;
    case RK_OR: return VO_OR;
    case RK_XOR: return VO_XOR;
    case RK_MAX: return sg ? VO_SMAX : VO_UMAX;
    case RK_MIN: return sg ? VO_SMIN : VO_UMIN;
    default: return -1;
    }
}

/* Bit pattern of a float type's +infinity (anything above it in magnitude
 * is a NaN). */
static uint64_t inf_bits(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: return 0x7c00;
    case PLUMB_BF16: return 0x7f80;
    case PLUMB_F32: return 0x7f800000;
    case PLUMB_F64: return 0x7ff0000000000000ull;
    default: return 0;
    }
}

static unsigned plan_width(const red_plan *p) { return (unsigned)plumb_dtype_size(p->t) * 8; }

/* Whether the vector loops may run: a vector level and, for float max/min,
 * an init that is not a NaN. */
static bool vec_usable(const red_plan *p, int isa, int vop)
{
    if (vop < 0 || vec_level(isa) < PLUMB_ISA_AVX2) return false;
    unsigned w = plan_width(p);
    if (w != 8 && w != 16 && w != 32 && w != 64) return false;
    if (vop == VO_FMAX || vop == VO_FMIN)
        return (p->init_bits & (w_mask(w) >> 1)) <= inf_bits(p->t);
    return true;
}

static vrow_fn pick_row(unsigned w, int isa)
{
    bool z = vec_level(isa) == PLUMB_ISA_AVX512;
    switch (w) {
    case 8: return z ? vrow_8_512 : vrow_8_256;
    case 16: return z ? vrow_16_512 : vrow_16_256;
    case 32: return z ? vrow_32_512 : vrow_32_256;
    default: return z ? vrow_64_512 : vrow_64_256;
    }
}

static vcol_fn pick_col(unsigned w, int isa)
{
    bool z = vec_level(isa) == PLUMB_ISA_AVX512;
    switch (w) {
    case 8: return z ? vcol_8_512 : vcol_8_256;
    case 16: return z ? vcol_16_512 : vcol_16_256;
    case 32: return z ? vcol_32_512 : vcol_32_256;
    default: return z ? vcol_64_512 : vcol_64_256;
    }
}
#endif

/* ---- f16/bf16 row folds for fused row groups --------------------------------------
 * The reduce kernel's bits for one row of a half-type add, max or min fold
 * (row_fold below, with a plan of that kind): fused softmax and layer_norm
 * rows of f16/bf16 fold their rows in place with these, so a fused group
 * gives exactly the unfused program's bits. */
uint16_t rt_fold_half_row(plumb_dtype t, plumb_opcode body, const uint16_t *v, size_t n, uint16_t init,
                          plumb_isa isa)
{
    el_kind k = t == PLUMB_F16 ? EL_F16 : EL_BF16;
    double r = ld(k, &init, 0);
    uint16_t cb;
    if (body == PLUMB_OP_ADD && half_cert_sum(k, v, n, init, (int)isa, &cb))
        return cb;
    if (body == PLUMB_OP_ADD)
        return (uint16_t)round_half_to(
            t, half_comp(k, n) ? half_row_sum(k, v, n, init, (int)isa) : r + row_sum(k, v, n, (int)isa), (int)isa);
#if RT_X86
    int vop = body == PLUMB_OP_MAXIMUM ? VO_FMAX : VO_FMIN;
    if (vec_level((int)isa) >= PLUMB_ISA_AVX2 && (init & 0x7fffu) <= inf_bits(t)) {
        uint64_t bits;
        if (pick_row(16, (int)isa)(vop, v, n, init, inf_bits(t), &bits))
            return (uint16_t)bits;
    }
#endif
    for (size_t i = 0; i < n; i++)
        r = body == PLUMB_OP_MAXIMUM ? fmax_d(r, ld(k, v, i)) : fmin_d(r, ld(k, v, i));
    return (uint16_t)round_to(t, r);
}

/* ---- per-output work ------------------------------------------------------------ */

typedef struct red_job {
    red_plan *p;
    int isa;
    double *colbuf;     /* per chunk: scratch for column sums */
    size_t colbuf_len;  /* doubles per chunk */
    uint64_t strip;     /* columns per work item (inner > 1) */
    uint64_t nstrip;    /* work items per outer slice */
} red_job;

/* Signed integers are read sign-extended, so comparisons of wrapped sums
 * and max/min see the right values; stores truncate. */
static uint64_t load_int(plumb_dtype t, const void *p, uint64_t i)
{
    return plumb_dtype_is_signed(t) ? (uint64_t)plumb_load_i64(t, p, (size_t)i) : plumb_load_u64(t, p, (size_t)i);
}

/* Reduces row o of a simple plan with inner == 1. */
static void reduce_row(red_plan *p, uint64_t o, int isa)
{
    size_t es = plumb_dtype_size(p->t);
    /* An empty operand may have no buffer: NULL + 0 is undefined. */
    const unsigned char *row = p->src ? (const unsigned char *)p->src + o * p->len * es : NULL;
    uint64_t n = p->len;
#if RT_X86
    int vop = plan_vop(p);
    if (vec_usable(p, isa, vop)) {
        uint64_t bits;
        if (pick_row(plan_width(p), isa)(vop, row, (size_t)n, p->init_bits, inf_bits(p->t), &bits)) {
            plumb_store_bits(p->t, p->dst, (size_t)o, p->t == PLUMB_I1 ? bits & 1 : bits);
            return;
        }
    }
#endif
    if (plumb_dtype_is_float(p->t)) {
        double init = plumb_load_f64(p->t, &p->init_bits, 0);
        double r;
        uint16_t cb;
        if (p->kind == RK_ADD && (p->ek == EL_F16 || p->ek == EL_BF16) &&
            half_cert_sum(p->ek, (const uint16_t *)row, (size_t)n, (uint16_t)p->init_bits, isa, &cb)) {
            plumb_store_bits(p->t, p->dst, (size_t)o, cb);
            return;
        }
        if (p->kind == RK_ADD && half_comp(p->ek, n)) {
            r = half_row_sum(p->ek, row, (size_t)n, (unsigned)p->init_bits, isa);
        } else if (p->kind == RK_ADD) {
            r = p->ek == EL_F64 ? rt_sum_f64((const double *)row, (size_t)n, (plumb_isa)isa)
                                : row_sum(p->ek, row, (size_t)n, isa);
            r = init + r;
        } else if (p->kind == RK_MUL) {
            long double q = init;
            for (uint64_t i = 0; i < n; i++) q *= ld(p->ek, row, (size_t)i);
            if (p->t == PLUMB_F64) {
                plumb_store_bits(p->t, p->dst, (size_t)o, plumb_f64_bits((double)q));
                return;
            }
            r = (double)q;   /* exact enough: 64-bit significand, then one more rounding below */
        } else {
            r = init;
            for (uint64_t i = 0; i < n; i++)
                r = p->kind == RK_MAX ? fmax_d(r, ld(p->ek, row, (size_t)i)) : fmin_d(r, ld(p->ek, row, (size_t)i));
            /* max/min select an input; the round trip through double is exact */
        }
        plumb_store_bits(p->t, p->dst, (size_t)o, round_to(p->t, r));
        return;
    }
    uint64_t acc = load_int(p->t, &p->init_bits, 0);
    for (uint64_t i = 0; i < n; i++)
        acc = ifold(p->kind, p->t, acc, load_int(p->t, row, i));
    plumb_store_bits(p->t, p->dst, (size_t)o, acc);
}

/* Column sums of one outer slice: [len, inner] -> [inner], pairwise over
 * rows in the same tree as row_sum (blocks of RT_SUM_BLOCK rows folded
 * pairwise; inside a block, rows strided over RT_SUM_LANES lanes). buf holds
 * RT_SUM_LANES*inner + inner*levels doubles. */
/* l[j] = l[j] + src[j] for j < n, at the run's level. */
static void add_row(el_kind ek, double *l, const void *src, size_t n, int isa)
{
#if RT_X86
    int lv = vec_level(isa);
    if (lv == PLUMB_ISA_AVX512) { add_row_avx512(ek, l, src, n); return; }
    if (lv == PLUMB_ISA_AVX2) { add_row_avx2(ek, l, src, n); return; }
#else
    (void)isa;
#endif
    for (size_t j = 0; j < n; j++) l[j] = l[j] + ld(ek, src, j);
}

static void col_block(el_kind ek, const unsigned char *base, uint64_t rows, uint64_t stride, uint64_t inner,
                      double *lanes, double *out, int isa)
{
    size_t es = el_size(ek);
#if RT_X86
    /* strips of columns, each row read in runs, the same adds (k_colsum.c) */
    if (isa != PLUMB_ISA_PORTABLE && (ek == EL_F32 || ek == EL_F64) &&
        rt_colsum_block(ek == EL_F64, base, rows, stride, inner, out, vec_level(isa)))
        return;
#endif
    for (uint64_t i = 0; i < RT_SUM_LANES * inner; i++) lanes[i] = -0.0;
    if (isa != PLUMB_ISA_PORTABLE) {
        for (uint64_t r = 0; r < rows; r++)
            add_row(ek, lanes + (r % RT_SUM_LANES) * inner, base + r * stride * es, (size_t)inner, isa);
        for (unsigned w = RT_SUM_LANES / 2; w >= 1; w /= 2)
            for (unsigned i = 0; i < w; i++)
                add_row(EL_F64, lanes + i * inner, lanes + (i + w) * inner, (size_t)inner, isa);
        memcpy(out, lanes, inner * sizeof(double));
        return;
    }
    for (uint64_t r = 0; r < rows; r++) {
        double *l = lanes + (r % RT_SUM_LANES) * inner;
        const unsigned char *src = base + r * stride * es;
        if (ek == EL_F32) {
            const float *s = (const float *)src;
            for (uint64_t j = 0; j < inner; j++) l[j] = l[j] + (double)s[j];
        } else if (ek == EL_F64) {
            const double *s = (const double *)src;
            for (uint64_t j = 0; j < inner; j++) l[j] = l[j] + s[j];
        } else {
            for (uint64_t j = 0; j < inner; j++) l[j] = l[j] + ld(ek, src, (size_t)j);
        }
    }
    for (unsigned w = RT_SUM_LANES / 2; w >= 1; w /= 2)
        for (unsigned i = 0; i < w; i++)
            for (uint64_t j = 0; j < inner; j++)
                lanes[i * inner + j] = lanes[i * inner + j] + lanes[(i + w) * inner + j];
    memcpy(out, lanes, inner * sizeof(double));
}

/* Column sums of `inner` columns of rows `stride` elements apart. */
static void col_sum(el_kind ek, const unsigned char *base, uint64_t rows, uint64_t stride, uint64_t inner,
                    double *buf, double *out, int isa)
{
    if (rows <= RT_SUM_BLOCK) {
        if (rows == 0) {
            for (uint64_t j = 0; j < inner; j++) out[j] = -0.0;
            return;
        }
        col_block(ek, base, rows, stride, inner, buf, out, isa);
        return;
    }
    uint64_t nb = (rows + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK, h = 1;
    while (h * 2 < nb) h *= 2;
    uint64_t split = h * RT_SUM_BLOCK;
    double *tmp = buf + RT_SUM_LANES * inner;   /* next level's partial */
    col_sum(ek, base, split, stride, inner, tmp + inner, out, isa);
    col_sum(ek, base + split * stride * el_size(ek), rows - split, stride, inner, tmp + inner, tmp, isa);
    for (uint64_t j = 0; j < inner; j++) out[j] = out[j] + tmp[j];
}

static unsigned col_levels(uint64_t rows)
{
    unsigned lv = 1;
    uint64_t nb = (rows + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK;
    while (nb > 1) { nb = (nb + 1) / 2; lv++; }
    return lv;
}

/* Columns per strip of the column paths (a function of the element type
 * and the kind alone): the unit the threads share. Columns are folded
 * independently, each in its fixed order, so any split gives the same bits.
 * The exact folds keep one accumulator per column, 16 KiB of them per strip
 * (RV_STRIP_BYTES). Sums and products take whole rows: a sum's
 * RT_SUM_LANES rows of double lanes per column would fit L2 in strips of
 * 256 columns, but reading 1 KiB of each 16 KiB row per pass made the
 * column sum of a 4096x4096 f32 four times slower (21 ms against 5), and
 * four strips of 1024 columns twice slower (10 ms): the sums read one row
 * at a time and lose the prefetch at every 4 KiB. So a slice's sums stay on
 * one thread, as before ... */
#define RV_SUM_STRIP 4096u
static uint64_t col_strip(const red_plan *p)
{
    /* ... up to RV_SUM_STRIP columns: wider slices (64x512x512 summed over
     * dim 0: 262144 columns) kept 32 rows of double lanes per column, 64
     * MiB, read and written once per input row, at 2.7 GB/s and 0.26x
     * numpy; strips of 4096 columns keep the lanes within 1 MiB and still
     * read 16 KiB of each row per pass, as the 4096x4096 column sum does */
    if (plumb_dtype_is_float(p->t) && (p->kind == RK_ADD || p->kind == RK_MUL)) return RV_SUM_STRIP;
    uint64_t w = RV_STRIP_BYTES / plumb_dtype_size(p->t);
    return w ? w : 1;
}

/* Reduces columns [j0, j0 + w) of outer slice o of a plan with inner > 1:
 * whole rows of the strip are folded into a row of accumulators, the kept
 * dimension in the vector lanes. */
static void reduce_cols(red_plan *p, uint64_t o, uint64_t j0, uint64_t w, double *buf, int isa)
{
    size_t es = plumb_dtype_size(p->t);
    const unsigned char *base = (const unsigned char *)p->src + (o * p->len * p->inner + j0) * es;
    uint64_t inner = p->inner, n = p->len;
    uint64_t o0 = o * inner + j0;   /* first output element */
#if RT_X86
    int vop = plan_vop(p);
    if (vec_usable(p, isa, vop)) {
        unsigned char *d = (unsigned char *)p->dst + o0 * es;
        if (pick_col(plan_width(p), isa)(vop, d, base, (size_t)n, (size_t)inner, (size_t)w, p->init_bits,
                                         inf_bits(p->t))) {
            if (p->t == PLUMB_I1)
                for (uint64_t j = 0; j < w; j++) d[j] &= 1;
            return;
        }
        /* a NaN: the sequential loop below rewrites the strip */
    }
#endif
    if (plumb_dtype_is_float(p->t) && p->kind == RK_ADD && half_comp(p->ek, n)) {
        /* exact column sums in double (the rows added element-wise, each
         * row's stats taken on the way) where half_exact_ok allows, else
         * half_csum's sum per column, the columns in the vector lanes:
         * init, then the rows in order (buf holds more than 2w doubles) */
        double *hi = buf, *lo = buf + w;
        double init = plumb_load_f64(p->t, &p->init_bits, 0);
        half_stats st = {0, 0xffffu};
        half_stats_add(&st, (unsigned)p->init_bits);
        for (uint64_t j = 0; j < w; j++) hi[j] = init;
        for (uint64_t i = 0; i < n; i++) {
            const unsigned char *r = base + i * inner * es;
            (void)half_xsum(p->ek, r, (size_t)w, &st, isa);
            add_row(p->ek, hi, r, (size_t)w, isa);
        }
        if (half_exact_ok(p->ek, &st, n + 1)) {
            for (uint64_t j = 0; j < w; j++)
                plumb_store_bits(p->t, p->dst, (size_t)(o0 + j), round_to(p->t, hi[j]));
            return;
        }
        for (uint64_t j = 0; j < w; j++) hi[j] = init, lo[j] = 0.0;
        for (uint64_t i = 0; i < n; i++) {
            const unsigned char *r = base + i * inner * es;
            for (uint64_t j = 0; j < w; j++) rt_two_add(&hi[j], &lo[j], ld(p->ek, r, (size_t)j));
        }
        for (uint64_t j = 0; j < w; j++)
            plumb_store_bits(p->t, p->dst, (size_t)(o0 + j), round_to(p->t, rt_sum_odd(hi[j], lo[j])));
        return;
    }
    if (plumb_dtype_is_float(p->t) && p->kind == RK_ADD) {
        double *out = buf;
        col_sum(p->ek, base, n, inner, w, buf + w, out, isa);
        if (p->ek == EL_F64)
            for (uint64_t j = 0; j < w; j++)
                out[j] = f64_checked(out[j], (const double *)base + j, (size_t)n, (size_t)inner);
        double init = plumb_load_f64(p->t, &p->init_bits, 0);
        if (p->t == PLUMB_F32) {   /* round_to's conversion, without the per-element switch */
            float *d = (float *)p->dst + o0;
            for (uint64_t j = 0; j < w; j++) d[j] = (float)(init + out[j]);
        } else if (p->t == PLUMB_F64) {
            double *d = (double *)p->dst + o0;
            for (uint64_t j = 0; j < w; j++) d[j] = init + out[j];
        } else {
            for (uint64_t j = 0; j < w; j++)
                plumb_store_bits(p->t, p->dst, (size_t)(o0 + j), round_to(p->t, init + out[j]));
        }
        return;
    }
    for (uint64_t j = 0; j < w; j++) {
        size_t oi = (size_t)(o0 + j);
        if (plumb_dtype_is_float(p->t)) {
            double r = plumb_load_f64(p->t, &p->init_bits, 0);
            long double q = r;
            for (uint64_t i = 0; i < n; i++) {
                double v = ld(p->ek, base, (size_t)(i * inner + j));
                if (p->kind == RK_MUL) q *= v;
                else r = p->kind == RK_MAX ? fmax_d(r, v) : fmin_d(r, v);
            }
            if (p->kind == RK_MUL && p->t == PLUMB_F64) {
                plumb_store_bits(p->t, p->dst, oi, plumb_f64_bits((double)q));
                continue;
            }
            plumb_store_bits(p->t, p->dst, oi, round_to(p->t, p->kind == RK_MUL ? (double)q : r));
        } else {
            uint64_t acc = load_int(p->t, &p->init_bits, 0);
            for (uint64_t i = 0; i < n; i++)
                acc = ifold(p->kind, p->t, acc, load_int(p->t, base, i * inner + j));
            plumb_store_bits(p->t, p->dst, oi, acc);
        }
    }
}

/* Work item i: row i when inner == 1, else strip i % nstrip of outer slice
 * i / nstrip. */
static void red_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    red_job *j = ctx;
    for (uint64_t it = begin; it < end; it++) {
        if (j->p->inner == 1) {
            reduce_row(j->p, it, j->isa);
            continue;
        }
        uint64_t o = it / j->nstrip, j0 = (it % j->nstrip) * j->strip;
        uint64_t w = j->p->inner - j0 < j->strip ? j->p->inner - j0 : j->strip;
        reduce_cols(j->p, o, j0, w, j->colbuf ? j->colbuf + (size_t)chunk * j->colbuf_len : NULL, j->isa);
    }
}

/* ---- transposition into [kept..., reduced...] ---------------------------------------- */

typedef struct tr_job {
    const unsigned char *src;
    unsigned char *dst;
    size_t es;
    uint32_t rank;
    int64_t odims[PLUMB_MAX_RANK];   /* dims in destination order */
    int64_t ostr[PLUMB_MAX_RANK];    /* source stride (elements) of each destination dim */
} tr_job;

static void tr_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    tr_job *t = ctx;
    int64_t idx[PLUMB_MAX_RANK];
    uint64_t lin = begin;
    for (uint32_t d = t->rank; d-- > 0;) {
        idx[d] = t->odims[d] ? (int64_t)(lin % (uint64_t)t->odims[d]) : 0;
        lin = t->odims[d] ? lin / (uint64_t)t->odims[d] : 0;
    }
    int64_t off = 0;
    for (uint32_t d = 0; d < t->rank; d++) off += idx[d] * t->ostr[d];
    /* A last destination dim that is contiguous in the source (a kept
     * dim left innermost) moves as runs. */
    uint32_t last = t->rank - 1;
    bool contig = t->ostr[last] == 1;
    for (uint64_t i = begin; i < end;) {
        uint64_t k = 1;
        if (contig) {
            k = (uint64_t)(t->odims[last] - idx[last]);
            if (k > end - i) k = end - i;
        }
        memcpy(t->dst + i * t->es, t->src + (uint64_t)off * t->es, (size_t)k * t->es);
        i += k;
        idx[last] += (int64_t)k - 1;
        off += t->ostr[last] * ((int64_t)k - 1);
        for (uint32_t d = t->rank; d-- > 0;) {
            off += t->ostr[d];
            if (++idx[d] < t->odims[d]) break;
            off -= t->ostr[d] * idx[d];
            idx[d] = 0;
        }
    }
}

/* ---- generic bodies --------------------------------------------------------------- */

static bool reduce_generic(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                           uint32_t n, const bool *red)
{
    const plumb_tensor *a0 = in[0];
    uint32_t rank = a0->rank;
    int64_t str[PLUMB_MAX_RANK];
    int64_t s = 1;
    for (uint32_t d = rank; d-- > 0;) { str[d] = s; s *= a0->dims[d]; }
    int64_t kd[PLUMB_MAX_RANK], ks[PLUMB_MAX_RANK], rd[PLUMB_MAX_RANK], rs[PLUMB_MAX_RANK];
    uint32_t nk = 0, nr = 0;
    uint64_t rlen = 1;
    for (uint32_t d = 0; d < rank; d++) {
        if (red[d]) { rd[nr] = a0->dims[d]; rs[nr++] = str[d]; rlen *= (uint64_t)a0->dims[d]; }
        else { kd[nk] = a0->dims[d]; ks[nk++] = str[d]; }
    }
    /* scalar tensors for the body: acc (n), x (n), results (n) */
    plumb_tensor *sc = rt_scratch(x, op, sizeof(plumb_tensor) * 3 * n);
    if (!sc) return false;
    uint64_t *store = rt_scratch(x, op, sizeof(uint64_t) * 3 * n);
    if (!store) return false;
    plumb_tensor *args[2 * 16], *res[16];
    if (n > 16) return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "reduce with %u inputs (at most 16 supported)", n);
    for (uint32_t i = 0; i < 3 * n; i++) {
        memset(&sc[i], 0, sizeof sc[i]);
        sc[i].dtype = in[i % n]->dtype;
        sc[i].rank = 0;
        sc[i].data = &store[i];
        sc[i].nbytes = plumb_dtype_size(sc[i].dtype);
    }
    for (uint32_t i = 0; i < n; i++) {
        args[i] = &sc[i];
        args[n + i] = &sc[n + i];
        res[i] = &sc[2 * n + i];
        /* the accumulator and result types are the init values' */
        sc[i].dtype = sc[2 * n + i].dtype = in[n + i]->dtype;
        sc[i].nbytes = sc[2 * n + i].nbytes = plumb_dtype_size(in[n + i]->dtype);
    }
    uint64_t nout = plumb_tensor_numel(out[0]);
    int64_t ki[PLUMB_MAX_RANK] = {0};
    for (uint64_t o = 0; o < nout; o++) {
        int64_t kbase = 0;
        for (uint32_t d = 0; d < nk; d++) kbase += ki[d] * ks[d];
        for (uint32_t i = 0; i < n; i++)
            store[i] = plumb_load_bits(in[n + i]->dtype, in[n + i]->data, 0);
        int64_t ri[PLUMB_MAX_RANK] = {0};
        int64_t off = kbase;
        for (uint64_t r = 0; r < rlen; r++) {
            for (uint32_t i = 0; i < n; i++)
                store[n + i] = plumb_load_bits(in[i]->dtype, in[i]->data, (size_t)off);
            if (!rt_eval_region(x, &op->regions[0], args, res))
                return false;
            for (uint32_t i = 0; i < n; i++) store[i] = store[2 * n + i];
            for (uint32_t d = nr; d-- > 0;) {
                off += rs[d];
                if (++ri[d] < rd[d]) break;
                off -= rs[d] * ri[d];
                ri[d] = 0;
            }
        }
        for (uint32_t i = 0; i < n; i++)
            plumb_store_bits(out[i]->dtype, out[i]->data, (size_t)o, store[i]);
        for (uint32_t d = nk; d-- > 0;) {
            if (++ki[d] < kd[d]) break;
            ki[d] = 0;
        }
    }
    return true;
}

/* ---- bodies of elementwise ops, many results at a time ------------------------------ */

/* A body the fast paths do not recognise (argmax/argmin's value-index
 * pairs, a max of absolute values, any N-input fold) is evaluated for
 * RL_LANES result elements at once: each step takes the next reduced
 * element of every lane (gathered RL_STEPS at a time, see rl_gather), then runs each body op once over the lanes
 * through rt_ew_tile, the elementwise kernels' own entry on buffers. Every
 * lane still folds its elements one at a time in the reference's order
 * (init, then the reduced indices in row-major order), and each op is the
 * same elementwise kernel the per-element path calls, so the results are
 * reduce_generic's, bit for bit, at every ISA level; only the dispatch
 * (a region evaluation per element: 2.2 s for an argmax over 4096x1024
 * f32) is shared by the lanes. Bodies of other ops (a nested reduce, a
 * call, complex values) keep reduce_generic. */
#define RL_LANES 256u
#define RL_STEPS 16u   /* reduced elements gathered per lane at a time */
#define RL_MAX_VALS 64u

typedef struct rl_plan {
    uint32_t n;                      /* inputs (= results) */
    uint32_t n_vals;                 /* body args (2n), then constants and op results */
    const ir_value *val[RL_MAX_VALS];
    uint8_t es[RL_MAX_VALS];         /* element bytes of each value */
    uint32_t n_ops;
    const ir_op *ops[RL_MAX_VALS];
    uint32_t op_in[RL_MAX_VALS][3], op_out[RL_MAX_VALS];
    uint32_t ret[16];                /* value index of each returned value */
    /* iteration space (as reduce_generic) */
    uint32_t nk, nr;
    int64_t kd[PLUMB_MAX_RANK], ks[PLUMB_MAX_RANK], rd[PLUMB_MAX_RANK], rs[PLUMB_MAX_RANK];
    uint64_t rlen, nout;
    rt_exec *x;
    plumb_tensor *const *in, *const *out;
    unsigned char *scratch;          /* per chunk: chunk_bytes */
    size_t chunk_bytes;
    _Atomic bool failed;
} rl_plan;

static int rl_find(const rl_plan *p, const ir_value *v)
{
    for (uint32_t i = 0; i < p->n_vals; i++)
        if (p->val[i] == v) return (int)i;
    return -1;
}

static bool rl_add_val(rl_plan *p, const ir_value *v)
{
    size_t es = plumb_dtype_size(v->type.dtype);
    if (p->n_vals >= RL_MAX_VALS || v->type.rank != 0 || es == 0 || es > 8) return false;
    p->val[p->n_vals] = v;
    p->es[p->n_vals++] = (uint8_t)es;
    return true;
}

/* Whether the body is a straight line of rt_ew_tile ops and scalar
 * constants on the arguments; fills p's value and op tables. */
static bool rl_compile(rl_plan *p, const ir_op *op, uint32_t n)
{
    const ir_block *b = &op->regions[0];
    if (n > 16 || b->n_args != 2 * n) return false;
    p->n = n;
    for (uint32_t i = 0; i < b->n_args; i++)
        if (!rl_add_val(p, b->args[i])) return false;
    for (const ir_op *o = b->first; o; o = o->next) {
        if (o->code == PLUMB_OP_RETURN) {
            if (o->n_operands != n || o->next) return false;
            for (uint32_t i = 0; i < n; i++) {
                int v = rl_find(p, o->operands[i]);
                if (v < 0 || p->es[v] != plumb_dtype_size(op->results[i]->type.dtype)) return false;
                p->ret[i] = (uint32_t)v;
            }
            return true;
        }
        if (o->n_regions || p->n_ops >= RL_MAX_VALS) return false;
        if (o->code == PLUMB_OP_CONSTANT) {
            const plumb_tensor *c = o->a.value;
            if (o->n_results != 1 || !c || c->rank != 0 || !rl_add_val(p, o->results[0]) ||
                c->nbytes != p->es[p->n_vals - 1])
                return false;
            p->op_out[p->n_ops] = p->n_vals - 1;
            p->ops[p->n_ops++] = o;
            continue;
        }
        if (!rt_ew_supported(o)) return false;
        for (uint32_t k = 0; k < o->n_operands; k++) {
            int v = rl_find(p, o->operands[k]);
            if (v < 0) return false;   /* a value from outside the body */
            p->op_in[p->n_ops][k] = (uint32_t)v;
        }
        if (!rl_add_val(p, o->results[0])) return false;
        p->op_out[p->n_ops] = p->n_vals - 1;
        p->ops[p->n_ops++] = o;
    }
    return false;   /* no return */
}

/* The next tn reduced elements of nl lanes, es bytes each, into d as tn
 * rows of RL_LANES: d[t][l] = s[kb[l] + ro[t]]. Lane by lane, so that a
 * lane's elements, consecutive when the innermost reduced dim is (a row
 * reduction: lanes are rows, a row stride apart), are read as one run of a
 * cache line or more; step by step (one element per lane and step) the
 * argmax over 4096x1024 f32 spent 80% of its time in the gather, every
 * lane's line evicted by the other lanes' (4 KiB apart: one L1 set) before
 * its next element was read. pf >= 0: the offset of the next gather's
 * first element, prefetched per lane (each lane is its own stream of one
 * line per gather, a page apart: the hardware prefetcher does not follow;
 * the 256 other lanes' gathers give it time to arrive). */
static void rl_gather(unsigned char *d, const unsigned char *s, const int64_t *kb, const int64_t *ro, uint32_t nl,
                      uint32_t tn, size_t es, int64_t pf)
{
#define RL_G(T)                                                                          \
    do {                                                                                 \
        T *d_ = (T *)(void *)d;                                                          \
        const T *s_ = (const T *)(const void *)s;                                        \
        for (uint32_t l = 0; l < nl; l++) {                                              \
            if (pf >= 0) __builtin_prefetch(s_ + kb[l] + pf, 0, 3);                      \
            for (uint32_t t = 0; t < tn; t++) d_[(size_t)t * RL_LANES + l] = s_[kb[l] + ro[t]]; \
        }                                                                                \
    } while (0)
    switch (es) {
    case 1: RL_G(uint8_t); break;
    case 2: RL_G(uint16_t); break;
    case 4: RL_G(uint32_t); break;
    default: RL_G(uint64_t); break;
    }
#undef RL_G
}

static void rl_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    rl_plan *p = ctx;
    unsigned char *buf = p->scratch + (size_t)chunk * p->chunk_bytes;
    unsigned char *vb[RL_MAX_VALS + 16], *tile[16];
    for (uint32_t v = 0; v < p->n_vals + p->n; v++) vb[v] = buf + (size_t)v * RL_LANES * 8;
    unsigned char **stage = vb + p->n_vals;
    unsigned char *tiles = buf + (size_t)(p->n_vals + p->n) * RL_LANES * 8;
    for (uint32_t i = 0; i < p->n; i++) tile[i] = tiles + (size_t)i * RL_STEPS * RL_LANES * 8;
    int64_t *kb = (int64_t *)(void *)(tiles + (size_t)p->n * RL_STEPS * RL_LANES * 8);
    int64_t ro[RL_STEPS];
    /* constants: the same in every lane */
    for (uint32_t o = 0; o < p->n_ops; o++)
        if (p->ops[o]->code == PLUMB_OP_CONSTANT) {
            uint32_t v = p->op_out[o];
            for (uint32_t l = 0; l < RL_LANES; l++)
                memcpy(vb[v] + (size_t)l * p->es[v], p->ops[o]->a.value->data, p->es[v]);
        }
    for (uint64_t it = begin; it < end; it++) {
        uint64_t o0 = it * RL_LANES;
        uint32_t nl = (uint32_t)(p->nout - o0 < RL_LANES ? p->nout - o0 : RL_LANES);
        /* each lane's base offset: the kept dims of its result index */
        int64_t ki[PLUMB_MAX_RANK];
        uint64_t q = o0;
        for (uint32_t d = p->nk; d-- > 0;) { ki[d] = (int64_t)(q % (uint64_t)p->kd[d]); q /= (uint64_t)p->kd[d]; }
        for (uint32_t l = 0; l < nl; l++) {
            int64_t b = 0;
            for (uint32_t d = 0; d < p->nk; d++) b += ki[d] * p->ks[d];
            kb[l] = b;
            for (uint32_t d = p->nk; d-- > 0;) {
                if (++ki[d] < p->kd[d]) break;
                ki[d] = 0;
            }
        }
        for (uint32_t i = 0; i < p->n; i++)
            for (uint32_t l = 0; l < nl; l++)
                memcpy(vb[i] + (size_t)l * p->es[i], p->in[p->n + i]->data, p->es[i]);
        int64_t ri[PLUMB_MAX_RANK] = {0}, roff = 0;
        for (uint64_t r0 = 0; r0 < p->rlen; r0 += RL_STEPS) {
            uint32_t tn = (uint32_t)(p->rlen - r0 < RL_STEPS ? p->rlen - r0 : RL_STEPS);
            for (uint32_t t = 0; t < tn; t++) {
                ro[t] = roff;
                for (uint32_t d = p->nr; d-- > 0;) {
                    roff += p->rs[d];
                    if (++ri[d] < p->rd[d]) break;
                    roff -= p->rs[d] * ri[d];
                    ri[d] = 0;
                }
            }
            int64_t pf = r0 + tn < p->rlen ? roff : -1;   /* the next gather's first element */
            for (uint32_t i = 0; i < p->n; i++)
                rl_gather(tile[i], p->in[i]->data, kb, ro, nl, tn, p->es[p->n + i], pf);
            for (uint32_t t = 0; t < tn; t++) {
                for (uint32_t i = 0; i < p->n; i++)
                    vb[p->n + i] = tile[i] + (size_t)t * RL_LANES * p->es[p->n + i];
                for (uint32_t o = 0; o < p->n_ops; o++) {
                    const ir_op *op = p->ops[o];
                    if (op->code == PLUMB_OP_CONSTANT) continue;
                    const void *ins[3];
                    for (uint32_t k = 0; k < op->n_operands; k++) ins[k] = vb[p->op_in[o][k]];
                    if (!rt_ew_tile(p->x, op, ins, vb[p->op_out[o]], nl)) {
                        p->failed = true;
                        return;
                    }
                }
                /* results to the accumulators; through a stage, since a
                 * body may return its arguments in another order */
                for (uint32_t i = 0; i < p->n; i++) memcpy(stage[i], vb[p->ret[i]], (size_t)nl * p->es[i]);
                for (uint32_t i = 0; i < p->n; i++) memcpy(vb[i], stage[i], (size_t)nl * p->es[i]);
            }
        }
        for (uint32_t i = 0; i < p->n; i++)
            for (uint32_t l = 0; l < nl; l++) {
                uint64_t bits = 0;
                memcpy(&bits, vb[i] + (size_t)l * p->es[i], p->es[i]);
                plumb_store_bits(p->out[i]->dtype, p->out[i]->data, (size_t)(o0 + l), bits);
            }
    }
}

/* reduce_generic's results through rl_range; false (nothing done, no
 * error) when the body is not of elementwise ops, or the types do not
 * line up (reduce_generic then runs and reports). */
static bool reduce_lanes(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                         uint32_t n, const bool *red, bool *done)
{
    *done = false;
    rl_plan *p = rt_scratch(x, op, sizeof *p);
    if (!p) return false;
    memset(p, 0, sizeof *p);
    if (!rl_compile(p, op, n)) return true;
    for (uint32_t i = 0; i < n; i++) {
        /* accumulators, elements and results of one type per input, that
         * of the body's arguments (reduce_generic's checks are the
         * verifier's; anything else goes there) */
        plumb_dtype t = in[n + i]->dtype;
        if (p->val[i]->type.dtype != t || p->val[n + i]->type.dtype != in[i]->dtype || in[i]->dtype != t ||
            out[i]->dtype != t || p->val[p->ret[i]]->type.dtype != t)
            return true;
    }
    const plumb_tensor *a0 = in[0];
    int64_t str[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = a0->rank; d-- > 0;) { str[d] = s; s *= a0->dims[d]; }
    p->rlen = 1;
    for (uint32_t d = 0; d < a0->rank; d++) {
        if (red[d]) { p->rd[p->nr] = a0->dims[d]; p->rs[p->nr++] = str[d]; p->rlen *= (uint64_t)a0->dims[d]; }
        else { p->kd[p->nk] = a0->dims[d]; p->ks[p->nk++] = str[d]; }
    }
    p->nout = plumb_tensor_numel(out[0]);
    p->x = x;
    p->in = in;
    p->out = out;
    uint64_t items = (p->nout + RL_LANES - 1) / RL_LANES;
    uint64_t per = p->rlen * RL_LANES, grain = per >= 65536 ? 1 : 65536 / (per ? per : 1);
    uint32_t chunks = rt_parallel_chunks(x, items, grain);
    p->chunk_bytes = (size_t)(p->n_vals + n) * RL_LANES * 8 + (size_t)n * RL_STEPS * RL_LANES * 8 +
                     RL_LANES * sizeof(int64_t);
    if (!(p->scratch = rt_scratch(x, op, p->chunk_bytes * (chunks ? chunks : 1)))) return false;
    rt_parallel_for(x, items, grain, rl_range, p);
    if (p->failed)
        return true;   /* an op refused its lanes: reduce_generic runs (and names the error) */
    *done = true;
    return true;
}

/* ---- one long float sum over threads ------------------------------------------------ */

typedef struct blk_job {
    const red_plan *p;
    int isa;
    double *part;
} blk_job;

static void blk_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    blk_job *j = ctx;
    size_t es = el_size(j->p->ek);
    for (uint64_t b = begin; b < end; b++) {
        uint64_t s = b * RT_SUM_BLOCK, e = s + RT_SUM_BLOCK < j->p->len ? s + RT_SUM_BLOCK : j->p->len;
        j->part[b] = block_sum(j->p->ek, (const unsigned char *)j->p->src + s * es, (size_t)(e - s), j->isa);
    }
}

/* Exact half sums of one long row's blocks (half_exact_ok decides after
 * all of them are in): each block's double sum and stats. */
typedef struct hblk_job {
    const red_plan *p;
    int isa;
    double *part;
    half_stats *st;
} hblk_job;

static void hblk_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    hblk_job *j = ctx;
    for (uint64_t b = begin; b < end; b++) {
        uint64_t s = b * RT_SUM_BLOCK, e = s + RT_SUM_BLOCK < j->p->len ? s + RT_SUM_BLOCK : j->p->len;
        j->st[b] = (half_stats){0, 0xffffu};
        j->part[b] = half_xsum(j->p->ek, (const uint16_t *)j->p->src + s, (size_t)(e - s), &j->st[b], j->isa);
    }
}

/* A long half sum: the blocks' exact double sums on the threads, added in
 * any order (exact too); a row whose stats fail half_exact_ok is summed
 * again by half_csum in one pass (its blocks' partials would need their
 * errors). */
static bool reduce_one_row_half(rt_exec *x, const ir_op *op, const red_plan *p)
{
    int isa = (int)rt_isa(x);
    double init = plumb_load_f64(p->t, &p->init_bits, 0);
    uint64_t nb = (p->len + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK;
    hblk_job j = {p, isa, rt_scratch(x, op, (size_t)nb * (sizeof(double) + sizeof(half_stats))), NULL};
    if (!j.part) return false;
    j.st = (half_stats *)(void *)(j.part + nb);
    rt_parallel_for(x, nb, 16, hblk_range, &j);
    half_stats st = {0, 0xffffu};
    half_stats_add(&st, (unsigned)p->init_bits);
    double sum = -0.0;
    for (uint64_t b = 0; b < nb; b++) {
        half_stats_merge(&st, &j.st[b]);
        sum += j.part[b];
    }
    double r = half_exact_ok(p->ek, &st, p->len + 1) ? init + sum : half_csum(p->ek, p->src, (size_t)p->len, 1, init, isa);
    plumb_store_bits(p->t, p->dst, 0, round_to(p->t, r));
    return true;
}

/* Block partials land in a per-block array whatever the chunking and are
 * folded in fold_blocks' tree, which is row_sum's: the same bits as the
 * serial path. */
static bool reduce_one_row(rt_exec *x, const ir_op *op, const red_plan *p)
{
    if (half_comp(p->ek, p->len))
        return reduce_one_row_half(x, op, p);
    uint64_t nb = (p->len + RT_SUM_BLOCK - 1) / RT_SUM_BLOCK;
    blk_job j = {p, (int)rt_isa(x), rt_scratch(x, op, (size_t)nb * sizeof(double))};
    if (!j.part) return false;
    rt_parallel_for(x, nb, 16, blk_range, &j);
    double init = plumb_load_f64(p->t, &p->init_bits, 0);
    double sum = fold_blocks(j.part, (size_t)nb);
    if (p->ek == EL_F64) sum = f64_checked(sum, p->src, (size_t)p->len, 1);
    plumb_store_bits(p->t, p->dst, 0, round_to(p->t, init + sum));
    return true;
}

/* ---- the kernel ------------------------------------------------------------------- */

bool rt_op_REDUCE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_results;
    if (n == 0 || op->n_operands != 2 * n || op->n_regions != 1)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "expects N inputs, N init values, N results and one body");
    const plumb_tensor *a0 = in[0];
    bool red[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= a0->rank || red[d])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension %lld is out of range or repeated", (long long)d);
        red[d] = true;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (in[i]->rank != a0->rank || memcmp(in[i]->dims, a0->dims, a0->rank * sizeof(int64_t)) != 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "input %u's shape differs from input 0's", i);
        if (in[n + i]->rank != 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "init value %u is not a scalar", i);
        if (out[i]->rank != a0->rank - op->a.dims.n)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "result %u has the wrong rank", i);
    }
    uint64_t nout = plumb_tensor_numel(out[0]);
    if (nout == 0)
        return true;
    red_kind kind = n == 1 ? recognise(op, a0->dtype) : RK_GENERIC;
    if (kind != RK_GENERIC && (in[1]->dtype != a0->dtype || out[0]->dtype != a0->dtype))
        kind = RK_GENERIC;
    if (kind != RK_GENERIC && plumb_dtype_is_lowp(a0->dtype))   /* FP8/FP6/FP4, i2/i4/ui2/ui4 */
        return rt_lowp_reduce(x, op, in, out, red);                /* runtime/k_lowp_reduce.c */
    if (kind == RK_GENERIC) {
        bool done = false;
        /* (value, index) selections: argmax, argmin (runtime/k_argfold.c) */
        if (n == 2 && !rt_argfold(x, op, in, out, red, &done)) return false;
        if (done) return true;
        if (!reduce_lanes(x, op, in, out, n, red, &done)) return false;
        return done || reduce_generic(x, op, in, out, n, red);
    }

    red_plan p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.kind = kind;
    p.t = a0->dtype;
    p.dst = out[0]->data;
    p.init_bits = plumb_load_bits(p.t, in[1]->data, 0);
    p.ek = p.t == PLUMB_F64 ? EL_F64 : p.t == PLUMB_F16 ? EL_F16 : p.t == PLUMB_BF16 ? EL_BF16 : EL_F32;
    p.nout = nout;
    /* Merge into runs of kept/reduced dims (size-1 dims join either). */
    int pattern[PLUMB_MAX_RANK];
    uint64_t runlen[PLUMB_MAX_RANK];
    uint32_t nruns = 0;
    for (uint32_t d = 0; d < a0->rank; d++) {
        if (a0->dims[d] == 1) continue;
        int r = red[d] ? 1 : 0;
        if (nruns && pattern[nruns - 1] == r) runlen[nruns - 1] *= (uint64_t)a0->dims[d];
        else { pattern[nruns] = r; runlen[nruns++] = (uint64_t)a0->dims[d]; }
    }
    p.outer = 1; p.len = 1; p.inner = 1;
    p.src = a0->data;
    uint32_t k = 0;
    if (k < nruns && pattern[k] == 0) p.outer = runlen[k++];
    if (k < nruns && pattern[k] == 1) p.len = runlen[k++];
    if (k < nruns && pattern[k] == 0) p.inner = runlen[k++];
    if (plumb_tensor_numel(a0) == 0) {
        p.outer = nout; p.len = 0; p.inner = 1;
    } else if (k < nruns) {
        /* general layout: copy into [kept..., reduced...] order, or, when
         * the innermost dims are kept, into [kept..., reduced..., innermost
         * kept...] so that the column paths fold whole rows of them (the
         * copy then moves contiguous runs); either way the reduced indices
         * keep their row-major order, the reference's, so sums keep their
         * bits. */
        size_t es = plumb_dtype_size(p.t);
        uint64_t total = plumb_tensor_numel(a0);
        unsigned char *tmp = rt_scratch(x, op, (size_t)total * es);
        if (!tmp) return false;
        tr_job t;
        memset(&t, 0, sizeof t);
        t.src = a0->data; t.dst = tmp; t.es = es; t.rank = a0->rank;
        int64_t str[PLUMB_MAX_RANK], s = 1;
        for (uint32_t d = a0->rank; d-- > 0;) { str[d] = s; s *= a0->dims[d]; }
        uint32_t q = 0, tail = a0->rank;   /* dims [tail, rank) stay innermost */
        while (tail > 0 && (!red[tail - 1] || a0->dims[tail - 1] == 1)) tail--;
        p.outer = 1; p.len = 1; p.inner = 1;
        for (int pass = 0; pass < 3; pass++)
            for (uint32_t d = 0; d < a0->rank; d++) {
                int cls = d >= tail ? 2 : red[d] ? 1 : 0;
                if (cls != pass) continue;
                t.odims[q] = a0->dims[d]; t.ostr[q++] = str[d];
                uint64_t *len = pass == 0 ? &p.outer : pass == 1 ? &p.len : &p.inner;
                *len *= (uint64_t)a0->dims[d];
            }
        rt_parallel_for(x, total, 1 << 16, tr_range, &t);
        p.src = tmp;
    }
    red_job j;
    memset(&j, 0, sizeof j);
    j.p = &p;
    j.isa = (int)rt_isa(x);
    /* Work items: rows (inner == 1) or column strips of each outer slice,
     * so that the columns of a slice wider than a strip (a leading dim
     * reduced) spread over the threads too; a function of the shape alone,
     * and columns are independent, so the bits do not depend on the split.
     * grain: about 64K input elements per chunk. */
    uint64_t items = p.outer, per = p.len;
    j.strip = 1;
    j.nstrip = 1;
    if (p.inner > 1) {
        j.strip = col_strip(&p);
        if (j.strip > p.inner) j.strip = p.inner;
        j.nstrip = (p.inner + j.strip - 1) / j.strip;
        items = p.outer * j.nstrip;
        per = p.len * j.strip;
    }
    if (per == 0) per = 1;
    uint64_t grain = per >= 65536 ? 1 : 65536 / per;
    if (p.inner > 1 && plumb_dtype_is_float(p.t) && kind == RK_ADD) {
        uint32_t chunks = rt_parallel_chunks(x, items, grain);
        j.colbuf_len = (size_t)(j.strip * (1 + (RT_SUM_LANES + 1) * (col_levels(p.len) + 1)));
        j.colbuf = rt_scratch(x, op, j.colbuf_len * sizeof(double) * (chunks ? chunks : 1));
        if (!j.colbuf) return false;
    }
    /* one long row: its blocks go to the threads */
    if (p.inner == 1 && p.outer == 1 && p.len > 4 * RT_SUM_BLOCK && plumb_dtype_is_float(p.t) && kind == RK_ADD)
        return reduce_one_row(x, op, &p);
    rt_parallel_for(x, items, grain, red_range, &j);
    return true;
}
