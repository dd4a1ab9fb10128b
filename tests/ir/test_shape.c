/* Tests of concrete shape inference at run time (ir/shape.c). Each case
 * parses a one-function program whose types hold `?` dimensions, hands the
 * first op of @main operand tensors of given actual sizes, and compares the
 * concrete result dims with ones worked out by hand from the StableHLO
 * spec's formulas, or the error with the words it must contain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/shape.h"

#define MAXIN 6

typedef struct sc {
    ir_module *m;
    const ir_func *f;
    plumb_tensor *in[MAXIN];
    uint32_t n_in;
    ir_type out[4];
    plumb_diag d;
} sc;

static void sc_parse(sc *s, const char *src)
{
    memset(s, 0, sizeof *s);
    s->m = ir_parse(src, strlen(src), "shape.mlir", NULL, &s->d);
    if (!s->m)
        plumb_diag_print(&s->d, stderr);
    assert_non_null(s->m);
    bool ok = ir_verify(s->m, NULL, &s->d);
    if (!ok)
        plumb_diag_print(&s->d, stderr);
    assert_true(ok);
    s->f = ir_module_find_func(s->m, "main");
    assert_non_null(s->f);
}

/* Adds an operand tensor of dtype t and the given dims (rank entries). */
static plumb_tensor *sc_in(sc *s, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    assert_true(s->n_in < MAXIN);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &s->d);
    assert_non_null(x);
    s->in[s->n_in++] = x;
    return x;
}

#define DIMS(...) ((int64_t[]){__VA_ARGS__})
#define NDIMS(...) ((uint32_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define IN(s, t, ...) sc_in(s, t, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))
#define IN0(s, t) sc_in(s, t, 0, NULL)

/* Infers the first op of @main (or the op at index k) with limit max_bytes. */
static bool sc_infer_at(sc *s, uint32_t k, uint64_t max_bytes)
{
    const ir_op *op = s->f->body.first;
    for (uint32_t i = 0; i < k; i++)
        op = op->next;
    memset(&s->d, 0, sizeof s->d);
    return ir_shape_infer(op, (const plumb_tensor *const *)s->in, s->out, max_bytes, &s->d);
}

static bool sc_infer(sc *s) { return sc_infer_at(s, 0, 0); }

static void sc_free(sc *s)
{
    for (uint32_t i = 0; i < s->n_in; i++)
        plumb_tensor_free(s->in[i]);
    ir_module_free(s->m);
}

static void expect_dims(const ir_type *t, plumb_dtype dtype, uint32_t rank, const int64_t *dims)
{
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    for (uint32_t i = 0; i < rank; i++) {
        assert_int_equal(t->dims[i], dims[i]);
        assert_int_equal(t->bounds[i], PLUMB_NO_BOUND);
    }
}
#define EXPECT(t, dt, ...) expect_dims(t, dt, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

static void expect_error(const sc *s, plumb_code code, const char *const *words, uint32_t n)
{
    assert_int_equal(s->d.code, code);
    for (uint32_t i = 0; i < n; i++) {
        if (!strstr(s->d.msg, words[i]))
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", s->d.msg, words[i]);
        assert_non_null(strstr(s->d.msg, words[i]));
    }
}
#define EXPECT_ERR(s, code, ...) \
    expect_error(s, code, (const char *const[]){__VA_ARGS__}, \
                 (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)))

#define B8 "#stablehlo.bounds<8>"

/* add of two `?` operands: the result has their common actual size, and the
 * location of the op is reported. */
static void test_add_equal_sizes(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?xf32, " B8 ">, %b: tensor<?xf32, " B8 ">) -> tensor<?xf32, " B8 "> {\n"
                 "  %r = stablehlo.add %a, %b : tensor<?xf32, " B8 ">\n"
                 "  func.return %r : tensor<?xf32, " B8 ">\n}\n");
    IN(&s, PLUMB_F32, 5);
    IN(&s, PLUMB_F32, 5);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 5);
    sc_free(&s);
}

/* add of `?` operands whose actual sizes differ (3 and 4): StableHLO has no
 * implicit broadcasting, so this is an error naming the op, its line, the
 * operand and both sizes. */
static void test_add_mismatch(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n"
                 "  %r = stablehlo.add %a, %b : tensor<?xf32>\n"
                 "  func.return %r : tensor<?xf32>\n}\n");
    IN(&s, PLUMB_F32, 3);
    IN(&s, PLUMB_F32, 4);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.add", "operand 1 (%b)", "tensor<4xf32>", "tensor<3xf32>",
               "run time");
    assert_int_equal(s.d.loc.line, 2);
    sc_free(&s);
}

/* A `?` operand feeding a result declared static 4 (the verifier accepts
 * the compatible pair): at size 3 the declared size is contradicted. */
static void test_declared_static_contradicted(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?xf32>) -> tensor<4xf32> {\n"
                 "  %r = stablehlo.negate %a : (tensor<?xf32>) -> tensor<4xf32>\n"
                 "  func.return %r : tensor<4xf32>\n}\n");
    IN(&s, PLUMB_F32, 3);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.negate", "result 0 (%r) dimension 0", "size 3",
               "declared size 4");
    sc_free(&s);
}

/* concatenate of two `?` inputs bounded by 4 into a `?` bounded by 6:
 * 2 + 3 = 5 is within the bound, 4 + 3 = 7 exceeds it. */
static void test_concat_bound(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<?x2xi32, #stablehlo.bounds<4, ?>>, %b: tensor<?x2xi32, #stablehlo.bounds<4, ?>>) -> tensor<?x2xi32, #stablehlo.bounds<6, ?>> {\n"
        "  %r = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?x2xi32, #stablehlo.bounds<4, ?>>, tensor<?x2xi32, #stablehlo.bounds<4, ?>>) -> tensor<?x2xi32, #stablehlo.bounds<6, ?>>\n"
        "  func.return %r : tensor<?x2xi32, #stablehlo.bounds<6, ?>>\n}\n";
    sc s;
    sc_parse(&s, src);
    IN(&s, PLUMB_I32, 2, 2);
    IN(&s, PLUMB_I32, 3, 2);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_I32, 5, 2);
    sc_free(&s);

    sc_parse(&s, src);
    IN(&s, PLUMB_I32, 4, 2);
    IN(&s, PLUMB_I32, 3, 2);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.concatenate", "result 0 (%r) dimension 0", "size 7",
               "exceeds its bound 6");
    sc_free(&s);
}

/* reshape of ?x6 into ?x3: 5x6 = 30 elements make 10x3; 0x6 makes 0x3. */
static void test_reshape_one_dyn(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<?x6xf32>) -> tensor<?x3xf32> {\n"
                      "  %r = stablehlo.reshape %a : (tensor<?x6xf32>) -> tensor<?x3xf32>\n"
                      "  func.return %r : tensor<?x3xf32>\n}\n";
    sc s;
    sc_parse(&s, src);
    IN(&s, PLUMB_F32, 5, 6);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 10, 3);
    sc_free(&s);

    sc_parse(&s, src);
    IN(&s, PLUMB_F32, 0, 6);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 0, 3);
    sc_free(&s);
}

/* reshape of ?x5 into ?x3: 1x5 = 5 elements are no whole number of rows of 3. */
static void test_reshape_not_multiple(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?x5xf32>) -> tensor<?x3xf32> {\n"
                 "  %r = stablehlo.reshape %a : (tensor<?x5xf32>) -> tensor<?x3xf32>\n"
                 "  func.return %r : tensor<?x3xf32>\n}\n");
    IN(&s, PLUMB_F32, 1, 5);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.reshape", "5 elements", "3");
    sc_free(&s);
}

/* dot_general [n,4] x [4,5] -> [n,5] at n = 7; a `?` contracting dimension
 * whose actual sizes differ (4 and 6) is an error naming both. */
static void test_dot_general(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {\n"
                 "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>\n"
                 "  func.return %r : tensor<?x5xf32>\n}\n");
    IN(&s, PLUMB_F32, 7, 4);
    IN(&s, PLUMB_F32, 4, 5);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 7, 5);
    sc_free(&s);

    sc_parse(&s, "func.func @main(%a: tensor<3x?xf32>, %b: tensor<?x5xf32>) -> tensor<3x5xf32> {\n"
                 "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x?xf32>, tensor<?x5xf32>) -> tensor<3x5xf32>\n"
                 "  func.return %r : tensor<3x5xf32>\n}\n");
    IN(&s, PLUMB_F32, 3, 4);
    IN(&s, PLUMB_F32, 6, 5);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.dot_general", "contracting dimension", "4", "6");
    sc_free(&s);
}

/* pad of a `?` vector with low 1, high -2, interior 1: n = 4 gives
 * 1 - 2 + 4 + 3*1 = 6; n = 0 gives 1 - 2 + 0 = -1, an error. */
static void test_pad(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<?xf32>, %p: tensor<f32>) -> tensor<?xf32> {\n"
                      "  %r = stablehlo.pad %a, %p, low = [1], high = [-2], interior = [1] : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>\n"
                      "  func.return %r : tensor<?xf32>\n}\n";
    sc s;
    sc_parse(&s, src);
    IN(&s, PLUMB_F32, 4);
    IN0(&s, PLUMB_F32);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 6);
    sc_free(&s);

    sc_parse(&s, src);
    IN(&s, PLUMB_F32, 0);
    IN0(&s, PLUMB_F32);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.pad", "dimension 0", "negative");
    sc_free(&s);
}

/* slice [1:5:2] of a `?` vector: (5 - 1 + 1) / 2 = 2 elements when the
 * operand has 5 or more; with 4 the limit 5 lies outside it. */
static void test_slice(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<?xi8>) -> tensor<2xi8> {\n"
                      "  %r = stablehlo.slice %a [1:5:2] : (tensor<?xi8>) -> tensor<2xi8>\n"
                      "  func.return %r : tensor<2xi8>\n}\n";
    sc s;
    sc_parse(&s, src);
    IN(&s, PLUMB_I8, 9);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_I8, 2);
    sc_free(&s);

    sc_parse(&s, src);
    IN(&s, PLUMB_I8, 4);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.slice", "dimension 0", "limit_indices (5)",
               "operand size (4)");
    sc_free(&s);
}

/* broadcast_in_dim of a `?` vector into 2x?: dims = [1] maps it to result
 * dimension 1, so n = 3 gives 2x3. */
static void test_broadcast(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?xf32>) -> tensor<2x?xf32> {\n"
                 "  %r = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<?xf32>) -> tensor<2x?xf32>\n"
                 "  func.return %r : tensor<2x?xf32>\n}\n");
    IN(&s, PLUMB_F32, 3);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 2, 3);
    sc_free(&s);
}

/* reduce over dimension 1 of ?x? (sizes 3 and 0): the result keeps the 3. */
static void test_reduce(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?x?xf32>, %i: tensor<f32>) -> tensor<?xf32> {\n"
                 "  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>\n"
                 "  func.return %r : tensor<?xf32>\n}\n");
    IN(&s, PLUMB_F32, 3, 0);
    IN0(&s, PLUMB_F32);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 3);
    sc_free(&s);
}

/* An op whose types are all static gets its declared types back. */
static void test_static_op(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
                 "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                 "  func.return %r : tensor<3x2xf32>\n}\n");
    IN(&s, PLUMB_F32, 2, 3);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 3, 2);
    sc_free(&s);
}

/* The result's byte size is checked against max_bytes: a ?x4 f32 result of
 * 100 rows is 1600 bytes, over a 1000-byte limit. */
static void test_max_bytes(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
                 "  %r = stablehlo.exponential %a : tensor<?x4xf32>\n"
                 "  func.return %r : tensor<?x4xf32>\n}\n");
    IN(&s, PLUMB_F32, 100, 4);
    assert_false(sc_infer_at(&s, 0, 1000));
    assert_int_equal(s.d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(s.d.msg, "stablehlo.exponential"));
    assert_true(sc_infer_at(&s, 0, 1600));
    EXPECT(&s.out[0], PLUMB_F32, 100, 4);
    sc_free(&s);
}

/* iota has no operand to take a `?` size from. */
static void test_iota_dynamic_refused(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main() -> tensor<?xi32> {\n"
                 "  %r = stablehlo.iota dim = 0 : tensor<?xi32>\n"
                 "  func.return %r : tensor<?xi32>\n}\n");
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.iota", "dimension 0", "dynamic_iota");
    sc_free(&s);
}

/* func.call's shapes come from the callee: asking is a usage error. */
static void test_call_not_applicable(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @id(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
                 "  func.return %a : tensor<?xf32>\n}\n"
                 "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
                 "  %r = func.call @id(%a) : (tensor<?xf32>) -> tensor<?xf32>\n"
                 "  func.return %r : tensor<?xf32>\n}\n");
    IN(&s, PLUMB_F32, 2);
    assert_false(sc_infer(&s));
    assert_int_equal(s.d.code, PLUMB_ERR_USAGE);
    sc_free(&s);
}

/* Arguments: within the bound (0, 1 and the bound 64 itself) pass; 80 is
 * named with the parameter, its dimension and the bound; a static dimension,
 * the rank, the dtype and the count are checked too. */
static void test_check_args(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%w: tensor<3xf32>, %x: tensor<?x2xf32, #stablehlo.bounds<64, ?>>) -> tensor<3xf32> {\n"
                 "  func.return %w : tensor<3xf32>\n}\n");
    plumb_tensor *w = IN(&s, PLUMB_F32, 3);
    int64_t sizes[] = {0, 1, 64};
    for (int i = 0; i < 3; i++) {
        plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, DIMS(sizes[i], 2), 0, &s.d);
        const plumb_tensor *args[] = {w, x};
        assert_true(ir_shape_check_args(s.f, args, 2, &s.d));
        plumb_tensor_free(x);
    }
    plumb_tensor *big = IN(&s, PLUMB_F32, 80, 2);
    const plumb_tensor *args[] = {w, big};
    memset(&s.d, 0, sizeof s.d);
    assert_false(ir_shape_check_args(s.f, args, 2, &s.d));
    EXPECT_ERR(&s, PLUMB_ERR_USAGE, "parameter 1 (%x) dimension 0: size 80 exceeds its bound 64");

    plumb_tensor *w4 = IN(&s, PLUMB_F32, 4);
    const plumb_tensor *args2[] = {w4, big};
    memset(&s.d, 0, sizeof s.d);
    assert_false(ir_shape_check_args(s.f, args2, 2, &s.d));
    EXPECT_ERR(&s, PLUMB_ERR_USAGE, "parameter 0 (%w) dimension 0: size 4 given, 3 declared");

    plumb_tensor *rank1 = IN(&s, PLUMB_F32, 5);
    const plumb_tensor *args3[] = {w, rank1};
    memset(&s.d, 0, sizeof s.d);
    assert_false(ir_shape_check_args(s.f, args3, 2, &s.d));
    EXPECT_ERR(&s, PLUMB_ERR_USAGE, "parameter 1 (%x)", "rank 1 given, 2 declared");

    plumb_tensor *wi = IN(&s, PLUMB_I32, 3);
    const plumb_tensor *args4[] = {wi, big};
    memset(&s.d, 0, sizeof s.d);
    assert_false(ir_shape_check_args(s.f, args4, 2, &s.d));
    EXPECT_ERR(&s, PLUMB_ERR_USAGE, "parameter 0 (%w)", "i32 given, f32 declared");

    memset(&s.d, 0, sizeof s.d);
    assert_false(ir_shape_check_args(s.f, args, 1, &s.d));
    EXPECT_ERR(&s, PLUMB_ERR_USAGE, "takes 2 parameters but 1");
    sc_free(&s);
}

/* Shape operands: dynamic_broadcast_in_dim to [2, 3] gives 2x3; a negative
 * value is named with its element; sizes whose product overflows 64 bits
 * (2^62 x 8) are a limit error, raised before anything is allocated. */
static void test_dynamic_shape_values(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<f32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {\n"
                      "  %r = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>\n"
                      "  func.return %r : tensor<?x?xf32>\n}\n";
    int64_t vals[3][2] = {{2, 3}, {2, -1}, {INT64_C(1) << 62, 8}};
    for (int k = 0; k < 3; k++) {
        sc s;
        sc_parse(&s, src);
        IN0(&s, PLUMB_F32);
        plumb_tensor *sh = IN(&s, PLUMB_I64, 2);
        plumb_store_bits(PLUMB_I64, sh->data, 0, (uint64_t)vals[k][0]);
        plumb_store_bits(PLUMB_I64, sh->data, 1, (uint64_t)vals[k][1]);
        bool ok = sc_infer(&s);
        if (k == 0) {
            assert_true(ok);
            EXPECT(&s.out[0], PLUMB_F32, 2, 3);
        } else if (k == 1) {
            assert_false(ok);
            EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.dynamic_broadcast_in_dim",
                       "operand 1 (%s) (output_dimensions) element 1: value -1 is negative");
        } else {
            assert_false(ok);
            assert_int_equal(s.d.code, PLUMB_ERR_LIMIT);
            assert_non_null(strstr(s.d.msg, "stablehlo.dynamic_broadcast_in_dim"));
        }
        sc_free(&s);
    }
}

/* real_dynamic_slice with a limit (6) past the operand's 5 elements is an
 * error naming the dynamic op, not its static counterpart. */
static void test_real_dynamic_slice_limit(void **state)
{
    (void)state;
    sc s;
    sc_parse(&s, "func.func @main(%a: tensor<?xf32>, %b: tensor<1xi32>, %l: tensor<1xi32>, %t: tensor<1xi32>) -> tensor<?xf32> {\n"
                 "  %r = stablehlo.real_dynamic_slice %a, %b, %l, %t : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>\n"
                 "  func.return %r : tensor<?xf32>\n}\n");
    IN(&s, PLUMB_F32, 5);
    plumb_tensor *b = IN(&s, PLUMB_I32, 1), *l = IN(&s, PLUMB_I32, 1), *t = IN(&s, PLUMB_I32, 1);
    plumb_store_bits(PLUMB_I32, b->data, 0, 1);
    plumb_store_bits(PLUMB_I32, l->data, 0, 5);
    plumb_store_bits(PLUMB_I32, t->data, 0, 2);
    assert_true(sc_infer(&s));
    EXPECT(&s.out[0], PLUMB_F32, 2);   /* ceil((5 - 1) / 2) */
    plumb_store_bits(PLUMB_I32, l->data, 0, 6);
    assert_false(sc_infer(&s));
    EXPECT_ERR(&s, PLUMB_ERR_INVALID, "stablehlo.real_dynamic_slice:", "limit_indices (6)", "operand size (5)");
    sc_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_equal_sizes),
        cmocka_unit_test(test_add_mismatch),
        cmocka_unit_test(test_declared_static_contradicted),
        cmocka_unit_test(test_concat_bound),
        cmocka_unit_test(test_reshape_one_dyn),
        cmocka_unit_test(test_reshape_not_multiple),
        cmocka_unit_test(test_dot_general),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_static_op),
        cmocka_unit_test(test_max_bytes),
        cmocka_unit_test(test_iota_dynamic_refused),
        cmocka_unit_test(test_call_not_applicable),
        cmocka_unit_test(test_check_args),
        cmocka_unit_test(test_dynamic_shape_values),
        cmocka_unit_test(test_real_dynamic_slice_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
