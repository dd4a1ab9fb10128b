/* plumb certify: run the conformance suites against a backend through the
 * plugin ABI and issue a verdict a CI gate can trust. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conformance/certify.h"
#include "cli.h"

static const char certify_help[] =
    "usage: plumb certify [OPTIONS]\n"
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
    "      --out DIR           write DIR/report.txt, report.json, report.xml and\n"
    "                          reproducers under DIR/repro\n"
    "      --text FILE         write the text report to FILE\n"
    "      --json FILE         write the JSON report to FILE\n"
    "      --junit FILE        write the JUnit XML report to FILE\n"
    "      --repro-dir DIR     where reproducers of failing cases go (default:\n"
    "                          DIR/repro with --out, else certify-repro)\n"
    "      --timeout SECONDS   per-case time limit (default 60)\n"
    "      --jobs N            worker processes at once (default: online CPUs)\n"
    "      --batch N           cases per worker process (default 64)\n"
    "      --limit N           run at most N cases per op (a quick look; the\n"
    "                          run then fails its manifest and is not a certificate)\n"
    "      --no-cache-suite    skip the cache-stability scenarios\n"
    "  -q, --quiet             no progress line and no table on standard output,\n"
    "                          only failures and the last line\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit codes:\n"
    "  0  certified: every claimed op passed every case and met its manifest\n"
    "  1  not certified: a case failed, crashed or timed out, a manifest was\n"
    "     short, or the backend was rejected (wrong ABI, bad capabilities)\n"
    "  2  usage error, a backend that cannot be loaded, or a report that\n"
    "     cannot be written\n";

enum { OPT_HELP = 1, OPT_BACKEND, OPT_OPTION, OPT_SUITE, OPT_OPS, OPT_SHARD, OPT_SEED, OPT_OUT, OPT_TEXT,
       OPT_JSON, OPT_JUNIT, OPT_REPRO, OPT_TIMEOUT, OPT_JOBS, OPT_BATCH, OPT_LIMIT, OPT_NO_CACHE, OPT_QUIET };

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
    {"repro-dir", 0, true, OPT_REPRO},
    {"timeout", 0, true, OPT_TIMEOUT},
    {"jobs", 0, true, OPT_JOBS},
    {"batch", 0, true, OPT_BATCH},
    {"limit", 0, true, OPT_LIMIT},
    {"no-cache-suite", 0, false, OPT_NO_CACHE},
    {"quiet", 'q', false, OPT_QUIET},
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
        if (len == 0 || !plumb_op_lookup(p, len, &op)) {
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

int cmd_certify(int argc, char **argv)
{
    const char *cmd = "certify";
    conf_run_options o;
    conf_run_options_init(&o);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 && cpus < 64 ? (uint32_t)cpus : 1;
    const char *ops_list = NULL, *out_dir = NULL, *text = NULL, *json = NULL, *junit = NULL, *repro = NULL;
    bool shard_given = false, quiet = false;
    plumb_backend_option bopts[32];
    size_t n_bopts = 0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    a.cmd = cmd;
    const char *v;
    int id;
    while ((id = cli_next(&a, certify_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case CLI_OPERAND:
            return cli_usage_error(cmd, "unexpected argument '%s'", v);
        case OPT_HELP:
            fputs(certify_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_BACKEND:
            o.backend = v;
            break;
        case OPT_OPTION: {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return cli_usage_error(cmd, "--option: expected NAME=VALUE, got '%s'", v);
            if (n_bopts == sizeof bopts / sizeof bopts[0])
                return cli_usage_error(cmd, "--option: at most %zu options", sizeof bopts / sizeof bopts[0]);
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
            else
                return cli_usage_error(cmd, "--suite: '%s' is not quick or full", v);
            break;
        case OPT_OPS:
            ops_list = v;
            break;
        case OPT_SHARD:
            if (!cli_parse_shard(v, &o.shard_index, &o.shard_count))
                return cli_usage_error(cmd, "--shard: expected I/N with 0 <= I < N, got '%s'", v);
            shard_given = true;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(v, &o.seed))
                return cli_usage_error(cmd, "--seed: '%s' is not a non-negative integer", v);
            break;
        case OPT_OUT: out_dir = v; break;
        case OPT_TEXT: text = v; break;
        case OPT_JSON: json = v; break;
        case OPT_JUNIT: junit = v; break;
        case OPT_REPRO: repro = v; break;
        case OPT_TIMEOUT: {
            char *end;
            double t = strtod(v, &end);
            if (*end || !(t > 0) || t > 86400)
                return cli_usage_error(cmd, "--timeout: '%s' is not a number of seconds in (0, 86400]", v);
            o.timeout_s = t;
            break;
        }
        case OPT_JOBS:
            if (!cli_parse_u32(v, &o.jobs) || o.jobs == 0 || o.jobs > 64)
                return cli_usage_error(cmd, "--jobs: '%s' is not a number from 1 to 64", v);
            break;
        case OPT_BATCH:
            if (!cli_parse_u32(v, &o.batch) || o.batch == 0)
                return cli_usage_error(cmd, "--batch: '%s' is not a positive number", v);
            break;
        case OPT_LIMIT:
            if (!cli_parse_u32(v, &o.limit) || o.limit == 0)
                return cli_usage_error(cmd, "--limit: '%s' is not a positive number", v);
            break;
        case OPT_NO_CACHE:
            o.cache_suite = false;
            break;
        case OPT_QUIET:
            quiet = true;
            break;
        default:
            return cli_usage_error(cmd, "unhandled option");
        }
    }
    if (ops_list && !parse_ops(cmd, ops_list, &o, o.suite))
        return CLI_EXIT_USAGE;
    if (!shard_given) {
        int rc = cli_shard_from_env(cmd, &o.shard_index, &o.shard_count);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    char text_path[1024], json_path[1024], junit_path[1024], repro_path[1024];
    if (out_dir) {
        if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "plumb certify: error: cannot create %s: %s\n", out_dir, strerror(errno));
            return CLI_EXIT_USAGE;
        }
        snprintf(text_path, sizeof text_path, "%s/report.txt", out_dir);
        snprintf(json_path, sizeof json_path, "%s/report.json", out_dir);
        snprintf(junit_path, sizeof junit_path, "%s/report.xml", out_dir);
        snprintf(repro_path, sizeof repro_path, "%s/repro", out_dir);
        if (!text)
            text = text_path;
        if (!json)
            json = json_path;
        if (!junit)
            junit = junit_path;
        if (!repro)
            repro = repro_path;
    }
    o.repro_dir = repro ? repro : "certify-repro";
    o.options = bopts;
    o.n_options = n_bopts;
    o.progress = !quiet && isatty(2);

    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_run_certify(&o, &run, &d)) {
        cli_print_diag(cmd, &d);
        conf_run_free(&run);
        bool usage = d.code == PLUMB_ERR_USAGE || d.code == PLUMB_ERR_IO;
        fprintf(stdout, "certify: 0 passed, 1 failed, 0 skipped\n");
        return cli_finish(cmd, usage ? CLI_EXIT_USAGE : CLI_EXIT_INVALID);
    }
    int rc = run.ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
    plumb_buf tb, jb, xb;
    plumb_buf_init(&tb);
    plumb_buf_init(&jb);
    plumb_buf_init(&xb);
    conf_report_text(&tb, &run);
    if (tb.failed) {
        fprintf(stderr, "plumb certify: error: out of memory writing the report\n");
        rc = CLI_EXIT_USAGE;
    }
    if (text && !write_report(cmd, text, &tb))
        rc = CLI_EXIT_USAGE;
    if (json) {
        conf_report_json(&jb, &run);
        if (!write_report(cmd, json, &jb))
            rc = CLI_EXIT_USAGE;
    }
    if (junit) {
        conf_report_junit(&xb, &run);
        if (!write_report(cmd, junit, &xb))
            rc = CLI_EXIT_USAGE;
    }
    if (!quiet) {
        fputs(tb.data ? tb.data : "", stdout);
    } else {
        for (uint32_t i = 0; i < run.n_cases; i++)
            if (run.cases[i].status != CONF_ST_PASS)
                printf("%s [%s] %s\n", run.cases[i].id, conf_status_name(run.cases[i].status), run.cases[i].reason);
        plumb_buf last;
        plumb_buf_init(&last);
        conf_report_last_line(&last, &run);
        printf("%s\n", last.data ? last.data : "");
        plumb_buf_free(&last);
    }
    plumb_buf_free(&tb);
    plumb_buf_free(&jb);
    plumb_buf_free(&xb);
    conf_run_free(&run);
    return cli_finish(cmd, rc);
}
