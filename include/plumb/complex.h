/* complex<f32> and complex<f64> (docs/spec/complex.md): which ops take
 * them, and the element access shared by the reference and the runtime. */
#ifndef PLUMB_COMPLEX_H
#define PLUMB_COMPLEX_H

#include <stdbool.h>
#include <stddef.h>

#include "dtype.h"
#include "ops.h"

/* True when op accepts complex element types on its primary operand
 * (the verifier's type rule). Complex stays out of the op table's masks so
 * that the generators, the fuzzer and the capability masks, which read
 * those, take complex only where they have been taught it; this list is
 * the op set's rule. */
bool ir_complex_accepts(plumb_opcode op);
/* The ops whose complex forms compute (not just move bytes): the
 * reference and the runtime hand them to their complex kernels. */
bool ir_complex_arith(plumb_opcode op);

struct ir_op;
/* True when op is one of those and reads or writes a complex value. */
bool ir_complex_kernel(const struct ir_op *op);
/* The complex-specific rules of op (complex, real, imag, and the ops whose
 * complex form differs: abs's real result, compare's EQ/NE, convert,
 * dot_general's mixed operands): NULL when they hold, else the violated
 * rule (possibly written into buf). */
const char *ir_complex_check(const struct ir_op *op, char *buf, size_t n);

/* Element i of a complex tensor's data as two doubles (exact for both
 * component types), and stored back with one rounding per component. */
static inline void plumb_complex_load(plumb_dtype t, const void *data, size_t i, double *re, double *im)
{
    if (t == PLUMB_C64) {
        const float *p = (const float *)data + 2 * i;
        *re = p[0];
        *im = p[1];
    } else {
        const double *p = (const double *)data + 2 * i;
        *re = p[0];
        *im = p[1];
    }
}

static inline void plumb_complex_store(plumb_dtype t, void *data, size_t i, double re, double im)
{
    if (t == PLUMB_C64) {
        float *p = (float *)data + 2 * i;
        p[0] = (float)re;
        p[1] = (float)im;
    } else {
        double *p = (double *)data + 2 * i;
        p[0] = re;
        p[1] = im;
    }
}

#endif
