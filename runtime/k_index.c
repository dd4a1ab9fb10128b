/* gather, scatter, sort, top_k with plumb's semantics (docs/spec/indexing.md):
 * gather clamps starts; scatter applies updates in row-major order of the
 * updates and skips windows that leave the input; sort yields the
 * reference's permutation (its stable bottom-up merge sort, or for a
 * single-compare comparator the typed key sort of k_sort_keys.c that gives
 * the same one), so even a comparator that is not a strict weak order
 * yields the reference's permutation; top_k orders floats
 * by totalOrder with ties to the lower index.
 *
 * Row copies: a gather or scatter whose window is one contiguous run of
 * the operand (extent 1 up to some dimension, full extents after it) and
 * lands as one contiguous run of the result (offset / update window
 * dimensions trailing) moves whole rows with memcpy, or applies a
 * recognised update row by row; every other layout takes the element path.
 *
 * Parallel: gather over result elements (rows on the row path), scatter's
 * row path over columns, sort (recognised comparators) and
 * top_k over slices. Comparators of the form `compare DIR, a0, b0` are
 * evaluated natively; scatter bodies that return the update, or add, max or
 * min the two arguments in f32/f64/integers, are applied natively (max and
 * min with the reference's NaN and signed-zero rules); every other region
 * goes through rt_eval_region, in the reference's order. */
#include <string.h>

#include "plumb/dtype.h"
#include "rt_internal.h"
#include "rt_copy.h"
#include "rt_pipeline.h"
#include "rt_sort.h"

static bool in_list(const ir_ints *v, int64_t d)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i] == d) return true;
    return false;
}

static bool list_in_range(const ir_ints *v, int64_t rank)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i] < 0 || v->v[i] >= rank) return false;
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

static void unravel(uint64_t lin, uint32_t rank, const int64_t *dims, int64_t *idx)
{
    for (uint32_t i = rank; i-- > 0;) {
        int64_t d = dims[i];
        idx[i] = d ? (int64_t)(lin % (uint64_t)d) : 0;
        lin = d ? lin / (uint64_t)d : 0;
    }
}

static uint64_t ravel(uint32_t rank, const int64_t *dims, const int64_t *idx)
{
    uint64_t lin = 0;
    for (uint32_t i = 0; i < rank; i++) lin = lin * (uint64_t)dims[i] + (uint64_t)idx[i];
    return lin;
}

static void read_start(const plumb_tensor *idx, int64_t ivd, const int64_t *bidx, uint32_t nvec, int64_t *start)
{
    int64_t full[PLUMB_MAX_RANK];
    uint32_t j = 0;
    for (uint32_t d = 0; d < idx->rank; d++) full[d] = (int64_t)d == ivd ? 0 : bidx[j++];
    for (uint32_t k = 0; k < nvec; k++) {
        if (ivd < (int64_t)idx->rank) full[ivd] = k;
        start[k] = load_index(idx, (size_t)ravel(idx->rank, idx->dims, full));
    }
}

static bool index_shape(rt_exec *x, const ir_op *op, const plumb_tensor *idx, int64_t ivd, uint32_t map_len,
                        uint32_t *nvec, int64_t *bdims, uint32_t *nb)
{
    if (ivd < 0 || ivd > (int64_t)idx->rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "index_vector_dim %lld is outside 0..%u", (long long)ivd, idx->rank);
    *nvec = ivd == (int64_t)idx->rank ? 1 : (uint32_t)idx->dims[ivd];
    if (*nvec != map_len)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "index vectors have %u elements but the index map lists %u dimensions",
                       *nvec, map_len);
    *nb = 0;
    for (uint32_t d = 0; d < idx->rank; d++)
        if ((int64_t)d != ivd) bdims[(*nb)++] = idx->dims[d];
    return true;
}

/* ---- gather ------------------------------------------------------------------- */

typedef struct gather_job {
    const ir_attrs *a;
    const plumb_tensor *opnd, *idx;
    plumb_tensor *res;
    uint32_t nvec, nw;
    int64_t window_dims[PLUMB_MAX_RANK];
    bool is_offset[PLUMB_MAX_RANK];
    bool outside;    /* some element mapped outside the operand (set, never cleared) */
} gather_job;

static void gather_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    gather_job *j = ctx;
    const ir_attrs *a = j->a;
    const plumb_tensor *opnd = j->opnd;
    size_t esz = plumb_dtype_size(opnd->dtype);
    uint32_t orank = opnd->rank, rrank = j->res->rank;
    int64_t ridx[PLUMB_MAX_RANK], bidx[PLUMB_MAX_RANK], start[PLUMB_MAX_RANK], oidx[PLUMB_MAX_RANK], offs[PLUMB_MAX_RANK];
    for (uint64_t r = begin; r < end; r++) {
        unravel(r, rrank, j->res->dims, ridx);
        uint32_t nbi = 0, noi = 0;
        for (uint32_t d = 0; d < rrank; d++) {
            if (j->is_offset[d]) offs[noi++] = ridx[d];
            else bidx[nbi++] = ridx[d];
        }
        read_start(j->idx, a->index_vector_dim, bidx, j->nvec, start);
        memset(oidx, 0, sizeof oidx);
        for (uint32_t k = 0; k < j->nvec; k++) {
            int64_t d = a->start_index_map.v[k];
            int64_t hi = opnd->dims[d] - a->sizes.v[d];
            oidx[d] += start[k] < 0 ? 0 : start[k] > hi ? hi : start[k];
        }
        for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
            int64_t sd = a->start_indices_batching_dims.v[i];
            oidx[a->operand_batching_dims.v[i]] += bidx[sd < a->index_vector_dim ? sd : sd - 1];
        }
        for (uint32_t w = 0; w < j->nw; w++) oidx[j->window_dims[w]] += offs[w];
        bool inside = true;
        for (uint32_t d = 0; d < orank; d++) inside &= oidx[d] >= 0 && oidx[d] < opnd->dims[d];
        if (!inside) {
            /* never read out of bounds; the kernel fails after the loop */
            memset((char *)j->res->data + r * esz, 0, esz);
            __atomic_store_n(&j->outside, true, __ATOMIC_RELAXED);
            continue;
        }
        uint64_t src = ravel(orank, opnd->dims, oidx);
        memcpy((char *)j->res->data + r * esz, (const char *)opnd->data + src * esz, esz);
    }
}

/* Length in elements of one slice when a window of extents ext[0..rank) is
 * one contiguous run of the row-major tensor dims[0..rank): extents of 1
 * up to some dimension k, any extent at k, full extents after k. 0 when the
 * window is not contiguous. */
static uint64_t contiguous_run(uint32_t rank, const int64_t *dims, const int64_t *ext)
{
    uint32_t k = rank;
    while (k > 0 && ext[k - 1] == dims[k - 1]) k--;
    /* dimensions before k - 1 must have extent 1 */
    for (uint32_t d = 0; d + 1 < k; d++)
        if (ext[d] != 1) return 0;
    uint64_t len = 1;
    for (uint32_t d = 0; d < rank; d++) len *= (uint64_t)ext[d];
    return len;
}

/* Row copies: the slice is contiguous in the operand and the offset
 * dimensions are the result's trailing ones, so each batch position of the
 * result is one contiguous block equal to one contiguous run of the
 * operand (the window dimensions keep their order in both). The start is
 * computed exactly as gather_range does for the block's first element. */
typedef struct gather_rows_job {
    gather_job *g;
    uint32_t nb;
    int64_t bdims[PLUMB_MAX_RANK];
    uint64_t len;    /* elements per slice */
    plumb_isa isa;
    bool stream;     /* the result is large: streaming stores (rt_copy.h) */
} gather_rows_job;

/* The first operand element of result row r's window, or -1 when the
 * window leaves the operand. */
static int64_t gather_row_src(const gather_rows_job *rj, uint64_t r)
{
    const gather_job *j = rj->g;
    const ir_attrs *a = j->a;
    const plumb_tensor *opnd = j->opnd;
    int64_t bidx[PLUMB_MAX_RANK], start[PLUMB_MAX_RANK], oidx[PLUMB_MAX_RANK];
    unravel(r, rj->nb, rj->bdims, bidx);
    read_start(j->idx, a->index_vector_dim, bidx, j->nvec, start);
    /* only the operand's dims: memset of the whole array compiled to
     * rep stos, whose start-up was 15% of gather_embed's samples (perf) */
    for (uint32_t d = 0; d < opnd->rank; d++) oidx[d] = 0;
    for (uint32_t k = 0; k < j->nvec; k++) {
        int64_t d = a->start_index_map.v[k];
        int64_t hi = opnd->dims[d] - a->sizes.v[d];
        oidx[d] += start[k] < 0 ? 0 : start[k] > hi ? hi : start[k];
    }
    for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
        int64_t sd = a->start_indices_batching_dims.v[i];
        oidx[a->operand_batching_dims.v[i]] += bidx[sd < a->index_vector_dim ? sd : sd - 1];
    }
    /* the whole window lies inside iff its first and last elements do */
    for (uint32_t d = 0; d < opnd->rank; d++)
        if (oidx[d] < 0 || oidx[d] > opnd->dims[d] - a->sizes.v[d]) return -1;
    return (int64_t)ravel(opnd->rank, opnd->dims, oidx);
}

/* Rows are read in index order, i.e. at random: the first GATHER_PF_BYTES
 * of the row GATHER_AHEAD rows on are prefetched while this one is copied;
 * the rest of a long row the hardware's streaming prefetch brings once the
 * copy reads its first lines. Prefetching whole rows (up to 4 KiB) took
 * 32 prefetches per 2 KiB row of gather_embed and was slower: per run, one
 * thread, thread CPU time at load 9 (medians of 40 runs, 3 alternations),
 * 4 KiB pages 7.2-8.2 ms whole rows, 5.9-6.1 ms the first 256 bytes; huge
 * pages 6.1-6.3 ms, 4.8-5.2 ms. No prefetch at all was nearly as fast for 2 KiB
 * rows but 1.1-1.7x slower for rows of 32 and 256 bytes (docs/bench.md,
 * "Huge pages"). */
#define GATHER_AHEAD 4
#define GATHER_PF_BYTES 256

static void gather_rows_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    gather_rows_job *rj = ctx;
    gather_job *j = rj->g;
    size_t esz = plumb_dtype_size(j->opnd->dtype), bytes = (size_t)rj->len * esz;
    size_t pf = bytes < GATHER_PF_BYTES ? bytes : GATHER_PF_BYTES;
    const char *base = j->opnd->data;
    int64_t src[GATHER_AHEAD];
    for (uint64_t r = begin; r < end && r < begin + GATHER_AHEAD; r++) src[r % GATHER_AHEAD] = gather_row_src(rj, r);
    for (uint64_t r = begin; r < end; r++) {
        int64_t s = src[r % GATHER_AHEAD];
        if (r + GATHER_AHEAD < end) {
            int64_t n = gather_row_src(rj, r + GATHER_AHEAD);
            src[r % GATHER_AHEAD] = n;
            if (n >= 0)
                for (size_t o = 0; o < pf; o += 64) __builtin_prefetch(base + (size_t)n * esz + o);
        }
        char *dst = (char *)j->res->data + r * bytes;
        if (s < 0) {
            /* never read out of bounds; the kernel fails after the loop */
            memset(dst, 0, bytes);
            __atomic_store_n(&j->outside, true, __ATOMIC_RELAXED);
            continue;
        }
        if (rj->stream) rt_copy_stream(rj->isa, dst, base + (size_t)s * esz, bytes);
        else memcpy(dst, base + (size_t)s * esz, bytes);
    }
    if (rj->stream) rt_copy_fence(rj->isa);
}

/* Short rows (one element, or a run of at most 16 bytes of a power-of-two
 * size: take of scalars from a table). Two phases per block of
 * GATHER_BLOCK rows. Decode: each row's operand byte offset into a small
 * array, with everything per-op hoisted (the index tensor's stride of each
 * batch dimension and of the index vector dimension, the operand stride and
 * clamping bound of each start index, the batch position counted up
 * instead of unravelled); when the rows' index vectors are one element
 * each, evenly spaced in the index tensor and no batching dimensions are
 * paired, a typed loop of one load, clamp and multiply per row. Copy: the
 * rows, one typed load and store each. The random reads of the copy are
 * what the time goes to (take_scalars: 82% of the kernel's samples on the
 * one load, perf); with the decoding out of the copy loop, a few
 * instructions per row let many more reads be in flight at once (hardware
 * gathers, vpgatherqd/qq at 8 or 4 rows each, and a software prefetch 16
 * or 64 rows ahead were measured no faster: docs/bench.md). The start is clamped exactly
 * as gather_row_src does, so the bits are the same. */
#define GATHER_BLOCK 512

typedef struct gather_short_job {
    gather_job *g;
    uint32_t nb, nvec, nbat;
    uint32_t bytes;                    /* bytes per row: 1, 2, 4, 8 or 16 (short rows) */
    size_t row_bytes;                  /* bytes per row (long rows, gather_long_range) */
    plumb_isa isa;                     /* long rows: the run's level, for streaming stores */
    bool stream;                       /* long rows: the result is large (rt_copy.h) */
    size_t esz;                        /* bytes per element */
    bool even;                         /* one index element per row, rows evenly spaced, no batching pairs */
    int64_t step;                      /* when even: the index tensor stride from row to row */
    int64_t bdims[PLUMB_MAX_RANK];     /* the index batch dimensions */
    int64_t istr[PLUMB_MAX_RANK];      /* index tensor stride of each */
    int64_t kstr;                      /* index tensor stride of the vector dim */
    int64_t ostr[PLUMB_MAX_RANK];      /* operand stride (bytes) of start_index_map[k] */
    int64_t hi[PLUMB_MAX_RANK];        /* largest start of start_index_map[k] */
    uint32_t bpos[PLUMB_MAX_RANK];     /* batch position of batching pair i */
    int64_t bostr[PLUMB_MAX_RANK];     /* operand stride (bytes) of batching pair i */
} gather_short_job;

static inline int64_t clamp_start(int64_t s, int64_t hi)
{
    return s < 0 ? 0 : s > hi ? hi : s;
}

/* off[0, n) = byte offsets of rows r0.. when sj->even: row r's index is
 * element r * step of the index tensor. One loop per index type. */
#define GATHER_EVEN_LOOP(T, CONV)                                                       \
    do {                                                                                \
        const T *p = (const T *)idx->data + r0 * step;                                  \
        for (size_t i = 0; i < n; i++, p += step) off[i] = clamp_start(CONV(*p), hi) * ostr; \
    } while (0)
#define GATHER_SIGNED(v) ((int64_t)(v))
#define GATHER_U64(v) ((v) > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(v))

static void gather_decode_even(const gather_short_job *sj, uint64_t r0, size_t n, int64_t *off)
{
    const plumb_tensor *idx = sj->g->idx;
    int64_t step = sj->step, hi = sj->hi[0], ostr = sj->ostr[0];
    switch (idx->dtype) {
    case PLUMB_I8: GATHER_EVEN_LOOP(int8_t, GATHER_SIGNED); break;
    case PLUMB_I16: GATHER_EVEN_LOOP(int16_t, GATHER_SIGNED); break;
    case PLUMB_I32: GATHER_EVEN_LOOP(int32_t, GATHER_SIGNED); break;
    case PLUMB_I64: GATHER_EVEN_LOOP(int64_t, GATHER_SIGNED); break;
    case PLUMB_UI8: GATHER_EVEN_LOOP(uint8_t, GATHER_SIGNED); break;
    case PLUMB_UI16: GATHER_EVEN_LOOP(uint16_t, GATHER_SIGNED); break;
    case PLUMB_UI32: GATHER_EVEN_LOOP(uint32_t, GATHER_SIGNED); break;
    case PLUMB_UI64: GATHER_EVEN_LOOP(uint64_t, GATHER_U64); break;
    default:
        for (size_t i = 0; i < n; i++)
            off[i] = clamp_start(load_index(idx, (size_t)((int64_t)(r0 + i) * step)), hi) * ostr;
        break;
    }
}

/* off[0, n) = byte offsets of rows r0.., any layout: the batch position
 * bidx (of row r0, updated to row r0 + n) and its index tensor offset
 * *ibase are counted up. */
static void gather_decode_any(const gather_short_job *sj, size_t n, int64_t *bidx, int64_t *ibase, int64_t *off)
{
    const plumb_tensor *idx = sj->g->idx;
    int64_t ib = *ibase;
    for (size_t r = 0; r < n; r++) {
        int64_t src = 0;
        for (uint32_t k = 0; k < sj->nvec; k++)
            src += clamp_start(load_index(idx, (size_t)(ib + (int64_t)k * sj->kstr)), sj->hi[k]) * sj->ostr[k];
        for (uint32_t i = 0; i < sj->nbat; i++) src += bidx[sj->bpos[i]] * sj->bostr[i];
        off[r] = src;
        /* the next batch position: count up the last dimension, carry */
        for (uint32_t i = sj->nb; i-- > 0;) {
            ib += sj->istr[i];
            if (++bidx[i] < sj->bdims[i]) break;
            ib -= bidx[i] * sj->istr[i];
            bidx[i] = 0;
        }
    }
    *ibase = ib;
}

/* dst[i] = the `bytes` bytes at base + off[i]: constant-size memcpy, one
 * load and one store per row. */
static inline __attribute__((always_inline)) void gather_copy_loop(char *dst, const char *base, const int64_t *off,
                                                                     size_t n, uint32_t bytes)
{
    for (size_t i = 0; i < n; i++) memcpy(dst + i * bytes, base + off[i], bytes);
}

static void gather_copy(const gather_short_job *sj, char *dst, const char *base, const int64_t *off, size_t n)
{
    switch (sj->bytes) {
    case 1: gather_copy_loop(dst, base, off, n, 1); break;
    case 2: gather_copy_loop(dst, base, off, n, 2); break;
    case 4: gather_copy_loop(dst, base, off, n, 4); break;
    case 8: gather_copy_loop(dst, base, off, n, 8); break;
    default: gather_copy_loop(dst, base, off, n, 16); break;
    }
}

static void gather_short_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const gather_short_job *sj = ctx;
    const char *base = sj->g->opnd->data;
    char *dst = (char *)sj->g->res->data;
    int64_t off[GATHER_BLOCK];
    int64_t bidx[PLUMB_MAX_RANK], ibase = 0;
    if (!sj->even) {
        unravel(begin, sj->nb, sj->bdims, bidx);
        for (uint32_t i = 0; i < sj->nb; i++) ibase += bidx[i] * sj->istr[i];
    }
    for (uint64_t r = begin; r < end; r += GATHER_BLOCK) {
        size_t n = (size_t)(end - r < GATHER_BLOCK ? end - r : GATHER_BLOCK);
        if (sj->even) gather_decode_even(sj, r, n, off);
        else gather_decode_any(sj, n, bidx, &ibase, off);
        gather_copy(sj, dst + r * sj->bytes, base, off, n);
    }
}

/* True (and the copy done) when the rows are short enough for
 * gather_short_range. Every clamped start stays inside the operand (the
 * start map names no dimension twice, and no batching dimension: those
 * take gather_rows_range, which checks), so no row can fail. */
/* The per-op part of the two-phase decode into sj: false when a start
 * index maps to a batching dimension (gather_rows_range then decodes and
 * checks each row). */
static bool gather_decode_setup(gather_job *j, uint32_t nb, const int64_t *ibdims, gather_short_job *out)
{
    const ir_attrs *a = j->a;
    const plumb_tensor *opnd = j->opnd, *idx = j->idx;
    for (uint32_t k = 0; k < j->nvec; k++)
        if (in_list(&a->operand_batching_dims, a->start_index_map.v[k])) return false;
    gather_short_job sj;
    memset(&sj, 0, sizeof sj);
    sj.g = j;
    sj.nb = nb;
    sj.nvec = j->nvec;
    sj.esz = plumb_dtype_size(opnd->dtype);
    memcpy(sj.bdims, ibdims, nb * sizeof *ibdims);
    int64_t ist[PLUMB_MAX_RANK + 1], ost[PLUMB_MAX_RANK + 1];
    ist[idx->rank] = 1;
    for (uint32_t d = idx->rank; d-- > 0;) ist[d] = ist[d + 1] * idx->dims[d];
    ost[opnd->rank] = 1;
    for (uint32_t d = opnd->rank; d-- > 0;) ost[d] = ost[d + 1] * opnd->dims[d];
    int64_t ivd = a->index_vector_dim;
    uint32_t bi = 0;
    for (uint32_t d = 0; d < idx->rank; d++)
        if ((int64_t)d != ivd) sj.istr[bi++] = ist[d + 1];
    sj.kstr = ivd < (int64_t)idx->rank ? ist[ivd + 1] : 0;
    /* operand strides in elements: a run may start anywhere in its
     * leading dimension (a window of 2 of a rank-1 operand at any start) */
    int64_t esz = (int64_t)sj.esz;
    for (uint32_t k = 0; k < j->nvec; k++) {
        int64_t d = a->start_index_map.v[k];
        sj.ostr[k] = ost[d + 1] * esz;
        sj.hi[k] = opnd->dims[d] - a->sizes.v[d];
    }
    sj.nbat = a->operand_batching_dims.n;
    for (uint32_t i = 0; i < sj.nbat; i++) {
        int64_t sd = a->start_indices_batching_dims.v[i];
        sj.bpos[i] = (uint32_t)(sd < ivd ? sd : sd - 1);
        sj.bostr[i] = ost[a->operand_batching_dims.v[i] + 1] * esz;
    }
    /* even: row r's one index element sits at r * step (the batch
     * dimensions' strides are step times the row-major strides of bdims) */
    sj.step = nb ? sj.istr[nb - 1] : 0;
    sj.even = j->nvec == 1 && sj.nbat == 0;
    int64_t inner = 1;
    for (uint32_t i = nb; i-- > 0 && sj.even;) {
        sj.even = sj.istr[i] == sj.step * inner;
        inner *= ibdims[i];
    }
    *out = sj;
    return true;
}

static bool gather_short(rt_exec *x, gather_job *j, uint32_t nb, const int64_t *ibdims, uint64_t len, uint64_t rows)
{
    uint64_t bytes = len * plumb_dtype_size(j->opnd->dtype);
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) return false;
    gather_short_job sj;
    if (!gather_decode_setup(j, nb, ibdims, &sj)) return false;
    sj.bytes = (uint32_t)bytes;
    rt_parallel_for(x, rows, 16384, gather_short_range, &sj);
    return true;
}

/* Long rows in two phases as well: a block's offsets decoded (and
 * clamped) by gather_decode_even/any, then its rows copied, the first
 * GATHER_PF_BYTES of the row GATHER_AHEAD on prefetched. gather_row_src
 * per row unravelled the row number (two 64-bit divisions), read the start
 * through the generic index load and rebuilt the operand coordinate
 * (perf, gather_embed: 31% of the kernel's samples in it). Every clamped
 * start stays inside the operand (as for gather_short), so no row fails;
 * the offsets are gather_row_src's, so the bits are the same. */
static void gather_long_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const gather_short_job *sj = ctx;
    const char *base = sj->g->opnd->data;
    char *dst = (char *)sj->g->res->data;
    size_t bytes = sj->row_bytes, pf = bytes < GATHER_PF_BYTES ? bytes : GATHER_PF_BYTES;
    int64_t off[GATHER_BLOCK];
    int64_t bidx[PLUMB_MAX_RANK], ibase = 0;
    if (!sj->even) {
        unravel(begin, sj->nb, sj->bdims, bidx);
        for (uint32_t i = 0; i < sj->nb; i++) ibase += bidx[i] * sj->istr[i];
    }
    for (uint64_t r = begin; r < end; r += GATHER_BLOCK) {
        size_t n = (size_t)(end - r < GATHER_BLOCK ? end - r : GATHER_BLOCK);
        if (sj->even) gather_decode_even(sj, r, n, off);
        else gather_decode_any(sj, n, bidx, &ibase, off);
        for (size_t i = 0; i < n && i < GATHER_AHEAD; i++)
            for (size_t o = 0; o < pf; o += 64) __builtin_prefetch(base + off[i] + o);
        for (size_t i = 0; i < n; i++) {
            if (i + GATHER_AHEAD < n)
                for (size_t o = 0; o < pf; o += 64) __builtin_prefetch(base + off[i + GATHER_AHEAD] + o);
            char *d = dst + (r + i) * bytes;
            if (sj->stream) rt_copy_stream(sj->isa, d, base + off[i], bytes);
            else memcpy(d, base + off[i], bytes);
        }
    }
    if (sj->stream) rt_copy_fence(sj->isa);
}

/* True (and the copy done) when gather can run as row copies. */
static bool gather_rows(rt_exec *x, gather_job *j, uint32_t nb, const int64_t *ibdims)
{
    const ir_attrs *a = j->a;
    uint32_t rrank = j->res->rank;
    for (uint32_t w = 0; w < j->nw; w++)
        if (!j->is_offset[rrank - j->nw + w]) return false;
    /* collapsed and batching dimensions of extent 1, as the spec asks:
     * the element path reads only their first element otherwise */
    for (uint32_t d = 0; d < j->opnd->rank; d++)
        if (a->sizes.v[d] != 1 && (in_list(&a->collapsed_slice_dims, d) || in_list(&a->operand_batching_dims, d)))
            return false;
    uint64_t len = contiguous_run(j->opnd->rank, j->opnd->dims, a->sizes.v);
    if (len == 0) return false;
    gather_rows_job rj;
    memset(&rj, 0, sizeof rj);
    rj.g = j;
    rj.nb = nb;
    memcpy(rj.bdims, ibdims, nb * sizeof *ibdims);
    rj.len = len;
    uint64_t rows = 1;
    for (uint32_t i = 0; i < nb; i++) rows *= (uint64_t)ibdims[i];
    if (gather_short(x, j, nb, ibdims, len, rows)) return true;
    rj.isa = rt_isa(x);
    rj.stream = j->res->nbytes >= RT_STREAM_MIN_BYTES;
    gather_short_job sj;
    if (gather_decode_setup(j, nb, ibdims, &sj)) {
        sj.row_bytes = (size_t)len * sj.esz;
        sj.isa = rj.isa;
        sj.stream = rj.stream;
        rt_parallel_for(x, rows, len >= 16384 ? 1 : 16384 / len, gather_long_range, &sj);
        return true;
    }
    /* chunks of at least ~16k elements, as the element path */
    rt_parallel_for(x, rows, len >= 16384 ? 1 : 16384 / len, gather_rows_range, &rj);
    return true;
}

bool rt_op_GATHER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    const plumb_tensor *opnd = in[0], *idx = in[1];
    plumb_tensor *res = out[0];
    int64_t orank = opnd->rank, rrank = res->rank;
    if (a->sizes.n != (uint32_t)orank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "slice_sizes has %u entries for an operand of rank %lld", a->sizes.n,
                       (long long)orank);
    if (!list_in_range(&a->offset_dims, rrank) || !list_in_range(&a->collapsed_slice_dims, orank) ||
        !list_in_range(&a->operand_batching_dims, orank) || !list_in_range(&a->start_index_map, orank) ||
        !list_in_range(&a->start_indices_batching_dims, idx->rank) ||
        a->operand_batching_dims.n != a->start_indices_batching_dims.n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a dimension number is out of range");
    for (uint32_t d = 0; d < (uint32_t)orank; d++)
        if (a->sizes.v[d] < 0 || a->sizes.v[d] > opnd->dims[d])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "slice size %lld of dimension %u exceeds the operand's %lld",
                           (long long)a->sizes.v[d], d, (long long)opnd->dims[d]);
    gather_job j;
    memset(&j, 0, sizeof j);
    uint32_t nb;
    int64_t ibdims[PLUMB_MAX_RANK];
    if (!index_shape(x, op, idx, a->index_vector_dim, a->start_index_map.n, &j.nvec, ibdims, &nb)) return false;
    for (int64_t d = 0; d < orank; d++)
        if (!in_list(&a->collapsed_slice_dims, d) && !in_list(&a->operand_batching_dims, d)) j.window_dims[j.nw++] = d;
    if (j.nw != a->offset_dims.n || nb + j.nw != (uint32_t)rrank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "result rank %lld does not equal %u batch plus %u offset dimensions",
                       (long long)rrank, nb, j.nw);
    uint32_t bi = 0, oi = 0;
    for (int64_t d = 0; d < rrank; d++) {
        j.is_offset[d] = in_list(&a->offset_dims, d);
        int64_t want = j.is_offset[d] ? a->sizes.v[j.window_dims[oi++]] : ibdims[bi++];
        if (res->dims[d] != want)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "result dimension %lld is %lld, expected %lld", (long long)d,
                           (long long)res->dims[d], (long long)want);
    }
    for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
        int64_t sd = a->start_indices_batching_dims.v[i];
        if (sd == a->index_vector_dim || opnd->dims[a->operand_batching_dims.v[i]] != idx->dims[sd])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "batching dimension pair %u differs in size", i);
    }
    /* a start map naming a dimension twice can add two clamped starts past
     * the end; the reference rejects that, and so does the kernel */
    for (uint32_t k = 0; k < a->start_index_map.n; k++)
        for (uint32_t q = k + 1; q < a->start_index_map.n; q++)
            if (a->start_index_map.v[k] == a->start_index_map.v[q])
                return rt_fail(x, op, PLUMB_ERR_INVALID, "start_index_map names dimension %lld twice",
                               (long long)a->start_index_map.v[k]);
    j.a = a;
    j.opnd = opnd;
    j.idx = idx;
    j.res = res;
    if (plumb_tensor_numel(res) == 0) return true;
    if (!gather_rows(x, &j, nb, ibdims))
        rt_parallel_for(x, plumb_tensor_numel(res), 16384, gather_range, &j);
    if (j.outside) return rt_fail(x, op, PLUMB_ERR_INVALID, "a result element maps outside the operand");
    return true;
}

/* ---- scatter --------------------------------------------------------------------- */

static void scalar_view(plumb_tensor *t, plumb_dtype dt, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = buf;
    t->nbytes = plumb_dtype_size(dt);
}

typedef enum { UPD_GENERIC, UPD_REPLACE, UPD_ADD, UPD_MAX, UPD_MIN } upd_kind;

/* One input; body `return %upd`, or `return OP(%cur, %upd)` (either order)
 * with OP add (f32, f64, integers) or maximum / minimum (f32, f64,
 * integers). *upd_first: the op reads the update first (which NaN wins). */
static upd_kind recognise_update(const ir_block *b, plumb_dtype t, bool *upd_first)
{
    *upd_first = false;
    if (b->n_args != 2 || !b->last || b->last->code != PLUMB_OP_RETURN || b->last->n_operands != 1) return UPD_GENERIC;
    if (b->n_ops == 1 && b->last->operands[0] == b->args[1]) return UPD_REPLACE;
    if (b->n_ops != 2) return UPD_GENERIC;
    const ir_op *o = b->first;
    if (o->n_operands != 2 || o->n_results != 1 || b->last->operands[0] != o->results[0]) return UPD_GENERIC;
    bool cu = o->operands[0] == b->args[0] && o->operands[1] == b->args[1];
    bool uc = o->operands[0] == b->args[1] && o->operands[1] == b->args[0];
    if (!(cu || uc) || o->results[0]->type.dtype != t) return UPD_GENERIC;
    if (t != PLUMB_F32 && t != PLUMB_F64 && !plumb_dtype_is_int(t)) return UPD_GENERIC;
    *upd_first = uc;
    switch (o->code) {
    case PLUMB_OP_ADD: return UPD_ADD;
    case PLUMB_OP_MAXIMUM: return UPD_MAX;
    case PLUMB_OP_MINIMUM: return UPD_MIN;
    default: return UPD_GENERIC;
    }
}

/* maximum / minimum of a and b (bits of type t: f32, f64 or an integer)
 * with the reference's rules: IEEE 754-2019 for floats (the first NaN
 * operand propagates, quieted; -0 < +0), signed or unsigned order for
 * integers. */
static uint64_t upd_minmax(plumb_dtype t, uint64_t a, uint64_t b, bool want_max)
{
    if (t == PLUMB_F32 || t == PLUMB_F64) {
        double x, y;
        uint64_t sign, quiet;
        if (t == PLUMB_F32) {
            uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
            float fx, fy;
            memcpy(&fx, &ua, 4);
            memcpy(&fy, &ub, 4);
            x = fx;
            y = fy;
            sign = 1ull << 31;
            quiet = 1ull << 22;
        } else {
            memcpy(&x, &a, 8);
            memcpy(&y, &b, 8);
            sign = 1ull << 63;
            quiet = 1ull << 51;
        }
        if (x != x) return a | quiet;
        if (y != y) return b | quiet;
        if (x == y) {   /* equal, or zeros of either sign */
            bool a_neg = (a & sign) != 0;
            return (want_max ? !a_neg : a_neg) ? a : b;
        }
        return ((x > y) == want_max) ? a : b;
    }
    bool a_gt;
    if (plumb_dtype_is_signed(t)) {
        unsigned sh = 64 - plumb_dtype_get(t)->bits;
        a_gt = (int64_t)(a << sh) >> sh > (int64_t)(b << sh) >> sh;
    } else {
        a_gt = a > b;
    }
    return (a_gt == want_max) ? a : b;
}

/* The new value of a target holding cur after update upd, for a
 * recognised update other than add and replace. */
static uint64_t upd_apply(upd_kind uk, bool upd_first, plumb_dtype t, uint64_t cur, uint64_t upd)
{
    return upd_first ? upd_minmax(t, upd, cur, uk == UPD_MAX) : upd_minmax(t, cur, upd, uk == UPD_MAX);
}

/* Row updates: one input, a recognised update, the window contiguous in
 * the input and the update window dimensions the updates' trailing ones.
 * Updates are then rows in the order of the scatter positions, and within
 * a row distinct elements hit distinct targets, so applying row after row
 * gives every target its updates in the element path's order. Parallel
 * over columns: each chunk walks every row in order for its columns, so
 * the order per target, and the bits, do not depend on the split. */
typedef struct scatter_rows_job {
    upd_kind uk;
    bool upd_first;
    plumb_dtype dt;
    void *o;
    const void *u;
    const int64_t *base;    /* per row: first target element, or -1 (skipped) */
    uint64_t rows, len;     /* rows, elements per row */
} scatter_rows_job;

/* o[i] += v[i] over 32-byte vectors (GCC vector extensions: AVX lanes, or
 * pairs of SSE2/NEON registers), then element by element: the same IEEE
 * or wrap-around adds as the scalar loop, so the same bits. */
typedef float rows_vf32 __attribute__((vector_size(32)));
typedef double rows_vf64 __attribute__((vector_size(32)));
typedef uint32_t rows_vu32 __attribute__((vector_size(32)));
typedef uint64_t rows_vu64 __attribute__((vector_size(32)));
#define ROWS_ADD(name, T, VT)                                              \
    static void name(T *o, const T *v, uint64_t n)                         \
    {                                                                      \
        enum { W = sizeof(VT) / sizeof(T) };                               \
        uint64_t i = 0;                                                    \
        for (; i + W <= n; i += W) {                                       \
            VT a, b;                                                       \
            memcpy(&a, o + i, sizeof a);                                   \
            memcpy(&b, v + i, sizeof b);                                   \
            a = a + b;                                                     \
            memcpy(o + i, &a, sizeof a);                                   \
        }                                                                  \
        for (; i < n; i++) o[i] = o[i] + v[i];                             \
    }
ROWS_ADD(rows_add_f32, float, rows_vf32)
ROWS_ADD(rows_add_f64, double, rows_vf64)
ROWS_ADD(rows_add_u32, uint32_t, rows_vu32)
ROWS_ADD(rows_add_u64, uint64_t, rows_vu64)
#undef ROWS_ADD

static void scatter_rows_range(void *ctx, uint64_t c0, uint64_t c1, uint32_t chunk)
{
    (void)chunk;
    const scatter_rows_job *j = ctx;
    size_t esz = plumb_dtype_size(j->dt);
    for (uint64_t r = 0; r < j->rows; r++) {
        if (j->base[r] < 0) continue;
        uint64_t t = (uint64_t)j->base[r] + c0, u = r * j->len + c0, n = c1 - c0;
        if (j->uk == UPD_REPLACE) {
            memcpy((char *)j->o + t * esz, (const char *)j->u + u * esz, n * esz);
        } else if (j->uk != UPD_ADD) {
            for (uint64_t i = 0; i < n; i++)
                plumb_store_bits(j->dt, j->o, (size_t)(t + i),
                                 upd_apply(j->uk, j->upd_first, j->dt, plumb_load_bits(j->dt, j->o, (size_t)(t + i)),
                                           plumb_load_bits(j->dt, j->u, (size_t)(u + i))));
        } else if (j->dt == PLUMB_F32) {
            rows_add_f32((float *)j->o + t, (const float *)j->u + u, n);
        } else if (j->dt == PLUMB_F64) {
            rows_add_f64((double *)j->o + t, (const double *)j->u + u, n);
        } else if (esz == 4) {   /* integers: wrap-around, as the element path's bit add */
            rows_add_u32((uint32_t *)j->o + t, (const uint32_t *)j->u + u, n);
        } else if (esz == 8) {
            rows_add_u64((uint64_t *)j->o + t, (const uint64_t *)j->u + u, n);
        } else {
            for (uint64_t i = 0; i < n; i++)
                plumb_store_bits(j->dt, j->o, (size_t)(t + i),
                                 plumb_load_bits(j->dt, j->o, (size_t)(t + i)) + plumb_load_bits(j->dt, j->u, (size_t)(u + i)));
        }
    }
}

/* The first target of each row by the element path's arithmetic (saturating
 * sums, windows leaving the input skipped); false after rt_fail. */
static bool scatter_rows(rt_exec *x, const ir_op *op, upd_kind uk, bool upd_first, const plumb_tensor *inp, const plumb_tensor *idx,
                         const plumb_tensor *upd, plumb_tensor *res, uint32_t nvec, uint32_t nb, const int64_t *ibdims,
                         const int64_t *wext, uint64_t len)
{
    const ir_attrs *a = &op->a;
    uint32_t irank = inp->rank;
    uint64_t rows = 1;
    for (uint32_t i = 0; i < nb; i++) rows *= (uint64_t)ibdims[i];
    int64_t *base = rt_scratch(x, op, (size_t)rows * sizeof *base);
    if (!base) return false;
    int64_t sidx[PLUMB_MAX_RANK], start[PLUMB_MAX_RANK], fstart[PLUMB_MAX_RANK];
    for (uint64_t r = 0; r < rows; r++) {
        unravel(r, nb, ibdims, sidx);
        read_start(idx, a->index_vector_dim, sidx, nvec, start);
        for (uint32_t d = 0; d < irank; d++) fstart[d] = 0;
        for (uint32_t k = 0; k < nvec; k++) {
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
        for (uint32_t d = 0; d < irank && inside; d++)
            if (fstart[d] < 0 || fstart[d] > inp->dims[d] - wext[d]) inside = false;
        base[r] = inside ? (int64_t)ravel(irank, inp->dims, fstart) : -1;
    }
    scatter_rows_job j = {uk, upd_first, inp->dtype, res->data, upd->data, base, rows, len};
    /* ~16k elements per chunk, at least a cache line of columns, and no
     * more chunks than threads: every chunk walks all the rows, so narrow
     * chunks read the updates a line per row, rows apart (the broad
     * suite's 8192 rows of 512 f32 in 32 chunks of 16 columns: a 2 KiB
     * stride, a page every second row). The split never changes a bit
     * (each target's updates stay in row order), so it may depend on the
     * thread count. */
    uint64_t grain = 16384 / rows, line = 64 / plumb_dtype_size(inp->dtype);
    uint64_t th = rt_pool_threads(x->pool), per = (len + th - 1) / th;
    per = (per + line - 1) / line * line;
    if (grain < line) grain = line;
    if (grain < per) grain = per;
    rt_parallel_for(x, len, grain, scatter_rows_range, &j);
    return true;
}

/* The result starts as a copy of the input, on the threads; a large one
 * (RT_STREAM_MIN_BYTES) with streaming stores: the updates then touch a
 * fraction of its lines, so reading every destination line into the cache
 * before writing it (a third of the copy's traffic) buys nothing. */
typedef struct scatter_copy_job {
    unsigned char *d;
    const unsigned char *s;
    plumb_isa isa;
    bool stream;
} scatter_copy_job;

static void scatter_copy_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const scatter_copy_job *j = ctx;
    if (j->stream) {
        rt_copy_stream(j->isa, j->d + begin, j->s + begin, (size_t)(end - begin));
        rt_copy_fence(j->isa);
    } else {
        memcpy(j->d + begin, j->s + begin, (size_t)(end - begin));
    }
}

static void scatter_copy_input(rt_exec *x, plumb_tensor *out, const plumb_tensor *in)
{
    if (!out->nbytes || out->data == in->data) return;
    scatter_copy_job j = {out->data, in->data, rt_isa(x), out->nbytes >= RT_STREAM_MIN_BYTES};
    rt_parallel_for(x, out->nbytes, (uint64_t)1 << 20, scatter_copy_range, &j);
}

bool rt_op_SCATTER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_attrs *a = &op->a;
    uint32_t n = (op->n_operands - 1) / 2;
    if (n == 0 || op->n_operands != 2 * n + 1 || op->n_results != n || op->n_regions != 1)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs N inputs, indices, N updates, N results and one update region");
    if (n > 32) return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "scatter with %u inputs (at most 32)", n);
    const plumb_tensor *idx = in[n], *u0 = in[n + 1];
    int64_t irank = in[0]->rank, urank = u0->rank;
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != irank || memcmp(in[k]->dims, in[0]->dims, (size_t)irank * sizeof(int64_t)) ||
            in[n + 1 + k]->rank != urank || memcmp(in[n + 1 + k]->dims, u0->dims, (size_t)urank * sizeof(int64_t)) ||
            out[k]->nbytes != in[k]->nbytes || out[k]->dtype != in[k]->dtype)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "input %u or update %u differs in shape from the first", k, k);
        if (in[n + 1 + k]->dtype != in[k]->dtype)
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "update %u's element type differs from input %u's", k, k);
    }
    if (!list_in_range(&a->update_window_dims, urank) || !list_in_range(&a->inserted_window_dims, irank) ||
        !list_in_range(&a->input_batching_dims, irank) || !list_in_range(&a->scatter_dims_to_operand_dims, irank) ||
        !list_in_range(&a->scatter_indices_batching_dims, idx->rank) ||
        a->input_batching_dims.n != a->scatter_indices_batching_dims.n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "a dimension number is out of range");
    uint32_t nvec, nb;
    int64_t ibdims[PLUMB_MAX_RANK];
    if (!index_shape(x, op, idx, a->index_vector_dim, a->scatter_dims_to_operand_dims.n, &nvec, ibdims, &nb))
        return false;
    int64_t window_dims[PLUMB_MAX_RANK];
    uint32_t nw = 0;
    for (int64_t d = 0; d < irank; d++)
        if (!in_list(&a->inserted_window_dims, d) && !in_list(&a->input_batching_dims, d)) window_dims[nw++] = d;
    if (nw != a->update_window_dims.n || nb + nw != (uint32_t)urank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "updates rank %lld does not equal %u scatter plus %u window dimensions",
                       (long long)urank, nb, nw);
    int64_t wext[PLUMB_MAX_RANK];
    bool is_win[PLUMB_MAX_RANK];
    for (int64_t d = 0; d < irank; d++) wext[d] = 1;
    uint32_t bi = 0, wi = 0;
    for (int64_t d = 0; d < urank; d++) {
        is_win[d] = in_list(&a->update_window_dims, d);
        if (is_win[d]) {
            int64_t id = window_dims[wi++];
            if (u0->dims[d] > in[0]->dims[id])
                return rt_fail(x, op, PLUMB_ERR_INVALID, "update window dimension %lld is larger than input dimension %lld",
                               (long long)d, (long long)id);
            wext[id] = u0->dims[d];
        } else if (u0->dims[d] != ibdims[bi++]) {
            return rt_fail(x, op, PLUMB_ERR_INVALID, "updates dimension %lld does not match the scatter indices", (long long)d);
        }
    }
    for (uint32_t i = 0; i < a->input_batching_dims.n; i++) {
        int64_t sd = a->scatter_indices_batching_dims.v[i];
        if (sd == a->index_vector_dim || in[0]->dims[a->input_batching_dims.v[i]] != idx->dims[sd])
            return rt_fail(x, op, PLUMB_ERR_INVALID, "batching dimension pair %u differs in size", i);
    }
    const ir_block *body = &op->regions[0];
    if (body->n_args != 2 * n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "update region takes %u arguments, expected %u", body->n_args, 2 * n);
    for (uint32_t k = 0; k < 2 * n; k++)
        if (body->args[k]->type.dtype != in[k % n]->dtype)
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "update region argument %u has element type %s, expected %s", k,
                           plumb_dtype_name(body->args[k]->type.dtype), plumb_dtype_name(in[k % n]->dtype));
    for (uint32_t k = 0; k < n; k++) scatter_copy_input(x, out[k], in[k]);
    bool upd_first = false;
    upd_kind uk = n == 1 ? recognise_update(body, in[0]->dtype, &upd_first) : UPD_GENERIC;
    if (uk != UPD_GENERIC && plumb_tensor_numel(u0) > 0) {
        bool trailing = true;
        for (uint32_t w = 0; w < nw; w++) trailing &= is_win[urank - nw + w];
        uint64_t len = trailing ? contiguous_run((uint32_t)irank, in[0]->dims, wext) : 0;
        if (len > 0) return scatter_rows(x, op, uk, upd_first, in[0], idx, u0, out[0], nvec, nb, ibdims, wext, len);
    }

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
        unravel(u, (uint32_t)urank, u0->dims, uidx);
        uint32_t ns = 0, nwi = 0;
        int64_t widx[PLUMB_MAX_RANK];
        for (int64_t d = 0; d < urank; d++) {
            if (is_win[d]) widx[nwi++] = uidx[d];
            else sidx[ns++] = uidx[d];
        }
        read_start(idx, a->index_vector_dim, sidx, nvec, start);
        for (int64_t d = 0; d < irank; d++) fstart[d] = 0;
        for (uint32_t k = 0; k < nvec; k++) {
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
            if (fstart[d] < 0 || fstart[d] > in[0]->dims[d] - wext[d]) inside = false;
        if (!inside) continue;
        for (int64_t d = 0; d < irank; d++) tidx[d] = fstart[d];
        for (uint32_t w = 0; w < nw; w++) tidx[window_dims[w]] += widx[w];
        uint64_t t = ravel((uint32_t)irank, in[0]->dims, tidx);
        if (uk != UPD_GENERIC) {
            plumb_dtype dt = in[0]->dtype;
            uint64_t ub = plumb_load_bits(dt, in[n + 1]->data, (size_t)u);
            if (uk == UPD_ADD) {
                void *o = out[0]->data;
                if (dt == PLUMB_F32) ((float *)o)[t] = ((float *)o)[t] + ((const float *)in[n + 1]->data)[u];
                else if (dt == PLUMB_F64) ((double *)o)[t] = ((double *)o)[t] + ((const double *)in[n + 1]->data)[u];
                else plumb_store_bits(dt, o, (size_t)t, plumb_load_bits(dt, o, (size_t)t) + ub);
            } else if (uk == UPD_REPLACE) {
                size_t sz = plumb_dtype_size(dt);   /* whole elements: complex<f64> is 16 bytes */
                memcpy((char *)out[0]->data + (size_t)t * sz, (const char *)in[n + 1]->data + (size_t)u * sz, sz);
            } else {
                plumb_store_bits(dt, out[0]->data, (size_t)t,
                                 upd_apply(uk, upd_first, dt, plumb_load_bits(dt, out[0]->data, (size_t)t), ub));
            }
            continue;
        }
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            memcpy(cur[k], (const char *)out[k]->data + (size_t)t * sz, sz);
            memcpy(upd[k], (const char *)in[n + 1 + k]->data + (size_t)u * sz, sz);
        }
        if (!rt_eval_region(x, body, args, res)) return false;
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = plumb_dtype_size(in[k]->dtype);
            memcpy((char *)out[k]->data + (size_t)t * sz, rb[k], sz);
        }
    }
    return true;
}

/* ---- sort ---------------------------------------------------------------------- */

typedef bool (*less_fn)(void *ud, int64_t i, int64_t j);

/* The reference's bottom-up merge sort, comparison for comparison. */
static void merge_sort(int64_t *perm, int64_t *tmp, int64_t len, less_fn lt, void *ud, const bool *failed)
{
    for (int64_t w = 1; w < len; w *= 2) {
        for (int64_t lo = 0; lo < len; lo += 2 * w) {
            int64_t mid = lo + w < len ? lo + w : len;
            int64_t hi = lo + 2 * w < len ? lo + 2 * w : len;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = lt(ud, perm[j], perm[i]) ? perm[j++] : perm[i++];
            while (i < mid) tmp[o++] = perm[i++];
            while (j < hi) tmp[o++] = perm[j++];
        }
        memcpy(perm, tmp, (size_t)len * sizeof *perm);
        if (failed && *failed) return;
        if (w > INT64_MAX / 2) break;
    }
}

/* Native comparator: `compare DIR, arg[2p + s], arg[2p + 1 - s]`. */
typedef struct native_cmp {
    bool ok;
    uint32_t operand;     /* p */
    bool swapped;
    ir_cmp_dir dir;
    ir_cmp_type type;
} native_cmp;

static native_cmp recognise_cmp(const ir_block *b, plumb_tensor *const *in)
{
    native_cmp c;
    memset(&c, 0, sizeof c);
    if (b->n_ops != 2 || !b->first || b->first->code != PLUMB_OP_COMPARE || !b->last ||
        b->last->code != PLUMB_OP_RETURN || b->last->n_operands != 1 || b->last->operands[0] != b->first->results[0])
        return c;
    const ir_op *o = b->first;
    for (uint32_t p = 0; 2 * p + 1 < b->n_args; p++) {
        bool d = o->operands[0] == b->args[2 * p] && o->operands[1] == b->args[2 * p + 1];
        bool s = o->operands[0] == b->args[2 * p + 1] && o->operands[1] == b->args[2 * p];
        if (d || s) {
            c.ok = true;
            c.operand = p;
            c.swapped = s;
            c.dir = o->a.cmp_dir;
            plumb_dtype t = in[p]->dtype;
            /* complex (lexicographic on (re, im)) runs through the region */
            if (plumb_dtype_is_complex(t)) {
                c.ok = false;
                return c;
            }
            c.type = o->a.cmp_type != IR_CMP_TYPE_NONE ? o->a.cmp_type
                   : plumb_dtype_is_float(t) ? IR_CMP_FLOAT
                   : plumb_dtype_is_signed(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
            if (plumb_dtype_is_float(t) != (c.type == IR_CMP_FLOAT || c.type == IR_CMP_TOTALORDER)) c.ok = false;
            return c;
        }
    }
    return c;
}

/* totalOrder key of a float, or the ordered key of an integer. */
static int64_t ordered_key(plumb_dtype t, uint64_t b)
{
    unsigned bits = plumb_dtype_get(t)->bits;
    if (t == PLUMB_F8E8M0FNU)   /* no sign bit: every pattern positive, in pattern order (docs/spec/types.md) */
        return (int64_t)b;
    if (plumb_dtype_is_float(t)) {
        /* IEEE totalOrder: sign-magnitude to an ordered signed integer */
        int64_t v = (int64_t)(b << (64 - bits));
        return v < 0 ? v ^ INT64_MAX : v;
    }
    return (int64_t)b;
}

static bool cmp_apply(ir_cmp_dir dir, int c)   /* c: -1, 0, 1 */
{
    switch (dir) {
    case IR_CMP_EQ: return c == 0;
    case IR_CMP_NE: return c != 0;
    case IR_CMP_LT: return c < 0;
    case IR_CMP_LE: return c <= 0;
    case IR_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

typedef struct sort_env {
    rt_exec *x;
    const ir_op *op;
    plumb_tensor *const *in;
    uint32_t n;
    int64_t base, stride;
    native_cmp nc;
    /* generic; [2]: a complex<f64> element is 16 bytes */
    uint64_t buf[64][2];
    plumb_tensor args[64], resv;
    plumb_tensor *argp[64];
    uint64_t rbuf;
    bool failed;
} sort_env;

static bool native_less(void *ud, int64_t i, int64_t j)
{
    sort_env *e = ud;
    const plumb_tensor *t = e->in[e->nc.operand];
    plumb_dtype dt = t->dtype;
    uint64_t a = plumb_load_bits(dt, t->data, (size_t)(e->base + i * e->stride));
    uint64_t b = plumb_load_bits(dt, t->data, (size_t)(e->base + j * e->stride));
    if (e->nc.swapped) { uint64_t s = a; a = b; b = s; }
    int c;
    switch (e->nc.type) {
    case IR_CMP_FLOAT: {
        double x = plumb_load_f64(dt, &a, 0), y = plumb_load_f64(dt, &b, 0);
        if (x != x || y != y) return e->nc.dir == IR_CMP_NE;
        c = x < y ? -1 : x > y ? 1 : 0;
        break;
    }
    case IR_CMP_TOTALORDER: {
        int64_t x = ordered_key(dt, a), y = ordered_key(dt, b);
        c = x < y ? -1 : x > y ? 1 : 0;
        break;
    }
    case IR_CMP_SIGNED: {
        int64_t x = plumb_load_i64(dt, &a, 0), y = plumb_load_i64(dt, &b, 0);
        c = x < y ? -1 : x > y ? 1 : 0;
        break;
    }
    default: {
        uint64_t x = plumb_load_u64(dt, &a, 0), y = plumb_load_u64(dt, &b, 0);
        c = x < y ? -1 : x > y ? 1 : 0;
        break;
    }
    }
    return cmp_apply(e->nc.dir, c);
}

static bool generic_less(void *ud, int64_t i, int64_t j)
{
    sort_env *e = ud;
    if (e->failed) return false;
    for (uint32_t k = 0; k < e->n; k++) {
        size_t sz = plumb_dtype_size(e->in[k]->dtype);
        const char *d = e->in[k]->data;
        memcpy(e->buf[2 * k], d + (size_t)(e->base + i * e->stride) * sz, sz);
        memcpy(e->buf[2 * k + 1], d + (size_t)(e->base + j * e->stride) * sz, sz);
    }
    plumb_tensor *r = &e->resv;
    if (!rt_eval_region(e->x, &e->op->regions[0], e->argp, &r)) {
        e->failed = true;
        return false;
    }
    return (e->rbuf & 1) != 0;
}

typedef struct sort_job {
    sort_env proto;
    plumb_tensor *const *out;
    int64_t len;
    bool keyed;          /* the typed key sort (k_sort_keys.c) applies */
    rt_sort_keys keys;
    char *scratch;       /* per chunk: chunk_bytes (2 * len positions, or the key sort's) */
    size_t chunk_bytes;
} sort_job;

static void sort_slices(sort_job *j, sort_env *e, void *scratch, uint64_t begin, uint64_t end)
{
    int64_t len = j->len, stride = e->stride, *perm = scratch, *tmp = perm + len;
    for (uint64_t s = begin; s < end && !e->failed; s++) {
        int64_t outer = (int64_t)(s / (uint64_t)stride), inner = (int64_t)(s % (uint64_t)stride);
        e->base = outer * len * stride + inner;
        /* FLOAT with a NaN in the slice: the merge sort, comparison for comparison */
        if (j->keyed && rt_sort_keys_slice(&j->keys, e->in, j->out, e->n, e->base, stride, len, scratch)) continue;
        for (int64_t p = 0; p < len; p++) perm[p] = p;
        merge_sort(perm, tmp, len, e->nc.ok ? native_less : generic_less, e, &e->failed);
        if (e->failed) return;
        for (uint32_t k = 0; k < e->n; k++) {
            size_t sz = plumb_dtype_size(e->in[k]->dtype);
            for (int64_t p = 0; p < len; p++)
                memcpy((char *)j->out[k]->data + (size_t)(e->base + p * stride) * sz,
                       (const char *)e->in[k]->data + (size_t)(e->base + perm[p] * stride) * sz, sz);
        }
    }
}

static void sort_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    sort_job *j = ctx;
    sort_env e = j->proto;
    sort_slices(j, &e, j->scratch + (size_t)chunk * j->chunk_bytes, begin, end);
}

bool rt_op_SORT(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands;
    if (n == 0 || op->n_results != n || op->n_regions != 1)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "sort needs N operands, N results and a comparator");
    if (n > 32) return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "sort with %u operands (at most 32)", n);
    const plumb_tensor *x0 = in[0];
    int64_t rank = x0->rank, dim = op->a.dimension;
    if (dim < 0) dim += rank;
    if (rank == 0 || dim < 0 || dim >= rank)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "sort dimension %lld is out of range for rank %lld",
                       (long long)op->a.dimension, (long long)rank);
    const ir_block *body = &op->regions[0];
    if (body->n_args != 2 * n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "comparator takes %u arguments, expected %u", body->n_args, 2 * n);
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != x0->rank || memcmp(in[k]->dims, x0->dims, (size_t)rank * sizeof(int64_t)) ||
            out[k]->dtype != in[k]->dtype || out[k]->nbytes != in[k]->nbytes)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "operand %u differs in shape from operand 0", k);
        if (body->args[2 * k]->type.dtype != in[k]->dtype || body->args[2 * k + 1]->type.dtype != in[k]->dtype)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "comparator arguments %u and %u must have operand %u's element type",
                           2 * k, 2 * k + 1, k);
    }
    int64_t len = x0->dims[dim], stride = 1;
    for (int64_t d = dim + 1; d < rank; d++) stride *= x0->dims[d];
    uint64_t total = plumb_tensor_numel(x0);
    if (total == 0 || len == 0) return true;
    uint64_t slices = total / (uint64_t)len;
    sort_job j;
    memset(&j, 0, sizeof j);
    j.out = out;
    j.len = len;
    sort_env *e = &j.proto;
    e->x = x;
    e->op = op;
    e->in = in;
    e->n = n;
    e->stride = stride;
    e->nc = recognise_cmp(body, in);
    if (e->nc.ok)
        j.keyed = rt_sort_keys_plan(&j.keys, e->nc.operand, e->nc.dir, e->nc.swapped, e->nc.type,
                                    in[e->nc.operand]->dtype, n, len);
    uint32_t chunks = e->nc.ok ? rt_parallel_chunks(x, slices, 1) : 1;
    uint64_t per, bytes;
    if (plumb_mul_overflow_u64((uint64_t)len, 2 * sizeof(int64_t), &per))
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "scratch for slices of %lld elements is too large", (long long)len);
    if (j.keyed && rt_sort_keys_scratch(&j.keys, len) > per) per = rt_sort_keys_scratch(&j.keys, len);
    per = (per + 63) & ~(uint64_t)63;   /* each chunk's scratch 64-byte aligned */
    if (plumb_mul_overflow_u64(per, chunks ? chunks : 1, &bytes) || bytes > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "scratch for slices of %lld elements is too large", (long long)len);
    j.chunk_bytes = (size_t)per;
    j.scratch = rt_scratch(x, op, (size_t)bytes);
    if (!j.scratch) return false;
    if (e->nc.ok) {
        rt_parallel_for(x, slices, 1, sort_range, &j);
        return true;
    }
    for (uint32_t k = 0; k < 2 * n; k++) {
        scalar_view(&e->args[k], in[k / 2]->dtype, e->buf[k]);
        e->argp[k] = &e->args[k];
    }
    scalar_view(&e->resv, PLUMB_I1, &e->rbuf);
    sort_slices(&j, e, j.scratch, 0, slices);
    return !e->failed;
}

/* ---- top_k ---------------------------------------------------------------------- */

static uint64_t topk_key(plumb_dtype t, const void *data, size_t i)
{
    uint64_t b = plumb_load_bits(t, data, i);
    unsigned bits = plumb_dtype_get(t)->bits;
    uint64_t sign = 1ull << (bits - 1);
    uint64_t mask = bits == 64 ? ~0ull : (sign << 1) - 1;
    if (plumb_dtype_is_float(t)) return (b & sign) ? (~b & mask) : (b | sign);
    if (plumb_dtype_is_signed(t)) return (b ^ sign) & mask;
    return b;
}

typedef struct topk_job {
    const plumb_tensor *x;
    plumb_tensor *vals, *idx;
    int64_t len, k;
    int64_t *perm;      /* per chunk: 2 * len indices */
    uint64_t *keys;     /* per chunk: len keys */
} topk_job;

typedef struct topk_env {
    const uint64_t *keys;
} topk_env;

static bool topk_first(void *ud, int64_t i, int64_t j)
{
    const topk_env *e = ud;
    return e->keys[i] > e->keys[j];
}

static void topk_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    topk_job *j = ctx;
    int64_t len = j->len, k = j->k;
    int64_t *perm = j->perm + (size_t)chunk * 2 * (size_t)len, *tmp = perm + len;
    uint64_t *keys = j->keys + (size_t)chunk * (size_t)len;
    plumb_dtype t = j->x->dtype;
    topk_env e = {keys};
    for (uint64_t r = begin; r < end; r++) {
        int64_t base = (int64_t)r * len;
        for (int64_t p = 0; p < len; p++) {
            perm[p] = p;
            keys[p] = topk_key(t, j->x->data, (size_t)(base + p));
        }
        /* keys are a strict weak order and the sort is stable, so the
         * result is the unique one: descending, ties by lower index */
        merge_sort(perm, tmp, len, topk_first, &e, NULL);
        for (int64_t p = 0; p < k; p++) {
            plumb_store_bits(t, j->vals->data, (size_t)((int64_t)r * k + p),
                             plumb_load_bits(t, j->x->data, (size_t)(base + perm[p])));
            plumb_store_bits(PLUMB_I32, j->idx->data, (size_t)((int64_t)r * k + p), (uint64_t)perm[p]);
        }
    }
}

bool rt_op_TOP_K(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *xt = in[0];
    plumb_tensor *vals = out[0], *idx = out[1];
    if (xt->rank == 0) return rt_fail(x, op, PLUMB_ERR_INVALID, "operand must have rank >= 1");
    int64_t len = xt->dims[xt->rank - 1], k = op->a.k;
    if (k < 0 || k > len)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "k = %lld is outside 0..%lld", (long long)k, (long long)len);
    if (vals->dtype != xt->dtype || idx->dtype != PLUMB_I32 || vals->rank != xt->rank || idx->rank != xt->rank ||
        vals->dims[xt->rank - 1] != k || idx->dims[xt->rank - 1] != k ||
        memcmp(vals->dims, xt->dims, (xt->rank - 1) * sizeof(int64_t)) ||
        memcmp(idx->dims, xt->dims, (xt->rank - 1) * sizeof(int64_t)))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "results must be the operand's shape with k as last dimension, and i32 indices");
    if (len > INT32_MAX)
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "last dimension %lld does not fit i32 indices", (long long)len);
    uint64_t total = plumb_tensor_numel(xt);
    if (total == 0 || len == 0 || k == 0) return true;
    uint64_t rows = total / (uint64_t)len;
    uint32_t chunks = rt_parallel_chunks(x, rows, 1);
    if (chunks == 0) chunks = 1;
    topk_job j = {xt, vals, idx, len, k, NULL, NULL};
    uint64_t pb, kb;
    if (plumb_mul_overflow_u64((uint64_t)len, 2 * sizeof(int64_t) * chunks, &pb) ||
        plumb_mul_overflow_u64((uint64_t)len, sizeof(uint64_t) * chunks, &kb) || pb > SIZE_MAX || kb > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "scratch for rows of %lld elements is too large", (long long)len);
    j.perm = rt_scratch(x, op, (size_t)pb);
    if (!j.perm) return false;
    j.keys = rt_scratch(x, op, (size_t)kb);
    if (!j.keys) return false;
    rt_parallel_for(x, rows, 1, topk_range, &j);
    return true;
}
