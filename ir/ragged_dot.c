/* chlo.ragged_dot: the verifier's rules and the group layout
 * (include/plumb/ragged_dot.h, docs/spec/ragged_dot.md).
 *
 * The rules follow upstream's RaggedDotOp::verify (stablehlo/dialect/
 * ChloOps.cpp: checkDotGeneralConstraints, checkRaggedDotConstraints and
 * inferRaggedDotOutputDimensions) in their order, each message naming the
 * operand and dimension it is about. plumb adds two of its own, both
 * reported as unsupported rather than invalid: every dimension static, and
 * lhs, rhs and result of one element type (upstream lets the result type be
 * preferred; no upstream test uses that). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plumb/ragged_dot.h"

static plumb_code say(char *buf, size_t n, plumb_code c, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static plumb_code say(char *buf, size_t n, plumb_code c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (n) vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return c;
}

#define BAD(...) say(buf, n, PLUMB_ERR_INVALID, __VA_ARGS__)

bool ir_ragged_has(const ir_ints *l, int64_t d)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == d) return true;
    return false;
}

/* Each entry in [0, rank), none repeated. */
static plumb_code dims_ok(const ir_ints *l, const char *name, uint32_t rank, const char *opnd, char *buf, size_t n)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->v[i] < 0 || l->v[i] >= (int64_t)rank)
            return BAD("%s[%u] = %lld is out of range for %s of rank %u", name, i, (long long)l->v[i], opnd, rank);
        for (uint32_t j = 0; j < i; j++)
            if (l->v[j] == l->v[i])
                return BAD("%s lists dimension %lld twice", name, (long long)l->v[i]);
    }
    return PLUMB_OK;
}

static plumb_code disjoint(const ir_ints *x, const char *xn, const ir_ints *y, const char *yn, char *buf, size_t n)
{
    for (uint32_t i = 0; i < x->n; i++)
        if (ir_ragged_has(y, x->v[i]))
            return BAD("dimension %lld is in both %s and %s", (long long)x->v[i], xn, yn);
    return PLUMB_OK;
}

plumb_code ir_ragged_dot_layout(const ir_attrs *a, const ir_type *l, const ir_type *r, const ir_type *gs,
                                const ir_type *res, ir_ragged_layout *L, char *buf, size_t n)
{
    plumb_code c;
    const ir_type *all[4] = {l, r, gs, res};
    static const char *const names[4] = {"lhs (operand 0)", "rhs (operand 1)", "group_sizes (operand 2)", "the result"};
    for (uint32_t i = 0; i < 4; i++) {
        if (!all[i]) continue;
        if (all[i]->tuple) return BAD("%s is a tuple; ragged_dot takes tensors", names[i]);
        for (uint32_t d = 0; d < all[i]->rank; d++)
            if (all[i]->dims[d] < 0)
                return say(buf, n, PLUMB_ERR_UNSUPPORTED, "unsupported: %s dimension %u is dynamic ('?'); plumb runs ragged_dot on static shapes",
                           names[i], d);
    }
    if (l->dtype != r->dtype)
        return say(buf, n, PLUMB_ERR_UNSUPPORTED, "unsupported: lhs element type %s differs from rhs element type %s (plumb takes one type)",
                   plumb_dtype_name(l->dtype), plumb_dtype_name(r->dtype));
    if (res && res->dtype != l->dtype)
        return say(buf, n, PLUMB_ERR_UNSUPPORTED, "unsupported: result element type %s differs from the operands' %s (plumb takes one type)",
                   plumb_dtype_name(res->dtype), plumb_dtype_name(l->dtype));
    if (!plumb_dtype_is_int(gs->dtype))
        return BAD("group_sizes (operand 2) must have an integer element type, got %s", plumb_dtype_name(gs->dtype));
    if (gs->rank < 1)
        return BAD("group_sizes (operand 2) must have rank at least 1 (its last dimension counts the groups), got rank 0");

    /* dot_general's constraints (checkDotGeneralConstraints) */
    if (a->lhs_batch.n != a->rhs_batch.n)
        return BAD("lhs_batching_dimensions has %u entries but rhs_batching_dimensions has %u", a->lhs_batch.n, a->rhs_batch.n);
    if (a->lhs_contract.n != a->rhs_contract.n)
        return BAD("lhs_contracting_dimensions has %u entries but rhs_contracting_dimensions has %u", a->lhs_contract.n,
                   a->rhs_contract.n);
    if ((c = dims_ok(&a->lhs_batch, "lhs_batching_dimensions", l->rank, "lhs", buf, n)) ||
        (c = dims_ok(&a->lhs_contract, "lhs_contracting_dimensions", l->rank, "lhs", buf, n)) ||
        (c = dims_ok(&a->rhs_batch, "rhs_batching_dimensions", r->rank, "rhs", buf, n)) ||
        (c = dims_ok(&a->rhs_contract, "rhs_contracting_dimensions", r->rank, "rhs", buf, n)) ||
        (c = disjoint(&a->lhs_batch, "lhs_batching_dimensions", &a->lhs_contract, "lhs_contracting_dimensions", buf, n)) ||
        (c = disjoint(&a->rhs_batch, "rhs_batching_dimensions", &a->rhs_contract, "rhs_contracting_dimensions", buf, n)))
        return c;
    for (uint32_t i = 0; i < a->lhs_batch.n; i++)
        if (l->dims[a->lhs_batch.v[i]] != r->dims[a->rhs_batch.v[i]])
            return BAD("batching dimension pair %u: lhs dimension %lld has size %lld but rhs dimension %lld has size %lld", i,
                       (long long)a->lhs_batch.v[i], (long long)l->dims[a->lhs_batch.v[i]], (long long)a->rhs_batch.v[i],
                       (long long)r->dims[a->rhs_batch.v[i]]);
    for (uint32_t i = 0; i < a->lhs_contract.n; i++)
        if (l->dims[a->lhs_contract.v[i]] != r->dims[a->rhs_contract.v[i]])
            return BAD("contracting dimension pair %u: lhs dimension %lld has size %lld but rhs dimension %lld has size %lld", i,
                       (long long)a->lhs_contract.v[i], (long long)l->dims[a->lhs_contract.v[i]],
                       (long long)a->rhs_contract.v[i], (long long)r->dims[a->rhs_contract.v[i]]);

    /* checkRaggedDotConstraints */
    if (a->lhs_ragged.n != 1)
        return BAD("lhs_ragged_dimensions must list exactly one lhs dimension, got %u", a->lhs_ragged.n);
    int64_t rd = a->lhs_ragged.v[0];
    if (rd < 0 || rd >= (int64_t)l->rank)
        return BAD("lhs_ragged_dimensions[0] = %lld is out of range for lhs of rank %u", (long long)rd, l->rank);
    ir_ragged_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.ragged_dim = rd;
    lay.group_dim = -1;
    lay.extent = l->dims[rd];
    lay.mode = ir_ragged_has(&a->lhs_batch, rd) ? IR_RAGGED_BATCH : ir_ragged_has(&a->lhs_contract, rd) ? IR_RAGGED_CONTRACTING
                                                                                     : IR_RAGGED_NONCONTRACTING;
    /* group_sizes' expected shape [b..., x..., g] */
    int64_t pre[PLUMB_MAX_RANK];
    uint32_t np = 0;
    switch (lay.mode) {
    case IR_RAGGED_BATCH:   /* the batching dimensions listed before the ragged one */
        for (uint32_t i = 0; i < a->lhs_batch.n && a->lhs_batch.v[i] != rd; i++) pre[np++] = a->lhs_batch.v[i];
        break;
    case IR_RAGGED_CONTRACTING:   /* every batching one, then the contracting ones listed before it */
        for (uint32_t i = 0; i < a->lhs_batch.n; i++) pre[np++] = a->lhs_batch.v[i];
        for (uint32_t i = 0; i < a->lhs_contract.n && a->lhs_contract.v[i] != rd; i++) pre[np++] = a->lhs_contract.v[i];
        break;
    case IR_RAGGED_NONCONTRACTING:   /* every batching one, then the free ones before it */
        for (uint32_t i = 0; i < a->lhs_batch.n; i++) pre[np++] = a->lhs_batch.v[i];
        for (int64_t d = 0; d < rd; d++)
            if (!ir_ragged_has(&a->lhs_batch, d) && !ir_ragged_has(&a->lhs_contract, d)) pre[np++] = d;
        break;
    }
    if (gs->rank != 1) {
        const char *mode = lay.mode == IR_RAGGED_BATCH ? "batching" : lay.mode == IR_RAGGED_CONTRACTING ? "contracting" : "non-contracting";
        /* with no lhs dimension before the ragged one, rank 1 is the only form */
        if (np == 0)
            return BAD("group_sizes (operand 2) must have rank 1 (the group count: no lhs dimension comes before a ragged %s dimension here), got rank %u",
                       mode, gs->rank);
        if (gs->rank != np + 1)
            return BAD("group_sizes (operand 2) must have rank 1 or %u (%u lhs dimension%s, then the group count, for a ragged %s dimension), got rank %u",
                       np + 1, np, np == 1 ? "" : "s", mode, gs->rank);
        for (uint32_t i = 0; i < np; i++)
            if (gs->dims[i] != l->dims[pre[i]])
                return BAD("group_sizes (operand 2) dimension %u has size %lld but must match lhs dimension %lld (size %lld)", i,
                           (long long)gs->dims[i], (long long)pre[i], (long long)l->dims[pre[i]]);
        lay.n_prefix = np;
        memcpy(lay.prefix, pre, np * sizeof pre[0]);
    }
    lay.n_groups = gs->dims[gs->rank - 1];
    if ((c = dims_ok(&a->rhs_group, "rhs_group_dimensions", r->rank, "rhs", buf, n)) ||
        (c = disjoint(&a->rhs_group, "rhs_group_dimensions", &a->rhs_batch, "rhs_batching_dimensions", buf, n)) ||
        (c = disjoint(&a->rhs_group, "rhs_group_dimensions", &a->rhs_contract, "rhs_contracting_dimensions", buf, n)))
        return c;
    if (lay.mode != IR_RAGGED_NONCONTRACTING) {
        if (a->rhs_group.n != 0)
            return BAD("rhs_group_dimensions must be empty when the lhs ragged dimension %lld is a %s dimension, got %u entries",
                       (long long)rd, lay.mode == IR_RAGGED_BATCH ? "batching" : "contracting", a->rhs_group.n);
    } else {
        if (a->rhs_group.n != 1)
            return BAD("rhs_group_dimensions must list exactly one rhs dimension when the lhs ragged dimension %lld is non-contracting, got %u",
                       (long long)rd, a->rhs_group.n);
        lay.group_dim = a->rhs_group.v[0];
        if (r->dims[lay.group_dim] != lay.n_groups)
            return BAD("rhs group dimension %lld has size %lld but group_sizes (operand 2) has %lld groups",
                       (long long)lay.group_dim, (long long)r->dims[lay.group_dim], (long long)lay.n_groups);
    }

    /* inferRaggedDotOutputDimensions: [g (contracting mode)], batch, lhs
     * free, rhs free (neither batching, contracting nor group) */
    if (res) {
        int64_t want[PLUMB_MAX_RANK + 2];
        uint32_t k = 0;
        if (lay.mode == IR_RAGGED_CONTRACTING) want[k++] = lay.n_groups;
        for (uint32_t i = 0; i < a->lhs_batch.n; i++) want[k++] = l->dims[a->lhs_batch.v[i]];
        for (uint32_t d = 0; d < l->rank; d++)
            if (!ir_ragged_has(&a->lhs_batch, d) && !ir_ragged_has(&a->lhs_contract, d)) want[k++] = l->dims[d];
        for (uint32_t d = 0; d < r->rank; d++)
            if (!ir_ragged_has(&a->rhs_batch, d) && !ir_ragged_has(&a->rhs_contract, d) && !ir_ragged_has(&a->rhs_group, d)) {
                if (k >= PLUMB_MAX_RANK) return BAD("the result rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
                want[k++] = r->dims[d];
            }
        if (k > PLUMB_MAX_RANK) return BAD("the result rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
        bool same = res->rank == k;
        for (uint32_t i = 0; same && i < k; i++) same = res->dims[i] == want[i];
        if (!same) {
            char ws[200] = "", gs_[200] = "";
            size_t o = 0;
            for (uint32_t i = 0; i < k && o < sizeof ws; i++) o += (size_t)snprintf(ws + o, sizeof ws - o, "%s%lld", i ? "x" : "", (long long)want[i]);
            o = 0;
            for (uint32_t i = 0; i < res->rank && o < sizeof gs_; i++)
                o += (size_t)snprintf(gs_ + o, sizeof gs_ - o, "%s%lld", i ? "x" : "", (long long)res->dims[i]);
            return BAD("result shape [%s] does not match the inferred [%s] (%sbatch, lhs free, rhs free dimensions)", gs_, ws,
                       lay.mode == IR_RAGGED_CONTRACTING ? "groups, " : "");
        }
    }
    if (L) *L = lay;
    return PLUMB_OK;
}

plumb_code ir_ragged_dot_check(const ir_op *op, char *buf, size_t n)
{
    if (op->n_operands != 3 || op->n_results != 1)
        return BAD("takes lhs, rhs and group_sizes and has one result, got %u operands and %u results", op->n_operands,
                   op->n_results);
    return ir_ragged_dot_layout(&op->a, &op->operands[0]->type, &op->operands[1]->type, &op->operands[2]->type,
                                &op->results[0]->type, NULL, buf, n);
}

/* A size as a signed count; false for a ui64 above INT64_MAX. */
static bool size_at(const plumb_tensor *gs, size_t i, int64_t *v)
{
    if (plumb_dtype_is_unsigned(gs->dtype)) {
        uint64_t u = plumb_load_u64(gs->dtype, gs->data, i);
        if (u > (uint64_t)INT64_MAX) return false;
        *v = (int64_t)u;
        return true;
    }
    *v = plumb_load_i64(gs->dtype, gs->data, i);
    return true;
}

bool ir_ragged_group_bounds(const plumb_tensor *gs, uint64_t row, int64_t n_groups, int64_t extent, int64_t *bounds,
                            char *buf, size_t n)
{
    int64_t at = 0;
    bounds[0] = 0;
    for (int64_t g = 0; g < n_groups; g++) {
        size_t i = (size_t)(row * (uint64_t)n_groups + (uint64_t)g);
        int64_t s = 0;
        if (!size_at(gs, i, &s) || s < 0) {
            if (n) {
                if (s < 0 && plumb_dtype_is_signed(gs->dtype))
                    snprintf(buf, n, "group_sizes element %zu (group %lld) is %lld; group sizes must not be negative", i,
                             (long long)g, (long long)s);
                else
                    snprintf(buf, n, "group_sizes element %zu (group %lld) is above 2^63 - 1", i, (long long)g);
            }
            return false;
        }
        /* clipped at the dimension's end: no overflow, whatever the sizes */
        at = s >= extent - at ? extent : at + s;
        bounds[g + 1] = at;
    }
    return true;
}

bool ir_ragged_check_sizes(const plumb_tensor *gs, char *buf, size_t n)
{
    uint64_t cnt = plumb_tensor_numel(gs);
    for (uint64_t i = 0; i < cnt; i++) {
        int64_t s = 0;
        if (!size_at(gs, (size_t)i, &s) || s < 0) {
            if (n) {
                if (plumb_dtype_is_signed(gs->dtype))
                    snprintf(buf, n, "group_sizes element %llu is %lld; group sizes must not be negative", (unsigned long long)i,
                             (long long)s);
                else
                    snprintf(buf, n, "group_sizes element %llu is above 2^63 - 1", (unsigned long long)i);
            }
            return false;
        }
    }
    return true;
}
