/* Planted fault: dynamic_slice and dynamic_update_slice read every start
 * index as a signed 32-bit integer (the low 32 bits of an i64, ui32 or
 * ui64), so an index of 2^31 or more, or a 64-bit index past the i32
 * range, wraps (to a negative value, clamped to 0) instead of clamping to
 * the last valid start. Planted by giving the inner backend the index the
 * kernel would read. Before the sizes family's index_types cases every
 * start index was i32. */
#define FAULT_NAME "fault_dyn_index_i32"
#define FAULT_EXECUTE
#include <stdio.h>
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
#include "fault_common.h"
#include "fault_inputs.h"

static bool fault_edit_inputs(const char *text, plumb_backend_buffer *in, size_t n_in)
{
    size_t first;
    if (strstr(text, "stablehlo.dynamic_update_slice ")) first = 2;
    else if (strstr(text, "stablehlo.dynamic_slice ")) first = 1;
    else return false;
    bool changed = false;
    for (size_t k = first; k < n_in; k++) {
        plumb_dtype t = fault_dtype(&in[k]);
        if (in[k].rank != 0 || (t != PLUMB_I64 && t != PLUMB_UI32 && t != PLUMB_UI64)) continue;
        uint64_t bits = plumb_load_bits(t, in[k].data, 0);
        int32_t v = (int32_t)(uint32_t)(bits & 0xffffffffu);
        plumb_store_bits(t, in[k].data, 0, v < 0 ? 0 : (uint64_t)v);
        changed = true;
    }
    return changed;
}
