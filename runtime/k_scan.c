/* chlo.scan on the compiled runtime (op set v2, docs/spec/control.md
 * "scan"), tested against the reference (tests/runtime/test_scan.c).
 *
 * The body is a region of the compiled program, compiled with it once and
 * run through rt_eval_region once per position of the scan dimension, as
 * while's body is: the same kernels, and so the same bits, as the body's
 * ops outside a scan. The loop is sequential (each step needs the previous
 * step's carries); the body's own kernels use the thread pool. Per step the
 * kernel gathers each input's slice at the position into a small tensor,
 * runs the body, scatters the outputs' slices back and moves the new
 * carries into the carry results, which hold the carries from the start
 * (the inits copied in). Edge cases as the reference's (ref/scan.c): an
 * empty scan dimension runs the body never (outputs empty, carries =
 * inits); no inits; no inputs (the length from the outputs' type). */
#include <string.h>

#include "rt_internal.h"
#include "rt_pipeline.h"

static size_t elem_bytes(const plumb_tensor *t)
{
    uint64_t n = plumb_tensor_numel(t);
    return n ? (size_t)(t->nbytes / n) : plumb_dtype_size(t->dtype);
}

/* A row-major tensor seen along dimension d as [outer][len][inner bytes]. */
typedef struct scan_view {
    uint64_t outer, inner, len;
} scan_view;

static scan_view view_of(const plumb_tensor *t, uint32_t d)
{
    scan_view v = {1, elem_bytes(t), (uint64_t)t->dims[d]};
    for (uint32_t i = 0; i < d; i++)
        v.outer *= (uint64_t)t->dims[i];
    for (uint32_t i = d + 1; i < t->rank; i++)
        v.inner *= (uint64_t)t->dims[i];
    return v;
}

static void gather(const scan_view *v, const char *full, char *slice, uint64_t pos)
{
    for (uint64_t o = 0; o < v->outer; o++)
        memcpy(slice + o * v->inner, full + (o * v->len + pos) * v->inner, v->inner);
}

static void scatter(const scan_view *v, char *full, const char *slice, uint64_t pos)
{
    for (uint64_t o = 0; o < v->outer; o++)
        memcpy(full + (o * v->len + pos) * v->inner, slice + o * v->inner, v->inner);
}

/* A tensor of t's type with dimension d removed (d >= rank: none). */
static plumb_tensor *slice_new(rt_exec *x, const ir_op *op, const plumb_tensor *t, uint32_t d)
{
    int64_t dims[PLUMB_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t i = 0; i < t->rank; i++)
        if (i != d)
            dims[r++] = t->dims[i];
    plumb_diag dg;
    memset(&dg, 0, sizeof dg);
    plumb_tensor *s = plumb_tensor_new(t->dtype, r, dims, 0, &dg);
    if (!s)
        rt_fail(x, op, dg.code ? dg.code : PLUMB_ERR_NOMEM, "%s", dg.msg);
    return s;
}

bool rt_op_SCAN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t m = op->a.n_inits;
    if (op->n_regions != 1 || m > op->n_operands || m > op->n_results)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs one body region and %u inits with as many carries", m);
    uint32_t n = op->n_operands - m, k = op->n_results - m, nio = n + k;
    int64_t dim = op->a.dimension;
    if (nio == 0 || op->regions[0].n_args != n + m)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs an input or an output, and a body of %u arguments", n + m);
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *t = i < n ? in[i] : out[i - n];
        if (dim < 0 || (uint64_t)dim >= t->rank)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension %lld is out of range for rank %u", (long long)dim, t->rank);
    }
    uint32_t d = (uint32_t)dim;
    uint64_t len = (uint64_t)(n ? in[0] : out[0])->dims[d];
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *t = i < n ? in[i] : out[i - n];
        if ((uint64_t)t->dims[d] != len)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "%s %u has %lld positions along dimension %u, expected %llu",
                           i < n ? "input" : "output", i < n ? i : i - n, (long long)t->dims[d], d,
                           (unsigned long long)len);
    }
    for (uint32_t j = 0; j < m; j++) {
        if (in[n + j]->nbytes != out[k + j]->nbytes || in[n + j]->dtype != out[k + j]->dtype)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "init %u and carry %u differ in element type or size", j, j);
        if (in[n + j]->nbytes && in[n + j]->data != out[k + j]->data)
            memcpy(out[k + j]->data, in[n + j]->data, in[n + j]->nbytes);
    }
    if (len == 0)
        return true;
    bool ok = false;
    uint32_t nt = n + m + k + m;   /* body arguments, then body results */
    plumb_tensor **t = plumb_calloc(nt, sizeof *t);
    scan_view *v = plumb_calloc(nio, sizeof *v);
    const ir_op *prev_loop = x->loop;
    uint64_t prev_iter = x->loop_iter;
    if (!t || !v) {
        rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u body values", nt);
        goto out_free;
    }
    plumb_tensor **args = t, **res = t + n + m;
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *full = i < n ? in[i] : out[i - n];
        v[i] = view_of(full, d);
        if (!(t[i < n ? i : n + m + (i - n)] = slice_new(x, op, full, d)))
            goto out_free;
    }
    for (uint32_t j = 0; j < m; j++) {
        args[n + j] = out[k + j];
        if (!(res[k + j] = slice_new(x, op, out[k + j], PLUMB_MAX_RANK)))
            goto out_free;
    }
    x->loop = op;
    for (uint64_t step = 0; step < len; step++) {
        uint64_t pos = op->a.is_reverse ? len - 1 - step : step;
        x->loop_iter = step;
        for (uint32_t i = 0; i < n; i++)
            gather(&v[i], in[i]->data, args[i]->data, pos);
        if (!rt_eval_region(x, &op->regions[0], args, res))
            goto out_loop;
        for (uint32_t i = 0; i < k; i++)
            scatter(&v[n + i], out[i]->data, res[i]->data, pos);
        for (uint32_t j = 0; j < m; j++)
            if (res[k + j]->nbytes)
                memcpy(out[k + j]->data, res[k + j]->data, res[k + j]->nbytes);
    }
    ok = true;
out_loop:
    x->loop = prev_loop;
    x->loop_iter = prev_iter;
out_free:
    if (t) {
        for (uint32_t i = 0; i < nt; i++)
            if (i < n || i >= n + m)   /* the carry arguments are the results' */
                plumb_tensor_free(t[i]);
        plumb_free(t, nt * sizeof *t);
    }
    if (v)
        plumb_free(v, nio * sizeof *v);
    return ok;
}
