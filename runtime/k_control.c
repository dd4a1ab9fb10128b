/* Control-flow kernels of the compiled runtime (op set v2,
 * docs/spec/control.md); each computes nothing itself and is tested bitwise
 * against the reference (tests/runtime/test_control.c).
 *
 * optimization_barrier: the passes keep it as an op of kind func, so
 * nothing is folded, CSE'd or simplified through it (its results are not
 * constants, and no rewrite looks past an op of that kind), fusion never
 * takes it into an elementwise loop (it is not elementwise), and the plan
 * runs ops in program order, so the operands' producers run before it and
 * its users after it. At run time it is a copy. */
#include <string.h>

#include "rt_internal.h"
#include "rt_pipeline.h"

bool rt_op_OPTIMIZATION_BARRIER(rt_exec *x, const ir_op *op, plumb_tensor *const *in,
                                plumb_tensor *const *out)
{
    if (op->n_results != op->n_operands)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%u operands but %u results",
                       (unsigned)op->n_operands, (unsigned)op->n_results);
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (in[i]->dtype != out[i]->dtype || in[i]->nbytes != out[i]->nbytes)
            return rt_fail(x, op, PLUMB_ERR_INVALID,
                           "operand %u and result %u differ in element type or size", i, i);
        if (in[i]->nbytes && in[i]->data != out[i]->data)
            memcpy(out[i]->data, in[i]->data, in[i]->nbytes);
    }
    return true;
}

/* while: cond and body are regions of the compiled program, compiled with
 * it once (their ops run through the kernels, as reduce and sort bodies the
 * kernels do not recognise do, rt_eval_region); the trip count is data and
 * never part of the cache key. Each region evaluation charges the run's
 * work counter, so a loop that never ends stops at the deadline. */
bool rt_op_WHILE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands;
    bool ok = false;
    plumb_tensor *pred = NULL, **next = NULL;
    const ir_op *prev_loop;
    uint64_t prev_iter;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (op->n_regions != 2 || op->n_results != n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs cond and body regions and one result per operand");
    if (n && !(next = plumb_calloc(n, sizeof *next)))
        return rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u iteration values", n);
    if (!(pred = plumb_tensor_new(PLUMB_I1, 0, NULL, 0, &d))) {
        rt_fail(x, op, PLUMB_ERR_NOMEM, "%s", d.msg);
        goto out_free;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (in[i]->nbytes && in[i]->data != out[i]->data)
            memcpy(out[i]->data, in[i]->data, in[i]->nbytes);
        if (!(next[i] = plumb_tensor_new(out[i]->dtype, out[i]->rank, out[i]->dims, 0, &d))) {
            rt_fail(x, op, d.code ? d.code : PLUMB_ERR_NOMEM, "%s", d.msg);
            goto out_free;
        }
    }
    prev_loop = x->loop;
    prev_iter = x->loop_iter;
    x->loop = op;
    for (uint64_t iter = 0;; iter++) {
        x->loop_iter = iter;
        if (!rt_eval_region(x, &op->regions[0], out, &pred))
            goto out_loop;
        if (!(((const uint8_t *)pred->data)[0] & 1))
            break;
        if (!rt_eval_region(x, &op->regions[1], out, next))
            goto out_loop;
        for (uint32_t i = 0; i < n; i++)
            if (next[i]->nbytes)
                memcpy(out[i]->data, next[i]->data, next[i]->nbytes);
    }
    ok = true;
out_loop:
    x->loop = prev_loop;
    x->loop_iter = prev_iter;
out_free:
    for (uint32_t i = 0; next && i < n; i++)
        plumb_tensor_free(next[i]);
    if (next)
        plumb_free(next, n * sizeof *next);
    plumb_tensor_free(pred);
    return ok;
}

/* if and case: one branch region runs through rt_eval_region (compiled with
 * the program); an index outside [0, N) runs the last branch, as the spec
 * says. */
static bool run_branch(rt_exec *x, const ir_op *op, uint32_t r, plumb_tensor *const *out)
{
    if (r >= op->n_regions)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "branch %u of %u does not exist", r, op->n_regions);
    return rt_eval_region(x, &op->regions[r], NULL, out);
}

bool rt_op_IF(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_branch(x, op, ir_branch_select(op, in[0]->data), out);
}

bool rt_op_CASE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_branch(x, op, ir_branch_select(op, in[0]->data), out);
}
