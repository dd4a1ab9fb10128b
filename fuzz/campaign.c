/* The fuzz campaign: each program and its mutants run on the backend in a
 * forked worker (a crash or hang loses one program, never the campaign),
 * checked by three oracles — per-op agreement with the reference (every
 * intermediate is a result, and each op is re-evaluated by the checker on
 * the backend's own operands, so bounds never compound and a failure names
 * the op), compile counts against the mutator's prediction, and crashes and
 * hangs — and findings deduplicated by signature and saved as directories. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "../conformance/certify.h"
#include "../conformance/oracle.h"

void fz_options_init(fz_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "runtime";
    o->seed = 1;
    o->count = 1000;
    o->mutators = (1u << FZ_MUT_COUNT) - 1;
    fz_gen_opts_init(&o->gen);
    o->shard_count = 1;
    o->timeout_s = 20;
    o->batch = 64;
}

/* The seed of program i of a campaign. */
static uint64_t program_seed(uint64_t seed, uint64_t i)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + i + 1;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* ---- what a worker sends back ------------------------------------------------ */

#define W_FINDINGS 6
enum { W_START, W_DONE, W_END, W_FATAL };

typedef struct wire_finding {
    char oracle[16], op[48], dtype[8], mutator[16];
    char detail[640];
} wire_finding;

typedef struct wire {
    uint32_t kind;
    uint32_t mutator;          /* W_START: the step starting (FZ_MUT_COUNT = the base program) */
    uint64_t index;            /* the program */
    uint32_t skipped, mutants, checked, n_findings;
    char dtype[8];             /* the program's first parameter's type (for crash signatures) */
    uint16_t cover[PLUMB_OP_COUNT][PLUMB_DTYPE_COUNT]; /* op results checked, per primary type */
    wire_finding f[W_FINDINGS];
    char msg[600];             /* W_FATAL */
} wire;

static bool write_wire(int fd, const wire *w)
{
    const char *p = (const char *)w;
    size_t left = sizeof *w;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        left -= (size_t)n;
    }
    return true;
}

static const char *step_name(uint32_t m) { return m < FZ_MUT_COUNT ? fz_mutator_name((fz_mutator)m) : "base"; }

static void add_finding(wire *w, const char *oracle, const char *op, const char *dtype, uint32_t mut,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void add_finding(wire *w, const char *oracle, const char *op, const char *dtype, uint32_t mut,
                        const char *fmt, ...)
{
    const char *mn = step_name(mut);
    for (uint32_t i = 0; i < w->n_findings; i++)
        if (!strcmp(w->f[i].oracle, oracle) && !strcmp(w->f[i].op, op) && !strcmp(w->f[i].dtype, dtype) &&
            !strcmp(w->f[i].mutator, mn))
            return;
    if (w->n_findings >= W_FINDINGS)
        return;
    wire_finding *f = &w->f[w->n_findings++];
    snprintf(f->oracle, sizeof f->oracle, "%s", oracle);
    snprintf(f->op, sizeof f->op, "%s", op);
    snprintf(f->dtype, sizeof f->dtype, "%s", dtype);
    snprintf(f->mutator, sizeof f->mutator, "%s", mn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
}

/* ---- one program in the worker ------------------------------------------------- */

typedef struct worker {
    const fz_options *o;
    conf_backend *b;
    int fd;
} worker;

static bool claimed(const conf_backend *b, const fz_prog *p)
{
    for (uint32_t k = 0; k < p->n_nodes; k++) {
        if (p->n[k].kind == FZ_OP && !(b->caps.claims[p->n[k].op] & PLUMB_TY_BIT(fz_node_primary(p, k))))
            return false;
        /* a backend claiming no polymorphism is given no `?` */
        if (p->n[k].dyn && b->caps.poly == PLUMB_BACKEND_POLY_NONE)
            return false;
    }
    return true;
}

int fz_check_op(const fz_prog *p, uint32_t k, plumb_tensor *const *outs, const conf_caps *caps, conf_result *r,
                plumb_diag *d)
{
    const fz_node *n = &p->n[k];
    plumb_buf text;
    plumb_buf_init(&text);
    uint32_t in_nodes[FZ_MAX_ARGS], n_in = 0;
    plumb_tensor *ins[FZ_MAX_ARGS];
    if (!fz_op_text(p, k, &text, in_nodes, &n_in)) {
        plumb_buf_free(&text);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the op");
        return -1;
    }
    for (uint32_t j = 0; j < n_in; j++) {
        const fz_node *a = &p->n[in_nodes[j]];
        ins[j] = a->kind == FZ_PARAM   ? p->inputs[a->index]
                 : a->kind == FZ_CONST ? a->value
                                       : outs[a->index + fz_node_value(a)];
    }
    char id[32];
    snprintf(id, sizeof id, "%%v%u", k);
    /* the program-level oracle's per-op check (conformance/oracle.c) */
    conf_oracle_op c = {n->op, fz_node_primary(p, k), text.data, ins, n_in, &outs[n->index],
                        fz_node_results(n), id};
    bool ran = conf_oracle_check_op(&c, caps, r, d);
    plumb_buf_free(&text);
    return !ran ? -1 : r->pass ? 0 : 1;
}

/* Checks every op result of p against the reference, re-evaluated on the
 * backend's own operands. */
static void check_ops(worker *wk, const fz_prog *p, plumb_tensor **outs, wire *w, uint32_t mut)
{
    for (uint32_t k = 0; k < p->n_nodes; k++) {
        const fz_node *n = &p->n[k];
        if (n->kind != FZ_OP)
            continue;
        plumb_dtype t = fz_node_primary(p, k);
        const char *opn = plumb_op_short_name(n->op);
        conf_result r;
        plumb_diag d;
        plumb_diag_clear(&d);
        int v = fz_check_op(p, k, outs, &wk->b->caps, &r, &d);
        if (v < 0)
            add_finding(w, "error", opn, plumb_dtype_name(t), mut, "%%v%u: the checker could not run: %s", k, d.msg);
        else if (v > 0)
            add_finding(w, "agree", opn, plumb_dtype_name(t), mut, "%%v%u = %s (%.3g of its bound): %s", k, opn,
                        r.budget_used, r.reason);
        else if (n->op < PLUMB_OP_COUNT && t < PLUMB_DTYPE_COUNT && w->cover[n->op][t] < UINT16_MAX)
            w->cover[n->op][t]++;
        w->checked++;
    }
}

/* Runs p on the backend: the compiles it caused (compile and execute, so a
 * backend that rebuilds at execute time counts; measured even when the run
 * fails, as a stale executable may fail on the new shapes) and the
 * results. *builds is UINT64_MAX when the counters could not be read. */
static bool run_prog(worker *wk, const fz_prog *p, plumb_tensor ***outs, uint32_t *n_outs, uint64_t *builds,
                     char *err, size_t cap)
{
    plumb_buf text;
    plumb_buf_init(&text);
    plumb_diag d, sd;
    plumb_diag_clear(&d);
    plumb_diag_clear(&sd);
    plumb_backend_stats before, after;
    *builds = UINT64_MAX;
    bool have_before = conf_backend_stats(wk->b, &before, &sd);
    bool ok = fz_prog_text(p, &text) && conf_backend_run(wk->b, text.data, p->inputs, p->n_params, outs, n_outs, &d);
    plumb_buf_free(&text);
    if (have_before && conf_backend_stats(wk->b, &after, &sd))
        /* a disk-cache hit counts as a build: this instance had not compiled it */
        *builds = (after.compiles - before.compiles) + (after.disk_hits - before.disk_hits);
    if (!ok)
        snprintf(err, cap, "%.590s", d.msg[0] ? d.msg : "out of memory");
    return ok;
}

static void announce(worker *wk, uint64_t index, uint32_t step)
{
    wire s;
    memset(&s, 0, sizeof s);
    s.kind = W_START;
    s.index = index;
    s.mutator = step;
    write_wire(wk->fd, &s);
}

static void fatal(worker *wk, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fatal(worker *wk, const char *fmt, ...)
{
    wire w;
    memset(&w, 0, sizeof w);
    w.kind = W_FATAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w.msg, sizeof w.msg, fmt, ap);
    va_end(ap);
    write_wire(wk->fd, &w);
    _exit(0);
}

static void one_program(worker *wk, uint64_t index)
{
    const fz_options *o = wk->o;
    uint64_t seed = program_seed(o->seed, index);
    wire w;
    memset(&w, 0, sizeof w);
    w.kind = W_DONE;
    w.index = index;
    plumb_diag d;
    plumb_diag_clear(&d);
    fz_prog base;
    if (!fz_base(&o->gen, seed, &base, &d))
        fatal(wk, "program %llu: %s", (unsigned long long)index, d.msg);
    plumb_buf text;
    plumb_buf_init(&text);
    if (!fz_prog_text(&base, &text) || !fz_prog_verify(text.data, text.len, &d))
        fatal(wk, "generator bug: program %llu (seed %llu) does not verify: %s\n%s", (unsigned long long)index,
              (unsigned long long)seed, d.msg, text.data ? text.data : "");
    plumb_buf_free(&text);
    snprintf(w.dtype, sizeof w.dtype, "%s", plumb_dtype_name(base.n[0].dtype));
    if (!claimed(wk->b, &base)) {
        w.skipped = 1;
        fz_prog_free(&base);
        write_wire(wk->fd, &w);
        return;
    }
    /* a fresh instance per program: the compile counts start from an empty cache */
    if (!conf_backend_instance(wk->b, NULL, 0, &d))
        fatal(wk, "%s: %s", wk->b->where, d.msg);
    announce(wk, index, FZ_MUT_COUNT);
    plumb_tensor **outs = NULL;
    uint32_t n_outs = 0;
    uint64_t builds = 0;
    char err[600];
    if (!run_prog(wk, &base, &outs, &n_outs, &builds, err, sizeof err))
        add_finding(&w, "error", "program", w.dtype, FZ_MUT_COUNT, "%s", err);
    else if (n_outs != base.n_results)
        add_finding(&w, "agree", "program", w.dtype, FZ_MUT_COUNT, "the backend returned %u results, the program has %u",
                    n_outs, base.n_results);
    else
        check_ops(wk, &base, outs, &w, FZ_MUT_COUNT);
    if (builds != 1)
        add_finding(&w, "compiles", "program", "any", FZ_MUT_COUNT,
                    "a program never seen before caused %s%llu compiles (expected 1)",
                    builds == UINT64_MAX ? "(stats unreadable) " : "", builds == UINT64_MAX ? 0ull : (unsigned long long)builds);
    conf_tensors_free(outs, n_outs);
    for (uint32_t m = 0; m < FZ_MUT_COUNT; m++) {
        if (!(o->mutators & (1u << m)))
            continue;
        fz_prog mp;
        bool applicable = true;
        plumb_diag_clear(&d);
        if (!fz_mutate(&o->gen, seed, (fz_mutator)m, &mp, &applicable, &d)) {
            if (applicable)
                fatal(wk, "program %llu: mutator %s: %s", (unsigned long long)index, fz_mutator_name((fz_mutator)m),
                      d.msg);
            continue;
        }
        if (m != FZ_MUT_PARAMS && m != FZ_MUT_IDENTICAL) {
            plumb_buf_init(&text);
            if (!fz_prog_text(&mp, &text) || !fz_prog_verify(text.data, text.len, &d))
                fatal(wk, "generator bug: mutant %s of program %llu does not verify: %s\n%s",
                      fz_mutator_name((fz_mutator)m), (unsigned long long)index, d.msg, text.data ? text.data : "");
            plumb_buf_free(&text);
        }
        if (!claimed(wk->b, &mp)) {
            fz_prog_free(&mp);
            continue;
        }
        announce(wk, index, m);
        w.mutants++;
        outs = NULL;
        n_outs = 0;
        if (!run_prog(wk, &mp, &outs, &n_outs, &builds, err, sizeof err))
            add_finding(&w, "error", "program", w.dtype, m, "%s", err);
        else if (n_outs != mp.n_results)
            add_finding(&w, "agree", "program", w.dtype, m, "the backend returned %u results, the program has %u",
                        n_outs, mp.n_results);
        else
            check_ops(wk, &mp, outs, &w, m);
        uint32_t want = fz_mutator_predicts((fz_mutator)m, wk->b->caps.poly);
        if (builds != want)
            add_finding(&w, "compiles", "program", "any", m,
                        "mutator %s: %s%llu new compiles, the contract predicts %u (polymorphism claim: %s)",
                        fz_mutator_name((fz_mutator)m), builds == UINT64_MAX ? "(stats unreadable) " : "",
                        builds == UINT64_MAX ? 0ull : (unsigned long long)builds, want,
                        conf_poly_name(wk->b->caps.poly));
        conf_tensors_free(outs, n_outs);
        fz_prog_free(&mp);
    }
    fz_prog_free(&base);
    write_wire(wk->fd, &w);
}

/* ---- the parent -------------------------------------------------------------------- */

static bool in_shard(const fz_options *o, uint64_t i)
{
    return o->shard_count <= 1 || i % o->shard_count == o->shard_index;
}

static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '.'))
            *s = '_';
}

static bool write_text(const char *dir, const char *name, const char *text, size_t len, plumb_diag *d)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const void *parts[1] = {text};
    size_t lens[1] = {len};
    return plumb_write_file_atomic(path, parts, lens, 1, d);
}

/* Saves finding f as a directory under out: the program (the base or the
 * mutant it showed on), its inputs as tensor files, and what it is. */
static bool save_finding(const fz_options *o, fz_finding *f, uint32_t ordinal, plumb_diag *d)
{
    /* a plugin is named by its absolute path, so the replay works anywhere */
    char backend[4096];
    if (!strchr(o->backend, '/') || !realpath(o->backend, backend))
        snprintf(backend, sizeof backend, "%s", o->backend);
    char leaf[FZ_SIG_MAX + 16];
    snprintf(leaf, sizeof leaf, "%03u-%s", ordinal, f->signature);
    sanitize(leaf);
    snprintf(f->dir, sizeof f->dir, "%s/%s", o->out_dir, leaf);
    if (!plumb_mkdir_p(f->dir, 0777, d))
        return false;
    fz_prog p;
    bool applicable = true;
    int mut = -1;
    for (int m = 0; m < FZ_MUT_COUNT; m++)
        if (!strcmp(f->mutator, fz_mutator_name((fz_mutator)m)))
            mut = m;
    bool ok = mut < 0 ? fz_base(&o->gen, f->seed, &p, d) : fz_mutate(&o->gen, f->seed, (fz_mutator)mut, &p, &applicable, d);
    if (!ok)
        return false;
    plumb_buf b;
    plumb_buf_init(&b);
    ok = fz_prog_text(&p, &b) && write_text(f->dir, "program.mlir", b.data, b.len, d);
    plumb_buf_free(&b);
    plumb_buf inputs;
    plumb_buf_init(&inputs);
    for (uint32_t i = 0; ok && i < p.n_params; i++) {
        size_t len = 0;
        void *data = plumb_tensor_serialize(p.inputs[i], &len, d);
        char name[32];
        snprintf(name, sizeof name, "a%u.tensor", i);
        ok = data && write_text(f->dir, name, data, len, d);
        if (data)
            plumb_free(data, len);
        plumb_buf_printf(&inputs, " --input a%u=%s/a%u.tensor", i, f->dir, i);
    }
    fz_prog_free(&p);
    if (ok) {
        plumb_buf t;
        plumb_buf_init(&t);
        plumb_buf_printf(&t,
                         "signature: %s\noracle: %s\nop: %s\ndtype: %s\nmutator: %s\nbackend: %s\ncampaign seed: %llu\n"
                         "program index: %llu\nprogram seed: %llu\nprograms showing it: %u\nexpected and observed: %s\n",
                         f->signature, f->oracle, f->op, f->dtype, f->mutator, backend, (unsigned long long)o->seed,
                         (unsigned long long)f->program, (unsigned long long)f->seed, f->hits, f->detail);
        /* what fz_base/fz_mutate need to rebuild the program (plumb reduce) */
        plumb_buf_printf(&t, "generator: max_nodes=%u max_elems=%u dtypes=0x%x poly=%u ops=", o->gen.max_nodes,
                         o->gen.max_elems, o->gen.dtypes, o->gen.poly);
        bool first = true;
        for (int k = 0; k < PLUMB_OP_COUNT; k++)
            if (o->gen.ops[k]) {
                plumb_buf_printf(&t, "%s%s", first ? "" : ",", plumb_op_name((plumb_opcode)k));
                first = false;
            }
        plumb_buf_puts(&t, "\n");
        ok = write_text(f->dir, "finding.txt", t.data, t.len, d);
        plumb_buf_free(&t);
        plumb_buf_init(&t);
        plumb_buf_printf(&t, "Replay the program and its mutators (the compile counts and every op checked):\n"
                             "  plumb fuzz --backend %s --seed %llu --index %llu --count 1 --mutators %s\n"
                             "Compare this program's results with the reference:\n"
                             "  plumb run --backend %s --compare %s/program.mlir%s\n",
                         backend, (unsigned long long)o->seed, (unsigned long long)f->program,
                         mut < 0 ? "none" : f->mutator, backend, f->dir, inputs.data ? inputs.data : "");
        ok = ok && write_text(f->dir, "README", t.data, t.len, d);
        plumb_buf_free(&t);
    }
    plumb_buf_free(&inputs);
    return ok;
}

static bool note_finding(const fz_options *o, fz_result *res, uint64_t index, const char *oracle, const char *op,
                         const char *dtype, const char *mutator, const char *detail, plumb_diag *d)
{
    char sig[FZ_SIG_MAX];
    snprintf(sig, sizeof sig, "%s/%s/%s/%s", oracle, op, dtype, mutator);
    for (uint32_t i = 0; i < res->n_findings; i++)
        if (!strcmp(res->findings[i].signature, sig)) {
            res->findings[i].hits++;
            return true;
        }
    if (res->n_findings == res->cap_findings) {
        uint32_t nc = res->cap_findings ? res->cap_findings * 2 : 16;
        fz_finding *nv = plumb_realloc(res->findings, res->cap_findings * sizeof *nv, nc * sizeof *nv);
        if (!nv) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "fuzz: out of memory recording a finding");
            return false;
        }
        res->findings = nv;
        res->cap_findings = nc;
    }
    fz_finding *f = &res->findings[res->n_findings++];
    memset(f, 0, sizeof *f);
    snprintf(f->signature, sizeof f->signature, "%s", sig);
    snprintf(f->oracle, sizeof f->oracle, "%s", oracle);
    snprintf(f->op, sizeof f->op, "%s", op);
    snprintf(f->dtype, sizeof f->dtype, "%s", dtype);
    snprintf(f->mutator, sizeof f->mutator, "%s", mutator);
    snprintf(f->detail, sizeof f->detail, "%s", detail);
    f->program = index;
    f->seed = program_seed(o->seed, index);
    f->hits = 1;
    if (o->out_dir && !save_finding(o, f, res->n_findings, d))
        return false;
    return true;
}

typedef struct batch {
    uint64_t from, to;         /* program indices [from, to) */
} batch;

static void worker_main(const fz_options *o, conf_backend *b, conf_guard *g, int fd, batch bt, double deadline)
{
    conf_guard_child(g);
    worker wk = {o, b, fd};
    unsigned secs = o->timeout_s > 0 ? (unsigned)ceil(o->timeout_s) : 0;
    uint64_t i = bt.from;
    for (; i < bt.to; i++) {
        if (!in_shard(o, i))
            continue;
        if (deadline > 0 && conf_now() > deadline)
            break;
        /* a hang ends the worker with SIGALRM; the parent names the program */
        alarm(secs);
        one_program(&wk, i);
        alarm(0);
    }
    if (b->inst) {
        plumb_diag d;
        plumb_diag_clear(&d);
        plumb_backend_destroy_args da = {sizeof da, b->inst};
        b->inst = NULL;
        conf_guard_note("destroy");
        plumb_backend_error *e = b->api->destroy(&da);
        if (e)
            b->api->error_free(e);
        conf_guard_note(NULL);
    }
    wire w;
    memset(&w, 0, sizeof w);
    w.kind = W_END;
    w.index = i; /* where the next worker starts */
    write_wire(fd, &w);
    _exit(0);
}

static ssize_t read_wire(int fd, wire *w)
{
    char *p = (char *)w;
    size_t got = 0;
    while (got < sizeof *w) {
        ssize_t n = read(fd, p + got, sizeof *w - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static void progress(const fz_options *o, const fz_result *res, double t0, bool last)
{
    double el = conf_now() - t0, rate = el > 0 ? (double)res->programs / el : 0;
    char eta[48] = "";
    if (o->count && rate > 0) {
        double total = (double)o->count / (o->shard_count ? o->shard_count : 1);
        snprintf(eta, sizeof eta, ", ETA %.0f s", total > res->programs ? (total - (double)res->programs) / rate : 0);
    } else if (o->time_s > 0) {
        snprintf(eta, sizeof eta, ", %.0f s left", o->time_s > el ? o->time_s - el : 0);
    }
    fprintf(stderr, "\rfuzz: %llu programs, %.0f/s, %u findings%s   %s", (unsigned long long)res->programs, rate,
            res->n_findings, eta, last ? "\n" : "");
}

bool fz_run(const fz_options *o, fz_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    double t0 = conf_now(), deadline = o->time_s > 0 ? t0 + o->time_s : 0;
    if (o->out_dir && !plumb_mkdir_p(o->out_dir, 0777, d))
        return false;
    conf_backend b;
    if (!conf_backend_open(o->backend, NULL, 0, &b, d))
        return false;
    uint64_t end = o->count ? o->first + o->count : UINT64_MAX;
    uint64_t next = o->first;
    bool ok = true;
    double last_progress = 0;
    while (ok && next < end && !(deadline > 0 && conf_now() > deadline)) {
        batch bt = {next, end - next > o->batch ? next + o->batch : end};
        int fds[2];
        if (pipe(fds) != 0) {
            plumb_diag_set(d, PLUMB_ERR_IO, (plumb_loc){0, 0}, "fuzz: cannot create a pipe: %s", strerror(errno));
            ok = false;
            break;
        }
        conf_guard *g = conf_guard_new();
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            plumb_diag_set(d, PLUMB_ERR_IO, (plumb_loc){0, 0}, "fuzz: cannot fork a worker: %s", strerror(errno));
            close(fds[0]);
            close(fds[1]);
            conf_guard_free(g);
            ok = false;
            break;
        }
        if (pid == 0) {
            close(fds[0]);
            worker_main(o, &b, g, fds[1], bt, deadline);
        }
        close(fds[1]);
        wire w;
        bool ended = false, in_step = false;
        uint64_t cur = bt.from;
        uint32_t cur_step = FZ_MUT_COUNT;
        char cur_dtype[8] = "";
        while (ok && read_wire(fds[0], &w) == (ssize_t)sizeof w) {
            if (w.kind == W_END) {
                ended = true;
                next = w.index;
                break;
            }
            if (w.kind == W_FATAL) {
                w.msg[sizeof w.msg - 1] = 0;
                plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "fuzz: %s", w.msg);
                ok = false;
                break;
            }
            if (w.kind == W_START) {
                in_step = true;
                cur = w.index;
                cur_step = w.mutator;
                continue;
            }
            /* W_DONE */
            in_step = false;
            cur = w.index;
            w.dtype[sizeof w.dtype - 1] = 0;
            snprintf(cur_dtype, sizeof cur_dtype, "%s", w.dtype);
            res->programs += !w.skipped;
            res->skipped += w.skipped;
            res->mutants += w.mutants;
            res->ops_checked += w.checked;
            for (int k = 0; k < PLUMB_OP_COUNT; k++)
                for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
                    res->op_cover[k][t] += w.cover[k][t];
            for (uint32_t i = 0; ok && i < w.n_findings && i < W_FINDINGS; i++) {
                wire_finding *f = &w.f[i];
                f->oracle[sizeof f->oracle - 1] = f->op[sizeof f->op - 1] = f->dtype[sizeof f->dtype - 1] = 0;
                f->mutator[sizeof f->mutator - 1] = f->detail[sizeof f->detail - 1] = 0;
                ok = note_finding(o, res, w.index, f->oracle, f->op, f->dtype, f->mutator, f->detail, d);
            }
            next = w.index + 1;
            if (o->progress && conf_now() - last_progress > 0.5) {
                progress(o, res, t0, false);
                last_progress = conf_now();
            }
        }
        close(fds[0]);
        int status = 0;
        if (!ended && ok)
            kill(pid, SIGKILL); /* a worker that stopped talking without ending */
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (ok && !ended) {
            char why[200];
            conf_guard_describe(g, status, why, sizeof why);
            bool hang = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
            char detail[400];
            snprintf(detail, sizeof detail, "the worker %s while running program %llu (%s)%s", why,
                     (unsigned long long)cur, step_name(cur_step),
                     hang ? " — past the timeout" : "");
            if (!in_step)
                cur_dtype[0] = 0;
            /* the program's dtype is unknown when it died before reporting: regenerate it */
            fz_prog p;
            plumb_diag gd;
            plumb_diag_clear(&gd);
            if (fz_generate(&o->gen, program_seed(o->seed, cur), 0, &p, &gd)) {
                snprintf(cur_dtype, sizeof cur_dtype, "%s", plumb_dtype_name(p.n[0].dtype));
                fz_prog_free(&p);
            }
            res->programs++;
            ok = note_finding(o, res, cur, hang ? "hang" : "crash", "program", cur_dtype, step_name(cur_step), detail, d);
            next = cur + 1;
        }
        conf_guard_free(g);
    }
    res->seconds = conf_now() - t0;
    if (o->progress)
        progress(o, res, t0, true);
    conf_backend_close(&b);
    return ok;
}

void fz_result_free(fz_result *res)
{
    plumb_free(res->findings, res->cap_findings * sizeof *res->findings);
    memset(res, 0, sizeof *res);
}

void fz_report_json(plumb_buf *b, const fz_options *o, const fz_result *res)
{
    plumb_buf_puts(b, "{\n  \"format\": \"plumb-fuzz-1\",\n  \"backend\": ");
    plumb_json_str_append(b, o->backend);
    plumb_buf_printf(b, ",\n  \"seed\": %llu,\n  \"first\": %llu,\n  \"shard\": [%u, %u],\n  \"mutators\": [",
                     (unsigned long long)o->seed, (unsigned long long)o->first, o->shard_index,
                     o->shard_count ? o->shard_count : 1);
    bool first = true;
    for (int m = 0; m < FZ_MUT_COUNT; m++)
        if (o->mutators & (1u << m)) {
            plumb_buf_printf(b, "%s\"%s\"", first ? "" : ", ", fz_mutator_name((fz_mutator)m));
            first = false;
        }
    plumb_buf_printf(b,
                     "],\n  \"programs\": %llu,\n  \"mutants\": %llu,\n  \"skipped\": %llu,\n  \"ops_checked\": %llu,\n"
                     "  \"seconds\": %.3f,\n  \"programs_per_second\": %.1f,\n  \"coverage\": {",
                     (unsigned long long)res->programs, (unsigned long long)res->mutants,
                     (unsigned long long)res->skipped, (unsigned long long)res->ops_checked, res->seconds,
                     res->seconds > 0 ? (double)res->programs / res->seconds : 0.0);
    /* op -> element type -> op results checked (passing ones) */
    first = true;
    for (int k = 0; k < PLUMB_OP_COUNT; k++) {
        bool any = false;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!res->op_cover[k][t])
                continue;
            if (!any)
                plumb_buf_printf(b, "%s\n    \"%s\": {", first ? "" : ",", plumb_op_short_name((plumb_opcode)k));
            plumb_buf_printf(b, "%s\"%s\": %llu", any ? ", " : "", plumb_dtype_name((plumb_dtype)t),
                             (unsigned long long)res->op_cover[k][t]);
            any = true;
            first = false;
        }
        if (any)
            plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, first ? "},\n  \"findings\": [" : "\n  },\n  \"findings\": [");
    for (uint32_t i = 0; i < res->n_findings; i++) {
        const fz_finding *f = &res->findings[i];
        plumb_buf_puts(b, i ? ",\n    {" : "\n    {");
        plumb_buf_puts(b, "\"signature\": ");
        plumb_json_str_append(b, f->signature);
        plumb_buf_puts(b, ", \"oracle\": ");
        plumb_json_str_append(b, f->oracle);
        plumb_buf_puts(b, ", \"op\": ");
        plumb_json_str_append(b, f->op);
        plumb_buf_puts(b, ", \"dtype\": ");
        plumb_json_str_append(b, f->dtype);
        plumb_buf_puts(b, ", \"mutator\": ");
        plumb_json_str_append(b, f->mutator);
        plumb_buf_printf(b, ", \"program\": %llu, \"program_seed\": %llu, \"hits\": %u, \"detail\": ",
                         (unsigned long long)f->program, (unsigned long long)f->seed, f->hits);
        plumb_json_str_append(b, f->detail);
        plumb_buf_puts(b, ", \"dir\": ");
        plumb_json_str_append(b, f->dir);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, res->n_findings ? "\n  ]\n}\n" : "]\n}\n");
}
