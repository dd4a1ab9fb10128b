/* Private interface of the runtime's math (runtime/math_*.c) beyond the f32
 * array functions declared in rt_internal.h: the double-result variants the
 * f16/bf16 kernels round once to their type, and the correctly rounded slow
 * path for the rare element whose wide result cannot decide the rounding.
 * docs/runtime-math.md has the error analysis. */
#ifndef PLUMB_RT_MATH_H
#define PLUMB_RT_MATH_H

#include <stddef.h>
#include <stdint.h>

#include "plumb/dtype.h"
#include "plumb/ops.h"
#include "plumb/runtime.h"

/* Relative error bound of every double-evaluated result (the f32 functions'
 * internal value before their one rounding, and the *_f32d variants): each
 * function's analysis in math_impl.h stays below 2^-43; 2^-40 leaves margin. */
#define RT_MATH_DERR 0x1p-40
/* The same for the C library's long double functions used for f64 results
 * (their documented errors are a few units of 2^-63). */
#define RT_MATH_LDERR 0x1p-56L

/* f32 operands (f16/bf16 widened exactly), the exact function's value in
 * double with relative error <= RT_MATH_DERR, not yet rounded. Operands
 * that are NaN give an unspecified value (callers handle them); invalid
 * operations give a NaN; infinities and signed zeros are exact. */
typedef void (*rt_vmath_f32d_fn)(const float *in, double *out, size_t n);
typedef void (*rt_vmath2_f32d_fn)(const float *a, const float *b, double *out, size_t n);
rt_vmath_f32d_fn rt_vmath_f32d(plumb_opcode op, plumb_isa isa);
rt_vmath2_f32d_fn rt_vmath2_f32d(plumb_opcode op, plumb_isa isa);   /* power, atan2 */

/* The correctly rounded result (bit pattern of t: f16, bf16, f32 or f64) of
 * op at finite or infinite non-NaN operands, with MPFR at t's precision and
 * exponent range, subnormals included. Slow (microseconds): only for the
 * elements the checks below cannot decide. */
uint64_t rt_math_slow(plumb_opcode op, plumb_dtype t, double a, double b);

/* Rounds v, an approximation of op(a, b) with relative error <= rel, once
 * to t. Where the result is subnormal, zero or at the overflow threshold
 * (there the contract wants it exact) and [v - rel|v|, v + rel|v|] holds a
 * rounding boundary of t, the result comes from rt_math_slow. Elsewhere the
 * rounded v is within 0.5 + rel * 2^p ULP of the exact value. v not NaN. */
uint64_t rt_math_narrow(plumb_opcode op, plumb_dtype t, double v, double rel, double a, double b);
/* The same for a long double approximation rounded to f64. */
uint64_t rt_math_narrow_ld(plumb_opcode op, long double v, long double rel, double a, double b);

/* chlo.erf_inv (runtime/math_erfinv.c): rt_erf_inv is the op on one
 * element of t (NaN quieted, +-0 kept, +-1 -> +-inf, |x| > 1 -> the default
 * NaN), correctly rounded: rt_erf_inv_ld's value within 2^-56 relative,
 * rt_erf_inv_slow (MPFR, 0 < a < 1) where that cannot decide. */
uint64_t rt_erf_inv(plumb_dtype t, uint64_t x);
long double rt_erf_inv_ld(long double a);
uint64_t rt_erf_inv_slow(plumb_dtype t, double a);

/* chlo.bessel_i1e (a), chlo.zeta (a = x, b = q) and chlo.polygamma (a = n,
 * b = x) on one element of t (runtime/math_special2.c): a long double value
 * rounded once where its stated bound decides, the reference's correctly
 * rounded evaluation otherwise; special values as docs/spec/special2.md. */
uint64_t rt_special2(plumb_opcode op, plumb_dtype t, uint64_t a, uint64_t b);

/* Frees the calling thread's caches of the slow path's multi-precision
 * library (constants such as pi kept per thread); the pool's worker threads
 * call it before they exit, so no cache outlives its thread. */
void rt_math_thread_done(void);

#endif
