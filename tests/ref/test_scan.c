/* chlo.scan on the reference (ref/scan.c), its parser, printer and
 * verifier (ir/parse.c, ir/print.c, ir/verify.c; docs/spec/control.md).
 *
 * Every expected value is derived by hand next to its case (running sums
 * and products written out step by step, float sums at the ULP of 1), so
 * nothing is taken from the kernel under test. */
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

/* A body adding input and carry and returning the sum as output and carry
 * (inclusive prefix sums), of element type T. */
#define SUM_BODY(T)                                                    \
    "  ^bb0(%x: " T ", %c: " T "):\n"                                  \
    "    %s = stablehlo.add %x, %c : " T "\n"                          \
    "    stablehlo.return %s, %s : " T ", " T "\n"

/* Inclusive prefix sums of [1, 2, 3, 4]: 1, 1+2 = 3, 3+3 = 6, 6+4 = 10,
 * carry 10; from init 100 instead of 0: 101, 103, 106, 110, carry 110 (the
 * init is the first carry, not an extra element). */
static void test_prefix_sums(void **state)
{
    (void)state;
    static const int64_t init[2] = {0, 100};
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "func.func @main() -> (tensor<4xi32>, tensor<i32>) {\n"
                 "  %%a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n"
                 "  %%i = stablehlo.constant dense<%lld> : tensor<i32>\n"
                 "  %%r:2 = chlo.scan(%%a) inits(%%i) dimension=0 {\n"
                 "  ^bb0(%%x: tensor<i32>, %%c: tensor<i32>):\n"
                 "    %%s = stablehlo.add %%x, %%c : tensor<i32>\n"
                 "    stablehlo.return %%s, %%s : tensor<i32>, tensor<i32>\n"
                 "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)\n"
                 "  return %%r#0, %%r#1 : tensor<4xi32>, tensor<i32>\n}\n",
                 (long long)init[k]);
        plumb_ref_result r = run(text);
        assert_int_equal(r.n_outputs, 2);
        for (int i = 0; i < 4; i++)
            expect_int(&r, 0, (size_t)i, init[k] + (int64_t[]){1, 3, 6, 10}[i]);
        expect_int(&r, 1, 0, init[k] + 10);
        plumb_ref_result_free(&r);
    }
}

/* Scan dimension 1 of [[1, 2, 3], [4, 5, 6]] with a body whose output is
 * the carry *before* the step (an exclusive scan) and whose carry is the
 * sum, so outputs and carries differ: rows 0, 0+1 = 1, 1+2 = 3 and 0, 4,
 * 4+5 = 9; final carries 6 and 15. Scan dimension 0 of [[1, 2], [3, 4],
 * [5, 6]] (slices of two elements): [[1, 2], [4, 6], [9, 12]], carry
 * [9, 12]. */
static void test_dimensions(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2x3xi32>, tensor<2xi32>, tensor<3x2xi32>, tensor<2xi32>) {\n"
        "  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>\n"
        "  %z = stablehlo.constant dense<0> : tensor<2xi32>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=1 {\n"
        "  ^bb0(%x: tensor<2xi32>, %c: tensor<2xi32>):\n"
        "    %s = stablehlo.add %x, %c : tensor<2xi32>\n"
        "    stablehlo.return %c, %s : tensor<2xi32>, tensor<2xi32>\n"
        "  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)\n"
        "  %b = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>\n"
        "  %q:2 = chlo.scan(%b) inits(%z) dimension=0 {\n" SUM_BODY("tensor<2xi32>")
        "  } : (tensor<3x2xi32>, tensor<2xi32>) -> (tensor<3x2xi32>, tensor<2xi32>)\n"
        "  return %r#0, %r#1, %q#0, %q#1 : tensor<2x3xi32>, tensor<2xi32>, tensor<3x2xi32>, tensor<2xi32>\n}\n");
    static const int64_t excl[6] = {0, 1, 3, 0, 4, 9}, cum[6] = {1, 2, 4, 6, 9, 12};
    for (int i = 0; i < 6; i++) {
        expect_int(&r, 0, (size_t)i, excl[i]);
        expect_int(&r, 2, (size_t)i, cum[i]);
    }
    expect_int(&r, 1, 0, 6);
    expect_int(&r, 1, 1, 15);
    expect_int(&r, 3, 0, 9);
    expect_int(&r, 3, 1, 12);
    plumb_ref_result_free(&r);
}

/* Two inputs a = [2, 7, 1, 8], b = [10, 20, 30, 40], two carries s (init 0)
 * and p (init 1); outputs s + a and b - a, carries s + a and p * a:
 * step 0: s 2, p 2, outputs 2, 8; step 1: s 9, p 14, outputs 9, 13;
 * step 2: s 10, p 14, outputs 10, 29; step 3: s 18, p 112, outputs 18, 32.
 * Then no inputs at all (the length from the output's type): Fibonacci,
 * carries (f, g) from (0, 1), output f, new carries (g, f + g): outputs
 * 0, 1, 1, 2, 3, 5, carries 8, 13. Then no carries (a map along the
 * dimension): 2 * a = [4, 14, 2, 16]. */
static void test_multi_input_multi_carry(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<4xi64>, tensor<4xi64>, tensor<i64>, tensor<i64>, tensor<6xi64>, tensor<i64>,\n"
        "                      tensor<i64>, tensor<4xi64>) {\n"
        "  %a = stablehlo.constant dense<[2, 7, 1, 8]> : tensor<4xi64>\n"
        "  %b = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi64>\n"
        "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
        "  %r:4 = chlo.scan(%a, %b) inits(%zero, %one) dimension=0 {\n"
        "  ^bb0(%x: tensor<i64>, %y: tensor<i64>, %s: tensor<i64>, %p: tensor<i64>):\n"
        "    %s2 = stablehlo.add %s, %x : tensor<i64>\n"
        "    %p2 = stablehlo.multiply %p, %x : tensor<i64>\n"
        "    %d = stablehlo.subtract %y, %x : tensor<i64>\n"
        "    stablehlo.return %s2, %d, %s2, %p2 : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>\n"
        "  } : (tensor<4xi64>, tensor<4xi64>, tensor<i64>, tensor<i64>)\n"
        "      -> (tensor<4xi64>, tensor<4xi64>, tensor<i64>, tensor<i64>)\n"
        "  %f:3 = chlo.scan() inits(%zero, %one) dimension=0 {\n"
        "  ^bb0(%u: tensor<i64>, %v: tensor<i64>):\n"
        "    %w = stablehlo.add %u, %v : tensor<i64>\n"
        "    stablehlo.return %u, %v, %w : tensor<i64>, tensor<i64>, tensor<i64>\n"
        "  } : (tensor<i64>, tensor<i64>) -> (tensor<6xi64>, tensor<i64>, tensor<i64>)\n"
        "  %m = chlo.scan(%a) inits() dimension=0 {\n"
        "  ^bb0(%x: tensor<i64>):\n"
        "    %t = stablehlo.add %x, %x : tensor<i64>\n"
        "    stablehlo.return %t : tensor<i64>\n"
        "  } : (tensor<4xi64>) -> tensor<4xi64>\n"
        "  return %r#0, %r#1, %r#2, %r#3, %f#0, %f#1, %f#2, %m : tensor<4xi64>, tensor<4xi64>, tensor<i64>,\n"
        "    tensor<i64>, tensor<6xi64>, tensor<i64>, tensor<i64>, tensor<4xi64>\n}\n");
    static const int64_t o0[4] = {2, 9, 10, 18}, o1[4] = {8, 13, 29, 32}, fib[6] = {0, 1, 1, 2, 3, 5},
                         dbl[4] = {4, 14, 2, 16};
    for (int i = 0; i < 4; i++) {
        expect_int(&r, 0, (size_t)i, o0[i]);
        expect_int(&r, 1, (size_t)i, o1[i]);
        expect_int(&r, 7, (size_t)i, dbl[i]);
    }
    expect_int(&r, 2, 0, 18);
    expect_int(&r, 3, 0, 112);
    for (int i = 0; i < 6; i++)
        expect_int(&r, 4, (size_t)i, fib[i]);
    expect_int(&r, 5, 0, 8);
    expect_int(&r, 6, 0, 13);
    plumb_ref_result_free(&r);
}

/* is_reverse: suffix sums. [1, 2, 3, 4] -> 4+3+2+1 = 10, 4+3+2 = 9, 7, 4,
 * carry 10; along dimension 1 of [[1, 2, 3], [4, 5, 6]]: [[6, 5, 3],
 * [15, 11, 6]], carries [6, 15]. The outputs stay at their input's
 * position: only the order of the steps is reversed. */
static void test_reverse(void **state)
{
    (void)state;
    expect_outputs_equal(
        "func.func @main() -> (tensor<4xi32>, tensor<4xi32>) {\n"
        "  %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n"
        "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=0 attributes {is_reverse = true} {\n" SUM_BODY("tensor<i32>")
        "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)\n"
        "  %e = stablehlo.constant dense<[10, 9, 7, 4]> : tensor<4xi32>\n"
        "  return %r#0, %e : tensor<4xi32>, tensor<4xi32>\n}\n");
    expect_outputs_equal(
        "func.func @main() -> (tensor<2x3xi32>, tensor<2x3xi32>) {\n"
        "  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>\n"
        "  %z = stablehlo.constant dense<0> : tensor<2xi32>\n"
        "  %r:2 = \"chlo.scan\"(%a, %z) <{dimension = 1 : i64, is_reverse = true,\n"
        "      operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({\n"
        SUM_BODY("tensor<2xi32>")
        "  }) : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)\n"
        "  %e = stablehlo.constant dense<[[6, 5, 3], [15, 11, 6]]> : tensor<2x3xi32>\n"
        "  return %r#0, %e : tensor<2x3xi32>, tensor<2x3xi32>\n}\n");
    expect_outputs_equal(
        "func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {\n"
        "  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>\n"
        "  %z = stablehlo.constant dense<0> : tensor<2xi32>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=1 attributes {is_reverse = true} {\n" SUM_BODY("tensor<2xi32>")
        "  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)\n"
        "  %e = stablehlo.constant dense<[6, 15]> : tensor<2xi32>\n"
        "  return %r#1, %e : tensor<2xi32>, tensor<2xi32>\n}\n");
}

/* An empty scan dimension runs the body never: the outputs are empty and
 * the carries are the inits (7; and [3, 4] for a 2x0 input along 1). */
static void test_empty(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<0xi32>, tensor<i32>, tensor<2x0xi32>, tensor<2xi32>) {\n"
        "  %a = stablehlo.constant dense<> : tensor<0xi32>\n"
        "  %i = stablehlo.constant dense<7> : tensor<i32>\n"
        "  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n" SUM_BODY("tensor<i32>")
        "  } : (tensor<0xi32>, tensor<i32>) -> (tensor<0xi32>, tensor<i32>)\n"
        "  %b = stablehlo.constant dense<> : tensor<2x0xi32>\n"
        "  %j = stablehlo.constant dense<[3, 4]> : tensor<2xi32>\n"
        "  %q:2 = chlo.scan(%b) inits(%j) dimension=1 {\n" SUM_BODY("tensor<2xi32>")
        "  } : (tensor<2x0xi32>, tensor<2xi32>) -> (tensor<2x0xi32>, tensor<2xi32>)\n"
        "  return %r#0, %r#1, %q#0, %q#1 : tensor<0xi32>, tensor<i32>, tensor<2x0xi32>, tensor<2xi32>\n}\n");
    assert_int_equal(plumb_tensor_numel(r.outputs[0]), 0);
    assert_int_equal(plumb_tensor_numel(r.outputs[2]), 0);
    expect_int(&r, 1, 0, 7);
    expect_int(&r, 3, 0, 3);
    expect_int(&r, 3, 1, 4);
    plumb_ref_result_free(&r);
}

/* A scan dimension of 5 over slices with no elements (a 5x0 input along
 * dimension 0, whose buffer may be absent): the body still runs five
 * times, its carry counting the steps 0 -> 1 -> ... -> 5, and the output
 * is empty; forward and reverse alike (by hand: five +1 steps). */
static void test_empty_slices(void **state)
{
    (void)state;
    for (int rev = 0; rev < 2; rev++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "func.func @main() -> (tensor<5x0xi32>, tensor<i32>) {\n"
                 "  %%a = stablehlo.constant dense<> : tensor<5x0xi32>\n"
                 "  %%i = stablehlo.constant dense<0> : tensor<i32>\n"
                 "  %%r:2 = chlo.scan(%%a) inits(%%i) dimension=0%s {\n"
                 "  ^bb0(%%x: tensor<0xi32>, %%c: tensor<i32>):\n"
                 "    %%o = stablehlo.constant dense<1> : tensor<i32>\n"
                 "    %%s = stablehlo.add %%c, %%o : tensor<i32>\n"
                 "    stablehlo.return %%x, %%s : tensor<0xi32>, tensor<i32>\n"
                 "  } : (tensor<5x0xi32>, tensor<i32>) -> (tensor<5x0xi32>, tensor<i32>)\n"
                 "  return %%r#0, %%r#1 : tensor<5x0xi32>, tensor<i32>\n}\n",
                 rev ? " attributes {is_reverse = true}" : "");
        plumb_ref_result r = run(text);
        assert_int_equal(r.n_outputs, 2);
        assert_int_equal(plumb_tensor_numel(r.outputs[0]), 0);
        expect_int(&r, 1, 0, 5);
        plumb_ref_result_free(&r);
    }
}

/* Float bodies run in the scan's order, each step rounded: f32 sums of
 * [1, 2^-24, 2^-24] forward: 1 + 2^-24 is a tie between 1 and 1 + 2^-23
 * and rounds to even, 1, twice: [1, 1, 1]. In reverse: 2^-24, then 2^-24 +
 * 2^-24 = 2^-23 exactly, then 1 + 2^-23 (representable): outputs at their
 * positions [1 + 2^-23, 2^-23, 2^-24]. And c * 0.5 + x over [1, 2, 3]
 * from 0: 1, 0.5 + 2 = 2.5, 1.25 + 3 = 4.25 (all exact). */
static void test_float_body(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>) {\n"
        "  %a = stablehlo.constant dense<[1.0, 5.96046448e-08, 5.96046448e-08]> : tensor<3xf32>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %f:2 = chlo.scan(%a) inits(%z) dimension=0 {\n" SUM_BODY("tensor<f32>")
        "  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)\n"
        "  %b:2 = chlo.scan(%a) inits(%z) dimension=0 attributes {is_reverse = true} {\n" SUM_BODY("tensor<f32>")
        "  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)\n"
        "  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
        "  %h:2 = chlo.scan(%x) inits(%z) dimension=0 {\n"
        "  ^bb0(%v: tensor<f32>, %c: tensor<f32>):\n"
        "    %half = stablehlo.constant dense<0.5> : tensor<f32>\n"
        "    %m = stablehlo.multiply %c, %half : tensor<f32>\n"
        "    %s = stablehlo.add %m, %v : tensor<f32>\n"
        "    stablehlo.return %s, %s : tensor<f32>, tensor<f32>\n"
        "  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)\n"
        "  return %f#0, %b#0, %h#0, %h#1 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>\n}\n");
    for (int i = 0; i < 3; i++)
        expect_f32(&r, 0, (size_t)i, 1.0f);
    expect_f32(&r, 1, 0, 1.0f + 0x1p-23f);
    expect_f32(&r, 1, 1, 0x1p-23f);
    expect_f32(&r, 1, 2, 0x1p-24f);
    expect_f32(&r, 2, 0, 1.0f);
    expect_f32(&r, 2, 1, 2.5f);
    expect_f32(&r, 2, 2, 4.25f);
    expect_f32(&r, 3, 0, 4.25f);
    plumb_ref_result_free(&r);
}

/* The small and complex types pass through a scan as any other: i4
 * prefix sums of [1, 2, 3, -4] wrap at 8: 1, 3, 6, 6 + -4 = 2, carry 2;
 * f8E4M3FN suffix sums of [1, 2, 0.5] (exact in the format): 3.5, 2.5,
 * 0.5; complex<f32> prefix sums of [1+2i, 3-1i]: 1+2i, 4+1i. */
static void test_small_and_complex_types(void **state)
{
    (void)state;
    expect_outputs_equal(
        "func.func @main() -> (tensor<4xi4>, tensor<4xi4>) {\n"
        "  %a = stablehlo.constant dense<[1, 2, 3, -4]> : tensor<4xi4>\n"
        "  %z = stablehlo.constant dense<0> : tensor<i4>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=0 {\n" SUM_BODY("tensor<i4>")
        "  } : (tensor<4xi4>, tensor<i4>) -> (tensor<4xi4>, tensor<i4>)\n"
        "  %e = stablehlo.constant dense<[1, 3, 6, 2]> : tensor<4xi4>\n"
        "  return %r#0, %e : tensor<4xi4>, tensor<4xi4>\n}\n");
    expect_outputs_equal(
        "func.func @main() -> (tensor<3xf8E4M3FN>, tensor<3xf8E4M3FN>) {\n"
        "  %a = stablehlo.constant dense<[1.0, 2.0, 0.5]> : tensor<3xf8E4M3FN>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f8E4M3FN>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=0 attributes {is_reverse = true} {\n" SUM_BODY("tensor<f8E4M3FN>")
        "  } : (tensor<3xf8E4M3FN>, tensor<f8E4M3FN>) -> (tensor<3xf8E4M3FN>, tensor<f8E4M3FN>)\n"
        "  %e = stablehlo.constant dense<[3.5, 2.5, 0.5]> : tensor<3xf8E4M3FN>\n"
        "  return %r#0, %e : tensor<3xf8E4M3FN>, tensor<3xf8E4M3FN>\n}\n");
    expect_outputs_equal(
        "func.func @main() -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {\n"
        "  %a = stablehlo.constant dense<[(1.0, 2.0), (3.0, -1.0)]> : tensor<2xcomplex<f32>>\n"
        "  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>\n"
        "  %r:2 = chlo.scan(%a) inits(%z) dimension=0 {\n" SUM_BODY("tensor<complex<f32>>")
        "  } : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<complex<f32>>)\n"
        "  %e = stablehlo.constant dense<[(1.0, 2.0), (4.0, 1.0)]> : tensor<2xcomplex<f32>>\n"
        "  return %r#0, %e : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>\n}\n");
}

/* Invalid scans are rejected with an error naming what is wrong. */
static void test_verify(void **state)
{
    (void)state;
    static const char *bad[][2] = {
        /* dimension out of range */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=1 {\n" SUM_BODY("tensor<i32>")
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "dimension 1 is out of range for input 0"},
        /* body argument keeps the scan dimension */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n" SUM_BODY("tensor<4xi32>")
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "body argument 0"},
        /* carry returned with another type than the init's */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n"
         "  ^bb0(%x: tensor<i32>, %c: tensor<i32>):\n"
         "    %s = stablehlo.convert %x : (tensor<i32>) -> tensor<i64>\n"
         "    stablehlo.return %x, %s : tensor<i32>, tensor<i64>\n"
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "as carry 0"},
        /* output result of the wrong length */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n" SUM_BODY("tensor<i32>")
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<5xi32>, tensor<i32>)",
         "result 0"},
        /* body arity */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n"
         "  ^bb0(%x: tensor<i32>):\n"
         "    stablehlo.return %x, %x : tensor<i32>, tensor<i32>\n"
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "body takes 1 arguments, expected 2"},
        /* inputs of different lengths */
        {"  %r:3 = chlo.scan(%a, %b) inits(%i) dimension=0 {\n"
         "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %c: tensor<i32>):\n"
         "    stablehlo.return %x, %y, %c : tensor<i32>, tensor<i32>, tensor<i32>\n"
         "  } : (tensor<4xi32>, tensor<5xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<5xi32>, tensor<i32>)",
         "one scan length"},
        /* more carries returned than inits */
        {"  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n"
         "  ^bb0(%x: tensor<i32>, %c: tensor<i32>):\n"
         "    stablehlo.return %x, %c, %c : tensor<i32>, tensor<i32>, tensor<i32>\n"
         "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "body returns 3 values, expected 2"},
        /* the generic form's segments must match the operands */
        {"  %r:2 = \"chlo.scan\"(%a, %i) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 2, 1>}> ({\n"
         SUM_BODY("tensor<i32>") "  }) : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "operandSegmentSizes says 2 inputs and 1 inits"},
        {"  %r:2 = \"chlo.scan\"(%a, %i) <{dimension = 0 : i64}> ({\n"
         SUM_BODY("tensor<i32>") "  }) : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)",
         "needs attribute 'operandSegmentSizes'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[4096];
        snprintf(text, sizeof text,
                 "func.func @main(%%a: tensor<4xi32>, %%b: tensor<5xi32>, %%i: tensor<i32>) {\n%s\n  return\n}\n",
                 bad[k][0]);
        expect_refused(text, bad[k][1]);
    }
}

/* The canonical printer writes the pretty form (the generic form read in
 * prints pretty too), keeps is_reverse, is_associative and other
 * attributes, and its output parses back to the same text. */
static void test_print_roundtrip(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<3x4xf32>, %c: tensor<3xf32>) -> (tensor<3x4xf32>, tensor<3xf32>) {\n"
        "  %a:2 = \"chlo.scan\"(%x, %c) <{dimension = 1 : i64, is_associative = true, is_reverse = true,\n"
        "      operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({\n"
        SUM_BODY("tensor<3xf32>")
        "  }) {foo = \"bar\"} : (tensor<3x4xf32>, tensor<3xf32>) -> (tensor<3x4xf32>, tensor<3xf32>)\n"
        "  return %a#0, %a#1 : tensor<3x4xf32>, tensor<3xf32>\n}\n";
    plumb_buf b1;
    expect_print_fixpoint(src, &b1);
    if (!strstr(b1.data, "chlo.scan(%arg0) inits(%arg1) dimension=1 attributes {is_associative = true, "
                         "is_reverse = true, foo = \"bar\"} {"))
        fail_msg("%s", b1.data);
    plumb_buf_free(&b1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix_sums),
        cmocka_unit_test(test_dimensions),
        cmocka_unit_test(test_multi_input_multi_carry),
        cmocka_unit_test(test_reverse),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_empty_slices),
        cmocka_unit_test(test_float_body),
        cmocka_unit_test(test_small_and_complex_types),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_print_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
