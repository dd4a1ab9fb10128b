/* Planted fault: float compare NE (FLOAT comparison type) computed as
 * x < y || x > y, which is false when either side is NaN. */
#define FAULT_NAME "fault_ne_nan"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (n_in != 2 || !plumb_dtype_is_float(fault_dtype(&in[0]))) return;
    /* results are returned in the order of the compares in the text */
    const char *p = text;
    for (size_t k = 0; k < o->n_buffers; k++) {
        p = strstr(p, "stablehlo.compare ");
        if (!p) return;
        const char *eol = strchr(p, '\n'), *to = strstr(p, "TOTALORDER");
        bool ne = !strncmp(p + 18, "NE,", 3), total = to && (!eol || to < eol);
        p += 18;
        const plumb_backend_buffer *b = &o->buffers[k];
        if (!ne || total || !fd_same_numel(in, n_in, b)) continue;
        for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
            if (isnan(fd_load(&in[0], i)) || isnan(fd_load(&in[1], i))) plumb_store_bits(PLUMB_I1, b->data, i, 0);
    }
}
