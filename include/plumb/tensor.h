/* Host tensors, tensor literals (the IR's dense<...> syntax) and tensor files. */
#ifndef PLUMB_TENSOR_H
#define PLUMB_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "dtype.h"

#define PLUMB_MAX_RANK 16

/* Default cap on one tensor's byte size (16 GiB); PLUMB_MAX_BYTES in the
 * environment or the API's options change it. */
#define PLUMB_DEFAULT_MAX_BYTES (16ull << 30)

/* A dense row-major host tensor. i1 elements take one byte each (0 or 1). */
typedef struct plumb_tensor {
    plumb_dtype dtype;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];   /* elements per dimension */
    void *data;                      /* nbytes bytes; NULL when nbytes == 0 */
    size_t nbytes;                   /* bytes of data */
    bool owned;                      /* data came from plumb_malloc */
} plumb_tensor;

/* The effective per-tensor byte limit: max_bytes when nonzero, otherwise
 * PLUMB_MAX_BYTES from the environment when it holds a positive decimal byte
 * count, otherwise PLUMB_DEFAULT_MAX_BYTES. A malformed variable is ignored,
 * never read as "no limit". */
uint64_t plumb_max_bytes(uint64_t max_bytes);

/* Element count and byte size of a shape, overflow-checked: false (with d
 * set, naming the dimension) when the count or size overflows 64 bits or the
 * size exceeds max_bytes (0 = PLUMB_DEFAULT_MAX_BYTES). */
bool plumb_shape_size(plumb_dtype t, uint32_t rank, const int64_t *dims,
                      uint64_t max_bytes, uint64_t *numel, uint64_t *nbytes,
                      plumb_diag *d);

/* Allocates a zero-filled tensor (the struct and its data); NULL with d set. */
plumb_tensor *plumb_tensor_new(plumb_dtype t, uint32_t rank, const int64_t *dims,
                               uint64_t max_bytes, plumb_diag *d);
void plumb_tensor_free(plumb_tensor *t);
plumb_tensor *plumb_tensor_clone(const plumb_tensor *t, plumb_diag *d);
uint64_t plumb_tensor_numel(const plumb_tensor *t);
/* "tensor<2x3xf32>" */
void plumb_tensor_type_print(plumb_buf *b, const plumb_tensor *t);
/* Bitwise equality of type and payload. */
bool plumb_tensor_equal(const plumb_tensor *a, const plumb_tensor *b);

/* ---- literals ------------------------------------------------------------
 * The body of dense<...>: a splat scalar, nested lists, true/false, decimal
 * or hex integers, decimal floats, nan/inf spellings, hex bit patterns of
 * floats (0x7FC00000), and the raw form "0x..." (little-endian bytes of every
 * element, or of one element as a splat).
 *
 * plumb_dense_decode decodes the text between "dense<" and the matching ">"
 * into out (which has dtype, rank and dims set and data sized for them).
 * start is the location of the first byte of body, so errors point into the
 * file. Values out of range for the type are errors, never truncated. */
bool plumb_dense_decode(const char *body, size_t len, plumb_loc start,
                        plumb_tensor *out, plumb_diag *d);

/* Prints dense<...> for t: decimal (shortest round-trip for floats, hex bit
 * patterns for infinities and NaNs, which round-trip exactly), with a
 * splat when every element is bitwise equal; hex=true prints the raw
 * dense<"0x..."> form. */
void plumb_dense_print(plumb_buf *b, const plumb_tensor *t, bool hex);

/* Shortest decimal spelling that reads back to the same bits (floats). */
void plumb_float_print(plumb_buf *b, plumb_dtype t, uint64_t bits);

/* ---- tensor files ---------------------------------------------------------
 * Binary: magic "PLUMBTNS", u32 version, u32 dtype, u32 rank, u32 reserved,
 * u64 dims[rank], u64 payload bytes, payload, XXH3-64 of everything before it;
 * all little-endian. Text: `dense<...> : tensor<...>` (the IR's literal
 * syntax), detected by its first non-blank character. */
plumb_tensor *plumb_tensor_load(const char *path, uint64_t max_bytes, plumb_diag *d);
plumb_tensor *plumb_tensor_load_mem(const void *buf, size_t len, const char *name,
                                    uint64_t max_bytes, plumb_diag *d);
bool plumb_tensor_save(const char *path, const plumb_tensor *t, bool text, plumb_diag *d);
/* Serializes to memory (binary); the caller frees with plumb_free(p, *len). */
void *plumb_tensor_serialize(const plumb_tensor *t, size_t *len, plumb_diag *d);

#endif
