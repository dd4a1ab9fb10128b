/* Reference kernels of the elementwise ops (work in progress). */
#include "ref_internal.h"

bool ref_op_ABS(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_NEGATE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SIGN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_FLOOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_CEIL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_ROUND_NEAREST_EVEN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_ROUND_NEAREST_AFZ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SQRT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_RSQRT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_CBRT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_EXPONENTIAL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_EXPONENTIAL_MINUS_ONE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_LOG(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_LOG_PLUS_ONE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_LOGISTIC(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_TANH(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SINE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_COSINE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_TAN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_IS_FINITE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_NOT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_POPCNT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_COUNT_LEADING_ZEROS(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_REDUCE_PRECISION(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_ERF(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_ADD(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SUBTRACT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_MULTIPLY(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_DIVIDE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_REMAINDER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_POWER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_MAXIMUM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_MINIMUM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_ATAN2(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_AND(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_OR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_XOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SHIFT_LEFT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SHIFT_RIGHT_ARITHMETIC(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SHIFT_RIGHT_LOGICAL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_COMPARE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_SELECT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_CLAMP(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_CONVERT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

