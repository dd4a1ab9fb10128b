/* Planted fault: f32 power returns +inf whenever the result exceeds 2^127
 * (an overflow test on the exponent alone, one binade early). */
#define FAULT_NAME "fault_pow_early_inf"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.power ") || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32")) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double r = fd_load(b, i);
        if (isfinite(r) && r > 0x1p127) fd_store_f32(b, i, INFINITY);
    }
}
