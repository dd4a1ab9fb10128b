/* stablehlo.tuple and stablehlo.get_tuple_element on the compiled runtime
 * (op set v2, docs/spec/tuple.md): a tuple is just its elements.
 * plumb_runtime_compile lowers every tuple-typed value of a module to its
 * leaf tensors (ir_tuple_flatten) before the cache key, the passes and the
 * plan see the program, so a tuple costs no copy and no buffer, and no
 * compiled program holds either op. These kernels are reached only by a
 * program built past that step. */
#include "rt_internal.h"

bool rt_op_TUPLE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in, (void)out;
    return rt_fail(x, op, PLUMB_ERR_INVALID,
                   "a tuple must be lowered to its elements (ir_tuple_flatten) before it runs; this program was not");
}

bool rt_op_GET_TUPLE_ELEMENT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in, (void)out;
    return rt_fail(x, op, PLUMB_ERR_INVALID,
                   "get_tuple_element must be lowered to its tuple's elements (ir_tuple_flatten) before it runs; "
                   "this program was not");
}
