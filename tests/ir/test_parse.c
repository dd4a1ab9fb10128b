/* Tests of the StableHLO text parser: the malformed-program corpus under
 * tests/ir/bad/, generated hostile inputs, and the IR each accepted form
 * produces (expected values read off the source text by hand). */
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

static ir_module *parse_str(const char *s, plumb_diag *d)
{
    memset(d, 0, sizeof *d);
    return ir_parse(s, strlen(s), "t.mlir", NULL, d);
}

static ir_module *parse_ok(const char *s)
{
    plumb_diag d;
    ir_module *m = parse_str(s, &d);
    if (!m)
        fail_msg("unexpected parse error %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    return m;
}

static ir_op *nth_op(ir_func *f, uint32_t n)
{
    ir_op *op = f->body.first;
    while (op && n--)
        op = op->next;
    assert_non_null(op);
    return op;
}

/* Each corpus file's first line is `// expect-error: [LINE:COL: ]TEXT`; the
 * parser must fail there with a message containing TEXT. */
static void test_bad_corpus(void **state)
{
    (void)state;
    const char *src = getenv("SRCDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/ir/bad", src ? src : ".");
    DIR *dd = opendir(dir);
    if (!dd)
        fail_msg("corpus folder %s is missing", dir);
    int files = 0, bad = 0;
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
        files++;
        const char *tag = "// expect-error: ";
        if (strncmp(text, tag, strlen(tag)) != 0) {
            print_error("%s: first line is not '// expect-error: ...'\n", e->d_name);
            bad++;
            plumb_free(text, len + 1);
            continue;
        }
        const char *spec = text + strlen(tag);
        const char *eol = strchr(spec, '\n');
        char want[512];
        snprintf(want, sizeof want, "%.*s", (int)(eol ? eol - spec : (long)strlen(spec)), spec);
        unsigned line = 0, col = 0;
        int used = 0;
        const char *sub = want;
        if (sscanf(want, "%u:%u: %n", &line, &col, &used) == 2 && used > 0)
            sub = want + used;
        ir_module *m = ir_parse(text, len, e->d_name, NULL, &d);
        if (m) {
            print_error("%s: parsed, expected error '%s'\n", e->d_name, want);
            ir_module_free(m);
            bad++;
        } else if (!strstr(d.msg, sub) || (line && (d.loc.line != line || d.loc.col != col))) {
            print_error("%s: got %u:%u: %s; want %s\n", e->d_name, d.loc.line, d.loc.col, d.msg, want);
            bad++;
        }
        plumb_free(text, len + 1);
    }
    closedir(dd);
    if (files < 40)
        fail_msg("corpus has %d files, expected at least 40", files);
    assert_int_equal(bad, 0);
}

/* 100000 nested '[' in a literal and 200 nested regions end in a depth
 * error, not a stack overflow; a raised limit admits the 200 regions. */
static void test_deep_nesting(void **state)
{
    (void)state;
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "func.func @f() {\n  %0 = stablehlo.constant dense<");
    for (int i = 0; i < 100000; i++)
        plumb_buf_puts(&b, "[");
    plumb_buf_puts(&b, "1");
    for (int i = 0; i < 100000; i++)
        plumb_buf_puts(&b, "]");
    plumb_buf_puts(&b, "> : tensor<1xf32>\n  return\n}\n");
    assert_false(b.failed);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_null(ir_parse(b.data, b.len, "t", NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "nesting deeper than 64"));
    plumb_buf_free(&b);

    /* nested sort comparators, each holding the next one */
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "func.func @f(%x: tensor<2xf32>) {\n");
    for (int i = 0; i < 200; i++)
        plumb_buf_printf(&b, "%%s%d = \"stablehlo.sort\"(%%x) <{dimension = 0 : i64}> ({\n^bb0(%%a%d: tensor<f32>, %%b%d: tensor<f32>):\n", i, i, i);
    for (int i = 199; i >= 0; i--)
        plumb_buf_printf(&b,
                         "%%t%d = stablehlo.compare LT, %%a%d, %%b%d : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                         "stablehlo.return %%t%d : tensor<i1>\n}) : (tensor<2xf32>) -> tensor<2xf32>\n",
                         i, i, i, i);
    plumb_buf_puts(&b, "return\n}\n");
    memset(&d, 0, sizeof d);
    assert_null(ir_parse(b.data, b.len, "t", NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    ir_parse_options o = {sizeof o, 1000, 0};
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(b.data, b.len, "t", &o, &d);
    assert_non_null(m);
    ir_op *op = m->funcs[0]->body.first;
    int levels = 0;
    while (op && op->code == PLUMB_OP_SORT) {
        levels++;
        op = op->regions[0].first;
    }
    assert_int_equal(levels, 200);
    ir_module_free(m);
    plumb_buf_free(&b);
}

/* Every truncation of a valid program is rejected cleanly or parsed; none
 * crashes (run under ASan to see out-of-bounds reads). */
static void test_truncations(void **state)
{
    (void)state;
    const char *prog =
        "module @m attributes {a = 1 : i32} {\n"
        "  func.func public @main(%x: tensor<2x3xf32> {k = \"v\"}) -> (tensor<3xf32> {r = 1}) {\n"
        "    %c = stablehlo.constant dense<[1.5, 0x7FC00000, -2.0]> : tensor<3xf32>\n"
        "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "    %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>\n"
        "    %1:2 = \"stablehlo.sort\"(%0, %c) <{dimension = 0 : i64, is_stable = true}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %e: tensor<f32>, %f: tensor<f32>):\n"
        "      %t = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "      stablehlo.return %t : tensor<i1>\n"
        "    }) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)\n"
        "    stablehlo.custom_call @check.expect_close(%1#0, %c) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()\n"
        "    return %1#1 : tensor<3xf32>\n"
        "  }\n"
        "}\n";
    size_t n = strlen(prog);
    ir_module *full = parse_ok(prog);
    ir_module_free(full);
    for (size_t i = 0; i < n; i++) {
        char *copy = malloc(i + 1);
        assert_non_null(copy);
        memcpy(copy, prog, i);
        plumb_diag d;
        memset(&d, 0, sizeof d);
        ir_module *m = ir_parse(copy, i, "t", NULL, &d);
        if (m)
            ir_module_free(m);
        else
            assert_int_not_equal(d.code, PLUMB_OK);
        free(copy);
    }
}

/* The forms of the sample and the issue map onto the attribute fields. */
static void test_pretty_forms_attrs(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @f(%x: tensor<?x4xf32, #stablehlo.bounds<64, ?>>, %y: tensor<4x3xf32>) -> tensor<?x3xf32, #stablehlo.bounds<64, ?>> {\n"
        "  %0 = stablehlo.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<?x4xf32, #stablehlo.bounds<64, ?>>, tensor<4x3xf32>) -> tensor<?x3xf32, #stablehlo.bounds<64, ?>>\n"
        "  %1 = stablehlo.compare  LT, %y, %y,  TOTALORDER : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>\n"
        "  %2 = stablehlo.slice %y [1:4:2, 0:3] : (tensor<4x3xf32>) -> tensor<2x3xf32>\n"
        "  %c = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %3 = stablehlo.pad %y, %c, low = [1, 0], high = [2, 1], interior = [0, 3] : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x10xf32>\n"
        "  %4 = stablehlo.reduce_precision %y, format = e5m10 : tensor<4x3xf32>\n"
        "  %5 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
        "  %6 = stablehlo.select %1, %y, %y : tensor<4x3xi1>, tensor<4x3xf32>\n"
        "  %7 = stablehlo.convert %y : tensor<4x3xf32>\n"
        "  return %0 : tensor<?x3xf32, #stablehlo.bounds<64, ?>>\n"
        "}\n");
    ir_func *f = m->funcs[0];
    assert_int_equal(f->body.n_args, 2);
    const ir_type *tx = &f->body.args[0]->type;
    assert_int_equal(tx->rank, 2);
    assert_int_equal(tx->dims[0], PLUMB_DIM_DYN);
    assert_int_equal(tx->bounds[0], 64);
    assert_int_equal(tx->dims[1], 4);
    assert_int_equal(tx->bounds[1], PLUMB_NO_BOUND);
    ir_op *dg = nth_op(f, 0);
    assert_int_equal(dg->code, PLUMB_OP_DOT_GENERAL);
    assert_int_equal(dg->a.lhs_batch.n, 0);
    assert_int_equal(dg->a.lhs_contract.n, 1);
    assert_int_equal(dg->a.lhs_contract.v[0], 1);
    assert_int_equal(dg->a.rhs_contract.v[0], 0);
    assert_true(dg->a.has_precision);
    assert_int_equal(dg->a.precision[1], IR_PREC_HIGHEST);
    assert_int_equal(dg->results[0]->type.bounds[0], 64);
    ir_op *cmp = nth_op(f, 1);
    assert_int_equal(cmp->a.cmp_dir, IR_CMP_LT);
    assert_int_equal(cmp->a.cmp_type, IR_CMP_TOTALORDER);
    assert_int_equal(cmp->results[0]->type.dtype, PLUMB_I1);
    ir_op *sl = nth_op(f, 2);
    assert_int_equal(sl->a.start.n, 2);
    assert_int_equal(sl->a.start.v[0], 1);
    assert_int_equal(sl->a.limit.v[0], 4);
    assert_int_equal(sl->a.strides.v[0], 2);
    assert_int_equal(sl->a.strides.v[1], 1);
    ir_op *cst = nth_op(f, 3);
    assert_non_null(cst->a.value);
    assert_int_equal(cst->a.value->rank, 0);
    ir_op *pad = nth_op(f, 4);
    assert_int_equal(pad->a.high.v[0], 2);
    assert_int_equal(pad->a.interior.v[1], 3);
    ir_op *rp = nth_op(f, 5);
    assert_int_equal(rp->a.exponent_bits, 5);
    assert_int_equal(rp->a.mantissa_bits, 10);
    ir_op *io = nth_op(f, 6);
    assert_int_equal(io->a.dimension, 1);
    assert_int_equal(io->results[0]->type.dtype, PLUMB_I32);
    ir_op *sel = nth_op(f, 7);
    assert_int_equal(sel->code, PLUMB_OP_SELECT);
    assert_int_equal(sel->results[0]->type.dtype, PLUMB_F32);
    assert_int_equal(nth_op(f, 8)->code, PLUMB_OP_CONVERT);
    assert_int_equal(nth_op(f, 9)->code, PLUMB_OP_FUNC_RETURN);
    assert_int_equal(nth_op(f, 9)->loc.line, 11);
    assert_int_equal(nth_op(f, 9)->loc.col, 3);
    ir_module_free(m);
}

/* The multi-input reduce pairs `reducer(%a0, %b0) (%a1, %b1)` onto block
 * arguments (a0, a1, b0, b1), as in StableHLO's argmax programs. */
static void test_reducer_argument_order(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @f(%x: tensor<3xf32>, %i: tensor<3xi32>, %c: tensor<f32>, %z: tensor<i32>) -> tensor<i32> {\n"
        "  %0:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [0] : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
        "   reducer(%p: tensor<f32>, %q: tensor<f32>) (%r: tensor<i32>, %s: tensor<i32>)  {\n"
        "    stablehlo.return %q, %s : tensor<f32>, tensor<i32>\n"
        "  }\n"
        "  return %0#1 : tensor<i32>\n"
        "}\n");
    ir_op *r = m->funcs[0]->body.first;
    assert_int_equal(r->n_operands, 4);
    assert_ptr_equal(r->operands[1], m->funcs[0]->body.args[1]);
    assert_ptr_equal(r->operands[2], m->funcs[0]->body.args[2]);
    assert_int_equal(r->n_regions, 1);
    ir_block *b = &r->regions[0];
    assert_int_equal(b->n_args, 4);
    assert_string_equal(b->args[0]->name, "p");
    assert_string_equal(b->args[1]->name, "r");
    assert_string_equal(b->args[2]->name, "q");
    assert_string_equal(b->args[3]->name, "s");
    assert_ptr_equal(b->args[0]->owner, b);
    assert_ptr_equal(b->first->parent, b);
    assert_ptr_equal(b->parent, r);
    ir_op *ret = r->next;
    assert_ptr_equal(ret->operands[0], r->results[1]);
    ir_module_free(m);
}

/* Generic forms of gather, scatter and sort, with properties, unit
 * attributes, regions and unknown attributes kept verbatim. */
static void test_generic_forms(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @f(%a: tensor<3x10xf32>, %i: tensor<2x1xi32>, %u: tensor<2x10xf32>) {\n"
        "  %0 = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 10>}> : (tensor<3x10xf32>, tensor<2x1xi32>) -> tensor<2x10xf32>\n"
        "  %1 = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices}> ({\n"
        "  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):\n"
        "    %3 = stablehlo.add %arg0, %arg1 : tensor<f32>\n"
        "    stablehlo.return %3 : tensor<f32>\n"
        "  }) {mhlo.sharding = \"{replicated}\"} : (tensor<3x10xf32>, tensor<2x1xi32>, tensor<2x10xf32>) -> tensor<3x10xf32>\n"
        "  %2 = \"stablehlo.sort\"(%a) <{dimension = 1 : i64, is_stable = true}> ({\n"
        "  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):\n"
        "    %3 = stablehlo.compare LT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    stablehlo.return %3 : tensor<i1>\n"
        "  }) : (tensor<3x10xf32>) -> tensor<3x10xf32>\n"
        "  return\n"
        "}\n");
    ir_func *f = m->funcs[0];
    ir_op *g = nth_op(f, 0);
    assert_int_equal(g->a.offset_dims.n, 1);
    assert_int_equal(g->a.collapsed_slice_dims.v[0], 0);
    assert_int_equal(g->a.operand_batching_dims.n, 0);
    assert_int_equal(g->a.index_vector_dim, 1);
    assert_true(g->a.indices_are_sorted);
    assert_int_equal(g->a.sizes.n, 2);
    assert_int_equal(g->a.sizes.v[1], 10);
    ir_op *s = nth_op(f, 1);
    assert_int_equal(s->a.index_vector_dim, 0);   /* absent field: StableHLO's default 0 */
    assert_true(s->a.unique_indices);
    assert_false(s->a.indices_are_sorted);
    assert_int_equal(s->a.n_extra, 1);
    assert_string_equal(s->a.extra[0].name, "mhlo.sharding");
    assert_string_equal(s->a.extra[0].text, "\"{replicated}\"");
    assert_int_equal(s->n_regions, 1);
    assert_int_equal(s->regions[0].n_ops, 2);
    ir_op *so = nth_op(f, 2);
    assert_int_equal(so->a.dimension, 1);
    assert_true(so->a.is_stable);
    ir_module_free(m);
}

/* Checks in the custom_call, check-dialect and generic spellings. */
static void test_check_forms(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @f(%a: tensor<2xf32>) {\n"
        "  stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
        "  stablehlo.custom_call @check.expect_close(%a, %a) {has_side_effect = true, max_ulp_difference = 7 : ui64} : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
        "  check.expect_close %a, %a, max_ulp_difference = 4, min_ulp_difference = 2 : tensor<2xf32>, tensor<2xf32>\n"
        "  check.expect_almost_eq_const %a, dense<[1.0, 2.5]> : tensor<2xf32>, tolerance = 0.25\n"
        "  \"check.expect_almost_eq\"(%a, %a) {tolerance = 5.000000e-01 : f64} : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
        "  stablehlo.custom_call @check.expect_eq_const(%a) {has_side_effect = true, value = dense<3.0> : tensor<2xf32>} : (tensor<2xf32>) -> ()\n"
        "  return\n"
        "}\n");
    ir_func *f = m->funcs[0];
    assert_int_equal(nth_op(f, 0)->code, PLUMB_OP_EXPECT_EQ);
    assert_int_equal(nth_op(f, 0)->a.n_extra, 0);   /* has_side_effect is implied */
    assert_int_equal(nth_op(f, 1)->a.max_ulp, 7);
    assert_int_equal(nth_op(f, 1)->a.min_ulp, 0);
    assert_int_equal(nth_op(f, 2)->a.max_ulp, 4);
    assert_int_equal(nth_op(f, 2)->a.min_ulp, 2);
    ir_op *c = nth_op(f, 3);
    assert_int_equal(c->code, PLUMB_OP_EXPECT_ALMOST_EQ_CONST);
    assert_true(c->a.tolerance == 0.25);
    assert_non_null(c->a.value);
    assert_int_equal(c->a.value->dims[0], 2);
    float v[2];
    memcpy(v, c->a.value->data, sizeof v);
    assert_true(v[0] == 1.0f && v[1] == 2.5f);
    assert_true(nth_op(f, 4)->a.tolerance == 0.5);
    assert_int_equal(nth_op(f, 5)->code, PLUMB_OP_EXPECT_EQ_CONST);
    assert_non_null(nth_op(f, 5)->a.value);
    ir_module_free(m);
}

/* Values: named multi results, `%0:2` with `#i` uses, `%0` meaning `%0#0`,
 * bare `call`/`return` and `func.call`/`func.return`, and the module
 * header with raw attribute text. */
static void test_values_and_module(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "// leading comment\n"
        "module @jit_main attributes {mhlo.num_partitions = 1 : i32} {\n"
        "  func.func private @two(%a: tensor<f32>) -> (tensor<f32>, tensor<f32> {x = 1}) {\n"
        "    func.return %a, %a : tensor<f32>, tensor<f32>\n"
        "  }\n"
        "  func.func @main(%a: tensor<f32> {jax.arg_info = \"a\"}) -> tensor<f32> {\n"
        "    %0:2 = call @two(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
        "    %p, %q = func.call @two(%0#1) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
        "    %1 = stablehlo.add %0, %q : tensor<f32>\n"
        "    return %1 : tensor<f32>\n"
        "  }\n"
        "}\n");
    assert_string_equal(m->name, "jit_main");
    assert_string_equal(m->attrs, "{mhlo.num_partitions = 1 : i32}");
    assert_int_equal(m->n_funcs, 2);
    ir_func *two = m->funcs[0], *main_ = m->funcs[1];
    assert_false(two->is_public);
    assert_true(main_->is_public);
    assert_int_equal(two->n_results, 2);
    assert_null(two->result_attrs[0]);
    assert_string_equal(two->result_attrs[1], "{x = 1}");
    assert_string_equal(main_->arg_attrs[0], "{jax.arg_info = \"a\"}");
    ir_op *c0 = nth_op(main_, 0), *c1 = nth_op(main_, 1), *add = nth_op(main_, 2);
    assert_string_equal(c0->a.callee, "two");
    assert_ptr_equal(c1->operands[0], c0->results[1]);
    assert_ptr_equal(add->operands[0], c0->results[0]);
    assert_ptr_equal(add->operands[1], c1->results[1]);
    assert_string_equal(c1->results[0]->name, "p");
    ir_module_free(m);
}

/* Codes: unsupported constructs report PLUMB_ERR_UNSUPPORTED, malformed
 * text PLUMB_ERR_PARSE, and the diagnostic names the file. */
static void test_error_codes(void **state)
{
    (void)state;
    plumb_diag d;
    assert_null(parse_str("func.func @f(%a: tensor<2xcomplex<f16>>) {\n  return\n}\n", &d));
    assert_int_equal(d.code, PLUMB_ERR_UNSUPPORTED);
    assert_string_equal(d.file, "t.mlir");
    assert_non_null(strstr(d.msg, "unsupported:"));
    assert_null(parse_str("func.func @f() {\n  %0 = stablehlo.all_reduce : tensor<f32>\n}\n", &d));
    assert_int_equal(d.code, PLUMB_ERR_UNSUPPORTED);
    assert_string_equal(d.msg, "unsupported: op 'stablehlo.all_reduce' is not in plumb's op set");
    assert_null(parse_str("func.func @f() {\n  return %x : tensor<f32>\n}\n", &d));
    assert_int_equal(d.code, PLUMB_ERR_PARSE);
    assert_int_equal(d.loc.line, 2);
    assert_int_equal(d.loc.col, 10);
    /* empty text is an empty module */
    ir_module *m = parse_str("  // nothing\n", &d);
    assert_non_null(m);
    assert_int_equal(m->n_funcs, 0);
    ir_module_free(m);
}

/* Invalid UTF-8 and NUL bytes anywhere, including inside strings and
 * comments, are located errors. */
static void test_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len;
        unsigned line, col;
    } cases[] = {
#define BYTES(s, l, c) {s, sizeof(s) - 1, l, c}
        BYTES("func.func @f() {\n  return \xe2\x82\n}\n", 2, 10),         /* truncated 3-byte sequence */
        BYTES("// \xed\xa0\x80 surrogate\nfunc.func @f() {\n}\n", 1, 4), /* UTF-16 surrogate */
        BYTES("module attributes {s = \"\xf8\"} {\n}\n", 1, 25),           /* 0xF8 lead byte */
        BYTES("func.func @f() {\n\0}\n", 2, 1),                               /* NUL */
        BYTES("\xff", 1, 1),
#undef BYTES
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_null(ir_parse(cases[i].text, cases[i].len, "t", NULL, &d));
        assert_int_equal(d.loc.line, cases[i].line);
        assert_int_equal(d.loc.col, cases[i].col);
    }
    /* valid multi-byte text in a comment and a string is fine */
    const char *ok = "// \xc3\xa9t\xc3\xa9 \xf0\x9f\x99\x82\nmodule attributes {s = \"\xe2\x82\xac\"} {\n}\n";
    plumb_diag d;
    ir_module *m = ir_parse(ok, strlen(ok), "t", NULL, &d);
    assert_non_null(m);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_corpus),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_pretty_forms_attrs),
        cmocka_unit_test(test_reducer_argument_order),
        cmocka_unit_test(test_generic_forms),
        cmocka_unit_test(test_check_forms),
        cmocka_unit_test(test_values_and_module),
        cmocka_unit_test(test_error_codes),
        cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
