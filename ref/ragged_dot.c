/* chlo.ragged_dot (docs/spec/ragged_dot.md; upstream: ChloOps.td RaggedDotOp,
 * ChloOps.cpp checkRaggedDotConstraints / inferRaggedDotOutputDimensions)
 *
 * Semantics: dot_general with one lhs dimension (lhs_ragged_dimensions[0],
 * size M) cut into G consecutive groups by group_sizes: for one row of
 * group_sizes (its leading dimensions index the lhs dimensions named by
 * ir_ragged_layout.prefix; a rank-1 group_sizes serves every row), group g
 * covers the ragged indices [s_g, s_g + size_g) with s_g the sum of the
 * sizes before it (ir_ragged_group_bounds). The result's dimensions are
 * dot_general's (batch, lhs free, rhs free with the rhs group dimension
 * left out), led by a group dimension of size G in the contracting mode.
 *
 *   non-contracting ragged dimension m (rhs has group dimension g):
 *     out[b, .., m, .., n] = sum_k lhs[b, .., m, .., k] * rhs[g(m), b, k, n]
 *     where g(m) is the group covering m; an m in no group gives 0.
 *   contracting ragged dimension k:
 *     out[g, b, m, n] = sum over the k in group g (and every other
 *     contracting index) of lhs[b, m, k] * rhs[b, k, n]; an empty group
 *     gives 0.
 *   batching ragged dimension b:
 *     out[b, m, n] = dot_general's value where b is in some group, else 0.
 *
 * Edge cases: sizes summing below M leave the indices past the sum in no
 * group (their results 0, or no terms); a group reaching past M is cut at
 * M and the groups after it are empty; zero-size groups cover nothing; a
 * negative size is refused at run time (upstream leaves it undefined). "0"
 * is +0 for floats: a sum of no terms, as dot_general's empty contraction.
 *
 * Numerics: as stablehlo.dot_general's reference (ref/dot.c): each product
 * exact, the sum in double-double (an exact MPFR sum for f64 or integers
 * wider than 24 bits), rounded once to the result type; integers wrap. The
 * terms are exactly dot_general's terms restricted to the group, so a
 * backend meets dot_general's bound with K = the contraction size. */
#include <stdlib.h>
#include <string.h>

#include "plumb/ragged_dot.h"
#include "plumb/shape.h"

#include "accum.h"
#include "ref_internal.h"


bool ref_op_RAGGED_DOT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *lhs = in[0], *rhs = in[1], *gs = in[2];
    plumb_tensor *res = out[0];
    const ir_attrs *a = &op->a;
    ir_type lt = ir_shape_of(lhs), rt = ir_shape_of(rhs), gt = ir_shape_of(gs), ot = ir_shape_of(res);
    ir_ragged_layout L;
    char msg[320];
    plumb_code code = ir_ragged_dot_layout(a, &lt, &rt, &gt, &ot, &L, msg, sizeof msg);
    if (code != PLUMB_OK) return ref_fail(c, op, code, "%s", msg);
    if (!ir_ragged_check_sizes(gs, msg, sizeof msg)) return ref_fail(c, op, PLUMB_ERR_INVALID, "%s", msg);

    /* every row's group bounds, once */
    int64_t G = L.n_groups;
    uint64_t rows = 1;
    for (uint32_t i = 0; i < L.n_prefix; i++) rows *= (uint64_t)gs->dims[i];
    int64_t *bounds = malloc((size_t)(rows ? rows : 1) * (size_t)(G + 1) * sizeof *bounds);
    if (!bounds) return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory for %llu rows of group bounds", (unsigned long long)rows);
    for (uint64_t r = 0; r < rows; r++)
        if (!ir_ragged_group_bounds(gs, r, G, L.extent, bounds + r * (uint64_t)(G + 1), msg, sizeof msg)) {
            free(bounds);
            return ref_fail(c, op, PLUMB_ERR_INVALID, "%s", msg);
        }

    int64_t lstr[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = lhs->rank; d-- > 0;) { lstr[d] = s; s *= lhs->dims[d]; }
    s = 1;
    for (uint32_t d = rhs->rank; d-- > 0;) { rstr[d] = s; s *= rhs->dims[d]; }

    /* result axes: [group], batch, lhs free, rhs free; each with its
     * stride into lhs and rhs and the lhs dimension it walks (-1: none) */
    int64_t odims[PLUMB_MAX_RANK], ol[PLUMB_MAX_RANK], orr[PLUMB_MAX_RANK], olhs[PLUMB_MAX_RANK];
    uint32_t on = 0, first = 0;
    if (L.mode == IR_RAGGED_CONTRACTING) {
        odims[on] = G; ol[on] = 0; orr[on] = 0; olhs[on++] = -1;
        first = 1;
    }
    for (uint32_t i = 0; i < a->lhs_batch.n; i++, on++) {
        odims[on] = lhs->dims[a->lhs_batch.v[i]];
        ol[on] = lstr[a->lhs_batch.v[i]];
        orr[on] = rstr[a->rhs_batch.v[i]];
        olhs[on] = a->lhs_batch.v[i];
    }
    for (uint32_t d = 0; d < lhs->rank; d++)
        if (!ir_ragged_has(&a->lhs_batch, d) && !ir_ragged_has(&a->lhs_contract, d)) {
            odims[on] = lhs->dims[d]; ol[on] = lstr[d]; orr[on] = 0; olhs[on++] = d;
        }
    for (uint32_t d = 0; d < rhs->rank; d++)
        if (!ir_ragged_has(&a->rhs_batch, d) && !ir_ragged_has(&a->rhs_contract, d) && !ir_ragged_has(&a->rhs_group, d)) {
            odims[on] = rhs->dims[d]; ol[on] = 0; orr[on] = rstr[d]; olhs[on++] = -1;
        }
    int64_t cdims[PLUMB_MAX_RANK], cl[PLUMB_MAX_RANK], cr[PLUMB_MAX_RANK];
    uint64_t ccount = 1;
    uint32_t nc = a->lhs_contract.n;
    for (uint32_t i = 0; i < nc; i++) {
        cdims[i] = lhs->dims[a->lhs_contract.v[i]];
        cl[i] = lstr[a->lhs_contract.v[i]];
        cr[i] = rstr[a->rhs_contract.v[i]];
        ccount *= (uint64_t)cdims[i];
    }
    /* where each lhs dimension's index comes from: a result axis (>= 0) or
     * contracting axis i (-1 - i) */
    int64_t src[PLUMB_MAX_RANK];
    for (uint32_t i = first; i < on; i++)
        if (olhs[i] >= 0) src[olhs[i]] = (int64_t)i;
    for (uint32_t i = 0; i < nc; i++) src[a->lhs_contract.v[i]] = -1 - (int64_t)i;
    /* the row of group_sizes: sum of prefix indices times these strides */
    int64_t gstr[PLUMB_MAX_RANK];
    s = 1;
    for (uint32_t i = L.n_prefix; i-- > 0;) { gstr[i] = s; s *= gs->dims[i]; }

    plumb_dtype ety = res->dtype;
    bool fres = plumb_dtype_is_float(ety);
    ref_acc acc;
    if (fres) ref_acc_init(&acc, ety == PLUMB_F64 || (!plumb_dtype_is_float(lhs->dtype) && plumb_dtype_get(lhs->dtype)->bits > 24));
    uint64_t ocount = plumb_tensor_numel(res), work = 0;
    int64_t oidx[PLUMB_MAX_RANK], cidx[PLUMB_MAX_RANK];
    bool ok = true;
    for (uint64_t o = 0; o < ocount && ok; o++) {
        ref_unravel(o, on, odims, oidx);
        int64_t lbase = 0, rbase = 0;
        for (uint32_t i = 0; i < on; i++) {
            lbase += oidx[i] * ol[i];
            rbase += oidx[i] * orr[i];
        }
        /* the prefix part that comes from result axes */
        int64_t row_out = 0;
        for (uint32_t i = 0; i < L.n_prefix; i++)
            if (src[L.prefix[i]] >= 0) row_out += oidx[src[L.prefix[i]]] * gstr[i];
        int64_t g = -1;   /* the group whose terms count (contracting mode) */
        bool zero = false;
        if (L.mode == IR_RAGGED_CONTRACTING) {
            g = oidx[0];
        } else {
            const int64_t *b = bounds + row_out * (G + 1);
            int64_t m = oidx[src[L.ragged_dim]];
            if (L.mode == IR_RAGGED_BATCH) {
                zero = m >= b[G];
            } else {
                int64_t k = 0;
                while (k < G && !(b[k] <= m && m < b[k + 1])) k++;
                if (k == G) zero = true;
                else rbase += k * rstr[L.group_dim];
            }
        }
        if (fres) ref_acc_reset(&acc);
        uint64_t iacc = 0, terms = 0;
        for (uint32_t i = 0; i < nc; i++) cidx[i] = 0;
        for (uint64_t k = 0; k < ccount && !zero; k++) {
            bool take = true;
            if (g >= 0) {
                int64_t row = row_out;
                for (uint32_t i = 0; i < L.n_prefix; i++)
                    if (src[L.prefix[i]] < 0) row += cidx[-1 - src[L.prefix[i]]] * gstr[i];
                const int64_t *b = bounds + row * (G + 1);
                int64_t m = cidx[-1 - src[L.ragged_dim]];
                take = b[g] <= m && m < b[g + 1];
            }
            if (take) {
                int64_t lo = lbase, ro = rbase;
                for (uint32_t i = 0; i < nc; i++) {
                    lo += cidx[i] * cl[i];
                    ro += cidx[i] * cr[i];
                }
                if (fres)
                    ref_acc_add_prod(&acc, plumb_load_f64(lhs->dtype, lhs->data, (size_t)lo),
                                     plumb_load_f64(rhs->dtype, rhs->data, (size_t)ro));
                else
                    iacc += plumb_load_u64(lhs->dtype, lhs->data, (size_t)lo) * plumb_load_u64(rhs->dtype, rhs->data, (size_t)ro);
                terms++;
            }
            for (uint32_t i = nc; i-- > 0;) {
                if (++cidx[i] < cdims[i]) break;
                cidx[i] = 0;
            }
            if (!ref_work_step(c, op, &work)) {
                ok = false;
                break;
            }
        }
        if (!ok) break;
        if (fres) {
            if (terms == 0) {
                plumb_store_bits(ety, res->data, (size_t)o, 0);   /* +0: a sum of no terms */
            } else {
                plumb_store_bits(ety, res->data, (size_t)o, ref_acc_round(&acc, ety));
            }
        } else {
            plumb_store_bits(ety, res->data, (size_t)o, zero ? 0 : iacc);
        }
    }
    if (fres) ref_acc_clear(&acc);
    free(bounds);
    return ok && ref_work(c, op, work & 255);
}
