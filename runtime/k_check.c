/* Temporary: kernels being written. */
#include "rt_internal.h"

bool rt_op_EXPECT_EQ(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPECT_EQ_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPECT_CLOSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPECT_CLOSE_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPECT_ALMOST_EQ(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPECT_ALMOST_EQ_CONST(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

