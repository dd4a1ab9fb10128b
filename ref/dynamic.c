/* Reference kernels of the shape polymorphism rows of ir/ops.def:
 * get_dimension_size, the dynamic_* ops and shape_assertion.
 *
 * A dynamic op is its static counterpart once the values of its shape
 * operands are known, so each kernel reads them (ir_shape_static_form: the
 * same reading ir_shape_infer used to size the result) and runs the static
 * kernel with the filled-in attributes. No second implementation of slicing,
 * padding or gathering exists to disagree with the first.
 *
 * When a kernel runs, the interpreter has already called ir_shape_infer on
 * the same operands: the result tensors have their concrete shapes and every
 * run-time relation (limits within the operand, equal element counts,
 * non-negative sizes, bounds) has been checked. The kernels still check what
 * they index with, through the static kernels, so that a caller dispatching
 * through the table cannot make them read or write out of bounds. */
#include <stdio.h>
#include <string.h>

#include "plumb/shape.h"
#include "ref_internal.h"

/* The message of a diagnostic about op without its leading "<op name>: ",
 * which ref_fail adds again. */
static const char *msg_after_name(const ir_op *op, const plumb_diag *sd)
{
    const char *n = plumb_op_name(op->code);
    size_t k = strlen(n);
    if (!strncmp(sd->msg, n, k) && sd->msg[k] == ':' && sd->msg[k + 1] == ' ')
        return sd->msg + k + 2;
    return sd->msg;
}

/* Runs op as its static counterpart: fn is that op's kernel. */
static bool run_static(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                       ref_kernel_fn fn)
{
    ir_shape_static *s = plumb_malloc(sizeof *s);
    if (!s)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory reading the shape operands");
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    bool ok = ir_shape_static_form(op, (const plumb_tensor *const *)in, s, &sd);
    if (!ok) {
        ref_fail(c, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", msg_after_name(op, &sd));
    } else {
        /* The result must have the shape the operands describe: the
         * interpreter sized it so, a direct caller might not have. */
        const plumb_tensor *r = out[0];
        bool same = r->rank == s->result.rank;
        for (uint32_t i = 0; same && i < r->rank; i++)
            same = r->dims[i] == s->result.dims[i];
        if (!same) {
            ok = ref_fail(c, op, PLUMB_ERR_INVALID,
                          "the result tensor's shape does not match the one its shape operands give");
        } else {
            ir_op tmp = *op;
            tmp.code = s->code;
            tmp.a = s->a;
            tmp.n_operands = s->n_operands;
            ok = fn(c, &tmp, in, out);
        }
    }
    plumb_free(s, sizeof *s);
    return ok;
}

/* get_dimension_size: the size of operand dimension `dimension`, as a
 * tensor<i32>.
 * Types: any operand; the result is i32.
 * Edge cases: a dimension of size 0 gives 0; a size above 2^31 - 1 cannot
 * be represented and is an error (ir_shape_infer raises it first). */
bool ref_op_GET_DIMENSION_SIZE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    int64_t k = op->a.dimension;
    if (k < 0 || k >= (int64_t)in[0]->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "dimension = %lld is out of range for operand rank %u",
                        (long long)k, in[0]->rank);
    int64_t n = in[0]->dims[k];
    if (n > INT32_MAX)
        return ref_fail(c, op, PLUMB_ERR_INVALID,
                        "operand dimension %lld has size %lld, which does not fit the i32 result", (long long)k,
                        (long long)n);
    if (out[0]->dtype != PLUMB_I32 || out[0]->rank != 0)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the result must be a tensor<i32>");
    plumb_store_bits(PLUMB_I32, out[0]->data, 0, (uint64_t)(uint32_t)(int32_t)n);
    return true;
}

/* dynamic_broadcast_in_dim: broadcast_in_dim to the shape given by the
 * values of output_dimensions: result[ri] = operand[oi] with oi[d] = 0 when
 * operand dimension d has size 1 and ri[broadcast_dimensions[d]] otherwise.
 * Types: any element type, unchanged; output_dimensions any integer type.
 * Edge cases: an operand dimension of size 1 expands to any size, 0
 * included; any other size must equal its output dimension; a dimension
 * named in known_expanding_dimensions must have size 1 and one in
 * known_nonexpanding_dimensions its output size (broken hints are errors,
 * not undefined behaviour); negative sizes are errors. */
bool ref_op_DYNAMIC_BROADCAST_IN_DIM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_BROADCAST_IN_DIM);
}

/* dynamic_reshape: reshape to the shape given by the values of
 * output_shape; elements keep their row-major order.
 * Types: any element type, unchanged; output_shape any integer type.
 * Edge cases: the operand's element count must equal the product of
 * output_shape (checked without overflow); negative sizes are errors; zero
 * elements reshape to any shape with a 0. */
bool ref_op_DYNAMIC_RESHAPE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_RESHAPE);
}

/* dynamic_iota: iota of the shape given by the values of output_shape:
 * result[i] = i[iota_dimension], converted to the element type as iota
 * does (integers wrap modulo 2^bits, floats round to nearest even).
 * Types: integer and float results; output_shape any integer type.
 * Edge cases: sizes of 0 give an empty result; negative sizes are errors. */
bool ref_op_DYNAMIC_IOTA(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_IOTA);
}

/* real_dynamic_slice: slice with start_indices, limit_indices and strides
 * taken from its operands: result[ri] = operand[start + ri * stride], with
 * ceil((limit - start) / stride) elements per dimension.
 * Types: any element type, unchanged; the index operands any integer type.
 * Edge cases: 0 <= start <= limit <= the operand's size and stride >= 1,
 * each an error naming the dimension otherwise (never clamped, unlike
 * dynamic_slice); start == limit gives an empty dimension. */
bool ref_op_REAL_DYNAMIC_SLICE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_SLICE);
}

/* dynamic_pad: pad with edge_padding_low, edge_padding_high and
 * interior_padding taken from its operands: interior elements between
 * neighbours, then low/high elements at the edges, all padding_value.
 * Types: any element type (padding_value the same); the padding operands
 * any integer type.
 * Edge cases: negative low/high remove elements from the edge, as pad
 * does; interior must not be negative; a result size below 0 is an error. */
bool ref_op_DYNAMIC_PAD(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_PAD);
}

/* dynamic_gather: gather with slice_sizes taken from its third operand;
 * every other attribute as gather (start indices clamped so that each slice
 * lies within the operand).
 * Types: as gather; slice_sizes any integer type.
 * Edge cases: slice_sizes[d] within [0, operand size], at most 1 on
 * collapsed and batching dimensions; negative sizes are errors. */
bool ref_op_DYNAMIC_GATHER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    return run_static(c, op, in, out, ref_op_GATHER);
}

/* custom_call @shape_assertion(%pred, %v...): when pred is false the run
 * fails with the program's error_message, each `{k}` replaced by the
 * decimal value of operand k + 1 (JAX's convention for reporting the
 * offending sizes). A program assertion, not a test check: it never counts
 * in checks_run or checks_failed.
 * Types: pred tensor<i1>, the values integer scalars (signed or unsigned).
 * Edge cases: `{` not followed by digits and `}` is copied as written. */
bool ref_op_SHAPE_ASSERTION(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    if (op->n_operands < 1 || in[0]->dtype != PLUMB_I1 || in[0]->rank != 0)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the predicate must be a tensor<i1>");
    if (plumb_load_bits(PLUMB_I1, in[0]->data, 0) & 1)
        return true;
    plumb_buf b;
    plumb_buf_init(&b);
    ir_shape_assertion_message(op, (const plumb_tensor *const *)in, &b);
    ref_fail(c, op, PLUMB_ERR_RUNTIME, "shape assertion failed: %s",
             b.data && !b.failed ? b.data : "(the message could not be built: out of memory)");
    plumb_buf_free(&b);
    return false;
}
