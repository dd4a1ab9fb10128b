/* chlo.scan on the reference (op set v2, docs/spec/control.md "scan"). */
#include <string.h>

#include "plumb/scan.h"
#include "ref_internal.h"

/* scan: operands are N inputs then M inits (M = attrs.n_inits), results K
 * outputs then M carries. With L the inputs' size along `dimension`, the
 * carries start as the inits and, for t = 0, 1, ..., L-1 (L-1 down to 0
 * when is_reverse), the body runs on (input_0[t], ..., input_{N-1}[t],
 * carry_0, ..., carry_{M-1}), where input_i[t] is the slice of input i at
 * position t of `dimension` with that dimension removed; its first K
 * values are written to position t of the K outputs, its last M replace
 * the carries. The results' carries are the carries after the last step.
 * (ChloOps.td's ScanOp as stablehlo/tests/interpret/chlo/scan.mlir
 * exercises it: inclusive prefix sums, is_reverse giving suffix sums.)
 * The order is sequential and is the semantics, also for float bodies:
 * is_associative is only a hint that another order would be acceptable to
 * its writer, and the reference does not take it.
 * Each body evaluation charges the run's work counter (ref_eval_region),
 * and the loop is named by timeouts (ref_loop_set) as while's is.
 * Types: any (the body's ops check theirs). Edge cases: L = 0 (the body
 * never runs: outputs are empty, carries = inits); M = 0 (a map along the
 * dimension); N = 0 (L from the outputs' type: the body runs L times on
 * the carries alone); rank-0 slices; element bits (NaN payloads, signed
 * zeros) reach the body and the results unchanged. */

/* t's type with dimension d removed (static dims: a run-time tensor's). */
static ir_type slice_type(const plumb_tensor *t, uint32_t d)
{
    ir_type r = {.dtype = t->dtype};
    r.rank = ir_scan_slice_dims(t, d, r.dims);
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        r.bounds[i] = PLUMB_NO_BOUND;
    return r;
}

bool ref_op_SCAN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    ir_scan s;
    char why[160];
    if (!ir_scan_init(&s, op, in, out, why, sizeof why))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s", why);
    uint32_t n = s.n, m = s.m, k = s.k, nio = n + k, d = s.dim;
    uint64_t len = s.len;
    /* the carries live in the carry results from the start */
    for (uint32_t j = 0; j < m; j++)
        if (in[n + j]->nbytes)
            memcpy(out[k + j]->data, in[n + j]->data, in[n + j]->nbytes);
    if (len == 0)
        return true;
    bool ok = false;
    uint32_t nt = n + m + k + m;   /* body arguments, then body results */
    plumb_tensor **t = plumb_calloc(nt, sizeof *t);
    ir_scan_view *v = plumb_calloc(nio, sizeof *v);
    const ir_op *prev_loop;
    uint64_t prev_iter;
    if (!t || !v) {
        ok = ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory for %u body values", nt);
        goto out_free;
    }
    plumb_tensor **args = t, **res = t + n + m;
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *full = i < n ? in[i] : out[i - n];
        v[i] = ir_scan_view_of(full, d);
        ir_type st = slice_type(full, d);
        if (!(t[i < n ? i : n + m + (i - n)] = ref_tensor_new(c, op, &st)))
            goto out_free;
    }
    for (uint32_t j = 0; j < m; j++) {
        args[n + j] = out[k + j];
        ir_type ct = slice_type(out[k + j], PLUMB_MAX_RANK);   /* nothing removed */
        if (!(res[k + j] = ref_tensor_new(c, op, &ct)))
            goto out_free;
    }
    ref_loop_set(c, op, 0, &prev_loop, &prev_iter);
    for (uint64_t step = 0; step < len; step++) {
        uint64_t pos = op->a.is_reverse ? len - 1 - step : step;
        ref_loop_set(c, op, step, NULL, NULL);
        for (uint32_t i = 0; i < n; i++)
            ir_scan_slice_copy(&v[i], in[i]->data, args[i]->data, pos, false);
        if (!ref_eval_region(c, &op->regions[0], args, res))
            goto out_loop;
        for (uint32_t i = 0; i < k; i++)
            ir_scan_slice_copy(&v[n + i], out[i]->data, res[i]->data, pos, true);
        for (uint32_t j = 0; j < m; j++)
            if (res[k + j]->nbytes)
                memcpy(out[k + j]->data, res[k + j]->data, res[k + j]->nbytes);
    }
    ok = true;
out_loop:
    ref_loop_set(c, prev_loop, prev_iter, NULL, NULL);
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
