/* stablehlo.composite on the compiled runtime: the decomposition inlined
 * where the composite stands gives the reference's bits; values derived by
 * hand; the cache key holds the decomposition (two programs that differ
 * only in it are two compiles) but not the name, attributes or version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"

/* Two results through a decomposition taking two operands, generic form:
 * x + y and x * y; x = [1, 2, 3], y = [4, 5, 6] give [5, 7, 9] and
 * [4, 10, 18] (by hand); random f32 inputs match the reference bitwise. */
static const char *const addmul =
    "func.func private @my.impl(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {\n"
    "  %s = stablehlo.add %a, %b : tensor<3xf32>\n"
    "  %m = stablehlo.multiply %a, %b : tensor<3xf32>\n"
    "  return %s, %m : tensor<3xf32>, tensor<3xf32>\n}\n"
    "func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {\n"
    "  %r:2 = \"stablehlo.composite\"(%x, %y) <{composite_attributes = {k = 1 : i64}, decomposition = @my.impl, "
    "name = \"my.addmul\", version = 3 : i32}> : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)\n"
    "  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>\n}\n";

static void test_composite_values_and_reference(void **state)
{
    (void)state;
    int64_t three = 3;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F32, 1, &three, 0, &d), plumb_tensor_new(PLUMB_F32, 1, &three, 0, &d)};
    static const float x[3] = {1, 2, 3}, y[3] = {4, 5, 6}, sum[3] = {5, 7, 9}, prod[3] = {4, 10, 18};
    memcpy(in[0]->data, x, sizeof x);
    memcpy(in[1]->data, y, sizeof y);
    ir_module *m = rt_parse(addmul);
    plumb_tensor *out[2] = {NULL, NULL};
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, 2, out, 2);
    assert_memory_equal(out[0]->data, sum, sizeof sum);
    assert_memory_equal(out[1]->data, prod, sizeof prod);
    rt_outs_free(out, 2);
    ir_module_free(m);
    rt_check_exact(addmul, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_tensor *r[2] = {rt_rand_tensor(PLUMB_F32, 1, &three, true), rt_rand_tensor(PLUMB_F32, 1, &three, true)};
    rt_check_exact_nan(addmul, r, 2);
    plumb_tensor_free(r[0]);
    plumb_tensor_free(r[1]);
}

/* A composite inside a while body and a composite whose decomposition
 * holds another composite run as on the reference. */
static void test_composite_nested(void **state)
{
    (void)state;
    const char *src =
        "func.func private @inner(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
        "  %t = stablehlo.add %a, %a : tensor<4xi32>\n"
        "  return %t : tensor<4xi32>\n}\n"
        "func.func private @outer(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
        "  %c = stablehlo.composite \"my.double\" %a {decomposition = @inner} : (tensor<4xi32>) -> tensor<4xi32>\n"
        "  %one = stablehlo.constant dense<1> : tensor<4xi32>\n"
        "  %s = stablehlo.add %c, %one : tensor<4xi32>\n"
        "  return %s : tensor<4xi32>\n}\n"
        "func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {\n"
        "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
        "  %three = stablehlo.constant dense<3> : tensor<i32>\n"
        "  %r:2 = stablehlo.while(%i = %z, %v = %x) : tensor<i32>, tensor<4xi32>\n"
        "  cond {\n"
        "    %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n"
        "    %i1 = stablehlo.add %i, %one : tensor<i32>\n"
        "    %w = stablehlo.composite \"my.double_plus_one\" %v {decomposition = @outer, version = 1 : i32} : (tensor<4xi32>) -> tensor<4xi32>\n"
        "    stablehlo.return %i1, %w : tensor<i32>, tensor<4xi32>\n"
        "  }\n"
        "  return %r#1 : tensor<4xi32>\n}\n";
    int64_t four = 4;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in[1] = {plumb_tensor_new(PLUMB_I32, 1, &four, 0, &d)};
    static const int32_t x[4] = {0, 1, -2, 5};
    memcpy(in[0]->data, x, sizeof x);
    ir_module *m = rt_parse(src);
    plumb_tensor *out[1] = {NULL};
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 2, in, 1, out, 1);
    /* v -> 2v + 1 three times: 8v + 7 */
    for (int i = 0; i < 4; i++)
        assert_int_equal(((const int32_t *)out[0]->data)[i], 8 * x[i] + 7);
    rt_outs_free(out, 1);
    ir_module_free(m);
    rt_check_exact(src, in, 1);
    plumb_tensor_free(in[0]);
}

static uint64_t compiles(plumb_runtime *rt)
{
    plumb_runtime_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st.compiles;
}

static void run_src(plumb_runtime *rt, const char *src, plumb_tensor *const *in)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *out[2] = {NULL, NULL};
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = plumb_runtime_run(rt, m, NULL, in, 2, out, 2, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    rt_outs_free(out, 2);
    ir_module_free(m);
}

/* The cache key: a program whose decomposition subtracts instead of adding
 * is a second compile; one that differs only in the composite's name,
 * attributes and version is served by the first. */
static void test_composite_cache_key(void **state)
{
    (void)state;
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    int64_t three = 3;
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 1, &three, false), rt_rand_tensor(PLUMB_F32, 1, &three, false)};
    run_src(rt, addmul, in);
    assert_int_equal(compiles(rt), 1);
    char other[2048];
    snprintf(other, sizeof other, "%s", addmul);
    char *at = strstr(other, "\"my.addmul\", version = 3");
    assert_non_null(at);
    memcpy(at, "\"my.addmux\", version = 4", 24);
    char *k = strstr(other, "k = 1");
    assert_non_null(k);
    k[4] = '2';
    run_src(rt, other, in);
    assert_int_equal(compiles(rt), 1);
    snprintf(other, sizeof other, "%s", addmul);
    char *add = strstr(other, "stablehlo.add %a");
    assert_non_null(add);
    char sub[2100];
    snprintf(sub, sizeof sub, "%.*sstablehlo.subtract %%a%s", (int)(add - other), other, add + strlen("stablehlo.add %a"));
    run_src(rt, sub, in);
    assert_int_equal(compiles(rt), 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
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
        cmocka_unit_test(test_composite_values_and_reference),
        cmocka_unit_test(test_composite_nested),
        cmocka_unit_test(test_composite_cache_key),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
