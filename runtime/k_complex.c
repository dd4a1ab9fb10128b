/* complex<f32> and complex<f64> on the runtime (docs/spec/complex.md).
 *
 * rt_run_kernel hands every op for which ir_complex_kernel holds to
 * rt_complex_run; data movement keeps the byte-copying kernels. The
 * arithmetic is the runtime's own, independent of the reference's MPFR
 * (ref/complex.c), and is certified against it within these bounds
 * (u = 2^-24 for complex<f32>, 2^-53 for complex<f64>):
 *
 *   add, subtract, negate, chlo.conj, compare, select, convert, iota, real, imag,
 *   maximum, minimum, clamp,
 *   complex                 exact (bitwise equal to the reference)
 *   multiply  complex<f32>  products exact in double, one double rounding
 *                           of ac - bd, then to f32: within 1 ULP per
 *                           component
 *                           (same-shape operands: vector lanes at AVX2
 *                           and AVX-512, the same operations, see
 *                           cmul_range)
 *             complex<f64>  Kahan's fma form of ac - bd and ad + bc:
 *                           relative error <= 2u per component
 *                           (Jeannerod, Louvet, Muller, "Further analysis
 *                           of Kahan's algorithm for the accurate
 *                           computation of 2x2 determinants", Math. Comp.
 *                           2013); products that overflow are redone in
 *                           long double
 *   divide                  the textbook formula in long double (c^2 + d^2
 *                           cannot overflow or underflow there), one
 *                           rounding per component: normwise relative error
 *                           <= 4u (componentwise error is not bounded for
 *                           any cheap division: a component can cancel)
 *   cbrt                    cbrtl(|z|) (cos, sin)(atan2l(b, a)/3):
 *                           normwise relative error <= 2u
 *   atan2                   the spec's -i log((x + iy)/sqrt(x^2 + y^2)) in
 *                           long double: within 3u normwise unless
 *                           x^2 + y^2 or x + iy cancels (not certified)
 *   logistic                1/d or e^z/d with d's real part a sum of
 *                           nonnegative terms (below) in long double:
 *                           normwise relative error <= 2u
 *   abs, sign, sqrt, rsqrt, exp, expm1, log, log1p, sin, cos, tan, tanh,
 *   chlo.asinh, asin, acos, atan, atanh, square
 *                           glibc's long double <complex.h> functions (or
 *                           the stable forms below), one rounding per
 *                           component: normwise relative error <= 4u
 *   power                   cpowl, exp(w log z): <= 64u while |w log z|
 *                           < 2^6 (its error grows with |w log z|)
 *   reduce (add), dot_general
 *                           accumulated in long double, one rounding per
 *                           component: the data bound of sums and dots
 *                           (docs/spec.md) applies per component
 *
 * Non-finite operands follow C11 Annex G through the same functions. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "rt_complex.h"

#if defined(__x86_64__)
#define CX_X86 1
#include <immintrin.h>
#else
#define CX_X86 0
#endif

typedef long double _Complex lz;

static lz mk(long double re, long double im)
{
    lz r;
    __real__ r = re;
    __imag__ r = im;
    return r;
}

static uint64_t bidx(const plumb_tensor *t, uint64_t i) { return plumb_tensor_numel(t) == 1 ? 0 : i; }

static lz ld(const plumb_tensor *t, uint64_t i)
{
    double re, im;
    plumb_complex_load(t->dtype, t->data, (size_t)i, &re, &im);
    return mk(re, im);
}

/* Stores z rounded once per component (long double -> f32 or f64). */
static void st(plumb_tensor *t, uint64_t i, lz z)
{
    if (t->dtype == PLUMB_C64) {
        float *p = (float *)t->data + 2 * i;
        p[0] = (float)creall(z);
        p[1] = (float)cimagl(z);
    } else {
        double *p = (double *)t->data + 2 * i;
        p[0] = (double)creall(z);
        p[1] = (double)cimagl(z);
    }
}

/* ---- element functions ---------------------------------------------------------- */

static void mul64(const float *x, const float *y, float *o)
{
    double a = x[0], b = x[1], c = y[0], d = y[1];
    if (isfinite(a) && isfinite(b) && isfinite(c) && isfinite(d)) {
        o[0] = (float)(a * c - b * d);   /* a*c, b*d exact in double */
        o[1] = (float)(a * d + b * c);
        return;
    }
    lz r = mk(a, b) * mk(c, d);   /* Annex G */
    o[0] = (float)creall(r);
    o[1] = (float)cimagl(r);
}

/* ab - cd with Kahan's fma form */
static double kahan(double a, double b, double c, double d)
{
    double w = c * d;
    double e = fma(c, d, -w);
    double f = fma(a, b, -w);
    return f - e;
}

static void mul128(const double *x, const double *y, double *o)
{
    double a = x[0], b = x[1], c = y[0], d = y[1];
    if (isfinite(a) && isfinite(b) && isfinite(c) && isfinite(d)) {
        double re = kahan(a, c, b, d), im = kahan(a, d, -b, c);
        if (isfinite(re) && isfinite(im)) {
            o[0] = re;
            o[1] = im;
            return;
        }
        /* a product overflowed: long double has the range */
        long double lre = (long double)a * c - (long double)b * d, lim = (long double)a * d + (long double)b * c;
        o[0] = (double)lre;
        o[1] = (double)lim;
        return;
    }
    lz r = mk(a, b) * mk(c, d);
    o[0] = (double)creall(r);
    o[1] = (double)cimagl(r);
}

static lz cdiv(lz x, lz y)
{
    long double a = creall(x), b = cimagl(x), c = creall(y), d = cimagl(y);
    if (!isfinite(a) || !isfinite(b) || !isfinite(c) || !isfinite(d) || (c == 0 && d == 0))
        return x / y;   /* Annex G */
    long double den = c * c + d * d;
    return mk((a * c + b * d) / den, (b * c - a * d) / den);
}

static lz unary(plumb_opcode code, lz z)
{
    long double a = creall(z), b = cimagl(z);
    bool fin = isfinite(a) && isfinite(b);
    switch (code) {
    case PLUMB_OP_NEGATE: return mk(-a, -b);
    case PLUMB_OP_CONJ: return mk(a, -b);
    case PLUMB_OP_ABS: return mk(hypotl(a, b), 0);
    case PLUMB_OP_SIGN:
        if (isnan(a) || isnan(b))
            return mk(NAN, NAN);
        if (a == 0 && b == 0)
            return z;
        return z / hypotl(a, b);
    case PLUMB_OP_SQRT: return csqrtl(z);
    case PLUMB_OP_RSQRT: {
        if (!fin || (a == 0 && b == 0))
            return 1.0L / csqrtl(z);
        lz s = csqrtl(z);
        long double h = hypotl(a, b);   /* 1/sqrt(z) = conj(sqrt(z)) / |z| */
        return mk(creall(s) / h, -cimagl(s) / h);
    }
    case PLUMB_OP_EXPONENTIAL: return cexpl(z);
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: {
        if (!fin)
            return cexpl(z) - 1.0L;
        if (b == 0)
            return mk(expm1l(a), b);
        long double s = sinl(b / 2);
        return mk(expm1l(a) * cosl(b) - 2 * s * s, expl(a) * sinl(b));
    }
    case PLUMB_OP_CBRT: {
        /* the principal root |z|^(1/3) e^(i arg(z)/3), as StableHLO's
         * interpreter forms it (a real times a complex) */
        long double m = cbrtl(hypotl(a, b)), th = atan2l(b, a) / 3;
        return mk(m * cosl(th), m * sinl(th));
    }
    case PLUMB_OP_LOGISTIC: {
        if (!fin)
            return 1.0L / (1.0L + cexpl(-z));
        /* 1/(1 + e^-z) for a >= 0, e^z/(1 + e^z) below: with t = -|a| the
         * denominator's real part -expm1(t) + 2 e^t cos^2(b/2) adds
         * nonnegative terms and e^t <= 1, so nothing cancels or overflows
         * next to the poles i pi (2k + 1) or for large |a| */
        bool neg = a < 0;
        long double t = -fabsl(a), e = expl(t), h = cosl(b / 2);
        long double dr = -expm1l(t) + 2 * e * h * h, di = (neg ? e : -e) * sinl(b);
        long double q = dr * dr + di * di, ir = dr / q, ii = -di / q;
        if (!neg)
            return mk(ir, ii);
        long double nr = e * cosl(b), ni = e * sinl(b);
        return mk(nr * ir - ni * ii, nr * ii + ni * ir);
    }
    case PLUMB_OP_LOG: return clogl(z);
    case PLUMB_OP_LOG_PLUS_ONE: {
        if (!fin || (a == -1 && b == 0))
            return clogl(1.0L + z);
        /* near z = -1, 1 + a is exact (Sterbenz) and |1 + z| is hypot(1 + a, b):
         * 2a + a^2 + b^2 would lose a tiny b against -1 (log1p(-1 + 1e-45i)
         * gave -inf, not -103.3) */
        if (a >= -2 && a <= -0.5L)
            return mk(logl(hypotl(1 + a, b)), atan2l(b, 1 + a));
        /* |1 + z|^2 - 1 = 2a + a^2 + b^2 without cancelling against 1 */
        return mk(0.5L * log1pl(2 * a + a * a + b * b), atan2l(b, 1 + a));
    }
    case PLUMB_OP_SINE: return csinl(z);
    case PLUMB_OP_COSINE: return ccosl(z);
    case PLUMB_OP_TAN: return ctanl(z);
    case PLUMB_OP_TANH: return ctanhl(z);
    case PLUMB_OP_ASINH: return casinhl(z);
    case PLUMB_OP_ASIN: return casinl(z);
    case PLUMB_OP_ACOS: return cacosl(z);
    case PLUMB_OP_ATAN: return catanl(z);
    case PLUMB_OP_ATANH: return catanhl(z);
    case PLUMB_OP_COSH: return ccoshl(z);
    case PLUMB_OP_SINH: return csinhl(z);
    case PLUMB_OP_ACOSH: return cacoshl(z);
    case PLUMB_OP_SQUARE:
        if (!fin)
            return z * z;   /* Annex G's infinities, as the reference's z*z: (inf, NaN)^2 has real part inf */
        return mk(a * a - b * b, 2 * a * b);   /* a*a, b*b exact in long double for f32 parts */
    default: return mk(NAN, NAN);
    }
}

/* ---- vector multiply ------------------------------------------------------------------ */

/* Elementwise multiply of two same-shape tensors, n elements from i0:
 * the lanes do mul64's and mul128's operations on finite inputs (complex<f32>:
 * the products exact in double, ac - bd and bc + ad rounded once in
 * double, then to f32; complex<f64>: Kahan's fma form per component, the
 * same fma and subtractions), so the same bits; a block with a non-finite
 * input (or, complex<f64>, a non-finite result) is redone by mul64 /
 * mul128. */
static void cmul64_portable(const float *a, const float *b, float *o, uint64_t i0, uint64_t n)
{
    for (uint64_t i = i0; i < i0 + n; i++) mul64(a + 2 * i, b + 2 * i, o + 2 * i);
}

static void cmul128_portable(const double *a, const double *b, double *o, uint64_t i0, uint64_t n)
{
    for (uint64_t i = i0; i < i0 + n; i++) mul128(a + 2 * i, b + 2 * i, o + 2 * i);
}

#if CX_X86
#define CX_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#define CX_AVX2 __attribute__((target("avx2,fma")))

/* [a b] x [c d] for four complex in f32-exact doubles: [ac - bd, bc + ad] */
CX_AVX512 static inline __m512d cmul64_pd8(__m512d x, __m512d y)
{
    __m512d t1 = _mm512_mul_pd(x, _mm512_movedup_pd(y));                          /* [ac, bc] */
    __m512d t2 = _mm512_mul_pd(_mm512_permute_pd(x, 0x55), _mm512_permute_pd(y, 0xff)); /* [bd, ad] */
    return _mm512_mask_add_pd(_mm512_sub_pd(t1, t2), 0xaa, t1, t2);
}

CX_AVX512 static void cmul64_avx512(const float *a, const float *b, float *o, uint64_t i0, uint64_t n)
{
    uint64_t i = i0, end = i0 + n;
    for (; i + 8 <= end; i += 8) {
        __m512 va = _mm512_loadu_ps(a + 2 * i), vb = _mm512_loadu_ps(b + 2 * i);
        /* QNaN, +inf, -inf, SNaN */
        if (_mm512_fpclass_ps_mask(va, 0x99) | _mm512_fpclass_ps_mask(vb, 0x99)) {
            cmul64_portable(a, b, o, i, 8);
            continue;
        }
        __m512d lo = cmul64_pd8(_mm512_cvtps_pd(_mm512_castps512_ps256(va)), _mm512_cvtps_pd(_mm512_castps512_ps256(vb)));
        __m512d hi = cmul64_pd8(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(va), 1))),
                                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(vb), 1))));
        __m512 r = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo))),
                                                       _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
        _mm512_storeu_ps(o + 2 * i, r);
    }
    cmul64_portable(a, b, o, i, end - i);
}

CX_AVX512 static void cmul128_avx512(const double *a, const double *b, double *o, uint64_t i0, uint64_t n)
{
    uint64_t i = i0, end = i0 + n;
    const __m512d negodd = _mm512_castsi512_pd(_mm512_set_epi64(INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0));
    for (; i + 4 <= end; i += 4) {
        __m512d x = _mm512_loadu_pd(a + 2 * i), y = _mm512_loadu_pd(b + 2 * i);
        /* kahan(p, q, r, s) = p q - r s per lane: re (a, c, b, d), im (a, d, -b, c) */
        __m512d p = _mm512_movedup_pd(x), q = y;
        __m512d r = _mm512_xor_pd(_mm512_permute_pd(x, 0xff), negodd), sv = _mm512_permute_pd(y, 0x55);
        __m512d w = _mm512_mul_pd(r, sv);
        __m512d e = _mm512_fmsub_pd(r, sv, w), f = _mm512_fmsub_pd(p, q, w);
        __m512d res = _mm512_sub_pd(f, e);
        if (_mm512_fpclass_pd_mask(x, 0x99) | _mm512_fpclass_pd_mask(y, 0x99) | _mm512_fpclass_pd_mask(res, 0x99)) {
            cmul128_portable(a, b, o, i, 4);
            continue;
        }
        _mm512_storeu_pd(o + 2 * i, res);
    }
    cmul128_portable(a, b, o, i, end - i);
}

/* true where a lane is NaN or infinite */
CX_AVX2 static inline int nonfin_ps8(__m256 v)
{
    __m256 m = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
    return _mm256_movemask_ps(_mm256_cmp_ps(m, _mm256_set1_ps(INFINITY), _CMP_NLT_UQ));
}

CX_AVX2 static inline int nonfin_pd4(__m256d v)
{
    __m256d m = _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX)));
    return _mm256_movemask_pd(_mm256_cmp_pd(m, _mm256_set1_pd(INFINITY), _CMP_NLT_UQ));
}

CX_AVX2 static inline __m256d cmul64_pd4(__m256d x, __m256d y)
{
    __m256d t1 = _mm256_mul_pd(x, _mm256_movedup_pd(y));
    __m256d t2 = _mm256_mul_pd(_mm256_permute_pd(x, 0x5), _mm256_permute_pd(y, 0xf));
    return _mm256_addsub_pd(t1, t2);
}

CX_AVX2 static void cmul64_avx2(const float *a, const float *b, float *o, uint64_t i0, uint64_t n)
{
    uint64_t i = i0, end = i0 + n;
    for (; i + 4 <= end; i += 4) {
        __m256 va = _mm256_loadu_ps(a + 2 * i), vb = _mm256_loadu_ps(b + 2 * i);
        if (nonfin_ps8(va) | nonfin_ps8(vb)) {
            cmul64_portable(a, b, o, i, 4);
            continue;
        }
        __m256d lo = cmul64_pd4(_mm256_cvtps_pd(_mm256_castps256_ps128(va)), _mm256_cvtps_pd(_mm256_castps256_ps128(vb)));
        __m256d hi = cmul64_pd4(_mm256_cvtps_pd(_mm256_extractf128_ps(va, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(vb, 1)));
        _mm256_storeu_ps(o + 2 * i, _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1));
    }
    cmul64_portable(a, b, o, i, end - i);
}

CX_AVX2 static void cmul128_avx2(const double *a, const double *b, double *o, uint64_t i0, uint64_t n)
{
    uint64_t i = i0, end = i0 + n;
    const __m256d negodd = _mm256_castsi256_pd(_mm256_set_epi64x(INT64_MIN, 0, INT64_MIN, 0));
    for (; i + 2 <= end; i += 2) {
        __m256d x = _mm256_loadu_pd(a + 2 * i), y = _mm256_loadu_pd(b + 2 * i);
        __m256d p = _mm256_movedup_pd(x), q = y;
        __m256d r = _mm256_xor_pd(_mm256_permute_pd(x, 0xf), negodd), sv = _mm256_permute_pd(y, 0x5);
        __m256d w = _mm256_mul_pd(r, sv);
        __m256d e = _mm256_fmsub_pd(r, sv, w), f = _mm256_fmsub_pd(p, q, w);
        __m256d res = _mm256_sub_pd(f, e);
        if (nonfin_pd4(x) | nonfin_pd4(y) | nonfin_pd4(res)) {
            cmul128_portable(a, b, o, i, 2);
            continue;
        }
        _mm256_storeu_pd(o + 2 * i, res);
    }
    cmul128_portable(a, b, o, i, end - i);
}
#endif

typedef struct cmul_job {
    const void *a, *b;
    void *o;
    bool c64;
    int isa;
} cmul_job;

static void cmul_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const cmul_job *j = ctx;
    uint64_t n = end - begin;
#if CX_X86
    if (j->isa >= PLUMB_ISA_AVX512) {
        if (j->c64) cmul64_avx512(j->a, j->b, j->o, begin, n);
        else cmul128_avx512(j->a, j->b, j->o, begin, n);
        return;
    }
    if (j->isa >= PLUMB_ISA_AVX2) {
        if (j->c64) cmul64_avx2(j->a, j->b, j->o, begin, n);
        else cmul128_avx2(j->a, j->b, j->o, begin, n);
        return;
    }
#endif
    if (j->c64) cmul64_portable(j->a, j->b, j->o, begin, n);
    else cmul128_portable(j->a, j->b, j->o, begin, n);
}

/* ---- kernels ---------------------------------------------------------------------- */

static bool ew(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    uint64_t n = plumb_tensor_numel(r);
    plumb_dtype t = in[0]->dtype;
    if (op->n_operands == 2 && plumb_tensor_numel(in[0]) == n && plumb_tensor_numel(in[1]) == n &&
        (op->code == PLUMB_OP_ADD || op->code == PLUMB_OP_SUBTRACT)) {
        /* componentwise: one loop over 2n components, which vectorizes */
        bool add = op->code == PLUMB_OP_ADD;
        if (t == PLUMB_C64) {
            const float *a = in[0]->data, *b = in[1]->data;
            float *o = r->data;
            for (uint64_t i = 0; i < 2 * n; i++)
                o[i] = add ? a[i] + b[i] : a[i] - b[i];
        } else {
            const double *a = in[0]->data, *b = in[1]->data;
            double *o = r->data;
            for (uint64_t i = 0; i < 2 * n; i++)
                o[i] = add ? a[i] + b[i] : a[i] - b[i];
        }
        return true;
    }
    if (op->n_operands == 2 && plumb_tensor_numel(in[0]) == n && plumb_tensor_numel(in[1]) == n &&
        op->code == PLUMB_OP_MULTIPLY) {
        cmul_job j = {.a = in[0]->data, .b = in[1]->data, .o = r->data, .c64 = t == PLUMB_C64, .isa = (int)rt_isa(x)};
        if (n) rt_parallel_for(x, n, 1 << 14, cmul_range, &j);
        return true;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (op->n_operands == 1) {
            lz v = unary(plumb_op_semantic(op->code), ld(in[0], bidx(in[0], i)));   /* chlo.tan is tan */
            if (op->code == PLUMB_OP_ABS) {
                if (r->dtype == PLUMB_F32)
                    ((float *)r->data)[i] = (float)creall(v);
                else
                    ((double *)r->data)[i] = (double)creall(v);
            } else {
                st(r, i, v);
            }
            continue;
        }
        uint64_t ia = bidx(in[0], i), ib = bidx(in[1], i);
        switch (op->code) {
        case PLUMB_OP_ADD:
        case PLUMB_OP_SUBTRACT: {
            bool add = op->code == PLUMB_OP_ADD;
            if (t == PLUMB_C64) {
                const float *a = (const float *)in[0]->data + 2 * ia, *b = (const float *)in[1]->data + 2 * ib;
                float *o = (float *)r->data + 2 * i;
                o[0] = add ? a[0] + b[0] : a[0] - b[0];
                o[1] = add ? a[1] + b[1] : a[1] - b[1];
            } else {
                const double *a = (const double *)in[0]->data + 2 * ia, *b = (const double *)in[1]->data + 2 * ib;
                double *o = (double *)r->data + 2 * i;
                o[0] = add ? a[0] + b[0] : a[0] - b[0];
                o[1] = add ? a[1] + b[1] : a[1] - b[1];
            }
            break;
        }
        case PLUMB_OP_MULTIPLY:
            if (t == PLUMB_C64)
                mul64((const float *)in[0]->data + 2 * ia, (const float *)in[1]->data + 2 * ib, (float *)r->data + 2 * i);
            else
                mul128((const double *)in[0]->data + 2 * ia, (const double *)in[1]->data + 2 * ib,
                       (double *)r->data + 2 * i);
            break;
        case PLUMB_OP_DIVIDE:
            st(r, i, cdiv(ld(in[0], ia), ld(in[1], ib)));
            break;
        case PLUMB_OP_ATAN2: {
            /* the spec's atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)),
             * y the lhs, in long double */
            lz yy = ld(in[0], ia), xx = ld(in[1], ib);
            st(r, i, -I * clogl((xx + I * yy) / csqrtl(xx * xx + yy * yy)));
            break;
        }
        case PLUMB_OP_POWER: {
            lz zz = ld(in[0], ia), w = ld(in[1], ib);
            st(r, i, cpowl(zz, w));
            break;
        }
        default:
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "unsupported: %s on %s", plumb_op_name(op->code),
                           plumb_dtype_name(t));
        }
    }
    return true;
}

/* Lexicographic on (real, imag), IEEE quiet per component (the spec's
 * compare on complex): the real parts decide unless they are equal. */
static bool compare(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)x;
    uint64_t n = plumb_tensor_numel(out[0]);
    uint8_t *o = out[0]->data;
    ir_cmp_dir dir = op->a.cmp_dir;
    for (uint64_t i = 0; i < n; i++) {
        lz a = ld(in[0], bidx(in[0], i)), b = ld(in[1], bidx(in[1], i));
        long double ar = creall(a), br = creall(b), ai = cimagl(a), bi = cimagl(b);
        bool eq = ar == br && ai == bi;
        if (dir == IR_CMP_EQ) o[i] = eq;
        else if (dir == IR_CMP_NE) o[i] = !eq;
        else if (dir == IR_CMP_LT) o[i] = ar < br || (ar == br && ai < bi);
        else if (dir == IR_CMP_LE) o[i] = ar < br || (ar == br && ai <= bi);
        else if (dir == IR_CMP_GT) o[i] = ar > br || (ar == br && ai > bi);
        else o[i] = ar > br || (ar == br && ai >= bi);
    }
    return true;
}

/* convert, through doubles as the reference does (ref/complex.c): a long
 * double detour would quiet a signalling NaN that an f64 -> complex<f64> or
 * complex<f64> -> complex<f64> convert must keep bit for bit (the spec's
 * payload rule for conversions that do not round). complex -> complex rounds
 * each component once; real -> complex gives (x, +0), x rounded once to the
 * component type; complex -> float keeps the real part, rounded once, and
 * complex -> integer or i1 converts the real part as the reference does. */
static bool convert(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *s = in[0], *r = out[0];
    uint64_t n = plumb_tensor_numel(r);
    bool cin = plumb_dtype_is_complex(s->dtype), cout = plumb_dtype_is_complex(r->dtype);
    bool c64 = cout && plumb_dtype_component(r->dtype) == PLUMB_F32;
    for (uint64_t i = 0; i < n; i++) {
        double re, im = 0;
        if (cin) {
            plumb_complex_load(s->dtype, s->data, (size_t)i, &re, &im);
        } else if (plumb_dtype_is_signed(s->dtype) || plumb_dtype_is_bool(s->dtype)) {
            int64_t v = plumb_load_i64(s->dtype, s->data, (size_t)i);
            re = c64 ? (double)(float)v : (double)v;
        } else if (plumb_dtype_is_unsigned(s->dtype)) {
            uint64_t v = plumb_load_u64(s->dtype, s->data, (size_t)i);
            re = c64 ? (double)(float)v : (double)v;
        } else {
            re = plumb_load_f64(s->dtype, s->data, (size_t)i);   /* exact */
        }
        if (cout) {
            if (c64) {
                re = (float)re;
                im = (float)im;
            }
            plumb_complex_store(r->dtype, r->data, (size_t)i, re, im);
            continue;
        }
        uint64_t bits;
        switch (r->dtype) {
        case PLUMB_F16: bits = plumb_f64_to_f16(re); break;
        case PLUMB_BF16: bits = plumb_f64_to_bf16(re); break;
        case PLUMB_F32: bits = plumb_f32_bits((float)re); break;
        case PLUMB_F64: bits = plumb_f64_bits(re); break;
        default:
            if (plumb_fpfmt_get(r->dtype) || plumb_dtype_is_int(r->dtype) || plumb_dtype_is_bool(r->dtype)) {
                /* the small floats: the shared codec rounds the exact double
                 * once; integers and i1 by its float -> int and x != 0 rules */
                bits = plumb_lowp_convert_bits(PLUMB_F64, r->dtype, plumb_f64_bits(re));
                break;
            }
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "unsupported: convert from %s to %s",
                           plumb_dtype_name(s->dtype), plumb_dtype_name(r->dtype));
        }
        plumb_store_bits(r->dtype, r->data, (size_t)i, bits);
    }
    return true;
}

static bool select_op(const plumb_tensor *const *in, plumb_tensor *const *out)
{
    size_t es = plumb_dtype_size(out[0]->dtype);
    uint64_t n = plumb_tensor_numel(out[0]);
    const uint8_t *p = in[0]->data;
    for (uint64_t i = 0; i < n; i++) {
        const plumb_tensor *s = p[bidx(in[0], i)] ? in[1] : in[2];
        memcpy((uint8_t *)out[0]->data + i * es, (const uint8_t *)s->data + bidx(s, i) * es, es);
    }
    return true;
}

static bool iota(rt_exec *x, const ir_op *op, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    int64_t d = op->a.dimension;
    if (d < 0 || (uint64_t)d >= r->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "iota_dimension %lld is out of range", (long long)d);
    uint64_t inner = 1;
    for (uint32_t k = (uint32_t)d + 1; k < r->rank; k++)
        inner *= (uint64_t)r->dims[k];
    uint64_t n = plumb_tensor_numel(r), dd = (uint64_t)r->dims[d];
    for (uint64_t i = 0; i < n; i++)
        st(r, i, mk((long double)((i / inner) % dd), 0));
    return true;
}

/* Row-major multi-index helpers. */
static void unravel(uint64_t lin, uint32_t rank, const int64_t *dims, int64_t *idx)
{
    for (uint32_t i = rank; i-- > 0;) {
        idx[i] = dims[i] ? (int64_t)(lin % (uint64_t)dims[i]) : 0;
        lin = dims[i] ? lin / (uint64_t)dims[i] : 0;
    }
}

static uint64_t ravel(uint32_t rank, const int64_t *dims, const int64_t *idx)
{
    uint64_t lin = 0;
    for (uint32_t i = 0; i < rank; i++)
        lin = lin * (uint64_t)dims[i] + (uint64_t)idx[i];
    return lin;
}

static bool add_body(const ir_op *op)
{
    const ir_block *b = &op->regions[0];
    if (op->n_operands != 2 || b->n_args != 2 || b->n_ops != 2 || !b->first || !b->first->next)
        return false;
    const ir_op *x = b->first, *ret = x->next;
    if (x->code != PLUMB_OP_ADD || ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 ||
        ret->operands[0] != x->results[0] || x->n_operands != 2)
        return false;
    return (x->operands[0] == b->args[0] && x->operands[1] == b->args[1]) ||
           (x->operands[0] == b->args[1] && x->operands[1] == b->args[0]);
}

static bool reduce(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n_in = op->n_operands / 2;
    const plumb_tensor *x0 = in[0];
    bool red[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= x0->rank)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "reduce dimension %lld is out of range", (long long)d);
        red[d] = true;
    }
    int64_t kd[PLUMB_MAX_RANK], rd[PLUMB_MAX_RANK], ko[PLUMB_MAX_RANK], ro[PLUMB_MAX_RANK], full[PLUMB_MAX_RANK];
    uint32_t nk = 0, nr = 0;
    for (uint32_t d = 0; d < x0->rank; d++) {
        if (red[d])
            rd[nr++] = x0->dims[d];
        else
            kd[nk++] = x0->dims[d];
    }
    uint64_t n_out = plumb_tensor_numel(out[0]), n_red = 1;
    for (uint32_t i = 0; i < nr; i++)
        n_red *= (uint64_t)rd[i];
    if (n_in == 1 && plumb_dtype_is_complex(x0->dtype) && add_body(op)) {
        for (uint64_t o = 0; o < n_out; o++) {
            unravel(o, nk, kd, ko);
            lz acc = ld(in[1], 0);
            for (uint64_t k = 0; k < n_red; k++) {
                unravel(k, nr, rd, ro);
                for (uint32_t d = 0, a = 0, b = 0; d < x0->rank; d++)
                    full[d] = red[d] ? ro[a++] : ko[b++];
                acc += ld(x0, ravel(x0->rank, x0->dims, full));
            }
            st(out[0], o, acc);
        }
        return true;
    }
    const ir_block *body = &op->regions[0];
    if (n_in > 8 || body->n_args != 2 * n_in)
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "unsupported: a reduce of %u complex inputs", n_in);
    plumb_tensor args[16], res[8];
    unsigned char abuf[16][16], rbuf[8][16];
    plumb_tensor *argp[16], *resp[8];
    for (uint32_t k = 0; k < 2 * n_in; k++) {
        memset(&args[k], 0, sizeof args[k]);
        args[k].dtype = in[k % n_in]->dtype;
        args[k].nbytes = plumb_dtype_size(args[k].dtype);
        args[k].data = abuf[k];
        argp[k] = &args[k];
    }
    for (uint32_t k = 0; k < n_in; k++) {
        memset(&res[k], 0, sizeof res[k]);
        res[k].dtype = out[k]->dtype;
        res[k].nbytes = plumb_dtype_size(res[k].dtype);
        res[k].data = rbuf[k];
        resp[k] = &res[k];
    }
    for (uint64_t o = 0; o < n_out; o++) {
        unravel(o, nk, kd, ko);
        for (uint32_t k = 0; k < n_in; k++)
            memcpy(abuf[k], in[n_in + k]->data, args[k].nbytes);
        for (uint64_t j = 0; j < n_red; j++) {
            unravel(j, nr, rd, ro);
            for (uint32_t d = 0, a = 0, b = 0; d < x0->rank; d++)
                full[d] = red[d] ? ro[a++] : ko[b++];
            uint64_t off = ravel(x0->rank, x0->dims, full);
            for (uint32_t k = 0; k < n_in; k++)
                memcpy(abuf[n_in + k], (const unsigned char *)in[k]->data + off * args[k].nbytes, args[k].nbytes);
            if (!rt_eval_region(x, body, argp, resp))
                return false;
            for (uint32_t k = 0; k < n_in; k++)
                memcpy(abuf[k], rbuf[k], args[k].nbytes);
        }
        for (uint32_t k = 0; k < n_in; k++)
            memcpy((unsigned char *)out[k]->data + o * args[k].nbytes, abuf[k], args[k].nbytes);
    }
    return true;
}

static long double ld_real(const plumb_tensor *t, uint64_t i) { return plumb_load_f64(t->dtype, t->data, (size_t)i); }

static bool dot_general(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)x;
    const plumb_tensor *l = in[0], *r = in[1];
    plumb_tensor *o = out[0];
    static const int64_t zero = 0, one = 1;
    ir_ints none = {0}, l1 = {0}, r0 = {0};
    const ir_ints *lb = &op->a.lhs_batch, *rb = &op->a.rhs_batch, *lc = &op->a.lhs_contract, *rc = &op->a.rhs_contract;
    if (op->code == PLUMB_OP_DOT) {
        l1.n = 1;
        l1.v = (int64_t *)(l->rank == 2 ? &one : &zero);
        r0.n = 1;
        r0.v = (int64_t *)&zero;
        lb = rb = &none;
        lc = &l1;
        rc = &r0;
    }
    bool lu[PLUMB_MAX_RANK] = {false}, ru[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < lb->n; i++) lu[lb->v[i]] = true;
    for (uint32_t i = 0; i < lc->n; i++) lu[lc->v[i]] = true;
    for (uint32_t i = 0; i < rb->n; i++) ru[rb->v[i]] = true;
    for (uint32_t i = 0; i < rc->n; i++) ru[rc->v[i]] = true;
    uint32_t lfree[PLUMB_MAX_RANK], rfree[PLUMB_MAX_RANK], nlf = 0, nrf = 0;
    for (uint32_t d = 0; d < l->rank; d++) if (!lu[d]) lfree[nlf++] = d;
    for (uint32_t d = 0; d < r->rank; d++) if (!ru[d]) rfree[nrf++] = d;
    int64_t cd[PLUMB_MAX_RANK], ci[PLUMB_MAX_RANK], oi[PLUMB_MAX_RANK], li[PLUMB_MAX_RANK], ri[PLUMB_MAX_RANK];
    uint64_t nc = 1;
    for (uint32_t i = 0; i < lc->n; i++) {
        cd[i] = l->dims[lc->v[i]];
        nc *= (uint64_t)cd[i];
    }
    bool lcx = plumb_dtype_is_complex(l->dtype), rcx = plumb_dtype_is_complex(r->dtype);
    uint64_t n = plumb_tensor_numel(o);
    for (uint64_t e = 0; e < n; e++) {
        unravel(e, o->rank, o->dims, oi);
        uint32_t p = 0;
        for (uint32_t i = 0; i < lb->n; i++, p++) {
            li[lb->v[i]] = oi[p];
            ri[rb->v[i]] = oi[p];
        }
        for (uint32_t i = 0; i < nlf; i++, p++) li[lfree[i]] = oi[p];
        for (uint32_t i = 0; i < nrf; i++, p++) ri[rfree[i]] = oi[p];
        lz acc = 0;
        for (uint64_t k = 0; k < nc; k++) {
            unravel(k, lc->n, cd, ci);
            for (uint32_t i = 0; i < lc->n; i++) {
                li[lc->v[i]] = ci[i];
                ri[rc->v[i]] = ci[i];
            }
            uint64_t lo = ravel(l->rank, l->dims, li), ro2 = ravel(r->rank, r->dims, ri);
            lz a = lcx ? ld(l, lo) : mk(ld_real(l, lo), 0);
            lz b = rcx ? ld(r, ro2) : mk(ld_real(r, ro2), 0);
            /* the textbook product: Annex G's recovery is for single products */
            acc += mk(creall(a) * creall(b) - cimagl(a) * cimagl(b), creall(a) * cimagl(b) + cimagl(a) * creall(b));
        }
        st(o, e, acc);
    }
    return true;
}

/* maximum, minimum, clamp: StableHLO's interpreter orders complex values
 * lexicographically, real part first, with IEEE quiet compares (a NaN
 * component loses to the other operand; -0 and +0 tie); clamp(lo, x, hi)
 * = min(max(x, lo), hi). Returns the index (0 or 1) of the operand chosen;
 * the kernel copies that element whole, so the result is exact. */
static int pick_max(const double *a, const double *b)
{
    return (a[0] == b[0] ? a[1] > b[1] : a[0] > b[0]) ? 0 : 1;
}

static int pick_min(const double *a, const double *b)
{
    return (a[0] == b[0] ? a[1] < b[1] : a[0] < b[0]) ? 0 : 1;
}

static void comp(const plumb_tensor *t, uint64_t i, double *v)
{
    if (t->dtype == PLUMB_C64) {
        const float *p = (const float *)t->data + 2 * i;
        v[0] = p[0];
        v[1] = p[1];
    } else {
        memcpy(v, (const double *)t->data + 2 * i, 2 * sizeof(double));
    }
}

static bool minmax(const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    size_t es = r->dtype == PLUMB_C64 ? 8 : 16;
    uint64_t n = plumb_tensor_numel(r);
    for (uint64_t i = 0; i < n; i++) {
        const plumb_tensor *src;
        uint64_t si;
        if (op->code == PLUMB_OP_CLAMP) {
            double lo[2], v[2], hi[2];
            uint64_t il = bidx(in[0], i), ix = bidx(in[1], i), ih = bidx(in[2], i);
            comp(in[0], il, lo);
            comp(in[1], ix, v);
            comp(in[2], ih, hi);
            bool keep_x = pick_max(v, lo) == 0;
            const double *m = keep_x ? v : lo;
            if (pick_min(m, hi) == 0) {
                src = keep_x ? in[1] : in[0];
                si = keep_x ? ix : il;
            } else {
                src = in[2];
                si = ih;
            }
        } else {
            double a[2], b[2];
            uint64_t ia = bidx(in[0], i), ib = bidx(in[1], i);
            comp(in[0], ia, a);
            comp(in[1], ib, b);
            int k = op->code == PLUMB_OP_MAXIMUM ? pick_max(a, b) : pick_min(a, b);
            src = in[k];
            si = k ? ib : ia;
        }
        memcpy((char *)r->data + i * es, (const char *)src->data + si * es, es);
    }
    return true;
}

bool rt_complex_run(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    switch (op->code) {
    case PLUMB_OP_MAXIMUM:
    case PLUMB_OP_MINIMUM:
    case PLUMB_OP_CLAMP: return minmax(op, in, out);
    case PLUMB_OP_COMPARE: return compare(x, op, in, out);
    case PLUMB_OP_CONVERT: return convert(x, op, in, out);
    case PLUMB_OP_SELECT: return select_op((const plumb_tensor *const *)in, out);
    case PLUMB_OP_IOTA: return iota(x, op, out);
    case PLUMB_OP_REDUCE: return reduce(x, op, in, out);
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_DOT: return dot_general(x, op, in, out);
    default: return ew(x, op, in, out);
    }
}

/* ---- complex, real, imag -------------------------------------------------------------- */

bool rt_op_COMPLEX(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)x;
    (void)op;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++)
        st(out[0], i, mk(ld_real(in[0], bidx(in[0], i)), ld_real(in[1], bidx(in[1], i))));
    return true;
}

static bool part(plumb_tensor *const *in, plumb_tensor *const *out, bool imag)
{
    const plumb_tensor *s = in[0];
    plumb_tensor *r = out[0];
    uint64_t n = plumb_tensor_numel(r);
    size_t es = plumb_dtype_size(r->dtype);
    if (!plumb_dtype_is_complex(s->dtype)) {
        if (imag && n)
            memset(r->data, 0, n * es);   /* +0 in f32 and f64; an empty tensor has no data */
        else if (n)
            memcpy(r->data, s->data, n * es);
        return true;
    }
    for (uint64_t i = 0; i < n; i++)
        memcpy((uint8_t *)r->data + i * es, (const uint8_t *)s->data + (2 * i + imag) * es, es);
    return true;
}

bool rt_op_REAL(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)x;
    (void)op;
    return part(in, out, false);
}

bool rt_op_IMAG(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)x;
    (void)op;
    return part(in, out, true);
}
