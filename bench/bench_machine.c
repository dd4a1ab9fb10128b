/* Machine figures the workloads are read against: STREAM-style bandwidth and
 * a reference GEMM rate, measured in the same process and run as the
 * workloads because the machine is shared and its speed drifts.
 *
 * STREAM's rules (J. D. McCalpin, "Memory Bandwidth and Machine Balance in
 * Current High Performance Computers", IEEE TCCA Newsletter, 1995, and the
 * STREAM FAQ): arrays much larger than the last-level cache, each array
 * counted once per pass (copy 2 arrays, triad 3), the best pass reported,
 * each thread first-touching the part of the arrays it later works on. */
#include "bench.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_times bench_summarize(double *t, int n)
{
    bench_times s = {0, 0, n};
    if (n <= 0)
        return s;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.best = t[0];
    s.median = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return s;
}

/* ---- STREAM -------------------------------------------------------------- */

typedef struct stream_shared {
    float *a, *b, *c;
    uint64_t n;
    unsigned threads;
    int reps;
    pthread_barrier_t bar;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool go;                    /* threads and bar are final */
    double *copy_t, *triad_t;   /* per pass, seconds (written by thread 0) */
} stream_shared;

typedef struct stream_arg {
    stream_shared *s;
    unsigned id;
} stream_arg;

/* Keeps the compiler from dropping or merging passes whose results are never
 * read: the arrays escape through this pointer. */
static void *volatile stream_sink;

static void *stream_worker(void *p)
{
    stream_arg *arg = p;
    stream_shared *s = arg->s;
    /* Wait until every thread that could be started is known: the barrier
     * must count exactly the threads that take part. */
    pthread_mutex_lock(&s->mu);
    while (!s->go)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    if (arg->id >= s->threads)
        return NULL;
    uint64_t lo = s->n * arg->id / s->threads, hi = s->n * (arg->id + 1) / s->threads;
    float *a = s->a, *b = s->b, *c = s->c;
    const float scalar = 3.0f;
    for (uint64_t i = lo; i < hi; i++) {
        a[i] = 1.0f;
        b[i] = 2.0f;
        c[i] = 0.0f;
    }
    for (int r = 0; r < s->reps; r++) {
        double t0 = 0;
        pthread_barrier_wait(&s->bar);
        if (arg->id == 0)
            t0 = bench_now();
        for (uint64_t i = lo; i < hi; i++)
            c[i] = a[i];
        pthread_barrier_wait(&s->bar);
        if (arg->id == 0) {
            s->copy_t[r] = bench_now() - t0;
            t0 = bench_now();
        }
        for (uint64_t i = lo; i < hi; i++)
            a[i] = b[i] + scalar * c[i];
        pthread_barrier_wait(&s->bar);
        if (arg->id == 0)
            s->triad_t[r] = bench_now() - t0;
    }
    stream_sink = a;
    return NULL;
}

/* MADV_HUGEPAGE on the whole 2 MiB pages inside [p, p + n); silent when the
 * kernel has no transparent huge pages. */
static void stream_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* One measurement with `threads` threads; best copy and triad GB/s. */
static bool stream_run(uint64_t n, unsigned threads, int reps, double *copy_gbs, double *triad_gbs,
                       unsigned *threads_used, char *err, size_t errlen)
{
    stream_shared s = {0};
    s.n = n;
    s.threads = threads;
    s.reps = reps;
    size_t bytes = (size_t)n * sizeof(float);
    /* Page-aligned so that no array shares a page and first touch places
     * every page with the thread that uses it. */
    if (posix_memalign((void **)&s.a, 4096, bytes) || posix_memalign((void **)&s.b, 4096, bytes) ||
        posix_memalign((void **)&s.c, 4096, bytes)) {
        snprintf(err, errlen, "STREAM: cannot allocate 3 arrays of %zu bytes", bytes);
        free(s.a);
        free(s.b);
        free(s.c);
        return false;
    }
    /* The arrays on 2 MiB pages where the kernel grants them, as plumb's
     * large tensors (ir/core.c advise_huge) and numpy's arrays are: a floor
     * measured on 4 KiB pages against workloads on 2 MiB pages would
     * overstate their fraction of it (docs/bench.md "Huge pages"). */
    stream_advise_huge(s.a, bytes);
    stream_advise_huge(s.b, bytes);
    stream_advise_huge(s.c, bytes);
    s.copy_t = calloc((size_t)reps, sizeof(double));
    s.triad_t = calloc((size_t)reps, sizeof(double));
    pthread_t *tid = calloc(threads, sizeof *tid);
    stream_arg *args = calloc(threads, sizeof *args);
    bool ok = s.copy_t && s.triad_t && tid && args;
    unsigned started = 0;
    if (ok) {
        pthread_mutex_init(&s.mu, NULL);
        pthread_cond_init(&s.cv, NULL);
        for (unsigned i = 1; i < threads; i++) {
            args[i].s = &s;
            args[i].id = i;
            if (pthread_create(&tid[i], NULL, stream_worker, &args[i]) != 0)
                break;
            started++;
        }
        /* A thread that could not be started shrinks the measurement to
         * the threads there are; the caller reports that count. */
        s.threads = started + 1;
        ok = pthread_barrier_init(&s.bar, NULL, s.threads) == 0;
        pthread_mutex_lock(&s.mu);
        s.go = true;
        if (!ok)
            s.threads = 0;   /* workers exit without touching the barrier */
        pthread_cond_broadcast(&s.cv);
        pthread_mutex_unlock(&s.mu);
        if (ok) {
            args[0].s = &s;
            args[0].id = 0;
            stream_worker(&args[0]);
        }
        for (unsigned i = 1; i <= started; i++)
            pthread_join(tid[i], NULL);
        if (ok) {
            bench_times ct = bench_summarize(s.copy_t, reps), tt = bench_summarize(s.triad_t, reps);
            *copy_gbs = 2.0 * (double)bytes / ct.best / 1e9;
            *triad_gbs = 3.0 * (double)bytes / tt.best / 1e9;
            *threads_used = s.threads;
            pthread_barrier_destroy(&s.bar);
        }
        pthread_cond_destroy(&s.cv);
        pthread_mutex_destroy(&s.mu);
    }
    if (!ok)
        snprintf(err, errlen, "STREAM: cannot set up %u threads", threads);
    free(tid);
    free(args);
    free(s.copy_t);
    free(s.triad_t);
    free(s.a);
    free(s.b);
    free(s.c);
    return ok;
}

bool bench_stream_measure(uint64_t elems, unsigned threads, int reps, bench_stream *out,
                          char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->elems = elems;
    out->threads = threads;
    unsigned used = 1;
    if (!stream_run(elems, 1, reps, &out->copy_1t_gbs, &out->triad_1t_gbs, &used, err, errlen))
        return false;
    if (threads <= 1) {
        out->copy_nt_gbs = out->copy_1t_gbs;
        out->triad_nt_gbs = out->triad_1t_gbs;
        return true;
    }
    bool ok = stream_run(elems, threads, reps, &out->copy_nt_gbs, &out->triad_nt_gbs, &used, err, errlen);
    out->threads = used;
    return ok;
}

/* ---- reference GEMM ------------------------------------------------------ */

/* cblas_sgemm as exported by BLAS libraries (row-major = 101, no
 * transpose = 111 in the CBLAS interface). */
typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta,
                         float *c, int ldc);
typedef void (*set_threads_fn)(int n);

/* The bench's own GEMM: cache-blocked i-k-j loops the compiler can
 * vectorize. A floor to read the runtime against when no tuned sgemm is
 * installed; it is not the machine's peak. */
static void floor_gemm(int n, const float *a, const float *b, float *c, int row0, int row1)
{
    enum { KB = 256, JB = 512 };
    for (int i = row0; i < row1; i++)
        memset(c + (size_t)i * n, 0, (size_t)n * sizeof(float));
    for (int k0 = 0; k0 < n; k0 += KB)
        for (int j0 = 0; j0 < n; j0 += JB) {
            int k1 = k0 + KB < n ? k0 + KB : n, j1 = j0 + JB < n ? j0 + JB : n;
            for (int i = row0; i < row1; i++) {
                float *ci = c + (size_t)i * n;
                for (int k = k0; k < k1; k++) {
                    float aik = a[(size_t)i * n + k];
                    const float *bk = b + (size_t)k * n;
                    for (int j = j0; j < j1; j++)
                        ci[j] += aik * bk[j];
                }
            }
        }
}

typedef struct floor_arg {
    int n, row0, row1;
    const float *a, *b;
    float *c;
} floor_arg;

static void *floor_worker(void *p)
{
    floor_arg *f = p;
    floor_gemm(f->n, f->a, f->b, f->c, f->row0, f->row1);
    return NULL;
}

static void floor_gemm_threads(int n, const float *a, const float *b, float *c, unsigned threads)
{
    pthread_t tid[64];
    floor_arg args[64];
    bool started[64] = {false};
    if (threads > 64)
        threads = 64;
    for (unsigned t = 0; t < threads; t++) {
        args[t] = (floor_arg){n, (int)((int64_t)n * t / threads), (int)((int64_t)n * (t + 1) / threads), a, b, c};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, floor_worker, &args[t]) == 0;
    }
    floor_worker(&args[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            floor_worker(&args[t]);   /* no thread: do its rows here */
    }
}

static const char *const blas_libs[] = {
    "libopenblas.so.0",
    "libopenblas.so",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
};

void bench_gemm_ref_measure(int n, unsigned threads, int reps, bench_gemm_ref *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    double *t = calloc((size_t)reps, sizeof *t);
    if (!a || !b || !c || !t) {
        snprintf(out->source, sizeof out->source, "n/a (cannot allocate %dx%d matrices)", n, n);
        goto done;
    }
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)((i * 7 % 13) - 6) / 8.0f;
        b[i] = (float)((i * 5 % 11) - 5) / 8.0f;
    }
    void *lib = NULL;
    const char *libname = NULL;
    for (size_t i = 0; i < sizeof blas_libs / sizeof *blas_libs && !lib; i++) {
        lib = dlopen(blas_libs[i], RTLD_NOW | RTLD_LOCAL);
        libname = blas_libs[i];
    }
    sgemm_fn sgemm = NULL;
    set_threads_fn set_threads = NULL;
    if (lib) {
        /* POSIX dlsym returns an object pointer; converting it to a function
         * pointer is the documented way to use it. */
        *(void **)&sgemm = dlsym(lib, "cblas_sgemm");
        *(void **)&set_threads = dlsym(lib, "openblas_set_num_threads");
    }
    double flop = 2.0 * (double)n * (double)n * (double)n;
    for (int pass = 0; pass < 2; pass++) {
        unsigned th = pass == 0 ? 1 : threads;
        if (pass == 1 && threads <= 1) {
            out->gflops_nt = out->gflops_1t;
            break;
        }
        if (sgemm && set_threads)
            set_threads((int)th);
        for (int r = -1; r < reps; r++) {   /* r = -1: warm-up (thread start, page faults) */
            double t0 = bench_now();
            if (sgemm)
                sgemm(101, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            else
                floor_gemm_threads(n, a, b, c, th);
            if (r >= 0)
                t[r] = bench_now() - t0;
        }
        double g = flop / bench_summarize(t, reps).best / 1e9;
        if (pass == 0)
            out->gflops_1t = g;
        else
            out->gflops_nt = g;
    }
    if (sgemm) {
        out->is_blas = true;
        snprintf(out->source, sizeof out->source, "cblas_sgemm from %s%s", libname,
                 set_threads ? "" : " (thread count not settable)");
    } else {
        snprintf(out->source, sizeof out->source,
                 "bench blocked GEMM (a floor, not a peak: no BLAS library with cblas_sgemm found)");
    }
    if (lib)
        dlclose(lib);
done:
    free(a);
    free(b);
    free(c);
    free(t);
}
