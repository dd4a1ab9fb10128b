/* stablehlo.triangular_solve and stablehlo.cholesky (op set v2,
 * docs/spec/linalg.md).
 *
 * Semantics (StableHLO spec):
 *   triangular_solve(a, b): for every batch index i (the leading R-2
 *   dimensions, equal in a, b and the result), x = result[i, :, :] solves
 *   op(a[i]) * x = b[i] when left_side, x * op(a[i]) = b[i] otherwise, where
 *   op is the identity (NO_TRANSPOSE), the transpose (TRANSPOSE) or the
 *   conjugate transpose (ADJOINT; the transpose for real types). Only the
 *   lower (lower = true) or upper triangle of a[i], diagonal included, is
 *   read; with unit_diagonal its diagonal is taken as ones and not read.
 *   cholesky(a): result[i] is the Cholesky factor of the Hermitian matrix
 *   whose lower (lower = true) or upper triangle is a[i]'s: L with
 *   L * L^H = a[i] (lower) or U with U^H * U = a[i] (upper), ^H the
 *   conjugate transpose (the transpose for real types), its diagonal real
 *   and positive. Only that triangle of a[i] is read, and of a complex
 *   diagonal only the real part (a Hermitian matrix's diagonal is real);
 *   plumb writes +0 into the opposite triangle of the result (the spec
 *   leaves it implementation-defined).
 *
 * Numerics: every element is loaded exactly into a long double, the
 * substitution / factorization runs in long double (64-bit significand;
 * sums in increasing index order) and each result element is rounded once,
 * to nearest even, into the result type (through MPFR so that f16 and bf16
 * are not rounded twice; FP8/FP6/FP4 through rounding to odd and the
 * format's codec, ref_mpfr_to_bits). complex<f32>/complex<f64> run the same
 * algorithms in long double complex arithmetic (C's, Annex G: a nonzero
 * value divided by a zero diagonal is infinite) and round each component
 * once. A zero on a non-unit diagonal gives inf/NaN as IEEE division does;
 * NaN and inf inputs propagate.
 *
 * Non-positive-definite input (the spec: behavior undefined): when a pivot
 * a_jj - sum_k l_jk^2 is not > 0 (zero, negative or NaN), every element of
 * that batch member's result is NaN, both triangles; other batch members are
 * unaffected. plumb never fails the run for it.
 */
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "accum.h"
#include "plumb/complex.h"
#include "ref_internal.h"

/* Rounds v once into t and stores it as element i of data. */
static void store_ld(plumb_dtype t, void *data, size_t i, long double v, mpfr_t tmp)
{
    mpfr_set_ld(tmp, v, MPFR_RNDN);   /* exact: tmp has 64 bits */
    plumb_store_bits(t, data, i, ref_mpfr_to_bits(tmp, t));
}

static uint64_t batch_count(const plumb_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d + 2 < t->rank; d++)
        n *= (uint64_t)t->dims[d];
    return n;
}

/* ---- complex<f32> and complex<f64> ------------------------------------------
 * Element i of a complex tensor, exact in long double, and stored back with
 * one rounding per component (long double to float directly: through double
 * would round complex<f32> twice). */
typedef long double _Complex cld;

static cld load_c(const plumb_tensor *t, size_t i)
{
    double re, im;
    plumb_complex_load(t->dtype, t->data, i, &re, &im);
    return CMPLXL(re, im);
}

static void store_c(plumb_tensor *t, size_t i, cld v)
{
    if (t->dtype == PLUMB_C64) {
        float *p = (float *)t->data + 2 * i;
        p[0] = (float)creall(v);
        p[1] = (float)cimagl(v);
    } else {
        double *p = (double *)t->data + 2 * i;
        p[0] = (double)creall(v);
        p[1] = (double)cimagl(v);
    }
}

/* triangular_solve on complex: as the real one below, with T's elements
 * conjugated when transpose_a is ADJOINT (op(a) = conj(a)^T; a right-side
 * solve x op(a) = b is op(a)^T x^T = b^T, and op(a)^T = conj(a) for ADJOINT:
 * conjugated, not transposed). */
static bool trsm_complex(ref_ctx *c, const ir_op *op, const plumb_tensor *A, const plumb_tensor *B, plumb_tensor *X,
                         int64_t n, int64_t m, int64_t k, bool t_transposed, bool t_lower)
{
    const ir_attrs *at = &op->a;
    bool conj_a = at->transpose_a == IR_TRANSPOSE_ADJOINT;
    uint64_t nb = batch_count(B);
    int64_t nvec = at->left_side ? k : m;
    int64_t vs = at->left_side ? k : 1, vstep = at->left_side ? 1 : k;
    size_t nn = (size_t)n;
    cld *T = malloc((nn * nn + nn + 1) * sizeof *T);
    if (!T)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld matrix", (long long)n, (long long)n);
    cld *x = T + nn * nn;
    bool ok = true;
    for (uint64_t bi = 0; bi < nb && ok; bi++) {
        if (!ref_work(c, op, (uint64_t)(4 * n * n * (nvec + 1)))) {
            ok = false;
            break;
        }
        size_t abase = (size_t)(bi * nn * nn), bbase = (size_t)(bi * (uint64_t)m * (uint64_t)k);
        for (int64_t r = 0; r < n; r++)
            for (int64_t q = 0; q < n; q++) {
                int64_t ar = t_transposed ? q : r, ac = t_transposed ? r : q;
                bool in_tri = at->lower ? ar >= ac : ar <= ac;
                cld v = 0.0L;
                if (ar == ac && at->unit_diagonal)
                    v = 1.0L;
                else if (in_tri)
                    v = load_c(A, abase + (size_t)(ar * n + ac));
                T[r * n + q] = conj_a ? conjl(v) : v;
            }
        for (int64_t v = 0; v < nvec; v++) {
            for (int64_t s = 0; s < n; s++) {
                int64_t r = t_lower ? s : n - 1 - s;
                cld acc = load_c(B, bbase + (size_t)(r * vs + v * vstep));
                if (t_lower)
                    for (int64_t q = 0; q < r; q++)
                        acc -= T[r * n + q] * x[q];
                else
                    for (int64_t q = r + 1; q < n; q++)
                        acc -= T[r * n + q] * x[q];
                x[r] = acc / T[r * n + r];
            }
            for (int64_t r = 0; r < n; r++)
                store_c(X, bbase + (size_t)(r * vs + v * vstep), x[r]);
        }
    }
    free(T);
    return ok;
}

/* cholesky on complex: the real algorithm with conjugates. W(i, j), i >= j,
 * is the factor L of the Hermitian matrix S whose lower triangle is a's
 * (lower) or the conjugate transpose of a's upper triangle; the pivot
 * Re(s_jj) - sum_q |l_jq|^2 is real, and not > 0 makes the member NaN. */
static bool chol_complex(ref_ctx *c, const ir_op *op, const plumb_tensor *A, plumb_tensor *L, int64_t n)
{
    size_t nn = (size_t)n;
    uint64_t nb = batch_count(A);
    bool lower = op->a.lower;
    cld *W = malloc((nn * nn + 1) * sizeof *W);
    if (!W)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld matrix", (long long)n, (long long)n);
    bool ok = true;
    for (uint64_t bi = 0; bi < nb && ok; bi++) {
        if (!ref_work(c, op, (uint64_t)(4 * n * n * n + 1))) {
            ok = false;
            break;
        }
        size_t base = (size_t)(bi * nn * nn);
        bool pd = true;
        for (int64_t j = 0; j < n && pd; j++) {
            long double d = creall(load_c(A, base + (size_t)(j * n + j)));
            for (int64_t q = 0; q < j; q++) {
                cld l = W[j * n + q];
                d -= creall(l) * creall(l) + cimagl(l) * cimagl(l);
            }
            if (!(d > 0.0L)) {
                pd = false;   /* not positive definite (or NaN) */
                break;
            }
            long double djj = sqrtl(d);
            W[j * n + j] = djj;
            for (int64_t i = j + 1; i < n; i++) {
                /* S(i, j) = a[i, j] (lower) or conj(a[j, i]) (upper) */
                cld s = lower ? load_c(A, base + (size_t)(i * n + j)) : conjl(load_c(A, base + (size_t)(j * n + i)));
                for (int64_t q = 0; q < j; q++)
                    s -= W[i * n + q] * conjl(W[j * n + q]);
                W[i * n + j] = CMPLXL(creall(s) / djj, cimagl(s) / djj);
            }
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                /* result (i, j) is L(i, j) (lower) or U(i, j) = conj(L(j, i)) */
                int64_t li = lower ? i : j, lj = lower ? j : i;
                cld v = !pd ? CMPLXL(NAN, NAN) : li >= lj ? W[li * n + lj] : 0.0L;
                /* conjugated off the diagonal only: the diagonal and the
                 * opposite triangle keep their +0 imaginary parts */
                store_c(L, base + (size_t)(i * n + j), pd && li > lj && !lower ? conjl(v) : v);
            }
    }
    free(W);
    return ok;
}

bool ref_op_TRIANGULAR_SOLVE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *A = in[0], *B = in[1];
    plumb_tensor *X = out[0];
    const ir_attrs *at = &op->a;
    if (A->rank < 2 || A->rank != B->rank || X->rank != B->rank || A->dims[A->rank - 1] != A->dims[A->rank - 2])
        return ref_fail(c, op, PLUMB_ERR_INVALID, "a must be a batch of square matrices of b's rank");
    uint32_t R = B->rank;
    int64_t n = A->dims[R - 1], m = B->dims[R - 2], k = B->dims[R - 1];
    if ((at->left_side ? m : k) != n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "b's dimension %u has size %lld, a is %lldx%lld",
                        at->left_side ? R - 2 : R - 1, (long long)(at->left_side ? m : k), (long long)n, (long long)n);
    /* T = op(a) (left) or op(a)^T (right): each right-hand side vector v of
     * b (a column when left, a row when right) solves T x = v. */
    bool trans = at->transpose_a != IR_TRANSPOSE_NO_TRANSPOSE;
    bool t_transposed = trans != !at->left_side;
    bool t_lower = at->lower != t_transposed;
    if (plumb_dtype_is_complex(X->dtype))
        return trsm_complex(c, op, A, B, X, n, m, k, t_transposed, t_lower);
    uint64_t nb = batch_count(B);
    int64_t nvec = at->left_side ? k : m;
    /* element (r, c) of T is a[r, c] or a[c, r]; vector v's element r is at
     * b + r * vs + v * vstep */
    int64_t vs = at->left_side ? k : 1, vstep = at->left_side ? 1 : k;
    size_t nn = (size_t)n;
    long double *T = malloc((nn * nn + nn + 1) * sizeof *T);
    if (!T)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld matrix", (long long)n, (long long)n);
    long double *x = T + nn * nn;
    mpfr_t tmp;
    mpfr_init2(tmp, 64);
    bool ok = true;
    for (uint64_t bi = 0; bi < nb && ok; bi++) {
        if (!ref_work(c, op, (uint64_t)(n * n * (nvec + 1)))) {
            ok = false;
            break;
        }
        size_t abase = (size_t)(bi * nn * nn), bbase = (size_t)(bi * (uint64_t)m * (uint64_t)k);
        for (int64_t r = 0; r < n; r++)
            for (int64_t q = 0; q < n; q++) {
                /* (ar, ac): the element of a that T(r, q) is */
                int64_t ar = t_transposed ? q : r, ac = t_transposed ? r : q;
                bool in_tri = at->lower ? ar >= ac : ar <= ac;
                long double v = 0.0L;
                if (ar == ac && at->unit_diagonal)
                    v = 1.0L;
                else if (in_tri)
                    v = plumb_load_f64(A->dtype, A->data, abase + (size_t)(ar * n + ac));
                T[r * n + q] = v;
            }
        for (int64_t v = 0; v < nvec; v++) {
            for (int64_t s = 0; s < n; s++) {
                int64_t r = t_lower ? s : n - 1 - s;
                long double acc = plumb_load_f64(B->dtype, B->data, bbase + (size_t)(r * vs + v * vstep));
                if (t_lower)
                    for (int64_t q = 0; q < r; q++)
                        acc -= T[r * n + q] * x[q];
                else
                    for (int64_t q = r + 1; q < n; q++)
                        acc -= T[r * n + q] * x[q];
                x[r] = acc / T[r * n + r];
            }
            for (int64_t r = 0; r < n; r++)
                store_ld(X->dtype, X->data, bbase + (size_t)(r * vs + v * vstep), x[r], tmp);
        }
    }
    mpfr_clear(tmp);
    free(T);
    return ok;
}

bool ref_op_CHOLESKY(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *A = in[0];
    plumb_tensor *L = out[0];
    if (A->rank < 2 || A->dims[A->rank - 1] != A->dims[A->rank - 2] || L->nbytes != A->nbytes)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "a must be a batch of square matrices of the result's type");
    int64_t n = A->dims[A->rank - 1];
    if (plumb_dtype_is_complex(L->dtype))
        return chol_complex(c, op, A, L, n);
    size_t nn = (size_t)n;
    uint64_t nb = batch_count(A);
    bool lower = op->a.lower;
    long double *W = malloc((nn * nn + 1) * sizeof *W);
    if (!W)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld matrix", (long long)n, (long long)n);
    mpfr_t tmp;
    mpfr_init2(tmp, 64);
    bool ok = true;
    for (uint64_t bi = 0; bi < nb && ok; bi++) {
        if (!ref_work(c, op, (uint64_t)(n * n * n + 1))) {
            ok = false;
            break;
        }
        size_t base = (size_t)(bi * nn * nn);
        /* W(i, j), i >= j: the factor L of the symmetric matrix S whose
         * lower triangle is a's (lower) or a's upper triangle transposed */
        bool pd = true;
        for (int64_t j = 0; j < n && pd; j++) {
            for (int64_t i = j; i < n; i++) {
                size_t src = lower ? (size_t)(i * n + j) : (size_t)(j * n + i);
                long double s = plumb_load_f64(A->dtype, A->data, base + src);
                for (int64_t q = 0; q < j; q++)
                    s -= W[i * n + q] * W[j * n + q];
                if (i == j) {
                    if (!(s > 0.0L)) {
                        pd = false;   /* not positive definite (or NaN) */
                        break;
                    }
                    W[j * n + j] = sqrtl(s);
                } else {
                    W[i * n + j] = s / W[j * n + j];
                }
            }
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                /* result (i, j) is L(i, j) (lower) or L(j, i) = U(i, j) */
                int64_t li = lower ? i : j, lj = lower ? j : i;
                long double v = !pd ? NAN : li >= lj ? W[li * n + lj] : 0.0L;
                store_ld(L->dtype, L->data, base + (size_t)(i * n + j), v, tmp);
            }
    }
    mpfr_clear(tmp);
    free(W);
    return ok;
}
