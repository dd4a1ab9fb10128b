/* chlo.mulhi on the reference (ref/elementwise.c): the high half of the
 * double-width product, signed for signed types, unsigned for unsigned.
 *
 * Expected values are derived by hand (the products and their quotients by
 * 2^W, rounded toward -inf, are written out next to each case) or, for the
 * exhaustive 8-bit check, by floor division of the exact int product by 256
 * in plain C int arithmetic, which shares nothing with the kernel's shifts
 * and limb products. */
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

/* Runs chlo.mulhi of constants a and b (type T) in the form given by
 * `generic` and asserts the result equals the constant want bit for bit. */
static void expect_mulhi(const char *T, const char *a, const char *b, const char *want, bool generic)
{
    char text[8192], op[512];
    if (generic)
        snprintf(op, sizeof op, "  %%r = \"chlo.mulhi\"(%%a, %%b) : (%s, %s) -> %s", T, T, T);
    else
        snprintf(op, sizeof op, "  %%r = chlo.mulhi %%a, %%b : %s, %s -> %s", T, T, T);
    snprintf(text, sizeof text,
             "func.func @main() -> (%s, %s) {\n"
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%b = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n%s\n"
             "  return %%r, %%e : %s, %s\n}\n",
             T, T, a, T, b, T, want, T, op, T, T);
    expect_outputs_equal(text);
}

/* 8 and 16 bits: signs of the high half (a negative product rounds toward
 * -inf, so -1 * 1 = 0xFFFF has high byte -1), MIN * MIN and MIN * MAX, the
 * largest unsigned square. i8: 64*4 = 256 -> 1; -64*4 = -256 -> -1;
 * -64*-4 -> 1; -128*-128 = 16384 = 0x4000 -> 64; -128*127 = -16256 =
 * 0xC080 -> -64; -1*1 -> -1; 127*127 = 16129 = 0x3F01 -> 63; 3*-5 = -15 ->
 * -1; -1*-1 = 1 -> 0; 0*-128 -> 0. ui8: 255*255 = 65025 = 0xFE01 -> 254;
 * 240*16 = 0x0F00 -> 15; 128*2 -> 1; 255*1 -> 0. i16: 2^15 * 2^15 = 2^30
 * -> 2^14; -2^15 * 32767 = -1073709056, / 65536 = -16383.5 -> -16384;
 * 16384*8 = 2^17 -> 2, negated -> -2. ui16: 65535^2 = 0xFFFE0001 -> 65534;
 * 61440*16 = 0xF0000 -> 15. */
static void test_narrow(void **state)
{
    (void)state;
    expect_mulhi("tensor<10xi8>", "[64, -64, -64, -128, -128, -1, 127, 3, -1, 0]",
                 "[4, 4, -4, -128, 127, 1, 127, -5, -1, -128]", "[1, -1, 1, 64, -64, -1, 63, -1, 0, 0]", false);
    expect_mulhi("tensor<4xui8>", "[255, 240, 128, 255]", "[255, 16, 2, 1]", "[254, 15, 1, 0]", false);
    expect_mulhi("tensor<4xi16>", "[-32768, -32768, 16384, -16384]", "[-32768, 32767, 8, 8]",
                 "[16384, -16384, 2, -2]", true);
    expect_mulhi("tensor<2xui16>", "[65535, 61440]", "[65535, 16]", "[65534, 15]", true);
}

/* 32 and 64 bits. i32: (-2^31)^2 = 2^62 -> 2^30; -2^31 * (2^31 - 1) =
 * -(2^62 - 2^31), / 2^32 = -(2^30 - 1/2) -> -2^30; 2^28 * 16 = 2^32 -> 1,
 * negated -> -1; -1*1 -> -1. ui32: (2^32 - 1)^2 = 0xFFFFFFFE00000001 ->
 * 4294967294. i64: (-2^63)^2 = 2^126 -> 2^62; -2^63 * (2^63 - 1) ->
 * -(2^62 - 1/2) -> -2^62; (2^63 - 1)^2 = 2^126 - 2^64 + 1 -> 2^62 - 1;
 * (2^32 + 1)^2 = 2^64 + 2^33 + 1 -> 1 (carries between the 32-bit limbs);
 * -2^63 * -1 = 2^63 -> 0; -1*1 -> -1; 2^60 * 16 = 2^64 -> 1, negated -> -1;
 * 3 * -5 -> -1. ui64: (2^64 - 1)^2 = 2^128 - 2^65 + 1 -> 2^64 - 2;
 * 2^63 * (2^64 - 1) = 2^127 - 2^63 -> 2^63 - 1; 0xF000000000000000 * 16 ->
 * 15; 2^63 * 2 -> 1; (2^32 + 1) * (2^32 - 1) = 2^64 - 1 -> 0. */
static void test_wide(void **state)
{
    (void)state;
    expect_mulhi("tensor<5xi32>", "[-2147483648, -2147483648, 268435456, -268435456, -1]",
                 "[-2147483648, 2147483647, 16, 16, 1]", "[1073741824, -1073741824, 1, -1, -1]", false);
    expect_mulhi("tensor<1xui32>", "[4294967295]", "[4294967295]", "[4294967294]", false);
    expect_mulhi("tensor<9xi64>",
                 "[-9223372036854775808, -9223372036854775808, 9223372036854775807, 4294967297, "
                 "-9223372036854775808, -1, 1152921504606846976, -1152921504606846976, 3]",
                 "[-9223372036854775808, 9223372036854775807, 9223372036854775807, 4294967297, -1, 1, 16, 16, -5]",
                 "[4611686018427387904, -4611686018427387904, 4611686018427387903, 1, 0, -1, 1, -1, -1]", false);
    expect_mulhi("tensor<5xui64>",
                 "[18446744073709551615, 9223372036854775808, 17293822569102704640, 9223372036854775808, 4294967297]",
                 "[18446744073709551615, 18446744073709551615, 16, 2, 4294967295]",
                 "[18446744073709551614, 9223372036854775807, 15, 1, 0]", true);
}

/* floor(p / 256) for an int product p, by division (C rounds toward zero;
 * a negative inexact quotient is one more than the floor). */
static int floor_div256(int p)
{
    int q = p / 256;
    return (p % 256 != 0 && p < 0) ? q - 1 : q;
}

/* Every pair of i8 and of ui8 operands (65536 each) against floor_div256
 * of the exact product. */
static void test_exhaustive8(void **state)
{
    (void)state;
    for (int sg = 0; sg < 2; sg++) {
        plumb_dtype t = sg ? PLUMB_I8 : PLUMB_UI8;
        const char *T = sg ? "tensor<65536xi8>" : "tensor<65536xui8>";
        char text[512];
        snprintf(text, sizeof text,
                 "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                 "  %%r = chlo.mulhi %%a, %%b : %s, %s -> %s\n  return %%r : %s\n}\n", T, T, T, T, T, T, T);
        plumb_diag d = {0};
        ir_module *m = ir_parse(text, strlen(text), "t.mlir", NULL, &d);
        if (!m || !ir_verify(m, NULL, &d))
            fail_msg("%s\n%s", d.msg, text);
        int64_t dims[1] = {65536};
        plumb_tensor *in[2] = {plumb_tensor_new(t, 1, dims, 0, &d), plumb_tensor_new(t, 1, dims, 0, &d)};
        assert_non_null(in[0]);
        assert_non_null(in[1]);
        for (uint64_t i = 0; i < 65536; i++) {
            plumb_store_bits(t, in[0]->data, i, i & 0xFF);
            plumb_store_bits(t, in[1]->data, i, i >> 8);
        }
        plumb_ref_result res = {0};
        if (!plumb_ref_run(m, NULL, in, 2, NULL, &res, &d))
            fail_msg("run: %s", d.msg);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < 65536; i++) {
            int x = (int)(i & 0xFF), y = (int)(i >> 8);
            if (sg) {
                x = x >= 128 ? x - 256 : x;
                y = y >= 128 ? y - 256 : y;
            }
            uint64_t want = (uint64_t)floor_div256(x * y) & 0xFF;
            uint64_t got = plumb_load_bits(t, res.outputs[0]->data, i);
            if (got != want && bad++ < 8)
                print_error("%s: %d * %d: got %llu, want %llu\n", sg ? "i8" : "ui8", x, y,
                            (unsigned long long)got, (unsigned long long)want);
        }
        assert_int_equal(bad, 0);
        plumb_ref_result_free(&res);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        ir_module_free(m);
    }
}

/* The verifier: floats and i1 are not integers mulhi takes, the operands
 * share one type, and each message names the op. */
static void test_verify(void **state)
{
    (void)state;
    static const char *bad[][2] = {
        {"  %r = chlo.mulhi %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>", "f32"},
        {"  %r = chlo.mulhi %p, %p : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>", "i1"},
        {"  %r = chlo.mulhi %i, %j : tensor<4xi32>, tensor<4xi64> -> tensor<4xi32>", "chlo.mulhi"},
        {"  %r = chlo.mulhi %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi64>", "chlo.mulhi"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "func.func @main(%%x: tensor<4xf32>, %%p: tensor<4xi1>, %%i: tensor<4xi32>, %%j: tensor<4xi64>) {\n"
                 "%s\n  return\n}\n", bad[k][0]);
        expect_refused(text, bad[k][1]);
    }
}

/* The canonical printer keeps the name and its output parses back to the
 * same text. */
static void test_print_roundtrip(void **state)
{
    (void)state;
    const char *src = "func.func @main(%x: tensor<4xi16>, %y: tensor<4xi16>) -> tensor<4xi16> {\n"
                      "  %a = \"chlo.mulhi\"(%x, %y) : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>\n"
                      "  return %a : tensor<4xi16>\n}\n";
    plumb_buf b1;
    expect_print_fixpoint(src, &b1);
    assert_non_null(strstr(b1.data, "chlo.mulhi"));
    plumb_buf_free(&b1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow),
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_exhaustive8),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_print_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
