/* Packed, cache-blocked GEMM: C[m x n] = A[m x k] * B[k x n].
 *
 * Structure (the usual one for CPU GEMM, after Goto and van de Geijn,
 * "Anatomy of high-performance matrix multiplication", ACM TOMS 2008):
 * B is packed once into column panels of NR columns per KC block of k;
 * work items are (MC rows of A) x (NCB columns of C); each item packs its
 * A block into MR-row panels and runs an MR x NR register-tile
 * microkernel over it. Items run on the thread pool.
 *
 * Determinism: every element of C is computed by one item, in the same
 * order (k blocks of KC in increasing order; inside a block, k in
 * increasing order with one accumulator per element) whatever the thread
 * count, so results are bitwise identical for 1 and 2 threads. The order
 * differs between ISA levels (tile shapes, KC), which the data-dependent
 * bound allows.
 *
 * Signed zeros: accumulators start at -0, the identity of IEEE addition
 * (-0 + x = x for every x, +0 included), so a sum whose products are all -0
 * stays -0 as the exact sum is; bf16's padding of an odd k adds -0 for the
 * same reason.
 *
 * bf16 on AVX512_BF16 uses vdpbf16ps, which treats subnormal inputs as zero
 * and flushes subnormal results. The kernel is used only when no input and
 * no intermediate can be subnormal: neither operand holds a subnormal (one
 * would be read as 0, losing e.g. 2^-130 * 2^120), and every product of
 * nonzero inputs is a multiple of 2^-126 (its smallest exponents satisfy
 * ea + eb - 14 >= -126), so every partial sum is a multiple of 2^-126 too,
 * hence 0 or normal.
 * Otherwise bf16 (and f16 always) is widened to f32 while packing and runs
 * through the f32 kernel; products of f16/bf16 values are exact in f32, so
 * both paths accumulate exact products in f32. */
#include <math.h>
#include <string.h>

#include "plumb/dtype.h"
#include "rt_internal.h"
#include "rt_lowp.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#else
#define RT_X86 0
#endif

/* ---- kernel descriptions ------------------------------------------------------ */

typedef enum { PK_F32, PK_F64, PK_BF16PAIR } pk_kind;

typedef void (*ukern_fn)(size_t kc, const void *pa, const void *pb, void *c, size_t ldc, bool acc);

typedef struct gemm_impl {
    unsigned mr, nr;      /* register tile, elements */
    size_t kc;            /* k block (even for bf16 pairs), elements */
    size_t mc;            /* rows of A per item (multiple of mr) */
    size_t ncb;           /* columns of C per item (multiple of nr) */
    pk_kind kind;
    ukern_fn kern;
} gemm_impl;

/* Source operand element types the packers read. SRC_TAB8: one byte per
 * element (FP8/FP6/FP4), widened while packing through a 256-entry f32
 * table per operand (runtime/k_lowp.c), so the operands are never copied
 * to f32 first; every value of these formats is an f32, so the packed
 * panels hold what an f32 copy would and the f32 kernels run unchanged. */
typedef enum { SRC_F32, SRC_F64, SRC_BF16, SRC_F16, SRC_TAB8 } src_kind;

static inline size_t src_size(src_kind s)
{
    return s == SRC_F64 ? 8 : s == SRC_F32 ? 4 : s == SRC_TAB8 ? 1 : 2;
}

static inline float src_f32(src_kind s, const float *tab, const void *p, size_t i)
{
    switch (s) {
    case SRC_F32: return ((const float *)p)[i];
    case SRC_TAB8: return tab[((const uint8_t *)p)[i]];
    case SRC_BF16: return plumb_f32_from_bits((uint32_t)((const uint16_t *)p)[i] << 16);
    case SRC_F16: return plumb_f16_to_f32(((const uint16_t *)p)[i]);
    default: return (float)((const double *)p)[i];
    }
}

/* ---- portable microkernels ------------------------------------------------------ */

#define P_MR 4
#define P_NR 8

/* Fused multiply-adds keep every product exact, which the dot-product form
 * of the bound (gamma(n-1) over exact products) needs. */

#define FMA fmaf
static void ukern_f32_portable(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const float *pa = pa_, *pb = pb_;
    float *c = c_;
    float t[P_MR][P_NR];
    for (int i = 0; i < P_MR; i++)
        for (int j = 0; j < P_NR; j++)
            t[i][j] = -0.0f;
    for (size_t p = 0; p < kc; p++)
        for (int i = 0; i < P_MR; i++)
            for (int j = 0; j < P_NR; j++)
                t[i][j] = FMA(pa[p * P_MR + i], pb[p * P_NR + j], t[i][j]);
    for (int i = 0; i < P_MR; i++)
        for (int j = 0; j < P_NR; j++)
            c[i * ldc + j] = acc ? c[i * ldc + j] + t[i][j] : t[i][j];
}

#undef FMA
#define FMA fma
static void ukern_f64_portable(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const double *pa = pa_, *pb = pb_;
    double *c = c_;
    double t[P_MR][P_NR];
    for (int i = 0; i < P_MR; i++)
        for (int j = 0; j < P_NR; j++)
            t[i][j] = -0.0;
    for (size_t p = 0; p < kc; p++)
        for (int i = 0; i < P_MR; i++)
            for (int j = 0; j < P_NR; j++)
                t[i][j] = FMA(pa[p * P_MR + i], pb[p * P_NR + j], t[i][j]);
    for (int i = 0; i < P_MR; i++)
        for (int j = 0; j < P_NR; j++)
            c[i * ldc + j] = acc ? c[i * ldc + j] + t[i][j] : t[i][j];
}

#undef FMA

/* ---- AVX2 + FMA microkernels ------------------------------------------------------ */
#if RT_X86

/* 6 x 16 f32: 12 ymm accumulators. */
__attribute__((target("avx2,fma")))
static void ukern_f32_avx2(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const float *pa = pa_, *pb = pb_;
    float *c = c_;
    __m256 r[6][2];
    for (int i = 0; i < 6; i++) r[i][0] = r[i][1] = _mm256_set1_ps(-0.0f);
    for (size_t p = 0; p < kc; p++) {
        __m256 b0 = _mm256_loadu_ps(pb + p * 16), b1 = _mm256_loadu_ps(pb + p * 16 + 8);
        for (int i = 0; i < 6; i++) {
            __m256 a = _mm256_broadcast_ss(pa + p * 6 + i);
            r[i][0] = _mm256_fmadd_ps(a, b0, r[i][0]);
            r[i][1] = _mm256_fmadd_ps(a, b1, r[i][1]);
        }
    }
    for (int i = 0; i < 6; i++) {
        float *ci = c + i * ldc;
        if (acc) {
            r[i][0] = _mm256_add_ps(_mm256_loadu_ps(ci), r[i][0]);
            r[i][1] = _mm256_add_ps(_mm256_loadu_ps(ci + 8), r[i][1]);
        }
        _mm256_storeu_ps(ci, r[i][0]);
        _mm256_storeu_ps(ci + 8, r[i][1]);
    }
}

/* 6 x 8 f64. */
__attribute__((target("avx2,fma")))
static void ukern_f64_avx2(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const double *pa = pa_, *pb = pb_;
    double *c = c_;
    __m256d r[6][2];
    for (int i = 0; i < 6; i++) r[i][0] = r[i][1] = _mm256_set1_pd(-0.0);
    for (size_t p = 0; p < kc; p++) {
        __m256d b0 = _mm256_loadu_pd(pb + p * 8), b1 = _mm256_loadu_pd(pb + p * 8 + 4);
        for (int i = 0; i < 6; i++) {
            __m256d a = _mm256_broadcast_sd(pa + p * 6 + i);
            r[i][0] = _mm256_fmadd_pd(a, b0, r[i][0]);
            r[i][1] = _mm256_fmadd_pd(a, b1, r[i][1]);
        }
    }
    for (int i = 0; i < 6; i++) {
        double *ci = c + i * ldc;
        if (acc) {
            r[i][0] = _mm256_add_pd(_mm256_loadu_pd(ci), r[i][0]);
            r[i][1] = _mm256_add_pd(_mm256_loadu_pd(ci + 4), r[i][1]);
        }
        _mm256_storeu_pd(ci, r[i][0]);
        _mm256_storeu_pd(ci + 4, r[i][1]);
    }
}

/* ---- AVX-512 microkernels -------------------------------------------------------- */

/* 8 x 32 f32: 16 zmm accumulators, A broadcast from memory. */
__attribute__((target("avx512f")))
static void ukern_f32_avx512(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const float *pa = pa_, *pb = pb_;
    float *c = c_;
    __m512 r00 = _mm512_set1_ps(-0.0f), r01 = r00, r10 = r00, r11 = r00, r20 = r00, r21 = r00,
           r30 = r00, r31 = r00, r40 = r00, r41 = r00, r50 = r00, r51 = r00, r60 = r00,
           r61 = r00, r70 = r00, r71 = r00;
    for (size_t p = 0; p < kc; p++) {
        __m512 b0 = _mm512_loadu_ps(pb), b1 = _mm512_loadu_ps(pb + 16);
        __m512 a;
        a = _mm512_set1_ps(pa[0]); r00 = _mm512_fmadd_ps(a, b0, r00); r01 = _mm512_fmadd_ps(a, b1, r01);
        a = _mm512_set1_ps(pa[1]); r10 = _mm512_fmadd_ps(a, b0, r10); r11 = _mm512_fmadd_ps(a, b1, r11);
        a = _mm512_set1_ps(pa[2]); r20 = _mm512_fmadd_ps(a, b0, r20); r21 = _mm512_fmadd_ps(a, b1, r21);
        a = _mm512_set1_ps(pa[3]); r30 = _mm512_fmadd_ps(a, b0, r30); r31 = _mm512_fmadd_ps(a, b1, r31);
        a = _mm512_set1_ps(pa[4]); r40 = _mm512_fmadd_ps(a, b0, r40); r41 = _mm512_fmadd_ps(a, b1, r41);
        a = _mm512_set1_ps(pa[5]); r50 = _mm512_fmadd_ps(a, b0, r50); r51 = _mm512_fmadd_ps(a, b1, r51);
        a = _mm512_set1_ps(pa[6]); r60 = _mm512_fmadd_ps(a, b0, r60); r61 = _mm512_fmadd_ps(a, b1, r61);
        a = _mm512_set1_ps(pa[7]); r70 = _mm512_fmadd_ps(a, b0, r70); r71 = _mm512_fmadd_ps(a, b1, r71);
        pa += 8;
        pb += 32;
    }
#define ST(i, x0, x1)                                                                  \
    do {                                                                               \
        float *ci = c + (i) * ldc;                                                     \
        if (acc) {                                                                     \
            x0 = _mm512_add_ps(_mm512_loadu_ps(ci), x0);                               \
            x1 = _mm512_add_ps(_mm512_loadu_ps(ci + 16), x1);                          \
        }                                                                              \
        _mm512_storeu_ps(ci, x0);                                                      \
        _mm512_storeu_ps(ci + 16, x1);                                                 \
    } while (0)
    ST(0, r00, r01); ST(1, r10, r11); ST(2, r20, r21); ST(3, r30, r31);
    ST(4, r40, r41); ST(5, r50, r51); ST(6, r60, r61); ST(7, r70, r71);
#undef ST
}

/* 8 x 16 f64. */
__attribute__((target("avx512f")))
static void ukern_f64_avx512(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const double *pa = pa_, *pb = pb_;
    double *c = c_;
    __m512d r[8][2];
    for (int i = 0; i < 8; i++) r[i][0] = r[i][1] = _mm512_set1_pd(-0.0);
    for (size_t p = 0; p < kc; p++) {
        __m512d b0 = _mm512_loadu_pd(pb + p * 16), b1 = _mm512_loadu_pd(pb + p * 16 + 8);
        for (int i = 0; i < 8; i++) {
            __m512d a = _mm512_set1_pd(pa[p * 8 + i]);
            r[i][0] = _mm512_fmadd_pd(a, b0, r[i][0]);
            r[i][1] = _mm512_fmadd_pd(a, b1, r[i][1]);
        }
    }
    for (int i = 0; i < 8; i++) {
        double *ci = c + i * ldc;
        if (acc) {
            r[i][0] = _mm512_add_pd(_mm512_loadu_pd(ci), r[i][0]);
            r[i][1] = _mm512_add_pd(_mm512_loadu_pd(ci + 8), r[i][1]);
        }
        _mm512_storeu_pd(ci, r[i][0]);
        _mm512_storeu_pd(ci + 8, r[i][1]);
    }
}

/* 8 x 32 bf16 -> f32 with vdpbf16ps: packed A holds, per k pair, 8 32-bit
 * words (a[i][k], a[i][k+1]); packed B, per k pair, 32 such pairs
 * (b[k][j], b[k+1][j]). kc is even. */
__attribute__((target("avx512f,avx512bf16")))
static void ukern_bf16_avx512(size_t kc, const void *pa_, const void *pb_, void *c_, size_t ldc, bool acc)
{
    const uint32_t *pa = pa_;
    const uint16_t *pb = pb_;
    float *c = c_;
    __m512 r00 = _mm512_set1_ps(-0.0f), r01 = r00, r10 = r00, r11 = r00, r20 = r00, r21 = r00,
           r30 = r00, r31 = r00, r40 = r00, r41 = r00, r50 = r00, r51 = r00, r60 = r00,
           r61 = r00, r70 = r00, r71 = r00;
    for (size_t p = 0; p < kc; p += 2) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512(pb), b1 = (__m512bh)_mm512_loadu_si512(pb + 32);
        __m512bh a;
#define DP(i, x0, x1)                                                          \
        a = (__m512bh)_mm512_set1_epi32((int)pa[i]);                           \
        x0 = _mm512_dpbf16_ps(x0, a, b0);                                      \
        x1 = _mm512_dpbf16_ps(x1, a, b1);
        DP(0, r00, r01) DP(1, r10, r11) DP(2, r20, r21) DP(3, r30, r31)
        DP(4, r40, r41) DP(5, r50, r51) DP(6, r60, r61) DP(7, r70, r71)
#undef DP
        pa += 8;
        pb += 64;
    }
#define ST(i, x0, x1)                                                                  \
    do {                                                                               \
        float *ci = c + (i) * ldc;                                                     \
        if (acc) {                                                                     \
            x0 = _mm512_add_ps(_mm512_loadu_ps(ci), x0);                               \
            x1 = _mm512_add_ps(_mm512_loadu_ps(ci + 16), x1);                          \
        }                                                                              \
        _mm512_storeu_ps(ci, x0);                                                      \
        _mm512_storeu_ps(ci + 16, x1);                                                 \
    } while (0)
    ST(0, r00, r01); ST(1, r10, r11); ST(2, r20, r21); ST(3, r30, r31);
    ST(4, r40, r41); ST(5, r50, r51); ST(6, r60, r61); ST(7, r70, r71);
#undef ST
}

static bool cpu_has_bf16(void)
{
    static int has = -1;
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512bf16") ? 1 : 0;
    }
    return has == 1;
}
#endif /* RT_X86 */

/* ---- implementation choice ------------------------------------------------------ */

static gemm_impl pick(plumb_isa isa, pk_kind kind)
{
    gemm_impl g;
    g.kind = kind;
#if RT_X86
    if (isa == PLUMB_ISA_AVX512) {
        g.mr = 8;
        g.nr = kind == PK_F64 ? 16 : 32;
        g.kc = kind == PK_BF16PAIR ? 512 : 256;
        g.mc = 128;
        g.ncb = 512;
        g.kern = kind == PK_F64 ? ukern_f64_avx512 : kind == PK_BF16PAIR ? ukern_bf16_avx512 : ukern_f32_avx512;
        return g;
    }
    if (isa == PLUMB_ISA_AVX2 && kind != PK_BF16PAIR) {
        g.mr = 6;
        g.nr = kind == PK_F64 ? 8 : 16;
        g.kc = 256;
        g.mc = 120;
        g.ncb = 512;
        g.kern = kind == PK_F64 ? ukern_f64_avx2 : ukern_f32_avx2;
        return g;
    }
#else
    (void)isa;
#endif
    g.mr = P_MR;
    g.nr = P_NR;
    g.kc = 256;
    g.mc = 64;
    g.ncb = 256;
    g.kern = kind == PK_F64 ? ukern_f64_portable : ukern_f32_portable;
    return g;
}

/* ---- packing ------------------------------------------------------------------ */

/* Packs rows [0, mc) x k [0, kc) of A (already offset) into mr-row panels,
 * zero rows past mc. f32/f64 layout: panel, k, row. */
static void pack_a_tab(const gemm_impl *g, src_kind s, const float *tab, void *dst, const void *a, size_t lda,
                       size_t mc, size_t kc)
{
    size_t mr = g->mr;
    size_t es = src_size(s);
    for (size_t i0 = 0; i0 < mc; i0 += mr) {
        size_t rows = mc - i0 < mr ? mc - i0 : mr;
        if (g->kind == PK_F64) {
            double *d = (double *)dst + i0 * kc;
            const double *src = (const double *)a + i0 * lda;
            for (size_t p = 0; p < kc; p++)
                for (size_t i = 0; i < mr; i++)
                    d[p * mr + i] = i < rows ? src[i * lda + p] : 0.0;
        } else if (g->kind == PK_F32) {
            float *d = (float *)dst + i0 * kc;
            const unsigned char *src = (const unsigned char *)a + i0 * lda * es;
            if (s == SRC_F32) {
                const float *sf = (const float *)src;
                for (size_t p = 0; p < kc; p++)
                    for (size_t i = 0; i < mr; i++)
                        d[p * mr + i] = i < rows ? sf[i * lda + p] : 0.0f;
            } else {
                for (size_t i = 0; i < mr; i++)
                    for (size_t p = 0; p < kc; p++)
                        d[p * mr + i] = i < rows ? src_f32(s, tab, src, i * lda + p) : 0.0f;
            }
        } else {
            /* bf16 pairs: kc2 = kc rounded up to even; the odd tail of A is
             * -0 so that its product with B's +0 tail is -0, which leaves
             * every sum (including a sum that is -0) unchanged. */
            size_t kc2 = (kc + 1) & ~(size_t)1;
            uint32_t *d = (uint32_t *)dst + i0 * (kc2 / 2);
            const uint16_t *src = (const uint16_t *)a + i0 * lda;
            for (size_t p = 0; p < kc2; p += 2)
                for (size_t i = 0; i < mr; i++) {
                    uint32_t lo = 0, hi = 0;
                    if (i < rows) {
                        lo = src[i * lda + p];
                        hi = p + 1 < kc ? src[i * lda + p + 1] : 0x8000u;
                    }
                    d[(p / 2) * mr + i] = lo | hi << 16;
                }
        }
    }
}

/* Packs k [0, kc) x columns [0, nc) of B (already offset) into nr-column
 * panels, zero columns past nc. Layout: panel, k, column. */
static void pack_b_tab(const gemm_impl *g, src_kind s, const float *tab, void *dst, const void *b, size_t ldb,
                       size_t kc, size_t nc)
{
    size_t nr = g->nr;
    size_t es = src_size(s);
    for (size_t j0 = 0; j0 < nc; j0 += nr) {
        size_t cols = nc - j0 < nr ? nc - j0 : nr;
        if (g->kind == PK_F64) {
            double *d = (double *)dst + j0 * kc;
            const double *src = (const double *)b + j0;
            for (size_t p = 0; p < kc; p++) {
                memcpy(d + p * nr, src + p * ldb, cols * 8);
                for (size_t j = cols; j < nr; j++) d[p * nr + j] = 0.0;
            }
        } else if (g->kind == PK_F32) {
            float *d = (float *)dst + j0 * kc;
            const unsigned char *src = (const unsigned char *)b + j0 * es;
            for (size_t p = 0; p < kc; p++) {
                if (s == SRC_F32)
                    memcpy(d + p * nr, src + p * ldb * 4, cols * 4);
                else
                    for (size_t j = 0; j < cols; j++) d[p * nr + j] = src_f32(s, tab, src, p * ldb + j);
                for (size_t j = cols; j < nr; j++) d[p * nr + j] = 0.0f;
            }
        } else {
            size_t kc2 = (kc + 1) & ~(size_t)1;
            uint16_t *d = (uint16_t *)dst + j0 * kc2;
            const uint16_t *src = (const uint16_t *)b + j0;
            for (size_t p = 0; p < kc2; p += 2)
                for (size_t j = 0; j < nr; j++) {
                    bool in = j < cols;
                    d[p * nr + 2 * j] = in ? src[p * ldb + j] : 0;
                    d[p * nr + 2 * j + 1] = in && p + 1 < kc ? src[(p + 1) * ldb + j] : 0;
                }
        }
    }
}

/* The packers for sources without a table (every kind but SRC_TAB8). */
static inline void pack_a(const gemm_impl *g, src_kind s, void *dst, const void *a, size_t lda, size_t mc, size_t kc)
{
    pack_a_tab(g, s, NULL, dst, a, lda, mc, kc);
}

static inline void pack_b(const gemm_impl *g, src_kind s, void *dst, const void *b, size_t ldb, size_t kc, size_t nc)
{
    pack_b_tab(g, s, NULL, dst, b, ldb, kc, nc);
}

/* ---- driver ------------------------------------------------------------------- */

typedef struct gemm_job {
    const gemm_impl *g;
    src_kind s;
    size_t m, n, k;
    const void *a, *b;
    const float *ta, *tb;  /* SRC_TAB8: each operand's widening table */
    size_t lda, ldb, ldc;
    void *c;
    size_t celt;           /* bytes per C element */
    size_t pelt;           /* bytes per packed element (per k for bf16: 2) */
    unsigned char *bpack;  /* all of B: k block, then column panels */
    size_t nb_pad;         /* n rounded up to nr */
    unsigned char *abuf;   /* per chunk: mc x kc packed A */
    size_t abuf_bytes;
    size_t mblocks, nblocks;
} gemm_job;

static size_t kc_pad(const gemm_impl *g, size_t kc)
{
    return g->kind == PK_BF16PAIR ? (kc + 1) & ~(size_t)1 : kc;
}

/* Byte offset of k block p0 (of length kcb) in the packed B. */
static size_t bpack_off(const gemm_job *j, size_t p0)
{
    /* every earlier block is a full kc block, padded to even for bf16 */
    return p0 * j->nb_pad * j->pelt;
}

static void pack_b_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    gemm_job *j = ctx;
    const gemm_impl *g = j->g;
    size_t srcel = src_size(j->s);
    size_t npanels = j->nb_pad / g->nr;
    for (uint64_t it = begin; it < end; it++) {
        size_t pb = (size_t)(it / npanels), jp = (size_t)(it % npanels);
        size_t p0 = pb * g->kc, kcb = j->k - p0 < g->kc ? j->k - p0 : g->kc;
        size_t j0 = jp * g->nr, cols = j->n - j0 < g->nr ? j->n - j0 : g->nr;
        unsigned char *dst = j->bpack + bpack_off(j, p0) + j0 * kc_pad(g, kcb) * j->pelt;
        const unsigned char *src = (const unsigned char *)j->b + (p0 * j->ldb + j0) * srcel;
        pack_b_tab(g, j->s, j->tb, dst, src, j->ldb, kcb, cols);
    }
}

static void gemm_items(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    gemm_job *j = ctx;
    const gemm_impl *g = j->g;
    size_t srcel = src_size(j->s);
    unsigned char *abuf = j->abuf + (size_t)chunk * j->abuf_bytes;
    _Alignas(64) unsigned char tile[8 * 32 * 8];
    for (uint64_t it = begin; it < end; it++) {
        size_t ib = (size_t)(it / j->nblocks), jb = (size_t)(it % j->nblocks);
        size_t i0 = ib * g->mc, mc = j->m - i0 < g->mc ? j->m - i0 : g->mc;
        size_t jc0 = jb * g->ncb, nc = j->n - jc0 < g->ncb ? j->n - jc0 : g->ncb;
        for (size_t p0 = 0; p0 < j->k; p0 += g->kc) {
            size_t kcb = j->k - p0 < g->kc ? j->k - p0 : g->kc, kcp = kc_pad(g, kcb);
            pack_a_tab(g, j->s, j->ta, abuf, (const unsigned char *)j->a + (i0 * j->lda + p0) * srcel, j->lda, mc, kcb);
            const unsigned char *bblk = j->bpack + bpack_off(j, p0);
            bool acc = p0 > 0;
            for (size_t jr = 0; jr < nc; jr += g->nr) {
                size_t cols = nc - jr < g->nr ? nc - jr : g->nr;
                const unsigned char *pb = bblk + (jc0 + jr) * kcp * j->pelt;
                for (size_t ir = 0; ir < mc; ir += g->mr) {
                    size_t rows = mc - ir < g->mr ? mc - ir : g->mr;
                    const unsigned char *pa = abuf + ir * kcp * j->pelt;
                    unsigned char *cp = (unsigned char *)j->c + ((i0 + ir) * j->ldc + jc0 + jr) * j->celt;
                    if (rows == g->mr && cols == g->nr) {
                        g->kern(kcp, pa, pb, cp, j->ldc, acc);
                        continue;
                    }
                    /* edge tile: compute into a full tile, then merge exactly
                     * as the kernel would (c + acc, or acc) */
                    g->kern(kcp, pa, pb, tile, g->nr, false);
                    for (size_t r = 0; r < rows; r++) {
                        if (j->celt == 8) {
                            double *cr = (double *)(cp + r * j->ldc * 8);
                            const double *tr = (const double *)tile + r * g->nr;
                            for (size_t q = 0; q < cols; q++) cr[q] = acc ? cr[q] + tr[q] : tr[q];
                        } else {
                            float *cr = (float *)(cp + r * j->ldc * 4);
                            const float *tr = (const float *)tile + r * g->nr;
                            for (size_t q = 0; q < cols; q++) cr[q] = acc ? cr[q] + tr[q] : tr[q];
                        }
                    }
                }
            }
        }
    }
}

#if RT_X86
/* Smallest nonzero magnitude bits (v & 0x7FFF) of a row, 0x7FFF when none:
 * v - 1 wraps zero to 0xFFFF, so an unsigned minimum skips zeros. */
__attribute__((target("avx512f,avx512bw")))
static uint32_t bf16_min_mag_avx512(const uint16_t *p, size_t n, uint32_t minbits)
{
    const __m512i mag = _mm512_set1_epi16(0x7FFF), one = _mm512_set1_epi16(1);
    __m512i m = _mm512_set1_epi16((short)0xFFFF);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i v = _mm512_and_si512(_mm512_loadu_si512((const void *)(p + i)), mag);
        m = _mm512_min_epu16(m, _mm512_sub_epi16(v, one));
    }
    if (i < n) {
        __mmask32 k = (__mmask32)((1ull << (n - i)) - 1);
        __m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi16(k, p + i), mag);
        m = _mm512_mask_min_epu16(m, k, m, _mm512_sub_epi16(v, one));
    }
    uint16_t lanes[32];
    _mm512_storeu_si512((void *)lanes, m);
    for (int j = 0; j < 32; j++) {
        uint32_t v = (uint32_t)(uint16_t)(lanes[j] + 1);   /* 0xFFFF + 1 wraps back to 0: all zero */
        if (v && v < minbits) minbits = v;
    }
    return minbits;
}
#endif

#if RT_X86   /* only the AVX-512 bf16 path asks */
/* Smallest exponent floor(log2|v|) among nonzero finite bf16 values (subnormals
 * give values below -126), or INT32_MAX when there are none. */
static int32_t bf16_min_exp(const uint16_t *a, size_t rows, size_t cols, size_t ld, bool vec)
{
    uint32_t minbits = 0x7FFF;
    for (size_t i = 0; i < rows; i++) {
#if RT_X86
        if (vec) {
            minbits = bf16_min_mag_avx512(a + i * ld, cols, minbits);
            continue;
        }
#else
        (void)vec;
#endif
        for (size_t q = 0; q < cols; q++) {
            uint32_t v = a[i * ld + q] & 0x7FFF;
            if (v && v < minbits) minbits = v;
        }
    }
    if (minbits == 0x7FFF) return INT32_MAX;
    int32_t e = (int32_t)(minbits >> 7);
    if (e == 0) {
        /* subnormal: minbits * 2^-133, minbits in [1, 127] */
        int32_t l = 0;
        while (minbits >> (l + 1)) l++;
        return -133 + l;
    }
    return e - 127;
}
#endif

/* ---- small products read in place ------------------------------------------------
 * A product whose k fits one KC block and whose operands stay in L2 spends
 * more time packing (and, batched, dispatching per GEMM) than multiplying:
 * in 64 x (128x64 . 64x128) the packing of A alone (scalar, strided) and
 * of B took a third of the time. Here 8-row tiles read A's rows where they
 * are and B from panels copied once per call (small_rows_run), running the
 * same fused multiply-adds in the same order as ukern_f32_avx512 on packed
 * panels (one chain per element from -0, k ascending), so the bits are
 * those of the packed path; the last, shorter row block is packed into a
 * tile-sized buffer and run by the packed kernel. */
#if RT_X86
/* Returns whether some result is NaN or infinite: x - x is NaN exactly
 * for those, and a sum of such differences is NaN when any is (0 + NaN),
 * so 16 subtractions, 15 additions and one compare per 8 x 32 tile (1024
 * fused multiply-adds at k = 64) replace a scan of the stored tile. */
__attribute__((target("avx512f,prfchw")))
static bool ukern_f32_avx512_direct(size_t kc, const float *a, size_t lda, const float *b, size_t ldb, float *c,
                                    size_t ldc)
{
    __m512 r00 = _mm512_set1_ps(-0.0f), r01 = r00, r10 = r00, r11 = r00, r20 = r00, r21 = r00,
           r30 = r00, r31 = r00, r40 = r00, r41 = r00, r50 = r00, r51 = r00, r60 = r00,
           r61 = r00, r70 = r00, r71 = r00;
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda,
                *a5 = a + 5 * lda, *a6 = a + 6 * lda, *a7 = a + 7 * lda;
#define STEP(p)                                                                                                     \
    do {                                                                                                            \
        __m512 b0 = _mm512_loadu_ps(b + (p) * ldb), b1 = _mm512_loadu_ps(b + (p) * ldb + 16);                       \
        __m512 x;                                                                                                   \
        x = _mm512_set1_ps(a0[p]); r00 = _mm512_fmadd_ps(x, b0, r00); r01 = _mm512_fmadd_ps(x, b1, r01);           \
        x = _mm512_set1_ps(a1[p]); r10 = _mm512_fmadd_ps(x, b0, r10); r11 = _mm512_fmadd_ps(x, b1, r11);           \
        x = _mm512_set1_ps(a2[p]); r20 = _mm512_fmadd_ps(x, b0, r20); r21 = _mm512_fmadd_ps(x, b1, r21);           \
        x = _mm512_set1_ps(a3[p]); r30 = _mm512_fmadd_ps(x, b0, r30); r31 = _mm512_fmadd_ps(x, b1, r31);           \
        x = _mm512_set1_ps(a4[p]); r40 = _mm512_fmadd_ps(x, b0, r40); r41 = _mm512_fmadd_ps(x, b1, r41);           \
        x = _mm512_set1_ps(a5[p]); r50 = _mm512_fmadd_ps(x, b0, r50); r51 = _mm512_fmadd_ps(x, b1, r51);           \
        x = _mm512_set1_ps(a6[p]); r60 = _mm512_fmadd_ps(x, b0, r60); r61 = _mm512_fmadd_ps(x, b1, r61);           \
        x = _mm512_set1_ps(a7[p]); r70 = _mm512_fmadd_ps(x, b0, r70); r71 = _mm512_fmadd_ps(x, b1, r71);           \
    } while (0)
    /* The tile's 16 lines of C are usually in no cache yet (a batch's C is
     * written once): each of the first 16 steps asks for one of them for
     * writing, so they arrive while the fused multiply-adds run instead of
     * stalling the stores (issued all at once before the loop, the
     * prefetches themselves took 18% of the kernel's samples). */
    size_t p = 0;
    for (; p < kc && p < 16; p++) {
        __builtin_prefetch(c + (p >> 1) * ldc + (p & 1) * 16, 1, 3);
        STEP(p);
    }
    for (; p < kc; p++)
        STEP(p);
#undef STEP
#define ST(i, x0, x1)                                                                  \
    do {                                                                               \
        _mm512_storeu_ps(c + (i) * ldc, x0);                                           \
        _mm512_storeu_ps(c + (i) * ldc + 16, x1);                                      \
    } while (0)
    ST(0, r00, r01); ST(1, r10, r11); ST(2, r20, r21); ST(3, r30, r31);
    ST(4, r40, r41); ST(5, r50, r51); ST(6, r60, r61); ST(7, r70, r71);
#undef ST
#define D(x) _mm512_sub_ps(x, x)
    __m512 t = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(D(r00), D(r01)), _mm512_add_ps(D(r10), D(r11))),
                             _mm512_add_ps(_mm512_add_ps(D(r20), D(r21)), _mm512_add_ps(D(r30), D(r31))));
    __m512 u = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(D(r40), D(r41)), _mm512_add_ps(D(r50), D(r51))),
                             _mm512_add_ps(_mm512_add_ps(D(r60), D(r61)), _mm512_add_ps(D(r70), D(r71))));
#undef D
    t = _mm512_add_ps(t, u);
    return _mm512_cmp_ps_mask(t, t, _CMP_UNORD_Q) != 0;
}
#endif

typedef struct small_job {
    const gemm_impl *g;
    size_t m, n, k, lda, ldb, ldc;
    const float *a, *b;
    float *c;
} small_job;

/* One tile: rows [8 ib, 8 ib + 8) x columns [j0, j0 + cols) from B's panel
 * pb; whether some result is NaN or infinite. pa holds the packed rows of
 * row block *pa_ib (only the last row block, shorter than 8, is packed:
 * once, whatever the number of panels). */
static bool small_tile(const small_job *j, uint64_t ib, size_t j0, size_t cols, const float *pb, float *pa,
                       uint64_t *pa_ib, float *tile)
{
    size_t k = j->k, i0 = (size_t)ib * 8, rows = j->m - i0 < 8 ? j->m - i0 : 8;
    const float *a = j->a + i0 * j->lda;
    float *c = j->c + i0 * j->ldc + j0;
    bool nf = false;
#if RT_X86
    if (rows == 8 && cols == 32)
        return ukern_f32_avx512_direct(k, a, j->lda, pb, 32, c, j->ldc);
    if (rows == 8)
        (void)ukern_f32_avx512_direct(k, a, j->lda, pb, 32, tile, 32);
    else
#endif
    {
        /* the last row block: packed, zero padded, as gemm_items runs
         * edge tiles */
        if (*pa_ib != ib) {
            pack_a(j->g, SRC_F32, pa, a, j->lda, rows, k);
            *pa_ib = ib;
        }
        j->g->kern(k, pa, pb, tile, 32, false);
    }
    /* an edge tile: its stored elements tested (the padding columns may
     * hold 0 * inf) */
    for (size_t r = 0; r < rows; r++) {
        memcpy(c + r * j->ldc, tile + r * 32, cols * sizeof(float));
        for (size_t q = 0; q < cols; q++) nf |= !isfinite(tile[r * 32 + q]);
    }
    return nf;
}

/* Row blocks of 8 [begin, end) over every column; whether some result is
 * NaN or infinite. Column panel first: B's k x 32 slices are copied into
 * the packed kernel's panel order (k rows of 32 contiguous, 64-byte
 * aligned floats, zero columns past n), each stays in L1 while the row
 * blocks run over it, and every tile reads its panel sequentially. Read in
 * place, a row of B lies 4n bytes past the previous one: for n = 128 the
 * 64 rows of a 32-column slice fall on 16 of L1's 64 sets, eight lines
 * each, which fills those sets, and A's rows streaming past evict the
 * slice. When all of B's panels fit the buffer (k * 32 * panels <= 8192
 * floats, 32 KiB) they are copied at once, B read row by row (sequential,
 * as the hardware prefetchers like it: a batch's B is usually in no cache
 * yet), else one panel at a time. Tiles with 8 rows read A in place; the
 * last, shorter row block packs its rows (zero padded) and runs the
 * packed kernel. Every element is one chain from -0, k ascending,
 * whichever kernel runs it, so the bits are the packed path's. */
static bool small_rows_run(const small_job *j, uint64_t begin, uint64_t end)
{
    bool nf = false;
    size_t k = j->k;
    _Alignas(64) float pa[8 * 256], pbuf[256 * 32], tile[8 * 32];
    size_t npan = (j->n + 31) / 32;
    uint64_t pa_ib = UINT64_MAX;
    bool whole = k * npan * 32 <= sizeof pbuf / sizeof *pbuf;
    if (whole)
        for (size_t p = 0; p < k; p++)
            for (size_t jp = 0; jp < npan; jp++) {
                size_t cols = j->n - jp * 32 < 32 ? j->n - jp * 32 : 32;
                float *d = pbuf + (jp * k + p) * 32;
                const float *src = j->b + p * j->ldb + jp * 32;
                if (cols == 32) {
                    memcpy(d, src, 32 * sizeof(float));
                    continue;
                }
                memcpy(d, src, cols * sizeof(float));
                for (size_t q = cols; q < 32; q++) d[q] = 0.0f;
            }
    for (size_t j0 = 0; j0 < j->n; j0 += 32) {
        size_t cols = j->n - j0 < 32 ? j->n - j0 : 32;
        float *pb = pbuf + (whole ? j0 * k : 0);
        if (!whole)
            pack_b(j->g, SRC_F32, pb, j->b + j0, j->ldb, k, cols);
        for (uint64_t ib = begin; ib < end; ib++)
            nf |= small_tile(j, ib, j0, cols, pb, pa, &pa_ib, tile);
    }
    return nf;
}

static void small_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    (void)small_rows_run(ctx, begin, end);
}

/* f32 at AVX-512 with one k block and operands that stay in L2. */
static bool small_ok(const gemm_impl *g, src_kind s, size_t m, size_t n, size_t k)
{
    return s == SRC_F32 && g->kind == PK_F32 && g->mr == 8 && g->nr == 32 && k <= g->kc &&
           (uint64_t)(m + n) * k <= (uint64_t)64 << 10;
}

/* Without scratch memory: one accumulator per element, k in order. */
static void gemm_unpacked(src_kind s, size_t m, size_t n, size_t k, const void *a, size_t lda, const float *ta,
                          const void *b, size_t ldb, const float *tb, void *c, size_t ldc)
{
    for (size_t i = 0; i < m; i++)
        for (size_t q = 0; q < n; q++) {
            if (s == SRC_F64) {
                double t = 0.0;
                for (size_t p = 0; p < k; p++)
                    t = fma(((const double *)a)[i * lda + p], ((const double *)b)[p * ldb + q], t);
                ((double *)c)[i * ldc + q] = t;
            } else {
                float t = 0.0f;
                for (size_t p = 0; p < k; p++)
                    t = fmaf(src_f32(s, ta, a, i * lda + p), src_f32(s, tb, b, p * ldb + q), t);
                ((float *)c)[i * ldc + q] = t;
            }
        }
}

static void gemm_run(rt_exec *x, src_kind s, size_t m, size_t n, size_t k, const void *a, size_t lda,
                     const float *ta, const void *b, size_t ldb, const float *tb, void *c, size_t ldc)
{
    size_t celt = s == SRC_F64 ? 8 : 4;
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        for (size_t i = 0; i < m; i++)
            memset((unsigned char *)c + i * ldc * celt, 0, n * celt);
        return;
    }
    plumb_isa isa = rt_isa(x);
    pk_kind kind = s == SRC_F64 ? PK_F64 : PK_F32;
#if RT_X86
    if (s == SRC_BF16 && isa == PLUMB_ISA_AVX512 && cpu_has_bf16()) {
        /* vdpbf16ps reads a subnormal input as zero (DAZ) whatever the other
         * factor is, so any subnormal operand element rules it out, even when
         * the other operand is all zero (keeps the rule simple) or its smallest
         * magnitude would lift every product above 2^-126. */
        int32_t ea = bf16_min_exp(a, m, k, lda, true), eb = bf16_min_exp(b, k, n, ldb, true);
        if (ea >= -126 && eb >= -126 && (ea == INT32_MAX || eb == INT32_MAX || (int64_t)ea + eb - 14 >= -126))
            kind = PK_BF16PAIR;
    }
#endif
    gemm_impl g = pick(isa, kind);
    if (small_ok(&g, s, m, n, k)) {
        small_job sj = {&g, m, n, k, lda, ldb, ldc, a, b, c};
        /* per: multiply-adds per block of 8 rows. Each chunk packs B, so
         * a chunk takes up to 4 blocks (a quarter of the blocks when there
         * are fewer than 16, so that two threads still share them), and
         * more when a block is small. Every element is one chain however
         * the blocks are split: the bits do not depend on the chunks. */
        uint64_t per = (uint64_t)8 * n * k, nblk = (m + 7) / 8, grain = (nblk + 3) / 4;
        if (grain > 4) grain = 4;
        if (per < 65536 && 65536 / per > grain) grain = 65536 / per;
        rt_parallel_for(x, nblk, grain, small_rows, &sj);
        return;
    }
    gemm_job j;
    memset(&j, 0, sizeof j);
    j.g = &g;
    j.s = s;
    j.m = m; j.n = n; j.k = k;
    j.a = a; j.b = b; j.c = c;
    j.ta = ta; j.tb = tb;
    j.lda = lda; j.ldb = ldb; j.ldc = ldc;
    j.celt = celt;
    j.pelt = kind == PK_F64 ? 8 : kind == PK_F32 ? 4 : 2;
    j.nb_pad = (n + g.nr - 1) / g.nr * g.nr;
    size_t kpad = kind == PK_BF16PAIR ? (k + 1) & ~(size_t)1 : k;
    /* sizes: callers pass tensors that exist, so these products fit, but
     * check anyway rather than wrap */
    uint64_t bbytes, abytes;
    if (plumb_mul_overflow_u64(kpad, j.nb_pad, &bbytes) || plumb_mul_overflow_u64(bbytes, j.pelt, &bbytes) ||
        bbytes > SIZE_MAX)
        bbytes = UINT64_MAX;
    abytes = (uint64_t)g.mc * kc_pad(&g, g.kc) * j.pelt;
    j.abuf_bytes = (size_t)((abytes + 63) & ~(uint64_t)63);
    j.mblocks = (m + g.mc - 1) / g.mc;
    j.nblocks = (n + g.ncb - 1) / g.ncb;
    uint64_t items = (uint64_t)j.mblocks * j.nblocks;
    uint32_t chunks = rt_parallel_chunks(x, items, 1);
    j.bpack = bbytes == UINT64_MAX ? NULL : rt_scratch(x, NULL, (size_t)bbytes);
    j.abuf = j.bpack ? rt_scratch(x, NULL, j.abuf_bytes * chunks) : NULL;
    if (!j.bpack || !j.abuf) {
        /* rt_scratch has set the run's error; C is still written */
        gemm_unpacked(s, m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
        return;
    }
    uint64_t bitems = (uint64_t)((k + g.kc - 1) / g.kc) * (j.nb_pad / g.nr);
    rt_parallel_for(x, bitems, 16, pack_b_range, &j);
    rt_parallel_for(x, items, 1, gemm_items, &j);
}

bool rt_gemm_f32_small(plumb_isa isa, size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                       size_t ldb, float *c, size_t ldc, bool *nonfinite)
{
    gemm_impl g = pick(isa, PK_F32);
    if (m == 0 || n == 0 || k == 0 || !small_ok(&g, SRC_F32, m, n, k))
        return false;
    small_job sj = {&g, m, n, k, lda, ldb, ldc, a, b, c};
    *nonfinite = small_rows_run(&sj, 0, (m + 7) / 8);
    return true;
}

void rt_gemm_f32(rt_exec *x, size_t m, size_t n, size_t k,
                 const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc)
{
    gemm_run(x, SRC_F32, m, n, k, a, lda, NULL, b, ldb, NULL, c, ldc);
}

void rt_gemm_f64(rt_exec *x, size_t m, size_t n, size_t k,
                 const double *a, size_t lda, const double *b, size_t ldb, double *c, size_t ldc)
{
    gemm_run(x, SRC_F64, m, n, k, a, lda, NULL, b, ldb, NULL, c, ldc);
}

void rt_gemm_bf16(rt_exec *x, size_t m, size_t n, size_t k,
                  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc)
{
    gemm_run(x, SRC_BF16, m, n, k, a, lda, NULL, b, ldb, NULL, c, ldc);
}

void rt_gemm_f16(rt_exec *x, size_t m, size_t n, size_t k,
                 const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc)
{
    gemm_run(x, SRC_F16, m, n, k, a, lda, NULL, b, ldb, NULL, c, ldc);
}

void rt_gemm_f8(rt_exec *x, size_t m, size_t n, size_t k, const uint8_t *a, size_t lda, const float *ta,
                const uint8_t *b, size_t ldb, const float *tb, float *c, size_t ldc)
{
    gemm_run(x, SRC_TAB8, m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
}
