/* plumb fmt: parse a program and print its canonical form. */
#include <string.h>

#include "cli.h"
#include "plumb/ir.h"

static const char fmt_help[] =
    "usage: plumb fmt FILE [-o OUT | -i]\n"
    "\n"
    "Parses FILE (StableHLO text; '-' reads standard input) and prints it in\n"
    "plumb's canonical form. The canonical form is stable: formatting it again\n"
    "gives the same bytes. fmt checks syntax only; 'plumb verify' checks types\n"
    "and shapes.\n"
    "\n"
    "Debug locations (loc(...) after ops and arguments, #loc aliases) are\n"
    "resolved and written inline in one form, loc(\"NAME\"(\"FILE\":LINE:COL)),\n"
    "without aliases (docs/format.md, \"Debug locations\").\n"
    "\n"
    "options:\n"
    "  -o, --output OUT   write to OUT instead of standard output (atomically)\n"
    "  -i, --in-place     rewrite FILE in place, atomically, only if it parses\n"
    "  -h, --help         show this help\n"
    "\n"
    "OUT (and FILE with -i) must be a regular file or not exist: a symbolic\n"
    "link, FIFO, device or directory there is refused before anything is read,\n"
    "never written through or replaced. A link in the directory part of the\n"
    "path is followed; to format a linked file in place, name its target.\n"
    "The new file replaces the old one by a rename in the same directory and\n"
    "keeps the old file's permissions.\n"
    "\n"
    "Errors are printed on standard error as FILE:LINE:COL: error: message.\n"
    "\n" CLI_EXIT_CODES_HELP;

enum { OPT_HELP = 1, OPT_OUTPUT, OPT_IN_PLACE };

static const cli_opt fmt_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"output", 'o', true, OPT_OUTPUT},
    {"in-place", 'i', false, OPT_IN_PLACE},
    {NULL, 0, false, 0},
};

int cmd_fmt(int argc, char **argv)
{
    const char *cmd = "fmt";
    const char *file = NULL, *out = NULL;
    bool in_place = false;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, fmt_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(fmt_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_OUTPUT:
            out = v;
            break;
        case OPT_IN_PLACE:
            in_place = true;
            break;
        case CLI_OPERAND:
            if (file)
                return cli_usage_error(cmd, "more than one FILE given ('%s' and '%s')", file, v);
            file = v;
            break;
        }
    }
    if (!file)
        return cli_usage_error(cmd, "no FILE given");
    if (in_place && out)
        return cli_usage_error(cmd, "-i and -o cannot be used together");
    if (in_place && strcmp(file, "-") == 0)
        return cli_usage_error(cmd, "-i needs a file, not standard input");

    plumb_diag d = {.code = PLUMB_OK};
    /* Refuse an output that is a link, FIFO or device before any work (and
     * before opening it: a FIFO would block). */
    const char *target = in_place ? file : out;
    if (target && !plumb_check_write_target(target, &d)) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(file);
    ir_parse_options po = {sizeof po, 0, 0};   /* 0: the default literal limit (PLUMB_MAX_BYTES or 16 GiB) */
    ir_module *m = ir_parse(text, len, name, &po, &d);
    if (!m) {
        d.file = name;
        cli_print_diag(cmd, &d);
        plumb_free(text, len + 1);
        return cli_program_exit(d.code);
    }

    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    ir_module_free(m);
    int rc = CLI_EXIT_OK;
    if (b.failed) {
        fprintf(stderr, "plumb %s: error: out of memory printing '%s'\n", cmd, name);
        rc = CLI_EXIT_USAGE;
    } else if (in_place) {
        /* Leave an already canonical file alone (its mtime too). */
        bool same = b.len == len && memcmp(b.data, text, len) == 0;
        if (!same && !cli_write_atomic(file, b.data ? b.data : "", b.len, &d)) {
            cli_print_diag(cmd, &d);
            rc = CLI_EXIT_USAGE;
        }
    } else if (out) {
        if (!cli_write_atomic(out, b.data ? b.data : "", b.len, &d)) {
            cli_print_diag(cmd, &d);
            rc = CLI_EXIT_USAGE;
        }
    } else if (!cli_write_stdout(b.data, b.len, &d)) {
        cli_print_diag(cmd, &d);
        rc = CLI_EXIT_USAGE;
    }
    plumb_buf_free(&b);
    plumb_free(text, len + 1);
    return cli_finish(cmd, rc);
}
