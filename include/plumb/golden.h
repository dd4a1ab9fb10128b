/* Golden numerics (golden/, docs/golden.md): correctly rounded results of
 * the float ops, computed with MPFR and stored in small checksummed files
 * that a backend is checked against without MPFR.
 *
 * A .gold file (all integers little-endian):
 *   0   8  magic "PLMBGOLD"
 *   8   4  format version (PLUMB_GOLDEN_VERSION)
 *   12  4  header size in bytes (PLUMB_GOLDEN_HEADER_SIZE)
 *   16 40  op name, NUL-padded ("stablehlo.exponential"); for an entry with
 *          an attribute, the name, one space and the attribute
 *          ("stablehlo.compare LT", "stablehlo.convert f16")
 *   56  8  element type name, NUL-padded ("f32")
 *   64  4  kind: 0 elementwise, 1 sum (reduce with add), 2 dot
 *   68  4  inputs per record
 *   72  4  outputs per record (1; 2 for sum and dot: the result, then
 *          Σ|terms| rounded to the type, for the data-dependent bound)
 *   76  4  bytes per element (2, 4 or 8): the wider of the input and
 *          result types; i1 values (compare, is_finite, select's
 *          predicate) are 0 or 1, every element zero-extended
 *   80  4  record count
 *   84  4  spec CRC: CRC-32 of the manifest entry it was generated from
 *   88  4  payload CRC: CRC-32 of the bytes after the header
 *   92  4  header CRC: CRC-32 of bytes 0..91
 *   96     records: (inputs + outputs) element bit patterns each
 * CRC-32 is the IEEE/zlib one (reflected polynomial 0xEDB88320). */
#ifndef PLUMB_GOLDEN_H
#define PLUMB_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/core.h"
#include "plumb/dtype.h"
#include "plumb/ops.h"

#define PLUMB_GOLDEN_MAGIC "PLMBGOLD"
#define PLUMB_GOLDEN_VERSION 1u
#define PLUMB_GOLDEN_HEADER_SIZE 96u
#define PLUMB_GOLDEN_OP_NAME_MAX 40u
#define PLUMB_GOLDEN_DTYPE_NAME_MAX 8u

typedef enum plumb_golden_kind {
    PLUMB_GOLDEN_ELEMENTWISE = 0,
    PLUMB_GOLDEN_SUM = 1,       /* stablehlo.reduce over one row (body add, or the attribute's) */
    PLUMB_GOLDEN_DOT = 2,       /* stablehlo.dot_general (or stablehlo.dot) of two rows */
} plumb_golden_kind;

#define PLUMB_GOLDEN_ATTR_MAX 16u

/* One manifest entry: what one .gold file holds. */
typedef struct plumb_golden_spec {
    plumb_opcode op;
    plumb_dtype dtype;
    plumb_golden_kind kind;
    uint32_t length;            /* terms per sum or dot; 0 for elementwise */
    uint32_t line;              /* manifest line, for messages */
    /* The entry's attribute as the manifest writes it, "" for none
     * (docs/golden.md): compare's direction ("LT", "LT_TOTALORDER"),
     * convert's result type ("f16"), reduce_precision's format ("e5m10"),
     * reduce's body ("maximum", "minimum"; "" = add), dot_general's
     * dimension numbers ("contract0", "nobatch"; "" = batched rows). */
    char attr[PLUMB_GOLDEN_ATTR_MAX];
} plumb_golden_spec;

typedef struct plumb_golden_manifest {
    uint64_t seed;
    plumb_golden_spec *v;
    uint32_t n;
    uint32_t crc;               /* CRC-32 of the manifest text: names the suite */
} plumb_golden_manifest;

/* Reads a manifest (docs/golden.md): errors name the file and line. */
bool plumb_golden_manifest_load(const char *path, plumb_golden_manifest *m, plumb_diag *d);
void plumb_golden_manifest_free(plumb_golden_manifest *m);

/* "exponential-f32.gold", "reduce-f32-n16.gold". */
void plumb_golden_file_name(const plumb_golden_spec *s, char *buf, size_t cap);
/* CRC-32 of the canonical text of an entry under seed: a file generated
 * from another entry (or seed, or format version) is stale. */
uint32_t plumb_golden_spec_crc(uint64_t seed, const plumb_golden_spec *s);
uint32_t plumb_golden_crc32(const void *data, size_t len);

/* A loaded file. */
typedef struct plumb_golden_file {
    char op_name[PLUMB_GOLDEN_OP_NAME_MAX + 1];
    char dtype_name[PLUMB_GOLDEN_DTYPE_NAME_MAX + 1];
    plumb_opcode op;
    plumb_dtype dtype;
    plumb_golden_kind kind;
    uint32_t n_in, n_out, elem_bytes, count;
    uint32_t spec_crc;
    uint8_t *data;              /* the whole file */
    size_t size;
    char attr[PLUMB_GOLDEN_ATTR_MAX];   /* from the op name field; "" for none */
    plumb_dtype out_dtype;      /* the result's element type (dtype, i1, or convert's target) */
} plumb_golden_file;

/* Reads and validates path: magic, version, header and payload checksums,
 * sizes, op and type; when spec is given, that the file was generated from
 * it (spec CRC under seed) — else it is stale. Errors name the file and
 * the reason. */
bool plumb_golden_load(const char *path, const plumb_golden_spec *spec, uint64_t seed, plumb_golden_file *f,
                       plumb_diag *d);
void plumb_golden_file_free(plumb_golden_file *f);
/* Element j of record r (inputs first, then outputs) as a bit pattern. */
uint64_t plumb_golden_elem(const plumb_golden_file *f, uint32_t r, uint32_t j);

/* Generates the file of one entry with MPFR (golden/gen.c):
 * deterministic from (seed, spec). *out is freed with plumb_free(*out, *len). */
bool plumb_golden_generate(uint64_t seed, const plumb_golden_spec *s, uint8_t **out, size_t *len, plumb_diag *d);

#endif
