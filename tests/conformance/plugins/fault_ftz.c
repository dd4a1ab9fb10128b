/* Planted fault: flushes subnormal float results to zero while declaring IEEE subnormals. */
#define FAULT_NAME "fault_ftz"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { c->flush_subnormals = 0; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    (void)text; (void)in; (void)n_in;
    for (size_t k = 0; k < o->n_buffers; k++) {
        const plumb_backend_buffer *b = &o->buffers[k];
        plumb_dtype t = fault_dtype(b);
        if (!plumb_dtype_is_float(t)) continue;
        const plumb_dtype_info *di = plumb_dtype_get(t);
        uint64_t em = ((1ull << di->exp_bits) - 1) << di->mant_bits, sign = 1ull << (di->bits - 1);
        for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
            uint64_t r = plumb_load_bits(t, b->data, i);
            if ((r & em) == 0) plumb_store_bits(t, b->data, i, r & sign);
        }
    }
}
