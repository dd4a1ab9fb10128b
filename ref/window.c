/* stablehlo.reduce_window and stablehlo.select_and_scatter (op set v2,
 * docs/spec/window.md).
 *
 * Window geometry (StableHLO spec, "reduce_window"), per dimension d of the
 * input, with window size w, stride s, base dilation b, window dilation wd
 * and padding (lo, hi), defaults s = b = wd = 1 and lo = hi = 0:
 *   dilated   = size == 0 ? 0 : (size - 1) * b + 1
 *   padded    = lo + dilated + hi
 *   window    = (w - 1) * wd + 1
 *   results   = padded == 0 || window > padded ? 0 : (padded - window) / s + 1
 * Result index o and window position k address dilated coordinate
 *   p = o * s + k * wd - lo
 * which is an input element (index p / b) when 0 <= p < dilated and
 * p % b == 0, and otherwise a padding or dilation hole, whose value is the
 * init value (the spec pads the inputs with their init values:
 * pad(inputs, init_values, lo, hi, b - 1)). Negative lo or hi crop.
 *
 * reduce_window: results[o] = reduce(window at o, init_values, body): acc =
 * init, then for every window position in row-major order acc = body(acc...,
 * x...), the accumulator first (the spec leaves the schedule to the
 * implementation). Recognised bodies of one input (one op of the two
 * arguments, then return) take the exact path of ref/reduce.c instead:
 *   add, float       init plus every window term, accumulated exactly and
 *                    rounded once (accum.h); a window of k positions sums
 *                    k + 1 terms
 *   multiply, float  product at 256 bits, rounded once
 *   maximum/minimum  IEEE 754-2019 (NaN propagates, -0 < +0), exact
 *   integers         add/multiply wrap, max/min by signedness, and/or
 *   i1               add = or, multiply = and, max = or, min = and
 * so a float sum does not depend on any order; the runtime's order and its
 * bound are in docs/spec/window.md.
 *
 * select_and_scatter (spec "select_and_scatter"): the operand is divided
 * into windows as above (no dilations); source has one element per window.
 * In each window the valid (non-padding) positions are visited in row-major
 * order; the first is selected, and each later position x replaces the
 * selection s when select(s, x) is false. A window with no valid position
 * selects nothing (XLA's semantics, StableHLO issue 731). Then result = init
 * everywhere, and for the source elements in row-major order, result[sel] =
 * scatter(result[sel], source[window]).
 *
 * Types: reduce_window any element type; select_and_scatter any (select
 * returns i1). Edge cases: empty inputs or windows (results are init
 * values / init everywhere), windows entirely in padding (init, or no
 * selection), negative padding, every position a dilation hole. */
#include <math.h>
#include <string.h>

#include "accum.h"
#include "ref_internal.h"
#include "plumb/window.h"

typedef ir_window win_geom;

static bool geom_init(ref_ctx *c, const ir_op *op, const plumb_tensor *x, bool dilations, win_geom *g)
{
    char why[160];
    if (!ir_window_init(g, &op->a, x->rank, x->dims, dilations, why, sizeof why))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s", why);
    return true;
}

static double ieee_max(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static double ieee_min(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* Integer (and i1) folds, wrapping modulo 2^bits. */
static uint64_t int_fold(ir_window_body k, plumb_dtype t, uint64_t acc, uint64_t x)
{
    if (plumb_dtype_is_bool(t))
        return k == IR_WB_ADD || k == IR_WB_MAX || k == IR_WB_OR ? (acc | x) & 1 : acc & x & 1;
    unsigned bits = plumb_dtype_get(t)->bits;
    switch (k) {
    case IR_WB_ADD: return acc + x;
    case IR_WB_MUL: return acc * x;
    case IR_WB_AND: return acc & x;
    case IR_WB_OR: return acc | x;
    case IR_WB_MAX:
    case IR_WB_MIN: {
        bool less;
        if (plumb_dtype_is_signed(t)) {
            int64_t a = (int64_t)(acc << (64 - bits)) >> (64 - bits);
            int64_t b = (int64_t)(x << (64 - bits)) >> (64 - bits);
            less = a < b;
        } else {
            uint64_t m = bits == 64 ? ~0ull : ((1ull << bits) - 1);
            less = (acc & m) < (x & m);
        }
        return (k == IR_WB_MAX) == less ? x : acc;
    }
    default: return acc;
    }
}

static void scalar_view(plumb_tensor *t, plumb_dtype dt, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = buf;
    t->nbytes = plumb_dtype_size(dt);
}

#define WIN_MAX_INPUTS 32

bool ref_op_REDUCE_WINDOW(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands / 2;
    if (n == 0 || op->n_operands != 2 * n || op->n_results != n || op->n_regions != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "needs N inputs, N init values, N results and one body");
    if (n > WIN_MAX_INPUTS)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "%u inputs (at most %u)", n, WIN_MAX_INPUTS);
    win_geom g;
    if (!geom_init(c, op, in[0], true, &g))
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != g.rank || memcmp(in[k]->dims, in[0]->dims, g.rank * sizeof(int64_t)) != 0)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "input %u differs in shape from input 0", k);
        if (in[n + k]->rank != 0 || in[n + k]->dtype != in[k]->dtype || out[k]->dtype != in[k]->dtype)
            return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED,
                            "init value and result %u must have input %u's element type (promoted bodies are not run)", k, k);
        if (out[k]->rank != g.rank || memcmp(out[k]->dims, g.out, g.rank * sizeof(int64_t)) != 0)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "result %u's shape is not the number of windows", k);
    }
    const ir_block *body = &op->regions[0];
    plumb_dtype t0 = in[0]->dtype;
    ir_window_body kind = n == 1 ? ir_window_body_kind(body, t0) : IR_WB_GENERIC;
    bool isf = plumb_dtype_is_float(t0);
    /* [2]: a complex<f64> element is 16 bytes; elements are copied whole */
    uint64_t accbuf[WIN_MAX_INPUTS][2], xbuf[WIN_MAX_INPUTS][2], resbuf[WIN_MAX_INPUTS][2];
    plumb_tensor targ[2 * WIN_MAX_INPUTS], tres[WIN_MAX_INPUTS];
    plumb_tensor *args[2 * WIN_MAX_INPUTS], *res[WIN_MAX_INPUTS];
    if (kind == IR_WB_GENERIC) {
        if (body->n_args != 2 * n)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "body takes %u arguments, expected %u", body->n_args, 2 * n);
        for (uint32_t k = 0; k < n; k++) {
            if (body->args[k]->type.dtype != in[k]->dtype || body->args[n + k]->type.dtype != in[k]->dtype)
                return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "body argument %u has element type %s, input %u has %s",
                                k, plumb_dtype_name(body->args[k]->type.dtype), k, plumb_dtype_name(in[k]->dtype));
            scalar_view(&targ[k], in[k]->dtype, &accbuf[k]);
            scalar_view(&targ[n + k], in[k]->dtype, &xbuf[k]);
            scalar_view(&tres[k], in[k]->dtype, &resbuf[k]);
            args[k] = &targ[k];
            args[n + k] = &targ[n + k];
            res[k] = &tres[k];
        }
    }
    ref_acc acc;
    ref_prod prod;
    bool use_acc = kind == IR_WB_ADD && isf, use_prod = kind == IR_WB_MUL && isf;
    if (use_acc) ref_acc_init(&acc, t0 == PLUMB_F64);
    if (use_prod) ref_prod_init(&prod);
    uint64_t ocount = plumb_tensor_numel(out[0]);
    int64_t o[PLUMB_MAX_RANK] = {0}, kw[PLUMB_MAX_RANK];
    uint64_t work = 0;
    bool ok = true;
    for (uint64_t oi = 0; oi < ocount && ok; oi++, ir_window_next_index(o, g.out, g.rank)) {
        double init_f = isf ? plumb_load_f64(t0, in[n]->data, 0) : 0, facc = init_f;
        uint64_t init_b = plumb_load_bits(t0, in[n]->data, 0), iacc = init_b;
        if (use_acc) {
            ref_acc_reset(&acc);
            ref_acc_add(&acc, init_f);
        } else if (use_prod) {
            ref_prod_reset(&prod);
            ref_prod_mul(&prod, init_f);
        } else if (kind == IR_WB_GENERIC) {
            for (uint32_t k = 0; k < n; k++)
                memcpy(accbuf[k], in[n + k]->data, plumb_dtype_size(in[k]->dtype));
        }
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g.wcount; wi++, ir_window_next_index(kw, g.w, g.rank)) {
            int64_t at = ir_window_at(&g, o, kw);
            if (kind == IR_WB_GENERIC) {
                for (uint32_t k = 0; k < n; k++) {
                    size_t sz = plumb_dtype_size(in[k]->dtype);
                    memcpy(xbuf[k], at < 0 ? in[n + k]->data : (const char *)in[k]->data + (size_t)at * sz, sz);
                }
                if (!ref_eval_region(c, body, args, res)) {
                    ok = false;
                    break;
                }
                for (uint32_t k = 0; k < n; k++) {
                    memcpy(accbuf[k], resbuf[k], plumb_dtype_size(in[k]->dtype));
                }
            } else if (isf) {
                double v = at < 0 ? init_f : plumb_load_f64(t0, in[0]->data, (size_t)at);
                if (use_acc) ref_acc_add(&acc, v);
                else if (use_prod) ref_prod_mul(&prod, v);
                else facc = kind == IR_WB_MAX ? ieee_max(facc, v) : ieee_min(facc, v);
            } else {
                iacc = int_fold(kind, t0, iacc, at < 0 ? init_b : plumb_load_bits(t0, in[0]->data, (size_t)at));
            }
            if (!ref_work_step(c, op, &work)) {
                ok = false;
                break;
            }
        }
        if (!ok)
            break;
        if (kind == IR_WB_GENERIC) {
            for (uint32_t k = 0; k < n; k++)
                memcpy((char *)out[k]->data + (size_t)oi * plumb_dtype_size(in[k]->dtype), accbuf[k], plumb_dtype_size(in[k]->dtype));
        } else if (use_acc) {
            plumb_store_bits(t0, out[0]->data, (size_t)oi, ref_acc_round(&acc, t0));
        } else if (use_prod) {
            plumb_store_bits(t0, out[0]->data, (size_t)oi, ref_prod_round(&prod, t0));
        } else if (isf) {
            plumb_store_bits(t0, out[0]->data, (size_t)oi, ref_bits_from_f64(t0, facc));
        } else {
            plumb_store_bits(t0, out[0]->data, (size_t)oi, iacc);
        }
    }
    if (use_acc) ref_acc_clear(&acc);
    if (use_prod) ref_prod_clear(&prod);
    return ok && ref_work(c, op, work & 255);
}

bool ref_op_SELECT_AND_SCATTER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *src = in[1], *init = in[2];
    if (op->n_operands != 3 || op->n_results != 1 || op->n_regions != 2)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "needs operand, source, init_value, one result and two regions");
    plumb_dtype t = x->dtype;
    if (src->dtype != t || init->dtype != t || init->rank != 0 || out[0]->dtype != t)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "source, init_value and result must have the operand's element type");
    win_geom g;
    if (!geom_init(c, op, x, false, &g))
        return false;
    if (src->rank != g.rank || memcmp(src->dims, g.out, g.rank * sizeof(int64_t)) != 0)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "source's shape is not the number of windows");
    const ir_block *sel = &op->regions[0], *sc = &op->regions[1];
    if (sel->n_args != 2 || sc->n_args != 2)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "select and scatter take two arguments each");
    for (uint32_t i = 0; i < 2; i++)
        if (sel->args[i]->type.dtype != t || sc->args[i]->type.dtype != t)
            return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "region arguments must have the operand's element type %s",
                            plumb_dtype_name(t));
    /* elements are copied whole by their byte size ([2]: a complex<f64> is 16 bytes) */
    size_t sz = plumb_dtype_size(t);
    char *od = out[0]->data;
    const char *xd = x->data, *sd = src->data;
    uint64_t numel = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < numel; i++)
        memcpy(od + (size_t)i * sz, init->data, sz);
    uint64_t a0[2] = {0, 0}, a1[2] = {0, 0}, r0[2] = {0, 0}, pb = 0;
    plumb_tensor ta0, ta1, tr, tp;
    scalar_view(&ta0, t, a0);
    scalar_view(&ta1, t, a1);
    scalar_view(&tr, t, r0);
    scalar_view(&tp, PLUMB_I1, &pb);
    plumb_tensor *args[2] = {&ta0, &ta1}, *res[1] = {&tr}, *pres[1] = {&tp};
    uint64_t scount = plumb_tensor_numel(src), work = 0;
    int64_t o[PLUMB_MAX_RANK] = {0}, kw[PLUMB_MAX_RANK];
    for (uint64_t si = 0; si < scount; si++, ir_window_next_index(o, g.out, g.rank)) {
        int64_t chosen = -1;
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g.wcount; wi++, ir_window_next_index(kw, g.w, g.rank)) {
            int64_t at = ir_window_at(&g, o, kw);
            if (at < 0)
                continue;
            if (chosen >= 0) {
                memcpy(a0, xd + (size_t)chosen * sz, sz);
                memcpy(a1, xd + (size_t)at * sz, sz);
                pb = 0;
                if (!ref_eval_region(c, sel, args, pres))
                    return false;
                if (!(pb & 1))
                    chosen = at;
            } else {
                chosen = at;
            }
            if (!ref_work_step(c, op, &work))
                return false;
        }
        if (chosen < 0)
            continue;
        memcpy(a0, od + (size_t)chosen * sz, sz);
        memcpy(a1, sd + (size_t)si * sz, sz);
        if (!ref_eval_region(c, sc, args, res))
            return false;
        memcpy(od + (size_t)chosen * sz, r0, sz);
    }
    return ref_work(c, op, work & 255);
}
