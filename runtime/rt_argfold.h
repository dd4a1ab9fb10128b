/* Pair folds that select one of two (value, index) candidates: argmax,
 * argmin and their variants as two-input reduces (runtime/k_argfold.c,
 * docs/runtime-reduce.md "Pair folds"). */
#ifndef PLUMB_RT_ARGFOLD_H
#define PLUMB_RT_ARGFOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "rt_internal.h"

/* A reduce of two inputs whose body is recognised as a selection rule:
 * every output written, *done set, true. *done false (nothing written,
 * true returned) when the body, types or layout are not the class; false
 * only after rt_fail (scratch). red: the reduced dims. */
bool rt_argfold(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red,
                bool *done);

/* Reduces that took the pair fold in this process, and output elements of
 * theirs that were recomputed by the sequential fold (a NaN in the slice,
 * a zero best value); for tests that check which path ran. */
uint64_t rt_argfold_runs(void);
uint64_t rt_argfold_sequential(void);

#endif
