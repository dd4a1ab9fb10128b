/* The compile cache key (runtime/canon.c) of the shape polymorphism ops
 * covers every attribute that changes what they compute or report: two
 * programs that differ only in one of them must never share a compiled
 * program (before, dynamic_broadcast_in_dim with dims = [0] and with
 * dims = [1] had one key, and the second ran the first's program). Each
 * pair below differs in exactly one attribute; the same text twice must
 * give the same key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/runtime.h"

static plumb_runtime *rt_new(void)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

static void key_src(plumb_runtime *rt, const char *src, uint64_t k[2])
{
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(src, strlen(src), "k.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) {
        plumb_diag_print(&d, stderr);
        fail();
    }
    bool ok = plumb_runtime_key(rt, m, NULL, k, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    ir_module_free(m);
}

/* a and b differ in one attribute: different keys; a twice: equal keys. */
static void differ(const char *a, const char *b)
{
    plumb_runtime *rt = rt_new();
    uint64_t ka[2], ka2[2], kb[2];
    key_src(rt, a, ka);
    key_src(rt, a, ka2);
    key_src(rt, b, kb);
    assert_memory_equal(ka, ka2, sizeof ka);
    if (memcmp(ka, kb, sizeof ka) == 0)
        fail_msg("one cache key for two different programs:\n%s\n%s", a, b);
    plumb_runtime_destroy(rt);
}

#define BCAST(dims, dict)                                                                                  \
    "func.func @main(%x: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x?xf32> {\n"                        \
    "  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = " dims " " dict                             \
    " : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>\n"                                               \
    "  return %0 : tensor<?x?xf32>\n}\n"

/* broadcast_dimensions and both hint lists of dynamic_broadcast_in_dim. */
static void test_dynamic_broadcast(void **state)
{
    (void)state;
    differ(BCAST("[0]", ""), BCAST("[1]", ""));
    differ(BCAST("[0]", ""), BCAST("[0]", "{known_expanding_dimensions = array<i64: 0>}"));
    differ(BCAST("[0]", ""), BCAST("[0]", "{known_nonexpanding_dimensions = array<i64: 0>}"));
    differ(BCAST("[0]", "{known_expanding_dimensions = array<i64: 0>}"),
           BCAST("[0]", "{known_nonexpanding_dimensions = array<i64: 0>}"));
}

#define GDS(d)                                                                                             \
    "func.func @main(%x: tensor<?x?xf32>) -> tensor<i32> {\n"                                             \
    "  %0 = stablehlo.get_dimension_size %x, dim = " d " : (tensor<?x?xf32>) -> tensor<i32>\n"             \
    "  return %0 : tensor<i32>\n}\n"
#define DIOTA(d)                                                                                           \
    "func.func @main(%s: tensor<2xi32>) -> tensor<?x?xf32> {\n"                                           \
    "  %0 = stablehlo.dynamic_iota %s, dim = " d " : (tensor<2xi32>) -> tensor<?x?xf32>\n"                \
    "  return %0 : tensor<?x?xf32>\n}\n"

/* get_dimension_size's dimension and dynamic_iota's iota_dimension. */
static void test_dimension(void **state)
{
    (void)state;
    differ(GDS("0"), GDS("1"));
    differ(DIOTA("0"), DIOTA("1"));
}

#define DGATHER(d)                                                                                         \
    "func.func @main(%a: tensor<3x?xf32>, %i: tensor<?x1xi64>, %s: tensor<2xi32>) -> tensor<?x?xf32> {\n" \
    "  %0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], " \
    "collapsed_slice_dims = [" d "], start_index_map = [" d "], index_vector_dim = 1>} : (tensor<3x?xf32>, "     \
    "tensor<?x1xi64>, tensor<2xi32>) -> tensor<?x?xf32>\n"                                                \
    "  return %0 : tensor<?x?xf32>\n}\n"

/* dynamic_gather's dimension numbers. */
static void test_dynamic_gather(void **state)
{
    (void)state;
    differ(DGATHER("0"), DGATHER("1"));
}

#define ASSERT(msg)                                                                                        \
    "func.func @main(%p: tensor<i1>, %v: tensor<i64>) -> tensor<i1> {\n"                                  \
    "  stablehlo.custom_call @shape_assertion(%p, %v) {error_message = \"" msg "\", has_side_effect = true} " \
    ": (tensor<i1>, tensor<i64>) -> ()\n"                                                                 \
    "  return %p : tensor<i1>\n}\n"

/* shape_assertion's message: what a failing run reports. Messages that
 * differ in their ninth byte (the second packed word) or only in length
 * must still differ. */
static void test_shape_assertion_message(void **state)
{
    (void)state;
    differ(ASSERT("b >= 1, got {0}"), ASSERT("b >= 2, got {0}"));
    differ(ASSERT("12345678A"), ASSERT("12345678B"));
    differ(ASSERT("abc"), ASSERT("abc "));
    differ(ASSERT(""), ASSERT("x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_broadcast),
        cmocka_unit_test(test_dimension),
        cmocka_unit_test(test_dynamic_gather),
        cmocka_unit_test(test_shape_assertion_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
