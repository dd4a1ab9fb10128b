/* plumb run: run a program's entry function on the reference interpreter,
 * the compiled runtime or a backend plugin, or compare one of the latter
 * two with the reference (--compare). A plugin runs in a child process
 * through the ABI (conf_backend_run_isolated): whatever it does, this
 * process prints the verdict. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../conformance/certify.h"
#include "cli.h"
#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "run_session.h"

static const char run_help[] =
    "usage: plumb run [OPTIONS] FILE [FILE...]\n"
    "\n"
    "Parses and verifies FILE (StableHLO text; '-' reads standard input), runs\n"
    "its entry function and prints each result as\n"
    "  tensor<...> dense<...>\n"
    "with floats in their shortest round-trip decimal form and the result's\n"
    "actual shape (a '?' dimension of the entry's type is printed with the\n"
    "size the run gave it). Check ops in the\n"
    "program (check.expect_eq, expect_close, expect_almost_eq and their _const\n"
    "forms) are run as they are reached; a failing check prints its first\n"
    "mismatching elements on standard error and the run goes on. A failing\n"
    "check of a value computed by a float dot_general, dot or reduce with an\n"
    "add body is arbitrated: the exact result is computed and each mismatch\n"
    "says how far the expected value and the backend's value are from it; an\n"
    "element within the op's error bound of the exact result whose expected\n"
    "value is further from it is accepted, with a note on standard error\n"
    "(docs/spec/checks.md, \"Arbitration\").\n"
    "\n"
    "options:\n"
    "      --backend NAME      backend to run on: 'ref' (the reference\n"
    "                          interpreter, the default), 'runtime' (the\n"
    "                          compiled runtime), or the path of a backend\n"
    "                          plugin (anything with a '/' or ending in .so,\n"
    "                          docs/abi.md), run in a child process: a plugin\n"
    "                          that crashes, exits or hangs fails the run\n"
    "                          (exit 1) with the plugin call it was in\n"
    "      --compare           run on the reference and on the runtime (or the\n"
    "                          --backend plugin) and report, per result, the\n"
    "                          worst error as a fraction of the bound the op\n"
    "                          table allows (docs/runtime.md; a sum over a '?'\n"
    "                          dimension counts its bound), after checking that\n"
    "                          both gave the same shape, and for a result\n"
    "                          outside it the element's index, got and want,\n"
    "                          and (elementwise ops on parameters) its inputs;\n"
    "                          exit 1 if any result is outside its bound\n"
    "      --no-arbitrate      accept no element by arbitration (the same as\n"
    "                          PLUMB_ARBITRATE=0): the check fails as written\n"
    "      --threads N         runtime worker threads (default: online cores);\n"
    "                          results are identical for every N\n"
    "      --entry NAME        function to run (default: main, else the only\n"
    "                          public function)\n"
    "      --input NAME=FILE   tensor file for the parameter NAME: its SSA name\n"
    "                          without '%' (e.g. arg0) or its index (0, 1, ...);\n"
    "                          binary or text tensor files. Repeat for each\n"
    "                          parameter; every parameter needs one, or\n"
    "                          --random-inputs. A file's own shape is used: a\n"
    "                          '?' dimension takes any size within its bound\n"
    "      --random-inputs [SEED]\n"
    "                          parameters without --input get generated values\n"
    "                          (k/8 for |k| <= 16, small integers, booleans) from\n"
    "                          SEED (--random-inputs=SEED, or the next argument\n"
    "                          when it is a decimal number; default 0),\n"
    "                          different on each run of a session. A '?'\n"
    "                          dimension gets the --shape or --dim-size size,\n"
    "                          else its bound, else 3. Every integer scalar\n"
    "                          parameter before the first parameter with a '?'\n"
    "                          dimension is a dimension size (as JAX's\n"
    "                          shape-polymorphic exports pass them): the k-th\n"
    "                          gets the size of the k-th '?' dimension in\n"
    "                          parameter order, those beyond the count the\n"
    "                          --dim-size value (else 3)\n"
    "      --dim-size N[,N...] the size of every generated '?' dimension (each\n"
    "                          within its bound); with several sizes, run r of a\n"
    "                          session (--repeat or several FILEs) uses the\n"
    "                          (r mod count)-th\n"
    "      --shape NAME=DIMS   the shape of the generated parameter NAME (as for\n"
    "                          --input), sizes joined by 'x' (e.g. arg1=4x128);\n"
    "                          static dimensions must match and '?' ones be\n"
    "                          within their bound. Repeat for each parameter\n"
    "      --output-dir DIR    also write result i to DIR/result_<i>.tensor\n"
    "                          (binary tensor file); DIR and its parents are\n"
    "                          created when missing\n"
    "      --hex               print results as raw dense<\"0x...\"> bytes\n"
    "      --timeout SECONDS   stop the run after SECONDS of wall-clock time (a\n"
    "                          plugin's process is killed)\n"
    "      --max-bytes N       largest byte size allowed for one tensor; N may\n"
    "                          end in K, M, G (powers of 1000) or Ki, Mi, Gi\n"
    "                          (powers of 1024). Default: $PLUMB_MAX_BYTES, else 16Gi\n"
    "      --split-input-file  FILE holds many test cases separated by lines\n"
    "                          '// -----' (as StableHLO's tests/interpret):\n"
    "                          run each as its own module, print one line per\n"
    "                          case 'FILE:LINE: case N @NAME: ok', 'FAILED: why'\n"
    "                          or 'unsupported: why' and a last line 'N passed,\n"
    "                          N failed, N unsupported'; a malformed case fails\n"
    "                          alone. Implied by a '// RUN:' line that contains\n"
    "                          -split-input-file. Unsupported cases (op or type\n"
    "                          outside plumb's op set) do not fail the run\n"
    "\n"
    "several programs through one runtime (--backend runtime; implied by the\n"
    "options below or by more than one FILE): every FILE, --repeat times over,\n"
    "is compiled and run by ONE compiled runtime, as a training loop calls a\n"
    "model again and again; a program seen before is a cache hit, a new one\n"
    "a compile, and an entry's compile after its first a recompile. Results\n"
    "go to standard output (each run headed '// FILE (run N)' when there are\n"
    "several), explanations and statistics to standard error:\n"
    "      --repeat N          run the list of FILEs N times (default 1)\n"
    "      --stats             at the end, per module and entry and in total:\n"
    "                          programs, compiles, recompiles, cache hits, disk\n"
    "                          hits, disk rejects and evictions, runs, compile\n"
    "                          and execute time; then each entry's summary with\n"
    "                          the causes of its recompiles, most frequent first\n"
    "      --explain           print each recompile's explanation: every\n"
    "                          difference from the nearest cached program,\n"
    "                          grouped by cause, with its source location\n"
    "      --json              --stats and --explain as one JSON object per line\n"
    "      --max-compiles N    refuse a module's entry more than N programs built\n"
    "                          in this run (exit 1 with the explanation); disk\n"
    "                          cache hits (PLUMB_CACHE_DIR) are not compiles\n"
    "      --error-on-recompile\n"
    "                          refuse any recompile (exit 1 with the explanation)\n"
    "      --contract FILE     compile contract (docs/contracts.md; default\n"
    "                          $PLUMB_CONTRACT): per module and entry max-programs,\n"
    "                          variants, warmup-runs; a compile it forbids, or a\n"
    "                          rule no entry matched, exits 1 naming FILE:LINE and\n"
    "                          the explanation; a contract that does not parse or\n"
    "                          contradicts itself exits 2\n"
    "      --policy P[,P]      canonicalization policies of the compiled runtime\n"
    "                          (docs/policies.md; default $PLUMB_POLICY): 'lift'\n"
    "                          makes float scalar/splat constants hidden parameters\n"
    "                          (a baked learning rate compiles once, same bits),\n"
    "                          'lift-int' integer ones too, 'none'\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit codes:\n"
    "  0  the program ran and every check passed\n"
    "  1  the program is invalid, a check failed (the failing checks are named\n"
    "     in the last lines of standard error), the run failed (timeout,\n"
    "     memory limit, a plugin's error, crash or exit), or --compare found a\n"
    "     result outside its bound\n"
    "  2  usage error, an unreadable program or input, inputs that do not\n"
    "     match the entry's parameters (count, type, a static dimension, a '?'\n"
    "     dimension above its bound: the error names the parameter and the\n"
    "     dimension), or an output that cannot be written\n";

enum { OPT_HELP = 1, OPT_BACKEND, OPT_ENTRY, OPT_INPUT, OPT_OUTPUT_DIR, OPT_HEX,
       OPT_TIMEOUT, OPT_MAX_BYTES, OPT_COMPARE, OPT_THREADS, OPT_SPLIT,
       OPT_REPEAT, OPT_RANDOM_INPUTS, OPT_STATS, OPT_EXPLAIN, OPT_JSON, OPT_MAX_COMPILES,
       OPT_ERROR_ON_RECOMPILE, OPT_CONTRACT, OPT_DIM_SIZE, OPT_SHAPE, OPT_NO_ARBITRATE, OPT_POLICY };

static const cli_opt run_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"backend", 0, true, OPT_BACKEND},
    {"entry", 0, true, OPT_ENTRY},
    {"input", 0, true, OPT_INPUT},
    {"output-dir", 0, true, OPT_OUTPUT_DIR},
    {"hex", 0, false, OPT_HEX},
    {"timeout", 0, true, OPT_TIMEOUT},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {"compare", 0, false, OPT_COMPARE},
    {"threads", 0, true, OPT_THREADS},
    {"split-input-file", 0, false, OPT_SPLIT},
    {"repeat", 0, true, OPT_REPEAT},
    {"random-inputs", 0, false, OPT_RANDOM_INPUTS},
    {"stats", 0, false, OPT_STATS},
    {"explain", 0, false, OPT_EXPLAIN},
    {"json", 0, false, OPT_JSON},
    {"max-compiles", 0, true, OPT_MAX_COMPILES},
    {"error-on-recompile", 0, false, OPT_ERROR_ON_RECOMPILE},
    {"contract", 0, true, OPT_CONTRACT},
    {"policy", 0, true, OPT_POLICY},
    {"dim-size", 0, true, OPT_DIM_SIZE},
    {"shape", 0, true, OPT_SHAPE},
    {"no-arbitrate", 0, false, OPT_NO_ARBITRATE},
    {NULL, 0, false, 0},
};

typedef struct run_state {
    const char *cmd;
    const char *file;
    const char *backend;
    const char *entry;
    const char **inputs;      /* "NAME=FILE" as given */
    int n_inputs;
    const char *output_dir;
    bool hex;
    double timeout_s;
    uint64_t max_bytes;
    bool compare;
    uint32_t threads;         /* 0 = online cores */
    bool split;               /* --split-input-file */
    cli_gen_opts gen;         /* --random-inputs, --dim-size, --shape */
} run_state;

/* Loads every --input into ins[param index], generates the others with
 * --random-inputs and checks them all against the parameter types;
 * returns an exit code. */
static int load_inputs(const run_state *s, const char *name, const ir_func *f, plumb_tensor **ins)
{
    for (int k = 0; k < s->n_inputs; k++) {
        const char *arg = s->inputs[k];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return cli_usage_error(s->cmd, "--input '%s' is not NAME=FILE", arg);
        int p = cli_find_param(f, arg, (size_t)(eq - arg));
        if (p < 0)
            return cli_no_such_param(s->cmd, "--input", arg, f, (size_t)(eq - arg));
        if (ins[p]) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, (uint32_t)p);
            return cli_usage_error(s->cmd, "--input '%s': parameter %s was already given", arg, pn);
        }
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[p] = plumb_tensor_load(eq + 1, s->max_bytes, &d))) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
    }
    if (s->gen.random) {
        int rc = cli_gen_inputs(s->cmd, &s->gen, f, 0, s->max_bytes, ins);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        if (!ins[i]) {
            char pn[128], ts[256];
            cli_param_name(pn, sizeof pn, f, i);
            plumb_buf b;
            plumb_buf_init(&b);
            ir_type_print(&b, &f->body.args[i]->type);
            snprintf(ts, sizeof ts, "%s", b.data && !b.failed ? b.data : "?");
            plumb_buf_free(&b);
            return cli_usage_error(s->cmd, "no --input for parameter %s of @%s, of type %s (or use --random-inputs)",
                                   pn, f->name, ts);
        }
    }
    return cli_check_inputs(s->cmd, name, f, ins, f->body.n_args);
}

/* Prints each result on stdout and writes the --output-dir files. */
static int emit_results(const run_state *s, const plumb_ref_result *res)
{
    if (s->output_dir) {
        plumb_diag md = {.code = PLUMB_OK};
        if (!cli_mkdir_p(s->output_dir, &md)) {
            cli_print_diag(s->cmd, &md);
            return CLI_EXIT_USAGE;
        }
    }
    for (uint32_t i = 0; i < res->n_outputs; i++) {
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_tensor_type_print(&b, res->outputs[i]);
        plumb_buf_puts(&b, " ");
        plumb_dense_print(&b, res->outputs[i], s->hex);
        plumb_buf_puts(&b, "\n");
        plumb_diag d = {.code = PLUMB_OK};
        bool ok = !b.failed && cli_write_stdout(b.data, b.len, &d);
        if (b.failed)
            plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing result %u", i);
        plumb_buf_free(&b);
        if (!ok) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
        if (s->output_dir) {
            char path[4096];
            int n = snprintf(path, sizeof path, "%s/result_%u.tensor", s->output_dir, i);
            if (n < 0 || (size_t)n >= sizeof path)
                return cli_usage_error(s->cmd, "--output-dir '%s' is too long", s->output_dir);
            if (!plumb_tensor_save(path, res->outputs[i], false, &d)) {
                cli_print_diag(s->cmd, &d);
                return CLI_EXIT_USAGE;
            }
        }
    }
    return CLI_EXIT_OK;
}

/* Copies the check log to stderr and prints, last, which checks failed. */
static void report_checks(const run_state *s, FILE *log, const plumb_ref_result *res)
{
    if (log && log != stderr) {
        rewind(log);
        char line[4096];
        while (fgets(line, sizeof line, log))
            fputs(line, stderr);
    }
    if (!res->checks_failed)
        return;
    if (res->checks_run)
        fprintf(stderr, "plumb %s: %u of %u checks failed:\n", s->cmd, res->checks_failed, res->checks_run);
    else
        fprintf(stderr, "plumb %s: %u checks failed:\n", s->cmd, res->checks_failed);
    if (log && log != stderr) {
        rewind(log);
        char line[4096];
        while (fgets(line, sizeof line, log))
            if (strstr(line, "check failed: ") && line[0] != ' ')
                fprintf(stderr, "  %s", line);
    }
}

/* ---- the runtime and --compare ------------------------------------------------- */

/* Runs the entry on the compiled runtime; res gets the results and the
 * failed-check count (the runtime does not count passing checks, so
 * checks_run stays 0). */
static bool run_runtime(const run_state *s, const ir_module *m, const char *entry, plumb_tensor *const *ins,
                        uint32_t n_ins, FILE *log, plumb_ref_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = s->threads;
    o.max_bytes = s->max_bytes;
    o.timeout_s = s->timeout_s;
    o.log = log;
    plumb_runtime *rt = plumb_runtime_create(&o, d);
    if (!rt)
        return false;
    plumb_executable *ex = plumb_runtime_compile(rt, m, entry, d);
    bool ok = ex != NULL;
    uint32_t n = ok ? plumb_executable_num_outputs(ex) : 0;
    if (ok && n && !(res->outputs = plumb_calloc(n, sizeof *res->outputs))) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory preparing the results");
        ok = false;
    }
    uint32_t failed = 0;
    if (ok && (ok = plumb_executable_run(ex, ins, n_ins, res->outputs, n, &failed, d)))
        res->n_outputs = n;
    else if (res->outputs) {
        plumb_free(res->outputs, n * sizeof *res->outputs);
        res->outputs = NULL;
    }
    res->checks_failed = failed;
    /* The runtime compiles its own copy of the module, so a diagnostic may
     * name that copy's file string, which dies with the runtime: point it
     * at the caller's module, which names the same file. */
    if (d->code != PLUMB_OK && d->file)
        d->file = m->filename;
    plumb_runtime_destroy(rt);
    return ok;
}

/* Runs the entry on the --backend plugin, in a child process, on plumb's
 * canonical text of the module (what the ABI promises a backend). A plugin
 * reports no checks: res->checks_run and checks_failed stay 0. */
static bool run_plugin(const run_state *s, const ir_module *m, const char *entry, plumb_tensor *const *ins,
                       uint32_t n_ins, plumb_ref_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    plumb_buf text;
    plumb_buf_init(&text);
    ir_print(&text, m);
    if (text.failed || !text.data) {
        plumb_buf_free(&text);
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the program");
        return false;
    }
    plumb_tensor **outs = NULL;
    uint32_t n = 0;
    bool ok = conf_backend_run_isolated(s->backend, NULL, 0, text.data, entry, ins, n_ins, s->timeout_s,
                                        s->max_bytes, &outs, &n, d);
    plumb_buf_free(&text);
    if (ok) {
        res->outputs = outs;
        res->n_outputs = n;
    }
    return ok;
}

/* The backend --compare holds against the reference: the plugin when
 * --backend names one, otherwise the runtime. */
static bool run_other(const run_state *s, const ir_module *m, const char *entry, plumb_tensor *const *ins,
                      uint32_t n_ins, FILE *log, plumb_ref_result *res, plumb_diag *d)
{
    if (conf_backend_is_path(s->backend))
        return run_plugin(s, m, entry, ins, n_ins, res, d);
    return run_runtime(s, m, entry, ins, n_ins, log, res, d);
}

/* What a value's computation contains, as bits. */
enum { CONE_ULP = 1, CONE_DATA = 2, CONE_OTHER = 4, CONE_DONE = 0x80 };

static bool body_only_selects(const ir_op *op)
{
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *b = op->regions[r].first; b; b = b->next)
            if (b->code != PLUMB_OP_MAXIMUM && b->code != PLUMB_OP_MINIMUM && b->code != PLUMB_OP_RETURN &&
                b->code != PLUMB_OP_COMPARE && b->code != PLUMB_OP_SELECT && b->code != PLUMB_OP_AND &&
                b->code != PLUMB_OP_OR)
                return false;
    return true;
}

/* The agreement class of one op on its result types. */
static uint8_t op_class(const ir_op *op)
{
    bool flt = op->n_results && plumb_dtype_is_float(op->results[0]->type.dtype);
    switch (op->code) {
    case PLUMB_OP_CALL:
    case PLUMB_OP_SCATTER:
        return CONE_OTHER;
    case PLUMB_OP_REDUCE:
        return flt && !body_only_selects(op) ? CONE_DATA : 0;
    case PLUMB_OP_DOT:
    case PLUMB_OP_DOT_GENERAL:
        return flt ? CONE_DATA : 0;
    default:
        return plumb_op_get(op->code)->agree == PLUMB_AGREE_ULP && flt ? CONE_ULP : 0;
    }
}

static uint8_t cone(const ir_value *v, uint8_t *memo, uint32_t n_ids)
{
    if (!v || v->id >= n_ids)
        return CONE_OTHER;
    if (memo[v->id] & CONE_DONE)
        return memo[v->id] & (uint8_t)~CONE_DONE;
    uint8_t c = 0;
    if (v->def) {
        c = op_class(v->def);
        for (uint32_t i = 0; i < v->def->n_operands; i++)
            c |= cone(v->def->operands[i], memo, n_ids);
    }
    memo[v->id] = c | CONE_DONE;
    return c;
}

/* True when every term below v is an input, a non-negative constant, or
 * moved/converted from them: then running the program on |inputs| gives
 * the sum of |terms| a reduction or dot over v adds up. */
static bool abs_passes_through(const ir_value *v, uint32_t depth)
{
    if (!v->def)
        return true;
    if (depth > 64)
        return false;
    const ir_op *op = v->def;
    if (op->code == PLUMB_OP_CONSTANT) {
        const plumb_tensor *t = op->a.value;
        if (!t)
            return false;
        uint64_t n = plumb_tensor_numel(t);
        for (uint64_t i = 0; i < n; i++)
            if (!(plumb_load_f64(t->dtype, t->data, (size_t)i) >= 0))
                return false;
        return true;
    }
    plumb_opcode c = op->code;
    bool moves = (plumb_op_get(c)->kind == PLUMB_KIND_MOVEMENT && c != PLUMB_OP_IOTA && c != PLUMB_OP_BITCAST_CONVERT) ||
                 c == PLUMB_OP_CONVERT;
    if (!moves)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!abs_passes_through(op->operands[i], depth + 1))
            return false;
    return true;
}

/* The most elements dimension k of t can have: its size, else the bound of
 * a `?`; UINT64_MAX for an unbounded `?`, whose run-time size the program's
 * text does not tell. */
static uint64_t dim_at_most(const ir_type *t, uint32_t k)
{
    if (t->dims[k] != PLUMB_DIM_DYN)
        return (uint64_t)t->dims[k];
    return t->bounds[k] != PLUMB_NO_BOUND ? (uint64_t)t->bounds[k] : UINT64_MAX;
}

static uint64_t mul_terms(uint64_t n, uint64_t k)
{
    uint64_t r;
    return n == UINT64_MAX || k == UINT64_MAX || plumb_mul_overflow_u64(n, k, &r) ? UINT64_MAX : r;
}

/* Terms each element of a reduction or dot adds up (the reduce's init
 * counts as one), at most: a `?` dimension counts as its bound (the error
 * bound only grows with the count, so it stays sound); UINT64_MAX when an
 * unbounded `?` is summed over. */
static uint64_t n_terms(const ir_op *op)
{
    uint64_t n = 1;
    const ir_type *l = &op->operands[0]->type;
    if (op->code == PLUMB_OP_REDUCE) {
        for (uint32_t i = 0; i < op->a.dims.n; i++)
            n = mul_terms(n, dim_at_most(l, (uint32_t)op->a.dims.v[i]));
        return n == UINT64_MAX ? n : n + 1;
    }
    if (op->code == PLUMB_OP_DOT)
        return l->rank ? dim_at_most(l, l->rank - 1) : 1;
    for (uint32_t i = 0; i < op->a.lhs_contract.n; i++)
        n = mul_terms(n, dim_at_most(l, (uint32_t)op->a.lhs_contract.v[i]));
    return n;
}

static double unit_roundoff(plumb_dtype t) { return ldexp(1.0, -(int)plumb_dtype_get(t)->mant_bits - 1); }

typedef struct cmp_out {
    double fraction;   /* worst error / bound; INFINITY = exact op not bit-exact */
    bool bounded;      /* false: composite, reported only */
} cmp_out;

static bool elem_nan(plumb_dtype t, uint64_t b) { return plumb_dtype_is_float(t) && plumb_float_is_nan(t, b); }

/* What the compared results came from: the entry and its inputs (for the
 * inputs of an elementwise result) and the other backend's name. */
typedef struct cmp_ctx {
    const ir_func *f;
    plumb_tensor *const *ins;
    const char *other;
} cmp_ctx;

/* One failing element of result k: its index, got and want, and when v is
 * an elementwise op on the entry's parameters (or their broadcasts), the
 * inputs at that element. */
static void print_element(const cmp_ctx *cx, uint32_t k, const ir_value *v, const plumb_tensor *want,
                          const plumb_tensor *got, uint64_t i)
{
    char where[8 * PLUMB_MAX_RANK + 8], g[64], w[64], in[400] = "";
    conf_describe_index(want, i, where, sizeof where);
    conf_describe_value(got->dtype, got->data, i, g, sizeof g);
    conf_describe_value(want->dtype, want->data, i, w, sizeof w);
    if (!conf_describe_op_inputs(cx->f, v, cx->ins, want, i, in, sizeof in))
        in[0] = 0;
    printf("  result %u at %s: got %s want %s%s%s\n", k, where, g, w, in[0] ? ", inputs " : "", in);
}

/* Compares result k; prints one line, and one more naming the first
 * element outside the bound when there is one. */
static cmp_out compare_result(const cmp_ctx *cx, uint32_t k, const ir_value *v, uint8_t *memo, uint32_t n_ids,
                              const plumb_tensor *want, const plumb_tensor *got, const plumb_tensor *abs_sum)
{
    cmp_out r = {0, true};
    plumb_buf tb;
    plumb_buf_init(&tb);
    plumb_tensor_type_print(&tb, want);
    const char *ts = tb.data && !tb.failed ? tb.data : "?";
    /* Shapes first: with `?` dimensions each backend decides its result's
     * shape at run time, and equal byte counts do not make equal shapes. */
    bool same_shape = want->rank == got->rank;
    for (uint32_t i = 0; same_shape && i < want->rank; i++)
        same_shape = want->dims[i] == got->dims[i];
    if (want->dtype != got->dtype || !same_shape || want->nbytes != got->nbytes) {
        plumb_buf gb;
        plumb_buf_init(&gb);
        plumb_tensor_type_print(&gb, got);
        printf("result %u %s: MISMATCH: %s returned %s\n", k, ts, cx->other,
               gb.data && !gb.failed ? gb.data : "another type");
        plumb_buf_free(&gb);
        plumb_buf_free(&tb);
        r.fraction = INFINITY;
        return r;
    }
    uint64_t n = plumb_tensor_numel(want);
    plumb_dtype t = want->dtype;
    uint8_t c = cone(v, memo, n_ids);
    const ir_op *def = v->def;
    bool ops_exact = true;
    for (uint32_t i = 0; def && i < def->n_operands; i++)
        ops_exact &= cone(def->operands[i], memo, n_ids) == 0;
    uint64_t worst_ulp = 0, bad_at = UINT64_MAX;
    bool nan_mismatch = false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = plumb_load_bits(t, want->data, (size_t)i), b = plumb_load_bits(t, got->data, (size_t)i);
        if (a == b)
            continue;
        if (elem_nan(t, a) && elem_nan(t, b))
            continue;
        if (bad_at == UINT64_MAX)
            bad_at = i;
        if (!plumb_dtype_is_float(t) || elem_nan(t, a) || elem_nan(t, b)) {
            nan_mismatch = true;
            continue;
        }
        uint64_t u = plumb_ulp_distance(t, a, b);
        if (u > worst_ulp)
            worst_ulp = u;
    }
    if (c == 0) {
        if (bad_at == UINT64_MAX) {
            printf("result %u %s: exact: bit-exact (0 of bound)\n", k, ts);
        } else {
            r.fraction = INFINITY;
            printf("result %u %s: exact: MISMATCH at element %llu (bit-exact required)\n", k, ts,
                   (unsigned long long)bad_at);
            print_element(cx, k, v, want, got, bad_at);
        }
    } else if (c == CONE_ULP && def && (op_class(def) & CONE_ULP) && ops_exact) {
        uint32_t bound = plumb_op_ulp_bound(def->code, t);
        r.fraction = nan_mismatch ? INFINITY : bound ? (double)worst_ulp / bound : (worst_ulp ? INFINITY : 0);
        printf("result %u %s: %s ulp(%u): worst %llu ULP, %.3g of bound%s\n", k, ts, plumb_op_name(def->code), bound,
               (unsigned long long)worst_ulp, r.fraction, r.fraction > 1 ? " EXCEEDS" : "");
        for (uint64_t i = 0; r.fraction > 1 && i < n; i++) {
            uint64_t a = plumb_load_bits(t, want->data, (size_t)i), b = plumb_load_bits(t, got->data, (size_t)i);
            if (a == b || (elem_nan(t, a) && elem_nan(t, b)))
                continue;
            if (elem_nan(t, a) || elem_nan(t, b) || plumb_ulp_distance(t, a, b) > bound) {
                print_element(cx, k, v, want, got, i);
                break;
            }
        }
    } else if (c == CONE_DATA && def && (op_class(def) & CONE_DATA) && abs_sum && abs_sum->dtype == t) {
        bool ok_cone = true;
        for (uint32_t i = 0; i < def->n_operands; i++)
            ok_cone &= abs_passes_through(def->operands[i], 0);
        if (ok_cone) {
            plumb_dtype acc = t == PLUMB_F64 ? PLUMB_F64 : PLUMB_F32;
            double u = unit_roundoff(acc), uo = unit_roundoff(t);
            uint64_t terms = n_terms(def);
            if (terms == UINT64_MAX)
                goto composite;   /* summed over an unbounded `?`: no stated bound */
            double nk = terms ? (double)(terms - 1) : 0;
            double gamma = nk * u < 1 ? nk * u / (1 - nk * u) : INFINITY;
            double worst = 0;
            uint64_t worst_at = 0;
            for (uint64_t i = 0; i < n; i++) {
                double a = plumb_load_f64(t, want->data, (size_t)i), b = plumb_load_f64(t, got->data, (size_t)i);
                if (a == b || (isnan(a) && isnan(b)))
                    continue;
                if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
                    if (worst < INFINITY)
                        worst_at = i;
                    worst = INFINITY;
                    continue;
                }
                double bound = gamma * plumb_load_f64(t, abs_sum->data, (size_t)i) + (u + uo) * fabs(a);
                double f = bound > 0 ? fabs(b - a) / bound : INFINITY;
                if (f > worst) {
                    worst = f;
                    worst_at = i;
                }
            }
            r.fraction = worst;
            printf("result %u %s: %s bound(data): %.3g of bound%s\n", k, ts, plumb_op_name(def->code), worst,
                   worst > 1 ? " EXCEEDS" : "");
            if (worst > 1)
                print_element(cx, k, v, want, got, worst_at);
            plumb_buf_free(&tb);
            return r;
        }
        goto composite;
    } else {
    composite:
        r.bounded = false;
        if (bad_at == UINT64_MAX)
            printf("result %u %s: composite: bit-identical to the reference\n", k, ts);
        else if (nan_mismatch)
            printf("result %u %s: composite: NaN or integer mismatch at element %llu (no per-op bound; the "
                   "program's checks decide)\n", k, ts, (unsigned long long)bad_at);
        else
            printf("result %u %s: composite: worst %llu ULP from the reference (no per-op bound; the program's "
                   "checks decide)\n", k, ts, (unsigned long long)worst_ulp);
    }
    plumb_buf_free(&tb);
    return r;
}

/* --compare: both backends, then one line per result. */
static int compare_backends(const run_state *s, const ir_module *m, const ir_func *f, plumb_tensor *const *ins,
                            uint32_t n_ins, FILE *log, const char *name)
{
    plumb_ref_options ro = {
        .struct_size = sizeof ro,
        .max_bytes = s->max_bytes,
        .timeout_s = s->timeout_s,
        .check_log = log ? log : stderr,
        .max_mismatches = 0,
    };
    plumb_ref_result ref, rt, abs_res;
    memset(&abs_res, 0, sizeof abs_res);
    plumb_diag d = {.code = PLUMB_OK};
    if (!plumb_ref_run(m, f->name, ins, n_ins, &ro, &ref, &d)) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        return d.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
    }
    if (!run_other(s, m, f->name, ins, n_ins, log, &rt, &d)) {
        plumb_ref_result_free(&ref);
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        return d.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
    }
    /* Sums of |terms| for reductions and dots: the reference on |inputs|. */
    plumb_tensor **absin = n_ins ? plumb_calloc(n_ins, sizeof *absin) : NULL;
    bool have_abs = !n_ins || absin;
    for (uint32_t i = 0; have_abs && i < n_ins; i++) {
        if (!(absin[i] = plumb_tensor_clone(ins[i], &d))) {
            have_abs = false;
            break;
        }
        if (plumb_dtype_is_float(ins[i]->dtype)) {
            uint64_t sign = 1ull << (plumb_dtype_get(ins[i]->dtype)->bits - 1), cnt = plumb_tensor_numel(ins[i]);
            for (uint64_t j = 0; j < cnt; j++)
                plumb_store_bits(ins[i]->dtype, absin[i]->data, (size_t)j,
                                 plumb_load_bits(ins[i]->dtype, ins[i]->data, (size_t)j) & ~sign);
        }
    }
    FILE *null_log = tmpfile();
    plumb_ref_options ao = ro;
    ao.check_log = null_log ? null_log : log;
    plumb_diag ad = {.code = PLUMB_OK};
    if (have_abs)
        have_abs = plumb_ref_run(m, f->name, absin, n_ins, &ao, &abs_res, &ad);
    if (null_log)
        fclose(null_log);
    for (uint32_t i = 0; absin && i < n_ins; i++)
        plumb_tensor_free(absin[i]);
    plumb_free(absin, n_ins * sizeof *absin);

    uint32_t n_ids = m->next_value_id ? m->next_value_id : 1;
    uint8_t *memo = plumb_calloc(n_ids, 1);
    const ir_op *ret = f->body.last;
    int rc = CLI_EXIT_OK;
    if (!memo || !ret || ret->n_operands != ref.n_outputs || rt.n_outputs != ref.n_outputs) {
        fprintf(stderr, "plumb %s: error: cannot compare the results (out of memory or a malformed return)\n", s->cmd);
        rc = CLI_EXIT_INVALID;
    }
    uint32_t exceeded = 0;
    bool plugin = conf_backend_is_path(s->backend);
    cmp_ctx cx = {f, ins, plugin ? s->backend : "the runtime"};
    for (uint32_t k = 0; rc == CLI_EXIT_OK && k < ref.n_outputs; k++) {
        cmp_out r = compare_result(&cx, k, ret->operands[k], memo, n_ids, ref.outputs[k], rt.outputs[k],
                                   have_abs && k < abs_res.n_outputs ? abs_res.outputs[k] : NULL);
        if (r.bounded && !(r.fraction <= 1))
            exceeded++;
    }
    plumb_free(memo, n_ids);
    report_checks(s, log, &ref);
    if (!plugin && rt.checks_failed != ref.checks_failed)
        fprintf(stderr, "plumb %s: the runtime failed %u checks, the reference %u\n", s->cmd, rt.checks_failed,
                ref.checks_failed);
    if (exceeded)
        fprintf(stderr, "plumb %s: %u of %u results are outside their bound\n", s->cmd, exceeded, ref.n_outputs);
    if (rc == CLI_EXIT_OK && (exceeded || ref.checks_failed || rt.checks_failed))
        rc = CLI_EXIT_INVALID;
    plumb_ref_result_free(&ref);
    plumb_ref_result_free(&rt);
    plumb_ref_result_free(&abs_res);
    return rc;
}

/* The function to run: --entry, else @main, else the module's only public
 * function (StableHLO's interpreter tests name theirs after the case);
 * NULL with *why set when there is none or the choice is ambiguous. */
static const ir_func *find_entry(const run_state *s, const ir_module *m, const char *name, char *why,
                                 size_t why_size)
{
    const char *entry = s->entry ? s->entry : "main";
    const ir_func *f = ir_module_find_func(m, entry);
    if (f || s->entry) {
        if (!f)
            snprintf(why, why_size, "%s has no function @%s (use --entry NAME)", name, entry);
        return f;
    }
    const ir_func *only = NULL;
    uint32_t n_public = 0;
    for (uint32_t i = 0; i < m->n_funcs; i++) {
        if (m->funcs[i]->is_public) {
            only = m->funcs[i];
            n_public++;
        }
    }
    if (n_public == 1)
        return only;
    if (n_public == 0)
        snprintf(why, why_size, "%s has no @main and no public function (use --entry NAME)", name);
    else
        snprintf(why, why_size, "%s has no @main and %u public functions (use --entry NAME)", name,
                 (unsigned)n_public);
    return NULL;
}

/* One line for a case's verdict: the message, with "unsupported: " first
 * when the program is outside the op set, and where it was found. */
static void diag_verdict(const plumb_diag *d, char *why, size_t why_size)
{
    const char *pre = d->code == PLUMB_ERR_UNSUPPORTED && strncmp(d->msg, "unsupported: ", 13) != 0
                          ? "unsupported: " : "";
    if (d->loc.line)
        snprintf(why, why_size, "%s%s (line %u:%u)", pre, d->msg, d->loc.line, d->loc.col);
    else
        snprintf(why, why_size, "%s%s", pre, d->msg);
}

/* Verifies and runs one parsed module (freed here); prints its results and
 * diagnostics. verdict (may be NULL) gets one line saying why the run
 * failed, starting "unsupported: " when the program is outside the op set. */
static int run_module(const run_state *s, ir_module *m, const char *name, char *verdict, size_t verdict_size)
{
    plumb_diag d = {.code = PLUMB_OK};
    char why_buf[1200];
    char *why = verdict ? verdict : why_buf;
    size_t why_size = verdict ? verdict_size : sizeof why_buf;
    why[0] = 0;
    int rc = CLI_EXIT_OK;
    plumb_tensor **ins = NULL;
    uint32_t n_ins = 0;
    FILE *log = NULL;
    ir_verify_options vo = {sizeof vo, s->max_bytes};
    if (!ir_verify(m, &vo, &d)) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        diag_verdict(&d, why, why_size);
        rc = cli_program_exit(d.code);
        goto out;
    }
    const ir_func *f = find_entry(s, m, name, why, why_size);
    if (!f) {
        rc = cli_usage_error(s->cmd, "%s", why);
        goto out;
    }
    const char *entry = f->name;
    n_ins = f->body.n_args;
    if (n_ins && !(ins = plumb_calloc(n_ins, sizeof *ins))) {
        fprintf(stderr, "plumb %s: error: out of memory\n", s->cmd);
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if ((rc = load_inputs(s, name, f, ins)) != CLI_EXIT_OK) {
        snprintf(why, why_size, "the inputs of @%s (see above)", entry);
        goto out;
    }

    /* Checks are described as they fail; the log is kept so that the last
     * lines can name every failing check once the run is over. */
    log = tmpfile();
    plumb_ref_options ro = {
        .struct_size = sizeof ro,
        .max_bytes = s->max_bytes,
        .timeout_s = s->timeout_s,
        .check_log = log ? log : stderr,
        .max_mismatches = 0,
    };
    if (s->compare) {
        rc = compare_backends(s, m, f, ins, n_ins, log, name);
        if (rc != CLI_EXIT_OK)
            snprintf(why, why_size, "--compare found a difference or a failed check (see above)");
        goto out;
    }
    plumb_ref_result res;
    plumb_diag rd = {.code = PLUMB_OK};
    bool ok = strcmp(s->backend, "ref") == 0 ? plumb_ref_run(m, entry, ins, n_ins, &ro, &res, &rd)
                                             : run_other(s, m, entry, ins, n_ins, log, &res, &rd);
    if (!ok) {
        report_checks(s, log, &res);
        if (!rd.file)
            rd.file = name;
        cli_print_diag(s->cmd, &rd);
        diag_verdict(&rd, why, why_size);
        rc = rd.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
        goto out;
    }
    rc = emit_results(s, &res);
    report_checks(s, log, &res);
    if (rc == CLI_EXIT_OK && res.checks_failed) {
        snprintf(why, why_size, "%llu check%s failed", (unsigned long long)res.checks_failed,
                 res.checks_failed == 1 ? "" : "s");
        rc = CLI_EXIT_INVALID;
    }
    plumb_ref_result_free(&res);
out:
    if (log)
        fclose(log);
    for (uint32_t i = 0; ins && i < n_ins; i++)
        plumb_tensor_free(ins[i]);
    plumb_free(ins, n_ins * sizeof *ins);
    ir_module_free(m);
    return rc;
}

/* ---- --split-input-file ------------------------------------------------------ */

/* The length of the line at p (without its newline). */
static size_t line_len(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return (size_t)((nl ? nl : end) - p);
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* A "// RUN:" line naming -split-input-file: the file says how upstream
 * runs it (stablehlo-translate --interpret -split-input-file %s). */
static bool run_line_splits(const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        size_t n = line_len(p, end);
        const char *b = skip_blanks(p, p + n);
        size_t rest = (size_t)(p + n - b);
        if (rest >= 7 && memcmp(b, "// RUN:", 7) == 0) {
            for (const char *q = b; q + 17 <= p + n; q++)
                if (memcmp(q, "-split-input-file", 17) == 0)
                    return true;
        }
        p += n + 1;
    }
    return false;
}

/* MLIR's split marker: a line that is "// -----" (trailing blanks allowed). */
static bool is_split_marker(const char *p, size_t n)
{
    if (n < 8 || memcmp(p, "// -----", 8) != 0)
        return false;
    return skip_blanks(p + 8, p + n) == p + n;
}

/* The first line of [p, end) holding something other than blanks and
 * comments (its number, counted from line); 0 when the chunk is empty. */
static uint32_t first_code_line(const char *p, const char *end, uint32_t line)
{
    while (p < end) {
        size_t n = line_len(p, end);
        const char *b = skip_blanks(p, p + n);
        if (b < p + n && !(p + n - b >= 2 && b[0] == '/' && b[1] == '/'))
            return line;
        p += n + 1;
        line++;
    }
    return 0;
}

/* The name of the first non-private function in [p, end), read from the
 * text: a case that does not parse is still named. "" when there is none. */
static void chunk_func_name(const char *p, const char *end, char *out, size_t out_size)
{
    out[0] = 0;
    for (const char *q = p; q + 9 < end; q++) {
        if (memcmp(q, "func.func", 9) != 0 || (q > p && q[-1] != ' ' && q[-1] != '\n' && q[-1] != '\t'))
            continue;
        const char *r = skip_blanks(q + 9, end);
        if ((size_t)(end - r) >= 7 && memcmp(r, "private", 7) == 0)
            continue;
        if ((size_t)(end - r) >= 6 && memcmp(r, "public", 6) == 0)
            r = skip_blanks(r + 6, end);
        if (r >= end || *r != '@')
            continue;
        size_t n = 0;
        while (r + 1 + n < end && (isalnum((unsigned char)r[1 + n]) || r[1 + n] == '_' || r[1 + n] == '.' ||
                                   r[1 + n] == '$' || r[1 + n] == '-'))
            n++;
        if (n)
            snprintf(out, out_size, " @%.*s", (int)n, r + 1);
        return;
    }
}

typedef struct split_counts {
    uint32_t cases, passed, failed, unsupported;
} split_counts;

/* Parses and runs one chunk, which starts at line `line` of the file: it is
 * parsed behind line - 1 newlines so that every diagnostic names the line
 * of the whole file. Prints the case's verdict on stdout. */
static int run_chunk(const run_state *s, const char *name, const char *p, size_t n, uint32_t line,
                     split_counts *c)
{
    uint32_t code_line = first_code_line(p, p + n, line);
    if (!code_line)
        return CLI_EXIT_OK;   /* only comments: not a case */
    c->cases++;
    size_t pad = line - 1;
    char *buf = plumb_malloc(pad + n + 1);
    if (!buf) {
        fprintf(stderr, "plumb %s: error: out of memory\n", s->cmd);
        return CLI_EXIT_USAGE;
    }
    memset(buf, '\n', pad);
    memcpy(buf + pad, p, n);
    buf[pad + n] = 0;
    plumb_diag d = {.code = PLUMB_OK};
    ir_parse_options po = {sizeof po, 0, s->max_bytes};
    ir_module *m = ir_parse(buf, pad + n, name, &po, &d);
    plumb_free(buf, pad + n + 1);
    char why[1200] = "";
    char entry[256] = "";
    int rc;
    if (!m) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        diag_verdict(&d, why, sizeof why);
        chunk_func_name(p, p + n, entry, sizeof entry);
        rc = cli_program_exit(d.code);
    } else {
        char ignored[1200];
        const ir_func *f = find_entry(s, m, name, ignored, sizeof ignored);
        if (f) {
            snprintf(entry, sizeof entry, " @%s", f->name);
            if (f->loc.line)
                code_line = f->loc.line;
        }
        rc = run_module(s, m, name, why, sizeof why);
    }
    fflush(stderr);
    if (rc == CLI_EXIT_OK) {
        c->passed++;
        printf("%s:%u: case %u%s: ok\n", name, code_line, c->cases, entry);
    } else if (strncmp(why, "unsupported: ", 13) == 0) {
        c->unsupported++;
        printf("%s:%u: case %u%s: %s\n", name, code_line, c->cases, entry, why);
    } else {
        c->failed++;
        if (!why[0])
            snprintf(why, sizeof why, "exit %d", rc);
        printf("%s:%u: case %u%s: FAILED: %s\n", name, code_line, c->cases, entry, why);
    }
    fflush(stdout);
    return CLI_EXIT_OK;
}

/* Runs every chunk of text between '// -----' lines as its own module;
 * exit 1 when a case failed (unsupported cases are counted, not failed). */
static int run_split(const run_state *s, const char *text, size_t len, const char *name)
{
    split_counts c = {0, 0, 0, 0};
    const char *end = text + len;
    const char *start = text;
    uint32_t start_line = 1, line = 1;
    for (const char *p = text; p <= end; line++) {
        size_t n = p < end ? line_len(p, end) : 0;
        bool marker = p < end && is_split_marker(p, n);
        if (marker || p == end) {
            int rc = run_chunk(s, name, start, (size_t)(p - start), start_line, &c);
            if (rc != CLI_EXIT_OK)
                return rc;
            start = p + n + (p + n < end);
            start_line = line + 1;
        }
        if (p == end)
            break;
        p += n + 1;
        if (p > end)
            p = end;
    }
    printf("%u passed, %u failed, %u unsupported\n", c.passed, c.failed, c.unsupported);
    if (!c.cases) {
        fprintf(stderr, "plumb %s: error: %s holds no test case\n", s->cmd, name);
        return CLI_EXIT_INVALID;
    }
    return c.failed ? CLI_EXIT_INVALID : CLI_EXIT_OK;
}

static int run_file(const run_state *s)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(s->file, &len, &d);
    if (!text) {
        cli_print_diag(s->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(s->file);
    if (s->split || run_line_splits(text, len)) {
        int rc = run_split(s, text, len, name);
        plumb_free(text, len + 1);
        return rc;
    }
    ir_parse_options po = {sizeof po, 0, s->max_bytes};
    ir_module *m = ir_parse(text, len, name, &po, &d);
    plumb_free(text, len + 1);
    if (!m) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        return cli_program_exit(d.code);
    }
    return run_module(s, m, name, NULL, 0);
}

int cmd_run(int argc, char **argv)
{
    run_state s;
    memset(&s, 0, sizeof s);
    s.cmd = "run";
    s.backend = "ref";
    size_t cap = (size_t)(argc > 0 ? argc : 1);
    s.inputs = plumb_calloc(cap, sizeof *s.inputs);
    const char **shapes = plumb_calloc(cap, sizeof *shapes);
    if (!s.inputs || !shapes) {
        plumb_free(s.inputs, cap * sizeof *s.inputs);
        plumb_free(shapes, cap * sizeof *shapes);
        fprintf(stderr, "plumb run: error: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    s.gen.shapes = shapes;
    /* session mode (run_session.c): every FILE through one runtime */
    cli_session_opts so;
    memset(&so, 0, sizeof so);
    so.cmd = s.cmd;
    so.repeat = 1;
    bool session = false;
    const char **files = plumb_calloc(cap, sizeof *files);
    if (!files) {
        plumb_free(s.inputs, cap * sizeof *s.inputs);
        plumb_free(shapes, cap * sizeof *shapes);
        fprintf(stderr, "plumb run: error: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    int n_files = 0;
    int id, rc = CLI_EXIT_OK;
    /* --random-inputs=SEED: the option parser gives a flag no value, so the
     * seed is split off into the next argument, where --random-inputs
     * looks for it. Nothing after "--" is an option. */
    static char random_inputs_opt[] = "--random-inputs";
    char **args = plumb_calloc(2 * cap, sizeof *args);
    int n_args = 0;
    if (!args) {
        fprintf(stderr, "plumb run: error: out of memory\n");
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    for (int i = 0, opts_end = 0; i < argc; i++) {
        if (!opts_end && strcmp(argv[i], "--") == 0)
            opts_end = 1;
        if (!opts_end && strncmp(argv[i], "--random-inputs=", 16) == 0) {
            const char *seed = argv[i] + 16;
            if (!*seed || strspn(seed, "0123456789") != strlen(seed)) {
                rc = cli_usage_error(s.cmd, "--random-inputs: the seed '%s' is not a decimal number", seed);
                goto out;
            }
            args[n_args++] = random_inputs_opt;
            args[n_args++] = argv[i] + 16;
            continue;
        }
        args[n_args++] = argv[i];
    }
    cli_args a;
    cli_args_init(&a, n_args, args);
    const char *v;
    while ((id = cli_next(&a, run_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            rc = CLI_EXIT_USAGE;
            goto out;
        case OPT_HELP:
            fputs(run_help, stdout);
            rc = cli_finish(s.cmd, CLI_EXIT_OK);
            goto out;
        case OPT_BACKEND:
            s.backend = v;
            break;
        case OPT_ENTRY:
            s.entry = v;
            break;
        case OPT_INPUT:
            s.inputs[s.n_inputs++] = v;
            break;
        case OPT_OUTPUT_DIR:
            s.output_dir = v;
            break;
        case OPT_HEX:
            s.hex = true;
            break;
        case OPT_TIMEOUT: {
            char *end;
            errno = 0;
            double t = strtod(v, &end);
            if (end == v || *end || errno || !isfinite(t) || t <= 0) {
                rc = cli_usage_error(s.cmd, "--timeout: '%s' is not a positive number of seconds", v);
                goto out;
            }
            s.timeout_s = t;
            break;
        }
        case OPT_COMPARE:
            s.compare = true;
            break;
        case OPT_SPLIT:
            s.split = true;
            break;
        case OPT_THREADS: {
            char *end;
            errno = 0;
            unsigned long t = strtoul(v, &end, 10);
            if (end == v || *end || errno || t == 0 || t > 256 || v[0] == '-') {
                rc = cli_usage_error(s.cmd, "--threads: '%s' is not a thread count from 1 to 256", v);
                goto out;
            }
            s.threads = (uint32_t)t;
            break;
        }
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &s.max_bytes)) {
                rc = cli_usage_error(s.cmd, "--max-bytes: '%s' is not a positive byte count "
                                     "(digits, optionally followed by K, M, G, Ki, Mi or Gi)", v);
                goto out;
            }
            break;
        case OPT_REPEAT: {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n == 0 || n > 1000000) {
                rc = cli_usage_error(s.cmd, "--repeat: '%s' is not a count from 1 to 1000000", v);
                goto out;
            }
            so.repeat = (uint32_t)n;
            session = true;
            break;
        }
        case OPT_MAX_COMPILES: {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n == 0 || n > UINT32_MAX) {
                rc = cli_usage_error(s.cmd, "--max-compiles: '%s' is not a positive count", v);
                goto out;
            }
            so.max_compiles = (uint32_t)n;
            session = true;
            break;
        }
        case OPT_RANDOM_INPUTS:
            /* The seed is optional: the next argument when it is a decimal
             * number (a FILE named like one can be written ./N). */
            s.gen.random = true;
            if (!a.pending && !a.operands_only && a.next < a.argc) {
                const char *nx = a.argv[a.next];
                size_t k = 0;
                while (nx[k] >= '0' && nx[k] <= '9')
                    k++;
                if (k && !nx[k]) {
                    if (!cli_parse_u64(nx, &s.gen.seed) || k > 19) {
                        rc = cli_usage_error(s.cmd, "--random-inputs: the seed '%s' is larger than 2^64-1", nx);
                        goto out;
                    }
                    a.next++;
                }
            }
            break;
        case OPT_DIM_SIZE:
            if (!cli_parse_dim_sizes(v, &s.gen)) {
                rc = cli_usage_error(s.cmd, "--dim-size: '%s' is not a size or a list of sizes N,N,... (each from 0 "
                                     "to 2147483647, at most %d)", v, CLI_MAX_DIM_SIZES);
                goto out;
            }
            break;
        case OPT_SHAPE:
            shapes[s.gen.n_shapes++] = v;
            break;
        case OPT_STATS:
            so.stats = session = true;
            break;
        case OPT_EXPLAIN:
            so.explain = session = true;
            break;
        case OPT_JSON:
            so.json = session = true;
            break;
        case OPT_ERROR_ON_RECOMPILE:
            so.error_on_recompile = session = true;
            break;
        case OPT_CONTRACT:
            so.contract = v;
            session = true;
            break;
        case OPT_POLICY:
            /* every runtime this command creates reads it; an unknown word
             * fails creating it, naming the word */
            setenv("PLUMB_POLICY", v, 1);
            break;
        case OPT_NO_ARBITRATE:
            /* the check kernels of every backend read it (ir/checkcmp.c) */
            setenv("PLUMB_ARBITRATE", "0", 1);
            break;
        case CLI_OPERAND:
            files[n_files++] = v;
            if (!s.file)
                s.file = v;
            break;
        }
    }
    if (!s.file) {
        rc = cli_usage_error(s.cmd, "no FILE given");
        goto out;
    }
    if ((s.gen.n_dim_sizes || s.gen.n_shapes) && !s.gen.random) {
        rc = cli_usage_error(s.cmd, "%s sizes generated inputs: it needs --random-inputs",
                             s.gen.n_dim_sizes ? "--dim-size" : "--shape");
        goto out;
    }
    if (s.gen.n_dim_sizes > 1 && !session && n_files < 2) {
        rc = cli_usage_error(s.cmd, "--dim-size with several sizes sizes several runs: add --repeat N or more FILEs");
        goto out;
    }
    if (session || n_files > 1) {
        if (strcmp(s.backend, "ref") != 0 && strcmp(s.backend, "runtime") != 0) {
            rc = cli_usage_error(s.cmd, "several FILEs, --repeat, --stats, --explain and the compile gates run "
                                 "through the compiled runtime; --backend '%s' cannot take them", s.backend);
            goto out;
        }
        if (s.compare || s.output_dir || s.split) {
            rc = cli_usage_error(s.cmd, "%s runs one program at a time: it does not combine with several FILEs, "
                                 "--repeat, --stats, --explain or the compile gates",
                                 s.compare ? "--compare" : s.output_dir ? "--output-dir" : "--split-input-file");
            goto out;
        }
        so.files = files;
        so.n_files = n_files;
        so.entry = s.entry;
        so.inputs = s.inputs;
        so.n_inputs = s.n_inputs;
        so.gen = s.gen;
        so.hex = s.hex;
        so.threads = s.threads;
        so.max_bytes = s.max_bytes;
        so.timeout_s = s.timeout_s;
        rc = cli_finish(s.cmd, cli_run_session(&so));
        goto out;
    }
    if (strcmp(s.backend, "ref") != 0 && strcmp(s.backend, "runtime") != 0 && !conf_backend_is_path(s.backend)) {
        rc = cli_usage_error(s.cmd, "unknown backend '%s'; the backends are 'ref', 'runtime' and the path of a "
                             "backend plugin (with a '/' or ending in .so)", s.backend);
        goto out;
    }
    if (s.split && s.output_dir) {
        rc = cli_usage_error(s.cmd, "--split-input-file runs many cases: --output-dir would mix their results");
        goto out;
    }
    rc = cli_finish(s.cmd, run_file(&s));
out:
    plumb_free(args, 2 * cap * sizeof *args);
    plumb_free(files, cap * sizeof *files);
    plumb_free(shapes, cap * sizeof *shapes);
    plumb_free(s.inputs, cap * sizeof *s.inputs);
    return rc;
}
