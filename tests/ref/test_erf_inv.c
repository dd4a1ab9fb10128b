/* chlo.erf_inv on the reference (ref/special.c): correctly rounded erf^-1.
 *
 * Expected values:
 *  - finite results: erf^-1 computed outside plumb with mpmath 1.3.0
 *    (mpmath.erfinv at 400 bits), rounded to each format with a
 *    hand-written integer round-to-nearest-even (subnormal exponent clamp
 *    included), e.g. erf^-1(1/2) = 0.47693627620446987338... -> f32
 *    0x3EF430FE, f64 0x3FDE861FBB24C00A;
 *  - special values from the definition: erf^-1(+-0) = +-0, erf^-1(+-1) =
 *    +-inf, |x| > 1 -> the default NaN, a NaN operand quieted;
 *  - an oracle independent of ref/special.c's midpoint test: Newton's
 *    method in MPFR at 256 bits (erf and exp only), its root rounded to the
 *    format by mpfr_subnormalize where mpfr_can_round decides it, over a
 *    spread of every type's operands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "ref_test.h"

#include "../../ref/crmath.h"

/* Runs `body` (computing %r and the expected constant %e of type T) and
 * asserts bitwise equality. */
static void expect_prog(const char *T, const char *body)
{
    char text[4096];
    snprintf(text, sizeof text, "func.func @main() -> (%s, %s) {\n%s\n  return %%r, %%e : %s, %s\n}\n", T, T, body, T,
             T);
    expect_outputs_equal(text);
}

/* chlo.erf_inv of dense<a> : T, pretty (generic = false) or generic form. */
static void erfinv(const char *T, const char *a, const char *want, bool generic)
{
    char body[2048];
    snprintf(body, sizeof body,
             "  %%a = stablehlo.constant dense<%s> : %s\n"
             "  %%e = stablehlo.constant dense<%s> : %s\n"
             "  %%r = %s",
             a, T, want, T, generic ? "\"chlo.erf_inv\"(%a) : (" : "chlo.erf_inv %a : ");
    size_t n = strlen(body);
    if (generic)
        snprintf(body + n, sizeof body - n, "%s) -> %s", T, T);
    else
        snprintf(body + n, sizeof body - n, "%s -> %s", T, T);
    expect_prog(T, body);
}

/* mpmath's values (see the header), every type, both forms. */
static void test_values(void **state)
{
    (void)state;
    erfinv("tensor<8xf32>",
           "[0x3F000000, 0xBF000000, 0x3E800000, 0x3F666666, 0x3F7D70A4, 0xBF7FFFEF, 0x0DA24260, 0x3F400000]",
           "[0x3EF430FE, 0xBEF430FE, 0x3E66B834, 0x3F94E00A, 0x3FE92332, 0xC05D40B6, 0x0D8FCC6D, 0x3F503C48]", false);
    /* 1.5555429e-8: between the seed's series and its closed form's useful
     * range (a seed of x itself once walked 533,000 patterns to the answer) */
    erfinv("tensor<1xf32>", "[0x32859EC0]", "[0x326CD5E3]", false);
    /* 0.5, 0.1, -0.9, 0.999, 1 - 2^-53, 1e-300, the smallest subnormal, 0.3 */
    erfinv("tensor<8xf64>",
           "[0x3FE0000000000000, 0x3FB999999999999A, 0xBFECCCCCCCCCCCCD, 0x3FEFF7CED916872B, 0x3FEFFFFFFFFFFFFF, "
           "0x01A56E1FC2F8F359, 0x0000000000000001, 0x3FD3333333333333]",
           "[0x3FDE861FBB24C00A, 0x3FB6BF442539FD74, 0xBFF29C0146770651, 0x40029D311405CDB4, 0x4017744F8F74E94A, "
           "0x01A2FDF36BF69B9F, 0x0000000000000001, 0x3FD1700774485ED2]", true);
    /* 0.5, 0.125, -0.875, 1 - 2^-10, the smallest subnormal */
    erfinv("tensor<5xf16>", "[0x3800, 0x3000, 0xBB00, 0x3BFE, 0x0001]", "[0x37A2, 0x2F1E, 0xBC57, 0x40AA, 0x0001]",
           false);
    erfinv("tensor<4xbf16>", "[0x3F00, 0x3EC0, 0xBF7F, 0x3F7E]", "[0x3EF4, 0x3EB1, 0xC003, 0x3FF1]", true);
}

/* The definition's special values: signed zeros kept, +-1 -> +-inf, outside
 * [-1, 1] (infinities too) -> the default NaN, NaN operands quieted with
 * sign and payload kept. */
static void test_specials(void **state)
{
    (void)state;
    erfinv("tensor<9xf32>",
           "[0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F800001, 0xC0000000, 0x7F800000, 0xFF800000, "
           "0xFFA00001]",
           "[0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, "
           "0xFFE00001]", false);
    erfinv("tensor<4xf16>", "[0x8000, 0x3C00, 0xBC01, 0x7C01]", "[0x8000, 0x7C00, 0x7E00, 0x7E01]", false);
    erfinv("tensor<3xf64>", "[0xBFF0000000000000, 0x3FF0000000000001, 0x7FF0000000000001]",
           "[0xFFF0000000000000, 0x7FF8000000000000, 0x7FF8000000000001]", true);
}

/* ---- the independent oracle ------------------------------------------------------ */

static int prec_of(plumb_dtype t) { return t == PLUMB_F16 ? 11 : t == PLUMB_BF16 ? 8 : t == PLUMB_F32 ? 24 : 53; }

/* erf^-1(a), 0 < a < 1, rounded to t by Newton at 256 bits from the start
 * y0 = a (erf is concave on y > 0: every iterate after the first lies
 * below the root and they increase to it). False when the root's
 * precision cannot decide the rounding (the element is skipped). */
static bool oracle(plumb_dtype t, double a, uint64_t *out)
{
    const int P = 256;
    mpfr_t y, f, d, c;
    mpfr_inits2(P, y, f, d, c, (mpfr_ptr)0);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);
    mpfr_ui_div(c, 2, c, MPFR_RNDN);   /* 2/sqrt(pi) */
    mpfr_set_d(y, a, MPFR_RNDN);
    bool ok = false;
    for (int i = 0; i < 400; i++) {
        mpfr_erf(f, y, MPFR_RNDN);
        mpfr_sub_d(f, f, a, MPFR_RNDN);
        mpfr_sqr(d, y, MPFR_RNDN);
        mpfr_neg(d, d, MPFR_RNDN);
        mpfr_exp(d, d, MPFR_RNDN);
        mpfr_mul(d, d, c, MPFR_RNDN);
        mpfr_div(f, f, d, MPFR_RNDN);
        mpfr_sub(y, y, f, MPFR_RNDN);
        if (mpfr_zero_p(f) || mpfr_get_exp(f) < mpfr_get_exp(y) - 240) {
            ok = true;
            break;
        }
    }
    /* error below 2^(EXP(y) - 230): decide the rounding at p bits */
    ok = ok && mpfr_can_round(y, 230, MPFR_RNDN, MPFR_RNDZ, prec_of(t) + 1);
    if (ok) {
        mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
        mpfr_t r;
        mpfr_init2(r, prec_of(t));
        int inex = mpfr_set(r, y, MPFR_RNDN);
        mpfr_set_emin(t == PLUMB_F16 ? -23 : t == PLUMB_F64 ? -1073 : t == PLUMB_F32 ? -148 : -132);
        mpfr_set_emax(t == PLUMB_F16 ? 16 : t == PLUMB_F64 ? 1024 : 128);
        inex = mpfr_check_range(r, inex, MPFR_RNDN);
        mpfr_subnormalize(r, inex, MPFR_RNDN);
        double v = mpfr_get_d(r, MPFR_RNDN);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        mpfr_clear(r);
        *out = cr_from_double(t, v);
    }
    mpfr_clears(y, f, d, c, (mpfr_ptr)0);
    return ok;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Operands in (0, 1) of t: every pattern for the 16-bit
 * types; random exponents down to the smallest subnormal and random
 * significands for f32/f64, with operands just below 1 included. */
static void check_type(plumb_dtype t, uint32_t count, uint32_t min_checked)
{
    uint32_t checked = 0, skipped = 0;
    for (uint32_t k = 0; k < count; k++) {
        double a;
        if (t == PLUMB_F16 || t == PLUMB_BF16) {
            uint64_t bits = (uint64_t)k + 1;   /* every positive pattern below 1 */
            a = cr_to_double(t, bits);
            if (!(a < 1))
                break;
        } else if (k % 8 == 0) {
            a = 1 - ldexp((double)(next_rand() % 1000 + 1), -(int)(t == PLUMB_F32 ? 24 : 53));
        } else {
            int e = -(int)(next_rand() % (t == PLUMB_F32 ? 150 : 1075)) - 1;
            a = ldexp(1 + (double)(next_rand() >> 11) * 0x1p-53, e);
            a = cr_to_double(t, cr_from_double(t, a));
            if (!(a > 0 && a < 1))
                continue;
        }
        uint64_t xb = cr_from_double(t, a), want;
        if (!oracle(t, a, &want)) {
            skipped++;
            continue;
        }
        uint64_t got = cr_erf_inv(t, xb);
        if (got != want)
            fail_msg("%s erf_inv(%a): got 0x%llx, the oracle says 0x%llx", plumb_dtype_name(t), a,
                     (unsigned long long)got, (unsigned long long)want);
        /* odd */
        uint64_t sign = 1ull << (plumb_dtype_get(t)->bits - 1);
        assert_true(cr_erf_inv(t, xb | sign) == (got | sign));
        checked++;
    }
    print_message("%s: %u operands checked against the oracle, %u undecided by it\n", plumb_dtype_name(t), checked,
                  skipped);
    assert_true(checked >= min_checked);
}

static void test_oracle(void **state)
{
    (void)state;
    /* 0x3BFF and 0x3F7F positive patterns lie below 1 */
    check_type(PLUMB_F16, 1u << 15, 0x3BFF * 9 / 10);
    check_type(PLUMB_BF16, 1u << 15, 0x3F7F * 9 / 10);
    check_type(PLUMB_F32, 3000, 2000);
    check_type(PLUMB_F64, 3000, 2000);
}

/* The verifier: floats only, the result has the operand's type; messages
 * name the op. */
static void expect_reject(const char *body, const char *needle)
{
    char text[2048];
    snprintf(text, sizeof text, "func.func @main(%%x: tensor<4xf32>, %%i: tensor<4xi32>) {\n%s\n  return\n}\n", body);
    expect_refused(text, needle);
}

static void test_verify(void **state)
{
    (void)state;
    expect_reject("  %r = chlo.erf_inv %i : tensor<4xi32> -> tensor<4xi32>", "element type i32");
    expect_reject("  %r = chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf64>", "chlo.erf_inv");
    expect_reject("  %r = chlo.erf_inv %x : tensor<4xf32> -> tensor<2xf32>", "chlo.erf_inv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
