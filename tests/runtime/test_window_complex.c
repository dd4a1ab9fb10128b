/* reduce_window on complex values (the body's ops decide; the pooling
 * fast paths are for real types): an add body on complex<f32> and a
 * multiply body on complex<f64> (16-byte elements), windows of 2 over
 * [(1,2), (3,-1), (0.5,0.25), (-2,4)], on the reference and the runtime at
 * every ISA level. Hand values: sums (4,1), (3.5,-0.75), (-1.5,4.25);
 * products (1+2i)(3-i) = 5+5i, (3-i)(0.5+0.25i) = 1.75+0.25i,
 * (0.5+0.25i)(-2+4i) = -2+1.5i, all exact. */
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
    "func.func @main() -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f64>>) {\n"
    "  %a = stablehlo.constant dense<[(1.0, 2.0), (3.0, -1.0), (0.5, 0.25), (-2.0, 4.0)]> : tensor<4xcomplex<f32>>\n"
    "  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>\n"
    "  %r = \"stablehlo.reduce_window\"(%a, %z) <{window_dimensions = array<i64: 2>}> ({\n"
    "  ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):\n"
    "    %s = stablehlo.add %x, %y : tensor<complex<f32>>\n"
    "    stablehlo.return %s : tensor<complex<f32>>\n"
    "  }) : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>\n"
    "  %b = stablehlo.constant dense<[(1.0, 2.0), (3.0, -1.0), (0.5, 0.25), (-2.0, 4.0)]> : tensor<4xcomplex<f64>>\n"
    "  %o = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>\n"
    "  %p = \"stablehlo.reduce_window\"(%b, %o) <{window_dimensions = array<i64: 2>}> ({\n"
    "  ^bb0(%x: tensor<complex<f64>>, %y: tensor<complex<f64>>):\n"
    "    %s = stablehlo.multiply %x, %y : tensor<complex<f64>>\n"
    "    stablehlo.return %s : tensor<complex<f64>>\n"
    "  }) : (tensor<4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<3xcomplex<f64>>\n"
    "  return %r, %p : tensor<3xcomplex<f32>>, tensor<3xcomplex<f64>>\n}\n";

static void expect_vals(plumb_tensor *const *out)
{
    static const double sums[3][2] = {{4, 1}, {3.5, -0.75}, {-1.5, 4.25}};
    static const double prods[3][2] = {{5, 5}, {1.75, 0.25}, {-2, 1.5}};
    for (size_t i = 0; i < 3; i++) {
        double re, im;
        plumb_complex_load(PLUMB_C64, out[0]->data, i, &re, &im);
        assert_true(re == sums[i][0] && im == sums[i][1]);
        plumb_complex_load(PLUMB_C128, out[1]->data, i, &re, &im);
        assert_true(re == prods[i][0] && im == prods[i][1]);
    }
}

/* Both bodies by hand, on the reference and on the runtime. */
static void test_complex_bodies(void **state)
{
    (void)state;
    ir_module *m = rt_parse(PROG);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, NULL, 0, want);
    assert_int_equal(no, 2);
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
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_complex_bodies)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    (void)rt_ty;
    (void)rt_rand_tensor;
    return rc;
}
