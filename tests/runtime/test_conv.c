/* Runtime stablehlo.convolution (im2col + GEMM, or the GEMM straight on a
 * 1x1 lhs) against the reference: every ISA level the CPU has and 1 and 2
 * threads (rt_test.h), floats within the data-dependent bound of dots with
 * K = input features per group x window elements terms, integers and i1
 * bit for bit; layouts, groups, dilations, padding, reversal, odd sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

/* One convolution of random operands: shapes and the result's shape are
 * the caller's (worked out by hand from the spec's shape rule). */
static void conv_case(plumb_dtype t, uint32_t rank, const int64_t *ld, const int64_t *rd, const int64_t *od,
                      const char *dn, const char *window, int fgc, int bgc, uint64_t nterms)
{
    char lt[128], rt[128], ot[128], src[2048];
    rt_ty(lt, sizeof lt, t, rank, ld);
    rt_ty(rt, sizeof rt, t, rank, rd);
    rt_ty(ot, sizeof ot, t, rank, od);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = %s, window = {%s} "
             "{batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             lt, rt, ot, dn, window, bgc, fgc, lt, rt, ot, ot);
    plumb_tensor *in[2] = {rt_rand_tensor(t, rank, ld, false), rt_rand_tensor(t, rank, rd, false)};
    rt_check_bound(src, in, 2, nterms, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

static const plumb_dtype FLOATS[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16};

/* NHWC x HWIO, 3x3 window, padding 1 keeps 7x5; K = 3 * 9 terms. */
static void test_nhwc_pad(void **state)
{
    (void)state;
    int64_t l[] = {2, 7, 5, 3}, r[] = {3, 3, 3, 4}, o[] = {2, 7, 5, 4};
    for (size_t i = 0; i < 4; i++)
        conv_case(FLOATS[i], 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]", 1, 1, 27);
}

/* NCHW x OIHW, stride 2 over 9x10: (9 - 3) / 2 + 1 = 4, (10 - 3) / 2 + 1 = 4. */
static void test_nchw_stride(void **state)
{
    (void)state;
    int64_t l[] = {1, 3, 9, 10}, r[] = {4, 3, 3, 3}, o[] = {1, 4, 4, 4};
    for (size_t i = 0; i < 2; i++)
        conv_case(FLOATS[i], 4, l, r, o, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "stride = [2, 2]", 1, 1, 27);
}

/* feature_group_count = 2 (4 features, KI = 2, 6 outputs: 3 per group);
 * batch_group_count = 2 (batch 4 -> 2, 4 outputs: 2 per group). */
static void test_groups(void **state)
{
    (void)state;
    int64_t l[] = {2, 5, 5, 4}, r[] = {3, 3, 2, 6}, o[] = {2, 5, 5, 6};
    conv_case(PLUMB_F32, 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]", 2, 1, 18);
    int64_t l2[] = {4, 6, 3}, r2[] = {3, 3, 4}, o2[] = {2, 4, 4};
    conv_case(PLUMB_F64, 3, l2, r2, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 2, 9);
    conv_case(PLUMB_I32, 3, l2, r2, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 2, 9);
}

/* lhs_dilate 2 (7 -> 13), padding [2, 1] (16), rhs_dilate 2 (window 3 -> 5),
 * reversed: 16 - 5 + 1 = 12 positions. */
static void test_dilations_reversal(void **state)
{
    (void)state;
    int64_t l[] = {2, 7, 3}, r[] = {3, 3, 5}, o[] = {2, 12, 5};
    for (size_t i = 0; i < 4; i++)
        conv_case(FLOATS[i], 3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]",
                  "pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [2], reverse = [true]", 1, 1, 9);
    /* negative padding crops: 7 - 1 - 1 = 5, window 3: 3 positions */
    int64_t o2[] = {2, 3, 5};
    conv_case(PLUMB_F32, 3, l, r, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[-1, -1]]", 1, 1, 9);
}

/* A 1x1 window over NHWC: the GEMM reads the lhs in place. */
static void test_1x1_direct(void **state)
{
    (void)state;
    int64_t l[] = {2, 6, 6, 8}, r[] = {1, 1, 8, 5}, o[] = {2, 6, 6, 5};
    conv_case(PLUMB_F32, 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", 1, 1, 8);
    conv_case(PLUMB_BF16, 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", 1, 1, 8);
}

/* 3-D, stride 2: (4 - 2) / 2 + 1 = 2 per spatial dimension; K = 2 * 8. */
static void test_3d(void **state)
{
    (void)state;
    int64_t l[] = {1, 4, 4, 4, 2}, r[] = {2, 2, 2, 2, 3}, o[] = {1, 2, 2, 2, 3};
    conv_case(PLUMB_F32, 5, l, r, o, "[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f]", "stride = [2, 2, 2]", 1, 1, 16);
}

/* Scrambled layouts: lhs [0, f, 1, b] (5, 3, 6, 2), kernel [i, 1, o, 0]
 * (3, 3, 4, 2), result [1, b, f, 0]: (6 - 3 + 1, 2, 4, 5 - 2 + 1). */
static void test_scrambled_layout(void **state)
{
    (void)state;
    int64_t l[] = {5, 3, 6, 2}, r[] = {3, 3, 4, 2}, o[] = {4, 2, 4, 4};
    conv_case(PLUMB_F32, 4, l, r, o, "[0, f, 1, b]x[i, 1, o, 0]->[1, b, f, 0]", "", 1, 1, 18);
    conv_case(PLUMB_I8, 4, l, r, o, "[0, f, 1, b]x[i, 1, o, 0]->[1, b, f, 0]", "", 1, 1, 18);
}

/* Integers wrap and i1 is the OR of ANDs, bit for bit with the reference;
 * 6 - 3 + 1 = 4 rows, 5 + 1 (padding) - 2 + 1 = 5 columns. */
static void test_int_types(void **state)
{
    (void)state;
    int64_t l[] = {2, 6, 5, 3}, r[] = {3, 2, 3, 4}, o[] = {2, 4, 5, 4};
    static const plumb_dtype T[] = {PLUMB_I8, PLUMB_I16, PLUMB_I64, PLUMB_UI32, PLUMB_I1};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        conv_case(T[i], 4, l, r, o, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "pad = [[0, 0], [1, 0]]", 1, 1, 18);
}

/* Empty: zero input features give +0 everywhere; a zero batch gives nothing. */
static void test_empty(void **state)
{
    (void)state;
    int64_t l[] = {2, 5, 0}, r[] = {3, 0, 4}, o[] = {2, 3, 4};
    conv_case(PLUMB_F32, 3, l, r, o, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 1, 0);
    int64_t l2[] = {0, 5, 2}, r2[] = {3, 2, 4}, o2[] = {0, 3, 4};
    conv_case(PLUMB_F32, 3, l2, r2, o2, "[b, 0, f]x[0, i, o]->[b, 0, f]", "", 1, 1, 6);
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
        cmocka_unit_test(test_nhwc_pad),
        cmocka_unit_test(test_nchw_stride),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_dilations_reversal),
        cmocka_unit_test(test_1x1_direct),
        cmocka_unit_test(test_3d),
        cmocka_unit_test(test_scrambled_layout),
        cmocka_unit_test(test_int_types),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
