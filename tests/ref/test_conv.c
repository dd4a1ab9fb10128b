/* Reference stablehlo.convolution: values derived by hand (1-D, a 3x3 window
 * over a small iota in two layouts, 3-D, groups, lhs dilation as a
 * transposed convolution, rhs dilation and reversal), the spec's zero
 * padding multiplied in, exact accumulation, integer wrap. */
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

/* x = [1, 2, 3, 4, 5], w = [1, 0, -1]: each valid window gives x[j] - x[j+2]
 * = -2; padded [0, 1, 2, 3, 4, 5, 0] with stride 2 the windows start at 0,
 * 2, 4: 0 - 2, 2 - 4, 4 - 0. */
static void test_1d_by_hand(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x3x1xf32>, tensor<1x3x1xf32>) {\n"
        "  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0], [5.0]]]> : tensor<1x5x1xf32>\n"
        "  %w = stablehlo.constant dense<[[[1.0]], [[0.0]], [[-1.0]]]> : tensor<3x1x1xf32>\n"
        "  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x1xf32>, tensor<3x1x1xf32>) -> tensor<1x3x1xf32>\n"
        "  %b = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x1xf32>, tensor<3x1x1xf32>) -> tensor<1x3x1xf32>\n"
        "  return %a, %b : tensor<1x3x1xf32>, tensor<1x3x1xf32>\n}\n");
    for (size_t i = 0; i < 3; i++) expect_f32(&r, 0, i, -2.0f);
    expect_f32(&r, 1, 0, -2.0f);
    expect_f32(&r, 1, 1, -2.0f);
    expect_f32(&r, 1, 2, 4.0f);
    plumb_ref_result_free(&r);
}

/* A 4x4 image holding 4r + c, a 3x3 window of ones: the window at (i, j)
 * sums 4(r) + c over r in i..i+2, c in j..j+2 = 36i + 9j + 45 (NHWC). */
static void test_3x3_iota_nhwc(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1x2x2x1xf32> {\n"
        "  %i = stablehlo.iota dim = 0 : tensor<16xf32>\n"
        "  %x = stablehlo.reshape %i : (tensor<16xf32>) -> tensor<1x4x4x1xf32>\n"
        "  %w = stablehlo.constant dense<1.0> : tensor<3x3x1x1xf32>\n"
        "  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n"
        "  return %r : tensor<1x2x2x1xf32>\n}\n");
    expect_f32(&r, 0, 0, 45.0f);
    expect_f32(&r, 0, 1, 54.0f);
    expect_f32(&r, 0, 2, 81.0f);
    expect_f32(&r, 0, 3, 90.0f);
    plumb_ref_result_free(&r);
}

/* The same image NCHW with kernel OIHW of two output features (ones, twos):
 * feature 1 is twice feature 0. */
static void test_3x3_iota_nchw(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1x2x2x2xf64> {\n"
        "  %i = stablehlo.iota dim = 0 : tensor<16xf64>\n"
        "  %x = stablehlo.reshape %i : (tensor<16xf64>) -> tensor<1x1x4x4xf64>\n"
        "  %w = stablehlo.constant dense<[[[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]], [[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]]> : tensor<2x1x3x3xf64>\n"
        "  %r = \"stablehlo.convolution\"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64} : (tensor<1x1x4x4xf64>, tensor<2x1x3x3xf64>) -> tensor<1x2x2x2xf64>\n"
        "  return %r : tensor<1x2x2x2xf64>\n}\n");
    static const double want[8] = {45, 54, 81, 90, 90, 108, 162, 180};
    for (size_t i = 0; i < 8; i++) expect_f64(&r, 0, i, want[i]);
    plumb_ref_result_free(&r);
}

/* feature_group_count = 2: features [1, 2 | 3, 4]; kernel k[i][o] = [[1, 10],
 * [100, 1000]]: output feature 0 = 1*1 + 2*100, feature 1 = 3*10 + 4*1000.
 * batch_group_count = 2: batches 3 and 5, kernel [7, 11]: output feature 0
 * reads batch 0 (3*7), feature 1 batch 1 (5*11). */
static void test_groups(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x1x2xi32>, tensor<1x1x2xi32>) {\n"
        "  %x = stablehlo.constant dense<[[[1, 2, 3, 4]]]> : tensor<1x1x4xi32>\n"
        "  %w = stablehlo.constant dense<[[[1, 10], [100, 1000]]]> : tensor<1x2x2xi32>\n"
        "  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x1x4xi32>, tensor<1x2x2xi32>) -> tensor<1x1x2xi32>\n"
        "  %y = stablehlo.constant dense<[[[3]], [[5]]]> : tensor<2x1x1xi32>\n"
        "  %v = stablehlo.constant dense<[[[7, 11]]]> : tensor<1x1x2xi32>\n"
        "  %b = stablehlo.convolution(%y, %v) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x1x1xi32>, tensor<1x1x2xi32>) -> tensor<1x1x2xi32>\n"
        "  return %a, %b : tensor<1x1x2xi32>, tensor<1x1x2xi32>\n}\n");
    expect_int(&r, 0, 0, 201);
    expect_int(&r, 0, 1, 4030);
    expect_int(&r, 1, 0, 21);
    expect_int(&r, 1, 1, 55);
    plumb_ref_result_free(&r);
}

/* lhs_dilate = 2 is a transposed convolution: [1, 2, 3] dilated to
 * [1, 0, 2, 0, 3], padded to [0, 1, 0, 2, 0, 3, 0], window [1, 2, 3]:
 * out[j] = p[j] + 2p[j+1] + 3p[j+2] = 2, 7, 4, 11, 6. */
static void test_lhs_dilation_transposed(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1x5x1xf32> {\n"
        "  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>\n"
        "  %w = stablehlo.constant dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>\n"
        "  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 1]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xf32>, tensor<3x1x1xf32>) -> tensor<1x5x1xf32>\n"
        "  return %r : tensor<1x5x1xf32>\n}\n");
    static const float want[5] = {2, 7, 4, 11, 6};
    for (size_t i = 0; i < 5; i++) expect_f32(&r, 0, i, want[i]);
    plumb_ref_result_free(&r);
}

/* rhs_dilate = 2 spaces the window [1, 10] over x[j], x[j+2]: x[j] +
 * 10x[j+2] = 31, 42, 53; reversed ([10, 1]): 10x[j] + x[j+2] = 13, 24, 35. */
static void test_rhs_dilation_reversal(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x3x1xi64>, tensor<1x3x1xi64>) {\n"
        "  %x = stablehlo.constant dense<[[[1], [2], [3], [4], [5]]]> : tensor<1x5x1xi64>\n"
        "  %w = stablehlo.constant dense<[[[1]], [[10]]]> : tensor<2x1x1xi64>\n"
        "  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x1xi64>, tensor<2x1x1xi64>) -> tensor<1x3x1xi64>\n"
        "  %b = \"stablehlo.convolution\"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>, feature_group_count = 1 : i64, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>} : (tensor<1x5x1xi64>, tensor<2x1x1xi64>) -> tensor<1x3x1xi64>\n"
        "  return %a, %b : tensor<1x3x1xi64>, tensor<1x3x1xi64>\n}\n");
    expect_int(&r, 0, 0, 31); expect_int(&r, 0, 1, 42); expect_int(&r, 0, 2, 53);
    expect_int(&r, 1, 0, 13); expect_int(&r, 1, 1, 24); expect_int(&r, 1, 2, 35);
    plumb_ref_result_free(&r);
}

/* 3-D: a 2x2x2 block of ones under a 2x2x2 window of ones is 8; i8 sums
 * wrap: 100 + 100 = 200 - 256 = -56. */
static void test_3d_and_int_wrap(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x1x1x1x1xf32>, tensor<1x1x1xi8>) {\n"
        "  %x = stablehlo.constant dense<1.0> : tensor<1x2x2x2x1xf32>\n"
        "  %w = stablehlo.constant dense<1.0> : tensor<2x2x2x1x1xf32>\n"
        "  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x2x1xf32>, tensor<2x2x2x1x1xf32>) -> tensor<1x1x1x1x1xf32>\n"
        "  %y = stablehlo.constant dense<100> : tensor<1x2x1xi8>\n"
        "  %v = stablehlo.constant dense<1> : tensor<2x1x1xi8>\n"
        "  %b = stablehlo.convolution(%y, %v) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x1xi8>, tensor<2x1x1xi8>) -> tensor<1x1x1xi8>\n"
        "  return %a, %b : tensor<1x1x1x1x1xf32>, tensor<1x1x1xi8>\n}\n");
    expect_f32(&r, 0, 0, 8.0f);
    expect_int(&r, 1, 0, -56);
    plumb_ref_result_free(&r);
}

/* Exact accumulation: 1e30*1 + 1*1 + (-1e30)*1 = 1 exactly in f32 (a
 * left-to-right f32 sum gives 0); the spec's zero padding is multiplied in:
 * a padded position under an infinite kernel element gives 0 * inf = NaN. */
static void test_exact_and_padding_nan(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1x1x1xf32>, tensor<1x1x1xf32>) {\n"
        "  %x = stablehlo.constant dense<[[[1.0e30], [1.0], [-1.0e30]]]> : tensor<1x3x1xf32>\n"
        "  %w = stablehlo.constant dense<1.0> : tensor<3x1x1xf32>\n"
        "  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xf32>, tensor<3x1x1xf32>) -> tensor<1x1x1xf32>\n"
        "  %y = stablehlo.constant dense<[[[1.0]]]> : tensor<1x1x1xf32>\n"
        "  %v = stablehlo.constant dense<[[[0x7F800000]], [[1.0]]]> : tensor<2x1x1xf32>\n"
        "  %b = stablehlo.convolution(%y, %v) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x1xf32>, tensor<2x1x1xf32>) -> tensor<1x1x1xf32>\n"
        "  return %a, %b : tensor<1x1x1xf32>, tensor<1x1x1xf32>\n}\n");
    expect_f32(&r, 0, 0, 1.0f);
    expect_nan(&r, 1, 0);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1d_by_hand),
        cmocka_unit_test(test_3x3_iota_nhwc),
        cmocka_unit_test(test_3x3_iota_nchw),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_lhs_dilation_transposed),
        cmocka_unit_test(test_rhs_dilation_reversal),
        cmocka_unit_test(test_3d_and_int_wrap),
        cmocka_unit_test(test_exact_and_padding_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
