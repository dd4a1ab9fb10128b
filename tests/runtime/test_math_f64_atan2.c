/* The f64 atan2 vector path's own hard regions (runtime/math_f64.h's
 * d_atan2, which forms fdlibm's reduced argument t from |y| and |x|
 * directly with one division): quotients q = |y/x| within a few ULP of
 * the switch points 7/16, 11/16, 19/16, 39/16 (the interval tests compare
 * |y| with rounded multiples of |x|, so either side may be taken there),
 * q next to 1 (the reduced argument cancels to 0) and next to 2 (where
 * the third interval's numerator may round), at |x| next to the ends of
 * the vector range 2^-968 and 2^1020 (inside: the reductions' sums must
 * neither overflow nor go subnormal; outside: the scalar rule), both
 * signs of each operand. Every result checked: the levels bit for bit
 * equal, within the op table's 2 ULP of the correctly rounded value and
 * below 2.5 ULP from the exact value (the budget test_math_f64_pow asserts
 * on its random pairs). A result equal to glibc's long double atan2l
 * (x87 fpatan, within a few 2^-64 relative) rounded to double is within
 * 0.51 ULP of the exact value and 1 ULP of the correctly rounded one, so
 * it passes without MPFR; every other result is measured with MPFR (the
 * counts of results off the correctly rounded value and the worst error
 * are among those). The random pairs and the special values are
 * test_math_f64_pow's. */
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


static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void) { return splitmix64(&rng_state); }
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }

/* atan2(y, x) rounded once to double in *cr (every pair here has a normal
 * result, |atan2| >= 2^-1000), and |got - atan2(y, x)| in ULPs of cr's
 * binade (f64_err.h) */
static double atan2_err(double y, double x, double got, uint64_t *cr)
{
    mpfr_t r, a, b;
    mpfr_inits2(256, r, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, y, MPFR_RNDN);
    mpfr_set_d(b, x, MPFR_RNDN);
    mpfr_atan2(r, a, b, MPFR_RNDN);
    double c = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(r, a, b, (mpfr_ptr)0);
    *cr = bits_of(c);
    return err_ulps(PLUMB_OP_ATAN2, y, x, got, c);
}

static ir_module *atan2_prog(int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *y = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
    ir_value *x = plumb_nn_param(&nn, PLUMB_F64, 1, &n);
    ir_value *r = plumb_nn_binary(&nn, PLUMB_OP_ATAN2, y, x);
    return nn_finish(&nn, m, &r, 1);
}

/* |x| for one pair: at the vector range's ends (2^-968 and 2^1020, up to
 * 3 ULP either side, or up to a factor 4 inside or outside), or anywhere
 * in [2^-100, 2^100) */
static double pick_x(void)
{
    uint64_t k = rnd64() % 4;
    double end = (rnd64() & 1) ? 0x1p-968 : 0x1p1020;
    if (k == 0)
        return from_bits(bits_of(end) + (uint64_t)((int64_t)(rnd64() % 7) - 3));
    if (k == 1)
        return ldexp(end, (int)(rnd64() % 5) - 2) * (1.0 + rnd_unit() * 0.5);
    return ldexp(1.0 + rnd_unit(), (int)(rnd64() % 200) - 100);
}

/* q for one pair: a switch point (or 1 or 2) times (1 + u 2^-e), e up
 * to 60 (so within an ULP of it for the larger e), or uniform in each
 * interval */
static double pick_q(void)
{
    static const double pts[] = {0.4375, 0.6875, 1.1875, 2.4375, 1.0, 2.0};
    if (rnd64() & 3) {
        double c = pts[rnd64() % 6];
        return c * (1.0 + (rnd_unit() - 0.5) * ldexp(1.0, -(int)(rnd64() % 61)));
    }
    static const double lo[] = {0.0, 0.4375, 0.6875, 1.1875, 2.4375}, hi[] = {0.4375, 0.6875, 1.1875, 2.4375, 8.0};
    size_t i = rnd64() % 5;
    return lo[i] + (hi[i] - lo[i]) * rnd_unit();
}

/* the pairs above at every level: bit for bit equal, within 2 ULP of the
 * correctly rounded value and 2.5 ULP of the exact one (the pairs with q
 * below 2^-900 are left out: their results may be subnormal, which
 * test_math_f64_pow's tiny quotients cover). Also the y = x c pairs
 * whose |y| is each of the 7 doubles around RN(c |x|) for the switch
 * points c, where the interval test is decided at the last bit. */
static void test_atan2_hard_regions(void **state)
{
    (void)state;
    const char *env = getenv("PLUMB_TEST_F64_N");
    size_t n = env ? (size_t)strtoull(env, NULL, 10) : getenv("PLUMB_TEST_QUICK") ? 100000 : 1000000;
    n -= n % 8;
    double *ys = malloc(n * sizeof *ys), *xs = malloc(n * sizeof *xs);
    assert_non_null(ys);
    assert_non_null(xs);
    static const double sw[] = {0.4375, 0.6875, 1.1875, 2.4375};
    for (size_t i = 0; i < n; i++) {
        double x = pick_x(), y;
        if (i % 8 == 0) {
            /* the 7 doubles around RN(c x) */
            y = from_bits(bits_of(sw[rnd64() % 4] * x) + (uint64_t)((int64_t)(rnd64() % 7) - 3));
        } else {
            y = x * pick_q();
            if (!(y >= 0x1p-900 * x) || y == 0.0)
                y = x;
        }
        if (!isfinite(y))   /* c x or q x past the largest double */
            y = x;
        ys[i] = (rnd64() & 1) ? -y : y;
        xs[i] = (rnd64() & 1) ? -x : x;
    }
    int64_t len = (int64_t)n;
    ir_module *m = atan2_prog(len);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d), plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    memcpy(in[0]->data, ys, n * sizeof *ys);
    memcpy(in[1]->data, xs, n * sizeof *xs);
    plumb_tensor **first = run_levels_same(m, rt_cpu_best_isa(), in, 2, n * sizeof(double));
    const uint64_t *got = first[0]->data;
    size_t bad = 0, off = 0, scalar = 0, by_mpfr = 0;
    double worst = 0;
    for (size_t e = 0; e < n; e++) {
        double ax = fabs(xs[e]);
        scalar += !(ax >= 0x1p-968 && ax <= 0x1p1020);
        double l = (double)atan2l(ys[e], xs[e]);
        if (isnormal(l) && bits_of(l) == got[e])
            continue;
        by_mpfr++;
        uint64_t cr;
        double err = atan2_err(ys[e], xs[e], from_bits(got[e]), &cr);
        uint64_t dist = cr > got[e] ? cr - got[e] : got[e] - cr;   /* same sign: the patterns are ordered */
        off += dist != 0;
        worst = err > worst ? err : worst;
        if ((dist > 2 || (cr >> 63) != (got[e] >> 63) || err >= 2.5) && bad++ < 10)
            fprintf(stderr, "atan2(%a, %a): got 0x%016llx want 0x%016llx, %.4f ULP from the exact value\n", ys[e], xs[e],
                    (unsigned long long)got[e], (unsigned long long)cr, err);
    }
    fprintf(stderr,
            "f64 atan2 hard regions: %zu pairs (%zu with |x| outside the vector range, %zu checked with MPFR), %zu off the "
            "correctly rounded value, worst %.4f ULP from the exact value, %zu over the bound\n",
            n, scalar, by_mpfr, off, worst, bad);
    assert_int_equal(bad, 0);
    mpfr_free_cache();
    run_free_outs(first, 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
    free(ys);
    free(xs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atan2_hard_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
