/* Tests of the reference on polymorphic programs: entries with `?`
 * parameters run at sizes 0, 1, odd and the bound; every dynamic op on
 * values worked out by hand from the StableHLO spec; the run-time errors
 * (a size above its bound, bad shape-operand values, a failing
 * shape_assertion); and a `?` program giving the same bits as the same
 * program written with static shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref_test.h"

static ir_module *parse_ok(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "dyn.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

/* Runs src on inputs expecting failure with code; returns the message. */
static void run_fails(const char *src, plumb_tensor *const *inputs, uint32_t n, plumb_code code,
                      const char *const *words, uint32_t n_words)
{
    ir_module *m = parse_ok(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    bool ok = plumb_ref_run(m, NULL, inputs, n, NULL, &res, &d);
    if (ok)
        plumb_ref_result_free(&res);
    /* d.file points into the module: checked before the module goes */
    bool file_ok = d.file && !strcmp(d.file, "dyn.mlir");
    ir_module_free(m);
    assert_false(ok);
    if (d.code != code)
        fprintf(stderr, "code %s, message: %s\n", plumb_code_name(d.code), d.msg);
    assert_int_equal(d.code, code);
    assert_true(file_ok);
    for (uint32_t i = 0; i < n_words; i++) {
        if (!strstr(d.msg, words[i]))
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", d.msg, words[i]);
        assert_non_null(strstr(d.msg, words[i]));
    }
}
#define RUN_FAILS(src, in, n, code, ...) \
    run_fails(src, in, n, code, (const char *const[]){__VA_ARGS__}, \
              (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)))

/* A tensor of dtype t with the given dims whose element i holds vals[i]
 * (integers, or floats for float types). */
static plumb_tensor *tens(plumb_dtype t, uint32_t rank, const int64_t *dims, const double *vals)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        double v = vals ? vals[i] : 0;
        uint64_t bits;
        switch (t) {
        case PLUMB_F32: bits = plumb_f32_bits((float)v); break;
        case PLUMB_F64: bits = plumb_f64_bits(v); break;
        default: bits = (uint64_t)(int64_t)v; break;
        }
        plumb_store_bits(t, x->data, i, bits);
    }
    return x;
}
#define DIMS(...) ((int64_t[]){__VA_ARGS__})
#define VALS(...) ((double[]){__VA_ARGS__})
#define T1(t, n, ...) tens(t, 1, DIMS(n), VALS(__VA_ARGS__))

static void expect_shape(const plumb_ref_result *r, uint32_t k, uint32_t rank, const int64_t *dims)
{
    assert_true(k < r->n_outputs);
    const plumb_tensor *t = r->outputs[k];
    assert_int_equal(t->rank, rank);
    for (uint32_t i = 0; i < rank; i++)
        assert_int_equal(t->dims[i], dims[i]);
}
#define SHAPE(r, k, ...) expect_shape(r, k, (uint32_t)(sizeof(DIMS(__VA_ARGS__)) / sizeof(int64_t)), DIMS(__VA_ARGS__))

static void free_all(plumb_tensor **t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(t[i]);
}

#define BND "#stablehlo.bounds<8>"

static const char *ew_src =
    "func.func @main(%x: tensor<?xf32, " BND ">, %y: tensor<?xf32, " BND ">) -> tensor<?xf32, " BND "> {\n"
    "  %m = stablehlo.multiply %x, %y : tensor<?xf32, " BND ">\n"
    "  %r = stablehlo.add %m, %x : tensor<?xf32, " BND ">\n"
    "  func.return %r : tensor<?xf32, " BND ">\n}\n";

/* x * y + x at sizes 0, 1, 5 (odd) and 8 (the bound): x = 1..n, y = 2,
 * so element i is 3 * (i + 1), exact in f32; results carry size n. */
static void test_elementwise_sizes(void **state)
{
    (void)state;
    int64_t sizes[] = {0, 1, 5, 8};
    for (int s = 0; s < 4; s++) {
        int64_t n = sizes[s];
        double xv[8], yv[8];
        for (int i = 0; i < n; i++) {
            xv[i] = i + 1;
            yv[i] = 2;
        }
        plumb_tensor *in[2] = {tens(PLUMB_F32, 1, DIMS(n), xv), tens(PLUMB_F32, 1, DIMS(n), yv)};
        plumb_ref_result r = run_inputs(ew_src, in, 2);
        SHAPE(&r, 0, n);
        for (int i = 0; i < n; i++)
            expect_f32(&r, 0, (size_t)i, (float)(3 * (i + 1)));
        plumb_ref_result_free(&r);
        free_all(in, 2);
    }
}

/* A size above the bound is refused before anything runs, with the words
 * of ir_shape_check_args; operands of different actual sizes are refused
 * at the op that needs them equal. */
static void test_bound_and_mismatch_errors(void **state)
{
    (void)state;
    plumb_tensor *in[2] = {tens(PLUMB_F32, 1, DIMS(9), NULL), tens(PLUMB_F32, 1, DIMS(9), NULL)};
    RUN_FAILS(ew_src, in, 2, PLUMB_ERR_USAGE, "input 0 has type tensor<9xf32>", "parameter 0 (%x)",
              "dimension 0: size 9 exceeds its bound 8");
    free_all(in, 2);
    plumb_tensor *in2[2] = {tens(PLUMB_F32, 1, DIMS(3), NULL), tens(PLUMB_F32, 1, DIMS(4), NULL)};
    RUN_FAILS(ew_src, in2, 2, PLUMB_ERR_INVALID, "stablehlo.multiply", "operand 1 (%y)", "tensor<4xf32>",
              "tensor<3xf32>");
    free_all(in2, 2);
}

/* The same computation written with `?` and with static shapes gives the
 * same bits: tanh, a division, a reduction and a dot at size 7 (the values
 * are irrational, so equal bits mean the same operations in the same order). */
static void test_same_bits_as_static(void **state)
{
    (void)state;
    const char *fmt =
        "func.func @main(%%x: tensor<%sx3xf32>, %%w: tensor<3x2xf32>) -> (tensor<%sx2xf32>, tensor<%sxf32>) {\n"
        "  %%t = stablehlo.tanh %%x : tensor<%sx3xf32>\n"
        "  %%q = stablehlo.divide %%t, %%x : tensor<%sx3xf32>\n"
        "  %%d = stablehlo.dot_general %%q, %%w, contracting_dims = [1] x [0] : (tensor<%sx3xf32>, tensor<3x2xf32>) -> tensor<%sx2xf32>\n"
        "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %%s = stablehlo.reduce(%%q init: %%z) applies stablehlo.add across dimensions = [1] : (tensor<%sx3xf32>, tensor<f32>) -> tensor<%sxf32>\n"
        "  func.return %%d, %%s : tensor<%sx2xf32>, tensor<%sxf32>\n}\n";
    char dyn[2048], stat[2048];
    snprintf(dyn, sizeof dyn, fmt, "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?");
    snprintf(stat, sizeof stat, fmt, "7", "7", "7", "7", "7", "7", "7", "7", "7", "7", "7");
    double xv[21], wv[6];
    for (int i = 0; i < 21; i++)
        xv[i] = 0.1 * (i + 1) - 1.05;
    for (int i = 0; i < 6; i++)
        wv[i] = 1.0 / (i + 3);
    plumb_tensor *in[2] = {tens(PLUMB_F32, 2, DIMS(7, 3), xv), tens(PLUMB_F32, 2, DIMS(3, 2), wv)};
    plumb_ref_result a = run_inputs(dyn, in, 2), b = run_inputs(stat, in, 2);
    assert_int_equal(a.n_outputs, 2);
    for (uint32_t k = 0; k < 2; k++)
        assert_true(plumb_tensor_equal(a.outputs[k], b.outputs[k]));
    SHAPE(&a, 0, 7, 2);
    SHAPE(&a, 1, 7);
    plumb_ref_result_free(&a);
    plumb_ref_result_free(&b);
    free_all(in, 2);
}

/* func.call passes the actual shape to a `?` callee and returns what it
 * returns: @twice(x) = x + x at size 3 gives 2, 4, 6 with shape [3]. */
static void test_call_dynamic(void **state)
{
    (void)state;
    const char *src =
        "func.func private @twice(%a: tensor<?xi32>) -> tensor<?xi32> {\n"
        "  %r = stablehlo.add %a, %a : tensor<?xi32>\n"
        "  func.return %r : tensor<?xi32>\n}\n"
        "func.func @main(%x: tensor<?xi32>) -> tensor<?xi32> {\n"
        "  %r = func.call @twice(%x) : (tensor<?xi32>) -> tensor<?xi32>\n"
        "  func.return %r : tensor<?xi32>\n}\n";
    plumb_tensor *in[1] = {T1(PLUMB_I32, 3, 1, 2, 3)};
    plumb_ref_result r = run_inputs(src, in, 1);
    SHAPE(&r, 0, 3);
    expect_int(&r, 0, 0, 2);
    expect_int(&r, 0, 1, 4);
    expect_int(&r, 0, 2, 6);
    plumb_ref_result_free(&r);
    free_all(in, 1);
}

/* get_dimension_size of a ?x2 operand with 5 rows is 5; of 0 rows, 0. */
static void test_get_dimension_size(void **state)
{
    (void)state;
    const char *src = "func.func @main(%x: tensor<?x2xf32>) -> tensor<i32> {\n"
                      "  %r = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>\n"
                      "  func.return %r : tensor<i32>\n}\n";
    int64_t sizes[] = {5, 0};
    for (int s = 0; s < 2; s++) {
        plumb_tensor *in[1] = {tens(PLUMB_F32, 2, DIMS(sizes[s], 2), NULL)};
        plumb_ref_result r = run_inputs(src, in, 1);
        expect_int(&r, 0, 0, sizes[s]);
        plumb_ref_result_free(&r);
        free_all(in, 1);
    }
}

static const char *dbcast_src =
    "func.func @main(%x: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {\n"
    "  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>\n"
    "  func.return %r : tensor<?x?xf32>\n}\n";

/* dynamic_broadcast_in_dim of [1, 2, 3] to [2, 3]: each row is the
 * operand; of [7] (size 1, expanding) to [2, 4]: eight 7s; to [0, 4]:
 * empty; [1, 2, 3] to [2, 4]: 3 is neither 1 nor 4; a negative output
 * dimension is named with its value. */
static void test_dynamic_broadcast(void **state)
{
    (void)state;
    plumb_tensor *in[2] = {T1(PLUMB_F32, 3, 1, 2, 3), T1(PLUMB_I64, 2, 2, 3)};
    plumb_ref_result r = run_inputs(dbcast_src, in, 2);
    SHAPE(&r, 0, 2, 3);
    float want[] = {1, 2, 3, 1, 2, 3};
    for (int i = 0; i < 6; i++)
        expect_f32(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
    free_all(in, 2);

    plumb_tensor *in2[2] = {T1(PLUMB_F32, 1, 7), T1(PLUMB_I64, 2, 2, 4)};
    r = run_inputs(dbcast_src, in2, 2);
    SHAPE(&r, 0, 2, 4);
    for (int i = 0; i < 8; i++)
        expect_f32(&r, 0, (size_t)i, 7);
    plumb_ref_result_free(&r);
    free_all(in2, 2);

    plumb_tensor *in3[2] = {T1(PLUMB_F32, 1, 7), T1(PLUMB_I64, 2, 0, 4)};
    r = run_inputs(dbcast_src, in3, 2);
    SHAPE(&r, 0, 0, 4);
    plumb_ref_result_free(&r);
    free_all(in3, 2);

    plumb_tensor *in4[2] = {T1(PLUMB_F32, 3, 1, 2, 3), T1(PLUMB_I64, 2, 2, 4)};
    RUN_FAILS(dbcast_src, in4, 2, PLUMB_ERR_INVALID, "stablehlo.dynamic_broadcast_in_dim", "operand dimension 0",
              "size 3", "4");
    free_all(in4, 2);

    plumb_tensor *in5[2] = {T1(PLUMB_F32, 3, 1, 2, 3), T1(PLUMB_I64, 2, -2, 3)};
    RUN_FAILS(dbcast_src, in5, 2, PLUMB_ERR_INVALID, "stablehlo.dynamic_broadcast_in_dim",
              "operand 1 (%s) (output_dimensions) element 0: value -2 is negative");
    free_all(in5, 2);
}

/* A broken known_expanding_dimensions hint is an error: operand dimension
 * 0 has size 3, not 1. */
static void test_dynamic_broadcast_hint(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<?xf32>, %s: tensor<1xi32>) -> tensor<?xf32> {\n"
        "  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0] {known_expanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>\n"
        "  func.return %r : tensor<?xf32>\n}\n";
    plumb_tensor *in[2] = {T1(PLUMB_F32, 3, 1, 2, 3), T1(PLUMB_I32, 1, 3)};
    RUN_FAILS(src, in, 2, PLUMB_ERR_INVALID, "known_expanding_dimensions", "size 3");
    free_all(in, 2);
}

static const char *dreshape_src =
    "func.func @main(%x: tensor<?xi32>, %s: tensor<2xi32>) -> tensor<?x?xi32> {\n"
    "  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xi32>, tensor<2xi32>) -> tensor<?x?xi32>\n"
    "  func.return %r : tensor<?x?xi32>\n}\n";

/* dynamic_reshape keeps row-major order: 1..6 as [3, 2] is
 * [[1,2],[3,4],[5,6]]; as [4, 2] the counts 6 and 8 differ; a ui64 shape
 * value of 2^63 does not fit a size. */
static void test_dynamic_reshape(void **state)
{
    (void)state;
    plumb_tensor *in[2] = {T1(PLUMB_I32, 6, 1, 2, 3, 4, 5, 6), T1(PLUMB_I32, 2, 3, 2)};
    plumb_ref_result r = run_inputs(dreshape_src, in, 2);
    SHAPE(&r, 0, 3, 2);
    for (int i = 0; i < 6; i++)
        expect_int(&r, 0, (size_t)i, i + 1);
    plumb_ref_result_free(&r);
    plumb_tensor_free(in[1]);
    in[1] = T1(PLUMB_I32, 2, 4, 2);
    RUN_FAILS(dreshape_src, in, 2, PLUMB_ERR_INVALID, "stablehlo.dynamic_reshape", "6", "8");
    free_all(in, 2);

    const char *src64 =
        "func.func @main(%x: tensor<?xi32>, %s: tensor<1xui64>) -> tensor<?xi32> {\n"
        "  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xi32>, tensor<1xui64>) -> tensor<?xi32>\n"
        "  func.return %r : tensor<?xi32>\n}\n";
    plumb_tensor *in2[2] = {T1(PLUMB_I32, 2, 1, 2), T1(PLUMB_UI64, 1, 0)};
    plumb_store_bits(PLUMB_UI64, in2[1]->data, 0, UINT64_C(1) << 63);
    RUN_FAILS(src64, in2, 2, PLUMB_ERR_INVALID, "stablehlo.dynamic_reshape", "9223372036854775808",
              "does not fit");
    free_all(in2, 2);
}

/* dynamic_iota of shape [2, 3] along dimension 1: 0 1 2 0 1 2; of [0, 3]:
 * empty. */
static void test_dynamic_iota(void **state)
{
    (void)state;
    const char *src = "func.func @main(%s: tensor<2xi64>) -> tensor<?x?xf32> {\n"
                      "  %r = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<?x?xf32>\n"
                      "  func.return %r : tensor<?x?xf32>\n}\n";
    plumb_tensor *in[1] = {T1(PLUMB_I64, 2, 2, 3)};
    plumb_ref_result r = run_inputs(src, in, 1);
    SHAPE(&r, 0, 2, 3);
    float want[] = {0, 1, 2, 0, 1, 2};
    for (int i = 0; i < 6; i++)
        expect_f32(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
    free_all(in, 1);
    plumb_tensor *in2[1] = {T1(PLUMB_I64, 2, 0, 3)};
    r = run_inputs(src, in2, 1);
    SHAPE(&r, 0, 0, 3);
    plumb_ref_result_free(&r);
    free_all(in2, 1);
}

static const char *rds_src =
    "func.func @main(%x: tensor<?xi32>, %a: tensor<1xi32>, %b: tensor<1xi32>, %c: tensor<1xi32>) -> tensor<?xi32> {\n"
    "  %r = stablehlo.real_dynamic_slice %x, %a, %b, %c : (tensor<?xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32>\n"
    "  func.return %r : tensor<?xi32>\n}\n";

/* real_dynamic_slice of 0..9 from 1 to 8 by 3: ceil(7 / 3) = 3 elements
 * 1, 4, 7; from 4 to 4: empty; a limit of 11 past the 10 elements, and a
 * stride of 0, are errors (never clamped). */
static void test_real_dynamic_slice(void **state)
{
    (void)state;
    plumb_tensor *in[4] = {T1(PLUMB_I32, 10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), T1(PLUMB_I32, 1, 1),
                           T1(PLUMB_I32, 1, 8), T1(PLUMB_I32, 1, 3)};
    plumb_ref_result r = run_inputs(rds_src, in, 4);
    SHAPE(&r, 0, 3);
    expect_int(&r, 0, 0, 1);
    expect_int(&r, 0, 1, 4);
    expect_int(&r, 0, 2, 7);
    plumb_ref_result_free(&r);

    plumb_store_bits(PLUMB_I32, in[1]->data, 0, 4);
    plumb_store_bits(PLUMB_I32, in[2]->data, 0, 4);
    r = run_inputs(rds_src, in, 4);
    SHAPE(&r, 0, 0);
    plumb_ref_result_free(&r);

    plumb_store_bits(PLUMB_I32, in[1]->data, 0, 1);
    plumb_store_bits(PLUMB_I32, in[2]->data, 0, 11);
    RUN_FAILS(rds_src, in, 4, PLUMB_ERR_INVALID, "stablehlo.real_dynamic_slice", "dimension 0",
              "limit_indices (11)", "operand size (10)");
    plumb_store_bits(PLUMB_I32, in[2]->data, 0, 8);
    plumb_store_bits(PLUMB_I32, in[3]->data, 0, 0);
    RUN_FAILS(rds_src, in, 4, PLUMB_ERR_INVALID, "stablehlo.real_dynamic_slice", "strides[0] = 0");
    free_all(in, 4);
}

static const char *dpad_src =
    "func.func @main(%x: tensor<?xi32>, %p: tensor<i32>, %lo: tensor<1xi64>, %hi: tensor<1xi64>, %in: tensor<1xi64>) -> tensor<?xi32> {\n"
    "  %r = stablehlo.dynamic_pad %x, %p, %lo, %hi, %in : (tensor<?xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>\n"
    "  func.return %r : tensor<?xi32>\n}\n";

/* dynamic_pad of [1, 2, 3] with 0, low 1, high -1, interior 1:
 * interior 1 0 2 0 3, low 0 1 0 2 0 3, high -1 drops the last: 0 1 0 2 0
 * (1 - 1 + 3 + 2 * 1 = 5); of an empty operand with low 0, high -1: size
 * -1, an error. */
static void test_dynamic_pad(void **state)
{
    (void)state;
    plumb_tensor *in[5] = {T1(PLUMB_I32, 3, 1, 2, 3), tens(PLUMB_I32, 0, NULL, VALS(0)), T1(PLUMB_I64, 1, 1),
                           T1(PLUMB_I64, 1, -1), T1(PLUMB_I64, 1, 1)};
    plumb_ref_result r = run_inputs(dpad_src, in, 5);
    SHAPE(&r, 0, 5);
    int want[] = {0, 1, 0, 2, 0};
    for (int i = 0; i < 5; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
    plumb_tensor_free(in[0]);
    in[0] = tens(PLUMB_I32, 1, DIMS(0), NULL);
    plumb_store_bits(PLUMB_I64, in[2]->data, 0, 0);
    RUN_FAILS(dpad_src, in, 5, PLUMB_ERR_INVALID, "stablehlo.dynamic_pad", "dimension 0", "negative");
    free_all(in, 5);
}

/* dynamic_gather of rows 0 and 2 of [[1,2,3],[4,5,6],[7,8,9]] with
 * slice_sizes [1, 2]: [[1, 2], [7, 8]]; slice_sizes [1, 4] exceed the 3
 * columns. */
static void test_dynamic_gather(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<3x3xi32>, %i: tensor<2x1xi32>, %s: tensor<2xi32>) -> tensor<2x?xi32> {\n"
        "  %g = \"stablehlo.dynamic_gather\"(%x, %i, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<3x3xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x?xi32>\n"
        "  func.return %g : tensor<2x?xi32>\n}\n";
    plumb_tensor *in[3] = {tens(PLUMB_I32, 2, DIMS(3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9)),
                           tens(PLUMB_I32, 2, DIMS(2, 1), VALS(0, 2)), T1(PLUMB_I32, 2, 1, 2)};
    plumb_ref_result r = run_inputs(src, in, 3);
    SHAPE(&r, 0, 2, 2);
    int want[] = {1, 2, 7, 8};
    for (int i = 0; i < 4; i++)
        expect_int(&r, 0, (size_t)i, want[i]);
    plumb_ref_result_free(&r);
    plumb_store_bits(PLUMB_I32, in[2]->data, 1, 4);
    RUN_FAILS(src, in, 3, PLUMB_ERR_INVALID, "stablehlo.dynamic_gather", "slice_sizes[1] = 4");
    free_all(in, 3);
}

/* shape_assertion: a true predicate lets the run go on and counts no
 * check; a false one fails the run with the program's message, {0} and {1}
 * replaced by the values of operands 1 and 2 (9 and the ui32 4000000000),
 * and a `{x}` that is no reference kept as written. */
static void test_shape_assertion(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<?xf32>, %lim: tensor<ui32>) -> tensor<?xf32> {\n"
        "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>\n"
        "  %c = stablehlo.constant dense<8> : tensor<i32>\n"
        "  %ok = stablehlo.compare LE, %n, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  stablehlo.custom_call @shape_assertion(%ok, %n, %lim) {error_message = \"size {0} above 8 (limit {1}, {x})\", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<ui32>) -> ()\n"
        "  func.return %x : tensor<?xf32>\n}\n";
    plumb_tensor *in[2] = {tens(PLUMB_F32, 1, DIMS(8), NULL), tens(PLUMB_UI32, 0, NULL, VALS(0))};
    plumb_store_bits(PLUMB_UI32, in[1]->data, 0, 4000000000u);
    plumb_ref_result r = run_inputs(src, in, 2);
    assert_int_equal(r.checks_run, 0);
    SHAPE(&r, 0, 8);
    plumb_ref_result_free(&r);
    plumb_tensor_free(in[0]);
    in[0] = tens(PLUMB_F32, 1, DIMS(9), NULL);
    RUN_FAILS(src, in, 2, PLUMB_ERR_RUNTIME, "shape assertion failed: size 9 above 8 (limit 4000000000, {x})");
    free_all(in, 2);
}

/* Refinement: the program of test_same_bits_as_static refined to x = 7x3
 * (plumb_ref_refine) has static types only, and gives the same bits as
 * the '?' program run at that size; a shape outside the bound is refused
 * with the parameter named. */
static void test_refine_same_bits(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<?x3xf32, #stablehlo.bounds<8, ?>>, %w: tensor<3x2xf32>) -> tensor<?x2xf32, #stablehlo.bounds<8, ?>> {\n"
        "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>\n"
        "  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>\n"
        "  %c2 = stablehlo.constant dense<2> : tensor<1xi32>\n"
        "  %s = stablehlo.concatenate %n1, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
        "  %t = stablehlo.tanh %x : tensor<?x3xf32, #stablehlo.bounds<8, ?>>\n"
        "  %d = stablehlo.dot_general %t, %w, contracting_dims = [1] x [0] : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>, tensor<3x2xf32>) -> tensor<?x2xf32, #stablehlo.bounds<8, ?>>\n"
        "  %b = stablehlo.constant dense<0.5> : tensor<f32>\n"
        "  %bb = stablehlo.dynamic_broadcast_in_dim %b, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x2xf32, #stablehlo.bounds<8, ?>>\n"
        "  %r = stablehlo.add %d, %bb : tensor<?x2xf32, #stablehlo.bounds<8, ?>>\n"
        "  return %r : tensor<?x2xf32, #stablehlo.bounds<8, ?>>\n}\n";
    ir_module *m = parse_ok(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t xd[] = {7, 3}, wd[] = {3, 2};
    ir_type at[2] = {ir_type_make(PLUMB_F32, 2, xd), ir_type_make(PLUMB_F32, 2, wd)};
    ir_module *r = plumb_ref_refine(m, NULL, at, 2, 0, &d);
    if (!r)
        plumb_diag_print(&d, stderr);
    assert_non_null(r);
    const ir_func *f = ir_module_find_func(r, "main");
    assert_non_null(f);
    assert_true(ir_type_is_static(&f->result_types[0]));
    assert_int_equal(f->result_types[0].dims[0], 7);
    for (const ir_op *op = f->body.first; op; op = op->next) {
        assert_int_not_equal(op->code, PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM);
        assert_int_not_equal(op->code, PLUMB_OP_GET_DIMENSION_SIZE);
        for (uint32_t j = 0; j < op->n_results; j++)
            assert_true(ir_type_is_static(&op->results[j]->type));
    }
    double xv[21], wv[6];
    for (int i = 0; i < 21; i++)
        xv[i] = 0.37 * i - 3.1;
    for (int i = 0; i < 6; i++)
        wv[i] = 1.0 / (i + 7);
    plumb_tensor *in[2] = {tens(PLUMB_F32, 2, xd, xv), tens(PLUMB_F32, 2, wd, wv)};
    plumb_ref_result a, b;
    assert_true(plumb_ref_run(m, NULL, in, 2, NULL, &a, &d));
    assert_true(plumb_ref_run(r, NULL, in, 2, NULL, &b, &d));
    assert_true(plumb_tensor_equal(a.outputs[0], b.outputs[0]));
    SHAPE(&b, 0, 7, 2);
    plumb_ref_result_free(&a);
    plumb_ref_result_free(&b);
    free_all(in, 2);
    ir_module_free(r);

    xd[0] = 9;
    at[0] = ir_type_make(PLUMB_F32, 2, xd);
    memset(&d, 0, sizeof d);
    assert_null(plumb_ref_refine(m, NULL, at, 2, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "parameter 0 (%x) dimension 0: size 9 exceeds its bound 8"));
    ir_module_free(m);
}

typedef struct alloc_stats {
    long count, fail_at, live;
} alloc_stats;

/* The allocator hook: counts allocations and live blocks, refuses the
 * fail_at-th allocation. */
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    alloc_stats *st = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr)
            st->live--;
        free(ptr);
        return NULL;
    }
    st->count++;
    if (st->fail_at && st->count == st->fail_at)
        return NULL;
    if (!ptr) {
        void *q = malloc(nsize);
        if (q)
            st->live++;
        return q;
    }
    return realloc(ptr, nsize);
}

static const char *refine_src =
    "func.func @main(%x: tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<?x3xf32, #stablehlo.bounds<8, ?>> {\n"
    "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>\n"
    "  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>\n"
    "  %c3 = stablehlo.constant dense<3> : tensor<1xi32>\n"
    "  %s = stablehlo.concatenate %n1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
    "  %b = stablehlo.constant dense<0.5> : tensor<f32>\n"
    "  %bb = stablehlo.dynamic_broadcast_in_dim %b, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32, #stablehlo.bounds<8, ?>>\n"
    "  %r = stablehlo.add %x, %bb : tensor<?x3xf32, #stablehlo.bounds<8, ?>>\n"
    "  return %r : tensor<?x3xf32, #stablehlo.bounds<8, ?>>\n}\n";

/* Failing the n-th allocation, for every n that refinement and a dynamic
 * run make, fails them with an error and leaks nothing; the next n
 * succeeds. */
static void test_allocation_failures(void **state)
{
    (void)state;
    ir_module *m = parse_ok(refine_src);
    int64_t xd[] = {5, 3};
    ir_type at = ir_type_make(PLUMB_F32, 2, xd);
    plumb_tensor *in = tens(PLUMB_F32, 2, xd, NULL);
    for (int what = 0; what < 2; what++) {
        bool succeeded = false;
        long n;
        for (n = 1; n < 20000 && !succeeded; n++) {
            alloc_stats st = {.fail_at = n};
            plumb_set_allocator(counting_alloc, &st);
            plumb_diag d;
            memset(&d, 0, sizeof d);
            bool ok;
            if (what == 0) {
                ir_module *r = plumb_ref_refine(m, NULL, &at, 1, 0, &d);
                ok = r != NULL;
                ir_module_free(r);
            } else {
                plumb_ref_result res;
                ok = plumb_ref_run(m, NULL, &in, 1, NULL, &res, &d);
                if (ok)
                    plumb_ref_result_free(&res);
            }
            plumb_set_allocator(NULL, NULL);
            if (ok)
                succeeded = st.count < n;   /* no allocation was refused */
            else
                assert_int_not_equal(d.code, PLUMB_OK);
            if (st.live != 0)
                fprintf(stderr, "%s: failing allocation %ld leaves %ld blocks\n", what ? "run" : "refine", n, st.live);
            assert_int_equal(st.live, 0);
        }
        assert_true(succeeded);
        assert_true(n > 5);
    }
    plumb_tensor_free(in);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elementwise_sizes),
        cmocka_unit_test(test_bound_and_mismatch_errors),
        cmocka_unit_test(test_same_bits_as_static),
        cmocka_unit_test(test_call_dynamic),
        cmocka_unit_test(test_get_dimension_size),
        cmocka_unit_test(test_dynamic_broadcast),
        cmocka_unit_test(test_dynamic_broadcast_hint),
        cmocka_unit_test(test_dynamic_reshape),
        cmocka_unit_test(test_dynamic_iota),
        cmocka_unit_test(test_real_dynamic_slice),
        cmocka_unit_test(test_dynamic_pad),
        cmocka_unit_test(test_dynamic_gather),
        cmocka_unit_test(test_shape_assertion),
        cmocka_unit_test(test_refine_same_bits),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
