/* Planted fault: the inverse transforms (IFFT, IRFFT) skip their 1/n
 * scaling, a classic slip when an FFT library's unnormalized backward
 * transform is used for StableHLO's normalized one: every result is N times
 * too large (N the product of fft_length). Planted after the inner backend
 * ran, from the fft_length in the program's text. */
#define FAULT_NAME "fault_fft_noscale"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in;
    (void)n_in;
    const char *f = strstr(text, "stablehlo.fft");
    if (!f || o->n_buffers != 1 || !(strstr(f, "IFFT") || strstr(f, "IRFFT"))) return;
    const char *l = strstr(f, "length = [");
    if (!l) return;
    l += strlen("length = [");
    double N = 1;
    while (*l && *l != ']') {
        char *q;
        long long v = strtoll(l, &q, 10);
        if (q == l) { l++; continue; }
        N *= (double)v;
        l = q;
    }
    const plumb_backend_buffer *r = &o->buffers[0];
    plumb_dtype t = fault_dtype(r);
    /* complex results: both components of each element, as 2n scalars */
    plumb_dtype s = plumb_dtype_is_complex(t) ? plumb_dtype_component(t) : t;
    uint64_t n = fault_numel(r) * (plumb_dtype_is_complex(t) ? 2 : 1);
    for (uint64_t i = 0; i < n; i++)
        plumb_store_bits(s, r->data, i, s == PLUMB_F32 ? plumb_f32_bits((float)(plumb_load_f64(s, r->data, i) * N))
                                                       : plumb_f64_bits(plumb_load_f64(s, r->data, i) * N));
}
