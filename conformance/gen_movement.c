/* Data movement and indexing cases: reshape, transpose, slice, concatenate,
 * pad, gather, scatter, sort, ... one program per op and shape class (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

bool conf_gen_movement(gen *g, plumb_dtype target)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *vc = g->value;
    shp s = conf_gen_ew_shape(sc);
    bool dn = !strcmp(sc, "dimnums");
    if (dn) s = (shp){3, {2, 3, 5}};
    const char *T = conf_gen_tys(g, t, s.rank, s.dims);
    plumb_buf *b = &g->body;
    switch (g->op) {
    case PLUMB_OP_CONSTANT: {
        plumb_tensor *tmp = plumb_tensor_new(t, s.rank, s.dims, 0, g->d);
        if (!tmp) { g->failed = true; break; }
        conf_gen_fill(g, tmp, vc);
        plumb_buf_puts(b, "  %r = stablehlo.constant ");
        plumb_dense_print(b, tmp, true);
        plumb_buf_printf(b, " : %s\n", T);
        plumb_tensor_free(tmp);
        g->ret_types = T;
        break;
    }
    case PLUMB_OP_IOTA:
        plumb_buf_printf(b, "  %%r = stablehlo.iota dim = %u : %s\n", s.rank ? s.rank - 1 : 0, T);
        g->ret_types = T;
        break;
    case PLUMB_OP_BITCAST_CONVERT: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        const char *U = conf_gen_tys(g, target, s.rank, s.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.bitcast_convert %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_BROADCAST_IN_DIM: {
        shp in = {1, {s.rank ? s.dims[s.rank - 1] : 1}}, outs = {2, {3, in.dims[0]}};
        const char *dims = "[1]";
        if (!strcmp(sc, "one")) { in = (shp){1, {1}}; outs = (shp){1, {5}}; dims = "[0]"; }
        if (!strcmp(sc, "empty")) { in = (shp){1, {0}}; outs = (shp){2, {3, 0}}; }
        if (dn) { in = (shp){2, {7, 1}}; outs = (shp){3, {2, 7, 5}}; dims = "[1, 2]"; }
        conf_gen_param(g, "x", t, in.rank, in.dims, vc, 0, 0);
        const char *U = conf_gen_tys(g, t, outs.rank, outs.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.broadcast_in_dim %%x, dims = %s : (%s) -> %s\n", dims,
                         conf_gen_tys(g, t, in.rank, in.dims), U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_RESHAPE: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp o = s;
        if (s.rank == 1) o = (shp){0, {0}};
        else if (dn) o = (shp){2, {5, 6}};
        else if (!strcmp(sc, "wide")) o = (shp){1, {2062}};
        else { o.dims[0] = s.dims[1]; o.dims[1] = s.dims[0]; }
        const char *U = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.reshape %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_TRANSPOSE: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp o = s;
        const char *perm = "[0]";
        if (s.rank == 2) { o.dims[0] = s.dims[1]; o.dims[1] = s.dims[0]; perm = "[1, 0]"; }
        if (dn) { o = (shp){3, {5, 2, 3}}; perm = "[2, 0, 1]"; }
        const char *U = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.transpose %%x, dims = %s : (%s) -> %s\n", perm, T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_REVERSE:
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        plumb_buf_printf(b, "  %%r = stablehlo.reverse %%x, dims = %s : %s\n",
                         s.rank == 1 ? "[0]" : dn ? "[0, 2]" : "[0, 1]", T);
        g->ret_types = T;
        break;
    case PLUMB_OP_SLICE: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        plumb_buf sl;
        plumb_buf_init(&sl);
        shp o = s;
        for (uint32_t i = 0; i < s.rank; i++) {
            int64_t n = s.dims[i], start = n > 2 ? 1 : 0, stride = n > 4 ? 2 + (int64_t)i : 1, lim = n > 3 ? n - 1 : n;
            o.dims[i] = lim > start ? (lim - start + stride - 1) / stride : 0;
            plumb_buf_printf(&sl, "%s%lld:%lld:%lld", i ? ", " : "", (long long)start, (long long)lim, (long long)stride);
        }
        const char *U = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.slice %%x [%s] : (%s) -> %s\n", sl.data ? sl.data : "", T, U);
        plumb_buf_free(&sl);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp w = s;
        for (uint32_t i = 0; i < s.rank; i++) w.dims[i] = s.dims[i] > 1 ? s.dims[i] / 2 : s.dims[i];
        const char *W = conf_gen_tys(g, t, w.rank, w.dims);
        if (g->op == PLUMB_OP_DYNAMIC_UPDATE_SLICE) conf_gen_param(g, "u", t, w.rank, w.dims, vc, 0, 0);
        plumb_buf idx, ity, sz;
        plumb_buf_init(&idx);
        plumb_buf_init(&ity);
        plumb_buf_init(&sz);
        for (uint32_t i = 0; i < s.rank; i++) {
            char nm[16];
            snprintf(nm, sizeof nm, "i%u", i);
            /* start indices partly out of range: the op clamps them */
            conf_gen_param(g, nm, PLUMB_I32, 0, NULL, NULL, -2, s.dims[i] + 2);
            plumb_buf_printf(&idx, ", %%%s", nm);
            plumb_buf_puts(&ity, ", tensor<i32>");
            plumb_buf_printf(&sz, "%s%lld", i ? ", " : "", (long long)w.dims[i]);
        }
        if (g->op == PLUMB_OP_DYNAMIC_SLICE) {
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_slice %%x%s, sizes = [%s] : (%s%s) -> %s\n",
                             idx.data ? idx.data : "", sz.data ? sz.data : "", T, ity.data ? ity.data : "", W);
            g->ret_types = W;
        } else {
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_update_slice %%x, %%u%s : (%s, %s%s) -> %s\n",
                             idx.data ? idx.data : "", T, W, ity.data ? ity.data : "", T);
            g->ret_types = T;
        }
        plumb_buf_free(&idx);
        plumb_buf_free(&ity);
        plumb_buf_free(&sz);
        break;
    }
    case PLUMB_OP_CONCATENATE: {
        uint32_t dim = s.rank - 1;
        shp s2 = s, o = s;
        s2.dims[dim] = s.dims[dim] == 0 ? 0 : 5;
        o.dims[dim] = s.dims[dim] + s2.dims[dim];
        if (dn) { dim = 1; s2 = s; s2.dims[1] = 4; o = s; o.dims[1] = 7; }
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        conf_gen_param(g, "y", t, s2.rank, s2.dims, vc, 0, 0);
        const char *U = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.concatenate %%x, %%y, dim = %u : (%s, %s) -> %s\n", dim, T,
                         conf_gen_tys(g, t, s2.rank, s2.dims), U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_PAD: {
        conf_gen_param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        conf_gen_param(g, "v", t, 0, NULL, vc, 0, 0);
        plumb_buf lo, hi, in;
        plumb_buf_init(&lo);
        plumb_buf_init(&hi);
        plumb_buf_init(&in);
        shp o = s;
        for (uint32_t i = 0; i < s.rank; i++) {
            int64_t n = s.dims[i];
            int64_t l = (i % 2) ? -1 : 2, h = (i % 2) ? 1 : 0, it = (i == 0 && n > 1) ? 1 : 0;
            if (n == 0 || (n == 1 && l < 0)) l = 0;
            if (n < 0) l = h = it = 0;   /* the `?` dim of a dyn_* case: kept as it is */
            o.dims[i] = n < 0 ? n : l + h + n + (n > 0 ? (n - 1) * it : 0);
            plumb_buf_printf(&lo, "%s%lld", i ? ", " : "", (long long)l);
            plumb_buf_printf(&hi, "%s%lld", i ? ", " : "", (long long)h);
            plumb_buf_printf(&in, "%s%lld", i ? ", " : "", (long long)it);
        }
        const char *U = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.pad %%x, %%v, low = [%s], high = [%s], interior = [%s] : (%s, %s) -> %s\n",
                         lo.data ? lo.data : "", hi.data ? hi.data : "", in.data ? in.data : "", T,
                         conf_gen_tys(g, t, 0, NULL), U);
        plumb_buf_free(&lo);
        plumb_buf_free(&hi);
        plumb_buf_free(&in);
        g->ret_types = U;
        break;
    }
    default:
        g->failed = true;
        plumb_diag_set(g->d, PLUMB_ERR_UNSUPPORTED, (plumb_loc){0, 0}, "no generator for %s", plumb_op_name(g->op));
    }
    return conf_gen_push_case(g, "%r");
}

bool conf_gen_indexing(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *T0 = conf_gen_tys(g, t, 0, NULL);
    plumb_buf *b = &g->body;
    int64_t nidx = g->dyn ? -1 : !strcmp(sc, "empty") ? 0 : !strcmp(sc, "one") ? 1 : 5;
    switch (g->op) {
    case PLUMB_OP_GATHER:
    case PLUMB_OP_SCATTER: {
        bool dn = !strcmp(sc, "dimnums");
        shp x = dn ? (shp){3, {4, 6, 5}} : (shp){2, {7, 13}};
        shp ix = dn ? (shp){2, {3, 2}} : (shp){2, {nidx, 1}};
        shp o = dn ? (shp){3, {3, 3, 2}} : (shp){2, {nidx, 13}};
        conf_gen_param(g, "x", t, x.rank, x.dims, g->value, 0, 0);
        /* indices partly out of range: gather clamps, scatter skips */
        conf_gen_param(g, "i", PLUMB_I32, ix.rank, ix.dims, NULL, -1, 7);
        const char *X = conf_gen_tys(g, t, x.rank, x.dims), *IX = conf_gen_tys(g, PLUMB_I32, ix.rank, ix.dims), *O = conf_gen_tys(g, t, o.rank, o.dims);
        if (g->op == PLUMB_OP_GATHER) {
            plumb_buf_printf(b, "  %%r = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<"
                             "offset_dims = %s, collapsed_slice_dims = [0], start_index_map = %s, index_vector_dim = 1>, "
                             "slice_sizes = array<i64: %s>}> : (%s, %s) -> %s\n",
                             dn ? "[1, 2]" : "[1]", dn ? "[0, 2]" : "[0]", dn ? "1, 3, 2" : "1, 13", X, IX, O);
            g->ret_types = O;
        } else {
            conf_gen_param(g, "u", t, o.rank, o.dims, g->value, 0, 0);
            plumb_buf_printf(b, "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                             "update_window_dims = %s, inserted_window_dims = [0], scatter_dims_to_operand_dims = %s, "
                             "index_vector_dim = 1>}> ({\n"
                             "    ^bb0(%%a: %s, %%c: %s):\n"
                             "      %%s = stablehlo.add %%a, %%c : %s\n"
                             "      stablehlo.return %%s : %s\n"
                             "    }) : (%s, %s, %s) -> %s\n",
                             dn ? "[1, 2]" : "[1]", dn ? "[0, 2]" : "[0]", T0, T0, T0, T0, X, IX, O, X);
            g->ret_types = X;
        }
        break;
    }
    case PLUMB_OP_SORT: {
        shp s = conf_gen_ew_shape(sc);
        int dim = g->dyn ? 0 : (int)s.rank - 1;  /* dyn: along the `?` dim */
        if (!strcmp(sc, "dimnums")) { s = (shp){3, {3, 4, 5}}; dim = 0; }
        conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        const char *T = conf_gen_tys(g, t, s.rank, s.dims);
        /* TOTALORDER keeps NaNs a strict weak order, so the result is defined */
        plumb_buf_printf(b, "  %%r = \"stablehlo.sort\"(%%x) <{dimension = %d : i64, is_stable = true}> ({\n"
                         "    ^bb0(%%a: %s, %%c: %s):\n"
                         "      %%lt = stablehlo.compare LT, %%a, %%c%s : (%s, %s) -> tensor<i1>\n"
                         "      stablehlo.return %%lt : tensor<i1>\n"
                         "    }) : (%s) -> %s\n",
                         dim, T0, T0, plumb_dtype_is_float(t) ? ", TOTALORDER" : "", T0, T0, T, T);
        g->ret_types = T;
        break;
    }
    case PLUMB_OP_TOP_K: {
        shp s = conf_gen_ew_shape(sc);
        int64_t k = s.dims[s.rank - 1] > 3 ? 3 : s.dims[s.rank - 1];
        shp o = s;
        o.dims[s.rank - 1] = k;
        conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims), *OI = conf_gen_tys(g, PLUMB_I32, o.rank, o.dims);
        plumb_buf_printf(b, "  %%v, %%i = chlo.top_k(%%x, k = %lld) : %s -> (%s, %s)\n", (long long)k,
                         conf_gen_tys(g, t, s.rank, s.dims), O, OI);
        conf_gen_set_ret_types2(g, O, OI);
        return conf_gen_push_case(g, "%v, %i");
    }
    default:
        g->failed = true;
    }
    return conf_gen_push_case(g, "%r");
}
