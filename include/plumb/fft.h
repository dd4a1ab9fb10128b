/* stablehlo.fft (op set v2, docs/spec/fft.md): the attribute's names, the
 * verifier's rules, and the error bound shared by the runtime's tests and
 * the conformance checker. */
#ifndef PLUMB_FFT_H
#define PLUMB_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "ir.h"

/* "FFT", "IFFT", "RFFT" or "IRFFT". */
const char *ir_fft_type_name(ir_fft_type t);

/* The fft constraints (StableHLO spec C1-C5): PLUMB_OK when op satisfies
 * them, else the error class (PLUMB_ERR_INVALID, or PLUMB_ERR_UNSUPPORTED
 * for a valid program plumb does not run) with the violated rule written
 * into buf. */
plumb_code ir_fft_check(const struct ir_op *op, char *buf, size_t n);

/* The normwise relative bound a conforming backend's transform of one
 * fft_length block must meet, ||y^ - y||_2 <= bound * ||y||_2, for element
 * (component) type precision u (2^-24 or 2^-53): Higham's Theorem 24.2
 * generalized to the mixed-radix factorization of each length, summed over
 * the transformed dimensions (docs/spec/fft.md, "Error bound"). */
double plumb_fft_bound(const int64_t *len, uint32_t n_len, ir_fft_type t, double u);

#endif
