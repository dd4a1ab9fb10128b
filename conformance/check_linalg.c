/* Agreement of triangular_solve and cholesky (docs/spec/linalg.md,
 * "Bounds"). All bound arithmetic runs in long double on values that are
 * exact in it; the long double evaluation's own error (relative 2^-63 per
 * operation, at most a few times n of them) is covered by the factor
 * EVAL_SLACK on every bound.
 *
 * u is the unit roundoff of the result type, eta its smallest subnormal,
 * gamma(k) = k u / (1 - k u) (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., §3.1). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_bound.h"
#include "plumb/dtype.h"

#define EVAL_SLACK (1.0L + 0x1p-40L)

static long double unit_roundoff(plumb_dtype t)
{
    return ldexpl(1.0L, -(int)plumb_dtype_get(t)->mant_bits - 1);
}

static long double denorm_min(plumb_dtype t)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1;
    return ldexpl(1.0L, 1 - emax - (int)di->mant_bits);
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

/* Theorem 8.5: substitution computes x^ with (T + dT) x^ = b, |dT| <= gamma(n) |T|.
 * So x - x^ = T^-1 dT x^ and |x - x^| <= gamma(n) |T^-1| |T| |x^|; for a
 * triangular T, |T^-1| <= M(T)^-1 elementwise, M(T) its comparison matrix
 * (|t_ii| on the diagonal, -|t_ij| off it; Higham §8.2), so the forward
 * bound is computed by one substitution with M(T), in which nothing
 * cancels. A backend computing in a wider precision and rounding the result
 * once is covered by the extra u; the reference's own error is gamma(n) at
 * long double precision plus its final rounding u |x|. Underflow: every
 * product, and the division, of row i may add eta (Higham §2.1), i.e.
 * perturb b_i by at most (n + |t_ii|) eta, which M(T)^-1 carries to x. */
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
    int64_t n = A->dims[R - 1], m = B->dims[R - 2], k = B->dims[R - 1];
    bool trans = at->transpose_a != IR_TRANSPOSE_NO_TRANSPOSE;
    bool t_transposed = trans != !at->left_side;
    bool t_lower = at->lower != t_transposed;
    int64_t nvec = at->left_side ? k : m, vs = at->left_side ? k : 1, vstep = at->left_side ? 1 : k;
    long double u = unit_roundoff(t), eta = denorm_min(t);
    long double c_backend = (gamma_k((uint64_t)n, u) + u) / (1.0L - u);
    long double c_ref = gamma_k((uint64_t)n, 0x1p-64L);
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
                    x = plumb_load_f64(A->dtype, A->data, abase + (size_t)(ar * n + ac));
                T[r * n + q] = fabsl(x);
            }
        for (int64_t vi = 0; vi < nvec; vi++) {
            /* y = |T| max(|x^|, |x_ref|), e = (n + |t_ii|) eta */
            for (int64_t r = 0; r < n; r++) {
                long double s = 0.0L;
                for (int64_t q = 0; q < n; q++) {
                    size_t at_q = bbase + (size_t)(q * vs + vi * vstep);
                    long double xg = fabsl((long double)plumb_load_f64(t, got->data, at_q));
                    long double xw = fabsl((long double)plumb_load_f64(t, want->data, at_q));
                    long double mx = xg > xw ? xg : xw;
                    if (T[r * n + q] != 0.0L)
                        s += T[r * n + q] * mx;
                }
                y[r] = s;
                e[r] = ((long double)n + T[r * n + r]) * eta;
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
                uint64_t gb = plumb_load_bits(t, got->data, at_r), wb = plumb_load_bits(t, want->data, at_r);
                long double xg = plumb_load_f64(t, got->data, at_r), xw = plumb_load_f64(t, want->data, at_r);
                if (isnan(xw) || isinf(xw)) {
                    /* the reference's NaN or infinity must be the backend's too */
                    bool same = isnan(xw) ? isnan(xg) : xg == xw;
                    if (!same)
                        put(v, INFINITY, at_r, "element %llu: got %Lg (0x%llx), want %Lg (0x%llx): a non-finite reference "
                            "value is matched exactly", (unsigned long long)at_r, xg, (unsigned long long)gb, xw,
                            (unsigned long long)wb);
                    continue;
                }
                long double bound = (c_backend * z[r] + c_ref * z[r] + u / (1.0L - u) * fabsl(xw) + 2.0L * w[r]) * EVAL_SLACK;
                if (!(bound < INFINITY) || isnan(bound))
                    continue;   /* T singular or overflowing: no finite bound, nothing to judge */
                long double err = fabsl(xg - xw);
                double ratio = err == 0.0L ? 0.0 : bound > 0.0L ? (double)(err / bound) : INFINITY;
                if (isnan(xg))
                    ratio = INFINITY;
                put(v, ratio, at_r, "element %llu: got %Lg (0x%llx), want %Lg (0x%llx), |error| %Lg > bound %Lg = "
                    "(gamma(%lld) + u)/(1 - u) (M(T)^-1 |T| |x|)_i + reference and underflow terms "
                    "(Higham Thm 8.5, docs/spec/linalg.md)", (unsigned long long)at_r, xg, (unsigned long long)gb,
                    xw, (unsigned long long)wb, err, bound, (long long)n);
            }
        }
    }
    free(T);
}

/* Theorem 10.3: the computed factor R^ of Cholesky satisfies
 * R^T R^ = A + dA with |dA| <= gamma(n+1) |R^T| |R^|. A backend that
 * computes in a wider precision and rounds R once adds (2u + u^2) |R^T||R|,
 * and |R_w| <= |R^| / (1 - u); so each element of the residual
 * |R^T R^ - A| must be within (gamma(n+1) + 2u + u^2) / (1 - u)^2 of
 * (|R^T| |R^|) there, plus (n + 1) eta for underflow and the long double
 * evaluation of the residual (gamma(n) at 2^-64 of |R^T||R^| + |A|). The
 * diagonal of the factor must not be negative. */
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
    int64_t n = A->dims[A->rank - 1];
    size_t nn = (size_t)n;
    long double u = unit_roundoff(t), eta = denorm_min(t);
    long double c = (gamma_k((uint64_t)n + 1, u) + 2.0L * u + u * u) / ((1.0L - u) * (1.0L - u));
    long double c_eval = gamma_k((uint64_t)n + 1, 0x1p-64L);
    uint64_t nb = batch_count(A);
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)(bi * nn * nn);
        bool judged = true;
        for (size_t i = 0; i < nn * nn && judged; i++) {
            size_t r = i / nn, q = i % nn;
            bool read = lower ? r >= q : r <= q;
            if (read && !isfinite(plumb_load_f64(A->dtype, A->data, base + i)))
                judged = false;
            if (read && isnan(plumb_load_f64(t, want->data, base + i)))
                judged = false;   /* the reference found it not positive definite */
        }
        if (!judged)
            continue;
        /* the reference's own factor, bit for bit, agrees (budget 0): the
         * residual is only needed to judge a different one */
        bool same = true;
        for (size_t i = 0; i < nn * nn && same; i++) {
            size_t r = i / nn, q = i % nn;
            if ((lower ? r >= q : r <= q) &&
                plumb_load_bits(t, got->data, base + i) != plumb_load_bits(t, want->data, base + i))
                same = false;
        }
        if (same)
            continue;
        /* F(i, q) for q <= i: the lower factor L (L = R^T when upper) */
#define F(i, q) plumb_load_f64(t, got->data, base + (size_t)(lower ? (i) * n + (q) : (q) * n + (i)))
        for (int64_t i = 0; i < n; i++) {
            long double d = F(i, i);
            if (d < 0.0L || isnan(d)) {
                size_t at_d = base + (size_t)(i * n + i);
                put(v, INFINITY, at_d, "element %llu: the factor's diagonal is %Lg, not >= 0 (a positive definite "
                    "matrix was given)", (unsigned long long)at_d, d);
            }
            for (int64_t j = 0; j <= i; j++) {
                long double s = 0.0L, sa = 0.0L;
                for (int64_t q = 0; q <= j; q++) {
                    long double li = F(i, q), lj = F(j, q);
                    s += li * lj;
                    sa += fabsl(li) * fabsl(lj);
                }
                size_t src = lower ? (size_t)(i * n + j) : (size_t)(j * n + i);
                long double aij = plumb_load_f64(A->dtype, A->data, base + src);
                long double res = fabsl(s - aij);
                long double bound = (c * sa + c_eval * (sa + fabsl(aij)) + ((long double)n + 1.0L) * eta) * EVAL_SLACK;
                double ratio = res == 0.0L ? 0.0 : bound > 0.0L ? (double)(res / bound) : INFINITY;
                if (isnan(res))
                    ratio = INFINITY;
                put(v, ratio, base + src,
                    "element %llu: residual |(factor product) - a| = %Lg > bound %Lg = (gamma(%lld) + 2u + u^2)/(1 - u)^2 "
                    "(|R^T| |R|)_ij + evaluation and underflow terms (Higham Thm 10.3, docs/spec/linalg.md)",
                    (unsigned long long)(base + src), res, bound, (long long)n + 1);
            }
        }
#undef F
    }
}
