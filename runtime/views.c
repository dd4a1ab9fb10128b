/* Planning views over chains of movement ops (rt_view.h): which groups of
 * one movement op read their operand through the view of the op producing
 * it, and the pieces of each view. Everything here runs at compile time on
 * static shapes; a run only adds the tensors' base pointers
 * (rt_view_run, runtime/k_movement.c). */
#include <string.h>

#include "plumb/dtype.h"
#include "rt_view.h"

typedef struct vplan {
    plumb_arena *a;
    bool nomem;
} vplan;

static rt_view *v_new(vplan *P, uint32_t rank, const int64_t *dims, size_t es, uint32_t cap)
{
    rt_view *v = plumb_arena_alloc(P->a, sizeof *v);
    rt_view_piece *p = plumb_arena_array(P->a, cap ? cap : 1, sizeof *p);
    if (!v || !p) {
        P->nomem = true;
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->rank = rank;
    for (uint32_t d = 0; d < rank; d++)
        v->dims[d] = dims[d];
    v->es = es;
    v->p = p;
    return v;
}

static bool empty_box(const rt_view_piece *q, uint32_t rank)
{
    for (uint32_t d = 0; d < rank; d++)
        if (q->lo[d] >= q->hi[d])
            return true;
    return false;
}

/* Appends q to v unless its box is empty. */
static void v_add(rt_view *v, const rt_view_piece *q)
{
    if (!empty_box(q, v->rank))
        v->p[v->n++] = *q;
}

static bool static_type(const ir_type *t)
{
    if (t->tuple)
        return false;
    for (uint32_t d = 0; d < t->rank; d++)
        if (t->dims[d] < 0)
            return false;
    return true;
}

/* The whole of value v, row-major. */
static rt_view *v_leaf(vplan *P, const ir_value *v)
{
    const ir_type *t = &v->type;
    rt_view *w = v_new(P, t->rank, t->dims, plumb_dtype_size(t->dtype), 1);
    if (!w)
        return NULL;
    rt_view_piece q;
    memset(&q, 0, sizeof q);
    q.leaf = v->id;
    int64_t s = 1;
    for (uint32_t d = t->rank; d-- > 0;) {
        q.st[d] = s;
        q.lo[d] = 0;
        q.hi[d] = t->dims[d];
        s *= t->dims[d];
    }
    v_add(w, &q);
    return w;
}

/* ceil(a / b) for b > 0, any sign of a. */
static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

static rt_view *v_slice(vplan *P, const rt_view *o, const ir_op *op, const ir_type *rt)
{
    if (op->a.start.n != o->rank || op->a.strides.n != o->rank)
        return NULL;
    rt_view *w = v_new(P, rt->rank, rt->dims, o->es, o->n);
    if (!w)
        return NULL;
    for (uint32_t k = 0; k < o->n; k++) {
        rt_view_piece q = o->p[k];
        for (uint32_t d = 0; d < o->rank; d++) {
            int64_t s0 = op->a.start.v[d], sd = op->a.strides.v[d];
            if (sd < 1)
                return NULL;
            /* result index i reads operand index s0 + i*sd */
            int64_t lo = ceil_div(q.lo[d] - s0, sd), hi = ceil_div(q.hi[d] - s0, sd);
            q.lo[d] = lo < 0 ? 0 : lo;
            q.hi[d] = hi > rt->dims[d] ? rt->dims[d] : hi;
            q.off += s0 * q.st[d];
            q.st[d] *= sd;
        }
        v_add(w, &q);
    }
    return w;
}

static rt_view *v_concat(vplan *P, rt_view *const *os, uint32_t n, const ir_op *op, const ir_type *rt)
{
    int64_t dim = op->a.dimension;
    if (dim < 0 || (uint64_t)dim >= rt->rank)
        return NULL;
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n; i++)
        cnt += os[i]->n;
    if (cnt > RT_VIEW_MAX_PIECES)
        return NULL;
    rt_view *w = v_new(P, rt->rank, rt->dims, os[0]->es, cnt);
    if (!w)
        return NULL;
    int64_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < os[i]->n; k++) {
            rt_view_piece q = os[i]->p[k];
            if (!q.fill)
                q.off -= at * q.st[dim];
            q.lo[dim] += at;
            q.hi[dim] += at;
            v_add(w, &q);
        }
        at += os[i]->dims[dim];
    }
    return w;
}

/* Pad without interior padding: the operand's pieces shifted by low and
 * cropped to the result, then fill pieces for the rest, slab by slab (the
 * part below and above the operand's box in dimension d, within the box in
 * the dimensions before d). */
static rt_view *v_pad(vplan *P, const rt_view *o, const ir_op *op, uint32_t fill_id, const ir_type *rt)
{
    uint32_t r = rt->rank;
    if (op->a.low.n != r || op->a.high.n != r || op->a.interior.n != r)
        return NULL;
    for (uint32_t d = 0; d < r; d++)
        if (op->a.interior.v[d] != 0)
            return NULL;
    if (o->n + 2 * r > RT_VIEW_MAX_PIECES)
        return NULL;
    rt_view *w = v_new(P, r, rt->dims, o->es, o->n + 2 * r);
    if (!w)
        return NULL;
    int64_t blo[PLUMB_MAX_RANK], bhi[PLUMB_MAX_RANK];
    bool inside = true;
    for (uint32_t d = 0; d < r; d++) {
        int64_t l = op->a.low.v[d];
        blo[d] = l < 0 ? 0 : l;
        bhi[d] = l + o->dims[d] > rt->dims[d] ? rt->dims[d] : l + o->dims[d];
        if (bhi[d] <= blo[d])
            inside = false;
    }
    if (inside)
        for (uint32_t k = 0; k < o->n; k++) {
            rt_view_piece q = o->p[k];
            for (uint32_t d = 0; d < r; d++) {
                int64_t l = op->a.low.v[d];
                if (!q.fill)
                    q.off -= l * q.st[d];
                q.lo[d] += l;
                q.hi[d] += l;
                if (q.lo[d] < blo[d]) q.lo[d] = blo[d];
                if (q.hi[d] > bhi[d]) q.hi[d] = bhi[d];
            }
            v_add(w, &q);
        }
    rt_view_piece f;
    memset(&f, 0, sizeof f);
    f.leaf = fill_id;
    f.fill = true;
    if (!inside) {
        for (uint32_t d = 0; d < r; d++) {
            f.lo[d] = 0;
            f.hi[d] = rt->dims[d];
        }
        v_add(w, &f);
        return w;
    }
    for (uint32_t d = 0; d < r; d++) {
        for (uint32_t e = 0; e < r; e++) {
            f.lo[e] = e < d ? blo[e] : 0;
            f.hi[e] = e < d ? bhi[e] : rt->dims[e];
        }
        f.hi[d] = blo[d];
        v_add(w, &f);
        f.lo[d] = bhi[d];
        f.hi[d] = rt->dims[d];
        v_add(w, &f);
    }
    return w;
}

static rt_view *v_transpose(vplan *P, const rt_view *o, const ir_op *op, const ir_type *rt)
{
    if (op->a.dims.n != o->rank || rt->rank != o->rank)
        return NULL;
    rt_view *w = v_new(P, rt->rank, rt->dims, o->es, o->n);
    if (!w)
        return NULL;
    for (uint32_t k = 0; k < o->n; k++) {
        rt_view_piece q = o->p[k];
        for (uint32_t i = 0; i < rt->rank; i++) {
            int64_t pd = op->a.dims.v[i];
            if (pd < 0 || (uint64_t)pd >= o->rank)
                return NULL;
            q.st[i] = o->p[k].st[pd];
            q.lo[i] = o->p[k].lo[pd];
            q.hi[i] = o->p[k].hi[pd];
        }
        v_add(w, &q);
    }
    return w;
}

static rt_view *v_broadcast(vplan *P, const rt_view *o, const ir_op *op, const ir_type *rt)
{
    if (op->a.dims.n != o->rank)
        return NULL;
    rt_view *w = v_new(P, rt->rank, rt->dims, o->es, o->n);
    if (!w)
        return NULL;
    for (uint32_t k = 0; k < o->n; k++) {
        rt_view_piece q;
        memset(&q, 0, sizeof q);
        q.leaf = o->p[k].leaf;
        q.fill = o->p[k].fill;
        q.off = o->p[k].off;
        for (uint32_t i = 0; i < rt->rank; i++)
            q.hi[i] = rt->dims[i];   /* dims the operand does not have: every index, stride 0 */
        for (uint32_t d = 0; d < o->rank; d++) {
            int64_t bd = op->a.dims.v[d];
            if (bd < 0 || (uint64_t)bd >= rt->rank)
                return NULL;
            if (o->dims[d] == 1 && rt->dims[bd] != 1)
                continue;   /* expanded: every result index reads operand index 0, in the box */
            if (o->dims[d] != rt->dims[bd])
                return NULL;
            q.st[bd] = o->p[k].st[d];
            q.lo[bd] = o->p[k].lo[d];
            q.hi[bd] = o->p[k].hi[d];
        }
        v_add(w, &q);
    }
    return w;
}

static rt_view *v_reverse(vplan *P, const rt_view *o, const ir_op *op)
{
    rt_view *w = v_new(P, o->rank, o->dims, o->es, o->n);
    if (!w)
        return NULL;
    bool rev[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= o->rank)
            return NULL;
        rev[d] = true;
    }
    for (uint32_t k = 0; k < o->n; k++) {
        rt_view_piece q = o->p[k];
        for (uint32_t d = 0; d < o->rank; d++) {
            if (!rev[d])
                continue;
            /* result index i reads operand index n-1-i */
            int64_t n = o->dims[d];
            q.off += (n - 1) * q.st[d];
            q.st[d] = -q.st[d];
            q.lo[d] = n - o->p[k].hi[d];
            q.hi[d] = n - o->p[k].lo[d];
        }
        v_add(w, &q);
    }
    return w;
}

/* Reshape of a view that is one source piece over the whole operand,
 * when the new dims can be given strides (numpy's no-copy reshape: each
 * group of old dims that multiplies to a group of new dims must be
 * contiguous in the source among itself). NULL otherwise. */
static rt_view *v_reshape(vplan *P, const rt_view *o, const ir_type *rt)
{
    if (o->n != 1 || o->p[0].fill)
        return NULL;
    const rt_view_piece *s = &o->p[0];
    /* old dims without size 1 (their strides do not matter) */
    int64_t od[PLUMB_MAX_RANK], os[PLUMB_MAX_RANK];
    uint32_t on = 0;
    for (uint32_t d = 0; d < o->rank; d++)
        if (o->dims[d] != 1) {
            od[on] = o->dims[d];
            os[on++] = s->st[d];
        }
    rt_view *w = v_new(P, rt->rank, rt->dims, o->es, 1);
    if (!w)
        return NULL;
    rt_view_piece q;
    memset(&q, 0, sizeof q);
    q.leaf = s->leaf;
    q.off = s->off;
    for (uint32_t d = 0; d < rt->rank; d++) {
        q.lo[d] = 0;
        q.hi[d] = rt->dims[d];
    }
    uint32_t oi = 0, ni = 0;
    while (ni < rt->rank || oi < on) {
        if (ni < rt->rank && rt->dims[ni] == 1) {
            q.st[ni++] = 0;
            continue;
        }
        if (ni >= rt->rank || oi >= on)
            return NULL;
        /* smallest groups [oi, oj) and [ni, nj) with equal products */
        uint32_t oj = oi + 1, nj = ni + 1;
        int64_t po = od[oi], pn = rt->dims[ni];
        while (po != pn) {
            if (po < pn) {
                if (oj >= on)
                    return NULL;
                po *= od[oj++];
            } else {
                if (nj >= rt->rank)
                    return NULL;
                pn *= rt->dims[nj++];
            }
        }
        for (uint32_t k = oi; k + 1 < oj; k++)
            if (os[k] != os[k + 1] * od[k + 1])
                return NULL;   /* not one strided run */
        int64_t st = os[oj - 1];
        for (uint32_t k = nj; k-- > ni;) {
            q.st[k] = st;
            st *= rt->dims[k];
        }
        oi = oj;
        ni = nj;
    }
    v_add(w, &q);
    return w;
}

static bool view_op(const ir_op *op)
{
    switch (op->code) {
    case PLUMB_OP_SLICE:
    case PLUMB_OP_CONCATENATE:
    case PLUMB_OP_PAD:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_REVERSE:
    case PLUMB_OP_RESHAPE:
        break;
    default:
        return false;
    }
    if (op->n_results != 1 || op->n_operands < 1 || op->n_regions || !static_type(&op->results[0]->type))
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!static_type(&op->operands[i]->type) || op->operands[i]->type.dtype != op->results[0]->type.dtype)
            return false;
    if (op->code == PLUMB_OP_PAD && (op->n_operands != 2 || op->operands[1]->type.rank != 0))
        return false;
    return true;
}

/* The view of op's result from the views of its data operands (os[i] for
 * operand i; pad's padding value is read as a fill), or NULL. */
static rt_view *apply(vplan *P, const ir_op *op, rt_view *const *os)
{
    const ir_type *rt = &op->results[0]->type;
    switch (op->code) {
    case PLUMB_OP_SLICE: return v_slice(P, os[0], op, rt);
    case PLUMB_OP_CONCATENATE: return v_concat(P, os, op->n_operands, op, rt);
    case PLUMB_OP_PAD: return v_pad(P, os[0], op, op->operands[1]->id, rt);
    case PLUMB_OP_TRANSPOSE: return v_transpose(P, os[0], op, rt);
    case PLUMB_OP_BROADCAST_IN_DIM: return v_broadcast(P, os[0], op, rt);
    case PLUMB_OP_REVERSE: return v_reverse(P, os[0], op);
    case PLUMB_OP_RESHAPE: return v_reshape(P, os[0], rt);
    default: return NULL;
    }
}

static void count_uses(const ir_block *b, uint32_t *uses, uint32_t n_ids)
{
    for (const ir_op *o = b->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++)
            if (o->operands[i]->id < n_ids)
                uses[o->operands[i]->id]++;
        for (uint32_t r = 0; r < o->n_regions; r++)
            count_uses(&o->regions[r], uses, n_ids);
    }
}

static bool has_dynamic(const ir_func *f)
{
    for (uint32_t i = 0; i < f->body.n_args; i++)
        if (!static_type(&f->body.args[i]->type) && !f->body.args[i]->type.tuple)
            return true;
    for (const ir_op *o = f->body.first; o; o = o->next)
        for (uint32_t i = 0; i < o->n_results; i++)
            if (!static_type(&o->results[i]->type) && !o->results[i]->type.tuple)
                return true;
    return false;
}

bool rt_view_plan(plumb_arena *a, const ir_func *f, uint32_t opt_level, rt_group *groups, uint32_t n_groups,
                  rt_view ***views, plumb_diag *d)
{
    *views = NULL;
    if (opt_level < 2 || n_groups == 0 || has_dynamic(f))
        return true;
    uint32_t n_ids = 0;
    for (uint32_t i = 0; i < f->body.n_args; i++)
        if (f->body.args[i]->id + 1 > n_ids)
            n_ids = f->body.args[i]->id + 1;
    for (const ir_op *o = f->body.first; o; o = o->next)
        for (uint32_t i = 0; i < o->n_results; i++)
            if (o->results[i]->id + 1 > n_ids)
                n_ids = o->results[i]->id + 1;
    vplan P = {a, false};
    bool ok = false;
    uint32_t *uses = plumb_calloc(n_ids ? n_ids : 1, sizeof *uses);
    int32_t *gof = plumb_malloc((n_ids ? n_ids : 1) * sizeof *gof);   /* view-op group defining a value */
    rt_view **vof = plumb_calloc(n_ids ? n_ids : 1, sizeof *vof);     /* its view */
    int32_t *into = plumb_malloc(n_groups * sizeof *into);              /* group that absorbed g, or -1 */
    uint8_t *takes = plumb_calloc(n_groups, 1);                         /* g absorbed another group */
    rt_view **gv = plumb_arena_array(a, n_groups, sizeof *gv);
    if (!uses || !gof || !vof || !into || !takes || !gv) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, f->loc, "out of memory planning movement views of @%s", f->name);
        goto out;
    }
    count_uses(&f->body, uses, n_ids);
    for (uint32_t i = 0; i < n_ids; i++)
        gof[i] = -1;
    for (uint32_t g = 0; g < n_groups; g++) {
        into[g] = -1;
        gv[g] = NULL;
    }
    for (uint32_t g = 0; g < n_groups; g++) {
        rt_group *gr = &groups[g];
        if (gr->fused || gr->n_ops != 1 || !view_op(gr->ops[0]))
            continue;
        const ir_op *op = gr->ops[0];
        uint32_t nd = op->code == PLUMB_OP_PAD ? 1 : op->n_operands;   /* data operands */
        rt_view *os[64];
        rt_view *leaf[64];
        int32_t from[64];
        if (nd > 64)
            continue;
        bool any = false;
        for (uint32_t i = 0; i < nd; i++) {
            const ir_value *v = op->operands[i];
            from[i] = -1;
            if (!(leaf[i] = v_leaf(&P, v)))
                goto leaf_fail;
            os[i] = leaf[i];
            if (v->id < n_ids && gof[v->id] >= 0 && vof[v->id] && uses[v->id] == 1) {
                os[i] = vof[v->id];
                from[i] = gof[v->id];
                any = true;
            }
        }
        rt_view *w = any ? apply(&P, op, os) : NULL;
        if (!w) {
            any = false;
            w = apply(&P, op, leaf);
        }
        if (P.nomem)
            goto leaf_fail;
        if (!w || w->n > RT_VIEW_MAX_PIECES)
            continue;
        vof[op->results[0]->id] = w;
        gof[op->results[0]->id] = (int32_t)g;
        if (any) {
            gv[g] = w;
            takes[g] = 1;
            for (uint32_t i = 0; i < nd; i++)
                if (from[i] >= 0)
                    into[from[i]] = (int32_t)g;
        }
    }
    /* Each merged group: its own op and, through the groups it absorbed,
     * theirs; roots are the groups not absorbed themselves. */
    for (uint32_t g = 0; g < n_groups; g++) {
        if (!takes[g] || into[g] >= 0)
            continue;
        uint32_t cnt = 0;
        for (uint32_t h = 0; h <= g; h++) {
            uint32_t r = h;
            while (into[r] >= 0)
                r = (uint32_t)into[r];
            if (r == g && (h == g || into[h] >= 0))
                cnt++;
        }
        const ir_op **ops = plumb_arena_array(a, cnt, sizeof *ops);
        const rt_view *w = gv[g];
        ir_value **ins = plumb_arena_array(a, w->n ? w->n : 1, sizeof *ins);
        if (!ops || !ins)
            goto leaf_fail;
        uint32_t k = 0;
        /* groups are in program order, so this is too */
        for (uint32_t h = 0; h <= g; h++) {
            uint32_t r = h;
            while (into[r] >= 0)
                r = (uint32_t)into[r];
            if (r == g && (h == g || into[h] >= 0))
                ops[k++] = groups[h].ops[0];
        }
        uint32_t ni = 0;
        for (uint32_t q = 0; q < w->n; q++) {
            ir_value *v = NULL;
            /* the value of id leaf among the chain's operands */
            for (uint32_t o = 0; o < cnt && !v; o++)
                for (uint32_t i = 0; i < ops[o]->n_operands && !v; i++)
                    if (ops[o]->operands[i]->id == w->p[q].leaf)
                        v = ops[o]->operands[i];
            bool seen = !v;
            for (uint32_t i = 0; i < ni && !seen; i++)
                seen = ins[i] == v;
            if (!seen)
                ins[ni++] = v;
        }
        for (uint32_t h = 0; h < g; h++) {
            uint32_t r = h;
            while (into[r] >= 0)
                r = (uint32_t)into[r];
            if (r == g && into[h] >= 0)
                groups[h].n_ops = 0;
        }
        groups[g].ops = ops;
        groups[g].n_ops = cnt;
        groups[g].inputs = ins;
        groups[g].n_inputs = ni;
    }
    for (uint32_t g = 0; g < n_groups; g++)
        if (!takes[g] || into[g] >= 0)
            gv[g] = NULL;
    *views = gv;
    ok = true;
    goto out;
leaf_fail:
    plumb_diag_set(d, PLUMB_ERR_NOMEM, f->loc, "out of memory planning movement views of @%s", f->name);
out:
    if (uses)
        plumb_free(uses, (n_ids ? n_ids : 1) * sizeof *uses);
    if (gof)
        plumb_free(gof, (n_ids ? n_ids : 1) * sizeof *gof);
    if (vof)
        plumb_free(vof, (n_ids ? n_ids : 1) * sizeof *vof);
    if (into)
        plumb_free(into, n_groups * sizeof *into);
    if (takes)
        plumb_free(takes, n_groups);
    return ok;
}
