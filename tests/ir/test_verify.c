/* Tests of the verifier (ir/verify.c). Modules are built with the builder
 * API; each rule family has a valid case that must pass and invalid cases
 * whose message must name the op, the operand and the constraint. Expected
 * shapes come from the StableHLO spec's formulas and examples, worked by
 * hand. The text tests parse every StableHLO sample program (all must
 * verify) and the tests/ir/badverify corpus (each must fail as its first
 * line says). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "testdata.h"

/* ---- a small module builder ------------------------------------------------ */

typedef struct tb {
    ir_module *m;
    ir_func *f;
    ir_block *cur;      /* where emit() appends */
    uint32_t line;      /* next op's source line */
} tb;

#define F32 PLUMB_F32
#define F16 PLUMB_F16
#define F64 PLUMB_F64
#define I1 PLUMB_I1
#define I8 PLUMB_I8
#define I32 PLUMB_I32
#define I64 PLUMB_I64
#define UI32 PLUMB_UI32
#define UI64 PLUMB_UI64

#define VALS(...) ((ir_value *[]){__VA_ARGS__})
#define NVALS(...) ((uint32_t)(sizeof((ir_value *[]){__VA_ARGS__}) / sizeof(ir_value *)))
#define INTS(...) ((int64_t[]){__VA_ARGS__})
#define NINTS(...) ((uint32_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define LIST(b, ...) ir_ints_make((b)->m, INTS(__VA_ARGS__), NINTS(__VA_ARGS__))

/* ty(F32, 2, 2, 3) is tensor<2x3xf32>; -1 is '?'. */
static ir_type ty(plumb_dtype t, int rank, ...)
{
    int64_t dims[PLUMB_MAX_RANK];
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        dims[i] = va_arg(ap, int);
    va_end(ap);
    return ir_type_make(t, (uint32_t)rank, dims);
}

static tb tb_new(void)
{
    tb b;
    b.m = ir_module_new("t");
    assert_non_null(b.m);
    b.m->filename = "t.mlir";
    b.f = ir_func_new(b.m, "main", true);
    assert_non_null(b.f);
    b.f->loc = (plumb_loc){1, 1};
    b.cur = &b.f->body;
    b.line = 2;
    return b;
}

static ir_value *arg(tb *b, ir_type t)
{
    ir_value *v = ir_block_add_arg(b->m, &b->f->body, &t);
    assert_non_null(v);
    return v;
}

static ir_op *emitn(tb *b, plumb_opcode c, ir_value **ops, uint32_t n, const ir_type *rt, uint32_t nr)
{
    ir_op *op = ir_op_new(b->m, c, ops, n, rt, nr);
    assert_non_null(op);
    op->loc = (plumb_loc){b->line++, 5};
    ir_block_append(b->cur, op);
    return op;
}

/* One-result op. */
static ir_value *emit(tb *b, plumb_opcode c, ir_value **ops, uint32_t n, ir_type rt)
{
    return emitn(b, c, ops, n, &rt, 1)->results[0];
}

static void name(ir_value *v, const char *s)
{
    v->name = s;
}

/* Ends main with `return vals` and declares their types as its results. */
static void ret(tb *b, ir_value **vals, uint32_t n)
{
    ir_type t[8];
    for (uint32_t i = 0; i < n; i++)
        t[i] = vals[i]->type;
    assert_true(ir_func_set_results(b->m, b->f, t, n));
    emitn(b, PLUMB_OP_FUNC_RETURN, vals, n, NULL, 0);
}

/* A region on op with scalar args of the given types; emit() goes there
 * until region_end(). */
static ir_value **region_begin(tb *b, ir_op *op, const plumb_dtype *args, uint32_t n)
{
    assert_true(ir_op_add_regions(b->m, op, 1));
    ir_block *r = &op->regions[op->n_regions - 1];
    for (uint32_t i = 0; i < n; i++) {
        ir_type t = ir_type_scalar(args[i]);
        assert_non_null(ir_block_add_arg(b->m, r, &t));
    }
    b->cur = r;
    return r->args;
}

static void region_end(tb *b, ir_value **vals, uint32_t n)
{
    emitn(b, PLUMB_OP_RETURN, vals, n, NULL, 0);
    b->cur = &b->f->body;
}

static void expect_ok(tb *b)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = ir_verify(b->m, NULL, &d);
    if (!ok)
        print_message("unexpected error: %s\n", d.msg);
    assert_true(ok);
    assert_int_equal(d.code, PLUMB_OK);
    ir_module_free(b->m);
}

static void expect_err_opts(tb *b, const ir_verify_options *o, plumb_code code, const char *substr)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = ir_verify(b->m, o, &d);
    if (ok || d.code != code || !strstr(d.msg, substr))
        print_message("got code %s, message: %s\nwanted %s with: %s\n", plumb_code_name(d.code),
                      d.msg, plumb_code_name(code), substr);
    assert_false(ok);
    assert_int_equal(d.code, code);
    assert_non_null(strstr(d.msg, substr));
    assert_string_equal(d.file, "t.mlir");
    ir_module_free(b->m);
}

static void expect_err(tb *b, const char *substr)
{
    expect_err_opts(b, NULL, PLUMB_ERR_INVALID, substr);
}

/* ---- elementwise ------------------------------------------------------------- */

/* Binary ops need equal element types and shapes; '?' is compatible with any
 * size; the message names the op, operand index, SSA name and types. */
static void test_elementwise_binary(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, -1, 3)), *y = arg(&b, ty(F32, 2, 2, 3));
    ir_value *r = emit(&b, PLUMB_OP_ADD, VALS(x, y), 2, ty(F32, 2, 2, 3));
    ret(&b, VALS(r), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 1, 4));
    y = arg(&b, ty(F16, 1, 4));
    name(y, "3");
    r = emit(&b, PLUMB_OP_ADD, VALS(x, y), 2, ty(F32, 1, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.add: operand 1 (%3): element type f16 does not match operand 0's f32");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 1, 4));
    y = arg(&b, ty(F32, 2, 3, 4));
    r = emit(&b, PLUMB_OP_MULTIPLY, VALS(x, y), 2, ty(F32, 2, 3, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "no implicit broadcasting");

    b = tb_new();
    x = arg(&b, ty(I32, 1, 4));
    r = emit(&b, PLUMB_OP_SUBTRACT, VALS(x, x), 2, ty(I32, 1, 5));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.subtract: result 0: type tensor<5xi32> does not match the inferred type tensor<4xi32>");
}

/* The op table decides element types: sqrt takes floats only, and/or/xor and
 * shifts take integers (and/or/xor also i1), convert takes anything. */
static void test_element_types_from_table(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *p = arg(&b, ty(I1, 1, 4)), *u = arg(&b, ty(UI32, 1, 4)), *f = arg(&b, ty(F32, 1, 4));
    ir_value *r1 = emit(&b, PLUMB_OP_AND, VALS(p, p), 2, ty(I1, 1, 4));
    ir_value *r2 = emit(&b, PLUMB_OP_SHIFT_LEFT, VALS(u, u), 2, ty(UI32, 1, 4));
    ir_value *r3 = emit(&b, PLUMB_OP_CONVERT, VALS(p), 1, ty(F16, 1, 4));
    ir_value *r4 = emit(&b, PLUMB_OP_CONVERT, VALS(f), 1, ty(I1, 1, 4));
    ir_value *r5 = emit(&b, PLUMB_OP_IS_FINITE, VALS(f), 1, ty(I1, 1, 4));
    ret(&b, VALS(r1, r2, r3, r4, r5), 5);
    expect_ok(&b);

    b = tb_new();
    ir_value *i = arg(&b, ty(I32, 1, 4));
    ir_value *r = emit(&b, PLUMB_OP_SQRT, VALS(i), 1, ty(I32, 1, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.sqrt: operand 0: element type i32 is not accepted");

    b = tb_new();
    f = arg(&b, ty(F32, 1, 4));
    r = emit(&b, PLUMB_OP_XOR, VALS(f, f), 2, ty(F32, 1, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.xor: operand 0: element type f32 is not accepted");

    b = tb_new();
    p = arg(&b, ty(I1, 1, 4));
    r = emit(&b, PLUMB_OP_SHIFT_RIGHT_LOGICAL, VALS(p, p), 2, ty(I1, 1, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "element type i1 is not accepted");

    b = tb_new();
    f = arg(&b, ty(F32, 1, 4));
    r = emit(&b, PLUMB_OP_CONVERT, VALS(f), 1, ty(F16, 1, 5));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.convert: result 0: type tensor<5xf16> does not match the inferred type tensor<4xf16>");
}

/* compare produces i1, and its comparison_type must fit the element type
 * (StableHLO compare C3). */
static void test_compare(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *p = arg(&b, ty(I1, 0)), *u = arg(&b, ty(UI32, 1, 2));
    ir_op *c1 = emitn(&b, PLUMB_OP_COMPARE, VALS(p, p), 2, (ir_type[]){ty(I1, 0)}, 1);
    c1->a.cmp_type = IR_CMP_UNSIGNED;
    c1->a.cmp_dir = IR_CMP_LT;
    ir_op *c2 = emitn(&b, PLUMB_OP_COMPARE, VALS(u, u), 2, (ir_type[]){ty(I1, 1, 2)}, 1);
    ret(&b, VALS(c1->results[0], c2->results[0]), 2);
    expect_ok(&b);

    b = tb_new();
    u = arg(&b, ty(UI32, 1, 2));
    c1 = emitn(&b, PLUMB_OP_COMPARE, VALS(u, u), 2, (ir_type[]){ty(I1, 1, 2)}, 1);
    c1->a.cmp_type = IR_CMP_SIGNED;
    ret(&b, VALS(c1->results[0]), 1);
    expect_err(&b, "stablehlo.compare: comparison_type SIGNED does not fit element type ui32");

    b = tb_new();
    ir_value *i = arg(&b, ty(I32, 1, 2));
    c1 = emitn(&b, PLUMB_OP_COMPARE, VALS(i, i), 2, (ir_type[]){ty(I1, 1, 2)}, 1);
    c1->a.cmp_type = IR_CMP_FLOAT;
    ret(&b, VALS(c1->results[0]), 1);
    expect_err(&b, "comparison_type FLOAT does not fit element type i32");

    b = tb_new();
    ir_value *f = arg(&b, ty(F32, 1, 2));
    c1 = emitn(&b, PLUMB_OP_COMPARE, VALS(f, f), 2, (ir_type[]){ty(F32, 1, 2)}, 1);
    ret(&b, VALS(c1->results[0]), 1);
    expect_err(&b, "result 0: type tensor<2xf32> does not match the inferred type tensor<2xi1>");
}

/* select's pred is i1, a scalar or of on_true's shape; clamp's min and max
 * are scalars or of operand's shape. */
static void test_select_clamp(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *ps = arg(&b, ty(I1, 0)), *pv = arg(&b, ty(I1, 2, 2, 3));
    ir_value *x = arg(&b, ty(F32, 2, 2, 3)), *s = arg(&b, ty(F32, 0));
    ir_value *r1 = emit(&b, PLUMB_OP_SELECT, VALS(ps, x, x), 3, ty(F32, 2, 2, 3));
    ir_value *r2 = emit(&b, PLUMB_OP_SELECT, VALS(pv, x, x), 3, ty(F32, 2, 2, 3));
    ir_value *r3 = emit(&b, PLUMB_OP_CLAMP, VALS(s, x, s), 3, ty(F32, 2, 2, 3));
    ir_value *r4 = emit(&b, PLUMB_OP_CLAMP, VALS(x, x, x), 3, ty(F32, 2, 2, 3));
    ret(&b, VALS(r1, r2, r3, r4), 4);
    expect_ok(&b);

    b = tb_new();
    pv = arg(&b, ty(I1, 1, 3));
    x = arg(&b, ty(F32, 2, 2, 3));
    ir_value *r = emit(&b, PLUMB_OP_SELECT, VALS(pv, x, x), 3, ty(F32, 2, 2, 3));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.select: operand 0: shape of tensor<3xi1> does not match operand 1's tensor<2x3xf32> (StableHLO C1");

    b = tb_new();
    ps = arg(&b, ty(I32, 0));
    x = arg(&b, ty(F32, 1, 3));
    r = emit(&b, PLUMB_OP_SELECT, VALS(ps, x, x), 3, ty(F32, 1, 3));
    ret(&b, VALS(r), 1);
    expect_err(&b, "pred must have element type i1, not i32");

    b = tb_new();
    ir_value *m = arg(&b, ty(F32, 1, 2));
    x = arg(&b, ty(F32, 1, 3));
    r = emit(&b, PLUMB_OP_CLAMP, VALS(m, x, x), 3, ty(F32, 1, 3));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.clamp: operand 0: shape of tensor<2xf32> does not match operand 1's tensor<3xf32> (StableHLO C1");

    b = tb_new();
    m = arg(&b, ty(F16, 0));
    x = arg(&b, ty(F32, 1, 3));
    r = emit(&b, PLUMB_OP_CLAMP, VALS(m, x, m), 3, ty(F32, 1, 3));
    ret(&b, VALS(r), 1);
    expect_err(&b, "operand 0: element type f16 does not match operand 1's f32 (StableHLO C3)");
}

/* bitcast_convert: equal widths keep the shape; a narrower result adds a
 * last dimension of width ratio; a wider one removes it (StableHLO C1). */
static void test_bitcast_convert(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *i = arg(&b, ty(I32, 2, 2, 3)), *w = arg(&b, ty(UI64, 1, 2)), *n = arg(&b, ty(UI32, 2, 2, 2));
    ir_value *r1 = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(i), 1, ty(F32, 2, 2, 3));
    ir_value *r2 = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(w), 1, ty(UI32, 2, 2, 2));
    ir_value *r3 = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(n), 1, ty(UI64, 1, 2));
    ir_value *r4 = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(w), 1, ty(I8, 2, 2, 8));
    ret(&b, VALS(r1, r2, r3, r4), 4);
    expect_ok(&b);

    b = tb_new();
    n = arg(&b, ty(UI32, 2, 2, 3));
    ir_value *r = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(n), 1, ty(UI64, 1, 2));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.bitcast_convert: bitcast from ui32 to ui64 needs the operand's last dimension to be 2, not 3 (StableHLO C1)");

    b = tb_new();
    w = arg(&b, ty(UI64, 1, 2));
    r = emit(&b, PLUMB_OP_BITCAST_CONVERT, VALS(w), 1, ty(UI32, 1, 4));
    ret(&b, VALS(r), 1);
    expect_err(&b, "does not match the inferred type tensor<2x2xui32>");
}

/* reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0. */
static void test_reduce_precision(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2));
    ir_op *op = emitn(&b, PLUMB_OP_REDUCE_PRECISION, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    op->a.exponent_bits = 5;
    op->a.mantissa_bits = 0;
    ret(&b, VALS(op->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    op = emitn(&b, PLUMB_OP_REDUCE_PRECISION, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    op->a.exponent_bits = 0;
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "stablehlo.reduce_precision: exponent_bits = 0 must be at least 1");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    op = emitn(&b, PLUMB_OP_REDUCE_PRECISION, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    op->a.exponent_bits = 8;
    op->a.mantissa_bits = -1;
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "mantissa_bits = -1 must not be negative");
}

/* ---- data movement ------------------------------------------------------------- */

/* constant's value has exactly the declared type; iota's dimension is in
 * range. */
static void test_constant_iota(void **state)
{
    (void)state;
    plumb_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = PLUMB_F32;
    v.rank = 2;
    v.dims[0] = 2;
    v.dims[1] = 3;
    tb b = tb_new();
    ir_op *c = emitn(&b, PLUMB_OP_CONSTANT, NULL, 0, (ir_type[]){ty(F32, 2, 2, 3)}, 1);
    c->a.value = &v;
    ir_op *io = emitn(&b, PLUMB_OP_IOTA, NULL, 0, (ir_type[]){ty(I32, 2, 4, 5)}, 1);
    io->a.dimension = 1;
    ret(&b, VALS(c->results[0], io->results[0]), 2);
    expect_ok(&b);

    b = tb_new();
    c = emitn(&b, PLUMB_OP_CONSTANT, NULL, 0, (ir_type[]){ty(F32, 2, 3, 2)}, 1);
    c->a.value = &v;
    ret(&b, VALS(c->results[0]), 1);
    expect_err(&b, "stablehlo.constant: value of type tensor<2x3xf32> does not match the declared type tensor<3x2xf32>");

    b = tb_new();
    io = emitn(&b, PLUMB_OP_IOTA, NULL, 0, (ir_type[]){ty(I32, 2, 4, 5)}, 1);
    io->a.dimension = 2;
    ret(&b, VALS(io->results[0]), 1);
    expect_err(&b, "stablehlo.iota: iota_dimension = 2 is out of range for result rank 2 (StableHLO C1)");

    b = tb_new();
    io = emitn(&b, PLUMB_OP_IOTA, NULL, 0, (ir_type[]){ty(I1, 1, 4)}, 1);
    io->a.dimension = 0;
    ret(&b, VALS(io->results[0]), 1);
    expect_err(&b, "stablehlo.iota: result 0: element type i1 is not accepted");
}

/* broadcast_in_dim: dims in range, unique, and each operand dim 1 or equal to
 * its result dim (StableHLO C2-C5). */
static void test_broadcast_in_dim(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 1, 3));
    ir_op *op = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, (ir_type[]){ty(F32, 3, 2, 4, 3)}, 1);
    op->a.dims = LIST(&b, 1, 2);
    ret(&b, VALS(op->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 2, 1, 3));
    op = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, (ir_type[]){ty(F32, 2, 4, 3)}, 1);
    op->a.dims = LIST(&b, 0, 5);
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "stablehlo.broadcast_in_dim: broadcast_dimensions[1] = 5 is out of range for result rank 2 (StableHLO C3)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 1, 3));
    op = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, (ir_type[]){ty(F32, 2, 3, 3)}, 1);
    op->a.dims = LIST(&b, 1, 1);
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "broadcast_dimensions[1] = 1 repeats broadcast_dimensions[0] (StableHLO C4)");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 3));
    op = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, (ir_type[]){ty(F32, 2, 3, 4)}, 1);
    op->a.dims = LIST(&b, 1);
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "operand dimension 0 has size 3, which is neither 1 nor result dimension 1's size 4 (StableHLO C5)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 1, 3));
    op = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, (ir_type[]){ty(F32, 2, 3, 3)}, 1);
    op->a.dims = LIST(&b, 0);
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "broadcast_dimensions has 1 entries but the operand has rank 2 (StableHLO C2)");
}

/* reshape keeps the element count; transpose needs a permutation and infers
 * dim(result, j) = dim(operand, permutation[j]). */
static void test_reshape_transpose(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 3, 2, 3, 4));
    ir_value *r1 = emit(&b, PLUMB_OP_RESHAPE, VALS(x), 1, ty(F32, 2, 6, 4));
    ir_op *t = emitn(&b, PLUMB_OP_TRANSPOSE, VALS(x), 1, (ir_type[]){ty(F32, 3, 4, 2, 3)}, 1);
    t->a.dims = LIST(&b, 2, 0, 1);
    ret(&b, VALS(r1, t->results[0]), 2);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    r1 = emit(&b, PLUMB_OP_RESHAPE, VALS(x), 1, ty(F32, 1, 5));
    ret(&b, VALS(r1), 1);
    expect_err(&b, "stablehlo.reshape: operand tensor<2x3xf32> has 6 elements but result tensor<5xf32> has 5 (StableHLO C2)");

    b = tb_new();
    x = arg(&b, ty(F32, 3, 2, 3, 4));
    t = emitn(&b, PLUMB_OP_TRANSPOSE, VALS(x), 1, (ir_type[]){ty(F32, 3, 4, 2, 3)}, 1);
    t->a.dims = LIST(&b, 2, 0, 0);
    ret(&b, VALS(t->results[0]), 1);
    expect_err(&b, "stablehlo.transpose: permutation[2] = 0 repeats permutation[1] (StableHLO C2)");

    b = tb_new();
    x = arg(&b, ty(F32, 3, 2, 3, 4));
    t = emitn(&b, PLUMB_OP_TRANSPOSE, VALS(x), 1, (ir_type[]){ty(F32, 3, 2, 4, 3)}, 1);
    t->a.dims = LIST(&b, 2, 0, 1);
    ret(&b, VALS(t->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<4x2x3xf32> (StableHLO C3)");
}

/* slice: 0 <= start <= limit <= dim, strides > 0, result = ceil((limit -
 * start) / stride) per dimension (StableHLO C3-C5). */
static void test_slice(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 3, 7));
    ir_op *s = emitn(&b, PLUMB_OP_SLICE, VALS(x), 1, (ir_type[]){ty(F32, 2, 2, 3)}, 1);
    s->a.start = LIST(&b, 1, 0);
    s->a.limit = LIST(&b, 3, 7);
    s->a.strides = LIST(&b, 1, 3);   /* ceil(7 / 3) = 3 */
    ret(&b, VALS(s->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 1, 7));
    s = emitn(&b, PLUMB_OP_SLICE, VALS(x), 1, (ir_type[]){ty(F32, 1, 0)}, 1);
    s->a.start = LIST(&b, 4);
    s->a.limit = LIST(&b, 3);
    s->a.strides = LIST(&b, 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "stablehlo.slice: dimension 0: need 0 <= start_indices (4) <= limit_indices (3) <= operand size (7) (StableHLO C3)");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 7));
    s = emitn(&b, PLUMB_OP_SLICE, VALS(x), 1, (ir_type[]){ty(F32, 1, 7)}, 1);
    s->a.start = LIST(&b, 0);
    s->a.limit = LIST(&b, 7);
    s->a.strides = LIST(&b, 0);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "strides[0] = 0 must be positive (StableHLO C4)");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 7));
    s = emitn(&b, PLUMB_OP_SLICE, VALS(x), 1, (ir_type[]){ty(F32, 1, 3)}, 1);
    s->a.start = LIST(&b, 0);
    s->a.limit = LIST(&b, 7);
    s->a.strides = LIST(&b, 2);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<4xf32> (StableHLO C5)");
}

/* dynamic_slice: one scalar integer index per dimension, all of one type;
 * slice_sizes within the operand (StableHLO C2-C5); dynamic_update_slice:
 * the update fits in the operand (C6). */
static void test_dynamic_slices(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 5, 3)), *i = arg(&b, ty(I64, 0)), *u = arg(&b, ty(F32, 2, 2, 3));
    ir_op *s = emitn(&b, PLUMB_OP_DYNAMIC_SLICE, VALS(x, i, i), 3, (ir_type[]){ty(F32, 2, 2, 1)}, 1);
    s->a.sizes = LIST(&b, 2, 1);
    ir_value *r = emit(&b, PLUMB_OP_DYNAMIC_UPDATE_SLICE, VALS(x, u, i, i), 4, ty(F32, 2, 5, 3));
    ret(&b, VALS(s->results[0], r), 2);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 2, 5, 3));
    i = arg(&b, ty(I64, 0));
    ir_value *j = arg(&b, ty(I32, 0));
    name(j, "j");
    s = emitn(&b, PLUMB_OP_DYNAMIC_SLICE, VALS(x, i, j), 3, (ir_type[]){ty(F32, 2, 2, 1)}, 1);
    s->a.sizes = LIST(&b, 2, 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "stablehlo.dynamic_slice: operand 2 (%j): element type i32 does not match operand 1's i64 (StableHLO C3)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 5, 3));
    i = arg(&b, ty(I64, 1, 1));
    s = emitn(&b, PLUMB_OP_DYNAMIC_SLICE, VALS(x, i, i), 3, (ir_type[]){ty(F32, 2, 2, 1)}, 1);
    s->a.sizes = LIST(&b, 2, 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "operand 1: start index has type tensor<1xi64>, expected a 0-dimensional integer tensor");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 5, 3));
    i = arg(&b, ty(I64, 0));
    s = emitn(&b, PLUMB_OP_DYNAMIC_SLICE, VALS(x, i, i), 3, (ir_type[]){ty(F32, 2, 2, 4)}, 1);
    s->a.sizes = LIST(&b, 2, 4);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "slice_sizes[1] = 4 is outside [0, 3], the operand's dimension size (StableHLO C4)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 5, 3));
    i = arg(&b, ty(I64, 0));
    s = emitn(&b, PLUMB_OP_DYNAMIC_SLICE, VALS(x, i), 2, (ir_type[]){ty(F32, 2, 2, 1)}, 1);
    s->a.sizes = LIST(&b, 2, 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "takes 2 start indices for an operand of rank 2, got 1");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 3));
    u = arg(&b, ty(F32, 1, 4));
    i = arg(&b, ty(UI32, 0));
    r = emit(&b, PLUMB_OP_DYNAMIC_UPDATE_SLICE, VALS(x, u, i), 3, ty(F32, 1, 3));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.dynamic_update_slice: update dimension 0 has size 4, larger than the operand's 3 (StableHLO C6)");
}

/* concatenate: result dimension is the sum; other dims equal (C2, C6). */
static void test_concatenate(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 2, 3)), *y = arg(&b, ty(F32, 2, 2, 4));
    ir_op *c = emitn(&b, PLUMB_OP_CONCATENATE, VALS(x, y, x), 3, (ir_type[]){ty(F32, 2, 2, 10)}, 1);
    c->a.dimension = 1;
    ret(&b, VALS(c->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    y = arg(&b, ty(F32, 2, 3, 3));
    c = emitn(&b, PLUMB_OP_CONCATENATE, VALS(x, y), 2, (ir_type[]){ty(F32, 2, 2, 6)}, 1);
    c->a.dimension = 1;
    ret(&b, VALS(c->results[0]), 1);
    expect_err(&b, "stablehlo.concatenate: operand 1: dimension 0 has size 3 but operand 0's has 2 (StableHLO C2)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    c = emitn(&b, PLUMB_OP_CONCATENATE, VALS(x, x), 2, (ir_type[]){ty(F32, 2, 2, 5)}, 1);
    c->a.dimension = 1;
    ret(&b, VALS(c->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<2x6xf32> (StableHLO C6)");

    b = tb_new();
    c = emitn(&b, PLUMB_OP_CONCATENATE, NULL, 0, (ir_type[]){ty(F32, 1, 0)}, 1);
    c->a.dimension = 0;
    ret(&b, VALS(c->results[0]), 1);
    expect_err(&b, "needs at least one input");
}

/* pad: the spec's example 2x3 with low [0, 1], high [2, 1], interior [1, 2]
 * gives 5x9; negative edge padding removes; interior must be >= 0. */
static void test_pad(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(I32, 2, 2, 3)), *pv = arg(&b, ty(I32, 0));
    ir_op *p = emitn(&b, PLUMB_OP_PAD, VALS(x, pv), 2, (ir_type[]){ty(I32, 2, 5, 9)}, 1);
    p->a.low = LIST(&b, 0, 1);
    p->a.high = LIST(&b, 2, 1);
    p->a.interior = LIST(&b, 1, 2);
    /* 3 + 2 * 1 - 1 - 2 = 2 */
    ir_op *q = emitn(&b, PLUMB_OP_PAD, VALS(x, pv), 2, (ir_type[]){ty(I32, 2, 2, 2)}, 1);
    q->a.low = LIST(&b, 0, -1);
    q->a.high = LIST(&b, 0, -2);
    q->a.interior = LIST(&b, 0, 1);
    ret(&b, VALS(p->results[0], q->results[0]), 2);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(I32, 2, 2, 3));
    pv = arg(&b, ty(I32, 0));
    p = emitn(&b, PLUMB_OP_PAD, VALS(x, pv), 2, (ir_type[]){ty(I32, 2, 2, 3)}, 1);
    p->a.low = LIST(&b, 0, 0);
    p->a.high = LIST(&b, 0, 0);
    p->a.interior = LIST(&b, 0, -1);
    ret(&b, VALS(p->results[0]), 1);
    expect_err(&b, "stablehlo.pad: interior_padding[1] = -1 must not be negative (StableHLO C3)");

    b = tb_new();
    x = arg(&b, ty(I32, 1, 3));
    pv = arg(&b, ty(I32, 0));
    p = emitn(&b, PLUMB_OP_PAD, VALS(x, pv), 2, (ir_type[]){ty(I32, 1, 0)}, 1);
    p->a.low = LIST(&b, -2);
    p->a.high = LIST(&b, -2);
    p->a.interior = LIST(&b, 0);
    ret(&b, VALS(p->results[0]), 1);
    expect_err(&b, "result dimension 0 would be -1");

    b = tb_new();
    x = arg(&b, ty(I32, 1, 3));
    pv = arg(&b, ty(I32, 0));
    p = emitn(&b, PLUMB_OP_PAD, VALS(x, pv), 2, (ir_type[]){ty(I32, 1, 6)}, 1);
    p->a.low = LIST(&b, 1);
    p->a.high = LIST(&b, 1);
    p->a.interior = LIST(&b, 1);
    ret(&b, VALS(p->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<7xi32> (StableHLO C4)");
}

/* reverse: dimensions unique and in range. */
static void test_reverse(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 4, 5));
    ir_op *r = emitn(&b, PLUMB_OP_REVERSE, VALS(x), 1, (ir_type[]){ty(F32, 2, 4, 5)}, 1);
    r->a.dims = LIST(&b, 1, 0);
    ret(&b, VALS(r->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 2, 4, 5));
    r = emitn(&b, PLUMB_OP_REVERSE, VALS(x), 1, (ir_type[]){ty(F32, 2, 4, 5)}, 1);
    r->a.dims = LIST(&b, 0, 0);
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "stablehlo.reverse: dimensions[1] = 0 repeats dimensions[0] (StableHLO C2)");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 4, 5));
    r = emitn(&b, PLUMB_OP_REVERSE, VALS(x), 1, (ir_type[]){ty(F32, 2, 4, 5)}, 1);
    r->a.dims = LIST(&b, 2);
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "dimensions[0] = 2 is out of range for operand rank 2 (StableHLO C3)");
}

/* ---- reduce -------------------------------------------------------------------- */

/* Builds reduce(x: 2x3, init) over dims with an add body; the body's
 * element type is body_t. */
static ir_op *build_reduce(tb *b, plumb_dtype in_t, plumb_dtype body_t, ir_type res)
{
    ir_value *x = arg(b, ty(in_t, 2, 2, 3)), *init = arg(b, ty(in_t, 0));
    ir_op *r = emitn(b, PLUMB_OP_REDUCE, VALS(x, init), 2, &res, 1);
    r->a.dims = LIST(b, 1);
    ir_value **a = region_begin(b, r, (plumb_dtype[]){body_t, body_t}, 2);
    ir_value *s = emit(b, PLUMB_OP_ADD, VALS(a[0], a[1]), 2, ty(body_t, 0));
    region_end(b, VALS(s), 1);
    return r;
}

/* reduce: 2N operands, N results; dims unique and in range; body takes 2N
 * scalars and returns N; result = input shape without the reduced dims
 * (StableHLO C1-C8), with a body type the input promotes to. */
static void test_reduce(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_op *r = build_reduce(&b, F32, F32, ty(F32, 1, 2));
    ret(&b, VALS(r->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    r = build_reduce(&b, I8, I32, ty(I32, 1, 2));
    ret(&b, VALS(r->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    r = build_reduce(&b, F32, F32, ty(F32, 1, 3));
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "stablehlo.reduce: result 0: type tensor<3xf32> does not match the inferred type tensor<2xf32> (StableHLO C7, C8)");

    b = tb_new();
    r = build_reduce(&b, F32, F32, ty(F32, 1, 2));
    r->a.dims = LIST(&b, 2);
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "dimensions[0] = 2 is out of range for input rank 2 (StableHLO C4)");

    b = tb_new();
    r = build_reduce(&b, F32, I32, ty(I32, 1, 2));
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "body argument 0 has element type i32, which input 0's f32 does not promote to (StableHLO C6)");

    /* a body returning a non-scalar */
    b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 2, 3)), *init = arg(&b, ty(F32, 0));
    r = emitn(&b, PLUMB_OP_REDUCE, VALS(x, init), 2, (ir_type[]){ty(F32, 1, 2)}, 1);
    r->a.dims = LIST(&b, 1);
    ir_value **a = region_begin(&b, r, (plumb_dtype[]){F32, F32}, 2);
    ir_op *bc = emitn(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(a[0]), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    region_end(&b, VALS(bc->results[0]), 1);
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "stablehlo.reduce: body returns tensor<2xf32> as value 0, expected tensor<f32> (StableHLO C6)");

    /* odd operand count */
    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    r = emitn(&b, PLUMB_OP_REDUCE, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    ret(&b, VALS(r->results[0]), 1);
    expect_err(&b, "takes N inputs and N init values (2N operands, N >= 1), got 1 operands");
}

/* ---- contraction ----------------------------------------------------------------- */

/* dot_general: result = batch dims + lhs free dims + rhs free dims (C12);
 * batching/contracting sizes match (C9, C10); dims unique and in range;
 * mixed input element types are accepted. */
static void test_dot_general(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *l = arg(&b, ty(F32, 3, 8, 2, 3)), *r = arg(&b, ty(F16, 3, 8, 3, 5));
    ir_op *d = emitn(&b, PLUMB_OP_DOT_GENERAL, VALS(l, r), 2, (ir_type[]){ty(F32, 3, 8, 2, 5)}, 1);
    d->a.lhs_batch = LIST(&b, 0);
    d->a.rhs_batch = LIST(&b, 0);
    d->a.lhs_contract = LIST(&b, 2);
    d->a.rhs_contract = LIST(&b, 1);
    ret(&b, VALS(d->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    l = arg(&b, ty(F32, 2, 2, 3));
    r = arg(&b, ty(F32, 2, 4, 5));
    d = emitn(&b, PLUMB_OP_DOT_GENERAL, VALS(l, r), 2, (ir_type[]){ty(F32, 2, 2, 5)}, 1);
    d->a.lhs_contract = LIST(&b, 1);
    d->a.rhs_contract = LIST(&b, 0);
    ret(&b, VALS(d->results[0]), 1);
    expect_err(&b, "stablehlo.dot_general: contracting dimension pair 0: lhs dimension 1 has size 3 but rhs dimension 0 has size 4 (StableHLO C10)");

    b = tb_new();
    l = arg(&b, ty(F32, 2, 2, 3));
    r = arg(&b, ty(F32, 2, 3, 5));
    d = emitn(&b, PLUMB_OP_DOT_GENERAL, VALS(l, r), 2, (ir_type[]){ty(F32, 2, 5, 2)}, 1);
    d->a.lhs_contract = LIST(&b, 1);
    d->a.rhs_contract = LIST(&b, 0);
    ret(&b, VALS(d->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<2x5xf32> (StableHLO C12)");

    b = tb_new();
    l = arg(&b, ty(F32, 2, 2, 3));
    r = arg(&b, ty(F32, 2, 3, 5));
    d = emitn(&b, PLUMB_OP_DOT_GENERAL, VALS(l, r), 2, (ir_type[]){ty(F32, 1, 5)}, 1);
    d->a.lhs_batch = LIST(&b, 1);
    d->a.rhs_batch = LIST(&b, 0);
    d->a.lhs_contract = LIST(&b, 1);
    d->a.rhs_contract = LIST(&b, 0);
    ret(&b, VALS(d->results[0]), 1);
    expect_err(&b, "lhs_batching_dimensions[0] and lhs_contracting_dimensions[0] are both 1 (StableHLO C3)");

    b = tb_new();
    l = arg(&b, ty(F32, 2, 2, 3));
    r = arg(&b, ty(F32, 2, 3, 5));
    d = emitn(&b, PLUMB_OP_DOT_GENERAL, VALS(l, r), 2, (ir_type[]){ty(F32, 2, 2, 5)}, 1);
    d->a.lhs_contract = LIST(&b, 1);
    d->a.rhs_contract = LIST(&b, 2);
    ret(&b, VALS(d->results[0]), 1);
    expect_err(&b, "rhs_contracting_dimensions[0] = 2 is out of range for rhs rank 2 (StableHLO C8)");
}

/* dot: rank 1 or 2 operands; [m,k].[k] -> [m], [k].[k] -> scalar. */
static void test_dot(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *m = arg(&b, ty(F32, 2, 2, 3)), *v = arg(&b, ty(F32, 1, 3));
    ir_value *r1 = emit(&b, PLUMB_OP_DOT, VALS(m, v), 2, ty(F32, 1, 2));
    ir_value *r2 = emit(&b, PLUMB_OP_DOT, VALS(v, v), 2, ty(F32, 0));
    ret(&b, VALS(r1, r2), 2);
    expect_ok(&b);

    b = tb_new();
    m = arg(&b, ty(F32, 2, 2, 3));
    v = arg(&b, ty(F32, 1, 2));
    r1 = emit(&b, PLUMB_OP_DOT, VALS(m, v), 2, ty(F32, 1, 2));
    ret(&b, VALS(r1), 1);
    expect_err(&b, "stablehlo.dot: lhs's last dimension (3) does not match rhs's first dimension (2)");
}

/* ---- indexing ---------------------------------------------------------------------- */

/* gather: the spec's example, its batching variant, and violations of C9,
 * C17 and C22. */
static void test_gather(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(I32, 3, 3, 4, 2)), *i = arg(&b, ty(I64, 3, 2, 3, 2));
    ir_op *g = emitn(&b, PLUMB_OP_GATHER, VALS(x, i), 2, (ir_type[]){ty(I32, 4, 2, 3, 2, 2)}, 1);
    g->a.offset_dims = LIST(&b, 2, 3);
    g->a.collapsed_slice_dims = LIST(&b, 0);
    g->a.start_index_map = LIST(&b, 1, 0);
    g->a.index_vector_dim = 2;
    g->a.sizes = LIST(&b, 1, 2, 2);
    /* batching: operand 2x3x4x2, indices 2x2x3x2 -> 2x2x3x2x2 */
    ir_value *x2 = arg(&b, ty(I32, 4, 2, 3, 4, 2)), *i2 = arg(&b, ty(I64, 4, 2, 2, 3, 2));
    ir_op *g2 = emitn(&b, PLUMB_OP_GATHER, VALS(x2, i2), 2, (ir_type[]){ty(I32, 5, 2, 2, 3, 2, 2)}, 1);
    g2->a.offset_dims = LIST(&b, 3, 4);
    g2->a.collapsed_slice_dims = LIST(&b, 1);
    g2->a.operand_batching_dims = LIST(&b, 0);
    g2->a.start_indices_batching_dims = LIST(&b, 1);
    g2->a.start_index_map = LIST(&b, 2, 1);
    g2->a.index_vector_dim = 3;
    g2->a.sizes = LIST(&b, 1, 1, 2, 2);
    ret(&b, VALS(g->results[0], g2->results[0]), 2);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(I32, 3, 3, 4, 2));
    i = arg(&b, ty(I64, 3, 2, 3, 2));
    g = emitn(&b, PLUMB_OP_GATHER, VALS(x, i), 2, (ir_type[]){ty(I32, 4, 2, 3, 2, 2)}, 1);
    g->a.offset_dims = LIST(&b, 2, 3);
    g->a.collapsed_slice_dims = LIST(&b, 0);
    g->a.start_index_map = LIST(&b, 1, 0);
    g->a.index_vector_dim = 2;
    g->a.sizes = LIST(&b, 2, 2, 2);
    ret(&b, VALS(g->results[0]), 1);
    expect_err(&b, "stablehlo.gather: slice_sizes[0] = 2 must be at most 1 for a collapsed slice dimension (StableHLO C9)");

    b = tb_new();
    x2 = arg(&b, ty(I32, 4, 2, 3, 4, 2));
    i2 = arg(&b, ty(I64, 4, 2, 5, 3, 2));
    g2 = emitn(&b, PLUMB_OP_GATHER, VALS(x2, i2), 2, (ir_type[]){ty(I32, 5, 2, 5, 3, 2, 2)}, 1);
    g2->a.offset_dims = LIST(&b, 3, 4);
    g2->a.collapsed_slice_dims = LIST(&b, 1);
    g2->a.operand_batching_dims = LIST(&b, 0);
    g2->a.start_indices_batching_dims = LIST(&b, 1);
    g2->a.start_index_map = LIST(&b, 2, 1);
    g2->a.index_vector_dim = 3;
    g2->a.sizes = LIST(&b, 1, 1, 2, 2);
    ret(&b, VALS(g2->results[0]), 1);
    expect_err(&b, "batching dimension pair 0: operand dimension size 2 != start_indices dimension size 5 (StableHLO C17)");

    b = tb_new();
    x = arg(&b, ty(I32, 3, 3, 4, 2));
    i = arg(&b, ty(I64, 3, 2, 3, 2));
    g = emitn(&b, PLUMB_OP_GATHER, VALS(x, i), 2, (ir_type[]){ty(I32, 4, 2, 3, 2, 1)}, 1);
    g->a.offset_dims = LIST(&b, 2, 3);
    g->a.collapsed_slice_dims = LIST(&b, 0);
    g->a.start_index_map = LIST(&b, 1, 0);
    g->a.index_vector_dim = 2;
    g->a.sizes = LIST(&b, 1, 2, 2);
    ret(&b, VALS(g->results[0]), 1);
    expect_err(&b, "does not match the inferred type tensor<2x3x2x2xi32> (StableHLO C22, C23)");

    b = tb_new();
    x = arg(&b, ty(I32, 3, 3, 4, 2));
    i = arg(&b, ty(I64, 3, 2, 3, 2));
    g = emitn(&b, PLUMB_OP_GATHER, VALS(x, i), 2, (ir_type[]){ty(I32, 4, 2, 3, 2, 2)}, 1);
    g->a.offset_dims = LIST(&b, 2, 3);
    g->a.collapsed_slice_dims = LIST(&b, 0);
    g->a.start_index_map = LIST(&b, 1, 0);
    g->a.index_vector_dim = 4;
    g->a.sizes = LIST(&b, 1, 2, 2);
    ret(&b, VALS(g->results[0]), 1);
    expect_err(&b, "index_vector_dim = 4 is outside [0, 3], the start_indices rank (StableHLO C2)");
}

/* Builds scatter(input 1x2x3 ui64, indices [1], updates 2x3) with a max
 * body, as in the StableHLO sample program scatter_max_uint64_1_2_3. */
static ir_op *build_scatter(tb *b, ir_type upd, plumb_dtype body_ret)
{
    ir_value *x = arg(b, ty(UI64, 3, 1, 2, 3)), *i = arg(b, ty(I64, 1, 1)), *u = arg(b, upd);
    ir_op *s = emitn(b, PLUMB_OP_SCATTER, VALS(x, i, u), 3, (ir_type[]){ty(UI64, 3, 1, 2, 3)}, 1);
    s->a.update_window_dims = LIST(b, 0, 1);
    s->a.inserted_window_dims = LIST(b, 0);
    s->a.scatter_dims_to_operand_dims = LIST(b, 0);
    ir_value **a = region_begin(b, s, (plumb_dtype[]){UI64, UI64}, 2);
    ir_value *m = emit(b, PLUMB_OP_MAXIMUM, VALS(a[0], a[1]), 2, ty(UI64, 0));
    if (body_ret != UI64)
        m = emit(b, PLUMB_OP_CONVERT, VALS(m), 1, ty(body_ret, 0));
    region_end(b, VALS(m), 1);
    return s;
}

/* scatter: N inputs + indices + N updates; update shape per C4; body types
 * per C23; results take the inputs' shapes. index_vector_dim unset is 0. */
static void test_scatter(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_op *s = build_scatter(&b, ty(UI64, 2, 2, 3), UI64);
    ret(&b, VALS(s->results[0]), 1);
    expect_ok(&b);

    b = tb_new();
    s = build_scatter(&b, ty(UI64, 2, 3, 3), UI64);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "stablehlo.scatter: updates dimension 0 (a window dimension) has size 3, larger than input dimension 1's 2 (StableHLO C4)");

    b = tb_new();
    s = build_scatter(&b, ty(UI64, 3, 1, 2, 3), UI64);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "updates have rank 3, expected 0 scatter dimensions + 2 window dimensions (StableHLO C4)");

    b = tb_new();
    s = build_scatter(&b, ty(UI64, 2, 2, 3), F32);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "update_computation returns tensor<f32> as value 0, expected tensor<ui64> (StableHLO C23)");

    b = tb_new();
    ir_value *x = arg(&b, ty(UI64, 1, 4)), *i = arg(&b, ty(I64, 1, 1));
    s = emitn(&b, PLUMB_OP_SCATTER, VALS(x, i), 2, (ir_type[]){ty(UI64, 1, 4)}, 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "takes N inputs, the scatter indices and N updates (2N + 1 operands, N >= 1), got 2");
}

/* sort: dimension in [-R, R); comparator takes 2N scalars and returns i1. */
static void test_sort(void **state)
{
    (void)state;
    for (int bad = 0; bad < 3; bad++) {
        tb b = tb_new();
        ir_value *k = arg(&b, ty(F32, 2, 5, 7)), *v = arg(&b, ty(I32, 2, 5, 7));
        ir_op *s = emitn(&b, PLUMB_OP_SORT, VALS(k, v), 2,
                         (ir_type[]){ty(F32, 2, 5, 7), ty(I32, 2, 5, 7)}, 2);
        s->a.dimension = bad == 1 ? 2 : -2;
        ir_value **a = region_begin(&b, s, (plumb_dtype[]){F32, F32, I32, I32}, 4);
        ir_op *c = emitn(&b, PLUMB_OP_COMPARE, VALS(a[0], a[1]), 2, (ir_type[]){ty(I1, 0)}, 1);
        ir_value *r = c->results[0];
        if (bad == 2)
            r = emit(&b, PLUMB_OP_CONVERT, VALS(r), 1, ty(F32, 0));
        region_end(&b, VALS(r), 1);
        ret(&b, VALS(s->results[0], s->results[1]), 2);
        if (bad == 0)
            expect_ok(&b);
        else if (bad == 1)
            expect_err(&b, "stablehlo.sort: dimension = 2 is outside [-2, 2) for input rank 2 (StableHLO C4)");
        else
            expect_err(&b, "stablehlo.sort: comparator returns tensor<f32> as value 0, expected tensor<i1> (StableHLO C5)");
    }

    tb b = tb_new();
    ir_value *k = arg(&b, ty(F32, 1, 5));
    ir_op *s = emitn(&b, PLUMB_OP_SORT, VALS(k), 1, (ir_type[]){ty(F32, 1, 5)}, 1);
    s->a.dimension = 0;
    ir_value **a = region_begin(&b, s, (plumb_dtype[]){F32}, 1);
    ir_op *c = emitn(&b, PLUMB_OP_COMPARE, VALS(a[0], a[0]), 2, (ir_type[]){ty(I1, 0)}, 1);
    region_end(&b, VALS(c->results[0]), 1);
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "comparator takes 1 arguments, expected 2 scalars (StableHLO C5)");
}

/* top_k: k <= last dim; values keep the element type, indices are i32. */
static void test_top_k(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 2, 4, 5));
    ir_op *t = emitn(&b, PLUMB_OP_TOP_K, VALS(x), 1, (ir_type[]){ty(F32, 2, 4, 3), ty(I32, 2, 4, 3)}, 2);
    t->a.k = 3;
    ret(&b, VALS(t->results[0], t->results[1]), 2);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 1, 5));
    t = emitn(&b, PLUMB_OP_TOP_K, VALS(x), 1, (ir_type[]){ty(F32, 1, 6), ty(I32, 1, 6)}, 2);
    t->a.k = 6;
    ret(&b, VALS(t->results[0], t->results[1]), 2);
    expect_err(&b, "chlo.top_k: k = 6 is outside [0, 5], the operand's last dimension");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 5));
    t = emitn(&b, PLUMB_OP_TOP_K, VALS(x), 1, (ir_type[]){ty(F32, 1, 2), ty(I64, 1, 2)}, 2);
    t->a.k = 2;
    ret(&b, VALS(t->results[0], t->results[1]), 2);
    expect_err(&b, "result 1: type tensor<2xi64> does not match the inferred type tensor<2xi32>");
}

/* rng_bit_generator: THREE_FRY state is ui64[2], PHILOX ui64[2] or [3];
 * output_state has the state's type; output is integer or float. */
static void test_rng_bit_generator(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *s2 = arg(&b, ty(UI64, 1, 2)), *s3 = arg(&b, ty(UI64, 1, 3));
    ir_op *r1 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s2), 1,
                      (ir_type[]){ty(UI64, 1, 2), ty(UI32, 2, 4, 4)}, 2);
    r1->a.rng_alg = IR_RNG_THREE_FRY;
    ir_op *r2 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s3), 1,
                      (ir_type[]){ty(UI64, 1, 3), ty(UI64, 0)}, 2);
    r2->a.rng_alg = IR_RNG_PHILOX;
    ret(&b, VALS(r1->results[1], r2->results[1]), 2);
    expect_ok(&b);

    b = tb_new();
    s3 = arg(&b, ty(UI64, 1, 3));
    r1 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s3), 1, (ir_type[]){ty(UI64, 1, 3), ty(UI32, 1, 4)}, 2);
    r1->a.rng_alg = IR_RNG_THREE_FRY;
    ret(&b, VALS(r1->results[1]), 1);
    expect_err(&b, "stablehlo.rng_bit_generator: initial_state has type tensor<3xui64>; THREE_FRY needs tensor<2xui64> (StableHLO C2)");

    b = tb_new();
    s2 = arg(&b, ty(UI64, 1, 2));
    r1 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s2), 1, (ir_type[]){ty(UI64, 1, 3), ty(UI32, 1, 4)}, 2);
    r1->a.rng_alg = IR_RNG_PHILOX;
    ret(&b, VALS(r1->results[1]), 1);
    expect_err(&b, "result 0: type tensor<3xui64> does not match the inferred type tensor<2xui64> (StableHLO C1)");

    b = tb_new();
    s2 = arg(&b, ty(UI64, 1, 2));
    r1 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s2), 1, (ir_type[]){ty(UI64, 1, 2), ty(F32, 1, 4)}, 2);
    ret(&b, VALS(r1->results[1]), 1);
    expect_ok(&b);

    b = tb_new();
    s2 = arg(&b, ty(UI64, 1, 2));
    r1 = emitn(&b, PLUMB_OP_RNG_BIT_GENERATOR, VALS(s2), 1, (ir_type[]){ty(UI64, 1, 2), ty(I1, 1, 4)}, 2);
    ret(&b, VALS(r1->results[1]), 1);
    expect_err(&b, "output element type i1 must be an integer or floating-point type");
}

/* ---- functions and structure --------------------------------------------------------- */

/* call: the callee exists and its parameter and result types match. */
static void test_call(void **state)
{
    (void)state;
    for (int bad = 0; bad < 3; bad++) {
        tb b = tb_new();
        ir_func *g = ir_func_new(b.m, "g", false);
        ir_type t = ty(F32, 1, 2);
        ir_value *p = ir_block_add_arg(b.m, &g->body, &t);
        assert_true(ir_func_set_results(b.m, g, &t, 1));
        ir_op *gr = ir_op_new(b.m, PLUMB_OP_FUNC_RETURN, VALS(p), 1, NULL, 0);
        ir_block_append(&g->body, gr);
        ir_value *x = arg(&b, bad == 2 ? ty(F32, 1, 3) : ty(F32, 1, 2));
        ir_op *c = emitn(&b, PLUMB_OP_CALL, VALS(x), 1, (ir_type[]){x->type}, 1);
        c->a.callee = bad == 1 ? "nope" : "g";
        ret(&b, VALS(c->results[0]), 1);
        if (bad == 0)
            expect_ok(&b);
        else if (bad == 1)
            expect_err(&b, "func.call: calls @nope, which is not a function of this module");
        else
            expect_err(&b, "func.call: operand 0 has type tensor<3xf32> but @g's parameter 0 has type tensor<2xf32>");
    }
}

/* func.return's types equal the declared results; duplicate function names,
 * missing terminators and misplaced returns are errors. */
static void test_function_structure(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2));
    ir_type t = ty(F32, 1, 3);
    assert_true(ir_func_set_results(b.m, b.f, &t, 1));
    emitn(&b, PLUMB_OP_FUNC_RETURN, VALS(x), 1, NULL, 0);
    expect_err(&b, "func.return: operand 0 has type tensor<2xf32> but @main declares result 0 as tensor<3xf32>");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    emit(&b, PLUMB_OP_NEGATE, VALS(x), 1, ty(F32, 1, 2));
    expect_err(&b, "function @main: body must end in func.return, ends in stablehlo.negate");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    ret(&b, VALS(x), 1);
    ir_func *dup = ir_func_new(b.m, "main", false);
    dup->loc = (plumb_loc){9, 1};
    ir_block_append(&dup->body, ir_op_new(b.m, PLUMB_OP_FUNC_RETURN, NULL, 0, NULL, 0));
    expect_err(&b, "function @main is defined twice (first at line 1)");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    emitn(&b, PLUMB_OP_RETURN, VALS(x), 1, NULL, 0);
    expect_err(&b, "stablehlo.return: may only end a region, not a function body (use func.return)");

    /* a region that does not end in stablehlo.return */
    b = tb_new();
    x = arg(&b, ty(F32, 1, 5));
    ir_op *s = emitn(&b, PLUMB_OP_SORT, VALS(x), 1, (ir_type[]){ty(F32, 1, 5)}, 1);
    s->a.dimension = 0;
    ir_value **a = region_begin(&b, s, (plumb_dtype[]){F32, F32}, 2);
    emitn(&b, PLUMB_OP_COMPARE, VALS(a[0], a[1]), 2, (ir_type[]){ty(I1, 0)}, 1);
    b.cur = &b.f->body;
    ret(&b, VALS(s->results[0]), 1);
    expect_err(&b, "stablehlo.sort: region must end in stablehlo.return, ends in stablehlo.compare");
}

/* A value must be defined before its use, in the same block or an enclosing
 * one: a later op's result, and a region's value used outside it, are not. */
static void test_use_before_def(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2));
    ir_op *first = emitn(&b, PLUMB_OP_NEGATE, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    ir_op *second = emitn(&b, PLUMB_OP_ABS, VALS(x), 1, (ir_type[]){ty(F32, 1, 2)}, 1);
    name(second->results[0], "late");
    first->operands[0] = second->results[0];
    ret(&b, VALS(first->results[0]), 1);
    expect_err(&b, "stablehlo.negate: operand 0 (%late) is not defined before this use");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    ir_value *init = arg(&b, ty(F32, 0));
    ir_op *r = emitn(&b, PLUMB_OP_REDUCE, VALS(x, init), 2, (ir_type[]){ty(F32, 1, 2)}, 1);
    r->a.dims = LIST(&b, 1);
    ir_value **a = region_begin(&b, r, (plumb_dtype[]){F32, F32}, 2);
    ir_value *inner = emit(&b, PLUMB_OP_ADD, VALS(a[0], a[1]), 2, ty(F32, 0));
    region_end(&b, VALS(inner), 1);
    ir_value *leak = emit(&b, PLUMB_OP_NEGATE, VALS(inner), 1, ty(F32, 0));
    ret(&b, VALS(leak), 1);
    expect_err(&b, "stablehlo.negate: operand 0 is not defined before this use");

    /* an enclosing block's value is visible inside a region */
    b = tb_new();
    x = arg(&b, ty(F32, 2, 2, 3));
    init = arg(&b, ty(F32, 0));
    r = emitn(&b, PLUMB_OP_REDUCE, VALS(x, init), 2, (ir_type[]){ty(F32, 1, 2)}, 1);
    r->a.dims = LIST(&b, 1);
    a = region_begin(&b, r, (plumb_dtype[]){F32, F32}, 2);
    ir_value *s = emit(&b, PLUMB_OP_ADD, VALS(a[0], init), 2, ty(F32, 0));
    region_end(&b, VALS(s), 1);
    ret(&b, VALS(r->results[0]), 1);
    expect_ok(&b);
}

/* Errors carry the op's location and the module's file name. */
static void test_error_location(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2)), *y = arg(&b, ty(I32, 1, 2));
    ir_op *op = emitn(&b, PLUMB_OP_ADD, VALS(x, y), 2, (ir_type[]){ty(F32, 1, 2)}, 1);
    op->loc = (plumb_loc){42, 7};
    ret(&b, VALS(op->results[0]), 1);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_false(ir_verify(b.m, NULL, &d));
    assert_int_equal(d.loc.line, 42);
    assert_int_equal(d.loc.col, 7);
    assert_string_equal(d.file, "t.mlir");
    /* ir_verify_op checks one op on its own, with the same message. */
    plumb_diag d2;
    memset(&d2, 0, sizeof d2);
    assert_false(ir_verify_op(op, b.m, 0, &d2));
    assert_string_equal(d.msg, d2.msg);
    ir_module_free(b.m);
}

/* ---- types and sizes ------------------------------------------------------------------ */

/* Rank, dims and bounds are checked on every value: function arguments
 * included. */
static void test_type_form(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_type t = ty(F32, 1, 4);
    t.rank = PLUMB_MAX_RANK + 1;
    ir_value *x = arg(&b, t);
    ret(&b, VALS(x), 1);
    expect_err_opts(&b, NULL, PLUMB_ERR_LIMIT, "function @main: argument 0: rank 17 exceeds the maximum rank 16");

    b = tb_new();
    x = arg(&b, ty(F32, 2, 3, -5));
    ret(&b, VALS(x), 1);
    expect_err(&b, "dimension 1 has negative size -5");

    b = tb_new();
    t = ty(F32, 1, 4);
    t.bounds[0] = 8;
    x = arg(&b, t);
    ret(&b, VALS(x), 1);
    expect_err(&b, "dimension 0 is static but has a bound 8");

    /* a bounded '?' is fine and compatible with a static size */
    b = tb_new();
    t = ty(F32, 2, -1, 128);
    t.bounds[0] = 64;
    x = arg(&b, t);
    ir_value *y = emit(&b, PLUMB_OP_TANH, VALS(x), 1, t);
    ret(&b, VALS(y), 1);
    expect_ok(&b);
}

/* Element counts and byte sizes that overflow 64 bits, or exceed the limit
 * (default 16 GiB, an option or PLUMB_MAX_BYTES), are rejected naming the
 * value and its type; a bound stands in for a '?' dimension. */
static void test_sizes(void **state)
{
    (void)state;
    unsetenv("PLUMB_MAX_BYTES");
    tb b = tb_new();
    ir_type t = ty(F32, 3, 1, 1, 16);
    t.dims[0] = 4294967296;
    t.dims[1] = 4294967296;
    ir_value *x = arg(&b, ty(F32, 0));
    ir_value *r = emit(&b, PLUMB_OP_BROADCAST_IN_DIM, VALS(x), 1, t);
    name(r, "big");
    ret(&b, VALS(x), 1);
    expect_err_opts(&b, NULL, PLUMB_ERR_LIMIT,
                    "stablehlo.broadcast_in_dim: result 0 (%big): type tensor<4294967296x4294967296x16xf32>: element count overflows 64 bits");

    /* 32 GiB: 8 Gi f32 elements */
    ir_type big = ty(F32, 2, 1, 1);
    big.dims[0] = 1 << 20;
    big.dims[1] = 1 << 13;
    b = tb_new();
    x = arg(&b, big);
    ret(&b, VALS(x), 1);
    expect_err_opts(&b, NULL, PLUMB_ERR_LIMIT,
                    "function @main: argument 0: type tensor<1048576x8192xf32>: tensor of 34359738368 bytes exceeds the limit of 17179869184 bytes");

    ir_verify_options o = {sizeof o, 64ull << 30};
    b = tb_new();
    x = arg(&b, big);
    ret(&b, VALS(x), 1);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(ir_verify(b.m, &o, &d));
    ir_module_free(b.m);

    /* the bound of a '?' dimension counts */
    b = tb_new();
    t = ty(F32, 2, -1, 8192);
    t.bounds[0] = 1 << 20;
    x = arg(&b, t);
    ret(&b, VALS(x), 1);
    expect_err_opts(&b, NULL, PLUMB_ERR_LIMIT, "exceeds the limit of 17179869184 bytes");

    /* the environment sets the default */
    setenv("PLUMB_MAX_BYTES", "1000", 1);
    b = tb_new();
    x = arg(&b, ty(F64, 1, 126));
    ret(&b, VALS(x), 1);
    expect_err_opts(&b, NULL, PLUMB_ERR_LIMIT, "tensor of 1008 bytes exceeds the limit of 1000 bytes");
    b = tb_new();
    x = arg(&b, ty(F64, 1, 125));
    ret(&b, VALS(x), 1);
    expect_ok(&b);
    unsetenv("PLUMB_MAX_BYTES");
}

/* ir_max_bytes: an explicit value wins; else a positive decimal
 * PLUMB_MAX_BYTES; anything else gives the 16 GiB default. */
static void test_max_bytes(void **state)
{
    (void)state;
    unsetenv("PLUMB_MAX_BYTES");
    assert_true(ir_max_bytes(0) == 17179869184ull);
    assert_true(ir_max_bytes(5) == 5);
    setenv("PLUMB_MAX_BYTES", "4096", 1);
    assert_true(ir_max_bytes(0) == 4096);
    assert_true(ir_max_bytes(7) == 7);
    setenv("PLUMB_MAX_BYTES", "12abc", 1);
    assert_true(ir_max_bytes(0) == 17179869184ull);
    setenv("PLUMB_MAX_BYTES", "0", 1);
    assert_true(ir_max_bytes(0) == 17179869184ull);
    setenv("PLUMB_MAX_BYTES", "-3", 1);
    assert_true(ir_max_bytes(0) == 17179869184ull);
    unsetenv("PLUMB_MAX_BYTES");
}

/* Operand and result counts follow the table's arity. */
static void test_arity(void **state)
{
    (void)state;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2));
    ir_value *r = emit(&b, PLUMB_OP_ADD, VALS(x), 1, ty(F32, 1, 2));
    ret(&b, VALS(r), 1);
    expect_err(&b, "stablehlo.add: takes 2 operands, got 1");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    ir_op *op = emitn(&b, PLUMB_OP_TANH, VALS(x), 1, (ir_type[]){ty(F32, 1, 2), ty(F32, 1, 2)}, 2);
    ret(&b, VALS(op->results[0]), 1);
    expect_err(&b, "stablehlo.tanh: has 1 result, got 2");
}

/* Checks: both operands of one type; *_const's value matches the operand;
 * expect_close's ULP range is ordered. */
static void test_checks(void **state)
{
    (void)state;
    plumb_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = PLUMB_F32;
    v.rank = 1;
    v.dims[0] = 2;
    tb b = tb_new();
    ir_value *x = arg(&b, ty(F32, 1, 2));
    emitn(&b, PLUMB_OP_EXPECT_EQ, VALS(x, x), 2, NULL, 0);
    ir_op *c = emitn(&b, PLUMB_OP_EXPECT_CLOSE_CONST, VALS(x), 1, NULL, 0);
    c->a.value = &v;
    ret(&b, VALS(x), 1);
    expect_ok(&b);

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    ir_value *y = arg(&b, ty(F32, 1, 3));
    emitn(&b, PLUMB_OP_EXPECT_EQ, VALS(x, y), 2, NULL, 0);
    ret(&b, VALS(x), 1);
    expect_err(&b, "check.expect_eq: operand 1: shape of tensor<3xf32> does not match operand 0's tensor<2xf32>");

    b = tb_new();
    x = arg(&b, ty(F16, 1, 2));
    c = emitn(&b, PLUMB_OP_EXPECT_EQ_CONST, VALS(x), 1, NULL, 0);
    c->a.value = &v;
    ret(&b, VALS(x), 1);
    expect_err(&b, "check.expect_eq_const: expected value of type tensor<2xf32> does not match operand 0's type tensor<2xf16>");

    b = tb_new();
    x = arg(&b, ty(F32, 1, 2));
    c = emitn(&b, PLUMB_OP_EXPECT_CLOSE, VALS(x, x), 2, NULL, 0);
    c->a.min_ulp = 4;
    c->a.max_ulp = 3;
    ret(&b, VALS(x), 1);
    expect_err(&b, "check.expect_close: needs 0 <= min_ulp_difference (4) <= max_ulp_difference (3)");
}

/* ---- text programs ------------------------------------------------------------ */

/* Lists the .mlir files of dir, sorted; fails the test when the folder is
 * missing or holds none (never a silent pass). */
static char **list_mlir(const char *dir, size_t *n)
{
    DIR *dp = opendir(dir);
    if (!dp)
        fail_msg("cannot open folder %s", dir);
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".mlir") != 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        size_t plen = strlen(dir) + 1 + len + 1;
        names[*n] = malloc(plen);
        assert_non_null(names[*n]);
        snprintf(names[*n], plen, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(dp);
    if (*n == 0)
        fail_msg("no .mlir files in %s", dir);
    for (size_t i = 1; i < *n; i++)   /* insertion sort: small lists */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    return names;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Parses a file; NULL (with d set) when it cannot be read or parsed. */
static ir_module *parse_file(const char *path, plumb_diag *d, char **text, size_t *len)
{
    *text = plumb_read_file(path, 0, len, d);
    if (!*text)
        return NULL;
    return ir_parse(*text, *len, path, NULL, d);
}

/* Every StableHLO sample program parses and verifies. */
static void test_stablehlo_testdata(void **state)
{
    (void)state;
    char dir[4096];
    if (!testdata_dir(dir, sizeof dir)) {
        print_message("%s\n", TESTDATA_SKIP_HINT);
        skip();
    }
    size_t n;
    char **files = list_mlir(dir, &n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        char *text;
        size_t len = 0;
        ir_module *m = parse_file(files[i], &d, &text, &len);
        if (!m || !ir_verify(m, NULL, &d)) {
            print_message("%s:%u:%u: %s\n", files[i], d.loc.line, d.loc.col, d.msg);
            bad++;
        }
        ir_module_free(m);
        if (text)
            plumb_free(text, len + 1);
    }
    free_list(files, n);
    if (bad)
        fail_msg("%zu of %zu sample programs did not parse and verify", bad, n);
}

/* Each tests/ir/badverify program parses, then fails verification at the
 * line and column its first line names, with a message containing the
 * expected text: "// expect-error: LINE:COL: substring". */
static void test_badverify_corpus(void **state)
{
    (void)state;
    size_t n;
    char **files = list_mlir("tests/ir/badverify", &n);
    assert_true(n >= 40);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        char *text;
        size_t len = 0;
        ir_module *m = parse_file(files[i], &d, &text, &len);
        unsigned line = 0, col = 0;
        char want[1024];
        if (!text || sscanf(text, "// expect-error: %u:%u: %1023[^\n]", &line, &col, want) != 3) {
            print_message("%s: missing '// expect-error: LINE:COL: text' header\n", files[i]);
            bad++;
        } else if (!m) {
            print_message("%s: does not parse: %u:%u: %s\n", files[i], d.loc.line, d.loc.col, d.msg);
            bad++;
        } else if (ir_verify(m, NULL, &d)) {
            print_message("%s: verified, expected: %s\n", files[i], want);
            bad++;
        } else if (d.loc.line != line || d.loc.col != col || !strstr(d.msg, want) ||
                   !d.file || strcmp(d.file, files[i]) != 0) {
            print_message("%s: expected %u:%u: %s\n  got %u:%u: %s\n", files[i], line, col, want,
                          d.loc.line, d.loc.col, d.msg);
            bad++;
        }
        ir_module_free(m);
        if (text)
            plumb_free(text, len + 1);
    }
    free_list(files, n);
    if (bad)
        fail_msg("%zu of %zu badverify programs did not fail as expected", bad, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elementwise_binary),
        cmocka_unit_test(test_element_types_from_table),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_select_clamp),
        cmocka_unit_test(test_bitcast_convert),
        cmocka_unit_test(test_reduce_precision),
        cmocka_unit_test(test_constant_iota),
        cmocka_unit_test(test_broadcast_in_dim),
        cmocka_unit_test(test_reshape_transpose),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_dynamic_slices),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_reverse),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_dot_general),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_top_k),
        cmocka_unit_test(test_rng_bit_generator),
        cmocka_unit_test(test_call),
        cmocka_unit_test(test_function_structure),
        cmocka_unit_test(test_use_before_def),
        cmocka_unit_test(test_error_location),
        cmocka_unit_test(test_type_form),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_max_bytes),
        cmocka_unit_test(test_arity),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_stablehlo_testdata),
        cmocka_unit_test(test_badverify_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
