/* Tests of CHLO's math ops on the reference (ref/elementwise.c, op set v2):
 * acos, asin, atan, acosh, asinh, atanh, cosh, sinh, erfc, lgamma, digamma,
 * square, is_inf, is_pos_inf, is_neg_inf and next_after, in the pretty and
 * generic forms StableHLO prints, plus the verifier's rules.
 *
 * Expected values: special values from C99 Annex F / IEEE 754-2019 and the
 * ops' definitions (hand-derived), and correctly rounded bit patterns of
 * finite results computed outside plumb at 400 bits with mpmath
 * (acos(1/2) = pi/3, lgamma(1/2) = log(sqrt(pi)), digamma(1) = -gamma, ...)
 * and rounded to the format by hand-written integer rounding. Invalid
 * operations give the default NaN (positive, quiet, empty payload); a NaN
 * operand comes out quieted with its payload. */
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

/* Runs `body` (ops computing %r, with the expected constant %e of type RT)
 * and asserts bitwise equality of the two results. */
static void expect_prog(const char *rt, const char *body)
{
    char text[8192];
    snprintf(text, sizeof text, "func.func @main() -> (%s, %s) {\n%s\n  return %%r, %%e : %s, %s\n}\n", rt, rt,
             body, rt, rt);
    expect_outputs_equal(text);
}

/* chlo.<op> of the constant a (type T) in the pretty form, result type RT. */
static void un(const char *op, const char *T, const char *RT, const char *a, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = chlo.%s %%a : %s -> %s",
             a, T, want, RT, op, T, RT);
    expect_prog(RT, body);
}

/* The same in the generic form `"chlo.op"(%a) : (T) -> T`. */
static void un_generic(const char *op, const char *T, const char *a, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = \"chlo.%s\"(%%a) : (%s) -> %s",
             a, T, want, T, op, T, T);
    expect_prog(T, body);
}

static void next_after(const char *T, const char *a, const char *b, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%b = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = chlo.next_after %%a, %%b : %s, %s -> %s",
             a, T, b, T, want, T, T, T, T);
    expect_prog(T, body);
}

/* acos, asin, atan: domain edges, signed zeros, pi/2 and pi rounded, NaN in
 * and out (|x| > 1 is the default NaN; a NaN operand keeps its payload). */
static void test_inverse_trig(void **state)
{
    (void)state;
    const char *T = "tensor<7xf32>";
    un("acos", T, T, "[1.0, -1.0, 0.0, -0.0, 0.5, 1.0000001, 0x7F800001]",
       "[0.0, 0x40490FDB, 0x3FC90FDB, 0x3FC90FDB, 0x3F860A92, 0x7FC00000, 0x7FC00001]");
    un("asin", T, T, "[1.0, -1.0, 0.0, -0.0, 0.5, -1.0000001, 0xFFC00002]",
       "[0x3FC90FDB, 0xBFC90FDB, 0.0, -0.0, 0x3F060A92, 0x7FC00000, 0xFFC00002]");
    un("atan", T, T, "[0x7F800000, 0xFF800000, 0.0, -0.0, 1.0, 1e-45, -1e-45]",
       "[0x3FC90FDB, 0xBFC90FDB, 0.0, -0.0, 0x3F490FDB, 1e-45, -1e-45]");
    const char *D = "tensor<3xf64>";
    un("acos", D, D, "[-1.0, 1.0, 2.0]", "[0x400921FB54442D18, 0.0, 0x7FF8000000000000]");
    un("asin", D, D, "[0.5, -0.0, 0x7FF0000000000000]", "[0x3FE0C152382D7366, -0.0, 0x7FF8000000000000]");
    un("atan", D, D, "[1.0, -0.0, 0xFFF0000000000000]", "[0x3FE921FB54442D18, -0.0, 0xBFF921FB54442D18]");
    un("atan", "tensor<2xbf16>", "tensor<2xbf16>", "[1.0, -0.0]", "[0x3F49, -0.0]");
    un_generic("asin", "tensor<2xf32>", "[0.5, 1.0]", "[0x3F060A92, 0x3FC90FDB]");
}

/* acosh, asinh, atanh, cosh, sinh: domains (acosh(x < 1), |atanh| > 1 are
 * NaN), poles atanh(+-1) = +-inf, odd functions keep -0, overflow of cosh
 * and sinh to +-inf (cosh(89) is finite in f32, cosh(90) is not). */
static void test_hyperbolic(void **state)
{
    (void)state;
    const char *T = "tensor<5xf32>";
    un("acosh", T, T, "[1.0, 0.5, 0x7F800000, 2.0, -0.0]", "[0.0, 0x7FC00000, 0x7F800000, 0x3FA89214, 0x7FC00000]");
    un("asinh", T, T, "[-0.0, 0xFF800000, 1.0, 0.0, 0x7F800000]", "[-0.0, 0xFF800000, 0x3F61A1B3, 0.0, 0x7F800000]");
    un("atanh", T, T, "[1.0, -1.0, 2.0, -0.0, 0.5]", "[0x7F800000, 0xFF800000, 0x7FC00000, -0.0, 0x3F0C9F54]");
    un("cosh", T, T, "[0.0, -0.0, 0xFF800000, 1.0, 89.0]", "[1.0, 1.0, 0x7F800000, 0x3FC583AB, 0x7F28E166]");
    un("cosh", "tensor<2xf32>", "tensor<2xf32>", "[90.0, -90.0]", "[0x7F800000, 0x7F800000]");
    un("sinh", T, T, "[-0.0, 1.0, -90.0, 90.0, 0xFF800000]", "[-0.0, 0x3F966CFE, 0xFF800000, 0x7F800000, 0xFF800000]");
    un("asinh", "tensor<2xf16>", "tensor<2xf16>", "[1.0, -0.0]", "[0x3B0D, -0.0]");
    un("cosh", "tensor<1xbf16>", "tensor<1xbf16>", "[2.0]", "[0x4071]");
}

/* erfc: erfc(-inf) = 2, erfc(+inf) = +0, erfc(0) = 1; erfc(10) in f32 is
 * 2.09e-45, rounded to the smallest subnormal; in f16 erfc(3) = 2.21e-5 is
 * the subnormal 371 * 2^-24 and erfc(4) = 1.54e-8 rounds to +0.
 * lgamma: +inf at the poles (+-0, -1) and at +-inf, 0 at 1 and 2,
 * log(sqrt(pi)) at 1/2, negative at -2.5 (|gamma(-2.5)| < 1).
 * digamma: -gamma (Euler) at 1, -gamma - 2 log 2 at 1/2, -inf at +0, +inf
 * at -0, NaN at the negative integers and at -inf. */
static void test_erfc_gamma(void **state)
{
    (void)state;
    const char *T = "tensor<6xf32>";
    un("erfc", T, T, "[0xFF800000, 0x7F800000, 0.0, 10.0, 0.5, -0.0]",
       "[2.0, 0.0, 1.0, 0x00000001, 0x3EF5810A, 1.0]");
    un("erfc", "tensor<2xf16>", "tensor<2xf16>", "[3.0, 4.0]", "[0x0173, 0.0]");
    const char *L = "tensor<8xf32>";
    un("lgamma", L, L, "[0.0, -0.0, -1.0, 1.0, 2.0, 0.5, -2.5, 0xFF800000]",
       "[0x7F800000, 0x7F800000, 0x7F800000, 0.0, 0.0, 0x3F128682, 0xBD665FD0, 0x7F800000]");
    un("lgamma", "tensor<2xf64>", "tensor<2xf64>", "[0.5, 3.5]", "[0x3FE250D048E7A1BD, 0x3FF3373018970A36]");
    un("digamma", L, L, "[1.0, 0.5, -0.5, 0.0, -0.0, -1.0, 0xFF800000, 0x7F800000]",
       "[0xBF13C468, 0xBFFB544C, 0x3D157683, 0xFF800000, 0x7F800000, 0x7FC00000, 0x7FC00000, 0x7F800000]");
    un("digamma", "tensor<1xf64>", "tensor<1xf64>", "[1.0]", "[0xBFE2788CFC6FB619]");
}

/* square: x * x rounded once: -0 -> +0, overflow to +inf, (1e-23)^2 =
 * 1e-46 below half the smallest f32 subnormal -> +0, 2^-75 squared = 2^-150
 * is exactly half the smallest subnormal -> +0 (tie to even), 3 * 2^-75
 * squared = 9 * 2^-150 = 4.5 subnormal units -> 4 (tie to even). */
static void test_square(void **state)
{
    (void)state;
    const char *T = "tensor<8xf32>";
    un("square", T, T, "[3.0, -0.0, 1e20, 1e-23, 0x1A000000, 0x1AC00000, 0xFF800000, -1.5]",
       "[9.0, 0.0, 0x7F800000, 0.0, 0.0, 0x00000004, 0x7F800000, 2.25]");
    un("square", "tensor<2xf16>", "tensor<2xf16>", "[256.0, -0.5]", "[0x7C00, 0.25]");
    un_generic("square", "tensor<1xf64>", "[0x7FF8000000000123]", "[0x7FF8000000000123]");
}

/* is_inf, is_pos_inf, is_neg_inf: i1 results; NaNs of either sign, zeros,
 * the largest finite value and subnormals are not infinite. */
static void test_is_inf(void **state)
{
    (void)state;
    const char *T = "tensor<7xf32>", *B = "tensor<7xi1>";
    const char *x = "[0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, -0.0, 0x7F7FFFFF, 1e-45]";
    un("is_inf", T, B, x, "[true, true, false, false, false, false, false]");
    un("is_pos_inf", T, B, x, "[true, false, false, false, false, false, false]");
    un("is_neg_inf", T, B, x, "[false, true, false, false, false, false, false]");
    un("is_inf", "tensor<3xf16>", "tensor<3xi1>", "[0x7C00, 0xFC00, 0x7E00]", "[true, true, false]");
    un("is_neg_inf", "tensor<2xbf16>", "tensor<2xi1>", "[0xFF80, 0x7F80]", "[true, false]");
    un("is_pos_inf", "tensor<2xf64>", "tensor<2xi1>", "[0x7FF0000000000000, 0xFFF0000000000000]", "[true, false]");
}

/* next_after: one step toward y; from +-0 the smallest subnormal with y's
 * sign; x == y gives y (+0 toward -0 is -0); max toward inf is inf; inf
 * toward 0 is max; the smallest subnormal toward 0 is +0; NaN operands
 * quieted (x's first). */
static void test_next_after(void **state)
{
    (void)state;
    next_after("tensor<11xf32>",
               "[0.0, 0.0, 1.0, 1.0, -1.0, 0x7F7FFFFF, 0x7F800000, 0.0, 0x00000001, 0x7F800001, 1.0]",
               "[1.0, -1.0, 2.0, 0.0, -2.0, 0x7F800000, 0.0, -0.0, 0.0, 0x7FC00002, 0xFF800003]",
               "[0x00000001, 0x80000001, 0x3F800001, 0x3F7FFFFF, 0xBF800001, 0x7F800000, 0x7F7FFFFF, -0.0, 0.0, "
               "0x7FC00001, 0xFFC00003]");
    next_after("tensor<3xf16>", "[1.0, -0.0, 0xFBFF]", "[0.0, 1.0, 0xFC00]", "[0x3BFF, 0x0001, 0xFC00]");
    next_after("tensor<2xbf16>", "[1.0, 0x8001]", "[2.0, 1.0]", "[0x3F81, 0x8000]");
    next_after("tensor<2xf64>", "[1.0, 0.0]", "[2.0, -1.0]", "[0x3FF0000000000001, 0x8000000000000001]");
}

/* The verifier applies the elementwise rules: is_inf returns i1 of the
 * operand's shape; the math ops take floats only; next_after's operands
 * share one type; each message names the op. */
static void expect_reject(const char *body, const char *needle)
{
    char text[4096];
    snprintf(text, sizeof text, "func.func @main(%%x: tensor<4xf32>, %%i: tensor<4xi32>, %%y: tensor<4xf64>) {\n%s\n"
             "  return\n}\n", body);
    expect_refused(text, needle);
}

static void test_verify(void **state)
{
    (void)state;
    expect_reject("  %r = chlo.is_inf %x : tensor<4xf32> -> tensor<4xf32>", "i1");
    expect_reject("  %r = chlo.asin %i : tensor<4xi32> -> tensor<4xi32>", "element type i32");
    expect_reject("  %r = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf64>", "chlo.lgamma");
    expect_reject("  %r = chlo.next_after %x, %y : tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>", "chlo.next_after");
    expect_reject("  %r = chlo.square %x : tensor<4xf32> -> tensor<5xf32>", "chlo.square");
}

/* The canonical printer keeps the chlo. names, and its output parses back
 * to the same text. */
static void test_print_roundtrip(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {\n"
        "  %a = \"chlo.acosh\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  %b = chlo.is_neg_inf %a : tensor<4xf32> -> tensor<4xi1>\n"
        "  %c = chlo.next_after %a, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n"
        "  return %a, %b, %c : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>\n}\n";
    plumb_buf b1;
    expect_print_fixpoint(src, &b1);
    assert_non_null(strstr(b1.data, "chlo.acosh"));
    assert_non_null(strstr(b1.data, "chlo.is_neg_inf"));
    assert_non_null(strstr(b1.data, "chlo.next_after"));
    plumb_buf_free(&b1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_trig),
        cmocka_unit_test(test_hyperbolic),
        cmocka_unit_test(test_erfc_gamma),
        cmocka_unit_test(test_square),
        cmocka_unit_test(test_is_inf),
        cmocka_unit_test(test_next_after),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_print_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
