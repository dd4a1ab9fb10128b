/* chlo.ragged_dot's cases (docs/spec/ragged_dot.md): one program per shape
 * class, lhs and rhs filled by the case's value class, group_sizes a
 * constant of the program chosen so that each class covers a rule of the
 * definition. The classes (gen.c's SH_RAGGED, counted in manifest.c):
 *
 *   noncontract  mode 1 as upstream's test: [11,5] x [3,5,7], sizes 3, 0, 5
 *                (a zero-size group; rows 8-10 in no group: +0)
 *   contract     mode 2: [4,9] x [9,6], sizes 2, 4, 2 (contracting index
 *                8 in no group) -> [3,4,6]
 *   batch        mode 3: [5,3,4] x [5,4,2], sizes 1, 2 (batches 3-4: +0)
 *   batched      mode 1 with a batch dimension and rank-2 group_sizes (one
 *                row per batch, the second row summing past the ragged
 *                dimension: cut there) on i32 sizes
 *   prefix       mode 2 whose group_sizes rows are indexed by the batch and
 *                by the contracting dimension before the ragged one
 *   empty        mode 1 with no contracting elements ([6,0] x [2,0,3]):
 *                every result +0 */
#include <string.h>

#include "gen_family.h"

bool conf_gen_ragged(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    shp l, r, o;
    int64_t gd[3];
    uint32_t gr;
    const char *sizes, *gty = "i64", *dn;
    if (!strcmp(sc, "contract")) {
        l = (shp){2, {4, 9}}; r = (shp){2, {9, 6}}; o = (shp){3, {3, 4, 6}};
        gr = 1; gd[0] = 3; sizes = "[2, 4, 2]";
        dn = "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
             "rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []";
    } else if (!strcmp(sc, "batch")) {
        l = (shp){3, {5, 3, 4}}; r = (shp){3, {5, 4, 2}}; o = (shp){3, {5, 3, 2}};
        gr = 1; gd[0] = 2; sizes = "[1, 2]";
        dn = "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
             "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []";
    } else if (!strcmp(sc, "batched")) {
        l = (shp){3, {2, 7, 5}}; r = (shp){4, {3, 2, 5, 4}}; o = (shp){3, {2, 7, 4}};
        gr = 2; gd[0] = 2; gd[1] = 3; sizes = "[[2, 3, 2], [0, 6, 9]]"; gty = "i32";
        dn = "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
             "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]";
    } else if (!strcmp(sc, "prefix")) {
        l = (shp){4, {2, 3, 2, 5}}; r = (shp){4, {2, 2, 5, 4}}; o = (shp){4, {2, 2, 3, 4}};
        gr = 3; gd[0] = 2; gd[1] = 2; gd[2] = 2; sizes = "[[[1, 3], [2, 2]], [[5, 0], [0, 1]]]";
        dn = "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], "
             "rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [3], rhs_group_dimensions = []";
    } else if (!strcmp(sc, "empty")) {
        l = (shp){2, {6, 0}}; r = (shp){3, {2, 0, 3}}; o = (shp){2, {6, 3}};
        gr = 1; gd[0] = 2; sizes = "[2, 3]";
        dn = "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
             "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]";
    } else {   /* noncontract */
        l = (shp){2, {11, 5}}; r = (shp){3, {3, 5, 7}}; o = (shp){2, {11, 7}};
        gr = 1; gd[0] = 3; sizes = "[3, 0, 5]";
        dn = "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
             "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]";
    }
    conf_gen_param(g, "x", t, l.rank, l.dims, g->value, 0, 0);
    conf_gen_param(g, "y", t, r.rank, r.dims, g->value, 0, 0);
    const char *GT = conf_gen_tys(g, !strcmp(gty, "i32") ? PLUMB_I32 : PLUMB_I64, gr, gd);
    const char *U = conf_gen_tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%gs = stablehlo.constant dense<%s> : %s\n", sizes, GT);
    plumb_buf_printf(&g->body,
                     "  %%r = \"chlo.ragged_dot\"(%%x, %%y, %%gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<%s>} : "
                     "(%s, %s, %s) -> %s\n",
                     dn, conf_gen_tys(g, t, l.rank, l.dims), conf_gen_tys(g, t, r.rank, r.dims), GT, U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}
