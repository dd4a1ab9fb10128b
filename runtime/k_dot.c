/* stablehlo.dot_general and stablehlo.dot on top of the GEMMs.
 *
 * Each operand is viewed as [batch, free, contracting] (lhs) and [batch,
 * contracting, free] (rhs); when its dimension numbers already give that
 * row-major layout it is used in place, otherwise it is copied into it once
 * (in the compute type). Each batch is one GEMM.
 *
 * Compute types: f64 results, or any operand that is not f16/bf16/f32, use
 * the f64 GEMM (operands read exactly; integers above 2^53 to the nearest
 * double, as the reference does) and round once. Otherwise bf16 x bf16 and
 * f16 x f16 use the half-precision GEMMs and other mixes are widened to
 * f32; all accumulate in f32 with exact products. f16/bf16 results are
 * rounded from the f32 accumulator. Integer results wrap modulo 2^bits and
 * i1 results are the OR of ANDs, on their own blocked vector loops (below).
 * precision_config is a hint and is ignored (full precision always).
 *
 * dot_general's algorithm (docs/spec/dotalg.md): with one component per
 * operand, each element is rounded to its precision type while it is
 * packed (the GEMM then multiplies the rounded values exactly, as the
 * reference does) and the half-precision GEMMs are not used (a rounded
 * bf16 may not be an f16 and the reverse); an f64 accumulation type takes
 * the f64 GEMM. The f32 accumulator is at least as precise as every other
 * accumulation type an algorithm names, and split algorithms (x3, x6) are
 * run as the plain dot at f32 or better, within their emulation bound.
 *
 * A float result that comes out NaN or infinite is computed again on its
 * own (rescue_range): the GEMMs' lanes can overflow with opposite signs and
 * meet as NaN, or overflow where the exact sum is finite, while the
 * reference returns the exact result rounded once (docs/runtime-kernels.md,
 * "Overflow in dots"). */
#include <math.h>
#include <string.h>

#include "plumb/dotalg.h"
#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "rt_internal.h"
#include "rt_lowp.h"
#include "rt_conv.h"
#include "rt_sum.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#else
#define RT_X86 0
#endif

typedef enum { CT_F32, CT_F64, CT_BF16, CT_F16 } calc_t;

typedef struct dot_view {
    uint32_t nb, nf, nc;
    int64_t bd[PLUMB_MAX_RANK], fd[PLUMB_MAX_RANK], cd[PLUMB_MAX_RANK];   /* dims */
    int64_t bs[PLUMB_MAX_RANK], fs[PLUMB_MAX_RANK], cs[PLUMB_MAX_RANK];   /* strides */
    uint64_t B, F, K;
} dot_view;

static bool dims_ok(const ir_ints *v, uint32_t rank, bool *used)
{
    for (uint32_t i = 0; i < v->n; i++) {
        int64_t d = v->v[i];
        if (d < 0 || d >= (int64_t)rank || used[d]) return false;
        used[d] = true;
    }
    return true;
}

static void make_view(const plumb_tensor *t, const ir_ints *b, const ir_ints *c, const bool *used, dot_view *v)
{
    int64_t str[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = t->rank; d-- > 0;) { str[d] = s; s *= t->dims[d]; }
    memset(v, 0, sizeof *v);
    v->B = v->F = v->K = 1;
    for (uint32_t i = 0; i < b->n; i++) {
        v->bd[v->nb] = t->dims[b->v[i]]; v->bs[v->nb++] = str[b->v[i]]; v->B *= (uint64_t)t->dims[b->v[i]];
    }
    for (uint32_t d = 0; d < t->rank; d++)
        if (!used[d]) { v->fd[v->nf] = t->dims[d]; v->fs[v->nf++] = str[d]; v->F *= (uint64_t)t->dims[d]; }
    for (uint32_t i = 0; i < c->n; i++) {
        v->cd[v->nc] = t->dims[c->v[i]]; v->cs[v->nc++] = str[c->v[i]]; v->K *= (uint64_t)t->dims[c->v[i]];
    }
}

/* Strides of the element (b, f, k) in the view, as one list of dims in the
 * order [batch..., then free and contracting in the order given]. */
typedef struct order {
    uint32_t n;
    int64_t d[3 * PLUMB_MAX_RANK], s[3 * PLUMB_MAX_RANK];
} order;

static void ord_add(order *o, uint32_t n, const int64_t *d, const int64_t *s)
{
    for (uint32_t i = 0; i < n; i++) { o->d[o->n] = d[i]; o->s[o->n++] = s[i]; }
}

/* Whether walking the order visits memory contiguously from 0. */
static bool contiguous(const order *o)
{
    int64_t want = 1;
    for (uint32_t i = o->n; i-- > 0;) {
        if (o->d[i] == 1) continue;
        if (o->s[i] != want) return false;
        want *= o->d[i];
    }
    return true;
}

typedef struct pack_job {
    const plumb_tensor *t;
    const order *o;
    calc_t ct;
    void *dst;
    int prec;                  /* the algorithm's precision type to round to, or -1 */
    bool bytes;                /* copy one-byte elements as they are (arrange8) */
} pack_job;

static void pack_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    pack_job *j = ctx;
    const order *o = j->o;
    int64_t idx[3 * PLUMB_MAX_RANK];
    uint64_t lin = begin;
    int64_t off = 0;
    for (uint32_t i = o->n; i-- > 0;) {
        idx[i] = (int64_t)(lin % (uint64_t)o->d[i]);
        lin /= (uint64_t)o->d[i];
        off += idx[i] * o->s[i];
    }
    plumb_dtype t = j->t->dtype;
    /* FP8/FP6/FP4 operands widen through a 256-entry table (runtime/k_lowp.c) */
    const float *w8 = j->ct == CT_F32 ? rt_lowp_f32_table(t) : NULL;
    for (uint64_t e = begin; e < end; e++) {
        if (j->bytes) {
            ((uint8_t *)j->dst)[e] = ((const uint8_t *)j->t->data)[off];
            goto next;
        }
        if (j->prec >= 0) {
            /* rounded values of every precision type are f32 values (or
             * doubles under CT_F64): the store below is exact */
            double v = ir_dotalg_round(j->prec, plumb_load_f64(t, j->t->data, (size_t)off));
            if (j->ct == CT_F64) ((double *)j->dst)[e] = v;
            else ((float *)j->dst)[e] = (float)v;
            goto next;
        }
        if (w8) {
            ((float *)j->dst)[e] = w8[((const uint8_t *)j->t->data)[off] & 0xff];
            goto next;
        }
        switch (j->ct) {
        case CT_F64: ((double *)j->dst)[e] = plumb_load_f64(t, j->t->data, (size_t)off); break;
        case CT_F32: ((float *)j->dst)[e] = (float)plumb_load_f64(t, j->t->data, (size_t)off); break;
        default: ((uint16_t *)j->dst)[e] = (uint16_t)plumb_load_bits(t, j->t->data, (size_t)off); break;
        }
    next:
        for (uint32_t i = o->n; i-- > 0;) {
            off += o->s[i];
            if (++idx[i] < o->d[i]) break;
            off -= o->s[i] * idx[i];
            idx[i] = 0;
        }
    }
}

/* The operand in [batch, a, b] order in the compute type: in place when
 * possible, else a copy in scratch. */
static const void *arrange(rt_exec *x, const ir_op *op, const plumb_tensor *t, const order *o, calc_t ct, int prec)
{
    size_t es = ct == CT_F64 ? 8 : ct == CT_F32 ? 4 : 2;
    bool native = (ct == CT_F64 && t->dtype == PLUMB_F64) || (ct == CT_F32 && t->dtype == PLUMB_F32) ||
                  (ct == CT_BF16 && t->dtype == PLUMB_BF16) || (ct == CT_F16 && t->dtype == PLUMB_F16);
    /* rounding to the operand's own type changes nothing: use it in place */
    if (prec == (int)t->dtype) prec = -1;
    if (native && prec < 0 && contiguous(o)) return t->data;
    uint64_t n = plumb_tensor_numel(t);
    void *dst = rt_scratch(x, op, (size_t)(n ? n : 1) * es);
    if (!dst) return NULL;
    pack_job j = {.t = t, .o = o, .ct = ct, .dst = dst, .prec = prec};
    rt_parallel_for(x, n, 65536, pack_range, &j);
    return dst;
}

/* A one-byte operand (FP8/FP6/FP4) in [batch, a, b] order, still one byte
 * per element, for rt_gemm_f8, which widens it while packing: in place
 * when possible, else a byte copy in scratch. */
static const void *arrange8(rt_exec *x, const ir_op *op, const plumb_tensor *t, const order *o)
{
    if (contiguous(o)) return t->data;
    uint64_t n = plumb_tensor_numel(t);
    void *dst = rt_scratch(x, op, (size_t)(n ? n : 1));
    if (!dst) return NULL;
    pack_job j = {.t = t, .o = o, .ct = CT_F32, .dst = dst, .bytes = true};
    rt_parallel_for(x, n, 65536, pack_range, &j);
    return dst;
}

typedef struct round_job {
    const float *src;
    plumb_tensor *out;
    bool vec;                  /* AVX-512 rounding to bf16 */
} round_job;

/* f32 -> bf16, round to nearest even on the bits: the same as
 * plumb_f32_to_bf16 for every input (the exponent ranges are equal, so
 * subnormals round in place and overflow carries into infinity); a NaN
 * keeps its sign and top payload bits with the quiet bit set. */
static inline uint16_t bf16_round(uint32_t u)
{
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

#if RT_X86
__attribute__((target("avx512f,avx512bw")))
static void bf16_round_avx512(const float *src, uint16_t *dst, size_t n)
{
    const __m512i absm = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), q = _mm512_set1_epi32(0x40);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i u = _mm512_castps_si512(_mm512_loadu_ps(src + i));
        __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, absm), inf);
        __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
        __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, bias), lsb), 16);
        r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), q);
        _mm256_storeu_si256((__m256i *)(dst + i), _mm512_cvtepi32_epi16(r));
    }
    for (; i < n; i++) {
        uint32_t u;
        memcpy(&u, src + i, 4);
        dst[i] = bf16_round(u);
    }
}
#endif

static void round_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    round_job *j = ctx;
    if (j->out->dtype == PLUMB_BF16) {
        uint16_t *dst = (uint16_t *)j->out->data + begin;
#if RT_X86
        if (j->vec) {
            bf16_round_avx512(j->src + begin, dst, (size_t)(end - begin));
            return;
        }
#endif
        for (uint64_t i = begin; i < end; i++) {
            uint32_t u;
            memcpy(&u, j->src + i, 4);
            dst[i - begin] = bf16_round(u);
        }
        return;
    }
    const plumb_fpfmt *f = plumb_fpfmt_get(j->out->dtype);
    if (f) {   /* an FP8/FP6/FP4 result: the f32 accumulator rounded once by the codec */
        for (uint64_t i = begin; i < end; i++)
            ((uint8_t *)j->out->data)[i] = (uint8_t)plumb_f64_to_small(f, (double)j->src[i]);
        return;
    }
    for (uint64_t i = begin; i < end; i++)
        plumb_store_bits(j->out->dtype, j->out->data, (size_t)i, plumb_f32_to_f16(j->src[i]));
}

/* ---- integer and i1 dots ------------------------------------------------------
 *
 * The reference sums products of the operands' values (sign- or
 * zero-extended by type) modulo 2^64 and stores the low bits of the sum, so
 * only the low W bits of every operand matter for a W-bit result: the dot
 * is computed in u32 lanes for results up to 32 bits and u64 lanes for
 * 64-bit ones, wrapping like the reference's sum. i1 results are the OR of
 * (lhs & rhs & 1), computed as OR/AND in u32 lanes. Wrap-around addition
 * and OR are associative and commutative, so the blocked order gives the
 * reference's bits exactly at every ISA level and thread count.
 *
 * Layout: lhs is converted once into row-major [batch][M][K]; rhs into
 * panels of IR_NR columns, [batch][N/NR][K][NR] (the tail panel zero
 * padded), so the register tile reads NR contiguous lanes per k. Items of
 * (batch, MC rows, NCB columns) run on the thread pool. */

typedef enum { IK_U32, IK_U64, IK_BIT } ikind;

typedef void (*ikern_fn)(size_t kc, const void *a, size_t lda, const void *bp, void *c, size_t ldc, unsigned mr,
                         unsigned nr, bool acc);

typedef struct iimpl {
    unsigned mr, nr;   /* register tile, elements */
    size_t kc;         /* k block, elements */
    ikern_fn kern;
} iimpl;

/* One register tile: acc[MR][NR] over kc values of k. Rows past mr re-read
 * row mr-1 (in range) and are not stored. VT is a vector of VL lanes of T;
 * NV vectors make NR = NV*VL columns. */
#define IKERN(NAME, TGT, T, VT, VL, MR, NV, STEP)                                                                 \
    TGT static void NAME(size_t kc, const void *a_, size_t lda, const void *bp_, void *c_, size_t ldc,          \
                         unsigned mr, unsigned nr, bool accum)                                                  \
    {                                                                                                           \
        const T *a = a_, *bp = bp_;                                                                             \
        T *c = c_;                                                                                              \
        const T *ar[MR];                                                                                        \
        for (unsigned r = 0; r < MR; r++) ar[r] = a + (size_t)(r < mr ? r : mr - 1) * lda;                      \
        VT acc[MR][NV];                                                                                         \
        memset(acc, 0, sizeof acc);                                                                             \
        for (size_t k = 0; k < kc; k++) {                                                                       \
            VT bv[NV];                                                                                          \
            memcpy(bv, bp + k * (NV * VL), sizeof bv);                                                          \
            for (unsigned r = 0; r < MR; r++) {                                                                 \
                T s = ar[r][k];                                                                                 \
                for (unsigned v = 0; v < NV; v++) STEP(acc[r][v], s, bv[v]);                                    \
            }                                                                                                   \
        }                                                                                                       \
        if (mr == MR && nr == NV * VL) {                                                                        \
            for (unsigned r = 0; r < MR; r++) {                                                                 \
                T *cr = c + r * ldc; /* element-aligned only: vectors go through memcpy */                     \
                for (unsigned v = 0; v < NV; v++) {                                                             \
                    VT o;                                                                                       \
                    if (accum) { memcpy(&o, cr + v * VL, sizeof o); IK_MERGE_##STEP(o, acc[r][v]); }          \
                    else o = acc[r][v];                                                                         \
                    memcpy(cr + v * VL, &o, sizeof o);                                                          \
                }                                                                                               \
            }                                                                                                   \
            return;                                                                                             \
        }                                                                                                       \
        T t[MR][NV * VL];                                                                                       \
        memcpy(t, acc, sizeof t);                                                                               \
        for (unsigned r = 0; r < mr; r++)                                                                       \
            for (unsigned j = 0; j < nr; j++) {                                                                 \
                T o = t[r][j];                                                                                  \
                if (accum) IK_MERGE_##STEP(o, c[r * ldc + j]);                                                  \
                c[r * ldc + j] = o;                                                                             \
            }                                                                                                   \
    }

#define IK_MAC(acc, s, b) ((acc) += (s) * (b))
#define IK_ANDOR(acc, s, b) ((acc) |= (s) & (b))
#define IK_MERGE_IK_MAC(o, p) ((o) += (p))
#define IK_MERGE_IK_ANDOR(o, p) ((o) |= (p))

/* Portable: scalar lanes (VT = T, one lane). */
IKERN(ik_u32_portable, , uint32_t, uint32_t, 1, 4, 8, IK_MAC)
IKERN(ik_u64_portable, , uint64_t, uint64_t, 1, 4, 8, IK_MAC)
IKERN(ik_bit_portable, , uint32_t, uint32_t, 1, 4, 8, IK_ANDOR)

#if RT_X86
typedef uint32_t ik_v8u32 __attribute__((vector_size(32)));
typedef uint64_t ik_v4u64 __attribute__((vector_size(32)));
typedef uint32_t ik_v16u32 __attribute__((vector_size(64)));
typedef uint64_t ik_v8u64 __attribute__((vector_size(64)));
#define IK_AVX2 __attribute__((target("avx2")))
#define IK_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
IKERN(ik_u32_avx2, IK_AVX2, uint32_t, ik_v8u32, 8, 4, 2, IK_MAC)
IKERN(ik_u64_avx2, IK_AVX2, uint64_t, ik_v4u64, 4, 4, 2, IK_MAC)
IKERN(ik_bit_avx2, IK_AVX2, uint32_t, ik_v8u32, 8, 4, 2, IK_ANDOR)
IKERN(ik_u32_avx512, IK_AVX512, uint32_t, ik_v16u32, 16, 6, 2, IK_MAC)
IKERN(ik_u64_avx512, IK_AVX512, uint64_t, ik_v8u64, 8, 6, 2, IK_MAC)
IKERN(ik_bit_avx512, IK_AVX512, uint32_t, ik_v16u32, 16, 6, 2, IK_ANDOR)
#endif

static iimpl ipick(plumb_isa isa, ikind k)
{
    iimpl m = {4, 8, 256, k == IK_U32 ? ik_u32_portable : k == IK_U64 ? ik_u64_portable : ik_bit_portable};
#if RT_X86
    if (isa == PLUMB_ISA_AVX512) {
        m.mr = 6;
        m.nr = k == IK_U64 ? 16 : 32;
        m.kc = 128;
        m.kern = k == IK_U32 ? ik_u32_avx512 : k == IK_U64 ? ik_u64_avx512 : ik_bit_avx512;
    } else if (isa == PLUMB_ISA_AVX2) {
        m.nr = k == IK_U64 ? 8 : 16;
        m.kern = k == IK_U32 ? ik_u32_avx2 : k == IK_U64 ? ik_u64_avx2 : ik_bit_avx2;
    }
#else
    (void)isa;
#endif
    return m;
}

/* Converts one operand, walked in `o` order in rows of its innermost dim,
 * into lanes. Element e = q*len + i of the walk (q: row, i: index in it)
 * goes to dst[base(q) + (p >> sh) * pstride + (p & mask)], p = n0(q) + i.
 * lhs: base = q*len, n0 = 0, no panels (sh = 63). rhs, walked
 * [b, k, n]: base = b*np*K*NR + k*NR, n0 = e mod N, panels of NR = 2^sh
 * lanes, pstride = K*NR. */
typedef struct ipack_job {
    const plumb_tensor *t;
    const order *o;
    ikind kind;
    void *dst;
    bool panels;
    uint64_t N, K, np;
    unsigned sh;          /* log2 of the panel width */
} ipack_job;

#define IROW(ST, CONV)                                                                                            \
    do {                                                                                                        \
        const ST *s = (const ST *)j->t->data + off;                                                             \
        for (uint64_t i = 0; i < len; i++) {                                                                    \
            uint64_t c = (uint64_t)(CONV(s[(int64_t)i * st]));                                                  \
            uint64_t p = n0 + i, dix = base + (p >> sh) * ps + (p & mask);                                      \
            if (kind == IK_U64) ((uint64_t *)j->dst)[dix] = c;                                                  \
            else ((uint32_t *)j->dst)[dix] = (uint32_t)(kind == IK_BIT ? c & 1 : c);                            \
        }                                                                                                       \
    } while (0)
#define IC_ID(v) (v)
#define IC_I8(v) ((int64_t)(int8_t)(v))
#define IC_I16(v) ((int64_t)(int16_t)(v))
#define IC_I32(v) ((int64_t)(int32_t)(v))
#define IC_BOOL(v) ((v) != 0)
/* i2/i4 are stored one per byte, the pattern in the low bits (docs/spec/types.md) */
#define IC_I2(v) ((int64_t)((v) & 3) - (int64_t)(((v) & 2) << 1))
#define IC_I4(v) ((int64_t)((v) & 15) - (int64_t)(((v) & 8) << 1))

static void ipack_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const ipack_job *j = ctx;
    const order *o = j->o;
    uint32_t n = o->n;
    uint64_t len = (uint64_t)o->d[n - 1];
    int64_t st = o->s[n - 1];
    ikind kind = j->kind;
    unsigned sh = j->panels ? j->sh : 63;
    uint64_t mask = j->panels ? (UINT64_C(1) << sh) - 1 : ~UINT64_C(0);
    uint64_t ps = j->panels ? j->K << sh : 0;
    for (uint64_t q = begin; q < end; q++) {
        int64_t off = 0;
        uint64_t r = q;
        for (uint32_t i = n - 1; i-- > 0;) {
            off += (int64_t)(r % (uint64_t)o->d[i]) * o->s[i];
            r /= (uint64_t)o->d[i];
        }
        uint64_t base = q * len, n0 = 0;
        if (j->panels) {
            uint64_t e0 = q * len, bk = e0 / j->N;
            n0 = e0 % j->N;
            base = ((bk / j->K) * j->np * j->K + bk % j->K) << sh;
        }
        switch (j->t->dtype) {
        case PLUMB_I1: IROW(uint8_t, IC_BOOL); break;
        case PLUMB_I8: IROW(uint8_t, IC_I8); break;
        case PLUMB_UI8: case PLUMB_UI2: case PLUMB_UI4: IROW(uint8_t, IC_ID); break;
        case PLUMB_I2: IROW(uint8_t, IC_I2); break;
        case PLUMB_I4: IROW(uint8_t, IC_I4); break;
        case PLUMB_I16: IROW(uint16_t, IC_I16); break;
        case PLUMB_UI16: IROW(uint16_t, IC_ID); break;
        case PLUMB_I32: IROW(uint32_t, IC_I32); break;
        case PLUMB_UI32: IROW(uint32_t, IC_ID); break;
        default: IROW(uint64_t, IC_ID); break;
        }
    }
}

typedef struct igemm_job {
    iimpl im;
    size_t es;                  /* lane size, bytes */
    const unsigned char *A, *Bp;
    unsigned char *C;
    uint64_t M, N, K, np;       /* np: panels of nr columns */
    uint64_t mblocks, nblocks;  /* items per batch: row blocks x column blocks */
    uint64_t mc, ncb;           /* rows, columns per item */
} igemm_job;

static void igemm_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const igemm_job *j = ctx;
    const iimpl *im = &j->im;
    size_t es = j->es;
    for (uint64_t it = begin; it < end; it++) {
        uint64_t b = it / (j->mblocks * j->nblocks), rem = it % (j->mblocks * j->nblocks);
        uint64_t m0 = (rem / j->nblocks) * j->mc, n0 = (rem % j->nblocks) * j->ncb;
        uint64_t m1 = m0 + j->mc < j->M ? m0 + j->mc : j->M, n1 = n0 + j->ncb < j->N ? n0 + j->ncb : j->N;
        const unsigned char *A = j->A + (b * j->M * j->K) * es;
        const unsigned char *Bp = j->Bp + (b * j->np * j->K * im->nr) * es;
        unsigned char *C = j->C + (b * j->M * j->N) * es;
        for (uint64_t k0 = 0; k0 < j->K; k0 += im->kc) {
            size_t kc = (size_t)(j->K - k0 < im->kc ? j->K - k0 : im->kc);
            for (uint64_t n = n0; n < n1; n += im->nr) {
                const unsigned char *bp = Bp + ((n / im->nr) * j->K * im->nr + k0 * im->nr) * es;
                unsigned nr = (unsigned)(n1 - n < im->nr ? n1 - n : im->nr);
                for (uint64_t m = m0; m < m1; m += im->mr) {
                    unsigned mr = (unsigned)(m1 - m < im->mr ? m1 - m : im->mr);
                    im->kern(kc, A + (m * j->K + k0) * es, (size_t)j->K, bp, C + (m * j->N + n) * es,
                             (size_t)j->N, mr, nr, k0 > 0);
                }
            }
        }
    }
}

typedef struct inarrow_job {
    const void *src;
    plumb_tensor *out;
    ikind kind;
} inarrow_job;

static void inarrow_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const inarrow_job *j = ctx;
    const uint32_t *s = j->src;
    switch (plumb_dtype_size(j->out->dtype)) {
    case 1: {
        /* i2/i4/ui2/ui4 keep the bits above their width zero: wrap modulo 2^w */
        uint8_t *d = j->out->data, m = (uint8_t)((1u << plumb_dtype_get(j->out->dtype)->bits) - 1);
        for (uint64_t i = begin; i < end; i++) d[i] = (uint8_t)s[i] & m;
        break;
    }
    default: {
        uint16_t *d = j->out->data;
        for (uint64_t i = begin; i < end; i++) d[i] = (uint16_t)s[i];
        break;
    }
    }
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }

static unsigned log2u(unsigned v)
{
    unsigned s = 0;
    while ((1u << s) < v) s++;
    return s;
}

static bool dot_int(rt_exec *x, const ir_op *op, const plumb_tensor *lhs, const plumb_tensor *rhs,
                    const dot_view *L, const dot_view *R, plumb_tensor *out)
{
    uint64_t B = L->B, M = L->F, N = R->F, K = L->K;
    plumb_dtype ot = out->dtype;
    ikind kind = plumb_dtype_is_bool(ot) ? IK_BIT : plumb_dtype_size(ot) == 8 ? IK_U64 : IK_U32;
    size_t es = kind == IK_U64 ? 8 : 4;
    iimpl im = ipick(rt_isa(x), kind);
    order lo = {0}, ro = {0};
    static const int64_t one = 1, zero = 0;
    ord_add(&lo, L->nb, L->bd, L->bs); ord_add(&lo, L->nf, L->fd, L->fs); ord_add(&lo, L->nc, L->cd, L->cs);
    ord_add(&ro, R->nb, R->bd, R->bs); ord_add(&ro, R->nc, R->cd, R->cs); ord_add(&ro, R->nf, R->fd, R->fs);
    /* every walk needs an innermost dim, and rhs's must be a free dim so
     * that a row of the walk stays inside one row of N */
    if (lo.n == 0) ord_add(&lo, 1, &one, &zero);
    if (R->nf == 0) ord_add(&ro, 1, &one, &zero);
    uint64_t np = (N + im.nr - 1) / im.nr, asz, bsz, csz;
    bool direct = kind != IK_BIT && plumb_dtype_size(ot) == es;
    if (!mul_ok(B * M, K, &asz) || !mul_ok(asz, es, &asz) || !mul_ok(B * np, K, &bsz) ||
        !mul_ok(bsz, (uint64_t)im.nr * es, &bsz) || !mul_ok(B * M * N, es, &csz) || asz > SIZE_MAX ||
        bsz > SIZE_MAX || csz > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "integer dot_general: scratch size overflows");
    unsigned char *A = rt_scratch(x, op, (size_t)asz), *Bp = rt_scratch(x, op, (size_t)bsz);
    unsigned char *C = direct ? out->data : rt_scratch(x, op, (size_t)csz);
    if (!A || !Bp || !C) return false;
    ipack_job pa = {lhs, &lo, kind, A, false, N, K, np, 0};
    rt_parallel_for(x, B * M * K / (uint64_t)lo.d[lo.n - 1], 256, ipack_range, &pa);
    if (N % im.nr)
        for (uint64_t b = 0; b < B; b++)
            memset(Bp + ((b * np + np - 1) * K * im.nr) * es, 0, (size_t)(K * im.nr * es));
    ipack_job pb = {rhs, &ro, kind, Bp, true, N, K, np, log2u(im.nr)};
    rt_parallel_for(x, B * K * N / (uint64_t)ro.d[ro.n - 1], 256, ipack_range, &pb);
    igemm_job g = {im, es, A, Bp, C, M, N, K, np, 0, 0, 0, 0};
    g.mc = (uint64_t)im.mr * 16;
    g.ncb = (uint64_t)im.nr * 8;
    g.mblocks = (M + g.mc - 1) / g.mc;
    g.nblocks = (N + g.ncb - 1) / g.ncb;
    rt_parallel_for(x, B * g.mblocks * g.nblocks, 1, igemm_range, &g);
    if (!direct) {
        inarrow_job nj = {C, out, kind};
        rt_parallel_for(x, B * M * N, 65536, inarrow_range, &nj);
    }
    return true;
}

/* Types whose products are exact in f32 and far from its range limits: the
 * FP8/FP6/FP4 formats too (<= 5-bit significands, |x| <= 57344, smallest
 * 2^-17), but not f8E8M0FNU (2^-127..2^127: products leave f32's range). */
static bool is_narrow_float(plumb_dtype t)
{
    return t == PLUMB_F32 || t == PLUMB_F16 || t == PLUMB_BF16 ||
           (plumb_fpfmt_get(t) && t != PLUMB_F8E8M0FNU);
}

/* ---- results that overflowed ------------------------------------------------------ */

/* Σ_k a[k]·b[k·ldb] for one result element whose GEMM value is NaN or
 * infinite, in index order and compensated (rt_csum_add; f64 products
 * split exactly into p + e by fma), so that it is the correctly rounded
 * sum but for rare ties and deep cancellations, and such that no product
 * or partial sum can overflow: f32/f16/bf16 operands in double (products below 2^256, sums
 * below 2^320), f64 operands each scaled by 2^-540 (products below 2^968,
 * K below 2^55; a product with an infinite or NaN operand unscaled),
 * scaled back at the end, overflowing only when the sum does. Infinite and
 * NaN operands then combine as in the exact sum (0·inf
 * and +inf with -inf give NaN, else an infinity wins), the reference's
 * result. The scaling drops bits of products below 2^-1074·2^1080 = 2^6
 * each: negligible beside γ(K)·Σ|a·b|, which exceeds 2^-53·2^1023/K when
 * a partial sum overflowed. */
static double rescued_dot(calc_t ct, const void *a, const void *b, size_t K, size_t ldb)
{
    double s = -0.0, c = 0.0;
    switch (ct) {
    case CT_F64: {
        const double *x = a, *y = b;
        for (size_t k = 0; k < K; k++) {
            double a1 = x[k], b1 = y[k * ldb];
            if (!isfinite(a1) || !isfinite(b1)) {
                /* unscaled: inf times a tiny number scaled to 0 would be
                 * NaN instead of inf */
                rt_csum_add(&s, &c, a1 * b1);
                continue;
            }
            a1 *= 0x1p-540;
            b1 *= 0x1p-540;
            double p = a1 * b1;
            rt_csum_add(&s, &c, p);
            rt_csum_add(&s, &c, fma(a1, b1, -p));
        }
        if (isfinite(s)) s += c;
        return s * 0x1p540 * 0x1p540;
    }
    case CT_F32: {
        const float *x = a, *y = b;
        for (size_t k = 0; k < K; k++) rt_csum_add(&s, &c, (double)x[k] * (double)y[k * ldb]);
        break;
    }
    case CT_BF16: {
        const uint16_t *x = a, *y = b;
        for (size_t k = 0; k < K; k++) rt_csum_add(&s, &c, plumb_bf16_to_f64(x[k]) * plumb_bf16_to_f64(y[k * ldb]));
        break;
    }
    default: {
        const uint16_t *x = a, *y = b;
        for (size_t k = 0; k < K; k++) rt_csum_add(&s, &c, plumb_f16_to_f64(x[k]) * plumb_f16_to_f64(y[k * ldb]));
        break;
    }
    }
    return isfinite(s) ? s + c : s;
}

typedef struct rescue_job {
    calc_t ct;
    const unsigned char *A, *Bm;   /* [B, M, K] and [B, K, N] in the compute type */
    void *C;                       /* [B, M, N]: double (CT_F64) or float */
    uint64_t M, N, K;
    uint64_t base;                 /* element of C the range's 0 is */
} rescue_job;

/* Scans result elements [begin, end) of the accumulator and recomputes the
 * ones that are NaN or infinite; each writes only its own element. */
static void rescue_block(const rescue_job *j, size_t ael, uint64_t begin, uint64_t end);

/* Whether any of the n accumulator values at p (f32 or f64 bit patterns)
 * is NaN or infinite: the exponent field all ones. A branch-free OR over
 * 16-byte vectors (the baseline's registers: wider generic vectors are
 * scalarized there), so that the
 * scan of a result without overflow costs a fraction of a memory pass
 * instead of a scalar test per element. */
typedef uint32_t rv_u32x4 __attribute__((vector_size(16)));
typedef uint64_t rv_u64x2 __attribute__((vector_size(16)));
static bool any_nonfinite(const void *p, size_t n, bool f64)
{
    size_t i = 0;
    const unsigned char *c = p;
    if (f64) {
        rv_u64x2 acc = {0, 0};
        for (; i + 2 <= n; i += 2) {
            rv_u64x2 v;
            memcpy(&v, c + i * 8, 16);
            acc |= (rv_u64x2)((v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull);
        }
        if (acc[0] | acc[1])
            return true;
        return i < n && !isfinite(((const double *)p)[i]);
    }
    rv_u32x4 acc = {0, 0, 0, 0};
    for (; i + 4 <= n; i += 4) {
        rv_u32x4 v;
        memcpy(&v, c + i * 4, 16);
        acc |= (rv_u32x4)((v & 0x7F800000u) == 0x7F800000u);
    }
    if (acc[0] | acc[1] | acc[2] | acc[3])
        return true;
    for (; i < n; i++)
        if (!isfinite(((const float *)p)[i]))
            return true;
    return false;
}

static void rescue_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const rescue_job *j = ctx;
    size_t ael = j->ct == CT_F64 ? 8 : j->ct == CT_F32 ? 4 : 2;
    size_t cel = j->ct == CT_F64 ? 8 : 4;
    begin += j->base;
    end += j->base;
    /* blocks of 1024 without a NaN or infinity are skipped whole */
    for (uint64_t e0 = begin; e0 < end; e0 += 1024) {
        uint64_t e1 = end - e0 < 1024 ? end : e0 + 1024;
        if (any_nonfinite((const unsigned char *)j->C + e0 * cel, (size_t)(e1 - e0), j->ct == CT_F64))
            rescue_block(j, ael, e0, e1);
    }
}

static void rescue_block(const rescue_job *j, size_t ael, uint64_t begin, uint64_t end)
{
    for (uint64_t e = begin; e < end; e++) {
        double v = j->ct == CT_F64 ? ((const double *)j->C)[e] : (double)((const float *)j->C)[e];
        if (isfinite(v)) continue;
        uint64_t b = e / (j->M * j->N), i = e / j->N % j->M, c = e % j->N;
        const unsigned char *a = j->A + (b * j->M * j->K + i * j->K) * ael;
        const unsigned char *bb = j->Bm + (b * j->K * j->N + c) * ael;
        double r = rescued_dot(j->ct, a, bb, (size_t)j->K, (size_t)j->N);
        if (j->ct == CT_F64) ((double *)j->C)[e] = r;
        else ((float *)j->C)[e] = (float)r;
    }
}

/* Batches of small f32 products over the threads: each batch's product
 * (in place, rt_gemm_f32_small) and its rescue scan on one thread, one
 * pool dispatch for all of them instead of one per batch. The bits are
 * the per-batch loop's: every element is computed by one chain whatever
 * the split. The scan runs only on a batch the product reports NaN or
 * infinite results in (its tiles test their registers before the store;
 * the scan had been 9% of batched_gemm, `perf`). */
typedef struct batch_job {
    plumb_isa isa;
    const unsigned char *A, *Bm;
    unsigned char *C;
    uint64_t M, N, K;
    rescue_job rj;
    bool nonfinite0;       /* batch 0 (the caller's probe) has NaN or infinite results */
    bool failed;
} batch_job;

static void batch_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    batch_job *j = ctx;
    for (uint64_t b = begin; b < end; b++) {
        const float *ab = (const float *)(const void *)(j->A + b * j->M * j->K * 4);
        const float *bb = (const float *)(const void *)(j->Bm + b * j->K * j->N * 4);
        float *cb = (float *)(void *)(j->C + b * j->M * j->N * 4);
        /* batch 0 is the caller's probe, computed already */
        bool nf = j->nonfinite0;
        if (b > 0 && !rt_gemm_f32_small(j->isa, j->M, j->N, j->K, ab, j->K, bb, j->N, cb, j->N, &nf)) {
            j->failed = true;   /* cannot happen: the caller checked the first batch's sizes */
            continue;
        }
        if (!nf) continue;
        rescue_job rj = j->rj;
        rj.base = b * j->M * j->N;
        rescue_range(&rj, 0, j->M * j->N, 0);
    }
}

static bool dot_core(rt_exec *x, const ir_op *op, const plumb_tensor *lhs, const plumb_tensor *rhs,
                     const ir_ints *lb, const ir_ints *rb, const ir_ints *lc, const ir_ints *rc, plumb_tensor *out)
{
    bool lused[PLUMB_MAX_RANK] = {false}, rused[PLUMB_MAX_RANK] = {false};
    if (lb->n != rb->n || lc->n != rc->n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "lhs and rhs list different numbers of batching or contracting dimensions");
    if (!dims_ok(lb, lhs->rank, lused) || !dims_ok(lc, lhs->rank, lused) || !dims_ok(rb, rhs->rank, rused) ||
        !dims_ok(rc, rhs->rank, rused))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a batching or contracting dimension is out of range or repeated");
    for (uint32_t i = 0; i < lb->n; i++)
        if (lhs->dims[lb->v[i]] != rhs->dims[rb->v[i]])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "batching dimension %u has sizes %lld and %lld", i,
                           (long long)lhs->dims[lb->v[i]], (long long)rhs->dims[rb->v[i]]);
    for (uint32_t i = 0; i < lc->n; i++)
        if (lhs->dims[lc->v[i]] != rhs->dims[rc->v[i]])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "contracting dimension %u has sizes %lld and %lld", i,
                           (long long)lhs->dims[lc->v[i]], (long long)rhs->dims[rc->v[i]]);
    dot_view L, R;
    make_view(lhs, lb, lc, lused, &L);
    make_view(rhs, rb, rc, rused, &R);
    /* result shape: batch, lhs free, rhs free */
    int64_t od[PLUMB_MAX_RANK];
    uint32_t on = 0;
    if (L.nb + L.nf + R.nf > PLUMB_MAX_RANK)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "result rank exceeds %d", PLUMB_MAX_RANK);
    for (uint32_t i = 0; i < L.nb; i++) od[on++] = L.bd[i];
    for (uint32_t i = 0; i < L.nf; i++) od[on++] = L.fd[i];
    for (uint32_t i = 0; i < R.nf; i++) od[on++] = R.fd[i];
    if (out->rank != on || (on && memcmp(out->dims, od, on * sizeof(int64_t)) != 0))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "result shape does not match batch, lhs free and rhs free dimensions");
    uint64_t B = L.B, M = L.F, N = R.F, K = L.K;
    if (B * M * N == 0) return true;
    plumb_dtype ot = out->dtype;
    if (K == 0) {
        /* an empty contraction is +0 (all bits zero in every type) */
        memset(out->data, 0, out->nbytes);
        return true;
    }

    if (!plumb_dtype_is_float(ot)) return dot_int(x, op, lhs, rhs, &L, &R, out);

    bool alg = ir_dotalg_applies(op), round_ops = ir_dotalg_rounds_operands(op);
    int lp = round_ops ? op->a.algorithm.lhs_precision_type : -1, rp = round_ops ? op->a.algorithm.rhs_precision_type : -1;
    calc_t ct;
    if (ot == PLUMB_F64 || !is_narrow_float(lhs->dtype) || !is_narrow_float(rhs->dtype) ||
        (alg && op->a.algorithm.accumulation_type == PLUMB_F64))
        ct = CT_F64;
    else if (lhs->dtype == PLUMB_BF16 && rhs->dtype == PLUMB_BF16 && !round_ops) ct = CT_BF16;
    else if (lhs->dtype == PLUMB_F16 && rhs->dtype == PLUMB_F16 && !round_ops) ct = CT_F16;
    else ct = CT_F32;
    order lo = {0}, ro = {0};
    ord_add(&lo, L.nb, L.bd, L.bs); ord_add(&lo, L.nf, L.fd, L.fs); ord_add(&lo, L.nc, L.cd, L.cs);
    ord_add(&ro, R.nb, R.bd, R.bs); ord_add(&ro, R.nc, R.cd, R.cs); ord_add(&ro, R.nf, R.fd, R.fs);
    /* FP8/FP6/FP4 on both sides: the GEMM widens each operand's bytes
     * through its format's table while packing (rt_gemm_f8), no f32 copy */
    const float *w8a = ct == CT_F32 && lp < 0 && rp < 0 ? rt_lowp_f32_table(lhs->dtype) : NULL;
    const float *w8b = w8a ? rt_lowp_f32_table(rhs->dtype) : NULL;
    const void *A = w8b ? arrange8(x, op, lhs, &lo) : arrange(x, op, lhs, &lo, ct, lp);
    if (!A) return false;
    const void *Bm = w8b ? arrange8(x, op, rhs, &ro) : arrange(x, op, rhs, &ro, ct, rp);
    if (!Bm) return false;
    /* the accumulator: the result itself when its type is the GEMM's */
    bool direct = (ct == CT_F64 && ot == PLUMB_F64) || (ct != CT_F64 && ot == PLUMB_F32);
    uint64_t nout = B * M * N;
    size_t accel = ct == CT_F64 ? 8 : 4;
    void *C = direct ? out->data : rt_scratch(x, op, (size_t)nout * accel);
    if (!C) return false;
    size_t ael = w8b ? 1 : ct == CT_F64 ? 8 : ct == CT_F32 ? 4 : 2;
    /* many small f32 products: batches over the threads (batch_range);
     * the probe computes batch 0 when the path applies */
    bool nf0 = true;
    bool batched = ct == CT_F32 && !w8b && B > 1 &&
                   rt_gemm_f32_small(rt_isa(x), M, N, K, (const float *)A, K, (const float *)Bm, N, (float *)C, N, &nf0);
    if (batched) {
        batch_job bj = {rt_isa(x), A, Bm, C, M, N, K, {ct, A, Bm, C, M, N, K, 0}, nf0, false};
        uint64_t per = M * N * K;
        rt_parallel_for(x, B, per >= 262144 ? 1 : 262144 / per, batch_range, &bj);
        if (bj.failed) return rt_fail(x, op, PLUMB_ERR_RUNTIME, "a batch of the small-product path did not run");
    }
    for (uint64_t b = 0; b < B && !batched; b++) {
        const unsigned char *ab = (const unsigned char *)A + b * M * K * ael;
        const unsigned char *bb = (const unsigned char *)Bm + b * K * N * ael;
        unsigned char *cb = (unsigned char *)C + b * M * N * accel;
        switch (ct) {
        case CT_F64: rt_gemm_f64(x, M, N, K, (const double *)ab, K, (const double *)bb, N, (double *)cb, N); break;
        case CT_F32:
            if (w8b) rt_gemm_f8(x, M, N, K, ab, K, w8a, bb, N, w8b, (float *)cb, N);
            else rt_gemm_f32(x, M, N, K, (const float *)ab, K, (const float *)bb, N, (float *)cb, N);
            break;
        case CT_BF16: rt_gemm_bf16(x, M, N, K, (const uint16_t *)ab, K, (const uint16_t *)bb, N, (float *)cb, N); break;
        default: rt_gemm_f16(x, M, N, K, (const uint16_t *)ab, K, (const uint16_t *)bb, N, (float *)cb, N); break;
        }
        /* this batch's results are still in cache: scan them now rather
         * than the whole accumulator after the last batch */
        rescue_job rj = {ct, A, Bm, C, M, N, K, b * M * N};
        /* Not for FP8/FP6/FP4 operands (which it would read as f32): their
         * products are at most 57344^2 < 2^32, so f32 lanes cannot overflow
         * before some 2^95 terms, and a NaN or infinity in C comes from a
         * NaN or infinite operand, which the exact sum has too. */
        if (!w8b) rt_parallel_for(x, M * N, 65536, rescue_range, &rj);
    }
    if (!direct) {
        if (ct == CT_F64) {
            for (uint64_t i = 0; i < nout; i++) {
                double v = ((const double *)C)[i];
                uint64_t bits = ot == PLUMB_F32 ? plumb_f32_bits((float)v)
                              : ot == PLUMB_F16 ? plumb_f64_to_f16(v)
                              : plumb_fpfmt_get(ot) ? plumb_f64_to_small(plumb_fpfmt_get(ot), v)
                              : plumb_f64_to_bf16(v);
                plumb_store_bits(ot, out->data, (size_t)i, bits);
            }
        } else {
            round_job j = {C, out, rt_isa(x) == PLUMB_ISA_AVX512};
            rt_parallel_for(x, nout, 65536, round_range, &j);
        }
    }
    return true;
}

bool rt_op_DOT_GENERAL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    return dot_core(x, op, in[0], in[1], &a->lhs_batch, &a->rhs_batch, &a->lhs_contract, &a->rhs_contract, out[0]);
}

bool rt_op_DOT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *l = in[0], *r = in[1];
    if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "stablehlo.dot takes rank-1 or rank-2 operands, got ranks %u and %u",
                       l->rank, r->rank);
    int64_t lcv = (int64_t)l->rank - 1, rcv = 0;
    ir_ints none = {NULL, 0}, lc = {&lcv, 1}, rc = {&rcv, 1};
    return dot_core(x, op, l, r, &none, &none, &lc, &rc, out[0]);
}

bool rt_dot_batched(rt_exec *x, const ir_op *op, const plumb_tensor *a, const plumb_tensor *b, plumb_tensor *c)
{
    int64_t bz = 0, ac = 2, bc = 1;
    ir_ints bb = {&bz, 1}, lc = {&ac, 1}, rc = {&bc, 1};
    return dot_core(x, op, a, b, &bb, &bb, &lc, &rc, c);
}
