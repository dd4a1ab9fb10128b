/* complex<f32> and complex<f64>: the element types, their literals in every
 * form StableHLO prints (pairs, splat pairs, raw hex), the printer, tensor
 * files and the verifier's opt-in rule. Expected bit patterns are IEEE 754
 * encodings derived by hand (noted next to each). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/complex.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

static plumb_tensor *mk(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

static bool dec(plumb_tensor *t, const char *body, plumb_diag *d)
{
    memset(d, 0, sizeof *d);
    plumb_loc l = {1, 7};
    return plumb_dense_decode(body, strlen(body), l, t, d);
}

static uint32_t f32_at(const plumb_tensor *t, size_t i) { return (uint32_t)plumb_load_bits(PLUMB_F32, t->data, i); }
static uint64_t f64_at(const plumb_tensor *t, size_t i) { return plumb_load_bits(PLUMB_F64, t->data, i); }

static void expect_print(const plumb_tensor *t, bool hex, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_dense_print(&b, t, hex);
    assert_false(b.failed);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);
}

/* The rows: names as StableHLO spells them, sizes, class, component type. */
static void test_types(void **state)
{
    (void)state;
    plumb_dtype t;
    assert_true(plumb_dtype_parse("complex<f32>", 12, &t));
    assert_int_equal(t, PLUMB_C64);
    assert_true(plumb_dtype_parse("complex<f64>", 12, &t));
    assert_int_equal(t, PLUMB_C128);
    assert_int_equal(plumb_dtype_size(PLUMB_C64), 8);
    assert_int_equal(plumb_dtype_size(PLUMB_C128), 16);
    assert_true(plumb_dtype_is_complex(PLUMB_C64));
    assert_false(plumb_dtype_is_float(PLUMB_C128));
    assert_int_equal(plumb_dtype_component(PLUMB_C64), PLUMB_F32);
    assert_int_equal(plumb_dtype_component(PLUMB_C128), PLUMB_F64);
    /* complex is opted in per op, never through the float mask */
    assert_int_equal(PLUMB_TY_FLOAT & PLUMB_TY_COMPLEX, 0);
    assert_int_equal(PLUMB_TY_ALL & PLUMB_TY_COMPLEX, 0);
}

/* Lists of (re,im) pairs, each component rounded once to its type. */
static void test_pairs(void **state)
{
    (void)state;
    int64_t n = 3;
    plumb_tensor *x = mk(PLUMB_C64, 1, &n);
    plumb_diag d;
    assert_true(dec(x, "[(1.0,2.0), ( -0.5 , 3.25 ), (0.1,-0.0)]", &d));
    assert_int_equal(f32_at(x, 0), 0x3F800000u);   /* 1.0 */
    assert_int_equal(f32_at(x, 1), 0x40000000u);   /* 2.0 */
    assert_int_equal(f32_at(x, 2), 0xBF000000u);   /* -0.5 */
    assert_int_equal(f32_at(x, 3), 0x40500000u);   /* 3.25 = 1.625 * 2 */
    assert_int_equal(f32_at(x, 4), 0x3DCCCCCDu);   /* 0.1 rounded to nearest in binary32 */
    assert_int_equal(f32_at(x, 5), 0x80000000u);   /* -0.0 */
    expect_print(x, false, "dense<[(1.0,2.0), (-0.5,3.25), (0.1,-0.0)]>");
    plumb_tensor_free(x);

    plumb_tensor *y = mk(PLUMB_C128, 1, &n);
    assert_true(dec(y, "[(0.1,inf), (-inf,nan), (0x7FF0000000000001,1e300)]", &d));
    assert_int_equal(f64_at(y, 0), 0x3FB999999999999Aull);   /* 0.1 in binary64 */
    assert_int_equal(f64_at(y, 1), 0x7FF0000000000000ull);
    assert_int_equal(f64_at(y, 2), 0xFFF0000000000000ull);
    assert_int_equal(f64_at(y, 3), 0x7FF8000000000000ull);   /* the quiet NaN */
    assert_int_equal(f64_at(y, 4), 0x7FF0000000000001ull);   /* a signalling payload, kept */
    /* infinities and NaNs print as their component's bit pattern */
    expect_print(y, false, "dense<[(0.1,0x7FF0000000000000), (0xFFF0000000000000,0x7FF8000000000000), "
                           "(0x7FF0000000000001,1.0e300)]>");
    plumb_tensor_free(y);
}

/* A splat pair fills every element; a uniform tensor prints as one pair. */
static void test_splat(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2};
    plumb_tensor *x = mk(PLUMB_C128, 2, dims);
    plumb_diag d;
    assert_true(dec(x, "(1.5,-2.0)", &d));
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(f64_at(x, 2 * i), 0x3FF8000000000000ull);       /* 1.5 */
        assert_int_equal(f64_at(x, 2 * i + 1), 0xC000000000000000ull);   /* -2.0 */
    }
    expect_print(x, false, "dense<(1.5,-2.0)>");
    plumb_tensor_free(x);
}

/* The raw form: little-endian bytes, real then imaginary, per element; one
 * element's bytes are a splat. */
static void test_raw(void **state)
{
    (void)state;
    int64_t n = 2;
    plumb_tensor *x = mk(PLUMB_C128, 1, &n);
    plumb_diag d;
    assert_true(dec(x, "\"0x000000000000F03F0000000000000040000000000000F0BF00000000000000C0\"", &d));
    assert_int_equal(f64_at(x, 0), 0x3FF0000000000000ull);   /* 1.0 */
    assert_int_equal(f64_at(x, 1), 0x4000000000000000ull);   /* 2.0 */
    assert_int_equal(f64_at(x, 2), 0xBFF0000000000000ull);   /* -1.0 */
    assert_int_equal(f64_at(x, 3), 0xC000000000000000ull);   /* -2.0 */
    expect_print(x, false, "dense<[(1.0,2.0), (-1.0,-2.0)]>");
    expect_print(x, true, "dense<\"0x000000000000F03F0000000000000040000000000000F0BF00000000000000C0\">");
    plumb_tensor_free(x);

    plumb_tensor *y = mk(PLUMB_C64, 1, &n);
    assert_true(dec(y, "\"0x0000803F00000040\"", &d));   /* one element: a splat of (1, 2) */
    assert_int_equal(f32_at(y, 0), 0x3F800000u);
    assert_int_equal(f32_at(y, 1), 0x40000000u);
    assert_int_equal(f32_at(y, 2), 0x3F800000u);
    assert_int_equal(f32_at(y, 3), 0x40000000u);
    /* 12 bytes are neither 2 elements (16) nor one (8) */
    assert_false(dec(y, "\"0x0000803F000000400000803F\"", &d));
    assert_int_equal(d.code, PLUMB_ERR_INVALID);
    assert_non_null(strstr(d.msg, "expected 16"));
    plumb_tensor_free(y);
}

/* Malformed pairs name what is wrong; a pair is not a float element. */
static void test_bad(void **state)
{
    (void)state;
    plumb_tensor *x = mk(PLUMB_C64, 0, NULL);
    plumb_diag d;
    assert_false(dec(x, "1.0", &d));
    assert_non_null(strstr(d.msg, "expected '('"));
    assert_false(dec(x, "(1.0 2.0)", &d));
    assert_non_null(strstr(d.msg, "expected ','"));
    assert_false(dec(x, "(1.0,2.0", &d));
    assert_non_null(strstr(d.msg, "expected ')'"));
    assert_false(dec(x, "(1.0,1e39)", &d));   /* above binary32's range */
    assert_int_equal(d.code, PLUMB_ERR_INVALID);
    assert_non_null(strstr(d.msg, "out of range for f32"));
    plumb_tensor_free(x);
    plumb_tensor *f = mk(PLUMB_F32, 0, NULL);
    assert_false(dec(f, "(1.0,2.0)", &d));
    assert_non_null(strstr(d.msg, "complex tensor"));
    plumb_tensor_free(f);
}

/* Tensor files keep complex elements bit for bit. */
static void test_tensorfile(void **state)
{
    (void)state;
    int64_t n = 2;
    plumb_tensor *x = mk(PLUMB_C128, 1, &n);
    plumb_diag d;
    assert_true(dec(x, "[(1.0,-0.0), (nan,0x0000000000000001)]", &d));
    size_t len = 0;
    void *buf = plumb_tensor_serialize(x, &len, &d);
    assert_non_null(buf);
    plumb_tensor *y = plumb_tensor_load_mem(buf, len, "mem", 0, &d);
    assert_non_null(y);
    assert_int_equal(y->dtype, PLUMB_C128);
    assert_int_equal(y->nbytes, 32);
    assert_memory_equal(x->data, y->data, 32);
    plumb_free(buf, len);
    plumb_tensor_free(x);
    plumb_tensor_free(y);
}

/* The verifier takes complex on the ops that opted in and names the type
 * on the others. */
static void test_verify_opt_in(void **state)
{
    (void)state;
    assert_true(ir_complex_accepts(PLUMB_OP_RESHAPE));
    assert_false(ir_complex_accepts(PLUMB_OP_FLOOR));   /* floor is real-only in the spec */
    const char *src =
        "func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n"
        "  %0 = stablehlo.floor %a : tensor<2xcomplex<f32>>\n"
        "  return %0 : tensor<2xcomplex<f32>>\n"
        "}\n";
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, strlen(src), "t.mlir", NULL, &d);
    if (m) {
        assert_false(ir_verify(m, NULL, &d));
        ir_module_free(m);
    }
    assert_non_null(strstr(d.msg, "complex<f32> is not accepted"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_splat),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_tensorfile),
        cmocka_unit_test(test_verify_opt_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
