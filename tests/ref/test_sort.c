/* Reference sort and top_k kernels: stability, multi-operand sort, negative dimension, top_k ties, NaN and signed zero. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

#include "ref/ref_test.h"

/* Stable multi-operand sort by key (operand 0) ascending: equal keys keep
 * input order, and operand 1 moves with its key. */
static void test_sort_stable_multi(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<6xi32>, tensor<6xi32>) {\n"
        "  %k = stablehlo.constant dense<[3, 1, 2, 1, 3, 1]> : tensor<6xi32>\n"
        "  %v = stablehlo.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>\n"
        "  %s:2 = \"stablehlo.sort\"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({\n"
        "    ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):\n"
        "      %lt = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "      stablehlo.return %lt : tensor<i1>\n"
        "    }) : (tensor<6xi32>, tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>)\n"
        "  return %s#0, %s#1 : tensor<6xi32>, tensor<6xi32>\n}\n");
    const int64_t keys[6] = {1, 1, 1, 2, 3, 3}, vals[6] = {1, 3, 5, 2, 0, 4};
    for (int i = 0; i < 6; i++) {
        expect_int(&r, 0, (size_t)i, keys[i]);
        expect_int(&r, 1, (size_t)i, vals[i]);
    }
    plumb_ref_result_free(&r);
}

/* dimension = -1 sorts each row (descending via GT); NaN under a FLOAT
 * comparison is not a strict weak order, yet the result is a permutation. */
static void test_sort_rows_and_nan(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x3xf32> {\n"
        "  %x = stablehlo.constant dense<[[1.0, 3.0, 2.0], [0x7FC00000, 5.0, 4.0]]> : tensor<2x3xf32>\n"
        "  %s = \"stablehlo.sort\"(%x) <{dimension = -1 : i64}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "      %gt = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "      stablehlo.return %gt : tensor<i1>\n"
        "    }) : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
        "  return %s : tensor<2x3xf32>\n}\n");
    expect_f32(&r, 0, 0, 3.0f);
    expect_f32(&r, 0, 1, 2.0f);
    expect_f32(&r, 0, 2, 1.0f);
    int nans = 0;
    float sum = 0;
    for (size_t i = 3; i < 6; i++) {
        double v = plumb_load_f64(PLUMB_F32, r.outputs[0]->data, i);
        if (isnan(v)) nans++;
        else sum += (float)v;
    }
    assert_int_equal(nans, 1);
    assert_true(sum == 9.0f);
    plumb_ref_result_free(&r);
}

/* top_k: descending, ties by lower index; totalOrder puts +NaN first, -NaN
 * last and -0 below +0 (the StableHLO testdata's expected order). */
static void test_top_k(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x3xf32>, tensor<2x3xi32>) {\n"
        "  %x = stablehlo.constant dense<[[1.0, 2.0, 2.0, 0.5, 2.0], [-0.0, 0xFFC00000, 0.0, 0x7FC00000, 0xFF800000]]> : tensor<2x5xf32>\n"
        "  %v, %i = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
        "  return %v, %i : tensor<2x3xf32>, tensor<2x3xi32>\n}\n");
    expect_f32(&r, 0, 0, 2.0f); expect_int(&r, 1, 0, 1);
    expect_f32(&r, 0, 1, 2.0f); expect_int(&r, 1, 1, 2);
    expect_f32(&r, 0, 2, 2.0f); expect_int(&r, 1, 2, 4);
    expect_bits(&r, 0, 3, 0x7FC00000u); expect_int(&r, 1, 3, 3);
    expect_bits(&r, 0, 4, 0); expect_int(&r, 1, 4, 2);
    expect_bits(&r, 0, 5, 0x80000000u); expect_int(&r, 1, 5, 0);
    plumb_ref_result_free(&r);
}

/* top_k on signed integers compares signed; k equal to the size sorts all. */
static void test_top_k_int(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<4xi8>, tensor<4xi32>) {\n"
        "  %x = stablehlo.constant dense<[-1, 127, -128, 0]> : tensor<4xi8>\n"
        "  %v, %i = chlo.top_k(%x, k = 4) : tensor<4xi8> -> (tensor<4xi8>, tensor<4xi32>)\n"
        "  return %v, %i : tensor<4xi8>, tensor<4xi32>\n}\n");
    const int64_t v[4] = {127, 0, -1, -128}, ix[4] = {1, 3, 0, 2};
    for (int i = 0; i < 4; i++) {
        expect_int(&r, 0, (size_t)i, v[i]);
        expect_int(&r, 1, (size_t)i, ix[i]);
    }
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_stable_multi),
        cmocka_unit_test(test_sort_rows_and_nan),
        cmocka_unit_test(test_top_k),
        cmocka_unit_test(test_top_k_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
