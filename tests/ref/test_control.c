/* Reference control-flow kernels (ref/control.c): optimization_barrier so far. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_identity_bits),
        cmocka_unit_test(test_barrier_between_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
