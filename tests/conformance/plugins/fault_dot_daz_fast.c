/* Planted fault: the runtime's old bf16 GEMM dispatch (before f1566e5). A
 * bf16 or f16 dot whose operand holds subnormals is computed with those
 * subnormals read as zero (vdpbf16ps's DAZ) whenever the rule "every
 * product of nonzero inputs is a multiple of 2^-126" seemed to hold with a
 * subnormal counted as exponent -127, i.e. when the OTHER operand's
 * smallest nonzero magnitude is >= 2^15 (-127 + 15 - 14 >= -126). The rule
 * looks at whole operands, so only cases whose two operands differ in class
 * as a whole (the "opcross" family) can reach it. Handles dot (matrix or
 * vector forms) and dot_general with batching and contracting dimensions,
 * recomputing the flushed result in double (products of bf16/f16 values are
 * exact there) and rounding once to the result type. */
#define FAULT_NAME "fault_dot_daz_fast"
#include "plumb/backend.h"
#include "plumb/dtype.h"
static void fault_caps(plumb_backend_capabilities *c) { (void)c; }
static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o);
#include "fault_common.h"
#include "fault_depth.h"

#include <stdio.h>

/* Smallest nonzero finite magnitude of a buffer; infinity when none. */
static double min_nonzero(const plumb_backend_buffer *b)
{
    double m = INFINITY;
    for (uint64_t i = 0, n = fault_numel(b); i < n; i++) {
        double v = fabs(fd_load(b, i));
        if (v != 0 && v < m) m = v;
    }
    return m;
}

/* Parses "<key> = [a, b] x [c]" from text into l and r; counts 0 when absent. */
static void dims_attr(const char *text, const char *key, int64_t *l, uint32_t *nl, int64_t *r, uint32_t *nr)
{
    *nl = *nr = 0;
    const char *p = strstr(text, key);
    if (!p) return;
    p = strchr(p, '[');
    for (int side = 0; p && side < 2; side++) {
        int64_t *v = side ? r : l;
        uint32_t *n = side ? nr : nl;
        p++;
        while (*p && *p != ']') {
            char *end;
            long long x = strtoll(p, &end, 10);
            if (end == p) { p++; continue; }
            if (*n < 8) v[(*n)++] = x;
            p = end;
        }
        if (side == 0) p = strchr(p, '[');
    }
}

static void fault_after_execute(const char *text, const plumb_backend_buffer *in, size_t n_in, plumb_backend_outputs *o)
{
    bool is_dot = fd_is(text, "stablehlo.dot "), is_dg = fd_is(text, "stablehlo.dot_general ");
    if ((!is_dot && !is_dg) || n_in != 2 || o->n_buffers != 1) return;
    plumb_dtype tx = fault_dtype(&in[0]), ty = fault_dtype(&in[1]), to = fault_dtype(&o->buffers[0]);
    bool half[2] = {tx == PLUMB_BF16 || tx == PLUMB_F16, ty == PLUMB_BF16 || ty == PLUMB_F16};
    if (!half[0] || !half[1] || !plumb_dtype_is_float(to)) return;
    double sub_below = tx == PLUMB_BF16 ? 0x1p-126 : 0x1p-14, sub_below_y = ty == PLUMB_BF16 ? 0x1p-126 : 0x1p-14;
    /* which operand gets flushed: the one with subnormals when the other's smallest magnitude is >= 2^15 */
    bool flush[2] = {min_nonzero(&in[0]) < sub_below && min_nonzero(&in[1]) >= 0x1p15,
                     min_nonzero(&in[1]) < sub_below_y && min_nonzero(&in[0]) >= 0x1p15};
    if (!flush[0] && !flush[1]) return;
    int64_t lb[8], rb[8], lc[8], rc[8];
    uint32_t nlb, nrb, nlc, nrc;
    const plumb_backend_buffer *x = &in[0], *y = &in[1], *out = &o->buffers[0];
    if (is_dg) {
        dims_attr(text, "batching_dims", lb, &nlb, rb, &nrb);
        dims_attr(text, "contracting_dims", lc, &nlc, rc, &nrc);
    } else {
        nlb = nrb = 0;
        nlc = nrc = 1;
        lc[0] = (int64_t)x->rank - 1;
        rc[0] = 0;
    }
    if (nlb != nrb || nlc != nrc || x->rank > 8 || y->rank > 8) return;
    /* free dimensions of each side, in order */
    int64_t lf[8], rf[8];
    uint32_t nlf = 0, nrf = 0;
    for (uint32_t d = 0; d < x->rank; d++) {
        bool used = false;
        for (uint32_t i = 0; i < nlb; i++) used |= lb[i] == d;
        for (uint32_t i = 0; i < nlc; i++) used |= lc[i] == d;
        if (!used) lf[nlf++] = d;
    }
    for (uint32_t d = 0; d < y->rank; d++) {
        bool used = false;
        for (uint32_t i = 0; i < nrb; i++) used |= rb[i] == d;
        for (uint32_t i = 0; i < nrc; i++) used |= rc[i] == d;
        if (!used) rf[nrf++] = d;
    }
    if (out->rank != nlb + nlf + nrf) return;
    uint64_t kn = 1;
    for (uint32_t i = 0; i < nlc; i++) kn *= (uint64_t)x->dims[lc[i]];
    for (uint64_t e = 0, n = fault_numel(out); e < n; e++) {
        /* result index: batch dims, then x's free dims, then y's free dims */
        int64_t oi[8], xi[8] = {0}, yi[8] = {0};
        uint64_t rem = e;
        for (uint32_t d = out->rank; d-- > 0;) { oi[d] = (int64_t)(rem % (uint64_t)out->dims[d]); rem /= (uint64_t)out->dims[d]; }
        for (uint32_t i = 0; i < nlb; i++) { xi[lb[i]] = oi[i]; yi[rb[i]] = oi[i]; }
        for (uint32_t i = 0; i < nlf; i++) xi[lf[i]] = oi[nlb + i];
        for (uint32_t i = 0; i < nrf; i++) yi[rf[i]] = oi[nlb + nlf + i];
        double s = 0;
        for (uint64_t k = 0; k < kn; k++) {
            uint64_t kr = k;
            for (uint32_t i = nlc; i-- > 0;) {
                int64_t v = (int64_t)(kr % (uint64_t)x->dims[lc[i]]);
                kr /= (uint64_t)x->dims[lc[i]];
                xi[lc[i]] = v;
                yi[rc[i]] = v;
            }
            uint64_t xo = 0, yo = 0;
            for (uint32_t d = 0; d < x->rank; d++) xo = xo * (uint64_t)x->dims[d] + (uint64_t)xi[d];
            for (uint32_t d = 0; d < y->rank; d++) yo = yo * (uint64_t)y->dims[d] + (uint64_t)yi[d];
            double a = fd_load(x, xo), b = fd_load(y, yo);
            if (flush[0] && fabs(a) < sub_below) a = copysign(0.0, a);
            if (flush[1] && fabs(b) < sub_below_y) b = copysign(0.0, b);
            s += a * b;
        }
        uint64_t bits = to == PLUMB_BF16 ? plumb_f64_to_bf16(s) : to == PLUMB_F16 ? plumb_f64_to_f16(s)
                      : to == PLUMB_F32 ? plumb_f32_bits((float)s) : plumb_f64_bits(s);
        plumb_store_bits(to, out->data, e, bits);
    }
}
