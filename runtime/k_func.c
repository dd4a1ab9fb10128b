/* func.call, func.return and stablehlo.return. The pipeline inlines calls
 * and handles returns itself (function results, region results), so these
 * kernels exist only for the dispatch table generated from ir/ops.def;
 * reaching one means the pipeline left an op it should have consumed. */
#include "rt_internal.h"

bool rt_op_CALL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    (void)out;
    return rt_fail(x, op, PLUMB_ERR_RUNTIME,
                   "call of @%s reached the kernel dispatcher; calls are inlined when the program is compiled",
                   op->a.callee ? op->a.callee : "?");
}

bool rt_op_FUNC_RETURN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    (void)out;
    return rt_fail(x, op, PLUMB_ERR_RUNTIME,
                   "func.return reached the kernel dispatcher; the executor takes function results itself");
}

bool rt_op_RETURN(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    (void)out;
    return rt_fail(x, op, PLUMB_ERR_RUNTIME,
                   "stablehlo.return reached the kernel dispatcher; region results are taken by the op that owns the region");
}
