/* stablehlo.fft on the runtime (docs/spec/fft.md).
 *
 * Algorithm: every transformed dimension's lines are gathered B at a time
 * (B lines side by side: element j of line q at j * B + q) into split real
 * and imaginary double arrays, and each group is transformed by a
 * mixed-radix Stockham autosort FFT (decimation in frequency): the length
 * is factored into 2s and odd primes, a radix-2 stage is a butterfly, an
 * odd radix p a p-point DFT by direct sums, then the stage's twiddle. The
 * B lines make every stage's innermost loop unit-stride and at least B
 * long, which the AVX2 radix-2 butterfly runs 4 lanes at a time (adds,
 * subtracts and multiplies only, so every ISA gives the same bits). Any
 * length runs; a large prime factor p costs O(p) per element.
 *
 * Numerics: the transform runs in double for both complex<f32> and
 * complex<f64>; twiddles are computed once per length in long double with
 * octant symmetry (exact 0 and +-1 at quarter turns) and rounded to double;
 * the inverse scales each line by 1/n (one multiplication by the rounded
 * reciprocal); complex<f32> results are rounded once at the end. The
 * error is within plumb_fft_bound (Higham's Theorem 24.2 generalized to
 * mixed radix). RFFT transforms the real input as complex and keeps the
 * first n/2 + 1 columns; IRFFT runs the outer inverse passes on the given
 * columns, extends each row by Hermitian symmetry and keeps the real part,
 * as the reference.
 *
 * Non-finite input: every component of a block holding a NaN or infinite
 * input element is NaN, as on the reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FFT_X86 1
#endif

#include "plumb/complex.h"
#include "plumb/fft.h"
#include "rt_internal.h"

enum { LANES = 8 };   /* lines transformed together */

/* exp(sign 2 pi i j / n) for j < n, from long double with octant symmetry. */
static void twiddle_table(int64_t n, int sign, double *wr, double *wi)
{
    const long double pi = 3.141592653589793238462643383279502884L;
    for (int64_t j = 0; j < n; j++) {
        /* angle 2 pi j / n = (pi / 4) * (8 j / n); split 8j = o n + r */
        int64_t o = (8 * j) / n, r = (8 * j) % n;
        long double c, s;
        /* within the octant: t in [0, 1) eighths of a turn, mirrored in
         * odd octants so that the argument of cosl/sinl stays in [0, pi/4] */
        long double t = (long double)r / (long double)n;   /* fraction of the octant */
        if (o & 1)
            t = 1.0L - t;
        long double a = t * (pi / 4.0L);
        long double ca = r == 0 && !(o & 1) ? 1.0L : cosl(a), sa = r == 0 && !(o & 1) ? 0.0L : sinl(a);
        /* reflect into place: (cos, sin) of o * pi/4 + phase */
        switch (o) {
        case 0: c = ca; s = sa; break;
        case 1: c = sa; s = ca; break;
        case 2: c = -sa; s = ca; break;
        case 3: c = -ca; s = sa; break;
        case 4: c = -ca; s = -sa; break;
        case 5: c = -sa; s = -ca; break;
        case 6: c = sa; s = -ca; break;
        default: c = ca; s = -sa; break;
        }
        wr[j] = (double)c;
        wi[j] = sign < 0 ? -(double)s : (double)s;
    }
}

typedef struct fft_line {
    int64_t n;
    int inverse;
    const double *wr, *wi;   /* n twiddles of this direction */
    double scale;            /* 1/n for the inverse, else 1 */
} fft_line;

/* One radix-2 stage over the interleaved lines: x, y hold `s` lanes per
 * position (s = B * the product of the previous radices), m = len / 2. */
static void stage2_portable(int64_t m, int64_t s, int64_t tstep, const fft_line *f, const double *restrict xr,
                            const double *restrict xi, double *restrict yr, double *restrict yi)
{
    for (int64_t pi = 0; pi < m; pi++) {
        double wr = f->wr[pi * tstep], wi = f->wi[pi * tstep];
        const double *ar = xr + s * pi, *ai = xi + s * pi, *br = xr + s * (pi + m), *bi = xi + s * (pi + m);
        double *y0r = yr + s * 2 * pi, *y0i = yi + s * 2 * pi, *y1r = y0r + s, *y1i = y0i + s;
        for (int64_t q = 0; q < s; q++) {
            double dr = ar[q] - br[q], di = ai[q] - bi[q];
            y0r[q] = ar[q] + br[q];
            y0i[q] = ai[q] + bi[q];
            y1r[q] = dr * wr - di * wi;
            y1i[q] = dr * wi + di * wr;
        }
    }
}

#ifdef FFT_X86
__attribute__((target("avx2")))
static void stage2_avx2(int64_t m, int64_t s, int64_t tstep, const fft_line *f, const double *restrict xr,
                        const double *restrict xi, double *restrict yr, double *restrict yi)
{
    for (int64_t pi = 0; pi < m; pi++) {
        __m256d wr = _mm256_set1_pd(f->wr[pi * tstep]), wi = _mm256_set1_pd(f->wi[pi * tstep]);
        const double *ar = xr + s * pi, *ai = xi + s * pi, *br = xr + s * (pi + m), *bi = xi + s * (pi + m);
        double *y0r = yr + s * 2 * pi, *y0i = yi + s * 2 * pi, *y1r = y0r + s, *y1i = y0i + s;
        int64_t q = 0;
        for (; q + 4 <= s; q += 4) {
            __m256d a_r = _mm256_loadu_pd(ar + q), a_i = _mm256_loadu_pd(ai + q);
            __m256d b_r = _mm256_loadu_pd(br + q), b_i = _mm256_loadu_pd(bi + q);
            __m256d dr = _mm256_sub_pd(a_r, b_r), di = _mm256_sub_pd(a_i, b_i);
            _mm256_storeu_pd(y0r + q, _mm256_add_pd(a_r, b_r));
            _mm256_storeu_pd(y0i + q, _mm256_add_pd(a_i, b_i));
            _mm256_storeu_pd(y1r + q, _mm256_sub_pd(_mm256_mul_pd(dr, wr), _mm256_mul_pd(di, wi)));
            _mm256_storeu_pd(y1i + q, _mm256_add_pd(_mm256_mul_pd(dr, wi), _mm256_mul_pd(di, wr)));
        }
        for (; q < s; q++) {
            double dr = ar[q] - br[q], di = ai[q] - bi[q], w_r = f->wr[pi * tstep], w_i = f->wi[pi * tstep];
            y0r[q] = ar[q] + br[q];
            y0i[q] = ai[q] + bi[q];
            y1r[q] = dr * w_r - di * w_i;
            y1i[q] = dr * w_i + di * w_r;
        }
    }
}
#endif

/* One odd radix-p stage: for each position pi < m and output t < p,
 * y[p pi + t] = (sum_r x[pi + r m] w_p^(r t)) w_len^(pi t). */
static void stage_p(int64_t p, int64_t m, int64_t s, int64_t tstep, const fft_line *f, const double *restrict xr,
                    const double *restrict xi, double *restrict yr, double *restrict yi)
{
    int64_t n = f->n, pstep = n / p;
    for (int64_t pi = 0; pi < m; pi++)
        for (int64_t t = 0; t < p; t++) {
            int64_t tw = (pi * t * tstep) % n;
            double wr = f->wr[tw], wi = f->wi[tw];
            double *outr = yr + s * (p * pi + t), *outi = yi + s * (p * pi + t);
            for (int64_t q = 0; q < s; q++) {
                double accr = xr[s * pi + q], acci = xi[s * pi + q];
                int64_t e = t;   /* (r t) mod p */
                for (int64_t r = 1; r < p; r++) {
                    double cr = f->wr[e * pstep], ci = f->wi[e * pstep];
                    double vr = xr[s * (pi + r * m) + q], vi = xi[s * (pi + r * m) + q];
                    accr += vr * cr - vi * ci;
                    acci += vr * ci + vi * cr;
                    e += t;
                    if (e >= p)
                        e -= p;
                }
                outr[q] = accr * wr - acci * wi;
                outi[q] = accr * wi + acci * wr;
            }
        }
}

/* Transforms the B lines in (xr, xi) (n positions x B lanes); the result
 * ends in (xr, xi), y is scratch of the same size. */
static void stockham(const fft_line *f, int64_t B, double *xr, double *xi, double *yr, double *yi, plumb_isa isa)
{
    int64_t len = f->n, s = B;
    bool in_x = true;
    while (len > 1) {
        int64_t p = 2;
        if (len % 2) {
            p = 3;
            while (len % p)
                p += 2;   /* the smallest odd prime factor */
        }
        int64_t m = len / p, tstep = f->n / len;
        double *ar = in_x ? xr : yr, *ai = in_x ? xi : yi, *br = in_x ? yr : xr, *bi = in_x ? yi : xi;
        if (p == 2) {
#ifdef FFT_X86
            if (isa >= PLUMB_ISA_AVX2)
                stage2_avx2(m, s, tstep, f, ar, ai, br, bi);
            else
#endif
                stage2_portable(m, s, tstep, f, ar, ai, br, bi);
        } else {
            stage_p(p, m, s, tstep, f, ar, ai, br, bi);
        }
        (void)isa;
        in_x = !in_x;
        s *= p;
        len = m;
    }
    size_t tot = (size_t)(f->n * B);
    if (!in_x) {
        memcpy(xr, yr, tot * sizeof *xr);
        memcpy(xi, yi, tot * sizeof *xi);
    }
    if (f->inverse)
        for (size_t i = 0; i < tot; i++) {
            xr[i] *= f->scale;
            xi[i] *= f->scale;
        }
}

/* ---- the op ------------------------------------------------------------------- */

typedef struct fft_job {
    double *re, *im;          /* the work blocks: batch x bsize, row-major */
    int64_t shape[3];
    uint32_t k, axis;
    int64_t lines_per_block, bsize;
    fft_line line;
    plumb_isa isa;
    bool nomem;
} fft_job;

/* Lines [begin, end) along job->axis, LANES at a time. Line g of the whole
 * work array: block g / lines_per_block, then (outer, inner) inside it. */
static void axis_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    fft_job *j = ctx;
    int64_t n = j->shape[j->axis], stride = 1;
    for (uint32_t d = j->axis + 1; d < j->k; d++)
        stride *= j->shape[d];
    size_t cap = (size_t)n * LANES;
    double *buf = malloc(4 * cap * sizeof *buf);
    if (!buf) {
        j->nomem = true;
        return;
    }
    double *xr = buf, *xi = buf + cap, *yr = buf + 2 * cap, *yi = buf + 3 * cap;
    int64_t base[LANES];
    for (uint64_t g0 = begin; g0 < end; g0 += LANES) {
        int64_t B = (int64_t)(end - g0 < LANES ? end - g0 : LANES);
        for (int64_t q = 0; q < B; q++) {
            int64_t g = (int64_t)g0 + q, blk = g / j->lines_per_block, l = g % j->lines_per_block;
            base[q] = blk * j->bsize + (l / stride) * n * stride + l % stride;
            for (int64_t e = 0; e < n; e++) {
                xr[e * B + q] = j->re[base[q] + e * stride];
                xi[e * B + q] = j->im[base[q] + e * stride];
            }
        }
        stockham(&j->line, B, xr, xi, yr, yi, j->isa);
        for (int64_t q = 0; q < B; q++)
            for (int64_t e = 0; e < n; e++) {
                j->re[base[q] + e * stride] = xr[e * B + q];
                j->im[base[q] + e * stride] = xi[e * B + q];
            }
    }
    free(buf);
}

static bool run_axis(rt_exec *x, fft_job *j, uint32_t axis, int64_t batch, const double *wr, const double *wi,
                     bool inverse)
{
    j->axis = axis;
    j->line = (fft_line){.n = j->shape[axis], .inverse = inverse, .wr = wr, .wi = wi,
                         .scale = 1.0 / (double)j->shape[axis]};
    j->lines_per_block = j->bsize / j->shape[axis];
    uint64_t lines = (uint64_t)(batch * j->lines_per_block);
    uint64_t grain = (uint64_t)(4096 / j->shape[axis]) + LANES;
    rt_parallel_for(x, lines, grain, axis_range, j);
    return !j->nomem;
}

bool rt_op_FFT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *X = in[0];
    plumb_tensor *Y = out[0];
    const ir_ints *L = &op->a.fft_length;
    ir_fft_type ft = op->a.fft_type;
    uint32_t k = L->n, R = X->rank;
    if (k < 1 || k > 3 || R < k || Y->rank != R)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "fft_length does not fit the operand");
    bool xc = plumb_dtype_is_complex(X->dtype), yc = plumb_dtype_is_complex(Y->dtype);
    bool inverse = ft == IR_FFT_IFFT || ft == IR_FFT_IRFFT;
    int64_t nlast = L->v[k - 1], half = nlast / 2 + 1;
    fft_job j = {.k = k, .isa = rt_isa(x)};
    int64_t bsize = 1, xblk = 1, yblk = 1;
    for (uint32_t i = 0; i < k; i++) {
        j.shape[i] = L->v[i];
        bsize *= L->v[i];
        xblk *= X->dims[R - k + i];
        yblk *= Y->dims[R - k + i];
    }
    j.bsize = bsize;
    int64_t batch = 1;
    for (uint32_t d = 0; d + k < R; d++)
        batch *= X->dims[d];
    if (bsize == 0 || batch == 0 || xblk == 0 || yblk == 0)
        return true;
    if ((ft == IR_FFT_RFFT && (xblk != bsize || yblk != bsize / nlast * half)) ||
        (ft == IR_FFT_IRFFT && (yblk != bsize || xblk != bsize / nlast * half)) ||
        ((ft == IR_FFT_FFT || ft == IR_FFT_IFFT) && (xblk != bsize || yblk != bsize)))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "the operand's and result's trailing dimensions do not match fft_length");

    bool ok = false;
    size_t tot = (size_t)(batch * bsize);
    double *tw[3] = {NULL, NULL, NULL};
    bool *bad = calloc((size_t)batch, sizeof *bad);
    j.re = calloc(tot, sizeof *j.re);
    j.im = calloc(tot, sizeof *j.im);
    if (!bad || !j.re || !j.im)
        goto nomem;
    for (uint32_t i = 0; i < k; i++) {
        tw[i] = malloc(2 * (size_t)L->v[i] * sizeof *tw[i]);
        if (!tw[i])
            goto nomem;
        twiddle_table(L->v[i], inverse ? 1 : -1, tw[i], tw[i] + L->v[i]);
    }
    plumb_dtype ct = xc ? plumb_dtype_component(X->dtype) : X->dtype;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t e = 0; e < xblk; e++) {
            double re, im = 0.0;
            size_t src = (size_t)(b * xblk + e);
            if (xc)
                plumb_complex_load(X->dtype, X->data, src, &re, &im);
            else
                re = plumb_load_f64(ct, X->data, src);
            if (!isfinite(re) || !isfinite(im))
                bad[b] = true;
            int64_t dst = ft == IR_FFT_IRFFT ? e / half * nlast + e % half : e;
            j.re[b * bsize + dst] = re;
            j.im[b * bsize + dst] = im;
        }
    if (ft == IR_FFT_IRFFT) {
        for (uint32_t a = 0; a + 1 < k; a++)
            if (!run_axis(x, &j, a, batch, tw[a], tw[a] + L->v[a], true))
                goto nomem;
        for (int64_t r = 0; r < batch * bsize / nlast; r++) {
            double *rr = j.re + r * nlast, *ri = j.im + r * nlast;
            for (int64_t c = half; c < nlast; c++) {
                rr[c] = rr[nlast - c];
                ri[c] = -ri[nlast - c];
            }
        }
        if (!run_axis(x, &j, k - 1, batch, tw[k - 1], tw[k - 1] + nlast, true))
            goto nomem;
    } else {
        for (uint32_t a = k; a-- > 0;)
            if (!run_axis(x, &j, a, batch, tw[a], tw[a] + L->v[a], inverse))
                goto nomem;
    }
    plumb_dtype rt = yc ? plumb_dtype_component(Y->dtype) : Y->dtype;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t e = 0; e < yblk; e++) {
            int64_t s = b * bsize + (ft == IR_FFT_RFFT ? e / half * nlast + e % half : e);
            double re = bad[b] ? NAN : j.re[s], im = bad[b] ? NAN : j.im[s];
            size_t dst = (size_t)(b * yblk + e);
            if (yc)
                plumb_complex_store(Y->dtype, Y->data, dst, re, im);
            else if (rt == PLUMB_F32)
                ((float *)Y->data)[dst] = (float)re;
            else
                ((double *)Y->data)[dst] = re;
        }
    ok = true;
    goto out;
nomem:
    rt_fail(x, op, PLUMB_ERR_NOMEM, "no memory for an fft of %lld blocks of %lld elements", (long long)batch,
            (long long)bsize);
out:
    for (uint32_t i = 0; i < 3; i++)
        free(tw[i]);
    free(bad);
    free(j.re);
    free(j.im);
    return ok;
}
