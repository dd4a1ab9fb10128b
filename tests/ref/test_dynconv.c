/* Reference stablehlo.dynamic_conv: convolution with its padding read from
 * operand 2 when the op runs. Values derived by hand (1-D windows over
 * [1, 2, 3, 4, 5] with the kernel [1, 0, -1], whose window at padded
 * position p gives padded[p] - padded[p + 2]); positive, negative
 * (cropping) and unequal paddings, a constant padding checked by the
 * verifier, a `?` result sized by the padding, and the run-time errors
 * (a padding that contradicts the declared result, values that do not fit,
 * size arithmetic that overflows). */
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

/* @main(%x: 1x5x1 f32, %w: 3x1x1 f32, %p: 1x2 i64) -> one dynamic_conv of
 * stride `stride` whose result type is `res` */
static void src_1d(char *buf, size_t cap, const char *res, int stride)
{
    snprintf(buf, cap,
             "func.func @main(%%x: tensor<1x5x1xf32>, %%w: tensor<3x1x1xf32>, %%p: tensor<1x2xi64>) -> %s {\n"
             "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%w, %%p) <{batch_group_count = 1 : i64, "
             "dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, "
             "window_strides = array<i64: %d>}> : (tensor<1x5x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> %s\n"
             "  return %%r : %s\n}\n",
             res, stride, res, res);
}

static plumb_tensor *f32_vec3(const float *v, int64_t n, int64_t d1)
{
    int64_t dims[3] = {d1 == 1 ? 1 : n, d1 == 1 ? n : 1, 1};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 3, dims, 0, &d);
    assert_non_null(t);
    for (int64_t i = 0; i < n; i++) plumb_store_bits(PLUMB_F32, t->data, (uint64_t)i, plumb_f32_bits(v[i]));
    return t;
}

static plumb_tensor *pad_1x2(plumb_dtype t, int64_t lo, int64_t hi)
{
    int64_t dims[2] = {1, 2};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *p = plumb_tensor_new(t, 2, dims, 0, &d);
    assert_non_null(p);
    plumb_store_bits(t, p->data, 0, (uint64_t)lo);
    plumb_store_bits(t, p->data, 1, (uint64_t)hi);
    return p;
}

static const float X5[5] = {1, 2, 3, 4, 5}, W3[3] = {1, 0, -1};

/* Runs the 1-D program with padding (lo, hi); returns the reference's result. */
static plumb_ref_result run_1d(const char *res, int stride, int64_t lo, int64_t hi)
{
    char src[2048];
    src_1d(src, sizeof src, res, stride);
    plumb_tensor *in[3] = {f32_vec3(X5, 5, 1), f32_vec3(W3, 3, 0), pad_1x2(PLUMB_I64, lo, hi)};
    plumb_ref_result r = run_inputs(src, in, 3);
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
    return r;
}

/* Padding (1, 1), stride 2: padded [0, 1, 2, 3, 4, 5, 0], windows at 0, 2,
 * 4: 0 - 2, 2 - 4, 4 - 0. Padding (0, 2), same program: padded [1, 2, 3,
 * 4, 5, 0, 0]: 1 - 3, 3 - 5, 5 - 0. One program, two paddings, one shape. */
static void test_two_paddings_one_shape(void **state)
{
    (void)state;
    plumb_ref_result r = run_1d("tensor<1x3x1xf32>", 2, 1, 1);
    expect_f32(&r, 0, 0, -2.0f);
    expect_f32(&r, 0, 1, -2.0f);
    expect_f32(&r, 0, 2, 4.0f);
    plumb_ref_result_free(&r);
    r = run_1d("tensor<1x3x1xf32>", 2, 0, 2);
    expect_f32(&r, 0, 0, -2.0f);
    expect_f32(&r, 0, 1, -2.0f);
    expect_f32(&r, 0, 2, 5.0f);
    plumb_ref_result_free(&r);
}

/* Negative padding crops: (-1, 0) leaves [2, 3, 4, 5], windows 2 - 4 and
 * 3 - 5; (-2, 3) leaves [3, 4, 5, 0, 0, 0]: 3 - 5, 4 - 0, 5 - 0, 0 - 0.
 * The `?` result takes the size the padding gives (2, then 4). */
static void test_negative_padding_dynamic_result(void **state)
{
    (void)state;
    plumb_ref_result r = run_1d("tensor<1x?x1xf32>", 1, -1, 0);
    assert_int_equal(r.outputs[0]->dims[1], 2);
    expect_f32(&r, 0, 0, -2.0f);
    expect_f32(&r, 0, 1, -2.0f);
    plumb_ref_result_free(&r);
    r = run_1d("tensor<1x?x1xf32>", 1, -2, 3);
    assert_int_equal(r.outputs[0]->dims[1], 4);
    expect_f32(&r, 0, 0, -2.0f);
    expect_f32(&r, 0, 1, 4.0f);
    expect_f32(&r, 0, 2, 5.0f);
    expect_f32(&r, 0, 3, 0.0f);
    plumb_ref_result_free(&r);
    /* cropping everything: 5 - 6 = -1 < 0 padded elements, no window */
    r = run_1d("tensor<1x?x1xf32>", 1, -6, 0);
    assert_int_equal(r.outputs[0]->dims[1], 0);
    plumb_ref_result_free(&r);
}

/* A constant d_padding (i32, as JAX writes it) in convolution's pretty form:
 * 2-D, 2x2 image of ones, 3x3 kernel of ones, padding 1 on every side:
 * padded 4x4 with the ones in the middle, windows 2x2; every window holds
 * all four ones: 4. The verifier knows the shape here. */
static void test_constant_padding_pretty(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1x2x2x1xf32> {\n"
        "  %x = stablehlo.constant dense<1.0> : tensor<1x2x2x1xf32>\n"
        "  %w = stablehlo.constant dense<1.0> : tensor<3x3x1x1xf32>\n"
        "  %p = stablehlo.constant dense<1> : tensor<2x2xi32>\n"
        "  %r = stablehlo.dynamic_conv(%x, %w, %p) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi32>) -> tensor<1x2x2x1xf32>\n"
        "  return %r : tensor<1x2x2x1xf32>\n}\n");
    for (size_t i = 0; i < 4; i++) expect_f32(&r, 0, i, 4.0f);
    plumb_ref_result_free(&r);
}

/* The verifier checks a constant padding against the declared result:
 * padding 2 on every side gives 6x6 - 3 + 1 = 4x4, not 2x2. */
static void test_constant_padding_checked(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<1x2x2x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {\n"
        "  %p = stablehlo.constant dense<2> : tensor<2x2xi64>\n"
        "  %r = \"stablehlo.dynamic_conv\"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<1x2x2x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>\n"
        "  return %r : tensor<1x2x2x1xf32>\n}\n";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    assert_non_null(m);
    assert_false(ir_verify(m, NULL, &d));
    assert_non_null(strstr(d.msg, "stablehlo.dynamic_conv"));
    assert_non_null(strstr(d.msg, "C25"));
    ir_module_free(m);
}

/* Runs the 1-D program expecting an error whose message holds want. */
static void run_1d_fails(const char *res, plumb_dtype pt, int64_t lo, int64_t hi, const char *want)
{
    char src[2048];
    src_1d(src, sizeof src, res, 1);
    if (pt != PLUMB_I64) {
        /* the same program with d_padding of element type pt */
        char from[32], to[32];
        snprintf(to, sizeof to, "tensor<1x2x%s>", plumb_dtype_name(pt));
        snprintf(from, sizeof from, "tensor<1x2xi64>");
        for (char *s; (s = strstr(src, from));) {
            char rest[2048];
            snprintf(rest, sizeof rest, "%s%s", to, s + strlen(from));
            snprintf(s, sizeof src - (size_t)(s - src), "%s", rest);
        }
    }
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    assert_non_null(m);
    assert_true(ir_verify(m, NULL, &d));
    plumb_tensor *in[3] = {f32_vec3(X5, 5, 1), f32_vec3(W3, 3, 0), pad_1x2(pt, lo, hi)};
    plumb_ref_result r;
    memset(&r, 0, sizeof r);
    bool ok = plumb_ref_run(m, NULL, in, 3, NULL, &r, &d);
    if (ok || !strstr(d.msg, want))
        fprintf(stderr, "expected an error containing '%s', got: %s\n", want, ok ? "(success)" : d.msg);
    assert_false(ok);
    assert_non_null(strstr(d.msg, want));
    assert_non_null(strstr(d.msg, "stablehlo.dynamic_conv"));
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
    ir_module_free(m);
}

/* A padding whose result shape is not the declared static one: (2, 2)
 * gives 5 + 4 - 3 + 1 = 7 windows where 3 are declared. */
static void test_padding_contradicts_result(void **state)
{
    (void)state;
    run_1d_fails("tensor<1x3x1xf32>", PLUMB_I64, 2, 2, "contradicts the declared size 3");
}

/* A ui64 padding above 2^63 - 1 does not fit a signed padding. */
static void test_padding_does_not_fit(void **state)
{
    (void)state;
    run_1d_fails("tensor<1x?x1xf32>", PLUMB_UI64, (int64_t)0x8000000000000000ull, 0, "does not fit");
}

/* Paddings whose sum overflows 64 bits are refused, never wrapped. */
static void test_padding_overflow(void **state)
{
    (void)state;
    run_1d_fails("tensor<1x?x1xf32>", PLUMB_I64, INT64_MAX, INT64_MAX, "overflows");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_paddings_one_shape),
        cmocka_unit_test(test_negative_padding_dynamic_result),
        cmocka_unit_test(test_constant_padding_pretty),
        cmocka_unit_test(test_constant_padding_checked),
        cmocka_unit_test(test_padding_contradicts_result),
        cmocka_unit_test(test_padding_does_not_fit),
        cmocka_unit_test(test_padding_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
