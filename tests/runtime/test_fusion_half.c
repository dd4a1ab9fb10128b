/* Fused row groups of f16 and bf16 (runtime/fusion_exec.c S_FOLDH with
 * rt_fold_half_row in runtime/k_reduce.c): softmax and layer_norm of the
 * half types are one row group whose per-row work (mean, variance, +eps,
 * rsqrt) runs once per row, and fused execution (opt_level 2, 1 and 2
 * threads) gives the unfused program's bits (opt_level 1) at the CPU's
 * best kernel level and at the portable one; the row folds alone (sum,
 * max, min with ordinary and special inits) equal the reference bit for
 * bit on data whose sums are exact in double. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"

static const plumb_dtype HALVES[2] = {PLUMB_F16, PLUMB_BF16};

/* Deterministic half patterns: ordinary values in [-4, 4) with at most
 * 7 significant bits (exact in both types), and with specials set the first
 * elements of some rows NaN (two payloads), +-inf, -0, +0 and subnormals. */
static void fill_half(plumb_tensor *t, size_t rows, size_t len, uint32_t seed, bool specials)
{
    uint16_t *p = t->data;
    uint32_t s = seed * 2654435761u + 7;
    bool f16 = t->dtype == PLUMB_F16;
    for (size_t i = 0; i < rows * len; i++) {
        s = s * 1664525u + 1013904223u;
        float v = (float)((int32_t)(s >> 25) - 64) / 16.0f;   /* k/16, |k| <= 64 */
        p[i] = f16 ? plumb_f32_to_f16(v) : (uint16_t)(plumb_f32_bits(v) >> 16);
    }
    if (!specials)
        return;
    const uint16_t sp16[] = {0x7E01, 0xFD55, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x83FF};
    const uint16_t spb[] = {0x7FC1, 0xFF95, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x807F};
    for (size_t r = 0; r < rows; r += 3)
        p[r * len + (r / 3) % len] = (f16 ? sp16 : spb)[(r / 3) % 8];
}

static plumb_tensor *new_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* The case a failure report names. */
static char ctx[128];

static void expect_same(plumb_tensor *const *a, plumb_tensor *const *b, uint32_t n, const char *what)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t ne = (size_t)plumb_tensor_numel(a[i]), shown = 0;
        for (size_t k = 0; k < ne && shown < 5; k++) {
            uint64_t x = plumb_load_bits(a[i]->dtype, a[i]->data, k);
            uint64_t y = plumb_load_bits(b[i]->dtype, b[i]->data, k);
            if (x != y) {
                fprintf(stderr, "%s %s (%s): result %u element %zu: 0x%llx vs 0x%llx\n", ctx, what,
                        plumb_dtype_name(a[i]->dtype), i, k, (unsigned long long)x, (unsigned long long)y);
                shown++;
            }
        }
        assert_true(plumb_tensor_equal(a[i], b[i]));
    }
}

/* got == the reference's want bit for bit, a NaN matching any NaN (the
 * reference makes a NaN sum the default NaN; NaN payloads are not part of
 * the ops' contract). */
static void expect_ref(const plumb_tensor *want, const plumb_tensor *got)
{
    size_t ne = (size_t)plumb_tensor_numel(want);
    uint64_t bad = 0;
    for (size_t k = 0; k < ne; k++) {
        uint64_t w = plumb_load_bits(want->dtype, want->data, k), g = plumb_load_bits(got->dtype, got->data, k);
        if (w == g || (plumb_float_is_nan(want->dtype, w) && plumb_float_is_nan(got->dtype, g)))
            continue;
        if (bad++ < 5)
            fprintf(stderr, "%s reference vs fused fold (%s): element %zu: 0x%llx vs 0x%llx\n", ctx,
                    plumb_dtype_name(want->dtype), k, (unsigned long long)w, (unsigned long long)g);
    }
    assert_int_equal(bad, 0);
}

/* opt 2 on 1 and 2 threads == opt 1, at the best and the portable level. */
static void check_fused_unfused(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out)
{
    const plumb_isa isas[2] = {PLUMB_ISA_AUTO, PLUMB_ISA_PORTABLE};
    for (int k = 0; k < 2; k++) {
        plumb_tensor **u = run_program(m, 1, 1, isas[k], in, n_in, n_out);
        plumb_tensor **f1 = run_program(m, 2, 1, isas[k], in, n_in, n_out);
        plumb_tensor **f2 = run_program(m, 2, 2, isas[k], in, n_in, n_out);
        expect_same(u, f1, n_out, k ? "unfused vs fused, portable" : "unfused vs fused, 1 thread");
        expect_same(u, f2, n_out, "unfused vs fused, 2 threads");
        run_free_outs(u, n_out);
        run_free_outs(f1, n_out);
        run_free_outs(f2, n_out);
    }
}

static ir_module *nn_rows(plumb_dtype t, int which, int64_t rows, int64_t cols)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    int64_t dims[2] = {rows, cols};
    ir_value *x = plumb_nn_param(&nn, t, 2, dims);
    ir_value *y;
    if (which == 0) {
        y = plumb_nn_softmax(&nn, x, -1);
    } else {
        ir_value *gamma = plumb_nn_param(&nn, t, 1, &dims[1]);
        ir_value *beta = plumb_nn_param(&nn, t, 1, &dims[1]);
        y = plumb_nn_layer_norm(&nn, x, gamma, beta, 1e-5);
    }
    return nn_finish(&nn, m, &y, 1);
}

/* softmax and layer_norm in f16 and bf16 are each one row group holding
 * both reductions: the half row folds join the group (before, each reduce
 * ran alone and the per-row work ran on every element). */
static void test_half_norms_one_row_group(void **state)
{
    (void)state;
    for (int ti = 0; ti < 2; ti++)
        for (int which = 0; which < 2; which++) {
            ir_module *m = nn_rows(HALVES[ti], which, 64, 256);
            plumb_diag d;
            memset(&d, 0, sizeof d);
            ir_func *f = ir_module_find_func(m, "main");
            assert_true(rt_run_passes(m, f, 2, 0, &d));
            plumb_arena *a = plumb_arena_new(0);
            rt_group *g;
            uint32_t n;
            assert_true(rt_fuse(a, f, 2, &g, &n, &d));
            uint32_t fused = 0, reduces = 0;
            for (uint32_t k = 0; k < n; k++) {
                if (!g[k].fused)
                    continue;
                fused++;
                assert_true(rt_fused_rows(g[k].fused));
                for (uint32_t o = 0; o < g[k].n_ops; o++)
                    reduces += g[k].ops[o]->code == PLUMB_OP_REDUCE;
            }
            assert_int_equal(fused, 1);
            assert_int_equal(reduces, 2);
            plumb_arena_free(a);
            ir_module_free(m);
        }
}

/* softmax and layer_norm of f16/bf16 rows, odd lengths, one row, rows
 * with NaN, infinities, signed zeros and subnormals: fused == unfused bit
 * for bit, 1 and 2 threads, best and portable kernels. */
static void test_half_norms_fused_equals_unfused(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{67, 129}, {5, 1000}, {3, 1}, {1, 4099}, {24, 2100}};
    for (int ti = 0; ti < 2; ti++)
        for (int which = 0; which < 2; which++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (int sp = 0; sp < 2; sp++) {
                    const int64_t *dims = shapes[s];
                    ir_module *m = nn_rows(HALVES[ti], which, dims[0], dims[1]);
                    snprintf(ctx, sizeof ctx, "%s %lldx%lld%s:", which ? "layer_norm" : "softmax", (long long)dims[0],
                             (long long)dims[1], sp ? " with specials" : "");
                    plumb_tensor *in[3];
                    in[0] = new_tensor(HALVES[ti], 2, dims);
                    fill_half(in[0], (size_t)dims[0], (size_t)dims[1], (uint32_t)s, sp == 1);
                    uint32_t n_in = 1;
                    if (which == 1) {
                        in[1] = new_tensor(HALVES[ti], 1, &dims[1]);
                        in[2] = new_tensor(HALVES[ti], 1, &dims[1]);
                        fill_half(in[1], 1, (size_t)dims[1], 11, false);
                        fill_half(in[2], 1, (size_t)dims[1], 12, false);
                        n_in = 3;
                    }
                    check_fused_unfused(m, in, n_in, 1);
                    for (uint32_t i = 0; i < n_in; i++)
                        plumb_tensor_free(in[i]);
                    ir_module_free(m);
                }
}

/* Row folds of [R, L] half x with init c, each followed by x - fold(x)
 * broadcast back (so the reduce joins a row group), returning both. */
static ir_module *fold_prog(plumb_dtype t, const char *body, uint16_t init, int64_t R, int64_t L)
{
    const char *tn = t == PLUMB_F16 ? "f16" : "bf16";
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%lldx%lldx%s>) -> (tensor<%lldx%s>, tensor<%lldx%lldx%s>) {\n"
             "  %%c = stablehlo.constant dense<0x%04X> : tensor<%s>\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.%s across dimensions = [1]"
             " : (tensor<%lldx%lldx%s>, tensor<%s>) -> tensor<%lldx%s>\n"
             "  %%b = stablehlo.broadcast_in_dim %%r, dims = [0] : (tensor<%lldx%s>) -> tensor<%lldx%lldx%s>\n"
             "  %%d = stablehlo.subtract %%x, %%b : tensor<%lldx%lldx%s>\n"
             "  return %%r, %%d : tensor<%lldx%s>, tensor<%lldx%lldx%s>\n"
             "}\n",
             (long long)R, (long long)L, tn, (long long)R, tn, (long long)R, (long long)L, tn, init, tn, body,
             (long long)R, (long long)L, tn, tn, (long long)R, tn, (long long)R, tn, (long long)R, (long long)L, tn,
             (long long)R, (long long)L, tn, (long long)R, tn, (long long)R, (long long)L, tn);
    return parse_ok(src);
}

/* add, maximum and minimum row folds of f16/bf16 from 0, -0, 1.5, -inf,
 * +inf and a NaN init, rows of lengths around the vector widths and the
 * sum block (2048), with and without special elements: fused == unfused,
 * and == the reference bit for bit (the values have few significant bits
 * over a narrow exponent range, so the double lane sums are exact and
 * round once like the reference's exact sum; maxima and minima are exact). */
static void test_half_row_folds(void **state)
{
    (void)state;
    static const char *bodies[3] = {"add", "maximum", "minimum"};
    static const int64_t lens[] = {1, 31, 32, 33, 100, 2047, 2049, 4100};
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = HALVES[ti];
        bool f16 = t == PLUMB_F16;
        const uint16_t inits[6] = {0x0000, 0x8000, f16 ? 0x3E00 : 0x3FC0, f16 ? 0xFC00 : 0xFF80,
                                   f16 ? 0x7C00 : 0x7F80, f16 ? 0x7E05 : 0x7FC5};
        for (int b = 0; b < 3; b++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (int k = 0; k < 6; k++) {
                    int64_t dims[2] = {7, lens[li]};
                    ir_module *m = fold_prog(t, bodies[b], inits[k], dims[0], dims[1]);
                    snprintf(ctx, sizeof ctx, "%s init 0x%04X length %lld:", bodies[b], inits[k], (long long)lens[li]);
                    plumb_tensor *x = new_tensor(t, 2, dims);
                    /* a NaN init with NaN elements: two NaN terms of a sum, whose
                     * payload is the documented exception (docs/runtime-reduce.md) */
                    bool sp = k % 2 == 1 && !(b == 0 && k == 5);
                    fill_half(x, 7, (size_t)lens[li], (uint32_t)(li * 6 + (size_t)k), sp);
                    check_fused_unfused(m, &x, 1, 2);
                    plumb_tensor **f = run_program(m, 2, 1, PLUMB_ISA_AUTO, &x, 1, 2);
                    plumb_diag d;
                    memset(&d, 0, sizeof d);
                    plumb_ref_result r;
                    assert_true(plumb_ref_run(m, NULL, &x, 1, NULL, &r, &d));
                    /* sums over special rows (inf - inf) are left to the
                     * unfused comparison above */
                    if (!sp || b != 0)
                        expect_ref(r.outputs[0], f[0]);
                    plumb_ref_result_free(&r);
                    run_free_outs(f, 2);
                    plumb_tensor_free(x);
                    ir_module_free(m);
                }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_norms_one_row_group),
        cmocka_unit_test(test_half_norms_fused_equals_unfused),
        cmocka_unit_test(test_half_row_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
