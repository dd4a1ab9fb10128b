/* Which ops take complex element types (docs/spec/complex.md). StableHLO
 * allows complex wherever its spec says "complex" or "tensor" without a
 * narrower element type; plumb lists here the ops whose reference and
 * runtime kernels handle it, and the verifier rejects complex elsewhere
 * with the usual "element type ... is not accepted" error. */
#include "plumb/complex.h"

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
    case PLUMB_OP_OPTIMIZATION_BARRIER:
    /* checks compare per component (ir/checkcmp.c) */
    case PLUMB_OP_EXPECT_EQ:
    case PLUMB_OP_EXPECT_EQ_CONST:
    case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST:
    case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        return true;
    default:
        return false;
    }
}
