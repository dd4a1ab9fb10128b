/* Planted fault: convert into an FNUZ format (f8E4M3FNUZ, f8E5M2FNUZ,
 * f8E4M3B11FNUZ) keeps the sign of a negative input whose result is zero
 * (-0, or a negative value below half the smallest subnormal): it writes
 * 0x80, the -0 code, which these formats spend on their one NaN. */
#define FAULT_NAME "fault_fnuz_negzero"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"
#include "plumb/fp8.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convert ") || n_in != 1 || o->n_buffers != 1) return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype s = fault_dtype(&in[0]), d = fault_dtype(b);
    const plumb_fpfmt *f = plumb_fpfmt_get(d);
    if (!f || f->nan != PLUMB_FPNAN_FNUZ || !plumb_dtype_is_float(s) || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double x = plumb_load_f64(s, in[0].data, i);
        if (signbit(x) && !isnan(x) && plumb_load_bits(d, b->data, i) == 0)
            plumb_store_bits(d, b->data, i, 0x80);
    }
}
