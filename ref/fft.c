/* stablehlo.fft (op set v2, docs/spec/fft.md).
 *
 * Semantics (StableHLO spec): with k = size(fft_length) (1 to 3), every
 * trailing k-dimensional block of the operand (the leading dimensions are a
 * batch) is transformed as a series of one-dimensional discrete Fourier
 * transforms along its last k dimensions:
 *   fft(x)[m]  = sum_j x[j] exp(-2 pi i j m / n)
 *   ifft(x)[m] = (1/n) sum_j x[j] exp(+2 pi i j m / n)
 *   rfft(x)    = fft(x + 0i)[0 .. n/2]            (n/2 + 1 values)
 *   irfft(X)   = real(ifft(Z)), Z[j] = X[j] for j <= n/2 and conj(X[n-j])
 *                above (the Hermitian extension; imag(X[0]) and, for even
 *                n, imag(X[n/2]) do not contribute)
 * FFT and IFFT transform every one of the k dimensions with fft / ifft;
 * RFFT applies rfft to the last and fft to the others; IRFFT applies ifft
 * to the others first and irfft to the last, as the spec orders it.
 *
 * What the reference computes: every input element is loaded exactly, the
 * whole k-dimensional transform runs in double-double arithmetic (about 106
 * significant bits; products through fma) with twiddle factors computed by
 * MPFR (cospi/sinpi of an exact or 200-bit argument, so that the twiddles
 * at multiples of a quarter turn are exactly 0 and +-1) and held as
 * double-double, and each output component is rounded once, to nearest
 * even, from its double-double value into the result's component type.
 * The transform is evaluated as direct sums (O(n^2) per dimension), never
 * through an FFT factorization: each component's error before the final
 * rounding is below about k n 2^-104 ||x||, far below half an ulp of any
 * component that does not cancel to near zero.
 *
 * Non-finite values (the spec states no rule): when any element of a
 * block is NaN or infinite, every component of that block's result is NaN.
 * A finite block whose sums leave the double range gives NaN or infinity in
 * the components concerned.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
#include "plumb/fft.h"
#include "ref_internal.h"

/* ---- double-double ------------------------------------------------------------ */

typedef struct dd {
    double hi, lo;
} dd;

typedef struct cdd {
    dd re, im;
} cdd;

static dd quick_two_sum(double a, double b)
{
    double s = a + b;
    return (dd){s, b - (s - a)};
}

static dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

static dd dd_add(dd x, dd y)
{
    dd s = two_sum(x.hi, y.hi), t = two_sum(x.lo, y.lo);
    s.lo += t.hi;
    s = quick_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return quick_two_sum(s.hi, s.lo);
}

static dd dd_neg(dd x)
{
    return (dd){-x.hi, -x.lo};
}

static dd dd_mul(dd x, dd y)
{
    double p = x.hi * y.hi, e = fma(x.hi, y.hi, -p);
    e += x.hi * y.lo + x.lo * y.hi;
    return quick_two_sum(p, e);
}

static cdd cdd_mul(cdd a, cdd b)
{
    return (cdd){dd_add(dd_mul(a.re, b.re), dd_neg(dd_mul(a.im, b.im))),
                 dd_add(dd_mul(a.re, b.im), dd_mul(a.im, b.re))};
}

static cdd cdd_add(cdd a, cdd b)
{
    return (cdd){dd_add(a.re, b.re), dd_add(a.im, b.im)};
}

static dd dd_from_mpfr(mpfr_t v, mpfr_t tmp)
{
    double hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(tmp, v, hi, MPFR_RNDN);
    return (dd){hi, mpfr_get_d(tmp, MPFR_RNDN)};
}

/* hi + lo (a normalized double-double) rounded once to f32: hi's own
 * rounding is right unless hi is a midpoint between two floats, where lo's
 * sign decides. */
static float dd_to_f32(dd v)
{
    float r = (float)v.hi;
    if (v.lo == 0.0 || !isfinite(v.hi))
        return r;
    double back = r;
    if (back == v.hi)
        return r;
    float other = back < v.hi ? nextafterf(r, INFINITY) : nextafterf(r, -INFINITY);
    double mid = ((double)r + (double)other) / 2.0;   /* exact: both floats */
    if (mid != v.hi)
        return r;
    return (v.lo > 0.0) == (other > r) ? other : r;
}

/* ---- twiddles ----------------------------------------------------------------- */

/* w[j] = exp(sign 2 pi i j / n), j < n. */
static bool twiddles(int64_t n, int sign, cdd *w)
{
    mpfr_t x, c, s, tmp;
    mpfr_inits2(200, x, c, s, tmp, (mpfr_ptr)0);
    for (int64_t j = 0; j < n; j++) {
        mpfr_set_si(x, 2 * j, MPFR_RNDN);
        mpfr_div_si(x, x, n, MPFR_RNDN);   /* exact when 2j/n is a short dyadic */
        mpfr_cospi(c, x, MPFR_RNDN);
        mpfr_sinpi(s, x, MPFR_RNDN);
        if (sign < 0)
            mpfr_neg(s, s, MPFR_RNDN);
        w[j].re = dd_from_mpfr(c, tmp);
        w[j].im = dd_from_mpfr(s, tmp);
    }
    mpfr_clears(x, c, s, tmp, (mpfr_ptr)0);
    return true;
}

/* ---- the transform ------------------------------------------------------------ */

typedef struct plan {
    uint32_t k;
    int64_t shape[3];   /* the block's current complex shape */
} plan;

/* One-dimensional DFT of every line of blk along axis a (length n =
 * shape[a]); inverse divides by n. vec and w are scratch of n entries. */
static void dft_axis(cdd *blk, const plan *pl, uint32_t a, bool inverse, cdd *vec, cdd *out, const cdd *w,
                     dd inv_n)
{
    int64_t n = pl->shape[a], stride = 1, outer = 1;
    for (uint32_t d = a + 1; d < pl->k; d++)
        stride *= pl->shape[d];
    for (uint32_t d = 0; d < a; d++)
        outer *= pl->shape[d];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t s = 0; s < stride; s++) {
            cdd *base = blk + o * n * stride + s;
            for (int64_t j = 0; j < n; j++)
                vec[j] = base[j * stride];
            for (int64_t m = 0; m < n; m++) {
                cdd acc = {{0, 0}, {0, 0}};
                int64_t idx = 0;   /* (j * m) mod n */
                for (int64_t j = 0; j < n; j++) {
                    acc = cdd_add(acc, cdd_mul(vec[j], w[idx]));
                    idx += m;
                    if (idx >= n)
                        idx -= n;
                }
                if (inverse) {
                    acc.re = dd_mul(acc.re, inv_n);
                    acc.im = dd_mul(acc.im, inv_n);
                }
                out[m] = acc;
            }
            for (int64_t m = 0; m < n; m++)
                base[m * stride] = out[m];
        }
}

static dd dd_recip(int64_t n, mpfr_t a, mpfr_t tmp)
{
    mpfr_set_si(a, 1, MPFR_RNDN);
    mpfr_div_si(a, a, n, MPFR_RNDN);
    return dd_from_mpfr(a, tmp);
}

bool ref_op_FFT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *X = in[0];
    plumb_tensor *Y = out[0];
    const ir_ints *L = &op->a.fft_length;
    ir_fft_type ft = op->a.fft_type;
    uint32_t k = L->n, R = X->rank;
    if (k < 1 || k > 3 || R < k || Y->rank != R)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "fft_length does not fit the operand");
    bool xc = plumb_dtype_is_complex(X->dtype), yc = plumb_dtype_is_complex(Y->dtype);
    bool inverse = ft == IR_FFT_IFFT || ft == IR_FFT_IRFFT;
    /* the complex block the transforms run on: fft_length, except that
     * IRFFT's outer passes run on the n/2 + 1 columns it was given */
    int64_t nlast = L->v[k - 1], half = nlast / 2 + 1;
    plan pl = {.k = k};
    int64_t bsize = 1, xblk = 1, yblk = 1, nmax = 1;
    for (uint32_t i = 0; i < k; i++) {
        pl.shape[i] = L->v[i];
        bsize *= L->v[i];
        xblk *= X->dims[R - k + i];
        yblk *= Y->dims[R - k + i];
        if (L->v[i] > nmax)
            nmax = L->v[i];
    }
    int64_t batch = 1;
    for (uint32_t d = 0; d + k < R; d++)
        batch *= X->dims[d];
    if (bsize == 0 || batch == 0 || xblk == 0 || yblk == 0)
        return true;   /* nothing to transform */
    /* the real side of RFFT/IRFFT spans fft_length; the complex side's last
     * dimension is n/2 + 1 (the verifier's C4/C5) */
    if ((ft == IR_FFT_RFFT && (xblk != bsize || yblk != bsize / nlast * half)) ||
        (ft == IR_FFT_IRFFT && (yblk != bsize || xblk != bsize / nlast * half)) ||
        ((ft == IR_FFT_FFT || ft == IR_FFT_IFFT) && (xblk != bsize || yblk != bsize)))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the operand's and result's trailing dimensions do not match fft_length");

    bool ok = false;
    cdd *blk = calloc((size_t)bsize, sizeof *blk);   /* IRFFT's extra columns start as zeros */
    cdd *vec = malloc((size_t)nmax * sizeof *vec), *tmpv = malloc((size_t)nmax * sizeof *tmpv);
    cdd *w[3] = {NULL, NULL, NULL};
    dd inv[3];
    mpfr_t ma, mt;
    mpfr_inits2(200, ma, mt, (mpfr_ptr)0);
    if (!blk || !vec || !tmpv) {
        ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for an fft block of %lld elements", (long long)bsize);
        goto out;
    }
    for (uint32_t i = 0; i < k; i++) {
        w[i] = malloc((size_t)L->v[i] * sizeof *w[i]);
        if (!w[i]) {
            ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for %lld twiddles", (long long)L->v[i]);
            goto out;
        }
        twiddles(L->v[i], inverse ? 1 : -1, w[i]);
        inv[i] = dd_recip(L->v[i], ma, mt);
    }
    plumb_dtype ct = xc ? plumb_dtype_component(X->dtype) : X->dtype;
    for (int64_t b = 0; b < batch; b++) {
        uint64_t work = 0;
        for (uint32_t i = 0; i < k; i++)
            work += (uint64_t)bsize * (uint64_t)L->v[i];
        if (!ref_work(c, op, work))
            goto out;
        /* load; a non-finite element poisons the block */
        bool finite = true;
        for (int64_t e = 0; e < xblk; e++) {
            double re, im = 0.0;
            size_t src = (size_t)(b * xblk + e);
            if (xc)
                plumb_complex_load(X->dtype, X->data, src, &re, &im);
            else
                re = plumb_load_f64(ct, X->data, src);
            if (!isfinite(re) || !isfinite(im))
                finite = false;
            /* IRFFT's operand is the left n/2 + 1 columns of the block */
            int64_t dst = e;
            if (ft == IR_FFT_IRFFT)
                dst = e / half * nlast + e % half;
            blk[dst] = (cdd){{re, 0}, {im, 0}};
        }
        if (finite) {
            if (ft == IR_FFT_IRFFT) {
                /* outer ifft passes over the given columns, then the
                 * Hermitian extension and ifft of each row */
                /* the passes run over all nlast columns; those past
                 * half are overwritten by the extension below */
                for (uint32_t a = 0; a + 1 < k; a++)
                    dft_axis(blk, &pl, a, true, vec, tmpv, w[a], inv[a]);
                for (int64_t r = 0; r < bsize / nlast; r++) {
                    cdd *row = blk + r * nlast;
                    for (int64_t j = half; j < nlast; j++)
                        row[j] = (cdd){row[nlast - j].re, dd_neg(row[nlast - j].im)};
                }
                dft_axis(blk, &pl, k - 1, true, vec, tmpv, w[k - 1], inv[k - 1]);
            } else {
                for (uint32_t a = k; a-- > 0;)
                    dft_axis(blk, &pl, a, inverse, vec, tmpv, w[a], inv[a]);
            }
        }
        /* store, each component rounded once */
        plumb_dtype rt = yc ? plumb_dtype_component(Y->dtype) : Y->dtype;
        for (int64_t e = 0; e < yblk; e++) {
            int64_t s = ft == IR_FFT_RFFT ? e / half * nlast + e % half : e;
            dd vr = finite ? blk[s].re : (dd){NAN, 0}, vi = finite ? blk[s].im : (dd){NAN, 0};
            double re = rt == PLUMB_F32 ? (double)dd_to_f32(vr) : vr.hi;
            double im = rt == PLUMB_F32 ? (double)dd_to_f32(vi) : vi.hi;
            size_t dst = (size_t)(b * yblk + e);
            if (yc)
                plumb_complex_store(Y->dtype, Y->data, dst, re, im);
            else if (rt == PLUMB_F32)
                ((float *)Y->data)[dst] = (float)re;
            else
                ((double *)Y->data)[dst] = re;
        }
    }
    ok = true;
out:
    mpfr_clears(ma, mt, (mpfr_ptr)0);
    for (uint32_t i = 0; i < 3; i++)
        free(w[i]);
    free(blk);
    free(vec);
    free(tmpv);
    return ok;
}
