/* The reference's complex kernels (ref/complex.c). */
#ifndef PLUMB_REF_COMPLEX_H
#define PLUMB_REF_COMPLEX_H

#include "ref_internal.h"

/* Runs op, for which ir_complex_kernel holds. */
bool ref_complex_run(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);

#endif
