/* The element comparisons and the failure report of the check ops
 * (check.expect_eq, expect_close, expect_almost_eq and their _const forms;
 * docs/spec/checks.md), shared by the reference's and the runtime's check
 * kernels so that both judge and describe a check identically. */
#ifndef PLUMB_CHECKCMP_H
#define PLUMB_CHECKCMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "tensor.h"

/* On raw bit patterns of float dtype t. */
bool plumb_float_is_nan(plumb_dtype t, uint64_t bits);
/* Distance on the ordered integer line of float bit patterns (not NaNs):
 * consecutive floats are 1 apart, -0 and +0 coincide, +inf is 1 above the
 * largest finite value. */
uint64_t plumb_ulp_distance(plumb_dtype t, uint64_t a, uint64_t b);
/* expect_almost_eq's element test with StableHLO's definition. */
bool plumb_almost_eq(plumb_dtype t, uint64_t got, uint64_t want, double tolerance);

/* Called every 65536 elements; returning false abandons the check. */
typedef bool (*plumb_check_poll_fn)(void *ud);

/* Runs check op (its opcode selects the element rule, its attributes the
 * bounds) on got against want. Sets *passed; on failure writes the report
 * (file:line:col of op, the first max_mismatches mismatching elements, the
 * count) to log. file may be NULL; poll may be NULL. Returns false only
 * when poll returned false. */
bool plumb_check_run(const ir_op *op, const plumb_tensor *got, const plumb_tensor *want,
                     FILE *log, uint32_t max_mismatches, const char *file,
                     plumb_check_poll_fn poll, void *poll_ud, bool *passed);


/* ---- arbitration of expected values (docs/spec/checks.md "Arbitration") ----
 * When a float check fails on a value produced directly by a dot_general,
 * dot or reduce with an add body, the check computes the producer's exact
 * result (correctly rounded) and its data-dependent error bound, says for
 * each mismatching element how far the expected value and the backend's
 * value are from it, and, when the mode is on, accepts an element whose
 * value lies within the bound of the exact result while the expected value
 * is further from it (in ULP). Every accepted element is printed as a note. */

/* The op whose result check's first operand is, when arbitration may apply
 * to it: a float dot_general or dot, a reduce or reduce_window of one float
 * input with an add body, or a ULP-class elementwise op, reached directly or
 * through reshapes (which move no value).
 * NULL for every other producer (exact ops, converts, parameters). */
const ir_op *plumb_check_arb_producer(const ir_op *check);

/* The most nested func.calls plumb_check_arb_trace follows. */
#define PLUMB_CHECK_ARB_MAX_CALLS 16u

/* plumb_check_arb_producer that also follows a func.call into the value its
 * callee (in m) returns, through nested calls up to
 * PLUMB_CHECK_ARB_MAX_CALLS deep; reduce_window with an add body counts as
 * a sum. Writes the calls followed to calls[0..*n_calls), outermost first
 * (calls holds PLUMB_CHECK_ARB_MAX_CALLS). m may be NULL: no call followed. */
const ir_op *plumb_check_arb_trace(const ir_module *m, const ir_op *check, const ir_op **calls, uint32_t *n_calls);

/* Whether the mode accepts elements: on unless PLUMB_ARBITRATE is "0"
 * (plumb run --no-arbitrate sets it). Off, failing checks are still
 * annotated with the distances but fail as before. */
bool plumb_check_arb_enabled(void);

/* Computes the producer's exact result rounded to its type (*exact) and
 * the op's bound per element (*bound, f64 of the same shape; see
 * docs/spec/checks.md), both new tensors the caller frees. The producer's
 * operands are recomputed by the reference from the constants of m (through
 * func.call); false with a reason in why when they depend on a function
 * parameter or cannot be computed. Implemented by the reference
 * (ref/arbitrate.c). */
bool plumb_check_arb_compute(const ir_module *m, const ir_op *producer, uint64_t max_bytes,
                             plumb_tensor **exact, plumb_tensor **bound, char *why, size_t why_size);
/* The same for a producer inside the callee of calls[n_calls - 1], reached
 * from the check's function through calls[0..n_calls) (plumb_check_arb_trace):
 * each callee's parameters are the recomputed operands of its call. */
bool plumb_check_arb_compute_in(const ir_module *m, const ir_op *const *calls, uint32_t n_calls,
                                const ir_op *producer, uint64_t max_bytes, plumb_tensor **exact,
                                plumb_tensor **bound, char *why, size_t why_size);

typedef struct plumb_check_arb {
    const ir_module *m;        /* the module of the check (for the recomputation) */
    uint64_t max_bytes;        /* per-tensor limit of the recomputation; 0: the default */
    bool accept;               /* the mode is on (plumb_check_arb_enabled) */
    uint64_t accepted;         /* out: elements accepted by arbitration */
} plumb_check_arb;

/* plumb_check_run with arbitration: arb may be NULL (plumb_check_run). The
 * exact result is computed only when an element fails. Accepted elements
 * are written to log as notes even when the check passes. */
bool plumb_check_run_arb(const ir_op *op, const plumb_tensor *got, const plumb_tensor *want,
                         FILE *log, uint32_t max_mismatches, const char *file,
                         plumb_check_poll_fn poll, void *poll_ud, plumb_check_arb *arb, bool *passed);

#endif
