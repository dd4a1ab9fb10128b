/* The reference interpreter: the executable form of docs/spec.md. */
#ifndef PLUMB_REF_H
#define PLUMB_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "ir.h"
#include "tensor.h"

typedef struct plumb_ref_options {
    size_t struct_size;       /* sizeof(plumb_ref_options) */
    uint64_t max_bytes;       /* per-tensor limit; 0 = ir_max_bytes(0) */
    double timeout_s;         /* wall-clock limit in seconds; 0 = none */
    FILE *check_log;          /* where failing checks are described; NULL = stderr */
    uint32_t max_mismatches;  /* mismatching elements printed per failing check; 0 = 5 */
} plumb_ref_options;

typedef struct plumb_ref_result {
    plumb_tensor **outputs;   /* the entry's results, owned: plumb_ref_result_free */
    uint32_t n_outputs;
    uint32_t checks_run;      /* check ops executed */
    uint32_t checks_failed;   /* of those, how many failed */
} plumb_ref_result;

/* Runs function `entry` (NULL = "main") of a verified module on inputs that
 * match its parameters. Returns false with d set on an error (bad inputs,
 * limits, timeout, allocation failure); a failing check is not an error: it
 * is counted in res->checks_failed and described on opts->check_log. */
bool plumb_ref_run(const ir_module *m, const char *entry,
                   plumb_tensor *const *inputs, uint32_t n_inputs,
                   const plumb_ref_options *opts, plumb_ref_result *res, plumb_diag *d);
void plumb_ref_result_free(plumb_ref_result *res);

/* Shape refinement (StableHLO's refine-shapes): a new verified module in
 * which function `entry` (NULL = "main") has the static parameter types
 * arg_types[0..n_args) (each must fit the declared type: same element type
 * and rank, static dims equal, `?` dims within their bound), every `?` is
 * replaced by its concrete size, get_dimension_size is folded to a
 * constant, and each dynamic_* op whose shape operands fold to constants
 * (evaluated with the reference on the constant subgraph) is replaced by
 * its static counterpart (broadcast_in_dim, reshape, iota, slice, pad,
 * gather). Functions the entry calls are specialized too, each to the
 * argument types it is called with (a function called with two different
 * signatures, or recursively, is PLUMB_ERR_UNSUPPORTED); functions it does
 * not reach are dropped.
 * A shape operand that depends on a parameter's value cannot be refined:
 * the error names the op and the operand. The result is owned by the
 * caller (ir_module_free); the input module is not changed. NULL with d
 * set on error. max_bytes limits every tensor (0 = ir_max_bytes(0)). */
ir_module *plumb_ref_refine(const ir_module *m, const char *entry, const ir_type *arg_types,
                            uint32_t n_args, uint64_t max_bytes, plumb_diag *d);
/* The same with some parameters' values fixed as well: arg_values (NULL,
 * or one entry per parameter, NULL for "unknown") gives tensors of exactly
 * arg_types[i]'s type. The parameters stay in the signature (callers still
 * pass them), but shape operands computed from them fold, which is what
 * JAX's exports that take each dimension size as a leading scalar
 * parameter need; a shape_assertion relating such a value to a shape is
 * evaluated, and fails refinement when they disagree. */
ir_module *plumb_ref_refine_values(const ir_module *m, const char *entry, const ir_type *arg_types,
                                   plumb_tensor *const *arg_values, uint32_t n_args, uint64_t max_bytes,
                                   plumb_diag *d);

#endif
