/* The element-type table and generic element access. The f16/bf16
 * conversions live in ir/half.c. */
#include <string.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"

const plumb_dtype_info plumb_dtype_table[PLUMB_DTYPE_COUNT] = {
#define DT(e, s, bytes, cls, bits, mant, expo) [PLUMB_##e] = {s, bytes, cls, bits, mant, expo},
#include "../ir/dtypes.def"
#undef DT
};

bool plumb_dtype_parse(const char *s, size_t len, plumb_dtype *out)
{
    for (int i = 0; i < PLUMB_DTYPE_COUNT; i++) {
        const char *n = plumb_dtype_table[i].name;
        if (strlen(n) == len && memcmp(n, s, len) == 0) {
            *out = (plumb_dtype)i;
            return true;
        }
    }
    return false;
}

uint64_t plumb_load_bits(plumb_dtype t, const void *data, size_t i)
{
    const unsigned char *p = data;
    switch (plumb_dtype_table[t].bytes) {
    case 1: return p[i];
    case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case 16: { uint64_t v; memcpy(&v, p + 16 * i, 8); return v; }   /* complex<f64>: real part */
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

void plumb_store_bits(plumb_dtype t, void *data, size_t i, uint64_t bits)
{
    unsigned char *p = data;
    switch (plumb_dtype_table[t].bytes) {
    case 1: {
        /* The sub-byte types keep their pattern in the low bits, the rest
         * zero (i1 is stored as given: 0 or 1 by its callers). */
        uint32_t w = plumb_dtype_table[t].bits;
        p[i] = (unsigned char)(w > 1 && w < 8 ? bits & ((1u << w) - 1) : bits);
        break;
    }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p + 2 * i, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p + 4 * i, &v, 4); break; }
    case 16: memcpy(p + 16 * i, &bits, 8); break;   /* complex<f64>: real part */
    default: memcpy(p + 8 * i, &bits, 8); break;
    }
}

int64_t plumb_load_i64(plumb_dtype t, const void *data, size_t i)
{
    uint64_t b = plumb_load_bits(t, data, i);
    switch (t) {
    case PLUMB_I1: return b != 0;
    case PLUMB_I8: return (int8_t)b;
    case PLUMB_I16: return (int16_t)b;
    case PLUMB_I32: return (int32_t)b;
    case PLUMB_I64: return (int64_t)b;
    case PLUMB_I2: case PLUMB_I4: return plumb_subint_value(t, b);
    default: return (int64_t)b;   /* unsigned: caller uses plumb_load_u64 for ui64 */
    }
}

uint64_t plumb_load_u64(plumb_dtype t, const void *data, size_t i)
{
    if (plumb_dtype_is_signed(t))
        return (uint64_t)plumb_load_i64(t, data, i);
    uint64_t b = plumb_load_bits(t, data, i);
    return t == PLUMB_I1 ? (b != 0) : b;
}

double plumb_load_f64(plumb_dtype t, const void *data, size_t i)
{
    uint64_t b = plumb_load_bits(t, data, i);
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)b);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)b);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)b);
    case PLUMB_F64: return plumb_f64_from_bits(b);
    case PLUMB_C64: return (double)plumb_f32_from_bits((uint32_t)b);   /* the real part */
    case PLUMB_C128: return plumb_f64_from_bits(b);
    default:
        if (plumb_fpfmt_get(t))
            return plumb_small_to_f64(plumb_fpfmt_get(t), (uint32_t)b);
        if (plumb_dtype_is_signed(t))
            return (double)plumb_load_i64(t, data, i);
        return (double)plumb_load_u64(t, data, i);
    }
}
