/* stablehlo.map on the reference (op set v2, docs/spec/control.md). */
#include <string.h>

#include "ref_internal.h"

/* map: result[i] = computation(inputs[0][i], ..., inputs[N-1][i]) for every
 * index i of the common shape (StableHLO "map": "applies a map function
 * computation to inputs along the dimensions and produces a result
 * tensor"; dimensions is every dimension, in order, C3). The computation is
 * a region of N scalar arguments returning one scalar; it may read values
 * of the enclosing function by capture, as every region may. It runs once
 * per element, in row-major order, through the interpreter (ref_eval_region
 * charges each evaluation to the run's work counter, so --timeout applies).
 * Types: any element types; the result's is what the computation returns
 * (C4). Edge cases: an empty result runs the computation never; a rank-0
 * result runs it once; element bits (NaN payloads, signed zeros) reach the
 * computation unchanged. */
bool ref_op_MAP(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands;
    bool ok = false;
    plumb_tensor **args = NULL, *res = NULL;
    if (op->n_regions != 1 || op->n_results != 1 || n == 0 || op->regions[0].n_args != n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "needs one computation region of %u arguments and one result", n);
    uint64_t numel = plumb_tensor_numel(out[0]);
    for (uint32_t k = 0; k < n; k++)
        if (plumb_tensor_numel(in[k]) != numel)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "input %u has %llu elements, the result %llu (StableHLO C1)", k,
                            (unsigned long long)plumb_tensor_numel(in[k]), (unsigned long long)numel);
    if (!(args = plumb_calloc(n, sizeof *args)))
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory for %u computation arguments", n);
    for (uint32_t k = 0; k < n; k++) {
        ir_type t = ir_type_scalar(in[k]->dtype);
        if (!(args[k] = ref_tensor_new(c, op, &t)))
            goto out_free;
    }
    ir_type rt = ir_type_scalar(out[0]->dtype);
    if (!(res = ref_tensor_new(c, op, &rt)))
        goto out_free;
    size_t rsz = plumb_dtype_size(out[0]->dtype);
    for (uint64_t i = 0; i < numel; i++) {
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            memcpy(args[k]->data, (const char *)in[k]->data + i * sz, sz);
        }
        if (!ref_eval_region(c, &op->regions[0], args, &res))
            goto out_free;
        memcpy((char *)out[0]->data + i * rsz, res->data, rsz);
    }
    ok = true;
out_free:
    plumb_tensor_free(res);
    for (uint32_t k = 0; k < n; k++)
        plumb_tensor_free(args[k]);
    plumb_free(args, n * sizeof *args);
    return ok;
}
