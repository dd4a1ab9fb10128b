/* plumb fuzz: differential fuzzing of a backend against the reference
 * (fuzz/, docs/fuzz.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/fuzz.h"
#include "cli.h"
#include "html_reports.h"

static const char fuzz_help[] =
    "usage: plumb fuzz [--backend ref|runtime|PATH.so] [--seed S] [--count N | --time T]\n"
    "                  [--mutators LIST] [--out DIR] [--json FILE] [--html FILE] [options]\n"
    "\n"
    "Generates random valid programs from the op table (elementwise ops with\n"
    "select and clamp, reduce_precision, convert, bitcast_convert,\n"
    "broadcast_in_dim, reshape, transpose, slice, dynamic_slice,\n"
    "dynamic_update_slice, concatenate, reverse, pad, iota, reduce with add\n"
    "and maximum bodies, dot, dot_general, sort, top_k, gather, scatter with\n"
    "add and replace bodies, rng_bit_generator; with --poly, parameters with\n"
    "bounded `?` dimensions and the dynamic ops on shapes computed with\n"
    "get_dimension_size: dynamic_broadcast_in_dim, dynamic_reshape,\n"
    "dynamic_iota, real_dynamic_slice, dynamic_pad, dynamic_gather),\n"
    "runs each and its mutants on the backend in a worker process, and\n"
    "checks three oracles:\n"
    "  agree     every op's result (all intermediates are returned) against\n"
    "            the reference re-evaluating that op on the backend's own\n"
    "            operands, under the op table's bound (exact ops bitwise)\n"
    "  compiles  the compiles a program and each mutant cause (the backend's\n"
    "            stats) against what the compile-cache contract predicts\n"
    "  crash     a worker that dies (hang: one that runs past --timeout)\n"
    "Findings are deduplicated by signature (oracle/op/dtype/mutator); each\n"
    "is printed once and, with --out, saved as a directory holding the\n"
    "program, its inputs as tensor files, what was expected and observed, and\n"
    "a README with the command that replays it.\n"
    "\n"
    "options:\n"
    "      --backend B         ref, runtime (default) or a backend plugin .so\n"
    "      --seed S            campaign seed (default 1); program i's seed is\n"
    "                          derived from S and i, so a run is reproducible\n"
    "      --count N           programs to run (default 1000, before sharding)\n"
    "      --time T            stop after T seconds (with --count: whichever\n"
    "                          comes first; alone: no count limit)\n"
    "      --index I           start at program I (with --count 1: replay one)\n"
    "      --mutators LIST     comma-separated, 'all' (default) or 'none':\n"
    "                            params     new parameter values: 0 compiles\n"
    "                            identical  the same program again: 0\n"
    "                            constant   a baked constant changed: exactly 1\n"
    "                            shape      static shapes changed: exactly 1\n"
    "                            poly-size  the size of every `?` changed within\n"
    "                                       its bound: 0 on a backend claiming\n"
    "                                       bounded or unbounded polymorphism,\n"
    "                                       1 on per-shape (claim none: not run)\n"
    "                            bake       a parameter baked into a constant: 1\n"
    "                            lift       a constant lifted to a parameter: 1\n"
    "                            batch-field an optional parameter added with\n"
    "                                       the op that uses it, or one that\n"
    "                                       only an add reads dropped with\n"
    "                                       the add: 1\n"
    "                            attr       an attribute tweaked (compare\n"
    "                                       direction, sort order, reverse or\n"
    "                                       transpose dims, reduce body): 1\n"
    "                            insert     an op inserted: 1\n"
    "                            remove     an op removed: 1\n"
    "      --ops LIST          ops the generator may use (short or full names;\n"
    "                          default: every op it builds, op set v2's\n"
    "                          convolution, reduce_window, select_and_scatter,\n"
    "                          cholesky, triangular_solve, batch_norm_inference,\n"
    "                          batch_norm_training, batch_norm_grad, while, if\n"
    "                          and case included; docs/fuzz.md)\n"
    "      --dtypes LIST       element types (default: all), e.g. f32,f16,i32\n"
    "      --max-nodes N       ops per program, at most (default 8)\n"
    "      --max-elements N    elements per parameter, at most (default 256)\n"
    "      --poly P            percent of parameters (rank >= 1) whose dimension\n"
    "                          0 is a bounded `?` (default 0); every `?` of a\n"
    "                          program has one actual size\n"
    "      --shard I/N         run programs i with i mod N = I; default from\n"
    "                          TEST_SHARD_INDEX and TEST_TOTAL_SHARDS\n"
    "      --out DIR           save each finding as DIR/NNN-SIGNATURE/\n"
    "      --json FILE         write the JSON report (counts, op coverage,\n"
    "                          findings) to FILE\n"
    "      --html FILE         write a self-contained HTML page to FILE: the\n"
    "                          verdict, findings grouped by oracle and op with\n"
    "                          the command that replays each, op coverage per\n"
    "                          element type as inline SVG\n"
    "      --timeout S         seconds per program and its mutants before it\n"
    "                          counts as a hang (default 20)\n"
    "      --batch N           programs per worker process (default 64)\n"
    "      --coverage          print the coverage table before the last line:\n"
    "                          op results checked per op and element type of\n"
    "                          every pair the generator can build with the\n"
    "                          given --ops, --dtypes and --poly ('.' = none yet),\n"
    "                          the pairs not reached, and the ops of the table\n"
    "                          the generator does not build\n"
    "  -q, --quiet             no progress line (shown on a terminal only)\n"
    "  -h, --help              show this help\n"
    "\n"
    "The last line is 'fuzz: N programs, N mutants, N ops checked, N findings'.\n"
    "\n"
    "exit codes:\n"
    "  0  no finding\n"
    "  1  something was found\n"
    "  2  usage error, a backend that cannot be loaded, an unusable --out,\n"
    "     --json or --html, or a generator bug (a generated program that does not verify)\n";

enum {
    OPT_HELP = 1, OPT_BACKEND, OPT_SEED, OPT_COUNT, OPT_TIME, OPT_INDEX, OPT_MUTATORS, OPT_OPS, OPT_DTYPES,
    OPT_MAX_NODES, OPT_MAX_ELEMS, OPT_SHARD, OPT_OUT, OPT_JSON, OPT_TIMEOUT, OPT_BATCH, OPT_QUIET, OPT_POLY,
    OPT_COVERAGE, OPT_HTML,
};

static const cli_opt fuzz_opts[] = {
    {"help", 'h', false, OPT_HELP},
    {"backend", 0, true, OPT_BACKEND},
    {"seed", 0, true, OPT_SEED},
    {"count", 0, true, OPT_COUNT},
    {"time", 0, true, OPT_TIME},
    {"index", 0, true, OPT_INDEX},
    {"mutators", 0, true, OPT_MUTATORS},
    {"ops", 0, true, OPT_OPS},
    {"dtypes", 0, true, OPT_DTYPES},
    {"max-nodes", 0, true, OPT_MAX_NODES},
    {"max-elements", 0, true, OPT_MAX_ELEMS},
    {"poly", 0, true, OPT_POLY},
    {"shard", 0, true, OPT_SHARD},
    {"out", 0, true, OPT_OUT},
    {"json", 0, true, OPT_JSON},
    {"html", 0, true, OPT_HTML},
    {"timeout", 0, true, OPT_TIMEOUT},
    {"batch", 0, true, OPT_BATCH},
    {"quiet", 'q', false, OPT_QUIET},
    {"coverage", 0, false, OPT_COVERAGE},
    {NULL, 0, false, 0},
};

static bool parse_seconds(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 1e9)
        return false;
    *out = v;
    return true;
}

/* Parses a comma-separated list of op names into ops (only ops the
 * generator can build). */
static int parse_ops(const char *cmd, const char *s, bool *ops)
{
    memset(ops, 0, PLUMB_OP_COUNT * sizeof *ops);
    while (*s) {
        size_t n = strcspn(s, ",");
        plumb_opcode op;
        if (!n || !plumb_op_lookup(s, n, &op))
            return cli_usage_error(cmd, "--ops: '%.*s' is not an op (plumb ops lists them)", (int)n, s);
        if (!fz_op_supported(op))
            return cli_usage_error(cmd, "--ops: the generator does not build %s yet", plumb_op_name(op));
        ops[op] = true;
        s += n;
        if (*s == ',')
            s++;
    }
    return CLI_EXIT_OK;
}

static int parse_dtypes(const char *cmd, const char *s, uint32_t *mask)
{
    *mask = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        plumb_dtype t;
        if (!n || !plumb_dtype_parse(s, n, &t))
            return cli_usage_error(cmd, "--dtypes: '%.*s' is not an element type", (int)n, s);
        *mask |= PLUMB_TY_BIT(t);
        s += n;
        if (*s == ',')
            s++;
    }
    if (!*mask)
        return cli_usage_error(cmd, "--dtypes: no element type given");
    return CLI_EXIT_OK;
}

/* --coverage: op results checked per op x element type, over the pairs the
 * generator can build with these options; then the pairs not reached and
 * the ops of the table it does not build at all. */
static void print_coverage(const fz_options *o, const fz_result *res)
{
    uint32_t reachable = 0, reached = 0;
    printf("coverage: op results checked per op and element type ('.' = none, '-' = not built)\n%-36s", "op");
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        if (o->gen.dtypes & PLUMB_TY_BIT(t))
            printf(" %6s", plumb_dtype_name((plumb_dtype)t));
    printf("\n");
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        plumb_opcode op = (plumb_opcode)i;
        /* get_dimension_size is built as a part of the computed shapes */
        bool built = (fz_op_supported(op) && o->gen.ops[i] && (o->gen.poly || !fz_op_needs_poly(op))) ||
                     (op == PLUMB_OP_GET_DIMENSION_SIZE && o->gen.poly && o->gen.ops[PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM]);
        if (!built)
            continue;
        printf("%-36s", plumb_op_name(op));
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!(o->gen.dtypes & PLUMB_TY_BIT(t)))
                continue;
            if (!fz_pair_possible(op, (plumb_dtype)t)) {
                printf(" %6s", "-");
                continue;
            }
            reachable++;
            uint64_t c = res->op_cover[i][t];
            reached += c != 0;
            if (c)
                printf(" %6llu", (unsigned long long)c);
            else
                printf(" %6s", ".");
        }
        printf("\n");
    }
    printf("coverage: %u of %u op x type pairs reached\n", reached, reachable);
    printf("coverage: not built by the generator:");
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        if (!fz_op_supported((plumb_opcode)i) && i != PLUMB_OP_GET_DIMENSION_SIZE)
            printf(" %s", plumb_op_name((plumb_opcode)i));
    printf("\n");
}

int cmd_fuzz(int argc, char **argv)
{
    const char *cmd = "fuzz";
    fz_options o;
    fz_options_init(&o);
    const char *json = NULL, *html = NULL;
    bool quiet = false, shard_given = false, count_given = false, time_given = false, coverage = false;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id, rc;
    char bad[64];
    while ((id = cli_next(&a, fuzz_opts, &v)) != CLI_END) {
        switch (id) {
        case CLI_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_HELP:
            fputs(fuzz_help, stdout);
            return cli_finish(cmd, CLI_EXIT_OK);
        case OPT_BACKEND:
            o.backend = v;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(v, &o.seed))
                return cli_usage_error(cmd, "--seed: '%s' is not an unsigned integer", v);
            break;
        case OPT_COUNT:
            if (!cli_parse_u64(v, &o.count) || o.count == 0)
                return cli_usage_error(cmd, "--count: '%s' is not a positive integer", v);
            count_given = true;
            break;
        case OPT_TIME:
            if (!parse_seconds(v, &o.time_s))
                return cli_usage_error(cmd, "--time: '%s' is not a positive number of seconds", v);
            time_given = true;
            break;
        case OPT_INDEX:
            if (!cli_parse_u64(v, &o.first))
                return cli_usage_error(cmd, "--index: '%s' is not an unsigned integer", v);
            break;
        case OPT_MUTATORS:
            if (!fz_mutators_parse(v, &o.mutators, bad, sizeof bad))
                return cli_usage_error(cmd, "--mutators: '%s' is not a mutator (params, identical, constant, shape, "
                                       "poly-size, bake, lift, batch-field, attr, insert, remove, all, none)", bad);
            break;
        case OPT_OPS:
            if ((rc = parse_ops(cmd, v, o.gen.ops)) != CLI_EXIT_OK)
                return rc;
            break;
        case OPT_DTYPES:
            if ((rc = parse_dtypes(cmd, v, &o.gen.dtypes)) != CLI_EXIT_OK)
                return rc;
            break;
        case OPT_MAX_NODES:
            if (!cli_parse_u32(v, &o.gen.max_nodes) || o.gen.max_nodes == 0 || o.gen.max_nodes > 32)
                return cli_usage_error(cmd, "--max-nodes: '%s' is not a number from 1 to 32", v);
            break;
        case OPT_POLY:
            if (!cli_parse_u32(v, &o.gen.poly) || o.gen.poly > 100)
                return cli_usage_error(cmd, "--poly: '%s' is not a percentage from 0 to 100", v);
            break;
        case OPT_MAX_ELEMS:
            if (!cli_parse_u32(v, &o.gen.max_elems) || o.gen.max_elems == 0 || o.gen.max_elems > (1u << 20))
                return cli_usage_error(cmd, "--max-elements: '%s' is not a number from 1 to 1048576", v);
            break;
        case OPT_SHARD:
            if (!cli_parse_shard(v, &o.shard_index, &o.shard_count))
                return cli_usage_error(cmd, "--shard: expected I/N with 0 <= I < N, got '%s'", v);
            shard_given = true;
            break;
        case OPT_OUT:
            o.out_dir = v;
            break;
        case OPT_JSON:
            json = v;
            break;
        case OPT_HTML:
            html = v;
            break;
        case OPT_TIMEOUT:
            if (!parse_seconds(v, &o.timeout_s))
                return cli_usage_error(cmd, "--timeout: '%s' is not a positive number of seconds", v);
            break;
        case OPT_BATCH:
            if (!cli_parse_u32(v, &o.batch) || o.batch == 0 || o.batch > 100000)
                return cli_usage_error(cmd, "--batch: '%s' is not a number from 1 to 100000", v);
            break;
        case OPT_QUIET:
            quiet = true;
            break;
        case OPT_COVERAGE:
            coverage = true;
            break;
        case CLI_OPERAND:
            return cli_usage_error(cmd, "unexpected argument '%s'", v);
        }
    }
    if (time_given && !count_given)
        o.count = 0;
    if (!shard_given && (rc = cli_shard_from_env(cmd, &o.shard_index, &o.shard_count)) != CLI_EXIT_OK)
        return rc;
    bool any_op = false;
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        any_op |= o.gen.ops[i];
    if (!any_op)
        return cli_usage_error(cmd, "--ops: no op given");
    plumb_diag d;
    plumb_diag_clear(&d);
    if (json && !plumb_check_write_target(json, &d)) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    if (html && !plumb_check_write_target(html, &d)) {
        cli_print_diag(cmd, &d);
        return CLI_EXIT_USAGE;
    }
    o.progress = !quiet && isatty(2);
    fz_result res;
    if (!fz_run(&o, &res, &d)) {
        cli_print_diag(cmd, &d);
        fz_result_free(&res);
        return CLI_EXIT_USAGE;
    }
    for (uint32_t i = 0; i < res.n_findings; i++) {
        const fz_finding *f = &res.findings[i];
        printf("FINDING %s: program %llu (%u programs): %s%s%s\n", f->signature, (unsigned long long)f->program,
               f->hits, f->detail, f->dir[0] ? "\n  saved in " : "", f->dir);
    }
    rc = res.n_findings ? CLI_EXIT_INVALID : CLI_EXIT_OK;
    if (json) {
        plumb_buf b;
        plumb_buf_init(&b);
        fz_report_json(&b, &o, &res);
        if (b.failed || !cli_write_atomic(json, b.data, b.len, &d)) {
            if (b.failed)
                plumb_diag_set(&d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory writing the report");
            cli_print_diag(cmd, &d);
            rc = CLI_EXIT_USAGE;
        }
        plumb_buf_free(&b);
    }
    if (coverage)
        print_coverage(&o, &res);
    if (html && !cli_fuzz_html_write(html, &o, &res, &d)) {
        cli_print_diag(cmd, &d);
        rc = CLI_EXIT_USAGE;
    }
    printf("fuzz: %llu programs, %llu mutants, %llu ops checked, %u findings (%.1f s, %.0f programs/s)\n",
           (unsigned long long)res.programs, (unsigned long long)res.mutants, (unsigned long long)res.ops_checked,
           res.n_findings, res.seconds, res.seconds > 0 ? (double)res.programs / res.seconds : 0.0);
    if (res.skipped)
        printf("fuzz: %llu programs skipped: they use an op or element type the backend does not claim\n",
               (unsigned long long)res.skipped);
    fz_result_free(&res);
    return cli_finish(cmd, rc);
}
