/* complex<f32> stablehlo.convolution on the runtime (k_cconv.c: vector
 * double sums with an error-bound test, and the reference's double-double
 * steps for the elements the test cannot settle) against the reference bit
 * for bit, at every ISA level the CPU has, 1 and 2 threads, opt levels 0
 * and 2 (rt_check_exact): layouts, odd feature counts across the 4-lane
 * and 32-feature blocks, strides, dilations, padding, reversal, feature
 * and batch groups, values spread over many binades, and the cases the
 * fast path must hand over (sums on an f32 midpoint, results near zero,
 * subnormal or overflowing, NaN and infinity operands). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
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

/* Random complex<f32> (t = PLUMB_C64) or complex<f64> (PLUMB_C128):
 * components uniform in [-1, 1) times 2^e, e in [-spread, spread], so
 * sums cancel and mix binades. */
static plumb_tensor *crand_t(plumb_dtype t, uint32_t rank, const int64_t *dims, int spread)
{
    plumb_tensor *x = mk(t, rank, dims);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) {
        double c[2];
        for (int k = 0; k < 2; k++) {
            uint64_t r = rt_rand();
            int e = (int)(r % (uint64_t)(2 * spread + 1)) - spread;
            c[k] = ((double)(r >> 11) * 0x1p-53 * 2 - 1) * ldexp(1.0, e);
            if (t == PLUMB_C64) c[k] = (double)(float)c[k];
        }
        plumb_complex_store(t, x->data, (size_t)i, c[0], c[1]);
    }
    return x;
}

static plumb_tensor *crand(uint32_t rank, const int64_t *dims, int spread)
{
    return crand_t(PLUMB_C64, rank, dims, spread);
}

static void conv_src_t(plumb_dtype t, char *src, size_t cap, uint32_t rank, const int64_t *ld, const int64_t *rd,
                       const int64_t *od, const char *dn, const char *window, int fgc, int bgc)
{
    char lt[128], rt[128], ot[128];
    rt_ty(lt, sizeof lt, t, rank, ld);
    rt_ty(rt, sizeof rt, t, rank, rd);
    rt_ty(ot, sizeof ot, t, rank, od);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {%s} "
             "{batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             lt, rt, ot, dn, window, bgc, fgc, lt, rt, ot, ot);
}

static void conv_src(char *src, size_t cap, uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od,
                     const char *dn, const char *window, int fgc, int bgc)
{
    conv_src_t(PLUMB_C64, src, cap, rank, ld, rd, od, dn, window, fgc, bgc);
}

/* One convolution of random operands of type t, bitwise against the
 * reference; the shapes are worked out by hand from the spec's shape rule. */
static void case_rand_t(plumb_dtype t, uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od,
                        const char *dn, const char *window, int fgc, int bgc, int spread)
{
    char src[2048];
    conv_src_t(t, src, sizeof src, rank, ld, rd, od, dn, window, fgc, bgc);
    plumb_tensor *in[2] = {crand_t(t, rank, ld, spread), crand_t(t, rank, rd, spread)};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

static void case_rand(uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od, const char *dn,
                      const char *window, int fgc, int bgc, int spread)
{
    case_rand_t(PLUMB_C64, rank, ld, rd, od, dn, window, fgc, bgc, spread);
}

/* NHWC x HWIO, 3x3 window, padding 1: 37 output features cross the
 * 32-feature block and leave a 1-lane tail; values over 2^-6..2^6 and
 * over 2^-30..2^30 (deep cancellation, more elements left to the slow
 * path). */
static void test_nhwc_pad_odd(void **state)
{
    (void)state;
    int64_t l[] = {2, 6, 5, 3}, r[] = {3, 3, 3, 37}, o[] = {2, 6, 5, 37};
    case_rand(4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]", 1, 1, 6);
    case_rand(4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]", 1, 1, 30);
}

/* NCHW x OIHW with stride 2 over 9x10 ((9-3)/2+1 = 4, (10-3)/2+1 = 4),
 * the result scattered from scratch into NCHW. */
static void test_nchw_stride(void **state)
{
    (void)state;
    int64_t l[] = {1, 3, 9, 10}, r[] = {5, 3, 3, 3}, o[] = {1, 5, 4, 4};
    case_rand(4, l, r, o, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "stride = [2, 2]", 1, 1, 4);
}

/* lhs dilation 2 and rhs dilation 2 on 1-D, padding 2 and reversal:
 * input 5 dilates to 9, +4 padding = 13; window 3 dilated to 5:
 * 13 - 5 + 1 = 9 outputs. */
static void test_dilations_reversal(void **state)
{
    (void)state;
    int64_t l[] = {2, 5, 3}, r[] = {3, 3, 6}, o[] = {2, 9, 6};
    case_rand(3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]",
              "pad = [[2, 2]], lhs_dilate = [2], rhs_dilate = [2], reverse = [true]", 1, 1, 8);
}

/* feature_group_count 3: 6 input features in 3 groups of 2, 9 output
 * features, 3 per group; batch_group_count 2: batch 4 in 2 groups, 6
 * output features, 3 per group. 1-D, window 2: 7 - 2 + 1 = 6 outputs. */
static void test_groups(void **state)
{
    (void)state;
    int64_t l[] = {2, 7, 6}, r[] = {2, 2, 9}, o[] = {2, 6, 9};
    case_rand(3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 3, 1, 5);
    int64_t l2[] = {4, 7, 3}, r2[] = {2, 3, 6}, o2[] = {2, 6, 6};
    case_rand(3, l2, r2, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 2, 5);
}

/* A 1x1 window over NHWC (the GEMM reads the lhs in place) with one input
 * feature and 1, 4 and 5 output features. */
static void test_one_by_one(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 4, 5};
    for (size_t i = 0; i < 3; i++) {
        int64_t n = ns[i], l[] = {1, 3, 4, 1}, r[] = {1, 1, 1, n}, o[] = {1, 3, 4, n};
        case_rand(4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", 1, 1, 3);
    }
}

/* x = (1, 2^-24, 2^-60) (real), a window of 3, kernel feature 0 all 1
 * and feature 1 all i. Feature 0's real part is the exact sum
 * 1 + 2^-24 + 2^-60, just above the f32 midpoint 1 + 2^-24, so it rounds
 * up to 1 + 2^-23; its double sum is the midpoint itself, which would
 * round (to even) down to 1: the fast path must hand it over. Feature 1
 * has the same sum as its imaginary part. Checked on the runtime against
 * these hand values, then against the reference. */
static void test_midpoint(void **state)
{
    (void)state;
    int64_t ld[] = {1, 3, 1}, rd[] = {3, 1, 2}, od[] = {1, 1, 2};
    plumb_tensor *x = mk(PLUMB_C64, 3, ld), *w = mk(PLUMB_C64, 3, rd);
    double xv[3] = {1, 0x1p-24, 0x1p-60};
    for (int i = 0; i < 3; i++) {
        plumb_complex_store(PLUMB_C64, x->data, (size_t)i, xv[i], 0);
        plumb_complex_store(PLUMB_C64, w->data, (size_t)(2 * i), 1, 0);       /* feature 0: 1 */
        plumb_complex_store(PLUMB_C64, w->data, (size_t)(2 * i + 1), 0, 1);   /* feature 1: i */
    }
    char src[2048];
    conv_src(src, sizeof src, 3, ld, rd, od, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 1);
    ir_module *m = rt_parse(src);
    plumb_tensor *in[2] = {x, w};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        plumb_tensor *o = NULL;
        rt_exec_on(m, (plumb_isa)isa, 1, in, 2, &o, 1);
        double re, im;
        plumb_complex_load(PLUMB_C64, o->data, 0, &re, &im);
        assert_true(re == 1 + 0x1p-23 && im == 0 && !signbit(im));
        plumb_complex_load(PLUMB_C64, o->data, 1, &re, &im);
        assert_true(re == 0 && im == 1 + 0x1p-23);
        plumb_tensor_free(o);
    }
    ir_module_free(m);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
}

/* Values the error test cannot settle, mixed into random data at random
 * places: huge (sums overflow f32, or overflow and cancel), tiny
 * (subnormal and zero results), ±0 of both signs (the sign of an exact
 * zero sum), infinities and NaNs (NaN from 0·inf and inf - inf). */
static void test_specials(void **state)
{
    (void)state;
    static const double sp[] = {0x1p100, -0x1p100, 0x1.fffffep127, -0x1.fffffep127, 0x1p-70, -0x1p-75,
                                0x1p-149, 0.0, -0.0, INFINITY, -INFINITY, NAN};
    int64_t l[] = {1, 6, 2}, r[] = {3, 2, 5}, o[] = {1, 6, 5};
    char src[2048];
    conv_src(src, sizeof src, 3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[1, 1]]", 1, 1);
    for (int rep = 0; rep < 40; rep++) {
        plumb_tensor *in[2] = {crand(3, l, 3), crand(3, r, 3)};
        /* early rounds: only finite specials; later ones all of them */
        size_t nsp = rep < 20 ? 9 : sizeof sp / sizeof sp[0];
        for (int t = 0; t < 2; t++) {
            uint64_t n = plumb_tensor_numel(in[t]);
            for (int k = 0; k < 3; k++) {
                uint64_t i = rt_rand() % n, c = rt_rand() % 2;
                double re, im;
                plumb_complex_load(PLUMB_C64, in[t]->data, (size_t)i, &re, &im);
                double v = sp[rt_rand() % nsp];
                plumb_complex_store(PLUMB_C64, in[t]->data, (size_t)i, c ? re : v, c ? v : im);
            }
        }
        rt_check_exact(src, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* All-zero operands, every product ±0: x = (-0, +0) and w = (+0, +0)
 * give real-part terms ar·br = -0·+0 = -0 and -ai·bi = -(+0)·(+0) = -0,
 * all -0, so Re = -0 (IEEE's sum of -0s); imaginary-part terms
 * ar·bi = -0 and ai·br = +0, so Im = +0. */
static void test_signed_zeros(void **state)
{
    (void)state;
    int64_t ld[] = {1, 2, 1}, rd[] = {2, 1, 1}, od[] = {1, 1, 1};
    plumb_tensor *x = mk(PLUMB_C64, 3, ld), *w = mk(PLUMB_C64, 3, rd);
    for (int i = 0; i < 2; i++) {
        plumb_complex_store(PLUMB_C64, x->data, (size_t)i, -0.0, 0.0);
        plumb_complex_store(PLUMB_C64, w->data, (size_t)i, 0.0, 0.0);
    }
    char src[2048];
    conv_src(src, sizeof src, 3, ld, rd, od, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 1);
    ir_module *m = rt_parse(src);
    plumb_tensor *in[2] = {x, w};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        plumb_tensor *o = NULL;
        rt_exec_on(m, (plumb_isa)isa, 1, in, 2, &o, 1);
        double re, im;
        plumb_complex_load(PLUMB_C64, o->data, 0, &re, &im);
        assert_true(re == 0 && signbit(re) && im == 0 && !signbit(im));
        plumb_tensor_free(o);
    }
    ir_module_free(m);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(x);
    plumb_tensor_free(w);
}

/* ---- complex<f64> (k_cconv_f64.c: fma sums against a shifted
 * accumulator with an error bound; the reference's exact sum for the
 * elements the bound cannot settle) ---- */

/* The complex<f32> shapes again on complex<f64>: layouts, 37 features
 * across the 32-feature AVX-512 block, 8-feature AVX2 and portable blocks
 * and their tails, strides, dilations, padding, reversal, groups, the 1x1
 * in-place read; values over 2^-6..2^6, 2^-300..2^300 and 2^-700..2^700
 * (products leave the fast path's σ range; deep cancellation). */
static void test_f64_shapes(void **state)
{
    (void)state;
    static const int spreads[] = {6, 300, 700};
    for (int s = 0; s < 3; s++) {
        int sp = spreads[s];
        int64_t l[] = {2, 6, 5, 3}, r[] = {3, 3, 3, 37}, o[] = {2, 6, 5, 37};
        case_rand_t(PLUMB_C128, 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]", 1, 1, sp);
        int64_t l1[] = {1, 3, 9, 10}, r1[] = {5, 3, 3, 3}, o1[] = {1, 5, 4, 4};
        case_rand_t(PLUMB_C128, 4, l1, r1, o1, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "stride = [2, 2]", 1, 1, sp);
        int64_t l2[] = {2, 5, 3}, r2[] = {3, 3, 6}, o2[] = {2, 9, 6};
        case_rand_t(PLUMB_C128, 3, l2, r2, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]",
                    "pad = [[2, 2]], lhs_dilate = [2], rhs_dilate = [2], reverse = [true]", 1, 1, sp);
        int64_t l3[] = {2, 7, 6}, r3[] = {2, 2, 9}, o3[] = {2, 6, 9};
        case_rand_t(PLUMB_C128, 3, l3, r3, o3, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 3, 1, sp);
        int64_t l4[] = {4, 7, 3}, r4[] = {2, 3, 6}, o4[] = {2, 6, 6};
        case_rand_t(PLUMB_C128, 3, l4, r4, o4, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 2, sp);
        static const int64_t ns[] = {1, 4, 5, 9, 17};
        for (size_t i = 0; i < 5; i++) {
            int64_t n = ns[i], l5[] = {1, 3, 4, 2}, r5[] = {1, 1, 2, n}, o5[] = {1, 3, 4, n};
            case_rand_t(PLUMB_C128, 4, l5, r5, o5, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", 1, 1, sp);
        }
    }
}

/* A 1-D complex<f64> convolution of x (n complex values, one feature)
 * with a window of n kernel values w (one input and one output feature):
 * one result, checked on the runtime at every ISA level against the hand
 * value (re, im) bit for bit, then against the reference. */
static void hand_1d(int n, const double *x, const double *w, double re, double im)
{
    int64_t ld[] = {1, n, 1}, rd[] = {n, 1, 1}, od[] = {1, 1, 1};
    plumb_tensor *xt = mk(PLUMB_C128, 3, ld), *wt = mk(PLUMB_C128, 3, rd);
    for (int i = 0; i < n; i++) {
        plumb_complex_store(PLUMB_C128, xt->data, (size_t)i, x[2 * i], x[2 * i + 1]);
        plumb_complex_store(PLUMB_C128, wt->data, (size_t)i, w[2 * i], w[2 * i + 1]);
    }
    char src[2048];
    conv_src_t(PLUMB_C128, src, sizeof src, 3, ld, rd, od, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 1);
    ir_module *m = rt_parse(src);
    plumb_tensor *in[2] = {xt, wt};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        plumb_tensor *o = NULL;
        rt_exec_on(m, (plumb_isa)isa, 1, in, 2, &o, 1);
        double gr, gi;
        plumb_complex_load(PLUMB_C128, o->data, 0, &gr, &gi);
        uint64_t bg[2], bw[2];
        memcpy(&bg[0], &gr, 8);
        memcpy(&bg[1], &gi, 8);
        memcpy(&bw[0], &re, 8);
        memcpy(&bw[1], &im, 8);
        if (bg[0] != bw[0] || bg[1] != bw[1])
            fprintf(stderr, "isa %d: got (%a, %a), want (%a, %a)\n", isa, gr, gi, re, im);
        assert_true(bg[0] == bw[0] && bg[1] == bw[1]);
        plumb_tensor_free(o);
    }
    ir_module_free(m);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(xt);
    plumb_tensor_free(wt);
}

/* Sums at and near f64 midpoints, worked out by hand. The kernel is all
 * 1, so the real part is the sum of x's real parts and the imaginary part
 * that of x's imaginary parts, here 1 (a component that settles on the
 * fast path, so that the real part is judged on its own):
 * 1 + 2^-53 + 2^-200 lies just above the midpoint 1 + 2^-53 and rounds
 * up to 1 + 2^-52 (a double-double sum rounded once gets it, a double sum
 * does not); 1 + 2^-53 exactly is a tie and goes to even, 1; 1 + 2^-52 +
 * 2^-53 is a tie going up to even 1 + 2^-51; 1 + 2^-53 - 2^-300 is just
 * below the midpoint: 1. Plus 2^-100·(1 + 2^-53) + 2^-400: the same
 * pattern 100 binades down. And below a power of two, where the gap
 * halves: 1 - 2^-54 - 2^-200 lies just below the midpoint 1 - 2^-54
 * between 1 - 2^-53 and 1, so it rounds down to 1 - 2^-53 (a sum that
 * drops the 2^-200 lands on the tie, whose even side is 1). */
static void test_f64_midpoints(void **state)
{
    (void)state;
    double w[6] = {1, 0, 1, 0, 1, 0};
    double x1[6] = {1, 1, 0x1p-53, 0, 0x1p-200, 0};
    hand_1d(3, x1, w, 1 + 0x1p-52, 1);
    double x2[6] = {1, 1, 0x1p-53, 0, 0, 0};
    hand_1d(3, x2, w, 1, 1);
    double x3[6] = {1 + 0x1p-52, 1, 0x1p-53, 0, 0, 0};
    hand_1d(3, x3, w, 1 + 0x1p-51, 1);
    double x4[6] = {1, 1, 0x1p-53, 0, -0x1p-300, 0};
    hand_1d(3, x4, w, 1, 1);
    double x5[6] = {0x1p-100, 1, 0x1p-153, 0, 0x1p-400, 0};
    hand_1d(3, x5, w, 0x1p-100 + 0x1p-152, 1);
    double x6[6] = {1, 1, -0x1p-54, 0, -0x1p-200, 0};
    hand_1d(3, x6, w, 1 - 0x1p-53, 1);
}

/* Massive cancellation: (2^500 + 3i)·1 + (-2^500)·1 + (5 - 2^400 i)·1 +
 * (2^400 i)·1 = 5 + 3i, every huge term cancelling exactly; and
 * x·w products that cancel to a small remainder: (2^50 + 1)(2^50 - 1) -
 * 2^100 = -1 in the real part (2^100 - 1 is not a double: the first
 * product is exact only at 106 bits). */
static void test_f64_cancellation(void **state)
{
    (void)state;
    double w[8] = {1, 0, 1, 0, 1, 0, 1, 0};
    double x[8] = {0x1p500, 3, -0x1p500, 0, 5, -0x1p400, 0, 0x1p400};
    hand_1d(4, x, w, 5, 3);
    double x2[4] = {0x1p50 + 1, 0, -0x1p50, 0}, w2[4] = {0x1p50 - 1, 0, 0x1p50, 0};
    hand_1d(2, x2, w2, -1, 0);
}

/* Results at f64's range ends, by hand: DBL_MAX + 2^969 (below half an
 * ULP of DBL_MAX, 2^970) is DBL_MAX; DBL_MAX + 2^970 is the tie at the
 * overflow threshold and rounds to infinity, as does DBL_MAX + DBL_MAX;
 * products below the subnormals: 2^-538·2^-537 = 2^-1075 is the tie
 * between +0 and 2^-1074 (+0, even), 2^-538·1.5·2^-537 = 0.75·2^-1074
 * rounds to 2^-1074, 2^-537·3·2^-537 = 3·2^-1074 exactly, and
 * 2^-600·2^-600 - 2^-1074 rounds to -2^-1074. */
static void test_f64_range_ends(void **state)
{
    (void)state;
    double w[4] = {1, 0, 1, 0};
    double a[4] = {DBL_MAX, 0, 0x1p969, 0};
    hand_1d(2, a, w, DBL_MAX, 0);
    double b[4] = {DBL_MAX, 0, 0x1p970, 0};
    hand_1d(2, b, w, INFINITY, 0);
    double c[4] = {DBL_MAX, 0, DBL_MAX, 0};
    hand_1d(2, c, w, INFINITY, 0);
    double t1[2] = {0x1p-538, 0}, u1[2] = {0x1p-537, 0};
    hand_1d(1, t1, u1, 0, 0);
    double u2[2] = {0x1.8p-537, 0};
    hand_1d(1, t1, u2, 0x1p-1074, 0);
    double t3[2] = {0x1p-537, 0}, u3[2] = {0x1.8p-536, 0};
    hand_1d(1, t3, u3, 0x3p-1074, 0);
    double t4[4] = {0x1p-600, 0, -0x1p-1074, 0}, u4[4] = {0x1p-600, 0, 1, 0};
    hand_1d(2, t4, u4, -0x1p-1074, 0);
}

/* complex<f64> values the bound cannot settle, mixed into random data:
 * huge (sums overflow or cancel), tiny (products below the subnormals),
 * subnormal, ±0 of both signs, infinities and NaNs, and values built to
 * cancel (±2^k with the same k). */
static void test_f64_specials(void **state)
{
    (void)state;
    static const double sp[] = {0x1p1000, -0x1p1000, DBL_MAX, -DBL_MAX, 0x1p-600, -0x1p-1000, 0x1p-1074,
                                0x1p300, -0x1p300, 0.0, -0.0, INFINITY, -INFINITY, NAN};
    int64_t l[] = {1, 6, 2}, r[] = {3, 2, 11}, o[] = {1, 6, 11};
    char src[2048];
    conv_src_t(PLUMB_C128, src, sizeof src, 3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[1, 1]]", 1, 1);
    for (int rep = 0; rep < 60; rep++) {
        plumb_tensor *in[2] = {crand_t(PLUMB_C128, 3, l, 3), crand_t(PLUMB_C128, 3, r, 3)};
        /* early rounds: only finite specials; later ones all of them */
        size_t nsp = rep < 30 ? 11 : sizeof sp / sizeof sp[0];
        for (int t = 0; t < 2; t++) {
            uint64_t n = plumb_tensor_numel(in[t]);
            for (int k = 0; k < 4; k++) {
                uint64_t i = rt_rand() % n, c = rt_rand() % 2;
                double re, im;
                plumb_complex_load(PLUMB_C128, in[t]->data, (size_t)i, &re, &im);
                double v = sp[rt_rand() % nsp];
                plumb_complex_store(PLUMB_C128, in[t]->data, (size_t)i, c ? re : v, c ? v : im);
            }
        }
        rt_check_exact(src, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* Signed zeros on complex<f64>: x = (-0, +0), w = (+0, +0): Re terms
 * -0·+0 = -0 and -(+0)·(+0) = -0, so Re = -0; Im terms -0·+0 = -0 and
 * +0·+0 = +0, so Im = +0. */
static void test_f64_signed_zeros(void **state)
{
    (void)state;
    double x[4] = {-0.0, 0.0, -0.0, 0.0}, w[4] = {0.0, 0.0, 0.0, 0.0};
    hand_1d(2, x, w, -0.0, 0.0);
}

int main(void)
{
    (void)rt_rand_tensor;   /* rt_test.h's real-valued generator: complex values are drawn by crand */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nhwc_pad_odd),
        cmocka_unit_test(test_nchw_stride),
        cmocka_unit_test(test_dilations_reversal),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_one_by_one),
        cmocka_unit_test(test_midpoint),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_signed_zeros),
        cmocka_unit_test(test_f64_shapes),
        cmocka_unit_test(test_f64_midpoints),
        cmocka_unit_test(test_f64_cancellation),
        cmocka_unit_test(test_f64_range_ends),
        cmocka_unit_test(test_f64_specials),
        cmocka_unit_test(test_f64_signed_zeros),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
