/* plumb refine: specialize a program with '?' dimensions to concrete
 * parameter shapes (plumb_ref_refine) and print the static module. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plumb/ir.h"
#include "plumb/ref.h"

static const char refine_help[] =
    "usage: plumb refine FILE --shape NAME=DIMS... [--value NAME=N]... [--entry NAME] [-o OUT] [--json]\n"
    "\n"
    "Specializes a program whose parameters have '?' dimensions to the given\n"
    "concrete shapes, as StableHLO's refine-shapes pass does, and prints the\n"
    "result in canonical form: every '?' replaced by its size,\n"
    "get_dimension_size folded to a constant, each dynamic op whose shape\n"
    "operands follow from the shapes (dynamic_broadcast_in_dim,\n"
    "dynamic_reshape, dynamic_iota, real_dynamic_slice, dynamic_pad,\n"
    "dynamic_gather) replaced by its static counterpart, shape assertions that\n"
    "hold dropped, ops nothing uses any more removed, and only the functions\n"
    "the entry calls kept. The output verifies with 'plumb verify' and runs on\n"
    "backends that compile static shapes only.\n"
    "\n"
    "A shape operand computed from a parameter's value (not only from shapes)\n"
    "cannot be refined; the error names the op and the operand.\n"
    "\n"
    "options:\n"
    "  --shape NAME=DIMS  the shape of one parameter: NAME is its SSA name\n"
    "                     without '%' (arg0) or its index (0); DIMS the sizes\n"
    "                     joined by 'x' (4x128), empty for a scalar. Each '?'\n"
    "                     must stay within its bound, static sizes must match.\n"
    "                     Parameters not named keep their declared type, which\n"
    "                     must then be static. Repeat for each parameter.\n"
    "  --value NAME=N     fix the value of an integer scalar parameter: it stays\n"
    "                     in the signature, but shapes computed from it fold.\n"
    "                     JAX's exports take each dimension size as a leading\n"
    "                     tensor<i64> parameter; give it with the shape\n"
    "                     (--value arg0=3 --shape arg1=3x4). Shape assertions\n"
    "                     relating the two are checked.\n"
    "      --entry NAME   the function to refine (default main)\n"
    "  -o, --output OUT   write to OUT instead of standard output (atomically)\n"
    "      --json         print {\"entry\", \"parameters\": [{\"index\", \"name\", \"type\"}],\n"
    "                     \"results\": [type...], \"module\": text} instead of the text\n"
    "      --max-bytes N  per-tensor byte limit (suffixes K M G T, Ki Mi Gi Ti)\n"
    "  -h, --help         show this help\n"
    "\n"
    "examples:\n"
    "  plumb refine model.mlir --shape arg0=4x128\n"
    "  plumb refine model.mlir --shape x=1x64 --shape 1=64x256 -o model.static.mlir\n"
    "  plumb refine model.mlir --shape arg0=8 --json | jq -r .module\n"
    "  plumb refine jax_export.mlir --value arg0=3 --shape arg1=3x4\n"
    "\n"
    "Errors are printed on standard error as FILE:LINE:COL: error: message.\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  the program is invalid, or cannot be refined to these shapes (a shape\n"
    "     operand depends on a parameter's value, a shape assertion fails, operand\n"
    "     sizes disagree at these shapes)\n"
    "  2  usage error: unknown parameter name, rank mismatch, a size above its\n"
    "     bound or unlike a static size, a parameter with '?' left unnamed, or an\n"
    "     input that cannot be read or an output that cannot be written\n";

enum { OPT_HELP = 1, OPT_SHAPE, OPT_VALUE, OPT_ENTRY, OPT_OUTPUT, OPT_JSON, OPT_MAX_BYTES };

static const cli_opt refine_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"shape", 0, true, OPT_SHAPE},
    {"value", 0, true, OPT_VALUE},
    {"entry", 0, true, OPT_ENTRY},
    {"output", 'o', true, OPT_OUTPUT},
    {"json", 0, false, OPT_JSON},
    {"max-bytes", 0, true, OPT_MAX_BYTES},
    {NULL, 0, false, 0},
};

#define REFINE_MAX_SHAPES 256

/* The parameter NAME names: its SSA name or its decimal index; -1 if none. */
static int find_param(const ir_func *f, const char *name, size_t len)
{
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        const char *n = f->body.args[i]->name;
        if (n && strlen(n) == len && !strncmp(n, name, len))
            return (int)i;
    }
    if (len == 0 || len > 9)
        return -1;
    uint32_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        k = k * 10 + (uint32_t)(name[i] - '0');
    }
    return k < f->body.n_args ? (int)k : -1;
}

static void type_text(char *out, size_t n, const ir_type *t)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(out, n, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
}

/* Applies one --shape NAME=DIMS to types[]; a usage error otherwise. */
static int apply_shape(const char *cmd, const ir_func *f, const char *spec, ir_type *types, bool *given)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return cli_usage_error(cmd, "--shape '%s': expected NAME=DIMS (e.g. arg0=4x128)", spec);
    int p = find_param(f, spec, (size_t)(eq - spec));
    if (p < 0) {
        char names[600];
        size_t n = 0;
        names[0] = '\0';
        for (uint32_t i = 0; i < f->body.n_args && n + 1 < sizeof names; i++) {
            int k = snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                             f->body.args[i]->name ? f->body.args[i]->name : "?");
            if (k > 0)
                n += (size_t)k;
        }
        return cli_usage_error(cmd, "--shape '%s': @%s has no parameter '%.*s' (its parameters: %s; or give an index)",
                               spec, f->name, (int)(eq - spec), spec, f->body.n_args ? names : "none");
    }
    if (given[p])
        return cli_usage_error(cmd, "--shape '%s': parameter %d is given twice", spec, p);
    given[p] = true;
    const ir_type *decl = &f->body.args[p]->type;
    int64_t dims[PLUMB_MAX_RANK];
    uint32_t rank = 0;
    const char *s = eq + 1;
    while (*s) {
        if (rank == PLUMB_MAX_RANK)
            return cli_usage_error(cmd, "--shape '%s': more than %d dimensions", spec, PLUMB_MAX_RANK);
        char *end;
        if (*s < '0' || *s > '9')
            return cli_usage_error(cmd, "--shape '%s': '%s' is not a size (sizes are decimal, joined by 'x')", spec, s);
        unsigned long long v = strtoull(s, &end, 10);
        if (v > (unsigned long long)INT64_MAX)
            return cli_usage_error(cmd, "--shape '%s': size %.*s is too large", spec, (int)(end - s), s);
        dims[rank++] = (int64_t)v;
        s = end;
        if (*s == 'x') {
            s++;
            if (!*s)
                return cli_usage_error(cmd, "--shape '%s': ends in 'x'", spec);
        } else if (*s) {
            return cli_usage_error(cmd, "--shape '%s': unexpected '%c' (sizes are joined by 'x')", spec, *s);
        }
    }
    char dt[300];
    type_text(dt, sizeof dt, decl);
    if (rank != decl->rank)
        return cli_usage_error(cmd, "--shape '%s': parameter %d (%%%s) has rank %u (%s), %u dimension%s given", spec, p,
                               f->body.args[p]->name ? f->body.args[p]->name : "?", decl->rank, dt, rank,
                               rank == 1 ? "" : "s");
    types[p] = ir_type_make(decl->dtype, rank, dims);
    return CLI_EXIT_OK;
}

/* Applies one --value NAME=N: the parameter must be an integer (or i1)
 * scalar and N fit its type. */
static int apply_value(const char *cmd, const ir_func *f, const char *spec, plumb_tensor **vals)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return cli_usage_error(cmd, "--value '%s': expected NAME=N (e.g. arg0=3)", spec);
    int p = find_param(f, spec, (size_t)(eq - spec));
    if (p < 0)
        return cli_usage_error(cmd, "--value '%s': @%s has no parameter '%.*s'", spec, f->name, (int)(eq - spec), spec);
    if (vals[p])
        return cli_usage_error(cmd, "--value '%s': parameter %d is given twice", spec, p);
    const ir_type *t = &f->body.args[p]->type;
    if (t->rank != 0 || !(plumb_dtype_is_int(t->dtype) || plumb_dtype_is_bool(t->dtype))) {
        char ts[300];
        type_text(ts, sizeof ts, t);
        return cli_usage_error(cmd, "--value '%s': parameter %d has type %s; only integer scalars take --value", spec, p, ts);
    }
    const char *s = eq + 1;
    bool neg = *s == '-';
    if (neg)
        s++;
    uint64_t mag;
    if (!cli_parse_u64(s, &mag))
        return cli_usage_error(cmd, "--value '%s': '%s' is not an integer", spec, eq + 1);
    uint32_t bits = plumb_dtype_is_bool(t->dtype) ? 1 : plumb_dtype_get(t->dtype)->bits;
    bool sgn = plumb_dtype_is_signed(t->dtype);
    uint64_t max_pos = sgn ? (UINT64_C(1) << (bits - 1)) - 1 : bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t max_neg = sgn ? UINT64_C(1) << (bits - 1) : 0;
    if ((neg && mag > max_neg) || (!neg && mag > max_pos))
        return cli_usage_error(cmd, "--value '%s': %s%llu does not fit %s", spec, neg ? "-" : "", (unsigned long long)mag,
                               plumb_dtype_name(t->dtype));
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *v = plumb_tensor_new(t->dtype, 0, NULL, 0, &d);
    if (!v) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    plumb_store_bits(t->dtype, v->data, 0, neg ? (uint64_t)0 - mag : mag);
    vals[p] = v;
    return CLI_EXIT_OK;
}

static void json_type(plumb_buf *b, const ir_type *t)
{
    char s[400];
    type_text(s, sizeof s, t);
    plumb_json_str_append(b, s);
}

int cmd_refine(int argc, char **argv)
{
    const char *cmd = "refine";
    const char *file = NULL, *out = NULL, *entry = "main";
    const char *shapes[REFINE_MAX_SHAPES];
    uint32_t n_shapes = 0;
    const char *values[REFINE_MAX_SHAPES];
    uint32_t n_values = 0;
    bool json = false;
    uint64_t max_bytes = 0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next(&a, refine_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(refine_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_SHAPE:
            if (n_shapes == REFINE_MAX_SHAPES)
                return cli_usage_error(cmd, "more than %d --shape options", REFINE_MAX_SHAPES);
            shapes[n_shapes++] = v;
            break;
        case OPT_VALUE:
            if (n_values == REFINE_MAX_SHAPES)
                return cli_usage_error(cmd, "more than %d --value options", REFINE_MAX_SHAPES);
            values[n_values++] = v;
            break;
        case OPT_ENTRY:
            entry = v;
            break;
        case OPT_OUTPUT:
            out = v;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_MAX_BYTES:
            if (!cli_parse_bytes(v, &max_bytes))
                return cli_usage_error(cmd, "--max-bytes '%s': expected a positive byte count (e.g. 1Gi)", v);
            break;
        case CLI_OPERAND:
            if (file)
                return cli_usage_error(cmd, "more than one FILE given ('%s' and '%s')", file, v);
            file = v;
            break;
        }
    }
    if (!file)
        return cli_usage_error(cmd, "no FILE given");

    plumb_diag d = {.code = PLUMB_OK};
    if (out && !plumb_check_write_target(out, &d)) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    const char *name = cli_display_name(file);
    int rc = CLI_EXIT_OK;
    ir_module *m = NULL, *r = NULL;
    ir_type *types = NULL;
    bool *given = NULL;
    plumb_tensor **vals = NULL;
    uint32_t n_params = 0;
    plumb_buf b;
    plumb_buf_init(&b);

    ir_parse_options po = {sizeof po, 0, max_bytes};
    m = ir_parse(text, len, name, &po, &d);
    ir_verify_options vo = {sizeof vo, max_bytes};
    if (!m || !ir_verify(m, &vo, &d)) {
        d.file = name;
        cli_print_diag(cmd, &d);
        rc = cli_program_exit(d.code);
        goto out;
    }
    const ir_func *f = ir_module_find_func(m, entry);
    if (!f) {
        rc = cli_usage_error(cmd, "%s has no function @%s (--entry)", name, entry);
        goto out;
    }
    n_params = f->body.n_args;
    types = plumb_calloc(n_params ? n_params : 1, sizeof *types);
    given = plumb_calloc(n_params ? n_params : 1, sizeof *given);
    vals = plumb_calloc(n_params ? n_params : 1, sizeof *vals);
    if (!types || !given || !vals) {
        fprintf(stderr, "plumb %s: error: out of memory\n", cmd);
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    for (uint32_t i = 0; i < n_shapes; i++)
        if ((rc = apply_shape(cmd, f, shapes[i], types, given)) != CLI_EXIT_OK)
            goto out;
    for (uint32_t i = 0; i < n_values; i++)
        if ((rc = apply_value(cmd, f, values[i], vals)) != CLI_EXIT_OK)
            goto out;
    for (uint32_t i = 0; i < n_params; i++) {
        if (given[i])
            continue;
        const ir_type *t = &f->body.args[i]->type;
        if (!ir_type_is_static(t)) {
            char ts[300];
            type_text(ts, sizeof ts, t);
            rc = cli_usage_error(cmd, "parameter %u (%%%s) of @%s has type %s: give its shape with --shape %s=DIMS", i,
                                 f->body.args[i]->name ? f->body.args[i]->name : "?", f->name, ts,
                                 f->body.args[i]->name ? f->body.args[i]->name : "INDEX");
            goto out;
        }
        types[i] = *t;
    }
    r = plumb_ref_refine_values(m, entry, types, vals, n_params, max_bytes, &d);
    if (!r) {
        if (!d.file)
            d.file = name;
        cli_print_diag(cmd, &d);
        rc = d.code == PLUMB_ERR_USAGE ? CLI_EXIT_USAGE : cli_program_exit(d.code);
        goto out;
    }
    if (json) {
        const ir_func *g = ir_module_find_func(r, entry);
        plumb_buf mt;
        plumb_buf_init(&mt);
        ir_print(&mt, r);
        plumb_buf_puts(&b, "{\"entry\": ");
        plumb_json_str_append(&b, entry);
        plumb_buf_puts(&b, ", \"parameters\": [");
        for (uint32_t i = 0; g && i < g->body.n_args; i++) {
            plumb_buf_printf(&b, "%s{\"index\": %u, \"name\": ", i ? ", " : "", i);
            if (g->body.args[i]->name)
                plumb_json_str_append(&b, g->body.args[i]->name);
            else
                plumb_buf_puts(&b, "null");
            plumb_buf_puts(&b, ", \"type\": ");
            json_type(&b, &g->body.args[i]->type);
            plumb_buf_puts(&b, "}");
        }
        plumb_buf_puts(&b, "], \"results\": [");
        for (uint32_t i = 0; g && i < g->n_results; i++) {
            plumb_buf_puts(&b, i ? ", " : "");
            json_type(&b, &g->result_types[i]);
        }
        plumb_buf_puts(&b, "], \"module\": ");
        plumb_json_str_append(&b, mt.data ? mt.data : "");
        plumb_buf_puts(&b, "}\n");
        if (mt.failed)
            b.failed = true;
        plumb_buf_free(&mt);
    } else {
        ir_print(&b, r);
    }
    if (b.failed) {
        fprintf(stderr, "plumb %s: error: out of memory printing the refined module\n", cmd);
        rc = CLI_EXIT_USAGE;
    } else if (out ? !cli_write_atomic(out, b.data ? b.data : "", b.len, &d) : !cli_write_stdout(b.data, b.len, &d)) {
        cli_print_diag(cmd, &d);
        rc = CLI_EXIT_USAGE;
    }
out:
    plumb_buf_free(&b);
    plumb_free(types, (n_params ? n_params : 1) * sizeof *types);
    plumb_free(given, (n_params ? n_params : 1) * sizeof *given);
    for (uint32_t i = 0; vals && i < n_params; i++)
        plumb_tensor_free(vals[i]);
    plumb_free(vals, (n_params ? n_params : 1) * sizeof *vals);
    ir_module_free(r);
    ir_module_free(m);
    plumb_free(text, len + 1);
    return cli_finish(cmd, rc);
}
