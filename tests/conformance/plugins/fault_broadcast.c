/* Planted fault: mishandles broadcast_in_dim — every row of a broadcast
 * program's rank-2 result repeats the first row. */
#define FAULT_NAME "fault_broadcast"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if (!strstr(text, "broadcast_in_dim")) return;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        if (b->rank != 2 || b->dims[0] < 2 || b->dims[1] == 0) continue;
        size_t row = (size_t)(b->byte_size / (uint64_t)b->dims[0]);
        for (int64_t i = 1; i < b->dims[0]; i++) memcpy((char *)b->data + (size_t)i * row, b->data, row);
    }
}
