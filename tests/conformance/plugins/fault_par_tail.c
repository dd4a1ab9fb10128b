/* Planted fault: a parallel split that leaves the last partial chunk
 * unwritten once a result passes 2^20 elements (chunks of 65,536; a
 * rounding-down chunk count). Results of that size are zero past the last
 * whole chunk. No case had a result that large before the sizes family
 * (conformance/gen_sizes.c: 1031x1031 add and transpose). */
#define FAULT_NAME "fault_par_tail"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        uint64_t n = fault_numel(b);
        if (n <= (1u << 20) || n % 65536 == 0 || !b->data) continue;
        size_t es = b->byte_size / n;
        uint64_t whole = n / 65536 * 65536;
        memset((unsigned char *)b->data + whole * es, 0, (size_t)(n - whole) * es);
    }
}
