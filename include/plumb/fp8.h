/* The small float formats (FP8, FP6, FP4 and E8M0) and the sub-byte
 * integers: one generic codec driven by a format descriptor
 * (docs/spec/types.md).
 *
 * Every element of these types is stored in one byte holding its bit pattern
 * in the low `bits` bits, the rest zero (like i1). */
#ifndef PLUMB_FP8_H
#define PLUMB_FP8_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"

/* How a format spends its top exponent code on non-finite values. */
typedef enum plumb_fp_nan {
    PLUMB_FPNAN_IEEE,   /* exponent all ones: mantissa 0 is +-inf, else NaN */
    PLUMB_FPNAN_FN,     /* no inf; only S.1111.111 (all ones) is NaN */
    PLUMB_FPNAN_FNUZ,   /* no inf, no -0; only 1000_0000 (the -0 code) is NaN */
    PLUMB_FPNAN_NONE,   /* every code is finite (the OCP FP6/FP4 formats) */
    PLUMB_FPNAN_E8M0,   /* exponent only, no sign, no zero: 0xFF is NaN */
} plumb_fp_nan;

typedef struct plumb_fpfmt {
    uint8_t bits;    /* total width */
    uint8_t mant;    /* explicit fraction bits */
    uint8_t expo;    /* exponent field bits */
    int16_t bias;    /* value = 2^(field - bias) * 1.f, subnormal 2^(1 - bias) * 0.f */
    plumb_fp_nan nan;
} plumb_fpfmt;

/* The descriptor of a small float type; NULL for any other type. */
const plumb_fpfmt *plumb_fpfmt_get(plumb_dtype t);
static inline bool plumb_dtype_is_small_float(plumb_dtype t) { return plumb_fpfmt_get(t) != 0; }
/* i2, i4, ui2, ui4. */
bool plumb_dtype_is_subbyte_int(plumb_dtype t);

/* The exact value of a pattern (NaN for the NaN codes). */
double plumb_small_to_f64(const plumb_fpfmt *f, uint32_t bits);
/* x rounded once to the format, to nearest with ties to even. Beyond the
 * largest finite value: +-inf where the format has it, NaN where it has only
 * NaN (not saturating, like APFloat and XLA), the largest finite value for
 * the FP6/FP4 formats that have neither (APFloat's rule). NaN becomes the
 * format's NaN (sign kept where it can be), or +0 for FP6/FP4; infinity
 * saturates for FP6/FP4. The FNUZ formats turn -0 into +0; E8M0 turns zero
 * and values below 2^-127 into 2^-127 (its smallest value, APFloat's rule
 * for a format without zero) and negative values into NaN. */
uint32_t plumb_f64_to_small(const plumb_fpfmt *f, double x);
/* The same, also telling whether a finite x rounded beyond the largest
 * finite value (literals reject that). */
uint32_t plumb_f64_to_small_ov(const plumb_fpfmt *f, double x, bool *overflowed);
/* The largest finite value of the format. */
double plumb_small_max(const plumb_fpfmt *f);
/* The NaN pattern the format produces (a valid pattern only when it has NaN). */
uint32_t plumb_small_qnan(const plumb_fpfmt *f);
bool plumb_small_is_nan(const plumb_fpfmt *f, uint32_t bits);
bool plumb_small_is_inf(const plumb_fpfmt *f, uint32_t bits);

/* A float pattern of type s converted to float type d, correctly rounded
 * in one step (at least one of them a small float format, or any pair of
 * f16/bf16/f32/f64). */
uint64_t plumb_float_convert_bits(plumb_dtype s, plumb_dtype d, uint64_t bits);

/* Element conversion (stablehlo.convert) between any two types, for the
 * pairs that involve a small float or sub-byte integer: float -> float
 * rounded once; int -> float rounded once; float -> int truncated toward
 * zero, saturated, NaN -> 0; int -> int modulo 2^w; i1 <-> numbers as 0/1
 * and x != 0. The runtime's path; the reference has its own. */
uint64_t plumb_lowp_convert_bits(plumb_dtype s, plumb_dtype d, uint64_t bits);
static inline bool plumb_dtype_is_lowp(plumb_dtype t)
{
    return plumb_fpfmt_get(t) != 0 || plumb_dtype_is_subbyte_int(t);
}

/* A sub-byte integer pattern sign- or zero-extended, and a value wrapped to
 * the type's width. */
int64_t plumb_subint_value(plumb_dtype t, uint64_t bits);
uint64_t plumb_subint_bits(plumb_dtype t, int64_t v);

#endif
