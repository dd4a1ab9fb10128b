/* stablehlo.dynamic_conv (docs/spec/conv.md, "dynamic_conv")
 *
 * Semantics: convolution (ref/conv.c) with padding[k] = (d_padding[k][0],
 * d_padding[k][1]) for spatial dimension k, read from operand 2 when the
 * op runs; every other attribute as written. A dynamic_conv is therefore a
 * convolution once its padding is known, and this kernel runs ref/conv.c's
 * kernel on the filled-in attributes: no second convolution exists to
 * disagree with the first.
 *
 * Types: as convolution; d_padding [rank - 2, 2] of any integer type.
 * Edge cases: negative padding removes elements, as convolution's does; a
 * padding whose result shape differs from the declared static result, or
 * whose size arithmetic overflows, is an error naming the op, the operand
 * or dimension and the values (ir_shape_infer), never a read out of
 * bounds; a ui64 value above 2^63 - 1 is refused.
 * Numerics: exactly convolution's (exact products, one rounding). */
#include <string.h>

#include "plumb/shape.h"
#include "ref_internal.h"

/* The message of a diagnostic about op without its leading "<op name>: ",
 * which ref_fail adds again. */
static const char *after_name(const ir_op *op, const plumb_diag *sd)
{
    const char *n = plumb_op_name(op->code);
    size_t k = strlen(n);
    if (!strncmp(sd->msg, n, k) && sd->msg[k] == ':' && sd->msg[k + 1] == ' ')
        return sd->msg + k + 2;
    return sd->msg;
}

bool ref_op_DYNAMIC_CONV(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *const *cin = (const plumb_tensor *const *)in;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    /* The whole run-time check: padding values, every convolution rule on
     * the actual sizes, the result against its declared type. Static
     * programs come here unchecked (ir_shape_infer checks dynamic_conv
     * even then), so the kernel runs it itself. */
    ir_type want;
    if (!ir_shape_infer(op, cin, &want, ref_max_bytes(c), &sd))
        return ref_fail(c, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", after_name(op, &sd));
    ir_shape_static *s = plumb_malloc(sizeof *s);
    if (!s)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory reading d_padding");
    bool ok = ir_shape_static_form(op, cin, s, &sd);
    if (!ok) {
        ref_fail(c, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", after_name(op, &sd));
        goto out_free;
    }
    const plumb_tensor *r = out[0];
    bool same = r->rank == s->result.rank;
    for (uint32_t i = 0; same && i < r->rank; i++)
        same = r->dims[i] == s->result.dims[i];
    if (!same) {
        ok = ref_fail(c, op, PLUMB_ERR_INVALID, "the result tensor's shape does not match the one d_padding gives");
        goto out_free;
    }
    ir_op tmp = *op;   /* keeps the op's name for any message */
    tmp.a = s->a;      /* a.conv points at s->conv: padding filled in */
    tmp.n_operands = s->n_operands;
    ok = ref_op_CONVOLUTION(c, &tmp, in, out);
out_free:
    plumb_free(s, sizeof *s);
    return ok;
}
