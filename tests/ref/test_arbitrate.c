/* Arbitration of a check's expected value (docs/spec/checks.md
 * "Arbitration"): a failing check of a dot's or a sum's value names how far
 * the expected value and the backend's are from the exact result, and
 * accepts the backend's value when it is within the op's bound and nearer.
 * Expected values are derived here, not by plumb: left-to-right f32
 * accumulation in C (volatile floats, one rounding per addition), exact
 * sums in double (exact for the term ranges used, see below). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/ref.h"

static ir_module *parse(const char *text)
{
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(text, strlen(text), "t.mlir", NULL, &d);
    if (!m)
        fprintf(stderr, "%s\n", d.msg);
    assert_non_null(m);
    return m;
}

/* Runs main on the reference with inputs; returns the check log. */
static char *run_ref(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, plumb_ref_result *res)
{
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_ref_options o = {.struct_size = sizeof o, .check_log = log};
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(plumb_ref_run(m, NULL, in, n_in, &o, res, &d));
    long n = ftell(log);
    rewind(log);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, log), (size_t)n);
    fclose(log);
    return text;
}

static uint32_t f32b(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ULP distance of two finite f32 values of the same sign, from their
 * encodings (consecutive patterns are one ULP apart). */
static uint32_t ulp_same_sign(float a, float b)
{
    uint32_t x = f32b(a) & 0x7FFFFFFFu, y = f32b(b) & 0x7FFFFFFFu;
    return x > y ? x - y : y - x;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

#define K 48

/* The dot of a 1xK row of terms with a Kx1 column of ones, checked with
 * expect_close against want: a testdata-shaped program. */
static char *dot_program(const float *terms, float want)
{
    size_t cap = 64 * K + 2048, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "func.func @main() -> tensor<1x1xf32> {\n"
                            "  %%l = stablehlo.constant dense<[[");
    for (int i = 0; i < K; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%.9g", i ? ", " : "", (double)terms[i]);
    len += (size_t)snprintf(s + len, cap - len, "]]> : tensor<1x%dxf32>\n"
                            "  %%one = stablehlo.constant dense<1.0> : tensor<%dx1xf32>\n"
                            "  %%d = stablehlo.dot_general %%l, %%one, contracting_dims = [1] x [0] : "
                            "(tensor<1x%dxf32>, tensor<%dx1xf32>) -> tensor<1x1xf32>\n"
                            "  %%e = stablehlo.constant dense<%.9g> : tensor<1x1xf32>\n"
                            "  stablehlo.custom_call @check.expect_close(%%d, %%e) {has_side_effect = true} : "
                            "(tensor<1x1xf32>, tensor<1x1xf32>) -> ()\n"
                            "  return %%d : tensor<1x1xf32>\n}\n", K, K, K, K, (double)want);
    assert_true(len < cap);
    return s;
}

/* Random sums with cancellation whose expected value is the left-to-right
 * f32 accumulation: every one that is more than the check's 3 ulp from
 * the exact sum passes by arbitration, with a note giving the expected
 * value's distance from the exact result as derived here. Terms are
 * m·2^e with |m| < 2^24 and e in [-35, -15] (below 2^9), so every partial
 * sum is a multiple of 2^-35 below 2^15 (50 bits) and the double sum is
 * exact. */
static void test_naive_f32_sums_accepted(void **state)
{
    (void)state;
    uint64_t seed = 0x5eed;
    int arbitrated = 0;
    for (int trial = 0; trial < 40; trial++) {
        float t[K];
        volatile float naive = 0.0f;
        double exact = 0.0;
        for (int i = 0; i < K - 1; i++) {
            double m = (double)(lcg(&seed) & 0xFFFFFF) * ((lcg(&seed) & 1) ? -1.0 : 1.0);
            t[i] = (float)ldexp(m, (int)(lcg(&seed) % 21) - 35);
        }
        /* the last term cancels the sum so far down to about 0.1, so that
         * the rounding errors of the partial sums (up to 2^-15 each) are
         * thousands of ulp of the result (2^-27) */
        double partial = 0.0;
        for (int i = 0; i < K - 1; i++)
            partial += t[i];
        t[K - 1] = (float)(0.1 - partial);
        for (int i = 0; i < K; i++) {
            naive = naive + t[i];
            exact += t[i];
        }
        float cr = (float)exact;   /* one rounding of the exact sum */
        if ((naive < 0) != (cr < 0) || naive == 0.0f || cr == 0.0f)
            continue;              /* keep to one sign: the distance below is then simple */
        uint32_t dist = ulp_same_sign(naive, cr);
        if (dist <= 3)
            continue;              /* passes without arbitration */
        char *text = dot_program(t, naive);
        ir_module *m = parse(text);
        plumb_ref_result res;
        char *log = run_ref(m, NULL, 0, &res);
        char want[160];
        snprintf(want, sizeof want, "expected value is %u ulp from the exact result, which this backend returns "
                 "(correctly rounded)", dist);
        assert_int_equal(res.checks_failed, 0);
        assert_int_equal(res.checks_run, 1);
        assert_non_null(strstr(log, "note: check.expect_close: arbitration accepted 1 of 1 elements"));
        assert_non_null(strstr(log, want));
        /* the reference returns the correctly rounded sum */
        assert_int_equal(f32b(cr), plumb_load_bits(PLUMB_F32, res.outputs[0]->data, 0));
        arbitrated++;
        free(log);
        plumb_ref_result_free(&res);
        ir_module_free(m);
        free(text);
    }
    /* the construction cancels enough that most trials need arbitration */
    assert_true(arbitrated >= 30);
}

/* The fixed cancellation of tests/cli/arbitrate: products 1, 2^-24, 2^-24,
 * -0.9921875; left to right 2^-7, exact 2^-7 + 2^-23 (128 ulp apart). */
static const char fixed_dot[] =
    "func.func @main() -> tensor<1x1xf32> {\n"
    "  %l = stablehlo.constant dense<[[1.0, 1.0, 1.0, 1.0]]> : tensor<1x4xf32>\n"
    "  %r = stablehlo.constant dense<[[1.0], [5.96046448E-8], [5.96046448E-8], [-0.9921875]]> : tensor<4x1xf32>\n"
    "  %d = stablehlo.dot_general %l, %r, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x1xf32>) "
    "-> tensor<1x1xf32>\n"
    "  %e = stablehlo.constant dense<0.0078125> : tensor<1x1xf32>\n"
    "  stablehlo.custom_call @check.expect_close(%d, %e) {has_side_effect = true} : "
    "(tensor<1x1xf32>, tensor<1x1xf32>) -> ()\n"
    "  return %d : tensor<1x1xf32>\n}\n";

/* PLUMB_ARBITRATE=0 turns acceptance off: the check fails as written, and
 * its report still says which side is wrong. */
static void test_mode_off_fails(void **state)
{
    (void)state;
    ir_module *m = parse(fixed_dot);
    setenv("PLUMB_ARBITRATE", "0", 1);
    plumb_ref_result res;
    char *log = run_ref(m, NULL, 0, &res);
    unsetenv("PLUMB_ARBITRATE");
    assert_int_equal(res.checks_failed, 1);
    assert_null(strstr(log, "note:"));
    assert_non_null(strstr(log, "128 ulp apart; expected value is 128 ulp from the exact result, which this "
                                "backend returns (correctly rounded)"));
    assert_non_null(strstr(log, "arbitration is off"));
    free(log);
    plumb_ref_result_free(&res);
    ir_module_free(m);
}

/* An exact op (add) never gets the leniency: 2^-7 + 2^-23 checked against
 * 2^-7 fails with the mode on, with no note and no arbitration line. */
static void test_exact_op_never(void **state)
{
    (void)state;
    ir_module *m = parse("func.func @main() -> tensor<f32> {\n"
                         "  %a = stablehlo.constant dense<0.0078125> : tensor<f32>\n"
                         "  %b = stablehlo.constant dense<1.1920929E-7> : tensor<f32>\n"
                         "  %s = stablehlo.add %a, %b : tensor<f32>\n"
                         "  stablehlo.custom_call @check.expect_close(%s, %a) {has_side_effect = true} : "
                         "(tensor<f32>, tensor<f32>) -> ()\n"
                         "  return %s : tensor<f32>\n}\n");
    plumb_ref_result res;
    char *log = run_ref(m, NULL, 0, &res);
    assert_int_equal(res.checks_failed, 1);
    assert_non_null(strstr(log, "128 ulp apart"));
    assert_null(strstr(log, "note:"));
    assert_null(strstr(log, "exact result"));
    free(log);
    plumb_ref_result_free(&res);
    ir_module_free(m);
}

static const ir_op *find_check(const ir_module *m)
{
    for (const ir_op *o = m->funcs[0]->body.first; o; o = o->next)
        if (o->code == PLUMB_OP_EXPECT_CLOSE)
            return o;
    fail();
    return NULL;
}

static plumb_tensor *scalar11(float v)
{
    int64_t dims[2] = {1, 1};
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(t);
    plumb_store_bits(PLUMB_F32, t->data, 0, f32b(v));
    return t;
}

/* Runs the fixed dot's check on planted values (as a backend would return
 * them); returns the log, *passed the verdict. */
static char *judge(float got, float want, bool *passed, uint64_t *accepted)
{
    ir_module *m = parse(fixed_dot);
    plumb_tensor *g = scalar11(got), *w = scalar11(want);
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_check_arb arb = {.m = m, .accept = true};
    assert_true(plumb_check_run_arb(find_check(m), g, w, log, 5, "t.mlir", NULL, NULL, &arb, passed));
    *accepted = arb.accepted;
    long n = ftell(log);
    rewind(log);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, log), (size_t)n);
    fclose(log);
    plumb_tensor_free(g);
    plumb_tensor_free(w);
    ir_module_free(m);
    return text;
}

/* The bound of the fixed dot (k = 4, Σ|x| = 2 + 2^-23 - 2^-7, u = 2^-24):
 * γ(4)·Σ|x| ≈ 4.7e-7 plus 2·u·|S| ≈ 9.3e-10, about 506 ulp of 2^-7
 * (2^-30 each). A backend value 100 ulp above the exact result is within
 * it and is accepted against the naive 128 ulp expectation; one 1.0 off
 * is outside it and fails, and so does a value within the bound whose
 * distance exceeds the expected value's (5 ulp). */
static void test_planted_backend_values(void **state)
{
    (void)state;
    float exact = 0.0078125f + 1.1920929e-7f;   /* 2^-7 + 2^-23 */
    uint32_t eb = f32b(exact);
    float up100, up5;
    uint32_t b100 = eb + 100, b5 = eb + 5;
    memcpy(&up100, &b100, 4);
    memcpy(&up5, &b5, 4);
    bool passed;
    uint64_t acc;
    char *log = judge(up100, 0.0078125f, &passed, &acc);
    assert_true(passed);
    assert_int_equal(acc, 1);
    assert_non_null(strstr(log, "expected value is 128 ulp from the exact result, this backend's 100 ulp "
                                "(within the op's bound)"));
    free(log);

    log = judge(exact + 1.0f, 0.0078125f, &passed, &acc);
    assert_false(passed);
    assert_int_equal(acc, 0);
    assert_non_null(strstr(log, "(outside the op's bound)"));
    assert_non_null(strstr(log, "no element above is accepted"));
    free(log);

    log = judge(up100, up5, &passed, &acc);
    assert_false(passed);
    assert_int_equal(acc, 0);
    assert_non_null(strstr(log, "expected value is 5 ulp from the exact result, this backend's 100 ulp"));
    free(log);
}

/* A dot of a parameter: its operands cannot be recomputed at the check, so
 * the check fails as written and says why it was not arbitrated. */
static void test_parameter_not_arbitrated(void **state)
{
    (void)state;
    ir_module *m = parse("func.func @main(%arg0: tensor<1x4xf32>) -> tensor<1x1xf32> {\n"
                         "  %r = stablehlo.constant dense<[[1.0], [5.96046448E-8], [5.96046448E-8], "
                         "[-0.9921875]]> : tensor<4x1xf32>\n"
                         "  %d = stablehlo.dot_general %arg0, %r, contracting_dims = [1] x [0] : "
                         "(tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>\n"
                         "  %e = stablehlo.constant dense<0.0078125> : tensor<1x1xf32>\n"
                         "  stablehlo.custom_call @check.expect_close(%d, %e) {has_side_effect = true} : "
                         "(tensor<1x1xf32>, tensor<1x1xf32>) -> ()\n"
                         "  return %d : tensor<1x1xf32>\n}\n");
    int64_t dims[2] = {1, 4};
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(in);
    for (int i = 0; i < 4; i++)
        plumb_store_bits(PLUMB_F32, in->data, (size_t)i, f32b(1.0f));
    plumb_ref_result res;
    char *log = run_ref(m, &in, 1, &res);
    assert_int_equal(res.checks_failed, 1);
    assert_non_null(strstr(log, "not arbitrated: the checked value comes from stablehlo.dot_general"));
    assert_non_null(strstr(log, "depend on the parameter %arg0"));
    free(log);
    plumb_ref_result_free(&res);
    plumb_tensor_free(in);
    ir_module_free(m);
}

int main(void)
{
    unsetenv("PLUMB_ARBITRATE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive_f32_sums_accepted),
        cmocka_unit_test(test_mode_off_fails),
        cmocka_unit_test(test_exact_op_never),
        cmocka_unit_test(test_planted_backend_values),
        cmocka_unit_test(test_parameter_not_arbitrated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
