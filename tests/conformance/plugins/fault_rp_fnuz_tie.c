/* Planted fault: reduce_precision with no mantissa bit on the FNUZ formats
 * (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ) rounds the operand's own 8-bit
 * pattern, as StableHLO's interpreter does for every float type
 * (reducePrecision in stablehlo/reference/Element.cpp): a tie 1.5 * 2^k then
 * goes to the even exponent field of the FNUZ pattern, whose bias is even
 * in f8E4M3FNUZ (8) and f8E5M2FNUZ (16), where XLA rounds the f32 value
 * (odd bias 127) the other way (docs/spec/types.md, "reduce_precision";
 * f8E4M3B11FNUZ's bias 11 is odd: both rules agree there). Only the mantissa step is
 * planted (formats whose exponent width covers the type's), on normal
 * ties whose right result is finite and nonzero, so the fault is the tie
 * rule alone; the sweeps family's every_e5m0/every_e8m0 cases
 * (conformance/gen_sweeps.c) reject it. */
#define FAULT_NAME "fault_rp_fnuz_tie"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"
#include <stdio.h>
#include "plumb/fp8.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    const char *p = strstr(text, "stablehlo.reduce_precision ");
    int eb, mb;
    if (!p || n_in != 1 || o->n_buffers != 1 || !(p = strstr(p, "format = e")) || sscanf(p, "format = e%dm%d", &eb, &mb) != 2)
        return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (!f || f->nan != PLUMB_FPNAN_FNUZ || mb != 0 || eb < f->expo || !fd_same_numel(in, n_in, b)) return;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        uint32_t x = (uint32_t)plumb_load_bits(t, in[0].data, i), last = 1u << f->mant;
        uint32_t want = (uint32_t)plumb_load_bits(t, b->data, i);
        /* only a normal value's tie (fraction 100..0) whose right result is
         * finite and nonzero: overflow, flushing and NaN stay right */
        if (plumb_small_is_nan(f, x) || ((x >> f->mant) & ((1u << f->expo) - 1)) == 0 || (x & (last - 1)) != last >> 1 ||
            plumb_small_is_nan(f, want) || (want & 0x7Fu) == 0)
            continue;
        /* the interpreter's step on the pattern: add 0111..1 plus the last
         * kept bit (here the exponent field's lowest), clear the fraction */
        uint32_t r = (x + (last >> 1) - 1 + ((x & last) >> f->mant)) & ~(last - 1) & 0xFFu;
        plumb_store_bits(t, b->data, i, r);
    }
}
