/* Batched dot_general against the reference interpreter, within the dot
 * bound (gamma(k-1) * sum|a*b| + rounding, tests/runtime/rt_test.h
 * rt_check_bound), bitwise equal on 1 and 2 threads, at every ISA level:
 * batch counts 0, 1 and 3 of f32 and f64 products whose M, N and K fall
 * on and around the small-product path's 8 x 32 tile (runtime/k_gemm.c,
 * small_rows: full tiles, 8-row tiles with fewer than 32 columns, the
 * last short row block, K from 1 to 130), with NaN and infinities planted
 * in A and B (the reference's IEEE results: NaN where the reference has
 * NaN, the same infinity where it has one). The bits against the packed
 * path are test_gemm_small.c's. Sizes are small (0.7 s in a plain build
 * on a lightly loaded machine). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static void put(plumb_dtype t, plumb_tensor *x, int64_t i, double v)
{
    plumb_store_bits(t, x->data, (uint64_t)i, t == PLUMB_F64 ? plumb_f64_bits(v) : plumb_f32_bits((float)v));
}

static void check_batched(plumb_dtype t, int64_t nb, int64_t m, int64_t n, int64_t k, bool specials)
{
    int64_t da[3] = {nb, m, k}, db[3] = {nb, k, n}, dc[3] = {nb, m, n};
    char ta[64], tb[64], tc[64], src[1024];
    rt_ty(ta, sizeof ta, t, 3, da);
    rt_ty(tb, sizeof tb, t, 3, db);
    rt_ty(tc, sizeof tc, t, 3, dc);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%r = stablehlo.dot_general %%a, %%b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
             "(%s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             ta, tb, tc, ta, tb, tc, tc);
    plumb_tensor *a = rt_rand_tensor(t, 3, da, false), *b = rt_rand_tensor(t, 3, db, false);
    if (specials && nb > 0) {
        /* last batch: NaN in A's last row, -inf in A's first row, +inf in
         * B's last column (an edge column when n is not a multiple of 32) */
        int64_t lb = nb - 1;
        double nan = NAN, inf = INFINITY;
        put(t, a, (lb * m + (m - 1)) * k + k / 2, nan);
        put(t, a, lb * m * k + (k - 1), -inf);
        put(t, b, (lb * k + k / 3) * n + (n - 1), inf);
        /* first batch: +inf in B's first column */
        put(t, b, (k - 1) * n, inf);
    }
    plumb_tensor *in[2] = {a, b};
    rt_check_bound(src, in, 2, (uint64_t)k, false);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
}

static const int64_t shapes[][3] = {
    /* m, n, k */
    {1, 1, 1},    {8, 32, 1},  {7, 31, 3},   {8, 33, 5},  {9, 32, 64},
    {16, 64, 17}, {17, 65, 2}, {8, 100, 130}, {130, 3, 7}, {24, 40, 64},
};

/* f32: full tiles, 8-row edge-column tiles and the short last row block,
 * batch counts 1 and 3 (odd: the threads split them unevenly). */
static void test_small_paths_f32(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        check_batched(PLUMB_F32, 1, shapes[i][0], shapes[i][1], shapes[i][2], false);
        check_batched(PLUMB_F32, 3, shapes[i][0], shapes[i][1], shapes[i][2], false);
    }
}

/* f32 with NaN and infinities in A and B: the reference's NaN and
 * infinities, in the full tiles, the edge columns and the last row block. */
static void test_small_paths_f32_specials(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        check_batched(PLUMB_F32, 3, shapes[i][0], shapes[i][1], shapes[i][2], true);
}

/* f64 (the packed path) on the same shapes, plain and with specials. */
static void test_small_paths_f64(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i += 2) {
        check_batched(PLUMB_F64, 3, shapes[i][0], shapes[i][1], shapes[i][2], false);
        check_batched(PLUMB_F64, 1, shapes[i + 1][0], shapes[i + 1][1], shapes[i + 1][2], true);
    }
}

/* A batch count of 0: an empty result, no error. */
static void test_small_paths_empty_batch(void **state)
{
    (void)state;
    check_batched(PLUMB_F32, 0, 8, 32, 64, false);
    check_batched(PLUMB_F64, 0, 9, 33, 5, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_paths_f32),
        cmocka_unit_test(test_small_paths_f32_specials),
        cmocka_unit_test(test_small_paths_f64),
        cmocka_unit_test(test_small_paths_empty_batch),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
