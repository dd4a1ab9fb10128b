/* The agreement checker against hand-built backend outputs: a correct
 * backend passes, and each planted fault is caught with the right reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
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

/* ---- hand-built cases: a program, inputs given as doubles ------------------ */

typedef struct hand {
    conf_case c;
    plumb_tensor *in[2];
    char prog[1024];
} hand;

static uint64_t fbits_of(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

static plumb_tensor *vec(plumb_dtype t, const double *v, int64_t n)
{
    plumb_tensor *x = plumb_tensor_new(t, 1, &n, 0, NULL);
    assert_non_null(x);
    for (int64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (size_t)i, fbits_of(t, v[i]));
    return x;
}

static plumb_tensor *scalar(plumb_dtype t, uint64_t bits)
{
    plumb_tensor *x = plumb_tensor_new(t, 0, NULL, 0, NULL);
    assert_non_null(x);
    plumb_store_bits(t, x->data, 0, bits);
    return x;
}

/* reduce-add of the n values x with init +0 */
static void hand_sum(hand *h, plumb_dtype t, const double *x, int64_t n)
{
    memset(h, 0, sizeof *h);
    const char *tn = plumb_dtype_name(t);
    snprintf(h->prog, sizeof h->prog,
             "func.func @main(%%x: tensor<%lldx%s>, %%c: tensor<%s>) -> (tensor<%s>) {\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [0] : "
             "(tensor<%lldx%s>, tensor<%s>) -> tensor<%s>\n  return %%r : tensor<%s>\n}\n",
             (long long)n, tn, tn, tn, (long long)n, tn, tn, tn, tn);
    h->in[0] = vec(t, x, n);
    h->in[1] = scalar(t, 0);
    snprintf(h->c.id, sizeof h->c.id, "reduce/%s/hand/boundary/0", tn);
    h->c.op = PLUMB_OP_REDUCE;
    h->c.dtype = t;
    h->c.shape_class = "hand";
    h->c.value_class = "boundary";
    h->c.program = h->prog;
    h->c.inputs = h->in;
    h->c.n_inputs = 2;
}

/* dot_general of the vectors a and b (n values each) to a scalar */
static void hand_dot(hand *h, plumb_dtype t, const double *a, const double *b, int64_t n)
{
    memset(h, 0, sizeof *h);
    const char *tn = plumb_dtype_name(t);
    snprintf(h->prog, sizeof h->prog,
             "func.func @main(%%x: tensor<%lldx%s>, %%y: tensor<%lldx%s>) -> (tensor<%s>) {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [0] x [0] : "
             "(tensor<%lldx%s>, tensor<%lldx%s>) -> tensor<%s>\n  return %%r : tensor<%s>\n}\n",
             (long long)n, tn, (long long)n, tn, tn, (long long)n, tn, (long long)n, tn, tn, tn);
    h->in[0] = vec(t, a, n);
    h->in[1] = vec(t, b, n);
    snprintf(h->c.id, sizeof h->c.id, "dot_general/%s/hand/boundary/0", tn);
    h->c.op = PLUMB_OP_DOT_GENERAL;
    h->c.dtype = t;
    h->c.shape_class = "hand";
    h->c.value_class = "boundary";
    h->c.program = h->prog;
    h->c.inputs = h->in;
    h->c.n_inputs = 2;
}

/* Statistics cases: dot_general of the n×2 f32 matrix with rows [i+1, 1] and
 * y = [1, 1]; every product and sum is exact, so want_i = i + 2 = Σ|x|_i. */
static void hand_rows(hand *h, int64_t n, const char *value_class)
{
    memset(h, 0, sizeof *h);
    snprintf(h->prog, sizeof h->prog,
             "func.func @main(%%x: tensor<%lldx2xf32>, %%y: tensor<2xf32>) -> (tensor<%lldxf32>) {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : "
             "(tensor<%lldx2xf32>, tensor<2xf32>) -> tensor<%lldxf32>\n  return %%r : tensor<%lldxf32>\n}\n",
             (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
    int64_t dx[2] = {n, 2}, dy = 2;
    h->in[0] = plumb_tensor_new(PLUMB_F32, 2, dx, 0, NULL);
    h->in[1] = plumb_tensor_new(PLUMB_F32, 1, &dy, 0, NULL);
    assert_non_null(h->in[0]);
    assert_non_null(h->in[1]);
    for (int64_t i = 0; i < n; i++) {
        plumb_store_bits(PLUMB_F32, h->in[0]->data, (size_t)(2 * i), plumb_f32_bits((float)(i + 1)));
        plumb_store_bits(PLUMB_F32, h->in[0]->data, (size_t)(2 * i + 1), plumb_f32_bits(1.0f));
    }
    plumb_store_bits(PLUMB_F32, h->in[1]->data, 0, plumb_f32_bits(1.0f));
    plumb_store_bits(PLUMB_F32, h->in[1]->data, 1, plumb_f32_bits(1.0f));
    snprintf(h->c.id, sizeof h->c.id, "dot_general/f32/hand/%s/0", value_class);
    h->c.op = PLUMB_OP_DOT_GENERAL;
    h->c.dtype = PLUMB_F32;
    h->c.shape_class = "hand";
    h->c.value_class = value_class;
    h->c.program = h->prog;
    h->c.inputs = h->in;
    h->c.n_inputs = 2;
}

/* The n results i + 2 each one ulp too large: an error of ulp(w)/(2^-24·w)
 * units, 2 for w = 2 and 4, 4/3 for w = 3; within the per-element bound
 * γ(2)·w + u·w ≈ 3 units. */
static plumb_tensor *rows_one_ulp_up(int64_t n)
{
    plumb_tensor *g = plumb_tensor_new(PLUMB_F32, 1, &n, 0, NULL);
    assert_non_null(g);
    for (int64_t i = 0; i < n; i++)
        plumb_store_bits(PLUMB_F32, g->data, (size_t)i, plumb_f32_bits(nextafterf((float)(i + 2), INFINITY)));
    return g;
}

static void hand_free(hand *h)
{
    plumb_tensor_free(h->in[0]);
    plumb_tensor_free(h->in[1]);
}

/* The checker's verdict on the scalar result whose bits are got. */
static conf_result check_bits(const hand *h, uint64_t got)
{
    conf_check_opts o = ieee_opts();
    plumb_tensor *g = scalar(h->c.dtype, got);
    conf_result r = check(&h->c, &g, 1, &o);
    plumb_tensor_free(g);
    return r;
}

static void expect_pass(const hand *h, uint64_t got)
{
    conf_result r = check_bits(h, got);
    if (!r.pass) fprintf(stderr, "%s got 0x%llx: %s\n", h->c.id, (unsigned long long)got, r.reason);
    assert_true(r.pass);
}

static void expect_fail(const hand *h, uint64_t got, const char *why)
{
    conf_result r = check_bits(h, got);
    if (r.pass || !strstr(r.reason, why))
        fprintf(stderr, "%s got 0x%llx: pass %d, reason %s (want \"%s\")\n", h->c.id, (unsigned long long)got, r.pass,
                r.reason, why);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, why));
}

#define F32_MAX 3.4028234663852886e38
#define F32_PINF 0x7F800000u
#define F32_NINF 0xFF800000u
#define F32_NAN 0x7FC00000u

/* Sum of max, max, -max, -max in f32 (exact sum +0): P = N = 2·max both overflow, so
 * the order (max+max)+(-max+-max) gives NaN, sequential order +inf, the reversed -inf, and
 * an order alternating signs +0; all four are accepted, and a finite result still has
 * to meet the bound (γ(4)·4·max = 2^110 approx; 2^120 is beyond it). */
static void test_overflow_both_signs(void **state)
{
    (void)state;
    const double x[4] = {F32_MAX, F32_MAX, -F32_MAX, -F32_MAX};
    hand h;
    hand_sum(&h, PLUMB_F32, x, 4);
    expect_pass(&h, 0);
    expect_pass(&h, F32_NAN);
    expect_pass(&h, F32_PINF);
    expect_pass(&h, F32_NINF);
    expect_fail(&h, plumb_f32_bits(ldexpf(1.0f, 120)), "Σ|x|");
    hand_free(&h);
}

/* max, max, -1, -1 in f32: exact 2·max - 2 rounds to +inf. N = 2 cannot overflow in any order,
 * so no -inf partial sum exists: NaN and -inf are rejected. A finite result is accepted only
 * within the bound of the overflow threshold max + 2^103: max is (bound γ(4)·(2max+2) ≈ 2^107),
 * 0 is not. */
static void test_overflow_one_sign(void **state)
{
    (void)state;
    const double x[4] = {F32_MAX, F32_MAX, -1, -1};
    hand h;
    hand_sum(&h, PLUMB_F32, x, 4);
    expect_pass(&h, F32_PINF);
    expect_pass(&h, plumb_f32_bits((float)F32_MAX));
    expect_fail(&h, F32_NAN, "NaN needs partial sums of both signs");
    expect_fail(&h, F32_NINF, "-inf needs the negative terms");
    expect_fail(&h, 0, "below the overflow threshold");
    hand_free(&h);
}

/* +inf, -max, -max, 1 in f32: the exact result is +inf (an infinite term). N = 2·max can
 * overflow to a -inf partial sum, which meets +inf as NaN; -inf and finite results cannot
 * occur in any order. With -1 instead of the two -max terms NaN cannot occur either; +inf
 * and -inf terms together must give NaN. */
static void test_overflow_infinite_term(void **state)
{
    (void)state;
    const double x[4] = {INFINITY, -F32_MAX, -F32_MAX, 1};
    hand h;
    hand_sum(&h, PLUMB_F32, x, 4);
    expect_pass(&h, F32_PINF);
    expect_pass(&h, F32_NAN);
    expect_fail(&h, F32_NINF, "-inf needs");
    expect_fail(&h, plumb_f32_bits((float)F32_MAX), "from an infinite term");
    hand_free(&h);
    const double y[4] = {INFINITY, -1, -1, 1};
    hand_sum(&h, PLUMB_F32, y, 4);
    expect_pass(&h, F32_PINF);
    expect_fail(&h, F32_NAN, "NaN needs");
    hand_free(&h);
    const double z[4] = {INFINITY, -INFINITY, 1, 1};
    hand_sum(&h, PLUMB_F32, z, 4);
    expect_pass(&h, F32_NAN);
    expect_fail(&h, F32_PINF, "every order gives NaN");
    hand_free(&h);
}

/* f64 sums: the same rule at the f64 threshold (max + max overflows; max/2 + 1 cannot reach
 * it, and a finite exact result max/2 - max/2^60 is max/2 away from it); a finite result
 * is bounded even when Σ|x| exceeds the largest double. */
static void test_overflow_f64(void **state)
{
    (void)state;
    const double x[4] = {DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX};
    hand h;
    hand_sum(&h, PLUMB_F64, x, 4);
    expect_pass(&h, plumb_f64_bits(NAN));
    expect_pass(&h, plumb_f64_bits(-INFINITY));
    hand_free(&h);
    /* max, -max, 1, 0: S = 1, Σ|x| = 2·max is beyond every double, but P = max + 1
     * and N = max are not: the bound γ(4)·(P + N) + u·1 ≈ 2^-51·2^1025 = 2^974 stays
     * finite, so 2^970 is within it and 2^1000 is not */
    const double z[4] = {DBL_MAX, -DBL_MAX, 1, 0};
    hand_sum(&h, PLUMB_F64, z, 4);
    expect_pass(&h, plumb_f64_bits(1.0));
    expect_pass(&h, plumb_f64_bits(0x1p970));
    expect_fail(&h, plumb_f64_bits(0x1p1000), "Σ|x|");
    hand_free(&h);
    const double y[4] = {DBL_MAX / 2, -DBL_MAX / 0x1p60, 1, -1};
    hand_sum(&h, PLUMB_F64, y, 4);
    expect_fail(&h, plumb_f64_bits(NAN), "NaN needs");
    expect_fail(&h, plumb_f64_bits(INFINITY), "cannot overflow");
    hand_free(&h);
}

/* Dots split their terms by the sign of the product: 2^100·2^100 + 2^100·(-2^100) in f32 has
 * products ±2^200, both beyond f32's range, so NaN (+inf + -inf products) is accepted for the
 * exact result 0; 2^100·2^100 + 1·(-1) is +inf exactly and N = 1, so NaN is not. */
static void test_overflow_dot_products(void **state)
{
    (void)state;
    const double a[2] = {0x1p100, 0x1p100}, b[2] = {0x1p100, -0x1p100};
    hand h;
    hand_dot(&h, PLUMB_F32, a, b, 2);
    expect_pass(&h, 0);
    expect_pass(&h, F32_NAN);
    hand_free(&h);
    const double c[2] = {0x1p100, 1}, e[2] = {0x1p100, -1};
    hand_dot(&h, PLUMB_F32, c, e, 2);
    expect_pass(&h, F32_PINF);
    expect_fail(&h, F32_NAN, "NaN needs");
    hand_free(&h);
}

/* f16 data with a declared f32 accumulator: P = 2·65504 overflows f16 but no f32 partial sum
 * can ((k+1)·65504 ≪ f32's max), so for 65504 + 65504 - 65504 - 65504 (exact 0) NaN and +inf
 * are rejected; only the final rounding to f16 may overflow, which 0 is far from. */
static void test_overflow_wide_accumulator(void **state)
{
    (void)state;
    const double x[4] = {65504, 65504, -65504, -65504};
    hand h;
    hand_sum(&h, PLUMB_F16, x, 4);
    expect_pass(&h, 0);
    expect_fail(&h, 0x7E00, "NaN needs");
    expect_fail(&h, 0x7C00, "cannot overflow f32");
    hand_free(&h);
}

/* The underflow term. bf16 dot (5·2^-70)·2^-64 + 2^-100·2^-100: exact 5·2^-134 + 2^-200, which
 * is 2.5 subnormal steps (2^-133) plus a little, so the reference gives 3 steps (0x0003). An
 * f32 accumulator loses the 2^-200 product (f32's least subnormal is 2^-149), holds exactly
 * 5·2^-134 and rounds the tie to even: 2 steps (0x0002), one step (2^-133) off. The relative
 * terms allow γ(2)·A + 2·u·|want| ≈ 2^-139; the absolute term 2·η_bf16 + 2·η_f32·(1+γ) =
 * 2^-133 + 2^-149 (approx) covers the one step; two steps (0x0001) stay out. */
static void test_underflow_term(void **state)
{
    (void)state;
    const double a[2] = {5 * 0x1p-70, 0x1p-100}, b[2] = {0x1p-64, 0x1p-100};
    hand h;
    hand_dot(&h, PLUMB_BF16, a, b, 2);
    expect_pass(&h, 0x0003);
    expect_pass(&h, 0x0002);
    expect_pass(&h, 0x0004);
    expect_fail(&h, 0x0001, "underflow");
    expect_fail(&h, 0x0005, "underflow");
    hand_free(&h);
    assert_true(conf_underflow_eta(PLUMB_BF16) == 0x1p-134);
    assert_true(conf_underflow_eta(PLUMB_F32) == 0x1p-150);
    assert_true(conf_underflow_eta(PLUMB_F16) == 0x1p-25);
    assert_true(conf_underflow_eta(PLUMB_F64) == 0x1p-1074); /* half of it is not a double */
    assert_true(conf_max_finite(PLUMB_F16) == 65504.0);
    assert_true(conf_max_finite(PLUMB_BF16) == 0x1.fep127);
    assert_true(conf_max_finite(PLUMB_F64) == DBL_MAX);
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

/* Three in-bound dot results (errors 2, 4/3, 2 units, K = 3): Σe² = 9.78 exceeds TOSA's
 * 0.4·K·T = 3.6, a finding the old rule reported; three elements cannot show an accumulator
 * fault beyond the per-element bound, so the small-sample threshold passes them. */
static void test_statistics_small_sample_passes(void **state)
{
    (void)state;
    hand h;
    hand_rows(&h, 3, "normal");
    conf_check_opts o = ieee_opts();
    plumb_tensor *g = rows_one_ulp_up(3);
    conf_result r = check(&h.c, &g, 1, &o);
    if (!r.pass) fprintf(stderr, "%s\n", r.reason);
    assert_true(r.pass);
    assert_true(r.budget_used <= 1.0);
    /* mean(e²)/K = (4 + 16/9 + 4)/3/3 = 1.086: beyond TOSA's 0.4 */
    assert_true(fabs(r.mse_per_bound - (8.0 + 16.0 / 9.0) / 9.0) < 1e-9);
    assert_true(r.mse_per_bound > CONF_STAT_MSE_FACTOR);
    plumb_tensor_free(g);
    hand_free(&h);
}

/* The same one-ulp-up results over 2000 elements (a backend rounding its sums upwards):
 * mean e² is about ∫₁² 4/x² dx = 2 per element, Σe² ≈ 4000 against max(0.4·3·2000 = 2400,
 * 2000 + Bernstein excess ≈ 750 at K = 3, b ≈ 3, p = 1e-6): the statistic still fails it. */
static void test_statistics_large_sample_fails(void **state)
{
    (void)state;
    hand h;
    hand_rows(&h, 2000, "boundary");
    conf_check_opts o = ieee_opts();
    plumb_tensor *g = rows_one_ulp_up(2000);
    conf_result r = check(&h.c, &g, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "TOSA-style statistic"));
    assert_true(r.mse_per_bound > 0.6 && r.mse_per_bound < 0.75);
    plumb_tensor_free(g);
    hand_free(&h);
}

/* A backend that sums f16 rows in f16 while declaring f32, but returns its f16 sum only
 * where that sum meets the per-element bound (hand-derived: within 1.9·2^-11·Σ|x|, under
 * 2·u_f16·|want|) and the correctly rounded sum elsewhere: no element fails, yet over 512
 * rows of 16 far more results differ from the correctly rounded sum than an f32
 * accumulator allows, and the frequency statistic fails it. */
static void test_f16_accumulation_large_tensor(void **state)
{
    (void)state;
    enum { ROWS = 512, LEN = 16 };
    hand h;
    memset(&h, 0, sizeof h);
    snprintf(h.prog, sizeof h.prog,
             "func.func @main(%%x: tensor<%dx%dxf16>, %%c: tensor<f16>) -> (tensor<%dxf16>) {\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [1] : "
             "(tensor<%dx%dxf16>, tensor<f16>) -> tensor<%dxf16>\n  return %%r : tensor<%dxf16>\n}\n",
             ROWS, LEN, ROWS, ROWS, LEN, ROWS, ROWS);
    int64_t dx[2] = {ROWS, LEN}, rows = ROWS;
    h.in[0] = plumb_tensor_new(PLUMB_F16, 2, dx, 0, NULL);
    h.in[1] = scalar(PLUMB_F16, 0);
    assert_non_null(h.in[0]);
    /* values 1 + j/64 + (r mod 64)/4096: multiples of 2^-12 below 2, exact in f16, and
     * their row sums (below 32) are exact in double */
    for (int r = 0; r < ROWS; r++)
        for (int j = 0; j < LEN; j++)
            plumb_store_bits(PLUMB_F16, h.in[0]->data, (size_t)(r * LEN + j),
                             plumb_f64_to_f16(1.0 + j / 64.0 + (r % 64) / 4096.0));
    snprintf(h.c.id, sizeof h.c.id, "reduce/f16/hand/uniform/0");
    h.c.op = PLUMB_OP_REDUCE;
    h.c.dtype = PLUMB_F16;
    h.c.shape_class = "hand";
    h.c.value_class = "uniform";
    h.c.program = h.prog;
    h.c.inputs = h.in;
    h.c.n_inputs = 2;
    plumb_tensor *g = plumb_tensor_new(PLUMB_F16, 1, &rows, 0, NULL);
    assert_non_null(g);
    int differ = 0;
    for (int r = 0; r < ROWS; r++) {
        uint16_t s16 = 0;
        double exact = 0;
        for (int j = 0; j < LEN; j++) {
            double v = plumb_f16_to_f64((uint16_t)plumb_load_bits(PLUMB_F16, h.in[0]->data, (size_t)(r * LEN + j)));
            s16 = plumb_f64_to_f16(plumb_f16_to_f64(s16) + v);
            exact += v;
        }
        uint16_t rounded = plumb_f64_to_f16(exact);
        bool in_bound = fabs(plumb_f16_to_f64(s16) - exact) <= 1.9 * ldexp(1.0, -11) * exact;
        plumb_store_bits(PLUMB_F16, g->data, (size_t)r, in_bound ? s16 : rounded);
        if (in_bound && s16 != rounded) differ++;
    }
    /* an f32 accumulator differs from the rounded sum only within γ(16)·Σ|x| ≈ 2^-20·Σ|x| of
     * an f16 rounding boundary: a few rows at most, while this backend differs in these */
    assert_true(differ >= 100);
    conf_check_opts o = ieee_opts();
    conf_result r = check(&h.c, &g, 1, &o);
    assert_false(r.pass);
    assert_non_null(strstr(r.reason, "frequency statistic"));
    plumb_tensor_free(g);
    hand_free(&h);
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


/* A dot contracting over a `?` dimension is judged by its actual length
 * (3 here), as the reference ran it: the exact result of 1 + 2^-24 + 2^-24 is
 * 1 + 2^-23, and left-to-right f32 accumulation gives 1.0 (each 2^-24 is a
 * tie rounded to even), one ULP away and inside γ(3)·Σ|a·b| ≈ 1.8e-7 > 2^-23;
 * 1 + 2^-21 (4 ULP) is outside. Declared `?` read as a length once gave an
 * overflowed k (NaN bound) and failed every result that was not exact. */
static void test_dynamic_dot_length(void **state)
{
    (void)state;
    const double a[3] = {1, 0x1p-24, 0x1p-24}, b[3] = {1, 1, 1};
    const char *decl[2] = {"?xf32", "?xf32, #stablehlo.bounds<8>"};
    for (int v = 0; v < 2; v++) {
        hand h;
        hand_dot(&h, PLUMB_F32, a, b, 3);
        snprintf(h.prog, sizeof h.prog,
                 "func.func @main(%%x: tensor<%s>, %%y: tensor<%s>) -> (tensor<f32>) {\n"
                 "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [0] x [0] : "
                 "(tensor<%s>, tensor<%s>) -> tensor<f32>\n  return %%r : tensor<f32>\n}\n",
                 decl[v], decl[v], decl[v], decl[v]);
        expect_pass(&h, plumb_f32_bits(1.0f + 0x1p-23f));
        expect_pass(&h, plumb_f32_bits(1.0f));
        conf_result r = check_bits(&h, plumb_f32_bits(1.0f + 0x1p-21f));
        assert_false(r.pass);
        hand_free(&h);
    }
}

/* A reduce-add over a `?` dimension is judged by its actual length too: the
 * declared `?` once gave length 0 (γ(0) = 0), demanding exact sums. 1 + 2^-24
 * + 2^-24 summed left to right in f32 is 1.0, one ULP from the exact
 * 1 + 2^-23, within γ(3)·Σ|x|. */
static void test_dynamic_reduce_length(void **state)
{
    (void)state;
    const double x[3] = {1, 0x1p-24, 0x1p-24};
    hand h;
    hand_sum(&h, PLUMB_F32, x, 3);
    snprintf(h.prog, sizeof h.prog,
             "func.func @main(%%x: tensor<?xf32>, %%c: tensor<f32>) -> (tensor<f32>) {\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [0] : "
             "(tensor<?xf32>, tensor<f32>) -> tensor<f32>\n  return %%r : tensor<f32>\n}\n");
    expect_pass(&h, plumb_f32_bits(1.0f));
    conf_result r = check_bits(&h, plumb_f32_bits(1.0f + 0x1p-21f));
    assert_false(r.pass);
    hand_free(&h);
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
        cmocka_unit_test(test_statistics_small_sample_passes),
        cmocka_unit_test(test_statistics_large_sample_fails),
        cmocka_unit_test(test_f16_accumulation_large_tensor),
        cmocka_unit_test(test_broadcast_mishandled),
        cmocka_unit_test(test_wrong_shape_and_count),
        cmocka_unit_test(test_nan_payloads),
        cmocka_unit_test(test_overflow_both_signs),
        cmocka_unit_test(test_overflow_one_sign),
        cmocka_unit_test(test_overflow_infinite_term),
        cmocka_unit_test(test_overflow_f64),
        cmocka_unit_test(test_overflow_dot_products),
        cmocka_unit_test(test_dynamic_dot_length),
        cmocka_unit_test(test_dynamic_reduce_length),
        cmocka_unit_test(test_overflow_wide_accumulator),
        cmocka_unit_test(test_underflow_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
