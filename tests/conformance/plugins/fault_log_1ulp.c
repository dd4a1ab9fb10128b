/* Planted error (not a fault): log is off by exactly 1 ULP on every f32
 * result in the normal range below the top binade, i.e. at the edge of its
 * 1-ULP bound, and exact everywhere else. Every such case passes with budget
 * used exactly 1, so the budget-used histograms of certify and golden check
 * must put those cases in the (1/2, 1] bin and all others in the 0 bin
 * (tests/golden/test_golden_hist.sh). */
#define FAULT_NAME "fault_log_1ulp"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)in;
    (void)n_in;
    if (!strstr(text, "stablehlo.log ") || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    if (strcmp(b->dtype, "f32")) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint64_t r = plumb_load_bits(PLUMB_F32, b->data, i), e = r & 0x7F800000u;
        /* one step of the bit pattern away from zero: 1 ULP, still normal and finite */
        if (e >= 0x00800000u && e < 0x7F000000u) plumb_store_bits(PLUMB_F32, b->data, i, r + 1);
    }
}
