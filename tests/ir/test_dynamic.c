/* Tests of the shape polymorphism ops in the IR (ir/parse.c, ir/print.c,
 * ir/verify.c): get_dimension_size, dynamic_broadcast_in_dim,
 * dynamic_reshape, dynamic_iota, real_dynamic_slice, dynamic_pad,
 * dynamic_gather and custom_call @shape_assertion. Each op has a valid case
 * in StableHLO's pretty and generic spellings, the attributes the parser
 * must have read, and the printer's round trip. Each constraint's failure
 * is a program of tests/ir/badverify/dyn_*.mlir (run by test_verify) and
 * each syntax error one of tests/ir/bad/dyn_*.mlir (run by test_parse).
 * Expected values are written by hand from the programs' text. */
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

static ir_module *parse_ok(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t.mlir", NULL, &d);
    if (!m)
        fail_msg("parse: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    if (!ir_verify(m, NULL, &d)) {
        ir_module_free(m);
        fail_msg("verify: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    }
    return m;
}

/* The verifier's message for src, which must parse but not verify. */
static void verify_fails(const char *src, unsigned line, const char *want)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t.mlir", NULL, &d);
    if (!m)
        fail_msg("parse: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    bool ok = ir_verify(m, NULL, &d);
    ir_module_free(m);
    if (ok)
        fail_msg("verified, expected: %s", want);
    if (d.loc.line != line || !strstr(d.msg, want))
        fail_msg("expected line %u: %s\n  got %u:%u: %s", line, want, d.loc.line, d.loc.col, d.msg);
}

static char *print_module(const ir_module *m)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_false(b.failed);
    char *s = strdup(b.data);   /* the caller frees it with free() */
    plumb_buf_free(&b);
    assert_non_null(s);
    return s;
}

/* The first op of @main. */
static const ir_op *first_op(const ir_module *m)
{
    const ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_non_null(f->body.first);
    return f->body.first;
}

/* print(parse(print(m))) == print(m), and the reparsed module verifies. */
static void assert_round_trip(const ir_module *m)
{
    char *p1 = print_module(m);
    ir_module *m2 = parse_ok(p1);
    char *p2 = print_module(m2);
    assert_string_equal(p1, p2);
    free(p1);
    free(p2);
    ir_module_free(m2);
}

/* The pretty and the generic form of an op read to the same IR: their
 * canonical printings are equal. */
static void assert_same_program(const char *a, const char *b)
{
    ir_module *ma = parse_ok(a), *mb = parse_ok(b);
    char *pa = print_module(ma), *pb = print_module(mb);
    assert_string_equal(pa, pb);
    free(pa);
    free(pb);
    ir_module_free(ma);
    ir_module_free(mb);
}

/* get_dimension_size reads `dim = N` (pretty) and `dimension` (generic) and
 * returns tensor<i32>. */
static void test_get_dimension_size(void **state)
{
    (void)state;
    const char *pretty =
        "func.func @main(%a: tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32> {\n"
        "  %0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>\n"
        "  return %0 : tensor<i32>\n"
        "}\n";
    const char *generic =
        "func.func @main(%a: tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32> {\n"
        "  %0 = \"stablehlo.get_dimension_size\"(%a) <{dimension = 1 : i64}> : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>\n"
        "  return %0 : tensor<i32>\n"
        "}\n";
    ir_module *m = parse_ok(pretty);
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_GET_DIMENSION_SIZE);
    assert_int_equal(op->a.dimension, 1);
    char *p = print_module(m);
    assert_non_null(strstr(p, "stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>"));
    free(p);
    assert_round_trip(m);
    ir_module_free(m);
    assert_same_program(pretty, generic);
}

/* dynamic_broadcast_in_dim: dims, both hint lists, the functional
 * signature; a static result dim where the operand is '?' is allowed (it
 * is checked at run time). */
static void test_dynamic_broadcast(void **state)
{
    (void)state;
    const char *pretty =
        "func.func @main(%a: tensor<?x1xf32>, %s: tensor<3xi64>) -> tensor<4x?x5xf32> {\n"
        "  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0, 2] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?x1xf32>, tensor<3xi64>) -> tensor<4x?x5xf32>\n"
        "  return %0 : tensor<4x?x5xf32>\n"
        "}\n";
    const char *generic =
        "func.func @main(%a: tensor<?x1xf32>, %s: tensor<3xi64>) -> tensor<4x?x5xf32> {\n"
        "  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) <{broadcast_dimensions = array<i64: 0, 2>, known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>}> : (tensor<?x1xf32>, tensor<3xi64>) -> tensor<4x?x5xf32>\n"
        "  return %0 : tensor<4x?x5xf32>\n"
        "}\n";
    ir_module *m = parse_ok(pretty);
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM);
    assert_int_equal(op->a.dims.n, 2);
    assert_int_equal(op->a.dims.v[0], 0);
    assert_int_equal(op->a.dims.v[1], 2);
    assert_int_equal(op->a.known_expanding.n, 1);
    assert_int_equal(op->a.known_expanding.v[0], 1);
    assert_int_equal(op->a.known_nonexpanding.n, 1);
    assert_int_equal(op->a.known_nonexpanding.v[0], 0);
    assert_int_equal(op->a.n_extra, 0);   /* both hints were read, not kept verbatim */
    assert_round_trip(m);
    ir_module_free(m);
    assert_same_program(pretty, generic);
}

/* dynamic_reshape, real_dynamic_slice and dynamic_pad: operands and the
 * functional signature only. */
static void test_reshape_slice_pad(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %l: tensor<2xi32>, %t: tensor<2xi32>, %p: tensor<f32>, %i: tensor<2xi64>) -> tensor<?x?xf32> {\n"
        "  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x2xf32>\n"
        "  %1 = stablehlo.real_dynamic_slice %0, %s, %l, %t : (tensor<?x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
        "  %2 = stablehlo.dynamic_pad %1, %p, %i, %i, %i : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>\n"
        "  return %2 : tensor<?x?xf32>\n"
        "}\n";
    const char *generic =
        "func.func @main(%a: tensor<?x4xf32>, %s: tensor<2xi32>, %l: tensor<2xi32>, %t: tensor<2xi32>, %p: tensor<f32>, %i: tensor<2xi64>) -> tensor<?x?xf32> {\n"
        "  %0 = \"stablehlo.dynamic_reshape\"(%a, %s) : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x2xf32>\n"
        "  %1 = \"stablehlo.real_dynamic_slice\"(%0, %s, %l, %t) : (tensor<?x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
        "  %2 = \"stablehlo.dynamic_pad\"(%1, %p, %i, %i, %i) : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>\n"
        "  return %2 : tensor<?x?xf32>\n"
        "}\n";
    ir_module *m = parse_ok(src);
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_DYNAMIC_RESHAPE);
    assert_int_equal(op->next->code, PLUMB_OP_REAL_DYNAMIC_SLICE);
    assert_int_equal(op->next->n_operands, 4);
    assert_int_equal(op->next->next->code, PLUMB_OP_DYNAMIC_PAD);
    assert_int_equal(op->next->next->n_operands, 5);
    char *p = print_module(m);
    assert_non_null(strstr(p, "%2 = stablehlo.dynamic_pad %1, %arg4, %arg5, %arg5, %arg5 : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>"));
    free(p);
    assert_round_trip(m);
    ir_module_free(m);
    assert_same_program(src, generic);
}

/* Constant shape operands that agree with the declared result verify: the
 * shapes below are worked out by hand (slice [0:1:1, 0:6:2] of 2x6 is 1x3;
 * padding 1x3 by low [1, 0], high [0, 2], interior [0, 1] gives
 * (1 + 1 + 0) x (0 + 3 + 2 + 2) = 2x7; 2x6 reshaped to [3, 4]). */
static void test_constant_shapes_agree(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%a: tensor<2x6xf32>, %p: tensor<f32>) -> tensor<2x7xf32> {\n"
        "  %z = stablehlo.constant dense<0> : tensor<2xi64>\n"
        "  %l = stablehlo.constant dense<[1, 6]> : tensor<2xi64>\n"
        "  %t = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
        "  %0 = stablehlo.real_dynamic_slice %a, %z, %l, %t : (tensor<2x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3xf32>\n"
        "  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>\n"
        "  %hi = stablehlo.constant dense<[0, 2]> : tensor<2xi64>\n"
        "  %in = stablehlo.constant dense<[0, 1]> : tensor<2xi64>\n"
        "  %1 = stablehlo.dynamic_pad %0, %p, %lo, %hi, %in : (tensor<1x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x7xf32>\n"
        "  %s = stablehlo.constant dense<[3, 4]> : tensor<2xui32>\n"
        "  %2 = stablehlo.dynamic_reshape %a, %s : (tensor<2x6xf32>, tensor<2xui32>) -> tensor<3x?xf32, #stablehlo.bounds<?, 4>>\n"
        "  %3 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xui32>) -> tensor<3x4xi32>\n"
        "  return %1 : tensor<2x7xf32>\n"
        "}\n");
    assert_round_trip(m);
    ir_module_free(m);
}

/* dynamic_iota: `dim = N` is iota_dimension; the element type rule applies
 * to the result (operand 0 is the shape). */
static void test_dynamic_iota(void **state)
{
    (void)state;
    const char *pretty =
        "func.func @main(%s: tensor<2xi32>) -> tensor<?x3xf32> {\n"
        "  %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi32>) -> tensor<?x3xf32>\n"
        "  return %0 : tensor<?x3xf32>\n"
        "}\n";
    const char *generic =
        "func.func @main(%s: tensor<2xi32>) -> tensor<?x3xf32> {\n"
        "  %0 = \"stablehlo.dynamic_iota\"(%s) {iota_dimension = 1 : i64} : (tensor<2xi32>) -> tensor<?x3xf32>\n"
        "  return %0 : tensor<?x3xf32>\n"
        "}\n";
    ir_module *m = parse_ok(pretty);
    assert_int_equal(first_op(m)->code, PLUMB_OP_DYNAMIC_IOTA);
    assert_int_equal(first_op(m)->a.dimension, 1);
    assert_round_trip(m);
    ir_module_free(m);
    assert_same_program(pretty, generic);
}

/* dynamic_gather prints in the generic form with its dimension numbers and
 * no slice_sizes attribute (they are operand 2); with a constant
 * slice_sizes the offset dimensions are inferred from it (3, 1 of
 * [3, 1, 1, 3] after collapsing dimension 1), with a parameter they are '?'
 * and any declared size is accepted. */
static void test_dynamic_gather(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%a: tensor<3x?x?x3xf32>, %i: tensor<?x1xi64>, %s: tensor<4xi32>) -> tensor<3x?x?x3xf32> {\n"
        "  %0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 2, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true} : (tensor<3x?x?x3xf32>, tensor<?x1xi64>, tensor<4xi32>) -> tensor<3x?x?x3xf32>\n"
        "  %c = stablehlo.constant dense<[3, 1, 1, 3]> : tensor<4xi32>\n"
        "  %1 = \"stablehlo.dynamic_gather\"(%a, %i, %c) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>}> : (tensor<3x?x?x3xf32>, tensor<?x1xi64>, tensor<4xi32>) -> tensor<3x?x1x3xf32>\n"
        "  return %0 : tensor<3x?x?x3xf32>\n"
        "}\n");
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_DYNAMIC_GATHER);
    assert_int_equal(op->a.offset_dims.n, 3);
    assert_int_equal(op->a.collapsed_slice_dims.v[0], 1);
    assert_int_equal(op->a.index_vector_dim, 1);
    assert_true(op->a.indices_are_sorted);
    assert_int_equal(op->a.sizes.n, 0);
    char *p = print_module(m);
    assert_non_null(strstr(p, "\"stablehlo.dynamic_gather\"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true}>"));
    assert_null(strstr(p, "slice_sizes"));
    free(p);
    assert_round_trip(m);
    ir_module_free(m);
    /* the constant's offset sizes are checked against the declared result */
    verify_fails(
        "func.func @main(%a: tensor<3x?x?x3xf32>, %i: tensor<?x1xi64>) -> tensor<3x?x2x3xf32> {\n"
        "  %c = stablehlo.constant dense<[3, 1, 1, 3]> : tensor<4xi32>\n"
        "  %1 = \"stablehlo.dynamic_gather\"(%a, %i, %c) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>}> : (tensor<3x?x?x3xf32>, tensor<?x1xi64>, tensor<4xi32>) -> tensor<3x?x2x3xf32>\n"
        "  return %1 : tensor<3x?x2x3xf32>\n"
        "}\n",
        3, "result 0 (%1): type tensor<3x?x2x3xf32> does not match the inferred type tensor<3x?x1x3xf32> (StableHLO C22, C23)");
}

/* shape_assertion: the message is unescaped into a.message exactly, extra
 * attributes (api_version) are kept, and the printer escapes it back so
 * the text round-trips byte for byte, including bytes outside ASCII. */
static void test_shape_assertion(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%p: tensor<i1>, %v: tensor<i64>) -> tensor<i1> {\n"
        "  stablehlo.custom_call @shape_assertion(%p, %v) {api_version = 2 : i32, error_message = \"b = {0}: \\\"x\\\"\\n\\\\ \\C3\\A9\", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()\n"
        "  return %p : tensor<i1>\n"
        "}\n");
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_SHAPE_ASSERTION);
    assert_int_equal(op->n_operands, 2);
    assert_int_equal(op->n_results, 0);
    assert_string_equal(op->a.message, "b = {0}: \"x\"\n\\ \xC3\xA9");
    assert_int_equal(op->a.n_extra, 1);
    assert_string_equal(op->a.extra[0].name, "api_version");
    char *p = print_module(m);
    assert_non_null(strstr(p, "stablehlo.custom_call @shape_assertion(%arg0, %arg1) {error_message = \"b = {0}: \\\"x\\\"\\n\\\\ \\C3\\A9\", has_side_effect = true, api_version = 2 : i32} : (tensor<i1>, tensor<i64>) -> ()"));
    free(p);
    assert_round_trip(m);
    ir_module_free(m);
    /* the message may name no value at all, and braces that are not {k}
     * are plain text */
    m = parse_ok("func.func @main(%p: tensor<i1>) -> tensor<i1> {\n"
                 "  stablehlo.custom_call @shape_assertion(%p) {error_message = \"{} {x} {0\", has_side_effect = true} : (tensor<i1>) -> ()\n"
                 "  return %p : tensor<i1>\n"
                 "}\n");
    ir_module_free(m);
    verify_fails("func.func @main(%p: tensor<i1>) -> tensor<i1> {\n"
                 "  stablehlo.custom_call @shape_assertion(%p) {error_message = \"got {0}\", has_side_effect = true} : (tensor<i1>) -> ()\n"
                 "  return %p : tensor<i1>\n"
                 "}\n",
                 2, "stablehlo.custom_call @shape_assertion: error_message refers to {0}, but the op has only 0 value operands after the predicate");
}

/* The generic spelling of a custom call, `"stablehlo.custom_call"(...)
 * {call_target_name = "..."}`, reads as the same op as the pretty one, for
 * shape assertions and the check ops alike; call_target_name is not kept
 * as an extra attribute, api_version is. */
static void test_generic_custom_call(void **state)
{
    (void)state;
    assert_same_program(
        "func.func @main(%p: tensor<i1>, %v: tensor<i64>, %x: tensor<2xf32>) -> tensor<i1> {\n"
        "  \"stablehlo.custom_call\"(%p, %v) {api_version = 2 : i32, call_target_name = \"shape_assertion\", error_message = \"got {0}\", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()\n"
        "  \"stablehlo.custom_call\"(%x) <{call_target_name = \"check.expect_almost_eq_const\"}> {has_side_effect = true, tolerance = 1.0e-3, value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xf32>) -> ()\n"
        "  return %p : tensor<i1>\n"
        "}\n",
        "func.func @main(%p: tensor<i1>, %v: tensor<i64>, %x: tensor<2xf32>) -> tensor<i1> {\n"
        "  stablehlo.custom_call @shape_assertion(%p, %v) {error_message = \"got {0}\", has_side_effect = true, api_version = 2 : i32} : (tensor<i1>, tensor<i64>) -> ()\n"
        "  stablehlo.custom_call @check.expect_almost_eq_const(%x) {has_side_effect = true, tolerance = 1.0e-3, value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xf32>) -> ()\n"
        "  return %p : tensor<i1>\n"
        "}\n");
    ir_module *m = parse_ok("func.func @main(%p: tensor<i1>) -> tensor<i1> {\n"
                            "  \"stablehlo.custom_call\"(%p) {call_target_name = \"shape_assertion\", error_message = \"x\", has_side_effect = true} : (tensor<i1>) -> ()\n"
                            "  return %p : tensor<i1>\n"
                            "}\n");
    const ir_op *op = first_op(m);
    assert_int_equal(op->code, PLUMB_OP_SHAPE_ASSERTION);
    assert_string_equal(op->a.message, "x");
    assert_int_equal(op->a.n_extra, 0);
    ir_module_free(m);
}

/* A program built with the builder API (not parsed) prints in the forms
 * the parser reads back. */
static void test_built_ops_round_trip(void **state)
{
    (void)state;
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    assert_non_null(f);
    int64_t d_in[2] = {PLUMB_DIM_DYN, 3}, d_s[1] = {2}, d_out[2] = {PLUMB_DIM_DYN, 3};
    ir_type t_in = ir_type_make(PLUMB_F32, 2, d_in), t_s = ir_type_make(PLUMB_I32, 1, d_s);
    ir_type t_out = ir_type_make(PLUMB_F32, 2, d_out), t_i32 = ir_type_scalar(PLUMB_I32), t_i1 = ir_type_scalar(PLUMB_I1);
    t_in.bounds[0] = 16;
    ir_value *a = ir_block_add_arg(m, &f->body, &t_in);
    ir_value *s = ir_block_add_arg(m, &f->body, &t_s);
    ir_value *pr = ir_block_add_arg(m, &f->body, &t_i1);
    ir_op *g = ir_op_new(m, PLUMB_OP_GET_DIMENSION_SIZE, &a, 1, &t_i32, 1);
    g->a.dimension = 0;
    ir_block_append(&f->body, g);
    ir_value *sa_ops[2] = {pr, g->results[0]};
    ir_op *sa = ir_op_new(m, PLUMB_OP_SHAPE_ASSERTION, sa_ops, 2, NULL, 0);
    sa->a.message = "dimension 0 is {0}";
    ir_block_append(&f->body, sa);
    ir_value *b_ops[2] = {a, s};
    ir_op *b = ir_op_new(m, PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM, b_ops, 2, &t_out, 1);
    b->a.dims = ir_ints_make(m, (int64_t[]){0, 1}, 2);
    b->a.known_nonexpanding = ir_ints_make(m, (int64_t[]){1}, 1);
    ir_block_append(&f->body, b);
    ir_op *r = ir_op_new(m, PLUMB_OP_FUNC_RETURN, b->results, 1, NULL, 0);
    ir_block_append(&f->body, r);
    assert_true(ir_func_set_results(m, f, &t_out, 1));
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!ir_verify(m, NULL, &d))
        fail_msg("%s", d.msg);
    char *p = print_module(m);
    assert_non_null(strstr(p, "stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x3xf32, #stablehlo.bounds<16, ?>>, tensor<2xi32>) -> tensor<?x3xf32>"));
    assert_non_null(strstr(p, "stablehlo.custom_call @shape_assertion(%arg2, %0) {error_message = \"dimension 0 is {0}\", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()"));
    free(p);
    assert_round_trip(m);
    ir_module_free(m);
}

/* The '?' rules of existing ops stay as the spec's compatibility: a static
 * declared dim where the inferred one is '?' verifies, a different static
 * size does not. */
static void test_static_result_of_dynamic_operand(void **state)
{
    (void)state;
    ir_module *m = parse_ok("func.func @main(%a: tensor<?x4xf32>) -> tensor<2x4xf32> {\n"
                            "  %0 = stablehlo.tanh %a : (tensor<?x4xf32>) -> tensor<2x4xf32>\n"
                            "  return %0 : tensor<2x4xf32>\n"
                            "}\n");
    ir_module_free(m);
    verify_fails("func.func @main(%a: tensor<?x4xf32>) -> tensor<?x5xf32> {\n"
                 "  %0 = stablehlo.tanh %a : (tensor<?x4xf32>) -> tensor<?x5xf32>\n"
                 "  return %0 : tensor<?x5xf32>\n"
                 "}\n",
                 2, "does not match the inferred type tensor<?x4xf32>");
}

/* Bounds propagate as the spec's inference computes them (worked by hand):
 * concatenating ? (bound 8) and 3 gives ? (bound 11), which admits a
 * declared ? (bound 11), ? (bound 20) or the static 11 (checked at run
 * time); padding ? (bound 4) by 1 + 1 with interior 1 gives ? (bound
 * 1 + 4 + 3 + 1 = 9); add of ? (bound 8) and ? (bound 5) gives ? (bound 5),
 * so a static 6 is refused and 5 accepted. */
static void test_bounds_propagate(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>, %b: tensor<3xf32>, %p: tensor<f32>, %c: tensor<?xf32, #stablehlo.bounds<4>>, %d: tensor<?xf32, #stablehlo.bounds<5>>) -> tensor<11xf32> {\n"
        "  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<3xf32>) -> tensor<?xf32, #stablehlo.bounds<11>>\n"
        "  %1 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<3xf32>) -> tensor<?xf32, #stablehlo.bounds<20>>\n"
        "  %2 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<3xf32>) -> tensor<11xf32>\n"
        "  %3 = stablehlo.pad %c, %p, low = [1], high = [1], interior = [1] : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<f32>) -> tensor<9xf32>\n"
        "  %4 = stablehlo.add %a, %d : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<?xf32, #stablehlo.bounds<5>>) -> tensor<5xf32>\n"
        "  return %2 : tensor<11xf32>\n"
        "}\n");
    assert_round_trip(m);
    ir_module_free(m);
    verify_fails("func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>, %d: tensor<?xf32, #stablehlo.bounds<5>>) -> tensor<6xf32> {\n"
                 "  %0 = stablehlo.add %a, %d : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<?xf32, #stablehlo.bounds<5>>) -> tensor<6xf32>\n"
                 "  return %0 : tensor<6xf32>\n"
                 "}\n",
                 2, "does not match the inferred type tensor<?xf32, #stablehlo.bounds<5>>");
    verify_fails("func.func @main(%a: tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> (tensor<?x5xf32, #stablehlo.bounds<4, ?>>, tensor<?x5xi32, #stablehlo.bounds<4, ?>>) {\n"
                 "  %0:2 = chlo.top_k(%a, k = 5) : tensor<?x3xf32, #stablehlo.bounds<4, ?>> -> (tensor<?x5xf32, #stablehlo.bounds<4, ?>>, tensor<?x5xi32, #stablehlo.bounds<4, ?>>)\n"
                 "  return %0#0, %0#1 : tensor<?x5xf32, #stablehlo.bounds<4, ?>>, tensor<?x5xi32, #stablehlo.bounds<4, ?>>\n"
                 "}\n",
                 2, "k = 5 is outside [0, 3]");
    verify_fails("func.func @main(%a: tensor<?xf32, #stablehlo.bounds<4>>) -> (tensor<5xf32>, tensor<5xi32>) {\n"
                 "  %0:2 = chlo.top_k(%a, k = 5) : tensor<?xf32, #stablehlo.bounds<4>> -> (tensor<5xf32>, tensor<5xi32>)\n"
                 "  return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>\n"
                 "}\n",
                 2, "k = 5 is above the bound 4 of the operand's last dimension");
    verify_fails("func.func @main(%a: tensor<?xf32, #stablehlo.bounds<4>>, %u: tensor<5xf32>, %i: tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>> {\n"
                 "  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<5xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>\n"
                 "  return %0 : tensor<?xf32, #stablehlo.bounds<4>>\n"
                 "}\n",
                 2, "update dimension 0 has size 5, larger than the operand's ? (bound 4) (StableHLO C6)");
}

/* reshape between a static count and '?' dimensions verifies when some size
 * of the '?'s gives the count: 6 = 2 x 3, 12 = 3 x 4 with the bound 3, and
 * both sides '?' (left to run time); the refusals are in badverify. */
static void test_reshape_counts_possible(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%a: tensor<6xf32>, %b: tensor<?x4xf32, #stablehlo.bounds<3, ?>>, %c: tensor<?x3xf32>) -> tensor<?x3xf32> {\n"
        "  %0 = stablehlo.reshape %a : (tensor<6xf32>) -> tensor<?x3xf32>\n"
        "  %1 = stablehlo.reshape %b : (tensor<?x4xf32, #stablehlo.bounds<3, ?>>) -> tensor<12xf32>\n"
        "  %2 = stablehlo.reshape %c : (tensor<?x3xf32>) -> tensor<?x2xf32>\n"
        "  return %0 : tensor<?x3xf32>\n"
        "}\n");
    ir_module_free(m);
    verify_fails("func.func @main(%a: tensor<6xf32>) -> tensor<?x0xf32> {\n"
                 "  %0 = stablehlo.reshape %a : (tensor<6xf32>) -> tensor<?x0xf32>\n"
                 "  return %0 : tensor<?x0xf32>\n"
                 "}\n",
                 2, "operand tensor<6xf32> has 6 elements, which no size of the '?' dimensions of result tensor<?x0xf32> gives");
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Every file of StableHLO's testdata dynamic/ verifies and round-trips
 * (complex numbers included, op set v2). */
static void test_testdata_dynamic(void **state)
{
    (void)state;
    char base[4096], dir[4200];
    if (!testdata_dir(base, sizeof base)) {
        print_message("%s\n", TESTDATA_SKIP_HINT);
        skip();
    }
    snprintf(dir, sizeof dir, "%s/dynamic", base);
    DIR *dp = opendir(dir);
    if (!dp) {
        print_message("no %s: skipped\n", dir);
        skip();
    }
    struct dirent *e;
    unsigned n = 0, bad = 0;
    while ((e = readdir(dp)) != NULL) {
        if (!has_suffix(e->d_name, ".mlir"))
            continue;
        char path[4600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "rb");
        assert_non_null(fp);
        fseek(fp, 0, SEEK_END);
        long len = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        char *text = malloc((size_t)len + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t)len, fp), (size_t)len);
        text[len] = '\0';
        fclose(fp);
        n++;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        ir_module *m = ir_parse(text, (size_t)len, path, NULL, &d);
        bool ok = m && ir_verify(m, NULL, &d);
        if (!ok) {
            print_message("%s:%u:%u: %s\n", e->d_name, d.loc.line, d.loc.col, d.msg);
            bad++;
        } else {
            char *p1 = print_module(m);
            ir_module *m2 = ir_parse(p1, strlen(p1), "p1", NULL, &d);
            char *p2 = m2 ? print_module(m2) : NULL;
            if (!p2 || strcmp(p1, p2) != 0) {
                print_message("%s: does not round-trip\n", e->d_name);
                bad++;
            }
            free(p1);
            free(p2);
            ir_module_free(m2);
        }
        ir_module_free(m);
        free(text);
    }
    closedir(dp);
    if (n == 0) {
        print_message("no .mlir files in %s: skipped\n", dir);
        skip();
    }
    if (bad)
        fail_msg("%u of %u files of dynamic/ failed", bad, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_dimension_size),
        cmocka_unit_test(test_dynamic_broadcast),
        cmocka_unit_test(test_reshape_slice_pad),
        cmocka_unit_test(test_constant_shapes_agree),
        cmocka_unit_test(test_dynamic_iota),
        cmocka_unit_test(test_dynamic_gather),
        cmocka_unit_test(test_shape_assertion),
        cmocka_unit_test(test_generic_custom_call),
        cmocka_unit_test(test_built_ops_round_trip),
        cmocka_unit_test(test_static_result_of_dynamic_operand),
        cmocka_unit_test(test_bounds_propagate),
        cmocka_unit_test(test_reshape_counts_possible),
        cmocka_unit_test(test_testdata_dynamic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
