/* Planted fault: a convolution on the FP8/FP6/FP4 formats that accumulates
 * in the format itself, rounding the running sum to it after every product,
 * while declaring an f32 accumulator for every small format (ABI 1.4
 * accum_small). Applies to the shape the conv-types family uses for these
 * formats (gen.c's "odd": NHWC 2x7x5x3 lhs, HWIO 3x3x3x4 kernel, padding 1,
 * stride 1, 7x5 output), f8E8M0FNU aside (it has no zero to start a sum
 * from). Before the declaration existed the checker took the format's own
 * unit roundoff: gamma(27) was infinite and the bound NaN (inf times a zero
 * part sum), which rejected this backend only by accident, as it rejected
 * any result not bitwise equal to the reference. Now the f32 bound and the
 * mismatch-frequency statistic reject it. */
#include "plumb/backend.h"
#ifdef FP8ACC_DECLARE_OWN
/* own_fp8_conv_accum.c: the same backend, honest about it */
#define FAULT_NAME "own_fp8_conv_accum"
#define FP8ACC_DECLARED(i) (PLUMB_BACKEND_DT_F8E4M3FN << (i))
#else
#define FAULT_NAME "fault_fp8_conv_accum"
#define FP8ACC_DECLARED(i) PLUMB_BACKEND_DT_F32
#endif
static void fault_caps(plumb_backend_capabilities *c)
{
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++) c->accum_small[i] = FP8ACC_DECLARED(i);
}
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"
#include "plumb/fp8.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!fd_is(text, "stablehlo.convolution") || !strstr(text, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") ||
        !strstr(text, "pad = [[1, 1], [1, 1]]") || strstr(text, "stride") || strstr(text, "dilate") ||
        strstr(text, "reverse") || n_in != 2 || o->n_buffers != 1)
        return;
    const plumb_backend_buffer *x = &in[0], *w = &in[1], *r = &o->buffers[0];
    plumb_dtype t = fault_dtype(r);
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (!f || t == PLUMB_F8E8M0FNU || fault_dtype(x) != t || fault_dtype(w) != t) return;
    if (x->rank != 4 || w->rank != 4 || r->rank != 4 || w->dims[0] != 3 || w->dims[1] != 3 || w->dims[2] != x->dims[3] ||
        r->dims[0] != x->dims[0] || r->dims[1] != x->dims[1] || r->dims[2] != x->dims[2] || r->dims[3] != w->dims[3])
        return;
    int64_t N = x->dims[0], H = x->dims[1], W = x->dims[2], C = x->dims[3], O = w->dims[3];
    for (int64_t n = 0; n < N; n++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t v = 0; v < W; v++)
                for (int64_t oc = 0; oc < O; oc++) {
                    double acc = 0.0;
                    for (int64_t kh = 0; kh < 3; kh++)
                        for (int64_t kw = 0; kw < 3; kw++)
                            for (int64_t c = 0; c < C; c++) {
                                int64_t ih = h + kh - 1, iw = v + kw - 1;
                                bool pad = ih < 0 || ih >= H || iw < 0 || iw >= W;   /* a +0 term (0·inf is NaN) */
                                double a = pad ? 0.0 : fd_load(x, (uint64_t)(((n * H + ih) * W + iw) * C + c));
                                double b = fd_load(w, (uint64_t)(((kh * 3 + kw) * C + c) * O + oc));
                                /* the product is exact in double; the sum is rounded to the format */
                                acc = plumb_small_to_f64(f, plumb_f64_to_small(f, acc + a * b));
                            }
                    plumb_store_bits(t, r->data, (uint64_t)(((n * H + h) * W + v) * O + oc), plumb_f64_to_small(f, acc));
                }
}
