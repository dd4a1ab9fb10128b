/* stablehlo.sort and chlo.top_k (work in progress). */
#include "ref_internal.h"

bool ref_op_SORT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

bool ref_op_TOP_K(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in; (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}
