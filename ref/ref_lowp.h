/* The reference's own kernels for small float formats (ref/lowp.c). */
#ifndef PLUMB_REF_LOWP_H
#define PLUMB_REF_LOWP_H

#include "ref_internal.h"

/* Whether op is one that ref_lowp_run computes (an elementwise op on a small
 * float format whose generic kernel assumes the IEEE bit layout). */
bool ref_lowp_owns(const ir_op *op);
bool ref_lowp_run(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);

#endif
