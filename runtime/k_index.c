/* Temporary: kernels being written. */
#include "rt_internal.h"

bool rt_op_GATHER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SCATTER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SORT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_TOP_K(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

