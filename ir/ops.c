/* The op table, generated from ir/ops.def. */
#include <string.h>

#include "plumb/ops.h"

const plumb_op_info plumb_op_table[PLUMB_OP_COUNT] = {
#define OP(e, nm, ar, nr, kd, ty, ag, u, uh, syn) \
    [PLUMB_OP_##e] = {nm, ar, nr, kd, ty, ag, u, uh, syn},
#include "../ir/ops.def"
#undef OP
};

const char *plumb_kind_name(plumb_kind k)
{
    switch (k) {
    case PLUMB_KIND_ELEMENTWISE: return "elementwise";
    case PLUMB_KIND_MOVEMENT: return "data movement";
    case PLUMB_KIND_REDUCTION: return "reduction";
    case PLUMB_KIND_CONTRACTION: return "contraction";
    case PLUMB_KIND_INDEXING: return "indexing";
    case PLUMB_KIND_RNG: return "rng";
    case PLUMB_KIND_FUNC: return "function";
    case PLUMB_KIND_CHECK: return "check";
    }
    return "?";
}

const char *plumb_agree_name(plumb_agree a)
{
    switch (a) {
    case PLUMB_AGREE_EXACT: return "exact";
    case PLUMB_AGREE_ULP: return "ulp";
    case PLUMB_AGREE_DATA: return "bound(data)";
    }
    return "?";
}

static const char *after_dot(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? dot + 1 : name;
}

const char *plumb_op_short_name(plumb_opcode op)
{
    return after_dot(plumb_op_table[op].name);
}

/* Other spellings of an op of the table. StableHLO's interpreter tests run
 * `stablehlo.square`, the same x*x as CHLO's square (square.mlir). The
 * older generation of those tests (stablehlo/tests/interpret_*.mlir, run by
 * `stablehlo-interpreter`) writes the check dialect's first names,
 * `check.eq %x, dense<...>` and `check.almost_eq %x, dense<...>`: the
 * same operand, constant and form as check.expect_eq_const and
 * check.expect_almost_eq_const, which the dialect later renamed them to.
 * One generation of StableHLO's math tests (stablehlo/tests/math/
 * log1p_complex64.mlir at openxla/stablehlo 27f35fc) writes the op under
 * test as "chlo.log1p"; later generations of the same file write
 * stablehlo.log_plus_one on the same samples, so it is that op.
 * The canonical printer writes the table's name. */
static const struct {
    const char *name;
    plumb_opcode op;
} op_aliases[] = {
    {"stablehlo.square", PLUMB_OP_SQUARE},
    {"chlo.log1p", PLUMB_OP_LOG_PLUS_ONE},
    {"check.eq", PLUMB_OP_EXPECT_EQ_CONST},
    {"check.almost_eq", PLUMB_OP_EXPECT_ALMOST_EQ_CONST},
};

bool plumb_op_lookup(const char *name, size_t len, plumb_opcode *out)
{
    for (size_t i = 0; i < sizeof op_aliases / sizeof op_aliases[0]; i++) {
        if (strlen(op_aliases[i].name) == len && memcmp(op_aliases[i].name, name, len) == 0) {
            *out = op_aliases[i].op;
            return true;
        }
    }
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        const char *full = plumb_op_table[i].name;
        if (strlen(full) == len && memcmp(full, name, len) == 0) {
            *out = (plumb_opcode)i;
            return true;
        }
    }
    /* Bare names: stablehlo ops without their prefix, and func.call /
     * func.return written as `call` / `return`. */
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        const char *full = plumb_op_table[i].name;
        bool bare_ok = strncmp(full, "stablehlo.", 10) == 0 || strncmp(full, "func.", 5) == 0;
        if (!bare_ok || i == PLUMB_OP_RETURN)
            continue;
        const char *s = after_dot(full);
        if (strlen(s) == len && memcmp(s, name, len) == 0) {
            *out = (plumb_opcode)i;
            return true;
        }
    }
    return false;
}

uint32_t plumb_op_ulp_bound(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *in = &plumb_op_table[op];
    if (in->agree != PLUMB_AGREE_ULP)
        return 0;
    return (t == PLUMB_F16 || t == PLUMB_BF16) ? in->ulp_half : in->ulp;
}
