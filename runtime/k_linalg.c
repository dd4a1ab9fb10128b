/* triangular_solve and cholesky on the compiled runtime (op set v2,
 * docs/spec/linalg.md); tested against the reference within the bounds of
 * docs/spec/linalg.md (tests/runtime/test_linalg.c).
 *
 * Both work in double whatever the element type (f16, bf16 and f32 inputs
 * are exact in it; f64 is computed in its own precision) and round each
 * result element once into the result type. Batch members are independent
 * and split over the thread pool; every member is computed by one thread in
 * one fixed order, so results do not depend on the thread count.
 *
 * triangular_solve copies each batch member's right-hand sides into a
 * scratch matrix W with one row per unknown and one column per right-hand
 * side vector (b itself when left_side, b's transpose otherwise), so that
 * substitution updates a whole row of W at a time: row r -= T(r, q) * row q,
 * a contiguous loop the compiler vectorizes, then row r /= T(r, r).
 * cholesky is the column-by-column (left-looking) factorization of the
 * reference, in double. A non-positive pivot makes the whole batch member
 * NaN, as in the reference (docs/spec/linalg.md).
 *
 * FP8/FP6/FP4 (and E8M0) are exact in double too: loaded through the
 * format's codec, computed in double and rounded once by it
 * (plumb_f64_to_small; NaN becomes +0 in FP6/FP4, which have no NaN).
 * complex<f32>/complex<f64> run the same algorithms in double complex
 * arithmetic (C's division: a nonzero value over a zero diagonal is
 * infinite, as in the reference) with conjugates where the op's ^H takes
 * them, and round each component once. */
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "rt_internal.h"

static void store_d(plumb_dtype t, void *data, size_t i, double v)
{
    switch (t) {
    case PLUMB_F64: ((double *)data)[i] = v; break;
    case PLUMB_F32: ((float *)data)[i] = (float)v; break;
    case PLUMB_F16: ((uint16_t *)data)[i] = plumb_f64_to_f16(v); break;
    case PLUMB_BF16: ((uint16_t *)data)[i] = plumb_f64_to_bf16(v); break;
    default:   /* the verifier admits the float types and these only */
        if (plumb_fpfmt_get(t))
            plumb_store_bits(t, data, i, plumb_f64_to_small(plumb_fpfmt_get(t), v));
        break;
    }
}

static bool float_type(plumb_dtype t)
{
    return t == PLUMB_F64 || t == PLUMB_F32 || t == PLUMB_F16 || t == PLUMB_BF16 || plumb_fpfmt_get(t) ||
           t == PLUMB_C64 || t == PLUMB_C128;
}

typedef double _Complex cd;

static cd load_c(const plumb_tensor *t, size_t i)
{
    double re, im;
    plumb_complex_load(t->dtype, t->data, i, &re, &im);
    return CMPLX(re, im);
}

static void store_c(plumb_tensor *t, size_t i, cd v)
{
    plumb_complex_store(t->dtype, t->data, i, creal(v), cimag(v));
}

static uint64_t batch_count(const plumb_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d + 2 < t->rank; d++)
        n *= (uint64_t)t->dims[d];
    return n;
}

typedef struct trsm_job {
    const plumb_tensor *A, *B;
    plumb_tensor *X;
    int64_t n, m, k, nvec;
    bool left, lower_a, unit, t_transposed, t_lower, conj_a;
    volatile int nomem;
} trsm_job;

static double load_r(const plumb_tensor *t, size_t i)
{
    return plumb_load_f64(t->dtype, t->data, i);
}

static void store_r(plumb_tensor *t, size_t i, double v)
{
    store_d(t->dtype, t->data, i, v);
}

static double conj_r(double v)
{
    return v;
}

/* The substitution over batch members [begin, end), its arithmetic in
 * element type ET (double for the real types, double complex for complex
 * ones) read by LOAD and written by STORE: one body for both, so the real
 * and the complex solve cannot drift apart. T is op(a) as stored, the
 * triangle of a (unit diagonal when asked) transposed when the solve reads
 * it that way and conjugated (CONJ) for ADJOINT: op(a) = conj(a)^T, and
 * op(a)^T = conj(a) for a right-side solve. W(r, v) is element r of
 * right-hand side v; each row is solved in place, in T's triangle order. */
#define TRSM_RANGE(NAME, ET, LOAD, STORE, CONJ)                                                          \
    static void NAME(trsm_job *j, uint64_t begin, uint64_t end)                                         \
    {                                                                                                   \
        int64_t n = j->n, nvec = j->nvec;                                                               \
        size_t nn = (size_t)n;                                                                          \
        ET *T = malloc((nn * nn + nn * (size_t)nvec + 1) * sizeof *T);                                  \
        if (!T) {                                                                                       \
            j->nomem = 1;                                                                               \
            return;                                                                                     \
        }                                                                                               \
        ET *W = T + nn * nn;                                                                            \
        for (uint64_t bi = begin; bi < end; bi++) {                                                     \
            size_t abase = (size_t)(bi * nn * nn), bbase = (size_t)(bi * (uint64_t)j->m * (uint64_t)j->k); \
            for (int64_t r = 0; r < n; r++)                                                             \
                for (int64_t q = 0; q < n; q++) {                                                       \
                    int64_t ar = j->t_transposed ? q : r, ac = j->t_transposed ? r : q;                 \
                    bool in_tri = j->lower_a ? ar >= ac : ar <= ac;                                     \
                    ET v = 0.0;                                                                         \
                    if (ar == ac && j->unit)                                                            \
                        v = 1.0;                                                                        \
                    else if (in_tri)                                                                    \
                        v = LOAD(j->A, abase + (size_t)(ar * n + ac));                                  \
                    T[r * n + q] = j->conj_a ? CONJ(v) : v;                                             \
                }                                                                                       \
            for (int64_t r = 0; r < n; r++)                                                             \
                for (int64_t v = 0; v < nvec; v++) {                                                    \
                    size_t src = j->left ? (size_t)(r * j->k + v) : (size_t)(v * j->k + r);             \
                    W[r * nvec + v] = LOAD(j->B, bbase + src);                                          \
                }                                                                                       \
            for (int64_t s = 0; s < n; s++) {                                                           \
                int64_t r = j->t_lower ? s : n - 1 - s;                                                 \
                ET *wr = W + r * nvec;                                                                  \
                int64_t q0 = j->t_lower ? 0 : r + 1, q1 = j->t_lower ? r : n;                           \
                for (int64_t q = q0; q < q1; q++) {                                                     \
                    ET t = T[r * n + q];                                                                \
                    const ET *wq = W + q * nvec;                                                        \
                    for (int64_t v = 0; v < nvec; v++)                                                  \
                        wr[v] -= t * wq[v];                                                             \
                }                                                                                       \
                ET d = T[r * n + r];                                                                    \
                for (int64_t v = 0; v < nvec; v++)                                                      \
                    wr[v] /= d;                                                                         \
            }                                                                                           \
            for (int64_t r = 0; r < n; r++)                                                             \
                for (int64_t v = 0; v < nvec; v++) {                                                    \
                    size_t dst = j->left ? (size_t)(r * j->k + v) : (size_t)(v * j->k + r);             \
                    STORE(j->X, bbase + dst, W[r * nvec + v]);                                          \
                }                                                                                       \
        }                                                                                               \
        free(T);                                                                                        \
    }

TRSM_RANGE(trsm_real_range, double, load_r, store_r, conj_r)
TRSM_RANGE(trsm_complex_range, cd, load_c, store_c, conj)
#undef TRSM_RANGE

static void trsm_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    trsm_job *j = ctx;
    if (plumb_dtype_is_complex(j->X->dtype))
        trsm_complex_range(j, begin, end);
    else
        trsm_real_range(j, begin, end);
}

bool rt_op_TRIANGULAR_SOLVE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *A = in[0], *B = in[1];
    plumb_tensor *X = out[0];
    const ir_attrs *at = &op->a;
    if (A->rank < 2 || A->rank != B->rank || X->rank != B->rank || A->dims[A->rank - 1] != A->dims[A->rank - 2] ||
        !float_type(X->dtype) || X->dtype != B->dtype || X->nbytes != B->nbytes)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a must be a batch of square float matrices of b's rank and type");
    uint32_t R = B->rank;
    trsm_job j = {.A = A, .B = B, .X = X, .n = A->dims[R - 1], .m = B->dims[R - 2], .k = B->dims[R - 1],
                  .left = at->left_side, .lower_a = at->lower, .unit = at->unit_diagonal};
    if ((j.left ? j.m : j.k) != j.n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "b's dimension %u has size %lld, a is %lldx%lld",
                       j.left ? R - 2 : R - 1, (long long)(j.left ? j.m : j.k), (long long)j.n, (long long)j.n);
    bool trans = at->transpose_a != IR_TRANSPOSE_NO_TRANSPOSE;
    j.t_transposed = trans != !j.left;
    j.t_lower = j.lower_a != j.t_transposed;
    j.conj_a = at->transpose_a == IR_TRANSPOSE_ADJOINT && plumb_dtype_is_complex(X->dtype);
    j.nvec = j.left ? j.k : j.m;
    uint64_t nb = batch_count(B);
    if (nb && j.n && j.nvec)
        rt_parallel_for(x, nb, 1, trsm_range, &j);
    if (j.nomem)
        return rt_fail(x, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld solve", (long long)j.n, (long long)j.n);
    return true;
}

typedef struct chol_job {
    const plumb_tensor *A;
    plumb_tensor *L;
    int64_t n;
    bool lower;
    volatile int nomem;
} chol_job;

/* complex batch members: the reference's algorithm (ref/linalg.c) in double
 * complex: the pivot Re(s_jj) - sum |l_jq|^2, then column j below it,
 * (s_ij - sum l_iq conj(l_jq)) / l_jj; U = L^H when upper */
static void chol_complex_range(chol_job *j, uint64_t begin, uint64_t end)
{
    int64_t n = j->n;
    size_t nn = (size_t)n;
    cd *W = malloc((nn * nn + 1) * sizeof *W);
    if (!W) {
        j->nomem = 1;
        return;
    }
    for (uint64_t bi = begin; bi < end; bi++) {
        size_t base = (size_t)(bi * nn * nn);
        bool pd = true;
        for (int64_t jj = 0; jj < n && pd; jj++) {
            double d = creal(load_c(j->A, base + (size_t)(jj * n + jj)));
            const cd *wj = W + jj * n;
            for (int64_t q = 0; q < jj; q++)
                d -= creal(wj[q]) * creal(wj[q]) + cimag(wj[q]) * cimag(wj[q]);
            if (!(d > 0.0)) {
                pd = false;
                break;
            }
            double djj = sqrt(d);
            W[jj * n + jj] = djj;
            for (int64_t i = jj + 1; i < n; i++) {
                cd s = j->lower ? load_c(j->A, base + (size_t)(i * n + jj)) : conj(load_c(j->A, base + (size_t)(jj * n + i)));
                const cd *wi = W + i * n;
                for (int64_t q = 0; q < jj; q++)
                    s -= wi[q] * conj(wj[q]);
                W[i * n + jj] = CMPLX(creal(s) / djj, cimag(s) / djj);
            }
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t c = 0; c < n; c++) {
                int64_t li = j->lower ? i : c, lj = j->lower ? c : i;
                cd v = !pd ? CMPLX(NAN, NAN) : li >= lj ? W[li * n + lj] : 0.0;
                store_c(j->L, base + (size_t)(i * n + c), pd && li > lj && !j->lower ? conj(v) : v);
            }
    }
    free(W);
}

static void chol_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    chol_job *j = ctx;
    if (plumb_dtype_is_complex(j->L->dtype)) {
        chol_complex_range(j, begin, end);
        return;
    }
    int64_t n = j->n;
    size_t nn = (size_t)n;
    double *W = malloc((nn * nn + 1) * sizeof *W);
    if (!W) {
        j->nomem = 1;
        return;
    }
    for (uint64_t bi = begin; bi < end; bi++) {
        size_t base = (size_t)(bi * nn * nn);
        bool pd = true;
        for (int64_t jj = 0; jj < n && pd; jj++)
            for (int64_t i = jj; i < n; i++) {
                size_t src = j->lower ? (size_t)(i * n + jj) : (size_t)(jj * n + i);
                double s = plumb_load_f64(j->A->dtype, j->A->data, base + src);
                const double *wi = W + i * n, *wj = W + jj * n;
                for (int64_t q = 0; q < jj; q++)
                    s -= wi[q] * wj[q];
                if (i == jj) {
                    if (!(s > 0.0)) {
                        pd = false;
                        break;
                    }
                    W[jj * n + jj] = sqrt(s);
                } else {
                    W[i * n + jj] = s / W[jj * n + jj];
                }
            }
        for (int64_t i = 0; i < n; i++)
            for (int64_t c = 0; c < n; c++) {
                int64_t li = j->lower ? i : c, lj = j->lower ? c : i;
                double v = !pd ? NAN : li >= lj ? W[li * n + lj] : 0.0;
                store_d(j->L->dtype, j->L->data, base + (size_t)(i * n + c), v);
            }
    }
    free(W);
}

bool rt_op_CHOLESKY(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *A = in[0];
    plumb_tensor *L = out[0];
    if (A->rank < 2 || A->dims[A->rank - 1] != A->dims[A->rank - 2] || L->nbytes != A->nbytes ||
        L->dtype != A->dtype || !float_type(L->dtype))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a must be a batch of square float matrices of the result's type");
    chol_job j = {.A = A, .L = L, .n = A->dims[A->rank - 1], .lower = op->a.lower};
    uint64_t nb = batch_count(A);
    if (nb && j.n)
        rt_parallel_for(x, nb, 1, chol_range, &j);
    if (j.nomem)
        return rt_fail(x, op, PLUMB_ERR_NOMEM, "no memory for a %lldx%lld factorization", (long long)j.n, (long long)j.n);
    return true;
}
