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
/* The 256 values of small float type t as f32 (index: the stored byte),
 * built once; NULL for other types or when memory runs out. */
const float *rt_lowp_f32_table(plumb_dtype t);

#endif
