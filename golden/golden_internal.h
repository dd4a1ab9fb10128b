/* Internal interface of golden/: shared by the format, the generator and
 * the checker. */
#ifndef PLUMB_GOLDEN_INTERNAL_H
#define PLUMB_GOLDEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/golden.h"

/* Longest sum or dot a manifest may ask for (terms per record). */
#define GOLDEN_MAX_LENGTH 256u

/* Arity of a float elementwise op that has goldens (1 or 2), else 0. */
uint32_t golden_ew_arity(plumb_opcode op);
/* Whether t is one of the golden formats: f16, bf16, f32, f64. */
bool golden_format_known(plumb_dtype t);
/* Whether op's results must match bit for bit (the op table's exact class). */
bool golden_op_exact(plumb_opcode op);

uint32_t golden_rd32(const uint8_t *p);
void golden_wr32(uint8_t *p, uint32_t v);
bool golden_op_supported(plumb_opcode op, plumb_golden_kind *kind);

#endif
