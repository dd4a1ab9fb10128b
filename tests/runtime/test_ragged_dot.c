/* chlo.ragged_dot on the compiled runtime (runtime/k_ragged_dot.c) against
 * the reference (ref/ragged_dot.c): integers bit for bit, floats within
 * dot_general's bound over the contraction's length, at every ISA level,
 * on 1 and 2 threads, at optimization levels 0 and 2 (rt_test.h). The
 * group sizes are an input, so no pass folds the op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rt_test.h"

/* One ragged_dot program: shapes, dimension numbers and group_sizes. */
typedef struct rcase {
    const char *name;
    uint32_t lr, rr, gr, orr;
    int64_t ld[4], rd[4], gd[3], od[4];
    const char *dn;
    int64_t sizes[16];   /* group_sizes, row-major */
    uint64_t k;          /* contraction length (the bound's term count) */
} rcase;

#define DN(lb, rb, lc, rc, lr, rg)                                                                            \
    "lhs_batching_dimensions = " lb ", rhs_batching_dimensions = " rb ", lhs_contracting_dimensions = " lc \
    ", rhs_contracting_dimensions = " rc ", lhs_ragged_dimensions = " lr ", rhs_group_dimensions = " rg

static const rcase CASES[] = {
    /* upstream's mode 1 shape, a zero-size group, rows 8-10 in none */
    {"mode1", 2, 3, 1, 2, {11, 5}, {3, 5, 7}, {3}, {11, 7}, DN("[]", "[]", "[1]", "[1]", "[0]", "[0]"), {3, 0, 5}, 5},
    /* upstream's batched mode 1 (rhs batch dimension 1) with rank-2 sizes, row 1 past the rows */
    {"mode1_batched", 3, 4, 2, 3, {2, 11, 5}, {3, 2, 5, 7}, {2, 3}, {2, 11, 7},
     DN("[0]", "[1]", "[2]", "[2]", "[1]", "[0]"), {4, 4, 3, 0, 9, 7}, 5},
    /* mode 1 with lhs [k, m] and rhs [k, g, n]: neither read in place, both gathered */
    {"mode1_gathered", 2, 3, 1, 2, {5, 11}, {5, 3, 7}, {3}, {11, 7}, DN("[]", "[]", "[0]", "[0]", "[1]", "[1]"), {4, 4, 3}, 5},
    /* mode 1 with a free dimension after the ragged one (groups cover row blocks) */
    {"mode1_trailing", 3, 3, 1, 3, {6, 3, 4}, {2, 4, 5}, {2}, {6, 3, 5}, DN("[]", "[]", "[2]", "[1]", "[0]", "[0]"),
     {2, 3}, 4},
    /* mode 2: one result per group, contracting index 8 in none */
    {"mode2", 2, 2, 1, 3, {4, 9}, {9, 6}, {3}, {3, 4, 6}, DN("[]", "[]", "[1]", "[0]", "[1]", "[]"), {2, 4, 2}, 9},
    /* mode 2 with sizes per batch and per earlier contracting index */
    {"mode2_prefix", 4, 4, 3, 4, {2, 3, 2, 5}, {2, 2, 5, 4}, {2, 2, 2}, {2, 2, 3, 4},
     DN("[0]", "[0]", "[2, 3]", "[1, 2]", "[3]", "[]"), {1, 3, 2, 2, 5, 0, 0, 1}, 10},
    /* mode 3: batches 3-4 in no group */
    {"mode3", 3, 3, 1, 3, {5, 3, 4}, {5, 4, 2}, {2}, {5, 3, 2}, DN("[0]", "[0]", "[2]", "[1]", "[0]", "[]"), {1, 2}, 4},
    /* larger: GEMM blocks inside a group, uneven groups */
    {"mode1_large", 2, 3, 1, 2, {300, 64}, {5, 64, 40}, {5}, {300, 40}, DN("[]", "[]", "[1]", "[1]", "[0]", "[0]"),
     {37, 0, 150, 1, 100}, 64},
};

static void build(const rcase *c, plumb_dtype t, char *src, size_t n)
{
    char L[96], R[96], G[96], O[96];
    rt_ty(L, sizeof L, t, c->lr, c->ld);
    rt_ty(R, sizeof R, t, c->rr, c->rd);
    rt_ty(G, sizeof G, PLUMB_I64, c->gr, c->gd);
    rt_ty(O, sizeof O, t, c->orr, c->od);
    snprintf(src, n,
             "func.func @main(%%l: %s, %%r: %s, %%g: %s) -> %s {\n"
             "  %%o = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<%s>} : (%s, %s, %s) -> %s\n"
             "  return %%o : %s\n}\n",
             L, R, G, O, c->dn, L, R, G, O, O);
}

static plumb_tensor *sizes_tensor(const rcase *c)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *g = plumb_tensor_new(PLUMB_I64, c->gr, c->gd, 0, &d);
    assert_non_null(g);
    uint64_t n = plumb_tensor_numel(g);
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(PLUMB_I64, g->data, (size_t)i, (uint64_t)c->sizes[i]);
    return g;
}

static void run_case(const rcase *c, plumb_dtype t)
{
    char src[2048];
    build(c, t, src, sizeof src);
    plumb_tensor *in[3] = {rt_rand_tensor(t, c->lr, c->ld, false), rt_rand_tensor(t, c->rr, c->rd, false), sizes_tensor(c)};
    if (plumb_dtype_is_float(t))
        rt_check_bound(src, in, 3, c->k, false);
    else
        rt_check_exact_nan(src, in, 3);
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
}

/* Every mode and layout above in f32, f64, f16 and bf16: within
 * dot_general's bound of the reference's exactly rounded group sums. */
static void test_floats(void **state)
{
    (void)state;
    static const plumb_dtype ts[4] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        for (int k = 0; k < 4; k++) run_case(&CASES[i], ts[k]);
}

/* The same in integers, where the sums wrap and must match bit for bit. */
static void test_integers(void **state)
{
    (void)state;
    static const plumb_dtype ts[4] = {PLUMB_I32, PLUMB_I8, PLUMB_UI64, PLUMB_I16};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        for (int k = 0; k < 4; k++) run_case(&CASES[i], ts[k]);
}

/* Rows in no group are +0 on the runtime too, even where the operands
 * hold inf and NaN (which a masked product would turn into NaN), and the
 * group rows keep their NaN. */
static void test_specials_outside_groups(void **state)
{
    (void)state;
    const rcase *c = &CASES[0];
    char src[2048];
    build(c, PLUMB_F32, src, sizeof src);
    plumb_tensor *in[3] = {rt_rand_tensor(PLUMB_F32, c->lr, c->ld, false), rt_rand_tensor(PLUMB_F32, c->rr, c->rd, false),
                           sizes_tensor(c)};
    /* row 9 (in no group) and row 1 (group 0) get inf and NaN */
    plumb_store_bits(PLUMB_F32, in[0]->data, 9 * 5 + 0, 0x7F800000u);
    plumb_store_bits(PLUMB_F32, in[0]->data, 9 * 5 + 1, 0x7FC00000u);
    plumb_store_bits(PLUMB_F32, in[0]->data, 1 * 5 + 2, 0x7FC00000u);
    rt_check_bound(src, in, 3, c->k, false);
    plumb_tensor *got[RT_MAX_OUT];
    ir_module *m = rt_parse(src);
    rt_exec_on(m, rt_hw_isa(), 1, in, 3, got, 1);
    for (int j = 0; j < 7; j++) {
        assert_true(plumb_load_bits(PLUMB_F32, got[0]->data, (size_t)(9 * 7 + j)) == 0);   /* +0 */
        assert_true(isnan(plumb_load_f64(PLUMB_F32, got[0]->data, (size_t)(1 * 7 + j))));
    }
    rt_outs_free(got, 1);
    ir_module_free(m);
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_specials_outside_groups),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
