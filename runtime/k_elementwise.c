/* Temporary: kernels being written. */
#include "rt_internal.h"

bool rt_op_ABS(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_NEGATE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SIGN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_FLOOR(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_CEIL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_ROUND_NEAREST_EVEN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_ROUND_NEAREST_AFZ(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SQRT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_RSQRT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_CBRT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPONENTIAL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_EXPONENTIAL_MINUS_ONE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_LOG(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_LOG_PLUS_ONE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_LOGISTIC(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_TANH(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SINE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_COSINE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_TAN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_IS_FINITE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_NOT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_POPCNT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_COUNT_LEADING_ZEROS(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_REDUCE_PRECISION(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_ERF(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_ADD(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SUBTRACT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_MULTIPLY(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_DIVIDE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_REMAINDER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_POWER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_MAXIMUM(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_MINIMUM(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_ATAN2(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_AND(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_OR(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_XOR(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SHIFT_LEFT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SHIFT_RIGHT_ARITHMETIC(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SHIFT_RIGHT_LOGICAL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_COMPARE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_SELECT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_CLAMP(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_op_CONVERT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool rt_ew_tile(rt_exec *x, const ir_op *op, const void *const *in, void *out, size_t n)
{
    (void)x; (void)op; (void)in; (void)out; (void)n;
    return false;
}

bool rt_ew_supported(const ir_op *op)
{
    (void)op;
    return false;
}
