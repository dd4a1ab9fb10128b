/* Agreement of triangular_solve and cholesky (docs/spec/linalg.md,
 * "Bounds"). All bound arithmetic runs in long double on values that are
 * exact in it; the long double evaluation's own error (relative 2^-63 per
 * operation, at most a few times n of them) is covered by the factor
 * EVAL_SLACK on every bound.
 *
 * u is the unit roundoff of the result type, eta its smallest subnormal,
 * gamma(k) = k u / (1 - k u) (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., §3.1).
 *
 * complex<f32>/complex<f64>: every |.| is the modulus, and the operation
 * counts grow by Higham §3.6 (Lemma 3.5): a complex sum is one rounding of
 * relative size <= u, a product xy has |delta| <= sqrt(2) gamma(2) <=
 * gamma(3), a quotient x/y |delta| <= sqrt(2) gamma(4) (the textbook
 * formula); plumb allows gamma(10) for a quotient, room for the scaled
 * (Smith-type) divisions C libraries use. Lemma 3.3 composes them like the
 * real roundings (its proof holds for complex deltas), so Theorem 8.5's
 * gamma(n) becomes gamma(n + 12) (n - 1 sums, one product: +2, one
 * quotient: +9, per term) and Theorem 10.3's gamma(n + 1) becomes
 * gamma(n + 4) (off the diagonal a product, +2, and a division by the real
 * pivot, one rounding per component, |delta| <= u; on it |l|^2 = re^2 +
 * im^2, one more rounding than l^2). A complex result rounded once per
 * component is within u of the value in modulus, as a real one.
 *
 * FP8/FP6/FP4/E8M0: plumb's contract for these formats is the one of their
 * other computing ops (docs/spec/types.md): computed in a wider type, here
 * at least f32, and rounded once into the format. The Higham terms use
 * f32's unit roundoff (as dot_general's FP8 bound does), the final rounding
 * the format's u, and the format's smallest subnormal covers that
 * rounding's underflow (docs/spec/linalg.md).
 *
 * f8E8M0FNU (u = 2^-1, powers of two only: the format's rounding term
 * would admit a neighbouring power of two either way) is judged by the
 * same promise exactly (conformance/e8m0_judge.h): the checker encloses
 * the wide result of every computation in that model in an interval, by
 * interval substitution (triangular_solve) or the interval Cholesky
 * recurrence, each sum of k products widened by gamma(k + 1) at f32's u_c
 * times the sum of the products' moduli plus k eta_c (any order, Higham
 * §3.1 and §2.1), each division and square root by u_c of its modulus plus
 * eta_c, and by 2^-60 of the moduli for the long double evaluation. The
 * backend's and the reference's element must each be the rounding into the
 * format of a value of its interval. Cholesky: a member whose pivot
 * interval lies at or below 0 is not positive definite, every element of
 * its read triangle NaN (docs/spec/linalg.md; ref/linalg.c); one whose
 * pivot interval straddles 0 is not judged. */
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_bound.h"
#include "plumb/complex.h"
#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "e8m0_judge.h"

#define EVAL_SLACK (1.0L + 0x1p-40L)

typedef long double _Complex cld;

static long double unit_roundoff(plumb_dtype t)
{
    return ldexpl(1.0L, -(int)plumb_dtype_get(t)->mant_bits - 1);
}

static long double denorm_min(plumb_dtype t)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f)   /* the small formats' own bias (FNUZ, B11 and E8M0 differ from IEEE's) */
        return ldexpl(1.0L, 1 - f->bias - f->mant);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1;
    return ldexpl(1.0L, 1 - emax - (int)di->mant_bits);
}

/* Element i exactly, as a complex long double (imaginary part 0 for the
 * real types). */
static cld load_c(plumb_dtype t, const void *data, size_t i)
{
    if (plumb_dtype_is_complex(t)) {
        double re, im;
        plumb_complex_load(t, data, i, &re, &im);
        return CMPLXL(re, im);
    }
    return CMPLXL(plumb_load_f64(t, data, i), 0.0L);
}

static bool c_isnan(cld x) { return isnan(creall(x)) || isnan(cimagl(x)); }
static bool c_isfinite(cld x) { return isfinite(creall(x)) && isfinite(cimagl(x)); }

/* The precision the bounds' Higham terms use (see the top of the file):
 * each type's own, f32's for the small formats. */
typedef struct prec {
    long double u;       /* the result type's unit roundoff (its final rounding) */
    long double eta;     /* the result type's smallest subnormal */
    long double u_c;     /* the computation's unit roundoff */
    long double eta_c;   /* the computation's smallest subnormal */
    bool cplx, small;
} prec;

static prec prec_of(plumb_dtype t)
{
    prec p = {unit_roundoff(t), denorm_min(t), unit_roundoff(t), denorm_min(t), plumb_dtype_is_complex(t), false};
    if (plumb_fpfmt_get(t)) {
        p.small = true;
        p.u_c = 0x1p-24L;
        p.eta_c = 0x1p-149L;
    }
    return p;
}

/* gamma(k) in precision u; infinite when k u >= 1 (no bound) */
static long double gamma_k(uint64_t k, long double u)
{
    long double ku = (long double)k * u;
    return ku < 1.0L ? ku / (1.0L - ku) : INFINITY;
}

static uint64_t batch_count(const plumb_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d + 2 < t->rank; d++)
        n *= (uint64_t)t->dims[d];
    return n;
}

static void put(conf_linalg_verdict *v, double ratio, uint64_t idx, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(conf_linalg_verdict *v, double ratio, uint64_t idx, const char *fmt, ...)
{
    if (!(ratio > v->budget) && !(isnan(ratio) && !isnan(v->budget)))
        return;
    v->budget = isnan(ratio) ? INFINITY : ratio;
    v->idx = idx;
    if (v->budget > 1.0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->reason, sizeof v->reason, fmt, ap);
        va_end(ap);
    }
}

/* ---- f8E8M0FNU: interval enclosures of the wide result (the top) ---- */
typedef struct iv {
    long double lo, hi;
} iv;

static const iv IV_ALL = {-INFINITY, INFINITY};

static bool iv_finite(iv a) { return isfinite(a.lo) && isfinite(a.hi); }
static long double iv_mag(iv a) { return fabsl(a.lo) > fabsl(a.hi) ? fabsl(a.lo) : fabsl(a.hi); }

static iv iv_mul(iv a, iv b)
{
    if (!iv_finite(a) || !iv_finite(b)) return IV_ALL;
    long double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    iv r = {p[0], p[0]};
    for (int k = 1; k < 4; k++) {
        if (p[k] < r.lo) r.lo = p[k];
        if (p[k] > r.hi) r.hi = p[k];
    }
    return r;
}

/* a / b for b > 0 (else anything), widened by one rounding at u_c */
static iv iv_div_pos(iv a, iv b, long double u_c, long double eta_c)
{
    if (!iv_finite(a) || !iv_finite(b) || !(b.lo > 0.0L)) return IV_ALL;
    long double p[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
    iv r = {p[0], p[0]};
    for (int k = 1; k < 4; k++) {
        if (p[k] < r.lo) r.lo = p[k];
        if (p[k] > r.hi) r.hi = p[k];
    }
    long double w = (u_c + 0x1p-60L) * iv_mag(r) + eta_c;
    return (iv){r.lo - w, r.hi + w};
}

/* The pattern of element i admitted for the enclosure e? Reports the first
 * that is not (the backend's, or the reference's: a checker that admitted
 * neither would be wrong). */
static void e8m0_judge(conf_linalg_verdict *v, const plumb_tensor *got, const plumb_tensor *want, size_t i, iv e,
                       const char *what)
{
    uint64_t gb = plumb_load_bits(PLUMB_F8E8M0FNU, got->data, i), wb = plumb_load_bits(PLUMB_F8E8M0FNU, want->data, i);
    uint32_t lo_b, hi_b;
    bool want_ok = conf_e8m0_admits(wb, e.lo, e.hi, &lo_b, &hi_b), got_ok = conf_e8m0_admits(gb, e.lo, e.hi, &lo_b, &hi_b);
    if ((got_ok && want_ok) || v->budget > 1.0) return;
    v->budget = INFINITY;
    v->idx = i;
    snprintf(v->reason, sizeof v->reason,
             "element %zu: %s 0x%02x, but the wide %s lies in [%.17Lg, %.17Lg], which rounds once to f8E8M0FNU "
             "patterns 0x%02x..0x%02x%s (reference 0x%02x; docs/spec/linalg.md)",
             i, got_ok ? "the reference gives" : "got", (unsigned)(got_ok ? wb : gb), what, e.lo, e.hi, lo_b, hi_b,
             e.lo < 0 ? " or the NaN 0xff" : "", (unsigned)wb);
}

/* triangular_solve on f8E8M0FNU: interval substitution (the top); T as in
 * conf_linalg_trsm_judge (every value positive, so no moduli needed). */
static void trsm_judge_e8m0(const ir_attrs *at, const plumb_tensor *A, const plumb_tensor *B, const plumb_tensor *got,
                            const plumb_tensor *want, conf_linalg_verdict *v)
{
    plumb_dtype t = PLUMB_F8E8M0FNU;
    uint32_t R = B->rank;
    int64_t n = A->dims[R - 1], m = B->dims[R - 2], k = B->dims[R - 1];
    bool trans = at->transpose_a != IR_TRANSPOSE_NO_TRANSPOSE;
    bool t_transposed = trans != !at->left_side;
    bool t_lower = at->lower != t_transposed;
    int64_t nvec = at->left_side ? k : m, vs = at->left_side ? k : 1, vstep = at->left_side ? 1 : k;
    const long double u_c = 0x1p-24L, eta_c = 0x1p-149L;
    size_t nn = (size_t)n;
    long double *T = malloc((nn * nn + 1) * sizeof *T);
    iv *x = malloc((nn + 1) * sizeof *x);
    if (!T || !x) {
        free(T);
        free(x);
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "no memory for the enclosure of a %lldx%lld solve", (long long)n, (long long)n);
        return;
    }
    uint64_t nb = batch_count(B);
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t abase = (size_t)(bi * nn * nn), bbase = (size_t)(bi * (uint64_t)m * (uint64_t)k);
        for (int64_t r = 0; r < n; r++)
            for (int64_t q = 0; q < n; q++) {
                int64_t ar = t_transposed ? q : r, ac = t_transposed ? r : q;
                bool in_tri = at->lower ? ar >= ac : ar <= ac;
                T[r * n + q] = ar == ac && at->unit_diagonal ? 1.0L
                             : in_tri ? (long double)plumb_load_f64(A->dtype, A->data, abase + (size_t)(ar * n + ac)) : 0.0L;
            }
        for (int64_t vi = 0; vi < nvec; vi++) {
            for (int64_t st = 0; st < n; st++) {
                int64_t r = t_lower ? st : n - 1 - st;
                size_t at_r = bbase + (size_t)(r * vs + vi * vstep);
                long double b = plumb_load_f64(t, B->data, at_r);
                iv acc = {b, b};
                long double mag = fabsl(b);
                int64_t q0 = t_lower ? 0 : r + 1, q1 = t_lower ? r : n, terms = 0;
                for (int64_t q = q0; q < q1; q++) {
                    iv tq = {T[r * n + q], T[r * n + q]}, pr = iv_mul(tq, x[q]);
                    acc.lo -= pr.hi;
                    acc.hi -= pr.lo;
                    mag += iv_mag(pr);
                    terms++;
                }
                if (iv_finite(acc) && !isnan(b)) {
                    long double w = (gamma_k((uint64_t)terms + 1, u_c) + 0x1p-60L) * mag + (long double)terms * eta_c;
                    acc.lo -= w;
                    acc.hi += w;
                } else {
                    acc = isnan(b) ? (iv){NAN, NAN} : IV_ALL;
                }
                long double d = T[r * n + r];
                x[r] = isnan(acc.lo) || isnan(d) ? (iv){NAN, NAN} : iv_div_pos(acc, (iv){d, d}, u_c, eta_c);
                e8m0_judge(v, got, want, at_r, x[r], "solution");
            }
        }
    }
    free(T);
    free(x);
}

/* cholesky on f8E8M0FNU: the interval recurrence (the top) on the lower
 * factor L (upper: R = L^T, a symmetric real matrix). */
static void chol_judge_e8m0(bool lower, const plumb_tensor *A, const plumb_tensor *got, const plumb_tensor *want,
                            conf_linalg_verdict *v)
{
    int64_t n = A->dims[A->rank - 1];
    size_t nn = (size_t)n;
    const long double u_c = 0x1p-24L, eta_c = 0x1p-149L;
    iv *L = malloc((nn * nn + 1) * sizeof *L);
    if (!L) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "no memory for the enclosure of a %lldx%lld factor", (long long)n, (long long)n);
        return;
    }
    uint64_t nb = batch_count(A);
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)(bi * nn * nn);
        int state = 0;   /* 0 positive definite, 1 open (not judged), 2 not positive definite */
        for (int64_t j = 0; j < n && state == 0; j++)
            for (int64_t i = j; i < n && state == 0; i++) {
                size_t src = lower ? (size_t)(i * n + j) : (size_t)(j * n + i);
                long double a = plumb_load_f64(A->dtype, A->data, base + src);
                if (isnan(a)) { state = 1; break; }
                iv acc = {a, a};
                long double mag = fabsl(a);
                for (int64_t q = 0; q < j; q++) {
                    iv pr = iv_mul(L[i * n + q], L[j * n + q]);
                    acc.lo -= pr.hi;
                    acc.hi -= pr.lo;
                    mag += iv_mag(pr);
                }
                long double w = (gamma_k((uint64_t)j + 1, u_c) + 0x1p-60L) * mag + (long double)j * eta_c;
                acc.lo -= w;
                acc.hi += w;
                if (!iv_finite(acc)) { state = 1; break; }
                if (i == j) {
                    if (acc.hi <= 0.0L) { state = 2; break; }
                    if (acc.lo <= 0.0L) { state = 1; break; }
                    iv s = {sqrtl(acc.lo), sqrtl(acc.hi)};
                    long double ws = (u_c + 0x1p-60L) * s.hi + eta_c;
                    L[i * n + j] = (iv){s.lo - ws, s.hi + ws};
                } else {
                    L[i * n + j] = iv_div_pos(acc, L[j * n + j], u_c, eta_c);
                }
            }
        if (state == 1) continue;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) {
                size_t at_e = base + (lower ? (size_t)(i * n + j) : (size_t)(j * n + i));
                e8m0_judge(v, got, want, at_e, state == 2 ? (iv){NAN, NAN} : L[i * n + j],
                           state == 2 ? "factor (not positive definite: NaN)" : "factor");
            }
    }
    free(L);
}

/* Theorem 8.5: substitution computes x^ with (T + dT) x^ = b, |dT| <= gamma(n) |T|.
 * So x - x^ = T^-1 dT x^ and |x - x^| <= gamma(n) |T^-1| |T| |x^|; for a
 * triangular T, |T^-1| <= M(T)^-1 elementwise, M(T) its comparison matrix
 * (|t_ii| on the diagonal, -|t_ij| off it; Higham §8.2; the same for complex
 * T with moduli), so the forward bound is computed by one substitution with
 * M(T), in which nothing cancels. A backend computing in a wider precision
 * and rounding the result once is covered by the extra u; the reference's
 * own error is gamma(n) at long double precision plus its final rounding
 * u |x|. Underflow: every product, and the division, of row i may add eta
 * (Higham §2.1), i.e. perturb b_i by at most (n + |t_ii|) eta (four times
 * that for complex: up to four real roundings per complex operation),
 * which M(T)^-1 carries to x.
 * The small formats: x_w, computed at u_c (f32 or wider), is within
 * gamma_c M(T)^-1 |T| |x_w| of x, and the result is x_w rounded once:
 * |x^ - x_w| <= u |x_w| + eta/2, so |x_w| <= (|x^| + eta/2)/(1 - u); both
 * backend and reference are judged that way, their roundings taken from
 * either side: u/(1 - u) (|x^| + |x_ref|) + eta/(1 - u). */
void conf_linalg_trsm_judge(const ir_attrs *at, const plumb_tensor *A, const plumb_tensor *B,
                            const plumb_tensor *got, const plumb_tensor *want, conf_linalg_verdict *v)
{
    memset(v, 0, sizeof *v);
    uint32_t R = B->rank;
    if (R < 2 || A->rank != R || got->nbytes != want->nbytes || want->nbytes != B->nbytes) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "operand or result shapes do not fit triangular_solve");
        return;
    }
    plumb_dtype t = want->dtype;
    if (t == PLUMB_F8E8M0FNU) {
        trsm_judge_e8m0(at, A, B, got, want, v);
        return;
    }
    int64_t n = A->dims[R - 1], m = B->dims[R - 2], k = B->dims[R - 1];
    bool trans = at->transpose_a != IR_TRANSPOSE_NO_TRANSPOSE;
    bool t_transposed = trans != !at->left_side;
    bool t_lower = at->lower != t_transposed;
    int64_t nvec = at->left_side ? k : m, vs = at->left_side ? k : 1, vstep = at->left_side ? 1 : k;
    prec p = prec_of(t);
    long double u = p.u;
    uint64_t kn = (uint64_t)n + (p.cplx ? 12u : 0u);   /* Theorem 8.5's count (complex: Higham §3.6) */
    long double c_backend, c_ref = gamma_k(kn, 0x1p-64L), xpad = 0.0L, e_mul = p.cplx ? 4.0L : 1.0L;
    if (p.small) {
        c_backend = gamma_k(kn, p.u_c) / (1.0L - u);
        c_ref /= 1.0L - u;
        xpad = p.eta / 2.0L;
    } else {
        c_backend = (gamma_k(kn, u) + u) / (1.0L - u);
    }
    size_t nn = (size_t)n;
    long double *T = malloc((nn * nn + 4 * nn + 1) * sizeof *T);
    if (!T) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "no memory for the bound of a %lldx%lld solve", (long long)n, (long long)n);
        return;
    }
    long double *y = T + nn * nn, *z = y + nn, *w = z + nn, *e = w + nn;
    uint64_t nb = batch_count(B);
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t abase = (size_t)(bi * nn * nn), bbase = (size_t)(bi * (uint64_t)m * (uint64_t)k);
        for (int64_t r = 0; r < n; r++)
            for (int64_t q = 0; q < n; q++) {
                int64_t ar = t_transposed ? q : r, ac = t_transposed ? r : q;
                bool in_tri = at->lower ? ar >= ac : ar <= ac;
                long double x = 0.0L;
                if (ar == ac && at->unit_diagonal)
                    x = 1.0L;
                else if (in_tri)
                    x = cabsl(load_c(A->dtype, A->data, abase + (size_t)(ar * n + ac)));   /* conj: same modulus */
                T[r * n + q] = x;
            }
        for (int64_t vi = 0; vi < nvec; vi++) {
            /* y = |T| max(|x^|, |x_ref|), e = (n + |t_ii|) eta */
            for (int64_t r = 0; r < n; r++) {
                long double s = 0.0L;
                for (int64_t q = 0; q < n; q++) {
                    size_t at_q = bbase + (size_t)(q * vs + vi * vstep);
                    long double xg = cabsl(load_c(t, got->data, at_q));
                    long double xw = cabsl(load_c(t, want->data, at_q));
                    long double mx = (xg > xw ? xg : xw) + xpad;
                    if (T[r * n + q] != 0.0L)
                        s += T[r * n + q] * mx;
                }
                y[r] = s;
                e[r] = e_mul * ((long double)n + T[r * n + r]) * p.eta_c;
            }
            /* z = M(T)^-1 y and w = M(T)^-1 e: substitution, all terms >= 0 */
            for (int64_t s = 0; s < n; s++) {
                int64_t r = t_lower ? s : n - 1 - s;
                long double zy = y[r], ze = e[r];
                int64_t q0 = t_lower ? 0 : r + 1, q1 = t_lower ? r : n;
                for (int64_t q = q0; q < q1; q++) {
                    zy += T[r * n + q] * z[q];
                    ze += T[r * n + q] * w[q];
                }
                z[r] = zy / T[r * n + r];
                w[r] = ze / T[r * n + r];
            }
            for (int64_t r = 0; r < n; r++) {
                size_t at_r = bbase + (size_t)(r * vs + vi * vstep);
                cld cg = load_c(t, got->data, at_r), cw = load_c(t, want->data, at_r);
                if (!c_isfinite(cw)) {
                    /* the reference's NaN or infinity must be the backend's too
                     * (complex: per component) */
                    bool same = true;
                    long double pg[2] = {creall(cg), cimagl(cg)}, pw[2] = {creall(cw), cimagl(cw)};
                    for (int h = 0; h < (p.cplx ? 2 : 1); h++)
                        same = same && (isnan(pw[h]) ? isnan(pg[h]) : pg[h] == pw[h]);
                    if (!same)
                        put(v, INFINITY, at_r, "element %llu: got (%Lg, %Lg), want (%Lg, %Lg): a non-finite reference "
                            "value is matched exactly", (unsigned long long)at_r, creall(cg), cimagl(cg), creall(cw),
                            cimagl(cw));
                    continue;
                }
                long double rnd = p.small ? u / (1.0L - u) * (cabsl(cg) + cabsl(cw)) + p.eta / (1.0L - u)
                                          : u / (1.0L - u) * cabsl(cw);
                long double bound = (c_backend * z[r] + c_ref * z[r] + rnd + 2.0L * w[r]) * EVAL_SLACK;
                if (!(bound < INFINITY) || isnan(bound))
                    continue;   /* T singular or overflowing: no finite bound, nothing to judge */
                long double err = cabsl(cg - cw);
                double ratio = err == 0.0L ? 0.0 : bound > 0.0L ? (double)(err / bound) : INFINITY;
                if (c_isnan(cg))
                    ratio = INFINITY;
                put(v, ratio, at_r, "element %llu: got (%Lg, %Lg), want (%Lg, %Lg), |error| %Lg > bound %Lg = "
                    "gamma(%llu) (M(T)^-1 |T| |x|)_i + rounding, reference and underflow terms "
                    "(Higham Thm 8.5%s, docs/spec/linalg.md)", (unsigned long long)at_r, creall(cg), cimagl(cg),
                    creall(cw), cimagl(cw), err, bound, (unsigned long long)kn, p.cplx ? " and §3.6" : "");
            }
        }
    }
    free(T);
}

/* Theorem 10.3: the computed factor R^ of Cholesky satisfies
 * R^H R^ = A + dA with |dA| <= gamma(n+1) |R^H| |R^| (gamma(n+4) for
 * complex, see the top of the file). A backend that computes in a wider
 * precision and rounds R once adds (2u + u^2) |R^H||R|, and
 * |R_w| <= |R^| / (1 - u); so each element of the residual |R^H R^ - A|
 * must be within (gamma + 2u + u^2) / (1 - u)^2 of (|R^H| |R^|) there, plus
 * the long double evaluation of the residual (gamma at 2^-64 of
 * |R^H||R^| + |A|), (n + 1) eta for underflow in the computation (four
 * times that for complex) and, for a rounding into the result type that
 * underflows (absolute error eta/2 per element of R),
 * eta/(1 - u) sum_q (|r_qi| + |r_qj|) + (n + 1) eta^2. The diagonal of the
 * factor must not be negative (complex: its real part). The small formats
 * take gamma at f32's u (the top of the file). */
void conf_linalg_chol_judge(bool lower, const plumb_tensor *A, const plumb_tensor *got, const plumb_tensor *want,
                            conf_linalg_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (A->rank < 2 || got->nbytes != A->nbytes || want->nbytes != A->nbytes) {
        v->budget = INFINITY;
        snprintf(v->reason, sizeof v->reason, "operand or result shapes do not fit cholesky");
        return;
    }
    plumb_dtype t = want->dtype;
    if (t == PLUMB_F8E8M0FNU) {
        chol_judge_e8m0(lower, A, got, want, v);
        return;
    }
    int64_t n = A->dims[A->rank - 1];
    size_t nn = (size_t)n, esz = plumb_dtype_get(t)->bytes;
    prec p = prec_of(t);
    long double u = p.u, eta = p.eta;
    uint64_t kc = (uint64_t)n + (p.cplx ? 4u : 1u);
    long double c = (gamma_k(kc, p.u_c) + 2.0L * u + u * u) / ((1.0L - u) * (1.0L - u));
    long double c_eval = gamma_k(kc, 0x1p-64L);
    long double e_c = (p.cplx ? 4.0L : 1.0L) * ((long double)n + 1.0L) * p.eta_c + ((long double)n + 1.0L) * eta * eta;
    uint64_t nb = batch_count(A);
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)(bi * nn * nn);
        bool judged = true;
        for (size_t i = 0; i < nn * nn && judged; i++) {
            size_t r = i / nn, q = i % nn;
            bool read = lower ? r >= q : r <= q;
            if (read && !c_isfinite(load_c(A->dtype, A->data, base + i)))
                judged = false;
            if (read && c_isnan(load_c(t, want->data, base + i)))
                judged = false;   /* the reference found it not positive definite */
            /* FP6/FP4 have no NaN: the reference's NaN became +0, and a
             * factor of a positive definite matrix has no zero pivot */
            if (r == q && creall(load_c(t, want->data, base + i)) == 0.0L)
                judged = false;
        }
        if (!judged)
            continue;
        /* the reference's own factor, bit for bit, agrees (budget 0): the
         * residual is only needed to judge a different one */
        bool same = true;
        for (size_t i = 0; i < nn * nn && same; i++) {
            size_t r = i / nn, q = i % nn;
            if ((lower ? r >= q : r <= q) &&
                memcmp((const char *)got->data + (base + i) * esz, (const char *)want->data + (base + i) * esz, esz))
                same = false;
        }
        if (same)
            continue;
        /* F(i, q) for q <= i: the lower factor L (L = R^H when upper) */
#define F(i, q) (lower ? load_c(t, got->data, base + (size_t)((i) * n + (q))) \
                       : conjl(load_c(t, got->data, base + (size_t)((q) * n + (i)))))
        for (int64_t i = 0; i < n; i++) {
            long double d = creall(F(i, i));
            if (d < 0.0L || isnan(d)) {
                size_t at_d = base + (size_t)(i * n + i);
                put(v, INFINITY, at_d, "element %llu: the factor's diagonal is %Lg, not >= 0 (a positive definite "
                    "matrix was given)", (unsigned long long)at_d, d);
            }
            for (int64_t j = 0; j <= i; j++) {
                cld s = 0.0L;
                long double sa = 0.0L, s1 = 0.0L;
                for (int64_t q = 0; q <= j; q++) {
                    cld li = F(i, q), lj = F(j, q);
                    s += li * conjl(lj);
                    sa += cabsl(li) * cabsl(lj);
                    s1 += cabsl(li) + cabsl(lj);
                }
                /* the Hermitian matrix's (i, j), i >= j: a[i, j] (lower) or
                 * conj(a[j, i]) (upper); on the diagonal only the real part */
                size_t src = lower ? (size_t)(i * n + j) : (size_t)(j * n + i);
                cld aij = load_c(A->dtype, A->data, base + src);
                aij = i == j ? CMPLXL(creall(aij), 0.0L) : lower ? aij : conjl(aij);
                long double res = cabsl(s - aij);
                long double bound = (c * sa + c_eval * (sa + cabsl(aij)) + eta / (1.0L - u) * s1 + e_c) * EVAL_SLACK;
                double ratio = res == 0.0L ? 0.0 : bound > 0.0L ? (double)(res / bound) : INFINITY;
                if (isnan(res))
                    ratio = INFINITY;
                put(v, ratio, base + src,
                    "element %llu: residual |(factor product) - a| = %Lg > bound %Lg = (gamma(%llu) + 2u + u^2)/(1 - u)^2 "
                    "(|R^H| |R|)_ij + evaluation and underflow terms (Higham Thm 10.3%s, docs/spec/linalg.md)",
                    (unsigned long long)(base + src), res, bound, (unsigned long long)kc, p.cplx ? " and §3.6" : "");
            }
        }
#undef F
    }
}
