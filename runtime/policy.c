/* Canonicalization policies (rt_policy.h, docs/policies.md): the lift
 * rewrite that turns scalar and splat constants of an entry into hidden
 * parameters before the cache key is computed.
 *
 * Why the rewrite keeps results bit for bit: a lifted constant is only
 * read by ops whose compiled kernels agree exactly with the reference
 * (elementwise ops of the op table's "exact" class, broadcast_in_dim,
 * reshape, func.return). Without the policy the passes may fold an op
 * whose operands are all constants through the reference; with it the
 * same op runs in the runtime's kernel. For exact ops both give the same
 * bits, so the rule is applied to every op the constant reaches through
 * such all-constant ops as well. The algebraic rewrites of the passes
 * (x*1, x/1, x-0, x+(-0), select of a constant predicate) are exact
 * wherever they apply, so losing them to a parameter changes no bit. */
#include <stdio.h>
#include <string.h>

#include "rt_policy.h"

static const struct {
    const char *name;
    uint32_t flag;
} policy_words[] = {
    {"lift", RT_POLICY_LIFT},
    {"lift-int", RT_POLICY_LIFT_INT},
};

bool rt_policy_parse(const char *spec, uint32_t *flags, char *err, size_t cap)
{
    *flags = 0;
    if (!spec)
        return true;
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        bool known = n == 0 || (n == 4 && strncmp(p, "none", 4) == 0);
        for (size_t i = 0; !known && i < sizeof policy_words / sizeof policy_words[0]; i++)
            if (strlen(policy_words[i].name) == n && strncmp(p, policy_words[i].name, n) == 0) {
                *flags |= policy_words[i].flag;
                known = true;
            }
        if (!known) {
            snprintf(err, cap, "unknown policy '%.*s' (known: lift, lift-int, none)", (int)(n > 64 ? 64 : n), p);
            return false;
        }
        p += n;
        if (*p)
            p++;
    }
    return true;
}

const char *rt_policy_name(uint32_t flags, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof policy_words / sizeof policy_words[0]; i++)
        if (flags & policy_words[i].flag) {
            int w = snprintf(out + len, cap - len, "%s%s", len ? "," : "", policy_words[i].name);
            if (w < 0 || (size_t)w >= cap - len)
                break;
            len += (size_t)w;
        }
    if (!len)
        snprintf(out, cap, "none");
    return out;
}

void rt_lifted_free(rt_lifted *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        plumb_tensor_free(l->vals[i]);
    if (l->vals)
        plumb_free(l->vals, (size_t)l->n * sizeof *l->vals);
    l->vals = NULL;
    l->n = 0;
}

void rt_policy_note_add(rt_policy_note *n, uint32_t lifted, const char *what)
{
    n->lifted = lifted;
    if (what[0])
        snprintf(n->what, sizeof n->what, "%s", what);
}

void rt_policy_note_print(FILE *f, bool json, const char *module, const char *entry, const rt_policy_note *n)
{
    if (!n->lifted)
        return;
    if (json) {
        fputs("{\"policy\": {\"module\": ", f);
        if (module)
            plumb_json_str_fput(f, module);
        else
            fputs("null", f);
        fputs(", \"entry\": ", f);
        plumb_json_str_fput(f, entry);
        fprintf(f, ", \"lifted\": %u, \"first\": ", n->lifted);
        plumb_json_str_fput(f, n->what);
        fprintf(f, ", \"bindings\": %llu}}\n", (unsigned long long)n->bindings);
    } else {
        fprintf(f, "plumb: policy %s%s@%s: %u constant%s lifted by policy (%s); %llu distinct value%s bound\n",
                module ? module : "", module ? "/" : "", entry, n->lifted, n->lifted == 1 ? "" : "s", n->what,
                (unsigned long long)n->bindings, n->bindings == 1 ? "" : "s");
    }
    fflush(f);
}

bool rt_lifted_equal(const rt_lifted *a, const rt_lifted *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (!plumb_tensor_equal(a->vals[i], b->vals[i]))
            return false;
    return true;
}

/* ---- which constants are lifted ------------------------------------------- */

/* Ops that may read a lifted value: their kernels agree exactly with the
 * reference (so folding or not gives the same bits) and no type depends on
 * the value they read. */
static bool lift_reader(plumb_opcode code)
{
    if (code == PLUMB_OP_FUNC_RETURN || code == PLUMB_OP_BROADCAST_IN_DIM || code == PLUMB_OP_RESHAPE)
        return true;
    const plumb_op_info *oi = plumb_op_get(code);
    return oi->kind == PLUMB_KIND_ELEMENTWISE && oi->agree == PLUMB_AGREE_EXACT;
}

static bool tensor_splat(const plumb_tensor *t)
{
    uint64_t n = plumb_tensor_numel(t);
    if (n == 0)
        return false;
    uint64_t b0 = plumb_load_bits(t->dtype, t->data, 0);
    for (uint64_t i = 1; i < n; i++)
        if (plumb_load_bits(t->dtype, t->data, (size_t)i) != b0)
            return false;
    return true;
}

static bool lift_candidate(const ir_op *op, uint32_t flags)
{
    if (op->code != PLUMB_OP_CONSTANT || !op->a.value || op->n_results != 1 ||
        !ir_type_is_static(&op->results[0]->type))
        return false;
    plumb_dtype t = op->a.value->dtype;
    bool ok = plumb_dtype_is_float(t) ? (flags & RT_POLICY_LIFT) != 0
                                      : (plumb_dtype_is_int(t) || plumb_dtype_is_bool(t)) && (flags & RT_POLICY_LIFT_INT);
    return ok && tensor_splat(op->a.value);
}

typedef struct lift_scan {
    uint8_t *const_only;   /* per value id: derived from constants alone (what folding could evaluate) */
    uint8_t *reach;        /* per value id: carries the candidate's value */
    uint32_t n_ids;
} lift_scan;

static bool reads_marked(const ir_op *op, const uint8_t *reach, uint32_t n_ids)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i]->id < n_ids && reach[op->operands[i]->id])
            return true;
    return false;
}

/* Whether any op nested in op's regions reads a marked value. */
static bool nested_reads(const ir_op *op, const uint8_t *reach, uint32_t n_ids)
{
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            if (reads_marked(o, reach, n_ids) || nested_reads(o, reach, n_ids))
                return true;
    return false;
}

/* Follows constant c forward through the body: every op it reaches must
 * be a lift_reader; it keeps flowing through ops that would be folded
 * without the policy (all operands constant-derived). False when some op
 * cannot take a parameter, or when nothing reads c. */
static bool liftable(const ir_func *f, const ir_op *c, lift_scan *s)
{
    memset(s->reach, 0, s->n_ids);
    s->reach[c->results[0]->id] = 1;
    bool used = false;
    for (const ir_op *op = c->next; op; op = op->next) {
        if (nested_reads(op, s->reach, s->n_ids))
            return false;
        if (!reads_marked(op, s->reach, s->n_ids))
            continue;
        used = true;
        if (!lift_reader(op->code) || op->n_regions)
            return false;
        bool folded = op->n_operands > 0;
        for (uint32_t i = 0; i < op->n_operands && folded; i++)
            folded = op->operands[i]->id < s->n_ids && s->const_only[op->operands[i]->id];
        for (uint32_t i = 0; folded && i < op->n_results; i++)
            if (op->results[i]->id < s->n_ids)
                s->reach[op->results[i]->id] = 1;
    }
    (void)f;
    return used;
}

static bool scan_init(const ir_module *m, const ir_func *f, lift_scan *s)
{
    s->n_ids = m->next_value_id + 1;
    s->const_only = plumb_calloc(s->n_ids, 1);
    s->reach = plumb_calloc(s->n_ids, 1);
    if (!s->const_only || !s->reach)
        return false;
    for (const ir_op *op = f->body.first; op; op = op->next) {
        bool k = op->code == PLUMB_OP_CONSTANT || (op->n_operands > 0 && op->n_regions == 0);
        for (uint32_t i = 0; k && op->code != PLUMB_OP_CONSTANT && i < op->n_operands; i++)
            k = op->operands[i]->id < s->n_ids && s->const_only[op->operands[i]->id];
        for (uint32_t i = 0; k && i < op->n_results; i++)
            if (op->results[i]->id < s->n_ids)
                s->const_only[op->results[i]->id] = 1;
    }
    return true;
}

static void scan_free(lift_scan *s)
{
    if (s->const_only)
        plumb_free(s->const_only, s->n_ids);
    if (s->reach)
        plumb_free(s->reach, s->n_ids);
}

/* Whether an op in b (or its regions) calls @name: adding parameters to a
 * function that is also called would break its call sites. */
static bool calls(const ir_block *b, const char *name)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->code == PLUMB_OP_CALL && op->a.callee && strcmp(op->a.callee, name) == 0)
            return true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (calls(&op->regions[r], name))
                return true;
    }
    return false;
}

/* The constants of f's body to lift, in order (an array of n ops). */
static bool find_lifts(const ir_module *m, const ir_func *f, uint32_t flags, const ir_op ***ops, uint32_t *n)
{
    *ops = NULL;
    *n = 0;
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (calls(&m->funcs[i]->body, f->name))
            return true;
    lift_scan s = {0};
    if (!scan_init(m, f, &s)) {
        scan_free(&s);
        return false;
    }
    uint32_t cap = 0;
    bool ok = true;
    for (const ir_op *op = f->body.first; op && ok; op = op->next) {
        if (!lift_candidate(op, flags) || !liftable(f, op, &s))
            continue;
        if (*n == cap) {
            uint32_t ncap = cap ? cap * 2 : 8;
            const ir_op **no = plumb_realloc(*ops, (size_t)cap * sizeof *no, (size_t)ncap * sizeof *no);
            if (!no) {
                ok = false;
                break;
            }
            *ops = no;
            cap = ncap;
        }
        (*ops)[(*n)++] = op;
    }
    scan_free(&s);
    if (!ok || *n == 0) {
        if (*ops)
            plumb_free((void *)*ops, (size_t)cap * sizeof **ops);
        *ops = NULL;
        *n = 0;
        return ok;
    }
    /* Shrink to exactly n entries so the caller frees n * size. */
    if (cap != *n) {
        const ir_op **no = plumb_realloc(*ops, (size_t)cap * sizeof *no, (size_t)*n * sizeof *no);
        if (!no) {
            plumb_free((void *)*ops, (size_t)cap * sizeof **ops);
            *ops = NULL;
            *n = 0;
            return false;
        }
        *ops = no;
    }
    return true;
}

/* ---- the rewrite ------------------------------------------------------------ */

static void replace_uses(ir_block *b, const ir_value *from, ir_value *to)
{
    for (ir_op *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i] == from)
                op->operands[i] = to;
        for (uint32_t r = 0; r < op->n_regions; r++)
            replace_uses(&op->regions[r], from, to);
    }
}

/* Replaces constant op c of f (in module m) by a new trailing parameter of
 * its element type; a splat of rank > 0 becomes broadcast_in_dim of it. */
static bool lift_one(ir_module *m, ir_func *f, ir_op *c)
{
    ir_value *old = c->results[0];
    ir_type st = ir_type_scalar(old->type.dtype);
    uint32_t before = f->body.n_args;
    ir_value *arg = ir_block_add_arg(m, &f->body, &st);
    if (!arg)
        return false;
    char name[300];
    snprintf(name, sizeof name, "%s (lifted by policy)", old->name ? old->name : "constant");
    if (!(arg->name = plumb_arena_strdup(m->arena, name)))
        return false;
    if (ir_debug_loc_known(&c->dloc)) {
        ir_debug_loc *dl = plumb_arena_alloc(m->arena, sizeof *dl);
        if (!dl)
            return false;
        *dl = c->dloc;   /* the original's strings: valid while it is compiled */
        arg->dloc = dl;
    }
    if (f->arg_attrs) {
        const char **na = plumb_arena_array(m->arena, before + 1, sizeof *na);
        if (!na)
            return false;
        memcpy(na, f->arg_attrs, (size_t)before * sizeof *na);
        na[before] = NULL;
        f->arg_attrs = na;
    }
    ir_value *now = arg;
    if (old->type.rank > 0) {
        ir_op *bc = ir_op_new(m, PLUMB_OP_BROADCAST_IN_DIM, &arg, 1, &old->type, 1);
        if (!bc)
            return false;
        bc->loc = c->loc;
        bc->dloc = c->dloc;
        bc->results[0]->name = old->name;
        ir_block_insert_before(&f->body, c, bc);
        now = bc->results[0];
    }
    replace_uses(&f->body, old, now);
    ir_block_remove(&f->body, c);
    return true;
}

/* The printed copy numbers its values and places its ops on the printed
 * lines; explanations and errors must name what the user wrote. The copy
 * has the original's structure op for op, so names, positions and debug
 * locations are copied back by walking both in step (the strings stay the
 * original's: the copy lives only while the original is being compiled). */
static bool restore_block(const ir_block *from, ir_block *to)
{
    if (from->n_args != to->n_args)
        return false;
    for (uint32_t i = 0; i < from->n_args; i++) {
        to->args[i]->name = from->args[i]->name;
        to->args[i]->dloc = from->args[i]->dloc;
    }
    const ir_op *a = from->first;
    ir_op *b = to->first;
    for (; a && b; a = a->next, b = b->next) {
        if (a->code != b->code || a->n_results != b->n_results || a->n_regions != b->n_regions)
            return false;
        b->loc = a->loc;
        b->dloc = a->dloc;
        for (uint32_t i = 0; i < a->n_results; i++)
            b->results[i]->name = a->results[i]->name;
        for (uint32_t r = 0; r < a->n_regions; r++)
            if (!restore_block(&a->regions[r], &b->regions[r]))
                return false;
    }
    return !a && !b;
}

static bool restore_origins(const ir_module *from, ir_module *to)
{
    if (from->n_funcs != to->n_funcs)
        return false;
    for (uint32_t i = 0; i < from->n_funcs; i++) {
        to->funcs[i]->loc = from->funcs[i]->loc;
        to->funcs[i]->dloc = from->funcs[i]->dloc;
        if (!restore_block(&from->funcs[i]->body, &to->funcs[i]->body))
            return false;
    }
    to->dloc = from->dloc;
    return true;
}

static plumb_tensor *element0(const plumb_tensor *t, plumb_diag *d)
{
    plumb_tensor *s = plumb_tensor_new(t->dtype, 0, NULL, 0, d);
    if (s)
        plumb_store_bits(t->dtype, s->data, 0, plumb_load_bits(t->dtype, t->data, 0));
    return s;
}

bool rt_policy_lift(const ir_module *m, const ir_func *f, uint32_t flags, uint64_t max_bytes, ir_module **out,
                    rt_lifted *lifted, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    *out = NULL;
    lifted->vals = NULL;
    lifted->n = 0;
    lifted->what[0] = '\0';
    if (!(flags & (RT_POLICY_LIFT | RT_POLICY_LIFT_INT)))
        return true;
    const ir_op **ops = NULL, **cops = NULL;
    uint32_t n = 0, cn = 0;
    ir_module *cm = NULL;
    plumb_buf text;
    plumb_buf_init(&text);
    if (!find_lifts(m, f, flags, &ops, &n))
        goto out_nomem;
    if (n == 0)
        return true;
    if (!(lifted->vals = plumb_calloc(n, sizeof *lifted->vals)))
        goto out_nomem;
    lifted->n = n;
    for (uint32_t i = 0; i < n; i++)
        if (!(lifted->vals[i] = element0(ops[i]->a.value, d)))
            goto out_fail;
    const ir_value *first = ops[0]->results[0];
    char where[128] = "";
    if (ir_debug_loc_known(&ops[0]->dloc))
        ir_debug_loc_describe(where, sizeof where, &ops[0]->dloc);
    snprintf(lifted->what, sizeof lifted->what, "%%%s%s", first->name ? first->name : "constant", where);
    /* The rewrite works on a copy (the caller's module is const and may be
     * shared): printed and parsed back, which the printer guarantees to be
     * the same program (print(parse(print(m))) == print(m)), locations
     * included. */
    ir_print(&text, m);
    if (text.failed)
        goto out_nomem;
    ir_parse_options po = {sizeof po, 0, max_bytes};
    if (!(cm = ir_parse(text.data, text.len, m->filename, &po, d)))
        goto out_fail;
    if (!restore_origins(m, cm)) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, none, "policy lift: the printed copy of @%s differs in structure", f->name);
        goto out_fail;
    }
    ir_func *cf = ir_module_find_func(cm, f->name);
    if (!cf || !find_lifts(cm, cf, flags, &cops, &cn))
        goto out_nomem;
    if (cn != n) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, none,
                       "policy lift: @%s has %u liftable constants but its printed copy has %u", f->name, n, cn);
        goto out_fail;
    }
    for (uint32_t i = 0; i < cn; i++)
        if (!lift_one(cm, cf, (ir_op *)cops[i]))
            goto out_nomem;
    ir_verify_options vo = {sizeof vo, max_bytes};
    if (!ir_verify(cm, &vo, d))
        goto out_fail;
    plumb_free((void *)ops, (size_t)n * sizeof *ops);
    plumb_free((void *)cops, (size_t)cn * sizeof *cops);
    plumb_buf_free(&text);
    *out = cm;
    return true;
out_nomem:
    plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory applying the lift policy to @%s", f->name);
out_fail:
    if (ops)
        plumb_free((void *)ops, (size_t)n * sizeof *ops);
    if (cops)
        plumb_free((void *)cops, (size_t)cn * sizeof *cops);
    plumb_buf_free(&text);
    ir_module_free(cm);
    rt_lifted_free(lifted);
    return false;
}
