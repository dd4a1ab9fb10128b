/* stablehlo.convolution
 *
 * Semantics (StableHLO spec): with N = rank(lhs), S = N - 2 spatial
 * dimensions, B/C the lhs batch/feature sizes, KI/KO the rhs kernel
 * input/output feature sizes and W[k] the kernel's spatial sizes,
 *
 *   result[ob, of, o[0..S)] = sum over ki < KI and w[k] < W[k] of
 *       lhs[gb * (B / bgc) + ob, gf * KI + ki, x[0..S)]
 *     * rhs[ki, of, reversal[k] ? W[k] - 1 - w[k] : w[k]]
 *
 * (each index placed at its dimension number), where
 *   gf = of / (KO / feature_group_count)   the feature group of `of`,
 *   gb = of / (KO / batch_group_count)     the batch group of `of`,
 * and x[k] is the lhs element under window element w[k] of output
 * position o[k]: in the lhs dilated by lhs_dilation (ld - 1 zeros between
 * elements) and padded by padding[k] (low, high; negative removes), the
 * position is p = o[k] * stride[k] + w[k] * rhs_dilation[k] - low[k]; it
 * reads the lhs element p / ld when 0 <= p < (size - 1) * ld + 1 and
 * p % ld == 0, and otherwise the +0 of the spec's padding or dilation,
 * which is multiplied in like any element (+0 * inf is NaN; rhs_dilation
 * only spaces the window, adding no terms).
 * feature_group_count and batch_group_count split the lhs features (batch)
 * and the kernel's output features into that many groups, each group
 * convolved with its own kernel slice, the results concatenated along the
 * output feature dimension; both reduce to the sum above.
 *
 * Numerics: as dot_general (ref/dot.c): each product exact, the sum of
 * products accumulated in double-double (f16/bf16/f32 operands) or exactly
 * (f64), rounded once to the result type; NaN, 0 * inf and inf - inf give
 * NaN; an empty sum (KI = 0 or a zero-size window) is +0.
 * precision_config is a hint for backends and ignored. Integer results wrap
 * modulo 2^bits (i2/i4/ui2/ui4 too); i1 results are the OR of ANDs. The
 * FP8/FP6/FP4 formats are floats here: products exact in double, the sum
 * rounded once by the format's own rules (ref_mpfr_to_bits).
 *
 * complex<f32>/complex<f64> (lhs, rhs and result of one type, C27): each
 * result component is its own real sum, of 2K exact products,
 *   Re = sum(ar*br) + sum(-ai*bi),   Im = sum(ar*bi) + sum(ai*br),
 * accumulated in two accumulators (double-double for complex<f32>, whose
 * component products are exact doubles; exact for complex<f64>) and rounded
 * once each. A padding or dilation position is the complex zero (+0, +0),
 * multiplied in like any element.
 */
#include <string.h>

#include "accum.h"
#include "plumb/complex.h"
#include "ref_internal.h"

static bool needs_exact(plumb_dtype t)
{
    if (t == PLUMB_F64) return true;
    if (plumb_dtype_is_float(t) || plumb_dtype_is_bool(t)) return false;
    return plumb_dtype_get(t)->bits > 24;
}

/* rhs offset of window element w along the spatial dimensions (reversal applied) */
static int64_t rhs_window_off(const ir_conv *cv, const int64_t *w, const int64_t *W, const int64_t *rstr)
{
    int64_t off = 0;
    for (uint32_t k = 0; k < cv->n_spatial; k++) {
        int64_t wk = cv->n_reversal && cv->reversal[k] ? W[k] - 1 - w[k] : w[k];
        off += wk * rstr[cv->k_spatial[k]];
    }
    return off;
}

bool ref_op_CONVOLUTION(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_conv *cv = op->a.conv;
    const plumb_tensor *lhs = in[0], *rhs = in[1];
    plumb_tensor *res = out[0];
    if (!cv || cv->n_spatial + 2 != lhs->rank || lhs->rank != rhs->rank || res->rank != lhs->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "stablehlo.convolution: dimension numbers do not match the operand ranks");
    uint32_t S = cv->n_spatial;
    int64_t lstr[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = lhs->rank; d-- > 0;) { lstr[d] = s; s *= lhs->dims[d]; }
    s = 1;
    for (uint32_t d = rhs->rank; d-- > 0;) { rstr[d] = s; s *= rhs->dims[d]; }
    int64_t B = lhs->dims[cv->in_batch], KI = rhs->dims[cv->k_in_feature], KO = rhs->dims[cv->k_out_feature];
    int64_t fgc = cv->feature_group_count, bgc = cv->batch_group_count;
    if (fgc <= 0 || bgc <= 0 || KO % fgc || KO % bgc || B % bgc)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "stablehlo.convolution: group counts do not divide the feature sizes");
    int64_t W[IR_CONV_MAX_SPATIAL], stride[IR_CONV_MAX_SPATIAL], lo[IR_CONV_MAX_SPATIAL], ld[IR_CONV_MAX_SPATIAL],
        rd[IR_CONV_MAX_SPATIAL], dsz[IR_CONV_MAX_SPATIAL];
    uint64_t terms = (uint64_t)KI;
    for (uint32_t k = 0; k < S; k++) {
        W[k] = rhs->dims[cv->k_spatial[k]];
        stride[k] = cv->n_strides ? cv->strides[k] : 1;
        lo[k] = cv->n_padding ? cv->pad_lo[k] : 0;
        ld[k] = cv->n_lhs_dilation ? cv->lhs_dilation[k] : 1;
        rd[k] = cv->n_rhs_dilation ? cv->rhs_dilation[k] : 1;
        int64_t n = lhs->dims[cv->in_spatial[k]];
        dsz[k] = n ? (n - 1) * ld[k] + 1 : 0;
        terms *= (uint64_t)W[k];
    }
    plumb_dtype lt = lhs->dtype, rt = rhs->dtype, ot = res->dtype;
    bool cres = plumb_dtype_is_complex(ot);
    if (cres && (lt != ot || rt != ot))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "stablehlo.convolution: complex lhs, rhs and result must have one type");
    bool fres = plumb_dtype_is_float(ot), bres = plumb_dtype_is_bool(ot);
    plumb_dtype ct = plumb_dtype_component(ot);
    ref_acc acc, acc_im;
    if (fres)
        ref_acc_init(&acc, needs_exact(lt) || needs_exact(rt) || ot == PLUMB_F64);
    if (cres) {
        ref_acc_init(&acc, ct == PLUMB_F64);
        ref_acc_init(&acc_im, ct == PLUMB_F64);
    }
    uint64_t ocount = plumb_tensor_numel(res), work = 0;
    int64_t oidx[PLUMB_MAX_RANK], w[IR_CONV_MAX_SPATIAL];
    bool ok = true;
    for (uint64_t o = 0; o < ocount && ok; o++) {
        ref_unravel(o, res->rank, res->dims, oidx);
        int64_t ob = oidx[cv->out_batch], of = oidx[cv->out_feature];
        int64_t gf = of / (KO / fgc), gb = of / (KO / bgc);
        int64_t lbase = (gb * (B / bgc) + ob) * lstr[cv->in_batch];
        int64_t rbase = of * rstr[cv->k_out_feature];
        if (fres || cres) ref_acc_reset(&acc);
        if (cres) ref_acc_reset(&acc_im);
        uint64_t iacc = 0;
        for (uint32_t k = 0; k < S; k++) w[k] = 0;
        for (uint64_t t = 0; t < terms; t++) {
            /* t runs ki fastest-last: ki = t / (window size), w = the rest */
            int64_t ki = (int64_t)(t / (terms / (uint64_t)KI));
            int64_t lo_off = lbase + (gf * KI + ki) * lstr[cv->in_feature];
            int64_t ro_off = rbase + ki * rstr[cv->k_in_feature];
            bool inside = true;
            for (uint32_t k = 0; k < S && inside; k++) {
                int64_t p = oidx[cv->out_spatial[k]] * stride[k] + w[k] * rd[k] - lo[k];
                if (p < 0 || p >= dsz[k] || p % ld[k] != 0) {
                    inside = false;
                    break;
                }
                lo_off += (p / ld[k]) * lstr[cv->in_spatial[k]];
                int64_t wk = cv->n_reversal && cv->reversal[k] ? W[k] - 1 - w[k] : w[k];
                ro_off += wk * rstr[cv->k_spatial[k]];
            }
            if (cres) {
                /* (ar + i ai)(br + i bi); outside the lhs, ar = ai = +0 */
                double ar = 0.0, ai = 0.0, br, bi;
                if (inside)
                    plumb_complex_load(lt, lhs->data, (size_t)lo_off, &ar, &ai);
                else
                    ro_off = rbase + ki * rstr[cv->k_in_feature] + rhs_window_off(cv, w, W, rstr);
                plumb_complex_load(rt, rhs->data, (size_t)ro_off, &br, &bi);
                ref_acc_add_prod(&acc, ar, br);
                ref_acc_add_prod(&acc, -ai, bi);
                ref_acc_add_prod(&acc_im, ar, bi);
                ref_acc_add_prod(&acc_im, ai, br);
            } else if (!inside) {
                /* the spec pads (and dilates) the lhs with zeros and
                 * multiplies them in: +0 * rhs (NaN for an inf or NaN rhs) */
                if (fres)
                    ref_acc_add_prod(&acc, 0.0, plumb_load_f64(rt, rhs->data, (size_t)(rbase + ki * rstr[cv->k_in_feature] +
                                                                                        rhs_window_off(cv, w, W, rstr))));
            } else {
                if (fres)
                    ref_acc_add_prod(&acc, plumb_load_f64(lt, lhs->data, (size_t)lo_off),
                                     plumb_load_f64(rt, rhs->data, (size_t)ro_off));
                else if (bres)
                    iacc |= plumb_load_u64(lt, lhs->data, (size_t)lo_off) & plumb_load_u64(rt, rhs->data, (size_t)ro_off) & 1;
                else
                    iacc += plumb_load_u64(lt, lhs->data, (size_t)lo_off) * plumb_load_u64(rt, rhs->data, (size_t)ro_off);
            }
            for (uint32_t k = S; k-- > 0;) {
                if (++w[k] < W[k]) break;
                w[k] = 0;
            }
            if (!ref_work_step(c, op, &work)) {
                ok = false;
                break;
            }
        }
        if (!ok) break;
        if (cres) {
            if (terms == 0) acc.all_negzero = acc_im.all_negzero = false;
            /* each component rounded once, stored as the component type's bits */
            plumb_store_bits(ct, res->data, 2 * (size_t)o, ref_acc_round(&acc, ct));
            plumb_store_bits(ct, res->data, 2 * (size_t)o + 1, ref_acc_round(&acc_im, ct));
        } else if (fres) {
            /* an empty sum (no terms at all) is +0, not the -0 of "all terms -0" */
            if (terms == 0) acc.all_negzero = false;
            plumb_store_bits(ot, res->data, (size_t)o, ref_acc_round(&acc, ot));
        } else {
            plumb_store_bits(ot, res->data, (size_t)o, iacc);
        }
    }
    if (fres || cres) ref_acc_clear(&acc);
    if (cres) ref_acc_clear(&acc_im);
    return ok && ref_work(c, op, work & 255);
}
