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

#include "cli.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "run_session.h"

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

/* Deterministic values for parameter `param` of run `run`: small dyadic
 * numbers (k/8, |k| <= 16) exactly representable in every float type, small
 * integers, or booleans, so that every backend reads the same input. */
static bool fill_random(plumb_tensor *t, uint32_t run, uint32_t param)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (run + 1) ^ (0xBF58476D1CE4E5B9ull * (param + 1));
    uint64_t n = plumb_tensor_numel(t);
    const plumb_dtype_info *di = plumb_dtype_get(t->dtype);
    for (uint64_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int64_t k = (int64_t)(s % 33) - 16;
        uint64_t bits;
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

static void free_inputs(plumb_tensor **ins, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(ins[i]);
    if (ins)
        plumb_free(ins, n * sizeof *ins);
}

/* Inputs of f for run `run`: --input files, else generated values with
 * --random-inputs. CLI_EXIT_OK or a usage error (printed). */
static int make_inputs(const cli_session_opts *o, const ir_func *f, uint32_t run, plumb_tensor ***out)
{
    uint32_t n = f->body.n_args;
    plumb_tensor **ins = n ? plumb_calloc(n, sizeof *ins) : NULL;
    if (n && !ins) {
        fprintf(stderr, "plumb %s: error: out of memory\n", o->cmd);
        return CLI_EXIT_USAGE;
    }
    for (uint32_t i = 0; i < n; i++) {
        const ir_type *ty = &f->body.args[i]->type;
        const char *path = input_for(o, f, i);
        plumb_diag d = {.code = PLUMB_OK};
        const char *pn = f->body.args[i]->name;
        if (path) {
            if (!(ins[i] = plumb_tensor_load(path, o->max_bytes, &d))) {
                cli_print_diag(o->cmd, &d);
                free_inputs(ins, n);
                return CLI_EXIT_USAGE;
            }
            continue;
        }
        if (!o->random_inputs) {
            free_inputs(ins, n);
            return cli_usage_error(o->cmd, "parameter %u (%%%s) of @%s has no --input (or use --random-inputs)", i,
                                   pn ? pn : "?", f->name);
        }
        for (uint32_t k = 0; k < ty->rank; k++)
            if (ty->dims[k] < 0) {
                free_inputs(ins, n);
                return cli_usage_error(o->cmd, "--random-inputs: parameter %u of @%s has a '?' dimension; "
                                       "give it an --input", i, f->name);
            }
        if (!(ins[i] = plumb_tensor_new(ty->dtype, ty->rank, ty->dims, o->max_bytes, &d))) {
            cli_print_diag(o->cmd, &d);
            free_inputs(ins, n);
            return CLI_EXIT_USAGE;
        }
        if (!fill_random(ins[i], run, i)) {
            free_inputs(ins, n);
            return cli_usage_error(o->cmd, "--random-inputs: cannot generate %s values (parameter %u of @%s)",
                                   plumb_dtype_name(ty->dtype), i, f->name);
        }
    }
    *out = ins;
    return CLI_EXIT_OK;
}

static int print_results(const cli_session_opts *o, plumb_tensor **outs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_tensor_type_print(&b, outs[i]);
        plumb_buf_puts(&b, " ");
        plumb_dense_print(&b, outs[i], o->hex);
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

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void print_stats_line(FILE *f, bool json, const char *module, const char *name, const plumb_runtime_stats *st)
{
    if (json) {
        fputs("{\"stats\": ", f);
        if (name) {
            fputs("{\"module\": ", f);
            if (module)
                json_string(f, module);
            else
                fputs("null", f);
            fputs(", \"entry\": ", f);
            json_string(f, name);
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
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&ro, &d);
    if (!rt) {
        cli_print_diag(o->cmd, &d);
        return CLI_EXIT_USAGE;
    }
    uint32_t runs = 0, total = o->repeat * (uint32_t)o->n_files;
    for (uint32_t r = 0; r < o->repeat && rc == CLI_EXIT_OK; r++) {
        for (int k = 0; k < o->n_files && rc == CLI_EXIT_OK; k++) {
            const char *file = o->files[k];
            ir_module *m = load_module(o, file, &rc);
            if (!m)
                break;
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
                ir_module_free(m);
                break;
            }
            if (o->explain && after.recompiles > before.recompiles && expl) {
                if (o->json)
                    fprintf(stderr, "%s\n", plumb_runtime_last_explanation_json(rt));
                else
                    fprintf(stderr, "plumb: %s: %s\n", cli_display_name(file), expl);
            }
            const ir_func *f = ir_module_find_func(m, o->entry ? o->entry : "main");
            plumb_tensor **ins = NULL, **outs = NULL;
            uint32_t n_in = f->body.n_args, n_out = plumb_executable_num_outputs(ex);
            if ((rc = make_inputs(o, f, r, &ins)) != CLI_EXIT_OK) {
                ir_module_free(m);
                break;
            }
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
                    rc = print_results(o, outs, n_out);
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
    plumb_runtime_destroy(rt);
    return rc;
}
