/* cli/filecheck.c: FileCheck's CHECK/NEXT/SAME/NOT/EMPTY matching, the
 * interpreter's result print format, RUN lines and --args lists. Expected
 * prints come from StableHLO's tests/interpret/printing.mlir CHECK lines or
 * are derived by hand from each value's exact decimal expansion (written
 * next to it) and MLIR's float printing rule; FileCheck verdicts follow
 * LLVM's documented semantics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../cli/filecheck.c"

static char why[600];

static cli_fc_verdict fc(const char *checks, const char *prefix, const char *input)
{
    return cli_filecheck(checks, strlen(checks), prefix, input, strlen(input), why, sizeof why);
}

/* A plain CHECK is a substring search; a missing pattern fails naming its line. */
static void test_plain(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK: b c\n", "CHECK", "a b c d\n"), CLI_FC_PASS);
    assert_int_equal(fc("x\n// CHECK: zz\n", "CHECK", "a b c d\n"), CLI_FC_FAIL);
    assert_non_null(strstr(why, "line 2"));
    assert_non_null(strstr(why, "'zz' not found"));
}

/* Matches go forward: a pattern seen only before the previous match fails. */
static void test_order(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK: one\n// CHECK: two\n", "CHECK", "one\ntwo\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: two\n// CHECK: one\n", "CHECK", "one\ntwo\n"), CLI_FC_FAIL);
}

/* NEXT must be on the line right after the previous match, no sooner or later. */
static void test_next(void **state)
{
    (void)state;
    const char *in = "tensor<2xi32> {\n  [3, 3]\n}\n";
    assert_int_equal(fc("// CHECK: tensor<2xi32> {\n// CHECK-NEXT: [3, 3]\n// CHECK-NEXT: }\n", "CHECK", in),
                     CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: tensor<2xi32> {\n// CHECK-NEXT: }\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "not on the line after"));
    assert_int_equal(fc("// CHECK: tensor\n// CHECK-NEXT: {\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "on the line of the previous match"));
    assert_int_equal(fc("// CHECK-NEXT: tensor\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "without a CHECK: before it"));
}

/* SAME stays on the previous match's line. */
static void test_same(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK: a\n// CHECK-SAME: c\n", "CHECK", "a b c\nd\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: a\n// CHECK-SAME: d\n", "CHECK", "a b c\nd\n"), CLI_FC_FAIL);
}

/* NOT forbids its pattern between the matches around it, or after the last. */
static void test_not(void **state)
{
    (void)state;
    const char *in = "a\nbad\nz\n";
    assert_int_equal(fc("// CHECK: a\n// CHECK-NOT: bad\n// CHECK: z\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "CHECK-NOT: 'bad' found"));
    assert_int_equal(fc("// CHECK: bad\n// CHECK-NOT: bad\n// CHECK: z\n", "CHECK", in), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: z\n// CHECK-NOT: bad\n", "CHECK", in), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: a\n// CHECK-NOT: z\n", "CHECK", in), CLI_FC_FAIL);
    assert_int_equal(fc("// CHECK-NOT: zz\n", "CHECK", in), CLI_FC_PASS);
}

/* EMPTY asks for an empty next line. */
static void test_empty(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK: a\n// CHECK-EMPTY:\n// CHECK-NEXT: b\n", "CHECK", "a\n\nb\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: a\n// CHECK-EMPTY:\n", "CHECK", "a\nb\n"), CLI_FC_FAIL);
}

/* Runs of blanks in pattern and input are one blank; edges are trimmed. */
static void test_blanks(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK:    a   b   \n", "CHECK", "x a\t\t b\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK: ab\n", "CHECK", "a b\n"), CLI_FC_FAIL);
}

/* A prefix counts only as a whole word followed by a known suffix and ':'. */
static void test_prefix_words(void **state)
{
    (void)state;
    const char *f = "// CHECK-ERROR-NOT-ARRAY: expected array\n// XCHECK: nope\n";
    assert_int_equal(fc(f, "CHECK", "anything\n"), CLI_FC_NO_CHECKS);
    assert_int_equal(fc(f, "CHECK-ERROR-NOT-ARRAY", "an expected array here\n"), CLI_FC_PASS);
    assert_int_equal(fc(f, "CHECK-ERROR-NOT-ARRAY", "other\n"), CLI_FC_FAIL);
}

/* What plumb does not check is reported, never passed: regex, variables, DAG. */
static void test_unsupported(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK: {{[0-9]+}}\n", "CHECK", "12\n"), CLI_FC_UNSUPPORTED);
    assert_non_null(strstr(why, "unsupported: FileCheck regex on line 1"));
    assert_int_equal(fc("// CHECK: [[X:.*]]\n", "CHECK", "12\n"), CLI_FC_UNSUPPORTED);
    assert_int_equal(fc("// CHECK-DAG: f\n", "CHECK", "f\n"), CLI_FC_UNSUPPORTED);
}

/* CHECK-LABEL as LLVM documents it: labels match first, in order, and cut
 * the output into blocks; the other directives match inside the block of
 * the labels around them. Each verdict is the documented rule applied by
 * hand to a few lines. */
static void test_label(void **state)
{
    (void)state;
    assert_int_equal(fc("// CHECK-LABEL: fa\n", "CHECK", "fa\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK-LABEL: fa\n", "CHECK", "fb\n"), CLI_FC_FAIL);
    assert_non_null(strstr(why, "line 1: CHECK-LABEL: 'fa' not found"));
    /* '7' is in the output, but only in fb's block: the CHECK between the
     * labels fails; as a plain CHECK pair (no labels) it would pass */
    const char *in = "fa\n1\nfb\n7\n";
    assert_int_equal(fc("// CHECK-LABEL: fa\n// CHECK: 7\n// CHECK-LABEL: fb\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "line 2: CHECK: '7' not found"));
    assert_int_equal(fc("// CHECK: fa\n// CHECK: 7\n// CHECK: fb\n", "CHECK", "fa\n7\nfb\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK-LABEL: fa\n// CHECK-NEXT: 1\n// CHECK-LABEL: fb\n// CHECK-NEXT: 7\n", "CHECK", in),
                     CLI_FC_PASS);
    /* NEXT after a label is the line after the label's match */
    assert_int_equal(fc("// CHECK-LABEL: fa\n// CHECK-NEXT: 1\n", "CHECK", "fa\n\n1\n"), CLI_FC_FAIL);
    /* labels are found in their order */
    assert_int_equal(fc("// CHECK-LABEL: fb\n// CHECK-LABEL: fa\n", "CHECK", "fa\nfb\n"), CLI_FC_FAIL);
    /* NOT is confined to its block too */
    assert_int_equal(fc("// CHECK-LABEL: fa\n// CHECK-NOT: bad\n// CHECK-LABEL: fb\n", "CHECK", "fa\nok\nfb\nbad\n"),
                     CLI_FC_PASS);
    assert_int_equal(fc("// CHECK-LABEL: fa\n// CHECK-NOT: bad\n// CHECK-LABEL: fb\n", "CHECK", "fa\nbad\nfb\n"),
                     CLI_FC_FAIL);
    assert_int_equal(fc("// CHECK-LABEL{LITERAL}: [[f]]\n", "CHECK", "[[f]]\n"), CLI_FC_PASS);
}

/* {LITERAL} after a directive's kind: the pattern is matched as written
 * ([[ and {{ included), on every kind, and another prefix's {LITERAL}
 * line is no directive of this one. */
static void test_literal(void **state)
{
    (void)state;
    const char *in = "tensor<4xcomplex<f32>> {\n  [[3.140000e+00, 1.000000e+00]]\n}\n";
    assert_int_equal(fc("// CHECK: tensor<4xcomplex<f32>> {\n// CHECK-NEXT{LITERAL}: [[3.140000e+00, 1.000000e+00]]\n"
                        "// CHECK-NEXT: }\n", "CHECK", in),
                     CLI_FC_PASS);
    /* the same pattern one line too far: NEXT still holds with the modifier */
    assert_int_equal(fc("// CHECK: tensor\n// CHECK-NEXT: [[\n", "CHECK", in), CLI_FC_UNSUPPORTED);
    assert_int_equal(fc("// CHECK: {\n// CHECK-NEXT{LITERAL}: }\n", "CHECK", in), CLI_FC_FAIL);
    assert_non_null(strstr(why, "line 2: CHECK-NEXT: '}' is not on the line after"));
    assert_int_equal(fc("// CHECK{LITERAL}: {{x}}\n", "CHECK", "a {{x}} b\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK{LITERAL}: {{x}}\n", "CHECK", "a x b\n"), CLI_FC_FAIL);
    assert_int_equal(fc("// CHECK-NOT{LITERAL}: [[1]]\n// CHECK: b\n", "CHECK", "[[1]] b\n"), CLI_FC_FAIL);
    /* CHECK-DENSE{LITERAL}: belongs to prefix CHECK-DENSE only */
    assert_int_equal(fc("// CHECK-DENSE{LITERAL}: [[9]]\n// CHECK: a\n", "CHECK", "a\n"), CLI_FC_PASS);
    assert_int_equal(fc("// CHECK-DENSE{LITERAL}: [[9]]\n", "CHECK-DENSE", "[[9]]\n"), CLI_FC_PASS);
}

static plumb_tensor *mk(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

static void expect_legacy(const plumb_tensor *t, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    cli_interp_print_legacy(&b, t);
    assert_false(b.failed);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

static void expect_print(const plumb_tensor *t, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    cli_interp_print(&b, t);
    assert_false(b.failed);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

/* stablehlo-interpreter's format (the older interpreter tests' CHECK lines,
 * interpret_minimum.mlir): the type and " {", then each element on its own
 * line with its type, complex parts typed too. The digits are worked out
 * by hand: 2pi in f32 (0x40C90FDB) needs 9 digits to read back, 1/4 takes
 * the 6-digit form, a NaN prints its bits. */
static void test_print_legacy(void **state)
{
    (void)state;
    int64_t d2 = 2, d3 = 3;
    plumb_tensor *t = mk(PLUMB_I8, 1, &d2);
    memcpy(t->data, (int8_t[]){-128, 7}, 2);
    expect_legacy(t, "tensor<2xi8> {\n  -128 : i8\n  7 : i8");
    plumb_tensor_free(t);

    t = mk(PLUMB_UI64, 1, &d2);
    memcpy(t->data, (uint64_t[]){UINT64_MAX, 0}, 16);
    expect_legacy(t, "tensor<2xui64> {\n  18446744073709551615 : ui64\n  0 : ui64");
    plumb_tensor_free(t);

    t = mk(PLUMB_F32, 1, &d3);
    memcpy(t->data, (uint32_t[]){0x40C90FDBu, 0x3E800000u, 0x7FC00000u}, 12);
    expect_legacy(t, "tensor<3xf32> {\n  6.28318548 : f32\n  2.500000e-01 : f32\n  0x7FC00000 : f32");
    plumb_tensor_free(t);

    t = mk(PLUMB_I1, 1, &d2);
    memcpy(t->data, (uint8_t[]){1, 0}, 2);
    expect_legacy(t, "tensor<2xi1> {\n  true\n  false");
    plumb_tensor_free(t);

    t = mk(PLUMB_C64, 0, NULL);
    memcpy(t->data, (float[]){3.0f, 5.0f}, 8);
    expect_legacy(t, "tensor<complex<f32>> {\n  [3.000000e+00 : f32, 5.000000e+00 : f32]");
    plumb_tensor_free(t);

    t = mk(PLUMB_C128, 1, &d2);
    memcpy(t->data, (double[]){3.0, 5.0, 15.0, -0.0}, 32);
    expect_legacy(t, "tensor<2xcomplex<f64>> {\n  [3.000000e+00 : f64, 5.000000e+00 : f64]\n  [1.500000e+01 : f64, -0.000000e+00 : f64]");
    plumb_tensor_free(t);

    t = mk(PLUMB_F64, 0, NULL);
    memcpy(t->data, (double[]){0.5}, 8);
    expect_legacy(t, "tensor<f64> {\n  5.000000e-01 : f64");
    plumb_tensor_free(t);
}

/* printing.mlir's CHECK lines: nesting, indentation, empty and scalar tensors. */
static void test_print_layout(void **state)
{
    (void)state;
    int64_t d4 = 4, d2 = 2, d0 = 0, d1 = 1, d22[2] = {2, 2}, d222[3] = {2, 2, 2};
    plumb_tensor *t = mk(PLUMB_I8, 1, &d4);
    int8_t iv[4] = {1, 2, -3, -4};
    memcpy(t->data, iv, 4);
    expect_print(t, "tensor<4xi8> {\n  [1, 2, -3, -4]\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_F16, 1, &d4);
    uint16_t hv[4] = {0x3C00, 0x4000, 0xC200, 0xC400};   /* 1, 2, -3, -4 */
    memcpy(t->data, hv, 8);
    expect_print(t, "tensor<4xf16> {\n  [1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_I1, 1, &d2);
    ((uint8_t *)t->data)[0] = 1;
    expect_print(t, "tensor<2xi1> {\n  [true, false]\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_UI8, 1, &d0);
    expect_print(t, "tensor<0xui8> {\n  []\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_UI8, 0, NULL);
    ((uint8_t *)t->data)[0] = 1;
    expect_print(t, "tensor<ui8> {1}");
    plumb_tensor_free(t);

    t = mk(PLUMB_I8, 1, &d1);
    ((int8_t *)t->data)[0] = 1;
    expect_print(t, "tensor<1xi8> {\n  [1]\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_I8, 2, d22);
    memcpy(t->data, (int8_t[]){1, 2, 3, 4}, 4);
    expect_print(t, "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
    plumb_tensor_free(t);

    t = mk(PLUMB_I64, 3, d222);
    int64_t lv[8] = {0, 1, 2, 3, 4, 0, 1, 2};
    memcpy(t->data, lv, sizeof lv);
    expect_print(t, "tensor<2x2x2xi64> {\n  [\n    [\n      [0, 1],\n      [2, 3]\n    ],\n    [\n"
                    "      [4, 0],\n      [1, 2]\n    ]\n  ]\n}");
    plumb_tensor_free(t);
}

static void expect_f32(uint32_t bits, const char *want)
{
    plumb_tensor *t = mk(PLUMB_F32, 0, NULL);
    memcpy(t->data, &bits, 4);
    char buf[128];
    snprintf(buf, sizeof buf, "tensor<f32> {%s}", want);
    expect_print(t, buf);
    plumb_tensor_free(t);
}

static void expect_f64(uint64_t bits, const char *want)
{
    plumb_tensor *t = mk(PLUMB_F64, 0, NULL);
    memcpy(t->data, &bits, 8);
    char buf[128];
    snprintf(buf, sizeof buf, "tensor<f64> {%s}", want);
    expect_print(t, buf);
    plumb_tensor_free(t);
}

/* Floats: 6 significant digits plus a padding zero when that reads back,
 * else the type's natural precision (9 digits for f32, 17 for f64), else hex. */
static void test_print_floats(void **state)
{
    (void)state;
    /* 0.1f = 0.100000001490116..., 6 digits 100000 read back to 0.1f */
    expect_f32(0x3DCCCCCD, "1.000000e-01");
    /* -0.0 */
    expect_f32(0x80000000, "-0.000000e+00");
    /* 1e10 is exact in f32 (9765625 * 2^10) */
    expect_f32(0x501502F9, "1.000000e+10");
    /* 1/3 in f32 = 0.3333333432674407958984375: 6 digits 333333 do not read
     * back; 9 digits 333333343 (next digit 2) in positional form */
    expect_f32(0x3EAAAAAB, "0.333333343");
    /* 0.999999940395355224609375: 6 digits round up to 1 (not it); 9 digits
     * 999999940 -> 99999994 */
    expect_f32(0x3F7FFFFF, "0.99999994");
    /* 2^24 = 16777216: 1.67772e7 is not it; 8 digits, positional without a
     * '.', which MLIR does not print: hex */
    expect_f32(0x4B800000, "0x4B800000");
    expect_f32(0x7FC00000, "0x7FC00000");
    expect_f32(0xFF800000, "0xFF800000");
    /* 0.1 in f64 */
    expect_f64(0x3FB999999999999AULL, "1.000000e-01");
    /* 1/3 in f64 = 0.333333333333333314829616256247...: 17 digits, next 4 */
    expect_f64(0x3FD5555555555555ULL, "0.33333333333333331");
    expect_f64(0x7FF0000000000000ULL, "0x7FF0000000000000");

    /* f16 2^-11 = 0.00048828125: 6 digits 488281 (next 2) read back in f16 */
    plumb_tensor *t = mk(PLUMB_F16, 0, NULL);
    uint16_t h = 0x1000;
    memcpy(t->data, &h, 2);
    expect_print(t, "tensor<f16> {4.882810e-04}");
    h = 0xFC00;   /* -inf */
    memcpy(t->data, &h, 2);
    expect_print(t, "tensor<f16> {0xFC00}");
    plumb_tensor_free(t);
}

/* FP8 and FP6 elements print in MLIR's 6-digit form like the wider floats
 * (read back in their own format), complex elements as [re, im]:
 * printing.mlir's test_sub_byte and test_complex. Bit patterns by hand:
 * f8E3M4 (bias 3, 4 fraction bits) 1 = 0 011 0000, 2 = 0 100 0000,
 * -3 = 1 100 1000, -4 = 1 101 0000; f6E2M3FN (bias 1, 3 fraction bits)
 * 1 = 0 01 000, 2 = 0 10 000, -3 = 1 10 100, -4 = 1 11 000. */
static void test_print_small_and_complex(void **state)
{
    (void)state;
    int64_t d4 = 4, d2 = 2;
    plumb_tensor *t = mk(PLUMB_F8E3M4, 1, &d4);
    memcpy(t->data, (uint8_t[]){0x30, 0x40, 0xC8, 0xD0}, 4);
    expect_print(t, "tensor<4xf8E3M4> {\n  [1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]\n}");
    plumb_tensor_free(t);
    t = mk(PLUMB_F6E2M3FN, 1, &d4);
    for (size_t i = 0; i < 4; i++)
        plumb_store_bits(PLUMB_F6E2M3FN, t->data, i, (uint64_t[]){0x08, 0x10, 0x34, 0x38}[i]);
    expect_print(t, "tensor<4xf6E2M3FN> {\n  [1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]\n}");
    plumb_tensor_free(t);
    /* f8E4M3FN 0x7F is NaN (no infinity): hex, as for the other types */
    t = mk(PLUMB_F8E4M3FN, 0, NULL);
    ((uint8_t *)t->data)[0] = 0x7F;
    expect_print(t, "tensor<f8E4M3FN> {0x7F}");
    plumb_tensor_free(t);

    /* complex<f32> (3.14f, 1), (-0.5, 1/3f): 3.14f = 0x4048F5C3 reads back
     * from 3.140000e+00; 1/3f needs 9 digits (test_print_floats) */
    t = mk(PLUMB_C64, 1, &d2);
    uint32_t c[4] = {0x4048F5C3, 0x3F800000, 0xBF000000, 0x3EAAAAAB};
    memcpy(t->data, c, sizeof c);
    expect_print(t, "tensor<2xcomplex<f32>> {\n  [[3.140000e+00, 1.000000e+00], [-5.000000e-01, 0.333333343]]\n}");
    plumb_tensor_free(t);
    /* complex<f64> (0.1, -inf) */
    t = mk(PLUMB_C128, 0, NULL);
    uint64_t z[2] = {0x3FB999999999999AULL, 0xFFF0000000000000ULL};
    memcpy(t->data, z, sizeof z);
    expect_print(t, "tensor<complex<f64>> {[1.000000e-01, 0xFFF0000000000000]}");
    plumb_tensor_free(t);
}

static void expect_dense(const plumb_tensor *t, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    cli_interp_print_dense(&b, t);
    assert_false(b.failed);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

/* --interpreter-print-dense: MLIR's DenseElementsAttr form, a splat (all
 * elements bitwise equal) as its one value, complex as (re,im), empty as
 * dense<>: printing.mlir's CHECK-DENSE lines, and -0 against +0. */
static void test_print_dense(void **state)
{
    (void)state;
    int64_t d4 = 4, d1 = 1, d2 = 2, d22[2] = {2, 2}, d20[2] = {2, 0};
    plumb_tensor *t = mk(PLUMB_I8, 1, &d4);
    memcpy(t->data, (int8_t[]){1, 2, -3, -4}, 4);
    expect_dense(t, "dense<[1, 2, -3, -4]> : tensor<4xi8>");
    plumb_tensor_free(t);
    t = mk(PLUMB_I8, 1, &d1);
    ((int8_t *)t->data)[0] = 1;
    expect_dense(t, "dense<1> : tensor<1xi8>");
    plumb_tensor_free(t);
    t = mk(PLUMB_UI8, 0, NULL);
    ((uint8_t *)t->data)[0] = 1;
    expect_dense(t, "dense<1> : tensor<ui8>");
    plumb_tensor_free(t);
    t = mk(PLUMB_I8, 2, d22);
    memcpy(t->data, (int8_t[]){1, 2, 3, 4}, 4);
    expect_dense(t, "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>");
    plumb_tensor_free(t);
    t = mk(PLUMB_I8, 2, d20);
    expect_dense(t, "dense<> : tensor<2x0xi8>");
    plumb_tensor_free(t);
    t = mk(PLUMB_I1, 1, &d2);
    ((uint8_t *)t->data)[0] = 1;
    expect_dense(t, "dense<[true, false]> : tensor<2xi1>");
    plumb_tensor_free(t);
    t = mk(PLUMB_C64, 1, &d4);
    for (int i = 0; i < 4; i++)
        memcpy((uint32_t *)t->data + 2 * i, (uint32_t[]){0x4048F5C3, 0x3F800000}, 8);
    expect_dense(t, "dense<(3.140000e+00,1.000000e+00)> : tensor<4xcomplex<f32>>");
    ((uint32_t *)t->data)[7] = 0x40000000;   /* last imaginary part 2: no splat */
    expect_dense(t, "dense<[(3.140000e+00,1.000000e+00), (3.140000e+00,1.000000e+00), "
                    "(3.140000e+00,1.000000e+00), (3.140000e+00,2.000000e+00)]> : tensor<4xcomplex<f32>>");
    plumb_tensor_free(t);
    t = mk(PLUMB_F32, 1, &d2);
    memcpy(t->data, (uint32_t[]){0x00000000, 0x80000000}, 8);
    expect_dense(t, "dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>");
    plumb_tensor_free(t);
}

/* RUN lines: the commands plumb runs, continuations, and why it skips others. */
static void test_run_lines(void **state)
{
    (void)state;
    const char *f =
        "// RUN: stablehlo-translate %s --interpret --args=\"[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]\" "
        "| FileCheck %s\n"
        "\n"
        "// RUN: not stablehlo-translate %s --interpret --args=\"not_array\" 2>&1 | \\\n"
        "// RUN:   FileCheck %s --check-prefixes=CHECK-ERROR\n"
        "// RUN: stablehlo-opt --chlo-legalize-to-stablehlo %s | stablehlo-translate --interpret\n"
        "// RUN: stablehlo-translate --interpret -split-input-file %s\n"
        "// RUN: stablehlo-translate --interpret %s | FileCheck %s --check-prefixes=A,B\n"
        "// RUN: stablehlo-translate --interpret --interpreter-print-dense --split-input-file %s | "
        "FileCheck %s --check-prefix=CHECK-DENSE\n"
        "// RUN: echo \"[dense<1> : tensor<i32>]\" > %t.args\n"
        "// RUN: stablehlo-translate %s --interpret --args=@%t.args | FileCheck %s\n"
        "// RUN: echo \"x\" > out.txt\n";
    size_t n;
    cli_run_line *l = cli_run_lines(f, strlen(f), &n);
    assert_non_null(l);
    assert_int_equal(n, 9);
    /* echo into a %t file: setup a later --args=@%t line reads */
    assert_string_equal(l[6].unsupported, "");
    assert_string_equal(l[6].echo_file, "%t.args");
    assert_string_equal(l[6].echo_text, "[dense<1> : tensor<i32>]");
    assert_false(l[6].asks);
    assert_string_equal(l[7].unsupported, "");
    assert_string_equal(l[7].args_file, "%t.args");
    assert_null(l[7].args);
    assert_true(l[7].asks);
    /* echo anywhere else is another command plumb does not run */
    assert_string_equal(l[8].unsupported, "RUN line runs 'echo'");
    assert_string_equal(l[8].echo_file, "");
    assert_false(l[0].print_dense);
    assert_string_equal(l[5].unsupported, "");
    assert_true(l[5].print_dense);
    assert_true(l[5].split);
    assert_true(l[5].filecheck);
    assert_string_equal(l[5].prefix, "CHECK-DENSE");
    assert_int_equal(l[0].line, 1);
    assert_string_equal(l[0].unsupported, "");
    assert_true(l[0].filecheck);
    assert_false(l[0].expect_error);
    assert_string_equal(l[0].prefix, "CHECK");
    assert_string_equal(l[0].args, "[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]");
    assert_int_equal(l[1].line, 3);
    assert_string_equal(l[1].unsupported, "");
    assert_true(l[1].expect_error);
    assert_string_equal(l[1].prefix, "CHECK-ERROR");
    assert_string_equal(l[1].args, "not_array");
    assert_true(l[0].asks);
    assert_true(l[1].asks);
    assert_string_equal(l[2].unsupported, "RUN line runs 'stablehlo-opt'");
    assert_false(l[2].asks);
    assert_false(l[3].asks);
    assert_true(l[3].split);
    assert_false(l[3].filecheck);
    assert_null(l[3].args);
    assert_non_null(strstr(l[4].unsupported, "FileCheck prefixes 'A,B'"));
    assert_false(l[0].legacy_print);
    cli_run_lines_free(l, n);

    /* stablehlo-interpreter, the driver's first name: run, in its own
     * print format; another tool is still not run */
    const char *g = "// RUN: stablehlo-interpreter --interpret -split-input-file %s | FileCheck %s\n"
                    "// RUN: stablehlo-interpreter --interpret -split-input-file %s\n"
                    "// RUN: stablehlo-interpreter-x --interpret %s\n";
    l = cli_run_lines(g, strlen(g), &n);
    assert_non_null(l);
    assert_int_equal(n, 3);
    assert_string_equal(l[0].unsupported, "");
    assert_true(l[0].legacy_print);
    assert_true(l[0].filecheck);
    assert_true(l[0].split);
    assert_string_equal(l[1].unsupported, "");
    assert_true(l[1].legacy_print);
    assert_false(l[1].asks);
    assert_string_equal(l[2].unsupported, "RUN line runs 'stablehlo-interpreter-x'");
    cli_run_lines_free(l, n);
}

/* --args lists split at top-level commas only. */
static void test_args_split(void **state)
{
    (void)state;
    const char *s[4];
    size_t len[4];
    assert_int_equal(cli_args_split("[dense<[1, 2]> : tensor<2xi32>, dense<\"0x0100\"> : tensor<i16>]", s, len, 4),
                     2);
    assert_int_equal(len[0], strlen("dense<[1, 2]> : tensor<2xi32>"));
    assert_memory_equal(s[1], "dense<\"0x0100\"> : tensor<i16>", len[1]);
    assert_int_equal(cli_args_split(" [ ] ", s, len, 4), 0);
    assert_int_equal(cli_args_split("not_array", s, len, 4), -1);
    assert_int_equal(cli_args_split("[a, , b]", s, len, 4), -1);
    assert_int_equal(cli_args_split("[a, b, c]", s, len, 2), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_next),
        cmocka_unit_test(test_same),
        cmocka_unit_test(test_not),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_blanks),
        cmocka_unit_test(test_prefix_words),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_literal),
        cmocka_unit_test(test_print_layout),
        cmocka_unit_test(test_print_floats),
        cmocka_unit_test(test_print_small_and_complex),
        cmocka_unit_test(test_print_dense),
        cmocka_unit_test(test_print_legacy),
        cmocka_unit_test(test_label),
        cmocka_unit_test(test_run_lines),
        cmocka_unit_test(test_args_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
