/* Reference dot_general/dot kernels: spec example with batching, exact products and sums rounded once, integer wrap. */
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

/* StableHLO spec example: batch dim 0, contracting 2 x 1, identity rhs. */
static void test_spec_example(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2x2xi64> {\n"
        "  %l = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>\n"
        "  %q = stablehlo.constant dense<[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]> : tensor<2x2x2xi64>\n"
        "  %r = stablehlo.dot_general %l, %q, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>\n"
        "  return %r : tensor<2x2x2xi64>\n}\n");
    for (int i = 0; i < 8; i++)
        expect_int(&r, 0, (size_t)i, i + 1);
    plumb_ref_result_free(&r);
}

/* Result order is batch, lhs free, rhs free, with batch dims that are not
 * leading: result[b][j] = sum_k lhs[b][k] * rhs[k][b][j]. */
static void test_batch_order(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x4xf32> {\n"
        "  %l = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>\n"
        "  %q = stablehlo.constant dense<[[[1.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0, 1.0], [0.0, 2.0, 0.0, 1.0]], [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, 1.0]]]> : tensor<3x2x4xf32>\n"
        "  %r = stablehlo.dot_general %l, %q, batching_dims = [0] x [1], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2x4xf32>) -> tensor<2x4xf32>\n"
        "  return %r : tensor<2x4xf32>\n}\n");
    /* batch 0: [1,2,3] . columns of rhs[:,0,:] = [1,2,3,6] */
    expect_f32(&r, 0, 0, 1.0f); expect_f32(&r, 0, 1, 2.0f); expect_f32(&r, 0, 2, 3.0f); expect_f32(&r, 0, 3, 6.0f);
    /* batch 1: [4,5,6] . rhs[:,1,:] = [8,10,12,15] */
    expect_f32(&r, 0, 4, 8.0f); expect_f32(&r, 0, 5, 10.0f); expect_f32(&r, 0, 6, 12.0f); expect_f32(&r, 0, 7, 15.0f);
    plumb_ref_result_free(&r);
}

/* f32: 1e30*1 + 1*1 + (-1e30)*1 is exactly 1; f64: (1+2^-30)(1-2^-30) - 1 =
 * -2^-60 exactly, which rounding the product first would lose. */
static void test_exact_accumulation(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<f32>, tensor<f64>) {\n"
        "  %a = stablehlo.constant dense<[1.0e30, 1.0, -1.0e30]> : tensor<3xf32>\n"
        "  %b = stablehlo.constant dense<1.0> : tensor<3xf32>\n"
        "  %r = stablehlo.dot %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>\n"
        "  %c = stablehlo.constant dense<[0x3FF0000000400000, -1.0]> : tensor<2xf64>\n"
        "  %d = stablehlo.constant dense<[0x3FEFFFFFFF800000, 1.0]> : tensor<2xf64>\n"
        "  %s = stablehlo.dot %c, %d : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>\n"
        "  return %r, %s : tensor<f32>, tensor<f64>\n}\n");
    expect_f32(&r, 0, 0, 1.0f);
    expect_f64(&r, 1, 0, -0x1p-60);
    plumb_ref_result_free(&r);
}

/* bf16 result rounded once: 1 + 2^-8 + 2^-9 = 1 + 3*2^-9 lies above the tie
 * (1 + 2^-8) between 1 and 1 + 2^-7, so it rounds up; rounding 1 + 2^-8
 * first would give 1 (ties to even). */
static void test_bf16_one_rounding(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<bf16> {\n"
        "  %a = stablehlo.constant dense<[1.0, 0.00390625, 0.001953125]> : tensor<3xbf16>\n"
        "  %b = stablehlo.constant dense<1.0> : tensor<3xbf16>\n"
        "  %r = stablehlo.dot %a, %b : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<bf16>\n"
        "  return %r : tensor<bf16>\n}\n");
    expect_bits(&r, 0, 0, 0x3F81);   /* 1 + 2^-7 */
    plumb_ref_result_free(&r);
}

/* NaN and infinities: inf * 0 is NaN; inf + (-inf) is NaN; an empty
 * contraction is +0. */
static void test_special(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>) {\n"
        "  %a = stablehlo.constant dense<[0x7F800000, 1.0]> : tensor<2xf32>\n"
        "  %b = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>\n"
        "  %r = stablehlo.dot %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
        "  %c = stablehlo.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>\n"
        "  %d = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
        "  %s = stablehlo.dot %c, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
        "  %e = stablehlo.constant dense<> : tensor<0xf32>\n"
        "  %t = stablehlo.dot %e, %e : (tensor<0xf32>, tensor<0xf32>) -> tensor<f32>\n"
        "  return %r, %s, %t : tensor<f32>, tensor<f32>, tensor<f32>\n}\n");
    expect_nan(&r, 0, 0);
    expect_nan(&r, 1, 0);
    expect_bits(&r, 2, 0, 0);
    plumb_ref_result_free(&r);
}

/* Integers wrap (100 * 3 = 300 = 44 mod 256 in i8); matrix-vector dot. */
static void test_integer(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<i8>, tensor<2xi32>) {\n"
        "  %a = stablehlo.constant dense<[100]> : tensor<1xi8>\n"
        "  %b = stablehlo.constant dense<[3]> : tensor<1xi8>\n"
        "  %r = stablehlo.dot %a, %b : (tensor<1xi8>, tensor<1xi8>) -> tensor<i8>\n"
        "  %m = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>\n"
        "  %v = stablehlo.constant dense<[5, -6]> : tensor<2xi32>\n"
        "  %s = stablehlo.dot %m, %v : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2xi32>\n"
        "  return %r, %s : tensor<i8>, tensor<2xi32>\n}\n");
    expect_int(&r, 0, 0, 44);
    expect_int(&r, 1, 0, -7);
    expect_int(&r, 1, 1, -9);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_batch_order),
        cmocka_unit_test(test_exact_accumulation),
        cmocka_unit_test(test_bf16_one_rounding),
        cmocka_unit_test(test_special),
        cmocka_unit_test(test_integer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
