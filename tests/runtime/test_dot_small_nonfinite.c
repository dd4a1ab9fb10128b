/* The small-product path's NaN/infinity report (runtime/k_gemm.c,
 * ukern_f32_avx512_direct and the edge tiles of small_rows): a batched
 * dot_general runs its overflow rescue only on batches whose product
 * reports a NaN or infinite result, so a missed report leaves a NaN where
 * the exact sum is finite. Three batches of [9x3]·[3x33] f32 (one full
 * 8 x 32 tile, an edge row and an edge column), one element per batch
 * built so that its lane overflows: A's row [s, s, 1] with B's column
 * [s, -s, s], s = 2^100, exact sum s² - s² + s = s, while the lane's
 * first fused multiply-add gives s² = 2^200, +inf in f32, which the
 * later terms keep. That element sits in a
 * full tile in batch 0 (the caller's probe), in the edge row in batch 1
 * and in the edge column in batch 2. Every other operand is a small
 * integer, so every other result is an exact sum: the expected values are
 * those sums in double (exact, rounded once to f32) and s for the built
 * elements, derived above. At every ISA level the CPU has, 1 and 2
 * threads, batch counts 1 (no batched path), 2 and 3. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_internal.h"

enum { M = 9, K = 3, N = 33 };

static void run_batches(int nb)
{
    char src[1024];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%dx%dx%dxf32>, %%y: tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32> {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
             "(tensor<%dx%dx%dxf32>, tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>\n"
             "  func.return %%r : tensor<%dx%dx%dxf32>\n}\n",
             nb, M, K, nb, K, N, nb, M, N, nb, M, K, nb, K, N, nb, M, N, nb, M, N);
    ir_module *m = parse_ok(src);
    plumb_diag d = {0};
    const int64_t dl[3] = {nb, M, K}, dr[3] = {nb, K, N};
    plumb_tensor *a = plumb_tensor_new(PLUMB_F32, 3, dl, 0, &d), *b = plumb_tensor_new(PLUMB_F32, 3, dr, 0, &d);
    assert_non_null(a);
    assert_non_null(b);
    float *A = a->data, *B = b->data;
    const float s = 0x1p100f;
    /* the built element of each batch: (row, column) */
    static const int at[3][2] = {{2, 5}, {8, 1}, {3, 32}};
    float *want = malloc((size_t)nb * M * N * sizeof *want);
    assert_non_null(want);
    for (int bt = 0; bt < nb; bt++) {
        float *Ab = A + bt * M * K, *Bb = B + bt * K * N;
        for (int i = 0; i < M * K; i++) Ab[i] = (float)((i * 7 + bt) % 5) - 2.0f;
        for (int i = 0; i < K * N; i++) Bb[i] = (float)((i * 3 + bt) % 7) - 3.0f;
        int r = at[bt][0], c = at[bt][1];
        Ab[r * K + 0] = s;
        Ab[r * K + 1] = s;
        Ab[r * K + 2] = 1;
        Bb[0 * N + c] = s;
        Bb[1 * N + c] = -s;
        Bb[2 * N + c] = s;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                /* exact in double: s² = 2^200 and the other products are
                 * small multiples of s or small integers */
                double acc = 0;
                for (int p = 0; p < K; p++) acc += (double)Ab[i * K + p] * (double)Bb[p * N + j];
                want[(bt * M + i) * N + j] = (float)acc;
            }
        assert_true(want[(bt * M + r) * N + c] == s);
    }
    plumb_tensor *in[2] = {a, b};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_cpu_best_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **out = run_program(m, 2, th, (plumb_isa)isa, in, 2, 1);
            const float *o = out[0]->data;
            for (int e = 0; e < nb * M * N; e++) {
                uint32_t g, w;
                memcpy(&g, &o[e], 4);
                memcpy(&w, &want[e], 4);
                if (g != w)
                    fprintf(stderr, "batches %d isa %d threads %u element %d: 0x%08x, want 0x%08x\n", nb, isa, th, e,
                            g, w);
                assert_int_equal(g, w);
            }
            run_free_outs(out, 1);
        }
    free(want);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    ir_module_free(m);
}

/* An infinity from an overflowing lane in a full tile, an edge row and an edge
 * column, in the probe batch and later ones: rescued to the exact sum. */
static void test_small_product_reports_nonfinite(void **state)
{
    (void)state;
    for (int nb = 1; nb <= 3; nb++) run_batches(nb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_product_reports_nonfinite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
