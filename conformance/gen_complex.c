/* The complex families: elementwise values, sums and dots, the ops that
 * compare, select, sort and scatter, and those that move, index, pass and map (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* ---- complex values (docs/spec/complex.md; docs/conformance.md "Complex") ----
 * The ops that take complex values elementwise, on complex<f32> and
 * complex<f64>, one rank-1 case per value class, after every other family
 * (so no older case's ordinal moves): "normal" (components from N(0, 1)),
 * "loguniform" (components over the whole exponent range, random signs),
 * "small" (components near 2^-20: expm1, log1p, sin, ... of a small
 * argument), "special" (every pair of the component type's special values,
 * x crossed with a reversed y for binary ops) and, for multiply, "cancel"
 * (ac ≈ bd: the real part cancels, which a dropped or misrounded product
 * shows). */
static const char *const V_COMPLEX[] = {"normal", "loguniform", "small", "special", "cancel"};

bool conf_complex_family_op(plumb_opcode op)
{
    if (op == PLUMB_OP_REAL || op == PLUMB_OP_IMAG) return true;
    const plumb_op_info *oi = plumb_op_get(op);
    return ir_complex_arith(op) && oi->kind == PLUMB_KIND_ELEMENTWISE && op != PLUMB_OP_COMPARE &&
           op != PLUMB_OP_CONVERT && op != PLUMB_OP_SELECT && op != PLUMB_OP_IOTA &&
           op != PLUMB_OP_ATAN2 &&   /* no runtime bound yet (docs/spec/complex.md) */
           (oi->arity == 1 || oi->arity == 2 || op == PLUMB_OP_CLAMP);
}

uint32_t conf_complex_classes(plumb_opcode op)
{
    return conf_complex_family_op(op) ? (op == PLUMB_OP_MULTIPLY ? 5 : 4) : 0;
}

static double complex_component(gen *g, plumb_dtype ct, const char *vc)
{
    if (!strcmp(vc, "loguniform")) {
        int emax = ct == PLUMB_F32 ? 127 : 1023;
        double v = exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * (emax - 2));
        return gsl_rng_uniform(g->rng) < 0.5 ? -v : v;
    }
    if (!strcmp(vc, "small")) return ldexp(gsl_ran_gaussian(g->rng, 1.0), -20);
    return gsl_ran_gaussian(g->rng, 1.0);
}

static void complex_store(plumb_tensor *x, uint64_t i, plumb_dtype ct, double re, double im)
{
    plumb_store_bits(ct, x->data, 2 * i, conf_gen_fbits(ct, re));
    plumb_store_bits(ct, x->data, 2 * i + 1, conf_gen_fbits(ct, im));
}

static bool complex_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool binary = oi->arity == 2, special = !strcmp(g->value, "special");
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(ct, sp);
    bool pw = g->op == PLUMB_OP_POWER;
    if (pw) {
        /* the runtime's power bound holds for |w log z| < 2^6 (docs/spec/
         * complex.md): its special values are the zeros (the pole) and the
         * finite ones of modest size */
        uint32_t m = 0;
        for (uint32_t i = 0; i < ns; i++) {
            double v = fabs(plumb_load_f64(ct, (uint64_t[]){sp[i]}, 0));
            if (v == 0 || (v >= 0.09 && v <= 3)) sp[m++] = sp[i];
        }
        ns = m;
    }
    int64_t n = special ? (int64_t)ns * ns : 37;
    /* clamp: operands (lo, x, hi), lo and hi drawn like y */
    bool clamp = g->op == PLUMB_OP_CLAMP;
    plumb_tensor *lo = clamp ? conf_gen_param(g, "lo", t, 1, &n, NULL, 0, 0) : NULL;
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = binary || clamp ? conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || ((binary || clamp) && !y) || (clamp && !lo)) return conf_gen_push_case(g, "%r");
    for (int64_t i = 0; clamp && i < n; i++) {
        if (special) {
            /* every special pair again, in another order than x's and y's */
            uint64_t a = (uint64_t)i / ns, b = (uint64_t)i % ns;
            plumb_store_bits(ct, lo->data, 2 * (uint64_t)i, sp[(a + b) % ns]);
            plumb_store_bits(ct, lo->data, 2 * (uint64_t)i + 1, sp[b]);
        } else {
            double a = complex_component(g, ct, g->value), b = complex_component(g, ct, g->value);
            complex_store(lo, (uint64_t)i, ct, a, b);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (special) {
            uint64_t a = (uint64_t)i / ns, b = (uint64_t)i % ns;
            plumb_store_bits(ct, x->data, 2 * (uint64_t)i, sp[a]);
            plumb_store_bits(ct, x->data, 2 * (uint64_t)i + 1, sp[b]);
            if (y) {
                plumb_store_bits(ct, y->data, 2 * (uint64_t)i, sp[ns - 1 - b]);
                plumb_store_bits(ct, y->data, 2 * (uint64_t)i + 1, sp[ns - 1 - a]);
            }
            continue;
        }
        double a = complex_component(g, ct, g->value), b = complex_component(g, ct, g->value);
        if (pw && !strcmp(g->value, "loguniform")) {
            /* |log z| <= 28 and |w| < 2.2: |w log z| < 2^6 */
            a = copysign(exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * 40), a);
            b = copysign(exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * 40), b);
        }
        complex_store(x, (uint64_t)i, ct, a, b);
        if (!y) continue;
        double c = complex_component(g, ct, g->value), d = complex_component(g, ct, g->value);
        if (pw && !strcmp(g->value, "loguniform")) {
            c = gsl_rng_uniform(g->rng) * 3.0 - 1.5;
            d = gsl_rng_uniform(g->rng) * 3.0 - 1.5;
        }
        /* cancel: d = ac/b rounded, so that ac - bd is a rounding error of ac */
        if (!strcmp(g->value, "cancel") && b != 0) d = plumb_load_f64(ct, (uint64_t[]){conf_gen_fbits(ct, a * c / b)}, 0);
        complex_store(y, (uint64_t)i, ct, c, d);
    }
    const char *T = conf_gen_tys(g, t, 1, &n);
    if (g->op == PLUMB_OP_ABS || g->op == PLUMB_OP_REAL || g->op == PLUMB_OP_IMAG) {
        const char *R = conf_gen_tys(g, ct, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, R);
        g->ret_types = R;
    } else if (clamp) {
        plumb_buf_printf(&g->body, "  %%r = %s %%lo, %%x, %%y : %s\n", oi->name, T);
        g->ret_types = T;
    } else if (binary) {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_complex(gen *g)
{
    uint32_t nc = conf_complex_classes(g->op);
    bool ok = true;
    for (int k = 0; ok && nc && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t v = 0; ok && v < nc; v++) ok = conf_gen_depth_case(g, t, t, V_COMPLEX[v], complex_case);
    }
    return ok;
}

/* ---- complex sums and dots (docs/spec/complex.md, "Sums and dots") ----
 * reduce with an add body over one, two and three dimensions of a 4x6x5
 * complex tensor, and dot_general matrix·vector, matrix·matrix and batched,
 * on complex<f32> and complex<f64>, after every other family. Value classes:
 * "normal" (components from N(0, 1)) and "cancel": for a reduce, every
 * other reduced element is the negation of its neighbour in the same sum
 * (components near 2^10) plus a term near 2^-10, so each component's sum is
 * small beside Σ|x|; for a dot, bi = ar·br/ai rounded, so every product's
 * real part ar·br − ai·bi is a rounding error of ar·br. Judged by the
 * per-component bound of conformance/check.c's check_csum. */
static const char *const CSUM_VALUES[] = {"normal", "cancel"};

uint32_t conf_complex_sum_cases(plumb_opcode op)
{
    return op == PLUMB_OP_REDUCE || op == PLUMB_OP_DOT_GENERAL ? 2 * 3 * 2 : 0;
}

static bool csum_reduce_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const int64_t xd[3] = {4, 6, 5};
    const char *dims;
    int pd;
    shp o;
    if (!strcmp(g->shape, "d1")) { pd = 1; dims = "[1]"; o = (shp){2, {4, 5}}; }
    else if (!strcmp(g->shape, "d2")) { pd = 0; dims = "[0, 2]"; o = (shp){1, {6}}; }
    else { pd = 1; dims = "[0, 1, 2]"; o = (shp){0, {0}}; }
    plumb_tensor *x = conf_gen_param(g, "x", t, 3, xd, NULL, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, NULL, 0, 0);
    if (!x || !c) return conf_gen_push_case(g, "%r");
    complex_store(c, 0, ct, 0.0, 0.0);
    bool cancel = !strcmp(g->value, "cancel");
    for (int64_t a = 0; a < 4; a++)
        for (int64_t b = 0; b < 6; b++)
            for (int64_t e = 0; e < 5; e++) {
                uint64_t i = (uint64_t)((a * 6 + b) * 5 + e);
                /* pairs along reduced dimension pd (of even length): an
                 * element at an odd coordinate cancels its neighbour at
                 * the even one below, which the same sum holds */
                int64_t co[3] = {a, b, e};
                if (!cancel || co[pd] % 2 == 0) {
                    double s = cancel ? 1024.0 : 1.0;
                    complex_store(x, i, ct, s * gsl_ran_gaussian(g->rng, 1.0), s * gsl_ran_gaussian(g->rng, 1.0));
                    continue;
                }
                co[pd]--;
                uint64_t pi = (uint64_t)((co[0] * 6 + co[1]) * 5 + co[2]);
                double pr = plumb_load_f64(ct, x->data, 2 * pi), pm = plumb_load_f64(ct, x->data, 2 * pi + 1);
                complex_store(x, i, ct, -pr + ldexp(gsl_ran_gaussian(g->rng, 1.0), -10),
                              -pm + ldexp(gsl_ran_gaussian(g->rng, 1.0), -10));
            }
    const char *U = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = %s : (%s, %s) -> %s\n",
                     dims, conf_gen_tys(g, t, 3, xd), conf_gen_tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

static bool csum_dot_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    shp l, r, o;
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(g->shape, "mv")) { l = (shp){2, {7, 13}}; r = (shp){1, {13}}; o = (shp){1, {7}}; }
    else if (!strcmp(g->shape, "mm")) { l = (shp){2, {7, 13}}; r = (shp){2, {13, 5}}; o = (shp){2, {7, 5}}; }
    else {
        l = (shp){3, {3, 7, 13}}; r = (shp){3, {3, 13, 5}}; o = (shp){3, {3, 7, 5}};
        dn = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
    }
    plumb_tensor *x = conf_gen_param(g, "x", t, l.rank, l.dims, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", t, r.rank, r.dims, NULL, 0, 0);
    if (!x || !y) return conf_gen_push_case(g, "%r");
    uint64_t nx = plumb_tensor_numel(x), ny = plumb_tensor_numel(y);
    for (uint64_t i = 0; i < nx; i++)
        complex_store(x, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
    bool cancel = !strcmp(g->value, "cancel");
    for (uint64_t i = 0; i < ny; i++) {
        double br = gsl_ran_gaussian(g->rng, 1.0), bi = gsl_ran_gaussian(g->rng, 1.0);
        if (cancel) {
            /* every lhs element in this rhs element's products: the one in
             * the same batch at the same contracting index and row 0 */
            int64_t kk = r.rank == 1 ? (int64_t)i : r.rank == 2 ? (int64_t)i / r.dims[1] : ((int64_t)i / r.dims[2]) % r.dims[1];
            int64_t bt = r.rank == 3 ? (int64_t)i / (r.dims[1] * r.dims[2]) : 0;
            uint64_t li = (uint64_t)(bt * l.dims[l.rank - 2] * l.dims[l.rank - 1] + kk);
            double ar = plumb_load_f64(ct, x->data, 2 * li), ai = plumb_load_f64(ct, x->data, 2 * li + 1);
            if (ai != 0) bi = plumb_load_f64(ct, (uint64_t[]){conf_gen_fbits(ct, ar * br / ai)}, 0);
        }
        complex_store(y, i, ct, br, bi);
    }
    const char *R = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                     conf_gen_tys(g, t, l.rank, l.dims), conf_gen_tys(g, t, r.rank, r.dims), R);
    g->ret_types = R;
    return conf_gen_push_case(g, "%r");
}

static bool csum_d1(gen *g) { g->shape = "d1"; return csum_reduce_case(g); }
static bool csum_d2(gen *g) { g->shape = "d2"; return csum_reduce_case(g); }
static bool csum_d3(gen *g) { g->shape = "d3"; return csum_reduce_case(g); }
static bool csum_mv(gen *g) { g->shape = "mv"; return csum_dot_case(g); }
static bool csum_mm(gen *g) { g->shape = "mm"; return csum_dot_case(g); }
static bool csum_batch(gen *g) { g->shape = "batch"; return csum_dot_case(g); }

bool conf_gen_complex_sum(gen *g)
{
    if (!conf_complex_sum_cases(g->op)) return true;
    bool ok = true;
    static bool (*const red[3])(gen *) = {csum_d1, csum_d2, csum_d3};
    static bool (*const dot[3])(gen *) = {csum_mv, csum_mm, csum_batch};
    for (int k = 0; ok && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t s = 0; ok && s < 3; s++)
            for (uint32_t v = 0; ok && v < 2; v++)
                ok = conf_gen_depth_case(g, t, t, CSUM_VALUES[v], g->op == PLUMB_OP_REDUCE ? red[s] : dot[s]);
    }
    return ok;
}
/* ---- complex values through the ops that compare, select, sort, scatter
 * and move them (docs/spec/complex.md; docs/conformance.md "Complex") ----
 * On complex<f32> and complex<f64>, after every other family: compare in
 * each direction (lexicographic on (re, im) for LT, LE, GT, GE), select,
 * sort (a complex LT comparator with an i32 payload, and a comparator on the
 * real parts alone; stable), scatter with a replacing region and distinct
 * indices, select_and_scatter with a complex GE select and a replacing
 * scatter over windows that do not overlap, reverse, pad, concatenate and
 * transpose. Every case is exact (the result is one well-defined choice or
 * copy per element), judged per component. Value class "ties": components
 * from {-2, -1, -0, +0, 0.5, 1, 3} (plus NaN and +-inf except for sort's
 * keys), so real parts tie often and the imaginary part decides. */
static const char *const CPLX_DIRS[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

uint32_t conf_complex_ops_cases(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_COMPARE: return 2 * 6;
    case PLUMB_OP_SORT: return 2 * 2;
    case PLUMB_OP_SELECT: case PLUMB_OP_SCATTER: case PLUMB_OP_SELECT_AND_SCATTER: case PLUMB_OP_REVERSE:
    case PLUMB_OP_PAD: case PLUMB_OP_CONCATENATE: case PLUMB_OP_TRANSPOSE:
        return 2;
    default: return 0;
    }
}

static void cplx_ties(gen *g, plumb_tensor *x, bool specials)
{
    static const double pool[] = {-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, NAN, INFINITY, -INFINITY};
    unsigned long np = specials ? 10 : 7;
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
        plumb_complex_store(x->dtype, x->data, (size_t)i, pool[gsl_rng_uniform_int(g->rng, np)],
                            pool[gsl_rng_uniform_int(g->rng, np)]);
}

static plumb_tensor *cplx_param(gen *g, const char *name, uint32_t rank, const int64_t *dims, bool specials)
{
    plumb_tensor *x = conf_gen_param(g, name, g->t, rank, dims, NULL, 0, 0);
    if (x) cplx_ties(g, x, specials);
    return x;
}

static bool cplx_op_case(gen *g)
{
    plumb_dtype t = g->t;
    const char *C = conf_gen_tys(g, t, 0, NULL);
    static const int64_t d2[2] = {3, 5}, d9[2] = {2, 9}, sn[1] = {40};
    const char *T2 = conf_gen_tys(g, t, 2, d2);
    switch (g->op) {
    case PLUMB_OP_COMPARE: {
        g->shape = CPLX_DIRS[g->rep];
        if (!cplx_param(g, "x", 1, sn, true) || !cplx_param(g, "y", 1, sn, true)) break;
        const char *T = conf_gen_tys(g, t, 1, sn), *B = conf_gen_tys(g, PLUMB_I1, 1, sn);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, FLOAT : (%s, %s) -> %s\n", g->shape, T, T, B);
        g->ret_types = B;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_SELECT: {
        plumb_tensor *p = conf_gen_param(g, "p", PLUMB_I1, 2, d2, NULL, 0, 1);
        if (!p || !cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, d2, true)) break;
        plumb_buf_printf(&g->body, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", conf_gen_tys(g, PLUMB_I1, 2, d2), T2);
        g->ret_types = T2;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_SORT: {
        g->shape = g->rep ? "by_real" : "lex";
        if (!cplx_param(g, "k", 2, d9, false) || !conf_gen_param(g, "v", PLUMB_I32, 2, d9, NULL, -1000, 1000)) break;
        const char *K = conf_gen_tys(g, t, 2, d9), *V = conf_gen_tys(g, PLUMB_I32, 2, d9), *F = conf_gen_tys(g, plumb_dtype_component(t), 0, NULL);
        plumb_buf_printf(&g->body,
                         "  %%r:2 = \"stablehlo.sort\"(%%k, %%v) <{dimension = 1 : i64, is_stable = true}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s, %%i: tensor<i32>, %%j: tensor<i32>):\n", C, C);
        if (g->rep)
            plumb_buf_printf(&g->body,
                             "    %%ar = stablehlo.real %%a : (%s) -> %s\n"
                             "    %%br = stablehlo.real %%b : (%s) -> %s\n"
                             "    %%c = stablehlo.compare GT, %%ar, %%br, FLOAT : (%s, %s) -> tensor<i1>\n",
                             C, F, C, F, F, F);
        else
            plumb_buf_printf(&g->body, "    %%c = stablehlo.compare LT, %%a, %%b, FLOAT : (%s, %s) -> tensor<i1>\n", C, C);
        plumb_buf_printf(&g->body, "    stablehlo.return %%c : tensor<i1>\n  }) : (%s, %s) -> (%s, %s)\n", K, V, K, V);
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_buf_printf(&b, "%s, %s", K, V);
        const char *rt = plumb_arena_strdup(g->out->arena, b.data ? b.data : "");
        plumb_buf_free(&b);
        if (!rt) { g->failed = true; break; }
        g->ret_types = rt;
        return conf_gen_push_case(g, "%r#0, %r#1");
    }
    case PLUMB_OP_SCATTER: {
        /* 5 distinct targets of 8 (a shuffled prefix), one index past the end */
        static const int64_t s8[1] = {8}, di[2] = {6, 1}, su[1] = {6};
        plumb_tensor *x = cplx_param(g, "x", 1, s8, true);
        plumb_tensor *ix = conf_gen_param(g, "i", PLUMB_I32, 2, di, NULL, 0, 0);
        plumb_tensor *u = cplx_param(g, "u", 1, su, true);
        if (!x || !ix || !u) break;
        int32_t perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        gsl_ran_shuffle(g->rng, perm, 8, sizeof perm[0]);
        perm[5] = 8 + (int32_t)gsl_rng_uniform_int(g->rng, 4);   /* outside: the update is skipped */
        for (int k = 0; k < 6; k++) plumb_store_bits(PLUMB_I32, ix->data, (size_t)k, (uint64_t)(uint32_t)perm[k]);
        const char *X = conf_gen_tys(g, t, 1, s8), *U = conf_gen_tys(g, t, 1, su);
        plumb_buf_printf(&g->body,
                         "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                         "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,"
                         " unique_indices = true}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n    stablehlo.return %%b : %s\n"
                         "  }) : (%s, tensor<6x1xi32>, %s) -> %s\n", C, C, C, X, U, X);
        g->ret_types = X;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_SELECT_AND_SCATTER: {
        static const int64_t dx[2] = {4, 6}, ds[2] = {2, 2};
        if (!cplx_param(g, "x", 2, dx, true) || !cplx_param(g, "s", 2, ds, true) || !cplx_param(g, "z", 0, NULL, true))
            break;
        const char *X = conf_gen_tys(g, t, 2, dx), *S = conf_gen_tys(g, t, 2, ds);
        plumb_buf_printf(&g->body,
                         "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%z) <{window_dimensions = array<i64: 2, 3>,"
                         " window_strides = array<i64: 2, 3>}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n"
                         "    %%c = stablehlo.compare GE, %%a, %%b, FLOAT : (%s, %s) -> tensor<i1>\n"
                         "    stablehlo.return %%c : tensor<i1>\n"
                         "  }, {\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n    stablehlo.return %%b : %s\n"
                         "  }) : (%s, %s, %s) -> %s\n", C, C, C, C, C, C, C, X, S, C, X);
        g->ret_types = X;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_REVERSE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reverse %%x, dims = [0, 1] : %s\n", T2);
        g->ret_types = T2;
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_PAD: {
        static const int64_t dp[2] = {6, 11};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "p", 0, NULL, true)) break;
        const char *P = conf_gen_tys(g, t, 2, dp);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.pad %%x, %%p, low = [1, 0], high = [0, 2], interior = [1, 1] : (%s, %s) -> %s\n",
                         T2, C, P);
        g->ret_types = P;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_CONCATENATE: {
        static const int64_t dy[2] = {3, 2}, dr[2] = {3, 7};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, dy, true)) break;
        const char *R = conf_gen_tys(g, t, 2, dr);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %%x, %%y, dim = 1 : (%s, %s) -> %s\n", T2,
                         conf_gen_tys(g, t, 2, dy), R);
        g->ret_types = R;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_TRANSPOSE: {
        static const int64_t dt[2] = {5, 3};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        const char *R = conf_gen_tys(g, t, 2, dt);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.transpose %%x, dims = [1, 0] : (%s) -> %s\n", T2, R);
        g->ret_types = R;
        return conf_gen_push_case(g, "%r");
    }
    default:
        break;
    }
    g->failed = true;
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_complex_ops(gen *g)
{
    uint32_t per = conf_complex_ops_cases(g->op) / 2;
    bool ok = true;
    for (int k = 0; ok && per && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t v = 0; ok && v < per; v++) {
            /* seeded as conf_gen_depth_case seeds; rep numbers the op's variants */
            g->t = t; g->target = t; g->shape = "odd"; g->value = "ties"; g->rep = v;
            gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
            bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
            if (!keep) g->ordinal++;
            else ok = cplx_op_case(g);
        }
    }
    return ok;
}

/* ---- complex values through the other ops that move, index, pass, map
 * and window them (docs/spec/complex.md; docs/conformance.md
 * "Complex") ----
 * On complex<f32> and complex<f64>, one case per op and type, value class
 * "ties" (cplx_ties: components from a small set with NaN and +-inf), after
 * every other family: slice, reshape, broadcast_in_dim, dynamic_slice and
 * dynamic_update_slice (start indices partly out of range), gather,
 * optimization_barrier, constant (the data as a literal), iota, the
 * bitcast_convert to and from component vectors, map (an add body),
 * reduce_window with a maximum body (lexicographic, exact) and its -inf
 * init, all exact, per component; stablehlo.dot (7x13 · 13, components
 * from N(0, 1); the per-component dot bound of check.c's complex dots);
 * atan2 (catan2_case, two classes);
 * real x complex dot_general (cmixed_case); and reduce with a multiply
 * body (cprod_case). */
uint32_t conf_complex_more_cases(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_SLICE: case PLUMB_OP_RESHAPE: case PLUMB_OP_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_GATHER: case PLUMB_OP_OPTIMIZATION_BARRIER:
    case PLUMB_OP_CONSTANT: case PLUMB_OP_IOTA: case PLUMB_OP_BITCAST_CONVERT: case PLUMB_OP_MAP:
    case PLUMB_OP_REDUCE_WINDOW: case PLUMB_OP_DOT:
        return 2;
    /* the shape-operand ops, their shapes as constants (docs/spec/dynamic.md) */
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE: case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD: case PLUMB_OP_DYNAMIC_GATHER:
        return 2;
    case PLUMB_OP_ATAN2:
        return 4;   /* normal, scaled (catan2_case) */
    case PLUMB_OP_DOT_GENERAL:
        return 4;   /* real x complex, complex x real (cmixed_case) */
    case PLUMB_OP_REDUCE:
        return 6;   /* multiply body over 1, 2, 3 dims (cprod_case) */
    default:
        return 0;
    }
}

static bool cmore_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const int64_t d2[2] = {3, 5}, d22[2] = {2, 2}, d23[2] = {2, 3}, d53[2] = {5, 3}, d5[1] = {5};
    const char *C = conf_gen_tys(g, t, 0, NULL), *T2 = conf_gen_tys(g, t, 2, d2);
    plumb_buf *b = &g->body;
    switch (g->op) {
    case PLUMB_OP_SLICE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d22);
        plumb_buf_printf(b, "  %%r = stablehlo.slice %%x [0:3:2, 1:5:2] : (%s) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_RESHAPE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d53);
        plumb_buf_printf(b, "  %%r = stablehlo.reshape %%x : (%s) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_BROADCAST_IN_DIM:
        if (!cplx_param(g, "x", 1, d5, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.broadcast_in_dim %%x, dims = [1] : (%s) -> %s\n", conf_gen_tys(g, t, 1, d5), T2);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: {
        bool upd = g->op == PLUMB_OP_DYNAMIC_UPDATE_SLICE;
        if (!cplx_param(g, "x", 2, d2, true) || (upd && !cplx_param(g, "u", 2, d23, true))) break;
        /* start indices partly out of range: the op clamps them */
        if (!conf_gen_param(g, "i0", PLUMB_I32, 0, NULL, NULL, -2, 4) || !conf_gen_param(g, "i1", PLUMB_I32, 0, NULL, NULL, -2, 6)) break;
        const char *W = conf_gen_tys(g, t, 2, d23);
        if (upd) {
            g->ret_types = T2;
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_update_slice %%x, %%u, %%i0, %%i1 : (%s, %s, tensor<i32>, "
                             "tensor<i32>) -> %s\n", T2, W, T2);
        } else {
            g->ret_types = W;
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_slice %%x, %%i0, %%i1, sizes = [2, 3] : (%s, tensor<i32>, "
                             "tensor<i32>) -> %s\n", T2, W);
        }
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_GATHER: {
        static const int64_t di[2] = {4, 1}, d45[2] = {4, 5};
        if (!cplx_param(g, "x", 2, d2, true) || !conf_gen_param(g, "i", PLUMB_I32, 2, di, NULL, -1, 4)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d45);
        plumb_buf_printf(b, "  %%r = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<"
                         "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                         "slice_sizes = array<i64: 1, 5>}> : (%s, tensor<4x1xi32>) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_OPTIMIZATION_BARRIER:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.optimization_barrier %%x : %s\n", T2);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_CONSTANT: {
        plumb_tensor *tmp = plumb_tensor_new(t, 2, d2, 0, g->d);
        if (!tmp) break;
        cplx_ties(g, tmp, true);
        plumb_buf_puts(b, "  %r = stablehlo.constant ");
        plumb_dense_print(b, tmp, true);
        plumb_buf_printf(b, " : %s\n", T2);
        plumb_tensor_free(tmp);
        g->ret_types = T2;
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_IOTA:
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.iota dim = 1 : %s\n", T2);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_BITCAST_CONVERT: {
        /* complex<fN> -> tensor<...x2xfN> and back: the components in memory order */
        static const int64_t d3[3] = {3, 5, 2};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        const char *V = conf_gen_tys(g, ct, 3, d3);
        plumb_buf_printf(b, "  %%v = stablehlo.bitcast_convert %%x : (%s) -> %s\n"
                            "  %%w = stablehlo.bitcast_convert %%v : (%s) -> %s\n", T2, V, V, T2);
        plumb_buf pb;
        plumb_buf_init(&pb);
        plumb_buf_printf(&pb, "%s, %s", V, T2);
        g->ret_types = plumb_arena_strdup(g->out->arena, pb.data ? pb.data : "");
        plumb_buf_free(&pb);
        if (!g->ret_types) break;
        return conf_gen_push_case(g, "%v, %w");
    }
    case PLUMB_OP_MAP:
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, d2, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = \"stablehlo.map\"(%%x, %%y) ({\n"
                            "  ^bb0(%%a: %s, %%c: %s):\n"
                            "    %%s = stablehlo.add %%a, %%c : %s\n"
                            "    stablehlo.return %%s : %s\n"
                            "  }) {dimensions = array<i64: 0, 1>} : (%s, %s) -> %s\n", C, C, C, C, T2, T2, T2);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_REDUCE_WINDOW: {
        static const int64_t dx[2] = {4, 6}, dr[2] = {2, 2};
        if (!cplx_param(g, "x", 2, dx, false)) break;
        plumb_tensor *z = conf_gen_param(g, "z", t, 0, NULL, NULL, 0, 0);
        if (!z) break;
        plumb_complex_store(t, z->data, 0, -INFINITY, -INFINITY);
        const char *X = conf_gen_tys(g, t, 2, dx);
        g->ret_types = conf_gen_tys(g, t, 2, dr);
        plumb_buf_printf(b, "  %%r = \"stablehlo.reduce_window\"(%%x, %%z) <{padding = dense<[[1, 0], [0, 0]]> : "
                            "tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({\n"
                            "  ^bb0(%%a: %s, %%c: %s):\n"
                            "    %%m = stablehlo.maximum %%a, %%c : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s) -> %s\n", C, C, C, C, X, C, g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        static const int64_t d3[3] = {2, 3, 5};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = conf_gen_tys(g, t, 3, d3);
        plumb_buf_printf(b, "  %%s = stablehlo.constant dense<[2, 3, 5]> : tensor<3xi64>\n"
                            "  %%r = stablehlo.dynamic_broadcast_in_dim %%x, %%s, dims = [1, 2] : (%s, tensor<3xi64>) -> %s\n",
                         T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_RESHAPE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d53);
        plumb_buf_printf(b, "  %%s = stablehlo.constant dense<[5, 3]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.dynamic_reshape %%x, %%s : (%s, tensor<2xi64>) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
        /* rows 0 and 2, columns 1 and 3 */
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d22);
        plumb_buf_printf(b, "  %%a = stablehlo.constant dense<[0, 1]> : tensor<2xi64>\n"
                            "  %%l = stablehlo.constant dense<[3, 5]> : tensor<2xi64>\n"
                            "  %%k = stablehlo.constant dense<[2, 2]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.real_dynamic_slice %%x, %%a, %%l, %%k : (%s, tensor<2xi64>, tensor<2xi64>, "
                            "tensor<2xi64>) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    case PLUMB_OP_DYNAMIC_PAD: {
        /* low [1, 0], high [0, 2], interior [1, 0]: 3x5 -> 6x7, the padding value a tie class value too */
        static const int64_t d67[2] = {6, 7};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "z", 0, NULL, true)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d67);
        plumb_buf_printf(b, "  %%lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>\n"
                            "  %%hi = stablehlo.constant dense<[0, 2]> : tensor<2xi64>\n"
                            "  %%in = stablehlo.constant dense<[1, 0]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.dynamic_pad %%x, %%z, %%lo, %%hi, %%in : (%s, %s, tensor<2xi64>, tensor<2xi64>, "
                            "tensor<2xi64>) -> %s\n", T2, C, g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_GATHER: {
        static const int64_t di[2] = {4, 1}, d45[2] = {4, 5};
        if (!cplx_param(g, "x", 2, d2, true) || !conf_gen_param(g, "i", PLUMB_I32, 2, di, NULL, -1, 4)) break;
        g->ret_types = conf_gen_tys(g, t, 2, d45);
        plumb_buf_printf(b, "  %%ss = stablehlo.constant dense<[1, 5]> : tensor<2xi32>\n"
                            "  %%r = \"stablehlo.dynamic_gather\"(%%x, %%i, %%ss) <{dimension_numbers = #stablehlo.gather<"
                            "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : "
                            "(%s, tensor<4x1xi32>, tensor<2xi32>) -> %s\n", T2, g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    case PLUMB_OP_DOT: {
        static const int64_t dl[2] = {7, 13}, dv[1] = {13}, dr[1] = {7};
        plumb_tensor *x = conf_gen_param(g, "x", t, 2, dl, NULL, 0, 0), *y = conf_gen_param(g, "y", t, 1, dv, NULL, 0, 0);
        if (!x || !y) break;
        for (uint64_t i = 0; i < 91; i++)
            complex_store(x, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
        for (uint64_t i = 0; i < 13; i++)
            complex_store(y, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
        g->ret_types = conf_gen_tys(g, t, 1, dr);
        plumb_buf_printf(b, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", conf_gen_tys(g, t, 2, dl), conf_gen_tys(g, t, 1, dv),
                         g->ret_types);
        return conf_gen_push_case(g, "%r");
    }
    default:
        break;
    }
    g->failed = true;
    return conf_gen_push_case(g, "%r");
}

/* atan2(y, x) on complex: 37 elements whose components are drawn from
 * N(0, 1) ("normal") or N(0, 1) times one power of two in [2^-40, 2^40]
 * per element ("scaled"), rounded to the component type, and kept only
 * where conf_catan2_accept holds (away from the pole x = +-iy and from the
 * cancellations the runtime's bound excludes, docs/spec/complex.md);
 * judged normwise like the complex family's math ops. */
static bool catan2_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    int64_t n = 37;
    plumb_tensor *y = conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0), *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x || !y) { g->failed = true; return conf_gen_push_case(g, "%r"); }
    bool scaled = !strcmp(g->value, "scaled");
    for (int64_t i = 0; i < n; i++) {
        double v[4];
        do {
            double k = scaled ? ldexp(1.0, (int)gsl_rng_uniform_int(g->rng, 81) - 40) : 1.0;
            for (int j = 0; j < 4; j++)
                v[j] = plumb_load_f64(ct, (uint64_t[]){conf_gen_fbits(ct, k * gsl_ran_gaussian(g->rng, 1.0))}, 0);
        } while (!conf_catan2_accept(v[0], v[1], v[2], v[3]));
        complex_store(y, (uint64_t)i, ct, v[0], v[1]);
        complex_store(x, (uint64_t)i, ct, v[2], v[3]);
    }
    g->ret_types = conf_gen_tys(g, t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.atan2 %%y, %%x : %s\n", g->ret_types);
    return conf_gen_push_case(g, "%r");
}

/* real x complex dot_general: 7x13 · 13x5, the real side f32 or f64 (the
 * component type), lhs real ("real_lhs") or rhs real ("real_rhs"),
 * components from N(0, 1); judged per component by check.c's real dot
 * bound (csum_mixed). */
static bool cmixed_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    bool real_lhs = g->rep == 0;
    g->shape = real_lhs ? "real_lhs" : "real_rhs";
    static const int64_t dl[2] = {7, 13}, dr[2] = {13, 5}, dout[2] = {7, 5};
    plumb_tensor *x = conf_gen_param(g, "x", real_lhs ? ct : t, 2, dl, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", real_lhs ? t : ct, 2, dr, NULL, 0, 0);
    if (!x || !y) { g->failed = true; return conf_gen_push_case(g, "%r"); }
    plumb_tensor *v[2] = {x, y};
    for (int k = 0; k < 2; k++)
        for (uint64_t i = 0, n = plumb_tensor_numel(v[k]); i < n; i++) {
            if (plumb_dtype_is_complex(v[k]->dtype))
                complex_store(v[k], i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
            else
                plumb_store_bits(ct, v[k]->data, i, conf_gen_fbits(ct, gsl_ran_gaussian(g->rng, 1.0)));
        }
    g->ret_types = conf_gen_tys(g, t, 2, dout);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : (%s, %s) -> %s\n",
                     conf_gen_tys(g, x->dtype, 2, dl), conf_gen_tys(g, y->dtype, 2, dr), g->ret_types);
    return conf_gen_push_case(g, "%r");
}

/* complex reduce with a multiply body over one, two and three dimensions
 * of a 4x6x5 tensor (6, 20 and 120 factors), init (1, 0), each factor of
 * modulus in [0.8, 1.25] and uniform angle (value class "unit"), so no
 * partial product overflows or underflows in any order: judged normwise by
 * check.c's check_cprod. */
static bool cprod_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const char *const shapes[3] = {"d1", "d2", "d3"};
    g->shape = shapes[g->rep];
    static const int64_t xd[3] = {4, 6, 5}, o1[2] = {4, 5}, o2[1] = {6};
    const char *dims = g->rep == 0 ? "[1]" : g->rep == 1 ? "[0, 2]" : "[0, 1, 2]";
    plumb_tensor *x = conf_gen_param(g, "x", t, 3, xd, NULL, 0, 0), *c = conf_gen_param(g, "c", t, 0, NULL, NULL, 0, 0);
    if (!x || !c) { g->failed = true; return conf_gen_push_case(g, "%r"); }
    complex_store(c, 0, ct, 1.0, 0.0);
    for (uint64_t i = 0; i < 120; i++) {
        double r = 0.8 + 0.45 * gsl_rng_uniform(g->rng), th = 2 * M_PI * gsl_rng_uniform(g->rng);
        complex_store(x, i, ct, r * cos(th), r * sin(th));
    }
    const char *U = g->rep == 0 ? conf_gen_tys(g, t, 2, o1) : g->rep == 1 ? conf_gen_tys(g, t, 1, o2) : conf_gen_tys(g, t, 0, NULL);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.multiply across dimensions = %s : "
                     "(%s, %s) -> %s\n", dims, conf_gen_tys(g, t, 3, xd), conf_gen_tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

static bool cprod_d2(gen *g) { g->rep = 1; return cprod_case(g); }
static bool cprod_d3(gen *g) { g->rep = 2; return cprod_case(g); }

static bool cmixed_rhs_case(gen *g)
{
    g->rep = 1;
    return cmixed_case(g);
}

bool conf_gen_complex_more(gen *g)
{
    bool ok = true;
    for (int k = 0; ok && conf_complex_more_cases(g->op) && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        if (g->op == PLUMB_OP_REDUCE) {
            ok = conf_gen_depth_case(g, t, t, "unit", cprod_case);
            if (ok) ok = conf_gen_depth_case(g, t, t, "unit", cprod_d2);
            if (ok) ok = conf_gen_depth_case(g, t, t, "unit", cprod_d3);
        } else if (g->op == PLUMB_OP_DOT_GENERAL) {
            /* conf_gen_depth_case sets rep 0 (real lhs); cmixed_rhs_case sets 1 */
            ok = conf_gen_depth_case(g, t, t, "normal", cmixed_case);
            if (ok) ok = conf_gen_depth_case(g, t, t, "normal", cmixed_rhs_case);
        } else if (g->op == PLUMB_OP_ATAN2) {
            ok = conf_gen_depth_case(g, t, t, "normal", catan2_case);
            if (ok) ok = conf_gen_depth_case(g, t, t, "scaled", catan2_case);
        } else {
            ok = conf_gen_depth_case(g, t, t, g->op == PLUMB_OP_DOT ? "normal" : "ties", cmore_case);
        }
    }
    return ok;
}

