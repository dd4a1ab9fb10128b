/* stablehlo.reduce
 *
 * Semantics (StableHLO spec, "reduce"): N inputs of one shape and N scalar
 * init values; the body (2N scalar arguments -> N scalars) folds every
 * element along `dimensions` into one result element per remaining index.
 * The result shape is the input shape without the reduced dimensions, in
 * their original order.
 *
 * Order (the spec leaves the schedule to the implementation): for each result
 * element, acc = init; then for the reduced indices in row-major order,
 * acc = body(acc..., x...) — the accumulator is always the first N
 * arguments. A zero-size reduced dimension yields the init values.
 *
 * Recognised bodies (one input, body = one op of its two arguments in either
 * order, then return) take an exact path whose result does not depend on the
 * order at all:
 *   add, float     sum of init and all elements, accumulated exactly (f64) or
 *                  in double-double (f16/bf16/f32), rounded once (accum.h);
 *                  NaN anywhere or +inf with -inf -> NaN; the sum of zeros is
 *                  -0 only if every term is -0
 *   multiply, float  product at 256 bits, rounded once; NaN, 0 * inf -> NaN
 *   maximum/minimum  IEEE 754-2019: NaN propagates, -0 < +0
 *   integers        add/multiply wrap modulo 2^bits; max/min signed or
 *                  unsigned by type; and/or bitwise
 *   i1              add = or, multiply = and, max = or, min = and
 * Every other body (argmax/argmin pairs included) is interpreted through
 * ref_eval_region in the order above.
 */
#include <math.h>
#include <string.h>

#include "accum.h"
#include "ref_internal.h"

typedef enum red_kind { RK_GENERIC, RK_ADD, RK_MUL, RK_MAX, RK_MIN, RK_AND, RK_OR } red_kind;

/* Recognises a single-input body `return op(a0, a1)` (either order). */
static red_kind recognise(const ir_op *op, plumb_dtype elem)
{
    if (op->n_operands != 2 || op->n_regions != 1)
        return RK_GENERIC;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 || b->n_ops != 2 || !b->first || !b->first->next)
        return RK_GENERIC;
    const ir_op *x = b->first, *ret = x->next;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || ret->operands[0] != x->results[0])
        return RK_GENERIC;
    if (x->n_operands != 2 || x->n_results != 1)
        return RK_GENERIC;
    for (uint32_t i = 0; i < 2; i++)
        if (b->args[i]->type.rank != 0 || b->args[i]->type.dtype != elem)
            return RK_GENERIC;
    if (x->results[0]->type.dtype != elem || x->results[0]->type.rank != 0)
        return RK_GENERIC;
    bool direct = x->operands[0] == b->args[0] && x->operands[1] == b->args[1];
    bool swapped = x->operands[0] == b->args[1] && x->operands[1] == b->args[0];
    if (!direct && !swapped)
        return RK_GENERIC;
    switch (x->code) {
    case PLUMB_OP_ADD: return RK_ADD;
    case PLUMB_OP_MULTIPLY: return RK_MUL;
    case PLUMB_OP_MAXIMUM: return RK_MAX;
    case PLUMB_OP_MINIMUM: return RK_MIN;
    case PLUMB_OP_AND: return plumb_dtype_is_float(elem) ? RK_GENERIC : RK_AND;
    case PLUMB_OP_OR: return plumb_dtype_is_float(elem) ? RK_GENERIC : RK_OR;
    default: return RK_GENERIC;
    }
}

/* IEEE 754-2019 maximum/minimum on doubles: NaN propagates, -0 < +0. */
static double ieee_max(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static double ieee_min(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* Folds integers (and i1) with a recognised body; wraps modulo 2^bits. */
static uint64_t int_fold(red_kind k, plumb_dtype t, uint64_t acc, uint64_t x)
{
    if (plumb_dtype_is_bool(t)) {
        if (k == RK_ADD || k == RK_MAX || k == RK_OR) return (acc | x) & 1;
        return acc & x & 1;
    }
    unsigned bits = plumb_dtype_get(t)->bits;
    switch (k) {
    case RK_ADD: return acc + x;
    case RK_MUL: return acc * x;
    case RK_AND: return acc & x;
    case RK_OR: return acc | x;
    case RK_MAX:
    case RK_MIN: {
        bool less;
        if (plumb_dtype_is_signed(t)) {
            /* sign-extend the stored bits */
            int64_t a = (int64_t)(acc << (64 - bits)) >> (64 - bits);
            int64_t b = (int64_t)(x << (64 - bits)) >> (64 - bits);
            less = a < b;
        } else {
            uint64_t m = bits == 64 ? ~0ull : ((1ull << bits) - 1);
            less = (acc & m) < (x & m);
        }
        return (k == RK_MAX) == less ? x : acc;
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

bool ref_op_REDUCE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands / 2;
    if (n == 0 || op->n_operands != 2 * n || op->n_results != n || op->n_regions != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce needs N inputs, N init values, N results and one body");
    if (n > 64)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "reduce with %u inputs (at most 64)", n);
    const plumb_tensor *x0 = in[0];
    uint32_t rank = x0->rank;
    bool reduced[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || d >= (int64_t)rank || reduced[d])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce dimension %lld is out of range or repeated",
                            (long long)d);
        reduced[d] = true;
    }
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != rank || memcmp(in[k]->dims, x0->dims, rank * sizeof(int64_t)) != 0)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce input %u differs in shape from input 0", k);
        if (in[n + k]->rank != 0 || in[n + k]->dtype != in[k]->dtype || out[k]->dtype != in[k]->dtype)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce init value %u must be a scalar of the input's element type", k);
    }
    /* kept and reduced dims with their input strides */
    int64_t stride[PLUMB_MAX_RANK];
    int64_t s = 1;
    for (uint32_t d = rank; d-- > 0;) {
        stride[d] = s;
        s *= x0->dims[d];
    }
    uint32_t nk = 0, nr = 0;
    int64_t kdims[PLUMB_MAX_RANK], kstr[PLUMB_MAX_RANK], rdims[PLUMB_MAX_RANK], rstr[PLUMB_MAX_RANK];
    uint64_t rcount = 1;
    for (uint32_t d = 0; d < rank; d++) {
        if (reduced[d]) {
            rdims[nr] = x0->dims[d];
            rstr[nr++] = stride[d];
            rcount *= (uint64_t)x0->dims[d];
        } else {
            kdims[nk] = x0->dims[d];
            kstr[nk++] = stride[d];
        }
    }
    if (out[0]->rank != nk || (nk && memcmp(out[0]->dims, kdims, nk * sizeof(int64_t)) != 0))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce result shape does not match the input without the reduced dimensions");
    uint64_t ocount = plumb_tensor_numel(out[0]);
    plumb_dtype t0 = x0->dtype;
    red_kind kind = n == 1 ? recognise(op, t0) : RK_GENERIC;
    bool isf = plumb_dtype_is_float(t0);

    ref_acc acc;
    ref_prod prod;
    bool use_acc = kind == RK_ADD && isf, use_prod = kind == RK_MUL && isf;
    if (use_acc) ref_acc_init(&acc, t0 == PLUMB_F64);
    if (use_prod) ref_prod_init(&prod);

    /* generic path buffers: one 8-byte slot per scalar */
    uint64_t accbuf[64], xbuf[64], resbuf[64];
    plumb_tensor targ[128], tres[64];
    plumb_tensor *args[128], *res[64];
    const ir_block *body = &op->regions[0];
    if (kind == RK_GENERIC) {
        if (body->n_args != 2 * n) {
            return ref_fail(c, op, PLUMB_ERR_INVALID, "reduce body takes %u arguments, expected %u",
                            body->n_args, 2 * n);
        }
        for (uint32_t k = 0; k < n; k++) {
            plumb_dtype bt = body->args[k]->type.dtype;
            if (bt != in[k]->dtype || body->args[n + k]->type.dtype != in[k]->dtype)
                return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED,
                                "reduce body argument %u has element type %s, input %u has %s",
                                k, plumb_dtype_name(bt), k, plumb_dtype_name(in[k]->dtype));
            scalar_view(&targ[k], bt, &accbuf[k]);
            scalar_view(&targ[n + k], bt, &xbuf[k]);
            scalar_view(&tres[k], out[k]->dtype, &resbuf[k]);
            args[k] = &targ[k];
            args[n + k] = &targ[n + k];
            res[k] = &tres[k];
        }
    }

    bool ok = true;
    uint64_t work = 0;
    int64_t kidx[PLUMB_MAX_RANK], ridx[PLUMB_MAX_RANK];
    for (uint64_t o = 0; o < ocount && ok; o++) {
        ref_unravel(o, nk, kdims, kidx);
        int64_t base = 0;
        for (uint32_t i = 0; i < nk; i++)
            base += kidx[i] * kstr[i];
        if (use_acc) {
            ref_acc_reset(&acc);
            ref_acc_add(&acc, plumb_load_f64(t0, in[1]->data, 0));
        } else if (use_prod) {
            ref_prod_reset(&prod);
            ref_prod_mul(&prod, plumb_load_f64(t0, in[1]->data, 0));
        }
        double facc = 0;
        uint64_t iacc = 0;
        if (kind == RK_MAX || kind == RK_MIN) {
            if (isf) facc = plumb_load_f64(t0, in[1]->data, 0);
            else iacc = plumb_load_bits(t0, in[1]->data, 0);
        } else if (!isf && kind != RK_GENERIC) {
            iacc = plumb_load_bits(t0, in[1]->data, 0);
        } else if (kind == RK_GENERIC) {
            for (uint32_t k = 0; k < n; k++)
                accbuf[k] = plumb_load_bits(in[k]->dtype, in[n + k]->data, 0);
        }
        for (int64_t i = 0; i < (int64_t)nr; i++)
            ridx[i] = 0;
        for (uint64_t r = 0; r < rcount; r++) {
            int64_t off = base;
            for (uint32_t i = 0; i < nr; i++)
                off += ridx[i] * rstr[i];
            if (kind == RK_GENERIC) {
                for (uint32_t k = 0; k < n; k++) {
                    xbuf[k] = 0;
                    plumb_store_bits(in[k]->dtype, &xbuf[k], 0, plumb_load_bits(in[k]->dtype, in[k]->data, (size_t)off));
                }
                if (!ref_eval_region(c, body, args, res)) {
                    ok = false;
                    break;
                }
                for (uint32_t k = 0; k < n; k++) {
                    accbuf[k] = 0;
                    plumb_store_bits(in[k]->dtype, &accbuf[k], 0, plumb_load_bits(out[k]->dtype, &resbuf[k], 0));
                }
            } else if (use_acc) {
                ref_acc_add(&acc, plumb_load_f64(t0, x0->data, (size_t)off));
            } else if (use_prod) {
                ref_prod_mul(&prod, plumb_load_f64(t0, x0->data, (size_t)off));
            } else if (isf) {
                double v = plumb_load_f64(t0, x0->data, (size_t)off);
                facc = kind == RK_MAX ? ieee_max(facc, v) : ieee_min(facc, v);
            } else {
                iacc = int_fold(kind, t0, iacc, plumb_load_bits(t0, x0->data, (size_t)off));
            }
            /* next reduced index, row-major */
            for (uint32_t i = nr; i-- > 0;) {
                if (++ridx[i] < rdims[i]) break;
                ridx[i] = 0;
            }
            if (!ref_work_step(c, op, &work)) {
                ok = false;
                break;
            }
        }
        if (!ok)
            break;
        if (kind == RK_GENERIC) {
            for (uint32_t k = 0; k < n; k++)
                plumb_store_bits(out[k]->dtype, out[k]->data, (size_t)o, plumb_load_bits(in[k]->dtype, &accbuf[k], 0));
        } else if (use_acc) {
            plumb_store_bits(t0, out[0]->data, (size_t)o, ref_acc_round(&acc, t0));
        } else if (use_prod) {
            plumb_store_bits(t0, out[0]->data, (size_t)o, ref_prod_round(&prod, t0));
        } else if (isf) {
            /* max/min pick an operand: its exact bits (NaN payload too) */
            plumb_store_bits(t0, out[0]->data, (size_t)o, ref_bits_from_f64(t0, facc));
        } else {
            plumb_store_bits(t0, out[0]->data, (size_t)o, iacc);
        }
    }
    if (use_acc) ref_acc_clear(&acc);
    if (use_prod) ref_prod_clear(&prod);
    return ok && ref_work(c, op, work & 255);
}
