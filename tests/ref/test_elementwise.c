/* Tests of the elementwise reference kernels (ref/elementwise.c), run
 * through the public API: each case is a tiny StableHLO program whose main
 * returns the op's result and the expected value (a constant written by
 * hand from the StableHLO spec, IEEE 754-2019 or exact arithmetic); the two
 * must be bitwise equal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

/* Runs `body` (ops computing %r, with the expected constant %e) in
 * main() -> (T, T) and asserts bitwise equality of the two results. */
static void expect_prog(const char *type, const char *body)
{
    char text[8192];
    snprintf(text, sizeof text,
             "func.func @main() -> (%s, %s) {\n%s\n  return %%r, %%e : %s, %s\n}\n",
             type, type, body, type, type);
    plumb_diag d = {0};
    ir_module *m = ir_parse(text, strlen(text), "t.mlir", NULL, &d);
    if (!m)
        fail_msg("parse: %s\n%s", d.msg, text);
    if (!ir_verify(m, NULL, &d))
        fail_msg("verify: %s\n%s", d.msg, text);
    plumb_ref_result res = {0};
    if (!plumb_ref_run(m, NULL, NULL, 0, NULL, &res, &d))
        fail_msg("run: %s\n%s", d.msg, text);
    assert_int_equal(res.n_outputs, 2);
    const plumb_tensor *got = res.outputs[0], *want = res.outputs[1];
    bool eq = plumb_tensor_equal(got, want);
    if (!eq) {
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_dense_print(&b, got, true);
        plumb_buf_puts(&b, " != ");
        plumb_dense_print(&b, want, true);
        print_error("%s\n%s\n", b.data, text);
        plumb_buf_free(&b);
    }
    plumb_ref_result_free(&res);
    ir_module_free(m);
    assert_true(eq);
}

/* Binary op on two constants of type T. */
static void bin(const char *op, const char *T, const char *a, const char *b, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%b = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = stablehlo.%s %%a, %%b : %s",
             a, T, b, T, want, T, op, T);
    expect_prog(T, body);
}

static void un(const char *op, const char *T, const char *a, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = stablehlo.%s %%a : %s",
             a, T, want, T, op, T);
    expect_prog(T, body);
}

/* Integer arithmetic wraps modulo 2^w (two's complement). */
static void test_int_wrap(void **state)
{
    (void)state;
    bin("add", "tensor<3xi8>", "[127, -128, 100]", "[1, -1, 100]", "[-128, 127, -56]");
    bin("subtract", "tensor<2xui8>", "[0, 5]", "[1, 10]", "[255, 251]");
    bin("multiply", "tensor<2xi16>", "[256, -32768]", "[256, -1]", "[0, -32768]");
    bin("multiply", "tensor<1xi64>", "[4611686018427387904]", "[4]", "[0]");
    un("negate", "tensor<3xi32>", "[-2147483648, 5, 0]", "[-2147483648, -5, 0]");
    un("negate", "tensor<2xui32>", "[1, 0]", "[4294967295, 0]");
    un("abs", "tensor<3xi8>", "[-128, -5, 7]", "[-128, 5, 7]");
    un("sign", "tensor<3xi64>", "[-9, 0, 9]", "[-1, 0, 1]");
}

/* Integer division: truncation, x/0 = -1 (all ones), INT_MIN/-1 = INT_MIN;
 * remainder: sign of the dividend, x%0 = x, INT_MIN%-1 = 0. */
static void test_int_divide(void **state)
{
    (void)state;
    bin("divide", "tensor<6xi8>", "[7, -7, 7, -7, 5, -128]", "[2, 2, -2, -2, 0, -1]", "[3, -3, -3, 3, -1, -128]");
    bin("divide", "tensor<2xui16>", "[65535, 9]", "[0, 4]", "[65535, 2]");
    bin("divide", "tensor<1xi64>", "[-9223372036854775808]", "[-1]", "[-9223372036854775808]");
    bin("remainder", "tensor<6xi8>", "[7, -7, 7, -7, 5, -128]", "[2, 2, -2, -2, 0, -1]", "[1, -1, 1, -1, 5, 0]");
    bin("remainder", "tensor<2xui32>", "[7, 9]", "[0, 4]", "[7, 1]");
}

/* Integer power: repeated multiplication modulo 2^w; negative exponents
 * truncate 1/x^n toward zero. */
static void test_int_power(void **state)
{
    (void)state;
    bin("power", "tensor<6xi32>", "[2, 3, 0, -2, 7, 2]", "[10, 0, 0, 3, 1, 31]",
        "[1024, 1, 1, -8, 7, -2147483648]");
    bin("power", "tensor<5xi8>", "[1, -1, -1, 2, 0]", "[-3, -3, -2, -1, -1]", "[1, -1, 1, 0, 0]");
    bin("power", "tensor<1xui8>", "[3]", "[5]", "[243]");
    bin("power", "tensor<1xui8>", "[3]", "[6]", "[217]");   /* 729 mod 256 */
}

/* Shifts: amounts >= width or negative give 0 (left, logical) or the sign
 * fill (arithmetic). */
static void test_shifts(void **state)
{
    (void)state;
    bin("shift_left", "tensor<5xi8>", "[1, 1, 1, -1, 3]", "[7, 8, -1, 1, 0]", "[-128, 0, 0, -2, 3]");
    bin("shift_right_logical", "tensor<4xi8>", "[-128, -1, 64, 5]", "[7, 8, 6, -3]", "[1, 0, 1, 0]");
    bin("shift_right_arithmetic", "tensor<5xi8>", "[-128, -128, 64, 64, -1]", "[7, 8, 6, 100, -1]",
        "[-1, -1, 1, 0, -1]");
    bin("shift_right_arithmetic", "tensor<2xui8>", "[128, 128]", "[1, 8]", "[192, 255]");
    bin("shift_left", "tensor<2xui64>", "[1, 1]", "[63, 64]", "[9223372036854775808, 0]");
}

/* Bit ops, popcnt, count_leading_zeros, not; booleans: add is or,
 * multiply is and, maximum is or, minimum is and. */
static void test_bits_and_bools(void **state)
{
    (void)state;
    un("popcnt", "tensor<3xi8>", "[-1, 0, 6]", "[8, 0, 2]");
    un("count_leading_zeros", "tensor<4xi16>", "[0, 1, -1, 256]", "[16, 15, 0, 7]");
    un("count_leading_zeros", "tensor<2xui64>", "[0, 1]", "[64, 63]");
    un("not", "tensor<2xi8>", "[0, 5]", "[-1, -6]");
    un("not", "tensor<2xi1>", "[true, false]", "[false, true]");
    bin("and", "tensor<2xui8>", "[12, 255]", "[10, 1]", "[8, 1]");
    bin("or", "tensor<2xi16>", "[12, -32768]", "[10, 1]", "[14, -32767]");
    bin("xor", "tensor<2xi1>", "[true, true]", "[true, false]", "[false, true]");
    bin("add", "tensor<4xi1>", "[false, false, true, true]", "[false, true, false, true]", "[false, true, true, true]");
    bin("multiply", "tensor<4xi1>", "[false, false, true, true]", "[false, true, false, true]", "[false, false, false, true]");
    bin("maximum", "tensor<2xi1>", "[false, true]", "[true, false]", "[true, true]");
    bin("minimum", "tensor<2xi1>", "[false, true]", "[true, true]", "[false, true]");
    bin("maximum", "tensor<2xi8>", "[-1, 5]", "[1, -5]", "[1, 5]");
    bin("maximum", "tensor<2xui8>", "[255, 5]", "[1, 6]", "[255, 6]");
}

/* IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0. */
static void test_float_minmax(void **state)
{
    (void)state;
    bin("maximum", "tensor<4xf32>", "[0.0, -0.0, 0x7FC00000, 1.0]", "[-0.0, 0.0, 1.0, 0x7FC00000]",
        "[0.0, 0.0, 0x7FC00000, 0x7FC00000]");
    bin("minimum", "tensor<4xf32>", "[0.0, -0.0, 0x7FC00000, -1.0]", "[-0.0, 0.0, 1.0, 0x7FC00000]",
        "[-0.0, -0.0, 0x7FC00000, 0x7FC00000]");
    bin("maximum", "tensor<2xbf16>", "[-3.0, 0xFF80]", "[-2.0, 0xFF80]", "[-2.0, 0xFF80]");
    /* clamp(min, x, max) */
    expect_prog("tensor<4xf16>",
                "  %lo = stablehlo.constant dense<-1.0> : tensor<f16>\n"
                "  %hi = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf16>\n"
                "  %x = stablehlo.constant dense<[-5.0, 0.5, 7.0, 0x7E00]> : tensor<4xf16>\n"
                "  %e = stablehlo.constant dense<[-1.0, 0.5, 1.0, 0x7E00]> : tensor<4xf16>\n"
                "  %r = stablehlo.clamp %lo, %x, %hi : (tensor<f16>, tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>");
    expect_prog("tensor<3xi32>",
                "  %lo = stablehlo.constant dense<[0, 0, 5]> : tensor<3xi32>\n"
                "  %hi = stablehlo.constant dense<10> : tensor<i32>\n"
                "  %x = stablehlo.constant dense<[-5, 11, 3]> : tensor<3xi32>\n"
                "  %e = stablehlo.constant dense<[0, 10, 5]> : tensor<3xi32>\n"
                "  %r = stablehlo.clamp %lo, %x, %hi : (tensor<3xi32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>");
}

static void cmp(const char *dir, const char *ctype, const char *T, const char *TB, const char *a,
                const char *b, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%b = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = stablehlo.compare %s, %%a, %%b%s%s : (%s, %s) -> %s",
             a, T, b, T, want, TB, dir, ctype[0] ? ", " : "", ctype, T, T, TB);
    expect_prog(TB, body);
}

/* compare: every direction on FLOAT (NaN unordered, -0 == +0), TOTALORDER
 * (-NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN), SIGNED, UNSIGNED, and the
 * default type taken from the element type. */
static void test_compare(void **state)
{
    (void)state;
    const char *F = "tensor<4xf32>", *B = "tensor<4xi1>";
    const char *a = "[0.0, 0x7FC00000, 1.0, -1.0]", *b = "[-0.0, 0x7FC00000, 2.0, -1.0]";
    cmp("EQ", "FLOAT", F, B, a, b, "[true, false, false, true]");
    cmp("NE", "FLOAT", F, B, a, b, "[false, true, true, false]");
    cmp("LT", "FLOAT", F, B, a, b, "[false, false, true, false]");
    cmp("LE", "FLOAT", F, B, a, b, "[true, false, true, true]");
    cmp("GT", "FLOAT", F, B, a, b, "[false, false, false, false]");
    cmp("GE", "FLOAT", F, B, a, b, "[true, false, false, true]");
    cmp("GE", "", F, B, a, b, "[true, false, false, true]");
    cmp("EQ", "TOTALORDER", F, B, a, b, "[false, true, false, true]");
    cmp("LT", "TOTALORDER", F, B, a, b, "[false, false, true, false]");
    cmp("GT", "TOTALORDER", F, B, a, b, "[true, false, false, false]");
    /* ordering chain: each element less than the next */
    const char *T8 = "tensor<8xf64>", *B8 = "tensor<8xi1>";
    cmp("LT", "TOTALORDER", T8, B8,
        "[0xFFF8000000000000, 0xFFF0000000000000, -1.0, -0.0, 0.0, 1.0, 0x7FF0000000000000, 0x7FF8000000000000]",
        "[0xFFF0000000000000, -1.0, -0.0, 0.0, 1.0, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF8000000000001]",
        "[true, true, true, true, true, true, true, true]");
    cmp("LT", "SIGNED", "tensor<2xi8>", "tensor<2xi1>", "[-1, 1]", "[1, -1]", "[true, false]");
    cmp("LT", "UNSIGNED", "tensor<2xui8>", "tensor<2xi1>", "[255, 1]", "[1, 255]", "[false, true]");
    cmp("LT", "", "tensor<2xi8>", "tensor<2xi1>", "[-1, 1]", "[1, -1]", "[true, false]");
    cmp("GT", "UNSIGNED", "tensor<2xi1>", "tensor<2xi1>", "[true, false]", "[false, true]", "[true, false]");
}

static void conv(const char *src, const char *dst, const char *a, const char *want)
{
    char body[4096];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = stablehlo.convert %%a : (%s) -> %s",
             a, src, want, dst, src, dst);
    expect_prog(dst, body);
}

/* convert: float -> int truncates, saturates, NaN -> 0; int -> float rounds
 * once (2^53 + 1 and 2^24 + 1 ties; i64 -> f16 overflow); float -> float
 * rounds once; to i1 is x != 0 (NaN -> true); int -> int wraps. */
static void test_convert(void **state)
{
    (void)state;
    conv("tensor<7xf32>", "tensor<7xi8>", "[1.9, -1.9, 300.0, -300.0, 0x7FC00000, 0x7F800000, -0.5]",
         "[1, -1, 127, -128, 0, 127, 0]");
    conv("tensor<4xf64>", "tensor<4xui8>", "[-1.0, -0.99, 255.9, 256.0]", "[0, 0, 255, 255]");
    conv("tensor<3xf64>", "tensor<3xi64>", "[9.3e18, -9.3e18, -9.2233720368547758e18]",
         "[9223372036854775807, -9223372036854775808, -9223372036854775808]");
    conv("tensor<2xf32>", "tensor<2xui64>", "[1.8446744e19, 0x7FC00000]", "[18446744073709551615, 0]");
    /* 2^53 + 1 -> f64: tie between 2^53 and 2^53 + 2, even -> 2^53 */
    conv("tensor<2xi64>", "tensor<2xf64>", "[9007199254740993, 9007199254740995]",
         "[9007199254740992.0, 9007199254740996.0]");
    /* 2^24 + 1 -> f32: tie -> 2^24; 2^53 + 1 + 2^30 -> f32 rounds to 2^53 (ulp 2^30 at 2^53: 2^53 + 2^30 + 1 is
     * above the tie 2^53 + 2^29 ... -> 2^53 + 2^30) */
    conv("tensor<2xi64>", "tensor<2xf32>", "[16777217, 9007200328482817]", "[16777216.0, 9007200328482816.0]");
    /* i64 -> f16: 2049 ties to 2048; 2051 ties to 2052; 65520 -> inf (the
     * overflow threshold); 2^53 + 1 -> inf; 2^11 + 1 + 2^40? only exact rounding:
     * 2^40 + 2^29 + 1 -> just above the f16 tie at 2^40 + 2^29 -> 2^40 + 2^30 */
    conv("tensor<5xi64>", "tensor<5xf16>", "[2049, 2051, 65519, 65520, -65520]",
         "[2048.0, 2052.0, 65504.0, 0x7C00, 0xFC00]");
    conv("tensor<2xui64>", "tensor<2xbf16>", "[18446744073709551615, 257]", "[1.8446744073709552e19, 256.0]");
    /* the sticky bit matters: 2^60 + 2^52 is a bf16 tie (ulp 2^53), +1 breaks it upwards */
    conv("tensor<2xui64>", "tensor<2xbf16>", "[1157425104234217472, 1157425104234217473]",
         "[1152921504606846976.0, 1161928703861587968.0]");
    /* float -> float: f64 -> f16 once (a value just above an f16 tie that
     * f32 would round onto the tie), f16 -> bf16, subnormals */
    conv("tensor<2xf64>", "tensor<2xf16>", "[1.00048828125000001, 5.960464477539063e-08]", "[1.0, 5.960464477539063e-08]");
    conv("tensor<1xf64>", "tensor<1xf16>", "[0x3FF0020000000001]", "[1.0009765625]");
    conv("tensor<2xf16>", "tensor<2xbf16>", "[0x0001, 65504.0]", "[5.9604644775390625e-08, 65536.0]");
    conv("tensor<5xf32>", "tensor<5xi1>", "[0.0, -0.0, 0x7FC00000, 1e-45, -2.0]", "[false, false, true, true, true]");
    conv("tensor<2xi1>", "tensor<2xf32>", "[true, false]", "[1.0, 0.0]");
    conv("tensor<3xi32>", "tensor<3xi8>", "[300, -129, 127]", "[44, 127, 127]");
    conv("tensor<2xi8>", "tensor<2xui32>", "[-1, 5]", "[4294967295, 5]");
    conv("tensor<2xui8>", "tensor<2xi1>", "[0, 2]", "[false, true]");
}

/* Float unary ops that are exact: floor, ceil, both roundings, abs, negate,
 * sign, is_finite; signed zeros and NaN kept. */
static void test_float_exact_unary(void **state)
{
    (void)state;
    const char *T = "tensor<7xf32>";
    const char *x = "[-0.5, 0.5, 2.5, -2.5, -0.0, 0x7F800000, 1.5]";
    un("floor", T, x, "[-1.0, 0.0, 2.0, -3.0, -0.0, 0x7F800000, 1.0]");
    un("ceil", T, x, "[-0.0, 1.0, 3.0, -2.0, -0.0, 0x7F800000, 2.0]");
    un("round_nearest_even", T, x, "[-0.0, 0.0, 2.0, -2.0, -0.0, 0x7F800000, 2.0]");
    un("round_nearest_afz", T, x, "[-1.0, 1.0, 3.0, -3.0, -0.0, 0x7F800000, 2.0]");
    un("round_nearest_even", "tensor<2xf64>", "[4503599627370497.0, -0.49999999999999994]",
       "[4503599627370497.0, -0.0]");
    un("abs", "tensor<3xf16>", "[-0.0, 0xFE01, -2.0]", "[0.0, 0x7E01, 2.0]");
    un("negate", "tensor<2xbf16>", "[0.0, 0x7FC1]", "[-0.0, 0xFFC1]");
    un("sign", "tensor<5xf32>", "[-0.0, 0.0, -3.0, 0x7F800000, 1e-45]", "[-0.0, 0.0, -1.0, 1.0, 1.0]");
    expect_prog("tensor<4xi1>",
                "  %a = stablehlo.constant dense<[1.0, 0x7C00, 0x7E00, 0x0001]> : tensor<4xf16>\n"
                "  %e = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>\n"
                "  %r = stablehlo.is_finite %a : (tensor<4xf16>) -> tensor<4xi1>");
}

/* Correctly rounded float arithmetic and functions through the kernels:
 * bf16 sums that need more than a double, f16 division, sqrt(-0), log(0). */
static void test_float_arith(void **state)
{
    (void)state;
    bin("add", "tensor<2xbf16>", "[1.0, 1.0e30]", "[0.00390625, 1.0e-30]", "[1.0, 1.0e30]");
    bin("divide", "tensor<3xf16>", "[1.0, 1.0, -0.0]", "[3.0, 0.0, 5.0]", "[0.333251953125, 0x7C00, -0.0]");
    bin("remainder", "tensor<3xf32>", "[-7.0, 7.0, 5.5]", "[3.0, -3.0, 0x7F800000]", "[-1.0, 1.0, 5.5]");
    bin("power", "tensor<4xf32>", "[2.0, 0x7FC00000, 1.0, -8.0]", "[10.0, 0.0, 0x7FC00000, 0.5]",
        "[1024.0, 1.0, 1.0, 0x7FC00000]");
    un("sqrt", "tensor<2xf64>", "[-0.0, 4.0]", "[-0.0, 2.0]");
    un("log", "tensor<3xf16>", "[0.0, -1.0, 1.0]", "[0xFC00, 0x7E00, 0.0]");
    un("tanh", "tensor<1xbf16>", "[-0.0]", "[-0.0]");
    un("exponential", "tensor<2xf32>", "[0xFF800000, 0.0]", "[0.0, 1.0]");
    un("logistic", "tensor<1xf64>", "[0.0]", "[0.5]");
    un("rsqrt", "tensor<2xf32>", "[-0.0, 0.25]", "[0xFF800000, 2.0]");
    bin("atan2", "tensor<2xf64>", "[0.0, -0.0]", "[-0.0, 1.0]", "[3.141592653589793, -0.0]");
}

/* reduce_precision as XLA: mantissa rounding to nearest even, overflow to
 * inf, reduced-format underflow to zero, NaN kept. */
static void test_reduce_precision(void **state)
{
    (void)state;
    expect_prog("tensor<6xf32>",
                "  %a = stablehlo.constant dense<[1.125, 1.375, 65536.0, 1.0e-5, 0x7FC00001, -1.0e10]> : tensor<6xf32>\n"
                "  %e = stablehlo.constant dense<[1.0, 1.5, 0x7F800000, 0.0, 0x7FC00001, 0xFF800000]> : tensor<6xf32>\n"
                "  %r = stablehlo.reduce_precision %a, format = e5m2 : tensor<6xf32>");
    /* e5m2: largest finite 57344 = 1.75 * 2^15; 61440 rounds to 2^16 -> inf;
     * smallest normal 2^-14 kept; 2^-15 (a subnormal of e5m2) flushed */
    expect_prog("tensor<4xf32>",
                "  %a = stablehlo.constant dense<[57344.0, 61440.0, 6.103515625e-05, 3.0517578125e-05]> : tensor<4xf32>\n"
                "  %e = stablehlo.constant dense<[57344.0, 0x7F800000, 6.103515625e-05, 0.0]> : tensor<4xf32>\n"
                "  %r = stablehlo.reduce_precision %a, format = e5m2 : tensor<4xf32>");
}

/* select picks bitwise (NaN payloads kept) with a scalar or per-element
 * predicate; empty tensors work. */
static void test_select_and_empty(void **state)
{
    (void)state;
    expect_prog("tensor<2xf32>",
                "  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
                "  %a = stablehlo.constant dense<[0x7FC00123, 1.0]> : tensor<2xf32>\n"
                "  %b = stablehlo.constant dense<[2.0, 0xFFC00456]> : tensor<2xf32>\n"
                "  %e = stablehlo.constant dense<[0x7FC00123, 0xFFC00456]> : tensor<2xf32>\n"
                "  %r = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>");
    expect_prog("tensor<2xi8>",
                "  %p = stablehlo.constant dense<false> : tensor<i1>\n"
                "  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi8>\n"
                "  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi8>\n"
                "  %e = stablehlo.constant dense<[3, 4]> : tensor<2xi8>\n"
                "  %r = stablehlo.select %p, %a, %b : tensor<i1>, tensor<2xi8>");
    bin("divide", "tensor<0xi32>", "[]", "[]", "[]");
    un("sine", "tensor<0x3xf32>", "[]", "[]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_wrap),
        cmocka_unit_test(test_int_divide),
        cmocka_unit_test(test_int_power),
        cmocka_unit_test(test_shifts),
        cmocka_unit_test(test_bits_and_bools),
        cmocka_unit_test(test_float_minmax),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_float_exact_unary),
        cmocka_unit_test(test_float_arith),
        cmocka_unit_test(test_reduce_precision),
        cmocka_unit_test(test_select_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
