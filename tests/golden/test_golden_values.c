/* The stored goldens hold the right values: records looked up by their
 * inputs in the committed files (golden/data, or PLUMB_GOLDEN_DIR) are
 * compared with values derived by hand — well-known roundings of e, π and
 * √2, the special cases IEEE 754-2019 and C99 Annex F fix, and the
 * definitions of compare, clamp, convert and reduce_precision — never with
 * anything plumb computes. Also: CRC-32's standard check value, the file
 * names, the manifest's refusals, and that generation is deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plumb/golden.h"

static const char *dir(void)
{
    const char *d = getenv("PLUMB_GOLDEN_DIR");
    return d ? d : "golden/data";
}

/* The stored result for inputs (a[, b]) in file name; fails the test when
 * the file does not load or holds no such record. */
static uint64_t lookup(const char *name, uint64_t a, uint64_t b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir(), name);
    plumb_golden_file f;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!plumb_golden_load(path, NULL, 0, &f, &d)) fail_msg("%s", d.msg);
    uint64_t got = 0;
    bool found = false;
    for (uint32_t r = 0; r < f.count && !found; r++) {
        if (plumb_golden_elem(&f, r, 0) != a) continue;
        if (f.n_in == 2 && plumb_golden_elem(&f, r, 1) != b) continue;
        got = plumb_golden_elem(&f, r, f.n_in);
        found = true;
    }
    plumb_golden_file_free(&f);
    if (!found) fail_msg("%s: no record for inputs 0x%llx, 0x%llx", name, (unsigned long long)a, (unsigned long long)b);
    return got;
}

/* The stored result for three inputs (clamp's min, x, max; select's pred,
 * on_true, on_false). */
static uint64_t lookup3(const char *name, uint64_t a, uint64_t b, uint64_t c)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir(), name);
    plumb_golden_file f;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!plumb_golden_load(path, NULL, 0, &f, &d)) fail_msg("%s", d.msg);
    assert_int_equal(f.n_in, 3);
    uint64_t got = 0;
    bool found = false;
    for (uint32_t r = 0; r < f.count && !found; r++) {
        if (plumb_golden_elem(&f, r, 0) != a || plumb_golden_elem(&f, r, 1) != b || plumb_golden_elem(&f, r, 2) != c)
            continue;
        got = plumb_golden_elem(&f, r, 3);
        found = true;
    }
    plumb_golden_file_free(&f);
    if (!found) fail_msg("%s: no record for 0x%llx, 0x%llx, 0x%llx", name, (unsigned long long)a, (unsigned long long)b,
                         (unsigned long long)c);
    return got;
}

/* The result of the first row of a reduce file whose terms are all `all`
 * (mixed false) or a mix of `all` and its other zero (mixed true). */
static uint64_t zero_row(const char *name, bool mixed)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir(), name);
    plumb_golden_file f;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!plumb_golden_load(path, NULL, 0, &f, &d)) fail_msg("%s", d.msg);
    uint64_t sign = 1ull << (8 * f.elem_bytes - 1), got = 0;
    bool found = false;
    for (uint32_t r = 0; r < f.count && !found; r++) {
        uint32_t neg = 0, pos = 0;
        for (uint32_t i = 0; i < f.n_in; i++) {
            uint64_t v = plumb_golden_elem(&f, r, i);
            neg += v == sign;
            pos += v == 0;
        }
        if (neg + pos != f.n_in || (mixed ? (neg == 0 || pos == 0) : pos != 0)) continue;
        got = plumb_golden_elem(&f, r, f.n_in);
        found = true;
    }
    plumb_golden_file_free(&f);
    if (!found) fail_msg("%s: no row of signed zeros", name);
    return got;
}

/* Ops with attributes or other result types, by their definitions:
 * IEEE 754-2019 comparisons (NaN unordered, -0 == +0) and totalOrder,
 * isFinite, select, clamp = min(max(x, lo), hi) with NaN propagating,
 * conversions rounded once to nearest even, XLA's reduce_precision, and
 * reductions with maximum/minimum bodies over signed zeros. */
static void test_attribute_ops(void **state)
{
    (void)state;
    assert_int_equal(lookup("compare-f32-LT.gold", 0x80000000u, 0x00000000u), 0);        /* -0 < +0: no */
    assert_int_equal(lookup("compare-f32-LE.gold", 0x80000000u, 0x00000000u), 1);
    assert_int_equal(lookup("compare-f32-EQ.gold", 0x80000000u, 0x00000000u), 1);        /* -0 == +0 */
    assert_int_equal(lookup("compare-f32-LT_TOTALORDER.gold", 0x80000000u, 0x00000000u), 1); /* totalOrder: -0 < +0 */
    assert_int_equal(lookup("compare-f32-EQ.gold", 0x7FC00000u, 0x7FC00000u), 0);        /* NaN is unordered */
    assert_int_equal(lookup("compare-f32-NE.gold", 0x7FC00000u, 0x7FC00000u), 1);
    assert_int_equal(lookup("compare-f64-GE.gold", 0x7FF8000000000000ull, 0x3FF0000000000000ull), 0);
    assert_int_equal(lookup("compare-f16-LT_TOTALORDER.gold", 0xFE00u, 0xFC00u), 1);     /* -NaN < -inf */
    assert_int_equal(lookup("compare-bf16-GT.gold", 0x7F80u, 0x7F7Fu), 1);               /* inf > max */
    assert_int_equal(lookup("is_finite-f16.gold", 0x7C00u, 0), 0);
    assert_int_equal(lookup("is_finite-f16.gold", 0x7BFFu, 0), 1);
    assert_int_equal(lookup("is_finite-f16.gold", 0x0001u, 0), 1);
    assert_int_equal(lookup("is_finite-f64.gold", 0x7FF8000000000000ull, 0), 0);
    assert_int_equal(lookup3("select-f32.gold", 1, 0x00000000u, 0x3F800000u), 0x00000000u);
    assert_int_equal(lookup3("select-f32.gold", 0, 0x00000000u, 0x3F800000u), 0x3F800000u);
    assert_int_equal(lookup3("clamp-f32.gold", 0xBF800000u, 0x7FC00000u, 0x3F800000u) & 0x7FC00000u, 0x7FC00000u);
    assert_int_equal(lookup3("clamp-f32.gold", 0x40000000u, 0x00000000u, 0xC0000000u), 0xC0000000u); /* min > max: max */
    assert_int_equal(lookup3("clamp-f32.gold", 0x00000000u, 0x80000000u, 0x3F800000u), 0x00000000u); /* max(-0, +0) */
    assert_int_equal(lookup3("clamp-f64.gold", 0xFFF0000000000000ull, 0xFFF0000000000000ull, 0x3FF0000000000000ull),
                     0xFFF0000000000000ull);
    /* convert: f64 max overflows f16; 2^-1074 rounds to +0; f32's 2^-149 is exact in f64 (exponent 1023 - 149);
     * f16's 65504 = (2 - 2^-10)·2^15 has 11 significant bits, bf16 keeps 8: rounds up to 2^16 = 0x4780 */
    assert_int_equal(lookup("convert-f64-f16.gold", 0x7FEFFFFFFFFFFFFFull, 0), 0x7C00u);
    assert_int_equal(lookup("convert-f64-f16.gold", 0x0000000000000001ull, 0), 0x0000u);
    assert_int_equal(lookup("convert-f64-f16.gold", 0x8000000000000000ull, 0), 0x8000u);
    assert_int_equal(lookup("convert-f32-f64.gold", 0x00000001u, 0), 0x36A0000000000000ull);
    assert_int_equal(lookup("convert-f16-bf16.gold", 0x7BFFu, 0), 0x4780u);
    assert_int_equal(lookup("convert-bf16-f32.gold", 0x3F80u, 0), 0x3F800000u);
    /* reduce_precision e5m10 on f32 (f16's format): 65504 stays; 65520 = 65504 + 2^4 is the tie above it,
     * rounds to even (up) to 2^16, past the reduced range: inf; the predecessor of 2^-14 (the reduced
     * smallest normal) rounds up to it; 1 stays */
    assert_int_equal(lookup("reduce_precision-f32-e5m10.gold", 0x477FE000u, 0), 0x477FE000u);
    assert_int_equal(lookup("reduce_precision-f32-e5m10.gold", 0x477FF000u, 0), 0x7F800000u);
    assert_int_equal(lookup("reduce_precision-f32-e5m10.gold", 0x387FFFFFu, 0), 0x38800000u);
    assert_int_equal(lookup("reduce_precision-f32-e5m10.gold", 0x3F800000u, 0), 0x3F800000u);
    /* below the reduced range (no subnormals there): the f32 smallest subnormal becomes +0 */
    assert_int_equal(lookup("reduce_precision-f32-e5m10.gold", 0x00000001u, 0), 0x00000000u);
    /* maximum over -0s is -0; over a mix of -0 and +0, +0 (and minimum -0) */
    assert_int_equal(zero_row("reduce-f32-n16-maximum.gold", false), 0x80000000u);
    assert_int_equal(zero_row("reduce-f32-n16-maximum.gold", true), 0x00000000u);
    assert_int_equal(zero_row("reduce-f64-n16-minimum.gold", true), 0x8000000000000000ull);
}

/* CHLO's math (op set v2) at values C99 Annex F and the functions'
 * definitions fix: acos(-1) = pi and atan(inf) = pi/2 rounded (pi in f32
 * is 0x40490FDB), the poles of lgamma and digamma, lgamma(1) = lgamma(2) =
 * +0, digamma(1) = -0.5772156649015329 (Euler's constant, nearest f32
 * 0x3F13C468), erfc's limits, square, the is_inf family, and nextafter's
 * steps (zeros, toward infinity from max, back from infinity). */
static void test_chlo(void **state)
{
    (void)state;
    assert_int_equal(lookup("acos-f32.gold", 0xBF800000u, 0), 0x40490FDBu);
    assert_int_equal(lookup("acos-f32.gold", 0x3F800000u, 0), 0x00000000u);
    assert_int_equal(lookup("atan-f32.gold", 0x7F800000u, 0), 0x3FC90FDBu);
    assert_int_equal(lookup("asin-f32.gold", 0x80000000u, 0), 0x80000000u);
    assert_int_equal(lookup("atanh-f64.gold", 0x3FF0000000000000ull, 0), 0x7FF0000000000000ull);
    assert_int_equal(lookup("acosh-f32.gold", 0x3F800000u, 0), 0x00000000u);
    assert_int_equal(lookup("cosh-f32.gold", 0x80000000u, 0), 0x3F800000u);
    assert_int_equal(lookup("sinh-f16.gold", 0xFC00u, 0), 0xFC00u);
    assert_int_equal(lookup("erfc-f32.gold", 0xFF800000u, 0), 0x40000000u);
    assert_int_equal(lookup("erfc-f32.gold", 0x7F800000u, 0), 0x00000000u);
    assert_int_equal(lookup("lgamma-f32.gold", 0x3F800000u, 0), 0x00000000u);
    assert_int_equal(lookup("lgamma-f32.gold", 0x40000000u, 0), 0x00000000u);
    assert_int_equal(lookup("lgamma-f32.gold", 0xBF800000u, 0), 0x7F800000u);    /* pole at -1 */
    assert_int_equal(lookup("lgamma-f32.gold", 0x80000000u, 0), 0x7F800000u);
    assert_int_equal(lookup("digamma-f32.gold", 0x00000000u, 0), 0xFF800000u);
    assert_int_equal(lookup("digamma-f32.gold", 0x80000000u, 0), 0x7F800000u);
    assert_int_equal(lookup("digamma-f32.gold", 0x3F800000u, 0), 0xBF13C468u);
    assert_int_equal(lookup("digamma-f32.gold", 0xBF800000u, 0) & 0x7FC00000u, 0x7FC00000u); /* NaN at -1 */
    assert_int_equal(lookup("square-f16.gold", 0xC200u, 0), 0x4880u);             /* (-3)^2 = 9 */
    assert_int_equal(lookup("is_inf-f32.gold", 0xFF800000u, 0), 1);
    assert_int_equal(lookup("is_pos_inf-f32.gold", 0xFF800000u, 0), 0);
    assert_int_equal(lookup("is_neg_inf-f32.gold", 0xFF800000u, 0), 1);
    assert_int_equal(lookup("is_inf-f64.gold", 0x7FF8000000000000ull, 0), 0);
    assert_int_equal(lookup("next_after-f32.gold", 0x00000000u, 0x80000000u), 0x80000000u); /* x == y: y */
    assert_int_equal(lookup("next_after-f32.gold", 0x3F800000u, 0x40000000u), 0x3F800001u);
    assert_int_equal(lookup("next_after-f32.gold", 0x3F800000u, 0xBF800000u), 0x3F7FFFFFu);
    assert_int_equal(lookup("next_after-f32.gold", 0x7F7FFFFFu, 0x7F800000u), 0x7F800000u);
    assert_int_equal(lookup("next_after-f32.gold", 0x7F800000u, 0x3F800000u), 0x7F7FFFFFu);
    assert_int_equal(lookup("next_after-f32.gold", 0x00000000u, 0x3F800000u), 0x00000001u);
    assert_int_equal(lookup("next_after-f32.gold", 0x00000001u, 0x00000000u), 0x00000000u);
}

/* CRC-32 (IEEE) of "123456789" is 0xCBF43926, the published check value. */
static void test_crc32_check_value(void **state)
{
    (void)state;
    assert_int_equal(plumb_golden_crc32("123456789", 9), 0xCBF43926u);
}

/* e, π and √2 rounded to nearest in each format (from their binary expansions). */
static void test_constants(void **state)
{
    (void)state;
    /* exp(1): f32 2.71828175 = 0x402DF854; f64 0x4005BF0A8B145769; f16 2.71875 (1392·2^-9) = 0x4170;
     * bf16 2.71875 (174·2^-6) = 0x402E */
    assert_int_equal(lookup("exponential-f32.gold", 0x3F800000u, 0), 0x402DF854u);
    assert_int_equal(lookup("exponential-f64.gold", 0x3FF0000000000000ull, 0), 0x4005BF0A8B145769ull);
    assert_int_equal(lookup("exponential-f16.gold", 0x3C00u, 0), 0x4170u);
    assert_int_equal(lookup("exponential-bf16.gold", 0x3F80u, 0), 0x402Eu);
    /* √2: f32 0x3FB504F3, f64 0x3FF6A09E667F3BCD */
    assert_int_equal(lookup("sqrt-f32.gold", 0x40000000u, 0), 0x3FB504F3u);
    assert_int_equal(lookup("sqrt-f64.gold", 0x4000000000000000ull, 0), 0x3FF6A09E667F3BCDull);
    /* atan2(±0, -0) = ±π (C99 F.9.1.4): π in f32 is 0x40490FDB */
    assert_int_equal(lookup("atan2-f32.gold", 0x00000000u, 0x80000000u), 0x40490FDBu);
    assert_int_equal(lookup("atan2-f32.gold", 0x80000000u, 0x80000000u), 0xC0490FDBu);
    /* 1 + 1 = 2, 1 / 2 = 0.5, 2^-1 = 0.5 exactly */
    assert_int_equal(lookup("add-f32.gold", 0x3F800000u, 0x3F800000u), 0x40000000u);
    assert_int_equal(lookup("divide-f16.gold", 0x3C00u, 0x4000u), 0x3800u);
    assert_int_equal(lookup("power-f64.gold", 0x4000000000000000ull, 0xBFF0000000000000ull), 0x3FE0000000000000ull);
}

/* Special cases fixed by IEEE 754-2019 and C99 Annex F, as docs/ops.md states them. */
static void test_special_cases(void **state)
{
    (void)state;
    assert_int_equal(lookup("rsqrt-f32.gold", 0x80000000u, 0), 0xFF800000u);        /* rSqrt(-0) = -inf */
    assert_int_equal(lookup("rsqrt-f32.gold", 0x7F800000u, 0), 0x00000000u);        /* rSqrt(+inf) = +0 */
    assert_int_equal(lookup("power-f32.gold", 0xBF800000u, 0x7F800000u), 0x3F800000u); /* pow(-1, inf) = 1 */
    assert_int_equal(lookup("power-f32.gold", 0x3F800000u, 0x7FC00000u), 0x3F800000u); /* pow(1, NaN) = 1 */
    assert_int_equal(lookup("power-f32.gold", 0x7FC00000u, 0x00000000u), 0x3F800000u); /* pow(NaN, 0) = 1 */
    assert_int_equal(lookup("maximum-f32.gold", 0x80000000u, 0x00000000u), 0x00000000u); /* max(-0, +0) = +0 */
    assert_int_equal(lookup("minimum-f32.gold", 0x00000000u, 0x80000000u), 0x80000000u); /* min(+0, -0) = -0 */
    assert_int_equal(lookup("maximum-f32.gold", 0x7FC00000u, 0x3F800000u) & 0x7FC00000u, 0x7FC00000u); /* NaN */
    assert_int_equal(lookup("logistic-f32.gold", 0x00000000u, 0), 0x3F000000u);     /* logistic(0) = 0.5 */
    assert_int_equal(lookup("tanh-f16.gold", 0x7C00u, 0), 0x3C00u);                 /* tanh(inf) = 1 */
    assert_int_equal(lookup("sign-f64.gold", 0x8000000000000000ull, 0), 0x8000000000000000ull); /* sign(-0) = -0 */
    assert_int_equal(lookup("floor-f32.gold", 0xBF000000u, 0), 0xBF800000u);        /* floor(-0.5) = -1 */
    assert_int_equal(lookup("ceil-f32.gold", 0xBF000000u, 0), 0x80000000u);         /* ceil(-0.5) = -0 */
    assert_int_equal(lookup("round_nearest_even-f32.gold", 0xBF000000u, 0), 0x80000000u); /* -0.5 -> -0 */
    assert_int_equal(lookup("round_nearest_afz-f32.gold", 0xBF000000u, 0), 0xBF800000u);  /* -0.5 -> -1 */
    assert_int_equal(lookup("log-f32.gold", 0x80000000u, 0), 0xFF800000u);          /* log(-0) = -inf */
    assert_int_equal(lookup("exponential_minus_one-f64.gold", 0xFFF0000000000000ull, 0),
                     0xBFF0000000000000ull);                                          /* expm1(-inf) = -1 */
    assert_int_equal(lookup("subtract-bf16.gold", 0x7F80u, 0x7F80u) & 0x7FC0u, 0x7FC0u); /* inf - inf = NaN */
    assert_int_equal(lookup("remainder-f32.gold", 0x80000000u, 0x3F800000u), 0x80000000u); /* fmod(-0, 1) = -0 */
    /* the largest f16 times 2 overflows to +inf; the smallest subnormal halved ties to +0 */
    assert_int_equal(lookup("multiply-f16.gold", 0x7BFFu, 0x4000u), 0x7C00u);
    assert_int_equal(lookup("multiply-f16.gold", 0x0001u, 0x3800u), 0x0000u);
}

/* File names follow the entry; the manifest refuses ops without goldens, naming file and line. */
static void test_names_and_manifest(void **state)
{
    (void)state;
    char buf[96];
    plumb_golden_spec s = {PLUMB_OP_EXPONENTIAL, PLUMB_F32, PLUMB_GOLDEN_ELEMENTWISE, 0, 1, ""};
    plumb_golden_file_name(&s, buf, sizeof buf);
    assert_string_equal(buf, "exponential-f32.gold");
    plumb_golden_spec r = {PLUMB_OP_REDUCE, PLUMB_BF16, PLUMB_GOLDEN_SUM, 16, 1, ""};
    plumb_golden_file_name(&r, buf, sizeof buf);
    assert_string_equal(buf, "reduce-bf16-n16.gold");
    plumb_golden_spec c = {PLUMB_OP_COMPARE, PLUMB_F16, PLUMB_GOLDEN_ELEMENTWISE, 0, 1, "LT_TOTALORDER"};
    plumb_golden_file_name(&c, buf, sizeof buf);
    assert_string_equal(buf, "compare-f16-LT_TOTALORDER.gold");
    plumb_golden_spec mx = {PLUMB_OP_REDUCE, PLUMB_F32, PLUMB_GOLDEN_SUM, 16, 1, "maximum"};
    plumb_golden_file_name(&mx, buf, sizeof buf);
    assert_string_equal(buf, "reduce-f32-n16-maximum.gold");
    char path[] = "/tmp/plumb-golden-manifest-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "plumb-golden-manifest 1\nseed 7\n\nstablehlo.constant f32\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    plumb_golden_manifest m;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_false(plumb_golden_manifest_load(path, &m, &d));
    assert_non_null(strstr(d.msg, ":4: op 'stablehlo.constant' has no goldens"));
    unlink(path);
    /* attributes: missing, unknown, or given to an op that takes none */
    const char *bad[][2] = {
        {"stablehlo.compare f32\n", ":3: compare entries are 'OP TYPE DIR'"},
        {"stablehlo.compare f32 LQ\n", ":3: compare entries are 'OP TYPE DIR'"},
        {"stablehlo.convert f32 f32\n", ":3: convert entries are 'OP TYPE TARGET'"},
        {"stablehlo.reduce_precision f32 e0m3\n", ":3: reduce_precision entries are 'OP TYPE eEmM'"},
        {"stablehlo.reduce f32 16 multiply\n", ":3: reduce entries are 'OP TYPE LENGTH [maximum|minimum]'"},
        {"stablehlo.exponential f32 LT\n", ":3: stablehlo.exponential takes no attribute"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char p2[] = "/tmp/plumb-golden-manifest-XXXXXX";
        int fd2 = mkstemp(p2);
        assert_true(fd2 >= 0);
        char t2[200];
        int n2 = snprintf(t2, sizeof t2, "plumb-golden-manifest 1\nseed 7\n%s", bad[i][0]);
        assert_int_equal(write(fd2, t2, (size_t)n2), n2);
        close(fd2);
        memset(&d, 0, sizeof d);
        assert_false(plumb_golden_manifest_load(p2, &m, &d));
        if (!strstr(d.msg, bad[i][1])) fail_msg("'%s': got '%s'", bad[i][0], d.msg);
        unlink(p2);
    }
}

/* Generation is a function of (seed, entry): twice the same bytes, another seed other bytes. */
static void test_deterministic(void **state)
{
    (void)state;
    plumb_golden_spec s = {PLUMB_OP_TANH, PLUMB_BF16, PLUMB_GOLDEN_ELEMENTWISE, 0, 1, ""};
    uint8_t *a, *b, *c;
    size_t na, nb, nc;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(plumb_golden_generate(5, &s, &a, &na, &d));
    assert_true(plumb_golden_generate(5, &s, &b, &nb, &d));
    assert_true(plumb_golden_generate(6, &s, &c, &nc, &d));
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    assert_true(na != nc || memcmp(a, c, na) != 0);
    plumb_free(a, na);
    plumb_free(b, nb);
    plumb_free(c, nc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32_check_value),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_special_cases),
        cmocka_unit_test(test_attribute_ops),
        cmocka_unit_test(test_chlo),
        cmocka_unit_test(test_names_and_manifest),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
