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
 *             gives NaN). */
#include <math.h>
#include <string.h>

#include "linalg_bound.h"
#include "plumb/dtype.h"

static uint64_t to_bits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    default: return 0;
    }
}

static double sym_uniform(gsl_rng *rng) { return gsl_rng_uniform(rng) * 2.0 - 1.0; }

bool conf_linalg_fill(plumb_opcode op, const char *vc, plumb_tensor *a, gsl_rng *rng)
{
    if (a->rank < 2 || !plumb_dtype_is_float(a->dtype)) return false;
    plumb_dtype t = a->dtype;
    int64_t n = a->dims[a->rank - 1];
    uint64_t nb = 1;
    for (uint32_t d = 0; d + 2 < a->rank; d++) nb *= (uint64_t)a->dims[d];
    size_t nn = (size_t)n;
    double M[16 * 16], S[16 * 16];
    if (n > 16) return false;
    bool half = t == PLUMB_F16 || t == PLUMB_BF16;
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
