/* erf in the fused executor's register loops (runtime/fusion_exec.c, run_regs;
 * rt_x16_erf in runtime/math_avx512.c): gelu's erf form
 * x/2 (1 + erf(x/sqrt 2)) is planned as one register-run loop group, and
 * its results are the bits of the same program run unfused (opt level 1,
 * every op its own tile kernel): on ordinary values, on every branch of
 * erf (|x| below and above 1/2, the tail, tiny arguments whose results the
 * exact path gives), and with NaN payloads, infinities, zeros and
 * subnormals (blocks the register loop flags and the tile path redoes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"

/* Loop groups planned to run in registers in @main of m (modified in place). */
static uint32_t planned_regs(ir_module *m)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_true(rt_run_passes(m, f, 2, 0, &d));
    plumb_arena *a = plumb_arena_new(0);
    assert_non_null(a);
    rt_group *g;
    uint32_t n, r = 0;
    assert_true(rt_fuse(a, f, 2, &g, &n, &d));
    for (uint32_t i = 0; i < n; i++)
        r += rt_fused_regs(g[i].fused);
    plumb_arena_free(a);
    return r;
}

/* which 0: gelu (erf form) of an f32 [n] parameter; 1: erf(x) * a, a a
 * scalar parameter broadcast. */
static ir_module *erf_prog(int which, int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n), *y;
    if (which == 0) {
        y = plumb_nn_gelu(&nn, x, PLUMB_NN_GELU_ERF);
    } else {
        ir_value *p = plumb_nn_param(&nn, PLUMB_F32, 0, NULL);
        y = plumb_nn_mul(&nn, plumb_nn_unary(&nn, PLUMB_OP_ERF, x), plumb_nn_broadcast_to(&nn, p, &x->type));
    }
    return nn_finish(&nn, m, &y, 1);
}

static plumb_tensor *new_tensor(uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* kind 0: uniform in [-6, 6) (both erf branches and the tail in most
 * blocks); 1: |x| < 2^-100 and a few below 2^-125 (erf's results below
 * 2^-125 come from the exact path: flagged blocks); 2: kind 0 with NaN
 * payloads, infinities, signed zeros, subnormals and the largest finite
 * value at pseudo-random places in every fourth window of 128 elements. */
static void fill(plumb_tensor *t, int kind, uint32_t seed)
{
    size_t n = (size_t)plumb_tensor_numel(t);
    uint32_t *p = t->data, s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        uint32_t r = s >> 8;
        float f = ((float)(r & 0xffff) / 65536.0f - 0.5f) * 12.0f;
        if (kind == 1)
            f = (float)(r & 0xffff) * ((r >> 16) & 1 ? 0x1p-116f : 0x1p-140f) * ((r >> 17) & 1 ? -1.0f : 1.0f);
        memcpy(&p[i], &f, 4);
        if (kind != 2 || (i >> 7) % 4 != 0)
            continue;
        switch ((r >> 12) & 15) {
        case 0: p[i] = 0x7fc00000u | (seed << 12) | (uint32_t)(i & 0xfff); break;
        case 1: p[i] = 0xff800000u | (seed << 12) | (uint32_t)(i & 0xfff) | 1u; break;
        case 2: p[i] = 0x7f800000u; break;
        case 3: p[i] = 0xff800000u; break;
        case 4: p[i] = 0u; break;
        case 5: p[i] = 0x80000000u; break;
        case 6: p[i] = 0x00000001u + (r & 0xff); break;
        case 7: p[i] = 0x7f7fffffu; break;
        default: break;
        }
    }
}

static void expect_same(plumb_tensor *a, plumb_tensor *b, const char *what)
{
    size_t ne = (size_t)plumb_tensor_numel(a), bad = 0;
    assert_int_equal(ne, plumb_tensor_numel(b));
    const uint32_t *x = a->data, *y = b->data;
    for (size_t k = 0; k < ne; k++)
        if (x[k] != y[k] && bad++ < 5)
            fprintf(stderr, "%s: element %zu: 0x%08x vs 0x%08x\n", what, k, x[k], y[k]);
    assert_int_equal(bad, 0);
}

/* gelu (erf form) and erf(x) * a are each one register-run group. */
static void test_erf_regs_planned(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        ir_module *m = erf_prog(which, 4096);
        assert_int_equal(planned_regs(m), 1);
        ir_module_free(m);
    }
}

/* fused (opt 2, 1 and 2 threads) == unfused (opt 1) bitwise, for both
 * programs, lengths from one partial vector to several chunks, every
 * kind of input; and erf(x) * 1 fused within erf's 1 ULP of the
 * reference's correctly rounded erf (equal where the result is zero,
 * subnormal or special). */
static void test_erf_regs_exec(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 16, 127, 128, 129, 1000, 4099, 40000};
    for (int which = 0; which < 2; which++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            for (int kind = 0; kind < 3; kind++) {
                int64_t n = lens[k];
                ir_module *m = erf_prog(which, n);
                plumb_tensor *in[2] = {new_tensor(1, &n), new_tensor(0, NULL)};
                fill(in[0], kind, 3 + (uint32_t)kind);
                float one = 1.0f;
                memcpy(in[1]->data, &one, 4);
                uint32_t n_in = which == 0 ? 1 : 2;
                plumb_tensor **u = run_program(m, 1, 1, PLUMB_ISA_AUTO, in, n_in, 1);
                plumb_tensor **f1 = run_program(m, 2, 1, PLUMB_ISA_AUTO, in, n_in, 1);
                plumb_tensor **f2 = run_program(m, 2, 2, PLUMB_ISA_AUTO, in, n_in, 1);
                expect_same(u[0], f1[0], "unfused vs fused, 1 thread");
                expect_same(u[0], f2[0], "unfused vs fused, 2 threads");
                if (which == 1) {
                    plumb_diag d;
                    memset(&d, 0, sizeof d);
                    plumb_ref_result r;
                    assert_true(plumb_ref_run(m, NULL, in, n_in, NULL, &r, &d));
                    const uint32_t *want = r.outputs[0]->data, *got = f2[0]->data;
                    size_t bad = 0;
                    for (int64_t e = 0; e < n; e++) {
                        uint32_t w = want[e], g = got[e];
                        bool wn = (w & 0x7fffffffu) > 0x7f800000u, gn = (g & 0x7fffffffu) > 0x7f800000u;
                        if (wn || gn) {
                            bad += wn != gn;
                            continue;
                        }
                        /* same sign, at most one step apart; exact below the normal range */
                        bool tiny = (w & 0x7fffffffu) < 0x00800000u;
                        int64_t dist = (int64_t)(w & 0x7fffffffu) - (int64_t)(g & 0x7fffffffu);
                        if ((w ^ g) >> 31 && ((w | g) & 0x7fffffffu))
                            dist = 99;
                        if (tiny ? w != g : (dist > 1 || dist < -1)) {
                            if (bad++ < 5)
                                fprintf(stderr, "erf vs reference: element %lld: x 0x%08x got 0x%08x want 0x%08x\n",
                                        (long long)e, ((uint32_t *)in[0]->data)[e], g, w);
                        }
                    }
                    assert_int_equal(bad, 0);
                    plumb_ref_result_free(&r);
                }
                run_free_outs(u, 1);
                run_free_outs(f1, 1);
                run_free_outs(f2, 1);
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
                ir_module_free(m);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erf_regs_planned),
        cmocka_unit_test(test_erf_regs_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
