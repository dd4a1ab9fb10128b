/* Reference control-flow kernels (ref/control.c): optimization_barrier,
 * while, if and case, with values derived by hand. */
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

/* optimization_barrier returns each operand as its result, bit for bit:
 * a NaN payload, -0.0 and a subnormal in f32, and an i64 of another shape
 * beside it (result 1 comes from operand 1, not operand 0). */
static void test_barrier_identity_bits(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3xf32>, tensor<2x2xi64>) {\n"
        "  %x = stablehlo.constant dense<[0x7FC12345, -0.0, 0x00000001]> : tensor<3xf32>\n"
        "  %y = stablehlo.constant dense<[[1, -2], [9223372036854775807, -9223372036854775808]]> : tensor<2x2xi64>\n"
        "  %r:2 = stablehlo.optimization_barrier %x, %y : tensor<3xf32>, tensor<2x2xi64>\n"
        "  return %r#0, %r#1 : tensor<3xf32>, tensor<2x2xi64>\n}\n");
    assert_int_equal(r.n_outputs, 2);
    expect_bits(&r, 0, 0, 0x7FC12345u);
    expect_bits(&r, 0, 1, 0x80000000u);
    expect_bits(&r, 0, 2, 0x00000001u);
    expect_int(&r, 1, 0, 1);
    expect_int(&r, 1, 1, -2);
    expect_int(&r, 1, 2, INT64_MAX);
    expect_int(&r, 1, 3, INT64_MIN);
    plumb_ref_result_free(&r);
}

/* Values computed through a barrier: (2 + 3) behind the barrier, then
 * multiplied by itself, is 25; an empty tensor passes through. */
static void test_barrier_between_ops(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<f32>, tensor<0x3xi32>) {\n"
        "  %a = stablehlo.constant dense<2.0> : tensor<f32>\n"
        "  %b = stablehlo.constant dense<3.0> : tensor<f32>\n"
        "  %e = stablehlo.constant dense<> : tensor<0x3xi32>\n"
        "  %s = stablehlo.add %a, %b : tensor<f32>\n"
        "  %r:2 = \"stablehlo.optimization_barrier\"(%s, %e) : (tensor<f32>, tensor<0x3xi32>) -> (tensor<f32>, tensor<0x3xi32>)\n"
        "  %m = stablehlo.multiply %r#0, %r#0 : tensor<f32>\n"
        "  return %m, %r#1 : tensor<f32>, tensor<0x3xi32>\n}\n");
    expect_f32(&r, 0, 0, 25.0f);
    assert_int_equal(plumb_tensor_numel(r.outputs[1]), 0);
    plumb_ref_result_free(&r);
}

/* A while summing 1..10 (i from 1 while i <= 10, sum += i): 55, with i
 * ending at 11; the bound and the step are captured from the function. */
static void test_while_sum_1_to_10(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<i64>, tensor<i64>) {\n"
        "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
        "  %ten = stablehlo.constant dense<10> : tensor<i64>\n"
        "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %i, %s = stablehlo.while(%a = %one, %b = %zero) : tensor<i64>, tensor<i64>\n"
        "  cond {\n"
        "    %c = stablehlo.compare LE, %a, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n"
        "    %s1 = stablehlo.add %b, %a : tensor<i64>\n"
        "    %a1 = stablehlo.add %a, %one : tensor<i64>\n"
        "    stablehlo.return %a1, %s1 : tensor<i64>, tensor<i64>\n"
        "  }\n"
        "  return %i, %s : tensor<i64>, tensor<i64>\n}\n");
    expect_int(&r, 0, 0, 11);
    expect_int(&r, 1, 0, 55);
    plumb_ref_result_free(&r);
}

/* Factorial in the generic form: 10! = 3628800 (n counts down from 10,
 * p multiplies by n while n > 0). */
static void test_while_factorial_generic(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<i64> {\n"
        "  %n0 = stablehlo.constant dense<10> : tensor<i64>\n"
        "  %p0 = stablehlo.constant dense<1> : tensor<i64>\n"
        "  %r:2 = \"stablehlo.while\"(%n0, %p0) ({\n"
        "  ^bb0(%n: tensor<i64>, %p: tensor<i64>):\n"
        "    %z = stablehlo.constant dense<0> : tensor<i64>\n"
        "    %c = stablehlo.compare GT, %n, %z : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  }, {\n"
        "  ^bb0(%n: tensor<i64>, %p: tensor<i64>):\n"
        "    %one = stablehlo.constant dense<1> : tensor<i64>\n"
        "    %p1 = stablehlo.multiply %p, %n : tensor<i64>\n"
        "    %n1 = stablehlo.subtract %n, %one : tensor<i64>\n"
        "    stablehlo.return %n1, %p1 : tensor<i64>, tensor<i64>\n"
        "  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)\n"
        "  return %r#1 : tensor<i64>\n}\n");
    expect_int(&r, 0, 0, 3628800);
    plumb_ref_result_free(&r);
}

/* A condition false at the start runs the body never: the results are the
 * operands, a NaN payload and -0.0 included. */
static void test_while_zero_iterations(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %x = stablehlo.constant dense<[0x7FC00123, -0.0]> : tensor<2xf32>\n"
        "  %r = stablehlo.while(%a = %x) : tensor<2xf32>\n"
        "  cond {\n"
        "    %f = stablehlo.constant dense<false> : tensor<i1>\n"
        "    stablehlo.return %f : tensor<i1>\n"
        "  } do {\n"
        "    %d = stablehlo.add %a, %a : tensor<2xf32>\n"
        "    stablehlo.return %d : tensor<2xf32>\n"
        "  }\n"
        "  return %r : tensor<2xf32>\n}\n");
    expect_bits(&r, 0, 0, 0x7FC00123u);
    expect_bits(&r, 0, 1, 0x80000000u);
    plumb_ref_result_free(&r);
}

/* Nested loops: for i in 0..3, an inner loop counts i times, so the count
 * is 0 + 1 + 2 + 3 = 6 and the outer loop ends with i = 4. */
static void test_while_nested(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<i32>, tensor<i32>) {\n"
        "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
        "  %four = stablehlo.constant dense<4> : tensor<i32>\n"
        "  %i, %n = stablehlo.while(%a = %z, %c = %z) : tensor<i32>, tensor<i32>\n"
        "  cond {\n"
        "    %lt = stablehlo.compare LT, %a, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %lt : tensor<i1>\n"
        "  } do {\n"
        "    %j, %c2 = stablehlo.while(%b = %z, %d = %c) : tensor<i32>, tensor<i32>\n"
        "    cond {\n"
        "      %lt2 = stablehlo.compare LT, %b, %a : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "      stablehlo.return %lt2 : tensor<i1>\n"
        "    } do {\n"
        "      %b1 = stablehlo.add %b, %one : tensor<i32>\n"
        "      %d1 = stablehlo.add %d, %one : tensor<i32>\n"
        "      stablehlo.return %b1, %d1 : tensor<i32>, tensor<i32>\n"
        "    }\n"
        "    %a1 = stablehlo.add %a, %one : tensor<i32>\n"
        "    stablehlo.return %a1, %c2 : tensor<i32>, tensor<i32>\n"
        "  }\n"
        "  return %i, %n : tensor<i32>, tensor<i32>\n}\n");
    expect_int(&r, 0, 0, 4);
    expect_int(&r, 1, 0, 6);
    plumb_ref_result_free(&r);
}

/* A loop whose condition never turns false stops at the timeout with an
 * error naming the while's line and the iteration. */
static void test_while_timeout(void **state)
{
    (void)state;
    const char *src =
        "func.func @main() -> tensor<i64> {\n"
        "  %z = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
        "  %r = stablehlo.while(%i = %z) : tensor<i64>\n"
        "  cond {\n"
        "    %t = stablehlo.constant dense<true> : tensor<i1>\n"
        "    stablehlo.return %t : tensor<i1>\n"
        "  } do {\n"
        "    %i1 = stablehlo.add %i, %one : tensor<i64>\n"
        "    stablehlo.return %i1 : tensor<i64>\n"
        "  }\n"
        "  return %r : tensor<i64>\n}\n";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "test", NULL, &d);
    assert_non_null(m);
    assert_true(ir_verify(m, NULL, &d));
    plumb_ref_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.timeout_s = 0.2;
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    assert_false(plumb_ref_run(m, NULL, NULL, 0, &o, &res, &d));
    assert_int_equal(d.code, PLUMB_ERR_RUNTIME);
    assert_non_null(strstr(d.msg, "timeout"));
    assert_non_null(strstr(d.msg, "of the stablehlo.while at line 4"));
    assert_non_null(strstr(d.msg, "iteration "));
    ir_module_free(m);
}

/* The if/case program of these tests: r = if p then a else a + b, with
 * a = [1, -0], b = [2, 3]; c = case k of 10, 11, 12. */
static const char *const branch_src =
    "func.func @main(%p: tensor<i1>, %k: tensor<i32>) -> (tensor<2xf32>, tensor<i64>) {\n"
    "  %a = stablehlo.constant dense<[1.0, -0.0]> : tensor<2xf32>\n"
    "  %b = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>\n"
    "  %r = \"stablehlo.if\"(%p) ({\n"
    "    stablehlo.return %a : tensor<2xf32>\n"
    "  }, {\n"
    "    %s = stablehlo.add %a, %b : tensor<2xf32>\n"
    "    stablehlo.return %s : tensor<2xf32>\n"
    "  }) : (tensor<i1>) -> tensor<2xf32>\n"
    "  %c = \"stablehlo.case\"(%k) ({\n"
    "    %x = stablehlo.constant dense<10> : tensor<i64>\n"
    "    stablehlo.return %x : tensor<i64>\n"
    "  }, {\n"
    "    %y = stablehlo.constant dense<11> : tensor<i64>\n"
    "    stablehlo.return %y : tensor<i64>\n"
    "  }, {\n"
    "    %z = stablehlo.constant dense<12> : tensor<i64>\n"
    "    stablehlo.return %z : tensor<i64>\n"
    "  }) : (tensor<i32>) -> tensor<i64>\n"
    "  return %r, %c : tensor<2xf32>, tensor<i64>\n}\n";

static plumb_tensor *scalar(plumb_dtype t, uint64_t bits)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, 0, NULL, 0, &d);
    assert_non_null(x);
    plumb_store_bits(t, x->data, 0, bits);
    return x;
}

/* if takes each branch (true: a as it is, -0.0 kept; false: a + b = [3, 3]);
 * case takes branch k for k in 0..2, and the last branch (12) for k = -1
 * and k = 3, as the spec says of an index out of range. */
static void test_if_and_case(void **state)
{
    (void)state;
    static const struct { int pred; int32_t k; int64_t c; } runs[] = {
        {1, 0, 10}, {0, 1, 11}, {1, 2, 12}, {0, -1, 12}, {1, 3, 12},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        plumb_tensor *in[2] = {scalar(PLUMB_I1, (uint64_t)runs[i].pred), scalar(PLUMB_I32, (uint32_t)runs[i].k)};
        plumb_ref_result r = run_inputs(branch_src, in, 2);
        if (runs[i].pred) {
            expect_bits(&r, 0, 0, 0x3F800000u);
            expect_bits(&r, 0, 1, 0x80000000u);
        } else {
            expect_f32(&r, 0, 0, 3.0f);
            expect_f32(&r, 0, 1, 3.0f);
        }
        expect_int(&r, 1, 0, runs[i].c);
        plumb_ref_result_free(&r);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_identity_bits),
        cmocka_unit_test(test_barrier_between_ops),
        cmocka_unit_test(test_while_sum_1_to_10),
        cmocka_unit_test(test_while_factorial_generic),
        cmocka_unit_test(test_while_zero_iterations),
        cmocka_unit_test(test_while_nested),
        cmocka_unit_test(test_while_timeout),
        cmocka_unit_test(test_if_and_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
