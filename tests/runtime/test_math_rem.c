/* f32 remainder's vector path (runtime/k_ew_float.c, f32_rem: exact, in
 * double) through the runtime at portable, avx2 and avx512 (those the CPU
 * has), bit for bit against C's fmodf (exact by C11 7.12.10.1: the result
 * is x - n y exactly) with the engine's NaN rule, on operand pairs built
 * to hit its cases: quotients just below, at and just above integers up to
 * 2^30 (f32_rem's argument that RN(|x|/|y|) never reaches the next integer
 * below 2^28; beyond, the scalar lanes), both signs,
 * zeros, subnormals, infinities and NaNs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_internal.h"

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* fmod with the engine's NaN rule: a NaN operand quieted (x's first), an
 * invalid operation the positive default NaN. */
static uint32_t want_rem(float x, float y)
{
    if (x != x)
        return fbits(x) | 0x00400000u;
    if (y != y)
        return fbits(y) | 0x00400000u;
    float r = fmodf(x, y);
    return r != r ? 0x7FC00000u : fbits(r);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One pair: a fifth any bit patterns; the rest y with a random exponent in
 * [-140, 120] and x = y (n + d) rounded, n up to 2^(0..30), d in {0,
 * 0.5, just below 1, just above 0}, then moved by -2..2 float steps;
 * random signs. */
static void make_pair(float *x, float *y)
{
    uint64_t r = rnd64();
    if (r % 5 == 0) {
        *x = from_bits((uint32_t)rnd64());
        *y = from_bits((uint32_t)rnd64());
        return;
    }
    float yy = ldexpf(1.0f + (float)(rnd64() >> 41) * 0x1p-23f, (int)(rnd64() % 261) - 140);
    double n = floor(ldexp((double)(rnd64() >> 11) * 0x1p-53, (int)(rnd64() % 31)));
    static const double ds[4] = {0.0, 0.5, 1.0 - 0x1p-40, 0x1p-40};
    float xx = (float)((double)yy * (n + ds[rnd64() % 4]));
    uint32_t b = fbits(xx) + (uint32_t)((int)(rnd64() % 5) - 2);
    if ((b & 0x7F800000u) != 0x7F800000u)
        xx = from_bits(b);
    *x = (rnd64() & 1) ? -xx : xx;
    *y = (rnd64() & 1) ? -yy : yy;
}

static ir_module *rem_prog(int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n), *y = plumb_nn_param(&nn, PLUMB_F32, 1, &n);
    ir_value *r = plumb_nn_binary(&nn, PLUMB_OP_REMAINDER, x, y);
    return nn_finish(&nn, m, &r, 1);
}

/* 2^20 pairs and every pair of 24 special values, at each ISA level,
 * bitwise equal to want_rem. */
static void test_rem_f32(void **state)
{
    (void)state;
    static const uint32_t sp[] = {0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00001u, 0xFFA00002u, 1, 0x80000003u,
                                  0x00800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u, 0xBF800000u, 0x40400000u,
                                  0x3F000000u, 0x4B800000u, 0x4D800000u, 0x4D800001u, 0x33800000u, 0x007FFFFFu,
                                  0x40490FDBu, 0xC0490FDBu, 0x4E800000u, 0x3DCCCCCDu};
    const size_t nsp = sizeof sp / sizeof sp[0];
    const size_t n = (1u << 20) + nsp * nsp;
    int64_t len = (int64_t)n;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F32, 1, &len, 0, &d), plumb_tensor_new(PLUMB_F32, 1, &len, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    float *xs = in[0]->data, *ys = in[1]->data;
    size_t k = 0;
    for (size_t i = 0; i < nsp; i++)
        for (size_t j = 0; j < nsp; j++, k++) {
            xs[k] = from_bits(sp[i]);
            ys[k] = from_bits(sp[j]);
        }
    for (; k < n; k++)
        make_pair(&xs[k], &ys[k]);
    ir_module *m = rem_prog(len);
    static const plumb_isa isas[] = {PLUMB_ISA_PORTABLE, PLUMB_ISA_AVX2, PLUMB_ISA_AVX512};
    for (size_t i = 0; i < 3; i++) {
        if (isas[i] > rt_cpu_best_isa())
            continue;
        plumb_tensor **o = run_program(m, 1, 1, isas[i], in, 2, 1);
        const uint32_t *got = o[0]->data;
        size_t bad = 0;
        for (size_t e = 0; e < n; e++) {
            uint32_t w = want_rem(xs[e], ys[e]);
            if (got[e] != w && bad++ < 10)
                fprintf(stderr, "isa %d: remainder(0x%08x, 0x%08x) = 0x%08x, want 0x%08x\n", (int)isas[i],
                        fbits(xs[e]), fbits(ys[e]), got[e], w);
        }
        assert_int_equal(bad, 0);
        run_free_outs(o, 1);
    }
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

static uint64_t dbits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}
static double dfrom(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* f64 fmod with the engine's NaN rule (as want_rem) */
static uint64_t want_rem64(double x, double y)
{
    if (x != x)
        return dbits(x) | 0x0008000000000000ull;
    if (y != y)
        return dbits(y) | 0x0008000000000000ull;
    double r = fmod(x, y);
    return r != r ? 0x7FF8000000000000ull : dbits(r);
}

/* One f64 pair: a fifth any bit patterns; the rest y with a random
 * exponent in [-1074, 1023] and a random 53-bit significand, and x = y
 * (n + d) rounded, n up to 2^(0..60), d in {0, 0.5, just below 1, just
 * above 0}, then moved by -2..2 steps; random signs. */
static void make_pair64(double *x, double *y)
{
    uint64_t r = rnd64();
    if (r % 5 == 0) {
        *x = dfrom(rnd64());
        *y = dfrom(rnd64());
        return;
    }
    double yy = ldexp(1.0 + (double)(rnd64() >> 12) * 0x1p-52, (int)(rnd64() % 2098) - 1074);
    double n = floor(ldexp((double)(rnd64() >> 11) * 0x1p-53, (int)(rnd64() % 61)));
    static const double ds[4] = {0.0, 0.5, 1.0 - 0x1p-50, 0x1p-50};
    double xx = yy * (n + ds[rnd64() % 4]);
    uint64_t b = dbits(xx) + (uint64_t)((int64_t)(rnd64() % 5) - 2);
    if ((b & 0x7FF0000000000000ull) != 0x7FF0000000000000ull)
        xx = dfrom(b);
    *x = (rnd64() & 1) ? -xx : xx;
    *y = (rnd64() & 1) ? -yy : yy;
}

/* f64 remainder (runtime/k_ew_float.c f64_rem: exact through Dekker's
 * product) on 2^21 pairs and every pair of 30 special values (zeros,
 * infinities, NaNs with payloads, subnormals, the fast path's limits
 * 2^-960, 2^960 and the 2^51 quotient, their neighbours), at each ISA
 * level, bit for bit equal to C's fmod (exact by C11 7.12.10.1) with the
 * engine's NaN rule. */
static void test_rem_f64(void **state)
{
    (void)state;
    static const uint64_t sp[] = {
        0, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000001ull,
        0xFFF4000000000002ull, 1, 0x8000000000000003ull, 0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull,
        0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull, 0x4008000000000000ull,
        0x3FE0000000000000ull, 0x000FFFFFFFFFFFFFull, 0x400921FB54442D18ull, 0xC00921FB54442D18ull,
        0x3FB999999999999Aull, 0x03F0000000000000ull, 0x03EFFFFFFFFFFFFFull, 0x03F0000000000001ull,
        0x7BF0000000000000ull, 0x7BF0000000000001ull, 0x7BEFFFFFFFFFFFFFull, 0x4320000000000000ull,
        0x431FFFFFFFFFFFFFull, 0x4320000000000001ull, 0x4330000000000000ull, 0x43E0000000000000ull,
    };
    const size_t nsp = sizeof sp / sizeof sp[0];
    const size_t n = (1u << 21) + nsp * nsp;
    int64_t len = (int64_t)n;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d), plumb_tensor_new(PLUMB_F64, 1, &len, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    double *xs = in[0]->data, *ys = in[1]->data;
    size_t k = 0;
    for (size_t i = 0; i < nsp; i++)
        for (size_t j = 0; j < nsp; j++, k++) {
            xs[k] = dfrom(sp[i]);
            ys[k] = dfrom(sp[j]);
        }
    for (; k < n; k++)
        make_pair64(&xs[k], &ys[k]);
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F64, 1, &len), *y = plumb_nn_param(&nn, PLUMB_F64, 1, &len);
    ir_value *r = plumb_nn_binary(&nn, PLUMB_OP_REMAINDER, x, y);
    m = nn_finish(&nn, m, &r, 1);
    static const plumb_isa isas[] = {PLUMB_ISA_PORTABLE, PLUMB_ISA_AVX2, PLUMB_ISA_AVX512};
    for (size_t i = 0; i < 3; i++) {
        if (isas[i] > rt_cpu_best_isa())
            continue;
        plumb_tensor **o = run_program(m, 1, 1, isas[i], in, 2, 1);
        const uint64_t *got = o[0]->data;
        size_t bad = 0;
        for (size_t e = 0; e < n; e++) {
            uint64_t w = want_rem64(xs[e], ys[e]);
            if (got[e] != w && bad++ < 10)
                fprintf(stderr, "isa %d: remainder(%a, %a) = 0x%016llx, want 0x%016llx\n", (int)isas[i], xs[e],
                        ys[e], (unsigned long long)got[e], (unsigned long long)w);
        }
        assert_int_equal(bad, 0);
        run_free_outs(o, 1);
    }
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rem_f32),
        cmocka_unit_test(test_rem_f64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
