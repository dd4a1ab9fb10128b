/* chlo.scan's operand layout, shared by the reference (ref/scan.c) and the
 * runtime (runtime/k_scan.c) kernels (docs/spec/control.md, "scan"), so both
 * split operands and results the same way, refuse the same malformed ops
 * with the same words and move slices along the scan dimension alike. */
#ifndef PLUMB_SCAN_H
#define PLUMB_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/ir.h"
#include "plumb/tensor.h"

/* One scan op on its run-time tensors: operands are n inputs then m inits,
 * results k outputs then m carries. */
typedef struct ir_scan {
    uint32_t n, m, k;   /* inputs, inits (= carries), outputs */
    uint32_t dim;       /* the scan dimension */
    uint64_t len;       /* positions along dim (elements) */
} ir_scan;

/* A row-major tensor seen along dimension d as [outer][len][inner]. */
typedef struct ir_scan_view {
    uint64_t outer;   /* runs before d (count) */
    uint64_t len;     /* positions along d (count) */
    uint64_t inner;   /* one position's run after d (bytes) */
} ir_scan_view;

/* Fills s from op and its tensors (in: n + m operands, out: k + m results).
 * On a body or arity that does not fit, a dimension out of range, inputs
 * and outputs of different lengths along it, or an init whose type or size
 * differs from its carry, writes why (naming the operand and dimension)
 * and returns false. */
bool ir_scan_init(ir_scan *s, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, char *why,
                  size_t why_len);

/* t seen along dimension d (d < t->rank). */
ir_scan_view ir_scan_view_of(const plumb_tensor *t, uint32_t d);

/* The slice at position pos of full, to slice (to_full false) or back
 * (to_full true): v->outer copies of v->inner bytes. */
void ir_scan_slice_copy(const ir_scan_view *v, char *full, char *slice, uint64_t pos, bool to_full);

/* t's dimensions with dimension d removed (d >= rank: none removed) into
 * dims; returns the rank left. */
uint32_t ir_scan_slice_dims(const plumb_tensor *t, uint32_t d, int64_t dims[PLUMB_MAX_RANK]);

/* What a backend's scan kernel supplies to the shared step loop
 * (ir_scan_run); each hook that fails has already reported why. */
typedef struct ir_scan_hooks {
    void *ctx;
    /* a tensor of t's element type and dimensions with dimension d
     * removed (d >= rank: none), to hold one body value; NULL on failure */
    plumb_tensor *(*slice_new)(void *ctx, const ir_op *op, const plumb_tensor *t, uint32_t d);
    /* the body on args (slices, then carries) into res (outputs' slices,
     * then new carries); false on failure */
    bool (*eval)(void *ctx, const ir_op *op, plumb_tensor **args, plumb_tensor **res);
    /* the loop is at step (timeouts and limits name it); called with
     * begin true once before the first step, and done true once after
     * the last (or a failure) to restore what begin saved */
    void (*at_step)(void *ctx, const ir_op *op, uint64_t step, bool begin, bool done);
    /* out of memory for n body values */
    void (*nomem)(void *ctx, const ir_op *op, uint32_t n);
} ir_scan_hooks;

/* Runs scan s of op (ir_scan_init's) on its tensors: the carry results
 * start as the inits; then per position (from the last when is_reverse)
 * gathers each input's slice, runs the body, scatters the outputs' slices
 * and moves the new carries into the carry results. The reference and
 * the runtime differ only in their hooks. False after a hook's failure. */
bool ir_scan_run(const ir_scan *s, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                 const ir_scan_hooks *h);

#endif
