/* Planted fault: a complex reduce with a multiply body computes each
 * product's imaginary part as ad, dropping bc ((a + bi)(c + di) = (ac - bd)
 * + (ad + bc)i), folding the reduced elements in row-major order onto the
 * init value; the real part stays the textbook one. Recomputed after the
 * inner backend ran, from the operand, the init value and the
 * "across dimensions = [...]" list of the program text. */
#define FAULT_NAME "fault_cprod_cross"
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    const char *p = strstr(text, "applies stablehlo.multiply across dimensions = [");
    if (!p || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *x = &in[0], *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(x);
    if (!plumb_dtype_is_complex(t) || in[0].rank > 8) return;
    plumb_dtype ct = plumb_dtype_component(t);
    bool red[8] = {false};
    p = strchr(p, '[') + 1;
    while (*p && *p != ']') {
        char *e;
        long d = strtol(p, &e, 10);
        if (e == p || d < 0 || d >= (long)x->rank) return;
        red[d] = true;
        p = e;
        while (*p == ',' || *p == ' ') p++;
    }
    uint64_t n_out = fault_numel(b);
    double *acc = malloc(2 * (n_out ? n_out : 1) * sizeof *acc);
    if (!acc) return;
    for (uint64_t i = 0; i < n_out; i++) {
        acc[2 * i] = plumb_load_f64(ct, in[1].data, 0);
        acc[2 * i + 1] = plumb_load_f64(ct, in[1].data, 1);
    }
    /* row-major over the operand: each element folds into the output
     * element of its kept coordinates */
    for (uint64_t i = 0, n = fault_numel(x); i < n; i++) {
        uint64_t rem = i, oi = 0, stride = 1;
        for (int d = (int)x->rank - 1; d >= 0; d--) {
            uint64_t cd = rem % (uint64_t)x->dims[d];
            rem /= (uint64_t)x->dims[d];
            if (red[d]) continue;
            oi += cd * stride;
            stride *= (uint64_t)x->dims[d];
        }
        double a = acc[2 * oi], bb = acc[2 * oi + 1];
        double c = plumb_load_f64(ct, x->data, 2 * i), d = plumb_load_f64(ct, x->data, 2 * i + 1);
        acc[2 * oi] = a * c - bb * d;
        acc[2 * oi + 1] = a * d;
    }
    for (uint64_t i = 0; i < 2 * n_out; i++)
        plumb_store_bits(ct, b->data, i, ct == PLUMB_F32 ? plumb_f32_bits((float)acc[i]) : plumb_f64_bits(acc[i]));
    free(acc);
}
