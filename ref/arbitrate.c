/* Arbitration of a check's expected value (docs/spec/checks.md
 * "Arbitration"): the exact result of the dot or sum whose value a check
 * compares, and that op's data-dependent error bound, both computed by the
 * reference. Shared by both backends' check kernels through
 * plumb_check_arb_compute (include/plumb/checkcmp.h).
 *
 * The producer's operands are gone by the time the check runs (the
 * reference frees every value after its last use, the runtime reuses its
 * buffers), so they are recomputed here from the module: every op of their
 * cone is run by the reference on its own (ref_fold_op), a func.call by
 * evaluating the callee's returned value with its parameters bound to the
 * call's operands. A cone that reaches a parameter of the function being
 * run is not arbitrated: its values are not known here. */
#include <math.h>
#include <string.h>

#include "plumb/checkcmp.h"
#include "ref_internal.h"

/* The most terms (products of a dot, elements of a sum) that a check's
 * arbitration recomputes: the reference's exact dot costs some ten
 * nanoseconds a product, twice (the result and the sum of magnitudes), so
 * this keeps a failing check of a large matmul on the runtime from
 * spending minutes in the reference; beyond it the check fails as written
 * and says why. */
#define ARB_MAX_TERMS (1ull << 28)

/* A chain of calls deeper than this, or an operand cone nested deeper, is
 * not followed (the recursion below uses the C stack). */
#define ARB_MAX_DEPTH 2000u

typedef struct arb_frame {
    const ir_block *body;          /* the callee's body, or NULL at the top */
    plumb_tensor *const *args;     /* its parameters' values (the caller's) */
    plumb_tensor **vals;           /* computed values by id, owned */
} arb_frame;

typedef struct arb_state {
    const ir_module *m;
    uint64_t max_bytes;
    uint32_t depth;
    uint64_t work;                 /* terms and elements recomputed so far */
    char *why;
    size_t why_size;
} arb_state;

static const plumb_tensor *eval(arb_state *s, arb_frame *f, const ir_value *v);
static uint64_t static_terms(const ir_op *p);

/* Charges op's recomputation to s: a dot's or sum's terms, every other
 * op's result elements (static types; a '?' dimension counts 0). False,
 * with the reason, once the total passes ARB_MAX_TERMS, so that a failing
 * check at the end of a whole model does not rerun the model on the
 * reference. */
static bool charge(arb_state *s, const ir_op *op)
{
    uint64_t w = 0;
    if ((op->code == PLUMB_OP_DOT_GENERAL || op->code == PLUMB_OP_DOT || op->code == PLUMB_OP_REDUCE ||
         op->code == PLUMB_OP_REDUCE_WINDOW) && op->n_operands >= 1 && op->n_results >= 1)
        w = static_terms(op);
    for (uint32_t j = 0; j < op->n_results; j++) {
        const ir_type *t = &op->results[j]->type;
        uint64_t n = 1;
        for (uint32_t i = 0; i < t->rank && ir_type_is_static(t); i++)
            n = n > UINT64_MAX / ((uint64_t)t->dims[i] + 1) ? UINT64_MAX : n * (uint64_t)t->dims[i];
        w = w > UINT64_MAX - n ? UINT64_MAX : w + n;
    }
    s->work = s->work > UINT64_MAX - w ? UINT64_MAX : s->work + w;
    if (s->work <= ARB_MAX_TERMS)
        return true;
    snprintf(s->why, s->why_size, "recomputing its operands (up to %s at %u:%u) takes more than the %llu terms "
             "recomputed for arbitration", plumb_op_name(op->code), op->loc.line, op->loc.col,
             (unsigned long long)ARB_MAX_TERMS);
    return false;
}

static bool frame_init(arb_state *s, arb_frame *f, const ir_block *body, plumb_tensor *const *args)
{
    size_t nv = s->m->next_value_id ? s->m->next_value_id : 1;
    f->body = body;
    f->args = args;
    f->vals = plumb_calloc(nv, sizeof *f->vals);
    if (!f->vals)
        snprintf(s->why, s->why_size, "out of memory recomputing the operands");
    return f->vals != NULL;
}

static void frame_free(arb_state *s, arb_frame *f)
{
    size_t nv = s->m->next_value_id ? s->m->next_value_id : 1;
    if (!f->vals)
        return;
    for (size_t i = 0; i < nv; i++)
        plumb_tensor_free(f->vals[i]);
    plumb_free(f->vals, nv * sizeof *f->vals);
    f->vals = NULL;
}

/* Whether block b is region r or lies inside it. */
static bool block_within(const ir_block *b, const ir_block *r)
{
    while (b) {
        if (b == r)
            return true;
        b = b->parent ? b->parent->parent : NULL;
    }
    return false;
}

/* Whether every value used inside region r is defined inside it: such a
 * region (reduce and sort bodies, ...) runs on its operands alone, so
 * ref_fold_op can run its op. A region that captures an outer value
 * (StableHLO's if/while/case may) is not recomputed. */
static bool region_isolated(const ir_block *r, const ir_block *blk)
{
    for (const ir_op *o = blk->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++) {
            const ir_value *v = o->operands[i];
            const ir_block *home = v->def ? v->def->parent : v->owner;
            if (!block_within(home, r))
                return false;
        }
        for (uint32_t k = 0; k < o->n_regions; k++)
            if (!region_isolated(r, &o->regions[k]))
                return false;
    }
    return true;
}

/* A value of a func.call: the callee's returned value, computed in a new
 * frame whose parameters are the call's operands. */
static const plumb_tensor *eval_call(arb_state *s, arb_frame *f, const ir_value *v)
{
    const ir_op *op = v->def;
    const ir_func *callee = op->a.callee ? ir_module_find_func(s->m, op->a.callee) : NULL;
    if (!callee || !callee->body.last || callee->body.last->code != PLUMB_OP_FUNC_RETURN ||
        v->index >= callee->body.last->n_operands || callee->body.n_args != op->n_operands) {
        snprintf(s->why, s->why_size, "the callee of func.call at %u:%u cannot be followed", op->loc.line,
                 op->loc.col);
        return NULL;
    }
    plumb_tensor **args = NULL;
    const plumb_tensor *res = NULL;
    arb_frame sub = {0};
    if (op->n_operands && !(args = plumb_calloc(op->n_operands, sizeof *args))) {
        snprintf(s->why, s->why_size, "out of memory recomputing the operands");
        return NULL;
    }
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!(args[i] = (plumb_tensor *)eval(s, f, op->operands[i])))
            goto out_args;
    if (!frame_init(s, &sub, &callee->body, args))
        goto out_args;
    const ir_value *rv = callee->body.last->operands[v->index];
    const plumb_tensor *r = eval(s, &sub, rv);
    if (!r)
        goto out_frame;
    /* Take the value out of the callee's frame (or copy a parameter that
     * is returned as it came in), so that it outlives that frame. */
    plumb_tensor *own = NULL;
    if (rv->def && sub.vals[rv->id] == r) {
        own = sub.vals[rv->id];
        sub.vals[rv->id] = NULL;
    } else {
        plumb_diag d = {0};
        plumb_diag_clear(&d);
        own = plumb_tensor_clone(r, &d);
        if (!own)
            snprintf(s->why, s->why_size, "out of memory recomputing the operands");
    }
    if (own)
        res = f->vals[v->id] = own;
out_frame:
    frame_free(s, &sub);
out_args:
    plumb_free(args, op->n_operands * sizeof *args);
    return res;
}

/* The value of v in frame f, computed once per frame. */
static const plumb_tensor *eval(arb_state *s, arb_frame *f, const ir_value *v)
{
    if (f->vals[v->id])
        return f->vals[v->id];
    if (!v->def) {
        if (f->body && v->owner == f->body && f->args)
            return f->args[v->index];
        snprintf(s->why, s->why_size, "its operands depend on the parameter %%%s, whose value is not known "
                 "to the check", v->name ? v->name : "?");
        return NULL;
    }
    if (s->depth >= ARB_MAX_DEPTH) {
        snprintf(s->why, s->why_size, "its operands are computed by more than %u nested ops", ARB_MAX_DEPTH);
        return NULL;
    }
    const ir_op *op = v->def;
    const plumb_tensor *res = NULL;
    s->depth++;
    if (op->code == PLUMB_OP_CALL) {
        res = eval_call(s, f, v);
        goto out;
    }
    for (uint32_t k = 0; k < op->n_regions; k++)
        if (!region_isolated(&op->regions[k], &op->regions[k])) {
            snprintf(s->why, s->why_size, "%s at %u:%u uses values from outside its region",
                     plumb_op_name(op->code), op->loc.line, op->loc.col);
            goto out;
        }
    plumb_tensor **in = NULL, **outs = NULL;
    if ((op->n_operands && !(in = plumb_calloc(op->n_operands, sizeof *in))) ||
        (op->n_results && !(outs = plumb_calloc(op->n_results, sizeof *outs)))) {
        snprintf(s->why, s->why_size, "out of memory recomputing the operands");
        goto out_bufs;
    }
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!(in[i] = (plumb_tensor *)eval(s, f, op->operands[i])))
            goto out_bufs;
    if (!charge(s, op))
        goto out_bufs;
    plumb_diag d = {0};
    plumb_diag_clear(&d);
    if (!ref_fold_op(s->m, op, in, outs, s->max_bytes, &d)) {
        snprintf(s->why, s->why_size, "recomputing %s at %u:%u failed: %s", plumb_op_name(op->code),
                 op->loc.line, op->loc.col, d.msg);
        goto out_bufs;
    }
    for (uint32_t j = 0; j < op->n_results; j++)
        f->vals[op->results[j]->id] = outs[j];
    res = f->vals[v->id];
out_bufs:
    plumb_free(in, op->n_operands * sizeof *in);
    plumb_free(outs, op->n_results * sizeof *outs);
out:
    s->depth--;
    return res;
}

/* |x| element by element, in x's type: a float's sign bit cleared, a
 * signed integer negated (false for the one value whose magnitude its type
 * cannot hold). */
static plumb_tensor *abs_copy(const plumb_tensor *x, char *why, size_t why_size)
{
    plumb_diag d = {0};
    plumb_diag_clear(&d);
    plumb_tensor *a = plumb_tensor_clone(x, &d);
    if (!a) {
        snprintf(why, why_size, "out of memory computing the bound");
        return NULL;
    }
    const plumb_dtype_info *info = plumb_dtype_get(x->dtype);
    uint64_t n = plumb_tensor_numel(x);
    if (info->cls == PLUMB_DC_FLOAT) {
        uint64_t sign = 1ull << (info->bits - 1);
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(x->dtype, a->data, i, plumb_load_bits(x->dtype, x->data, i) & ~sign);
    } else if (info->cls == PLUMB_DC_SINT) {
        uint64_t mask = info->bits == 64 ? ~0ull : (1ull << info->bits) - 1, minv = 1ull << (info->bits - 1);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t b = plumb_load_bits(x->dtype, x->data, i) & mask;
            if (b == minv) {
                snprintf(why, why_size, "an operand holds its type's most negative integer");
                plumb_tensor_free(a);
                return NULL;
            }
            if (b & minv)
                plumb_store_bits(x->dtype, a->data, i, (~b + 1) & mask);
        }
    }
    return a;
}

/* The positions of a reduce_window's window (each a term of its sum: an
 * input element, or init where the window lies on padding or a dilation
 * hole). Saturates. */
static uint64_t window_size(const ir_op *p)
{
    uint64_t k = 1;
    for (uint32_t i = 0; i < p->a.window_dims.n; i++) {
        uint64_t d = p->a.window_dims.v[i] > 0 ? (uint64_t)p->a.window_dims.v[i] : 0;
        k = d && k > UINT64_MAX / d ? UINT64_MAX : k * d;
    }
    return k;
}

/* The reduced length (reduce), window size (reduce_window) or contracting
 * length (dot) k, and whether every product adds an underflow term (dots). */
static uint64_t rounded_ops(const ir_op *p, const plumb_tensor *const *in, const plumb_tensor *result, bool *is_dot)
{
    *is_dot = p->code != PLUMB_OP_REDUCE && p->code != PLUMB_OP_REDUCE_WINDOW;
    if (p->code == PLUMB_OP_REDUCE_WINDOW)
        return window_size(p);
    if (p->code == PLUMB_OP_REDUCE) {
        uint64_t n = plumb_tensor_numel(in[0]), r = plumb_tensor_numel(result);
        return r ? n / r : 0;
    }
    if (p->code == PLUMB_OP_DOT)
        return in[0]->rank ? (uint64_t)in[0]->dims[in[0]->rank - 1] : 1;
    uint64_t k = 1;
    for (uint32_t i = 0; i < p->a.lhs_contract.n; i++)
        k *= (uint64_t)in[0]->dims[p->a.lhs_contract.v[i]];
    return k;
}

/* The bound of docs/spec/reduction.md rule 1, with the backend's
 * accumulator taken to be the result type and rounded once more (c = 2):
 *   γ(k)·Σ|x| + 2·(u·|S| + η) + m·η·(1 + γ(k)),  γ(k) = k·u / (1 − k·u),
 * where Σ|x| and S are the reference's correctly rounded values (each
 * within a factor 1 + u of the exact one, hence the (1 + u) factors), and
 * m = k for dots, 0 for sums. u and η of the result type (2^-(p) and half
 * the smallest subnormal; f64 its smallest subnormal). */
static bool fill_bound(const ir_op *p, const plumb_tensor *const *in, const plumb_tensor *exact,
                       const plumb_tensor *mag, plumb_tensor *bound, double terms_per_product)
{
    const plumb_dtype_info *info = plumb_dtype_get(exact->dtype);
    double u = ldexp(1.0, -(int)(info->mant_bits + 1));
    int emin = 2 - (1 << (info->exp_bits - 1));
    double eta = ldexp(1.0, emin - (int)info->mant_bits - (exact->dtype == PLUMB_F64 ? 0 : 1));
    bool is_dot;
    double k = (double)rounded_ops(p, in, exact, &is_dot) * terms_per_product;
    if (k * u >= 0.5)
        return false;   /* the bound is vacuous: nothing to arbitrate with */
    double gamma = k * u / (1.0 - k * u);
    uint64_t n = plumb_tensor_numel(exact);
    for (uint64_t i = 0; i < n; i++) {
        double a = plumb_load_f64(exact->dtype, mag->data, i) * (1.0 + u);
        double s = fabs(plumb_load_f64(exact->dtype, exact->data, i)) * (1.0 + u);
        double b = gamma * a + 2.0 * (u * s + eta) + (is_dot ? k * eta * (1.0 + gamma) : 0.0);
        /* an infinite or NaN Σ|x| leaves an infinite or NaN bound, which
         * plumb_check_run_arb never accepts with */
        plumb_store_bits(PLUMB_F64, bound->data, i, plumb_f64_bits(b));
    }
    return true;
}

/* The number of terms of producer, from its static types: the result's
 * elements times the reduced or contracting length; 0 when a dimension is
 * not static (then counted on the recomputed operands). Saturates. */
static uint64_t static_terms(const ir_op *p)
{
    const ir_type *in = &p->operands[0]->type, *out = &p->results[0]->type;
    if (!ir_type_is_static(in) || !ir_type_is_static(out))
        return 0;
    uint64_t n_in = 1, n_out = 1, k = 1;
    for (uint32_t i = 0; i < in->rank; i++)
        n_in = n_in > UINT64_MAX / ((uint64_t)in->dims[i] + 1) ? UINT64_MAX : n_in * (uint64_t)in->dims[i];
    for (uint32_t i = 0; i < out->rank; i++)
        n_out = n_out > UINT64_MAX / ((uint64_t)out->dims[i] + 1) ? UINT64_MAX : n_out * (uint64_t)out->dims[i];
    if (p->code == PLUMB_OP_REDUCE)
        return n_in;
    if (p->code == PLUMB_OP_REDUCE_WINDOW)
        k = window_size(p);
    else if (p->code == PLUMB_OP_DOT)
        k = in->rank ? (uint64_t)in->dims[in->rank - 1] : 1;
    else
        for (uint32_t i = 0; i < p->a.lhs_contract.n; i++)
            k *= (uint64_t)in->dims[p->a.lhs_contract.v[i]];
    return k && n_out > UINT64_MAX / k ? UINT64_MAX : n_out * k;
}

/* The same count on the recomputed operands (a '?' dimension): a dot's
 * terms are its result's elements (batch x lhs free x rhs free) times k,
 * that is numel(lhs)·numel(rhs) / (k·batch). */
static uint64_t actual_terms(const ir_op *p, plumb_tensor *const *in)
{
    uint64_t a = plumb_tensor_numel(in[0]), b = plumb_tensor_numel(in[1]);
    if (p->code == PLUMB_OP_REDUCE)
        return a;
    if (p->code == PLUMB_OP_REDUCE_WINDOW) {
        /* at most one window per position of the padded, dilated input */
        uint64_t n = 1, k = window_size(p);
        for (uint32_t i = 0; i < in[0]->rank; i++) {
            int64_t d = in[0]->dims[i], bd = i < p->a.base_dilations.n ? p->a.base_dilations.v[i] : 1;
            int64_t lo = 2 * i + 1 < p->a.padding.n ? p->a.padding.v[2 * i] : 0;
            int64_t hi = 2 * i + 1 < p->a.padding.n ? p->a.padding.v[2 * i + 1] : 0;
            int64_t e = (d ? (d - 1) * bd + 1 : 0) + (lo > 0 ? lo : 0) + (hi > 0 ? hi : 0);
            uint64_t u = e > 0 ? (uint64_t)e : 0;
            n = u && n > UINT64_MAX / u ? UINT64_MAX : n * u;
        }
        return k && n > UINT64_MAX / k ? UINT64_MAX : n * k;
    }
    uint64_t k = 1, batch = 1;
    if (p->code == PLUMB_OP_DOT) {
        k = in[0]->rank ? (uint64_t)in[0]->dims[in[0]->rank - 1] : 1;
    } else {
        for (uint32_t i = 0; i < p->a.lhs_contract.n; i++)
            k *= (uint64_t)in[0]->dims[p->a.lhs_contract.v[i]];
        for (uint32_t i = 0; i < p->a.lhs_batch.n; i++)
            batch *= (uint64_t)in[0]->dims[p->a.lhs_batch.v[i]];
    }
    if (!a || !b || !k || !batch)
        return 0;
    uint64_t per = b / (k * batch);   /* rhs free elements */
    return per && a > UINT64_MAX / per ? UINT64_MAX : a * per;
}

/* The frames from the check's function down to the callee of
 * calls[n - 1]: frames[0] is the check's own (whose parameters are not
 * known), frames[i + 1] the callee of calls[i] with that call's operands,
 * recomputed in frames[i], as its parameters. Returns the innermost frame,
 * or NULL with the reason in s->why. frames holds n + 1, args n. */
static arb_frame *chain_open(arb_state *s, const ir_op *const *calls, uint32_t n, arb_frame *frames,
                             plumb_tensor ***args)
{
    if (!frame_init(s, &frames[0], NULL, NULL))
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const ir_op *c = calls[i];
        const ir_func *callee = c->a.callee ? ir_module_find_func(s->m, c->a.callee) : NULL;
        if (!callee || callee->body.n_args != c->n_operands) {
            snprintf(s->why, s->why_size, "the callee of func.call at %u:%u cannot be followed", c->loc.line,
                     c->loc.col);
            return NULL;
        }
        if (c->n_operands && !(args[i] = plumb_calloc(c->n_operands, sizeof *args[i]))) {
            snprintf(s->why, s->why_size, "out of memory recomputing the operands");
            return NULL;
        }
        for (uint32_t j = 0; j < c->n_operands; j++)
            if (!(args[i][j] = (plumb_tensor *)eval(s, &frames[i], c->operands[j])))
                return NULL;
        if (!frame_init(s, &frames[i + 1], &callee->body, args[i]))
            return NULL;
    }
    return &frames[n];
}

/* Frees what chain_open made, innermost first (args point into the outer
 * frames' values). */
static void chain_close(arb_state *s, const ir_op *const *calls, uint32_t n, arb_frame *frames, plumb_tensor ***args)
{
    for (uint32_t i = n + 1; i-- > 0;) {
        frame_free(s, &frames[i]);
        if (i < n && args[i])
            plumb_free(args[i], calls[i]->n_operands * sizeof *args[i]);
    }
}

/* ref_fold_op of producer on in into *out; on failure why says "computing
 * WHAT failed" with the reference's message. Every recomputation (the exact
 * result, the magnitude sums) goes through here. */
static bool arb_fold(const ir_module *m, const ir_op *producer, plumb_tensor *const *in, plumb_tensor **out,
                     uint64_t max_bytes, const char *what, char *why, size_t why_size)
{
    plumb_diag d = {0};
    plumb_diag_clear(&d);
    if (ref_fold_op(m, producer, in, out, max_bytes, &d))
        return true;
    snprintf(why, why_size, "computing %s failed: %s", what, d.msg);
    return false;
}

/* An f64 bound tensor of exact's shape in *bound (zeroed), or why says so. */
static bool arb_new_bound(const plumb_tensor *exact, uint64_t max_bytes, plumb_tensor **bound, char *why,
                          size_t why_size)
{
    plumb_diag d = {0};
    if ((*bound = plumb_tensor_new(PLUMB_F64, exact->rank, exact->dims, max_bytes, &d)))
        return true;
    snprintf(why, why_size, "out of memory computing the bound");
    return false;
}

/* The dots' bound from their magnitude sums mag (fill_bound), allocated
 * here; why says what failed. */
static bool arb_dot_bound(const ir_op *producer, plumb_tensor *const *in, const plumb_tensor *exact,
                          const plumb_tensor *mag, double terms_per_product, uint64_t max_bytes,
                          plumb_tensor **bound, char *why, size_t why_size)
{
    if (!arb_new_bound(exact, max_bytes, bound, why, why_size))
        return false;
    if (fill_bound(producer, (const plumb_tensor *const *)in, exact, mag, *bound, terms_per_product))
        return true;
    snprintf(why, why_size, "its length makes the error bound vacuous");
    return false;
}

/* A failed recomputation leaves no result behind. */
static void arb_drop(plumb_tensor **exact, plumb_tensor **bound)
{
    plumb_tensor_free(*exact);
    plumb_tensor_free(*bound);
    *exact = *bound = NULL;
}

/* An elementwise op of the ULP class (plumb_check_arb_producer): its
 * exact result is the reference's, which is correctly rounded
 * (docs/spec/elementwise.md), and its bound per element is the op's ULP
 * contract for the type (ir/ops.def) in units of the spacing of the
 * floats at the exact result: a backend within its contract is within it. */
static bool arb_compute_ew(const ir_module *m, const ir_op *const *calls, uint32_t n_calls, const ir_op *producer,
                           uint64_t max_bytes, plumb_tensor **exact, plumb_tensor **bound, char *why, size_t why_size)
{
    arb_state s = {.m = m, .max_bytes = max_bytes, .why = why, .why_size = why_size};
    arb_frame frames[PLUMB_CHECK_ARB_MAX_CALLS + 1] = {{0}}, *top;
    plumb_tensor **args[PLUMB_CHECK_ARB_MAX_CALLS] = {0};
    bool ok = false;
    plumb_tensor *in[3] = {NULL, NULL, NULL};
    const ir_type *rt = &producer->results[0]->type;
    uint64_t n_out = 1;
    if (ir_type_is_static(rt))
        for (uint32_t i = 0; i < rt->rank; i++)
            n_out = n_out > ARB_MAX_TERMS ? n_out : n_out * (uint64_t)rt->dims[i];
    if (n_out > ARB_MAX_TERMS) {
        snprintf(why, why_size, "it has more than %llu elements to recompute for arbitration",
                 (unsigned long long)ARB_MAX_TERMS);
        return false;
    }
    if (!(top = chain_open(&s, calls, n_calls, frames, args)))
        goto out;
    for (uint32_t i = 0; i < producer->n_operands; i++)
        if (!(in[i] = (plumb_tensor *)eval(&s, top, producer->operands[i])))
            goto out;
    if (!arb_fold(m, producer, in, exact, max_bytes, "the exact result", why, why_size) ||
        !arb_new_bound(*exact, max_bytes, bound, why, why_size))
        goto out;
    plumb_dtype t = (*exact)->dtype;
    double ulps = (double)plumb_op_ulp_bound(producer->code, t);
    uint64_t n = plumb_tensor_numel(*exact);
    for (uint64_t i = 0; i < n; i++) {
        /* the spacing above |exact|: the next float away from zero */
        uint64_t e = plumb_load_bits(t, (*exact)->data, i);
        unsigned char buf[16];
        plumb_store_bits(t, buf, 0, e);
        double a = fabs(plumb_load_f64(t, buf, 0));
        plumb_store_bits(t, buf, 1, e + 1);
        double next = fabs(plumb_load_f64(t, buf, 1));
        double b = ulps * fabs(next - a);   /* NaN or inf at the top: never accepted */
        plumb_store_bits(PLUMB_F64, (*bound)->data, i, plumb_f64_bits(b));
    }
    ok = true;
out:
    if (!ok)
        arb_drop(exact, bound);
    chain_close(&s, calls, n_calls, frames, args);   /* in[] belong to the frames */
    return ok;
}

/* A complex tensor's components with their signs cleared, the imaginary
 * parts then negated when neg_im: (|re|, -|im|). A dot of (|ar|, |ai|) with
 * (|br|, -|bi|) has the real part sum |ar||br| + |ai||bi|, the magnitude sum
 * of the real part's terms; with (|br|, |bi|) its imaginary part is that of
 * the imaginary part's terms. */
static plumb_tensor *cabs_copy(const plumb_tensor *x, bool neg_im, char *why, size_t why_size)
{
    plumb_diag d = {0};
    plumb_diag_clear(&d);
    plumb_tensor *a = plumb_tensor_clone(x, &d);
    if (!a) {
        snprintf(why, why_size, "out of memory computing the bound");
        return NULL;
    }
    plumb_dtype c = plumb_dtype_component(x->dtype);
    uint64_t n = 2 * plumb_tensor_numel(x), sign = 1ull << (plumb_dtype_get(c)->bits - 1);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = plumb_load_bits(c, a->data, i) & ~sign;
        plumb_store_bits(c, a->data, i, neg_im && (i & 1) ? b | sign : b);
    }
    return a;
}

/* A complex tensor viewed in place as its component type with a last
 * dimension of 2 (real, imaginary), as the checks compare it. */
static bool component_view(plumb_tensor *t)
{
    if (t->rank >= PLUMB_MAX_RANK)
        return false;
    t->dtype = plumb_dtype_component(t->dtype);
    t->dims[t->rank++] = 2;
    return true;
}

/* A complex dot_general or dot: the exact result (the reference's,
 * correctly rounded per component) and per component the bound of
 * fill_bound with 2k terms, Σ|x| over the real part's terms
 * (|ar||br| + |ai||bi|) or the imaginary part's (|ar||bi| + |ai||br|),
 * both in the component view the complex check compares. */
static bool arb_compute_complex_dot(const ir_module *m, const ir_op *producer, uint64_t max_bytes,
                                    plumb_tensor *const *in, plumb_tensor **exact, plumb_tensor **bound,
                                    char *why, size_t why_size)
{
    bool ok = false;
    plumb_tensor *a = NULL, *b = NULL, *bneg = NULL, *mre = NULL, *mim = NULL;
    if (!arb_fold(m, producer, in, exact, max_bytes, "the exact result", why, why_size))
        return false;
    if (!(a = cabs_copy(in[0], false, why, why_size)) || !(b = cabs_copy(in[1], false, why, why_size)) ||
        !(bneg = cabs_copy(in[1], true, why, why_size)))
        goto out;
    plumb_tensor *re_in[2] = {a, bneg}, *im_in[2] = {a, b};
    if (!arb_fold(m, producer, re_in, &mre, max_bytes, "the sum of magnitudes", why, why_size) ||
        !arb_fold(m, producer, im_in, &mim, max_bytes, "the sum of magnitudes", why, why_size))
        goto out;
    if (!component_view(*exact) || !component_view(mre) || !component_view(mim)) {
        snprintf(why, why_size, "its rank leaves no room for the component dimension");
        goto out;
    }
    /* the imaginary parts' magnitude sums into mre's odd positions */
    uint64_t n = plumb_tensor_numel(mre);
    for (uint64_t i = 1; i < n; i += 2)
        plumb_store_bits(mre->dtype, mre->data, i, plumb_load_bits(mim->dtype, mim->data, i));
    if (!arb_dot_bound(producer, in, *exact, mre, 2.0, max_bytes, bound, why, why_size))
        goto out;
    ok = true;
out:
    if (!ok)
        arb_drop(exact, bound);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(bneg);
    plumb_tensor_free(mre);
    plumb_tensor_free(mim);
    return ok;
}

bool plumb_check_arb_compute(const ir_module *m, const ir_op *producer, uint64_t max_bytes,
                             plumb_tensor **exact, plumb_tensor **bound, char *why, size_t why_size)
{
    return plumb_check_arb_compute_in(m, NULL, 0, producer, max_bytes, exact, bound, why, why_size);
}

bool plumb_check_arb_compute_in(const ir_module *m, const ir_op *const *calls, uint32_t n_calls,
                                const ir_op *producer, uint64_t max_bytes, plumb_tensor **exact,
                                plumb_tensor **bound, char *why, size_t why_size)
{
    *exact = *bound = NULL;
    if (n_calls > PLUMB_CHECK_ARB_MAX_CALLS) {
        snprintf(why, why_size, "it is returned through more than %u nested calls", PLUMB_CHECK_ARB_MAX_CALLS);
        return false;
    }
    if (plumb_op_get(producer->code)->kind == PLUMB_KIND_ELEMENTWISE)
        return arb_compute_ew(m, calls, n_calls, producer, max_bytes, exact, bound, why, why_size);
    arb_state s = {.m = m, .max_bytes = max_bytes, .why = why, .why_size = why_size};
    arb_frame frames[PLUMB_CHECK_ARB_MAX_CALLS + 1] = {{0}}, *top;
    plumb_tensor **args[PLUMB_CHECK_ARB_MAX_CALLS] = {0};
    bool ok = false;
    plumb_tensor *in[2] = {NULL, NULL}, *absin[2] = {NULL, NULL}, *mag = NULL;
    if (producer->n_operands != 2 || producer->n_results != 1) {
        snprintf(why, why_size, "%s has %u operands", plumb_op_name(producer->code), producer->n_operands);
        return false;
    }
    uint64_t terms = static_terms(producer);
    if (terms > ARB_MAX_TERMS) {
        snprintf(why, why_size, "it has %llu terms, more than the %llu recomputed for arbitration",
                 (unsigned long long)terms, (unsigned long long)ARB_MAX_TERMS);
        return false;
    }
    /* The cone is evaluated in the frame of the producer's own function,
     * a callee's parameters bound to its call's recomputed operands; the
     * check's own function's parameters are not known here (eval refuses
     * them). */
    if (!(top = chain_open(&s, calls, n_calls, frames, args)))
        goto out;
    for (uint32_t i = 0; i < 2; i++)
        if (!(in[i] = (plumb_tensor *)eval(&s, top, producer->operands[i])))
            goto out;
    if (!terms && (terms = actual_terms(producer, in)) > ARB_MAX_TERMS) {
        snprintf(why, why_size, "it has %llu terms, more than the %llu recomputed for arbitration",
                 (unsigned long long)terms, (unsigned long long)ARB_MAX_TERMS);
        goto out;
    }
    if (plumb_dtype_is_complex(producer->results[0]->type.dtype)) {
        ok = arb_compute_complex_dot(m, producer, max_bytes, in, exact, bound, why, why_size);
        goto out;
    }
    if (!arb_fold(m, producer, in, exact, max_bytes, "the exact result", why, why_size))
        goto out;
    for (uint32_t i = 0; i < 2; i++)
        if (!(absin[i] = abs_copy(in[i], why, why_size)))
            goto out;
    if (!arb_fold(m, producer, absin, &mag, max_bytes, "the sum of magnitudes", why, why_size) ||
        !arb_dot_bound(producer, in, *exact, mag, 1.0, max_bytes, bound, why, why_size))
        goto out;
    ok = true;
out:
    if (!ok)
        arb_drop(exact, bound);
    plumb_tensor_free(mag);
    for (uint32_t i = 0; i < 2; i++)
        plumb_tensor_free(absin[i]);
    chain_close(&s, calls, n_calls, frames, args);   /* in[] belong to the frames */
    return ok;
}
