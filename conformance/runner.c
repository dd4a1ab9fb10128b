/* The certification runner: every claimed op × element type of a backend,
 * checked against the reference, each case isolated in a worker process.
 *
 * Workers run batches of cases (one op, one element type, up to opts.batch
 * cases) and stream one fixed-size record per finished case through a pipe.
 * The case a worker was running when it died or ran out of time is the
 * first one without a record: it fails (crash or timeout, with a
 * reproducer) and the rest of its batch goes to a fresh worker, so one bad
 * case never hides the others. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "certify.h"

/* Built with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__; clang 14
 * answers only __has_feature): make asan's builds, where a fork copies the
 * page tables of ASan's shadow and quarantine and the child's writes fault
 * on copy-on-write pages, ~20 ms a fork (docs/ci.md). Such a build forks
 * less by default (conf_run_options.few_forks). */
#if defined(__SANITIZE_ADDRESS__)
#define CONF_SANITIZED_BUILD true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONF_SANITIZED_BUILD true
#endif
#endif
#ifndef CONF_SANITIZED_BUILD
#define CONF_SANITIZED_BUILD false
#endif

/* Copies src into dst[cap], truncating: reasons are one line and may be cut. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

const char *conf_status_name(conf_status s)
{
    switch (s) {
    case CONF_ST_PASS: return "pass";
    case CONF_ST_FAIL: return "fail";
    case CONF_ST_ERROR: return "error";
    case CONF_ST_CRASH: return "crash";
    case CONF_ST_TIMEOUT: return "timeout";
    }
    return "?";
}

void conf_run_options_init(conf_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "runtime";
    o->suite = CONF_SUITE_QUICK;
    o->seed = 1;
    o->shard_index = 0;
    o->shard_count = 1;
    o->timeout_s = 60;
    o->jobs = 1;
    o->batch = 64;
    o->max_repros = 50;
    o->cache_suite = true;
    o->few_forks = CONF_SANITIZED_BUILD;
}

/* ---- the record a worker sends per case ----------------------------------- */
typedef struct wire_rec {
    uint32_t index;          /* case index within the op's case list */
    uint32_t status;         /* conf_status */
    double budget_used;
    double seconds;
    char reason[480];
} wire_rec;

/* Copies of the case's inputs for the backend: the originals stay pristine
 * for the reference and for the comparison afterwards. */
static plumb_tensor **inputs_copy(const conf_case *c, plumb_diag *d)
{
    plumb_tensor **cp = plumb_calloc(c->n_inputs ? c->n_inputs : 1, sizeof *cp);
    if (!cp) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory copying the inputs");
        return NULL;
    }
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        cp[i] = plumb_tensor_clone(c->inputs[i], d);
        if (!cp[i]) {
            for (uint32_t j = 0; j < i; j++)
                plumb_tensor_free(cp[j]);
            plumb_free(cp, (c->n_inputs ? c->n_inputs : 1) * sizeof *cp);
            return NULL;
        }
    }
    return cp;
}

static void inputs_free(const conf_case *c, plumb_tensor **cp)
{
    if (!cp)
        return;
    for (uint32_t i = 0; i < c->n_inputs; i++)
        plumb_tensor_free(cp[i]);
    plumb_free(cp, (c->n_inputs ? c->n_inputs : 1) * sizeof *cp);
}

/* False with "modified input N: element [i] was X, now Y" when the backend
 * wrote into the copy of input N it was given. */
static bool inputs_intact(const conf_case *c, plumb_tensor *const *cp, char *reason, size_t cap)
{
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        const plumb_tensor *o = c->inputs[i], *g = cp[i];
        if (o->nbytes == 0 || memcmp(o->data, g->data, o->nbytes) == 0)
            continue;
        size_t es = plumb_dtype_size(o->dtype), k = 0;
        const unsigned char *po = o->data, *pg = g->data;
        while (k < o->nbytes && po[k] == pg[k])
            k++;
        uint64_t e = es ? k / es : 0;
        char idx[96], was[80], now[80];
        conf_describe_index(o, e, idx, sizeof idx);
        conf_describe_value(o->dtype, o->data, e, was, sizeof was);
        conf_describe_value(o->dtype, g->data, e, now, sizeof now);
        snprintf(reason, cap, "modified input %u: the backend wrote into it (element %s was %s, now %s)", i, idx,
                 was, now);
        return false;
    }
    return true;
}

/* The first bitwise difference between two runs' results, as
 * "output K element [i]: X on the first run, Y on the second". */
static bool outputs_same(plumb_tensor *const *a, uint32_t na, plumb_tensor *const *b, uint32_t nb, char *why,
                         size_t cap)
{
    if (na != nb) {
        snprintf(why, cap, "%u results on the first run, %u on the second", na, nb);
        return false;
    }
    for (uint32_t k = 0; k < na; k++) {
        if (plumb_tensor_equal(a[k], b[k]))
            continue;
        if (a[k]->dtype != b[k]->dtype || a[k]->rank != b[k]->rank || a[k]->nbytes != b[k]->nbytes ||
            memcmp(a[k]->dims, b[k]->dims, a[k]->rank * sizeof a[k]->dims[0]) != 0) {
            snprintf(why, cap, "output %u has another type on the second run", k);
            return false;
        }
        size_t es = plumb_dtype_size(a[k]->dtype), j = 0;
        const unsigned char *pa = a[k]->data, *pb = b[k]->data;
        while (j < a[k]->nbytes && pa[j] == pb[j])
            j++;
        uint64_t e = es ? j / es : 0;
        char idx[96], va[80], vb[80];
        conf_describe_index(a[k], e, idx, sizeof idx);
        conf_describe_value(a[k]->dtype, a[k]->data, e, va, sizeof va);
        conf_describe_value(b[k]->dtype, b[k]->data, e, vb, sizeof vb);
        snprintf(why, cap, "output %u element %s: %s on the first run, %s on the second", k, idx, va, vb);
        return false;
    }
    return true;
}

/* A digest of results: what a separate process sends back for comparison. */
static void outputs_digest(plumb_tensor *const *ts, uint32_t n, uint64_t out[2])
{
    XXH3_state_t *s = XXH3_createState();
    if (!s) {
        out[0] = out[1] = 0;
        return;
    }
    XXH3_128bits_reset(s);
    XXH3_128bits_update(s, &n, sizeof n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t hdr[2] = {(uint32_t)ts[k]->dtype, ts[k]->rank};
        XXH3_128bits_update(s, hdr, sizeof hdr);
        XXH3_128bits_update(s, ts[k]->dims, ts[k]->rank * sizeof ts[k]->dims[0]);
        if (ts[k]->nbytes)
            XXH3_128bits_update(s, ts[k]->data, ts[k]->nbytes);
    }
    XXH128_hash_t h = XXH3_128bits_digest(s);
    XXH3_freeState(s);
    out[0] = h.low64;
    out[1] = h.high64;
}

typedef struct isolated_job {
    conf_backend *b;
    const conf_case *c;
    const conf_repeat *rep;
} isolated_job;

typedef struct isolated_answer {
    uint32_t ok;
    uint32_t n_outs;
    uint64_t digest[2];
    char msg[200];
} isolated_answer;

/* In a child of the worker: a fresh instance (the worker's is not ours
 * across fork), the case on fresh copies, the results' digest sent back. */
static void isolated_run(void *arg)
{
    isolated_job *j = arg;
    isolated_answer a;
    memset(&a, 0, sizeof a);
    /* A hang here must not outlive the worker the runner may kill. */
    alarm((unsigned)j->rep->timeout_s + 1);
    j->b->inst = NULL;
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_tensor **cp = NULL, **outs = NULL;
    uint32_t n_outs = 0;
    if (conf_backend_instance(j->b, j->rep->options, j->rep->n_options, &d) && (cp = inputs_copy(j->c, &d)) &&
        conf_backend_run(j->b, j->c->program, cp, j->c->n_inputs, &outs, &n_outs, &d)) {
        a.ok = 1;
        a.n_outs = n_outs;
        outputs_digest(outs, n_outs, a.digest);
    } else {
        copy_str(a.msg, sizeof a.msg, d.msg);
    }
    conf_tensors_free(outs, n_outs);
    inputs_free(j->c, cp);
    conf_backend_close(j->b);
    conf_guard_answer(&a, sizeof a);
}

/* One run of the backend on fresh copies of the inputs: false with v set
 * when the backend failed or wrote into an input. */
static bool backend_once(conf_backend *b, const conf_case *c, plumb_tensor ***outs, uint32_t *n_outs,
                         conf_case_verdict *v)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    *outs = NULL;
    *n_outs = 0;
    plumb_tensor **cp = inputs_copy(c, &d);
    if (!cp) {
        v->status = CONF_ST_ERROR;
        copy_str(v->reason, sizeof v->reason, d.msg);
        return false;
    }
    bool ok = conf_backend_run(b, c->program, cp, c->n_inputs, outs, n_outs, &d);
    if (!ok) {
        v->status = CONF_ST_ERROR;
        copy_str(v->reason, sizeof v->reason, d.msg);
    } else if (!inputs_intact(c, cp, v->reason, sizeof v->reason)) {
        v->status = CONF_ST_FAIL;
        v->budget_used = CONF_BUDGET_MISMATCH;
        ok = false;
    }
    inputs_free(c, cp);
    if (!ok) {
        conf_tensors_free(*outs, *n_outs);
        *outs = NULL;
        *n_outs = 0;
    }
    return ok;
}

void conf_run_case(conf_backend *b, const conf_case *c, const char *check_program, const conf_repeat *rep,
                   conf_case_verdict *v)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_tensor **outs = NULL, **again = NULL;
    uint32_t n_outs = 0, n_again = 0;
    memset(v, 0, sizeof *v);
    if (!backend_once(b, c, &outs, &n_outs, v))
        return;
    conf_check_opts co;
    conf_caps_check_opts(&b->caps, c->dtype, &co);
    conf_result res;
    memset(&res, 0, sizeof res);
    conf_case cc = *c;
    if (check_program)
        cc.program = (char *)check_program;
    if (!conf_check_case(&cc, outs, n_outs, &co, &res, &d)) {
        v->status = CONF_ST_FAIL;
        copy_str(v->reason, sizeof v->reason, "checker: ");
        copy_str(v->reason + 9, sizeof v->reason - 9, d.msg[0] ? d.msg : res.reason);
        v->budget_used = res.budget_used;
        goto out;
    }
    v->status = res.pass ? CONF_ST_PASS : CONF_ST_FAIL;
    v->budget_used = res.budget_used;
    if (!res.pass) {
        copy_str(v->reason, sizeof v->reason, res.reason);
        /* Where the element is and, for elementwise ops, what it was computed from. */
        conf_describe_reason(c, outs, n_outs, res.worst_output, res.worst_index, v->reason, sizeof v->reason);
        goto out;
    }
    if (!rep || !rep->repeat)
        goto out;
    /* Declared deterministic: the same instance again, bit for bit. */
    if (!backend_once(b, c, &again, &n_again, v))
        goto out;
    char why[400];
    if (!outputs_same(outs, n_outs, again, n_again, why, sizeof why)) {
        v->status = CONF_ST_FAIL;
        v->budget_used = CONF_BUDGET_MISMATCH;
        snprintf(v->reason, sizeof v->reason, "not deterministic: %s", why);
        goto out;
    }
    if (!rep->isolated)
        goto out;
    /* And a fresh instance in a process of its own: state kept across
     * instances or processes (a warm cache, a seed) must not change bits. */
    isolated_job job = {b, c, rep};
    isolated_answer a;
    memset(&a, 0, sizeof a);
    char how[200];
    uint64_t mine[2];
    /* fork() copies only this thread: the instance's threads (the runtime's
     * pool) stay behind, and a lock one of them holds at that moment (its
     * own, or the allocator's) would never be released in the child: seen
     * under ASan as a hang. So the worker drops its instance first, forks
     * with one thread, and makes a new instance afterwards. */
    if (!conf_backend_instance_drop(b, &d)) {
        v->status = CONF_ST_ERROR;
        copy_str(v->reason, sizeof v->reason, d.msg);
        goto out;
    }
    bool forked = conf_guard_run(isolated_run, &job, &a, sizeof a, how, sizeof how);
    if (!conf_backend_instance(b, rep->options, rep->n_options, &d)) {
        v->status = CONF_ST_ERROR;
        copy_str(v->reason, sizeof v->reason, d.msg);
        goto out;
    }
    if (!forked) {
        v->status = CONF_ST_FAIL;
        v->budget_used = CONF_BUDGET_MISMATCH;
        snprintf(v->reason, sizeof v->reason, "not deterministic: the rerun in a separate process %s", how);
        goto out;
    }
    a.msg[sizeof a.msg - 1] = 0;
    outputs_digest(outs, n_outs, mine);
    if (!a.ok) {
        v->status = CONF_ST_ERROR;
        snprintf(v->reason, sizeof v->reason, "not deterministic: the rerun in a separate process failed: %s", a.msg);
    } else if (a.n_outs != n_outs || a.digest[0] != mine[0] || a.digest[1] != mine[1]) {
        v->status = CONF_ST_FAIL;
        v->budget_used = CONF_BUDGET_MISMATCH;
        snprintf(v->reason, sizeof v->reason,
                 "not deterministic: a fresh instance in a separate process gave other results (%u outputs, "
                 "xxh3-128 %016llx%016llx; here %u, %016llx%016llx)",
                 a.n_outs, (unsigned long long)a.digest[1], (unsigned long long)a.digest[0], n_outs,
                 (unsigned long long)mine[1], (unsigned long long)mine[0]);
    }
out:
    conf_tensors_free(again, n_again);
    conf_tensors_free(outs, n_outs);
}

/* Runs one case inside a worker; never returns an error, only a verdict. */
static void run_one(conf_backend *b, const conf_case *c, const conf_repeat *rep, wire_rec *r)
{
    double t0 = conf_now();
    conf_case_verdict v;
    conf_run_case(b, c, c->check_program, rep, &v);
    r->status = v.status;
    r->budget_used = v.budget_used;
    copy_str(r->reason, sizeof r->reason, v.reason);
    r->seconds = conf_now() - t0;
}

/* ---- per-op state and the work queue ------------------------------------- */
typedef struct op_state {
    conf_cases cs;
    bool generated;
    uint32_t *order;         /* claimed case indices, grouped by dtype */
    uint32_t n_order;
    uint32_t outstanding;    /* cases not yet given a verdict */
} op_state;

typedef struct batch {
    plumb_opcode op;
    uint32_t lo, hi;         /* positions in the op's order[] */
} batch;

typedef struct worker {
    pid_t pid;
    int fd;
    batch bt;
    uint32_t done;           /* records received */
    double deadline;         /* monotonic seconds */
    conf_guard *guard;       /* the plugin call the worker is in (shared page) */
    char partial[sizeof(wire_rec)];
    size_t have;
} worker;

/* While the workers run, the verdicts (~1 KB each: 137 MB by the end of
 * the full suite's 146k cases) live in a mapping of their own that no
 * child inherits (MADV_DONTFORK; no worker, rerun or scenario process
 * reads them): a fork copies the page table of everything the parent has
 * mapped, so verdicts on the heap made every fork dearer as the run went
 * on. results_settle moves them to an ordinary allocation at the end. */
static size_t results_bytes(uint32_t cap)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (size_t)cap * sizeof(conf_case_result);
    if (pg == 0 || pg == (size_t)-1)
        pg = 4096;
    return (n + pg - 1) / pg * pg;
}

static bool push_result(conf_run *run, const conf_case_result *r)
{
    if (run->n_cases == run->cap_cases) {
        uint32_t nc = run->cap_cases ? 2 * run->cap_cases : 1024;
        if (nc <= run->cap_cases)
            return false;
        void *nv = mmap(NULL, results_bytes(nc), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (nv == MAP_FAILED)
            return false;
#ifdef MADV_DONTFORK
        (void)madvise(nv, results_bytes(nc), MADV_DONTFORK);
#endif
        if (run->cases) {
            memcpy(nv, run->cases, (size_t)run->n_cases * sizeof *run->cases);
            munmap(run->cases, results_bytes(run->cap_cases));
        }
        run->cases = nv;
        run->cap_cases = nc;
    }
    run->cases[run->n_cases++] = *r;
    return true;
}

/* The verdicts from their mapping into an ordinary allocation (exactly
 * n_cases), which conf_run_free and the report code expect; false (and no
 * verdicts) when there is no memory for it. */
static bool results_settle(conf_run *run)
{
    if (!run->cases)
        return true;
    conf_case_result *m = run->cases, *v = NULL;
    uint32_t n = run->n_cases, cap = run->cap_cases;
    if (n) {
        v = plumb_malloc((size_t)n * sizeof *v);
        if (v)
            memcpy(v, m, (size_t)n * sizeof *v);
    }
    munmap(m, results_bytes(cap));
    run->cases = v;
    run->n_cases = v ? n : 0;
    run->cap_cases = v ? n : 0;
    return v || !n;
}

static void sanitize(const char *id, char *out, size_t cap)
{
    size_t j = 0;
    for (size_t i = 0; id[i] && j + 1 < cap; i++) {
        char c = id[i];
        out[j++] = (c == '/' || c == ' ' || c == ':' || c == '\\') ? '_' : c;
    }
    out[j] = 0;
}

/* Creates the reproducer directory dir with its missing parents. Its last
 * component is a name plumb chose (the case id), so it must be a directory
 * of its own, not a link someone planted to send the files elsewhere. */
static bool mkdir_p(const char *path)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    struct stat st;
    return plumb_mkdir_p(path, 0777, &d) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes text to path like every plumb output: atomically, never through a
 * link or onto anything but a regular file. */
static bool save_text(const char *path, const char *text, size_t len)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    const void *parts[1] = {text};
    return plumb_write_file_atomic(path, parts, &len, 1, &d);
}

/* Saves what it takes to replay a failing case without the runner: the
 * program, its inputs as tensor files and a note with the verdict. */
static void save_repro(conf_run *run, const conf_case *c, conf_case_result *r, uint32_t *n_saved)
{
    const conf_run_options *o = &run->opts;
    uint32_t cap = o->max_repros ? o->max_repros : 50;
    if (!o->repro_dir || *n_saved >= cap)
        return;
    char name[160], dir[1024], path[1200];
    sanitize(c->id, name, sizeof name);
    snprintf(dir, sizeof dir, "%s/%s", o->repro_dir, name);
    if (!mkdir_p(dir))
        return;
    snprintf(path, sizeof path, "%s/program.mlir", dir);
    if (!save_text(path, c->program, strlen(c->program)))
        return;
    plumb_buf cmd;
    plumb_buf_init(&cmd);
    plumb_buf_puts(&cmd, "plumb run");
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        plumb_diag d;
        plumb_diag_clear(&d);
        snprintf(path, sizeof path, "%s/input_%u.tensor", dir, i);
        plumb_tensor_save(path, c->inputs[i], false, &d);
        plumb_buf_printf(&cmd, " --input %u=input_%u.tensor", i, i);
    }
    plumb_buf_puts(&cmd, " program.mlir");
    snprintf(path, sizeof path, "%s/README.txt", dir);
    plumb_buf note;
    plumb_buf_init(&note);
    /* The replay on the backend names it by absolute path: the commands
     * run from the reproducer's directory. */
    char abs_backend[4096];
    const char *bk = run->backend.where;
    if (conf_backend_is_path(bk) && realpath(bk, abs_backend))
        bk = abs_backend;
    const char *args = cmd.data ? cmd.data + strlen("plumb run") : " program.mlir";
    plumb_buf_printf(&note, "case:    %s\nbackend: %s (%s %s)\nverdict: %s\nreason:  %s\n\n"
                            "Replay on the reference (the expected results):\n  %s\n"
                            "Replay on the backend, compared with the reference (each result's error,\n"
                            "the failing element's index and inputs):\n  plumb run --backend %s --compare%s\n",
                     c->id, run->backend.where, run->backend.name, run->backend.version,
                     conf_status_name(r->status), r->reason, cmd.data ? cmd.data : "plumb run program.mlir", bk,
                     args);
    if (!note.failed)
        (void)save_text(path, note.data, note.len);
    plumb_buf_free(&note);
    plumb_buf_free(&cmd);
    copy_str(r->repro, sizeof r->repro, dir);
    (*n_saved)++;
}

static void record(conf_run *run, op_state *st, plumb_opcode op, uint32_t case_index, conf_status status,
                   double budget, double seconds, const char *reason, uint32_t *n_saved)
{
    const conf_case *c = &st->cs.v[case_index];
    conf_case_result r;
    memset(&r, 0, sizeof r);
    copy_str(r.id, sizeof r.id, c->id);
    r.op = op;
    r.dtype = c->dtype;
    r.status = status;
    r.budget_used = budget;
    r.seconds = seconds;
    r.attempts = 1;
    copy_str(r.reason, sizeof r.reason, reason ? reason : "");
    if (status != CONF_ST_PASS)
        save_repro(run, c, &r, n_saved);
    conf_op_summary *s = &run->ops[op];
    s->cases++;
    if (status == CONF_ST_PASS) {
        s->passed++;
        run->passed++;
    } else {
        s->failed++;
        run->failed++;
    }
    if (budget > s->worst_budget || s->worst_case[0] == 0) {
        if (budget >= s->worst_budget) {
            s->worst_budget = budget;
            copy_str(s->worst_case, sizeof s->worst_case, c->id);
        }
    }
    if (!push_result(run, &r))
        run->ok = false;
    st->outstanding--;
}

static uint32_t shard_share(uint32_t total, uint32_t index, uint32_t count)
{
    if (count <= 1)
        return total;
    return total / count + (index < total % count ? 1 : 0);
}

static bool case_selected(const conf_run_options *o, const char *id)
{
    for (uint32_t i = 0; i < o->n_case_ids; i++)
        if (strcmp(o->case_ids[i], id) == 0)
            return true;
    return false;
}

/* How many of the --case ids name cases of op. */
static uint32_t cases_of_op(const conf_run_options *o, plumb_opcode op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < o->n_case_ids; i++) {
        plumb_opcode c;
        n += conf_case_id_op(o->case_ids[i], &c) && c == op;
    }
    return n;
}

/* Generates an op's cases and decides which of them this backend runs. */
static bool prepare_op(conf_run *run, plumb_opcode op, op_state *st, plumb_diag *d)
{
    const conf_run_options *o = &run->opts;
    conf_op_summary *s = &run->ops[op];
    plumb_diag gd;
    plumb_diag_clear(&gd);
    memset(&st->cs, 0, sizeof st->cs);
    st->generated = true;
    if (!conf_generate(op, o->suite, o->seed, o->shard_index, o->shard_count, &st->cs, &gd)) {
        s->manifest_ok = false;
        copy_str(s->note, sizeof s->note, "case generation failed: ");
        copy_str(s->note + 24, sizeof s->note - 24, gd.msg);
        s->failed++;
        run->failed++;
        return true;
    }
    s->generated = st->cs.n;
    if (!o->case_ids && s->generated < s->expected) {
        s->manifest_ok = false;
        snprintf(s->note, sizeof s->note, "manifest: %u cases expected in this shard, %u generated",
                 s->expected, s->generated);
    }
    st->order = st->cs.n ? plumb_calloc(st->cs.n, sizeof *st->order) : NULL;
    if (st->cs.n && !st->order) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
        return false;
    }
    /* Grouped by element type so a batch exercises one kernel family. */
    uint32_t selected = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        for (uint32_t i = 0; i < st->cs.n; i++) {
            if (st->cs.v[i].dtype != (plumb_dtype)t)
                continue;
            /* --case / --rerun-failures: the other cases are out of scope,
             * not skipped. */
            if (o->case_ids && !case_selected(o, st->cs.v[i].id))
                continue;
            selected++;
            /* Polymorphic cases need a backend that claims `?` shapes; one
             * that does not is certified on static programs only. */
            bool poly_unsupported = st->cs.v[i].polymorphic && run->backend.caps.poly == PLUMB_BACKEND_POLY_NONE;
            if (!(s->claimed & PLUMB_TY_BIT(t)) || poly_unsupported) {
                s->skipped++;
                run->skipped++;
                if (poly_unsupported && (s->claimed & PLUMB_TY_BIT(t))) {
                    s->skipped_poly++;
                    run->skipped_poly++;
                }
                continue;
            }
            if (o->limit && st->n_order >= o->limit)
                continue;
            st->order[st->n_order++] = i;
        }
    }
    /* Every claimed case must get a verdict; --limit makes that impossible
     * on purpose, and the manifest says so. */
    uint32_t claimed_cases = selected - s->skipped;
    if (st->n_order < claimed_cases) {
        s->manifest_ok = false;
        snprintf(s->note, sizeof s->note, "manifest: %u claimed cases, only %u run (--limit)", claimed_cases,
                 st->n_order);
    }
    st->outstanding = st->n_order;
    return true;
}

static void release_op(op_state *st)
{
    if (!st->generated)
        return;
    size_t n = st->cs.n;
    conf_cases_free(&st->cs);
    memset(&st->cs, 0, sizeof st->cs);
    plumb_free(st->order, n * sizeof *st->order);
    st->order = NULL;
    st->generated = false;
}

static void progress(conf_run *run, const char *op, uint64_t done, uint64_t total, double *last)
{
    if (!run->opts.progress)
        return;
    double now = conf_now();
    if (now - *last < 0.2 && done < total)
        return;
    *last = now;
    fprintf(stderr, "\rcertify: %-34s %llu/%llu cases, %llu failed   ", op, (unsigned long long)done,
            (unsigned long long)total, (unsigned long long)run->failed);
    fflush(stderr);
}

void conf_run_describe_exit(int status, const conf_guard *g, char *buf, size_t cap)
{
    /* "died of signal 11 (Segmentation fault) in execute": the call comes
     * from the worker's guard page. */
    char how[200];
    conf_guard_describe(g, status, how, sizeof how);
    snprintf(buf, cap, "worker %s while running this case", how);
}

/* A worker starts clean: handlers the parent installed (a test harness
 * catching SIGSEGV, say) must not turn a backend's crash into something
 * else, and the report on stdout is not the worker's to write into
 * (conf_guard_child; g notes the plugin call in progress). */
static void worker_init(conf_guard *g)
{
    conf_guard_child(g);
}

/* One case in this many (by index in its op's list) is also run in a
 * separate process when the backend declares determinism; with few_forks,
 * the last case of every batch instead. */
#define RUN_ISOLATED_EVERY 16

/* The body of a worker process: positions [lo, hi) of the op's order. */
static void batch_worker(conf_run *run, const op_state *st, batch bt, int fd)
{
    conf_backend *b = &run->backend;
    /* Any instance inherited from the parent is not ours to use: its
     * threads did not come along through fork. */
    b->inst = NULL;
    plumb_diag d;
    plumb_diag_clear(&d);
    wire_rec r;
    bool have = conf_backend_instance(b, run->opts.options, run->opts.n_options, &d);
    for (uint32_t k = bt.lo; k < bt.hi; k++) {
        memset(&r, 0, sizeof r);
        r.index = st->order[k];
        if (have) {
            /* A backend that declares determinism runs every case twice, and
             * one case in RUN_ISOLATED_EVERY a third time in a process of
             * its own (a fork and a fresh instance each: a sample keeps the
             * quick suite within its time). With few_forks (sanitized
             * builds: make check runs the same suites with the full sample)
             * the batch's last case only: the one with the most cases run
             * before it in the worker's instance, so state that one case
             * leaves behind for the next still shows; the quick suite's
             * batches are ~64 cases then, so one rerun per batch is about a
             * quarter of one in 16. */
            bool sampled = run->opts.few_forks ? k + 1 == bt.hi : r.index % RUN_ISOLATED_EVERY == 0;
            conf_repeat rep = {b->caps.deterministic, b->caps.deterministic && sampled, run->opts.options,
                               run->opts.n_options, run->opts.timeout_s};
            run_one(b, &st->cs.v[r.index], &rep, &r);
        } else {
            /* Without an instance no case can run; each says why. */
            r.status = CONF_ST_ERROR;
            copy_str(r.reason, sizeof r.reason, d.msg);
        }
        if (!conf_write_all(fd, &r, sizeof r))
            _exit(3);
    }
    conf_backend_close(b);
    _exit(0);
}

static bool spawn(conf_run *run, op_state *states, worker *w, batch bt)
{
    int p[2];
    if (pipe(p) != 0)
        return false;
    conf_guard_free(w->guard);
    w->guard = conf_guard_new();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return false;
    }
    if (pid == 0) {
        close(p[0]);
        worker_init(w->guard);
        batch_worker(run, &states[bt.op], bt, p[1]);
    }
    close(p[1]);
    w->pid = pid;
    w->fd = p[0];
    w->bt = bt;
    w->done = 0;
    w->have = 0;
    w->deadline = conf_now() + run->opts.timeout_s;
    return true;
}

/* Reaps a worker that ended early or timed out: its current case fails, the
 * rest of its batch is queued again. */
static void worker_lost(conf_run *run, op_state *states, worker *w, bool timed_out, batch *queue,
                        uint32_t *qhead, uint32_t *n_saved)
{
    int status = 0;
    if (timed_out)
        kill(w->pid, SIGKILL);
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(w->fd);
    op_state *st = &states[w->bt.op];
    uint32_t pos = w->bt.lo + w->done;
    if (pos < w->bt.hi) {
        char why[256];
        if (timed_out)
            snprintf(why, sizeof why, "timed out after %g s %s%.*s (the worker was killed)", run->opts.timeout_s,
                     w->guard && w->guard->call[0] ? "in " : "between plugin calls",
                     w->guard ? (int)sizeof w->guard->call : 0, w->guard ? w->guard->call : "");
        else
            conf_run_describe_exit(status, w->guard, why, sizeof why);
        record(run, st, w->bt.op, st->order[pos], timed_out ? CONF_ST_TIMEOUT : CONF_ST_CRASH, CONF_BUDGET_MISMATCH,
               timed_out ? run->opts.timeout_s : 0, why, n_saved);
        if (pos + 1 < w->bt.hi) {
            /* The queue always has room: a batch is replaced by at most one. */
            (*qhead)--;
            queue[*qhead] = (batch){w->bt.op, pos + 1, w->bt.hi};
        }
    }
    w->pid = 0;
}

static bool op_selected(const conf_run_options *o, plumb_opcode op)
{
    return !o->ops_filter || o->ops_given[op];
}

bool conf_run_certify(const conf_run_options *o, conf_run *run, plumb_diag *d)
{
    memset(run, 0, sizeof *run);
    run->opts = *o;
    if (run->opts.shard_count == 0)
        run->opts.shard_count = 1;
    if (run->opts.jobs == 0)
        run->opts.jobs = 1;
    if (run->opts.batch == 0)
        run->opts.batch = 64;
    if (!(run->opts.timeout_s > 0))
        run->opts.timeout_s = 60;
    o = &run->opts;
    double t_start = conf_now();
    run->started = (int64_t)time(NULL);
    if (!conf_backend_open_timeout(o->backend, o->options, o->n_options, o->timeout_s, &run->backend, d))
        return false;
    run->backend.max_bytes = o->max_bytes;
    run->ok = true;

    /* Which ops this run covers, what they expect and what is claimed. */
    uint64_t total_claimed = 0;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        plumb_opcode op = (plumb_opcode)i;
        uint32_t m = conf_manifest_count(op, o->suite);
        if (m == 0 || !op_selected(o, op))
            continue;
        if (o->case_ids) {
            /* Only the ops of the given cases, each expecting those. */
            m = cases_of_op(o, op);
            if (m == 0)
                continue;
        }
        conf_op_summary *s = &run->ops[op];
        run->op_in_run[op] = true;
        s->op = op;
        s->claimed = run->backend.caps.claims[op];
        s->expected = o->case_ids ? m : shard_share(m, o->shard_index, o->shard_count);
        s->manifest_ok = true;
        if (!s->claimed) {
            /* Unsupported: counted, never run, never generated. */
            s->skipped = s->expected;
            run->skipped += s->expected;
            snprintf(s->note, sizeof s->note, "unsupported: not claimed by the backend");
        } else {
            total_claimed += s->expected;
        }
    }

    op_state *states = plumb_calloc(PLUMB_OP_COUNT, sizeof *states);
    uint32_t qcap = 4096;
    batch *queue = plumb_calloc(qcap, sizeof *queue);
    worker *ws = plumb_calloc(o->jobs, sizeof *ws);
    if (!states || !queue || !ws) {
        plumb_free(states, PLUMB_OP_COUNT * sizeof *states);
        plumb_free(queue, qcap * sizeof *queue);
        plumb_free(ws, o->jobs * sizeof *ws);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
        return false;
    }
    /* The queue is used as a deque: new batches at the tail, a crashed
     * batch's remainder at the head (so it runs next). */
    uint32_t qhead = 1024, qtail = 1024;
    int next_op = 0;
    uint32_t n_saved = 0;
    uint32_t active = 0;
    uint64_t done_cases = 0;
    double last_progress = 0;
    bool fatal = false;

    for (;;) {
        /* Refill the queue from the next op when it runs dry. */
        while (qhead == qtail && next_op < PLUMB_OP_COUNT) {
            plumb_opcode op = (plumb_opcode)next_op++;
            if (!run->op_in_run[op] || !run->ops[op].claimed)
                continue;
            if (!prepare_op(run, op, &states[op], d)) {
                fatal = true;
                break;
            }
            op_state *st = &states[op];
            /* Batches never mix element types (a worker then exercises one
             * kernel family; the quick suite's batches are ~10 cases, as
             * many ops have a few cases per type), except with few_forks:
             * an op's cases, still in element type order, fill batches of
             * up to opts.batch, some 5 times fewer worker forks. */
            uint32_t lo = 0;
            while (lo < st->n_order) {
                plumb_dtype t = st->cs.v[st->order[lo]].dtype;
                uint32_t hi = lo;
                while (hi < st->n_order && hi - lo < o->batch &&
                       (o->few_forks || st->cs.v[st->order[hi]].dtype == t))
                    hi++;
                if (qtail == qcap) {
                    uint32_t nc = qcap * 2;
                    batch *nq = plumb_realloc(queue, qcap * sizeof *nq, nc * sizeof *nq);
                    if (!nq) {
                        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
                        fatal = true;
                        break;
                    }
                    queue = nq;
                    qcap = nc;
                }
                queue[qtail++] = (batch){op, lo, hi};
                lo = hi;
            }
            if (fatal)
                break;
            if (st->n_order == 0)
                release_op(st);
        }
        if (fatal)
            break;
        /* Start workers while there is work and room. */
        for (uint32_t k = 0; k < o->jobs && qhead < qtail; k++) {
            if (ws[k].pid)
                continue;
            batch bt = queue[qhead++];
            if (!spawn(run, states, &ws[k], bt)) {
                plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "cannot start a worker process: %s",
                               strerror(errno));
                fatal = true;
                break;
            }
            active++;
        }
        if (fatal || active == 0)
            break;
        /* Wait for records or a deadline. */
        struct pollfd pfd[64];
        uint32_t map[64], np = 0;
        double now = conf_now(), first_deadline = now + 3600;
        for (uint32_t k = 0; k < o->jobs && np < 64; k++) {
            if (!ws[k].pid)
                continue;
            pfd[np].fd = ws[k].fd;
            pfd[np].events = POLLIN;
            pfd[np].revents = 0;
            map[np++] = k;
            if (ws[k].deadline < first_deadline)
                first_deadline = ws[k].deadline;
        }
        double wait_s = first_deadline - now;
        int wait_ms = wait_s <= 0 ? 0 : (int)(wait_s * 1000) + 1;
        int pr = poll(pfd, np, wait_ms);
        if (pr < 0 && errno != EINTR) {
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "poll: %s", strerror(errno));
            fatal = true;
            break;
        }
        now = conf_now();
        for (uint32_t j = 0; j < np; j++) {
            worker *w = &ws[map[j]];
            op_state *st = &states[w->bt.op];
            if (pr > 0 && (pfd[j].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t got = read(w->fd, w->partial + w->have, sizeof(wire_rec) - w->have);
                if (got < 0 && errno == EINTR)
                    continue;
                if (got > 0) {
                    w->have += (size_t)got;
                    if (w->have == sizeof(wire_rec)) {
                        wire_rec r;
                        memcpy(&r, w->partial, sizeof r);
                        w->have = 0;
                        uint32_t pos = w->bt.lo + w->done;
                        /* A record for any other case than the current
                         * one means the worker's memory is corrupt. */
                        if (r.index != st->order[pos] || r.status > CONF_ST_TIMEOUT) {
                            r.status = CONF_ST_CRASH;
                            snprintf(r.reason, sizeof r.reason, "worker sent a malformed record");
                            r.index = st->order[pos];
                        }
                        r.reason[sizeof r.reason - 1] = 0;
                        record(run, st, w->bt.op, r.index, (conf_status)r.status, r.budget_used, r.seconds,
                               r.reason, &n_saved);
                        w->done++;
                        done_cases++;
                        w->deadline = now + o->timeout_s;
                        progress(run, plumb_op_name(w->bt.op), done_cases, total_claimed, &last_progress);
                    }
                    continue;
                }
                /* EOF: the worker is finished or dead. */
                if (w->bt.lo + w->done < w->bt.hi)
                    done_cases++;
                worker_lost(run, states, w, false, queue, &qhead, &n_saved);
                active--;
            } else if (now >= w->deadline) {
                done_cases++;
                worker_lost(run, states, w, true, queue, &qhead, &n_saved);
                active--;
            }
            if (!w->pid && st->outstanding == 0)
                release_op(st);
        }
    }
    /* On a fatal error, stop whatever still runs. */
    for (uint32_t k = 0; k < o->jobs; k++) {
        if (ws[k].pid) {
            kill(ws[k].pid, SIGKILL);
            waitpid(ws[k].pid, NULL, 0);
            close(ws[k].fd);
        }
        conf_guard_free(ws[k].guard);
    }
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        release_op(&states[i]);
    plumb_free(states, PLUMB_OP_COUNT * sizeof *states);
    plumb_free(queue, qcap * sizeof *queue);
    plumb_free(ws, o->jobs * sizeof *ws);
    if (!results_settle(run))
        run->ok = false;
    if (o->progress)
        fprintf(stderr, "\r%80s\r", "");
    if (fatal) {
        conf_backend_close(&run->backend);
        return false;
    }

    /* With --ops, the scenarios whose ops are all in the run (the scope
     * already says the run is partial). */
    if (o->cache_suite && !o->case_ids && o->shard_index == 0) {
        conf_cache_suite(run);
        for (uint32_t i = 0; i < run->n_cache; i++) {
            if (run->cache[i].pass)
                run->passed++;
            else
                run->failed++;
        }
    }

    /* Crashes and timeouts get their retries before anything is judged. */
    if (o->retry && !conf_run_retry(run, d)) {
        conf_backend_close(&run->backend);
        return false;
    }
    /* Verdicts in a fixed order (op table order, then case id) so the digest
     * does not depend on which worker or shard ran them. */
    conf_run_digest(run);
    conf_run_judge(run);
    run->seconds = conf_now() - t_start;
    return true;
}

void conf_run_free(conf_run *run)
{
    conf_backend_close(&run->backend);
    plumb_free(run->cases, (size_t)run->cap_cases * sizeof *run->cases);
    run->cases = NULL;
    plumb_free(run->fixed, (size_t)run->n_fixed * sizeof *run->fixed);
    run->fixed = NULL;
    run->n_fixed = 0;
    if (run->arena)
        plumb_arena_free(run->arena);
    run->arena = NULL;
    run->n_cases = run->cap_cases = 0;
}
