/* Correctly rounded scalar math for the reference's float elementwise ops
 * (internal to ref/).
 *
 * Every function takes and returns bit patterns of one float element type
 * (PLUMB_F16, PLUMB_BF16, PLUMB_F32 or PLUMB_F64) and returns the exact
 * mathematical result rounded once, to nearest with ties to even, in that
 * type: subnormals produced and never flushed, overflow to +-inf.
 *
 * How: the result is first computed in a wider type (double with the C
 * library for f16, bf16 and f32 results; x87 long double for f64 results).
 * Its error bound gives an interval that contains the exact result; when
 * both ends round to the same value of the target type, that value is the
 * correctly rounded result. Otherwise (rare: the exact result lies close to a
 * rounding boundary of the target) it is recomputed with MPFR at the target's
 * precision and exponent range, subnormalized, in one rounding.
 *
 * NaN rule: an op with a NaN operand returns that NaN quieted (sign and
 * payload kept; of two NaN operands the first); an invalid operation on
 * non-NaN operands (log(-1), inf - inf, 0 * inf, ...) returns the default
 * NaN, positive with an empty payload (e.g. 0x7FC00000 in f32). pow(x, +-0)
 * and pow(+1, y) are 1 even for a NaN operand (IEEE 754-2019 9.2.1). */
#ifndef PLUMB_REF_CRMATH_H
#define PLUMB_REF_CRMATH_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/dtype.h"

typedef enum cr_unary_fn {
    CR_SQRT,
    CR_RSQRT,      /* 1/sqrt(x); rsqrt(+-0) = +-inf (IEEE 754-2019 rSqrt) */
    CR_CBRT,
    CR_EXP,
    CR_EXPM1,
    CR_LOG,
    CR_LOG1P,
    CR_LOGISTIC,   /* 1/(1+exp(-x)) */
    CR_TANH,
    CR_SIN,
    CR_COS,
    CR_TAN,
    CR_ERF,
    CR_ACOS,
    CR_ASIN,
    CR_ATAN,
    CR_ACOSH,
    CR_ASINH,
    CR_ATANH,
    CR_COSH,
    CR_SINH,
    CR_ERFC,
    CR_LGAMMA,     /* log|gamma(x)|; +inf at the poles (0, negative integers) */
    CR_DIGAMMA,    /* gamma'(x)/gamma(x); NaN at negative integers, -+inf at +-0 */
    CR_UNARY_COUNT
} cr_unary_fn;

typedef enum cr_binary_fn {
    CR_ADD,
    CR_SUB,
    CR_MUL,
    CR_DIV,
    CR_REM,        /* C fmod: exact, sign of the dividend */
    CR_POW,        /* C99 Annex F / IEEE 754-2019 pow, special values included */
    CR_ATAN2,      /* atan2(y = first operand, x = second operand), C99 F.9.1.4 */
    CR_BINARY_COUNT
} cr_binary_fn;

/* Names for messages and tests ("sqrt", "pow", ...). */
const char *cr_unary_name(cr_unary_fn f);
const char *cr_binary_name(cr_binary_fn f);

uint64_t cr_unary(cr_unary_fn f, plumb_dtype t, uint64_t x);
uint64_t cr_binary(cr_binary_fn f, plumb_dtype t, uint64_t a, uint64_t b);
/* erf^-1(x) correctly rounded in t (ref/special.c: decided by MPFR's erf at
 * the rounding midpoints); +-1 -> +-inf, |x| > 1 -> the default NaN. */
uint64_t cr_erf_inv(plumb_dtype t, uint64_t x);

/* ---- helpers on bit patterns of float type t ---------------------------- */
bool cr_is_nan(plumb_dtype t, uint64_t bits);
/* The NaN with its quiet bit set (sign and payload kept). */
uint64_t cr_quiet(plumb_dtype t, uint64_t bits);
/* The default NaN: positive, quiet, empty payload. */
uint64_t cr_default_nan(plumb_dtype t);
/* The exact value as a double (every f16, bf16, f32 and f64 is a double). */
double cr_to_double(plumb_dtype t, uint64_t bits);
/* Rounds a double to type t once (to nearest even; exact for f64). */
uint64_t cr_from_double(plumb_dtype t, double x);

/* ---- test hooks (per thread) ---------------------------------------------
 * cr_force_mpfr(true) skips the wide-type fast path, so tests can check the
 * MPFR path on every input; cr_mpfr_calls counts MPFR evaluations. */
void cr_force_mpfr(bool on);
uint64_t cr_mpfr_calls(void);

#endif
