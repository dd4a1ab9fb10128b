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
#include "../conformance/oracle.h"
#include "cli.h"
#include "compare.h"
#include "filecheck.h"
#include "npy.h"
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
    "      --localize          with --compare: also run a copy of the entry\n"
    "                          returning every intermediate on the backend and\n"
    "                          re-evaluate each op on the reference from the\n"
    "                          backend's own operands, one verdict per op with\n"
    "                          its location (bounds never compound, a failure\n"
    "                          names the op that caused it; docs/fuzz.md)\n"
    "      --no-arbitrate      accept no element by arbitration (the same as\n"
    "                          PLUMB_ARBITRATE=0): the check fails as written\n"
    "      --threads N         runtime worker threads (default: online cores);\n"
    "                          results are identical for every N\n"
    "      --entry NAME        function to run (default: main, else the only\n"
    "                          public function)\n"
    "      --input NAME=FILE   tensor file for the parameter NAME: its SSA name\n"
    "                          without '%' (e.g. arg0) or its index (0, 1, ...);\n"
    "                          binary or text tensor files, NumPy .npy files\n"
    "                          (C order; b1, i1-i8, u1-u8, f2, f4, f8), or an\n"
    "                          inline literal NAME='dense<...> : tensor<...>'.\n"
    "                          Repeat for each parameter; every parameter needs\n"
    "                          one, or --random-inputs. A file's own shape is\n"
    "                          used: a '?' dimension takes any size within its\n"
    "                          bound. A parameter of tuple type is refused:\n"
    "                          build the tuple in the program\n"
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
    "                          created when missing; a tuple result writes one\n"
    "                          file per tensor in it, DIR/result_<i>.<k>.tensor\n"
    "                          (docs/spec/tuple.md)\n"
    "      --npy               with --output-dir: write DIR/result_<i>.npy\n"
    "                          (NumPy format 1.0, little-endian; bf16 has no\n"
    "                          NumPy dtype and is refused)\n"
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
    "      --args LIST         the entry's inputs as StableHLO's interpreter\n"
    "                          takes them: '[dense<...> : tensor<...>, ...]',\n"
    "                          one literal per parameter, in order; '@FILE'\n"
    "                          reads that list from FILE, '@A.npy,@B.npy,...'\n"
    "                          gives one .npy file per parameter\n"
    "      --interpreter-format\n"
    "                          print results as stablehlo-translate --interpret\n"
    "                          does ('tensor<2xi32> {', '  [3, 3]', '}')\n"
    "\n"
    "StableHLO's test files: a file whose '// RUN:' lines pass --args, pipe\n"
    "into FileCheck or expect a failure ('not') is run once per RUN line\n"
    "(unless --args, --input, --random-inputs or --compare is given): the\n"
    "line's --args are the inputs, the results are printed in the\n"
    "interpreter's format and matched against the file's CHECK lines of the\n"
    "line's prefix (CHECK, -NEXT, -SAME, -NOT, -EMPTY; a {{regex}} is\n"
    "reported unsupported). One verdict per RUN line 'FILE:LINE: RUN N: ok',\n"
    "'FAILED: why' or 'unsupported: why' (a 'not' line plumb also rejects:\n"
    "its message is not compared), then 'N passed, N failed, N unsupported'\n"
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
    "      --html FILE         with --stats, also write them as a self-contained\n"
    "                          HTML page: counters per entry, compile and\n"
    "                          recompile timelines over the runs, each run with\n"
    "                          why its program was built\n"
    "      --explain           print each recompile's explanation: every\n"
    "                          difference from the nearest cached program,\n"
    "                          grouped by cause, with its source location\n"
    "      --json              --stats and --explain as one JSON object per line;\n"
    "                          with --compare its verdicts, one object per\n"
    "                          result (and per op with --localize)\n"
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
       OPT_ERROR_ON_RECOMPILE, OPT_CONTRACT, OPT_DIM_SIZE, OPT_SHAPE, OPT_NO_ARBITRATE,
       OPT_LOCALIZE, OPT_ARGS, OPT_INTERP_FORMAT, OPT_NPY, OPT_POLICY, OPT_HTML };

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
    {"localize", 0, false, OPT_LOCALIZE},
    {"threads", 0, true, OPT_THREADS},
    {"split-input-file", 0, false, OPT_SPLIT},
    {"repeat", 0, true, OPT_REPEAT},
    {"random-inputs", 0, false, OPT_RANDOM_INPUTS},
    {"stats", 0, false, OPT_STATS},
    {"html", 0, true, OPT_HTML},
    {"explain", 0, false, OPT_EXPLAIN},
    {"json", 0, false, OPT_JSON},
    {"max-compiles", 0, true, OPT_MAX_COMPILES},
    {"error-on-recompile", 0, false, OPT_ERROR_ON_RECOMPILE},
    {"contract", 0, true, OPT_CONTRACT},
    {"policy", 0, true, OPT_POLICY},
    {"dim-size", 0, true, OPT_DIM_SIZE},
    {"shape", 0, true, OPT_SHAPE},
    {"no-arbitrate", 0, false, OPT_NO_ARBITRATE},
    {"args", 0, true, OPT_ARGS},
    {"interpreter-format", 0, false, OPT_INTERP_FORMAT},
    {"npy", 0, false, OPT_NPY},
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
    bool localize;            /* --localize: --compare op by op on the backend's own operands */
    bool json;                /* --json: --compare's verdicts as JSON lines */
    uint32_t threads;         /* 0 = online cores */
    bool split;               /* --split-input-file */
    const char *args;         /* --args '[dense<...> : tensor<...>, ...]' */
    bool interp_format;       /* --interpreter-format */
    bool print_dense;         /* with it: a RUN line's --interpreter-print-dense */
    bool legacy_print;        /* with it: a RUN line run by stablehlo-interpreter,
                                 printed in that driver's format */
    plumb_buf *capture;       /* results go here instead of stdout (RUN lines) */
    bool npy;                 /* --npy: --output-dir writes NumPy .npy files */
    cli_gen_opts gen;         /* --random-inputs, --dim-size, --shape */
} run_state;

/* One --input value: an inline literal 'dense<...> : tensor<...>', a NumPy
 * .npy file, or a tensor file (binary or text). */
/* Parses the n bytes at p, one case of a file, as if they stood at line
 * `line` of it (newlines before them), so that diagnostics name the
 * file's own line and column. NULL with *oom set when the copy cannot be
 * allocated, NULL with d filled on a parse error. */
static ir_module *parse_at_line(const run_state *s, const char *name, const char *p, size_t n, size_t line,
                                plumb_diag *d, bool *oom)
{
    size_t pad = line - 1;
    char *buf = plumb_malloc(pad + n + 1);
    *oom = !buf;
    if (!buf)
        return NULL;
    memset(buf, '\n', pad);
    memcpy(buf + pad, p, n);
    buf[pad + n] = 0;
    ir_parse_options po = {sizeof po, 0, s->max_bytes};
    ir_module *m = ir_parse(buf, pad + n, name, &po, d);
    plumb_free(buf, pad + n + 1);
    return m;
}

static plumb_tensor *load_input_value(const run_state *s, const char *v, plumb_diag *d)
{
    const char *b = v;
    while (*b == ' ' || *b == '\t')
        b++;
    size_t n = strlen(v);
    if (strncmp(b, "dense<", 6) == 0)
        return plumb_tensor_load_mem(v, n, "--input literal", s->max_bytes, d);
    if (n > 4 && strcmp(v + n - 4, ".npy") == 0)
        return cli_npy_load(v, s->max_bytes, d);
    return plumb_tensor_load(v, s->max_bytes, d);
}

/* --args '[dense<...> : tensor<...>, ...]': one literal per parameter, in
 * order (stablehlo-translate --interpret --args); returns an exit code. */
/* --args @A.npy,@B.npy: one NumPy file per parameter, in order. */
static int load_args_npy(const run_state *s, const ir_func *f, plumb_tensor **ins)
{
    uint32_t k = 0;
    for (const char *p = s->args; *p; k++) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char path[4096];
        if (n < 2 || p[0] != '@' || n >= sizeof path)
            return cli_usage_error(s->cmd, "--args: '%.*s' is not @FILE.npy", (int)n, p);
        memcpy(path, p + 1, n - 1);
        path[n - 1] = 0;
        if (k == f->body.n_args)
            return cli_usage_error(s->cmd, "--args gives more files than the %u parameters of @%s",
                                   (unsigned)f->body.n_args, f->name);
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[k] = cli_npy_load(path, s->max_bytes, &d))) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
        p += n + (e != NULL);
    }
    if (k != f->body.n_args)
        return cli_usage_error(s->cmd, "--args gives %u file%s; @%s takes %u parameter%s", (unsigned)k,
                               k == 1 ? "" : "s", f->name, (unsigned)f->body.n_args, f->body.n_args == 1 ? "" : "s");
    return CLI_EXIT_OK;
}

static int load_args(const run_state *s, const ir_func *f, plumb_tensor **ins)
{
    enum { MAX_ARGS = 256 };
    const char *starts[MAX_ARGS];
    size_t lens[MAX_ARGS];
    if (s->args[0] == '@') {
        /* as stablehlo-translate --args: .npy files, or one file holding the list */
        bool any_npy = false, any_other = false;
        for (const char *p = s->args; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            bool npy = n > 4 && memcmp(p + n - 4, ".npy", 4) == 0;
            any_npy |= npy;
            any_other |= !npy;
        }
        if (any_npy && any_other)
            return cli_usage_error(s->cmd, "--args '%s': .npy files and other files do not mix", s->args);
        if (any_npy)
            return load_args_npy(s, f, ins);
        if (strchr(s->args, ','))
            return cli_usage_error(s->cmd, "--args '%s': one @FILE holds the whole list (or give @FILE.npy files)",
                                   s->args);
        plumb_diag d = {.code = PLUMB_OK};
        size_t len = 0;
        char *text = cli_read_input(s->args + 1, &len, &d);
        if (!text) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
        run_state t = *s;
        t.args = text;
        /* the file holds the list itself, not another @FILE */
        int rc = text[0] == '@' ? cli_usage_error(s->cmd, "--args file '%s' names another file", s->args + 1)
                                : load_args(&t, f, ins);
        plumb_free(text, len + 1);
        return rc;
    }
    int n = cli_args_split(s->args, starts, lens, MAX_ARGS);
    if (n < 0)
        return cli_usage_error(s->cmd, "--args '%s' is not a list '[dense<...> : tensor<...>, ...]' of at most %d "
                               "literals", s->args, MAX_ARGS);
    for (int k = 0; k < n; k++) {
        if (lens[k] < 6 || strncmp(starts[k], "dense<", 6) != 0)
            return cli_usage_error(s->cmd, "--args: element %d '%.*s' is not a dense literal "
                                   "'dense<...> : tensor<...>'", k + 1, (int)lens[k], starts[k]);
    }
    if ((uint32_t)n != f->body.n_args)
        return cli_usage_error(s->cmd, "--args gives %d tensor%s; @%s takes %u parameter%s", n, n == 1 ? "" : "s",
                               f->name, (unsigned)f->body.n_args, f->body.n_args == 1 ? "" : "s");
    for (int k = 0; k < n; k++) {
        char label[64];
        snprintf(label, sizeof label, "--args element %d", k + 1);
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[k] = plumb_tensor_load_mem(starts[k], lens[k], label, s->max_bytes, &d))) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

/* Loads every --input (or the --args list) into ins[param index],
 * generates the others with --random-inputs and checks them all against
 * the parameter types; returns an exit code. */
static int load_inputs(const run_state *s, const char *name, const ir_func *f, plumb_tensor **ins)
{
    if (s->args) {
        int rc = load_args(s, f, ins);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
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
        if (!(ins[p] = load_input_value(s, eq + 1, &d))) {
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

/* A tuple result's value (docs/spec/tuple.md): its elements in
 * parentheses, each a dense<...> or a nested tuple, taking leaves from
 * outs[*at] on. */
static void print_tuple_value(const run_state *s, plumb_buf *b, const ir_type *t, plumb_tensor *const *outs,
                              uint32_t n, uint32_t *at)
{
    if (!t->tuple) {
        if (*at < n)
            plumb_dense_print(b, outs[*at], s->hex);
        (*at)++;
        return;
    }
    plumb_buf_puts(b, "(");
    for (uint32_t i = 0; i < t->tuple->n; i++) {
        if (i)
            plumb_buf_puts(b, ", ");
        print_tuple_value(s, b, &t->tuple->elems[i], outs, n, at);
    }
    plumb_buf_puts(b, ")");
}

/* Result r: prints its line and writes its --output-dir file(s). A tensor
 * is outs[0]; a tuple (type t) is its leaves outs[0..n), as the executors
 * return it (ir_tuple_flatten): one line `tuple<...> (dense<...>, ...)`
 * and one file per leaf, result_R.K (K counting the leaves). */
static int emit_one(const run_state *s, uint32_t r, const ir_type *t, plumb_tensor *const *outs, uint32_t n)
{
    plumb_buf b;
    plumb_buf_init(&b);
    if (t && t->tuple) {
        uint32_t at = 0;
        ir_type_print(&b, t);
        plumb_buf_puts(&b, " ");
        print_tuple_value(s, &b, t, outs, n, &at);
    } else if (s->interp_format && s->legacy_print) {
        cli_interp_print_legacy(&b, outs[0]);
    } else if (s->interp_format && s->print_dense) {
        cli_interp_print_dense(&b, outs[0]);
    } else if (s->interp_format) {
        cli_interp_print(&b, outs[0]);
    } else {
        plumb_tensor_type_print(&b, outs[0]);
        plumb_buf_puts(&b, " ");
        plumb_dense_print(&b, outs[0], s->hex);
    }
    plumb_buf_puts(&b, "\n");
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = !b.failed;
    if (ok && s->capture)
        plumb_buf_append(s->capture, b.data, b.len);
    else if (ok)
        ok = cli_write_stdout(b.data, b.len, &d);
    if (b.failed)
        plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing result %u", r);
    plumb_buf_free(&b);
    if (!ok) {
        cli_print_diag(s->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    if (!s->output_dir)
        return CLI_EXIT_OK;
    bool tuple = t && t->tuple;
    for (uint32_t k = 0; k < (tuple ? n : 1); k++) {
        char path[4096];
        int len = tuple ? snprintf(path, sizeof path, "%s/result_%u.%u.%s", s->output_dir, r, k, s->npy ? "npy" : "tensor")
                        : snprintf(path, sizeof path, "%s/result_%u.%s", s->output_dir, r, s->npy ? "npy" : "tensor");
        if (len < 0 || (size_t)len >= sizeof path)
            return cli_usage_error(s->cmd, "--output-dir '%s' is too long", s->output_dir);
        if (s->npy ? !cli_npy_save(path, outs[k], &d) : !plumb_tensor_save(path, outs[k], false, &d)) {
            cli_print_diag(s->cmd, &d);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

/* Prints each result of f on stdout and writes the --output-dir files. */
static int emit_results(const run_state *s, const ir_func *f, const plumb_ref_result *res)
{
    if (s->output_dir) {
        plumb_diag md = {.code = PLUMB_OK};
        if (!cli_mkdir_p(s->output_dir, &md)) {
            cli_print_diag(s->cmd, &md);
            return CLI_EXIT_USAGE;
        }
    }
    /* stablehlo-interpreter named the function before its results */
    if (s->interp_format && s->legacy_print && s->capture)
        plumb_buf_printf(s->capture, "\nEvaluated results of function: %s\n", f->name);
    uint32_t at = 0;
    for (uint32_t r = 0; r < f->n_results; r++) {
        uint64_t k = ir_type_leaf_count(&f->result_types[r]);
        if (k > res->n_outputs - at) {
            fprintf(stderr, "plumb %s: error: @%s result %u: the backend returned %u tensors for %u results\n", s->cmd,
                    f->name, r, res->n_outputs, f->n_results);
            return CLI_EXIT_INVALID;
        }
        int rc = emit_one(s, r, &f->result_types[r], res->outputs + at, (uint32_t)k);
        if (rc != CLI_EXIT_OK)
            return rc;
        at += (uint32_t)k;
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

/* plumb bench holds its results to the same bounds (cli/compare.h); the
 * comparison is the conformance oracle's (conformance/oracle.c), one line
 * per result on stdout as --compare prints them (docs/cli.md). */
int cli_compare_results(const char *cmd, const ir_module *m, const ir_func *f, plumb_tensor *const *ins,
                        uint32_t n_ins, const plumb_ref_options *ro, const char *other,
                        plumb_tensor *const *want, uint32_t n_want, plumb_tensor *const *got, uint32_t n_got,
                        double *worst)
{
    conf_oracle_out o = {stdout, false, other};
    return conf_oracle_compare(&o, cmd, m, f, ins, n_ins, ro, want, n_want, got, n_got, worst);
}

/* The backend under test, for the oracle's localization run. */
typedef struct other_ctx {
    const run_state *s;
    FILE *log;
} other_ctx;

static bool run_other_cb(void *ctx, const ir_module *m, const char *entry, plumb_tensor *const *ins,
                         uint32_t n_ins, plumb_ref_result *res, plumb_diag *d)
{
    const other_ctx *oc = ctx;
    return run_other(oc->s, m, entry, ins, n_ins, oc->log, res, d);
}

/* --compare --localize: every op re-evaluated on the backend's own
 * operands (conformance/oracle.h); the backend's declared capabilities
 * decide flushing, accumulators and NaN payloads. */
static int localize(const run_state *s, const ir_module *m, const ir_func *f, plumb_tensor *const *ins,
                    uint32_t n_ins, FILE *log, const char *name)
{
    other_ctx oc = {s, log};
    conf_backend b;
    plumb_diag d = {.code = PLUMB_OK};
    if (!conf_backend_open(conf_backend_is_path(s->backend) ? s->backend : "runtime", NULL, 0, &b, &d)) {
        cli_print_diag(s->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    conf_oracle_out o = {stdout, s->json, conf_backend_is_path(s->backend) ? s->backend : "the runtime"};
    conf_oracle_local lr;
    bool ok = conf_oracle_localize(&o, m, f, ins, n_ins, s->max_bytes, &b.caps, run_other_cb, &oc, &lr, &d);
    conf_backend_close(&b);
    if (!ok) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        return d.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
    }
    if (lr.failed)
        fprintf(stderr, "plumb %s: %u of %u ops are outside their bound on their own operands; first: %s\n", s->cmd,
                lr.failed, lr.ops, lr.first);
    return lr.failed ? CLI_EXIT_INVALID : CLI_EXIT_OK;
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
    plumb_ref_result ref, rt;
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
    bool plugin = conf_backend_is_path(s->backend);
    conf_oracle_out oo = {stdout, s->json, plugin ? s->backend : "the runtime"};
    int cmp = conf_oracle_compare(&oo, s->cmd, m, f, ins, n_ins, &ro, ref.outputs, ref.n_outputs, rt.outputs,
                                  rt.n_outputs, NULL);
    int rc = cmp < 0 ? CLI_EXIT_INVALID : CLI_EXIT_OK;
    uint32_t exceeded = cmp > 0 ? (uint32_t)cmp : 0;
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
    if (s->localize) {
        int lrc = localize(s, m, f, ins, n_ins, log, name);
        if (rc == CLI_EXIT_OK || lrc == CLI_EXIT_USAGE)
            rc = lrc;
    }
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
    /* Inputs are tensors, one per parameter (docs/spec/tuple.md): a tuple
     * parameter is refused by name rather than guessed at. */
    for (uint32_t i = 0; i < f->body.n_args; i++)
        if (f->body.args[i]->type.tuple) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, i);
            snprintf(why, why_size, "parameter %s of @%s has a tuple type", pn, entry);
            rc = cli_usage_error(s->cmd,
                                 "parameter %s of @%s has a tuple type; plumb %s takes tensor inputs only (build the "
                                 "tuple inside the program from tensor parameters)", pn, entry, s->cmd);
            goto out;
        }
    if (s->compare && ir_module_has_tuples(m)) {
        snprintf(why, why_size, "--compare does not compare tuple values yet");
        rc = cli_usage_error(s->cmd, "--compare does not compare programs with tuple values yet; run each backend "
                                     "with --backend");
        goto out;
    }
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
    rc = emit_results(s, f, &res);
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
    plumb_diag d = {.code = PLUMB_OK};
    bool oom;
    ir_module *m = parse_at_line(s, name, p, n, line, &d, &oom);
    if (oom) {
        fprintf(stderr, "plumb %s: error: out of memory\n", s->cmd);
        return CLI_EXIT_USAGE;
    }
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
static int run_split_cases(const run_state *s, const char *text, size_t len, const char *name, split_counts *cnt)
{
    split_counts c = *cnt;
    const char *end = text + len;
    const char *start = text;
    uint32_t start_line = 1, line = 1;
    for (const char *p = text; p <= end; line++) {
        size_t n = p < end ? line_len(p, end) : 0;
        bool marker = p < end && is_split_marker(p, n);
        if (marker || p == end) {
            int rc = run_chunk(s, name, start, (size_t)(p - start), start_line, &c);
            *cnt = c;
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
    *cnt = c;
    return CLI_EXIT_OK;
}

static int run_split(const run_state *s, const char *text, size_t len, const char *name)
{
    split_counts c = {0, 0, 0, 0};
    int rc = run_split_cases(s, text, len, name, &c);
    if (rc != CLI_EXIT_OK)
        return rc;
    printf("%u passed, %u failed, %u unsupported\n", c.passed, c.failed, c.unsupported);
    if (!c.cases) {
        fprintf(stderr, "plumb %s: error: %s holds no test case\n", s->cmd, name);
        return CLI_EXIT_INVALID;
    }
    return c.failed ? CLI_EXIT_INVALID : CLI_EXIT_OK;
}

/* ---- RUN lines: --args, FileCheck, 'not' --------------------------------------- */

/* A file is run line by line when one of its RUN lines gives inputs,
 * checks the output or expects a failure: a plain run would say nothing
 * about what that line asks. */
static bool run_lines_matter(const cli_run_line *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (l[i].asks)
            return true;
    return false;
}

/* Runs one RUN line on the whole file: its --args as inputs, results in
 * the interpreter's format into out; returns the exit code of the run,
 * why says what failed. */
static int run_one_line(const run_state *s, const cli_run_line *l, const char *text, size_t len, const char *name,
                        plumb_buf *out, char *why, size_t why_size)
{
    run_state t = *s;
    t.args = l->args;
    t.interp_format = true;
    t.print_dense = l->print_dense;
    t.legacy_print = l->legacy_print;
    t.capture = out;
    plumb_diag d = {.code = PLUMB_OK};
    ir_parse_options po = {sizeof po, 0, s->max_bytes};
    ir_module *m = ir_parse(text, len, name, &po, &d);
    if (!m) {
        if (!d.file)
            d.file = name;
        cli_print_diag(s->cmd, &d);
        diag_verdict(&d, why, why_size);
        return cli_program_exit(d.code);
    }
    int rc = run_module(&t, m, name, why, why_size);
    if (rc != CLI_EXIT_OK && !why[0])
        snprintf(why, why_size, "exit %d", rc);
    return rc;
}

/* A -split-input-file RUN line piped into FileCheck: every chunk runs as
 * its own module, its results printed in the interpreter's format into
 * out, and the chunks' outputs are joined as MLIR's splitAndProcessBuffer
 * joins them for stablehlo-translate (mlir-translate's output split marker
 * is empty: a bare newline between two chunks). Returns the exit code of
 * the first chunk that failed (why says what failed), else CLI_EXIT_OK;
 * the later chunks still run, so that their output is there too. */
static int run_split_capture(const run_state *s, const cli_run_line *l, const char *text, size_t len,
                             const char *name, plumb_buf *out, char *why, size_t why_size)
{
    run_state t = *s;
    t.interp_format = true;
    t.print_dense = l->print_dense;
    t.legacy_print = l->legacy_print;
    t.capture = out;
    t.split = true;
    int first_rc = CLI_EXIT_OK;
    const char *end = text + len, *start = text;
    uint32_t start_line = 1, line = 1;
    bool first = true;
    for (const char *p = text; p <= end; line++) {
        size_t n = p < end ? line_len(p, end) : 0;
        bool marker = p < end && is_split_marker(p, n);
        if (marker || p == end) {
            size_t cn = (size_t)(p - start);
            if (!first)
                plumb_buf_puts(out, "\n");
            first = false;
            if (first_code_line(start, p, start_line)) {
                /* parsed behind start_line - 1 newlines: diagnostics name
                 * the line of the whole file (as run_chunk does) */
                plumb_diag d = {.code = PLUMB_OK};
                bool oom;
                ir_module *m = parse_at_line(s, name, start, cn, start_line, &d, &oom);
                if (oom) {
                    snprintf(why, why_size, "out of memory");
                    return CLI_EXIT_USAGE;
                }
                char w[1200] = "";
                int rc;
                if (!m) {
                    if (!d.file)
                        d.file = name;
                    cli_print_diag(s->cmd, &d);
                    diag_verdict(&d, w, sizeof w);
                    rc = cli_program_exit(d.code);
                } else {
                    rc = run_module(&t, m, name, w, sizeof w);
                }
                if (rc != CLI_EXIT_OK && first_rc == CLI_EXIT_OK) {
                    first_rc = rc;
                    snprintf(why, why_size, "%s%s(case at line %u)", w, w[0] ? " " : "",
                             first_code_line(start, p, start_line));
                }
            }
            start = p + n + (p + n < end);
            start_line = line + 1;
        }
        if (p == end)
            break;
        p += n + 1;
        if (p > end)
            p = end;
    }
    return first_rc;
}

/* One verdict per RUN line (a -split-input-file line without inputs or
 * checks: one per case), then the summary; exit 1 when one failed. */
static int run_lines(const run_state *s, const cli_run_line *l, size_t n, const char *text, size_t len,
                     const char *name)
{
    split_counts c = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        char why[1400] = "";
        int verdict;   /* 0 ok, 1 failed, 2 unsupported */
        cli_run_line li = l[i];
        if (!li.unsupported[0] && li.echo_file[0]) {
            /* setup, not a check: later lines read what it wrote */
            printf("%s:%u: RUN %zu: setup: writes %s\n", name, li.line, i + 1, li.echo_file);
            continue;
        }
        if (!li.unsupported[0] && li.args_file[0]) {
            /* --args=@%t.NAME: the text of the latest earlier echo into
             * it; several files (@a,@b) are .npy inputs upstream, which
             * stablehlo-translate refuses for its text form, and so does plumb */
            char *text_of = NULL;
            if (!strchr(li.args_file, ','))
                for (size_t k = i; k-- > 0;)
                    if (!l[k].unsupported[0] && strcmp(l[k].echo_file, li.args_file) == 0) {
                        text_of = l[k].echo_text;
                        break;
                    }
            if (!text_of) {
                if (strchr(li.args_file, ','))
                    snprintf(why, sizeof why, "--args=@%s: one args file is read, not several", li.args_file);
                else
                    snprintf(why, sizeof why, "--args=@%s: no earlier RUN line writes %s", li.args_file,
                             li.args_file);
                fprintf(stderr, "plumb %s: error: %s\n", s->cmd, why);
                if (li.expect_error) {
                    char tmp[1400];
                    snprintf(tmp, sizeof tmp, "unsupported: error-message check (plumb's messages differ; plumb "
                             "also rejects it: %.1250s)", why);
                    snprintf(why, sizeof why, "%s", tmp);
                    verdict = 2;
                } else {
                    verdict = 1;
                }
                goto report;
            }
            li.args = text_of;
        }
        if (li.unsupported[0]) {
            snprintf(why, sizeof why, "unsupported: %s", li.unsupported);
            verdict = 2;
        } else if (li.split && !li.filecheck && !li.args && !li.expect_error) {
            run_state t = *s;
            t.split = true;
            int rc = run_split_cases(&t, text, len, name, &c);
            if (rc != CLI_EXIT_OK)
                return rc;
            continue;
        } else if (li.split && (li.args || li.expect_error)) {
            snprintf(why, sizeof why, "unsupported: --args or 'not' on -split-input-file output");
            verdict = 2;
        } else {
            plumb_buf out;
            plumb_buf_init(&out);
            int rc = li.split ? run_split_capture(s, &li, text, len, name, &out, why, sizeof why)
                                : run_one_line(s, &li, text, len, name, &out, why, sizeof why);
            fflush(stderr);
            if (li.expect_error) {
                /* upstream's message is not plumb's: only the failure itself is compared */
                if (rc == CLI_EXIT_OK) {
                    snprintf(why, sizeof why, "upstream expects an error; plumb ran it");
                    verdict = 1;
                } else {
                    char tmp[1400];
                    snprintf(tmp, sizeof tmp, "unsupported: error-message check (plumb's messages differ; plumb "
                             "also rejects it: %.1250s)", why);
                    snprintf(why, sizeof why, "%s", tmp);
                    verdict = 2;
                }
            } else if (out.failed) {
                snprintf(why, sizeof why, "out of memory printing the results");
                verdict = 1;
            } else if (rc != CLI_EXIT_OK) {
                verdict = strncmp(why, "unsupported: ", 13) == 0 ? 2 : 1;
            } else if (li.filecheck) {
                cli_fc_verdict v = cli_filecheck(text, len, li.prefix, out.data ? out.data : "", out.len, why,
                                                 sizeof why);
                verdict = v == CLI_FC_PASS ? 0 : v == CLI_FC_UNSUPPORTED ? 2 : 1;
                if (v != CLI_FC_PASS && out.len)
                    fprintf(stderr, "plumb %s: output of RUN line %u:\n%s", s->cmd, li.line, out.data);
            } else {
                verdict = 0;
            }
            plumb_buf_free(&out);
        }
report:
        c.cases++;
        if (verdict == 0) {
            c.passed++;
            printf("%s:%u: RUN %zu: ok\n", name, l[i].line, i + 1);
        } else if (verdict == 2) {
            c.unsupported++;
            printf("%s:%u: RUN %zu: %s\n", name, l[i].line, i + 1, why);
        } else {
            c.failed++;
            printf("%s:%u: RUN %zu: FAILED: %s\n", name, l[i].line, i + 1, why);
        }
        fflush(stdout);
    }
    printf("%u passed, %u failed, %u unsupported\n", c.passed, c.failed, c.unsupported);
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
    if (!s->args && !s->n_inputs && !s->gen.random && !s->compare) {
        size_t n_lines = 0;
        cli_run_line *lines = cli_run_lines(text, len, &n_lines);
        if (lines && run_lines_matter(lines, n_lines)) {
            int rc = run_lines(s, lines, n_lines, text, len, name);
            cli_run_lines_free(lines, n_lines);
            plumb_free(text, len + 1);
            return rc;
        }
        cli_run_lines_free(lines, n_lines);
    }
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
        case OPT_LOCALIZE:
            s.localize = true;
            break;
        case OPT_SPLIT:
            s.split = true;
            break;
        case OPT_ARGS:
            s.args = v;
            break;
        case OPT_INTERP_FORMAT:
            s.interp_format = true;
            break;
        case OPT_NPY:
            s.npy = true;
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
        case OPT_HTML:
            so.html = v;
            break;
        case OPT_EXPLAIN:
            so.explain = session = true;
            break;
        case OPT_JSON:
            so.json = s.json = true;
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
    if (so.html && !so.stats) {
        rc = cli_usage_error(s.cmd, "--html writes the session's statistics: it needs --stats");
        goto out;
    }
    if (so.html) {
        plumb_diag hd;
        plumb_diag_clear(&hd);
        if (!plumb_check_write_target(so.html, &hd)) {
            cli_print_diag(s.cmd, &hd);
            rc = CLI_EXIT_USAGE;
            goto out;
        }
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
    /* --json alone asks for the session's JSON lines; with --compare for
     * the verdicts' */
    if (so.json && !s.compare)
        session = true;
    if (s.localize && !s.compare) {
        rc = cli_usage_error(s.cmd, "--localize is a mode of --compare: add --compare");
        goto out;
    }
    if (session || n_files > 1) {
        if (strcmp(s.backend, "ref") != 0 && strcmp(s.backend, "runtime") != 0) {
            rc = cli_usage_error(s.cmd, "several FILEs, --repeat, --stats, --explain and the compile gates run "
                                 "through the compiled runtime; --backend '%s' cannot take them", s.backend);
            goto out;
        }
        if (s.args || s.interp_format) {
            rc = cli_usage_error(s.cmd, "%s runs one program: it does not combine with several FILEs, --repeat, "
                                 "--stats, --explain or the compile gates", s.args ? "--args" : "--interpreter-format");
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
    if (s.npy && !s.output_dir) {
        rc = cli_usage_error(s.cmd, "--npy says how --output-dir writes results: it needs --output-dir DIR");
        goto out;
    }
    if (s.args && (s.n_inputs || s.gen.random)) {
        rc = cli_usage_error(s.cmd, "--args gives every parameter: it does not combine with %s",
                             s.n_inputs ? "--input" : "--random-inputs");
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
