/* Control-flow kernels of the reference (op set v2, docs/spec/control.md).
 *
 * optimization_barrier is the only one so far; while, if and case follow. */
#include <string.h>

#include "ref_internal.h"

/* optimization_barrier: result i = operand i, bit for bit (StableHLO
 * "optimization_barrier": "ensures that the operations that produce the
 * operand are executed before any operations that depend on the result").
 * The reference runs ops in program order and never reorders, so the
 * ordering guarantee holds by construction; the kernel only copies.
 * Types: any, unchanged (C1). Edge cases: no operands (nothing to do),
 * empty tensors, NaN payloads and signed zeros (copied as bits). */
bool ref_op_OPTIMIZATION_BARRIER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in,
                                 plumb_tensor *const *out)
{
    if (op->n_results != op->n_operands)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%u operands but %u results",
                        (unsigned)op->n_operands, (unsigned)op->n_results);
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (in[i]->dtype != out[i]->dtype || in[i]->nbytes != out[i]->nbytes)
            return ref_fail(c, op, PLUMB_ERR_INVALID,
                            "operand %u and result %u differ in element type or size", i, i);
        if (in[i]->nbytes)
            memcpy(out[i]->data, in[i]->data, in[i]->nbytes);
    }
    return true;
}

/* while: results = the iteration values when cond first returns false;
 * starting from the operands, each iteration replaces them with body's
 * results (StableHLO "while": "the loop is executed while cond returns
 * true"). cond and body see values of the enclosing function by capture.
 * Each evaluation of cond or body charges the run's work counter (one unit,
 * plus its ops'), so a loop that never ends stops at --timeout; the
 * message names the while op and the iterations it completed (or, when an
 * op inside the body was running, that op and the iteration).
 * Types: any, unchanged (C1-C3). Edge cases: no iterations (results are the
 * operands), no operands (cond alone decides), empty tensors. */
bool ref_op_WHILE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands;
    bool ok = false;
    plumb_tensor *pred = NULL, **next = NULL;
    const ir_op *prev_loop;
    uint64_t prev_iter;
    if (op->n_regions != 2 || op->n_results != n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "needs cond and body regions and one result per operand");
    if (n && !(next = plumb_calloc(n, sizeof *next)))
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory for %u iteration values", n);
    ir_type bt = {.dtype = PLUMB_I1, .rank = 0};
    if (!(pred = ref_tensor_new(c, op, &bt)))
        goto out_free;
    for (uint32_t i = 0; i < n; i++) {
        if (in[i]->nbytes)
            memcpy(out[i]->data, in[i]->data, in[i]->nbytes);
        ir_type t = {.dtype = out[i]->dtype, .rank = out[i]->rank};
        memcpy(t.dims, out[i]->dims, sizeof t.dims[0] * out[i]->rank);
        for (uint32_t k = 0; k < PLUMB_MAX_RANK; k++)
            t.bounds[k] = PLUMB_NO_BOUND;
        if (!(next[i] = ref_tensor_new(c, op, &t)))
            goto out_free;
    }
    ref_loop_set(c, op, 0, &prev_loop, &prev_iter);
    for (uint64_t iter = 0;; iter++) {
        ref_loop_set(c, op, iter, NULL, NULL);
        if (!ref_eval_region(c, &op->regions[0], out, &pred))
            goto out_loop;
        if (!(((const uint8_t *)pred->data)[0] & 1))
            break;
        if (!ref_eval_region(c, &op->regions[1], out, next))
            goto out_loop;
        for (uint32_t i = 0; i < n; i++)
            if (next[i]->nbytes)
                memcpy(out[i]->data, next[i]->data, next[i]->nbytes);
    }
    ok = true;
out_loop:
    ref_loop_set(c, prev_loop, prev_iter, NULL, NULL);
out_free:
    for (uint32_t i = 0; next && i < n; i++)
        plumb_tensor_free(next[i]);
    if (next)
        plumb_free(next, n * sizeof *next);
    plumb_tensor_free(pred);
    return ok;
}

/* if and case: run one branch and return what it returns (StableHLO "if":
 * true_branch when pred is true, else false_branch; "case": branches[index],
 * and "if index < 0 or index >= N, then branches[N-1] is executed"). The
 * branches take no arguments and may read enclosing values by capture.
 * Types: any result types, unchanged. Edge cases: an out-of-range index
 * (negative or too large) runs the last branch; one branch only. */
static bool run_branch(ref_ctx *c, const ir_op *op, uint32_t r, plumb_tensor *const *out)
{
    if (r >= op->n_regions)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "branch %u of %u does not exist", r, op->n_regions);
    return ref_eval_region(c, &op->regions[r], NULL, out);
}

bool ref_op_IF(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_branch(c, op, ir_branch_select(op, in[0]->data), out);
}

bool ref_op_CASE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_branch(c, op, ir_branch_select(op, in[0]->data), out);
}
