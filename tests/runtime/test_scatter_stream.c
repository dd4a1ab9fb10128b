/* scatter's copy of its input into the result (runtime/k_index.c,
 * scatter_copy_input): on the threads, and past the 8 MiB mark with
 * streaming stores whose unaligned head and tail go through the cache;
 * then the updates, row path (add, replace) and element path (a body the
 * kernels do not recognise), read the copied values. Against the reference
 * bit for bit at every ISA level on 1 and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static void check_scatter(plumb_dtype t, int64_t rows, int64_t cols, int64_t nupd, const char *body)
{
    char tt[96], ti[96], tu[96], ts[64], src[2048];
    int64_t dt[2] = {rows, cols}, di[2] = {nupd, 1}, du[2] = {nupd, cols};
    rt_ty(tt, sizeof tt, t, 2, dt);
    rt_ty(ti, sizeof ti, PLUMB_I32, 2, di);
    rt_ty(tu, sizeof tu, t, 2, du);
    rt_ty(ts, sizeof ts, t, 0, NULL);
    snprintf(src, sizeof src,
             "func.func @main(%%t: %s, %%i: %s, %%u: %s) -> %s {\n"
             "  %%r = \"stablehlo.scatter\"(%%t, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
             "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
             "index_vector_dim = 1>}> ({\n"
             "    ^bb0(%%a: %s, %%b: %s):\n%s"
             "    }) : (%s, %s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             tt, ti, tu, tt, ts, ts, body, tt, ti, tu, tt, tt);
    plumb_tensor *in[3] = {rt_rand_tensor(t, 2, dt, false), plumb_tensor_new(PLUMB_I32, 2, di, 0, NULL),
                           rt_rand_tensor(t, 2, du, false)};
    assert_non_null(in[1]);
    /* targets across the table, some repeated, one past the end (skipped) */
    for (int64_t k = 0; k < nupd; k++)
        ((int32_t *)in[1]->data)[k] = k == nupd - 1 ? (int32_t)rows : (int32_t)((k * 7919) % rows);
    rt_check_exact(src, in, 3);
    for (int k = 0; k < 3; k++) plumb_tensor_free(in[k]);
}

/* f32 add rows into a 9 MB table whose rows are not whole lines; i8
 * replace into a 9 MB table of odd size; a subtract body (element path). */
static void test_scatter_large_tables(void **state)
{
    (void)state;
    check_scatter(PLUMB_F32, 4201, 521, 64, "      %s = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n");
    check_scatter(PLUMB_I8, 9001, 1001, 33, "      stablehlo.return %b : tensor<i8>\n");
    check_scatter(PLUMB_F32, 4201, 521, 16,
                  "      %s = stablehlo.subtract %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scatter_large_tables),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
