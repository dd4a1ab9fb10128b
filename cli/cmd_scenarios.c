/* plumb scenarios: the seed recompile leaks (issue 14, from the torch_xla
 * report in ../shared/context/recompilation-hell-torch-xla.txt), each as the
 * programs a front end traces step after step (scenarios/NAME/leak/) and the
 * programs after the fix (scenarios/NAME/fix/). Each sequence runs through a
 * fresh compiled runtime with generated inputs; the compile counts are
 * asserted against counts written here by hand, and every recompile of a
 * leak must be explained by the runtime (its explanation JSON, the same
 * object `plumb run --explain --json` prints) with a difference of the
 * expected cause. This file never diffs programs itself: the cause is what
 * the runtime says. docs/scenarios.md describes each scenario. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plumb/runtime.h"
#include "run_session.h"

static const char scenarios_help[] =
    "usage: plumb scenarios [--list] [--only NAME] [--json] [--backend runtime] [--dir DIR]\n"
    "\n"
    "Runs the seed recompile scenarios: each a leak (the programs a front end\n"
    "traces step after step when a value leaks into the graph) and its fix,\n"
    "read from DIR/NAME/leak/*.mlir and DIR/NAME/fix/*.mlir (run in name\n"
    "order, repeated to the scenario's step count). Leak and fix each run\n"
    "through a fresh compiled runtime without a disk cache, with generated\n"
    "inputs (a '?' dimension takes the scenario's per-step sizes).\n"
    "\n"
    "Per scenario it prints the compiles of the leak and of the fix against\n"
    "the expected counts, and the cause the runtime's recompile explanation\n"
    "gives. A scenario passes when both counts are as expected and every\n"
    "recompile of the leak is explained with a difference of the expected\n"
    "cause (class, and where stated the op and words of the difference).\n"
    "A scenario whose counts hold but whose cause the runtime cannot name yet\n"
    "is reported as a KNOWN GAP with the reason (counted apart, never a pass).\n"
    "The last line reads 'scenarios: N passed, N failed, N known gaps'.\n"
    "\n"
    "Where a runtime policy closes a leak without changing its programs\n"
    "(docs/policies.md: 'lift' for a baked float, 'lift-int' for a baked\n"
    "integer), the leak runs a third time with that policy on and its compiles\n"
    "are asserted too (leak+policy); leak and fix always run with no policy,\n"
    "whatever PLUMB_POLICY says. The other leaks are closed by nn builder\n"
    "policies (present-with-mask, buckets, clamped k and capacity), named per\n"
    "scenario.\n"
    "\n"
    "options:\n"
    "      --list           list the scenarios (name, counts, expected cause) and exit\n"
    "      --only NAME      run one scenario (repeatable)\n"
    "      --json           one JSON object: per scenario the counts, the status,\n"
    "                       and every recompile explanation of the leak\n"
    "      --backend B      the backend; only 'runtime' (the compiled runtime: the\n"
    "                       reference interpreter has no compile cache)\n"
    "      --dir DIR        the scenario programs (default PLUMB_SCENARIOS_DIR, else\n"
    "                       ./scenarios: run from the source tree)\n"
    "  -h, --help           show this help\n"
    "\n"
    "exit codes:\n"
    "  0  every scenario passed or is a known gap\n"
    "  1  a scenario failed: a compile count or the cause differs, or a program\n"
    "     did not parse, compile or run\n"
    "  2  usage error, or the scenario folder cannot be read\n";

/* The lengths of the varying-sequence-length scenario, step by step (its
 * leak files are named after them; the fix runs its '?' at these sizes). */
static const int64_t seq_lengths[] = {5, 12, 7, 31, 64, 1, 18, 40, 9, 23, 50, 3, 27, 14, 61, 36, 11, 45, 20, 57};

typedef struct scenario {
    const char *name;
    const char *title;
    uint32_t steps;            /* steps of the leak and of the fix */
    uint32_t leak_compiles;    /* expected; the fix always compiles once */
    /* what every recompile's explanation must contain: a difference of this
     * class, whose op is cause_op (when set) and whose description holds
     * cause_what (when set) */
    const char *cause_class;
    const char *cause_op;
    const char *cause_what;
    const char *gap;           /* why the runtime cannot name the cause yet; NULL when it can */
    const int64_t *sizes;      /* sizes of '?' dimensions per step; NULL: bound */
    uint32_t n_sizes;
    /* The runtime policy (docs/policies.md) that closes the leak without
     * changing the program, and the leak's compiles under it; NULL when the
     * fix is the program's (builder is the nn builder policy that writes
     * that fix, or NULL when no policy does). */
    const char *policy;
    uint32_t policy_compiles;
    const char *builder;
} scenario;

static const scenario scenarios[] = {
    {"baked-learning-rate", "the scheduler's learning rate baked as a constant, new every step", 20, 20,
     "baked_constant", NULL, "(defined by node 1)", NULL, NULL, 0, "lift", 1, NULL},
    {"moe-overflow-counter", "MoE overflow total kept as a Python int and baked into the trace", 8, 8,
     "baked_constant", "stablehlo.add", "(defined by node", NULL, NULL, 0, "lift,lift-int", 1, NULL},
    {"grad-create-accumulate", "grad-create and grad-accumulate traced as two programs", 8, 2, "structure",
     "stablehlo.add", "stablehlo.add added", NULL, NULL, 0, NULL, 0, NULL},
    {"optional-batch-fields", "optional batch fields present in some batches only (an extra parameter)", 8, 4,
     "entry_signature", NULL, "added", NULL, NULL, 0, NULL, 0, "present-with-mask (plumb_nn_optional_param)"},
    {"moe-capacity-drift", "MoE capacity recomputed from the padded batch: a drifting static dimension", 10, 5,
     "static_dimension", "stablehlo.iota", "dimension 1", NULL, NULL, 0, NULL, 0,
     "clamp capacity (plumb_nn_moe_route_clamped)"},
    {"topk-varying-k", "top_k with a data-dependent k", 10, 5, "attribute", "chlo.top_k", "attribute k ", NULL,
     NULL, 0, NULL, 0, "clamp k (plumb_nn_top_k_clamped)"},
    {"varying-sequence-length", "a static sequence length per batch; fixed by a bounded '?' dimension", 20, 20,
     "entry_signature", NULL, "parameter 0 dimension 0", NULL, seq_lengths,
     sizeof seq_lengths / sizeof seq_lengths[0], NULL, 0, "buckets with masks (plumb_nn_bucket; one compile per bucket, where the fix here is a bounded ? for 1)"},
};

#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* The outcome of running one sequence (leak or fix). */
typedef struct seq_result {
    uint32_t steps, n_files;
    plumb_runtime_stats st;
    uint32_t explained;        /* recompiles whose explanation has the expected cause */
    char **expl_json;          /* every recompile's explanation JSON, in order */
    uint32_t n_expl;
    char *first_line;          /* the first recompile's explanation line */
    char *error;               /* why the sequence stopped; NULL when it ran to the end */
} seq_result;

static void seq_result_free(seq_result *r, uint32_t cap)
{
    for (uint32_t i = 0; i < r->n_expl; i++)
        plumb_free(r->expl_json[i], strlen(r->expl_json[i]) + 1);
    if (r->expl_json)
        plumb_free(r->expl_json, cap * sizeof *r->expl_json);
    if (r->first_line)
        plumb_free(r->first_line, strlen(r->first_line) + 1);
    if (r->error)
        plumb_free(r->error, strlen(r->error) + 1);
}

static char *dup_str(const char *s)
{
    return plumb_strndup(s, strlen(s));
}

static void set_error(seq_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(seq_result *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->error)
        r->error = dup_str(msg);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, uint32_t n, uint32_t cap)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_free(names[i], strlen(names[i]) + 1);
    if (names)
        plumb_free(names, cap * sizeof *names);
}

#define MAX_FILES 256

/* The .mlir files of dir, as paths, sorted by name; NULL with *why set
 * when the folder cannot be read or holds none. */
static char **list_programs(const char *dir, uint32_t *n, char *why, size_t why_cap)
{
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        snprintf(why, why_cap, "cannot read the folder '%s': %s", dir, strerror(errno));
        return NULL;
    }
    char **names = plumb_calloc(MAX_FILES, sizeof *names);
    if (!names) {
        closedir(dp);
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".mlir") != 0)
            continue;
        if (*n == MAX_FILES) {
            snprintf(why, why_cap, "'%s' holds more than %d programs", dir, MAX_FILES);
            goto fail;
        }
        size_t plen = strlen(dir) + 1 + len;
        char *p = plumb_calloc(plen + 1, 1);
        if (!p) {
            snprintf(why, why_cap, "out of memory");
            goto fail;
        }
        snprintf(p, plen + 1, "%s/%s", dir, e->d_name);
        names[(*n)++] = p;
    }
    closedir(dp);
    if (*n == 0) {
        snprintf(why, why_cap, "no .mlir programs in '%s'", dir);
        free_names(names, 0, MAX_FILES);
        return NULL;
    }
    qsort(names, *n, sizeof *names, name_cmp);
    return names;
fail:
    closedir(dp);
    free_names(names, *n, MAX_FILES);
    *n = 0;
    return NULL;
}

/* Parses and verifies one program; NULL with the error in r. */
static ir_module *load_program(const char *file, seq_result *r)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        set_error(r, "%s: %s", file, d.msg);
        return NULL;
    }
    ir_parse_options po = {sizeof po, 0, 0};
    ir_module *m = ir_parse(text, len, file, &po, &d);
    plumb_free(text, len + 1);
    ir_verify_options vo = {sizeof vo, 0};
    if (m && !ir_verify(m, &vo, &d)) {
        ir_module_free(m);
        m = NULL;
    }
    if (!m)
        set_error(r, "%s:%u:%u: %s", file, d.loc.line, d.loc.col, d.msg);
    return m;
}

/* Reads the JSON string starting after its opening quote at p into out
 * (escapes decoded for \" and \\, others kept as written). */
static void json_read_str(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    for (; *p && *p != '"'; p++) {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        if (n + 1 < cap)
            out[n++] = *p;
    }
    out[n] = 0;
}

/* True when the explanation JSON (runtime/explain.c's object) lists a
 * difference of class cls whose "op" is op (when op is set) and whose
 * "what" contains what (when set). Each difference is an object that
 * begins with {"class": "...; the pattern cannot occur inside a JSON string,
 * where the quotes are escaped. */
static bool expl_has_cause(const char *json, const scenario *s)
{
    const char *p = strstr(json, "\"differences\": [");
    if (!p)
        return false;
    const char *end = strstr(p, "\"causes\": {");
    static const char start[] = "{\"class\": \"";
    for (p = strstr(p, start); p && (!end || p < end);) {
        const char *next = strstr(p + 1, start);
        const char *lim = next ? next : end;
        char cls[64], op[128], what[4096];
        json_read_str(p + strlen(start), cls, sizeof cls);
        const char *po = strstr(p, "\"op\": \""), *pw = strstr(p, "\"what\": \"");
        op[0] = what[0] = 0;
        if (po && (!lim || po < lim))
            json_read_str(po + 7, op, sizeof op);
        if (pw && (!lim || pw < lim))
            json_read_str(pw + 9, what, sizeof what);
        if (strcmp(cls, s->cause_class) == 0 && (!s->cause_op || strcmp(op, s->cause_op) == 0) &&
            (!s->cause_what || strstr(what, s->cause_what)))
            return true;
        p = next;
    }
    return false;
}

/* Runs the programs of DIR/NAME/PART (leak or fix), s->steps steps, through
 * a fresh runtime with the given policy ("none" unless a policy is what is
 * being counted: PLUMB_POLICY must not change the expected counts). */
static void run_sequence(const char *dir, const scenario *s, const char *part, const char *policy, seq_result *r)
{
    memset(r, 0, sizeof *r);
    r->steps = s->steps;
    r->st.struct_size = sizeof r->st;
    char path[4096], why[4200];
    snprintf(path, sizeof path, "%s/%s/%s", dir, s->name, part);
    uint32_t n = 0;
    char **files = list_programs(path, &n, why, sizeof why);
    ir_module **mods = NULL;
    plumb_runtime *rt = NULL;
    if (!files) {
        set_error(r, "%s", why);
        return;
    }
    r->n_files = n;
    if (!(mods = plumb_calloc(n, sizeof *mods)) || !(r->expl_json = plumb_calloc(s->steps, sizeof *r->expl_json))) {
        set_error(r, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!(mods[i] = load_program(files[i], r)))
            goto out;
    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    ro.threads = 1;       /* counts do not depend on threads; keep the machine free */
    ro.cache_dir = "";    /* no disk cache, whatever PLUMB_CACHE_DIR says: every compile is built here */
    ro.policy = policy;
    plumb_diag d = {.code = PLUMB_OK};
    if (!(rt = plumb_runtime_create(&ro, &d))) {
        set_error(r, "cannot create the runtime: %s", d.msg);
        goto out;
    }
    cli_gen_opts g;
    memset(&g, 0, sizeof g);
    g.random = true;
    g.seed = 1;
    for (uint32_t i = 0; i < s->n_sizes && i < CLI_MAX_DIM_SIZES; i++)
        g.dim_sizes[i] = s->sizes[i];
    g.n_dim_sizes = s->n_sizes < CLI_MAX_DIM_SIZES ? s->n_sizes : CLI_MAX_DIM_SIZES;
    for (uint32_t step = 0; step < s->steps && !r->error; step++) {
        const ir_module *m = mods[step % n];
        const char *file = files[step % n];
        const ir_func *f = ir_module_find_func(m, "main");
        if (!f) {
            set_error(r, "%s: no function @main", file);
            break;
        }
        plumb_runtime_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
        plumb_runtime_stats_get(rt, NULL, &before);
        d = (plumb_diag){.code = PLUMB_OK};
        plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
        if (!ex) {
            set_error(r, "%s (step %u): compile failed: %s", file, step + 1, d.msg);
            break;
        }
        plumb_runtime_stats_get(rt, NULL, &after);
        if (after.recompiles > before.recompiles) {
            const char *js = plumb_runtime_last_explanation_json(rt);
            const char *line = plumb_runtime_last_explanation(rt);
            if (js && r->n_expl < s->steps) {
                if (expl_has_cause(js, s))
                    r->explained++;
                if (!(r->expl_json[r->n_expl] = dup_str(js))) {
                    set_error(r, "out of memory");
                    break;
                }
                r->n_expl++;
            }
            if (line && !r->first_line)
                r->first_line = dup_str(line);
        }
        uint32_t n_in = f->body.n_args, n_out = plumb_executable_num_outputs(ex);
        plumb_tensor **ins = n_in ? plumb_calloc(n_in, sizeof *ins) : NULL;
        plumb_tensor **outs = n_out ? plumb_calloc(n_out, sizeof *outs) : NULL;
        if ((n_in && !ins) || (n_out && !outs)) {
            set_error(r, "out of memory");
        } else if (cli_gen_inputs("scenarios", &g, f, step, 0, ins) != CLI_EXIT_OK) {
            set_error(r, "%s (step %u): cannot generate its inputs", file, step + 1);
        } else {
            uint32_t failed = 0;
            d = (plumb_diag){.code = PLUMB_OK};
            if (!plumb_executable_run(ex, ins, n_in, outs, n_out, &failed, &d))
                set_error(r, "%s (step %u): run failed: %s", file, step + 1, d.msg);
            for (uint32_t i = 0; i < n_out; i++)
                plumb_tensor_free(outs[i]);
        }
        for (uint32_t i = 0; ins && i < n_in; i++)
            plumb_tensor_free(ins[i]);
        if (ins)
            plumb_free(ins, n_in * sizeof *ins);
        if (outs)
            plumb_free(outs, n_out * sizeof *outs);
    }
    plumb_runtime_stats_get(rt, NULL, &r->st);
out:
    if (rt)
        plumb_runtime_destroy(rt);
    for (uint32_t i = 0; mods && i < n; i++)
        if (mods[i])
            ir_module_free(mods[i]);
    if (mods)
        plumb_free(mods, n * sizeof *mods);
    free_names(files, n, MAX_FILES);
}

typedef enum { ST_PASS, ST_FAIL, ST_GAP } scen_status;

static const char *status_name(scen_status st)
{
    return st == ST_PASS ? "PASS" : st == ST_GAP ? "KNOWN GAP" : "FAIL";
}

static void json_seq(const char *key, const seq_result *r, uint32_t expected, bool with_expl)
{
    printf("\"%s\": {\"files\": %u, \"steps\": %u, \"compiles\": %llu, \"expected_compiles\": %u, "
           "\"recompiles\": %llu, \"cache_hits\": %llu, \"runs\": %llu",
           key, r->n_files, r->steps, (unsigned long long)r->st.compiles, expected,
           (unsigned long long)r->st.recompiles, (unsigned long long)r->st.cache_hits,
           (unsigned long long)r->st.runs);
    if (with_expl) {
        printf(", \"explained\": %u, \"explanations\": [", r->explained);
        for (uint32_t i = 0; i < r->n_expl; i++)
            printf("%s%s", i ? ", " : "", r->expl_json[i]);
        printf("]");
    }
    printf(", \"error\": ");
    if (r->error)
        plumb_json_str_fput(stdout, r->error);
    else
        printf("null");
    printf("}");
}

static void print_list(bool json)
{
    if (json)
        printf("{\"scenarios\": [");
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        const scenario *s = &scenarios[i];
        if (json) {
            printf("%s{\"name\": ", i ? ", " : "");
            plumb_json_str_fput(stdout, s->name);
            printf(", \"title\": ");
            plumb_json_str_fput(stdout, s->title);
            printf(", \"steps\": %u, \"leak_compiles\": %u, \"fix_compiles\": 1, \"cause\": ", s->steps,
                   s->leak_compiles);
            plumb_json_str_fput(stdout, s->cause_class);
            printf(", \"known_gap\": %s, \"policy\": ", s->gap ? "true" : "false");
            if (s->policy)
                plumb_json_str_fput(stdout, s->policy);
            else
                printf("null");
            printf(", \"policy_compiles\": %u, \"builder_policy\": ", s->policy_compiles);
            if (s->builder)
                plumb_json_str_fput(stdout, s->builder);
            else
                printf("null");
            printf("}");
        } else {
            printf("%-24s %2u steps: leak %2u compiles, fix 1; cause %s%s\n    %s\n", s->name, s->steps,
                   s->leak_compiles, s->cause_class, s->gap ? " (known gap)" : "", s->title);
            if (s->policy)
                printf("    runtime policy %s: the leak's programs compile %u time%s\n", s->policy,
                       s->policy_compiles, s->policy_compiles == 1 ? "" : "s");
            else if (s->builder)
                printf("    nn builder policy: %s\n", s->builder);
        }
    }
    if (json)
        printf("]}\n");
}

enum { OPT_HELP = 1, OPT_LIST, OPT_ONLY, OPT_JSON, OPT_BACKEND, OPT_DIR };

static const cli_opt scenarios_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"list", 0, false, OPT_LIST},
    {"only", 0, true, OPT_ONLY},
    {"json", 0, false, OPT_JSON},
    {"backend", 0, true, OPT_BACKEND},
    {"dir", 0, true, OPT_DIR},
    {NULL, 0, false, 0},
};

int cmd_scenarios(int argc, char **argv)
{
    const char *cmd = "scenarios";
    bool list = false, json = false, only_set = false;
    bool selected[N_SCENARIOS] = {false};
    const char *dir = getenv("PLUMB_SCENARIOS_DIR");
    if (!dir || !*dir)
        dir = "scenarios";
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, scenarios_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(scenarios_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_LIST:
            list = true;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_DIR:
            dir = v;
            break;
        case OPT_BACKEND:
            if (strcmp(v, "runtime") != 0)
                return cli_usage_error(cmd, "--backend %s: the scenarios count the compiled runtime's compiles; "
                                            "only 'runtime' is supported", v);
            break;
        case OPT_ONLY: {
            size_t k = 0;
            while (k < N_SCENARIOS && strcmp(scenarios[k].name, v) != 0)
                k++;
            if (k == N_SCENARIOS) {
                char names[1024];
                size_t at = 0;
                for (size_t i = 0; i < N_SCENARIOS && at < sizeof names; i++)
                    at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "",
                                           scenarios[i].name);
                return cli_usage_error(cmd, "--only: no scenario '%s' (there are: %s)", v, names);
            }
            selected[k] = true;
            only_set = true;
            break;
        }
        case CLI_OPERAND:
            return cli_usage_error(cmd, "unexpected argument '%s'", v);
        }
    }
    if (list) {
        print_list(json);
        return cli_finish(cmd, CLI_EXIT_OK);
    }
    DIR *probe = opendir(dir);
    if (!probe) {
        fprintf(stderr, "plumb %s: error: cannot read the scenario folder '%s': %s (name it with --dir or "
                        "PLUMB_SCENARIOS_DIR; it is scenarios/ in plumb's source tree)\n",
                cmd, dir, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    closedir(probe);

    uint32_t passed = 0, failed = 0, gaps = 0;
    bool first = true;
    if (json)
        printf("{\"scenarios\": [");
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        const scenario *s = &scenarios[i];
        if (only_set && !selected[i])
            continue;
        seq_result leak, fix, pol;
        run_sequence(dir, s, "leak", "none", &leak);
        run_sequence(dir, s, "fix", "none", &fix);
        memset(&pol, 0, sizeof pol);
        if (s->policy)   /* the leak's own programs again, the runtime policy on */
            run_sequence(dir, s, "leak", s->policy, &pol);
        bool counts_ok = !leak.error && !fix.error && leak.st.compiles == s->leak_compiles && fix.st.compiles == 1 &&
                         (!s->policy || (!pol.error && pol.st.compiles == s->policy_compiles));
        /* every recompile of the leak explained with the expected cause */
        bool cause_ok = leak.n_expl > 0 && leak.explained == leak.n_expl && leak.n_expl == leak.st.recompiles;
        scen_status st = counts_ok && cause_ok ? ST_PASS : counts_ok && s->gap ? ST_GAP : ST_FAIL;
        if (st == ST_PASS)
            passed++;
        else if (st == ST_GAP)
            gaps++;
        else
            failed++;
        if (json) {
            printf("%s{\"name\": ", first ? "" : ", ");
            plumb_json_str_fput(stdout, s->name);
            printf(", \"status\": \"%s\", ", st == ST_PASS ? "pass" : st == ST_GAP ? "known_gap" : "fail");
            json_seq("leak", &leak, s->leak_compiles, true);
            printf(", ");
            json_seq("fix", &fix, 1, false);
            printf(", \"policy\": ");
            if (s->policy) {
                plumb_json_str_fput(stdout, s->policy);
                printf(", ");
                json_seq("leak_policy", &pol, s->policy_compiles, false);
            } else {
                printf("null, \"leak_policy\": null");
            }
            printf(", \"builder_policy\": ");
            if (s->builder)
                plumb_json_str_fput(stdout, s->builder);
            else
                printf("null");
            printf(", \"expected_cause\": {\"class\": ");
            plumb_json_str_fput(stdout, s->cause_class);
            printf(", \"op\": ");
            if (s->cause_op)
                plumb_json_str_fput(stdout, s->cause_op);
            else
                printf("null");
            printf(", \"what\": ");
            plumb_json_str_fput(stdout, s->cause_what);
            printf("}, \"cause_named\": %s, \"gap\": ", cause_ok ? "true" : "false");
            if (s->gap)
                plumb_json_str_fput(stdout, s->gap);
            else
                printf("null");
            printf("}");
        } else {
            printf("%-24s %s\n", s->name, status_name(st));
            printf("  leak: %2u steps, compiles %llu (expected %u), cache hits %llu\n", leak.steps,
                   (unsigned long long)leak.st.compiles, s->leak_compiles, (unsigned long long)leak.st.cache_hits);
            printf("  fix:  %2u steps, compiles %llu (expected 1), cache hits %llu\n", fix.steps,
                   (unsigned long long)fix.st.compiles, (unsigned long long)fix.st.cache_hits);
            if (s->policy)
                printf("  leak+policy %s: %2u steps, compiles %llu (expected %u), cache hits %llu\n", s->policy,
                       pol.steps, (unsigned long long)pol.st.compiles, s->policy_compiles,
                       (unsigned long long)pol.st.cache_hits);
            else if (s->builder)
                printf("  policy: the nn builder's %s writes the fix\n", s->builder);
            if (pol.error)
                printf("  error (leak+policy): %s\n", pol.error);
            printf("  cause expected: %s%s%s%s%s%s; %u of %llu recompiles explained so\n", s->cause_class,
                   s->cause_op ? " at " : "", s->cause_op ? s->cause_op : "", s->cause_what ? ", saying '" : "",
                   s->cause_what ? s->cause_what : "", s->cause_what ? "'" : "", leak.explained,
                   (unsigned long long)leak.st.recompiles);
            if (leak.first_line)
                printf("  runtime: %s\n", leak.first_line);
            if (st == ST_GAP)
                printf("  known gap: %s\n", s->gap);
            if (st == ST_PASS && s->gap)
                printf("  note: the known gap is closed; remove it from cli/cmd_scenarios.c\n");
            if (leak.error)
                printf("  error (leak): %s\n", leak.error);
            if (fix.error)
                printf("  error (fix): %s\n", fix.error);
        }
        first = false;
        seq_result_free(&leak, s->steps);
        seq_result_free(&fix, s->steps);
        seq_result_free(&pol, s->steps);
        fflush(stdout);
    }
    if (json)
        printf("], \"passed\": %u, \"failed\": %u, \"known_gaps\": %u}\n", passed, failed, gaps);
    else
        printf("scenarios: %u passed, %u failed, %u known gaps\n", passed, failed, gaps);
    return cli_finish(cmd, failed ? CLI_EXIT_INVALID : CLI_EXIT_OK);
}
