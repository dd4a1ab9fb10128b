/* stablehlo.sort and chlo.top_k
 *
 * sort (StableHLO spec): N operands of one shape are sorted together along
 * `dimension` (negative values count from the end); the comparator region
 * takes 2N scalars (lhs0, rhs0, lhs1, rhs1, ...) and returns i1 "lhs goes
 * first". plumb always sorts with a stable merge sort, so is_stable = false
 * gives the same (stable) result: equal elements keep their input order. A
 * comparator that is not a strict weak order (e.g. one that mishandles NaN)
 * gives some permutation of each slice — never a crash or an out-of-bounds
 * read — using O(n log n) comparator calls per slice. Empty slices are fine.
 *
 * top_k (chlo): along the last dimension, the k largest values in descending
 * order and their i32 indices; equal values keep increasing index order.
 * Floats use the IEEE 754 totalOrder: -NaN < -inf < ... < -0 < +0 < ... <
 * +inf < +NaN (so a positive NaN is the largest value and -0 ranks below +0);
 * integers compare signed or unsigned by type. k must be in 0..size of the
 * last dimension.
 */
#include <string.h>

#include "ref_internal.h"

static void scalar_view(plumb_tensor *t, plumb_dtype dt, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = buf;
    t->nbytes = plumb_dtype_size(dt);
}

/* What the merge sort needs to compare two positions of the current slice. */
typedef struct sort_env {
    ref_ctx *c;
    const ir_op *op;
    plumb_tensor *const *in;
    uint32_t n;
    int64_t base, stride;        /* element offset of slice position p: base + p*stride */
    uint64_t (*buf)[2];          /* 2n slots: lhs0, rhs0, lhs1, rhs1, ...; [2]: a complex<f64> is 16 bytes */
    plumb_tensor *args;          /* 2n scalar views over buf */
    plumb_tensor **argp;
    plumb_tensor *res;           /* i1 scalar */
    bool failed;
} sort_env;

/* comparator(slice[i], slice[j]): true when i goes before j. */
static bool less(sort_env *e, int64_t i, int64_t j)
{
    if (e->failed)
        return false;
    for (uint32_t k = 0; k < e->n; k++) {
        /* whole elements by their byte size (complex<f64> is 16 bytes) */
        size_t sz = plumb_dtype_size(e->in[k]->dtype);
        const char *d = e->in[k]->data;
        memcpy(e->buf[2 * k], d + (size_t)(e->base + i * e->stride) * sz, sz);
        memcpy(e->buf[2 * k + 1], d + (size_t)(e->base + j * e->stride) * sz, sz);
    }
    if (!ref_eval_region(e->c, &e->op->regions[0], e->argp, &e->res)) {
        e->failed = true;
        return false;
    }
    if (!ref_work(e->c, e->op, 1)) {
        e->failed = true;
        return false;
    }
    return plumb_load_bits(PLUMB_I1, e->res->data, 0) != 0;
}

/* Bottom-up stable merge sort of perm[0..len) with tmp as scratch: an element
 * from the right run moves ahead only if it is strictly "less". */
static void merge_sort(sort_env *e, int64_t *perm, int64_t *tmp, int64_t len,
                       bool (*lt)(void *, int64_t, int64_t), void *ud)
{
    for (int64_t w = 1; w < len; w *= 2) {
        for (int64_t lo = 0; lo < len; lo += 2 * w) {
            int64_t mid = lo + w < len ? lo + w : len;
            int64_t hi = lo + 2 * w < len ? lo + 2 * w : len;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = lt(ud, perm[j], perm[i]) ? perm[j++] : perm[i++];
            while (i < mid) tmp[o++] = perm[i++];
            while (j < hi) tmp[o++] = perm[j++];
        }
        memcpy(perm, tmp, (size_t)len * sizeof *perm);
        if (e && e->failed)
            return;
        if (w > INT64_MAX / 2)
            break;
    }
}

static bool env_less(void *ud, int64_t i, int64_t j) { return less(ud, i, j); }

bool ref_op_SORT(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands;
    if (n == 0 || op->n_results != n || op->n_regions != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "sort needs N operands, N results and a comparator");
    if (n > 32)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "sort with %u operands (at most 32)", n);
    const plumb_tensor *x0 = in[0];
    int64_t rank = x0->rank, dim = op->a.dimension;
    if (dim < 0) dim += rank;
    if (rank == 0 || dim < 0 || dim >= rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "sort dimension %lld is out of range for rank %lld",
                        (long long)op->a.dimension, (long long)rank);
    const ir_block *body = &op->regions[0];
    if (body->n_args != 2 * n)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "sort comparator takes %u arguments, expected %u", body->n_args, 2 * n);
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != x0->rank || memcmp(in[k]->dims, x0->dims, (size_t)rank * sizeof(int64_t)) ||
            out[k]->dtype != in[k]->dtype || out[k]->nbytes != in[k]->nbytes)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "sort operand %u differs in shape from operand 0", k);
        if (body->args[2 * k]->type.dtype != in[k]->dtype || body->args[2 * k + 1]->type.dtype != in[k]->dtype)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "sort comparator arguments %u and %u must have operand %u's element type",
                            2 * k, 2 * k + 1, k);
    }
    int64_t len = x0->dims[dim], stride = 1;
    for (int64_t d = dim + 1; d < rank; d++) stride *= x0->dims[d];
    uint64_t total = plumb_tensor_numel(x0);
    if (total == 0 || len == 0)
        return true;
    uint64_t slices = total / (uint64_t)len;
    uint64_t bytes;
    if (plumb_mul_overflow_u64((uint64_t)len, 2 * sizeof(int64_t), &bytes) || bytes > ref_max_bytes(c))
        return ref_fail(c, op, PLUMB_ERR_LIMIT, "sort: scratch for a slice of %lld elements exceeds the memory limit", (long long)len);
    int64_t *perm = plumb_malloc((size_t)bytes);
    if (!perm)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "sort: out of memory for a slice of %lld elements", (long long)len);
    int64_t *tmp = perm + len;
    uint64_t buf[64][2];
    plumb_tensor args[64], resv;
    plumb_tensor *argp[64];
    uint64_t rbuf = 0;
    for (uint32_t k = 0; k < 2 * n; k++) {
        scalar_view(&args[k], in[k / 2]->dtype, buf[k]);
        argp[k] = &args[k];
    }
    scalar_view(&resv, PLUMB_I1, &rbuf);
    sort_env e = {c, op, in, n, 0, stride, buf, args, argp, &resv, false};
    bool ok = true;
    for (uint64_t s = 0; s < slices && ok; s++) {
        /* slice s: outer index s / stride, inner s % stride */
        int64_t outer = (int64_t)(s / (uint64_t)stride), inner = (int64_t)(s % (uint64_t)stride);
        e.base = outer * len * stride + inner;
        for (int64_t p = 0; p < len; p++) perm[p] = p;
        merge_sort(&e, perm, tmp, len, env_less, &e);
        if (e.failed) {
            ok = false;
            break;
        }
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            for (int64_t p = 0; p < len; p++)
                memcpy((char *)out[k]->data + (size_t)(e.base + p * stride) * sz,
                       (const char *)in[k]->data + (size_t)(e.base + perm[p] * stride) * sz, sz);
        }
    }
    plumb_free(perm, (size_t)bytes);
    return ok;
}

/* top_k keys: an unsigned integer whose order is the value order (i1:
 * true > false, as chlo.top_k orders booleans). */
typedef struct topk_env {
    const plumb_tensor *x;
    int64_t base;
} topk_env;

static uint64_t topk_key(const plumb_tensor *x, size_t i)
{
    plumb_dtype t = x->dtype;
    uint64_t b = plumb_load_bits(t, x->data, i);
    unsigned bits = plumb_dtype_get(t)->bits;
    uint64_t sign = 1ull << (bits - 1);
    uint64_t mask = bits == 64 ? ~0ull : (sign << 1) - 1;
    if (plumb_dtype_is_float(t))
        return (b & sign) ? (~b & mask) : (b | sign);   /* totalOrder */
    if (plumb_dtype_is_signed(t))
        return (b ^ sign) & mask;
    return b;
}

/* "goes first" for descending order: strictly larger key. */
static bool topk_first(void *ud, int64_t i, int64_t j)
{
    topk_env *e = ud;
    return topk_key(e->x, (size_t)(e->base + i)) > topk_key(e->x, (size_t)(e->base + j));
}

bool ref_op_TOP_K(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0];
    plumb_tensor *vals = out[0], *idx = out[1];
    if (x->rank == 0)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "top_k operand must have rank >= 1");
    int64_t len = x->dims[x->rank - 1], k = op->a.k;
    if (k < 0 || k > len)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "top_k: k = %lld is outside 0..%lld", (long long)k, (long long)len);
    if (vals->dtype != x->dtype || idx->dtype != PLUMB_I32 || vals->rank != x->rank || idx->rank != x->rank ||
        vals->dims[x->rank - 1] != k || idx->dims[x->rank - 1] != k ||
        memcmp(vals->dims, x->dims, (x->rank - 1) * sizeof(int64_t)) ||
        memcmp(idx->dims, x->dims, (x->rank - 1) * sizeof(int64_t)))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "top_k results must be the operand's shape with k as last dimension, and i32 indices");
    if (len > INT32_MAX)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "top_k: last dimension %lld does not fit i32 indices", (long long)len);
    uint64_t total = plumb_tensor_numel(x);
    if (total == 0 || len == 0)
        return true;
    uint64_t rows = total / (uint64_t)len, bytes;
    if (plumb_mul_overflow_u64((uint64_t)len, 2 * sizeof(int64_t), &bytes) || bytes > ref_max_bytes(c))
        return ref_fail(c, op, PLUMB_ERR_LIMIT, "top_k: scratch for %lld elements exceeds the memory limit", (long long)len);
    int64_t *perm = plumb_malloc((size_t)bytes);
    if (!perm)
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "top_k: out of memory");
    int64_t *tmp = perm + len;
    topk_env e = {x, 0};
    for (uint64_t r = 0; r < rows; r++) {
        e.base = (int64_t)r * len;
        for (int64_t p = 0; p < len; p++) perm[p] = p;
        merge_sort(NULL, perm, tmp, len, topk_first, &e);
        /* about len * log2(len) comparisons: more than the elements the
         * interpreter charged for the op */
        uint64_t lg = 1;
        while (lg < 64 && ((uint64_t)1 << lg) < (uint64_t)len)
            lg++;
        if (!ref_work(c, op, (uint64_t)len * lg)) {
            plumb_free(perm, (size_t)bytes);
            return false;
        }
        for (int64_t p = 0; p < k; p++) {
            plumb_store_bits(x->dtype, vals->data, (size_t)((int64_t)r * k + p),
                             plumb_load_bits(x->dtype, x->data, (size_t)(e.base + perm[p])));
            plumb_store_bits(PLUMB_I32, idx->data, (size_t)((int64_t)r * k + p), (uint64_t)perm[p]);
        }
        if ((r & 1023) == 1023 && !ref_poll(c, op)) {
            plumb_free(perm, (size_t)bytes);
            return false;
        }
    }
    plumb_free(perm, (size_t)bytes);
    return true;
}
