/* Float column sums of one row block in strips of columns, each row of a
 * strip read in one run (runtime/k_colsum.c), for k_reduce.c's column
 * paths. */
#ifndef PLUMB_RT_COLSUM_H
#define PLUMB_RT_COLSUM_H

#include <stdbool.h>
#include <stdint.h>

/* out[j], j < inner: the sum of column j of rows rows (1 <= rows <=
 * RT_SUM_BLOCK) whose first elements are stride elements apart, f32 or f64
 * (f64 true), in the documented order of a column sum (rt_sum.h: row r to
 * lane r % RT_SUM_LANES, lanes from -0 in increasing r, folded by halving),
 * at vector level lv (PLUMB_ISA_AVX2 or PLUMB_ISA_AVX512, already capped by
 * the CPU). Returns false, writing nothing, when lv has no such loop. */
bool rt_colsum_block(bool f64, const void *base, uint64_t rows, uint64_t stride, uint64_t inner, double *out,
                     int lv);

#endif
