/* Shape refinement (include/plumb/ref.h, plumb_ref_refine): specializes a
 * program with `?` dimensions to the concrete parameter shapes of one call,
 * as StableHLO's refine-shapes pass does, so that a backend that compiles
 * static shapes only can run it. docs/spec/interpreter.md, "Refinement".
 *
 * The pass is an abstract execution of the entry function in which every
 * value has a concrete shape and, when it follows from constants and shapes
 * alone, a concrete value:
 *
 *   - parameters get the given types; their values are unknown;
 *   - each op's result types come from ir_shape_infer, the rule the
 *     executors use at run time, so refinement accepts and rejects exactly
 *     what a run at these shapes would;
 *   - get_dimension_size is known from its operand's shape; any other op
 *     whose operands are all known (and small) is evaluated with the
 *     reference itself (ref_fold_op): the constant subgraph is folded by the
 *     oracle, not by a second evaluator;
 *   - get_dimension_size becomes a constant, and each dynamic op becomes its
 *     static counterpart built from its shape operands' known values
 *     (ir_shape_static_form, as the reference kernels do); a shape operand
 *     whose value is not known depends on a parameter's value, and the
 *     program cannot be refined: the error names the op and the operand;
 *   - a shape_assertion whose predicate is known true is dropped, one known
 *     false is an error with the program's message;
 *   - calls refine their callee with the actual argument types and the
 *     arguments' known values (one signature per function); the callee's
 *     returns give the call's types, and its known returns known results.
 *
 * The work happens on a copy of the module (printed and parsed again, with
 * the original source locations copied over so that errors point into the
 * user's file). Ops left without uses are removed, functions the entry does
 * not reach are dropped, and the result is printed and parsed once more and
 * verified: what comes out is an ordinary static module. */
#include <stdio.h>
#include <string.h>

#include "plumb/shape.h"
#include "ref_internal.h"

/* Ops whose operands and results together hold at most this many elements
 * are folded when their operands are known: enough for any shape
 * computation, small enough that refinement never does a model's work. */
#define RF_FOLD_MAX_ELEMS ((uint64_t)1 << 16)

/* Calls nest at most this deep while refining. */
#define RF_MAX_DEPTH 256

typedef struct rf {
    ir_module *m;              /* the working copy */
    const char *file;          /* for diagnostics */
    uint64_t max_bytes;
    plumb_diag *d;
    plumb_tensor **known;      /* per value id: its value when known (owned), else NULL */
    uint32_t n_values;         /* capacity of known: the copy's values plus one
                                * constant per parameter the pass may add */
    uint8_t *state;            /* per function index: 0 not reached, 1 refining, 2 refined */
    uint32_t depth;
} rf;

static bool rf_fail(rf *r, plumb_code code, plumb_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool rf_fail(rf *r, plumb_code code, plumb_loc loc, const char *fmt, ...)
{
    if (r->d->code != PLUMB_OK)
        return false;
    va_list ap;
    va_start(ap, fmt);
    plumb_diag_vset(r->d, code, loc, fmt, ap);
    va_end(ap);
    r->d->file = r->file;
    return false;
}

/* Takes a diagnostic produced by ir_shape_infer, the reference or the
 * static form as the pass's error. */
static bool rf_take(rf *r, const plumb_diag *sd)
{
    if (r->d->code == PLUMB_OK) {
        *r->d = *sd;
        r->d->file = r->file;
    }
    return false;
}

static void type_text(char *out, size_t n, const ir_type *t)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(out, n, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
}

static int func_index(const ir_module *m, const ir_func *f)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (m->funcs[i] == f)
            return (int)i;
    return -1;
}

/* A tensor that stands for a value whose shape alone is known: dims, no
 * data. ir_shape_infer reads only the dims of such operands. */
static plumb_tensor shape_stub(const ir_type *t)
{
    plumb_tensor s;
    memset(&s, 0, sizeof s);
    s.dtype = t->dtype;
    s.rank = t->rank;
    for (uint32_t i = 0; i < t->rank; i++)
        s.dims[i] = t->dims[i];
    return s;
}

/* The operands of each dynamic op whose values give the result's shape. */
static bool is_shape_operand(plumb_opcode code, uint32_t i)
{
    switch (code) {
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
    case PLUMB_OP_DYNAMIC_RESHAPE:
        return i == 1;
    case PLUMB_OP_DYNAMIC_IOTA:
        return i == 0;
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
        return i >= 1 && i <= 3;
    case PLUMB_OP_DYNAMIC_PAD:
        return i >= 2 && i <= 4;
    case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_DYNAMIC_CONV:
        return i == 2;
    default:
        return false;
    }
}

static const char *shape_operand_name(plumb_opcode code, uint32_t i)
{
    static const char *const slice[] = {"start_indices", "limit_indices", "strides"};
    static const char *const pad[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    switch (code) {
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: return "output_dimensions";
    case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_DYNAMIC_IOTA: return "output_shape";
    case PLUMB_OP_REAL_DYNAMIC_SLICE: return slice[i - 1];
    case PLUMB_OP_DYNAMIC_PAD: return pad[i - 2];
    case PLUMB_OP_DYNAMIC_GATHER: return "slice_sizes";
    case PLUMB_OP_DYNAMIC_CONV: return "d_padding";
    default: return "operand";
    }
}

static bool refine_func(rf *r, ir_func *f, const ir_type *args, plumb_tensor *const *vals, const ir_op *site);

/* func.call: refine the callee with the actual argument types; the call's
 * results take the callee's refined result types. */
static bool refine_call(rf *r, ir_op *op)
{
    ir_func *g = op->a.callee ? ir_module_find_func(r->m, op->a.callee) : NULL;
    if (!g)
        return rf_fail(r, PLUMB_ERR_INVALID, op->loc, "func.call: no function @%s in the module",
                       op->a.callee ? op->a.callee : "?");
    ir_type *args = plumb_calloc(op->n_operands ? op->n_operands : 1, sizeof *args);
    if (!args)
        return rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "func.call: out of memory");
    plumb_tensor **vals = plumb_calloc(op->n_operands ? op->n_operands : 1, sizeof *vals);
    if (!vals) {
        plumb_free(args, (op->n_operands ? op->n_operands : 1) * sizeof *args);
        return rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "func.call: out of memory");
    }
    for (uint32_t i = 0; i < op->n_operands; i++) {
        args[i] = op->operands[i]->type;
        vals[i] = r->known[op->operands[i]->id];
    }
    bool ok = refine_func(r, g, args, vals, op);
    plumb_free(args, (op->n_operands ? op->n_operands : 1) * sizeof *args);
    plumb_free(vals, (op->n_operands ? op->n_operands : 1) * sizeof *vals);
    for (uint32_t j = 0; ok && j < op->n_results && j < g->n_results; j++)
        op->results[j]->type = g->result_types[j];
    /* Known returns make known call results (a shape computed in a callee
     * from constants or from its arguments' shapes). */
    const ir_op *ret = g->body.last;
    for (uint32_t j = 0; ok && ret && ret->code == PLUMB_OP_FUNC_RETURN && j < ret->n_operands && j < op->n_results;
         j++) {
        const plumb_tensor *k = r->known[ret->operands[j]->id];
        if (!k)
            continue;
        plumb_diag sd;
        memset(&sd, 0, sizeof sd);
        plumb_tensor *c = plumb_tensor_clone(k, &sd);
        if (!c)
            return rf_take(r, &sd);
        plumb_tensor_free(r->known[op->results[j]->id]);
        r->known[op->results[j]->id] = c;
    }
    return ok;
}

/* Folds op with the reference when its operands are known and small. */
static bool maybe_fold(rf *r, ir_op *op, plumb_tensor *const *in, const ir_type *out)
{
    const plumb_op_info *info = plumb_op_get(op->code);
    if (info->kind == PLUMB_KIND_CHECK || op->n_results == 0)
        return true;
    uint64_t elems = 0;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (!r->known[op->operands[i]->id])
            return true;
        elems += plumb_tensor_numel(in[i]);
    }
    for (uint32_t j = 0; j < op->n_results; j++) {
        uint64_t n = 1;
        for (uint32_t k = 0; k < out[j].rank; k++)
            if (plumb_mul_overflow_u64(n, (uint64_t)out[j].dims[k], &n))
                return true;
        elems += n;
    }
    if (elems > RF_FOLD_MAX_ELEMS)
        return true;
    plumb_tensor *res_small[8], **res = res_small;
    if (op->n_results > 8 && !(res = plumb_calloc(op->n_results, sizeof *res)))
        return rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory folding", plumb_op_name(op->code));
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    bool ok = ref_fold_op(r->m, op, in, res, r->max_bytes, &sd);
    if (ok) {
        for (uint32_t j = 0; j < op->n_results; j++) {
            plumb_tensor_free(r->known[op->results[j]->id]);
            r->known[op->results[j]->id] = res[j];
        }
    } else {
        rf_take(r, &sd);
    }
    if (res != res_small)
        plumb_free(res, op->n_results * sizeof *res);
    return ok;
}

/* Makes op a stablehlo.constant of value t (owned by r->known). */
static void make_constant(ir_op *op, plumb_tensor *t)
{
    memset(&op->a, 0, sizeof op->a);
    op->a.value = t;
    op->a.index_vector_dim = -1;
    op->a.dimension = 0;
    op->code = PLUMB_OP_CONSTANT;
    op->n_operands = 0;
}

/* Rewrites a dynamic op whose shape operands are known into its static
 * counterpart; the lists go into the working module's arena. */
static bool make_static(rf *r, ir_op *op, plumb_tensor *const *in)
{
    ir_shape_static *s = plumb_malloc(sizeof *s);
    if (!s)
        return rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory", plumb_op_name(op->code));
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    bool ok = ir_shape_static_form(op, (const plumb_tensor *const *)in, s, &sd);
    if (!ok) {
        rf_take(r, &sd);
    } else {
        ir_attrs a = s->a;
        ir_ints *lists[] = {&a.start, &a.limit, &a.strides, &a.low, &a.high, &a.interior, &a.sizes};
        for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
            if (lists[k]->n) {
                ir_ints copy = ir_ints_make(r->m, lists[k]->v, lists[k]->n);
                if (!copy.v) {
                    ok = rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory", plumb_op_name(op->code));
                    break;
                }
                *lists[k] = copy;
            }
        /* The hints of dynamic_broadcast_in_dim have no static form. */
        a.known_expanding = (ir_ints){NULL, 0};
        a.known_nonexpanding = (ir_ints){NULL, 0};
        if (ok) {
            op->a = a;
            op->code = s->code;
            op->n_operands = s->n_operands;
        }
    }
    plumb_free(s, sizeof *s);
    return ok;
}

/* The predicate of a shape_assertion is known: true drops it, false is the
 * program's own error. */
static bool assertion_known(rf *r, ir_op *op, ir_block *b, plumb_tensor *const *in, bool *removed)
{
    *removed = false;
    if (plumb_load_bits(PLUMB_I1, in[0]->data, 0) & 1) {
        ir_block_remove(b, op);
        *removed = true;
        return true;
    }
    plumb_buf msg;
    plumb_buf_init(&msg);
    ir_shape_assertion_message(op, (const plumb_tensor *const *)in, &msg);
    char origin[700];   /* the front end's `loc(...)`: where JAX put the assertion */
    ir_debug_loc_describe(origin, sizeof origin, &op->dloc);
    rf_fail(r, PLUMB_ERR_INVALID, op->loc, "%s: fails for these shapes, so the program cannot be refined to them: %s%s",
            plumb_op_name(op->code), msg.data && !msg.failed ? msg.data : "", origin);
    plumb_buf_free(&msg);
    return false;
}

static bool refine_op(rf *r, ir_func *f, ir_op *op, bool *removed);

/* The ops of region b, in order, up to its return. */
static bool refine_block(rf *r, ir_func *f, ir_block *b)
{
    ir_op *op = b->first;
    while (op) {
        ir_op *next = op->next;
        if (op->code == PLUMB_OP_RETURN || op->code == PLUMB_OP_FUNC_RETURN)
            return true;
        bool removed;
        if (!refine_op(r, f, op, &removed))
            return false;
        op = next;
    }
    return true;
}

/* The regions of a while, if or case get static types too. A while's cond
 * and body take the loop's operand types (already refined) as their
 * argument types, and the body must give back values of those types (C2):
 * a loop whose value changes size cannot be refined. A branch of an if or
 * case refines on its own; the op's results then follow from the branches
 * (ir/shape.c). Values computed in a while's regions never become known
 * constants: only the region arguments' types are fixed, not their
 * values. */
static bool refine_regions(rf *r, ir_func *f, ir_op *op)
{
    if (op->code == PLUMB_OP_WHILE && op->n_regions == 2) {
        for (uint32_t k = 0; k < 2; k++)
            for (uint32_t i = 0; i < op->regions[k].n_args && i < op->n_operands; i++)
                op->regions[k].args[i]->type = op->operands[i]->type;
        if (!refine_block(r, f, &op->regions[0]) || !refine_block(r, f, &op->regions[1]))
            return false;
        const ir_op *ret = op->regions[1].last;
        for (uint32_t i = 0; ret && i < ret->n_operands && i < op->n_operands; i++)
            if (!ir_type_equal(&ret->operands[i]->type, &op->operands[i]->type)) {
                char a[256], b[256];
                type_text(a, sizeof a, &ret->operands[i]->type);
                type_text(b, sizeof b, &op->operands[i]->type);
                return rf_fail(r, PLUMB_ERR_INVALID, op->loc,
                               "stablehlo.while: for these shapes the body returns %s as value %u but the loop carries %s, so the program cannot be refined",
                               a, i, b);
            }
        return true;
    }
    if (op->code == PLUMB_OP_IF || op->code == PLUMB_OP_CASE)
        for (uint32_t k = 0; k < op->n_regions; k++)
            if (!refine_block(r, f, &op->regions[k]))
                return false;
    return true;
}

static bool refine_op(rf *r, ir_func *f, ir_op *op, bool *removed)
{
    *removed = false;
    if (op->code == PLUMB_OP_CALL)
        return refine_call(r, op);
    uint32_t n = op->n_operands;
    plumb_tensor *in_small[8], **in = in_small;
    plumb_tensor stub_small[8], *stub = stub_small;
    ir_type out_small[8], *out = out_small;
    bool ok = false;
    if (n > 8 && (!(in = plumb_calloc(n, sizeof *in)) || !(stub = plumb_calloc(n, sizeof *stub)))) {
        rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory", plumb_op_name(op->code));
        goto out;
    }
    if (op->n_results > 8 && !(out = plumb_calloc(op->n_results, sizeof *out))) {
        rf_fail(r, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory", plumb_op_name(op->code));
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        plumb_tensor *k = r->known[op->operands[i]->id];
        stub[i] = shape_stub(&op->operands[i]->type);
        in[i] = k ? k : &stub[i];
        if (!k && is_shape_operand(op->code, i)) {
            const ir_value *v = op->operands[i];
            rf_fail(r, PLUMB_ERR_INVALID, op->loc,
                    "%s: operand %u%s%s%s (%s) is not a constant once the parameter shapes are known: it depends on a parameter's value, so the program cannot be refined",
                    plumb_op_name(op->code), i, v->name ? " (%" : "", v->name ? v->name : "", v->name ? ")" : "",
                    shape_operand_name(op->code, i));
            goto out;
        }
    }
    if (op->code == PLUMB_OP_SHAPE_ASSERTION) {
        ok = r->known[op->operands[0]->id] ? assertion_known(r, op, op->parent ? op->parent : &f->body, in, removed) : true;
        goto out;
    }
    if (!refine_regions(r, f, op))
        goto out;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    /* The operands' types here are already the refined ones. An op whose
     * types are now all static would get its declared types back from
     * ir_shape_infer unchecked (it trusts values to match static types), so
     * it goes through the verifier's rule instead: `add` of two parameters
     * refined to different sizes is caught here, not in the final verify. */
    bool now_static = true;
    for (uint32_t i = 0; i < n && now_static; i++)
        now_static = ir_type_is_static(&op->operands[i]->type);
    for (uint32_t j = 0; j < op->n_results && now_static; j++)
        now_static = ir_type_is_static(&op->results[j]->type);
    if (now_static && !ir_verify_op(op, r->m, r->max_bytes, &sd)) {
        rf_take(r, &sd);
        goto out;
    }
    if (!ir_shape_infer(op, (const plumb_tensor *const *)in, out, r->max_bytes, &sd)) {
        rf_take(r, &sd);
        goto out;
    }
    for (uint32_t j = 0; j < op->n_results; j++)
        op->results[j]->type = out[j];
    if (op->code == PLUMB_OP_GET_DIMENSION_SIZE) {
        plumb_tensor *t = plumb_tensor_new(PLUMB_I32, 0, NULL, r->max_bytes, &sd);
        if (!t) {
            rf_take(r, &sd);
            goto out;
        }
        plumb_store_bits(PLUMB_I32, t->data, 0, (uint64_t)(uint32_t)(int32_t)in[0]->dims[op->a.dimension]);
        plumb_tensor_free(r->known[op->results[0]->id]);
        r->known[op->results[0]->id] = t;
        make_constant(op, t);
        ok = true;
        goto out;
    }
    if (!maybe_fold(r, op, in, out))
        goto out;
    ok = ir_shape_is_dynamic_op(op->code) ? make_static(r, op, in) : true;
out:
    if (in != in_small)
        plumb_free(in, n * sizeof *in);
    if (stub != stub_small && stub)
        plumb_free(stub, n * sizeof *stub);
    if (out != out_small && out)
        plumb_free(out, op->n_results * sizeof *out);
    return ok;
}

static void replace_uses(ir_block *b, const ir_value *from, ir_value *to)
{
    for (ir_op *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i] == from)
                op->operands[i] = to;
        for (uint32_t k = 0; k < op->n_regions; k++)
            replace_uses(&op->regions[k], from, to);
    }
}

/* Parameter i of f has a known value: its uses read a constant instead, so
 * that the refined function computes what it was refined for whatever
 * value a caller passes (the parameter stays in the signature). */
static bool substitute_param(rf *r, ir_func *f, uint32_t i)
{
    ir_value *p = f->body.args[i];
    ir_op *c = ir_op_new(r->m, PLUMB_OP_CONSTANT, NULL, 0, &p->type, 1);
    if (!c)
        return rf_fail(r, PLUMB_ERR_NOMEM, f->loc, "out of memory refining @%s", f->name);
    ir_value *v = c->results[0];
    if (v->id >= r->n_values)
        return rf_fail(r, PLUMB_ERR_LIMIT, f->loc, "internal error: refining @%s made more values than planned", f->name);
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    plumb_tensor *copy = plumb_tensor_clone(r->known[p->id], &sd);
    if (!copy)
        return rf_take(r, &sd);
    c->a.value = r->known[p->id];   /* owned by known[], which outlives printing */
    c->loc = f->loc;
    v->name = p->name;
    r->known[v->id] = copy;
    replace_uses(&f->body, p, v);
    ir_block_insert_before(&f->body, f->body.first, c);
    return true;
}

/* Refines f for parameters of types args whose values, where vals[i] is
 * not NULL, are known (JAX passes dimension sizes to its wrapped main as
 * scalar arguments: knowing them lets the callee's shapes fold). */
static bool refine_func(rf *r, ir_func *f, const ir_type *args, plumb_tensor *const *vals, const ir_op *site)
{
    int fi = func_index(r->m, f);
    if (fi < 0)
        return rf_fail(r, PLUMB_ERR_INVALID, f->loc, "function @%s is not in the module", f->name);
    if (r->state[fi] == 1)
        return rf_fail(r, PLUMB_ERR_UNSUPPORTED, site ? site->loc : f->loc,
                       "func.call: @%s is called recursively; refinement needs a finite call graph", f->name);
    if (r->state[fi] == 2) {
        /* Refined already: the same signature reuses it. */
        for (uint32_t i = 0; i < f->body.n_args; i++)
            if (!ir_type_equal(&f->body.args[i]->type, &args[i])) {
                char a[256], b[256];
                type_text(a, sizeof a, &args[i]);
                type_text(b, sizeof b, &f->body.args[i]->type);
                return rf_fail(r, PLUMB_ERR_UNSUPPORTED, site ? site->loc : f->loc,
                               "func.call: @%s's parameter %u is %s here but %s at an earlier call; refinement gives each function one signature",
                               f->name, i, a, b);
            }
        /* A value the earlier refinement relied on must be the same here. */
        for (uint32_t i = 0; i < f->body.n_args; i++) {
            const plumb_tensor *before = r->known[f->body.args[i]->id], *now = vals ? vals[i] : NULL;
            if (before && !(now && plumb_tensor_equal(before, now)))
                return rf_fail(r, PLUMB_ERR_UNSUPPORTED, site ? site->loc : f->loc,
                               "func.call: @%s's parameter %u was refined for a constant value at an earlier call and is %s here; refinement gives each function one signature",
                               f->name, i, now ? "another value" : "not a constant");
        }
        return true;
    }
    if (++r->depth > RF_MAX_DEPTH)
        return rf_fail(r, PLUMB_ERR_LIMIT, site ? site->loc : f->loc, "calls nest deeper than %d", RF_MAX_DEPTH);
    r->state[fi] = 1;
    bool ok = true;
    for (uint32_t i = 0; i < f->body.n_args && ok; i++) {
        f->body.args[i]->type = args[i];
        if (vals && vals[i]) {
            plumb_diag sd;
            memset(&sd, 0, sizeof sd);
            plumb_tensor *c = plumb_tensor_clone(vals[i], &sd);
            if (!c)
                ok = rf_take(r, &sd);
            r->known[f->body.args[i]->id] = c;
            ok = ok && substitute_param(r, f, i);
        }
    }
    ir_op *op = f->body.first;
    while (op && ok) {
        ir_op *next = op->next;
        if (op->code == PLUMB_OP_FUNC_RETURN) {
            for (uint32_t j = 0; j < op->n_operands && j < f->n_results; j++)
                f->result_types[j] = op->operands[j]->type;
            break;
        }
        bool removed;
        ok = refine_op(r, f, op, &removed);
        op = next;
    }
    r->state[fi] = ok ? 2 : 1;
    r->depth--;
    return ok;
}

/* ---- clean-up: unused ops --------------------------------------------------------- */

static void count_uses(const ir_op *op, int delta, uint32_t *uses)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        uses[op->operands[i]->id] += (uint32_t)delta;
    for (uint32_t k = 0; k < op->n_regions; k++)
        for (const ir_op *o = op->regions[k].first; o; o = o->next)
            count_uses(o, delta, uses);
}

/* Removes ops none of whose results is used, except checks and
 * assertions (their effect is the run's verdict) and calls (the callee may
 * hold checks). Walking backwards frees whole chains in one pass: an op's
 * users come after it. */
static void drop_unused(ir_func *f, uint32_t *uses, uint32_t n_values)
{
    memset(uses, 0, (size_t)n_values * sizeof *uses);
    for (const ir_op *op = f->body.first; op; op = op->next)
        count_uses(op, 1, uses);
    ir_op *op = f->body.last;
    while (op) {
        ir_op *prev = op->prev;
        bool keep = op->code == PLUMB_OP_FUNC_RETURN || op->code == PLUMB_OP_CALL ||
                    plumb_op_get(op->code)->kind == PLUMB_KIND_CHECK;
        for (uint32_t j = 0; !keep && j < op->n_results; j++)
            keep = uses[op->results[j]->id] != 0;
        if (!keep) {
            count_uses(op, -1, uses);
            ir_block_remove(&f->body, op);
        }
        op = prev;
    }
}

/* ---- copying ---------------------------------------------------------------------- */

static void copy_block_locs(const ir_block *from, ir_block *to)
{
    for (uint32_t i = 0; i < from->n_args && i < to->n_args; i++)
        to->args[i]->name = from->args[i]->name;
    const ir_op *a = from->first;
    ir_op *b = to->first;
    for (; a && b; a = a->next, b = b->next) {
        b->loc = a->loc;
        for (uint32_t j = 0; j < a->n_results && j < b->n_results; j++)
            b->results[j]->name = a->results[j]->name;
        for (uint32_t k = 0; k < a->n_regions && k < b->n_regions; k++)
            copy_block_locs(&a->regions[k], &b->regions[k]);
    }
}

/* A copy of m that the pass may change: printed and parsed, then given the
 * original's source locations and SSA names (the two have the same
 * structure op for op), so that errors read as the user wrote the program.
 * The names point into m, which outlives the copy. */
static ir_module *copy_module(const ir_module *m, plumb_diag *d)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    if (b.failed) {
        plumb_buf_free(&b);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory copying the module");
        return NULL;
    }
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    ir_module *c = ir_parse(b.data ? b.data : "", b.len, m->filename, NULL, &sd);
    plumb_buf_free(&b);
    if (!c) {
        plumb_diag_set(d, sd.code ? sd.code : PLUMB_ERR_INVALID, (plumb_loc){0, 0},
                       "internal error: the module's canonical text does not parse again: %s", sd.msg);
        return NULL;
    }
    for (uint32_t i = 0; i < m->n_funcs && i < c->n_funcs; i++) {
        c->funcs[i]->loc = m->funcs[i]->loc;
        copy_block_locs(&m->funcs[i]->body, &c->funcs[i]->body);
    }
    return c;
}

/* ---- entry ------------------------------------------------------------------------ */

static bool check_arg_types(const ir_module *m, const ir_func *f, const ir_type *arg_types, uint32_t n_args,
                            plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (n_args != f->body.n_args) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "@%s takes %u parameters but %u shapes were given", f->name,
                       f->body.n_args, n_args);
        d->file = m->filename;
        return false;
    }
    for (uint32_t i = 0; i < n_args; i++) {
        if (!ir_type_is_static(&arg_types[i])) {
            char t[256];
            type_text(t, sizeof t, &arg_types[i]);
            plumb_diag_set(d, PLUMB_ERR_USAGE, none, "the shape given for parameter %u of @%s, %s, is not static",
                           i, f->name, t);
            d->file = m->filename;
            return false;
        }
        plumb_tensor stub = shape_stub(&arg_types[i]);
        if (!ir_shape_check_args_one(f, i, &stub, d)) {
            d->file = m->filename;
            return false;
        }
    }
    return true;
}

ir_module *plumb_ref_refine(const ir_module *m, const char *entry, const ir_type *arg_types,
                            uint32_t n_args, uint64_t max_bytes, plumb_diag *d)
{
    return plumb_ref_refine_values(m, entry, arg_types, NULL, n_args, max_bytes, d);
}

ir_module *plumb_ref_refine_values(const ir_module *m, const char *entry, const ir_type *arg_types,
                                   plumb_tensor *const *arg_values, uint32_t n_args, uint64_t max_bytes,
                                   plumb_diag *d)
{
    const char *name = entry ? entry : "main";
    const ir_func *f0 = ir_module_find_func(m, name);
    if (!f0) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "the module has no function @%s", name);
        d->file = m->filename;
        return NULL;
    }
    if (!check_arg_types(m, f0, arg_types, n_args, d))
        return NULL;
    for (uint32_t i = 0; arg_values && i < n_args; i++) {
        const plumb_tensor *v = arg_values[i];
        bool same = !v || (v->dtype == arg_types[i].dtype && v->rank == arg_types[i].rank);
        for (uint32_t k = 0; same && v && k < v->rank; k++)
            same = v->dims[k] == arg_types[i].dims[k];
        if (!same) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0},
                           "the value given for parameter %u of @%s does not have the parameter's type", i, name);
            d->file = m->filename;
            return NULL;
        }
    }

    ir_module *result = NULL;
    rf r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.file = m->filename;
    r.max_bytes = ir_max_bytes(max_bytes);
    r.m = copy_module(m, d);
    if (!r.m)
        return NULL;
    r.n_values = r.m->next_value_id;
    for (uint32_t i = 0; i < r.m->n_funcs; i++)
        r.n_values += r.m->funcs[i]->body.n_args;
    size_t nv = r.n_values ? r.n_values : 1;
    r.known = plumb_calloc(nv, sizeof *r.known);
    r.state = plumb_calloc(r.m->n_funcs ? r.m->n_funcs : 1, 1);
    uint32_t *uses = plumb_calloc(nv, sizeof *uses);
    ir_func **reached = plumb_calloc(r.m->n_funcs ? r.m->n_funcs : 1, sizeof *reached);
    if (!r.known || !r.state || !uses || !reached) {
        rf_fail(&r, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory refining the module");
        goto out;
    }
    ir_func *f = ir_module_find_func(r.m, name);
    if (!f || !refine_func(&r, f, arg_types, arg_values, NULL))
        goto out;

    /* Keep the functions the entry reached, in their order, without the
     * ops nothing uses any more; then an ordinary print, parse and verify. */
    uint32_t n_reached = 0;
    for (uint32_t i = 0; i < r.m->n_funcs; i++)
        if (r.state[i] == 2) {
            drop_unused(r.m->funcs[i], uses, r.n_values);
            reached[n_reached++] = r.m->funcs[i];
        }
    ir_func **all = r.m->funcs;
    uint32_t n_all = r.m->n_funcs;
    r.m->funcs = reached;
    r.m->n_funcs = n_reached;
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, r.m);
    r.m->funcs = all;
    r.m->n_funcs = n_all;
    if (b.failed) {
        plumb_buf_free(&b);
        rf_fail(&r, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the refined module");
        goto out;
    }
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    result = ir_parse(b.data ? b.data : "", b.len, NULL, NULL, &sd);
    ir_verify_options vo = {sizeof vo, r.max_bytes};
    if (result && !ir_verify(result, &vo, &sd)) {
        ir_module_free(result);
        result = NULL;
    }
    if (!result) {
        /* The refined text is plumb's own: a failure is a bug, shown with
         * the line of the refined text. */
        rf_fail(&r, sd.code ? sd.code : PLUMB_ERR_INVALID, (plumb_loc){0, 0},
                "internal error: the refined module does not verify (line %u of the refined text): %s", sd.loc.line,
                sd.msg);
    } else if (m->filename) {
        result->filename = plumb_arena_strdup(result->arena, m->filename);
    }
    plumb_buf_free(&b);
out:
    if (r.known)
        for (uint32_t i = 0; i < r.n_values; i++)
            plumb_tensor_free(r.known[i]);
    plumb_free(r.known, nv * sizeof *r.known);
    plumb_free(r.state, r.m->n_funcs ? r.m->n_funcs : 1);
    plumb_free(uses, nv * sizeof *uses);
    plumb_free(reached, (r.m->n_funcs ? r.m->n_funcs : 1) * sizeof *reached);
    ir_module_free(r.m);
    return result;
}
