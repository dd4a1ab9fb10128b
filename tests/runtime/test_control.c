/* Control-flow ops on the compiled runtime (runtime/k_control.c): results
 * bitwise equal to the reference's at every ISA level and thread count,
 * what the graph passes may not do across an optimization_barrier, a while
 * compiled once for every trip count, a loop stopped at the timeout, and
 * if and case taking each branch. */
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

/* A loop of n iterations (n an input) accumulating h = x * x, a value it
 * captures from the function, into acc; i counts the iterations. */
static const char *const loop_src =
    "func.func @main(%x: tensor<7x13xf32>, %n: tensor<i32>) -> (tensor<i32>, tensor<7x13xf32>) {\n"
    "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %h = stablehlo.multiply %x, %x : tensor<7x13xf32>\n"
    "  %r:2 = stablehlo.while(%i = %z, %acc = %x) : tensor<i32>, tensor<7x13xf32>\n"
    "  cond {\n"
    "    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "    stablehlo.return %c : tensor<i1>\n"
    "  } do {\n"
    "    %i1 = stablehlo.add %i, %one : tensor<i32>\n"
    "    %a1 = stablehlo.add %acc, %h : tensor<7x13xf32>\n"
    "    stablehlo.return %i1, %a1 : tensor<i32>, tensor<7x13xf32>\n"
    "  }\n"
    "  return %r#0, %r#1 : tensor<i32>, tensor<7x13xf32>\n}\n";

/* The while loop on the runtime equals the reference bitwise for 0, 1 and
 * 5 iterations, special values included, at every ISA and thread count;
 * the same loop subtracting instead of adding (same types, another body)
 * is its own program in the runtimes' caches, so its results are its own. */
static void test_while_matches_reference(void **state)
{
    (void)state;
    int64_t d[2] = {7, 13};
    static const int32_t trips[3] = {0, 1, 5};
    char sub[2048];
    snprintf(sub, sizeof sub, "%s", loop_src);
    char *at = strstr(sub, "%a1 = stablehlo.add");
    assert_non_null(at);
    memcpy(at, "%a1 = stablehlo.sub", 19);
    char full[2100];
    snprintf(full, sizeof full, "%.*stract%s", (int)(at + 19 - sub), sub, at + 19);
    for (int k = 0; k < 3; k++) {
        plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, d, true), rt_scalar_bits(PLUMB_I32, (uint32_t)trips[k])};
        rt_check_exact(loop_src, in, 2);
        rt_check_exact(full, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* One compile serves every trip count: runs with n = 0, 1, 3 and 100 build
 * the program once (the trip count is data, not part of the cache key),
 * and i comes back as n each time. */
static void test_while_compiles_once(void **state)
{
    (void)state;
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    ir_module *m = rt_parse(loop_src);
    int64_t dims[2] = {7, 13};
    static const int32_t trips[4] = {0, 1, 3, 100};
    for (int k = 0; k < 4; k++) {
        plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, dims, false), rt_scalar_bits(PLUMB_I32, (uint32_t)trips[k])};
        plumb_tensor *out[2] = {NULL, NULL};
        bool ok = plumb_runtime_run(rt, m, NULL, in, 2, out, 2, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        assert_int_equal((int32_t)plumb_load_bits(PLUMB_I32, out[0]->data, 0), trips[k]);
        plumb_tensor_free(out[0]);
        plumb_tensor_free(out[1]);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
    plumb_runtime_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* A loop that never ends stops at the runtime's timeout, naming the while
 * (its line) and the iteration. */
static void test_while_timeout(void **state)
{
    (void)state;
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.timeout_s = 0.2;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    ir_module *m = rt_parse(
        "func.func @main() -> tensor<i64> {\n"
        "  %z = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
        "  %r = stablehlo.while(%i = %z) : tensor<i64>\n"
        "  cond {\n"
        "    %t = stablehlo.constant dense<true> : tensor<i1>\n"
        "    stablehlo.return %t : tensor<i1>\n"
        "  } do {\n"
        "    %i1 = stablehlo.add %i, %one : tensor<i64>\n"
        "    stablehlo.return %i1 : tensor<i64>\n"
        "  }\n"
        "  return %r : tensor<i64>\n}\n");
    plumb_tensor *out[1] = {NULL};
    assert_false(plumb_runtime_run(rt, m, NULL, NULL, 0, out, 1, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_RUNTIME);
    assert_non_null(strstr(d.msg, "timeout"));
    assert_non_null(strstr(d.msg, "of the stablehlo.while at line 4"));
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* if and case on the runtime equal the reference bitwise for every branch
 * and for case indices out of range (-1, 3: the last branch), the branches
 * reading x from the function and computing on it. */
static void test_if_case_match_reference(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<7x13xf32>, %p: tensor<i1>, %k: tensor<i32>) -> (tensor<7x13xf32>, tensor<7x13xf32>) {\n"
        "  %r = \"stablehlo.if\"(%p) ({\n"
        "    %n = stablehlo.negate %x : tensor<7x13xf32>\n"
        "    stablehlo.return %n : tensor<7x13xf32>\n"
        "  }, {\n"
        "    %s = stablehlo.add %x, %x : tensor<7x13xf32>\n"
        "    stablehlo.return %s : tensor<7x13xf32>\n"
        "  }) : (tensor<i1>) -> tensor<7x13xf32>\n"
        "  %c = \"stablehlo.case\"(%k) ({\n"
        "    stablehlo.return %x : tensor<7x13xf32>\n"
        "  }, {\n"
        "    %m = stablehlo.multiply %x, %x : tensor<7x13xf32>\n"
        "    stablehlo.return %m : tensor<7x13xf32>\n"
        "  }, {\n"
        "    %a = stablehlo.abs %x : tensor<7x13xf32>\n"
        "    stablehlo.return %a : tensor<7x13xf32>\n"
        "  }) : (tensor<i32>) -> tensor<7x13xf32>\n"
        "  return %r, %c : tensor<7x13xf32>, tensor<7x13xf32>\n}\n";
    int64_t d[2] = {7, 13};
    static const int32_t ks[5] = {0, 1, 2, -1, 3};
    for (int k = 0; k < 5; k++) {
        plumb_tensor *in[3] = {rt_rand_tensor(PLUMB_F32, 2, d, true), rt_scalar_bits(PLUMB_I1, (uint64_t)(k & 1)),
                               rt_scalar_bits(PLUMB_I32, (uint32_t)ks[k])};
        rt_check_exact(src, in, 3);
        for (int i = 0; i < 3; i++)
            plumb_tensor_free(in[i]);
    }
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
        cmocka_unit_test(test_while_matches_reference),
        cmocka_unit_test(test_while_compiles_once),
        cmocka_unit_test(test_while_timeout),
        cmocka_unit_test(test_if_case_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
