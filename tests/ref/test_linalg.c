/* Reference triangular_solve and cholesky (ref/linalg.c) on systems solved
 * by hand; the unread triangle always holds values that would change the
 * result if the kernel read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

#include "ref/ref_test.h"

/* L = [[2,0,0],[1,3,0],[4,-1,5]] (upper triangle 99: not read), b = [2,7,12]:
 * x0 = 2/2 = 1, x1 = (7 - 1)/3 = 2, x2 = (12 - 4 + 2)/5 = 2; and a second
 * column b = [2,7,13] whose x2 = 11/5 rounds to the f32 nearest 2.2. */
static void test_trsm_lower_left_by_hand(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<3x2xf32> {\n"
        "  %a = stablehlo.constant dense<[[2.0, 99.0, 99.0], [1.0, 3.0, 99.0], [4.0, -1.0, 5.0]]> : tensor<3x3xf32>\n"
        "  %b = stablehlo.constant dense<[[2.0, 2.0], [7.0, 7.0], [12.0, 13.0]]> : tensor<3x2xf32>\n"
        "  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = true, "
        "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : "
        "(tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>\n"
        "  return %x : tensor<3x2xf32>\n}\n");
    expect_f32(&r, 0, 0, 1.0f);
    expect_f32(&r, 0, 1, 1.0f);
    expect_f32(&r, 0, 2, 2.0f);
    expect_f32(&r, 0, 3, 2.0f);
    expect_f32(&r, 0, 4, 2.0f);
    expect_f32(&r, 0, 5, 2.2f);
    plumb_ref_result_free(&r);
}

/* The same L transposed: L^T x = b with x = [1,2,2] gives b = [2+2+8, 6-2, 10]
 * = [12, 4, 10]; ADJOINT is the same for reals. */
static void test_trsm_transpose_adjoint(void **state)
{
    (void)state;
    static const char *const modes[] = {"TRANSPOSE", "ADJOINT"};
    for (int i = 0; i < 2; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "func.func @main() -> tensor<3x1xf64> {\n"
                 "  %%a = stablehlo.constant dense<[[2.0, 99.0, 99.0], [1.0, 3.0, 99.0], [4.0, -1.0, 5.0]]> : tensor<3x3xf64>\n"
                 "  %%b = stablehlo.constant dense<[[12.0], [4.0], [10.0]]> : tensor<3x1xf64>\n"
                 "  %%x = \"stablehlo.triangular_solve\"(%%a, %%b) <{left_side = true, lower = true, "
                 "transpose_a = #stablehlo<transpose %s>, unit_diagonal = false}> : "
                 "(tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>\n"
                 "  return %%x : tensor<3x1xf64>\n}\n", modes[i]);
        plumb_ref_result r = run(src);
        expect_f64(&r, 0, 0, 1.0);
        expect_f64(&r, 0, 1, 2.0);
        expect_f64(&r, 0, 2, 2.0);
        plumb_ref_result_free(&r);
    }
}

/* Right side: x L = b for the row x = [1,2,2] is [2+2+8, 6-2, 10] = [12,4,10]
 * (the same numbers as L^T x); with unit_diagonal the diagonal (7s, not
 * read) is 1: x L1 for L1 = [[1,0,0],[1,1,0],[4,-1,1]] and x = [1,2,2] is
 * [1+2+8, 2-2, 2] = [11, 0, 2]. */
static void test_trsm_right_and_unit(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x3xf32>, tensor<1x3xf32>) {\n"
        "  %a = stablehlo.constant dense<[[2.0, 99.0, 99.0], [1.0, 3.0, 99.0], [4.0, -1.0, 5.0]]> : tensor<3x3xf32>\n"
        "  %u = stablehlo.constant dense<[[7.0, 99.0, 99.0], [1.0, 7.0, 99.0], [4.0, -1.0, 7.0]]> : tensor<3x3xf32>\n"
        "  %b = stablehlo.constant dense<[[12.0, 4.0, 10.0]]> : tensor<1x3xf32>\n"
        "  %c = stablehlo.constant dense<[[11.0, 0.0, 2.0]]> : tensor<1x3xf32>\n"
        "  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = false, lower = true, "
        "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : "
        "(tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>\n"
        "  %y = \"stablehlo.triangular_solve\"(%u, %c) <{left_side = false, lower = true, "
        "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : "
        "(tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>\n"
        "  return %x, %y : tensor<1x3xf32>, tensor<1x3xf32>\n}\n");
    for (uint32_t k = 0; k < 2; k++) {
        expect_f32(&r, k, 0, 1.0f);
        expect_f32(&r, k, 1, 2.0f);
        expect_f32(&r, k, 2, 2.0f);
    }
    plumb_ref_result_free(&r);
}

/* Upper triangle over a batch of two (lower triangle -5: not read):
 * U0 = [[2,1],[0,4]], b0 = [4,8]: x1 = 2, x0 = (4 - 2)/2 = 1;
 * U1 = [[1,-1],[0,2]], b1 = [1,6]: x1 = 3, x0 = 1 + 3 = 4. In bf16. */
static void test_trsm_upper_batch_bf16(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2x1xbf16> {\n"
        "  %a = stablehlo.constant dense<[[[2.0, 1.0], [-5.0, 4.0]], [[1.0, -1.0], [-5.0, 2.0]]]> : tensor<2x2x2xbf16>\n"
        "  %b = stablehlo.constant dense<[[[4.0], [8.0]], [[1.0], [6.0]]]> : tensor<2x2x1xbf16>\n"
        "  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = false, "
        "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : "
        "(tensor<2x2x2xbf16>, tensor<2x2x1xbf16>) -> tensor<2x2x1xbf16>\n"
        "  return %x : tensor<2x2x1xbf16>\n}\n");
    expect_bits(&r, 0, 0, 0x3F80u);   /* 1 */
    expect_bits(&r, 0, 1, 0x4000u);   /* 2 */
    expect_bits(&r, 0, 2, 0x4080u);   /* 4 */
    expect_bits(&r, 0, 3, 0x4040u);   /* 3 */
    plumb_ref_result_free(&r);
}

/* cholesky([[4,2],[2,5]]) = [[2,0],[1,2]]: 2 = sqrt 4, 1 = 2/2,
 * 2 = sqrt(5 - 1); the upper factor is its transpose [[2,1],[0,2]]. The
 * unread triangle holds 100; the opposite triangle of the result is +0. */
static void test_cholesky_by_hand(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>) {\n"
        "  %l = stablehlo.constant dense<[[4.0, 100.0], [2.0, 5.0]]> : tensor<2x2xf32>\n"
        "  %u = stablehlo.constant dense<[[4.0, 2.0], [100.0, 5.0]]> : tensor<2x2xf32>\n"
        "  %x = stablehlo.cholesky %l, lower = true : tensor<2x2xf32>\n"
        "  %y = \"stablehlo.cholesky\"(%u) <{lower = false}> : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
        "  return %x, %y : tensor<2x2xf32>, tensor<2x2xf32>\n}\n");
    expect_f32(&r, 0, 0, 2.0f);
    expect_bits(&r, 0, 1, 0u);
    expect_f32(&r, 0, 2, 1.0f);
    expect_f32(&r, 0, 3, 2.0f);
    expect_f32(&r, 1, 0, 2.0f);
    expect_f32(&r, 1, 1, 1.0f);
    expect_bits(&r, 1, 2, 0u);
    expect_f32(&r, 1, 3, 2.0f);
    plumb_ref_result_free(&r);
}

/* A 3x3 in f64: A = L L^T for L = [[1,0,0],[2,3,0],[4,5,6]] is
 * [[1,2,4],[2,13,23],[4,23,77]]; the factor comes back exactly. */
static void test_cholesky_3x3(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<3x3xf64> {\n"
        "  %a = stablehlo.constant dense<[[1.0, 2.0, 4.0], [2.0, 13.0, 23.0], [4.0, 23.0, 77.0]]> : tensor<3x3xf64>\n"
        "  %x = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>\n"
        "  return %x : tensor<3x3xf64>\n}\n");
    static const double want[9] = {1, 0, 0, 2, 3, 0, 4, 5, 6};
    for (size_t i = 0; i < 9; i++) expect_f64(&r, 0, i, want[i]);
    plumb_ref_result_free(&r);
}

/* Not positive definite: [[1,2],[2,1]] has the pivot 1 - 4 < 0; plumb's
 * choice (the spec leaves it undefined) is NaN in every element of that
 * batch member, and the next member ([[9,0],[0,16]] -> diag 3, 4) is
 * unaffected. The run does not fail. */
static void test_cholesky_not_pd(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2x2xf32> {\n"
        "  %a = stablehlo.constant dense<[[[1.0, 2.0], [2.0, 1.0]], [[9.0, 0.0], [0.0, 16.0]]]> : tensor<2x2x2xf32>\n"
        "  %x = stablehlo.cholesky %a, lower = true : tensor<2x2x2xf32>\n"
        "  return %x : tensor<2x2x2xf32>\n}\n");
    for (size_t i = 0; i < 4; i++) expect_nan(&r, 0, i);
    expect_f32(&r, 0, 4, 3.0f);
    expect_bits(&r, 0, 5, 0u);
    expect_f32(&r, 0, 6, 0.0f);
    expect_f32(&r, 0, 7, 4.0f);
    plumb_ref_result_free(&r);
}

/* The printer writes both ops back in forms the parser reads to the same
 * attributes: generic triangular_solve with every attribute, cholesky's
 * pretty form with and without lower. */
static void test_linalg_roundtrip(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<2x3x3xf32>, %b: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>) {\n"
        "  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = false, lower = false, "
        "transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true}> : "
        "(tensor<2x3x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>\n"
        "  %l = stablehlo.cholesky %a, lower = true : tensor<2x3x3xf32>\n"
        "  %u = stablehlo.cholesky %a : tensor<2x3x3xf32>\n"
        "  return %x, %l, %u : tensor<2x4x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>\n}\n";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    assert_non_null(m);
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_non_null(strstr(b.data, "left_side = false, lower = false, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true"));
    assert_non_null(strstr(b.data, ", lower = true : tensor<2x3x3xf32>"));
    ir_module *m2 = ir_parse(b.data, b.len, "t2", NULL, &d);
    assert_non_null(m2);
    const ir_func *f = ir_module_find_func(m2, "main");
    const ir_op *op = f->body.first;
    assert_int_equal(op->code, PLUMB_OP_TRIANGULAR_SOLVE);
    assert_false(op->a.left_side);
    assert_false(op->a.lower);
    assert_true(op->a.unit_diagonal);
    assert_int_equal(op->a.transpose_a, IR_TRANSPOSE_ADJOINT);
    assert_true(op->next->a.lower);
    assert_false(op->next->next->a.lower);
    plumb_buf_free(&b);
    ir_module_free(m2);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trsm_lower_left_by_hand),
        cmocka_unit_test(test_trsm_transpose_adjoint),
        cmocka_unit_test(test_trsm_right_and_unit),
        cmocka_unit_test(test_trsm_upper_batch_bf16),
        cmocka_unit_test(test_cholesky_by_hand),
        cmocka_unit_test(test_cholesky_3x3),
        cmocka_unit_test(test_cholesky_not_pd),
        cmocka_unit_test(test_linalg_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
