/* batch_norm_inference, _training and _grad on the compiled runtime
 * (runtime/k_batchnorm.c) against the reference, judged by the
 * certification checker's bound (conformance/check_batchnorm.c,
 * docs/spec/batchnorm.md): every case of the full and quick conformance
 * suites (ranks 2-4, every feature_index, f16/bf16/f32/f64, normal,
 * shifted and constant features, three epsilons) at every ISA level the CPU
 * has and at 1, 2 and 4 threads, all of which must give the same bits; the
 * suites hold the manifest's counts; and the bound itself rejects the
 * unbiased variance and an ignored epsilon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "../../conformance/conf.h"
#include "../../conformance/batchnorm_bound.h"

static void run_suite(plumb_opcode op, conf_suite suite)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_cases cs;
    bool ok = conf_generate(op, suite, 20261126, 0, 1, &cs, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(cs.n, conf_manifest_count(op, suite));
    uint32_t nout = op == PLUMB_OP_BATCH_NORM_INFERENCE ? 1 : 3;
    static const uint32_t threads[] = {1, 2, 4};
    for (uint32_t i = 0; i < cs.n; i++) {
        const conf_case *c = &cs.v[i];
        ir_module *m = rt_parse(c->program);
        plumb_tensor *first[3] = {NULL, NULL, NULL};
        rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, c->inputs, c->n_inputs, first, nout);
        for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
            for (uint32_t k = 0; k < 3; k++) {
                if (isa == PLUMB_ISA_PORTABLE && threads[k] == 1) continue;
                plumb_tensor *o[3] = {NULL, NULL, NULL};
                rt_exec_on(m, (plumb_isa)isa, threads[k], c->inputs, c->n_inputs, o, nout);
                for (uint32_t j = 0; j < nout; j++) {
                    if (!rt_equal(first[j], o[j], false))
                        fprintf(stderr, "%s: output %u differs at isa %d, %u threads\n", c->id, j, isa, threads[k]);
                    assert_true(rt_equal(first[j], o[j], false));
                }
                rt_outs_free(o, nout);
            }
        conf_result r;
        ok = conf_check_case(c, first, nout, NULL, &r, &d);
        if (!ok) plumb_diag_print(&d, stderr);
        assert_true(ok);
        if (!r.pass) fprintf(stderr, "%s: %s\n", c->id, r.reason);
        assert_true(r.pass);
        rt_outs_free(first, nout);
        ir_module_free(m);
    }
    conf_cases_free(&cs);
}

/* Every batch_norm_inference case of both suites is within its bound. */
static void test_inference_suites(void **state)
{
    (void)state;
    run_suite(PLUMB_OP_BATCH_NORM_INFERENCE, CONF_SUITE_FULL);
    run_suite(PLUMB_OP_BATCH_NORM_INFERENCE, CONF_SUITE_QUICK);
}

/* Every batch_norm_training case of both suites is within its bound. */
static void test_training_suites(void **state)
{
    (void)state;
    run_suite(PLUMB_OP_BATCH_NORM_TRAINING, CONF_SUITE_FULL);
    run_suite(PLUMB_OP_BATCH_NORM_TRAINING, CONF_SUITE_QUICK);
}

/* Every batch_norm_grad case of both suites is within its bound. */
static void test_grad_suites(void **state)
{
    (void)state;
    run_suite(PLUMB_OP_BATCH_NORM_GRAD, CONF_SUITE_FULL);
    run_suite(PLUMB_OP_BATCH_NORM_GRAD, CONF_SUITE_QUICK);
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

/* The bound rejects wrong statistics: one feature [1, 3, 3, 1] (mean 2,
 * biased variance 1; N = 4, so Ev is about gamma(7)(1 + Em^2) = 2^-21):
 * the unbiased 4/3 fails, one ulp of 1 (2^-23) passes, the reference's own
 * value uses none of it. Ignoring eps = 1: the output (x - 2)/sqrt(2) =
 * -0.7071 reported as (x - 2)/1 = -1 fails. */
static void test_bound_rejects(void **state)
{
    (void)state;
    int64_t dx[2] = {4, 1}, d1[1] = {1};
    float x[4] = {1, 3, 3, 1}, one[1] = {1}, zero[1] = {0}, unb[1] = {4.0f / 3.0f}, ulp[1] = {1 + 0x1p-23f};
    plumb_tensor *X = f32_tensor(2, dx, x), *S = f32_tensor(1, d1, one), *O = f32_tensor(1, d1, zero);
    plumb_tensor *W = f32_tensor(1, d1, one), *U = f32_tensor(1, d1, unb), *L = f32_tensor(1, d1, ulp);
    const plumb_tensor *in[3] = {X, S, O};
    conf_bn_verdict v;
    conf_bn_judge(PLUMB_OP_BATCH_NORM_TRAINING, 0.0, 1, in, 2, U, W, &v);
    assert_true(v.budget > 1.0);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_TRAINING, 0.0, 1, in, 2, L, W, &v);
    assert_true(v.budget <= 1.0);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_TRAINING, 0.0, 1, in, 2, W, W, &v);
    assert_true(v.budget == 0.0);
    float yw[4], yg[4];
    for (int i = 0; i < 4; i++) {
        yw[i] = (float)((x[i] - 2.0L) / sqrtl(2.0L));
        yg[i] = x[i] - 2.0f;
    }
    plumb_tensor *YW = f32_tensor(2, dx, yw), *YG = f32_tensor(2, dx, yg);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_TRAINING, 1.0, 1, in, 0, YG, YW, &v);
    assert_true(v.budget > 1.0);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_TRAINING, 1.0, 1, in, 0, YW, YW, &v);
    assert_true(v.budget == 0.0);
    plumb_tensor *all[] = {X, S, O, W, U, L, YW, YG};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) plumb_tensor_free(all[i]);
}

static int teardown(void **state)
{
    (void)state;
    (void)rt_ty;            /* rt_test.h helpers these tests do not need */
    (void)rt_rand_tensor;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inference_suites),
        cmocka_unit_test(test_training_suites),
        cmocka_unit_test(test_grad_suites),
        cmocka_unit_test(test_bound_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
