/* Contractions: convolution, dynamic_conv and dot/dot_general (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"
#include "conv_types.h"

/* lhs %x and kernel %y of a convolution case: the value class's conf_gen_fill, or
 * for complex and the small types the conv-types family's own
 * (conformance/gen_conv_types.c). */
static void conv_operands(gen *g, const shp *l, const shp *r)
{
    uint32_t nv;
    bool own = conf_conv_types_values(g->t, &nv) != NULL;
    plumb_tensor *x = conf_gen_param(g, "x", g->t, l->rank, l->dims, own ? NULL : g->value, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", g->t, r->rank, r->dims, own ? NULL : g->value, 0, 0);
    if (own && x && y && (!conf_conv_types_fill(g->value, x, g->rng) || !conf_conv_types_fill(g->value, y, g->rng)))
        g->failed = true;
}

/* One convolution per shape class (SH_CONV); the result shapes follow the
 * spec's rule, worked out by hand in each comment. */
bool conf_gen_conv(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *nhwc = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", *d1 = "[b, 0, f]x[0, i, o]->[b, 0, f]";
    /* 7x5 padded by 1 under a 3x3 window stays 7x5 */
    shp l = {4, {2, 7, 5, 3}}, r = {4, {3, 3, 3, 4}}, o = {4, {2, 7, 5, 4}};
    const char *dn = nhwc, *win = "pad = [[1, 1], [1, 1]]";
    int fgc = 1, bgc = 1;
    if (!strcmp(sc, "empty")) {          /* no input features: +0 */
        l = (shp){4, {2, 5, 5, 0}}; r = (shp){4, {3, 3, 0, 4}}; o = (shp){4, {2, 3, 3, 4}}; win = "";
    } else if (!strcmp(sc, "one")) {
        l = (shp){4, {1, 1, 1, 1}}; r = l; o = l; win = "";
    } else if (!strcmp(sc, "wide")) {    /* (6 - 3) / 2 + 1 = 2 */
        l = (shp){4, {1, 6, 6, 32}}; r = (shp){4, {3, 3, 32, 8}}; o = (shp){4, {1, 2, 2, 8}}; win = "stride = [2, 2]";
    } else if (!strcmp(sc, "nchw")) {    /* (9 - 3) / 2 + 1 = 4, (10 - 3) / 2 + 1 = 4 */
        l = (shp){4, {1, 3, 9, 10}}; r = (shp){4, {4, 3, 3, 3}}; o = (shp){4, {1, 4, 4, 4}};
        dn = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"; win = "stride = [2, 2]";
    } else if (!strcmp(sc, "groups")) {  /* 4 features in 2 groups of 2, 3 outputs each */
        l = (shp){4, {2, 5, 5, 4}}; r = (shp){4, {3, 3, 2, 6}}; o = (shp){4, {2, 5, 5, 6}}; fgc = 2;
    } else if (!strcmp(sc, "batch_groups")) {   /* batch 4 in 2 groups: 2 */
        l = (shp){3, {4, 6, 3}}; r = (shp){3, {3, 3, 4}}; o = (shp){3, {2, 4, 4}}; dn = d1; win = ""; bgc = 2;
    } else if (!strcmp(sc, "dilated")) { /* 7 -> 13 dilated, 16 padded, window 3 -> 5: 12 */
        l = (shp){3, {2, 7, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {2, 12, 5}}; dn = d1;
        win = "pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [2], reverse = [true]";
    } else if (!strcmp(sc, "layout")) {  /* lhs (11, f 2, b 3), kernel (o 5, 3, i 2): 11 - 3 + 1 = 9 */
        l = (shp){3, {11, 2, 3}}; r = (shp){3, {5, 3, 2}}; o = (shp){3, {5, 3, 9}};
        dn = "[0, f, b]x[o, 0, i]->[f, b, 0]"; win = "";
    }
    conv_operands(g, &l, &r);
    const char *L = conf_gen_tys(g, t, l.rank, l.dims), *R = conf_gen_tys(g, t, r.rank, r.dims), *U = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.convolution(%%x, %%y) dim_numbers = %s, window = {%s} "
                     "{batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s\n",
                     dn, win, bgc, fgc, L, R, U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

/* dynamic_conv: the padding is parameter %p ([S, 2] i64), so the runtime
 * reads it when the case runs; results are static (each class's padding
 * gives the declared shape). The generic form, as StableHLO prints it. */
bool conf_gen_dynconv(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *dn = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", *win = "";
    /* same: 7x5 padded by 1 under a 3x3 window stays 7x5 */
    shp l = {4, {2, 7, 5, 3}}, r = {4, {3, 3, 3, 4}}, o = {4, {2, 7, 5, 4}};
    int64_t pad[4] = {1, 1, 1, 1}, S = 2;
    if (!strcmp(sc, "crop")) {          /* 8 - 1 + 2 = 9 under a window of 3: 7 */
        l = (shp){3, {1, 8, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {1, 7, 5}};
        dn = "[b, 0, f]x[0, i, o]->[b, 0, f]"; S = 1; pad[0] = -1; pad[1] = 2;
    } else if (!strcmp(sc, "asym")) {   /* (2 + 6 - 2) / 2 + 1 = 4, (5 + 3 - 3) / 2 + 1 = 3 */
        l = (shp){4, {1, 6, 5, 2}}; r = (shp){4, {2, 3, 2, 3}}; o = (shp){4, {1, 4, 3, 3}};
        pad[0] = 2; pad[1] = 0; pad[2] = 0; pad[3] = 3; win = ", window_strides = array<i64: 2, 2>";
    } else if (!strcmp(sc, "dilated")) {   /* 7 -> 13 dilated, 16 padded, window 3 -> 5: 12 */
        l = (shp){3, {2, 7, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {2, 12, 5}};
        dn = "[b, 0, f]x[0, i, o]->[b, 0, f]"; S = 1; pad[0] = 2; pad[1] = 1;
        win = ", lhs_dilation = array<i64: 2>, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>";
    }
    int64_t pd[2] = {S, 2};
    conv_operands(g, &l, &r);
    plumb_tensor *p = conf_gen_param(g, "p", PLUMB_I64, 2, pd, NULL, 0, 0);
    if (p)
        for (int64_t i = 0; i < 2 * S; i++) plumb_store_bits(PLUMB_I64, p->data, (uint64_t)i, (uint64_t)pad[i]);
    const char *L = conf_gen_tys(g, t, l.rank, l.dims), *R = conf_gen_tys(g, t, r.rank, r.dims), *U = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%y, %%p) <{batch_group_count = 1 : i64, "
                     "dimension_numbers = #stablehlo.conv<%s>, feature_group_count = 1 : i64%s}> : (%s, %s, %s) -> %s\n",
                     dn, win, L, R, conf_gen_tys(g, PLUMB_I64, 2, pd), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_dot(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    shp l = {2, {7, 13}}, r = {2, {13, 5}}, o = {2, {7, 5}};
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(sc, "scalar")) { l = (shp){1, {13}}; r = l; o = (shp){0, {0}}; dn = "contracting_dims = [0] x [0]"; }
    if (!strcmp(sc, "empty")) { l = (shp){2, {3, 0}}; r = (shp){2, {0, 4}}; o = (shp){2, {3, 4}}; }
    if (!strcmp(sc, "one")) { l = (shp){2, {1, 1}}; r = l; o = l; }
    if (!strcmp(sc, "wide")) { l = (shp){2, {4, 300}}; r = (shp){2, {300, 3}}; o = (shp){2, {4, 3}}; }
    if (g->dyn) {
        /* dot: x's rows `?`; dot_general: the contracting dim `?` in both (n terms) */
        if (g->op == PLUMB_OP_DOT) { l = (shp){2, {-1, 13}}; r = (shp){2, {13, 5}}; o = (shp){2, {-1, 5}}; }
        else { l = (shp){2, {-1, 7}}; r = (shp){2, {-1, 5}}; o = (shp){2, {7, 5}}; dn = "contracting_dims = [0] x [0]"; }
    }
    if (!strcmp(sc, "dimnums")) {
        if (g->op == PLUMB_OP_DOT) { l = (shp){2, {6, 17}}; r = (shp){1, {17}}; o = (shp){1, {6}}; }
        else {
            l = (shp){3, {2, 5, 3}}; r = (shp){3, {3, 2, 4}}; o = (shp){3, {2, 5, 4}};
            dn = "batching_dims = [0] x [1], contracting_dims = [2] x [0]";
        }
    }
    conf_gen_param(g, "x", t, l.rank, l.dims, g->value, 0, 0);
    conf_gen_param(g, "y", t, r.rank, r.dims, g->value, 0, 0);
    const char *U = conf_gen_tys(g, t, o.rank, o.dims);
    if (g->op == PLUMB_OP_DOT)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", conf_gen_tys(g, t, l.rank, l.dims),
                         conf_gen_tys(g, t, r.rank, r.dims), U);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                         conf_gen_tys(g, t, l.rank, l.dims), conf_gen_tys(g, t, r.rank, r.dims), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

