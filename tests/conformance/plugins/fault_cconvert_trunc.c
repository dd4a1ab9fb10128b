/* Planted fault: convert complex<f64> -> complex<f32> truncates the
 * imaginary part toward zero instead of rounding it to nearest even (the
 * real part stays right): what a backend that narrows the two halves by
 * different routines, one a bit-shift, would do. The f32 result is one ulp
 * short in magnitude wherever the f64 component was above the midpoint,
 * and the largest finite value instead of inf past the overflow threshold.
 * Planted after the inner backend ran, from the operand. */
#define FAULT_NAME "fault_cconvert_trunc"
#include <math.h>

#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.convert") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *y = &o->buffers[0];
    if (fault_dtype(&in[0]) != PLUMB_C128 || fault_dtype(y) != PLUMB_C64) return;
    const double *x = in[0].data;
    float *r = y->data;
    for (uint64_t i = 0, n = fault_numel(y); i < n; i++) {
        double d = x[2 * i + 1];
        if (isnan(d)) continue;
        float f = (float)d;
        if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);   /* toward zero */
        r[2 * i + 1] = f;
    }
}
