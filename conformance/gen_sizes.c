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

#define SZ_MAX 64

uint32_t conf_sizes_cases(plumb_opcode op)
{
    uint32_t n = 0;
    sz_case v[SZ_MAX];
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) n += sz_cases(op, (plumb_dtype)ti, v);
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) n += sz_layout_cases(op, (plumb_dtype)ti, v);
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
    return widths_case(g);
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
    return ok;
}
