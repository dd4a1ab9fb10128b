/* plumb-bench: issue 4's benchmark. In one run: this machine's STREAM-style
 * bandwidth and a reference GEMM rate, then each workload on the reference
 * and on the runtime (validated against each other), a table on stdout and
 * the same figures as JSON. Ratios are only meaningful within one run: the
 * machine is shared and its speed drifts. See docs/bench.md. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct bench_opts {
    bench_config cfg;
    bool ops;                  /* --ops: the per-op table instead of the workloads */
    bool broad;                /* --suite broad: the broad suite (bench_broad.c) instead */
    const char *broad_only;    /* --broad-only NAME[,NAME...]; NULL = every broad workload */
    const char *json;          /* NULL = no JSON file */
    const char *only[32];
    unsigned n_only;
} bench_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: plumb-bench [--quick] [--threads N] [--json PATH] [--only NAME[,NAME...]]\n"
            "                   [--reps N] [--ref-reps N] [--ref-fraction N] [--examples DIR] [--perturb]\n"
            "       plumb-bench --ops [--quick] [--json PATH] [--reps N] [--ref-reps N]\n"
            "       plumb-bench --suite broad [--threads N] [--json PATH] [--broad-only NAME[,NAME...]]\n"
            "  --suite broad     instead of the workloads: every op class and element type at realistic\n"
            "                    sizes against this run's STREAM triad / GEMM rate and numpy (docs/bench.md)\n"
            "  --ops             instead of the workloads: every elementwise op on every element type it\n"
            "                    takes, one thread, runtime ns/element and speedup over the reference\n"
            "  --quick           small sizes (a smoke run of seconds; figures not comparable)\n"
            "  --threads N       runtime threads and the \"all threads\" machine figures (default: online cores)\n"
            "  --json PATH       write the figures as JSON\n"
            "  --only NAMES      run only these workloads (comma-separated; repeatable)\n"
            "  --reps N          minimum timed runs of each runtime measurement (default 10; quick 3)\n"
            "  --ref-reps N      minimum timed runs of each reference measurement (default 3; quick 1)\n"
            "  --ref-fraction N  the reference runs 1/N of the big workloads (default 64)\n"
            "  --examples DIR    where the example programs are (default examples)\n"
            "  --perturb         corrupt one element of each runtime result before validation\n"
            "                    (a self-test: every validated workload must then report a mismatch)\n"
            "workloads:");
    for (unsigned i = 0; i < bench_n_workloads; i++)
        fprintf(f, " %s", bench_workloads[i]);
    fprintf(f, "\n");
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    if (!s || !*s)
        return false;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v < lo || v > hi || s[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

static bool known_workload(const char *name)
{
    for (unsigned i = 0; i < bench_n_workloads; i++)
        if (strcmp(bench_workloads[i], name) == 0)
            return true;
    return false;
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
    static char only_buf[1024];
    size_t only_used = 0;
    int reps = -1, ref_reps = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned u;
        if (strcmp(a, "--ops") == 0) {
            o->ops = true;
        } else if (strcmp(a, "--suite") == 0) {
            if (!v || strcmp(v, "broad") != 0) {
                fprintf(stderr, "plumb-bench: --suite takes 'broad', got '%s'\n", v ? v : "");
                return 2;
            }
            o->broad = true;
            i++;
        } else if (strcmp(a, "--broad-only") == 0) {
            if (!v || !*v) {
                fprintf(stderr, "plumb-bench: --broad-only needs workload names\n");
                return 2;
            }
            if (!bench_broad_check_names(v))
                return 2;
            o->broad_only = v;
            i++;
        } else if (strcmp(a, "--quick") == 0) {
            o->cfg.quick = true;
        } else if (strcmp(a, "--perturb") == 0) {
            o->cfg.perturb = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_uint(v, 1, 1024, &u)) {
                fprintf(stderr, "plumb-bench: --threads needs a count from 1 to 1024, got '%s'\n", v ? v : "");
                return 2;
            }
            o->cfg.threads = u;
            i++;
        } else if (strcmp(a, "--reps") == 0 || strcmp(a, "--ref-reps") == 0 || strcmp(a, "--ref-fraction") == 0) {
            if (!parse_uint(v, 1, 100000, &u)) {
                fprintf(stderr, "plumb-bench: %s needs a count from 1 to 100000, got '%s'\n", a, v ? v : "");
                return 2;
            }
            if (strcmp(a, "--reps") == 0)
                reps = (int)u;
            else if (strcmp(a, "--ref-reps") == 0)
                ref_reps = (int)u;
            else
                o->cfg.ref_fraction = (int)u;
            i++;
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--examples") == 0) {
            if (!v || !*v) {
                fprintf(stderr, "plumb-bench: %s needs a path\n", a);
                return 2;
            }
            if (strcmp(a, "--json") == 0)
                o->json = v;
            else
                o->cfg.examples = v;
            i++;
        } else if (strcmp(a, "--only") == 0) {
            size_t len = v ? strlen(v) : 0;
            if (!len || only_used + len + 1 > sizeof only_buf) {
                fprintf(stderr, "plumb-bench: --only needs workload names\n");
                return 2;
            }
            char *copy = only_buf + only_used;
            memcpy(copy, v, len + 1);
            only_used += len + 1;
            for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (!known_workload(tok)) {
                    fprintf(stderr, "plumb-bench: unknown workload '%s'\n", tok);
                    usage(stderr);
                    return 2;
                }
                if (o->n_only == sizeof o->only / sizeof *o->only) {
                    fprintf(stderr, "plumb-bench: too many --only names\n");
                    return 2;
                }
                o->only[o->n_only++] = tok;
            }
            i++;
        } else {
            fprintf(stderr, "plumb-bench: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    o->cfg.reps = reps > 0 ? reps : o->cfg.quick ? 3 : 10;
    o->cfg.ref_reps = ref_reps > 0 ? ref_reps : o->cfg.quick ? 1 : 3;
    return 0;
}

static bool selected(const bench_opts *o, const char *name)
{
    if (!o->n_only)
        return true;
    for (unsigned i = 0; i < o->n_only; i++)
        if (strcmp(o->only[i], name) == 0)
            return true;
    return false;
}

/* ---- derived figures ------------------------------------------------------- */

typedef struct derived {
    double speedup;            /* ref_s / rt_s, NAN = n/a */
    double gbs;                /* bytes / rt_s / 1e9, NAN = n/a */
    double frac_stream;        /* gbs / triad at the runtime's thread count */
    double gflops;             /* flops / rt_s / 1e9 */
    double frac_gemm;          /* gflops / reference GEMM rate, same threads */
    double ns_elem;            /* chain: rt_s / elems * 1e9 */
    double ns_elem_1t;         /* chain, one thread */
    double frac_stream_1t;     /* chain, one thread, against one-thread triad */
    const char *status;        /* "ok", "mismatch", "error", "skipped" */
} derived;

static bool has_ref(const bench_result *r)
{
    return r->kind == BENCH_MEMORY || r->kind == BENCH_GEMM || r->kind == BENCH_PROGRAM;
}

static derived derive(const bench_result *r, const bench_stream *st, const bench_gemm_ref *gr)
{
    derived d = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, "ok"};
    if (!r->ran)
        d.status = "error";
    else if (!r->valid && strstr(r->error, "MISMATCH"))
        d.status = "mismatch";
    else if (!r->valid || r->error[0])
        d.status = "error";
    if (!r->ran || r->rt_s <= 0)
        return d;
    if (has_ref(r) && r->ref_s > 0)
        d.speedup = r->ref_s / r->rt_s;
    if (has_ref(r) && r->bytes > 0)
        d.gbs = r->bytes / r->rt_s / 1e9;
    if (r->kind == BENCH_MEMORY && st && st->triad_nt_gbs > 0)
        d.frac_stream = d.gbs / st->triad_nt_gbs;
    if (r->flops > 0) {
        d.gflops = r->flops / r->rt_s / 1e9;
        if (gr && gr->gflops_nt > 0)
            d.frac_gemm = d.gflops / gr->gflops_nt;
    }
    if (strcmp(r->name, "chain") == 0 && r->elems > 0) {
        d.ns_elem = r->rt_s / r->elems * 1e9;
        if (r->rt_1t_s > 0) {
            d.ns_elem_1t = r->rt_1t_s / r->elems * 1e9;
            if (st && st->triad_1t_gbs > 0)
                d.frac_stream_1t = r->bytes / r->rt_1t_s / 1e9 / st->triad_1t_gbs;
        }
    }
    return d;
}

/* ---- output ------------------------------------------------------------------ */

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "-");
}

static void print_table(FILE *f, const bench_result *rs, unsigned n, const bench_stream *st,
                        const bench_gemm_ref *gr, const bench_config *cfg)
{
    fprintf(f, "\nmachine (best pass; GB = 1e9 bytes, counted as STREAM counts):\n");
    fprintf(f, "  STREAM %llu f32 per array: copy %.1f GB/s, triad %.1f GB/s on 1 thread", (unsigned long long)st->elems,
            st->copy_1t_gbs, st->triad_1t_gbs);
    if (st->threads > 1)
        fprintf(f, "; copy %.1f, triad %.1f GB/s on %u threads", st->copy_nt_gbs, st->triad_nt_gbs, st->threads);
    fprintf(f, "\n  reference GEMM %dx%dx%d f32: %.1f GFLOP/s on 1 thread", gr->n, gr->n, gr->n, gr->gflops_1t);
    if (cfg->threads > 1)
        fprintf(f, ", %.1f on %u threads", gr->gflops_nt, cfg->threads);
    fprintf(f, " (%s)\n", gr->source);
    fprintf(f, "\nworkloads (runtime on %u thread%s; times are the best of the timed runs, seconds):\n", cfg->threads,
            cfg->threads == 1 ? "" : "s");
    fprintf(f, "%-24s %10s %10s %9s %9s %7s %7s %8s %7s %7s %s\n", "workload", "ref s", "runtime s", "speedup",
            "MB moved", "GB/s", "%triad", "GFLOP/s", "ns/el", "err/bd", "status");
    for (unsigned i = 0; i < n; i++) {
        const bench_result *r = &rs[i];
        derived d = derive(r, st, gr);
        char ref[16], rt[16], sp[16], mb[16], gbs[16], fr[16], gf[16], ns[16], wr[16];
        fmt_num(ref, sizeof ref, has_ref(r) && r->ref_s > 0 ? r->ref_s : NAN, "%.4g");
        fmt_num(rt, sizeof rt, r->ran ? r->rt_s : NAN, r->rt_s < 1e-3 ? "%.3e" : "%.4f");
        fmt_num(sp, sizeof sp, d.speedup, "%.1fx");
        fmt_num(mb, sizeof mb, has_ref(r) ? r->bytes / 1e6 : NAN, r->bytes < 1e5 ? "%.3f" : "%.1f");
        fmt_num(gbs, sizeof gbs, d.gbs, "%.2f");
        fmt_num(fr, sizeof fr, d.frac_stream * 100, "%.0f%%");
        fmt_num(gf, sizeof gf, d.gflops, "%.1f");
        fmt_num(ns, sizeof ns, d.ns_elem, "%.3f");
        fmt_num(wr, sizeof wr, r->ran || r->valid ? r->worst : NAN, "%.2g");
        fprintf(f, "%-24s %10s %10s %9s %9s %7s %7s %8s %7s %7s %s\n", r->name, ref, rt, sp, mb, gbs, fr, gf, ns, wr,
                d.status);
    }
    fprintf(f, "\nnotes:\n");
    for (unsigned i = 0; i < n; i++) {
        const bench_result *r = &rs[i];
        derived d = derive(r, st, gr);
        fprintf(f, "  %s [%s]:", r->name, r->size);
        if (has_ref(r) && r->ref_scale != 1)
            fprintf(f, " reference on the %s (%.4g s) x %.0f;", r->ref_subset, r->ref_subset_s, r->ref_scale);
        if (isfinite(d.frac_gemm))
            fprintf(f, " %.0f%% of the reference GEMM rate;", d.frac_gemm * 100);
        if (r->rt_alloc_s > 0)
            fprintf(f, " with fresh result tensors per run (plumb_executable_run) %.3g s, %.2fx the time into kept ones;",
                    r->rt_alloc_s, r->rt_alloc_s / r->rt_s);
        if (isfinite(d.ns_elem_1t))
            fprintf(f, " 1 thread: %.3f ns/element, %.0f%% of 1-thread triad;", d.ns_elem_1t, d.frac_stream_1t * 100);
        if (r->note[0])
            fprintf(f, " %s;", r->note);
        if (r->tolerance[0])
            fprintf(f, " allowed error: %s", r->tolerance);
        fprintf(f, "\n");
        if (r->error[0])
            fprintf(f, "    %s: %s\n", d.status, r->error);
    }
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

typedef struct targets {
    double memory_min_frac;    /* worst fraction of STREAM among softmax, layer_norm, sum */
    double chain_ns_1t;        /* ns/element on one thread */
    double gemm_frac;          /* f32 GEMM / reference rate */
    double bf16_over_f32;      /* bf16 GFLOP/s / f32 GFLOP/s */
    double geomean;
    double compile_max_s;      /* slowest example compile */
    double hit_overhead_s;
    double poly_ratio;         /* polymorphic encoder / static compiles, lengths 1..bound */
    double baked_hit_ratio;    /* cache hit with a 4 MiB baked constant / with it as a parameter */
    double conv_over_gemm;     /* conv3x3_f32 GFLOP/s / dot_f32 GFLOP/s, same run (issue 19) */
} targets;

static targets eval_targets(const bench_result *rs, unsigned n, const bench_stream *st, const bench_gemm_ref *gr,
                            double geomean)
{
    targets t = {NAN, NAN, NAN, NAN, geomean, NAN, NAN, NAN, NAN, NAN};
    double f32 = NAN, bf16 = NAN, conv = NAN;
    for (unsigned i = 0; i < n; i++) {
        const bench_result *r = &rs[i];
        derived d = derive(r, st, gr);
        if (strcmp(d.status, "ok") != 0)
            continue;
        if (strcmp(r->name, "softmax") == 0 || strcmp(r->name, "layer_norm") == 0 || strcmp(r->name, "sum") == 0)
            t.memory_min_frac = isnan(t.memory_min_frac) || d.frac_stream < t.memory_min_frac ? d.frac_stream
                                                                                               : t.memory_min_frac;
        if (strcmp(r->name, "chain") == 0)
            t.chain_ns_1t = d.ns_elem_1t;
        if (strcmp(r->name, "dot_f32") == 0) {
            t.gemm_frac = d.frac_gemm;
            f32 = d.gflops;
        }
        if (strcmp(r->name, "dot_bf16") == 0)
            bf16 = d.gflops;
        if (strcmp(r->name, "conv3x3_f32") == 0)
            conv = d.gflops;
        if (r->kind == BENCH_COMPILE)
            t.compile_max_s = isnan(t.compile_max_s) || r->value_s > t.compile_max_s ? r->value_s : t.compile_max_s;
        if (strcmp(r->name, "cache_hit_100") == 0)
            t.hit_overhead_s = r->value_s;
        if (strcmp(r->name, "cache_hit_baked") == 0 && r->aux_s > 0)
            t.baked_hit_ratio = r->value_s / r->aux_s;
        if (r->kind == BENCH_POLY)
            t.poly_ratio = r->value_s;
    }
    t.bf16_over_f32 = bf16 / f32;
    t.conv_over_gemm = conv / f32;
    return t;
}

/* One line per target of issue 4: the measured figure and whether it meets
 * the target ("n/a" when the workload was not run or did not validate). */
static void print_targets(FILE *f, const targets *t)
{
    /* cmp: +1 "at least", +2 "more than", -1 "at most", -2 "less than" */
    struct {
        const char *what;
        double v;
        double goal;
        int cmp;
        const char *fmt;
    } rows[] = {
        {"memory-bound fused kernels (softmax, layer_norm, sum): worst fraction of STREAM triad >= 0.60",
         t->memory_min_frac, 0.60, 1, "%.2f"},
        {"chain on one thread <= 1 ns/element", t->chain_ns_1t, 1.0, -1, "%.3f ns"},
        {"f32 GEMM >= 0.70 of the reference GEMM rate", t->gemm_frac, 0.70, 1, "%.2f"},
        {"bf16 GEMM faster than f32 (bf16/f32 GFLOP/s > 1)", t->bf16_over_f32, 1.0, 2, "%.2f"},
        {"geometric-mean speedup over the reference >= 50x", t->geomean, 50, 1, "%.1fx"},
        {"compile of each example < 5 ms", t->compile_max_s * 1e3, 5, -2, "%.3f ms"},
        {"cache hit on the 100-node program adds < 10 us", t->hit_overhead_s * 1e6, 10, -2, "%.2f us"},
        {"polymorphic encoder (one executable, lengths 1..64) <= 1.25x static compiles (issue 13)", t->poly_ratio,
         1.25, -1, "%.3fx"},
        {"cache hit with a 4 MiB baked constant <= 2x the hit with it as a parameter (issue 14)",
         t->baked_hit_ratio, 2.0, -1, "%.2fx"},
        {"3x3 convolution (8x56x56x64, 64 -> 64) >= 0.50 of this run's f32 GEMM GFLOP/s (issue 19)",
         t->conv_over_gemm, 0.50, 1, "%.2f"},
    };
    fprintf(f, "\ntargets (issue 4):\n");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char v[32];
        double x = rows[i].v, g = rows[i].goal;
        fmt_num(v, sizeof v, x, rows[i].fmt);
        bool met = rows[i].cmp == 1 ? x >= g : rows[i].cmp == 2 ? x > g : rows[i].cmp == -1 ? x <= g : x < g;
        fprintf(f, "  %-92s %11s  %s\n", rows[i].what, v, !isfinite(x) ? "n/a" : met ? "met" : "NOT met");
    }
}

static bool write_json(const char *path, const bench_result *rs, unsigned n, const bench_stream *st,
                       const bench_gemm_ref *gr, const bench_config *cfg, double geomean, unsigned gm_count,
                       const double load[2], const targets *t)
{
    /* Built in memory, then written like every plumb output: atomically,
     * never through a link at the name. */
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *f = open_memstream(&mem, &mem_len);
    if (!f) {
        fprintf(stderr, "plumb-bench: out of memory writing %s\n", path);
        return false;
    }
    fprintf(f, "{\n  \"plumb_version\": ");
    plumb_json_str_fput(f, PLUMB_VERSION_STRING);
    fprintf(f, ",\n  \"quick\": %s,\n  \"threads\": %u,\n  \"ref_fraction\": %d,\n", cfg->quick ? "true" : "false",
            cfg->threads, cfg->ref_fraction);
    fprintf(f, "  \"timing\": \"seconds; best of the timed runs (runtime_median_seconds: their median); cache hit overhead: difference of medians\",\n");
    fprintf(f, "  \"loadavg_start\": ");
    json_num(f, load[0]);
    fprintf(f, ",\n  \"loadavg_end\": ");
    json_num(f, load[1]);
    fprintf(f, ",\n  \"machine\": {\n    \"stream\": {\"elements\": %llu, \"threads\": %u, \"copy_1thread_gb_per_s\": ",
            (unsigned long long)st->elems, st->threads);
    json_num(f, st->copy_1t_gbs);
    fprintf(f, ", \"triad_1thread_gb_per_s\": ");
    json_num(f, st->triad_1t_gbs);
    fprintf(f, ", \"copy_gb_per_s\": ");
    json_num(f, st->copy_nt_gbs);
    fprintf(f, ", \"triad_gb_per_s\": ");
    json_num(f, st->triad_nt_gbs);
    fprintf(f, "},\n    \"gemm_ref\": {\"source\": ");
    plumb_json_str_fput(f, gr->source);
    fprintf(f, ", \"optimized_blas\": %s, \"n\": %d, \"gflop_per_s_1thread\": ", gr->is_blas ? "true" : "false", gr->n);
    json_num(f, gr->gflops_1t);
    fprintf(f, ", \"gflop_per_s\": ");
    json_num(f, gr->gflops_nt);
    fprintf(f, "}\n  },\n  \"workloads\": [\n");
    for (unsigned i = 0; i < n; i++) {
        const bench_result *r = &rs[i];
        derived d = derive(r, st, gr);
        fprintf(f, "    {\"name\": ");
        plumb_json_str_fput(f, r->name);
        static const char *const kinds[] = {"memory", "gemm", "program", "compile", "overhead", "poly"};
        fprintf(f, ", \"kind\": \"%s\", \"status\": \"%s\", \"size\": ", kinds[r->kind], d.status);
        plumb_json_str_fput(f, r->size);
        fprintf(f, ",\n     \"reference_seconds\": ");
        json_num(f, has_ref(r) && r->ref_s > 0 ? r->ref_s : NAN);
        fprintf(f, ", \"reference_subset\": ");
        if (has_ref(r))
            plumb_json_str_fput(f, r->ref_subset);
        else
            fputs("null", f);
        fprintf(f, ", \"reference_subset_seconds\": ");
        json_num(f, has_ref(r) && r->ref_subset_s > 0 ? r->ref_subset_s : NAN);
        fprintf(f, ", \"reference_scale\": ");
        json_num(f, has_ref(r) ? r->ref_scale : NAN);
        fprintf(f, ",\n     \"runtime_seconds\": ");
        json_num(f, r->ran ? r->rt_s : NAN);
        fprintf(f, ", \"runtime_median_seconds\": ");
        json_num(f, r->ran ? r->rt_median_s : NAN);
        fprintf(f, ", \"speedup\": ");
        json_num(f, d.speedup);
        fprintf(f, ", \"bytes_moved\": ");
        json_num(f, has_ref(r) ? r->bytes : NAN);
        fprintf(f, ", \"gb_per_s\": ");
        json_num(f, d.gbs);
        fprintf(f, ", \"fraction_of_stream\": ");
        json_num(f, d.frac_stream);
        fprintf(f, ", \"gflop_per_s\": ");
        json_num(f, d.gflops);
        fprintf(f, ", \"fraction_of_ref_gemm\": ");
        json_num(f, d.frac_gemm);
        fprintf(f, ",\n     \"ns_per_element\": ");
        json_num(f, d.ns_elem);
        fprintf(f, ", \"runtime_1thread_seconds\": ");
        json_num(f, r->rt_1t_s > 0 ? r->rt_1t_s : NAN);
        fprintf(f, ", \"ns_per_element_1thread\": ");
        json_num(f, d.ns_elem_1t);
        fprintf(f, ", \"fraction_of_stream_1thread\": ");
        json_num(f, d.frac_stream_1t);
        fprintf(f, ", \"runtime_alloc_seconds\": ");
        json_num(f, r->rt_alloc_s > 0 ? r->rt_alloc_s : NAN);
        fprintf(f, ", \"compile_seconds\": ");
        json_num(f, r->kind == BENCH_COMPILE && r->ran ? r->value_s : NAN);
        fprintf(f, ", \"hit_overhead_seconds\": ");
        json_num(f, r->kind == BENCH_OVERHEAD && r->ran ? r->value_s : NAN);
        fprintf(f, ", \"direct_run_seconds\": ");
        json_num(f, r->kind == BENCH_OVERHEAD && r->ran ? r->aux_s : NAN);
        fprintf(f, ", \"poly_static_ratio\": ");
        json_num(f, r->kind == BENCH_POLY && r->ran ? r->value_s : NAN);
        fprintf(f, ", \"static_seconds\": ");
        json_num(f, r->kind == BENCH_POLY && r->ran ? r->aux_s : NAN);
        fprintf(f, ",\n     \"worst_error_fraction\": ");
        json_num(f, r->worst);
        fprintf(f, ", \"tolerance\": ");
        plumb_json_str_fput(f, r->tolerance);
        fprintf(f, ", \"note\": ");
        plumb_json_str_fput(f, r->note);
        fprintf(f, ", \"error\": ");
        plumb_json_str_fput(f, r->error);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ],\n  \"geomean_speedup\": ");
    json_num(f, geomean);
    fprintf(f, ",\n  \"geomean_workloads\": %u,\n  \"targets\": {\"memory_min_fraction_of_stream\": ", gm_count);
    json_num(f, t->memory_min_frac);
    fprintf(f, ", \"chain_ns_per_element_1thread\": ");
    json_num(f, t->chain_ns_1t);
    fprintf(f, ", \"gemm_f32_fraction_of_ref\": ");
    json_num(f, t->gemm_frac);
    fprintf(f, ", \"bf16_over_f32\": ");
    json_num(f, t->bf16_over_f32);
    fprintf(f, ", \"geomean_speedup\": ");
    json_num(f, t->geomean);
    fprintf(f, ", \"compile_max_seconds\": ");
    json_num(f, t->compile_max_s);
    fprintf(f, ", \"cache_hit_overhead_seconds\": ");
    json_num(f, t->hit_overhead_s);
    fprintf(f, ", \"poly_static_ratio\": ");
    json_num(f, t->poly_ratio);
    fprintf(f, ", \"baked_hit_ratio\": ");
    json_num(f, t->baked_hit_ratio);
    fprintf(f, ", \"conv_over_gemm_f32\": ");
    json_num(f, t->conv_over_gemm);
    fprintf(f, "}\n}\n");
    bool ok = !ferror(f);
    ok &= fclose(f) == 0;
    plumb_diag d = {.code = PLUMB_OK};
    const void *parts[1] = {mem};
    if (!ok)
        fprintf(stderr, "plumb-bench: out of memory writing %s\n", path);
    else if (!(ok = plumb_write_file_atomic(path, parts, &mem_len, 1, &d)))
        fprintf(stderr, "plumb-bench: %s\n", d.msg);
    free(mem);
    return ok;
}

int main(int argc, char **argv)
{
    bench_opts o = {0};
    o.cfg.ref_fraction = 64;
    o.cfg.examples = "examples";
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    if (o.broad_only && !o.broad) {
        fprintf(stderr, "plumb-bench: --broad-only needs --suite broad\n");
        return 2;
    }
    if (!o.cfg.threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o.cfg.threads = n > 0 ? (unsigned)n : 1;
    }
    double load[2] = {NAN, NAN};
    getloadavg(load, 1);

    if (o.ops) {
        if (o.n_only) {
            fprintf(stderr, "plumb-bench: --ops runs every op; it does not take --only\n");
            return 2;
        }
        plumb_runtime_options ro;
        plumb_runtime_options_init(&ro);
        ro.threads = 1;
        ro.cache_dir = "";
        plumb_diag d = {0};
        plumb_runtime *rt1 = plumb_runtime_create(&ro, &d);
        if (!rt1) {
            fprintf(stderr, "plumb-bench: runtime: %s\n", d.msg);
            return 1;
        }
        bool ok = bench_ops_run(&o.cfg, rt1, o.json);
        getloadavg(load + 1, 1);
        printf("load average: %.2f at the start, %.2f at the end (a loaded machine lowers every figure)\n", load[0],
               load[1]);
        plumb_runtime_destroy(rt1);
        return ok ? 0 : 1;
    }

    fprintf(stderr, "plumb-bench: machine figures...\n");
    bench_stream st;
    char err[256] = "";
    uint64_t stream_elems = o.cfg.quick ? (4u << 20) : (64u << 20);
    if (!bench_stream_measure(stream_elems, o.cfg.threads, o.cfg.quick ? 3 : 10, &st, err, sizeof err)) {
        fprintf(stderr, "plumb-bench: %s\n", err);
        return 1;
    }
    bench_gemm_ref gr;
    bench_gemm_ref_measure(o.cfg.quick ? 256 : 1024, o.cfg.threads, o.cfg.quick ? 2 : 5, &gr);
    if (o.broad) {
        bool bok = bench_broad_run(&o.cfg, &st, &gr, o.broad_only, o.json);
        getloadavg(load + 1, 1);
        printf("load average: %.2f at the start, %.2f at the end (a loaded machine lowers every figure)\n", load[0],
               load[1]);
        return bok ? 0 : 1;
    }

    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    ro.threads = o.cfg.threads;
    ro.cache_dir = "";   /* the disk cache would turn compiles into loads */
    plumb_diag d = {0};
    plumb_runtime *rt = plumb_runtime_create(&ro, &d);
    ro.threads = 1;
    plumb_runtime *rt1 = rt ? plumb_runtime_create(&ro, &d) : NULL;
    if (!rt || !rt1) {
        fprintf(stderr, "plumb-bench: runtime: %s\n", d.msg);
        plumb_runtime_destroy(rt);
        return 1;
    }

    bench_result *rs = calloc(bench_n_workloads, sizeof *rs);
    if (!rs) {
        fprintf(stderr, "plumb-bench: out of memory\n");
        return 1;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < bench_n_workloads; i++) {
        if (!selected(&o, bench_workloads[i]))
            continue;
        bench_result *r = &rs[n++];
        snprintf(r->name, sizeof r->name, "%s", bench_workloads[i]);
        fprintf(stderr, "plumb-bench: %s...\n", r->name);
        double t0 = bench_now();
        bench_run_workload(r->name, &o.cfg, rt, rt1, r);
        fprintf(stderr, "plumb-bench: %s done in %.1f s%s%s\n", r->name, bench_now() - t0, r->error[0] ? ": " : "",
                r->error);
    }
    getloadavg(load + 1, 1);

    double logsum = 0;
    unsigned gm = 0;
    bool all_ok = true;
    for (unsigned i = 0; i < n; i++) {
        derived dv = derive(&rs[i], &st, &gr);
        all_ok &= strcmp(dv.status, "ok") == 0;
        if (strcmp(dv.status, "ok") == 0 && isfinite(dv.speedup) && dv.speedup > 0) {
            logsum += log(dv.speedup);
            gm++;
        }
    }
    double geomean = gm ? exp(logsum / gm) : NAN;
    print_table(stdout, rs, n, &st, &gr, &o.cfg);
    targets t = eval_targets(rs, n, &st, &gr, geomean);
    if (!o.n_only)
        print_targets(stdout, &t);
    printf("\ngeometric-mean speedup over the reference: ");
    if (gm)
        printf("%.1fx over %u validated workloads\n", geomean, gm);
    else
        printf("n/a (no validated workload with a reference time)\n");
    printf("load average: %.2f at the start, %.2f at the end (a loaded machine lowers every figure)\n", load[0],
           load[1]);
    if (o.cfg.quick)
        printf("--quick: small sizes; figures are not comparable with the targets\n");
    if (o.json && !write_json(o.json, rs, n, &st, &gr, &o.cfg, geomean, gm, load, &t))
        all_ok = false;
    if (!all_ok)
        printf("some workloads failed or did not validate (status column)\n");
    free(rs);
    plumb_runtime_destroy(rt1);
    plumb_runtime_destroy(rt);
    return all_ok ? 0 : 1;
}
