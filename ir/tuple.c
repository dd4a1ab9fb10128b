/* Tuple types and the lowering that removes them (docs/spec/tuple.md).
 *
 * StableHLO's tuple<T1, ...> groups values; `tuple` builds one and
 * `get_tuple_element` takes element `index` out. Neither computes anything:
 * a tuple value is exactly its elements. So plumb keeps tuple types in the
 * IR (parse, print and verify see them as written) and its executors run
 * the module through ir_tuple_flatten, which replaces each tuple-typed
 * value by its tensor leaves (depth first, left to right). No data is
 * copied: a get_tuple_element result is the very leaf values of the tuple
 * it reads. */
#include <string.h>

#include "plumb/ir.h"

bool ir_type_tuple_make(ir_module *m, const ir_type *elems, uint32_t n, ir_type *out)
{
    ir_tuple_type *tt = plumb_arena_alloc(m->arena, sizeof *tt);
    if (!tt)
        return false;
    ir_type *e = NULL;
    if (n && !(e = plumb_arena_array(m->arena, n, sizeof *e)))
        return false;
    if (n)
        memcpy(e, elems, (size_t)n * sizeof *e);
    tt->n = n;
    tt->elems = e;
    memset(out, 0, sizeof *out);
    out->tuple = tt;
    return true;
}

uint64_t ir_type_leaf_count(const ir_type *t)
{
    if (!t->tuple)
        return 1;
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->tuple->n; i++)
        n += ir_type_leaf_count(&t->tuple->elems[i]);
    return n;
}

uint64_t ir_type_leaves(const ir_type *t, ir_type *out)
{
    if (!t->tuple) {
        out[0] = *t;
        return 1;
    }
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->tuple->n; i++)
        n += ir_type_leaves(&t->tuple->elems[i], out + n);
    return n;
}

bool ir_tuple_type_equal(const ir_type *a, const ir_type *b)
{
    if (!a->tuple || !b->tuple)
        return false;   /* a tuple never equals a tensor type */
    if (a->tuple->n != b->tuple->n)
        return false;
    for (uint32_t i = 0; i < a->tuple->n; i++)
        if (!ir_type_equal(&a->tuple->elems[i], &b->tuple->elems[i]))
            return false;
    return true;
}

uint32_t ir_type_tuple_depth(const ir_type *t)
{
    if (!t->tuple)
        return 0;
    uint32_t d = 0;
    for (uint32_t i = 0; i < t->tuple->n; i++) {
        uint32_t e = ir_type_tuple_depth(&t->tuple->elems[i]);
        if (e > d)
            d = e;
    }
    return d + 1;
}

static bool block_has_tuples(const ir_block *b)
{
    for (uint32_t i = 0; i < b->n_args; i++)
        if (b->args[i]->type.tuple)
            return true;
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->code == PLUMB_OP_TUPLE || op->code == PLUMB_OP_GET_TUPLE_ELEMENT)
            return true;
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i]->type.tuple)
                return true;
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i]->type.tuple)
                return true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (block_has_tuples(&op->regions[r]))
                return true;
    }
    return false;
}

bool ir_module_has_tuples(const ir_module *m)
{
    for (uint32_t i = 0; i < m->n_funcs; i++) {
        const ir_func *f = m->funcs[i];
        for (uint32_t k = 0; k < f->n_results; k++)
            if (f->result_types[k].tuple)
                return true;
        if (block_has_tuples(&f->body))
            return true;
    }
    return false;
}

/* ---- flattening ------------------------------------------------------------- */

/* Old value id -> its leaves in the new module. */
typedef struct flat {
    const ir_module *m;
    ir_module *nm;
    ir_value ***leaves;
    uint32_t *n_leaves;
    plumb_diag *d;
} flat;

static bool fl_nomem(flat *F)
{
    plumb_loc none = {0, 0};
    if (F->d && F->d->code == PLUMB_OK) {
        plumb_diag_set(F->d, PLUMB_ERR_NOMEM, none, "out of memory lowering the tuples of the module");
        F->d->file = F->m->filename;
    }
    return false;
}

/* The leaf types of n types, concatenated, in nm's arena. */
static bool leaf_types(flat *F, const ir_type *types, uint32_t n, ir_type **out, uint32_t *n_out)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += ir_type_leaf_count(&types[i]);
    *out = NULL;
    *n_out = (uint32_t)total;
    if (!total)
        return true;
    if (!(*out = plumb_arena_array(F->nm->arena, (size_t)total, sizeof **out)))
        return fl_nomem(F);
    uint64_t at = 0;
    for (uint32_t i = 0; i < n; i++)
        at += ir_type_leaves(&types[i], *out + at);
    return true;
}

/* The new values standing for old values vals[0..n), concatenated. */
static bool leaf_values(flat *F, ir_value *const *vals, uint32_t n, ir_value ***out, uint32_t *n_out)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += F->n_leaves[vals[i]->id];
    *out = NULL;
    *n_out = total;
    if (!total)
        return true;
    if (!(*out = plumb_arena_array(F->nm->arena, total, sizeof **out)))
        return fl_nomem(F);
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = F->n_leaves[vals[i]->id];
        if (k)
            memcpy(*out + at, F->leaves[vals[i]->id], (size_t)k * sizeof **out);
        at += k;
    }
    return true;
}

/* Names a leaf of tuple value `base`: "%t.1.0" reads as element 1's element 0. */
static const char *leaf_name(flat *F, const char *base, const ir_type *t, uint64_t leaf)
{
    if (!base || !t->tuple)
        return base;
    char path[128];
    size_t n = 0;
    path[0] = '\0';
    const ir_type *at = t;
    while (at->tuple && n < sizeof path - 12) {
        uint32_t i = 0;
        for (; i < at->tuple->n; i++) {
            uint64_t c = ir_type_leaf_count(&at->tuple->elems[i]);
            if (leaf < c)
                break;
            leaf -= c;
        }
        if (i == at->tuple->n)
            break;
        n += (size_t)snprintf(path + n, sizeof path - n, ".%u", i);
        at = &at->tuple->elems[i];
    }
    size_t bl = strlen(base);
    char *s = plumb_arena_alloc(F->nm->arena, bl + n + 1);
    if (!s)
        return base;
    memcpy(s, base, bl);
    memcpy(s + bl, path, n + 1);
    return s;
}

/* Binds old value v to the new values nv[0..n). */
static void bind(flat *F, const ir_value *v, ir_value **nv, uint32_t n)
{
    F->leaves[v->id] = nv;
    F->n_leaves[v->id] = n;
}

/* New block arguments for the old arguments of `from`, appended to `to`. */
static bool clone_args(flat *F, const ir_block *from, ir_block *to)
{
    for (uint32_t i = 0; i < from->n_args; i++) {
        const ir_value *a = from->args[i];
        ir_type *lt;
        uint32_t n;
        if (!leaf_types(F, &a->type, 1, &lt, &n))
            return false;
        ir_value **nv = n ? plumb_arena_array(F->nm->arena, n, sizeof *nv) : NULL;
        if (n && !nv)
            return fl_nomem(F);
        for (uint32_t k = 0; k < n; k++) {
            if (!(nv[k] = ir_block_add_arg(F->nm, to, &lt[k])))
                return fl_nomem(F);
            nv[k]->name = leaf_name(F, a->name, &a->type, k);
            nv[k]->dloc = a->dloc;
        }
        bind(F, a, nv, n);
    }
    return true;
}

static bool clone_block(flat *F, const ir_block *from, ir_block *to);

static bool clone_op(flat *F, const ir_op *op, ir_block *to)
{
    if (op->code == PLUMB_OP_TUPLE) {
        /* its result is its operands' leaves */
        ir_value **nv;
        uint32_t n;
        if (!leaf_values(F, op->operands, op->n_operands, &nv, &n))
            return false;
        bind(F, op->results[0], nv, n);
        return true;
    }
    if (op->code == PLUMB_OP_GET_TUPLE_ELEMENT) {
        /* element `index`: the leaves after those of the elements before it */
        const ir_type *tt = &op->operands[0]->type;
        uint32_t skip = 0;
        for (int64_t i = 0; i < op->a.tuple_index; i++)
            skip += (uint32_t)ir_type_leaf_count(&tt->tuple->elems[i]);
        uint32_t n = (uint32_t)ir_type_leaf_count(&op->results[0]->type);
        bind(F, op->results[0], F->leaves[op->operands[0]->id] + skip, n);
        return true;
    }
    ir_value **ops;
    uint32_t n_ops;
    ir_type *rts = NULL;
    uint32_t n_rts = 0;
    if (!leaf_values(F, op->operands, op->n_operands, &ops, &n_ops))
        return false;
    if (op->n_results) {
        ir_type *old = plumb_arena_array(F->nm->arena, op->n_results, sizeof *old);
        if (!old)
            return fl_nomem(F);
        for (uint32_t j = 0; j < op->n_results; j++)
            old[j] = op->results[j]->type;
        if (!leaf_types(F, old, op->n_results, &rts, &n_rts))
            return false;
    }
    ir_op *no = ir_op_new(F->nm, op->code, ops, n_ops, rts, n_rts);
    if (!no)
        return fl_nomem(F);
    no->a = op->a;   /* shared with m: the copy never outlives it */
    no->loc = op->loc;
    no->dloc = op->dloc;
    uint32_t at = 0;
    for (uint32_t j = 0; j < op->n_results; j++) {
        const ir_value *r = op->results[j];
        uint32_t k = (uint32_t)ir_type_leaf_count(&r->type);
        for (uint32_t q = 0; q < k; q++)
            no->results[at + q]->name = leaf_name(F, r->name, &r->type, q);
        bind(F, r, no->results + at, k);
        at += k;
    }
    if (op->n_regions && !ir_op_add_regions(F->nm, no, op->n_regions))
        return fl_nomem(F);
    for (uint32_t r = 0; r < op->n_regions; r++)
        if (!clone_args(F, &op->regions[r], &no->regions[r]) || !clone_block(F, &op->regions[r], &no->regions[r]))
            return false;
    ir_block_append(to, no);
    return true;
}

static bool clone_block(flat *F, const ir_block *from, ir_block *to)
{
    for (const ir_op *op = from->first; op; op = op->next)
        if (!clone_op(F, op, to))
            return false;
    return true;
}

ir_module *ir_tuple_flatten(const ir_module *m, plumb_diag *d)
{
    flat F;
    memset(&F, 0, sizeof F);
    F.m = m;
    F.d = d;
    size_t nv = m->next_value_id ? m->next_value_id : 1;
    F.leaves = plumb_calloc(nv, sizeof *F.leaves);
    F.n_leaves = plumb_calloc(nv, sizeof *F.n_leaves);
    F.nm = ir_module_new(m->name);
    bool ok = F.leaves && F.n_leaves && F.nm;
    if (!ok) {
        fl_nomem(&F);
        goto out;
    }
    /* No identity of its own: the runtime's trace-once guard never trusts
     * a copy made for one compile (include/plumb/ir.h, uid). */
    F.nm->uid = 0;
    F.nm->attrs = m->attrs;
    F.nm->filename = m->filename;
    F.nm->dloc = m->dloc;
    for (uint32_t i = 0; ok && i < m->n_funcs; i++) {
        const ir_func *f = m->funcs[i];
        ir_func *nf = ir_func_new(F.nm, f->name, f->is_public);
        if (!nf) {
            ok = fl_nomem(&F);
            break;
        }
        nf->loc = f->loc;
        nf->dloc = f->dloc;
        ir_type *rts;
        uint32_t n_rts;
        ok = clone_args(&F, &f->body, &nf->body) && leaf_types(&F, f->result_types, f->n_results, &rts, &n_rts);
        if (ok && !ir_func_set_results(F.nm, nf, rts, n_rts))
            ok = fl_nomem(&F);
        /* Attributes of a parameter or result stay with it when it is a
         * tensor; a tuple's have no single leaf to go to and are dropped. */
        if (ok && f->arg_attrs && nf->body.n_args) {
            nf->arg_attrs = plumb_arena_array(F.nm->arena, nf->body.n_args, sizeof *nf->arg_attrs);
            if (!nf->arg_attrs)
                ok = fl_nomem(&F);
            for (uint32_t a = 0, at = 0; ok && a < f->body.n_args; a++) {
                uint32_t k = F.n_leaves[f->body.args[a]->id];
                for (uint32_t q = 0; q < k; q++)
                    nf->arg_attrs[at + q] = f->body.args[a]->type.tuple ? NULL : f->arg_attrs[a];
                at += k;
            }
        }
        if (ok && f->result_attrs && n_rts) {
            nf->result_attrs = plumb_arena_array(F.nm->arena, n_rts, sizeof *nf->result_attrs);
            if (!nf->result_attrs)
                ok = fl_nomem(&F);
            for (uint32_t r = 0, at = 0; ok && r < f->n_results; r++) {
                uint32_t k = (uint32_t)ir_type_leaf_count(&f->result_types[r]);
                for (uint32_t q = 0; q < k; q++)
                    nf->result_attrs[at + q] = f->result_types[r].tuple ? NULL : f->result_attrs[r];
                at += k;
            }
        }
        ok = ok && clone_block(&F, &f->body, &nf->body);
    }
out:
    plumb_free(F.leaves, nv * sizeof *F.leaves);
    plumb_free(F.n_leaves, nv * sizeof *F.n_leaves);
    if (!ok) {
        ir_module_free(F.nm);
        return NULL;
    }
    return F.nm;
}
