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

/* Random complex<f32>: components uniform in [-1, 1) times 2^e, e in
 * [-spread, spread], so sums cancel and mix binades. */
static plumb_tensor *crand(uint32_t rank, const int64_t *dims, int spread)
{
    plumb_tensor *x = mk(PLUMB_C64, rank, dims);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) {
        double c[2];
        for (int k = 0; k < 2; k++) {
            uint64_t r = rt_rand();
            int e = (int)(r % (uint64_t)(2 * spread + 1)) - spread;
            c[k] = (double)(float)(((double)(r >> 11) * 0x1p-53 * 2 - 1) * ldexp(1.0, e));
        }
        plumb_complex_store(PLUMB_C64, x->data, (size_t)i, c[0], c[1]);
    }
    return x;
}

static void conv_src(char *src, size_t cap, uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od,
                     const char *dn, const char *window, int fgc, int bgc)
{
    char lt[128], rt[128], ot[128];
    rt_ty(lt, sizeof lt, PLUMB_C64, rank, ld);
    rt_ty(rt, sizeof rt, PLUMB_C64, rank, rd);
    rt_ty(ot, sizeof ot, PLUMB_C64, rank, od);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {%s} "
             "{batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             lt, rt, ot, dn, window, bgc, fgc, lt, rt, ot, ot);
}

/* One convolution of random operands, bitwise against the reference; the
 * shapes are worked out by hand from the spec's shape rule. */
static void case_rand(uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od, const char *dn,
                      const char *window, int fgc, int bgc, int spread)
{
    char src[2048];
    conv_src(src, sizeof src, rank, ld, rd, od, dn, window, fgc, bgc);
    plumb_tensor *in[2] = {crand(rank, ld, spread), crand(rank, rd, spread)};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
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
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
