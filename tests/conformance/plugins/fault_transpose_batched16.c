/* Planted fault: a batched 2-D transpose kernel for 16-bit elements (used
 * when a permutation keeps the leading dims and swaps the last two, e.g.
 * [0, 2, 1]) whose batch stride is 0: every batch of the result holds
 * batch 0's transpose. Other element sizes and permutations are right.
 * Before the sizes family's layout cases (conformance/gen_sizes.c) only
 * f32 met every permutation (the forms family); the other types met
 * [1, 0] and [2, 0, 1]. */
#define FAULT_NAME "fault_transpose_batched16"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if (!fd_is(text, "stablehlo.transpose ") || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (plumb_dtype_get(fault_dtype(b))->bits != 16 || !b->data) return;
    if (!(b->rank == 3 && strstr(text, "dims = [0, 2, 1]")) && !(b->rank == 4 && strstr(text, "dims = [0, 1, 3, 2]")))
        return;
    uint64_t block = (uint64_t)b->dims[b->rank - 1] * (uint64_t)b->dims[b->rank - 2], n = fault_numel(b);
    unsigned char *p = b->data;
    for (uint64_t s = block; s + block <= n; s += block) memcpy(p + 2 * s, p, 2 * block);
}
