/* What a run covered and what it may claim: the scope (a partial run is
 * never a certificate), the order-independent digest, the verdict with
 * baselines of known failures and retries of crashes (deqp-runner's model),
 * and the case ids of a suite (to reject unknown ids and suggest the
 * nearest ones). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "certify.h"
#include "plumb/fp8.h"

static void copy_id(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* ---- scope ------------------------------------------------------------------ */

bool conf_run_complete(const conf_run *run)
{
    const conf_run_options *o = &run->opts;
    return !o->ops_filter && !o->limit && o->shard_count <= 1 && !o->case_ids && o->cache_suite;
}

bool conf_run_certified(const conf_run *run)
{
    return run->ok && conf_run_complete(run);
}

void conf_run_scope_text(plumb_buf *b, const conf_run *run)
{
    const conf_run_options *o = &run->opts;
    const char *sep = "";
    if (o->ops_filter) {
        plumb_buf_puts(b, "ops: ");
        bool first = true;
        for (int i = 0; i < PLUMB_OP_COUNT; i++) {
            if (!o->ops_given[i])
                continue;
            plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_op_short_name((plumb_opcode)i));
            first = false;
        }
        sep = "; ";
    }
    if (o->case_ids) {
        if (o->n_case_ids == 1)
            plumb_buf_printf(b, "%scase %s", sep, o->case_ids[0]);
        else
            plumb_buf_printf(b, "%s%u cases", sep, o->n_case_ids);
        sep = "; ";
    }
    if (o->limit) {
        plumb_buf_printf(b, "%slimit %u", sep, o->limit);
        sep = "; ";
    }
    if (o->shard_count > 1) {
        plumb_buf_printf(b, "%sshard %u/%u", sep, o->shard_index, o->shard_count);
        sep = "; ";
    }
    /* A --case run never has the cache suite; saying so adds nothing. */
    if (!o->cache_suite && !o->case_ids)
        plumb_buf_printf(b, "%sno cache suite", sep);
}

/* ---- digest ----------------------------------------------------------------- */

static void mask_text(plumb_buf *b, uint32_t mask)
{
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t)))
            continue;
        plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
}

void conf_caps_text(plumb_buf *b, const conf_caps *c)
{
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!c->claims[i])
            continue;
        plumb_buf_printf(b, "claim %s ", plumb_op_name((plumb_opcode)i));
        mask_text(b, c->claims[i]);
        plumb_buf_puts(b, "\n");
    }
    plumb_buf_printf(b, "polymorphic %s\nflush ", conf_poly_name(c->poly));
    mask_text(b, c->flush_subnormals);
    plumb_buf_printf(b, "\nnan_payload %d\ndeterministic %d\naccum", c->preserves_nan_payload ? 1 : 0,
                     c->deterministic ? 1 : 0);
    static const plumb_dtype fl[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
        plumb_buf_printf(b, " %s", plumb_dtype_name(c->accum[fl[i]]));
    /* the FP8/FP6/FP4/E8M0 formats' (ABI 1.4 accum_small): the data bound
     * of their dots and convolutions depends on it, so two runs that
     * declared different ones did not certify the same thing; the report's
     * JSON carries them, so a report read back hashes the same */
    plumb_buf_puts(b, "\naccum_small");
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        if (plumb_dtype_is_small_float((plumb_dtype)t))
            plumb_buf_printf(b, " %s=%s", plumb_dtype_name((plumb_dtype)t), plumb_dtype_name(c->accum[t]));
    plumb_buf_puts(b, "\n");
}

static int case_cmp(const void *a, const void *b)
{
    const conf_case_result *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    return strcmp(x->id, y->id);
}

void conf_run_digest(conf_run *run)
{
    const conf_run_options *o = &run->opts;
    if (run->n_cases > 1)
        qsort(run->cases, run->n_cases, sizeof *run->cases, case_cmp);
    plumb_buf h;
    plumb_buf_init(&h);
    plumb_buf_printf(&h, "%s %s suite=%d seed=%llu limit=%u cache_suite=%d ops=", run->backend.name,
                     run->backend.version, (int)o->suite, (unsigned long long)o->seed, o->limit,
                     o->cache_suite ? 1 : 0);
    if (o->ops_filter) {
        for (int i = 0; i < PLUMB_OP_COUNT; i++)
            if (o->ops_given[i])
                plumb_buf_printf(&h, "%s,", plumb_op_name((plumb_opcode)i));
    } else {
        plumb_buf_puts(&h, "all");
    }
    plumb_buf_printf(&h, " cases=%u", o->case_ids ? o->n_case_ids : 0);
    /* Only a run gated on a contract hashes it, so the digests of runs
     * without one are what they were before contracts existed. */
    if (o->contract_file)
        plumb_buf_printf(&h, " contract=%s", o->contract_file);
    plumb_buf_puts(&h, "\n");
    conf_caps_text(&h, &run->backend.caps);
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        /* A budget that is no finite number is written to JSON as null, and
         * hashed as such, so that a report read back has the same digest. */
        if (isfinite(r->budget_used))
            plumb_buf_printf(&h, "%s %s %.17g\n", r->id, r->flaky ? "flaky" : conf_status_name(r->status),
                             r->budget_used);
        else
            plumb_buf_printf(&h, "%s %s null\n", r->id, r->flaky ? "flaky" : conf_status_name(r->status));
    }
    for (uint32_t i = 0; i < run->n_cache; i++)
        plumb_buf_printf(&h, "cache %s %s %llu\n", run->cache[i].name, run->cache[i].pass ? "pass" : "fail",
                         (unsigned long long)run->cache[i].compiles);
    /* A buffer that ran out of memory must not vouch for anything. */
    if (h.failed) {
        run->digest[0] = run->digest[1] = 0;
    } else {
        XXH128_hash_t d = XXH3_128bits(h.data, h.len);
        run->digest[0] = d.high64;
        run->digest[1] = d.low64;
    }
    plumb_buf_free(&h);
}

void conf_run_judge(conf_run *run)
{
    bool ok = true;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        const conf_op_summary *s = &run->ops[i];
        if (run->op_in_run[i] && s->claimed && !s->manifest_ok)
            ok = false;
    }
    /* run->failed counts failed cases, cache scenarios and op-level
     * failures (generation); only the baseline's cases are excused. */
    if (run->failed > run->n_excused)
        ok = false;
    run->ok = ok;
}

/* ---- retries ---------------------------------------------------------------- */

static void op_worst(conf_run *run, plumb_opcode op)
{
    conf_op_summary *s = &run->ops[op];
    s->worst_budget = 0;
    s->worst_case[0] = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->op != op)
            continue;
        if (!s->worst_case[0] || r->budget_used > s->worst_budget) {
            s->worst_budget = r->budget_used;
            copy_id(s->worst_case, sizeof s->worst_case, r->id);
        }
    }
}

bool conf_run_retry(conf_run *run, plumb_diag *d)
{
    for (uint32_t i = 0; i < run->n_cases; i++)
        if (!run->cases[i].attempts)
            run->cases[i].attempts = 1;
    for (uint32_t attempt = 1; attempt <= run->opts.retry; attempt++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < run->n_cases; i++) {
            conf_status st = run->cases[i].status;
            n += st == CONF_ST_CRASH || st == CONF_ST_TIMEOUT;
        }
        if (!n)
            return true;
        const char **ids = plumb_calloc(n, sizeof *ids);
        if (!ids) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            return false;
        }
        n = 0;
        for (uint32_t i = 0; i < run->n_cases; i++) {
            conf_status st = run->cases[i].status;
            if (st == CONF_ST_CRASH || st == CONF_ST_TIMEOUT)
                ids[n++] = run->cases[i].id;
        }
        /* The same backend, a fresh process for each retried case. */
        conf_run_options o = run->opts;
        o.case_ids = ids;
        o.n_case_ids = n;
        o.retry = 0;
        o.limit = 0;
        o.cache_suite = false;
        o.repro_dir = NULL;
        o.progress = false;
        o.batch = 1;
        conf_run again;
        bool ran = conf_run_certify(&o, &again, d);
        if (!ran) {
            conf_run_free(&again);
            plumb_free(ids, n * sizeof *ids);
            return false;
        }
        for (uint32_t k = 0; k < again.n_cases; k++) {
            const conf_case_result *a = &again.cases[k];
            for (uint32_t i = 0; i < run->n_cases; i++) {
                conf_case_result *r = &run->cases[i];
                if (strcmp(r->id, a->id) != 0 || !(r->status == CONF_ST_CRASH || r->status == CONF_ST_TIMEOUT))
                    continue;
                r->attempts++;
                if (a->status == CONF_ST_PASS) {
                    /* The first verdict stays in the reason: a flake is
                     * reported, not hidden. */
                    r->status = CONF_ST_PASS;
                    r->flaky = true;
                    r->budget_used = a->budget_used;
                    conf_op_summary *s = &run->ops[r->op];
                    s->failed--;
                    s->passed++;
                    run->failed--;
                    run->passed++;
                    run->n_flaky++;
                    op_worst(run, r->op);
                } else if (a->status != CONF_ST_CRASH && a->status != CONF_ST_TIMEOUT) {
                    /* It ran to a verdict this time, and failed: that is
                     * the case's verdict (no more retries). */
                    r->status = a->status;
                    r->budget_used = a->budget_used;
                    memcpy(r->reason, a->reason, sizeof r->reason);
                }
                break;
            }
        }
        conf_run_free(&again);
        plumb_free(ids, n * sizeof *ids);
    }
    return true;
}

/* ---- case ids ------------------------------------------------------------- */

bool conf_case_id_op(const char *id, plumb_opcode *op)
{
    const char *slash = strchr(id, '/');
    if (!slash || slash == id)
        return false;
    return plumb_op_lookup(id, (size_t)(slash - id), op) && conf_op_generated(*op);
}

void conf_suite_ids_init(conf_suite_ids *s, conf_suite suite, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->suite = suite;
    s->seed = seed;
}

void conf_suite_ids_free(conf_suite_ids *s)
{
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        plumb_free(s->ids[i], (size_t)s->n[i] * sizeof *s->ids[i]);
    memset(s, 0, sizeof *s);
}

static int id_cmp(const void *a, const void *b) { return strcmp(a, b); }

static bool op_ids(conf_suite_ids *s, plumb_opcode op, plumb_diag *d)
{
    if (s->have[op])
        return true;
    conf_cases cs;
    memset(&cs, 0, sizeof cs);
    if (conf_manifest_count(op, s->suite) == 0) {
        s->have[op] = true;
        return true;
    }
    if (!conf_generate(op, s->suite, s->seed, 0, 1, &cs, d))
        return false;
    if (cs.n) {
        s->ids[op] = plumb_calloc(cs.n, sizeof *s->ids[op]);
        if (!s->ids[op]) {
            conf_cases_free(&cs);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            return false;
        }
        for (uint32_t i = 0; i < cs.n; i++)
            copy_id(s->ids[op][i], sizeof s->ids[op][i], cs.v[i].id);
        s->n[op] = cs.n;
        qsort(s->ids[op], cs.n, sizeof *s->ids[op], id_cmp);
    }
    conf_cases_free(&cs);
    s->have[op] = true;
    return true;
}

/* Levenshtein distance, capped at 99 (ids are at most 127 bytes). */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return 99;
    unsigned row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] > 99 ? 99 : row[lb];
}

int conf_suite_ids_known(conf_suite_ids *s, const char *id, char *suggest, size_t cap, plumb_diag *d)
{
    if (cap)
        suggest[0] = 0;
    plumb_opcode op;
    bool op_ok = conf_case_id_op(id, &op);
    if (!op_ok) {
        /* A misspelt op: suggest among the cases of the nearest op name. */
        const char *slash = strchr(id, '/');
        char head[64];
        size_t hl = slash ? (size_t)(slash - id) : strlen(id);
        if (hl >= sizeof head)
            hl = sizeof head - 1;
        memcpy(head, id, hl);
        head[hl] = 0;
        unsigned best = 99;
        for (int i = 0; i < PLUMB_OP_COUNT; i++) {
            if (!conf_op_generated((plumb_opcode)i) || conf_manifest_count((plumb_opcode)i, s->suite) == 0)
                continue;
            unsigned dist = edit_distance(head, plumb_op_short_name((plumb_opcode)i));
            if (dist < best) {
                best = dist;
                op = (plumb_opcode)i;
            }
        }
        if (best > 3)
            return 0;
    }
    if (!op_ids(s, op, d))
        return -1;
    if (op_ok && bsearch(id, s->ids[op], s->n[op], sizeof *s->ids[op], id_cmp))
        return 1;
    /* The three nearest ids of that op, by edit distance then order. */
    uint32_t pick[3];
    unsigned dist[3];
    uint32_t np = 0;
    for (uint32_t i = 0; i < s->n[op]; i++) {
        unsigned e = edit_distance(id, s->ids[op][i]);
        uint32_t k = np < 3 ? np++ : 3;
        while (k > 0 && dist[k - 1] > e) {
            if (k < 3) {
                pick[k] = pick[k - 1];
                dist[k] = dist[k - 1];
            }
            k--;
        }
        if (k < 3) {
            pick[k] = i;
            dist[k] = e;
        }
    }
    plumb_buf b;
    plumb_buf_init(&b);
    for (uint32_t k = 0; k < np; k++)
        plumb_buf_printf(&b, "%s%s", k ? (k + 1 == np ? " or " : ", ") : "", s->ids[op][pick[k]]);
    if (b.data && cap)
        copy_id(suggest, cap, b.data);
    plumb_buf_free(&b);
    return 0;
}

/* ---- baselines -------------------------------------------------------------- */

static bool bl_error(plumb_diag *d, const char *path, uint32_t line, const char *fmt, const char *arg)
{
    char msg[600];
    snprintf(msg, sizeof msg, fmt, arg);
    if (line)
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){line, 1}, "baseline: %s", msg);
    else
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "baseline %s: %s", path, msg);
    d->file = line ? path : NULL;
    return false;
}

bool conf_baseline_load(const char *path, conf_suite suite, uint64_t seed, conf_baseline *b, plumb_diag *d)
{
    memset(b, 0, sizeof *b);
    copy_id(b->path, sizeof b->path, path);
    size_t len = 0;
    plumb_diag rd;
    plumb_diag_clear(&rd);
    char *text = plumb_read_file(path, (size_t)16 << 20, &len, &rd);
    if (!text) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "baseline %s: cannot be read: %s", path, rd.msg);
        return false;
    }
    conf_suite_ids ids;
    conf_suite_ids_init(&ids, suite, seed);
    bool ok = false;
    if (len == 0) {
        bl_error(d, path, 0, "empty file (truncated?); a baseline with no known failure has only comments%s", "");
        goto out;
    }
    if (memchr(text, 0, len)) {
        bl_error(d, path, 0, "NUL byte in the file: not a text baseline%s", "");
        goto out;
    }
    if (text[len - 1] != '\n') {
        bl_error(d, path, 0, "truncated: the last line has no newline%s", "");
        goto out;
    }
    uint32_t line = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        *nl = 0;
        line++;
        char *s = p, *e = nl;
        p = nl + 1;
        while (*s == ' ' || *s == '\t')
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = 0;
        if (!*s)
            continue;
        if (*s == '#') {
            /* Header comments pin the suite and seed the ids belong to. */
            char word[32];
            unsigned long long v;
            if (sscanf(s, "# suite: %31s", word) == 1) {
                const char *want = suite == CONF_SUITE_FULL ? "full" : "quick";
                if (strcmp(word, want) != 0) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "it is a baseline of the %s suite, this run is the %s suite", word, want);
                    bl_error(d, path, line, "%s", msg);
                    goto out;
                }
            } else if (sscanf(s, "# seed: %llu", &v) == 1 && v != seed) {
                char msg[200];
                snprintf(msg, sizeof msg, "it is a baseline of seed %llu, this run uses seed %llu", v,
                         (unsigned long long)seed);
                bl_error(d, path, line, "%s", msg);
                goto out;
            }
            continue;
        }
        for (char *q = s; *q; q++) {
            if (*q == ' ' || *q == '\t' || (unsigned char)*q < 0x20 || *q == '#') {
                bl_error(d, path, line, "'%s' is not one case id (one id a line, '#' starts a comment line)", s);
                goto out;
            }
        }
        if (strlen(s) >= sizeof b->ids[0]) {
            bl_error(d, path, line, "case id too long: '%.60s...'", s);
            goto out;
        }
        char suggest[400];
        int known = conf_suite_ids_known(&ids, s, suggest, sizeof suggest, d);
        if (known < 0)
            goto out;
        if (known == 0) {
            char msg[700];
            snprintf(msg, sizeof msg, "'%.120s' is no case of the %s suite (seed %llu)%s%s", s,
                     suite == CONF_SUITE_FULL ? "full" : "quick", (unsigned long long)seed,
                     suggest[0] ? "; nearest: " : "", suggest);
            bl_error(d, path, line, "%s", msg);
            goto out;
        }
        if (conf_baseline_has(b, s)) {
            bl_error(d, path, line, "'%s' is listed twice", s);
            goto out;
        }
        if (b->n == b->cap) {
            uint32_t nc = b->cap ? 2 * b->cap : 16;
            char(*nv)[128] = plumb_realloc(b->ids, (size_t)b->cap * sizeof *nv, (size_t)nc * sizeof *nv);
            if (!nv) {
                plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
                goto out;
            }
            b->ids = nv;
            b->cap = nc;
        }
        copy_id(b->ids[b->n++], sizeof b->ids[0], s);
        /* Kept sorted for conf_baseline_has (baselines are short). */
        for (uint32_t k = b->n - 1; k > 0 && strcmp(b->ids[k - 1], b->ids[k]) > 0; k--) {
            char t[128];
            memcpy(t, b->ids[k], sizeof t);
            memcpy(b->ids[k], b->ids[k - 1], sizeof t);
            memcpy(b->ids[k - 1], t, sizeof t);
        }
    }
    ok = true;
out:
    conf_suite_ids_free(&ids);
    plumb_free(text, len + 1);
    if (!ok)
        conf_baseline_free(b);
    return ok;
}

void conf_baseline_free(conf_baseline *b)
{
    plumb_free(b->ids, (size_t)b->cap * sizeof *b->ids);
    b->ids = NULL;
    b->n = b->cap = 0;
}

bool conf_baseline_has(const conf_baseline *b, const char *id)
{
    return b && b->n && bsearch(id, b->ids, b->n, sizeof *b->ids, id_cmp) != NULL;
}

bool conf_baseline_apply(conf_run *run, const conf_baseline *b)
{
    run->baseline = b;
    run->n_excused = 0;
    plumb_free(run->fixed, (size_t)run->n_fixed * sizeof *run->fixed);
    run->fixed = NULL;
    run->n_fixed = 0;
    uint32_t nf = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        conf_case_result *r = &run->cases[i];
        r->excused = false;
        if (!conf_baseline_has(b, r->id))
            continue;
        if (r->status != CONF_ST_PASS) {
            r->excused = true;
            run->n_excused++;
        } else {
            nf++;
        }
    }
    if (nf) {
        run->fixed = plumb_calloc(nf, sizeof *run->fixed);
        if (!run->fixed)
            return false;
        for (uint32_t i = 0; i < run->n_cases; i++)
            if (run->cases[i].status == CONF_ST_PASS && conf_baseline_has(b, run->cases[i].id))
                copy_id(run->fixed[run->n_fixed++], sizeof run->fixed[0], run->cases[i].id);
    }
    conf_run_judge(run);
    return true;
}
