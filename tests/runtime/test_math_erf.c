/* The f32 erf (runtime/math_erf.h: rt_erf_f32_lane at the portable level,
 * x8_erf at avx2, rt_x16_erf at avx512, reached through rt_vmath_f32)
 * against MPFR's correctly rounded erf at f32's precision and exponent
 * range: within the op table's bound (1 ULP) where the result is normal,
 * bit for bit where it is zero or subnormal (the contract wants those
 * exact) and for NaN operands (quieted, payload kept), and every level's
 * bits equal to the portable level's (the same f32 operations in the same
 * order). PLUMB_TEST_ERF_N sets the number of random operands (default
 * 1,000,000). The exhaustive sweep over all 2^32 inputs is a tool run
 * (tools/ulp_sweep, docs/runtime-math.md). */
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

#include "plumb/checkcmp.h"
#include "../../runtime/rt_internal.h"

static uint32_t fb(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* erf x correctly rounded to f32 (subnormals included: MPFR at 24 bits in
 * f32's exponent range, subnormalized with its ternary value, one
 * rounding); NaN operands quieted with their payload. */
static uint32_t oracle(float x)
{
    if (x != x)
        return fb(x) | 0x00400000u;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t a, r;
    mpfr_init2(a, 24);
    mpfr_init2(r, 24);
    mpfr_set_flt(a, x, MPFR_RNDN);
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    int inex = mpfr_erf(r, a, MPFR_RNDN);
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    float f = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(a, r, (mpfr_ptr)0);
    return fb(f);
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Runs erf on x[0..n) at every level the CPU has and checks each result
 * against the oracle (want) and against the portable level's bits. */
static void check_all(const float *x, size_t n)
{
    uint32_t *want = malloc(n * sizeof *want);
    float *got = malloc(n * sizeof *got), *port = malloc(n * sizeof *port);
    assert_non_null(want);
    assert_non_null(got);
    assert_non_null(port);
    for (size_t i = 0; i < n; i++)
        want[i] = oracle(x[i]);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        rt_vmath_f32_fn f = rt_vmath_f32(PLUMB_OP_ERF, isa);
        assert_non_null(f);
        f(x, isa == PLUMB_ISA_PORTABLE ? port : got, n);
        const float *g = isa == PLUMB_ISA_PORTABLE ? port : got;
        for (size_t i = 0; i < n; i++) {
            uint32_t gb = fb(g[i]), wb = want[i];
            float wf = bf(wb);
            int exact = wf != wf || fabsf(wf) < 0x1p-126f;   /* NaN, zero, subnormal */
            uint64_t d = plumb_ulp_distance(PLUMB_F32, gb, wb);
            if ((exact && gb != wb) || (!exact && d > 1)) {
                fprintf(stderr, "isa %d: erf(%a) [0x%08X] = 0x%08X, want 0x%08X (%llu ULP)\n", (int)isa,
                        (double)x[i], fb(x[i]), gb, wb, (unsigned long long)d);
                fail();
            }
            if (isa != PLUMB_ISA_PORTABLE && gb != fb(port[i])) {
                fprintf(stderr, "isa %d: erf(0x%08X) = 0x%08X, portable 0x%08X\n", (int)isa, fb(x[i]), gb,
                        fb(port[i]));
                fail();
            }
        }
    }
    free(want);
    free(got);
    free(port);
}

/* Random operands: half uniform over all bit patterns (every binade,
 * NaNs, infinities, subnormals), half uniform in |x| <= 4.5 with a random
 * sign (where erf is not +-1 and both pieces of the method live). */
static void test_random(void **state)
{
    (void)state;
    size_t n = 1000000;
    const char *e = getenv("PLUMB_TEST_ERF_N");
    if (e && atol(e) > 0)
        n = (size_t)atol(e);
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    uint64_t s = 0x5EEDE7F0ull;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mix(&s);
        if (i & 1)
            x[i] = bf((uint32_t)r);
        else
            x[i] = (float)((double)(r >> 40) * 0x1p-24 * 4.5) * ((r >> 39) & 1 ? -1.0f : 1.0f);
    }
    check_all(x, n);
    free(x);
}

/* 1024 consecutive floats around each point where the method changes
 * (every piece boundary k/4 for k = 1..16, among them the switch from the
 * Q form to 1 - E at 1 and the clamp at 4, the largest float below 4,
 * where erf reaches 1 near 3.92, the smallest normal, 0), both signs: the
 * last operands of one piece and the first of the next, so a piece index
 * off by one at a boundary (or a variable t - k outside [0, 1)) fails. */
static void test_boundaries(void **state)
{
    (void)state;
    float pts[16 + 5];
    size_t np = 0;
    for (int k = 1; k <= 16; k++)
        pts[np++] = (float)k / 4;
    pts[np++] = 0x1.fffffep1f;
    pts[np++] = 3.9192f;
    pts[np++] = 0x1p-126f;
    pts[np++] = 0.0f;
    pts[np++] = 0.875f;   /* the old table's split (kept: a point to probe) */
    size_t n = np * 2 * 1024;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    size_t k = 0;
    for (size_t p = 0; p < np; p++)
        for (int sg = 0; sg < 2; sg++)
            for (int d = -512; d < 512; d++) {
                int64_t b = (int64_t)fb(pts[p]) + d;
                if (b < 0)
                    b = -b;   /* below +0: the small positive subnormals */
                x[k++] = bf((uint32_t)b | (sg ? 0x80000000u : 0));
            }
    check_all(x, n);
    free(x);
}

/* Dense sweep of the region where erf is neither linear nor 1: every
 * 127th float of |x| in [0.5, 4.25) (about 200,000, signs alternating),
 * placed in a scrambled order so that the 16- and 8-lane vectors mix
 * pieces 2..15 in one vector (each lane's coefficients by its own
 * permute index; at the AVX2 level from both 8-float halves of a row) as
 * well as in the sorted runs of the boundary test. */
static void test_dense_pieces(void **state)
{
    (void)state;
    uint32_t lo = fb(0.5f), hi = fb(4.25f), step = 127;
    size_t n = (hi - lo) / step;
    float *sw = malloc(n * sizeof *sw), *x = malloc(n * sizeof *x);
    assert_non_null(sw);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        sw[i] = bf((lo + (uint32_t)i * step) | (i & 1 ? 0x80000000u : 0));
    /* 7919 is prime and does not divide n, so i -> i * 7919 mod n is a
     * permutation */
    assert_true(n % 7919 != 0);
    for (size_t i = 0; i < n; i++)
        x[i] = sw[(i * 7919) % n];
    check_all(x, n);
    free(sw);
    free(x);
}

/* Operands with |x| < 1.5 only (gelu's erf operands x/sqrt 2 for |x| <
 * 2.12; pieces 0..5, both forms): 200,000 of them, uniform in magnitude,
 * random signs, so that nearly every vector mixes Q and E lanes and both
 * signs (the sign carried by A = min(|x|, 1) with x's sign, not put back
 * afterwards); against MPFR and, at every level, bit for bit the portable
 * level's lane form. */
static void test_gelu_range(void **state)
{
    (void)state;
    size_t n = 200000;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    uint64_t s = 0x0DDBA11ull;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mix(&s);
        x[i] = (float)((double)(r >> 40) * 0x1p-24 * 1.5) * ((r >> 39) & 1 ? -1.0f : 1.0f);
    }
    check_all(x, n);
    free(x);
}

/* Special operands: +-0 keep their sign, +-inf and the largest finite give
 * +-1, subnormals the correctly rounded (subnormal) result, NaN payloads
 * quieted and kept: by the oracle, and spelled out for the zeros and
 * infinities. */
static void test_specials(void **state)
{
    (void)state;
    const float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1.8p-140f,
                       bf(0x7F800001u), bf(0xFFC12345u), bf(0x7FC00000u), 0x1.fffffep127f, -0x1.fffffep127f,
                       20.0f, -3.5f};
    size_t n = sizeof x / sizeof x[0];
    check_all(x, n);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        float r[4];
        rt_vmath_f32(PLUMB_OP_ERF, isa)(x, r, 4);
        assert_int_equal(fb(r[0]), 0x00000000u);
        assert_int_equal(fb(r[1]), 0x80000000u);
        assert_int_equal(fb(r[2]), 0x3F800000u);
        assert_int_equal(fb(r[3]), 0xBF800000u);
    }
}

/* Every array length 1..67 (the 16- and 8-lane loops' masked tails), with
 * one NaN and one subnormal placed in the array (flagged lanes next to
 * ordinary ones): each element as computed alone, and all of them
 * within the bound. */
static void test_lengths(void **state)
{
    (void)state;
    float x[67], r[67], one[1];
    uint64_t s = 7;
    for (int i = 0; i < 67; i++)
        x[i] = (float)((double)(mix(&s) >> 40) * 0x1p-24 * 9.0 - 4.5);
    x[5] = bf(0x7FA00001u);
    x[20] = 0x1.5p-135f;
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        rt_vmath_f32_fn f = rt_vmath_f32(PLUMB_OP_ERF, isa);
        for (size_t n = 1; n <= 67; n++) {
            f(x, r, n);
            for (size_t i = 0; i < n; i++) {
                f(x + i, one, 1);
                assert_int_equal(fb(r[i]), fb(one[0]));
            }
        }
    }
    check_all(x, 67);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_dense_pieces),
        cmocka_unit_test(test_gelu_range),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_lengths),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    mpfr_free_cache();
    return r;
}
