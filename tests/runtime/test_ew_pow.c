/* stablehlo.power and atan2 on f16/bf16 (runtime/k_ew_half.c) and integer
 * power (runtime/k_ew_int.c) at every ISA level this CPU has. Halves: every
 * bit pattern of one operand against special and random values of the
 * other (both orders), the engine's bits (narrow_binary's recipe, redone
 * here element by element from the same pieces: the double value of
 * rt_vmath2_f32d on the widened operands rounded once by rt_math_narrow,
 * pow(x, +-0) = pow(+1, y) = 1, the first NaN operand quieted) and within
 * the op table's bound of the reference interpreter. Integers: every pair
 * of special bases and exponents (0, 1, -1, 2, MIN, MAX, negative, >= the
 * width) plus random pairs against the reference bit for bit, through the
 * kernel and through rt_ew_int at unaligned starts, every length 0..70 and
 * in place. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../runtime/rt_math.h"
#include "../../runtime/rt_pipeline.h"
#include "ew_harness.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

static const plumb_dtype TYPES[2] = {PLUMB_F16, PLUMB_BF16};

/* The element engine's bits for power/atan2 on (x, y): narrow_binary's
 * recipe. */
static void engine_binary(plumb_opcode code, plumb_dtype t, plumb_isa isa, const uint16_t *x, const uint16_t *y,
                          uint16_t *o, size_t n)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint16_t em = (uint16_t)(((1u << d->exp_bits) - 1) << d->mant_bits), q = (uint16_t)(1u << (d->mant_bits - 1));
    uint16_t one = t == PLUMB_F16 ? 0x3C00 : 0x3F80;
    float *f = malloc(n * sizeof *f), *g = malloc(n * sizeof *g);
    double *v = malloc(n * sizeof *v);
    assert_non_null(f);
    assert_non_null(g);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        f[i] = t == PLUMB_F16 ? plumb_f16_to_f32(x[i]) : plumb_bf16_to_f32(x[i]);
        g[i] = t == PLUMB_F16 ? plumb_f16_to_f32(y[i]) : plumb_bf16_to_f32(y[i]);
    }
    rt_vmath2_f32d(code, isa)(f, g, v, n);
    for (size_t i = 0; i < n; i++) {
        bool xn = (x[i] & 0x7FFF) > em, yn = (y[i] & 0x7FFF) > em;
        if (code == PLUMB_OP_POWER && ((!yn && (y[i] & 0x7FFF) == 0) || x[i] == one))
            o[i] = one;
        else if (xn)
            o[i] = x[i] | q;
        else if (yn)
            o[i] = y[i] | q;
        else if (isnan(v[i]))
            o[i] = (uint16_t)(em | q);
        else
            o[i] = (uint16_t)rt_math_narrow(code, t, v[i], RT_MATH_DERR, f[i], g[i]);
    }
    free(f);
    free(g);
    free(v);
}

static uint64_t failures;

/* Runs power/atan2 on (in[0], in[1]) through the reference and, at every
 * ISA, the runtime kernel and rt_ew_half at an odd start and in place;
 * counts elements that differ from the engine's bits or lie beyond the
 * op's bound of the reference (exact where the result is NaN, zero,
 * subnormal or infinite). */
static void check_half(harness *h, plumb_opcode code, plumb_dtype t, uint16_t *const *in, size_t n)
{
    ew_prog p;
    ew_prog_make(&p, code, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, n);
    plumb_diag d = {.code = PLUMB_OK};
    int64_t dims[1] = {(int64_t)n};
    plumb_tensor *x[2];
    for (uint32_t k = 0; k < 2; k++) {
        x[k] = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(x[k]);
        memcpy(x[k]->data, in[k], n * 2);
    }
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(p.m, NULL, x, 2, &ro, &res, &d));
    const plumb_tensor *want = res.outputs[0];
    uint32_t bound = plumb_op_ulp_bound(code, t);
    uint16_t *eng = malloc(n * 2), *alt = malloc((n + 1) * 2);
    assert_non_null(eng);
    assert_non_null(alt);
    uint64_t inf = ((1ull << plumb_dtype_get(t)->exp_bits) - 1) << plumb_dtype_get(t)->mant_bits;
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec ex;
        plumb_diag xd = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&ex, h->pool, isa, p.m, 0, &xd));
        plumb_tensor *got = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(got);
        memset(got->data, 0xA5, got->nbytes);
        assert_true(rt_run_kernel(&ex, p.op, x, &got));
        engine_binary(code, t, isa, in[0], in[1], eng, n);
        uint64_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
            if (g != eng[i]) {
                if (bad++ < 3)
                    ew_prog_report(&p, t, isa, i, in, g, eng[i], "engine");
                continue;
            }
            if (g == w)
                continue;
            bool special = plumb_float_is_nan(t, g) || plumb_float_is_nan(t, w) || (w & inf) == 0 ||
                           (g & inf) == 0 || (w & 0x7FFF) == inf;
            if (special || plumb_ulp_distance(t, g, w) > bound)
                if (bad++ < 3)
                    ew_prog_report(&p, t, isa, i, in, g, w, "reference");
        }
        /* rt_ew_half directly: one element past an aligned start (an odd
         * address for both operands and the result), then in place over
         * the first operand */
        uint16_t *xa = malloc((n + 1) * 2), *ya = malloc((n + 1) * 2);
        assert_non_null(xa);
        assert_non_null(ya);
        memcpy(xa + 1, in[0], n * 2);
        memcpy(ya + 1, in[1], n * 2);
        rt_ew_args a = {.op = p.op, .code = code, .isa = isa, .t = t, .rt = t, .n_in = 2,
                        .in = {xa + 1, ya + 1}, .out = alt + 1, .n = n};
        assert_true(rt_ew_half(&a));
        for (size_t i = 0; i < n; i++)
            if (alt[i + 1] != eng[i] && bad++ < 3)
                ew_prog_report(&p, t, isa, i, in, alt[i + 1], eng[i], "rt_ew_half, odd start");
        a.out = xa + 1;
        assert_true(rt_ew_half(&a));
        for (size_t i = 0; i < n; i++)
            if (xa[i + 1] != eng[i] && bad++ < 3)
                ew_prog_report(&p, t, isa, i, in, xa[i + 1], eng[i], "rt_ew_half, in place");
        free(xa);
        free(ya);
        failures += bad;
        plumb_tensor_free(got);
        rt_exec_fini(&ex);
    }
    free(eng);
    free(alt);
    plumb_ref_result_free(&res);
    for (uint32_t k = 0; k < 2; k++)
        plumb_tensor_free(x[k]);
    ir_module_free(p.m);
}

/* power and atan2 on f16 and bf16: every pattern of x against each special
 * and some random y, and every pattern of y against the same x values. */
static void test_half_all_patterns(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_POWER, PLUMB_OP_ATAN2};
    harness *h = *state;
    enum { NB = 6 };
    failures = 0;
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = TYPES[ti];
        uint16_t extra[NB], *a, *b;
        for (size_t k = 0; k < NB; k++)
            extra[k] = (uint16_t)rnd();
        size_t n = ew_half_pairs(t, extra, NB, &a, &b);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            uint16_t *ab[3] = {a, b, NULL}, *ba[3] = {b, a, NULL};
            check_half(h, ops[o], t, ab, n);
            check_half(h, ops[o], t, ba, n);
        }
        free(a);
        free(b);
    }
    assert_int_equal(failures, 0);
}

/* Short lengths 0..70 (every tail of a block and of a vector step) of
 * power and atan2 on random pairs, equal to the same elements of one long
 * run. */
static void test_half_lengths(void **state)
{
    harness *h = *state;
    enum { N = 1100 };
    uint16_t x[N], y[N], whole[N], part[N + 8];
    for (int ti = 0; ti < 2; ti++)
        for (int o = 0; o < 2; o++) {
            plumb_dtype t = TYPES[ti];
            plumb_opcode code = o ? PLUMB_OP_ATAN2 : PLUMB_OP_POWER;
            for (size_t i = 0; i < N; i++) {
                x[i] = (uint16_t)rnd();
                y[i] = (uint16_t)(i % 3 ? rnd() : (rnd() & 0x803F) | (t == PLUMB_F16 ? 0x3C00 : 0x3F80));
            }
            for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
                engine_binary(code, t, isa, x, y, whole, N);
                for (size_t len = 0; len <= 70; len++) {
                    memset(part, 0xA5, sizeof part);
                    rt_ew_args a = {.op = NULL, .code = code, .isa = isa, .t = t, .rt = t, .n_in = 2,
                                    .in = {x + 3, y + 3}, .out = part, .n = len};
                    assert_true(rt_ew_half(&a));
                    for (size_t i = 0; i < len; i++)
                        assert_int_equal(part[i], whole[i + 3]);
                    assert_int_equal(part[len], 0xA5A5);
                }
            }
        }
}

/* ---- integer power ---------------------------------------------------------------- */

static const plumb_dtype int_types[] = {PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64,
                                        PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};

/* Special values of a w-bit type: 0, 1, -1, 2, 3, MIN, MAX, neighbours,
 * exponents around the width and beyond, negative ones. */
static size_t int_specials(plumb_dtype t, uint64_t *v)
{
    unsigned w = plumb_dtype_get(t)->bits;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1, top = 1ull << (w - 1);
    uint64_t base[] = {0, 1, 2, 3, 5, 7, m, m - 1, m - 2, m - 6, top, top - 1, top + 1, top - 2, w - 1, w,
                       w + 1, 2 * w, 63, 64, 65, 127, 128, 255, 256, 0x5555555555555555ull, 0xFFFFFFFEull};
    size_t n = sizeof base / sizeof base[0];
    for (size_t i = 0; i < n; i++)
        v[i] = base[i] & m;
    return n;
}

static void int_fill(plumb_dtype t, void *x, uint32_t k, uint64_t n)
{
    uint64_t sp[32];
    size_t ns = int_specials(t, sp);
    unsigned w = plumb_dtype_get(t)->bits;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        if (i < ns * ns)
            v = sp[k == 0 ? i % ns : i / ns];
        else if (i % 4 == 0)
            v = rnd() % 20;                        /* small exponents and bases */
        else if (i % 4 == 1)
            v = 0 - rnd() % 20;
        else if (i % 4 == 2)
            v = k == 0 ? rnd() % 7 : rnd() % 200;  /* small bases to large exponents */
        else
            v = rnd();
        plumb_store_bits(t, x, i, v & m);
    }
}

/* Integer power on every pair of special bases and exponents and on random
 * pairs, against the reference bit for bit at every ISA: the kernel, then
 * rt_ew_int at starts 0..3 and every length 0..70 (nothing written past the
 * end), then in place over the base and over the exponent. */
static void test_int_power(void **state)
{
    harness *h = *state;
    uint64_t fails = 0, ran = 0;
    for (size_t ti = 0; ti < sizeof int_types / sizeof int_types[0]; ti++) {
        plumb_dtype t = int_types[ti];
        uint64_t n = 27 * 27 + 1500;
        ew_prog p;
        ew_prog_make(&p, PLUMB_OP_POWER, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, n);
        plumb_diag d = {.code = PLUMB_OK};
        int64_t dims[1] = {(int64_t)n};
        plumb_tensor *in[2];
        for (uint32_t k = 0; k < 2; k++) {
            in[k] = plumb_tensor_new(t, 1, dims, 0, &d);
            assert_non_null(in[k]);
            int_fill(t, in[k]->data, k, n);
        }
        plumb_ref_result res;
        plumb_ref_options ro = {.struct_size = sizeof ro};
        assert_true(plumb_ref_run(p.m, NULL, in, 2, &ro, &res, &d));
        const plumb_tensor *want = res.outputs[0];
        size_t sz = plumb_dtype_size(t);
        uint8_t *buf = malloc(n * sz + 64), *copy = malloc(n * sz);
        assert_non_null(buf);
        assert_non_null(copy);
        ran++;
        for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
            rt_exec ex;
            plumb_diag xd = {.code = PLUMB_OK};
            assert_true(rt_exec_init(&ex, h->pool, isa, p.m, 0, &xd));
            plumb_tensor *got = plumb_tensor_new(t, 1, dims, 0, &d);
            assert_non_null(got);
            memset(got->data, 0xA5, got->nbytes);
            assert_true(rt_run_kernel(&ex, p.op, in, &got));
            for (uint64_t i = 0; i < n; i++) {
                uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
                if (g != w && fails++ < 8)
                    print_message("kernel power %s isa %s: 0x%llx ^ 0x%llx got 0x%llx want 0x%llx\n",
                                  plumb_dtype_name(t), rt_isa_name(isa),
                                  (unsigned long long)plumb_load_bits(t, in[0]->data, i),
                                  (unsigned long long)plumb_load_bits(t, in[1]->data, i), (unsigned long long)g,
                                  (unsigned long long)w);
            }
            plumb_tensor_free(got);
            rt_exec_fini(&ex);
            rt_ew_args a = {.op = p.op, .code = PLUMB_OP_POWER, .isa = isa, .t = t, .rt = t, .n_in = 2};
            for (size_t start = 0; start < 4; start++)
                for (size_t len = 0; len <= 71; len++) {
                    size_t ln = len == 71 ? (size_t)n - start : len;
                    memset(buf, 0xA5, n * sz + 64);
                    a.in[0] = (const uint8_t *)in[0]->data + start * sz;
                    a.in[1] = (const uint8_t *)in[1]->data + start * sz;
                    a.out = buf + start * sz;
                    a.n = ln;
                    assert_true(rt_ew_int(&a));
                    for (size_t i = 0; i < ln; i++) {
                        uint64_t g = plumb_load_bits(t, a.out, i), w = plumb_load_bits(t, want->data, start + i);
                        if (g != w && fails++ < 8)
                            print_message("rt_ew_int power %s isa %s element %zu: got 0x%llx want 0x%llx\n",
                                          plumb_dtype_name(t), rt_isa_name(isa), start + i,
                                          (unsigned long long)g, (unsigned long long)w);
                    }
                    for (size_t i = (start + ln) * sz; i < (start + ln) * sz + 64; i++)
                        if (buf[i] != 0xA5 && fails++ < 8)
                            print_message("rt_ew_int power %s wrote past the end\n", plumb_dtype_name(t));
                }
            for (int over = 0; over < 2; over++) {
                memcpy(copy, in[over]->data, n * sz);
                a.in[0] = over ? in[0]->data : copy;
                a.in[1] = over ? copy : in[1]->data;
                a.out = copy;
                a.n = (size_t)n;
                assert_true(rt_ew_int(&a));
                for (uint64_t i = 0; i < n; i++) {
                    uint64_t g = plumb_load_bits(t, copy, i), w = plumb_load_bits(t, want->data, i);
                    if (g != w && fails++ < 8)
                        print_message("in place power %s isa %s element %llu\n", plumb_dtype_name(t),
                                      rt_isa_name(isa), (unsigned long long)i);
                }
            }
        }
        free(buf);
        free(copy);
        plumb_ref_result_free(&res);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        ir_module_free(p.m);
    }
    assert_int_equal(fails, 0);
    assert_int_equal(ran, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_power),
        cmocka_unit_test(test_half_lengths),
        cmocka_unit_test(test_half_all_patterns),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
