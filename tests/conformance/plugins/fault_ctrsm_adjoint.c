/* Planted fault: complex triangular_solve treats transpose_a = ADJOINT as
 * TRANSPOSE (op(a) = a^T instead of conj(a)^T). Applies to the
 * right-side solves x op(a) = b, where op(a)^T = a (not conj(a)) is then
 * substituted, lower or upper; other cases are left alone. */
#define FAULT_NAME "fault_ctrsm_adjoint"
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include "plumb/backend.h"
#include "plumb/complex.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.triangular_solve") || n_in != 2 || o->n_buffers != 1) return;
    if (!strstr(text, "ADJOINT") || !strstr(text, "left_side = false") || strstr(text, "unit_diagonal = true")) return;
    const plumb_backend_buffer *x = &o->buffers[0];
    plumb_dtype t = fault_dtype(x);
    uint32_t r = in[0].rank;
    if (!plumb_dtype_is_complex(t) || r != 2 || in[1].rank != 2) return;
    bool lower = strstr(text, "lower = true") != NULL;
    int64_t n = in[0].dims[1], m = in[1].dims[0];
    if (in[1].dims[1] != n || n > 16) return;
    double _Complex y[16];
    for (int64_t v = 0; v < m; v++)   /* row v of x solves a y = b[v, :] */
        for (int64_t s = 0; s < n; s++) {
            int64_t i = lower ? s : n - 1 - s;
            double re, im;
            plumb_complex_load(t, in[1].data, (size_t)(v * n + i), &re, &im);
            double _Complex acc = CMPLX(re, im);
            for (int64_t q = lower ? 0 : i + 1; q < (lower ? i : n); q++) {
                plumb_complex_load(t, in[0].data, (size_t)(i * n + q), &re, &im);
                acc -= CMPLX(re, im) * y[q];
            }
            plumb_complex_load(t, in[0].data, (size_t)(i * n + i), &re, &im);
            y[i] = acc / CMPLX(re, im);
            if (s == n - 1)
                for (int64_t q = 0; q < n; q++) plumb_complex_store(t, x->data, (size_t)(v * n + q), creal(y[q]), cimag(y[q]));
        }
}
