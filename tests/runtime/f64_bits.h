/* Shared by the f64 math tests: a double's bits and back, and the
 * splitmix64 step their random operand streams are drawn from (each test
 * keeps its own state and seed, so its stream is its own). */
#ifndef PLUMB_TESTS_F64_BITS_H
#define PLUMB_TESTS_F64_BITS_H

#include <stdint.h>
#include <string.h>

static inline double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static inline uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* splitmix64: advances *state and returns the next 64 random bits */
static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
