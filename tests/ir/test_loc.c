/* Tests of StableHLO/MLIR debug locations (`loc(...)`, docs/format.md
 * "Debug locations"): every written form is read and resolved to the
 * name and file position a diagnostic shows, printed canonically so that
 * print(parse(print(m))) == print(m), kept through the runtime's copies,
 * and appended to verifier and run-time errors. Expected positions are
 * read off the test text by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

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

static char *print_str(const ir_module *m)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_false(b.failed);
    char *s = strdup(b.data);   /* freed with free() by the tests */
    assert_non_null(s);
    plumb_buf_free(&b);
    return s;
}

static void assert_dloc(const ir_debug_loc *l, const char *name, const char *file, uint32_t line, uint32_t col)
{
    assert_non_null(l);
    if (name)
        assert_string_equal(l->name, name);
    else
        assert_null(l->name);
    if (file)
        assert_string_equal(l->file, file);
    else
        assert_null(l->file);
    assert_int_equal(l->line, line);
    assert_int_equal(l->col, col);
}

/* A JAX-style export: aliases before and after their uses, locations on
 * the module, the function, its arguments (after their attributes), region
 * arguments, ops with regions and every location kind. */
static const char *jax_text =
    "#loc0 = loc(\"early.py\":1:1)\n"
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<4xf32> {jax.arg_info = \"x\"} loc(\"x\"), %arg1: tensor<f32> loc(unknown)) -> (tensor<f32> {jax.result_info = \"\"}) {\n"
    "    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc(#loc7)\n"
    "    %1 = stablehlo.reduce(%0 init: %arg1) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
    "     reducer(%a: tensor<f32> loc(unknown), %b: tensor<f32> loc(\"r\"(\"m.py\":3:4))) {\n"
    "      %2 = stablehlo.add %a, %b : tensor<f32> loc(fused<\"tag\">[#loc1, \"m.py\":9:9])\n"
    "      stablehlo.return %2 : tensor<f32> loc(#loc0)\n"
    "    } loc(callsite(#loc2 at #loc3))\n"
    "    %3 = \"stablehlo.negate\"(%1) : (tensor<f32>) -> tensor<f32> loc(callsite(\"f.py\":5:6 at \"g.py\":7:8))\n"
    "    %4 = stablehlo.abs %3 : tensor<f32> loc(callsite(unknown at #loc3))\n"
    "    return %4 : tensor<f32> loc(#loc4)\n"
    "  } loc(#loc5)\n"
    "} loc(#loc6)\n"
    "#loc1 = loc(\"only_name\")\n"
    "#loc2 = loc(\"inner\"(\"f.py\":10:2 to :9))\n"
    "#loc3 = loc(\"outer.py\":20:1)\n"
    "#loc4 = loc(unknown)\n"
    "#loc5 = loc(\"main\")\n"
    "#loc6 = loc(\"mod.py\":1:1 to 2:3)\n"
    "#loc7 = loc(\"jit(f)/add\"(#loc9))\n"
    "#loc9 = loc(callsite(#loc2 at #loc3))\n";

/* Each form resolves to the outermost name and the innermost file
 * position: a callsite's callee (its caller when the callee has none), a
 * fused location's first part with a file, aliases followed both ways. */
static void test_forms_resolve(void **state)
{
    (void)state;
    ir_module *m = parse_ok(jax_text);
    assert_dloc(&m->dloc, NULL, "mod.py", 1, 1);
    ir_func *f = m->funcs[0];
    assert_dloc(&f->dloc, "main", NULL, 0, 0);
    assert_dloc(f->body.args[0]->dloc, "x", NULL, 0, 0);
    assert_false(ir_debug_loc_known(f->body.args[1]->dloc));
    ir_op *add = f->body.first;
    assert_dloc(&add->dloc, "jit(f)/add", "f.py", 10, 2);
    ir_op *red = add->next;
    assert_dloc(&red->dloc, "inner", "f.py", 10, 2);
    ir_block *r = &red->regions[0];
    assert_false(ir_debug_loc_known(r->args[0]->dloc));
    assert_dloc(r->args[1]->dloc, "r", "m.py", 3, 4);
    assert_dloc(&r->first->dloc, "only_name", "m.py", 9, 9);
    assert_dloc(&r->first->next->dloc, NULL, "early.py", 1, 1);
    ir_op *neg = red->next;
    assert_dloc(&neg->dloc, NULL, "f.py", 5, 6);
    ir_op *abs_ = neg->next;
    assert_dloc(&abs_->dloc, NULL, "outer.py", 20, 1);
    assert_false(ir_debug_loc_known(&abs_->next->dloc));
    /* the ops' own positions in this file are untouched */
    assert_int_equal(add->loc.line, 4);
    assert_int_equal(add->loc.col, 10);
    ir_module_free(m);
}

/* fmt writes each resolved location inline in one canonical form, and
 * reading that back gives the same text (and the same locations). */
static void test_print_canonical(void **state)
{
    (void)state;
    ir_module *m = parse_ok(jax_text);
    char *p1 = print_str(m);
    assert_non_null(strstr(p1, "(%arg0: tensor<4xf32> {jax.arg_info = \"x\"} loc(\"x\"), %arg1: tensor<f32>) ->"));
    assert_non_null(strstr(p1, "%0 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc(\"jit(f)/add\"(\"f.py\":10:2))\n"));
    assert_non_null(strstr(p1, "%arg3: tensor<f32> loc(\"r\"(\"m.py\":3:4))) {"));
    assert_non_null(strstr(p1, "stablehlo.return %2 : tensor<f32> loc(\"early.py\":1:1)\n"));
    assert_non_null(strstr(p1, "} loc(\"inner\"(\"f.py\":10:2))\n"));
    assert_non_null(strstr(p1, "  } loc(\"main\")\n"));
    assert_non_null(strstr(p1, "} loc(\"mod.py\":1:1)\n"));
    assert_null(strstr(p1, "#loc"));
    assert_null(strstr(p1, "unknown"));
    /* the return's loc(#loc4) is unknown: nothing is printed after its type */
    assert_non_null(strstr(p1, "return %4 : tensor<f32>\n"));
    plumb_diag d;
    ir_module *m2 = parse_str(p1, &d);
    if (!m2)
        fail_msg("printed text does not parse: %u:%u: %s\n%s", d.loc.line, d.loc.col, d.msg, p1);
    char *p2 = print_str(m2);
    assert_string_equal(p1, p2);
    assert_dloc(&m2->funcs[0]->body.first->dloc, "jit(f)/add", "f.py", 10, 2);
    free(p1);
    free(p2);
    ir_module_free(m2);
    ir_module_free(m);
}

/* Names and files with quotes, backslashes and non-ASCII bytes print as
 * escapes that read back byte for byte; a module location on a bare list
 * of functions makes the printer write the module it belongs to. */
static void test_print_escapes_and_bare_module(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = stablehlo.negate %a : tensor<f32> loc(\"a\\\"b\\\\c \\C3\\A9\"(\"dir/x y.py\":3:4))\n"
        "  return %0 : tensor<f32>\n"
        "}\n"
        "#m = loc(\"top\")\n";
    ir_module *m = parse_ok(src);
    assert_dloc(&m->funcs[0]->body.first->dloc, "a\"b\\c \xC3\xA9", "dir/x y.py", 3, 4);
    assert_false(ir_debug_loc_known(&m->dloc));
    char *p1 = print_str(m);
    assert_non_null(strstr(p1, "loc(\"a\\\"b\\\\c \\C3\\A9\"(\"dir/x y.py\":3:4))"));
    ir_module *m2 = parse_ok(p1);
    char *p2 = print_str(m2);
    assert_string_equal(p1, p2);
    free(p1);
    free(p2);
    ir_module_free(m2);
    ir_module_free(m);

    m = parse_ok("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n} loc(\"f\")\n");
    assert_dloc(&m->funcs[0]->dloc, "f", NULL, 0, 0);
    ir_module_free(m);
    m = parse_ok("module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    return %a : tensor<f32>\n  }\n} loc(\"mm\")\n");
    p1 = print_str(m);
    assert_string_equal(p1, "module {\n  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n    return %arg0 : tensor<f32>\n  }\n} loc(\"mm\")\n");
    free(p1);
    ir_module_free(m);
}

typedef struct bad_case {
    const char *text;
    uint32_t line, col;
    const char *msg;
} bad_case;

/* Malformed locations and aliases fail with the position and a message
 * naming the problem, never a crash or a silent accept. */
static void test_bad_locations(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(\"x.py\n}\n", 2, 31,
         "unterminated string"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(#loc99)\n}\n", 2, 31,
         "unknown location alias '#loc99'"},
        {"#a = loc(\"x\")\nfunc.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n#a = loc(\"y\")\n", 5, 1,
         "location alias '#a' is defined twice (first on line 1)"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(#a)\n}\n#a = loc(#a)\n", 4, 10,
         "location alias '#a' refers to itself"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n#a = loc(\"n\"(#b))\n#b = loc(callsite(#c at \"f\":1:1))\n#c = loc(fused[#a])\n",
         6, 16, "location alias '#a' refers to itself"},
        {"#map = affine_map<(d0) -> (d0)>\nfunc.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n", 1, 8,
         "only '#name = loc(...)' aliases are read"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(\"f\":99999999999:1)\n}\n", 2, 35,
         "line or column number in a location exceeds"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(callsite(\"a\" \"b\"))\n}\n", 2, 44,
         "expected 'at'"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(\"a\"(\"f\":1:2)\n}\n", 3, 1,
         "expected ')'"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(42)\n}\n", 2, 31,
         "expected a location"},
        {"func.func @main(%a: tensor<f32> loc(#nope)) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n", 1, 37,
         "unknown location alias '#nope'"},
        {"func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(fused[\"a\", ])\n}\n", 2, 42,
         "expected a location"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plumb_diag d;
        ir_module *m = parse_str(cases[i].text, &d);
        if (m) {
            ir_module_free(m);
            fail_msg("case %zu parsed, expected '%s'", i, cases[i].msg);
        }
        if (!strstr(d.msg, cases[i].msg) || d.loc.line != cases[i].line || d.loc.col != cases[i].col)
            fail_msg("case %zu: got %u:%u: %s; want %u:%u: %s", i, d.loc.line, d.loc.col, d.msg, cases[i].line,
                     cases[i].col, cases[i].msg);
    }
}

/* Parse errors about an op name its loc(...) too, found after the op
 * (across the region lines of an op outside the op set, a collective) and
 * resolved with aliases defined after
 * it; an op without one gets no suffix, not its neighbour's. */
static void test_parse_errors_name_origin(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"func.func @main(%a: tensor<i32>) -> tensor<i32> {\n"
         "  %0 = stablehlo.all_reduce(%it = %a) : tensor<i32>\n"
         "   cond {\n"
         "    %c = stablehlo.constant dense<3> : tensor<i32>\n"
         "    %1 = stablehlo.compare  LT, %it, %c : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#l3)\n"
         "    stablehlo.return %1 : tensor<i1>\n"
         "  } do {\n"
         "    stablehlo.return %it : tensor<i32>\n"
         "  } loc(#l2)\n"
         "  return %0 : tensor<i32>\n"
         "}\n"
         "#l1 = loc(\"model.py\":9:4)\n"
         "#l2 = loc(\"jit(f)/while\"(#l1))\n"
         "#l3 = loc(\"cmp\")\n",
         2, 8, "unsupported: op 'stablehlo.all_reduce' is not in plumb's op set (from jit(f)/while at model.py:9:4)"},
        {"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %0 = stablehlo.abs %a : (tensor<3xf32>) -> tensor<2xf32> loc(\"m.py\":4:2)\n"
         "  return %0 : tensor<2xf32>\n"
         "}\n",
         2, 22, "but the signature says tensor<3xf32> (from m.py:4:2)"},
        {"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %0 = call @nope(%a) : (tensor<2xf32>) -> tensor<2xf32> loc(#c)\n"
         "  return %0 : tensor<2xf32>\n"
         "}\n"
         "#c = loc(\"m.py\":5:2)\n",
         2, 8, "call to undefined function '@nope' (from m.py:5:2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plumb_diag d;
        ir_module *m = parse_str(cases[i].text, &d);
        if (m) {
            ir_module_free(m);
            fail_msg("case %zu parsed, expected '%s'", i, cases[i].msg);
        }
        if (!strstr(d.msg, cases[i].msg) || d.loc.line != cases[i].line || d.loc.col != cases[i].col)
            fail_msg("case %zu: got %u:%u: %s; want %u:%u: %s", i, d.loc.line, d.loc.col, d.msg, cases[i].line,
                     cases[i].col, cases[i].msg);
    }
    plumb_diag d;
    ir_module *m = parse_str("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                             "  %0 = stablehlo.abs %a : (tensor<3xf32>) -> tensor<2xf32>\n"
                             "  %1 = stablehlo.abs %0 : tensor<2xf32> loc(\"next.py\":1:1)\n"
                             "  return %1 : tensor<2xf32>\n"
                             "}\n",
                             &d);
    assert_null(m);
    assert_null(strstr(d.msg, "(from "));
}

/* A chain of 5000 aliases, each naming the next, and 100000 nested
 * name locations end in a limit error, not a stack overflow; a chain of
 * 500 resolves to the position at its end. */
static void test_deep_locations(void **state)
{
    (void)state;
    const char *head = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(#l0)\n}\n";
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? 5000 : 500;
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_buf_puts(&b, head);
        for (int i = 0; i < n; i++)
            plumb_buf_printf(&b, "#l%d = loc(#l%d)\n", i, i + 1);
        plumb_buf_printf(&b, "#l%d = loc(\"end.py\":7:8)\n", n);
        assert_false(b.failed);
        plumb_diag d;
        ir_module *m = parse_str(b.data, &d);
        if (pass == 0) {
            if (!m)
                fail_msg("500 aliases: %s", d.msg);
            assert_dloc(&m->funcs[0]->body.first->dloc, NULL, "end.py", 7, 8);
            ir_module_free(m);
        } else {
            assert_null(m);
            assert_int_equal(d.code, PLUMB_ERR_LIMIT);
            assert_non_null(strstr(d.msg, "location nests deeper than"));
        }
        plumb_buf_free(&b);
    }
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32> loc(");
    for (int i = 0; i < 100000; i++)
        plumb_buf_puts(&b, "\"n\"(");
    assert_false(b.failed);
    plumb_diag d;
    ir_module *m = parse_str(b.data, &d);
    assert_null(m);
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "nesting deeper than"));
    plumb_buf_free(&b);
}

/* The verifier names the front end's position after its own message. */
static void test_verifier_names_origin(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32> loc(#l)\n"
        "  return %0 : tensor<2xf32>\n"
        "}\n"
        "#l = loc(\"jit(f)/add\"(\"model.py\":41:7))\n");
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_false(ir_verify(m, NULL, &d));
    assert_int_equal(d.loc.line, 2);
    assert_int_equal(d.loc.col, 8);
    size_t n = strlen(d.msg);
    const char *want = " (from jit(f)/add at model.py:41:7)";
    if (n < strlen(want) || strcmp(d.msg + n - strlen(want), want) != 0)
        fail_msg("message does not end in '%s': %s", want, d.msg);
    assert_non_null(strstr(d.msg, "stablehlo.add: operand 1"));
    ir_module_free(m);

    /* without a location the message is as before: no suffix */
    m = parse_ok("func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n"
                 "  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
                 "  return %0 : tensor<2xf32>\n"
                 "}\n");
    memset(&d, 0, sizeof d);
    assert_false(ir_verify(m, NULL, &d));
    assert_null(strstr(d.msg, "(from "));
    ir_module_free(m);

    /* a parameter's error names the parameter's location */
    m = parse_ok("func.func @main(%x: tensor<4294967296x4294967296xf32> loc(\"x\"(\"m.py\":3:1))) -> tensor<f32> {\n"
                 "  %0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
                 "  return %0 : tensor<f32>\n"
                 "}\n");
    memset(&d, 0, sizeof d);
    assert_false(ir_verify(m, NULL, &d));
    if (!strstr(d.msg, "function @main: argument 0 (%x) (from x at m.py:3:1): type tensor<4294967296x4294967296xf32>"))
        fail_msg("parameter error lacks its origin: %s", d.msg);
    ir_module_free(m);
}

static const char *assert_text =
    "func.func @main() -> tensor<i64> {\n"
    "  %p = stablehlo.constant dense<false> : tensor<i1>\n"
    "  %v = stablehlo.constant dense<7> : tensor<i64>\n"
    "  stablehlo.custom_call @shape_assertion(%p, %v) {error_message = \"size {0} is wrong\", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> () loc(#a)\n"
    "  return %v : tensor<i64>\n"
    "}\n"
    "#a = loc(\"jax/assert\"(\"model.py\":12:3))\n";

/* A failing shape assertion at run time names the front end's position on
 * the reference and on the runtime; the runtime's copy of the program
 * keeps it after the source module is freed (compile, free, then run). */
static void test_runtime_errors_name_origin(void **state)
{
    (void)state;
    const char *want = "shape assertion failed: size 7 is wrong (from jax/assert at model.py:12:3)";
    ir_module *m = parse_ok(assert_text);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(ir_verify(m, NULL, &d));
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    assert_false(plumb_ref_run(m, NULL, NULL, 0, NULL, &res, &d));
    if (!strstr(d.msg, want))
        fail_msg("reference: '%s' lacks '%s'", d.msg, want);
    assert_int_equal(d.loc.line, 4);
    plumb_ref_result_free(&res);

    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    if (!ex)
        fail_msg("compile: %s", d.msg);
    ir_module_free(m);
    plumb_tensor *out[1] = {NULL};
    memset(&d, 0, sizeof d);
    assert_false(plumb_executable_run(ex, NULL, 0, out, 1, NULL, &d));
    if (!strstr(d.msg, want))
        fail_msg("runtime: '%s' lacks '%s'", d.msg, want);
    if (out[0])
        plumb_tensor_free(out[0]);
    plumb_runtime_destroy(rt);
}

/* lr is baked into the program at model.py:7:10 (the multiply reads it at
 * model.py:8:5); scale differs only in its location between a and b. */
static const char *step_a =
    "func.func @main(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %lr = stablehlo.constant dense<0.5> : tensor<4xf32> loc(\"lr\"(\"model.py\":7:10))\n"
    "  %step = stablehlo.multiply %g, %lr : tensor<4xf32> loc(#mul)\n"
    "  %nw = stablehlo.subtract %w, %step : tensor<4xf32> loc(\"model.py\":9:1)\n"
    "  return %nw : tensor<4xf32>\n"
    "}\n"
    "#mul = loc(\"jit(step)/mul\"(callsite(\"sgd\"(\"model.py\":8:5) at \"train.py\":30:2)))\n";

/* A recompile explanation names the front end's position of the op
 * where the difference starts, in the line and in the JSON ("from"),
 * also once the modules are freed; a program that differs only in its
 * locations is a cache hit, not a recompile. */
static void test_explanation_names_origin(void **state)
{
    (void)state;
    char step_b[1024], step_c[1024];
    /* b: lr became 0.25 (a baked constant); c: a with other locations */
    const char *at = strstr(step_a, "0.5");
    snprintf(step_b, sizeof step_b, "%.*s0.25%s", (int)(at - step_a), step_a, at + 3);
    const char *l9 = strstr(step_a, "\"model.py\":9:1");
    snprintf(step_c, sizeof step_c, "%.*s\"other.py\":1:1%s", (int)(l9 - step_a), step_a, l9 + strlen("\"model.py\":9:1"));
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    ir_module *ma = parse_ok(step_a), *mc = parse_ok(step_c), *mb = parse_ok(step_b);
    assert_true(ir_verify(ma, NULL, &d) && ir_verify(mb, NULL, &d) && ir_verify(mc, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, ma, NULL, &d));
    ir_module_free(ma);
    assert_non_null(plumb_runtime_compile(rt, mc, NULL, &d));
    plumb_runtime_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.cache_hits, 1);
    assert_non_null(plumb_runtime_compile(rt, mb, NULL, &d));
    ir_module_free(mb);
    ir_module_free(mc);
    const char *l = plumb_runtime_last_explanation(rt), *j = plumb_runtime_last_explanation_json(rt);
    assert_non_null(l);
    assert_non_null(j);
    if (!strstr(l, "node 2 stablehlo.multiply operand 1: constant") ||
        !strstr(l, "at t.mlir:3:11 (from jit(step)/mul at model.py:8:5)"))
        fail_msg("explanation lacks the multiply's origin: %s", l);
    if (!strstr(j, "\"from\": \"jit(step)/mul at model.py:8:5\""))
        fail_msg("JSON explanation lacks \"from\": %s", j);
    plumb_runtime_destroy(rt);
}

/* Shape refinement keeps the locations of the ops and parameters it
 * rewrites (x: tensor<?xf32> refined to 5 elements), and a shape assertion
 * it finds false names the assertion's location. */
static void test_refine_keeps_locations(void **state)
{
    (void)state;
    ir_module *m = parse_ok("func.func @main(%x: tensor<?xf32> loc(\"x\")) -> tensor<?xf32> {\n"
                            "  %0 = stablehlo.negate %x : tensor<?xf32> loc(\"neg\"(\"m.py\":2:3))\n"
                            "  return %0 : tensor<?xf32>\n"
                            "}\n");
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(ir_verify(m, NULL, &d));
    int64_t five = 5;
    ir_type t = ir_type_make(PLUMB_F32, 1, &five);
    ir_module *r = plumb_ref_refine(m, "main", &t, 1, 0, &d);
    if (!r)
        fail_msg("refine: %s", d.msg);
    const ir_func *f = ir_module_find_func(r, "main");
    assert_non_null(f);
    assert_int_equal(f->body.args[0]->type.dims[0], 5);
    assert_dloc(f->body.args[0]->dloc, "x", NULL, 0, 0);
    assert_dloc(&f->body.first->dloc, "neg", "m.py", 2, 3);
    ir_module_free(r);
    ir_module_free(m);

    /* a shape assertion that fails for the refined shapes names its origin */
    m = parse_ok("func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                 "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>\n"
                 "  %c = stablehlo.constant dense<4> : tensor<i32>\n"
                 "  %ok = stablehlo.compare EQ, %n, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                 "  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = \"size {0} is not 4\", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> () loc(\"jax/assert\"(\"m.py\":7:1))\n"
                 "  return %x : tensor<?xf32>\n"
                 "}\n");
    memset(&d, 0, sizeof d);
    assert_true(ir_verify(m, NULL, &d));
    r = plumb_ref_refine(m, "main", &t, 1, 0, &d);
    assert_null(r);
    if (!strstr(d.msg, "size 5 is not 4 (from jax/assert at m.py:7:1)"))
        fail_msg("refine's assertion error lacks its origin: %s", d.msg);
    ir_module_free(m);
}

/* ir_debug_loc_describe's three shapes, and nothing for unknown. */
static void test_describe(void **state)
{
    (void)state;
    char s[128];
    ir_debug_loc l = {"n", "f.py", 3, 4};
    ir_debug_loc_describe(s, sizeof s, &l);
    assert_string_equal(s, " (from n at f.py:3:4)");
    l.name = NULL;
    ir_debug_loc_describe(s, sizeof s, &l);
    assert_string_equal(s, " (from f.py:3:4)");
    l.name = "n";
    l.file = NULL;
    ir_debug_loc_describe(s, sizeof s, &l);
    assert_string_equal(s, " (from n)");
    l.name = NULL;
    ir_debug_loc_describe(s, sizeof s, &l);
    assert_string_equal(s, "");
    ir_debug_loc_describe(s, sizeof s, NULL);
    assert_string_equal(s, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms_resolve),
        cmocka_unit_test(test_print_canonical),
        cmocka_unit_test(test_print_escapes_and_bare_module),
        cmocka_unit_test(test_bad_locations),
        cmocka_unit_test(test_parse_errors_name_origin),
        cmocka_unit_test(test_deep_locations),
        cmocka_unit_test(test_verifier_names_origin),
        cmocka_unit_test(test_runtime_errors_name_origin),
        cmocka_unit_test(test_explanation_names_origin),
        cmocka_unit_test(test_refine_keeps_locations),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
