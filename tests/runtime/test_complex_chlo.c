/* CHLO's cosh, sinh and acosh on complex values (ref/complex.c by
 * identities through cos, sin and acos; runtime/k_complex.c through C's
 * ccoshl, csinhl, cacoshl). Expected values on the axes, where each
 * component is one real function, come from MPFR here: cosh(x + 0i) =
 * (cosh x, +0), sinh(0 + iy) = (+0, sin y), acosh(2 + 0i) = (acosh 2, +0),
 * acosh(-2 + 0i) = (acosh 2, pi), acosh(0 - 3i) = (asinh 3, -pi/2). The
 * reference must give them exactly (each component rounded once), the
 * runtime within 2 ulp per component at every ISA level; off the axes the
 * runtime stays within 4 u of the reference, normwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <mpfr.h>

#include "plumb/complex.h"
#include "rt_test.h"

typedef int (*mfn)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static double mp(mfn f, double x)
{
    mpfr_t a;
    mpfr_init2(a, 200);
    mpfr_set_d(a, x, MPFR_RNDN);
    f(a, a, MPFR_RNDN);
    double r = mpfr_get_d(a, MPFR_RNDN);
    mpfr_clear(a);
    return r;
}

static double mp_pi(int div2)
{
    mpfr_t a;
    mpfr_init2(a, 200);
    mpfr_const_pi(a, MPFR_RNDN);
    if (div2) mpfr_div_2ui(a, a, 1, MPFR_RNDN);
    double r = mpfr_get_d(a, MPFR_RNDN);
    mpfr_clear(a);
    return r;
}

static bool near(double got, double want, double ulps)
{
    if (got == want) return signbit(got) == signbit(want);
    return fabs(got - want) <= ulps * (nextafter(fabs(want), INFINITY) - fabs(want));
}

static const char *const PROG =
    "func.func @main() -> (tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>) {\n"
    "  %a = stablehlo.constant dense<[(0.5, 0.0), (0.0, 1.25), (2.0, 0.0), (-2.0, 0.0), (0.0, -3.0)]> : tensor<5xcomplex<f64>>\n"
    "  %c = chlo.cosh %a : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>\n"
    "  %s = chlo.sinh %a : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>\n"
    "  %h = chlo.acosh %a : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>\n"
    "  return %c, %s, %h : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>\n}\n";

static void check_axes(plumb_tensor *const *out, double ulps)
{
    double re, im;
    plumb_complex_load(PLUMB_C128, out[0]->data, 0, &re, &im);     /* cosh(0.5) */
    assert_true(near(re, mp(mpfr_cosh, 0.5), ulps) && im == 0 && !signbit(im));
    plumb_complex_load(PLUMB_C128, out[1]->data, 1, &re, &im);     /* sinh(1.25i) = i sin 1.25 */
    assert_true(re == 0 && near(im, mp(mpfr_sin, 1.25), ulps));
    plumb_complex_load(PLUMB_C128, out[2]->data, 2, &re, &im);     /* acosh(2) */
    assert_true(near(re, mp(mpfr_acosh, 2.0), ulps) && im == 0 && !signbit(im));
    plumb_complex_load(PLUMB_C128, out[2]->data, 3, &re, &im);     /* acosh(-2 + 0i) */
    assert_true(near(re, mp(mpfr_acosh, 2.0), ulps) && near(im, mp_pi(0), ulps));
    plumb_complex_load(PLUMB_C128, out[2]->data, 4, &re, &im);     /* acosh(-3i) */
    assert_true(near(re, mp(mpfr_asinh, 3.0), ulps) && near(im, -mp_pi(1), ulps));
}

/* The axis values: exact on the reference, within 2 ulp on the runtime. */
static void test_axes(void **state)
{
    (void)state;
    ir_module *m = rt_parse(PROG);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, NULL, 0, want);
    check_axes(want, 0);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        rt_exec_on(m, (plumb_isa)isa, 1, NULL, 0, got, no);
        check_axes(got, 2);
        rt_outs_free(got, no);
    }
    rt_outs_free(want, no);
    ir_module_free(m);
}

/* Off the axes (complex<f32> and complex<f64>, magnitudes 2^-4 .. 2^3,
 * every quadrant): the runtime within 4 u of the reference, normwise. */
static void test_quadrants(void **state)
{
    (void)state;
    static const char *const ops[] = {"cosh", "sinh", "acosh"};
    for (int ct = 0; ct < 2; ct++)
        for (size_t k = 0; k < 3; k++) {
            const char *T = ct ? "complex<f64>" : "complex<f32>";
            plumb_dtype t = ct ? PLUMB_C128 : PLUMB_C64;
            char src[512];
            snprintf(src, sizeof src,
                     "func.func @main(%%a: tensor<64x%s>) -> tensor<64x%s> {\n"
                     "  %%r = chlo.%s %%a : tensor<64x%s> -> tensor<64x%s>\n"
                     "  return %%r : tensor<64x%s>\n}\n", T, T, ops[k], T, T, T);
            int64_t n = 64;
            plumb_diag d;
            memset(&d, 0, sizeof d);
            plumb_tensor *in = plumb_tensor_new(t, 1, &n, 0, &d);
            assert_non_null(in);
            for (int64_t i = 0; i < n; i++) {
                double re = ldexp(1.0 + (double)(rt_rand() >> 11) * 0x1p-53, (int)(rt_rand() % 8) - 4);
                double im = ldexp(1.0 + (double)(rt_rand() >> 11) * 0x1p-53, (int)(rt_rand() % 8) - 4);
                plumb_complex_store(t, in->data, (size_t)i, i & 1 ? -re : re, i & 2 ? -im : im);
            }
            ir_module *m = rt_parse(src);
            plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
            uint32_t no = rt_ref(m, &in, 1, want);
            double u = ct ? 0x1p-53 : 0x1p-24;
            for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
                rt_exec_on(m, (plumb_isa)isa, 1, &in, 1, got, no);
                for (int64_t i = 0; i < n; i++) {
                    double wr, wi, gr, gi;
                    plumb_complex_load(t, want[0]->data, (size_t)i, &wr, &wi);
                    plumb_complex_load(t, got[0]->data, (size_t)i, &gr, &gi);
                    double err = hypot(gr - wr, gi - wi), mag = hypot(wr, wi);
                    if (!(err <= 4 * u * mag))
                        fprintf(stderr, "%s %s element %lld: runtime (%a, %a), reference (%a, %a)\n", ops[k], T,
                                (long long)i, gr, gi, wr, wi);
                    assert_true(err <= 4 * u * mag);
                }
                rt_outs_free(got, no);
            }
            rt_outs_free(want, no);
            ir_module_free(m);
            plumb_tensor_free(in);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_axes), cmocka_unit_test(test_quadrants)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    (void)rt_ty;
    (void)rt_rand_tensor;
    return rc;
}
