/* stablehlo.reduce and stablehlo.reduce_window with a recognised body (one
 * input, `return op(a, b)` of its two arguments) on the small float formats
 * (FP8/FP6/FP4/E8M0) and the sub-byte integers (i2/i4/ui2/ui4);
 * runtime/k_reduce.c and runtime/k_window.c send them here. Generic bodies
 * stay there: they apply the body's elementwise ops (runtime/k_lowp.c, each
 * step rounded to the element type) in row-major order, as the reference
 * does. A window's padding and dilation holes are init values, as in the
 * reference (ref/window.c).
 *
 * The spec gives the body's semantics, each application rounded to the
 * element type, in an implementation-defined order. With at most 5
 * significant bits a sum rounded at every step stalls early (in f8E4M3FN
 * 16 + 1 rounds back to 16), so, as for every float type, the reference
 * (ref/reduce.c) and this kernel compute the order-free answer instead
 * (docs/spec/types.md, "Reductions"):
 *   add       the exact sum of the init value and every element, rounded
 *             once by the codec. Every value of these formats is a double;
 *             the sum is kept as a double-double (TwoSum), exact for the
 *             signed formats (every partial sum is a multiple of 2^-17
 *             below 2^36 for fewer than 2^20 terms) and within 2^-100
 *             relative for f8E8M0FNU (positive terms only, so the sign of
 *             the low part is the sign of the error). hi rounded to odd by
 *             the sign of lo, then rounded by the codec, is the correct
 *             rounding (Boldo & Melquiond 2008). NaN anywhere, or +inf
 *             with -inf: the format's NaN; an exact zero is -0 only when
 *             every term is -0.
 *   multiply  the product in MPFR at 256 bits with an unbounded exponent
 *             (no intermediate overflow or underflow), rounded to odd at
 *             53 bits and by the codec; NaN or 0 x inf: NaN.
 *   maximum, minimum  IEEE 754-2019 on the exact values (NaN propagates:
 *             the first NaN in row-major order, init first; -0 < +0).
 *   integers  add, multiply, maximum, minimum, and, or, xor through the
 *             runtime's own tables of the op (runtime/k_lowp.c): wrapping
 *             add and multiply, and the bit ops, are associative and
 *             commutative, so the fold's result is the reference's bits.
 * tests/runtime/test_lowp_reduce.c checks every result bit for bit against
 * the reference. */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "plumb/window.h"
#include "rt_internal.h"
#include "rt_lowp.h"

#define LOWP_PROD_PREC 256
#define LOWP_RED_GRAIN 64u

/* One result element's fold: the init value, then terms in any order. */
typedef struct lfold {
    plumb_opcode body;
    const plumb_fpfmt *f;        /* NULL for the sub-byte integers */
    const uint8_t *tab;          /* integers: the body's table */
    uint32_t w, mask;
    uint32_t iacc;
    double hi, lo, facc;
    bool nan, pinf, ninf, negzero, zero, neg, first;
    mpfr_t m;                    /* float multiply */
} lfold;

/* IEEE 754-2019 maximum/minimum on exact values; NaN propagates. */
static double ieee_pick(double a, double b, bool want_max)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return (signbit(a) != want_max) ? a : b;
    return ((a > b) == want_max) ? a : b;
}

static void lf_open(lfold *l, plumb_opcode body, plumb_dtype t)
{
    memset(l, 0, sizeof *l);
    l->body = body;
    l->f = plumb_fpfmt_get(t);
    l->w = plumb_dtype_get(t)->bits;
    l->mask = (1u << l->w) - 1;
    if (!l->f) l->tab = rt_lowp_table2(body, t);
    if (l->f && body == PLUMB_OP_MULTIPLY) mpfr_init2(l->m, LOWP_PROD_PREC);
}

static void lf_close(lfold *l)
{
    if (l->f && l->body == PLUMB_OP_MULTIPLY) mpfr_clear(l->m);
}

static void lf_start(lfold *l)
{
    l->iacc = 0;
    l->hi = l->lo = l->facc = 0;
    l->nan = l->pinf = l->ninf = l->zero = l->neg = false;
    l->negzero = l->first = true;
    if (l->f && l->body == PLUMB_OP_MULTIPLY) mpfr_set_ui(l->m, 1, MPFR_RNDN);
}

/* One term (the init value first). */
static inline void lf_add(lfold *l, uint32_t bits)
{
    bits &= l->mask;
    bool first = l->first;
    l->first = false;
    if (!l->f) {
        l->iacc = first ? bits : l->tab[(l->iacc << l->w) | bits];
        return;
    }
    double v = plumb_small_to_f64(l->f, bits);
    switch (l->body) {
    case PLUMB_OP_ADD:
        if (isnan(v)) l->nan = true;
        else if (isinf(v)) { if (v > 0) l->pinf = true; else l->ninf = true; }
        else {
            if (!(v == 0 && signbit(v))) l->negzero = false;
            double s = l->hi + v, bb = s - l->hi;   /* TwoSum */
            l->lo += (l->hi - (s - bb)) + (v - bb);
            l->hi = s;
        }
        break;
    case PLUMB_OP_MULTIPLY:
        if (isnan(v)) { l->nan = true; break; }
        if (signbit(v)) l->neg = !l->neg;
        if (isinf(v)) l->pinf = true;
        else if (v == 0) l->zero = true;
        else mpfr_mul_d(l->m, l->m, fabs(v), MPFR_RNDN);
        break;
    default:
        l->facc = first ? v : ieee_pick(l->facc, v, l->body == PLUMB_OP_MAXIMUM);
        break;
    }
}

static uint32_t lf_result(lfold *l)
{
    const plumb_fpfmt *f = l->f;
    if (!f) return l->iacc;
    if (l->body == PLUMB_OP_ADD) {
        if (l->nan || (l->pinf && l->ninf)) return plumb_f64_to_small(f, NAN);
        if (l->pinf) return plumb_f64_to_small(f, INFINITY);
        if (l->ninf) return plumb_f64_to_small(f, -INFINITY);
        double s = l->hi + l->lo, e = l->lo - (s - l->hi);   /* Fast2Sum: |hi| >= |lo| */
        if (s == 0) return plumb_f64_to_small(f, l->negzero ? -0.0 : 0.0);
        if (e != 0 && (plumb_f64_bits(s) & 1) == 0) s = nextafter(s, e > 0 ? INFINITY : -INFINITY);
        return plumb_f64_to_small(f, s);
    }
    if (l->body == PLUMB_OP_MULTIPLY) {
        if (l->nan || (l->pinf && l->zero)) return plumb_f64_to_small(f, NAN);
        double sgn = l->neg ? -1.0 : 1.0;
        if (l->pinf) return plumb_f64_to_small(f, sgn * INFINITY);
        if (l->zero) return plumb_f64_to_small(f, sgn * 0.0);
        mpfr_t z;
        mpfr_init2(z, 53);
        int inex = mpfr_set(z, l->m, MPFR_RNDZ);
        /* beyond the double range: inf or 0, which every format overflows
         * or underflows alike */
        double d = mpfr_get_d(z, MPFR_RNDZ);
        mpfr_clear(z);
        if (inex != 0 && isfinite(d) && d != 0 && (plumb_f64_bits(d) & 1) == 0) d = nextafter(d, INFINITY);
        return plumb_f64_to_small(f, sgn * d);
    }
    return plumb_f64_to_small(f, l->facc);
}

static bool body_ok(rt_exec *x, const ir_op *op, plumb_opcode body, plumb_dtype t)
{
    if (plumb_fpfmt_get(t) ? (body != PLUMB_OP_ADD && body != PLUMB_OP_MULTIPLY && body != PLUMB_OP_MAXIMUM &&
                              body != PLUMB_OP_MINIMUM)
                           : !rt_lowp_table2(body, t))
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "%s: a %s body on %s (or no memory for its table)",
                       plumb_op_name(op->code), plumb_op_name(body), plumb_dtype_name(t));
    return true;
}

/* ---- reduce ---------------------------------------------------------------------- */

typedef struct lred_job {
    plumb_opcode body;
    plumb_dtype t;
    const uint8_t *src;
    uint8_t *dst;
    uint32_t init;
    uint32_t nk, nr;             /* kept and reduced dims */
    int64_t kdims[PLUMB_MAX_RANK], kstr[PLUMB_MAX_RANK];
    int64_t rdims[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK];
    uint64_t rcount;
} lred_job;

static void lred_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const lred_job *j = ctx;
    lfold l;
    lf_open(&l, j->body, j->t);
    int64_t ridx[PLUMB_MAX_RANK];
    for (uint64_t o = begin; o < end; o++) {
        int64_t base = 0;
        uint64_t rest = o;
        for (uint32_t i = j->nk; i-- > 0;) {
            base += (int64_t)(rest % (uint64_t)j->kdims[i]) * j->kstr[i];
            rest /= (uint64_t)j->kdims[i];
        }
        for (uint32_t i = 0; i < j->nr; i++) ridx[i] = 0;
        lf_start(&l);
        lf_add(&l, j->init);
        for (uint64_t r = 0; r < j->rcount; r++) {
            int64_t off = base;
            for (uint32_t i = 0; i < j->nr; i++) off += ridx[i] * j->rstr[i];
            lf_add(&l, j->src[off]);
            for (uint32_t i = j->nr; i-- > 0;) {
                if (++ridx[i] < j->rdims[i]) break;
                ridx[i] = 0;
            }
        }
        j->dst[o] = (uint8_t)lf_result(&l);
    }
    lf_close(&l);
}

bool rt_lowp_reduce(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red)
{
    const plumb_tensor *a = in[0];
    lred_job j;
    memset(&j, 0, sizeof j);
    j.body = op->regions[0].first->code;
    j.t = a->dtype;
    j.src = a->data;
    j.dst = out[0]->data;
    j.init = (uint32_t)plumb_load_bits(j.t, in[1]->data, 0);
    if (!body_ok(x, op, j.body, j.t)) return false;
    int64_t s = 1, stride[PLUMB_MAX_RANK];
    for (uint32_t d = a->rank; d-- > 0;) {
        stride[d] = s;
        s *= a->dims[d];
    }
    j.rcount = 1;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (red[d]) {
            j.rdims[j.nr] = a->dims[d];
            j.rstr[j.nr++] = stride[d];
            j.rcount *= (uint64_t)a->dims[d];
        } else {
            j.kdims[j.nk] = a->dims[d];
            j.kstr[j.nk++] = stride[d];
        }
    }
    uint64_t nout = plumb_tensor_numel(out[0]);
    if (nout) rt_parallel_for(x, nout, LOWP_RED_GRAIN, lred_range, &j);
    return true;
}

/* ---- reduce_window ----------------------------------------------------------------- */

typedef struct lwin_job {
    plumb_opcode body;
    plumb_dtype t;
    const ir_window *g;
    const uint8_t *src;
    uint8_t *dst;
    uint32_t init;
} lwin_job;

static void lwin_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const lwin_job *j = ctx;
    const ir_window *g = j->g;
    lfold l;
    lf_open(&l, j->body, j->t);
    int64_t o[PLUMB_MAX_RANK], kw[PLUMB_MAX_RANK];
    uint64_t rest = begin;
    for (uint32_t d = g->rank; d-- > 0;) {
        o[d] = (int64_t)(rest % (uint64_t)g->out[d]);
        rest /= (uint64_t)g->out[d];
    }
    for (uint64_t oi = begin; oi < end; oi++, ir_window_next_index(o, g->out, g->rank)) {
        lf_start(&l);
        lf_add(&l, j->init);
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, g->rank)) {
            int64_t at = ir_window_at(g, o, kw);
            lf_add(&l, at < 0 ? j->init : j->src[at]);   /* a hole holds the init value */
        }
        j->dst[oi] = (uint8_t)lf_result(&l);
    }
    lf_close(&l);
}

bool rt_lowp_reduce_window(rt_exec *x, const ir_op *op, const ir_window *g, plumb_tensor *const *in,
                           plumb_tensor *const *out)
{
    lwin_job j = {.body = op->regions[0].first->code, .t = in[0]->dtype, .g = g, .src = in[0]->data,
                  .dst = out[0]->data};
    j.init = (uint32_t)plumb_load_bits(j.t, in[1]->data, 0);
    if (!body_ok(x, op, j.body, j.t)) return false;
    uint64_t nout = plumb_tensor_numel(out[0]);
    if (nout) rt_parallel_for(x, nout, LOWP_RED_GRAIN, lwin_range, &j);
    return true;
}
