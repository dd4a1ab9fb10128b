/* plumb reduce: shrinks a finding saved by plumb fuzz to the ops it needs,
 * re-verifying every candidate and keeping it only when the finding's
 * signature still shows on the backend. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../conformance/certify.h"

typedef struct finding_file {
    char oracle[16], op[48], dtype[8], mutator[16], backend[512];
    uint64_t seed;
    fz_gen_opts gen;
} finding_file;

/* The value of "key: value" in text, copied into out; false when absent. */
static bool field(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ':' && p[kl + 1] == ' ') {
            const char *v = p + kl + 2, *e = strchr(v, '\n');
            size_t n = e ? (size_t)(e - v) : strlen(v);
            if (n >= cap)
                return false;
            memcpy(out, v, n);
            out[n] = 0;
            return true;
        }
    }
    return false;
}

static bool parse_generator(const char *v, fz_gen_opts *g)
{
    memset(g, 0, sizeof *g);
    const char *ops = strstr(v, " ops=");
    if (sscanf(v, "max_nodes=%u max_elems=%u dtypes=0x%x", &g->max_nodes, &g->max_elems, &g->dtypes) != 3 || !ops ||
        !g->max_nodes || !g->max_elems || !g->dtypes)
        return false;
    /* poly= is absent from findings saved before --poly existed */
    const char *pp = strstr(v, " poly=");
    if (pp && (sscanf(pp, " poly=%u", &g->poly) != 1 || g->poly > 100))
        return false;
    for (const char *s = ops + 5; *s;) {
        size_t n = strcspn(s, ",");
        plumb_opcode op;
        if (!n || !plumb_op_lookup(s, n, &op) || !fz_op_supported(op))
            return false;
        g->ops[op] = true;
        s += n;
        if (*s == ',')
            s++;
    }
    return true;
}

static bool load_finding(const char *dir, finding_file *f, plumb_diag *d)
{
    char path[1024], v[1200];
    snprintf(path, sizeof path, "%s/finding.txt", dir);
    size_t len = 0;
    char *text = plumb_read_file(path, 1 << 20, &len, d);
    if (!text)
        return false;
    const char *missing = NULL;
    memset(f, 0, sizeof *f);
    if (!field(text, "oracle", f->oracle, sizeof f->oracle))
        missing = "oracle";
    else if (!field(text, "op", f->op, sizeof f->op))
        missing = "op";
    else if (!field(text, "dtype", f->dtype, sizeof f->dtype))
        missing = "dtype";
    else if (!field(text, "mutator", f->mutator, sizeof f->mutator))
        missing = "mutator";
    else if (!field(text, "backend", f->backend, sizeof f->backend))
        missing = "backend";
    else if (!field(text, "program seed", v, sizeof v) || !(f->seed = strtoull(v, NULL, 10), v[0] >= '0' && v[0] <= '9'))
        missing = "program seed";
    else if (!field(text, "generator", v, sizeof v) || !parse_generator(v, &f->gen))
        missing = "generator";
    plumb_free(text, len + 1);
    if (missing) {
        plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0},
                       "%s: no valid '%s:' line (not a finding directory written by plumb fuzz --out)", path, missing);
        return false;
    }
    return true;
}

/* ---- programs as values: copy, and remove an op --------------------------- */

static bool prog_clone(const fz_prog *s, fz_prog *o, plumb_diag *d)
{
    *o = *s;
    for (uint32_t i = 0; i < o->n_nodes; i++)
        o->n[i].value = NULL;
    memset(o->inputs, 0, sizeof o->inputs);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if (s->n[i].value && !(o->n[i].value = plumb_tensor_clone(s->n[i].value, d)))
            goto fail;
    for (uint32_t i = 0; i < s->n_params; i++)
        if (s->inputs[i] && !(o->inputs[i] = plumb_tensor_clone(s->inputs[i], d)))
            goto fail;
    return true;
fail:
    fz_prog_free(o);
    return false;
}

/* Drops parameters and constants nothing uses, then numbers parameters
 * and results in node order (the text lists them in that order). */
static void normalize(fz_prog *p)
{
    bool used[FZ_MAX_NODES] = {false};
    for (uint32_t i = 0; i < p->n_nodes; i++)
        for (uint32_t j = 0; p->n[i].kind == FZ_OP && j < p->n[i].n_args; j++)
            used[p->n[i].arg[j]] = true;
    uint32_t map[FZ_MAX_NODES], n = 0;
    plumb_tensor *ins[FZ_MAX_NODES] = {NULL};
    uint32_t np = 0, nr = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        fz_node *x = &p->n[i];
        if (x->kind != FZ_OP && !used[i]) {
            if (x->kind == FZ_PARAM) {
                plumb_tensor_free(p->inputs[x->index]);
                p->inputs[x->index] = NULL;
            }
            plumb_tensor_free(x->value);
            continue;
        }
        map[i] = n;
        fz_node y = *x;
        for (uint32_t j = 0; y.kind == FZ_OP && j < y.n_args; j++)
            y.arg[j] = map[y.arg[j]];
        if (y.kind == FZ_PARAM) {
            ins[np] = p->inputs[x->index];
            y.index = np++;
        } else if (y.kind == FZ_OP) {
            y.index = nr;
            nr += fz_node_results(&y);
        }
        p->n[n++] = y;
    }
    p->n_nodes = n;
    p->n_params = np;
    p->n_results = nr;
    memcpy(p->inputs, ins, sizeof ins);
}

/* Op node k becomes a parameter holding value (owned by the result). */
static bool remove_op(const fz_prog *s, uint32_t k, const plumb_tensor *value, fz_prog *o, plumb_diag *d)
{
    if (!prog_clone(s, o, d))
        return false;
    fz_node *x = &o->n[k];
    plumb_tensor *v = value ? plumb_tensor_clone(value, d) : plumb_tensor_new(x->dtype, x->rank, x->dims, 0, d);
    if (!v) {
        fz_prog_free(o);
        return false;
    }
    fz_node y;
    memset(&y, 0, sizeof y);
    y.kind = FZ_PARAM;
    y.dtype = x->dtype;
    y.rank = x->rank;
    memcpy(y.dims, x->dims, sizeof y.dims);
    y.index = o->n_params;
    o->inputs[o->n_params++] = v;
    *x = y;
    normalize(o);
    return true;
}

static uint32_t count_ops(const fz_prog *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        n += p->n[i].kind == FZ_OP;
    return n;
}

/* ---- does a candidate still show the finding? ---------------------------- */

typedef struct rctx {
    const finding_file *f;
    conf_backend *b;
    double timeout_s;
    uint32_t tried;
} rctx;

/* Runs p on the backend in a child; 1 when the finding shows (then *outs
 * holds the results when the run succeeded), 0 when not, -1 on error. */
static int shows(rctx *c, const fz_prog *p, plumb_tensor ***outs, uint32_t *n_outs, plumb_diag *d)
{
    *outs = NULL;
    *n_outs = 0;
    plumb_buf text;
    plumb_buf_init(&text);
    if (!fz_prog_text(p, &text)) {
        plumb_buf_free(&text);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "reduce: out of memory printing a candidate");
        return -1;
    }
    plumb_diag vd;
    plumb_diag_clear(&vd);
    if (!fz_prog_verify(text.data, text.len, &vd)) {
        /* a candidate that does not verify is never kept */
        plumb_buf_free(&text);
        return 0;
    }
    c->tried++;
    plumb_diag rd;
    plumb_diag_clear(&rd);
    bool ran = conf_backend_run_isolated(c->f->backend, NULL, 0, text.data, "main", p->inputs, p->n_params,
                                         c->timeout_s, 0, outs, n_outs, &rd);
    plumb_buf_free(&text);
    const char *o = c->f->oracle;
    if (!ran)
        return !strcmp(o, "crash") || !strcmp(o, "hang") || !strcmp(o, "error");
    if (strcmp(o, "agree") != 0 || *n_outs != p->n_results)
        return 0;
    for (uint32_t k = 0; k < p->n_nodes; k++) {
        const fz_node *n = &p->n[k];
        if (n->kind != FZ_OP || strcmp(plumb_op_short_name(n->op), c->f->op) != 0 ||
            strcmp(plumb_dtype_name(fz_node_primary(p, k)), c->f->dtype) != 0)
            continue;
        conf_result r;
        plumb_diag cd;
        plumb_diag_clear(&cd);
        bool failed = fz_check_op(p, k, *outs, &c->b->caps, &r, &cd) > 0;
        if (failed)
            return 1;
    }
    return 0;
}

/* ---- shrinking shapes and simplifying values ------------------------------------ */

/* A part of t: dimension j cut to [at, at + n) (at + n <= t->dims[j]). */
static plumb_tensor *cut_tensor(const plumb_tensor *t, uint32_t j, int64_t at, int64_t n, plumb_diag *d)
{
    int64_t dims[PLUMB_MAX_RANK];
    memcpy(dims, t->dims, t->rank * sizeof *dims);
    dims[j] = n;
    plumb_tensor *o = plumb_tensor_new(t->dtype, t->rank, dims, 0, d);
    if (!o)
        return NULL;
    /* element (i_0..i_r) of o is element (i_0..i_r) of t: walk o's
     * elements in order, mapping each index into t */
    uint64_t e = plumb_tensor_numel(o);
    for (uint64_t k = 0; k < e; k++) {
        uint64_t rem = k, src = 0, stride = 1;
        for (uint32_t a = t->rank; a-- > 0;) {
            uint64_t i = rem % (uint64_t)dims[a] + (a == j ? (uint64_t)at : 0);
            rem /= (uint64_t)dims[a];
            src += i * stride;
            stride *= (uint64_t)t->dims[a];
        }
        plumb_store_bits(t->dtype, o->data, (size_t)k, plumb_load_bits(t->dtype, t->data, (size_t)src));
    }
    return o;
}

/* Ops whose result has the shape of their operand 0 (their attributes do
 * not name sizes): a shape cut in the operands carries through them. */
static bool same_shape_op(plumb_opcode op)
{
    const plumb_op_info *oi = plumb_op_get(op);
    return (oi->kind == PLUMB_KIND_ELEMENTWISE) || op == PLUMB_OP_REVERSE || op == PLUMB_OP_SORT ||
           op == PLUMB_OP_BITCAST_CONVERT || op == PLUMB_OP_CONVERT;
}

/* Re-derives the shapes of p's ops from their operands after a cut; false
 * when an op's attributes name sizes the cut would change (slice limits,
 * broadcast sizes, padding, gather windows...): such candidates are not
 * built. */
static bool rederive(fz_prog *p)
{
    for (uint32_t k = 0; k < p->n_nodes; k++) {
        fz_node *n = &p->n[k];
        if (n->kind != FZ_OP)
            continue;
        const fz_node *a = &p->n[n->arg[0]];
        if (same_shape_op(n->op) && n->op != PLUMB_OP_TOP_K) {
            if (n->rank != a->rank)
                return false;
            memcpy(n->dims, a->dims, sizeof n->dims);
        } else if (n->op == PLUMB_OP_TOP_K) {
            for (uint32_t i = 0; i + 1 < n->rank; i++)
                n->dims[i] = a->dims[i];
        } else if (n->op == PLUMB_OP_REDUCE) {
            /* post lists the reduced dimensions */
            bool gone[FZ_MAX_RANK] = {false};
            for (const char *c = n->post; *c;) {
                char *e;
                long v = strtol(c, &e, 10);
                if (e == c)
                    break;
                if (v >= 0 && v < FZ_MAX_RANK)
                    gone[v] = true;
                c = *e ? e + 1 : e;
            }
            uint32_t r = 0;
            for (uint32_t i = 0; i < a->rank; i++)
                if (!gone[i])
                    n->dims[r++] = a->dims[i];
            if (r != n->rank)
                return false;
        } else if (n->op == PLUMB_OP_DOT_GENERAL || n->op == PLUMB_OP_DOT) {
            const fz_node *b = &p->n[n->arg[1]];
            uint32_t r = 0;
            for (uint32_t i = 0; i + 1 < a->rank; i++)
                n->dims[r++] = a->dims[i];
            if (b->rank == 2)
                n->dims[r++] = b->dims[1];
            if (r != n->rank)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

/* Candidate: dimension j of every parameter and constant (not fixed) of
 * size `size` at j halved, their values cut to the leading half (or with
 * tail, the trailing one), the ops' shapes re-derived. *built is false
 * when nothing changes or the ops cannot follow. */
static bool halve_dim(const fz_prog *s, uint32_t j, int64_t size, bool tail, fz_prog *o, bool *built, plumb_diag *d)
{
    *built = false;
    if (!prog_clone(s, o, d))
        return false;
    int64_t half = size / 2;
    bool any = false;
    for (uint32_t k = 0; k < o->n_nodes; k++) {
        fz_node *n = &o->n[k];
        if (n->kind == FZ_OP || n->fixed || n->rank <= j || n->dims[j] != size || ((n->dyn >> j) & 1))
            continue;
        plumb_tensor **v = n->kind == FZ_PARAM ? &o->inputs[n->index] : &n->value;
        plumb_tensor *c = cut_tensor(*v, j, tail ? size - half : 0, half, d);
        if (!c) {
            fz_prog_free(o);
            return false;
        }
        plumb_tensor_free(*v);
        *v = c;
        n->dims[j] = half;
        any = true;
    }
    if (!any || !rederive(o)) {
        fz_prog_free(o);
        return true;
    }
    *built = true;
    return true;
}

/* Candidate: the input or constant of node k with its elements [from, to)
 * set to v (0 or 1 in the element type). */
static bool set_values(const fz_prog *s, uint32_t k, uint64_t from, uint64_t to, int v, fz_prog *o, plumb_diag *d)
{
    if (!prog_clone(s, o, d))
        return false;
    fz_node *n = &o->n[k];
    plumb_tensor *t = n->kind == FZ_PARAM ? o->inputs[n->index] : n->value;
    uint64_t bits = 0;
    if (v) {
        /* 1.0: the exponent field at its bias, a zero fraction */
        const plumb_dtype_info *ti = plumb_dtype_get(t->dtype);
        bits = plumb_dtype_is_float(t->dtype) ? ((1ull << (ti->exp_bits - 1)) - 1) << ti->mant_bits : 1;
    }
    for (uint64_t i = from; i < to; i++)
        plumb_store_bits(t->dtype, t->data, (size_t)i, bits);
    return true;
}

/* The reduction's state: the current program and the backend's results
 * for it. */
typedef struct rstate {
    fz_prog cur;
    plumb_tensor **outs;
    uint32_t n_outs;
} rstate;

/* Runs candidate cand (consumed): when the finding still shows it becomes
 * the current program (1), else it is dropped (0); -1 on error. */
static int try_candidate(rctx *c, rstate *st, fz_prog *cand, fz_reduce_result *r, plumb_diag *d)
{
    plumb_tensor **co = NULL;
    uint32_t nco = 0;
    int s = shows(c, cand, &co, &nco, d);
    if (s == 1) {
        fz_prog_free(&st->cur);
        st->cur = *cand;
        conf_tensors_free(st->outs, st->n_outs);
        st->outs = co;
        st->n_outs = nco;
        r->kept++;
        return 1;
    }
    conf_tensors_free(co, nco);
    fz_prog_free(cand);
    return s < 0 ? -1 : 0;
}

static bool save_reduced(const char *dir, const finding_file *f, const fz_prog *p, fz_reduce_result *r, plumb_diag *d)
{
    plumb_buf t, ins;
    plumb_buf_init(&t);
    plumb_buf_init(&ins);
    bool ok = fz_prog_text(p, &t);
    snprintf(r->program, sizeof r->program, "%s/reduced.mlir", dir);
    if (ok) {
        const void *parts[1] = {t.data};
        size_t lens[1] = {t.len};
        ok = plumb_write_file_atomic(r->program, parts, lens, 1, d);
    }
    for (uint32_t i = 0; ok && i < p->n_params; i++) {
        size_t len = 0;
        void *data = plumb_tensor_serialize(p->inputs[i], &len, d);
        char path[1024];
        snprintf(path, sizeof path, "%s/r%u.tensor", dir, i);
        const void *parts[1] = {data};
        size_t lens[1] = {len};
        ok = data && plumb_write_file_atomic(path, parts, lens, 1, d);
        if (data)
            plumb_free(data, len);
        plumb_buf_printf(&ins, " --input a%u=%s", i, path);
    }
    snprintf(r->replay, sizeof r->replay, "plumb run --backend %s --compare %s%s", f->backend, r->program,
             ins.data ? ins.data : "");
    if (ok) {
        plumb_buf_free(&t);
        plumb_buf_init(&t);
        plumb_buf_printf(&t,
                         "reduced from %u ops to %u, input elements from %llu to %llu (%u shape cuts, %u value "
                         "simplifications; %u candidates run, %u kept)\nreplay: %s\n",
                         r->ops_before, r->ops_after, (unsigned long long)r->elems_before,
                         (unsigned long long)r->elems_after, r->shapes_cut, r->values_set, r->tried, r->kept,
                         r->replay);
        char path[1024];
        snprintf(path, sizeof path, "%s/reduced.txt", dir);
        const void *parts[1] = {t.data};
        size_t lens[1] = {t.len};
        ok = plumb_write_file_atomic(path, parts, lens, 1, d);
    }
    plumb_buf_free(&t);
    plumb_buf_free(&ins);
    return ok;
}

int fz_reduce(const char *dir, double timeout_s, fz_reduce_result *r, plumb_diag *d)
{
    memset(r, 0, sizeof *r);
    finding_file f;
    if (!load_finding(dir, &f, d))
        return -1;
    if (!strcmp(f.oracle, "compiles")) {
        plumb_diag_set(d, PLUMB_ERR_UNSUPPORTED, (plumb_loc){0, 0},
                       "%s: a compile-count finding is about a program and its mutants together; only agree, crash, "
                       "hang and error findings are reduced", dir);
        return -1;
    }
    fz_prog cur;
    bool applicable = true;
    int mut = -1;
    for (int m = 0; m < FZ_MUT_COUNT; m++)
        if (!strcmp(f.mutator, fz_mutator_name((fz_mutator)m)))
            mut = m;
    if (mut < 0 && strcmp(f.mutator, "base") != 0) {
        plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "%s/finding.txt: unknown mutator '%s'", dir, f.mutator);
        return -1;
    }
    if (!(mut < 0 ? fz_base(&f.gen, f.seed, &cur, d) : fz_mutate(&f.gen, f.seed, (fz_mutator)mut, &cur, &applicable, d))) {
        if (d->code == PLUMB_OK)
            plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "%s: mutator %s does not apply to the seed", dir,
                           f.mutator);
        return -1;
    }
    /* the directory's program must be the one its seed builds */
    char path[1024];
    snprintf(path, sizeof path, "%s/program.mlir", dir);
    size_t len = 0;
    char *saved = plumb_read_file(path, 64 << 20, &len, d);
    plumb_buf t;
    plumb_buf_init(&t);
    bool same = saved && fz_prog_text(&cur, &t) && t.len == len && !memcmp(t.data, saved, len);
    plumb_buf_free(&t);
    if (saved)
        plumb_free(saved, len + 1);
    if (!same) {
        fz_prog_free(&cur);
        if (d->code == PLUMB_OK)
            plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0},
                           "%s: program.mlir is not the program finding.txt's seed and generator build", dir);
        return -1;
    }
    conf_backend b;
    if (!conf_backend_open(f.backend, NULL, 0, &b, d)) {
        fz_prog_free(&cur);
        return -1;
    }
    rctx c = {&f, &b, timeout_s > 0 ? timeout_s : 20, 0};
    rstate st = {cur, NULL, 0};
    int rc = shows(&c, &st.cur, &st.outs, &st.n_outs, d);
    r->ops_before = count_ops(&st.cur);
    for (uint32_t i = 0; i < st.cur.n_params; i++)
        r->elems_before += st.cur.inputs[i] ? plumb_tensor_numel(st.cur.inputs[i]) : 0;
    /* rounds of the three passes until one keeps nothing: a smaller shape
     * or a simpler value can let another op go */
    for (uint32_t round = 0, kept = UINT32_MAX; rc == 1 && round < 4 && kept != r->kept; round++) {
        kept = r->kept;
        /* passes over the ops, last first, until none can go */
        for (bool changed = true; changed && rc >= 0;) {
            changed = false;
            for (uint32_t k = st.cur.n_nodes; k-- > 0 && rc >= 0;) {
                if (k >= st.cur.n_nodes || st.cur.n[k].kind != FZ_OP || count_ops(&st.cur) <= 1)
                    continue;
                fz_prog cand;
                const plumb_tensor *v = st.outs && st.n_outs == st.cur.n_results
                                            ? st.outs[st.cur.n[k].index + fz_node_value(&st.cur.n[k])]
                                            : NULL;
                int s = remove_op(&st.cur, k, v, &cand, d) ? try_candidate(&c, &st, &cand, r, d) : -1;
                changed |= s == 1;
                if (s < 0)
                    rc = -1;
            }
        }
        /* shapes: halve a dimension of the inputs and constants while the
         * finding still shows */
        for (bool changed = true; changed && rc >= 0;) {
            changed = false;
            for (uint32_t k = 0; k < st.cur.n_nodes && rc >= 0 && !changed; k++) {
                const fz_node *n = &st.cur.n[k];
                for (uint32_t jt = 0; n->kind != FZ_OP && !n->fixed && jt < 2 * n->rank && rc >= 0 && !changed; jt++) {
                    uint32_t j = jt / 2;
                    if (n->dims[j] < 2 || ((n->dyn >> j) & 1))
                        continue;
                    fz_prog cand;
                    bool built;
                    if (!halve_dim(&st.cur, j, n->dims[j], jt % 2, &cand, &built, d)) {
                        rc = -1;
                        break;
                    }
                    int s = built ? try_candidate(&c, &st, &cand, r, d) : 0;
                    r->shapes_cut += s == 1;
                    changed = s == 1;
                    if (s < 0)
                        rc = -1;
                }
            }
        }
        /* values: every input and constant (not fixed) to zeros, else ones,
         * else ranges of it to zero, halving the range, while the finding
         * still shows */
        for (uint32_t k = 0; k < st.cur.n_nodes && rc >= 0; k++) {
            const fz_node *n = &st.cur.n[k];
            if (n->kind == FZ_OP || n->fixed)
                continue;
            const plumb_tensor *tv = n->kind == FZ_PARAM ? st.cur.inputs[n->index] : n->value;
            uint64_t e = tv ? plumb_tensor_numel(tv) : 0;
            bool done = false;
            for (uint64_t chunk = e; chunk > 0 && !done && rc >= 0 && c.tried <= FZ_REDUCE_MAX_RUNS; chunk /= 2) {
                for (uint64_t from = 0; from < e && rc >= 0 && !done; from += chunk) {
                    for (int v = 0; v < (chunk == e ? 2 : 1) && rc >= 0; v++) {
                        fz_prog cand;
                        int s = set_values(&st.cur, k, from, from + chunk < e ? from + chunk : e, v, &cand, d)
                                    ? try_candidate(&c, &st, &cand, r, d)
                                    : -1;
                        if (s < 0)
                            rc = -1;
                        if (s == 1) {
                            r->values_set++;
                            done = chunk == e;
                            break;
                        }
                    }
                }
            }
        }
    }
    if (rc == 1) {
        r->ops_after = count_ops(&st.cur);
        for (uint32_t i = 0; i < st.cur.n_params; i++)
            r->elems_after += st.cur.inputs[i] ? plumb_tensor_numel(st.cur.inputs[i]) : 0;
        r->tried = c.tried;
        if (!save_reduced(dir, &f, &st.cur, r, d))
            rc = -1;
    }
    conf_tensors_free(st.outs, st.n_outs);
    fz_prog_free(&st.cur);
    conf_backend_close(&b);
    return rc;
}
