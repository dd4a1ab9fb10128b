/* Lowering one fused group to its step program: values, steps, hoisted
 * invariants, chains, register runs and f16/bf16 register segments.
 * fusion_exec.c runs the result. */
#include "rt_fusion.h"

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
        rt_fusion_nomem(d, f);
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
            rt_fusion_nomem(d, f);
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
        if (fv->kind == FV_BCAST && (!fv->invariant || fv->iota))
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
void rt_fusion_extents(rt_fused *F, uint32_t rank, const int64_t *dims)
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
        /* a unit of RT_ROW_UNIT f32 elements' bytes: twice the rows for
         * 2-byte types, so the per-unit steps (step_ins, the per-row
         * kernels such as layer_norm's rsqrt) run half as often per byte;
         * wider types keep RT_ROW_UNIT elements */
        uint64_t unit = F->unit_es == 2 ? 2 * (uint64_t)RT_ROW_UNIT : RT_ROW_UNIT;
        if (F->row_len && F->row_len < unit)
            F->rpu = unit / F->row_len;
        if (F->rpu > RT_RPU_MAX)
            F->rpu = RT_RPU_MAX;
        if (F->rpu > F->n_rows)
            F->rpu = F->n_rows ? F->n_rows : 1;
    }
    uint64_t per = F->rows ? (F->row_len ? F->row_len : 1) * F->rpu : RT_TILE;
    F->slot_bytes = (size_t)((per * 8 + 63) & ~(uint64_t)63);
}

bool rt_fusion_build(plumb_arena *a, fz *z, const int32_t *mem, uint32_t nm, const int32_t *gid,
                     const int32_t *used_out, rt_group *g, plumb_diag *d)
{
    rt_fused *F = plumb_arena_alloc(a, sizeof *F);
    vmap *vm = plumb_calloc(1, sizeof *vm);
    fval *vals = plumb_calloc(RT_MAX_VALS, sizeof *vals);
    int32_t *def_step = plumb_calloc(RT_MAX_VALS, sizeof *def_step);
    int32_t *last_use = plumb_calloc(RT_MAX_VALS, sizeof *last_use);
    bool ok = false;
    if (!F || !vm || !vals || !def_step || !last_use) {
        rt_fusion_nomem(d, z->f);
        goto out;
    }
    int32_t root = gid[mem[0]];
    const ir_type *S = z->space[root];
    F->rows = z->rows[root];
    F->dyn = !ir_type_is_static(S);
    F->unit_es = (uint32_t)plumb_dtype_size(S->dtype);
    if (!F->dyn) {
        rt_fusion_extents(F, S->rank, S->dims);
    } else {
        /* placeholders: every run derives them from S's actual dims */
        F->numel = F->row_len = F->n_rows = 0;
        F->rpu = 1;
        F->slot_bytes = 64;
    }
    F->sval = NULL;
    for (uint32_t k = 0; k < nm && !F->sval; k++) {
        const ir_op *op = z->ops[mem[k]];
        if (op->n_results && rt_fusion_same_dims(&op->results[0]->type, S))
            F->sval = op->results[0];
        else if (op->n_operands && rt_fusion_same_dims(&op->operands[0]->type, S))
            F->sval = op->operands[0];
    }
    if (!F->sval) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, z->ops[mem[0]]->loc, "fusion group of @%s has no value of its space",
                       z->f->name);
        goto out;
    }
    F->steps = plumb_arena_array(a, nm, sizeof *F->steps);
    if (!F->steps) {
        rt_fusion_nomem(d, z->f);
        goto out;
    }
    F->anchor = NULL;

    for (uint32_t k = 0; k < nm; k++) {
        const ir_op *op = z->ops[mem[k]];
        mrole role = z->role[mem[k]];
        if (!F->anchor && role != R_BCAST && role != R_IOTA)
            F->anchor = op;
        if (role == R_IOTA) {
            /* Generated where read: a broadcast of the index sequence
             * 0, 1, ... along iota_dimension (stride 1 there, 0 along the
             * other dims), each index converted to the element type. */
            if (vm->n >= RT_MAX_VALS)
                goto toobig;
            const ir_type *rt = &op->results[0]->type;
            fval *fv = &vals[vm->n];
            fv->kind = FV_BCAST;
            fv->space = 0;
            fv->es = (uint8_t)plumb_dtype_size(rt->dtype);
            fv->io = UINT32_MAX;
            fv->bop = NULL;
            fv->iota = true;
            fv->dtype = rt->dtype;
            fv->rank = rt->rank;
            for (uint32_t j = 0; j < rt->rank; j++) {
                fv->dims[j] = rt->dims[j];
                fv->stride[j] = (int64_t)j == op->a.dimension && rt->dims[j] != 1 ? 1 : 0;
            }
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
        case R_REDUCE: st->kind = rt_fusion_row_reduce_kind(op); break;
        case R_ROWB: st->kind = S_ROWB; break;
        default: st->kind = S_EW; break;
        }
        uint32_t nin = st->kind == S_EW ? op->n_operands : 1;
        st->n_in = nin;
        st->in = plumb_arena_array(a, nin ? nin : 1, sizeof *st->in);
        if (!st->in) {
            rt_fusion_nomem(d, z->f);
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
                int sp = rt_fusion_space_in(&v->type, S, F->rows);
                fv->es = (uint8_t)plumb_dtype_size(v->type.dtype);
                fv->io = (uint32_t)index_of(g->inputs, g->n_inputs, v);
                fv->slot = -1;
                if (sp >= 0) {
                    fv->kind = FV_IN;
                    fv->space = (uint8_t)sp;
                } else {
                    /* rank 0 operand of select/clamp: broadcast to the op's space */
                    fv->kind = FV_BCAST;
                    fv->space = (uint8_t)rt_fusion_space_in(&op->results[0]->type, S, F->rows);
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
        fv->space = (uint8_t)rt_fusion_space_in(&r->type, S, F->rows);
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
        rt_fusion_nomem(d, z->f);
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
