/* Interface between the runtime pipeline (runtime/plan.c) and its graph
 * passes and fusion (runtime/passes.c, runtime/fusion_*.c). */
#ifndef PLUMB_RT_PASSES_H
#define PLUMB_RT_PASSES_H

#include "rt_internal.h"

/* Rewrites f in place. f is the entry after call inlining: one function, no
 * func.call. Every pass preserves bitwise-bounded agreement with the
 * reference (docs/runtime.md says why, pass by pass). opt_level 0 runs none. */
bool rt_run_passes(ir_module *m, ir_func *f, uint32_t opt_level, uint64_t max_bytes, plumb_diag *d);

/* Fusion partitions the ops of f (after passes) into groups executed as one
 * step each, in order. A group of one op with fused == NULL runs that op's
 * kernel (rt_op_<ENUM>). Values produced and consumed only inside a group
 * never get a buffer. */
typedef struct rt_fused rt_fused;   /* built in the arena given to rt_fuse */

typedef struct rt_group {
    const ir_op **ops;        /* the group's ops, in program order */
    uint32_t n_ops;
    ir_value **inputs;        /* values the group reads that are defined outside it */
    uint32_t n_inputs;
    ir_value **outputs;       /* values of the group used after it or returned */
    uint32_t n_outputs;
    rt_fused *fused;          /* NULL: a single op run by its kernel */
} rt_group;

/* opt_level < 2 gives one group per op. Constants, func.return and check ops
 * are never fused. */
bool rt_fuse(plumb_arena *a, const ir_func *f, uint32_t opt_level,
             rt_group **groups, uint32_t *n_groups, plumb_diag *d);

/* Runs a fused group: in[i] holds group->inputs[i], out[j] receives
 * group->outputs[j]. A group whose iteration space has a `?` dimension
 * (rt_fused_dynamic) needs space: a header holding the actual dims of
 * rt_fused_space(g) for this run; the extents, broadcast strides and
 * per-unit sizes are then derived from it (and the tensors checked against
 * it). Static groups ignore it (NULL is fine). */
bool rt_fused_run(rt_exec *x, const rt_fused *g, plumb_tensor *const *in, plumb_tensor *const *out,
                  const plumb_tensor *space);
/* A value of the group whose type is its iteration space S. */
const ir_value *rt_fused_space(const rt_fused *g);
/* S, or the operand of a broadcast the group reads, has a `?` dimension. */
bool rt_fused_dynamic(const rt_fused *g);
/* A row group: its values have S's dims or S's without the last. */
bool rt_fused_rows(const rt_fused *g);

/* Chains of f32 arithmetic steps a fused group runs as one loop each (row
 * groups, AVX-512): returns how many, *links (may be NULL) their total
 * number of steps. For tests of the planning. */
uint32_t rt_fused_chains(const rt_fused *g, uint32_t *links);

/* The group is a loop group that runs in registers at the AVX-512 level
 * (fusion_exec.c, run_regs); false for NULL. For tests of the planning. */
bool rt_fused_regs(const rt_fused *g);

/* One-pass row sums the group plans (row groups): *sqsum (x - m)^2 sums
 * (layer_norm's variance), *expsum exp(x - m) sums (softmax's
 * denominator, AVX-512). For tests of the planning. */
void rt_fused_row_passes(const rt_fused *g, uint32_t *sqsum, uint32_t *expsum);

/* f16/bf16 register segments the group plans (fusion_exec.c, run_hseg, AVX-512):
 * returns their number and sets *steps to the steps they hold. For tests
 * of the planning. */
uint32_t rt_fused_hsegs(const rt_fused *g, uint32_t *steps);

/* Whether two ops carry the same interpreted attributes, as the cache key
 * normalizes them (canon.c); CSE merges only ops for which this holds. */
bool rt_canon_attrs_same(const ir_op *x, const ir_op *y);

#endif
