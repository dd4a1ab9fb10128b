/* Private to the fusion pass (fusion_pass.c), the lowering of a group to
 * its step program (fusion_build.c) and the executor (fusion_exec.c): the
 * executable form of a fused group, shared by the three. */
#ifndef PLUMB_RT_FUSION_H
#define PLUMB_RT_FUSION_H

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "rt_passes.h"
#include "rt_sum.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RT_X86 1
#include "math_x16.h"
#else
#define RT_X86 0
#endif

/* Rows longer than this are not fused with their reductions: the per-row
 * buffers (a few rows' worth per thread) must stay in L2. */
#define RT_ROW_MAX 65536u
/* Rows shorter than RT_ROW_UNIT run RT_ROW_UNIT / L at a time: a per-row
 * step (layer_norm's mean, variance, + eps, rsqrt) then runs once per
 * block of rows instead of once per row, and so does each step's
 * dispatch. Longer rows run one at a time: blocks of 2 or 4 rows of 1024
 * measured slower for softmax from memory (docs/runtime-passes.md). */
#define RT_ROW_UNIT 1024u
/* and at most this many rows (the per-row operands a step reads are copied
 * aside per unit, see rows_aside) */
#define RT_RPU_MAX 64u
/* Minimum work per parallel chunk, elements: below it the fork costs more
 * than it saves. */
#define RT_FUSE_GRAIN 16384u
#define RT_MAX_VALS 4096u
/* Most ops one group takes: an op brings at most its result and three
 * operands, a reduction its operand, init and result, and a kernel holds at
 * most RT_MAX_VALS values; a longer chain is split into several groups
 * instead of the program being refused. */
#define RT_MAX_GROUP_OPS (RT_MAX_VALS / 8u)

/* Longest chain run_chain takes: layer_norm's is 3 (x * rstd * gamma + beta). */
#define RT_CHAIN_MAX 4u

/* Values a register-run loop group may have (see run_regs): its block
 * buffers live on the executing thread's stack. */
#define RT_REG_VALS 24u

/* Most steps one f16/bf16 register segment takes (fusion_build.c describes
 * the segments). */
#define RT_HSEG_MAX 16u

/* ---- the executable form ------------------------------------------------------- */

typedef enum fkind {
    FV_IN,        /* group input of the value's own space: read in place */
    FV_BCAST,     /* group input read through a broadcast: materialized */
    FV_TEMP,      /* produced in the group, used only there: a slot */
    FV_OUT,       /* produced in the group, used after it: written in place */
} fkind;

typedef struct fval {
    fkind kind;
    uint8_t space;            /* 0: S; 1: S without its last dim (row groups) */
    uint8_t es;               /* element size, bytes */
    bool invariant;           /* bcast: the same in every tile/row (materialized once per chunk) */
    uint32_t io;              /* input index (IN, BCAST) or output index (OUT) */
    int32_t slot;             /* TEMP, BCAST */
    uint32_t rank;            /* BCAST: rank of its space */
    int64_t dims[PLUMB_MAX_RANK];    /* BCAST: dims of its space */
    int64_t stride[PLUMB_MAX_RANK];  /* BCAST: source elements per step of each dim (0: broadcast) */
    const ir_op *bop;         /* BCAST of a broadcast_in_dim: the op (a dynamic group derives dims
                               * and strides from the actual operand each run) */
    bool iota;                /* BCAST of an iota: no input; the "source" is the index sequence
                               * 0, 1, 2, ... of its iota_dimension (stride 1 there, 0 elsewhere),
                               * each element generated from its index (fusion_exec.c, iota_gen) */
    plumb_dtype dtype;        /* iota: the element type the indices are converted to */
} fval;

typedef enum skind { S_EW, S_SUM32, S_SUM64, S_MAX32, S_FOLDH, S_ROWB } skind;

typedef struct fstep {
    skind kind;
    uint8_t space;            /* of the result */
    const ir_op *op;
    uint32_t n_in;
    uint32_t *in;             /* fval indices */
    uint32_t out;             /* fval index */
    uint32_t init;            /* reductions: input index of the scalar init */
    bool arith;               /* f32 add/subtract/multiply/divide: run by row_arith */
    uint8_t per_row;          /* row_arith: bit i set = operand i is one value per row (space 1) */
    bool stream;              /* the result leaves the group unread: bypass the cache (row_arith
                               * streams itself; other steps compute into stream_slot, then copy) */
    bool sqsum;               /* row groups: this f32 `a - per-row b`, the next step's square of it and
                               * the sum of that square run as one pass (run_sqsum) */
    bool expsum;              /* row groups, AVX-512: this f32 `a - per-row b`, the next step's exp of it
                               * (stored) and the sum of that exp run as one pass (run_expsum) */
    uint8_t chain;            /* row groups, AVX-512: this and the next chain-1 arith steps run as one
                               * loop, each result in registers for the next (run_chain); 0: not a head */
    uint8_t run_side;         /* a chain link after the head: the operand (0, 1) that is the previous
                               * link's result */
    uint16_t first_read;      /* bit i: operand i is a broadcast value no earlier step reads (step_ins
                               * materializes it here) */
    uint8_t hseg;             /* f16/bf16, AVX-512: this and the next hseg-1 steps run as one register
                               * segment, block by block (run_hseg); 0: not a head */
    bool hstore;              /* in a segment: the result is read after it or leaves the group (stored) */
    bool hstream;             /* in a segment: stored and read by no later step (streamed when aligned) */
    int8_t hsrc[3];           /* in a segment: per operand, the segment step (0..) whose result it is,
                               * -1 when it is read from memory */
    bool hrows;               /* row groups: a per-row f16/bf16 elementwise step (hs_rows, AVX-512) */
} fstep;

struct rt_fused {
    const ir_op *anchor;      /* op named in errors, scratch owner */
    bool rows;
    uint64_t numel;           /* elements of S */
    uint64_t row_len;         /* L (rows mode) */
    uint64_t n_rows;          /* numel / L (rows mode) */
    uint64_t rpu;             /* rows mode: rows per unit (consecutive rows run step by step
                               * together, so per-row steps run once per rpu rows); 1 else */
    uint32_t unit_es;         /* rows mode: bytes per element of S; rows per unit count bytes
                               * (RT_ROW_UNIT f32 elements) for f16/bf16 rows */
    fval *vals;
    uint32_t n_vals;
    fstep *steps;
    uint32_t n_steps;
    uint32_t n_slots;
    int32_t stream_slot;      /* loop groups: the L1 tile a streamed result is computed in; -1: none */
    size_t slot_bytes;        /* per slot, multiple of 64 */
    uint32_t pf_vals[4];      /* full-size group inputs (FV_IN of space 0) the next unit prefetches */
    uint32_t n_pf;
    bool regs;                /* loop group of regs_op's f32 ops: run_regs evaluates it a block
                               * of RG_BLOCK elements at a time at the AVX-512 level */
    /* `?` dimensions: S (or a broadcast's operand) is known only at run
     * time; numel, n_rows, row_len, rpu, slot_bytes and the broadcasts'
     * dims and strides above are then derived per run from sval's actual
     * dims (rt_fused_run), exactly as rt_fusion_build derives them from a
     * static S, so a run does what a static compile of its sizes does */
    bool dyn;
    const ir_value *sval;     /* a value of the group whose type is S */
};

/* ---- grouping -------------------------------------------------------------------- */

/* ---- grouping state (fusion_pass.c; rt_fusion_build reads it) ------------------- */

/* R_IOTA: an iota whose every consumer is in its group: never materialized,
 * its values generated per tile from the elements' coordinates. */
typedef enum mrole { R_NONE, R_EW, R_BCAST, R_REDUCE, R_ROWB, R_IOTA } mrole;

typedef struct fz {
    plumb_arena *a;
    const ir_func *f;
    uint32_t n;               /* ops */
    const ir_op **ops;        /* by position */
    int32_t *def_pos;         /* by value id: position of the defining op, -1 for arguments */
    uint32_t n_ids;
    mrole *role;              /* by position */
    int32_t *parent;          /* union-find over positions; -1: not fusible */
    uint32_t *first;          /* by root: smallest member position */
    uint32_t *nops;           /* by root: member ops */
    bool *rows;               /* by root */
    const ir_type **space;    /* by root: S */
    uint32_t *stamp;          /* DFS visit stamps, by position */
    uint32_t epoch;
    uint32_t *dep_off;        /* by position: deps[dep_off[p] .. dep_off[p + 1]) */
    int32_t *deps;            /* positions of the ops whose results op p reads (see reads_of) */
    int32_t *mnext;           /* by position: next member of its group (a circular list) */
} fz;

/* fusion_build.c: lowers the members mem[0..nm) of one group to g's fused
 * step program (false with d set when out of memory or a limit is hit). */
bool rt_fusion_build(plumb_arena *a, fz *z, const int32_t *mem, uint32_t nm, const int32_t *gid,
                     const int32_t *used_out, rt_group *g, plumb_diag *d);

/* Shared by the pass and the lowering (fusion_pass.c). */
bool rt_fusion_same_dims(const ir_type *a, const ir_type *b);
int rt_fusion_space_in(const ir_type *t, const ir_type *s, bool rows);
skind rt_fusion_row_reduce_kind(const ir_op *op);
bool rt_fusion_nomem(plumb_diag *d, const ir_func *f);
/* fusion_build.c: F's numel, rows, rows per unit and slot bytes for a space
 * of dims[0..rank) (a dynamic group calls it per run). */
void rt_fusion_extents(rt_fused *F, uint32_t rank, const int64_t *dims);

/* fusion_exec.c: whether bf16 register steps round with the AVX512-BF16
 * conversion (the CPU has it and no test turned it off); set 0 or 1 turns
 * it off or back on (on only where the CPU has it), set < 0 only asks.
 * Either way the bits are the same: tests run both. */
bool rt_hseg_bf16cvt(int set);

#endif
