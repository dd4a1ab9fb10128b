/* Reference gather/scatter kernels: take, clamping, implicit index vector, batching dims, skipped windows, update order. */
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

#define OPND "  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>\n"

/* Row take with clamping: starts 2, 0, 5 and -3 clamp to 2, 0, 2 and 0
 * (slice of size 1 in a dimension of 3). */
static void test_gather_take_clamp(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<4x3xi32> {\n" OPND
        "  %i = stablehlo.constant dense<[[2], [0], [5], [-3]]> : tensor<4x1xi32>\n"
        "  %g = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<3x3xi32>, tensor<4x1xi32>) -> tensor<4x3xi32>\n"
        "  return %g : tensor<4x3xi32>\n}\n");
    const int64_t want[12] = {7, 8, 9, 1, 2, 3, 7, 8, 9, 1, 2, 3};
    for (int i = 0; i < 12; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
}

/* index_vector_dim == rank(indices): each index is a scalar; a 2x2 window
 * starting at column 2 clamps to column 1. */
static void test_gather_implicit_vector(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2x2xi32> {\n" OPND
        "  %i = stablehlo.constant dense<[2, 0]> : tensor<2xi32>\n"
        "  %g = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2>}> : (tensor<3x3xi32>, tensor<2xi32>) -> tensor<2x2x2xi32>\n"
        "  return %g : tensor<2x2x2xi32>\n}\n");
    const int64_t want[8] = {2, 3, 5, 6, 1, 2, 4, 5};
    for (int i = 0; i < 8; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
}

/* Batching dims: result[b] = x[b][idx[b]] -> x[0][2], x[1][0], x[2][1]. */
static void test_gather_batching(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<3xi32> {\n" OPND
        "  %i = stablehlo.constant dense<[[2], [0], [1]]> : tensor<3x1xi32>\n"
        "  %g = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<3x3xi32>, tensor<3x1xi32>) -> tensor<3xi32>\n"
        "  return %g : tensor<3xi32>\n}\n");
    expect_int(&r, 0, 0, 3);
    expect_int(&r, 0, 1, 4);
    expect_int(&r, 0, 2, 8);
    plumb_ref_result_free(&r);
}

#define REPLACE_BODY \
    "    ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n" \
    "      stablehlo.return %b : tensor<i32>\n"

/* Scatter with a replacing body: out-of-bounds indices (7, -1) are skipped;
 * duplicate index 1 is applied in update order, so the last update wins. */
static void test_scatter_skip_and_order(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<5xi32> {\n"
        "  %x = stablehlo.constant dense<0> : tensor<5xi32>\n"
        "  %i = stablehlo.constant dense<[[1], [3], [7], [-1], [1]]> : tensor<5x1xi32>\n"
        "  %u = stablehlo.constant dense<[10, 20, 30, 40, 50]> : tensor<5xi32>\n"
        "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
        REPLACE_BODY
        "    }) : (tensor<5xi32>, tensor<5x1xi32>, tensor<5xi32>) -> tensor<5xi32>\n"
        "  return %s : tensor<5xi32>\n}\n");
    const int64_t want[5] = {0, 50, 0, 20, 0};
    for (int i = 0; i < 5; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
}

/* A window of 2 starting at 3 in a dimension of 4 is skipped as a whole; one
 * starting at 2 is applied. */
static void test_scatter_window(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<4xi32> {\n"
        "  %x = stablehlo.constant dense<0> : tensor<4xi32>\n"
        "  %i = stablehlo.constant dense<[[3], [2]]> : tensor<2x1xi32>\n"
        "  %u = stablehlo.constant dense<[[1, 2], [5, 6]]> : tensor<2x2xi32>\n"
        "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
        REPLACE_BODY
        "    }) : (tensor<4xi32>, tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<4xi32>\n"
        "  return %s : tensor<4xi32>\n}\n");
    const int64_t want[4] = {0, 0, 5, 6};
    for (int i = 0; i < 4; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
}

/* Batching dims: result[b][idx[b]] = u[b] -> [[0,0,7],[8,0,0]]. */
static void test_scatter_batching(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x3xi32> {\n"
        "  %x = stablehlo.constant dense<0> : tensor<2x3xi32>\n"
        "  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>\n"
        "  %u = stablehlo.constant dense<[7, 8]> : tensor<2xi32>\n"
        "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({\n"
        REPLACE_BODY
        "    }) : (tensor<2x3xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x3xi32>\n"
        "  return %s : tensor<2x3xi32>\n}\n");
    const int64_t want[6] = {0, 0, 7, 8, 0, 0};
    for (int i = 0; i < 6; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
}

/* An add body on f32 applies the region in update order, exactly as written:
 * ((1e8 + 1) + 1) ... stays 1e8 in f32, each add rounding. */
static void test_scatter_add_sequential(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<1xf32> {\n"
        "  %x = stablehlo.constant dense<1.0e8> : tensor<1xf32>\n"
        "  %i = stablehlo.constant dense<0> : tensor<4x1xi32>\n"
        "  %u = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
        "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "      %c = stablehlo.add %a, %b : tensor<f32>\n"
        "      stablehlo.return %c : tensor<f32>\n"
        "    }) : (tensor<1xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<1xf32>\n"
        "  return %s : tensor<1xf32>\n}\n");
    expect_f32(&r, 0, 0, 1e8f);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_take_clamp),
        cmocka_unit_test(test_gather_implicit_vector),
        cmocka_unit_test(test_gather_batching),
        cmocka_unit_test(test_scatter_skip_and_order),
        cmocka_unit_test(test_scatter_window),
        cmocka_unit_test(test_scatter_batching),
        cmocka_unit_test(test_scatter_add_sequential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
