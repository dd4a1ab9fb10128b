/* Planted fault: a maximum / minimum reduce over the last dim of a rank-2
 * operand processes rows in blocks of 1024 and drops the remainder past
 * the last full block (the add path has its tail loop, this one lost it):
 * elements 1024 and beyond of each row take no part. Planted by giving the
 * inner backend rows whose tail repeats the row's first element. Before the
 * sizes family's wide_max / wide_min cases no max or min reduce had a row
 * past 1024 elements. */
#define FAULT_NAME "fault_reduce_max_tail"
#define FAULT_EXECUTE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"
#include "fault_inputs.h"

static bool fault_edit_inputs(const char *text, plumb_backend_buffer *in, size_t n_in)
{
    if (!strstr(text, "stablehlo.reduce(") || !strstr(text, "across dimensions = [1]") ||
        !(strstr(text, "applies stablehlo.maximum") || strstr(text, "applies stablehlo.minimum")))
        return false;
    plumb_backend_buffer *x = &in[0];
    if (n_in < 2 || x->rank != 2 || x->dims[1] <= 1024 || fault_numel(x) == 0) return false;
    uint64_t rows = (uint64_t)x->dims[0], cols = (uint64_t)x->dims[1], es = x->byte_size / fault_numel(x);
    unsigned char *d = x->data;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 1024; c < cols; c++) memcpy(d + (r * cols + c) * es, d + r * cols * es, es);
    return true;
}
