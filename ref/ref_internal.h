/* Internal interface between the reference interpreter (ref/interp.c) and
 * its kernels. One kernel per row of ir/ops.def, named ref_op_<ENUM>; the
 * dispatch table in ref/interp.c is generated from the same rows, so a
 * missing kernel is a link error. */
#ifndef PLUMB_REF_INTERNAL_H
#define PLUMB_REF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

typedef struct ref_ctx ref_ctx;

/* A kernel reads in[0..op->n_operands) and writes out[0..op->n_results),
 * which the interpreter has allocated (zero-filled) with the op's result
 * types. It returns false only after ref_fail (or a callee) set the error. */
typedef bool (*ref_kernel_fn)(ref_ctx *c, const ir_op *op,
                              plumb_tensor *const *in, plumb_tensor *const *out);

#define OP(e, name, arity, nres, kind, types, agree, ulp, ulph, syn) \
    bool ref_op_##e(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);
#include "../ir/ops.def"
#undef OP

/* Sets the run's error, naming op (name and source location) and the message;
 * returns false so kernels can `return ref_fail(...)`. */
bool ref_fail(ref_ctx *c, const ir_op *op, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Evaluates a single-block region (reduce body, sort comparator, scatter
 * update) on args (one tensor per block argument, typically scalars) and
 * writes the values of its stablehlo.return into results, which the caller
 * allocated with the returned types. */
bool ref_eval_region(ref_ctx *c, const ir_block *region,
                     plumb_tensor *const *args, plumb_tensor *const *results);

/* Calls function f with inputs; results are allocated by the callee and
 * owned by the caller (plumb_tensor_free each). */
bool ref_call(ref_ctx *c, const ir_op *site, const ir_func *f,
              plumb_tensor *const *inputs, plumb_tensor **results);

/* False (with a timeout error naming op) once the deadline has passed.
 * Long kernels call it every few thousand elements. */
bool ref_poll(ref_ctx *c, const ir_op *op);

/* Charges units of work (about one element read or written, or one op or
 * region evaluation entered) to the run's single work counter and reads the
 * clock each time 2^16 units have been charged; false (with the timeout
 * error naming op) once the deadline has passed. The interpreter charges
 * every op for the elements it reads and writes; kernels whose work grows
 * faster than that (dot, top_k) charge the difference themselves. */
bool ref_work(ref_ctx *c, const ir_op *op, uint64_t units);

/* One unit of a kernel's inner loop, charged to ref_work 256 at a time
 * (*work counts the units; the kernel charges what is left when it ends):
 * false once the deadline has passed, as ref_work. */
static inline bool ref_work_step(ref_ctx *c, const ir_op *op, uint64_t *work)
{
    return (++*work & 255) != 0 || ref_work(c, op, 256);
}

/* Allocates a zero-filled tensor of type t (static dims), honoring the
 * run's memory limit; NULL after setting the error. */
plumb_tensor *ref_tensor_new(ref_ctx *c, const ir_op *op, const ir_type *t);
uint64_t ref_max_bytes(const ref_ctx *c);
/* Names the innermost running while loop (op, iterations completed) for
 * the timeout message; the previous one is returned through prev_* (when
 * not NULL) for the loop to restore when it ends. */
void ref_loop_set(ref_ctx *c, const ir_op *op, uint64_t iter, const ir_op **prev_op, uint64_t *prev_iter);
/* Where check kernels describe failures, and how many mismatches they print. */
FILE *ref_check_log(const ref_ctx *c);
uint32_t ref_max_mismatches(const ref_ctx *c);
/* Records one executed check and whether it passed. */
void ref_count_check(ref_ctx *c, bool passed);
/* The module being run (for its filename in check reports). */
const ir_module *ref_module(const ref_ctx *c);

/* Element comparisons of the check kernels (ref/check.c), on raw bit
 * patterns of dtype t; exposed for tests. */
bool ref_float_is_nan(plumb_dtype t, uint64_t bits);
/* Distance on the ordered integer line of float bit patterns (not NaNs). */
uint64_t ref_ulp_distance(plumb_dtype t, uint64_t a, uint64_t b);
/* expect_almost_eq's element test with StableHLO's definition. */
bool ref_almost_eq(plumb_dtype t, uint64_t got, uint64_t want, double tolerance);

/* Runs one op of m on its own (refinement's constant folding): in[i] are
 * its operands' tensors (the caller's), out[j] receive new result tensors
 * the caller frees. Not for func.call or the returns. False with d set. */
bool ref_fold_op(const ir_module *m, const ir_op *op, plumb_tensor *const *in, plumb_tensor **out,
                 uint64_t max_bytes, plumb_diag *d);

/* Row-major index helpers. */
static inline void ref_unravel(uint64_t lin, uint32_t rank, const int64_t *dims, int64_t *idx)
{
    for (uint32_t i = rank; i-- > 0;) {
        int64_t d = dims[i];
        idx[i] = d ? (int64_t)(lin % (uint64_t)d) : 0;
        lin = d ? lin / (uint64_t)d : 0;
    }
}

static inline uint64_t ref_ravel(uint32_t rank, const int64_t *dims, const int64_t *idx)
{
    uint64_t lin = 0;
    for (uint32_t i = 0; i < rank; i++)
        lin = lin * (uint64_t)dims[i] + (uint64_t)idx[i];
    return lin;
}

#endif
