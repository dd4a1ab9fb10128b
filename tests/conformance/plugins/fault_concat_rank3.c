/* Planted fault: concatenate along dim 0 of a rank >= 3 result, on element
 * sizes other than 4 bytes (their kernel is separate from the 32-bit one),
 * places operand k at k times the first operand's rows instead of after
 * the rows of the operands before it: with unequal operands (2, 1, 3 rows)
 * the last one lands a row late. Before the sizes family's rank3_dim0
 * cases only f32 was concatenated along dim 0 at rank 3. */
#define FAULT_NAME "fault_concat_rank3"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.concatenate ") || !strstr(text, "dim = 0 ") || o->n_buffers != 1 || n_in < 2) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    uint64_t n = fault_numel(b);
    if (b->rank < 3 || !b->data || n == 0 || b->byte_size / n == 4 || in[0].rank != b->rank) return;
    uint64_t es = b->byte_size / n, row = n / (uint64_t)b->dims[0] * es, rows0 = (uint64_t)in[0].dims[0];
    unsigned char *d = b->data;
    for (size_t k = 1; k < n_in; k++) {
        uint64_t off = k * rows0 * row, len = in[k].byte_size;
        if (off >= b->byte_size) break;
        if (off + len > b->byte_size) len = b->byte_size - off;
        memcpy(d + off, in[k].data, len);
    }
}
