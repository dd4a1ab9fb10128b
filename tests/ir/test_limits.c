/* Limits and scale of the text front end: a dense<...> literal is checked
 * against the caller's byte limit before its payload is allocated (a
 * dense_resource also against its blob's size), a UTF-8
 * byte-order mark is skipped, function lookups stay O(1) (counted probes,
 * not timings), and ops whose state no pretty form can carry print in the
 * generic form so that formatting never changes the program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"

/* ---- an allocator that records the largest single request ---------------- */

static size_t largest;

static void *tracking_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (nsize > largest)
        largest = nsize;
    return realloc(ptr, nsize);
}

static ir_module *parse_opts(const char *s, uint64_t max_bytes, plumb_diag *d)
{
    memset(d, 0, sizeof *d);
    ir_parse_options o = {sizeof o, 0, max_bytes};
    return ir_parse(s, strlen(s), "t.mlir", &o, d);
}

static char *print_module(const ir_module *m)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_false(b.failed);
    size_t n;
    return plumb_buf_take(&b, &n);
}

/* A 2 GiB splat literal under a 1 MiB limit is rejected at the literal's
 * type, naming both sizes, and no allocation near its size is made. */
static void test_literal_limit_checked_before_allocation(void **state)
{
    (void)state;
    const char *src = "func.func @main() -> tensor<f32> {\n"
                      "  %0 = stablehlo.constant dense<0.0> : tensor<536870912xf32>\n"
                      "  %1 = stablehlo.constant dense<1.0> : tensor<f32>\n"
                      "  return %1 : tensor<f32>\n"
                      "}\n";
    plumb_alloc_fn old_fn;
    void *old_ud;
    plumb_get_allocator(&old_fn, &old_ud);
    largest = 0;
    plumb_set_allocator(tracking_alloc, NULL);
    plumb_diag d;
    ir_module *m = parse_opts(src, 1u << 20, &d);
    plumb_set_allocator(old_fn, old_ud);
    assert_null(m);
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_int_equal(d.loc.line, 2);
    assert_int_equal(d.loc.col, 40);   /* the 't' of tensor<536870912xf32> */
    assert_string_equal(d.file, "t.mlir");
    assert_non_null(strstr(d.msg, "2147483648"));
    assert_non_null(strstr(d.msg, "1048576"));
    assert_true(largest < (1u << 20));
}

/* An allocator that refuses any request above 64 MiB (so that a test of
 * a missing size check fails with an error instead of taking gigabytes of
 * a shared machine) and records the largest request. */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    if (nsize > ((size_t)64 << 20))
        return NULL;
    return tracking_alloc(ud, ptr, osize, nsize);
}

/* A dense_resource whose type declares 4 GiB (under the limit) but whose
 * blob holds 4 bytes is refused for the size mismatch, naming both sizes
 * (4 and 1073741824 * 4 = 4294967296), before the payload is allocated:
 * the blob's size is known from the text, so a 200-byte file must not make
 * the parser ask for gigabytes. */
static void test_resource_size_checked_before_allocation(void **state)
{
    (void)state;
    const char *src = "func.func @main() -> tensor<f32> {\n"
                      "  %0 = stablehlo.constant dense_resource<k> : tensor<1073741824xf32>\n"
                      "  %1 = stablehlo.constant dense<1.0> : tensor<f32>\n"
                      "  return %1 : tensor<f32>\n"
                      "}\n"
                      "{-#\n"
                      "  dialect_resources: { builtin: { k: \"0x0400000001000000\" } }\n"
                      "#-}\n";
    plumb_alloc_fn old_fn;
    void *old_ud;
    plumb_get_allocator(&old_fn, &old_ud);
    largest = 0;
    plumb_set_allocator(capped_alloc, NULL);
    plumb_diag d;
    ir_module *m = parse_opts(src, (uint64_t)1 << 40, &d);
    plumb_set_allocator(old_fn, old_ud);
    assert_null(m);
    assert_int_equal(d.code, PLUMB_ERR_INVALID);
    assert_int_equal(d.loc.line, 2);
    assert_int_equal(d.loc.col, 42);   /* the key k */
    assert_non_null(strstr(d.msg, "the blob holds 4 bytes of data, the type needs 4294967296"));
    assert_true(largest < (1u << 20));
}

/* The limit is inclusive: a literal of exactly max_bytes parses, one
 * element more does not; with no option PLUMB_MAX_BYTES decides. */
static void test_literal_limit_boundary_and_env(void **state)
{
    (void)state;
    const char *at = "func.func @main() -> tensor<256xf32> {\n"
                     "  %0 = stablehlo.constant dense<1.0> : tensor<256xf32>\n"
                     "  return %0 : tensor<256xf32>\n}\n";
    const char *over = "func.func @main() -> tensor<257xf32> {\n"
                       "  %0 = stablehlo.constant dense<1.0> : tensor<257xf32>\n"
                       "  return %0 : tensor<257xf32>\n}\n";
    plumb_diag d;
    ir_module *m = parse_opts(at, 1024, &d);
    assert_non_null(m);
    ir_module_free(m);
    assert_null(parse_opts(over, 1024, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "1028 bytes"));

    setenv("PLUMB_MAX_BYTES", "1024", 1);
    assert_null(parse_opts(over, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    memset(&d, 0, sizeof d);
    assert_null(ir_parse(over, strlen(over), "t.mlir", NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    unsetenv("PLUMB_MAX_BYTES");
    m = parse_opts(over, 0, &d);
    assert_non_null(m);
    ir_module_free(m);

    /* an older, shorter options struct still parses (default limit) */
    ir_parse_options o = {offsetof(ir_parse_options, max_bytes), 0, 1};
    memset(&d, 0, sizeof d);
    m = ir_parse(over, strlen(over), "t.mlir", &o, &d);
    assert_non_null(m);
    ir_module_free(m);
}

/* A UTF-8 byte-order mark starts the text of many Windows-edited files: it
 * is skipped; columns on line 1 still count its bytes; elsewhere it is an
 * error. */
static void test_byte_order_mark(void **state)
{
    (void)state;
    const char *ok = "\xEF\xBB\xBF" "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                     "  return %a : tensor<f32>\n}\n";
    plumb_diag d;
    ir_module *m = parse_opts(ok, 0, &d);
    assert_non_null(m);
    assert_int_equal(m->n_funcs, 1);
    ir_module_free(m);

    const char *bad = "\xEF\xBB\xBF" "funk.func";
    assert_null(parse_opts(bad, 0, &d));
    assert_int_equal(d.loc.line, 1);
    assert_int_equal(d.loc.col, 4);

    const char *twice = "\xEF\xBB\xBF\xEF\xBB\xBF" "func.func @main() {\n  return\n}\n";
    assert_null(parse_opts(twice, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_PARSE);
    assert_int_equal(d.loc.col, 4);
}

/* 50000 functions, each calling the one before: parsing and verifying make
 * a constant number of lookups per function and call, each a constant
 * number of probes (a linear scan would make ~1.25e9 comparisons). */
static void test_function_lookup_is_linear(void **state)
{
    (void)state;
    enum { N = 50000 };
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "func.func private @f0(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n");
    for (int i = 1; i < N; i++)
        plumb_buf_printf(&b, "func.func private @f%d(%%a: tensor<f32>) -> tensor<f32> {\n"
                             "  %%0 = call @f%d(%%a) : (tensor<f32>) -> tensor<f32>\n"
                             "  return %%0 : tensor<f32>\n}\n", i, i - 1);
    assert_false(b.failed);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(b.data, b.len, "many.mlir", NULL, &d);
    plumb_buf_free(&b);
    if (!m)
        fail_msg("parse: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    assert_int_equal(m->n_funcs, N);
    uint64_t after_parse = ir_module_lookup_probes(m);
    /* parse: one lookup per definition (redefinition check), one per call */
    assert_true(after_parse >= 2 * (uint64_t)N - 1);
    assert_true(after_parse <= 8 * (uint64_t)N);
    ir_verify_options vo = {sizeof vo, 0};
    if (!ir_verify(m, &vo, &d))
        fail_msg("verify: %s", d.msg);
    uint64_t verify_probes = ir_module_lookup_probes(m) - after_parse;
    assert_true(verify_probes >= 2 * (uint64_t)N - 1);
    assert_true(verify_probes <= 8 * (uint64_t)N);
    /* every function is found, and an absent name is not */
    assert_ptr_equal(ir_module_find_func(m, "f0"), m->funcs[0]);
    assert_ptr_equal(ir_module_find_func(m, "f49999"), m->funcs[N - 1]);
    assert_null(ir_module_find_func(m, "f50000"));
    ir_module_free(m);
}

/* The builder may make two functions of one name; lookups return the first
 * and the verifier names the second with the first's line. */
static void test_duplicate_function_names(void **state)
{
    (void)state;
    ir_module *m = ir_module_new(NULL);
    assert_non_null(m);
    ir_func *a = ir_func_new(m, "f", true);
    ir_func *b2 = ir_func_new(m, "g", true);
    ir_func *c = ir_func_new(m, "f", true);
    assert_non_null(a);
    assert_non_null(b2);
    assert_non_null(c);
    a->loc.line = 3;
    c->loc.line = 9;
    assert_ptr_equal(ir_module_find_func(m, "f"), a);
    assert_ptr_equal(ir_module_find_func(m, "g"), b2);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_false(ir_verify(m, NULL, &d));
    assert_int_equal(d.loc.line, 9);
    assert_non_null(strstr(d.msg, "function @f is defined twice (first at line 3)"));
    ir_module_free(m);
}

/* parse -> print -> parse -> print: the two prints are equal, the printed
 * text is in the generic form (want), and the verifier says the same about
 * the original and the printed program. */
static void check_round_trip(const char *src, const char *want, const char *verdict)
{
    plumb_diag d;
    ir_module *m = parse_opts(src, 0, &d);
    if (!m)
        fail_msg("parse: %u:%u: %s", d.loc.line, d.loc.col, d.msg);
    char *p1 = print_module(m);
    assert_non_null(strstr(p1, want));
    plumb_diag v1;
    memset(&v1, 0, sizeof v1);
    bool ok1 = ir_verify(m, NULL, &v1);
    ir_module *m2 = parse_opts(p1, 0, &d);
    if (!m2)
        fail_msg("reparse of\n%s\nfailed: %u:%u: %s", p1, d.loc.line, d.loc.col, d.msg);
    char *p2 = print_module(m2);
    assert_string_equal(p1, p2);
    plumb_diag v2;
    memset(&v2, 0, sizeof v2);
    bool ok2 = ir_verify(m2, NULL, &v2);
    assert_int_equal(ok1, ok2);
    assert_string_equal(v1.msg, v2.msg);
    if (verdict)
        assert_non_null(strstr(v1.msg, verdict));
    plumb_free(p1, strlen(p1) + 1);
    plumb_free(p2, strlen(p2) + 1);
    ir_module_free(m);
    ir_module_free(m2);
}

/* A slice whose start, limit and stride lists differ in length and a reduce
 * whose body has the wrong number of arguments have no pretty spelling:
 * they print generically, keep their state, and stay invalid. */
static void test_unprintable_pretty_prints_generic(void **state)
{
    (void)state;
    check_round_trip("func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
                     "  %0 = \"stablehlo.slice\"(%a) <{start_indices = array<i64: 0>, limit_indices = array<i64: 2>, "
                     "strides = array<i64: 1, 1>}> : (tensor<4xf32>) -> tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n",
                     "\"stablehlo.slice\"(%arg0) <{start_indices = array<i64: 0>, limit_indices = array<i64: 2>, "
                     "strides = array<i64: 1, 1>}>",
                     "1, 1 and 2 entries");
    check_round_trip("func.func @main(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<f32> {\n"
                     "  %0 = \"stablehlo.reduce\"(%a, %b) <{dimensions = array<i64: 0>}> ({\n"
                     "  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>):\n"
                     "    %s = stablehlo.add %x, %y : tensor<f32>\n"
                     "    stablehlo.return %s : tensor<f32>\n"
                     "  }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
                     "  return %0 : tensor<f32>\n}\n",
                     "\"stablehlo.reduce\"(%arg0, %arg1) <{dimensions = array<i64: 0>}> ({\n", NULL);
    check_round_trip("func.func @main(%a: tensor<4xf32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<f32> {\n"
                     "  %0 = \"stablehlo.reduce\"(%a, %b, %c) <{dimensions = array<i64: 0>}> ({\n"
                     "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                     "    %s = stablehlo.add %x, %y : tensor<f32>\n"
                     "    stablehlo.return %s : tensor<f32>\n"
                     "  }) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<f32>\n"
                     "  return %0 : tensor<f32>\n}\n",
                     "\"stablehlo.reduce\"(%arg0, %arg1, %arg2)", "got 3 operands");
    /* a concatenate of nothing: the pretty form would start with ", dim" */
    check_round_trip("func.func @main() -> tensor<0xf32> {\n"
                     "  %0 = \"stablehlo.concatenate\"() {dimension = 0 : i64} : () -> tensor<0xf32>\n"
                     "  return %0 : tensor<0xf32>\n}\n",
                     "\"stablehlo.concatenate\"() <{dimension = 0 : i64}> : () -> tensor<0xf32>", NULL);
    /* a constant whose literal type differs from its result type: the
     * pretty form has one type for both and would make the program valid */
    check_round_trip("func.func @main() -> tensor<2xf32> {\n"
                     "  %0 = \"stablehlo.constant\"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n",
                     "\"stablehlo.constant\"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<2xf32>",
                     "does not match the declared type");
    /* the valid forms keep their pretty spelling */
    check_round_trip("func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
                     "  %0 = \"stablehlo.slice\"(%a) <{start_indices = array<i64: 0>, limit_indices = array<i64: 4>, "
                     "strides = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n",
                     "stablehlo.slice %arg0 [0:4:2]", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literal_limit_checked_before_allocation),
        cmocka_unit_test(test_literal_limit_boundary_and_env),
        cmocka_unit_test(test_resource_size_checked_before_allocation),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_function_lookup_is_linear),
        cmocka_unit_test(test_duplicate_function_names),
        cmocka_unit_test(test_unprintable_pretty_prints_generic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
