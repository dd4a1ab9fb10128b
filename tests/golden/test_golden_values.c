/* The stored goldens hold the right values: records looked up by their
 * inputs in the committed files (golden/data, or PLUMB_GOLDEN_DIR) are
 * compared with values derived by hand — well-known roundings of e, π and
 * √2 and the special cases IEEE 754-2019 and C99 Annex F fix — never with
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
    plumb_golden_spec s = {PLUMB_OP_EXPONENTIAL, PLUMB_F32, PLUMB_GOLDEN_ELEMENTWISE, 0, 1};
    plumb_golden_file_name(&s, buf, sizeof buf);
    assert_string_equal(buf, "exponential-f32.gold");
    plumb_golden_spec r = {PLUMB_OP_REDUCE, PLUMB_BF16, PLUMB_GOLDEN_SUM, 16, 1};
    plumb_golden_file_name(&r, buf, sizeof buf);
    assert_string_equal(buf, "reduce-bf16-n16.gold");
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
}

/* Generation is a function of (seed, entry): twice the same bytes, another seed other bytes. */
static void test_deterministic(void **state)
{
    (void)state;
    plumb_golden_spec s = {PLUMB_OP_TANH, PLUMB_BF16, PLUMB_GOLDEN_ELEMENTWISE, 0, 1};
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
        cmocka_unit_test(test_names_and_manifest),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
