/* Planted fault: complex cholesky factors with the real algorithm's
 * products, L L^T instead of L L^H: the column update subtracts
 * l_iq * l_jq where the Hermitian factorization subtracts l_iq * conj(l_jq)
 * (the pivots stay right). Applies to lower and upper factors of every
 * complex cholesky case; a real one is left alone. */
#define FAULT_NAME "fault_cchol_noconj"
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include "plumb/backend.h"
#include "plumb/complex.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.cholesky") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    uint32_t r = in[0].rank;
    if (!plumb_dtype_is_complex(t) || r < 2 || in[0].dims[r - 1] != in[0].dims[r - 2] || in[0].dims[r - 1] > 16) return;
    bool lower = strstr(text, "lower = true") != NULL;
    int64_t n = in[0].dims[r - 1];
    uint64_t nb = n ? fault_numel(b) / (uint64_t)(n * n) : 0;
    double _Complex W[16 * 16];
    for (uint64_t bi = 0; bi < nb; bi++) {
        size_t base = (size_t)(bi * (uint64_t)(n * n));
        bool pd = true;
        for (int64_t j = 0; j < n && pd; j++) {
            double re, im, d;
            plumb_complex_load(t, in[0].data, base + (size_t)(j * n + j), &d, &im);
            for (int64_t q = 0; q < j; q++) d -= creal(W[j * 16 + q] * conj(W[j * 16 + q]));
            if (!(d > 0)) { pd = false; break; }
            W[j * 16 + j] = sqrt(d);
            for (int64_t i = j + 1; i < n; i++) {
                plumb_complex_load(t, in[0].data, base + (size_t)(lower ? i * n + j : j * n + i), &re, &im);
                double _Complex s = lower ? CMPLX(re, im) : CMPLX(re, -im);
                for (int64_t q = 0; q < j; q++) s -= W[i * 16 + q] * W[j * 16 + q];   /* the fault: no conj */
                W[i * 16 + j] = s / creal(W[j * 16 + j]);
            }
        }
        if (!pd) continue;   /* leave the reference's NaN */
        for (int64_t i = 0; i < n; i++)
            for (int64_t c = 0; c < n; c++) {
                int64_t li = lower ? i : c, lj = lower ? c : i;
                double _Complex v = li >= lj ? W[li * 16 + lj] : 0.0;
                if (!lower) v = conj(v);
                plumb_complex_store(t, b->data, base + (size_t)(i * n + c), creal(v), cimag(v));
            }
    }
}
