/* Data-movement kernels of the reference: constant, iota, broadcast_in_dim,
 * reshape, transpose, slice, dynamic_slice, dynamic_update_slice,
 * concatenate, pad, reverse and bitcast_convert. Semantics follow the
 * StableHLO spec (docs/spec/movement.md); every kernel moves element bit
 * patterns unchanged, so NaN payloads, signed zeros and subnormals pass
 * through exactly.
 *
 * The interpreter has verified the op, so operand and result types agree
 * with the attributes; kernels still check what they index with, so a
 * module built by hand cannot make them read or write out of bounds. */
#include <string.h>

#include "ref_internal.h"
#include "plumb/fp8.h"

/* Kernels poll the deadline once per this many elements. */
#define POLL_EVERY 65536u

static size_t esize(const plumb_tensor *t) { return plumb_dtype_size(t->dtype); }

/* Advances a row-major multi-index; returns false after the last one. */
static bool next_index(uint32_t rank, const int64_t *dims, int64_t *idx)
{
    for (uint32_t i = rank; i-- > 0;) {
        if (++idx[i] < dims[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

static bool poll_at(ref_ctx *c, const ir_op *op, uint64_t i)
{
    return (i % POLL_EVERY) != POLL_EVERY - 1 || ref_poll(c, op);
}

static void copy_elem(void *dst, uint64_t di, const void *src, uint64_t si, size_t es)
{
    memcpy((unsigned char *)dst + di * es, (const unsigned char *)src + si * es, es);
}

/* Generic gather-style copy: out[ri] = in[f(ri)] where f is supplied as a
 * per-dimension affine map of result indices (oi[d] = base[d] +
 * step[d] * ri[src_dim[d]]), the common shape of broadcast, transpose,
 * slice and reverse. src_dim[d] < 0 means oi[d] = base[d]. */
static bool affine_copy(ref_ctx *c, const ir_op *op, const plumb_tensor *in, plumb_tensor *out,
                        const int64_t *base, const int64_t *step, const int32_t *src_dim)
{
    uint64_t n = plumb_tensor_numel(out);
    if (n == 0)
        return true;
    size_t es = esize(out);
    int64_t ri[PLUMB_MAX_RANK] = {0}, oi[PLUMB_MAX_RANK];
    for (uint64_t lin = 0; lin < n; lin++) {
        for (uint32_t d = 0; d < in->rank; d++) {
            oi[d] = base[d] + (src_dim[d] >= 0 ? step[d] * ri[src_dim[d]] : 0);
            if (oi[d] < 0 || oi[d] >= in->dims[d])
                return ref_fail(c, op, PLUMB_ERR_INVALID,
                                "result element %llu maps outside the operand (dimension %u)",
                                (unsigned long long)lin, d);
        }
        copy_elem(out->data, lin, in->data, ref_ravel(in->rank, in->dims, oi), es);
        if (!poll_at(c, op, lin))
            return false;
        next_index(out->rank, out->dims, ri);
    }
    return true;
}

/* ---- constant ------------------------------------------------------------- */

/* constant: the result is the attribute's value, bit for bit.
 * Types: any. Edge cases: empty tensors copy nothing. */
bool ref_op_CONSTANT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    const plumb_tensor *v = op->a.value;
    if (!v || v->dtype != out[0]->dtype || v->nbytes != out[0]->nbytes)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "the value attribute does not match the result type");
    if (v->nbytes)
        memcpy(out[0]->data, v->data, v->nbytes);
    return true;
}

/* ---- iota ------------------------------------------------------------------ */

/* iota: result[i] = i[iota_dimension], converted to the element type.
 * Types: integers store the index modulo 2^bits (a ui8 iota longer than 256
 * wraps, as a convert of the index would); floats round the index to
 * nearest even once (f16/bf16 directly from the exact double, so an index
 * beyond 2048 in f16 rounds, and beyond 65504 becomes +inf).
 * Edge cases: empty result; a rank-0 result is rejected by the verifier. */
bool ref_op_IOTA(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)in;
    plumb_tensor *r = out[0];
    int64_t dim = op->a.dimension;
    if (dim < 0 || (uint64_t)dim >= r->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "iota_dimension %lld is not a dimension of the result",
                        (long long)dim);
    uint64_t n = plumb_tensor_numel(r);
    int64_t idx[PLUMB_MAX_RANK] = {0};
    for (uint64_t lin = 0; lin < n; lin++) {
        uint64_t v = (uint64_t)idx[dim];
        uint64_t bits;
        switch (r->dtype) {
        case PLUMB_F16: bits = plumb_f64_to_f16((double)v); break;
        case PLUMB_BF16: bits = plumb_f64_to_bf16((double)v); break;
        case PLUMB_F32: bits = plumb_f32_bits((float)(double)v); break;
        case PLUMB_F64: bits = plumb_f64_bits((double)v); break;
        case PLUMB_I1: bits = v & 1; break;
        default:
            /* The small float formats round the exact index once, to
             * nearest even, with the format's overflow rule (convert's
             * codec); i2/i4/ui2/ui4 and the wide integers keep the low bits
             * (store truncates to the width). */
            bits = plumb_fpfmt_get(r->dtype) ? plumb_f64_to_small(plumb_fpfmt_get(r->dtype), (double)v) : v;
            break;
        }
        plumb_store_bits(r->dtype, r->data, lin, bits);
        if (!poll_at(c, op, lin))
            return false;
        next_index(r->rank, r->dims, idx);
    }
    return true;
}

/* ---- broadcast_in_dim ------------------------------------------------------- */

/* broadcast_in_dim: result[ri] = operand[oi] with oi[d] = 0 when operand
 * dimension d has size 1 and ri[broadcast_dimensions[d]] otherwise.
 * Types: any, unchanged. Edge cases: a scalar operand (dims = []) fills the
 * result; a zero-size result writes nothing. */
bool ref_op_BROADCAST_IN_DIM(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    if (op->a.dims.n != x->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "broadcast_dimensions has %u entries for an operand of rank %u",
                        op->a.dims.n, x->rank);
    int64_t base[PLUMB_MAX_RANK] = {0}, step[PLUMB_MAX_RANK];
    int32_t src[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t bd = op->a.dims.v[d];
        if (bd < 0 || (uint64_t)bd >= out[0]->rank)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "broadcast dimension %lld is out of range", (long long)bd);
        step[d] = 1;
        src[d] = x->dims[d] == 1 ? -1 : (int32_t)bd;
    }
    return affine_copy(c, op, x, out[0], base, step, src);
}

/* ---- reshape ---------------------------------------------------------------- */

/* reshape: same elements in the same row-major order, new shape.
 * Types: any, unchanged. Edge cases: empty tensors. */
bool ref_op_RESHAPE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (in[0]->nbytes != out[0]->nbytes || in[0]->dtype != out[0]->dtype)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "operand and result hold different numbers of elements");
    if (in[0]->nbytes)
        memcpy(out[0]->data, in[0]->data, in[0]->nbytes);
    return true;
}

/* ---- transpose -------------------------------------------------------------- */

/* transpose: result dimension i is operand dimension permutation[i], so
 * result[ri] = operand[oi] with oi[permutation[i]] = ri[i].
 * Types: any, unchanged. Edge cases: empty tensors; rank 0 (identity). */
bool ref_op_TRANSPOSE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    if (op->a.dims.n != x->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "permutation has %u entries for an operand of rank %u",
                        op->a.dims.n, x->rank);
    int64_t base[PLUMB_MAX_RANK] = {0}, step[PLUMB_MAX_RANK];
    int32_t src[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++)
        src[d] = -2;
    for (uint32_t i = 0; i < x->rank; i++) {
        int64_t p = op->a.dims.v[i];
        if (p < 0 || (uint64_t)p >= x->rank || src[p] != -2)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "permutation is not a permutation of the dimensions");
        src[p] = (int32_t)i;
        step[p] = 1;
    }
    return affine_copy(c, op, x, out[0], base, step, src);
}

/* ---- slice ------------------------------------------------------------------ */

/* slice: result[ri] = operand[start + ri * strides].
 * Types: any, unchanged. Edge cases: empty slices (start == limit) and
 * strides larger than the extent. */
bool ref_op_SLICE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    if (op->a.start.n != x->rank || op->a.strides.n != x->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "start_indices and strides need one entry per dimension");
    int64_t step[PLUMB_MAX_RANK];
    int32_t src[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) {
        step[d] = op->a.strides.v[d];
        src[d] = (int32_t)d;
    }
    return affine_copy(c, op, x, out[0], op->a.start.v, step, src);
}

/* ---- dynamic_slice / dynamic_update_slice ------------------------------------- */

/* Reads a 0-d integer start index, clamped to [0, hi] as StableHLO
 * specifies (an unsigned index beyond INT64_MAX clamps to hi). */
static int64_t clamp_start(const plumb_tensor *t, int64_t hi)
{
    int64_t v;
    if (plumb_dtype_is_unsigned(t->dtype)) {
        uint64_t u = plumb_load_u64(t->dtype, t->data, 0);
        v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    } else {
        v = plumb_load_i64(t->dtype, t->data, 0);
    }
    if (hi < 0)
        hi = 0;
    return v < 0 ? 0 : v > hi ? hi : v;
}

static bool check_starts(ref_ctx *c, const ir_op *op, plumb_tensor *const *starts, uint32_t n,
                         uint32_t rank, uint32_t first)
{
    if (n != rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%u start indices for an operand of rank %u", n, rank);
    for (uint32_t i = 0; i < n; i++)
        if (starts[i]->rank != 0 || !(plumb_dtype_is_int(starts[i]->dtype)) || !starts[i]->data)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u (a start index) must be a 0-d integer tensor",
                            first + i);
    return true;
}

/* dynamic_slice: start[d] = clamp(start_indices[d], 0, dim(operand, d) -
 * slice_sizes[d]); result[ri] = operand[start + ri].
 * Types: any operand; start indices any integer type, each a 0-d tensor.
 * Edge cases: out-of-range starts clamp (never an error); zero sizes. */
bool ref_op_DYNAMIC_SLICE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    plumb_tensor *r = out[0];
    if (op->n_operands < 1 || !check_starts(c, op, in + 1, op->n_operands - 1, x->rank, 1))
        return false;
    if (r->rank != x->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "result rank differs from the operand's");
    int64_t base[PLUMB_MAX_RANK], step[PLUMB_MAX_RANK];
    int32_t src[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) {
        base[d] = clamp_start(in[1 + d], x->dims[d] - r->dims[d]);
        step[d] = 1;
        src[d] = (int32_t)d;
    }
    return affine_copy(c, op, x, r, base, step, src);
}

/* dynamic_update_slice: result = operand, except the window starting at
 * start[d] = clamp(start_indices[d], 0, dim(operand, d) - dim(update, d))
 * which holds update.
 * Types: operand and update share the element type; start indices any
 * integer type, 0-d. Edge cases: clamping; an empty update changes nothing. */
bool ref_op_DYNAMIC_UPDATE_SLICE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *u = in[1];
    plumb_tensor *r = out[0];
    if (op->n_operands < 2 || !check_starts(c, op, in + 2, op->n_operands - 2, x->rank, 2))
        return false;
    if (u->rank != x->rank || u->dtype != x->dtype || r->nbytes != x->nbytes)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "operand, update and result types disagree");
    if (x->nbytes)
        memcpy(r->data, x->data, x->nbytes);
    int64_t start[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) {
        if (u->dims[d] > x->dims[d])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "update is larger than the operand in dimension %u", d);
        start[d] = clamp_start(in[2 + d], x->dims[d] - u->dims[d]);
    }
    uint64_t n = plumb_tensor_numel(u);
    size_t es = esize(x);
    int64_t ui[PLUMB_MAX_RANK] = {0}, oi[PLUMB_MAX_RANK];
    for (uint64_t lin = 0; lin < n; lin++) {
        for (uint32_t d = 0; d < x->rank; d++)
            oi[d] = start[d] + ui[d];
        copy_elem(r->data, ref_ravel(r->rank, r->dims, oi), u->data, lin, es);
        if (!poll_at(c, op, lin))
            return false;
        next_index(u->rank, u->dims, ui);
    }
    return true;
}

/* ---- concatenate -------------------------------------------------------------- */

/* concatenate: the inputs laid end to end along `dimension`, in operand
 * order. Types: any, all inputs alike. Edge cases: inputs with zero extent
 * along the dimension contribute nothing. Implemented as one copy of each
 * input's contiguous row run per outer index. */
bool ref_op_CONCATENATE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_tensor *r = out[0];
    int64_t dim = op->a.dimension;
    if (dim < 0 || (uint64_t)dim >= r->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "dimension %lld is not a dimension of the result", (long long)dim);
    size_t es = esize(r);
    uint64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; d++)
        outer *= (uint64_t)r->dims[d];
    for (uint32_t d = (uint32_t)dim + 1; d < r->rank; d++)
        inner *= (uint64_t)r->dims[d];
    int64_t total = 0;
    for (uint32_t k = 0; k < op->n_operands; k++) {
        bool same = in[k]->rank == r->rank && in[k]->dtype == r->dtype;
        for (uint32_t d = 0; same && d < r->rank; d++)
            same = (int64_t)d == dim || in[k]->dims[d] == r->dims[d];
        if (!same)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u's type does not match the result", k);
        total += in[k]->dims[dim];
    }
    if (total != r->dims[dim])
        return ref_fail(c, op, PLUMB_ERR_INVALID, "operands' extents do not add up to the result's");
    if (plumb_tensor_numel(r) == 0)
        return true;
    size_t row_out = (size_t)((uint64_t)r->dims[dim] * inner * es);
    size_t off = 0;
    for (uint32_t k = 0; k < op->n_operands; k++) {
        size_t row = (size_t)((uint64_t)in[k]->dims[dim] * inner * es);
        if (row)
            for (uint64_t o = 0; o < outer; o++)
                memcpy((unsigned char *)r->data + o * row_out + off,
                       (const unsigned char *)in[k]->data + o * row, row);
        off += row;
        if (!ref_poll(c, op))
            return false;
    }
    return true;
}

/* ---- pad ----------------------------------------------------------------------- */

/* pad: the result starts as padding_value everywhere; operand element oi
 * lands at ri[d] = low[d] + oi[d] * (interior[d] + 1), and is dropped when
 * that falls outside the result (negative low/high crop).
 * Types: any; padding_value is a 0-d tensor of the same type.
 * Edge cases: negative padding, interior padding, an empty operand (the
 * result is all padding), an empty result. */
bool ref_op_PAD(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *pv = in[1];
    plumb_tensor *r = out[0];
    if (op->a.low.n != x->rank || op->a.high.n != x->rank || op->a.interior.n != x->rank ||
        r->rank != x->rank || pv->rank != 0 || pv->dtype != x->dtype)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "padding attributes or padding value do not match the operand");
    size_t es = esize(r);
    uint64_t n = plumb_tensor_numel(r);
    for (uint64_t i = 0; i < n; i++)
        copy_elem(r->data, i, pv->data, 0, es);
    uint64_t m = plumb_tensor_numel(x);
    int64_t oi[PLUMB_MAX_RANK] = {0}, ri[PLUMB_MAX_RANK];
    for (uint64_t lin = 0; lin < m; lin++) {
        bool inside = true;
        for (uint32_t d = 0; d < x->rank; d++) {
            ri[d] = op->a.low.v[d] + oi[d] * (op->a.interior.v[d] + 1);
            inside &= ri[d] >= 0 && ri[d] < r->dims[d];
        }
        if (inside)
            copy_elem(r->data, ref_ravel(r->rank, r->dims, ri), x->data, lin, es);
        if (!poll_at(c, op, lin))
            return false;
        next_index(x->rank, x->dims, oi);
    }
    return true;
}

/* ---- reverse ------------------------------------------------------------------- */

/* reverse: result[ri] = operand[oi] with oi[d] = dim(d) - 1 - ri[d] for d
 * in `dimensions`, oi[d] = ri[d] otherwise.
 * Types: any, unchanged. Edge cases: empty tensors; a dimension listed is
 * reversed once (the verifier rejects duplicates). */
bool ref_op_REVERSE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    int64_t base[PLUMB_MAX_RANK] = {0}, step[PLUMB_MAX_RANK];
    int32_t src[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) {
        step[d] = 1;
        src[d] = (int32_t)d;
    }
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= x->rank)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "dimension %lld is out of range", (long long)d);
        base[d] = x->dims[d] - 1;
        step[d] = -1;
    }
    return affine_copy(c, op, x, out[0], base, step, src);
}

/* ---- bitcast_convert ------------------------------------------------------------- */

/* bitcast_convert: reinterprets bit patterns.
 * Equal widths: each element's bits unchanged. A narrower result type adds
 * a trailing dimension of size w_in / w_out: result[..., k] holds bits
 * [k*w_out, (k+1)*w_out) of the operand element (least significant part
 * first, the little-endian order of the spec's interpreter). A wider result
 * consumes the operand's trailing dimension the same way.
 * Types: any; i1 counts as 1 bit (its byte holds 0 or 1).
 * Edge cases: NaN payloads survive; empty tensors. */
bool ref_op_BITCAST_CONVERT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    plumb_tensor *r = out[0];
    /* a complex side is its components, real then imaginary: 2n elements
     * of the component type (docs/spec/complex.md) */
    plumb_dtype ti = plumb_dtype_is_complex(x->dtype) ? plumb_dtype_component(x->dtype) : x->dtype;
    plumb_dtype to = plumb_dtype_is_complex(r->dtype) ? plumb_dtype_component(r->dtype) : r->dtype;
    uint32_t wi = plumb_dtype_get(ti)->bits, wo = plumb_dtype_get(to)->bits;
    uint64_t ni = plumb_tensor_numel(x) * (ti != x->dtype ? 2 : 1), no = plumb_tensor_numel(r) * (to != r->dtype ? 2 : 1);
    uint64_t ratio = wi >= wo ? wi / wo : wo / wi;
    if ((wi >= wo ? ni * ratio : no * ratio) != (wi >= wo ? no : ni))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "operand and result shapes do not fit the element widths");
    uint64_t mask_o = wo == 64 ? ~0ull : (1ull << wo) - 1;
    uint64_t mask_i = wi == 64 ? ~0ull : (1ull << wi) - 1;
    if (wi >= wo) {
        for (uint64_t i = 0; i < ni; i++) {
            uint64_t b = plumb_load_bits(ti, x->data, i) & mask_i;
            for (uint64_t k = 0; k < ratio; k++)
                plumb_store_bits(to, r->data, i * ratio + k,
                                 (wo == 64 ? b : b >> (k * wo)) & mask_o);
            if (!poll_at(c, op, i))
                return false;
        }
    } else {
        for (uint64_t i = 0; i < no; i++) {
            uint64_t b = 0;
            for (uint64_t k = 0; k < ratio; k++)
                b |= (plumb_load_bits(ti, x->data, i * ratio + k) & mask_i) << (k * wi);
            plumb_store_bits(to, r->data, i, b & mask_o);
            if (!poll_at(c, op, i))
                return false;
        }
    }
    return true;
}
