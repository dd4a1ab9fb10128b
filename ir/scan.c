/* chlo.scan's operand layout (include/plumb/scan.h). */
#include <stdio.h>
#include <string.h>

#include "plumb/core.h"
#include "plumb/scan.h"

bool ir_scan_init(ir_scan *s, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, char *why,
                  size_t why_len)
{
    uint32_t m = op->a.n_inits;
    if (op->n_regions != 1 || m > op->n_operands || m > op->n_results) {
        snprintf(why, why_len, "needs one body region and %u inits with as many carries", m);
        return false;
    }
    uint32_t n = op->n_operands - m, k = op->n_results - m, nio = n + k;
    if (nio == 0 || op->regions[0].n_args != n + m) {
        snprintf(why, why_len, "needs an input or an output, and a body of %u arguments", n + m);
        return false;
    }
    int64_t dim = op->a.dimension;
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *t = i < n ? in[i] : out[i - n];
        if (dim < 0 || (uint64_t)dim >= t->rank) {
            snprintf(why, why_len, "dimension %lld is out of range for rank %u", (long long)dim, t->rank);
            return false;
        }
    }
    uint32_t d = (uint32_t)dim;
    uint64_t len = (uint64_t)(n ? in[0] : out[0])->dims[d];
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *t = i < n ? in[i] : out[i - n];
        if ((uint64_t)t->dims[d] != len) {
            snprintf(why, why_len, "%s %u has %lld positions along dimension %u, expected %llu",
                     i < n ? "input" : "output", i < n ? i : i - n, (long long)t->dims[d], d,
                     (unsigned long long)len);
            return false;
        }
    }
    for (uint32_t j = 0; j < m; j++)
        if (in[n + j]->nbytes != out[k + j]->nbytes || in[n + j]->dtype != out[k + j]->dtype) {
            snprintf(why, why_len, "init %u and carry %u differ in element type or size", j, j);
            return false;
        }
    *s = (ir_scan){.n = n, .m = m, .k = k, .dim = d, .len = len};
    return true;
}

/* Bytes per element: the payload over the element count (an interpreter's
 * storage may differ from the type's packed size), or the type's size
 * when the tensor is empty. */
static size_t elem_bytes(const plumb_tensor *t)
{
    uint64_t n = plumb_tensor_numel(t);
    return n ? (size_t)(t->nbytes / n) : plumb_dtype_size(t->dtype);
}

ir_scan_view ir_scan_view_of(const plumb_tensor *t, uint32_t d)
{
    ir_scan_view v = {1, (uint64_t)t->dims[d], elem_bytes(t)};
    for (uint32_t i = 0; i < d; i++)
        v.outer *= (uint64_t)t->dims[i];
    for (uint32_t i = d + 1; i < t->rank; i++)
        v.inner *= (uint64_t)t->dims[i];
    return v;
}

void ir_scan_slice_copy(const ir_scan_view *v, char *full, char *slice, uint64_t pos, bool to_full)
{
    /* slices without elements (a 5x0 input along dimension 0) copy
     * nothing, and their tensors may have no buffer: NULL + 0 is undefined */
    if (v->inner == 0)
        return;
    for (uint64_t o = 0; o < v->outer; o++) {
        char *f = full + (o * v->len + pos) * v->inner, *sl = slice + o * v->inner;
        if (to_full)
            memcpy(f, sl, v->inner);
        else
            memcpy(sl, f, v->inner);
    }
}

uint32_t ir_scan_slice_dims(const plumb_tensor *t, uint32_t d, int64_t dims[PLUMB_MAX_RANK])
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < t->rank; i++)
        if (i != d)
            dims[r++] = t->dims[i];
    return r;
}

bool ir_scan_run(const ir_scan *s, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                 const ir_scan_hooks *h)
{
    uint32_t n = s->n, m = s->m, k = s->k, nio = n + k;
    /* the carries live in the carry results from the start */
    for (uint32_t j = 0; j < m; j++)
        if (in[n + j]->nbytes && in[n + j]->data != out[k + j]->data)
            memcpy(out[k + j]->data, in[n + j]->data, in[n + j]->nbytes);
    if (s->len == 0)
        return true;
    bool ok = false;
    uint32_t nt = n + m + k + m;   /* body arguments, then body results */
    plumb_tensor **t = plumb_calloc(nt, sizeof *t);
    ir_scan_view *v = plumb_calloc(nio, sizeof *v);
    if (!t || !v) {
        h->nomem(h->ctx, op, nt);
        goto out_free;
    }
    plumb_tensor **args = t, **res = t + n + m;
    for (uint32_t i = 0; i < nio; i++) {
        const plumb_tensor *full = i < n ? in[i] : out[i - n];
        v[i] = ir_scan_view_of(full, s->dim);
        if (!(t[i < n ? i : n + m + (i - n)] = h->slice_new(h->ctx, op, full, s->dim)))
            goto out_free;
    }
    for (uint32_t j = 0; j < m; j++) {
        args[n + j] = out[k + j];
        if (!(res[k + j] = h->slice_new(h->ctx, op, out[k + j], PLUMB_MAX_RANK)))   /* nothing removed */
            goto out_free;
    }
    h->at_step(h->ctx, op, 0, true, false);
    for (uint64_t step = 0; step < s->len; step++) {
        uint64_t pos = op->a.is_reverse ? s->len - 1 - step : step;
        h->at_step(h->ctx, op, step, false, false);
        for (uint32_t i = 0; i < n; i++)
            ir_scan_slice_copy(&v[i], in[i]->data, args[i]->data, pos, false);
        if (!h->eval(h->ctx, op, args, res))
            goto out_loop;
        for (uint32_t i = 0; i < k; i++)
            ir_scan_slice_copy(&v[n + i], out[i]->data, res[i]->data, pos, true);
        for (uint32_t j = 0; j < m; j++)
            if (res[k + j]->nbytes)
                memcpy(out[k + j]->data, res[k + j]->data, res[k + j]->nbytes);
    }
    ok = true;
out_loop:
    h->at_step(h->ctx, op, 0, false, true);
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
