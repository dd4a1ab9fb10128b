/* Batched dot_general results whose GEMM lanes overflow are recomputed in
 * every batch (runtime/k_dot.c scans each batch's results right after its
 * GEMM, skipping blocks without a NaN or infinity): four batches of
 * [2x3]·[3x2] f32, batches 1 and 3 built so that the products overflow
 * (s = 2^100: rows [s, s, 1] and [s, s, s], columns [s, -s, s] and
 * [s, 1, -s]), batches 0 and 2 small integers. Expected values by hand:
 * the overflow batches give [[s, +inf], [+inf, s]] (derived below), the
 * integer batches their exact sums; at every ISA level the CPU has, on 1
 * and 2 threads. */
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

static void test_overflow_in_later_batches(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4x2x3xf32>, %y: tensor<4x3x2xf32>) -> tensor<4x2x2xf32> {\n"
        "  %r = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
        "(tensor<4x2x3xf32>, tensor<4x3x2xf32>) -> tensor<4x2x2xf32>\n  func.return %r : tensor<4x2x2xf32>\n}\n";
    ir_module *m = parse_ok(src);
    plumb_diag d = {0};
    const int64_t dl[3] = {4, 2, 3}, dr[3] = {4, 3, 2};
    plumb_tensor *a = plumb_tensor_new(PLUMB_F32, 3, dl, 0, &d), *b = plumb_tensor_new(PLUMB_F32, 3, dr, 0, &d);
    assert_non_null(a);
    assert_non_null(b);
    float *A = a->data, *B = b->data;
    const float s = 0x1p100f;
    /* lhs [2][3] and rhs [3][2] of the overflow batches (row-major) */
    const float lo[6] = {s, s, 1, s, s, s}, ro[6] = {s, s, -s, 1, s, -s};
    float want[4][4];
    for (int bt = 0; bt < 4; bt++) {
        if (bt % 2 == 1) {
            memcpy(A + bt * 6, lo, sizeof lo);
            memcpy(B + bt * 6, ro, sizeof ro);
            /* columns (s, -s, s) and (s, 1, -s): r00 = s² - s² + s = s,
             * r01 = s² + s - s = s² (above f32's max: +inf), r10 = s² - s²
             * + s² = s² (+inf), r11 = s² + s - s² = s; the lanes meet
             * s² + -s² as inf - inf where the exact sum is finite */
            want[bt][0] = s;
            want[bt][1] = INFINITY;
            want[bt][2] = INFINITY;
            want[bt][3] = s;
            continue;
        }
        for (int i = 0; i < 6; i++) {
            A[bt * 6 + i] = (float)(i + 1 + bt);
            B[bt * 6 + i] = (float)(2 - i + bt);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double acc = 0;
                for (int k = 0; k < 3; k++)
                    acc += (double)A[bt * 6 + i * 3 + k] * (double)B[bt * 6 + k * 2 + j];
                want[bt][i * 2 + j] = (float)acc;   /* small integers: exact */
            }
    }
    plumb_tensor *in[2] = {a, b};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_cpu_best_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **out = run_program(m, 2, th, (plumb_isa)isa, in, 2, 1);
            const float *o = out[0]->data;
            for (int e = 0; e < 16; e++) {
                uint32_t g, w;
                memcpy(&g, &o[e], 4);
                memcpy(&w, &want[e / 4][e % 4], 4);
                if (g != w)
                    fprintf(stderr, "isa %d threads %u element %d: 0x%08x, want 0x%08x\n", isa, th, e, g, w);
                assert_int_equal(g, w);
            }
            run_free_outs(out, 1);
        }
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflow_in_later_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
