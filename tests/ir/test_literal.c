/* Tensor literals: decoding dense<...> bodies and printing them back.
 * Expected bit patterns are hand-derived from IEEE 754 encodings (noted next
 * to each) or exact powers of two, never taken from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/tensor.h"

static plumb_tensor *mk(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

static plumb_tensor *mk1(plumb_dtype t, int64_t n)
{
    return mk(t, 1, &n);
}

static bool dec(plumb_tensor *t, const char *body, plumb_diag *d)
{
    memset(d, 0, sizeof *d);
    plumb_loc l = {1, 7};
    return plumb_dense_decode(body, strlen(body), l, t, d);
}

/* Decodes body into a fresh tensor of type t and shape dims; asserts success. */
static plumb_tensor *ok(plumb_dtype t, uint32_t rank, const int64_t *dims, const char *body)
{
    plumb_tensor *x = mk(t, rank, dims);
    plumb_diag d;
    if (!dec(x, body, &d))
        fail_msg("decode of '%s' as %s failed: %s", body, plumb_dtype_name(t), d.msg);
    return x;
}

/* Decoding must fail with code and a message containing each of the
 * NULL-terminated fragments. */
static void bad(plumb_dtype t, uint32_t rank, const int64_t *dims, const char *body,
                plumb_code code, ...)
{
    plumb_tensor *x = mk(t, rank, dims);
    plumb_diag d;
    if (dec(x, body, &d))
        fail_msg("decode of '%s' as %s unexpectedly succeeded", body, plumb_dtype_name(t));
    if (d.code != code)
        fail_msg("'%s': code %s, expected %s (%s)", body, plumb_code_name(d.code),
                 plumb_code_name(code), d.msg);
    va_list ap;
    va_start(ap, code);
    const char *frag;
    while ((frag = va_arg(ap, const char *)))
        if (!strstr(d.msg, frag))
            fail_msg("'%s': message '%s' lacks '%s'", body, d.msg, frag);
    va_end(ap);
    plumb_tensor_free(x);
}

static uint64_t bits_at(const plumb_tensor *t, size_t i) { return plumb_load_bits(t->dtype, t->data, i); }

/* Scalar decode into a one-element tensor; returns the bits. */
static uint64_t one(plumb_dtype t, const char *body)
{
    plumb_tensor *x = ok(t, 0, NULL, body);
    uint64_t b = bits_at(x, 0);
    plumb_tensor_free(x);
    return b;
}

static char *print(const plumb_tensor *t, bool hex)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_dense_print(&b, t, hex);
    assert_false(b.failed);
    return b.data;
}

static void expect_print(const plumb_tensor *t, bool hex, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_dense_print(&b, t, hex);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

static void expect_float_print(plumb_dtype t, uint64_t bits, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_float_print(&b, t, bits);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

/* A splat scalar fills every element. */
static void test_splat(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 3};
    plumb_tensor *x = ok(PLUMB_F32, 2, dims, "1.5");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(bits_at(x, i), 0x3FC00000);   /* 1.5 = 1.1b x 2^0 */
    plumb_tensor_free(x);
    x = ok(PLUMB_I1, 2, dims, " true ");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(bits_at(x, i), 1);
    plumb_tensor_free(x);
    x = ok(PLUMB_F32, 2, dims, "0x7FC00000");
    assert_int_equal(bits_at(x, 5), 0x7FC00000);
    plumb_tensor_free(x);
}

/* Nested lists fill elements in row-major order, across newlines. */
static void test_nested(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2};
    plumb_tensor *x = ok(PLUMB_I32, 2, dims, "[[1, 2],\n [3, -4]]");
    assert_int_equal(bits_at(x, 0), 1);
    assert_int_equal(bits_at(x, 1), 2);
    assert_int_equal(bits_at(x, 2), 3);
    assert_int_equal(bits_at(x, 3), 0xFFFFFFFCu);
    plumb_tensor_free(x);
    int64_t d3[3] = {2, 1, 2};
    x = ok(PLUMB_BF16, 3, d3, "[[[1.0, 2.0]], [[-1.0, 0.5]]]");
    assert_int_equal(bits_at(x, 0), 0x3F80);
    assert_int_equal(bits_at(x, 1), 0x4000);
    assert_int_equal(bits_at(x, 2), 0xBF80);
    assert_int_equal(bits_at(x, 3), 0x3F00);
    plumb_tensor_free(x);
}

/* List nesting must match the shape exactly; errors name the dimension and
 * the counts. */
static void test_nesting_errors(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2};
    bad(PLUMB_I32, 2, dims, "[[1, 2], [3]]", PLUMB_ERR_INVALID, "dimension 1", "1 elements, expected 2", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, 2]]", PLUMB_ERR_INVALID, "dimension 0", "1 elements, expected 2", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, 2], [3, 4], [5, 6]]", PLUMB_ERR_INVALID, "dimension 0", "3 elements, expected 2", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, 2, 3], [3, 4]]", PLUMB_ERR_INVALID, "dimension 1", "3 elements, expected 2", NULL);
    bad(PLUMB_I32, 2, dims, "[1, 2, 3, 4]", PLUMB_ERR_PARSE, "expected '['", NULL);
    bad(PLUMB_I32, 2, dims, "[[[1], 2], [3, 4]]", PLUMB_ERR_PARSE, "too many nesting levels", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, 2], [3, 4]", PLUMB_ERR_PARSE, "expected ',' or ']'", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, 2], [3, 4]] x", PLUMB_ERR_PARSE, "after the literal", NULL);
    bad(PLUMB_I32, 2, dims, "[[1 2], [3, 4]]", PLUMB_ERR_PARSE, "expected ',' or ']'", NULL);
    bad(PLUMB_I32, 2, dims, "[[1, ], [3, 4]]", PLUMB_ERR_PARSE, "expected a value", NULL);
    bad(PLUMB_I32, 0, NULL, "[1]", PLUMB_ERR_INVALID, "rank-0", NULL);
    bad(PLUMB_I32, 2, dims, "", PLUMB_ERR_INVALID, "empty literal", NULL);
}

/* Rank-0 tensors take a scalar; zero-size tensors take an empty body or
 * correctly nested empty lists. */
static void test_rank0_and_empty(void **state)
{
    (void)state;
    assert_int_equal(one(PLUMB_I64, "-7"), (uint64_t)-7);
    int64_t d0 = 0;
    plumb_tensor *x = ok(PLUMB_F32, 1, &d0, "");
    assert_int_equal(x->nbytes, 0);
    expect_print(x, false, "dense<>");
    expect_print(x, true, "dense<>");
    plumb_tensor_free(x);
    plumb_tensor_free(ok(PLUMB_F32, 1, &d0, "[]"));
    int64_t d20[2] = {2, 0};
    plumb_tensor_free(ok(PLUMB_I8, 2, d20, "[[], []]"));
    plumb_tensor_free(ok(PLUMB_I8, 2, d20, "\"0x\""));
    bad(PLUMB_I8, 2, d20, "[[]]", PLUMB_ERR_INVALID, "dimension 0", "1 elements, expected 2", NULL);
}

/* Booleans: true/false and 0/1 only. */
static void test_bool(void **state)
{
    (void)state;
    int64_t n = 4;
    plumb_tensor *x = ok(PLUMB_I1, 1, &n, "[true, false, 1, 0]");
    assert_memory_equal(x->data, "\1\0\1\0", 4);
    plumb_tensor_free(x);
    bad(PLUMB_I1, 0, NULL, "2", PLUMB_ERR_INVALID, "out of range for i1", NULL);
    bad(PLUMB_I1, 0, NULL, "-1", PLUMB_ERR_INVALID, "out of range for i1", NULL);
    bad(PLUMB_I1, 0, NULL, "True", PLUMB_ERR_PARSE, "true, false, 0 or 1", NULL);
}

/* Integer ranges are enforced exactly at both ends of every type. */
static void test_int_ranges(void **state)
{
    (void)state;
    assert_int_equal(one(PLUMB_UI8, "255"), 255);
    assert_int_equal(one(PLUMB_UI8, "0xFF"), 255);
    assert_int_equal(one(PLUMB_UI8, "-0"), 0);
    bad(PLUMB_UI8, 0, NULL, "256", PLUMB_ERR_INVALID, "256 is out of range for ui8", NULL);
    bad(PLUMB_UI8, 0, NULL, "-1", PLUMB_ERR_INVALID, "out of range for ui8", NULL);
    assert_int_equal(one(PLUMB_I8, "-128"), 0x80);
    assert_int_equal(one(PLUMB_I8, "127"), 0x7F);
    bad(PLUMB_I8, 0, NULL, "128", PLUMB_ERR_INVALID, "out of range for i8", NULL);
    bad(PLUMB_I8, 0, NULL, "-129", PLUMB_ERR_INVALID, "out of range for i8", NULL);
    /* Hex spells the value, not the bit pattern: 0xFF is 255, too big for i8. */
    bad(PLUMB_I8, 0, NULL, "0xFF", PLUMB_ERR_INVALID, "out of range for i8", NULL);
    assert_int_equal(one(PLUMB_I16, "-32768"), 0x8000);
    bad(PLUMB_I16, 0, NULL, "32768", PLUMB_ERR_INVALID, "out of range", NULL);
    assert_int_equal(one(PLUMB_UI16, "65535"), 0xFFFF);
    bad(PLUMB_UI16, 0, NULL, "65536", PLUMB_ERR_INVALID, "out of range", NULL);
    assert_int_equal(one(PLUMB_I32, "-2147483648"), 0x80000000u);
    bad(PLUMB_I32, 0, NULL, "2147483648", PLUMB_ERR_INVALID, "out of range", NULL);
    assert_int_equal(one(PLUMB_UI32, "4294967295"), 0xFFFFFFFFu);
    bad(PLUMB_UI32, 0, NULL, "4294967296", PLUMB_ERR_INVALID, "out of range", NULL);
    assert_int_equal(one(PLUMB_I64, "-9223372036854775808"), 0x8000000000000000ull);
    assert_int_equal(one(PLUMB_I64, "9223372036854775807"), 0x7FFFFFFFFFFFFFFFull);
    assert_int_equal(one(PLUMB_I64, "-0x8000000000000000"), 0x8000000000000000ull);
    bad(PLUMB_I64, 0, NULL, "9223372036854775808", PLUMB_ERR_INVALID, "out of range", NULL);
    bad(PLUMB_I64, 0, NULL, "-9223372036854775809", PLUMB_ERR_INVALID, "out of range", NULL);
    assert_int_equal(one(PLUMB_UI64, "18446744073709551615"), UINT64_MAX);
    bad(PLUMB_UI64, 0, NULL, "18446744073709551616", PLUMB_ERR_INVALID, "out of range", NULL);
    bad(PLUMB_UI64, 0, NULL, "0x10000000000000000", PLUMB_ERR_INVALID, "out of range", NULL);
    bad(PLUMB_I32, 0, NULL, "1.0", PLUMB_ERR_PARSE, "expected an integer", NULL);
    bad(PLUMB_I32, 0, NULL, "0x", PLUMB_ERR_PARSE, "expected an integer", NULL);
    bad(PLUMB_I32, 0, NULL, "1e3", PLUMB_ERR_PARSE, "expected an integer", NULL);
}

/* Decimal floats round correctly; spellings of nan/inf and hex bit patterns. */
static void test_float_spellings(void **state)
{
    (void)state;
    assert_int_equal(one(PLUMB_F32, "1"), 0x3F800000);
    assert_int_equal(one(PLUMB_F32, "-2.5"), 0xC0200000);
    assert_int_equal(one(PLUMB_F32, "1.0e-3"), 0x3A83126F);      /* 0.001f */
    assert_int_equal(one(PLUMB_F32, "0.1"), 0x3DCCCCCD);
    assert_int_equal(one(PLUMB_F32, "8.446940e+00"), 0x410726AB); /* 8.44694 rounded to 24 bits */
    assert_int_equal(one(PLUMB_F64, "0.1"), 0x3FB999999999999Aull);
    assert_int_equal(one(PLUMB_F16, "0.1"), 0x2E66);
    assert_int_equal(one(PLUMB_BF16, "0.1"), 0x3DCD);
    assert_int_equal(one(PLUMB_F32, "-0.0"), 0x80000000);
    assert_int_equal(one(PLUMB_F16, "-0.0"), 0x8000);
    assert_int_equal(one(PLUMB_F32, "nan"), 0x7FC00000);
    assert_int_equal(one(PLUMB_F32, "-nan"), 0xFFC00000);
    assert_int_equal(one(PLUMB_F16, "nan"), 0x7E00);
    assert_int_equal(one(PLUMB_BF16, "nan"), 0x7FC0);
    assert_int_equal(one(PLUMB_F64, "nan"), 0x7FF8000000000000ull);
    assert_int_equal(one(PLUMB_F32, "inf"), 0x7F800000);
    assert_int_equal(one(PLUMB_F32, "+inf"), 0x7F800000);
    assert_int_equal(one(PLUMB_F32, "-inf"), 0xFF800000);
    assert_int_equal(one(PLUMB_F16, "-inf"), 0xFC00);
    assert_int_equal(one(PLUMB_F64, "-inf"), 0xFFF0000000000000ull);
    assert_int_equal(one(PLUMB_F32, "0x7FC00001"), 0x7FC00001);
    assert_int_equal(one(PLUMB_F16, "0x7C01"), 0x7C01);
    assert_int_equal(one(PLUMB_F64, "0xFFFFFFFFFFFFFFFF"), UINT64_MAX);
    bad(PLUMB_F16, 0, NULL, "0x10000", PLUMB_ERR_INVALID, "does not fit the 16 bits of f16", NULL);
    bad(PLUMB_F32, 0, NULL, "0x100000000", PLUMB_ERR_INVALID, "does not fit", NULL);
    bad(PLUMB_F32, 0, NULL, "-0x3F800000", PLUMB_ERR_PARSE, "takes no sign", NULL);
    bad(PLUMB_F32, 0, NULL, "1.0.0", PLUMB_ERR_PARSE, "expected a number", NULL);
    bad(PLUMB_F32, 0, NULL, ".5", PLUMB_ERR_PARSE, "expected a number", NULL);
    bad(PLUMB_F32, 0, NULL, "1e", PLUMB_ERR_PARSE, "expected a number", NULL);
    bad(PLUMB_F32, 0, NULL, "infinity", PLUMB_ERR_PARSE, "expected a number", NULL);
    bad(PLUMB_F32, 0, NULL, "(1.0, 2.0)", PLUMB_ERR_INVALID, "element of a complex tensor, not of f32", NULL);
    int64_t n = 2;
    bad(PLUMB_F32, 1, &n, "[(1.0, 2.0), (3.0, 4.0)]", PLUMB_ERR_INVALID, "element of a complex tensor", NULL);
}

/* Overflow to infinity is an error; underflow rounds to a subnormal or zero. */
static void test_float_range(void **state)
{
    (void)state;
    assert_int_equal(one(PLUMB_F32, "3.4028235e38"), 0x7F7FFFFF);
    bad(PLUMB_F32, 0, NULL, "1e39", PLUMB_ERR_INVALID, "out of range for f32", NULL);
    bad(PLUMB_F64, 0, NULL, "-1e309", PLUMB_ERR_INVALID, "out of range for f64", NULL);
    assert_int_equal(one(PLUMB_F32, "1e-50"), 0);
    assert_int_equal(one(PLUMB_F32, "1.401298464324817e-45"), 1);  /* 2^-149 */
    /* f16: 65504 is the largest finite value; 65520 is exactly half-way to
     * 2^16 and ties to even, i.e. to infinity. */
    assert_int_equal(one(PLUMB_F16, "65504"), 0x7BFF);
    assert_int_equal(one(PLUMB_F16, "65519.99"), 0x7BFF);
    bad(PLUMB_F16, 0, NULL, "65520", PLUMB_ERR_INVALID, "out of range for f16", NULL);
    /* bf16 max finite is (2 - 2^-7) * 2^127. */
    assert_int_equal(one(PLUMB_BF16, "3.3895313892515355e38"), 0x7F7F);
    bad(PLUMB_BF16, 0, NULL, "3.4e38", PLUMB_ERR_INVALID, "out of range for bf16", NULL);
    /* f16 subnormals: 2^-24 is the smallest; 2^-25 is half of it and ties to
     * zero (even); anything above 2^-25 rounds up. */
    assert_int_equal(one(PLUMB_F16, "5.9604644775390625e-8"), 0x0001);
    assert_int_equal(one(PLUMB_F16, "2.98023223876953125e-8"), 0x0000);
    assert_int_equal(one(PLUMB_F16, "-2.98023223876953125e-8"), 0x8000);
    assert_int_equal(one(PLUMB_F16, "2.980232238769531250001e-8"), 0x0001);
    assert_int_equal(one(PLUMB_F16, "6.103515625e-5"), 0x0400);   /* 2^-14, smallest normal */
    /* bf16's smallest subnormal is 2^-133. */
    assert_int_equal(one(PLUMB_BF16, "9.183549615799121e-41"), 0x0001);
}

/* f16/bf16 decimals are rounded once from the decimal: a decimal just above a
 * half-way point must round up even though the nearest double is the
 * half-way point itself (which would tie to even, downwards). */
static void test_half_single_rounding(void **state)
{
    (void)state;
    /* 1 + 2^-11 is half-way between f16 1.0 and 1 + 2^-10. */
    assert_int_equal(one(PLUMB_F16, "1.00048828125"), 0x3C00);
    assert_int_equal(one(PLUMB_F16, "1.000488281250000000001"), 0x3C01);
    assert_int_equal(one(PLUMB_F16, "1.000488281249999999999"), 0x3C00);
    /* 1 + 3*2^-11 is half-way between 1 + 2^-10 (odd) and 1 + 2^-9: ties up. */
    assert_int_equal(one(PLUMB_F16, "1.00146484375"), 0x3C02);
    /* 1 + 2^-8 is half-way between bf16 1.0 and 1 + 2^-7. */
    assert_int_equal(one(PLUMB_BF16, "1.00390625"), 0x3F80);
    assert_int_equal(one(PLUMB_BF16, "1.00390625000000000001"), 0x3F81);
}

/* Raw "0x..." literals: every element's little-endian bytes, or one element
 * as a splat; i1 takes one byte (00 or 01) per element. */
static void test_raw(void **state)
{
    (void)state;
    int64_t n = 2;
    plumb_tensor *x = ok(PLUMB_F32, 1, &n, "\"0x0000803F00000040\"");
    assert_int_equal(bits_at(x, 0), 0x3F800000);
    assert_int_equal(bits_at(x, 1), 0x40000000);
    plumb_tensor_free(x);
    int64_t dims[2] = {2, 2};
    x = ok(PLUMB_F32, 2, dims, "\"0x0000803f\"");
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(bits_at(x, i), 0x3F800000);
    plumb_tensor_free(x);
    int64_t n4 = 4;
    x = ok(PLUMB_I1, 1, &n4, "\"0x01000100\"");
    assert_memory_equal(x->data, "\1\0\1\0", 4);
    plumb_tensor_free(x);
    x = ok(PLUMB_I16, 1, &n, "\"0x0180FFFF\"");
    assert_int_equal(bits_at(x, 0), 0x8001);
    assert_int_equal(bits_at(x, 1), 0xFFFF);
    plumb_tensor_free(x);
    bad(PLUMB_I1, 1, &n4, "\"0x02000000\"", PLUMB_ERR_INVALID, "must be 00 or 01", NULL);
    bad(PLUMB_F32, 1, &n, "\"0x0000803F0000\"", PLUMB_ERR_INVALID, "has 6 bytes, expected 8", NULL);
    bad(PLUMB_F32, 1, &n, "\"0x0000803F000000400\"", PLUMB_ERR_PARSE, "odd number", NULL);
    bad(PLUMB_F32, 1, &n, "\"0x0000803G\"", PLUMB_ERR_PARSE, "expected a hex digit", NULL);
    bad(PLUMB_F32, 1, &n, "\"0x0000803F", PLUMB_ERR_PARSE, "closing", NULL);
    bad(PLUMB_F32, 1, &n, "\"0000803F\"", PLUMB_ERR_PARSE, "must start with \"0x\"", NULL);
    bad(PLUMB_F32, 1, &n, "[\"0x0000803F\", 1.0]", PLUMB_ERR_PARSE, "whole literal", NULL);
}

/* Error locations point at the offending token, following newlines. */
static void test_error_location(void **state)
{
    (void)state;
    int64_t n = 3;
    plumb_tensor *x = mk1(PLUMB_F32, n);
    plumb_diag d = {0};
    const char *body = "[1.0,\n   2.0,\n  bogus]";
    plumb_loc start = {5, 30};
    assert_false(plumb_dense_decode(body, strlen(body), start, x, &d));
    assert_int_equal(d.loc.line, 7);
    assert_int_equal(d.loc.col, 3);
    memset(&d, 0, sizeof d);
    body = "[1.0, 2.0, 1e99]";
    assert_false(plumb_dense_decode(body, strlen(body), start, x, &d));
    assert_int_equal(d.loc.line, 5);
    assert_int_equal(d.loc.col, 30 + 11);
    plumb_tensor_free(x);
}

/* Printing: splats, nested lists, booleans, integers, hex. */
static void test_print_forms(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2};
    plumb_tensor *x = ok(PLUMB_I32, 2, dims, "[[1, 2], [3, -4]]");
    expect_print(x, false, "dense<[[1, 2], [3, -4]]>");
    expect_print(x, true, "dense<\"0x0100000002000000" "03000000FCFFFFFF\">");
    plumb_tensor_free(x);
    x = ok(PLUMB_F32, 2, dims, "1.5");
    expect_print(x, false, "dense<1.5>");
    expect_print(x, true, "dense<\"0x0000C03F\">");
    plumb_tensor_free(x);
    x = ok(PLUMB_F32, 0, NULL, "2");
    expect_print(x, false, "dense<2.0>");
    plumb_tensor_free(x);
    int64_t n = 3;
    x = ok(PLUMB_I1, 1, &n, "[true, false, true]");
    expect_print(x, false, "dense<[true, false, true]>");
    plumb_tensor_free(x);
    x = ok(PLUMB_UI64, 1, &n, "[18446744073709551615, 0, 1]");
    expect_print(x, false, "dense<[18446744073709551615, 0, 1]>");
    plumb_tensor_free(x);
    x = ok(PLUMB_I8, 1, &n, "[-128, 127, 0]");
    expect_print(x, false, "dense<[-128, 127, 0]>");
    plumb_tensor_free(x);
    x = ok(PLUMB_F32, 1, &n, "[inf, -nan, 0x7FC00001]");
    expect_print(x, false, "dense<[0x7F800000, 0xFFC00000, 0x7FC00001]>");
    plumb_tensor_free(x);
}

/* Shortest round-trip decimals, always with a '.' so they read as floats. */
static void test_float_print(void **state)
{
    (void)state;
    expect_float_print(PLUMB_F32, 0x3F800000, "1.0");
    expect_float_print(PLUMB_F32, 0xC0200000, "-2.5");
    expect_float_print(PLUMB_F32, 0x3DCCCCCD, "0.1");
    expect_float_print(PLUMB_F32, 0x80000000, "-0.0");
    expect_float_print(PLUMB_F32, 0x7F7FFFFF, "3.4028235e38");
    expect_float_print(PLUMB_F32, 0x00000001, "1.0e-45");
    expect_float_print(PLUMB_F32, 0x322BCC77, "1.0e-8");
    expect_float_print(PLUMB_F32, 0x4B189680, "10000000.0");
    expect_float_print(PLUMB_F64, 0x3FB999999999999Aull, "0.1");
    expect_float_print(PLUMB_F64, 0x3FD5555555555555ull, "0.3333333333333333");
    expect_float_print(PLUMB_F64, 0x7FEFFFFFFFFFFFFFull, "1.7976931348623157e308");
    expect_float_print(PLUMB_F64, 0x7FF0000000000000ull, "0x7FF0000000000000");
    expect_float_print(PLUMB_F16, 0x7BFF, "65500.0");  /* 65504: f16 ulp there is 32 */
    expect_float_print(PLUMB_F16, 0x0001, "6.0e-8");      /* 2^-24 = 5.96e-8 */
    expect_float_print(PLUMB_F16, 0x2E66, "0.1");
    expect_float_print(PLUMB_F16, 0x3C01, "1.001");       /* 1 + 2^-10 = 1.0009765625 */
    expect_float_print(PLUMB_F16, 0x7E00, "0x7E00");
    expect_float_print(PLUMB_BF16, 0x3DCD, "0.1");
    expect_float_print(PLUMB_BF16, 0x3F81, "1.01");       /* 1 + 2^-7 = 1.0078125; ulp 2^-7 */
    expect_float_print(PLUMB_BF16, 0xFF80, "0xFF80");
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    /* splitmix64: a fixed sequence so failures reproduce. */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void roundtrip(const plumb_tensor *x, bool hex)
{
    char *s = print(x, hex);
    size_t len = strlen(s);
    assert_true(len >= 7 && memcmp(s, "dense<", 6) == 0 && s[len - 1] == '>');
    plumb_tensor *y = mk(x->dtype, x->rank, x->dims);
    plumb_diag d = {0};
    plumb_loc l = {1, 7};
    if (!plumb_dense_decode(s + 6, len - 7, l, y, &d))
        fail_msg("%s: re-decode failed: %s", plumb_dtype_name(x->dtype), d.msg);
    if (!plumb_tensor_equal(x, y)) {
        for (size_t i = 0; i < x->nbytes / plumb_dtype_size(x->dtype); i++)
            if (bits_at(x, i) != bits_at(y, i))
                fail_msg("%s element %zu: 0x%llx printed and read back as 0x%llx",
                         plumb_dtype_name(x->dtype), i, (unsigned long long)bits_at(x, i),
                         (unsigned long long)bits_at(y, i));
        fail();
    }
    plumb_tensor_free(y);
    plumb_buf b = {s, len, len + 1, false};
    plumb_buf_free(&b);
}

/* Every f16 and bf16 bit pattern survives print then decode. */
static void test_roundtrip_all_halves(void **state)
{
    (void)state;
    plumb_dtype ts[2] = {PLUMB_F16, PLUMB_BF16};
    for (int k = 0; k < 2; k++) {
        int64_t dims[2] = {256, 256};
        plumb_tensor *x = mk(ts[k], 2, dims);
        for (uint32_t i = 0; i < 65536; i++)
            plumb_store_bits(ts[k], x->data, i, i);
        roundtrip(x, false);
        roundtrip(x, true);
        plumb_tensor_free(x);
    }
}

/* Random bit patterns of every element type survive print then decode, in
 * both the decimal and the raw form. */
static void test_roundtrip_random(void **state)
{
    (void)state;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        int64_t dims[3] = {5, 10, 40};
        plumb_tensor *x = mk((plumb_dtype)t, 3, dims);
        const plumb_dtype_info *info = plumb_dtype_get((plumb_dtype)t);
        for (size_t i = 0; i < 2000; i++) {
            uint64_t r = rnd();
            if (t == PLUMB_I1)
                r &= 1;
            else if (info->bits < 64)
                r &= (1ull << info->bits) - 1;
            /* Sprinkle exponent-extreme floats: subnormals and near-overflow. */
            if (info->cls == PLUMB_DC_FLOAT && (i % 7) == 0)
                r &= (1ull << info->mant_bits) - 1;
            plumb_store_bits((plumb_dtype)t, x->data, i, r);
        }
        roundtrip(x, false);
        roundtrip(x, true);
        plumb_tensor_free(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splat),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_nesting_errors),
        cmocka_unit_test(test_rank0_and_empty),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_int_ranges),
        cmocka_unit_test(test_float_spellings),
        cmocka_unit_test(test_float_range),
        cmocka_unit_test(test_half_single_rounding),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_error_location),
        cmocka_unit_test(test_print_forms),
        cmocka_unit_test(test_float_print),
        cmocka_unit_test(test_roundtrip_all_halves),
        cmocka_unit_test(test_roundtrip_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
