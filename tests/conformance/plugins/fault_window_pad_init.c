/* Planted fault: reduce_window fills its padding with 0 instead of the init
 * value (a pooling kernel that zero-pads as convolution does). A window that
 * reaches into the padding then folds an extra 0 into its result: max(r, 0),
 * min(r, 0), r * 0; add's identity is 0, so sums are unchanged. Planted after
 * the inner backend ran, from the window geometry in the program's
 * attributes (edge padding only; base dilation holes are left alone). */
#define FAULT_NAME "fault_window_pad_init"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

#define WMAX 8

/* Up to WMAX integers after `key` in t (array<i64: a, b> or dense<[[a, b], ...]>). */
static int read_ints(const char *t, const char *key, int64_t *v, int want, int64_t dflt)
{
    for (int i = 0; i < want; i++) v[i] = dflt;
    const char *p = strstr(t, key);
    if (!p) return 0;
    p += strlen(key);
    int n = 0;
    while (*p && *p != '>' && n < want) {
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *q;
            v[n++] = strtoll(p, &q, 10);
            p = q;
        } else
            p++;
    }
    return n;
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    const char *rw = strstr(text, "\"stablehlo.reduce_window\"");
    if (!rw || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *x = &in[0], *r = &o->buffers[0];
    int rank = (int)x->rank;
    if (rank == 0 || rank > WMAX || r->rank != x->rank) return;
    int64_t pad[2 * WMAX], wd[WMAX], ws[WMAX], bd[WMAX], wdl[WMAX];
    if (read_ints(rw, "padding = dense<", pad, 2 * rank, 0) != 2 * rank) return;   /* no padding: nothing to fill */
    read_ints(rw, "window_dimensions = array<i64:", wd, rank, 1);
    read_ints(rw, "window_strides = array<i64:", ws, rank, 1);
    read_ints(rw, "base_dilations = array<i64:", bd, rank, 1);
    read_ints(rw, "window_dilations = array<i64:", wdl, rank, 1);
    int body = strstr(rw, "stablehlo.maximum") ? 'M' : strstr(rw, "stablehlo.minimum") ? 'm'
             : strstr(rw, "stablehlo.multiply") ? '*' : 0;
    if (!body) return;
    plumb_dtype t = fault_dtype(r);
    int64_t idx[WMAX] = {0};
    for (uint64_t e = 0, n = fault_numel(r); e < n; e++) {
        bool touches = false;
        for (int d = 0; d < rank && !touches; d++) {
            int64_t lo = idx[d] * ws[d] - pad[2 * d];
            int64_t hi = lo + (wd[d] - 1) * wdl[d];
            int64_t size = x->dims[d] == 0 ? 0 : (x->dims[d] - 1) * bd[d] + 1;
            touches = lo < 0 || hi >= size;
        }
        if (touches) {
            double v = plumb_load_f64(t, r->data, e);
            if ((body == 'M' && v < 0) || (body == 'm' && v > 0) || (body == '*' && !isnan(v) && !isinf(v)))
                plumb_store_bits(t, r->data, e, 0);
        }
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < r->dims[d]) break;
            idx[d] = 0;
        }
    }
}
