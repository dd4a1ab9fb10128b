/* Planted fault: an f32 dot drops every product with a subnormal operand
 * (a multiplier that flushes its inputs) without declaring flush-to-zero. */
#define FAULT_NAME "fault_dot_flush"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static bool subnormal(double v) { return v != 0 && fabs(v) < 0x1p-126; }

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.dot ") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32") || strcmp(in[0].dtype, "f32") || strcmp(in[1].dtype, "f32")) return;
    if (in[0].rank != 2 || in[1].rank != 2 || b->rank != 2) return;
    int64_t m = in[0].dims[0], k = in[0].dims[1], n = in[1].dims[1];
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            bool dropped = false;
            for (int64_t q = 0; q < k; q++) {
                double a = fd_load(&in[0], (uint64_t)(i * k + q)), c = fd_load(&in[1], (uint64_t)(q * n + j));
                if (subnormal(a) || subnormal(c)) { dropped = true; continue; }
                s += a * c;
            }
            if (dropped && isfinite(s)) fd_store_f32(b, (uint64_t)(i * n + j), s);
        }
}
