/* The entries stablehlo.convolution (k_conv.c) calls: runtime/k_dot.c's
 * batched matrix product with dot_general's numerics, and k_cconv.c's
 * complex<f32> product. */
#ifndef PLUMB_RT_CONV_H
#define PLUMB_RT_CONV_H

#include <string.h>

#include "rt_internal.h"

/* c[g] = a[g] · b[g] for every g: a is [G, M, K], b [G, K, N] and c
 * [G, M, N], all row-major; element types as dot_general takes them (the
 * GEMM for floats, the blocked integer loops for integers and i1), results
 * as the reference's exact sum rounded once but for the documented
 * data-dependent bound. */
bool rt_dot_batched(rt_exec *x, const ir_op *op, const plumb_tensor *a, const plumb_tensor *b, plumb_tensor *c);

/* A rank-3 row-major view [d0, d1, d2] of t elements over data, as
 * rt_dot_batched takes its operands (nothing is copied or owned). */
static inline plumb_tensor rt_view3(plumb_dtype t, int64_t d0, int64_t d1, int64_t d2, void *data)
{
    plumb_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = t;
    v.rank = 3;
    v.dims[0] = d0;
    v.dims[1] = d1;
    v.dims[2] = d2;
    v.data = data;
    v.nbytes = (size_t)(d0 * d1 * d2) * plumb_dtype_size(t);
    return v;
}

/* k_cconv.c: C[g] = A[g] · B[g] on complex<f32> elements, A [G·M, K] the
 * im2col'd lhs (columns window-major: column wl·KI + ki), B [G, K, N] the
 * packed kernel, C [G·M, N]; each result component is the reference's
 * (ref/conv.c) bit for bit. */
bool rt_cconv_f32(rt_exec *x, const ir_op *op, const void *A, const void *B, void *C, int64_t G, int64_t M, int64_t K,
                  int64_t N, int64_t KI);

/* k_cconv_f64.c: the same product on complex<f64> elements (A [G·M, K],
 * B [G, K, N], C [G·M, N]); each result component is the reference's
 * exact sum rounded once to f64, bit for bit. */
bool rt_cconv_f64(rt_exec *x, const ir_op *op, const void *A, const void *B, void *C, int64_t G, int64_t M, int64_t K,
                  int64_t N);

/* One row of a complex kernel, interleaved (re, im) pairs of float (f64
 * false) or double elements, split into planar double rows br and bi of
 * np >= n elements, zero past n: the packing both complex products use. */
static inline void rt_cplanar_row(const void *src, bool f64, int64_t n, int64_t np, double *br, double *bi)
{
    if (f64) {
        const double *b = src;
        for (int64_t i = 0; i < n; i++) {
            br[i] = b[2 * i];
            bi[i] = b[2 * i + 1];
        }
    } else {
        const float *b = src;
        for (int64_t i = 0; i < n; i++) {
            br[i] = b[2 * i];
            bi[i] = b[2 * i + 1];
        }
    }
    for (int64_t i = n; i < np; i++)
        br[i] = bi[i] = 0.0;
}

#endif
