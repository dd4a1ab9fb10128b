/* The f64 power's and atan2's vector paths (runtime/math_f64.h through
 * runtime/k_ew_float.c) against MPFR (correctly rounded at double's
 * precision and exponent range, subnormalized), at every ISA level the
 * machine has: the levels bit for bit equal to each other, each result
 * within the op table's bound (power 1 ULP, atan2 2) of the correctly
 * rounded one where that is normal, and bit for bit equal to it where it
 * is subnormal, zero, infinite or NaN: every pair of special operands
 * (zeros, infinities, NaNs with payloads, +-1, subnormals, the largest 
 * double, integral and half-integral exponents) follows C99 Annex F
 * (MPFR's pow and atan2 implement it) with the engine's NaN rule (a NaN
 * operand quieted, the base's first; pow(x, +-0) = pow(+1, y) = 1 even
 * for NaN; an invalid result the positive default NaN). A random pair
 * whose result equals glibc's long double powl or atan2l (within a few
 * 2^-64 relative) rounded to double and is normal passes without MPFR:
 * it is then within 1 ULP of the correctly rounded value and 0.51 ULP of
 * the exact one, inside both bounds and budgets below; every special
 * pair, and every other result, is checked with MPFR (the counts off the
 * correctly rounded value and the worst error are among those). PLUMB_TEST_F64_N
 * sets the number of random pairs (default 1,000,000; 100,000 with
 * PLUMB_TEST_QUICK, which tests/run.sh sets under the sanitizers;
 * docs/runtime-math.md records a run with 10^7). */
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
#include "f64_err.h"


/* pow(x, y) or atan2(x, y) correctly rounded to double (the caller set
 * MPFR's exponent range to double's), with the engine's rules for NaN. */
static uint64_t cr_binary(plumb_opcode op, double x, double y)
{
    if (op == PLUMB_OP_POWER && ((y == y && y == 0) || x == 1.0))
        return bits_of(1.0);
    if (x != x)
        return bits_of(x) | 0x0008000000000000ull;
    if (y != y)
        return bits_of(y) | 0x0008000000000000ull;
    mpfr_t r, a, b;
    mpfr_inits2(53, r, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    int t = op == PLUMB_OP_POWER ? mpfr_pow(r, a, b, MPFR_RNDN) : mpfr_atan2(r, a, b, MPFR_RNDN);
    t = mpfr_subnormalize(r, t, MPFR_RNDN);
    (void)t;
    uint64_t out = mpfr_nan_p(r) ? 0x7FF8000000000000ull : bits_of(mpfr_get_d(r, MPFR_RNDN));
    mpfr_clears(r, a, b, (mpfr_ptr)0);
    return out;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void) { return splitmix64(&rng_state); }
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }
static double rnd_sign(void) { return (rnd64() & 1) ? -1.0 : 1.0; }

/* Every pair of these (both orders: each is base and exponent, y and x):
 * Annex F's special operands and the paths' thresholds. */
static size_t special_values(double *v)
{
    static const uint64_t pats[] = {
        0, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
        0xFFF8000000000123ull, 0x7FF0000000000001ull, 0xFFF4000000abcdefull, 1, 0x800FFFFFFFFFFFFFull,
        0x0010000000000000ull, 0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
        0x000123456789abcdull,
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        v[n++] = from_bits(pats[i]);
    static const double pts[] = {1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 0.25, 10.0, -10.0,
                                 0x1p31, -0x1p31, 0x1p31 + 1, 0x1p53, -0x1p53, 0x1p53 + 2, 0x1p64, 1023.0, -1074.0,
                                 1.0 + 0x1p-52, 1.0 - 0x1p-53, -1.0 - 0x1p-52, 0.4375, 0.6875, 1.1875, 2.4375,
                                 0x1p60, 0x1p-60, 0x1p61, 0x1p-61, 0x1.6a09e667f3bcdp+0, 3.141592653589793, 1e300,
                                 -1e300, 1e-300, 7.0, -7.0, 0.1, 2.718281828459045};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        v[n++] = pts[i];
    return n;
}

/* One random pair for power, in tenths: two x in (0, 4) and y in
 * [-40, 40]; one x near 1 (1 + 2^-e u) with |y| up to 2^31 (the extra
 * precision of log x matters most there); one x a small integer (either
 * sign) and y an integer in [-60, 60] (exact results); one y in [-10, 10]
 * and x = 2^(t/y) with t near the overflow, underflow and subnormal
 * thresholds 1024, -1022, -1074 (and x negative with y integral); one any
 * positive x and y in [-4, 4]; two any bit patterns; two the hard cases
 * of the table-driven log (math_f64_pow.h): x within a few hundred ULPs
 * of an end of one of its 256 subintervals (bit pattern 0x3FE6B8 + i 2^44,
 * scaled by 2^e) or near 1, and y with |y ln x| in [600, 709], where the
 * log's error is multiplied most (up to 709 times its relative error). */
static void random_pow(double *x, double *y)
{
    uint64_t k = rnd64() % 10;
    if (k >= 8) {
        uint64_t i = rnd64() % 257;
        int64_t off = (int64_t)(rnd64() % 512) - 256;
        double z = from_bits(0x3FE6B80000000000ull + (i << 44) + (uint64_t)off);
        if (k == 9)   /* near 1: the subinterval log x = log1p(x - 1) and its neighbours */
            z = 1.0 + ldexp(rnd_unit() - 0.5, -(int)(rnd64() % 50) - 6);
        int e = (rnd64() & 3) == 0 ? (int)(rnd64() % 41) - 20 : 0;
        *x = ldexp(z, e);
        double l = log(*x), t = rnd_sign() * (600.0 + 109.0 * rnd_unit());
        *y = l != 0 ? t / l : 1.5;
        return;
    }
    switch (k) {
    case 0: case 1:
        *x = 4.0 * rnd_unit();
        *y = 80.0 * rnd_unit() - 40.0;
        return;
    case 2:
        *x = 1.0 + ldexp(rnd_unit() - 0.5, -(int)(rnd64() % 53));
        *y = rnd_sign() * ldexp(rnd_unit(), (int)(rnd64() % 32));
        return;
    case 3:
        *x = (double)((int64_t)(rnd64() % 41) - 20);
        *y = (double)((int64_t)(rnd64() % 121) - 60);
        return;
    case 4: {
        static const double ts[] = {1024.0, -1022.0, -1074.0, 1023.0, -1021.0};
        double yy = rnd_sign() * (0.5 + 9.5 * rnd_unit());
        if (rnd64() & 1)
            yy = rint(yy);
        if (yy == 0)
            yy = 3;
        double t = ts[rnd64() % 5] + (rnd_unit() - 0.5) * 4.0;
        *x = exp2(t / yy);
        if (yy == rint(yy) && (rnd64() & 1))
            *x = -*x;
        *y = yy;
        return;
    }
    case 5:
        *x = from_bits(rnd64() >> 1);
        *y = 8.0 * rnd_unit() - 4.0;
        return;
    default:
        *x = from_bits(rnd64());
        *y = from_bits(rnd64());
        return;
    }
}

/* One random pair (y, x) for atan2: a quarter both uniform in [-2, 2];
 * a quarter y = x q with q near the reduction's switch points 7/16,
 * 11/16, 19/16, 39/16 (and their inverses), both signs; an eighth
 * exponent differences near fdlibm's 60 and tiny quotients near 2^-1020
 * and the subnormal range; the rest any bit patterns. */
static void random_atan2(double *y, double *x)
{
    uint64_t k = rnd64() & 7;
    if (k < 2) {
        *y = 4.0 * rnd_unit() - 2.0;
        *x = 4.0 * rnd_unit() - 2.0;
        return;
    }
    if (k < 4) {
        static const double qs[] = {0.4375, 0.6875, 1.1875, 2.4375, 1.0 / 0.4375, 1.0 / 0.6875, 1.0 / 1.1875,
                                    1.0 / 2.4375, 0x1p-27, 1.0};
        double q = qs[rnd64() % 10] * (1.0 + (rnd_unit() - 0.5) * 0x1p-20);
        *x = rnd_sign() * ldexp(0.5 + rnd_unit(), (int)(rnd64() % 200) - 100);
        *y = rnd_sign() * fabs(*x) * q;
        return;
    }
    if (k == 4) {
        int e = (rnd64() & 1) ? (int)(rnd64() % 8) + 56 : -(int)(rnd64() % 60) - 1000;
        *x = rnd_sign() * ldexp(0.5 + rnd_unit(), (int)(rnd64() % 100) - 20);
        *y = rnd_sign() * ldexp(fabs(*x) * (0.5 + rnd_unit()), e);
        if (rnd64() & 1) {
            double t = *x;
            *x = *y;
            *y = t;
        }
        return;
    }
    *y = from_bits(rnd64());
    *x = from_bits(rnd64());
}

/* Pairs whose result Annex F (or the contract's exact cases) fixes: an
 * operand zero, infinite or NaN, and for power a base of +-1 or an
 * exponent of 1, 2, -1 or 1/2 (x, x*x, 1/x, sqrt x: correctly rounded).
 * These must match bit for bit (a subnormal operand with a normal result
 * is an ordinary one). */
static bool special_pair(plumb_opcode op, double x, double y)
{
    if (!isfinite(x) || !isfinite(y) || x == 0 || y == 0)
        return true;
    return op == PLUMB_OP_POWER && (fabs(x) == 1.0 || y == 1.0 || y == 2.0 || y == -1.0 || (y == 0.5 && x > 0));
}


static ir_module *binary_prog(plumb_opcode op, int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
    ir_value *y = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
    ir_value *r = plumb_nn_binary(&nn, op, x, y);
    return nn_finish(&nn, m, &r, 1);
}

/* op on every pair of special values and N random pairs at portable,
 * avx2 and avx512 (those the machine has): the levels agree bit for bit,
 * and each result is within the bound of the correctly rounded one where
 * that is normal, equal elsewhere. */
static void check_binary(plumb_opcode op, const char *name, uint64_t bound, double max_err)
{
    const char *env = getenv("PLUMB_TEST_F64_N");
    size_t nr = env ? (size_t)strtoull(env, NULL, 10) : getenv("PLUMB_TEST_QUICK") ? 100000 : 1000000;
    double sv[128];
    size_t ns = special_values(sv);
    size_t cap = nr + ns * ns;
    double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
    assert_non_null(xs);
    assert_non_null(ys);
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++) {
            xs[n] = sv[i];
            ys[n++] = sv[j];
        }
    size_t n_special = n;
    while (n < cap) {
        if (op == PLUMB_OP_POWER)
            random_pow(&xs[n], &ys[n]);
        else
            random_atan2(&xs[n], &ys[n]);
        n++;
    }
    int64_t len = (int64_t)n;
    ir_module *m = binary_prog(op, len);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d), plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    memcpy(in[0]->data, xs, n * sizeof *xs);
    memcpy(in[1]->data, ys, n * sizeof *ys);
    plumb_tensor **first = run_levels_same(m, rt_cpu_best_isa(), in, 2, n * sizeof(double));
    /* double's exponent range for the oracle only: restored below, since
     * the runtime's slow path (in this thread) works from the range it finds */
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    const uint64_t *got = first[0]->data;
    size_t bad = 0, off = 0, by_mpfr = 0;
    uint64_t worst = 0;
    double worst_err = 0.5, worst_x = 0, worst_y = 0;   /* a correctly rounded result is within 1/2 ULP */
    for (size_t e = 0; e < n; e++) {
        if (e >= n_special && !special_pair(op, xs[e], ys[e])) {
            double l = (double)(op == PLUMB_OP_POWER ? powl(xs[e], ys[e]) : atan2l(xs[e], ys[e]));
            if (isnormal(l) && bits_of(l) == got[e])
                continue;
        }
        by_mpfr++;
        uint64_t w = cr_binary(op, xs[e], ys[e]), g = got[e];
        if (w == g)
            continue;
        double wd = from_bits(w);
        uint64_t dist = w > g ? w - g : g - w;   /* same sign: the patterns are ordered */
        if (!special_pair(op, xs[e], ys[e]) && isnormal(wd) && (g >> 63) == (w >> 63) && dist <= bound) {
            off++;
            worst = dist > worst ? dist : worst;
            double err = err_ulps(op, xs[e], ys[e], from_bits(g), wd);
            if (err > worst_err) {
                worst_err = err;
                worst_x = xs[e];
                worst_y = ys[e];
            }
            continue;
        }
        if (bad++ < 10)
            fprintf(stderr, "%s(%a, %a) [0x%016llx, 0x%016llx]: got 0x%016llx want 0x%016llx\n", name, xs[e], ys[e],
                    (unsigned long long)bits_of(xs[e]), (unsigned long long)bits_of(ys[e]), (unsigned long long)g,
                    (unsigned long long)w);
    }
    fprintf(stderr,
            "f64 %s: %zu special pairs (exact), %zu random pairs (%zu pairs checked with MPFR), %zu off the correctly "
            "rounded value (within the bound), worst %llu ULP (%.4f ULP of the exact value, at %a, %a), %zu over the "
            "bound or not exact\n",
            name, n_special, n - n_special, by_mpfr, off, (unsigned long long)worst, worst_err, worst_x, worst_y, bad);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    assert_int_equal(bad, 0);
    assert_true(worst_err < max_err);
    mpfr_free_cache();
    run_free_outs(first, 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
    free(xs);
    free(ys);
}

/* power: see check_binary (bound 1 ULP; special pairs bit for bit), and
 * each result within 0.55 ULP of the exact value: math_f64_pow.h's error
 * budget (0.5 for the rounding + 2^-57.4 relative before it, 0.025 ULP) */
static void test_pow_f64(void **state)
{
    (void)state;
    check_binary(PLUMB_OP_POWER, "pow", 1, 0.55);
}

/* atan2: see check_binary (bound 2 ULP; special pairs bit for bit; the
 * error from the exact value only below the bound plus the rounding) */
static void test_atan2_f64(void **state)
{
    (void)state;
    check_binary(PLUMB_OP_ATAN2, "atan2", 2, 2.5);
}

/* Integral powers of small integers whose value is a double are exact at
 * every level (2^k here is independent of the code: ldexp), and
 * pow(-8, 1/3) is the default NaN (a negative base, a non-integral
 * exponent), pow(-2, 3) = -8 and pow(-0, -3) = -inf (Annex F). */
static void test_pow_exact_cases(void **state)
{
    (void)state;
    enum { NC = 64 + 3 };
    double x[NC], y[NC], want[NC];
    for (int k = 0; k < 64; k++) {
        x[k] = (k & 1) ? -2.0 : 2.0;
        y[k] = (double)(k - 32) * 16.0 + (k & 1);   /* odd exponents with the negative base */
        want[k] = ldexp((k & 1) ? -1.0 : 1.0, (k - 32) * 16 + (k & 1));
    }
    x[64] = -8.0, y[64] = 1.0 / 3.0, want[64] = from_bits(0x7FF8000000000000ull);
    x[65] = -2.0, y[65] = 3.0, want[65] = -8.0;
    x[66] = -0.0, y[66] = -3.0, want[66] = -INFINITY;
    int64_t len = NC;
    ir_module *m = binary_prog(PLUMB_OP_POWER, len);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d), plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    memcpy(in[0]->data, x, sizeof x);
    memcpy(in[1]->data, y, sizeof y);
    static const plumb_isa isas[] = {PLUMB_ISA_PORTABLE, PLUMB_ISA_AVX2, PLUMB_ISA_AVX512};
    for (size_t i = 0; i < 3; i++) {
        if (isas[i] > rt_cpu_best_isa())
            continue;
        plumb_tensor **o = run_program(m, 1, 1, isas[i], in, 2, 1);
        const uint64_t *got = o[0]->data;
        for (int k = 0; k < NC; k++) {
            if (got[k] != bits_of(want[k]))
                fprintf(stderr, "pow(%a, %a): got 0x%016llx want %a\n", x[k], y[k], (unsigned long long)got[k], want[k]);
            assert_true(got[k] == bits_of(want[k]));
        }
        run_free_outs(o, 1);
    }
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* The power loop (k_ew_float.c f64_math2) on every length 1..41 at
 * offsets 0..2, into a separate result and in place over x and over y, at
 * every level: each result is its hand-known value (exact powers, whose
 * double the vector path must hit; the rarer lanes: 0^5 = 0, (-3)^3 =
 * -27, 4^0.5 = 2, 0^0 = 1, inf^-1 = 0) and the bytes after the range stay
 * untouched. The vector path reads the bases from memory twice (the log
 * rows' offsets as scalars) and the scalar lanes are redone: in place, a
 * loop that stored a vector's results before redoing its scalar lanes
 * from the arrays would read results as operands. */
static void test_pow_lengths_in_place(void **state)
{
    (void)state;
    static const double px[] = {3, 5, 0.5, 1.5, 7, 0, -3, 4, 0, INFINITY, 4, 2, 10, 0.75, 9, 6, 1};
    static const double py[] = {4, 3, 3, 2, 3, 5, 3, 0.5, 0, -1, -2, -10, 5, 2, 0.5, 3, 1e300};
    static const double pw[] = {81, 125, 0.125, 2.25, 343, 0, -27, 2, 1, 0, 0.0625, 0x1p-10, 1e5, 0.5625, 3, 216, 1};
    enum { NP = sizeof px / sizeof px[0], MAXN = 41, GUARD = 24 };
    double x[3 + MAXN + GUARD], y[3 + MAXN + GUARD], o[3 + MAXN + GUARD], want[3 + MAXN];
    ir_op op;
    memset(&op, 0, sizeof op);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++)
        for (size_t n = 1; n <= MAXN; n++)
            for (size_t off = 0; off < 3; off++)
                for (int mode = 0; mode < 3; mode++) {   /* 0: separate result, 1: over x, 2: over y */
                    for (size_t i = 0; i < 3 + MAXN + GUARD; i++) {
                        size_t k = (i * 7 + n + off) % NP;
                        x[i] = px[k], y[i] = py[k], o[i] = -1234.5;
                        if (i < 3 + MAXN)
                            want[i] = pw[k];
                    }
                    double *out = mode == 0 ? o : mode == 1 ? x : y;
                    rt_ew_args a = {.op = &op, .code = PLUMB_OP_POWER, .isa = isa, .t = PLUMB_F64, .rt = PLUMB_F64,
                                    .n_in = 2, .in = {x + off, y + off}, .out = out + off, .n = n};
                    assert_true(rt_ew_float(&a));
                    for (size_t i = off; i < off + n; i++) {
                        if (bits_of(out[i]) != bits_of(want[i]))
                            fprintf(stderr, "isa %s n %zu off %zu mode %d: pow element %zu got %a want %a\n",
                                    rt_isa_name(isa), n, off, mode, i - off, out[i], want[i]);
                        assert_true(bits_of(out[i]) == bits_of(want[i]));
                    }
                    /* past the range: the inputs' pattern, or o's filler */
                    for (size_t i = off + n; i < 3 + MAXN + GUARD; i++) {
                        size_t k = (i * 7 + n + off) % NP;
                        double keep = mode == 0 ? -1234.5 : mode == 1 ? px[k] : py[k];
                        assert_true(bits_of(out[i]) == bits_of(keep));
                    }
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pow_f64),
        cmocka_unit_test(test_atan2_f64),
        cmocka_unit_test(test_pow_exact_cases),
        cmocka_unit_test(test_pow_lengths_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
