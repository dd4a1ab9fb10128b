/* The runtime's public API (include/plumb/runtime.h): options, the memory
 * cache per entry, counters, recompile explanations and the disk cache.
 *
 * A runtime is used from one thread at a time (its kernels use its own
 * thread pool); separate runtimes are independent and may share a cache
 * directory, across threads or processes. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_contract.h"
#include "rt_guard.h"
#include "rt_pipeline.h"
#include "rt_policy.h"
#include "rt_summary.h"

typedef struct rt_entry rt_entry;

/* The handle users hold: stays valid while its program is cached. A
 * program compiled from a module whose constants the lift policy turned
 * into hidden parameters is handed out as a binding per set of lifted
 * values (chained from the cached handle's `bound`), which appends them
 * to the caller's inputs at every run (policy.c, docs/policies.md). */
struct plumb_executable {
    plumb_runtime *rt;
    rt_entry *entry;
    rt_program *prog;
    rt_lifted lifted;          /* the hidden parameters' values; n == 0 for a plain handle */
    plumb_executable *bound;   /* next binding of the same program */
};

typedef struct rt_cached {
    uint64_t key[2];
    rt_canon canon;
    plumb_executable ex;
    uint32_t number;           /* 1-based program number within its entry */
} rt_cached;

/* One budget and one set of programs per module and entry: two unrelated
 * `module @a` and `module @b` both with @main never share (unnamed modules
 * share by entry name, the only identity they have). */
struct rt_entry {
    char *name;
    char *module;              /* module @name, or NULL */
    plumb_runtime_stats st;
    rt_cached **progs;
    uint32_t n_progs, cap_progs;
    uint32_t compiled;         /* programs ever built for this entry (numbers them) */
    uint32_t built;            /* of them, built here rather than served from disk (what contracts count) */
    uint64_t runs_all;         /* runs, never reset (a contract's warm-up) */
    rt_summary sum;            /* causes of its recompiles, for the summary on the log */
    rt_policy_note lifted;     /* what the lift policy did to its programs, for the summary */
    rt_guard_set guards;       /* trace-once guard forms of its programs (rt_guard.h) */
    rt_sig_book sigs;          /* module signatures of its programs (contracts pinned to one) */
};

struct plumb_runtime {
    plumb_runtime_options o;
    plumb_isa isa;             /* in effect, never AUTO */
    uint64_t max_bytes;
    char *cache_dir;           /* NULL = no disk cache */
    uint64_t cache_max_bytes;  /* eviction limit of the disk cache */
    FILE *log;                 /* recompile explanations, or NULL */
    bool log_json;             /* PLUMB_LOG=recompiles:json: the log gets JSON lines */
    bool log_summary;          /* PLUMB_LOG asked for recompiles: a per-entry summary at exit */
    rt_pool *pool;
    plumb_runtime_stats st;
    rt_entry **entries;
    uint32_t n_entries, cap_entries;
    char line[8192];
    char json[32768];
    bool has_explanation;
    rt_canon scratch;          /* lookups serialize here; moved into the cache on a miss */
    plumb_contract *contract;  /* compile contract, or NULL */
    uint32_t policy;           /* RT_POLICY_* flags (rt_policy.h) */
    bool trace_once;           /* the trace-once guard is on (PLUMB_TRACE_ONCE=0 turns it off) */
    rt_canon guard_form;       /* lookups build the guard's form here */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void plumb_runtime_options_init(plumb_runtime_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
    opts->opt_level = PLUMB_RT_OPT_DEFAULT;
}

/* PLUMB_LOG is a comma-separated list of topics; "recompiles" (or "all")
 * turns explanations on, "recompiles:json" as one JSON object per line
 * (*json set; also for a log given in the options). */
static bool env_logs_recompiles(bool *json)
{
    const char *e = getenv("PLUMB_LOG");
    *json = false;
    if (!e)
        return false;
    for (const char *p = e; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 15 && strncmp(p, "recompiles:json", 15) == 0) {
            *json = true;
            return true;
        }
        if ((n == 10 && strncmp(p, "recompiles", 10) == 0) || (n == 3 && strncmp(p, "all", 3) == 0))
            return true;
        p += n;
        if (*p)
            p++;
    }
    return false;
}

/* A byte count: digits, then nothing or K, M, G (powers of 1000) or Ki, Mi,
 * Gi (powers of 1024), as the CLI's --max-bytes; false unless positive. */
static bool parse_size(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++)
        if (plumb_mul_overflow_u64(v, 10, &v) || plumb_add_overflow_u64(v, (uint64_t)(*p - '0'), &v))
            return false;
    static const struct { const char *suffix; uint64_t scale; } units[] = {
        {"", 1}, {"K", 1000ull}, {"M", 1000000ull}, {"G", 1000000000ull},
        {"Ki", 1ull << 10}, {"Mi", 1ull << 20}, {"Gi", 1ull << 30},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(p, units[i].suffix) == 0)
            return !plumb_mul_overflow_u64(v, units[i].scale, out) && *out > 0;
    return false;
}

plumb_runtime *plumb_runtime_create(const plumb_runtime_options *opts, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    if (opts) {
        if (opts->struct_size < sizeof o) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, none,
                           "plumb_runtime_options.struct_size is %zu, expected %zu (call plumb_runtime_options_init)",
                           opts->struct_size, sizeof o);
            return NULL;
        }
        o = *opts;
    }
    if (o.opt_level > 2) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "opt_level %u is not 0, 1 or 2", o.opt_level);
        return NULL;
    }
    if ((unsigned)o.isa > PLUMB_ISA_AVX512) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "isa %u is not a plumb_isa value", (unsigned)o.isa);
        return NULL;
    }
    plumb_runtime *rt = plumb_calloc(1, sizeof *rt);
    if (!rt) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory creating the runtime");
        return NULL;
    }
    rt->o = o;
    rt->st.struct_size = sizeof rt->st;
    plumb_isa best = rt_cpu_best_isa();
    if (o.isa == PLUMB_ISA_AUTO) {
        rt->isa = best;
    } else if (o.isa > best) {
        plumb_diag_set(d, PLUMB_ERR_UNSUPPORTED, none, "isa %s was requested but this CPU (or PLUMB_ISA) allows %s",
                       rt_isa_name(o.isa), rt_isa_name(best));
        plumb_free(rt, sizeof *rt);
        return NULL;
    } else {
        rt->isa = o.isa;
    }
    rt->max_bytes = plumb_max_bytes(o.max_bytes);
    const char *pol = o.policy ? o.policy : getenv("PLUMB_POLICY");
    char perr[160];
    rt->o.policy = NULL;
    if (!rt_policy_parse(pol, &rt->policy, perr, sizeof perr)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "%s: %s", o.policy ? "plumb_runtime_options.policy" : "PLUMB_POLICY",
                       perr);
        plumb_free(rt, sizeof *rt);
        return NULL;
    }
    const char *dir = o.cache_dir ? o.cache_dir : getenv("PLUMB_CACHE_DIR");
    if (dir && *dir && !(rt->cache_dir = plumb_strndup(dir, strlen(dir)))) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory creating the runtime");
        plumb_free(rt, sizeof *rt);
        return NULL;
    }
    rt->o.cache_dir = NULL;
    rt->cache_max_bytes = o.cache_max_bytes;
    if (!rt->cache_max_bytes) {
        const char *mb = getenv("PLUMB_CACHE_MAX_BYTES");
        rt->cache_max_bytes = (uint64_t)1 << 30;
        if (mb && *mb) {
            uint64_t v;
            if (parse_size(mb, &v))
                rt->cache_max_bytes = v;
            else
                fprintf(o.log ? o.log : stderr,
                        "plumb: warning: PLUMB_CACHE_MAX_BYTES='%s' is not a positive size; using 1Gi\n", mb);
        }
    }
    const char *to = getenv("PLUMB_TRACE_ONCE");
    rt->trace_once = !(to && strcmp(to, "0") == 0);
    bool env_log = env_logs_recompiles(&rt->log_json);
    rt->log = o.log ? o.log : env_log ? stderr : NULL;
    rt->log_summary = env_log;
    /* A cache directory others could write is never trusted; the run goes
     * on without it after a one-line warning (cache.c: rt_disk_dir_open). */
    if (rt->cache_dir && !rt_disk_dir_usable(rt->cache_dir, rt->log ? rt->log : stderr)) {
        plumb_free(rt->cache_dir, strlen(rt->cache_dir) + 1);
        rt->cache_dir = NULL;
    }
    uint32_t threads = o.threads;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 && n < 256 ? (uint32_t)n : 1;
    }
    if (!(rt->pool = rt_pool_new(threads, d))) {
        if (rt->cache_dir)
            plumb_free(rt->cache_dir, strlen(rt->cache_dir) + 1);
        plumb_free(rt, sizeof *rt);
        return NULL;
    }
    const char *cf = o.contract_file ? o.contract_file : getenv("PLUMB_CONTRACT");
    rt->o.contract_file = NULL;
    if (cf && *cf) {
        rt_key_ctx kc = {rt->isa, rt->o.opt_level};
        if (!(rt->contract = plumb_contract_load(cf, d)) || !rt_contract_resolve(rt->contract, &kc, rt->max_bytes, d)) {
            plumb_runtime_destroy(rt);
            return NULL;
        }
    }
    return rt;
}

static void cached_free(rt_cached *c)
{
    for (plumb_executable *b = c->ex.bound, *next; b; b = next) {
        next = b->bound;
        rt_lifted_free(&b->lifted);
        plumb_free(b, sizeof *b);
    }
    rt_program_free(c->ex.prog);
    rt_canon_free(&c->canon);
    plumb_free(c, sizeof *c);
}

static void entry_clear(rt_entry *e)
{
    for (uint32_t i = 0; i < e->n_progs; i++)
        cached_free(e->progs[i]);
    rt_guard_clear(&e->guards);
    e->n_progs = 0;
    e->st.programs = 0;
}

void plumb_runtime_cache_clear(plumb_runtime *rt)
{
    if (!rt)
        return;
    for (uint32_t i = 0; i < rt->n_entries; i++)
        entry_clear(rt->entries[i]);
    rt->st.programs = 0;
}

void plumb_runtime_destroy(plumb_runtime *rt)
{
    if (!rt)
        return;
    /* At exit, when PLUMB_LOG or the options ask: each entry's programs and what caused them. */
    FILE *sum = rt->o.summary ? rt->o.summary : rt->log_summary ? rt->log : NULL;
    for (uint32_t i = 0; sum && i < rt->n_entries; i++)
        if (rt->entries[i]->st.compiles)
            rt_summary_print(sum, rt->log_json || rt->o.summary_json, rt->entries[i]->module,
                             rt->entries[i]->name, &rt->entries[i]->sum, &rt->entries[i]->st);
    for (uint32_t i = 0; sum && i < rt->n_entries; i++)
        rt_policy_note_print(sum, rt->log_json || rt->o.summary_json, rt->entries[i]->module,
                             rt->entries[i]->name, &rt->entries[i]->lifted);
    for (uint32_t i = 0; i < rt->n_entries; i++) {
        rt_entry *e = rt->entries[i];
        entry_clear(e);
        if (e->progs)
            plumb_free(e->progs, (size_t)e->cap_progs * sizeof *e->progs);
        plumb_free(e->name, strlen(e->name) + 1);
        if (e->module)
            plumb_free(e->module, strlen(e->module) + 1);
        plumb_free(e, sizeof *e);
    }
    if (rt->entries)
        plumb_free(rt->entries, (size_t)rt->cap_entries * sizeof *rt->entries);
    rt_canon_free(&rt->scratch);
    rt_canon_free(&rt->guard_form);
    plumb_contract_free(rt->contract);
    rt_pool_free(rt->pool);
    if (rt->cache_dir)
        plumb_free(rt->cache_dir, strlen(rt->cache_dir) + 1);
    plumb_free(rt, sizeof *rt);
}

static bool same_module(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static rt_entry *find_entry(const plumb_runtime *rt, const char *module, const char *name)
{
    for (uint32_t i = 0; i < rt->n_entries; i++)
        if (strcmp(rt->entries[i]->name, name) == 0 && same_module(rt->entries[i]->module, module))
            return rt->entries[i];
    return NULL;
}

static rt_entry *get_entry(plumb_runtime *rt, const char *module, const char *name)
{
    rt_entry *e = find_entry(rt, module, name);
    if (e)
        return e;
    if (rt->n_entries == rt->cap_entries) {
        uint32_t ncap = rt->cap_entries ? rt->cap_entries * 2 : 4;
        rt_entry **ne = plumb_realloc(rt->entries, (size_t)rt->cap_entries * sizeof *ne, (size_t)ncap * sizeof *ne);
        if (!ne)
            return NULL;
        rt->entries = ne;
        rt->cap_entries = ncap;
    }
    if (!(e = plumb_calloc(1, sizeof *e)))
        return NULL;
    if (!(e->name = plumb_strndup(name, strlen(name)))) {
        plumb_free(e, sizeof *e);
        return NULL;
    }
    if (module && !(e->module = plumb_strndup(module, strlen(module)))) {
        plumb_free(e->name, strlen(e->name) + 1);
        plumb_free(e, sizeof *e);
        return NULL;
    }
    e->st.struct_size = sizeof e->st;
    rt->entries[rt->n_entries++] = e;
    return e;
}

static const ir_func *entry_func(const ir_module *m, const char *entry, plumb_diag *d)
{
    const char *name = entry ? entry : "main";
    const ir_func *f = m ? ir_module_find_func(m, name) : NULL;
    if (!f) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "the module has no function @%s", name);
        if (m)
            d->file = m->filename;
    }
    return f;
}

static rt_key_ctx key_ctx(const plumb_runtime *rt)
{
    rt_key_ctx kc = {rt->isa, rt->o.opt_level};
    return kc;
}

bool plumb_runtime_key(const plumb_runtime *rt, const ir_module *m, const char *entry, uint64_t key[2], plumb_diag *d)
{
    if (rt && m && ir_module_has_tuples(m)) {   /* the key of what compiles: tuples lowered */
        ir_module *flat = ir_tuple_flatten(m, d);
        if (!flat)
            return false;
        bool keyed = plumb_runtime_key(rt, flat, entry, key, d);
        ir_module_free(flat);
        return keyed;
    }
    const ir_func *f = entry_func(m, entry, d);
    if (!f)
        return false;
    rt_key_ctx kc = key_ctx(rt);
    rt_canon c;
    memset(&c, 0, sizeof c);
    /* Under a policy the cache keys the rewritten program. */
    ir_module *lm = NULL;
    rt_lifted lv;
    if (!rt_policy_lift(m, f, rt->policy, rt->max_bytes, &lm, &lv, d))
        return false;
    bool ok = rt_canon_build(&c, lm ? lm : m, lm ? ir_module_find_func(lm, f->name) : f, &kc, d);
    if (ok) {
        rt_canon_key(&c, key);
        rt_canon_free(&c);
    }
    rt_lifted_free(&lv);
    ir_module_free(lm);
    return ok;
}

static bool add_program(rt_entry *e, rt_cached *c)
{
    if (e->n_progs == e->cap_progs) {
        uint32_t ncap = e->cap_progs ? e->cap_progs * 2 : 4;
        rt_cached **np = plumb_realloc(e->progs, (size_t)e->cap_progs * sizeof *np, (size_t)ncap * sizeof *np);
        if (!np)
            return false;
        e->progs = np;
        e->cap_progs = ncap;
    }
    e->progs[e->n_progs++] = c;
    return true;
}

static void log_json_reject(FILE *f, const char *path, const char *entry, const char *why)
{
    fputs("{\"disk_reject\": {\"path\": ", f);
    plumb_json_str_fput(f, path);
    fputs(", \"entry\": ", f);
    plumb_json_str_fput(f, entry);
    fputs(", \"reason\": ", f);
    plumb_json_str_fput(f, why);
    fputs("}}\n", f);
}

/* Fills rt->line/json with why `now` is new for entry e. */
static void explain(plumb_runtime *rt, const rt_entry *e, const rt_canon *now, uint32_t number)
{
    uint32_t best = 0, best_d = UINT32_MAX;
    for (uint32_t i = 0; i < e->n_progs; i++) {
        uint32_t dd = rt_canon_distance(&e->progs[i]->canon, now);
        if (dd < best_d) {
            best_d = dd;
            best = i;
        }
    }
    rt_explain(&e->progs[best]->canon, now, e->name, number, e->progs[best]->number, rt->line, sizeof rt->line,
               rt->json, sizeof rt->json);
    rt->has_explanation = true;
    if (rt->log) {
        if (rt->log_json)
            fprintf(rt->log, "{\"recompile\": %s}\n", rt->json);
        else
            fprintf(rt->log, "plumb: %s\n", rt->line);
        fflush(rt->log);
    }
}

static plumb_executable *compile_entry(plumb_runtime *rt, const ir_module *m, const char *entry, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (!rt || !m) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, none, "plumb_runtime_compile: %s is NULL", rt ? "the module" : "the runtime");
        return NULL;
    }
    const ir_func *f = entry_func(m, entry, d);
    if (!f)
        return NULL;
    rt_key_ctx kc = key_ctx(rt);
    /* Trace-once guard: a module seen before, unchanged but for the bytes
     * of its large constants (which its uid vouches for), is served without
     * copying them (rt_guard.h). Any doubt falls through to the full lookup. */
    uint32_t n_refs = 0;
    rt_canon *form = &rt->guard_form;
    if (rt->trace_once && m->uid) {
        plumb_diag gd = {.code = PLUMB_OK};
        if (!rt_canon_build_guard(form, m, f, &kc, &n_refs, &gd))
            n_refs = 0;
    }
    if (n_refs) {
        rt_entry *ge = find_entry(rt, m->name, f->name);
        rt_cached *h = ge ? rt_guard_find(&ge->guards, form) : NULL;
        if (h) {
            if (rt->contract)
                rt_contract_touch(rt->contract, ge->module, ge->name, rt_module_signature(f));
            ge->st.cache_hits++;
            rt->st.cache_hits++;
            ge->st.trace_hits++;
            rt->st.trace_hits++;
            return &h->ex;
        }
    }
    rt_canon *now = &rt->scratch;
    if (!rt_canon_build(now, m, f, &kc, d))
        return NULL;
    uint64_t key[2];
    rt_canon_key(now, key);
    rt_entry *e = get_entry(rt, m->name, f->name);
    if (!e) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory looking up @%s", f->name);
        return NULL;
    }
    /* The module's signature: which of several models under one @name a
     * contract rule pinned to a signature means (docs/contracts.md). */
    uint64_t sig = rt->contract ? rt_module_signature(f) : 0;
    if (rt->contract)
        rt_contract_touch(rt->contract, e->module, e->name, sig);
    for (uint32_t i = 0; i < e->n_progs; i++) {
        rt_cached *h = e->progs[i];
        if (h->key[0] == key[0] && h->key[1] == key[1] && rt_canon_equal(&h->canon, now)) {
            e->st.cache_hits++;
            rt->st.cache_hits++;
            if (n_refs)   /* out of memory only costs the next lookup its shortcut */
                (void)rt_guard_add(&e->guards, form, h);
            return &h->ex;
        }
    }
    rt_cached *c = plumb_calloc(1, sizeof *c);
    if (!c) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory caching the program of @%s", f->name);
        return NULL;
    }
    /* The serialization moves into the cache; its numbering scratch stays.
     * Debug locations become text now: the module may be freed. */
    rt_canon_keep_origins(now);
    c->canon = *now;
    c->canon.num = NULL;
    c->canon.cap_num = 0;
    uint32_t *num = now->num, cap_num = now->cap_num;
    memset(now, 0, sizeof *now);
    now->num = num;
    now->cap_num = cap_num;
    c->key[0] = key[0];
    c->key[1] = key[1];
    uint32_t number = e->compiled + 1;
    rt->has_explanation = false;
    double t0 = now_s();
    rt_compile_opts co = {rt->o.opt_level, rt->isa, rt->max_bytes, rt->pool, rt->cache_dir != NULL};
    rt_program *p = NULL;
    bool from_disk = false;
    if (rt->cache_dir) {
        size_t tlen = 0;
        const char *why = NULL;
        char *text = rt_disk_load(rt->cache_dir, c->key, &c->canon, &kc, &tlen, &why);
        plumb_diag sd = {.code = PLUMB_OK};
        if (text) {
            co.want_text = false;
            p = rt_program_load(text, tlen, &co, &sd);
            plumb_free(text, tlen + 1);
            from_disk = p != NULL;
            co.want_text = true;
            if (!p)
                why = sd.msg[0] ? sd.msg : "the stored program does not load";
        }
        /* A found entry that is not served is never silent: counted, and
         * logged with its reason; the rebuilt program replaces it. */
        if (!p && why && why[0]) {
            e->st.disk_rejects++;
            rt->st.disk_rejects++;
            if (rt->log) {
                char path[4096];
                if (!rt_disk_path(rt->cache_dir, c->key, path, sizeof path))
                    snprintf(path, sizeof path, "%s", rt->cache_dir);
                if (rt->log_json)
                    log_json_reject(rt->log, path, e->name, why);
                else
                    fprintf(rt->log, "plumb: disk cache entry %s of @%s rejected: %s; rebuilding it\n", path,
                            e->name, why);
                fflush(rt->log);
            }
        }
    }
    /* A program served from disk was built by an earlier run: a warm start
     * is not a recompile, so only programs built here are explained and
     * gated. */
    bool recompile = !p && e->n_progs > 0;
    if (recompile) {
        explain(rt, e, &c->canon, number);
        if (rt->o.error_on_recompile) {
            plumb_diag_set(d, PLUMB_ERR_LIMIT, none, "%s [error_on_recompile is set]", rt->line);
            d->file = m->filename;
            cached_free(c);
            return NULL;
        }
        if (rt->o.max_programs_per_entry && e->n_progs >= rt->o.max_programs_per_entry) {
            plumb_diag_set(d, PLUMB_ERR_LIMIT, none, "%s [@%s already has %u programs, max_programs_per_entry = %u]",
                           rt->line, e->name, e->n_progs, rt->o.max_programs_per_entry);
            d->file = m->filename;
            cached_free(c);
            return NULL;
        }
    }
    /* The contract sees every program built here, the entry's first too
     * (a variant list forbids it as well); disk hits were built before. */
    if (!p && rt->contract) {
        char why[sizeof rt->line + 4096];
        rt_contract_warn_shared(rt->contract, &e->sigs, e->module, e->name, sig, rt->log ? rt->log : stderr);
        if (!rt_contract_admit(rt->contract, e->module, e->name, sig, e->built, &e->sigs, e->runs_all, c->key,
                               recompile ? rt->line : NULL, why, sizeof why)) {
            if (rt->log) {   /* the whole text: the error below holds what fits in one diagnostic */
                if (rt->log_json) {
                    fputs("{\"contract_violation\": ", rt->log);
                    plumb_json_str_fput(rt->log, why);
                    fputs("}\n", rt->log);
                } else {
                    fprintf(rt->log, "plumb: %s\n", why);
                }
                fflush(rt->log);
            }
            plumb_diag_set(d, PLUMB_ERR_LIMIT, none, "%s", why);
            d->file = m->filename;
            cached_free(c);
            return NULL;
        }
    }
    if (!p)
        p = rt_program_compile(m, f, &co, d);
    if (!p) {
        cached_free(c);
        return NULL;
    }
    if (rt->cache_dir && !from_disk && p->opt_text) {
        plumb_diag sd = {.code = PLUMB_OK};
        if (!rt_disk_store(rt->cache_dir, c->key, &c->canon, &kc, p->opt_text, p->opt_text_len, &sd)) {
            if (rt->log)
                fprintf(rt->log, "plumb: warning: disk cache not written: %s\n", sd.msg);
        } else if (rt->cache_max_bytes != UINT64_MAX) {
            uint32_t ev = rt_disk_evict(rt->cache_dir, rt->cache_max_bytes, c->key, NULL);
            e->st.disk_evictions += ev;
            rt->st.disk_evictions += ev;
        }
    }
    if (p->opt_text) {   /* only needed to write the disk entry */
        plumb_free(p->opt_text, p->opt_text_len + 1);
        p->opt_text = NULL;
    }
    c->ex.rt = rt;
    c->ex.entry = e;
    c->ex.prog = p;
    c->number = number;
    if (!add_program(e, c)) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory caching the program of @%s", f->name);
        cached_free(c);
        return NULL;
    }
    e->compiled++;
    if (!from_disk)
        e->built++;
    if (rt->contract)
        rt_sig_note(&e->sigs, sig, !from_disk);
    double dt = now_s() - t0;
    e->st.compiles++;
    rt->st.compiles++;
    e->st.compile_seconds += dt;
    rt->st.compile_seconds += dt;
    if (from_disk) {
        e->st.disk_hits++;
        rt->st.disk_hits++;
    }
    if (recompile) {
        e->st.recompiles++;
        rt->st.recompiles++;
        rt_summary_note(&e->sum, rt->json, e->runs_all, rt->log, rt->log_json, e->module, e->name);
    }
    e->st.programs = e->n_progs;
    rt->st.programs++;
    if (n_refs)
        (void)rt_guard_add(&e->guards, form, c);
    return &c->ex;
}

/* The handle of program `ex` that passes the lifted values lv (moved in
 * when a new binding is made; lv is left empty either way). */
static plumb_executable *bind_lifted(plumb_executable *ex, rt_lifted *lv, plumb_diag *d)
{
    for (plumb_executable *b = ex->bound; b; b = b->bound)
        if (rt_lifted_equal(&b->lifted, lv)) {
            rt_lifted_free(lv);
            return b;
        }
    plumb_executable *b = plumb_calloc(1, sizeof *b);
    if (!b) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory binding lifted constants of @%s",
                       ex->entry->name);
        rt_lifted_free(lv);
        return NULL;
    }
    b->rt = ex->rt;
    b->entry = ex->entry;
    b->prog = ex->prog;
    b->lifted = *lv;
    lv->vals = NULL;
    lv->n = 0;
    b->bound = ex->bound;
    ex->bound = b;
    ex->entry->lifted.bindings++;
    return b;
}

/* With a policy: the program is rewritten first (policy.c) and compiled or
 * found under the rewritten program's key; the caller gets the binding of
 * its constants' values. */
plumb_executable *plumb_runtime_compile(plumb_runtime *rt, const ir_module *m, const char *entry, plumb_diag *d)
{
    /* A tuple is just its elements (runtime/k_tuple.c): what is compiled,
     * keyed and cached is the copy of m without tuple-typed values, so a
     * tuple costs no buffer and no copy. The executable takes and gives
     * the leaves of tuple parameters and results. */
    if (rt && m && ir_module_has_tuples(m)) {
        ir_module *flat = ir_tuple_flatten(m, d);
        if (!flat)
            return NULL;
        plumb_executable *ex = plumb_runtime_compile(rt, flat, entry, d);
        ir_module_free(flat);
        return ex;
    }
    if (!rt || !m || !rt->policy)
        return compile_entry(rt, m, entry, d);
    const ir_func *f = entry_func(m, entry, d);
    if (!f)
        return NULL;
    ir_module *lm = NULL;
    rt_lifted lv;
    if (!rt_policy_lift(m, f, rt->policy, rt->max_bytes, &lm, &lv, d)) {
        if (d)
            d->file = m->filename;
        return NULL;
    }
    if (!lm)
        return compile_entry(rt, m, entry, d);
    plumb_executable *ex = compile_entry(rt, lm, f->name, d);
    if (!ex && d)   /* the copy's strings go with it */
        d->file = m->filename;
    uint32_t n_lifted = lv.n;
    plumb_executable *b = ex ? bind_lifted(ex, &lv, d) : NULL;
    if (b)
        rt_policy_note_add(&b->entry->lifted, n_lifted, lv.what);
    rt_lifted_free(&lv);
    ir_module_free(lm);
    return b;
}

uint32_t plumb_executable_num_outputs(const plumb_executable *ex)
{
    return ex ? ex->prog->n_outputs : 0;
}

/* Both run calls: the counters and the execute time. */
static bool run_timed(plumb_executable *ex, plumb_tensor *const *inputs, uint32_t n_inputs, bool allocate,
                      plumb_tensor **fresh, plumb_tensor *const *into, uint32_t n_outputs,
                      uint32_t *checks_failed, plumb_diag *d, const char *fn)
{
    if (!ex) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s: the executable is NULL", fn);
        return false;
    }
    plumb_runtime *rt = ex->rt;
    /* A binding appends the lifted constants after the caller's inputs. */
    plumb_tensor **all = NULL;
    uint32_t n_all = n_inputs + ex->lifted.n;
    if (ex->lifted.n) {
        uint32_t want = ex->prog->n_params - ex->lifted.n;
        if (n_inputs != want) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0},
                           "@%s takes %u inputs, %u given (its %u constants lifted by policy are passed by the "
                           "runtime)", ex->entry->name, want, n_inputs, ex->lifted.n);
            return false;
        }
        if (!(all = plumb_calloc(n_all, sizeof *all))) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory running @%s", ex->entry->name);
            return false;
        }
        if (n_inputs)
            memcpy(all, inputs, (size_t)n_inputs * sizeof *all);
        memcpy(all + n_inputs, ex->lifted.vals, (size_t)ex->lifted.n * sizeof *all);
        inputs = all;
        n_inputs = n_all;
    }
    double t0 = now_s();
    rt_exec_start_run(&ex->prog->x, rt->o.timeout_s);
    bool ok = allocate ? rt_program_run(ex->prog, ex->entry->name, inputs, n_inputs, fresh, n_outputs, rt->log,
                                     checks_failed, d)
                    : rt_program_run_into(ex->prog, ex->entry->name, inputs, n_inputs, into, n_outputs, rt->log,
                                          checks_failed, d);
    double dt = now_s() - t0;
    ex->entry->st.runs++;
    ex->entry->runs_all++;
    rt->st.runs++;
    ex->entry->st.execute_seconds += dt;
    rt->st.execute_seconds += dt;
    if (all)
        plumb_free(all, (size_t)n_all * sizeof *all);
    return ok;
}

bool plumb_executable_run(plumb_executable *ex, plumb_tensor *const *inputs, uint32_t n_inputs,
                          plumb_tensor **outputs, uint32_t n_outputs, uint32_t *checks_failed, plumb_diag *d)
{
    return run_timed(ex, inputs, n_inputs, true, outputs, NULL, n_outputs, checks_failed, d, "plumb_executable_run");
}

bool plumb_executable_run_into(plumb_executable *ex, plumb_tensor *const *inputs, uint32_t n_inputs,
                               plumb_tensor *const *outputs, uint32_t n_outputs, uint32_t *checks_failed,
                               plumb_diag *d)
{
    return run_timed(ex, inputs, n_inputs, false, NULL, outputs, n_outputs, checks_failed, d,
                     "plumb_executable_run_into");
}

bool plumb_runtime_run(plumb_runtime *rt, const ir_module *m, const char *entry, plumb_tensor *const *inputs,
                       uint32_t n_inputs, plumb_tensor **outputs, uint32_t n_outputs, uint32_t *checks_failed,
                       plumb_diag *d)
{
    plumb_executable *ex = plumb_runtime_compile(rt, m, entry, d);
    if (!ex)
        return false;
    return plumb_executable_run(ex, inputs, n_inputs, outputs, n_outputs, checks_failed, d);
}

bool plumb_runtime_stats_get(const plumb_runtime *rt, const char *entry, plumb_runtime_stats *out)
{
    if (!rt || !out)
        return false;
    if (!entry) {
        *out = rt->st;
        return true;
    }
    /* "MODULE/NAME" is one module's entry; "NAME" sums the entries of that
     * name in every module. */
    const char *slash = strchr(entry, '/');
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    bool found = false;
    for (uint32_t i = 0; i < rt->n_entries; i++) {
        const rt_entry *e = rt->entries[i];
        if (slash) {
            size_t ml = (size_t)(slash - entry);
            if (!e->module || strlen(e->module) != ml || strncmp(e->module, entry, ml) != 0 ||
                strcmp(e->name, slash + 1) != 0)
                continue;
        } else if (strcmp(e->name, entry) != 0) {
            continue;
        }
        found = true;
        out->compiles += e->st.compiles;
        out->cache_hits += e->st.cache_hits;
        out->disk_hits += e->st.disk_hits;
        out->runs += e->st.runs;
        out->compile_seconds += e->st.compile_seconds;
        out->execute_seconds += e->st.execute_seconds;
        out->programs += e->st.programs;
        out->disk_rejects += e->st.disk_rejects;
        out->disk_evictions += e->st.disk_evictions;
        out->recompiles += e->st.recompiles;
        out->trace_hits += e->st.trace_hits;
    }
    return found;
}

uint32_t plumb_runtime_entry_count(const plumb_runtime *rt)
{
    return rt ? rt->n_entries : 0;
}

bool plumb_runtime_entry_stats(const plumb_runtime *rt, uint32_t i, const char **module, const char **name,
                               plumb_runtime_stats *out)
{
    if (!rt || i >= rt->n_entries || !out)
        return false;
    const rt_entry *e = rt->entries[i];
    if (module)
        *module = e->module;
    if (name)
        *name = e->name;
    *out = e->st;
    return true;
}

void plumb_runtime_stats_reset(plumb_runtime *rt)
{
    if (!rt)
        return;
    uint32_t programs = rt->st.programs;
    memset(&rt->st, 0, sizeof rt->st);
    rt->st.struct_size = sizeof rt->st;
    rt->st.programs = programs;
    for (uint32_t i = 0; i < rt->n_entries; i++) {
        rt_entry *e = rt->entries[i];
        memset(&e->st, 0, sizeof e->st);
        e->st.struct_size = sizeof e->st;
        e->st.programs = e->n_progs;
    }
}

const char *plumb_runtime_last_explanation(const plumb_runtime *rt)
{
    return rt && rt->has_explanation ? rt->line : NULL;
}

const char *plumb_runtime_last_explanation_json(const plumb_runtime *rt)
{
    return rt && rt->has_explanation ? rt->json : NULL;
}

bool plumb_runtime_contract_check(const plumb_runtime *rt, plumb_diag *d)
{
    char out[1000];
    if (!rt || !rt->contract || rt_contract_unmatched(rt->contract, out, sizeof out))
        return true;
    plumb_diag_set(d, PLUMB_ERR_LIMIT, (plumb_loc){0, 0}, "unknown entries in the contract: %s", out);
    return false;
}
