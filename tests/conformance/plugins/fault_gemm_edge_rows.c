/* Planted fault: a blocked GEMM (64-row panels) that never runs its last
 * partial panel: a dot or dot_general result with more than 64 rows keeps
 * zeros in the rows past the last multiple of 64. Every dot case had at
 * most 7 result rows and 5 columns before the sizes family
 * (conformance/gen_sizes.c: 131x300 . 300x67, every wide real type). */
#define FAULT_NAME "fault_gemm_edge_rows"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if ((!fd_is(text, "stablehlo.dot ") && !fd_is(text, "stablehlo.dot_general ")) || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (b->rank != 2 || b->dims[0] <= 64 || b->dims[0] % 64 == 0 || !b->data) return;
    uint64_t n = fault_numel(b), rows = (uint64_t)b->dims[0], cols = (uint64_t)b->dims[1];
    size_t es = b->byte_size / n;
    uint64_t whole = rows / 64 * 64;
    memset((unsigned char *)b->data + whole * cols * es, 0, (size_t)((rows - whole) * cols) * es);
}
