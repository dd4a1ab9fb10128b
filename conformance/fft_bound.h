/* The agreement bound of stablehlo.fft (docs/spec/fft.md, "Error bound"),
 * used by the checker (conformance/check.c) and the runtime's tests, and
 * the values of its conformance cases (conformance/gen_fft.c). */
#ifndef PLUMB_CONF_FFT_BOUND_H
#define PLUMB_CONF_FFT_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "plumb/fft.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

/* The verdict on one output: budget is the largest ratio, over the
 * transformed blocks, of the block's error norm to its bound (> 1 fails);
 * idx is that block's first element; reason says why when the budget
 * exceeds 1 (empty otherwise). */
typedef struct conf_fft_verdict {
    double budget;
    uint64_t idx;
    char reason[400];
} conf_fft_verdict;

/* fft(x) with fft_type t and fft_length len: got (the backend's result)
 * against want (the reference's), block by block (the trailing
 * size(fft_length) dimensions): ||got - want||_2 <= (plumb_fft_bound + u) S
 * + a subnormal floor, where S is the exact transform's norm derived from
 * the input by Parseval's theorem (docs/spec/fft.md). Blocks whose input
 * holds a NaN or infinity are not judged; a block whose reference result
 * overflowed must match it in class (NaN, +inf, -inf) component by
 * component. */
void conf_fft_judge(ir_fft_type t, const ir_ints *len, const plumb_tensor *x, const plumb_tensor *got,
                    const plumb_tensor *want, conf_fft_verdict *v);

/* Fills x (the operand of an fft case, complex or real) for value class
 * vc (conformance/gen_fft.c says what each is); false for an unknown
 * class or a type other than f32/f64 and their complex types. */
bool conf_fft_fill(const char *vc, plumb_tensor *x, gsl_rng *rng);

#endif
