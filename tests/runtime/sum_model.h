/* A model of the runtime's documented float sum order (docs/runtime-reduce.md,
 * runtime/rt_sum.h), written from the documentation rather than from the
 * kernels, for the tests that check a sum bit for bit against it: 32 lanes
 * per block of 2048 terms, lanes from -0 with term i in lane i % 32, lanes
 * folded by halving; blocks folded pairwise, split at the largest
 * power-of-two count of blocks below the total; all in double, rounded once
 * to the element type (round_bits). The constants are the documented ones,
 * repeated here on purpose: a kernel that changed them must fail. */
#ifndef PLUMB_TESTS_SUM_MODEL_H
#define PLUMB_TESTS_SUM_MODEL_H

#include <stdint.h>

#include "plumb/dtype.h"

enum { SUM_LANES = 32, SUM_BLOCK = 2048 };

static inline double model_sum(const double *v, uint64_t n)
{
    if (n == 0) return -0.0;
    if (n > SUM_BLOCK) {
        uint64_t nb = (n + SUM_BLOCK - 1) / SUM_BLOCK, h = 1;
        while (h * 2 < nb) h *= 2;
        return model_sum(v, h * SUM_BLOCK) + model_sum(v + h * SUM_BLOCK, n - h * SUM_BLOCK);
    }
    double l[SUM_LANES];
    for (unsigned j = 0; j < SUM_LANES; j++) l[j] = -0.0;
    for (uint64_t i = 0; i < n; i++) l[i % SUM_LANES] = l[i % SUM_LANES] + v[i];
    for (unsigned w = SUM_LANES / 2; w >= 1; w /= 2)
        for (unsigned i = 0; i < w; i++) l[i] = l[i] + l[i + w];
    return l[0];
}

/* The double v rounded once to the float type t, as bits. */
static inline uint64_t round_bits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    default: return plumb_f64_to_bf16(v);
    }
}

#endif
