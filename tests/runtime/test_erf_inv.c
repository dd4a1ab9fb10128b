/* chlo.erf_inv on the runtime (runtime/math_erfinv.c) against the
 * reference (ref/special.c, correctly rounded; tests/ref/test_erf_inv.c
 * checks it against mpmath and an independent MPFR oracle):
 *  - every f16 and bf16 bit pattern, and 2^13 f32 and 2^12 f64 operands
 *    (random significands over every binade of (-1, 1) and next to +-1,
 *    plus the specials), bit for bit: the runtime decides its rounding from
 *    a proven bound, so it is correctly rounded too; 1 and 2 threads agree;
 *  - rt_erf_inv_ld, the long double evaluation whose error bound
 *    (2^-56 relative) decides the rounding, measured against MPFR at 200
 *    bits over the same kind of operands: the largest relative error seen
 *    is printed (docs/runtime-math.md quotes it) and must stay below the
 *    bound. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpfr.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "../../runtime/rt_math.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic operands, independent of the code under test */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static plumb_runtime *rts[3];

static plumb_runtime *rt(uint32_t threads)
{
    if (!rts[threads]) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = threads;
        plumb_diag d = {0};
        rts[threads] = plumb_runtime_create(&o, &d);
        if (!rts[threads])
            plumb_diag_print(&d, stderr);
        assert_non_null(rts[threads]);
    }
    return rts[threads];
}

/* A random operand of t with |x| < 1: a random binade down to the
 * subnormals, or one within 2^12 ULP below 1; random sign. */
static uint64_t operand(plumb_dtype t)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t r = rnd(), bias = (1ull << (di->exp_bits - 1)) - 1, bits;
    if (r % 8 == 0) {
        uint64_t one = bias << di->mant_bits;
        bits = one - 1 - (rnd() % 4096);
    } else {
        uint64_t e = rnd() % bias;   /* 0 (subnormal) .. bias - 1 (just below 1) */
        bits = (e << di->mant_bits) | (rnd() & ((1ull << di->mant_bits) - 1));
    }
    return bits | ((r >> 40 & 1) << (di->bits - 1));
}

static void compare(plumb_dtype t, uint64_t n)
{
    const char *tn = plumb_dtype_name(t);
    char text[512];
    snprintf(text, sizeof text,
             "func.func @main(%%x: tensor<%llux%s>) -> tensor<%llux%s> {\n"
             "  %%r = chlo.erf_inv %%x : tensor<%llux%s> -> tensor<%llux%s>\n"
             "  return %%r : tensor<%llux%s>\n}\n",
             (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n,
             tn, (unsigned long long)n, tn);
    plumb_diag d = {0};
    ir_module *m = ir_parse(text, strlen(text), "erf_inv.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d))
        fail_msg("%s\n%s", d.msg, text);
    int64_t dim = (int64_t)n;
    plumb_tensor *x = plumb_tensor_new(t, 1, &dim, 0, &d);
    assert_non_null(x);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t k = 0;
    if (di->bits == 16) {
        for (; k < n; k++)
            plumb_store_bits(t, x->data, k, k);
    } else {
        uint64_t sign = 1ull << (di->bits - 1), inf = ((1ull << di->exp_bits) - 1) << di->mant_bits;
        uint64_t one = (((1ull << (di->exp_bits - 1)) - 1) << di->mant_bits);
        const uint64_t specials[] = {0, sign, one, one | sign, one + 1, inf, inf | sign, inf + 1, 1, 1 | sign,
                                     one - 1, (one - 1) | sign};
        for (; k < sizeof specials / sizeof specials[0]; k++)
            plumb_store_bits(t, x->data, k, specials[k]);
        for (; k < n; k++)
            plumb_store_bits(t, x->data, k, operand(t));
    }
    plumb_ref_result res = {0};
    plumb_tensor *got = NULL, *two = NULL;
    if (!plumb_ref_run(m, NULL, &x, 1, NULL, &res, &d))
        fail_msg("reference: %s", d.msg);
    if (!plumb_runtime_run(rt(1), m, NULL, &x, 1, &got, 1, NULL, &d))
        fail_msg("runtime: %s", d.msg);
    if (!plumb_runtime_run(rt(2), m, NULL, &x, 1, &two, 1, NULL, &d))
        fail_msg("runtime on 2 threads: %s", d.msg);
    assert_true(plumb_tensor_equal(got, two));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t w = plumb_load_bits(t, res.outputs[0]->data, i), g = plumb_load_bits(t, got->data, i);
        if (w != g && bad++ < 5)
            print_error("%s erf_inv(0x%llx): runtime 0x%llx, reference 0x%llx\n", tn,
                        (unsigned long long)plumb_load_bits(t, x->data, i), (unsigned long long)g,
                        (unsigned long long)w);
    }
    print_message("%s: %llu operands, %llu differ from the reference\n", tn, (unsigned long long)n,
                  (unsigned long long)bad);
    assert_int_equal(bad, 0);
    plumb_tensor_free(got);
    plumb_tensor_free(two);
    plumb_tensor_free(x);
    plumb_ref_result_free(&res);
    ir_module_free(m);
}

/* Every 16-bit pattern and the f32/f64 samples, bit for bit. */
static void test_vs_reference(void **state)
{
    (void)state;
    compare(PLUMB_F16, 65536);
    compare(PLUMB_BF16, 65536);
    compare(PLUMB_F32, 1u << 13);
    compare(PLUMB_F64, 1u << 12);
}

/* rt_erf_inv_ld's relative error against erf^-1 at 200 bits (Newton in
 * MPFR from the long double value; the correction is the error). */
static void test_ld_error(void **state)
{
    (void)state;
    double worst = 0, worst_a = 0;
    mpfr_t y, f, dd, c;
    mpfr_inits2(200, y, f, dd, c, (mpfr_ptr)0);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);
    mpfr_ui_div(c, 2, c, MPFR_RNDN);
    for (int i = 0; i < 20000; i++) {
        uint64_t b = operand(PLUMB_F64) & ~(1ull << 63);
        double a = plumb_f64_from_bits(b);
        if (!(a > 0 && a < 1))
            continue;
        long double v = rt_erf_inv_ld(a);
        mpfr_set_ld(y, v, MPFR_RNDN);
        for (int it = 0; it < 4; it++) {   /* from 2^-56 to far below 2^-200 */
            mpfr_erf(f, y, MPFR_RNDN);
            mpfr_sub_d(f, f, a, MPFR_RNDN);
            mpfr_sqr(dd, y, MPFR_RNDN);
            mpfr_neg(dd, dd, MPFR_RNDN);
            mpfr_exp(dd, dd, MPFR_RNDN);
            mpfr_mul(dd, dd, c, MPFR_RNDN);
            mpfr_div(f, f, dd, MPFR_RNDN);
            mpfr_sub(y, y, f, MPFR_RNDN);
        }
        mpfr_set_ld(f, v, MPFR_RNDN);
        mpfr_sub(f, f, y, MPFR_RNDN);
        mpfr_div(f, f, y, MPFR_RNDN);
        double rel = fabs(mpfr_get_d(f, MPFR_RNDN));
        if (rel > worst) {
            worst = rel;
            worst_a = a;
        }
    }
    mpfr_clears(y, f, dd, c, (mpfr_ptr)0);
    print_message("rt_erf_inv_ld: largest relative error %.3g (2^%.2f) at a = %a; bound 2^-56\n", worst,
                  worst > 0 ? log2(worst) : -INFINITY, worst_a);
    assert_true(worst < 0x1p-56);
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        if (rts[i])
            plumb_runtime_destroy(rts[i]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_reference),
        cmocka_unit_test(test_ld_error),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
