/* The runtime's complex kernels (runtime/k_complex.c). */
#ifndef PLUMB_RT_COMPLEX_H
#define PLUMB_RT_COMPLEX_H

#include "rt_internal.h"

/* Runs op, for which ir_complex_kernel holds. */
bool rt_complex_run(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);

#endif
