/* stablehlo.fft's agreement check (docs/spec/fft.md, "Error bound"): a
 * normwise bound per transformed block. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fft_bound.h"
#include "plumb/complex.h"
#include "plumb/dtype.h"

/* Component c (0 re, 1 im) of element i; real tensors have im 0. */
static double comp(const plumb_tensor *t, size_t i, int c)
{
    if (plumb_dtype_is_complex(t->dtype)) {
        double re, im;
        plumb_complex_load(t->dtype, t->data, i, &re, &im);
        return c ? im : re;
    }
    return c ? 0.0 : plumb_load_f64(t->dtype, t->data, i);
}

static int cls(double v)
{
    return isnan(v) ? 1 : v == INFINITY ? 2 : v == -INFINITY ? 3 : 0;
}

void conf_fft_judge(ir_fft_type t, const ir_ints *len, const plumb_tensor *x, const plumb_tensor *got,
                    const plumb_tensor *want, conf_fft_verdict *v)
{
    memset(v, 0, sizeof *v);
    uint32_t k = len->n, R = x->rank;
    if (k < 1 || k > 3 || R < k || want->rank != R) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "fft_length does not fit the operand");
        return;
    }
    int64_t xblk = 1, yblk = 1, batch = 1;
    long double N = 1;
    for (uint32_t i = 0; i < k; i++) {
        xblk *= x->dims[R - k + i];
        yblk *= want->dims[R - k + i];
        N *= (long double)len->v[i];
    }
    for (uint32_t d = 0; d + k < R; d++)
        batch *= x->dims[d];
    if (xblk == 0 || yblk == 0 || batch == 0)
        return;
    plumb_dtype ct = plumb_dtype_is_complex(want->dtype) ? plumb_dtype_component(want->dtype) : want->dtype;
    double u = ct == PLUMB_F32 ? 0x1p-24 : 0x1p-53;
    double tiny = ct == PLUMB_F32 ? 0x1p-149 : 0x1p-1074;
    double bound = plumb_fft_bound(len->v, k, t, u) + u;   /* + the reference's own rounding */
    /* the exact result's norm from the input's (Parseval): FFT and RFFT
     * multiply the norm by sqrt(N), IFFT divides it; IRFFT's Hermitian
     * extension at most doubles the squared norm of the given half */
    long double scale2 = t == IR_FFT_FFT || t == IR_FFT_RFFT ? N : t == IR_FFT_IFFT ? 1.0L / N : 2.0L / N;
    /* every stage may also lose up to a subnormal per component */
    double floor_ = 0.0;
    {
        double stages = 4.0;
        for (uint32_t i = 0; i < k; i++)
            stages += log2((double)len->v[i] + 1.0) + 1.0;
        floor_ = stages * sqrt((double)yblk) * tiny;
    }
    for (int64_t b = 0; b < batch; b++) {
        long double in2 = 0;
        bool finite = true;
        for (int64_t e = 0; e < xblk && finite; e++)
            for (int c = 0; c < 2; c++) {
                double a = comp(x, (size_t)(b * xblk + e), c);
                finite = finite && isfinite(a);
                in2 += (long double)a * a;
            }
        if (!finite)
            continue;   /* the spec gives no rule for non-finite inputs */
        long double err2 = 0;
        for (int64_t e = 0; e < yblk; e++)
            for (int c = 0; c < 2; c++) {
                size_t i = (size_t)(b * yblk + e);
                double g = comp(got, i, c), w = comp(want, i, c);
                if (!isfinite(w) || !isfinite(g)) {
                    if (cls(g) != cls(w)) {
                        v->budget = INFINITY;
                        v->idx = (uint64_t)(b * yblk + e);
                        snprintf(v->reason, sizeof v->reason,
                                 "element %llu %s: got %g, the reference %g (a non-finite component must match in class)",
                                 (unsigned long long)v->idx, c ? "imag" : "real", g, w);
                        return;
                    }
                    continue;
                }
                long double dlt = (long double)g - w;
                err2 += dlt * dlt;
            }
        double err = (double)sqrtl(err2), S = (double)sqrtl(in2 * scale2);
        double allowed = bound * S + floor_;
        double r = err == 0.0 ? 0.0 : err / allowed;
        if (r > v->budget) {
            v->budget = r;
            v->idx = (uint64_t)(b * yblk);
            if (r > 1.0)
                snprintf(v->reason, sizeof v->reason,
                         "%s block %lld: ||got - want||_2 = %.3g exceeds %.3g = bound %.3g (%.1f u) x ||exact||_2 %.3g"
                         " + floor %.3g",
                         ir_fft_type_name(t), (long long)b, err, allowed, bound, bound / u, S, floor_);
        }
    }
}
