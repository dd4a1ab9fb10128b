/* Concrete shapes at run time (include/plumb/shape.h).
 *
 * The verifier proves what it can from types; a `?` dimension defers the
 * rest to execution. ir_shape_infer finishes the job for one op once its
 * operands' actual tensors exist, in three steps:
 *
 *   1. compute the concrete result dims from the operands' actual dims, the
 *      attributes and (dynamic ops) the values of the shape operands;
 *   2. re-run the verifier's rule for the op on a scratch copy whose
 *      operand and result types are those concrete ones: with no `?` left,
 *      "compatible" means "equal", so every relation the verifier let
 *      through with a `?` (equal operand shapes, slice limits within the
 *      operand, contracting sizes, byte limits, ...) is now checked with the
 *      actual sizes, by the same code and with the same words;
 *   3. compare the concrete result with the declared result type: a static
 *      dim must match, a bounded `?` must be within its bound.
 *
 * An op whose declared operand and result types are all static skips all of
 * this: the verifier already proved it, and the executors guarantee that a
 * value of a static type has exactly those dims. So static programs pay
 * nothing for polymorphism. docs/spec/interpreter.md, "Polymorphic shapes". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plumb/shape.h"

static bool sfail(plumb_diag *d, const ir_op *op, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool sfail(plumb_diag *d, const ir_op *op, plumb_code code, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    plumb_diag_set(d, code, op->loc, "%s: %s", plumb_op_name(op->code), msg);
    return false;
}

#define BAD(...) sfail(d, op, PLUMB_ERR_INVALID, __VA_ARGS__)

/* " (%name)" when the value has an SSA name, else "". */
static const char *vname(const ir_value *v, char *buf, size_t cap)
{
    if (v && v->name)
        snprintf(buf, cap, " (%%%s)", v->name);
    else
        buf[0] = '\0';
    return buf;
}

ir_type ir_shape_of(const plumb_tensor *t)
{
    ir_type r;
    memset(&r, 0, sizeof r);
    r.dtype = t->dtype;
    r.rank = t->rank <= PLUMB_MAX_RANK ? t->rank : PLUMB_MAX_RANK;
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++) {
        r.dims[i] = i < r.rank ? t->dims[i] : 0;
        r.bounds[i] = PLUMB_NO_BOUND;
    }
    return r;
}

/* The declared result type's dtype and rank with no dims filled yet. */
static ir_type result_blank(const ir_op *op, uint32_t j)
{
    ir_type r = op->results[j]->type;
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        r.bounds[i] = PLUMB_NO_BOUND;
    return r;
}

static bool in_list(const ir_ints *l, int64_t x)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == x)
            return true;
    return false;
}

/* The result's declared dims, which must all be static (ops such as iota
 * whose result nothing else determines). */
static bool declared_static(const ir_op *op, uint32_t j, ir_type *out, const char *use, plumb_diag *d)
{
    const ir_type *t = &op->results[j]->type;
    *out = result_blank(op, j);
    for (uint32_t i = 0; i < t->rank; i++)
        if (t->dims[i] == PLUMB_DIM_DYN) {
            char nb[160];
            return BAD("result %u%s dimension %u is '?' and nothing determines its size at run time%s%s",
                       j, vname(op->results[j], nb, sizeof nb), i, use ? "; use " : "", use ? use : "");
        }
    return true;
}

/* Reads element k of a 1-D integer shape operand as a non-negative size (or,
 * when allow_negative, any value that fits int64). */
static bool shape_value(const ir_op *op, uint32_t operand, const char *what, const plumb_tensor *t,
                        uint64_t k, bool allow_negative, int64_t *v, plumb_diag *d)
{
    char nb[160];
    vname(op->operands[operand], nb, sizeof nb);
    if (plumb_dtype_is_unsigned(t->dtype)) {
        uint64_t u = plumb_load_u64(t->dtype, t->data, k);
        if (u > (uint64_t)INT64_MAX)
            return BAD("operand %u%s (%s) element %llu: value %llu does not fit a dimension size",
                       operand, nb, what, (unsigned long long)k, (unsigned long long)u);
        *v = (int64_t)u;
        return true;
    }
    if (!plumb_dtype_is_int(t->dtype))
        return BAD("operand %u%s (%s) must have an integer element type, not %s", operand, nb, what,
                   plumb_dtype_name(t->dtype));
    *v = plumb_load_i64(t->dtype, t->data, k);
    if (!allow_negative && *v < 0)
        return BAD("operand %u%s (%s) element %llu: value %lld is negative", operand, nb, what,
                   (unsigned long long)k, (long long)*v);
    return true;
}

/* A shape operand must be 1-D with n elements. */
static bool shape_operand_len(const ir_op *op, uint32_t operand, const char *what, const plumb_tensor *t,
                              uint64_t n, const char *of, plumb_diag *d)
{
    char nb[160];
    if (t->rank != 1 || (uint64_t)t->dims[0] != n)
        return BAD("operand %u%s (%s) has %s%lld elements, expected %llu (%s)", operand,
                   vname(op->operands[operand], nb, sizeof nb), what, t->rank != 1 ? "rank != 1 and " : "",
                   t->rank ? (long long)t->dims[0] : 1LL, (unsigned long long)n, of);
    return true;
}

static bool add_size(const ir_op *op, int64_t a, int64_t b, int64_t *r, const char *what, uint32_t dim,
                     plumb_diag *d)
{
    if (__builtin_add_overflow(a, b, r))
        return BAD("%s dimension %u: %lld + %lld overflows", what, dim, (long long)a, (long long)b);
    return true;
}

/* ---- step 1: the concrete result dims ---------------------------------------- */

static void conv_out_dims(const ir_conv *c, const plumb_tensor *l, const plumb_tensor *r, ir_type *res);

static bool infer_static_rules(const ir_op *op, const plumb_tensor *const *in, ir_type *out, plumb_diag *d)
{
    const ir_attrs *a = &op->a;
    switch (op->code) {
    case PLUMB_OP_CONVOLUTION: {
        /* a '?' lhs or rhs dimension (JAX's shape-polymorphic exports):
         * C25 on the actual sizes; verify_concrete then runs every
         * convolution rule on them */
        const ir_conv *c = a->conv;
        if (!c || c->n_spatial > IR_CONV_MAX_SPATIAL || in[0]->rank != c->n_spatial + 2 || in[1]->rank != in[0]->rank ||
            op->results[0]->type.rank != in[0]->rank)
            return BAD("dimension numbers do not match the operand ranks");
        out[0] = result_blank(op, 0);
        conv_out_dims(c, in[0], in[1], &out[0]);
        return true;
    }
    case PLUMB_OP_SELECT:
    case PLUMB_OP_CLAMP:
        out[0] = result_blank(op, 0);
        out[0].rank = in[1]->rank;
        memcpy(out[0].dims, in[1]->dims, sizeof out[0].dims);
        return true;
    case PLUMB_OP_BITCAST_CONVERT: {
        out[0] = result_blank(op, 0);
        uint32_t rank = out[0].rank;
        for (uint32_t i = 0; i < rank; i++)
            out[0].dims[i] = i < in[0]->rank ? in[0]->dims[i] : op->results[0]->type.dims[i];
        if (rank > in[0]->rank) {   /* narrower result: its last dim is bits(in) / bits(out) */
            uint32_t bi = plumb_dtype_get(in[0]->dtype)->bits, bo = plumb_dtype_get(out[0].dtype)->bits;
            out[0].dims[rank - 1] = bo ? bi / bo : 0;
        }
        return true;
    }
    case PLUMB_OP_CONSTANT:
        out[0] = result_blank(op, 0);
        if (!a->value)
            return BAD("has no value");
        out[0].rank = a->value->rank;
        memcpy(out[0].dims, a->value->dims, sizeof out[0].dims);
        return true;
    case PLUMB_OP_IOTA:
        return declared_static(op, 0, &out[0], "stablehlo.dynamic_iota", d);
    case PLUMB_OP_RNG_BIT_GENERATOR:
        out[0] = result_blank(op, 0);
        out[0].rank = in[0]->rank;
        memcpy(out[0].dims, in[0]->dims, sizeof out[0].dims);
        return declared_static(op, 1, &out[1], NULL, d);
    case PLUMB_OP_BROADCAST_IN_DIM: {
        out[0] = result_blank(op, 0);
        const ir_type *t = &op->results[0]->type;
        for (uint32_t r = 0; r < t->rank; r++) {
            if (t->dims[r] != PLUMB_DIM_DYN) {
                out[0].dims[r] = t->dims[r];
                continue;
            }
            /* A `?` result dim takes the size of the operand dim broadcast
             * into it; with none, or one of size 1 (which may expand to
             * anything), only dynamic_broadcast_in_dim can say. */
            bool found = false;
            for (uint32_t k = 0; k < a->dims.n && k < in[0]->rank; k++)
                if (a->dims.v[k] == (int64_t)r && in[0]->dims[k] != 1) {
                    out[0].dims[r] = in[0]->dims[k];
                    found = true;
                }
            if (!found) {
                char nb[160];
                return BAD("result 0%s dimension %u is '?' and no operand dimension of size other than 1 maps to it, so its size is unknown at run time; use stablehlo.dynamic_broadcast_in_dim",
                           vname(op->results[0], nb, sizeof nb), r);
            }
        }
        return true;
    }
    case PLUMB_OP_RESHAPE: {
        out[0] = result_blank(op, 0);
        const ir_type *t = &op->results[0]->type;
        uint64_t numel = plumb_tensor_numel(in[0]), known = 1;
        int dyn = -1;
        for (uint32_t r = 0; r < t->rank; r++) {
            if (t->dims[r] == PLUMB_DIM_DYN) {
                if (dyn >= 0) {
                    char nb[160];
                    return BAD("result 0%s has more than one '?' dimension (%d and %u), so their sizes are unknown at run time; use stablehlo.dynamic_reshape",
                               vname(op->results[0], nb, sizeof nb), dyn, r);
                }
                dyn = (int)r;
            } else {
                out[0].dims[r] = t->dims[r];
                plumb_mul_overflow_u64(known, (uint64_t)t->dims[r], &known);
            }
        }
        if (dyn >= 0) {
            /* The one `?` takes what the element count leaves; with a static
             * part of zero elements any size fits, so none is implied. */
            if (known == 0 || numel % known) {
                char nb[160];
                return BAD("result 0%s dimension %d is '?': the operand's %llu elements are not a whole multiple of the static dimensions' %llu",
                           vname(op->results[0], nb, sizeof nb), dyn, (unsigned long long)numel,
                           (unsigned long long)known);
            }
            out[0].dims[dyn] = (int64_t)(numel / known);
        }
        return true;
    }
    case PLUMB_OP_TRANSPOSE:
        out[0] = result_blank(op, 0);
        for (uint32_t r = 0; r < a->dims.n && r < out[0].rank; r++) {
            int64_t p = a->dims.v[r];
            out[0].dims[r] = p >= 0 && p < (int64_t)in[0]->rank ? in[0]->dims[p] : 0;
        }
        return true;
    case PLUMB_OP_SLICE:
        out[0] = result_blank(op, 0);
        for (uint32_t r = 0; r < out[0].rank && r < a->start.n && r < a->limit.n && r < a->strides.n; r++) {
            /* ceil((limit - start) / stride), written so that no value
             * (a dynamic op's operand may hold anything) can overflow; the
             * verifier's rule then rejects what is out of range. */
            int64_t lo = a->start.v[r], hi = a->limit.v[r], st = a->strides.v[r];
            out[0].dims[r] = st > 0 && lo >= 0 && hi > lo ? (hi - lo - 1) / st + 1 : 0;
        }
        return true;
    case PLUMB_OP_DYNAMIC_SLICE:
        out[0] = result_blank(op, 0);
        for (uint32_t r = 0; r < out[0].rank && r < a->sizes.n; r++)
            out[0].dims[r] = a->sizes.v[r];
        return true;
    case PLUMB_OP_CONCATENATE: {
        out[0] = result_blank(op, 0);
        out[0].rank = in[0]->rank;
        memcpy(out[0].dims, in[0]->dims, sizeof out[0].dims);
        int64_t dim = a->dimension;
        if (dim < 0 || dim >= (int64_t)in[0]->rank)
            return true;   /* the verifier's rule names it */
        int64_t sum = 0;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (dim < (int64_t)in[i]->rank && !add_size(op, sum, in[i]->dims[dim], &sum, "result 0", (uint32_t)dim, d))
                return false;
        out[0].dims[dim] = sum;
        return true;
    }
    case PLUMB_OP_PAD:
        out[0] = result_blank(op, 0);
        for (uint32_t r = 0; r < out[0].rank && r < a->low.n && r < a->high.n && r < a->interior.n; r++) {
            int64_t n = in[0]->dims[r], lo = a->low.v[r], hi = a->high.v[r], it = a->interior.v[r], v = 0;
            bool over = n > 0 && __builtin_mul_overflow(n - 1, it, &v);
            over = over || __builtin_add_overflow(v, n, &v) || __builtin_add_overflow(v, lo, &v) ||
                   __builtin_add_overflow(v, hi, &v);
            if (over)
                return BAD("result dimension %u: %lld + %lld + %lld + (%lld - 1) * %lld overflows",
                           r, (long long)lo, (long long)hi, (long long)n, (long long)n, (long long)it);
            if (v < 0)
                return BAD("result dimension %u would be %lld + %lld + %lld + (%lld - 1) * %lld, which is negative",
                           r, (long long)lo, (long long)hi, (long long)n, (long long)n, (long long)it);
            out[0].dims[r] = v;
        }
        return true;
    case PLUMB_OP_REDUCE: {
        uint32_t n = op->n_operands / 2;
        for (uint32_t j = 0; j < op->n_results && j < n; j++) {
            out[j] = result_blank(op, j);
            uint32_t k = 0;
            for (uint32_t dd = 0; dd < in[j]->rank; dd++)
                if (!in_list(&a->dims, dd) && k < PLUMB_MAX_RANK)
                    out[j].dims[k++] = in[j]->dims[dd];
            out[j].rank = k;
        }
        return true;
    }
    case PLUMB_OP_REDUCE_WINDOW: {
        /* the number of windows per dimension (docs/spec/window.md) */
        for (uint32_t j = 0; j < op->n_results; j++) {
            out[j] = result_blank(op, j);
            out[j].rank = in[0]->rank;
            if (a->window_dims.n != in[0]->rank)
                return BAD("window_dimensions has %u entries for an input of rank %u", a->window_dims.n, in[0]->rank);
            for (uint32_t dd = 0; dd < in[0]->rank; dd++) {
                int64_t w = a->window_dims.v[dd], s = a->window_strides.n ? a->window_strides.v[dd] : 1;
                int64_t b = a->base_dilations.n ? a->base_dilations.v[dd] : 1;
                int64_t wd = a->window_dilations.n ? a->window_dilations.v[dd] : 1;
                int64_t lo = a->padding.n ? a->padding.v[2 * dd] : 0, hi = a->padding.n ? a->padding.v[2 * dd + 1] : 0;
                int64_t n = in[0]->dims[dd], dil = 0, pad, win;
                bool ovf = n > 0 && (__builtin_mul_overflow(n - 1, b, &dil) || __builtin_add_overflow(dil, 1, &dil));
                ovf = ovf || __builtin_add_overflow(lo, dil, &pad) || __builtin_add_overflow(pad, hi, &pad) ||
                      __builtin_mul_overflow(w - 1, wd, &win) || __builtin_add_overflow(win, 1, &win);
                if (ovf || s <= 0)
                    return BAD("dimension %u: the dilated, padded input or window size overflows", dd);
                out[j].dims[dd] = pad <= 0 || win > pad ? 0 : (pad - win) / s + 1;
            }
        }
        return true;
    }
    case PLUMB_OP_DOT_GENERAL: {
        const plumb_tensor *l = in[0], *r = in[1];
        out[0] = result_blank(op, 0);
        uint32_t k = 0;
        for (uint32_t i = 0; i < a->lhs_batch.n && k < PLUMB_MAX_RANK; i++)
            out[0].dims[k++] = a->lhs_batch.v[i] < (int64_t)l->rank ? l->dims[a->lhs_batch.v[i]] : 0;
        for (uint32_t dd = 0; dd < l->rank && k < PLUMB_MAX_RANK; dd++)
            if (!in_list(&a->lhs_batch, dd) && !in_list(&a->lhs_contract, dd))
                out[0].dims[k++] = l->dims[dd];
        for (uint32_t dd = 0; dd < r->rank && k < PLUMB_MAX_RANK; dd++)
            if (!in_list(&a->rhs_batch, dd) && !in_list(&a->rhs_contract, dd))
                out[0].dims[k++] = r->dims[dd];
        out[0].rank = k;
        return true;
    }
    case PLUMB_OP_DOT: {
        const plumb_tensor *l = in[0], *r = in[1];
        out[0] = result_blank(op, 0);
        uint32_t k = 0;
        if (l->rank == 2)
            out[0].dims[k++] = l->dims[0];
        if (r->rank == 2)
            out[0].dims[k++] = r->dims[1];
        out[0].rank = k;
        return true;
    }
    case PLUMB_OP_GATHER: {
        const plumb_tensor *idx = in[1];
        int64_t ivd = a->index_vector_dim == -1 ? 0 : a->index_vector_dim;
        out[0] = result_blank(op, 0);
        uint32_t bi = 0, oi = 0;
        for (uint32_t dd = 0; dd < out[0].rank; dd++) {
            if (in_list(&a->offset_dims, dd)) {
                while (in_list(&a->collapsed_slice_dims, oi) || in_list(&a->operand_batching_dims, oi))
                    oi++;
                out[0].dims[dd] = oi < a->sizes.n ? a->sizes.v[oi] : 0;
                oi++;
            } else {
                if ((int64_t)bi == ivd)
                    bi++;
                out[0].dims[dd] = bi < idx->rank ? idx->dims[bi] : 0;
                bi++;
            }
        }
        return true;
    }
    case PLUMB_OP_FFT: {
        /* the operand's dims; RFFT's last transformed dim becomes
         * fft_length[-1] / 2 + 1, IRFFT's fft_length[-1] (StableHLO C4, C5) */
        out[0] = result_blank(op, 0);
        out[0].rank = in[0]->rank;
        memcpy(out[0].dims, in[0]->dims, sizeof out[0].dims);
        if (in[0]->rank && a->fft_length.n) {
            int64_t last = a->fft_length.v[a->fft_length.n - 1];
            if (a->fft_type == IR_FFT_RFFT)
                out[0].dims[in[0]->rank - 1] = last / 2 + 1;
            else if (a->fft_type == IR_FFT_IRFFT)
                out[0].dims[in[0]->rank - 1] = last;
        }
        return true;
    }
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD:
        /* the normalized (or gradient) operand has the operand's dims; the
         * per-feature results (training's mean and variance, grad's scale
         * and offset gradients) are [size of the feature dimension] */
        for (uint32_t j = 0; j < op->n_results; j++) {
            out[j] = result_blank(op, j);
            if (j == 0) {
                out[j].rank = in[0]->rank;
                memcpy(out[j].dims, in[0]->dims, sizeof out[j].dims);
            } else {
                out[j].rank = 1;
                out[j].dims[0] = a->feature_index >= 0 && (uint64_t)a->feature_index < in[0]->rank
                                     ? in[0]->dims[a->feature_index] : 0;
            }
        }
        return true;
    /* chlo.scan (docs/spec/control.md "scan"): carry j has init j's
     * dims; output i has body value i's declared dims with the scan length
     * L inserted at `dimension`, a `?` of the body value taken from input
     * i's actual dims when input i has the output's rank (the body keeps
     * the slice's shape, as JAX's scans do); any other `?` is refused. */
    case PLUMB_OP_SCAN: {
        uint32_t m = a->n_inits, n = op->n_operands - m, k = op->n_results - m;
        const ir_op *ret = op->n_regions == 1 ? op->regions[0].last : NULL;
        if (m > op->n_operands || m > op->n_results || !ret || ret->n_operands != k + m || a->dimension < 0 ||
            (n == 0 && k > 0))
            return BAD("has no run-time shape rule for this scan (no inputs to give its length, or an invalid body)");
        uint32_t dm = (uint32_t)a->dimension;
        if (n && dm >= in[0]->rank)
            return BAD("dimension %u is out of range for input 0 of rank %u", dm, in[0]->rank);
        int64_t len = n ? in[0]->dims[dm] : 0;
        for (uint32_t i = 0; i < k; i++) {
            const ir_type *bt = &ret->operands[i]->type;
            if (bt->tuple || dm > bt->rank || bt->rank + 1 > PLUMB_MAX_RANK)
                return BAD("body output %u cannot take the scan dimension", i);
            out[i] = result_blank(op, i);
            out[i].rank = bt->rank + 1;
            for (uint32_t q = 0, e = 0; q < out[i].rank; q++) {
                if (q == dm) {
                    out[i].dims[q] = len;
                    continue;
                }
                int64_t v = bt->dims[e++];
                if (v == PLUMB_DIM_DYN) {
                    if (i >= n || in[i]->rank != out[i].rank)
                        return BAD("body output %u has a '?' dimension no input gives", i);
                    v = in[i]->dims[q];
                }
                out[i].dims[q] = v;
            }
        }
        for (uint32_t j = 0; j < m; j++) {
            out[k + j] = result_blank(op, k + j);
            out[k + j].rank = in[n + j]->rank;
            memcpy(out[k + j].dims, in[n + j]->dims, sizeof out[k + j].dims[0] * in[n + j]->rank);
        }
        return true;
    }
    case PLUMB_OP_TOP_K:
        for (uint32_t j = 0; j < 2; j++) {
            out[j] = result_blank(op, j);
            out[j].rank = in[0]->rank;
            memcpy(out[j].dims, in[0]->dims, sizeof out[j].dims);
            if (in[0]->rank)
                out[j].dims[in[0]->rank - 1] = a->k;
        }
        return true;
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR:
    case PLUMB_OP_CEIL: case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ:
    case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_IS_FINITE: case PLUMB_OP_NOT: case PLUMB_OP_POPCNT:
    case PLUMB_OP_COUNT_LEADING_ZEROS: case PLUMB_OP_REDUCE_PRECISION: case PLUMB_OP_ERF:
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH:
    case PLUMB_OP_ASINH: case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH:
    case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE: case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF:
    case PLUMB_OP_IS_NEG_INF: case PLUMB_OP_LGAMMA: case PLUMB_OP_DIGAMMA: case PLUMB_OP_ERF_INV:
    case PLUMB_OP_BESSEL_I1E: case PLUMB_OP_ZETA: case PLUMB_OP_POLYGAMMA: case PLUMB_OP_CONJ: case PLUMB_OP_CHLO_TAN:
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_ATAN2: case PLUMB_OP_AND: case PLUMB_OP_OR: case PLUMB_OP_XOR:
    case PLUMB_OP_SHIFT_LEFT: case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC:
    case PLUMB_OP_SHIFT_RIGHT_LOGICAL: case PLUMB_OP_COMPARE: case PLUMB_OP_NEXT_AFTER: case PLUMB_OP_MULHI: case PLUMB_OP_CONVERT:
    case PLUMB_OP_REVERSE: case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_SCATTER:
    case PLUMB_OP_SORT: case PLUMB_OP_OPTIMIZATION_BARRIER: case PLUMB_OP_WHILE: case PLUMB_OP_SELECT_AND_SCATTER:
    case PLUMB_OP_COMPLEX: case PLUMB_OP_REAL: case PLUMB_OP_IMAG: case PLUMB_OP_MAP:
    case PLUMB_OP_CHOLESKY: case PLUMB_OP_TRIANGULAR_SOLVE:
        break;
    default:
        return sfail(d, op, PLUMB_ERR_UNSUPPORTED, "has no run-time shape rule");
    }
    /* Every result has the shape of the operand it corresponds to:
     * elementwise ops, convert, reverse, dynamic_update_slice (operand 0),
     * cholesky (its matrices), scatter, sort and optimization_barrier
     * (result j from operand j), triangular_solve (the right-hand sides b,
     * operand 1: a batched JAX export leaves both a's and b's batch `?`). */
    for (uint32_t j = 0; j < op->n_results; j++) {
        uint32_t src = op->code == PLUMB_OP_SCATTER || op->code == PLUMB_OP_SORT ||
                       op->code == PLUMB_OP_OPTIMIZATION_BARRIER || op->code == PLUMB_OP_WHILE ? j :
                       op->code == PLUMB_OP_TRIANGULAR_SOLVE ? 1 : 0;
        if (src >= op->n_operands)
            return BAD("has no operand %u to take result %u's shape from", src, j);
        out[j] = result_blank(op, j);
        out[j].rank = in[src]->rank;
        memcpy(out[j].dims, in[src]->dims, sizeof out[j].dims);
    }
    return true;
}

static bool infer_dims(const ir_op *op, const plumb_tensor *const *in, ir_type *out, plumb_diag *d)
{
    switch (op->code) {
    case PLUMB_OP_CALL:
    case PLUMB_OP_FUNC_RETURN:
    case PLUMB_OP_RETURN:
        return sfail(d, op, PLUMB_ERR_USAGE,
                     "ir_shape_infer does not apply: a call's result shapes come from its callee, a return's from its values");
    case PLUMB_OP_EXPECT_EQ: case PLUMB_OP_EXPECT_EQ_CONST: case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST: case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        return true;   /* no results; step 2 checks the operands agree */
    case PLUMB_OP_GET_DIMENSION_SIZE: {
        out[0] = result_blank(op, 0);
        int64_t k = op->a.dimension;
        if (k < 0 || k >= (int64_t)in[0]->rank)
            return BAD("dimension = %lld is out of range for operand rank %u", (long long)k, in[0]->rank);
        /* The result is an i32: a size beyond it cannot be told. */
        if (in[0]->dims[k] > INT32_MAX)
            return BAD("operand 0 dimension %lld has size %lld, which does not fit the i32 result",
                       (long long)k, (long long)in[0]->dims[k]);
        return true;
    }
    case PLUMB_OP_SHAPE_ASSERTION:
        return true;   /* no results; the kernel tests the predicate */
    default:
        return infer_static_rules(op, in, out, d);
    }
}

/* ---- step 2: the verifier's rule on concrete types ---------------------------- */

/* Scratch values live on the stack up to this many operands plus results. */
#define SHAPE_SMALL 16

static bool verify_concrete(const ir_op *op, const plumb_tensor *const *in, const ir_type *out,
                            uint64_t max_bytes, plumb_diag *d)
{
    uint32_t n = op->n_operands + op->n_results;
    ir_value vals_small[SHAPE_SMALL], *vals = vals_small;
    ir_value *ptrs_small[SHAPE_SMALL], **ptrs = ptrs_small;
    if (n > SHAPE_SMALL) {
        vals = plumb_calloc(n, sizeof *vals);
        ptrs = plumb_calloc(n, sizeof *ptrs);
        if (!vals || !ptrs) {
            plumb_free(vals, (size_t)n * sizeof *vals);
            plumb_free(ptrs, (size_t)n * sizeof *ptrs);
            return sfail(d, op, PLUMB_ERR_NOMEM, "out of memory checking run-time shapes");
        }
    }
    for (uint32_t i = 0; i < op->n_operands; i++) {
        vals[i] = *op->operands[i];
        vals[i].type = ir_shape_of(in[i]);
        ptrs[i] = &vals[i];
    }
    for (uint32_t j = 0; j < op->n_results; j++) {
        uint32_t k = op->n_operands + j;
        vals[k] = *op->results[j];
        vals[k].type = out[j];
        ptrs[k] = &vals[k];
    }
    ir_op tmp = *op;
    tmp.operands = ptrs;
    tmp.results = ptrs + op->n_operands;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    bool ok = ir_verify_op(&tmp, NULL, max_bytes, &sd);
    if (!ok)
        plumb_diag_set(d, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_INVALID, sd.loc,
                       "%s (with the sizes known at run time)", sd.msg);
    if (vals != vals_small) {
        plumb_free(vals, (size_t)n * sizeof *vals);
        plumb_free(ptrs, (size_t)n * sizeof *ptrs);
    }
    return ok;
}

/* ---- step 3: against the declared result types ---------------------------------- */

static bool check_declared(const ir_op *op, uint32_t j, const ir_type *got, plumb_diag *d)
{
    const ir_type *t = &op->results[j]->type;
    char nb[160];
    vname(op->results[j], nb, sizeof nb);
    if (got->rank != t->rank)
        return BAD("result %u%s has rank %u at run time but is declared with rank %u", j, nb,
                   got->rank, t->rank);
    for (uint32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] != PLUMB_DIM_DYN && t->dims[i] != got->dims[i])
            return BAD("result %u%s dimension %u: size %lld at run time contradicts the declared size %lld",
                       j, nb, i, (long long)got->dims[i], (long long)t->dims[i]);
        if (t->dims[i] == PLUMB_DIM_DYN && t->bounds[i] != PLUMB_NO_BOUND && got->dims[i] > t->bounds[i])
            return BAD("result %u%s dimension %u: size %lld exceeds its bound %lld", j, nb, i,
                       (long long)got->dims[i], (long long)t->bounds[i]);
    }
    return true;
}

/* ---- dynamic ops: the static counterpart ---------------------------------------- */

bool ir_shape_is_dynamic_op(plumb_opcode code)
{
    switch (code) {
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
    case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_DYNAMIC_IOTA:
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD:
    case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_DYNAMIC_CONV:
        return true;
    default:
        return false;
    }
}

/* A message produced for the static counterpart names the dynamic op. */
static void rename_diag(plumb_diag *from, plumb_opcode stat, const ir_op *op, plumb_diag *d)
{
    const char *sn = plumb_op_name(stat);
    size_t n = strlen(sn);
    const char *rest = from->msg;
    if (!strncmp(rest, sn, n) && rest[n] == ':')
        rest += n + 1;
    else
        rest = NULL;
    if (rest)
        plumb_diag_set(d, from->code, from->loc, "%s:%s", plumb_op_name(op->code), rest);
    else
        plumb_diag_set(d, from->code, from->loc, "%s", from->msg);
}

/* Fills list (a view of buf) with the n values of shape operand k. */
static bool read_list(const ir_op *op, const plumb_tensor *const *in, uint32_t k, const char *what,
                      uint32_t n, const char *of, bool allow_negative, int64_t *buf, ir_ints *list,
                      plumb_diag *d)
{
    if (!shape_operand_len(op, k, what, in[k], n, of, d))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!shape_value(op, k, what, in[k], i, allow_negative, &buf[i], d))
            return false;
    list->v = n ? buf : NULL;
    list->n = n;
    return true;
}

/* convolution's result dims (C25) from the operands' actual sizes: batch
 * / batch_group_count, the kernel's output features, and per spatial
 * dimension the dilated, padded input's count of strided window positions.
 * A step that overflows leaves its dims at 0 for the convolution rule,
 * which ir_shape_infer runs next on these sizes, to report in its words. */
static void conv_out_dims(const ir_conv *c, const plumb_tensor *l, const plumb_tensor *r, ir_type *res)
{
    uint32_t S = c->n_spatial;
    int64_t B = l->dims[c->in_batch], bgc = c->batch_group_count;
    res->dims[c->out_batch] = bgc > 0 ? B / bgc : 0;
    res->dims[c->out_feature] = r->dims[c->k_out_feature];
    for (uint32_t k = 0; k < S; k++) {
        int64_t n = l->dims[c->in_spatial[k]], w = r->dims[c->k_spatial[k]];
        int64_t ld = c->n_lhs_dilation ? c->lhs_dilation[k] : 1, rd = c->n_rhs_dilation ? c->rhs_dilation[k] : 1;
        int64_t st = c->n_strides ? c->strides[k] : 1, din = 0, dw = 0, padded = 0, out = 0;
        bool ovf = (n > 0 && (__builtin_mul_overflow(n - 1, ld, &din) || __builtin_add_overflow(din, 1, &din))) ||
                   __builtin_add_overflow(din, c->pad_lo[k], &padded) ||
                   __builtin_add_overflow(padded, c->pad_hi[k], &padded) ||
                   (w > 0 && (__builtin_mul_overflow(w - 1, rd, &dw) || __builtin_add_overflow(dw, 1, &dw)));
        if (!ovf && st > 0)
            out = padded <= 0 || dw > padded ? 0 : (padded - dw) / st + 1;
        res->dims[c->out_spatial[k]] = out;
    }
}

/* dynamic_conv: convolution with padding[k] = (d_padding[k][0],
 * d_padding[k][1]) for spatial dimension k, any integer values (negative
 * padding removes elements). The result dims follow convolution's C25;
 * a step that overflows leaves its dims at 0 for the convolution rule,
 * which ir_shape_infer runs next on these sizes, to report in its words. */
static bool conv_static_form(const ir_op *op, const plumb_tensor *const *in, ir_shape_static *s, plumb_diag *d)
{
    const ir_conv *cv = op->a.conv;
    const plumb_tensor *l = in[0], *r = in[1], *p = in[2];
    char nb[160];
    if (!cv || cv->n_spatial > IR_CONV_MAX_SPATIAL || l->rank != cv->n_spatial + 2 || r->rank != l->rank ||
        s->result.rank != l->rank)
        return BAD("dimension numbers do not match the operand ranks");
    uint32_t S = cv->n_spatial;
    if (p->rank != 2 || p->dims[0] != (int64_t)S || p->dims[1] != 2)
        return BAD("operand 2%s (d_padding) has shape [%lld, %lld], expected [%u, 2] (StableHLO C4)",
                   vname(op->operands[2], nb, sizeof nb), p->rank ? (long long)p->dims[0] : 0LL,
                   p->rank > 1 ? (long long)p->dims[1] : 0LL, S);
    if (!p->data && S)
        return BAD("operand 2%s (d_padding) has no value here", vname(op->operands[2], nb, sizeof nb));
    s->code = PLUMB_OP_CONVOLUTION;
    s->n_operands = 2;
    s->conv = *cv;
    for (uint32_t k = 0; k < S; k++)
        if (!shape_value(op, 2, "d_padding", p, 2 * k, true, &s->conv.pad_lo[k], d) ||
            !shape_value(op, 2, "d_padding", p, 2 * k + 1, true, &s->conv.pad_hi[k], d))
            return false;
    s->conv.n_padding = S;
    s->a.conv = &s->conv;
    conv_out_dims(&s->conv, l, r, &s->result);
    return true;
}

bool ir_shape_static_form(const ir_op *op, const plumb_tensor *const *in, ir_shape_static *s,
                          plumb_diag *d)
{
    memset(s, 0, sizeof *s);
    s->a = op->a;
    s->result = result_blank(op, 0);
    uint32_t rank_out = op->results[0]->type.rank, rank_in = op->n_operands ? in[0]->rank : 0;
    char nb[160];
    switch (op->code) {
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        s->code = PLUMB_OP_BROADCAST_IN_DIM;
        s->n_operands = 1;
        ir_ints dims;
        if (!read_list(op, in, 1, "output_dimensions", rank_out, "the result's rank", false, s->buf[0], &dims, d))
            return false;
        memcpy(s->result.dims, s->buf[0], (size_t)rank_out * sizeof(int64_t));
        /* The hints are promises about the operand; a broken one is an
         * error, not undefined behaviour. */
        for (uint32_t i = 0; i < op->a.known_expanding.n; i++) {
            int64_t k = op->a.known_expanding.v[i];
            if (k >= 0 && k < (int64_t)rank_in && in[0]->dims[k] != 1)
                return BAD("operand 0%s dimension %lld is listed in known_expanding_dimensions but has size %lld, not 1",
                           vname(op->operands[0], nb, sizeof nb), (long long)k, (long long)in[0]->dims[k]);
        }
        for (uint32_t i = 0; i < op->a.known_nonexpanding.n; i++) {
            int64_t k = op->a.known_nonexpanding.v[i];
            if (k < 0 || k >= (int64_t)rank_in || (uint32_t)k >= op->a.dims.n)
                continue;
            int64_t to = op->a.dims.v[k];
            if (to >= 0 && to < (int64_t)rank_out && in[0]->dims[k] != s->result.dims[to])
                return BAD("operand 0%s dimension %lld is listed in known_nonexpanding_dimensions but has size %lld while output_dimensions[%lld] = %lld",
                           vname(op->operands[0], nb, sizeof nb), (long long)k, (long long)in[0]->dims[k],
                           (long long)to, (long long)s->result.dims[to]);
        }
        return true;
    }
    case PLUMB_OP_DYNAMIC_RESHAPE: {
        s->code = PLUMB_OP_RESHAPE;
        s->n_operands = 1;
        ir_ints dims;
        if (!read_list(op, in, 1, "output_shape", rank_out, "the result's rank", false, s->buf[0], &dims, d))
            return false;
        memcpy(s->result.dims, s->buf[0], (size_t)rank_out * sizeof(int64_t));
        return true;
    }
    case PLUMB_OP_DYNAMIC_IOTA: {
        s->code = PLUMB_OP_IOTA;
        s->n_operands = 0;
        ir_ints dims;
        if (!read_list(op, in, 0, "output_shape", rank_out, "the result's rank", false, s->buf[0], &dims, d))
            return false;
        memcpy(s->result.dims, s->buf[0], (size_t)rank_out * sizeof(int64_t));
        return true;
    }
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
        s->code = PLUMB_OP_SLICE;
        s->n_operands = 1;
        if (!read_list(op, in, 1, "start_indices", rank_in, "the operand's rank", true, s->buf[0], &s->a.start, d) ||
            !read_list(op, in, 2, "limit_indices", rank_in, "the operand's rank", true, s->buf[1], &s->a.limit, d) ||
            !read_list(op, in, 3, "strides", rank_in, "the operand's rank", true, s->buf[2], &s->a.strides, d))
            return false;
        break;
    case PLUMB_OP_DYNAMIC_PAD:
        s->code = PLUMB_OP_PAD;
        s->n_operands = 2;
        if (!read_list(op, in, 2, "edge_padding_low", rank_in, "the operand's rank", true, s->buf[0], &s->a.low, d) ||
            !read_list(op, in, 3, "edge_padding_high", rank_in, "the operand's rank", true, s->buf[1], &s->a.high, d) ||
            !read_list(op, in, 4, "interior_padding", rank_in, "the operand's rank", true, s->buf[2], &s->a.interior, d))
            return false;
        break;
    case PLUMB_OP_DYNAMIC_GATHER:
        s->code = PLUMB_OP_GATHER;
        s->n_operands = 2;
        if (!read_list(op, in, 2, "slice_sizes", rank_in, "the operand's rank", false, s->buf[0], &s->a.sizes, d))
            return false;
        break;
    case PLUMB_OP_DYNAMIC_CONV:
        return conv_static_form(op, in, s, d);
    default:
        return sfail(d, op, PLUMB_ERR_USAGE, "is not a dynamic op with a static counterpart");
    }
    /* slice, pad, gather: the result dims follow from the filled-in
     * attributes by the static op's own rule. */
    ir_op tmp = *op;
    tmp.code = s->code;
    tmp.a = s->a;
    tmp.n_operands = s->n_operands;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!infer_static_rules(&tmp, in, &s->result, &sd)) {
        rename_diag(&sd, s->code, op, d);
        return false;
    }
    return true;
}

static bool infer_dynamic(const ir_op *op, const plumb_tensor *const *in, ir_type *out,
                          uint64_t max_bytes, plumb_diag *d)
{
    ir_shape_static *s = plumb_malloc(sizeof *s);
    if (!s)
        return sfail(d, op, PLUMB_ERR_NOMEM, "out of memory checking run-time shapes");
    bool ok = ir_shape_static_form(op, in, s, d);
    if (ok) {
        out[0] = s->result;
        ir_op tmp = *op;
        tmp.code = s->code;
        tmp.a = s->a;
        tmp.n_operands = s->n_operands;
        plumb_diag sd;
        memset(&sd, 0, sizeof sd);
        if (!(ok = verify_concrete(&tmp, in, out, max_bytes, &sd)))
            rename_diag(&sd, s->code, op, d);
    }
    ok = ok && check_declared(op, 0, &out[0], d);
    plumb_free(s, sizeof *s);
    return ok;
}

/* if and case with a `?` result: the result is what the branch taken
 * returns (StableHLO "if"/"case": "results = the results of the executed
 * branch"), so its shape is that of the selected branch's returned values,
 * which differ between branches (why the result was written with `?`).
 * Known before the branch runs when the values the branch returns have
 * static types; a returned value with a `?` of its own gets its size only
 * as the branch runs, which the reference does (ref/interp.c: the results
 * are the branch's returned tensors, checked by ir_shape_check_result) and
 * a rule run beforehand cannot. Only the values of the selector operand
 * are read. */
static bool branch_shapes(const ir_op *op, const plumb_tensor *const *in, ir_type *out,
                          uint64_t max_bytes, plumb_diag *d)
{
    if (op->n_operands < 1 || op->n_regions < 1)
        return BAD("needs a selector operand and at least one branch");
    /* no data: a caller that knows shapes only (refinement, with the
     * selector depending on a parameter's value). When every branch
     * returns values of one static type per result, that is the result
     * whichever branch runs. */
    if (!in[0]->data || plumb_tensor_numel(in[0]) != 1) {
        bool same = true;
        for (uint32_t k = 0; k < op->n_regions && same; k++) {
            const ir_op *rk = op->regions[k].last, *r0 = op->regions[0].last;
            same = rk && r0 && rk->n_operands == op->n_results && r0->n_operands == op->n_results;
            for (uint32_t j = 0; same && j < op->n_results; j++)
                same = ir_type_is_static(&rk->operands[j]->type) &&
                       ir_type_equal(&rk->operands[j]->type, &r0->operands[j]->type);
        }
        for (uint32_t j = 0; same && j < op->n_results; j++) {
            out[j] = op->regions[0].last->operands[j]->type;
            for (uint32_t k = 0; k < PLUMB_MAX_RANK; k++)
                out[j].bounds[k] = PLUMB_NO_BOUND;
            if (!check_declared(op, j, &out[j], d))
                return false;
        }
        if (same)
            return true;
        return sfail(d, op, PLUMB_ERR_UNSUPPORTED,
                     "the sizes of its '?' results come from the branch taken, and the %s that selects "
                     "it is not known here", op->code == PLUMB_OP_IF ? "predicate" : "index");
    }
    uint32_t r = ir_branch_select(op, in[0]->data);
    const ir_op *ret = r < op->n_regions ? op->regions[r].last : NULL;
    if (!ret || (ret->code != PLUMB_OP_RETURN && ret->code != PLUMB_OP_FUNC_RETURN) ||
        ret->n_operands != op->n_results)
        return BAD("branch %u does not end in a return of its %u results", r, op->n_results);
    for (uint32_t j = 0; j < op->n_results; j++) {
        const ir_type *t = &ret->operands[j]->type;
        if (!ir_type_is_static(t))
            return sfail(d, op, PLUMB_ERR_UNSUPPORTED,
                         "result %u has a '?' dimension and branch %u returns a value whose size is "
                         "known only once the branch runs (the reference runs it; this backend sizes "
                         "results before)", j, r);
        out[j] = *t;
        for (uint32_t k = 0; k < PLUMB_MAX_RANK; k++)
            out[j].bounds[k] = PLUMB_NO_BOUND;
        uint64_t nb = plumb_dtype_size(t->dtype);
        for (uint32_t k = 0; k < t->rank; k++)
            if (plumb_mul_overflow_u64(nb, (uint64_t)t->dims[k], &nb))
                nb = UINT64_MAX;
        if (nb > max_bytes)
            return BAD("result %u would take %llu bytes, over the limit of %llu", j,
                       (unsigned long long)nb, (unsigned long long)max_bytes);
        if (!check_declared(op, j, &out[j], d))
            return false;
    }
    return true;
}

bool ir_shape_check_result(const ir_op *op, uint32_t j, const plumb_tensor *t, plumb_diag *d)
{
    if (j >= op->n_results)
        return BAD("has no result %u", j);
    if (t->dtype != op->results[j]->type.dtype)
        return BAD("result %u has element type %s at run time but is declared %s", j,
                   plumb_dtype_name(t->dtype), plumb_dtype_name(op->results[j]->type.dtype));
    ir_type got = ir_shape_of(t);
    return check_declared(op, j, &got, d);
}

static bool all_static(const ir_op *op)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!ir_type_is_static(&op->operands[i]->type))
            return false;
    for (uint32_t j = 0; j < op->n_results; j++)
        if (!ir_type_is_static(&op->results[j]->type))
            return false;
    return true;
}

bool ir_shape_infer(const ir_op *op, const plumb_tensor *const *in, ir_type *out,
                    uint64_t max_bytes, plumb_diag *d)
{
    if ((unsigned)op->code >= PLUMB_OP_COUNT)
        return plumb_diag_set(d, PLUMB_ERR_INVALID, op->loc, "unknown opcode %u", (unsigned)op->code), false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!in[i])
            return sfail(d, op, PLUMB_ERR_USAGE, "operand %u has no tensor", i);
    /* dynamic_conv's padding is a value even when every type is static: the
     * verifier could not check the result shape it gives, so it is checked
     * here whenever the value is at hand (its kernels always pass it) */
    if (all_static(op) && op->code != PLUMB_OP_CALL && op->code != PLUMB_OP_FUNC_RETURN &&
        op->code != PLUMB_OP_RETURN && !(op->code == PLUMB_OP_DYNAMIC_CONV && in[2]->data)) {
        for (uint32_t j = 0; j < op->n_results; j++)
            out[j] = result_blank(op, j);
        return true;
    }
    if (ir_shape_is_dynamic_op(op->code))
        return infer_dynamic(op, in, out, max_bytes, d);
    /* not through the verifier's rule on concrete types: the branch not
     * taken may return other sizes, which is why the result has a `?` */
    if (op->code == PLUMB_OP_IF || op->code == PLUMB_OP_CASE)
        return branch_shapes(op, in, out, max_bytes, d);
    if (!infer_dims(op, in, out, d))
        return false;
    if (!verify_concrete(op, in, out, max_bytes, d))
        return false;
    for (uint32_t j = 0; j < op->n_results; j++)
        if (!check_declared(op, j, &out[j], d))
            return false;
    return true;
}

bool ir_shape_check_args_one(const ir_func *f, uint32_t i, const plumb_tensor *x, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    const ir_value *p = f->body.args[i];
    const ir_type *t = &p->type;
    char nb[160];
    vname(p, nb, sizeof nb);
    if (!x)
        return plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s parameter %u%s: no argument given",
                              f->name, i, nb), false;
    if (x->dtype != t->dtype)
        return plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                              "@%s parameter %u%s: element type %s given, %s declared", f->name, i, nb,
                              plumb_dtype_name(x->dtype), plumb_dtype_name(t->dtype)), false;
    if (x->rank != t->rank)
        return plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s parameter %u%s: rank %u given, %u declared",
                              f->name, i, nb, x->rank, t->rank), false;
    for (uint32_t k = 0; k < t->rank; k++) {
        if (t->dims[k] != PLUMB_DIM_DYN && x->dims[k] != t->dims[k])
            return plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                                  "@%s parameter %u%s dimension %u: size %lld given, %lld declared",
                                  f->name, i, nb, k, (long long)x->dims[k], (long long)t->dims[k]), false;
        if (t->dims[k] == PLUMB_DIM_DYN && t->bounds[k] != PLUMB_NO_BOUND && x->dims[k] > t->bounds[k])
            return plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                                  "@%s parameter %u%s dimension %u: size %lld exceeds its bound %lld",
                                  f->name, i, nb, k, (long long)x->dims[k], (long long)t->bounds[k]), false;
    }
    return true;
}

bool ir_shape_check_args(const ir_func *f, const plumb_tensor *const *args, uint32_t n, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (n != f->body.n_args)
        return plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s takes %u parameters but %u inputs were given",
                              f->name, f->body.n_args, n), false;
    for (uint32_t i = 0; i < n; i++)
        if (!ir_shape_check_args_one(f, i, args[i], d))
            return false;
    return true;
}

void ir_shape_assertion_message(const ir_op *op, const plumb_tensor *const *in, plumb_buf *b)
{
    const char *m = op->a.message ? op->a.message : "";
    while (*m) {
        const char *open = strchr(m, '{');
        if (!open) {
            plumb_buf_puts(b, m);
            break;
        }
        plumb_buf_append(b, m, (size_t)(open - m));
        const char *p = open + 1;
        uint64_t k = 0;
        bool digits = false, big = false;
        while (*p >= '0' && *p <= '9') {
            digits = true;
            if (k > 1000000)
                big = true;
            else
                k = k * 10 + (uint64_t)(*p - '0');
            p++;
        }
        const plumb_tensor *v = digits && *p == '}' && !big && k + 1 < op->n_operands ? in[k + 1] : NULL;
        if (v && v->data && plumb_dtype_is_int(v->dtype)) {
            if (plumb_dtype_is_unsigned(v->dtype))
                plumb_buf_printf(b, "%llu", (unsigned long long)plumb_load_u64(v->dtype, v->data, 0));
            else
                plumb_buf_printf(b, "%lld", (long long)plumb_load_i64(v->dtype, v->data, 0));
            m = p + 1;
        } else {
            plumb_buf_append(b, open, 1);   /* not a reference, or no value known: kept as written */
            m = open + 1;
        }
    }
}
