/* plumb run's session mode (run_session.c): several programs, or one
 * program several times, through one compiled runtime, so that recompiles
 * can happen, be explained, counted and gated from the command line. Also
 * the inputs both a single run and a session feed an entry: --input files
 * and generated values (--random-inputs, with sizes for `?` dimensions). */
#ifndef PLUMB_CLI_RUN_SESSION_H
#define PLUMB_CLI_RUN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/ir.h"
#include "plumb/tensor.h"

/* The largest number of sizes one --dim-size takes (N,N,...). */
#define CLI_MAX_DIM_SIZES 64

/* How generated inputs are made (--random-inputs [SEED], --dim-size,
 * --shape). */
typedef struct cli_gen_opts {
    bool random;                  /* parameters without --input get generated values */
    uint64_t seed;                /* --random-inputs SEED; 0 without one */
    int64_t dim_sizes[CLI_MAX_DIM_SIZES];  /* --dim-size N[,N...]: run r uses dim_sizes[r % n] */
    uint32_t n_dim_sizes;         /* 0: each `?` gets its bound, else 3 */
    const char *const *shapes;    /* "NAME=DIMS" (--shape), e.g. "arg1=4x128" */
    int n_shapes;
} cli_gen_opts;

/* Parses --dim-size's value "N" or "N,N,..." (each 0..2^31-1) into g;
 * false when it is malformed. */
bool cli_parse_dim_sizes(const char *s, cli_gen_opts *g);

/* The parameter NAME of f (its SSA name with or without '%', or its decimal
 * index), len bytes long; -1 when f has none. */
int cli_find_param(const ir_func *f, const char *name, size_t len);
/* "%name (index i)" or "index i". */
void cli_param_name(char *out, size_t n, const ir_func *f, uint32_t i);
/* A usage error for a NAME that is no parameter of f: names the ones there
 * are. Returns CLI_EXIT_USAGE. */
int cli_no_such_param(const char *cmd, const char *opt, const char *arg, const ir_func *f, size_t len);

/* Fills every ins[i] that is still NULL (f has f->body.n_args parameters)
 * with generated values for run number `run` (g->random must be set):
 * small dyadic floats, small integers, booleans. A `?` dimension gets the
 * --shape size of its parameter, else dim_sizes[run % n_dim_sizes], else
 * its bound, else 3, and is checked against the bound. Every integer
 * scalar parameter before the first parameter with a `?` dimension is a
 * dimension size (JAX's shape-polymorphic export passes each dimension
 * variable so): the k-th of them gets the actual size of the k-th `?`
 * dimension in parameter order (of the tensors given or generated), the
 * ones beyond the count the --dim-size value (3 without one). Returns
 * CLI_EXIT_OK or a usage error (printed, naming the parameter). */
int cli_gen_inputs(const char *cmd, const cli_gen_opts *g, const ir_func *f, uint32_t run, uint64_t max_bytes,
                   plumb_tensor **ins);

/* Checks the inputs against f's parameter types (ir_shape_check_args):
 * count, dtype, rank, static dims, `?` sizes within their bounds. Prints
 * the error (naming the parameter, dimension, size and bound, in file) and
 * returns CLI_EXIT_USAGE; CLI_EXIT_OK when they fit. */
int cli_check_inputs(const char *cmd, const char *file, const ir_func *f, plumb_tensor *const *ins, uint32_t n);

typedef struct cli_session_opts {
    const char *cmd;
    const char *const *files;     /* in run order; "-" is standard input */
    int n_files;
    const char *entry;            /* NULL = main */
    const char *const *inputs;    /* "NAME=FILE", as for a single run */
    int n_inputs;
    cli_gen_opts gen;             /* generated inputs, different on each run */
    uint32_t repeat;              /* times the whole list runs (>= 1) */
    bool stats, explain, json;
    const char *html;             /* --html FILE (with --stats): the session's page; NULL = none */
    uint32_t max_compiles;        /* programs per module and entry; 0 = no cap */
    bool error_on_recompile;
    const char *contract;         /* --contract FILE; NULL = $PLUMB_CONTRACT or none */
    bool hex;
    uint32_t threads;
    uint64_t max_bytes;
    double timeout_s;
} cli_session_opts;

/* Returns the command's exit code (CLI_EXIT_*). */
int cli_run_session(const cli_session_opts *o);

#endif
