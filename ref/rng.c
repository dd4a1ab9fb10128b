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
 * Output element types: 64-bit, 32-bit, and 8/16/4/2-bit (generated as 32-bit
 * values of the same shape and truncated to the low bits; i2/i4/ui2/ui4
 * through plumb_store_bits, which keeps the low w bits). Empty outputs
 * leave the state unchanged. The generators and the layout of blocks onto
 * elements are ir/rng.c's (plumb_rng_*), shared with the runtime so that the
 * bits have one definition.
 */
#include <string.h>

#include "plumb/rng.h"
#include "ref_internal.h"

bool ref_op_RNG_BIT_GENERATOR(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *st = in[0];
    plumb_tensor *ost = out[0], *val = out[1];
    if (ost->dtype != st->dtype || ost->nbytes != st->nbytes)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "rng_bit_generator: output_state must have the initial state's type");
    plumb_rng_plan p;
    char err[256];
    ir_rng_alg alg = op->a.rng_alg == IR_RNG_DEFAULT ? IR_RNG_PHILOX : op->a.rng_alg;
    if (!plumb_rng_plan_init(&p, alg, st, val, err, sizeof err))
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "rng_bit_generator: %s", err);
    /* In slices, so a long generation can be stopped by the timeout. */
    for (uint64_t b = 0; b < p.items; b += 4096) {
        uint64_t e = p.items - b < 4096 ? p.items : b + 4096;
        plumb_rng_fill(&p, val->data, b, e);
        if (!ref_poll(c, op))
            return false;
    }
    uint64_t s[3];
    plumb_rng_next_state(&p, s);
    for (uint32_t i = 0; i < p.n_state; i++)
        plumb_store_bits(ost->dtype, ost->data, i, s[i]);
    return true;
}
