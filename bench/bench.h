/* plumb-bench: machine figures (bench_machine.c), workloads on the reference
 * and the runtime (bench_work.c), the table and JSON (bench.c).
 * docs/bench.md explains every figure. */
#ifndef PLUMB_BENCH_H
#define PLUMB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/runtime.h"

/* Monotonic wall clock, seconds. */
double bench_now(void);

/* Best and median of a sample of times, seconds. Sorts t in place. */
typedef struct bench_times {
    double best;     /* minimum, seconds */
    double median;   /* median, seconds */
    int n;           /* samples */
} bench_times;

bench_times bench_summarize(double *t, int n);

/* ---- machine ------------------------------------------------------------- */

/* STREAM-style bandwidth: copy c = a (2 arrays of n floats moved per pass),
 * triad a = b + s*c (3 arrays); bytes counted as STREAM counts them (each
 * array once per pass, no write-allocate traffic). */
typedef struct bench_stream {
    uint64_t elems;          /* f32 elements per array */
    unsigned threads;        /* threads of the "all threads" figures */
    double copy_1t_gbs;      /* GB/s (1e9 bytes/s), best pass, one thread */
    double triad_1t_gbs;
    double copy_nt_gbs;      /* GB/s, best pass, `threads` threads */
    double triad_nt_gbs;
} bench_stream;

bool bench_stream_measure(uint64_t elems, unsigned threads, int reps, bench_stream *out,
                          char *err, size_t errlen);

/* Reference GEMM rate for C = A.B on n x n x n f32: an sgemm from a BLAS
 * library opened at run time when one is installed, else the bench's own
 * blocked loop (a floor, not a peak). */
typedef struct bench_gemm_ref {
    char source[160];        /* what was measured */
    bool is_blas;            /* true: an optimized sgemm; false: the floor */
    int n;                   /* matrix size */
    double gflops_1t;        /* GFLOP/s (2 n^3 / s / 1e9), best run, one thread */
    double gflops_nt;        /* GFLOP/s, best run, all threads */
} bench_gemm_ref;

void bench_gemm_ref_measure(int n, unsigned threads, int reps, bench_gemm_ref *out);

/* ---- workloads ----------------------------------------------------------- */

typedef enum bench_kind {
    BENCH_MEMORY,      /* memory-bound: GB/s and fraction of STREAM apply */
    BENCH_GEMM,        /* compute-bound: GFLOP/s applies */
    BENCH_PROGRAM,     /* a whole example program */
    BENCH_COMPILE,     /* compile time only (no reference, no speedup) */
    BENCH_OVERHEAD,    /* cache-hit overhead (no reference, no speedup) */
    BENCH_POLY,        /* polymorphic executable vs static compiles (no reference, no speedup) */
} bench_kind;

typedef struct bench_config {
    bool quick;              /* smaller sizes for a smoke run */
    unsigned threads;        /* runtime and "all threads" figures */
    int reps;                /* timed repetitions of each runtime measurement */
    int ref_reps;            /* timed repetitions of each reference run */
    int ref_fraction;        /* the reference runs 1/ref_fraction of big workloads */
    const char *examples;    /* directory of the example programs */
    bool perturb;            /* corrupt each runtime result before validation (tests the validation) */
} bench_config;

typedef struct bench_result {
    char name[48];
    bench_kind kind;
    bool ran;                /* measured (false: skipped or failed before timing) */
    bool valid;              /* runtime agreed with the reference */
    char error[512];         /* why it failed or did not validate; "" when fine */
    char size[64];           /* e.g. "4096x1024 f32" */
    /* reference */
    double ref_subset_s;     /* seconds, best, on the subset */
    double ref_scale;        /* full size / subset size (1 = whole workload) */
    double ref_s;            /* ref_subset_s * ref_scale, seconds */
    char ref_subset[64];     /* what the subset is, e.g. "64 of 4096 rows" */
    /* runtime */
    double rt_s;             /* seconds, best (plumb_executable_run_into: results in tensors kept between runs) */
    double rt_median_s;      /* seconds, median */
    double rt_1t_s;          /* seconds, best on one thread (chain only; 0 = not measured) */
    double rt_alloc_s;       /* seconds, best: the same runs through plumb_executable_run, which
                              * allocates fresh results each time (0 = not measured) */
    double bytes;            /* bytes moved at full size: inputs + outputs once */
    double flops;            /* floating-point operations at full size; 0 = n/a */
    double elems;            /* elements (ns/element for the chain) */
    /* validation */
    double worst;            /* worst error as a fraction of the allowed error (<= 1 passes) */
    char tolerance[160];     /* what the allowed error is */
    /* compile / overhead rows */
    double value_s;          /* compile seconds (best) or overhead seconds (median); poly: the
                              * polymorphic/static time ratio */
    double aux_s;            /* overhead: the executable run it is measured against; poly: the
                              * static compiles' total seconds */
    char note[320];
} bench_result;

/* Runs one workload by name into r (r->name set by the caller). Returns
 * false when the name is unknown. */
bool bench_run_workload(const char *name, const bench_config *cfg, plumb_runtime *rt,
                        plumb_runtime *rt1, bench_result *r);

/* plumb-bench --ops (bench_ops.c): every elementwise op on every element
 * type it takes, runtime (rt1, one thread) against reference; prints the
 * table, writes JSON to json_path when not NULL. false when an op failed or
 * did not validate. */
bool bench_ops_run(const bench_config *cfg, plumb_runtime *rt1, const char *json_path);

/* plumb-bench --suite broad (bench_broad.c): every op class and element
 * type at realistic sizes against this run's floors (st, gr) and numpy;
 * only (NULL = all) is a comma-separated list of workload names. Prints the
 * table, writes JSON to json_path when not NULL. false when a workload did
 * not validate or run. */
bool bench_broad_run(const bench_config *cfg, const bench_stream *st, const bench_gemm_ref *gr, const char *only,
                     const char *json_path);
/* False (the known names printed) when a name of the comma-separated list is
 * no broad workload. */
bool bench_broad_check_names(const char *only);

/* The workloads in table order. */
extern const char *const bench_workloads[];
extern const unsigned bench_n_workloads;

#endif
