/* The sweeps that make issue 20's claim hold: "the exhaustive sweeps cover
 * every unary op over every pattern of each <= 16-bit format" and every
 * pair of an 8-bit format for the binary ops (docs/conformance.md,
 * "Exhaustive sweeps"). An audit of the full suite (every case's inputs
 * searched for one holding all 2^bits patterns of its type) found these
 * left out by the other families:
 *   - chlo.zeta and chlo.polygamma on the 8-bit formats: the small types'
 *     family (gen_lowp.c) takes every first operand with a quarter of the
 *     second; the full suite adds the other three quarters here;
 *   - the integer unary ops (abs, negate, sign, not, popcnt,
 *     count_leading_zeros) on i8, ui8, i16 and ui16 (i8 and ui8 were hit
 *     only by the chance of large random cases);
 *   - convert from f16, bf16, i8, ui8, i16 and ui16 into every type that
 *     is not an FP8/FP6/FP4 format (those have every-pattern cases in
 *     gen_types.c), the sub-byte integers included from the integer ones;
 *   - is_finite, is_inf, is_pos_inf and is_neg_inf on the FP8/FP6/FP4
 *     formats (the small types' ops family gives them the specials and
 *     random codes, every pattern only by chance);
 *   - reduce_precision with no mantissa bit on the small float formats,
 *     the only setting where a tie is decided by the exponent's parity:
 *     XLA decides it on the f32 value (its HLO evaluator widens every FP8
 *     type to float), whose bias is odd, not on the FNUZ formats' own
 *     patterns, whose even bias (f8E4M3FNUZ 8, f8E5M2FNUZ 16) would tie
 *     the other way (docs/spec/types.md, "reduce_precision");
 *   - chlo.mulhi on i8 and ui8: every pair of patterns (in both suites:
 *     65536 elements).
 * Expected values are the reference's (exact for the integer ops, convert
 * and reduce_precision, MPFR for zeta and polygamma). The family runs
 * after every other one, so no earlier case's ordinal (and seed) moves.
 * conformance/gen.c is the plan and the driver, gen_family.h what the
 * families share. */
#include "gen_family.h"

/* the second-operand quarters k = 1..3 of an 8-bit format (gen_lowp.c
 * writes k = 0) */
static const char *const zeta_quarters[] = {"every_y1", "every_y2", "every_y3"};
/* reduce_precision's mantissa-less formats, the value class's suffix: e5m0
 * overflows and flushes in some small formats and not in others; e8m0
 * keeps every small format's range but f8E8M0FNU's smallest value */
static const char *const rp_classes[] = {"every_e5m0", "every_e8m0"};

static bool zeta_quarters_apply(plumb_opcode op, plumb_dtype t, conf_suite suite)
{
    return suite == CONF_SUITE_FULL && (op == PLUMB_OP_ZETA || op == PLUMB_OP_POLYGAMMA) && plumb_fpfmt_get(t) &&
           plumb_dtype_get(t)->bits == 8 && conf_lowp_family_op(op, t);
}

static bool rp_m0_apply(plumb_opcode op, plumb_dtype t)
{
    return op == PLUMB_OP_REDUCE_PRECISION && plumb_fpfmt_get(t) && conf_lowp_family_op(op, t);
}

/* an integer unary op of the table on an 8- or 16-bit integer type */
static bool int_unary_apply(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    return oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity == 1 && oi->syntax == PLUMB_SYN_EW &&
           op != PLUMB_OP_CONVERT && op != PLUMB_OP_BITCAST_CONVERT && (oi->types & PLUMB_TY_BIT(t)) &&
           plumb_dtype_is_int(t) && !plumb_dtype_is_lowp(t) && (di->bits == 8 || di->bits == 16);
}

/* the wide types of 8 or 16 bits (the small types' every-pattern
 * conversions are gen_types.c's) */
static bool is_wide_source(plumb_dtype t)
{
    return t == PLUMB_F16 || t == PLUMB_BF16 || t == PLUMB_I16 || t == PLUMB_UI16 || t == PLUMB_I8 || t == PLUMB_UI8;
}

/* convert from an 8- or 16-bit wide source into u: every type but complex
 * and the FP8/FP6/FP4 formats; the sub-byte integers only from the integer
 * sources (f16 and bf16 into them have every-pattern cases in gen_types.c) */
static bool convert_apply(plumb_opcode op, plumb_dtype t, plumb_dtype u)
{
    if (op != PLUMB_OP_CONVERT || !is_wide_source(t) || plumb_dtype_is_complex(u) || plumb_fpfmt_get(u)) return false;
    if (plumb_dtype_is_lowp(u)) return plumb_dtype_is_int(t);
    return true;
}

/* is_finite, is_inf, is_pos_inf, is_neg_inf on an FP8/FP6/FP4 format (the
 * small types' ops family gives them specials and random codes only) */
static bool pred_apply(plumb_opcode op, plumb_dtype t)
{
    return conf_gen_pred_op(op) && plumb_fpfmt_get(t) && ir_lowp_accepts(op, t);
}

/* chlo.mulhi on i8 and ui8: every pair of patterns (its own cases, the
 * op's last, so no other op's ordinals move) */
static bool mulhi_pairs_apply(plumb_opcode op, plumb_dtype t)
{
    return op == PLUMB_OP_MULHI && (t == PLUMB_I8 || t == PLUMB_UI8);
}

uint32_t conf_sweeps_cases(plumb_opcode op, conf_suite suite)
{
    uint32_t n = 0;
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (zeta_quarters_apply(op, t, suite)) n += LEN(zeta_quarters);
        if (rp_m0_apply(op, t)) n += LEN(rp_classes);
        if (int_unary_apply(op, t) || pred_apply(op, t)) n++;
        for (int u = 0; u < PLUMB_DTYPE_COUNT; u++) n += convert_apply(op, t, (plumb_dtype)u);
        n += mulhi_pairs_apply(op, t);
    }
    return n;
}

/* every first operand x with the second-operand quarter k of the current
 * case's value class ("every_y<k>"): row r of x's 256 patterns meets
 * y = 4r + (r + k) mod 4, so the quarters k = 0..3 together meet every
 * pattern with every pattern, each pair once */
static bool zeta_quarter_case(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t k = (uint64_t)(g->value[7] - '0'), np = 256;
    int64_t n = (int64_t)(np * np / 4);
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0);
    if (!x || !y) return conf_gen_push_case(g, "%r");
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        uint64_t r = i / np;
        plumb_store_bits(t, x->data, i, i % np);
        plumb_store_bits(t, y->data, i, 4 * r + (r + k) % 4);
    }
    const char *T = conf_gen_tys(g, t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

/* x: every pattern of g->t, once */
static plumb_tensor *every_pattern(gen *g, int64_t *n)
{
    *n = (int64_t)1 << plumb_dtype_get(g->t)->bits;
    plumb_tensor *x = conf_gen_param(g, "x", g->t, 1, n, NULL, 0, 0);
    for (int64_t i = 0; x && i < *n; i++) plumb_store_bits(g->t, x->data, (size_t)i, (uint64_t)i);
    return x;
}

/* reduce_precision over every pattern with the format of the value class
 * ("every_e5m0") */
static bool rp_m0_case(gen *g)
{
    int64_t n;
    if (!every_pattern(g, &n)) return conf_gen_push_case(g, "%r");
    const char *T = conf_gen_tys(g, g->t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = %s : %s\n", g->value + 6, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

static bool int_unary_case(gen *g)
{
    int64_t n;
    if (!every_pattern(g, &n)) return conf_gen_push_case(g, "%r");
    const char *T = conf_gen_tys(g, g->t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", plumb_op_get(g->op)->name, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

static bool pred_case(gen *g)
{
    int64_t n;
    if (!every_pattern(g, &n)) return conf_gen_push_case(g, "%r");
    const char *T = conf_gen_tys(g, g->t, 1, &n), *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", plumb_op_get(g->op)->name, T, I1);
    g->ret_types = I1;
    return conf_gen_push_case(g, "%r");
}

static bool convert_case(gen *g)
{
    int64_t n;
    if (!every_pattern(g, &n)) return conf_gen_push_case(g, "%r");
    const char *T = conf_gen_tys(g, g->t, 1, &n), *U = conf_gen_tys(g, g->target, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", T, U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

/* x meets y = every pattern with every pattern: element i is (i mod 256,
 * i / 256) */
static bool mulhi_pairs_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t n = 65536;
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0);
    if (!x || !y) return conf_gen_push_case(g, "%r");
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        plumb_store_bits(t, x->data, i, i % 256);
        plumb_store_bits(t, y->data, i, i / 256);
    }
    const char *T = conf_gen_tys(g, t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_sweeps(gen *g)
{
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        for (uint32_t k = 0; ok && zeta_quarters_apply(g->op, t, g->suite) && k < LEN(zeta_quarters); k++)
            ok = conf_gen_depth_case(g, t, t, zeta_quarters[k], zeta_quarter_case);
        for (uint32_t k = 0; ok && rp_m0_apply(g->op, t) && k < LEN(rp_classes); k++)
            ok = conf_gen_depth_case(g, t, t, rp_classes[k], rp_m0_case);
        if (ok && int_unary_apply(g->op, t)) ok = conf_gen_depth_case(g, t, t, "exhaustive", int_unary_case);
        if (ok && pred_apply(g->op, t)) ok = conf_gen_depth_case(g, t, t, "exhaustive", pred_case);
        for (int u = 0; ok && u < PLUMB_DTYPE_COUNT; u++)
            if (convert_apply(g->op, t, (plumb_dtype)u)) ok = conf_gen_depth_case(g, t, (plumb_dtype)u, "exhaustive", convert_case);
        if (ok && mulhi_pairs_apply(g->op, t)) ok = conf_gen_depth_case(g, t, t, "every_pair", mulhi_pairs_case);
    }
    return ok;
}
