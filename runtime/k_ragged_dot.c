/* chlo.ragged_dot on the compiled runtime (docs/spec/ragged_dot.md; the
 * semantics and edge cases are the reference's, ref/ragged_dot.c), tested
 * against the reference (tests/runtime/test_ragged_dot.c).
 *
 * Mechanism: one dense product per group, on dot_general's batched GEMM
 * (rt_dot_batched in k_dot.c: dot_general's numerics, its overflow rescue
 * and its integer loops), so the group's result elements have exactly the
 * terms the reference sums and dot_general's bound holds for them.
 *
 *   non-contracting: for each batch b and each row of group_sizes, group
 *     g's lhs rows (the ragged indices it covers, with the free dimensions
 *     after the ragged one) times rhs's slice g: [rows, K] x [K, N], written
 *     straight into the result, whose rows for one group are contiguous.
 *   contracting: for each group g and batch b, the contracting positions
 *     the group covers gathered into [M, Kg] and [Kg, N].
 *   batching: dot_general on the batches some group covers, runs of
 *     consecutive ones in one batched call.
 *
 * Result elements no group reaches are +0 (integers 0). Operands are
 * first gathered, by element, into the row-major [rows, K] and [K, N]
 * blocks the GEMM reads (two scratch buffers sized for the largest block,
 * reused by every group). */
#include <string.h>

#include "plumb/ragged_dot.h"
#include "plumb/shape.h"
#include "rt_conv.h"
#include "rt_internal.h"

/* Element offsets of every index of a list of dimensions (row-major over
 * the list, in list order) given the tensor's strides: off[i] for i in
 * [0, product of their sizes). */
static int64_t *offsets(rt_exec *x, const ir_op *op, const int64_t *dims, const int64_t *strides, uint32_t n,
                        uint64_t *count)
{
    uint64_t cnt = 1;
    for (uint32_t i = 0; i < n; i++) cnt *= (uint64_t)dims[i];
    *count = cnt;
    int64_t *off = rt_scratch(x, op, (size_t)(cnt ? cnt : 1) * sizeof *off);
    if (!off) return NULL;
    int64_t idx[PLUMB_MAX_RANK] = {0};
    for (uint64_t k = 0; k < cnt; k++) {
        int64_t o = 0;
        for (uint32_t i = 0; i < n; i++) o += idx[i] * strides[i];
        off[k] = o;
        for (uint32_t i = n; i-- > 0;) {
            if (++idx[i] < dims[i]) break;
            idx[i] = 0;
        }
    }
    return off;
}

typedef struct rg {
    rt_exec *x;
    const ir_op *op;
    const plumb_tensor *lhs, *rhs;
    plumb_tensor *res;
    size_t es;                       /* element bytes (one type throughout) */
    uint64_t B, M, K, N;             /* batch, lhs free, contracting, rhs free counts */
    int64_t *lb, *lf, *lk, *rb, *rk, *rn;   /* element offsets per batch / free / contracting index */
    unsigned char *A, *Bm;           /* gather buffers: [M, K] and [K, N] */
    /* lhs is row-major [B, M, K] and rhs [B, K, N] (plus the group
     * dimension's offset) in these lists' order: a group's rows and its
     * rhs slice are read in place, not gathered */
    bool lhs_direct, rhs_direct;
    int64_t *kl;                     /* contracting indices of one group (contracting mode) */
} rg;

/* out block (rows x N at out_el) = lhs rows [f0, f0 + rows) of batch b x
 * rhs of batch b (plus rhs_extra, the group's slice), all K. */
static bool gemm_rows(rg *r, uint64_t b, uint64_t f0, uint64_t rows, int64_t rhs_extra, uint64_t out_el)
{
    if (rows == 0 || r->N == 0) return true;
    const unsigned char *L = r->lhs->data, *R = r->rhs->data;
    size_t es = r->es;
    unsigned char *A = r->A, *Bm = r->Bm;
    if (r->K && r->lhs_direct) {
        A = (unsigned char *)L + (size_t)(r->lb[b] + r->lf[f0]) * es;   /* read only */
    } else {
        for (uint64_t i = 0; i < rows; i++)
            for (uint64_t k = 0; k < r->K; k++)
                memcpy(A + (i * r->K + k) * es, L + (size_t)(r->lb[b] + r->lf[f0 + i] + r->lk[k]) * es, es);
    }
    if (r->K && r->rhs_direct) {
        Bm = (unsigned char *)R + (size_t)(r->rb[b] + rhs_extra) * es;   /* read only */
    } else {
        for (uint64_t k = 0; k < r->K; k++)
            for (uint64_t n = 0; n < r->N; n++)
                memcpy(Bm + (k * r->N + n) * es, R + (size_t)(r->rb[b] + rhs_extra + r->rk[k] + r->rn[n]) * es, es);
    }
    plumb_dtype t = r->res->dtype;
    plumb_tensor a = rt_view3(t, 1, (int64_t)rows, (int64_t)r->K, r->K ? A : NULL),
                 bm = rt_view3(t, 1, (int64_t)r->K, (int64_t)r->N, r->K ? Bm : NULL),
                 c = rt_view3(t, 1, (int64_t)rows, (int64_t)r->N, (unsigned char *)r->res->data + out_el * es);
    return rt_dot_batched(r->x, r->op, &a, &bm, &c);
}

/* out block (M x N at out_el) = lhs of batch b x rhs of batch b over the
 * nk contracting indices r->kl[0..nk). */
static bool gemm_cols(rg *r, uint64_t b, uint64_t nk, uint64_t out_el)
{
    if (r->M == 0 || r->N == 0) return true;
    const unsigned char *L = r->lhs->data, *R = r->rhs->data;
    size_t es = r->es;
    for (uint64_t i = 0; i < r->M; i++)
        for (uint64_t k = 0; k < nk; k++)
            memcpy(r->A + (i * nk + k) * es, L + (size_t)(r->lb[b] + r->lf[i] + r->lk[r->kl[k]]) * es, es);
    for (uint64_t k = 0; k < nk; k++)
        for (uint64_t n = 0; n < r->N; n++)
            memcpy(r->Bm + (k * r->N + n) * es, R + (size_t)(r->rb[b] + r->rk[r->kl[k]] + r->rn[n]) * es, es);
    plumb_dtype t = r->res->dtype;
    plumb_tensor a = rt_view3(t, 1, (int64_t)r->M, (int64_t)nk, nk ? r->A : NULL),
                 bm = rt_view3(t, 1, (int64_t)nk, (int64_t)r->N, nk ? r->Bm : NULL),
                 c = rt_view3(t, 1, (int64_t)r->M, (int64_t)r->N, (unsigned char *)r->res->data + out_el * es);
    return rt_dot_batched(r->x, r->op, &a, &bm, &c);
}

bool rt_op_RAGGED_DOT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *lhs = in[0], *rhs = in[1], *gs = in[2];
    plumb_tensor *res = out[0];
    const ir_attrs *a = &op->a;
    ir_type lt = ir_shape_of(lhs), rt = ir_shape_of(rhs), gt = ir_shape_of(gs), ot = ir_shape_of(res);
    ir_ragged_layout Ly;
    char msg[320];
    plumb_code code = ir_ragged_dot_layout(a, &lt, &rt, &gt, &ot, &Ly, msg, sizeof msg);
    if (code != PLUMB_OK) return rt_fail(x, op, code, "%s", msg);
    if (!ir_ragged_check_sizes(gs, msg, sizeof msg)) return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", msg);
    /* every element is written below or stays +0 / 0 from here */
    if (res->nbytes) memset(res->data, 0, res->nbytes);

    int64_t G = Ly.n_groups;
    int64_t lstr[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = lhs->rank; d-- > 0;) { lstr[d] = s; s *= lhs->dims[d]; }
    s = 1;
    for (uint32_t d = rhs->rank; d-- > 0;) { rstr[d] = s; s *= rhs->dims[d]; }
    /* dimension lists: batch (list order), lhs free (increasing),
     * contracting (list order), rhs free (increasing, group left out) */
    int64_t bd[PLUMB_MAX_RANK], bls[PLUMB_MAX_RANK], brs[PLUMB_MAX_RANK], fd[PLUMB_MAX_RANK], fls[PLUMB_MAX_RANK],
        kd[PLUMB_MAX_RANK], kls[PLUMB_MAX_RANK], krs[PLUMB_MAX_RANK], nd[PLUMB_MAX_RANK], nrs[PLUMB_MAX_RANK];
    uint32_t nb = a->lhs_batch.n, nf = 0, nk = a->lhs_contract.n, nn = 0;
    int64_t ragged_pos = -1;   /* the ragged dimension's position in its list */
    for (uint32_t i = 0; i < nb; i++) {
        bd[i] = lhs->dims[a->lhs_batch.v[i]];
        bls[i] = lstr[a->lhs_batch.v[i]];
        brs[i] = rstr[a->rhs_batch.v[i]];
        if (a->lhs_batch.v[i] == Ly.ragged_dim) ragged_pos = i;
    }
    for (uint32_t d = 0; d < lhs->rank; d++)
        if (!ir_ragged_has(&a->lhs_batch, d) && !ir_ragged_has(&a->lhs_contract, d)) {
            if ((int64_t)d == Ly.ragged_dim) ragged_pos = nf;
            fd[nf] = lhs->dims[d];
            fls[nf++] = lstr[d];
        }
    for (uint32_t i = 0; i < nk; i++) {
        kd[i] = lhs->dims[a->lhs_contract.v[i]];
        kls[i] = lstr[a->lhs_contract.v[i]];
        krs[i] = rstr[a->rhs_contract.v[i]];
        if (a->lhs_contract.v[i] == Ly.ragged_dim) ragged_pos = i;
    }
    for (uint32_t d = 0; d < rhs->rank; d++)
        if (!ir_ragged_has(&a->rhs_batch, d) && !ir_ragged_has(&a->rhs_contract, d) && !ir_ragged_has(&a->rhs_group, d)) {
            nd[nn] = rhs->dims[d];
            nrs[nn++] = rstr[d];
        }
    rg r;
    memset(&r, 0, sizeof r);
    r.x = x;
    r.op = op;
    r.lhs = lhs;
    r.rhs = rhs;
    r.res = res;
    r.es = plumb_dtype_size(res->dtype);
    if (!(r.lb = offsets(x, op, bd, bls, nb, &r.B)) || !(r.rb = offsets(x, op, bd, brs, nb, &r.B)) ||
        !(r.lf = offsets(x, op, fd, fls, nf, &r.M)) || !(r.lk = offsets(x, op, kd, kls, nk, &r.K)) ||
        !(r.rk = offsets(x, op, kd, krs, nk, &r.K)) || !(r.rn = offsets(x, op, nd, nrs, nn, &r.N)))
        return false;
    if (r.B * r.M * r.N == 0) return true;   /* an empty result */
    /* in place when the offsets are those of row-major [B, M, K] and
     * [B, K, N] (plus the group offset): f0 + i, k and n step by K, 1, N, 1 */
    r.lhs_direct = r.rhs_direct = true;
    for (uint64_t b = 0; b < r.B; b++) {
        r.lhs_direct = r.lhs_direct && r.lb[b] == (int64_t)(b * r.M * r.K);
        r.rhs_direct = r.rhs_direct && r.rb[b] == (int64_t)(b * r.K * r.N);
    }
    for (uint64_t i = 0; i < r.M; i++) r.lhs_direct = r.lhs_direct && r.lf[i] == (int64_t)(i * r.K);
    for (uint64_t k = 0; k < r.K; k++) {
        r.lhs_direct = r.lhs_direct && r.lk[k] == (int64_t)k;
        r.rhs_direct = r.rhs_direct && r.rk[k] == (int64_t)(k * r.N);
    }
    for (uint64_t n = 0; n < r.N; n++) r.rhs_direct = r.rhs_direct && r.rn[n] == (int64_t)n;
    uint64_t asz = r.M * r.K, bsz = r.K * r.N;
    if (!(r.A = rt_scratch(x, op, (size_t)(asz ? asz : 1) * r.es)) ||
        !(r.Bm = rt_scratch(x, op, (size_t)(bsz ? bsz : 1) * r.es)))
        return false;
    int64_t *bounds = rt_scratch(x, op, (size_t)(G + 1) * sizeof *bounds);
    if (!bounds) return false;
    /* rows of group_sizes: the prefix's index, row-major */
    uint64_t MN = r.M * r.N;

    switch (Ly.mode) {
    case IR_RAGGED_NONCONTRACTING: {
        /* free dimensions: P before the ragged one (they index group_sizes
         * after the batch), R the ragged one, Q after it */
        uint64_t P = 1, R = (uint64_t)fd[ragged_pos], Q = 1;
        for (int64_t i = 0; i < ragged_pos; i++) P *= (uint64_t)fd[i];
        for (uint32_t i = (uint32_t)ragged_pos + 1; i < nf; i++) Q *= (uint64_t)fd[i];
        for (uint64_t b = 0; b < r.B; b++)
            for (uint64_t p = 0; p < P; p++) {
                uint64_t row = Ly.n_prefix ? b * P + p : 0;
                if (!ir_ragged_group_bounds(gs, row, G, Ly.extent, bounds, msg, sizeof msg))
                    return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", msg);
                for (int64_t g = 0; g < G; g++) {
                    uint64_t s0 = (uint64_t)bounds[g], e0 = (uint64_t)bounds[g + 1];
                    uint64_t f0 = (p * R + s0) * Q;
                    if (!gemm_rows(&r, b, f0, (e0 - s0) * Q, g * rstr[Ly.group_dim], b * MN + f0 * r.N)) return false;
                }
            }
        return true;
    }
    case IR_RAGGED_BATCH: {
        /* batch dimensions: those before the ragged one index group_sizes */
        uint64_t Bj = (uint64_t)bd[ragged_pos], after = 1;
        for (uint32_t i = (uint32_t)ragged_pos + 1; i < nb; i++) after *= (uint64_t)bd[i];
        for (uint64_t b = 0; b < r.B; b++) {
            uint64_t row = Ly.n_prefix ? b / (Bj * after) : 0, m = (b / after) % Bj;
            if (!ir_ragged_group_bounds(gs, row, G, Ly.extent, bounds, msg, sizeof msg))
                return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", msg);
            if (m < (uint64_t)bounds[G] && !gemm_rows(&r, b, 0, r.M, 0, b * MN)) return false;
        }
        return true;
    }
    case IR_RAGGED_CONTRACTING: {
        /* contracting dimensions: KP before the ragged one (they index
         * group_sizes after the batch), R the ragged one, KA after it */
        uint64_t KP = 1, R = (uint64_t)kd[ragged_pos], KA = 1;
        for (int64_t i = 0; i < ragged_pos; i++) KP *= (uint64_t)kd[i];
        for (uint32_t i = (uint32_t)ragged_pos + 1; i < nk; i++) KA *= (uint64_t)kd[i];
        if (!(r.kl = rt_scratch(x, op, (size_t)(r.K ? r.K : 1) * sizeof *r.kl))) return false;
        for (int64_t g = 0; g < G; g++)
            for (uint64_t b = 0; b < r.B; b++) {
                uint64_t n_k = 0;
                for (uint64_t kp = 0; kp < KP; kp++) {
                    uint64_t row = Ly.n_prefix ? b * KP + kp : 0;
                    if (!ir_ragged_group_bounds(gs, row, G, Ly.extent, bounds, msg, sizeof msg))
                        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", msg);
                    for (uint64_t k = (kp * R + (uint64_t)bounds[g]) * KA; k < (kp * R + (uint64_t)bounds[g + 1]) * KA; k++)
                        r.kl[n_k++] = (int64_t)k;
                }
                /* no terms: the block stays +0 */
                if (n_k && !gemm_cols(&r, b, n_k, ((uint64_t)g * r.B + b) * MN)) return false;
            }
        return true;
    }
    }
    return rt_fail(x, op, PLUMB_ERR_RUNTIME, "unknown ragged_dot mode %d", (int)Ly.mode);
}
