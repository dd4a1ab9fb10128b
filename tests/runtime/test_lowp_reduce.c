/* reduce, reduce_window and select_and_scatter on the small float formats
 * (FP8/FP6/FP4/E8M0) and i2/i4/ui2/ui4: the runtime (runtime/k_lowp_reduce.c
 * for recognised reduce bodies, runtime/k_window.c and the elementwise
 * tables for the rest) against the reference, bit for bit (NaN codes too),
 * at every ISA level on 1 and 2 threads, over inputs holding every bit
 * pattern of the type; and sums whose exact value was worked out by hand,
 * which a sum rounded at every step would miss. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "plumb/fp8.h"

/* A tensor of t whose elements run through every pattern of the type in a
 * scrambled order (an odd multiplier modulo 2^bits is a permutation);
 * finite_only skips NaN and infinity codes (so that sums carry values). */
static plumb_tensor *patterns(plumb_dtype t, uint32_t rank, const int64_t *dims, uint32_t mul, bool finite_only)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint32_t bits = plumb_dtype_get(t)->bits, n = 1u << bits, k = 0;
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    for (uint64_t i = 0; i < plumb_tensor_numel(x); i++) {
        uint32_t b;
        do {
            b = (k++ * mul + 3) & (n - 1);
        } while (finite_only && f && (plumb_small_is_nan(f, b) || plumb_small_is_inf(f, b)));
        plumb_store_bits(t, x->data, i, b);
    }
    return x;
}

static const char *body_ops[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};

static void reduce_case(plumb_dtype t, const char *body, uint32_t rank, const int64_t *dims, const char *rdims,
                        uint32_t orank, const int64_t *odims, bool finite_only, uint32_t mul, uint32_t init)
{
    char it[128], ot[128], src[2048];
    const char *e = plumb_dtype_name(t);
    rt_ty(it, sizeof it, t, rank, dims);
    rt_ty(ot, sizeof ot, t, orank, odims);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%c: tensor<%s>) -> %s {\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.%s across dimensions = [%s] : (%s, tensor<%s>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, e, ot, body, rdims, it, e, ot, ot);
    plumb_tensor *in[2] = {patterns(t, rank, dims, mul, finite_only), rt_scalar_bits(t, init)};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Every small type, every body its elementwise ops take, over three
 * layouts (inner, outer, and two split dimensions reduced); sums and
 * products of finite values and of every pattern (NaN and infinity too);
 * the init value a pattern from the middle of the type. */
static void test_reduce_all_types(void **state)
{
    (void)state;
    int64_t d2[2] = {7, 37}, o_in[1] = {7}, o_out[1] = {37}, d3[3] = {3, 5, 9}, o3[1] = {5};
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!plumb_dtype_is_lowp(t)) continue;
        uint32_t half = 1u << (plumb_dtype_get(t)->bits - 2);
        for (size_t b = 0; b < sizeof body_ops / sizeof body_ops[0]; b++) {
            bool bitop = b >= 4;
            if (bitop && plumb_fpfmt_get(t)) continue;
            for (int fin = 0; fin < 2; fin++) {
                reduce_case(t, body_ops[b], 2, d2, "1", 1, o_in, fin, 5, half);
                reduce_case(t, body_ops[b], 2, d2, "0", 1, o_out, fin, 7, half + 1);
                reduce_case(t, body_ops[b], 3, d3, "0, 2", 1, o3, fin, 11, 0);
            }
        }
    }
}

/* Sub-byte integer sums and products of random bits (wrapping, so any
 * order gives the same bits) over a longer reduced dimension. */
static void test_reduce_subint_random(void **state)
{
    (void)state;
    static const plumb_dtype ts[] = {PLUMB_I2, PLUMB_I4, PLUMB_UI2, PLUMB_UI4};
    int64_t d[2] = {50, 300};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (int b = 0; b < 4; b++) {
            const char *e = plumb_dtype_name(ts[i]);
            char src[1024];
            snprintf(src, sizeof src,
                     "func.func @main(%%x: tensor<50x300x%s>, %%c: tensor<%s>) -> tensor<50x%s> {\n"
                     "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.%s across dimensions = [1] : (tensor<50x300x%s>, tensor<%s>) -> tensor<50x%s>\n"
                     "  return %%r : tensor<50x%s>\n}\n",
                     e, e, e, body_ops[b], e, e, e, e);
            plumb_tensor *in[2] = {rt_rand_tensor(ts[i], 2, d, false), rt_scalar_bits(ts[i], 1)};
            rt_check_exact(src, in, 2);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
}

/* One reduce over n copies of the pattern x with init 0 on both backends:
 * the result's bits. */
static void hand_sum(plumb_dtype t, uint32_t x, int64_t n, uint32_t want)
{
    char src[1024];
    const char *e = plumb_dtype_name(t);
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%lldx%s>, %%c: tensor<%s>) -> tensor<%s> {\n"
             "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [0] : (tensor<%lldx%s>, tensor<%s>) -> tensor<%s>\n"
             "  return %%r : tensor<%s>\n}\n",
             (long long)n, e, e, e, (long long)n, e, e, e, e);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[2] = {plumb_tensor_new(t, 1, &n, 0, &d), rt_scalar_bits(t, 0)};
    assert_non_null(in[0]);
    for (int64_t i = 0; i < n; i++) plumb_store_bits(t, in[0]->data, (size_t)i, x);
    ir_module *m = rt_parse(src);
    plumb_tensor *out[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, in, 2, out), 1);
    assert_int_equal(plumb_load_bits(t, out[0]->data, 0), want);
    rt_outs_free(out, 1);
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, 2, out, 1);
    assert_int_equal(plumb_load_bits(t, out[0]->data, 0), want);
    rt_outs_free(out, 1);
    ir_module_free(m);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Sums rounded once from the exact value (docs/spec/types.md,
 * "Reductions"), by hand:
 *   f8E4M3FN 24 x 1.0 = 24 = 1.5 * 2^4: exponent field 11, fraction 100,
 *     0x5C (stepwise rounding stalls at 16 = 0x58: 16 + 1 ties to even 16);
 *   f4E2M1FN 5 x 0.5 = 2.5, a tie between 2 (0x4) and 3 (0x5): even, 0x4;
 *     7 x 0.5 = 3.5, a tie between 3 (0x5) and 4 (0x6): even, 0x6;
 *   f8E5M2 1000 x 448 (0x5F) = 448000, beyond 57344 + half an ulp
 *     (61440): +inf, 0x7C; f8E4M3FN: its NaN 0x7F; f6E2M3FN (no inf, no
 *     NaN) saturates: 1000 x 7.5 (0x1F) -> 7.5, 0x1F;
 *   i4 20 x 7 = 140 = 0x8C: modulo 16, 0xC (-4). */
static void test_reduce_hand_sums(void **state)
{
    (void)state;
    hand_sum(PLUMB_F8E4M3FN, 0x38, 24, 0x5C);
    hand_sum(PLUMB_F4E2M1FN, 0x1, 5, 0x4);
    hand_sum(PLUMB_F4E2M1FN, 0x1, 7, 0x6);
    hand_sum(PLUMB_F8E5M2, 0x5F, 1000, 0x7C);
    hand_sum(PLUMB_F8E4M3FN, 0x7E, 1000, 0x7F);
    hand_sum(PLUMB_F6E2M3FN, 0x1F, 1000, 0x1F);
    hand_sum(PLUMB_I4, 0x7, 20, 0xC);
}

/* reduce_window (max and add bodies) and select_and_scatter (GE, add) on
 * every small type over every pattern: the body's ops in the order both
 * backends share, bit for bit. */
static void test_windows_all_types(void **state)
{
    (void)state;
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!plumb_dtype_is_lowp(t)) continue;
        const char *e = plumb_dtype_name(t);
        static const char *bodies[] = {"maximum", "add"};
        for (int b = 0; b < 2; b++) {
            char src[2048];
            snprintf(src, sizeof src,
                     "func.func @main(%%x: tensor<9x20x%s>, %%c: tensor<%s>) -> tensor<4x19x%s> {\n"
                     "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>, "
                     "window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>}> ({\n"
                     "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                     "    %%m = stablehlo.%s %%a, %%b : tensor<%s>\n"
                     "    stablehlo.return %%m : tensor<%s>\n"
                     "  }) : (tensor<9x20x%s>, tensor<%s>) -> tensor<4x19x%s>\n"
                     "  return %%r : tensor<4x19x%s>\n}\n",
                     e, e, e, e, e, bodies[b], e, e, e, e, e, e);
            int64_t d[2] = {9, 20};
            plumb_tensor *in[2] = {patterns(t, 2, d, 13, b == 1), rt_scalar_bits(t, 0)};
            rt_check_exact(src, in, 2);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
        char src[2048];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: tensor<8x6x%s>, %%s: tensor<4x3x%s>, %%c: tensor<%s>) -> tensor<8x6x%s> {\n"
                 "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>, "
                 "window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 2>}> ({\n"
                 "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                 "    %%p = stablehlo.compare GE, %%a, %%b : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                 "    stablehlo.return %%p : tensor<i1>\n"
                 "  }, {\n"
                 "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                 "    %%m = stablehlo.add %%a, %%b : tensor<%s>\n"
                 "    stablehlo.return %%m : tensor<%s>\n"
                 "  }) : (tensor<8x6x%s>, tensor<4x3x%s>, tensor<%s>) -> tensor<8x6x%s>\n"
                 "  return %%r : tensor<8x6x%s>\n}\n",
                 e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e);
        int64_t dx[2] = {8, 6}, ds[2] = {4, 3};
        plumb_tensor *in[3] = {patterns(t, 2, dx, 5, false), patterns(t, 2, ds, 9, true), rt_scalar_bits(t, 0)};
        rt_check_exact(src, in, 3);
        for (int k = 0; k < 3; k++) plumb_tensor_free(in[k]);
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_all_types),
        cmocka_unit_test(test_reduce_subint_random),
        cmocka_unit_test(test_reduce_hand_sums),
        cmocka_unit_test(test_windows_all_types),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
