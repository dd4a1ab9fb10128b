/* Fusion: partitions a function's ops into groups executed as one step each,
 * and runs fused groups tile by tile (or row by row) so that intermediates
 * stay in L1. docs/runtime-passes.md describes the grouping rules and why
 * fused results are bitwise identical to unfused ones.
 *
 * A fused group has one iteration space S (static dims). Members:
 *   EW     an op rt_ew_tile handles, result shape S (or, in a row group,
 *          S without its last dimension: one value per row);
 *   BCAST  broadcast_in_dim of a value defined outside the group: never
 *          materialized as a tensor, but per tile by index arithmetic;
 *   REDUCE reduce over the last dimension of S with an add (f32, f64) or
 *          maximum (f32) body: makes the group a row group;
 *   ROWB   broadcast_in_dim of a per-row value back along the rows.
 * A loop group runs tiles of RT_TILE elements of S; a row group runs whole
 * rows (length L = last dim of S), so softmax and layer_norm read their input
 * once and write their output once. */
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

typedef enum mrole { R_NONE, R_EW, R_BCAST, R_REDUCE, R_ROWB } mrole;

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
     * dims (rt_fused_run), exactly as build_fused derives them from a
     * static S, so a run does what a static compile of its sizes does */
    bool dyn;
    const ir_value *sval;     /* a value of the group whose type is S */
};

/* ---- grouping -------------------------------------------------------------------- */

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

static int32_t find(fz *z, int32_t p)
{
    while (z->parent[p] != p) {
        z->parent[p] = z->parent[z->parent[p]];
        p = z->parent[p];
    }
    return p;
}

static int32_t group_of_value(fz *z, const ir_value *v)
{
    if (v->id >= z->n_ids || z->def_pos[v->id] < 0)
        return -1;
    int32_t p = z->def_pos[v->id];
    return z->parent[p] < 0 ? -1 : find(z, p);
}

static bool dims_eq(const ir_type *a, uint32_t rank, const int64_t *dims)
{
    if (a->rank != rank)
        return false;
    for (uint32_t i = 0; i < rank; i++)
        if (a->dims[i] != dims[i])
            return false;
    return true;
}

static bool same_dims(const ir_type *a, const ir_type *b) { return dims_eq(a, b->rank, b->dims); }

/* The space (0 or 1) v's type has in a group of space S, or -1. */
static int space_in(const ir_type *t, const ir_type *s, bool rows)
{
    if (same_dims(t, s))
        return 0;
    if (rows && s->rank >= 1 && dims_eq(t, s->rank - 1, s->dims))
        return 1;
    return -1;
}

/* stablehlo.reduce over the last dimension with body add (f32, f64) or
 * maximum (f32) of its two arguments. */
static skind row_reduce_kind(const ir_op *op)
{
    if (op->code != PLUMB_OP_REDUCE || op->n_operands != 2 || op->n_results != 1 || op->n_regions != 1)
        return S_EW;
    const ir_type *t = &op->operands[0]->type;
    if (t->rank < 1 || op->a.dims.n != 1 || op->a.dims.v[0] != (int64_t)t->rank - 1 ||
        op->operands[1]->type.rank != 0)
        return S_EW;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 || b->n_ops != 2)
        return S_EW;
    const ir_op *x = b->first, *ret = x->next;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || ret->operands[0] != x->results[0] ||
        x->n_operands != 2)
        return S_EW;
    bool args = (x->operands[0] == b->args[0] && x->operands[1] == b->args[1]) ||
                (x->operands[0] == b->args[1] && x->operands[1] == b->args[0]);
    if (!args || b->args[0]->type.rank != 0 || b->args[1]->type.rank != 0 ||
        b->args[0]->type.dtype != t->dtype || b->args[1]->type.dtype != t->dtype ||
        x->results[0]->type.dtype != t->dtype || x->results[0]->type.rank != 0)
        return S_EW;
    /* Sums fuse only from a zero init: then init + rt_sum(row) rounds
     * exactly like the reduce kernel's single rounding of init + sum. */
    if (x->code == PLUMB_OP_ADD && (t->dtype == PLUMB_F32 || t->dtype == PLUMB_F64)) {
        const ir_value *iv = op->operands[1];
        if (!iv->def || iv->def->code != PLUMB_OP_CONSTANT || !iv->def->a.value)
            return S_EW;
        uint64_t bits = plumb_load_bits(t->dtype, iv->def->a.value->data, 0);
        uint64_t mag = t->dtype == PLUMB_F32 ? (bits & 0x7fffffffu) : (bits & 0x7fffffffffffffffull);
        if (t->dtype == PLUMB_F32 && mag == 0)
            return S_SUM32;
        if (t->dtype == PLUMB_F64)
            return S_SUM64;
        return S_EW;
    }
    if (x->code == PLUMB_OP_MAXIMUM && t->dtype == PLUMB_F32)
        return S_MAX32;
    /* f16/bf16 sums from any init, maxima and minima: rt_fold_half_row
     * gives the reduce kernel's bits for one row */
    if ((t->dtype == PLUMB_F16 || t->dtype == PLUMB_BF16) &&
        (x->code == PLUMB_OP_ADD || x->code == PLUMB_OP_MAXIMUM || x->code == PLUMB_OP_MINIMUM))
        return S_FOLDH;
    return S_EW;
}

/* An elementwise op whose operands have its result's dims (or are
 * scalars). A `?` matches only a `?`: the op's semantics make such dims
 * equal at run time, and ir_shape_infer checks it before the group runs,
 * so a group's values of type S all have S's actual dims. */
static bool ew_ok(const ir_op *op)
{
    if (op->n_results != 1 || op->n_regions || !rt_ew_supported(op))
        return false;
    const ir_type *r = &op->results[0]->type;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_type *t = &op->operands[i]->type;
        if (t->rank != 0 && !same_dims(t, r))
            return false;
    }
    return true;
}

/* broadcast_in_dim, or dynamic_broadcast_in_dim (its output_dimensions
 * operand only decides the result's shape, which the run derives before
 * the group runs: the group reads it nowhere, and for a `?` result the
 * broadcast is the only way to write one). */
static bool bcast_ok(const ir_op *op)
{
    return ((op->code == PLUMB_OP_BROADCAST_IN_DIM && op->n_operands == 1) ||
            (op->code == PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM && op->n_operands == 2)) &&
           op->n_results == 1 && op->a.dims.n == op->operands[0]->type.rank;
}

/* Appends to out (when not NULL) from index n the positions of the ops
 * whose results op reads: its operands, and the values of the function
 * body read inside its regions (an if, case, while, map, reduce body,
 * sort comparator or composite runs its regions, so what they capture is
 * read by the op holding them: fusing around such an op without this
 * closes a cycle through it). Returns the new count. */
static uint32_t reads_of(const fz *z, const ir_op *op, int32_t *out, uint32_t n)
{
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_value *v = op->operands[i];
        if (v->id >= z->n_ids || z->def_pos[v->id] < 0 || z->ops[z->def_pos[v->id]] != v->def)
            continue;   /* an argument, or a value defined inside a region */
        if (out)
            out[n] = z->def_pos[v->id];
        n++;
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            n = reads_of(z, o, out, n);
    return n;
}

/* True when op q, or the group holding it, transitively depends on a member
 * of one of the groups in gs[0..ng). The walk runs over groups, not ops: a
 * group runs as one step, so it needs all its members' inputs first, and an
 * op below the groups' first position can still reach them through a later
 * member of its own group (a reduction whose consumer read the other
 * reduction: grouping that other reduction with a reader of the first then
 * closes a cycle between the two groups). Positions below lo, where every
 * group lies wholly below or wholly above lo (see merge_ok), cannot. */
static bool depends_on(fz *z, int32_t q, const int32_t *gs, uint32_t ng, uint32_t lo, int32_t *stack)
{
    uint32_t sp = 0;
    stack[sp++] = q;
    z->stamp[q] = z->epoch;
    while (sp) {
        int32_t p = stack[--sp];
        if (z->parent[p] >= 0) {
            int32_t r = find(z, p);
            for (uint32_t i = 0; i < ng; i++)
                if (r == gs[i])
                    return true;
            for (int32_t m = z->mnext[p]; m != p; m = z->mnext[m])
                if (z->stamp[m] != z->epoch) {
                    z->stamp[m] = z->epoch;
                    stack[sp++] = m;
                }
        }
        for (uint32_t e = z->dep_off[p]; e < z->dep_off[p + 1]; e++) {
            int32_t d = z->deps[e];
            if ((uint32_t)d < lo || z->stamp[d] == z->epoch)
                continue;
            z->stamp[d] = z->epoch;
            stack[sp++] = d;
        }
    }
    return false;
}

/* Whether op p may join the groups gs (merging them): no value may leave
 * the merged set and come back through an op or group outside it. */
static bool merge_ok(fz *z, int32_t p, const int32_t *gs, uint32_t ng, int32_t *stack)
{
    uint32_t nops = 1;
    for (uint32_t i = 0; i < ng; i++)
        nops += z->nops[gs[i]];
    if (nops > RT_MAX_GROUP_OPS)
        return false;   /* too long for one kernel: p starts or joins a shorter group */
    uint32_t lo = (uint32_t)p;
    for (uint32_t i = 0; i < ng; i++)
        if (z->first[gs[i]] < lo)
            lo = z->first[gs[i]];
    /* cut: lowered until no group straddles it (ops after p are not
     * placed yet), so what lies below it reads only what lies below it */
    uint32_t cut = lo;
    for (uint32_t q = (uint32_t)p; q + 1 > cut; q--)
        if (z->parent[q] >= 0 && z->first[find(z, (int32_t)q)] < cut)
            cut = z->first[find(z, (int32_t)q)];
    z->epoch++;
    for (uint32_t q = lo; q <= (uint32_t)p; q++) {
        bool member = (int32_t)q == p;
        if (!member && z->parent[q] >= 0) {
            int32_t r = find(z, (int32_t)q);
            for (uint32_t i = 0; i < ng && !member; i++)
                member = r == gs[i];
        }
        if (!member)
            continue;
        for (uint32_t e = z->dep_off[q]; e < z->dep_off[q + 1]; e++) {
            int32_t d = z->deps[e];
            if ((uint32_t)d < cut || z->stamp[d] == z->epoch)
                continue;
            int32_t rd = z->parent[d] >= 0 ? find(z, d) : -1;
            bool inside = d == p;
            for (uint32_t k = 0; k < ng && !inside; k++)
                inside = rd == gs[k];
            if (inside)
                continue;
            if (depends_on(z, d, gs, ng, cut, stack))
                return false;
        }
    }
    return true;
}

static void join(fz *z, int32_t p, const int32_t *gs, uint32_t ng, const ir_type *s, bool rows, mrole role)
{
    z->role[p] = role;
    z->parent[p] = p;
    z->mnext[p] = p;
    int32_t root = p;
    uint32_t first = (uint32_t)p;
    bool any_rows = rows;
    for (uint32_t i = 0; i < ng; i++) {
        if (z->first[gs[i]] < first)
            first = z->first[gs[i]];
        any_rows |= z->rows[gs[i]];
        z->parent[gs[i]] = root;
        /* splice the two circular member lists */
        int32_t t = z->mnext[root];
        z->mnext[root] = z->mnext[gs[i]];
        z->mnext[gs[i]] = t;
    }
    uint32_t nops = 1;
    for (uint32_t i = 0; i < ng; i++)
        nops += z->nops[gs[i]];
    z->first[root] = first;
    z->nops[root] = nops;
    z->rows[root] = any_rows;
    z->space[root] = s;
}

/* Adds op p to the compatible groups of its operands when that is safe,
 * else starts a group of its own. */
static void place(fz *z, int32_t p, const ir_type *s, bool rows, mrole role, bool want_rows_only,
                  int32_t *stack)
{
    const ir_op *op = z->ops[p];
    int32_t gs[64];
    uint32_t ng = 0;
    for (uint32_t i = 0; i < op->n_operands && ng < 64; i++) {
        int32_t g = group_of_value(z, op->operands[i]);
        if (g < 0)
            continue;
        bool dup = false;
        for (uint32_t k = 0; k < ng; k++)
            dup |= gs[k] == g;
        if (dup || !same_dims(z->space[g], s))
            continue;
        if (want_rows_only && !z->rows[g])
            continue;
        gs[ng++] = g;
    }

    while (ng > 0 && !merge_ok(z, p, gs, ng, stack))
        ng--;   /* fall back to fewer groups */
    join(z, p, gs, ng, s, rows, role);
}

static void classify(fz *z, int32_t p, int32_t *stack)
{
    const ir_op *op = z->ops[p];
    if (bcast_ok(op)) {
        const ir_value *in = op->operands[0];
        const ir_type *rt = &op->results[0]->type;
        int32_t g = group_of_value(z, in);
        /* Back along the rows of a row group: operand is per-row, dims 0..R-2. */
        if (g >= 0 && z->rows[g] && same_dims(z->space[g], rt) && space_in(&in->type, z->space[g], true) == 1) {
            bool rowdims = true;
            for (uint32_t i = 0; i < op->a.dims.n; i++)
                rowdims &= op->a.dims.v[i] == (int64_t)i;
            if (rowdims) {
                int32_t gs[1] = {g};
                if (merge_ok(z, p, gs, 1, stack)) {
                    join(z, p, gs, 1, z->space[g], true, R_ROWB);
                    return;
                }
            }
        }
        /* Otherwise an input read through index arithmetic: a group of its
         * own until a consumer joins it. */
        join(z, p, NULL, 0, rt, false, R_BCAST);
        return;
    }
    skind rk = row_reduce_kind(op);
    if (rk != S_EW) {
        const ir_type *it = &op->operands[0]->type;
        /* a `?` row length is planned at its bound; unbounded rows are
         * not fused (the per-row buffers must stay in L2) */
        int64_t L = it->dims[it->rank - 1] != PLUMB_DIM_DYN ? it->dims[it->rank - 1] : it->bounds[it->rank - 1];
        if (L < 0 || (uint64_t)L > RT_ROW_MAX)
            return;
        int32_t g = group_of_value(z, op->operands[0]);
        /* Joins the group computing its input (a loop group over the same
         * space becomes a row group). */
        if (g >= 0 && same_dims(z->space[g], it)) {
            int32_t gs[1] = {g};
            if (merge_ok(z, p, gs, 1, stack)) {
                join(z, p, gs, 1, it, true, R_REDUCE);
                return;
            }
        }
        join(z, p, NULL, 0, it, true, R_REDUCE);
        return;
    }
    if (!ew_ok(op))
        return;
    const ir_type *rt = &op->results[0]->type;
    /* Per-row values of a row group: join the group whose row space rt is. */
    for (uint32_t i = 0; i < op->n_operands; i++) {
        int32_t g = group_of_value(z, op->operands[i]);
        if (g >= 0 && z->rows[g] && space_in(rt, z->space[g], true) == 1) {
            int32_t gs[1] = {g};
            if (merge_ok(z, p, gs, 1, stack)) {
                join(z, p, gs, 1, z->space[g], true, R_EW);
                return;
            }
        }
    }
    place(z, p, rt, false, R_EW, false, stack);
}

/* ---- building groups ---------------------------------------------------------------- */

typedef struct gbuild {
    int32_t *members;         /* positions, program order */
    uint32_t n;
    bool fused;
} gbuild;

/* Uses of each value by position (including uses inside regions). */
static void note_uses(const ir_op *op, int32_t user, fz *z, int32_t *first_out, uint8_t *multi,
                      const int32_t *gid)
{
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_value *v = op->operands[i];
        if (v->id >= z->n_ids || z->def_pos[v->id] < 0)
            continue;
        int32_t d = z->def_pos[v->id];
        if (gid[d] >= 0 && gid[d] == gid[user])
            continue;
        /* a use outside the defining op's group */
        if (first_out[v->id] < 0)
            first_out[v->id] = user;
        else
            multi[v->id] = 1;
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            note_uses(o, user, z, first_out, multi, gid);
}

static bool build_fused(plumb_arena *a, fz *z, const int32_t *mem, uint32_t nm, const int32_t *gid,
                        const int32_t *used_out, rt_group *g, plumb_diag *d);

static bool add_unique(ir_value ***arr, uint32_t *n, uint32_t cap, ir_value *v)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*arr)[i] == v)
            return false;
    if (*n >= cap)
        return false;
    (*arr)[(*n)++] = v;
    return true;
}

static bool nomem(plumb_diag *d, const ir_func *f)
{
    plumb_diag_set(d, PLUMB_ERR_NOMEM, f->loc, "out of memory fusing @%s", f->name);
    return false;
}

static void add_region_inputs(const ir_block *b, const ir_func *f, const fz *z, const int32_t *grp_of,
                              int32_t g, rt_group *G, uint32_t cap)
{
    for (const ir_op *o = b->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++) {
            ir_value *v = o->operands[i];
            bool outer = v->def ? v->def->parent == &f->body : v->owner == &f->body;
            if (!outer)
                continue;
            int32_t dp = v->id < z->n_ids ? z->def_pos[v->id] : -1;
            if (dp < 0 || grp_of[dp] != g)
                add_unique(&G->inputs, &G->n_inputs, cap, v);
        }
        for (uint32_t r = 0; r < o->n_regions; r++)
            add_region_inputs(&o->regions[r], f, z, grp_of, g, G, cap);
    }
}

/* Binary heap of group indices keyed by first position. */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t v, const uint32_t *key)
{
    uint32_t i = (*n)++;
    h[i] = v;
    while (i > 0 && key[h[(i - 1) / 2]] > key[h[i]]) {
        uint32_t p = (i - 1) / 2, t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n, const uint32_t *key)
{
    uint32_t top = h[0];
    h[0] = h[--(*n)];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && key[h[l]] < key[h[m]]) m = l;
        if (r < *n && key[h[r]] < key[h[m]]) m = r;
        if (m == i)
            break;
        uint32_t t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
    return top;
}

bool rt_fuse(plumb_arena *a, const ir_func *f, uint32_t opt_level,
             rt_group **groups, uint32_t *n_groups, plumb_diag *d)
{
    *groups = NULL;
    *n_groups = 0;
    fz z;
    memset(&z, 0, sizeof z);
    z.a = a;
    z.f = f;
    z.n = f->body.n_ops;
    uint32_t n = z.n;
    uint32_t max_id = 0;
    for (uint32_t i = 0; i < f->body.n_args; i++)
        if (f->body.args[i]->id + 1 > max_id)
            max_id = f->body.args[i]->id + 1;
    for (const ir_op *op = f->body.first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i]->id + 1 > max_id)
                max_id = op->results[i]->id + 1;
    z.n_ids = max_id;

    /* Scratch for grouping, freed at the end; the groups live in a. */
    size_t nn = n ? n : 1, ni = max_id ? max_id : 1;
    z.ops = plumb_calloc(nn, sizeof *z.ops);
    z.def_pos = plumb_malloc(ni * sizeof *z.def_pos);
    z.role = plumb_calloc(nn, sizeof *z.role);
    z.parent = plumb_malloc(nn * sizeof *z.parent);
    z.first = plumb_calloc(nn, sizeof *z.first);
    z.nops = plumb_calloc(nn, sizeof *z.nops);
    z.rows = plumb_calloc(nn, sizeof *z.rows);
    z.space = plumb_calloc(nn, sizeof *z.space);
    z.stamp = plumb_calloc(nn, sizeof *z.stamp);
    int32_t *stack = plumb_malloc(nn * sizeof *stack);
    int32_t *gid = plumb_malloc(nn * sizeof *gid);
    int32_t *used_out = plumb_malloc(ni * sizeof *used_out);
    uint8_t *multi = plumb_calloc(ni, 1);
    uint32_t *gfirst = plumb_calloc(nn, sizeof *gfirst);
    gbuild *gb = plumb_calloc(nn, sizeof *gb);
    int32_t *memb = plumb_malloc(nn * sizeof *memb);
    uint32_t *indeg = plumb_calloc(nn, sizeof *indeg);
    uint32_t *heap = plumb_calloc(nn, sizeof *heap);
    uint32_t *order = plumb_calloc(nn, sizeof *order);
    int32_t *grp_of = plumb_malloc(nn * sizeof *grp_of);
    size_t n_deps = 0;
    bool ok = false;
    if (!z.ops || !z.def_pos || !z.role || !z.parent || !z.first || !z.nops || !z.rows || !z.space || !z.stamp ||
        !stack || !gid || !used_out || !multi || !gfirst || !gb || !memb || !indeg || !heap || !order ||
        !grp_of) {
        nomem(d, f);
        goto done;
    }
    for (size_t i = 0; i < ni; i++)
        z.def_pos[i] = -1;
    {
        uint32_t p = 0;
        for (const ir_op *op = f->body.first; op; op = op->next, p++) {
            z.ops[p] = op;
            z.parent[p] = -1;
            for (uint32_t i = 0; i < op->n_results; i++)
                z.def_pos[op->results[i]->id] = (int32_t)p;
        }
    }
    if (opt_level >= 2) {
        /* What each op reads, region captures included, for merge_ok. */
        z.dep_off = plumb_calloc(nn + 1, sizeof *z.dep_off);
        z.mnext = plumb_malloc(nn * sizeof *z.mnext);
        if (!z.dep_off || !z.mnext) {
            nomem(d, f);
            goto done;
        }
        for (uint32_t p = 0; p < n; p++) {
            n_deps += reads_of(&z, z.ops[p], NULL, 0);
            z.dep_off[p + 1] = (uint32_t)n_deps;
        }
        z.deps = plumb_malloc((n_deps ? n_deps : 1) * sizeof *z.deps);
        if (!z.deps) {
            nomem(d, f);
            goto done;
        }
        for (uint32_t p = 0; p < n; p++)
            reads_of(&z, z.ops[p], z.deps + z.dep_off[p], 0);
        for (uint32_t p = 0; p < n; p++)
            classify(&z, (int32_t)p, stack);
    }

    /* Group ids: fusible ops by root; then drop what gains nothing. */
    for (uint32_t p = 0; p < n; p++)
        gid[p] = z.parent[p] >= 0 ? find(&z, (int32_t)p) : -1;
    for (size_t i = 0; i < ni; i++)
        used_out[i] = -1;
    for (uint32_t p = 0; p < n; p++)
        note_uses(z.ops[p], (int32_t)p, &z, used_out, multi, gid);
    /* A broadcast read by index arithmetic must not be needed outside. */
    for (uint32_t p = 0; p < n; p++)
        if (gid[p] >= 0 && z.role[p] == R_BCAST && used_out[z.ops[p]->results[0]->id] >= 0)
            gid[p] = -1;
    /* Keep groups with >= 2 members of which one computes. */
    {
        uint32_t *cnt = gfirst;   /* reuse as counters by root */
        memset(cnt, 0, nn * sizeof *cnt);
        uint8_t *computes = (uint8_t *)z.stamp;   /* reuse: bytes by root */
        memset(computes, 0, nn);
        for (uint32_t p = 0; p < n; p++)
            if (gid[p] >= 0) {
                cnt[gid[p]]++;
                if (z.role[p] == R_EW || z.role[p] == R_REDUCE)
                    computes[gid[p]] = 1;
            }
        for (uint32_t p = 0; p < n; p++)
            if (gid[p] >= 0 && (cnt[gid[p]] < 2 || !computes[gid[p]]))
                gid[p] = -1;
        /* A row group with no reduction left is a loop group, and its
         * per-row members then are not of its space: dissolve those groups
         * (only possible after ejections). */
        memset(computes, 0, nn);
        for (uint32_t p = 0; p < n; p++)
            if (gid[p] >= 0 && z.role[p] == R_REDUCE)
                computes[gid[p]] = 1;
        for (uint32_t p = 0; p < n; p++)
            if (gid[p] >= 0 && z.rows[gid[p]] && !computes[gid[p]])
                gid[p] = -1;
    }
    /* Dissolve groups a kernel could not run: a broadcast whose operand is
     * computed in the same group, or an op reading a group value of another
     * space than its result's (a per-row value of a rank-1 row group). */
    {
        uint8_t *bad = (uint8_t *)z.stamp;
        memset(bad, 0, nn);
        for (uint32_t p = 0; p < n; p++) {
            if (gid[p] < 0)
                continue;
            int32_t r = gid[p];
            const ir_op *op = z.ops[p];
            if (op->code == PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM) {
                /* its output_dimensions must be a tensor before the group runs */
                const ir_value *v = op->operands[1];
                int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                if (dp >= 0 && gid[dp] == r)
                    bad[r] = 1;
            }
            if (z.role[p] == R_BCAST) {
                const ir_value *v = op->operands[0];
                int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                if (dp >= 0 && gid[dp] == r)
                    bad[r] = 1;
            } else if (z.role[p] == R_EW) {
                int rs = space_in(&op->results[0]->type, z.space[r], z.rows[r]);
                if (rs < 0)
                    bad[r] = 1;
                for (uint32_t i = 0; i < op->n_operands; i++) {
                    const ir_value *v = op->operands[i];
                    int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                    if (dp >= 0 && gid[dp] == r && space_in(&v->type, z.space[r], z.rows[r]) != rs)
                        bad[r] = 1;
                }
            }
        }
        for (uint32_t p = 0; p < n; p++)
            if (gid[p] >= 0 && bad[gid[p]])
                gid[p] = -1;
    }
    /* Uses again, with the final groups. */
    for (size_t i = 0; i < ni; i++) {
        used_out[i] = -1;
        multi[i] = 0;
    }
    for (uint32_t p = 0; p < n; p++)
        note_uses(z.ops[p], (int32_t)p, &z, used_out, multi, gid);

    /* Groups in first-position order: one per fused root, one per other op. */
    uint32_t ng = 0;
    for (uint32_t p = 0; p < n; p++)
        grp_of[p] = -1;
    for (uint32_t p = 0; p < n; p++) {
        if (gid[p] >= 0 && grp_of[gid[p]] >= 0) {
            grp_of[p] = grp_of[gid[p]];
            continue;
        }
        gfirst[ng] = p;
        gb[ng].fused = gid[p] >= 0;
        grp_of[p] = (int32_t)ng;
        if (gid[p] >= 0)
            grp_of[gid[p]] = (int32_t)ng;   /* root may come later: keyed by root */
        ng++;
    }
    /* Members, in program order. */
    {
        uint32_t off = 0;
        uint32_t *cnt = indeg;
        memset(cnt, 0, nn * sizeof *cnt);
        for (uint32_t p = 0; p < n; p++)
            cnt[grp_of[p]]++;
        for (uint32_t g = 0; g < ng; g++) {
            gb[g].members = memb + off;
            off += cnt[g];
        }
        for (uint32_t p = 0; p < n; p++)
            gb[grp_of[p]].members[gb[grp_of[p]].n++] = (int32_t)p;
    }

    rt_group *out = plumb_arena_array(a, ng ? ng : 1, sizeof *out);
    if (!out) {
        nomem(d, f);
        goto done;
    }
    for (uint32_t g = 0; g < ng; g++) {
        rt_group *G = &out[g];
        G->n_ops = gb[g].n;
        G->ops = plumb_arena_array(a, gb[g].n, sizeof *G->ops);
        uint32_t cap_in = 0, cap_out = 0;
        for (uint32_t k = 0; k < gb[g].n; k++) {
            const ir_op *op = z.ops[gb[g].members[k]];
            cap_in += op->n_operands;
            for (uint32_t r = 0; r < op->n_regions; r++)
                for (const ir_op *o = op->regions[r].first; o; o = o->next)
                    cap_in += o->n_operands;
            cap_out += op->n_results;
        }
        G->inputs = plumb_arena_array(a, cap_in ? cap_in : 1, sizeof *G->inputs);
        G->outputs = plumb_arena_array(a, cap_out ? cap_out : 1, sizeof *G->outputs);
        if (!G->ops || !G->inputs || !G->outputs) {
            nomem(d, f);
            goto done;
        }
        for (uint32_t k = 0; k < gb[g].n; k++) {
            int32_t p = gb[g].members[k];
            const ir_op *op = z.ops[p];
            G->ops[k] = op;
            for (uint32_t i = 0; i < op->n_operands; i++) {
                ir_value *v = op->operands[i];
                int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                if (dp < 0 || grp_of[dp] != (int32_t)g)
                    add_unique(&G->inputs, &G->n_inputs, cap_in, v);
            }
            /* values from outside read inside regions */
            for (uint32_t r = 0; r < op->n_regions; r++)
                add_region_inputs(&op->regions[r], f, &z, grp_of, (int32_t)g, G, cap_in);
            for (uint32_t i = 0; i < op->n_results; i++) {
                ir_value *v = op->results[i];
                if (!gb[g].fused || used_out[v->id] >= 0)
                    add_unique(&G->outputs, &G->n_outputs, cap_out, v);
            }
        }
        if (gb[g].fused && !build_fused(a, &z, gb[g].members, gb[g].n, gid, used_out, G, d))
            goto done;
    }

    /* Order: a topological order of the groups, earliest first op first. */
    {
        uint32_t *soff = plumb_calloc((size_t)ng + 1, sizeof *soff);
        uint32_t n_edges = 0;
        for (uint32_t g = 0; g < ng; g++)
            n_edges += out[g].n_inputs;
        uint32_t *succ = plumb_calloc(n_edges ? n_edges : 1, sizeof *succ);
        if (!soff || !succ) {
            plumb_free(soff, ((size_t)ng + 1) * sizeof *soff);
            plumb_free(succ, (n_edges ? n_edges : 1) * sizeof *succ);
            nomem(d, f);
            goto done;
        }
        memset(indeg, 0, nn * sizeof *indeg);
        /* edge producer group -> consumer group, one per consumer input */
        for (uint32_t g = 0; g < ng; g++)
            for (uint32_t i = 0; i < out[g].n_inputs; i++) {
                const ir_value *v = out[g].inputs[i];
                int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                if (dp >= 0 && grp_of[dp] != (int32_t)g) {
                    indeg[g]++;
                    soff[grp_of[dp] + 1]++;
                }
            }
        for (uint32_t g = 0; g < ng; g++)
            soff[g + 1] += soff[g];
        uint32_t *fillp = heap;   /* reuse as fill cursors before the heap is needed */
        for (uint32_t g = 0; g < ng; g++)
            fillp[g] = soff[g];
        for (uint32_t g = 0; g < ng; g++)
            for (uint32_t i = 0; i < out[g].n_inputs; i++) {
                const ir_value *v = out[g].inputs[i];
                int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                if (dp >= 0 && grp_of[dp] != (int32_t)g)
                    succ[fillp[grp_of[dp]]++] = g;
            }
        uint32_t hn = 0, no = 0;
        for (uint32_t g = 0; g < ng; g++)
            if (indeg[g] == 0)
                heap_push(heap, &hn, g, gfirst);
        while (hn) {
            uint32_t g = heap_pop(heap, &hn, gfirst);
            order[no++] = g;
            for (uint32_t e = soff[g]; e < soff[g + 1]; e++)
                if (--indeg[succ[e]] == 0)
                    heap_push(heap, &hn, succ[e], gfirst);
        }
        plumb_free(soff, ((size_t)ng + 1) * sizeof *soff);
        plumb_free(succ, (n_edges ? n_edges : 1) * sizeof *succ);
        if (no != ng) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, f->loc, "fusion of @%s produced a cyclic schedule", f->name);
            goto done;
        }
    }
    rt_group *sorted = plumb_arena_array(a, ng ? ng : 1, sizeof *sorted);
    if (!sorted) {
        nomem(d, f);
        goto done;
    }
    for (uint32_t i = 0; i < ng; i++)
        sorted[i] = out[order[i]];
    *groups = sorted;
    *n_groups = ng;
    ok = true;
done:
    plumb_free(z.ops, nn * sizeof *z.ops);
    plumb_free(z.def_pos, ni * sizeof *z.def_pos);
    plumb_free(z.role, nn * sizeof *z.role);
    plumb_free(z.parent, nn * sizeof *z.parent);
    plumb_free(z.first, nn * sizeof *z.first);
    plumb_free(z.nops, nn * sizeof *z.nops);
    plumb_free(z.rows, nn * sizeof *z.rows);
    plumb_free(z.space, nn * sizeof *z.space);
    plumb_free(z.stamp, nn * sizeof *z.stamp);
    plumb_free(z.dep_off, (nn + 1) * sizeof *z.dep_off);
    plumb_free(z.deps, (n_deps ? n_deps : 1) * sizeof *z.deps);
    plumb_free(z.mnext, nn * sizeof *z.mnext);
    plumb_free(stack, nn * sizeof *stack);
    plumb_free(gid, nn * sizeof *gid);
    plumb_free(used_out, ni * sizeof *used_out);
    plumb_free(multi, ni);
    plumb_free(gfirst, nn * sizeof *gfirst);
    plumb_free(gb, nn * sizeof *gb);
    plumb_free(memb, nn * sizeof *memb);
    plumb_free(indeg, nn * sizeof *indeg);
    plumb_free(heap, nn * sizeof *heap);
    plumb_free(order, nn * sizeof *order);
    plumb_free(grp_of, nn * sizeof *grp_of);
    return ok;
}

/* ---- lowering a group to steps ------------------------------------------------------ */

typedef struct vmap {
    const ir_value *v[RT_MAX_VALS];
    uint32_t n;
} vmap;

static int32_t vfind(const vmap *m, const ir_value *v)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->v[i] == v)
            return (int32_t)i;
    return -1;
}

static int32_t index_of(ir_value *const *arr, uint32_t n, const ir_value *v)
{
    for (uint32_t i = 0; i < n; i++)
        if (arr[i] == v)
            return (int32_t)i;
    return -1;
}

/* The strides through which a broadcast_in_dim op reads its operand for
 * each dimension of its result (0 for broadcast and size-1 dims). */
static void bcast_strides(const ir_op *op, fval *fv)
{
    const ir_type *it = &op->operands[0]->type, *rt = &op->results[0]->type;
    int64_t ist[PLUMB_MAX_RANK];
    int64_t s = 1;
    for (uint32_t i = it->rank; i-- > 0;) {
        ist[i] = s;
        s *= it->dims[i];
    }
    fv->rank = rt->rank;
    for (uint32_t j = 0; j < rt->rank; j++) {
        fv->dims[j] = rt->dims[j];
        fv->stride[j] = 0;
    }
    for (uint32_t i = 0; i < it->rank; i++)
        if (it->dims[i] != 1)
            fv->stride[op->a.dims.v[i]] = ist[i];
}

/* f32 add, subtract, multiply, divide of two f32 operands: exact IEEE
 * operations that row_arith runs with a per-row operand read in place. */
static bool arith_f32(const ir_op *op)
{
    if (op->n_operands != 2 || op->n_results != 1 || op->results[0]->type.dtype != PLUMB_F32 ||
        op->operands[0]->type.dtype != PLUMB_F32 || op->operands[1]->type.dtype != PLUMB_F32)
        return false;
    return op->code == PLUMB_OP_ADD || op->code == PLUMB_OP_SUBTRACT || op->code == PLUMB_OP_MULTIPLY ||
           op->code == PLUMB_OP_DIVIDE;
}

/* Longest chain run_chain takes: layer_norm's is 3 (x * rstd * gamma + beta). */
#define RT_CHAIN_MAX 4u

/* Step t may follow step p in a chain: both f32 arithmetic over full rows,
 * p's result a temporary read by nothing but one operand of t. */
static bool chain_next(const fstep *st, uint32_t n, uint32_t p, uint32_t t, const fval *vals, uint8_t *side)
{
    const fstep *a = &st[p], *b = &st[t];
    if (!b->arith || b->space != 0 || b->sqsum || vals[a->out].kind != FV_TEMP)
        return false;
    if ((b->in[0] == a->out) == (b->in[1] == a->out))
        return false;   /* not read, or read as both operands (x * x) */
    for (uint32_t u = 0; u < n; u++)
        if (u != t)
            for (uint32_t i = 0; i < st[u].n_in; i++)
                if (st[u].in[i] == a->out)
                    return false;
    *side = b->in[0] == a->out ? 0 : 1;
    return !(b->per_row & (1u << *side));
}

/* Marks chains of 2..RT_CHAIN_MAX consecutive f32 arithmetic steps (see
 * fstep.chain). The sqsum triple keeps its own pass. */
static void mark_chains(fstep *st, uint32_t n, const fval *vals)
{
    for (uint32_t s = 0; s < n;) {
        if (st[s].sqsum || st[s].expsum) {
            s += 3;
            continue;
        }
        if (!st[s].arith || st[s].space != 0 || st[s].per_row == 3) {
            s++;
            continue;
        }
        uint32_t len = 1;
        uint8_t side;
        while (s + len < n && len < RT_CHAIN_MAX && chain_next(st, n, s + len - 1, s + len, vals, &side)) {
            st[s + len].run_side = side;
            len++;
        }
        if (len >= 2)
            st[s].chain = (uint8_t)len;
        s += len;
    }
}

/* Row groups: an elementwise op whose operands are all the same along each
 * row (a per-row value broadcast back, or a scalar) runs once per row on the
 * per-row values instead of once per element: layer_norm's mean, variance,
 * +eps and rsqrt are per-row work written over full rows. The per-row
 * result equals every element of the full-row result because elementwise
 * kernels compute each element independently of its position (the tile
 * contract above). The full-row value is then materialized (by a row
 * broadcast) only where something still reads it. Recomputes def_step and
 * last_use for slot planning. Returns false when the value table is full. */
static bool hoist_uniform(plumb_arena *a, rt_fused *F, fval *vals, vmap *vm, int32_t *def_step,
                          int32_t *last_use, plumb_diag *d, const ir_func *f)
{
    uint32_t nv0 = vm->n, ns = F->n_steps;
    int32_t *uni = plumb_malloc(RT_MAX_VALS * sizeof *uni);     /* per value: its per-row fval, or -1 */
    int32_t *sc1 = plumb_malloc(RT_MAX_VALS * sizeof *sc1);     /* per scalar bcast: its row-space copy */
    int32_t *orig = plumb_malloc((size_t)(ns ? ns : 1) * sizeof *orig);   /* per step: the full-row value it no longer writes */
    fstep *nst = plumb_arena_array(a, 2 * (size_t)(ns ? ns : 1), sizeof *nst);
    bool ok = false;
    if (!uni || !sc1 || !orig || !nst) {
        nomem(d, f);
        goto out;
    }
    for (uint32_t v = 0; v < RT_MAX_VALS; v++)
        uni[v] = sc1[v] = -1;
    for (uint32_t s = 0; s < ns; s++) {
        fstep *st = &F->steps[s];
        orig[s] = -1;
        if (st->kind == S_ROWB) {
            uni[st->out] = (int32_t)st->in[0];
            orig[s] = (int32_t)st->out;
            continue;
        }
        if (st->kind != S_EW || st->space != 0 || st->n_in == 0)
            continue;
        bool all = true, any = false;
        for (uint32_t i = 0; i < st->n_in && all; i++) {
            const fval *v = &vals[st->in[i]];
            bool scalar = v->kind == FV_BCAST && v->invariant;
            for (uint32_t j = 0; scalar && j < v->rank; j++)
                scalar = v->stride[j] == 0;   /* one value over the whole space */
            any |= uni[st->in[i]] >= 0;
            all = uni[st->in[i]] >= 0 || scalar;
        }
        if (!all || !any)
            continue;
        for (uint32_t i = 0; i < st->n_in; i++) {
            uint32_t vi = st->in[i];
            if (uni[vi] >= 0) {
                st->in[i] = (uint32_t)uni[vi];
                continue;
            }
            if (sc1[vi] < 0) {
                if (vm->n >= RT_MAX_VALS)
                    goto out;
                vals[vm->n] = vals[vi];
                vals[vm->n].space = 1;
                vals[vm->n].slot = -1;
                vm->v[vm->n] = vm->v[vi];
                sc1[vi] = (int32_t)vm->n++;
            }
            st->in[i] = (uint32_t)sc1[vi];
        }
        if (vm->n >= RT_MAX_VALS)
            goto out;
        uint32_t t = vm->n++;
        vals[t] = vals[st->out];
        vals[t].kind = FV_TEMP;
        vals[t].space = 1;
        vals[t].slot = -1;
        vm->v[t] = vm->v[st->out];
        uni[st->out] = (int32_t)t;
        orig[s] = (int32_t)st->out;
        st->out = t;
        st->space = 1;
    }
    /* f32 arithmetic reads a per-row operand in place (no full row); on
     * per-row values it runs directly on the one element (no kernel
     * dispatch per row: layer_norm's mean and variance divisions and +eps). */
    for (uint32_t s = 0; s < ns; s++) {
        fstep *st = &F->steps[s];
        if (st->kind != S_EW || !arith_f32(st->op))
            continue;
        if (st->space != 0) {
            st->arith = true;
            continue;
        }
        st->arith = true;
        for (uint32_t i = 0; i < 2; i++) {
            uint32_t vi = st->in[i];
            if (uni[vi] >= 0) {
                st->in[i] = (uint32_t)uni[vi];
                st->per_row |= (uint8_t)(1u << i);
            }
        }
    }
    /* Which full-row values are still read (or leave the group). */
    uint8_t *needed = (uint8_t *)sc1;   /* reuse: bytes per value */
    memset(needed, 0, RT_MAX_VALS);
    for (uint32_t v = 0; v < nv0; v++)
        needed[v] = vals[v].kind == FV_OUT;
    for (uint32_t s = 0; s < ns; s++) {
        if (F->steps[s].kind == S_ROWB && orig[s] >= 0)
            continue;   /* decided below */
        for (uint32_t i = 0; i < F->steps[s].n_in; i++)
            needed[F->steps[s].in[i]] = 1;
    }
    uint32_t n = 0;
    for (uint32_t s = 0; s < ns; s++) {
        fstep *st = &F->steps[s];
        if (orig[s] < 0) {
            nst[n++] = *st;
            continue;
        }
        if (st->kind != S_ROWB)
            nst[n++] = *st;   /* the per-row computation */
        if (!needed[orig[s]])
            continue;
        /* materialize the full-row value from its per-row value */
        fstep *r = &nst[n++];
        memset(r, 0, sizeof *r);
        r->kind = S_ROWB;
        r->space = 0;
        r->op = st->op;
        r->n_in = 1;
        if (!(r->in = plumb_arena_alloc(a, sizeof *r->in))) {
            nomem(d, f);
            goto out;
        }
        r->in[0] = (uint32_t)uni[orig[s]];
        r->out = (uint32_t)orig[s];
    }
    F->steps = nst;
    F->n_steps = n;
    /* A result only written here (read after the group, not in it) is
     * streamed to memory: no read for ownership of lines wholly written. */
    for (uint32_t s2 = 0; s2 < n; s2++) {
        if (!nst[s2].arith || vals[nst[s2].out].kind != FV_OUT || nst[s2].space != 0)
            continue;
        bool read = false;
        for (uint32_t t = s2 + 1; t < n && !read; t++)
            for (uint32_t i = 0; i < nst[t].n_in; i++)
                read |= nst[t].in[i] == nst[s2].out;
        nst[s2].stream = !read;
    }
    /* `xc = x - m` (m per row), `q = xc * xc` read only by the next step,
     * `sum(q)`: one pass that keeps q in registers (layer_norm's variance). */
    for (uint32_t s2 = 0; s2 + 2 < n; s2++) {
        const fstep *sub = &nst[s2], *mul = &nst[s2 + 1], *sum = &nst[s2 + 2];
        if (!sub->arith || sub->op->code != PLUMB_OP_SUBTRACT || sub->per_row != 2 || sub->stream ||
            sub->space != 0 || !mul->arith || mul->op->code != PLUMB_OP_MULTIPLY || mul->per_row != 0 ||
            mul->space != 0 || mul->in[0] != sub->out || mul->in[1] != sub->out ||
            vals[mul->out].kind != FV_TEMP || sum->kind != S_SUM32 || sum->in[0] != mul->out)
            continue;
        bool other = false;
        for (uint32_t t = 0; t < n && !other; t++)
            for (uint32_t i = 0; i < nst[t].n_in; i++)
                other |= t != s2 + 2 && nst[t].in[i] == mul->out;
        nst[s2].sqsum = !other;
    }
    /* `xm = x - m` (m per row) read only by the next step, `e = exp(xm)`,
     * `sum(e)`: one pass that keeps xm in registers and stores e (softmax's
     * numerator and its row sum). */
    for (uint32_t s2 = 0; s2 + 2 < n; s2++) {
        const fstep *sub = &nst[s2], *ex = &nst[s2 + 1], *sum = &nst[s2 + 2];
        if (!sub->arith || sub->op->code != PLUMB_OP_SUBTRACT || sub->per_row != 2 || sub->stream ||
            sub->space != 0 || sub->sqsum || vals[sub->out].kind != FV_TEMP || ex->kind != S_EW || ex->arith ||
            ex->op->code != PLUMB_OP_EXPONENTIAL || ex->op->results[0]->type.dtype != PLUMB_F32 ||
            ex->space != 0 || ex->n_in != 1 || ex->in[0] != sub->out || sum->kind != S_SUM32 ||
            sum->in[0] != ex->out)
            continue;
        bool other = false;
        for (uint32_t t = 0; t < n && !other; t++)
            for (uint32_t i = 0; i < nst[t].n_in; i++)
                other |= t != s2 + 1 && nst[t].in[i] == sub->out;
        nst[s2].expsum = !other;
    }
    mark_chains(nst, n, vals);
    for (uint32_t v = 0; v < vm->n; v++)
        def_step[v] = last_use[v] = -1;
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t i = 0; i < nst[s].n_in; i++) {
            uint32_t v = nst[s].in[i];
            last_use[v] = (int32_t)s;
            if (vals[v].kind == FV_BCAST && def_step[v] < 0)
                def_step[v] = (int32_t)s;
        }
        def_step[nst[s].out] = (int32_t)s;
        last_use[nst[s].out] = (int32_t)s > last_use[nst[s].out] ? (int32_t)s : last_use[nst[s].out];
    }
    /* A chain reads every link's operand before it writes its result, and
     * materializes all its broadcasts first: they are live over the whole
     * chain, so no slot of one is shared with another or with the result. */
    for (uint32_t s = 0; s < n; s++) {
        if (nst[s].chain < 2)
            continue;
        int32_t end = (int32_t)(s + nst[s].chain - 1);
        for (uint32_t t = s; t <= (uint32_t)end; t++)
            for (uint32_t i = 0; i < 2; i++) {
                uint32_t v = nst[t].in[i];
                if (t > s && i == nst[t].run_side)
                    continue;   /* the previous link's result: never written */
                if (vals[v].kind == FV_BCAST && def_step[v] > (int32_t)s)
                    def_step[v] = (int32_t)s;
                if (last_use[v] < end)
                    last_use[v] = end;
            }
    }
    ok = true;
out:
    if (!ok && d->code == PLUMB_OK)
        plumb_diag_set(d, PLUMB_ERR_LIMIT, f->loc, "fusion group of @%s has more than %u values", f->name,
                       RT_MAX_VALS);
    plumb_free(uni, RT_MAX_VALS * sizeof *uni);
    plumb_free(sc1, RT_MAX_VALS * sizeof *sc1);
    plumb_free(orig, (size_t)(ns ? ns : 1) * sizeof *orig);
    return ok;
}

/* Values a register-run loop group may have (see run_regs): its block
 * buffers live on the executing thread's stack. */
#define RT_REG_VALS 24u

/* Ops run_regs evaluates: f32 in, f32 out, each one whose vector form at the
 * AVX-512 level gives the tile kernel's bits for every lane it does not
 * flag, and each of which returns NaN for a NaN operand (run_regs relies on
 * that: a NaN anywhere reaches the group's results, where it is seen). */
static bool regs_int_op(const ir_op *op);
static bool regs_op(const ir_op *op)
{
    if (regs_int_op(op))
        return true;
    if (op->n_results != 1 || op->results[0]->type.dtype != PLUMB_F32)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i]->type.dtype != PLUMB_F32)
            return false;
    switch (op->code) {
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
        return op->n_operands == 2;
    case PLUMB_OP_TANH: case PLUMB_OP_LOGISTIC: case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_NEGATE:
    case PLUMB_OP_ABS: case PLUMB_OP_ERF:
        return op->n_operands == 1;
    default:
        return false;
    }
}

/* 32-bit integer ops (i32 or ui32 in and out) run_regs evaluates: each is
 * one AVX-512 instruction with k_ew_int.c's wrapping semantics (add,
 * subtract, multiply keep the low 32 bits; the variable shifts give 0, or
 * the sign for an arithmetic right shift, for counts >= 32 read unsigned,
 * as the kernels do). Integers have no NaN and no flagged lanes, so their
 * blocks are never recomputed. */
static bool regs_int_op(const ir_op *op)
{
    if (op->n_results != 1)
        return false;
    plumb_dtype t = op->results[0]->type.dtype;
    if (t != PLUMB_I32 && t != PLUMB_UI32)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i]->type.dtype != t)
            return false;
    switch (op->code) {
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_AND: case PLUMB_OP_OR:
    case PLUMB_OP_XOR: case PLUMB_OP_SHIFT_LEFT: case PLUMB_OP_SHIFT_RIGHT_LOGICAL:
    case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
        return op->n_operands == 2;
    case PLUMB_OP_NEGATE: case PLUMB_OP_NOT:
        return op->n_operands == 1;
    default:
        return false;
    }
}

/* A loop group run_regs can take: every step one of regs_op's, every value
 * an input read in place, a scalar broadcast, or computed in the group. */
static bool regs_ok(const rt_fused *F)
{
    if (F->rows || F->n_vals > RT_REG_VALS || F->n_steps == 0)
        return false;
    for (uint32_t s = 0; s < F->n_steps; s++)
        if (F->steps[s].kind != S_EW || F->steps[s].space != 0 || !regs_op(F->steps[s].op))
            return false;
    for (uint32_t v = 0; v < F->n_vals; v++) {
        const fval *fv = &F->vals[v];
        if (fv->es != 4 || fv->space != 0)
            return false;
        /* in a loop group an invariant broadcast has every stride 0: it is
         * its source's first element everywhere */
        if (fv->kind == FV_BCAST && !fv->invariant)
            return false;
    }
    return true;
}

/* ---- half register segments (planning) ----------------------------------------------
 * Consecutive f16/bf16 elementwise steps over full rows or tiles (and, in
 * row groups, the row broadcasts of per-row half values between them) run
 * as one segment: block by block of HS_BLOCK elements, each step's result
 * kept in an L1 block buffer of half patterns for the next, widened to f32
 * in registers, computed, rounded once to the half type, and stored only
 * when read after the segment (run_hseg). Any elementwise op whose
 * operands and result share one half type may be in a segment; the
 * arithmetic, sqrt, sign and exp/logistic/tanh steps run in registers, the
 * others through rt_ew_tile on the block. */
#define RT_HSEG_MAX 16u

static bool half_type(plumb_dtype t) { return t == PLUMB_F16 || t == PLUMB_BF16; }

static bool hseg_step(const rt_fused *F, const fval *vals, const fstep *st)
{
    if (st->space != 0 || st->op->n_results != 1 || !half_type(st->op->results[0]->type.dtype))
        return false;
    if (st->kind == S_ROWB)
        return F->rows && vals[st->out].es == 2 && st->n_in == 1 && vals[st->in[0]].space == 1 &&
               vals[st->in[0]].es == 2;
    if (st->kind != S_EW || st->n_in == 0 || st->n_in > 3 || st->n_in != st->op->n_operands ||
        !rt_ew_supported(st->op))
        return false;
    for (uint32_t i = 0; i < st->n_in; i++)
        if (st->op->operands[i]->type.dtype != st->op->results[0]->type.dtype || vals[st->in[i]].space != 0)
            return false;
    return true;
}

/* Marks the segments (fstep.hseg and the per-step hstore, hstream,
 * hsrc) and extends live ranges for slot planning: a segment runs step
 * after step on each block and materializes its broadcasts first, so every
 * operand read in it stays live to its last step (no result it stores
 * takes the slot of a value a later block still reads). */
static void mark_hsegs(rt_fused *F, const fval *vals, int32_t *def_step, int32_t *last_use)
{
    uint32_t n = F->n_steps;
    for (uint32_t s = 0; s < n; s++) {
        fstep *st = &F->steps[s];
        bool h = F->rows && st->kind == S_EW && st->space == 1 && st->n_in >= 1 && st->n_in <= 2 &&
                 st->op->n_results == 1 && half_type(st->op->results[0]->type.dtype);
        for (uint32_t i = 0; h && i < st->n_in; i++)
            h = st->op->operands[i]->type.dtype == st->op->results[0]->type.dtype && vals[st->in[i]].space == 1;
        st->hrows = h;
    }
    for (uint32_t s = 0; s < n;) {
        uint32_t len = 0;
        bool ew = false;
        while (s + len < n && len < RT_HSEG_MAX && hseg_step(F, vals, &F->steps[s + len])) {
            ew |= F->steps[s + len].kind == S_EW;
            len++;
        }
        if (len < 2 || !ew) {
            s += len ? len : 1;
            continue;
        }
        uint32_t e = s + len - 1;
        for (uint32_t t = s; t <= e; t++) {
            fstep *st = &F->steps[t];
            for (uint32_t i = 0; i < st->n_in; i++) {
                uint32_t v = st->in[i];
                st->hsrc[i] = -1;
                for (uint32_t p = s; p < t; p++)
                    if (F->steps[p].out == v)
                        st->hsrc[i] = (int8_t)(p - s);
                if (vals[v].kind == FV_BCAST && def_step[v] > (int32_t)s)
                    def_step[v] = (int32_t)s;
                if (last_use[v] < (int32_t)e)
                    last_use[v] = (int32_t)e;
            }
            bool later = false;
            for (uint32_t u = e + 1; u < n && !later; u++)
                for (uint32_t i = 0; i < F->steps[u].n_in; i++)
                    later |= F->steps[u].in[i] == st->out;
            bool inside = false;
            for (uint32_t u = t + 1; u <= e && !inside; u++)
                for (uint32_t i = 0; i < F->steps[u].n_in; i++)
                    inside |= F->steps[u].in[i] == st->out;
            st->hstore = later || vals[st->out].kind == FV_OUT;
            st->hstream = vals[st->out].kind == FV_OUT && !later && !inside;
        }
        F->steps[s].hseg = (uint8_t)len;
        s += len;
    }
}

/* The extents of a group whose space S has dims[0..rank): elements, rows
 * (row groups: length L = the last dim), rows per unit, and the bytes of
 * one slot (a tile, or a unit's rows, of the widest element type). */
static void derive_extents(rt_fused *F, uint32_t rank, const int64_t *dims)
{
    F->numel = 1;
    for (uint32_t i = 0; i < rank; i++)
        F->numel *= (uint64_t)dims[i];
    F->row_len = F->rows ? (uint64_t)dims[rank - 1] : 0;
    F->n_rows = 0;
    F->rpu = 1;
    if (F->rows) {
        F->n_rows = 1;
        for (uint32_t i = 0; i + 1 < rank; i++)
            F->n_rows *= (uint64_t)dims[i];
        if (F->row_len && F->row_len < RT_ROW_UNIT)
            F->rpu = RT_ROW_UNIT / F->row_len;
        if (F->rpu > RT_RPU_MAX)
            F->rpu = RT_RPU_MAX;
        if (F->rpu > F->n_rows)
            F->rpu = F->n_rows ? F->n_rows : 1;
    }
    uint64_t per = F->rows ? (F->row_len ? F->row_len : 1) * F->rpu : RT_TILE;
    F->slot_bytes = (size_t)((per * 8 + 63) & ~(uint64_t)63);
}

static bool build_fused(plumb_arena *a, fz *z, const int32_t *mem, uint32_t nm, const int32_t *gid,
                        const int32_t *used_out, rt_group *g, plumb_diag *d)
{
    rt_fused *F = plumb_arena_alloc(a, sizeof *F);
    vmap *vm = plumb_calloc(1, sizeof *vm);
    fval *vals = plumb_calloc(RT_MAX_VALS, sizeof *vals);
    int32_t *def_step = plumb_calloc(RT_MAX_VALS, sizeof *def_step);
    int32_t *last_use = plumb_calloc(RT_MAX_VALS, sizeof *last_use);
    bool ok = false;
    if (!F || !vm || !vals || !def_step || !last_use) {
        nomem(d, z->f);
        goto out;
    }
    int32_t root = gid[mem[0]];
    const ir_type *S = z->space[root];
    F->rows = z->rows[root];
    F->dyn = !ir_type_is_static(S);
    if (!F->dyn) {
        derive_extents(F, S->rank, S->dims);
    } else {
        /* placeholders: every run derives them from S's actual dims */
        F->numel = F->row_len = F->n_rows = 0;
        F->rpu = 1;
        F->slot_bytes = 64;
    }
    F->sval = NULL;
    for (uint32_t k = 0; k < nm && !F->sval; k++) {
        const ir_op *op = z->ops[mem[k]];
        if (op->n_results && same_dims(&op->results[0]->type, S))
            F->sval = op->results[0];
        else if (op->n_operands && same_dims(&op->operands[0]->type, S))
            F->sval = op->operands[0];
    }
    if (!F->sval) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, z->ops[mem[0]]->loc, "fusion group of @%s has no value of its space",
                       z->f->name);
        goto out;
    }
    F->steps = plumb_arena_array(a, nm, sizeof *F->steps);
    if (!F->steps) {
        nomem(d, z->f);
        goto out;
    }
    F->anchor = NULL;

    for (uint32_t k = 0; k < nm; k++) {
        const ir_op *op = z->ops[mem[k]];
        mrole role = z->role[mem[k]];
        if (!F->anchor && role != R_BCAST)
            F->anchor = op;
        if (role == R_BCAST) {
            /* The result is read through the operand: a BCAST value. */
            if (vm->n >= RT_MAX_VALS)
                goto toobig;
            fval *fv = &vals[vm->n];
            fv->kind = FV_BCAST;
            fv->space = 0;
            fv->es = (uint8_t)plumb_dtype_size(op->results[0]->type.dtype);
            fv->io = (uint32_t)index_of(g->inputs, g->n_inputs, op->operands[0]);
            fv->bop = op;
            F->dyn |= !ir_type_is_static(&op->operands[0]->type) || !ir_type_is_static(&op->results[0]->type);
            bcast_strides(op, fv);
            bool inv = true;
            uint32_t lim = F->rows ? fv->rank - 1 : fv->rank;
            for (uint32_t j = 0; j < lim; j++)
                inv &= fv->stride[j] == 0;
            if (!F->rows)
                inv &= fv->rank == 0 || fv->stride[fv->rank - 1] == 0;
            fv->invariant = inv;
            fv->slot = -1;
            def_step[vm->n] = -1;
            last_use[vm->n] = -1;
            vm->v[vm->n++] = op->results[0];
            continue;
        }
        fstep *st = &F->steps[F->n_steps];
        st->op = op;
        switch (role) {
        case R_REDUCE: st->kind = row_reduce_kind(op); break;
        case R_ROWB: st->kind = S_ROWB; break;
        default: st->kind = S_EW; break;
        }
        uint32_t nin = st->kind == S_EW ? op->n_operands : 1;
        st->n_in = nin;
        st->in = plumb_arena_array(a, nin ? nin : 1, sizeof *st->in);
        if (!st->in) {
            nomem(d, z->f);
            goto out;
        }
        for (uint32_t i = 0; i < nin; i++) {
            const ir_value *v = op->operands[i];
            int32_t vi = vfind(vm, v);
            if (vi < 0) {
                /* an input: in place when of a space of the group, else a
                 * scalar broadcast */
                if (vm->n >= RT_MAX_VALS)
                    goto toobig;
                fval *fv = &vals[vm->n];
                int sp = space_in(&v->type, S, F->rows);
                fv->es = (uint8_t)plumb_dtype_size(v->type.dtype);
                fv->io = (uint32_t)index_of(g->inputs, g->n_inputs, v);
                fv->slot = -1;
                if (sp >= 0) {
                    fv->kind = FV_IN;
                    fv->space = (uint8_t)sp;
                } else {
                    /* rank 0 operand of select/clamp: broadcast to the op's space */
                    fv->kind = FV_BCAST;
                    fv->space = (uint8_t)space_in(&op->results[0]->type, S, F->rows);
                    fv->rank = 0;
                    fv->invariant = true;
                }
                def_step[vm->n] = -1;
                last_use[vm->n] = -1;
                vi = (int32_t)vm->n;
                vm->v[vm->n++] = v;
            }
            st->in[i] = (uint32_t)vi;
            last_use[vi] = (int32_t)F->n_steps;
            if (vals[vi].kind == FV_BCAST && def_step[vi] < 0)
                def_step[vi] = (int32_t)F->n_steps;
        }
        if (st->kind != S_EW && st->kind != S_ROWB)
            st->init = (uint32_t)index_of(g->inputs, g->n_inputs, op->operands[1]);
        /* result */
        if (vm->n >= RT_MAX_VALS)
            goto toobig;
        const ir_value *r = op->results[0];
        fval *fv = &vals[vm->n];
        fv->es = (uint8_t)plumb_dtype_size(r->type.dtype);
        fv->space = (uint8_t)space_in(&r->type, S, F->rows);
        fv->slot = -1;
        if (used_out[r->id] >= 0) {
            fv->kind = FV_OUT;
            fv->io = (uint32_t)index_of(g->outputs, g->n_outputs, r);
        } else {
            fv->kind = FV_TEMP;
        }
        def_step[vm->n] = (int32_t)F->n_steps;
        last_use[vm->n] = (int32_t)F->n_steps;
        st->out = vm->n;
        st->space = fv->space;
        vm->v[vm->n++] = r;
        F->n_steps++;
    }
    if (!F->anchor)
        F->anchor = z->ops[mem[0]];
    if (F->rows && !hoist_uniform(a, F, vals, vm, def_step, last_use, d, z->f))
        goto out;
    mark_hsegs(F, vals, def_step, last_use);
    /* Slots: invariant broadcasts keep one each for the whole group; temps
     * and other broadcasts share by live range (freed after the last use,
     * so no step writes a slot it reads). */
    {
        uint32_t n_slots = 0;
        int32_t slot_free_after[256];
        for (uint32_t v = 0; v < vm->n; v++)
            if (vals[v].kind == FV_BCAST && vals[v].invariant && last_use[v] >= 0) {
                if (n_slots >= 256)
                    goto toobig;
                slot_free_after[n_slots] = INT32_MAX;
                vals[v].slot = (int32_t)n_slots++;
            }
        for (int32_t s = 0; s < (int32_t)F->n_steps; s++)
            for (uint32_t v = 0; v < vm->n; v++) {
                bool needs = (vals[v].kind == FV_TEMP || (vals[v].kind == FV_BCAST && !vals[v].invariant)) &&
                             def_step[v] == s && vals[v].slot < 0;
                if (!needs)
                    continue;
                int32_t got = -1;
                for (uint32_t k = 0; k < n_slots && got < 0; k++)
                    if (slot_free_after[k] < s)
                        got = (int32_t)k;
                if (got < 0) {
                    if (n_slots >= 256)
                        goto toobig;
                    got = (int32_t)n_slots++;
                }
                vals[v].slot = got;
                /* a broadcast materialized for step s is read by s; a temp
                 * defined by s is live through its last use */
                slot_free_after[got] = last_use[v] > s ? last_use[v] : s;
            }
        /* Loop groups: a result that leaves the group and is not read by a
         * later step is computed into one L1 tile and streamed out (no read
         * for ownership of the destination lines). */
        F->stream_slot = -1;
        for (uint32_t s = 0; !F->rows && s < F->n_steps; s++) {
            fstep *st = &F->steps[s];
            if (vals[st->out].kind != FV_OUT || st->space != 0)
                continue;
            bool read = false;
            for (uint32_t t = s + 1; t < F->n_steps && !read; t++)
                for (uint32_t i = 0; i < F->steps[t].n_in; i++)
                    read |= F->steps[t].in[i] == st->out;
            if (read)
                continue;
            if (F->stream_slot < 0) {
                if (n_slots >= 256)
                    goto toobig;
                F->stream_slot = (int32_t)n_slots++;
            }
            st->stream = true;
        }
        F->n_slots = n_slots;
    }
    /* where each broadcast value is first read is fixed by the step list:
     * decided here once, not per unit */
    for (uint32_t s = 0; s < F->n_steps; s++) {
        fstep *st = &F->steps[s];
        st->first_read = 0;
        for (uint32_t i = 0; i < st->n_in && i < 16; i++) {
            bool first = true;
            for (uint32_t k = 0; k < s && first; k++)
                for (uint32_t j = 0; j < F->steps[k].n_in; j++)
                    if (F->steps[k].in[j] == st->in[i])
                        first = false;
            if (first)
                st->first_read |= (uint16_t)(1u << i);
        }
    }
    F->vals = plumb_arena_array(a, vm->n ? vm->n : 1, sizeof *F->vals);
    if (!F->vals) {
        nomem(d, z->f);
        goto out;
    }
    memcpy(F->vals, vals, vm->n * sizeof *vals);
    F->n_vals = vm->n;
    F->n_pf = 0;
    for (uint32_t i = 0; i < F->n_vals && F->n_pf < 4; i++)
        if (vals[i].kind == FV_IN && vals[i].space == 0)
            F->pf_vals[F->n_pf++] = i;
    F->regs = regs_ok(F);
    g->fused = F;
    ok = true;
    goto out;
toobig:
    /* Too many values for one kernel: run the ops one by one. */
    g->fused = NULL;
    ok = false;
    plumb_diag_set(d, PLUMB_ERR_LIMIT, z->ops[mem[0]]->loc, "fusion group of @%s has more than %u values",
                   z->f->name, RT_MAX_VALS);
out:
    plumb_free(vm, sizeof *vm);
    plumb_free(vals, RT_MAX_VALS * sizeof *vals);
    plumb_free(def_step, RT_MAX_VALS * sizeof *def_step);
    plumb_free(last_use, RT_MAX_VALS * sizeof *last_use);
    return ok;
}

/* ---- execution ------------------------------------------------------------------------ */

typedef struct frun {
    rt_exec *x;
    bool stream;              /* loop groups stream results out (AVX-512 only) */
    const rt_fused *g;
    plumb_tensor *const *in;
    plumb_tensor *const *out;
    uint8_t *scratch;         /* chunks * n_slots * slot_bytes */
    atomic_bool failed;
} frun;

/* n copies of one element: the first few by hand, then doubling copies
 * (memcpy runs at store bandwidth; a per-element loop does not). */
static void fill(void *dst, const void *src, size_t es, size_t n)
{
    if (n == 0)
        return;
    if (es == 1) {
        memset(dst, *(const uint8_t *)src, n);
        return;
    }
    uint8_t *d = dst;
    size_t total = n * es, have = es;
    memcpy(d, src, es);
    while (have < 64 && have < total) {
        size_t c = have < total - have ? have : total - have;
        memcpy(d + have, d, c);
        have += c;
    }
    while (have < total) {
        size_t c = have < total - have ? have : total - have;
        memcpy(d + have, d, c);
        have += c;
    }
}

/* Elements [off, off + n) of a broadcast value, by index arithmetic. */
static void materialize(const fval *v, const uint8_t *src, uint64_t off, size_t n, uint8_t *dst)
{
    size_t es = v->es;
    uint32_t R = v->rank;
    bool zero = true;
    for (uint32_t j = 0; j < R; j++)
        zero &= v->stride[j] == 0;
    if (zero) {
        fill(dst, src, es, n);
        return;
    }
    uint64_t idx[PLUMB_MAX_RANK];
    uint64_t rem = off;
    int64_t so = 0;
    for (uint32_t j = R; j-- > 0;) {
        idx[j] = rem % (uint64_t)v->dims[j];
        rem /= (uint64_t)v->dims[j];
        so += (int64_t)idx[j] * v->stride[j];
    }
    size_t done = 0;
    int64_t s = v->stride[R - 1];
    uint64_t inner = (uint64_t)v->dims[R - 1];
    while (done < n) {
        size_t run = (size_t)(inner - idx[R - 1]);
        if (run > n - done)
            run = n - done;
        uint8_t *o = dst + done * es;
        if (s == 0)
            fill(o, src + so * (int64_t)es, es, run);
        else if (s == 1)
            memcpy(o, src + so * (int64_t)es, run * es);
        else
            for (size_t i = 0; i < run; i++)
                memcpy(o + i * es, src + (so + (int64_t)i * s) * (int64_t)es, es);
        done += run;
        so += (int64_t)run * s;
        idx[R - 1] += run;
        for (uint32_t j = R - 1; j > 0 && idx[j] == (uint64_t)v->dims[j]; j--) {
            so -= (int64_t)idx[j] * v->stride[j];
            idx[j] = 0;
            idx[j - 1]++;
            so += v->stride[j - 1];
        }
    }
}

/* base + off bytes; empty tensors have no data (and no offset is taken). */
static inline uint8_t *at(void *base, uint64_t off)
{
    return base ? (uint8_t *)base + off : NULL;
}

static inline float max_ieee(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* ---- f32 arithmetic with per-row operands ---------------------------------------------
 * The same bits as the elementwise kernels' f32 add/subtract/multiply/divide:
 * the IEEE result, and in a NaN lane the first operand's NaN quieted, else
 * the second's, else the positive default NaN 0x7FC00000. An operand marked
 * in per_row is one value for the whole row. */
static inline uint32_t arith_nan(uint32_t r, uint32_t x, uint32_t y)
{
    if ((r & 0x7fffffffu) <= 0x7f800000u)
        return r;
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return x | 0x00400000u;
    if ((y & 0x7fffffffu) > 0x7f800000u)
        return y | 0x00400000u;
    return 0x7fc00000u;
}

/* [p, p + n) and [o, o + n) share memory */
static inline bool rt_f32_overlap(const float *p, const float *o, size_t n)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)o, len = (uintptr_t)n * 4;
    return x < y + len && y < x + len;
}

static void arith_portable(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float x = a[(per_row & 1) ? 0 : i], y = b[(per_row & 2) ? 0 : i], r;
        switch (code) {
        case PLUMB_OP_ADD: r = x + y; break;
        case PLUMB_OP_SUBTRACT: r = x - y; break;
        case PLUMB_OP_MULTIPLY: r = x * y; break;
        default: r = x / y; break;
        }
        uint32_t rb, xb, yb;
        memcpy(&rb, &r, 4);
        memcpy(&xb, &x, 4);
        memcpy(&yb, &y, 4);
        rb = arith_nan(rb, xb, yb);
        memcpy(o + i, &rb, 4);
    }
}

#if RT_X86
/* One loop per (operation, per-row operand, streaming) with all three
 * known at compile time: a loop that tests them per vector runs at half
 * the speed (branches and mask moves in every iteration). */
__attribute__((target("avx512f"), always_inline))
static inline void arith_loop16(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o,
                                size_t i, size_t n, bool stream)
{
    __m512 xs = _mm512_set1_ps(a[0]), ys = _mm512_set1_ps(b[0]);
    for (; i + 16 <= n; i += 16) {
        __m512 x = (per_row & 1) ? xs : _mm512_loadu_ps(a + i);
        __m512 y = (per_row & 2) ? ys : _mm512_loadu_ps(b + i);
        __m512 r;
        switch (code) {
        case PLUMB_OP_ADD: r = _mm512_add_ps(x, y); break;
        case PLUMB_OP_SUBTRACT: r = _mm512_sub_ps(x, y); break;
        case PLUMB_OP_MULTIPLY: r = _mm512_mul_ps(x, y); break;
        default: r = _mm512_div_ps(x, y); break;
        }
        if (__builtin_expect(_mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q) != 0, 0)) {
            _mm512_storeu_ps(o + i, r);
            arith_portable(code, (per_row & 1) ? a : a + i, (per_row & 2) ? b : b + i, per_row, o + i, 16);
        } else if (stream) {
            _mm512_stream_ps(o + i, r);
        } else {
            _mm512_storeu_ps(o + i, r);
        }
    }
}

#define RT_ARITH_CASE(CODE, PR, ST)                       \
    case ((CODE) * 8 + (PR) * 2 + (ST)):                  \
        arith_loop16(CODE, a, b, PR, o, i, n, ST);        \
        break;
#define RT_ARITH_OP(CODE) \
    RT_ARITH_CASE(CODE, 0, 0) RT_ARITH_CASE(CODE, 0, 1) RT_ARITH_CASE(CODE, 1, 0) \
    RT_ARITH_CASE(CODE, 1, 1) RT_ARITH_CASE(CODE, 2, 0) RT_ARITH_CASE(CODE, 2, 1) \
    RT_ARITH_CASE(CODE, 3, 0) RT_ARITH_CASE(CODE, 3, 1)

/* Streaming stores need 64-byte alignment: lanes before the first aligned
 * one go through the plain path (the NaN fix-up then rewrites lanes in
 * order, so it never races a streamed line). */
__attribute__((target("avx512f")))
static void arith_avx512(plumb_opcode code, const float *a, const float *b, unsigned per_row, float *o, size_t n,
                         bool stream)
{
    /* a row not a whole number of vectors, or not starting on a line: its
     * first and last vectors are computed whole into a buffer, overlapping
     * the middle's operands, and only their own lanes copied out (a plain
     * store into a line the middle streams, or the reverse, would cost a
     * line flush each); not when the result shares memory with a full-row
     * operand (the last vector would read results) */
    bool whole = n >= 16 && !((per_row & 1) == 0 && rt_f32_overlap(a, o, n)) &&
                 !((per_row & 2) == 0 && rt_f32_overlap(b, o, n));
    size_t i = 0;
    if (stream) {
        size_t head = (size_t)((64 - ((uintptr_t)o & 63)) & 63);
        if (head % 4 != 0 || n < 64)
            stream = false;
        else if (head) {
            head /= 4;
            if (whole) {
                float t[16];
                arith_loop16(code, a, b, per_row, t, 0, 16, false);
                memcpy(o, t, head * sizeof *o);
            } else {
                arith_portable(code, a, b, per_row, o, head);
            }
            i = head;
        }
    }
    unsigned key = (unsigned)code * 8 + (per_row & 3) * 2 + (stream ? 1 : 0);
    switch (key) {
    RT_ARITH_OP(PLUMB_OP_ADD)
    RT_ARITH_OP(PLUMB_OP_SUBTRACT)
    RT_ARITH_OP(PLUMB_OP_MULTIPLY)
    RT_ARITH_OP(PLUMB_OP_DIVIDE)
    default: break;
    }
    size_t done = i + (n - i) / 16 * 16;
    if (done < n && whole) {
        float t[16];
        arith_loop16(code, (per_row & 1) ? a : a + n - 16, (per_row & 2) ? b : b + n - 16, per_row, t, 0, 16, false);
        memcpy(o + done, t + 16 - (n - done), (n - done) * sizeof *o);
    } else if (done < n)
        arith_portable(code, (per_row & 1) ? a : a + done, (per_row & 2) ? b : b + done, per_row, o + done,
                       n - done);
    /* no fence here: run_chunk fences once at the end of its chunk (a
     * thread's own later loads see its streamed stores without one) */
}
#undef RT_ARITH_OP
#undef RT_ARITH_CASE
#endif

static void row_arith(plumb_isa isa, plumb_opcode code, const void *a, const void *b, unsigned per_row, float *o,
                      size_t n, bool stream)
{
    if (n == 0)
        return;
#if RT_X86
    if (isa == PLUMB_ISA_AVX512) {
        arith_avx512(code, a, b, per_row, o, n, stream);
        return;
    }
#else
    (void)isa;
    (void)stream;
#endif
    arith_portable(code, a, b, per_row, o, n);
}

/* The sqsum pass over one row: xc = x - m stored, xc * xc summed in the
 * lanes and order of rt_sum_f32 (rt_sum.h) without being stored. The same
 * IEEE operations and NaN rule as row_arith, so the same bits as the three
 * steps run apart. */
typedef struct sqsum_ctx {
    const float *x;
    float m;
    float *xc;
} sqsum_ctx;

/* Elements [i, i + k) of a block, k <= RT_SUM_LANES, added to lanes 0..k-1. */
static void sqsum_part(const sqsum_ctx *c, size_t i, size_t k, double *l)
{
    float q[RT_SUM_LANES];
    arith_portable(PLUMB_OP_SUBTRACT, c->x + i, &c->m, 2, c->xc + i, k);
    arith_portable(PLUMB_OP_MULTIPLY, c->xc + i, c->xc + i, 0, q, k);
    for (size_t j = 0; j < k; j++)
        l[j] = l[j] + (double)q[j];
}

static double sqsum_block_portable(void *ctx, size_t start, size_t n)
{
    double l[RT_SUM_LANES];
    for (unsigned j = 0; j < RT_SUM_LANES; j++)
        l[j] = -0.0;
    for (size_t i = 0; i < n; i += RT_SUM_LANES)
        sqsum_part(ctx, start + i, n - i < RT_SUM_LANES ? n - i : RT_SUM_LANES, l);
    return rt_sum_fold_lanes(l);
}

#if RT_X86
/* 32 elements per iteration: lanes 0-7, 8-15, 16-23, 24-31 in a[0..3] as in
 * the row-sum kernel. A NaN in xc sends those 32 through the portable
 * subtraction (its NaN rule); squaring a NaN then gives it back unchanged in
 * both forms, and a non-NaN square is never NaN. */
__attribute__((target("avx512f")))
static double sqsum_block_avx512(void *ctx, size_t start, size_t n)
{
    const sqsum_ctx *c = ctx;
    const float *x = c->x + start;
    float *o = c->xc + start;
    __m512 m = _mm512_set1_ps(c->m);
    __m512d a[4];
    rt_sum_lanes_init(a);
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        __m512 c0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
        __m512 c1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m);
        _mm512_storeu_ps(o + i, c0);
        _mm512_storeu_ps(o + i + 16, c1);
        if (__builtin_expect((_mm512_cmp_ps_mask(c0, c0, _CMP_UNORD_Q) |
                              _mm512_cmp_ps_mask(c1, c1, _CMP_UNORD_Q)) != 0, 0)) {
            arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, o + i, RT_SUM_LANES);
            c0 = _mm512_loadu_ps(o + i);
            c1 = _mm512_loadu_ps(o + i + 16);
        }
        rt_sum_lanes_add32(a, _mm512_mul_ps(c0, c0), _mm512_mul_ps(c1, c1));
    }
    if (i < n) {
        /* the tail's centred values and squares as sqsum_part computes them */
        float q[RT_SUM_LANES];
        arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, o + i, n - i);
        arith_portable(PLUMB_OP_MULTIPLY, o + i, o + i, 0, q, n - i);
        rt_sum_lanes_add_tail(a, q, n - i);
    }
    return rt_sum_lanes_fold(a);
}
#endif

/* Returns the row sum of (x - m)^2 as rt_sum_f32 would, xc written. */
static float run_sqsum(plumb_isa isa, const float *x, float m, float *xc, size_t n)
{
    sqsum_ctx c = {x, m, xc};
    rt_sum_block_fn fn = sqsum_block_portable;
#if RT_X86
    if (isa == PLUMB_ISA_AVX512)
        fn = sqsum_block_avx512;
#else
    (void)isa;
#endif
    return (float)rt_sum_blocks(fn, &c, n);
}

#if RT_X86
/* The expsum pass over one row (AVX-512): e = exp(x - m) stored, e summed
 * in the lanes and order of rt_sum_f32 as it is computed. The subtraction
 * is row_arith's (a NaN sends its 32 elements through arith_portable, its
 * NaN rule); the exp is x16_exp, and a block of 32 with a lane it flags
 * goes through the exp step's own array function (exact), so e has
 * the bits of the three steps run apart and the sum adds the same terms
 * in the same order. */
typedef struct expsum_ctx {
    const float *x;
    float m;
    float *e;
    rt_vmath_f32_fn exp32;    /* the exp step's kernel at this level */
} expsum_ctx;

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
static double expsum_block_avx512(void *ctx, size_t start, size_t n)
{
    const expsum_ctx *c = ctx;
    const float *x = c->x + start;
    float *o = c->e + start;
    __m512 m = _mm512_set1_ps(c->m);
    __m512d a[4];
    rt_sum_lanes_init(a);
    float t[RT_SUM_LANES];
    size_t i = 0;
    for (; i + RT_SUM_LANES <= n; i += RT_SUM_LANES) {
        __m512 c0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
        __m512 c1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m);
        __mmask16 b0, b1;
        __m512 e0 = x16_exp(c0, &b0), e1 = x16_exp(c1, &b1);
        /* a NaN in x - m is flagged by the exp (which flags NaN inputs) */
        if (__builtin_expect((b0 | b1) != 0, 0)) {
            arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, t, RT_SUM_LANES);
            c->exp32(t, o + i, RT_SUM_LANES);
            e0 = _mm512_loadu_ps(o + i);
            e1 = _mm512_loadu_ps(o + i + 16);
        } else {
            _mm512_storeu_ps(o + i, e0);
            _mm512_storeu_ps(o + i + 16, e1);
        }
        rt_sum_lanes_add32(a, e0, e1);
    }
    if (i < n) {
        arith_portable(PLUMB_OP_SUBTRACT, x + i, &c->m, 2, t, n - i);
        c->exp32(t, o + i, n - i);
        rt_sum_lanes_add_tail(a, o + i, n - i);
    }
    return rt_sum_lanes_fold(a);
}

/* Returns the row sum of e = exp(x - m) as rt_sum_f32 would, e written;
 * exp32: the exp step's kernel at the AVX-512 level. */
static float run_expsum(const float *x, float m, float *e, size_t n, rt_vmath_f32_fn exp32)
{
    expsum_ctx c = {x, m, e, exp32};
    return (float)rt_sum_blocks(expsum_block_avx512, &c, n);
}
#endif

/* ---- chains of f32 arithmetic in registers ----------------------------------------------
 * A chain (fstep.chain) of 2..RT_CHAIN_MAX row_arith steps, each result read
 * only by the next, runs as one loop: each link's IEEE operation on the
 * running value and the link's other operand (a full row or a per-row
 * value, on either side), the intermediates never stored. A NaN anywhere in
 * the chain reaches its result (every operation returns NaN for a NaN
 * operand), so a block whose result has no NaN lane needed no NaN rule on
 * the way; a block with one is recomputed link by link by arith_portable,
 * which gives exactly the separate steps' bits. */
typedef struct chain_rt {
    uint32_t n;                        /* links */
    plumb_opcode code[RT_CHAIN_MAX];
    uint8_t side[RT_CHAIN_MAX];        /* links 1..: the operand the running value is */
    bool scal[RT_CHAIN_MAX];           /* links 1..: the other operand is one value per row */
    const float *p[RT_CHAIN_MAX];      /* links 1..: the other operand; head: its first */
    const float *b;                    /* head: its second operand */
    unsigned head_pr;                  /* head: per_row bits */
    float sv[RT_CHAIN_MAX + 1];        /* per-row values, copied before any store (a result
                                        * slot may not share their memory, but the copy costs
                                        * nothing); p[] and b then point here */
} chain_rt;

#define RT_CHAIN_BLOCK 128u

#if RT_X86   /* the AVX-512 chain's NaN blocks and unaligned ends */
/* Elements [i, i + k), k <= RT_CHAIN_BLOCK, of the chain into o[0..k). */
static void chain_portable(const chain_rt *c, size_t i, size_t k, float *o)
{
    float t[RT_CHAIN_BLOCK];
    arith_portable(c->code[0], (c->head_pr & 1) ? c->p[0] : c->p[0] + i, (c->head_pr & 2) ? c->b : c->b + i,
                   c->head_pr, t, k);
    for (uint32_t j = 1; j < c->n; j++) {
        const float *y = c->scal[j] ? c->p[j] : c->p[j] + i;
        if (c->side[j] == 0)
            arith_portable(c->code[j], t, y, c->scal[j] ? 2u : 0u, t, k);
        else
            arith_portable(c->code[j], y, t, c->scal[j] ? 1u : 0u, t, k);
    }
    memcpy(o, t, k * sizeof *o);
}

static void chain_portable_range(const chain_rt *c, size_t i, size_t n, float *o)
{
    while (i < n) {
        size_t k = n - i < RT_CHAIN_BLOCK ? n - i : RT_CHAIN_BLOCK;
        chain_portable(c, i, k, o + i);
        i += k;
    }
}
#endif

#if RT_X86
__attribute__((target("avx512f"), always_inline))
static inline __m512 chain_op(plumb_opcode code, __m512 x, __m512 y)
{
    switch (code) {
    case PLUMB_OP_ADD: return _mm512_add_ps(x, y);
    case PLUMB_OP_SUBTRACT: return _mm512_sub_ps(x, y);
    case PLUMB_OP_MULTIPLY: return _mm512_mul_ps(x, y);
    default: return _mm512_div_ps(x, y);
    }
}

/* The head on B vectors from element i: per_row PR known at compile time. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_head(plumb_opcode code, unsigned pr, const float *a, const float *b, __m512 as, __m512 bs,
                              size_t i, __m512 *v, unsigned B)
{
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        __m512 x = (pr & 1) ? as : _mm512_loadu_ps(a + i + 16 * k);
        __m512 y = (pr & 2) ? bs : _mm512_loadu_ps(b + i + 16 * k);
        v[k] = chain_op(code, x, y);
    }
}

/* One link on B vectors: operation, side and operand kind known at compile time. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_link(plumb_opcode code, unsigned side, bool scal, const float *p, __m512 s, size_t i,
                              __m512 *v, unsigned B)
{
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        __m512 y = scal ? s : _mm512_loadu_ps(p + i + 16 * k);
        v[k] = side ? chain_op(code, y, v[k]) : chain_op(code, v[k], y);
    }
}

#define RT_HEAD_CASE(CODE, PR) \
    case (CODE) * 4 + (PR): chain_head(CODE, PR, c->p[0], c->b, sc[0], sb, i, v, B); break;
#define RT_LINK_CASE(CODE, SIDE, SCAL) \
    case (CODE) * 4 + (SIDE) * 2 + (SCAL): chain_link(CODE, SIDE, SCAL, c->p[j], sc[j], i, v, B); break;
#define RT_HEAD_OP(CODE) RT_HEAD_CASE(CODE, 0) RT_HEAD_CASE(CODE, 1) RT_HEAD_CASE(CODE, 2)
#define RT_LINK_OP(CODE) \
    RT_LINK_CASE(CODE, 0, 0) RT_LINK_CASE(CODE, 0, 1) RT_LINK_CASE(CODE, 1, 0) RT_LINK_CASE(CODE, 1, 1)

/* B vectors from element i through every link, one switch per link per
 * block (not per vector). */
__attribute__((target("avx512f"), always_inline))
static inline void chain_block_any(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, __m512 *v, unsigned B)
{
    switch ((unsigned)c->code[0] * 4 + c->head_pr) {
    RT_HEAD_OP(PLUMB_OP_ADD)
    RT_HEAD_OP(PLUMB_OP_SUBTRACT)
    RT_HEAD_OP(PLUMB_OP_MULTIPLY)
    RT_HEAD_OP(PLUMB_OP_DIVIDE)
    default: __builtin_unreachable();   /* arith_f32 ops, per_row 0..2 */
    }
    for (uint32_t j = 1; j < c->n; j++) {
        switch ((unsigned)c->code[j] * 4 + c->side[j] * 2u + (c->scal[j] ? 1u : 0u)) {
        RT_LINK_OP(PLUMB_OP_ADD)
        RT_LINK_OP(PLUMB_OP_SUBTRACT)
        RT_LINK_OP(PLUMB_OP_MULTIPLY)
        RT_LINK_OP(PLUMB_OP_DIVIDE)
        default: __builtin_unreachable();   /* arith_f32 ops */
        }
    }
}
#undef RT_HEAD_CASE
#undef RT_LINK_CASE
#undef RT_HEAD_OP
#undef RT_LINK_OP

/* layer_norm's normalization, (xc * rstd) * gamma + beta: the whole chain
 * known at compile time. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_block_ln(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, __m512 *v, unsigned B)
{
    chain_head(PLUMB_OP_MULTIPLY, 2, c->p[0], c->b, sc[0], sb, i, v, B);
    chain_link(PLUMB_OP_MULTIPLY, 0, false, c->p[1], sc[1], i, v, B);
    chain_link(PLUMB_OP_ADD, 0, false, c->p[2], sc[2], i, v, B);
}

static bool chain_is_ln(const chain_rt *c)
{
    return c->n == 3 && c->code[0] == PLUMB_OP_MULTIPLY && c->head_pr == 2 && c->code[1] == PLUMB_OP_MULTIPLY &&
           c->side[1] == 0 && !c->scal[1] && c->code[2] == PLUMB_OP_ADD && c->side[2] == 0 && !c->scal[2];
}

/* Stores B vectors at o + i, after the NaN check of the chain's result. */
__attribute__((target("avx512f"), always_inline))
static inline void chain_store(const chain_rt *c, __m512 *v, float *o, size_t i, bool stream, unsigned B)
{
    __mmask16 nan = 0;
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++)
        nan |= _mm512_cmp_ps_mask(v[k], v[k], _CMP_UNORD_Q);
    if (__builtin_expect(nan != 0, 0)) {
        float t[RT_CHAIN_BLOCK];
        chain_portable(c, i, 16 * B, t);
        _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++)
            v[k] = _mm512_loadu_ps(t + 16 * k);
    }
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < B; k++) {
        if (stream)
            _mm512_stream_ps(o + i + 16 * k, v[k]);
        else
            _mm512_storeu_ps(o + i + 16 * k, v[k]);
    }
}

#define RT_CHAIN_VECS 8u   /* vectors per block: the switches run once per 128 elements */

__attribute__((target("avx512f"), always_inline))
static inline size_t chain_loop(const chain_rt *c, const __m512 *sc, __m512 sb, float *o, size_t i, size_t n,
                                bool stream, bool ln)
{
    __m512 v[RT_CHAIN_VECS];
    for (; i + 16 * RT_CHAIN_VECS <= n; i += 16 * RT_CHAIN_VECS) {
        if (ln)
            chain_block_ln(c, sc, sb, i, v, RT_CHAIN_VECS);
        else
            chain_block_any(c, sc, sb, i, v, RT_CHAIN_VECS);
        chain_store(c, v, o, i, stream, RT_CHAIN_VECS);
    }
    for (; i + 16 <= n; i += 16) {
        if (ln)
            chain_block_ln(c, sc, sb, i, v, 1);
        else
            chain_block_any(c, sc, sb, i, v, 1);
        chain_store(c, v, o, i, stream, 1);
    }
    return i;
}

/* The vector of the chain at element i computed whole; its lanes
 * [from, from + k) stored to o + i + from. */
__attribute__((target("avx512f")))
static void chain_one(const chain_rt *c, const __m512 *sc, __m512 sb, size_t i, float *o, size_t k, size_t from)
{
    __m512 v[1];
    float t[16];
    chain_block_any(c, sc, sb, i, v, 1);
    if (_mm512_cmp_ps_mask(v[0], v[0], _CMP_UNORD_Q))
        chain_portable(c, i, 16, t);
    else
        _mm512_storeu_ps(t, v[0]);
    memcpy(o + i + from, t + from, k * sizeof *o);
}

/* Streaming stores need 64-byte alignment: the lanes before the first
 * aligned one are computed apart (chain_one, or the portable chain). */
__attribute__((target("avx512f")))
static void chain_avx512(const chain_rt *c, float *o, size_t n, bool stream)
{
    /* first and last vectors whole into a buffer, as in arith_avx512 */
    bool whole = n >= 16 && !(!(c->head_pr & 1) && rt_f32_overlap(c->p[0], o, n)) &&
                 !(!(c->head_pr & 2) && rt_f32_overlap(c->b, o, n));
    for (uint32_t j = 1; j < c->n; j++)
        whole &= c->scal[j] || !rt_f32_overlap(c->p[j], o, n);
    __m512 sc[RT_CHAIN_MAX];
    for (uint32_t j = 0; j < c->n; j++)
        sc[j] = _mm512_set1_ps(c->p[j][0]);   /* used only where p[j] is a per-row value */
    __m512 sb = _mm512_set1_ps(c->b[0]);
    bool ln = chain_is_ln(c);
    size_t i = 0;
    if (stream) {
        size_t head = (size_t)((64 - ((uintptr_t)o & 63)) & 63);
        if (head % 4 != 0 || n < 64) {
            stream = false;
        } else if (head) {
            if (whole)
                chain_one(c, sc, sb, 0, o, head / 4, 0);
            else
                chain_portable_range(c, 0, head / 4, o);
            i = head / 4;
        }
    }
    if (stream)
        i = ln ? chain_loop(c, sc, sb, o, i, n, true, true) : chain_loop(c, sc, sb, o, i, n, true, false);
    else
        i = ln ? chain_loop(c, sc, sb, o, i, n, false, true) : chain_loop(c, sc, sb, o, i, n, false, false);
    if (i < n && whole)
        chain_one(c, sc, sb, n - 16, o, n - i, 16 - (n - i));
    else
        chain_portable_range(c, i, n, o);   /* fenced by run_chunk, as arith_avx512 */
}
#endif

#if RT_X86
/* Whole 64-byte lines go out with streaming stores; the unaligned head and
 * tail (shared with neighbouring tiles' lines) through the cache. */
__attribute__((target("avx512f")))
static void stream_copy_avx512(uint8_t *dst, const uint8_t *src, size_t bytes)
{
    size_t head = (size_t)((64 - ((uintptr_t)dst & 63)) & 63);
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i)));
    memcpy(dst + i, src + i, bytes - i);
}
#endif

static void stream_copy(uint8_t *dst, const uint8_t *src, size_t bytes)
{
#if RT_X86
    stream_copy_avx512(dst, src, bytes);
#else
    memcpy(dst, src, bytes);
#endif
}

/* The operand pointers of step s in the unit at off[], cnt[], broadcasts
 * materialized when first read in the unit (invariant ones once per chunk). */
static bool step_ins(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit, uint32_t s,
                     const void **ins)
{
    const rt_fused *g = fr->g;
    const fstep *st = &g->steps[s];
    if (st->n_in > 16)
        return false;
    for (uint32_t i = 0; i < st->n_in; i++) {
        const fval *v = &g->vals[st->in[i]];
        uint64_t o = off[v->space];
        switch (v->kind) {
        case FV_IN:
            ins[i] = at(fr->in[v->io]->data, o * v->es);
            break;
        case FV_OUT:
            ins[i] = at(fr->out[v->io]->data, o * v->es);
            break;
        case FV_TEMP:
            ins[i] = slots + (size_t)v->slot * g->slot_bytes;
            break;
        case FV_BCAST: {
            uint8_t *buf = slots + (size_t)v->slot * g->slot_bytes;
            ins[i] = buf;
            /* materialized when first read in this unit (invariant ones
             * once per chunk); a value read twice by one step is
             * materialized twice, harmlessly */
            bool first_read = (st->first_read >> i) & 1;
            if (first_read && (!v->invariant || first_unit)) {
                /* an invariant value is materialized for a whole unit
                 * (row, or tile) from offset 0: its elements do not
                 * depend on the unit */
                size_t nn = cnt[v->space];
                if (v->invariant)
                    nn = v->space ? (size_t)g->rpu : g->rows ? (size_t)(g->row_len * g->rpu) : RT_TILE;
                if (nn)
                    materialize(v, fr->in[v->io]->data, v->invariant ? 0 : o, nn, buf);
            }
            break;
        }
        }
    }
    return true;
}

static uint8_t *step_dst(const frun *fr, uint8_t *slots, const uint64_t *off, const fstep *st)
{
    const rt_fused *g = fr->g;
    const fval *ov = &g->vals[st->out];
    return ov->kind == FV_OUT ? at(fr->out[ov->io]->data, off[ov->space] * ov->es)
                              : slots + (size_t)ov->slot * g->slot_bytes;
}

/* A unit of several rows reads a per-row operand of a step (one value per
 * row) while the step writes its rows, and slot planning may give the
 * result the slot of that operand when this step is its last use (softmax's
 * exp takes the row max's): writing row 0 would overwrite the values of the
 * later rows. So those operands are copied aside first (rows values each,
 * into aside[i]) and read from there. One row per unit never needed it: a
 * step read its one per-row value before writing. */
static void rows_aside(const rt_fused *g, const fstep *st, const void **ins, size_t rows,
                       uint8_t (*aside)[RT_RPU_MAX * 8])
{
    if (rows < 2)
        return;
    for (uint32_t i = 0; i < st->n_in && i < 16; i++)
        if (g->vals[st->in[i]].space == 1) {
            memcpy(aside[i], ins[i], rows * g->vals[st->in[i]].es);
            ins[i] = aside[i];
        }
}

/* The chain headed by step s on a row of n > 0 elements (AVX-512); ins:
 * the head's operands. */
static bool run_chain(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit, uint32_t s,
                      const void **ins, size_t n)
{
#if RT_X86
    const rt_fused *g = fr->g;
    const fstep *st = &g->steps[s];
    /* the operands of every link: link 0's are ins */
    /* no copies aside (rows_aside) for the links: slot planning keeps every
     * chain operand live to the chain's last step, so the result never
     * takes an operand's slot */
    const void *li[RT_CHAIN_MAX][16];
    for (uint32_t j = 1; j < st->chain; j++)
        if (!step_ins(fr, slots, off, cnt, first_unit, s + j, li[j]))
            return false;
    const fstep *last = &g->steps[s + st->chain - 1];
    float *dst = (float *)step_dst(fr, slots, off, last);
    /* row by row (a unit holds cnt[1] rows of n / cnt[1] elements): a
     * per-row operand is the row's element of its per-row value */
    size_t rows = g->rows && cnt[1] ? cnt[1] : 1, len = n / rows;
    for (size_t r = 0; r < rows; r++) {
        chain_rt c;
        c.n = st->chain;
        c.code[0] = st->op->code;
        c.head_pr = st->per_row;
        c.side[0] = 0;
        c.scal[0] = false;
        const float *a = ins[0], *b = ins[1];
        a += (st->per_row & 1) ? r : r * len;
        b += (st->per_row & 2) ? r : r * len;
        c.sv[0] = *a;
        c.sv[RT_CHAIN_MAX] = *b;
        c.p[0] = (st->per_row & 1) ? &c.sv[0] : a;
        c.b = (st->per_row & 2) ? &c.sv[RT_CHAIN_MAX] : b;
        for (uint32_t j = 1; j < c.n; j++) {
            const fstep *lk = &g->steps[s + j];
            unsigned other = 1u - lk->run_side;
            c.code[j] = lk->op->code;
            c.side[j] = lk->run_side;
            c.scal[j] = (lk->per_row >> other) & 1u;
            const float *p = (const float *)li[j][other] + (c.scal[j] ? r : r * len);
            c.sv[j] = *p;
            c.p[j] = c.scal[j] ? &c.sv[j] : p;
        }
        chain_avx512(&c, dst + r * len, len, last->stream);
    }
    return true;
#else
    (void)fr, (void)slots, (void)off, (void)cnt, (void)first_unit, (void)s, (void)ins, (void)n;
    return false;
#endif
}

/* ---- half register segments (execution) ---------------------------------------------
 * A segment (fstep.hseg, planned by mark_hsegs) on one unit: row by row
 * (a loop group's tile is one row), block by block of HS_BLOCK elements,
 * every step of the segment. Each value lives in a block buffer of half
 * patterns; a register step loads and widens its operands (exactly: F16C /
 * AVX-512 for f16, a shift for bf16), computes in f32, rounds once to the
 * half type (vcvtps2ph, or the integer round to nearest even at bit 16
 * for bf16: the same narrowings as k_ew_half.c's loops) and keeps the
 * pattern for the next step; stored results leave once per block.
 *
 * Bits: the register steps are exactly what rt_ew_half computes for each
 * lane it does not flag (docs/runtime-ew-half.md): add, subtract,
 * multiply, divide and sqrt are one f32 operation rounded once; negate
 * and abs the sign operation on the pattern; exp, logistic and tanh the
 * same x16_* function as x16_arr_* rounded once. The lanes where the
 * kernel applies other rules are flagged here with the kernel's own
 * conditions (a NaN result, and for the three functions the x16_* flags,
 * |r| below the half type's smallest normal or finite at or above its
 * largest finite value) and recomputed by rt_ew_tile on their original
 * operand patterns, gathered: the kernel computes each element from its
 * operands alone, so those lanes get exactly its bits, NaN payloads
 * included. Other ops run rt_ew_tile on the block. So a segment gives the
 * step-by-step bits at every lane, and the other levels, which run the
 * steps one by one, agree with it. */
#define HS_BLOCK 256u

#if RT_X86
#define HS_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))

HS_TARGET static inline __m512 hs_widen(bool f16, __m256i h)
{
    if (f16)
        return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* round to nearest even; NaN lanes are flagged by the callers and their
 * patterns replaced */
HS_TARGET static inline __m256i hs_narrow(bool f16, __m512 r)
{
    if (f16)
        return _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i v = _mm512_castps_si512(r);
    v = _mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                             _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1))));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16));
}

/* One register step over the m <= HS_BLOCK elements of a block: operands
 * pa (and pc) as half patterns, the result's patterns into o, the lanes
 * the kernel treats otherwise into fl (per vector of 16); returns whether
 * any is flagged. Inlined with constant code and type, so each op's loop
 * is compiled on its own (a loop that switched per vector ran at a third
 * of the speed). */
HS_TARGET static inline __attribute__((always_inline)) __mmask16 hs_loop(plumb_opcode code, bool f16,
                                                                          const uint16_t *pa, const uint16_t *pc,
                                                                          uint16_t *o, size_t m, __mmask16 *fl)
{
    __mmask16 any = 0;
    unsigned nv = (unsigned)((m + 15) / 16);
    for (unsigned k = 0; k < nv; k++) {
        __mmask16 lm = (size_t)16 * (k + 1) <= m ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - 16 * k)) - 1u);
        __m256i ha = _mm256_maskz_loadu_epi16(lm, pa + 16 * k), hc = ha, h;
        __mmask16 f = 0;
        if (code == PLUMB_OP_ADD || code == PLUMB_OP_SUBTRACT || code == PLUMB_OP_MULTIPLY ||
            code == PLUMB_OP_DIVIDE)
            hc = _mm256_maskz_loadu_epi16(lm, pc + 16 * k);
        if (code == PLUMB_OP_NEGATE) {
            h = _mm256_xor_si256(ha, _mm256_set1_epi16((short)0x8000));
        } else if (code == PLUMB_OP_ABS) {
            h = _mm256_and_si256(ha, _mm256_set1_epi16(0x7FFF));
        } else if (code == PLUMB_OP_EXPONENTIAL || code == PLUMB_OP_LOGISTIC || code == PLUMB_OP_TANH) {
            __m512 a = hs_widen(f16, ha), v;
            v = code == PLUMB_OP_EXPONENTIAL ? x16_exp(a, &f)
                : code == PLUMB_OP_LOGISTIC  ? x16_logistic(a, &f)
                                             : x16_tanh(a, &f);
            /* k_ew_half.c's flag32 (NaN, below the smallest normal, zero
             * too, finite at/above the largest finite value) and also
             * infinity, in one unsigned compare: |v| - mn at or above
             * mx - mn. Flagging more lanes only sends them to the kernel,
             * whose bits they then get. */
            __m512i ab = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
            __m512i mn = _mm512_set1_epi32(f16 ? 0x38800000 : 0x00800000);
            __m512i mx = _mm512_set1_epi32(f16 ? 0x477FE000 : 0x7F7F0000);
            f |= _mm512_cmpge_epu32_mask(_mm512_sub_epi32(ab, mn), _mm512_sub_epi32(mx, mn));
            h = hs_narrow(f16, v);
        } else {
            __m512 a = hs_widen(f16, ha), c = hs_widen(f16, hc), v;
            switch (code) {
            case PLUMB_OP_ADD: v = _mm512_add_ps(a, c); break;
            case PLUMB_OP_SUBTRACT: v = _mm512_sub_ps(a, c); break;
            case PLUMB_OP_MULTIPLY: v = _mm512_mul_ps(a, c); break;
            case PLUMB_OP_DIVIDE: v = _mm512_div_ps(a, c); break;
            default: v = _mm512_sqrt_ps(a); break;
            }
            f = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            h = hs_narrow(f16, v);
        }
        _mm256_store_si256((__m256i *)(o + 16 * k), h);
        fl[k] = f & lm;
        any |= fl[k];
    }
    return any;
}

/* whole blocks (the common case, unrolled) and partial ones, per type */
#define HS_LOOP(C)                                                                                 \
    (m == HS_BLOCK ? (f16 ? hs_loop(C, true, pa, pc, o, HS_BLOCK, fl) : hs_loop(C, false, pa, pc, o, HS_BLOCK, fl)) \
                   : (f16 ? hs_loop(C, true, pa, pc, o, m, fl) : hs_loop(C, false, pa, pc, o, m, fl)))

/* The register step of op code on a block; false when code is not one. */
HS_TARGET static bool hs_step(plumb_opcode code, bool f16, const uint16_t *pa, const uint16_t *pc, uint16_t *o,
                              size_t m, __mmask16 *fl, __mmask16 *any)
{
    switch (code) {
    case PLUMB_OP_ADD: *any = HS_LOOP(PLUMB_OP_ADD); return true;
    case PLUMB_OP_SUBTRACT: *any = HS_LOOP(PLUMB_OP_SUBTRACT); return true;
    case PLUMB_OP_MULTIPLY: *any = HS_LOOP(PLUMB_OP_MULTIPLY); return true;
    case PLUMB_OP_DIVIDE: *any = HS_LOOP(PLUMB_OP_DIVIDE); return true;
    case PLUMB_OP_SQRT: *any = HS_LOOP(PLUMB_OP_SQRT); return true;
    case PLUMB_OP_NEGATE: *any = HS_LOOP(PLUMB_OP_NEGATE); return true;
    case PLUMB_OP_ABS: *any = HS_LOOP(PLUMB_OP_ABS); return true;
    case PLUMB_OP_EXPONENTIAL: *any = HS_LOOP(PLUMB_OP_EXPONENTIAL); return true;
    case PLUMB_OP_LOGISTIC: *any = HS_LOOP(PLUMB_OP_LOGISTIC); return true;
    case PLUMB_OP_TANH: *any = HS_LOOP(PLUMB_OP_TANH); return true;
    default: return false;
    }
}
#undef HS_LOOP

/* The flagged lanes of a register step: the kernel on their own operand
 * patterns (gathered), the results scattered back into o. */
HS_TARGET static bool hs_fix(rt_exec *x, const fstep *st, const uint16_t *p0, const uint16_t *p1, uint16_t *o,
                             const __mmask16 *fl, unsigned nv)
{
    uint16_t ga[HS_BLOCK], gc[HS_BLOCK], gr[HS_BLOCK];
    uint16_t idx[HS_BLOCK];
    size_t q = 0;
    for (unsigned k = 0; k < nv; k++)
        for (unsigned b = fl[k]; b; b &= b - 1) {
            unsigned l = 16 * k + (unsigned)__builtin_ctz(b);
            idx[q] = (uint16_t)l;
            ga[q] = p0[l];
            gc[q] = st->n_in > 1 ? p1[l] : 0;
            q++;
        }
    const void *pin[2] = {ga, gc};
    if (!rt_ew_tile(x, st->op, pin, gr, q))
        return false;
    for (size_t i = 0; i < q; i++)
        o[idx[i]] = gr[i];
    return true;
}

/* A row group's per-row half step (one value per row, m <= HS_BLOCK of
 * them: layer_norm's / N and + eps) with a register op: the segment's
 * loop and fix-up instead of a kernel dispatch per unit. False when the
 * op is not a register op (the caller runs the kernel). */
HS_TARGET static bool hs_rows(rt_exec *x, const fstep *st, const void *const *ins, uint8_t *dst, size_t m,
                              bool *ok)
{
    uint16_t o[HS_BLOCK] __attribute__((aligned(64)));
    __mmask16 fl[HS_BLOCK / 16], any = 0;
    const uint16_t *p0 = ins[0], *p1 = st->n_in > 1 ? ins[1] : p0;
    if (!hs_step(st->op->code, st->op->results[0]->type.dtype == PLUMB_F16, p0, p1, o, m, fl, &any))
        return false;
    *ok = !any || hs_fix(x, st, p0, p1, o, fl, (unsigned)((m + 15) / 16));
    memcpy(dst, o, m * 2);
    return true;
}

typedef struct prefetch prefetch;
static void prefetch_upto(prefetch *pf, size_t num, size_t den);

/* pf: the next unit's prefetch, asked for block by block (the segment
 * replaces the unit's steps, over which run_unit spreads it) */
HS_TARGET static bool run_hseg(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit,
                               uint32_t s0, const void **ins0, prefetch *pf)
{
    const rt_fused *g = fr->g;
    uint32_t n = g->steps[s0].hseg;
    const void *li[RT_HSEG_MAX][16];
    uint8_t *dst[RT_HSEG_MAX];
    memcpy(li[0], ins0, g->steps[s0].n_in * sizeof *ins0);
    for (uint32_t j = 1; j < n; j++)
        if (!step_ins(fr, slots, off, cnt, first_unit, s0 + j, li[j]))
            return false;
    for (uint32_t j = 0; j < n; j++)
        dst[j] = g->steps[s0 + j].hstore ? step_dst(fr, slots, off, &g->steps[s0 + j]) : NULL;
    size_t rows = g->rows ? cnt[1] : 1, L = g->rows ? (size_t)g->row_len : cnt[0];
    uint16_t hb[RT_HSEG_MAX][HS_BLOCK] __attribute__((aligned(64)));
    size_t nblk = rows * ((L + HS_BLOCK - 1) / HS_BLOCK), blk = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t e = 0; e < L; e += HS_BLOCK) {
            size_t m = L - e < HS_BLOCK ? L - e : HS_BLOCK, base = r * L + e;
            prefetch_upto(pf, ++blk, nblk);
            unsigned nv = (unsigned)((m + 15) / 16);
            for (uint32_t j = 0; j < n; j++) {
                const fstep *st = &g->steps[s0 + j];
                uint16_t *o = hb[j];
                if (st->kind == S_ROWB) {
                    uint16_t c = ((const uint16_t *)li[j][0])[r];
                    __m256i cv = _mm256_set1_epi16((short)c);
                    for (unsigned k = 0; k < nv; k++)
                        _mm256_store_si256((__m256i *)(o + 16 * k), cv);
                } else {
                    /* each operand apart: filling an array of them in a loop
                     * and reading it back whole stalled on store forwarding */
                    const uint16_t *p0 = st->hsrc[0] >= 0 ? hb[st->hsrc[0]] : (const uint16_t *)li[j][0] + base;
                    const uint16_t *p1 = st->n_in < 2       ? p0
                                         : st->hsrc[1] >= 0 ? hb[st->hsrc[1]]
                                                            : (const uint16_t *)li[j][1] + base;
                    const uint16_t *p2 = st->n_in < 3       ? p0
                                         : st->hsrc[2] >= 0 ? hb[st->hsrc[2]]
                                                            : (const uint16_t *)li[j][2] + base;
                    const uint16_t *p[3] = {p0, p1, p2};
                    __mmask16 fl[HS_BLOCK / 16], any = 0;
                    bool reg = hs_step(st->op->code, st->op->results[0]->type.dtype == PLUMB_F16, p[0], p[1], o, m,
                                       fl, &any);
                    if (!reg) {
                        /* not a register op: the kernel on the block */
                        const void *pin[3] = {p[0], p[1], p[2]};
                        if (!rt_ew_tile(fr->x, st->op, pin, o, m))
                            return false;
                    } else if (any && !hs_fix(fr->x, st, p[0], p[1], o, fl, nv)) {
                        return false;
                    }
                }
                if (!dst[j])
                    continue;
                uint16_t *d = (uint16_t *)dst[j] + base;
                if (st->hstream && m == HS_BLOCK && ((uintptr_t)d & 63) == 0) {
                    for (unsigned k = 0; k < HS_BLOCK / 32; k++)
                        _mm512_stream_si512((__m512i *)(d + 32 * k), _mm512_load_si512(o + 32 * k));
                } else {
                    memcpy(d, o, m * 2);
                }
            }
        }
    return true;
}
#endif

/* Runs every step on one tile (loop groups) or one row (row groups).
 * off[s], n[s]: element offset and count in space s. */
/* The next unit's group inputs, asked for a part at a time while this unit
 * computes. A unit reads its inputs from memory at its first steps and then
 * works in L1, where the hardware prefetcher, which follows demand reads,
 * stops; without this every unit would start with a full trip to memory.
 * The requests are spread over the unit's steps: issued all at once (a
 * measured variant), they filled the miss buffers, stalled the step that
 * issued them and gained nothing; spread, the 16M-element tanh/logistic
 * chain went from 1.94 to 1.61 ns/element on one thread (docs/bench.md). */
#define PF_MAX 4
typedef struct prefetch {
    const char *p[PF_MAX];    /* start of the next unit in each input */
    size_t lines[PF_MAX];     /* 64-byte lines of it */
    size_t done[PF_MAX];      /* lines asked for so far */
    uint32_t n;
} prefetch;

static void prefetch_plan(const frun *fr, uint64_t next_off, size_t next_cnt, prefetch *pf)
{
    const rt_fused *g = fr->g;
    pf->n = 0;
    if (!RT_X86 || next_cnt == 0)
        return;
    for (uint32_t i = 0; i < g->n_pf && pf->n < PF_MAX; i++) {
        const fval *v = &g->vals[g->pf_vals[i]];
        pf->p[pf->n] = (const char *)fr->in[v->io]->data + next_off * v->es;
        pf->lines[pf->n] = (next_cnt * v->es + 63) / 64;
        pf->done[pf->n] = 0;
        pf->n++;
    }
}

/* Asks for the first num/den of every input's next unit. */
static void prefetch_upto(prefetch *pf, size_t num, size_t den)
{
#if RT_X86
    for (uint32_t i = 0; i < pf->n; i++) {
        size_t to = pf->lines[i] * num / den;
        for (; pf->done[i] < to; pf->done[i]++)
            _mm_prefetch(pf->p[i] + pf->done[i] * 64, _MM_HINT_T0);
    }
#else
    (void)pf, (void)num, (void)den;
#endif
}

static bool run_unit(frun *fr, uint8_t *slots, const uint64_t *off, const size_t *cnt, bool first_unit,
                     size_t next_cnt)
{
    const rt_fused *g = fr->g;
    const void *ptr_in[16];
    const void **ins = ptr_in;
    prefetch pf;
    prefetch_plan(fr, off[0] + cnt[0], next_cnt, &pf);
    /* a row group's unit is cnt[1] consecutive rows of L elements: steps
     * over full rows that work row by row (sums, maxima, per-row operands,
     * row broadcasts) loop over them; the others take the unit at once */
    size_t rows = g->rows ? cnt[1] : 1, L = g->rows ? (size_t)g->row_len : cnt[0];
    uint8_t aside[16][RT_RPU_MAX * 8];   /* per-row operands copied aside (rows_aside) */
    for (uint32_t s = 0; s < g->n_steps; s++) {
        const fstep *st = &g->steps[s];
        prefetch_upto(&pf, s + 1, g->n_steps);
        if (!step_ins(fr, slots, off, cnt, first_unit, s, ins))
            return false;
        rows_aside(g, st, ins, rows, aside);
#if RT_X86
        if (st->hseg >= 2 && cnt[0] && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            if (!run_hseg(fr, slots, off, cnt, first_unit, s, ins, &pf))
                return false;
            s += st->hseg - 1u;
            continue;
        }
#endif
        if (RT_X86 && st->chain >= 2 && cnt[0] && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            if (!run_chain(fr, slots, off, cnt, first_unit, s, ins, cnt[0]))
                return false;
            s += st->chain - 1u;
            continue;
        }
        const fval *ov = &g->vals[st->out];
        uint8_t *dst = step_dst(fr, slots, off, st);
        size_t n = cnt[st->space];
        uint8_t *streamed = NULL;   /* the destination, when dst is the L1 tile instead */
        if (st->stream && !st->arith && dst && fr->stream) {
            streamed = dst;
            dst = slots + (size_t)g->stream_slot * g->slot_bytes;
        }
        if (st->sqsum && n) {
            const fstep *sum = &g->steps[s + 2];
            const fval *sv = &g->vals[sum->out];
            uint8_t *sdst = sv->kind == FV_OUT ? at(fr->out[sv->io]->data, off[sv->space] * sv->es)
                                               : slots + (size_t)sv->slot * g->slot_bytes;
            float init;
            memcpy(&init, fr->in[sum->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float m;
                memcpy(&m, (const float *)ins[1] + r, 4);
                float v = init + run_sqsum(rt_isa(fr->x), (const float *)ins[0] + r * L, m,
                                           (float *)dst + r * L, L);
                memcpy(sdst + r * 4, &v, 4);
            }
            s += 2;
            continue;
        }
#if RT_X86
        if (st->expsum && n && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
            const fstep *ex = &g->steps[s + 1], *sum = &g->steps[s + 2];
            uint8_t *edst = step_dst(fr, slots, off, ex);
            const fval *sv = &g->vals[sum->out];
            uint8_t *sdst = sv->kind == FV_OUT ? at(fr->out[sv->io]->data, off[sv->space] * sv->es)
                                               : slots + (size_t)sv->slot * g->slot_bytes;
            float init;
            memcpy(&init, fr->in[sum->init]->data, 4);
            rt_vmath_f32_fn exp32 = rt_vmath_f32(PLUMB_OP_EXPONENTIAL, PLUMB_ISA_AVX512);
            for (size_t r = 0; r < rows; r++) {
                float m;
                memcpy(&m, (const float *)ins[1] + r, 4);
                float v = init + run_expsum((const float *)ins[0] + r * L, m, (float *)edst + r * L, L, exp32);
                memcpy(sdst + r * 4, &v, 4);
            }
            s += 2;
            continue;
        }
#endif
        switch (st->kind) {
        case S_EW:
            if (st->arith && st->per_row && st->space == 0) {
                /* a per-row operand: row by row, its element r */
                for (size_t r = 0; r < rows; r++)
                    row_arith(rt_isa(fr->x), st->op->code,
                              (const float *)ins[0] + ((st->per_row & 1) ? r : r * L),
                              (const float *)ins[1] + ((st->per_row & 2) ? r : r * L), st->per_row,
                              (float *)dst + r * L, L, st->stream);
            } else if (st->arith) {
                row_arith(rt_isa(fr->x), st->op->code, ins[0], ins[1], st->per_row, (float *)dst, n, st->stream);
            } else if (RT_X86 && st->hrows && n <= HS_BLOCK && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
#if RT_X86
                bool ok = true;
                if (!hs_rows(fr->x, st, ins, dst, n, &ok) && !rt_ew_tile(fr->x, st->op, ins, dst, n))
                    return false;
                if (!ok)
                    return false;
#endif
            } else if (n && !rt_ew_tile(fr->x, st->op, ins, dst, n)) {
                return false;
            }
            break;
        case S_SUM32: {
            float init;
            memcpy(&init, fr->in[st->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float v = init + rt_sum_f32((const float *)ins[0] + r * L, L, rt_isa(fr->x));
                memcpy(dst + r * 4, &v, 4);
            }
            break;
        }
        case S_SUM64: {
            double init;
            memcpy(&init, fr->in[st->init]->data, 8);
            for (size_t r = 0; r < rows; r++) {
                double v = init + rt_sum_f64((const double *)ins[0] + r * L, L, rt_isa(fr->x));
                memcpy(dst + r * 8, &v, 8);
            }
            break;
        }
        case S_MAX32: {
            float init;
            memcpy(&init, fr->in[st->init]->data, 4);
            for (size_t r = 0; r < rows; r++) {
                float v = max_ieee(init, rt_max_f32((const float *)ins[0] + r * L, L, rt_isa(fr->x)));
                /* the reduce kernel folds in double: a NaN comes back quieted */
                uint32_t rb;
                memcpy(&rb, &v, 4);
                if ((rb & 0x7fffffffu) > 0x7f800000u)
                    rb |= 0x00400000u;
                memcpy(dst + r * 4, &rb, 4);
            }
            break;
        }
        case S_FOLDH: {
            uint16_t init;
            memcpy(&init, fr->in[st->init]->data, 2);
            plumb_opcode body = st->op->regions[0].first->code;
            for (size_t r = 0; r < rows; r++) {
                uint16_t v = rt_fold_half_row(st->op->operands[0]->type.dtype, body,
                                              (const uint16_t *)ins[0] + r * L, L, init, rt_isa(fr->x));
                memcpy(dst + r * 2, &v, 2);
            }
            break;
        }
        case S_ROWB:
            for (size_t r = 0; r < rows; r++)
                fill(dst + r * L * ov->es, (const uint8_t *)ins[0] + r * ov->es, ov->es, L);
            break;
        }
        if (streamed)
            stream_copy(streamed, dst, n * ov->es);
    }
    prefetch_upto(&pf, 1, 1);   /* the parts of steps a fused chain skipped */
    return true;
}

/* ---- loop groups in registers ----------------------------------------------------------
 * A loop group of regs_op's f32 ops (F->regs) runs at the AVX-512 level as
 * blocks of RG_BLOCK elements: each step over the block's vectors, its
 * operands read from the inputs in place or from per-value block buffers
 * (2 KiB together for a small group, in L1; a scalar broadcast's buffer is
 * filled once), the transcendentals inlined from math_x16.h. Against the
 * tile path this drops the per-tile kernel dispatch, the materialized
 * broadcasts' reads, the tile trips of the intermediates and the copy of
 * a streamed result, and reads the inputs in one sequential sweep, which
 * the hardware prefetcher follows.
 *
 * Bits: every operation is the tile kernel's on each lane it does not
 * flag (IEEE add/subtract/multiply/divide, sign operations, and the same
 * x16_* functions x16_arr_* runs), so a block is stored only when no lane
 * was flagged and no result lane is NaN. Every op here returns NaN for a
 * NaN operand, so a NaN met anywhere (an input's, or one an operation
 * made: inf - inf, 0 * inf, 0 / 0) is in a result; the NaN bits (payload,
 * sign) are where the two paths may differ, so such a block, and one with
 * a flagged lane, is recomputed by the tile path's steps (run_unit), which
 * gives exactly the unfused bits. The chunk's last partial block takes the
 * same path. */
#define RG_VECS 8u
#define RG_BLOCK (16u * RG_VECS)

#if RT_X86
#define RG_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

/* Where a register-run value lives for the block loops (run_regs fills
 * one per value per chunk). */
typedef struct rg_val {
    const float *src;         /* group input read in place, else NULL */
    float *dst;               /* group result: its tensor, else NULL */
    bool stream;              /* dst is written with streaming stores when 64-byte aligned */
    bool scalar;              /* a scalar broadcast: every element is c */
    bool kept;                /* read by a later step: also kept in the block buffer */
    float c;
} rg_val;

/* One block of RG_BLOCK elements from element e: every step over the
 * block's vectors; results stored to their tensors as they are computed
 * (with the NaN check), temporaries and results read later into buf. */
RG_TARGET static void regs_block(const rt_fused *g, const rg_val *rv, float (*buf)[RG_BLOCK], size_t e,
                                 __mmask16 *bad)
{
    __mmask16 b = 0;
    for (uint32_t s = 0; s < g->n_steps; s++) {
        const fstep *st = &g->steps[s];
        const rg_val *xv = &rv[st->in[0]], *yv = &rv[st->in[st->n_in > 1 ? 1 : 0]], *ov = &rv[st->out];
        const float *x = xv->src ? xv->src + e : buf[st->in[0]];
        const float *y = yv->src ? yv->src + e : buf[st->in[st->n_in > 1 ? 1 : 0]];
        __m512 xs = _mm512_set1_ps(xv->c), ys = _mm512_set1_ps(yv->c);
        bool xsc = xv->scalar, ysc = yv->scalar;
        float *o = buf[st->out], *d = ov->dst ? ov->dst + e : NULL;
        bool keep = ov->kept || !d, nt = d && ov->stream && ((uintptr_t)d & 63) == 0;
        plumb_dtype rty = st->op->results[0]->type.dtype;
        bool fl = rty == PLUMB_F32, sg = rty == PLUMB_I32;   /* integers: no NaN check */
        /* each result vector r of vector k: kept, and/or stored with the
         * NaN check */
#define RG_PUT(k, r)                                                                               \
    do {                                                                                           \
        __m512 r_ = (r);                                                                           \
        if (keep)                                                                                  \
            _mm512_store_ps(o + 16 * (k), r_);                                                     \
        if (d) {                                                                                   \
            if (fl)                                                                                \
                b |= _mm512_cmp_ps_mask(r_, r_, _CMP_UNORD_Q);                                     \
            if (nt)                                                                                \
                _mm512_stream_ps(d + 16 * (k), r_);                                                \
            else                                                                                   \
                _mm512_storeu_ps(d + 16 * (k), r_);                                                \
        }                                                                                          \
    } while (0)
#define RG_LOOP(expr)                                                                              \
    _Pragma("GCC unroll 8") for (unsigned k = 0; k < RG_VECS; k++)                                \
    {                                                                                              \
        __m512 a = xsc ? xs : _mm512_loadu_ps(x + 16 * k), c = ysc ? ys : _mm512_loadu_ps(y + 16 * k); \
        (void)c;                                                                                   \
        RG_PUT(k, (expr));                                                                         \
    }
#define RG_FLAGGED(fn)                                                                             \
    _Pragma("GCC unroll 1") /* one vector a trip: unrolled by 2 or 4 measured 1-2% slower */       \
    for (unsigned k = 0; k < RG_VECS; k++) {                                                       \
        __mmask16 f;                                                                               \
        RG_PUT(k, fn(xsc ? xs : _mm512_loadu_ps(x + 16 * k), &f));                                 \
        b |= f;                                                                                    \
    }
#define RG_I(e) _mm512_castsi512_ps(e)
#define RG_A _mm512_castps_si512(a)
#define RG_C _mm512_castps_si512(c)
        if (!fl) {
            switch (st->op->code) {
            case PLUMB_OP_ADD: RG_LOOP(RG_I(_mm512_add_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SUBTRACT: RG_LOOP(RG_I(_mm512_sub_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_MULTIPLY: RG_LOOP(RG_I(_mm512_mullo_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_AND: RG_LOOP(RG_I(_mm512_and_si512(RG_A, RG_C))) break;
            case PLUMB_OP_OR: RG_LOOP(RG_I(_mm512_or_si512(RG_A, RG_C))) break;
            case PLUMB_OP_XOR: RG_LOOP(RG_I(_mm512_xor_si512(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_LEFT: RG_LOOP(RG_I(_mm512_sllv_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_RIGHT_LOGICAL: RG_LOOP(RG_I(_mm512_srlv_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC:
                /* srav fills with the sign for counts above 31, any count read unsigned */
                RG_LOOP(RG_I(_mm512_srav_epi32(RG_A, RG_C))) break;
            case PLUMB_OP_MAXIMUM:
                if (sg) {
                    RG_LOOP(RG_I(_mm512_max_epi32(RG_A, RG_C)))
                } else {
                    RG_LOOP(RG_I(_mm512_max_epu32(RG_A, RG_C)))
                }
                break;
            case PLUMB_OP_MINIMUM:
                if (sg) {
                    RG_LOOP(RG_I(_mm512_min_epi32(RG_A, RG_C)))
                } else {
                    RG_LOOP(RG_I(_mm512_min_epu32(RG_A, RG_C)))
                }
                break;
            case PLUMB_OP_NEGATE: RG_LOOP(RG_I(_mm512_sub_epi32(_mm512_setzero_si512(), RG_A))) break;
            default: RG_LOOP(RG_I(_mm512_xor_si512(RG_A, _mm512_set1_epi32(-1)))) break;   /* not */
            }
            continue;
        }
#undef RG_I
#undef RG_A
#undef RG_C
        switch (st->op->code) {
        case PLUMB_OP_ADD: RG_LOOP(_mm512_add_ps(a, c)) break;
        case PLUMB_OP_SUBTRACT: RG_LOOP(_mm512_sub_ps(a, c)) break;
        case PLUMB_OP_MULTIPLY: RG_LOOP(_mm512_mul_ps(a, c)) break;
        case PLUMB_OP_DIVIDE: RG_LOOP(_mm512_div_ps(a, c)) break;
        case PLUMB_OP_NEGATE: RG_LOOP(_mm512_xor_ps(a, _mm512_set1_ps(-0.0f))) break;
        case PLUMB_OP_ABS: RG_LOOP(_mm512_andnot_ps(_mm512_set1_ps(-0.0f), a)) break;
        case PLUMB_OP_TANH: RG_FLAGGED(x16_tanh) break;
        case PLUMB_OP_LOGISTIC: RG_FLAGGED(x16_logistic) break;
        case PLUMB_OP_ERF: RG_FLAGGED(rt_x16_erf) break;   /* gelu's erf form stays in registers */
        default: RG_FLAGGED(x16_exp) break;   /* regs_op admits no other */
        }
#undef RG_PUT
#undef RG_LOOP
#undef RG_FLAGGED
    }
    *bad = b;
}

/* Elements [e0, e1) of a register-run loop group; slots: the chunk's tile
 * slots, used by the recomputed blocks. */
RG_TARGET static bool run_regs(frun *fr, uint8_t *slots, uint64_t e0, uint64_t e1)
{
    const rt_fused *g = fr->g;
    float buf[RT_REG_VALS][RG_BLOCK] __attribute__((aligned(64)));
    rg_val rv[RT_REG_VALS];
    memset(rv, 0, sizeof rv);
    for (uint32_t v = 0; v < g->n_vals; v++) {
        const fval *fv = &g->vals[v];
        if (fv->kind == FV_IN) {
            rv[v].src = (const float *)fr->in[fv->io]->data;
        } else if (fv->kind == FV_BCAST) {
            rv[v].scalar = true;
            memcpy(&rv[v].c, fr->in[fv->io]->data, 4);
        } else if (fv->kind == FV_OUT) {
            rv[v].dst = (float *)fr->out[fv->io]->data;
        }
    }
    for (uint32_t s = 0; s < g->n_steps; s++) {
        const fstep *st = &g->steps[s];
        rv[st->out].stream = st->stream && fr->stream;
        for (uint32_t i = 0; i < st->n_in; i++)
            rv[st->in[i]].kept = true;   /* read by a step after its own */
    }
    /* a bad block is stored first and rewritten after: that needs the
     * caller's promise that results and inputs do not share memory
     * (runtime/plan.c); checked, not assumed */
    for (uint32_t v = 0; v < g->n_vals; v++)
        for (uint32_t w = 0; rv[v].dst && w < g->n_vals; w++)
            if (rv[w].src && rt_f32_overlap(rv[w].src + e0, rv[v].dst + e0, (size_t)(e1 - e0))) {
                /* tile by tile, as run_chunk would (the slots hold one tile) */
                for (uint64_t t = e0; t < e1; t += RT_TILE) {
                    uint64_t off[2] = {t, 0};
                    size_t cnt[2] = {(size_t)(e1 - t < RT_TILE ? e1 - t : RT_TILE), 0};
                    if (!run_unit(fr, slots, off, cnt, t == e0, 0))
                        return false;
                }
                return true;
            }
    bool materialized = false;
    uint64_t e = e0;
    for (; e + RG_BLOCK <= e1; e += RG_BLOCK) {
        __mmask16 bad;
        regs_block(g, rv, buf, (size_t)e, &bad);
        if (__builtin_expect(bad != 0, 0)) {
            /* rewritten whole by the tile steps */
            uint64_t off[2] = {e, 0};
            size_t cnt[2] = {RG_BLOCK, 0};
            if (!run_unit(fr, slots, off, cnt, !materialized, 0))
                return false;
            materialized = true;
        }
    }
    if (e < e1) {
        uint64_t off[2] = {e, 0};
        size_t cnt[2] = {(size_t)(e1 - e), 0};
        if (!run_unit(fr, slots, off, cnt, !materialized, 0))
            return false;
    }
    return true;
}
#endif

static void run_chunk(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    frun *fr = ctx;
    const rt_fused *g = fr->g;
    /* No slots, no scratch: NULL + 0 is undefined (clang's UBSan checks it). */
    uint8_t *slots = fr->scratch ? fr->scratch + (size_t)chunk * g->n_slots * g->slot_bytes : NULL;
#if RT_X86
    if (g->regs && rt_isa(fr->x) == PLUMB_ISA_AVX512) {
        uint64_t e1 = end * RT_TILE < g->numel ? end * RT_TILE : g->numel;
        if (!run_regs(fr, slots, begin * RT_TILE, e1))
            atomic_store(&fr->failed, true);
        if (fr->stream)
            _mm_sfence();
        return;
    }
#endif
    for (uint64_t u = begin; u < end && !atomic_load(&fr->failed); u++) {
        uint64_t off[2];
        size_t cnt[2];
        if (g->rows) {
            uint64_t r0 = u * g->rpu, nr = g->n_rows - r0 < g->rpu ? g->n_rows - r0 : g->rpu;
            off[0] = r0 * g->row_len;
            cnt[0] = (size_t)(nr * g->row_len);
            off[1] = r0;
            cnt[1] = (size_t)nr;
        } else {
            off[0] = u * RT_TILE;
            cnt[0] = (size_t)(g->numel - off[0] < RT_TILE ? g->numel - off[0] : RT_TILE);
            off[1] = 0;
            cnt[1] = 0;
        }
        /* units are contiguous in space 0; the next one of this chunk */
        uint64_t per = g->rows ? g->row_len * g->rpu : RT_TILE, next_off = off[0] + cnt[0];
        size_t next_cnt = u + 1 < end ? (size_t)(g->numel - next_off < per ? g->numel - next_off : per) : 0;
        if (!run_unit(fr, slots, off, cnt, u == begin, next_cnt))
            atomic_store(&fr->failed, true);
    }
#if RT_X86
    /* this thread's streamed stores (loop groups' results, row groups'
     * row_arith and chain results) are visible before the group ends */
    if (rt_isa(fr->x) == PLUMB_ISA_AVX512)
        _mm_sfence();
#endif
}

uint32_t rt_fused_chains(const rt_fused *g, uint32_t *links)
{
    uint32_t n = 0, l = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++)
        if (g->steps[s].chain >= 2) {
            n++;
            l += g->steps[s].chain;
        }
    if (links)
        *links = l;
    return n;
}

bool rt_fused_regs(const rt_fused *g) { return g && g->regs; }

uint32_t rt_fused_hsegs(const rt_fused *g, uint32_t *steps)
{
    uint32_t n = 0, k = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++)
        if (g->steps[s].hseg) {
            n++;
            k += g->steps[s].hseg;
        }
    if (steps)
        *steps = k;
    return n;
}

void rt_fused_row_passes(const rt_fused *g, uint32_t *sqsum, uint32_t *expsum)
{
    *sqsum = *expsum = 0;
    for (uint32_t s = 0; g && s < g->n_steps; s++) {
        *sqsum += g->steps[s].sqsum;
        *expsum += g->steps[s].expsum;
    }
}

const ir_value *rt_fused_space(const rt_fused *g) { return g->sval; }

bool rt_fused_dynamic(const rt_fused *g) { return g && g->dyn; }

bool rt_fused_rows(const rt_fused *g) { return g && g->rows; }

/* The group as a static compile of this run's sizes would have built it:
 * extents from S's actual dims (space), each broadcast's dims and strides
 * from its operand's actual dims. Checks first that every tensor the group
 * reads or writes in place has S's (or its rows') element count and every
 * broadcast operand fits its op, so no index can leave a tensor whatever
 * the shapes (ir_shape_infer has already checked them; this keeps the
 * kernel safe on its own). */
static bool fused_for_run(rt_exec *x, const rt_fused *g, plumb_tensor *const *in, plumb_tensor *const *out,
                          const plumb_tensor *space, rt_fused *r)
{
    uint32_t R = g->sval->type.rank;
    if (!space || space->rank != R)
        return rt_fail(x, g->anchor, PLUMB_ERR_INVALID, "fused group: its iteration space has no run-time shape");
    for (uint32_t i = 0; i < R; i++)
        if (space->dims[i] < 0)
            return rt_fail(x, g->anchor, PLUMB_ERR_INVALID, "fused group: dimension %u of its space is negative", i);
    *r = *g;
    derive_extents(r, R, space->dims);
    fval *vals = NULL;
    for (uint32_t v = 0; v < g->n_vals; v++) {
        const fval *fv = &g->vals[v];
        if (fv->kind == FV_IN || fv->kind == FV_OUT) {
            const plumb_tensor *t = fv->kind == FV_IN ? in[fv->io] : out[fv->io];
            uint64_t want = fv->space ? r->n_rows : r->numel;
            if (plumb_tensor_numel(t) != want)
                return rt_fail(x, g->anchor, PLUMB_ERR_INVALID,
                               "fused group: a tensor of %llu elements where this run's space has %llu",
                               (unsigned long long)plumb_tensor_numel(t), (unsigned long long)want);
            continue;
        }
        if (fv->kind != FV_BCAST || !fv->bop)
            continue;
        const ir_op *op = fv->bop;
        const plumb_tensor *src = in[fv->io];
        if (src->rank != op->a.dims.n || fv->rank != R)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "fused broadcast: operand of rank %u for %u dimensions",
                           src->rank, op->a.dims.n);
        if (!vals) {
            vals = rt_scratch(x, g->anchor, (size_t)g->n_vals * sizeof *vals);
            if (!vals)
                return false;
            memcpy(vals, g->vals, (size_t)g->n_vals * sizeof *vals);
        }
        fval *nv = &vals[v];
        int64_t ist[PLUMB_MAX_RANK], st = 1;
        for (uint32_t i = src->rank; i-- > 0;) {
            ist[i] = st;
            st *= src->dims[i];
        }
        for (uint32_t j = 0; j < R; j++) {
            nv->dims[j] = space->dims[j];
            nv->stride[j] = 0;
        }
        for (uint32_t i = 0; i < src->rank; i++) {
            int64_t to = op->a.dims.v[i];
            if (to < 0 || (uint32_t)to >= R || (src->dims[i] != 1 && src->dims[i] != space->dims[to]))
                return rt_fail(x, op, PLUMB_ERR_INVALID,
                               "fused broadcast: operand dimension %u of size %lld does not fit result dimension %lld",
                               i, (long long)src->dims[i], (long long)to);
            if (src->dims[i] != 1)
                nv->stride[to] = ist[i];
        }
    }
    if (vals)
        r->vals = vals;
    return true;
}

bool rt_fused_run(rt_exec *x, const rt_fused *g, plumb_tensor *const *in, plumb_tensor *const *out,
                  const plumb_tensor *space)
{
    rt_fused dyn;
    if (g->dyn) {
        if (!fused_for_run(x, g, in, out, space, &dyn))
            return false;
        g = &dyn;
    }
    uint64_t units = g->rows ? (g->n_rows + g->rpu - 1) / g->rpu : (g->numel + RT_TILE - 1) / RT_TILE;
    if (units == 0)
        return true;
    uint64_t per_unit = g->rows ? (g->row_len ? g->row_len : 1) * g->rpu : RT_TILE;
    uint64_t grain = RT_FUSE_GRAIN / per_unit;
    if (grain == 0)
        grain = 1;
    uint32_t chunks = rt_parallel_chunks(x, units, grain);
    frun fr;
    memset(&fr, 0, sizeof fr);
    fr.x = x;
    fr.g = g;
    fr.in = in;
    fr.out = out;
#if RT_X86
    fr.stream = !g->rows && g->stream_slot >= 0 && rt_isa(x) == PLUMB_ISA_AVX512;
#endif
    atomic_init(&fr.failed, false);
    uint64_t bytes;
    if (plumb_mul_overflow_u64((uint64_t)chunks * g->n_slots, g->slot_bytes, &bytes) || bytes > SIZE_MAX)
        return rt_fail(x, g->anchor, PLUMB_ERR_LIMIT, "fused group scratch overflows");
    if (bytes) {
        fr.scratch = rt_scratch(x, g->anchor, (size_t)bytes);
        if (!fr.scratch)
            return false;
    }
    rt_parallel_for(x, units, grain, run_chunk, &fr);
    if (atomic_load(&fr.failed))
        return rt_fail(x, g->anchor, PLUMB_ERR_UNSUPPORTED, "an op of a fused group has no tile kernel");
    return true;
}
