/* The attribute forms family: every attribute form the spec allows (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* ---- attribute forms (docs/conformance.md, "Attribute forms") ------------------------
 * Every attribute form the spec allows, on small shapes: dimension subsets
 * and permutations up to rank 4, operand counts, scalar bounds, comparison
 * direction × type, sort stability, reduce bodies, negative and interior
 * padding. Ids "<op>/<type>/<shape>/<value>/forms/<form>"; they come after
 * every other family so that no older ordinal moves. manifest.c lists the
 * same forms by its own enumeration (conf_manifest_forms). */

static const int64_t FORM_DIMS[4] = {2, 3, 4, 5};

/* Starts form case `form`: seeds like every case; false when another shard
 * owns it (its ordinal is counted). */
static bool form_begin(gen *g, plumb_dtype t, const char *shape, const char *vc, const char *form)
{
    g->t = t; g->target = t; g->shape = shape; g->value = vc; g->rep = 0;
    g->form = plumb_arena_strdup(g->out->arena, form);
    if (!g->form) g->failed = true;
    gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; g->form = NULL; }
    return keep;
}

static const char *data_class(plumb_dtype t)
{
    return plumb_dtype_is_float(t) ? "special" : plumb_dtype_is_bool(t) ? "uniform" : "boundary";
}

static void dim_list(plumb_buf *b, const uint32_t *v, uint32_t n)
{
    plumb_buf_puts(b, "[");
    for (uint32_t i = 0; i < n; i++) plumb_buf_printf(b, "%s%u", i ? ", " : "", v[i]);
    plumb_buf_puts(b, "]");
}

/* "r3_dims_0_2" (prefix "r3_dims"), or "r3_dims_none" for the empty set:
 * a form names its rank where the same dimensions exist in several. */
static void form_name(char *out, size_t cap, const char *prefix, const uint32_t *v, uint32_t n)
{
    size_t k = (size_t)snprintf(out, cap, "%s", prefix);
    if (n == 0 && k < cap) snprintf(out + k, cap - k, "_none");
    for (uint32_t i = 0; i < n && k < cap; i++) k += (size_t)snprintf(out + k, cap - k, "_%u", v[i]);
}

static bool forms_transpose_reverse(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    bool ok = true;
    for (uint32_t r = 1; ok && r <= 4; r++) {
        char sh[8];
        snprintf(sh, sizeof sh, "r%u", r);
        const char *shape = plumb_arena_strdup(g->out->arena, sh);
        if (!shape) return false;
        if (g->op == PLUMB_OP_REVERSE) {
            for (uint32_t m = 0; ok && m < (1u << r); m++) {
                uint32_t v[4], n = 0;
                for (uint32_t i = 0; i < r; i++) if (m & (1u << i)) v[n++] = i;
                char fn[40], pre[16];
                snprintf(pre, sizeof pre, "r%u_dims", r);
                form_name(fn, sizeof fn, pre, v, n);
                if (!form_begin(g, t, shape, "special", fn)) continue;
                const char *T = conf_gen_tys(g, t, r, FORM_DIMS);
                conf_gen_param(g, "x", t, r, FORM_DIMS, "special", 0, 0);
                plumb_buf_puts(&g->body, "  %r = stablehlo.reverse %x, dims = ");
                dim_list(&g->body, v, n);
                plumb_buf_printf(&g->body, " : %s\n", T);
                g->ret_types = T;
                ok = conf_gen_push_case(g, "%r");
            }
            continue;
        }
        /* every permutation of 0..r-1 in lexicographic order */
        uint32_t p[4] = {0, 1, 2, 3};
        for (;;) {
            char fn[40];
            form_name(fn, sizeof fn, "perm", p, r);
            if (form_begin(g, t, shape, "special", fn)) {
                int64_t od[4];
                for (uint32_t i = 0; i < r; i++) od[i] = FORM_DIMS[p[i]];
                conf_gen_param(g, "x", t, r, FORM_DIMS, "special", 0, 0);
                const char *U = conf_gen_tys(g, t, r, od);
                plumb_buf_puts(&g->body, "  %r = stablehlo.transpose %x, dims = ");
                dim_list(&g->body, p, r);
                plumb_buf_printf(&g->body, " : (%s) -> %s\n", conf_gen_tys(g, t, r, FORM_DIMS), U);
                g->ret_types = U;
                ok = conf_gen_push_case(g, "%r");
                if (!ok) break;
            }
            int i = (int)r - 2;
            while (i >= 0 && p[i] > p[i + 1]) i--;
            if (i < 0) break;
            int j = (int)r - 1;
            while (p[j] < p[i]) j--;
            uint32_t tmp = p[i]; p[i] = p[j]; p[j] = tmp;
            for (int a = i + 1, b = (int)r - 1; a < b; a++, b--) { tmp = p[a]; p[a] = p[b]; p[b] = tmp; }
        }
    }
    return ok;
}

/* broadcast_in_dim into rank 4: every injective map of an operand of rank
 * 0..4 (dims need not increase), operand dimension i of size 1 (expanded)
 * when (map[i] + i) % 3 == 2, else the result's size. */
static bool bcast_rec(gen *g, uint32_t *map, uint32_t k, uint32_t r, uint32_t used)
{
    if (k == r) {
        char fn[40];
        form_name(fn, sizeof fn, "map", map, r);
        if (!form_begin(g, PLUMB_F32, "r4", "special", fn)) return true;
        int64_t in[4];
        for (uint32_t i = 0; i < r; i++) in[i] = (map[i] + i) % 3 == 2 ? 1 : FORM_DIMS[map[i]];
        conf_gen_param(g, "x", PLUMB_F32, r, in, "special", 0, 0);
        const char *U = conf_gen_tys(g, PLUMB_F32, 4, FORM_DIMS);
        plumb_buf_puts(&g->body, "  %r = stablehlo.broadcast_in_dim %x, dims = ");
        dim_list(&g->body, map, r);
        plumb_buf_printf(&g->body, " : (%s) -> %s\n", conf_gen_tys(g, PLUMB_F32, r, in), U);
        g->ret_types = U;
        return conf_gen_push_case(g, "%r");
    }
    for (uint32_t d = 0; d < 4; d++) {
        if (used & (1u << d)) continue;
        map[k] = d;
        if (!bcast_rec(g, map, k + 1, r, used | (1u << d))) return false;
    }
    return true;
}

static bool forms_broadcast(gen *g)
{
    uint32_t map[4];
    for (uint32_t r = 0; r <= 4; r++)
        if (!bcast_rec(g, map, 0, r, 0)) return false;
    return true;
}

/* concatenate of 1..4 operands along each dimension of a rank-3 shape,
 * operand k of size k + 1 along it. */
static bool forms_concatenate(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    for (uint32_t n = 1; n <= 4; n++)
        for (uint32_t dim = 0; dim < 3; dim++) {
            char fn[40];
            snprintf(fn, sizeof fn, "n%u_dim%u", n, dim);
            if (!form_begin(g, t, "r3", "special", fn)) continue;
            int64_t od[3] = {2, 3, 4};
            od[dim] = 0;
            plumb_buf names, types;
            plumb_buf_init(&names);
            plumb_buf_init(&types);
            for (uint32_t k = 0; k < n; k++) {
                int64_t d[3] = {2, 3, 4};
                d[dim] = k + 1;
                od[dim] += d[dim];
                char pn[16];
                snprintf(pn, sizeof pn, "x%u", k);
                conf_gen_param(g, pn, t, 3, d, "special", 0, 0);
                plumb_buf_printf(&names, "%s%%%s", k ? ", " : "", pn);
                plumb_buf_printf(&types, "%s%s", k ? ", " : "", conf_gen_tys(g, t, 3, d));
            }
            const char *U = conf_gen_tys(g, t, 3, od);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %s, dim = %u : (%s) -> %s\n",
                             names.data ? names.data : "", dim, types.data ? types.data : "", U);
            plumb_buf_free(&names);
            plumb_buf_free(&types);
            g->ret_types = U;
            if (!conf_gen_push_case(g, "%r")) return false;
        }
    return true;
}

static bool forms_iota(gen *g)
{
    static const plumb_dtype ts[] = {PLUMB_F32, PLUMB_I32};
    for (uint32_t k = 0; k < LEN(ts); k++)
        for (uint32_t r = 1; r <= 4; r++)
            for (uint32_t dim = 0; dim < r; dim++) {
                char fn[40], sh[8];
                snprintf(fn, sizeof fn, "r%u_dim%u", r, dim);
                snprintf(sh, sizeof sh, "r%u", r);
                const char *shape = plumb_arena_strdup(g->out->arena, sh);
                if (!shape) return false;
                if (!form_begin(g, ts[k], shape, "none", fn)) continue;
                const char *T = conf_gen_tys(g, ts[k], r, FORM_DIMS);
                plumb_buf_printf(&g->body, "  %%r = stablehlo.iota dim = %u : %s\n", dim, T);
                g->ret_types = T;
                if (!conf_gen_push_case(g, "%r")) return false;
            }
    return true;
}

/* clamp with a scalar min, a scalar max or both, in every type. */
static bool forms_clamp(gen *g, plumb_dtype t)
{
    static const char *fns[] = {"scalar_lo", "scalar_hi", "scalar_both"};
    int64_t n = 22;
    for (uint32_t f = 0; f < 3; f++) {
        if (!form_begin(g, t, "odd", data_class(t), fns[f])) continue;
        bool slo = f != 1, shi = f != 0;
        const char *T = conf_gen_tys(g, t, 1, &n), *T0 = conf_gen_tys(g, t, 0, NULL);
        conf_gen_param(g, "lo", t, slo ? 0 : 1, &n, data_class(t), 0, 0);
        plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, data_class(t), 0, 0);
        plumb_tensor *hi = conf_gen_param(g, "hi", t, shi ? 0 : 1, &n, data_class(t), 0, 0);
        /* scalar bounds from the middle of the class, x the whole class */
        if (x && hi && shi && !plumb_dtype_is_bool(t))
            plumb_store_bits(t, hi->data, 0, plumb_dtype_is_float(t) ? conf_gen_fbits(t, 2.0) : conf_gen_int_boundary(t, 8));
        plumb_buf_printf(&g->body, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : (%s, %s, %s) -> %s\n", slo ? T0 : T, T,
                         shi ? T0 : T, T);
        g->ret_types = T;
        if (!conf_gen_push_case(g, "%r")) return false;
    }
    return true;
}

/* compare: every direction × every comparison type the element type
 * allows, on every pair of the type's special or edge values. */
static bool forms_compare(gen *g, plumb_dtype t)
{
    static const char *const ct_float[] = {"FLOAT", "TOTALORDER"}, *const ct_s[] = {"SIGNED"}, *const ct_u[] = {"UNSIGNED"};
    const char *const *cts = plumb_dtype_is_float(t) ? ct_float : plumb_dtype_is_signed(t) ? ct_s : ct_u;
    uint32_t nct = plumb_dtype_is_float(t) ? 2 : 1;
    uint64_t vals[32];
    uint32_t nv;
    if (plumb_dtype_is_float(t)) nv = conf_float_specials(t, vals);
    else if (plumb_dtype_is_bool(t)) { vals[0] = 0; vals[1] = 1; nv = 2; }
    else { nv = 10; for (uint32_t i = 0; i < nv; i++) vals[i] = conf_gen_int_boundary(t, i); }
    int64_t n = (int64_t)nv * nv;
    for (uint32_t c = 0; c < nct; c++)
        for (uint32_t dir = 0; dir < 6; dir++) {
            char fn[40];
            snprintf(fn, sizeof fn, "%s_%s", conf_gen_cmp_dirs[dir], cts[c]);
            for (char *p = fn; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
            if (!form_begin(g, t, "pairs", data_class(t), fn)) continue;
            plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
            plumb_tensor *y = conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0);
            if (x && y)
                for (int64_t i = 0; i < n; i++) {
                    plumb_store_bits(t, x->data, (size_t)i, vals[i / nv]);
                    plumb_store_bits(t, y->data, (size_t)i, vals[i % nv]);
                }
            const char *T = conf_gen_tys(g, t, 1, &n), *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, %s : (%s, %s) -> %s\n", conf_gen_cmp_dirs[dir],
                             cts[c], T, T, I1);
            g->ret_types = I1;
            if (!conf_gen_push_case(g, "%r")) return false;
        }
    return true;
}

/* reduce over every non-empty dimension subset of ranks 1..4 (add body,
 * special data, init +0). */
static bool forms_reduce_dims(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    static const int64_t rd[4] = {2, 3, 2, 3};
    for (uint32_t r = 1; r <= 4; r++) {
        char sh[8];
        snprintf(sh, sizeof sh, "r%u", r);
        const char *shape = plumb_arena_strdup(g->out->arena, sh);
        if (!shape) return false;
        for (uint32_t m = 1; m < (1u << r); m++) {
            uint32_t v[4], n = 0, orank = 0;
            int64_t od[4];
            for (uint32_t i = 0; i < r; i++) {
                if (m & (1u << i)) v[n++] = i;
                else od[orank++] = rd[i];
            }
            char fn[40], pre[16];
            snprintf(pre, sizeof pre, "r%u_dims", r);
            form_name(fn, sizeof fn, pre, v, n);
            if (!form_begin(g, t, shape, "special", fn)) continue;
            conf_gen_param(g, "x", t, r, rd, "special", 0, 0);
            conf_gen_param(g, "c", t, 0, NULL, NULL, 0, 0); /* +0: the identity of add */
            const char *U = conf_gen_tys(g, t, orank, od);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = ");
            dim_list(&g->body, v, n);
            plumb_buf_printf(&g->body, " : (%s, %s) -> %s\n", conf_gen_tys(g, t, r, rd), conf_gen_tys(g, t, 0, NULL), U);
            g->ret_types = U;
            if (!conf_gen_push_case(g, "%r")) return false;
        }
    }
    return true;
}

/* Rows whose reduction does not depend on the order under any recognised
 * body: one NaN, infinities of one or both signs, zeros of mixed sign,
 * the largest finite twice (sums overflow in every order), subnormals. */
static void special_rows(plumb_dtype t, plumb_tensor *x, int64_t rows, int64_t len)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1), expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    uint64_t qnan = expm | conf_gen_qbit(di) | 3, one = conf_gen_fbits(t, 1.0), two = conf_gen_fbits(t, 2.0), half = conf_gen_fbits(t, 0.5);
    uint64_t maxf = expm - 1;
    uint64_t pat[][4] = {
        {qnan, one, two, half}, {expm, one, two | sign, half}, {expm, expm | sign, one, one},
        {sign, sign, sign, sign}, {sign, 0, sign, sign}, {expm | sign, one | sign, two | sign, half},
        {maxf, maxf, one, two}, {1, 1 | sign, 2, one}, {0, 0, 0, 0}, {qnan | sign, expm | sign, 0, sign},
    };
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < len; k++)
            plumb_store_bits(t, x->data, (size_t)(r * len + k), pat[r % LEN(pat)][k % 4]);
}

/* Every recognised reduce body on special values (floats) or edge values
 * (integers), and a two-operand argmax under TOTALORDER on bit-distinct
 * specials (a total order: its result does not depend on the order). */
static bool forms_reduce_bodies(gen *g, plumb_dtype t)
{
    static const plumb_opcode fb[] = {PLUMB_OP_ADD, PLUMB_OP_MULTIPLY, PLUMB_OP_MAXIMUM, PLUMB_OP_MINIMUM, PLUMB_OP_AND, PLUMB_OP_OR};
    bool f = plumb_dtype_is_float(t);
    uint32_t nb = f ? 4 : 6;
    int64_t rows = 10, len = 4, xd[2] = {rows, len};
    for (uint32_t k = 0; k < nb; k++) {
        const char *bn = plumb_op_name(fb[k]) + strlen("stablehlo.");
        char fn[40];
        snprintf(fn, sizeof fn, "body_%s", bn);
        if (!form_begin(g, t, "rows", data_class(t), fn)) continue;
        plumb_tensor *x = conf_gen_param(g, "x", t, 2, xd, f ? NULL : "boundary", 0, 0);
        plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, NULL, 0, 0);
        if (x && f) special_rows(t, x, rows, len);
        if (c) {
            uint64_t init = 0;
            switch (fb[k]) {
            case PLUMB_OP_MULTIPLY: init = f ? conf_gen_fbits(t, 1.0) : 1; break;
            case PLUMB_OP_MAXIMUM: init = f ? conf_gen_fbits(t, -INFINITY) : plumb_dtype_is_signed(t) ? conf_gen_int_boundary(t, 3) : 0; break;
            case PLUMB_OP_MINIMUM: init = f ? conf_gen_fbits(t, INFINITY) : conf_gen_int_boundary(t, 4); break;
            case PLUMB_OP_AND: init = conf_gen_int_boundary(t, 2); break; /* all ones */
            default: break;
            }
            plumb_store_bits(t, c->data, 0, init);
        }
        const char *U = conf_gen_tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = [1] : (%s, %s) -> %s\n",
                         plumb_op_name(fb[k]), conf_gen_tys(g, t, 2, xd), conf_gen_tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!conf_gen_push_case(g, "%r")) return false;
    }
    if (t != PLUMB_F32) return true;
    /* maximum and minimum with a random init that is no identity: however
     * often a backend applies the init, the result is max(init, row) */
    for (uint32_t k = 2; k < 4; k++) {
        char fn[40];
        snprintf(fn, sizeof fn, "body_%s_init", plumb_op_name(fb[k]) + strlen("stablehlo."));
        if (!form_begin(g, t, "rows", "special", fn)) continue;
        plumb_tensor *x = conf_gen_param(g, "x", t, 2, xd, NULL, 0, 0);
        conf_gen_param(g, "c", t, 0, NULL, "normal", 0, 0);
        if (x) special_rows(t, x, rows, len);
        const char *U = conf_gen_tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = [1] : (%s, %s) -> %s\n",
                         plumb_op_name(fb[k]), conf_gen_tys(g, t, 2, xd), conf_gen_tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!conf_gen_push_case(g, "%r")) return false;
    }
    if (!form_begin(g, t, "rows", "special", "argmax")) return true;
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(t, sp);
    int64_t ad[2] = {4, ns};
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, ad, NULL, 0, 0);
    plumb_tensor *ix = conf_gen_param(g, "i", PLUMB_I32, 2, ad, NULL, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, NULL, 0, 0);
    plumb_tensor *ci = conf_gen_param(g, "ci", PLUMB_I32, 0, NULL, NULL, 0, 0);
    if (x && ix && c && ci) {
        /* row r: the specials rotated by 5r (each row a permutation), index = column */
        for (int64_t r = 0; r < 4; r++)
            for (int64_t k = 0; k < (int64_t)ns; k++) {
                plumb_store_bits(t, x->data, (size_t)(r * ns + k), sp[(k + 5 * r) % ns]);
                plumb_store_bits(PLUMB_I32, ix->data, (size_t)(r * ns + k), (uint64_t)k);
            }
        plumb_store_bits(t, c->data, 0, conf_gen_fbits(t, -INFINITY) | 0); /* below everything but -NaN in total order */
        plumb_store_bits(PLUMB_I32, ci->data, 0, (uint64_t)(uint32_t)-1);
    }
    const char *X = conf_gen_tys(g, t, 2, ad), *XI = conf_gen_tys(g, PLUMB_I32, 2, ad), *U = conf_gen_tys(g, t, 1, ad), *UI = conf_gen_tys(g, PLUMB_I32, 1, ad);
    plumb_buf_printf(&g->body,
                     "  %%r:2 = stablehlo.reduce(%%x init: %%c), (%%i init: %%ci) across dimensions = [1] : (%s, %s, tensor<f32>, tensor<i32>) -> (%s, %s)\n"
                     "   reducer(%%a: tensor<f32>, %%b: tensor<f32>) (%%ai: tensor<i32>, %%bi: tensor<i32>) {\n"
                     "    %%gt = stablehlo.compare GT, %%a, %%b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                     "    %%v = stablehlo.select %%gt, %%a, %%b : tensor<i1>, tensor<f32>\n"
                     "    %%w = stablehlo.select %%gt, %%ai, %%bi : tensor<i1>, tensor<i32>\n"
                     "    stablehlo.return %%v, %%w : tensor<f32>, tensor<i32>\n"
                     "  }\n", X, XI, U, UI);
    conf_gen_set_ret_types2(g, U, UI);
    return conf_gen_push_case(g, "%r#0, %r#1");
}

/* sort with an i32 index payload and a float payload holding NaNs with
 * payloads, so that stability and the carrying of payloads are observable:
 * stable FLOAT comparators (LT and GT) on keys with repeats and ±0 (no NaN
 * key: FLOAT is no strict weak order with NaNs) along each dimension;
 * stable TOTALORDER on keys with repeated NaNs; unstable TOTALORDER on
 * bit-distinct keys (the only order an unstable sort defines); stable
 * SIGNED/UNSIGNED comparators on repeated integer keys. */
static bool forms_sort(gen *g, plumb_dtype t)
{
    static const int64_t sd[3] = {4, 6, 5};
    const char *fns[8];
    uint32_t nf = 0;
    bool f = plumb_dtype_is_float(t);
    if (f) {
        fns[nf++] = "stable_lt_float_dim0"; fns[nf++] = "stable_lt_float_dim1"; fns[nf++] = "stable_lt_float_dim2";
        fns[nf++] = "stable_gt_float"; fns[nf++] = "stable_lt_totalorder"; fns[nf++] = "unstable_lt_totalorder";
    } else {
        fns[nf++] = plumb_dtype_is_signed(t) ? "stable_lt_signed" : "stable_lt_unsigned";
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    for (uint32_t k = 0; k < nf; k++) {
        if (!form_begin(g, t, "r3", data_class(t), fns[k])) continue;
        int dim = !strncmp(fns[k], "stable_lt_float_dim", 19) ? fns[k][19] - '0' : 2;
        bool stable = fns[k][0] == 's', total = strstr(fns[k], "totalorder") != NULL;
        const char *dir = strstr(fns[k], "_gt_") ? "GT" : "LT";
        const char *ct = f ? (total ? "TOTALORDER" : "FLOAT") : plumb_dtype_is_signed(t) ? "SIGNED" : "UNSIGNED";
        int64_t n = sd[0] * sd[1] * sd[2];
        plumb_tensor *key = conf_gen_param(g, "k", t, 3, sd, NULL, 0, 0);
        plumb_tensor *idx = conf_gen_param(g, "i", PLUMB_I32, 3, sd, NULL, 0, 0);
        plumb_tensor *pay = conf_gen_param(g, "p", PLUMB_F32, 3, sd, "special", 0, 0);
        if (!key || !idx || !pay) return conf_gen_push_case(g, "");
        uint64_t sign = 1ull << (di->bits - 1);
        for (int64_t i = 0; i < n; i++) {
            uint64_t b;
            if (!f) b = conf_gen_int_boundary(t, (uint64_t)gsl_rng_uniform_int(g->rng, 4)); /* few values: many ties */
            else if (!stable) {
                /* bit-distinct: the i-th value of a spread of magnitudes, both signs,
                 * ±0, ±inf and NaNs of distinct payloads */
                uint64_t expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
                if (i < 4) b = (i & 1 ? sign : 0) | (i < 2 ? 0 : expm);
                else if (i < 12) b = (i & 1 ? sign : 0) | expm | conf_gen_qbit(di) | (uint64_t)i;
                else b = (i & 1 ? sign : 0) | (conf_gen_fbits(t, 1.0) + (uint64_t)i * 977);
            } else {
                static const double pool[] = {0.0, -0.0, 1.0, -1.0, 2.5, INFINITY, -INFINITY, 1.0, 0.0};
                b = conf_gen_fbits(t, pool[gsl_rng_uniform_int(g->rng, LEN(pool))]);
                if (total && gsl_rng_uniform_int(g->rng, 5) == 0) /* NaNs of two payloads, both signs */
                    b = ((1ull << di->exp_bits) - 1) << di->mant_bits | conf_gen_qbit(di) |
                        gsl_rng_uniform_int(g->rng, 2) | (gsl_rng_uniform_int(g->rng, 2) ? sign : 0);
            }
            plumb_store_bits(t, key->data, (size_t)i, b);
            plumb_store_bits(PLUMB_I32, idx->data, (size_t)i, (uint64_t)i);
        }
        if (!stable) /* a fixed scramble of the distinct keys */
            for (int64_t i = n - 1; i > 0; i--) {
                int64_t j = (int64_t)gsl_rng_uniform_int(g->rng, (unsigned long)(i + 1));
                uint64_t a = plumb_load_bits(t, key->data, (size_t)i), c = plumb_load_bits(t, key->data, (size_t)j);
                plumb_store_bits(t, key->data, (size_t)i, c);
                plumb_store_bits(t, key->data, (size_t)j, a);
            }
        const char *T = conf_gen_tys(g, t, 3, sd), *TI = conf_gen_tys(g, PLUMB_I32, 3, sd), *TP = conf_gen_tys(g, PLUMB_F32, 3, sd);
        const char *T0 = conf_gen_tys(g, t, 0, NULL);
        plumb_buf_printf(&g->body,
                         "  %%r:3 = \"stablehlo.sort\"(%%k, %%i, %%p) <{dimension = %d : i64, is_stable = %s}> ({\n"
                         "    ^bb0(%%a: %s, %%b: %s, %%ai: tensor<i32>, %%bi: tensor<i32>, %%ap: tensor<f32>, %%bp: tensor<f32>):\n"
                         "      %%lt = stablehlo.compare %s, %%a, %%b, %s : (%s, %s) -> tensor<i1>\n"
                         "      stablehlo.return %%lt : tensor<i1>\n"
                         "    }) : (%s, %s, %s) -> (%s, %s, %s)\n",
                         dim, stable ? "true" : "false", T0, T0, dir, ct, T0, T0, T, TI, TP, T, TI, TP);
        char *rt = plumb_arena_array(g->out->arena, strlen(T) + strlen(TI) + strlen(TP) + 5, 1);
        if (rt) sprintf(rt, "%s, %s, %s", T, TI, TP);
        else g->failed = true;
        g->ret_types = rt ? rt : "";
        if (!conf_gen_push_case(g, "%r#0, %r#1, %r#2")) return false;
    }
    return true;
}

/* pad with negative low/high padding (cropping), interior padding, both,
 * and a cropping that empties a dimension; the pad value a NaN with a
 * payload. */
static bool forms_pad(gen *g)
{
    static const struct { const char *name; int64_t lo[2], hi[2], in[2]; } pf[] = {
        {"neg_low", {-1, -2}, {0, 1}, {0, 0}},
        {"neg_high", {1, 0}, {-2, -1}, {0, 0}},
        {"interior", {0, 1}, {1, 0}, {2, 1}},
        {"neg_interior", {-2, -1}, {-1, -3}, {1, 2}},
        {"neg_to_empty", {-2, 0}, {-2, 1}, {0, 0}},
        {"interior_one_side", {3, -4}, {0, 2}, {1, 1}},
    };
    plumb_dtype t = PLUMB_F32;
    int64_t xd[2] = {4, 5};
    const plumb_dtype_info *di = plumb_dtype_get(t);
    for (uint32_t k = 0; k < LEN(pf); k++) {
        if (!form_begin(g, t, "r2", "special", pf[k].name)) continue;
        int64_t od[2];
        for (int i = 0; i < 2; i++) od[i] = pf[k].lo[i] + pf[k].hi[i] + xd[i] + (xd[i] - 1) * pf[k].in[i];
        conf_gen_param(g, "x", t, 2, xd, "special", 0, 0);
        plumb_tensor *v = conf_gen_param(g, "v", t, 0, NULL, NULL, 0, 0);
        if (v) plumb_store_bits(t, v->data, 0, (((1ull << di->exp_bits) - 1) << di->mant_bits) | conf_gen_qbit(di) | 9);
        const char *U = conf_gen_tys(g, t, 2, od);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.pad %%x, %%v, low = [%lld, %lld], high = [%lld, %lld], interior = [%lld, %lld] : (%s, %s) -> %s\n",
                         (long long)pf[k].lo[0], (long long)pf[k].lo[1], (long long)pf[k].hi[0], (long long)pf[k].hi[1],
                         (long long)pf[k].in[0], (long long)pf[k].in[1], conf_gen_tys(g, t, 2, xd), conf_gen_tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!conf_gen_push_case(g, "%r")) return false;
    }
    return true;
}

bool conf_gen_forms(gen *g)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    switch (g->op) {
    case PLUMB_OP_TRANSPOSE: case PLUMB_OP_REVERSE: ok = forms_transpose_reverse(g); break;
    case PLUMB_OP_BROADCAST_IN_DIM: ok = forms_broadcast(g); break;
    case PLUMB_OP_CONCATENATE: ok = forms_concatenate(g); break;
    case PLUMB_OP_IOTA: ok = forms_iota(g); break;
    case PLUMB_OP_PAD: ok = forms_pad(g); break;
    case PLUMB_OP_REDUCE:
        ok = forms_reduce_dims(g);
        for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
            plumb_dtype t = (plumb_dtype)ti;
            if ((oi->types & PLUMB_TY_BIT(t)) && (plumb_dtype_is_float(t) || t == PLUMB_I32 || t == PLUMB_UI32))
                ok = forms_reduce_bodies(g, t);
        }
        break;
    case PLUMB_OP_SORT:
        ok = forms_sort(g, PLUMB_F32) && forms_sort(g, PLUMB_I32) && forms_sort(g, PLUMB_UI32);
        break;
    case PLUMB_OP_CLAMP: case PLUMB_OP_COMPARE:
        for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
            if (oi->types & PLUMB_TY_BIT(ti))
                ok = g->op == PLUMB_OP_CLAMP ? forms_clamp(g, (plumb_dtype)ti) : forms_compare(g, (plumb_dtype)ti);
        break;
    default: break;
    }
    g->form = NULL;
    return ok && !g->failed;
}

