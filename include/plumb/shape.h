/* Concrete shapes at run time: what a `?` dimension deferred from the
 * verifier to execution. The reference, the runtime, the conformance
 * machinery and the CLI all decide a result's actual shape here, so that
 * every executor accepts and rejects the same programs with the same words.
 * docs/spec/interpreter.md ("Polymorphic shapes") states the rules. */
#ifndef PLUMB_SHAPE_H
#define PLUMB_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "ir.h"
#include "tensor.h"

/* Concrete result types of op for its operands' concrete tensors: in[i] has
 * op->operands[i]'s dtype and its actual dims; the data of shape operands
 * (output_dimensions, output_shape, start/limit/strides, paddings,
 * slice_sizes; dynamic_slice starts are NOT needed) is read. out[j] gets
 * op->results[j]'s dtype with every dim concrete (bounds PLUMB_NO_BOUND).
 * Checks everything a `?` deferred to run time: operands whose shapes the
 * op requires equal (elementwise, select, concatenate's other dims, dot's
 * contracting dims, ...) really are; each result dim equals the declared
 * static dim; a result dim declared `?` with a bound is within it;
 * shape-operand values are non-negative, do not overflow, and fit
 * (real_dynamic_slice limits within the operand, dynamic_reshape element
 * count equal); the result's byte size is within max_bytes (0 =
 * ir_max_bytes(0)). On failure false with d naming the op (name and
 * line:col; d->file is left to the caller, which knows the module), the
 * operand or result, the dimension and the values. Not for func.call and
 * the returns (their shapes come from the callee and the values):
 * PLUMB_ERR_USAGE.
 * An op whose declared operand and result types are all static gets its
 * declared result types back without any check: the verifier proved them,
 * and the caller guarantees that a value of a static type has exactly those
 * dims (executors do, by checking parameters with ir_shape_check_args and
 * every `?` result here). A caller that rewrites types (refinement) checks
 * such ops with ir_verify_op instead. */
bool ir_shape_infer(const ir_op *op, const plumb_tensor *const *in, ir_type *out,
                    uint64_t max_bytes, plumb_diag *d);

/* Checks tensor t, taken as result j of op at run time (the results of an
 * if or case are the tensors its branch returns, ref/interp.c), against
 * the declared result type: element type, rank, static dims equal, `?`
 * dims within their bound. */
bool ir_shape_check_result(const ir_op *op, uint32_t j, const plumb_tensor *t, plumb_diag *d);

/* Checks concrete arguments against f's parameter types: count, dtype,
 * rank, static dims equal, `?` dims within their bound. The error names the
 * parameter (index and %name), the dimension, the size and the bound
 * ("parameter 1 (%x) dimension 0: size 80 exceeds its bound 64"), with
 * PLUMB_ERR_USAGE: like every wrong input, the caller's mistake, not the
 * program's. d->file is left to the caller. */
bool ir_shape_check_args(const ir_func *f, const plumb_tensor *const *args, uint32_t n, plumb_diag *d);

/* The same check for argument i alone (i < f's parameter count). */
bool ir_shape_check_args_one(const ir_func *f, uint32_t i, const plumb_tensor *x, plumb_diag *d);

/* The static counterpart of a dynamic op for its actual operands: what the
 * op does once the values of its shape operands are known.
 *   dynamic_broadcast_in_dim -> broadcast_in_dim (operand)
 *   dynamic_reshape          -> reshape (operand)
 *   dynamic_iota             -> iota ()
 *   real_dynamic_slice       -> slice (operand) with start/limit/strides
 *   dynamic_pad              -> pad (operand, padding_value) with low/high/interior
 *   dynamic_gather           -> gather (operand, start_indices) with slice_sizes
 *   dynamic_conv             -> convolution (lhs, rhs) with padding = d_padding
 *                               (a.conv points at conv)
 * a is op->a with the lists taken from the shape operands (pointing into
 * buf, so an ir_shape_static must not be copied); n_operands counts the
 * leading operands the static op keeps; dims are the result's concrete dims
 * (rank = the declared result's). Shape-operand values are checked: length,
 * integer type, non-negative where a size is meant, int64 range, and
 * dynamic_broadcast_in_dim's known_(non)expanding hints. The relations the
 * static op's verifier rule checks (limits within the operand, element
 * counts, ...) are left to ir_shape_infer, which runs that rule. False for
 * any other op (PLUMB_ERR_USAGE) or a bad value (PLUMB_ERR_INVALID naming
 * the op, the operand, the element and the value). */
typedef struct ir_shape_static {
    plumb_opcode code;
    ir_attrs a;
    uint32_t n_operands;
    ir_type result;
    int64_t buf[3][PLUMB_MAX_RANK];
    ir_conv conv;    /* dynamic_conv: the op's attributes with the padding filled in */
} ir_shape_static;

bool ir_shape_static_form(const ir_op *op, const plumb_tensor *const *in, ir_shape_static *s,
                          plumb_diag *d);
/* True for the ops ir_shape_static_form rewrites. */
bool ir_shape_is_dynamic_op(plumb_opcode code);

/* shape_assertion's error_message with each `{k}` replaced by the decimal
 * value of operand k + 1 (JAX's convention), appended to b; a `{...}` that
 * is no such reference, or whose operand has no data, is kept as written. */
void ir_shape_assertion_message(const ir_op *op, const plumb_tensor *const *in, plumb_buf *b);

/* The concrete type of a tensor (bounds PLUMB_NO_BOUND). */
ir_type ir_shape_of(const plumb_tensor *t);

#endif
