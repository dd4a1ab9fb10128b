/* plumb verify: parse and verify programs. */
#include <string.h>

#include "cli.h"
#include "plumb/ir.h"

static const char verify_help[] =
    "usage: plumb verify [-q] [--max-bytes N] FILE...\n"
    "\n"
    "Parses each FILE (StableHLO text; '-' reads standard input) and verifies\n"
    "it: every op's operand and result types and shapes against the StableHLO\n"
    "spec's constraints, and every tensor's byte size against the limit.\n"
    "Prints 'FILE: ok' for each valid file. Every file is checked, even after\n"
    "an error.\n"
    "\n"
    "A '?' dimension is polymorphic (bounded when the type carries\n"
    "#stablehlo.bounds<...>): each shape rule is checked as far as the\n"
    "declared dimensions decide it, and a dynamic op's shape operand that is\n"
    "a constant (dynamic_reshape's output_shape, dynamic_iota's, ...) is\n"
    "checked against the result type; what depends on the actual sizes is\n"
    "checked when the program runs ('plumb run', on every backend).\n"
    "\n"
    "options:\n"
    "  -q, --quiet         print nothing for valid files\n"
    "      --max-bytes N   largest byte size allowed for one tensor; N may end\n"
    "                      in K, M, G (powers of 1000) or Ki, Mi, Gi (powers\n"
    "                      of 1024). Default: $PLUMB_MAX_BYTES (a plain\n"
    "                      byte count), else 16Gi\n"
    "  -h, --help          show this help\n"
    "\n"
    "Errors are printed on standard error as FILE:LINE:COL: error: message.\n"
    "\n" CLI_EXIT_CODES_HELP
    "When files are both unreadable and invalid, the exit code is 2.\n";

enum { OPT_HELP = 1, OPT_QUIET, OPT_MAX_BYTES };

static const cli_opt verify_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"quiet", 'q', false, OPT_QUIET},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {NULL, 0, false, 0},
};

/* Verifies one file; returns its exit code. */
static int verify_one(const char *cmd, const char *file, uint64_t max_bytes, bool quiet)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(file);
    ir_parse_options po = {sizeof po, 0, max_bytes};
    ir_module *m = ir_parse(text, len, name, &po, &d);
    int rc = CLI_EXIT_OK;
    if (m) {
        ir_verify_options vo = {sizeof vo, max_bytes};
        if (!ir_verify(m, &vo, &d))
            rc = CLI_EXIT_INVALID;
        ir_module_free(m);
    } else {
        rc = CLI_EXIT_INVALID;
    }
    plumb_free(text, len + 1);
    if (rc != CLI_EXIT_OK) {
        /* d.file may point into the freed module's arena. */
        d.file = name;
        cli_print_diag(cmd, &d);
        rc = cli_program_exit(d.code);
    } else if (!quiet) {
        printf("%s: ok\n", name);
    }
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    const char *cmd = "verify";
    bool quiet = false;
    uint64_t max_bytes = 0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    /* Options may follow the files, so collect operands first. */
    int n_files = 0;
    const char **files = plumb_calloc((size_t)(argc > 0 ? argc : 1), sizeof *files);
    if (!files) {
        fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_OK;
    while ((id = cli_next(&a, verify_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            rc = CLI_EXIT_USAGE;
            goto out;
        case OPT_HELP:
            fputs(verify_help, stdout);
            rc = cli_finish(cmd, CLI_EXIT_OK);
            goto out;
        case OPT_QUIET:
            quiet = true;
            break;
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &max_bytes)) {
                rc = cli_usage_error(cmd, "--max-bytes: '%s' is not a positive byte count "
                                     "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
                goto out;
            }
            break;
        case CLI_OPERAND:
            files[n_files++] = v;
            break;
        }
    }
    if (n_files == 0) {
        rc = cli_usage_error(cmd, "no FILE given");
        goto out;
    }
    bool any_invalid = false, any_unreadable = false;
    for (int i = 0; i < n_files; i++) {
        int r = verify_one(cmd, files[i], max_bytes, quiet);
        any_invalid |= r == CLI_EXIT_INVALID;
        any_unreadable |= r == CLI_EXIT_USAGE;
    }
    rc = any_unreadable ? CLI_EXIT_USAGE : any_invalid ? CLI_EXIT_INVALID : CLI_EXIT_OK;
    rc = cli_finish(cmd, rc);
out:
    plumb_free(files, (size_t)(argc > 0 ? argc : 1) * sizeof *files);
    return rc;
}
