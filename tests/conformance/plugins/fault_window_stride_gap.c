/* Planted fault: reduce_window on a rank-2 operand (no padding or
 * dilation) whose strides exceed the window steps its windows by the
 * window size instead of the stride (a sliding-window kernel that assumes
 * overlapping windows): result (i, j) is the window at (i·w0, j·w1).
 * Planted for a maximum body. Before the sizes family's gaps cases every
 * window stride was at most the window. */
#define FAULT_NAME "fault_window_stride_gap"
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static int two_after(const char *text, const char *key, int64_t v[2])
{
    const char *p = strstr(text, key);
    if (!p) return 0;
    char *e;
    v[0] = strtoll(p + strlen(key), &e, 10);
    if (*e != ',') return 1;
    v[1] = strtoll(e + 1, NULL, 10);
    return 2;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.reduce_window") || !strstr(text, "stablehlo.maximum") || strstr(text, "padding") ||
        strstr(text, "dilations") || n_in != 2 || o->n_buffers != 1)
        return;
    int64_t w[2], s[2];
    if (two_after(text, "window_dimensions = array<i64: ", w) != 2 || two_after(text, "window_strides = array<i64: ", s) != 2)
        return;
    if (s[0] <= w[0] && s[1] <= w[1]) return;
    const plumb_backend_buffer *x = &in[0], *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (x->rank != 2 || b->rank != 2 || !b->data) return;
    for (int64_t i = 0; i < b->dims[0]; i++)
        for (int64_t j = 0; j < b->dims[1]; j++) {
            uint64_t best = plumb_load_bits(t, in[1].data, 0);
            for (int64_t a = 0; a < w[0]; a++)
                for (int64_t c = 0; c < w[1]; c++) {
                    int64_t r = i * w[0] + a, q = j * w[1] + c;
                    if (r >= x->dims[0] || q >= x->dims[1]) continue;
                    uint64_t v = plumb_load_bits(t, x->data, (size_t)(r * x->dims[1] + q));
                    uint8_t bv[8] = {0}, vv[8] = {0};
                    plumb_store_bits(t, bv, 0, best);
                    plumb_store_bits(t, vv, 0, v);
                    bool gt = plumb_dtype_is_float(t) ? plumb_load_f64(t, vv, 0) > plumb_load_f64(t, bv, 0)
                              : plumb_dtype_is_signed(t) ? plumb_load_i64(t, vv, 0) > plumb_load_i64(t, bv, 0)
                              : v > best;
                    if (gt) best = v;
                }
            plumb_store_bits(t, b->data, (size_t)(i * b->dims[1] + j), best);
        }
}
