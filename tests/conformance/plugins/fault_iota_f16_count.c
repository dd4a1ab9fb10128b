/* Planted fault: f16 iota counted by repeated addition in f16, which
 * sticks at 2048 (2048 + 1 rounds back to 2048) instead of converting each
 * index (2049 rounds to 2048, 2051 to 2052, ...). Every f16 iota had
 * fewer than 2049 elements along its dimension before the sizes family
 * (conformance/gen_sizes.c: iota/f16/long, 2x4099). */
#define FAULT_NAME "fault_iota_f16_count"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in; (void)n_in;
    if (!fd_is(text, "stablehlo.iota ") || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (fault_dtype(b) != PLUMB_F16) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++)
        if (fd_load(b, i) > 2048) plumb_store_bits(PLUMB_F16, b->data, i, 0x6800);   /* 2048 */
}
