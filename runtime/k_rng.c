/* stablehlo.rng_bit_generator: Threefry-2x32-20 and Philox-4x32-10 (Salmon,
 * Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11)
 * with plumb's layout of blocks onto elements and state update
 * (docs/spec/rng.md). Every element depends only on the key, the counter
 * and its index, so blocks are generated in parallel with the same bits. */
#include <string.h>

#include "plumb/dtype.h"
#include "rt_internal.h"

static inline uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

static void threefry(uint64_t key, uint64_t ctr, uint32_t out[2])
{
    static const unsigned rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
    uint32_t x0 = (uint32_t)ctr + ks[0], x1 = (uint32_t)(ctr >> 32) + ks[1];
    for (unsigned r = 0; r < 20; r++) {
        x0 += x1;
        x1 = rotl32(x1, rot[r % 8]);
        x1 ^= x0;
        if (r % 4 == 3) {
            unsigned s = r / 4 + 1;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + s;
        }
    }
    out[0] = x0;
    out[1] = x1;
}

/* Block b after the 128-bit counter (lo, hi), with carry. */
static void philox(uint64_t key, uint64_t lo, uint64_t hi, uint64_t b, uint32_t out[4])
{
    uint64_t l = lo + b, h = hi + (l < lo ? 1 : 0);
    uint32_t x0 = (uint32_t)l, x1 = (uint32_t)(l >> 32), x2 = (uint32_t)h, x3 = (uint32_t)(h >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (unsigned r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * x0, p1 = (uint64_t)0xCD9E8D57u * x2;
        uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0, y1 = (uint32_t)p1;
        uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1, y3 = (uint32_t)p0;
        x0 = y0; x1 = y1; x2 = y2; x3 = y3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = x0; out[1] = x1; out[2] = x2; out[3] = x3;
}

typedef struct rng_job {
    bool tf;
    uint64_t s[3];
    plumb_tensor *val;
    unsigned bits;
    uint64_t n;
    /* threefry 32-bit layout */
    uint32_t rank;
    int split;
    int64_t half[PLUMB_MAX_RANK];
} rng_job;

static void rng_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    rng_job *j = ctx;
    plumb_dtype vt = j->val->dtype;
    void *d = j->val->data;
    if (j->tf && j->bits == 64) {
        for (uint64_t i = begin; i < end; i++) {
            uint32_t o[2];
            threefry(j->s[0], j->s[1] + i, o);
            plumb_store_bits(vt, d, (size_t)i, (uint64_t)o[0] | (uint64_t)o[1] << 32);
        }
    } else if (j->tf) {
        const int64_t *dims = j->val->dims;
        for (uint64_t i = begin; i < end; i++) {
            int64_t idx[PLUMB_MAX_RANK];
            uint64_t lin = i;
            for (uint32_t q = j->rank; q-- > 0;) {
                idx[q] = dims[q] ? (int64_t)(lin % (uint64_t)dims[q]) : 0;
                lin = dims[q] ? lin / (uint64_t)dims[q] : 0;
            }
            unsigned word = 0;
            if (j->rank > 0) {
                word = (unsigned)(idx[j->split] % 2);
                idx[j->split] /= 2;
            }
            uint64_t blk = 0;
            for (uint32_t q = 0; q < j->rank; q++) blk = blk * (uint64_t)j->half[q] + (uint64_t)idx[q];
            uint32_t o[2];
            threefry(j->s[0], j->s[1] + blk, o);
            plumb_store_bits(vt, d, (size_t)i, o[word]);
        }
    } else if (j->bits == 64) {
        /* [begin, end) are blocks of two elements */
        for (uint64_t b = begin; b < end; b++) {
            uint32_t o[4];
            philox(j->s[0], j->s[1], j->s[2], b, o);
            plumb_store_bits(vt, d, (size_t)(2 * b), (uint64_t)o[0] | (uint64_t)o[1] << 32);
            if (2 * b + 1 < j->n) plumb_store_bits(vt, d, (size_t)(2 * b + 1), (uint64_t)o[2] | (uint64_t)o[3] << 32);
        }
    } else {
        for (uint64_t b = begin; b < end; b++) {
            uint32_t o[4];
            philox(j->s[0], j->s[1], j->s[2], b, o);
            for (unsigned q = 0; q < 4 && 4 * b + q < j->n; q++) plumb_store_bits(vt, d, (size_t)(4 * b + q), o[q]);
        }
    }
}

bool rt_op_RNG_BIT_GENERATOR(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *st = in[0];
    plumb_tensor *ost = out[0], *val = out[1];
    if (st->rank != 1 || plumb_dtype_size(st->dtype) != 8 || !plumb_dtype_is_int(st->dtype))
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "state must be a 1-D tensor of 64-bit integers, got %s",
                       plumb_dtype_name(st->dtype));
    if (ost->dtype != st->dtype || ost->nbytes != st->nbytes)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "output_state must have the initial state's type");
    if (!plumb_dtype_is_int(val->dtype))
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "output element type %s is not an integer type",
                       plumb_dtype_name(val->dtype));
    ir_rng_alg alg = op->a.rng_alg == IR_RNG_DEFAULT ? IR_RNG_PHILOX : op->a.rng_alg;
    int64_t ns = st->dims[0];
    if (alg == IR_RNG_THREE_FRY ? ns != 2 : (ns != 2 && ns != 3))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s needs a state of %s elements, got %lld",
                       alg == IR_RNG_THREE_FRY ? "THREE_FRY" : "PHILOX", alg == IR_RNG_THREE_FRY ? "2" : "2 or 3",
                       (long long)ns);
    rng_job j;
    memset(&j, 0, sizeof j);
    j.tf = alg == IR_RNG_THREE_FRY;
    for (int64_t i = 0; i < ns; i++) j.s[i] = plumb_load_bits(st->dtype, st->data, (size_t)i);
    j.val = val;
    j.bits = plumb_dtype_get(val->dtype)->bits;
    j.n = plumb_tensor_numel(val);
    uint64_t s[3] = {j.s[0], j.s[1], j.s[2]};
    if (j.n > 0) {
        uint64_t blocks, items;
        if (j.tf && j.bits == 64) {
            blocks = items = j.n;
        } else if (j.tf) {
            j.rank = val->rank;
            j.split = -1;
            for (uint32_t d = 0; d < j.rank && j.split < 0; d++)
                if (val->dims[d] % 2 == 0) j.split = (int)d;
            if (j.split < 0)
                for (uint32_t d = 0; d < j.rank; d++)
                    if (j.split < 0 || val->dims[d] > val->dims[j.split]) j.split = (int)d;
            memcpy(j.half, val->dims, j.rank * sizeof(int64_t));
            if (j.rank > 0) j.half[j.split] = (val->dims[j.split] + 1) / 2;
            blocks = 1;
            for (uint32_t d = 0; d < j.rank; d++) blocks *= (uint64_t)j.half[d];
            items = j.n;
        } else {
            blocks = items = j.bits == 64 ? (j.n + 1) / 2 : (j.n + 3) / 4;
        }
        rt_parallel_for(x, items, 4096, rng_range, &j);
        if (j.tf) {
            s[1] += blocks;
        } else {
            uint64_t l = s[1] + blocks;
            if (ns == 3 && l < s[1]) s[2] += 1;
            s[1] = l;
        }
    }
    for (int64_t i = 0; i < ns; i++) plumb_store_bits(ost->dtype, ost->data, (size_t)i, s[i]);
    return true;
}
