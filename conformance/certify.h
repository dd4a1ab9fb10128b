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
    uint64_t max_bytes;        /* largest output accepted from the backend; 0 = plumb_max_bytes(0) */
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
/* The same for a table of ABI 1.abi_minor: element-type bits the minor does
 * not define (1.3's complex, FP8/FP6/FP4 and sub-byte bits in a 1.2 table)
 * are rejected, naming the version. conf_caps_translate assumes the
 * current minor. */
bool conf_caps_translate_minor(const plumb_backend_capabilities *c, uint32_t abi_minor, const char *where,
                               conf_caps *out, plumb_diag *d);

/* ABI 1.2's optional explain: whether the table has it (a 1.0/1.1 table or a
 * NULL pointer: "no explanations"), and why the instance's last compile call
 * built a program, copied into text/json (empty when the backend says
 * nothing or has no explain). False (d set) when the call failed. */
bool conf_backend_has_explain(const conf_backend *b);
bool conf_backend_explain(conf_backend *b, char *text, size_t tcap, char *json, size_t jcap, plumb_diag *d);

/* Creates a fresh instance (destroying any previous one): the runner does
 * this in every worker process, never sharing an instance across fork. */
bool conf_backend_instance(conf_backend *b, const plumb_backend_option *options, size_t n_options,
                           plumb_diag *d);
/* Destroys the instance, if any (b->inst is NULL afterwards). A worker does
 * this before it forks: the instance's threads do not come along, and a
 * lock one of them holds at that moment would never be released in the
 * child. */
bool conf_backend_instance_drop(conf_backend *b, plumb_diag *d);

/* The name of a polymorphic-shape capability ("none", "per-shape",
 * "bounded"), as reports and baselines print it. */
const char *conf_poly_name(plumb_backend_poly p);
/* Writes all n bytes to fd, retrying on EINTR: a worker's records to the
 * runner and a child's answer to its parent. */
bool conf_write_all(int fd, const void *p, size_t n);

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

/* The declared accumulators of the FP8/FP6/FP4 formats as one line of
 * text for the certificate, naming each format summed in itself (whose
 * data bound is void for long sums) as a limitation. */
void conf_caps_small_accum_text(const conf_caps *c, char *out, size_t cap);

/* The check options for cases of dtype t under the declared capabilities. */
void conf_caps_check_opts(const conf_caps *c, plumb_dtype t, conf_check_opts *o);

/* ---- isolation: a plugin never runs in the process that gives the verdict ----
 * (docs/abi.md, "Isolation"). conf_backend_open probes a plugin's table and
 * capabilities in a child process; the runner's workers and
 * conf_backend_run_isolated call it in children too; the parent only reads
 * what a child sent back, and a child that dies, exits or hangs is reported
 * with the plugin call it was in. */

/* Longest strings read from a backend, NUL included: an unterminated or
 * longer string is rejected, never read past these bounds. */
#define CONF_BK_DTYPE_MAX 16       /* a buffer's dtype ("bf16", "ui64", ...) */
#define CONF_BK_NAME_MAX 128       /* op names in capabilities */
#define CONF_BK_MESSAGE_MAX 1000   /* an error's message */

/* A page shared between a parent and one child: the child notes the plugin
 * call in progress in it, so the parent can name the call a child died in. */
typedef struct conf_guard {
    char call[64];
} conf_guard;

conf_guard *conf_guard_new(void);          /* NULL when no page could be mapped */
void conf_guard_free(conf_guard *g);       /* NULL-able */
/* First thing in every child that calls a plugin: default signal handling
 * (a crash must kill the child, not reach a handler the parent installed),
 * standard output into an unlinked scratch file (a plugin call that prints
 * to it fails, naming the call, and the parent's stdout stays the
 * report's), and calls noted in g (NULL-able). */
void conf_guard_child(conf_guard *g);
/* Describes how a child ended from its wait status and g: e.g. "exited with
 * status 0 in capabilities", "died of signal 11 (Segmentation fault) in
 * execute". */
void conf_guard_describe(const conf_guard *g, int status, char *buf, size_t cap);
/* Notes in this child's guard that a plugin call starts (NULL: it
 * returned), for callers of a plugin's table outside plugin.c. A no-op in
 * a process without a guard. */
void conf_guard_note(const char *call);
/* Runs fn(arg) in a child process under a guard (conf_guard_child) and
 * copies the answer the child writes into answer (exactly size bytes, by
 * calling conf_guard_answer); false with why set ("exited with status 0 in
 * create") when the child ended without answering. */
bool conf_guard_run(void (*fn)(void *arg), void *arg, void *answer, size_t size, char *why, size_t why_cap);
/* In fn: sends the answer and ends the child. */
void conf_guard_answer(const void *answer, size_t size) __attribute__((noreturn));

/* True when spec names a shared library rather than a built-in backend. */
bool conf_backend_is_path(const char *spec);

/* conf_backend_open with a limit on how long the plugin's probe may take
 * (conf_backend_open allows 60 s). */
bool conf_backend_open_timeout(const char *spec, const plumb_backend_option *options, size_t n_options,
                               double timeout_s, conf_backend *b, plumb_diag *d);

/* Runs program's function entry (NULL = "main") on the backend spec in a
 * child process and copies the results back (*outs has *n_outs tensors;
 * free with conf_tensors_free). Each result must have the type the program
 * declares and at most max_bytes (0 = plumb_max_bytes(0)) bytes, checked
 * before anything is allocated for it. A child that dies, exits or runs
 * past timeout_s (0 = no limit) fails with the call it was in. */
bool conf_backend_run_isolated(const char *spec, const plumb_backend_option *options, size_t n_options,
                               const char *program, const char *entry, plumb_tensor *const *inputs,
                               uint32_t n_inputs, double timeout_s, uint64_t max_bytes, plumb_tensor ***outs,
                               uint32_t *n_outs, plumb_diag *d);

/* ---- failure detail (conformance/describe.c) ------------------------------- */

/* "0x3f800000 (1)" for floats, the decimal value for integers. */
void conf_describe_value(plumb_dtype t, const void *data, uint64_t i, char *buf, size_t cap);
/* The multi-dimensional index of flat element i of a tensor shaped like t:
 * "[3,1]" ("[]" for a scalar). */
void conf_describe_index(const plumb_tensor *t, uint64_t i, char *buf, size_t cap);
/* For an elementwise op: the inputs that produced flat element i of out,
 * as "%arg0=0x3f000000 (0.5), %arg1=..." (names NULL = %argK); an input
 * shaped like out gives its element i, a scalar its only element. Writes ""
 * and returns false when some input has another shape (its element cannot
 * be read off the index). */
bool conf_describe_inputs(plumb_tensor *const *inputs, uint32_t n_inputs, const char *const *names,
                          const plumb_tensor *out, uint64_t i, char *buf, size_t cap);
/* The same for v, a value of f computed by an elementwise op whose
 * operands are parameters of f (ins holds their values) or broadcast_in_dim
 * of them: "%x=0x3f000000 (0.5), ..." by the parameters' names; false when
 * some operand is computed otherwise. */
bool conf_describe_op_inputs(const ir_func *f, const ir_value *v, plumb_tensor *const *ins,
                             const plumb_tensor *out, uint64_t i, char *buf, size_t cap);
/* Rewrites a checker reason "output K element N: ..." for case c into
 * "output K element N at [i,j]: ...; inputs %x=..., ..." (inputs only when
 * c's op is elementwise: named as in c's program when the result is that op
 * on parameters or their broadcasts, else %argK for inputs shaped like the
 * result); other reasons are left as they are. */
void conf_describe_reason(const conf_case *c, plumb_tensor *const *got, uint32_t n_got, uint32_t out,
                          uint64_t index, char *reason, size_t cap);

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
    /* --retry and --baseline (conformance/baseline.c): */
    uint32_t attempts;         /* runs of the case (1 + retries) */
    bool flaky;                /* crashed or timed out, then passed on a retry */
    bool excused;              /* failed, and listed in the baseline */
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
    uint32_t skipped_poly;     /* of skipped: polymorphic cases of claimed types (claim "none") */
    double worst_budget;       /* worst budget_used among passing and failing cases */
    char worst_case[128];
    bool manifest_ok;
    char note[256];            /* why the op failed as a whole, e.g. a manifest shortfall */
} conf_op_summary;

/* One cache-stability scenario (ABI stats). */
typedef struct conf_cache_scenario {
    char name[96];
    uint64_t compiles;
    uint64_t expected_min;     /* the cache suite expects between these many (equal for */
    uint64_t expected_max;     /* every scenario but a per-shape backend's polymorphic one) */
    uint64_t calls;            /* compile calls the scenario made (in memory only, not in reports) */
    uint32_t runs;             /* executions planned (polymorphic scenarios; else 0) */
    uint32_t distinct;         /* distinct shapes among them (polymorphic scenarios; else 0) */
    bool pass;
    char note[160];            /* what the count certifies, e.g. "certified on refined (static) programs" */
    char reason[256];
    /* The backend's reasons for its builds (ABI 1.2 explain), one line per
     * build "step N: why", cut with a count of the lines left out; empty
     * when it built nothing or has no explain (run->backend: see
     * conf_backend_has_explain). */
    uint32_t builds_explained; /* builds the backend gave a reason for */
    char explain[1024];
} conf_cache_scenario;

/* A cache scenario that was not run, and why ("ops not selected: ...",
 * "the backend does not claim ..."): reported, never dropped silently. */
typedef struct conf_cache_not_run {
    char name[96];
    char reason[200];
} conf_cache_not_run;

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
    /* --case / --rerun-failures: only these case ids run (NULL = all);
     * every id must name a case of the suite (conf_suite_ids_known). */
    const char *const *case_ids;
    uint32_t n_case_ids;
    uint32_t retry;                /* reruns of a crashed or timed-out case */
    uint64_t max_bytes;            /* largest output accepted from the backend, checked
                                    * before it is copied (0 = PLUMB_MAX_BYTES or 16 GiB) */
    /* Where the cache suite finds the seed scenarios' programs (scenarios/
     * of the source tree, docs/scenarios.md); NULL = $PLUMB_SCENARIOS_DIR,
     * else ./scenarios. */
    const char *scenarios_dir;
    /* Compile contract the cache suite's scenarios are gated on (each
     * scenario one run of a model: docs/contracts.md); NULL = none. */
    const char *contract_file;
    /* How many processes the runner forks (conformance/runner.c): false,
     * a worker per batch of one element type and one case in 16 rerun in a
     * process of its own; true, batches that mix an op's element types and
     * one such rerun per batch (its last case). conf_run_options_init sets
     * it in sanitized builds, where a fork costs ~20 ms (docs/ci.md). */
    bool few_forks;
} conf_run_options;

void conf_run_options_init(conf_run_options *o);

typedef struct conf_run {
    conf_backend backend;
    conf_run_options opts;
    conf_op_summary ops[PLUMB_OP_COUNT];
    bool op_in_run[PLUMB_OP_COUNT];
    conf_case_result *cases;       /* every case run or failed, in order */
    uint32_t n_cases, cap_cases;
    conf_cache_scenario cache[32];
    uint32_t n_cache;
    conf_cache_not_run cache_not_run[32];
    uint32_t n_cache_not_run;
    /* Set by the cache suite (or read back from a report's null
     * "explanations"): the backend's table has no explain (ABI 1.2), so
     * its builds come without reasons. */
    bool no_explain;
    uint64_t passed, failed, skipped;
    uint64_t skipped_poly;         /* of skipped: polymorphic cases of claimed types (claim "none") */
    uint64_t digest[2];            /* XXH3-128 over the verdicts */
    double seconds;                /* wall time of the run */
    bool ok;                       /* every claimed case passed, manifest met */
    /* Scope, retries and the baseline (conformance/baseline.c): */
    int64_t started;               /* wall-clock start, seconds since the epoch */
    uint32_t n_flaky;              /* cases that passed only on a retry */
    const struct conf_baseline *baseline; /* NULL = none */
    uint32_t n_excused;            /* failures the baseline lists */
    char (*fixed)[128];            /* baseline entries that ran and passed */
    uint32_t n_fixed;
    plumb_arena *arena;            /* strings of a report read back (conf_report_load) */
} conf_run;

/* ---- one case, protected and repeated (conformance/runner.c) ----------------
 * The backend gets copies of the case's inputs, compared with the originals
 * afterwards ("modified input N: ..." names the first changed element); the
 * reference checks on the untouched originals. A backend that declares
 * determinism runs the case again on fresh copies and must give the same
 * bits ("not deterministic: ..."); with isolated set, also once more on a
 * fresh instance in a process of its own. */
typedef struct conf_case_verdict {
    conf_status status;
    double budget_used;
    char reason[480];
} conf_case_verdict;

typedef struct conf_repeat {
    bool repeat;                   /* run twice in this instance, compare bitwise */
    bool isolated;                 /* and once in a separate process */
    const plumb_backend_option *options;   /* for the separate process's instance */
    size_t n_options;
    double timeout_s;              /* the separate process's limit */
} conf_repeat;

/* check_program (NULL = the case's) is what the reference runs; rep NULL =
 * one run. */
void conf_run_case(conf_backend *b, const conf_case *c, const char *check_program, const conf_repeat *rep,
                   conf_case_verdict *v);
/* In a worker process (its guard set): reports the exit of a child. */
void conf_run_describe_exit(int status, const conf_guard *g, char *buf, size_t cap);

/* ---- the cache suite (conformance/cache_suite.c) ------------------------------
 * Scenarios of compile calls on a cold instance each, in one worker
 * process; fills run->cache (name, compiles, the exact count expected,
 * verdict, the backend's reasons for each build). Besides its own scenarios
 * it runs the seed recompile scenarios of scenarios/ (leak and fix of each,
 * docs/scenarios.md). Scenarios that need ops the backend does not claim or,
 * with --ops, ops not selected are listed in run->cache_not_run with why. */
void conf_cache_suite(conf_run *run);

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

/* ---- scope, digest, baselines, retries, reports read back, merge
 * (conformance/baseline.c, conformance/merge.c) -------------------------- */

/* True when the run covered the whole suite: no --ops, --limit, --shard or
 * --case. Only such a run can be a certificate. */
bool conf_run_complete(const conf_run *run);
/* What a partial run covered, e.g. "ops: add,negate; limit 2; shard 1/4"
 * ("" for a complete run). */
void conf_run_scope_text(plumb_buf *b, const conf_run *run);
/* Certified: complete, and run->ok. */
bool conf_run_certified(const conf_run *run);
/* The capabilities in canonical text (claims per op, shapes, subnormals,
 * NaN payloads, determinism, accumulators): what the digest covers and what
 * merge compares across shards. */
void conf_caps_text(plumb_buf *b, const conf_caps *c);
/* Sorts run->cases by (op, id) and sets run->digest: XXH3-128 over the
 * backend's name and version, suite, seed, scope without the shard,
 * capabilities, then every case's id, status and budget in that order and
 * the cache scenarios. The shard is left out so that the shards of a run,
 * merged, have the digest of the unsharded run. */
void conf_run_digest(conf_run *run);
/* Sets run->ok from the counts, manifests, cache scenarios and the
 * baseline (excused failures and flaky cases do not fail). */
void conf_run_judge(conf_run *run);
/* Reruns every crashed or timed-out case up to run->opts.retry times; one
 * that then passes becomes a pass marked flaky. */
bool conf_run_retry(conf_run *run, plumb_diag *d);

/* The op a case id names ("add/f32/one/special/0" -> stablehlo.add). */
bool conf_case_id_op(const char *id, plumb_opcode *op);

/* Every case id of a suite and seed, generated per op on first use. */
typedef struct conf_suite_ids {
    conf_suite suite;
    uint64_t seed;
    bool have[PLUMB_OP_COUNT];
    char (*ids[PLUMB_OP_COUNT])[128];  /* sorted */
    uint32_t n[PLUMB_OP_COUNT];
} conf_suite_ids;

void conf_suite_ids_init(conf_suite_ids *s, conf_suite suite, uint64_t seed);
void conf_suite_ids_free(conf_suite_ids *s);
/* 1: id is a case of the suite; 0: it is not, and suggest holds up to
 * three nearest ids ("" when none is near); -1: cases could not be
 * generated (d set). */
int conf_suite_ids_known(conf_suite_ids *s, const char *id, char *suggest, size_t cap, plumb_diag *d);

/* A baseline: known failures, one case id a line, '#' comments. Optional
 * header comments "# suite: quick|full" and "# seed: N" must match the run. */
typedef struct conf_baseline {
    char path[512];
    char (*ids)[128];                  /* sorted */
    uint32_t n, cap;
} conf_baseline;

/* Loads and checks a baseline against the suite and seed: a missing,
 * empty or truncated file (no final newline), a malformed or duplicate
 * line, another suite or seed, or an id that names no case is an error
 * naming the file (and line). */
bool conf_baseline_load(const char *path, conf_suite suite, uint64_t seed, conf_baseline *b, plumb_diag *d);
void conf_baseline_free(conf_baseline *b);
bool conf_baseline_has(const conf_baseline *b, const char *id);
/* Marks failures the baseline lists as excused, lists entries that ran and
 * passed in run->fixed, and judges the run again. */
bool conf_baseline_apply(conf_run *run, const conf_baseline *b);

/* Reads a JSON report written by conf_report_json back into run (no
 * backend is loaded: run->backend has the name, version, location and
 * capabilities). Checks the format, the counts against the case records
 * and the stored digest against the records; errors name the file. */
bool conf_report_load(const char *path, conf_run *run, plumb_diag *d);
/* Combines the reports of every shard of one run into run, as if it had
 * run unsharded. Fails (d names the file) when a shard is missing or given
 * twice, or when reports disagree on backend, capabilities, suite, seed or
 * scope. */
bool conf_report_merge(const char *const *paths, uint32_t n, conf_run *run, plumb_diag *d);
/* The verdict line: "CERTIFIED: ...", "CERTIFIED WITH BASELINE (...)",
 * "NOT CERTIFIED" or "PARTIAL (scope) - not a certificate: ..." (no newline). */
void conf_report_verdict(plumb_buf *b, const conf_run *run);

#endif
