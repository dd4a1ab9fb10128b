/* Planted fault: a parallel reduce that starts every thread's partial sum
 * from the init value instead of the identity, so an add reduction over
 * more than 65,536 elements (one chunk) adds the init once per chunk.
 * Right whenever the init is 0, or the reduction fits one chunk: no case
 * reduced that many elements with a non-zero init before the sizes family
 * (conformance/gen_sizes.c: reduce/f32/big2d_all, 1031x1031 to a scalar). */
#define FAULT_NAME "fault_reduce_init_chunks"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    /* one operand, one init, an add body: (x init: c) applies stablehlo.add */
    if (!fd_is(text, "stablehlo.reduce(") || !fd_is(text, "applies stablehlo.add") || n_in != 2 || o->n_buffers != 1)
        return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (fault_dtype(b) != PLUMB_F32 || fault_numel(&in[1]) != 1) return;
    uint64_t n_out = fault_numel(b), n_x = fault_numel(&in[0]);
    if (n_out == 0 || n_x / n_out <= 65536) return;
    uint64_t chunks = (n_x / n_out + 65535) / 65536;
    double c = fd_load(&in[1], 0);
    for (uint64_t i = 0; i < n_out; i++) fd_store_f32(b, i, fd_load(b, i) + (double)(chunks - 1) * c);
}
