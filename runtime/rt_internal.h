/* Internal interface of the compiled runtime, between the pipeline
 * (runtime/runtime.c, canon, cache, passes, plan, executor) and the kernels.
 *
 * Kernels: one per row of ir/ops.def, named rt_op_<ENUM>, so the dispatch
 * table generated from the rows fails to link when one is missing. A kernel
 * reads in[0..op->n_operands) and writes EVERY element of
 * out[0..op->n_results): outputs are planned buffers reused across runs, not
 * zero-filled. Inputs are read-only. Kernels never include ref/; every fast
 * path is tested against the reference (tests/runtime/). */
#ifndef PLUMB_RT_INTERNAL_H
#define PLUMB_RT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/ir.h"
#include "plumb/runtime.h"

typedef struct rt_exec rt_exec;

typedef bool (*rt_kernel_fn)(rt_exec *x, const ir_op *op,
                             plumb_tensor *const *in, plumb_tensor *const *out);

#define OP(e, name, arity, nres, kind, types, agree, ulp, ulph, syn) \
    bool rt_op_##e(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);
#include "../ir/ops.def"
#undef OP

/* ---- execution context (runtime/exec.c) -------------------------------------- */

/* Sets the run's error naming op (name, location) and returns false. */
bool rt_fail(rt_exec *x, const ir_op *op, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The instruction-set level kernels must use for this run (never AUTO). */
plumb_isa rt_isa(const rt_exec *x);

/* Runs fn over [0, n) split into contiguous chunks on the runtime's thread
 * pool. The split depends only on n, grain and the pool's configured thread
 * count — never on timing — so a kernel that reduces per chunk and combines
 * chunk results in chunk order is deterministic run to run. fn receives
 * [begin, end) and the chunk index. grain = minimum elements per chunk. */
typedef void (*rt_range_fn)(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk);
void rt_parallel_for(rt_exec *x, uint64_t n, uint64_t grain, rt_range_fn fn, void *ctx);
/* The number of chunks rt_parallel_for will use for (n, grain), so callers
 * can size per-chunk partial results before the call. */
uint32_t rt_parallel_chunks(const rt_exec *x, uint64_t n, uint64_t grain);

/* Scratch memory valid until the kernel returns (per run arena); NULL after
 * setting the error on overflow/limit/allocation failure. 64-byte aligned. */
void *rt_scratch(rt_exec *x, const ir_op *op, size_t bytes);

/* Evaluates a single-block region (reduce body, sort comparator, scatter
 * update) on scalar tensors, like the reference does; for bodies the kernels
 * do not recognise. results are preallocated by the caller; NULL leaves the
 * returned values where rt_region_value finds them (an if/case branch whose
 * results are sized only once it has run, runtime/plan.c). */
bool rt_eval_region(rt_exec *x, const ir_block *region,
                    plumb_tensor *const *args, plumb_tensor *const *results);
/* The tensor a value has during and after region evaluation: one the
 * region defined (kept until the region runs again) or a captured value of
 * the function body; NULL if it has none. */
const plumb_tensor *rt_region_value(rt_exec *x, const ir_value *v);

/* Where check ops describe failures; counts a check and its outcome. */
FILE *rt_check_log(const rt_exec *x);
void rt_count_check(rt_exec *x, bool passed);
const ir_module *rt_module(const rt_exec *x);

/* ---- elementwise tiles (runtime/k_elementwise.c) -----------------------------
 * The fused executor runs a chain of elementwise ops tile by tile (tiles of
 * RT_TILE elements stay in L1), calling this per op per tile: n contiguous
 * elements of each operand in[i] (types from op's operands) into out
 * (op's result type). Same results, bit for bit, as rt_op_<op> on the whole
 * tensor. Returns false only for an op it does not handle. */
#define RT_TILE 1024
bool rt_ew_tile(rt_exec *x, const ir_op *op, const void *const *in, void *out, size_t n);
/* True when rt_ew_tile handles op (elementwise ops, all element types). */
bool rt_ew_supported(const ir_op *op);

/* ---- vectorized elementwise loops (runtime/k_ew_*.c) -------------------------
 * The element engine of k_elementwise.c offers every elementwise op over n
 * contiguous elements without broadcast operands to these first; each
 * returns false for (op, types, isa) it does not handle, and the engine then
 * runs its per-element path. A loop that handles an op gives the engine's
 * bits exactly (the reference's rules: IEEE results, NaN operands quieted
 * with the first operand's NaN winning, integer wrap-around and the
 * division-by-zero values of docs/spec). */
typedef struct rt_ew_args {
    const ir_op *op;          /* attributes (comparison direction, ...) */
    plumb_opcode code;
    plumb_isa isa;            /* kernel level chosen for the run */
    plumb_dtype t;            /* element type of the primary operand */
    plumb_dtype rt;           /* element type of the result */
    uint32_t n_in;
    const void *in[3];        /* operand k's first element */
    void *out;                /* the result's first element */
    size_t n;                 /* elements */
} rt_ew_args;
bool rt_ew_half(const rt_ew_args *a);    /* k_ew_half.c: f16, bf16 */
bool rt_ew_int(const rt_ew_args *a);     /* k_ew_int.c: integer and i1 types */
/* chlo.mulhi of one element pair of integer type t (bit patterns), as
 * ref/elementwise.c: the high half of the double-width product. */
uint64_t rt_mulhi(plumb_dtype t, uint64_t a, uint64_t b);
bool rt_ew_float(const rt_ew_args *a);   /* k_ew_float.c: f32 ops outside the vector math, f64 */
bool rt_ew_convert(const rt_ew_args *a); /* k_ew_convert.c: convert between element types */

/* ---- row reductions (runtime/k_reduce.c) -------------------------------------
 * Deterministic reductions of n contiguous f32/f64 values, used by reduce
 * kernels and fused softmax/layer_norm rows. The order of accumulation is a
 * fixed function of n. isa is the run's kernel level: the loops used are
 * capped by it (a forced lower level runs no wider code), so the fused rows
 * take the same loops as the reduce kernel of the same run. */
float rt_sum_f32(const float *v, size_t n, plumb_isa isa);
float rt_max_f32(const float *v, size_t n, plumb_isa isa);   /* IEEE maximum: NaN propagates, -0 < +0 */
double rt_sum_f64(const double *v, size_t n, plumb_isa isa);
/* One row of an f16/bf16 reduce with an add, maximum or minimum body from
 * init: the reduce kernel's bits (fused row groups of half types). */
uint16_t rt_fold_half_row(plumb_dtype t, plumb_opcode body, const uint16_t *v, size_t n, uint16_t init,
                          plumb_isa isa);

/* ---- GEMM (runtime/k_gemm.c) ---------------------------------------------------
 * C[m x n] = A[m x k] * B[k x n] with row strides lda, ldb, ldc (elements);
 * accumulates in f32 (f32, bf16, f16 inputs) or f64; overwrites C. */
void rt_gemm_f32(rt_exec *x, size_t m, size_t n, size_t k,
                 const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc);
void rt_gemm_f64(rt_exec *x, size_t m, size_t n, size_t k,
                 const double *a, size_t lda, const double *b, size_t ldb, double *c, size_t ldc);
void rt_gemm_bf16(rt_exec *x, size_t m, size_t n, size_t k,
                  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc);
/* The in-place path for a small f32 product (k_gemm.c, "small products"),
 * on the calling thread: the bits of rt_gemm_f32. False, with nothing
 * written, when the path does not apply (level, sizes, an empty side). For
 * callers that spread many small products over the threads themselves.
 * *nonfinite is set when some element of C may be NaN or infinite (false:
 * none is). */
bool rt_gemm_f32_small(plumb_isa isa, size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                       size_t ldb, float *c, size_t ldc, bool *nonfinite);
void rt_gemm_f16(rt_exec *x, size_t m, size_t n, size_t k,
                 const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float *c, size_t ldc);

/* ---- vector math (runtime/math_*.c) -------------------------------------------
 * f32 transcendental functions over arrays, within the op table's bounds of
 * the correctly rounded result (docs/runtime-math.md has the exhaustively
 * measured worst errors), special values exact, subnormals kept. */
typedef void (*rt_vmath_f32_fn)(const float *in, float *out, size_t n);
/* The implementation of a unary float op for the given ISA, or NULL. */
rt_vmath_f32_fn rt_vmath_f32(plumb_opcode op, plumb_isa isa);
typedef void (*rt_vmath2_f32_fn)(const float *a, const float *b, float *out, size_t n);
rt_vmath2_f32_fn rt_vmath2_f32(plumb_opcode op, plumb_isa isa);   /* power, atan2 */

/* CPU features the kernels may use (runtime/cpu.c); part of the cache key. */
plumb_isa rt_cpu_best_isa(void);
const char *rt_isa_name(plumb_isa isa);

#endif
