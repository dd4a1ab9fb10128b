/* The `plumb` command: subcommands generated from cli/commands.def and the
 * helpers they share (option parsing, input reading, output, exit codes). */
#ifndef PLUMB_CLI_H
#define PLUMB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/core.h"
#include "plumb/ops.h"

/* Exit codes, the same for every command (docs/cli.md). */
enum {
    CLI_EXIT_OK = 0,       /* success */
    CLI_EXIT_INVALID = 1,  /* the program is invalid, or a check failed */
    CLI_EXIT_USAGE = 2,    /* bad command line, or input that cannot be read */
};

/* The paragraph every command's --help ends with. */
#define CLI_EXIT_CODES_HELP \
    "exit codes:\n" \
    "  0  success\n" \
    "  1  a program is invalid (parse or verification error)\n" \
    "  2  usage error, or an input that cannot be read or an output that cannot be written\n"

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef CMD

/* ---- option parsing ---------------------------------------------------------
 * Accepts `--name`, `--name VALUE`, `--name=VALUE`, `-x`, `-x VALUE`,
 * `-xVALUE`; `--` ends the options; `-` alone is an operand (stdin). */
typedef struct cli_opt {
    const char *long_name;   /* without "--"; NULL if none */
    char short_name;         /* 0 if none */
    bool takes_value;
    int id;                  /* returned by cli_next; must be > 0 */
} cli_opt;

enum {
    CLI_END = 0,             /* no arguments left */
    CLI_OPERAND = -1,        /* a non-option argument, in *value */
    CLI_ERROR = -2,          /* bad option; the message was printed */
};

typedef struct cli_args {
    const char *cmd;         /* command name, for messages */
    int argc;
    char **argv;
    int next;                /* index of the next argument to look at */
    bool operands_only;      /* after `--` */
    const char *pending;     /* rest of a short-option cluster ("-qv") */
} cli_args;

void cli_args_init(cli_args *a, int argc, char **argv);
/* Returns an option id, CLI_OPERAND, CLI_END or CLI_ERROR; *value is the
 * option's value or the operand (NULL otherwise). opts ends with a row whose
 * id is 0. */
int cli_next(cli_args *a, const cli_opt *opts, const char **value);

/* Prints "plumb CMD: error: MESSAGE" and a pointer to --help on stderr;
 * returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses an unsigned decimal (or 0x hex for u64) integer with no sign and no
 * trailing characters; false on anything else and on overflow. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_op_lookup(const char *name, size_t len, plumb_opcode *out);
bool cli_parse_u32(const char *s, uint32_t *out);

/* Parses a shard "I/N" with 0 <= I < N. */
bool cli_parse_shard(const char *s, uint32_t *index, uint32_t *count);

/* Applies the TEST_SHARD_INDEX / TEST_TOTAL_SHARDS convention when both are
 * set (and touches TEST_SHARD_STATUS_FILE, as the convention asks of a test
 * that shards). Returns CLI_EXIT_OK, or a usage error naming the variables. */
int cli_shard_from_env(const char *cmd, uint32_t *index, uint32_t *count);

/* Parses a byte count: digits with an optional suffix K, M, G, T (powers of
 * 1000) or Ki, Mi, Gi, Ti (powers of 1024). False on anything else, on 0 and
 * on overflow. */
bool cli_parse_bytes(const char *s, uint64_t *out);

/* ---- input and output ---------------------------------------------------- */

/* Reads a whole program file ("-" = stdin), NUL-terminated, at most
 * cli_max_program_bytes() bytes (checked while reading). NULL with d set on
 * error. Free with plumb_free(p, *len + 1). */
char *cli_read_input(const char *path, size_t *len, plumb_diag *d);
/* The program size cap: PLUMB_MAX_PROGRAM_BYTES (a positive decimal byte
 * count) when set and valid, else CLI_DEFAULT_MAX_PROGRAM_BYTES. */
#define CLI_DEFAULT_MAX_PROGRAM_BYTES ((size_t)1 << 30)
size_t cli_max_program_bytes(void);
/* The name diagnostics use for path ("<stdin>" for "-"). */
const char *cli_display_name(const char *path);

/* Replaces path's contents with data atomically (plumb_write_file_atomic):
 * never through a link at path, only over a regular file or nothing; a
 * temporary file in the same directory keeps the old file's permissions and
 * is renamed over. On failure path is untouched and d is set. */
bool cli_write_atomic(const char *path, const char *data, size_t len, plumb_diag *d);

/* Creates the folder path and any missing parents (like mkdir -p; new
 * folders get 0777 less the umask). False with d set, naming the component,
 * when one cannot be created or exists and is not a folder. */
bool cli_mkdir_p(const char *path, plumb_diag *d);

/* Writes to stdout; false with d set if stdout cannot be written. */
bool cli_write_stdout(const char *data, size_t len, plumb_diag *d);
/* Flushes stdout; on error prints a message and returns CLI_EXIT_USAGE,
 * otherwise returns rc. */
int cli_finish(const char *cmd, int rc);

/* The exit code for an error raised while parsing or verifying a program:
 * CLI_EXIT_INVALID when it is the program's fault, CLI_EXIT_USAGE when it is
 * not (out of memory, I/O, API misuse). A failure that left no code set
 * counts as invalid. */
int cli_program_exit(plumb_code code);

/* Prints d as "plumb CMD: error: ..." for errors without a source location
 * (I/O, usage), or as "FILE:LINE:COL: error: ..." when it has one. */
void cli_print_diag(const char *cmd, const plumb_diag *d);

#endif
