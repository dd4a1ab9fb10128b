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

#endif
