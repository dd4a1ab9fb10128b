/* Which ops take complex element types (docs/spec/complex.md). StableHLO
 * allows complex wherever its spec says "complex" or "tensor" without a
 * narrower element type; plumb lists here the ops whose reference and
 * runtime kernels handle it, and the verifier rejects complex elsewhere
 * with the usual "element type ... is not accepted" error. */
#include <stdio.h>

#include "plumb/complex.h"
#include "plumb/ir.h"

bool ir_complex_accepts(plumb_opcode op)
{
    switch (op) {
    /* data movement: kernels copy whole elements by their byte size */
    case PLUMB_OP_CONSTANT:
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_RESHAPE:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_SLICE:
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE:
    case PLUMB_OP_CONCATENATE:
    case PLUMB_OP_PAD:
    case PLUMB_OP_REVERSE:
    case PLUMB_OP_GATHER:
    /* sort, scatter and select_and_scatter: the regions decide how complex
     * values compare or combine; the kernels move whole elements */
    case PLUMB_OP_SORT:
    case PLUMB_OP_SCATTER:
    case PLUMB_OP_SELECT_AND_SCATTER:
    case PLUMB_OP_OPTIMIZATION_BARRIER:
    /* bitcast_convert: a complex element is its two components' bits,
     * real part first (ref/movement.c, runtime/k_movement.c) */
    case PLUMB_OP_BITCAST_CONVERT:
    case PLUMB_OP_MAP:   /* the computation decides what it does with complex elements */
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
    case PLUMB_OP_DYNAMIC_RESHAPE:
    /* run as slice, pad and gather, which move whole elements */
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD:
    case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_REAL:
    case PLUMB_OP_IMAG:
    /* convolution: per-component sums of complex products (ref/conv.c,
     * runtime/k_conv.c; docs/spec/conv.md) */
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV:
    /* fft's own rules (ir/fft.c) relate its complex and real sides */
    case PLUMB_OP_FFT:
    /* the Hermitian factorization and the solve with op(a) = a, a^T or
     * conj(a)^T (ref/linalg.c, runtime/k_linalg.c, docs/spec/linalg.md) */
    case PLUMB_OP_TRIANGULAR_SOLVE:
    case PLUMB_OP_CHOLESKY:
    /* reduce_window with a body of its own: the body's ops decide what
     * complex values they take; the kernels move whole elements */
    case PLUMB_OP_REDUCE_WINDOW:
    /* checks compare per component (ir/checkcmp.c) */
    case PLUMB_OP_EXPECT_EQ:
    case PLUMB_OP_EXPECT_EQ_CONST:
    case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST:
    case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        return true;
    default:
        return ir_complex_arith(op);
    }
}

bool ir_complex_arith(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE: case PLUMB_OP_ATAN2:
    case PLUMB_OP_POWER: case PLUMB_OP_NEGATE: case PLUMB_OP_ABS: case PLUMB_OP_SIGN:
    case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_LOGISTIC:
    case PLUMB_OP_CBRT:
    case PLUMB_OP_SINE: case PLUMB_OP_COSINE: case PLUMB_OP_TAN: case PLUMB_OP_CHLO_TAN: case PLUMB_OP_TANH:
    case PLUMB_OP_ASINH: case PLUMB_OP_ASIN: case PLUMB_OP_ACOS: case PLUMB_OP_ATAN: case PLUMB_OP_ATANH:
    case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ACOSH:
    case PLUMB_OP_SQUARE:
    case PLUMB_OP_CONJ:   /* (re, -im) */
    case PLUMB_OP_COMPARE: case PLUMB_OP_CONVERT: case PLUMB_OP_SELECT: case PLUMB_OP_IOTA:
    case PLUMB_OP_REDUCE: case PLUMB_OP_DOT_GENERAL: case PLUMB_OP_DOT:
    /* lexicographic on (real, imag), as StableHLO's interpreter orders them */
    case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM: case PLUMB_OP_CLAMP:
        return true;
    default:
        return false;
    }
}

static bool has_complex(const ir_op *op)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] && plumb_dtype_is_complex(op->operands[i]->type.dtype))
            return true;
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] && plumb_dtype_is_complex(op->results[i]->type.dtype))
            return true;
    return false;
}

bool ir_complex_kernel(const ir_op *op)
{
    return ir_complex_arith(op->code) && has_complex(op);
}

static bool same_shape(const ir_type *a, const ir_type *b)
{
    if (a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i] && a->dims[i] != PLUMB_DIM_DYN && b->dims[i] != PLUMB_DIM_DYN)
            return false;
    return true;
}

const char *ir_complex_check(const ir_op *op, char *buf, size_t n)
{
    const ir_type *r = op->n_results ? &op->results[0]->type : NULL;
    switch (op->code) {
    case PLUMB_OP_COMPLEX: {
        /* C1-C3: lhs and rhs of one type, f32 or f64; the result complex of it */
        const ir_type *l = &op->operands[0]->type, *rh = &op->operands[1]->type;
        plumb_dtype want;
        if (l->dtype != rh->dtype || !same_shape(l, rh))
            return "lhs and rhs must have the same type (spec C1)";
        if (!plumb_dtype_complex_of(l->dtype, &want)) {
            snprintf(buf, n, "operands must be f32 or f64, not %s (spec C1)", plumb_dtype_name(l->dtype));
            return buf;
        }
        if (r->dtype != want || !same_shape(l, r)) {
            snprintf(buf, n, "result must be %s of the operands' shape (spec C2, C3)", plumb_dtype_name(want));
            return buf;
        }
        return NULL;
    }
    case PLUMB_OP_REAL:
    case PLUMB_OP_IMAG: {
        /* C1: shape(result) = shape(operand); C2: element type is the
         * operand's component type (the operand's own for floats) */
        const ir_type *x = &op->operands[0]->type;
        if (!same_shape(x, r))
            return "result must have the operand's shape (spec C1)";
        if (r->dtype != plumb_dtype_component(x->dtype)) {
            snprintf(buf, n, "result element type must be %s, not %s (spec C2)",
                     plumb_dtype_name(plumb_dtype_component(x->dtype)), plumb_dtype_name(r->dtype));
            return buf;
        }
        return NULL;
    }
    default:
        break;
    }
    if (!has_complex(op))
        return NULL;
    switch (op->code) {
    case PLUMB_OP_ABS:
        /* abs of complex<fN> is fN */
        if (!same_shape(&op->operands[0]->type, r) ||
            r->dtype != plumb_dtype_component(op->operands[0]->type.dtype))
            return "the abs of a complex tensor is its component type, of the operand's shape";
        return NULL;
    case PLUMB_OP_COMPARE:
        /* EQ, NE, and LT, LE, GT, GE as the lexicographic order of (real,
         * imag) pairs (the spec's compare semantics); C3 gives complex
         * the comparison_type FLOAT (checked with the other types) */
        return NULL;
    case PLUMB_OP_CONVERT:
        /* any pair: complex -> real types converts the real part
         * (docs/spec/complex.md) */
        return NULL;
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_DOT: {
        /* a complex result needs complex (or real of its component type)
         * operands; plumb accumulates in the result's component type */
        plumb_dtype ct = plumb_dtype_component(r->dtype);
        if (!plumb_dtype_is_complex(r->dtype))
            return "a dot_general with a complex operand has a complex result";
        for (uint32_t i = 0; i < 2; i++) {
            plumb_dtype t = op->operands[i]->type.dtype;
            if (t != r->dtype && t != ct && !(plumb_dtype_is_float(t) && plumb_dtype_get(t)->bits <= plumb_dtype_get(ct)->bits)) {
                snprintf(buf, n, "operand %u of type %s does not fit the %s result", i,
                         plumb_dtype_name(t), plumb_dtype_name(r->dtype));
                return buf;
            }
        }
        return NULL;
    }
    default:
        return NULL;
    }
}
