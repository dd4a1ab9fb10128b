/* Dots whose operands hold subnormals: the runtime flushes nothing, so a
 * subnormal times a normal keeps its exact product (2^-130 * 2^20 = 2^-110)
 * on every ISA level and thread count. In particular the AVX512_BF16 kernel
 * (vdpbf16ps reads subnormal inputs as zero) must not take such operands.
 * Every expected value below is derived by hand from the operands written
 * next to it; the reference interpreter must agree with them too. */
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

/* A tensor of type t and shape dims holding the bit patterns bits[]. */
static plumb_tensor *mk(plumb_dtype t, uint32_t rank, const int64_t *dims, const uint64_t *bits)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (size_t)i, bits[i]);
    return x;
}

static bool same_bits(const plumb_tensor *got, const uint64_t *want, uint64_t n, const char *who, int isa,
                      uint32_t th)
{
    bool ok = true;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t g = plumb_load_bits(got->dtype, got->data, (size_t)i);
        if (g != want[i]) {
            fprintf(stderr, "%s isa %d threads %u element %llu: got %#llx (%a), want %#llx (%a)\n", who, isa, th,
                    (unsigned long long)i, (unsigned long long)g, plumb_load_f64(got->dtype, got->data, (size_t)i),
                    (unsigned long long)want[i], plumb_load_f64(got->dtype, &want[i], 0));
            ok = false;
        }
    }
    return ok;
}

/* want[i]: the result's element i as a value exactly representable in the
 * result type ot (already rounded by hand where the sum is not). Checked on
 * the reference, then on the runtime at every ISA level on 1 and 2 threads. */
static void check(const char *src, plumb_tensor *a, plumb_tensor *b, plumb_dtype ot, const double *want, uint64_t n)
{
    uint64_t wb[16];
    assert_true(n <= 16);
    for (uint64_t i = 0; i < n; i++) {
        /* the conversions below are exact: assert it rather than trust it */
        switch (ot) {
        case PLUMB_F32: wb[i] = plumb_f32_bits((float)want[i]); assert_true((double)(float)want[i] == want[i]); break;
        case PLUMB_F64: wb[i] = plumb_f64_bits(want[i]); break;
        case PLUMB_F16: wb[i] = plumb_f64_to_f16(want[i]); break;
        default: wb[i] = plumb_f64_to_bf16(want[i]); break;
        }
        if (ot == PLUMB_F16 || ot == PLUMB_BF16) assert_true(plumb_load_f64(ot, &wb[i], 0) == want[i]);
    }
    ir_module *m = rt_parse(src);
    plumb_tensor *in[2] = {a, b}, *got[RT_MAX_OUT];
    bool ok = true;
    assert_int_equal(rt_ref(m, in, 2, got), 1);
    ok &= same_bits(got[0], wb, n, "reference", -1, 0);
    rt_outs_free(got, 1);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
            ok &= same_bits(got[0], wb, n, "runtime", isa, th);
            rt_outs_free(got, 1);
        }
    ir_module_free(m);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    assert_true(ok);
}

/* The fuzzer's case: bf16 operands where one side is all large normals
 * (smallest 2^16) and the other holds subnormals. The products of the
 * subnormals are normal f32 values and must survive. */
static void test_bf16_large_times_subnormal(void **state)
{
    (void)state;
    int64_t d[2] = {2, 2};
    /* lhs [[2^20, 2^16], [-2^20, 2^30]] */
    static const uint64_t l[4] = {0x4980, 0x4780, 0xC980, 0x4E80};
    /* rhs [[2^-130, 0.5], [-5*2^-133, 2^-126]] */
    static const uint64_t r[4] = {0x0008, 0x3F00, 0x8005, 0x0080};
    const double want_f32[4] = {
        ldexp(123, -117),   /* 2^-110 - 5*2^-117 = (128 - 5) * 2^-117 */
        ldexp(1, 19),       /* 2^19 + 2^-110: the tail is far below half an ulp (2^-5) */
        -ldexp(641, -110),  /* -2^-110 - 5*2^-103 = -(1 + 640) * 2^-110 */
        -ldexp(1, 19),      /* -2^19 + 2^-96 */
    };
    check("func.func @main(%a: tensor<2x2xbf16>, %b: tensor<2x2xbf16>) -> tensor<2x2xf32> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xf32>\n"
          "  func.return %r : tensor<2x2xf32>\n}\n",
          mk(PLUMB_BF16, 2, d, l), mk(PLUMB_BF16, 2, d, r), PLUMB_F32, want_f32, 4);
    /* bf16 result: 641 * 2^-110 needs 10 significant bits; 641/4 = 160.25
     * rounds to 160, so -640 * 2^-110 = -5 * 2^-103 */
    const double want_bf16[4] = {ldexp(123, -117), ldexp(1, 19), -ldexp(5, -103), -ldexp(1, 19)};
    check("func.func @main(%a: tensor<2x2xbf16>, %b: tensor<2x2xbf16>) -> tensor<2x2xbf16> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>\n"
          "  func.return %r : tensor<2x2xbf16>\n}\n",
          mk(PLUMB_BF16, 2, d, l), mk(PLUMB_BF16, 2, d, r), PLUMB_BF16, want_bf16, 4);
    /* f64 result: the f64 compute path; 2^20 * 2^-130 exactly */
    const double want_f64[4] = {ldexp(123, -117), ldexp(1, 19) + ldexp(1, -110), -ldexp(641, -110),
                                -ldexp(1, 19) + ldexp(1, -96)};
    check("func.func @main(%a: tensor<2x2xbf16>, %b: tensor<2x2xbf16>) -> tensor<2x2xf64> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xf64>\n"
          "  func.return %r : tensor<2x2xf64>\n}\n",
          mk(PLUMB_BF16, 2, d, l), mk(PLUMB_BF16, 2, d, r), PLUMB_F64, want_f64, 4);
}

/* A subnormal on the left, large normals on the right (the operand roles
 * swapped), through the rank-1 stablehlo.dot entry point; and a dot whose
 * exact result is itself an f32 subnormal. */
static void test_bf16_dot_rank1(void **state)
{
    (void)state;
    int64_t d[1] = {2};
    /* [2^-130, -2^-133] . [2^20, 2^20] = 2^-110 - 2^-113 = 7 * 2^-113 */
    static const uint64_t l1[2] = {0x0008, 0x8001}, r1[2] = {0x4980, 0x4980};
    const double w1[1] = {ldexp(7, -113)};
    check("func.func @main(%a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<f32> {\n"
          "  %r = stablehlo.dot %a, %b : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<f32>\n"
          "  func.return %r : tensor<f32>\n}\n",
          mk(PLUMB_BF16, 1, d, l1), mk(PLUMB_BF16, 1, d, r1), PLUMB_F32, w1, 1);
    /* [2^-130, 2^-127] . [0.5, -0.25] = 2^-131 - 2^-129 = -3 * 2^-131, an f32 subnormal */
    static const uint64_t l2[2] = {0x0008, 0x0040}, r2[2] = {0x3F00, 0xBE80};
    const double w2[1] = {-ldexp(3, -131)};
    check("func.func @main(%a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<f32> {\n"
          "  %r = stablehlo.dot %a, %b : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<f32>\n"
          "  func.return %r : tensor<f32>\n}\n",
          mk(PLUMB_BF16, 1, d, l2), mk(PLUMB_BF16, 1, d, r2), PLUMB_F32, w2, 1);
}

/* Batch dims: each batch is its own GEMM, so batch 0 (all normal, may use
 * the bf16 kernel) and batch 1 (subnormals, must not) choose separately. */
static void test_bf16_batched(void **state)
{
    (void)state;
    int64_t dl[3] = {2, 1, 2}, dr[3] = {2, 2, 1};
    /* lhs [[[2^20, 2^20]], [[2^20, 2^20]]] */
    static const uint64_t l[4] = {0x4980, 0x4980, 0x4980, 0x4980};
    /* rhs batch 0 [1, 2], batch 1 [2^-130, 2^-130] */
    static const uint64_t r[4] = {0x3F80, 0x4000, 0x0008, 0x0008};
    const double want[2] = {ldexp(3, 20), ldexp(1, -109)};
    check("func.func @main(%a: tensor<2x1x2xbf16>, %b: tensor<2x2x1xbf16>) -> tensor<2x1x1xf32> {\n"
          "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xbf16>, tensor<2x2x1xbf16>) -> tensor<2x1x1xf32>\n"
          "  func.return %r : tensor<2x1x1xf32>\n}\n",
          mk(PLUMB_BF16, 3, dl, l), mk(PLUMB_BF16, 3, dr, r), PLUMB_F32, want, 2);
}

/* f16 x f16 (widened to f32 while packing): subnormal x normal products in
 * sums whose rounding they decide. */
static void test_f16_subnormal(void **state)
{
    (void)state;
    int64_t d[2] = {2, 2};
    /* lhs [[1024, 3], [-0.5, 2^-24]] */
    static const uint64_t l[4] = {0x6400, 0x4200, 0xB800, 0x0001};
    /* rhs [[2^-20, 1], [-3*2^-24, 2^-14]] */
    static const uint64_t r[4] = {0x0010, 0x3C00, 0x8003, 0x0400};
    const double want_f32[4] = {
        ldexp(16375, -24),        /* 2^-10 - 9*2^-24 = (2^14 - 9) * 2^-24 */
        1024 + ldexp(1, -12),     /* 1024 + 3*2^-14 = 1024 + 1.5 ulp (ulp 2^-13): tie, to even 2 ulp */
        -ldexp(1, -21),           /* -2^-21 - 3*2^-48: 3*2^-48 is 0.1875 ulp of 2^-21 */
        -0.5,                     /* -0.5 + 2^-38: below half the ulp (2^-25) under 0.5 */
    };
    check("func.func @main(%a: tensor<2x2xf16>, %b: tensor<2x2xf16>) -> tensor<2x2xf32> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf32>\n"
          "  func.return %r : tensor<2x2xf32>\n}\n",
          mk(PLUMB_F16, 2, d, l), mk(PLUMB_F16, 2, d, r), PLUMB_F32, want_f32, 4);
    /* f16 result: 16375 * 2^-24 lies in [2^-11, 2^-10) where the ulp is 2^-21:
     * 16375 / 8 = 2046.875 rounds to 2047 (2^-10 if the subnormal product
     * were lost); -2^-21 is an f16 subnormal (8 * 2^-24) */
    const double want_f16[4] = {ldexp(2047, -21), 1024, -ldexp(1, -21), -0.5};
    check("func.func @main(%a: tensor<2x2xf16>, %b: tensor<2x2xf16>) -> tensor<2x2xf16> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>\n"
          "  func.return %r : tensor<2x2xf16>\n}\n",
          mk(PLUMB_F16, 2, d, l), mk(PLUMB_F16, 2, d, r), PLUMB_F16, want_f16, 4);
}

/* f16 x bf16 (both widened to f32): an outer product of subnormals and
 * large normals. */
static void test_f16_times_bf16(void **state)
{
    (void)state;
    int64_t dl[2] = {2, 1}, dr[2] = {1, 2};
    static const uint64_t l[2] = {0x6400, 0x0001};   /* f16 [[1024], [2^-24]] */
    static const uint64_t r[2] = {0x0008, 0x4980};   /* bf16 [[2^-130, 2^20]] */
    const double want[4] = {
        ldexp(1, -120), ldexp(1, 30),
        0.0,              /* 2^-154 is below half the smallest f32 subnormal (2^-149): +0 */
        ldexp(1, -4),
    };
    check("func.func @main(%a: tensor<2x1xf16>, %b: tensor<1x2xbf16>) -> tensor<2x2xf32> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x1xf16>, tensor<1x2xbf16>) -> tensor<2x2xf32>\n"
          "  func.return %r : tensor<2x2xf32>\n}\n",
          mk(PLUMB_F16, 2, dl, l), mk(PLUMB_BF16, 2, dr, r), PLUMB_F32, want, 4);
}

/* An integer operand with a bf16 one (the f64 compute path): the
 * subnormals' products stay exact through the widening. */
static void test_int_times_bf16(void **state)
{
    (void)state;
    int64_t d[1] = {2};
    static const uint64_t l[2] = {1u << 20, 3};         /* i32 [2^20, 3] */
    static const uint64_t r[2] = {0x0008, 0x8001};      /* bf16 [2^-130, -2^-133] */
    /* 2^-110 - 3*2^-133 = (2^23 - 3) * 2^-133: 23 significant bits, exact in f32 */
    const double want[1] = {ldexp((1 << 23) - 3, -133)};
    check("func.func @main(%a: tensor<2xi32>, %b: tensor<2xbf16>) -> tensor<f32> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<2xi32>, tensor<2xbf16>) -> tensor<f32>\n"
          "  func.return %r : tensor<f32>\n}\n",
          mk(PLUMB_I32, 1, d, l), mk(PLUMB_BF16, 1, d, r), PLUMB_F32, want, 1);
}

static int teardown(void **state)
{
    (void)state;
    /* rt_test.h's random-tensor and type-string helpers are not needed here */
    (void)rt_rand_tensor;
    (void)rt_ty;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bf16_large_times_subnormal),
        cmocka_unit_test(test_bf16_dot_rank1),
        cmocka_unit_test(test_bf16_batched),
        cmocka_unit_test(test_f16_subnormal),
        cmocka_unit_test(test_f16_times_bf16),
        cmocka_unit_test(test_int_times_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
