/* Planted fault: concatenate stops at its first size-0 operand (a loop
 * over operands that ends where one has no elements): the result past
 * that operand's offset along the dimension is left as zeros. No case
 * concatenated a size-0 operand with non-empty ones before the sizes
 * family (conformance/gen_sizes.c: concatenate/f32/empty_mid, empty_ends). */
#define FAULT_NAME "fault_concat_empty_stop"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    const char *p = strstr(text, "stablehlo.concatenate ");
    if (!p || o->n_buffers != 1) return;
    const char *dp = strstr(p, "dim = ");
    if (!dp) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    uint32_t dim = (uint32_t)strtoul(dp + 6, NULL, 10);
    uint64_t n = fault_numel(b);
    if (dim >= b->rank || n == 0 || !b->data) return;
    int64_t off = 0;
    size_t k = 0;
    for (; k < n_in; k++) {
        if (in[k].rank != b->rank) return;
        if (fault_numel(&in[k]) == 0) break;
        off += in[k].dims[dim];
    }
    if (k == n_in) return;
    /* element i's index along dim: (i / inner) mod dims[dim] */
    uint64_t inner = 1;
    for (uint32_t d = dim + 1; d < b->rank; d++) inner *= (uint64_t)b->dims[d];
    size_t es = b->byte_size / n;
    for (uint64_t i = 0; i < n; i++)
        if ((int64_t)((i / inner) % (uint64_t)b->dims[dim]) >= off) memset((unsigned char *)b->data + i * es, 0, es);
}
