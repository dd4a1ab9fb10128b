/* Tests of tuple types and of stablehlo.tuple / get_tuple_element in the IR
 * (ir/tuple.c, the parser, printer and verifier; docs/spec/tuple.md):
 * every form StableHLO prints parses, prints canonically and round-trips;
 * the verifier's constraints (tuple C1, get_tuple_element C1/C2) reject
 * bad programs naming op, operand and index; limits hold before anything
 * is allocated; and ir_tuple_flatten gives the leaves in the documented
 * order. Expected texts and leaf orders are written by hand from the
 * spec's definitions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"

static ir_module *parse_ok(const char *s)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(s, strlen(s), "in", NULL, &d);
    if (!m)
        fail_msg("in:%u:%u: %s", d.loc.line, d.loc.col, d.msg);
    return m;
}

/* Caller frees with free(). */
static char *fmt(const ir_module *m)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_false(b.failed);
    char *s = strdup(b.data ? b.data : "");
    plumb_buf_free(&b);
    assert_non_null(s);
    return s;
}

static void expect_fmt(const char *in, const char *want)
{
    ir_module *m = parse_ok(in);
    char *got = fmt(m);
    if (strcmp(got, want) != 0)
        fail_msg("canonical form differs:\n--- got\n%s--- want\n%s", got, want);
    /* print -> parse -> print is stable */
    ir_module *m2 = parse_ok(got);
    char *again = fmt(m2);
    assert_string_equal(again, got);
    free(again);
    ir_module_free(m2);
    free(got);
    ir_module_free(m);
}

/* The message of the first error of text (parse or verify), "" if none. */
static void expect_error(const char *in, plumb_code code, const char *want)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(in, strlen(in), "in", NULL, &d);
    if (m) {
        ir_verify_options vo = {sizeof vo, 0};
        bool ok = ir_verify(m, &vo, &d);
        ir_module_free(m);
        if (ok)
            fail_msg("accepted; want an error containing '%s'", want);
    }
    if (!strstr(d.msg, want))
        fail_msg("error '%s' does not contain '%s'", d.msg, want);
    assert_int_equal(d.code, code);
}

static void expect_valid(const char *in)
{
    ir_module *m = parse_ok(in);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_verify_options vo = {sizeof vo, 0};
    if (!ir_verify(m, &vo, &d))
        fail_msg("rejected: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    ir_module_free(m);
}

#define NESTED_T "tuple<tensor<2xf64>, tuple<tensor<i64>>>"

/* The pretty forms StableHLO prints (its interpreter test's program),
 * nesting and the empty tuple print back as written. */
static void test_pretty_forms(void **state)
{
    (void)state;
    expect_fmt("func.func @main(%a: tensor<2xf64>, %b: tensor<i64>) -> tensor<i64> {\n"
               "  %t = stablehlo.tuple %b : tuple<tensor<i64>>\n"
               "  %u = stablehlo.tuple %a, %t : " NESTED_T "\n"
               "  %e = stablehlo.tuple : tuple<>\n"
               "  %x = stablehlo.get_tuple_element %u[1] : (" NESTED_T ") -> tuple<tensor<i64>>\n"
               "  %y = stablehlo.get_tuple_element %x[0] : (tuple<tensor<i64>>) -> tensor<i64>\n"
               "  return %y : tensor<i64>\n"
               "}\n",
               "func.func @main(%arg0: tensor<2xf64>, %arg1: tensor<i64>) -> tensor<i64> {\n"
               "  %0 = stablehlo.tuple %arg1 : tuple<tensor<i64>>\n"
               "  %1 = stablehlo.tuple %arg0, %0 : " NESTED_T "\n"
               "  %2 = stablehlo.tuple : tuple<>\n"
               "  %3 = stablehlo.get_tuple_element %1[1] : (" NESTED_T ") -> tuple<tensor<i64>>\n"
               "  %4 = stablehlo.get_tuple_element %3[0] : (tuple<tensor<i64>>) -> tensor<i64>\n"
               "  return %4 : tensor<i64>\n"
               "}\n");
}

/* The generic forms (attribute dictionary and `<{...}>` properties) read
 * as the same ops; tuple-typed parameters and results, and the attribute
 * dictionary of a tuple op, are kept. */
static void test_generic_forms(void **state)
{
    (void)state;
    expect_fmt("func.func @f(%p: tuple<tensor<f32>, tensor<2xi32>>) -> (tuple<tensor<2xi32>, tensor<f32>>, tensor<f32>) {\n"
               "  %a = \"stablehlo.get_tuple_element\"(%p) {index = 0 : i32} : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<f32>\n"
               "  %b = \"stablehlo.get_tuple_element\"(%p) <{index = 1 : i32}> : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<2xi32>\n"
               "  %t = \"stablehlo.tuple\"(%b, %a) {name = \"tuple.374\"} : (tensor<2xi32>, tensor<f32>) -> tuple<tensor<2xi32>, tensor<f32>>\n"
               "  return %t, %a : tuple<tensor<2xi32>, tensor<f32>>, tensor<f32>\n"
               "}\n",
               "func.func @f(%arg0: tuple<tensor<f32>, tensor<2xi32>>) -> (tuple<tensor<2xi32>, tensor<f32>>, tensor<f32>) {\n"
               "  %0 = stablehlo.get_tuple_element %arg0[0] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<f32>\n"
               "  %1 = stablehlo.get_tuple_element %arg0[1] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<2xi32>\n"
               "  %2 = stablehlo.tuple %1, %0 {name = \"tuple.374\"} : tuple<tensor<2xi32>, tensor<f32>>\n"
               "  return %2, %0 : tuple<tensor<2xi32>, tensor<f32>>, tensor<f32>\n"
               "}\n");
}

/* Tuples carried through while, optimization_barrier and func.call verify
 * (their rules compare tuple types element by element). */
static void test_carried_through_control_flow(void **state)
{
    (void)state;
    expect_valid("func.func private @id(%t: tuple<tensor<i32>, tensor<f32>>) -> tuple<tensor<i32>, tensor<f32>> {\n"
                 "  return %t : tuple<tensor<i32>, tensor<f32>>\n"
                 "}\n"
                 "func.func @main(%i: tensor<i32>, %x: tensor<f32>) -> tuple<tensor<i32>, tensor<f32>> {\n"
                 "  %t = stablehlo.tuple %i, %x : tuple<tensor<i32>, tensor<f32>>\n"
                 "  %w = stablehlo.while(%it = %t) : tuple<tensor<i32>, tensor<f32>>\n"
                 "    cond {\n"
                 "      %k = stablehlo.get_tuple_element %it[0] : (tuple<tensor<i32>, tensor<f32>>) -> tensor<i32>\n"
                 "      %c = stablehlo.compare LT, %k, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                 "      stablehlo.return %c : tensor<i1>\n"
                 "    } do {\n"
                 "      stablehlo.return %it : tuple<tensor<i32>, tensor<f32>>\n"
                 "    }\n"
                 "  %b = stablehlo.optimization_barrier %w : tuple<tensor<i32>, tensor<f32>>\n"
                 "  %r = func.call @id(%b) : (tuple<tensor<i32>, tensor<f32>>) -> tuple<tensor<i32>, tensor<f32>>\n"
                 "  return %r : tuple<tensor<i32>, tensor<f32>>\n"
                 "}\n");
}

/* get_tuple_element C1: the index must name an element (negative, and one
 * past the end, are both out of range); the error names op, operand and index. */
static void test_verify_index(void **state)
{
    (void)state;
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
                 "  %a = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>\n"
                 "  return %a : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID,
                 "stablehlo.get_tuple_element: index 1 is out of range for operand 0 (%t) of 1 elements (StableHLO C1");
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
                 "  %a = \"stablehlo.get_tuple_element\"(%t) {index = -1 : i32} : (tuple<tensor<f32>>) -> tensor<f32>\n"
                 "  return %a : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "index -1 is out of range");
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %a = \"stablehlo.get_tuple_element\"(%x) {index = 0 : i32} : (tensor<f32>) -> tensor<f32>\n"
                 "  return %a : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "operand 0 (%x) has type tensor<f32>, not a tuple type");
}

/* get_tuple_element C2 and tuple C1: result types must be the element
 * types and the operands' types. */
static void test_verify_types(void **state)
{
    (void)state;
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
                 "  %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>>) -> tensor<i32>\n"
                 "  return %x : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "result type tensor<i32> is not element 0's type tensor<f32> (StableHLO C2)");
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = \"stablehlo.tuple\"(%x) : (tensor<f32>) -> tuple<tensor<i32>>\n"
                 "  return %x : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "operand 0 (%x) has type tensor<f32> but result element 0 has type tensor<i32> (StableHLO C1)");
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = \"stablehlo.tuple\"(%x, %x) : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>>\n"
                 "  return %x : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "result type has 1 elements but the op has 2 operands (StableHLO C1)");
    /* a tuple where an op takes tensors is refused by name */
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
                 "  %a = \"stablehlo.abs\"(%t) : (tuple<tensor<f32>>) -> tuple<tensor<f32>>\n"
                 "  return %x : tensor<f32>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "stablehlo.abs: operand 0 (%t) has a tuple type");
    /* a tuple returned where the function declares a tensor */
    expect_error("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                 "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
                 "  return %t : tuple<tensor<f32>>\n"
                 "}\n",
                 PLUMB_ERR_INVALID, "");
}

/* Malformed tuple types and the nesting limit (checked as the parser
 * descends, before the element list is allocated). */
static void test_parse_errors_and_limits(void **state)
{
    (void)state;
    expect_error("func.func @main(%a: tuple<tensor<f32>; tensor<f32>>) {\n  return\n}\n", PLUMB_ERR_PARSE,
                 "expected '>'");
    expect_error("func.func @main(%a: tuple tensor<f32>) {\n  return\n}\n", PLUMB_ERR_PARSE, "'<' after 'tuple'");
    expect_error("func.func @main(%x: tensor<f32>) {\n  %t = stablehlo.tuple %x : tensor<f32>\n  return\n}\n",
                 PLUMB_ERR_PARSE, "stablehlo.tuple's type must be a tuple type");
    char deep[1024];
    size_t n = 0;
    n += (size_t)snprintf(deep + n, sizeof deep - n, "func.func @main(%%a: ");
    for (int i = 0; i <= IR_TUPLE_MAX_DEPTH; i++)
        n += (size_t)snprintf(deep + n, sizeof deep - n, "tuple<");
    for (int i = 0; i <= IR_TUPLE_MAX_DEPTH; i++)
        n += (size_t)snprintf(deep + n, sizeof deep - n, ">");
    snprintf(deep + n, sizeof deep - n, ") {\n  return\n}\n");
    expect_error(deep, PLUMB_ERR_LIMIT, "tuple types nest deeper than 32 levels");
}

/* Leaves: depth first, left to right; the empty tuple has none. Hand
 * count for tuple<tensor<2xf64>, tuple<tensor<i64>, tuple<>>, tensor<i1>>:
 * 3 leaves, f64 then i64 then i1, depth 3. */
static void test_leaves(void **state)
{
    (void)state;
    ir_module *m = ir_module_new(NULL);
    assert_non_null(m);
    int64_t two = 2;
    ir_type empty, inner, outer;
    assert_true(ir_type_tuple_make(m, NULL, 0, &empty));
    ir_type in_el[2] = {ir_type_scalar(PLUMB_I64), empty};
    assert_true(ir_type_tuple_make(m, in_el, 2, &inner));
    ir_type out_el[3] = {ir_type_make(PLUMB_F64, 1, &two), inner, ir_type_scalar(PLUMB_I1)};
    assert_true(ir_type_tuple_make(m, out_el, 3, &outer));
    assert_int_equal(ir_type_leaf_count(&empty), 0);
    assert_int_equal(ir_type_leaf_count(&outer), 3);
    assert_int_equal(ir_type_tuple_depth(&outer), 3);
    ir_type leaves[3];
    assert_int_equal(ir_type_leaves(&outer, leaves), 3);
    assert_int_equal(leaves[0].dtype, PLUMB_F64);
    assert_int_equal(leaves[0].rank, 1);
    assert_int_equal(leaves[1].dtype, PLUMB_I64);
    assert_int_equal(leaves[2].dtype, PLUMB_I1);
    /* equality is structural: a copy of the element list is equal, a tensor is not */
    ir_type again;
    assert_true(ir_type_tuple_make(m, out_el, 3, &again));
    assert_true(ir_type_equal(&outer, &again));
    assert_false(ir_type_equal(&outer, &inner));
    assert_false(ir_type_equal(&outer, &out_el[0]));
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, &outer);
    assert_string_equal(b.data, "tuple<tensor<2xf64>, tuple<tensor<i64>, tuple<>>, tensor<i1>>");
    plumb_buf_free(&b);
    ir_module_free(m);
}

/* ir_tuple_flatten: parameters, results and values become their leaves;
 * tuple and get_tuple_element vanish; leaf names say which element. */
static void test_flatten(void **state)
{
    (void)state;
    ir_module *m = parse_ok("func.func @main(%p: tuple<tensor<f32>, tuple<tensor<2xi32>>>, %q: tensor<i8>) -> "
                            "(tuple<tensor<i8>, tensor<f32>>, tensor<2xi32>) {\n"
                            "  %a = stablehlo.get_tuple_element %p[0] : (tuple<tensor<f32>, tuple<tensor<2xi32>>>) -> tensor<f32>\n"
                            "  %i = stablehlo.get_tuple_element %p[1] : (tuple<tensor<f32>, tuple<tensor<2xi32>>>) -> tuple<tensor<2xi32>>\n"
                            "  %b = stablehlo.get_tuple_element %i[0] : (tuple<tensor<2xi32>>) -> tensor<2xi32>\n"
                            "  %c = stablehlo.add %b, %b : tensor<2xi32>\n"
                            "  %t = stablehlo.tuple %q, %a : tuple<tensor<i8>, tensor<f32>>\n"
                            "  return %t, %c : tuple<tensor<i8>, tensor<f32>>, tensor<2xi32>\n"
                            "}\n");
    assert_true(ir_module_has_tuples(m));
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *fl = ir_tuple_flatten(m, &d);
    assert_non_null(fl);
    assert_false(ir_module_has_tuples(fl));
    char *got = fmt(fl);
    assert_string_equal(got,
                        "func.func @main(%arg0: tensor<f32>, %arg1: tensor<2xi32>, %arg2: tensor<i8>) -> "
                        "(tensor<i8>, tensor<f32>, tensor<2xi32>) {\n"
                        "  %0 = stablehlo.add %arg1, %arg1 : tensor<2xi32>\n"
                        "  return %arg2, %arg0, %0 : tensor<i8>, tensor<f32>, tensor<2xi32>\n"
                        "}\n");
    free(got);
    const ir_func *f = ir_module_find_func(fl, "main");
    assert_string_equal(f->body.args[0]->name, "p.0");
    assert_string_equal(f->body.args[1]->name, "p.1.0");
    ir_verify_options vo = {sizeof vo, 0};
    assert_true(ir_verify(fl, &vo, &d));
    ir_module_free(fl);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pretty_forms),
        cmocka_unit_test(test_generic_forms),
        cmocka_unit_test(test_carried_through_control_flow),
        cmocka_unit_test(test_verify_index),
        cmocka_unit_test(test_verify_types),
        cmocka_unit_test(test_parse_errors_and_limits),
        cmocka_unit_test(test_leaves),
        cmocka_unit_test(test_flatten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
