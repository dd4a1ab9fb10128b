/* The agreement bounds of triangular_solve and cholesky (docs/spec/linalg.md,
 * "Bounds"), used by the checker (conformance/check.c) and by the runtime's
 * tests, and the matrices of their conformance cases. */
#ifndef PLUMB_CONF_LINALG_BOUND_H
#define PLUMB_CONF_LINALG_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "plumb/ir.h"
#include "plumb/ops.h"
#include "plumb/tensor.h"

/* The verdict on one output: budget is the largest ratio of an element's
 * error to its bound (> 1 fails), idx that element, reason says why when
 * the budget exceeds 1 (empty otherwise). */
typedef struct conf_linalg_verdict {
    double budget;
    uint64_t idx;
    char reason[400];
} conf_linalg_verdict;

/* triangular_solve(a, b) with attributes at: got (the backend's result)
 * against want (the reference's), per element, by the forward bound derived
 * from Higham's Theorem 8.5. */
void conf_linalg_trsm_judge(const ir_attrs *at, const plumb_tensor *a, const plumb_tensor *b,
                            const plumb_tensor *got, const plumb_tensor *want, conf_linalg_verdict *v);

/* cholesky(a) with lower: got's computed triangle by the backward error of
 * Higham's Theorem 10.3 (residual of got's factor against a, per element);
 * matrices the reference found not positive definite, or whose read
 * triangle is not finite, are not judged (the spec leaves them undefined);
 * the opposite triangle is never judged (implementation-defined). */
void conf_linalg_chol_judge(bool lower, const plumb_tensor *a, const plumb_tensor *got, const plumb_tensor *want,
                            conf_linalg_verdict *v);

/* Fills a (a batch of square matrices) for a case of op (triangular_solve
 * or cholesky) of value class vc (conformance/gen_linalg.c says what each
 * class is); false for another op, a type other than a float (FP8/FP6/FP4
 * included, f8E8M0FNU not) or complex one, or n > 16. */
bool conf_linalg_fill(plumb_opcode op, const char *vc, plumb_tensor *a, gsl_rng *rng);

/* Right-hand sides: every element (complex: each component) uniform in
 * [-1, 1), rounded once to b's type. */
void conf_linalg_fill_rhs(plumb_tensor *b, gsl_rng *rng);

/* The linalg types family (docs/spec/linalg.md, "Conformance"): the types
 * beyond the four wide float types that triangular_solve and cholesky
 * cases are generated for (complex<f32>, complex<f64>, the FP8/FP6/FP4
 * formats but f8E8M0FNU), and how many cases op has in it (quick: the
 * first shape class x every value class and the other shapes x the first
 * class; full: every pair; one repetition, per type). */
bool conf_linalg_family_type(plumb_dtype t);
uint32_t conf_linalg_family_cases(plumb_opcode op, bool full);

#endif
