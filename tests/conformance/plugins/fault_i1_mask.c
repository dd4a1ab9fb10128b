/* Planted fault: i1 results written as SIMD comparison masks, 0xFF for
 * true, instead of the one byte 0 or 1 the ABI requires (docs/abi.md).
 * The checker compares i1 results as integers, so 255 is not 1. */
#define FAULT_NAME "fault_i1_mask"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        if (fault_dtype(b) != PLUMB_I1 || !b->data) continue;
        unsigned char *p = b->data;
        for (size_t i = 0; i < b->byte_size; i++)
            if (p[i]) p[i] = 0xFF;
    }
}
