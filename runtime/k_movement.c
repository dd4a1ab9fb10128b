/* Data-movement kernels: constant, iota, broadcast_in_dim, reshape,
 * transpose, slice, dynamic_slice, dynamic_update_slice, concatenate, pad,
 * reverse, bitcast_convert (semantics: docs/spec/movement.md).
 *
 * Everything but iota and bitcast between widths is one strided copy: a
 * shape, element strides for the source and the destination, and two base
 * offsets (strided_copy). Rows of the innermost dimension are copied with
 * memcpy when both sides are contiguous, and rows are spread over the
 * threads. Transposes (the destination's innermost dim has source stride
 * != 1 and some other dim has source stride 1) run as 2-d transposes of
 * those two dims in cache blocks of register tiles (below); other copies
 * whose innermost source stride is not 1 go in 32 x 32 tiles of the two
 * innermost dimensions so both sides stay in cache.
 * Bits are moved, never interpreted: NaN payloads, -0 and subnormals pass
 * through unchanged. */
#include <string.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "rt_copy.h"
#include "rt_internal.h"
#include "rt_view.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#else
#define RT_X86 0
#endif

#define TILE 32

/* ---- transposes ------------------------------------------------------------------
 * A copy whose destination is contiguous in its innermost dim q (stride 1)
 * while another dim p is contiguous in the source is a 2-d transpose per
 * outer index: dst[a*da + b] = src[a + b*sb], a over p, b over q. It runs
 * in blocks of TR_BROWS source rows by TR_PANEL_BYTES (below) of register
 * transposes: 16x16 for bytes, 8x8 for 2- and 4-byte elements, 4x4 for
 * 8-byte and 2x2 for 16-byte ones (AVX2, also used at the AVX-512 level),
 * 16x16 for 4-byte and 8x8 for 8-byte ones at AVX-512 (whole lines on
 * both sides), typed scalar loops otherwise. Only
 * shuffles, loads and stores touch the data, so bits are copied exactly. */

/* Order (copy_rows): a work item is TR_BROWS source rows (b); it walks
 * them in panels of TR_PANEL_BYTES along a, tile column by tile column,
 * so each source row is read as a run of consecutive lines (which the
 * hardware prefetcher follows) and every tile row lands on destination
 * lines that the next tiles of the column complete (whole lines for the
 * streaming stores). The earlier order (panels of 256 b, one source line
 * per row per tile, a page apart for long rows) ran 4096x4096 f32 at
 * 0.56-0.78x the time of the old one in an alternated micro-benchmark
 * of the two loop orders (median of 50 rounds on the loaded 2-core Zen 5;
 * /tmp harness, the tile code copied): 64 rows x 1 KiB panels and
 * 128 x 512 B were the best of 16-256 rows x 256 B-16 KiB. */
#ifndef TR_BROWS
#define TR_BROWS 64   /* a multiple of every tile edge (16, 8, 4, 2) */
#endif
#ifndef TR_PANEL_BYTES
#define TR_PANEL_BYTES 1024
#endif
/* 1- and 2-byte elements: 256 / es rows and panels of 256 elements, so a
 * block's destination rows get 256 bytes (64-row blocks gave them one
 * line: each 16-byte tile row touched a page the item left after four
 * tiles, 16 pages a tile) while the source block stays 64 KiB. */
#define TR_ROWS(es) ((es) >= 4 ? (int64_t)TR_BROWS : (int64_t)(TR_BROWS * 4 / (es)))
#define TR_PANEL(es) ((es) >= 4 ? (int64_t)(TR_PANEL_BYTES / (es)) : (int64_t)(TR_PANEL_BYTES / 4))
/* Tiles prefetch the source line this many bytes further along a of the
 * rows they read: the run's next lines, a few tile columns ahead (the
 * panel of 64 rows makes the distance 4 x 64 tiles at 16 bytes a row). */
#ifndef TR_PF_A_BYTES
#define TR_PF_A_BYTES 256
#endif

#define TR_SCALAR(NAME, T)                                                                                        \
    static void NAME(const unsigned char *s_, int64_t sb, unsigned char *d_, int64_t da, int64_t a0, int64_t a1, \
                     int64_t b0, int64_t b1, int64_t apf, bool nt)                                               \
    {                                                                                                           \
        (void)nt;                                                                                               \
        (void)apf;                                                                                              \
        const T *s = (const T *)(const void *)s_;                                                               \
        T *d = (T *)(void *)d_;                                                                                 \
        for (int64_t a = a0; a < a1; a++)                                                                       \
            for (int64_t b = b0; b < b1; b++) d[a * da + b] = s[a + b * sb];                                    \
    }
TR_SCALAR(tr_blk1, uint8_t)
TR_SCALAR(tr_blk2, uint16_t)
TR_SCALAR(tr_blk4, uint32_t)
TR_SCALAR(tr_blk8, uint64_t)
typedef struct tr_u128 {
    uint64_t w[2];
} tr_u128;   /* complex<f64>: any 16-byte element, moved as bits */
TR_SCALAR(tr_blk16, tr_u128)

/* nt: whole-tile stores whose destination is aligned to the store width
 * may stream (large outputs; the caller fences). apf: a tile at a
 * prefetches its rows at a + TR_PF_A_BYTES while that is below apf (the
 * end of the source rows; 0: no prefetch). */
typedef void (*tr_blk_fn)(const unsigned char *s, int64_t sb, unsigned char *d, int64_t da, int64_t a0, int64_t a1,
                          int64_t b0, int64_t b1, int64_t apf, bool nt);

#if RT_X86
/* Tiles store with ST256/ST128/ST512: streaming stores (nt, the caller
 * checked alignment) or ordinary ones. */
#define ST256(p, v) (nt ? _mm256_stream_si256((__m256i *)(void *)(p), (v)) : _mm256_storeu_si256((__m256i *)(void *)(p), (v)))
#define ST128(p, v) (nt ? _mm_stream_si128((__m128i *)(void *)(p), (v)) : _mm_storeu_si128((__m128i *)(void *)(p), (v)))

/* Rows r_b = s + b*sb (8 elements over a) become rows d + a*da. */
__attribute__((target("avx2"))) static inline void t8x8_4(const uint32_t *s, int64_t sb, uint32_t *d, int64_t da, bool nt)
{
    __m256 r0 = _mm256_loadu_ps((const float *)(s + 0 * sb)), r1 = _mm256_loadu_ps((const float *)(s + 1 * sb));
    __m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * sb)), r3 = _mm256_loadu_ps((const float *)(s + 3 * sb));
    __m256 r4 = _mm256_loadu_ps((const float *)(s + 4 * sb)), r5 = _mm256_loadu_ps((const float *)(s + 5 * sb));
    __m256 r6 = _mm256_loadu_ps((const float *)(s + 6 * sb)), r7 = _mm256_loadu_ps((const float *)(s + 7 * sb));
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    ST256(d + 0 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u0, u4, 0x20)));
    ST256(d + 1 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u1, u5, 0x20)));
    ST256(d + 2 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u2, u6, 0x20)));
    ST256(d + 3 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u3, u7, 0x20)));
    ST256(d + 4 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u0, u4, 0x31)));
    ST256(d + 5 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u1, u5, 0x31)));
    ST256(d + 6 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u2, u6, 0x31)));
    ST256(d + 7 * da, _mm256_castps_si256(_mm256_permute2f128_ps(u3, u7, 0x31)));
}

__attribute__((target("avx2"))) static inline void t4x4_8(const uint64_t *s, int64_t sb, uint64_t *d, int64_t da, bool nt)
{
    __m256d r0 = _mm256_loadu_pd((const double *)(s + 0 * sb)), r1 = _mm256_loadu_pd((const double *)(s + 1 * sb));
    __m256d r2 = _mm256_loadu_pd((const double *)(s + 2 * sb)), r3 = _mm256_loadu_pd((const double *)(s + 3 * sb));
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    ST256(d + 0 * da, _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x20)));
    ST256(d + 1 * da, _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x20)));
    ST256(d + 2 * da, _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x31)));
    ST256(d + 3 * da, _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x31)));
}

__attribute__((target("avx2"))) static inline void t8x8_2(const uint16_t *s, int64_t sb, uint16_t *d, int64_t da, bool nt)
{
    __m128i r0 = _mm_loadu_si128((const __m128i *)(s + 0 * sb)), r1 = _mm_loadu_si128((const __m128i *)(s + 1 * sb));
    __m128i r2 = _mm_loadu_si128((const __m128i *)(s + 2 * sb)), r3 = _mm_loadu_si128((const __m128i *)(s + 3 * sb));
    __m128i r4 = _mm_loadu_si128((const __m128i *)(s + 4 * sb)), r5 = _mm_loadu_si128((const __m128i *)(s + 5 * sb));
    __m128i r6 = _mm_loadu_si128((const __m128i *)(s + 6 * sb)), r7 = _mm_loadu_si128((const __m128i *)(s + 7 * sb));
    __m128i a0 = _mm_unpacklo_epi16(r0, r1), a1 = _mm_unpackhi_epi16(r0, r1);
    __m128i a2 = _mm_unpacklo_epi16(r2, r3), a3 = _mm_unpackhi_epi16(r2, r3);
    __m128i a4 = _mm_unpacklo_epi16(r4, r5), a5 = _mm_unpackhi_epi16(r4, r5);
    __m128i a6 = _mm_unpacklo_epi16(r6, r7), a7 = _mm_unpackhi_epi16(r6, r7);
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    ST128(d + 0 * da, _mm_unpacklo_epi64(b0, b4));
    ST128(d + 1 * da, _mm_unpackhi_epi64(b0, b4));
    ST128(d + 2 * da, _mm_unpacklo_epi64(b1, b5));
    ST128(d + 3 * da, _mm_unpackhi_epi64(b1, b5));
    ST128(d + 4 * da, _mm_unpacklo_epi64(b2, b6));
    ST128(d + 5 * da, _mm_unpackhi_epi64(b2, b6));
    ST128(d + 6 * da, _mm_unpacklo_epi64(b3, b7));
    ST128(d + 7 * da, _mm_unpackhi_epi64(b3, b7));
}


/* 16x16 of 4-byte elements: every source and destination row is one full
 * 64-byte line, used once, so rows a power-of-two apart (which share L1
 * sets) cannot evict a half-used line. unpack 32/64 transposes 4x4 within
 * each 128-bit lane; two rounds of shuffle_i32x4 then transpose the 4x4
 * grid of lanes. */
#define ST512(p, v) (nt ? _mm512_stream_si512((void *)(p), (v)) : _mm512_storeu_si512((void *)(p), (v)))
__attribute__((target("avx512f"))) static inline void t16x16_4(const uint32_t *s, int64_t sb, uint32_t *d, int64_t da, bool nt)
{
    __m512i u[16];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        __m512i r0 = _mm512_loadu_si512((const void *)(s + (4 * g + 0) * sb));
        __m512i r1 = _mm512_loadu_si512((const void *)(s + (4 * g + 1) * sb));
        __m512i r2 = _mm512_loadu_si512((const void *)(s + (4 * g + 2) * sb));
        __m512i r3 = _mm512_loadu_si512((const void *)(s + (4 * g + 3) * sb));
        __m512i tl = _mm512_unpacklo_epi32(r0, r1), th = _mm512_unpackhi_epi32(r0, r1);
        __m512i sl = _mm512_unpacklo_epi32(r2, r3), sh = _mm512_unpackhi_epi32(r2, r3);
        u[4 * g + 0] = _mm512_unpacklo_epi64(tl, sl);
        u[4 * g + 1] = _mm512_unpackhi_epi64(tl, sl);
        u[4 * g + 2] = _mm512_unpacklo_epi64(th, sh);
        u[4 * g + 3] = _mm512_unpackhi_epi64(th, sh);
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        __m512i v = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88), vp = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
        __m512i w = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88), wp = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
        ST512(d + (c + 0) * da, _mm512_shuffle_i32x4(v, w, 0x88));
        ST512(d + (c + 8) * da, _mm512_shuffle_i32x4(v, w, 0xdd));
        ST512(d + (c + 4) * da, _mm512_shuffle_i32x4(vp, wp, 0x88));
        ST512(d + (c + 12) * da, _mm512_shuffle_i32x4(vp, wp, 0xdd));
    }
}

/* 8x8 of 8-byte elements: like t16x16_4, whole 64-byte lines on both
 * sides (a 4x4 tile reads each source line in two halves, a tile apart,
 * and with power-of-two row strides the lines between share one L1 set).
 * unpack 64 pairs rows within each 128-bit lane: lane j of t[2k + h]
 * holds rows 2k, 2k+1 of column 2j + h; two rounds of shuffle_i64x2
 * gather lane j of t[h], t[2 + h], t[4 + h], t[6 + h] into row 2j + h. */
__attribute__((target("avx512f"))) static inline void t8x8_8(const uint64_t *s, int64_t sb, uint64_t *d, int64_t da, bool nt)
{
    __m512i t[8];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        __m512i r0 = _mm512_loadu_si512((const void *)(s + (2 * k) * sb));
        __m512i r1 = _mm512_loadu_si512((const void *)(s + (2 * k + 1) * sb));
        t[2 * k] = _mm512_unpacklo_epi64(r0, r1);
        t[2 * k + 1] = _mm512_unpackhi_epi64(r0, r1);
    }
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i u = _mm512_shuffle_i64x2(t[h], t[2 + h], 0x88), up = _mm512_shuffle_i64x2(t[h], t[2 + h], 0xdd);
        __m512i w = _mm512_shuffle_i64x2(t[4 + h], t[6 + h], 0x88), wp = _mm512_shuffle_i64x2(t[4 + h], t[6 + h], 0xdd);
        ST512(d + (0 + h) * da, _mm512_shuffle_i64x2(u, w, 0x88));
        ST512(d + (4 + h) * da, _mm512_shuffle_i64x2(u, w, 0xdd));
        ST512(d + (2 + h) * da, _mm512_shuffle_i64x2(up, wp, 0x88));
        ST512(d + (6 + h) * da, _mm512_shuffle_i64x2(up, wp, 0xdd));
    }
}

/* 16x16 bytes: unpacks of 8-, 16-, 32- and 64-bit units of row pairs,
 * quads and octets; after stage k, x[(i >> k << k) + g] holds columns
 * g·16/2^k .. of rows i..i + 2^k - 1 (each column's 2^k bytes together). */
__attribute__((target("avx2"))) static inline void t16x16_1(const uint8_t *s, int64_t sb, uint8_t *d, int64_t da, bool nt)
{
    __m128i r[16], x[16];
    for (int i = 0; i < 16; i++) r[i] = _mm_loadu_si128((const __m128i *)(s + i * sb));
    for (int k = 0; k < 8; k++) {   /* rows 2k, 2k+1: columns 0-7, 8-15 as byte pairs */
        x[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
        x[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
    }
    for (int m = 0; m < 4; m++)     /* rows 4m..4m+3: column groups of 4 */
        for (int h = 0; h < 2; h++) {
            r[4 * m + 2 * h] = _mm_unpacklo_epi16(x[4 * m + h], x[4 * m + 2 + h]);
            r[4 * m + 2 * h + 1] = _mm_unpackhi_epi16(x[4 * m + h], x[4 * m + 2 + h]);
        }
    for (int p = 0; p < 2; p++)     /* rows 8p..8p+7: column pairs */
        for (int g = 0; g < 4; g++) {
            x[8 * p + 2 * g] = _mm_unpacklo_epi32(r[8 * p + g], r[8 * p + 4 + g]);
            x[8 * p + 2 * g + 1] = _mm_unpackhi_epi32(r[8 * p + g], r[8 * p + 4 + g]);
        }
    for (int cp = 0; cp < 8; cp++) {   /* all 16 rows of columns 2cp, 2cp+1 */
        ST128(d + (2 * cp) * da, _mm_unpacklo_epi64(x[cp], x[8 + cp]));
        ST128(d + (2 * cp + 1) * da, _mm_unpackhi_epi64(x[cp], x[8 + cp]));
    }
}

/* 2x2 of 16-byte elements: the 128-bit halves of two rows exchanged. */
__attribute__((target("avx2"))) static inline void t2x2_16(const tr_u128 *s, int64_t sb, tr_u128 *d, int64_t da, bool nt)
{
    __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + sb));
    ST256(d, _mm256_permute2x128_si256(r0, r1, 0x20));
    ST256(d + da, _mm256_permute2x128_si256(r0, r1, 0x31));
}

/* Tile rows stream when the output is large (>= RT_STREAM_MIN_BYTES) and
 * aligned: 64-byte rows (16x16 f32 and 8x8 f64 at AVX-512) are whole
 * lines; shorter ones complete their lines in the next tiles along b,
 * which copy_rows's order runs next. 32-byte rows (8x8 f32 at AVX2, 4x4
 * f64, 2x2 of 16 bytes) used to stay cached, measured 10-20% slower
 * streamed under the earlier order; under this one, streamed, 4096x4096
 * f32 at AVX2 took 0.76-0.87x the time, 4096x2048 f64 at AVX2 0.96-0.98x
 * and 2048^2 complex<f64> about the same (CPU time, alternated, median
 * of 20 each). */
/* Register tiles over the block, scalar edges. */
#define TR_AVX2(NAME, TGT, T, W, TILE_FN)                                                                         \
    __attribute__((target(TGT))) static void NAME(const unsigned char *s_, int64_t sb, unsigned char *d_,    \
                                                     int64_t da, int64_t a0, int64_t a1, int64_t b0, int64_t b1,\
                                                     int64_t apf, bool nt)                                      \
    {                                                                                                           \
        const T *s = (const T *)(const void *)s_;                                                               \
        T *d = (T *)(void *)d_;                                                                                 \
        /* each tile row is one store of W elements: all rows aligned when \
         * the first is and da is a multiple of W */                                                           \
        const uintptr_t al = (uintptr_t)(W * sizeof(T) - 1);                                                    \
        const int64_t pfd = (int64_t)(TR_PF_A_BYTES / sizeof(T));                                              \
        nt = nt && da % W == 0;                                                                                 \
        int64_t a = a0;                                                                                         \
        for (; a + W <= a1; a += W) {                                                                           \
            bool pf = a + pfd < apf;                                                                            \
            int64_t b = b0;                                                                                     \
            for (; b + W <= b1; b += W) {                                                                       \
                T *dt = d + a * da + b;                                                                         \
                for (int64_t k = 0; pf && k < W; k++) __builtin_prefetch(s + a + pfd + (b + k) * sb, 0, 3);     \
                if (nt && ((uintptr_t)(void *)dt & al) == 0) TILE_FN(s + a + b * sb, sb, dt, da, true);         \
                else TILE_FN(s + a + b * sb, sb, dt, da, false);                                                \
            }                                                                                                   \
            for (; b < b1; b++)                                                                                 \
                for (int64_t i = 0; i < W; i++) d[(a + i) * da + b] = s[a + i + b * sb];                        \
        }                                                                                                       \
        for (; a < a1; a++)                                                                                     \
            for (int64_t b = b0; b < b1; b++) d[a * da + b] = s[a + b * sb];                                    \
    }
TR_AVX2(tr_blk1_avx2, "avx2", uint8_t, 16, t16x16_1)
TR_AVX2(tr_blk2_avx2, "avx2", uint16_t, 8, t8x8_2)
TR_AVX2(tr_blk16_avx2, "avx2", tr_u128, 2, t2x2_16)
TR_AVX2(tr_blk4_avx2, "avx2", uint32_t, 8, t8x8_4)
TR_AVX2(tr_blk8_avx2, "avx2", uint64_t, 4, t4x4_8)
TR_AVX2(tr_blk4_avx512, "avx512f", uint32_t, 16, t16x16_4)
TR_AVX2(tr_blk8_avx512, "avx512f", uint64_t, 8, t8x8_8)
#endif

static tr_blk_fn tr_pick(size_t es, plumb_isa isa)
{
#if RT_X86
    if (isa == PLUMB_ISA_AVX512 && es == 4) return tr_blk4_avx512;
    if (isa == PLUMB_ISA_AVX512 && es == 8) return tr_blk8_avx512;
    if (isa == PLUMB_ISA_AVX2 || isa == PLUMB_ISA_AVX512) {
        if (es == 1) return tr_blk1_avx2;
        if (es == 2) return tr_blk2_avx2;
        if (es == 16) return tr_blk16_avx2;
        if (es == 4) return tr_blk4_avx2;
        if (es == 8) return tr_blk8_avx2;
    }
#else
    (void)isa;
#endif
    return es == 1 ? tr_blk1 : es == 2 ? tr_blk2 : es == 4 ? tr_blk4 : es == 8 ? tr_blk8 : es == 16 ? tr_blk16 : NULL;
}


typedef struct copy_job {
    uint32_t rank;
    int64_t shape[PLUMB_MAX_RANK];
    int64_t ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK];   /* strides, elements */
    const unsigned char *src;
    unsigned char *dst;
    size_t es;
    bool tiled;       /* tile the two innermost dims */
    int tp;           /* >= 0: transpose dim p (source stride 1) with the last dim */
    uint64_t bblocks; /* TR_BROWS blocks of the last dim (tp >= 0) */
    tr_blk_fn blk;
    plumb_isa isa;
    bool stream;      /* contiguous rows of a large copy: streaming stores (rt_copy.h) */
} copy_job;

static inline void copy_elem(unsigned char *d, const unsigned char *s, size_t es)
{
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, es); break;
    }
}

/* Offsets of outer row `row` (index over all dims but the last `inner`). */
static void row_offsets(const copy_job *j, uint64_t row, uint32_t inner, int64_t *so, int64_t *dof)
{
    int64_t s = 0, d = 0;
    for (uint32_t k = j->rank - inner; k-- > 0;) {
        int64_t n = j->shape[k];
        int64_t i = (int64_t)(row % (uint64_t)n);
        row /= (uint64_t)n;
        s += i * j->ss[k];
        d += i * j->ds[k];
    }
    *so = s;
    *dof = d;
}

/* Shortest contiguous row that streams in a large row copy: rows of a few
 * lines, each a fresh write-combining fill, measured 1.3-2x slower
 * streamed (plumb bench, [0, 2, 1, 3] transposes of f32 with 256-byte and
 * 1 KiB rows), 16 KiB rows 1.5x faster. */
#ifndef TR_STREAM_ROW_MIN
#define TR_STREAM_ROW_MIN 4096
#endif
/* Rows ahead whose sources are prefetched, and the longest row that gets
 * it (longer rows keep the hardware prefetcher on one stream long enough). */
/* transposes: tiles prefetch their rows' source TR_PF_A_BYTES ahead */
#ifndef TR_PF
#define TR_PF 1
#endif
#ifndef TR_PF_ROWS
#define TR_PF_ROWS 8
#endif
#define TR_PF_MAX_BYTES 4096

/* The outer index of a row (all dims but the last) and its offsets. */
typedef struct odo {
    int64_t i[PLUMB_MAX_RANK];
    int64_t so, dof;
} odo;

static void odo_init(odo *o, const copy_job *j, uint64_t row)
{
    uint64_t q = row;
    o->so = o->dof = 0;
    for (uint32_t k = j->rank - 1; k-- > 0;) {
        uint64_t n = (uint64_t)j->shape[k];
        o->i[k] = (int64_t)(q % n);
        q /= n;
        o->so += o->i[k] * j->ss[k];
        o->dof += o->i[k] * j->ds[k];
    }
}

/* the next row: the innermost outer dim steps, carrying into outer ones
 * (past the last row it wraps to zero, harmless) */
static inline void odo_next(odo *o, const copy_job *j)
{
    for (uint32_t k = j->rank - 1; k-- > 0;) {
        o->so += j->ss[k];
        o->dof += j->ds[k];
        if (++o->i[k] < j->shape[k]) return;
        o->so -= j->ss[k] * j->shape[k];
        o->dof -= j->ds[k] * j->shape[k];
        o->i[k] = 0;
    }
}

static inline void prefetch_bytes(const unsigned char *p, size_t n)
{
    for (size_t o = 0; o < n; o += 64) __builtin_prefetch(p + o, 0, 3);
    if (n) __builtin_prefetch(p + n - 1, 0, 3);   /* an unaligned row's last line */
}

/* Elements from p to the next 64-byte boundary (at most n), when rows
 * `stride` elements apart all share p's alignment; else 0. */
static int64_t tr_align_off(const unsigned char *p, int64_t stride, size_t es, int64_t n)
{
    uintptr_t u = (uintptr_t)(const void *)p;
    if (u % es != 0 || (stride * (int64_t)es) % 64 != 0) return 0;
    int64_t o = (int64_t)(((64 - u % 64) % 64) / es);
    return o < n ? o : n;
}

/* One row of n elements with element strides ds and ss (a reversed row
 * has ss = -1, an interior-padded one ds > 1): the element size is
 * switched on once per row, not per element, so each loop is a plain
 * typed load and store the compiler can unroll. copy_elem per element
 * kept a 4096x4096 f32 reverse of the last dim at 54 ms (numpy 16). */
#define COPY_STRIDED(T)                                                    \
    do {                                                                   \
        T *dd = (T *)(void *)d;                                            \
        const T *sp = (const T *)(const void *)s;                          \
        for (int64_t i = 0; i < n; i++) dd[i * ds] = sp[i * ss];           \
    } while (0)
static void copy_strided(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss, int64_t n, size_t es)
{
    /* typed access needs the element's alignment; tensor data has it, a
     * slice of packed bytes may not */
    size_t w = ((uintptr_t)(void *)d | (uintptr_t)(const void *)s) % es != 0 ? 0 : es;
    switch (w) {
    case 1: COPY_STRIDED(uint8_t); break;
    case 2: COPY_STRIDED(uint16_t); break;
    case 4: COPY_STRIDED(uint32_t); break;
    case 8: COPY_STRIDED(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++) copy_elem(d + i * ds * (int64_t)es, s + i * ss * (int64_t)es, es);
        break;
    }
}
#undef COPY_STRIDED

static void copy_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const copy_job *j = ctx;
    size_t es = j->es;
    if (j->tp >= 0) {
        uint32_t r = j->rank, p = (uint32_t)j->tp;
        int64_t na = j->shape[p], nb = j->shape[r - 1], da = j->ds[p], sb = j->ss[r - 1];
        int64_t pa = TR_PANEL(es), nr = TR_ROWS(es);
        /* item it: TR_ROWS(es) rows of b at one outer index (see TR_BROWS) */
        for (uint64_t it = begin; it < end; it++) {
            uint64_t q = it / j->bblocks;
            int64_t so = 0, dof = 0;
            for (uint32_t k = r - 1; k-- > 0;) {
                if (k == p) continue;
                int64_t i = (int64_t)(q % (uint64_t)j->shape[k]);
                q /= (uint64_t)j->shape[k];
                so += i * j->ss[k];
                dof += i * j->ds[k];
            }
            const unsigned char *sp = j->src + so * (int64_t)es;
            unsigned char *dp = j->dst + dof * (int64_t)es;
            /* Tiles start where both sides are 64-byte aligned when the
             * row strides keep one alignment for every row: panels of a
             * from the first aligned source column, blocks of b from the
             * first aligned destination column (block 0 is the narrow
             * head before it, the last may be empty). Tensor data from
             * malloc sits 16 bytes past a page, so without this no tile
             * streamed (the stores need alignment) and every tile load
             * split two lines: 4096x4096 f32 took 1.5x the time (the
             * harness of TR_BROWS with buffers 16 bytes off). */
            int64_t aoff = tr_align_off(sp, sb, es, na), boff = tr_align_off(dp, da, es, nb);
            int64_t bk = (int64_t)(it % j->bblocks);
            int64_t b0 = (bk - 1) * nr + boff, b1 = b0 + nr;
            b0 = b0 < 0 ? 0 : b0;
            b1 = b1 < nb ? b1 : nb;
            for (int64_t a0 = 0; a0 < na && b0 < b1;) {
                int64_t a1 = a0 < aoff ? aoff : a0 + pa < na ? a0 + pa : na;
                j->blk(sp, sb, dp, da, a0, a1, b0, b1, TR_PF ? na : 0, j->stream);
                a0 = a1;
            }
        }
        if (j->stream) rt_copy_fence(j->isa);
        return;
    }
    if (j->tiled) {
        uint32_t r = j->rank;
        int64_t n0 = j->shape[r - 2], n1 = j->shape[r - 1];
        int64_t s0 = j->ss[r - 2], s1 = j->ss[r - 1], d0 = j->ds[r - 2], d1 = j->ds[r - 1];
        for (uint64_t row = begin; row < end; row++) {
            int64_t so, dof;
            row_offsets(j, row, 2, &so, &dof);
            for (int64_t a0 = 0; a0 < n0; a0 += TILE)
                for (int64_t b0 = 0; b0 < n1; b0 += TILE) {
                    int64_t ae = a0 + TILE < n0 ? a0 + TILE : n0, be = b0 + TILE < n1 ? b0 + TILE : n1;
                    for (int64_t a = a0; a < ae; a++)
                        for (int64_t b = b0; b < be; b++)
                            copy_elem(j->dst + (dof + a * d0 + b * d1) * (int64_t)es,
                                      j->src + (so + a * s0 + b * s1) * (int64_t)es, es);
                }
        }
        return;
    }
    int64_t n = j->shape[j->rank - 1], sst = j->ss[j->rank - 1], dst = j->ds[j->rank - 1];
    /* Outer indices advance as an odometer (a division per dim per row
     * costs as much as copying a 256-byte row). Short contiguous rows
     * whose sources are far apart (a permutation of outer dims, e.g.
     * [0, 2, 1, 3]) defeat the hardware prefetcher, which follows a
     * stream within a page: the source of the row TR_PF_ROWS ahead is
     * prefetched, one odometer further on. */
    odo cur, ahead;
    odo_init(&cur, j, begin);
    bool pf = sst == 1 && (size_t)n * es <= TR_PF_MAX_BYTES;
    uint64_t pf_end = begin;
    if (pf) {
        pf_end = begin + TR_PF_ROWS < end ? begin + TR_PF_ROWS : end;
        odo_init(&ahead, j, pf_end);
        for (uint64_t r = begin; r < pf_end; r++) {
            odo tmp;
            odo_init(&tmp, j, r);
            prefetch_bytes(j->src + tmp.so * (int64_t)es, (size_t)n * es);
        }
    }
    for (uint64_t row = begin; row < end; row++, odo_next(&cur, j)) {
        if (pf && pf_end < end) {
            prefetch_bytes(j->src + ahead.so * (int64_t)es, (size_t)n * es);
            odo_next(&ahead, j);
            pf_end++;
        }
        int64_t so = cur.so, dof = cur.dof;
        unsigned char *d = j->dst + dof * (int64_t)es;
        const unsigned char *s = j->src + so * (int64_t)es;
        if (sst == 1 && dst == 1) {
            if (j->stream) rt_copy_stream(j->isa, d, s, (size_t)n * es);
            else memcpy(d, s, (size_t)n * es);
        } else if (sst == 0 && dst == 1) {
            for (int64_t i = 0; i < n; i++) copy_elem(d + i * (int64_t)es, s, es);
        } else {
            copy_strided(d, dst, s, sst, n, es);
        }
    }
    if (j->stream) rt_copy_fence(j->isa);
}

/* dst[dbase + Σ i_k ds_k] = src[sbase + Σ i_k ss_k] over shape. */
static void strided_copy(rt_exec *x, uint32_t rank, const int64_t *shape, const void *src, int64_t sbase,
                         const int64_t *ss, void *dst, int64_t dbase, const int64_t *ds, size_t es)
{
    copy_job j;
    memset(&j, 0, sizeof j);
    uint64_t total = 1;
    for (uint32_t k = 0; k < rank; k++) total *= (uint64_t)shape[k];
    if (total == 0) return;
    /* drop size-1 dims and merge dims contiguous on both sides */
    for (uint32_t k = 0; k < rank; k++) {
        if (shape[k] == 1) continue;
        if (j.rank && j.ss[j.rank - 1] == ss[k] * shape[k] && j.ds[j.rank - 1] == ds[k] * shape[k]) {
            j.shape[j.rank - 1] *= shape[k];
            j.ss[j.rank - 1] = ss[k];
            j.ds[j.rank - 1] = ds[k];
            continue;
        }
        j.shape[j.rank] = shape[k];
        j.ss[j.rank] = ss[k];
        j.ds[j.rank++] = ds[k];
    }
    if (j.rank == 0) {
        j.rank = 1;
        j.shape[0] = 1;
        j.ss[0] = j.ds[0] = 1;
    }
    j.src = (const unsigned char *)src + sbase * (int64_t)es;
    j.dst = (unsigned char *)dst + dbase * (int64_t)es;
    j.es = es;
    j.tp = -1;
    uint32_t r = j.rank;
    if (r >= 2 && j.ds[r - 1] == 1 && j.ss[r - 1] != 1 && j.ss[r - 1] != 0 && (j.blk = tr_pick(es, rt_isa(x))))
        for (uint32_t k = 0; k + 1 < r; k++)
            if (j.ss[k] == 1 && j.ds[k] > 0) {
                j.tp = (int)k;
                break;
            }
    if (j.tp >= 0) {
        uint64_t outer = 1;
        for (uint32_t k = 0; k + 1 < r; k++)
            if (k != (uint32_t)j.tp) outer *= (uint64_t)j.shape[k];
        uint64_t nr = (uint64_t)TR_ROWS(es);
        j.bblocks = ((uint64_t)j.shape[r - 1] + nr - 1) / nr + 1;   /* + the head (copy_rows) */
        uint64_t per = nr * (uint64_t)j.shape[j.tp];
        j.isa = rt_isa(x);
        j.stream = total * es >= RT_STREAM_MIN_BYTES;
        rt_parallel_for(x, outer * j.bblocks, per >= 16384 ? 1 : 16384 / per, copy_rows, &j);
        return;
    }
    int64_t last_s = j.ss[j.rank - 1];
    /* Tiles pay off when consecutive elements of a row lie a cache line
     * or more apart in the source; a row read backwards (reverse, stride
     * -1) or a few elements apart uses every line it touches as it goes,
     * and the tiled loop (element by element, two dims) cost a 4096x4096
     * f32 reverse of the last dim 3x numpy's time. */
    uint64_t last_span = (uint64_t)(last_s < 0 ? -last_s : last_s) * es;
    j.tiled = j.rank >= 2 && last_span >= 64 && j.ss[j.rank - 2] != 0 &&
              j.shape[j.rank - 1] >= 8 && j.shape[j.rank - 2] >= 8;
    uint32_t inner = j.tiled ? 2 : 1;
    uint64_t rows = 1, per = 1;
    for (uint32_t k = 0; k < j.rank; k++) {
        if (k < j.rank - inner) rows *= (uint64_t)j.shape[k];
        else per *= (uint64_t)j.shape[k];
    }
    uint64_t grain = per >= 32768 ? 1 : 32768 / per;
    j.isa = rt_isa(x);
    j.stream = !j.tiled && j.ss[j.rank - 1] == 1 && j.ds[j.rank - 1] == 1 && total * es >= RT_STREAM_MIN_BYTES &&
               (uint64_t)j.shape[j.rank - 1] * es >= TR_STREAM_ROW_MIN;
    rt_parallel_for(x, rows, grain, copy_rows, &j);
}

static void strides_of(const plumb_tensor *t, int64_t *s)
{
    int64_t v = 1;
    for (uint32_t d = t->rank; d-- > 0;) {
        s[d] = v;
        v *= t->dims[d];
    }
}

static size_t esize(const plumb_tensor *t) { return plumb_dtype_size(t->dtype); }

static bool same_elem(rt_exec *x, const ir_op *op, const plumb_tensor *a, const plumb_tensor *b)
{
    if (a->dtype != b->dtype)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operand and result element types differ");
    return true;
}

/* ---- constant, reshape ------------------------------------------------------------ */

bool rt_op_CONSTANT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    const plumb_tensor *v = op->a.value;
    if (!v || v->dtype != out[0]->dtype || v->nbytes != out[0]->nbytes)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the value attribute does not match the result type");
    if (v->nbytes) memcpy(out[0]->data, v->data, v->nbytes);
    return true;
}

bool rt_op_RESHAPE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (in[0]->nbytes != out[0]->nbytes || in[0]->dtype != out[0]->dtype)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operand and result hold different numbers of elements");
    if (in[0]->nbytes && in[0]->data != out[0]->data) memcpy(out[0]->data, in[0]->data, in[0]->nbytes);
    return true;
}

/* ---- iota -------------------------------------------------------------------------- */

typedef struct iota_job {
    plumb_tensor *r;
    uint64_t inner, dimlen;   /* elements after the iota dim; its extent */
} iota_job;

/* The bits of index value v in r's element type. */
static uint64_t iota_bits(plumb_dtype t, uint64_t v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16((double)v);
    case PLUMB_BF16: return plumb_f64_to_bf16((double)v);
    case PLUMB_F32: return plumb_f32_bits((float)(double)v);
    case PLUMB_F64: return plumb_f64_bits((double)v);
    case PLUMB_I1: return v & 1;
    default:
        /* The small float formats round the exact index once, to nearest
         * even, with the format's overflow rule (convert's codec);
         * i2/i4/ui2/ui4 and the wide integers keep the low bits (store
         * truncates to the width). */
        return plumb_fpfmt_get(t) ? plumb_f64_to_small(plumb_fpfmt_get(t), (double)v) : v;
    }
}

/* n copies of one element of es bytes (1, 2, 4 or 8) at d. */
static void fill_elems(unsigned char *d, size_t es, uint64_t bits, uint64_t n)
{
    switch (es) {
    case 1: memset(d, (int)(bits & 0xff), (size_t)n); break;
    case 2: { uint16_t v = (uint16_t)bits; for (uint64_t i = 0; i < n; i++) memcpy(d + 2 * i, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; for (uint64_t i = 0; i < n; i++) memcpy(d + 4 * i, &v, 4); break; }
    default: for (uint64_t i = 0; i < n; i++) memcpy(d + 8 * i, &bits, 8); break;
    }
}

/* An iota is periodic: element i holds (i / inner) % dimlen, so it repeats
 * every period = inner * dimlen elements and is constant over runs of
 * `inner`. Whole-byte types (all but i2/i4/ui2/ui4 and the FP4/FP6
 * formats and i1, whose stores mask) write one converted value per run with typed
 * stores, and past the chunk's first period copy the period already
 * written (memcpy). The element-by-element loop (a division, a type
 * switch and a bit store each) took 120 ms of a 4096x4096 causal mask's
 * 2 x 16M-element i32 iotas. Same bits either way: each element is
 * iota_bits of its own index value. */
static void iota_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    iota_job *j = ctx;
    plumb_tensor *r = j->r;
    unsigned bits_w = plumb_dtype_get(r->dtype)->bits;
    size_t es = plumb_dtype_size(r->dtype);
    if (bits_w != 8 * es || (es != 1 && es != 2 && es != 4 && es != 8)) {
        for (uint64_t i = begin; i < end; i++)
            plumb_store_bits(r->dtype, r->data, (size_t)i, iota_bits(r->dtype, (i / j->inner) % j->dimlen));
        return;
    }
    unsigned char *d = r->data;
    uint64_t period = j->inner * j->dimlen;
    uint64_t first_end = period < end - begin ? begin + period : end;
    uint64_t q = begin / j->inner, k = begin % j->inner, v = q % j->dimlen;
    for (uint64_t i = begin; i < first_end;) {
        uint64_t run = j->inner - k < first_end - i ? j->inner - k : first_end - i;
        fill_elems(d + i * es, es, iota_bits(r->dtype, v), run);
        i += run;
        k = 0;
        if (++v == j->dimlen) v = 0;
    }
    for (uint64_t i = first_end; i < end;) {
        uint64_t n = end - i < period ? end - i : period;
        memcpy(d + i * es, d + (i - period) * es, (size_t)(n * es));
        i += n;
    }
}

bool rt_op_IOTA(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    plumb_tensor *r = out[0];
    int64_t dim = op->a.dimension;
    if (dim < 0 || (uint64_t)dim >= r->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "iota_dimension %lld is not a dimension of the result", (long long)dim);
    uint64_t n = plumb_tensor_numel(r);
    if (n == 0) return true;
    iota_job j = {r, 1, (uint64_t)r->dims[dim]};
    for (uint32_t d = (uint32_t)dim + 1; d < r->rank; d++) j.inner *= (uint64_t)r->dims[d];
    rt_parallel_for(x, n, 65536, iota_range, &j);
    return true;
}

/* ---- broadcast, transpose, slice, reverse ------------------------------------------------ */

bool rt_op_BROADCAST_IN_DIM(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    if (!same_elem(x, op, a, r)) return false;
    if (op->a.dims.n != a->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "broadcast_dimensions has %u entries for an operand of rank %u",
                       op->a.dims.n, a->rank);
    int64_t as[PLUMB_MAX_RANK], ss[PLUMB_MAX_RANK] = {0}, ds[PLUMB_MAX_RANK];
    strides_of(a, as);
    strides_of(r, ds);
    for (uint32_t d = 0; d < a->rank; d++) {
        int64_t bd = op->a.dims.v[d];
        if (bd < 0 || (uint64_t)bd >= r->rank || (a->dims[d] != 1 && a->dims[d] != r->dims[bd]))
            return rt_fail(x, op, PLUMB_ERR_INVALID, "broadcast dimension %lld does not fit the result", (long long)bd);
        if (a->dims[d] != 1) ss[bd] = as[d];
    }
    strided_copy(x, r->rank, r->dims, a->data, 0, ss, r->data, 0, ds, esize(r));
    return true;
}

bool rt_op_TRANSPOSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    if (!same_elem(x, op, a, r)) return false;
    if (op->a.dims.n != a->rank || r->rank != a->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "permutation has %u entries for an operand of rank %u",
                       op->a.dims.n, a->rank);
    int64_t as[PLUMB_MAX_RANK], ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK];
    bool used[PLUMB_MAX_RANK] = {false};
    strides_of(a, as);
    strides_of(r, ds);
    for (uint32_t i = 0; i < a->rank; i++) {
        int64_t p = op->a.dims.v[i];
        if (p < 0 || (uint64_t)p >= a->rank || used[p] || a->dims[p] != r->dims[i])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "permutation is not a permutation of the dimensions");
        used[p] = true;
        ss[i] = as[p];
    }
    strided_copy(x, r->rank, r->dims, a->data, 0, ss, r->data, 0, ds, esize(r));
    return true;
}

bool rt_op_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    if (!same_elem(x, op, a, r)) return false;
    if (op->a.start.n != a->rank || op->a.strides.n != a->rank || r->rank != a->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "start_indices and strides need one entry per dimension");
    int64_t as[PLUMB_MAX_RANK], ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK], base = 0;
    strides_of(a, as);
    strides_of(r, ds);
    for (uint32_t d = 0; d < a->rank; d++) {
        int64_t st = op->a.start.v[d], step = op->a.strides.v[d];
        if (r->dims[d] > 0 && (st < 0 || step < 1 || st + (r->dims[d] - 1) * step >= a->dims[d]))
            return rt_fail(x, op, PLUMB_ERR_INVALID, "slice of dimension %u reads outside the operand", d);
        base += st * as[d];
        ss[d] = step * as[d];
    }
    strided_copy(x, r->rank, r->dims, a->data, base, ss, r->data, 0, ds, esize(r));
    return true;
}

bool rt_op_REVERSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    if (!same_elem(x, op, a, r)) return false;
    if (r->nbytes != a->nbytes || r->rank != a->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "result shape differs from the operand's");
    int64_t ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK], base = 0;
    strides_of(a, ss);
    strides_of(r, ds);
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= a->rank)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension %lld is out of range", (long long)d);
        if (ss[d] < 0) continue;   /* listed twice: the verifier rejects it; reverse once */
        if (a->dims[d] > 0) base += (a->dims[d] - 1) * ss[d];
        ss[d] = -ss[d];
    }
    strided_copy(x, r->rank, r->dims, a->data, base, ss, r->data, 0, ds, esize(r));
    return true;
}

/* ---- dynamic_slice / dynamic_update_slice -------------------------------------------------- */

static int64_t clamp_start(const plumb_tensor *t, int64_t hi)
{
    int64_t v;
    if (plumb_dtype_is_unsigned(t->dtype)) {
        uint64_t u = plumb_load_u64(t->dtype, t->data, 0);
        v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    } else {
        v = plumb_load_i64(t->dtype, t->data, 0);
    }
    if (hi < 0) hi = 0;
    return v < 0 ? 0 : v > hi ? hi : v;
}

static bool check_starts(rt_exec *x, const ir_op *op, plumb_tensor *const *s, uint32_t n, uint32_t rank, uint32_t first)
{
    if (n != rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%u start indices for an operand of rank %u", n, rank);
    for (uint32_t i = 0; i < n; i++)
        if (s[i]->rank != 0 || !plumb_dtype_is_int(s[i]->dtype) || !s[i]->data)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "operand %u (a start index) must be a 0-d integer tensor", first + i);
    return true;
}

bool rt_op_DYNAMIC_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    if (op->n_operands < 1 || !check_starts(x, op, in + 1, op->n_operands - 1, a->rank, 1)) return false;
    if (!same_elem(x, op, a, r)) return false;
    if (r->rank != a->rank) return rt_fail(x, op, PLUMB_ERR_INVALID, "result rank differs from the operand's");
    int64_t ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK], base = 0;
    strides_of(a, ss);
    strides_of(r, ds);
    for (uint32_t d = 0; d < a->rank; d++) {
        if (r->dims[d] > a->dims[d])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "slice size exceeds the operand in dimension %u", d);
        base += clamp_start(in[1 + d], a->dims[d] - r->dims[d]) * ss[d];
    }
    strided_copy(x, r->rank, r->dims, a->data, base, ss, r->data, 0, ds, esize(r));
    return true;
}

bool rt_op_DYNAMIC_UPDATE_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0], *u = in[1];
    plumb_tensor *r = out[0];
    if (op->n_operands < 2 || !check_starts(x, op, in + 2, op->n_operands - 2, a->rank, 2)) return false;
    if (u->rank != a->rank || u->dtype != a->dtype || r->nbytes != a->nbytes || r->dtype != a->dtype)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operand, update and result types disagree");
    int64_t ds[PLUMB_MAX_RANK], us[PLUMB_MAX_RANK], base = 0;
    strides_of(r, ds);
    strides_of(u, us);
    for (uint32_t d = 0; d < a->rank; d++) {
        if (u->dims[d] > a->dims[d])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "update is larger than the operand in dimension %u", d);
        base += clamp_start(in[2 + d], a->dims[d] - u->dims[d]) * ds[d];
    }
    if (a->nbytes && a->data != r->data) memcpy(r->data, a->data, a->nbytes);
    strided_copy(x, u->rank, u->dims, u->data, 0, us, r->data, base, ds, esize(r));
    return true;
}

/* ---- concatenate, pad ------------------------------------------------------------------- */

bool rt_op_CONCATENATE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    int64_t dim = op->a.dimension;
    if (dim < 0 || (uint64_t)dim >= r->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension %lld is not a dimension of the result", (long long)dim);
    int64_t total = 0;
    for (uint32_t k = 0; k < op->n_operands; k++) {
        bool same = in[k]->rank == r->rank && in[k]->dtype == r->dtype;
        for (uint32_t d = 0; same && d < r->rank; d++) same = (int64_t)d == dim || in[k]->dims[d] == r->dims[d];
        if (!same) return rt_fail(x, op, PLUMB_ERR_INVALID, "operand %u's type does not match the result", k);
        total += in[k]->dims[dim];
    }
    if (total != r->dims[dim])
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operands' extents do not add up to the result's");
    int64_t ds[PLUMB_MAX_RANK], ss[PLUMB_MAX_RANK], off = 0;
    strides_of(r, ds);
    for (uint32_t k = 0; k < op->n_operands; k++) {
        strides_of(in[k], ss);
        strided_copy(x, r->rank, in[k]->dims, in[k]->data, 0, ss, r->data, off * ds[dim], ds, esize(r));
        off += in[k]->dims[dim];
    }
    return true;
}

typedef struct fill_job {
    unsigned char *dst;
    const unsigned char *val;
    size_t es;
    plumb_isa isa;
    bool stream;
} fill_job;

static void fill_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    fill_job *f = ctx;
    rt_fill(f->isa, f->dst + begin * f->es, f->val, f->es, (size_t)(end - begin), f->stream);
    if (f->stream) rt_copy_fence(f->isa);
}

/* Pad without interior padding, one pass over the result: each result row
 * (innermost dimension) is the padding value where it lies outside the
 * operand in an outer dimension, else the value up to the operand's first
 * element, a copy of the operand's row (cropped by negative padding), and
 * the value after it. Every result element is written once. */
typedef struct pad_job {
    const unsigned char *src, *val;
    unsigned char *dst;
    size_t es;
    uint32_t rank;                       /* >= 1 */
    int64_t rdims[PLUMB_MAX_RANK], adims[PLUMB_MAX_RANK], lo[PLUMB_MAX_RANK], as[PLUMB_MAX_RANK];
    plumb_isa isa;
    bool stream;
} pad_job;

static void pad_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const pad_job *p = ctx;
    uint32_t last = p->rank - 1;
    int64_t n = p->rdims[last], an = p->adims[last], lo = p->lo[last];
    /* the result positions [p0, p0 + cnt) hold operand elements a0.. */
    int64_t a0 = lo < 0 ? -lo : 0, p0 = lo < 0 ? 0 : lo;
    int64_t cnt = an - a0 < n - p0 ? an - a0 : n - p0;
    if (cnt < 0) cnt = 0;
    if (p0 > n) p0 = n;
    size_t es = p->es;
    for (uint64_t row = begin; row < end; row++) {
        unsigned char *d = p->dst + row * (uint64_t)n * es;
        uint64_t q = row;
        int64_t so = 0;
        bool inside = cnt > 0;
        for (uint32_t k = last; k-- > 0;) {
            int64_t i = (int64_t)(q % (uint64_t)p->rdims[k]) - p->lo[k];
            q /= (uint64_t)p->rdims[k];
            inside &= i >= 0 && i < p->adims[k];
            so += i * p->as[k];
        }
        if (!inside) {
            rt_fill(p->isa, d, p->val, es, (size_t)n, p->stream);
            continue;
        }
        rt_fill(p->isa, d, p->val, es, (size_t)p0, p->stream);
        const unsigned char *s = p->src + (so + a0) * (int64_t)es;
        if (p->stream) rt_copy_stream(p->isa, d + p0 * (int64_t)es, s, (size_t)cnt * es);
        else memcpy(d + p0 * (int64_t)es, s, (size_t)cnt * es);
        rt_fill(p->isa, d + (p0 + cnt) * (int64_t)es, p->val, es, (size_t)(n - p0 - cnt), p->stream);
    }
    if (p->stream) rt_copy_fence(p->isa);
}

bool rt_op_PAD(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0], *pv = in[1];
    plumb_tensor *r = out[0];
    if (op->a.low.n != a->rank || op->a.high.n != a->rank || op->a.interior.n != a->rank || r->rank != a->rank ||
        pv->rank != 0 || pv->dtype != a->dtype || r->dtype != a->dtype)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "padding attributes or padding value do not match the operand");
    size_t es = esize(r);
    uint64_t numel = plumb_tensor_numel(r);
    bool stream = numel * es >= RT_STREAM_MIN_BYTES;
    bool interior = false;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (op->a.interior.v[d] < 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "negative interior padding in dimension %u", d);
        interior |= op->a.interior.v[d] != 0;
    }
    if (numel == 0) return true;
    if (!interior) {
        pad_job p;
        memset(&p, 0, sizeof p);
        p.src = a->data;
        p.val = pv->data;
        p.dst = r->data;
        p.es = es;
        p.rank = a->rank ? a->rank : 1;
        p.rdims[0] = p.adims[0] = 1;
        for (uint32_t d = 0; d < a->rank; d++) {
            p.rdims[d] = r->dims[d];
            p.adims[d] = a->dims[d];
            p.lo[d] = op->a.low.v[d];
        }
        strides_of(a, p.as);
        p.isa = rt_isa(x);
        p.stream = stream;
        uint64_t n = (uint64_t)p.rdims[p.rank - 1];
        rt_parallel_for(x, numel / n, n >= 16384 ? 1 : 16384 / n, pad_rows, &p);
        return true;
    }
    fill_job f = {r->data, pv->data, es, rt_isa(x), stream};
    rt_parallel_for(x, numel, 65536, fill_range, &f);
    int64_t as[PLUMB_MAX_RANK], rs[PLUMB_MAX_RANK], shape[PLUMB_MAX_RANK], ss[PLUMB_MAX_RANK], ds[PLUMB_MAX_RANK];
    int64_t sbase = 0, dbase = 0;
    strides_of(a, as);
    strides_of(r, rs);
    for (uint32_t d = 0; d < a->rank; d++) {
        int64_t lo = op->a.low.v[d], st = op->a.interior.v[d] + 1;
        /* operand indices o with 0 <= lo + o*st < dim(r) */
        int64_t o0 = lo >= 0 ? 0 : (-lo + st - 1) / st;
        int64_t o1 = a->dims[d] - 1;
        if (r->dims[d] - 1 - lo < 0) o1 = -1;
        else if ((r->dims[d] - 1 - lo) / st < o1) o1 = (r->dims[d] - 1 - lo) / st;
        shape[d] = o1 >= o0 ? o1 - o0 + 1 : 0;
        sbase += o0 * as[d];
        dbase += (lo + o0 * st) * rs[d];
        ss[d] = as[d];
        ds[d] = st * rs[d];
    }
    strided_copy(x, r->rank, shape, a->data, sbase, ss, r->data, dbase, ds, es);
    return true;
}

/* ---- bitcast_convert --------------------------------------------------------------------- */

bool rt_op_BITCAST_CONVERT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *a = in[0];
    plumb_tensor *r = out[0];
    /* a complex side is its components, real then imaginary: 2n elements
     * of the component type (docs/spec/complex.md) */
    plumb_dtype ti = plumb_dtype_is_complex(a->dtype) ? plumb_dtype_component(a->dtype) : a->dtype;
    plumb_dtype to = plumb_dtype_is_complex(r->dtype) ? plumb_dtype_component(r->dtype) : r->dtype;
    uint32_t wi = plumb_dtype_get(ti)->bits, wo = plumb_dtype_get(to)->bits;
    uint64_t ni = plumb_tensor_numel(a) * (ti != a->dtype ? 2 : 1), no = plumb_tensor_numel(r) * (to != r->dtype ? 2 : 1);
    uint64_t ratio = wi >= wo ? wi / wo : wo / wi;
    if ((wi >= wo ? ni * ratio : no * ratio) != (wi >= wo ? no : ni))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operand and result shapes do not fit the element widths");
    if (wi == wo && a->nbytes == r->nbytes) {
        if (a->nbytes) memcpy(r->data, a->data, a->nbytes);
        return true;
    }
    /* assembled arithmetically: independent of the host's byte order, and
     * right for i1 (one bit in a byte) */
    uint64_t mask_o = wo == 64 ? ~0ull : (1ull << wo) - 1;
    uint64_t mask_i = wi == 64 ? ~0ull : (1ull << wi) - 1;
    if (wi >= wo) {
        for (uint64_t i = 0; i < ni; i++) {
            uint64_t b = plumb_load_bits(ti, a->data, (size_t)i) & mask_i;
            for (uint64_t k = 0; k < ratio; k++)
                plumb_store_bits(to, r->data, (size_t)(i * ratio + k), (wo == 64 ? b : b >> (k * wo)) & mask_o);
        }
    } else {
        for (uint64_t i = 0; i < no; i++) {
            uint64_t b = 0;
            for (uint64_t k = 0; k < ratio; k++)
                b |= (plumb_load_bits(ti, a->data, (size_t)(i * ratio + k)) & mask_i) << (k * wi);
            plumb_store_bits(to, r->data, (size_t)i, b & mask_o);
        }
    }
    return true;
}

/* ---- views over movement chains (rt_view.h) ------------------------------------------- */

typedef struct view_job {
    uint32_t rank, n;
    int64_t dims[PLUMB_MAX_RANK];
    rt_view_piece q[RT_VIEW_MAX_PIECES];       /* sorted by start in the last dimension */
    const unsigned char *src[RT_VIEW_MAX_PIECES];   /* source at q.off, or the padding value */
    unsigned char *dst;
    size_t es;
    plumb_isa isa;
    bool stream;
} view_job;

/* Each result row (the last dimension) in one pass: its pieces' segments
 * in order, copied (source stride 1), repeated (stride 0: a broadcast
 * element) or filled with the padding value; every element written once. */
static void view_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const view_job *j = ctx;
    uint32_t last = j->rank - 1;
    int64_t n = j->dims[last];
    size_t es = j->es;
    for (uint64_t row = begin; row < end; row++) {
        int64_t idx[PLUMB_MAX_RANK];
        uint64_t r = row;
        for (uint32_t k = last; k-- > 0;) {
            idx[k] = (int64_t)(r % (uint64_t)j->dims[k]);
            r /= (uint64_t)j->dims[k];
        }
        unsigned char *d = j->dst + row * (uint64_t)n * es;
        for (uint32_t p = 0; p < j->n; p++) {
            const rt_view_piece *q = &j->q[p];
            bool in = true;
            int64_t so = 0;
            for (uint32_t k = 0; k < last && in; k++) {
                in = idx[k] >= q->lo[k] && idx[k] < q->hi[k];
                so += idx[k] * q->st[k];
            }
            if (!in)
                continue;
            int64_t lo = q->lo[last], cnt = q->hi[last] - lo;
            unsigned char *dp = d + lo * (int64_t)es;
            if (q->fill) {
                rt_fill(j->isa, dp, j->src[p], es, (size_t)cnt, j->stream);
                continue;
            }
            const unsigned char *sp = j->src[p] + (so + lo * q->st[last]) * (int64_t)es;
            if (q->st[last] == 0)
                rt_fill(j->isa, dp, sp, es, (size_t)cnt, j->stream);
            else if (j->stream)
                rt_copy_stream(j->isa, dp, sp, (size_t)cnt * es);
            else
                memcpy(dp, sp, (size_t)cnt * es);
        }
    }
    if (j->stream)
        rt_copy_fence(j->isa);
}

static int piece_cmp(const void *a, const void *b, uint32_t last)
{
    const rt_view_piece *x = a, *y = b;
    return x->lo[last] < y->lo[last] ? -1 : x->lo[last] > y->lo[last];
}

bool rt_view_run(rt_exec *x, const ir_op *root, const rt_view *v, const plumb_tensor *hdr, plumb_tensor *out)
{
    size_t es = v->es;
    if (plumb_dtype_size(out->dtype) != es || out->rank != v->rank)
        return rt_fail(x, root, PLUMB_ERR_INVALID, "the result does not have the planned view's type");
    uint64_t numel = 1;
    for (uint32_t d = 0; d < v->rank; d++) {
        if (out->dims[d] != v->dims[d])
            return rt_fail(x, root, PLUMB_ERR_INVALID, "the result does not have the planned view's shape");
        numel *= (uint64_t)v->dims[d];
    }
    if (numel == 0 || v->n == 0)
        return true;
    view_job *j = rt_scratch(x, root, sizeof *j);
    if (!j)
        return false;
    memset(j, 0, sizeof *j);
    j->es = es;
    j->dst = out->data;
    j->isa = rt_isa(x);
    j->n = v->n;
    bool rows = true;
    for (uint32_t p = 0; p < v->n; p++) {
        const rt_view_piece *q = &v->p[p];
        const plumb_tensor *t = &hdr[q->leaf];
        if (!t->data || plumb_dtype_size(t->dtype) != es)
            return rt_fail(x, root, PLUMB_ERR_INVALID, "a tensor the view reads has no data or another element type");
        j->src[p] = q->fill ? t->data : (const unsigned char *)t->data + q->off * (int64_t)es;
        if (!q->fill && v->rank && q->st[v->rank - 1] != 0 && q->st[v->rank - 1] != 1)
            rows = false;
    }
    int64_t ds[PLUMB_MAX_RANK];
    {
        int64_t s = 1;
        for (uint32_t d = v->rank; d-- > 0;) {
            ds[d] = s;
            s *= v->dims[d];
        }
    }
    /* one piece reading the whole result, or a source that is not read
     * along rows (transposed, reversed): piece by piece through the
     * strided-copy engine (its transposes and tiles) */
    if (!rows || (v->n == 1 && !v->p[0].fill)) {
        for (uint32_t p = 0; p < v->n; p++) {
            const rt_view_piece *q = &v->p[p];
            int64_t shape[PLUMB_MAX_RANK], zero[PLUMB_MAX_RANK] = {0}, sb = 0, db = 0;
            for (uint32_t d = 0; d < v->rank; d++) {
                shape[d] = q->hi[d] - q->lo[d];
                sb += q->lo[d] * q->st[d];
                db += q->lo[d] * ds[d];
            }
            if (q->fill)
                strided_copy(x, v->rank, shape, j->src[p], 0, zero, out->data, db, ds, es);
            else
                strided_copy(x, v->rank, shape, j->src[p], sb, q->st, out->data, db, ds, es);
        }
        return true;
    }
    /* Rows: merge a dimension into the next when every piece spans the
     * next one whole and reads both as one run (fills always can), so
     * short rows do not cost a piece test each. */
    uint32_t r = v->rank ? v->rank : 1;
    int64_t dims[PLUMB_MAX_RANK];
    for (uint32_t p = 0; p < v->n; p++)
        j->q[p] = v->p[p];
    if (v->rank == 0) {
        dims[0] = 1;
        for (uint32_t p = 0; p < v->n; p++) {
            j->q[p].lo[0] = 0;
            j->q[p].hi[0] = 1;
            j->q[p].st[0] = 0;
        }
    } else {
        for (uint32_t d = 0; d < r; d++) dims[d] = v->dims[d];
    }
    uint32_t top = r - 1;   /* dims [top, r) are merged into dim r-1 */
    while (top > 0) {
        uint32_t k = top - 1;
        bool ok = true;
        for (uint32_t p = 0; p < j->n && ok; p++) {
            const rt_view_piece *q = &j->q[p];
            ok = q->lo[r - 1] == 0 && q->hi[r - 1] == dims[r - 1] &&
                 (q->fill || q->st[k] == q->st[r - 1] * dims[r - 1]);
        }
        if (!ok)
            break;
        for (uint32_t p = 0; p < j->n; p++) {
            rt_view_piece *q = &j->q[p];
            q->lo[r - 1] = q->lo[k] * dims[r - 1];
            q->hi[r - 1] = q->hi[k] * dims[r - 1];
        }
        dims[r - 1] *= dims[k];
        top = k;
    }
    /* the kept dims [0, top) then the merged one */
    j->rank = top + 1;
    for (uint32_t d = 0; d < top; d++) j->dims[d] = dims[d];
    j->dims[top] = dims[r - 1];
    for (uint32_t p = 0; p < j->n; p++) {
        rt_view_piece *q = &j->q[p];
        q->lo[top] = q->lo[r - 1];
        q->hi[top] = q->hi[r - 1];
        q->st[top] = q->st[r - 1];
    }
    /* segments in row order (insertion sort: at most RT_VIEW_MAX_PIECES) */
    for (uint32_t p = 1; p < j->n; p++) {
        rt_view_piece q = j->q[p];
        const unsigned char *s = j->src[p];
        uint32_t i = p;
        for (; i > 0 && piece_cmp(&j->q[i - 1], &q, top) > 0; i--) {
            j->q[i] = j->q[i - 1];
            j->src[i] = j->src[i - 1];
        }
        j->q[i] = q;
        j->src[i] = s;
    }
    j->stream = numel * es >= RT_STREAM_MIN_BYTES;
    uint64_t n = (uint64_t)j->dims[top];
    rt_parallel_for(x, numel / n, n >= 16384 ? 1 : 16384 / n, view_rows, j);
    return true;
}
