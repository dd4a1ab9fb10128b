/* The op table of op set v1, generated from ir/ops.def. */
#ifndef PLUMB_OPS_H
#define PLUMB_OPS_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"

#define PLUMB_VAR (-1)   /* variadic operand or result count */

typedef enum plumb_kind {
    PLUMB_KIND_ELEMENTWISE,
    PLUMB_KIND_MOVEMENT,
    PLUMB_KIND_REDUCTION,
    PLUMB_KIND_CONTRACTION,
    PLUMB_KIND_INDEXING,
    PLUMB_KIND_RNG,
    PLUMB_KIND_FUNC,
    PLUMB_KIND_CHECK,
} plumb_kind;

/* Element-type masks: bit (1 << dtype). */
#define PLUMB_TY_BIT(t)  (1u << (t))
#define PLUMB_TY_BOOL    PLUMB_TY_BIT(PLUMB_I1)
#define PLUMB_TY_SINT    (PLUMB_TY_BIT(PLUMB_I8) | PLUMB_TY_BIT(PLUMB_I16) | PLUMB_TY_BIT(PLUMB_I32) | PLUMB_TY_BIT(PLUMB_I64))
#define PLUMB_TY_UINT    (PLUMB_TY_BIT(PLUMB_UI8) | PLUMB_TY_BIT(PLUMB_UI16) | PLUMB_TY_BIT(PLUMB_UI32) | PLUMB_TY_BIT(PLUMB_UI64))
#define PLUMB_TY_INT     (PLUMB_TY_SINT | PLUMB_TY_UINT)
#define PLUMB_TY_FLOAT   (PLUMB_TY_BIT(PLUMB_F16) | PLUMB_TY_BIT(PLUMB_BF16) | PLUMB_TY_BIT(PLUMB_F32) | PLUMB_TY_BIT(PLUMB_F64))
#define PLUMB_TY_ALL     (PLUMB_TY_BOOL | PLUMB_TY_INT | PLUMB_TY_FLOAT)
/* Complex is kept out of PLUMB_TY_FLOAT and PLUMB_TY_ALL: an op accepts it
 * only where its row names it (docs/spec/complex.md). */
#define PLUMB_TY_COMPLEX (PLUMB_TY_BIT(PLUMB_C64) | PLUMB_TY_BIT(PLUMB_C128))
/* The small float formats and the sub-byte integers are kept out of
 * PLUMB_TY_FLOAT, PLUMB_TY_INT and PLUMB_TY_ALL the same way: an op accepts
 * them only where its row names them (docs/spec/types.md). */
#define PLUMB_TY_FLOAT8  (PLUMB_TY_BIT(PLUMB_F8E4M3FN) | PLUMB_TY_BIT(PLUMB_F8E5M2) | PLUMB_TY_BIT(PLUMB_F8E4M3FNUZ) | \
                          PLUMB_TY_BIT(PLUMB_F8E5M2FNUZ) | PLUMB_TY_BIT(PLUMB_F8E4M3B11FNUZ) | PLUMB_TY_BIT(PLUMB_F8E3M4) | \
                          PLUMB_TY_BIT(PLUMB_F8E4M3) | PLUMB_TY_BIT(PLUMB_F8E8M0FNU) | PLUMB_TY_BIT(PLUMB_F6E2M3FN) | \
                          PLUMB_TY_BIT(PLUMB_F6E3M2FN) | PLUMB_TY_BIT(PLUMB_F4E2M1FN))
#define PLUMB_TY_SUBINT  (PLUMB_TY_BIT(PLUMB_I2) | PLUMB_TY_BIT(PLUMB_I4) | PLUMB_TY_BIT(PLUMB_UI2) | PLUMB_TY_BIT(PLUMB_UI4))
#define PLUMB_TY_LOWP    (PLUMB_TY_FLOAT8 | PLUMB_TY_SUBINT)
static_assert(PLUMB_DTYPE_COUNT <= 32, "PLUMB_TY_* masks are 32 bits: one bit per element type");

typedef enum plumb_agree {
    PLUMB_AGREE_EXACT,   /* bit-identical (NaNs equal unless the op only moves data) */
    PLUMB_AGREE_ULP,     /* within n ULP of the correctly rounded result */
    PLUMB_AGREE_DATA,    /* data-dependent bound (reductions, dots) */
} plumb_agree;

typedef enum plumb_syntax {
    PLUMB_SYN_EW,
    PLUMB_SYN_SPECIAL,
    PLUMB_SYN_GENERIC,
} plumb_syntax;

typedef enum plumb_opcode {
#define OP(e, name, arity, nres, kind, types, agree, ulp, ulph, syn) PLUMB_OP_##e,
#include "../../ir/ops.def"
#undef OP
    PLUMB_OP_COUNT
} plumb_opcode;

/* Trips when ir/ops.def gains or loses a row: every hand-written switch over
 * opcodes (verifier rules, reference kernels, runtime lowering) must be
 * revisited, and this count updated with them. */
static_assert(PLUMB_OP_COUNT == 127, "ir/ops.def changed: revisit every per-op table, then update this count");

/* The opcode whose kernels compute op c: chlo.tan is stablehlo.tan under its
 * CHLO name, so the runtime's engines, which key their math, error bounds and
 * vector tables on the opcode, run it as PLUMB_OP_TAN. Every other op is its
 * own. */
static inline plumb_opcode plumb_op_semantic(plumb_opcode c)
{
    return c == PLUMB_OP_CHLO_TAN ? PLUMB_OP_TAN : c;
}

typedef struct plumb_op_info {
    const char *name;        /* full name, e.g. "stablehlo.add" */
    int arity;               /* operands, or PLUMB_VAR */
    int results;             /* results, or PLUMB_VAR */
    plumb_kind kind;
    uint32_t types;          /* PLUMB_TY_* mask */
    plumb_agree agree;
    uint32_t ulp;            /* default bound, f32/f64 results (ULP class) */
    uint32_t ulp_half;       /* default bound, f16/bf16 results (ULP class) */
    plumb_syntax syntax;
} plumb_op_info;

extern const plumb_op_info plumb_op_table[PLUMB_OP_COUNT];

static inline const plumb_op_info *plumb_op_get(plumb_opcode op) { return &plumb_op_table[op]; }
static inline const char *plumb_op_name(plumb_opcode op) { return plumb_op_table[op].name; }
/* The name without its dialect prefix, e.g. "add" for stablehlo.add. */
const char *plumb_op_short_name(plumb_opcode op);
const char *plumb_kind_name(plumb_kind k);
const char *plumb_agree_name(plumb_agree a);

/* Looks an op up by full name ("stablehlo.add", "chlo.erf", "check.expect_eq")
 * or, for stablehlo and func ops, by its bare name ("add", "call", "return"
 * means func.return). Returns false when no row matches. */
bool plumb_op_lookup(const char *name, size_t len, plumb_opcode *out);

/* The bound in ULPs that the op table grants results of type t. */
uint32_t plumb_op_ulp_bound(plumb_opcode op, plumb_dtype t);

#endif
