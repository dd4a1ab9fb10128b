/* chlo.ragged_dot on the reference (ref/ragged_dot.c), its parser, printer
 * and verifier (ir/ragged_dot.c; docs/spec/ragged_dot.md).
 *
 * Every expected value is derived by hand next to its case (the products
 * and sums written out), so nothing is taken from the kernel under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "ref_test.h"

#define DN(lb, rb, lc, rc, lr, rg)                                                                             \
    "{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = " lb                            \
    ", rhs_batching_dimensions = " rb ", lhs_contracting_dimensions = " lc ", rhs_contracting_dimensions = " rc \
    ", lhs_ragged_dimensions = " lr ", rhs_group_dimensions = " rg ">}"

/* lhs rows [1,2] [3,4] [5,6] [7,8] [9,10]; rhs group 0 = [[1,0,0],[0,1,0]]
 * (row -> [x0, x1, 0]), group 1 = [[1,1,1],[2,2,2]] (row -> x0 + 2 x1 in
 * every column). */
#define M1_LHS "  %l = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]> : tensor<5x2x" T ">\n"
#define M1_RHS "  %r = stablehlo.constant dense<[[[1, 0, 0], [0, 1, 0]], [[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3x" T ">\n"
#define M1_OP(gs)                                                                                          \
    "  %g = stablehlo.constant dense<" gs "> : tensor<2xi64>\n"                                            \
    "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")                   \
    " : (tensor<5x2x" T ">, tensor<2x2x3x" T ">, tensor<2xi64>) -> tensor<5x3x" T ">\n"

/* Mode 1 (ragged non-contracting rows), sizes [2, 2]: rows 0-1 in group
 * 0: [1,2,0], [3,4,0]; rows 2-3 in group 1: 5 + 12 = 17, 7 + 16 = 23; row
 * 4 in no group (the sizes sum to 4 < 5): 0, +0 for floats. In i32 and
 * f32 (bits compared, so the +0 is checked too). */
static void test_mode1_rows(void **state)
{
    (void)state;
#define T "i32"
    expect_outputs_equal("func.func @main() -> (tensor<5x3xi32>, tensor<5x3xi32>) {\n" M1_LHS M1_RHS M1_OP("[2, 2]")
                         "  %e = stablehlo.constant dense<[[1, 2, 0], [3, 4, 0], [17, 17, 17], [23, 23, 23], [0, 0, 0]]> : tensor<5x3xi32>\n"
                         "  return %o, %e : tensor<5x3xi32>, tensor<5x3xi32>\n}\n");
#undef T
#define T "f32"
    expect_outputs_equal("func.func @main() -> (tensor<5x3xf32>, tensor<5x3xf32>) {\n" M1_LHS M1_RHS M1_OP("[2, 2]")
                         "  %e = stablehlo.constant dense<[[1.0, 2.0, 0.0], [3.0, 4.0, 0.0], [17.0, 17.0, 17.0], [23.0, 23.0, 23.0], [0.0, 0.0, 0.0]]> : tensor<5x3xf32>\n"
                         "  return %o, %e : tensor<5x3xf32>, tensor<5x3xf32>\n}\n");
#undef T
}

/* A zero-size first group, sizes [0, 3]: rows 0-2 all in group 1 (1 + 4 =
 * 5, 3 + 8 = 11, 5 + 12 = 17), rows 3-4 in none. Sizes past the rows,
 * [3, 5]: group 1 is cut at row 5, so rows 3-4 are in it (7 + 16 = 23,
 * 9 + 20 = 29). */
static void test_mode1_zero_and_cut_groups(void **state)
{
    (void)state;
#define T "i64"
    expect_outputs_equal("func.func @main() -> (tensor<5x3xi64>, tensor<5x3xi64>) {\n" M1_LHS M1_RHS M1_OP("[0, 3]")
                         "  %e = stablehlo.constant dense<[[5, 5, 5], [11, 11, 11], [17, 17, 17], [0, 0, 0], [0, 0, 0]]> : tensor<5x3xi64>\n"
                         "  return %o, %e : tensor<5x3xi64>, tensor<5x3xi64>\n}\n");
    expect_outputs_equal("func.func @main() -> (tensor<5x3xi64>, tensor<5x3xi64>) {\n" M1_LHS M1_RHS M1_OP("[3, 5]")
                         "  %e = stablehlo.constant dense<[[1, 2, 0], [3, 4, 0], [5, 6, 0], [23, 23, 23], [29, 29, 29]]> : tensor<5x3xi64>\n"
                         "  return %o, %e : tensor<5x3xi64>, tensor<5x3xi64>\n}\n");
#undef T
}

/* Mode 2 (ragged contracting dimension): lhs [[1,2,3,4],[5,6,7,8]] (m, k),
 * rhs row k = [1, k + 1]; result [group, m, n]. Sizes [1, 2] (k = 3 in no
 * group): group 0 is k = 0 only: [[1*1, 1*1], [5, 5]]; group 1 is k = 1, 2:
 * m0 = [2 + 3, 2*2 + 3*3] = [5, 13], m1 = [6 + 7, 6*2 + 7*3] = [13, 33].
 * Sizes [0, 4, 0]: groups 0 and 2 are empty (+0), group 1 is every k:
 * m0 = [1+2+3+4, 1+4+9+16] = [10, 30], m1 = [26, 5+12+21+32 = 70]. */
static void test_mode2_contracting(void **state)
{
    (void)state;
    static const char *const sizes[2] = {"[1, 2]", "[0, 4, 0]"};
    static const char *const want[2] = {"[[[1.0, 1.0], [5.0, 5.0]], [[5.0, 13.0], [13.0, 33.0]]]",
                                        "[[[0.0, 0.0], [0.0, 0.0]], [[10.0, 30.0], [26.0, 70.0]], [[0.0, 0.0], [0.0, 0.0]]]"};
    for (int c = 0; c < 2; c++) {
        int g = c ? 3 : 2;
        char text[2048];
        snprintf(text, sizeof text,
                 "func.func @main() -> (tensor<%dx2x2xf32>, tensor<%dx2x2xf32>) {\n"
                 "  %%l = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>\n"
                 "  %%r = stablehlo.constant dense<[[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [1.0, 4.0]]> : tensor<4x2xf32>\n"
                 "  %%g = stablehlo.constant dense<%s> : tensor<%dxi32>\n"
                 "  %%o = \"chlo.ragged_dot\"(%%l, %%r, %%g) " DN("[]", "[]", "[1]", "[0]", "[1]", "[]")
                 " : (tensor<2x4xf32>, tensor<4x2xf32>, tensor<%dxi32>) -> tensor<%dx2x2xf32>\n"
                 "  %%e = stablehlo.constant dense<%s> : tensor<%dx2x2xf32>\n"
                 "  return %%o, %%e : tensor<%dx2x2xf32>, tensor<%dx2x2xf32>\n}\n",
                 g, g, sizes[c], g, g, g, want[c], g, g, g);
        expect_outputs_equal(text);
    }
}

/* Mode 3 (ragged batch dimension): batches [[1,2]] [[3,4]] [[5,6]] times
 * [[1],[1]] [[1],[2]] [[2],[1]]: 1 + 2 = 3, 3 + 8 = 11, and batch 2 (10 +
 * 6 = 16 as a dot) in no group with sizes [1, 1]: 0. */
static void test_mode3_batch(void **state)
{
    (void)state;
    expect_outputs_equal(
        "func.func @main() -> (tensor<3x1x1xi32>, tensor<3x1x1xi32>) {\n"
        "  %l = stablehlo.constant dense<[[[1, 2]], [[3, 4]], [[5, 6]]]> : tensor<3x1x2xi32>\n"
        "  %r = stablehlo.constant dense<[[[1], [1]], [[1], [2]], [[2], [1]]]> : tensor<3x2x1xi32>\n"
        "  %g = stablehlo.constant dense<[1, 1]> : tensor<2xui8>\n"
        "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " DN("[0]", "[0]", "[2]", "[1]", "[0]", "[]")
        " : (tensor<3x1x2xi32>, tensor<3x2x1xi32>, tensor<2xui8>) -> tensor<3x1x1xi32>\n"
        "  %e = stablehlo.constant dense<[[[3]], [[11]], [[0]]]> : tensor<3x1x1xi32>\n"
        "  return %o, %e : tensor<3x1x1xi32>, tensor<3x1x1xi32>\n}\n");
}

/* Mode 1 with a batch dimension: lhs [b][m][0] = [[1,2,3],[4,5,6]], rhs
 * [g][b] = g0: 10 (b0), 100 (b1); g1: 20, 200. group_sizes of rank 2, one
 * row per batch, [[1, 2], [3, 0]]: batch 0 rows 1*10, 2*20, 3*20 = [10, 40,
 * 60]; batch 1 all group 0: [400, 500, 600]. The rank-1 [1, 2] serves both
 * batches: batch 1 becomes [400, 5*200, 6*200] = [400, 1000, 1200]. */
static void test_mode1_batched_sizes(void **state)
{
    (void)state;
    static const char *const gs[2] = {"[[1, 2], [3, 0]]", "[1, 2]"};
    static const char *const gt[2] = {"tensor<2x2xi64>", "tensor<2xi64>"};
    static const char *const want[2] = {"[[[10], [40], [60]], [[400], [500], [600]]]",
                                        "[[[10], [40], [60]], [[400], [1000], [1200]]]"};
    for (int c = 0; c < 2; c++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "func.func @main() -> (tensor<2x3x1xi16>, tensor<2x3x1xi16>) {\n"
                 "  %%l = stablehlo.constant dense<[[[1], [2], [3]], [[4], [5], [6]]]> : tensor<2x3x1xi16>\n"
                 "  %%r = stablehlo.constant dense<[[[[10]], [[100]]], [[[20]], [[200]]]]> : tensor<2x2x1x1xi16>\n"
                 "  %%g = stablehlo.constant dense<%s> : %s\n"
                 "  %%o = \"chlo.ragged_dot\"(%%l, %%r, %%g) " DN("[0]", "[1]", "[2]", "[2]", "[1]", "[0]")
                 " : (tensor<2x3x1xi16>, tensor<2x2x1x1xi16>, %s) -> tensor<2x3x1xi16>\n"
                 "  %%e = stablehlo.constant dense<%s> : tensor<2x3x1xi16>\n"
                 "  return %%o, %%e : tensor<2x3x1xi16>, tensor<2x3x1xi16>\n}\n",
                 gs[c], gt[c], gt[c], want[c]);
        expect_outputs_equal(text);
    }
}

/* Mode 2 whose group_sizes rows follow the contracting dimension listed
 * before the ragged one: lhs [[[1,2],[3,4]]] (m, k1, k2), rhs all ones,
 * sizes [[1, 1], [2, 0]] (row k1). Group 0: k1 = 0 with k2 = 0 (1), k1 = 1
 * with k2 = 0, 1 (3 + 4): 8. Group 1: k1 = 0 with k2 = 1 (2), k1 = 1
 * nothing: 2. */
static void test_mode2_prefix(void **state)
{
    (void)state;
    expect_outputs_equal(
        "func.func @main() -> (tensor<2x1x1xf64>, tensor<2x1x1xf64>) {\n"
        "  %l = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf64>\n"
        "  %r = stablehlo.constant dense<1.0> : tensor<2x2x1xf64>\n"
        "  %g = stablehlo.constant dense<[[1, 1], [2, 0]]> : tensor<2x2xi32>\n"
        "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " DN("[]", "[]", "[1, 2]", "[0, 1]", "[2]", "[]")
        " : (tensor<1x2x2xf64>, tensor<2x2x1xf64>, tensor<2x2xi32>) -> tensor<2x1x1xf64>\n"
        "  %e = stablehlo.constant dense<[[[8.0]], [[2.0]]]> : tensor<2x1x1xf64>\n"
        "  return %o, %e : tensor<2x1x1xf64>, tensor<2x1x1xf64>\n}\n");
}

/* The group's sum is rounded once, as dot_general's: 1 + 2^-24 + 2^-24 is
 * 1 + 2^-23 exactly (an f32), where adding in order would round 1 + 2^-24
 * to 1 twice. Row 1 holds inf and NaN but is in no group: +0, not NaN. An
 * empty contraction (K = 0) in a group: +0. */
static void test_rounding_and_specials(void **state)
{
    (void)state;
    expect_outputs_equal(
        "func.func @main() -> (tensor<2x1xf32>, tensor<2x1xf32>) {\n"
        "  %l = stablehlo.constant dense<[[1.0, 5.9604644775390625E-8, 5.9604644775390625E-8], [0x7F800000, 0x7FC00000, 1.0]]> : tensor<2x3xf32>\n"
        "  %r = stablehlo.constant dense<1.0> : tensor<1x3x1xf32>\n"
        "  %g = stablehlo.constant dense<[1]> : tensor<1xi64>\n"
        "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")
        " : (tensor<2x3xf32>, tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<2x1xf32>\n"
        "  %e = stablehlo.constant dense<[[1.00000011920928955078125], [0.0]]> : tensor<2x1xf32>\n"
        "  return %o, %e : tensor<2x1xf32>, tensor<2x1xf32>\n}\n");
    expect_outputs_equal(
        "func.func @main() -> (tensor<3x2xf32>, tensor<3x2xf32>) {\n"
        "  %l = stablehlo.constant dense<> : tensor<3x0xf32>\n"
        "  %r = stablehlo.constant dense<> : tensor<2x0x2xf32>\n"
        "  %g = stablehlo.constant dense<[1, 1]> : tensor<2xi64>\n"
        "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")
        " : (tensor<3x0xf32>, tensor<2x0x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>\n"
        "  %e = stablehlo.constant dense<0.0> : tensor<3x2xf32>\n"
        "  return %o, %e : tensor<3x2xf32>, tensor<3x2xf32>\n}\n");
}

/* A negative group size is refused when the op runs, naming the element. */
static void test_negative_size_refused(void **state)
{
    (void)state;
    const char *src = "func.func @main(%s: tensor<2xi64>) -> tensor<5x3xi32> {\n"
                      "  %l = stablehlo.constant dense<1> : tensor<5x2xi32>\n"
                      "  %r = stablehlo.constant dense<1> : tensor<2x2x3xi32>\n"
                      "  %o = \"chlo.ragged_dot\"(%l, %r, %s) " DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")
                      " : (tensor<5x2xi32>, tensor<2x2x3xi32>, tensor<2xi64>) -> tensor<5x3xi32>\n"
                      "  return %o : tensor<5x3xi32>\n}\n";
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, strlen(src), "t.mlir", NULL, &d);
    assert_non_null(m);
    assert_true(ir_verify(m, NULL, &d));
    int64_t dims[1] = {2};
    plumb_tensor *gs = plumb_tensor_new(PLUMB_I64, 1, dims, 0, &d);
    assert_non_null(gs);
    plumb_store_bits(PLUMB_I64, gs->data, 0, 3);
    plumb_store_bits(PLUMB_I64, gs->data, 1, (uint64_t)-1);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    bool ok = plumb_ref_run(m, NULL, &gs, 1, NULL, &res, &d);
    assert_false(ok);
    if (!strstr(d.msg, "group_sizes element 1") || !strstr(d.msg, "negative")) fail_msg("message: %s", d.msg);
    plumb_tensor_free(gs);
    ir_module_free(m);
}

#define BAD_OP(lhs, rhs, gs, out, dn)                                                             \
    "func.func @main(%l: " lhs ", %r: " rhs ", %g: " gs ") -> " out " {\n"                        \
    "  %o = \"chlo.ragged_dot\"(%l, %r, %g) " dn " : (" lhs ", " rhs ", " gs ") -> " out "\n"     \
    "  return %o : " out "\n}\n"

/* The verifier's rules, each message naming the operand and dimension. */
static void test_verifier_errors(void **state)
{
    (void)state;
    /* two ragged dimensions */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0, 1]", "[0]")),
                   "lhs_ragged_dimensions must list exactly one lhs dimension, got 2");
    /* ragged dimension out of range */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[2]", "[0]")),
                   "lhs_ragged_dimensions[0] = 2 is out of range for lhs of rank 2");
    /* non-contracting ragged dimension without an rhs group dimension */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xi64>", "tensor<5x2x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[]")),
                   "rhs_group_dimensions must list exactly one rhs dimension");
    /* group dimension of the wrong size */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<3x2x3xf32>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "rhs group dimension 0 has size 3 but group_sizes (operand 2) has 2 groups");
    /* float group sizes */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xf32>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "group_sizes (operand 2) must have an integer element type, got f32");
    /* the result shape */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xi64>", "tensor<5x2xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "result shape [5x2] does not match the inferred [5x3]");
    /* group_sizes' leading dimension must be the batch's */
    expect_refused(BAD_OP("tensor<2x5x2xf32>", "tensor<3x2x2x4xf32>", "tensor<4x3xi64>", "tensor<2x5x4xf32>",
                          DN("[0]", "[1]", "[2]", "[2]", "[1]", "[0]")),
                   "group_sizes (operand 2) dimension 0 has size 4 but must match lhs dimension 0 (size 2)");
    /* group_sizes of the wrong rank */
    expect_refused(BAD_OP("tensor<2x5x2xf32>", "tensor<3x2x2x4xf32>", "tensor<1x2x3xi64>", "tensor<2x5x4xf32>",
                          DN("[0]", "[1]", "[2]", "[2]", "[1]", "[0]")),
                   "group_sizes (operand 2) must have rank 1 or 2");
    /* ... and with no lhs dimension before the ragged one only rank 1 fits
     * (review5: the message said "rank 1 or 1") */
    expect_refused(BAD_OP("tensor<6x4xf32>", "tensor<3x4x5xf32>", "tensor<1x1x3xi64>", "tensor<6x5xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "group_sizes (operand 2) must have rank 1 (the group count: no lhs dimension comes before a ragged non-contracting dimension here), got rank 3");
    /* a contracting ragged dimension with a group dimension */
    expect_refused(BAD_OP("tensor<4x9xf32>", "tensor<3x9x6xf32>", "tensor<3xi64>", "tensor<3x4x6xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[1]", "[0]")),
                   "rhs_group_dimensions must be empty when the lhs ragged dimension 1 is a contracting dimension");
    /* the group dimension also contracting */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf32>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[1]")),
                   "dimension 1 is in both rhs_group_dimensions and rhs_contracting_dimensions");
    /* contracting sizes */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x3x3xf32>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "contracting dimension pair 0: lhs dimension 1 has size 2 but rhs dimension 1 has size 3");
    /* mixed element types: unsupported, said so */
    expect_refused(BAD_OP("tensor<5x2xf32>", "tensor<2x2x3xf64>", "tensor<2xi64>", "tensor<5x3xf32>",
                          DN("[]", "[]", "[1]", "[1]", "[0]", "[0]")),
                   "unsupported: lhs element type f32 differs from rhs element type f64");
}

/* The generic form prints back as itself (precision_config kept, every
 * dimension list written), and the print parses to the same print. */
static void test_print_fixpoint(void **state)
{
    (void)state;
    plumb_buf b;
    expect_print_fixpoint(
        "func.func @main(%l: tensor<2x11x5xf32>, %r: tensor<3x2x5x7xf32>, %g: tensor<3xi64>) -> tensor<2x11x7xf32> {\n"
        "  %o = \"chlo.ragged_dot\"(%l, %r, %g) {\n"
        "    ragged_dot_dimension_numbers = #chlo.ragged_dot<\n"
        "      lhs_batching_dimensions = [0],\n      rhs_batching_dimensions = [1],\n"
        "      lhs_contracting_dimensions = [2],\n      rhs_contracting_dimensions = [2],\n"
        "      lhs_ragged_dimensions = [1],\n      rhs_group_dimensions = [0]\n    >,\n"
        "    precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>]\n"
        "  } : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>\n"
        "  return %o : tensor<2x11x7xf32>\n}\n",
        &b);
    assert_non_null(strstr(b.data, "#chlo<precision HIGHEST>"));
    assert_non_null(strstr(b.data, "lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]"));
    assert_non_null(strstr(b.data, "\"chlo.ragged_dot\"(%arg0, %arg1, %arg2)"));
    plumb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode1_rows),
        cmocka_unit_test(test_mode1_zero_and_cut_groups),
        cmocka_unit_test(test_mode2_contracting),
        cmocka_unit_test(test_mode3_batch),
        cmocka_unit_test(test_mode1_batched_sizes),
        cmocka_unit_test(test_mode2_prefix),
        cmocka_unit_test(test_rounding_and_specials),
        cmocka_unit_test(test_negative_size_refused),
        cmocka_unit_test(test_verifier_errors),
        cmocka_unit_test(test_print_fixpoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
