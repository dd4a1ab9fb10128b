/* stablehlo.convolution with lhs and rhs of different element types on the
 * runtime (k_conv.c: each operand copied in its own type, widened exactly
 * by the GEMM's packing) against the reference: values whose products and
 * sums are exact in the GEMM's f32 or f64 accumulator, so the runtime must
 * give the reference's bits at every ISA level, 1 and 2 threads, opt
 * levels 0 and 2 (rt_check_exact); and random values within the dot bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

/* The bits of v in type t; v must be exact in t (checked). */
static uint64_t enc(plumb_dtype t, double v)
{
    uint64_t b;
    switch (t) {
    case PLUMB_F64: b = plumb_f64_bits(v); break;
    case PLUMB_F32: b = plumb_f32_bits((float)v); break;
    case PLUMB_F16: b = plumb_f64_to_f16(v); break;
    case PLUMB_BF16: b = plumb_f64_to_bf16(v); break;
    default:
        if (plumb_fpfmt_get(t)) {
            b = plumb_f64_to_small(plumb_fpfmt_get(t), v);
        } else {
            b = (uint64_t)(int64_t)v;
            assert_true((double)(int64_t)v == v);
            return b;
        }
    }
    double back = plumb_load_f64(t, &b, 0);
    assert_true(back == v);
    return b;
}

/* Exact small values: halves in [-2, 2] (in every float format down to
 * FP4 E2M1), integers in [-4, 4], powers of two 2^-2..2^2 for f8E8M0FNU
 * (which has no zero and no sign). */
static plumb_tensor *small_vals(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) {
        uint64_t r = rt_rand();
        double v = t == PLUMB_F8E8M0FNU ? ldexp(1.0, (int)(r % 5) - 2)
                 : plumb_dtype_is_float(t) ? ((double)(r % 9) - 4) * 0.5
                                           : (double)(r % 9) - 4;
        plumb_store_bits(t, x->data, (size_t)i, enc(t, v));
    }
    return x;
}

static void mixed_src(char *src, size_t cap, plumb_dtype lt, plumb_dtype rt, plumb_dtype ot)
{
    /* NHWC 5x4 x HWIO 3x3, padding 1 (the holes are lhs zeros), 2 input
     * and 3 output features: K = 18 terms of at most 4·4 = 16 with
     * quarter steps, every partial sum exact in f32 */
    int64_t l[] = {2, 5, 4, 2}, r[] = {3, 3, 2, 3}, o[] = {2, 5, 4, 3};
    char L[96], R[96], O[96];
    rt_ty(L, sizeof L, lt, 4, l);
    rt_ty(R, sizeof R, rt, 4, r);
    rt_ty(O, sizeof O, ot, 4, o);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
             "window = {pad = [[1, 1], [1, 1]]} "
             "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s\n"
             "  return %%r : %s\n}\n",
             L, R, O, L, R, O, O);
}

static void mixed_exact(plumb_dtype lt, plumb_dtype rt, plumb_dtype ot)
{
    int64_t l[] = {2, 5, 4, 2}, r[] = {3, 3, 2, 3};
    char src[2048];
    mixed_src(src, sizeof src, lt, rt, ot);
    plumb_tensor *in[2] = {small_vals(lt, 4, l), small_vals(rt, 4, r)};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Float mixes (both orders where the verifier takes them), exact sums:
 * bit for bit. */
static void test_float_mixes(void **state)
{
    (void)state;
    static const plumb_dtype p[][3] = {
        {PLUMB_BF16, PLUMB_F32, PLUMB_F32},         {PLUMB_F32, PLUMB_BF16, PLUMB_F32},
        {PLUMB_F32, PLUMB_BF16, PLUMB_BF16},        {PLUMB_F16, PLUMB_BF16, PLUMB_F32},
        {PLUMB_F16, PLUMB_F32, PLUMB_F16},          {PLUMB_F64, PLUMB_F32, PLUMB_F64},
        {PLUMB_F32, PLUMB_F64, PLUMB_F32},          {PLUMB_F8E4M3FN, PLUMB_BF16, PLUMB_BF16},
        {PLUMB_F8E5M2, PLUMB_F8E4M3FN, PLUMB_F32},  {PLUMB_BF16, PLUMB_F8E4M3FN, PLUMB_F32},
        {PLUMB_F4E2M1FN, PLUMB_F32, PLUMB_F32},     {PLUMB_F8E8M0FNU, PLUMB_F32, PLUMB_F32},
        {PLUMB_F32, PLUMB_F8E8M0FNU, PLUMB_F32},    {PLUMB_F8E8M0FNU, PLUMB_BF16, PLUMB_BF16},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) mixed_exact(p[i][0], p[i][1], p[i][2]);
}

/* Integer operands with float kernels and the reverse (i8 x f32, f32 x
 * i32 into f64, ...), and two integer widths: bit for bit. */
static void test_int_mixes(void **state)
{
    (void)state;
    static const plumb_dtype p[][3] = {
        {PLUMB_I8, PLUMB_F32, PLUMB_F32},
        {PLUMB_F32, PLUMB_I8, PLUMB_F32},
        {PLUMB_I32, PLUMB_F64, PLUMB_F64},
        {PLUMB_I8, PLUMB_I32, PLUMB_I32},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) mixed_exact(p[i][0], p[i][1], p[i][2]);
}

/* dynamic_conv (padding an operand, k_dynconv.c on k_conv.c) with
 * f8E4M3FN x f32 and bf16 x f16 operands, padding 1 on each side: exact
 * sums, bit for bit. */
static void test_dynamic_conv(void **state)
{
    (void)state;
    static const plumb_dtype p[][3] = {{PLUMB_F8E4M3FN, PLUMB_F32, PLUMB_F32}, {PLUMB_BF16, PLUMB_F16, PLUMB_F32}};
    int64_t l[] = {2, 5, 4, 2}, r[] = {3, 3, 2, 3}, o[] = {2, 5, 4, 3}, pd[] = {2, 2};
    for (size_t i = 0; i < 2; i++) {
        char L[96], R[96], O[96], src[2048];
        rt_ty(L, sizeof L, p[i][0], 4, l);
        rt_ty(R, sizeof R, p[i][1], 4, r);
        rt_ty(O, sizeof O, p[i][2], 4, o);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%w: %s, %%p: tensor<2x2xi64>) -> %s {\n"
                 "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%w, %%p) <{batch_group_count = 1 : i64, "
                 "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
                 "feature_group_count = 1 : i64}> : (%s, %s, tensor<2x2xi64>) -> %s\n"
                 "  return %%r : %s\n}\n",
                 L, R, O, L, R, O, O);
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_tensor *in[3] = {small_vals(p[i][0], 4, l), small_vals(p[i][1], 4, r),
                               plumb_tensor_new(PLUMB_I64, 2, pd, 0, &d)};
        assert_non_null(in[2]);
        for (size_t k = 0; k < 4; k++) plumb_store_bits(PLUMB_I64, in[2]->data, k, 1);
        rt_check_exact(src, in, 3);
        for (size_t k = 0; k < 3; k++) plumb_tensor_free(in[k]);
    }
}

/* bf16 x f32 on random values (rounded sums): within the dot bound of
 * K = 18 terms. */
static void test_random_bound(void **state)
{
    (void)state;
    int64_t l[] = {2, 5, 4, 2}, r[] = {3, 3, 2, 3};
    char src[2048];
    mixed_src(src, sizeof src, PLUMB_BF16, PLUMB_F32, PLUMB_F32);
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_BF16, 4, l, false), rt_rand_tensor(PLUMB_F32, 4, r, false)};
    rt_check_bound(src, in, 2, 18, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_mixes),
        cmocka_unit_test(test_int_mixes),
        cmocka_unit_test(test_dynamic_conv),
        cmocka_unit_test(test_random_bound),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
