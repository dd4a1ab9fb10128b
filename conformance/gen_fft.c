/* Values for the stablehlo.fft conformance cases (docs/spec/fft.md,
 * "Conformance"); conformance/gen.c writes the programs. Per value class,
 * every component of the operand (both parts of a complex one):
 *   normal  N(0, 1);
 *   wide    random sign, magnitude 2^e with e uniform over [-30, 30]: a
 *           block's norm is dominated by a few elements, the others lie far
 *           below it, where a normwise bound is what a backend can promise;
 *   tone    a single complex exponential exp(2 pi i f j / n) along the last
 *           dimension at a random frequency f (its real part for a real
 *           operand) plus N(0, 2^-20) noise: every bin but f cancels to the
 *           noise level. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "fft_bound.h"
#include "plumb/complex.h"

bool conf_fft_fill(const char *vc, plumb_tensor *x, gsl_rng *rng)
{
    bool cx = plumb_dtype_is_complex(x->dtype);
    plumb_dtype ct = cx ? plumb_dtype_component(x->dtype) : x->dtype;
    if (ct != PLUMB_F32 && ct != PLUMB_F64) return false;
    uint64_t n = plumb_tensor_numel(x);
    int64_t last = x->rank ? x->dims[x->rank - 1] : 1;
    double f = last ? (double)gsl_rng_uniform_int(rng, (unsigned long)(last ? last : 1)) : 0.0;
    for (uint64_t i = 0; i < n; i++) {
        double c[2];
        for (int j = 0; j < 2; j++) {
            if (!strcmp(vc, "wide")) {
                double m = ldexp(1.0 + gsl_rng_uniform(rng), (int)gsl_rng_uniform_int(rng, 61) - 30);
                c[j] = gsl_rng_uniform(rng) < 0.5 ? -m : m;
            } else if (!strcmp(vc, "tone")) {
                double ph = 2.0 * M_PI * f * (double)(i % (uint64_t)last) / (double)last;
                c[j] = (j ? sin(ph) : cos(ph)) + ldexp(gsl_ran_gaussian(rng, 1.0), -20);
            } else if (!strcmp(vc, "normal")) {
                c[j] = gsl_ran_gaussian(rng, 1.0);
            } else {
                return false;
            }
        }
        if (cx)
            plumb_complex_store(x->dtype, x->data, (size_t)i, c[0], c[1]);
        else if (ct == PLUMB_F32)
            ((float *)x->data)[i] = (float)c[0];
        else
            ((double *)x->data)[i] = c[0];
    }
    return true;
}
