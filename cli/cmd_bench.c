/* plumb bench: how fast the compiled runtime runs one user program, next to
 * the reference, and whether the two agree (docs/bench.md, "plumb bench
 * FILE"). Every figure comes from one process: compile on a fresh runtime
 * without the disk cache, a first run (fresh result pages, first touch of
 * the planned buffers), steady-state runs into kept results, the reference
 * on the whole program once, and the agreement check of plumb run
 * --compare (cli/compare.h) on the first run's results. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "run_session.h"

static const char bench_help[] =
    "usage: plumb bench [OPTIONS] FILE\n"
    "\n"
    "Measures the compiled runtime on FILE's entry function (StableHLO text;\n"
    "'-' reads standard input) and prints, from one process:\n"
    "  compile       plumb_runtime_compile on a fresh runtime, without the\n"
    "                disk cache (a cold compile)\n"
    "  first run     the first run, into freshly allocated results\n"
    "  steady state  runs into results kept between runs: median, min, max,\n"
    "                the 10th-90th percentile spread as a share of the\n"
    "                median; as many runs as fill about 1 second (at least 5)\n"
    "                unless --runs says\n"
    "  bytes moved   the inputs' and results' bytes once (intermediates the\n"
    "                plan writes and reads are not counted), and that over\n"
    "                the median time in GB/s (10^9 bytes/s)\n"
    "  reference     the reference interpreter on the WHOLE program, one run\n"
    "                (an arbitrary program has no sound part to run: rows\n"
    "                dropped change reductions and transposes), and the\n"
    "                runtime's speedup over it (reference / median)\n"
    "  agreement     each result against the reference as plumb run\n"
    "                --compare holds it: bit-exact for exact ops, the op\n"
    "                table's bound for one elementwise op, the data bound for\n"
    "                sums and dots, 'composite' (reported, not bounded) else\n"
    "Timings are wall clock on a possibly shared machine: compare figures of\n"
    "one run with each other, not with another run's.\n"
    "\n"
    "options:\n"
    "      --entry NAME        function to run (default: main)\n"
    "      --input NAME=FILE   tensor file for the parameter NAME (its SSA name\n"
    "                          without '%' or its index); repeat per parameter\n"
    "      --random-inputs [SEED]\n"
    "                          parameters without --input get generated values\n"
    "                          (as plumb run --random-inputs; default seed 0)\n"
    "      --threads N         runtime worker threads (default: online cores)\n"
    "      --runs N            steady-state runs (default: fill about 1 s)\n"
    "      --ref-timeout S     give the reference at most S seconds (default 60;\n"
    "                          0 = no limit); past it, no speedup and no\n"
    "                          agreement are reported and the exit status is 1\n"
    "      --no-reference      skip the reference: no speedup, no agreement\n"
    "      --json F            also write the figures as JSON to F ('-' = stdout,\n"
    "                          instead of the text)\n"
    "      --max-bytes N       largest byte size allowed for one tensor (K, M, G,\n"
    "                          Ki, Mi, Gi suffixes; default $PLUMB_MAX_BYTES, else 16Gi)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit codes:\n"
    "  0  measured, and every result agrees with the reference (or\n"
    "     --no-reference)\n"
    "  1  the program is invalid, a run failed, a result is outside its bound,\n"
    "     a check op failed, or the reference passed --ref-timeout\n"
    "  2  usage error, an unreadable program or input, inputs that do not\n"
    "     match the entry's parameters, or an output that cannot be written\n";

enum { OPT_HELP = 1, OPT_ENTRY, OPT_INPUT, OPT_RANDOM_INPUTS, OPT_THREADS, OPT_RUNS, OPT_REF_TIMEOUT,
       OPT_NO_REFERENCE, OPT_JSON, OPT_MAX_BYTES };

static const cli_opt bench_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"entry", 0, true, OPT_ENTRY},
    {"input", 0, true, OPT_INPUT},
    {"random-inputs", 0, false, OPT_RANDOM_INPUTS},
    {"threads", 0, true, OPT_THREADS},
    {"runs", 0, true, OPT_RUNS},
    {"ref-timeout", 0, true, OPT_REF_TIMEOUT},
    {"no-reference", 0, false, OPT_NO_REFERENCE},
    {"json", 0, true, OPT_JSON},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {NULL, 0, false, 0},
};

/* The longest steady-state sample kept: a program of a microsecond would
 * otherwise ask for a million runs to fill a second. */
#define BENCH_MAX_RUNS 100000u
#define BENCH_MIN_RUNS 5u
#define BENCH_FILL_SECONDS 1.0

typedef struct bench_opts_s {
    const char *file;
    const char *entry;
    const char **inputs;
    int n_inputs;
    cli_gen_opts gen;
    uint32_t threads;
    uint32_t runs;            /* 0 = fill about a second */
    double ref_timeout_s;
    bool no_reference;
    const char *json;
    uint64_t max_bytes;
} bench_opts_s;

/* What one bench measured; negative seconds = not measured. */
typedef struct bench_figures {
    double compile_s, first_s;
    uint32_t runs;
    double median_s, min_s, max_s, p10_s, p90_s, total_s;
    double bytes;
    bool ref_ran, ref_timed_out, ref_failed;
    double ref_s;
    int outside;              /* results outside their bound; -1 = not compared */
    double worst;             /* largest bounded fraction of the bound */
    uint32_t n_results;
    uint32_t rt_checks_failed, ref_checks_failed;
} bench_figures;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted t[0..n) by nearest rank. */
static double quantile(const double *t, uint32_t n, double q)
{
    uint32_t i = (uint32_t)ceil(q * n);
    return t[i ? i - 1 : 0];
}

/* Loads --input files and generates the rest (as plumb run does); returns
 * an exit code. */
static int bench_inputs(const bench_opts_s *o, const char *name, const ir_func *f, plumb_tensor **ins)
{
    for (int k = 0; k < o->n_inputs; k++) {
        const char *arg = o->inputs[k];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return cli_usage_error("bench", "--input '%s' is not NAME=FILE", arg);
        int p = cli_find_param(f, arg, (size_t)(eq - arg));
        if (p < 0)
            return cli_no_such_param("bench", "--input", arg, f, (size_t)(eq - arg));
        if (ins[p]) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, (uint32_t)p);
            return cli_usage_error("bench", "--input '%s': parameter %s was already given", arg, pn);
        }
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[p] = plumb_tensor_load(eq + 1, o->max_bytes, &d))) {
            cli_print_diag("bench", &d);
            return CLI_EXIT_USAGE;
        }
    }
    if (o->gen.random) {
        int rc = cli_gen_inputs("bench", &o->gen, f, 0, o->max_bytes, ins);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        if (!ins[i]) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, i);
            return cli_usage_error("bench", "no --input for parameter %s of @%s (or use --random-inputs)", pn,
                                   f->name);
        }
    }
    return cli_check_inputs("bench", name, f, ins, f->body.n_args);
}

static void fmt_time(char *buf, size_t n, double s)
{
    if (s < 1e-3)
        snprintf(buf, n, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else
        snprintf(buf, n, "%.3f s", s);
}

/* A JSON number, or null for a figure not measured. */
static void json_num(plumb_buf *b, const char *key, double v, bool have, bool last)
{
    plumb_buf_printf(b, "\"%s\": ", key);
    if (have && isfinite(v))
        plumb_buf_printf(b, "%.9g", v);
    else
        plumb_buf_puts(b, "null");
    plumb_buf_puts(b, last ? "" : ", ");
}

static int write_json(const bench_opts_s *o, const char *name, const char *entry, const bench_figures *g)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "{\"file\": ");
    plumb_json_str_append(&b, name);
    plumb_buf_puts(&b, ", \"entry\": ");
    plumb_json_str_append(&b, entry);
    plumb_buf_printf(&b, ", \"threads\": %u, ", o->threads);
    json_num(&b, "compile_seconds", g->compile_s, true, false);
    json_num(&b, "first_run_seconds", g->first_s, true, false);
    plumb_buf_printf(&b, "\"steady\": {\"runs\": %u, ", g->runs);
    json_num(&b, "median_seconds", g->median_s, true, false);
    json_num(&b, "min_seconds", g->min_s, true, false);
    json_num(&b, "max_seconds", g->max_s, true, false);
    json_num(&b, "p10_seconds", g->p10_s, true, false);
    json_num(&b, "p90_seconds", g->p90_s, true, false);
    json_num(&b, "spread", g->median_s > 0 ? (g->p90_s - g->p10_s) / g->median_s : 0, true, false);
    json_num(&b, "total_seconds", g->total_s, true, true);
    plumb_buf_puts(&b, "}, ");
    json_num(&b, "bytes_moved", g->bytes, true, false);
    plumb_buf_puts(&b, "\"bytes_counted\": \"inputs+outputs\", ");
    json_num(&b, "gb_per_second", g->median_s > 0 ? g->bytes / g->median_s / 1e9 : 0, g->median_s > 0, false);
    plumb_buf_printf(&b, "\"reference\": {\"ran\": %s, \"timed_out\": %s, \"fraction\": 1, "
                         "\"how\": \"the whole program, one run\", ",
                     g->ref_ran ? "true" : "false", g->ref_timed_out ? "true" : "false");
    json_num(&b, "seconds", g->ref_s, g->ref_ran, true);
    plumb_buf_puts(&b, "}, ");
    json_num(&b, "speedup", g->median_s > 0 ? g->ref_s / g->median_s : 0, g->ref_ran && g->median_s > 0, false);
    plumb_buf_printf(&b, "\"results\": %u, ", g->n_results);
    if (g->outside >= 0) {
        bool match = g->outside == 0 && g->rt_checks_failed == 0 && g->ref_checks_failed == 0;
        plumb_buf_printf(&b, "\"match\": %s, \"outside_bound\": %d, ", match ? "true" : "false", g->outside);
        json_num(&b, "worst_fraction_of_bound", g->worst, true, false);
    } else {
        plumb_buf_puts(&b, "\"match\": null, \"outside_bound\": null, \"worst_fraction_of_bound\": null, ");
    }
    plumb_buf_printf(&b, "\"checks_failed\": {\"runtime\": %u, \"reference\": %u}}\n", g->rt_checks_failed,
                     g->ref_checks_failed);
    int rc = CLI_EXIT_OK;
    plumb_diag d = {.code = PLUMB_OK};
    if (b.failed || !b.data) {
        fprintf(stderr, "plumb bench: error: out of memory writing the JSON\n");
        rc = CLI_EXIT_USAGE;
    } else if (strcmp(o->json, "-") == 0 ? !cli_write_stdout(b.data, b.len, &d)
                                         : !cli_write_atomic(o->json, b.data, b.len, &d)) {
        cli_print_diag("bench", &d);
        rc = CLI_EXIT_USAGE;
    }
    plumb_buf_free(&b);
    return rc;
}

static void print_text(const char *name, const char *entry, uint32_t threads, const bench_figures *g)
{
    char a[32], b[32], c[32];
    printf("plumb bench: %s @%s, %u thread%s\n", name, entry, threads, threads == 1 ? "" : "s");
    fmt_time(a, sizeof a, g->compile_s);
    printf("  compile        %s (cold: fresh runtime, no disk cache)\n", a);
    fmt_time(a, sizeof a, g->first_s);
    printf("  first run      %s (fresh results, first touch)\n", a);
    fmt_time(a, sizeof a, g->median_s);
    fmt_time(b, sizeof b, g->min_s);
    fmt_time(c, sizeof c, g->max_s);
    printf("  steady state   median %s, min %s, max %s, spread %.1f%% (p10-p90 of the median), %u runs "
           "in %.2f s\n", a, b, c, g->median_s > 0 ? 100 * (g->p90_s - g->p10_s) / g->median_s : 0, g->runs,
           g->total_s);
    printf("  bytes moved    %.0f (inputs + outputs once, intermediates not counted), %.2f GB/s\n", g->bytes,
           g->median_s > 0 ? g->bytes / g->median_s / 1e9 : 0);
    if (g->ref_ran) {
        fmt_time(a, sizeof a, g->ref_s);
        printf("  reference      %s (the whole program, one run), speedup %.1fx\n", a,
               g->median_s > 0 ? g->ref_s / g->median_s : 0);
    } else {
        printf("  reference      %s\n", g->ref_timed_out ? "not measured: passed --ref-timeout"
                                       : g->ref_failed ? "failed (the error is above)" : "skipped (--no-reference)");
    }
}

/* The results both sides gave, kept for the agreement check. */
typedef struct bench_results {
    plumb_tensor **outs;      /* the runtime's, n_out */
    uint32_t n_out;
    plumb_ref_result ref;     /* the reference's; n_outputs 0 when it did not run */
    FILE *log;                /* failing checks are described here */
} bench_results;

static void bench_results_free(bench_results *br)
{
    plumb_ref_result_free(&br->ref);
    for (uint32_t i = 0; br->outs && i < br->n_out; i++)
        plumb_tensor_free(br->outs[i]);
    plumb_free(br->outs, br->n_out * sizeof *br->outs);
    if (br->log)
        fclose(br->log);
}

/* Compiles, runs and times the entry on the runtime, then the reference;
 * fills g and br. Returns an exit code. */
static int measure(const bench_opts_s *o, const ir_module *m, const ir_func *f, plumb_tensor **ins,
                   const char *name, bench_figures *g, bench_results *br)
{
    int rc = CLI_EXIT_OK;
    uint32_t n_ins = f->body.n_args, n_out = 0;
    plumb_tensor **outs = NULL;
    double *times = NULL;
    uint32_t cap_times = 0;
    plumb_ref_result ref;
    memset(&ref, 0, sizeof ref);
    plumb_diag d = {.code = PLUMB_OK};
    FILE *log = br->log = tmpfile();

    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    ro.threads = o->threads;
    ro.max_bytes = o->max_bytes;
    ro.cache_dir = "";   /* "" = no disk cache, whatever PLUMB_CACHE_DIR says: the compile is cold */
    plumb_runtime *rt = plumb_runtime_create(&ro, &d);
    if (!rt)
        goto out_diag;
    double t0 = now_s();
    plumb_executable *ex = plumb_runtime_compile(rt, m, f->name, &d);
    g->compile_s = now_s() - t0;
    if (!ex)
        goto out_diag;
    n_out = plumb_executable_num_outputs(ex);
    g->n_results = n_out;
    if (n_out && !(outs = plumb_calloc(n_out, sizeof *outs))) {
        plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory preparing the results");
        goto out_diag;
    }
    t0 = now_s();
    if (!plumb_executable_run(ex, ins, n_ins, outs, n_out, &g->rt_checks_failed, &d))
        goto out_diag;
    g->first_s = now_s() - t0;
    for (uint32_t i = 0; i < n_ins; i++)
        g->bytes += (double)ins[i]->nbytes;
    for (uint32_t i = 0; i < n_out; i++)
        g->bytes += (double)outs[i]->nbytes;

    /* Steady state: the first run into the kept results sizes the sample;
     * the results of every run overwrite the first run's, which the
     * agreement check below reads (every run computes the same bits). */
    t0 = now_s();
    if (!plumb_executable_run_into(ex, ins, n_ins, outs, n_out, NULL, &d))
        goto out_diag;
    double one = now_s() - t0;
    uint32_t runs = o->runs;
    if (!runs) {
        double want = one > 0 ? BENCH_FILL_SECONDS / one : BENCH_MAX_RUNS;
        runs = want >= BENCH_MAX_RUNS ? BENCH_MAX_RUNS : want < BENCH_MIN_RUNS ? BENCH_MIN_RUNS : (uint32_t)want;
    }
    cap_times = runs;
    if (!(times = plumb_calloc(runs, sizeof *times))) {
        plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory for %u run times", runs);
        goto out_diag;
    }
    double start = now_s();
    for (uint32_t r = 0; r < runs; r++) {
        double s = now_s();
        if (!plumb_executable_run_into(ex, ins, n_ins, outs, n_out, NULL, &d))
            goto out_diag;
        times[r] = now_s() - s;
    }
    g->total_s = now_s() - start;
    g->runs = runs;
    qsort(times, runs, sizeof *times, cmp_double);
    g->min_s = times[0];
    g->max_s = times[runs - 1];
    g->median_s = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
    g->p10_s = quantile(times, runs, 0.10);
    g->p90_s = quantile(times, runs, 0.90);

    if (o->no_reference)
        goto out;
    plumb_ref_options rfo = {
        .struct_size = sizeof rfo,
        .max_bytes = o->max_bytes,
        .timeout_s = o->ref_timeout_s,
        .check_log = log ? log : stderr,
        .max_mismatches = 0,
    };
    plumb_diag rd = {.code = PLUMB_OK};
    t0 = now_s();
    bool ok = plumb_ref_run(m, f->name, ins, n_ins, &rfo, &ref, &rd);
    g->ref_s = now_s() - t0;
    if (!ok) {
        if (strncmp(rd.msg, "timeout", 7) == 0 || (o->ref_timeout_s > 0 && g->ref_s >= o->ref_timeout_s)) {
            g->ref_timed_out = true;
            fprintf(stderr, "plumb bench: the reference passed --ref-timeout %g s: no speedup, no agreement\n",
                    o->ref_timeout_s);
            rc = CLI_EXIT_INVALID;
            goto out;
        }
        g->ref_failed = true;
        d = rd;
        goto out_diag;
    }
    g->ref_ran = true;
    g->ref_checks_failed = ref.checks_failed;
    goto out;

out_diag:
    if (!d.file)
        d.file = name;
    cli_print_diag("bench", &d);
    rc = d.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
out:
    br->ref = ref;
    br->outs = outs;
    br->n_out = outs ? n_out : 0;
    plumb_free(times, cap_times * sizeof *times);
    if (rt)
        plumb_runtime_destroy(rt);
    return rc;
}

/* The agreement check of plumb run --compare on the kept results: one line
 * per result on stdout (on stderr when the JSON is stdout). Fills
 * g->outside and g->worst; returns an exit code. */
static int agree(const bench_opts_s *o, const ir_module *m, const ir_func *f, plumb_tensor **ins,
                 bench_results *br, bench_figures *g)
{
    bool json_out = o->json && strcmp(o->json, "-") == 0;
    plumb_ref_options rfo = {
        .struct_size = sizeof rfo,
        .max_bytes = o->max_bytes,
        .timeout_s = o->ref_timeout_s,
        .check_log = br->log ? br->log : stderr,
        .max_mismatches = 0,
    };
    int saved = -1;
    fflush(stdout);
    if (json_out && (saved = dup(1)) >= 0)
        dup2(2, 1);
    else
        printf("agreement with the reference (as plumb run --compare):\n");
    g->outside = cli_compare_results("bench", m, f, ins, f->body.n_args, &rfo, "the runtime", br->ref.outputs,
                                     br->ref.n_outputs, br->outs, br->n_out, &g->worst);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, 1);
        close(saved);
    }
    if (!json_out) {
        if (g->outside >= 0)
            printf("  agreement      %s: %u result%s, %d outside the bound, worst %.3g of the bound%s\n",
                   g->outside == 0 && !g->rt_checks_failed && !g->ref_checks_failed ? "match" : "MISMATCH",
                   g->n_results, g->n_results == 1 ? "" : "s", g->outside, g->worst,
                   g->rt_checks_failed || g->ref_checks_failed ? ", check ops failed" : "");
        else
            printf("  agreement      not checked\n");
    }
    return g->outside != 0 || g->rt_checks_failed || g->ref_checks_failed ? CLI_EXIT_INVALID : CLI_EXIT_OK;
}

static int bench_file(const bench_opts_s *o)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    int rc = CLI_EXIT_OK;
    plumb_tensor **ins = NULL;
    uint32_t n_ins = 0;
    ir_module *m = NULL;
    char *text = cli_read_input(o->file, &len, &d);
    if (!text) {
        cli_print_diag("bench", &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(o->file);
    ir_parse_options po = {sizeof po, 0, o->max_bytes};
    m = ir_parse(text, len, name, &po, &d);
    plumb_free(text, len + 1);
    ir_verify_options vo = {sizeof vo, o->max_bytes};
    if (!m || !ir_verify(m, &vo, &d)) {
        if (!d.file)
            d.file = name;
        cli_print_diag("bench", &d);
        rc = cli_program_exit(d.code);
        goto out;
    }
    const char *entry = o->entry ? o->entry : "main";
    const ir_func *f = ir_module_find_func(m, entry);
    if (!f) {
        rc = cli_usage_error("bench", "%s has no function @%s (use --entry NAME)", name, entry);
        goto out;
    }
    n_ins = f->body.n_args;
    if (n_ins && !(ins = plumb_calloc(n_ins, sizeof *ins))) {
        fprintf(stderr, "plumb bench: error: out of memory\n");
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if ((rc = bench_inputs(o, name, f, ins)) != CLI_EXIT_OK)
        goto out;
    bench_figures g;
    memset(&g, 0, sizeof g);
    g.outside = -1;
    bench_results br;
    memset(&br, 0, sizeof br);
    rc = measure(o, m, f, ins, name, &g, &br);
    if (!g.runs) {
        bench_results_free(&br);
        goto out;   /* nothing measured: the error is printed */
    }
    uint32_t threads = o->threads;
    if (!threads) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (uint32_t)c : 1;
    }
    bench_opts_s shown = *o;
    shown.threads = threads;
    if (!o->json || strcmp(o->json, "-") != 0)
        print_text(name, f->name, threads, &g);
    if (g.ref_ran)
        rc = agree(o, m, f, ins, &br, &g);
    else if (!o->json || strcmp(o->json, "-") != 0)
        printf("  agreement      not checked\n");
    bench_results_free(&br);
    if (o->json) {
        int jrc = write_json(&shown, name, f->name, &g);
        if (jrc != CLI_EXIT_OK)
            rc = jrc;
    }
out:
    for (uint32_t i = 0; ins && i < n_ins; i++)
        plumb_tensor_free(ins[i]);
    plumb_free(ins, n_ins * sizeof *ins);
    if (m)
        ir_module_free(m);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_opts_s o;
    memset(&o, 0, sizeof o);
    o.ref_timeout_s = 60;
    size_t cap = (size_t)(argc > 0 ? argc : 1);
    int rc = CLI_EXIT_OK;
    o.inputs = plumb_calloc(cap, sizeof *o.inputs);
    if (!o.inputs) {
        fprintf(stderr, "plumb bench: error: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, bench_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            rc = CLI_EXIT_USAGE;
            goto out;
        case OPT_HELP:
            fputs(bench_help, stdout);
            rc = cli_finish("bench", CLI_EXIT_OK);
            goto out;
        case OPT_ENTRY:
            o.entry = v;
            break;
        case OPT_INPUT:
            o.inputs[o.n_inputs++] = v;
            break;
        case OPT_RANDOM_INPUTS:
            /* The seed is optional: the next argument when it is a decimal
             * number, as plumb run takes it. */
            o.gen.random = true;
            if (!a.pending && !a.operands_only && a.next < a.argc) {
                const char *nx = a.argv[a.next];
                size_t k = strspn(nx, "0123456789");
                if (k && !nx[k]) {
                    if (k > 20 || !cli_parse_u64(nx, &o.gen.seed)) {
                        rc = cli_usage_error("bench", "--random-inputs: the seed '%s' is larger than 2^64-1", nx);
                        goto out;
                    }
                    a.next++;
                }
            }
            break;
        case OPT_THREADS:
            if (!cli_parse_u32(v, &o.threads) || o.threads == 0 || o.threads > 1024) {
                rc = cli_usage_error("bench", "--threads: '%s' is not a thread count from 1 to 1024", v);
                goto out;
            }
            break;
        case OPT_RUNS:
            if (!cli_parse_u32(v, &o.runs) || o.runs == 0 || o.runs > BENCH_MAX_RUNS) {
                rc = cli_usage_error("bench", "--runs: '%s' is not a run count from 1 to %u", v, BENCH_MAX_RUNS);
                goto out;
            }
            break;
        case OPT_REF_TIMEOUT: {
            char *end;
            errno = 0;
            double s = strtod(v, &end);
            if (errno || end == v || *end || !(s >= 0) || !isfinite(s)) {
                rc = cli_usage_error("bench", "--ref-timeout: '%s' is not a number of seconds >= 0", v);
                goto out;
            }
            o.ref_timeout_s = s;
            break;
        }
        case OPT_NO_REFERENCE:
            o.no_reference = true;
            break;
        case OPT_JSON:
            o.json = v;
            break;
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &o.max_bytes)) {
                rc = cli_usage_error("bench", "--max-bytes: '%s' is not a positive byte count "
                                     "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
                goto out;
            }
            break;
        case CLI_OPERAND:
            if (o.file) {
                rc = cli_usage_error("bench", "one FILE only ('%s' and '%s')", o.file, v);
                goto out;
            }
            o.file = v;
            break;
        default:
            break;
        }
    }
    if (!o.file) {
        rc = cli_usage_error("bench", "no FILE given");
        goto out;
    }
    rc = cli_finish("bench", bench_file(&o));
out:
    plumb_free(o.inputs, cap * sizeof *o.inputs);
    return rc;
}
