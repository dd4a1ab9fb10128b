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

#include "plumb/scan.h"
#include "rt_internal.h"
#include "rt_pipeline.h"

/* A tensor of t's type with dimension d removed (d >= rank: none). */
static plumb_tensor *slice_new(rt_exec *x, const ir_op *op, const plumb_tensor *t, uint32_t d)
{
    int64_t dims[PLUMB_MAX_RANK];
    uint32_t r = ir_scan_slice_dims(t, d, dims);
    plumb_diag dg;
    memset(&dg, 0, sizeof dg);
    plumb_tensor *s = plumb_tensor_new(t->dtype, r, dims, 0, &dg);
    if (!s)
        rt_fail(x, op, dg.code ? dg.code : PLUMB_ERR_NOMEM, "%s", dg.msg);
    return s;
}

bool rt_op_SCAN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    ir_scan s;
    char why[160];
    if (!ir_scan_init(&s, op, in, out, why, sizeof why))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", why);
    uint32_t n = s.n, m = s.m, k = s.k, nio = n + k, d = s.dim;
    uint64_t len = s.len;
    for (uint32_t j = 0; j < m; j++)
        if (in[n + j]->nbytes && in[n + j]->data != out[k + j]->data)
            memcpy(out[k + j]->data, in[n + j]->data, in[n + j]->nbytes);
    if (len == 0)
        return true;
    bool ok = false;
    uint32_t nt = n + m + k + m;   /* body arguments, then body results */
    plumb_tensor **t = plumb_calloc(nt, sizeof *t);
    ir_scan_view *v = plumb_calloc(nio, sizeof *v);
    const ir_op *prev_loop = x->loop;
    uint64_t prev_iter = x->loop_iter;
    if (!t || !v) {
        rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u body values", nt);
        goto out_free;
    }
    plumb_tensor **args = t, **res = t + n + m;
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *full = i < n ? in[i] : out[i - n];
        v[i] = ir_scan_view_of(full, d);
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
            ir_scan_slice_copy(&v[i], in[i]->data, args[i]->data, pos, false);
        if (!rt_eval_region(x, &op->regions[0], args, res))
            goto out_loop;
        for (uint32_t i = 0; i < k; i++)
            ir_scan_slice_copy(&v[n + i], out[i]->data, res[i]->data, pos, true);
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
