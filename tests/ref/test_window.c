/* Reference window kernels (ref/window.c): reduce_window and
 * select_and_scatter, with every expected value derived by hand from the
 * spec's definition (docs/spec/window.md). */
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

#define MAX_BODY(T)                                                           \
    "  ^bb0(%a: tensor<" T ">, %b: tensor<" T ">):\n"                         \
    "    %m = stablehlo.maximum %a, %b : tensor<" T ">\n"                     \
    "    stablehlo.return %m : tensor<" T ">\n"
#define ADD_BODY(T)                                                           \
    "  ^bb0(%a: tensor<" T ">, %b: tensor<" T ">):\n"                         \
    "    %m = stablehlo.add %a, %b : tensor<" T ">\n"                         \
    "    stablehlo.return %m : tensor<" T ">\n"

/* 2x2 stride-2 max-pool of a 4x4 iota (0..15, row-major): each window's
 * maximum is its bottom-right element: 5, 7, 13, 15. */
static void test_maxpool_iota(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2xf32> {\n"
        "  %i = stablehlo.iota dim = 0 : tensor<16xf32>\n"
        "  %x = stablehlo.reshape %i : (tensor<16xf32>) -> tensor<4x4xf32>\n"
        "  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({\n"
        MAX_BODY("f32")
        "  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x2xf32>\n"
        "  return %r : tensor<2x2xf32>\n}\n");
    expect_f32(&r, 0, 0, 5.0f);
    expect_f32(&r, 0, 1, 7.0f);
    expect_f32(&r, 0, 2, 13.0f);
    expect_f32(&r, 0, 3, 15.0f);
    plumb_ref_result_free(&r);
}

/* Base dilation 2 of [1, 2, 3] is [1, h, 2, h, 3] where each hole h holds
 * the init value (the spec pads with init_values); windows of 2 with init
 * 10 fold init once more: [10+1+10, 10+10+2, 10+2+10, 10+10+3] =
 * [21, 22, 22, 23]. */
static void test_sum_base_dilation_holes_hold_init(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<4xf32> {\n"
        "  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
        "  %c = stablehlo.constant dense<10.0> : tensor<f32>\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{base_dilations = array<i64: 2>, window_dimensions = array<i64: 2>}> ({\n"
        ADD_BODY("f32")
        "  }) : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  return %r : tensor<4xf32>\n}\n");
    expect_f32(&r, 0, 0, 21.0f);
    expect_f32(&r, 0, 1, 22.0f);
    expect_f32(&r, 0, 2, 22.0f);
    expect_f32(&r, 0, 3, 23.0f);
    plumb_ref_result_free(&r);
}

/* The spec's example with everything at once: input [[1,2],[3,4],[5,6]],
 * window [2,1], strides [4,1], base dilations [2,1], window dilations
 * [3,1], padding [[2,1],[0,0]]. Along dimension 0 the dilated input is 5
 * long, padded 8, the dilated window 4: (8-4)/4+1 = 2 windows. Window 0
 * reads p = -2 (padding) and p = 1 (a hole): 0 + 0 = 0; window 1 reads p = 2
 * (row 1) and p = 5 (padding): the row [3, 4]. */
static void test_spec_example_all_attributes(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2xi64> {\n"
        "  %x = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{base_dilations = array<i64: 2, 1>, "
        "padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 1>, "
        "window_dilations = array<i64: 3, 1>, window_strides = array<i64: 4, 1>}> ({\n"
        ADD_BODY("i64")
        "  }) : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>\n"
        "  return %r : tensor<2x2xi64>\n}\n");
    expect_int(&r, 0, 0, 0);
    expect_int(&r, 0, 1, 0);
    expect_int(&r, 0, 2, 3);
    expect_int(&r, 0, 3, 4);
    plumb_ref_result_free(&r);
}

/* A cumulative sum as JAX writes it (window 4, padding [3, 0]): the
 * prefix sums of [1, 2, 3, 4] are [1, 3, 6, 10]; i8 sums wrap: 100 + 100
 * = 200 - 256 = -56. */
static void test_cumsum_and_int_wrap(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<4xi32>, tensor<1xi8>) {\n"
        "  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 4>}> ({\n"
        ADD_BODY("i32")
        "  }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>\n"
        "  %y = stablehlo.constant dense<[100, 100]> : tensor<2xi8>\n"
        "  %z = stablehlo.constant dense<0> : tensor<i8>\n"
        "  %w = \"stablehlo.reduce_window\"(%y, %z) <{window_dimensions = array<i64: 2>}> ({\n"
        ADD_BODY("i8")
        "  }) : (tensor<2xi8>, tensor<i8>) -> tensor<1xi8>\n"
        "  return %r, %w : tensor<4xi32>, tensor<1xi8>\n}\n");
    expect_int(&r, 0, 0, 1);
    expect_int(&r, 0, 1, 3);
    expect_int(&r, 0, 2, 6);
    expect_int(&r, 0, 3, 10);
    expect_int(&r, 1, 0, -56);
    plumb_ref_result_free(&r);
}

/* A two-input body (argmax: value and index, the first of equal maxima
 * kept) runs through the region: over [3, 7, 7, 1] with windows of 2 and
 * stride 1 the maxima are 7, 7, 7 at indices 1, 1, 2. Negative padding
 * crops: [-1, -1] on [5, 6, 7, 8] with a window of 1 leaves [6, 7]. */
static void test_generic_body_and_negative_padding(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3xf32>, tensor<3xi32>, tensor<2xf32>) {\n"
        "  %x = stablehlo.constant dense<[3.0, 7.0, 7.0, 1.0]> : tensor<4xf32>\n"
        "  %i = stablehlo.iota dim = 0 : tensor<4xi32>\n"
        "  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %k = stablehlo.constant dense<-1> : tensor<i32>\n"
        "  %r:2 = \"stablehlo.reduce_window\"(%x, %i, %c, %k) <{window_dimensions = array<i64: 2>}> ({\n"
        "  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):\n"
        "    %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %v = stablehlo.select %ge, %a, %b : tensor<i1>, tensor<f32>\n"
        "    %j = stablehlo.select %ge, %ai, %bi : tensor<i1>, tensor<i32>\n"
        "    stablehlo.return %v, %j : tensor<f32>, tensor<i32>\n"
        "  }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)\n"
        "  %y = stablehlo.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %w = \"stablehlo.reduce_window\"(%y, %z) <{padding = dense<[[-1, -1]]> : tensor<1x2xi64>, window_dimensions = array<i64: 1>}> ({\n"
        ADD_BODY("f32")
        "  }) : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>\n"
        "  return %r#0, %r#1, %w : tensor<3xf32>, tensor<3xi32>, tensor<2xf32>\n}\n");
    expect_f32(&r, 0, 0, 7.0f);
    expect_f32(&r, 0, 1, 7.0f);
    expect_f32(&r, 0, 2, 7.0f);
    expect_int(&r, 1, 0, 1);
    expect_int(&r, 1, 1, 1);
    expect_int(&r, 1, 2, 2);
    expect_f32(&r, 2, 0, 6.0f);
    expect_f32(&r, 2, 1, 7.0f);
    plumb_ref_result_free(&r);
}

/* A float sum rounded once: 1 + 2^-24 + 2^-24 in f32 is 1 + 2^-23
 * exactly (representable), where adding left to right in f32 would give 1
 * (each 2^-24 is a tie rounded to even). The max of -0 and +0 is +0; a NaN
 * in the window gives NaN. */
static void test_float_sum_rounded_once_and_max_specials(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<1xf32>, tensor<2xf32>) {\n"
        "  %x = stablehlo.constant dense<[5.9604644775390625E-8, 5.9604644775390625E-8]> : tensor<2xf32>\n"
        "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{window_dimensions = array<i64: 2>}> ({\n"
        ADD_BODY("f32")
        "  }) : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>\n"
        "  %y = stablehlo.constant dense<[-0.0, 0.0, 0x7FC00000]> : tensor<3xf32>\n"
        "  %n = stablehlo.constant dense<-0.0> : tensor<f32>\n"
        "  %m = \"stablehlo.reduce_window\"(%y, %n) <{window_dimensions = array<i64: 2>}> ({\n"
        MAX_BODY("f32")
        "  }) : (tensor<3xf32>, tensor<f32>) -> tensor<2xf32>\n"
        "  return %r, %m : tensor<1xf32>, tensor<2xf32>\n}\n");
    expect_f32(&r, 0, 0, 1.0f + 0x1p-23f);
    expect_bits(&r, 1, 0, 0x00000000u);
    expect_nan(&r, 1, 1);
    plumb_ref_result_free(&r);
}

/* The spec's select_and_scatter example: operand [[1,5],[2,5],[3,6],[4,4]],
 * source [[5,6],[7,8]], select GE, scatter add, window [3,1], strides
 * [2,1], padding [[0,1],[0,0]]. Column 0, window rows 0-2 = [1,2,3]: 3
 * (row 2) takes 5; rows 2-4 = [3,4,pad]: 4 (row 3) takes 7. Column 1, rows
 * 0-2 = [5,5,6]: 6 (row 2) takes 6; rows 2-4 = [6,4,pad]: 6 (row 2, kept
 * since 6 >= 4) takes 8, 6 + 8 = 14. The rest stays the init value 0. */
static void test_select_and_scatter_spec_example(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<4x2xi64> {\n"
        "  %x = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>\n"
        "  %s = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %r = \"stablehlo.select_and_scatter\"(%x, %s, %c) <{padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>, "
        "window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>}> ({\n"
        "  ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
        "    %p = stablehlo.compare GE, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "    stablehlo.return %p : tensor<i1>\n"
        "  }, {\n"
        ADD_BODY("i64")
        "  }) : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>\n"
        "  return %r : tensor<4x2xi64>\n}\n");
    static const int64_t want[8] = {0, 0, 0, 0, 5, 14, 7, 0};
    for (size_t i = 0; i < 8; i++)
        expect_int(&r, 0, i, want[i]);
    plumb_ref_result_free(&r);
}

/* A window entirely in padding selects nothing: operand [1, 2], window 2,
 * stride 2, padding [0, 2] gives two windows, [1, 2] (2 takes 10) and
 * [pad, pad] (its source 20 goes nowhere); the init is -1. */
static void test_select_and_scatter_window_all_padding(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        "  %s = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>\n"
        "  %c = stablehlo.constant dense<-1.0> : tensor<f32>\n"
        "  %r = \"stablehlo.select_and_scatter\"(%x, %s, %c) <{padding = dense<[[0, 2]]> : tensor<1x2xi64>, "
        "window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %p = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    stablehlo.return %p : tensor<i1>\n"
        "  }, {\n"
        ADD_BODY("f32")
        "  }) : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>\n"
        "  return %r : tensor<2xf32>\n}\n");
    expect_f32(&r, 0, 0, -1.0f);
    expect_f32(&r, 0, 1, 9.0f);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maxpool_iota),
        cmocka_unit_test(test_sum_base_dilation_holes_hold_init),
        cmocka_unit_test(test_spec_example_all_attributes),
        cmocka_unit_test(test_cumsum_and_int_wrap),
        cmocka_unit_test(test_generic_body_and_negative_padding),
        cmocka_unit_test(test_float_sum_rounded_once_and_max_specials),
        cmocka_unit_test(test_select_and_scatter_spec_example),
        cmocka_unit_test(test_select_and_scatter_window_all_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
