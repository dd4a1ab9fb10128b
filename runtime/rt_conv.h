/* The one entry of runtime/k_dot.c that stablehlo.convolution (k_conv.c)
 * calls: a batched matrix product with dot_general's numerics. */
#ifndef PLUMB_RT_CONV_H
#define PLUMB_RT_CONV_H

#include "rt_internal.h"

/* c[g] = a[g] · b[g] for every g: a is [G, M, K], b [G, K, N] and c
 * [G, M, N], all row-major; element types as dot_general takes them (the
 * GEMM for floats, the blocked integer loops for integers and i1), results
 * as the reference's exact sum rounded once but for the documented
 * data-dependent bound. */
bool rt_dot_batched(rt_exec *x, const ir_op *op, const plumb_tensor *a, const plumb_tensor *b, plumb_tensor *c);

#endif
