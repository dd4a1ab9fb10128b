/* stablehlo.fft's verifier rules and error bound (docs/spec/fft.md).
 *
 * The rules are the StableHLO spec's C1-C5. Where the spec leaves a case
 * open, plumb follows XLA's shape inference and calls the program
 * unsupported rather than invalid: an FFT or IFFT whose transformed
 * dimensions differ from fft_length (the spec's C4 only ties fft_length to
 * a real operand or result; the transform of a length other than the
 * dimension's is not defined). */
#include <math.h>
#include <stdio.h>

#include "plumb/fft.h"

const char *ir_fft_type_name(ir_fft_type t)
{
    switch (t) {
    case IR_FFT_FFT: return "FFT";
    case IR_FFT_IFFT: return "IFFT";
    case IR_FFT_RFFT: return "RFFT";
    case IR_FFT_IRFFT: return "IRFFT";
    }
    return "FFT";
}

static bool dim_ok(int64_t a, int64_t b)
{
    return a == b || a == PLUMB_DIM_DYN || b == PLUMB_DIM_DYN;
}

plumb_code ir_fft_check(const ir_op *op, char *buf, size_t n)
{
    const ir_type *x = &op->operands[0]->type, *r = &op->results[0]->type;
    const ir_ints *L = &op->a.fft_length;
    ir_fft_type t = op->a.fft_type;
    const char *tn = ir_fft_type_name(t);
    /* C3 */
    if (L->n < 1 || L->n > 3) {
        snprintf(buf, n, "fft_length has %u entries (StableHLO C3: 1 <= size(fft_length) <= 3)", L->n);
        return PLUMB_ERR_INVALID;
    }
    for (uint32_t i = 0; i < L->n; i++)
        if (L->v[i] < 0) {
            snprintf(buf, n, "fft_length[%u] is %lld, negative", i, (long long)L->v[i]);
            return PLUMB_ERR_INVALID;
        }
    /* C1 */
    if (x->rank < L->n) {
        snprintf(buf, n, "operand has rank %u, less than size(fft_length) %u (StableHLO C1)", x->rank, L->n);
        return PLUMB_ERR_INVALID;
    }
    /* C2 */
    bool xc = plumb_dtype_is_complex(x->dtype), rc = plumb_dtype_is_complex(r->dtype);
    plumb_dtype xw = xc ? plumb_dtype_component(x->dtype) : x->dtype;
    plumb_dtype rw = rc ? plumb_dtype_component(r->dtype) : r->dtype;
    bool want_xc = t != IR_FFT_RFFT, want_rc = t != IR_FFT_IRFFT;
    if (xc != want_xc || rc != want_rc || xw != rw || (xw != PLUMB_F32 && xw != PLUMB_F64)) {
        snprintf(buf, n, "%s takes %s and gives %s of the same component type, not %s to %s (StableHLO C2)", tn,
                 want_xc ? "complex<f32>/complex<f64>" : "f32/f64", want_rc ? "complex" : "its real type",
                 plumb_dtype_name(x->dtype), plumb_dtype_name(r->dtype));
        return PLUMB_ERR_INVALID;
    }
    /* C5: the result's shape */
    if (r->rank != x->rank) {
        snprintf(buf, n, "result has rank %u, the operand %u (StableHLO C5)", r->rank, x->rank);
        return PLUMB_ERR_INVALID;
    }
    uint32_t R = x->rank, k = L->n;
    for (uint32_t d = 0; d + 1 < R; d++)
        if (!dim_ok(x->dims[d], r->dims[d])) {
            snprintf(buf, n, "result dimension %u is %lld, the operand's %lld (StableHLO C5)", d,
                     (long long)r->dims[d], (long long)x->dims[d]);
            return PLUMB_ERR_INVALID;
        }
    int64_t xl = x->dims[R - 1], rl = r->dims[R - 1];
    int64_t half_of = t == IR_FFT_RFFT ? xl : t == IR_FFT_IRFFT ? rl : PLUMB_DIM_DYN;
    int64_t half = half_of == PLUMB_DIM_DYN ? PLUMB_DIM_DYN : half_of == 0 ? 0 : half_of / 2 + 1;
    if ((t == IR_FFT_RFFT && !dim_ok(rl, half)) || (t == IR_FFT_IRFFT && !dim_ok(xl, half)) ||
        ((t == IR_FFT_FFT || t == IR_FFT_IFFT) && !dim_ok(xl, rl))) {
        snprintf(buf, n, "%s of last dimension %lld gives %lld (StableHLO C5: %s)", tn, (long long)xl, (long long)rl,
                 t == IR_FFT_RFFT ? "dim(result, -1) = dim(operand, -1) / 2 + 1"
                 : t == IR_FFT_IRFFT ? "dim(operand, -1) = dim(result, -1) / 2 + 1" : "the same");
        return PLUMB_ERR_INVALID;
    }
    /* C4: the real tensor's trailing dimensions are fft_length */
    const ir_type *real = t == IR_FFT_RFFT ? x : t == IR_FFT_IRFFT ? r : NULL;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t d = R - k + i;
        int64_t want = L->v[i];
        if (real && !dim_ok(real->dims[d], want)) {
            snprintf(buf, n, "%s dimension %u is %lld but fft_length[%u] is %lld (StableHLO C4)",
                     t == IR_FFT_RFFT ? "operand" : "result", d, (long long)real->dims[d], i, (long long)want);
            return PLUMB_ERR_INVALID;
        }
        /* the complex side of RFFT/IRFFT: every transformed dimension but
         * the last is the full length too (the spec's series of ffts) */
        const ir_type *cx = t == IR_FFT_RFFT ? r : x;
        if (i + 1 < k && !dim_ok(cx->dims[d], want)) {
            snprintf(buf, n, "%s dimension %u is %lld but fft_length[%u] is %lld",
                     cx == r ? "result" : "operand", d, (long long)cx->dims[d], i, (long long)want);
            return (t == IR_FFT_FFT || t == IR_FFT_IFFT) ? PLUMB_ERR_UNSUPPORTED : PLUMB_ERR_INVALID;
        }
        if (i + 1 == k && !real && !dim_ok(x->dims[d], want)) {
            snprintf(buf, n, "unsupported: %s over dimension %u of size %lld with fft_length[%u] = %lld "
                     "(plumb transforms whole dimensions, as XLA)", tn, d, (long long)x->dims[d], i, (long long)want);
            return PLUMB_ERR_UNSUPPORTED;
        }
    }
    return PLUMB_OK;
}

/* eta(p): one radix-p stage computed as twiddle products (|twiddle error|
 * <= mu) and a p-point DFT by direct summation, normwise relative to the
 * stage's output (the stage is sqrt(p) times a unitary map): Higham's
 * proof of Theorem 24.2 with his radix-2 butterfly's gamma_4 sqrt(2)
 * replaced by the p-term sum's sqrt(2p) gamma_{p+1} (|F_p| is the all-ones
 * matrix, of 2-norm p; complex products add sqrt(2) gamma_2). */
static double eta(int64_t p, double u, double mu)
{
    double g = (double)(p + 1) * u / (1.0 - (double)(p + 1) * u);
    return mu + sqrt(2.0 * (double)p) * g * (1.0 + mu);
}

/* The stage error of length m: its prime factors, each a stage. */
static double length_err(int64_t m, double u, double mu)
{
    double s = 0.0;
    for (int64_t p = 2; m > 1 && p * p <= m; p++)
        while (m % p == 0) {
            s += eta(p, u, mu);
            m /= p;
        }
    if (m > 1)
        s += eta(m, u, mu);
    return s;
}

double plumb_fft_bound(const int64_t *len, uint32_t n_len, ir_fft_type t, double u)
{
    double mu = u;   /* twiddles correctly rounded */
    double s = 0.0;
    for (uint32_t i = 0; i < n_len; i++) {
        s += length_err(len[i], u, mu);
        if (t == IR_FFT_IFFT || t == IR_FFT_IRFFT)
            s += u;   /* the 1/n scaling, rounded */
    }
    if (t == IR_FFT_RFFT || t == IR_FFT_IRFFT)
        s += eta(2, u, mu);   /* a real transform's packing stage */
    s += u;                   /* the result rounded to its type */
    return s < 1.0 ? s / (1.0 - s) : INFINITY;
}
