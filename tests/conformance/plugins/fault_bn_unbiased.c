/* Planted fault: batch_norm_training reports the unbiased (sample)
 * variance, sum (x - mean)^2 / (N - 1), instead of the spec's biased one
 * (divided by N) — what a framework's running-variance update uses, and an
 * easy slip when a backend reuses it. batch_var is N / (N - 1) times too
 * large (4/3 for 4 elements per feature, 30/29 for 30). Planted after the
 * inner backend ran, on result 2 (batch_var); N = size(operand) /
 * size(batch_var). */
#define FAULT_NAME "fault_bn_unbiased"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.batch_norm_training") || o->n_buffers != 3 || n_in < 1) return;
    const plumb_backend_buffer *v = &o->buffers[2];
    uint64_t nv = fault_numel(v), nx = fault_numel(&in[0]);
    if (nv == 0 || nx / nv < 2) return;
    double N = (double)(nx / nv);
    plumb_dtype t = fault_dtype(v);
    for (uint64_t i = 0; i < nv; i++) {
        double x = plumb_load_f64(t, v->data, i) * N / (N - 1.0);
        uint64_t b = t == PLUMB_F16 ? plumb_f64_to_f16(x) : t == PLUMB_BF16 ? plumb_f64_to_bf16(x)
                   : t == PLUMB_F32 ? plumb_f32_bits((float)x) : plumb_f64_bits(x);
        plumb_store_bits(t, v->data, i, b);
    }
}
