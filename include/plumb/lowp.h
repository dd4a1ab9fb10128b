/* Which ops run on the small float formats (FP8/FP6/FP4) and the sub-byte
 * integers (i2/i4/ui2/ui4), and which of them take their own kernels
 * (ref/lowp.c, runtime/k_lowp.c). docs/spec/types.md lists them. */
#ifndef PLUMB_LOWP_H
#define PLUMB_LOWP_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "ops.h"

struct ir_op;

/* Whether op takes element type t, one of the small types, as its primary
 * operand (the verifier's check; the rows of ir/ops.def keep these types
 * out of PLUMB_TY_FLOAT/INT/ALL so that generators and menus that iterate
 * the rows are not handed types they do not generate). */
bool ir_lowp_accepts(plumb_opcode op, plumb_dtype t);
/* An elementwise op, other than convert and bitcast_convert, with a small
 * type among its operands or results: the runtime runs it in
 * runtime/k_lowp.c, never in a fused group. */
bool ir_lowp_elementwise(const struct ir_op *op);

/* chlo.next_after and chlo.erf_inv on a small float format f, on stored
 * patterns (ir/lowp.c; docs/spec/types.md): the neighbour of x toward y
 * in f's value set, and erf^-1(x) correctly rounded in f. */
struct plumb_fpfmt;
uint32_t ir_lowp_next_after(const struct plumb_fpfmt *f, uint32_t x, uint32_t y);
uint32_t ir_lowp_erf_inv(const struct plumb_fpfmt *f, uint32_t x);
/* stablehlo.reduce_precision of pattern x of f to exponent_bits eb >= 1 and
 * mantissa_bits mb >= 0, back in f (ir/lowp.c; docs/spec/types.md). */
uint32_t ir_lowp_reduce_precision(const struct plumb_fpfmt *f, uint32_t x, int eb, int mb);

#endif
