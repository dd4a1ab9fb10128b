/* stablehlo.rng_bit_generator
 *
 * Semantics (StableHLO spec): returns (output_state, output): output filled
 * with random bits from initial_state by the named algorithm. The spec leaves
 * the bit layout to the implementation; plumb fixes it as below, so that any
 * backend can be bit-exact. The generators are Threefry-2x32 with 20 rounds
 * and Philox-4x32 with 10 rounds exactly as published (Salmon, Moraes, Dror,
 * Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11); see
 * docs/spec/rng.md for the layout and the known-answer vectors.
 *
 * State: a 1-D tensor of 64-bit integers; s[0] is the key (low 32 bits are
 * key word 0). THREE_FRY: s = [key, counter] (2 elements). PHILOX: s = [key,
 * counter_lo, counter_hi] (a 128-bit counter), or [key, counter] with the high
 * half taken as 0 (and not stored). DEFAULT is PHILOX (plumb's choice).
 * The output state is the input state with the counter advanced by the
 * number of generator blocks used (mod 2^64, or 2^128 for 3-element Philox).
 *
 * Output element types: 64-bit, 32-bit, and 8/16-bit (generated as 32-bit
 * values of the same shape and truncated to the low bits). Empty outputs
 * leave the state unchanged.
 */
#include <string.h>

#include "accum.h"
#include "ref_internal.h"

static uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

void ref_threefry2x32_20(const uint32_t ctr[2], const uint32_t key[2], uint32_t out[2])
{
    static const unsigned rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
    uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
    uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
    for (unsigned r = 0; r < 20; r++) {
        x0 += x1;
        x1 = rotl32(x1, rot[r % 8]);
        x1 ^= x0;
        if (r % 4 == 3) {
            /* key injection after every 4 rounds */
            unsigned s = r / 4 + 1;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + s;
        }
    }
    out[0] = x0;
    out[1] = x1;
}

void ref_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k0 = key[0], k1 = key[1];
    for (unsigned r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * x[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * x[2];
        uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
        uint32_t y1 = (uint32_t)p1;
        uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
        uint32_t y3 = (uint32_t)p0;
        x[0] = y0; x[1] = y1; x[2] = y2; x[3] = y3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    memcpy(out, x, sizeof x);
}

/* One 64-bit counter block of Threefry: counter words are (low, high). */
static void tf_block(uint64_t key, uint64_t ctr, uint32_t out[2])
{
    uint32_t c[2] = {(uint32_t)ctr, (uint32_t)(ctr >> 32)};
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    ref_threefry2x32_20(c, k, out);
}

/* Philox block for the 128-bit counter (lo, hi) + b. */
static void ph_block(uint64_t key, uint64_t lo, uint64_t hi, uint64_t b, uint32_t out[4])
{
    uint64_t l = lo + b;
    uint64_t h = hi + (l < lo ? 1 : 0);
    uint32_t c[4] = {(uint32_t)l, (uint32_t)(l >> 32), (uint32_t)h, (uint32_t)(h >> 32)};
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    ref_philox4x32_10(c, k, out);
}

bool ref_op_RNG_BIT_GENERATOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *st = in[0];
    plumb_tensor *ost = out[0], *val = out[1];
    if (st->rank != 1 || plumb_dtype_size(st->dtype) != 8 || !plumb_dtype_is_int(st->dtype))
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "rng_bit_generator: state must be a 1-D tensor of 64-bit integers, got %s",
                        plumb_dtype_name(st->dtype));
    if (ost->dtype != st->dtype || ost->nbytes != st->nbytes)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "rng_bit_generator: output_state must have the initial state's type");
    if (!plumb_dtype_is_int(val->dtype))
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "rng_bit_generator: output element type %s is not an integer type",
                        plumb_dtype_name(val->dtype));
    ir_rng_alg alg = op->a.rng_alg == IR_RNG_DEFAULT ? IR_RNG_PHILOX : op->a.rng_alg;
    int64_t ns = st->dims[0];
    if (alg == IR_RNG_THREE_FRY ? ns != 2 : (ns != 2 && ns != 3))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "rng_bit_generator: %s needs a state of %s elements, got %lld",
                        alg == IR_RNG_THREE_FRY ? "THREE_FRY" : "PHILOX", alg == IR_RNG_THREE_FRY ? "2" : "2 or 3",
                        (long long)ns);
    uint64_t s[3] = {0, 0, 0};
    for (int64_t i = 0; i < ns; i++)
        s[i] = plumb_load_bits(st->dtype, st->data, (size_t)i);
    memcpy(ost->data, st->data, st->nbytes);
    uint64_t n = plumb_tensor_numel(val);
    if (n == 0)
        return true;
    plumb_dtype vt = val->dtype;
    unsigned bits = plumb_dtype_get(vt)->bits;
    uint64_t blocks;  /* counter advance */
    if (alg == IR_RNG_THREE_FRY) {
        if (bits == 64) {
            for (uint64_t i = 0; i < n; i++) {
                uint32_t o[2];
                tf_block(s[0], s[1] + i, o);
                plumb_store_bits(vt, val->data, (size_t)i, (uint64_t)o[0] | ((uint64_t)o[1] << 32));
                if ((i & 4095) == 4095 && !ref_poll(c, op)) return false;
            }
            blocks = n;
        } else {
            /* 32-bit values come in pairs: the shape is split in halves along
             * the first even dimension (else the first largest one); value
             * index j along that dimension takes word j % 2 of the block whose
             * counter is the row-major index of the half shape with j / 2. */
            uint32_t rank = val->rank;
            int64_t half[PLUMB_MAX_RANK];
            int split = -1;
            for (uint32_t d = 0; d < rank && split < 0; d++)
                if (val->dims[d] % 2 == 0) split = (int)d;
            if (split < 0)
                for (uint32_t d = 0; d < rank; d++)
                    if (split < 0 || val->dims[d] > val->dims[split]) split = (int)d;
            memcpy(half, val->dims, rank * sizeof(int64_t));
            if (rank > 0) half[split] = (val->dims[split] + 1) / 2;
            int64_t idx[PLUMB_MAX_RANK];
            for (uint64_t i = 0; i < n; i++) {
                ref_unravel(i, rank, val->dims, idx);
                unsigned word = 0;
                if (rank > 0) {
                    word = (unsigned)(idx[split] % 2);
                    idx[split] /= 2;
                }
                uint32_t o[2];
                tf_block(s[0], s[1] + ref_ravel(rank, half, idx), o);
                plumb_store_bits(vt, val->data, (size_t)i, o[word]);
                if ((i & 4095) == 4095 && !ref_poll(c, op)) return false;
            }
            blocks = 1;
            for (uint32_t d = 0; d < rank; d++) blocks *= (uint64_t)half[d];
        }
        s[1] += blocks;
    } else {
        if (bits == 64) {
            blocks = (n + 1) / 2;
            for (uint64_t b = 0; b < blocks; b++) {
                uint32_t o[4];
                ph_block(s[0], s[1], s[2], b, o);
                uint64_t v0 = (uint64_t)o[0] | ((uint64_t)o[1] << 32), v1 = (uint64_t)o[2] | ((uint64_t)o[3] << 32);
                plumb_store_bits(vt, val->data, (size_t)(2 * b), v0);
                if (2 * b + 1 < n) plumb_store_bits(vt, val->data, (size_t)(2 * b + 1), v1);
                if ((b & 4095) == 4095 && !ref_poll(c, op)) return false;
            }
        } else {
            blocks = (n + 3) / 4;
            for (uint64_t b = 0; b < blocks; b++) {
                uint32_t o[4];
                ph_block(s[0], s[1], s[2], b, o);
                for (unsigned j = 0; j < 4 && 4 * b + j < n; j++)
                    plumb_store_bits(vt, val->data, (size_t)(4 * b + j), o[j]);
                if ((b & 4095) == 4095 && !ref_poll(c, op)) return false;
            }
        }
        uint64_t l = s[1] + blocks;
        if (ns == 3 && l < s[1]) s[2] += 1;
        s[1] = l;
    }
    for (int64_t i = 0; i < ns; i++)
        plumb_store_bits(ost->dtype, ost->data, (size_t)i, s[i]);
    return true;
}
