/* Check kernels: check.expect_eq, expect_close, expect_almost_eq and their
 * _const forms (docs/spec/checks.md). A check compares its first operand
 * (got) with its second operand or its `value` attribute (expected). A
 * failing check never stops the run: it is counted (ref_count_check) and
 * described on the run's check log, naming the op and its location, the
 * first mismatching elements (multi-dimensional index, got and expected in
 * decimal and hex, ULP distance for floats) and how many elements differ. */
#include "plumb/checkcmp.h"
#include "ref_internal.h"

/* The comparisons and the report live in ir/checkcmp.c, shared with the
 * runtime; these names stay for the reference's tests. */
bool ref_float_is_nan(plumb_dtype t, uint64_t bits) { return plumb_float_is_nan(t, bits); }
uint64_t ref_ulp_distance(plumb_dtype t, uint64_t a, uint64_t b) { return plumb_ulp_distance(t, a, b); }
bool ref_almost_eq(plumb_dtype t, uint64_t got, uint64_t want, double tolerance)
{
    return plumb_almost_eq(t, got, want, tolerance);
}

static bool poll_ref(void *ud)
{
    const void *const *p = ud;
    return ref_poll((ref_ctx *)p[0], (const ir_op *)p[1]);
}

/* Runs the check; false only on a run error (timeout). */
static bool run_check(ref_ctx *c, const ir_op *op, const plumb_tensor *got, const plumb_tensor *want)
{
    const void *ud[2] = {c, op};
    bool passed = false;
    /* A check of a dot's or sum's value is arbitrated against the exact
     * result (docs/spec/checks.md "Arbitration"). */
    plumb_check_arb arb = {.m = ref_module(c), .max_bytes = ref_max_bytes(c), .accept = plumb_check_arb_enabled()};
    if (!plumb_check_run_arb(op, got, want, ref_check_log(c), ref_max_mismatches(c), ref_module(c)->filename,
                             poll_ref, (void *)ud, &arb, &passed))
        return false;
    ref_count_check(c, passed);
    return true;
}

static const plumb_tensor *expected_const(ref_ctx *c, const ir_op *op)
{
    if (!op->a.value)
        ref_fail(c, op, PLUMB_ERR_INVALID, "the check has no expected value attribute");
    return op->a.value;
}

/* expect_eq: got and expected must be bitwise identical element by element;
 * all NaNs count as equal to each other (any sign or payload); -0 and +0
 * differ. Integers and i1 compare exactly. */
bool ref_op_EXPECT_EQ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1]);
}

bool ref_op_EXPECT_EQ_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w);
}

/* expect_close: for floats, the ULP distance (ref_ulp_distance) of each
 * element must lie in [min_ulp, max_ulp] (ui64; defaults 0 and 3). As in
 * StableHLO, two NaNs are 0 apart, and a NaN or an infinity is 2^64 - 1
 * from any other value (plumb_check_run). Integers and i1 compare
 * exactly. */
bool ref_op_EXPECT_CLOSE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1]);
}

bool ref_op_EXPECT_CLOSE_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w);
}

/* expect_almost_eq: ref_almost_eq per element with the op's tolerance
 * (default 1e-4). Integers and i1 compare exactly. */
bool ref_op_EXPECT_ALMOST_EQ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1]);
}

bool ref_op_EXPECT_ALMOST_EQ_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w);
}
