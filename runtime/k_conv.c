/* stablehlo.convolution on the runtime's GEMM (docs/spec/conv.md).
 *
 * The groups (feature_group_count or batch_group_count, at most one above
 * 1: G of them) become the batch of one batched matrix product
 * C[g] = A[g] · B[g] (rt_dot_batched, dot_general's numerics and its
 * overflow rescue):
 *   A[g] [M, K]: im2col of the lhs, one row per output position (output
 *        batch outermost, then the output spatial positions row-major) and
 *        one column per window element: the window's spatial offsets
 *        outermost, the KI input features of the group innermost, so that
 *        an lhs whose features are innermost (NHWC) is copied in runs of KI
 *        contiguous elements; positions in the padding or between dilated
 *        elements hold zero bits (+0, the spec's padding value);
 *   B[g] [K, N]: the kernel's elements in the same column order (reversal
 *        applied), N = KO / G output features;
 *   C[g] [M, N]: the result itself when G = 1 and its layout is
 *        [batch, spatial..., feature] in that order, otherwise scratch
 *        scattered into the result's layout.
 * A 1x1 window with unit strides and dilations, no padding, one group and
 * an lhs laid out [batch, spatial..., feature] is already A: the GEMM reads
 * the lhs in place ("direct").
 * Element types: any dot_general takes (the FP8/FP6/FP4 formats through
 * the GEMM's FP8 path, i2/i4/ui2/ui4 through its integer loops, wrapping);
 * im2col copies elements bitwise; lhs and rhs of different types are
 * copied each in its own type and widened by the GEMM's packing (see
 * rt_op_CONVOLUTION). complex<f32>/complex<f64> (lhs, rhs and result of
 * one type) take the same im2col and kernel packing (an element is copied
 * whole; padding holds (+0, +0)) and then, instead of the GEMM,
 * rt_cconv_f32 (k_cconv.c: vector double sums with the reference's bits)
 * for complex<f32> and rt_cconv_f64 (k_cconv_f64.c: vector fma sums with
 * an error bound, the reference's bits) for complex<f64>. */
#include <string.h>

#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "rt_conv.h"
#include "rt_internal.h"

typedef struct conv_geom {
    const ir_conv *cv;
    uint32_t S;
    size_t es, rs;                     /* element sizes: lhs (the result's when scattering), rhs */
    const double *wtab, *rtab;         /* f8E8M0FNU lhs / rhs: widened to f64 through these tables */
    int64_t G, Bo, KI, Nn, M, K, Kw, P;   /* P = output positions per batch */
    int64_t O[IR_CONV_MAX_SPATIAL], W[IR_CONV_MAX_SPATIAL];
    int64_t stride[IR_CONV_MAX_SPATIAL], lo[IR_CONV_MAX_SPATIAL], ld[IR_CONV_MAX_SPATIAL],
        rd[IR_CONV_MAX_SPATIAL], dsz[IR_CONV_MAX_SPATIAL];
    int64_t lstr[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK], ostr[PLUMB_MAX_RANK];
    bool fgroups;                      /* groups split features (else batch) */
    const unsigned char *lhs, *rhs;
    unsigned char *A, *Bm, *C, *out;
} conv_geom;

static void im2col_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const conv_geom *g = ctx;
    const ir_conv *cv = g->cv;
    size_t es = g->es, oes = g->wtab ? sizeof(double) : es, run = (size_t)g->KI * oes;
    int64_t fstr = g->lstr[cv->in_feature];
    for (uint64_t r = begin; r < end; r++) {
        int64_t grp = (int64_t)r / g->M, m = (int64_t)r % g->M;
        int64_t ob = m / g->P, pos = m % g->P;
        int64_t os[IR_CONV_MAX_SPATIAL];
        for (uint32_t k = g->S; k-- > 0;) {
            os[k] = pos % g->O[k];
            pos /= g->O[k];
        }
        int64_t b = g->fgroups ? ob : grp * g->Bo + ob;
        int64_t base = b * g->lstr[cv->in_batch] + (g->fgroups ? grp * g->KI : 0) * fstr;
        unsigned char *dst = g->A + (size_t)r * (size_t)g->K * oes;
        int64_t w[IR_CONV_MAX_SPATIAL] = {0};
        for (int64_t wl = 0; wl < g->Kw; wl++, dst += run) {
            int64_t off = base;
            bool inside = true;
            for (uint32_t k = 0; k < g->S; k++) {
                int64_t p = os[k] * g->stride[k] + w[k] * g->rd[k] - g->lo[k];
                if (p < 0 || p >= g->dsz[k] || p % g->ld[k] != 0) {
                    inside = false;
                    break;
                }
                off += (p / g->ld[k]) * g->lstr[cv->in_spatial[k]];
            }
            if (!inside) {
                memset(dst, 0, run);   /* +0 in every type, and as a double */
            } else if (g->wtab) {
                for (int64_t ki = 0; ki < g->KI; ki++) {
                    double v = g->wtab[g->lhs[off + ki * fstr]];
                    memcpy(dst + (size_t)ki * sizeof v, &v, sizeof v);
                }
            } else if (fstr == 1)
                memcpy(dst, g->lhs + (size_t)off * es, run);
            else
                for (int64_t ki = 0; ki < g->KI; ki++)
                    memcpy(dst + (size_t)ki * es, g->lhs + (size_t)(off + ki * fstr) * es, es);
            for (uint32_t k = g->S; k-- > 0;) {
                if (++w[k] < g->W[k]) break;
                w[k] = 0;
            }
        }
    }
}

/* Rows (g, k) of B: N kernel elements each. */
static void kpack_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const conv_geom *g = ctx;
    const ir_conv *cv = g->cv;
    size_t es = g->rs, oes = g->rtab ? sizeof(double) : es;
    int64_t ostr = g->rstr[cv->k_out_feature];
    for (uint64_t r = begin; r < end; r++) {
        int64_t grp = (int64_t)r / g->K, kk = (int64_t)r % g->K;
        int64_t wl = kk / g->KI, ki = kk % g->KI;
        int64_t off = ki * g->rstr[cv->k_in_feature] + grp * g->Nn * ostr;
        for (uint32_t k = g->S; k-- > 0;) {
            int64_t wk = wl % g->W[k];
            wl /= g->W[k];
            if (cv->n_reversal && cv->reversal[k]) wk = g->W[k] - 1 - wk;
            off += wk * g->rstr[cv->k_spatial[k]];
        }
        unsigned char *dst = g->Bm + (size_t)r * (size_t)g->Nn * oes;
        if (g->rtab)
            for (int64_t n = 0; n < g->Nn; n++) {
                double v = g->rtab[g->rhs[off + n * ostr]];
                memcpy(dst + (size_t)n * sizeof v, &v, sizeof v);
            }
        else if (ostr == 1)
            memcpy(dst, g->rhs + (size_t)off * es, (size_t)g->Nn * es);
        else
            for (int64_t n = 0; n < g->Nn; n++)
                memcpy(dst + (size_t)n * es, g->rhs + (size_t)(off + n * ostr) * es, es);
    }
}

/* Rows (g, m) of C into the result's layout. */
static void scatter_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const conv_geom *g = ctx;
    const ir_conv *cv = g->cv;
    size_t es = g->es;   /* result element size here */
    int64_t fstr = g->ostr[cv->out_feature];
    for (uint64_t r = begin; r < end; r++) {
        int64_t grp = (int64_t)r / g->M, m = (int64_t)r % g->M;
        int64_t ob = m / g->P, pos = m % g->P;
        int64_t off = ob * g->ostr[cv->out_batch] + grp * g->Nn * fstr;
        for (uint32_t k = g->S; k-- > 0;) {
            off += (pos % g->O[k]) * g->ostr[cv->out_spatial[k]];
            pos /= g->O[k];
        }
        const unsigned char *src = g->C + (size_t)r * (size_t)g->Nn * es;
        if (fstr == 1)
            memcpy(g->out + (size_t)off * es, src, (size_t)g->Nn * es);
        else
            for (int64_t n = 0; n < g->Nn; n++)
                memcpy(g->out + (size_t)(off + n * fstr) * es, src + (size_t)n * es, es);
    }
}

static void strides_of(const plumb_tensor *t, int64_t *str)
{
    int64_t s = 1;
    for (uint32_t d = t->rank; d-- > 0;) {
        str[d] = s;
        s *= t->dims[d];
    }
}

/* [batch, spatial 0, ..., spatial S-1, feature] in that order */
static bool bsf_layout(int64_t b, const int64_t *sp, int64_t f, uint32_t S)
{
    if (b != 0 || f != (int64_t)S + 1) return false;
    for (uint32_t k = 0; k < S; k++)
        if (sp[k] != (int64_t)k + 1) return false;
    return true;
}

bool rt_op_CONVOLUTION(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_conv *cv = op->a.conv;
    const plumb_tensor *lhs = in[0], *rhs = in[1];
    plumb_tensor *res = out[0];
    if (!cv || cv->n_spatial + 2 != lhs->rank || lhs->rank != rhs->rank || res->rank != lhs->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension numbers do not match the operand ranks");
    conv_geom g;
    memset(&g, 0, sizeof g);
    g.cv = cv;
    g.S = cv->n_spatial;
    int64_t fgc = cv->feature_group_count, bgc = cv->batch_group_count;
    int64_t B = lhs->dims[cv->in_batch], KO = rhs->dims[cv->k_out_feature];
    if (fgc <= 0 || bgc <= 0 || KO % fgc || KO % bgc || B % bgc)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "group counts do not divide the feature sizes");
    g.G = fgc > 1 ? fgc : bgc;
    g.fgroups = fgc > 1;
    g.Bo = B / bgc;
    g.KI = rhs->dims[cv->k_in_feature];
    g.Nn = KO / g.G;
    g.Kw = 1;
    g.P = 1;
    for (uint32_t k = 0; k < g.S; k++) {
        g.O[k] = res->dims[cv->out_spatial[k]];
        g.W[k] = rhs->dims[cv->k_spatial[k]];
        g.stride[k] = cv->n_strides ? cv->strides[k] : 1;
        g.lo[k] = cv->n_padding ? cv->pad_lo[k] : 0;
        g.ld[k] = cv->n_lhs_dilation ? cv->lhs_dilation[k] : 1;
        g.rd[k] = cv->n_rhs_dilation ? cv->rhs_dilation[k] : 1;
        int64_t n = lhs->dims[cv->in_spatial[k]];
        g.dsz[k] = n ? (n - 1) * g.ld[k] + 1 : 0;
        g.Kw *= g.W[k];
        g.P *= g.O[k];
    }
    g.M = g.Bo * g.P;
    g.K = g.KI * g.Kw;
    strides_of(lhs, g.lstr);
    strides_of(rhs, g.rstr);
    strides_of(res, g.ostr);
    if (plumb_tensor_numel(res) == 0) return true;
    if (g.K == 0) {
        /* an empty sum is +0: all bits zero in every type */
        memset(res->data, 0, res->nbytes);
        return true;
    }
    bool cplx = plumb_dtype_is_complex(res->dtype);
    if (cplx && (lhs->dtype != res->dtype || rhs->dtype != res->dtype))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "complex lhs, rhs and result must have one type, not %s, %s and %s",
                       plumb_dtype_name(lhs->dtype), plumb_dtype_name(rhs->dtype), plumb_dtype_name(res->dtype));
    if (!cplx && (plumb_dtype_is_complex(lhs->dtype) || plumb_dtype_is_complex(rhs->dtype)))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a complex operand needs a complex result of its type, not %s",
                       plumb_dtype_name(res->dtype));
    /* Mixed lhs and rhs types (bf16 x f32, i8 x f32, f8E4M3FN x bf16, ...)
     * go to the GEMM as they are: dot_general's packing reads each operand
     * in its own type and widens it exactly to the computation type (f32
     * when both are f16/bf16/f32 or a <= 5-bit-significand small float,
     * else f64, which holds every such operand but integers above 2^53
     * exactly), as the reference reads both into double; im2col and the
     * kernel packing copy each operand's elements in its own size. */
    g.es = plumb_dtype_size(lhs->dtype);
    g.rs = plumb_dtype_size(rhs->dtype);
    g.lhs = lhs->data;
    g.rhs = rhs->data;
    /* f8E8M0FNU has no zero: its pattern 0 is 2^-127, so the zero bits of
     * im2col's padding would be terms 2^-127 · w (1 under a 2^127 kernel
     * element). Its operands are widened to f64 while copied (products of
     * its powers of two and their sums are exact or nearly so there), the
     * holes +0, the GEMM run in f64 and each sum rounded once to the result. */
    double e8m0[256];
    plumb_dtype wt = lhs->dtype, wrt = rhs->dtype;
    if (lhs->dtype == PLUMB_F8E8M0FNU || rhs->dtype == PLUMB_F8E8M0FNU)
        for (uint32_t b = 0; b < 256; b++) e8m0[b] = plumb_small_to_f64(plumb_fpfmt_get(PLUMB_F8E8M0FNU), b);
    if (lhs->dtype == PLUMB_F8E8M0FNU) {
        g.wtab = e8m0;
        wt = PLUMB_F64;
    }
    if (rhs->dtype == PLUMB_F8E8M0FNU) {
        g.rtab = e8m0;
        wrt = PLUMB_F64;
    }
    bool wide = g.wtab || g.rtab;   /* f64 scratch result, rounded here */
    size_t oes = plumb_dtype_size(wt), ores = plumb_dtype_size(wrt);
    uint64_t asz, bsz, csz, c64;
    if (__builtin_mul_overflow((uint64_t)(g.G * g.M), (uint64_t)g.K * oes, &asz) ||
        __builtin_mul_overflow((uint64_t)(g.G * g.K), (uint64_t)g.Nn * ores, &bsz) ||
        __builtin_mul_overflow((uint64_t)(g.G * g.M), (uint64_t)g.Nn * sizeof(double), &c64) ||
        __builtin_mul_overflow((uint64_t)(g.G * g.M), (uint64_t)g.Nn * plumb_dtype_size(res->dtype), &csz) ||
        asz > SIZE_MAX || bsz > SIZE_MAX || csz > SIZE_MAX || c64 > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "im2col scratch size overflows (M = %lld, K = %lld, groups = %lld)",
                       (long long)g.M, (long long)g.K, (long long)g.G);
    bool direct = !g.wtab && g.G == 1 && g.Kw == 1 && bsf_layout(cv->in_batch, cv->in_spatial, cv->in_feature, g.S);
    for (uint32_t k = 0; direct && k < g.S; k++)
        direct = g.stride[k] == 1 && g.lo[k] == 0 && g.ld[k] == 1 && g.O[k] == lhs->dims[cv->in_spatial[k]];
    if (direct) {
        g.A = (unsigned char *)lhs->data;   /* read only: the GEMM's A operand */
    } else {
        if (!(g.A = rt_scratch(x, op, (size_t)asz))) return false;
        rt_parallel_for(x, (uint64_t)(g.G * g.M), 16, im2col_range, &g);
    }
    if (!(g.Bm = rt_scratch(x, op, (size_t)bsz))) return false;
    rt_parallel_for(x, (uint64_t)(g.G * g.K), 64, kpack_range, &g);
    bool in_place = g.G == 1 && bsf_layout(cv->out_batch, cv->out_spatial, cv->out_feature, g.S);
    g.C = in_place ? res->data : rt_scratch(x, op, (size_t)csz);
    if (!g.C) return false;
    plumb_tensor a = rt_view3(wt, g.G, g.M, g.K, g.A), b = rt_view3(wrt, g.G, g.K, g.Nn, g.Bm),
                 c = rt_view3(res->dtype, g.G, g.M, g.Nn, g.C);
    if (wide) {
        double *cw = rt_scratch(x, op, (size_t)c64);
        if (!cw) return false;
        plumb_tensor cd = rt_view3(PLUMB_F64, g.G, g.M, g.Nn, cw);
        if (!rt_dot_batched(x, op, &a, &b, &cd)) return false;
        plumb_dtype ot = res->dtype;
        for (uint64_t i = 0, n = (uint64_t)(g.G * g.M * g.Nn); i < n; i++) {
            double v = cw[i];
            uint64_t bits = ot == PLUMB_F64 ? plumb_f64_bits(v)
                          : ot == PLUMB_F32 ? plumb_f32_bits((float)v)
                          : ot == PLUMB_F16 ? plumb_f64_to_f16(v)
                          : ot == PLUMB_BF16 ? plumb_f64_to_bf16(v)
                          : plumb_f64_to_small(plumb_fpfmt_get(ot), v);
            plumb_store_bits(ot, g.C, (size_t)i, bits);
        }
    } else if (res->dtype == PLUMB_C64) {
        if (!rt_cconv_f32(x, op, g.A, g.Bm, g.C, g.G, g.M, g.K, g.Nn, g.KI)) return false;
    } else if (cplx) {
        if (!rt_cconv_f64(x, op, g.A, g.Bm, g.C, g.G, g.M, g.K, g.Nn)) return false;
    } else if (!rt_dot_batched(x, op, &a, &b, &c)) {
        return false;
    }
    if (!in_place) {
        g.es = plumb_dtype_size(res->dtype);
        g.out = res->data;
        rt_parallel_for(x, (uint64_t)(g.G * g.M), 64, scatter_range, &g);
    }
    return true;
}
