/* plumb run: run a program's entry function on the reference interpreter. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plumb/ir.h"
#include "plumb/ref.h"

static const char run_help[] =
    "usage: plumb run [OPTIONS] FILE\n"
    "\n"
    "Parses and verifies FILE (StableHLO text; '-' reads standard input), runs\n"
    "its entry function and prints each result as\n"
    "  tensor<...> dense<...>\n"
    "with floats in their shortest round-trip decimal form. Check ops in the\n"
    "program (check.expect_eq, expect_close, expect_almost_eq and their _const\n"
    "forms) are run as they are reached; a failing check prints its first\n"
    "mismatching elements on standard error and the run goes on.\n"
    "\n"
    "options:\n"
    "      --backend NAME      backend to run on; only 'ref' (the reference\n"
    "                          interpreter, the default) is available\n"
    "      --entry NAME        function to run (default: main)\n"
    "      --input NAME=FILE   tensor file for the parameter NAME: its SSA name\n"
    "                          without '%' (e.g. arg0) or its index (0, 1, ...);\n"
    "                          binary or text tensor files. Repeat for each\n"
    "                          parameter; every parameter needs one\n"
    "      --output-dir DIR    also write result i to DIR/result_<i>.tensor\n"
    "                          (binary tensor file)\n"
    "      --hex               print results as raw dense<\"0x...\"> bytes\n"
    "      --timeout SECONDS   stop the run after SECONDS of wall-clock time\n"
    "      --max-bytes N       largest byte size allowed for one tensor; N may\n"
    "                          end in K, M, G (powers of 1000) or Ki, Mi, Gi\n"
    "                          (powers of 1024). Default: $PLUMB_MAX_BYTES, else 16Gi\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit codes:\n"
    "  0  the program ran and every check passed\n"
    "  1  the program is invalid, a check failed (the failing checks are named\n"
    "     in the last lines of standard error), or the run failed (timeout,\n"
    "     memory limit)\n"
    "  2  usage error, an unreadable program or input, inputs that do not\n"
    "     match the entry's parameters, or an output that cannot be written\n";

enum { OPT_HELP = 1, OPT_BACKEND, OPT_ENTRY, OPT_INPUT, OPT_OUTPUT_DIR, OPT_HEX,
       OPT_TIMEOUT, OPT_MAX_BYTES };

static const cli_opt run_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"backend", 0, true, OPT_BACKEND},
    {"entry", 0, true, OPT_ENTRY},
    {"input", 0, true, OPT_INPUT},
    {"output-dir", 0, true, OPT_OUTPUT_DIR},
    {"hex", 0, false, OPT_HEX},
    {"timeout", 0, true, OPT_TIMEOUT},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {NULL, 0, false, 0},
};

typedef struct run_state {
    const char *cmd;
    const char *file;
    const char *backend;
    const char *entry;
    const char **inputs;      /* "NAME=FILE" as given */
    int n_inputs;
    const char *output_dir;
    bool hex;
    double timeout_s;
    uint64_t max_bytes;
} run_state;

/* Finds the parameter NAME (SSA name or decimal index) of f; -1 if none. */
static int find_param(const ir_func *f, const char *name, size_t len)
{
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        const char *pn = f->body.args[i]->name;
        if (pn && strlen(pn) == len && memcmp(pn, name, len) == 0)
            return (int)i;
    }
    if (len == 0 || len > 9)
        return -1;
    uint32_t idx = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        idx = idx * 10 + (uint32_t)(name[i] - '0');
    }
    return idx < f->body.n_args ? (int)idx : -1;
}

static void param_name(char *out, size_t n, const ir_func *f, uint32_t i)
{
    const char *pn = f->body.args[i]->name;
    if (pn)
        snprintf(out, n, "%%%s (index %u)", pn, i);
    else
        snprintf(out, n, "index %u", i);
}

/* Loads every --input into ins[param index]; returns an exit code. */
static int load_inputs(const run_state *s, const ir_func *f, plumb_tensor **ins)
{
    for (int k = 0; k < s->n_inputs; k++) {
        const char *arg = s->inputs[k];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return cli_usage_error(s->cmd, "--input '%s' is not NAME=FILE", arg);
        int p = find_param(f, arg, (size_t)(eq - arg));
        if (p < 0)
            return cli_usage_error(s->cmd, "--input '%s': @%s has no parameter '%.*s' "
                                   "(it has %u parameters)", arg, f->name, (int)(eq - arg), arg,
                                   f->body.n_args);
        if (ins[p]) {
            char pn[128];
            param_name(pn, sizeof pn, f, (uint32_t)p);
            return cli_usage_error(s->cmd, "--input '%s': parameter %s was already given", arg, pn);
        }
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[p] = plumb_tensor_load(eq + 1, s->max_bytes, &d))) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
    }
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        if (!ins[i]) {
            char pn[128], ts[256];
            param_name(pn, sizeof pn, f, i);
            plumb_buf b;
            plumb_buf_init(&b);
            ir_type_print(&b, &f->body.args[i]->type);
            snprintf(ts, sizeof ts, "%s", b.data && !b.failed ? b.data : "?");
            plumb_buf_free(&b);
            return cli_usage_error(s->cmd, "no --input for parameter %s of @%s, of type %s",
                                   pn, f->name, ts);
        }
    }
    return CLI_EXIT_OK;
}

/* Prints each result on stdout and writes the --output-dir files. */
static int emit_results(const run_state *s, const plumb_ref_result *res)
{
    for (uint32_t i = 0; i < res->n_outputs; i++) {
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_tensor_type_print(&b, res->outputs[i]);
        plumb_buf_puts(&b, " ");
        plumb_dense_print(&b, res->outputs[i], s->hex);
        plumb_buf_puts(&b, "\n");
        plumb_diag d = {.code = PLUMB_OK};
        bool ok = !b.failed && cli_write_stdout(b.data, b.len, &d);
        if (b.failed)
            plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing result %u", i);
        plumb_buf_free(&b);
        if (!ok) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
        if (s->output_dir) {
            char path[4096];
            int n = snprintf(path, sizeof path, "%s/result_%u.tensor", s->output_dir, i);
            if (n < 0 || (size_t)n >= sizeof path)
                return cli_usage_error(s->cmd, "--output-dir '%s' is too long", s->output_dir);
            if (!plumb_tensor_save(path, res->outputs[i], false, &d)) {
                cli_print_diag(s->cmd, &d);
                return CLI_EXIT_USAGE;
            }
        }
    }
    return CLI_EXIT_OK;
}

/* Copies the check log to stderr and prints, last, which checks failed. */
static void report_checks(const run_state *s, FILE *log, const plumb_ref_result *res)
{
    if (log && log != stderr) {
        rewind(log);
        char line[4096];
        while (fgets(line, sizeof line, log))
            fputs(line, stderr);
    }
    if (!res->checks_failed)
        return;
    fprintf(stderr, "plumb %s: %u of %u checks failed:\n", s->cmd, res->checks_failed, res->checks_run);
    if (log && log != stderr) {
        rewind(log);
        char line[4096];
        while (fgets(line, sizeof line, log))
            if (strstr(line, "check failed: ") && line[0] != ' ')
                fprintf(stderr, "  %s", line);
    }
}

static int run_file(const run_state *s)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(s->file, &len, &d);
    if (!text) {
        cli_print_diag(s->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(s->file);
    ir_parse_options po = {sizeof po, 0};
    ir_module *m = ir_parse(text, len, name, &po, &d);
    plumb_free(text, len + 1);
    int rc = CLI_EXIT_OK;
    plumb_tensor **ins = NULL;
    uint32_t n_ins = 0;
    FILE *log = NULL;
    if (!m) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        return cli_program_exit(d.code);
    }
    ir_verify_options vo = {sizeof vo, s->max_bytes};
    if (!ir_verify(m, &vo, &d)) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        rc = cli_program_exit(d.code);
        goto out;
    }
    const char *entry = s->entry ? s->entry : "main";
    const ir_func *f = ir_module_find_func(m, entry);
    if (!f) {
        rc = cli_usage_error(s->cmd, "%s has no function @%s (use --entry NAME)", name, entry);
        goto out;
    }
    n_ins = f->body.n_args;
    if (n_ins && !(ins = plumb_calloc(n_ins, sizeof *ins))) {
        fprintf(stderr, "plumb %s: error: out of memory\n", s->cmd);
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if ((rc = load_inputs(s, f, ins)) != CLI_EXIT_OK)
        goto out;

    /* Checks are described as they fail; the log is kept so that the last
     * lines can name every failing check once the run is over. */
    log = tmpfile();
    plumb_ref_options ro = {
        .struct_size = sizeof ro,
        .max_bytes = s->max_bytes,
        .timeout_s = s->timeout_s,
        .check_log = log ? log : stderr,
        .max_mismatches = 0,
    };
    plumb_ref_result res;
    plumb_diag rd = {.code = PLUMB_OK};
    bool ok = plumb_ref_run(m, entry, ins, n_ins, &ro, &res, &rd);
    if (!ok) {
        report_checks(s, log, &res);
        if (!rd.file)
            rd.file = name;
        cli_print_diag(s->cmd, &rd);
        rc = rd.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
        goto out;
    }
    rc = emit_results(s, &res);
    report_checks(s, log, &res);
    if (rc == CLI_EXIT_OK && res.checks_failed)
        rc = CLI_EXIT_INVALID;
    plumb_ref_result_free(&res);
out:
    if (log)
        fclose(log);
    for (uint32_t i = 0; ins && i < n_ins; i++)
        plumb_tensor_free(ins[i]);
    plumb_free(ins, n_ins * sizeof *ins);
    ir_module_free(m);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_state s;
    memset(&s, 0, sizeof s);
    s.cmd = "run";
    s.backend = "ref";
    size_t cap = (size_t)(argc > 0 ? argc : 1);
    s.inputs = plumb_calloc(cap, sizeof *s.inputs);
    if (!s.inputs) {
        fprintf(stderr, "plumb run: error: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id, rc = CLI_EXIT_OK;
    while ((id = cli_next(&a, run_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            rc = CLI_EXIT_USAGE;
            goto out;
        case OPT_HELP:
            fputs(run_help, stdout);
            rc = cli_finish(s.cmd, CLI_EXIT_OK);
            goto out;
        case OPT_BACKEND:
            s.backend = v;
            break;
        case OPT_ENTRY:
            s.entry = v;
            break;
        case OPT_INPUT:
            s.inputs[s.n_inputs++] = v;
            break;
        case OPT_OUTPUT_DIR:
            s.output_dir = v;
            break;
        case OPT_HEX:
            s.hex = true;
            break;
        case OPT_TIMEOUT: {
            char *end;
            errno = 0;
            double t = strtod(v, &end);
            if (end == v || *end || errno || !isfinite(t) || t <= 0) {
                rc = cli_usage_error(s.cmd, "--timeout: '%s' is not a positive number of seconds", v);
                goto out;
            }
            s.timeout_s = t;
            break;
        }
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &s.max_bytes)) {
                rc = cli_usage_error(s.cmd, "--max-bytes: '%s' is not a positive byte count "
                                     "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
                goto out;
            }
            break;
        case CLI_OPERAND:
            if (s.file) {
                rc = cli_usage_error(s.cmd, "more than one FILE given ('%s' and '%s')", s.file, v);
                goto out;
            }
            s.file = v;
            break;
        }
    }
    if (!s.file) {
        rc = cli_usage_error(s.cmd, "no FILE given");
        goto out;
    }
    if (strcmp(s.backend, "ref") != 0) {
        rc = cli_usage_error(s.cmd, "backend '%s' is not available yet; the only backend is 'ref'",
                             s.backend);
        goto out;
    }
    rc = cli_finish(s.cmd, run_file(&s));
out:
    plumb_free(s.inputs, cap * sizeof *s.inputs);
    return rc;
}
