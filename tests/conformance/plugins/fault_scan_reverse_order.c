/* Planted fault: chlo.scan with is_reverse = true writes each step's output
 * in step order instead of at the position the step read (a backend that
 * walks the dimension from the end but keeps a forward output index): the
 * output is the correct one reversed along the scan dimension, while the
 * final carry is right. Certification's "reverse" class (7x13 scanned along
 * dimension 0 from the end) must catch it. */
#define FAULT_NAME "fault_scan_reverse_order"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in;
    (void)n_in;
    if (!fd_is(text, "chlo.scan") || !strstr(text, "is_reverse = true") || !strstr(text, "dimension=0") ||
        o->n_buffers != 2)
        return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (b->rank != 2 || b->dims[0] < 2 || !b->data) return;
    uint64_t rows = (uint64_t)b->dims[0], row = b->byte_size / rows;
    unsigned char tmp[4096];
    if (row > sizeof tmp) return;
    for (uint64_t r = 0; r < rows / 2; r++) {
        unsigned char *x = (unsigned char *)b->data + r * row, *y = (unsigned char *)b->data + (rows - 1 - r) * row;
        memcpy(tmp, x, row);
        memcpy(x, y, row);
        memcpy(y, tmp, row);
    }
}
