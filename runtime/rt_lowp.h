/* The runtime's kernels on the small types (runtime/k_lowp.c). */
#ifndef PLUMB_RT_LOWP_H
#define PLUMB_RT_LOWP_H

#include "rt_internal.h"

/* Runs op, for which ir_lowp_elementwise holds. */
bool rt_lowp_run(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);
/* One table entry: op c on the pattern(s) of small type t (compare: with
 * comparison type ty and direction d). For tests. */
uint32_t rt_lowp_scalar1(plumb_opcode c, plumb_dtype t, uint32_t x);
uint32_t rt_lowp_scalar2(plumb_opcode c, ir_cmp_type ty, ir_cmp_dir d, plumb_dtype t, uint32_t a, uint32_t b);
/* The table of binary op c (not compare) on sub-byte or small float type
 * t, index (a << bits) | b, built once; NULL when memory runs out. */
const uint8_t *rt_lowp_table2(plumb_opcode c, plumb_dtype t);
/* stablehlo.reduce with one input of a small type and a recognised body
 * (one op of its two arguments: add, multiply, maximum, minimum; and, or,
 * xor on the integers) over the dimensions marked in red
 * (runtime/k_lowp_reduce.c). */
bool rt_lowp_reduce(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red);
/* stablehlo.reduce_window likewise, over the windows of g. */
struct ir_window;
bool rt_lowp_reduce_window(rt_exec *x, const ir_op *op, const struct ir_window *g, plumb_tensor *const *in,
                           plumb_tensor *const *out);
/* C[m x n] = A[m x k] * B[k x n] in f32 (runtime/k_gemm.c) with A and B
 * one byte per element, widened through the tables ta and tb
 * (rt_lowp_f32_table) while the GEMM packs them: the f32 GEMM's panels,
 * kernels and order, without an f32 copy of either operand. */
void rt_gemm_f8(rt_exec *x, size_t m, size_t n, size_t k, const uint8_t *a, size_t lda, const float *ta,
                const uint8_t *b, size_t ldb, const float *tb, float *c, size_t ldc);
/* The 256 values of small float type t as f32 (index: the stored byte),
 * built once; NULL for other types or when memory runs out. */
const float *rt_lowp_f32_table(plumb_dtype t);

#endif
