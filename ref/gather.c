/* stablehlo.gather and stablehlo.scatter
 *
 * gather (StableHLO spec): each result index splits into batch dimensions
 * (those not in offset_dims) and offset dimensions. The batch index selects
 * a start-index vector from start_indices (along index_vector_dim; when
 * index_vector_dim == rank(start_indices) the vector is the single element
 * there). start_index_map scatters it onto operand dimensions, where each
 * start is clamped to [0, dim - slice_size] — so no gather reads out of
 * bounds. operand_batching_dims take the batch coordinate of the paired
 * start_indices_batching_dims. The offset index fills the operand dimensions
 * not in collapsed_slice_dims or operand_batching_dims.
 *
 * scatter (StableHLO spec): results start as copies of inputs; for every
 * update index in row-major order of updates[0] (the order plumb defines:
 * with non-unique indices the update region sees earlier updates first), the
 * target index is computed like gather's operand index (no clamping) and
 * results[:][target] = update(results[:][target], updates[:][index]).
 * An update window that does not lie entirely inside the results (its start
 * below 0 or start + window size above the dimension) is skipped as a whole;
 * the spec leaves out-of-bounds updates implementation-defined.
 * indices_are_sorted and unique_indices are hints and never change results.
 * Index values are read as signed (unsigned beyond 2^63-1 saturate), any
 * integer type. Empty operands, indices or updates are fine.
 */
#include <string.h>

#include "ref_internal.h"

static bool in_list(const ir_ints *v, int64_t d)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i] == d)
            return true;
    return false;
}

static bool list_in_range(const ir_ints *v, int64_t rank)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i] < 0 || v->v[i] >= rank)
            return false;
    return true;
}

static int64_t load_index(const plumb_tensor *t, size_t i)
{
    if (plumb_dtype_is_unsigned(t->dtype)) {
        uint64_t u = plumb_load_u64(t->dtype, t->data, i);
        return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    return plumb_load_i64(t->dtype, t->data, i);
}

/* Reads the start-index vector for batch coordinates bidx (rank(indices)-1
 * coordinates, or rank(indices) when ivd == rank). */
static void read_start(const plumb_tensor *idx, int64_t ivd, const int64_t *bidx, uint32_t nvec, int64_t *start)
{
    int64_t full[PLUMB_MAX_RANK];
    uint32_t j = 0;
    for (uint32_t d = 0; d < idx->rank; d++)
        full[d] = (int64_t)d == ivd ? 0 : bidx[j++];
    for (uint32_t k = 0; k < nvec; k++) {
        if (ivd < (int64_t)idx->rank)
            full[ivd] = k;
        start[k] = load_index(idx, (size_t)ref_ravel(idx->rank, idx->dims, full));
    }
}

/* Checks the index tensor against index_vector_dim and the map length; sets
 * nvec (the index vector length) and the batch dims of the indices. */
static bool index_shape(ref_ctx *c, const ir_op *op, const plumb_tensor *idx, int64_t ivd, uint32_t map_len,
                        uint32_t *nvec, int64_t *bdims, uint32_t *nb)
{
    const char *name = plumb_op_name(op->code);
    if (ivd < 0 || ivd > (int64_t)idx->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: index_vector_dim %lld is outside 0..%u", name, (long long)ivd, idx->rank);
    *nvec = ivd == (int64_t)idx->rank ? 1 : (uint32_t)idx->dims[ivd];
    if (*nvec != map_len)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s: index vectors have %u elements but the index map lists %u dimensions",
                        name, *nvec, map_len);
    *nb = 0;
    for (uint32_t d = 0; d < idx->rank; d++)
        if ((int64_t)d != ivd)
            bdims[(*nb)++] = idx->dims[d];
    return true;
}

bool ref_op_GATHER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    const plumb_tensor *opnd = in[0], *idx = in[1];
    plumb_tensor *res = out[0];
    int64_t orank = opnd->rank, rrank = res->rank;
    if (a->sizes.n != (uint32_t)orank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: slice_sizes has %u entries for an operand of rank %lld",
                        a->sizes.n, (long long)orank);
    if (!list_in_range(&a->offset_dims, rrank) || !list_in_range(&a->collapsed_slice_dims, orank) ||
        !list_in_range(&a->operand_batching_dims, orank) || !list_in_range(&a->start_index_map, orank) ||
        !list_in_range(&a->start_indices_batching_dims, idx->rank) ||
        a->operand_batching_dims.n != a->start_indices_batching_dims.n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: a dimension number is out of range");
    for (uint32_t d = 0; d < (uint32_t)orank; d++)
        if (a->sizes.v[d] < 0 || a->sizes.v[d] > opnd->dims[d])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: slice size %lld of dimension %u exceeds the operand's %lld",
                            (long long)a->sizes.v[d], d, (long long)opnd->dims[d]);
    uint32_t nvec, nb;
    int64_t ibdims[PLUMB_MAX_RANK];
    if (!index_shape(c, op, idx, a->index_vector_dim, a->start_index_map.n, &nvec, ibdims, &nb))
        return false;
    /* operand dims that the offset index fills, in order */
    int64_t window_dims[PLUMB_MAX_RANK];
    uint32_t nw = 0;
    for (int64_t d = 0; d < orank; d++)
        if (!in_list(&a->collapsed_slice_dims, d) && !in_list(&a->operand_batching_dims, d))
            window_dims[nw++] = d;
    if (nw != a->offset_dims.n || nb + nw != (uint32_t)rrank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: result rank %lld does not equal %u batch plus %u offset dimensions",
                        (long long)rrank, nb, nw);
    /* check the result's shape so every coordinate below is in range */
    uint32_t bi = 0, oi = 0;
    for (int64_t d = 0; d < rrank; d++) {
        int64_t want = in_list(&a->offset_dims, d) ? a->sizes.v[window_dims[oi++]] : ibdims[bi++];
        if (res->dims[d] != want)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: result dimension %lld is %lld, expected %lld",
                            (long long)d, (long long)res->dims[d], (long long)want);
    }
    for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
        int64_t sd = a->start_indices_batching_dims.v[i];
        if (sd == a->index_vector_dim || opnd->dims[a->operand_batching_dims.v[i]] != idx->dims[sd])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: batching dimension pair %u differs in size", i);
    }
    size_t esz = plumb_dtype_size(opnd->dtype);
    uint64_t n = plumb_tensor_numel(res);
    int64_t ridx[PLUMB_MAX_RANK], bidx[PLUMB_MAX_RANK], start[PLUMB_MAX_RANK], oidx[PLUMB_MAX_RANK];
    for (uint64_t r = 0; r < n; r++) {
        ref_unravel(r, (uint32_t)rrank, res->dims, ridx);
        uint32_t nbi = 0, noi = 0;
        int64_t offs[PLUMB_MAX_RANK];
        for (int64_t d = 0; d < rrank; d++) {
            if (in_list(&a->offset_dims, d)) offs[noi++] = ridx[d];
            else bidx[nbi++] = ridx[d];
        }
        read_start(idx, a->index_vector_dim, bidx, nvec, start);
        memset(oidx, 0, sizeof oidx);
        for (uint32_t k = 0; k < nvec; k++) {
            int64_t d = a->start_index_map.v[k];
            int64_t hi = opnd->dims[d] - a->sizes.v[d];
            int64_t s = start[k] < 0 ? 0 : start[k] > hi ? hi : start[k];
            oidx[d] += s;
        }
        for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
            int64_t sd = a->start_indices_batching_dims.v[i];
            oidx[a->operand_batching_dims.v[i]] += bidx[sd < a->index_vector_dim ? sd : sd - 1];
        }
        for (uint32_t w = 0; w < nw; w++)
            oidx[window_dims[w]] += offs[w];
        for (int64_t d = 0; d < orank; d++)
            if (oidx[d] < 0 || oidx[d] >= opnd->dims[d])
                return ref_fail(c, op, PLUMB_ERR_INVALID, "gather: result element %llu maps outside the operand",
                                (unsigned long long)r);
        uint64_t src = ref_ravel((uint32_t)orank, opnd->dims, oidx);
        memcpy((char *)res->data + r * esz, (const char *)opnd->data + src * esz, esz);
        if ((r & 4095) == 4095 && !ref_poll(c, op))
            return false;
    }
    return true;
}

static void scalar_view(plumb_tensor *t, plumb_dtype dt, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = buf;
    t->nbytes = plumb_dtype_size(dt);
}

bool ref_op_SCATTER(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    uint32_t n = (op->n_operands - 1) / 2;
    if (n == 0 || op->n_operands != 2 * n + 1 || op->n_results != n || op->n_regions != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter needs N inputs, indices, N updates, N results and one update region");
    if (n > 32)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "scatter with %u inputs (at most 32)", n);
    const plumb_tensor *idx = in[n];
    const plumb_tensor *u0 = in[n + 1];
    int64_t irank = in[0]->rank, urank = u0->rank;
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != irank || memcmp(in[k]->dims, in[0]->dims, (size_t)irank * sizeof(int64_t)) ||
            in[n + 1 + k]->rank != urank || memcmp(in[n + 1 + k]->dims, u0->dims, (size_t)urank * sizeof(int64_t)) ||
            out[k]->nbytes != in[k]->nbytes || out[k]->dtype != in[k]->dtype)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: input %u or update %u differs in shape from the first", k, k);
        if (in[n + 1 + k]->dtype != in[k]->dtype)
            return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "scatter: update %u's element type differs from input %u's", k, k);
    }
    if (!list_in_range(&a->update_window_dims, urank) || !list_in_range(&a->inserted_window_dims, irank) ||
        !list_in_range(&a->input_batching_dims, irank) || !list_in_range(&a->scatter_dims_to_operand_dims, irank) ||
        !list_in_range(&a->scatter_indices_batching_dims, idx->rank) ||
        a->input_batching_dims.n != a->scatter_indices_batching_dims.n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: a dimension number is out of range");
    uint32_t nvec, nb;
    int64_t ibdims[PLUMB_MAX_RANK];
    if (!index_shape(c, op, idx, a->index_vector_dim, a->scatter_dims_to_operand_dims.n, &nvec, ibdims, &nb))
        return false;
    int64_t window_dims[PLUMB_MAX_RANK];
    uint32_t nw = 0;
    for (int64_t d = 0; d < irank; d++)
        if (!in_list(&a->inserted_window_dims, d) && !in_list(&a->input_batching_dims, d))
            window_dims[nw++] = d;
    if (nw != a->update_window_dims.n || nb + nw != (uint32_t)urank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: updates rank %lld does not equal %u scatter plus %u window dimensions",
                        (long long)urank, nb, nw);
    /* window extents per input dim (1 for inserted and batching dims) */
    int64_t wext[PLUMB_MAX_RANK];
    for (int64_t d = 0; d < irank; d++) wext[d] = 1;
    uint32_t bi = 0, wi = 0;
    for (int64_t d = 0; d < urank; d++) {
        if (in_list(&a->update_window_dims, d)) {
            int64_t id = window_dims[wi++];
            if (u0->dims[d] > in[0]->dims[id])
                return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: update window dimension %lld is larger than input dimension %lld",
                                (long long)d, (long long)id);
            wext[id] = u0->dims[d];
        } else if (u0->dims[d] != ibdims[bi++]) {
            return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: updates dimension %lld does not match the scatter indices",
                            (long long)d);
        }
    }
    for (uint32_t i = 0; i < a->input_batching_dims.n; i++) {
        int64_t sd = a->scatter_indices_batching_dims.v[i];
        if (sd == a->index_vector_dim || in[0]->dims[a->input_batching_dims.v[i]] != idx->dims[sd])
            return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: batching dimension pair %u differs in size", i);
    }
    const ir_block *body = &op->regions[0];
    if (body->n_args != 2 * n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "scatter: update region takes %u arguments, expected %u", body->n_args, 2 * n);
    for (uint32_t k = 0; k < 2 * n; k++)
        if (body->args[k]->type.dtype != in[k % n]->dtype)
            return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "scatter: update region argument %u has element type %s, expected %s",
                            k, plumb_dtype_name(body->args[k]->type.dtype), plumb_dtype_name(in[k % n]->dtype));
    for (uint32_t k = 0; k < n; k++)
        if (out[k]->nbytes)
            memcpy(out[k]->data, in[k]->data, out[k]->nbytes);

    /* [2]: a complex<f64> element is 16 bytes; elements are copied whole */
    uint64_t cur[32][2], upd[32][2], rb[32][2];
    plumb_tensor targ[64], tres[32];
    plumb_tensor *args[64], *res[32];
    for (uint32_t k = 0; k < n; k++) {
        scalar_view(&targ[k], in[k]->dtype, cur[k]);
        scalar_view(&targ[n + k], in[k]->dtype, upd[k]);
        scalar_view(&tres[k], in[k]->dtype, rb[k]);
        args[k] = &targ[k];
        args[n + k] = &targ[n + k];
        res[k] = &tres[k];
    }
    uint64_t count = plumb_tensor_numel(u0);
    int64_t uidx[PLUMB_MAX_RANK], sidx[PLUMB_MAX_RANK], start[PLUMB_MAX_RANK], tidx[PLUMB_MAX_RANK], fstart[PLUMB_MAX_RANK];
    for (uint64_t u = 0; u < count; u++) {
        ref_unravel(u, (uint32_t)urank, u0->dims, uidx);
        uint32_t ns = 0, nwi = 0;
        int64_t widx[PLUMB_MAX_RANK];
        for (int64_t d = 0; d < urank; d++) {
            if (in_list(&a->update_window_dims, d)) widx[nwi++] = uidx[d];
            else sidx[ns++] = uidx[d];
        }
        read_start(idx, a->index_vector_dim, sidx, nvec, start);
        for (int64_t d = 0; d < irank; d++) fstart[d] = 0;
        for (uint32_t k = 0; k < nvec; k++) {
            /* saturating add: repeated dims in the map may sum */
            int64_t d = a->scatter_dims_to_operand_dims.v[k], v = start[k];
            if ((v > 0 && fstart[d] > INT64_MAX - v) || (v < 0 && fstart[d] < INT64_MIN - v))
                fstart[d] = v > 0 ? INT64_MAX : INT64_MIN;
            else
                fstart[d] += v;
        }
        for (uint32_t i = 0; i < a->input_batching_dims.n; i++) {
            int64_t sd = a->scatter_indices_batching_dims.v[i];
            int64_t d = a->input_batching_dims.v[i], v = sidx[sd < a->index_vector_dim ? sd : sd - 1];
            fstart[d] = fstart[d] > INT64_MAX - v ? INT64_MAX : fstart[d] + v;
        }
        bool inside = true;
        for (int64_t d = 0; d < irank && inside; d++)
            if (fstart[d] < 0 || fstart[d] > in[0]->dims[d] - wext[d])
                inside = false;
        if (!inside)
            continue;
        for (int64_t d = 0; d < irank; d++) tidx[d] = fstart[d];
        for (uint32_t w = 0; w < nw; w++) tidx[window_dims[w]] += widx[w];
        uint64_t t = ref_ravel((uint32_t)irank, in[0]->dims, tidx);
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            memcpy(cur[k], (const char *)out[k]->data + (size_t)t * sz, sz);
            memcpy(upd[k], (const char *)in[n + 1 + k]->data + (size_t)u * sz, sz);
        }
        if (!ref_eval_region(c, body, args, res))
            return false;
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            memcpy((char *)out[k]->data + (size_t)t * sz, rb[k], sz);
        }
        if ((u & 4095) == 4095 && !ref_poll(c, op))
            return false;
    }
    return true;
}
