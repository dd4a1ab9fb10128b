/* Planted fault: gather ignores operand_batching_dims (a kernel written
 * before the batching dims existed): every batch of indices reads batch 0
 * of the operand. Planted by giving the inner backend an operand whose
 * batches along dim 0 all hold batch 0. Before the sizes family's batching
 * cases no gather had batching dims. */
#define FAULT_NAME "fault_gather_batch0"
#define FAULT_EXECUTE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"
#include "fault_inputs.h"

static bool fault_edit_inputs(const char *text, plumb_backend_buffer *in, size_t n_in)
{
    if (!strstr(text, "stablehlo.gather") || !strstr(text, "operand_batching_dims = [0]") || n_in < 2) return false;
    plumb_backend_buffer *x = &in[0];
    if (x->rank < 1 || x->dims[0] < 2 || fault_numel(x) == 0) return false;
    uint64_t batch = x->byte_size / (uint64_t)x->dims[0];
    unsigned char *d = x->data;
    for (int64_t b = 1; b < x->dims[0]; b++) memcpy(d + (uint64_t)b * batch, d, batch);
    return true;
}
