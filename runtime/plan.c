/* Lowering a verified entry to an executable program: copy the entry into a
 * module of its own with every func.call inlined, run the passes, fuse, and
 * plan buffers by liveness.
 *
 * Buffer planning: the steps (fused groups or single ops) run in program
 * order; a value gets a buffer when its step runs and gives it back after
 * its last use, and a later value of at most that size reuses it (best fit).
 * A step's outputs are assigned before its inputs are released, so no kernel
 * ever writes a buffer it is reading. Values returned by the entry keep their
 * buffers to the end. Parameters are read where the caller keeps them and
 * constants where the module keeps them: neither is copied. The buffers are
 * allocated once, at compile time, but not touched (compile cost does not
 * grow with tensor sizes), and kept for the program's life: the first run
 * maps their pages, later runs write into pages that are already mapped. */
#include <string.h>

#include "plumb/shape.h"
#include "rt_argfold.h"
#include "rt_pipeline.h"
#include "rt_view.h"

/* Inlining stops here: a deeper call chain is recursive or absurd. */
#define RT_MAX_INLINE_DEPTH 64

/* The inlined copy of an entry holds at most this many ops. Inlining
 * multiplies: a few KB of functions that each call the next twice reach
 * millions of call sites, and copying them would take gigabytes before any
 * other limit looks. The budget is checked before each op is copied; past
 * it the compile fails with a limit error (the reference interpreter runs
 * calls without inlining and is not bound by it). Real programs stay far
 * below: the examples inline to a few hundred ops. */
#define RT_MAX_INLINED_OPS ((uint64_t)1 << 18)

/* ---- copying with inlining -------------------------------------------------------- */

typedef struct cloner {
    const ir_module *src;
    ir_module *dst;
    plumb_diag *d;
    uint32_t n_ids;           /* src->next_value_id */
    uint64_t ops;             /* ops copied so far */
    uint64_t max_bytes;       /* the copy's arena may not grow past this */
    const ir_func *inlining;  /* innermost function being inlined, or NULL */
    bool failed;
} cloner;

static bool cl_nomem(cloner *c)
{
    if (!c->failed)
        plumb_diag_set(c->d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory copying the entry for compilation");
    c->failed = true;
    return false;
}

static bool copy_ints(cloner *c, ir_ints *dst, ir_ints src)
{
    *dst = ir_ints_make(c->dst, src.v, src.n);
    return src.n == 0 || dst->v || cl_nomem(c);
}

static bool copy_attrs(cloner *c, ir_attrs *dst, const ir_attrs *src)
{
    *dst = *src;
    dst->extra = NULL;
    dst->n_extra = 0;   /* uninterpreted: not part of the program */
    ir_ints *d_lists[] = {&dst->dims, &dst->start, &dst->limit, &dst->strides, &dst->sizes, &dst->low, &dst->high,
                          &dst->interior, &dst->lhs_batch, &dst->rhs_batch, &dst->lhs_contract, &dst->rhs_contract,
                          &dst->offset_dims, &dst->collapsed_slice_dims, &dst->operand_batching_dims,
                          &dst->start_indices_batching_dims, &dst->start_index_map, &dst->update_window_dims,
                          &dst->inserted_window_dims, &dst->input_batching_dims,
                          &dst->scatter_indices_batching_dims, &dst->scatter_dims_to_operand_dims,
                          &dst->known_expanding, &dst->known_nonexpanding, &dst->window_dims,
                          &dst->window_strides, &dst->base_dilations, &dst->window_dilations, &dst->padding,
                          &dst->fft_length, &dst->lhs_ragged, &dst->rhs_group};
    const ir_ints *s_lists[] = {&src->dims, &src->start, &src->limit, &src->strides, &src->sizes, &src->low,
                                &src->high, &src->interior, &src->lhs_batch, &src->rhs_batch, &src->lhs_contract,
                                &src->rhs_contract, &src->offset_dims, &src->collapsed_slice_dims,
                                &src->operand_batching_dims, &src->start_indices_batching_dims,
                                &src->start_index_map, &src->update_window_dims, &src->inserted_window_dims,
                                &src->input_batching_dims, &src->scatter_indices_batching_dims,
                                &src->scatter_dims_to_operand_dims, &src->known_expanding,
                                &src->known_nonexpanding, &src->window_dims, &src->window_strides,
                                &src->base_dilations, &src->window_dilations, &src->padding, &src->fft_length,
                                &src->lhs_ragged, &src->rhs_group};
    for (size_t i = 0; i < sizeof d_lists / sizeof d_lists[0]; i++)
        if (!copy_ints(c, d_lists[i], *s_lists[i]))
            return false;
    if (src->conv) {
        /* flat: one copy holds every convolution attribute */
        if (!(dst->conv = plumb_arena_alloc(c->dst->arena, sizeof *dst->conv)))
            return cl_nomem(c);
        memcpy(dst->conv, src->conv, sizeof *dst->conv);
    }
    if (src->callee && !(dst->callee = plumb_arena_strdup(c->dst->arena, src->callee)))
        return cl_nomem(c);
    if (src->message && !(dst->message = plumb_arena_strdup(c->dst->arena, src->message)))
        return cl_nomem(c);
    if (src->value) {
        plumb_tensor *t = plumb_arena_alloc(c->dst->arena, sizeof *t);
        if (!t)
            return cl_nomem(c);
        *t = *src->value;
        t->owned = false;
        if (t->nbytes) {
            if (!(t->data = plumb_arena_alloc(c->dst->arena, t->nbytes)))
                return cl_nomem(c);
            memcpy(t->data, src->value->data, t->nbytes);
        } else {
            t->data = NULL;
        }
        dst->value = t;
    }
    return true;
}

static bool clone_block(cloner *c, const ir_block *src, ir_block *dst, ir_value **map, uint32_t depth);

/* Inlines a call: the callee's body is copied into dst with its parameters
 * mapped to the call's operands; its returned values become the call's
 * results in the caller's map. */
static bool inline_call(cloner *c, const ir_op *op, ir_block *dst, ir_value **map, uint32_t depth)
{
    const ir_func *f = op->a.callee ? ir_module_find_func(c->src, op->a.callee) : NULL;
    if (!f) {
        plumb_diag_set(c->d, PLUMB_ERR_INVALID, op->loc, "func.call: no function @%s in the module",
                       op->a.callee ? op->a.callee : "?");
        return !(c->failed = true);
    }
    if (depth >= RT_MAX_INLINE_DEPTH) {
        plumb_diag_set(c->d, PLUMB_ERR_LIMIT, op->loc,
                       "func.call: calls nest deeper than %d (calling @%s); is the program recursive?",
                       RT_MAX_INLINE_DEPTH, f->name);
        return !(c->failed = true);
    }
    if (f->body.n_args != op->n_operands) {
        plumb_diag_set(c->d, PLUMB_ERR_INVALID, op->loc, "func.call: @%s takes %u arguments, the call passes %u",
                       f->name, f->body.n_args, op->n_operands);
        return !(c->failed = true);
    }
    ir_value **inner = plumb_calloc(c->n_ids ? c->n_ids : 1, sizeof *inner);
    if (!inner)
        return cl_nomem(c);
    for (uint32_t i = 0; i < f->body.n_args; i++)
        inner[f->body.args[i]->id] = map[op->operands[i]->id];
    bool ok;
    const ir_op *ret = NULL;
    for (const ir_op *o = f->body.first; o; o = o->next) {
        if (o->code == PLUMB_OP_FUNC_RETURN || o->code == PLUMB_OP_RETURN) {
            ret = o;
            break;
        }
    }
    /* Copy the body up to (not including) its return straight into dst. */
    ir_block body = f->body;
    body.last = ret ? ret->prev : f->body.last;
    const ir_func *outer = c->inlining;
    c->inlining = f;
    ok = clone_block(c, &body, dst, inner, depth + 1);
    c->inlining = outer;
    if (ok && (!ret || ret->n_operands != op->n_results)) {
        plumb_diag_set(c->d, PLUMB_ERR_INVALID, op->loc, "func.call: @%s returns %u values, the call expects %u",
                       f->name, ret ? ret->n_operands : 0, op->n_results);
        ok = !(c->failed = true);
    }
    for (uint32_t i = 0; ok && i < op->n_results; i++) {
        ir_value *v = inner[ret->operands[i]->id];
        if (!v) {
            plumb_diag_set(c->d, PLUMB_ERR_INVALID, ret->loc, "return: value %u of @%s is undefined", i, f->name);
            ok = !(c->failed = true);
        } else {
            map[op->results[i]->id] = v;
        }
    }
    plumb_free(inner, (size_t)(c->n_ids ? c->n_ids : 1) * sizeof *inner);
    return ok;
}

/* Splat constants of more elements than this are cloned as a broadcast of
 * their one element (the same threshold as the passes' split of splats). */
#define RT_CLONE_SPLAT_MIN_ELEMS 4096u

/* A constant known to be a splat (ir_attrs_value_splat, marked when it was
 * parsed) becomes broadcast_in_dim of a scalar constant as it is cloned:
 * the same bits, and the compile never copies or reads the rest of its
 * data, so its cost does not grow with the constant's size. Returns false
 * when op is not such a constant (*done false) or on failure (*done true). */
static bool clone_splat(cloner *c, const ir_op *op, ir_block *dst, ir_value **map, bool *done)
{
    *done = false;
    const ir_type *rt = op->n_results == 1 ? &op->results[0]->type : NULL;
    if (op->code != PLUMB_OP_CONSTANT || !rt || !ir_type_is_static(rt) || !ir_attrs_value_splat(&op->a))
        return false;
    uint64_t numel = 1;
    for (uint32_t i = 0; i < rt->rank; i++)
        numel *= (uint64_t)rt->dims[i];
    if (numel <= RT_CLONE_SPLAT_MIN_ELEMS || op->a.value->dtype != rt->dtype)
        return false;
    *done = true;
    size_t es = plumb_dtype_size(rt->dtype);
    plumb_tensor *t = plumb_arena_alloc(c->dst->arena, sizeof *t);
    void *data = plumb_arena_alloc(c->dst->arena, es);
    if (!t || !data)
        return cl_nomem(c);
    memset(t, 0, sizeof *t);
    t->dtype = rt->dtype;
    t->nbytes = es;
    t->data = data;
    memcpy(data, op->a.value->data, es);
    ir_type st = ir_type_scalar(rt->dtype);
    ir_op *k = ir_op_new(c->dst, PLUMB_OP_CONSTANT, NULL, 0, &st, 1);
    if (!k)
        return cl_nomem(c);
    k->a.value = t;
    k->a.value_splat_data = data;
    k->loc = op->loc;
    ir_value *sv = k->results[0];
    ir_op *b = ir_op_new(c->dst, PLUMB_OP_BROADCAST_IN_DIM, &sv, 1, rt, 1);
    if (!b)
        return cl_nomem(c);
    b->loc = op->loc;
    if (!ir_debug_loc_copy(c->dst, &k->dloc, &op->dloc) || !ir_debug_loc_copy(c->dst, &b->dloc, &op->dloc))
        return cl_nomem(c);
    ir_block_append(dst, k);
    ir_block_append(dst, b);
    map[op->results[0]->id] = b->results[0];
    return true;
}

static bool clone_op(cloner *c, const ir_op *op, ir_block *dst, ir_value **map, uint32_t depth)
{
    /* a composite runs through its decomposition, inlined as a call is */
    if (op->code == PLUMB_OP_CALL || op->code == PLUMB_OP_COMPOSITE)
        return inline_call(c, op, dst, map, depth);
    bool done;
    if (clone_splat(c, op, dst, map, &done) || done)
        return !c->failed;
    if (++c->ops > RT_MAX_INLINED_OPS || plumb_arena_bytes(c->dst->arena) > c->max_bytes) {
        bool by_ops = c->ops > RT_MAX_INLINED_OPS;
        char what[96];
        if (by_ops)
            snprintf(what, sizeof what, "more than %llu ops", (unsigned long long)RT_MAX_INLINED_OPS);
        else
            snprintf(what, sizeof what, "more than the limit of %llu bytes", (unsigned long long)c->max_bytes);
        plumb_diag_set(c->d, PLUMB_ERR_LIMIT, op->loc,
                       "%s: inlining every call (here the body of @%s) makes the compiled program %s; the runtime "
                       "inlines all calls, the reference interpreter (--backend ref) does not",
                       plumb_op_name(op->code), c->inlining ? c->inlining->name : "?", what);
        return !(c->failed = true);
    }
    ir_value *small[8];
    ir_value **ops = small;
    if (op->n_operands > 8 && !(ops = plumb_calloc(op->n_operands, sizeof *ops)))
        return cl_nomem(c);
    ir_type tsmall[4];
    ir_type *types = tsmall;
    bool ok = true;
    if (op->n_results > 4 && !(types = plumb_calloc(op->n_results, sizeof *types)))
        ok = cl_nomem(c);
    for (uint32_t i = 0; ok && i < op->n_operands; i++) {
        uint32_t id = op->operands[i]->id;
        if (id >= c->n_ids || !(ops[i] = map[id])) {
            plumb_diag_set(c->d, PLUMB_ERR_INVALID, op->loc, "%s: operand %u is undefined", plumb_op_name(op->code), i);
            ok = !(c->failed = true);
        }
    }
    for (uint32_t i = 0; ok && i < op->n_results; i++)
        types[i] = op->results[i]->type;
    ir_op *n = ok ? ir_op_new(c->dst, op->code, ops, op->n_operands, types, op->n_results) : NULL;
    if (ok && !n)
        ok = cl_nomem(c);
    if (ok) {
        n->loc = op->loc;
        ok = copy_attrs(c, &n->a, &op->a);
    }
    /* the front end's `loc(...)` too, so run-time errors can name it */
    if (ok && !ir_debug_loc_copy(c->dst, &n->dloc, &op->dloc))
        ok = cl_nomem(c);
    for (uint32_t i = 0; ok && i < op->n_results; i++)
        map[op->results[i]->id] = n->results[i];
    if (ok && op->n_regions && !ir_op_add_regions(c->dst, n, op->n_regions))
        ok = cl_nomem(c);
    for (uint32_t r = 0; ok && r < op->n_regions; r++) {
        const ir_block *sb = &op->regions[r];
        ir_block *db = &n->regions[r];
        for (uint32_t i = 0; ok && i < sb->n_args; i++) {
            ir_value *v = ir_block_add_arg(c->dst, db, &sb->args[i]->type);
            if (!v)
                ok = cl_nomem(c);
            else
                map[sb->args[i]->id] = v;
        }
        if (ok)
            ok = clone_block(c, sb, db, map, depth);
    }
    if (ok)
        ir_block_append(dst, n);
    if (ops != small)
        plumb_free(ops, op->n_operands * sizeof *ops);
    if (types != tsmall)
        plumb_free(types, op->n_results * sizeof *types);
    return ok;
}

/* Copies src's ops from first through last (inclusive) into dst. */
static bool clone_block(cloner *c, const ir_block *src, ir_block *dst, ir_value **map, uint32_t depth)
{
    if (!src->last)
        return true;
    for (const ir_op *op = src->first; op; op = op->next) {
        if (!clone_op(c, op, dst, map, depth))
            return false;
        if (op == src->last)
            break;
    }
    return true;
}

/* A module holding one function: entry with every call inlined. */
static ir_module *inline_entry(const ir_module *m, const ir_func *entry, uint64_t max_bytes, ir_func **out_f,
                               plumb_diag *d)
{
    cloner c = {.src = m, .d = d, .n_ids = m->next_value_id, .max_bytes = max_bytes};
    c.dst = ir_module_new(m->name);
    ir_value **map = plumb_calloc(c.n_ids ? c.n_ids : 1, sizeof *map);
    ir_func *f = NULL;
    if (!c.dst || !map || !(f = ir_func_new(c.dst, entry->name, true))) {
        cl_nomem(&c);
        goto fail;
    }
    if (m->filename && !(c.dst->filename = plumb_arena_strdup(c.dst->arena, m->filename))) {
        cl_nomem(&c);
        goto fail;
    }
    f->loc = entry->loc;
    for (uint32_t i = 0; i < entry->body.n_args; i++) {
        ir_value *v = ir_block_add_arg(c.dst, &f->body, &entry->body.args[i]->type);
        const char *name = entry->body.args[i]->name;
        /* the name is kept for errors about a parameter's run-time size */
        if (!v || (name && !(v->name = plumb_arena_strdup(c.dst->arena, name)))) {
            cl_nomem(&c);
            goto fail;
        }
        map[entry->body.args[i]->id] = v;
    }
    if (!ir_func_set_results(c.dst, f, entry->result_types, entry->n_results)) {
        cl_nomem(&c);
        goto fail;
    }
    if (!clone_block(&c, &entry->body, &f->body, map, 0))
        goto fail;
    plumb_free(map, (size_t)(c.n_ids ? c.n_ids : 1) * sizeof *map);
    *out_f = f;
    return c.dst;
fail:
    if (map)
        plumb_free(map, (size_t)(c.n_ids ? c.n_ids : 1) * sizeof *map);
    ir_module_free(c.dst);
    return NULL;
}

/* ---- planning ----------------------------------------------------------------------- */

static bool plan_fail(plumb_diag *d, plumb_code code, plumb_loc loc, const char *fmt, const char *what)
{
    plumb_diag_set(d, code, loc, fmt, what);
    return false;
}

static bool is_terminator(const ir_op *op)
{
    return op->code == PLUMB_OP_FUNC_RETURN || op->code == PLUMB_OP_RETURN;
}

static void type_text(char *out, size_t cap, const ir_type *t)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(out, cap, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
}

/* Fills a tensor header for value v without data. *nbytes gets the size
 * its buffer is planned at: the value's size for a static type, its size at
 * the bounds when every `?` dimension has one (a run never needs more:
 * ir_shape_infer holds every result within its bounds), 0 with *per_run set
 * for an unbounded `?` (the buffer is sized when a run knows the size).
 * The header keeps the declared dims (`?` included) until a run sets them. */
static bool header_for(rt_program *p, const ir_value *v, uint64_t max_bytes, uint64_t *nbytes, bool *per_run,
                       plumb_diag *d)
{
    plumb_tensor *t = &p->hdr[v->id];
    int64_t dims[PLUMB_MAX_RANK];
    bool dyn = false;
    *per_run = false;
    for (uint32_t i = 0; i < v->type.rank; i++) {
        dims[i] = v->type.dims[i];
        if (dims[i] == PLUMB_DIM_DYN) {
            dyn = true;
            if (v->type.bounds[i] == PLUMB_NO_BOUND)
                *per_run = true;
            else
                dims[i] = v->type.bounds[i];
        }
    }
    p->dynamic |= dyn;
    uint64_t numel = 0;
    *nbytes = 0;
    plumb_diag sd = {.code = PLUMB_OK};
    if (!*per_run && !plumb_shape_size(v->type.dtype, v->type.rank, dims, max_bytes, &numel, nbytes, &sd)) {
        plumb_loc loc = v->def ? v->def->loc : (plumb_loc){0, 0};
        if (dyn) {
            char ts[256];
            type_text(ts, sizeof ts, &v->type);
            plumb_diag_set(d, sd.code ? sd.code : PLUMB_ERR_LIMIT, loc,
                           "a value of type %s is planned at its bounds: %s", ts, sd.msg);
        } else {
            plumb_diag_set(d, sd.code ? sd.code : PLUMB_ERR_LIMIT, loc, "%s", sd.msg);
        }
        return false;
    }
    t->dtype = v->type.dtype;
    t->rank = v->type.rank;
    memcpy(t->dims, v->type.dims, sizeof t->dims);
    t->nbytes = dyn ? 0 : (size_t)*nbytes;
    t->data = NULL;
    t->owned = false;
    return true;
}

typedef struct planner {
    rt_program *p;
    uint32_t *buf_of;        /* per value id: buffer index + 1, 0 = none */
    uint32_t *last_use;      /* per value id: index of the last step reading it */
    bool *free_buf;          /* per buffer: available */
    uint32_t cap_free;       /* entries free_buf has room for */
    plumb_diag *d;
} planner;

/* The two arrays grow one after the other, so each has its own capacity:
 * when the second realloc fails, the first has grown already and must be
 * freed with its new size (p->cap_bufs), the second with its old one. */
static bool grow_bufs(planner *pl)
{
    rt_program *p = pl->p;
    if (p->n_bufs < p->cap_bufs && p->n_bufs < pl->cap_free)
        return true;
    if (p->n_bufs >= p->cap_bufs) {
        uint32_t ncap = p->cap_bufs ? p->cap_bufs * 2 : 16;
        rt_buffer *nb = plumb_realloc(p->bufs, (size_t)p->cap_bufs * sizeof *nb, (size_t)ncap * sizeof *nb);
        if (!nb)
            return false;
        p->bufs = nb;
        p->cap_bufs = ncap;
    }
    if (p->n_bufs >= pl->cap_free) {
        uint32_t ncap = p->cap_bufs;
        bool *nf = plumb_realloc(pl->free_buf, (size_t)pl->cap_free * sizeof *nf, (size_t)ncap * sizeof *nf);
        if (!nf)
            return false;
        pl->free_buf = nf;
        pl->cap_free = ncap;
    }
    return true;
}

/* Best fit among free buffers; else grow the largest free one; else new.
 * A value of 0 bytes gets none unless per_run (an unbounded `?` value:
 * its buffer grows when a run needs more). */
static bool assign(planner *pl, uint32_t id, size_t bytes, bool per_run)
{
    rt_program *p = pl->p;
    if (bytes == 0 && !per_run)
        return true;
    uint32_t best = UINT32_MAX, largest = UINT32_MAX;
    for (uint32_t b = 0; b < p->n_bufs; b++) {
        if (!pl->free_buf[b])
            continue;
        if (p->bufs[b].bytes >= bytes && (best == UINT32_MAX || p->bufs[b].bytes < p->bufs[best].bytes))
            best = b;
        if (largest == UINT32_MAX || p->bufs[b].bytes > p->bufs[largest].bytes)
            largest = b;
    }
    if (best == UINT32_MAX && largest != UINT32_MAX) {
        best = largest;
        p->bufs[best].bytes = bytes;
    }
    if (best == UINT32_MAX) {
        if (!grow_bufs(pl))
            return false;
        best = p->n_bufs++;
        memset(&p->bufs[best], 0, sizeof p->bufs[best]);
        p->bufs[best].bytes = bytes;
    }
    pl->free_buf[best] = false;
    pl->buf_of[id] = best + 1;
    return true;
}

static void release(planner *pl, uint32_t id)
{
    if (pl->buf_of[id])
        pl->free_buf[pl->buf_of[id] - 1] = true;
}

static bool build_steps(rt_program *p, const rt_group *groups, uint32_t n_groups, rt_view *const *views,
                        plumb_diag *d)
{
    rt_step *steps = plumb_arena_array(p->arena, n_groups ? n_groups : 1, sizeof *steps);
    if (!steps)
        return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "steps");
    uint32_t ns = 0;
    for (uint32_t g = 0; g < n_groups; g++) {
        const rt_group *gr = &groups[g];
        if (gr->n_ops == 0)
            continue;
        const ir_op *op0 = gr->ops[0];
        if (!gr->fused && gr->n_ops == 1 && (op0->code == PLUMB_OP_CONSTANT || is_terminator(op0)))
            continue;   /* constants are read in place; the return is planned separately */
        rt_step *s = &steps[ns++];
        s->ops = gr->ops;
        s->n_ops = gr->n_ops;
        ir_value *const *ins, *const *outs;
        if (views && views[g]) {
            /* a movement chain read through its view (rt_view.h): the
             * last op names it, the tensors the view reads are its inputs */
            s->op = gr->ops[gr->n_ops - 1];
            s->view = views[g];
            s->n_in = gr->n_inputs;
            s->n_out = 1;
            ins = gr->inputs;
            outs = s->op->results;
        } else if (gr->fused) {
            s->fused = gr->fused;
            s->n_in = gr->n_inputs;
            s->n_out = gr->n_outputs;
            ins = gr->inputs;
            outs = gr->outputs;
        } else {
            if (gr->n_ops != 1)
                return plan_fail(d, PLUMB_ERR_INVALID, op0->loc, "fusion returned a group of several ops without %s",
                                 "a fused kernel");
            s->op = op0;
            s->n_in = op0->n_operands;
            s->n_out = op0->n_results;
            ins = op0->operands;
            outs = op0->results;
        }
        s->in = plumb_arena_array(p->arena, s->n_in ? s->n_in : 1, sizeof *s->in);
        s->out = plumb_arena_array(p->arena, s->n_out ? s->n_out : 1, sizeof *s->out);
        s->out_vals = outs;
        if (!s->in || !s->out)
            return plan_fail(d, PLUMB_ERR_NOMEM, op0->loc, "out of memory planning %s", "a step");
        for (uint32_t i = 0; i < s->n_in; i++) {
            if (ins[i]->id >= p->n_values)
                return plan_fail(d, PLUMB_ERR_INVALID, op0->loc, "a step reads %s", "a value of another module");
            s->in[i] = &p->hdr[ins[i]->id];
        }
        for (uint32_t i = 0; i < s->n_out; i++) {
            if (outs[i]->id >= p->n_values)
                return plan_fail(d, PLUMB_ERR_INVALID, op0->loc, "a step writes %s", "a value of another module");
            s->out[i] = &p->hdr[outs[i]->id];
        }
    }
    p->steps = steps;
    p->n_steps = ns;
    return true;
}

/* ---- iotas a reduce generates --------------------------------------------------------- */

/* Uses of v as an operand in blk and its nested regions (a return counts). */
static uint32_t uses_of(const ir_block *blk, const ir_value *v)
{
    uint32_t n = 0;
    for (const ir_op *o = blk->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++)
            n += o->operands[i] == v;
        for (uint32_t r = 0; r < o->n_regions; r++)
            n += uses_of(&o->regions[r], v);
    }
    return n;
}

/* A reduce taken by the pair fold (runtime/k_argfold.c) reads its index
 * iota nowhere but where it generates it, so an iota that is the reduce's
 * input 1 and read by nothing else (not returned, not captured) gets no
 * step and no buffer: its group is emptied (build_steps skips it) and
 * plan_buffers gives it a header without data, which tells the kernel to
 * generate it (or materialize it in scratch, if the fold does not apply
 * at run time). opt_level 2, programs without `?` dimensions. */
static void gen_iotas(const ir_func *f, uint32_t opt_level, rt_group *groups, uint32_t n_groups,
                      rt_view *const *views)
{
    if (opt_level < 2)
        return;
    for (uint32_t i = 0; i < f->body.n_args; i++)
        if (f->body.args[i]->type.tuple || !ir_type_is_static(&f->body.args[i]->type))
            return;
    for (const ir_op *o = f->body.first; o; o = o->next)
        for (uint32_t i = 0; i < o->n_results; i++)
            if (o->results[i]->type.tuple || !ir_type_is_static(&o->results[i]->type))
                return;
    for (uint32_t g = 0; g < n_groups; g++) {
        const rt_group *gr = &groups[g];
        if (gr->fused || gr->n_ops != 1 || (views && views[g]) || !rt_argfold_takes_iota(gr->ops[0]))
            continue;
        const ir_value *iv = gr->ops[0]->operands[1];
        if (iv->def->parent != &f->body || uses_of(&f->body, iv) != 1)
            continue;
        for (uint32_t h = 0; h < n_groups; h++)
            if (!groups[h].fused && groups[h].n_ops == 1 && groups[h].ops[0] == iv->def && !(views && views[h]))
                groups[h].n_ops = 0;
    }
}

/* Whether input i of step st is an iota gen_iotas left unplanned. */
static bool gen_iota_input(const rt_step *st, uint32_t i)
{
    return st->op && !st->fused && !st->view && i == 1 && st->n_in == 4 && rt_argfold_takes_iota(st->op);
}

#define NEVER_READ 0xFFFFFFFEu
#define LIVE_TO_END 0xFFFFFFFFu

/* Whether v is defined by the function body itself (not inside a region). */
static bool top_level_value(const ir_value *v)
{
    const ir_block *b = v->def ? v->def->parent : v->owner;
    return b && !b->parent;
}

/* Marks every function-body value that ops of region blk (nested regions
 * included) read as read by step s. */
static void mark_captures(const ir_block *blk, uint32_t *last_use, uint32_t nv, uint32_t s)
{
    for (const ir_op *o = blk->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++) {
            const ir_value *v = o->operands[i];
            if (v->id < nv && top_level_value(v) && (last_use[v->id] == NEVER_READ || last_use[v->id] < s))
                last_use[v->id] = s;
        }
        for (uint32_t r = 0; r < o->n_regions; r++)
            mark_captures(&o->regions[r], last_use, nv, s);
    }
}

static bool plan_buffers(rt_program *p, uint64_t max_bytes, plumb_diag *d)
{
    ir_func *f = p->f;
    planner pl = {.p = p, .d = d};
    size_t nv = p->n_values ? p->n_values : 1;
    bool ok = false;
    pl.buf_of = plumb_calloc(nv, sizeof *pl.buf_of);
    pl.last_use = plumb_malloc(nv * sizeof *pl.last_use);
    uint8_t *avail = plumb_calloc(nv, 1);   /* 1 = parameter or constant, 2 = produced by a step */
    if (!pl.buf_of || !pl.last_use || !avail) {
        plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "buffers");
        goto out;
    }
    for (size_t i = 0; i < nv; i++)
        pl.last_use[i] = NEVER_READ;
    /* Headers for parameters and constants (data pointed at, never copied). */
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        uint64_t nb;
        bool per_run;
        if (!header_for(p, f->body.args[i], max_bytes, &nb, &per_run, d))
            goto out;
        avail[f->body.args[i]->id] = 1;
    }
    for (const ir_op *op = f->body.first; op; op = op->next) {
        if (op->code != PLUMB_OP_CONSTANT || op->n_results != 1)
            continue;
        uint64_t nb;
        bool per_run;
        if (!header_for(p, op->results[0], max_bytes, &nb, &per_run, d))
            goto out;
        const plumb_tensor *v = op->a.value;
        if (!v || v->nbytes != nb) {
            plan_fail(d, PLUMB_ERR_INVALID, op->loc, "%s: the value does not match the result type",
                      plumb_op_name(op->code));
            goto out;
        }
        p->hdr[op->results[0]->id].data = v->data;
        avail[op->results[0]->id] = 1;
    }
    for (uint32_t s = 0; s < p->n_steps; s++)
        for (uint32_t i = 0; i < p->steps[s].n_in; i++)
            pl.last_use[p->steps[s].in[i] - p->hdr] = s;
    /* A while's regions read the body values they capture when the while
     * runs: those values live until its step (rt_exec.outer). */
    for (uint32_t s = 0; s < p->n_steps; s++)
        if (p->steps[s].op)
            for (uint32_t r = 0; r < p->steps[s].op->n_regions; r++)
                mark_captures(&p->steps[s].op->regions[r], pl.last_use, nv, s);
    for (uint32_t i = 0; i < p->n_outputs; i++)
        pl.last_use[p->out_ids[i]] = LIVE_TO_END;
    for (uint32_t s = 0; s < p->n_steps; s++) {
        rt_step *st = &p->steps[s];
        for (uint32_t i = 0; i < st->n_in; i++) {
            uint32_t id = (uint32_t)(st->in[i] - p->hdr);
            if (!avail[id] && gen_iota_input(st, i)) {
                /* a header without data: generated where read (gen_iotas) */
                uint64_t nb;
                bool per_run;
                if (!header_for(p, st->op->operands[1], max_bytes, &nb, &per_run, d))
                    goto out;
                avail[id] = 1;
            }
            if (!avail[id]) {
                const ir_op *op = st->op;
                plan_fail(d, PLUMB_ERR_INVALID, op ? op->loc : (plumb_loc){0, 0},
                          "a step reads a value %s", "that no earlier step produces");
                goto out;
            }
        }
        for (uint32_t i = 0; i < st->n_out; i++) {
            uint32_t id = st->out_vals[i]->id;
            uint64_t nb;
            bool per_run;
            if (avail[id]) {
                plan_fail(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "two steps write %s", "the same value");
                goto out;
            }
            if (!header_for(p, st->out_vals[i], max_bytes, &nb, &per_run, d))
                goto out;
            avail[id] = 2;
            if (!assign(&pl, id, (size_t)nb, per_run)) {
                plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "buffers");
                goto out;
            }
        }
        for (uint32_t i = 0; i < st->n_in; i++) {
            uint32_t id = (uint32_t)(st->in[i] - p->hdr);
            if (pl.last_use[id] == s && avail[id] == 2) {
                release(&pl, id);
                avail[id] = 3;   /* released once even when read twice */
            }
        }
        for (uint32_t i = 0; i < st->n_out; i++) {
            uint32_t id = st->out_vals[i]->id;
            if (pl.last_use[id] == NEVER_READ)
                release(&pl, id);
        }
    }
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (!avail[p->out_ids[i]]) {
            plan_fail(d, PLUMB_ERR_INVALID, f->loc, "@%s returns a value no step produces", f->name);
            goto out;
        }
    /* Allocate the buffers, without touching them: compile time must not
     * grow with tensor sizes (a memset of a 4096x4096 program's buffers cost
     * it tens of ms). Kernels write every element of their outputs, so the
     * contents need no initial value; the first run maps the pages. */
    for (uint32_t b = 0; b < p->n_bufs; b++) {
        rt_buffer *bf = &p->bufs[b];
        if (bf->bytes > SIZE_MAX - 64 || !(bf->raw = plumb_malloc(bf->bytes + 64))) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0},
                           "out of memory allocating planned buffer %u of %zu bytes (%u buffers planned)", b,
                           bf->bytes, p->n_bufs);
            goto out;
        }
        bf->data = (void *)(((uintptr_t)bf->raw + 63) & ~(uintptr_t)63);
        p->planned_bytes += bf->bytes;
    }
    for (uint32_t id = 0; id < p->n_values; id++)
        if (pl.buf_of[id])
            p->hdr[id].data = p->bufs[pl.buf_of[id] - 1].data;
    /* A run with `?` dimensions points each value at its buffer when its
     * step runs (a buffer sized per run may have moved). */
    if (p->dynamic) {
        if (!(p->buf_of = plumb_arena_array(p->arena, nv, sizeof *p->buf_of))) {
            plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "buffers");
            goto out;
        }
        memcpy(p->buf_of, pl.buf_of, nv * sizeof *p->buf_of);
    }
    /* A result a step produces is written straight into the caller's
     * tensor (its first occurrence, when returned twice). */
    p->out_direct = plumb_arena_array(p->arena, p->n_outputs ? p->n_outputs : 1, sizeof *p->out_direct);
    p->out_planned = plumb_arena_array(p->arena, p->n_outputs ? p->n_outputs : 1, sizeof *p->out_planned);
    if (!p->out_direct || !p->out_planned) {
        plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "results");
        goto out;
    }
    for (uint32_t i = 0; i < p->n_outputs; i++) {
        uint32_t id = p->out_ids[i];
        bool first = true;
        for (uint32_t j = 0; j < i && first; j++)
            first = p->out_ids[j] != id;
        p->out_direct[i] = first && pl.buf_of[id] != 0;
        p->out_planned[i] = p->hdr[id].data;
    }
    ok = true;
out:
    if (pl.buf_of)
        plumb_free(pl.buf_of, nv * sizeof *pl.buf_of);
    if (pl.last_use)
        plumb_free(pl.last_use, nv * sizeof *pl.last_use);
    if (avail)
        plumb_free(avail, nv);
    if (pl.free_buf)
        plumb_free(pl.free_buf, (size_t)pl.cap_free * sizeof *pl.free_buf);
    return ok;
}

/* The bytes a tensor of t's dtype and dims holds (SIZE_MAX when that
 * overflows). */
static size_t dims_bytes(const plumb_tensor *t)
{
    uint64_t nb = plumb_dtype_size(t->dtype);
    for (uint32_t i = 0; i < t->rank && i < PLUMB_MAX_RANK; i++)
        if (t->dims[i] < 0 || plumb_mul_overflow_u64(nb, (uint64_t)t->dims[i], &nb))
            return SIZE_MAX;
    return nb > SIZE_MAX ? SIZE_MAX : (size_t)nb;
}

static void set_shape(plumb_tensor *h, const ir_type *t)
{
    h->dtype = t->dtype;
    h->rank = t->rank;
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        h->dims[i] = i < t->rank ? t->dims[i] : 0;
    h->nbytes = dims_bytes(h);
}

/* Whether ir_shape_infer reads the values of operand i of op: the shape
 * operands of the dynamic ops (include/plumb/shape.h). Everything else it
 * derives from dims alone. */
static bool reads_values(const ir_op *op, uint32_t i)
{
    switch (op->code) {
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
    case PLUMB_OP_DYNAMIC_RESHAPE:
        return i == 1;
    case PLUMB_OP_DYNAMIC_IOTA:
    case PLUMB_OP_IF:     /* the selector: the branch taken gives the result shapes */
    case PLUMB_OP_CASE:
        return i == 0;
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
        return i >= 1;
    case PLUMB_OP_DYNAMIC_PAD:
        return i >= 2;
    case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_DYNAMIC_CONV:
        return i == 2;
    default:
        return false;
    }
}

/* Whether the lowered function has a `?` dimension anywhere; if so, the
 * scratch a run needs to derive shapes op by op. */
static bool prepare_dynamic(rt_program *p, plumb_diag *d)
{
    const ir_func *f = p->f;
    uint32_t max_in = 1, max_out = 1;
    for (uint32_t i = 0; i < f->body.n_args; i++)
        p->dynamic |= !ir_type_is_static(&f->body.args[i]->type);
    for (const ir_op *op = f->body.first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_results; i++)
            p->dynamic |= !ir_type_is_static(&op->results[i]->type);
        if (op->n_operands > max_in)
            max_in = op->n_operands;
        if (op->n_results > max_out)
            max_out = op->n_results;
    }
    if (!p->dynamic)
        return true;
    p->dyn_in = plumb_arena_array(p->arena, max_in, sizeof *p->dyn_in);
    p->dyn_types = plumb_arena_array(p->arena, max_out, sizeof *p->dyn_types);
    if (!p->dyn_in || !p->dyn_types)
        return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "run-time shapes");
    uint32_t n_memo = 0, max_key = 1;
    for (uint32_t s = 0; s < p->n_steps; s++) {
        p->steps[s].memo0 = n_memo;
        n_memo += p->steps[s].n_ops;
    }
    if (!(p->memo = plumb_arena_array(p->arena, n_memo ? n_memo : 1, sizeof *p->memo)))
        return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "run-time shapes");
    for (uint32_t s = 0; s < p->n_steps; s++)
        for (uint32_t k = 0; k < p->steps[s].n_ops; k++) {
            const ir_op *op = p->steps[s].ops[k];
            rt_shape_memo *mo = &p->memo[p->steps[s].memo0 + k];
            /* per operand: rank, dims, count of values read, the values */
            mo->key_cap = op->n_operands * (2 + 2 * PLUMB_MAX_RANK);
            mo->key = plumb_arena_array(p->arena, mo->key_cap ? mo->key_cap : 1, sizeof *mo->key);
            mo->out = plumb_arena_array(p->arena, op->n_results ? op->n_results : 1, sizeof *mo->out);
            if (!mo->key || !mo->out)
                return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "run-time shapes");
            if (mo->key_cap > max_key)
                max_key = mo->key_cap;
            /* An op of static types has the declared result shapes on every
             * run (ir_shape_infer would only copy them): its result headers
             * get them now and runs skip it. */
            mo->fixed = true;
            for (uint32_t i = 0; i < op->n_operands; i++)
                mo->fixed &= ir_type_is_static(&op->operands[i]->type);
            for (uint32_t i = 0; i < op->n_results; i++)
                mo->fixed &= ir_type_is_static(&op->results[i]->type);
            for (uint32_t i = 0; mo->fixed && i < op->n_results; i++) {
                plumb_tensor *h = &p->hdr[op->results[i]->id];
                void *data = h->data;
                set_shape(h, &op->results[i]->type);
                h->data = data;
            }
        }
    for (uint32_t s = 0; s < p->n_steps; s++) {
        rt_step *st = &p->steps[s];
        st->all_fixed = true;
        for (uint32_t k = 0; k < st->n_ops; k++)
            st->all_fixed &= p->memo[st->memo0 + k].fixed;
        st->in_vals = plumb_arena_array(p->arena, st->n_in ? st->n_in : 1, sizeof *st->in_vals);
        st->skey_cap = st->n_in * (2 + 2 * PLUMB_MAX_RANK);
        st->skey = plumb_arena_array(p->arena, st->skey_cap ? st->skey_cap : 1, sizeof *st->skey);
        if (!st->in_vals || !st->skey)
            return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "run-time shapes");
        for (uint32_t k = 0; k < st->n_ops; k++) {
            const ir_op *op = st->ops[k];
            for (uint32_t i = 0; i < op->n_operands; i++) {
                if (!reads_values(op, i))
                    continue;
                for (uint32_t j = 0; j < st->n_in; j++)
                    if (st->in[j] == &p->hdr[op->operands[i]->id])
                        st->in_vals[j] = true;
            }
        }
    }
    if (!(p->memo_key = plumb_arena_array(p->arena, max_key, sizeof *p->memo_key)))
        return plan_fail(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory planning %s", "run-time shapes");
    return true;
}

/* Passes done: fuse, plan, prepare the execution context. Takes m. */
static rt_program *finish(ir_module *m, ir_func *f, const rt_compile_opts *o, plumb_diag *d)
{
    rt_program *p = plumb_calloc(1, sizeof *p);
    if (!p) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory compiling @%s", f->name);
        ir_module_free(m);   /* owns f */
        return NULL;
    }
    p->m = m;
    p->f = f;
    p->n_values = m->next_value_id;
    if (!(p->arena = plumb_arena_new(0)) ||
        !(p->hdr = plumb_arena_array(p->arena, p->n_values ? p->n_values : 1, sizeof *p->hdr))) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory compiling @%s", f->name);
        goto fail;
    }
    const ir_op *ret = f->body.last;
    if (!ret || !is_terminator(ret)) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, f->loc, "@%s has no return", f->name);
        goto fail;
    }
    p->n_params = f->body.n_args;
    p->n_outputs = ret->n_operands;
    p->param_ids = plumb_arena_array(p->arena, p->n_params ? p->n_params : 1, sizeof *p->param_ids);
    p->out_ids = plumb_arena_array(p->arena, p->n_outputs ? p->n_outputs : 1, sizeof *p->out_ids);
    if (!p->param_ids || !p->out_ids) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory compiling @%s", f->name);
        goto fail;
    }
    for (uint32_t i = 0; i < p->n_params; i++)
        p->param_ids[i] = f->body.args[i]->id;
    for (uint32_t i = 0; i < p->n_outputs; i++)
        p->out_ids[i] = ret->operands[i]->id;
    rt_group *groups = NULL;
    uint32_t n_groups = 0;
    if (!rt_fuse(p->arena, f, o->opt_level, &groups, &n_groups, d))
        goto fail;
    rt_view **views = NULL;
    if (!rt_view_plan(p->arena, f, o->opt_level, groups, n_groups, &views, d))
        goto fail;
    gen_iotas(f, o->opt_level, groups, n_groups, views);
    if (!build_steps(p, groups, n_groups, views, d) || !prepare_dynamic(p, d) || !plan_buffers(p, o->max_bytes, d))
        goto fail;
    if (!rt_exec_init(&p->x, o->pool, o->isa, m, o->max_bytes, d))
        goto fail;
    p->x.outer = p->hdr;
    p->x.n_outer = p->n_values;
    return p;
fail:
    rt_program_free(p);
    return NULL;
}

rt_program *rt_program_compile(const ir_module *m, const ir_func *entry, const rt_compile_opts *o, plumb_diag *d)
{
    ir_func *f = NULL;
    ir_module *cm = inline_entry(m, entry, o->max_bytes, &f, d);
    if (!cm)
        return NULL;
    if (!rt_run_passes(cm, f, o->opt_level, o->max_bytes, d)) {
        ir_module_free(cm);
        return NULL;
    }
    char *text = NULL;
    size_t tlen = 0;
    if (o->want_text) {
        plumb_buf b;
        plumb_buf_init(&b);
        ir_print(&b, cm);
        if (b.failed) {
            plumb_buf_free(&b);
            ir_module_free(cm);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing @%s for the disk cache",
                           entry->name);
            return NULL;
        }
        text = plumb_buf_take(&b, &tlen);
    }
    rt_program *p = finish(cm, f, o, d);
    if (!p) {
        if (text)
            plumb_free(text, tlen + 1);
        return NULL;
    }
    p->opt_text = text;
    p->opt_text_len = tlen;
    return p;
}

rt_program *rt_program_load(const char *text, size_t len, const rt_compile_opts *o, plumb_diag *d)
{
    ir_parse_options po = {sizeof po, 0, o->max_bytes};
    ir_module *m = ir_parse(text, len, NULL, &po, d);
    if (!m)
        return NULL;
    ir_verify_options vo = {sizeof vo, o->max_bytes};
    if (m->n_funcs != 1 || !ir_verify(m, &vo, d)) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "the cached program is not one verified function");
        ir_module_free(m);
        return NULL;
    }
    return finish(m, m->funcs[0], o, d);
}

void rt_program_free(rt_program *p)
{
    if (!p)
        return;
    if (p->x.env || p->x.region_mu_init)
        rt_exec_fini(&p->x);
    for (uint32_t b = 0; b < p->n_bufs; b++)
        if (p->bufs[b].raw)
            plumb_free(p->bufs[b].raw, p->bufs[b].bytes + 64);
    if (p->bufs)
        plumb_free(p->bufs, (size_t)p->cap_bufs * sizeof *p->bufs);
    if (p->opt_text)
        plumb_free(p->opt_text, p->opt_text_len + 1);
    if (p->arena)
        plumb_arena_free(p->arena);
    ir_module_free(p->m);
    plumb_free(p, sizeof *p);
}

/* ---- running ------------------------------------------------------------------------- */

/* Inputs of a program with `?` dimensions: the parameter types decide
 * (static dims equal, `?` dims within their bounds: ir_shape_check_args,
 * whose error names the parameter and dimension), and each input holds
 * exactly the bytes of its own dims. */
static bool check_inputs_dyn(const rt_program *p, const char *entry, plumb_tensor *const *inputs,
                             uint32_t n_inputs, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    for (uint32_t i = 0; i < n_inputs; i++)
        if (!inputs || !inputs[i]) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "input %u of @%s is missing (NULL)", i, entry);
            return false;
        }
    /* The common case checked here; ir_shape_check_args words the error
     * (and formats each parameter's name while it checks). */
    bool fits = true;
    for (uint32_t i = 0; fits && i < n_inputs; i++) {
        const ir_type *ty = &p->f->body.args[i]->type;
        const plumb_tensor *t = inputs[i];
        fits = t->dtype == ty->dtype && t->rank == ty->rank;
        for (uint32_t k = 0; fits && k < ty->rank; k++)
            fits = ty->dims[k] == PLUMB_DIM_DYN
                       ? t->dims[k] >= 0 && (ty->bounds[k] == PLUMB_NO_BOUND || t->dims[k] <= ty->bounds[k])
                       : t->dims[k] == ty->dims[k];
    }
    if (!fits && !ir_shape_check_args(p->f, (const plumb_tensor *const *)inputs, n_inputs, d))
        return false;
    for (uint32_t i = 0; i < n_inputs; i++) {
        const plumb_tensor *t = inputs[i];
        size_t want = dims_bytes(t);
        if (t->nbytes != want || (t->nbytes && !t->data)) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "input %u of @%s holds %zu bytes of data, its dims need %zu",
                           i, entry, t->data ? t->nbytes : 0, want);
            return false;
        }
    }
    return true;
}

static bool check_inputs(const rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                         plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (n_inputs != p->n_params) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s takes %u parameters but %u inputs were given", entry,
                       p->n_params, n_inputs);
        return false;
    }
    if (p->dynamic)
        return check_inputs_dyn(p, entry, inputs, n_inputs, d);
    for (uint32_t i = 0; i < n_inputs; i++) {
        const plumb_tensor *t = inputs ? inputs[i] : NULL;
        const plumb_tensor *want = &p->hdr[p->param_ids[i]];
        if (!t) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "input %u of @%s is missing (NULL)", i, entry);
            return false;
        }
        bool same = t->dtype == want->dtype && t->rank == want->rank;
        for (uint32_t k = 0; same && k < t->rank; k++)
            same = t->dims[k] == want->dims[k];
        if (!same) {
            plumb_buf a, b;
            plumb_buf_init(&a);
            plumb_buf_init(&b);
            plumb_tensor_type_print(&a, t);
            plumb_tensor_type_print(&b, want);
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "input %u has type %s but parameter %u of @%s has type %s", i,
                           a.data && !a.failed ? a.data : "?", i, entry, b.data && !b.failed ? b.data : "?");
            plumb_buf_free(&a);
            plumb_buf_free(&b);
            return false;
        }
        if (t->nbytes != want->nbytes || (t->nbytes && !t->data)) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "input %u of @%s holds %zu bytes of data, its type needs %zu", i,
                           entry, t->data ? t->nbytes : 0, want->nbytes);
            return false;
        }
    }
    return true;
}

/* Whether byte ranges [a, a + na) and [b, b + nb) share a byte. */
static bool overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    if (!a || !b || na == 0 || nb == 0)
        return false;
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

static bool check_outputs(const rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                          plumb_tensor *const *outputs, uint32_t n_outputs, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (n_outputs != p->n_outputs || (n_outputs && !outputs)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s returns %u results but room for %u was given", entry,
                       p->n_outputs, n_outputs);
        return false;
    }
    for (uint32_t i = 0; i < n_outputs; i++) {
        const plumb_tensor *t = outputs[i];
        const plumb_tensor *want = &p->hdr[p->out_ids[i]];
        if (!t) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "output %u of @%s is missing (NULL)", i, entry);
            return false;
        }
        bool same;
        if (p->dynamic) {
            /* the declared type: static dims now, the `?` ones once the run
             * knows them (run_dyn, before anything writes the output) */
            const ir_type *ty = &p->f->body.last->operands[i]->type;
            same = t->dtype == ty->dtype && t->rank == ty->rank && (t->data || !t->nbytes) &&
                   t->nbytes == dims_bytes(t);
            for (uint32_t k = 0; same && k < t->rank; k++)
                same = ty->dims[k] == PLUMB_DIM_DYN || t->dims[k] == ty->dims[k];
            if (!same) {
                plumb_buf a, b;
                plumb_buf_init(&a);
                plumb_buf_init(&b);
                plumb_tensor_type_print(&a, t);
                ir_type_print(&b, ty);
                plumb_diag_set(d, PLUMB_ERR_USAGE, none, "output %u is %s holding %zu bytes but result %u of @%s is %s",
                               i, a.data && !a.failed ? a.data : "?", t->data ? t->nbytes : 0, i, entry,
                               b.data && !b.failed ? b.data : "?");
                plumb_buf_free(&a);
                plumb_buf_free(&b);
                return false;
            }
        }
        same = p->dynamic || (t->dtype == want->dtype && t->rank == want->rank && t->nbytes == want->nbytes &&
                              (t->data || !t->nbytes));
        for (uint32_t k = 0; same && !p->dynamic && k < t->rank; k++)
            same = t->dims[k] == want->dims[k];
        if (!same) {
            plumb_buf a, b;
            plumb_buf_init(&a);
            plumb_buf_init(&b);
            plumb_tensor_type_print(&a, t);
            plumb_tensor_type_print(&b, want);
            plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                           "output %u is %s holding %zu bytes but result %u of @%s is %s (%zu bytes)", i,
                           a.data && !a.failed ? a.data : "?", t->data ? t->nbytes : 0, i, entry,
                           b.data && !b.failed ? b.data : "?", want->nbytes);
            plumb_buf_free(&a);
            plumb_buf_free(&b);
            return false;
        }
        /* Kernels write results while later steps still read inputs, so an
         * output sharing memory with an input (or another output) would
         * change what the program computes. */
        for (uint32_t j = 0; j < n_inputs; j++)
            if (overlaps(t->data, t->nbytes, inputs[j]->data, inputs[j]->nbytes)) {
                plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                               "output %u of @%s shares memory with input %u; results must not alias inputs", i,
                               entry, j);
                return false;
            }
        for (uint32_t j = 0; j < i; j++)
            if (overlaps(t->data, t->nbytes, outputs[j]->data, outputs[j]->nbytes)) {
                plumb_diag_set(d, PLUMB_ERR_USAGE, none, "outputs %u and %u of @%s share memory", j, i, entry);
                return false;
            }
    }
    return true;
}

/* Runs the steps with result value i written straight into outputs[i]
 * where a step produces it (p->out_direct); the other results (parameters,
 * constants, a value returned twice) are copied after the run. The
 * headers point back at the planned buffers afterwards. */
static bool run_steps(rt_program *p, const char *entry, plumb_tensor *const *inputs, plumb_tensor *const *outputs,
                      FILE *check_log, uint32_t *checks_failed, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    for (uint32_t i = 0; i < p->n_params; i++)
        p->hdr[p->param_ids[i]].data = inputs[i]->data;
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (p->out_direct[i])
            p->hdr[p->out_ids[i]].data = outputs[i]->data;
    rt_exec *x = &p->x;
    x->d = d;
    x->check_log = check_log;
    x->checks_run = x->checks_failed = 0;
    bool ok = true;
    for (uint32_t s = 0; s < p->n_steps && ok; s++) {
        const rt_step *st = &p->steps[s];
        /* The clock is read before each step; inside a step the pool's
         * chunks and region evaluations read it (a step whose chunks were
         * skipped at the deadline fails here, not with its partial result). */
        ok = rt_check_deadline(x, st->op);
        if (ok)
            ok = st->fused  ? rt_fused_run(x, st->fused, st->in, st->out, NULL)
                 : st->view ? rt_view_run(x, st->op, st->view, p->hdr, st->out[0])
                            : rt_run_kernel(x, st->op, st->in, st->out);
        if (ok)
            ok = rt_check_deadline(x, st->op);
        rt_scratch_reset(x);
        if (!ok && d->code == PLUMB_OK)
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, none, "step %u of @%s failed without saying why", s, entry);
    }
    for (uint32_t i = 0; ok && i < p->n_outputs; i++) {
        const plumb_tensor *h = &p->hdr[p->out_ids[i]];
        if (!p->out_direct[i] && h->nbytes && h->data != outputs[i]->data)
            memcpy(outputs[i]->data, h->data, h->nbytes);
    }
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (p->out_direct[i])
            p->hdr[p->out_ids[i]].data = p->out_planned[i];
    for (uint32_t i = 0; i < p->n_params; i++)
        p->hdr[p->param_ids[i]].data = NULL;   /* never keep the caller's pointers */
    if (ok && checks_failed)
        *checks_failed = x->checks_failed;
    x->d = NULL;
    return ok;
}

/* ---- running with `?` dimensions ------------------------------------------------------ */

/* The result index value id is written straight into (a step produces it,
 * its first occurrence among the results), or -1. */
static int32_t direct_result(const rt_program *p, uint32_t id)
{
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (p->out_ids[i] == id && p->out_direct[i])
            return (int32_t)i;
    return -1;
}

static bool same_shape(const plumb_tensor *a, const plumb_tensor *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

/* "output K is T but result K of @E is U in this run" */
static bool output_mismatch(plumb_diag *d, uint32_t k, const char *entry, const plumb_tensor *t,
                            const plumb_tensor *want)
{
    plumb_buf a, b;
    plumb_buf_init(&a);
    plumb_buf_init(&b);
    plumb_tensor_type_print(&a, t);
    plumb_tensor_type_print(&b, want);
    plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "output %u is %s but result %u of @%s is %s in this run",
                   k, a.data && !a.failed ? a.data : "?", k, entry, b.data && !b.failed ? b.data : "?");
    plumb_buf_free(&a);
    plumb_buf_free(&b);
    return false;
}

/* The result type of an elementwise op whose operands all have one shape
 * that fits its declared result (static dims equal, `?` dims within their
 * bounds, bytes within max_bytes): that shape. Exactly what ir_shape_infer
 * derives and accepts for such operands, without re-running the verifier's
 * rule on them (which formats every operand's name and costs more than the
 * op on short rows). false for anything else, which ir_shape_infer then
 * decides and words. */
static bool ew_shape(const ir_op *op, const plumb_tensor *const *in, ir_type *out, uint64_t max_bytes)
{
    if (plumb_op_get(op->code)->kind != PLUMB_KIND_ELEMENTWISE || op->n_results != 1 || op->n_operands == 0)
        return false;
    const ir_type *r = &op->results[0]->type;
    const plumb_tensor *a = in[0];
    if (a->rank != r->rank)
        return false;
    for (uint32_t i = 1; i < op->n_operands; i++) {
        if (in[i]->rank != a->rank)
            return false;
        for (uint32_t k = 0; k < a->rank; k++)
            if (in[i]->dims[k] != a->dims[k])
                return false;
    }
    uint64_t nb = plumb_dtype_size(r->dtype);
    for (uint32_t k = 0; k < r->rank; k++) {
        int64_t n = a->dims[k];
        if (n < 0 || (r->dims[k] != PLUMB_DIM_DYN && n != r->dims[k]) ||
            (r->dims[k] == PLUMB_DIM_DYN && r->bounds[k] != PLUMB_NO_BOUND && n > r->bounds[k]) ||
            plumb_mul_overflow_u64(nb, (uint64_t)n, &nb))
            return false;
    }
    if (nb > max_bytes)
        return false;
    memset(out, 0, sizeof *out);
    out->dtype = r->dtype;
    out->rank = r->rank;
    for (uint32_t k = 0; k < PLUMB_MAX_RANK; k++) {
        out->dims[k] = k < r->rank ? a->dims[k] : 0;
        out->bounds[k] = PLUMB_NO_BOUND;
    }
    return true;
}

/* Sets the result headers of op (dtype, rank, dims, bytes; data is
 * untouched) for the operand headers in p->dyn_in: from the memo when the
 * key (dims and shape-operand values) is the last one seen, else from
 * ew_shape or ir_shape_infer, remembered on success. */
static bool infer_shapes(rt_program *p, rt_shape_memo *mo, const ir_op *op, plumb_diag *d)
{
    int64_t *key = p->memo_key;
    const int64_t *old = mo->key;
    uint32_t n = 0;
    bool keyed = mo->key_cap > 0, same = mo->valid;
    /* built and compared in one pass (the keys are short) */
#define PUT(v)                                          \
    do {                                                \
        int64_t v_ = (v);                               \
        same = same && n < mo->key_len && old[n] == v_; \
        key[n++] = v_;                                  \
    } while (0)
    for (uint32_t i = 0; keyed && i < op->n_operands; i++) {
        const plumb_tensor *t = p->dyn_in[i];
        PUT(t->rank);
        for (uint32_t k = 0; k < t->rank && k < PLUMB_MAX_RANK; k++)
            PUT(t->dims[k]);
        uint64_t ne = reads_values(op, i) ? plumb_tensor_numel(t) : 0;
        if (ne > PLUMB_MAX_RANK || (ne && !t->data)) {
            keyed = false;
            break;
        }
        PUT((int64_t)ne);
        for (uint64_t k = 0; k < ne; k++)
            PUT((int64_t)plumb_load_bits(t->dtype, t->data, (size_t)k));
    }
#undef PUT
    if (keyed && same && mo->key_len == n) {
        for (uint32_t j = 0; j < op->n_results; j++) {
            plumb_tensor *h = &p->hdr[op->results[j]->id];
            void *data = h->data;
            *h = mo->out[j];
            h->data = data;
        }
        return true;
    }
    mo->valid = false;
    if (!ew_shape(op, p->dyn_in, p->dyn_types, p->x.max_bytes) &&
        !ir_shape_infer(op, p->dyn_in, p->dyn_types, p->x.max_bytes, d))
        return false;
    for (uint32_t j = 0; j < op->n_results; j++) {
        plumb_tensor *h = &p->hdr[op->results[j]->id];
        set_shape(h, &p->dyn_types[j]);
        if (keyed) {
            mo->out[j] = *h;
            mo->out[j].data = NULL;
        }
    }
    if (keyed) {
        memcpy(mo->key, key, n * sizeof *key);
        mo->key_len = n;
        mo->valid = true;
    }
    return true;
}

/* Gives buffer b room for bytes. Only a value sized per run (an unbounded
 * `?`) can need more than planned; the buffer holds no live value then (a
 * value is given a buffer only once every earlier value in it is dead), so
 * its contents are not kept. The grown buffer is kept for later runs. */
static bool grow_buffer(rt_program *p, uint32_t b, size_t bytes, const ir_op *op, plumb_diag *d)
{
    rt_buffer *bf = &p->bufs[b];
    if (bf->bytes >= bytes)
        return true;
    void *raw = bytes <= SIZE_MAX - 64 ? plumb_malloc(bytes + 64) : NULL;
    if (!raw) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, op ? op->loc : (plumb_loc){0, 0},
                       "%s: out of memory growing a buffer to %zu bytes for a value of unbounded size",
                       op ? plumb_op_name(op->code) : "step", bytes);
        return false;
    }
    plumb_free(bf->raw, bf->bytes + 64);
    bf->raw = raw;
    bf->data = (void *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    p->planned_bytes += bytes - bf->bytes;
    bf->bytes = bytes;
    p->buf_grows++;
    return true;
}

/* Builds st's key from its input headers into st->skey; true when it
 * equals the key of the step's last derivation (which then still holds). */
static bool step_key(rt_step *st)
{
    int64_t *key = st->skey;
    uint32_t n = 0;
    bool same = st->skey_valid;
    if (st->skey_cap == 0)
        return false;
#define PUT(v)                                          \
    do {                                                \
        int64_t v_ = (v);                               \
        same = same && n < st->skey_len && key[n] == v_; \
        key[n++] = v_;                                  \
    } while (0)
    for (uint32_t i = 0; i < st->n_in; i++) {
        const plumb_tensor *t = st->in[i];
        PUT(t->rank);
        for (uint32_t k = 0; k < t->rank && k < PLUMB_MAX_RANK; k++)
            PUT(t->dims[k]);
        if (!st->in_vals[i])
            continue;
        uint64_t ne = plumb_tensor_numel(t);
        if (ne > PLUMB_MAX_RANK || (ne && !t->data)) {
            st->skey_cap = 0;   /* never keyed again */
            st->skey_valid = false;
            return false;
        }
        PUT((int64_t)ne);
        for (uint64_t k = 0; k < ne; k++)
            PUT((int64_t)plumb_load_bits(t->dtype, t->data, (size_t)k));
    }
#undef PUT
    same = same && n == st->skey_len;
    st->skey_len = n;
    return same;
}

/* Whether every value of fused step st has the dims the group runs over:
 * S's actual dims (space), or in a row group S's without the last. Types
 * alone put values in one group (a `?` matches a `?`); ops that require
 * equal shapes make that hold at run time, but a broadcast's result takes
 * its shape operand's values, which may differ (a per-row max broadcast
 * to [n, k] in a group over [n, m]): such a run cannot use the group. */
static bool fused_consistent(const rt_program *p, const rt_step *st, const plumb_tensor *space)
{
    bool rows = rt_fused_rows(st->fused);
    for (uint32_t k = 0; k < st->n_ops; k++) {
        const ir_op *op = st->ops[k];
        for (uint32_t j = 0; j <= op->n_results; j++) {
            /* each result; and a reduce's operand, which must be S */
            const plumb_tensor *h = j < op->n_results ? &p->hdr[op->results[j]->id]
                                    : op->code == PLUMB_OP_REDUCE ? &p->hdr[op->operands[0]->id] : NULL;
            if (!h)
                continue;
            uint32_t r = h->rank;
            bool eq = r <= space->rank;
            for (uint32_t i = 0; eq && i < r; i++)
                eq = h->dims[i] == space->dims[i];
            bool full = eq && r == space->rank, per_row = eq && rows && r + 1 == space->rank;
            if (!full && !(per_row && j < op->n_results))
                return false;
        }
    }
    return true;
}

/* Runs the ops of fused step st one by one with their kernels, the values
 * the group keeps inside it in scratch memory: what the group computes,
 * bit for bit (fused groups give their ops' kernels' bits), for a run whose
 * shapes the group cannot take (fused_consistent). */
static bool run_unfused(rt_program *p, const rt_step *st)
{
    rt_exec *x = &p->x;
    bool ok = true;
    uint32_t k = 0;
    for (; ok && k < st->n_ops; k++) {
        const ir_op *op = st->ops[k];
        plumb_tensor **ins = rt_scratch(x, op, (op->n_operands + 1) * sizeof *ins);
        plumb_tensor **outs = rt_scratch(x, op, (op->n_results + 1) * sizeof *outs);
        if (!ins || !outs) {
            ok = false;
            break;
        }
        for (uint32_t j = 0; ok && j < op->n_results; j++) {
            plumb_tensor *h = &p->hdr[op->results[j]->id];
            bool leaves = false;
            for (uint32_t i = 0; i < st->n_out && !leaves; i++)
                leaves = st->out_vals[i] == op->results[j];
            if (!leaves && !(h->data = h->nbytes ? rt_scratch(x, op, h->nbytes) : NULL) && h->nbytes)
                ok = false;
            outs[j] = h;
        }
        for (uint32_t i = 0; i < op->n_operands; i++)
            ins[i] = &p->hdr[op->operands[i]->id];
        ok = ok && rt_run_kernel(x, op, ins, outs);
    }
    /* the group's inner values point at scratch no longer theirs */
    for (uint32_t i = 0; i < st->n_ops; i++)
        for (uint32_t j = 0; j < st->ops[i]->n_results; j++) {
            bool leaves = false;
            for (uint32_t o = 0; o < st->n_out && !leaves; o++)
                leaves = st->out_vals[o] == st->ops[i]->results[j];
            if (!leaves)
                p->hdr[st->ops[i]->results[j]->id].data = NULL;
        }
    return ok;
}

/* Whether step op is an if or case whose branch taken (by the selector's
 * value, computed by an earlier step) returns a value with a `?` of its
 * own: its results' sizes are known only once the branch has run
 * (ir/shape.c branch_shapes cannot give them beforehand). */
static bool branch_runs_first(const rt_program *p, const ir_op *op)
{
    if (op->code != PLUMB_OP_IF && op->code != PLUMB_OP_CASE)
        return false;
    const plumb_tensor *sel = &p->hdr[op->operands[0]->id];
    if (!sel->data || plumb_tensor_numel(sel) != 1)
        return false;
    uint32_t r = ir_branch_select(op, sel->data);
    const ir_op *ret = r < op->n_regions ? op->regions[r].last : NULL;
    if (!ret || ret->n_operands != op->n_results)
        return false;   /* the shape rule words it */
    for (uint32_t j = 0; j < ret->n_operands; j++)
        if (!ir_type_is_static(&ret->operands[j]->type))
            return true;
    return false;
}

/* Runs that branch (its ops sized by their run-time rules as they run,
 * rt_eval_region), checks each returned value against the declared result
 * (element type, static sizes, bounds: ir_shape_check_result, as the
 * reference does), sets the result headers to their shapes and keeps a copy
 * of each in taken[]: a returned value may be a captured one whose buffer
 * the step's own outputs take over (and may grow) before they are
 * written. */
static bool run_branch_first(rt_program *p, const ir_op *op, plumb_tensor **taken, plumb_diag *d)
{
    rt_exec *x = &p->x;
    uint32_t r = ir_branch_select(op, p->hdr[op->operands[0]->id].data);
    if (!rt_eval_region(x, &op->regions[r], NULL, NULL))
        return false;
    const ir_op *ret = op->regions[r].last;
    for (uint32_t j = 0; j < op->n_results; j++) {
        const plumb_tensor *t = rt_region_value(x, ret->operands[j]);
        if (!t) {
            plumb_diag_set(d, PLUMB_ERR_INVALID, op->loc, "%s: branch %u's value %u has no tensor",
                           plumb_op_name(op->code), r, j);
            return false;
        }
        if (!ir_shape_check_result(op, j, t, d))
            return false;
        plumb_diag sd = {.code = PLUMB_OK};
        if (!(taken[j] = plumb_tensor_clone(t, &sd))) {
            plumb_diag_set(d, sd.code ? sd.code : PLUMB_ERR_NOMEM, op->loc, "%s: %s", plumb_op_name(op->code), sd.msg);
            return false;
        }
        ir_type ty = ir_shape_of(t);
        set_shape(&p->hdr[op->results[j]->id], &ty);
    }
    return true;
}

/* Runs a program with `?` dimensions. Before each step the shapes of its
 * ops' results (inside a fused group too) are derived from their operands'
 * actual shapes by ir_shape_infer, which also checks everything a `?`
 * deferred to run time (equal operand shapes, bounds, shape operands), so
 * every kernel sees consistent actual dims before it touches memory. Each
 * output then points at its buffer (planned at the bound, or grown for an
 * unbounded size) or at the caller's result tensor: with alloc, results
 * are allocated when their shape is known; without, the caller's tensors
 * must have this run's dims. */
static bool run_dyn(rt_program *p, const char *entry, plumb_tensor *const *inputs, plumb_tensor **outputs,
                    bool alloc, FILE *check_log, uint32_t *checks_failed, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    rt_exec *x = &p->x;
    for (uint32_t i = 0; i < p->n_params; i++) {
        plumb_tensor *h = &p->hdr[p->param_ids[i]];
        h->rank = inputs[i]->rank;
        memcpy(h->dims, inputs[i]->dims, sizeof h->dims);
        h->nbytes = inputs[i]->nbytes;
        h->data = inputs[i]->data;
    }
    x->d = d;
    x->check_log = check_log;
    x->checks_run = x->checks_failed = 0;
    bool ok = true;
    for (uint32_t s = 0; s < p->n_steps && ok; s++) {
        rt_step *st = &p->steps[s];
        ok = rt_check_deadline(x, st->op);
        /* an if/case sized by its branch: the branch runs here, its values
         * are copied into the outputs below (neither the key nor the memo
         * hold: the sizes depend on values the step does not read) */
        plumb_tensor **taken = NULL;
        if (ok && !st->fused && st->n_ops == 1 && !st->all_fixed && branch_runs_first(p, st->op)) {
            if (!(taken = plumb_calloc(st->op->n_results ? st->op->n_results : 1, sizeof *taken))) {
                plumb_diag_set(d, PLUMB_ERR_NOMEM, st->op->loc, "out of memory for %u branch results", st->op->n_results);
                ok = false;
            } else {
                ok = run_branch_first(p, st->op, taken, d);
            }
            if (!ok)
                d->file = p->m->filename;
            st->skey_valid = false;
        }
        bool again = ok && !taken && !st->all_fixed && step_key(st);
        for (uint32_t k = 0; ok && !again && !taken && !st->all_fixed && k < st->n_ops; k++) {
            const ir_op *op = st->ops[k];
            if (p->memo[st->memo0 + k].fixed)
                continue;
            for (uint32_t i = 0; i < op->n_operands; i++)
                p->dyn_in[i] = &p->hdr[op->operands[i]->id];
            if (!infer_shapes(p, &p->memo[st->memo0 + k], op, d)) {
                d->file = p->m->filename;
                ok = false;
                break;
            }
        }
        /* the key just built now describes the headers (or nothing) */
        st->skey_valid = ok && !taken && st->skey_cap > 0;
        for (uint32_t i = 0; ok && i < st->n_out; i++) {
            uint32_t id = st->out_vals[i]->id;
            plumb_tensor *h = &p->hdr[id];
            int32_t r = direct_result(p, id);
            if (r >= 0 && alloc) {
                plumb_diag sd = {.code = PLUMB_OK};
                if (!(outputs[r] = plumb_tensor_new(h->dtype, h->rank, h->dims, x->max_bytes, &sd))) {
                    plumb_diag_set(d, sd.code == PLUMB_ERR_LIMIT ? PLUMB_ERR_LIMIT : PLUMB_ERR_NOMEM, none,
                                   "could not allocate result %d of @%s (%zu bytes): %s", r, entry, h->nbytes, sd.msg);
                    ok = false;
                    break;
                }
                h->data = outputs[r]->data;
            } else if (r >= 0) {
                if (!same_shape(outputs[r], h)) {
                    ok = output_mismatch(d, (uint32_t)r, entry, outputs[r], h);
                    break;
                }
                h->data = outputs[r]->data;
            } else if (p->buf_of[id]) {
                uint32_t b = p->buf_of[id] - 1;
                if (!(ok = grow_buffer(p, b, h->nbytes, st->ops[0], d)))
                    break;
                h->data = p->bufs[b].data;
            } else {
                h->data = NULL;   /* a static value of no bytes */
            }
        }
        if (ok && taken) {
            for (uint32_t j = 0; j < st->op->n_results; j++) {
                plumb_tensor *h = &p->hdr[st->op->results[j]->id];
                if (h->data && h->nbytes)
                    memcpy(h->data, taken[j]->data, h->nbytes);
            }
        } else if (ok) {
            const rt_fused *g = st->fused;
            const plumb_tensor *space = g && rt_fused_dynamic(g) ? &p->hdr[rt_fused_space(g)->id] : NULL;
            if (space && !fused_consistent(p, st, space))
                ok = run_unfused(p, st);
            else
                ok = g ? rt_fused_run(x, g, st->in, st->out, space) : rt_run_kernel(x, st->op, st->in, st->out);
        }
        if (taken) {
            for (uint32_t j = 0; j < st->op->n_results; j++)
                plumb_tensor_free(taken[j]);
            plumb_free(taken, (st->op->n_results ? st->op->n_results : 1) * sizeof *taken);
        }
        if (ok)
            ok = rt_check_deadline(x, st->op);
        rt_scratch_reset(x);
        if (!ok && d->code == PLUMB_OK)
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, none, "step %u of @%s failed without saying why", s, entry);
    }
    /* Results no step wrote into the caller's tensor: parameters and
     * constants returned as they are, a value returned twice. */
    for (uint32_t i = 0; ok && i < p->n_outputs; i++) {
        if (p->out_direct[i])
            continue;
        const plumb_tensor *h = &p->hdr[p->out_ids[i]];
        if (alloc) {
            plumb_diag sd = {.code = PLUMB_OK};
            if (!(outputs[i] = plumb_tensor_new(h->dtype, h->rank, h->dims, x->max_bytes, &sd))) {
                plumb_diag_set(d, sd.code == PLUMB_ERR_LIMIT ? PLUMB_ERR_LIMIT : PLUMB_ERR_NOMEM, none,
                               "could not allocate result %u of @%s (%zu bytes): %s", i, entry, h->nbytes, sd.msg);
                ok = false;
                break;
            }
        } else if (!same_shape(outputs[i], h)) {
            ok = output_mismatch(d, i, entry, outputs[i], h);
            break;
        }
        if (h->nbytes && h->data != outputs[i]->data)
            memcpy(outputs[i]->data, h->data, h->nbytes);
    }
    /* never keep the caller's pointers */
    for (uint32_t i = 0; i < p->n_params; i++)
        p->hdr[p->param_ids[i]].data = NULL;
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (p->out_direct[i])
            p->hdr[p->out_ids[i]].data = NULL;
    if (ok && checks_failed)
        *checks_failed = x->checks_failed;
    x->d = NULL;
    return ok;
}

bool rt_program_run(rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                    plumb_tensor **outputs, uint32_t n_outputs, FILE *check_log, uint32_t *checks_failed,
                    plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (checks_failed)
        *checks_failed = 0;
    if (!check_inputs(p, entry, inputs, n_inputs, d))
        return false;
    if (n_outputs != p->n_outputs || (n_outputs && !outputs)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s returns %u results but room for %u was given", entry,
                       p->n_outputs, n_outputs);
        return false;
    }
    for (uint32_t i = 0; i < n_outputs; i++)
        outputs[i] = NULL;
    /* With `?` dimensions a result's shape is known when its step has
     * derived it: allocated then (a failure frees every result). */
    if (p->dynamic) {
        if (run_dyn(p, entry, inputs, outputs, true, check_log, checks_failed, d))
            return true;
        goto fail;
    }
    /* Results are allocated before any work: a failure leaves nothing half
     * done. Fresh memory never aliases an input. */
    for (uint32_t i = 0; i < n_outputs; i++) {
        const plumb_tensor *h = &p->hdr[p->out_ids[i]];
        plumb_diag sd = {.code = PLUMB_OK};
        if (!(outputs[i] = plumb_tensor_new(h->dtype, h->rank, h->dims, p->x.max_bytes, &sd))) {
            plumb_diag_set(d, sd.code == PLUMB_ERR_LIMIT ? PLUMB_ERR_LIMIT : PLUMB_ERR_NOMEM, none,
                           "could not allocate result %u of @%s (%zu bytes): %s", i, entry, h->nbytes, sd.msg);
            goto fail;
        }
    }
    if (run_steps(p, entry, inputs, outputs, check_log, checks_failed, d))
        return true;
fail:
    for (uint32_t i = 0; i < n_outputs; i++) {
        plumb_tensor_free(outputs[i]);
        outputs[i] = NULL;
    }
    return false;
}

bool rt_program_run_into(rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                         plumb_tensor *const *outputs, uint32_t n_outputs, FILE *check_log,
                         uint32_t *checks_failed, plumb_diag *d)
{
    if (checks_failed)
        *checks_failed = 0;
    if (!check_inputs(p, entry, inputs, n_inputs, d) ||
        !check_outputs(p, entry, inputs, n_inputs, outputs, n_outputs, d))
        return false;
    if (p->dynamic)
        return run_dyn(p, entry, inputs, (plumb_tensor **)outputs, false, check_log, checks_failed, d);
    return run_steps(p, entry, inputs, outputs, check_log, checks_failed, d);
}
