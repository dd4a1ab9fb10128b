/* The runtime's stablehlo.fft (runtime/k_fft.c) against the reference
 * (ref/fft.c) within the normwise bound of docs/spec/fft.md
 * (conf_fft_judge), at every ISA level and on 1 and 2 threads: every
 * length 1..40 and a few larger ones (powers of two, a large prime, mixed
 * factors), the four fft types, complex<f32> and complex<f64>, one to three
 * transformed dimensions with a batch; and the bound rejects a transform
 * with one twiddle sign flipped and an inverse without its 1/n. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/complex.h"
#include "rt_test.h"
#include "../../conformance/fft_bound.h"

/* Random values of t: a real type's from rt_rand_tensor, a complex type's
 * components alike (uniform in [-1, 1) scaled by 2^(0..7)). */
static plumb_tensor *rand_fill(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    if (!plumb_dtype_is_complex(t))
        return rt_rand_tensor(t, rank, dims, false);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        double c[2];
        for (int j = 0; j < 2; j++) {
            uint64_t r = rt_rand();
            c[j] = ((double)(r >> 11) * 0x1p-53 * 2 - 1) * (double)(1u << (r & 7));
        }
        plumb_complex_store(t, x->data, (size_t)i, c[0], c[1]);
    }
    return x;
}

static plumb_tensor *copy_of(const plumb_tensor *t)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *c = plumb_tensor_new(t->dtype, t->rank, t->dims, 0, &d);
    assert_non_null(c);
    memcpy(c->data, t->data, t->nbytes);
    return c;
}

/* Runs fft(type, len) on a random input of shape dims (the operand's) of
 * component type ct; checks every runtime configuration against the
 * reference with conf_fft_judge; returns the worst budget. */
static double run_case(ir_fft_type ft, plumb_dtype ct, const int64_t *dims, uint32_t rank, const int64_t *len,
                       uint32_t k)
{
    int64_t rdims[8];
    memcpy(rdims, dims, rank * sizeof *dims);
    if (ft == IR_FFT_RFFT) rdims[rank - 1] = dims[rank - 1] / 2 + 1;
    if (ft == IR_FFT_IRFFT) rdims[rank - 1] = len[k - 1];
    bool xc = ft != IR_FFT_RFFT, yc = ft != IR_FFT_IRFFT;
    plumb_dtype xt = ct, yt = ct;
    if (xc) plumb_dtype_complex_of(ct, &xt);
    if (yc) plumb_dtype_complex_of(ct, &yt);
    char X[96], Y[96], ls[64], src[1024];
    rt_ty(X, sizeof X, xt, rank, dims);
    rt_ty(Y, sizeof Y, yt, rank, rdims);
    size_t n = 0;
    for (uint32_t i = 0; i < k; i++) n += (size_t)snprintf(ls + n, sizeof ls - n, "%s%lld", i ? ", " : "", (long long)len[i]);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s) -> %s {\n"
             "  %%x = stablehlo.fft %%a, type = %s, length = [%s] : (%s) -> %s\n"
             "  return %%x : %s\n}\n",
             X, Y, ir_fft_type_name(ft), ls, X, Y, Y);

    plumb_tensor *in = rand_fill(xt, rank, dims);
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, &in, 1, want);
    ir_ints L = {(int64_t *)len, k};
    double worst = 0;
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, &in, 1, got, no);
            conf_fft_verdict v;
            conf_fft_judge(ft, &L, in, got[0], want[0], &v);
            if (v.budget > 1.0) fprintf(stderr, "%s\n%s\n", src, v.reason);
            assert_true(v.budget <= 1.0);
            if (v.budget > worst) worst = v.budget;
            rt_outs_free(got, no);
        }
    rt_outs_free(want, no);
    ir_module_free(m);
    plumb_tensor_free(in);
    return worst;
}

/* Every length 1..40 and 64, 97, 120, 128, 243, 256 in one dimension with
 * a batch of 3, forward and inverse, both types. */
static void test_lengths_1d(void **state)
{
    (void)state;
    static const int64_t extra[] = {64, 97, 120, 128, 243, 256};
    double worst = 0;
    for (int i = 1; i <= 40 + (int)(sizeof extra / sizeof extra[0]); i++) {
        int64_t n = i <= 40 ? i : extra[i - 41];
        for (int ti = 0; ti < 2; ti++) {
            plumb_dtype ct = ti ? PLUMB_F64 : PLUMB_F32;
            int64_t dims[2] = {3, n};
            double a = run_case(IR_FFT_FFT, ct, dims, 2, &n, 1);
            double b = run_case(IR_FFT_IFFT, ct, dims, 2, &n, 1);
            if (a > worst) worst = a;
            if (b > worst) worst = b;
        }
    }
    fprintf(stderr, "worst budget used (1-D): %.3f\n", worst);
}

/* RFFT and IRFFT over even and odd lengths, one and two dimensions. */
static void test_real(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 2, 3, 4, 5, 8, 9, 15, 16, 33, 64};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int ti = 0; ti < 2; ti++) {
            plumb_dtype ct = ti ? PLUMB_F64 : PLUMB_F32;
            int64_t n = ns[i];
            int64_t d1[2] = {2, n};
            run_case(IR_FFT_RFFT, ct, d1, 2, &n, 1);
            int64_t h1[2] = {2, n / 2 + 1};
            run_case(IR_FFT_IRFFT, ct, h1, 2, &n, 1);
            int64_t len2[2] = {3, n};
            int64_t d2[3] = {2, 3, n};
            run_case(IR_FFT_RFFT, ct, d2, 3, len2, 2);
            int64_t h2[3] = {2, 3, n / 2 + 1};
            run_case(IR_FFT_IRFFT, ct, h2, 3, len2, 2);
        }
}

/* Two and three transformed dimensions. */
static void test_multi_dim(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{4, 4, 4}, {2, 3, 5}, {8, 1, 6}, {7, 9, 2}, {1, 1, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int ti = 0; ti < 2; ti++) {
            plumb_dtype ct = ti ? PLUMB_F64 : PLUMB_F32;
            int64_t d3[4] = {2, shapes[s][0], shapes[s][1], shapes[s][2]};
            run_case(IR_FFT_FFT, ct, d3, 4, shapes[s], 3);
            run_case(IR_FFT_IFFT, ct, d3, 4, shapes[s], 3);
            run_case(IR_FFT_FFT, ct, d3 + 1, 3, shapes[s] + 1, 2);
        }
}

/* The bound is tight enough to reject the faults it exists for: the
 * reference's FFT of x judged as if it were the runtime's answer to IFFT
 * scaled by n (a twiddle sign flipped everywhere: the conjugate transform),
 * and IFFT without 1/n (the reference's IFFT times n). Both differ from the
 * right answer by O(1) relative, far above O(log n) u. */
static void test_bound_rejects(void **state)
{
    (void)state;
    int64_t n = 16, dims[1] = {16};
    plumb_tensor *in = rand_fill(PLUMB_C128, 1, dims);
    char src[512];
    snprintf(src, sizeof src,
             "func.func @main(%%a: tensor<16xcomplex<f64>>) -> (tensor<16xcomplex<f64>>, tensor<16xcomplex<f64>>) {\n"
             "  %%f = stablehlo.fft %%a, type = FFT, length = [16] : (tensor<16xcomplex<f64>>) -> tensor<16xcomplex<f64>>\n"
             "  %%i = stablehlo.fft %%a, type = IFFT, length = [16] : (tensor<16xcomplex<f64>>) -> tensor<16xcomplex<f64>>\n"
             "  return %%f, %%i : tensor<16xcomplex<f64>>, tensor<16xcomplex<f64>>\n}\n");
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT];
    uint32_t no = rt_ref(m, &in, 1, want);
    assert_int_equal(no, 2);
    ir_ints L = {&n, 1};
    conf_fft_verdict v;
    /* the right answers pass with budget 0 */
    conf_fft_judge(IR_FFT_FFT, &L, in, want[0], want[0], &v);
    assert_true(v.budget == 0.0);
    /* conjugate twiddles: the inverse transform times n in place of FFT */
    plumb_tensor *conj = copy_of(want[1]);
    for (size_t i = 0; i < 16; i++) {
        double re, im;
        plumb_complex_load(PLUMB_C128, want[1]->data, i, &re, &im);
        plumb_complex_store(PLUMB_C128, conj->data, i, re * 16, im * 16);
    }
    conf_fft_judge(IR_FFT_FFT, &L, in, conj, want[0], &v);
    assert_true(v.budget > 1e6);
    assert_non_null(strstr(v.reason, "exceeds"));
    /* IFFT without its 1/n */
    conf_fft_judge(IR_FFT_IFFT, &L, in, conj, want[1], &v);
    assert_true(v.budget > 1e6);
    /* one component off by 100 u of the norm is over the bound for n = 16 */
    plumb_tensor *off = copy_of(want[0]);
    double re, im, nrm = 0;
    for (size_t i = 0; i < 16; i++) {
        plumb_complex_load(PLUMB_C128, want[0]->data, i, &re, &im);
        nrm += re * re + im * im;
    }
    plumb_complex_load(PLUMB_C128, off->data, 5, &re, &im);
    plumb_complex_store(PLUMB_C128, off->data, 5, re + 100 * 0x1p-53 * sqrt(nrm), im);
    conf_fft_judge(IR_FFT_FFT, &L, in, off, want[0], &v);
    assert_true(v.budget > 1.0);
    plumb_tensor_free(conj);
    plumb_tensor_free(off);
    rt_outs_free(want, no);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* A block holding an infinity is NaN throughout on the runtime as on the
 * reference; the other blocks are unaffected. */
static void test_nonfinite_block(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 5};
    plumb_tensor *in = rand_fill(PLUMB_C64, 2, dims);
    plumb_complex_store(PLUMB_C64, in->data, 3, INFINITY, 0.0);
    ir_module *m = rt_parse(
        "func.func @main(%a: tensor<2x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>> {\n"
        "  %x = stablehlo.fft %a, type = FFT, length = [5] : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>>\n"
        "  return %x : tensor<2x5xcomplex<f32>>\n}\n");
    plumb_tensor *got[RT_MAX_OUT];
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, &in, 1, got, 1);
    for (size_t i = 0; i < 10; i++) {
        double re, im;
        plumb_complex_load(PLUMB_C64, got[0]->data, i, &re, &im);
        assert_true(i < 5 ? isnan(re) && isnan(im) : isfinite(re) && isfinite(im));
    }
    rt_outs_free(got, 1);
    ir_module_free(m);
    plumb_tensor_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths_1d),    cmocka_unit_test(test_real),
        cmocka_unit_test(test_multi_dim),     cmocka_unit_test(test_bound_rejects),
        cmocka_unit_test(test_nonfinite_block),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
