/* Internal interface of certification: backends loaded through the plugin
 * ABI (conformance/plugin.c), the built-in backends exposed through it
 * (conformance/backend_ref.c, backend_runtime.c), the runner
 * (conformance/runner.c) and its reports (conformance/report.c). */
#ifndef PLUMB_CERTIFY_H
#define PLUMB_CERTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/backend.h"
#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/ops.h"
#include "plumb/tensor.h"
#include "conf.h"

/* The built-in backends' tables (what their plumb_backend_get_api would
 * return). Plugins under tests/ that link the library wrap these. */
const plumb_backend_api *conf_backend_ref_api(uint32_t abi_major);
const plumb_backend_api *conf_backend_runtime_api(uint32_t abi_major);

/* ---- helpers for backends built on plumb's library (ref, runtime, and the
 * test plugins that wrap them) ----------------------------------------------- */

/* A new error object (free with conf_bk_error_free, the tables' error_free). */
plumb_backend_error *conf_bk_error(int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
plumb_backend_error *conf_bk_error_from_diag(const plumb_diag *d);
void conf_bk_error_free(plumb_backend_error *e);
/* The ABI's dtype mask for a PLUMB_TY_BIT mask, and back. */
uint32_t conf_bk_abi_mask(uint32_t plumb_mask);
/* Fills ops (PLUMB_OP_COUNT entries) with every op of the table a program can
 * contain (not func/check structure) and every element type its row accepts;
 * returns the count. Backends that implement the whole op set claim this. */
size_t conf_bk_table_ops(plumb_backend_op_cap *ops);
uint32_t conf_bk_plumb_mask(uint32_t abi_mask);
/* Parses and verifies program text: NULL with *err set on failure. */
ir_module *conf_bk_parse(const char *text, size_t len, plumb_backend_error **err);
/* Views input buffers as tensors (no copy; data is borrowed): views must
 * hold n entries; free the array with plumb_free(views, n * sizeof *views). */
plumb_backend_error *conf_bk_inputs(const plumb_backend_buffer *in, size_t n, plumb_tensor **views);
/* Wraps tensors as an outputs object, taking ownership of ts (and the
 * array, allocated with plumb_calloc(n, sizeof *ts)). */
plumb_backend_error *conf_bk_outputs(plumb_tensor **ts, uint32_t n, plumb_backend_outputs **out);
void conf_bk_outputs_free(plumb_backend_outputs *o);
/* Seconds on a monotonic clock. */
double conf_now(void);

/* ---- loading and validating a backend ------------------------------------ */

/* What a backend declared, translated to plumb's own types. */
typedef struct conf_caps {
    uint32_t claims[PLUMB_OP_COUNT];   /* PLUMB_TY_BIT(dtype) mask per op */
    plumb_backend_poly poly;
    uint32_t flush_subnormals;         /* PLUMB_TY_BIT mask of float types */
    bool preserves_nan_payload;
    bool deterministic;
    plumb_dtype accum[PLUMB_DTYPE_COUNT]; /* per float type; the type itself when undeclared */
    uint32_t n_claimed_ops;
} conf_caps;

typedef struct conf_backend {
    const plumb_backend_api *api;
    void *dl;                  /* dlopen handle; NULL for a built-in backend */
    char where[512];           /* "ref", "runtime" or the plugin's path, for messages */
    char name[64];             /* the table's name */
    char version[64];          /* the table's version string */
    conf_caps caps;
    plumb_backend *inst;       /* an instance, or NULL (see conf_backend_instance) */
} conf_backend;

/* Opens "ref", "runtime" or a path to a shared library (anything with a '/'
 * or ending in ".so"): loads it, asks for PLUMB_BACKEND_ABI_MAJOR, validates
 * the table (major, struct_size, required functions), creates an instance
 * with options (NULL-able) and validates its capabilities (known op names
 * and element types, types the op accepts, accumulators at least as wide),
 * then destroys that instance (b->inst is NULL on return; see
 * conf_backend_instance). Errors name the problem and the file. */
bool conf_backend_open(const char *spec, const plumb_backend_option *options, size_t n_options,
                       conf_backend *b, plumb_diag *d);
void conf_backend_close(conf_backend *b);

/* Validation steps, exposed for tests. */
bool conf_api_validate(const plumb_backend_api *api, const char *where, plumb_diag *d);
bool conf_caps_translate(const plumb_backend_capabilities *c, const char *where,
                         conf_caps *out, plumb_diag *d);

/* Creates a fresh instance (destroying any previous one): the runner does
 * this in every worker process, never sharing an instance across fork. */
bool conf_backend_instance(conf_backend *b, const plumb_backend_option *options, size_t n_options,
                           plumb_diag *d);

/* Compiles program (entry "main"), runs it on inputs and returns the results
 * as newly allocated tensors (*outs has *n_outs entries; free with
 * conf_tensors_free). Backend errors become d's message, prefixed with the
 * step that failed. */
bool conf_backend_run(conf_backend *b, const char *program, plumb_tensor *const *inputs,
                      uint32_t n_inputs, plumb_tensor ***outs, uint32_t *n_outs, plumb_diag *d);
void conf_tensors_free(plumb_tensor **ts, uint32_t n);

/* The backend's counters (zeros for fields an older backend lacks). */
bool conf_backend_stats(conf_backend *b, plumb_backend_stats *st, plumb_diag *d);
bool conf_backend_reset_stats(conf_backend *b, plumb_diag *d);

/* The check options for cases of dtype t under the declared capabilities. */
void conf_caps_check_opts(const conf_caps *c, plumb_dtype t, conf_check_opts *o);

/* ---- the runner ------------------------------------------------------------ */

typedef enum conf_status {
    CONF_ST_PASS,
    CONF_ST_FAIL,       /* outputs disagree with the reference */
    CONF_ST_ERROR,      /* the backend returned an error for a claimed op */
    CONF_ST_CRASH,      /* the worker died (signal or exit) on this case */
    CONF_ST_TIMEOUT,    /* the case ran past the timeout */
} conf_status;

const char *conf_status_name(conf_status s);

typedef struct conf_case_result {
    char id[128];
    plumb_opcode op;
    plumb_dtype dtype;
    conf_status status;
    double budget_used;
    double seconds;            /* wall time of the case, seconds */
    char reason[512];
    char repro[256];           /* reproducer directory, or "" */
} conf_case_result;

typedef struct conf_op_summary {
    plumb_opcode op;
    uint32_t claimed;          /* PLUMB_TY_BIT mask claimed */
    uint32_t generated;        /* cases generated (this shard) */
    uint32_t expected;         /* manifest share for this shard */
    uint32_t cases;            /* cases run (claimed types) */
    uint32_t passed;
    uint32_t failed;
    uint32_t skipped;          /* cases of unclaimed types (unsupported) */
    double worst_budget;       /* worst budget_used among passing and failing cases */
    char worst_case[128];
    bool manifest_ok;
    char note[256];            /* why the op failed as a whole, e.g. a manifest shortfall */
} conf_op_summary;

/* One cache-stability scenario (ABI stats). */
typedef struct conf_cache_scenario {
    char name[96];
    uint64_t compiles;
    uint64_t expected_max;
    bool pass;
    char reason[256];
} conf_cache_scenario;

typedef struct conf_run_options {
    const char *backend;           /* "ref", "runtime" or a path */
    conf_suite suite;
    uint64_t seed;
    uint32_t shard_index, shard_count;
    bool ops_given[PLUMB_OP_COUNT];/* --ops; all false = every op */
    bool ops_filter;
    double timeout_s;              /* per case, seconds */
    uint32_t jobs;                 /* worker processes at once */
    uint32_t limit;                /* run at most this many cases per op (0 = all); the manifest then fails */
    uint32_t batch;                /* cases per worker process; 0 = 64 */
    const char *repro_dir;         /* where reproducers go; NULL = none saved */
    uint32_t max_repros;           /* 0 = 50 */
    bool progress;                 /* progress on stderr */
    bool cache_suite;              /* run the cache-stability scenarios */
    const plumb_backend_option *options;
    size_t n_options;
} conf_run_options;

void conf_run_options_init(conf_run_options *o);

typedef struct conf_run {
    conf_backend backend;
    conf_run_options opts;
    conf_op_summary ops[PLUMB_OP_COUNT];
    bool op_in_run[PLUMB_OP_COUNT];
    conf_case_result *cases;       /* every case run or failed, in order */
    uint32_t n_cases, cap_cases;
    conf_cache_scenario cache[16];
    uint32_t n_cache;
    uint64_t passed, failed, skipped;
    uint64_t digest[2];            /* XXH3-128 over the verdicts */
    double seconds;                /* wall time of the run */
    bool ok;                       /* every claimed case passed, manifest met */
} conf_run;

/* Runs a certification. Returns false (d set) only when it could not run at
 * all (the backend could not be loaded or was rejected); failures of cases
 * are in run->ok and the counts. Free with conf_run_free. */
bool conf_run_certify(const conf_run_options *o, conf_run *run, plumb_diag *d);
void conf_run_free(conf_run *run);

/* ---- reports ----------------------------------------------------------------- */
void conf_report_text(plumb_buf *b, const conf_run *run);
void conf_report_json(plumb_buf *b, const conf_run *run);
void conf_report_junit(plumb_buf *b, const conf_run *run);
/* "certify: N passed, N failed, N skipped" (no newline). */
void conf_report_last_line(plumb_buf *b, const conf_run *run);

#endif
