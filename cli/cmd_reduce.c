/* plumb reduce: shrink a finding of plumb fuzz (fuzz/reduce.c, docs/fuzz.md). */
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz.h"
#include "cli.h"

static const char reduce_help[] =
    "usage: plumb reduce [--timeout S] DIR\n"
    "\n"
    "Shrinks the finding saved in DIR by 'plumb fuzz --out': rebuilds its\n"
    "program from DIR/finding.txt (it must match DIR/program.mlir), then\n"
    "removes ops one at a time, last first, until none can go. A removed op's\n"
    "uses read a new parameter holding the value the backend computed for it,\n"
    "so the ops left see the same operands. Then it halves dimensions of the\n"
    "inputs and constants (values cut to their leading or trailing half, the\n"
    "ops' shapes re-derived; ops whose attributes name sizes keep theirs) and\n"
    "sets inputs and constants to zeros or ones, whole or in ranges of\n"
    "halving size; constants that hold indices or sizes are never changed.\n"
    "These passes repeat while one of them keeps a candidate. Every candidate\n"
    "is verified and run on the finding's backend in a child process, and\n"
    "kept only when the\n"
    "same signature still shows: for agree findings an op of the same name and\n"
    "element type fails the checker; for crash, hang and error findings the\n"
    "run fails. Compile-count findings are not reduced.\n"
    "\n"
    "Writes DIR/reduced.mlir, its inputs DIR/rK.tensor and DIR/reduced.txt\n"
    "(the counts and a replay command), and prints\n"
    "'reduce: N ops -> M ops, E input elements -> F' and the replay command.\n"
    "\n"
    "options:\n"
    "      --timeout S   seconds a candidate may run before it counts as a hang\n"
    "                    (default 20)\n"
    "  -h, --help        show this help\n"
    "\n"
    "exit codes:\n"
    "  0  reduced (or already minimal)\n"
    "  1  the finding does not show any more on its backend\n"
    "  2  usage error, or DIR is not a usable finding directory\n";

enum { OPT_HELP = 1, OPT_TIMEOUT };

static const cli_opt reduce_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"timeout", 0, true, OPT_TIMEOUT},
    {NULL, 0, false, 0},
};

int cmd_reduce(int argc, char **argv)
{
    const char *cmd = "reduce", *dir = NULL, *v;
    double timeout_s = 20;
    cli_args a;
    cli_args_init(&a, argc, argv);
    int id;
    while ((id = cli_next(&a, reduce_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(reduce_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_TIMEOUT: {
            char *end;
            timeout_s = strtod(v, &end);
            if (end == v || *end || !(timeout_s > 0) || timeout_s > 1e6)
                return cli_usage_error(cmd, "--timeout: '%s' is not a positive number of seconds", v);
            break;
        }
        case CLI_OPERAND:
            if (dir)
                return cli_usage_error(cmd, "one DIR at a time ('%s' and '%s' given)", dir, v);
            dir = v;
            break;
        }
    }
    if (!dir)
        return cli_usage_error(cmd, "no DIR given");
    /* "DIR/" names the same directory; keep the paths printed clean */
    char clean[1024];
    snprintf(clean, sizeof clean, "%s", dir);
    for (size_t n = strlen(clean); n > 1 && clean[n - 1] == '/'; n--)
        clean[n - 1] = 0;
    dir = clean;
    plumb_diag d;
    plumb_diag_clear(&d);
    fz_reduce_result r;
    int rc = fz_reduce(dir, timeout_s, &r, &d);
    if (rc < 0) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    if (rc == 0) {
        printf("reduce: the finding in %s does not show any more on its backend\n", dir);
        return cli_finish(cmd, CLI_EXIT_INVALID);
    }
    printf("reduce: %u ops -> %u ops, %llu input elements -> %llu (%u shape cuts, %u value simplifications; %u "
           "candidates run, %u kept)\n  %s\n  replay: %s\n",
           r.ops_before, r.ops_after, (unsigned long long)r.elems_before, (unsigned long long)r.elems_after,
           r.shapes_cut, r.values_set, r.tried, r.kept, r.program, r.replay);
    return cli_finish(cmd, CLI_EXIT_OK);
}
