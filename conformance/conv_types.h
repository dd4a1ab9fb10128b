/* Convolution and dynamic_conv on complex<f32>/complex<f64>, the FP8/FP6/FP4
 * formats and i2/i4/ui2/ui4 (docs/spec/conv.md, "Element types"): the
 * family's plan and values (conformance/gen_conv_types.c); gen.c writes the
 * programs (gen_conv, gen_dynconv) and manifest.c counts the cases. */
#ifndef PLUMB_CONF_CONV_TYPES_H
#define PLUMB_CONF_CONV_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "plumb/ops.h"
#include "plumb/tensor.h"

/* The family's value classes for element type t (NULL, *n = 0 for the
 * types other families cover). */
const char *const *conf_conv_types_values(plumb_dtype t, uint32_t *n);
/* Its shape classes for op (convolution or dynamic_conv) and type t. */
const char *const *conf_conv_types_shapes(plumb_opcode op, plumb_dtype t, uint32_t *n);
/* The number of cases the family adds to op (the same in both suites). */
uint32_t conf_conv_types_cases(plumb_opcode op);
/* Fills x (an lhs or kernel of type t) for value class vc; false if vc is
 * not one of the family's classes for x's type. */
bool conf_conv_types_fill(const char *vc, plumb_tensor *x, gsl_rng *rng);

#endif
