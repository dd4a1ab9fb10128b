/* Runtime kernels of the check ops (docs/spec/checks.md). The comparison
 * and the failure report are the reference's own (ir/checkcmp.c), so a
 * check passes, fails and is described identically on both backends. A
 * failing check is counted (rt_count_check), never an error of the run. */
#include "plumb/checkcmp.h"
#include "rt_internal.h"

#define RT_CHECK_MISMATCHES 5u   /* mismatching elements printed per failing check */

static bool run_check(rt_exec *x, const ir_op *op, const plumb_tensor *got, const plumb_tensor *want)
{
    if (!got || !want)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the check has no expected value");
    const ir_module *m = rt_module(x);
    bool passed = false;
    /* A check of a dot's or sum's value is arbitrated against the exact
     * result, which the reference computes (docs/spec/checks.md
     * "Arbitration"); the runtime's value is accepted only within the op's
     * bound, as certify's judge would. */
    plumb_check_arb arb = {.m = m, .max_bytes = 0, .accept = plumb_check_arb_enabled()};
    plumb_check_run_arb(op, got, want, rt_check_log(x), RT_CHECK_MISMATCHES, m ? m->filename : NULL, NULL, NULL,
                        m ? &arb : NULL, &passed);
    rt_count_check(x, passed);
    return true;
}

bool rt_op_EXPECT_EQ(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 2 ? run_check(x, op, in[0], in[1])
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 2 operands");
}

bool rt_op_EXPECT_CLOSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 2 ? run_check(x, op, in[0], in[1])
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 2 operands");
}

bool rt_op_EXPECT_ALMOST_EQ(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 2 ? run_check(x, op, in[0], in[1])
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 2 operands");
}

/* The _const forms compare with the op's `value` attribute. */
bool rt_op_EXPECT_EQ_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 1 ? run_check(x, op, in[0], op->a.value)
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 1 operand");
}

bool rt_op_EXPECT_CLOSE_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 1 ? run_check(x, op, in[0], op->a.value)
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 1 operand");
}

bool rt_op_EXPECT_ALMOST_EQ_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return op->n_operands == 1 ? run_check(x, op, in[0], op->a.value)
                               : rt_fail(x, op, PLUMB_ERR_INVALID, "expected 1 operand");
}
