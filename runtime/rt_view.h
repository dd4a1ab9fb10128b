/* Views over chains of movement ops (runtime/views.c plans them,
 * runtime/k_movement.c materializes them).
 *
 * slice, concatenate, pad without interior padding, transpose,
 * broadcast_in_dim, reverse and reshape (when the strides allow) map each
 * result index to one element of an operand at an affine index, or to the
 * padding value. A chain of them therefore maps each element of its last
 * op's result to one element of the chain's inputs, piece by piece: a view
 * is a list of disjoint boxes covering the result, each read from one input
 * tensor at `off + sum_d i_d * st_d` (i the result index) or filled with a
 * padding value. A movement op whose operand is produced by another such op
 * (its only use) reads through the view instead of the materialized
 * intermediate: concatenate -> slice -> pad writes its result in one pass
 * from the concatenate's operands, where three ops wrote three results. */
#ifndef PLUMB_RT_VIEW_H
#define PLUMB_RT_VIEW_H

#include "rt_passes.h"

/* A chain whose view needs more pieces runs op by op: every piece costs a
 * test per result row. */
#define RT_VIEW_MAX_PIECES 64

typedef struct rt_view_piece {
    uint32_t leaf;                 /* value id read: the source, or the 0-d padding value (fill) */
    bool fill;
    int64_t off;                   /* element offset of result index 0 in the source */
    int64_t st[PLUMB_MAX_RANK];    /* source element stride per result dimension (0: broadcast) */
    int64_t lo[PLUMB_MAX_RANK], hi[PLUMB_MAX_RANK];   /* the box in the result, [lo, hi), not empty */
} rt_view_piece;

typedef struct rt_view {
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];  /* the result's */
    size_t es;                     /* element bytes */
    uint32_t n;                    /* pieces; 0 for an empty result */
    rt_view_piece *p;
} rt_view;

/* Merges chains of movement ops into one group each (opt_level >= 2,
 * programs without `?` dimensions): a group of a single movement op whose
 * operand is the only use of another such op's result takes that op in.
 * The merged group's ops are all the chain's ops in program order, its
 * inputs the tensors the view reads, its output the last op's result;
 * absorbed groups are left with no ops. views[g] (allocated in a, n_groups
 * entries) is the view of each merged group, NULL for the others. */
bool rt_view_plan(plumb_arena *a, const ir_func *f, uint32_t opt_level, rt_group *groups, uint32_t n_groups,
                  rt_view ***views, plumb_diag *d);

/* Writes out (a tensor of v's shape) from the tensors hdr[leaf] the pieces
 * read, every element once; root names the errors. */
bool rt_view_run(rt_exec *x, const ir_op *root, const rt_view *v, const plumb_tensor *hdr, plumb_tensor *out);

#endif
