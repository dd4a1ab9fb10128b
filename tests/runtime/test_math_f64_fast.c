/* The exact error steps of the f64 transcendentals (runtime/math_f64.h:
 * d_mul_err, d_sq_err, d_rem_exact, d_zinv_m1; one fused multiply-add at
 * AVX2 and AVX-512, Dekker's product with Veltkamp's split at the portable
 * level) through the three ops that use them: tanh (the quotient's exact
 * remainder n - q d), log (r = z invc - 1) and power (r, -r^2/2 and y
 * log|x| as exact pairs). The levels must give the same bits (the fused
 * step and Dekker's product compute the same exact value: a wrong split
 * or a rounded error term shows up as a difference), at 1 and 2 threads,
 * and each result must be the correctly rounded value (MPFR at double's
 * precision and exponent range, subnormalized), or, where that is normal,
 * within 1 ULP of it and within the op's error budget from the exact value
 * (MPFR at 256 bits): tanh 0.66, log 0.55, power 0.55 (docs/runtime-math.md).
 * Operands aim at the steps: tanh's |x| in [1/16, 22] (every lane of the
 * table path divides), log's and power's x at the ends of the 256
 * subintervals of the log table and next to 1, power's y up to 2^31 with
 * x next to 1, tiny y (y log|x| below 2^-960, where Dekker's halves would
 * underflow: the result is 1 whatever the error term is), results near
 * overflow, underflow and the subnormal range, and the special values of
 * C99 Annex F (F.9.3.7, F.9.4.4, F.9.2.6). PLUMB_TEST_F64_N sets the random
 * count per op (default 200,000; 20,000 with PLUMB_TEST_QUICK). */
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

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_internal.h"
#include "f64_bits.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void) { return splitmix64(&rng_state); }
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }
static double rnd_sign(void) { return (rnd64() & 1) ? -1.0 : 1.0; }

/* f(x) or pow(x, y) into r (its precision), MPFR's ternary value back */
static int mp_eval(plumb_opcode op, mpfr_t r, double x, double y)
{
    mpfr_t a, b;
    mpfr_inits2(53, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    int t = op == PLUMB_OP_TANH ? mpfr_tanh(r, a, MPFR_RNDN)
            : op == PLUMB_OP_LOG ? mpfr_log(r, a, MPFR_RNDN)
                                 : mpfr_pow(r, a, b, MPFR_RNDN);
    mpfr_clears(a, b, (mpfr_ptr)0);
    return t;
}

/* the correctly rounded result with the engine's NaN rule (a NaN operand
 * quieted, the base's first; pow(x, +-0) = pow(+1, y) = 1; an invalid
 * operation the positive default NaN); MPFR's range set to double's by
 * the caller */
static uint64_t cr_value(plumb_opcode op, double x, double y)
{
    if (op == PLUMB_OP_POWER && ((y == y && y == 0) || x == 1.0))
        return bits_of(1.0);
    if (x != x)
        return bits_of(x) | 0x0008000000000000ull;
    if (op == PLUMB_OP_POWER && y != y)
        return bits_of(y) | 0x0008000000000000ull;
    mpfr_t r;
    mpfr_init2(r, 53);
    int t = mp_eval(op, r, x, y);
    t = mpfr_subnormalize(r, t, MPFR_RNDN);
    (void)t;
    uint64_t out = mpfr_nan_p(r) ? 0x7FF8000000000000ull : bits_of(mpfr_get_d(r, MPFR_RNDN));
    mpfr_clear(r);
    return out;
}

/* |got - f| in ULPs of the normal correctly rounded value cr, f at 256 bits */
static double err_from_exact(plumb_opcode op, double x, double y, double got, double cr)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t r, g;
    mpfr_inits2(256, r, g, (mpfr_ptr)0);
    mp_eval(op, r, x, y);
    mpfr_set_d(g, got, MPFR_RNDN);
    mpfr_sub(r, r, g, MPFR_RNDN);
    int ex;
    frexp(cr, &ex);   /* cr = m 2^ex, m in [1/2, 1): ULP 2^(ex - 53) */
    mpfr_mul_2si(r, r, 53 - ex, MPFR_RNDN);
    double e = fabs(mpfr_get_d(r, MPFR_RNDN));
    mpfr_clears(r, g, (mpfr_ptr)0);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return e;
}

static ir_module *prog(plumb_opcode op, int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
    ir_value *r;
    if (op == PLUMB_OP_POWER) {
        ir_value *y = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
        r = plumb_nn_binary(&nn, op, x, y);
    } else {
        r = plumb_nn_unary(&nn, op, x);
    }
    return nn_finish(&nn, m, &r, 1);
}

static size_t random_count(void)
{
    const char *env = getenv("PLUMB_TEST_F64_N");
    return env ? (size_t)strtoull(env, NULL, 10) : getenv("PLUMB_TEST_QUICK") ? 20000 : 200000;
}

/* a value within 256 ULPs of an end of one of the log table's 256
 * subintervals (bit pattern 0x3FE6B8 + i 2^44), scaled by 2^e, or next
 * to 1 */
static double table_end(void)
{
    if (rnd64() % 4 == 0)
        return 1.0 + ldexp(rnd_unit() - 0.5, -(int)(rnd64() % 50) - 6);
    uint64_t i = rnd64() % 257;
    int64_t off = (int64_t)(rnd64() % 512) - 256;
    double z = from_bits(0x3FE6B80000000000ull + (i << 44) + (uint64_t)off);
    int e = (rnd64() & 1) ? (int)(rnd64() % 2001) - 1000 : 0;
    return ldexp(z, e);
}

/* Runs op on xs (and ys) at every level the machine has, 1 and 2
 * threads: every run bit for bit equal to the portable level's at 1
 * thread; then each result against MPFR (see the top). Returns the number
 * of results over the bound or not exact. */
static size_t check_op(plumb_opcode op, const char *name, const double *xs, const double *ys, size_t n,
                       double budget)
{
    int64_t len = (int64_t)n;
    ir_module *m = prog(op, len);
    uint32_t n_in = op == PLUMB_OP_POWER ? 2 : 1;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d), NULL};
    assert_non_null(in[0]);
    memcpy(in[0]->data, xs, n * sizeof *xs);
    if (n_in == 2) {
        in[1] = plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d);
        assert_non_null(in[1]);
        memcpy(in[1]->data, ys, n * sizeof *ys);
    }
    static const plumb_isa isas[] = {PLUMB_ISA_PORTABLE, PLUMB_ISA_AVX2, PLUMB_ISA_AVX512};
    plumb_tensor **first = NULL;
    for (size_t i = 0; i < 3; i++) {
        if (isas[i] > rt_cpu_best_isa())
            continue;
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **o = run_program(m, 1, th, isas[i], in, n_in, 1);
            if (!first) {
                first = o;
                continue;
            }
            const uint64_t *a = first[0]->data, *b = o[0]->data;
            size_t diff = 0;
            for (size_t e = 0; e < n; e++)
                if (a[e] != b[e] && diff++ < 5)
                    fprintf(stderr, "%s(%a, %a): level %d, %u threads 0x%016llx, portable 0x%016llx\n", name, xs[e],
                            n_in == 2 ? ys[e] : 0.0, (int)isas[i], th, (unsigned long long)b[e],
                            (unsigned long long)a[e]);
            assert_int_equal(diff, 0);
            run_free_outs(o, 1);
        }
    }
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    const uint64_t *got = first[0]->data;
    size_t bad = 0, off = 0;
    double worst = 0.5;
    for (size_t e = 0; e < n; e++) {
        double y = n_in == 2 ? ys[e] : 0.0;
        uint64_t w = cr_value(op, xs[e], y), g = got[e];
        if (w == g)
            continue;
        double wd = from_bits(w);
        uint64_t dist = w > g ? w - g : g - w;
        if (isnormal(wd) && (g >> 63) == (w >> 63) && dist == 1) {
            double err = err_from_exact(op, xs[e], y, from_bits(g), wd);
            off++;
            worst = err > worst ? err : worst;
            if (err <= budget)
                continue;
        }
        if (bad++ < 10)
            fprintf(stderr, "%s(%a, %a): got 0x%016llx want 0x%016llx\n", name, xs[e], y, (unsigned long long)g,
                    (unsigned long long)w);
    }
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    fprintf(stderr, "f64 %s: %zu operands, %zu off the correctly rounded value, worst %.4f ULP from the exact value "
                    "(budget %.2f), %zu over or not exact\n",
            name, n, off, worst, budget, bad);
    mpfr_free_cache();
    run_free_outs(first, 1);
    plumb_tensor_free(in[0]);
    if (in[1])
        plumb_tensor_free(in[1]);
    ir_module_free(m);
    return bad;
}

/* the special operands common to the three ops */
static const uint64_t SPECIAL_PATS[] = {
    0, 0x8000000000000000ull, 1, 0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x800FFFFFFFFFFFFFull,
    0x0010000000000000ull, 0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
    0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull, 0xFFF8000000000123ull,
    0x7FF0000000000001ull, 0xFFF4000000abcdefull,
};
#define N_SPECIAL_PATS (sizeof SPECIAL_PATS / sizeof SPECIAL_PATS[0])

/* tanh: the specials, tiny |x| (tanh x = x below 2^-27), the switch at
 * 1/16 and the clamp at 22 (+-3 ULPs), where tanh reaches 1 (19.07);
 * random operands three quarters |x| in [1/16, 22] (the quotient path),
 * an eighth in [2^-30, 1/16), an eighth any bit pattern, both signs. */
static void test_tanh_exact_steps(void **state)
{
    (void)state;
    size_t nr = random_count();
    double *xs = malloc((nr + 200) * sizeof *xs);
    assert_non_null(xs);
    size_t n = 0;
    for (size_t i = 0; i < N_SPECIAL_PATS; i++)
        xs[n++] = from_bits(SPECIAL_PATS[i]);
    static const double pts[] = {0x1p-27, 0x1p-30, 0.0625, 22.0, 19.0615, 19.07, 1.0, 0.5, 700.0, 0x1p-1000};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        for (int k = -3; k <= 3; k++) {
            double v = from_bits(bits_of(pts[i]) + (uint64_t)(int64_t)k);
            xs[n++] = v;
            xs[n++] = -v;
        }
    for (size_t i = 0; i < nr; i++) {
        uint64_t k = rnd64() % 8;
        double a = k < 6 ? 0.0625 + (22.0 - 0.0625) * rnd_unit() * rnd_unit()
                   : k == 6 ? ldexp(1.0 + rnd_unit(), -(int)(rnd64() % 26) - 5)
                            : from_bits(rnd64());
        xs[n++] = rnd_sign() * a;
    }
    assert_int_equal(check_op(PLUMB_OP_TANH, "tanh", xs, NULL, n, 0.66), 0);
    free(xs);
}

/* log: the specials (zeros, subnormals, negative, infinities, NaNs), 1
 * and its neighbours, the ends of z's range; random operands at the table's
 * subinterval ends (any exponent) and next to 1, and any positive
 * pattern. */
static void test_log_exact_steps(void **state)
{
    (void)state;
    size_t nr = random_count();
    double *xs = malloc((nr + 100) * sizeof *xs);
    assert_non_null(xs);
    size_t n = 0;
    for (size_t i = 0; i < N_SPECIAL_PATS; i++)
        xs[n++] = from_bits(SPECIAL_PATS[i]);
    static const double pts[] = {1.0, 0x1.6b8p-1, 0x1.6b8p0, 1.0 - 0x1p-10, 1.0 + 0x1p-9, 2.0, 0.5, -1.0};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        for (int k = -3; k <= 3; k++)
            xs[n++] = from_bits(bits_of(pts[i]) + (uint64_t)(int64_t)k);
    for (size_t i = 0; i < nr; i++)
        xs[n++] = (rnd64() % 8) ? table_end() : from_bits(rnd64() >> 1);
    assert_int_equal(check_op(PLUMB_OP_LOG, "log", xs, NULL, n, 0.55), 0);
    free(xs);
}

/* power: every pair of Annex F's special operands and the paths'
 * thresholds (x = +-0, +-1, +-inf, NaN, negative x with integral and
 * non-integral y, y = +-0, +-inf, +-1, 2, 1/2, huge and tiny y, |y| around
 * 2^31); random pairs: x next to 1 with |y| up to 2^31 (y log x is where
 * the product's error term matters most), x at the table's ends with |y
 * ln x| in [600, 709] (results near overflow and underflow), tiny y
 * (|y| down to the smallest subnormal: y log|x| below 2^-960), results
 * around the overflow, underflow and subnormal thresholds (y log2 x near
 * 1024, -1022, -1074; negative x with integral y), and any x with
 * |y| <= 4. */
static void test_pow_exact_steps(void **state)
{
    (void)state;
    size_t nr = random_count();
    static const double pts[] = {1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5, 0x1p31, -0x1p31,
                                 0x1p31 + 1, 0x1p53, 1e300, -1e300, 1e-300, 0x1p-1074, -0x1p-1074, 1.0 + 0x1p-52,
                                 1.0 - 0x1p-53, 0x1.6b8p-1, 700.0, -745.0, 10.0};
    size_t ns = N_SPECIAL_PATS + sizeof pts / sizeof pts[0];
    double sv[64];
    for (size_t i = 0; i < N_SPECIAL_PATS; i++)
        sv[i] = from_bits(SPECIAL_PATS[i]);
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        sv[N_SPECIAL_PATS + i] = pts[i];
    size_t cap = ns * ns + nr;
    double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
    assert_non_null(xs);
    assert_non_null(ys);
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++) {
            xs[n] = sv[i];
            ys[n++] = sv[j];
        }
    while (n < cap) {
        double x, y;
        switch (rnd64() % 6) {
        case 0:
            x = 1.0 + ldexp(rnd_unit() - 0.5, -(int)(rnd64() % 53));
            y = rnd_sign() * ldexp(1.0 + rnd_unit(), (int)(rnd64() % 31));
            break;
        case 1: {
            x = table_end();
            double l = log(x);
            y = l != 0 ? rnd_sign() * (600.0 + 109.0 * rnd_unit()) / l : 3.0;
            break;
        }
        case 2:
            x = from_bits(rnd64() >> 1);
            y = rnd_sign() * ldexp(1.0 + rnd_unit(), -(int)(rnd64() % 115) - 960);
            if (rnd64() & 1)
                y = rnd_sign() * from_bits(rnd64() >> 12);   /* subnormal */
            break;
        case 3: {
            static const double ts[] = {1024.0, -1022.0, -1074.0, 1023.0};
            y = rnd_sign() * (0.5 + 20.0 * rnd_unit());
            if (rnd64() & 1)
                y = rint(y) != 0 ? rint(y) : 3.0;
            x = exp2((ts[rnd64() % 4] + (rnd_unit() - 0.5) * 4.0) / y);
            if (y == rint(y) && (rnd64() & 1))
                x = -x;
            break;
        }
        case 4:
            x = table_end();
            y = 8.0 * rnd_unit() - 4.0;
            break;
        default:
            x = from_bits(rnd64());
            y = 8.0 * rnd_unit() - 4.0;
            break;
        }
        xs[n] = x;
        ys[n++] = y;
    }
    assert_int_equal(check_op(PLUMB_OP_POWER, "pow", xs, ys, n, 0.55), 0);
    free(xs);
    free(ys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tanh_exact_steps),
        cmocka_unit_test(test_log_exact_steps),
        cmocka_unit_test(test_pow_exact_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
