/* dot_general's `algorithm` attribute (StableHLO DotAlgorithm): the types
 * it names, the rounding of an operand to a precision type, the list of
 * algorithms StableHLO's verifier knows, and the split-precision emulation
 * bound (docs/spec/dotalg.md). One module for the parser, printer,
 * verifier, reference, runtime and checker. */
#ifndef PLUMB_DOTALG_H
#define PLUMB_DOTALG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* A precision or accumulation type is a float plumb_dtype or
 * IR_DOTALG_TF32. Its spelling ("tf32", "bf16", "f8E4M3FN", ...), or "?"
 * for anything else. */
const char *ir_dotalg_type_name(int t);
/* Parses a spelling of exactly n bytes: a float element type or tf32
 * (StableHLO I8-I10: FloatType or TensorFloat32). */
bool ir_dotalg_type_parse(const char *s, size_t n, int *out);
/* The unit roundoff 2^-p of the type (p significand bits, hidden bit
 * included): tf32 2^-11, bf16 2^-8, f32 2^-24, f8E4M3FN 2^-4, ... */
double ir_dotalg_unit_roundoff(int t);
/* x rounded once to the type, to nearest with ties to even, as
 * stablehlo.convert rounds (overflow to infinity, or NaN for the formats
 * without one); NaN stays NaN. tf32 has f32's exponent range and 10
 * fraction bits. */
double ir_dotalg_round(int t, double x);

/* Whether the combination is one StableHLO's verifier accepts
 * (isKnownDotAlgorithm): both precision types any FP8 format with f32
 * accumulation and one primitive operation (imprecise accumulation
 * allowed), or one of f16/f16/f16, f16/f16/f32, bf16/bf16/bf16,
 * bf16/bf16/f32 (1, 3 or 6 operations), tf32/tf32/f32 (1 or 3),
 * f32/f32/f32, f64/f64/f64; component counts 1. */
bool ir_dotalg_known(const ir_dot_algorithm *a);
/* The verifier's description of a: "{lhs:'f32', rhs:'f32', accum:'f32',
 * lhs_components:3, rhs_components:1, primitive_ops:1, imprecise:0}". */
void ir_dotalg_describe(const ir_dot_algorithm *a, char *out, size_t cap);

/* The number of components k each operand is split into: the algorithm
 * does k(k+1)/2 primitive dots (1 -> 1, 3 -> 2: bf16/tf32 x3, 6 -> 3:
 * bf16 x6), else 0. */
uint32_t ir_dotalg_split(const ir_dot_algorithm *a);
/* The relative error of one emulated product for a split of k >= 2
 * components (docs/spec/dotalg.md): |a·b - Σ_{i+j<=k+1} a_i·b_j| <=
 * eps·|a·b|; 0 for k <= 1. */
double ir_dotalg_split_eps(const ir_dot_algorithm *a);

/* Whether op is a dot_general whose algorithm rounds each operand to its
 * precision type before the products: an algorithm is present, the result
 * is a float type and the split has one component. (Integer dots are
 * exact integer arithmetic, which the precision types do not describe;
 * split algorithms emulate the operands' own precision.) */
bool ir_dotalg_rounds_operands(const ir_op *op);
/* Whether op is a dot_general with an algorithm and a float result: the
 * checker's bound takes the accumulation type from it. */
bool ir_dotalg_applies(const ir_op *op);

#endif
