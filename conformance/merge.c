/* Reports read back: a JSON report (conf_report_json, format 2) becomes a
 * conf_run again, checked for consistency (counts against case records,
 * the stored digest against the records), so that `plumb certify merge`
 * can combine the shards of one run into the certificate the unsharded run
 * would have given, and --rerun-failures can take a report's failures.
 * Every error names the file, and where it can, the line and column. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "certify.h"
#include "json.h"

typedef struct rl {
    const char *path;
    plumb_diag *d;
} rl;

static bool rerr(const rl *r, const conf_json *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool rerr(const rl *r, const conf_json *at, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at && at->loc.line) {
        plumb_diag_set(r->d, PLUMB_ERR_PARSE, at->loc, "report: %s", msg);
        r->d->file = r->path;
    } else {
        plumb_diag_set(r->d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "report %s: %s", r->path, msg);
    }
    return false;
}

static const conf_json *member(const rl *r, const conf_json *obj, const char *key, conf_json_type t)
{
    static const char *const tn[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    const conf_json *v = conf_json_get(obj, key);
    if (!v) {
        rerr(r, obj, "missing \"%s\" (truncated or not a report of this plumb?)", key);
        return NULL;
    }
    if (v->type != t) {
        rerr(r, v, "\"%s\" must be %s", key, tn[t]);
        return NULL;
    }
    return v;
}

static bool get_str(const rl *r, const conf_json *obj, const char *key, char *out, size_t cap)
{
    const conf_json *v = member(r, obj, key, CONF_JSON_STRING);
    if (!v)
        return false;
    if (strlen(v->string) >= cap)
        return rerr(r, v, "\"%s\" is too long", key);
    memcpy(out, v->string, strlen(v->string) + 1);
    return true;
}

static bool get_bool(const rl *r, const conf_json *obj, const char *key, bool *out)
{
    const conf_json *v = member(r, obj, key, CONF_JSON_BOOL);
    if (!v)
        return false;
    *out = v->boolean;
    return true;
}

/* A non-negative integer, exactly (from its text). */
static bool json_u64(const rl *r, const conf_json *v, const char *what, uint64_t max, uint64_t *out)
{
    if (v->type != CONF_JSON_NUMBER)
        return rerr(r, v, "%s must be a number", what);
    uint64_t x = 0;
    for (const char *p = v->raw; *p; p++) {
        if (*p < '0' || *p > '9')
            return rerr(r, v, "%s must be a non-negative integer, not %s", what, v->raw);
        if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return rerr(r, v, "%s is out of range", what);
        x = x * 10 + (uint64_t)(*p - '0');
    }
    if (x > max)
        return rerr(r, v, "%s is out of range (%s)", what, v->raw);
    *out = x;
    return true;
}

static bool get_u32(const rl *r, const conf_json *obj, const char *key, uint32_t *out)
{
    const conf_json *v = conf_json_get(obj, key);
    uint64_t x;
    if (!v)
        return rerr(r, obj, "missing \"%s\"", key);
    char what[80];
    snprintf(what, sizeof what, "\"%s\"", key);
    if (!json_u64(r, v, what, UINT32_MAX, &x))
        return false;
    *out = (uint32_t)x;
    return true;
}

/* A number, or null: what the writer puts for a value that is no finite
 * number (read back as NaN, which the digest hashes as null again). */
static bool get_real(const rl *r, const conf_json *v, const char *what, double *out)
{
    if (v->type == CONF_JSON_NULL) {
        *out = NAN;
        return true;
    }
    if (v->type != CONF_JSON_NUMBER)
        return rerr(r, v, "%s must be a number", what);
    *out = v->number;
    return true;
}

static bool dtype_by_name(const char *s, plumb_dtype *t)
{
    for (int i = 0; i < PLUMB_DTYPE_COUNT; i++) {
        if (strcmp(plumb_dtype_name((plumb_dtype)i), s) == 0) {
            *t = (plumb_dtype)i;
            return true;
        }
    }
    return false;
}

static bool type_mask(const rl *r, const conf_json *arr, uint32_t *mask)
{
    if (arr->type != CONF_JSON_ARRAY)
        return rerr(r, arr, "a list of element types was expected");
    *mask = 0;
    for (uint32_t i = 0; i < arr->n; i++) {
        plumb_dtype t;
        if (arr->items[i].type != CONF_JSON_STRING || !dtype_by_name(arr->items[i].string, &t))
            return rerr(r, &arr->items[i], "unknown element type");
        *mask |= PLUMB_TY_BIT(t);
    }
    return true;
}

/* The primary element type of a case id: "add/f32/..." or "convert/f32_to_f16/...". */
static bool id_dtype(const char *id, plumb_dtype *t)
{
    const char *a = strchr(id, '/');
    if (!a)
        return false;
    a++;
    const char *e = strchr(a, '/');
    const char *to = strstr(a, "_to_");
    if (!e)
        return false;
    if (to && to < e)
        e = to;
    char name[16];
    size_t n = (size_t)(e - a);
    if (n == 0 || n >= sizeof name)
        return false;
    memcpy(name, a, n);
    name[n] = 0;
    return dtype_by_name(name, t);
}

static bool read_caps(const rl *r, const conf_json *cj, conf_caps *c)
{
    memset(c, 0, sizeof *c);
    char poly[32];
    if (!get_str(r, cj, "polymorphic_shapes", poly, sizeof poly))
        return false;
    if (strcmp(poly, "none") == 0)
        c->poly = PLUMB_BACKEND_POLY_NONE;
    else if (strcmp(poly, "per-shape") == 0)
        c->poly = PLUMB_BACKEND_POLY_PER_SHAPE;
    else if (strcmp(poly, "bounded") == 0)
        c->poly = PLUMB_BACKEND_POLY_BOUNDED;
    else if (strcmp(poly, "unbounded") == 0)
        c->poly = PLUMB_BACKEND_POLY_UNBOUNDED;
    else
        return rerr(r, conf_json_get(cj, "polymorphic_shapes"), "unknown polymorphic_shapes '%s'", poly);
    const conf_json *fl = member(r, cj, "flush_subnormals", CONF_JSON_ARRAY);
    if (!fl || !type_mask(r, fl, &c->flush_subnormals))
        return false;
    if (!get_bool(r, cj, "preserves_nan_payload", &c->preserves_nan_payload) ||
        !get_bool(r, cj, "deterministic", &c->deterministic))
        return false;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        c->accum[t] = (plumb_dtype)t;
    const conf_json *ac = member(r, cj, "accumulators", CONF_JSON_OBJECT);
    if (!ac)
        return false;
    for (uint32_t i = 0; i < ac->n; i++) {
        plumb_dtype from, to;
        if (!dtype_by_name(ac->keys[i], &from) || ac->items[i].type != CONF_JSON_STRING ||
            !dtype_by_name(ac->items[i].string, &to))
            return rerr(r, &ac->items[i], "bad accumulator entry \"%s\"", ac->keys[i]);
        c->accum[from] = to;
    }
    const conf_json *ops = member(r, cj, "ops", CONF_JSON_OBJECT);
    if (!ops)
        return false;
    for (uint32_t i = 0; i < ops->n; i++) {
        plumb_opcode op;
        if (!plumb_op_lookup(ops->keys[i], strlen(ops->keys[i]), &op))
            return rerr(r, &ops->items[i], "capabilities name unknown op \"%s\"", ops->keys[i]);
        if (!type_mask(r, &ops->items[i], &c->claims[op]))
            return false;
        c->n_claimed_ops++;
    }
    return true;
}

static bool read_scope(const rl *r, const conf_json *cert, conf_run *run)
{
    conf_run_options *o = &run->opts;
    const conf_json *sc = member(r, cert, "scope", CONF_JSON_OBJECT);
    if (!sc)
        return false;
    const conf_json *ops = conf_json_get(sc, "ops");
    if (!ops)
        return rerr(r, sc, "missing \"ops\" in the scope");
    if (ops->type == CONF_JSON_ARRAY) {
        for (uint32_t i = 0; i < ops->n; i++) {
            plumb_opcode op;
            const conf_json *it = &ops->items[i];
            if (it->type != CONF_JSON_STRING || !plumb_op_lookup(it->string, strlen(it->string), &op))
                return rerr(r, it, "scope names an unknown op");
            o->ops_given[op] = true;
            o->ops_filter = true;
        }
        if (!o->ops_filter)
            return rerr(r, ops, "scope has an empty op list");
    } else if (!(ops->type == CONF_JSON_STRING && strcmp(ops->string, "all") == 0)) {
        return rerr(r, ops, "scope \"ops\" must be \"all\" or a list of ops");
    }
    const conf_json *lim = conf_json_get(sc, "limit");
    if (!lim)
        return rerr(r, sc, "missing \"limit\" in the scope");
    uint64_t x;
    if (lim->type != CONF_JSON_NULL) {
        if (!json_u64(r, lim, "scope \"limit\"", UINT32_MAX, &x))
            return false;
        if (x == 0)
            return rerr(r, lim, "scope \"limit\" 0 (null means no limit)");
        o->limit = (uint32_t)x;
    }
    const conf_json *sh = conf_json_get(sc, "shard");
    if (!sh)
        return rerr(r, sc, "missing \"shard\" in the scope");
    o->shard_index = 0;
    o->shard_count = 1;
    if (sh->type != CONF_JSON_NULL) {
        if (sh->type != CONF_JSON_OBJECT || !get_u32(r, sh, "index", &o->shard_index) ||
            !get_u32(r, sh, "count", &o->shard_count))
            return sh->type == CONF_JSON_OBJECT ? false : rerr(r, sh, "scope \"shard\" must be null or {index, count}");
        if (o->shard_count < 2 || o->shard_index >= o->shard_count)
            return rerr(r, sh, "scope shard %u/%u is not a shard", o->shard_index, o->shard_count);
    }
    uint32_t si, scount;
    if (!get_u32(r, cert, "shard_index", &si) || !get_u32(r, cert, "shard_count", &scount))
        return false;
    if (si != o->shard_index || scount != o->shard_count)
        return rerr(r, sh, "scope shard disagrees with shard_index/shard_count %u/%u", si, scount);
    const conf_json *cs = conf_json_get(sc, "cases");
    if (!cs)
        return rerr(r, sc, "missing \"cases\" in the scope");
    if (cs->type == CONF_JSON_ARRAY) {
        const char **ids = cs->n ? plumb_arena_array(run->arena, cs->n, sizeof *ids) : NULL;
        if (cs->n && !ids)
            return rerr(r, cs, "out of memory");
        for (uint32_t i = 0; i < cs->n; i++) {
            if (cs->items[i].type != CONF_JSON_STRING)
                return rerr(r, &cs->items[i], "scope \"cases\" must hold case ids");
            ids[i] = plumb_arena_strdup(run->arena, cs->items[i].string);
            if (!ids[i])
                return rerr(r, cs, "out of memory");
        }
        if (!cs->n)
            return rerr(r, cs, "scope has an empty case list");
        o->case_ids = ids;
        o->n_case_ids = cs->n;
    } else if (cs->type != CONF_JSON_NULL) {
        return rerr(r, cs, "scope \"cases\" must be null or a list of case ids");
    }
    /* The compile contract the cache suite was gated on (a path, as given);
     * absent in reports written before contracts existed: none. */
    const conf_json *ct = conf_json_get(sc, "contract");
    if (ct && ct->type == CONF_JSON_STRING) {
        o->contract_file = plumb_arena_strdup(run->arena, ct->string);
        if (!o->contract_file)
            return rerr(r, ct, "out of memory");
    } else if (ct && ct->type != CONF_JSON_NULL) {
        return rerr(r, ct, "scope \"contract\" must be null or the contract's path");
    }
    if (!get_bool(r, sc, "cache_suite", &o->cache_suite))
        return false;
    bool complete;
    if (!get_bool(r, sc, "complete", &complete))
        return false;
    if (complete != conf_run_complete(run))
        return rerr(r, conf_json_get(sc, "complete"), "scope \"complete\" disagrees with the scope");
    return true;
}

static bool read_status(const char *s, conf_status *st, bool *flaky)
{
    static const conf_status all[] = {CONF_ST_PASS, CONF_ST_FAIL, CONF_ST_ERROR, CONF_ST_CRASH, CONF_ST_TIMEOUT};
    *flaky = false;
    if (strcmp(s, "flaky") == 0) {
        *st = CONF_ST_PASS;
        *flaky = true;
        return true;
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(conf_status_name(all[i]), s) == 0) {
            *st = all[i];
            return true;
        }
    }
    return false;
}

static int id_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool read_failures(const rl *r, const conf_json *root, conf_run *run, const char **ids);

static bool read_cases(const rl *r, const conf_json *root, conf_run *run)
{
    const conf_json *cs = member(r, root, "cases", CONF_JSON_ARRAY);
    if (!cs)
        return false;
    if (cs->n) {
        run->cases = plumb_calloc(cs->n, sizeof *run->cases);
        if (!run->cases)
            return rerr(r, cs, "out of memory");
        run->cap_cases = cs->n;
    }
    for (uint32_t i = 0; i < cs->n; i++) {
        const conf_json *it = &cs->items[i];
        conf_case_result *c = &run->cases[i];
        if (it->type != CONF_JSON_ARRAY || it->n != 5 || it->items[0].type != CONF_JSON_STRING ||
            it->items[1].type != CONF_JSON_STRING)
            return rerr(r, it, "a case record must be [id, status, budget_used, seconds, attempts]");
        const char *id = it->items[0].string;
        if (strlen(id) >= sizeof c->id || !conf_case_id_op(id, &c->op) || !id_dtype(id, &c->dtype))
            return rerr(r, it, "'%.130s' is not a case id", id);
        memcpy(c->id, id, strlen(id) + 1);
        if (!read_status(it->items[1].string, &c->status, &c->flaky))
            return rerr(r, &it->items[1], "unknown status '%.40s'", it->items[1].string);
        uint64_t att;
        if (!get_real(r, &it->items[2], "budget_used", &c->budget_used) ||
            !get_real(r, &it->items[3], "seconds", &c->seconds) ||
            !json_u64(r, &it->items[4], "attempts", 1000000, &att))
            return false;
        if (!isfinite(c->seconds))
            c->seconds = 0;
        if (att == 0 || (c->flaky && att < 2))
            return rerr(r, &it->items[4], "attempts %llu is impossible for status %s", (unsigned long long)att,
                        it->items[1].string);
        c->attempts = (uint32_t)att;
        run->n_cases++;
        run->n_flaky += c->flaky;
    }
    /* Ids are unique within a run; sorted pointers to them find repeats. */
    const char **ids = run->n_cases ? plumb_calloc(run->n_cases, sizeof *ids) : NULL;
    if (run->n_cases && !ids)
        return rerr(r, cs, "out of memory");
    for (uint32_t i = 0; i < run->n_cases; i++)
        ids[i] = run->cases[i].id;
    if (ids)
        qsort(ids, run->n_cases, sizeof *ids, id_ptr_cmp);
    for (uint32_t i = 1; i < run->n_cases; i++) {
        if (strcmp(ids[i - 1], ids[i]) == 0) {
            char id[128];
            snprintf(id, sizeof id, "%s", ids[i]);
            plumb_free(ids, run->n_cases * sizeof *ids);
            return rerr(r, cs, "case %s is recorded twice", id);
        }
    }
    bool ok = read_failures(r, root, run, ids);
    plumb_free(ids, run->n_cases * sizeof *ids);
    return ok;
}

/* The failures list holds what records leave out: reasons, reproducers.
 * ids: the records' ids, sorted. */
static bool read_failures(const rl *r, const conf_json *root, conf_run *run, const char **ids)
{
    const conf_json *fl = member(r, root, "failures", CONF_JSON_ARRAY);
    if (!fl)
        return false;
    uint32_t want = 0;
    for (uint32_t k = 0; k < run->n_cases; k++)
        want += run->cases[k].status != CONF_ST_PASS || run->cases[k].flaky;
    if (fl->n != want)
        return rerr(r, fl, "%u failures listed, but %u case records failed or were flaky", fl->n, want);
    for (uint32_t i = 0; i < fl->n; i++) {
        const conf_json *f = &fl->items[i];
        char id[128], st[16];
        if (f->type != CONF_JSON_OBJECT)
            return rerr(r, f, "a failure must be an object");
        if (!get_str(r, f, "id", id, sizeof id) || !get_str(r, f, "status", st, sizeof st))
            return false;
        const char *key = id;
        const char **hit = run->n_cases ? bsearch(&key, ids, run->n_cases, sizeof *ids, id_ptr_cmp) : NULL;
        conf_case_result *c = hit ? (conf_case_result *)(void *)(*hit - offsetof(conf_case_result, id)) : NULL;
        if (!c)
            return rerr(r, f, "failure %s has no case record", id);
        conf_status s;
        bool flaky;
        if (!read_status(st, &s, &flaky) || s != c->status || flaky != c->flaky)
            return rerr(r, f, "failure %s: status %s disagrees with its case record", id, st);
        if (c->repro[0] || c->reason[0])
            return rerr(r, f, "failure %s is listed twice", id);
        if (!get_str(r, f, "reason", c->reason, sizeof c->reason) ||
            !get_str(r, f, "reproducer", c->repro, sizeof c->repro))
            return false;
    }
    return true;
}

static bool read_ops(const rl *r, const conf_json *root, conf_run *run)
{
    const conf_json *ops = member(r, root, "ops", CONF_JSON_ARRAY);
    if (!ops)
        return false;
    for (uint32_t i = 0; i < ops->n; i++) {
        const conf_json *it = &ops->items[i];
        char name[64];
        plumb_opcode op;
        if (it->type != CONF_JSON_OBJECT)
            return rerr(r, it, "an op summary must be an object");
        if (!get_str(r, it, "op", name, sizeof name))
            return false;
        if (!plumb_op_lookup(name, strlen(name), &op))
            return rerr(r, it, "unknown op \"%s\"", name);
        if (run->op_in_run[op])
            return rerr(r, it, "op %s is summarized twice", name);
        conf_op_summary *s = &run->ops[op];
        run->op_in_run[op] = true;
        s->op = op;
        const conf_json *cl = member(r, it, "claimed", CONF_JSON_ARRAY);
        if (!cl || !type_mask(r, cl, &s->claimed))
            return false;
        if (s->claimed != run->backend.caps.claims[op])
            return rerr(r, it, "op %s: claimed types disagree with the capabilities", name);
        const conf_json *wb = conf_json_get(it, "worst_budget");
        if (!wb)
            return rerr(r, it, "missing \"worst_budget\"");
        if (!get_u32(r, it, "expected", &s->expected) || !get_u32(r, it, "generated", &s->generated) ||
            !get_u32(r, it, "cases", &s->cases) || !get_u32(r, it, "passed", &s->passed) ||
            !get_u32(r, it, "failed", &s->failed) || !get_u32(r, it, "unsupported", &s->skipped) ||
            !get_bool(r, it, "manifest_ok", &s->manifest_ok) || !get_real(r, wb, "\"worst_budget\"", &s->worst_budget) ||
            !get_str(r, it, "worst_case", s->worst_case, sizeof s->worst_case) ||
            !get_str(r, it, "note", s->note, sizeof s->note))
            return false;
        /* since ABI 1.1's polymorphic cases; absent in older reports */
        if (conf_json_get(it, "unsupported_polymorphic") && !get_u32(r, it, "unsupported_polymorphic", &s->skipped_poly))
            return false;
        if (s->skipped_poly > s->skipped)
            return rerr(r, it, "op %s: more polymorphic unsupported cases than unsupported ones", name);
    }
    return true;
}

static bool read_cache(const rl *r, const conf_json *root, conf_run *run)
{
    const conf_json *cs = member(r, root, "cache_stability", CONF_JSON_ARRAY);
    if (!cs)
        return false;
    if (cs->n > sizeof run->cache / sizeof run->cache[0])
        return rerr(r, cs, "too many cache scenarios");
    for (uint32_t i = 0; i < cs->n; i++) {
        const conf_json *it = &cs->items[i];
        conf_cache_scenario *s = &run->cache[i];
        uint64_t comp, mx;
        const conf_json *c1 = conf_json_get(it, "compiles"), *c2 = conf_json_get(it, "max_compiles");
        if (it->type != CONF_JSON_OBJECT || !c1 || !c2)
            return rerr(r, it, "a cache scenario must be {scenario, compiles, max_compiles, pass, reason}");
        if (!get_str(r, it, "scenario", s->name, sizeof s->name) || !json_u64(r, c1, "compiles", UINT64_MAX, &comp) ||
            !json_u64(r, c2, "max_compiles", UINT64_MAX, &mx) || !get_bool(r, it, "pass", &s->pass) ||
            !get_str(r, it, "reason", s->reason, sizeof s->reason))
            return false;
        s->compiles = comp;
        s->expected_max = mx;
        /* Written since the polymorphic scenarios (ABI 1.1); absent in
         * older reports, where every scenario expected an exact count. */
        const conf_json *c0 = conf_json_get(it, "min_compiles");
        s->expected_min = mx;
        if (c0 && !json_u64(r, c0, "min_compiles", mx, &s->expected_min))
            return false;
        if (conf_json_get(it, "runs") &&
            (!get_u32(r, it, "runs", &s->runs) || !get_u32(r, it, "distinct_shapes", &s->distinct)))
            return false;
        if (conf_json_get(it, "note") && !get_str(r, it, "note", s->note, sizeof s->note))
            return false;
        /* The backend's reasons (ABI 1.2 explain): absent in older reports,
         * null when the backend has none. Lines are joined back as written. */
        const conf_json *ex = conf_json_get(it, "explanations");
        if (ex && ex->type == CONF_JSON_NULL) {
            run->no_explain = true;
        } else if (ex) {
            if (ex->type != CONF_JSON_ARRAY || !get_u32(r, it, "builds_explained", &s->builds_explained))
                return rerr(r, it, "\"explanations\" must be an array of strings or null, with \"builds_explained\"");
            size_t len = 0;
            for (uint32_t k = 0; k < ex->n; k++) {
                const conf_json *l = &ex->items[k];
                if (l->type != CONF_JSON_STRING)
                    return rerr(r, l, "an explanation must be a string");
                size_t n = strlen(l->string);
                if (len + n + 2 > sizeof s->explain)
                    return rerr(r, l, "\"explanations\" are too long");
                if (len)
                    s->explain[len++] = '\n';
                memcpy(s->explain + len, l->string, n + 1);
                len += n;
            }
        }
        run->n_cache++;
    }
    /* Scenarios not run (written since ABI 1.2's reports). */
    const conf_json *nr = conf_json_get(root, "cache_not_run");
    if (!nr)
        return true;
    if (nr->type != CONF_JSON_ARRAY || nr->n > sizeof run->cache_not_run / sizeof run->cache_not_run[0])
        return rerr(r, nr, "\"cache_not_run\" must be an array of at most %zu {scenario, reason}",
                    sizeof run->cache_not_run / sizeof run->cache_not_run[0]);
    for (uint32_t i = 0; i < nr->n; i++) {
        conf_cache_not_run *x = &run->cache_not_run[i];
        if (nr->items[i].type != CONF_JSON_OBJECT)
            return rerr(r, &nr->items[i], "a scenario not run must be {scenario, reason}");
        if (!get_str(r, &nr->items[i], "scenario", x->name, sizeof x->name) ||
            !get_str(r, &nr->items[i], "reason", x->reason, sizeof x->reason))
            return false;
        run->n_cache_not_run++;
    }
    return true;
}

/* Counts must agree with the records: a hand-edited or spliced report is
 * rejected rather than merged. */
static bool check_counts(const rl *r, const conf_json *root, conf_run *run)
{
    uint64_t passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        uint32_t n = 0, p = 0, f = 0;
        for (uint32_t k = 0; k < run->n_cases; k++) {
            const conf_case_result *c = &run->cases[k];
            if (c->op != (plumb_opcode)i)
                continue;
            n++;
            if (c->status == CONF_ST_PASS)
                p++;
            else
                f++;
        }
        /* An op whose generation failed counts one failure without a record. */
        if (s->cases != n || s->passed != p || s->failed < f || s->failed > f + 1)
            return rerr(r, conf_json_get(root, "ops"), "op %s: %u cases, %u passed, %u failed, but %u case records (%u passed)",
                        plumb_op_name((plumb_opcode)i), s->cases, s->passed, s->failed, n, p);
        passed += s->passed;
        failed += s->failed;
        skipped += s->skipped;
    }
    for (uint32_t k = 0; k < run->n_cases; k++)
        if (!run->op_in_run[run->cases[k].op])
            return rerr(r, conf_json_get(root, "cases"), "case %s belongs to no op of the report", run->cases[k].id);
    for (uint32_t i = 0; i < run->n_cache; i++) {
        if (run->cache[i].pass)
            passed++;
        else
            failed++;
    }
    uint64_t tp, tf, ts;
    const conf_json *jp = conf_json_get(root, "passed"), *jf = conf_json_get(root, "failed"),
                    *js = conf_json_get(root, "skipped");
    if (!jp || !jf || !js)
        return rerr(r, root, "missing the totals (\"passed\", \"failed\", \"skipped\"): truncated?");
    if (!json_u64(r, jp, "\"passed\"", UINT64_MAX, &tp) || !json_u64(r, jf, "\"failed\"", UINT64_MAX, &tf) ||
        !json_u64(r, js, "\"skipped\"", UINT64_MAX, &ts))
        return false;
    if (tp != passed || tf != failed || ts != skipped)
        return rerr(r, jp, "totals %llu passed, %llu failed, %llu skipped disagree with the ops and cases (%llu, %llu, %llu)",
                    (unsigned long long)tp, (unsigned long long)tf, (unsigned long long)ts,
                    (unsigned long long)passed, (unsigned long long)failed, (unsigned long long)skipped);
    run->passed = passed;
    run->failed = failed;
    run->skipped = skipped;
    /* Written since ABI 1.1's polymorphic cases; older reports have none. */
    const conf_json *jq = conf_json_get(root, "skipped_polymorphic");
    if (jq && !json_u64(r, jq, "\"skipped_polymorphic\"", skipped, &run->skipped_poly))
        return false;
    return true;
}

bool conf_report_load(const char *path, conf_run *run, plumb_diag *d)
{
    memset(run, 0, sizeof *run);
    conf_run_options_init(&run->opts);
    rl r = {path, d};
    conf_json_doc doc;
    if (!conf_json_load(path, 0, &doc, d))
        return false;
    bool ok = false;
    const conf_json *root = doc.root;
    run->arena = plumb_arena_new(0);
    if (!run->arena) {
        rerr(&r, NULL, "out of memory");
        goto out;
    }
    if (root->type != CONF_JSON_OBJECT) {
        rerr(&r, root, "not a plumb certify report (not a JSON object)");
        goto out;
    }
    const conf_json *fmt = conf_json_get(root, "format"), *ver = conf_json_get(root, "format_version");
    if (!fmt || fmt->type != CONF_JSON_STRING || strcmp(fmt->string, "plumb-certify-report") != 0) {
        rerr(&r, fmt ? fmt : root, "not a plumb certify report (no \"format\": \"plumb-certify-report\")");
        goto out;
    }
    if (!ver || ver->type != CONF_JSON_NUMBER || !ver->raw || strcmp(ver->raw, "2") != 0) {
        rerr(&r, ver ? ver : root, "report format version %s; this plumb reads version 2",
             ver && ver->raw ? ver->raw : "(none)");
        goto out;
    }
    const conf_json *cert = member(&r, root, "certificate", CONF_JSON_OBJECT);
    if (!cert)
        goto out;
    conf_backend *bk = &run->backend;
    char suite[16], digest[80];
    const conf_json *seed = conf_json_get(cert, "seed");
    if (!get_str(&r, cert, "backend", bk->name, sizeof bk->name) ||
        !get_str(&r, cert, "version", bk->version, sizeof bk->version) ||
        !get_str(&r, cert, "location", bk->where, sizeof bk->where) || !get_str(&r, cert, "suite", suite, sizeof suite) ||
        !get_str(&r, cert, "digest", digest, sizeof digest))
        goto out;
    if (strcmp(suite, "quick") == 0) {
        run->opts.suite = CONF_SUITE_QUICK;
    } else if (strcmp(suite, "full") == 0) {
        run->opts.suite = CONF_SUITE_FULL;
    } else {
        rerr(&r, conf_json_get(cert, "suite"), "unknown suite '%s'", suite);
        goto out;
    }
    if (!seed) {
        rerr(&r, cert, "missing \"seed\"");
        goto out;
    }
    if (!json_u64(&r, seed, "\"seed\"", UINT64_MAX, &run->opts.seed) || !get_u32(&r, cert, "retry", &run->opts.retry))
        goto out;
    const conf_json *st = conf_json_get(cert, "started"), *secs = conf_json_get(cert, "seconds");
    uint64_t started;
    if (!st || !secs) {
        rerr(&r, cert, "missing \"started\" or \"seconds\"");
        goto out;
    }
    if (!json_u64(&r, st, "\"started\"", INT64_MAX, &started) || !get_real(&r, secs, "\"seconds\"", &run->seconds))
        goto out;
    run->started = (int64_t)started;
    if (!isfinite(run->seconds))
        run->seconds = 0;
    const conf_json *caps = member(&r, cert, "capabilities", CONF_JSON_OBJECT);
    if (!caps || !read_caps(&r, caps, &bk->caps))
        goto out;
    if (!read_scope(&r, cert, run) || !read_ops(&r, root, run) || !read_cases(&r, root, run) ||
        !read_cache(&r, root, run) || !check_counts(&r, root, run))
        goto out;
    conf_run_digest(run);
    char want[80];
    snprintf(want, sizeof want, "xxh3-128:%016llx%016llx", (unsigned long long)run->digest[0],
             (unsigned long long)run->digest[1]);
    if (strcmp(want, digest) != 0) {
        rerr(&r, conf_json_get(cert, "digest"),
             "digest %s does not match the report's terms and case records (%s): edited or spliced?", digest, want);
        goto out;
    }
    conf_run_judge(run);
    ok = true;
out:
    conf_json_free(&doc);
    if (!ok)
        conf_run_free(run);
    return ok;
}

/* Reports that may be merged agree on everything but the shard. */
static bool same_terms(const rl *r, const conf_run *a, const conf_run *b, const char *a_path)
{
    const char *what = NULL;
    if (strcmp(a->backend.name, b->backend.name) != 0)
        what = "backend name";
    else if (strcmp(a->backend.version, b->backend.version) != 0)
        what = "backend version";
    else if (a->opts.suite != b->opts.suite)
        what = "suite";
    else if (a->opts.seed != b->opts.seed)
        what = "seed";
    else if (a->opts.ops_filter != b->opts.ops_filter || memcmp(a->opts.ops_given, b->opts.ops_given, sizeof a->opts.ops_given) != 0)
        what = "scope (--ops)";
    else if (a->opts.limit != b->opts.limit)
        what = "scope (--limit)";
    else if (a->opts.cache_suite != b->opts.cache_suite)
        what = "scope (--no-cache-suite)";
    else if (a->opts.shard_count != b->opts.shard_count)
        what = "shard count";
    else if ((a->opts.contract_file == NULL) != (b->opts.contract_file == NULL) ||
             (a->opts.contract_file && strcmp(a->opts.contract_file, b->opts.contract_file) != 0))
        what = "compile contract (--contract)";
    if (!what) {
        plumb_buf x, y;
        plumb_buf_init(&x);
        plumb_buf_init(&y);
        conf_caps_text(&x, &a->backend.caps);
        conf_caps_text(&y, &b->backend.caps);
        if (x.len != y.len || (x.len && memcmp(x.data, y.data, x.len) != 0))
            what = "backend capabilities";
        plumb_buf_free(&x);
        plumb_buf_free(&y);
    }
    if (what)
        return rerr(r, NULL, "disagrees with %s on the %s: not shards of one run", a_path, what);
    return true;
}

bool conf_report_merge(const char *const *paths, uint32_t n, conf_run *run, plumb_diag *d)
{
    memset(run, 0, sizeof *run);
    if (n == 0) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "merge: no report given");
        return false;
    }
    conf_run *sh = plumb_calloc(n, sizeof *sh);
    if (!sh) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
        return false;
    }
    bool ok = false;
    uint32_t loaded = 0, count = 0;
    const char **by_index = NULL;
    for (; loaded < n; loaded++)
        if (!conf_report_load(paths[loaded], &sh[loaded], d))
            goto out;
    count = sh[0].opts.shard_count;
    by_index = plumb_calloc(count, sizeof *by_index);
    if (!by_index) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        rl r = {paths[i], d};
        if (sh[i].opts.case_ids) {
            rerr(&r, NULL, "is a --case or --rerun-failures run; only shards of a suite run can be merged");
            goto out;
        }
        if (i && !same_terms(&r, &sh[0], &sh[i], paths[0]))
            goto out;
        uint32_t k = sh[i].opts.shard_index;
        if (by_index[k]) {
            rerr(&r, NULL, "shard %u/%u is given twice (also %s)", k, count, by_index[k]);
            goto out;
        }
        by_index[k] = paths[i];
    }
    /* Every record must name a case of the suite: a report of another plumb
     * (another generator) or one edited consistently is refused here. */
    conf_suite_ids ids;
    conf_suite_ids_init(&ids, sh[0].opts.suite, sh[0].opts.seed);
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < sh[i].n_cases; k++) {
            char suggest[8];
            int known = conf_suite_ids_known(&ids, sh[i].cases[k].id, suggest, sizeof suggest, d);
            if (known == 1)
                continue;
            if (known == 0) {
                rl r = {paths[i], d};
                rerr(&r, NULL, "case %s is no case of the %s suite (seed %llu): a report of another plumb?",
                     sh[i].cases[k].id, sh[i].opts.suite == CONF_SUITE_FULL ? "full" : "quick",
                     (unsigned long long)sh[i].opts.seed);
            }
            conf_suite_ids_free(&ids);
            goto out;
        }
    }
    conf_suite_ids_free(&ids);
    for (uint32_t k = 0; k < count; k++) {
        if (!by_index[k]) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0},
                           "merge: shard %u/%u is missing (%u report%s given for %u shards)", k, count, n,
                           n == 1 ? "" : "s", count);
            goto out;
        }
    }
    /* The merged run: the terms of the shards, the unsharded scope. */
    run->backend = sh[0].backend;
    run->opts = sh[0].opts;
    run->opts.shard_index = 0;
    run->opts.shard_count = 1;
    if (sh[0].opts.contract_file) {
        /* The shards' arenas are freed below: the merged run keeps its own copy. */
        run->arena = plumb_arena_new(0);
        run->opts.contract_file = run->arena ? plumb_arena_strdup(run->arena, sh[0].opts.contract_file) : NULL;
        if (!run->opts.contract_file) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            goto out;
        }
    }
    run->started = sh[0].started;
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += sh[i].n_cases;
        if (sh[i].started < run->started)
            run->started = sh[i].started;
        run->seconds += sh[i].seconds;
    }
    if (total) {
        run->cases = plumb_calloc(total, sizeof *run->cases);
        if (!run->cases) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            goto out;
        }
        run->cap_cases = total;
    }
    for (uint32_t i = 0; i < n; i++) {
        const conf_run *s = &sh[i];
        memcpy(run->cases + run->n_cases, s->cases, s->n_cases * sizeof *s->cases);
        run->n_cases += s->n_cases;
        run->passed += s->passed;
        run->failed += s->failed;
        run->skipped += s->skipped;
        run->skipped_poly += s->skipped_poly;
        run->n_flaky += s->n_flaky;
        if (s->opts.shard_index == 0) {
            memcpy(run->cache, s->cache, sizeof run->cache);
            run->n_cache = s->n_cache;
            memcpy(run->cache_not_run, s->cache_not_run, sizeof run->cache_not_run);
            run->n_cache_not_run = s->n_cache_not_run;
            run->no_explain = s->no_explain;
        }
        for (int op = 0; op < PLUMB_OP_COUNT; op++) {
            if (!s->op_in_run[op])
                continue;
            const conf_op_summary *a = &s->ops[op];
            conf_op_summary *m = &run->ops[op];
            if (!run->op_in_run[op]) {
                run->op_in_run[op] = true;
                *m = *a;
                continue;
            }
            m->generated += a->generated;
            m->expected += a->expected;
            m->cases += a->cases;
            m->passed += a->passed;
            m->failed += a->failed;
            m->skipped += a->skipped;
            m->skipped_poly += a->skipped_poly;
            m->manifest_ok = m->manifest_ok && a->manifest_ok;
            if (a->cases && (!m->cases || a->worst_budget > m->worst_budget || !m->worst_case[0])) {
                m->worst_budget = a->worst_budget;
                memcpy(m->worst_case, a->worst_case, sizeof m->worst_case);
            }
            if (!m->note[0])
                memcpy(m->note, a->note, sizeof m->note);
        }
    }
    /* The same case in two shards means the shards were not of one run. */
    conf_run_digest(run);
    for (uint32_t i = 1; i < run->n_cases; i++) {
        if (run->cases[i].op == run->cases[i - 1].op && strcmp(run->cases[i].id, run->cases[i - 1].id) == 0) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "merge: case %s is in two reports", run->cases[i].id);
            goto out;
        }
    }
    conf_run_judge(run);
    ok = true;
out:
    for (uint32_t i = 0; i < loaded && i < n; i++)
        conf_run_free(&sh[i]);
    plumb_free(sh, n * sizeof *sh);
    if (by_index)
        plumb_free(by_index, count * sizeof *by_index);
    if (!ok) {
        plumb_free(run->cases, (size_t)run->cap_cases * sizeof *run->cases);
        if (run->arena)
            plumb_arena_free(run->arena);
        memset(run, 0, sizeof *run);
    }
    return ok;
}
