/* triangular_solve and cholesky on the compiled runtime (runtime/k_linalg.c)
 * against the reference, judged by the certification checker's bounds
 * (conformance/check_linalg.c, docs/spec/linalg.md): every case of the full
 * conformance suite (each attribute form, batch dims, empty and 1x1, well-
 * and ill-conditioned, not positive definite, all four float types) at one
 * and four threads; the suites hold the manifest's counts; the bounds
 * themselves reject a result off by more than they allow; results do not
 * depend on the thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "../../conformance/conf.h"
#include "../../conformance/linalg_bound.h"

/* Runs every case of op's suite on the runtime (threads 1 and 4, the same
 * bits) and checks it with conf_check_case. */
static void run_suite(plumb_opcode op, conf_suite suite)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_cases cs;
    bool ok = conf_generate(op, suite, 20261126, 0, 1, &cs, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(cs.n, conf_manifest_count(op, suite));
    for (uint32_t i = 0; i < cs.n; i++) {
        const conf_case *c = &cs.v[i];
        ir_module *m = rt_parse(c->program);
        plumb_tensor *o1[1] = {NULL}, *o4[1] = {NULL};
        rt_exec_on(m, rt_hw_isa(), 1, c->inputs, c->n_inputs, o1, 1);
        rt_exec_on(m, rt_hw_isa(), 4, c->inputs, c->n_inputs, o4, 1);
        assert_true(rt_equal(o1[0], o4[0], false));
        conf_result r;
        ok = conf_check_case(c, o1, 1, NULL, &r, &d);
        if (!ok) plumb_diag_print(&d, stderr);
        assert_true(ok);
        if (!r.pass) fprintf(stderr, "%s: %s\n", c->id, r.reason);
        assert_true(r.pass);
        rt_outs_free(o1, 1);
        rt_outs_free(o4, 1);
        ir_module_free(m);
    }
    conf_cases_free(&cs);
}

/* Every full-suite triangular_solve case is within its bound. */
static void test_trsm_full_suite(void **state)
{
    (void)state;
    run_suite(PLUMB_OP_TRIANGULAR_SOLVE, CONF_SUITE_FULL);
    run_suite(PLUMB_OP_TRIANGULAR_SOLVE, CONF_SUITE_QUICK);
}

/* Every full-suite cholesky case is within its bound. */
static void test_cholesky_full_suite(void **state)
{
    (void)state;
    run_suite(PLUMB_OP_CHOLESKY, CONF_SUITE_FULL);
    run_suite(PLUMB_OP_CHOLESKY, CONF_SUITE_QUICK);
}

static plumb_tensor *f32_tensor(uint32_t rank, const int64_t *dims, const float *v)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, rank, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, v, t->nbytes);
    return t;
}

/* The triangular_solve bound fails a wrong answer: for L = [[1,0],[1,1]],
 * b = [1,2], x = [1,1]; a result off by 2^-10 in x1 is far outside
 * (gamma(2) + u) (M(L)^-1 |L| |x|) (about 2^-21 here), one ulp (2^-23) inside. */
static void test_trsm_bound_rejects(void **state)
{
    (void)state;
    int64_t da[2] = {2, 2}, db[2] = {2, 1};
    float a[4] = {1, 0, 1, 1}, b[2] = {1, 2}, want[2] = {1, 1}, off[2] = {1, 1 + 0x1p-10f}, ulp[2] = {1, 1 + 0x1p-23f};
    plumb_tensor *A = f32_tensor(2, da, a), *B = f32_tensor(2, db, b), *W = f32_tensor(2, db, want),
                 *G = f32_tensor(2, db, off), *U = f32_tensor(2, db, ulp);
    ir_attrs at;
    memset(&at, 0, sizeof at);
    at.left_side = true;
    at.lower = true;
    conf_linalg_verdict v;
    conf_linalg_trsm_judge(&at, A, B, G, W, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 1);
    conf_linalg_trsm_judge(&at, A, B, U, W, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_trsm_judge(&at, A, B, W, W, &v);
    assert_true(v.budget == 0.0);
    plumb_tensor_free(A);
    plumb_tensor_free(B);
    plumb_tensor_free(W);
    plumb_tensor_free(G);
    plumb_tensor_free(U);
}

/* The cholesky residual bound fails a wrong factor: for A = [[4,2],[2,5]]
 * the factor [[2,0],[1,2]] has residual 0; [[2,0],[1,2.01]] leaves 0.04 at
 * (1,1), far above (gamma(3) + 2u)(|L||L^T|)_11 = about 2^-20 * 5; a
 * negative diagonal fails though its product is exact; the unjudged upper
 * triangle may hold anything. */
static void test_chol_bound_rejects(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2};
    float a[4] = {4, 2, 2, 5}, good[4] = {2, 7, 1, 2}, bad[4] = {2, 0, 1, 2.01f}, neg[4] = {-2, 0, -1, 2};
    plumb_tensor *A = f32_tensor(2, d2, a), *G = f32_tensor(2, d2, good), *B = f32_tensor(2, d2, bad),
                 *N = f32_tensor(2, d2, neg);
    conf_linalg_verdict v;
    conf_linalg_chol_judge(true, A, G, G, &v);
    assert_true(v.budget == 0.0);
    conf_linalg_chol_judge(true, A, B, G, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 3);
    conf_linalg_chol_judge(true, A, N, G, &v);
    assert_true(v.budget > 1.0);
    plumb_tensor_free(A);
    plumb_tensor_free(G);
    plumb_tensor_free(B);
    plumb_tensor_free(N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trsm_full_suite),
        cmocka_unit_test(test_cholesky_full_suite),
        cmocka_unit_test(test_trsm_bound_rejects),
        cmocka_unit_test(test_chol_bound_rejects),
    };
    (void)rt_ty;            /* rt_test.h helpers these tests do not need */
    (void)rt_rand_tensor;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
