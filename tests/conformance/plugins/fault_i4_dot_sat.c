/* Planted fault: integer dot_general on i2/i4/ui2/ui4 saturates its sums
 * to the type's range (a saturating int4 accumulator, as some quantized
 * kernels use) instead of wrapping modulo 2^w as StableHLO's integer
 * arithmetic does (docs/spec/types.md, "i2, i4, ui2, ui4"): an i4 sum of
 * 22 reads 7, not 6. Planted after the inner backend ran, on the plain
 * matrix products (rank-2 operands, contracting_dims = [1] x [0], no
 * batching), recomputed exactly from the operands. */
#define FAULT_NAME "fault_i4_dot_sat"
#include "plumb/backend.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "plumb/fp8.h"

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    if (!strstr(text, "stablehlo.dot_general") || !strstr(text, "contracting_dims = [1] x [0]") ||
        strstr(text, "batching_dims") || n_in != 2 || o->n_buffers != 1)
        return;
    const plumb_backend_buffer *r = &o->buffers[0];
    plumb_dtype t = fault_dtype(r), ta = fault_dtype(&in[0]), tb = fault_dtype(&in[1]);
    if (!plumb_dtype_is_subbyte_int(t) || r->rank != 2 || in[0].rank != 2 || in[1].rank != 2) return;
    int64_t M = in[0].dims[0], K = in[0].dims[1], N = in[1].dims[1];
    if (in[1].dims[0] != K || r->dims[0] != M || r->dims[1] != N) return;
    unsigned w = plumb_dtype_get(t)->bits;
    bool sg = plumb_dtype_is_signed(t);
    int64_t lo = sg ? -(1ll << (w - 1)) : 0, hi = sg ? (1ll << (w - 1)) - 1 : (1ll << w) - 1;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            int64_t s = 0;
            for (int64_t k = 0; k < K; k++)
                s += plumb_load_i64(ta, in[0].data, (size_t)(m * K + k)) * plumb_load_i64(tb, in[1].data, (size_t)(k * N + n));
            s = s < lo ? lo : s > hi ? hi : s;
            plumb_store_bits(t, r->data, (size_t)(m * N + n), (uint64_t)s);
        }
}
