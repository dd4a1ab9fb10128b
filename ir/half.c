/* f16 (IEEE 754 binary16) and bf16 (bfloat16) conversions in software.
 *
 * Narrowing works on the bits of a double: every f32 is exactly a double, so
 * f32 -> half also goes through here with a single rounding, and f64 -> half
 * rounds directly from the double (never through f32, which would round
 * twice: e.g. a double just above a half-way point between two f16 values can
 * first round to the f32 half-way point, then tie-to-even the wrong way).
 *
 * Rounding is to nearest, ties to even; results below the smallest normal are
 * subnormal; results beyond the largest finite value are +-inf; NaN stays NaN
 * with its sign and top payload bits, quiet bit set (as x86 F16C does). */
#include "plumb/dtype.h"

static uint16_t f64_to_narrow(double x, int mant, int expbits)
{
    uint64_t b = plumb_f64_bits(x);
    uint16_t sign = (uint16_t)((b >> 63) << 15);
    uint64_t e = (b >> 52) & 0x7ff;
    uint64_t m = b & ((1ull << 52) - 1);
    const int64_t bias = (1 << (expbits - 1)) - 1;
    const uint32_t expmax = (1u << expbits) - 1;
    const uint32_t inf = expmax << mant;

    if (e == 0x7ff) {
        if (m == 0)
            return (uint16_t)(sign | inf);
        uint32_t payload = (uint32_t)(m >> (52 - mant));
        return (uint16_t)(sign | inf | payload | (1u << (mant - 1)));
    }
    /* Doubles that are zero or subnormal lie far below half of the smallest
     * subnormal of either half format, so they round to a signed zero. */
    if (e == 0)
        return sign;

    uint64_t sig = m | (1ull << 52);          /* 53-bit significand */
    int64_t te = (int64_t)e - 1023 + bias;     /* biased target exponent */
    if (te >= (int64_t)expmax)
        return (uint16_t)(sign | inf);
    int64_t shift = 52 - mant;
    if (te < 1) {                              /* subnormal in the target */
        shift += 1 - te;
        te = 0;
    }
    if (shift >= 64)
        return sign;
    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (te == 0)
        /* q < 2^mant stays subnormal; q == 2^mant carries into the exponent
         * field and encodes the smallest normal exactly. */
        return (uint16_t)(sign | q);
    if (q == (1ull << (mant + 1))) {
        q >>= 1;
        te++;
        if (te >= (int64_t)expmax)
            return (uint16_t)(sign | inf);
    }
    return (uint16_t)(sign | ((uint32_t)te << mant) | (uint32_t)(q & ((1ull << mant) - 1)));
}

static double narrow_to_f64(uint16_t h, int mant, int expbits)
{
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    uint32_t e = (h >> mant) & ((1u << expbits) - 1);
    uint64_t m = h & ((1u << mant) - 1);
    const int bias = (1 << (expbits - 1)) - 1;
    const uint32_t expmax = (1u << expbits) - 1;

    if (e == expmax) {
        if (m == 0)
            return plumb_f64_from_bits(sign | (0x7ffull << 52));
        return plumb_f64_from_bits(sign | (0x7ffull << 52) | (1ull << 51) | (m << (52 - mant)));
    }
    if (e == 0) {
        if (m == 0)
            return plumb_f64_from_bits(sign);
        /* Subnormal: normalize into a double (always normal there). */
        int lz = 0;
        while (!(m & (1u << mant))) {
            m <<= 1;
            lz++;
        }
        m &= (1u << mant) - 1;
        uint64_t de = (uint64_t)(1 - bias - lz + 1023);
        return plumb_f64_from_bits(sign | (de << 52) | (m << (52 - mant)));
    }
    uint64_t de = (uint64_t)((int)e - bias + 1023);
    return plumb_f64_from_bits(sign | (de << 52) | (m << (52 - mant)));
}

uint16_t plumb_f64_to_f16(double x) { return f64_to_narrow(x, 10, 5); }
uint16_t plumb_f32_to_f16(float x) { return f64_to_narrow((double)x, 10, 5); }
uint16_t plumb_f64_to_bf16(double x) { return f64_to_narrow(x, 7, 8); }
uint16_t plumb_f32_to_bf16(float x) { return f64_to_narrow((double)x, 7, 8); }
double plumb_f16_to_f64(uint16_t h) { return narrow_to_f64(h, 10, 5); }
double plumb_bf16_to_f64(uint16_t h) { return narrow_to_f64(h, 7, 8); }
/* Both widen exactly into f32; f32 <- f64 is exact for these values. */
float plumb_f16_to_f32(uint16_t h) { return (float)narrow_to_f64(h, 10, 5); }
float plumb_bf16_to_f32(uint16_t h) { return (float)narrow_to_f64(h, 7, 8); }
