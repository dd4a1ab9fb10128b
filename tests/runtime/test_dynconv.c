/* Runtime stablehlo.dynamic_conv against the reference: at every ISA level
 * the CPU has and on 1 and 2 threads (rt_test.h), floats within the dot
 * bound of K = input features x window elements terms, integers bit for
 * bit; the padding a parameter read when the program runs (positive,
 * negative, unequal, with strides and dilations). The padding is a value,
 * never part of the cache key: one compile serves every padding, with a
 * static result, with a `?` result whose size the padding sets, and with a
 * polymorphic lhs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

static plumb_tensor *pad_tensor(uint32_t S, const int64_t *v)
{
    int64_t dims[2] = {S, 2};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *p = plumb_tensor_new(PLUMB_I64, 2, dims, 0, &d);
    assert_non_null(p);
    for (uint32_t i = 0; i < 2 * S; i++) plumb_store_bits(PLUMB_I64, p->data, i, (uint64_t)v[i]);
    return p;
}

/* One dynamic_conv of random operands with padding pad ([S, 2]); shapes
 * and the result's shape worked out by hand from convolution's shape rule. */
static void dynconv_case(plumb_dtype t, uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od,
                         const char *dn, const char *attrs, const int64_t *pad, uint64_t nterms)
{
    char lt[128], rt[128], ot[128], src[2048];
    uint32_t S = rank - 2;
    rt_ty(lt, sizeof lt, t, rank, ld);
    rt_ty(rt, sizeof rt, t, rank, rd);
    rt_ty(ot, sizeof ot, t, rank, od);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s, %%p: tensor<%ux2xi64>) -> %s {\n"
             "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%w, %%p) <{batch_group_count = 1 : i64, "
             "dimension_numbers = #stablehlo.conv<%s>, feature_group_count = 1 : i64%s}> : (%s, %s, tensor<%ux2xi64>) -> %s\n"
             "  return %%r : %s\n}\n",
             lt, rt, S, ot, dn, attrs, lt, rt, S, ot, ot);
    plumb_tensor *in[3] = {rt_rand_tensor(t, rank, ld, false), rt_rand_tensor(t, rank, rd, false), pad_tensor(S, pad)};
    if (plumb_dtype_is_float(t))
        rt_check_bound(src, in, 3, nterms, false);
    else
        rt_check_exact(src, in, 3);
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
}

static const plumb_dtype TYPES[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I32, PLUMB_I8};
#define NHWC "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
#define NWC "[b, 0, f]x[0, i, o]->[b, 0, f]"

/* NHWC 3x3 padded 1 on every side keeps 7x5; K = 3 * 9. */
static void test_same_padding(void **state)
{
    (void)state;
    int64_t l[] = {2, 7, 5, 3}, r[] = {3, 3, 3, 4}, o[] = {2, 7, 5, 4}, p[] = {1, 1, 1, 1};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) dynconv_case(TYPES[i], 4, l, r, o, NHWC, "", p, 27);
}

/* Unequal padding with stride 2: (2 + 6 + 0 - 2) / 2 + 1 = 4,
 * (0 + 5 + 3 - 3) / 2 + 1 = 3; K = 2 * 6. */
static void test_asymmetric_stride(void **state)
{
    (void)state;
    int64_t l[] = {1, 6, 5, 2}, r[] = {2, 3, 2, 3}, o[] = {1, 4, 3, 3}, p[] = {2, 0, 0, 3};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        dynconv_case(TYPES[i], 4, l, r, o, NHWC, ", window_strides = array<i64: 2, 2>", p, 12);
}

/* Negative padding crops: 8 - 1 + 2 = 9 under a 3-wide window: 7; K = 3 * 3. */
static void test_negative_padding(void **state)
{
    (void)state;
    int64_t l[] = {1, 8, 3}, r[] = {3, 3, 5}, o[] = {1, 7, 5}, p[] = {-1, 2};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) dynconv_case(TYPES[i], 3, l, r, o, NWC, "", p, 9);
}

/* lhs dilation 2 (7 -> 13), padding (2, 1): 16; rhs dilation 2 (3 -> 5),
 * reversed: 16 - 5 + 1 = 12; K = 3 * 3. */
static void test_dilated_reversed(void **state)
{
    (void)state;
    int64_t l[] = {2, 7, 3}, r[] = {3, 3, 5}, o[] = {2, 12, 5}, p[] = {2, 1};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        dynconv_case(TYPES[i], 3, l, r, o, NWC,
                     ", lhs_dilation = array<i64: 2>, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>", p, 9);
}

static uint64_t compiles(const plumb_runtime *rt)
{
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st.compiles;
}

/* x = [1, 2, 3, 4, 5] and w = [1, 0, -1] (window at padded position q:
 * padded[q] - padded[q + 2]) with each padding in turn on one runtime:
 * the values derived by hand, and one compile for all of them. */
static void run_paddings(const char *res, const int64_t (*pads)[2], const int64_t *sizes,
                         const float (*want)[4], size_t n)
{
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<1x5x1xf32>, %%w: tensor<3x1x1xf32>, %%p: tensor<1x2xi64>) -> %s {\n"
             "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%w, %%p) <{batch_group_count = 1 : i64, "
             "dimension_numbers = #stablehlo.conv<" NWC ">, feature_group_count = 1 : i64, "
             "window_strides = array<i64: 2>}> : (tensor<1x5x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> %s\n"
             "  return %%r : %s\n}\n",
             res, res, res);
    ir_module *m = rt_parse(src);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    int64_t xd[3] = {1, 5, 1}, wd[3] = {3, 1, 1};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 3, xd, 0, &d), *w = plumb_tensor_new(PLUMB_F32, 3, wd, 0, &d);
    assert_non_null(x);
    assert_non_null(w);
    for (int i = 0; i < 5; i++) plumb_store_bits(PLUMB_F32, x->data, (uint64_t)i, plumb_f32_bits((float)(i + 1)));
    static const float wv[3] = {1, 0, -1};
    for (int i = 0; i < 3; i++) plumb_store_bits(PLUMB_F32, w->data, (uint64_t)i, plumb_f32_bits(wv[i]));
    for (size_t k = 0; k < n; k++) {
        plumb_tensor *in[3] = {x, w, pad_tensor(1, pads[k])}, *out[1] = {NULL};
        bool ok = plumb_runtime_run(rt, m, NULL, in, 3, out, 1, NULL, &d);
        if (!ok) plumb_diag_print(&d, stderr);
        assert_true(ok);
        assert_int_equal(out[0]->dims[1], sizes[k]);
        for (int64_t i = 0; i < sizes[k]; i++)
            assert_true(plumb_load_bits(PLUMB_F32, out[0]->data, (uint64_t)i) == plumb_f32_bits(want[k][i]));
        plumb_tensor_free(out[0]);
        plumb_tensor_free(in[2]);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Static result 1x3x1, stride 2: padding (1, 1) gives [0 1 2 3 4 5 0] ->
 * -2, -2, 4; (0, 2) gives [1 2 3 4 5 0 0] -> -2, -2, 5; (2, 0) gives
 * [0 0 1 2 3 4 5] -> -1, -2, -2. Three paddings, one compile. */
static void test_static_result_one_compile(void **state)
{
    (void)state;
    static const int64_t pads[3][2] = {{1, 1}, {0, 2}, {2, 0}}, sizes[3] = {3, 3, 3};
    static const float want[3][4] = {{-2, -2, 4}, {-2, -2, 5}, {-1, -2, -2}};
    run_paddings("tensor<1x3x1xf32>", pads, sizes, want, 3);
}

/* A `?` result, stride 2: padding (0, 0) -> [1 2 3 4 5], windows at 0, 2:
 * -2, -2; (-1, 4) -> [2 3 4 5 0 0 0 0], windows at 0, 2, 4: -2, 4, 0;
 * (3, 1) -> [0 0 0 1 2 3 4 5 0], windows at 0, 2, 4, 6: 0, -2, -2, 4.
 * Three result sizes, one compile. */
static void test_dynamic_result_one_compile(void **state)
{
    (void)state;
    static const int64_t pads[3][2] = {{0, 0}, {-1, 4}, {3, 1}}, sizes[3] = {2, 3, 4};
    static const float want[3][4] = {{-2, -2}, {-2, 4, 0}, {0, -2, -2, 4}};
    run_paddings("tensor<1x?x1xf32>", pads, sizes, want, 3);
}

/* lhs with a `?` batch and the result `?` in batch and width: batch sizes
 * 2, 3 and 0 with three paddings on one runtime give the reference's bits
 * (integer-valued f32 data: every order of the sums is exact), and one
 * compile serves them all. */
static void test_polymorphic_lhs_one_compile(void **state)
{
    (void)state;
    ir_module *m = rt_parse(
        "func.func @main(%x: tensor<?x5x2xf32>, %w: tensor<3x2x3xf32>, %p: tensor<1x2xi32>) -> tensor<?x?x3xf32> {\n"
        "  %r = \"stablehlo.dynamic_conv\"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<" NWC ">, feature_group_count = 1 : i64}> : (tensor<?x5x2xf32>, tensor<3x2x3xf32>, tensor<1x2xi32>) -> tensor<?x?x3xf32>\n"
        "  return %r : tensor<?x?x3xf32>\n}\n");
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    static const int64_t batch[3] = {2, 3, 0}, pads[3][2] = {{1, 1}, {-1, 3}, {0, 0}};
    for (int k = 0; k < 3; k++) {
        int64_t xd[3] = {batch[k], 5, 2}, wd[3] = {3, 2, 3}, pd[2] = {1, 2};
        plumb_tensor *in[3] = {plumb_tensor_new(PLUMB_F32, 3, xd, 0, &d), plumb_tensor_new(PLUMB_F32, 3, wd, 0, &d),
                               plumb_tensor_new(PLUMB_I32, 2, pd, 0, &d)};
        for (int i = 0; i < 2; i++) {
            assert_non_null(in[i]);
            for (uint64_t e = 0, n = plumb_tensor_numel(in[i]); e < n; e++)
                plumb_store_bits(PLUMB_F32, in[i]->data, e, plumb_f32_bits((float)((int64_t)(rt_rand() % 17) - 8)));
        }
        assert_non_null(in[2]);
        plumb_store_bits(PLUMB_I32, in[2]->data, 0, (uint64_t)(uint32_t)(int32_t)pads[k][0]);
        plumb_store_bits(PLUMB_I32, in[2]->data, 1, (uint64_t)(uint32_t)(int32_t)pads[k][1]);
        plumb_tensor *want[RT_MAX_OUT], *got[1] = {NULL};
        assert_int_equal(rt_ref(m, in, 3, want), 1);
        bool ok = plumb_runtime_run(rt, m, NULL, in, 3, got, 1, NULL, &d);
        if (!ok) plumb_diag_print(&d, stderr);
        assert_true(ok);
        assert_int_equal(got[0]->dims[0], batch[k]);
        assert_int_equal(got[0]->dims[1], 5 + pads[k][0] + pads[k][1] - 3 + 1);
        assert_true(plumb_tensor_equal(want[0], got[0]));
        plumb_tensor_free(want[0]);
        plumb_tensor_free(got[0]);
        for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* A padding that contradicts the static result fails the run with the
 * op, the dimension and both sizes; nothing is read out of bounds. */
static void test_contradicting_padding_fails(void **state)
{
    (void)state;
    ir_module *m = rt_parse(
        "func.func @main(%x: tensor<1x5x1xf32>, %w: tensor<3x1x1xf32>, %p: tensor<1x2xi64>) -> tensor<1x3x1xf32> {\n"
        "  %r = \"stablehlo.dynamic_conv\"(%x, %w, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<" NWC ">, feature_group_count = 1 : i64}> : (tensor<1x5x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> tensor<1x3x1xf32>\n"
        "  return %r : tensor<1x3x1xf32>\n}\n");
    int64_t xd[3] = {1, 5, 1}, wd[3] = {3, 1, 1}, p[2] = {4, 4};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[3] = {plumb_tensor_new(PLUMB_F32, 3, xd, 0, &d), plumb_tensor_new(PLUMB_F32, 3, wd, 0, &d),
                           pad_tensor(1, p)};
    plumb_tensor *out[1] = {NULL};
    assert_false(plumb_runtime_run(rt_get(PLUMB_ISA_PORTABLE, 1), m, NULL, in, 3, out, 1, NULL, &d));
    assert_null(out[0]);
    fprintf(stderr, "%s\n", d.msg);
    assert_non_null(strstr(d.msg, "stablehlo.dynamic_conv"));
    assert_non_null(strstr(d.msg, "size 11 at run time contradicts the declared size 3"));
    for (int i = 0; i < 3; i++) plumb_tensor_free(in[i]);
    ir_module_free(m);
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_padding),
        cmocka_unit_test(test_asymmetric_stride),
        cmocka_unit_test(test_negative_padding),
        cmocka_unit_test(test_dilated_reversed),
        cmocka_unit_test(test_static_result_one_compile),
        cmocka_unit_test(test_dynamic_result_one_compile),
        cmocka_unit_test(test_polymorphic_lhs_one_compile),
        cmocka_unit_test(test_contradicting_padding_fails),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
