/* Block-at-a-time form of the deterministic float row sum (k_reduce.c), for
 * callers that produce the summed terms themselves (a fused row group
 * squaring values while it computes them) and must get the bits
 * rt_sum_f32 would give on the stored terms. */
#ifndef PLUMB_RT_SUM_H
#define PLUMB_RT_SUM_H

#include <stddef.h>

/* Element i of a block goes to double lane i % RT_SUM_LANES. */
#define RT_SUM_LANES 32
#define RT_SUM_BLOCK 2048

/* Sums the terms of elements [start, start + n) of the row, n <= RT_SUM_BLOCK,
 * start a multiple of RT_SUM_BLOCK: lanes start at -0.0, element i is added
 * to lane i % RT_SUM_LANES in increasing i, and the lanes are folded with
 * rt_sum_fold_lanes. */
typedef double (*rt_sum_block_fn)(void *ctx, size_t start, size_t n);

/* Folds RT_SUM_LANES lane sums (overwritten) as the row sum does. */
double rt_sum_fold_lanes(double *lanes);
/* The row sum of n terms from per-block sums, folded in the tree rt_sum_f32
 * uses; -0.0 when n == 0. Every block is computed exactly once. */
double rt_sum_blocks(rt_sum_block_fn block, void *ctx, size_t n);

#endif
