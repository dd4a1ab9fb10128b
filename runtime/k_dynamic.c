/* Runtime kernels of the shape polymorphism rows of ir/ops.def
 * (docs/spec/dynamic.md): get_dimension_size, the dynamic_* ops and
 * shape_assertion.
 *
 * A dynamic op is its static counterpart once the values of its shape
 * operands are known: ir_shape_static_form reads them (the same reading
 * ir_shape_infer used to size the result before the step ran) and the
 * static op's kernel runs with the filled-in attributes, so slicing,
 * padding, gathering and broadcasting each have one implementation here as
 * in the reference. The static kernels check what they index with, so a
 * caller dispatching through the table cannot make them read or write out
 * of bounds. */
#include <stdio.h>
#include <string.h>

#include "plumb/shape.h"
#include "rt_internal.h"

/* The message of a diagnostic about op without its leading "<op name>: ",
 * which rt_fail adds again. */
static const char *msg_after_name(const ir_op *op, const plumb_diag *sd)
{
    const char *n = plumb_op_name(op->code);
    size_t k = strlen(n);
    if (!strncmp(sd->msg, n, k) && sd->msg[k] == ':' && sd->msg[k + 1] == ' ')
        return sd->msg + k + 2;
    return sd->msg;
}

/* Runs op as its static counterpart, whose kernel is fn. */
static bool run_static(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                       rt_kernel_fn fn)
{
    ir_shape_static s;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!ir_shape_static_form(op, (const plumb_tensor *const *)in, &s, &sd))
        return rt_fail(x, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", msg_after_name(op, &sd));
    /* The result must have the shape the operands describe (the run sized
     * it so; a direct caller might not have). */
    const plumb_tensor *r = out[0];
    bool same = r->rank == s.result.rank;
    for (uint32_t i = 0; same && i < r->rank; i++)
        same = r->dims[i] == s.result.dims[i];
    if (!same)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the result tensor's shape does not match the one its shape operands give");
    ir_op tmp = *op;
    tmp.code = s.code;
    tmp.a = s.a;
    tmp.n_operands = s.n_operands;
    return fn(x, &tmp, in, out);
}

/* The size of operand dimension `dimension` as a tensor<i32>. */
bool rt_op_GET_DIMENSION_SIZE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    int64_t k = op->a.dimension;
    if (k < 0 || k >= (int64_t)in[0]->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "dimension = %lld is out of range for operand rank %u", (long long)k,
                       in[0]->rank);
    int64_t n = in[0]->dims[k];
    if (n > INT32_MAX)
        return rt_fail(x, op, PLUMB_ERR_INVALID,
                       "operand dimension %lld has size %lld, which does not fit the i32 result", (long long)k,
                       (long long)n);
    if (out[0]->dtype != PLUMB_I32 || out[0]->rank != 0 || out[0]->nbytes != 4)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the result must be a tensor<i32>");
    plumb_store_bits(PLUMB_I32, out[0]->data, 0, (uint64_t)(uint32_t)(int32_t)n);
    return true;
}

bool rt_op_DYNAMIC_BROADCAST_IN_DIM(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_BROADCAST_IN_DIM);
}

bool rt_op_DYNAMIC_RESHAPE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_RESHAPE);
}

bool rt_op_DYNAMIC_IOTA(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_IOTA);
}

bool rt_op_REAL_DYNAMIC_SLICE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_SLICE);
}

bool rt_op_DYNAMIC_PAD(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_PAD);
}

bool rt_op_DYNAMIC_GATHER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(x, op, in, out, rt_op_GATHER);
}

/* custom_call @shape_assertion(%pred, %v...): a false pred fails the run
 * with the program's error_message, each `{k}` replaced by operand k + 1's
 * value (ir_shape_assertion_message, the reference's words). A program
 * assertion, never counted as a check. */
bool rt_op_SHAPE_ASSERTION(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    if (op->n_operands < 1 || in[0]->dtype != PLUMB_I1 || in[0]->rank != 0 || !in[0]->data)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the predicate must be a tensor<i1>");
    if (plumb_load_bits(PLUMB_I1, in[0]->data, 0) & 1)
        return true;
    plumb_buf b;
    plumb_buf_init(&b);
    ir_shape_assertion_message(op, (const plumb_tensor *const *)in, &b);
    rt_fail(x, op, PLUMB_ERR_RUNTIME, "shape assertion failed: %s",
            b.data && !b.failed ? b.data : "(the message could not be built: out of memory)");
    plumb_buf_free(&b);
    return false;
}
