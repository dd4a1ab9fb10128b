/* Planted fault: complex dot_general drops the ai·bi term of every product:
 * the real part of a matrix·vector or matrix·matrix product (contracting
 * the lhs's columns with the rhs's rows) is Σ ar·br instead of
 * Σ (ar·br − ai·bi); the imaginary part stays right. */
#define FAULT_NAME "fault_cdot_drop"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.dot_general ") || n_in != 2 || o->n_buffers != 1) return;
    if (!strstr(text, "contracting_dims = [1] x [0]") || strstr(text, "batching_dims")) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_complex(t) || in[0].rank != 2 || (in[1].rank != 1 && in[1].rank != 2)) return;
    plumb_dtype ct = plumb_dtype_component(t);
    int64_t m = in[0].dims[0], k = in[0].dims[1], n = in[1].rank == 2 ? in[1].dims[1] : 1;
    if (in[1].dims[0] != k || (uint64_t)(m * n) != fault_numel(b)) return;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double re = 0;
            for (int64_t p = 0; p < k; p++)
                re += plumb_load_f64(ct, in[0].data, 2 * (uint64_t)(i * k + p)) *
                      plumb_load_f64(ct, in[1].data, 2 * (uint64_t)(p * n + j));
            plumb_store_bits(ct, b->data, 2 * (uint64_t)(i * n + j),
                             ct == PLUMB_F32 ? plumb_f32_bits((float)re) : plumb_f64_bits(re));
        }
}
