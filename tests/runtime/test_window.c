/* reduce_window and select_and_scatter on the compiled runtime
 * (runtime/k_window.c) against the reference at every ISA level the CPU
 * has (portable, AVX2, AVX-512 forced in turn) on 1 and 2 threads:
 * bitwise for maximum/minimum, integer bodies, generic bodies and
 * select_and_scatter; float sums within the data-dependent bound and
 * bitwise equal across thread counts and ISA levels. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"

/* A reduce_window program on one input of type `in` with the body op
 * `body` and the attribute text `attrs`, result type `out`. */
static char *rw_prog(plumb_dtype t, uint32_t rank, const int64_t *dims, const char *body, const char *attrs,
                     uint32_t orank, const int64_t *odims)
{
    static char buf[4096];
    char it[128], ot[128];
    const char *e = plumb_dtype_name(t);
    rt_ty(it, sizeof it, t, rank, dims);
    rt_ty(ot, sizeof ot, t, orank, odims);
    snprintf(buf, sizeof buf,
             "func.func @main(%%x: %s, %%c: tensor<%s>) -> %s {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "    %%m = stablehlo.%s %%a, %%b : tensor<%s>\n"
             "    stablehlo.return %%m : tensor<%s>\n"
             "  }) : (%s, tensor<%s>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, e, ot, attrs, e, e, body, e, e, it, e, ot, ot);
    return buf;
}

static void run_case(plumb_dtype t, uint32_t rank, const int64_t *dims, const char *body, const char *attrs,
                     const int64_t *odims, uint64_t init_bits, uint64_t window)
{
    if (strcmp(body, "multiply") == 0)   /* init 1: a product of the window */
        init_bits = t == PLUMB_F32 ? 0x3F800000u : t == PLUMB_F64 ? 0x3FF0000000000000ull : t == PLUMB_F16 ? 0x3C00u
                  : t == PLUMB_BF16 ? 0x3F80u : 1u;
    plumb_tensor *in[2] = {rt_rand_tensor(t, rank, dims, true), rt_scalar_bits(t, init_bits)};
    const char *src = rw_prog(t, rank, dims, body, attrs, rank, odims);
    if (plumb_dtype_is_float(t) && (strcmp(body, "add") == 0 || strcmp(body, "multiply") == 0))
        rt_check_bound(src, in, 2, window + 1, true);
    else
        rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* The NHWC pooling windows: 2x2 stride 2, and 3x3 stride 2 padding 1. */
#define POOL22 "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"
#define POOL33                                                                         \
    "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, "            \
    "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>"

/* Pooling shapes on NHWC f32: 2x2 stride 2 and 3x3 stride 2 padding 1,
 * max and sum (the vector path: innermost window 1, stride 1), with odd
 * channel counts so the vector loops' tails run. */
static void test_pooling_f32(void **state)
{
    (void)state;
    int64_t d[4] = {2, 9, 7, 19}, o22[4] = {2, 4, 3, 19}, o33[4] = {2, 5, 4, 19};
    const char *a22 = POOL22, *a33 = POOL33;
    run_case(PLUMB_F32, 4, d, "maximum", a22, o22, 0xFF800000u, 4);
    run_case(PLUMB_F32, 4, d, "maximum", a33, o33, 0xFF800000u, 9);
    run_case(PLUMB_F32, 4, d, "minimum", a33, o33, 0x7F800000u, 9);
    run_case(PLUMB_F32, 4, d, "add", a22, o22, 0, 4);
    run_case(PLUMB_F32, 4, d, "add", a33, o33, 0, 9);
    run_case(PLUMB_F64, 4, d, "add", a33, o33, 0, 9);
    run_case(PLUMB_F64, 4, d, "maximum", a33, o33, 0xFFF0000000000000ull, 9);
}

/* The vector max/min paths (f32 accumulators, AVX2 and AVX-512 with a
 * masked tail; double accumulators for f64) on the values their lane
 * selection must get right: NaN terms and accumulators, -0 against +0,
 * infinities; and inputs all negative (max) or all positive (min) under
 * 3x3 padding 1, where a pad folded as 0 instead of the init value would
 * show in every border window. Bitwise against the reference. */
static void test_pooling_specials(void **state)
{
    (void)state;
    int64_t d[4] = {2, 9, 7, 37}, o33[4] = {2, 5, 4, 37}, o22[4] = {2, 4, 3, 37};
    const char *a22 = POOL22, *a33 = POOL33;
    static const plumb_dtype types[] = {PLUMB_F32, PLUMB_F64};
    static const char *const bodies[] = {"maximum", "minimum"};
    for (size_t ti = 0; ti < 2; ti++) {
        plumb_dtype t = types[ti];
        bool f32 = t == PLUMB_F32;
        for (int mode = 0; mode < 3; mode++)
            for (size_t b = 0; b < 2; b++) {
                plumb_tensor *x = rt_rand_tensor(t, 4, d, true);
                uint64_t n = plumb_tensor_numel(x);
                for (uint64_t i = 0; i < n; i++) {
                    double v = plumb_load_f64(t, x->data, (size_t)i);
                    if (mode == 0) {
                        /* specials: a few NaNs, many signed zeros, infinities */
                        v = i % 97 == 5 ? NAN : i % 7 == 1 ? -0.0 : i % 7 == 2 ? 0.0 : i % 53 == 3 ? -INFINITY
                          : i % 59 == 4 ? INFINITY : v;
                    } else {
                        /* one sign throughout: mode 1 negative, mode 2 positive */
                        v = (mode == 1 ? -1 : 1) * (fabs(v) + 0.5);
                    }
                    plumb_store_bits(t, x->data, i, f32 ? plumb_f32_bits((float)v) : plumb_f64_bits(v));
                }
                bool mx = b == 0;
                uint64_t init = f32 ? (mx ? 0xFF800000u : 0x7F800000u)
                                    : (mx ? 0xFFF0000000000000ull : 0x7FF0000000000000ull);
                plumb_tensor *in[2] = {x, rt_scalar_bits(t, init)};
                rt_check_exact_nan(rw_prog(t, 4, d, bodies[b], a33, 4, o33), in, 2);
                rt_check_exact_nan(rw_prog(t, 4, d, bodies[b], a22, 4, o22), in, 2);
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
            }
    }
}

/* Window dilations and strides on the outer dimensions with no padding:
 * every window lies inside the operand there, so the row kernel takes its
 * positions from the precomputed outer offsets; each type and body. */
static void test_outer_window_dilation(void **state)
{
    (void)state;
    /* dim 0: extent (2-1)*2+1 = 3, 7-3+1 = 5; dim 1: extent 5, (9-5)/2+1 = 3; dim 2: 4 */
    int64_t d[3] = {7, 9, 4}, o[3] = {5, 3, 4};
    const char *a = "window_dilations = array<i64: 2, 2, 1>, window_dimensions = array<i64: 2, 3, 1>, "
                    "window_strides = array<i64: 1, 2, 1>";
    static const plumb_dtype types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64, PLUMB_I8, PLUMB_UI32, PLUMB_I64};
    static const char *const bodies[] = {"add", "multiply", "maximum", "minimum"};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t b = 0; b < 4; b++)
            run_case(types[ti], 3, d, bodies[b], a, o, 0, 6);
}

/* Every other float and integer type, strides, base and window dilations
 * and padding in each dimension (the per-element path), on ranks 1-3. */
static void test_dilations_all_types(void **state)
{
    (void)state;
    int64_t d1[1] = {23}, o1[1] = {11};
    const char *a1 = "base_dilations = array<i64: 2>, padding = dense<[[2, 1]]> : tensor<1x2xi64>, "
                     "window_dilations = array<i64: 2>, window_dimensions = array<i64: 3>, window_strides = array<i64: 4>";
    /* dilated 45, padded 48, window 5: (48-5)/4+1 = 11 */
    static const plumb_dtype types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64, PLUMB_I8, PLUMB_UI8, PLUMB_I16,
                                        PLUMB_UI16, PLUMB_I32, PLUMB_UI32, PLUMB_I64, PLUMB_UI64};
    static const char *const bodies[] = {"add", "multiply", "maximum", "minimum"};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t b = 0; b < 4; b++)
            run_case(types[ti], 1, d1, bodies[b], a1, o1, 0, 3);
    int64_t d3[3] = {3, 8, 6}, o3[3] = {2, 4, 6};
    /* dim 0: 3 - 2 + 1 = 2 windows; dim 1: padded 10, window 3, stride 2:
     * (10 - 3) / 2 + 1 = 4; dim 2: 6 */
    const char *a3 = "padding = dense<[[0, 0], [1, 1], [0, 0]]> : tensor<3x2xi64>, "
                     "window_dimensions = array<i64: 2, 3, 1>, window_strides = array<i64: 1, 2, 1>";
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        run_case(types[ti], 3, d3, ti < 4 ? "add" : "maximum", a3, o3, 0, 6);
    int64_t bd[2] = {5, 6}, bo[2] = {4, 6};
    const char *ab = "window_dimensions = array<i64: 2, 1>";
    run_case(PLUMB_I1, 2, bd, "add", ab, bo, 0, 2);
    run_case(PLUMB_I1, 2, bd, "minimum", ab, bo, 1, 2);
    run_case(PLUMB_I32, 2, bd, "and", ab, bo, 0xFFFFFFFFu, 2);
    run_case(PLUMB_UI16, 2, bd, "or", ab, bo, 0, 2);
}

/* A body the kernel does not recognise (x * y + x) runs through the
 * compiled region in the reference's order: bitwise equal. */
static void test_generic_body(void **state)
{
    (void)state;
    int64_t d[2] = {6, 7};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, d, true), rt_scalar_bits(PLUMB_F32, 0x3F800000u)};
    rt_check_exact_nan(
        "func.func @main(%x: tensor<6x7xf32>, %c: tensor<f32>) -> tensor<3x6xf32> {\n"
        "  %r = \"stablehlo.reduce_window\"(%x, %c) <{padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>, "
        "window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>}> ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %p = stablehlo.multiply %a, %b : tensor<f32>\n"
        "    %s = stablehlo.add %p, %a : tensor<f32>\n"
        "    stablehlo.return %s : tensor<f32>\n"
        "  }) : (tensor<6x7xf32>, tensor<f32>) -> tensor<3x6xf32>\n"
        "  return %r : tensor<3x6xf32>\n}\n",
        in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* select_and_scatter: the max-pool gradient (GE, add) on f32 and i32 with
 * 3x3 stride 2 padding 1 (overlapping windows: one element takes several
 * sources, added in source order), and a select the kernel does not
 * recognise (LT: the minimum), through the regions. Bitwise. */
static void test_select_and_scatter(void **state)
{
    (void)state;
    static const struct { plumb_dtype t; const char *cmp; } cases[] = {
        {PLUMB_F32, "GE"}, {PLUMB_I32, "GE"}, {PLUMB_F16, "GT"}, {PLUMB_F64, "LT"}, {PLUMB_BF16, "GE"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t d[3] = {9, 7, 3}, s[3] = {5, 4, 3};
        plumb_dtype t = cases[i].t;
        const char *e = plumb_dtype_name(t);
        plumb_tensor *in[3] = {rt_rand_tensor(t, 3, d, true), rt_rand_tensor(t, 3, s, true), rt_scalar_bits(t, 0)};
        char src[3000];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: tensor<9x7x3x%s>, %%s: tensor<5x4x3x%s>, %%c: tensor<%s>) -> tensor<9x7x3x%s> {\n"
                 "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{padding = dense<[[1, 1], [1, 1], [0, 0]]> : "
                 "tensor<3x2xi64>, window_dimensions = array<i64: 3, 3, 1>, window_strides = array<i64: 2, 2, 1>}> ({\n"
                 "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                 "    %%p = stablehlo.compare %s, %%a, %%b : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                 "    stablehlo.return %%p : tensor<i1>\n"
                 "  }, {\n"
                 "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                 "    %%m = stablehlo.add %%a, %%b : tensor<%s>\n"
                 "    stablehlo.return %%m : tensor<%s>\n"
                 "  }) : (tensor<9x7x3x%s>, tensor<5x4x3x%s>, tensor<%s>) -> tensor<9x7x3x%s>\n"
                 "  return %%r : tensor<9x7x3x%s>\n}\n",
                 e, e, e, e, e, e, cases[i].cmp, e, e, e, e, e, e, e, e, e, e, e);
        rt_check_exact_nan(src, in, 3);
        for (int k = 0; k < 3; k++)
            plumb_tensor_free(in[k]);
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

/* The pooling gradient on NHWC (window 1 on the batch dimension, so the
 * batch indices spread over threads): 2x2 stride 2 and 3x3 stride 2
 * padding 1 (windows at the border partly on padding, overlapping
 * windows inside a batch index), GE and GT on operands with many ties
 * (small integers), so which of equal maxima takes the source shows.
 * Bitwise against the reference on 1 and 2 threads at every ISA level. */
static void test_pooling_grad(void **state)
{
    (void)state;
    static const struct { plumb_dtype t; const char *cmp; } cases[] = {
        {PLUMB_F32, "GE"}, {PLUMB_F32, "GT"}, {PLUMB_F64, "GE"}, {PLUMB_I32, "GT"}, {PLUMB_F16, "GE"}};
    static const char *const attrs[] = {POOL22, POOL33};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t a = 0; a < 2; a++) {
            /* 2x2/2: 8x6 -> 4x3; 3x3/2 padding 1: (8+2-3)/2+1 = 4, (6+2-3)/2+1 = 3 */
            /* 21 channels: a full 16-lane block and a masked tail */
            int64_t d[4] = {5, 8, 6, 21}, sd[4] = {5, 4, 3, 21};
            plumb_dtype t = cases[i].t;
            const char *e = plumb_dtype_name(t);
            plumb_tensor *in[3] = {rt_rand_tensor(t, 4, d, true), rt_rand_tensor(t, 4, sd, true), rt_scalar_bits(t, 0)};
            uint64_t n = plumb_tensor_numel(in[0]);
            for (uint64_t k = 0; k < n; k++) {
                /* values in {-1, 0, 1, 2}: ties in most windows */
                int64_t v = (int64_t)(plumb_load_bits(t, in[0]->data, k) % 4) - 1;
                uint64_t bits = t == PLUMB_F32 ? plumb_f32_bits((float)v) : t == PLUMB_F64 ? plumb_f64_bits((double)v)
                              : t == PLUMB_F16 ? plumb_f64_to_f16((double)v) : (uint64_t)(uint32_t)v;
                plumb_store_bits(t, in[0]->data, k, bits);
            }
            char src[3000];
            snprintf(src, sizeof src,
                     "func.func @main(%%x: tensor<5x8x6x21x%s>, %%s: tensor<5x4x3x21x%s>, %%c: tensor<%s>) -> tensor<5x8x6x21x%s> {\n"
                     "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{%s}> ({\n"
                     "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                     "    %%p = stablehlo.compare %s, %%a, %%b : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                     "    stablehlo.return %%p : tensor<i1>\n"
                     "  }, {\n"
                     "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                     "    %%m = stablehlo.add %%a, %%b : tensor<%s>\n"
                     "    stablehlo.return %%m : tensor<%s>\n"
                     "  }) : (tensor<5x8x6x21x%s>, tensor<5x4x3x21x%s>, tensor<%s>) -> tensor<5x8x6x21x%s>\n"
                     "  return %%r : tensor<5x8x6x21x%s>\n}\n",
                     e, e, e, e, attrs[a], e, e, cases[i].cmp, e, e, e, e, e, e, e, e, e, e, e);
            rt_check_exact_nan(src, in, 3);
            for (int k = 0; k < 3; k++)
                plumb_tensor_free(in[k]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pooling_f32),
        cmocka_unit_test(test_pooling_specials),
        cmocka_unit_test(test_outer_window_dilation),
        cmocka_unit_test(test_dilations_all_types),
        cmocka_unit_test(test_generic_body),
        cmocka_unit_test(test_select_and_scatter),
        cmocka_unit_test(test_pooling_grad),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
