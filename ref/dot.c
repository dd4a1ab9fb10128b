/* stablehlo.dot_general and stablehlo.dot
 *
 * Semantics (StableHLO spec): result[b..., l..., r...] =
 *   sum over the contracting indices k of lhs[b, l, k] * rhs[b, r, k],
 * where b runs over the batching dimensions (lhs_batching_dimensions paired
 * with rhs_batching_dimensions, in that order), l over lhs's remaining
 * dimensions and r over rhs's, each in increasing order. `dot` is the rank-1/2
 * form: lhs's last dimension contracts with rhs's first.
 *
 * Numerics: the reference always computes at full precision; precision_config
 * is a hint for backends and is ignored here. Float results: every product
 * is exact (a double for f16/bf16/f32 operands; two doubles' exact product in
 * an MPFR accumulator when an operand or the result is f64 or an integer too
 * wide for double), the sum is accumulated in double-double (narrow operands)
 * or exactly (f64), and rounded once to the result type (accum.h). NaN
 * anywhere, 0 * inf, or +inf with -inf gives NaN. A zero-size contraction
 * gives +0. Integer results wrap modulo 2^bits (operands sign- or
 * zero-extended by their type); i1 results are the OR of ANDs.
 *
 * dot_general's algorithm (docs/spec/dotalg.md): with one component per
 * operand and a float result, each operand element is first rounded to its
 * precision type (lhs_precision_type, rhs_precision_type: "the precisions
 * that the LHS and RHS of the operation are rounded to"), then the exact
 * dot of those values is rounded once as above. The accumulation type
 * names how coarse a backend's sum may be, so it widens the checker's
 * bound, not this result. Split algorithms (3 or 6 primitive operations)
 * emulate the operands' own precision: the exact dot of the operands is
 * their target, and the checker allows the emulation's error. Integer
 * results ignore the algorithm (exact integer arithmetic).
 */
#include <string.h>

#include "plumb/dotalg.h"

#include "accum.h"
#include "ref_internal.h"

static bool dims_ok(const ir_ints *v, uint32_t rank, bool *used)
{
    for (uint32_t i = 0; i < v->n; i++) {
        int64_t d = v->v[i];
        if (d < 0 || d >= (int64_t)rank || used[d])
            return false;
        used[d] = true;
    }
    return true;
}

/* Whether products of t's values are not always exact in a double. */
static bool needs_exact(plumb_dtype t)
{
    if (t == PLUMB_F64) return true;
    if (plumb_dtype_is_float(t) || plumb_dtype_is_bool(t)) return false;
    return plumb_dtype_get(t)->bits > 24;
}

static bool dot_core(ref_ctx *c, const ir_op *op, const plumb_tensor *lhs, const plumb_tensor *rhs,
                     const ir_ints *lb, const ir_ints *rb, const ir_ints *lc, const ir_ints *rc,
                     plumb_tensor *out)
{
    const char *name = plumb_op_name(op->code);
    bool lused[PLUMB_MAX_RANK] = {false}, rused[PLUMB_MAX_RANK] = {false};
    if (lb->n != rb->n || lc->n != rc->n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: lhs and rhs list different numbers of batching or contracting dimensions", name);
    if (!dims_ok(lb, lhs->rank, lused) || !dims_ok(lc, lhs->rank, lused) ||
        !dims_ok(rb, rhs->rank, rused) || !dims_ok(rc, rhs->rank, rused))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: a batching or contracting dimension is out of range or repeated", name);
    for (uint32_t i = 0; i < lb->n; i++)
        if (lhs->dims[lb->v[i]] != rhs->dims[rb->v[i]])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: batching dimension %u has sizes %lld and %lld", name, i,
                            (long long)lhs->dims[lb->v[i]], (long long)rhs->dims[rb->v[i]]);
    for (uint32_t i = 0; i < lc->n; i++)
        if (lhs->dims[lc->v[i]] != rhs->dims[rc->v[i]])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: contracting dimension %u has sizes %lld and %lld", name, i,
                            (long long)lhs->dims[lc->v[i]], (long long)rhs->dims[rc->v[i]]);
    int64_t lstr[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK];
    int64_t s = 1;
    for (uint32_t d = lhs->rank; d-- > 0;) { lstr[d] = s; s *= lhs->dims[d]; }
    s = 1;
    for (uint32_t d = rhs->rank; d-- > 0;) { rstr[d] = s; s *= rhs->dims[d]; }

    /* result dims with the strides each contributes to lhs and rhs */
    int64_t odims[PLUMB_MAX_RANK], ol[PLUMB_MAX_RANK], or_[PLUMB_MAX_RANK];
    uint32_t on = 0;
    for (uint32_t i = 0; i < lb->n; i++, on++) {
        odims[on] = lhs->dims[lb->v[i]];
        ol[on] = lstr[lb->v[i]];
        or_[on] = rstr[rb->v[i]];
    }
    for (uint32_t d = 0; d < lhs->rank; d++)
        if (!lused[d]) {
            if (on >= PLUMB_MAX_RANK) return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: result rank exceeds %d", name, PLUMB_MAX_RANK);
            odims[on] = lhs->dims[d]; ol[on] = lstr[d]; or_[on++] = 0;
        }
    for (uint32_t d = 0; d < rhs->rank; d++)
        if (!rused[d]) {
            if (on >= PLUMB_MAX_RANK) return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: result rank exceeds %d", name, PLUMB_MAX_RANK);
            odims[on] = rhs->dims[d]; ol[on] = 0; or_[on++] = rstr[d];
        }
    if (out->rank != on || (on && memcmp(out->dims, odims, on * sizeof(int64_t)) != 0))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: result shape does not match batch, lhs free and rhs free dimensions", name);
    int64_t cdims[PLUMB_MAX_RANK], cl[PLUMB_MAX_RANK], cr[PLUMB_MAX_RANK];
    uint64_t ccount = 1;
    for (uint32_t i = 0; i < lc->n; i++) {
        cdims[i] = lhs->dims[lc->v[i]];
        cl[i] = lstr[lc->v[i]];
        cr[i] = rstr[rc->v[i]];
        ccount *= (uint64_t)cdims[i];
    }
    uint32_t nc = lc->n;

    plumb_dtype lt = lhs->dtype, rt = rhs->dtype, ot = out->dtype;
    bool fres = plumb_dtype_is_float(ot), bres = plumb_dtype_is_bool(ot);
    bool round_ops = ir_dotalg_rounds_operands(op);
    int lp = op->a.algorithm.lhs_precision_type, rp = op->a.algorithm.rhs_precision_type;
    ref_acc acc;
    if (fres)
        ref_acc_init(&acc, needs_exact(lt) || needs_exact(rt) || ot == PLUMB_F64);
    uint64_t ocount = plumb_tensor_numel(out), work = 0;
    int64_t oidx[PLUMB_MAX_RANK], cidx[PLUMB_MAX_RANK];
    bool ok = true;
    for (uint64_t o = 0; o < ocount && ok; o++) {
        ref_unravel(o, on, odims, oidx);
        int64_t lbase = 0, rbase = 0;
        for (uint32_t i = 0; i < on; i++) {
            lbase += oidx[i] * ol[i];
            rbase += oidx[i] * or_[i];
        }
        if (fres) ref_acc_reset(&acc);
        uint64_t iacc = 0;
        for (uint32_t i = 0; i < nc; i++) cidx[i] = 0;
        for (uint64_t k = 0; k < ccount; k++) {
            int64_t lo = lbase, ro = rbase;
            for (uint32_t i = 0; i < nc; i++) {
                lo += cidx[i] * cl[i];
                ro += cidx[i] * cr[i];
            }
            if (fres) {
                double x = plumb_load_f64(lt, lhs->data, (size_t)lo), y = plumb_load_f64(rt, rhs->data, (size_t)ro);
                if (round_ops) {
                    x = ir_dotalg_round(lp, x);
                    y = ir_dotalg_round(rp, y);
                }
                ref_acc_add_prod(&acc, x, y);
            } else if (bres) {
                iacc |= plumb_load_u64(lt, lhs->data, (size_t)lo) & plumb_load_u64(rt, rhs->data, (size_t)ro) & 1;
            } else {
                iacc += plumb_load_u64(lt, lhs->data, (size_t)lo) * plumb_load_u64(rt, rhs->data, (size_t)ro);
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
            /* an empty contraction is +0, not the -0 of "all terms -0" */
            if (ccount == 0) acc.all_negzero = false;
            plumb_store_bits(ot, out->data, (size_t)o, ref_acc_round(&acc, ot));
        } else {
            plumb_store_bits(ot, out->data, (size_t)o, iacc);
        }
    }
    if (fres) ref_acc_clear(&acc);
    return ok && ref_work(c, op, work & 255);
}

bool ref_op_DOT_GENERAL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    return dot_core(c, op, in[0], in[1], &a->lhs_batch, &a->rhs_batch, &a->lhs_contract, &a->rhs_contract, out[0]);
}

bool ref_op_DOT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *l = in[0], *r = in[1];
    if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "stablehlo.dot takes rank-1 or rank-2 operands, got ranks %u and %u",
                        l->rank, r->rank);
    int64_t lcv = (int64_t)l->rank - 1, rcv = 0;
    ir_ints none = {NULL, 0};
    ir_ints lc = {&lcv, 1}, rc = {&rcv, 1};
    return dot_core(c, op, l, r, &none, &none, &lc, &rc, out[0]);
}
