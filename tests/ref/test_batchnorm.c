/* Reference batch_norm_inference, batch_norm_training and batch_norm_grad
 * (ref/batchnorm.c) on values derived by hand; where a result is
 * irrational the expected value is the formula evaluated in long double
 * (64-bit significand) and rounded to the element type, far more precise
 * than the element type, never the code under test. */
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

/* The spec's batch_norm_training example: features along the last
 * dimension are [1,3,3,1] and [2,4,4,2]: means 2 and 3, biased variances
 * (1+1+1+1)/4 = 1, so the output is x - mean + 1. */
static void test_training_spec_example(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {\n"
        "  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>\n"
        "  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>\n"
        "  %o = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>\n"
        "  %y, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 2 : i64} : "
        "(tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
        "  return %y, %m, %v : tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>\n}\n");
    static const float want[8] = {0, 0, 2, 2, 2, 2, 0, 0};
    for (size_t i = 0; i < 8; i++) expect_f32(&r, 0, i, want[i]);
    expect_f32(&r, 1, 0, 2.0f);
    expect_f32(&r, 1, 1, 3.0f);
    expect_f32(&r, 2, 0, 1.0f);
    expect_f32(&r, 2, 1, 1.0f);
    plumb_ref_result_free(&r);
}

/* One feature of 3 elements [1, 2, 4]: S = 7, Q = 21, mean 7/3, biased
 * variance (3*21 - 49)/9 = 14/9 (not the unbiased 7/3), both rounded once:
 * 7/3 = 10.0101...b -> 0x40155555 (the 24th bit is followed by 0101...,
 * down); 14/9 = 1.100011 100011...b -> 0x3FC71C72 (followed by 11..., up).
 * output = (3x - 7) / sqrt(14) with eps 0. */
static void test_training_rounds_once_biased(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3x1xf32>, tensor<1xf32>, tensor<1xf32>) {\n"
        "  %x = stablehlo.constant dense<[[1.0], [2.0], [4.0]]> : tensor<3x1xf32>\n"
        "  %s = stablehlo.constant dense<[1.0]> : tensor<1xf32>\n"
        "  %o = stablehlo.constant dense<[0.0]> : tensor<1xf32>\n"
        "  %y, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 1 : i64} : "
        "(tensor<3x1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<3x1xf32>, tensor<1xf32>, tensor<1xf32>)\n"
        "  return %y, %m, %v : tensor<3x1xf32>, tensor<1xf32>, tensor<1xf32>\n}\n");
    expect_bits(&r, 1, 0, 0x40155555u);
    expect_bits(&r, 2, 0, 0x3FC71C72u);
    static const int x[3] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++)
        expect_f32(&r, 0, i, (float)((3.0L * x[i] - 7.0L) / sqrtl(14.0L)));
    plumb_ref_result_free(&r);
}

/* feature_index in the middle of a rank-3 operand (features are not
 * contiguous): feature 0 holds 1,2,3,4 and feature 1 holds 3,4,1,2, both
 * mean 2.5 and variance (2.25+0.25+0.25+2.25)/4 = 1.25. */
static void test_training_middle_feature(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) {\n"
        "  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>\n"
        "  %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>\n"
        "  %o = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf64>\n"
        "  %y, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 1 : i64} : "
        "(tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)\n"
        "  return %y, %m, %v : tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>\n}\n");
    static const double x[8] = {1, 2, 3, 4, 3, 4, 1, 2};
    for (size_t i = 0; i < 8; i++) {
        size_t f = (i / 2) % 2;
        long double sc = f ? 2.0L : 1.0L, of = f ? 10.0L : 0.0L;
        expect_f64(&r, 0, i, (double)(sc * (x[i] - 2.5L) / sqrtl(1.25L) + of));
    }
    for (size_t f = 0; f < 2; f++) {
        expect_f64(&r, 1, f, 2.5);
        expect_f64(&r, 2, f, 1.25);
    }
    plumb_ref_result_free(&r);
}

/* A constant feature (variance 0): with eps = 0.25 the output is
 * 3 * 0 / 0.5 + 1 = 1; with eps = 0 it is 0/0 = NaN, as the spec's
 * decomposition gives in exact arithmetic. */
static void test_training_constant_feature(void **state)
{
    (void)state;
    static const char *const eps[2] = {"0.25", "0.0"};
    for (int k = 0; k < 2; k++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "func.func @main() -> (tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>) {\n"
                 "  %%x = stablehlo.constant dense<5.0> : tensor<4x1xf32>\n"
                 "  %%s = stablehlo.constant dense<[3.0]> : tensor<1xf32>\n"
                 "  %%o = stablehlo.constant dense<[1.0]> : tensor<1xf32>\n"
                 "  %%y, %%m, %%v = \"stablehlo.batch_norm_training\"(%%x, %%s, %%o) {epsilon = %s : f32, feature_index = 1 : i64} : "
                 "(tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>)\n"
                 "  return %%y, %%m, %%v : tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>\n}\n", eps[k]);
        plumb_ref_result r = run(src);
        for (size_t i = 0; i < 4; i++) {
            if (k == 0) expect_f32(&r, 0, i, 1.0f);
            else expect_nan(&r, 0, i);
        }
        expect_f32(&r, 1, 0, 5.0f);
        expect_f32(&r, 2, 0, 0.0f);
        plumb_ref_result_free(&r);
    }
}

/* inference with given statistics, feature_index 0 of a 2x2 operand:
 * feature 0 = [1, 5], mean 3, var 3, eps 1 -> sqrt 2, scale 2, offset 0.5:
 * 2*(-2)/2 + 0.5 = -1.5 and 2.5; feature 1 = [2, 6], mean 4, var 1 ->
 * sqrt(2), scale 1, offset -1: -sqrt(2) - 1 and sqrt(2) - 1. */
static void test_inference_by_hand(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2xf64> {\n"
        "  %x = stablehlo.constant dense<[[1.0, 5.0], [2.0, 6.0]]> : tensor<2x2xf64>\n"
        "  %s = stablehlo.constant dense<[2.0, 1.0]> : tensor<2xf64>\n"
        "  %o = stablehlo.constant dense<[0.5, -1.0]> : tensor<2xf64>\n"
        "  %m = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf64>\n"
        "  %v = stablehlo.constant dense<[3.0, 1.0]> : tensor<2xf64>\n"
        "  %y = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %v) {epsilon = 1.0 : f32, feature_index = 0 : i64} : "
        "(tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>\n"
        "  return %y : tensor<2x2xf64>\n}\n");
    expect_f64(&r, 0, 0, -1.5);
    expect_f64(&r, 0, 1, 2.5);
    expect_f64(&r, 0, 2, (double)(-sqrtl(2.0L) - 1.0L));
    expect_f64(&r, 0, 3, (double)(sqrtl(2.0L) - 1.0L));
    plumb_ref_result_free(&r);
}

/* eps is rounded to the element type first: 1e-5 in f16 is 168 * 2^-24
 * (1e-5 * 2^24 = 167.77), so (1 - 0) / sqrt(0 + eps) = 4096 / sqrt(168) =
 * 316.013, which rounds to the f16 316.0 (0x5CF0; spacing 0.25 there).
 * With eps at its f32 value it would be 316.228 -> 316.25 (0x5CF1). */
static void test_inference_f16_epsilon(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1x1xf16> {\n"
        "  %x = stablehlo.constant dense<1.0> : tensor<1x1xf16>\n"
        "  %s = stablehlo.constant dense<[1.0]> : tensor<1xf16>\n"
        "  %o = stablehlo.constant dense<[0.0]> : tensor<1xf16>\n"
        "  %m = stablehlo.constant dense<[0.0]> : tensor<1xf16>\n"
        "  %v = stablehlo.constant dense<[0.0]> : tensor<1xf16>\n"
        "  %y = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %v) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : "
        "(tensor<1x1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x1xf16>\n"
        "  return %y : tensor<1x1xf16>\n}\n");
    expect_bits(&r, 0, 0, 0x5CF0);
    plumb_ref_result_free(&r);
}

/* The spec's batch_norm_grad example: every grad_output element is 0.1 and
 * the data are symmetric about the means, so N g - G = 0 and
 * sum g (x - mean) = 0: grad_operand and grad_scale are exactly +0;
 * grad_offset = 4 * 0.1 = 4 * 3602879701896397 / 2^55, exactly the double
 * nearest 0.4. */
static void test_grad_spec_example(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) {\n"
        "  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>\n"
        "  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>\n"
        "  %m = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>\n"
        "  %v = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>\n"
        "  %g = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>\n"
        "  %gx, %gs, %go = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %v, %g) {epsilon = 0.0 : f32, feature_index = 2 : i64} : "
        "(tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>) -> "
        "(tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)\n"
        "  return %gx, %gs, %go : tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>\n}\n");
    for (size_t i = 0; i < 8; i++) expect_f64(&r, 0, i, 0.0);
    for (size_t f = 0; f < 2; f++) {
        expect_f64(&r, 1, f, 0.0);
        expect_f64(&r, 2, f, 0.4);
    }
    plumb_ref_result_free(&r);
}

/* One feature, x = [0, 1, 2], given mean 1 and variance 1, eps 0, scale 1,
 * g = [1, 0, 0]: G = 1, P = sum g (x - mean) = -1, q = s = 1, so
 * grad_offset = 1, grad_scale = -1 and grad_operand_j =
 * ((3 g_j - 1) - (x_j - 1)(-1)) / 3 = [1/3, -1/3, 0]. */
static void test_grad_by_hand(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3x1xf64>, tensor<1xf64>, tensor<1xf64>) {\n"
        "  %x = stablehlo.constant dense<[[0.0], [1.0], [2.0]]> : tensor<3x1xf64>\n"
        "  %s = stablehlo.constant dense<[1.0]> : tensor<1xf64>\n"
        "  %m = stablehlo.constant dense<[1.0]> : tensor<1xf64>\n"
        "  %v = stablehlo.constant dense<[1.0]> : tensor<1xf64>\n"
        "  %g = stablehlo.constant dense<[[1.0], [0.0], [0.0]]> : tensor<3x1xf64>\n"
        "  %gx, %gs, %go = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %v, %g) {epsilon = 0.0 : f32, feature_index = 1 : i64} : "
        "(tensor<3x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<3x1xf64>) -> "
        "(tensor<3x1xf64>, tensor<1xf64>, tensor<1xf64>)\n"
        "  return %gx, %gs, %go : tensor<3x1xf64>, tensor<1xf64>, tensor<1xf64>\n}\n");
    expect_f64(&r, 0, 0, 1.0 / 3.0);
    expect_f64(&r, 0, 1, -1.0 / 3.0);
    expect_f64(&r, 0, 2, 0.0);
    expect_f64(&r, 1, 0, -1.0);
    expect_f64(&r, 2, 0, 1.0);
    plumb_ref_result_free(&r);
}

/* An empty reduction (a zero-sized non-feature dimension): the sums are the
 * reduce's +0 init value, so the mean and variance are 0/0 = NaN. */
static void test_training_empty_reduction(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<0x2xf32>, tensor<2xf32>, tensor<2xf32>) {\n"
        "  %x = stablehlo.constant dense<> : tensor<0x2xf32>\n"
        "  %s = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>\n"
        "  %o = stablehlo.constant dense<[0.0, 0.0]> : tensor<2xf32>\n"
        "  %y, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 1.0 : f32, feature_index = 1 : i64} : "
        "(tensor<0x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<0x2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
        "  return %y, %m, %v : tensor<0x2xf32>, tensor<2xf32>, tensor<2xf32>\n}\n");
    for (size_t f = 0; f < 2; f++) {
        expect_nan(&r, 1, f);
        expect_nan(&r, 2, f);
    }
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_spec_example),
        cmocka_unit_test(test_training_rounds_once_biased),
        cmocka_unit_test(test_training_middle_feature),
        cmocka_unit_test(test_training_constant_feature),
        cmocka_unit_test(test_inference_by_hand),
        cmocka_unit_test(test_inference_f16_epsilon),
        cmocka_unit_test(test_grad_spec_example),
        cmocka_unit_test(test_grad_by_hand),
        cmocka_unit_test(test_training_empty_reduction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
