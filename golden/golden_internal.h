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

/* Entries with attributes (docs/golden.md, "The manifest"). Whether attr
 * (possibly "") is what op in type t needs: compare a direction EQ NE LT
 * LE GT GE, optionally with "_TOTALORDER"; convert another golden float
 * type; reduce_precision "eEmM" (E 1..11, M 0..52); reduce "" (add),
 * "maximum" or "minimum"; dot_general "", "contract0" or "nobatch"; every
 * other op "". False with why (a sentence) set otherwise. */
bool golden_attr_ok(plumb_opcode op, plumb_dtype t, const char *attr, char *why, size_t cap);
/* Element type of input k (select's predicate is i1) and of the result
 * (i1 for compare and is_finite, convert's target, else t). */
plumb_dtype golden_in_dtype(plumb_opcode op, plumb_dtype t, uint32_t k);
plumb_dtype golden_out_dtype(plumb_opcode op, plumb_dtype t, const char *attr);
/* Bytes per stored element: the wider of the input and result types. */
uint32_t golden_elem_bytes(plumb_opcode op, plumb_dtype t, const char *attr);
/* Whether a sum entry's body picks an element (maximum, minimum): exact. */
bool golden_sum_exact(const char *attr);

#endif
