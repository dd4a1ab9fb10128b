/* The agreement checker against hand-built backend outputs: a correct
 * backend passes, and each planted fault is caught with the right reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../conformance/conf.h"
#include "plumb/ref.h"
#include "plumb/checkcmp.h"

static plumb_ref_result ref_outputs(const conf_case *c)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(c->program, strlen(c->program), c->id, NULL, &d);
    assert_non_null(m);
    plumb_ref_result r;
    memset(&r, 0, sizeof r);
    assert_true(plumb_ref_run(m, NULL, c->inputs, c->n_inputs, NULL, &r, &d));
    ir_module_free(m);
    return r;
}

static conf_check_opts ieee_opts(void)
{
    conf_check_opts o;
    memset(&o, 0, sizeof o);
    o.preserves_nan_payload = true;
    o.accum[PLUMB_F16] = PLUMB_F32;
    o.accum[PLUMB_BF16] = PLUMB_F32;
    o.accum[PLUMB_F32] = PLUMB_F32;
    o.accum[PLUMB_F64] = PLUMB_F64;
    return o;
}

static conf_result check(const conf_case *c, plumb_tensor *const *got, uint32_t n, const conf_check_opts *o)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_result r;
    bool ok = conf_check_case(c, got, n, o, &r, &d);
    if (!ok) fprintf(stderr, "%s: %s\n", c->id, d.msg);
    assert_true(ok);
    return r;
}

/* Finds the case with this id in op's quick suite (seed 1). */
static const conf_case *find(conf_cases *cs, plumb_opcode op, const char *id)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(conf_generate(op, CONF_SUITE_QUICK, 1, 0, 1, cs, &d));
    for (uint32_t i = 0; i < cs->n; i++)
        if (!strcmp(cs->v[i].id, id)) return &cs->v[i];
    fprintf(stderr, "no case %s\n", id);
    fail();
    return NULL;
}

/* The reference's own outputs pass every quick case of every op with budget 0. */
static void test_reference_outputs_pass(void **state)
{
    (void)state;
    conf_check_opts o = ieee_opts();
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        conf_cases cs;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_true(conf_generate((plumb_opcode)op, CONF_SUITE_QUICK, 5, 0, 7, &cs, &d)); /* a seventh of each */
        for (uint32_t i = 0; i < cs.n; i++) {
            plumb_ref_result want = ref_outputs(&cs.v[i]);
            conf_result r = check(&cs.v[i], want.outputs, want.n_outputs, &o);
            if (!r.pass) fprintf(stderr, "%s: %s\n", cs.v[i].id, r.reason);
            assert_true(r.pass);
            assert_true(r.budget_used == 0.0);
            plumb_ref_result_free(&want);
        }
        conf_cases_free(&cs);
    }
}

/* exp off by 2 ULP on one input fails naming the element, 2 ulp and bound 1; off by 1 passes at budget 1. */
static void test_exp_two_ulp(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_EXPONENTIAL, "exponential/f32/odd/normal/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    plumb_tensor *g = want.outputs[0];
    uint64_t b = plumb_load_bits(PLUMB_F32, g->data, 17);
    plumb_store_bits(PLUMB_F32, g->data, 17, b + 1);
    conf_result r = check(c, want.outputs, 1, &o);
    assert_true(r.pass);
    assert_true(r.budget_used == 1.0);
    plumb_store_bits(PLUMB_F32, g->data, 17, b + 2);
    r = check(c, want.outputs, 1, &o);
    assert_false(r.pass);
    assert_true(r.budget_used == 2.0);
    assert_int_equal(r.worst_index, 17);
    assert_non_null(strstr(r.reason, "element 17"));
    assert_non_null(strstr(r.reason, "error 2 ulp, bound 1 ulp"));
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* Flushing subnormal results fails unless flush-to-zero is declared. */
static void test_undeclared_flush(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_ADD, "add/f32/odd/subnormal/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    plumb_tensor *g = want.outputs[0];
    uint32_t flushed = 0;
    for (uint64_t i = 0; i < plumb_tensor_numel(g); i++) {
        uint64_t b = plumb_load_bits(PLUMB_F32, g->data, i);
        if ((b & 0x7F800000u) == 0 && (b & 0x007FFFFFu)) { plumb_store_bits(PLUMB_F32, g->data, i, b & 0x80000000u); flushed++; }
    }
    assert_true(flushed > 0);
    conf_result r = check(c, want.outputs, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "subnormal"));
    o.flushes_subnormals = true;
    r = check(c, want.outputs, 1, &o);
    if (!r.pass) fprintf(stderr, "%s\n", r.reason);
    assert_true(r.pass);
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* Sums of f16 data: accumulating in f32 and rounding once passes; accumulating in f16 while declaring f32 fails. */
static void test_f16_accumulation(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_REDUCE, "reduce/f16/wide/normal/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    const plumb_tensor *x = c->inputs[0];
    plumb_tensor *g = plumb_tensor_clone(want.outputs[0], NULL);
    for (int64_t row = 0; row < x->dims[0]; row++) {
        float s32 = 0;
        for (int64_t j = 0; j < x->dims[1]; j++) s32 += plumb_f16_to_f32((uint16_t)plumb_load_bits(PLUMB_F16, x->data, (size_t)(row * x->dims[1] + j)));
        plumb_store_bits(PLUMB_F16, g->data, (size_t)row, plumb_f32_to_f16(s32));
    }
    conf_result r = check(c, &g, 1, &o);
    if (!r.pass) fprintf(stderr, "%s\n", r.reason);
    assert_true(r.pass);
    for (int64_t row = 0; row < x->dims[0]; row++) {
        uint16_t s16 = 0;
        for (int64_t j = 0; j < x->dims[1]; j++) {
            double v = plumb_f16_to_f64((uint16_t)plumb_load_bits(PLUMB_F16, x->data, (size_t)(row * x->dims[1] + j)));
            s16 = plumb_f64_to_f16(plumb_f16_to_f64(s16) + v);
        }
        plumb_store_bits(PLUMB_F16, g->data, (size_t)row, s16);
    }
    r = check(c, &g, 1, &o);
    assert_false(r.pass);
    assert_true(r.budget_used > 1.0);
    assert_non_null(strstr(r.reason, "Σ|x|"));
    plumb_tensor_free(g);
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* Errors each within the per-element bound but all of one sign fail the TOSA-style statistics. */
static void test_statistics_catch_biased_errors(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_DOT_GENERAL, "dot_general/f32/odd/normal/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    /* Σ|a_i·b_i| per element, computed here in double from the inputs */
    const plumb_tensor *a = c->inputs[0], *b = c->inputs[1];
    plumb_tensor *g = want.outputs[0];
    double u = ldexp(1.0, -24);
    for (int64_t i = 0; i < 7; i++)
        for (int64_t j = 0; j < 5; j++) {
            double s = 0;
            for (int64_t k = 0; k < 13; k++)
                s += fabs(plumb_load_f64(PLUMB_F32, a->data, (size_t)(i * 13 + k)) * plumb_load_f64(PLUMB_F32, b->data, (size_t)(k * 5 + j)));
            double w = plumb_load_f64(PLUMB_F32, g->data, (size_t)(i * 5 + j));
            double bound = conf_gamma(13, u) * s + u * fabs(w);
            float biased = (float)(w + 0.8 * bound);
            if (fabs((double)biased - w) > bound) biased = (float)w;
            plumb_store_bits(PLUMB_F32, g->data, (size_t)(i * 5 + j), plumb_f32_bits(biased));
        }
    conf_result r = check(c, want.outputs, 1, &o);
    assert_false(r.pass);
    assert_true(r.mse_per_bound > CONF_STAT_MSE_FACTOR);
    assert_non_null(strstr(r.reason, "TOSA-style statistic"));
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* A broadcast taken along the wrong dimension fails the exact class naming the first wrong element. */
static void test_broadcast_mishandled(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_ADD, "add/f32/broadcast/normal/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    plumb_tensor *g = want.outputs[0];
    /* x + y broadcast along rows: use y[row] instead of y[col] */
    const plumb_tensor *x = c->inputs[0], *y = c->inputs[1];
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 13; j++) {
            float v = (float)plumb_load_f64(PLUMB_F32, x->data, i * 13 + j) + (float)plumb_load_f64(PLUMB_F32, y->data, i);
            plumb_store_bits(PLUMB_F32, g->data, i * 13 + j, plumb_f32_bits(v));
        }
    conf_result r = check(c, want.outputs, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "exact class"));
    assert_non_null(strstr(r.reason, "output 0 element"));
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* Output of the wrong shape (a stale executable) and a missing output fail with both types named. */
static void test_wrong_shape_and_count(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_NEGATE, "negate/f32/odd/normal/0");
    conf_check_opts o = ieee_opts();
    int64_t dims[2] = {7, 12};
    plumb_tensor *g = plumb_tensor_new(PLUMB_F32, 2, dims, 0, NULL);
    conf_result r = check(c, &g, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "got tensor<7x12xf32>, want tensor<7x13xf32>"));
    r = check(c, NULL, 0, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "returned 0 outputs"));
    plumb_tensor_free(g);
    conf_cases_free(&cs);
}

/* NaN payloads: data movement must keep them unless the backend declared otherwise; arithmetic need not. */
static void test_nan_payloads(void **state)
{
    (void)state;
    conf_cases cs;
    const conf_case *c = find(&cs, PLUMB_OP_TRANSPOSE, "transpose/f32/odd/special/0");
    conf_check_opts o = ieee_opts();
    plumb_ref_result want = ref_outputs(c);
    plumb_tensor *g = want.outputs[0];
    uint32_t changed = 0;
    for (uint64_t i = 0; i < plumb_tensor_numel(g); i++) {
        uint64_t b = plumb_load_bits(PLUMB_F32, g->data, i);
        if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) && b != 0x7FC00000u) { plumb_store_bits(PLUMB_F32, g->data, i, 0x7FC00000u); changed++; }
    }
    assert_true(changed > 0);
    conf_result r = check(c, want.outputs, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "NaN payload"));
    o.preserves_nan_payload = false;
    r = check(c, want.outputs, 1, &o);
    assert_true(r.pass);
    plumb_ref_result_free(&want);
    conf_cases_free(&cs);
}

/* γ(k), unit roundoff and ULP distance against hand-derived values. */
static void test_helpers(void **state)
{
    (void)state;
    assert_true(conf_unit_roundoff(PLUMB_F32) == ldexp(1.0, -24));
    assert_true(conf_unit_roundoff(PLUMB_BF16) == ldexp(1.0, -8));
    assert_true(conf_unit_roundoff(PLUMB_F16) == ldexp(1.0, -11));
    double u = ldexp(1.0, -24);
    assert_true(conf_gamma(3, u) == 3 * u / (1 - 3 * u));
    assert_true(isinf(conf_gamma(1u << 24, u)));
    assert_int_equal(plumb_ulp_distance(PLUMB_F32, 0x3F800000u, 0x3F800002u), 2);
    assert_int_equal(plumb_ulp_distance(PLUMB_F32, 0x00000001u, 0x80000001u), 2); /* across zero */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_reference_outputs_pass),
        cmocka_unit_test(test_exp_two_ulp),
        cmocka_unit_test(test_undeclared_flush),
        cmocka_unit_test(test_f16_accumulation),
        cmocka_unit_test(test_statistics_catch_biased_errors),
        cmocka_unit_test(test_broadcast_mishandled),
        cmocka_unit_test(test_wrong_shape_and_count),
        cmocka_unit_test(test_nan_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
