/* Check kernels: ULP distance, almost-equality and the reports of failing
 * checks. Expected distances are derived by hand from the IEEE 754 and
 * bfloat16 encodings (consecutive bit patterns of one sign are one ULP
 * apart; -0 and +0 are the same point). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../ref/ref_internal.h"

/* ---- ULP distance ------------------------------------------------------------ */

/* Neighbours, signed zeros, subnormals, infinities and sign changes in f32. */
static void test_ulp_f32(void **state)
{
    (void)state;
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x3F800000u, 0x3F800001u), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x3F800001u, 0x3F800000u), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x00000000u, 0x80000000u), 0);
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x00000000u, 0x00000001u), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x80000000u, 0x00000001u), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x80000001u, 0x00000001u), 2);
    /* largest subnormal to smallest normal */
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x007FFFFFu, 0x00800000u), 1);
    /* largest finite to +inf */
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x7F7FFFFFu, 0x7F800000u), 1);
    /* 1.0 to -1.0: twice the magnitude 0x3F800000 */
    assert_int_equal(ref_ulp_distance(PLUMB_F32, 0x3F800000u, 0xBF800000u), 0x7F000000u);
}

/* f16, bf16 and f64 encodings, including the widest possible distance. */
static void test_ulp_other_widths(void **state)
{
    (void)state;
    assert_int_equal(ref_ulp_distance(PLUMB_F16, 0x3C00, 0x3C01), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_F16, 0x8000, 0x0000), 0);
    assert_int_equal(ref_ulp_distance(PLUMB_F16, 0x7BFF, 0x7C00), 1);
    assert_int_equal(ref_ulp_distance(PLUMB_BF16, 0x3F80, 0x3F82), 2);
    assert_int_equal(ref_ulp_distance(PLUMB_BF16, 0x8001, 0x0001), 2);
    assert_int_equal(ref_ulp_distance(PLUMB_F64, 0x8000000000000000ull, 0x0000000000000001ull), 1);
    assert_true(ref_ulp_distance(PLUMB_F64, 0x7FF0000000000000ull, 0xFFF0000000000000ull) ==
                0xFFE0000000000000ull);
}

/* NaN detection: quiet, signalling and negative NaNs; infinities are not. */
static void test_is_nan(void **state)
{
    (void)state;
    assert_true(ref_float_is_nan(PLUMB_F32, 0x7FC00000u));
    assert_true(ref_float_is_nan(PLUMB_F32, 0x7F800001u));
    assert_true(ref_float_is_nan(PLUMB_F32, 0xFFC00000u));
    assert_false(ref_float_is_nan(PLUMB_F32, 0x7F800000u));
    assert_true(ref_float_is_nan(PLUMB_F16, 0x7E00));
    assert_false(ref_float_is_nan(PLUMB_F16, 0x7C00));
    assert_true(ref_float_is_nan(PLUMB_BF16, 0x7FC1));
    assert_true(ref_float_is_nan(PLUMB_F64, 0x7FF0000000000001ull));
}

static uint32_t f32b(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* expect_almost_eq's element rule (StableHLO's interpreter): within the
 * tolerance passes; NaN only matches NaN; infinities only themselves;
 * opposite signs fail; -0 equals +0. */
static void test_almost_eq(void **state)
{
    (void)state;
    assert_true(ref_almost_eq(PLUMB_F32, f32b(1.0f), f32b(1.00005f), 1e-4));
    assert_false(ref_almost_eq(PLUMB_F32, f32b(1.0f), f32b(1.0002f), 1e-4));
    assert_true(ref_almost_eq(PLUMB_F32, 0x7FC00000u, 0xFFC00001u, 1e-4));
    assert_false(ref_almost_eq(PLUMB_F32, 0x7FC00000u, f32b(1.0f), 1e-4));
    assert_false(ref_almost_eq(PLUMB_F32, f32b(1.0f), 0x7FC00000u, 1e-4));
    assert_true(ref_almost_eq(PLUMB_F32, 0x7F800000u, 0x7F800000u, 1e-4));
    assert_false(ref_almost_eq(PLUMB_F32, 0x7F800000u, 0xFF800000u, 1e-4));
    assert_false(ref_almost_eq(PLUMB_F32, 0x7F800000u, 0x7F7FFFFFu, 1e30));
    assert_true(ref_almost_eq(PLUMB_F32, 0x80000000u, 0x00000000u, 0));
    assert_false(ref_almost_eq(PLUMB_F32, f32b(-1e-5f), f32b(1e-5f), 1e-4));
    assert_true(ref_almost_eq(PLUMB_F32, f32b(0.0f), f32b(1e-5f), 1e-4));
    /* f16 1.0 (0x3C00) and 1.0009765625 (0x3C01) differ by 2^-10 > 1e-4 */
    assert_false(ref_almost_eq(PLUMB_F16, 0x3C00, 0x3C01, 1e-4));
    assert_true(ref_almost_eq(PLUMB_F16, 0x3C00, 0x3C01, 1e-3));
    /* integers compare exactly */
    assert_true(ref_almost_eq(PLUMB_I32, 5, 5, 1e-4));
    assert_false(ref_almost_eq(PLUMB_I32, 5, 6, 10));
}

/* ---- check ops in a program ------------------------------------------------------- */

typedef struct prog {
    ir_module *m;
    ir_func *f;
    plumb_tensor *owned[16];
    int n_owned;
} prog;

static void prog_init(prog *p)
{
    memset(p, 0, sizeof *p);
    p->m = ir_module_new("t");
    assert_non_null(p->m);
    p->m->filename = "t.mlir";
    p->f = ir_func_new(p->m, "main", true);
    assert_non_null(p->f);
}

static void prog_free(prog *p)
{
    for (int i = 0; i < p->n_owned; i++)
        plumb_tensor_free(p->owned[i]);
    ir_module_free(p->m);
}

static plumb_tensor *mk(prog *p, plumb_dtype t, uint32_t rank, const int64_t *dims, const void *data)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    if (x->nbytes)
        memcpy(x->data, data, x->nbytes);
    p->owned[p->n_owned++] = x;
    return x;
}

static ir_value *cst(prog *p, plumb_dtype t, uint32_t rank, const int64_t *dims, const void *data)
{
    ir_type ty = ir_type_make(t, rank, dims);
    ir_op *op = ir_op_new(p->m, PLUMB_OP_CONSTANT, NULL, 0, &ty, 1);
    assert_non_null(op);
    op->a.value = mk(p, t, rank, dims, data);
    ir_block_append(&p->f->body, op);
    return op->results[0];
}

static ir_op *check(prog *p, plumb_opcode code, ir_value *got, ir_value *want, uint32_t line)
{
    ir_value *ops[2] = {got, want};
    ir_op *op = ir_op_new(p->m, code, ops, want ? 2 : 1, NULL, 0);
    assert_non_null(op);
    op->loc.line = line;
    op->loc.col = 3;
    ir_block_append(&p->f->body, op);
    return op;
}

/* Runs the program (returning nothing) and returns the check log's text. */
static char *run_checks(prog *p, uint32_t max_mismatches, plumb_ref_result *res)
{
    ir_op *ret = ir_op_new(p->m, PLUMB_OP_FUNC_RETURN, NULL, 0, NULL, 0);
    assert_non_null(ret);
    ir_block_append(&p->f->body, ret);
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_ref_options o = {.struct_size = sizeof o, .check_log = log, .max_mismatches = max_mismatches};
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(plumb_ref_run(p->m, NULL, NULL, 0, &o, res, &d));
    long n = ftell(log);
    rewind(log);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, log), (size_t)n);
    fclose(log);
    return text;
}

/* A failing expect_close names the op and location, the index, both values
 * in hex and their ULP distance, and how many elements differ; the passing
 * check beside it is counted and the run goes on. */
static void test_expect_close_report(void **state)
{
    (void)state;
    prog p;
    prog_init(&p);
    int64_t d[] = {2, 2};
    uint32_t got[] = {0x3F800000u, 0x3F800005u, 0x7FC00000u, 0x40000000u};
    uint32_t want[] = {0x3F800000u, 0x3F800000u, 0x7FC00001u, 0x40000003u};
    ir_value *g = cst(&p, PLUMB_F32, 2, d, got), *w = cst(&p, PLUMB_F32, 2, d, want);
    check(&p, PLUMB_OP_EXPECT_CLOSE, g, w, 7);
    check(&p, PLUMB_OP_EXPECT_EQ, g, g, 8);
    plumb_ref_result res;
    char *log = run_checks(&p, 0, &res);
    assert_int_equal(res.checks_run, 2);
    assert_int_equal(res.checks_failed, 1);
    assert_non_null(strstr(log, "t.mlir:7:3: check failed: check.expect_close"));
    assert_non_null(strstr(log, "at [0, 1]"));
    assert_non_null(strstr(log, "(0x3F800005)"));
    assert_non_null(strstr(log, "(0x3F800000)"));
    assert_non_null(strstr(log, "5 ulp apart"));
    assert_non_null(strstr(log, "1 of 4 elements differ"));
    /* NaN vs NaN and 3 ulp (the default maximum) pass */
    assert_null(strstr(log, "at [1, 0]"));
    assert_null(strstr(log, "at [1, 1]"));
    assert_null(strstr(log, "t.mlir:8:3"));
    free(log);
    plumb_ref_result_free(&res);
    prog_free(&p);
}

/* expect_eq is bitwise with NaNs equal: NaN payloads match, -0 and +0
 * differ; integers print in decimal and hex. */
static void test_expect_eq_bitwise(void **state)
{
    (void)state;
    prog p;
    prog_init(&p);
    int64_t d[] = {3};
    uint32_t a[] = {0x7FC00000u, 0x80000000u, 0x3F800000u};
    uint32_t b[] = {0xFFC12345u, 0x00000000u, 0x3F800000u};
    check(&p, PLUMB_OP_EXPECT_EQ, cst(&p, PLUMB_F32, 1, d, a), cst(&p, PLUMB_F32, 1, d, b), 4);
    int32_t x[] = {1, -2, 3}, y[] = {1, 2, 3};
    check(&p, PLUMB_OP_EXPECT_EQ, cst(&p, PLUMB_I32, 1, d, x), cst(&p, PLUMB_I32, 1, d, y), 5);
    plumb_ref_result res;
    char *log = run_checks(&p, 0, &res);
    assert_int_equal(res.checks_run, 2);
    assert_int_equal(res.checks_failed, 2);
    assert_null(strstr(log, "at [0]"));
    assert_non_null(strstr(log, "at [1]: got -0"));
    assert_non_null(strstr(log, "(0x80000000)"));
    assert_non_null(strstr(log, "got -2 (0xFFFFFFFE), expected 2 (0x00000002)"));
    free(log);
    plumb_ref_result_free(&res);
    prog_free(&p);
}

/* The _const forms compare with the value attribute; i1 compares 0/1. */
static void test_const_forms(void **state)
{
    (void)state;
    prog p;
    prog_init(&p);
    int64_t d[] = {2};
    uint8_t t[] = {1, 0};
    ir_value *v = cst(&p, PLUMB_I1, 1, d, t);
    ir_op *ok = check(&p, PLUMB_OP_EXPECT_EQ_CONST, v, NULL, 2);
    ok->a.value = mk(&p, PLUMB_I1, 1, d, t);
    uint8_t f[] = {1, 1};
    ir_op *bad = check(&p, PLUMB_OP_EXPECT_EQ_CONST, v, NULL, 3);
    bad->a.value = mk(&p, PLUMB_I1, 1, d, f);
    float x[] = {1.0f, 2.0f}, y[] = {1.00001f, 2.0f};
    ir_op *al = check(&p, PLUMB_OP_EXPECT_ALMOST_EQ_CONST, cst(&p, PLUMB_F32, 1, d, x), NULL, 4);
    al->a.value = mk(&p, PLUMB_F32, 1, d, y);
    al->a.tolerance = 1e-4;
    ir_op *cl = check(&p, PLUMB_OP_EXPECT_CLOSE_CONST, cst(&p, PLUMB_F32, 1, d, x), NULL, 5);
    cl->a.value = mk(&p, PLUMB_F32, 1, d, x);
    cl->a.min_ulp = 1;   /* equal values are 0 ulp apart: below the minimum */
    cl->a.max_ulp = 1;
    plumb_ref_result res;
    char *log = run_checks(&p, 0, &res);
    assert_int_equal(res.checks_run, 4);
    assert_int_equal(res.checks_failed, 2);
    assert_null(strstr(log, "t.mlir:2:3"));
    assert_non_null(strstr(log, "t.mlir:3:3: check failed: check.expect_eq_const"));
    assert_non_null(strstr(log, "at [1]: got false (0x0), expected true (0x1)"));
    assert_null(strstr(log, "t.mlir:4:3"));
    assert_non_null(strstr(log, "t.mlir:5:3: check failed: check.expect_close_const"));
    assert_non_null(strstr(log, "2 of 2 elements differ"));
    free(log);
    plumb_ref_result_free(&res);
    prog_free(&p);
}

/* Only max_mismatches elements are listed; the count covers all of them. */
static void test_mismatch_limit(void **state)
{
    (void)state;
    prog p;
    prog_init(&p);
    int64_t d[] = {4};
    int16_t x[] = {1, 2, 3, 4}, y[] = {0, 0, 0, 4};
    check(&p, PLUMB_OP_EXPECT_EQ, cst(&p, PLUMB_I16, 1, d, x), cst(&p, PLUMB_I16, 1, d, y), 9);
    plumb_ref_result res;
    char *log = run_checks(&p, 2, &res);
    assert_non_null(strstr(log, "at [0]"));
    assert_non_null(strstr(log, "at [1]"));
    assert_null(strstr(log, "at [2]"));
    assert_non_null(strstr(log, "3 of 4 elements differ"));
    free(log);
    plumb_ref_result_free(&res);
    prog_free(&p);
}

/* Operands of different shapes fail the check with both types named. */
static void test_shape_mismatch(void **state)
{
    (void)state;
    prog p;
    prog_init(&p);
    int64_t d2[] = {2}, d3[] = {3};
    int32_t x[] = {1, 2, 3};
    check(&p, PLUMB_OP_EXPECT_EQ, cst(&p, PLUMB_I32, 1, d2, x), cst(&p, PLUMB_I32, 1, d3, x), 6);
    plumb_ref_result res;
    char *log = run_checks(&p, 0, &res);
    assert_int_equal(res.checks_failed, 1);
    assert_non_null(strstr(log, "tensor<2xi32>"));
    assert_non_null(strstr(log, "tensor<3xi32>"));
    free(log);
    plumb_ref_result_free(&res);
    prog_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulp_f32),
        cmocka_unit_test(test_ulp_other_widths),
        cmocka_unit_test(test_is_nan),
        cmocka_unit_test(test_almost_eq),
        cmocka_unit_test(test_expect_close_report),
        cmocka_unit_test(test_expect_eq_bitwise),
        cmocka_unit_test(test_const_forms),
        cmocka_unit_test(test_mismatch_limit),
        cmocka_unit_test(test_shape_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
