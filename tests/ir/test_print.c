/* Tests of the canonical printer: the exact canonical text of hand-written
 * programs, fmt(fmt(x)) == fmt(x) and parse(print(m)) == m (structurally)
 * over every file of $SHARED/stablehlo-testdata. */
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

static ir_module *parse_ok(const char *s, size_t len, const char *name)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(s, len, name, NULL, &d);
    if (!m)
        fail_msg("%s:%u:%u: %s", name, d.loc.line, d.loc.col, d.msg);
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
    ir_module *m = parse_ok(in, strlen(in), "in");
    char *got = fmt(m);
    if (strcmp(got, want) != 0)
        fail_msg("canonical form differs:\n--- got\n%s--- want\n%s", got, want);
    free(got);
    ir_module_free(m);
}

/* Values are renumbered, spacing normalized, `stablehlo.`-less and
 * `func.`-prefixed spellings canonicalized, public left implicit. */
static void test_canonical_text(void **state)
{
    (void)state;
    expect_fmt("module @m attributes {x = 1 : i32} {\n"
               "func.func public @main(%x: tensor<2xf32> {a = \"b\"}, %y: tensor<2xf32>) -> (tensor<2xf32> {r}) {\n"
               "  %sum = add %x, %y : tensor<2xf32>\n"
               "  %c = stablehlo.compare  LT, %sum, %y,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
               "  %r:2 = func.call @pair(%sum) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
               "  %s = stablehlo.select %c, %r#1, %y : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
               "  func.return %s : tensor<2xf32>\n"
               "}\n"
               "func.func private @pair(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
               "  return %a, %a : tensor<2xf32>, tensor<2xf32>\n"
               "}\n"
               "}\n",
               "module @m attributes {x = 1 : i32} {\n"
               "  func.func @main(%arg0: tensor<2xf32> {a = \"b\"}, %arg1: tensor<2xf32>) -> (tensor<2xf32> {r}) {\n"
               "    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n"
               "    %1 = stablehlo.compare LT, %0, %arg1, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
               "    %2:2 = call @pair(%0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
               "    %3 = stablehlo.select %1, %2#1, %arg1 : tensor<2xi1>, tensor<2xf32>\n"
               "    return %3 : tensor<2xf32>\n"
               "  }\n"
               "  func.func private @pair(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
               "    return %arg0, %arg0 : tensor<2xf32>, tensor<2xf32>\n"
               "  }\n"
               "}\n");
}

/* Region printing: the `applies` shorthand for a plain reduce (taking no
 * names), the reducer form pairing arguments (i, n+i), generic regions
 * numbered on from the function's arguments; unknown attributes kept. */
static void test_canonical_regions(void **state)
{
    (void)state;
    expect_fmt("func.func @f(%x: tensor<3xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {\n"
               "  %c = stablehlo.constant dense<0.0> : tensor<f32>\n"
               "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
               "  %0 = \"stablehlo.reduce\"(%x, %c) ({\n"
               "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
               "    %m = stablehlo.maximum %p, %q : tensor<f32>\n"
               "    stablehlo.return %m : tensor<f32>\n"
               "  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n"
               "  %1:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [0] : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
               "   reducer(%a: tensor<f32>, %b: tensor<f32>) (%e: tensor<i32>, %g: tensor<i32>) {\n"
               "    stablehlo.return %b, %e : tensor<f32>, tensor<i32>\n"
               "  }\n"
               "  %2 = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
               "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
               "    %t = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
               "    stablehlo.return %t : tensor<i1>\n"
               "  }) {my.note = [1, 2]} : (tensor<3xf32>) -> tensor<3xf32>\n"
               "  return %2 : tensor<3xf32>\n"
               "}\n",
               "func.func @f(%arg0: tensor<3xf32>, %arg1: tensor<3xi32>) -> tensor<3xf32> {\n"
               "  %0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
               "  %1 = stablehlo.constant dense<0> : tensor<i32>\n"
               "  %2 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n"
               "  %3:2 = stablehlo.reduce(%arg0 init: %0), (%arg1 init: %1) across dimensions = [0] : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
               "    reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>) {\n"
               "      stablehlo.return %arg4, %arg3 : tensor<f32>, tensor<i32>\n"
               "    }\n"
               "  %4 = \"stablehlo.sort\"(%arg0) <{dimension = 0 : i64}> ({\n"
               "  ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):\n"
               "    %5 = stablehlo.compare GT, %arg6, %arg7 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
               "    stablehlo.return %5 : tensor<i1>\n"
               "  }) {my.note = [1, 2]} : (tensor<3xf32>) -> tensor<3xf32>\n"
               "  return %4 : tensor<3xf32>\n"
               "}\n");
}

/* Checks print as custom_calls with their bounds spelled out; generic
 * attribute spellings print in the pretty forms. */
static void test_canonical_checks_and_attrs(void **state)
{
    (void)state;
    expect_fmt("func.func @f(%a: tensor<2x3xf32>) {\n"
               "  %0 = \"stablehlo.transpose\"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
               "  %1 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
               "  check.expect_close %a, %a, max_ulp_difference = 2 : tensor<2x3xf32>, tensor<2x3xf32>\n"
               "  check.expect_almost_eq %a, %a : tensor<2x3xf32>, tensor<2x3xf32>\n"
               "  return\n"
               "}\n",
               "func.func @f(%arg0: tensor<2x3xf32>) {\n"
               "  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
               "  %1 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
               "  stablehlo.custom_call @check.expect_close(%arg0, %arg0) {has_side_effect = true, max_ulp_difference = 2, min_ulp_difference = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()\n"
               "  stablehlo.custom_call @check.expect_almost_eq(%arg0, %arg0) {has_side_effect = true, tolerance = 0.0001} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()\n"
               "  return\n"
               "}\n");
}

/* ir_print_op numbers values as ir_print does, also inside a region. */
static void test_print_op(void **state)
{
    (void)state;
    const char *src = "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
                      "  %s = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
                      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                      "    %t = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                      "    stablehlo.return %t : tensor<i1>\n"
                      "  }) : (tensor<3xf32>) -> tensor<3xf32>\n"
                      "  return %s : tensor<3xf32>\n"
                      "}\n";
    ir_module *m = parse_ok(src, strlen(src), "in");
    ir_op *cmp = m->funcs[0]->body.first->regions[0].first;
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print_op(&b, cmp, 4);
    assert_string_equal(b.data, "    %1 = stablehlo.compare GT, %arg1, %arg2 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n");
    plumb_buf_free(&b);
    ir_module_free(m);
}

static void compare_block(const ir_block *a, const ir_block *b);

/* Structural equality of two ops: opcode, value types, attributes
 * (literals bitwise), regions; operands by position of their definition. */
static void compare_op(const ir_op *x, const ir_op *y)
{
    assert_int_equal(x->code, y->code);
    assert_int_equal(x->n_operands, y->n_operands);
    assert_int_equal(x->n_results, y->n_results);
    assert_int_equal(x->n_regions, y->n_regions);
    for (uint32_t i = 0; i < x->n_operands; i++) {
        assert_true(ir_type_equal(&x->operands[i]->type, &y->operands[i]->type));
        assert_int_equal(x->operands[i]->index, y->operands[i]->index);
        assert_int_equal(x->operands[i]->def == NULL, y->operands[i]->def == NULL);
    }
    for (uint32_t i = 0; i < x->n_results; i++)
        assert_true(ir_type_equal(&x->results[i]->type, &y->results[i]->type));
    const ir_attrs *a = &x->a, *b = &y->a;
    const ir_ints *la[] = {&a->dims, &a->start, &a->limit, &a->strides, &a->sizes, &a->low, &a->high, &a->interior,
                           &a->lhs_batch, &a->rhs_batch, &a->lhs_contract, &a->rhs_contract, &a->offset_dims,
                           &a->collapsed_slice_dims, &a->operand_batching_dims, &a->start_indices_batching_dims,
                           &a->start_index_map, &a->update_window_dims, &a->inserted_window_dims,
                           &a->input_batching_dims, &a->scatter_indices_batching_dims, &a->scatter_dims_to_operand_dims};
    const ir_ints *lb[] = {&b->dims, &b->start, &b->limit, &b->strides, &b->sizes, &b->low, &b->high, &b->interior,
                           &b->lhs_batch, &b->rhs_batch, &b->lhs_contract, &b->rhs_contract, &b->offset_dims,
                           &b->collapsed_slice_dims, &b->operand_batching_dims, &b->start_indices_batching_dims,
                           &b->start_index_map, &b->update_window_dims, &b->inserted_window_dims,
                           &b->input_batching_dims, &b->scatter_indices_batching_dims, &b->scatter_dims_to_operand_dims};
    for (size_t i = 0; i < sizeof la / sizeof *la; i++) {
        assert_int_equal(la[i]->n, lb[i]->n);
        for (uint32_t j = 0; j < la[i]->n; j++)
            assert_int_equal(la[i]->v[j], lb[i]->v[j]);
    }
    assert_int_equal(a->dimension, b->dimension);
    assert_int_equal(a->cmp_dir, b->cmp_dir);
    assert_int_equal(a->cmp_type, b->cmp_type);
    assert_int_equal(a->has_precision, b->has_precision);
    assert_memory_equal(a->precision, b->precision, sizeof a->precision);
    assert_int_equal(a->index_vector_dim, b->index_vector_dim);
    assert_int_equal(a->indices_are_sorted, b->indices_are_sorted);
    assert_int_equal(a->unique_indices, b->unique_indices);
    assert_int_equal(a->is_stable, b->is_stable);
    assert_int_equal(a->rng_alg, b->rng_alg);
    assert_int_equal(a->exponent_bits, b->exponent_bits);
    assert_int_equal(a->mantissa_bits, b->mantissa_bits);
    assert_int_equal(a->k, b->k);
    assert_int_equal(a->min_ulp, b->min_ulp);
    assert_int_equal(a->max_ulp, b->max_ulp);
    assert_true(a->tolerance == b->tolerance);
    assert_int_equal(a->callee == NULL, b->callee == NULL);
    if (a->callee)
        assert_string_equal(a->callee, b->callee);
    assert_int_equal(a->value == NULL, b->value == NULL);
    if (a->value)
        assert_true(plumb_tensor_equal(a->value, b->value));
    assert_int_equal(a->n_extra, b->n_extra);
    for (uint32_t i = 0; i < a->n_extra; i++) {
        assert_string_equal(a->extra[i].name, b->extra[i].name);
        assert_string_equal(a->extra[i].text, b->extra[i].text);
    }
    for (uint32_t r = 0; r < x->n_regions; r++)
        compare_block(&x->regions[r], &y->regions[r]);
}

static void compare_block(const ir_block *a, const ir_block *b)
{
    assert_int_equal(a->n_args, b->n_args);
    assert_int_equal(a->n_ops, b->n_ops);
    for (uint32_t i = 0; i < a->n_args; i++)
        assert_true(ir_type_equal(&a->args[i]->type, &b->args[i]->type));
    for (const ir_op *x = a->first, *y = b->first; x && y; x = x->next, y = y->next)
        compare_op(x, y);
}

static void compare_module(const ir_module *a, const ir_module *b)
{
    assert_int_equal(a->name == NULL, b->name == NULL);
    if (a->name)
        assert_string_equal(a->name, b->name);
    assert_int_equal(a->attrs == NULL, b->attrs == NULL);
    if (a->attrs)
        assert_string_equal(a->attrs, b->attrs);
    assert_int_equal(a->n_funcs, b->n_funcs);
    for (uint32_t i = 0; i < a->n_funcs; i++) {
        const ir_func *f = a->funcs[i], *g = b->funcs[i];
        assert_string_equal(f->name, g->name);
        assert_int_equal(f->is_public, g->is_public);
        assert_int_equal(f->n_results, g->n_results);
        for (uint32_t j = 0; j < f->n_results; j++) {
            assert_true(ir_type_equal(&f->result_types[j], &g->result_types[j]));
            assert_int_equal(f->result_attrs[j] == NULL, g->result_attrs[j] == NULL);
            if (f->result_attrs[j])
                assert_string_equal(f->result_attrs[j], g->result_attrs[j]);
        }
        for (uint32_t j = 0; j < f->body.n_args; j++) {
            const char *x = f->arg_attrs ? f->arg_attrs[j] : NULL, *y = g->arg_attrs ? g->arg_attrs[j] : NULL;
            assert_int_equal(x == NULL, y == NULL);
            if (x)
                assert_string_equal(x, y);
        }
        compare_block(&f->body, &g->body);
    }
}

/* Every file of the shared StableHLO sample parses; its canonical form
 * reparses to the same module and is a fixed point of fmt. */
static void test_testdata_round_trip(void **state)
{
    (void)state;
    char dir[4096];
    if (!testdata_dir(dir, sizeof dir)) {
        print_message("%s\n", TESTDATA_SKIP_HINT);
        skip();
    }
    DIR *dd = opendir(dir);
    if (!dd)
        fail_msg("%s is missing (set STABLEHLO_TESTDATA to the folder of StableHLO's test files)", dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        size_t nl = strlen(e->d_name);
        if (nl < 6 || strcmp(e->d_name + nl - 5, ".mlir") != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        plumb_diag d;
        memset(&d, 0, sizeof d);
        size_t len;
        char *text = plumb_read_file(path, 0, &len, &d);
        assert_non_null(text);
        ir_module *m1 = parse_ok(text, len, e->d_name);
        char *p1 = fmt(m1);
        ir_module *m2 = parse_ok(p1, strlen(p1), "printed");
        char *p2 = fmt(m2);
        if (strcmp(p1, p2) != 0)
            fail_msg("%s: fmt(fmt(x)) != fmt(x)", e->d_name);
        compare_module(m1, m2);
        free(p1);
        free(p2);
        ir_module_free(m1);
        ir_module_free(m2);
        plumb_free(text, len + 1);
        files++;
    }
    closedir(dd);
    if (files == 0)
        fail_msg("no .mlir files in %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_text),
        cmocka_unit_test(test_canonical_regions),
        cmocka_unit_test(test_canonical_checks_and_attrs),
        cmocka_unit_test(test_print_op),
        cmocka_unit_test(test_testdata_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
