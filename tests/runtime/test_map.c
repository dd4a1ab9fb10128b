/* stablehlo.map on the compiled runtime (runtime/k_map.c): results bitwise
 * equal to the reference's at every ISA level and thread count, for bodies
 * the tiled path takes (elementwise ops, constants) and bodies it leaves to
 * per-element evaluation (captured values, a nested if); values derived by
 * hand; the tiled path gives the bits of the runtime's own elementwise
 * kernels; one compile serves any data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"

/* Runs src on the runtime (portable ISA, one thread) and returns output 0. */
static plumb_tensor *rt_one(const char *src, plumb_tensor *const *in, uint32_t n)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *out[1] = {NULL};
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, n, out, 1);
    ir_module_free(m);
    return out[0];
}

/* StableHLO's interpreter example: map multiply over two 2x2 i64 inputs
 * [[0,1],[2,3]] and [[4,5],[6,7]] gives [[0,5],[12,21]] (products by hand),
 * on the runtime and the reference. */
static void test_map_multiply_values(void **state)
{
    (void)state;
    const char *src =
        "func.func @main() -> tensor<2x2xi64> {\n"
        "  %a = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>\n"
        "  %b = stablehlo.constant dense<[[4, 5], [6, 7]]> : tensor<2x2xi64>\n"
        "  %r = \"stablehlo.map\"(%a, %b) ({\n"
        "  ^bb0(%x: tensor<i64>, %y: tensor<i64>):\n"
        "    %m = stablehlo.multiply %x, %y : tensor<i64>\n"
        "    stablehlo.return %m : tensor<i64>\n"
        "  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>\n"
        "  return %r : tensor<2x2xi64>\n}\n";
    static const int64_t want[4] = {0, 5, 12, 21};
    plumb_tensor *r = rt_one(src, NULL, 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(plumb_load_i64(PLUMB_I64, r->data, (size_t)i), want[i]);
    plumb_tensor_free(r);
    rt_check_exact(src, NULL, 0);
}

/* A body with a constant and a change of element type: x * 3 + y in i32,
 * then compared with 10 (an i1 result): for x = [1, 2, 3, -4] and
 * y = [4, 3, 2, 30], x * 3 + y = [7, 9, 11, 18], > 10 gives [0, 0, 1, 1]. */
static void test_map_constant_and_compare_values(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi1> {\n"
        "  %r = \"stablehlo.map\"(%a, %b) ({\n"
        "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
        "    %three = stablehlo.constant dense<3> : tensor<i32>\n"
        "    %ten = stablehlo.constant dense<10> : tensor<i32>\n"
        "    %m = stablehlo.multiply %x, %three : tensor<i32>\n"
        "    %s = stablehlo.add %m, %y : tensor<i32>\n"
        "    %c = stablehlo.compare GT, %s, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  }) {dimensions = array<i64: 0>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>\n"
        "  return %r : tensor<4xi1>\n}\n";
    int64_t four = 4;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_I32, 1, &four, 0, &d), plumb_tensor_new(PLUMB_I32, 1, &four, 0, &d)};
    static const int32_t x[4] = {1, 2, 3, -4}, y[4] = {4, 3, 2, 30};
    memcpy(in[0]->data, x, sizeof x);
    memcpy(in[1]->data, y, sizeof y);
    plumb_tensor *r = rt_one(src, in, 2);
    static const uint8_t want[4] = {0, 0, 1, 1};
    assert_int_equal(r->dtype, PLUMB_I1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(((const uint8_t *)r->data)[i] & 1, want[i]);
    plumb_tensor_free(r);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Tiled bodies over several tiles and both thread counts equal the
 * reference bitwise: f32 and f16 with special values through add,
 * multiply and maximum, and an argument returned unchanged (select on the
 * sign of the product: NaN payloads pass through). */
static void test_map_tiled_matches_reference(void **state)
{
    (void)state;
    static const plumb_dtype ts[2] = {PLUMB_F32, PLUMB_F16};
    static const char *const tn[2] = {"f32", "f16"};
    for (int k = 0; k < 2; k++) {
        char src[2048];
        snprintf(src, sizeof src,
                 "func.func @main(%%a: tensor<3x2500x%s>, %%b: tensor<3x2500x%s>) -> tensor<3x2500x%s> {\n"
                 "  %%r = \"stablehlo.map\"(%%a, %%b) ({\n"
                 "  ^bb0(%%x: tensor<%s>, %%y: tensor<%s>):\n"
                 "    %%h = stablehlo.constant dense<0.5> : tensor<%s>\n"
                 "    %%m = stablehlo.multiply %%x, %%y : tensor<%s>\n"
                 "    %%s = stablehlo.add %%m, %%h : tensor<%s>\n"
                 "    %%z = stablehlo.maximum %%s, %%x : tensor<%s>\n"
                 "    %%p = stablehlo.compare GT, %%m, %%h : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                 "    %%o = stablehlo.select %%p, %%z, %%y : tensor<i1>, tensor<%s>\n"
                 "    stablehlo.return %%o : tensor<%s>\n"
                 "  }) {dimensions = array<i64: 0, 1>} : (tensor<3x2500x%s>, tensor<3x2500x%s>) -> tensor<3x2500x%s>\n"
                 "  return %%r : tensor<3x2500x%s>\n}\n",
                 tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k], tn[k],
                 tn[k], tn[k], tn[k], tn[k]);
        int64_t d[2] = {3, 2500};
        plumb_tensor *in[2] = {rt_rand_tensor(ts[k], 2, d, true), rt_rand_tensor(ts[k], 2, d, true)};
        rt_check_exact_nan(src, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* The tiled path runs the runtime's own elementwise kernels: map(exp) of x
 * on the runtime is bit for bit the runtime's stablehlo.exponential of x. */
static void test_map_uses_elementwise_kernels(void **state)
{
    (void)state;
    int64_t d[1] = {5000};
    plumb_tensor *in[1] = {rt_rand_tensor(PLUMB_F32, 1, d, true)};
    plumb_tensor *a = rt_one("func.func @main(%a: tensor<5000xf32>) -> tensor<5000xf32> {\n"
                             "  %r = \"stablehlo.map\"(%a) ({\n"
                             "  ^bb0(%x: tensor<f32>):\n"
                             "    %e = stablehlo.exponential %x : tensor<f32>\n"
                             "    stablehlo.return %e : tensor<f32>\n"
                             "  }) {dimensions = array<i64: 0>} : (tensor<5000xf32>) -> tensor<5000xf32>\n"
                             "  return %r : tensor<5000xf32>\n}\n",
                             in, 1);
    plumb_tensor *b = rt_one("func.func @main(%a: tensor<5000xf32>) -> tensor<5000xf32> {\n"
                             "  %e = stablehlo.exponential %a : tensor<5000xf32>\n"
                             "  return %e : tensor<5000xf32>\n}\n",
                             in, 1);
    assert_true(plumb_tensor_equal(a, b));
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(in[0]);
}

/* Bodies the tiled path leaves to per-element evaluation equal the
 * reference bitwise: one reads a scalar of the function (captured), one
 * runs an if per element. By hand for the first: x = [1, 2, 3], s = 10,
 * x + s = [11, 12, 13]. */
static void test_map_per_element_bodies(void **state)
{
    (void)state;
    const char *cap =
        "func.func @main(%a: tensor<3xi32>, %s: tensor<i32>) -> tensor<3xi32> {\n"
        "  %r = \"stablehlo.map\"(%a) ({\n"
        "  ^bb0(%x: tensor<i32>):\n"
        "    %t = stablehlo.add %x, %s : tensor<i32>\n"
        "    stablehlo.return %t : tensor<i32>\n"
        "  }) {dimensions = array<i64: 0>} : (tensor<3xi32>) -> tensor<3xi32>\n"
        "  return %r : tensor<3xi32>\n}\n";
    int64_t three = 3;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_I32, 1, &three, 0, &d), rt_scalar_bits(PLUMB_I32, 10)};
    static const int32_t x[3] = {1, 2, 3};
    memcpy(in[0]->data, x, sizeof x);
    plumb_tensor *r = rt_one(cap, in, 2);
    for (int i = 0; i < 3; i++)
        assert_int_equal((int32_t)plumb_load_i64(PLUMB_I32, r->data, (size_t)i), 11 + i);
    plumb_tensor_free(r);
    rt_check_exact(cap, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);

    const char *branchy =
        "func.func @main(%a: tensor<7x13xf32>) -> tensor<7x13xf32> {\n"
        "  %r = \"stablehlo.map\"(%a) ({\n"
        "  ^bb0(%x: tensor<f32>):\n"
        "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "    %p = stablehlo.compare LT, %x, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %v = \"stablehlo.if\"(%p) ({\n"
        "      %n = stablehlo.negate %x : tensor<f32>\n"
        "      stablehlo.return %n : tensor<f32>\n"
        "    }, {\n"
        "      %q = stablehlo.multiply %x, %x : tensor<f32>\n"
        "      stablehlo.return %q : tensor<f32>\n"
        "    }) : (tensor<i1>) -> tensor<f32>\n"
        "    stablehlo.return %v : tensor<f32>\n"
        "  }) {dimensions = array<i64: 0, 1>} : (tensor<7x13xf32>) -> tensor<7x13xf32>\n"
        "  return %r : tensor<7x13xf32>\n}\n";
    int64_t dd[2] = {7, 13};
    plumb_tensor *x2[1] = {rt_rand_tensor(PLUMB_F32, 2, dd, true)};
    rt_check_exact_nan(branchy, x2, 1);
    plumb_tensor_free(x2[0]);
}

/* Edge shapes: an empty input (the computation never runs) and a scalar
 * (it runs once: 2.5 * 2.5 = 6.25 exactly). */
static void test_map_empty_and_scalar(void **state)
{
    (void)state;
    const char *empty =
        "func.func @main(%a: tensor<0x3xf32>) -> tensor<0x3xf32> {\n"
        "  %r = \"stablehlo.map\"(%a) ({\n"
        "  ^bb0(%x: tensor<f32>):\n"
        "    %m = stablehlo.multiply %x, %x : tensor<f32>\n"
        "    stablehlo.return %m : tensor<f32>\n"
        "  }) {dimensions = array<i64: 0, 1>} : (tensor<0x3xf32>) -> tensor<0x3xf32>\n"
        "  return %r : tensor<0x3xf32>\n}\n";
    int64_t d[2] = {0, 3};
    plumb_tensor *in[1] = {rt_rand_tensor(PLUMB_F32, 2, d, false)};
    rt_check_exact(empty, in, 1);
    plumb_tensor_free(in[0]);
    const char *scalar =
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %r = \"stablehlo.map\"(%a) ({\n"
        "  ^bb0(%x: tensor<f32>):\n"
        "    %m = stablehlo.multiply %x, %x : tensor<f32>\n"
        "    stablehlo.return %m : tensor<f32>\n"
        "  }) {dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>\n"
        "  return %r : tensor<f32>\n}\n";
    plumb_tensor *s[1] = {rt_scalar_bits(PLUMB_F32, plumb_f32_bits(2.5f))};
    plumb_tensor *r = rt_one(scalar, s, 1);
    assert_true(plumb_load_bits(PLUMB_F32, r->data, 0) == plumb_f32_bits(6.25f));
    plumb_tensor_free(r);
    rt_check_exact(scalar, s, 1);
    plumb_tensor_free(s[0]);
}

/* The body is compiled with the program once: three runs with different
 * data build it once. */
static void test_map_compiles_once(void **state)
{
    (void)state;
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    ir_module *m = rt_parse("func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {\n"
                            "  %r = \"stablehlo.map\"(%a) ({\n"
                            "  ^bb0(%x: tensor<f32>):\n"
                            "    %m = stablehlo.multiply %x, %x : tensor<f32>\n"
                            "    stablehlo.return %m : tensor<f32>\n"
                            "  }) {dimensions = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>\n"
                            "  return %r : tensor<64xf32>\n}\n");
    int64_t n = 64;
    for (int k = 0; k < 3; k++) {
        plumb_tensor *in[1] = {rt_rand_tensor(PLUMB_F32, 1, &n, false)};
        plumb_tensor *out[1] = {NULL};
        bool ok = plumb_runtime_run(rt, m, NULL, in, 1, out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        plumb_tensor_free(out[0]);
        plumb_tensor_free(in[0]);
    }
    plumb_runtime_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    (void)rt_ty;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_multiply_values),
        cmocka_unit_test(test_map_constant_and_compare_values),
        cmocka_unit_test(test_map_tiled_matches_reference),
        cmocka_unit_test(test_map_uses_elementwise_kernels),
        cmocka_unit_test(test_map_per_element_bodies),
        cmocka_unit_test(test_map_empty_and_scalar),
        cmocka_unit_test(test_map_compiles_once),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
