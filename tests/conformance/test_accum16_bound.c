/* The data bound of a dot whose backend declares a 16-bit accumulator
 * (bf16 or f16) at K >= 1/u, where γ(K) = K·u/(1 − K·u) is void: the
 * checker bounds the error by K·u·Σ|a·b| there (Rump 2012, Jeannerod and
 * Rump 2013: rounding to nearest, any order, no restriction on K;
 * docs/certify.md). Before, the bound was NaN and such a backend failed
 * every result that was not bit-exact. Expected values are derived by hand
 * below, or computed here by summing in the 16-bit type step by step. */
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

/* an IEEE backend that declares the 16-bit types as their own accumulators */
static conf_check_opts acc16_opts(void)
{
    conf_check_opts o;
    memset(&o, 0, sizeof o);
    o.preserves_nan_payload = true;
    o.accum[PLUMB_F16] = PLUMB_F16;
    o.accum[PLUMB_BF16] = PLUMB_BF16;
    o.accum[PLUMB_F32] = PLUMB_F32;
    o.accum[PLUMB_F64] = PLUMB_F64;
    return o;
}

static uint64_t bits16(plumb_dtype t, double v)
{
    return t == PLUMB_F16 ? plumb_f64_to_f16(v) : plumb_f64_to_bf16(v);
}

static double val16(plumb_dtype t, uint64_t b)
{
    uint8_t buf[2];
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* A dot_general of two K-vectors of ones to a scalar. */
typedef struct ones_dot {
    conf_case c;
    plumb_tensor *in[2];
    char prog[1024];
} ones_dot;

static void ones_dot_init(ones_dot *h, plumb_dtype t, int64_t k)
{
    memset(h, 0, sizeof *h);
    const char *tn = plumb_dtype_name(t);
    snprintf(h->prog, sizeof h->prog,
             "func.func @main(%%x: tensor<%lldx%s>, %%y: tensor<%lldx%s>) -> (tensor<%s>) {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [0] x [0] : "
             "(tensor<%lldx%s>, tensor<%lldx%s>) -> tensor<%s>\n  return %%r : tensor<%s>\n}\n",
             (long long)k, tn, (long long)k, tn, tn, (long long)k, tn, (long long)k, tn, tn, tn);
    for (int i = 0; i < 2; i++) {
        h->in[i] = plumb_tensor_new(t, 1, &k, 0, NULL);
        assert_non_null(h->in[i]);
        for (int64_t j = 0; j < k; j++) plumb_store_bits(t, h->in[i]->data, (size_t)j, bits16(t, 1.0));
    }
    snprintf(h->c.id, sizeof h->c.id, "dot_general/%s/hand/boundary/0", tn);
    h->c.op = PLUMB_OP_DOT_GENERAL;
    h->c.dtype = t;
    h->c.shape_class = "hand";
    h->c.value_class = "boundary";
    h->c.program = h->prog;
    h->c.inputs = h->in;
    h->c.n_inputs = 2;
}

static conf_result check_scalar(const ones_dot *h, double got)
{
    plumb_tensor *g = plumb_tensor_new(h->c.dtype, 0, NULL, 0, NULL);
    assert_non_null(g);
    plumb_store_bits(h->c.dtype, g->data, 0, bits16(h->c.dtype, got));
    conf_check_opts o = acc16_opts();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_result r;
    assert_true(conf_check_case(&h->c, &g, 1, &o, &r, &d));
    plumb_tensor_free(g);
    return r;
}

/* Σ 1·1 over K terms summed left to right in the 16-bit type (products of
 * ones are exact): the partial sums are exact integers up to 2^p (p = 8
 * for bf16, 11 for f16), then 2^p + 1 is a tie rounded to the even 2^p, so
 * the sum sticks at 2^p. Checked here by stepping through the sum. */
static double sum_in_type(plumb_dtype t, int64_t k)
{
    uint64_t s = bits16(t, 0.0);
    for (int64_t i = 0; i < k; i++) s = bits16(t, val16(t, s) + 1.0);
    return val16(t, s);
}

/* bf16, K = 512: the bf16 sum is 256 (error 256 = 2^p, p = 8), exact 512;
 * the bound K·u·Σ|a·b| + u·|want| = 512·2^-8·512 + 2 = 1026 (γ(512) at
 * u = 2^-8 is void). 256 is accepted; 2048 (error 1536) is rejected. */
static void test_bf16_k512(void **state)
{
    (void)state;
    ones_dot h;
    ones_dot_init(&h, PLUMB_BF16, 512);
    assert_true(sum_in_type(PLUMB_BF16, 512) == 256.0);
    conf_result r = check_scalar(&h, 512.0);
    assert_true(r.pass);
    r = check_scalar(&h, 256.0);
    if (!r.pass) fprintf(stderr, "bf16 256: %s\n", r.reason);
    assert_true(r.pass);
    assert_true(r.budget_used > 0.2 && r.budget_used < 0.3); /* 256 / 1026 */
    r = check_scalar(&h, 2048.0);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "bound"));
    assert_null(strstr(r.reason, "nan"));
    plumb_tensor_free(h.in[0]);
    plumb_tensor_free(h.in[1]);
}

/* f16, K = 4096: the f16 sum is 2048, exact 4096; the bound is
 * 4096·2^-11·4096 + 2^-11·4096 = 8194 (γ(4096) at u = 2^-11 is void).
 * 2048 is accepted; 16384 (error 12288) is rejected. */
static void test_f16_k4096(void **state)
{
    (void)state;
    ones_dot h;
    ones_dot_init(&h, PLUMB_F16, 4096);
    assert_true(sum_in_type(PLUMB_F16, 4096) == 2048.0);
    conf_result r = check_scalar(&h, 2048.0);
    if (!r.pass) fprintf(stderr, "f16 2048: %s\n", r.reason);
    assert_true(r.pass);
    r = check_scalar(&h, 16384.0);
    assert_false(r.pass);
    assert_null(strstr(r.reason, "nan"));
    plumb_tensor_free(h.in[0]);
    plumb_tensor_free(h.in[1]);
}

/* The quick suite's dot_general/bf16/blocked case (131x300 . 300x67, K =
 * 300 >= 256): each element computed as a bf16 accumulator does (every
 * product rounded to bf16, added left to right in bf16) differs from the
 * correctly rounded result in most elements and is accepted; the same
 * result with one element moved by twice its bound is rejected. */
static void test_bf16_blocked_case(void **state)
{
    (void)state;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_cases cs;
    assert_true(conf_generate(PLUMB_OP_DOT_GENERAL, CONF_SUITE_QUICK, 1, 0, 1, &cs, &d));
    const conf_case *c = NULL;
    for (uint32_t i = 0; i < cs.n && !c; i++)
        if (!strncmp(cs.v[i].id, "dot_general/bf16/blocked/", 25)) c = &cs.v[i];
    assert_non_null(c);
    const plumb_tensor *a = c->inputs[0], *b = c->inputs[1];
    assert_int_equal(a->dims[1], 300);
    int64_t m = a->dims[0], k = a->dims[1], n = b->dims[1], od[2] = {m, n};
    plumb_tensor *g = plumb_tensor_new(PLUMB_BF16, 2, od, 0, NULL);
    assert_non_null(g);
    double sabs0 = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t s = plumb_f64_to_bf16(0.0);
            double sabs = 0;
            for (int64_t q = 0; q < k; q++) {
                double x = plumb_load_f64(PLUMB_BF16, a->data, (size_t)(i * k + q));
                double y = plumb_load_f64(PLUMB_BF16, b->data, (size_t)(q * n + j));
                double p = val16(PLUMB_BF16, plumb_f64_to_bf16(x * y));
                s = plumb_f64_to_bf16(val16(PLUMB_BF16, s) + p);
                sabs += fabs(x * y);
            }
            if (i == 0 && j == 0) sabs0 = sabs;
            plumb_store_bits(PLUMB_BF16, g->data, (size_t)(i * n + j), s);
        }
    /* how many differ from the reference (correctly rounded) result */
    plumb_ref_result want;
    memset(&want, 0, sizeof want);
    ir_module *mod = ir_parse(c->program, strlen(c->program), c->id, NULL, &d);
    assert_non_null(mod);
    assert_true(plumb_ref_run(mod, NULL, c->inputs, c->n_inputs, NULL, &want, &d));
    ir_module_free(mod);
    uint64_t differ = 0;
    for (uint64_t e = 0; e < (uint64_t)(m * n); e++)
        differ += plumb_load_bits(PLUMB_BF16, g->data, e) != plumb_load_bits(PLUMB_BF16, want.outputs[0]->data, e);
    assert_true(differ > (uint64_t)(m * n) / 2);
    conf_check_opts o = acc16_opts();
    conf_result r;
    assert_true(conf_check_case(c, &g, 1, &o, &r, &d));
    if (!r.pass) fprintf(stderr, "%s: %s\n", c->id, r.reason);
    assert_true(r.pass);
    assert_true(r.budget_used > 0 && r.budget_used <= 1.0);
    /* element 0 moved by 2·K·u·Σ|a·b| (+ its own value's rounding): out of bound */
    double w0 = plumb_load_f64(PLUMB_BF16, want.outputs[0]->data, 0);
    plumb_store_bits(PLUMB_BF16, g->data, 0, plumb_f64_to_bf16(w0 + 2.0 * 300.0 * ldexp(1.0, -8) * sabs0 + 4.0 * fabs(w0)));
    assert_true(conf_check_case(c, &g, 1, &o, &r, &d));
    assert_false(r.pass);
    assert_true(r.budget_used > 1.0);
    assert_null(strstr(r.reason, "nan"));
    plumb_ref_result_free(&want);
    plumb_tensor_free(g);
    conf_cases_free(&cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bf16_k512),
        cmocka_unit_test(test_f16_k4096),
        cmocka_unit_test(test_bf16_blocked_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
