/* Reference kernels of the shape polymorphism rows of ir/ops.def
 * (docs/spec/dynamic.md): get_dimension_size, the dynamic_* ops and
 * shape_assertion. This first version only fails cleanly, so that programs
 * using these ops parse, verify and print while their kernels are written. */
#include "rt_internal.h"

#define NOT_YET(e)                                                                                   \
    bool rt_op_##e(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out) \
    {                                                                                                \
        (void)in;                                                                                    \
        (void)out;                                                                                   \
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "unsupported: not implemented in this build");  \
    }

NOT_YET(GET_DIMENSION_SIZE)
NOT_YET(DYNAMIC_BROADCAST_IN_DIM)
NOT_YET(DYNAMIC_RESHAPE)
NOT_YET(DYNAMIC_IOTA)
NOT_YET(REAL_DYNAMIC_SLICE)
NOT_YET(DYNAMIC_PAD)
NOT_YET(DYNAMIC_GATHER)
NOT_YET(SHAPE_ASSERTION)
