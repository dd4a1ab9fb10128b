/* stablehlo.composite on the compiled runtime (op set v2,
 * docs/spec/control.md): the runtime runs a composite through its
 * decomposition by inlining that function where the composite stands, as
 * it inlines every func.call (runtime/plan.c), before the passes, fusion
 * and the plan see the program; the cache key serializes the decomposition
 * as it does a callee (runtime/canon.c). So no compiled program holds a
 * composite op, and this kernel is reached only by a program built past
 * that step. */
#include "rt_internal.h"

bool rt_op_COMPOSITE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    (void)out;
    return rt_fail(x, op, PLUMB_ERR_INVALID,
                   "a composite must be inlined from its decomposition @%s before it runs; this program was not",
                   op->a.callee ? op->a.callee : "?");
}
