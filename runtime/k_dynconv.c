/* stablehlo.dynamic_conv on the runtime (docs/spec/conv.md,
 * "dynamic_conv"): convolution with its padding read from operand 2 when
 * the op runs. The padding is a value, so it never enters the cache key:
 * one compiled program serves every padding (runtime/canon.c keys the other
 * attributes as convolution's). Once the padding is known the op is a
 * convolution, run by k_conv.c's kernel on the filled-in attributes; the
 * run-time check (ir_shape_infer: padding values, every convolution rule on
 * the actual sizes, the result against its declared type) runs here too,
 * since a program whose types are all static is never shape-checked op by
 * op. */
#include <string.h>

#include "plumb/shape.h"
#include "rt_internal.h"
#include "rt_pipeline.h"

/* The message of a diagnostic about op without its leading "<op name>: ",
 * which rt_fail adds again. */
static const char *after_name(const ir_op *op, const plumb_diag *sd)
{
    const char *n = plumb_op_name(op->code);
    size_t k = strlen(n);
    if (!strncmp(sd->msg, n, k) && sd->msg[k] == ':' && sd->msg[k + 1] == ' ')
        return sd->msg + k + 2;
    return sd->msg;
}

bool rt_op_DYNAMIC_CONV(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *const *cin = (const plumb_tensor *const *)in;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    ir_type want;
    if (!ir_shape_infer(op, cin, &want, x->max_bytes, &sd))
        return rt_fail(x, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", after_name(op, &sd));
    ir_shape_static s;
    if (!ir_shape_static_form(op, cin, &s, &sd))
        return rt_fail(x, op, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, "%s", after_name(op, &sd));
    const plumb_tensor *r = out[0];
    bool same = r->rank == s.result.rank;
    for (uint32_t i = 0; same && i < r->rank; i++)
        same = r->dims[i] == s.result.dims[i];
    if (!same)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the result tensor's shape does not match the one d_padding gives");
    ir_op tmp = *op;   /* keeps the op's name for any message */
    tmp.a = s.a;       /* a.conv points at s.conv: padding filled in */
    tmp.n_operands = s.n_operands;
    return rt_op_CONVOLUTION(x, &tmp, in, out);
}
