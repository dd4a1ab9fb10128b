/* while, if and case carrying complex values (their regions move whole
 * elements; the ops inside decide what complex values they take): a while
 * multiplying a complex<f64> vector by i three times, an if returning a
 * complex<f32> constant, a case picking branch 1's complex<f64>, on the
 * reference and the runtime at every ISA level. Hand values: (1+2i)(-i) =
 * 2-i and (0.5-i)(-i) = -1-0.5i (i^3 = -i, every product exact); the if's
 * true branch (3, -4); case 1's (-7.5, 0.25). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/complex.h"
#include "rt_test.h"

static const char *const PROG =
    "func.func @main() -> (tensor<2xcomplex<f64>>, tensor<complex<f32>>, tensor<complex<f64>>) {\n"
    "  %z = stablehlo.constant dense<[(1.0, 2.0), (0.5, -1.0)]> : tensor<2xcomplex<f64>>\n"
    "  %m = stablehlo.constant dense<[(0.0, 1.0), (0.0, 1.0)]> : tensor<2xcomplex<f64>>\n"
    "  %i0 = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %n = stablehlo.constant dense<3> : tensor<i32>\n"
    "  %r:2 = stablehlo.while(%i = %i0, %v = %z) : tensor<i32>, tensor<2xcomplex<f64>>\n"
    "   cond {\n"
    "    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "    stablehlo.return %c : tensor<i1>\n"
    "  } do {\n"
    "    %i2 = stablehlo.add %i, %one : tensor<i32>\n"
    "    %v2 = stablehlo.multiply %v, %m : tensor<2xcomplex<f64>>\n"
    "    stablehlo.return %i2, %v2 : tensor<i32>, tensor<2xcomplex<f64>>\n"
    "  }\n"
    "  %p = stablehlo.constant dense<true> : tensor<i1>\n"
    "  %s = \"stablehlo.if\"(%p) ({\n"
    "    %a = stablehlo.constant dense<(3.0, -4.0)> : tensor<complex<f32>>\n"
    "    stablehlo.return %a : tensor<complex<f32>>\n"
    "  }, {\n"
    "    %b = stablehlo.constant dense<(5.0, 6.0)> : tensor<complex<f32>>\n"
    "    stablehlo.return %b : tensor<complex<f32>>\n"
    "  }) : (tensor<i1>) -> tensor<complex<f32>>\n"
    "  %k = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %t = \"stablehlo.case\"(%k) ({\n"
    "    %a = stablehlo.constant dense<(1.0, 1.0)> : tensor<complex<f64>>\n"
    "    stablehlo.return %a : tensor<complex<f64>>\n"
    "  }, {\n"
    "    %b = stablehlo.constant dense<(-7.5, 0.25)> : tensor<complex<f64>>\n"
    "    stablehlo.return %b : tensor<complex<f64>>\n"
    "  }) : (tensor<i32>) -> tensor<complex<f64>>\n"
    "  return %r#1, %s, %t : tensor<2xcomplex<f64>>, tensor<complex<f32>>, tensor<complex<f64>>\n"
    "}\n";

static void expect_vals(plumb_tensor *const *out)
{
    double re, im;
    plumb_complex_load(PLUMB_C128, out[0]->data, 0, &re, &im);
    assert_true(re == 2.0 && im == -1.0);
    plumb_complex_load(PLUMB_C128, out[0]->data, 1, &re, &im);
    assert_true(re == -1.0 && im == -0.5);
    plumb_complex_load(PLUMB_C64, out[1]->data, 0, &re, &im);
    assert_true(re == 3.0 && im == -4.0);
    plumb_complex_load(PLUMB_C128, out[2]->data, 0, &re, &im);
    assert_true(re == -7.5 && im == 0.25);
}

/* The three control-flow ops on both backends, by hand. */
static void test_control_complex(void **state)
{
    (void)state;
    ir_module *m = rt_parse(PROG);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, NULL, 0, want);
    assert_int_equal(no, 3);
    expect_vals(want);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        rt_exec_on(m, (plumb_isa)isa, 1, NULL, 0, got, no);
        expect_vals(got);
        rt_outs_free(got, no);
    }
    rt_outs_free(want, no);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_control_complex)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    (void)rt_ty;
    (void)rt_rand_tensor;
    return rc;
}
