/* stablehlo.tuple and stablehlo.get_tuple_element on the reference (op set
 * v2, docs/spec/tuple.md).
 *
 * tuple: "Produces a result tuple from values val." result =
 * (val[0], ..., val[n-1]); the values may be tensors or tuples, and there
 * may be none (tuple<>). get_tuple_element: "Extracts element at index
 * position of the operand tuple and produces a result." result =
 * operand[index]. Types: any element type, any nesting. Edge cases: the
 * empty tuple, a tuple holding tuples, empty tensors as elements.
 *
 * Neither op computes a value, so the reference gives a tuple no storage
 * of its own: plumb_ref_run evaluates ir_tuple_flatten's copy of the
 * module, in which a tuple value is its leaf tensors (depth first, left to
 * right) and get_tuple_element(t, i) is t's leaves for element i, the same
 * tensors, not copies. That copy holds neither op, so these kernels are
 * reached only by a caller that dispatches them one by one (ref_fold_op,
 * refinement's constant folding), which has no value for a tuple to hand
 * them: they say so instead of guessing. */
#include "ref_internal.h"

bool ref_op_TUPLE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in, (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED,
                    "a tuple has no tensor of its own to fold; run the module (plumb_ref_run lowers tuples to "
                    "their elements)");
}

bool ref_op_GET_TUPLE_ELEMENT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in, (void)out;
    return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED,
                    "get_tuple_element reads a tuple, which has no tensor of its own to fold; run the module "
                    "(plumb_ref_run lowers tuples to their elements)");
}
