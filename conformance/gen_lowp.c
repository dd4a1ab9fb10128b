/* The small types' families (FP8/FP6/FP4, i2/i4/ui2/ui4): elementwise
 * arithmetic over every pattern, then the ops they reach through ir_lowp_accepts (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* ---- the small types' arithmetic (docs/spec/types.md; docs/conformance.md
 * "small types") ---------------------------------------------------------------
 * Each elementwise op of one or two operands that takes an FP8/FP6/FP4 format
 * or i2/i4/ui2/ui4 (ir_lowp_accepts) over every input: every pattern for a
 * unary op, every pair of patterns for a binary one (at most 2^16), one
 * rank-1 case per type, after every other family. */
bool conf_lowp_family_op(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    if (!plumb_dtype_is_lowp(t) || !ir_lowp_accepts(op, t)) return false;
    if (op == PLUMB_OP_REDUCE) return true;   /* an add reduction over every pattern (lowp_reduce_case) */
    if (op == PLUMB_OP_REDUCE_PRECISION) return true;   /* format = e2m1 over every pattern (lowp_case) */
    if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->syntax != PLUMB_SYN_EW || conf_gen_pred_op(op)) return false;
    return (oi->arity == 1 || oi->arity == 2) && op != PLUMB_OP_CONVERT && op != PLUMB_OP_BITCAST_CONVERT;
}

/* reduce with an add body over x[2^bits x 9]: row r starts with pattern r
 * and continues with patterns of a fixed stride, so every pattern (NaN and
 * infinities too) is summed somewhere; the init value is pattern 0. */
static bool lowp_reduce_case(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t np = 1ull << plumb_dtype_get(t)->bits;
    int64_t d[2] = {(int64_t)np, 9}, r1 = (int64_t)np;
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, d, NULL, 0, 0);
    if (!x) return conf_gen_push_case(g, "%r");
    for (uint64_t i = 0; i < np; i++)
        for (uint64_t j = 0; j < 9; j++)
            plumb_store_bits(t, x->data, i * 9 + j, (i + j * 37) % np);
    const char *X = conf_gen_tys(g, t, 2, d), *R = conf_gen_tys(g, t, 1, &r1), *S = conf_gen_tys(g, t, 0, NULL);
    plumb_buf_printf(&g->body, "  %%c = stablehlo.constant dense<%s> : %s\n", plumb_fpfmt_get(t) ? "0x0" : "0", S);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [1] : (%s, %s) -> %s\n",
                     X, S, R);
    g->ret_types = R;
    return conf_gen_push_case(g, "%r");
}

static bool lowp_case(gen *g)
{
    plumb_dtype t = g->t;
    if (g->op == PLUMB_OP_REDUCE) return lowp_reduce_case(g);
    const plumb_op_info *oi = plumb_op_get(g->op);
    uint64_t np = 1ull << plumb_dtype_get(t)->bits;
    /* zeta and polygamma cost MPFR evaluations of up to milliseconds per
     * pair (a far negative q): on the 8-bit formats every first operand
     * with every 4th pattern of the second, so a case stays well inside the
     * per-case timeout on a loaded machine (docs/spec/special2.md) */
    uint64_t ystep = (g->op == PLUMB_OP_ZETA || g->op == PLUMB_OP_POLYGAMMA) && np == 256 ? 4 : 1;
    int64_t n = (int64_t)(oi->arity == 2 ? np * (np / ystep) : np);
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = oi->arity == 2 ? conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || (oi->arity == 2 && !y)) return conf_gen_push_case(g, "%r");
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        plumb_store_bits(t, x->data, i, i % np);
        if (y) plumb_store_bits(t, y->data, i, (i / np) * ystep + (i / np) % ystep);
    }
    const char *T = conf_gen_tys(g, t, 1, &n);
    if (y) plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
    /* e2m1 both rounds and overflows/flushes in every small format */
    else if (g->op == PLUMB_OP_REDUCE_PRECISION) plumb_buf_printf(&g->body, "  %%r = %s %%x, format = e2m1 : %s\n", oi->name, T);
    else plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_lowp(gen *g)
{
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
        if (conf_lowp_family_op(g->op, (plumb_dtype)ti))
            ok = conf_gen_depth_case(g, (plumb_dtype)ti, (plumb_dtype)ti, "every", lowp_case);
    return ok;
}

/* ---- the small types through indexing, sort, control flow, windows, ...
 * (docs/conformance.md "Small types") ------------------------------------------
 * The ops that take the FP8/FP6/FP4 formats and i2/i4/ui2/ui4 through
 * ir_lowp_accepts without their table row naming them get no case from the
 * plan's main loop: here each gets one case per shape class of the op and
 * small type, through the op's own generator, value class "patterns" (conf_gen_fill
 * puts every special value of the format first, then random codes), after
 * every other family. Judged as those ops are on the wide types: exact for
 * data movement, selection and the predicates, each body step correctly
 * rounded in the format for while/if/case/map/windows/scatter, the data
 * bound for dots. */
bool conf_lowp_ops_op(plumb_opcode op, plumb_dtype t)
{
    if (!plumb_dtype_is_lowp(t) || !ir_lowp_accepts(op, t) || (plumb_op_get(op)->types & PLUMB_TY_BIT(t)))
        return false;
    switch (op) {
    case PLUMB_OP_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_GATHER: case PLUMB_OP_SCATTER:
    case PLUMB_OP_SORT: case PLUMB_OP_TOP_K: case PLUMB_OP_OPTIMIZATION_BARRIER: case PLUMB_OP_WHILE:
    case PLUMB_OP_IF: case PLUMB_OP_CASE: case PLUMB_OP_MAP: case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER: case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP: case PLUMB_OP_COMPARE:
    case PLUMB_OP_IS_FINITE: case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF:
    case PLUMB_OP_DOT: case PLUMB_OP_DOT_GENERAL:
        return true;
    case PLUMB_OP_BATCH_NORM_INFERENCE: case PLUMB_OP_BATCH_NORM_TRAINING: case PLUMB_OP_BATCH_NORM_GRAD:
        /* f8E8M0FNU too: its own patterns (gen_batchnorm.c), judged by its
         * rounding rule (check_batchnorm.c) */
        return true;
    /* the shape operands' ops: conf_gen_dynamic's programs, exact */
    case PLUMB_OP_GET_DIMENSION_SIZE: case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_REAL_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_PAD: case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_RNG_BIT_GENERATOR:   /* an i2/i4/ui2/ui4 output, bit-exact */
        return true;
    default:
        return false;
    }
}

bool conf_gen_lowp_ops(gen *g)
{
    uint32_t ns;
    const char *const *sh = conf_shape_classes(g->op, &ns);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
        for (uint32_t s = 0; ok && conf_lowp_ops_op(g->op, (plumb_dtype)ti) && s < ns; s++)
            ok = conf_gen_one_case(g, (plumb_dtype)ti, sh[s], "patterns", 0, (plumb_dtype)ti);
    return ok;
}
