/* Which ops take the small float formats and sub-byte integers
 * (include/plumb/lowp.h, docs/spec/types.md). */
#include "plumb/lowp.h"
#include "plumb/fp8.h"
#include "plumb/ir.h"

/* Ops StableHLO gives floats that plumb runs on the FP8/FP6/FP4 formats:
 * each is correctly rounded in the format (ref/lowp.c, ref/crmath.c). */
static bool float_op(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT:
    case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG:
    case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE:
    case PLUMB_OP_COSINE: case PLUMB_OP_TAN: case PLUMB_OP_IS_FINITE: case PLUMB_OP_ERF:
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH: case PLUMB_OP_ASINH:
    case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE:
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF: case PLUMB_OP_LGAMMA:
    case PLUMB_OP_DIGAMMA:
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_ATAN2: case PLUMB_OP_COMPARE: case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP:
    case PLUMB_OP_DOT_GENERAL: case PLUMB_OP_DOT:
        return true;
    default:
        return false;
    }
}

/* Ops StableHLO gives integers that plumb runs on i2/i4/ui2/ui4, wrapping
 * modulo 2^w as for the other integer types. */
static bool int_op(plumb_opcode op, bool is_signed)
{
    switch (op) {
    case PLUMB_OP_ABS: case PLUMB_OP_SIGN:
        return is_signed;
    case PLUMB_OP_NEGATE: case PLUMB_OP_NOT: case PLUMB_OP_POPCNT: case PLUMB_OP_COUNT_LEADING_ZEROS:
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_AND: case PLUMB_OP_OR: case PLUMB_OP_XOR: case PLUMB_OP_SHIFT_LEFT:
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: case PLUMB_OP_SHIFT_RIGHT_LOGICAL: case PLUMB_OP_COMPARE:
    case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP:
        return true;
    default:
        return false;
    }
}

/* Ops that fold, window or scatter values of any element type through a
 * body region: the body's ops decide the arithmetic (each step rounded to
 * the element type by the elementwise ops above), ref/reduce.c and
 * runtime/k_lowp_reduce.c the order (docs/spec/types.md, "Reductions"). */
static bool region_op(plumb_opcode op)
{
    return op == PLUMB_OP_REDUCE || op == PLUMB_OP_REDUCE_WINDOW || op == PLUMB_OP_SELECT_AND_SCATTER;
}

bool ir_lowp_accepts(plumb_opcode op, plumb_dtype t)
{
    if (region_op(op))
        return plumb_fpfmt_get(t) || plumb_dtype_is_subbyte_int(t);
    if (plumb_fpfmt_get(t))
        return float_op(op);
    if (plumb_dtype_is_subbyte_int(t))
        return int_op(op, plumb_dtype_is_signed(t));
    return false;
}

bool ir_lowp_elementwise(const ir_op *op)
{
    if (op->code >= PLUMB_OP_COUNT || plumb_op_get(op->code)->kind != PLUMB_KIND_ELEMENTWISE ||
        op->code == PLUMB_OP_CONVERT || op->code == PLUMB_OP_BITCAST_CONVERT)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] && plumb_dtype_is_lowp(op->operands[i]->type.dtype))
            return true;
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] && plumb_dtype_is_lowp(op->results[i]->type.dtype))
            return true;
    return false;
}
