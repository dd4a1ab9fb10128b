/* Control-flow ops on the compiled runtime (runtime/k_control.c): results
 * bitwise equal to the reference's at every ISA level and thread count, and
 * what the graph passes may not do across an optimization_barrier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "../../runtime/rt_passes.h"

static uint32_t count_ops(const ir_module *m, plumb_opcode code)
{
    const ir_func *f = ir_module_find_func(m, "main");
    uint32_t n = 0;
    for (const ir_op *op = f->body.first; op; op = op->next)
        n += op->code == code;
    return n;
}

/* Runs the runtime's passes at level 1 on @main of src; the result verifies. */
static ir_module *optimized(const char *src)
{
    ir_module *m = rt_parse(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = rt_run_passes(m, ir_module_find_func(m, "main"), 1, 0, &d) && ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

/* The barrier passes random operands with special values (NaN payloads
 * included) through unchanged, two operands of different types and shapes,
 * with elementwise ops on both sides of it (fusion candidates). */
static void test_barrier_matches_reference(void **state)
{
    (void)state;
    int64_t d[2] = {7, 13}, e[1] = {5};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, d, true), rt_rand_tensor(PLUMB_I32, 1, e, false)};
    rt_check_exact(
        "func.func @main(%x: tensor<7x13xf32>, %y: tensor<5xi32>) -> (tensor<7x13xf32>, tensor<5xi32>, tensor<7x13xf32>) {\n"
        "  %n = stablehlo.negate %x : tensor<7x13xf32>\n"
        "  %r:2 = stablehlo.optimization_barrier %n, %y : tensor<7x13xf32>, tensor<5xi32>\n"
        "  %a = stablehlo.abs %r#0 : tensor<7x13xf32>\n"
        "  return %r#0, %r#1, %a : tensor<7x13xf32>, tensor<5xi32>, tensor<7x13xf32>\n}\n",
        in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Constant folding stops at the barrier: a multiply of a constant by
 * itself folds without it, and with the constant behind a barrier the
 * multiply stays (the barrier's result is not a constant to the passes),
 * as does the barrier. The runtime still computes 1.5 * 1.5 = 2.25. */
static void test_barrier_blocks_folding(void **state)
{
    (void)state;
    ir_module *plain = optimized(
        "func.func @main() -> tensor<f32> {\n"
        "  %c = stablehlo.constant dense<1.5> : tensor<f32>\n"
        "  %m = stablehlo.multiply %c, %c : tensor<f32>\n"
        "  return %m : tensor<f32>\n}\n");
    assert_int_equal(count_ops(plain, PLUMB_OP_MULTIPLY), 0);
    ir_module_free(plain);
    const char *src =
        "func.func @main() -> tensor<f32> {\n"
        "  %c = stablehlo.constant dense<1.5> : tensor<f32>\n"
        "  %b = stablehlo.optimization_barrier %c : tensor<f32>\n"
        "  %m = stablehlo.multiply %b, %b : tensor<f32>\n"
        "  return %m : tensor<f32>\n}\n";
    ir_module *m = optimized(src);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_OPTIMIZATION_BARRIER), 1);
    ir_module_free(m);

    ir_module *p = rt_parse(src);
    plumb_tensor *got[RT_MAX_OUT];
    rt_exec_on(p, PLUMB_ISA_PORTABLE, 1, NULL, 0, got, 1);
    assert_int_equal(plumb_load_bits(PLUMB_F32, got[0]->data, 0), 0x40100000u);   /* 2.25f */
    rt_outs_free(got, 1);
    ir_module_free(p);
}

/* Two identical barriers are not merged by CSE: each is its own ordering
 * point (both stay in the optimized program). */
static void test_barrier_not_cse(void **state)
{
    (void)state;
    ir_module *m = optimized(
        "func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
        "  %a = stablehlo.optimization_barrier %x : tensor<4xf32>\n"
        "  %b = stablehlo.optimization_barrier %x : tensor<4xf32>\n"
        "  return %a, %b : tensor<4xf32>, tensor<4xf32>\n}\n");
    assert_int_equal(count_ops(m, PLUMB_OP_OPTIMIZATION_BARRIER), 2);
    ir_module_free(m);
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    (void)rt_ty;   /* a helper of rt_test.h these tests do not need */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_matches_reference),
        cmocka_unit_test(test_barrier_blocks_folding),
        cmocka_unit_test(test_barrier_not_cse),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
