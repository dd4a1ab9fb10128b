/* IR construction: modules, functions, blocks, ops and types. Everything is
 * allocated from the module's arena; ir_module_free releases it all. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "plumb/ir.h"

/* Module identities: a process-wide counter, so an id is never given twice
 * even when a freed module's memory is reused for a new one. */
static _Atomic uint64_t next_module_uid = 1;

static uint64_t new_module_uid(void)
{
    return atomic_fetch_add_explicit(&next_module_uid, 1, memory_order_relaxed);
}

ir_module *ir_module_new(const char *name)
{
    plumb_arena *a = plumb_arena_new(0);
    if (!a)
        return NULL;
    ir_module *m = plumb_arena_alloc(a, sizeof *m);
    if (!m) {
        plumb_arena_free(a);
        return NULL;
    }
    m->arena = a;
    if (!(m->func_probes = plumb_arena_alloc(a, sizeof *m->func_probes)) ||
        (name && !(m->name = plumb_arena_strdup(a, name)))) {
        plumb_arena_free(a);
        return NULL;
    }
    m->uid = new_module_uid();
    return m;
}

void ir_module_free(ir_module *m)
{
    if (m)
        plumb_arena_free(m->arena);
}

void ir_module_touch(ir_module *m)
{
    if (m)
        m->uid = new_module_uid();
}

/* Grows an arena-owned pointer array to hold one more element. */
static bool grow(plumb_arena *a, void ***arr, uint32_t n, uint32_t *cap)
{
    if (n < *cap)
        return true;
    uint32_t ncap = *cap ? *cap * 2 : 4;
    if (ncap < *cap)
        return false;
    void **p = plumb_arena_array(a, ncap, sizeof *p);
    if (!p)
        return false;
    if (n)
        memcpy(p, *arr, n * sizeof *p);
    *arr = p;
    *cap = ncap;
    return true;
}

/* FNV-1a over the name's bytes. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Slot of name in the function index: the slot holding the first function
 * of that name, or the empty slot where it would go. */
static uint32_t func_slot(const ir_module *m, const char *name, uint64_t *probes)
{
    uint32_t mask = m->n_func_slots - 1;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        ++*probes;
        uint32_t k = m->func_slots[i];
        if (!k || strcmp(m->funcs[k - 1]->name, name) == 0)
            return i;
    }
}

/* Adds funcs[idx] to the index unless a function of that name is already
 * there (lookups return the first); grows the table to keep it at most half
 * full. */
static bool index_func(ir_module *m, uint32_t idx)
{
    uint64_t probes = 0;
    if ((uint64_t)(idx + 1) * 2 > m->n_func_slots) {
        uint32_t ns = m->n_func_slots ? m->n_func_slots * 2 : 64;
        if (ns < m->n_func_slots)
            return false;
        uint32_t *slots = plumb_arena_array(m->arena, ns, sizeof *slots);   /* zeroed */
        if (!slots)
            return false;
        uint32_t *old = m->func_slots, n_old = m->n_func_slots;
        m->func_slots = slots;
        m->n_func_slots = ns;
        for (uint32_t i = 0; i < n_old; i++)
            if (old[i])
                m->func_slots[func_slot(m, m->funcs[old[i] - 1]->name, &probes)] = old[i];
    }
    uint32_t s = func_slot(m, m->funcs[idx]->name, &probes);
    if (!m->func_slots[s])
        m->func_slots[s] = idx + 1;
    return true;
}

ir_func *ir_func_new(ir_module *m, const char *name, bool is_public)
{
    ir_func *f = plumb_arena_alloc(m->arena, sizeof *f);
    if (!f || !(f->name = plumb_arena_strdup(m->arena, name)))
        return NULL;
    f->is_public = is_public;
    if (!grow(m->arena, (void ***)&m->funcs, m->n_funcs, &m->cap_funcs))
        return NULL;
    m->funcs[m->n_funcs] = f;
    if (!index_func(m, m->n_funcs))
        return NULL;
    m->n_funcs++;
    return f;
}

ir_func *ir_module_find_func(const ir_module *m, const char *name)
{
    if (!m->n_func_slots || !name)
        return NULL;
    uint64_t probes = 0;
    uint32_t k = m->func_slots[func_slot(m, name, &probes)];
    /* Relaxed: the counter is instrumentation, and interpreters look up
     * callees from several threads. */
    if (m->func_probes)
        __atomic_fetch_add(m->func_probes, probes, __ATOMIC_RELAXED);
    return k ? m->funcs[k - 1] : NULL;
}

uint64_t ir_module_lookup_probes(const ir_module *m)
{
    return m && m->func_probes ? __atomic_load_n(m->func_probes, __ATOMIC_RELAXED) : 0;
}

static ir_value *new_value(ir_module *m, const ir_type *t)
{
    ir_value *v = plumb_arena_alloc(m->arena, sizeof *v);
    if (!v)
        return NULL;
    v->type = *t;
    v->id = m->next_value_id++;
    return v;
}

ir_value *ir_block_add_arg(ir_module *m, ir_block *b, const ir_type *t)
{
    ir_value *v = new_value(m, t);
    if (!v || !grow(m->arena, (void ***)&b->args, b->n_args, &b->cap_args))
        return NULL;
    v->owner = b;
    v->index = b->n_args;
    b->args[b->n_args++] = v;
    return v;
}

bool ir_func_set_results(ir_module *m, ir_func *f, const ir_type *types, uint32_t n)
{
    f->n_results = 0;
    f->result_types = NULL;
    f->result_attrs = NULL;
    if (n == 0)
        return true;
    f->result_types = plumb_arena_array(m->arena, n, sizeof *types);
    f->result_attrs = plumb_arena_array(m->arena, n, sizeof *f->result_attrs);
    if (!f->result_types || !f->result_attrs)
        return false;
    memcpy(f->result_types, types, n * sizeof *types);
    f->n_results = n;
    return true;
}

ir_op *ir_op_new(ir_module *m, plumb_opcode code, ir_value *const *operands, uint32_t n_operands,
                 const ir_type *result_types, uint32_t n_results)
{
    ir_op *op = plumb_arena_alloc(m->arena, sizeof *op);
    if (!op)
        return NULL;
    op->code = code;
    op->a.dimension = -1;
    op->a.index_vector_dim = -1;
    op->a.max_ulp = 3;
    op->a.tolerance = 1e-4;
    if (n_operands) {
        op->operands = plumb_arena_array(m->arena, n_operands, sizeof *op->operands);
        if (!op->operands)
            return NULL;
        memcpy(op->operands, operands, n_operands * sizeof *operands);
        op->n_operands = n_operands;
    }
    if (n_results) {
        op->results = plumb_arena_array(m->arena, n_results, sizeof *op->results);
        if (!op->results)
            return NULL;
        for (uint32_t i = 0; i < n_results; i++) {
            ir_value *v = new_value(m, &result_types[i]);
            if (!v)
                return NULL;
            v->def = op;
            v->index = i;
            op->results[i] = v;
        }
        op->n_results = n_results;
    }
    return op;
}

uint32_t ir_branch_select(const ir_op *op, const void *selector)
{
    if (op->code == PLUMB_OP_IF)
        return (((const uint8_t *)selector)[0] & 1) ? 0 : 1;
    int32_t index = (int32_t)plumb_load_bits(PLUMB_I32, selector, 0);
    uint32_t n = op->n_regions;
    return index < 0 || (uint32_t)index >= n ? n - 1 : (uint32_t)index;
}

bool ir_op_add_regions(ir_module *m, ir_op *op, uint32_t n)
{
    ir_block *r = plumb_arena_array(m->arena, op->n_regions + n, sizeof *r);
    if (!r)
        return false;
    if (op->n_regions)
        memcpy(r, op->regions, op->n_regions * sizeof *r);
    /* Regions moved: re-point their ops and arguments at the new blocks. */
    for (uint32_t i = 0; i < op->n_regions; i++) {
        for (ir_op *o = r[i].first; o; o = o->next)
            o->parent = &r[i];
        for (uint32_t j = 0; j < r[i].n_args; j++)
            r[i].args[j]->owner = &r[i];
    }
    for (uint32_t i = op->n_regions; i < op->n_regions + n; i++)
        r[i].parent = op;
    op->regions = r;
    op->n_regions += n;
    return true;
}

void ir_block_append(ir_block *b, ir_op *op)
{
    op->parent = b;
    op->next = NULL;
    op->prev = b->last;
    if (b->last)
        b->last->next = op;
    else
        b->first = op;
    b->last = op;
    b->n_ops++;
}

void ir_block_insert_before(ir_block *b, ir_op *before, ir_op *op)
{
    if (!before) {
        ir_block_append(b, op);
        return;
    }
    op->parent = b;
    op->next = before;
    op->prev = before->prev;
    if (before->prev)
        before->prev->next = op;
    else
        b->first = op;
    before->prev = op;
    b->n_ops++;
}

void ir_block_remove(ir_block *b, ir_op *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        b->first = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        b->last = op->prev;
    op->next = op->prev = NULL;
    op->parent = NULL;
    b->n_ops--;
}

ir_ints ir_ints_make(ir_module *m, const int64_t *v, uint32_t n)
{
    ir_ints r = {NULL, 0};
    if (n == 0)
        return r;
    r.v = plumb_arena_array(m->arena, n, sizeof *v);
    if (!r.v)
        return r;
    memcpy(r.v, v, n * sizeof *v);
    r.n = n;
    return r;
}

bool ir_add_extra_attr(ir_module *m, ir_attrs *a, const char *name, const char *text)
{
    ir_named_attr *e = plumb_arena_array(m->arena, a->n_extra + 1, sizeof *e);
    if (!e)
        return false;
    if (a->n_extra)
        memcpy(e, a->extra, a->n_extra * sizeof *e);
    e[a->n_extra].name = plumb_arena_strdup(m->arena, name);
    e[a->n_extra].text = plumb_arena_strdup(m->arena, text);
    if (!e[a->n_extra].name || !e[a->n_extra].text)
        return false;
    a->extra = e;
    a->n_extra++;
    return true;
}

bool ir_debug_loc_known(const ir_debug_loc *l)
{
    return l && (l->name || l->file);
}

bool ir_debug_loc_copy(ir_module *m, ir_debug_loc *to, const ir_debug_loc *from)
{
    ir_debug_loc r = {NULL, NULL, 0, 0};
    if (ir_debug_loc_known(from)) {
        r = *from;
        if ((from->name && !(r.name = plumb_arena_strdup(m->arena, from->name))) ||
            (from->file && !(r.file = plumb_arena_strdup(m->arena, from->file)))) {
            memset(to, 0, sizeof *to);
            return false;
        }
    }
    *to = r;
    return true;
}

void ir_debug_loc_describe(char *out, size_t cap, const ir_debug_loc *l)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (!ir_debug_loc_known(l))
        return;
    /* names from JAX run long ("jit(f)/jit(main)/dot_general"); the file
     * part is what an engineer opens, so it is kept whole */
    if (l->name && l->file)
        snprintf(out, cap, " (from %.200s at %.400s:%u:%u)", l->name, l->file, l->line, l->col);
    else if (l->file)
        snprintf(out, cap, " (from %.400s:%u:%u)", l->file, l->line, l->col);
    else
        snprintf(out, cap, " (from %.200s)", l->name);
}

ir_type ir_type_make(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    ir_type ty;
    memset(&ty, 0, sizeof ty);
    ty.dtype = t;
    ty.rank = rank > PLUMB_MAX_RANK ? PLUMB_MAX_RANK : rank;
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++) {
        ty.dims[i] = i < ty.rank ? dims[i] : 0;
        ty.bounds[i] = PLUMB_NO_BOUND;
    }
    return ty;
}

ir_type ir_type_scalar(plumb_dtype t)
{
    return ir_type_make(t, 0, NULL);
}

bool ir_type_equal(const ir_type *a, const ir_type *b)
{
    if (a->tuple || b->tuple)
        return ir_tuple_type_equal(a, b);   /* ir/tuple.c */
    if (a->dtype != b->dtype || a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i] || a->bounds[i] != b->bounds[i])
            return false;
    return true;
}

bool ir_type_is_static(const ir_type *t)
{
    for (uint32_t i = 0; i < t->rank; i++)
        if (t->dims[i] < 0)
            return false;
    return true;
}

void ir_type_print(plumb_buf *b, const ir_type *t)
{
    if (t->tuple) {
        plumb_buf_puts(b, "tuple<");
        for (uint32_t i = 0; i < t->tuple->n; i++) {
            if (i)
                plumb_buf_puts(b, ", ");
            ir_type_print(b, &t->tuple->elems[i]);
        }
        plumb_buf_puts(b, ">");
        return;
    }
    plumb_buf_puts(b, "tensor<");
    bool any_bound = false;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] == PLUMB_DIM_DYN)
            plumb_buf_puts(b, "?x");
        else
            plumb_buf_printf(b, "%lldx", (long long)t->dims[i]);
        if (t->dims[i] == PLUMB_DIM_DYN && t->bounds[i] != PLUMB_NO_BOUND)
            any_bound = true;
    }
    plumb_buf_puts(b, plumb_dtype_name(t->dtype));
    if (any_bound) {
        plumb_buf_puts(b, ", #stablehlo.bounds<");
        for (uint32_t i = 0; i < t->rank; i++) {
            if (i)
                plumb_buf_puts(b, ", ");
            if (t->dims[i] == PLUMB_DIM_DYN && t->bounds[i] != PLUMB_NO_BOUND)
                plumb_buf_printf(b, "%lld", (long long)t->bounds[i]);
            else
                plumb_buf_puts(b, "?");
        }
        plumb_buf_puts(b, ">");
    }
    plumb_buf_puts(b, ">");
}

static bool walk_block(const ir_block *b, ir_walk_fn fn, void *ud)
{
    for (ir_op *op = b->first; op; op = op->next) {
        if (!fn(op, ud))
            return false;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (!walk_block(&op->regions[r], fn, ud))
                return false;
    }
    return true;
}

bool ir_walk(const ir_module *m, ir_walk_fn fn, void *ud)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (!walk_block(&m->funcs[i]->body, fn, ud))
            return false;
    return true;
}
