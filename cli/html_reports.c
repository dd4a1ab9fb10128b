/* The HTML pages of plumb golden check and plumb fuzz (html_reports.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conformance/html.h"
#include "plumb/runtime.h"
#include "cli.h"
#include "html_reports.h"

static bool write_page(const char *path, plumb_buf *b, plumb_diag *d)
{
    bool ok = false;
    if (b->failed)
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory writing the HTML report %s", path);
    else
        ok = cli_write_atomic(path, b->data ? b->data : "", b->len, d);
    plumb_buf_free(b);
    return ok;
}

bool cli_golden_html_write(const char *path, const char *spec, const conf_backend *b, const char *suite, bool partial,
                           bool ok, const golden_result *rs, uint32_t n, plumb_diag *d)
{
    plumb_buf page;
    plumb_buf_init(&page);
    cli_golden_html(&page, spec, b, suite, partial, ok, rs, n);
    return write_page(path, &page, d);
}

bool cli_fuzz_html_write(const char *path, const fz_options *o, const fz_result *res, plumb_diag *d)
{
    plumb_buf page;
    plumb_buf_init(&page);
    cli_fuzz_html(&page, o, res);
    return write_page(path, &page, d);
}

bool cli_run_html_write(const char *path, const char *const *files, int n_files, const cli_run_event *ev, uint32_t n,
                        const struct plumb_runtime *rt, plumb_diag *d)
{
    plumb_buf page;
    plumb_buf_init(&page);
    cli_run_html(&page, files, n_files, ev, n, rt);
    return write_page(path, &page, d);
}

static const char *const hist_labels[CONF_HIST_BINS] = {
    "exact (0)", "(0, 1/16]", "(1/16, 1/8]", "(1/8, 1/4]", "(1/4, 1/2]", "(1/2, 1]", "over 1 (fails)",
};

static void verdict_box(plumb_buf *b, bool ok, bool partial, const char *word, const char *line)
{
    plumb_buf_printf(b, "<section id=\"verdict\" class=\"verdict %s\" data-ok=\"%s\">\n<p class=\"word\">%s</p>\n<p>",
                     !ok ? "v-fail" : partial ? "v-partial" : "v-pass", ok ? "true" : "false", word);
    conf_html_esc(b, line);
    plumb_buf_puts(b, "</p>\n</section>\n");
}

static void num_cell(plumb_buf *b, double v)
{
    if (v >= 1e29 || !isfinite(v)) plumb_buf_puts(b, "<td class=\"n\" data-v=\"1e30\">mismatch</td>");
    else plumb_buf_printf(b, "<td class=\"n\" data-v=\"%.6g\">%.3g</td>", v, v);
}

/* ---- golden check ------------------------------------------------------------ */

static int golden_rank(const golden_result *r)
{
    return r->errored ? 0 : r->failed ? 1 : r->skipped ? 3 : 2;
}

typedef struct gref {
    const golden_result *r;
} gref;

/* Errors, then failures, then passes by worst budget used, skipped last. */
static int gref_cmp(const void *a, const void *b)
{
    const golden_result *x = ((const gref *)a)->r, *y = ((const gref *)b)->r;
    int rx = golden_rank(x), ry = golden_rank(y);
    if (rx != ry) return rx - ry;
    if (x->worst != y->worst) return x->worst > y->worst ? -1 : 1;
    return strcmp(x->file, y->file);
}

void cli_golden_html(plumb_buf *out, const char *spec, const conf_backend *b, const char *suite, bool partial,
                     bool ok, const golden_result *rs, uint32_t n)
{
    char title[200];
    snprintf(title, sizeof title, "plumb golden check: %s", b->name);
    conf_html_begin(out, title);
    uint64_t cases = 0, failed = 0;
    uint32_t bad = 0, skipped = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rs[i].skipped) { skipped++; continue; }
        cases += rs[i].cases;
        failed += rs[i].failed;
        bad += rs[i].failed || rs[i].errored;
    }
    char line[400];
    snprintf(line, sizeof line, "%u files, %llu cases, %llu failed, %u files failed, %u files skipped (not claimed)%s",
             n - skipped, (unsigned long long)cases, (unsigned long long)failed, bad, skipped,
             partial ? "; a partial run (--ops)" : "");
    verdict_box(out, ok, partial, !ok ? "FAIL" : partial ? "PASS (PARTIAL: --ops)" : "PASS", line);
    plumb_buf_puts(out, "<h2 id=\"run\">Run</h2>\n<dl class=\"cert\">\n<dt>backend</dt><dd><code>");
    conf_html_esc(out, spec);
    plumb_buf_puts(out, "</code> (");
    conf_html_esc(out, b->name);
    plumb_buf_puts(out, " ");
    conf_html_esc(out, b->version);
    plumb_buf_puts(out, ")</dd>\n<dt>suite</dt><dd>");
    conf_html_esc(out, suite);
    plumb_buf_puts(out, "</dd>\n</dl>\n");

    gref *v = plumb_malloc(sizeof *v * (n ? n : 1));
    if (!v) {
        out->failed = true;
        return;
    }
    for (uint32_t i = 0; i < n; i++) v[i].r = &rs[i];
    qsort(v, n, sizeof *v, gref_cmp);
    plumb_buf_printf(out, "<h2 id=\"files\">Golden files (%u)</h2>\n", n);
    plumb_buf_puts(out, "<p>Budget used is a record's error as a fraction of its bound (0 exact, over 1 fails). "
                        "Histogram bins, left to right: ");
    for (int k = 0; k < CONF_HIST_BINS; k++) plumb_buf_printf(out, "%s%s", k ? ", " : "", hist_labels[k]);
    plumb_buf_puts(out, "; bar heights on a square-root scale. Errors and failures come first; click a heading to "
                        "sort.</p>\n<table class=\"sortable\" id=\"file-table\">\n<thead><tr><th>file</th><th>op</th>"
                        "<th>type</th><th>length</th><th>status</th><th>cases</th><th>failed</th><th>worst</th>"
                        "<th>p50</th><th>p90</th><th>p99</th><th>histogram</th><th>worst failure, error</th></tr>"
                        "</thead>\n<tbody>\n");
    for (uint32_t i = 0; i < n; i++) {
        const golden_result *r = v[i].r;
        const char *status = r->skipped ? "skipped" : r->errored ? "error" : r->failed ? "fail" : "pass";
        plumb_buf_printf(out, "<tr class=\"file%s\" data-file=\"", r->failed || r->errored ? " bad" : "");
        conf_html_esc(out, r->file);
        plumb_buf_puts(out, "\"><td><code>");
        conf_html_esc(out, r->file);
        plumb_buf_puts(out, "</code></td><td><code>");
        conf_html_esc(out, plumb_op_name(r->op));
        plumb_buf_printf(out, "</code></td><td>%s</td><td class=\"n\" data-v=\"%u\">%u</td><td>%s</td>"
                              "<td class=\"n\" data-v=\"%u\">%u</td><td class=\"n failed\" data-v=\"%u\">%u</td>",
                         plumb_dtype_name(r->dtype), r->length, r->length, status, r->cases, r->cases, r->failed,
                         r->failed);
        if (r->skipped || r->errored) {
            plumb_buf_puts(out, "<td data-v=\"-1\">-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>");
        } else {
            plumb_buf_printf(out, "<td class=\"n\" data-v=\"%.6g\">", r->worst >= 1e29 || !isfinite(r->worst) ? 1e30 : r->worst);
            conf_svg_budget_bar(out, r->worst);
            if (r->worst >= 1e29 || !isfinite(r->worst)) plumb_buf_puts(out, " mismatch</td>");
            else plumb_buf_printf(out, " %.3g</td>", r->worst);
            num_cell(out, r->p50);
            num_cell(out, r->p90);
            num_cell(out, r->p99);
            plumb_buf_puts(out, "<td>");
            char what[160];
            snprintf(what, sizeof what, "budget used by the %u records of %s", r->hist.n, r->file);
            conf_svg_hist(out, r->hist.bins, CONF_HIST_BINS, hist_labels, 1u << (CONF_HIST_BINS - 1), what);
            plumb_buf_puts(out, "</td><td>");
        }
        conf_html_esc(out, r->errored ? r->error : r->failure);
        if (r->failed || r->errored) {
            plumb_buf_puts(out, "<br>replay: <code class=\"replay\">plumb golden check --backend ");
            conf_html_esc(out, spec);
            plumb_buf_puts(out, " --ops ");
            conf_html_esc(out, plumb_op_name(r->op));
            plumb_buf_puts(out, "</code>");
        }
        plumb_buf_puts(out, "</td></tr>\n");
    }
    plumb_buf_puts(out, "</tbody>\n</table>\n");
    plumb_free(v, sizeof *v * (n ? n : 1));
    conf_html_end(out);
}

/* ---- fuzz ------------------------------------------------------------------------- */

typedef struct fref {
    const fz_finding *f;
} fref;

/* Findings by oracle, then op, then the most programs first. */
static int fref_cmp(const void *a, const void *b)
{
    const fz_finding *x = ((const fref *)a)->f, *y = ((const fref *)b)->f;
    int k = strcmp(x->oracle, y->oracle);
    if (!k) k = strcmp(x->op, y->op);
    if (!k && x->hits != y->hits) return x->hits > y->hits ? -1 : 1;
    if (!k) k = strcmp(x->signature, y->signature);
    return k;
}

/* The options a replay needs besides seed and index: those that differ
 * from the defaults (they change the programs generated). */
static void fuzz_gen_args(plumb_buf *b, const fz_options *o)
{
    fz_gen_opts def;
    fz_gen_opts_init(&def);
    const fz_gen_opts *g = &o->gen;
    if (memcmp(def.ops, g->ops, sizeof def.ops)) {
        plumb_buf_puts(b, " --ops ");
        bool first = true;
        for (int k = 0; k < PLUMB_OP_COUNT; k++)
            if (g->ops[k]) {
                plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_op_short_name((plumb_opcode)k));
                first = false;
            }
    }
    if (def.dtypes != g->dtypes) {
        plumb_buf_puts(b, " --dtypes ");
        bool first = true;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if (g->dtypes & PLUMB_TY_BIT(t)) {
                plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_dtype_name((plumb_dtype)t));
                first = false;
            }
    }
    if (def.max_nodes != g->max_nodes) plumb_buf_printf(b, " --max-nodes %u", g->max_nodes);
    if (def.max_elems != g->max_elems) plumb_buf_printf(b, " --max-elements %u", g->max_elems);
    if (def.poly != g->poly) plumb_buf_printf(b, " --poly %u", g->poly);
}

void cli_fuzz_html(plumb_buf *out, const fz_options *o, const fz_result *res)
{
    char title[600];
    snprintf(title, sizeof title, "plumb fuzz: %s", o->backend);
    conf_html_begin(out, title);
    char line[400];
    snprintf(line, sizeof line, "%llu programs, %llu mutants, %llu ops checked, %u findings in %.1f s (%.0f programs/s)",
             (unsigned long long)res->programs, (unsigned long long)res->mutants,
             (unsigned long long)res->ops_checked, res->n_findings, res->seconds,
             res->seconds > 0 ? (double)res->programs / res->seconds : 0.0);
    verdict_box(out, res->n_findings == 0, false, res->n_findings ? "FINDINGS" : "NO FINDINGS", line);
    plumb_buf_puts(out, "<h2 id=\"run\">Campaign</h2>\n<dl class=\"cert\">\n<dt>backend</dt><dd><code>");
    conf_html_esc(out, o->backend);
    plumb_buf_printf(out, "</code></dd>\n<dt>seed</dt><dd>%llu, programs from %llu, shard %u/%u</dd>\n<dt>mutators</dt><dd>",
                     (unsigned long long)o->seed, (unsigned long long)o->first, o->shard_index,
                     o->shard_count ? o->shard_count : 1);
    bool first = true;
    for (int m = 0; m < FZ_MUT_COUNT; m++)
        if (o->mutators & (1u << m)) {
            plumb_buf_printf(out, "%s%s", first ? "" : ", ", fz_mutator_name((fz_mutator)m));
            first = false;
        }
    if (first) plumb_buf_puts(out, "none");
    plumb_buf gen;
    plumb_buf_init(&gen);
    fuzz_gen_args(&gen, o);
    plumb_buf_puts(out, "</dd>\n<dt>generator</dt><dd>");
    conf_html_esc(out, gen.len ? gen.data + 1 : "defaults");
    plumb_buf_printf(out, "</dd>\n<dt>skipped</dt><dd>%llu programs (an op or type the backend does not claim)</dd>\n"
                          "</dl>\n", (unsigned long long)res->skipped);

    plumb_buf_printf(out, "<h2 id=\"findings\">Findings (%u)</h2>\n", res->n_findings);
    if (!res->n_findings) {
        plumb_buf_puts(out, "<p>None.</p>\n");
    } else {
        fref *v = plumb_malloc(sizeof *v * res->n_findings);
        if (!v) {
            plumb_buf_free(&gen);
            out->failed = true;
            return;
        }
        for (uint32_t i = 0; i < res->n_findings; i++) v[i].f = &res->findings[i];
        qsort(v, res->n_findings, sizeof *v, fref_cmp);
        plumb_buf_puts(out, "<p>Grouped by oracle and op; each finding is one signature (oracle/op/dtype/mutator), "
                            "first seen in the program named, with the command that replays that program.</p>\n");
        for (uint32_t i = 0; i < res->n_findings;) {
            uint32_t e = i + 1;
            while (e < res->n_findings && !strcmp(v[e].f->oracle, v[i].f->oracle) && !strcmp(v[e].f->op, v[i].f->op))
                e++;
            plumb_buf_printf(out, "<section class=\"finding-group\" data-count=\"%u\">\n<h3>", e - i);
            conf_html_esc(out, v[i].f->oracle);
            plumb_buf_puts(out, " <code>");
            conf_html_esc(out, v[i].f->op[0] ? v[i].f->op : "-");
            plumb_buf_printf(out, "</code>: %u finding%s</h3>\n<ul>\n", e - i, e - i == 1 ? "" : "s");
            for (uint32_t k = i; k < e; k++) {
                const fz_finding *f = v[k].f;
                plumb_buf_puts(out, "<li class=\"finding\" data-signature=\"");
                conf_html_esc(out, f->signature);
                plumb_buf_puts(out, "\"><code>");
                conf_html_esc(out, f->signature);
                plumb_buf_printf(out, "</code>: program %llu (seed %llu), %u program%s: ", (unsigned long long)f->program,
                                 (unsigned long long)f->seed, f->hits, f->hits == 1 ? "" : "s");
                conf_html_esc(out, f->detail);
                plumb_buf_puts(out, "<br>replay: <code class=\"replay\">plumb fuzz --backend ");
                conf_html_esc(out, o->backend);
                plumb_buf_printf(out, " --seed %llu --index %llu --count 1 --mutators ", (unsigned long long)o->seed,
                                 (unsigned long long)f->program);
                conf_html_esc(out, strcmp(f->mutator, "base") ? f->mutator : "none");
                conf_html_esc(out, gen.data ? gen.data : "");
                plumb_buf_puts(out, "</code>");
                if (f->dir[0]) {
                    plumb_buf_puts(out, "<br>saved in <code>");
                    conf_html_esc(out, f->dir);
                    plumb_buf_puts(out, "</code>");
                }
                plumb_buf_puts(out, "</li>\n");
            }
            plumb_buf_puts(out, "</ul>\n</section>\n");
            i = e;
        }
        plumb_free(v, sizeof *v * res->n_findings);
    }
    plumb_buf_free(&gen);

    /* op coverage: results checked per op, one bar per element type */
    uint32_t n_ops = 0;
    for (int k = 0; k < PLUMB_OP_COUNT; k++)
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if (res->op_cover[k][t]) { n_ops++; break; }
    plumb_buf_printf(out, "<h2 id=\"coverage\">Op coverage (%u ops)</h2>\n", n_ops);
    plumb_buf_puts(out, "<p>Op results checked against the reference, per op and element type.</p>\n"
                        "<table class=\"sortable\" id=\"coverage-table\">\n<thead><tr><th>op</th><th>results checked"
                        "</th><th>per type</th></tr></thead>\n<tbody>\n");
    for (int k = 0; k < PLUMB_OP_COUNT; k++) {
        uint64_t total = 0;
        uint32_t bins[PLUMB_DTYPE_COUNT], nb = 0;
        const char *labels[PLUMB_DTYPE_COUNT];
        char lab[PLUMB_DTYPE_COUNT][24];
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!res->op_cover[k][t]) continue;
            total += res->op_cover[k][t];
            bins[nb] = res->op_cover[k][t] > UINT32_MAX ? UINT32_MAX : (uint32_t)res->op_cover[k][t];
            snprintf(lab[nb], sizeof lab[nb], "%s", plumb_dtype_name((plumb_dtype)t));
            labels[nb] = lab[nb];
            nb++;
        }
        if (!total) continue;
        plumb_buf_puts(out, "<tr class=\"op\" data-op=\"");
        conf_html_esc(out, plumb_op_name((plumb_opcode)k));
        plumb_buf_puts(out, "\"><td><code>");
        conf_html_esc(out, plumb_op_name((plumb_opcode)k));
        plumb_buf_printf(out, "</code></td><td class=\"n\" data-v=\"%llu\">%llu</td><td>", (unsigned long long)total,
                         (unsigned long long)total);
        char what[160];
        snprintf(what, sizeof what, "results of %s checked per element type", plumb_op_name((plumb_opcode)k));
        conf_svg_hist(out, bins, nb, labels, 0, what);
        for (uint32_t j = 0; j < nb; j++) plumb_buf_printf(out, "%s%s %u", j ? ", " : " ", labels[j], bins[j]);
        plumb_buf_puts(out, "</td></tr>\n");
    }
    plumb_buf_puts(out, "</tbody>\n</table>\n");
    conf_html_end(out);
}

/* ---- run --stats ------------------------------------------------------------------ */

void cli_run_events_free(cli_run_event *ev, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].explanation) plumb_free(ev[i].explanation, strlen(ev[i].explanation) + 1);
}

static void stats_row(plumb_buf *out, const char *module, const char *name, const plumb_runtime_stats *st, bool total)
{
    plumb_buf_printf(out, "<tr class=\"%s%s\"><td>", total ? "total" : "entry", st->recompiles ? " bad" : "");
    if (total) {
        plumb_buf_puts(out, "<strong>total</strong>");
    } else {
        plumb_buf_puts(out, "<code>@");
        conf_html_esc(out, name ? name : "");
        plumb_buf_puts(out, "</code>");
        if (module) {
            plumb_buf_puts(out, " (module <code>@");
            conf_html_esc(out, module);
            plumb_buf_puts(out, "</code>)");
        }
    }
    plumb_buf_printf(out, "</td><td class=\"n\" data-v=\"%u\">%u</td><td class=\"n compiles\" data-v=\"%llu\">%llu</td>"
                          "<td class=\"n recompiles\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
                          "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
                          "<td class=\"n\" data-v=\"%.6f\">%.3f</td><td class=\"n\" data-v=\"%.6f\">%.3f</td></tr>\n",
                     st->programs, st->programs, (unsigned long long)st->compiles, (unsigned long long)st->compiles,
                     (unsigned long long)st->recompiles, (unsigned long long)st->recompiles,
                     (unsigned long long)st->cache_hits, (unsigned long long)st->cache_hits,
                     (unsigned long long)st->disk_hits, (unsigned long long)st->disk_hits,
                     (unsigned long long)st->runs, (unsigned long long)st->runs, st->compile_seconds,
                     st->compile_seconds * 1e3, st->execute_seconds, st->execute_seconds * 1e3);
}

void cli_run_html(plumb_buf *out, const char *const *files, int n_files, const cli_run_event *ev, uint32_t n,
                  const struct plumb_runtime *rt)
{
    plumb_runtime_stats total;
    memset(&total, 0, sizeof total);
    total.struct_size = sizeof total;
    plumb_runtime_stats_get(rt, NULL, &total);
    conf_html_begin(out, "plumb run --stats");
    char line[300];
    snprintf(line, sizeof line, "%u runs of %d file%s: %llu compiles, %llu recompiles, %llu cache hits, %llu disk hits",
             n, n_files, n_files == 1 ? "" : "s", (unsigned long long)total.compiles,
             (unsigned long long)total.recompiles, (unsigned long long)total.cache_hits,
             (unsigned long long)total.disk_hits);
    verdict_box(out, total.recompiles == 0, false, total.recompiles ? "RECOMPILES" : "NO RECOMPILES", line);

    plumb_buf_puts(out, "<h2 id=\"stats\">Per module and entry</h2>\n<table class=\"sortable\" id=\"stats-table\">\n"
                        "<thead><tr><th>entry</th><th>programs</th><th>compiles</th><th>recompiles</th><th>cache hits</th>"
                        "<th>disk hits</th><th>runs</th><th>compile ms</th><th>execute ms</th></tr></thead>\n<tbody>\n");
    for (uint32_t i = 0; i < plumb_runtime_entry_count(rt); i++) {
        const char *module = NULL, *name = NULL;
        plumb_runtime_stats st;
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        if (plumb_runtime_entry_stats(rt, i, &module, &name, &st)) stats_row(out, module, name, &st, false);
    }
    stats_row(out, NULL, NULL, &total, true);
    plumb_buf_puts(out, "</tbody>\n</table>\n");

    /* the timeline: one step per run, a mark on each compile */
    uint32_t n_builds = 0, n_re = 0;
    for (uint32_t i = 0; i < n; i++) {
        n_builds += ev[i].compiled;
        n_re += ev[i].recompiled;
    }
    plumb_buf_printf(out, "<h2 id=\"timeline\">Compile timeline</h2>\n<p>Runs 1 to %u in order; a dot on each run that "
                          "compiled a program (blue), red for the recompiles (%u).</p>\n<p>", n, n_re);
    uint32_t *steps = plumb_malloc(sizeof *steps * (n_builds ? n_builds : 1));
    uint32_t *re = plumb_malloc(sizeof *re * (n_re ? n_re : 1));
    if (!steps || !re) {
        if (steps) plumb_free(steps, sizeof *steps * (n_builds ? n_builds : 1));
        if (re) plumb_free(re, sizeof *re * (n_re ? n_re : 1));
        out->failed = true;
        return;
    }
    uint32_t kb = 0, kr = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ev[i].compiled && !ev[i].recompiled) steps[kb++] = i + 1;
        if (ev[i].recompiled) re[kr++] = i + 1;
    }
    char title[120];
    snprintf(title, sizeof title, "%u first compiles over %u runs", kb, n);
    conf_svg_timeline(out, 1, n ? n : 1, steps, kb, false, title);
    plumb_buf_puts(out, "<br>");
    snprintf(title, sizeof title, "%u recompiles over %u runs", kr, n);
    conf_svg_timeline(out, 1, n ? n : 1, re, kr, true, title);
    plumb_buf_puts(out, "</p>\n");
    plumb_free(steps, sizeof *steps * (n_builds ? n_builds : 1));
    plumb_free(re, sizeof *re * (n_re ? n_re : 1));

    plumb_buf_printf(out, "<h2 id=\"runs\">Runs (%u)</h2>\n<table id=\"run-table\">\n<thead><tr><th>run</th><th>file"
                          "</th><th>program</th><th>why it was built</th></tr></thead>\n<tbody>\n", n);
    for (uint32_t i = 0; i < n; i++) {
        const cli_run_event *e = &ev[i];
        const char *what = e->recompiled ? "recompiled" : e->compiled ? "compiled" : e->disk_hit ? "disk hit" : "cache hit";
        plumb_buf_printf(out, "<tr class=\"run%s\" data-what=\"%s\"><td class=\"n\">%u</td><td><code>",
                         e->recompiled ? " bad" : "", what, i + 1);
        conf_html_esc(out, e->file < (uint32_t)n_files ? files[e->file] : "?");
        plumb_buf_printf(out, "</code></td><td>%s</td><td>", what);
        if (e->explanation) {
            plumb_buf_puts(out, "<pre>");
            conf_html_esc(out, e->explanation);
            plumb_buf_puts(out, "</pre>");
        }
        plumb_buf_puts(out, "</td></tr>\n");
    }
    plumb_buf_puts(out, "</tbody>\n</table>\n");
    conf_html_end(out);
}
