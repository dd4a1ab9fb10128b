/* Reference stablehlo.fft (ref/fft.c) on transforms derived by hand: the
 * DFT of a delta, a constant, a single complex exponential, a real ramp
 * (RFFT) and its inverse, a two-dimensional delta, and the non-finite
 * block rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/complex.h"
#include "plumb/ir.h"
#include "plumb/ref.h"

#include "ref/ref_test.h"

static void cval(const plumb_ref_result *r, uint32_t k, size_t i, double *re, double *im)
{
    const plumb_tensor *t = r->outputs[k];
    assert_true(i < plumb_tensor_numel(t));
    plumb_complex_load(t->dtype, t->data, i, re, im);
}

/* Element i of output k is exactly (re, im). */
static void expect_c(const plumb_ref_result *r, uint32_t k, size_t i, double re, double im)
{
    double gr, gi;
    cval(r, k, i, &gr, &gi);
    if (gr != re || gi != im)
        fprintf(stderr, "output %u element %zu: got (%a, %a), expected (%a, %a)\n", k, i, gr, gi, re, im);
    assert_true(gr == re && gi == im);
}

/* Element i of output k is (re, im) within tol in each component: for
 * components that are zero in exact arithmetic but sums of irrational
 * twiddles in the reference's double-double evaluation. */
static void expect_c_near(const plumb_ref_result *r, uint32_t k, size_t i, double re, double im, double tol)
{
    double gr, gi;
    cval(r, k, i, &gr, &gi);
    if (!(fabs(gr - re) <= tol && fabs(gi - im) <= tol))
        fprintf(stderr, "output %u element %zu: got (%a, %a), expected (%a, %a) within %a\n", k, i, gr, gi, re, im, tol);
    assert_true(fabs(gr - re) <= tol && fabs(gi - im) <= tol);
}

/* fft of the delta [1, 0, 0, 0, 0] is all ones: every term but j = 0 is a
 * twiddle times zero. Odd length 5 (no quarter-turn twiddles). */
static void test_delta(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<5xcomplex<f32>> {\n"
        "  %a = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<5xcomplex<f32>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [5] : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>\n"
        "  return %x : tensor<5xcomplex<f32>>\n}\n");
    for (size_t i = 0; i < 5; i++)
        expect_c(&r, 0, i, 1.0, 0.0);
    plumb_ref_result_free(&r);
}

/* fft of the constant c = (2, -1) over n = 6 is [6c, 0, 0, 0, 0, 0]: the
 * sum of the m-th powers of the 6th roots of unity is 0 for m != 0; the
 * reference's double-double sum leaves at most about n 2^-104 |c| there. */
static void test_constant(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<6xcomplex<f64>> {\n"
        "  %a = stablehlo.constant dense<(2.0, -1.0)> : tensor<6xcomplex<f64>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [6] : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>\n"
        "  return %x : tensor<6xcomplex<f64>>\n}\n");
    expect_c(&r, 0, 0, 12.0, -6.0);
    for (size_t i = 1; i < 6; i++)
        expect_c_near(&r, 0, i, 0.0, 0.0, 0x1p-95);
    plumb_ref_result_free(&r);
}

/* x_j = exp(2 pi i j / 4) = [1, i, -1, -i] has all its energy at
 * frequency 1: fft gives [0, 4, 0, 0] exactly (quarter-turn twiddles are
 * exact); ifft of [0, 4, 0, 0] gives x back; the conjugate exponential
 * lands at frequency 3. */
static void test_exponential(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>) {\n"
        "  %a = stablehlo.constant dense<[(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]> : tensor<4xcomplex<f32>>\n"
        "  %b = stablehlo.constant dense<[(0.0, 0.0), (4.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<4xcomplex<f32>>\n"
        "  %c = stablehlo.constant dense<[(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)]> : tensor<4xcomplex<f64>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
        "  %y = stablehlo.fft %b, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
        "  %z = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>\n"
        "  return %x, %y, %z : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>\n}\n");
    static const double want_x[4][2] = {{0, 0}, {4, 0}, {0, 0}, {0, 0}};
    static const double want_y[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    static const double want_z[4][2] = {{0, 0}, {0, 0}, {0, 0}, {4, 0}};
    for (size_t i = 0; i < 4; i++) {
        expect_c(&r, 0, i, want_x[i][0], want_x[i][1]);
        expect_c(&r, 1, i, want_y[i][0], want_y[i][1]);
        expect_c(&r, 2, i, want_z[i][0], want_z[i][1]);
    }
    plumb_ref_result_free(&r);
}

/* rfft of [1, 2, 3] (n = 3, w = exp(-2 pi i / 3) = (-1/2, -sqrt(3)/2)):
 * X0 = 6, X1 = 1 + 2w + 3w^2 = (-3/2, sqrt(3)/2), each component rounded
 * once (sqrt(3)/2 to the f64 nearest it); rfft of [1, 2, 3, 4] is
 * [(10, 0), (-2, 2), (-2, 0)]. */
static void test_rfft(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xcomplex<f64>>, tensor<3xcomplex<f32>>) {\n"
        "  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>\n"
        "  %b = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
        "  %x = stablehlo.fft %a, type = RFFT, length = [3] : (tensor<3xf64>) -> tensor<2xcomplex<f64>>\n"
        "  %y = stablehlo.fft %b, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>\n"
        "  return %x, %y : tensor<2xcomplex<f64>>, tensor<3xcomplex<f32>>\n}\n");
    expect_c(&r, 0, 0, 6.0, 0.0);
    expect_c(&r, 0, 1, -1.5, sqrt(3.0) / 2);
    expect_c(&r, 1, 0, 10.0, 0.0);
    expect_c(&r, 1, 1, -2.0, 2.0);
    expect_c(&r, 1, 2, -2.0, 0.0);
    plumb_ref_result_free(&r);
}

/* irfft of [(10, 7), (-2, 2), (-2, 5)] with fft_length 4 is [1, 2, 3, 4]
 * (the rfft above): the imaginary parts of X0 and X2 = X[n/2] do not
 * contribute. With the odd fft_length 5 there is no X[n/2]: the spectrum
 * [(15, 0), 0, 0] of the constant 3 gives five 3s. */
static void test_irfft(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<4xf64>, tensor<5xf32>) {\n"
        "  %a = stablehlo.constant dense<[(10.0, 7.0), (-2.0, 2.0), (-2.0, 5.0)]> : tensor<3xcomplex<f64>>\n"
        "  %b = stablehlo.constant dense<[(15.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<3xcomplex<f32>>\n"
        "  %x = stablehlo.fft %a, type = IRFFT, length = [4] : (tensor<3xcomplex<f64>>) -> tensor<4xf64>\n"
        "  %y = stablehlo.fft %b, type = IRFFT, length = [5] : (tensor<3xcomplex<f32>>) -> tensor<5xf32>\n"
        "  return %x, %y : tensor<4xf64>, tensor<5xf32>\n}\n");
    for (size_t i = 0; i < 4; i++)
        expect_f64(&r, 0, i, (double)(i + 1));
    for (size_t i = 0; i < 5; i++)
        expect_f32(&r, 1, i, 3.0f);
    plumb_ref_result_free(&r);
}

/* Two dimensions: the delta at (1, 0) of a 2x4 block transforms to
 * X[m1][m2] = exp(-2 pi i m1 / 2) = (-1)^m1; with a leading batch of 2 the
 * second block (a delta at (0, 1)) gives exp(-2 pi i m2 / 4) = (-i)^m2. */
static void test_two_dims_batch(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x2x4xcomplex<f64>> {\n"
        "  %a = stablehlo.constant dense<[[[(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)],\n"
        "                                  [(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]],\n"
        "                                 [[(0.0, 0.0), (1.0, 0.0), (0.0, 0.0), (0.0, 0.0)],\n"
        "                                  [(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]]]> : tensor<2x2x4xcomplex<f64>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [2, 4] : (tensor<2x2x4xcomplex<f64>>) -> tensor<2x2x4xcomplex<f64>>\n"
        "  return %x : tensor<2x2x4xcomplex<f64>>\n}\n");
    static const double pw[4][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
    for (size_t m1 = 0; m1 < 2; m1++)
        for (size_t m2 = 0; m2 < 4; m2++) {
            expect_c(&r, 0, m1 * 4 + m2, m1 ? -1.0 : 1.0, 0.0);
            expect_c(&r, 0, 8 + m1 * 4 + m2, pw[m2][0], pw[m2][1]);
        }
    plumb_ref_result_free(&r);
}

/* A NaN or infinite element makes every component of its block NaN; the
 * other block of the batch is transformed as usual. */
static void test_nonfinite_block(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> tensor<2x3xcomplex<f32>> {\n"
        "  %a = stablehlo.constant dense<[[(1.0, 0.0), (0x7F800000, 0.0), (0.0, 0.0)],\n"
        "                                 [(1.0, 0.0), (0.0, 0.0), (0.0, 0.0)]]> : tensor<2x3xcomplex<f32>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [3] : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>\n"
        "  return %x : tensor<2x3xcomplex<f32>>\n}\n");
    for (size_t i = 0; i < 3; i++) {
        double re, im;
        cval(&r, 0, i, &re, &im);
        assert_true(isnan(re) && isnan(im));
        expect_c(&r, 0, 3 + i, 1.0, 0.0);
    }
    plumb_ref_result_free(&r);
}

/* An empty batch and an empty transform run and write nothing. */
static void test_empty(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<0x4xcomplex<f32>>, tensor<3x0xf32>) {\n"
        "  %a = stablehlo.constant dense<> : tensor<0x4xcomplex<f32>>\n"
        "  %b = stablehlo.constant dense<> : tensor<3x0xcomplex<f32>>\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [4] : (tensor<0x4xcomplex<f32>>) -> tensor<0x4xcomplex<f32>>\n"
        "  %y = stablehlo.fft %b, type = IRFFT, length = [0] : (tensor<3x0xcomplex<f32>>) -> tensor<3x0xf32>\n"
        "  return %x, %y : tensor<0x4xcomplex<f32>>, tensor<3x0xf32>\n}\n");
    assert_int_equal(plumb_tensor_numel(r.outputs[0]), 0);
    assert_int_equal(plumb_tensor_numel(r.outputs[1]), 0);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta),           cmocka_unit_test(test_constant),
        cmocka_unit_test(test_exponential),     cmocka_unit_test(test_rfft),
        cmocka_unit_test(test_irfft),           cmocka_unit_test(test_two_dims_batch),
        cmocka_unit_test(test_nonfinite_block), cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
