/* stablehlo.convolution and dynamic_conv on complex<f32>/complex<f64>, the
 * FP8 formats and i2/i4/ui2/ui4 (docs/spec/conv.md, "Element types"):
 * results worked out by hand, checked bit for bit on the reference and on
 * the runtime at every ISA level the CPU has and on 1 and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

static plumb_tensor *mk(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* A tensor of complex values given as (re, im) pairs. */
static plumb_tensor *cx(plumb_dtype t, uint32_t rank, const int64_t *dims, const double *v)
{
    plumb_tensor *x = mk(t, rank, dims);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) plumb_complex_store(t, x->data, (size_t)i, v[2 * i], v[2 * i + 1]);
    return x;
}

/* A tensor of small-format values, each exactly representable in t. */
static plumb_tensor *f8(plumb_dtype t, uint32_t rank, const int64_t *dims, const double *v)
{
    plumb_tensor *x = mk(t, rank, dims);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) {
        uint32_t b = plumb_f64_to_small(plumb_fpfmt_get(t), v[i]);
        assert_true(plumb_small_to_f64(plumb_fpfmt_get(t), b) == v[i]);   /* the test's values are exact */
        plumb_store_bits(t, x->data, (size_t)i, b);
    }
    return x;
}

static plumb_tensor *ints(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *v)
{
    plumb_tensor *x = mk(t, rank, dims);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) plumb_store_bits(t, x->data, (size_t)i, (uint64_t)v[i]);
    return x;
}

/* Runs src on the reference and on the runtime at every ISA level and on
 * 1 and 2 threads; each result must equal want bit for bit. */
static void expect_bits(const char *src, plumb_tensor *const *in, uint32_t n, const plumb_tensor *want)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *got[RT_MAX_OUT] = {0};
    uint32_t no = rt_ref(m, in, n, got);
    assert_int_equal(no, 1);
    if (!rt_equal(got[0], want, false)) rt_report_diff(got[0], want, "reference against the hand-derived result");
    assert_true(rt_equal(got[0], want, false));
    rt_outs_free(got, no);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *o = NULL;
            rt_exec_on(m, (plumb_isa)isa, th, in, n, &o, 1);
            if (!rt_equal(o, want, false)) {
                fprintf(stderr, "isa %d, %u threads:\n", isa, th);
                rt_report_diff(o, want, "runtime against the hand-derived result");
            }
            assert_true(rt_equal(o, want, false));
            plumb_tensor_free(o);
        }
    ir_module_free(m);
}

static const char *D1 = "[b, 0, f]x[0, i, o]->[b, 0, f]";

/* A 1-D convolution of length-3 x with a length-2 kernel, written as
 * convolution (padding an attribute) and as dynamic_conv (padding a
 * parameter). */
static void conv1d(plumb_dtype lt, plumb_dtype ot, int64_t len, int64_t klen, int64_t pad, int64_t olen,
                   plumb_tensor *x, plumb_tensor *w, const plumb_tensor *want)
{
    int64_t ld[3] = {1, len, 1}, rd[3] = {klen, 1, 1}, od[3] = {1, olen, 1};
    char L[96], R[96], O[96], src[1024];
    rt_ty(L, sizeof L, lt, 3, ld);
    rt_ty(R, sizeof R, lt, 3, rd);
    rt_ty(O, sizeof O, ot, 3, od);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {pad = [[%lld, %lld]]} "
             "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             L, R, O, D1, (long long)pad, (long long)pad, L, R, O, O);
    plumb_tensor *in[3] = {x, w, NULL};
    expect_bits(src, in, 2, want);
    int64_t pd[2] = {1, 2};
    in[2] = mk(PLUMB_I64, 2, pd);
    plumb_store_bits(PLUMB_I64, in[2]->data, 0, (uint64_t)pad);
    plumb_store_bits(PLUMB_I64, in[2]->data, 1, (uint64_t)pad);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s, %%p: tensor<1x2xi64>) -> %s {\n"
             "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%w, %%p) <{batch_group_count = 1 : i64, "
             "dimension_numbers = #stablehlo.conv<%s>, feature_group_count = 1 : i64}> "
             ": (%s, %s, tensor<1x2xi64>) -> %s\n"
             "  return %%r : %s\n}\n",
             L, R, O, D1, L, R, O, O);
    expect_bits(src, in, 3, want);
    plumb_tensor_free(in[2]);
}

/* x = [1+2i, 3-i, i], w = [2+i, -1+3i], padding 1 on each side: 4 outputs.
 *   0·w0 + x0·w1 = (1+2i)(-1+3i) = -1 + 3i - 2i - 6 = -7 + i
 *   x0·w0 + x1·w1 = (2 - 2 + 5i) + (-3 + 3 + 9i + i) = 15i
 *   x1·w0 + x2·w1 = (6 + 1 + 3i - 2i) + (-i - 3) = 4
 *   x2·w0 + 0·w1 = 2i - 1 = -1 + 2i
 * A kernel conjugated, or a product without its -ai·bi term, changes every
 * one of them. */
static void test_complex_1d(void **state)
{
    (void)state;
    static const double xv[] = {1, 2, 3, -1, 0, 1}, wv[] = {2, 1, -1, 3}, rv[] = {-7, 1, 0, 15, 4, 0, -1, 2};
    int64_t ld[3] = {1, 3, 1}, rd[3] = {2, 1, 1}, od[3] = {1, 4, 1};
    for (int k = 0; k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        plumb_tensor *x = cx(t, 3, ld, xv), *w = cx(t, 3, rd, wv), *want = cx(t, 3, od, rv);
        conv1d(t, t, 3, 2, 1, 4, x, w, want);
        plumb_tensor_free(x);
        plumb_tensor_free(w);
        plumb_tensor_free(want);
    }
}

/* Each component rounded once from the exact sum: with a = 2^-60,
 * x = [1+i, 1-i], w = [a+i, 1+ai] (no padding, one output):
 *   (1+i)(a+i) = (a-1) + (1+a)i,  (1-i)(1+ai) = (1+a) + (a-1)i,
 * sum 2a + 2ai = 2^-59 + 2^-59 i exactly. Rounding each product to f64
 * first (a - 1 -> -1, 1 + a -> 1) would give 0. */
static void test_complex_once(void **state)
{
    (void)state;
    double a = 0x1p-60;
    double xv[] = {1, 1, 1, -1}, wv[] = {a, 1, 1, a}, rv[] = {0x1p-59, 0x1p-59};
    int64_t ld[3] = {1, 2, 1}, rd[3] = {2, 1, 1}, od[3] = {1, 1, 1};
    plumb_tensor *x = cx(PLUMB_C128, 3, ld, xv), *w = cx(PLUMB_C128, 3, rd, wv), *want = cx(PLUMB_C128, 3, od, rv);
    conv1d(PLUMB_C128, PLUMB_C128, 2, 2, 0, 1, x, w, want);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want);
}

/* f8E4M3FN (3 fraction bits: spacing 1 in [8, 16)), kernel [1, 1, 1], one
 * window per batch element, the sum rounded once to the format:
 *   8 + 0.5  + 0.5 = 9     exact (adding in the format, 8 + 0.5 = 8.5
 *                          ties to 8 twice: 8)
 *   8 + 1    + 0.5 = 9.5   tie between 9 (odd) and 10 (even): 10
 *   8 + 1    + 0.75 = 9.75 rounds up: 10
 *   8 + 0.25 + 0.5 = 8.75  rounds up: 9
 *   8 + 0    + 0.5 = 8.5   tie between 8 (even) and 9: 8
 * and with an f32 result the exact sums themselves. */
static void test_fp8_rounding(void **state)
{
    (void)state;
    static const double xv[] = {8, 0.5, 0.5, 8, 1, 0.5, 8, 1, 0.75, 8, 0.25, 0.5, 8, 0, 0.5};
    static const double wv[] = {1, 1, 1};
    static const double r8[] = {9, 10, 10, 9, 8}, r32[] = {9, 9.5, 9.75, 8.75, 8.5};
    int64_t ld[3] = {5, 3, 1}, rd[3] = {3, 1, 1}, od[3] = {5, 1, 1};
    const plumb_dtype t = PLUMB_F8E4M3FN;
    plumb_tensor *x = f8(t, 3, ld, xv), *w = f8(t, 3, rd, wv), *want8 = f8(t, 3, od, r8);
    plumb_tensor *want32 = mk(PLUMB_F32, 3, od);
    for (int i = 0; i < 5; i++) ((float *)want32->data)[i] = (float)r32[i];
    char L[96], R[96], O[96], src[1024];
    rt_ty(L, sizeof L, t, 3, ld);
    rt_ty(R, sizeof R, t, 3, rd);
    for (int k = 0; k < 2; k++) {
        rt_ty(O, sizeof O, k ? PLUMB_F32 : t, 3, od);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
                 "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {} "
                 "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s\n"
                 "  return %%r : %s\n}\n",
                 L, R, O, D1, L, R, O, O);
        plumb_tensor *in[2] = {x, w};
        expect_bits(src, in, 2, k ? want32 : want8);
    }
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want8);
    plumb_tensor_free(want32);
}

/* The other small float formats through the padded 1-D program: x = [1, 2,
 * 0.5], w = [1.5, 1], padding 1: [0·1.5 + 1·1, 1·1.5 + 2·1, 2·1.5 + 0.5·1,
 * 0.5·1.5 + 0] = [1, 3.5, 3.5, 0.75], each exact in every format listed
 * (f4E2M1FN holds 1, 1.5, 2, 3, 4, 6: 3.5 ties to 4 (even), 0.75 to 1 — its
 * subnormal step is 0.5 — and 0.5 is its subnormal). */
static void test_small_formats(void **state)
{
    (void)state;
    static const plumb_dtype T[] = {PLUMB_F8E5M2, PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ, PLUMB_F8E4M3B11FNUZ,
                                    PLUMB_F8E3M4, PLUMB_F8E4M3, PLUMB_F6E2M3FN, PLUMB_F6E3M2FN};
    static const double xv[] = {1, 2, 0.5}, wv[] = {1.5, 1}, rv[] = {1, 3.5, 3.5, 0.75}, r4[] = {1, 4, 4, 1};
    int64_t ld[3] = {1, 3, 1}, rd[3] = {2, 1, 1}, od[3] = {1, 4, 1};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        plumb_tensor *x = f8(T[i], 3, ld, xv), *w = f8(T[i], 3, rd, wv), *want = f8(T[i], 3, od, rv);
        conv1d(T[i], T[i], 3, 2, 1, 4, x, w, want);
        plumb_tensor_free(x);
        plumb_tensor_free(w);
        plumb_tensor_free(want);
    }
    plumb_tensor *x = f8(PLUMB_F4E2M1FN, 3, ld, xv), *w = f8(PLUMB_F4E2M1FN, 3, rd, wv);
    plumb_tensor *want = f8(PLUMB_F4E2M1FN, 3, od, r4);
    conv1d(PLUMB_F4E2M1FN, PLUMB_F4E2M1FN, 3, 2, 1, 4, x, w, want);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want);
    /* f8E8M0FNU holds powers of two only: x = [1, 2, 0.5], w = [4, 2]
     * -> [2, 4 + 4, 8 + 1, 2] = [2, 8, 9 -> 8, 2] (9 lies between 8 and 16,
     * nearer 8); its padding zero is a term 0 · w even though the format
     * has no zero */
    static const double ew[] = {4, 2}, er[] = {2, 8, 8, 2};
    x = f8(PLUMB_F8E8M0FNU, 3, ld, xv);
    w = f8(PLUMB_F8E8M0FNU, 3, rd, ew);
    want = f8(PLUMB_F8E8M0FNU, 3, od, er);
    conv1d(PLUMB_F8E8M0FNU, PLUMB_F8E8M0FNU, 3, 2, 1, 4, x, w, want);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want);
    /* ... and a padding position under its largest value 2^127 is still
     * +0 · 2^127 = 0, not its pattern 0 (2^-127) · 2^127 = 1: x = [1],
     * w = [2^127, 1], padding 1 -> [0 + 1, 2^127 + 0] = [1, 2^127] */
    static const double x1[] = {1}, w1[] = {0x1p127, 1}, r1[] = {1, 0x1p127};
    int64_t ld1[3] = {1, 1, 1}, od1[3] = {1, 2, 1};
    x = f8(PLUMB_F8E8M0FNU, 3, ld1, x1);
    w = f8(PLUMB_F8E8M0FNU, 3, rd, w1);
    want = f8(PLUMB_F8E8M0FNU, 3, od1, r1);
    conv1d(PLUMB_F8E8M0FNU, PLUMB_F8E8M0FNU, 1, 2, 1, 2, x, w, want);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want);
}

/* Sub-byte integers wrap modulo 2^bits like every integer type, padding 1,
 * w = [w0, w1]: outputs [x0·w1, x0·w0 + x1·w1, x1·w0 + x2·w1, x2·w0].
 *   i4  x = [7, -8, 3], w = [2, 1]: [7, 14 - 8 = 6, -16 + 3 = -13 -> 3, 6]
 *   ui4 x = [15, 3, 5], w = [15, 1]: [15, 225 + 3 = 228 -> 4, 45 + 5 = 50 -> 2, 75 -> 11]
 *   i2  x = [1, -2, 1], w = [1, 1]: [1, -1, -1, 1]
 *   ui2 x = [3, 2, 1], w = [3, 3]: [9 -> 1, 9 + 6 = 15 -> 3, 6 + 3 = 9 -> 1, 3]
 * and i4 operands with an i32 result keep the unwrapped sums. */
static void test_subbyte_ints(void **state)
{
    (void)state;
    static const struct { plumb_dtype t; int64_t x[3], w[2], r[4]; } C[] = {
        {PLUMB_I4, {7, -8, 3}, {2, 1}, {7, 6, 3, 6}},
        {PLUMB_UI4, {15, 3, 5}, {15, 1}, {15, 4, 2, 11}},
        {PLUMB_I2, {1, -2, 1}, {1, 1}, {1, -1, -1, 1}},
        {PLUMB_UI2, {3, 2, 1}, {3, 3}, {1, 3, 1, 3}},
    };
    int64_t ld[3] = {1, 3, 1}, rd[3] = {2, 1, 1}, od[3] = {1, 4, 1};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        plumb_tensor *x = ints(C[i].t, 3, ld, C[i].x), *w = ints(C[i].t, 3, rd, C[i].w);
        plumb_tensor *want = ints(C[i].t, 3, od, C[i].r);
        conv1d(C[i].t, C[i].t, 3, 2, 1, 4, x, w, want);
        plumb_tensor_free(x);
        plumb_tensor_free(w);
        plumb_tensor_free(want);
    }
    static const int64_t r32[] = {7, 6, -13, 6};
    plumb_tensor *x = ints(PLUMB_I4, 3, ld, C[0].x), *w = ints(PLUMB_I4, 3, rd, C[0].w);
    plumb_tensor *want = ints(PLUMB_I32, 3, od, r32);
    char L[96], R[96], O[96], src[1024];
    rt_ty(L, sizeof L, PLUMB_I4, 3, ld);
    rt_ty(R, sizeof R, PLUMB_I4, 3, rd);
    rt_ty(O, sizeof O, PLUMB_I32, 3, od);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {pad = [[1, 1]]} "
             "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             L, R, O, D1, L, R, O, O);
    plumb_tensor *in[2] = {x, w};
    expect_bits(src, in, 2, want);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
    plumb_tensor_free(want);
}

/* Larger sub-byte integer convolutions (NHWC 3x3, padding 1, two feature
 * groups) of random patterns: the runtime's integer GEMM path against the
 * reference bit for bit (both wrap; the hand-derived cases above pin the
 * reference itself). */
static void test_subbyte_random(void **state)
{
    (void)state;
    static const plumb_dtype T[] = {PLUMB_I4, PLUMB_UI4, PLUMB_I2, PLUMB_UI2};
    int64_t l[] = {2, 5, 4, 4}, r[] = {3, 3, 2, 6}, o[] = {2, 5, 4, 6};
    for (size_t i = 0; i < 4; i++) {
        char L[96], R[96], O[96], src[1024];
        rt_ty(L, sizeof L, T[i], 4, l);
        rt_ty(R, sizeof R, T[i], 4, r);
        rt_ty(O, sizeof O, T[i], 4, o);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
                 "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                 "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} "
                 ": (%s, %s) -> %s\n"
                 "  return %%r : %s\n}\n",
                 L, R, O, L, R, O, O);
        plumb_tensor *in[2] = {rt_rand_tensor(T[i], 4, l, false), rt_rand_tensor(T[i], 4, r, false)};
        rt_check_exact(src, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* Complex with a real result or a real kernel is not a convolution the
 * spec allows (C27: one element type): the verifier says so. */
static void test_complex_mixed_refused(void **state)
{
    (void)state;
    static const char *const progs[] = {
        "func.func @main(%x: tensor<1x3x1xcomplex<f32>>, %w: tensor<2x1x1xf32>) -> tensor<1x2x1xcomplex<f32>> {\n"
        "  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} "
        "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xcomplex<f32>>, tensor<2x1x1xf32>) -> tensor<1x2x1xcomplex<f32>>\n"
        "  return %r : tensor<1x2x1xcomplex<f32>>\n}\n",
        "func.func @main(%x: tensor<1x3x1xcomplex<f32>>, %w: tensor<2x1x1xcomplex<f32>>) -> tensor<1x2x1xcomplex<f64>> {\n"
        "  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} "
        "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xcomplex<f32>>, tensor<2x1x1xcomplex<f32>>) -> tensor<1x2x1xcomplex<f64>>\n"
        "  return %r : tensor<1x2x1xcomplex<f64>>\n}\n",
    };
    for (size_t i = 0; i < 2; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        ir_module *m = ir_parse(progs[i], strlen(progs[i]), "test", NULL, &d);
        assert_non_null(m);
        assert_false(ir_verify(m, NULL, &d));
        assert_non_null(strstr(d.msg, "C27"));
        ir_module_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complex_1d),
        cmocka_unit_test(test_complex_once),
        cmocka_unit_test(test_fp8_rounding),
        cmocka_unit_test(test_small_formats),
        cmocka_unit_test(test_subbyte_ints),
        cmocka_unit_test(test_subbyte_random),
        cmocka_unit_test(test_complex_mixed_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
