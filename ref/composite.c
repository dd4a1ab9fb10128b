/* stablehlo.composite on the reference (op set v2, docs/spec/control.md). */
#include <string.h>

#include "ref_internal.h"

/* composite: "Encapsulates an operation made up (composed) of other
 * StableHLO operations, taking inputs and composite_attributes and
 * producing results. The semantics of the op are implemented by the
 * decomposition attribute." The reference calls the decomposition function
 * with the operands and copies its results; name, composite_attributes and
 * version only describe the op to tools and never change what it computes.
 * Types: any (the decomposition's). Edge cases: no operands or no results
 * (a decomposition of that signature), empty tensors; the call counts
 * toward the interpreter's call-depth limit as func.call does. */
bool ref_op_COMPOSITE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_func *f = op->a.callee ? ir_module_find_func(ref_module(c), op->a.callee) : NULL;
    if (!f)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "no decomposition function @%s in the module",
                        op->a.callee ? op->a.callee : "?");
    plumb_tensor *small[8], **res = small;
    uint32_t n = op->n_results;
    if (n > 8 && !(res = plumb_calloc(n, sizeof *res)))
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory for %u results", n);
    for (uint32_t i = 0; i < n; i++)
        res[i] = NULL;
    bool ok = ref_call(c, op, f, in, res);
    for (uint32_t i = 0; ok && i < n; i++) {
        if (!res[i] || res[i]->dtype != out[i]->dtype || res[i]->nbytes != out[i]->nbytes) {
            ok = ref_fail(c, op, PLUMB_ERR_INVALID, "@%s's result %u does not have the composite's result type",
                          f->name, i);
            break;
        }
        if (res[i]->nbytes)
            memcpy(out[i]->data, res[i]->data, res[i]->nbytes);
    }
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(res[i]);
    if (res != small)
        plumb_free(res, n * sizeof *res);
    return ok;
}
