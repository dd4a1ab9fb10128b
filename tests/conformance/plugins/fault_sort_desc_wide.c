/* Planted fault: a descending sort (GT comparator) of rows longer than
 * 1024 on element types other than f32 merges its last partial block one
 * step short: the last two elements of each row come out swapped. Before
 * the sizes family's wide_desc cases the long rows (2x1031) were sorted
 * ascending only. */
#define FAULT_NAME "fault_sort_desc_wide"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if (!fd_is(text, "stablehlo.sort") || !strstr(text, "compare GT,")) return;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        uint64_t n = fault_numel(b);
        if (!b->data || b->rank < 1 || n == 0 || !strcmp(b->dtype, "f32")) continue;
        uint64_t cols = (uint64_t)b->dims[b->rank - 1], es = b->byte_size / n;
        if (cols <= 1024 || es > 8) continue;
        unsigned char *d = b->data, tmp[8];
        for (uint64_t r = 0; r < n / cols; r++) {
            unsigned char *e = d + (r * cols + cols - 2) * es;
            memcpy(tmp, e, es);
            memcpy(e, e + es, es);
            memcpy(e + es, tmp, es);
        }
    }
}
