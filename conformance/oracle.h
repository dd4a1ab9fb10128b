/* The program-level agreement oracle: one home for holding a whole
 * program's results from a backend against the reference, used by
 * `plumb run --compare` (and plumb bench through it), and for checking one
 * op on a backend's own operands, used by `plumb run --compare --localize`
 * and `plumb fuzz`. No global tolerance anywhere: exact ops bitwise, ULP
 * ops within the op table's bound, sums and dots within their
 * data-dependent bound, NaN classes explicit (docs/conformance.md). */
#ifndef PLUMB_CONF_ORACLE_H
#define PLUMB_CONF_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "certify.h"
#include "conf.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/tensor.h"

/* Where the verdict lines go: text lines on out, or with json one JSON
 * object per line instead. other names the backend in messages ("the
 * runtime", a plugin's path). */
typedef struct conf_oracle_out {
    FILE *out;
    bool json;
    const char *other;
} conf_oracle_out;

/* Compares the results got of the entry f of m run on ins with the
 * reference's want, one verdict per result: bit-exact for exact ops, the op
 * table's ULP bound for one elementwise op on exactly computed operands,
 * the data-dependent bound for a sum or dot over inputs, "composite"
 * (reported, not bounded) otherwise. ro gives the limits of the one extra
 * reference run (on |inputs|) that bounds sums and dots. Returns how many
 * results are outside their bound, -1 when they cannot be compared (out of
 * memory, a malformed return, another result count; said on stderr after
 * "plumb CMD: "); *worst (may be NULL) gets the largest bounded fraction. */
int conf_oracle_compare(const conf_oracle_out *o, const char *cmd, const ir_module *m, const ir_func *f,
                        plumb_tensor *const *ins, uint32_t n_ins, const plumb_ref_options *ro,
                        plumb_tensor *const *want, uint32_t n_want, plumb_tensor *const *got, uint32_t n_got,
                        double *worst);

/* One op checked on a backend's own operands. */
typedef struct conf_oracle_op {
    plumb_opcode op;
    plumb_dtype dtype;          /* the type its bound is read for (its first data operand's) */
    const char *program;        /* the op alone: @main taking its operands, returning its results */
    plumb_tensor *const *ins;   /* the backend's operands of the op, in operand order */
    uint32_t n_ins;
    plumb_tensor *const *got;   /* the backend's results of the op */
    uint32_t n_got;
    const char *id;             /* names the op in the checker's messages ("%v3", "%5") */
} conf_oracle_op;

/* Re-evaluates one op on the reference from the backend's own operands and
 * checks the backend's results against it (conf_check_case under the
 * declared capabilities caps, NULL = none declared): bounds never
 * compound through a chain. False with d set when the checker could not
 * run; else r holds the verdict. */
bool conf_oracle_check_op(const conf_oracle_op *c, const conf_caps *caps, conf_result *r, plumb_diag *d);

/* The element type op is judged by: its first data operand's (select's
 * and clamp's operand 1; ops without data operands, dynamic_iota and
 * rng_bit_generator, their data result's). */
plumb_dtype conf_oracle_primary(const ir_op *op);

/* Runs a module's entry on the backend under test: results in res. */
typedef bool (*conf_oracle_run_fn)(void *ctx, const ir_module *m, const char *entry, plumb_tensor *const *ins,
                                   uint32_t n_ins, plumb_ref_result *res, plumb_diag *d);

typedef struct conf_oracle_local {
    uint32_t ops;               /* ops of the entry's body checked */
    uint32_t failed;            /* of those, outside their bound */
    uint32_t unchecked;         /* ops that cannot be checked alone (calls, captured values) */
    char first[512];            /* the first failing op: "%3 = stablehlo.sine (prog.mlir:4:10): ..." */
} conf_oracle_local;

/* Localization: runs a copy of the entry f of m that returns every
 * intermediate (every result of every op of its body) on the backend
 * (run, ctx), then re-evaluates each op on the reference from the backend's
 * own operands (conf_oracle_check_op) and prints one verdict per op naming
 * it and its location, so a failure names the op that caused it, never a
 * later one fed its wrong value. False with d set when the copy cannot be
 * built or the backend fails to run it. */
bool conf_oracle_localize(const conf_oracle_out *o, const ir_module *m, const ir_func *f,
                          plumb_tensor *const *ins, uint32_t n_ins, uint64_t max_bytes, const conf_caps *caps,
                          conf_oracle_run_fn run, void *ctx, conf_oracle_local *res, plumb_diag *d);

#endif
