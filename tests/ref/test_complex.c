/* The reference's complex kernels (ref/complex.c) on values whose results
 * are derived by hand: exact products and quotients, cancellations a naive
 * formula loses, branch cuts, and constants the C compiler rounds from their
 * decimal expansions (M_E, M_PI, 0.44). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plumb/complex.h"
#include "ref_test.h"

static double re_at(const plumb_ref_result *r, uint32_t k, size_t i)
{
    double re, im;
    plumb_complex_load(r->outputs[k]->dtype, r->outputs[k]->data, i, &re, &im);
    return re;
}

static double im_at(const plumb_ref_result *r, uint32_t k, size_t i)
{
    double re, im;
    plumb_complex_load(r->outputs[k]->dtype, r->outputs[k]->data, i, &re, &im);
    return im;
}

/* Bitwise: -0 differs from +0. */
static void expect_c(const plumb_ref_result *r, uint32_t k, size_t i, double re, double im)
{
    double gr = re_at(r, k, i), gi = im_at(r, k, i);
    if (plumb_f64_bits(gr) != plumb_f64_bits(re) || plumb_f64_bits(gi) != plumb_f64_bits(im))
        fprintf(stderr, "output %u element %zu: got (%a, %a), expected (%a, %a)\n", k, i, gr, gi, re, im);
    assert_true(plumb_f64_bits(gr) == plumb_f64_bits(re) && plumb_f64_bits(gi) == plumb_f64_bits(im));
}

/* (1+2i)(3+4i) = -5+10i; (1+2i)/(3+4i) = (11 + 2i)/25 = 0.44 + 0.08i, each
 * component rounded once; with a = 1 + 2^-30, (a+i)(a+i) = (2^-29 + 2^-60)
 * + (2 + 2^-29)i exactly, where a rounded a*a would lose the 2^-60. */
static void test_mul_div(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xcomplex<f64>>, tensor<complex<f64>>, tensor<complex<f32>>, tensor<complex<f32>>) {\n"
        "  %a = stablehlo.constant dense<[(1.0,2.0), (0x3FF0000000400000,1.0)]> : tensor<2xcomplex<f64>>\n"
        "  %b = stablehlo.constant dense<[(3.0,4.0), (0x3FF0000000400000,1.0)]> : tensor<2xcomplex<f64>>\n"
        "  %m = stablehlo.multiply %a, %b : tensor<2xcomplex<f64>>\n"
        "  %x = stablehlo.constant dense<(1.0,2.0)> : tensor<complex<f64>>\n"
        "  %y = stablehlo.constant dense<(3.0,4.0)> : tensor<complex<f64>>\n"
        "  %d = stablehlo.divide %x, %y : tensor<complex<f64>>\n"
        "  %xf = stablehlo.constant dense<(1.0,2.0)> : tensor<complex<f32>>\n"
        "  %yf = stablehlo.constant dense<(3.0,4.0)> : tensor<complex<f32>>\n"
        "  %df = stablehlo.divide %xf, %yf : tensor<complex<f32>>\n"
        "  %mf = stablehlo.multiply %xf, %yf : tensor<complex<f32>>\n"
        "  return %m, %d, %df, %mf : tensor<2xcomplex<f64>>, tensor<complex<f64>>, tensor<complex<f32>>, tensor<complex<f32>>\n"
        "}\n");
    expect_c(&r, 0, 0, -5.0, 10.0);
    expect_c(&r, 0, 1, 0x1p-29 + 0x1p-60, 2.0 + 0x1p-29);
    expect_c(&r, 1, 0, 0.44, 0.08);
    expect_c(&r, 2, 0, (double)0.44f, (double)0.08f);
    expect_c(&r, 3, 0, -5.0, 10.0);
    plumb_ref_result_free(&r);
}

/* abs, sign, sqrt on its branch cut, exp, log, and the small arguments
 * where exp(z) - 1 and log(1 + z) computed naively would cancel:
 * expm1(i 2^-30) = (cos 2^-30 - 1) + i sin 2^-30 rounds to -2^-61 + 2^-30 i
 * (the next terms are below half an ULP); log1p(2^-40) = 2^-40 - 2^-81 +
 * 2^-122/3 - ... rounds to 2^-40 - 2^-81, which double holds exactly. */
static void test_unary(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<f64>, tensor<complex<f64>>, tensor<2xcomplex<f64>>, tensor<complex<f64>>,\n"
        "                      tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>) {\n"
        "  %z = stablehlo.constant dense<(3.0,4.0)> : tensor<complex<f64>>\n"
        "  %abs = stablehlo.abs %z : (tensor<complex<f64>>) -> tensor<f64>\n"
        "  %sign = stablehlo.sign %z : tensor<complex<f64>>\n"
        "  %n = stablehlo.constant dense<[(-4.0,0.0), (-4.0,-0.0)]> : tensor<2xcomplex<f64>>\n"
        "  %sqrt = stablehlo.sqrt %n : tensor<2xcomplex<f64>>\n"
        "  %one = stablehlo.constant dense<(1.0,0.0)> : tensor<complex<f64>>\n"
        "  %exp = stablehlo.exponential %one : tensor<complex<f64>>\n"
        "  %m1 = stablehlo.constant dense<(-1.0,0.0)> : tensor<complex<f64>>\n"
        "  %log = stablehlo.log %m1 : tensor<complex<f64>>\n"
        "  %t = stablehlo.constant dense<(0.0,0x3E10000000000000)> : tensor<complex<f64>>\n"
        "  %em1 = stablehlo.exponential_minus_one %t : tensor<complex<f64>>\n"
        "  %s = stablehlo.constant dense<(0x3D70000000000000,0.0)> : tensor<complex<f64>>\n"
        "  %l1p = stablehlo.log_plus_one %s : tensor<complex<f64>>\n"
        "  return %abs, %sign, %sqrt, %exp, %log, %em1, %l1p, %z : tensor<f64>, tensor<complex<f64>>, tensor<2xcomplex<f64>>,\n"
        "      tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>\n"
        "}\n");
    expect_f64(&r, 0, 0, 5.0);
    expect_c(&r, 1, 0, 0.6, 0.8);
    expect_c(&r, 2, 0, 0.0, 2.0);
    expect_c(&r, 2, 1, 0.0, -2.0);   /* the cut: sqrt(conj z) = conj(sqrt z) */
    expect_c(&r, 3, 0, M_E, 0.0);
    expect_c(&r, 4, 0, 0.0, M_PI);
    expect_c(&r, 5, 0, -0x1p-61, 0x1p-30);
    expect_c(&r, 6, 0, 0x1p-40 - 0x1p-81, 0.0);
    plumb_ref_result_free(&r);
}

/* sin, cos, tanh at points with exact or hand-known results: sin(0 + 0i),
 * cos(0 + 0i) = 1 - 0i, tanh(10^7 + i) = 1 + 0i (sin 2 > 0, and the
 * imaginary part 4 sin 2 e^-(2 10^7) underflows). */
static void test_trig(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f32>>) {\n"
        "  %z = stablehlo.constant dense<(0.0,0.0)> : tensor<complex<f64>>\n"
        "  %s = stablehlo.sine %z : tensor<complex<f64>>\n"
        "  %c = stablehlo.cosine %z : tensor<complex<f64>>\n"
        "  %b = stablehlo.constant dense<(1.0e7,1.0)> : tensor<complex<f32>>\n"
        "  %t = stablehlo.tanh %b : tensor<complex<f32>>\n"
        "  return %s, %c, %t : tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f32>>\n"
        "}\n");
    expect_c(&r, 0, 0, 0.0, 0.0);
    expect_c(&r, 1, 0, 1.0, -0.0);
    expect_c(&r, 2, 0, 1.0, 0.0);
    plumb_ref_result_free(&r);
}

/* CHLO on complex: square(1 + 2i) = -3 + 4i; asinh(2^-511) = 2^-511 -
 * 2^-1533/6 + ... rounds to 2^-511 (a formula that forms 1 + z at 128 bits
 * returns 0); asin(0.5) = pi/6 and atan(i/2) = i atanh(1/2) = i log(3)/2,
 * rounded by the compiler from their decimal expansions. */
static void test_chlo(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>) {\n"
        "  %z = stablehlo.constant dense<(1.0,2.0)> : tensor<complex<f64>>\n"
        "  %sq = chlo.square %z : tensor<complex<f64>> -> tensor<complex<f64>>\n"
        "  %t = stablehlo.constant dense<(0x2000000000000000,0.0)> : tensor<complex<f64>>\n"
        "  %as = chlo.asinh %t : tensor<complex<f64>> -> tensor<complex<f64>>\n"
        "  %h = stablehlo.constant dense<(0.5,0.0)> : tensor<complex<f64>>\n"
        "  %asin = chlo.asin %h : tensor<complex<f64>> -> tensor<complex<f64>>\n"
        "  %i = stablehlo.constant dense<(0.0,0.5)> : tensor<complex<f64>>\n"
        "  %at = chlo.atan %i : tensor<complex<f64>> -> tensor<complex<f64>>\n"
        "  return %sq, %as, %asin, %at : tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>\n"
        "}\n");
    expect_c(&r, 0, 0, -3.0, 4.0);
    expect_c(&r, 1, 0, 0x1p-511, 0.0);
    expect_c(&r, 2, 0, 0.52359877559829887307710723054658, 0.0);
    expect_c(&r, 3, 0, 0.0, 0.54930614433405484569762261846126);
    plumb_ref_result_free(&r);
}

/* complex, real, imag; compare EQ/NE (a NaN component is unequal);
 * convert complex<f64> -> complex<f32> rounds each part once (0.1 -> 0.1f),
 * f32 -> complex<f32> is (x, 0), complex -> f32 keeps the real part. */
static void test_parts_compare_convert(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xi1>,\n"
        "                      tensor<complex<f32>>, tensor<complex<f32>>, tensor<f32>, tensor<2xf32>) {\n"
        "  %re = stablehlo.constant dense<[1.0, -0.0]> : tensor<2xf32>\n"
        "  %im = stablehlo.constant dense<[2.0, 3.5]> : tensor<2xf32>\n"
        "  %c = stablehlo.complex %re, %im : tensor<2xcomplex<f32>>\n"
        "  %r = stablehlo.real %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>\n"
        "  %i = stablehlo.imag %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>\n"
        "  %n = stablehlo.constant dense<[(1.0,2.0), (nan,3.5)]> : tensor<2xcomplex<f32>>\n"
        "  %n2 = stablehlo.constant dense<[(1.0,2.0), (nan,3.5)]> : tensor<2xcomplex<f32>>\n"
        "  %eq = stablehlo.compare EQ, %n, %n2 : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xi1>\n"
        "  %ne = stablehlo.compare NE, %n, %n2 : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xi1>\n"
        "  %w = stablehlo.constant dense<(0.1,0.2)> : tensor<complex<f64>>\n"
        "  %cw = stablehlo.convert %w : (tensor<complex<f64>>) -> tensor<complex<f32>>\n"
        "  %f = stablehlo.constant dense<2.5> : tensor<f32>\n"
        "  %cf = stablehlo.convert %f : (tensor<f32>) -> tensor<complex<f32>>\n"
        "  %back = stablehlo.convert %cw : (tensor<complex<f32>>) -> tensor<f32>\n"
        "  %ir = stablehlo.imag %re : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  return %c, %r, %i, %eq, %ne, %cw, %cf, %back, %ir : tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<2xf32>,\n"
        "      tensor<2xi1>, tensor<2xi1>, tensor<complex<f32>>, tensor<complex<f32>>, tensor<f32>, tensor<2xf32>\n"
        "}\n");
    expect_c(&r, 0, 0, 1.0, 2.0);
    expect_c(&r, 0, 1, -0.0, 3.5);
    expect_f32(&r, 1, 1, -0.0f);
    expect_f32(&r, 2, 0, 2.0f);
    expect_int(&r, 3, 0, 1);
    expect_int(&r, 3, 1, 0);
    expect_int(&r, 4, 0, 0);
    expect_int(&r, 4, 1, 1);
    expect_c(&r, 5, 0, (double)0.1f, (double)0.2f);
    expect_c(&r, 6, 0, 2.5, 0.0);
    expect_f32(&r, 7, 0, 0.1f);
    expect_f32(&r, 8, 0, 0.0f);
    plumb_ref_result_free(&r);
}

/* A sum that cancels: (1e16 + i) + 1 - 1e16 = 1 + i exactly, where adding
 * in order in double would give 0 + i (1e16 + 1 rounds to 1e16); a mixed
 * f64 x complex dot: [1, 2] . [(1,1), (3,-1)] = 7 - i. */
static void test_reduce_dot(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<complex<f64>>, tensor<complex<f64>>) {\n"
        "  %x = stablehlo.constant dense<[(1.0e16,1.0), (1.0,0.0), (-1.0e16,0.0)]> : tensor<3xcomplex<f64>>\n"
        "  %z = stablehlo.constant dense<(0.0,0.0)> : tensor<complex<f64>>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>\n"
        "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>\n"
        "  %b = stablehlo.constant dense<[(1.0,1.0), (3.0,-1.0)]> : tensor<2xcomplex<f64>>\n"
        "  %d = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<2xf64>, tensor<2xcomplex<f64>>) -> tensor<complex<f64>>\n"
        "  return %s, %d : tensor<complex<f64>>, tensor<complex<f64>>\n"
        "}\n");
    expect_c(&r, 0, 0, 1.0, 1.0);
    expect_c(&r, 1, 0, 7.0, -1.0);
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_div),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_trig),
        cmocka_unit_test(test_chlo),
        cmocka_unit_test(test_parts_compare_convert),
        cmocka_unit_test(test_reduce_dot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
