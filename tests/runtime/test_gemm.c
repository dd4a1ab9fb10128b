/* The GEMMs behind dot_general: against a naive long-double triple loop on
 * edge sizes, and dot_general's dimension numbers, batching and element
 * types against the reference, within the data-dependent bound; bitwise
 * equal on 1 and 2 threads. */
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

/* f32 and bf16 matmuls of every (m, n, k) from edge sizes around the tile
 * and block widths: each element within gamma(k-1) * sum|a*b| + u*|exact|
 * of a long-double triple loop (exact for these products and sums up to
 * the long double's rounding, which the bound's slack covers), computed
 * once per shape and held against every ISA level at 1 and 2 threads. */
static void gemm_sizes(plumb_dtype t)
{
    const int64_t sz[] = {1, 7, 17, 63, 64, 65, 255, 257};
    const size_t ns = sizeof sz / sizeof sz[0];
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++)
            for (size_t c = 0; c < ns; c++) {
                int64_t m = sz[a], n = sz[b], k = sz[c];
                /* every triple with a small side; large ones on a diagonal subset */
                if (m * n * k > 65 * 65 * 65 && ((a + b + c) % 4 != 0 || m * n * k > 65 * 65 * 257)) continue;
                char src[1024], ta[64], tb[64], tc[64];
                int64_t da[2] = {m, k}, db[2] = {k, n}, dc[2] = {m, n};
                rt_ty(ta, sizeof ta, t, 2, da);
                rt_ty(tb, sizeof tb, t, 2, db);
                rt_ty(tc, sizeof tc, PLUMB_F32, 2, dc);
                snprintf(src, sizeof src,
                         "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                         "  %%r = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : (%s, %s) -> %s\n"
                         "  func.return %%r : %s\n}\n",
                         ta, tb, tc, ta, tb, tc, tc);
                ir_module *mod = rt_parse(src);
                plumb_tensor *in[2] = {rt_rand_tensor(t, 2, da, false), rt_rand_tensor(t, 2, db, false)};
                plumb_tensor *got[1], *first = NULL;
                /* the long-double products and sums, once per shape: every
                 * ISA level and thread count is judged against the same */
                long double *exs = malloc((size_t)(m * n) * sizeof *exs), *sums = malloc((size_t)(m * n) * sizeof *sums);
                long double *av = malloc((size_t)(m * k) * sizeof *av), *bv = malloc((size_t)(k * n) * sizeof *bv);
                assert_non_null(exs);
                assert_non_null(sums);
                assert_non_null(av);
                assert_non_null(bv);
                for (int64_t i = 0; i < m * k; i++)
                    av[i] = plumb_load_f64(t, in[0]->data, (size_t)i);
                for (int64_t i = 0; i < k * n; i++)
                    bv[i] = plumb_load_f64(t, in[1]->data, (size_t)i);
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < n; j++) {
                        long double ex = 0, s = 0;
                        for (int64_t p = 0; p < k; p++) {
                            long double x = av[i * k + p], y = bv[p * n + j];
                            ex += x * y;
                            s += fabsl(x * y);
                        }
                        exs[i * n + j] = ex;
                        sums[i * n + j] = s;
                    }
                for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                    for (uint32_t th = 1; th <= 2; th++) {
                        rt_exec_on(mod, (plumb_isa)isa, th, in, 2, got, 1);
                        const float *g = got[0]->data;
                        double u = 0x1p-24, kk = (double)(k - 1), gam = kk * u / (1 - kk * u);
                        for (int64_t i = 0; i < m; i++)
                            for (int64_t j = 0; j < n; j++) {
                                long double ex = exs[i * n + j], s = sums[i * n + j];
                                double bound = gam * (double)s * 1.0001 + u * fabs((double)ex) + 1e-300;
                                double err = fabs((double)((long double)g[i * n + j] - ex));
                                if (err > bound)
                                    fprintf(stderr, "%s m %lld n %lld k %lld isa %d th %u (%lld,%lld): err %g bound %g\n",
                                            plumb_dtype_name(t), (long long)m, (long long)n, (long long)k, isa, th,
                                            (long long)i, (long long)j, err, bound);
                                assert_true(err <= bound);
                            }
                        if (th == 1) {
                            first = got[0];
                        } else {
                            assert_true(plumb_tensor_equal(first, got[0]));
                            plumb_tensor_free(first);
                            plumb_tensor_free(got[0]);
                        }
                    }
                free(exs);
                free(sums);
                free(av);
                free(bv);
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
                ir_module_free(mod);
                /* fresh runtimes for the next shape: a runtime explains each
                 * new program against every one it holds, so a runtime kept
                 * over all the shapes spent most of this test's time there */
                rt_free_all();
            }
}

/* f32 GEMM on edge sizes. */
static void test_gemm_f32_sizes(void **state)
{
    (void)state;
    gemm_sizes(PLUMB_F32);
}

/* bf16 GEMM (vdpbf16ps where the CPU has it) on edge sizes. */
static void test_gemm_bf16_sizes(void **state)
{
    (void)state;
    gemm_sizes(PLUMB_BF16);
}

static void dot_case(const char *lt, const char *rt, const char *ot, const char *dims, plumb_dtype ldt,
                     const int64_t *ld, uint32_t lr, plumb_dtype rdt, const int64_t *rd, uint32_t rr, uint64_t k)
{
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%r = stablehlo.dot_general %%a, %%b, %s : (%s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             lt, rt, ot, dims, lt, rt, ot, ot);
    plumb_tensor *in[2] = {rt_rand_tensor(ldt, lr, ld, false), rt_rand_tensor(rdt, rr, rd, false)};
    if (plumb_dtype_is_float(ldt))
        rt_check_bound(src, in, 2, k, false);
    else
        rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Batching and contracting dimensions in arbitrary positions, several
 * contracting dims, every float type, mixed operands: within the bound
 * against the reference. */
static void test_dot_general_dims(void **state)
{
    (void)state;
    int64_t l1[4] = {3, 5, 2, 7}, r1[4] = {7, 3, 4, 2};
    const char *d1 = "batching_dims = [0] x [1], contracting_dims = [3, 2] x [0, 3]";
    dot_case("tensor<3x5x2x7xf32>", "tensor<7x3x4x2xf32>", "tensor<3x5x4xf32>", d1, PLUMB_F32, l1, 4, PLUMB_F32, r1, 4, 14);
    dot_case("tensor<3x5x2x7xf64>", "tensor<7x3x4x2xf64>", "tensor<3x5x4xf64>", d1, PLUMB_F64, l1, 4, PLUMB_F64, r1, 4, 14);
    dot_case("tensor<3x5x2x7xf16>", "tensor<7x3x4x2xf16>", "tensor<3x5x4xf16>", d1, PLUMB_F16, l1, 4, PLUMB_F16, r1, 4, 14);
    dot_case("tensor<3x5x2x7xbf16>", "tensor<7x3x4x2xbf16>", "tensor<3x5x4xbf16>", d1, PLUMB_BF16, l1, 4, PLUMB_BF16, r1, 4, 14);
    int64_t l2[3] = {4, 33, 70}, r2[3] = {4, 70, 40};
    const char *d2 = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
    dot_case("tensor<4x33x70xbf16>", "tensor<4x70x40xbf16>", "tensor<4x33x40xf32>", d2, PLUMB_BF16, l2, 3, PLUMB_BF16, r2, 3, 70);
    dot_case("tensor<4x33x70xf32>", "tensor<4x70x40xf32>", "tensor<4x33x40xf32>", d2, PLUMB_F32, l2, 3, PLUMB_F32, r2, 3, 70);
    int64_t l3[2] = {70, 33}, r3[2] = {40, 70};
    dot_case("tensor<70x33xf32>", "tensor<40x70xf32>", "tensor<33x40xf32>", "contracting_dims = [0] x [1]", PLUMB_F32, l3,
             2, PLUMB_F32, r3, 2, 70);
    int64_t v[1] = {1000};
    dot_case("tensor<1000xf32>", "tensor<1000xf32>", "tensor<f32>", "contracting_dims = [0] x [0]", PLUMB_F32, v, 1,
             PLUMB_F32, v, 1, 1000);
    int64_t z1[2] = {3, 0}, z2[2] = {0, 4};
    dot_case("tensor<3x0xf32>", "tensor<0x4xf32>", "tensor<3x4xf32>", "contracting_dims = [1] x [0]", PLUMB_F32, z1, 2,
             PLUMB_F32, z2, 2, 0);
    int64_t i1[2] = {6, 9}, i2[2] = {9, 5};
    dot_case("tensor<6x9xi32>", "tensor<9x5xi32>", "tensor<6x5xi32>", "contracting_dims = [1] x [0]", PLUMB_I32, i1, 2,
             PLUMB_I32, i2, 2, 9);
    dot_case("tensor<6x9xi8>", "tensor<9x5xi8>", "tensor<6x5xi8>", "contracting_dims = [1] x [0]", PLUMB_I8, i1, 2,
             PLUMB_I8, i2, 2, 9);
    dot_case("tensor<6x9xi1>", "tensor<9x5xi1>", "tensor<6x5xi1>", "contracting_dims = [1] x [0]", PLUMB_I1, i1, 2,
             PLUMB_I1, i2, 2, 9);
}

/* stablehlo.dot (matrix-vector) and special values: NaN, inf - inf. */
static void test_dot_specials(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {\n"
                      "  %r = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>\n"
                      "  func.return %r : tensor<4xf32>\n}\n";
    int64_t da[2] = {4, 8}, db[1] = {8};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, da, false), rt_rand_tensor(PLUMB_F32, 1, db, false)};
    plumb_store_bits(PLUMB_F32, in[0]->data, 3, 0x7FC00001);
    plumb_store_bits(PLUMB_F32, in[0]->data, 8, plumb_f32_bits(INFINITY));
    plumb_store_bits(PLUMB_F32, in[0]->data, 9, plumb_f32_bits(-INFINITY));
    plumb_store_bits(PLUMB_F32, in[1]->data, 1, plumb_f32_bits(1.0f));
    plumb_store_bits(PLUMB_F32, in[0]->data, 16, plumb_f32_bits(INFINITY));
    rt_check_bound(src, in, 2, 8, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* A sum whose every product is -0 is -0 (IEEE: -0 + -0 = -0), so GEMM
 * accumulators must start at -0, not +0, and bf16's padding of an odd k must
 * add -0: the reference's results (exact sums) are the expected values. */
static void test_dot_negative_zero_sums(void **state)
{
    (void)state;
    static const char *types[] = {"f32", "f64", "bf16", "f16"};
    static const plumb_dtype dts[] = {PLUMB_F32, PLUMB_F64, PLUMB_BF16, PLUMB_F16};
    static const int64_t ks[] = {1, 3, 17};
    for (size_t t = 0; t < 4; t++)
        for (size_t kk = 0; kk < 3; kk++) {
            int64_t k = ks[kk];
            char src[1024];
            snprintf(src, sizeof src,
                     "func.func @main(%%a: tensor<5x%lldx%s>, %%b: tensor<%lldx7x%s>) -> tensor<5x7x%s> {\n"
                     "  %%r = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : "
                     "(tensor<5x%lldx%s>, tensor<%lldx7x%s>) -> tensor<5x7x%s>\n"
                     "  func.return %%r : tensor<5x7x%s>\n}\n",
                     (long long)k, types[t], (long long)k, types[t], types[t], (long long)k, types[t],
                     (long long)k, types[t], types[t], types[t]);
            int64_t da[2] = {5, k}, db[2] = {k, 7};
            plumb_tensor *in[2] = {rt_rand_tensor(dts[t], 2, da, false), rt_rand_tensor(dts[t], 2, db, false)};
            uint64_t one = dts[t] == PLUMB_F32 ? plumb_f32_bits(1.0f)
                           : dts[t] == PLUMB_F64 ? plumb_f64_bits(1.0)
                           : dts[t] == PLUMB_BF16 ? 0x3F80u : 0x3C00u;
            uint64_t nzero = dts[t] == PLUMB_F32 ? 0x80000000u : dts[t] == PLUMB_F64 ? 0x8000000000000000ull : 0x8000u;
            /* a = -0 everywhere, b = 1 (or +0) everywhere: every product is -0 */
            for (int64_t i = 0; i < 5 * k; i++)
                plumb_store_bits(dts[t], in[0]->data, (size_t)i, nzero);
            for (int64_t i = 0; i < 7 * k; i++)
                plumb_store_bits(dts[t], in[1]->data, (size_t)i, i % 2 ? one : 0);
            rt_check_exact(src, in, 2);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
}

/* bf16 results: with one term per result the product is exact in f32, so
 * the runtime's rounding of its f32 accumulator to bf16 must give the
 * reference's correctly rounded result bit for bit: ties to even (normal
 * and subnormal), overflow to infinity, negative values, NaN, in the vector
 * body and the tail of the rounding loop. */
static void test_dot_bf16_result_rounding(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<2x1xbf16>, %b: tensor<1x67xbf16>) -> tensor<2x67xbf16> {\n"
                      "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x1xbf16>, tensor<1x67xbf16>) -> tensor<2x67xbf16>\n"
                      "  func.return %r : tensor<2x67xbf16>\n}\n";
    int64_t da[2] = {2, 1}, db[2] = {1, 67};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_BF16, 2, da, false), rt_rand_tensor(PLUMB_BF16, 2, db, false)};
    plumb_store_bits(PLUMB_BF16, in[0]->data, 0, 0x3F81);   /* 1 + 2^-7 */
    plumb_store_bits(PLUMB_BF16, in[0]->data, 1, 0x3FC0);   /* 1.5 */
    for (int j = 0; j < 67; j++)
        plumb_store_bits(PLUMB_BF16, in[1]->data, (size_t)j, (uint64_t)(0x3F80 + 2 * j));   /* j = 32: a tie */
    static const uint16_t special[] = {0x7FC1, 0x7F80, 0x7F7F, 0xBF83, 0x0080, 0x0001, 0x0003};
    for (int j = 0; j < 7; j++)
        plumb_store_bits(PLUMB_BF16, in[1]->data, (size_t)(60 + j), special[j]);
    rt_check_exact_cls(src, in, 2, true);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
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
        cmocka_unit_test(test_gemm_f32_sizes),
        cmocka_unit_test(test_gemm_bf16_sizes),
        cmocka_unit_test(test_dot_general_dims),
        cmocka_unit_test(test_dot_specials),
        cmocka_unit_test(test_dot_negative_zero_sums),
        cmocka_unit_test(test_dot_bf16_result_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
