/* Reductions and windows: reduce over the shape classes and its extra
 * bodies, reduce_window and select_and_scatter (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* The reduce body: add for the shape classes, max and multiply as extras. */
bool conf_gen_reduce(gen *g, plumb_opcode body)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    shp s = conf_gen_ew_shape(sc);
    const char *dims = "[1]";
    shp o = {1, {s.dims[0]}};
    if (!strcmp(sc, "one")) { dims = "[0]"; o = (shp){0, {0}}; }
    if (!strcmp(sc, "empty")) { dims = "[0]"; o = (shp){1, {3}}; }
    if (!strcmp(sc, "dimnums")) { s = (shp){3, {4, 5, 6}}; dims = "[0, 2]"; o = (shp){1, {5}}; }
    if (g->dyn) { dims = "[0]"; o = (shp){1, {3}}; }   /* across the `?` dim: n terms, 0 included */
    conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, "uniform", 0, 0);
    if (c) {
        uint64_t init = 0;
        if (body == PLUMB_OP_MULTIPLY) init = plumb_dtype_is_float(t) ? conf_gen_fbits(t, 1.0) : 1;
        else if (body == PLUMB_OP_MAXIMUM)
            init = plumb_dtype_is_float(t) ? conf_gen_fbits(t, -INFINITY) : plumb_dtype_is_signed(t) ? conf_gen_int_boundary(t, 3) : 0;
        plumb_store_bits(t, c->data, 0, init);
    }
    const char *U = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = %s : (%s, %s) -> %s\n",
                     plumb_op_name(body), dims, conf_gen_tys(g, t, s.rank, s.dims), conf_gen_tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}


/* reduce_window and select_and_scatter (SH_RWIN, SH_SAS): one window
 * geometry per shape class; the init value is the body's identity (the
 * input type's lowest value for maximum, highest for minimum). */
bool conf_gen_window(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    bool f = plumb_dtype_is_float(t), sas = g->op == PLUMB_OP_SELECT_AND_SCATTER;
    shp x = {4, {2, 8, 7, 5}}, o;
    const char *attrs, *body = "add", *cmp = "GE";
    if (!strcmp(sc, "pool2")) {
        attrs = "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>";
        o = (shp){4, {2, 4, 3, 5}};
        body = "maximum";
    } else if (!strcmp(sc, "pool3") || !strcmp(sc, "padmax_neg") || !strcmp(sc, "padmin_pos")) {
        attrs = "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, "
                "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>";
        o = (shp){4, {2, 4, 4, 5}};
        if (sc[3] == 'm') body = sc[4] == 'a' ? "maximum" : "minimum";
    } else if (!strcmp(sc, "dilated")) {
        /* dim 0: dilated 9, padded 12, window 3: 10; dim 1: dilated 13, window 5, stride 2: 5 */
        x = (shp){2, {5, 7}};
        attrs = "base_dilations = array<i64: 2, 2>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>, "
                "window_dilations = array<i64: 1, 2>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 2>";
        o = (shp){2, {10, 5}};
    } else if (!strcmp(sc, "r1")) {
        x = (shp){1, {23}};
        attrs = "padding = dense<[[2, 1]]> : tensor<1x2xi64>, window_dimensions = array<i64: 4>, window_strides = array<i64: 3>";
        o = (shp){1, {8}};
        body = "minimum";
        cmp = "GT";
    } else if (!strcmp(sc, "r2")) {
        x = (shp){2, {6, 9}};
        attrs = "padding = dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>";
        o = (shp){2, {3, 5}};
        cmp = "LE";
    } else {
        x = (shp){3, {4, 3, 9}};
        attrs = "window_dimensions = array<i64: 2, 1, 3>, window_strides = array<i64: 1, 1, 2>";
        o = (shp){3, {3, 3, 4}};
        body = f ? "maximum" : "multiply";
    }
    if (sas) body = "add";   /* the scatter region; init 0 */
    const char *X = conf_gen_tys(g, t, x.rank, x.dims), *O = conf_gen_tys(g, t, o.rank, o.dims), *S = conf_gen_tys(g, t, 0, NULL);
    plumb_tensor *xt = conf_gen_param(g, "x", t, x.rank, x.dims, g->value, 0, 0);
    if (xt && sc[0] == 'p' && sc[3] == 'm') {
        /* padmax_neg / padmin_pos: every value negative (positive), so a
         * border window's padding folded as 0 instead of the init value
         * changes its maximum (minimum); unsigned types and i1 only have
         * the positive side, where the minimum shows it */
        bool neg = sc[4] == 'a' && (f || plumb_dtype_is_signed(t));
        for (uint64_t i = 0, n = plumb_tensor_numel(xt); i < n; i++) {
            uint64_t bits = plumb_load_bits(t, xt->data, i);
            if (f) {
                uint64_t sign = 1ull << (plumb_dtype_get(t)->bits - 1);
                bits = neg ? bits | sign : bits & ~sign;
                if ((bits & ~sign) == 0) bits |= 1;   /* no zeros: ±0 folds like the pad would */
            } else if (plumb_dtype_is_bool(t)) {
                bits = 1;
            } else {
                int64_t v = (int64_t)(bits % 100) + 1;
                bits = (uint64_t)(neg ? -v : v);
            }
            plumb_store_bits(t, xt->data, i, bits);
        }
    }
    if (sas) conf_gen_param(g, "s", t, o.rank, o.dims, g->value, 0, 0);
    plumb_tensor *c = conf_gen_param(g, "c", t, 0, NULL, "uniform", 0, 0);
    if (c) {
        uint64_t init = 0;
        const plumb_dtype_info *di = plumb_dtype_get(t);
        if (!strcmp(body, "multiply")) init = 1;
        else if (!strcmp(body, "maximum") || !strcmp(body, "minimum")) {
            bool mx = !strcmp(body, "maximum");
            if (f) init = conf_gen_fbits(t, mx ? -INFINITY : INFINITY);
            else if (plumb_dtype_is_bool(t)) init = mx ? 0 : 1;
            else if (plumb_dtype_is_signed(t)) init = mx ? 1ull << (di->bits - 1) : (1ull << (di->bits - 1)) - 1;
            else init = mx ? 0 : di->bits == 64 ? ~0ull : (1ull << di->bits) - 1;
        }
        plumb_store_bits(t, c->data, 0, init);
    }
    plumb_buf *b = &g->body;
    if (sas)
        plumb_buf_printf(b, "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{%s}> ({\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%p = stablehlo.compare %s, %%a, %%b : (%s, %s) -> tensor<i1>\n"
                            "    stablehlo.return %%p : tensor<i1>\n"
                            "  }, {\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%m = stablehlo.add %%a, %%b : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s, %s) -> %s\n",
                         attrs, S, S, cmp, S, S, S, S, S, S, X, O, S, X);
    else
        plumb_buf_printf(b, "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%m = stablehlo.%s %%a, %%b : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s) -> %s\n",
                         attrs, S, S, body, S, S, X, S, O);
    g->ret_types = sas ? X : O;
    return conf_gen_push_case(g, "%r");
}
