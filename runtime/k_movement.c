/* Temporary: kernels being written. */
#include "rt_internal.h"

bool rt_op_CONSTANT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_IOTA(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_BROADCAST_IN_DIM(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_RESHAPE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_TRANSPOSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_DYNAMIC_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_DYNAMIC_UPDATE_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_CONCATENATE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_PAD(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_REVERSE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_BITCAST_CONVERT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

