/* Certification reports: the text a person reads, JSON for tools, JUnit XML
 * for CI dashboards. All three carry the same certificate and verdicts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "certify.h"
#include "conf.h"
#include "coverage.h"
#include "plumb/fp8.h"

const char *conf_poly_name(plumb_backend_poly p)
{
    switch (p) {
    case PLUMB_BACKEND_POLY_NONE: return "none";
    case PLUMB_BACKEND_POLY_PER_SHAPE: return "per-shape";
    case PLUMB_BACKEND_POLY_BOUNDED: return "bounded";
    case PLUMB_BACKEND_POLY_UNBOUNDED: return "unbounded";
    }
    return "?";
}

static void type_list(plumb_buf *b, uint32_t mask)
{
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t)))
            continue;
        plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
    if (first)
        plumb_buf_puts(b, "-");
}

static const char *suite_name(conf_suite s) { return s == CONF_SUITE_FULL ? "full" : "quick"; }

/* Budgets of exact-class mismatches are huge sentinels; print them as such. */
static void budget_text(plumb_buf *b, double v)
{
    if (v >= 1e29 || !isfinite(v))
        plumb_buf_puts(b, "mismatch");
    else
        plumb_buf_printf(b, "%.3g", v);
}

void conf_report_last_line(plumb_buf *b, const conf_run *run)
{
    plumb_buf_printf(b, "certify: %llu passed, %llu failed, %llu skipped", (unsigned long long)run->passed,
                     (unsigned long long)run->failed, (unsigned long long)run->skipped);
}

void conf_report_verdict(plumb_buf *b, const conf_run *run)
{
    if (!conf_run_complete(run)) {
        /* Whatever ran, a partial run vouches for nothing beyond itself. */
        plumb_buf_puts(b, "PARTIAL (");
        conf_run_scope_text(b, run);
        plumb_buf_puts(b, ") — not a certificate: ");
        if (!run->ok)
            plumb_buf_puts(b, "FAILED");
        else if (run->n_excused)
            plumb_buf_printf(b, "passed with %u known failure%s excused by %s", run->n_excused,
                             run->n_excused == 1 ? "" : "s", run->baseline ? run->baseline->path : "the baseline");
        else
            plumb_buf_puts(b, "every case run passed");
    } else if (!run->ok) {
        plumb_buf_puts(b, "NOT CERTIFIED");
    } else if (run->n_excused) {
        plumb_buf_printf(b, "CERTIFIED WITH BASELINE (%u known failure%s excused by %s)", run->n_excused,
                         run->n_excused == 1 ? "" : "s", run->baseline ? run->baseline->path : "the baseline");
    } else {
        plumb_buf_puts(b, "CERTIFIED: every claimed op passed");
    }
    if (run->ok && run->n_flaky)
        plumb_buf_printf(b, "; %u flaky case%s (passed on retry)", run->n_flaky, run->n_flaky == 1 ? "" : "s");
}

void conf_report_text(plumb_buf *b, const conf_run *run)
{
    const conf_backend *bk = &run->backend;
    const conf_caps *c = &bk->caps;
    const conf_run_options *o = &run->opts;
    plumb_buf_printf(b, "plumb certify %s\n\n", PLUMB_VERSION_STRING);
    plumb_buf_puts(b, "certificate\n");
    plumb_buf_printf(b, "  backend       %s %s (%s)\n", bk->name, bk->version, bk->where);
    plumb_buf_puts(b, "  verdict       ");
    conf_report_verdict(b, run);
    plumb_buf_printf(b, "\n  suite         %s, seed %llu, shard %u/%u\n", suite_name(o->suite),
                     (unsigned long long)o->seed, o->shard_index, o->shard_count);
    plumb_buf_puts(b, "  scope         ");
    if (conf_run_complete(run))
        plumb_buf_puts(b, "the whole suite\n");
    else {
        plumb_buf_puts(b, "PARTIAL: ");
        conf_run_scope_text(b, run);
        plumb_buf_puts(b, "\n");
    }
    plumb_buf_printf(b, "  claims        %u ops; polymorphic shapes %s; subnormals ", c->n_claimed_ops,
                     conf_poly_name(c->poly));
    if (c->flush_subnormals) {
        plumb_buf_puts(b, "flushed to zero for ");
        type_list(b, c->flush_subnormals);
    } else {
        plumb_buf_puts(b, "IEEE");
    }
    plumb_buf_printf(b, "; NaN payloads %s; %s\n", c->preserves_nan_payload ? "preserved" : "not preserved",
                     c->deterministic ? "deterministic" : "not deterministic");
    if (c->deterministic && run->opts.few_forks)
        plumb_buf_puts(b, "  isolation     sanitized build: batches mix element types and only each batch's last case "
                          "reruns in a fresh process (a release build reruns one case in 16 of every type)\n");
    if (c->poly == PLUMB_BACKEND_POLY_NONE)
        plumb_buf_printf(b, "  polymorphism  none: certified on refined (static) programs; %llu polymorphic cases "
                            "unsupported\n", (unsigned long long)run->skipped_poly);
    else
        plumb_buf_printf(b, "  polymorphism  %s: polymorphic (dyn_*) cases and dynamic ops run; the cache suite "
                            "counts compiles across sizes\n", conf_poly_name(c->poly));
    plumb_buf_printf(b, "  accumulators  f16->%s bf16->%s f32->%s f64->%s\n", plumb_dtype_name(c->accum[PLUMB_F16]),
                     plumb_dtype_name(c->accum[PLUMB_BF16]), plumb_dtype_name(c->accum[PLUMB_F32]),
                     plumb_dtype_name(c->accum[PLUMB_F64]));
    char small[768];
    conf_caps_small_accum_text(c, small, sizeof small);
    plumb_buf_printf(b, "  accumulators  %s\n", small);
    plumb_buf_printf(b, "  digest        xxh3-128:%016llx%016llx\n", (unsigned long long)run->digest[0],
                     (unsigned long long)run->digest[1]);
    plumb_buf_printf(b, "  duration      %.1f s\n\n", run->seconds);

    plumb_buf_printf(b, "%-32s %-44s %7s %7s %7s %12s %11s\n", "op", "types claimed", "cases", "passed", "failed",
                     "worst budget", "unsupported");
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        plumb_buf tl;
        plumb_buf_init(&tl);
        if (s->claimed)
            type_list(&tl, s->claimed);
        else
            plumb_buf_puts(&tl, "(unsupported)");
        plumb_buf bt;
        plumb_buf_init(&bt);
        if (s->cases)
            budget_text(&bt, s->worst_budget);
        else
            plumb_buf_puts(&bt, "-");
        plumb_buf_printf(b, "%-32s %-44s %7u %7u %7u %12s %11u%s%s\n", plumb_op_name((plumb_opcode)i),
                         tl.data ? tl.data : "", s->cases, s->passed, s->failed, bt.data ? bt.data : "", s->skipped,
                         s->note[0] && s->claimed ? "  " : "", s->note[0] && s->claimed ? s->note : "");
        plumb_buf_free(&tl);
        plumb_buf_free(&bt);
    }

    bool any = false;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->status == CONF_ST_PASS)
            continue;
        if (!any)
            plumb_buf_puts(b, "\nfailures\n");
        any = true;
        plumb_buf_printf(b, "  %s  [%s]%s %s\n", r->id, conf_status_name(r->status),
                         r->excused ? " (known failure, in the baseline)" : "", r->reason);
        if (r->repro[0])
            plumb_buf_printf(b, "      reproducer: %s\n", r->repro);
        if (r->attempts > 1)
            plumb_buf_printf(b, "      attempts: %u\n", r->attempts);
    }
    if (run->n_flaky) {
        plumb_buf_puts(b, "\nflaky (crashed or timed out, then passed on a retry; not failing)\n");
        for (uint32_t i = 0; i < run->n_cases; i++) {
            const conf_case_result *r = &run->cases[i];
            if (r->flaky)
                plumb_buf_printf(b, "  %s  passed on attempt %u; first: %s\n", r->id, r->attempts, r->reason);
        }
    }
    if (run->baseline) {
        plumb_buf_printf(b, "\nbaseline %s: %u entr%s, %u known failure%s excused\n", run->baseline->path,
                         run->baseline->n, run->baseline->n == 1 ? "y" : "ies", run->n_excused,
                         run->n_excused == 1 ? "" : "s");
        for (uint32_t i = 0; i < run->n_fixed; i++)
            plumb_buf_printf(b, "  %s  fixed — remove it from the baseline\n", run->fixed[i]);
    }
    if (run->n_cache) {
        plumb_buf_puts(b, "\ncache stability (compiles counted through the backend's stats)\n");
        if (o->contract_file)
            plumb_buf_printf(b, "  contract %s: every build of a scenario checked (one run of a model each)\n",
                             o->contract_file);
        for (uint32_t i = 0; i < run->n_cache; i++) {
            const conf_cache_scenario *s = &run->cache[i];
            char want[64];
            if (s->expected_min == s->expected_max)
                snprintf(want, sizeof want, "expected %llu", (unsigned long long)s->expected_max);
            else
                snprintf(want, sizeof want, "expected %llu to %llu", (unsigned long long)s->expected_min,
                         (unsigned long long)s->expected_max);
            plumb_buf_printf(b, "  %-36s compiles %llu (%s", s->name, (unsigned long long)s->compiles, want);
            if (s->runs)
                plumb_buf_printf(b, "; %u runs, %u distinct sizes", s->runs, s->distinct);
            plumb_buf_printf(b, ")  %s%s%s\n", s->pass ? "pass" : "FAIL", s->pass ? "" : ": ", s->pass ? "" : s->reason);
            if (s->note[0])
                plumb_buf_printf(b, "    %s\n", s->note);
            /* The backend's reason for each build, indented one per line;
             * those that did not fit are counted. */
            uint32_t lines = 0;
            for (const char *l = s->explain; *l; lines++) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l) : strlen(l);
                plumb_buf_printf(b, "      %.*s\n", (int)n, l);
                l += n + (e ? 1 : 0);
            }
            if (s->builds_explained > lines)
                plumb_buf_printf(b, "      (%u more)\n", s->builds_explained - lines);
        }
        if (run->no_explain)
            plumb_buf_puts(b, "  reasons: no explanations (the backend's table has no explain, an optional "
                              "function appended in ABI 1.2)\n");
    }
    for (uint32_t i = 0; i < run->n_cache_not_run; i++) {
        if (i == 0)
            plumb_buf_puts(b, run->n_cache ? "" : "\ncache stability\n");
        plumb_buf_printf(b, "  %-36s %s\n", run->cache_not_run[i].name, run->cache_not_run[i].reason);
    }
    plumb_buf_puts(b, "\n");
    conf_report_last_line(b, run);
    plumb_buf_puts(b, "\n");
}

/* ---- budget-used histograms (conf.h) ---------------------------------------- */

const double conf_hist_edges[CONF_HIST_BINS - 1] = {0.0, 0.0625, 0.125, 0.25, 0.5, 1.0};

uint32_t conf_hist_bin(double budget)
{
    if (!(budget <= 1.0)) return CONF_HIST_BINS - 1;   /* over the bound, or NaN */
    uint32_t bin = 0;
    while (bin < CONF_HIST_BINS - 2 && budget > conf_hist_edges[bin]) bin++;
    return bin;
}

static int hist_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    /* NaN sorts last, with the failures */
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    return x < y ? -1 : x > y;
}

static double hist_quantile(const double *sorted, uint32_t n, double q)
{
    uint32_t k = (uint32_t)ceil(q * (double)n);
    if (k < 1) k = 1;
    return sorted[k - 1];
}

void conf_budget_hist_fill(double *budgets, uint32_t n, conf_budget_hist *h)
{
    memset(h, 0, sizeof *h);
    h->n = n;
    if (!n) return;
    for (uint32_t i = 0; i < n; i++) h->bins[conf_hist_bin(budgets[i])]++;
    qsort(budgets, n, sizeof *budgets, hist_cmp);
    h->p50 = hist_quantile(budgets, n, 0.5);
    h->p90 = hist_quantile(budgets, n, 0.9);
    h->p99 = hist_quantile(budgets, n, 0.99);
    h->worst = budgets[n - 1];
}

bool conf_run_budget_hist(const conf_run *run, plumb_opcode op, plumb_dtype t, conf_budget_hist *h)
{
    memset(h, 0, sizeof *h);
    uint32_t n = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        n += r->op == op && r->dtype == t && (r->status == CONF_ST_PASS || r->status == CONF_ST_FAIL);
    }
    if (!n) return true;
    double *v = malloc(n * sizeof *v);
    if (!v) return false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->op == op && r->dtype == t && (r->status == CONF_ST_PASS || r->status == CONF_ST_FAIL))
            v[k++] = r->budget_used;
    }
    conf_budget_hist_fill(v, n, h);
    free(v);
    return true;
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_num(plumb_buf *b, double v)
{
    if (!isfinite(v))
        plumb_buf_puts(b, "null");
    else
        plumb_buf_printf(b, "%.17g", v);
}

static void json_types(plumb_buf *b, uint32_t mask)
{
    plumb_buf_puts(b, "[");
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t)))
            continue;
        plumb_buf_printf(b, "%s\"%s\"", first ? "" : ", ", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
    plumb_buf_puts(b, "]");
}

/* Format 2 adds the scope, the verdict and every case's record (what
 * `plumb certify merge` and --rerun-failures read back, docs/certify.md). */
#define REPORT_FORMAT "plumb-certify-report"
#define REPORT_FORMAT_VERSION 2

static void coverage_json(plumb_buf *b, const conf_run *run);

/* An op's "budget_histograms": per element type with checked cases, the
 * conf_budget_hist of its cases (bins by "budget_histogram_edges"). */
static void budget_hists_json(plumb_buf *b, const conf_run *run, plumb_opcode op)
{
    plumb_buf_puts(b, ", \"budget_histograms\": {");
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        conf_budget_hist h;
        if (!conf_run_budget_hist(run, op, (plumb_dtype)t, &h)) {
            b->failed = true;   /* out of memory: the report is not written */
            return;
        }
        if (!h.n) continue;
        plumb_buf_printf(b, "%s\"%s\": ", first ? "" : ", ", plumb_dtype_name((plumb_dtype)t));
        first = false;
        conf_budget_hist_json(b, &h);
    }
    plumb_buf_puts(b, "}");
}

void conf_budget_hist_json(plumb_buf *b, const conf_budget_hist *h)
{
    plumb_buf_printf(b, "{\"cases\": %u, \"bins\": [", h->n);
    for (int k = 0; k < CONF_HIST_BINS; k++) plumb_buf_printf(b, "%s%u", k ? ", " : "", h->bins[k]);
    plumb_buf_puts(b, "], \"p50\": ");
    json_num(b, h->p50);
    plumb_buf_puts(b, ", \"p90\": ");
    json_num(b, h->p90);
    plumb_buf_puts(b, ", \"p99\": ");
    json_num(b, h->p99);
    plumb_buf_puts(b, ", \"worst\": ");
    json_num(b, h->worst);
    plumb_buf_puts(b, "}");
}

void conf_budget_hist_edges_json(plumb_buf *b)
{
    plumb_buf_puts(b, "[");
    for (int k = 0; k < CONF_HIST_BINS - 1; k++) plumb_buf_printf(b, "%s%g", k ? ", " : "", conf_hist_edges[k]);
    plumb_buf_puts(b, "]");
}

void conf_report_json(plumb_buf *b, const conf_run *run)
{
    conf_report_json_coverage(b, run, false);
}

void conf_report_json_coverage(plumb_buf *b, const conf_run *run, bool coverage)
{
    const conf_backend *bk = &run->backend;
    const conf_caps *c = &bk->caps;
    const conf_run_options *o = &run->opts;
    plumb_buf_printf(b, "{\n  \"format\": \"%s\", \"format_version\": %d,\n  \"plumb_version\": ", REPORT_FORMAT,
                     REPORT_FORMAT_VERSION);
    plumb_json_str_append(b, PLUMB_VERSION_STRING);
    plumb_buf_puts(b, ",\n  \"certificate\": {\n    \"backend\": ");
    plumb_json_str_append(b, bk->name);
    plumb_buf_puts(b, ", \"version\": ");
    plumb_json_str_append(b, bk->version);
    plumb_buf_puts(b, ", \"location\": ");
    plumb_json_str_append(b, bk->where);
    plumb_buf_printf(b, ",\n    \"certified\": %s, \"gate_ok\": %s, \"verdict\": ", conf_run_certified(run) ? "true" : "false",
                     run->ok ? "true" : "false");
    plumb_buf v;
    plumb_buf_init(&v);
    conf_report_verdict(&v, run);
    plumb_json_str_append(b, v.data ? v.data : "");
    plumb_buf_free(&v);
    plumb_buf_printf(b, ",\n    \"suite\": \"%s\", \"seed\": %llu, \"shard_index\": %u, \"shard_count\": %u,\n",
                     suite_name(o->suite), (unsigned long long)o->seed, o->shard_index, o->shard_count);
    plumb_buf_puts(b, "    \"scope\": {\"ops\": ");
    if (o->ops_filter) {
        plumb_buf_puts(b, "[");
        bool first = true;
        for (int i = 0; i < PLUMB_OP_COUNT; i++) {
            if (!o->ops_given[i])
                continue;
            plumb_buf_puts(b, first ? "" : ", ");
            plumb_json_str_append(b, plumb_op_name((plumb_opcode)i));
            first = false;
        }
        plumb_buf_puts(b, "]");
    } else {
        plumb_buf_puts(b, "\"all\"");
    }
    if (o->limit)
        plumb_buf_printf(b, ", \"limit\": %u", o->limit);
    else
        plumb_buf_puts(b, ", \"limit\": null");
    if (o->shard_count > 1)
        plumb_buf_printf(b, ", \"shard\": {\"index\": %u, \"count\": %u}", o->shard_index, o->shard_count);
    else
        plumb_buf_puts(b, ", \"shard\": null");
    plumb_buf_puts(b, ", \"cases\": ");
    if (o->case_ids) {
        plumb_buf_puts(b, "[");
        for (uint32_t i = 0; i < o->n_case_ids; i++) {
            plumb_buf_puts(b, i ? ", " : "");
            plumb_json_str_append(b, o->case_ids[i]);
        }
        plumb_buf_puts(b, "]");
    } else {
        plumb_buf_puts(b, "null");
    }
    plumb_buf_puts(b, ", \"contract\": ");
    if (o->contract_file)
        plumb_json_str_append(b, o->contract_file);
    else
        plumb_buf_puts(b, "null");
    plumb_buf_printf(b, ", \"cache_suite\": %s, \"complete\": %s},\n", o->cache_suite ? "true" : "false",
                     conf_run_complete(run) ? "true" : "false");
    plumb_buf_printf(b, "    \"digest\": \"xxh3-128:%016llx%016llx\", \"started\": %lld, \"seconds\": ",
                     (unsigned long long)run->digest[0], (unsigned long long)run->digest[1], (long long)run->started);
    json_num(b, run->seconds);
    plumb_buf_printf(b, ", \"retry\": %u", o->retry);
    /* which cases reran on a fresh instance: a sanitized build samples less */
    plumb_buf_printf(b, ", \"fresh_instance_rerun\": \"%s\"", o->few_forks ? "batch_last" : "one_in_16");
    plumb_buf_printf(b, ",\n    \"capabilities\": {\"polymorphic_shapes\": \"%s\", \"flush_subnormals\": ",
                     conf_poly_name(c->poly));
    json_types(b, c->flush_subnormals);
    plumb_buf_printf(b, ", \"preserves_nan_payload\": %s, \"deterministic\": %s, \"accumulators\": {",
                     c->preserves_nan_payload ? "true" : "false", c->deterministic ? "true" : "false");
    plumb_buf_printf(b, "\"f16\": \"%s\", \"bf16\": \"%s\", \"f32\": \"%s\", \"f64\": \"%s\"",
                     plumb_dtype_name(c->accum[PLUMB_F16]), plumb_dtype_name(c->accum[PLUMB_BF16]),
                     plumb_dtype_name(c->accum[PLUMB_F32]), plumb_dtype_name(c->accum[PLUMB_F64]));
    /* the FP8/FP6/FP4 formats' (ABI 1.4), which certify merge reads back */
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        if (plumb_dtype_is_small_float((plumb_dtype)t))
            plumb_buf_printf(b, ", \"%s\": \"%s\"", plumb_dtype_name((plumb_dtype)t), plumb_dtype_name(c->accum[t]));
    plumb_buf_puts(b, "},\n      \"ops\": {");
    bool first = true;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!c->claims[i])
            continue;
        plumb_buf_printf(b, "%s\n        ", first ? "" : ",");
        plumb_json_str_append(b, plumb_op_name((plumb_opcode)i));
        plumb_buf_puts(b, ": ");
        json_types(b, c->claims[i]);
        first = false;
    }
    /* bins of every op's "budget_histograms": [0] exactly 0, then up to each
     * edge after the first, the last over 1 (conf.h, conf_budget_hist) */
    plumb_buf_puts(b, "}}\n  },\n  \"budget_histogram_edges\": ");
    conf_budget_hist_edges_json(b);
    plumb_buf_puts(b, ",\n  \"ops\": [");
    first = true;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        plumb_buf_printf(b, "%s\n    {\"op\": ", first ? "" : ",");
        first = false;
        plumb_json_str_append(b, plumb_op_name((plumb_opcode)i));
        plumb_buf_puts(b, ", \"claimed\": ");
        json_types(b, s->claimed);
        plumb_buf_printf(b, ", \"supported\": %s, \"expected\": %u, \"generated\": %u, \"cases\": %u, \"passed\": %u, "
                            "\"failed\": %u, \"unsupported\": %u, \"unsupported_polymorphic\": %u, \"manifest_ok\": %s, "
                            "\"worst_budget\": ",
                         s->claimed ? "true" : "false", s->expected, s->generated, s->cases, s->passed, s->failed,
                         s->skipped, s->skipped_poly, s->manifest_ok ? "true" : "false");
        json_num(b, s->worst_budget);
        plumb_buf_puts(b, ", \"worst_case\": ");
        plumb_json_str_append(b, s->worst_case);
        plumb_buf_puts(b, ", \"note\": ");
        plumb_json_str_append(b, s->note);
        budget_hists_json(b, run, (plumb_opcode)i);
        plumb_buf_puts(b, "}");
    }
    /* One record per case run: [id, status, budget_used, seconds, attempts];
     * status "flaky" is a pass on a retry. */
    plumb_buf_puts(b, "\n  ],\n  \"case_fields\": [\"id\", \"status\", \"budget_used\", \"seconds\", \"attempts\"],\n  \"cases\": [");
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        plumb_buf_puts(b, i ? ",\n    [" : "\n    [");
        plumb_json_str_append(b, r->id);
        plumb_buf_printf(b, ", \"%s\", ", r->flaky ? "flaky" : conf_status_name(r->status));
        json_num(b, r->budget_used);
        plumb_buf_puts(b, ", ");
        json_num(b, r->seconds);
        plumb_buf_printf(b, ", %u]", r->attempts ? r->attempts : 1);
    }
    plumb_buf_puts(b, "\n  ],\n  \"failures\": [");
    first = true;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->status == CONF_ST_PASS && !r->flaky)
            continue;
        plumb_buf_printf(b, "%s\n    {\"id\": ", first ? "" : ",");
        first = false;
        plumb_json_str_append(b, r->id);
        plumb_buf_puts(b, ", \"op\": ");
        plumb_json_str_append(b, plumb_op_name(r->op));
        plumb_buf_printf(b, ", \"dtype\": \"%s\", \"status\": \"%s\", \"excused\": %s, \"attempts\": %u, \"budget_used\": ",
                         plumb_dtype_name(r->dtype), r->flaky ? "flaky" : conf_status_name(r->status),
                         r->excused ? "true" : "false", r->attempts ? r->attempts : 1);
        json_num(b, r->budget_used);
        plumb_buf_puts(b, ", \"reason\": ");
        plumb_json_str_append(b, r->reason);
        plumb_buf_puts(b, ", \"reproducer\": ");
        plumb_json_str_append(b, r->repro);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, "\n  ],\n  \"baseline\": ");
    if (run->baseline) {
        plumb_buf_puts(b, "{\"file\": ");
        plumb_json_str_append(b, run->baseline->path);
        plumb_buf_printf(b, ", \"entries\": %u, \"excused\": %u, \"fixed\": [", run->baseline->n, run->n_excused);
        for (uint32_t i = 0; i < run->n_fixed; i++) {
            plumb_buf_puts(b, i ? ", " : "");
            plumb_json_str_append(b, run->fixed[i]);
        }
        plumb_buf_puts(b, "]}");
    } else {
        plumb_buf_puts(b, "null");
    }
    plumb_buf_printf(b, ",\n  \"flaky\": %u,\n  \"cache_stability\": [", run->n_flaky);
    for (uint32_t i = 0; i < run->n_cache; i++) {
        const conf_cache_scenario *s = &run->cache[i];
        plumb_buf_printf(b, "%s\n    {\"scenario\": ", i ? "," : "");
        plumb_json_str_append(b, s->name);
        plumb_buf_printf(b, ", \"compiles\": %llu, \"min_compiles\": %llu, \"max_compiles\": %llu, \"runs\": %u, "
                         "\"distinct_shapes\": %u, \"pass\": %s, \"note\": ",
                         (unsigned long long)s->compiles, (unsigned long long)s->expected_min,
                         (unsigned long long)s->expected_max, s->runs, s->distinct, s->pass ? "true" : "false");
        plumb_json_str_append(b, s->note);
        plumb_buf_puts(b, ", \"reason\": ");
        plumb_json_str_append(b, s->pass ? "" : s->reason);
        /* The backend's reasons (ABI 1.2 explain), one string per build
         * (the first ones, as many as fit: builds_explained counts them
         * all); null when the backend has no explain. */
        plumb_buf_printf(b, ", \"builds_explained\": %u, \"explanations\": ", s->builds_explained);
        if (run->no_explain) {
            plumb_buf_puts(b, "null");
        } else {
            plumb_buf_puts(b, "[");
            int k = 0;
            for (const char *l = s->explain; *l; k++) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l) : strlen(l);
                char line[sizeof s->explain];
                memcpy(line, l, n);
                line[n] = 0;
                plumb_buf_puts(b, k ? ", " : "");
                plumb_json_str_append(b, line);
                l += n + (e ? 1 : 0);
            }
            plumb_buf_puts(b, "]");
        }
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, "\n  ],\n  \"cache_not_run\": [");
    for (uint32_t i = 0; i < run->n_cache_not_run; i++) {
        plumb_buf_printf(b, "%s\n    {\"scenario\": ", i ? "," : "");
        plumb_json_str_append(b, run->cache_not_run[i].name);
        plumb_buf_puts(b, ", \"reason\": ");
        plumb_json_str_append(b, run->cache_not_run[i].reason);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, "\n  ],");
    if (coverage) coverage_json(b, run);
    plumb_buf_printf(b, "\n  \"skipped_polymorphic\": %llu,", (unsigned long long)run->skipped_poly);
    plumb_buf_printf(b, "\n  \"passed\": %llu, \"failed\": %llu, \"skipped\": %llu\n}\n",
                     (unsigned long long)run->passed, (unsigned long long)run->failed,
                     (unsigned long long)run->skipped);
}

/* ---- JUnit XML -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Escapes s for XML text or (attr) an attribute value, where newlines and
 * tabs must be character references to survive attribute normalization.
 * Bytes XML cannot carry (control characters, invalid UTF-8) become '?'. */
static void xml_esc(plumb_buf *b, const char *s, bool attr)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        switch (*p) {
        case '&': plumb_buf_puts(b, "&amp;"); p++; continue;
        case '<': plumb_buf_puts(b, "&lt;"); p++; continue;
        case '>': plumb_buf_puts(b, "&gt;"); p++; continue;
        case '"': plumb_buf_puts(b, "&quot;"); p++; continue;
        case '\'': plumb_buf_puts(b, "&apos;"); p++; continue;
        case '\n': plumb_buf_puts(b, attr ? "&#10;" : "\n"); p++; continue;
        case '\t': plumb_buf_puts(b, attr ? "&#9;" : "\t"); p++; continue;
        default: break;
        }
        int n = utf8_len(p);
        if (*p < 0x20 || *p == 0x7f || n == 0) {
            plumb_buf_puts(b, "?");
            p++;
        } else {
            plumb_buf_append(b, (const char *)p, (size_t)n);
            p += n;
        }
    }
}

static void xml_str(plumb_buf *b, const char *s) { xml_esc(b, s, true); }

static void junit_property(plumb_buf *b, const char *name, const char *value)
{
    plumb_buf_printf(b, "      <property name=\"%s\" value=\"", name);
    xml_str(b, value);
    plumb_buf_puts(b, "\"/>\n");
}

/* The elements of one <testsuite>, counted while they are written so that
 * its attributes say exactly what it holds. */
typedef struct junit_counts {
    uint32_t tests, failures, skipped;
    double time;
} junit_counts;

static void junit_suite(plumb_buf *out, const char *name, const junit_counts *n, const char *stamp,
                        const char *host, const plumb_buf *body)
{
    plumb_buf_puts(out, "  <testsuite name=\"");
    xml_str(out, name);
    plumb_buf_printf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"%.6f\" timestamp=\"%s\" hostname=\"",
                     n->tests, n->failures, n->skipped, n->time, stamp);
    xml_str(out, host);
    plumb_buf_puts(out, "\">\n");
    if (body->data)
        plumb_buf_append(out, body->data, body->len);
    plumb_buf_puts(out, "  </testsuite>\n");
}

void conf_report_junit(plumb_buf *b, const conf_run *run)
{
    const conf_run_options *o = &run->opts;
    char stamp[32] = "1970-01-01T00:00:00";
    time_t t0 = (time_t)run->started;
    struct tm tmv;
    if (gmtime_r(&t0, &tmv))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tmv);
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0 || !host[0])
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;

    plumb_buf suites;
    plumb_buf_init(&suites);
    junit_counts all = {0, 0, 0, 0};

    /* The certificate: what was certified, as properties (no test cases). */
    {
        plumb_buf body, tmp;
        plumb_buf_init(&body);
        plumb_buf_init(&tmp);
        plumb_buf_puts(&body, "    <properties>\n");
        junit_property(&body, "backend", run->backend.name);
        junit_property(&body, "backend_version", run->backend.version);
        junit_property(&body, "backend_location", run->backend.where);
        junit_property(&body, "suite", suite_name(o->suite));
        plumb_buf_printf(&tmp, "%llu", (unsigned long long)o->seed);
        junit_property(&body, "seed", tmp.data);
        plumb_buf_free(&tmp);
        plumb_buf_printf(&tmp, "%u/%u", o->shard_index, o->shard_count);
        junit_property(&body, "shard", tmp.data);
        plumb_buf_free(&tmp);
        conf_run_scope_text(&tmp, run);
        junit_property(&body, "scope", conf_run_complete(run) ? "the whole suite" : tmp.data ? tmp.data : "");
        plumb_buf_free(&tmp);
        junit_property(&body, "complete", conf_run_complete(run) ? "true" : "false");
        junit_property(&body, "certified", conf_run_certified(run) ? "true" : "false");
        conf_report_verdict(&tmp, run);
        junit_property(&body, "verdict", tmp.data ? tmp.data : "");
        plumb_buf_free(&tmp);
        plumb_buf_printf(&tmp, "xxh3-128:%016llx%016llx", (unsigned long long)run->digest[0],
                         (unsigned long long)run->digest[1]);
        junit_property(&body, "digest", tmp.data);
        plumb_buf_free(&tmp);
        plumb_buf_printf(&tmp, "%llu passed, %llu failed, %llu skipped", (unsigned long long)run->passed,
                         (unsigned long long)run->failed, (unsigned long long)run->skipped);
        junit_property(&body, "cases", tmp.data);
        plumb_buf_free(&tmp);
        if (run->baseline)
            junit_property(&body, "baseline", run->baseline->path);
        plumb_buf_puts(&body, "    </properties>\n");
        junit_counts n = {0, 0, 0, 0};
        junit_suite(&suites, "certificate", &n, stamp, host, &body);
        plumb_buf_free(&body);
    }

    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        const char *opn = plumb_op_name((plumb_opcode)i);
        junit_counts n = {0, 0, 0, 0};
        plumb_buf body;
        plumb_buf_init(&body);
        if (!s->claimed || s->skipped) {
            plumb_buf_printf(&body, "    <testcase classname=\"%s\" name=\"%s\" time=\"0\"><skipped message=\"", opn,
                             !s->claimed ? "unsupported"
                             : s->skipped_poly == s->skipped ? "polymorphic cases"
                                                             : "unclaimed element types");
            if (s->claimed && s->skipped_poly == s->skipped)
                plumb_buf_printf(&body, "%u polymorphic cases (the backend claims polymorphic shapes none)", s->skipped);
            else if (s->claimed && s->skipped_poly)
                plumb_buf_printf(&body, "%u cases of element types the backend does not claim and %u polymorphic cases "
                                        "(the backend claims polymorphic shapes none)", s->skipped - s->skipped_poly,
                                 s->skipped_poly);
            else if (s->claimed)
                plumb_buf_printf(&body, "%u cases of element types the backend does not claim", s->skipped);
            else
                plumb_buf_printf(&body, "not claimed by the backend (%u cases)", s->skipped);
            plumb_buf_puts(&body, "\"/></testcase>\n");
            n.tests++;
            n.skipped++;
        }
        if (s->claimed && !s->manifest_ok) {
            plumb_buf_printf(&body, "    <testcase classname=\"%s\" name=\"manifest\" time=\"0\"><failure type=\"manifest\" message=\"", opn);
            xml_str(&body, s->note);
            plumb_buf_puts(&body, "\">");
            xml_esc(&body, s->note, false);
            plumb_buf_puts(&body, "</failure></testcase>\n");
            n.tests++;
            n.failures++;
        }
        for (uint32_t k = 0; k < run->n_cases; k++) {
            const conf_case_result *r = &run->cases[k];
            if (r->op != (plumb_opcode)i)
                continue;
            n.tests++;
            n.time += r->seconds;
            plumb_buf_printf(&body, "    <testcase classname=\"%s\" name=\"", opn);
            xml_str(&body, r->id);
            plumb_buf_printf(&body, "\" time=\"%.6f\"", r->seconds);
            bool fixed = r->status == CONF_ST_PASS && conf_baseline_has(run->baseline, r->id);
            if (r->status == CONF_ST_PASS && !r->flaky && !fixed) {
                plumb_buf_puts(&body, "/>\n");
                continue;
            }
            if (r->status == CONF_ST_PASS) {
                /* A pass worth a note: flaky, or a baseline entry now fixed. */
                plumb_buf_puts(&body, "><system-out>");
                if (r->flaky) {
                    plumb_buf_printf(&body, "flaky: passed on attempt %u; first: ", r->attempts);
                    xml_esc(&body, r->reason, false);
                } else {
                    plumb_buf_puts(&body, "fixed — remove it from the baseline");
                }
                plumb_buf_puts(&body, "</system-out></testcase>\n");
                continue;
            }
            if (r->excused) {
                /* Known failure: reported, not failing the gate. */
                plumb_buf_puts(&body, "><skipped message=\"known failure (baseline): ");
                xml_str(&body, r->reason);
                plumb_buf_puts(&body, "\"/></testcase>\n");
                n.skipped++;
                continue;
            }
            plumb_buf_printf(&body, "><failure type=\"%s\" message=\"", conf_status_name(r->status));
            xml_str(&body, r->reason);
            plumb_buf_puts(&body, "\">");
            plumb_buf_printf(&body, "%s: ", conf_status_name(r->status));
            xml_esc(&body, r->reason, false);
            if (r->repro[0]) {
                plumb_buf_puts(&body, "\nreproducer: ");
                xml_esc(&body, r->repro, false);
            }
            if (r->attempts > 1)
                plumb_buf_printf(&body, "\nattempts: %u", r->attempts);
            plumb_buf_printf(&body, "\nrerun: plumb certify --backend ");
            xml_esc(&body, run->backend.where, false);
            plumb_buf_printf(&body, " --suite %s --seed %llu --case ", suite_name(o->suite), (unsigned long long)o->seed);
            xml_esc(&body, r->id, false);
            plumb_buf_puts(&body, "</failure></testcase>\n");
            n.failures++;
        }
        junit_suite(&suites, opn, &n, stamp, host, &body);
        plumb_buf_free(&body);
        all.tests += n.tests;
        all.failures += n.failures;
        all.skipped += n.skipped;
        all.time += n.time;
    }
    if (run->n_cache || run->n_cache_not_run) {
        junit_counts n = {0, 0, 0, 0};
        plumb_buf body;
        plumb_buf_init(&body);
        for (uint32_t i = 0; i < run->n_cache; i++) {
            const conf_cache_scenario *s = &run->cache[i];
            n.tests++;
            plumb_buf_puts(&body, "    <testcase classname=\"cache\" name=\"");
            xml_str(&body, s->name);
            if (s->pass && !s->explain[0] && run->opts.contract_file) {
                plumb_buf_puts(&body, "\" time=\"0\"><system-out>contract: ");
                xml_esc(&body, run->opts.contract_file, false);
                plumb_buf_puts(&body, "</system-out></testcase>\n");
            } else if (s->pass && !s->explain[0]) {
                plumb_buf_puts(&body, "\" time=\"0\"/>\n");
            } else if (s->pass) {
                /* the backend's reasons for its builds */
                plumb_buf_puts(&body, "\" time=\"0\"><system-out>");
                if (run->opts.contract_file) {
                    plumb_buf_puts(&body, "contract: ");
                    xml_esc(&body, run->opts.contract_file, false);
                    plumb_buf_puts(&body, "\n");
                }
                xml_esc(&body, s->explain, false);
                plumb_buf_puts(&body, "</system-out></testcase>\n");
            } else {
                n.failures++;
                plumb_buf_puts(&body, "\" time=\"0\"><failure type=\"cache\" message=\"");
                xml_str(&body, s->reason);
                plumb_buf_puts(&body, "\">");
                xml_esc(&body, s->reason, false);
                plumb_buf_puts(&body, "</failure>");
                if (s->explain[0]) {
                    plumb_buf_puts(&body, "<system-out>");
                    xml_esc(&body, s->explain, false);
                    plumb_buf_puts(&body, "</system-out>");
                }
                plumb_buf_puts(&body, "</testcase>\n");
            }
        }
        /* Scenarios not run are listed, skipped with why. */
        for (uint32_t i = 0; i < run->n_cache_not_run; i++) {
            n.tests++;
            n.skipped++;
            plumb_buf_puts(&body, "    <testcase classname=\"cache\" name=\"");
            xml_str(&body, run->cache_not_run[i].name);
            plumb_buf_puts(&body, "\" time=\"0\"><skipped message=\"");
            xml_str(&body, run->cache_not_run[i].reason);
            plumb_buf_puts(&body, "\"/></testcase>\n");
        }
        junit_suite(&suites, "cache stability", &n, stamp, host, &body);
        plumb_buf_free(&body);
        all.tests += n.tests;
        all.failures += n.failures;
        all.skipped += n.skipped;
    }
    plumb_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    plumb_buf_printf(b, "<testsuites name=\"plumb certify ");
    xml_str(b, run->backend.name);
    plumb_buf_printf(b, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"%.3f\" timestamp=\"%s\">\n",
                     all.tests, all.failures, all.skipped, run->seconds, stamp);
    if (suites.data)
        plumb_buf_append(b, suites.data, suites.len);
    plumb_buf_puts(b, "</testsuites>\n");
    if (suites.failed)
        b->failed = true;
    plumb_buf_free(&suites);
}

/* ---- coverage ------------------------------------------------------------------ */

/* One cell: a case id without its repetition, split into its parts. */
typedef struct cov_cell {
    plumb_opcode op;
    char dtype[32], value[40], shape[40], form[CONF_FORM_NAME];
    uint32_t cases, passed;
} cov_cell;

/* "<op>/<dtype>/<shape>/<value>/<n>" or ".../<value>/forms/<form>" (form
 * "-" for the families without one). False for an id of another shape. */
static bool cov_parse(const conf_case_result *r, cov_cell *c)
{
    memset(c, 0, sizeof *c);
    c->op = r->op;
    const char *p[6];
    size_t len[6];
    uint32_t n = 0;
    const char *s = r->id;
    while (n < 6) {
        const char *e = strchr(s, '/');
        p[n] = s;
        len[n] = e ? (size_t)(e - s) : strlen(s);
        n++;
        if (!e) break;
        s = e + 1;
    }
    if (n < 5 || len[1] >= sizeof c->dtype || len[2] >= sizeof c->shape || len[3] >= sizeof c->value) return false;
    memcpy(c->dtype, p[1], len[1]);
    memcpy(c->shape, p[2], len[2]);
    memcpy(c->value, p[3], len[3]);
    if (n == 6 && len[4] == 5 && !strncmp(p[4], "forms", 5) && len[5] < sizeof c->form) memcpy(c->form, p[5], len[5]);
    else if (n == 5) c->form[0] = '-';
    else return false;
    return true;
}

static int cov_cmp(const void *a, const void *b)
{
    const cov_cell *x = a, *y = b;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    int k = strcmp(x->dtype, y->dtype);
    if (!k) k = strcmp(x->value, y->value);
    if (!k) k = strcmp(x->shape, y->shape);
    if (!k) k = strcmp(x->form, y->form);
    return k;
}

/* The run's cells, sorted and merged (NULL with *n = 0 when out of memory
 * or the run has no cases). Free with plumb_free(v, sizeof *v * cap). */
static cov_cell *cov_cells(const conf_run *run, uint32_t *n, uint32_t *cap)
{
    *n = 0;
    *cap = run->n_cases;
    if (!run->n_cases) return NULL;
    cov_cell *v = plumb_malloc(sizeof *v * run->n_cases);
    if (!v) { *cap = 0; return NULL; }
    uint32_t m = 0;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        if (!cov_parse(&run->cases[i], &v[m])) continue;
        v[m].cases = 1;
        v[m].passed = run->cases[i].status == CONF_ST_PASS;
        m++;
    }
    qsort(v, m, sizeof *v, cov_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (k && cov_cmp(&v[k - 1], &v[i]) == 0) {
            v[k - 1].cases += v[i].cases;
            v[k - 1].passed += v[i].passed;
        } else {
            v[k++] = v[i];
        }
    }
    *n = k;
    return v;
}

static bool cov_has_form(const cov_cell *v, uint32_t n, plumb_opcode op, const char *dtype, const char *form)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].op == op && !strcmp(v[i].dtype, dtype) && !strcmp(v[i].form, form)) return true;
    return false;
}

/* Calls fn for every form the manifest promises for the run's ops and the
 * types the backend claims (the types whose cases run); returns the count
 * promised and sets *missing to those no cell covers. */
static uint32_t cov_forms(const conf_run *run, const cov_cell *v, uint32_t n, uint32_t *missing,
                          void (*fn)(void *, plumb_opcode, plumb_dtype, const char *), void *arg)
{
    uint32_t promised = 0;
    *missing = 0;
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        if (!run->op_in_run[o]) continue;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!(run->ops[o].claimed & PLUMB_TY_BIT(t))) continue;
            char names[128][CONF_FORM_NAME];
            uint32_t k = conf_manifest_forms((plumb_opcode)o, (plumb_dtype)t, names, 128);
            if (k > 128) k = 128;
            for (uint32_t j = 0; j < k; j++) {
                promised++;
                if (cov_has_form(v, n, (plumb_opcode)o, plumb_dtype_name((plumb_dtype)t), names[j])) continue;
                (*missing)++;
                if (fn) fn(arg, (plumb_opcode)o, (plumb_dtype)t, names[j]);
            }
        }
    }
    return promised;
}

uint32_t conf_coverage_missing(const conf_run *run)
{
    uint32_t n, cap, missing;
    cov_cell *v = cov_cells(run, &n, &cap);
    cov_forms(run, v, n, &missing, NULL, NULL);
    plumb_free(v, sizeof *v * cap);
    return missing;
}

static void missing_text(void *arg, plumb_opcode op, plumb_dtype t, const char *form)
{
    plumb_buf_printf(arg, "  missing: %s %s form %s\n", plumb_op_name(op), plumb_dtype_name(t), form);
}

void conf_report_coverage_text(plumb_buf *b, const conf_run *run)
{
    uint32_t n, cap, missing, cases = 0, forms = 0;
    cov_cell *v = cov_cells(run, &n, &cap);
    plumb_buf_puts(b, "\ncoverage (op, element type, value class, shape class, attribute form: cases run, passed)\n");
    for (uint32_t i = 0; i < n; i++) {
        plumb_buf_printf(b, "  %-28s %-12s %-20s %-16s %-24s %5u %5u\n", plumb_op_name(v[i].op), v[i].dtype, v[i].value,
                         v[i].shape, v[i].form, v[i].cases, v[i].passed);
        cases += v[i].cases;
        forms += strcmp(v[i].form, "-") != 0;
    }
    uint32_t promised = cov_forms(run, v, n, &missing, missing_text, b);
    plumb_buf_printf(b, "coverage: %u cells over %u cases (%u with an attribute form); %u attribute forms promised, "
                        "%u missing%s\n", n, cases, forms, promised, missing,
                     missing && !conf_run_complete(run) ? " (a partial run)" : "");
    plumb_free(v, sizeof *v * cap);
}

static void missing_json(void *arg, plumb_opcode op, plumb_dtype t, const char *form)
{
    plumb_buf *b = arg;
    plumb_buf_puts(b, b->len && b->data[b->len - 1] == '[' ? "" : ", ");
    plumb_buf_puts(b, "[");
    plumb_json_str_append(b, plumb_op_name(op));
    plumb_buf_printf(b, ", \"%s\", ", plumb_dtype_name(t));
    plumb_json_str_append(b, form);
    plumb_buf_puts(b, "]");
}

static void coverage_json(plumb_buf *b, const conf_run *run)
{
    uint32_t n, cap, missing;
    cov_cell *v = cov_cells(run, &n, &cap);
    plumb_buf_puts(b, "\n  \"coverage\": {\"cell_fields\": [\"op\", \"dtype\", \"value_class\", \"shape_class\", \"form\", "
                      "\"cases\", \"passed\"],\n    \"cells\": [");
    for (uint32_t i = 0; i < n; i++) {
        plumb_buf_puts(b, i ? ",\n      [" : "\n      [");
        plumb_json_str_append(b, plumb_op_name(v[i].op));
        plumb_buf_puts(b, ", ");
        plumb_json_str_append(b, v[i].dtype);
        plumb_buf_puts(b, ", ");
        plumb_json_str_append(b, v[i].value);
        plumb_buf_puts(b, ", ");
        plumb_json_str_append(b, v[i].shape);
        plumb_buf_puts(b, ", ");
        plumb_json_str_append(b, v[i].form);
        plumb_buf_printf(b, ", %u, %u]", v[i].cases, v[i].passed);
    }
    plumb_buf_puts(b, "],\n    \"forms_missing\": [");
    uint32_t promised = cov_forms(run, v, n, &missing, missing_json, b);
    plumb_buf_printf(b, "], \"forms_promised\": %u, \"forms_missing_count\": %u},", promised, missing);
    plumb_free(v, sizeof *v * cap);
}
