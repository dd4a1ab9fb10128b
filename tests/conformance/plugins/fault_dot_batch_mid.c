/* Planted fault: dot_general reads a rank-3 lhs whose batch dim is not its
 * first (batching_dims = [1] x ...) as if it were stored batch-major: the
 * kernel assumes the canonical [batch, rows, k] layout and only permutes
 * the dim sizes, so element (i, b, k) comes from where (b, i, k) would be.
 * Before the sizes family's batch_mid cases every dot_general batch dim of
 * lhs was dim 0. */
#define FAULT_NAME "fault_dot_batch_mid"
#define FAULT_EXECUTE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"
#include "fault_inputs.h"

static bool fault_edit_inputs(const char *text, plumb_backend_buffer *in, size_t n_in)
{
    if (!strstr(text, "stablehlo.dot_general ") || !strstr(text, "batching_dims = [1] x") || n_in < 2) return false;
    plumb_backend_buffer *x = &in[0];
    if (x->rank != 3 || fault_numel(x) == 0) return false;
    uint64_t M = (uint64_t)x->dims[0], B = (uint64_t)x->dims[1], K = (uint64_t)x->dims[2];
    uint64_t es = x->byte_size / fault_numel(x);
    unsigned char *src = malloc(x->byte_size), *dst = x->data;
    if (!src) return false;
    memcpy(src, dst, x->byte_size);
    for (uint64_t i = 0; i < M; i++)
        for (uint64_t b = 0; b < B; b++)
            memcpy(dst + ((i * B + b) * K) * es, src + ((b * M + i) * K) * es, K * es);
    free(src);
    return true;
}
