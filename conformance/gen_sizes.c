/* The sizes family: shapes where a backend changes strategy, found missing
 * by planted faults (docs/certify.md, "What certify catches"). Every other
 * family's shapes are small (7x13, 2x1031, K = 300, outputs of at most 7
 * rows and 5 columns for dots), so a backend whose threading, 2-D tiling
 * or GEMM blocking is wrong only past those sizes was certified:
 *   - big2d: 1031 x 1031 f32 (1,062,961 elements, past 2^20 = 1Mi, both
 *     dims odd and past 1024 so no tile or vector width divides them):
 *     add, transpose [1, 0], reduce over both dims (to a scalar, with a
 *     non-identity init: a backend that folds the init into each thread's
 *     partial sum adds it more than once; x scaled by 2^-20 so the sum's
 *     bound stays below the init) and over dim 0 (column sums);
 *   - blocked: dot_general and dot of 131x300 . 300x67 (rows, columns
 *     and K past 64, 128 and 256 and prime to 8 and 16: every edge of a
 *     blocked GEMM), dot_general on every wide real type (each has its
 *     own kernel in a real backend), dot on f32;
 *   - scalar_pred: select with a tensor<i1> predicate and 7x13 operands
 *     (the spec allows it; the other families' predicates have the
 *     operands' shape), once true and once false, every wide real type;
 *   - empty_operand: concatenate with a size-0 operand between others
 *     (along dim 1: 7x5, 7x0, 7x8) and at both ends (along dim 0: 0x13,
 *     4x13, 0x13, 3x13): a backend that advances its offset by 1 for an
 *     empty operand, or stops at one, shows it;
 *   - long: iota of 2x4099 along dim 1 in f16, whose values above 2048
 *     round (2049 to 2048, 2051 to 2052): a backend that counts in the
 *     element type sticks at 2048;
 *   - widths: bitcast_convert between element widths (the other families
 *     only bitcast within a width): from every wide real type to the
 *     unsigned integer of each other width (a wider source gains a last
 *     dim of the ratio, a narrower one loses it), lanes in little-endian
 *     order (docs/spec: the first result element holds the lowest bits).
 *   - layout (a second pass over the types, after the cases above, so
 *     their ordinals do not move): transpose by every non-identity
 *     permutation of rank 3 and 4 (2x3x4, 2x3x4x5) and reverse of every
 *     non-empty dimension set of rank 3, on every wide real type but f32
 *     (the forms family has f32's): before, those types were transposed
 *     only by [1, 0] and [2, 0, 1] and reversed along [1] of rank 2 and
 *     one rank-3 set, so a per-element-size kernel wrong for, e.g., the
 *     batched transpose [0, 2, 1] of 16-bit elements was certified.
 *   - round 3 (a third pass, after the layout cases, so no earlier
 *     ordinal moves), each a class a planted fault showed no case had:
 *     dot_general with the batch dim in the middle of lhs and last in rhs
 *     (batch_mid: 3x2x4 . 4x5x2, batching_dims = [1] x [2]); transpose of
 *     rank 5 and 6 (rank5, rank6); case with a constant branch index past
 *     the last branch (index_past: 3 and 2^31 - 1 of 3 branches, which
 *     the spec sends to the last branch); reduce with a maximum / minimum
 *     body over rows of 1031 whose extreme lies past element 1024
 *     (wide_max, wide_min); concatenate along dim 0 of rank 3 on the types
 *     other than f32 (rank3_dim0); reduce_window with strides larger than
 *     the window (gaps: 8x9, window 2x2, strides 3x4); dynamic_slice and
 *     dynamic_update_slice with start indices of every integer type other
 *     than i32, at the type's extremes (index_types, the value class
 *     naming the index type); gather with operand_batching_dims
 *     (batching); sort descending (GT) over rows of 1031 (wide_desc).
 * Expected values are the reference's (exact classes but the dots and the
 * reduce, which the agreement checker bounds as it does every dot and
 * sum). The family runs after every other one (conformance/gen.c), so no
 * earlier case's ordinal, and so its seed and data, moves; conf_sizes_cases
 * counts it for the manifest. */
#include "gen_family.h"

/* the wide real types (no complex, no FP8/FP6/FP4, no sub-byte integers) */
static bool wide_real(plumb_dtype t)
{
    return !plumb_dtype_is_complex(t) && !plumb_dtype_is_lowp(t) && !plumb_fpfmt_get(t);
}

static bool accepts(plumb_opcode op, plumb_dtype t)
{
    return (plumb_op_get(op)->types & PLUMB_TY_BIT(t)) != 0;
}

static const char *const big2d_shapes[] = {"big2d"};
static const char *const reduce_shapes[] = {"big2d_all", "big2d_cols"};
static const char *const pred_values[] = {"pred_true", "pred_false"};
static const char *const concat_shapes[] = {"empty_mid", "empty_ends"};
static const plumb_dtype bitcast_targets[] = {PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};
static const char *const layout_perms[] = {
    "perm_0_2_1", "perm_1_0_2", "perm_1_2_0", "perm_2_0_1", "perm_2_1_0", "perm_0_1_3_2", "perm_0_2_1_3",
    "perm_0_2_3_1", "perm_0_3_1_2", "perm_0_3_2_1", "perm_1_0_2_3", "perm_1_0_3_2", "perm_1_2_0_3", "perm_1_2_3_0",
    "perm_1_3_0_2", "perm_1_3_2_0", "perm_2_0_1_3", "perm_2_0_3_1", "perm_2_1_0_3", "perm_2_1_3_0", "perm_2_3_0_1",
    "perm_2_3_1_0", "perm_3_0_1_2", "perm_3_0_2_1", "perm_3_1_0_2", "perm_3_1_2_0", "perm_3_2_0_1", "perm_3_2_1_0"};
static const char *const layout_revs[] = {"dims_0", "dims_1", "dims_2", "dims_0_1", "dims_0_2", "dims_1_2", "dims_0_1_2"};

/* the bitcast targets of t: the unsigned integer of each other width */
static bool bitcast_width_pair(plumb_opcode op, plumb_dtype t, plumb_dtype u)
{
    if (op != PLUMB_OP_BITCAST_CONVERT || !wide_real(t) || t == PLUMB_I1 || !accepts(op, t) || !accepts(op, u))
        return false;
    return plumb_dtype_get(t)->bits != plumb_dtype_get(u)->bits;
}

/* The family's cases of one op and type, in generation order: each entry
 * is (shape class, value class, target). */
typedef struct sz_case {
    const char *shape, *value;
    plumb_dtype target;
} sz_case;

static uint32_t sz_cases(plumb_opcode op, plumb_dtype t, sz_case *out)
{
    uint32_t n = 0;
    if (!accepts(op, t)) return 0;
    if (t == PLUMB_F32 && (op == PLUMB_OP_ADD || op == PLUMB_OP_TRANSPOSE))
        for (uint32_t i = 0; i < LEN(big2d_shapes); i++) out[n++] = (sz_case){big2d_shapes[i], "normal", t};
    if (t == PLUMB_F32 && op == PLUMB_OP_REDUCE)
        for (uint32_t i = 0; i < LEN(reduce_shapes); i++) out[n++] = (sz_case){reduce_shapes[i], "normal", t};
    if ((op == PLUMB_OP_DOT_GENERAL && wide_real(t) && t != PLUMB_I1) || (op == PLUMB_OP_DOT && t == PLUMB_F32))
        out[n++] = (sz_case){"blocked", plumb_dtype_is_float(t) ? "normal" : "uniform", t};
    if (op == PLUMB_OP_SELECT && wide_real(t))
        for (uint32_t i = 0; i < LEN(pred_values); i++) out[n++] = (sz_case){"scalar_pred", pred_values[i], t};
    if (op == PLUMB_OP_CONCATENATE && t == PLUMB_F32)
        for (uint32_t i = 0; i < LEN(concat_shapes); i++) out[n++] = (sz_case){concat_shapes[i], "normal", t};
    if (op == PLUMB_OP_IOTA && t == PLUMB_F16) out[n++] = (sz_case){"long", "none", t};
    for (uint32_t i = 0; i < LEN(bitcast_targets); i++)
        if (bitcast_width_pair(op, t, bitcast_targets[i]))
            out[n++] = (sz_case){"widths", plumb_dtype_is_float(t) ? "special" : "uniform", bitcast_targets[i]};
    return n;
}

/* the second pass: transpose and reverse layouts on the types the forms
 * family leaves out */
static uint32_t sz_layout_cases(plumb_opcode op, plumb_dtype t, sz_case *out)
{
    uint32_t n = 0;
    if (!accepts(op, t) || !wide_real(t) || t == PLUMB_F32) return 0;
    if (op == PLUMB_OP_TRANSPOSE)
        for (uint32_t i = 0; i < LEN(layout_perms); i++) out[n++] = (sz_case){"layout", layout_perms[i], t};
    if (op == PLUMB_OP_REVERSE)
        for (uint32_t i = 0; i < LEN(layout_revs); i++) out[n++] = (sz_case){"layout", layout_revs[i], t};
    return n;
}

/* the third pass (round 3): one table entry per class */
static const char *const r3_transpose[] = {"rank5", "rank6"};
static const char *const r3_case[] = {"index_3", "index_max"};
static const char *const r3_reduce[] = {"wide_max", "wide_min"};
static const char *const r3_index_types[] = {"i8", "i16", "i64", "ui8", "ui16", "ui32", "ui64"};

static uint32_t sz_round3_cases(plumb_opcode op, plumb_dtype t, sz_case *out)
{
    uint32_t n = 0;
    if (!accepts(op, t) || !wide_real(t)) return 0;
    const char *vc = plumb_dtype_is_float(t) ? "normal" : "uniform";
    if (op == PLUMB_OP_DOT_GENERAL && t != PLUMB_I1) out[n++] = (sz_case){"batch_mid", vc, t};
    if (op == PLUMB_OP_TRANSPOSE)
        for (uint32_t i = 0; i < LEN(r3_transpose); i++) out[n++] = (sz_case){r3_transpose[i], "uniform", t};
    if (op == PLUMB_OP_CASE && t != PLUMB_I1)
        for (uint32_t i = 0; i < LEN(r3_case); i++) out[n++] = (sz_case){"index_past", r3_case[i], t};
    if (op == PLUMB_OP_REDUCE && t != PLUMB_I1)
        for (uint32_t i = 0; i < LEN(r3_reduce); i++) out[n++] = (sz_case){r3_reduce[i], vc, t};
    if (op == PLUMB_OP_CONCATENATE && t != PLUMB_F32) out[n++] = (sz_case){"rank3_dim0", "uniform", t};
    if (op == PLUMB_OP_REDUCE_WINDOW && t != PLUMB_I1) out[n++] = (sz_case){"gaps", vc, t};
    if ((op == PLUMB_OP_DYNAMIC_SLICE || op == PLUMB_OP_DYNAMIC_UPDATE_SLICE) && t == PLUMB_F32)
        for (uint32_t i = 0; i < LEN(r3_index_types); i++) out[n++] = (sz_case){"index_types", r3_index_types[i], t};
    if (op == PLUMB_OP_GATHER && t != PLUMB_I1) out[n++] = (sz_case){"batching", "uniform", t};
    if (op == PLUMB_OP_SORT && t != PLUMB_I1) out[n++] = (sz_case){"wide_desc", "uniform", t};
    return n;
}

#define SZ_MAX 64

uint32_t conf_sizes_cases(plumb_opcode op)
{
    uint32_t n = 0;
    sz_case v[SZ_MAX];
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) n += sz_cases(op, (plumb_dtype)ti, v);
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) n += sz_layout_cases(op, (plumb_dtype)ti, v);
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) n += sz_round3_cases(op, (plumb_dtype)ti, v);
    return n;
}

static bool big2d_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t d[2] = {1031, 1031};
    const char *T = conf_gen_tys(g, t, 2, d), *S = conf_gen_tys(g, t, 0, NULL);
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, d, g->value, 0, 0);
    if (x && !strcmp(g->shape, "big2d_all")) {
        /* x scaled by 2^-20 (exactly): the a-priori bound of a 2^20-term
         * sum, γ(n)·Σ|x| ≈ 0.06·Σ|x|, is then ≈ 0.03, far below the normal
         * init, so an init added once per chunk shows */
        for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
            plumb_store_bits(t, x->data, i, conf_gen_fbits(t, ldexp(plumb_load_f64(t, x->data, i), -20)));
    }
    if (g->op == PLUMB_OP_ADD) {
        conf_gen_param(g, "y", t, 2, d, g->value, 0, 0);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.add %%x, %%y : %s\n", T);
        g->ret_types = T;
    } else if (g->op == PLUMB_OP_TRANSPOSE) {
        plumb_buf_printf(&g->body, "  %%r = stablehlo.transpose %%x, dims = [1, 0] : (%s) -> %s\n", T, T);
        g->ret_types = T;
    } else {
        /* a random normal init, not the identity: applied more than once it shows */
        conf_gen_param(g, "c", t, 0, NULL, "normal", 0, 0);
        bool all = !strcmp(g->shape, "big2d_all");
        const char *U = all ? S : conf_gen_tys(g, t, 1, &d[1]);
        plumb_buf_printf(&g->body,
                         "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = %s : (%s, %s) -> %s\n",
                         all ? "[0, 1]" : "[0]", T, S, U);
        g->ret_types = U;
    }
    return conf_gen_push_case(g, "%r");
}

static bool blocked_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t l[2] = {131, 300}, r[2] = {300, 67}, o[2] = {131, 67};
    conf_gen_param(g, "x", t, 2, l, g->value, 0, 0);
    conf_gen_param(g, "y", t, 2, r, g->value, 0, 0);
    const char *L = conf_gen_tys(g, t, 2, l), *R = conf_gen_tys(g, t, 2, r), *O = conf_gen_tys(g, t, 2, o);
    if (g->op == PLUMB_OP_DOT)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", L, R, O);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : (%s, %s) -> %s\n",
                         L, R, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

static bool scalar_pred_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t d[2] = {7, 13};
    plumb_tensor *p = conf_gen_param(g, "p", PLUMB_I1, 0, NULL, NULL, 0, 1);
    if (p) plumb_store_bits(PLUMB_I1, p->data, 0, !strcmp(g->value, "pred_true"));
    const char *vc = plumb_dtype_is_float(t) ? "normal" : "uniform";
    conf_gen_param(g, "x", t, 2, d, vc, 0, 0);
    conf_gen_param(g, "y", t, 2, d, vc, 0, 0);
    const char *T = conf_gen_tys(g, t, 2, d);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.select %%p, %%x, %%y : (%s, %s, %s) -> %s\n",
                     conf_gen_tys(g, PLUMB_I1, 0, NULL), T, T, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

static bool concat_case(gen *g)
{
    plumb_dtype t = g->t;
    bool mid = !strcmp(g->shape, "empty_mid");
    /* empty_mid: 7x5, 7x0, 7x8 along dim 1; empty_ends: 0x13, 4x13, 0x13, 3x13 along dim 0 */
    int64_t mid_d[3][2] = {{7, 5}, {7, 0}, {7, 8}}, ends_d[4][2] = {{0, 13}, {4, 13}, {0, 13}, {3, 13}};
    int64_t out[2] = {7, 13};
    uint32_t n = mid ? 3 : 4;
    plumb_buf args, tys;
    plumb_buf_init(&args);
    plumb_buf_init(&tys);
    for (uint32_t i = 0; i < n; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "x%u", i);
        const int64_t *d = mid ? mid_d[i] : ends_d[i];
        conf_gen_param(g, nm, t, 2, d, g->value, 0, 0);
        plumb_buf_printf(&args, "%s%%%s", i ? ", " : "", nm);
        plumb_buf_printf(&tys, "%s%s", i ? ", " : "", conf_gen_tys(g, t, 2, d));
    }
    const char *O = conf_gen_tys(g, t, 2, out);
    if (args.failed || tys.failed) g->failed = true;
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %s, dim = %d : (%s) -> %s\n", args.data, mid ? 1 : 0,
                         tys.data, O);
    plumb_buf_free(&args);
    plumb_buf_free(&tys);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

static bool long_iota_case(gen *g)
{
    int64_t d[2] = {2, 4099};
    const char *T = conf_gen_tys(g, g->t, 2, d);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.iota dim = 1 : %s\n", T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

static bool widths_case(gen *g)
{
    plumb_dtype t = g->t, u = g->target;
    unsigned tb = plumb_dtype_get(t)->bits, ub = plumb_dtype_get(u)->bits;
    /* 7x13 elements of the wider type; the narrower side has a last dim of the ratio */
    int64_t w[2] = {7, 13}, nw[3] = {7, 13, tb > ub ? tb / ub : ub / tb};
    const int64_t *src = tb > ub ? w : nw, *dst = tb > ub ? nw : w;
    uint32_t sr = tb > ub ? 2 : 3, dr = tb > ub ? 3 : 2;
    conf_gen_param(g, "x", t, sr, src, g->value, 0, 0);
    const char *S = conf_gen_tys(g, t, sr, src), *D = conf_gen_tys(g, u, dr, dst);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.bitcast_convert %%x : (%s) -> %s\n", S, D);
    g->ret_types = D;
    return conf_gen_push_case(g, "%r");
}

/* transpose by the permutation "perm_a_b_c[_d]" of 2x3x4[x5], or reverse
 * of "dims_a[_b[_c]]" of 2x3x4; distinct random values (uniform), so a
 * misplaced element shows */
static bool layout_case(gen *g)
{
    plumb_dtype t = g->t;
    const char *v = g->value + 5;
    int64_t list[4], s[4] = {2, 3, 4, 5}, o[4];
    uint32_t k = 0;
    for (; *v && k < 4; v++)
        if (*v >= '0' && *v <= '9') list[k++] = *v - '0';
    bool tr = g->op == PLUMB_OP_TRANSPOSE;
    uint32_t rank = tr ? k : 3;
    plumb_buf l;
    plumb_buf_init(&l);
    for (uint32_t i = 0; i < k; i++) plumb_buf_printf(&l, "%s%lld", i ? ", " : "", (long long)list[i]);
    for (uint32_t i = 0; i < rank; i++) o[i] = tr ? s[list[i]] : s[i];
    conf_gen_param(g, "x", t, rank, s, "uniform", 0, 0);
    const char *T = conf_gen_tys(g, t, rank, s), *O = conf_gen_tys(g, t, rank, o);
    if (l.failed || !l.data) g->failed = true;
    else if (tr)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.transpose %%x, dims = [%s] : (%s) -> %s\n", l.data, T, O);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reverse %%x, dims = [%s] : %s\n", l.data, T);
    plumb_buf_free(&l);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* ---- round 3 ---- */

/* a value beyond the data on either side: ±10^4 for the floats (finite in
 * f16 and bf16, far past normal data), max / min for the integers */
static uint64_t r3_extreme(plumb_dtype t, bool hi)
{
    if (plumb_dtype_is_float(t)) return conf_gen_fbits(t, hi ? 1e4 : -1e4);
    return conf_gen_int_boundary(t, hi ? 4 : 3);
}

/* dot_general 3x2x4 . 4x5x2, batching_dims = [1] x [2], contracting [2] x [0] -> 2x3x5 */
static bool batch_mid_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t l[3] = {3, 2, 4}, r[3] = {4, 5, 2}, o[3] = {2, 3, 5};
    conf_gen_param(g, "x", t, 3, l, g->value, 0, 0);
    conf_gen_param(g, "y", t, 3, r, g->value, 0, 0);
    const char *L = conf_gen_tys(g, t, 3, l), *R = conf_gen_tys(g, t, 3, r), *O = conf_gen_tys(g, t, 3, o);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.dot_general %%x, %%y, batching_dims = [1] x [2], contracting_dims = [2] x [0] : "
                     "(%s, %s) -> %s\n", L, R, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* transpose of 2x3x2x4x3 by [4, 2, 0, 3, 1], of 2x1x3x2x2x3 by [5, 3, 1, 0, 2, 4] */
static bool rank56_case(gen *g)
{
    plumb_dtype t = g->t;
    bool r5 = !strcmp(g->shape, "rank5");
    int64_t s5[5] = {2, 3, 2, 4, 3}, s6[6] = {2, 1, 3, 2, 2, 3}, o[6];
    const int64_t p5[5] = {4, 2, 0, 3, 1}, p6[6] = {5, 3, 1, 0, 2, 4};
    uint32_t rank = r5 ? 5 : 6;
    const int64_t *s = r5 ? s5 : s6, *p = r5 ? p5 : p6;
    for (uint32_t i = 0; i < rank; i++) o[i] = s[p[i]];
    /* parameters have rank 4 at most (gen.c): a reshape of the same
     * elements gives the rank-5/6 operand */
    int64_t flat[4] = {s[0], s[1], s[2], 1};
    for (uint32_t i = 3; i < rank; i++) flat[3] *= s[i];
    conf_gen_param(g, "x", t, 4, flat, "uniform", 0, 0);
    const char *F = conf_gen_tys(g, t, 4, flat), *T = conf_gen_tys(g, t, rank, s), *O = conf_gen_tys(g, t, rank, o);
    plumb_buf_printf(&g->body, "  %%y = stablehlo.reshape %%x : (%s) -> %s\n", F, T);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.transpose %%y, dims = [%s] : (%s) -> %s\n",
                     r5 ? "4, 2, 0, 3, 1" : "5, 3, 1, 0, 2, 4", T, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* case with 3 branches (x, x + x, x + x + x) and a constant index past them */
static bool index_past_case(gen *g)
{
    int64_t d[2] = {7, 13};
    const char *X = conf_gen_tys(g, g->t, 2, d);
    conf_gen_param(g, "x", g->t, 2, d, plumb_dtype_is_float(g->t) ? "normal" : "uniform", 0, 0);
    conf_gen_case3_text(&g->body, !strcmp(g->value, "index_3") ? "3" : "2147483647", X);
    g->ret_types = X;
    return conf_gen_push_case(g, "%r");
}

/* reduce max / min over dim 1 of 2x1031, the init the type's other
 * extreme, each row's extreme placed past element 1024 (1030 and 1025) */
static bool wide_extreme_case(gen *g)
{
    plumb_dtype t = g->t;
    bool mx = !strcmp(g->shape, "wide_max");
    int64_t d[2] = {2, 1031}, o = 2;
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, d, g->value, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, g->value, 0, 0);
    if (x && c) {
        plumb_store_bits(t, c->data, 0, r3_extreme(t, !mx));
        plumb_store_bits(t, x->data, 1030, r3_extreme(t, mx));
        plumb_store_bits(t, x->data, 1031 + 1025, r3_extreme(t, mx));
    }
    const char *T = conf_gen_tys(g, t, 2, d), *S = conf_gen_tys(g, t, 0, NULL), *O = conf_gen_tys(g, t, 1, &o);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.%s across dimensions = [1] : (%s, %s) -> %s\n",
                     mx ? "maximum" : "minimum", T, S, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* concatenate 2x3x4, 1x3x4, 3x3x4 along dim 0 */
static bool rank3_concat_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t a[3] = {2, 3, 4}, b[3] = {1, 3, 4}, c[3] = {3, 3, 4}, o[3] = {6, 3, 4};
    conf_gen_param(g, "x0", t, 3, a, g->value, 0, 0);
    conf_gen_param(g, "x1", t, 3, b, g->value, 0, 0);
    conf_gen_param(g, "x2", t, 3, c, g->value, 0, 0);
    const char *A = conf_gen_tys(g, t, 3, a), *B = conf_gen_tys(g, t, 3, b), *C = conf_gen_tys(g, t, 3, c),
               *O = conf_gen_tys(g, t, 3, o);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %%x0, %%x1, %%x2, dim = 0 : (%s, %s, %s) -> %s\n", A, B, C, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* reduce_window max over 8x9, window 2x2, strides 3x4 (gaps between windows) -> 3x2 */
static bool gaps_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t d[2] = {8, 9}, o[2] = {3, 2};
    conf_gen_param(g, "x", t, 2, d, g->value, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, g->value, 0, 0);
    if (c) plumb_store_bits(t, c->data, 0, r3_extreme(t, false));
    const char *T = conf_gen_tys(g, t, 2, d), *S = conf_gen_tys(g, t, 0, NULL), *O = conf_gen_tys(g, t, 2, o);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{window_dimensions = array<i64: 2, 2>, "
                     "window_strides = array<i64: 3, 4>}> ({\n"
                     "  ^bb0(%%a: %s, %%b: %s):\n"
                     "    %%m = stablehlo.maximum %%a, %%b : %s\n"
                     "    stablehlo.return %%m : %s\n"
                     "  }) : (%s, %s) -> %s\n",
                     S, S, S, S, T, S, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* dynamic_slice (sizes 3x6) / dynamic_update_slice (a 3x6 update) of
 * 7x13 f32 with start indices of the value class's integer type: the
 * type's max (past the end: clamped to 4 and 7) and its min (clamped to
 * 0; 0 for the unsigned types) */
static bool index_types_case(gen *g)
{
    plumb_dtype t = g->t, it = PLUMB_I32;
    plumb_dtype_parse(g->value, strlen(g->value), &it);
    int64_t d[2] = {7, 13}, u[2] = {3, 6};
    conf_gen_param(g, "x", t, 2, d, "normal", 0, 0);
    bool upd = g->op == PLUMB_OP_DYNAMIC_UPDATE_SLICE;
    if (upd) conf_gen_param(g, "u", t, 2, u, "normal", 0, 0);
    plumb_tensor *i0 = conf_gen_param(g, "i0", it, 0, NULL, NULL, 0, 0);
    plumb_tensor *i1 = conf_gen_param(g, "i1", it, 0, NULL, NULL, 0, 0);
    if (i0) plumb_store_bits(it, i0->data, 0, conf_gen_int_boundary(it, 4));
    if (i1) plumb_store_bits(it, i1->data, 0, conf_gen_int_boundary(it, 3));
    const char *X = conf_gen_tys(g, t, 2, d), *U = conf_gen_tys(g, t, 2, u), *I = conf_gen_tys(g, it, 0, NULL);
    if (upd)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dynamic_update_slice %%x, %%u, %%i0, %%i1 : (%s, %s, %s, %s) -> %s\n",
                         X, U, I, I, X);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dynamic_slice %%x, %%i0, %%i1, sizes = [3, 6] : (%s, %s, %s) -> %s\n",
                         X, I, I, U);
    g->ret_types = upd ? X : U;
    return conf_gen_push_case(g, "%r");
}

/* gather with a batch dim: operand 3x5x4 (batch 0), indices 3x2x1 (batch
 * 0) into operand dim 1, slices 1x1x4 -> 3x2x4; one index past the end
 * (clamped) */
static bool batching_gather_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t d[3] = {3, 5, 4}, id[3] = {3, 2, 1}, o[3] = {3, 2, 4};
    conf_gen_param(g, "x", t, 3, d, g->value, 0, 0);
    plumb_tensor *ix = conf_gen_param(g, "i", PLUMB_I32, 3, id, NULL, 0, 4);
    if (ix) plumb_store_bits(PLUMB_I32, ix->data, 5, 9);
    const char *X = conf_gen_tys(g, t, 3, d), *I = conf_gen_tys(g, PLUMB_I32, 3, id), *O = conf_gen_tys(g, t, 3, o);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], "
                     "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
                     "start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 4>}> : (%s, %s) -> %s\n",
                     X, I, O);
    g->ret_types = O;
    return conf_gen_push_case(g, "%r");
}

/* sort of 2x1031 along dim 1, descending (GT) */
static bool wide_desc_case(gen *g)
{
    plumb_dtype t = g->t;
    int64_t d[2] = {2, 1031};
    conf_gen_param(g, "x", t, 2, d, g->value, 0, 0);
    const char *T = conf_gen_tys(g, t, 2, d), *S = conf_gen_tys(g, t, 0, NULL);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.sort\"(%%x) <{dimension = 1 : i64, is_stable = true}> ({\n"
                     "  ^bb0(%%a: %s, %%b: %s):\n"
                     "    %%p = stablehlo.compare GT, %%a, %%b : (%s, %s) -> tensor<i1>\n"
                     "    stablehlo.return %%p : tensor<i1>\n"
                     "  }) : (%s) -> %s\n",
                     S, S, S, S, T, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

static bool round3_case(gen *g)
{
    const char *s = g->shape;
    if (!strcmp(s, "batch_mid")) return batch_mid_case(g);
    if (!strncmp(s, "rank", 4) && strcmp(s, "rank3_dim0")) return rank56_case(g);
    if (!strcmp(s, "index_past")) return index_past_case(g);
    if (!strncmp(s, "wide_m", 6)) return wide_extreme_case(g);
    if (!strcmp(s, "rank3_dim0")) return rank3_concat_case(g);
    if (!strcmp(s, "gaps")) return gaps_case(g);
    if (!strcmp(s, "index_types")) return index_types_case(g);
    if (!strcmp(s, "batching")) return batching_gather_case(g);
    return wide_desc_case(g);
}

/* one case of the family, seeded like every case from (seed, op, dtype, ordinal) */
static bool sz_one(gen *g, plumb_dtype t, const sz_case *c)
{
    g->t = t; g->target = c->target; g->shape = c->shape; g->value = c->value; g->rep = 0;
    gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    if (!strncmp(c->shape, "big2d", 5)) return big2d_case(g);
    if (!strcmp(c->shape, "blocked")) return blocked_case(g);
    if (!strcmp(c->shape, "scalar_pred")) return scalar_pred_case(g);
    if (!strncmp(c->shape, "empty_", 6)) return concat_case(g);
    if (!strcmp(c->shape, "long")) return long_iota_case(g);
    if (!strcmp(c->shape, "layout")) return layout_case(g);
    if (!strcmp(c->shape, "widths")) return widths_case(g);
    return round3_case(g);
}

bool conf_gen_sizes(gen *g)
{
    bool ok = true;
    sz_case v[SZ_MAX];
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        uint32_t n = sz_cases(g->op, (plumb_dtype)ti, v);
        for (uint32_t i = 0; ok && i < n; i++) ok = sz_one(g, (plumb_dtype)ti, &v[i]);
    }
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        uint32_t n = sz_layout_cases(g->op, (plumb_dtype)ti, v);
        for (uint32_t i = 0; ok && i < n; i++) ok = sz_one(g, (plumb_dtype)ti, &v[i]);
    }
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        uint32_t n = sz_round3_cases(g->op, (plumb_dtype)ti, v);
        for (uint32_t i = 0; ok && i < n; i++) ok = sz_one(g, (plumb_dtype)ti, &v[i]);
    }
    return ok;
}
