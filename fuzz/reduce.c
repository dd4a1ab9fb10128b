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
            y.index = nr++;
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

static uint32_t count_ops(const fz_prog *p) { return p->n_results; }

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
        plumb_dtype t;
        if (n->kind != FZ_OP || strcmp(plumb_op_short_name(n->op), c->f->op) != 0 ||
            strcmp(plumb_dtype_name(t = fz_node_primary(p, k)), c->f->dtype) != 0)
            continue;
        plumb_buf ot;
        plumb_buf_init(&ot);
        uint32_t in_nodes[3], n_in = 0;
        plumb_tensor *ins[3];
        if (!fz_op_text(p, k, &ot, in_nodes, &n_in)) {
            plumb_buf_free(&ot);
            continue;
        }
        for (uint32_t j = 0; j < n_in; j++) {
            const fz_node *a = &p->n[in_nodes[j]];
            ins[j] = a->kind == FZ_PARAM ? p->inputs[a->index] : a->kind == FZ_CONST ? a->value : (*outs)[a->index];
        }
        conf_case cc;
        memset(&cc, 0, sizeof cc);
        snprintf(cc.id, sizeof cc.id, "reduce/%s", c->f->op);
        cc.op = n->op;
        cc.dtype = t;
        cc.shape_class = cc.value_class = "fuzz";
        cc.program = ot.data;
        cc.inputs = ins;
        cc.n_inputs = n_in;
        conf_check_opts co;
        conf_caps_check_opts(&c->b->caps, t, &co);
        conf_result r;
        plumb_diag cd;
        plumb_diag_clear(&cd);
        bool failed = conf_check_case(&cc, &(*outs)[n->index], 1, &co, &r, &cd) && !r.pass;
        plumb_buf_free(&ot);
        if (failed)
            return 1;
    }
    return 0;
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
        plumb_buf_printf(&t, "reduced from %u ops to %u (%u candidates run, %u kept)\nreplay: %s\n", r->ops_before,
                         r->ops_after, r->tried, r->kept, r->replay);
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
    plumb_tensor **outs = NULL;
    uint32_t n_outs = 0;
    int rc = shows(&c, &cur, &outs, &n_outs, d);
    r->ops_before = count_ops(&cur);
    if (rc == 1) {
        /* passes over the ops, last first, until none can go */
        for (bool changed = true; changed && rc >= 0;) {
            changed = false;
            for (uint32_t k = cur.n_nodes; k-- > 0 && rc >= 0;) {
                if (k >= cur.n_nodes || cur.n[k].kind != FZ_OP || count_ops(&cur) <= 1)
                    continue;
                fz_prog cand;
                const plumb_tensor *v = outs && n_outs == cur.n_results ? outs[cur.n[k].index] : NULL;
                if (!remove_op(&cur, k, v, &cand, d)) {
                    rc = -1;
                    break;
                }
                plumb_tensor **co = NULL;
                uint32_t nco = 0;
                int s = shows(&c, &cand, &co, &nco, d);
                if (s == 1) {
                    fz_prog_free(&cur);
                    cur = cand;
                    conf_tensors_free(outs, n_outs);
                    outs = co;
                    n_outs = nco;
                    r->kept++;
                    changed = true;
                } else {
                    conf_tensors_free(co, nco);
                    fz_prog_free(&cand);
                    if (s < 0)
                        rc = -1;
                }
            }
        }
        r->ops_after = count_ops(&cur);
        r->tried = c.tried;
        if (rc >= 0 && !save_reduced(dir, &f, &cur, r, d))
            rc = -1;
    }
    conf_tensors_free(outs, n_outs);
    fz_prog_free(&cur);
    conf_backend_close(&b);
    return rc;
}
