/* plumb golden: generate the stored goldens, check a backend against them,
 * and the drift ratchet (docs/golden.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plumb/golden.h"
#include "../golden/golden_check.h"
#include "html_reports.h"

static const char golden_help[] =
    "usage: plumb golden gen [--manifest FILE] [--dir DIR] [-q]\n"
    "       plumb golden check --backend ref|runtime|PATH.so [--manifest FILE] [--dir DIR]\n"
    "                          [--ops LIST] [--json FILE] [--html FILE] [-q]\n"
    "       plumb golden ratchet --backend B --baseline FILE [--update] [--manifest FILE]\n"
    "                          [--dir DIR] [--json FILE] [--html FILE] [-q]\n"
    "\n"
    "Golden numerics: correctly rounded results of the float elementwise ops,\n"
    "sums and dots, computed with MPFR and stored in checksummed files\n"
    "(docs/golden.md gives the format).\n"
    "\n"
    "  gen      regenerates every file the manifest lists into DIR, byte for\n"
    "           byte (what `make golden` runs)\n"
    "  check    runs the backend on every stored case and compares with the\n"
    "           stored values under the op table's bounds (exact ops bit for\n"
    "           bit, ULP ops within ulp(n), sums and dots within the\n"
    "           data-dependent bound); no MPFR is involved\n"
    "  ratchet  check, then compare each file's budget used (worst, p50, p90,\n"
    "           p99) with the baseline: any figure above it fails, figures\n"
    "           below it are reported as improvements\n"
    "\n"
    "options:\n"
    "  --manifest FILE   the manifest (default golden/manifest)\n"
    "  --dir DIR         the .gold files (default golden/data)\n"
    "  --backend B       ref, runtime or the path of a backend .so\n"
    "  --ops LIST        check only these ops (comma-separated); the run says\n"
    "                    it is partial\n"
    "  --json FILE       also write the results as JSON (per file and per op x\n"
    "                    type: counts, budget quantiles and a histogram of\n"
    "                    budget used: 0, (0,1/16], ..., (1/2,1], over 1)\n"
    "  --html FILE       also write a self-contained HTML page: the verdict and\n"
    "                    one row per file (counts, budget quantiles, a budget\n"
    "                    bar and histogram as inline SVG, the worst failure\n"
    "                    and a replay command); failures first\n"
    "  --baseline FILE   the ratchet's baseline (for this backend and manifest)\n"
    "  --update          write the run's figures to the baseline instead of\n"
    "                    comparing (after checking the run passed)\n"
    "  -q, --quiet       print failures and the summary only\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes:\n"
    "  0  every stored case checked passed (and, ratchet, nothing got worse)\n"
    "  1  a case failed, the backend failed, or a figure got worse\n"
    "  2  usage error, or a golden file or baseline that cannot be used\n";

enum { O_MANIFEST = 1, O_DIR, O_BACKEND, O_OPS, O_JSON, O_BASELINE, O_UPDATE, O_QUIET, O_HELP, O_HTML };

typedef struct gopts {
    const char *manifest, *dir, *backend, *json, *baseline, *html;
    bool ops_given[PLUMB_OP_COUNT], ops_filter, update, quiet;
} gopts;

static bool parse_ops(const char *cmd, const char *list, gopts *o)
{
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        plumb_opcode op;
        if (len == 0 || !cli_op_lookup(p, len, &op)) {
            cli_usage_error(cmd, "--ops: unknown op '%.*s' (see 'plumb ops')", (int)len, p);
            return false;
        }
        o->ops_given[op] = true;
        o->ops_filter = true;
        p += len;
        if (*p == ',') p++;
    }
    if (!o->ops_filter) {
        cli_usage_error(cmd, "--ops: empty list");
        return false;
    }
    return true;
}

static int cmd_gen(const char *cmd, const gopts *o)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_golden_manifest m;
    if (!plumb_golden_manifest_load(o->manifest, &m, &d)) {
        cli_print_diag(cmd, &d);
        return cli_finish(cmd, CLI_EXIT_USAGE);
    }
    int rc = CLI_EXIT_OK;
    size_t total = 0;
    if (!cli_mkdir_p(o->dir, &d)) { cli_print_diag(cmd, &d); rc = CLI_EXIT_USAGE; goto out; }
    for (uint32_t i = 0; i < m.n; i++) {
        char name[96], path[4096];
        plumb_golden_file_name(&m.v[i], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", o->dir, name);
        uint8_t *data = NULL;
        size_t len = 0;
        if (!plumb_golden_generate(m.seed, &m.v[i], &data, &len, &d)) {
            cli_print_diag(cmd, &d);
            rc = CLI_EXIT_INVALID;
            goto out;
        }
        const void *parts[1] = {data};
        bool ok = plumb_write_file_atomic(path, parts, &len, 1, &d);
        plumb_free(data, len);
        if (!ok) { cli_print_diag(cmd, &d); rc = CLI_EXIT_USAGE; goto out; }
        total += len;
        if (!o->quiet) printf("%s: %zu bytes\n", path, len);
    }
    printf("golden gen: %u files, %zu bytes in %s\n", m.n, total, o->dir);
out:
    plumb_golden_manifest_free(&m);
    return cli_finish(cmd, rc);
}

static bool write_json(const char *path, const char *spec, const conf_backend *b, const char *suite, bool partial,
                       bool ok, const golden_result *rs, uint32_t n, plumb_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); return false; }
    fprintf(f, "{\n  \"plumb_golden_check\": 1,\n  \"backend\": ");
    plumb_json_str_fput(f, spec);
    fprintf(f, ",\n  \"backend_name\": ");
    plumb_json_str_fput(f, b->name);
    fprintf(f, ",\n  \"suite\": \"%s\",\n  \"partial\": %s,\n  \"ok\": %s,\n  \"histogram_edges\": [", suite,
            partial ? "true" : "false", ok ? "true" : "false");
    for (int i = 0; i < CONF_HIST_BINS - 1; i++) fprintf(f, "%s%g", i ? ", " : "", conf_hist_edges[i]);
    fprintf(f, "],\n  \"entries\": [");
    for (uint32_t i = 0; i < n; i++) {
        const golden_result *r = &rs[i];
        fprintf(f, "%s\n    {\"file\": ", i ? "," : "");
        plumb_json_str_fput(f, r->file);
        fprintf(f, ", \"op\": \"%s\", \"attr\": \"%s\", \"dtype\": \"%s\", \"length\": %u, \"status\": \"%s\", \"cases\": %u, "
                "\"passed\": %u, \"failed\": %u, \"worst\": %.17g, \"p50\": %.17g, \"p90\": %.17g, \"p99\": %.17g, "
                "\"histogram\": [",
                plumb_op_name(r->op), r->attr, plumb_dtype_name(r->dtype), r->length,
                r->skipped ? "skipped" : r->errored ? "error" : r->failed ? "fail" : "pass", r->cases, r->passed,
                r->failed, r->worst, r->p50, r->p90, r->p99);
        for (int k = 0; k < CONF_HIST_BINS; k++) fprintf(f, "%s%u", k ? ", " : "", r->hist.bins[k]);
        fprintf(f, "], \"reason\": ");
        plumb_json_str_fput(f, r->errored ? r->error : r->failure);
        fputc('}', f);
    }
    /* Per op x element type (x attribute) over all its checked files (the
     * sums and dots of several lengths together): the budget-used
     * distribution. */
    fprintf(f, "\n  ],\n  \"ops\": [");
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = rs[k].op == rs[i].op && rs[k].dtype == rs[i].dtype && !strcmp(rs[k].attr, rs[i].attr);
        if (seen || !rs[i].budgets) continue;
        conf_budget_hist h;
        if (!golden_op_hist(rs, n, rs[i].op, rs[i].dtype, rs[i].attr, &h)) {
            fclose(f);
            free(buf);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory");
            return false;
        }
        uint32_t files = 0;
        for (uint32_t k = 0; k < n; k++)
            files += rs[k].budgets && rs[k].op == rs[i].op && rs[k].dtype == rs[i].dtype && !strcmp(rs[k].attr, rs[i].attr);
        fprintf(f, "%s\n    {\"op\": \"%s\", \"dtype\": \"%s\", \"attr\": \"%s\", \"files\": %u, \"cases\": %u, "
                "\"histogram\": [", first ? "" : ",", plumb_op_name(rs[i].op), plumb_dtype_name(rs[i].dtype), rs[i].attr,
                files, h.n);
        for (int k = 0; k < CONF_HIST_BINS; k++) fprintf(f, "%s%u", k ? ", " : "", h.bins[k]);
        fprintf(f, "], \"worst\": %.17g, \"p50\": %.17g, \"p90\": %.17g, \"p99\": %.17g}", h.worst, h.p50, h.p90,
                h.p99);
        first = false;
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0 || !buf) { free(buf); plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); return false; }
    const void *parts[1] = {buf};
    bool w = plumb_write_file_atomic(path, parts, &len, 1, d);
    free(buf);
    return w;
}

/* Loads the manifest and every selected file (all before running
 * anything: a bad file is a usage error, named with its reason), then
 * checks each. */
static int run_check(const char *cmd, const gopts *o, bool ratchet)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_golden_manifest m;
    memset(&m, 0, sizeof m);
    conf_backend b;
    memset(&b, 0, sizeof b);
    golden_baseline bl;
    memset(&bl, 0, sizeof bl);
    plumb_golden_file *files = NULL;
    golden_result *rs = NULL;
    uint32_t n_files = 0;
    bool opened = false;
    int rc = CLI_EXIT_USAGE;
    char suite[32];
    if (!plumb_golden_manifest_load(o->manifest, &m, &d)) goto diag;
    golden_suite_name(&m, suite, sizeof suite);
    if (o->ops_filter) {
        for (int op = 0; op < PLUMB_OP_COUNT; op++) {
            if (!o->ops_given[op]) continue;
            bool found = false;
            for (uint32_t i = 0; i < m.n; i++) found |= m.v[i].op == (plumb_opcode)op;
            if (!found) {
                fprintf(stderr, "plumb %s: --ops: %s has no goldens in %s\n", cmd, plumb_op_name((plumb_opcode)op),
                        o->manifest);
                goto out;
            }
        }
    }
    files = plumb_calloc(m.n ? m.n : 1, sizeof *files);
    rs = plumb_calloc(m.n ? m.n : 1, sizeof *rs);
    if (!files || !rs) { plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto diag; }
    for (uint32_t i = 0; i < m.n; i++) {
        if (o->ops_filter && !o->ops_given[m.v[i].op]) continue;
        char name[96], path[4096];
        plumb_golden_file_name(&m.v[i], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", o->dir, name);
        if (!plumb_golden_load(path, &m.v[i], m.seed, &files[n_files], &d)) goto diag;
        snprintf(rs[n_files].file, sizeof rs[n_files].file, "%s", name);
        n_files++;
    }
    /* --update may create the baseline; an existing one must still be this backend's */
    bool have_bl = ratchet && (!o->update || access(o->baseline, F_OK) == 0);
    if (have_bl && !golden_baseline_load(o->baseline, &bl, &d)) goto diag;
    if (!conf_backend_open(o->backend, NULL, 0, &b, &d)) goto diag;
    opened = true;
    if (have_bl) {
        if (strcmp(bl.backend, b.name)) {
            fprintf(stderr, "plumb %s: %s: a baseline for backend '%s', not '%s' (%s)\n", cmd, o->baseline,
                    bl.backend, b.name, o->backend);
            goto out;
        }
        if (!o->update && strcmp(bl.suite, suite)) {
            fprintf(stderr, "plumb %s: %s: a baseline for suite '%s', this manifest is '%s'\n", cmd, o->baseline,
                    bl.suite, suite);
            goto out;
        }
    }
    if (!conf_backend_is_path(o->backend) && !conf_backend_instance(&b, NULL, 0, &d)) goto diag;
    uint64_t cases = 0, failed = 0;
    uint32_t bad_files = 0, skipped = 0;
    for (uint32_t i = 0; i < n_files; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s", rs[i].file);
        if (!golden_check_file(&b, o->backend, &files[i], name, &rs[i], &d)) goto diag;
        golden_result *r = &rs[i];
        if (r->skipped) { skipped++; continue; }
        cases += r->cases;
        failed += r->failed;
        if (r->failed || r->errored) bad_files++;
        if (r->errored) printf("ERROR %s: %s\n", r->file, r->error);
        else if (r->failed) printf("FAIL  %s: %u of %u cases over the bound; worst: %s\n", r->file, r->failed, r->cases, r->failure);
        else if (!o->quiet)
            printf("pass  %s: %u cases, budget used worst %.3g, p50 %.3g, p90 %.3g, p99 %.3g\n", r->file, r->cases,
                   r->worst, r->p50, r->p90, r->p99);
    }
    bool ok = bad_files == 0;
    printf("golden check: backend %s (%s), suite %s%s: %u files, %llu cases, %llu failed, %u files skipped "
           "(not claimed): %s\n",
           o->backend, b.name, suite, o->ops_filter ? " (partial: --ops)" : "", n_files - skipped,
           (unsigned long long)cases, (unsigned long long)failed, skipped, ok ? "PASS" : "FAIL");
    if (o->json && !write_json(o->json, o->backend, &b, suite, o->ops_filter, ok, rs, n_files, &d)) goto diag;
    if (o->html && !cli_golden_html_write(o->html, o->backend, &b, suite, o->ops_filter, ok, rs, n_files, &d)) goto diag;
    rc = ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
    if (!ratchet) goto out;
    if (o->update) {
        if (!ok) {
            fprintf(stderr, "plumb %s: not updating %s: the run failed\n", cmd, o->baseline);
            goto out;
        }
        if (o->ops_filter) {
            fprintf(stderr, "plumb %s: not updating %s from a partial (--ops) run\n", cmd, o->baseline);
            rc = CLI_EXIT_USAGE;
            goto out;
        }
        size_t len = 0;
        char *text = golden_baseline_text(b.name, suite, rs, n_files, &len);
        if (!text) { plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto diag; }
        const void *parts[1] = {text};
        bool w = plumb_write_file_atomic(o->baseline, parts, &len, 1, &d);
        plumb_free(text, len + 1);
        if (!w) goto diag;
        printf("golden ratchet: wrote %s\n", o->baseline);
        goto out;
    }
    uint32_t worse = 0, better = 0;
    for (uint32_t i = 0; i < n_files; i++) {
        const golden_result *r = &rs[i];
        if (r->skipped) continue;
        const golden_baseline_entry *e = NULL;
        for (uint32_t k = 0; k < bl.n && !e; k++)
            if (!strcmp(bl.v[k].file, r->file)) e = &bl.v[k];
        if (!e) {
            printf("WORSE %s: not in the baseline (run --update after reviewing it)\n", r->file);
            worse++;
            continue;
        }
        const char *names[4] = {"worst", "p50", "p90", "p99"};
        double now[4] = {r->worst, r->p50, r->p90, r->p99}, then[4] = {e->worst, e->p50, e->p90, e->p99};
        for (int k = 0; k < 4; k++) {
            /* the checks are deterministic: margin 0 */
            if (now[k] > then[k]) {
                printf("WORSE %s: %s budget used %.6g, baseline %.6g\n", r->file, names[k], now[k], then[k]);
                worse++;
            } else if (now[k] < then[k]) {
                printf("better %s: %s budget used %.6g, baseline %.6g\n", r->file, names[k], now[k], then[k]);
                better++;
            }
        }
    }
    if (!o->ops_filter)
        for (uint32_t k = 0; k < bl.n; k++) {
            bool seen = false;
            for (uint32_t i = 0; i < n_files && !seen; i++) seen = !rs[i].skipped && !strcmp(bl.v[k].file, rs[i].file);
            if (!seen) {
                printf("WORSE %s: in the baseline but no longer checked\n", bl.v[k].file);
                worse++;
            }
        }
    printf("golden ratchet: %u figures worse, %u better than %s: %s\n", worse, better, o->baseline,
           worse ? "FAIL" : "PASS");
    if (worse) rc = CLI_EXIT_INVALID;
    goto out;
diag:
    cli_print_diag(cmd, &d);
    rc = d.code == PLUMB_ERR_RUNTIME ? CLI_EXIT_INVALID : CLI_EXIT_USAGE;
out:
    if (files)
        for (uint32_t i = 0; i < n_files; i++) plumb_golden_file_free(&files[i]);
    if (rs)
        for (uint32_t i = 0; i < n_files; i++) golden_result_free(&rs[i]);
    if (files) plumb_free(files, (m.n ? m.n : 1) * sizeof *files);
    if (rs) plumb_free(rs, (m.n ? m.n : 1) * sizeof *rs);
    if (opened) conf_backend_close(&b);
    golden_baseline_free(&bl);
    plumb_golden_manifest_free(&m);
    return cli_finish(cmd, rc);
}

int cmd_golden(int argc, char **argv)
{
    static const cli_opt opts[] = {
        {"manifest", 0, true, O_MANIFEST}, {"dir", 0, true, O_DIR}, {"backend", 0, true, O_BACKEND},
        {"ops", 0, true, O_OPS}, {"json", 0, true, O_JSON}, {"html", 0, true, O_HTML}, {"baseline", 0, true, O_BASELINE},
        {"update", 0, false, O_UPDATE}, {"quiet", 'q', false, O_QUIET}, {"help", 'h', false, O_HELP},
        {NULL, 0, false, 0},
    };
    const char *cmd = "golden";
    cli_args a;
    cli_args_init(&a, argc, argv);
    gopts o;
    memset(&o, 0, sizeof o);
    o.manifest = "golden/manifest";
    o.dir = "golden/data";
    const char *sub = NULL, *v;
    int id;
    while ((id = cli_next(&a, opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPERAND:
            if (sub) return cli_usage_error(cmd, "unexpected operand '%s'", v);
            sub = v;
            break;
        case O_HELP: fputs(golden_help, stdout); return cli_finish(cmd, CLI_EXIT_OK);
        case O_MANIFEST: o.manifest = v; break;
        case O_DIR: o.dir = v; break;
        case O_BACKEND: o.backend = v; break;
        case O_OPS: if (!parse_ops(cmd, v, &o)) return CLI_EXIT_USAGE; break;
        case O_JSON: o.json = v; break;
        case O_HTML: o.html = v; break;
        case O_BASELINE: o.baseline = v; break;
        case O_UPDATE: o.update = true; break;
        case O_QUIET: o.quiet = true; break;
        }
    }
    if (!sub) return cli_usage_error(cmd, "expected gen, check or ratchet (see --help)");
    if (!strcmp(sub, "gen")) {
        if (o.backend || o.ops_filter || o.json || o.html || o.baseline || o.update)
            return cli_usage_error(cmd, "gen takes --manifest, --dir and -q only");
        return cmd_gen(cmd, &o);
    }
    bool ratchet = !strcmp(sub, "ratchet");
    if (!ratchet && strcmp(sub, "check")) return cli_usage_error(cmd, "unknown subcommand '%s' (gen, check or ratchet)", sub);
    if (!o.backend) return cli_usage_error(cmd, "%s needs --backend ref|runtime|PATH.so", sub);
    if (ratchet && !o.baseline) return cli_usage_error(cmd, "ratchet needs --baseline FILE");
    if (!ratchet && (o.baseline || o.update)) return cli_usage_error(cmd, "--baseline and --update are for ratchet");
    if (o.json && !plumb_check_write_target(o.json, &(plumb_diag){0})) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_check_write_target(o.json, &d);
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    if (o.html && !plumb_check_write_target(o.html, &(plumb_diag){0})) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_check_write_target(o.html, &d);
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    return run_check(cmd, &o, ratchet);
}
