/* Planted fault: complex multiply drops a cross term: the imaginary part
 * of (a + bi)(c + di) is computed as ad instead of ad + bc (the real part
 * stays right). */
#define FAULT_NAME "fault_cmul_cross"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.multiply ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_complex(t) || !fd_same_numel(in, n_in, b)) return;
    plumb_dtype ct = plumb_dtype_component(t);
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double a = plumb_load_f64(ct, in[0].data, 2 * i), d = plumb_load_f64(ct, in[1].data, 2 * i + 1);
        double im = a * d;
        plumb_store_bits(ct, b->data, 2 * i + 1,
                         ct == PLUMB_F32 ? plumb_f32_bits((float)im) : plumb_f64_bits(im));
    }
}
