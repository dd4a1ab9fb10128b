/* CMPLX and CMPLXL (C11 7.3.9.3) for compilers whose <complex.h> lacks them:
 * glibc defines them only for GCC >= 4.7, so clang builds get none. The
 * fallback builds the value through the layout C11 6.2.5p13 guarantees (a
 * complex is an array of its real and imaginary parts), which keeps an
 * infinite or NaN part as given, unlike x + I * y. */
#ifndef PLUMB_CMPLX_COMPAT_H
#define PLUMB_CMPLX_COMPAT_H

#include <complex.h>

#ifndef CMPLX
#define CMPLX(x, y) ((union { double _Complex z; double p[2]; }){.p = {(double)(x), (double)(y)}}.z)
#endif
#ifndef CMPLXL
#define CMPLXL(x, y) \
    ((union { long double _Complex z; long double p[2]; }){.p = {(long double)(x), (long double)(y)}}.z)
#endif

#endif
