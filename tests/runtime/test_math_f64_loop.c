/* The one-input f64 math loop (runtime/k_ew_float.c f64_math: two vectors
 * per step at AVX-512 and portable, one at AVX2, then single vectors and a
 * partial one) and f64_math2's atan2 loop (the same steps) on every length 1..41 at offsets 0..2, into a separate
 * result and in place over each operand, at every ISA level the machine
 * has. Each element is checked against MPFR (200 bits rounded to double:
 * within 2 ULP where finite and nonzero, bit for bit for zeros and
 * infinities, NaN for NaN), every level bit for bit against the portable
 * one, and the bytes after the range stay untouched. The operands mix
 * vector lanes with the lanes each function redoes by the scalar rule
 * (NaN, overflow, log of 0 and negatives, sine's far and medium
 * arguments): a loop that stored a vector's results before redoing its
 * rare lanes from the array would, in place, read results as operands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <mpfr.h>

#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_internal.h"
#include "f64_bits.h"

/* op(x) (atan2: op(x, y)) by MPFR at 200 bits, rounded to double (mpfr_get_d
 * rounds once, into the subnormals too) */
static double mp_math(plumb_opcode op, double x, double y)
{
    mpfr_t a, b, r;
    mpfr_inits2(200, a, b, r, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    switch (op) {
    case PLUMB_OP_ATAN2: mpfr_atan2(r, a, b, MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL: mpfr_exp(r, a, MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: mpfr_expm1(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG: mpfr_log(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG_PLUS_ONE: mpfr_log1p(r, a, MPFR_RNDN); break;
    case PLUMB_OP_TANH: mpfr_tanh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_SINE: mpfr_sin(r, a, MPFR_RNDN); break;
    case PLUMB_OP_COSINE: mpfr_cos(r, a, MPFR_RNDN); break;
    default:   /* logistic: 1 / (1 + e^-x) */
        mpfr_neg(r, a, MPFR_RNDN);
        mpfr_exp(r, r, MPFR_RNDN);
        mpfr_add_ui(r, r, 1, MPFR_RNDN);
        mpfr_ui_div(r, 1, r, MPFR_RNDN);
        break;
    }
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(a, b, r, (mpfr_ptr)0);
    return d;
}

/* got within 2 ULP of want (finite nonzero want; the op table's bounds are
 * at most 2: atan2's), or the same bits for zeros and infinities, or both NaN */
static bool close_to(double got, double want)
{
    if (want != want)
        return got != got;
    if (want == 0 || isinf(want))
        return bits_of(got) == bits_of(want);
    if (got != got || (got < 0) != (want < 0))
        return false;
    uint64_t g = bits_of(got), w = bits_of(want);
    return (g > w ? g - w : w - g) <= 2;
}

/* operands: ordinary vector lanes and each function's rare lanes */
static const double POOL[] = {0.75, -1.25, 2.5, NAN, 0.0, 1e-300, 800.0, -3.0, 100.0, 1e10, -0.0,
                              INFINITY, 0.3, -INFINITY, 20.0, 1.5, -0.6, 7.0, 1e-5};
enum { NP = sizeof POOL / sizeof POOL[0], MAXN = 41, GUARD = 24, TOT = 3 + MAXN + GUARD };

/* operand k of element i (atan2's second operand: the pool shifted by 5) */
static double operand(int k, size_t i, size_t n, size_t off) { return POOL[(i * 7 + n + off + 5 * (size_t)k) % NP]; }

static void check_loop(plumb_opcode op)
{
    int binary = op == PLUMB_OP_ATAN2;
    double x[TOT], y[TOT], o[TOT], first[TOT];
    ir_op irop;
    memset(&irop, 0, sizeof irop);
    for (size_t n = 1; n <= MAXN; n++)
        for (size_t off = 0; off < 3; off++)
            for (int mode = 0; mode < 2 + binary; mode++)   /* 0: separate result, 1: over x, 2: over y */
                for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
                    for (size_t i = 0; i < TOT; i++)
                        x[i] = operand(0, i, n, off), y[i] = operand(1, i, n, off), o[i] = -1234.5;
                    double *out = mode == 0 ? o : mode == 1 ? x : y;
                    rt_ew_args a = {.op = &irop, .code = op, .isa = isa, .t = PLUMB_F64, .rt = PLUMB_F64,
                                    .n_in = 1 + (uint32_t)binary, .in = {x + off, y + off}, .out = out + off, .n = n};
                    assert_true(rt_ew_float(&a));
                    for (size_t i = off; i < off + n; i++) {
                        double xi = operand(0, i, n, off), yi = operand(1, i, n, off);
                        double want = mp_math(op, xi, yi);
                        bool ok = close_to(out[i], want);
                        if (ok && isa != PLUMB_ISA_PORTABLE)
                            ok = bits_of(out[i]) == bits_of(first[i]);
                        if (!ok)
                            fprintf(stderr, "op %d isa %s n %zu off %zu mode %d: element %zu of %a %a got %a want %a\n",
                                    (int)op, rt_isa_name(isa), n, off, mode, i - off, xi, yi, out[i], want);
                        assert_true(ok);
                        if (isa == PLUMB_ISA_PORTABLE)
                            first[i] = out[i];
                    }
                    for (size_t i = 0; i < TOT; i++) {
                        if (i >= off && i < off + n)
                            continue;
                        double keep = mode == 0 ? -1234.5 : operand(mode - 1, i, n, off);
                        assert_true(bits_of(out[i]) == bits_of(keep));
                    }
                }
}

/* each function of the loop: exp, expm1, log, log1p, tanh, logistic, sine,
 * cosine, and f64_math2's atan2(x, y), on every length, offset and level,
 * separate and in place */
static void test_exp_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_EXPONENTIAL);
}
static void test_expm1_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_EXPONENTIAL_MINUS_ONE);
}
static void test_log_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_LOG);
}
static void test_log1p_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_LOG_PLUS_ONE);
}
static void test_tanh_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_TANH);
}
static void test_logistic_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_LOGISTIC);
}
static void test_sine_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_SINE);
}
static void test_cosine_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_COSINE);
}
static void test_atan2_loop(void **state)
{
    (void)state;
    check_loop(PLUMB_OP_ATAN2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_loop),      cmocka_unit_test(test_expm1_loop), cmocka_unit_test(test_log_loop),
        cmocka_unit_test(test_log1p_loop),    cmocka_unit_test(test_tanh_loop),  cmocka_unit_test(test_logistic_loop),
        cmocka_unit_test(test_sine_loop),     cmocka_unit_test(test_cosine_loop), cmocka_unit_test(test_atan2_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
