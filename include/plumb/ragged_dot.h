/* chlo.ragged_dot (op set v2, docs/spec/ragged_dot.md): the verifier's
 * rules and the group layout shared by the reference (ref/ragged_dot.c) and
 * the runtime (runtime/k_ragged_dot.c), so both read group_sizes the same
 * way and differ only in how they sum. */
#ifndef PLUMB_RAGGED_DOT_H
#define PLUMB_RAGGED_DOT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "ir.h"
#include "tensor.h"

/* The three modes of upstream's checkRaggedDotConstraints (ChloOps.cpp),
 * named by what the lhs ragged dimension is. */
typedef enum {
    IR_RAGGED_NONCONTRACTING = 1,   /* [b,m,k] x [g,b,k,n] -> [b,m,n] */
    IR_RAGGED_CONTRACTING = 2,      /* [b,m,k] x [b,k,n]   -> [g,b,m,n] */
    IR_RAGGED_BATCH = 3             /* [b,m,k] x [b,k,n]   -> [b,m,n] */
} ir_ragged_mode;

/* What the attributes and operand shapes say about the groups. */
typedef struct ir_ragged_layout {
    ir_ragged_mode mode;
    int64_t ragged_dim;            /* lhs dimension cut into groups */
    int64_t group_dim;             /* rhs dimension indexed by group (mode 1), else -1 */
    int64_t n_groups;              /* g: group_sizes' last dimension */
    int64_t extent;                /* size of the ragged dimension */
    /* The lhs dimensions that index group_sizes' leading dimensions, in
     * group_sizes' order ([b..., x...]); n_prefix 0 when group_sizes has
     * rank 1 (one list of sizes used for every row: "broadcasted"). */
    uint32_t n_prefix;
    int64_t prefix[PLUMB_MAX_RANK];
} ir_ragged_layout;

/* The ragged_dot constraints (upstream's checkDotGeneralConstraints and
 * checkRaggedDotConstraints, then the inferred result type): PLUMB_OK when
 * op satisfies them (and fills *L when L is not NULL), else the error class
 * (PLUMB_ERR_INVALID, or PLUMB_ERR_UNSUPPORTED for a valid program plumb
 * does not run, such as a `?` dimension) with the rule, naming the operand
 * and dimension, written into buf. */
plumb_code ir_ragged_dot_check(const struct ir_op *op, char *buf, size_t n);

/* The same rules on concrete shapes (kernels re-check what they rely on). */
plumb_code ir_ragged_dot_layout(const ir_attrs *a, const ir_type *lhs, const ir_type *rhs, const ir_type *gs,
                                const ir_type *result, ir_ragged_layout *L, char *buf, size_t n);

/* Group g of one row of group_sizes covers the ragged indices
 * [bounds[g], bounds[g + 1]): bounds[0] = 0 and bounds[g + 1] = bounds[g] +
 * size[g], each clipped to extent (a group reaching past the dimension is
 * cut there, those after it are empty; indices past the last group belong
 * to none). row is the linear index of the prefix (0 when n_prefix is 0);
 * bounds holds n_groups + 1 entries. False, with the reason in buf, when a
 * size is negative (or above INT64_MAX in a ui64 tensor): upstream leaves
 * that undefined, plumb refuses it. */
bool ir_ragged_group_bounds(const plumb_tensor *group_sizes, uint64_t row, int64_t n_groups, int64_t extent,
                            int64_t *bounds, char *buf, size_t n);

/* True when dimension d is in the list l (the dimension numbers' lists are
 * short: a linear scan). */
bool ir_ragged_has(const ir_ints *l, int64_t d);

/* Every row of group_sizes checked as above (so a kernel can fail before
 * writing anything). */
bool ir_ragged_check_sizes(const plumb_tensor *group_sizes, char *buf, size_t n);

#endif
