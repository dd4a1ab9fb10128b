/* plumb explain: what the runtime's compile cache sees as different between
 * two programs (runtime/explain_pair.c). */
#include <string.h>

#include "../runtime/rt_cache_admin.h"
#include "cli.h"
#include "plumb/ir.h"

static const char explain_help[] =
    "usage: plumb explain [--entry E] [--json] A.mlir B.mlir\n"
    "\n"
    "Compares two programs the way the compiled runtime's cache does: as if a\n"
    "runtime had compiled A and were then given B for the same entry. Prints\n"
    "the explanation the runtime logs for that recompile (PLUMB_LOG=recompiles,\n"
    "'plumb run --explain'): every difference grouped by cause (baked_constant,\n"
    "static_dimension, element_type, attribute, structure, entry_signature),\n"
    "each with its node, old and new value, source location and a hint; or\n"
    "'same program: the second compile would be a cache hit'.\n"
    "\n"
    "options:\n"
    "      --entry E   the entry function of both programs (default main)\n"
    "      --json      one JSON object: {\"same\": true|false, ...}, with the\n"
    "                  runtime's explanation object under \"explanation\"\n"
    "  -h, --help      show this help\n"
    "\n"
    "Both programs are parsed and verified first; errors are printed as\n"
    "FILE:LINE:COL: error: message. Whether the programs differ does not\n"
    "change the exit code.\n"
    "\n" CLI_EXIT_CODES_HELP
    "A program without the entry function is a usage error (2).\n";

enum { OPT_HELP = 1, OPT_ENTRY, OPT_JSON };

static const cli_opt explain_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"entry", 0, true, OPT_ENTRY},
    {"json", 0, false, OPT_JSON},
    {NULL, 0, false, 0},
};

/* Reads, parses and verifies one program; NULL after printing the error
 * (*rc set). */
static ir_module *load(const char *cmd, const char *file, int *rc)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        cli_print_diag(cmd, &d);
        *rc = CLI_EXIT_USAGE;
        return NULL;
    }
    ir_parse_options po = {sizeof po, 0, 0};
    ir_module *m = ir_parse(text, len, cli_display_name(file), &po, &d);
    plumb_free(text, len + 1);
    if (m) {
        ir_verify_options vo = {sizeof vo, 0};
        if (ir_verify(m, &vo, &d))
            return m;
        d.file = cli_display_name(file);
        ir_module_free(m);
    }
    cli_print_diag(cmd, &d);
    *rc = cli_program_exit(d.code);
    return NULL;
}

int cmd_explain(int argc, char **argv)
{
    const char *cmd = "explain";
    const char *entry = "main", *files[2] = {NULL, NULL};
    int n_files = 0;
    bool json = false;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, explain_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(explain_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_ENTRY:
            entry = v[0] == '@' ? v + 1 : v;
            break;
        case OPT_JSON:
            json = true;
            break;
        case CLI_OPERAND:
            if (n_files == 2)
                return cli_usage_error(cmd, "expected two programs, got a third: '%s'", v);
            files[n_files++] = v;
            break;
        }
    }
    if (n_files != 2)
        return cli_usage_error(cmd, "expected two programs, A and B");
    int rc = CLI_EXIT_OK;
    ir_module *ma = NULL, *mb = NULL;
    static char line[8192], js[32768];
    if (!(ma = load(cmd, files[0], &rc)) || !(mb = load(cmd, files[1], &rc)))
        goto out;
    const ir_func *fa = ir_module_find_func(ma, entry), *fb = ir_module_find_func(mb, entry);
    if (!fa || !fb) {
        fprintf(stderr, "plumb %s: error: %s has no function @%s%s\n", cmd, cli_display_name(files[fa ? 1 : 0]),
                entry, strcmp(entry, "main") == 0 ? " (name the entry with --entry)" : "");
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    plumb_diag d = {.code = PLUMB_OK};
    bool same = false;
    if (!rt_explain_modules(ma, fa, mb, fb, &same, line, sizeof line, js, sizeof js, &d)) {
        cli_print_diag(cmd, &d);
        rc = cli_program_exit(d.code);
        goto out;
    }
    if (json) {
        printf("{\"first\": ");
        plumb_json_str_fput(stdout, cli_display_name(files[0]));
        printf(", \"second\": ");
        plumb_json_str_fput(stdout, cli_display_name(files[1]));
        printf(", \"entry\": ");
        plumb_json_str_fput(stdout, entry);
        if (same)
            printf(", \"same\": true}\n");
        else
            printf(", \"same\": false, \"explanation\": %s}\n", js);
    } else if (same) {
        printf("same program: the second compile would be a cache hit\n");
    } else {
        printf("%s\n", line);
    }
    rc = cli_finish(cmd, rc);
out:
    if (ma)
        ir_module_free(ma);
    if (mb)
        ir_module_free(mb);
    return rc;
}
