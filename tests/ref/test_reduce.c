/* Reference reduce kernel: spec examples, exact sums and products rounded once, special values, integer wrap, generic bodies. */
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

/* Builds `func @main(%arg0: tensor<NxT>) -> tensor<T>` reducing with `op`. */
static char *reduce_src(char *buf, size_t cap, const char *op, const char *t, int n, const char *init)
{
    snprintf(buf, cap,
             "func.func @main(%%arg0: tensor<%dx%s>) -> tensor<%s> {\n"
             "  %%c = stablehlo.constant dense<%s> : tensor<%s>\n"
             "  %%r = stablehlo.reduce(%%arg0 init: %%c) applies stablehlo.%s across dimensions = [0] : (tensor<%dx%s>, tensor<%s>) -> tensor<%s>\n"
             "  return %%r : tensor<%s>\n}\n",
             n, t, t, init, t, op, n, t, t, t, t);
    return buf;
}

static plumb_tensor *vec_f32(const float *v, int n)
{
    int64_t dims[1] = {n};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 1, dims, 0, NULL);
    assert_non_null(t);
    memcpy(t->data, v, (size_t)n * sizeof *v);
    return t;
}

static plumb_tensor *vec_f64(const double *v, int n)
{
    int64_t dims[1] = {n};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F64, 1, dims, 0, NULL);
    assert_non_null(t);
    memcpy(t->data, v, (size_t)n * sizeof *v);
    return t;
}

static plumb_ref_result reduce_f32(const char *op, const float *v, int n, const char *init)
{
    char src[1024];
    plumb_tensor *x = vec_f32(v, n);
    plumb_ref_result r = run_inputs(reduce_src(src, sizeof src, op, "f32", n, init), &x, 1);
    plumb_tensor_free(x);
    return r;
}

static plumb_ref_result reduce_f64(const char *op, const double *v, int n, const char *init)
{
    char src[1024];
    plumb_tensor *x = vec_f64(v, n);
    plumb_ref_result r = run_inputs(reduce_src(src, sizeof src, op, "f64", n, init), &x, 1);
    plumb_tensor_free(x);
    return r;
}

/* StableHLO spec example: sum of [[0..5]] over dimension 1 is [15]. */
static void test_spec_example(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1xi64> {\n"
        "  %x = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>\n"
        "  return %r : tensor<1xi64>\n}\n");
    expect_int(&r, 0, 0, 15);
    plumb_ref_result_free(&r);
}

/* 1e8 followed by 104 ones: the exact sum 100000104 is an f32 (a multiple of
 * 8), while adding left to right in f32 never leaves 1e8. */
static void test_f32_sum_many_small(void **state)
{
    (void)state;
    float v[105];
    v[0] = 1e8f;
    for (int i = 1; i < 105; i++) v[i] = 1.0f;
    plumb_ref_result r = reduce_f32("add", v, 105, "0.0");
    expect_f32(&r, 0, 0, 100000104.0f);
    plumb_ref_result_free(&r);
}

/* Catastrophic cancellation: 1e30 + 1 - 1e30 is exactly 1. */
static void test_f32_cancellation(void **state)
{
    (void)state;
    float v[3] = {1e30f, 1.0f, -1e30f};
    plumb_ref_result r = reduce_f32("add", v, 3, "0.0");
    expect_f32(&r, 0, 0, 1.0f);
    plumb_ref_result_free(&r);
}

/* One rounding: 1 + 2^-24 is a tie (to even: 1); with 2^-60 more it is above
 * the tie (1 + 2^-23). Rounding a partial sum first would give 1 for both. */
static void test_f32_single_rounding(void **state)
{
    (void)state;
    float a[2] = {1.0f, 0x1p-24f};
    plumb_ref_result r = reduce_f32("add", a, 2, "0.0");
    expect_f32(&r, 0, 0, 1.0f);
    plumb_ref_result_free(&r);
    float b[3] = {1.0f, 0x1p-24f, 0x1p-60f};
    r = reduce_f32("add", b, 3, "0.0");
    expect_f32(&r, 0, 0, 1.0f + 0x1p-23f);
    plumb_ref_result_free(&r);
}

/* f64 sums are exact before the one rounding: 1e300 + 1e-300 - 1e300 and a
 * partial sum (2^1024) that would overflow double. */
static void test_f64_exact(void **state)
{
    (void)state;
    double a[3] = {1e300, 1e-300, -1e300};
    plumb_ref_result r = reduce_f64("add", a, 3, "0.0");
    expect_f64(&r, 0, 0, 1e-300);
    plumb_ref_result_free(&r);
    double b[3] = {0x1p1023, 0x1p1023, -0x1p1023};
    r = reduce_f64("add", b, 3, "0.0");
    expect_f64(&r, 0, 0, 0x1p1023);
    plumb_ref_result_free(&r);
    /* a dyadic sum spanning 2^-1074 .. 2^0: 1 + 2^-1074 rounds to 1 */
    double c[2] = {1.0, 0x1p-1074};
    r = reduce_f64("add", c, 2, "0.0");
    expect_f64(&r, 0, 0, 1.0);
    plumb_ref_result_free(&r);
}

/* f16: 2048 + 1 + 1 = 2050 exactly; f16 additions in order would stay 2048
 * (2049 is a tie that rounds to even). The init value is part of the sum. */
static void test_f16_sum(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<f16> {\n"
        "  %x = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf16>\n"
        "  %c = stablehlo.constant dense<2048.0> : tensor<f16>\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2xf16>, tensor<f16>) -> tensor<f16>\n"
        "  return %r : tensor<f16>\n}\n");
    expect_bits(&r, 0, 0, 0x6801);   /* 2050 = 2^11 * (1 + 1/1024) */
    plumb_ref_result_free(&r);
}

/* Special values: NaN anywhere, +inf with -inf, infinities of one sign, and
 * the sign of zero sums (-0 only when every term is -0). */
static void test_special_values(void **state)
{
    (void)state;
    float a[2] = {INFINITY, -INFINITY};
    plumb_ref_result r = reduce_f32("add", a, 2, "0.0");
    expect_nan(&r, 0, 0);
    plumb_ref_result_free(&r);
    float b[3] = {1.0f, NAN, 2.0f};
    r = reduce_f32("add", b, 3, "0.0");
    expect_nan(&r, 0, 0);
    plumb_ref_result_free(&r);
    float c[3] = {INFINITY, -1e38f, INFINITY};
    r = reduce_f32("add", c, 3, "0.0");
    expect_f32(&r, 0, 0, INFINITY);
    plumb_ref_result_free(&r);
    float z[2] = {-0.0f, -0.0f};
    r = reduce_f32("add", z, 2, "-0.0");
    expect_bits(&r, 0, 0, 0x80000000u);
    plumb_ref_result_free(&r);
    r = reduce_f32("add", z, 2, "0.0");
    expect_bits(&r, 0, 0, 0);
    plumb_ref_result_free(&r);
    float d[2] = {1.5f, -1.5f};
    r = reduce_f32("add", d, 2, "-0.0");
    expect_bits(&r, 0, 0, 0);
    plumb_ref_result_free(&r);
}

/* Products: 2^100 * 2^100 * 2^-150 = 2^50 although the partial product
 * overflows f32; 0 * inf is NaN; the sign is the parity of negative factors. */
static void test_product(void **state)
{
    (void)state;
    float a[3] = {0x1p100f, 0x1p100f, 0.0f};
    a[2] = 0x1p-149f;   /* smallest subnormal; exact product 2^51 */
    plumb_ref_result r = reduce_f32("multiply", a, 3, "1.0");
    expect_f32(&r, 0, 0, 0x1p51f);
    plumb_ref_result_free(&r);
    float b[2] = {0.0f, INFINITY};
    r = reduce_f32("multiply", b, 2, "1.0");
    expect_nan(&r, 0, 0);
    plumb_ref_result_free(&r);
    float c[3] = {-2.0f, 3.0f, -0.5f};
    r = reduce_f32("multiply", c, 3, "-1.0");
    expect_f32(&r, 0, 0, -3.0f);
    plumb_ref_result_free(&r);
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds once: a tie between
     * 1 + 2^-11 and its successor would round to even */
    float e[2] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f};
    r = reduce_f32("multiply", e, 2, "1.0");
    expect_f32(&r, 0, 0, 1.0f + 0x1p-11f);
    plumb_ref_result_free(&r);
}

/* maximum/minimum are IEEE 754-2019: -0 < +0 and NaN propagates. */
static void test_max_min(void **state)
{
    (void)state;
    float a[2] = {-0.0f, 0.0f};
    plumb_ref_result r = reduce_f32("maximum", a, 2, "0xFF800000");
    expect_bits(&r, 0, 0, 0);
    plumb_ref_result_free(&r);
    r = reduce_f32("minimum", a, 2, "0x7F800000");
    expect_bits(&r, 0, 0, 0x80000000u);
    plumb_ref_result_free(&r);
    float b[3] = {1.0f, NAN, 2.0f};
    r = reduce_f32("maximum", b, 3, "0xFF800000");
    expect_nan(&r, 0, 0);
    plumb_ref_result_free(&r);
}

/* Integer sums wrap: 100 + 100 in i8 is -56; ui8 max is unsigned. */
static void test_integer_wrap(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<i8>, tensor<ui8>) {\n"
        "  %x = stablehlo.constant dense<[100, 100]> : tensor<2xi8>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i8>\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2xi8>, tensor<i8>) -> tensor<i8>\n"
        "  %y = stablehlo.constant dense<[200, 3]> : tensor<2xui8>\n"
        "  %d = stablehlo.constant dense<0> : tensor<ui8>\n"
        "  %s = stablehlo.reduce(%y init: %d) applies stablehlo.maximum across dimensions = [0] : (tensor<2xui8>, tensor<ui8>) -> tensor<ui8>\n"
        "  return %r, %s : tensor<i8>, tensor<ui8>\n}\n");
    expect_int(&r, 0, 0, -56);
    expect_int(&r, 1, 0, 200);
    plumb_ref_result_free(&r);
}

/* A zero-size reduced dimension gives the init value; reducing several
 * dimensions keeps the others in order. */
static void test_shapes(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xf32>, tensor<3xi32>) {\n"
        "  %x = stablehlo.constant dense<> : tensor<2x0xf32>\n"
        "  %c = stablehlo.constant dense<5.0> : tensor<f32>\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>\n"
        "  %y = stablehlo.constant dense<[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]> : tensor<2x2x3xi32>\n"
        "  %d = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %s = stablehlo.reduce(%y init: %d) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2x3xi32>, tensor<i32>) -> tensor<3xi32>\n"
        "  return %r, %s : tensor<2xf32>, tensor<3xi32>\n}\n");
    expect_f32(&r, 0, 0, 5.0f);
    expect_f32(&r, 0, 1, 5.0f);
    expect_int(&r, 1, 0, 22);
    expect_int(&r, 1, 1, 26);
    expect_int(&r, 1, 2, 30);
    plumb_ref_result_free(&r);
}

/* Generic body (argmax as written by the StableHLO testdata): the first NaN
 * wins, ties go to the lower index. Row 0: max 3 at indices 1 and 3 -> 1;
 * row 1: NaN at index 2 -> 2. */
static void test_argmax_generic(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2xi32> {\n"
        "  %x = stablehlo.constant dense<[[1.0, 3.0, 2.0, 3.0], [1.0, 5.0, 0x7FC00000, 0x7FC00000]]> : tensor<2x4xf32>\n"
        "  %i = stablehlo.iota dim = 1 : tensor<2x4xi32>\n"
        "  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %1:2 = stablehlo.reduce(%x init: %cst), (%i init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)\n"
        "   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {\n"
        "    %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %4 = stablehlo.or %2, %3 : tensor<i1>\n"
        "    %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %7 = stablehlo.and %5, %6 : tensor<i1>\n"
        "    %8 = stablehlo.or %4, %7 : tensor<i1>\n"
        "    %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>\n"
        "    %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>\n"
        "    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>\n"
        "  }\n"
        "  return %1#1 : tensor<2xi32>\n}\n");
    expect_int(&r, 0, 0, 1);
    expect_int(&r, 0, 1, 2);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_f32_sum_many_small),
        cmocka_unit_test(test_f32_cancellation),
        cmocka_unit_test(test_f32_single_rounding),
        cmocka_unit_test(test_f64_exact),
        cmocka_unit_test(test_f16_sum),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_product),
        cmocka_unit_test(test_max_min),
        cmocka_unit_test(test_integer_wrap),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_argmax_generic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
