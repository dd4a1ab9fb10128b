/* Planted fault: a backend that gets the data of a polymorphic result right
 * but reports the wrong actual shape — each rank-2 output with two different
 * nonzero sizes comes back with its dims swapped (the same bytes, the same
 * element count). Only a comparison that checks shapes before values can
 * see it: `plumb run --compare` must report a MISMATCH naming both shapes
 * (tests/cli/test_dynamic.sh). */
#define FAULT_NAME "fault_dyn_shape"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        if (b->rank != 2 || b->dims[0] == b->dims[1] || b->dims[0] == 0 || b->dims[1] == 0) continue;
        /* The wrapped backend allocated the dims; the ABI hands them out
         * read-only, and this fault is exactly the write it forbids. */
        int64_t *dims = (int64_t *)(uintptr_t)b->dims;
        int64_t d0 = dims[0];
        dims[0] = dims[1];
        dims[1] = d0;
    }
}
