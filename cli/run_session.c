/* plumb run's session mode: every FILE (--repeat N times over) compiled and
 * run through ONE runtime, as a training loop calls one model again and
 * again. A program the runtime has seen is a cache hit; a new one is a
 * compile, and after an entry's first, a recompile with an explanation of
 * every difference (--explain), counted per module and entry (--stats) and
 * refused by the gates (--max-compiles, --error-on-recompile), which exit 1
 * with the explanation. Results go to standard output as for a single run;
 * explanations and statistics to standard error, as text or, with --json,
 * one JSON object per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
#include "cli.h"
#include "html_reports.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "plumb/shape.h"
#include "plumb/contract.h"
#include "run_session.h"

/* ---- inputs: --input files and generated values ------------------------------ */

int cli_find_param(const ir_func *f, const char *name, size_t len)
{
    if (len > 1 && name[0] == '%') {
        name++;
        len--;
    }
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        const char *pn = f->body.args[i]->name;
        if (pn && strlen(pn) == len && memcmp(pn, name, len) == 0)
            return (int)i;
    }
    if (len == 0 || len > 9)
        return -1;
    uint32_t idx = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        idx = idx * 10 + (uint32_t)(name[i] - '0');
    }
    return idx < f->body.n_args ? (int)idx : -1;
}

void cli_param_name(char *out, size_t n, const ir_func *f, uint32_t i)
{
    const char *pn = f->body.args[i]->name;
    if (pn)
        snprintf(out, n, "%%%s (index %u)", pn, i);
    else
        snprintf(out, n, "index %u", i);
}

int cli_no_such_param(const char *cmd, const char *opt, const char *arg, const ir_func *f, size_t len)
{
    /* Name the parameters the user can choose from. */
    char names[512] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < f->body.n_args && used < sizeof names - 64; i++) {
        char pn[128];
        cli_param_name(pn, sizeof pn, f, i);
        int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", pn);
        if (w > 0)
            used += (size_t)w < sizeof names - used ? (size_t)w : sizeof names - used - 1;
    }
    return cli_usage_error(cmd, "%s '%s': @%s has no parameter '%.*s' (its parameters: %s)", opt, arg, f->name,
                           (int)len, arg, f->body.n_args ? names : "none");
}

bool cli_parse_dim_sizes(const char *s, cli_gen_opts *g)
{
    uint32_t n = 0;
    const char *p = s;
    for (;;) {
        if (*p < '0' || *p > '9' || n == CLI_MAX_DIM_SIZES)
            return false;
        int64_t v = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            v = v * 10 + (*p - '0');
            if (v > INT32_MAX)
                return false;
        }
        g->dim_sizes[n++] = v;
        if (!*p)
            break;
        if (*p++ != ',')
            return false;
    }
    g->n_dim_sizes = n;
    return true;
}

/* Deterministic values for parameter `param` of run `run`: small dyadic
 * numbers (k/8, |k| <= 16) exactly representable in every float type, small
 * integers, or booleans, so that every backend reads the same input. The
 * seed 0 gives the values plumb gave before seeds existed. */
static bool fill_random(plumb_tensor *t, uint64_t seed, uint32_t run, uint32_t param)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (run + 1) ^ (0xBF58476D1CE4E5B9ull * (param + 1)) ^
                 (0x94D049BB133111EBull * seed);
    if (!s)
        s = 1;   /* xorshift stays at 0 forever */
    uint64_t n = plumb_tensor_numel(t);
    const plumb_dtype_info *di = plumb_dtype_get(t->dtype);
    for (uint64_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int64_t k = (int64_t)(s % 33) - 16;
        uint64_t bits;
        if (di->cls == PLUMB_DC_COMPLEX) {
            /* (k/8, k'/8): the real part from this draw, the imaginary part
             * from the next, both exact in f32 and f64 */
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            int64_t k2 = (int64_t)(s % 33) - 16;
            plumb_complex_store(t->dtype, t->data, (size_t)i, (double)k / 8.0, (double)k2 / 8.0);
            continue;
        }
        switch (di->cls) {
        case PLUMB_DC_FLOAT: {
            double v = (double)k / 8.0;
            if (t->dtype == PLUMB_F16)
                bits = plumb_f64_to_f16(v);
            else if (t->dtype == PLUMB_BF16)
                bits = plumb_f64_to_bf16(v);
            else if (t->dtype == PLUMB_F32)
                bits = plumb_f32_bits((float)v);
            else
                bits = plumb_f64_bits(v);
            break;
        }
        case PLUMB_DC_BOOL: bits = (uint64_t)(s & 1); break;
        case PLUMB_DC_UINT: bits = (uint64_t)(s % 16); break;
        case PLUMB_DC_SINT: bits = (uint64_t)(k / 2); break;
        default: return false;
        }
        if (di->bits < 64)
            bits &= (1ull << di->bits) - 1;
        plumb_store_bits(t->dtype, t->data, (size_t)i, bits);
    }
    return true;
}

static bool has_dyn_dim(const ir_type *ty)
{
    for (uint32_t k = 0; k < ty->rank; k++)
        if (ty->dims[k] == PLUMB_DIM_DYN)
            return true;
    return false;
}

/* The --shape of parameter p ("NAME=DIMS"), or NULL. Usage errors for
 * a --shape naming no parameter are raised by check_shape_names. */
static const char *shape_for(const cli_gen_opts *g, const ir_func *f, uint32_t p)
{
    for (int k = 0; k < g->n_shapes; k++) {
        const char *eq = strchr(g->shapes[k], '=');
        if (eq && cli_find_param(f, g->shapes[k], (size_t)(eq - g->shapes[k])) == (int)p)
            return g->shapes[k];
    }
    return NULL;
}

/* Every --shape is NAME=DIMS, names a parameter of f, once, that has no
 * --input (already loaded into ins). */
static int check_shape_names(const char *cmd, const cli_gen_opts *g, const ir_func *f, plumb_tensor *const *ins)
{
    for (int k = 0; k < g->n_shapes; k++) {
        const char *arg = g->shapes[k];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            return cli_usage_error(cmd, "--shape '%s' is not NAME=DIMS (e.g. arg1=4x128)", arg);
        int p = cli_find_param(f, arg, (size_t)(eq - arg));
        if (p < 0)
            return cli_no_such_param(cmd, "--shape", arg, f, (size_t)(eq - arg));
        char pn[128];
        cli_param_name(pn, sizeof pn, f, (uint32_t)p);
        if (ins[p])
            return cli_usage_error(cmd, "--shape '%s': parameter %s has an --input, whose file gives its shape",
                                   arg, pn);
        for (int j = 0; j < k; j++) {
            const char *e2 = strchr(g->shapes[j], '=');
            if (e2 && cli_find_param(f, g->shapes[j], (size_t)(e2 - g->shapes[j])) == p)
                return cli_usage_error(cmd, "--shape '%s': parameter %s was already given a shape", arg, pn);
        }
    }
    return CLI_EXIT_OK;
}

/* The dims of generated parameter p: --shape's (checked against the type),
 * else the static dims and a size for each `?`. */
static int param_dims(const char *cmd, const cli_gen_opts *g, const ir_func *f, uint32_t p, uint32_t run,
                      int64_t *dims)
{
    const ir_type *ty = &f->body.args[p]->type;
    /* worded as ir_shape_check_args words the same fault in an --input */
    char pn[160];
    const char *nm = f->body.args[p]->name;
    if (nm)
        snprintf(pn, sizeof pn, "@%s parameter %u (%%%s)", f->name, p, nm);
    else
        snprintf(pn, sizeof pn, "@%s parameter %u", f->name, p);
    const char *shape = shape_for(g, f, p);
    if (shape) {
        /* "4x128"; a scalar parameter's shape is empty */
        uint32_t rank = 0;
        const char *q = strchr(shape, '=') + 1;
        while (*q) {
            if (rank == PLUMB_MAX_RANK || *q < '0' || *q > '9')
                goto bad_shape;
            int64_t v = 0;
            for (; *q >= '0' && *q <= '9'; q++) {
                v = v * 10 + (*q - '0');
                if (v > INT32_MAX)
                    goto bad_shape;
            }
            dims[rank++] = v;
            if (*q && (*q++ != 'x' || !*q))
                goto bad_shape;
        }
        if (rank != ty->rank)
            return cli_usage_error(cmd, "--shape %s: %s has rank %u, the shape gives %u dimensions",
                                   shape, pn, ty->rank, rank);
        for (uint32_t k = 0; k < rank; k++) {
            if (ty->dims[k] != PLUMB_DIM_DYN && dims[k] != ty->dims[k])
                return cli_usage_error(cmd, "--shape %s: %s dimension %u: size %lld differs from its "
                                       "static size %lld", shape, pn, k, (long long)dims[k],
                                       (long long)ty->dims[k]);
            if (ty->dims[k] == PLUMB_DIM_DYN && ty->bounds[k] != PLUMB_NO_BOUND && dims[k] > ty->bounds[k])
                return cli_usage_error(cmd, "--shape %s: %s dimension %u: size %lld exceeds its bound %lld",
                                       shape, pn, k, (long long)dims[k], (long long)ty->bounds[k]);
        }
        return CLI_EXIT_OK;
    bad_shape:
        return cli_usage_error(cmd, "--shape %s: %s: the shape is not sizes joined by 'x' (e.g. 4x128)",
                               shape, pn);
    }
    for (uint32_t k = 0; k < ty->rank; k++) {
        if (ty->dims[k] != PLUMB_DIM_DYN) {
            dims[k] = ty->dims[k];
        } else if (g->n_dim_sizes) {
            dims[k] = g->dim_sizes[run % g->n_dim_sizes];
            if (ty->bounds[k] != PLUMB_NO_BOUND && dims[k] > ty->bounds[k])
                return cli_usage_error(cmd, "--dim-size %lld: %s dimension %u: size %lld exceeds its "
                                       "bound %lld", (long long)dims[k], pn, k, (long long)dims[k],
                                       (long long)ty->bounds[k]);
        } else {
            dims[k] = ty->bounds[k] != PLUMB_NO_BOUND ? ty->bounds[k] : 3;
        }
    }
    return CLI_EXIT_OK;
}

static bool is_int_scalar(const ir_type *ty) { return ty->rank == 0 && plumb_dtype_is_int(ty->dtype); }

int cli_gen_inputs(const char *cmd, const cli_gen_opts *g, const ir_func *f, uint32_t run, uint64_t max_bytes,
                   plumb_tensor **ins)
{
    uint32_t n = f->body.n_args;
    int rc = check_shape_names(cmd, g, f, ins);
    if (rc != CLI_EXIT_OK)
        return rc;
    uint32_t first_dyn = n;
    for (uint32_t i = 0; i < n && first_dyn == n; i++)
        if (has_dyn_dim(&f->body.args[i]->type))
            first_dyn = i;
    /* Every parameter but the leading dimension sizes first: their values
     * come from the others' shapes. */
    for (uint32_t i = 0; i < n; i++) {
        const ir_type *ty = &f->body.args[i]->type;
        if (ins[i] || (i < first_dyn && first_dyn < n && is_int_scalar(ty)))
            continue;
        int64_t dims[PLUMB_MAX_RANK];
        if ((rc = param_dims(cmd, g, f, i, run, dims)) != CLI_EXIT_OK)
            return rc;
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[i] = plumb_tensor_new(ty->dtype, ty->rank, dims, max_bytes, &d))) {
            cli_print_diag(cmd, &d);
            return CLI_EXIT_USAGE;
        }
        if (!fill_random(ins[i], g->seed, run, i)) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, i);
            return cli_usage_error(cmd, "--random-inputs: cannot generate %s values (parameter %s of @%s)",
                                   plumb_dtype_name(ty->dtype), pn, f->name);
        }
    }
    if (first_dyn == n)
        return CLI_EXIT_OK;
    /* The sizes of the `?` dimensions in parameter order, as the tensors
     * have them. */
    int64_t sizes[64];
    uint32_t n_sizes = 0;
    for (uint32_t i = first_dyn; i < n && n_sizes < 64; i++) {
        const ir_type *ty = &f->body.args[i]->type;
        for (uint32_t k = 0; k < ty->rank && k < ins[i]->rank && n_sizes < 64; k++)
            if (ty->dims[k] == PLUMB_DIM_DYN)
                sizes[n_sizes++] = ins[i]->dims[k];
    }
    int64_t extra = g->n_dim_sizes ? g->dim_sizes[run % g->n_dim_sizes] : 3;
    uint32_t k = 0;
    for (uint32_t i = 0; i < first_dyn; i++) {
        const ir_type *ty = &f->body.args[i]->type;
        if (!is_int_scalar(ty))
            continue;
        int64_t v = k < n_sizes ? sizes[k] : extra;
        k++;
        if (ins[i])
            continue;   /* an --input overrides */
        plumb_diag d = {.code = PLUMB_OK};
        if (!(ins[i] = plumb_tensor_new(ty->dtype, 0, NULL, max_bytes, &d))) {
            cli_print_diag(cmd, &d);
            return CLI_EXIT_USAGE;
        }
        const plumb_dtype_info *di = plumb_dtype_get(ty->dtype);
        /* A size that does not fit the scalar's type would wrap silently. */
        int64_t max = di->cls == PLUMB_DC_SINT ? (int64_t)((1ull << (di->bits - 1)) - 1)
                                               : di->bits >= 63 ? INT64_MAX : (int64_t)((1ull << di->bits) - 1);
        if (v > max) {
            char pn[128];
            cli_param_name(pn, sizeof pn, f, i);
            return cli_usage_error(cmd, "--random-inputs: the dimension size %lld does not fit parameter %s (%s)",
                                   (long long)v, pn, plumb_dtype_name(ty->dtype));
        }
        plumb_store_bits(ty->dtype, ins[i]->data, 0, (uint64_t)v);
    }
    return CLI_EXIT_OK;
}

int cli_check_inputs(const char *cmd, const char *file, const ir_func *f, plumb_tensor *const *ins, uint32_t n)
{
    plumb_diag d = {.code = PLUMB_OK};
    if (ir_shape_check_args(f, (const plumb_tensor *const *)ins, n, &d))
        return CLI_EXIT_OK;
    if (!d.file)
        d.file = file;
    /* Show both whole types of the first parameter that does not fit: the
     * dimension alone does not say which tensor file was given. */
    for (uint32_t i = 0; i < n && i < f->body.n_args; i++) {
        const ir_type *ty = &f->body.args[i]->type;
        const plumb_tensor *t = ins[i];
        bool fits = t->dtype == ty->dtype && t->rank == ty->rank;
        for (uint32_t k = 0; fits && k < ty->rank; k++)
            fits = ty->dims[k] == PLUMB_DIM_DYN ? ty->bounds[k] == PLUMB_NO_BOUND || t->dims[k] <= ty->bounds[k]
                                                : t->dims[k] == ty->dims[k];
        if (fits)
            continue;
        plumb_buf gb, db;
        plumb_buf_init(&gb);
        plumb_buf_init(&db);
        plumb_tensor_type_print(&gb, t);
        ir_type_print(&db, ty);
        size_t used = strlen(d.msg);
        if (!gb.failed && !db.failed && gb.data && db.data)
            snprintf(d.msg + used, sizeof d.msg - used, " (given %s, declared %s)", gb.data, db.data);
        plumb_buf_free(&gb);
        plumb_buf_free(&db);
        break;
    }
    cli_print_diag(cmd, &d);
    return CLI_EXIT_USAGE;
}

/* The value of --input NAME=FILE for parameter i of f, or NULL. */
static const char *input_for(const cli_session_opts *o, const ir_func *f, uint32_t i)
{
    const char *pn = f->body.args[i]->name;
    char idx[16];
    snprintf(idx, sizeof idx, "%u", i);
    for (int k = 0; k < o->n_inputs; k++) {
        const char *eq = strchr(o->inputs[k], '=');
        if (!eq)
            continue;
        size_t n = (size_t)(eq - o->inputs[k]);
        const char *name = o->inputs[k];
        if (n > 1 && name[0] == '%') {
            name++;
            n--;
        }
        if ((pn && strlen(pn) == n && memcmp(pn, name, n) == 0) || (strlen(idx) == n && memcmp(idx, name, n) == 0))
            return eq + 1;
    }
    return NULL;
}

static void free_inputs(plumb_tensor **ins, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(ins[i]);
    if (ins)
        plumb_free(ins, n * sizeof *ins);
}

/* Inputs of f for run `run`: --input files, else generated values with
 * --random-inputs, checked against the parameter types. CLI_EXIT_OK or a
 * usage error (printed). */
static int make_inputs(const cli_session_opts *o, const char *file, const ir_func *f, uint32_t run,
                       plumb_tensor ***out)
{
    uint32_t n = f->body.n_args;
    plumb_tensor **ins = n ? plumb_calloc(n, sizeof *ins) : NULL;
    if (n && !ins) {
        fprintf(stderr, "plumb %s: error: out of memory\n", o->cmd);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_OK;
    for (uint32_t i = 0; i < n; i++) {
        const char *path = input_for(o, f, i);
        plumb_diag d = {.code = PLUMB_OK};
        const char *pn = f->body.args[i]->name;
        if (path) {
            if (!(ins[i] = plumb_tensor_load(path, o->max_bytes, &d))) {
                cli_print_diag(o->cmd, &d);
                rc = CLI_EXIT_USAGE;
                goto out;
            }
        } else if (!o->gen.random) {
            rc = cli_usage_error(o->cmd, "parameter %u (%%%s) of @%s has no --input (or use --random-inputs)", i,
                                 pn ? pn : "?", f->name);
            goto out;
        }
    }
    if (o->gen.random && (rc = cli_gen_inputs(o->cmd, &o->gen, f, run, o->max_bytes, ins)) != CLI_EXIT_OK)
        goto out;
    rc = cli_check_inputs(o->cmd, file, f, ins, n);
out:
    if (rc != CLI_EXIT_OK) {
        free_inputs(ins, n);
        return rc;
    }
    *out = ins;
    return CLI_EXIT_OK;
}

/* A tuple result's value: its elements in parentheses, nested as its type
 * (docs/spec/tuple.md), taking leaves from outs[*at] on. */
static void print_tuple_value(const cli_session_opts *o, plumb_buf *b, const ir_type *t, plumb_tensor **outs,
                              uint32_t n, uint32_t *at)
{
    if (!t->tuple) {
        if (*at < n)
            plumb_dense_print(b, outs[*at], o->hex);
        (*at)++;
        return;
    }
    plumb_buf_puts(b, "(");
    for (uint32_t i = 0; i < t->tuple->n; i++) {
        if (i)
            plumb_buf_puts(b, ", ");
        print_tuple_value(o, b, &t->tuple->elems[i], outs, n, at);
    }
    plumb_buf_puts(b, ")");
}

/* One line per result of f (NULL: per tensor); the executable returns a
 * tuple result as its leaves, printed on one line as plumb run does. */
static int print_results(const cli_session_opts *o, const ir_func *f, plumb_tensor **outs, uint32_t n)
{
    bool grouped = false;
    for (uint32_t r = 0; f && r < f->n_results; r++)
        grouped = grouped || f->result_types[r].tuple;
    uint32_t lines = grouped ? f->n_results : n;
    for (uint32_t i = 0, at = 0; i < lines; i++) {
        plumb_buf b;
        plumb_buf_init(&b);
        if (grouped) {
            ir_type_print(&b, &f->result_types[i]);
            plumb_buf_puts(&b, " ");
            if (f->result_types[i].tuple)
                print_tuple_value(o, &b, &f->result_types[i], outs, n, &at);
            else if (at < n)
                plumb_dense_print(&b, outs[at++], o->hex);
        } else {
            plumb_tensor_type_print(&b, outs[i]);
            plumb_buf_puts(&b, " ");
            plumb_dense_print(&b, outs[i], o->hex);
        }
        plumb_buf_puts(&b, "\n");
        plumb_diag d = {.code = PLUMB_OK};
        bool ok = !b.failed && cli_write_stdout(b.data, b.len, &d);
        if (b.failed)
            plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing result %u", i);
        plumb_buf_free(&b);
        if (!ok) {
            cli_print_diag(o->cmd, &d);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

static void print_stats_line(FILE *f, bool json, const char *module, const char *name, const plumb_runtime_stats *st)
{
    if (json) {
        fputs("{\"stats\": ", f);
        if (name) {
            fputs("{\"module\": ", f);
            if (module)
                plumb_json_str_fput(f, module);
            else
                fputs("null", f);
            fputs(", \"entry\": ", f);
            plumb_json_str_fput(f, name);
            fputs(", ", f);
        } else {
            fputs("{\"entry\": null, ", f);
        }
        fprintf(f, "\"programs\": %u, \"compiles\": %llu, \"recompiles\": %llu, \"cache_hits\": %llu, "
                   "\"disk_hits\": %llu, \"disk_rejects\": %llu, \"disk_evictions\": %llu, \"runs\": %llu, "
                   "\"compile_seconds\": %.6f, \"execute_seconds\": %.6f}}\n",
                st->programs, (unsigned long long)st->compiles, (unsigned long long)st->recompiles,
                (unsigned long long)st->cache_hits, (unsigned long long)st->disk_hits,
                (unsigned long long)st->disk_rejects, (unsigned long long)st->disk_evictions,
                (unsigned long long)st->runs, st->compile_seconds, st->execute_seconds);
        return;
    }
    char label[300];
    if (!name)
        snprintf(label, sizeof label, "total");
    else if (module)
        snprintf(label, sizeof label, "@%s (module @%s)", name, module);
    else
        snprintf(label, sizeof label, "@%s", name);
    fprintf(f, "plumb: stats %s: %u programs, %llu compiles (%llu recompiles), %llu cache hits, %llu disk hits, "
               "%llu disk rejects, %llu disk evictions, %llu runs, compile %.3f ms, execute %.3f ms\n",
            label, st->programs, (unsigned long long)st->compiles, (unsigned long long)st->recompiles,
            (unsigned long long)st->cache_hits, (unsigned long long)st->disk_hits,
            (unsigned long long)st->disk_rejects, (unsigned long long)st->disk_evictions,
            (unsigned long long)st->runs, st->compile_seconds * 1e3, st->execute_seconds * 1e3);
}

/* Parses and verifies one FILE; NULL after printing why (*rc set). */
static ir_module *load_module(const cli_session_opts *o, const char *file, int *rc)
{
    plumb_diag d = {.code = PLUMB_OK};
    size_t len = 0;
    char *text = cli_read_input(file, &len, &d);
    if (!text) {
        cli_print_diag(o->cmd, &d);
        *rc = CLI_EXIT_USAGE;
        return NULL;
    }
    ir_parse_options po = {sizeof po, 0, o->max_bytes};
    ir_module *m = ir_parse(text, len, cli_display_name(file), &po, &d);
    plumb_free(text, len + 1);
    ir_verify_options vo = {sizeof vo, o->max_bytes};
    if (m && !ir_verify(m, &vo, &d)) {
        ir_module_free(m);
        m = NULL;
    }
    if (!m) {
        if (!d.file)
            d.file = cli_display_name(file);
        cli_print_diag(o->cmd, &d);
        *rc = cli_program_exit(d.code);
    }
    return m;
}

int cli_run_session(const cli_session_opts *o)
{
    int rc = CLI_EXIT_OK;
    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    ro.threads = o->threads;
    ro.max_bytes = o->max_bytes;
    ro.timeout_s = o->timeout_s;
    ro.max_programs_per_entry = o->max_compiles;
    ro.error_on_recompile = o->error_on_recompile;
    ro.contract_file = o->contract;
    if (o->stats) {   /* the causes of each entry's recompiles, after the counters */
        ro.summary = stderr;
        ro.summary_json = o->json;
    }
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&ro, &d);
    if (!rt) {
        cli_print_diag(o->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    uint32_t runs = 0, total = o->repeat * (uint32_t)o->n_files;
    /* --html: what each run did, for the page (cli/html_reports.c) */
    cli_run_event *ev = NULL;
    uint32_t n_ev = 0;
    if (o->html && !(ev = plumb_calloc(total ? total : 1, sizeof *ev))) {
        fprintf(stderr, "plumb %s: error: out of memory\n", o->cmd);
        plumb_runtime_destroy(rt);
        return CLI_EXIT_USAGE;
    }
    for (uint32_t r = 0; r < o->repeat && rc == CLI_EXIT_OK; r++) {
        for (int k = 0; k < o->n_files && rc == CLI_EXIT_OK; k++) {
            const char *file = o->files[k];
            ir_module *m = load_module(o, file, &rc);
            if (!m)
                break;
            /* Inputs first: a usage error in them (a size above a bound)
             * is the same whether or not the program compiles. Without the
             * entry the compile below says what is missing. */
            const ir_func *f = ir_module_find_func(m, o->entry ? o->entry : "main");
            plumb_tensor **ins = NULL, **outs = NULL;
            uint32_t n_in = f ? f->body.n_args : 0;
            /* inputs are tensors (docs/spec/tuple.md), as for plumb run */
            for (uint32_t i = 0; f && i < f->body.n_args && rc == CLI_EXIT_OK; i++)
                if (f->body.args[i]->type.tuple) {
                    char pn[128];
                    cli_param_name(pn, sizeof pn, f, i);
                    rc = cli_usage_error(o->cmd, "parameter %s of @%s has a tuple type; plumb %s takes tensor inputs "
                                         "only (build the tuple inside the program from tensor parameters)",
                                         pn, f->name, o->cmd);
                }
            if (rc != CLI_EXIT_OK) {
                ir_module_free(m);
                break;
            }
            if (f && (rc = make_inputs(o, cli_display_name(file), f, runs, &ins)) != CLI_EXIT_OK) {
                ir_module_free(m);
                break;
            }
            plumb_runtime_stats before, after;
            plumb_runtime_stats_get(rt, NULL, &before);
            d = (plumb_diag){.code = PLUMB_OK};
            plumb_executable *ex = plumb_runtime_compile(rt, m, o->entry, &d);
            plumb_runtime_stats_get(rt, NULL, &after);
            const char *expl = plumb_runtime_last_explanation(rt);
            if (!ex) {
                /* a gate refused the program: the message holds the explanation */
                if (!d.file)
                    d.file = cli_display_name(file);
                if (o->json && d.code == PLUMB_ERR_LIMIT && plumb_runtime_last_explanation_json(rt)) {
                    fputs("{\"refused\": ", stderr);
                    fputs(plumb_runtime_last_explanation_json(rt), stderr);
                    fputs("}\n", stderr);
                }
                cli_print_diag(o->cmd, &d);
                rc = cli_program_exit(d.code);
                free_inputs(ins, n_in);
                ir_module_free(m);
                break;
            }
            if (ev && n_ev < total) {
                cli_run_event *e = &ev[n_ev++];
                e->file = (uint32_t)k;
                e->run = runs;
                e->compiled = after.compiles > before.compiles;
                e->recompiled = after.recompiles > before.recompiles;
                e->disk_hit = after.disk_hits > before.disk_hits;
                size_t elen = expl ? strlen(expl) + 1 : 0;
                if (e->recompiled && expl && (e->explanation = plumb_malloc(elen)))
                    memcpy(e->explanation, expl, elen);
            }
            if (o->explain && after.recompiles > before.recompiles && expl) {
                if (o->json)
                    fprintf(stderr, "%s\n", plumb_runtime_last_explanation_json(rt));
                else
                    fprintf(stderr, "plumb: %s: %s\n", cli_display_name(file), expl);
            }
            uint32_t n_out = plumb_executable_num_outputs(ex);
            if (n_out && !(outs = plumb_calloc(n_out, sizeof *outs))) {
                fprintf(stderr, "plumb %s: error: out of memory\n", o->cmd);
                rc = CLI_EXIT_USAGE;
            }
            uint32_t failed = 0;
            if (rc == CLI_EXIT_OK) {
                if (!plumb_executable_run(ex, ins, n_in, outs, n_out, &failed, &d)) {
                    if (!d.file)
                        d.file = cli_display_name(file);
                    cli_print_diag(o->cmd, &d);
                    rc = cli_program_exit(d.code);
                } else {
                    if (total > 1)
                        printf("// %s (run %u)\n", cli_display_name(file), runs + 1);
                    rc = print_results(o, f, outs, n_out);
                    for (uint32_t i = 0; i < n_out; i++)
                        plumb_tensor_free(outs[i]);
                    if (rc == CLI_EXIT_OK && failed) {
                        fprintf(stderr, "plumb %s: %s: %u checks failed\n", o->cmd, cli_display_name(file), failed);
                        rc = CLI_EXIT_INVALID;
                    }
                }
            }
            if (outs)
                plumb_free(outs, n_out * sizeof *outs);
            free_inputs(ins, n_in);
            ir_module_free(m);
            runs++;
        }
    }
    /* A rule that matched nothing is a misspelt name, not a pass. */
    d = (plumb_diag){.code = PLUMB_OK};
    if (rc == CLI_EXIT_OK && !plumb_runtime_contract_check(rt, &d)) {
        cli_print_diag(o->cmd, &d);
        rc = cli_program_exit(d.code);
    }
    if (o->stats) {
        fflush(stdout);
        plumb_runtime_stats st;
        for (uint32_t i = 0; i < plumb_runtime_entry_count(rt); i++) {
            const char *module, *name;
            if (plumb_runtime_entry_stats(rt, i, &module, &name, &st))
                print_stats_line(stderr, o->json, module, name, &st);
        }
        plumb_runtime_stats_get(rt, NULL, &st);
        print_stats_line(stderr, o->json, NULL, NULL, &st);
    }
    if (ev) {
        d = (plumb_diag){.code = PLUMB_OK};
        if (!cli_run_html_write(o->html, o->files, o->n_files, ev, n_ev, rt, &d)) {
            cli_print_diag(o->cmd, &d);
            if (rc == CLI_EXIT_OK)
                rc = CLI_EXIT_USAGE;
        }
        cli_run_events_free(ev, n_ev);
        plumb_free(ev, (total ? total : 1) * sizeof *ev);
    }
    plumb_runtime_destroy(rt);
    return rc;
}
