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
 * only after rt_fail (scratch). red: the reduced dims.
 * Input 1 may be an iota the plan did not materialize (its header without
 * data, runtime/plan.c): its indices are then generated from the element
 * coordinates; where the fold does not apply after all, the iota's kernel
 * writes it into scratch and the reduce runs on that (*done set). */
bool rt_argfold(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red,
                bool *done);

/* Whether reduce op's input 1 is an iota of static type whose indices the
 * pair fold can generate (types, body and layout of its class, known
 * before a run): the plan then need not materialize that iota. */
bool rt_argfold_takes_iota(const ir_op *op);

/* Reduces that took the pair fold in this process, and output elements of
 * theirs that were recomputed by the sequential fold (a NaN in the slice,
 * a zero best value); for tests that check which path ran. */
uint64_t rt_argfold_runs(void);
uint64_t rt_argfold_sequential(void);

/* Of those, reduces whose indices were generated from an unmaterialized
 * iota; and reduces that got such an iota but materialized it in scratch
 * (the fold did not apply at run time). */
uint64_t rt_argfold_generated(void);
uint64_t rt_argfold_materialized(void);

/* Bodies tabulated (run over every representative pair): once per body
 * signature in the process while it stays in the memo of recent ones. */
uint64_t rt_argfold_tabulations(void);
/* f32 rows whose best and first position one pass found (af_row1_f32). */
uint64_t rt_argfold_onepass(void);

#endif
