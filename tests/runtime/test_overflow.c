/* Sums and dots whose partial sums overflow: the runtime returns the exact
 * result rounded once (what the reference returns), not the NaN of lanes
 * overflowing with opposite signs (k_reduce.c f64_rescaled_sum, k_dot.c
 * rescued_dot; docs/runtime-reduce.md and docs/runtime-kernels.md,
 * "Overflow"). Expected values are derived by hand in the comments; every
 * ISA level, 1 and 2 threads. */
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
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "runtime/rt_test.h"

static uint64_t fbits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    default: return plumb_f64_to_bf16(v);
    }
}

/* Runs src at every ISA level on 1 and 2 threads and compares output 0 with
 * want bit for bit (NaNs of any payload equal). */
static void run_expect(const char *src, plumb_tensor *const *in, uint32_t n, const plumb_tensor *want)
{
    ir_module *m = rt_parse(src);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *got[RT_MAX_OUT];
            rt_exec_on(m, (plumb_isa)isa, th, in, n, got, 1);
            bool eq = rt_equal(want, got[0], true);
            if (!eq) {
                fprintf(stderr, "isa %d threads %u\n", isa, th);
                rt_report_diff(want, got[0], "want vs runtime");
            }
            assert_true(eq);
            plumb_tensor_free(got[0]);
        }
    /* the reference agrees with the hand-derived values too */
    plumb_tensor *ref[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, in, n, ref), 1);
    if (!rt_equal(want, ref[0], true)) rt_report_diff(want, ref[0], "want vs reference");
    assert_true(rt_equal(want, ref[0], true));
    plumb_tensor_free(ref[0]);
    ir_module_free(m);
}

static plumb_tensor *tensor2(plumb_dtype t, int64_t r, int64_t c, const double *v)
{
    int64_t dims[2] = {r, c};
    plumb_tensor *x = plumb_tensor_new(t, 2, dims, 0, NULL);
    assert_non_null(x);
    for (int64_t i = 0; i < r * c; i++) plumb_store_bits(t, x->data, (size_t)i, fbits(t, v[i]));
    return x;
}

/* Rows of 96 f64 terms; term i goes to lane i % 32 (RT_SUM_LANES), three per lane.
 * row 0: +max in lanes 0-15, -max in lanes 16-31: the lanes hold +inf and -inf (NaN when
 *        folded); exact sum 48·max - 48·max = 0, so +0.
 * row 1: lanes 0-15 +max ×3; lanes 16-31 -max, -max, +max (-inf after two terms): the fold
 *        meets +inf and -inf; exact 64·max - 32·max = 32·max, beyond max: +inf.
 * row 2: row 0 with the second +max of lane 0 replaced by 1.5: exact -max + 1.5, which
 *        rounds to -max (1.5 is far below half an ulp of max, 2^970).
 * row 3: +inf as term 0, -max in lanes 16-31, +0 elsewhere: the exact sum is +inf (an
 *        infinity wins over finite terms), though lanes 16-31 overflow to -inf.
 * The same sums over the columns of the transpose (96 rows, 4 columns) take the column
 * path, which puts row r in lane r % 32 too. */
static void fill_rows(double *v, bool transpose)
{
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 96; i++) {
            int lane = i % 32, j = i / 32;
            double x;
            switch (r) {
            case 0: x = lane < 16 ? DBL_MAX : -DBL_MAX; break;
            case 1: x = lane < 16 ? DBL_MAX : j < 2 ? -DBL_MAX : DBL_MAX; break;
            case 2: x = i == 32 ? 1.5 : lane < 16 ? DBL_MAX : -DBL_MAX; break;
            default: x = i == 0 ? INFINITY : lane < 16 ? 0.0 : -DBL_MAX; break;
            }
            v[transpose ? i * 4 + r : r * 96 + i] = x;
        }
}

static const char *SUM_ROWS =
    "func.func @main(%x: tensor<4x96xf64>, %c: tensor<f64>) -> tensor<4xf64> {\n"
    "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : "
    "(tensor<4x96xf64>, tensor<f64>) -> tensor<4xf64>\n"
    "  func.return %r : tensor<4xf64>\n}\n";
static const char *SUM_COLS =
    "func.func @main(%x: tensor<96x4xf64>, %c: tensor<f64>) -> tensor<4xf64> {\n"
    "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : "
    "(tensor<96x4xf64>, tensor<f64>) -> tensor<4xf64>\n"
    "  func.return %r : tensor<4xf64>\n}\n";

/* f64 row and column sums with overflowing lanes give the exact result rounded: +0, +inf, -max, +inf. */
static void test_f64_sums_overflowing_lanes(void **state)
{
    (void)state;
    double v[384];
    const double want_v[4] = {0.0, INFINITY, -DBL_MAX, INFINITY};
    int64_t four = 4;
    plumb_tensor *want = plumb_tensor_new(PLUMB_F64, 1, &four, 0, NULL);
    for (int i = 0; i < 4; i++) plumb_store_bits(PLUMB_F64, want->data, (size_t)i, plumb_f64_bits(want_v[i]));
    plumb_tensor *c = rt_scalar_bits(PLUMB_F64, 0);
    for (int tr = 0; tr < 2; tr++) {
        fill_rows(v, tr);
        plumb_tensor *x = tr ? tensor2(PLUMB_F64, 96, 4, v) : tensor2(PLUMB_F64, 4, 96, v);
        plumb_tensor *in[2] = {x, c};
        run_expect(tr ? SUM_COLS : SUM_ROWS, in, 2, want);
        plumb_tensor_free(x);
    }
    plumb_tensor_free(c);
    plumb_tensor_free(want);
}

/* One long f64 row (9000 terms, blocks over threads): +max in lanes 0-15, -max in 16-31.
 * 9000 = 281·32 + 8, so 281·16 + 8 = 4504 terms are +max and 4496 are -max: the exact sum
 * 8·max overflows: +inf, where the blocks' lanes meet as NaN. */
static void test_f64_long_row(void **state)
{
    (void)state;
    enum { N = 9000 };
    double *v = malloc(sizeof(double) * N);
    assert_non_null(v);
    for (int i = 0; i < N; i++) v[i] = i % 32 < 16 ? DBL_MAX : -DBL_MAX;
    int64_t n = N;
    plumb_tensor *x = plumb_tensor_new(PLUMB_F64, 1, &n, 0, NULL);
    assert_non_null(x);
    memcpy(x->data, v, sizeof(double) * N);
    plumb_tensor *c = rt_scalar_bits(PLUMB_F64, 0);
    plumb_tensor *want = rt_scalar_bits(PLUMB_F64, plumb_f64_bits(INFINITY));
    const char *src =
        "func.func @main(%x: tensor<9000xf64>, %c: tensor<f64>) -> tensor<f64> {\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : "
        "(tensor<9000xf64>, tensor<f64>) -> tensor<f64>\n"
        "  func.return %r : tensor<f64>\n}\n";
    plumb_tensor *in[2] = {x, c};
    run_expect(src, in, 2, want);
    plumb_tensor_free(x);
    plumb_tensor_free(c);
    plumb_tensor_free(want);
    free(v);
}

/* lhs 2x3 · rhs 3x2 with products beyond the type's range, s = 2^100 for f32/bf16
 * (products ±2^200 > 2^128), 2^600 for f64 (±2^1200 > 2^1024):
 *   lhs = [[s, s, q], [s, s, s]], rhs = [[s, s], [-s, s], [q, -s]]
 *   out[0][0] = s² - s² + q² = q²  (f32/bf16: q = 1 -> 1; f64: q = 2^300 -> 2^600)
 *   out[0][1] = s² + s² - q·s      = 2s² - q·s: beyond the range -> +inf
 *   out[1][0] = s² - s² + s·q      = s·q (f32/bf16: 2^100; f64: 2^900)
 *   out[1][1] = s² + s² - s²       = s² -> +inf
 * The GEMM's accumulators overflow (+inf + -inf products, or blocks that meet as NaN). */
static void dot_case(plumb_dtype t)
{
    double s = t == PLUMB_F64 ? 0x1p600 : 0x1p100, q = t == PLUMB_F64 ? 0x1p300 : 1.0;
    const double l[6] = {s, s, q, s, s, s}, r[6] = {s, s, -s, s, q, -s};
    plumb_tensor *a = tensor2(t, 2, 3, l), *b = tensor2(t, 3, 2, r);
    const double w[4] = {q * q, INFINITY, s * q, INFINITY};
    plumb_tensor *want = tensor2(t, 2, 2, w);
    const int64_t d23[2] = {2, 3}, d32[2] = {3, 2}, d22[2] = {2, 2};
    char tl[64], tr[64], to[64], src[1024];
    rt_ty(tl, sizeof tl, t, 2, d23);
    rt_ty(tr, sizeof tr, t, 2, d32);
    rt_ty(to, sizeof to, t, 2, d22);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%y: %s) -> %s {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : "
             "(%s, %s) -> %s\n  func.return %%r : %s\n}\n",
             tl, tr, to, tl, tr, to, to);
    plumb_tensor *in[2] = {a, b};
    run_expect(src, in, 2, want);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(want);
}

/* f32, bf16 and f64 dots whose products overflow return q², +inf, s·q, +inf (derivation above). */
static void test_dots_overflowing_products(void **state)
{
    (void)state;
    dot_case(PLUMB_F32);
    dot_case(PLUMB_BF16);
    dot_case(PLUMB_F64);
}

/* Infinite operands in a recomputed f64 dot: inf·2^-1074 + 1·0 is +inf (the tiny operand
 * must not be scaled to 0, which would make inf·0 = NaN); inf·0 + 1·1 is NaN. */
static void test_f64_dot_infinite_operands(void **state)
{
    (void)state;
    const double l[4] = {INFINITY, 1, INFINITY, 1}, r[4] = {0x1p-1074, 0, 0, 1};
    plumb_tensor *a = tensor2(PLUMB_F64, 2, 2, l);   /* rows: [inf, 1] twice */
    plumb_tensor *b = tensor2(PLUMB_F64, 2, 2, r);   /* columns: [2^-1074, 0] and [0, 1] */
    const double w[4] = {INFINITY, NAN, INFINITY, NAN};
    plumb_tensor *want = tensor2(PLUMB_F64, 2, 2, w);
    const char *src =
        "func.func @main(%x: tensor<2x2xf64>, %y: tensor<2x2xf64>) -> tensor<2x2xf64> {\n"
        "  %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : "
        "(tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>\n  func.return %r : tensor<2x2xf64>\n}\n";
    plumb_tensor *in[2] = {a, b};
    run_expect(src, in, 2, want);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(want);
}

/* Random f64 rows of magnitudes up to 2^1023 (200 terms of v·2^1016, |v| < 128): many
 * exact sums overflow, many do not. Whatever the lanes met, each result is NaN, +inf or
 * -inf exactly when the reference's is, and a finite result is within the data bound
 * γ(200)·Σ|x| + u·|want| of it (Σ|x| summed here scaled by 2^-64 so it stays finite). */
static void test_f64_random_near_overflow(void **state)
{
    (void)state;
    enum { R = 64, L = 200 };
    const int64_t dims[2] = {R, L};
    plumb_tensor *x = rt_rand_tensor(PLUMB_F64, 2, dims, false);
    double *v = (double *)x->data;
    for (int i = 0; i < R * L; i++) v[i] *= 0x1p1016;
    plumb_tensor *c = rt_scalar_bits(PLUMB_F64, 0);
    const char *src =
        "func.func @main(%x: tensor<64x200xf64>, %c: tensor<f64>) -> tensor<64xf64> {\n"
        "  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : "
        "(tensor<64x200xf64>, tensor<f64>) -> tensor<64xf64>\n"
        "  func.return %r : tensor<64xf64>\n}\n";
    ir_module *m = rt_parse(src);
    plumb_tensor *in[2] = {x, c}, *want[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, in, 2, want), 1);
    const double u = 0x1p-53, gam = 200 * u / (1 - 200 * u);
    unsigned n_inf = 0, n_fin = 0;
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        plumb_tensor *got[RT_MAX_OUT];
        rt_exec_on(m, (plumb_isa)isa, 2, in, 2, got, 1);
        for (int r = 0; r < R; r++) {
            double g = ((const double *)got[0]->data)[r], w = ((const double *)want[0]->data)[r];
            if (!isfinite(w) || !isfinite(g)) {
                if (!(isinf(w) && g == w)) fprintf(stderr, "row %d: got %g, want %g\n", r, g, w);
                assert_true(isinf(w) && g == w);
                n_inf++;
                continue;
            }
            double a = 0;
            for (int i = 0; i < L; i++) a += fabs(v[r * L + i]) * 0x1p-64;
            assert_true(fabs(g - w) * 0x1p-64 <= gam * a + u * fabs(w) * 0x1p-64);
            n_fin++;
        }
        plumb_tensor_free(got[0]);
    }
    /* both kinds occurred, so neither half of the claim is vacuous */
    assert_true(n_inf > 0 && n_fin > 0);
    plumb_tensor_free(want[0]);
    ir_module_free(m);
    plumb_tensor_free(x);
    plumb_tensor_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f64_sums_overflowing_lanes),
        cmocka_unit_test(test_f64_long_row),
        cmocka_unit_test(test_dots_overflowing_products),
        cmocka_unit_test(test_f64_dot_infinite_operands),
        cmocka_unit_test(test_f64_random_near_overflow),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
