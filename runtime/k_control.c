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
