/* chlo.zeta, chlo.polygamma and chlo.bessel_i1e correctly rounded
 * (ref/special2.c). Bit patterns of t (f16, bf16, f32, f64 or a small float
 * format: FP8/FP6/FP4/E8M0, rounded to odd at 53 bits and then once by the
 * format's codec) in and out;
 * the special values and domains are docs/spec/special2.md's. The runtime's
 * slow path (runtime/math_special2.c) calls these for the rare element its
 * long double value cannot round, as it calls MPFR for digamma. */
#ifndef PLUMB_REF_SPECIAL2_H
#define PLUMB_REF_SPECIAL2_H

#include <stdint.h>

#include "plumb/dtype.h"

uint64_t cr_zeta(plumb_dtype t, uint64_t x, uint64_t q);
uint64_t cr_polygamma(plumb_dtype t, uint64_t n, uint64_t x);
uint64_t cr_bessel_i1e(plumb_dtype t, uint64_t x);
/* Evaluations that reached the precision cap without deciding (process-wide). */
unsigned long cr_special2_undecided(void);

#endif
