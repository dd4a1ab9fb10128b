/* The runtime's complex kernels (runtime/k_complex.c) against the
 * reference (ref/complex.c) on random operands, at every ISA level and on
 * 1 and 2 threads, within the bounds docs/spec/complex.md states: bitwise
 * for add, subtract, negate, compare, select, convert, complex, real, imag;
 * within 1 ULP per component for complex<f32> multiply; normwise relative
 * error |got - ref| <= k u |ref| (k = 2 for multiply, 4 for the rest, u the
 * component type's unit roundoff) for the others; and special values
 * (infinite and NaN components) to the same class on both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plumb/complex.h"
#include "rt_test.h"

static uint64_t seed = 0x243F6A8885A308D3ull;
static double urand(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) * 0x1p-53;
}

/* n complex values: magnitudes 2^-8 .. 2^8 in both components, some zero
 * parts; with specials, a few infinite and NaN components. */
static plumb_tensor *cplx_tensor(plumb_dtype t, int64_t n, bool specials)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, 1, &n, 0, &d);
    assert_non_null(x);
    for (int64_t i = 0; i < n; i++) {
        double re = (urand() * 2 - 1) * ldexp(1.0, (int)(urand() * 16) - 8);
        double im = (urand() * 2 - 1) * ldexp(1.0, (int)(urand() * 16) - 8);
        if (i % 11 == 3) im = 0;
        if (i % 13 == 5) re = -0.0;
        if (specials && i % 17 == 7) re = i % 2 ? INFINITY : -INFINITY;
        if (specials && i % 19 == 9) im = NAN;
        plumb_complex_store(t, x->data, (size_t)i, re, im);
    }
    return x;
}

static const char *tyname(plumb_dtype t) { return t == PLUMB_C64 ? "complex<f32>" : "complex<f64>"; }

/* got within k u of want, normwise; non-finite results match in class. */
static void check_close(const plumb_tensor *want, const plumb_tensor *got, double k, const char *what)
{
    plumb_dtype t = want->dtype;
    uint64_t n = plumb_tensor_numel(want);
    double u = rt_unit_roundoff(plumb_dtype_component(t));
    for (uint64_t i = 0; i < n; i++) {
        double wr, wi, gr, gi;
        plumb_complex_load(t, want->data, (size_t)i, &wr, &wi);
        plumb_complex_load(t, got->data, (size_t)i, &gr, &gi);
        bool ok;
        if (!isfinite(wr) || !isfinite(wi) || !isfinite(gr) || !isfinite(gi)) {
            ok = (isnan(wr) || isnan(wi) || isinf(wr) || isinf(wi)) == (isnan(gr) || isnan(gi) || isinf(gr) || isinf(gi));
        } else {
            double err = hypot(gr - wr, gi - wi), mag = hypot(wr, wi);
            /* the smallest normal magnitude stands in for underflowed values */
            double floor_ = plumb_dtype_component(t) == PLUMB_F32 ? 0x1p-126 : 0x1p-1022;
            ok = err <= k * u * (mag > floor_ ? mag : floor_);
        }
        if (!ok)
            fprintf(stderr, "%s: element %llu: runtime (%a, %a), reference (%a, %a)\n", what,
                    (unsigned long long)i, gr, gi, wr, wi);
        assert_true(ok);
    }
}

static void run_close(const char *src, plumb_tensor *const *in, uint32_t n, double k, const char *what)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, in, n, want);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, in, n, got, no);
            for (uint32_t i = 0; i < no; i++)
                check_close(want[i], got[i], k, what);
            rt_outs_free(got, no);
        }
    rt_outs_free(want, no);
    ir_module_free(m);
}

/* add, subtract, negate, select, compare, convert, complex, real, imag:
 * bit for bit. */
static void test_exact(void **state)
{
    (void)state;
    for (plumb_dtype t = PLUMB_C64; t <= PLUMB_C128; t++) {
        plumb_tensor *in[2] = {cplx_tensor(t, 300, true), cplx_tensor(t, 300, true)};
        const char *T = tyname(t), *F = t == PLUMB_C64 ? "f32" : "f64";
        char src[2048];
        snprintf(src, sizeof src,
                 "func.func @main(%%a: tensor<300x%s>, %%b: tensor<300x%s>) -> (tensor<300x%s>, tensor<300x%s>, tensor<300x%s>,"
                 " tensor<300xi1>, tensor<300xi1>, tensor<300x%s>, tensor<300x%s>, tensor<300x%s>) {\n"
                 "  %%s = stablehlo.add %%a, %%b : tensor<300x%s>\n"
                 "  %%d = stablehlo.subtract %%a, %%b : tensor<300x%s>\n"
                 "  %%n = stablehlo.negate %%a : tensor<300x%s>\n"
                 "  %%eq = stablehlo.compare EQ, %%a, %%a : (tensor<300x%s>, tensor<300x%s>) -> tensor<300xi1>\n"
                 "  %%ne = stablehlo.compare NE, %%a, %%b : (tensor<300x%s>, tensor<300x%s>) -> tensor<300xi1>\n"
                 "  %%sel = stablehlo.select %%eq, %%a, %%b : tensor<300xi1>, tensor<300x%s>\n"
                 "  %%re = stablehlo.real %%a : (tensor<300x%s>) -> tensor<300x%s>\n"
                 "  %%im = stablehlo.imag %%b : (tensor<300x%s>) -> tensor<300x%s>\n"
                 "  %%c = stablehlo.complex %%re, %%im : tensor<300x%s>\n"
                 "  return %%s, %%d, %%n, %%eq, %%ne, %%sel, %%c, %%a : tensor<300x%s>, tensor<300x%s>, tensor<300x%s>,"
                 " tensor<300xi1>, tensor<300xi1>, tensor<300x%s>, tensor<300x%s>, tensor<300x%s>\n"
                 "}\n",
                 T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, F, T, F, T, T, T, T, T, T, T);
        rt_check_exact(src, in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* multiply within 2u normwise (Brent, Percival and Zimmermann bound the
 * naive formula by sqrt(5) u; plumb's f32 path and the fma path are tighter) */
static void test_arith(void **state)
{
    (void)state;
    static const struct { const char *op; int binary; double k; } ops[] = {
        {"multiply", 1, 2}, {"divide", 1, 4}, {"power", 1, 64},
        {"abs", 0, 4}, {"sign", 0, 4}, {"sqrt", 0, 4}, {"rsqrt", 0, 4}, {"exponential", 0, 4},
        {"exponential_minus_one", 0, 4}, {"log", 0, 4}, {"log_plus_one", 0, 4}, {"sine", 0, 4},
        {"cosine", 0, 4}, {"tan", 0, 4}, {"tanh", 0, 4}, {"chlo.asinh", 0, 4}, {"chlo.asin", 0, 4},
        {"chlo.acos", 0, 4}, {"chlo.atan", 0, 4}, {"chlo.atanh", 0, 4}, {"chlo.square", 0, 4},
    };
    for (plumb_dtype t = PLUMB_C64; t <= PLUMB_C128; t++) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            plumb_tensor *in[2] = {cplx_tensor(t, 200, false), cplx_tensor(t, 200, false)};
            const char *T = tyname(t), *F = t == PLUMB_C64 ? "f32" : "f64";
            char src[1024];
            if (ops[o].binary)
                snprintf(src, sizeof src,
                         "func.func @main(%%a: tensor<200x%s>, %%b: tensor<200x%s>) -> tensor<200x%s> {\n"
                         "  %%r = stablehlo.%s %%a, %%b : tensor<200x%s>\n  return %%r : tensor<200x%s>\n}\n",
                         T, T, T, ops[o].op, T, T);
            else if (strcmp(ops[o].op, "abs") == 0)
                /* abs: compare as complex(|z|, 0) */
                snprintf(src, sizeof src,
                         "func.func @main(%%a: tensor<200x%s>, %%b: tensor<200x%s>) -> tensor<200x%s> {\n"
                         "  %%m = stablehlo.abs %%a : (tensor<200x%s>) -> tensor<200x%s>\n"
                         "  %%z = stablehlo.imag %%m : (tensor<200x%s>) -> tensor<200x%s>\n"
                         "  %%r = stablehlo.complex %%m, %%z : tensor<200x%s>\n  return %%r : tensor<200x%s>\n}\n",
                         T, T, T, T, F, F, F, T, T);
            else
                snprintf(src, sizeof src,
                         "func.func @main(%%a: tensor<200x%s>, %%b: tensor<200x%s>) -> tensor<200x%s> {\n"
                         "  %%r = %s%s %%a : tensor<200x%s>\n  return %%r : tensor<200x%s>\n}\n",
                         T, T, T, strncmp(ops[o].op, "chlo.", 5) ? "stablehlo." : "", ops[o].op, T, T);
            /* power's error grows with |w log z| (cpowl is exp(w log z)): the
             * inputs keep that below 2^6 */
            run_close(src, in, 2, ops[o].k, ops[o].op);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
    }
}

/* Special values: both backends give a non-finite result in the same
 * elements (Annex G for both). */
static void test_specials(void **state)
{
    (void)state;
    static const char *const ops[] = {"multiply", "divide", "exponential", "log", "sqrt", "sine", "tanh"};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        plumb_tensor *in[2] = {cplx_tensor(PLUMB_C128, 120, true), cplx_tensor(PLUMB_C128, 120, true)};
        char src[512];
        bool bin = o < 2;
        snprintf(src, sizeof src,
                 "func.func @main(%%a: tensor<120xcomplex<f64>>, %%b: tensor<120xcomplex<f64>>) -> tensor<120xcomplex<f64>> {\n"
                 "  %%r = stablehlo.%s %s : tensor<120xcomplex<f64>>\n  return %%r : tensor<120xcomplex<f64>>\n}\n",
                 ops[o], bin ? "%a, %b" : "%a");
        run_close(src, in, 2, 4, ops[o]);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* reduce (add) and dot_general (complex x complex and f64 x complex): the
 * runtime accumulates in long double, within n u of the exact value for
 * these well-conditioned sums of same-magnitude terms. */
static void test_reduce_dot(void **state)
{
    (void)state;
    plumb_tensor *a = cplx_tensor(PLUMB_C128, 64, false), *b = cplx_tensor(PLUMB_C128, 64, false);
    plumb_diag d = {0};
    int64_t n = 64;
    plumb_tensor *r = plumb_tensor_new(PLUMB_F64, 1, &n, 0, &d);
    for (int i = 0; i < 64; i++)
        ((double *)r->data)[i] = 1.0 + urand();
    plumb_tensor *in[3] = {a, b, r};
    run_close("func.func @main(%a: tensor<64xcomplex<f64>>, %b: tensor<64xcomplex<f64>>, %r: tensor<64xf64>) ->"
              " (tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>) {\n"
              "  %d = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<64xcomplex<f64>>, tensor<64xcomplex<f64>>) -> tensor<complex<f64>>\n"
              "  %x = stablehlo.dot_general %r, %b, contracting_dims = [0] x [0] : (tensor<64xf64>, tensor<64xcomplex<f64>>) -> tensor<complex<f64>>\n"
              "  %zc = stablehlo.constant dense<(0.0,0.0)> : tensor<complex<f64>>\n"
              "  %s = stablehlo.reduce(%a init: %zc) applies stablehlo.add across dimensions = [0] : (tensor<64xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>\n"
              "  return %d, %s, %x : tensor<complex<f64>>, tensor<complex<f64>>, tensor<complex<f64>>\n"
              "}\n",
              in, 3, 64, "dot/reduce");
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_arith),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_reduce_dot),
    };
    (void)rt_rand_tensor;   /* helpers of rt_test.h these tests do not need */
    (void)rt_ty;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
