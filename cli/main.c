/* plumb: the command-line tool. Dispatches to the subcommands listed in
 * cli/commands.def. */
#include <string.h>

#include "cli.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_command;

static const cli_command commands[] = {
#define CMD(name, summary) {#name, summary, cmd_##name},
#include "commands.def"
#undef CMD
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    size_t width = 0;
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strlen(commands[i].name) > width)
            width = strlen(commands[i].name);
    fprintf(f,
            "usage: plumb COMMAND [OPTIONS] [ARGS]\n"
            "       plumb --version\n"
            "       plumb --help\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-*s  %s\n", (int)width, commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Run 'plumb COMMAND --help' for a command's options and exit codes.\n"
            "\n"
            "exit codes:\n"
            "  0  success\n"
            "  1  a program is invalid, or a check in it failed\n"
            "  2  usage error, or an input that cannot be read or an output that cannot be written\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return cli_finish("--help", CLI_EXIT_OK);
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("plumb %s\n", PLUMB_VERSION_STRING);
        return cli_finish("--version", CLI_EXIT_OK);
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (cmd[0] == '-')
        fprintf(stderr, "plumb: error: unknown option '%s'\n", cmd);
    else
        fprintf(stderr, "plumb: error: unknown command '%s'\n", cmd);
    fprintf(stderr, "run 'plumb --help' for the list of commands\n");
    return CLI_EXIT_USAGE;
}
