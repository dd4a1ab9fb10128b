/* Planted fault: complex convolution multiplies by the conjugate of the
 * kernel (x · conj(w): a backend that reused a correlation routine, which
 * conjugates, for StableHLO's convolution, which does not). Both parts of
 * every result change: Re = Σ ar·br + ai·bi, Im = Σ ai·br − ar·bi.
 * Recomputed for the NHWC x HWIO programs with padding 1, stride 1 and one
 * group (the family's "odd" shape); other programs run unchanged. */
#define FAULT_NAME "fault_cconv_conj"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convolution(") || n_in != 2 || o->n_buffers != 1) return;
    if (!strstr(text, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") || !strstr(text, "pad = [[1, 1], [1, 1]]") ||
        strstr(text, "stride") || strstr(text, "dilate") || !strstr(text, "feature_group_count = 1 ") ||
        !strstr(text, "batch_group_count = 1 "))
        return;
    const plumb_backend_buffer *b = &o->buffers[0];
    plumb_dtype t = fault_dtype(b);
    if (!plumb_dtype_is_complex(t) || in[0].rank != 4 || in[1].rank != 4 || b->rank != 4) return;
    plumb_dtype ct = plumb_dtype_component(t);
    int64_t B = in[0].dims[0], H = in[0].dims[1], W = in[0].dims[2], C = in[0].dims[3];
    int64_t KH = in[1].dims[0], KW = in[1].dims[1], O = in[1].dims[3];
    int64_t OH = H + 2 - KH + 1, OW = W + 2 - KW + 1;
    if (in[1].dims[2] != C || b->dims[0] != B || b->dims[1] != OH || b->dims[2] != OW || b->dims[3] != O) return;
    for (int64_t n = 0; n < B; n++)
        for (int64_t y = 0; y < OH; y++)
            for (int64_t x = 0; x < OW; x++)
                for (int64_t f = 0; f < O; f++) {
                    double re = 0, im = 0;
                    for (int64_t i = 0; i < KH; i++)
                        for (int64_t j = 0; j < KW; j++) {
                            int64_t py = y + i - 1, px = x + j - 1;
                            if (py < 0 || py >= H || px < 0 || px >= W) continue;
                            for (int64_t c = 0; c < C; c++) {
                                uint64_t li = (uint64_t)(((n * H + py) * W + px) * C + c);
                                uint64_t ri = (uint64_t)(((i * KW + j) * C + c) * O + f);
                                double ar = plumb_load_f64(ct, in[0].data, 2 * li), ai = plumb_load_f64(ct, in[0].data, 2 * li + 1);
                                double br = plumb_load_f64(ct, in[1].data, 2 * ri), bi = plumb_load_f64(ct, in[1].data, 2 * ri + 1);
                                re += ar * br + ai * bi;
                                im += ai * br - ar * bi;
                            }
                        }
                    uint64_t oi = (uint64_t)(((n * OH + y) * OW + x) * O + f);
                    plumb_store_bits(ct, b->data, 2 * oi, ct == PLUMB_F32 ? plumb_f32_bits((float)re) : plumb_f64_bits(re));
                    plumb_store_bits(ct, b->data, 2 * oi + 1, ct == PLUMB_F32 ? plumb_f32_bits((float)im) : plumb_f64_bits(im));
                }
}
