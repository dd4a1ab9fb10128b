/* Matrices for the triangular_solve and cholesky conformance cases
 * (docs/spec/linalg.md, "Conformance"); conformance/gen.c writes the
 * programs and calls these for the values.
 *
 * triangular_solve, per batch member (both triangles filled, whichever the
 * case reads; a unit diagonal's values are ignored by the op):
 *   wellcond  diagonal ±[1, 2), off-diagonal uniform in (-1/n, 1/n): the
 *             matrix is diagonally dominant, its condition number small;
 *   illcond   diagonal ±[2^-k, 1] with k = 2 (f16, bf16) or 6 (f32, f64),
 *             off-diagonal uniform in (-1, 1): solutions grow like
 *             (1 + 2^k)^n and cancel, the regime the bound's M(T)^-1 term
 *             is for, kept inside f16's range at n = 5.
 * cholesky, per batch member (symmetric, rounded elementwise so it stays
 * symmetric):
 *   spd       M M^T + n I, M uniform in (-1, 1): well conditioned;
 *   illcond   M M^T + d I with M of n - 1 columns (rank n - 1) and
 *             d = 2^-(p/2), p the type's significand bits: condition number
 *             about 1/d, still positive definite after rounding (the
 *             rounding's perturbation, about n u, is below d);
 *   notpd     spd with the last diagonal element set to -1: the last pivot
 *             is negative (the spec leaves the result undefined; plumb
 *             gives NaN).
 * complex<f32>/complex<f64>: the same classes with complex entries: a
 * triangular diagonal of the same moduli and a uniform phase, off-diagonal
 * components uniform in the real range divided by sqrt(2) (moduli within
 * it); Hermitian matrices M M^H + s I with complex M (components uniform in
 * (-1, 1)), so the diagonal is real.
 * FP8/FP6/FP4 (conf_linalg_family_types; not f8E8M0FNU, which has no sign
 * and no zero, so no triangular system or factor of these classes):
 * triangular_solve's classes as above, each value rounded once to the
 * format (a diagonal that rounds to 0 becomes +-1); cholesky's matrices are
 * built from representable values so that rounding cannot spoil them:
 *   spd       off-diagonal uniform in (-1, 1) rounded to the format and
 *             mirrored, diagonal n (every format holds 1..4): strictly
 *             diagonally dominant, so positive definite;
 *   illcond   the same off-diagonal, diagonal the smallest format value >=
 *             the row's sum of |off-diagonal| (at least the format's 1/2):
 *             barely dominant, near singular;
 *   notpd     spd with the last diagonal element -1.
 * f8E8M0FNU (powers of two 2^-127 .. 2^127 and a NaN; no sign, no zero):
 * every value 2^k with k uniform in a range per class, so the results are
 * powers of two or NaN (the rounding of a negative value) and the checker
 * judges them by enclosing the wide result (check_linalg.c):
 *   triangular_solve  wellcond: diagonal 2^[-1, 1], off-diagonal
 *             2^[-6, -3] (mostly positive solutions, rounding decided near
 *             the midpoints 1.5 * 2^e); illcond: diagonal 2^[-2, 0],
 *             off-diagonal 2^[-1, 0] (growth and negative components);
 *             symmetric (each shape class reads its own triangle);
 *             right-hand sides 2^[-1, 1], the first 2^-127 (its solution
 *             component underflows to the format's least value);
 *   cholesky  spd: diagonal 2^[2, 4], off-diagonal 2^[-3, 0]; illcond:
 *             diagonal 2^[0, 1], off-diagonal 2^[-1, 0] (pivots near and
 *             below zero); notpd: spd with the last diagonal 2^-127, the
 *             format's least value, so the last pivot is negative. */
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include <math.h>
#include <string.h>

#include "linalg_bound.h"
#include "plumb/complex.h"
#include "plumb/dtype.h"
#include "plumb/fp8.h"

static uint64_t to_bits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    default: return plumb_fpfmt_get(t) ? plumb_f64_to_small(plumb_fpfmt_get(t), v) : 0;
    }
}

static double sym_uniform(gsl_rng *rng) { return gsl_rng_uniform(rng) * 2.0 - 1.0; }

/* v rounded to the small format t and back */
static double small_round(plumb_dtype t, double v)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    return plumb_small_to_f64(f, plumb_f64_to_small(f, v));
}

/* the smallest value of the small format t that is >= v > 0 (a positive
 * pattern's successor is the next value up) */
static double small_ceil(plumb_dtype t, double v)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    uint32_t b = plumb_f64_to_small(f, v);
    if (plumb_small_to_f64(f, b) < v) b++;
    return plumb_small_to_f64(f, b);
}

bool conf_linalg_family_type(plumb_dtype t)
{
    return t == PLUMB_C64 || t == PLUMB_C128 || plumb_fpfmt_get(t);
}

/* 2^k, k uniform in [lo, hi] */
static double pow2(gsl_rng *rng, int lo, int hi)
{
    return ldexp(1.0, lo + (int)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1)));
}

/* f8E8M0FNU matrices (the classes at the top) */
static void fill_e8m0(plumb_opcode op, const char *vc, plumb_tensor *a, gsl_rng *rng, int64_t n, uint64_t nb)
{
    bool ill = !strcmp(vc, "illcond");
    size_t nn = (size_t)n;
    double S[16 * 16];
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)bi * nn * nn;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c <= r; c++) {
                double v;
                if (op == PLUMB_OP_TRIANGULAR_SOLVE)
                    v = r == c ? (ill ? pow2(rng, -2, 0) : pow2(rng, -1, 1)) : ill ? pow2(rng, -1, 0) : pow2(rng, -6, -3);
                else
                    v = r == c ? (ill ? pow2(rng, 0, 1) : pow2(rng, 2, 4)) : ill ? pow2(rng, -1, 0) : pow2(rng, -3, 0);
                S[r * 16 + c] = S[c * 16 + r] = v;
            }
        if (op == PLUMB_OP_CHOLESKY && !strcmp(vc, "notpd") && n > 0) S[(n - 1) * 16 + (n - 1)] = 0x1p-127;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                plumb_store_bits(a->dtype, a->data, base + (size_t)(r * n + c), to_bits(a->dtype, S[r * 16 + c]));
    }
}

uint32_t conf_linalg_family_cases(plumb_opcode op, bool full)
{
    uint32_t ns, nv;
    if (op == PLUMB_OP_TRIANGULAR_SOLVE) { ns = 6; nv = 2; }
    else if (op == PLUMB_OP_CHOLESKY) { ns = 5; nv = 3; }
    else return 0;
    uint32_t nt = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) nt += conf_linalg_family_type((plumb_dtype)t);
    return nt * (full ? ns * nv : ns + nv - 1);
}

void conf_linalg_fill_rhs(plumb_tensor *b, gsl_rng *rng)
{
    plumb_dtype t = b->dtype;
    for (uint64_t i = 0, n = plumb_tensor_numel(b); i < n; i++) {
        if (t == PLUMB_F8E8M0FNU) {   /* no sign: powers of two (the top) */
            plumb_store_bits(t, b->data, (size_t)i, to_bits(t, i == 0 ? 0x1p-127 : pow2(rng, -1, 1)));
        } else if (plumb_dtype_is_complex(t)) {
            double re = sym_uniform(rng), im = sym_uniform(rng);
            plumb_complex_store(t, b->data, (size_t)i, re, im);
        } else {
            plumb_store_bits(t, b->data, (size_t)i, to_bits(t, sym_uniform(rng)));
        }
    }
}

/* complex<f32>/complex<f64> matrices (the classes at the top) */
static bool fill_complex(plumb_opcode op, const char *vc, plumb_tensor *a, gsl_rng *rng, int64_t n, uint64_t nb)
{
    plumb_dtype t = a->dtype;
    size_t nn = (size_t)n;
    double _Complex M[16 * 16], S[16 * 16];
    bool ill = !strcmp(vc, "illcond");
    double p = (double)plumb_dtype_get(t)->mant_bits + 1;
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)bi * nn * nn;
        if (op == PLUMB_OP_TRIANGULAR_SOLVE) {
            for (int64_t r = 0; r < n; r++)
                for (int64_t c = 0; c < n; c++) {
                    double _Complex v;
                    if (r == c) {
                        double mag = ill ? exp2(-6.0 * gsl_rng_uniform(rng)) : 1.0 + gsl_rng_uniform(rng);
                        double th = 2.0 * M_PI * gsl_rng_uniform(rng);
                        v = CMPLX(mag * cos(th), mag * sin(th));
                    } else {
                        double sc = (ill ? 1.0 : 1.0 / (double)n) / sqrt(2.0);
                        double re = sym_uniform(rng) * sc, im = sym_uniform(rng) * sc;
                        v = CMPLX(re, im);
                    }
                    plumb_complex_store(t, a->data, base + (size_t)(r * n + c), creal(v), cimag(v));
                }
            continue;
        }
        int64_t cols = ill && n > 1 ? n - 1 : n;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < cols; c++) {
                double re = sym_uniform(rng), im = sym_uniform(rng);
                M[r * 16 + c] = CMPLX(re, im);
            }
        double shift = ill ? exp2(-p / 2.0) : (double)n;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c <= r; c++) {
                double _Complex s = 0.0;
                for (int64_t k = 0; k < cols; k++) s += M[r * 16 + k] * conj(M[c * 16 + k]);
                if (r == c) s = CMPLX(creal(s) + shift, 0.0);   /* Hermitian: a real diagonal */
                S[r * 16 + c] = s;
                S[c * 16 + r] = conj(s);
            }
        if (!strcmp(vc, "notpd") && n > 0) S[(n - 1) * 16 + (n - 1)] = -1.0;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                plumb_complex_store(t, a->data, base + (size_t)(r * n + c), creal(S[r * 16 + c]), cimag(S[r * 16 + c]));
    }
    return true;
}

/* cholesky's matrices in the small formats (the classes at the top) */
static void fill_small_chol(const char *vc, plumb_tensor *a, gsl_rng *rng, int64_t n, uint64_t nb)
{
    plumb_dtype t = a->dtype;
    size_t nn = (size_t)n;
    double S[16 * 16];
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)bi * nn * nn;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < r; c++) S[r * 16 + c] = S[c * 16 + r] = small_round(t, sym_uniform(rng));
        for (int64_t r = 0; r < n; r++) {
            double off = 0.0;
            for (int64_t c = 0; c < n; c++) off += c == r ? 0.0 : fabs(S[r * 16 + c]);
            S[r * 16 + r] = !strcmp(vc, "illcond") ? small_ceil(t, off > 0.5 ? off : 0.5) : (double)n;
        }
        if (!strcmp(vc, "notpd") && n > 0) S[(n - 1) * 16 + (n - 1)] = -1.0;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                plumb_store_bits(t, a->data, base + (size_t)(r * n + c), to_bits(t, S[r * 16 + c]));
    }
}

bool conf_linalg_fill(plumb_opcode op, const char *vc, plumb_tensor *a, gsl_rng *rng)
{
    if (a->rank < 2 || !(plumb_dtype_is_float(a->dtype) || plumb_dtype_is_complex(a->dtype)))
        return false;
    plumb_dtype t = a->dtype;
    int64_t n = a->dims[a->rank - 1];
    uint64_t nb = 1;
    for (uint32_t d = 0; d + 2 < a->rank; d++) nb *= (uint64_t)a->dims[d];
    size_t nn = (size_t)n;
    double M[16 * 16], S[16 * 16];
    if (n > 16) return false;
    if (op != PLUMB_OP_TRIANGULAR_SOLVE && op != PLUMB_OP_CHOLESKY) return false;
    if (plumb_dtype_is_complex(t)) return fill_complex(op, vc, a, rng, n, nb);
    if (t == PLUMB_F8E8M0FNU) {
        fill_e8m0(op, vc, a, rng, n, nb);
        return true;
    }
    bool small = plumb_fpfmt_get(t) != NULL;
    if (small && op == PLUMB_OP_CHOLESKY) {
        fill_small_chol(vc, a, rng, n, nb);
        return true;
    }
    bool half = t == PLUMB_F16 || t == PLUMB_BF16 || small;
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)bi * nn * nn;
        if (op == PLUMB_OP_TRIANGULAR_SOLVE) {
            bool ill = !strcmp(vc, "illcond");
            for (int64_t r = 0; r < n; r++)
                for (int64_t c = 0; c < n; c++) {
                    double v;
                    if (r == c) {
                        double mag = ill ? exp2(-(half ? 2.0 : 6.0) * gsl_rng_uniform(rng)) : 1.0 + gsl_rng_uniform(rng);
                        v = gsl_rng_uniform(rng) < 0.5 ? -mag : mag;
                        if (small && small_round(t, v) == 0.0) v = v < 0 ? -1.0 : 1.0;
                    } else {
                        v = ill ? sym_uniform(rng) : sym_uniform(rng) / (double)n;
                    }
                    plumb_store_bits(t, a->data, base + (size_t)(r * n + c), to_bits(t, v));
                }
            continue;
        }
        if (op != PLUMB_OP_CHOLESKY) return false;
        bool ill = !strcmp(vc, "illcond");
        int64_t cols = ill && n > 1 ? n - 1 : n;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < cols; c++) M[r * 16 + c] = sym_uniform(rng);
        double shift = ill ? exp2(-(double)(plumb_dtype_get(t)->mant_bits + 1) / 2.0) : (double)n;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c <= r; c++) {
                double s = 0.0;
                for (int64_t k = 0; k < cols; k++) s += M[r * 16 + k] * M[c * 16 + k];
                if (r == c) s += shift;
                S[r * 16 + c] = S[c * 16 + r] = s;
            }
        if (!strcmp(vc, "notpd") && n > 0) S[(n - 1) * 16 + (n - 1)] = -1.0;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                plumb_store_bits(t, a->data, base + (size_t)(r * n + c), to_bits(t, S[r * 16 + c]));
    }
    return true;
}
