/* The reference interpreter: runs a verified module op by op, one kernel per
 * row of ir/ops.def. docs/spec/interpreter.md describes the execution model
 * (environment, lifetimes, limits, errors).
 *
 * Each function activation (a frame) owns an environment: an array indexed
 * by ir_value.id holding the tensor of every value defined so far. Values
 * defined in a function body are freed right after their last use, so the
 * live set stays bounded by the program, not by its length. Values defined
 * inside regions (reduce bodies, sort comparators, scatter updates) are kept
 * in the environment between evaluations and reused, because a region runs
 * once per element and allocating its scalars every time would dominate. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "plumb/shape.h"
#include "plumb/complex.h"
#include "ref_lowp.h"
#include "ref_complex.h"
#include "ref_internal.h"

/* Calls nest at most this deep; deeper recursion is an error, not a stack
 * overflow. */
#define REF_MAX_CALL_DEPTH 256

/* Operand and result pointer arrays up to this size live on the stack. */
#define REF_SMALL_ARGS 8

static const ref_kernel_fn ref_kernels[PLUMB_OP_COUNT] = {
#define OP(e, ...) [PLUMB_OP_##e] = ref_op_##e,
#include "../ir/ops.def"
#undef OP
};

/* When each value defined by a function body's ops dies: after op i runs,
 * the values ids[free_at[i] .. free_at[i+1]) are freed. */
typedef struct ref_plan {
    const ir_block *block;
    uint32_t n_ops;
    uint32_t *free_at;     /* n_ops + 1 offsets into ids */
    uint32_t *ids;         /* value ids, grouped by the op after which they die */
    uint32_t n_ids;
} ref_plan;

struct ref_ctx {
    const ir_module *m;
    plumb_diag *d;
    uint64_t max_bytes;         /* per-tensor byte limit */
    bool has_deadline;
    struct timespec deadline;   /* CLOCK_MONOTONIC */
    double timeout_s;           /* for messages */
    uint64_t work_left;         /* work units until the clock is read again */
    FILE *check_log;
    uint32_t max_mismatches;
    uint32_t checks_run, checks_failed;
    uint32_t depth;             /* current call depth */
    const ir_op *loop;          /* innermost while running, for timeout messages */
    uint64_t loop_iter;         /* its iterations completed */
    uint32_t n_values;          /* module->next_value_id */
    plumb_tensor **env;         /* current frame */
    ref_plan **plans;
    uint32_t n_plans, cap_plans;
};

/* ---- errors, limits, time ------------------------------------------------ */

static bool vfail(ref_ctx *c, const ir_op *op, plumb_code code, const char *fmt, va_list ap)
{
    if (c->d->code != PLUMB_OK)
        return false;   /* keep the root cause */
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    plumb_loc none = {0, 0};
    c->d->file = c->m->filename;
    if (op) {
        char origin[700];   /* the front end's `loc(...)`, if any */
        ir_debug_loc_describe(origin, sizeof origin, &op->dloc);
        plumb_diag_set(c->d, code, op->loc, "%s: %s%s", plumb_op_name(op->code), msg, origin);
    } else
        plumb_diag_set(c->d, code, none, "%s", msg);
    return false;
}

bool ref_fail(ref_ctx *c, const ir_op *op, plumb_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, op, code, fmt, ap);
    va_end(ap);
    return false;
}

static bool deadline_passed(const ref_ctx *c)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec != c->deadline.tv_sec)
        return now.tv_sec > c->deadline.tv_sec;
    return now.tv_nsec >= c->deadline.tv_nsec;
}

bool ref_poll(ref_ctx *c, const ir_op *op)
{
    if (c->d->code != PLUMB_OK)
        return false;
    if (c->has_deadline && deadline_passed(c)) {
        if (c->loop && c->loop != op)
            return ref_fail(c, op, PLUMB_ERR_RUNTIME,
                            "timeout: the run exceeded its limit of %g s while executing this op, in iteration %llu of "
                            "the stablehlo.while at line %u",
                            c->timeout_s, (unsigned long long)c->loop_iter + 1, c->loop->loc.line);
        if (c->loop)
            return ref_fail(c, op, PLUMB_ERR_RUNTIME,
                            "timeout: the run exceeded its limit of %g s after %llu iterations of this loop",
                            c->timeout_s, (unsigned long long)c->loop_iter);
        return ref_fail(c, op, PLUMB_ERR_RUNTIME,
                        "timeout: the run exceeded its limit of %g s while executing this op",
                        c->timeout_s);
    }
    return true;
}

void ref_loop_set(ref_ctx *c, const ir_op *op, uint64_t iter, const ir_op **prev_op, uint64_t *prev_iter)
{
    if (prev_op) {
        *prev_op = c->loop;
        *prev_iter = c->loop_iter;
    }
    c->loop = op;
    c->loop_iter = iter;
}

/* Work units (about one element loaded or stored, or one op or region
 * entered) between two readings of the clock. The count is the run's, not a
 * kernel's: a reduce whose body runs another reduce charges both to it, so
 * nested regions cannot do unbounded work between two checks the way a
 * per-kernel counter that restarts on every entry could. 2^16 units are well
 * under a millisecond of interpretation. */
#define REF_POLL_UNITS ((uint64_t)1 << 16)

bool ref_work(ref_ctx *c, const ir_op *op, uint64_t units)
{
    if (units < c->work_left) {
        c->work_left -= units;
        return true;
    }
    c->work_left = REF_POLL_UNITS;
    return ref_poll(c, op);
}

uint64_t ref_max_bytes(const ref_ctx *c) { return c->max_bytes; }
FILE *ref_check_log(const ref_ctx *c) { return c->check_log; }
uint32_t ref_max_mismatches(const ref_ctx *c) { return c->max_mismatches; }
const ir_module *ref_module(const ref_ctx *c) { return c->m; }

void ref_count_check(ref_ctx *c, bool passed)
{
    c->checks_run++;
    if (!passed)
        c->checks_failed++;
}

static void type_str(char *out, size_t n, const ir_type *t)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(out, n, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
}

plumb_tensor *ref_tensor_new(ref_ctx *c, const ir_op *op, const ir_type *t)
{
    if (!ir_type_is_static(t)) {
        char ts[256];
        type_str(ts, sizeof ts, t);
        ref_fail(c, op, PLUMB_ERR_INVALID,
                 "internal error: asked to allocate %s, whose '?' dimension ir_shape_infer should have made concrete", ts);
        return NULL;
    }
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    uint64_t numel, nbytes;
    /* The limit is checked before anything is allocated. */
    if (!plumb_shape_size(t->dtype, t->rank, t->dims, c->max_bytes, &numel, &nbytes, &sd)) {
        ref_fail(c, op, sd.code ? sd.code : PLUMB_ERR_LIMIT, "%s", sd.msg);
        return NULL;
    }
    plumb_tensor *r = plumb_tensor_new(t->dtype, t->rank, t->dims, c->max_bytes, &sd);
    if (!r) {
        char ts[256];
        type_str(ts, sizeof ts, t);
        ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory allocating %s (%llu bytes)%s%s", ts,
                 (unsigned long long)nbytes, sd.msg[0] ? ": " : "", sd.msg);
        return NULL;
    }
    return r;
}

/* ---- lifetimes ------------------------------------------------------------- */

static void plan_free(ref_plan *p)
{
    if (!p)
        return;
    plumb_free(p->free_at, ((size_t)p->n_ops + 1) * sizeof *p->free_at);
    plumb_free(p->ids, (size_t)p->n_ids * sizeof *p->ids);
    plumb_free(p, sizeof *p);
}

/* Marks every value used by op or by any op nested in its regions as last
 * used at index i (only values tracked in last[], i.e. defined in the block
 * being planned). */
static void mark_uses(const ir_op *op, uint32_t i, uint32_t *last)
{
    for (uint32_t k = 0; k < op->n_operands; k++) {
        uint32_t id = op->operands[k]->id;
        if (last[id] != UINT32_MAX)
            last[id] = i;
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            mark_uses(o, i, last);
}

static ref_plan *plan_build(ref_ctx *c, const ir_block *b)
{
    size_t nv = c->n_values ? c->n_values : 1;
    uint32_t *last = plumb_malloc(nv * sizeof *last);
    ref_plan *p = plumb_calloc(1, sizeof *p);
    if (!last || !p)
        goto nomem;
    p->block = b;
    p->n_ops = b->n_ops;
    memset(last, 0xff, nv * sizeof *last);
    uint32_t i = 0;
    for (const ir_op *op = b->first; op; op = op->next, i++)
        for (uint32_t k = 0; k < op->n_results; k++) {
            last[op->results[k]->id] = i;   /* an unused result dies at once */
            p->n_ids++;
        }
    i = 0;
    for (const ir_op *op = b->first; op; op = op->next, i++)
        mark_uses(op, i, last);
    p->free_at = plumb_calloc((size_t)p->n_ops + 1, sizeof *p->free_at);
    if (!p->free_at || (p->n_ids && !(p->ids = plumb_malloc((size_t)p->n_ids * sizeof *p->ids))))
        goto nomem;
    /* Counting sort of the defined values by the op after which they die. */
    for (const ir_op *op = b->first; op; op = op->next)
        for (uint32_t k = 0; k < op->n_results; k++)
            p->free_at[last[op->results[k]->id] + 1]++;
    for (uint32_t j = 0; j < p->n_ops; j++)
        p->free_at[j + 1] += p->free_at[j];
    uint32_t *fill = plumb_calloc(p->n_ops ? p->n_ops : 1, sizeof *fill);
    if (!fill)
        goto nomem;
    for (const ir_op *op = b->first; op; op = op->next)
        for (uint32_t k = 0; k < op->n_results; k++) {
            uint32_t at = last[op->results[k]->id];
            p->ids[p->free_at[at] + fill[at]++] = op->results[k]->id;
        }
    plumb_free(fill, (p->n_ops ? p->n_ops : 1) * sizeof *fill);
    plumb_free(last, nv * sizeof *last);
    return p;
nomem:
    plumb_free(last, nv * sizeof *last);
    plan_free(p);
    ref_fail(c, NULL, PLUMB_ERR_NOMEM, "out of memory planning the lifetimes of a block");
    return NULL;
}

static ref_plan *plan_get(ref_ctx *c, const ir_block *b)
{
    for (uint32_t i = 0; i < c->n_plans; i++)
        if (c->plans[i]->block == b)
            return c->plans[i];
    if (c->n_plans == c->cap_plans) {
        uint32_t ncap = c->cap_plans ? c->cap_plans * 2 : 8;
        ref_plan **np = plumb_realloc(c->plans, c->cap_plans * sizeof *np, ncap * sizeof *np);
        if (!np) {
            ref_fail(c, NULL, PLUMB_ERR_NOMEM, "out of memory planning the lifetimes of a block");
            return NULL;
        }
        c->plans = np;
        c->cap_plans = ncap;
    }
    ref_plan *p = plan_build(c, b);
    if (p)
        c->plans[c->n_plans++] = p;
    return p;
}

/* ---- executing ops ----------------------------------------------------------- */

static void env_drop(ref_ctx *c, uint32_t id)
{
    plumb_tensor_free(c->env[id]);
    c->env[id] = NULL;
}

static bool exec_op(ref_ctx *c, const ir_op *op);

/* if and case whose results have a `?`: the results are the tensors the
 * branch taken returns (StableHLO "if"/"case": "results = the results of
 * the executed branch"), whatever their size, as a call's are its
 * callee's; no rule can size them before the branch runs when the branch
 * computes them from `?` values. Each is checked against the declared
 * result type (ir_shape_check_result: element type, rank, static dims,
 * bounds). A value made inside the branch is moved out; a captured one, or
 * one returned twice, is copied. */
static bool run_branch_dynamic(ref_ctx *c, const ir_op *op, const plumb_tensor *sel)
{
    if (!sel->data || plumb_tensor_numel(sel) != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "its selector has no single value");
    uint32_t r = ir_branch_select(op, sel->data);
    if (r >= op->n_regions)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "branch %u of %u does not exist", r, op->n_regions);
    const ir_block *region = &op->regions[r];
    if (!ref_work(c, op, 1))
        return false;
    const ir_op *o = region->first;
    for (; o; o = o->next) {
        if (o->code == PLUMB_OP_RETURN || o->code == PLUMB_OP_FUNC_RETURN)
            break;
        if (!exec_op(c, o))
            return false;
    }
    if (!o || o->n_operands != op->n_results)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "branch %u does not return its %u results", r,
                        op->n_results);
    for (uint32_t i = 0; i < o->n_operands; i++) {
        const ir_value *v = o->operands[i];
        plumb_tensor *src = c->env[v->id];
        if (!src)
            return ref_fail(c, o, PLUMB_ERR_INVALID, "returned value %u has no value", i);
        bool inner = v->def && v->def->parent == region;
        for (uint32_t j = i + 1; j < o->n_operands; j++)
            if (o->operands[j]->id == v->id)
                inner = false;   /* returned again later: keep it for that */
        plumb_tensor *t = src;
        if (inner) {
            c->env[v->id] = NULL;
        } else {
            plumb_diag sd;
            memset(&sd, 0, sizeof sd);
            if (!(t = plumb_tensor_clone(src, &sd)))
                return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory copying returned value %u", i);
        }
        c->env[op->results[i]->id] = t;
        plumb_diag sd;
        memset(&sd, 0, sizeof sd);
        if (!ir_shape_check_result(op, i, t, &sd)) {
            if (c->d->code == PLUMB_OK) {
                *c->d = sd;
                c->d->file = c->m->filename;
            }
            return false;
        }
    }
    return true;
}

/* No `?` in any operand or result type. */
static bool op_types_static(const ir_op *op)
{
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_type *t = &op->operands[i]->type;
        for (uint32_t k = 0; k < t->rank; k++)
            if (t->dims[k] == PLUMB_DIM_DYN)
                return false;
    }
    for (uint32_t j = 0; j < op->n_results; j++) {
        const ir_type *t = &op->results[j]->type;
        for (uint32_t k = 0; k < t->rank; k++)
            if (t->dims[k] == PLUMB_DIM_DYN)
                return false;
    }
    return true;
}

static bool same_dims(const plumb_tensor *t, const ir_type *ty)
{
    if (t->dtype != ty->dtype || t->rank != ty->rank)
        return false;
    for (uint32_t i = 0; i < t->rank; i++)
        if (t->dims[i] != ty->dims[i])
            return false;
    return true;
}

/* Runs one non-terminator op in the current frame: gathers operands,
 * provides result tensors, calls the kernel. Result tensors already in the
 * environment (values of a region evaluated before) are zeroed and reused. */
static bool exec_op(ref_ctx *c, const ir_op *op)
{
    plumb_tensor *in_small[REF_SMALL_ARGS], *out_small[REF_SMALL_ARGS];
    plumb_tensor **in = in_small, **out = out_small;
    ir_type types_small[REF_SMALL_ARGS], *types = types_small;
    bool ok = false;
    if (op->n_operands > REF_SMALL_ARGS &&
        !(in = plumb_calloc(op->n_operands, sizeof *in))) {
        in = NULL;
        ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory gathering %u operands", op->n_operands);
        goto done;
    }
    if (op->n_results > REF_SMALL_ARGS &&
        !(out = plumb_calloc(op->n_results, sizeof *out))) {
        out = NULL;
        ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory gathering %u results", op->n_results);
        goto done;
    }
    /* Every op is charged for entering it and for each element it reads
     * and writes (the work of all but dot and top_k, which charge the rest
     * themselves; region bodies charge their own ops as they run). */
    uint64_t units = 1;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        in[i] = c->env[op->operands[i]->id];
        if (!in[i]) {
            ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u (%%%s) has no value at this point", i,
                     op->operands[i]->name ? op->operands[i]->name : "?");
            goto done;
        }
        units += plumb_tensor_numel(in[i]);
    }
    if (op->code == PLUMB_OP_CALL) {
        const ir_func *f = op->a.callee ? ir_module_find_func(c->m, op->a.callee) : NULL;
        if (!f) {
            ref_fail(c, op, PLUMB_ERR_INVALID, "no function @%s in the module",
                     op->a.callee ? op->a.callee : "?");
            goto done;
        }
        for (uint32_t i = 0; i < op->n_results; i++)
            env_drop(c, op->results[i]->id);   /* a region's earlier value */
        if (!ref_work(c, op, units) || !ref_call(c, op, f, in, out))
            goto done;
        for (uint32_t i = 0; i < op->n_results; i++)
            c->env[op->results[i]->id] = out[i];
        ok = true;
        goto done;
    }
    if ((op->code == PLUMB_OP_IF || op->code == PLUMB_OP_CASE) && !op_types_static(op)) {
        for (uint32_t i = 0; i < op->n_results; i++)
            env_drop(c, op->results[i]->id);   /* a region's earlier value */
        if (!ref_work(c, op, units) || !run_branch_dynamic(c, op, in[0]))
            goto done;
        ok = true;
        goto done;
    }
    /* Result shapes come from the operands' actual shapes (and, for the
     * dynamic ops, the values of their shape operands), not from the
     * declared types, which may hold `?` (ir_shape_infer; an all-static op
     * gets its declared types back at no cost). */
    if (op->n_results > REF_SMALL_ARGS &&
        !(types = plumb_calloc(op->n_results, sizeof *types))) {
        types = NULL;
        ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory gathering %u result types", op->n_results);
        goto done;
    }
    /* The common case, every type static (all region bodies, every static
     * program), takes the declared types as they are: this runs once per
     * element of a sort or reduce, where copying types would dominate. */
    bool is_static = op_types_static(op);
    if (!is_static) {
        plumb_diag sd;
        memset(&sd, 0, sizeof sd);
        if (!ir_shape_infer(op, (const plumb_tensor *const *)in, types, c->max_bytes, &sd)) {
            if (c->d->code == PLUMB_OK) {
                *c->d = sd;
                c->d->file = c->m->filename;
            }
            goto done;
        }
    }
    for (uint32_t i = 0; i < op->n_results; i++) {
        uint32_t id = op->results[i]->id;
        const ir_type *want = is_static ? &op->results[i]->type : &types[i];
        plumb_tensor *t = c->env[id];
        if (t && !is_static && !same_dims(t, want))
            env_drop(c, id);   /* a region's earlier value of another size */
        t = c->env[id];
        if (t) {
            if (t->nbytes)
                memset(t->data, 0, t->nbytes);
        } else if (!(t = c->env[id] = ref_tensor_new(c, op, want))) {
            goto done;
        }
        out[i] = t;
        units += plumb_tensor_numel(t);
    }
    if (!ref_work(c, op, units))
        goto done;
    /* complex arithmetic has its own kernels (ref/complex.c) */
    ok = ir_complex_kernel(op) ? ref_complex_run(c, op, in, out)
       : ref_lowp_owns(op)     ? ref_lowp_run(c, op, in, out)   /* ref/lowp.c */
       : ref_kernels[op->code](c, op, in, out);
    if (!ok && c->d->code == PLUMB_OK)
        ref_fail(c, op, PLUMB_ERR_RUNTIME, "the kernel failed without saying why");
done:
    if (in != in_small && in)
        plumb_free(in, op->n_operands * sizeof *in);
    if (out != out_small && out)
        plumb_free(out, op->n_results * sizeof *out);
    if (types != types_small && types)
        plumb_free(types, op->n_results * sizeof *types);
    return ok;
}

bool ref_eval_region(ref_ctx *c, const ir_block *region,
                     plumb_tensor *const *args, plumb_tensor *const *results)
{
    /* An evaluation with no ops (a body that returns an argument) still
     * costs a unit: a loop of them is work the deadline must see. */
    if (!ref_work(c, region->parent, 1))
        return false;
    for (uint32_t i = 0; i < region->n_args; i++)
        c->env[region->args[i]->id] = (plumb_tensor *)args[i];
    bool ok = true;
    const ir_op *op = region->first;
    for (; op; op = op->next) {
        if (op->code == PLUMB_OP_RETURN || op->code == PLUMB_OP_FUNC_RETURN)
            break;
        if (!(ok = exec_op(c, op)))
            break;
    }
    if (ok && !op)
        ok = ref_fail(c, region->parent, PLUMB_ERR_INVALID, "region has no return");
    if (ok) {
        for (uint32_t i = 0; i < op->n_operands; i++) {
            const plumb_tensor *src = c->env[op->operands[i]->id];
            /* the shape too, not only the size: a `?` body value whose
             * caller's shape came from a run-time rule (scan's output
             * slice) may hold as many elements in another shape */
            if (!src || src->nbytes != results[i]->nbytes || src->dtype != results[i]->dtype ||
                src->rank != results[i]->rank ||
                (src->rank && memcmp(src->dims, results[i]->dims, src->rank * sizeof src->dims[0]))) {
                ok = ref_fail(c, op, PLUMB_ERR_INVALID,
                              "returned value %u does not match the type its caller expects", i);
                break;
            }
            if (src->nbytes)
                memcpy(results[i]->data, src->data, src->nbytes);
        }
    }
    for (uint32_t i = 0; i < region->n_args; i++)
        c->env[region->args[i]->id] = NULL;
    return ok;
}

/* Clears a frame: parameters are the caller's, everything else is owned. */
static void frame_clear(ref_ctx *c, const ir_func *f)
{
    for (uint32_t i = 0; i < f->body.n_args; i++)
        c->env[f->body.args[i]->id] = NULL;
    for (uint32_t i = 0; i < c->n_values; i++)
        if (c->env[i])
            env_drop(c, i);
}

bool ref_call(ref_ctx *c, const ir_op *site, const ir_func *f,
              plumb_tensor *const *inputs, plumb_tensor **results)
{
    if (c->depth >= REF_MAX_CALL_DEPTH)
        return ref_fail(c, site, PLUMB_ERR_LIMIT,
                        "calls nest deeper than %d (calling @%s); is the program recursive?",
                        REF_MAX_CALL_DEPTH, f->name);
    ref_plan *plan = plan_get(c, &f->body);
    if (!plan)
        return false;
    size_t nv = c->n_values ? c->n_values : 1;
    plumb_tensor **env = plumb_calloc(nv, sizeof *env);
    if (!env)
        return ref_fail(c, site, PLUMB_ERR_NOMEM, "out of memory entering @%s", f->name);
    for (uint32_t i = 0; i < f->n_results; i++)
        results[i] = NULL;
    plumb_tensor **saved = c->env;
    c->env = env;
    c->depth++;
    for (uint32_t i = 0; i < f->body.n_args; i++)
        env[f->body.args[i]->id] = (plumb_tensor *)inputs[i];

    bool ok = true;
    uint32_t idx = 0;
    const ir_op *op = f->body.first;
    for (; op; op = op->next, idx++) {
        if (op->code == PLUMB_OP_FUNC_RETURN || op->code == PLUMB_OP_RETURN)
            break;
        if (!(ok = ref_poll(c, op)) || !(ok = exec_op(c, op)))
            break;
        for (uint32_t k = plan->free_at[idx]; k < plan->free_at[idx + 1]; k++)
            env_drop(c, plan->ids[k]);
    }
    if (ok && !op)
        ok = ref_fail(c, site, PLUMB_ERR_INVALID, "function @%s has no return", f->name);
    if (ok && op->n_operands != f->n_results)
        ok = ref_fail(c, op, PLUMB_ERR_INVALID, "returns %u values but @%s declares %u",
                      op->n_operands, f->name, f->n_results);
    for (uint32_t i = 0; ok && i < op->n_operands; i++) {
        const ir_value *v = op->operands[i];
        const plumb_tensor *src = env[v->id];
        for (uint32_t j = 0; j < i; j++)
            if (op->operands[j]->id == v->id)
                src = results[j];   /* returned twice: moved out at j */
        plumb_diag sd;
        memset(&sd, 0, sizeof sd);
        if (!src) {
            ok = ref_fail(c, op, PLUMB_ERR_INVALID, "returned value %u has no value", i);
        } else if (v->def == NULL || src != env[v->id]) {
            /* A parameter (owned by the caller) or a value returned twice. */
            if (!(results[i] = plumb_tensor_clone(src, &sd)))
                ok = ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory copying returned value %u", i);
        } else {
            results[i] = env[v->id];
            env[v->id] = NULL;
        }
    }
    frame_clear(c, f);
    c->depth--;
    c->env = saved;
    plumb_free(env, nv * sizeof *env);
    if (!ok) {
        for (uint32_t i = 0; i < f->n_results; i++) {
            plumb_tensor_free(results[i]);
            results[i] = NULL;
        }
    }
    return ok;
}

/* ---- structure kernels --------------------------------------------------------- */

/* func.call as a kernel: the interpreter runs calls itself (exec_op hands
 * the callee's results over without a copy); this path serves callers that
 * dispatch through the kernel table and copies into the provided results.
 * Semantics: runs the callee on the operands; results are its returns. */
bool ref_op_CALL(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const ir_func *f = op->a.callee ? ir_module_find_func(c->m, op->a.callee) : NULL;
    if (!f)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "no function @%s in the module",
                        op->a.callee ? op->a.callee : "?");
    plumb_tensor *small[REF_SMALL_ARGS];
    plumb_tensor **res = small;
    if (f->n_results > REF_SMALL_ARGS && !(res = plumb_calloc(f->n_results, sizeof *res)))
        return ref_fail(c, op, PLUMB_ERR_NOMEM, "out of memory calling @%s", f->name);
    bool called = ref_call(c, op, f, in, res), ok = called;
    for (uint32_t i = 0; ok && i < op->n_results && i < f->n_results; i++) {
        if (res[i]->nbytes != out[i]->nbytes)
            ok = ref_fail(c, op, PLUMB_ERR_INVALID, "result %u of @%s has the wrong size", i, f->name);
        else if (res[i]->nbytes)
            memcpy(out[i]->data, res[i]->data, res[i]->nbytes);
    }
    for (uint32_t i = 0; called && i < f->n_results; i++)
        plumb_tensor_free(res[i]);
    if (res != small)
        plumb_free(res, f->n_results * sizeof *res);
    return ok;
}

/* func.return and stablehlo.return end a block; the interpreter reads their
 * operands as the block's results (ref_call, ref_eval_region) and never
 * dispatches them. Run as kernels they have no results and nothing to do. */
bool ref_op_FUNC_RETURN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c, (void)op, (void)in, (void)out;
    return true;
}

bool ref_op_RETURN(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)c, (void)op, (void)in, (void)out;
    return true;
}

/* ---- folding one op (refinement) ------------------------------------------------ */

bool ref_fold_op(const ir_module *m, const ir_op *op, plumb_tensor *const *in, plumb_tensor **out,
                 uint64_t max_bytes, plumb_diag *d)
{
    for (uint32_t j = 0; j < op->n_results; j++)
        out[j] = NULL;
    if (op->code == PLUMB_OP_CALL || op->code == PLUMB_OP_FUNC_RETURN || op->code == PLUMB_OP_RETURN) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, op->loc, "%s: not foldable on its own", plumb_op_name(op->code));
        return false;
    }
    ref_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.d = d;
    c.max_bytes = max_bytes ? max_bytes : ir_max_bytes(0);
    c.check_log = stderr;
    c.max_mismatches = 5;
    c.n_values = m->next_value_id;
    size_t nv = c.n_values ? c.n_values : 1;
    if (!(c.env = plumb_calloc(nv, sizeof *c.env))) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, op->loc, "%s: out of memory folding the op", plumb_op_name(op->code));
        return false;
    }
    for (uint32_t i = 0; i < op->n_operands; i++)
        c.env[op->operands[i]->id] = in[i];
    bool ok = exec_op(&c, op);
    /* The operands are the caller's; the results move out; anything left
     * (values of the op's regions) is freed. */
    for (uint32_t i = 0; i < op->n_operands; i++)
        c.env[op->operands[i]->id] = NULL;
    for (uint32_t j = 0; j < op->n_results; j++) {
        if (ok)
            out[j] = c.env[op->results[j]->id];
        c.env[op->results[j]->id] = ok ? NULL : c.env[op->results[j]->id];
    }
    for (uint32_t i = 0; i < c.n_values; i++)
        if (c.env[i])
            env_drop(&c, i);
    for (uint32_t i = 0; i < c.n_plans; i++)
        plan_free(c.plans[i]);
    plumb_free(c.plans, c.cap_plans * sizeof *c.plans);
    plumb_free(c.env, nv * sizeof *c.env);
    return ok;
}

/* ---- public entry ------------------------------------------------------------- */

static void run_fail(plumb_diag *d, const ir_module *m, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run_fail(plumb_diag *d, const ir_module *m, plumb_code code, const char *fmt, ...)
{
    if (d->code != PLUMB_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    plumb_loc none = {0, 0};
    d->file = m->filename;
    plumb_diag_vset(d, code, none, fmt, ap);
    va_end(ap);
}

/* Inputs are checked against the parameter types by the one rule every
 * executor shares (ir_shape_check_args): `?` dims take any size within
 * their bound. */
static bool check_inputs(const ir_module *m, const ir_func *f, plumb_tensor *const *inputs,
                         uint32_t n_inputs, plumb_diag *d)
{
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (ir_shape_check_args(f, (const plumb_tensor *const *)inputs, n_inputs, &sd))
        return true;
    /* Name the input by position and both types, then the precise rule. */
    for (uint32_t i = 0; i < n_inputs && i < f->body.n_args; i++) {
        plumb_diag one;
        memset(&one, 0, sizeof one);
        if (!inputs[i] || ir_shape_check_args_one(f, i, inputs[i], &one))
            continue;
        char want[256], got[256];
        type_str(want, sizeof want, &f->body.args[i]->type);
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_tensor_type_print(&b, inputs[i]);
        snprintf(got, sizeof got, "%s", b.data && !b.failed ? b.data : "tensor<?>");
        plumb_buf_free(&b);
        /* one.msg starts "@f parameter i (%name)": said once already */
        const char *why = one.msg;
        char head[300];
        const ir_value *p = f->body.args[i];
        snprintf(head, sizeof head, "@%s parameter %u%s%s%s", f->name, i, p->name ? " (%" : "",
                 p->name ? p->name : "", p->name ? ")" : "");
        size_t hl = strlen(head);
        if (!strncmp(why, head, hl)) {
            why += hl;
            while (*why == ':' || *why == ' ')
                why++;
        }
        run_fail(d, m, one.code, "input %u has type %s but parameter %u%s%s%s of @%s has type %s (%s)", i, got,
                 i, p->name ? " (%" : "", p->name ? p->name : "", p->name ? ")" : "", f->name, want, why);
        return false;
    }
    run_fail(d, m, sd.code, "%s", sd.msg);
    return false;
}

bool plumb_ref_run(const ir_module *m, const char *entry,
                   plumb_tensor *const *inputs, uint32_t n_inputs,
                   const plumb_ref_options *opts, plumb_ref_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    /* A tuple is its elements (ref/tuple.c): run the copy of m in which
     * every tuple-typed value is its leaf tensors; inputs and results are
     * the leaves of tuple parameters and results. */
    if (ir_module_has_tuples(m)) {
        ir_module *flat = ir_tuple_flatten(m, d);
        if (!flat)
            return false;
        bool ran = plumb_ref_run(flat, entry, inputs, n_inputs, opts, res, d);
        ir_module_free(flat);
        return ran;
    }
    const char *name = entry ? entry : "main";
    const ir_func *f = ir_module_find_func(m, name);
    if (!f) {
        run_fail(d, m, PLUMB_ERR_USAGE, "the module has no function @%s", name);
        return false;
    }
    if (!check_inputs(m, f, inputs, n_inputs, d))
        return false;

    ref_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.d = d;
    uint64_t want_bytes = opts && opts->struct_size >= sizeof *opts ? opts->max_bytes : 0;
    c.max_bytes = want_bytes ? want_bytes : ir_max_bytes(0);
    c.check_log = opts && opts->check_log ? opts->check_log : stderr;
    c.max_mismatches = opts && opts->max_mismatches ? opts->max_mismatches : 5;
    c.n_values = m->next_value_id;
    /* Past 1e9 s no run can end in time: no deadline (and no overflow). */
    if (opts && opts->timeout_s > 0 && opts->timeout_s < 1e9) {
        c.has_deadline = true;
        c.timeout_s = opts->timeout_s;
        clock_gettime(CLOCK_MONOTONIC, &c.deadline);
        time_t whole = (time_t)opts->timeout_s;
        c.deadline.tv_sec += whole;
        c.deadline.tv_nsec += (long)((opts->timeout_s - (double)whole) * 1e9);
        if (c.deadline.tv_nsec >= 1000000000L) {
            c.deadline.tv_sec++;
            c.deadline.tv_nsec -= 1000000000L;
        }
    }

    bool ok = true;
    plumb_tensor **outs = NULL;
    if (f->n_results && !(outs = plumb_calloc(f->n_results, sizeof *outs))) {
        run_fail(d, m, PLUMB_ERR_NOMEM, "out of memory preparing the results of @%s", f->name);
        ok = false;
    }
    if (ok)
        ok = ref_call(&c, NULL, f, inputs, outs);
    for (uint32_t i = 0; i < c.n_plans; i++)
        plan_free(c.plans[i]);
    plumb_free(c.plans, c.cap_plans * sizeof *c.plans);
    res->checks_run = c.checks_run;
    res->checks_failed = c.checks_failed;
    if (!ok) {
        plumb_free(outs, f->n_results * sizeof *outs);
        return false;
    }
    res->outputs = outs;
    res->n_outputs = f->n_results;
    return true;
}

void plumb_ref_result_free(plumb_ref_result *res)
{
    if (!res)
        return;
    for (uint32_t i = 0; i < res->n_outputs; i++)
        plumb_tensor_free(res->outputs[i]);
    plumb_free(res->outputs, res->n_outputs * sizeof *res->outputs);
    memset(res, 0, sizeof *res);
}
