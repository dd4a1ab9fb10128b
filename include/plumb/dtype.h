/* Element types, generated from ir/dtypes.def, and the software f16/bf16
 * conversions. */
#ifndef PLUMB_DTYPE_H
#define PLUMB_DTYPE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum plumb_dclass {
    PLUMB_DC_BOOL,
    PLUMB_DC_SINT,
    PLUMB_DC_UINT,
    PLUMB_DC_FLOAT,
    PLUMB_DC_COMPLEX,   /* two float components, real first (docs/spec/complex.md) */
} plumb_dclass;

typedef enum plumb_dtype {
#define DT(e, s, bytes, cls, bits, mant, expo) PLUMB_##e,
#include "../../ir/dtypes.def"
#undef DT
    PLUMB_DTYPE_COUNT
} plumb_dtype;

static_assert(PLUMB_DTYPE_COUNT == 30, "ir/dtypes.def changed: update the tables that depend on it");

typedef struct plumb_dtype_info {
    const char *name;       /* StableHLO spelling, e.g. "bf16" */
    uint32_t bytes;         /* storage bytes per element */
    plumb_dclass cls;
    uint32_t bits;          /* value width in bits */
    uint32_t mant_bits;     /* explicit fraction bits (floats) */
    uint32_t exp_bits;      /* exponent field bits (floats) */
} plumb_dtype_info;

extern const plumb_dtype_info plumb_dtype_table[PLUMB_DTYPE_COUNT];

static inline const plumb_dtype_info *plumb_dtype_get(plumb_dtype t) { return &plumb_dtype_table[t]; }
static inline const char *plumb_dtype_name(plumb_dtype t) { return plumb_dtype_table[t].name; }
static inline size_t plumb_dtype_size(plumb_dtype t) { return plumb_dtype_table[t].bytes; }
static inline bool plumb_dtype_is_float(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_FLOAT; }
static inline bool plumb_dtype_is_int(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_SINT || plumb_dtype_table[t].cls == PLUMB_DC_UINT; }
static inline bool plumb_dtype_is_signed(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_SINT; }
static inline bool plumb_dtype_is_unsigned(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_UINT; }
static inline bool plumb_dtype_is_bool(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_BOOL; }
static inline bool plumb_dtype_is_complex(plumb_dtype t) { return plumb_dtype_table[t].cls == PLUMB_DC_COMPLEX; }
/* The component type of a complex type (f32 or f64); t itself otherwise. */
static inline plumb_dtype plumb_dtype_component(plumb_dtype t)
{
    return t == PLUMB_C64 ? PLUMB_F32 : t == PLUMB_C128 ? PLUMB_F64 : t;
}
/* The complex type whose components are t (f32 or f64); false otherwise. */
static inline bool plumb_dtype_complex_of(plumb_dtype t, plumb_dtype *out)
{
    if (t != PLUMB_F32 && t != PLUMB_F64)
        return false;
    *out = t == PLUMB_F32 ? PLUMB_C64 : PLUMB_C128;
    return true;
}

/* Parses a spelling of exactly len bytes; false if it is not one. */
bool plumb_dtype_parse(const char *s, size_t len, plumb_dtype *out);

/* ---- f16 (IEEE binary16) and bf16 (bfloat16) ------------------------------
 * Stored as their 16-bit patterns. Narrowing rounds to nearest, ties to even,
 * produces subnormals, overflows to +-inf and keeps NaN a NaN (quiet bit set,
 * sign and the top payload bits kept). f64 -> f16/bf16 rounds once, directly
 * from the double, never through f32. Widening is exact. */
uint16_t plumb_f32_to_f16(float x);
uint16_t plumb_f64_to_f16(double x);
float plumb_f16_to_f32(uint16_t h);
double plumb_f16_to_f64(uint16_t h);
uint16_t plumb_f32_to_bf16(float x);
uint16_t plumb_f64_to_bf16(double x);
float plumb_bf16_to_f32(uint16_t h);
double plumb_bf16_to_f64(uint16_t h);

/* Bit-pattern helpers. */
static inline uint32_t plumb_f32_bits(float f) { union { float f; uint32_t u; } c; c.f = f; return c.u; }
static inline float plumb_f32_from_bits(uint32_t u) { union { float f; uint32_t u; } c; c.u = u; return c.f; }
static inline uint64_t plumb_f64_bits(double f) { union { double f; uint64_t u; } c; c.f = f; return c.u; }
static inline double plumb_f64_from_bits(uint64_t u) { union { double f; uint64_t u; } c; c.u = u; return c.f; }

/* Reads element i of a buffer of dtype t as a double (exact for every float
 * type and for integers up to 2^53; i1 reads as 0 or 1) and as integers.
 * Used by printers, checkers and tests, not by fast paths. */
double plumb_load_f64(plumb_dtype t, const void *data, size_t i);
int64_t plumb_load_i64(plumb_dtype t, const void *data, size_t i);     /* ints, i1 */
uint64_t plumb_load_u64(plumb_dtype t, const void *data, size_t i);    /* ints, i1 */
/* The raw bit pattern of element i, zero-extended. complex<f32> is read and
 * written whole (real part in the low 32 bits); complex<f64> holds 128 bits,
 * so these reach only its real part: complex code uses the component type
 * (plumb_dtype_component) at index 2i and 2i+1 instead. plumb_load_f64 of a
 * complex element is its real part. */
uint64_t plumb_load_bits(plumb_dtype t, const void *data, size_t i);
void plumb_store_bits(plumb_dtype t, void *data, size_t i, uint64_t bits);

#endif
