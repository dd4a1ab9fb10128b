/* The random-bit generators of stablehlo.rng_bit_generator and plumb's
 * layout of their blocks onto output elements (docs/spec/rng.md). The
 * reference and the runtime both generate through these functions, which are
 * checked against the published known-answer vectors (tests/ref/test_rng.c)
 * and against StableHLO's test files, so there is one definition of the bits. */
#ifndef PLUMB_RNG_H
#define PLUMB_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "tensor.h"

/* Threefry-2x32 with 20 rounds and Philox-4x32 with 10 rounds, exactly as
 * published (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC11). */
void plumb_threefry2x32_20(const uint32_t ctr[2], const uint32_t key[2], uint32_t out[2]);
void plumb_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* One rng_bit_generator execution, planned from its state and output types.
 * The output is produced in `items` independent items (elements or blocks),
 * so callers may fill disjoint item ranges in any order or in parallel. */
typedef struct plumb_rng_plan {
    bool threefry;                  /* THREE_FRY; otherwise PHILOX */
    uint32_t n_state;               /* state elements: 2, or 3 for a 128-bit Philox counter */
    uint64_t s[3];                  /* key, counter low, counter high */
    plumb_dtype out_dtype;
    uint32_t bits;                  /* output element width in bits */
    uint64_t n;                     /* output elements */
    uint64_t items;                 /* units plumb_rng_fill iterates over */
    uint64_t blocks;                /* generator blocks consumed (counter advance) */
    uint32_t rank;                  /* output rank (32-bit Threefry layout) */
    int split;                      /* dimension split in halves (32-bit Threefry), or -1 */
    int64_t dims[PLUMB_MAX_RANK];   /* output dims */
    int64_t half[PLUMB_MAX_RANK];   /* output dims with dims[split] halved, rounded up */
} plumb_rng_plan;

/* Plans the op for algorithm alg (DEFAULT means PHILOX) with the given state
 * and output tensors. False with a message in err for a state or output type
 * the op does not accept. */
bool plumb_rng_plan_init(plumb_rng_plan *p, ir_rng_alg alg, const plumb_tensor *state,
                         const plumb_tensor *out, char *err, size_t err_len);
/* Writes the output elements of items [begin, end) into data. */
void plumb_rng_fill(const plumb_rng_plan *p, void *data, uint64_t begin, uint64_t end);
/* The output state: the counter advanced by the blocks used. */
void plumb_rng_next_state(const plumb_rng_plan *p, uint64_t s[3]);

#endif
