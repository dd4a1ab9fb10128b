/* Planted fault: f32 scatter-add where two updates land on the same row
 * keeps only the last one (unsynchronized parallel updates: each reads the
 * original operand). Applies to the row-update layout (operand [rows, cols],
 * indices [n, 1], updates [n, cols]). */
#define FAULT_NAME "fault_scatter_race"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.scatter") || !fd_is(text, "stablehlo.add ") || n_in != 3 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0], *x = &in[0], *ix = &in[1], *u = &in[2];
    if (strcmp(b->dtype, "f32") || x->rank != 2 || ix->rank != 2 || u->rank != 2 || ix->dims[1] != 1 ||
        u->dims[1] != x->dims[1] || u->dims[0] != ix->dims[0] || strcmp(ix->dtype, "i32"))
        return;
    int64_t rows = x->dims[0], cols = x->dims[1];
    for (int64_t j = 0; j < u->dims[0]; j++) {
        int64_t r = (int32_t)plumb_load_bits(PLUMB_I32, ix->data, (size_t)j);
        if (r < 0 || r >= rows) continue;
        for (int64_t c = 0; c < cols; c++)
            fd_store_f32(b, (uint64_t)(r * cols + c), (double)((float)fd_load(x, (uint64_t)(r * cols + c)) +
                                                               (float)fd_load(u, (uint64_t)(j * cols + c))));
    }
}
