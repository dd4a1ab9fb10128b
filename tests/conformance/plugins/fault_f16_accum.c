/* Planted fault: sums f16 data in f16 (rounding after every addition) while
 * declaring an f32 accumulator. Applies to the row sums reduce(add) over
 * dimension 1 of a rank-2 f16 input, the shape the conformance generators use. */
#define FAULT_NAME "fault_f16_accum"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { c->accum_f16 = PLUMB_BACKEND_DT_F32; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "applies stablehlo.add across dimensions = [1] :") || n_in != 2 || o->n_buffers != 1) return;
    const plumb_backend_buffer *x = &in[0], *c = &in[1], *r = &o->buffers[0];
    if (strcmp(x->dtype, "f16") || x->rank != 2 || r->rank != 1) return;
    for (int64_t row = 0; row < x->dims[0]; row++) {
        uint16_t s = (uint16_t)plumb_load_bits(PLUMB_F16, c->data, 0);
        for (int64_t j = 0; j < x->dims[1]; j++)
            s = plumb_f64_to_f16(plumb_f16_to_f64(s) +
                                 plumb_f16_to_f64((uint16_t)plumb_load_bits(PLUMB_F16, x->data, (size_t)(row * x->dims[1] + j))));
        plumb_store_bits(PLUMB_F16, r->data, (size_t)row, s);
    }
}
