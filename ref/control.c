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
