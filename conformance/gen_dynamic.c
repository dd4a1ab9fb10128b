/* The dynamic ops (shape operands read when the program runs) (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* ---- polymorphic cases (docs/conformance.md, "Polymorphic shapes") ---------------------
 * Shapes with -1 dims are `?` bounded by CONF_POLY_BOUND, and the inputs
 * have g->dyn_n there. A shape operand is a parameter whose values the
 * generator sets, so that the sizes arrive at run time like any input. */

static void shape_param(gen *g, const char *name, plumb_dtype it, const int64_t *v, int64_t k)
{
    plumb_tensor *x = conf_gen_param(g, name, it, 1, &k, NULL, 0, 0);
    if (x)
        for (int64_t i = 0; i < k; i++) plumb_store_bits(it, x->data, (uint64_t)i, (uint64_t)v[i]);
}

/* The dynamic ops at size n = g->dyn_n: each with its sizes from shape
 * operands (or, for get_dimension_size, read off its operand), results
 * typed `?` with a bound (dynamic_pad's first dim can reach twice the
 * bound: -2). The reference runs these programs as written. */
bool conf_gen_dynamic(gen *g)
{
    plumb_dtype t = g->t;
    int64_t n = g->dyn_n;
    const char *vc = g->value;
    plumb_buf *b = &g->body;
    shp x = {2, {-1, 3}};
    const char *X = conf_gen_tys(g, t, x.rank, x.dims);
    const char *S3 = "tensor<3xi64>", *S2 = "tensor<2xi64>";
    switch (g->op) {
    case PLUMB_OP_GET_DIMENSION_SIZE:
        conf_gen_param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        plumb_buf_printf(b, "  %%r = stablehlo.get_dimension_size %%x, dim = 0 : (%s) -> tensor<i32>\n", X);
        g->ret_types = "tensor<i32>";
        break;
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        /* [n, 3] -> [2, n, 3] */
        int64_t sv[3] = {2, n, 3};
        shp o = {3, {2, -1, 3}};
        conf_gen_param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        shape_param(g, "s", PLUMB_I64, sv, 3);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_broadcast_in_dim %%x, %%s, dims = [1, 2] : (%s, %s) -> %s\n", X,
                         S3, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_RESHAPE: {
        /* [n, 3] -> [3, n]: the same elements in row-major order */
        int64_t sv[2] = {3, n};
        shp o = {2, {3, -1}};
        conf_gen_param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        shape_param(g, "s", PLUMB_I32, sv, 2);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_reshape %%x, %%s : (%s, tensor<2xi32>) -> %s\n", X, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_IOTA: {
        int64_t sv[2] = {n, 3};
        shape_param(g, "s", PLUMB_I64, sv, 2);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_iota %%s, dim = 0 : (%s) -> %s\n", S2, X);
        g->ret_types = X;
        break;
    }
    case PLUMB_OP_REAL_DYNAMIC_SLICE: {
        /* dim 0: [1, n-1) step 2 when there is room, else all of it; dim 1: [1, 4) step 2 of 5 */
        int64_t s0 = n > 2 ? 1 : 0, l0 = n > 3 ? n - 1 : n, st0 = n > 4 ? 2 : 1;
        int64_t st[2] = {s0, 1}, li[2] = {l0, 4}, sd[2] = {st0, 2};
        shp xs = {2, {-1, 5}}, o = {2, {-1, 2}};
        const char *XS = conf_gen_tys(g, t, xs.rank, xs.dims);
        conf_gen_param(g, "x", t, xs.rank, xs.dims, vc, 0, 0);
        shape_param(g, "a", PLUMB_I64, st, 2);
        shape_param(g, "l", PLUMB_I64, li, 2);
        shape_param(g, "k", PLUMB_I64, sd, 2);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.real_dynamic_slice %%x, %%a, %%l, %%k : (%s, %s, %s, %s) -> %s\n", XS, S2,
                         S2, S2, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_PAD: {
        /* dim 0: low 1, interior 1 (1 + n + (n - 1) elements, at most 2 * bound);
         * dim 1: low -1 (cropping), high 2, interior 1: 3 -> 6 */
        int64_t lo[2] = {1, -1}, hi[2] = {0, 2}, in[2] = {1, 1};
        shp o = {2, {-2, 6}};
        conf_gen_param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        conf_gen_param(g, "v", t, 0, NULL, vc, 0, 0);
        shape_param(g, "lo", PLUMB_I64, lo, 2);
        shape_param(g, "hi", PLUMB_I64, hi, 2);
        shape_param(g, "in", PLUMB_I64, in, 2);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_pad %%x, %%v, %%lo, %%hi, %%in : (%s, %s, %s, %s, %s) -> %s\n", X,
                         conf_gen_tys(g, t, 0, NULL), S2, S2, S2, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_GATHER: {
        /* n rows of a 7x13 operand, indices partly out of range (clamped) */
        int64_t ss[2] = {1, 13};
        shp xs = {2, {7, 13}}, ix = {2, {-1, 1}}, o = {2, {-1, 13}};
        conf_gen_param(g, "x", t, xs.rank, xs.dims, vc, 0, 0);
        conf_gen_param(g, "i", PLUMB_I32, ix.rank, ix.dims, NULL, -1, 7);
        shape_param(g, "s", PLUMB_I64, ss, 2);
        const char *O = conf_gen_tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = \"stablehlo.dynamic_gather\"(%%x, %%i, %%s) <{dimension_numbers = #stablehlo.gather<"
                         "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> "
                         ": (%s, %s, %s) -> %s\n",
                         conf_gen_tys(g, t, xs.rank, xs.dims), conf_gen_tys(g, PLUMB_I32, ix.rank, ix.dims), S2, O);
        g->ret_types = O;
        break;
    }
    default:
        g->failed = true;
        plumb_diag_set(g->d, PLUMB_ERR_UNSUPPORTED, (plumb_loc){0, 0}, "no generator for %s", plumb_op_name(g->op));
    }
    return conf_gen_push_case(g, "%r");
}

