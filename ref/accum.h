/* Extra-precision accumulation for the reference's reductions and dot
 * products (internal to ref/). Every float result is produced by exactly one
 * rounding, to nearest even, from a value that is either exact or carries far
 * more precision than the target type:
 *
 *   sums, f16/bf16/f32 terms    double-double (error-free two-sum); terms and
 *                               exact products of such values are doubles
 *   sums, f64 terms              exact: an MPFR accumulator wide enough for
 *                               every double (and every product of two)
 *   products (reduce multiply)   MPFR at REF_PROD_PREC bits, unbounded exponent
 *
 * Special values are tracked apart from the finite part: any NaN, or +inf
 * together with -inf, or 0 * inf gives NaN; otherwise an infinity wins. An
 * exact zero sum is -0 only when every term was -0 (IEEE 754 round to
 * nearest), else +0. */
#ifndef PLUMB_REF_ACCUM_H
#define PLUMB_REF_ACCUM_H

#include <stdbool.h>
#include <stdint.h>

#include <mpfr.h>

#include "plumb/dtype.h"

/* Bits of the exact f64 sum accumulator: products of two doubles span
 * 2^-2148 .. 2^2048 (4196 bits), plus headroom for 2^60 carries. */
#define REF_ACC_EXACT_PREC 4300
/* Working precision of reduce-multiply chains. */
#define REF_PROD_PREC 256

typedef struct ref_acc {
    bool exact;          /* f64 terms: use m; else hi + lo */
    bool nan, pinf, ninf;
    bool all_negzero;    /* every finite term so far was -0 */
    double hi, lo;       /* double-double, |lo| <= ulp(hi)/2 */
    mpfr_t m;            /* exact accumulator (exact mode) */
    mpfr_t t;            /* scratch for exact products */
} ref_acc;

/* exact: the terms are f64 (or products of f64). Returns false only when
 * MPFR cannot allocate (it aborts then; kept for symmetry). */
void ref_acc_init(ref_acc *a, bool exact);
void ref_acc_clear(ref_acc *a);
void ref_acc_reset(ref_acc *a);
void ref_acc_add(ref_acc *a, double x);
void ref_acc_add_prod(ref_acc *a, double x, double y);
/* The sum rounded once to float type t, as t's bit pattern. */
uint64_t ref_acc_round(ref_acc *a, plumb_dtype t);

typedef struct ref_prod {
    bool nan, inf, zero, neg;
    mpfr_t m;            /* magnitude of the finite nonzero factors */
} ref_prod;

void ref_prod_init(ref_prod *p);
void ref_prod_clear(ref_prod *p);
void ref_prod_reset(ref_prod *p);
void ref_prod_mul(ref_prod *p, double x);
uint64_t ref_prod_round(ref_prod *p, plumb_dtype t);

/* Rounds x once to float type t (precision, exponent range and subnormals of
 * t, to nearest even) and returns t's bit pattern. x may be NaN or inf. */
uint64_t ref_mpfr_to_bits(mpfr_srcptr x, plumb_dtype t);

/* Error-free transformations: a + b == *s + *e exactly (finite inputs, no
 * overflow); a * b == *p + *e exactly (no overflow or underflow). */
void ref_two_sum(double a, double b, double *s, double *e);
void ref_two_prod(double a, double b, double *p, double *e);

/* A float's bit pattern from a double that t represents exactly. */
uint64_t ref_bits_from_f64(plumb_dtype t, double x);

#endif
