/* plumb certify: run the conformance suites against a backend through the
 * plugin ABI and issue a verdict a CI gate can trust. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conformance/certify.h"
#include "../conformance/coverage.h"
#include "../conformance/html.h"
#include "cli.h"
#include "plumb/contract.h"

static const char certify_help[] =
    "usage: plumb certify [OPTIONS]\n"
    "       plumb certify merge [--out DIR] [--text F] [--json F] [--junit F]\n"
    "                           [--html F] [--baseline FILE] [-q] REPORT.json...\n"
    "\n"
    "Certifies a backend against the reference interpreter: for every op the\n"
    "backend claims (per element type), generated cases run in isolated worker\n"
    "processes and the results are checked against the numerics contract\n"
    "(docs/certify.md). Ops the backend does not claim are reported as\n"
    "unsupported. The report goes to standard output; its last line is\n"
    "  certify: N passed, N failed, N skipped\n"
    "\n"
    "options:\n"
    "      --backend B         ref, runtime (default), or a path to a backend\n"
    "                          shared library built against include/plumb/backend.h\n"
    "      --option NAME=VALUE backend option passed to its create (repeatable)\n"
    "      --suite S           quick (default) or full\n"
    "      --ops LIST          comma-separated ops to certify (e.g. add,stablehlo.exponential);\n"
    "                          default: every op with conformance cases\n"
    "      --shard I/N         run shard I (0-based) of N; default from\n"
    "                          TEST_SHARD_INDEX and TEST_TOTAL_SHARDS, else 0/1\n"
    "      --seed S            case generator seed (default 1)\n"
    "      --out DIR           write DIR/report.txt, report.json, report.xml,\n"
    "                          report.html and reproducers under DIR/repro\n"
    "      --text FILE         write the text report to FILE\n"
    "      --json FILE         write the JSON report to FILE\n"
    "      --junit FILE        write the JUnit XML report to FILE\n"
    "      --html FILE         write the HTML report to FILE: one self-contained\n"
    "                          page (certificate, per-op table with budget-used\n"
    "                          histograms, cache compile timelines, failures\n"
    "                          grouped by op and reason with replay commands)\n"
    "      --repro-dir DIR     where reproducers of failing cases go (default:\n"
    "                          DIR/repro with --out, else certify-repro)\n"
    "      --timeout SECONDS   per-case time limit (default 60)\n"
    "      --max-bytes N       largest output a backend may return, checked\n"
    "                          against the program's result type before\n"
    "                          anything is copied; N may end in K, M, G, Ki,\n"
    "                          Mi or Gi. Default: $PLUMB_MAX_BYTES, else 16Gi\n"
    "      --jobs N            worker processes at once (default: online CPUs)\n"
    "      --batch N           cases per worker process (default 64)\n"
    "      --limit N           run at most N cases per op (a quick look; the\n"
    "                          run then fails its manifest and is not a certificate)\n"
    "      --no-cache-suite    skip the cache-stability scenarios (not a certificate)\n"
    "      --contract FILE     gate the cache suite's compiles on a compile contract\n"
    "                          (docs/contracts.md; each scenario is one run of a\n"
    "                          model): a build it forbids fails its scenario with\n"
    "                          every broken rule and the backend's reason; the\n"
    "                          reports name the contract. Default: $PLUMB_CONTRACT\n"
    "      --scenarios-dir DIR where the cache suite reads the seed recompile\n"
    "                          scenarios (leak/ and fix/ programs, docs/scenarios.md).\n"
    "                          Default: $PLUMB_SCENARIOS_DIR, else ./scenarios; when\n"
    "                          not found they are listed as not run\n"
    "      --case ID           rerun only case ID (repeatable), saving its reproducer;\n"
    "                          an unknown id is a usage error naming the nearest ids\n"
    "      --rerun-failures R  rerun the failed cases of the JSON report R (its suite,\n"
    "                          seed and, without --backend, its backend)\n"
    "      --baseline FILE     known failures, one case id a line ('#' comments): they\n"
    "                          are reported but do not fail; an entry that passes is\n"
    "                          reported as fixed\n"
    "      --retry N           rerun a crashed or timed-out case up to N times; one\n"
    "                          that then passes is reported as flaky, not failing\n"
    "      --coverage          add the coverage matrix to the text and JSON reports:\n"
    "                          cases per op x element type x value class x shape\n"
    "                          class x attribute form, and the attribute forms the\n"
    "                          manifest promises that no case of the run exercised\n"
    "      --type-coverage     run nothing: list, for every op (or --ops) and every\n"
    "                          element type the verifier accepts for it, how many\n"
    "                          cases the quick and the full suite generate, each pair\n"
    "                          marked covered, full-only, hole or no-cases-of-own;\n"
    "                          with --json FILE also as JSON (docs/certify.md)\n"
    "      --new-types         with --type-coverage: only the types of issue 20\n"
    "                          (FP8/FP6/FP4/E8M0, i2/i4/ui2/ui4, complex)\n"
    "  -q, --quiet             no progress line and no table on standard output,\n"
    "                          only failures, the verdict and the last line; a\n"
    "                          run that fails also says why on standard error\n"
    "  -h, --help              show this help\n"
    "\n"
    "--ops, --limit, --shard, --case, --rerun-failures and --no-cache-suite runs\n"
    "are PARTIAL: never a certificate (\"certified\": false), whatever passed.\n"
    "'merge' combines the JSON reports of every shard of one run (same backend,\n"
    "capabilities, suite, seed and scope) into the report of the unsharded run,\n"
    "with the same digest.\n"
    "\n"
    "exit codes:\n"
    "  0  passed: every claimed case that ran passed (or is in the baseline) and\n"
    "     every op met its manifest; a certificate when the whole suite ran\n"
    "  1  not certified: a case failed, crashed or timed out, a manifest was\n"
    "     short, or the backend was rejected (wrong ABI, bad capabilities)\n"
    "  2  usage error, a backend that cannot be loaded, a report that\n"
    "     cannot be written, or a baseline or report (merge, --rerun-failures)\n"
    "     that is missing, truncated, inconsistent or from another run\n";

enum { OPT_HELP = 1, OPT_BACKEND, OPT_OPTION, OPT_SUITE, OPT_OPS, OPT_SHARD, OPT_SEED, OPT_OUT, OPT_TEXT,
       OPT_JSON, OPT_JUNIT, OPT_REPRO, OPT_TIMEOUT, OPT_JOBS, OPT_BATCH, OPT_LIMIT, OPT_NO_CACHE, OPT_QUIET,
       OPT_CASE, OPT_RERUN, OPT_BASELINE, OPT_RETRY, OPT_MAX_BYTES, OPT_COVERAGE, OPT_SCENARIOS_DIR,
       OPT_HTML, OPT_CONTRACT, OPT_TYPE_COVERAGE, OPT_NEW_TYPES };

static const cli_opt certify_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"backend", 0, true, OPT_BACKEND},
    {"option", 0, true, OPT_OPTION},
    {"suite", 0, true, OPT_SUITE},
    {"ops", 0, true, OPT_OPS},
    {"shard", 0, true, OPT_SHARD},
    {"seed", 0, true, OPT_SEED},
    {"out", 0, true, OPT_OUT},
    {"text", 0, true, OPT_TEXT},
    {"json", 0, true, OPT_JSON},
    {"junit", 0, true, OPT_JUNIT},
    {"html", 0, true, OPT_HTML},
    {"repro-dir", 0, true, OPT_REPRO},
    {"timeout", 0, true, OPT_TIMEOUT},
    {"jobs", 0, true, OPT_JOBS},
    {"batch", 0, true, OPT_BATCH},
    {"limit", 0, true, OPT_LIMIT},
    {"no-cache-suite", 0, false, OPT_NO_CACHE},
    {"scenarios-dir", 0, true, OPT_SCENARIOS_DIR},
    {"contract", 0, true, OPT_CONTRACT},
    {"quiet", 'q', false, OPT_QUIET},
    {"case", 0, true, OPT_CASE},
    {"rerun-failures", 0, true, OPT_RERUN},
    {"baseline", 0, true, OPT_BASELINE},
    {"retry", 0, true, OPT_RETRY},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {"coverage", 0, false, OPT_COVERAGE},
    {"type-coverage", 0, false, OPT_TYPE_COVERAGE},
    {"new-types", 0, false, OPT_NEW_TYPES},
    {NULL, 0, false, 0},
};

/* Marks --ops; returns false (after a usage message) on an unknown op or an
 * op without conformance cases. */
static bool parse_ops(const char *cmd, const char *list, conf_run_options *o, conf_suite suite)
{
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        plumb_opcode op;
        if (len == 0 || !cli_op_lookup(p, len, &op)) {
            cli_usage_error(cmd, "--ops: unknown op '%.*s' (see 'plumb ops')", (int)len, p);
            return false;
        }
        if (conf_manifest_count(op, suite) == 0) {
            cli_usage_error(cmd, "--ops: op '%s' has no conformance cases of its own (it is exercised by the ops that use it)",
                            plumb_op_name(op));
            return false;
        }
        o->ops_given[op] = true;
        o->ops_filter = true;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!o->ops_filter) {
        cli_usage_error(cmd, "--ops: empty list");
        return false;
    }
    return true;
}

static bool write_report(const char *cmd, const char *path, const plumb_buf *b)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!cli_write_atomic(path, b->data ? b->data : "", b->len, &d)) {
        cli_print_diag(cmd, &d);
        return false;
    }
    return true;
}

/* Where the reports go: --out DIR fills in what --text/--json/--junit/--html and
 * --repro-dir left unset. */
typedef struct report_paths {
    const char *text, *json, *junit, *html, *repro;
    bool coverage;             /* --coverage: the coverage section in the text and JSON reports */
    char text_b[1024], json_b[1024], junit_b[1024], html_b[1024], repro_b[1024];
} report_paths;

static bool resolve_out(const char *cmd, const char *out_dir, report_paths *p)
{
    if (!out_dir)
        return true;
    /* With its missing parents; the reports in it are written by
     * plumb_write_file_atomic, which never follows a link at their names. */
    plumb_diag md;
    plumb_diag_clear(&md);
    if (!plumb_mkdir_p(out_dir, 0777, &md)) {
        cli_print_diag(cmd, &md);
        return false;
    }
    snprintf(p->text_b, sizeof p->text_b, "%s/report.txt", out_dir);
    snprintf(p->json_b, sizeof p->json_b, "%s/report.json", out_dir);
    snprintf(p->junit_b, sizeof p->junit_b, "%s/report.xml", out_dir);
    snprintf(p->html_b, sizeof p->html_b, "%s/report.html", out_dir);
    snprintf(p->repro_b, sizeof p->repro_b, "%s/repro", out_dir);
    if (!p->text)
        p->text = p->text_b;
    if (!p->json)
        p->json = p->json_b;
    if (!p->junit)
        p->junit = p->junit_b;
    if (!p->html)
        p->html = p->html_b;
    if (!p->repro)
        p->repro = p->repro_b;
    return true;
}

/* -q prints no table: a run that is not certified still says why, in one
 * line on stderr (a short manifest or a failed cache scenario has no failing
 * case to list). */
static void quiet_why(const conf_run *run)
{
    uint32_t short_ops = 0, cache_failed = 0;
    const char *first_short = NULL, *first_cache = NULL;
    plumb_opcode short_op = 0;
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        if (run->op_in_run[i] && !run->ops[i].manifest_ok && short_ops++ == 0) {
            first_short = run->ops[i].note;
            short_op = (plumb_opcode)i;
        }
    for (uint32_t i = 0; i < run->n_cache; i++)
        if (!run->cache[i].pass && cache_failed++ == 0)
            first_cache = run->cache[i].name;
    fprintf(stderr, "plumb certify: not certified: %llu case%s failed", (unsigned long long)run->failed,
            run->failed == 1 ? "" : "s");
    if (short_ops)
        fprintf(stderr, "; %u op%s short of the manifest (%s: %s)", short_ops, short_ops == 1 ? "" : "s",
                plumb_op_name(short_op), first_short);
    if (cache_failed)
        fprintf(stderr, "; %u cache scenario%s failed (%s)", cache_failed, cache_failed == 1 ? "" : "s",
                first_cache);
    fputc('\n', stderr);
}

/* Writes the reports and standard output; returns the exit code. */
static int emit_reports(const char *cmd, const conf_run *run, const report_paths *p, bool quiet)
{
    int rc = run->ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
    plumb_buf tb, jb, xb;
    plumb_buf_init(&tb);
    plumb_buf_init(&jb);
    plumb_buf_init(&xb);
    conf_report_text(&tb, run);
    if (p->coverage) conf_report_coverage_text(&tb, run);
    if (tb.failed) {
        fprintf(stderr, "plumb %s: error: out of memory writing the report\n", cmd);
        rc = CLI_EXIT_USAGE;
    }
    if (p->text && !write_report(cmd, p->text, &tb))
        rc = CLI_EXIT_USAGE;
    if (p->json) {
        conf_report_json_coverage(&jb, run, p->coverage);
        if (!write_report(cmd, p->json, &jb))
            rc = CLI_EXIT_USAGE;
    }
    if (p->junit) {
        conf_report_junit(&xb, run);
        if (!write_report(cmd, p->junit, &xb))
            rc = CLI_EXIT_USAGE;
    }
    if (p->html) {
        plumb_buf hb;
        plumb_buf_init(&hb);
        conf_report_html(&hb, run);
        if (hb.failed) {
            fprintf(stderr, "plumb %s: error: out of memory writing the HTML report\n", cmd);
            rc = CLI_EXIT_USAGE;
        } else if (!write_report(cmd, p->html, &hb)) {
            rc = CLI_EXIT_USAGE;
        }
        plumb_buf_free(&hb);
    }
    if (!quiet) {
        fputs(tb.data ? tb.data : "", stdout);
    } else {
        for (uint32_t i = 0; i < run->n_cases; i++)
            if (run->cases[i].status != CONF_ST_PASS)
                printf("%s [%s]%s %s\n", run->cases[i].id, conf_status_name(run->cases[i].status),
                       run->cases[i].excused ? " (baseline)" : "", run->cases[i].reason);
        for (uint32_t i = 0; i < run->n_fixed; i++)
            printf("%s fixed — remove it from the baseline\n", run->fixed[i]);
        if (rc == CLI_EXIT_INVALID)
            quiet_why(run);
        plumb_buf last;
        plumb_buf_init(&last);
        plumb_buf_puts(&last, "verdict: ");
        conf_report_verdict(&last, run);
        plumb_buf_puts(&last, "\n");
        conf_report_last_line(&last, run);
        printf("%s\n", last.data ? last.data : "");
        plumb_buf_free(&last);
    }
    plumb_buf_free(&tb);
    plumb_buf_free(&jb);
    plumb_buf_free(&xb);
    return rc;
}

static const cli_opt merge_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"out", 0, true, OPT_OUT},
    {"text", 0, true, OPT_TEXT},
    {"json", 0, true, OPT_JSON},
    {"junit", 0, true, OPT_JUNIT},
    {"html", 0, true, OPT_HTML},
    {"baseline", 0, true, OPT_BASELINE},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

/* plumb certify merge REPORT.json...: the shards of one run, one certificate. */
static int cmd_merge(int argc, char **argv)
{
    const char *cmd = "certify merge";
    report_paths p;
    memset(&p, 0, sizeof p);
    const char *out_dir = NULL, *baseline = NULL;
    bool quiet = false;
    const char **paths = plumb_calloc((size_t)argc, sizeof *paths);
    uint32_t n = 0;
    if (!paths) {
        fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_USAGE;
    cli_args a;
    cli_args_init(&a, argc, argv);
    a.cmd = cmd;
    const char *v;
    int id;
    while ((id = cli_next(&a, merge_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            goto out;
        case CLI_OPERAND:
            paths[n++] = v;
            break;
        case OPT_HELP:
            fputs(certify_help, stdout);
            rc = cli_finish(cmd, CLI_EXIT_OK);
            goto out;
        case OPT_OUT: out_dir = v; break;
        case OPT_TEXT: p.text = v; break;
        case OPT_JSON: p.json = v; break;
        case OPT_JUNIT: p.junit = v; break;
        case OPT_HTML: p.html = v; break;
        case OPT_BASELINE: baseline = v; break;
        case OPT_QUIET: quiet = true; break;
        default:
            cli_usage_error(cmd, "unhandled option");
            goto out;
        }
    }
    if (n == 0) {
        cli_usage_error(cmd, "no report given: plumb certify merge REPORT.json...");
        goto out;
    }
    if (!resolve_out(cmd, out_dir, &p))
        goto out;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_report_merge(paths, n, &run, &d)) {
        cli_print_diag(cmd, &d);
        goto out;
    }
    conf_baseline bl;
    memset(&bl, 0, sizeof bl);
    if (baseline) {
        if (!conf_baseline_load(baseline, run.opts.suite, run.opts.seed, &bl, &d) || !conf_baseline_apply(&run, &bl)) {
            cli_print_diag(cmd, &d);
            conf_run_free(&run);
            conf_baseline_free(&bl);
            goto out;
        }
    }
    rc = cli_finish(cmd, emit_reports(cmd, &run, &p, quiet));
    conf_run_free(&run);
    conf_baseline_free(&bl);
out:
    plumb_free(paths, (size_t)argc * sizeof *paths);
    return rc;
}

/* Adds id to the case list unless it is there already. */
static bool add_case(const char ***ids, uint32_t *n, uint32_t *cap, const char *id)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp((*ids)[i], id) == 0)
            return true;
    if (*n == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 16;
        const char **nv = plumb_realloc(*ids, (size_t)*cap * sizeof *nv, (size_t)nc * sizeof *nv);
        if (!nv)
            return false;
        *ids = nv;
        *cap = nc;
    }
    (*ids)[(*n)++] = id;
    return true;
}

/* --type-coverage: generates every selected op's cases in both suites and
 * lists the count per accepted op x element type; runs no backend. */
static int type_coverage_main(const char *cmd, const char *ops_list, uint64_t seed, const char *json, bool new_only)
{
    static bool ops[PLUMB_OP_COUNT];
    memset(ops, 0, sizeof ops);
    for (const char *q = ops_list; q && *q;) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        plumb_opcode op;
        if (len == 0 || !cli_op_lookup(q, len, &op))
            return cli_usage_error(cmd, "--ops: unknown op '%.*s' (see 'plumb ops')", (int)len, q);
        ops[op] = true;
        q += len + (e ? 1 : 0);
    }
    conf_typecov *c = plumb_calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_USAGE;
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_buf b;
    plumb_buf_init(&b);
    if (!conf_typecov_build(ops_list ? ops : NULL, seed, c, &d)) {
        cli_print_diag(cmd, &d);
        goto out;
    }
    conf_typecov_text(&b, c, new_only);
    fwrite(b.data, 1, b.len, stdout);
    if (json) {
        plumb_buf_free(&b);
        plumb_buf_init(&b);
        conf_typecov_json(&b, c, new_only);
        if (!write_report(cmd, json, &b))
            goto out;
    }
    rc = cli_finish(cmd, CLI_EXIT_OK);
out:
    plumb_buf_free(&b);
    plumb_free(c, sizeof *c);
    return rc;
}

int cmd_certify(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    const char *cmd = "certify";
    conf_run_options o;
    conf_run_options_init(&o);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 && cpus < 64 ? (uint32_t)cpus : 1;
    const char *ops_list = NULL, *out_dir = NULL, *rerun = NULL, *baseline = NULL;
    report_paths p;
    memset(&p, 0, sizeof p);
    bool shard_given = false, quiet = false, suite_given = false, seed_given = false, backend_given = false;
    bool type_coverage = false, new_types = false;
    plumb_backend_option bopts[32];
    size_t n_bopts = 0;
    const char **case_ids = NULL;
    uint32_t n_case = 0, cap_case = 0;
    conf_run prev;             /* the --rerun-failures report */
    bool have_prev = false;
    conf_baseline bl;
    memset(&bl, 0, sizeof bl);
    conf_suite_ids known;
    conf_suite_ids_init(&known, o.suite, o.seed);
    int rc = CLI_EXIT_USAGE;
    cli_args a;
    cli_args_init(&a, argc, argv);
    a.cmd = cmd;
    const char *v;
    int id;
    while ((id = cli_next(&a, certify_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            goto out;
        case CLI_OPERAND:
            cli_usage_error(cmd, "unexpected argument '%s'", v);
            goto out;
        case OPT_HELP:
            fputs(certify_help, stdout);
            rc = cli_finish(cmd, CLI_EXIT_OK);
            goto out;
        case OPT_BACKEND:
            o.backend = v;
            backend_given = true;
            break;
        case OPT_OPTION: {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                cli_usage_error(cmd, "--option: expected NAME=VALUE, got '%s'", v);
                goto out;
            }
            if (n_bopts == sizeof bopts / sizeof bopts[0]) {
                cli_usage_error(cmd, "--option: at most %zu options", sizeof bopts / sizeof bopts[0]);
                goto out;
            }
            /* argv is ours to cut: the name ends at the '='. */
            *(char *)eq = 0;
            bopts[n_bopts++] = (plumb_backend_option){sizeof(plumb_backend_option), v, eq + 1};
            break;
        }
        case OPT_SUITE:
            if (strcmp(v, "quick") == 0)
                o.suite = CONF_SUITE_QUICK;
            else if (strcmp(v, "full") == 0)
                o.suite = CONF_SUITE_FULL;
            else {
                cli_usage_error(cmd, "--suite: '%s' is not quick or full", v);
                goto out;
            }
            suite_given = true;
            break;
        case OPT_OPS:
            ops_list = v;
            break;
        case OPT_SHARD:
            if (!cli_parse_shard(v, &o.shard_index, &o.shard_count)) {
                cli_usage_error(cmd, "--shard: expected I/N with 0 <= I < N, got '%s'", v);
                goto out;
            }
            shard_given = true;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(v, &o.seed)) {
                cli_usage_error(cmd, "--seed: '%s' is not a non-negative integer", v);
                goto out;
            }
            seed_given = true;
            break;
        case OPT_OUT: out_dir = v; break;
        case OPT_TEXT: p.text = v; break;
        case OPT_JSON: p.json = v; break;
        case OPT_JUNIT: p.junit = v; break;
        case OPT_HTML: p.html = v; break;
        case OPT_REPRO: p.repro = v; break;
        case OPT_SCENARIOS_DIR: o.scenarios_dir = v; break;
        case OPT_CONTRACT: o.contract_file = v; break;
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &o.max_bytes)) {
                cli_usage_error(cmd, "--max-bytes: '%s' is not a positive byte count "
                                "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
                goto out;
            }
            break;
        case OPT_TIMEOUT: {
            char *end;
            double t = strtod(v, &end);
            if (*end || !(t > 0) || t > 86400) {
                cli_usage_error(cmd, "--timeout: '%s' is not a number of seconds in (0, 86400]", v);
                goto out;
            }
            o.timeout_s = t;
            break;
        }
        case OPT_JOBS:
            if (!cli_parse_u32(v, &o.jobs) || o.jobs == 0 || o.jobs > 64) {
                cli_usage_error(cmd, "--jobs: '%s' is not a number from 1 to 64", v);
                goto out;
            }
            break;
        case OPT_BATCH:
            if (!cli_parse_u32(v, &o.batch) || o.batch == 0) {
                cli_usage_error(cmd, "--batch: '%s' is not a positive number", v);
                goto out;
            }
            break;
        case OPT_LIMIT:
            if (!cli_parse_u32(v, &o.limit) || o.limit == 0) {
                cli_usage_error(cmd, "--limit: '%s' is not a positive number", v);
                goto out;
            }
            break;
        case OPT_COVERAGE:
            p.coverage = true;
            break;
        case OPT_TYPE_COVERAGE:
            type_coverage = true;
            break;
        case OPT_NEW_TYPES:
            new_types = true;
            break;
        case OPT_NO_CACHE:
            o.cache_suite = false;
            break;
        case OPT_QUIET:
            quiet = true;
            break;
        case OPT_CASE:
            if (!add_case(&case_ids, &n_case, &cap_case, v)) {
                fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
                goto out;
            }
            break;
        case OPT_RERUN:
            rerun = v;
            break;
        case OPT_BASELINE:
            baseline = v;
            break;
        case OPT_RETRY:
            if (!cli_parse_u32(v, &o.retry) || o.retry > 100) {
                cli_usage_error(cmd, "--retry: '%s' is not a number from 0 to 100", v);
                goto out;
            }
            break;
        default:
            cli_usage_error(cmd, "unhandled option");
            goto out;
        }
    }
    plumb_diag d;
    plumb_diag_clear(&d);
    if (new_types && !type_coverage) {
        cli_usage_error(cmd, "--new-types is an option of --type-coverage");
        goto out;
    }
    if (type_coverage) {
        rc = type_coverage_main(cmd, ops_list, o.seed, p.json, new_types);
        goto out;
    }
    if (!o.contract_file) {
        const char *env = getenv("PLUMB_CONTRACT");
        o.contract_file = env && *env ? env : NULL;
    }
    if (o.contract_file) {
        /* a contract that does not parse is a usage error before anything runs */
        plumb_contract *ct = plumb_contract_load(o.contract_file, &d);
        if (!ct) {
            cli_print_diag(cmd, &d);
            goto out;
        }
        plumb_contract_free(ct);
    }
    uint32_t n_given = n_case;
    if (rerun) {
        /* The earlier run's terms, unless given again (and then they must agree). */
        if (!conf_report_load(rerun, &prev, &d)) {
            cli_print_diag(cmd, &d);
            goto out;
        }
        have_prev = true;
        if (suite_given && o.suite != prev.opts.suite) {
            cli_usage_error(cmd, "--suite disagrees with %s (a %s suite report)", rerun,
                            prev.opts.suite == CONF_SUITE_FULL ? "full" : "quick");
            goto out;
        }
        if (seed_given && o.seed != prev.opts.seed) {
            cli_usage_error(cmd, "--seed disagrees with %s (seed %llu)", rerun, (unsigned long long)prev.opts.seed);
            goto out;
        }
        o.suite = prev.opts.suite;
        o.seed = prev.opts.seed;
        if (!backend_given)
            o.backend = prev.backend.where;
        for (uint32_t i = 0; i < prev.n_cases; i++) {
            if (prev.cases[i].status == CONF_ST_PASS)
                continue;
            if (!add_case(&case_ids, &n_case, &cap_case, prev.cases[i].id)) {
                fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
                goto out;
            }
        }
        if (n_case == 0) {
            printf("certify: %s has no failed case to rerun\ncertify: 0 passed, 0 failed, 0 skipped\n", rerun);
            rc = cli_finish(cmd, CLI_EXIT_OK);
            goto out;
        }
    }
    if (n_case) {
        if (ops_list || o.limit || shard_given) {
            cli_usage_error(cmd, "--case and --rerun-failures run the cases named; they take no --ops, --limit or --shard");
            goto out;
        }
        /* Every id must name a case of this suite and seed. */
        known.suite = o.suite;
        known.seed = o.seed;
        for (uint32_t i = 0; i < n_case; i++) {
            char suggest[512];
            int k = conf_suite_ids_known(&known, case_ids[i], suggest, sizeof suggest, &d);
            if (k < 0) {
                cli_print_diag(cmd, &d);
                goto out;
            }
            if (k == 0) {
                cli_usage_error(cmd, "%s%s: '%s' is no case of the %s suite (seed %llu)%s%s",
                                i < n_given ? "--case" : rerun, i < n_given ? "" : " (a report of another plumb?)",
                                case_ids[i],
                                o.suite == CONF_SUITE_FULL ? "full" : "quick", (unsigned long long)o.seed,
                                suggest[0] ? "; nearest: " : "", suggest);
                goto out;
            }
        }
        o.case_ids = case_ids;
        o.n_case_ids = n_case;
        /* A case runs alone, with its reproducer saved. */
        o.cache_suite = false;
    }
    if (ops_list && !parse_ops(cmd, ops_list, &o, o.suite))
        goto out;
    if (!shard_given && !n_case) {
        int src = cli_shard_from_env(cmd, &o.shard_index, &o.shard_count);
        if (src != CLI_EXIT_OK) {
            rc = src;
            goto out;
        }
    }
    if (baseline && !conf_baseline_load(baseline, o.suite, o.seed, &bl, &d)) {
        cli_print_diag(cmd, &d);
        goto out;
    }
    if (!resolve_out(cmd, out_dir, &p))
        goto out;
    o.repro_dir = p.repro ? p.repro : "certify-repro";
    o.options = bopts;
    o.n_options = n_bopts;
    o.progress = !quiet && isatty(2);

    conf_run run;
    if (!conf_run_certify(&o, &run, &d)) {
        cli_print_diag(cmd, &d);
        conf_run_free(&run);
        bool usage = d.code == PLUMB_ERR_USAGE || d.code == PLUMB_ERR_IO;
        fprintf(stdout, "certify: 0 passed, 1 failed, 0 skipped\n");
        rc = cli_finish(cmd, usage ? CLI_EXIT_USAGE : CLI_EXIT_INVALID);
        goto out;
    }
    if (baseline && !conf_baseline_apply(&run, &bl)) {
        fprintf(stderr, "plumb %s: error: out of memory applying the baseline\n", cmd);
        conf_run_free(&run);
        goto out;
    }
    rc = cli_finish(cmd, emit_reports(cmd, &run, &p, quiet));
    conf_run_free(&run);
out:
    if (have_prev)
        conf_run_free(&prev);
    conf_baseline_free(&bl);
    conf_suite_ids_free(&known);
    plumb_free(case_ids, (size_t)cap_case * sizeof *case_ids);
    return rc;
}
