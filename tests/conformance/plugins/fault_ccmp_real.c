/* Planted fault: an ordered compare of complex values (LT, LE, GT, GE)
 * looks at the real parts only, as a backend that orders complex numbers
 * by their real part would: where the real parts tie, the imaginary part
 * no longer decides (the spec's order is lexicographic on (real, imag)).
 * EQ and NE stay right, so only the complex-ops family's ordered compare
 * cases (real parts from a small pool, so ties are common) see it. */
#define FAULT_NAME "fault_ccmp_real"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    const char *c = strstr(text, "stablehlo.compare");
    if (!c || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(&in[0]);
    if (!plumb_dtype_is_complex(t) || fault_dtype(b) != PLUMB_I1 || !fd_same_numel(in, n_in, b)) return;
    c += strlen("stablehlo.compare");
    while (*c == ' ') c++;
    int dir = !strncmp(c, "LT", 2) ? 0 : !strncmp(c, "LE", 2) ? 1 : !strncmp(c, "GT", 2) ? 2 : !strncmp(c, "GE", 2) ? 3 : -1;
    if (dir < 0) return;
    plumb_dtype ct = plumb_dtype_component(t);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double x = plumb_load_f64(ct, in[0].data, 2 * i), y = plumb_load_f64(ct, in[1].data, 2 * i);
        bool v = dir == 0 ? x < y : dir == 1 ? x <= y : dir == 2 ? x > y : x >= y;
        plumb_store_bits(PLUMB_I1, b->data, i, v);
    }
}
