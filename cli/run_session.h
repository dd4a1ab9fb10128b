/* plumb run's session mode (run_session.c): several programs, or one
 * program several times, through one compiled runtime, so that recompiles
 * can happen, be explained, counted and gated from the command line. */
#ifndef PLUMB_CLI_RUN_SESSION_H
#define PLUMB_CLI_RUN_SESSION_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_session_opts {
    const char *cmd;
    const char *const *files;     /* in run order; "-" is standard input */
    int n_files;
    const char *entry;            /* NULL = main */
    const char *const *inputs;    /* "NAME=FILE", as for a single run */
    int n_inputs;
    bool random_inputs;           /* parameters without --input get generated values */
    uint32_t repeat;              /* times the whole list runs (>= 1) */
    bool stats, explain, json;
    uint32_t max_compiles;        /* programs per module and entry; 0 = no cap */
    bool error_on_recompile;
    bool hex;
    uint32_t threads;
    uint64_t max_bytes;
    double timeout_s;
} cli_session_opts;

/* Returns the command's exit code (CLI_EXIT_*). */
int cli_run_session(const cli_session_opts *o);

#endif
