/* Fusion: partitions a function's ops into groups executed as one step each,
 * run tile by tile (or row by row) so that intermediates stay in L1
 * (fusion_build.c lowers a group to steps, fusion_exec.c runs them).
 * docs/runtime-passes.md describes the grouping rules and why
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
#include "rt_fusion.h"

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

bool rt_fusion_same_dims(const ir_type *a, const ir_type *b) { return dims_eq(a, b->rank, b->dims); }

/* The space (0 or 1) v's type has in a group of space S, or -1. */
int rt_fusion_space_in(const ir_type *t, const ir_type *s, bool rows)
{
    if (rt_fusion_same_dims(t, s))
        return 0;
    if (rows && s->rank >= 1 && dims_eq(t, s->rank - 1, s->dims))
        return 1;
    return -1;
}

/* stablehlo.reduce over the last dimension with body add (f32, f64) or
 * maximum (f32) of its two arguments. */
skind rt_fusion_row_reduce_kind(const ir_op *op)
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
        if (t->rank != 0 && !rt_fusion_same_dims(t, r))
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

/* An iota a group can generate instead of reading: a static result of any
 * real element type (complex iotas keep their kernel), its iota_dimension
 * one of the result's dims. Its elements are functions of their
 * coordinates alone, so a tile of it is computed where it is read. */
static bool iota_ok(const ir_op *op)
{
    if (op->code != PLUMB_OP_IOTA || op->n_operands != 0 || op->n_results != 1 || op->n_regions)
        return false;
    const ir_type *t = &op->results[0]->type;
    return ir_type_is_static(t) && t->rank >= 1 && op->a.dimension >= 0 &&
           (uint64_t)op->a.dimension < t->rank && !plumb_dtype_is_complex(t->dtype);
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
        if (dup || !rt_fusion_same_dims(z->space[g], s))
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
        if (g >= 0 && z->rows[g] && rt_fusion_same_dims(z->space[g], rt) && rt_fusion_space_in(&in->type, z->space[g], true) == 1) {
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
    if (iota_ok(op)) {
        /* generated from coordinates where read: a group of its own until
         * a consumer joins it, as a broadcast */
        join(z, p, NULL, 0, &op->results[0]->type, false, R_IOTA);
        return;
    }
    skind rk = rt_fusion_row_reduce_kind(op);
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
        if (g >= 0 && rt_fusion_same_dims(z->space[g], it)) {
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
        if (g >= 0 && z->rows[g] && rt_fusion_space_in(rt, z->space[g], true) == 1) {
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

bool rt_fusion_nomem(plumb_diag *d, const ir_func *f)
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
        rt_fusion_nomem(d, f);
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
            rt_fusion_nomem(d, f);
            goto done;
        }
        for (uint32_t p = 0; p < n; p++) {
            n_deps += reads_of(&z, z.ops[p], NULL, 0);
            z.dep_off[p + 1] = (uint32_t)n_deps;
        }
        z.deps = plumb_malloc((n_deps ? n_deps : 1) * sizeof *z.deps);
        if (!z.deps) {
            rt_fusion_nomem(d, f);
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
    /* A broadcast read by index arithmetic, or an iota generated where it
     * is read, must not be needed outside (the iota then runs its kernel
     * and every group reads the tensor it writes). */
    for (uint32_t p = 0; p < n; p++)
        if (gid[p] >= 0 && (z.role[p] == R_BCAST || z.role[p] == R_IOTA) &&
            used_out[z.ops[p]->results[0]->id] >= 0)
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
                int rs = rt_fusion_space_in(&op->results[0]->type, z.space[r], z.rows[r]);
                if (rs < 0)
                    bad[r] = 1;
                for (uint32_t i = 0; i < op->n_operands; i++) {
                    const ir_value *v = op->operands[i];
                    int32_t dp = v->id < z.n_ids ? z.def_pos[v->id] : -1;
                    if (dp >= 0 && gid[dp] == r && rt_fusion_space_in(&v->type, z.space[r], z.rows[r]) != rs)
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
        rt_fusion_nomem(d, f);
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
            rt_fusion_nomem(d, f);
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
        if (gb[g].fused && !rt_fusion_build(a, &z, gb[g].members, gb[g].n, gid, used_out, G, d))
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
            rt_fusion_nomem(d, f);
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
        rt_fusion_nomem(d, f);
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
