/* NumPy .npy files (format versions 1.0, 2.0 and 3.0) as plumb run's
 * inputs and outputs. */
#ifndef PLUMB_CLI_NPY_H
#define PLUMB_CLI_NPY_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/core.h"
#include "plumb/tensor.h"

/* Reads a C-order array of dtype b1, i1/i2/i4/i8, u1/u2/u4/u8 or f2/f4/f8
 * (either byte order) as a tensor of i1, i8..i64, ui8..ui64, f16/f32/f64.
 * NULL with d naming the file and the reason: not a .npy file, a header
 * that does not parse, an unsupported dtype, Fortran order, a payload
 * shorter or longer than the shape needs, more than max_bytes. */
plumb_tensor *cli_npy_load(const char *path, uint64_t max_bytes, plumb_diag *d);

/* The same from memory; name is used in messages. */
plumb_tensor *cli_npy_load_mem(const unsigned char *buf, size_t len, const char *name, uint64_t max_bytes,
                               plumb_diag *d);

/* Writes t as a version 1.0 .npy file in little-endian C order; bf16 has
 * no NumPy dtype and is refused. false with d set on failure. */
bool cli_npy_save(const char *path, const plumb_tensor *t, plumb_diag *d);

#endif
