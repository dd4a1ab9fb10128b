/* The agreement bound of batch_norm_inference, _training and _grad
 * (docs/spec/batchnorm.md, "Bound"), used by the checker
 * (conformance/check.c) and the runtime's tests, and the values of their
 * conformance cases (conformance/gen_batchnorm.c). */
#ifndef PLUMB_CONF_BATCHNORM_BOUND_H
#define PLUMB_CONF_BATCHNORM_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "plumb/ops.h"
#include "plumb/tensor.h"

static inline bool conf_op_batch_norm(plumb_opcode op)
{
    return op == PLUMB_OP_BATCH_NORM_INFERENCE || op == PLUMB_OP_BATCH_NORM_TRAINING || op == PLUMB_OP_BATCH_NORM_GRAD;
}

/* The verdict on one output: budget is the largest ratio of an element's
 * error to its bound (> 1 fails; 0 when got equals want bit for bit), idx
 * that element, reason says why when the budget exceeds 1. */
typedef struct conf_bn_verdict {
    double budget;
    uint64_t idx;
    char reason[400];
} conf_bn_verdict;

/* Output k of op (a batch norm op) with attributes epsilon and
 * feature_index on operands in[] (the op's operands in order): got (the
 * backend's) against want (the reference's), element by element. */
void conf_bn_judge(plumb_opcode op, double epsilon, int64_t feature_index, const plumb_tensor *const *in, uint32_t k,
                   const plumb_tensor *got, const plumb_tensor *want, conf_bn_verdict *v);

/* Fills the operands in[0..n) of a case of op for value class vc
 * ("normal", "shifted" or "constant"; conformance/gen_batchnorm.c says what
 * each is) with feature dimension feature_index; false for another op or
 * class. */
bool conf_bn_fill(plumb_opcode op, const char *vc, int64_t feature_index, plumb_tensor *const *in, uint32_t n,
                  gsl_rng *rng);

#endif
