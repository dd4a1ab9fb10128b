/* Threefry-2x32-20 and Philox-4x32-10, and plumb's layout of their blocks
 * onto the elements of stablehlo.rng_bit_generator's output.
 *
 * State: a 1-D tensor of 64-bit integers; s[0] is the key (its low 32 bits are
 * key word 0). THREE_FRY: s = [key, counter]. PHILOX: s = [key, counter_lo,
 * counter_hi] (a 128-bit counter) or [key, counter] with the high half 0 and
 * not stored. Layouts:
 * - Threefry, 64-bit outputs: element i is block (counter + i), words (lo, hi).
 * - Threefry, narrower outputs: values come in pairs; the shape is split in
 *   halves along the first even dimension (else the first largest one), and
 *   element idx takes word idx[split] % 2 of the block whose counter offset is
 *   the row-major index of idx (with idx[split] / 2) in the half shape.
 * - Philox: block b (counter + b, with carry into the high half) yields two
 *   64-bit or four 32-bit elements in row-major order.
 * 8- and 16-bit outputs take the low bits of the 32-bit values. A float
 * output of width w holds the pattern the unsigned w-bit output would hold. */
#include <stdio.h>
#include <string.h>

#include "plumb/rng.h"

static uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

void plumb_threefry2x32_20(const uint32_t ctr[2], const uint32_t key[2], uint32_t out[2])
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

void plumb_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
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

/* The Threefry block at 64-bit counter ctr: counter words are (low, high). */
static void tf_block(uint64_t key, uint64_t ctr, uint32_t out[2])
{
    uint32_t c[2] = {(uint32_t)ctr, (uint32_t)(ctr >> 32)};
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    plumb_threefry2x32_20(c, k, out);
}

/* The Philox block b after the 128-bit counter (lo, hi), with carry. */
static void ph_block(uint64_t key, uint64_t lo, uint64_t hi, uint64_t b, uint32_t out[4])
{
    uint64_t l = lo + b;
    uint64_t h = hi + (l < lo ? 1 : 0);
    uint32_t c[4] = {(uint32_t)l, (uint32_t)(l >> 32), (uint32_t)h, (uint32_t)(h >> 32)};
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    plumb_philox4x32_10(c, k, out);
}

bool plumb_rng_plan_init(plumb_rng_plan *p, ir_rng_alg alg, const plumb_tensor *state,
                         const plumb_tensor *out, char *err, size_t err_len)
{
    memset(p, 0, sizeof *p);
    if (state->rank != 1 || plumb_dtype_size(state->dtype) != 8 || !plumb_dtype_is_int(state->dtype)) {
        snprintf(err, err_len, "state must be a 1-D tensor of 64-bit integers, got %s",
                 plumb_dtype_name(state->dtype));
        return false;
    }
    /* A float output takes the bits of the unsigned integer of its width:
     * plumb_store_bits writes patterns, never values, so NaN and infinity
     * patterns pass through uncanonicalized. */
    if (!plumb_dtype_is_int(out->dtype) && !plumb_dtype_is_float(out->dtype)) {
        snprintf(err, err_len, "output element type %s is neither an integer nor a floating-point type",
                 plumb_dtype_name(out->dtype));
        return false;
    }
    p->threefry = alg == IR_RNG_THREE_FRY;
    int64_t ns = state->dims[0];
    if (p->threefry ? ns != 2 : (ns != 2 && ns != 3)) {
        snprintf(err, err_len, "%s needs a state of %s elements, got %lld", p->threefry ? "THREE_FRY" : "PHILOX",
                 p->threefry ? "2" : "2 or 3", (long long)ns);
        return false;
    }
    p->n_state = (uint32_t)ns;
    for (int64_t i = 0; i < ns; i++)
        p->s[i] = plumb_load_bits(state->dtype, state->data, (size_t)i);
    p->out_dtype = out->dtype;
    p->bits = plumb_dtype_get(out->dtype)->bits;
    p->n = plumb_tensor_numel(out);
    p->rank = out->rank;
    p->split = -1;
    memcpy(p->dims, out->dims, out->rank * sizeof(int64_t));
    if (p->n == 0)
        return true;
    if (p->threefry && p->bits == 64) {
        p->items = p->blocks = p->n;
    } else if (p->threefry) {
        for (uint32_t d = 0; d < p->rank && p->split < 0; d++)
            if (p->dims[d] % 2 == 0)
                p->split = (int)d;
        if (p->split < 0)
            for (uint32_t d = 0; d < p->rank; d++)
                if (p->split < 0 || p->dims[d] > p->dims[p->split])
                    p->split = (int)d;
        memcpy(p->half, p->dims, p->rank * sizeof(int64_t));
        if (p->rank > 0)
            p->half[p->split] = (p->dims[p->split] + 1) / 2;
        p->blocks = 1;
        for (uint32_t d = 0; d < p->rank; d++)
            p->blocks *= (uint64_t)p->half[d];
        p->items = p->n;
    } else {
        p->items = p->blocks = p->bits == 64 ? (p->n + 1) / 2 : (p->n + 3) / 4;
    }
    return true;
}

void plumb_rng_fill(const plumb_rng_plan *p, void *data, uint64_t begin, uint64_t end)
{
    plumb_dtype vt = p->out_dtype;
    if (p->threefry && p->bits == 64) {
        for (uint64_t i = begin; i < end; i++) {
            uint32_t o[2];
            tf_block(p->s[0], p->s[1] + i, o);
            plumb_store_bits(vt, data, (size_t)i, (uint64_t)o[0] | ((uint64_t)o[1] << 32));
        }
    } else if (p->threefry) {
        for (uint64_t i = begin; i < end; i++) {
            int64_t idx[PLUMB_MAX_RANK];
            uint64_t lin = i;
            for (uint32_t q = p->rank; q-- > 0;) {
                idx[q] = p->dims[q] ? (int64_t)(lin % (uint64_t)p->dims[q]) : 0;
                lin = p->dims[q] ? lin / (uint64_t)p->dims[q] : 0;
            }
            unsigned word = 0;
            if (p->rank > 0) {
                word = (unsigned)(idx[p->split] % 2);
                idx[p->split] /= 2;
            }
            uint64_t blk = 0;
            for (uint32_t q = 0; q < p->rank; q++)
                blk = blk * (uint64_t)p->half[q] + (uint64_t)idx[q];
            uint32_t o[2];
            tf_block(p->s[0], p->s[1] + blk, o);
            plumb_store_bits(vt, data, (size_t)i, o[word]);
        }
    } else if (p->bits == 64) {
        for (uint64_t b = begin; b < end; b++) {
            uint32_t o[4];
            ph_block(p->s[0], p->s[1], p->s[2], b, o);
            plumb_store_bits(vt, data, (size_t)(2 * b), (uint64_t)o[0] | ((uint64_t)o[1] << 32));
            if (2 * b + 1 < p->n)
                plumb_store_bits(vt, data, (size_t)(2 * b + 1), (uint64_t)o[2] | ((uint64_t)o[3] << 32));
        }
    } else {
        for (uint64_t b = begin; b < end; b++) {
            uint32_t o[4];
            ph_block(p->s[0], p->s[1], p->s[2], b, o);
            for (unsigned j = 0; j < 4 && 4 * b + j < p->n; j++)
                plumb_store_bits(vt, data, (size_t)(4 * b + j), o[j]);
        }
    }
}

void plumb_rng_next_state(const plumb_rng_plan *p, uint64_t s[3])
{
    s[0] = p->s[0];
    s[1] = p->s[1];
    s[2] = p->s[2];
    if (p->threefry) {
        s[1] += p->blocks;
    } else {
        uint64_t l = s[1] + p->blocks;
        if (p->n_state == 3 && l < s[1])
            s[2] += 1;
        s[1] = l;
    }
}
