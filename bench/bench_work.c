/* The workloads of issue 4's benchmark, each run on the reference and on the
 * runtime and validated: a benchmark of wrong results is worthless.
 *
 * The reference is correctly rounded (MPFR where its fast path cannot decide
 * the rounding), so big workloads run it on a prefix of the rows or elements
 * (1/ref_fraction) and scale its time linearly; the runtime always runs the
 * whole workload, and the same prefix of its full result is compared with
 * the reference's. docs/bench.md states each workload's allowed error. */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "poly_encoder.h"

#define U_F32 (0x1p-24)    /* unit roundoff of f32 */
#define U_BF16 (0x1p-8)    /* unit roundoff of bf16 */

/* Higham's gamma(k) = k u / (1 - k u); infinite once k u >= 1. */
static double gamma_u(double k, double u)
{
    return k * u < 1 ? k * u / (1 - k * u) : INFINITY;
}

/* Appends to r->error ("; "-separated): a workload whose error is not
 * empty is reported as failed. */
static void add_error(bench_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_error(bench_result *r, const char *fmt, ...)
{
    size_t len = strlen(r->error);
    if (len && len + 2 < sizeof r->error) {
        memcpy(r->error + len, "; ", 3);
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error + len, sizeof r->error - len, fmt, ap);
    va_end(ap);
}

/* ---- inputs ----------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: deterministic inputs, the same on every run and machine. */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi), rounded to f32. */
static float rng_float(uint64_t *s, double lo, double hi)
{
    return (float)(lo + (hi - lo) * (double)(rng_next(s) >> 11) * 0x1p-53);
}

static plumb_tensor *new_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims, bench_result *r)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    if (!x)
        add_error(r, "input: %s", d.msg);
    return x;
}

static void fill(plumb_tensor *t, uint64_t seed, double lo, double hi)
{
    uint64_t s = seed, n = plumb_tensor_numel(t);
    if (t->dtype == PLUMB_F32) {
        float *p = t->data;
        for (uint64_t i = 0; i < n; i++)
            p[i] = rng_float(&s, lo, hi);
    } else if (t->dtype == PLUMB_BF16) {
        uint16_t *p = t->data;
        for (uint64_t i = 0; i < n; i++)
            p[i] = plumb_f32_to_bf16(rng_float(&s, lo, hi));
    } else if (plumb_fpfmt_get(t->dtype)) {
        uint8_t *p = t->data;
        for (uint64_t i = 0; i < n; i++)
            p[i] = (uint8_t)plumb_f64_to_small(plumb_fpfmt_get(t->dtype), rng_float(&s, lo, hi));
    }
}

/* The first `rows` rows (leading dimension) of t, as a new tensor. */
static plumb_tensor *prefix_rows(const plumb_tensor *t, int64_t rows, bench_result *r)
{
    int64_t dims[PLUMB_MAX_RANK];
    memcpy(dims, t->dims, sizeof dims);
    dims[0] = rows;
    plumb_tensor *p = new_tensor(t->dtype, t->rank, dims, r);
    if (p && p->nbytes)
        memcpy(p->data, t->data, p->nbytes);
    return p;
}

static void free_tensors(plumb_tensor **t, uint32_t n)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(t[i]);
}

static double tensors_bytes(plumb_tensor *const *t, uint32_t n)
{
    double b = 0;
    for (uint32_t i = 0; i < n; i++)
        b += (double)t[i]->nbytes;
    return b;
}

/* ---- modules ----------------------------------------------------------------- */

typedef ir_value *(*build_fn)(plumb_nn *nn, const int64_t *shape, void *ctx);

static bool verify_module(ir_module *m, bench_result *r, const char *what)
{
    plumb_diag d = {0};
    if (ir_verify(m, NULL, &d))
        return true;
    add_error(r, "%s does not verify: %s", what, d.msg);
    return false;
}

static ir_module *finish(plumb_nn *nn, ir_module *m, ir_value *y, bench_result *r)
{
    if (y)
        plumb_nn_return(nn, &y, 1);
    if (!plumb_nn_ok(nn)) {
        add_error(r, "building the program: %s", nn->d->msg);
        ir_module_free(m);
        return NULL;
    }
    if (!verify_module(m, r, "the program")) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

/* tanh(x*a + b) * logistic(x), a and b scalar parameters. */
static ir_module *build_chain(int64_t n, bench_result *r)
{
    ir_module *m = ir_module_new("chain");
    plumb_diag d = {0};
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, &d) || !plumb_nn_begin_func(&nn, "main", true)) {
        add_error(r, "building the program: %s", d.msg[0] ? d.msg : "out of memory");
        ir_module_free(m);
        return NULL;
    }
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n);
    ir_value *a = plumb_nn_param(&nn, PLUMB_F32, 0, NULL);
    ir_value *b = plumb_nn_param(&nn, PLUMB_F32, 0, NULL);
    ir_value *ab = x ? plumb_nn_broadcast_to(&nn, a, &x->type) : NULL;
    ir_value *bb = x ? plumb_nn_broadcast_to(&nn, b, &x->type) : NULL;
    ir_value *t = plumb_nn_unary(&nn, PLUMB_OP_TANH, plumb_nn_add(&nn, plumb_nn_mul(&nn, x, ab), bb));
    ir_value *y = plumb_nn_mul(&nn, t, plumb_nn_unary(&nn, PLUMB_OP_LOGISTIC, x));
    return finish(&nn, m, y, r);
}

typedef enum rowop { ROW_SOFTMAX, ROW_LAYER_NORM } rowop;

static ir_module *build_rows(rowop op, int64_t rows, int64_t cols, bench_result *r)
{
    ir_module *m = ir_module_new(op == ROW_SOFTMAX ? "softmax" : "layer_norm");
    plumb_diag d = {0};
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, &d) || !plumb_nn_begin_func(&nn, "main", true)) {
        add_error(r, "building the program: %s", d.msg[0] ? d.msg : "out of memory");
        ir_module_free(m);
        return NULL;
    }
    int64_t dims[2] = {rows, cols};
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 2, dims);
    ir_value *y;
    if (op == ROW_SOFTMAX) {
        y = plumb_nn_softmax(&nn, x, -1);
    } else {
        ir_value *g = plumb_nn_param(&nn, PLUMB_F32, 1, &cols);
        ir_value *b = plumb_nn_param(&nn, PLUMB_F32, 1, &cols);
        y = plumb_nn_layer_norm(&nn, x, g, b, 1e-5);
    }
    return finish(&nn, m, y, r);
}

static ir_module *build_sum(int64_t n, bench_result *r)
{
    ir_module *m = ir_module_new("sum");
    plumb_diag d = {0};
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, &d) || !plumb_nn_begin_func(&nn, "main", true)) {
        add_error(r, "building the program: %s", d.msg[0] ? d.msg : "out of memory");
        ir_module_free(m);
        return NULL;
    }
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n);
    int64_t dim0 = 0;
    return finish(&nn, m, plumb_nn_reduce(&nn, x, PLUMB_NN_SUM, &dim0, 1), r);
}

static ir_module *build_dot(plumb_dtype t, int64_t mm, int64_t k, int64_t n, bench_result *r)
{
    ir_module *m = ir_module_new("dot");
    plumb_diag d = {0};
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, &d) || !plumb_nn_begin_func(&nn, "main", true)) {
        add_error(r, "building the program: %s", d.msg[0] ? d.msg : "out of memory");
        ir_module_free(m);
        return NULL;
    }
    int64_t ad[2] = {mm, k}, bd[2] = {k, n}, ac = 1, bc = 0;
    ir_value *a = plumb_nn_param(&nn, t, 2, ad);
    ir_value *b = plumb_nn_param(&nn, t, 2, bd);
    return finish(&nn, m, plumb_nn_dot_general(&nn, a, b, NULL, NULL, 0, &ac, &bc, 1), r);
}

/* A chain of `ops` elementwise ops on tensor<4xf32>: the cache-hit probe.
 * Each step is v = tanh((v + y) * y) or a negate, so values stay in range. */
static ir_module *build_chain100(int ops, bench_result *r)
{
    ir_module *m = ir_module_new("chain100");
    plumb_diag d = {0};
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, &d) || !plumb_nn_begin_func(&nn, "main", true)) {
        add_error(r, "building the program: %s", d.msg[0] ? d.msg : "out of memory");
        ir_module_free(m);
        return NULL;
    }
    int64_t four = 4;
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &four);
    ir_value *y = plumb_nn_param(&nn, PLUMB_F32, 1, &four);
    ir_value *v = x;
    for (int i = 0; i < ops; i++) {
        switch (i % 4) {
        case 0: v = plumb_nn_add(&nn, v, y); break;
        case 1: v = plumb_nn_mul(&nn, v, y); break;
        case 2: v = plumb_nn_unary(&nn, PLUMB_OP_TANH, v); break;
        default: v = plumb_nn_unary(&nn, PLUMB_OP_NEGATE, v); break;
        }
    }
    return finish(&nn, m, v, r);
}

/* ---- running ------------------------------------------------------------------- */

/* Times `fn` until it has run at least min_reps times and for at least
 * min_total seconds (at most max_reps times): short workloads need many
 * runs for a stable best, long ones a few. */
typedef bool (*run_fn)(void *ctx, bool keep);

static bool time_runs(run_fn fn, void *ctx, int min_reps, int max_reps, double min_total,
                      bench_times *out)
{
    double *t = malloc((size_t)max_reps * sizeof *t);
    if (!t)
        return false;
    int n = 0;
    double total = 0;
    while (n < max_reps && (n < min_reps || total < min_total)) {
        double t0 = bench_now();
        bool ok = fn(ctx, false);
        t[n] = bench_now() - t0;
        if (!ok) {
            free(t);
            return false;
        }
        total += t[n++];
    }
    *out = bench_summarize(t, n);
    free(t);
    return true;
}

typedef struct ref_ctx {
    const ir_module *m;
    plumb_tensor **in;
    uint32_t n_in;
    plumb_ref_result res;     /* kept from the last run asked to keep it */
    plumb_diag d;
} ref_ctx;

static bool ref_once(void *p, bool keep)
{
    ref_ctx *c = p;
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res = {0};
    if (!plumb_ref_run(c->m, "main", c->in, c->n_in, &o, &res, &c->d))
        return false;
    if (keep) {
        plumb_ref_result_free(&c->res);
        c->res = res;
    } else {
        plumb_ref_result_free(&res);
    }
    return true;
}

typedef struct rt_ctx {
    plumb_executable *ex;
    plumb_tensor **in;
    uint32_t n_in;
    plumb_tensor *out[16];    /* the first run's results (allocated by the run), validated */
    plumb_tensor *into[16];   /* where the timed runs write (plumb_executable_run_into) */
    uint32_t n_out;
    plumb_diag d;
} rt_ctx;

/* keep: the allocating call, results kept in c->out (the first run);
 * otherwise the timed path: results written into c->into, nothing
 * allocated. */
static bool rt_once(void *p, bool keep)
{
    rt_ctx *c = p;
    uint32_t failed = 0;
    if (!keep)
        return plumb_executable_run_into(c->ex, c->in, c->n_in, c->into, c->n_out, &failed, &c->d);
    plumb_tensor *out[16] = {0};
    if (!plumb_executable_run(c->ex, c->in, c->n_in, out, c->n_out, &failed, &c->d))
        return false;
    free_tensors(c->out, c->n_out);
    memcpy(c->out, out, sizeof out);
    return true;
}

/* The allocating call, for comparison: what a caller that does not keep
 * its result tensors pays. */
static bool rt_once_alloc(void *p, bool keep)
{
    (void)keep;
    rt_ctx *c = p;
    plumb_tensor *out[16] = {0};
    uint32_t failed = 0;
    if (!plumb_executable_run(c->ex, c->in, c->n_in, out, c->n_out, &failed, &c->d))
        return false;
    free_tensors(out, c->n_out);
    return true;
}

static void rt_release(rt_ctx *c)
{
    free_tensors(c->out, c->n_out);
    free_tensors(c->into, c->n_out);
}

/* Set from bench_config.perturb for the duration of one workload. */
static bool cfg_perturb;

static bool rt_prepare(rt_ctx *c, plumb_runtime *rt, const ir_module *m, plumb_tensor **in,
                       uint32_t n_in, bench_result *r)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->n_in = n_in;
    c->ex = plumb_runtime_compile(rt, m, "main", &c->d);
    if (!c->ex) {
        add_error(r, "runtime compile: %s", c->d.msg);
        return false;
    }
    c->n_out = plumb_executable_num_outputs(c->ex);
    if (c->n_out > 16) {
        add_error(r, "runtime: %u results (the bench handles 16)", c->n_out);
        return false;
    }
    /* The first run pages in the planned buffers and its result is the one
     * validated. */
    if (!rt_once(c, true)) {
        add_error(r, "runtime run: %s", c->d.msg);
        return false;
    }
    /* The timed runs' result tensors, allocated (and paged in) once. */
    for (uint32_t i = 0; i < c->n_out; i++) {
        if (!(c->into[i] = plumb_tensor_clone(c->out[i], &c->d))) {
            add_error(r, "runtime: cannot allocate result %u: %s", i, c->d.msg);
            rt_release(c);
            return false;
        }
    }
    if (cfg_perturb && c->n_out && plumb_tensor_numel(c->out[0])) {
        /* --perturb: a 1% error in one element, far outside every
         * tolerance, so a run that does not report a mismatch is a bug in
         * the validation. */
        plumb_tensor *o = c->out[0];
        double v = plumb_load_f64(o->dtype, o->data, 0) * 1.01 + 0.01;
        if (o->dtype == PLUMB_F32)
            *(float *)o->data = (float)v;
        else if (o->dtype == PLUMB_BF16)
            *(uint16_t *)o->data = plumb_f64_to_bf16(v);
        else if (o->dtype == PLUMB_F64)
            *(double *)o->data = v;
        else if (plumb_fpfmt_get(o->dtype))   /* 1% rounds away in FP8: one ulp, checked exactly */
            *(uint8_t *)o->data ^= 1;
    }
    return true;
}

/* Reference on the subset: one kept run, then timed runs. */
static bool run_ref(ref_ctx *c, const ir_module *m, plumb_tensor **in, uint32_t n_in,
                    const bench_config *cfg, bench_result *r)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->in = in;
    c->n_in = n_in;
    bench_times t;
    double t0 = bench_now();
    if (!ref_once(c, true)) {
        add_error(r, "reference: %s", c->d.msg);
        return false;
    }
    double first = bench_now() - t0;
    /* A reference run of seconds is timed once more at most: its speed is
     * what the speedups are divided by, but it must not dominate the run. */
    int reps = first > 2.0 ? 1 : cfg->ref_reps;
    if (!time_runs(ref_once, c, reps, 1000, cfg->quick ? 0.05 : 0.5, &t)) {
        add_error(r, "reference: %s", c->d.msg);
        return false;
    }
    r->ref_subset_s = t.best < first ? t.best : first;
    r->ref_s = r->ref_subset_s * r->ref_scale;
    return true;
}

static bool run_rt(rt_ctx *c, const bench_config *cfg, bench_result *r)
{
    bench_times t;
    if (!time_runs(rt_once, c, cfg->reps, 100000, cfg->quick ? 0.02 : 0.25, &t)) {
        add_error(r, "runtime run: %s", c->d.msg);
        return false;
    }
    r->rt_s = t.best;
    r->rt_median_s = t.median;
    r->ran = true;
    if (r->kind == BENCH_MEMORY) {
        if (!time_runs(rt_once_alloc, c, cfg->reps, 100000, cfg->quick ? 0.02 : 0.25, &t)) {
            add_error(r, "runtime run (allocating): %s", c->d.msg);
            return false;
        }
        r->rt_alloc_s = t.best;
    }
    return true;
}

/* ---- validation ---------------------------------------------------------------- */

/* Allowed error per element i of the reference's result:
 *   ulp > 0:  ULP distance <= ulp
 *   else:     |got - ref| <= abs + abs_i[i] + rel * |ref|
 * Special values must match (any NaN matches any NaN). */
typedef struct tolerance {
    double ulp;
    double abs;
    const double *abs_i;     /* per element, or NULL */
    double rel;
} tolerance;

static int64_t ordered_bits(plumb_dtype t, uint64_t bits)
{
    /* Maps float bit patterns to integers whose difference is the ULP
     * distance (negative floats mirrored below zero). */
    unsigned w = (unsigned)plumb_dtype_size(t) * 8;
    uint64_t sign = 1ull << (w - 1);
    return (bits & sign) ? -(int64_t)(bits & (sign - 1)) : (int64_t)bits;
}

/* Compares the first numel(ref) elements of got with ref; returns the worst
 * error as a fraction of the allowed error and the index where it is. */
static double compare(const plumb_tensor *ref, const plumb_tensor *got, const tolerance *tol,
                      uint64_t *where, char *why, size_t whylen)
{
    uint64_t n = plumb_tensor_numel(ref);
    if (got->dtype != ref->dtype || plumb_tensor_numel(got) < n) {
        snprintf(why, whylen, "result type differs from the reference's");
        return INFINITY;
    }
    double worst = 0;
    *where = 0;
    for (uint64_t i = 0; i < n; i++) {
        double rv = plumb_load_f64(ref->dtype, ref->data, i), gv = plumb_load_f64(got->dtype, got->data, i);
        double e;
        if (isnan(rv) || isnan(gv)) {
            e = isnan(rv) && isnan(gv) ? 0 : INFINITY;
        } else if (isinf(rv) || isinf(gv)) {
            e = rv == gv ? 0 : INFINITY;
        } else if (tol->ulp > 0) {
            int64_t a = ordered_bits(ref->dtype, plumb_load_bits(ref->dtype, ref->data, i));
            int64_t b = ordered_bits(got->dtype, plumb_load_bits(got->dtype, got->data, i));
            e = (double)(a > b ? a - b : b - a) / tol->ulp;
        } else {
            double allowed = tol->abs + (tol->abs_i ? tol->abs_i[i] : 0) + tol->rel * fabs(rv);
            double diff = fabs(gv - rv);
            e = diff == 0 ? 0 : allowed > 0 ? diff / allowed : INFINITY;
        }
        if (e > worst || (isnan(e) && !isnan(worst))) {
            worst = e;
            *where = i;
        }
    }
    if (worst > 1)
        snprintf(why, whylen, "element %llu: runtime %.9g, reference %.9g",
                 (unsigned long long)*where, plumb_load_f64(got->dtype, got->data, *where),
                 plumb_load_f64(ref->dtype, ref->data, *where));
    return worst;
}

static void validate(bench_result *r, const plumb_tensor *ref, const plumb_tensor *got,
                     const tolerance *tol, const char *what)
{
    uint64_t where;
    char why[200] = "";
    double w = compare(ref, got, tol, &where, why, sizeof why);
    if (!(w <= r->worst) && !isnan(r->worst))
        r->worst = w;
    if (!(w <= 1)) {
        r->valid = false;
        add_error(r, "MISMATCH %s: %s (%.3g of the allowed error)", what, why, w);
    }
}

/* ---- workloads ----------------------------------------------------------------- */

static int64_t subset_of(int64_t n, int fraction)
{
    int64_t s = n / (fraction > 0 ? fraction : 1);
    return s > 0 ? s : 1;
}

static void wl_chain(const bench_config *cfg, plumb_runtime *rt, plumb_runtime *rt1, bench_result *r)
{
    int64_t n = cfg->quick ? (1 << 18) : (16 << 20), ns = subset_of(n, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lld f32", (long long)n);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld elements", (long long)ns);
    r->ref_scale = (double)n / (double)ns;
    r->elems = (double)n;
    r->bytes = 2.0 * 4.0 * (double)n;
    /* tanh and logistic are 2-ULP ops, the product rounds once: each factor
     * is within 2 ULP (a relative 2^-22), so the product is within ~4.5
     * 2^-23 relative, up to 9 ULP of the result in the worst binade
     * position, plus the reference's own 1.5 ULP of composition: 12. */
    snprintf(r->tolerance, sizeof r->tolerance, "12 ULP (tanh 2 + logistic 2 + product, both backends)");
    ir_module *m = build_chain(n, r), *ms = build_chain(ns, r);
    plumb_tensor *in[3] = {0}, *ins[3] = {0};
    int64_t nd = n;
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 1, &nd, r)) || !(in[1] = new_tensor(PLUMB_F32, 0, NULL, r)) ||
        !(in[2] = new_tensor(PLUMB_F32, 0, NULL, r)))
        goto done;
    fill(in[0], 1, -4, 4);
    *(float *)in[1]->data = 0.75f;
    *(float *)in[2]->data = 0.25f;
    if (!(ins[0] = prefix_rows(in[0], ns, r)) || !(ins[1] = plumb_tensor_clone(in[1], NULL)) ||
        !(ins[2] = plumb_tensor_clone(in[2], NULL)))
        goto done;
    ref_ctx rc;
    rt_ctx c, c1;
    if (!run_ref(&rc, ms, ins, 3, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 3, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &(tolerance){.ulp = 12}, "result");
        run_rt(&c, cfg, r);
        /* One thread: the ns/element target is per thread; the
         * result must be the same bits on 1 thread as on all. */
        if (rt1 && rt_prepare(&c1, rt1, m, in, 3, r)) {
            bench_times t;
            if (!plumb_tensor_equal(c1.out[0], c.out[0])) {
                r->valid = false;
                add_error(r, "MISMATCH: the results on 1 and %u threads differ", cfg->threads);
            }
            if (time_runs(rt_once, &c1, cfg->reps, 100000, cfg->quick ? 0.02 : 0.25, &t))
                r->rt_1t_s = t.best;
            rt_release(&c1);
        }
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free_tensors(in, 3);
    free_tensors(ins, 3);
    ir_module_free(m);
    ir_module_free(ms);
}

static void wl_rows(rowop op, const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t rows = cfg->quick ? 64 : 4096, cols = 1024, rs = subset_of(rows, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lldx%lld f32", (long long)rows, (long long)cols);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld of %lld rows", (long long)rs, (long long)rows);
    r->ref_scale = (double)rows / (double)rs;
    r->elems = (double)(rows * cols);
    r->bytes = 2.0 * 4.0 * (double)(rows * cols) + (op == ROW_LAYER_NORM ? 2.0 * 4.0 * (double)cols : 0);
    ir_module *m = build_rows(op, rows, cols, r), *ms = build_rows(op, rs, cols, r);
    uint32_t n_in = op == ROW_SOFTMAX ? 1 : 3;
    plumb_tensor *in[3] = {0}, *ins[3] = {0};
    int64_t dims[2] = {rows, cols};
    double *abs_i = NULL;
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 2, dims, r)))
        goto done;
    fill(in[0], 2, -4, 4);
    if (op == ROW_LAYER_NORM) {
        if (!(in[1] = new_tensor(PLUMB_F32, 1, &cols, r)) || !(in[2] = new_tensor(PLUMB_F32, 1, &cols, r)))
            goto done;
        fill(in[1], 3, 0.5, 1.5);
        fill(in[2], 4, -0.5, 0.5);
    }
    if (!(ins[0] = prefix_rows(in[0], rs, r)))
        goto done;
    for (uint32_t i = 1; i < n_in; i++)
        if (!(ins[i] = plumb_tensor_clone(in[i], NULL)))
            goto done;
    tolerance tol = {0};
    double g = gamma_u((double)(cols - 1), U_F32);
    if (op == ROW_SOFTMAX) {
        /* exp within 1 ULP, the row sum of positive terms within
         * gamma(n-1) relative, the division rounds once. */
        tol.rel = g + 0x1p-20;
        snprintf(r->tolerance, sizeof r->tolerance, "relative gamma(%lld) + 2^-20 = %.3g", (long long)(cols - 1), tol.rel);
    } else {
        /* The mean is off by at most gamma(n-1) mean|x| (any summation
         * order); that error, scaled by rstd and gamma, reaches every
         * element; the variance, rsqrt and the affine step add a relative
         * gamma(n) + a few roundings. Computed per row in double here. */
        abs_i = calloc((size_t)(rs * cols), sizeof *abs_i);
        if (!abs_i) {
            add_error(r, "cannot allocate the tolerance table");
            goto done;
        }
        const float *x = in[0]->data, *gm = in[1]->data, *bt = in[2]->data;
        for (int64_t i = 0; i < rs; i++) {
            double s = 0, sa = 0, v = 0;
            for (int64_t j = 0; j < cols; j++) {
                s += x[i * cols + j];
                sa += fabs(x[i * cols + j]);
            }
            double mean = s / (double)cols;
            for (int64_t j = 0; j < cols; j++)
                v += (x[i * cols + j] - mean) * (x[i * cols + j] - mean);
            double rstd = 1 / sqrt(v / (double)cols + 1e-5);
            for (int64_t j = 0; j < cols; j++)
                abs_i[i * cols + j] = 2 * g * (sa / (double)cols) * rstd * fabs(gm[j]) +
                                      (g + 0x1p-20) * (fabs(bt[j]) + fabs((x[i * cols + j] - mean) * rstd * gm[j]));
        }
        tol.abs_i = abs_i;
        tol.rel = 0x1p-20;
        snprintf(r->tolerance, sizeof r->tolerance,
                 "per element: 2 gamma(n-1) mean|x| rstd |g| + (gamma(n-1) + 2^-20) (|b| + |y|) + 2^-20 |ref|");
    }
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, ms, ins, n_in, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, n_in, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &tol, "result rows");
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free(abs_i);
    free_tensors(in, 3);
    free_tensors(ins, 3);
    ir_module_free(m);
    ir_module_free(ms);
}

static void wl_sum(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t n = cfg->quick ? (1 << 20) : (64 << 20), ns = subset_of(n, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lld f32", (long long)n);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld elements", (long long)ns);
    r->ref_scale = (double)n / (double)ns;
    r->elems = (double)n;
    r->bytes = 4.0 * (double)n + 4.0;
    ir_module *m = build_sum(n, r), *ms = build_sum(ns, r);
    plumb_tensor *in[1] = {0}, *ins[1] = {0};
    int64_t nd = n;
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 1, &nd, r)))
        goto done;
    fill(in[0], 5, -1, 3);
    if (!(ins[0] = prefix_rows(in[0], ns, r)))
        goto done;
    /* Higham's gamma(n-1) sum|x| is the contract's bound for any order, but
     * it exceeds sum|x| once n >= 2^24; the bench then asks for 1e-5 sum|x|
     * (~170 u), which any blocked or pairwise f32 sum meets and a lost or
     * doubled block misses by orders of magnitude. */
    const float *x = in[0]->data;
    long double sab = 0, sas = 0, ex = 0;
    for (int64_t i = 0; i < n; i++) {
        ex += x[i];
        sab += fabsl((long double)x[i]);
        if (i == ns - 1)
            sas = sab;
    }
    double cap = 1e-5;
    double gs = gamma_u((double)(ns - 1), U_F32), gf = gamma_u((double)(n - 1), U_F32);
    tolerance tol_s = {.abs = (gs < cap ? gs : cap) * (double)sas, .rel = 2 * U_F32};
    tolerance tol_f = {.abs = (gf < cap ? gf : cap) * (double)sab, .rel = 2 * U_F32};
    snprintf(r->tolerance, sizeof r->tolerance, "min(gamma(n-1), 1e-5) sum|x| + 2u |exact|");
    ref_ctx rc;
    rt_ctx c, cs;
    if (!run_ref(&rc, ms, ins, 1, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 1, r)) {
        r->valid = true;
        /* The subset's sum is a different number: the runtime runs the
         * subset program too for the comparison with the reference, and
         * its full sum is checked against a long double sum here. */
        if (rt_prepare(&cs, rt, ms, ins, 1, r)) {
            validate(r, rc.res.outputs[0], cs.out[0], &tol_s, "subset sum");
            rt_release(&cs);
        } else {
            r->valid = false;
        }
        plumb_diag d = {0};
        int64_t none = 0;
        plumb_tensor *exact = plumb_tensor_new(PLUMB_F32, 0, &none, 0, &d);
        if (exact) {
            *(float *)exact->data = (float)ex;
            /* The rounding of the long double sum to f32 is within u|exact|,
             * covered by the 2u relative term. */
            validate(r, exact, c.out[0], &tol_f, "full sum vs a long double sum");
            plumb_tensor_free(exact);
        }
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free_tensors(in, 1);
    free_tensors(ins, 1);
    ir_module_free(m);
    ir_module_free(ms);
}

static void wl_dot(plumb_dtype t, const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t n = cfg->quick ? 128 : 1024, ms_rows = subset_of(n, cfg->ref_fraction);
    double es = (double)plumb_dtype_size(t);
    snprintf(r->size, sizeof r->size, "%lldx%lldx%lld %s", (long long)n, (long long)n, (long long)n,
             plumb_dtype_name(t));
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld of %lld rows of A", (long long)ms_rows, (long long)n);
    r->ref_scale = (double)n / (double)ms_rows;
    r->bytes = 3.0 * es * (double)(n * n);
    r->flops = 2.0 * (double)n * (double)n * (double)n;
    ir_module *m = build_dot(t, n, n, n, r), *ms = build_dot(t, ms_rows, n, n, r);
    plumb_tensor *in[2] = {0}, *ins[2] = {0};
    int64_t dims[2] = {n, n};
    double *abs_i = NULL;
    if (!m || !ms || !(in[0] = new_tensor(t, 2, dims, r)) || !(in[1] = new_tensor(t, 2, dims, r)))
        goto done;
    fill(in[0], 6, -1, 1);
    fill(in[1], 7, -1, 1);
    if (!(ins[0] = prefix_rows(in[0], ms_rows, r)) || !(ins[1] = plumb_tensor_clone(in[1], NULL)))
        goto done;
    /* |got - ref| <= gamma_f32(K) sum_k |a_ik b_kj| + (u_acc + u_out) |ref|:
     * f32 accumulation in any order, then the result's rounding. */
    abs_i = calloc((size_t)(ms_rows * n), sizeof *abs_i);
    if (!abs_i) {
        add_error(r, "cannot allocate the tolerance table");
        goto done;
    }
    double g = gamma_u((double)n, U_F32);
    for (int64_t i = 0; i < ms_rows; i++)
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(plumb_load_f64(t, in[0]->data, (size_t)(i * n + k)));
            for (int64_t j = 0; j < n; j++)
                abs_i[i * n + j] += a * fabs(plumb_load_f64(t, in[1]->data, (size_t)(k * n + j)));
        }
    for (int64_t i = 0; i < ms_rows * n; i++)
        abs_i[i] *= g;
    tolerance tol = {.abs_i = abs_i, .rel = U_F32 + (t == PLUMB_BF16 ? U_BF16 : U_F32)};
    snprintf(r->tolerance, sizeof r->tolerance, "gamma_f32(K) sum|a||b| + (u_f32 + u_%s) |ref|", plumb_dtype_name(t));
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, ms, ins, 2, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 2, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &tol, "result rows");
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free(abs_i);
    free_tensors(in, 2);
    free_tensors(ins, 2);
    ir_module_free(m);
    ir_module_free(ms);
}

static ir_module *parse_module(const char *src, bench_result *r);

/* FP8 (issue 20): y = a * b + a elementwise in type t, two ops of the
 * runtime's table kernels for FP8 (runtime/k_lowp.c), the half loops for
 * bf16; exact agreement (each op correctly rounded on both backends). */
static void wl_ew2(plumb_dtype t, const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t n = cfg->quick ? (1 << 18) : (16 << 20), ns = subset_of(n, cfg->ref_fraction);
    const char *tn = plumb_dtype_name(t);
    snprintf(r->size, sizeof r->size, "%lld %s, 2 ops", (long long)n, tn);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld elements", (long long)ns);
    snprintf(r->tolerance, sizeof r->tolerance, "exact (each op correctly rounded)");
    r->ref_scale = (double)n / (double)ns;
    r->elems = (double)n;
    r->bytes = 3.0 * (double)plumb_dtype_size(t) * (double)n;
    char src[2][768];
    for (int k = 0; k < 2; k++) {
        long long len = k ? (long long)ns : (long long)n;
        snprintf(src[k], sizeof src[k],
                 "func.func @main(%%a: tensor<%lldx%s>, %%b: tensor<%lldx%s>) -> tensor<%lldx%s> {\n"
                 "  %%0 = stablehlo.multiply %%a, %%b : tensor<%lldx%s>\n"
                 "  %%1 = stablehlo.add %%0, %%a : tensor<%lldx%s>\n"
                 "  return %%1 : tensor<%lldx%s>\n}\n",
                 len, tn, len, tn, len, tn, len, tn, len, tn, len, tn);
    }
    ir_module *m = parse_module(src[0], r), *ms = parse_module(src[1], r);
    plumb_tensor *in[2] = {0}, *ins[2] = {0};
    int64_t nd = n;
    if (!m || !ms || !(in[0] = new_tensor(t, 1, &nd, r)) || !(in[1] = new_tensor(t, 1, &nd, r)))
        goto done;
    fill(in[0], 11, -4, 4);
    fill(in[1], 12, -2, 2);
    if (!(ins[0] = prefix_rows(in[0], ns, r)) || !(ins[1] = prefix_rows(in[1], ns, r)))
        goto done;
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, ms, ins, 2, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 2, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &(tolerance){0}, "result");
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free_tensors(in, 2);
    free_tensors(ins, 2);
    ir_module_free(m);
    ir_module_free(ms);
}

/* FP8 GEMM (issue 20): f8E4M3FN x f8E4M3FN -> f32, n x n x n, on the
 * runtime's f32 GEMM after widening through a 256-entry table; compare its
 * GFLOP/s with dot_f32's in the same run. */
static void wl_dot_fp8(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    const plumb_dtype t = PLUMB_F8E4M3FN;
    int64_t n = cfg->quick ? 128 : 1024, ms_rows = subset_of(n, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lldx%lldx%lld f8E4M3FN -> f32", (long long)n, (long long)n, (long long)n);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld of %lld rows of A", (long long)ms_rows, (long long)n);
    r->ref_scale = (double)n / (double)ms_rows;
    r->bytes = 2.0 * (double)(n * n) + 4.0 * (double)(n * n);
    r->flops = 2.0 * (double)n * (double)n * (double)n;
    char src[2][768];
    for (int k = 0; k < 2; k++) {
        long long mm = k ? (long long)ms_rows : (long long)n, nn = (long long)n;
        snprintf(src[k], sizeof src[k],
                 "func.func @main(%%a: tensor<%lldx%lldxf8E4M3FN>, %%b: tensor<%lldx%lldxf8E4M3FN>) -> tensor<%lldx%lldxf32> {\n"
                 "  %%0 = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : "
                 "(tensor<%lldx%lldxf8E4M3FN>, tensor<%lldx%lldxf8E4M3FN>) -> tensor<%lldx%lldxf32>\n"
                 "  return %%0 : tensor<%lldx%lldxf32>\n}\n",
                 mm, nn, nn, nn, mm, nn, mm, nn, nn, nn, mm, nn, mm, nn);
    }
    ir_module *m = parse_module(src[0], r), *ms = parse_module(src[1], r);
    plumb_tensor *in[2] = {0}, *ins[2] = {0};
    int64_t dims[2] = {n, n};
    double *abs_i = NULL;
    if (!m || !ms || !(in[0] = new_tensor(t, 2, dims, r)) || !(in[1] = new_tensor(t, 2, dims, r)))
        goto done;
    fill(in[0], 6, -1, 1);
    fill(in[1], 7, -1, 1);
    if (!(ins[0] = prefix_rows(in[0], ms_rows, r)) || !(ins[1] = plumb_tensor_clone(in[1], NULL)))
        goto done;
    /* |got - ref| <= gamma_f32(K) sum_k |a_ik b_kj| + u_f32 |ref|: exact
     * products, f32 accumulation in any order, one rounding to f32 */
    abs_i = calloc((size_t)(ms_rows * n), sizeof *abs_i);
    if (!abs_i) {
        add_error(r, "cannot allocate the tolerance table");
        goto done;
    }
    double g = gamma_u((double)n, U_F32);
    for (int64_t i = 0; i < ms_rows; i++)
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(plumb_load_f64(t, in[0]->data, (size_t)(i * n + k)));
            for (int64_t j = 0; j < n; j++)
                abs_i[i * n + j] += a * fabs(plumb_load_f64(t, in[1]->data, (size_t)(k * n + j)));
        }
    for (int64_t i = 0; i < ms_rows * n; i++)
        abs_i[i] *= g;
    tolerance tol = {.abs_i = abs_i, .rel = 2 * U_F32};
    snprintf(r->tolerance, sizeof r->tolerance, "gamma_f32(K) sum|a||b| + 2 u_f32 |ref|");
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, ms, ins, 2, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 2, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &tol, "result rows");
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free(abs_i);
    free_tensors(in, 2);
    free_tensors(ins, 2);
    ir_module_free(m);
    ir_module_free(ms);
}

/* A ResNet-style 3x3 layer (issue 19): N x H x W x C NHWC f32 under a
 * 3x3 x C x C HWIO kernel, padding 1, stride 1, so H x W is kept; the
 * runtime's im2col + GEMM. The reference runs the first image. */
static ir_module *build_conv(int64_t n, int64_t hw, int64_t c, bench_result *r)
{
    char lt[96], kt[96], src[1024];
    snprintf(lt, sizeof lt, "tensor<%lldx%lldx%lldx%lldxf32>", (long long)n, (long long)hw, (long long)hw, (long long)c);
    snprintf(kt, sizeof kt, "tensor<3x3x%lldx%lldxf32>", (long long)c, (long long)c);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%w: %s) -> %s {\n"
             "  %%r = stablehlo.convolution(%%x, %%w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
             "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
             ": (%s, %s) -> %s\n  return %%r : %s\n}\n",
             lt, kt, lt, lt, kt, lt, lt);
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, strlen(src), "conv3x3", NULL, &d);
    if (!m) {
        add_error(r, "building the program: %s", d.msg);
        return NULL;
    }
    if (!verify_module(m, r, "conv3x3")) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

static void wl_conv(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t n = cfg->quick ? 2 : 8, hw = cfg->quick ? 14 : 56, c = cfg->quick ? 16 : 64;
    snprintf(r->size, sizeof r->size, "%lldx%lldx%lldx%lld * 3x3x%lldx%lld f32", (long long)n, (long long)hw,
             (long long)hw, (long long)c, (long long)c, (long long)c);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first image of %lld", (long long)n);
    r->ref_scale = (double)n;
    r->bytes = 4.0 * (double)(2 * n * hw * hw * c + 9 * c * c);
    r->flops = 2.0 * (double)(n * hw * hw) * (double)c * (double)(9 * c);
    ir_module *m = build_conv(n, hw, c, r), *ms = build_conv(1, hw, c, r);
    plumb_tensor *in[2] = {0}, *ins[2] = {0};
    int64_t xd[4] = {n, hw, hw, c}, wd[4] = {3, 3, c, c};
    double *abs_i = NULL;
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 4, xd, r)) || !(in[1] = new_tensor(PLUMB_F32, 4, wd, r)))
        goto done;
    fill(in[0], 8, -1, 1);
    fill(in[1], 9, -1, 1);
    if (!(ins[0] = prefix_rows(in[0], 1, r)) || !(ins[1] = plumb_tensor_clone(in[1], NULL)))
        goto done;
    /* |got - ref| <= gamma_f32(9C) sum |x||w| over the window (padding
     * terms are 0) + 2u |ref|: f32 accumulation in any order, then the
     * result's rounding; the sums for the first image, by direct loops. */
    abs_i = calloc((size_t)(hw * hw * c), sizeof *abs_i);
    if (!abs_i) {
        add_error(r, "cannot allocate the tolerance table");
        goto done;
    }
    const float *x = in[0]->data, *w = in[1]->data;
    double g = gamma_u((double)(9 * c), U_F32);
    for (int64_t i = 0; i < hw; i++)
        for (int64_t j = 0; j < hw; j++)
            for (int64_t ky = 0; ky < 3; ky++)
                for (int64_t kx = 0; kx < 3; kx++) {
                    int64_t yi = i + ky - 1, xj = j + kx - 1;
                    if (yi < 0 || yi >= hw || xj < 0 || xj >= hw)
                        continue;
                    for (int64_t ci = 0; ci < c; ci++) {
                        double a = fabs((double)x[(yi * hw + xj) * c + ci]);
                        const float *wr = w + ((ky * 3 + kx) * c + ci) * c;
                        double *o = abs_i + (i * hw + j) * c;
                        for (int64_t co = 0; co < c; co++)
                            o[co] += a * fabs((double)wr[co]);
                    }
                }
    for (int64_t i = 0; i < hw * hw * c; i++)
        abs_i[i] *= g;
    tolerance tol = {.abs_i = abs_i, .rel = 2 * U_F32};
    snprintf(r->tolerance, sizeof r->tolerance, "gamma_f32(9C) sum|x||w| + 2u_f32 |ref|");
    ref_ctx rc;
    rt_ctx cx;
    if (!run_ref(&rc, ms, ins, 2, cfg, r))
        goto done;
    if (rt_prepare(&cx, rt, m, in, 2, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], cx.out[0], &tol, "first image");
        run_rt(&cx, cfg, r);
        rt_release(&cx);
    }
    plumb_ref_result_free(&rc.res);
done:
    free(abs_i);
    free_tensors(in, 2);
    free_tensors(ins, 2);
    ir_module_free(m);
    ir_module_free(ms);
}

/* ---- examples -------------------------------------------------------------------- */

static ir_module *load_example(const bench_config *cfg, const char *file, bench_result *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", cfg->examples, file);
    plumb_diag d = {0};
    size_t len;
    char *text = plumb_read_file(path, 0, &len, &d);
    if (!text) {
        add_error(r, "%s", d.msg);
        return NULL;
    }
    ir_module *m = ir_parse(text, len, path, NULL, &d);
    plumb_free(text, len + 1);
    if (!m) {
        add_error(r, "%s: %s", path, d.msg);
        return NULL;
    }
    if (!verify_module(m, r, path)) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

typedef struct replace_ctx {
    ir_value *const *from;
    ir_value *const *to;
    uint32_t n;
} replace_ctx;

static bool replace_operands(ir_op *op, void *ud)
{
    replace_ctx *c = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        for (uint32_t j = 0; j < c->n; j++)
            if (op->operands[i] == c->from[j])
                op->operands[i] = c->to[j];
    return true;
}

static bool is_check(plumb_opcode code)
{
    return plumb_op_get(code)->kind == PLUMB_KIND_CHECK;
}

/* Rewrites an example's @main so that it measures computing, not folding
 * and checking: the results of `call @inputs()` become parameters of
 * @main (otherwise the whole program is constant and a compiler may fold
 * it away), the check ops and `call @expected()` are removed. Each result's
 * tolerance is taken from the check that compared it with the independent
 * expected value (absolute for expect_almost_eq, 0 for expect_eq). */
static bool parameterize(ir_module *m, double *tol, uint32_t max_results, bench_result *r)
{
    ir_func *f = ir_module_find_func(m, "main");
    if (!f) {
        add_error(r, "example has no @main");
        return false;
    }
    ir_op *ret = f->body.last;
    if (!ret || ret->code != PLUMB_OP_FUNC_RETURN || ret->n_operands > max_results) {
        add_error(r, "example's @main does not end in a return of at most %u values", max_results);
        return false;
    }
    for (uint32_t i = 0; i < ret->n_operands; i++)
        tol[i] = -1;
    for (ir_op *op = f->body.first, *next; op; op = next) {
        next = op->next;
        if (is_check(op->code)) {
            for (uint32_t i = 0; i < ret->n_operands; i++)
                if (op->n_operands && ret->operands[i] == op->operands[0])
                    tol[i] = op->code == PLUMB_OP_EXPECT_ALMOST_EQ ? op->a.tolerance
                             : op->code == PLUMB_OP_EXPECT_EQ     ? 0
                                                                   : -1;
            ir_block_remove(&f->body, op);
        } else if (op->code == PLUMB_OP_CALL && op->a.callee && strcmp(op->a.callee, "expected") == 0) {
            ir_block_remove(&f->body, op);
        } else if (op->code == PLUMB_OP_CALL && op->a.callee && strcmp(op->a.callee, "inputs") == 0) {
            if (f->body.n_args) {
                add_error(r, "example's @main already has parameters");
                return false;
            }
            ir_value *args[64];
            if (op->n_results > 64) {
                add_error(r, "example has more than 64 inputs");
                return false;
            }
            for (uint32_t i = 0; i < op->n_results; i++)
                if (!(args[i] = ir_block_add_arg(m, &f->body, &op->results[i]->type))) {
                    add_error(r, "out of memory");
                    return false;
                }
            replace_ctx rc = {op->results, args, op->n_results};
            ir_walk(m, replace_operands, &rc);
            ir_block_remove(&f->body, op);
        }
    }
    return verify_module(m, r, "the parameterized example");
}

static void wl_example(const char *file, const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    snprintf(r->ref_subset, sizeof r->ref_subset, "whole program");
    r->ref_scale = 1;
    ir_module *m = load_example(cfg, file, r);
    plumb_ref_result inputs = {0};
    double tol[16];
    if (!m || !parameterize(m, tol, 16, r))
        goto done;
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_diag d = {0};
    if (!plumb_ref_run(m, "inputs", NULL, 0, &o, &inputs, &d)) {
        add_error(r, "reference on @inputs: %s", d.msg);
        goto done;
    }
    snprintf(r->size, sizeof r->size, "%u inputs, %.0f bytes", inputs.n_outputs,
             tensors_bytes(inputs.outputs, inputs.n_outputs));
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, m, inputs.outputs, inputs.n_outputs, cfg, r))
        goto done;
    r->bytes = tensors_bytes(inputs.outputs, inputs.n_outputs) + tensors_bytes(rc.res.outputs, rc.res.n_outputs);
    snprintf(r->tolerance, sizeof r->tolerance, "per result: the example's own check tolerance (absolute)");
    if (rt_prepare(&c, rt, m, inputs.outputs, inputs.n_outputs, r)) {
        r->valid = true;
        for (uint32_t i = 0; i < c.n_out && i < rc.res.n_outputs; i++) {
            char what[32];
            snprintf(what, sizeof what, "result %u", i);
            /* A result no check covered gets the loosest tolerance the
             * examples state (1e-5). */
            tolerance t = {.abs = tol[i] < 0 ? 1e-5 : tol[i]};
            validate(r, rc.res.outputs[i], c.out[i], &t, what);
        }
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    plumb_ref_result_free(&inputs);
    ir_module_free(m);
}

/* Compile time of an example as shipped (constants, checks and all), on a
 * cleared cache each time; the runtime's compile counter must rise by one
 * per timed compile, proving no timed compile was a cache hit. */
static void wl_compile(const char *file, const bench_config *cfg, bench_result *r)
{
    ir_module *m = load_example(cfg, file, r);
    plumb_runtime *rt = NULL;
    if (!m)
        goto done;
    snprintf(r->size, sizeof r->size, "%s", file);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = cfg->threads;
    o.cache_dir = "";   /* never a disk hit */
    plumb_diag d = {0};
    if (!(rt = plumb_runtime_create(&o, &d))) {
        add_error(r, "runtime: %s", d.msg);
        goto done;
    }
    int reps = cfg->quick ? 3 : 20;
    double t[20];
    for (int i = 0; i < reps; i++) {
        plumb_runtime_cache_clear(rt);
        double t0 = bench_now();
        plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
        t[i] = bench_now() - t0;
        if (!ex) {
            add_error(r, "compile: %s", d.msg);
            goto done;
        }
    }
    plumb_runtime_stats st = {.struct_size = sizeof st};
    plumb_runtime_stats_get(rt, NULL, &st);
    bench_times bt = bench_summarize(t, reps);
    r->value_s = bt.best;
    r->rt_s = bt.best;
    r->rt_median_s = bt.median;
    r->ran = true;
    r->valid = st.compiles == (uint64_t)reps && st.cache_hits == 0;
    if (!r->valid)
        add_error(r, "expected %d compiles and no hits, counted %llu and %llu", reps,
                 (unsigned long long)st.compiles, (unsigned long long)st.cache_hits);
    snprintf(r->tolerance, sizeof r->tolerance, "compile counter = timed compiles");
    snprintf(r->note, sizeof r->note, "compile, best of %d on a cleared cache", reps);
done:
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* The weight: 2^20 f32 (4 MiB) cycling through 0.5, 1, 1.5, 2 — not a
 * splat, as a real weight is not (a splat is keyed by its one element and
 * costs nothing to look up either way). */
#define WEIGHT_N (1 << 20)
static float weight_at(int64_t i) { return 0.5f * (float)(1 + i % 4); }

/* y = x * w with w baked as a constant (written as dense<"0x..."> raw
 * little-endian bytes) or passed as a parameter. */
static ir_module *weight_module(bool baked, bench_result *r)
{
    static const char baked_head[] =
        "func.func @main(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {\n"
        "  %w = stablehlo.constant dense<\"0x";
    static const char baked_tail[] =
        "\"> : tensor<1048576xf32>\n"
        "  %y = stablehlo.multiply %x, %w : tensor<1048576xf32>\n"
        "  return %y : tensor<1048576xf32>\n"
        "}\n";
    static const char param_src[] =
        "func.func @main(%x: tensor<1048576xf32>, %w: tensor<1048576xf32>) -> tensor<1048576xf32> {\n"
        "  %y = stablehlo.multiply %x, %w : tensor<1048576xf32>\n"
        "  return %y : tensor<1048576xf32>\n"
        "}\n";
    char *text = NULL;
    const char *src = param_src;
    size_t len = strlen(param_src);
    if (baked) {
        size_t hh = strlen(baked_head), ht = strlen(baked_tail);
        len = hh + (size_t)WEIGHT_N * 8 + ht;
        if (!(text = malloc(len + 1))) {
            add_error(r, "out of memory writing the baked weight program");
            return NULL;
        }
        memcpy(text, baked_head, hh);
        char *p = text + hh;
        static const char hex[] = "0123456789ABCDEF";
        for (int64_t i = 0; i < WEIGHT_N; i++) {
            float v = weight_at(i);
            unsigned char b[4];
            memcpy(b, &v, 4);   /* little-endian hosts only, as the raw form is */
            for (int k = 0; k < 4; k++) {
                *p++ = hex[b[k] >> 4];
                *p++ = hex[b[k] & 15];
            }
        }
        memcpy(p, baked_tail, ht + 1);
        src = text;
    }
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, len, baked ? "baked.mlir" : "param.mlir", NULL, &d);
    free(text);
    if (!m || !ir_verify(m, NULL, &d)) {
        add_error(r, "%s weight program: %s", baked ? "baked" : "parameter", d.msg);
        ir_module_free(m);
        return NULL;
    }
    return m;
}

/* Median seconds of n cache-hit lookups (plumb_runtime_compile of a module
 * already compiled) into *out; false with r's error set. */
static bool time_lookups(plumb_runtime *rt, const ir_module *m, int n, double *t, bench_result *r, double *out)
{
    plumb_diag d = {0};
    for (int i = 0; i < n; i++) {
        double t0 = bench_now();
        plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
        t[i] = bench_now() - t0;
        if (!ex) {
            add_error(r, "runtime: %s", d.msg);
            return false;
        }
    }
    *out = bench_summarize(t, n).median;
    return true;
}

/* Cache-hit cost with a 4 MiB weight baked as a constant vs the same
 * weight as a parameter (issue 14's trace-once guard: target <= 2x). Each
 * is a median of lookups of a module compiled once, the two interleaved in
 * blocks so drift hits both alike; then the baked lookup once more on a
 * runtime with PLUMB_TRACE_ONCE=0, which re-serializes, hashes and compares
 * the 4 MiB on every hit (what the guard saves). Both programs' results
 * are checked against x * w computed in C (one f32 rounding each). value_s = baked hit, aux_s =
 * parameter hit, note = the ratio and the unguarded figure. */
static void wl_cache_hit_baked(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    snprintf(r->size, sizeof r->size, "4 MiB f32 weight (not a splat)");
    ir_module *mb = weight_module(true, r), *mp = weight_module(false, r);
    plumb_runtime *off = NULL;
    int n = cfg->quick ? 200 : 5000, blocks = 10, per = n / blocks, n_off = cfg->quick ? 10 : 100;
    double *t = calloc((size_t)n, sizeof *t), *tb = calloc((size_t)blocks, sizeof *tb),
           *tp = calloc((size_t)blocks, sizeof *tp);
    plumb_tensor *in[2] = {0}, *out[1] = {0};
    int64_t len = WEIGHT_N;
    if (!mb || !mp || !t || !tb || !tp || !(in[0] = new_tensor(PLUMB_F32, 1, &len, r)) ||
        !(in[1] = new_tensor(PLUMB_F32, 1, &len, r)))
        goto done;
    fill(in[0], 11, -4, 4);
    float *w = in[1]->data;
    for (int64_t i = 0; i < len; i++)
        w[i] = weight_at(i);
    plumb_diag d = {0};
    uint32_t failed = 0;
    for (int k = 0; k < 2; k++) {
        if (!plumb_runtime_run(rt, k ? mp : mb, "main", in, k ? 2 : 1, out, 1, &failed, &d)) {
            add_error(r, "runtime: %s", d.msg);
            goto done;
        }
        const float *x = in[0]->data, *y = out[0]->data;
        int64_t bad = 0;
        for (int64_t i = 0; i < len; i++)   /* one correctly rounded f32 product, as C computes it */
            bad += y[i] != x[i] * weight_at(i);
        plumb_tensor_free(out[0]);
        out[0] = NULL;
        if (bad) {
            add_error(r, "MISMATCH: %lld elements of the %s program differ from x * w", (long long)bad,
                      k ? "parameter" : "baked");
            goto done;
        }
    }
    r->valid = true;
    snprintf(r->tolerance, sizeof r->tolerance, "exact (x * w, one f32 rounding)");
    plumb_runtime_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    plumb_runtime_stats_get(rt, NULL, &before);
    for (int b = 0; b < blocks; b++)
        if (!time_lookups(rt, mb, per, t, r, &tb[b]) || !time_lookups(rt, mp, per, t, r, &tp[b]))
            goto done;
    plumb_runtime_stats_get(rt, NULL, &after);
    if (after.compiles != before.compiles || after.cache_hits - before.cache_hits != (uint64_t)(2 * blocks * per)) {
        r->valid = false;
        add_error(r, "expected %d cache hits and no compile, counted %llu and %llu", 2 * blocks * per,
                  (unsigned long long)(after.cache_hits - before.cache_hits),
                  (unsigned long long)(after.compiles - before.compiles));
    }
    double baked = bench_summarize(tb, blocks).median, param = bench_summarize(tp, blocks).median;
    /* the same lookups without the guard, for the record */
    double unguarded = NAN;
    const char *was = getenv("PLUMB_TRACE_ONCE");
    char *saved = was ? strdup(was) : NULL;
    setenv("PLUMB_TRACE_ONCE", "0", 1);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.cache_dir = "";   /* never a disk hit */
    off = plumb_runtime_create(&o, &d);
    if (saved) {
        setenv("PLUMB_TRACE_ONCE", saved, 1);
        free(saved);
    } else {
        unsetenv("PLUMB_TRACE_ONCE");
    }
    if (off && plumb_runtime_compile(off, mb, "main", &d))
        (void)time_lookups(off, mb, n_off, t, r, &unguarded);
    r->value_s = baked;
    r->aux_s = param;
    r->rt_s = baked;
    r->rt_median_s = baked;
    r->ran = true;
    snprintf(r->note, sizeof r->note,
             "hit ratio baked/parameter %.2fx: baked %.3f us, parameter %.3f us (medians of %d blocks of %d "
             "lookups); baked without the guard (PLUMB_TRACE_ONCE=0) %.1f us",
             baked / param, baked * 1e6, param * 1e6, blocks, per, unguarded * 1e6);
done:
    plumb_runtime_destroy(off);
    free(t);
    free(tb);
    free(tp);
    free_tensors(in, 2);
    ir_module_free(mb);
    ir_module_free(mp);
}

typedef struct hit_ctx {
    plumb_runtime *rt;
    ir_module *m;
    plumb_executable *ex;
    plumb_tensor **in;
    plumb_diag d;
} hit_ctx;

/* Cache-hit overhead: the 100-op program on tensor<4xf32>, timed through
 * plumb_runtime_run (lookup: serialize, hash, confirm; then run) and
 * through plumb_executable_run on the executable the lookup returns, the
 * two interleaved so that drift hits both alike. overhead = median(run
 * through the cache) - median(direct run). */
static void wl_cache_hit(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int ops = 100;
    snprintf(r->size, sizeof r->size, "%d ops on tensor<4xf32>", ops);
    ir_module *m = build_chain100(ops, r);
    plumb_tensor *in[2] = {0};
    int64_t four = 4;
    int n = cfg->quick ? 200 : 5000;
    double *tr = calloc((size_t)n, sizeof *tr), *te = calloc((size_t)n, sizeof *te);
    if (!m || !tr || !te || !(in[0] = new_tensor(PLUMB_F32, 1, &four, r)) ||
        !(in[1] = new_tensor(PLUMB_F32, 1, &four, r)))
        goto done;
    fill(in[0], 8, -1, 1);
    fill(in[1], 9, 0.25, 0.75);
    plumb_diag d = {0};
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res = {0};
    if (!plumb_ref_run(m, "main", in, 2, &o, &res, &d)) {
        add_error(r, "reference: %s", d.msg);
        goto done;
    }
    plumb_tensor *out[1] = {0};
    uint32_t failed;
    if (!plumb_runtime_run(rt, m, "main", in, 2, out, 1, &failed, &d)) {
        add_error(r, "runtime: %s", d.msg);
        plumb_ref_result_free(&res);
        goto done;
    }
    /* 25 tanh steps compound their 2-ULP errors, damped by |y| < 1. */
    r->valid = true;
    validate(r, res.outputs[0], out[0], &(tolerance){.abs = 1e-6, .rel = 1e-5}, "result");
    snprintf(r->tolerance, sizeof r->tolerance, "1e-6 + 1e-5 |ref| (25 compounded tanh steps)");
    plumb_tensor_free(out[0]);
    plumb_ref_result_free(&res);
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
    plumb_runtime_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    plumb_runtime_stats_get(rt, "main", &before);
    for (int i = 0; i < n && ex; i++) {
        double t0 = bench_now();
        bool ok = plumb_runtime_run(rt, m, "main", in, 2, out, 1, &failed, &d);
        tr[i] = bench_now() - t0;
        if (ok)
            plumb_tensor_free(out[0]);
        t0 = bench_now();
        bool ok2 = plumb_executable_run(ex, in, 2, out, 1, &failed, &d);
        te[i] = bench_now() - t0;
        if (ok2)
            plumb_tensor_free(out[0]);
        if (!ok || !ok2) {
            add_error(r, "runtime: %s", d.msg);
            goto done;
        }
    }
    if (!ex) {
        add_error(r, "runtime: %s", d.msg);
        goto done;
    }
    plumb_runtime_stats_get(rt, "main", &after);
    if (after.compiles != before.compiles || after.cache_hits - before.cache_hits != (uint64_t)n) {
        r->valid = false;
        add_error(r, "expected %d cache hits and no compile, counted %llu and %llu", n,
                 (unsigned long long)(after.cache_hits - before.cache_hits),
                 (unsigned long long)(after.compiles - before.compiles));
    }
    bench_times brun = bench_summarize(tr, n), bex = bench_summarize(te, n);
    r->value_s = brun.median - bex.median;
    r->aux_s = bex.median;
    r->rt_s = r->value_s;
    r->rt_median_s = r->value_s;
    r->ran = true;
    snprintf(r->note, sizeof r->note, "hit overhead: median run via cache %.2f us - median direct run %.2f us (%d pairs)",
             brun.median * 1e6, bex.median * 1e6, n);
done:
    free(tr);
    free(te);
    free_tensors(in, 2);
    ir_module_free(m);
}


/* The encoder of issue 13 at every length 1..bound: one polymorphic
 * executable (sequence length `?`, bound 64) against a static compile of
 * each length, all writing into kept result tensors (run_into).
 *   steady: per length, the best of the timed runs of each (interleaved, so
 *     drift hits both alike); ratio = sum of the polymorphic bests / sum of
 *     the static bests, compiles not counted (the static side needs one per
 *     length, counted in the note). Repeated runs at one length reuse the
 *     shapes derived for it (docs/runtime.md, "Polymorphic shapes").
 *   sweep: the polymorphic executable run once per length, 1, 2, ..., bound,
 *     so every run derives new shapes, against the static executables run
 *     once each in the same order (caches as cold for both); best of 20
 *     sweeps each (3 with --quick), interleaved.
 * The table's figure is the steady ratio; the note gives both. Validated:
 * each length's polymorphic result equals the static compile's bit for
 * bit, and the polymorphic program compiled exactly once. */
static void wl_poly_encoder(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    enum { NL = POLY_ENC_BOUND };
    const int64_t step = cfg->quick ? 21 : 1;
    snprintf(r->size, sizeof r->size, "lengths 1..%d%s, D %d, MLP %d", NL, cfg->quick ? " step 21" : "", POLY_ENC_D,
             POLY_ENC_F);
    char *text = poly_encoder_text(-1);
    ir_module *poly = NULL, *sm[NL] = {0};
    plumb_runtime *srt = NULL;
    plumb_executable *sex[NL] = {0};
    plumb_tensor *in[NL][POLY_ENC_PARAMS] = {{0}}, *pa[NL] = {0}, *sb[NL] = {0};
    double pbest[NL], sbest[NL];
    plumb_diag d = {0};
    uint32_t failed = 0;
    if (!text || !(poly = ir_parse(text, strlen(text), "poly_encoder", NULL, &d)) || !verify_module(poly, r, "poly")) {
        if (!r->error[0])
            add_error(r, "polymorphic encoder: %s", d.msg);
        goto done;
    }
    plumb_runtime_options so;
    plumb_runtime_options_init(&so);
    so.threads = cfg->threads;
    if (!(srt = plumb_runtime_create(&so, &d))) {
        add_error(r, "static runtime: %s", d.msg);
        goto done;
    }
    plumb_runtime_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    plumb_runtime_stats_get(rt, NULL, &before);
    plumb_executable *pex = plumb_runtime_compile(rt, poly, "main", &d);
    if (!pex) {
        add_error(r, "runtime compile: %s", d.msg);
        goto done;
    }
    /* every length's static program, inputs and results, made first */
    const int64_t D = POLY_ENC_D, F = POLY_ENC_F, V = POLY_ENC_V;
    uint32_t rank[POLY_ENC_PARAMS] = {1, 2, 1, 1, 2, 2, 2, 2, 2};
    float scale[POLY_ENC_PARAMS] = {0, 1.0f, 1.0f, 0.5f, 0.18f, 0.18f, 0.18f, 0.18f, 0.125f};
    for (int64_t n = 1; n <= NL; n += step) {
        int64_t li = n - 1;
        char *st = poly_encoder_text(n);
        sm[li] = st ? ir_parse(st, strlen(st), "static_encoder", NULL, &d) : NULL;
        free(st);
        if (!sm[li] || !verify_module(sm[li], r, "static")) {
            if (!r->error[0])
                add_error(r, "static encoder at %lld: %s", (long long)n, d.msg);
            goto done;
        }
        if (!(sex[li] = plumb_runtime_compile(srt, sm[li], "main", &d))) {
            add_error(r, "static compile at %lld: %s", (long long)n, d.msg);
            goto done;
        }
        int64_t dims[POLY_ENC_PARAMS][2] = {{n, 0}, {V, D}, {D, 0}, {D, 0}, {D, D}, {D, D}, {D, D}, {D, F}, {F, D}};
        uint32_t s = (uint32_t)n * 2654435761u + 17;
        for (int i = 0; i < POLY_ENC_PARAMS; i++) {
            if (!(in[li][i] = new_tensor(i == 0 ? PLUMB_I32 : PLUMB_F32, rank[i], dims[i], r)))
                goto done;
            size_t ne = (size_t)plumb_tensor_numel(in[li][i]);
            if (i == 0)
                for (size_t k = 0; k < ne; k++)
                    ((int32_t *)in[li][i]->data)[k] = (int32_t)(poly_enc_rand(&s) % (uint32_t)V);
            else
                poly_enc_fill(in[li][i]->data, ne, scale[i], &s);
        }
        int64_t od[2] = {n, D};
        if (!(pa[li] = new_tensor(PLUMB_F32, 2, od, r)) || !(sb[li] = new_tensor(PLUMB_F32, 2, od, r)))
            goto done;
    }
    int reps = cfg->quick ? 3 : (cfg->reps > 20 ? cfg->reps : 20);
    double poly_sum = 0, stat_sum = 0, worst = 0;
    int64_t worst_at = 0, n_len = 0;
    r->valid = true;
    for (int64_t n = 1; n <= NL; n += step) {
        int64_t li = n - 1;
        pbest[li] = sbest[li] = INFINITY;
        for (int k = 0; k < reps + 1; k++) {
            double t0 = bench_now();
            bool ok = plumb_executable_run_into(pex, in[li], POLY_ENC_PARAMS, &pa[li], 1, &failed, &d);
            double t1 = bench_now();
            ok = ok && plumb_executable_run_into(sex[li], in[li], POLY_ENC_PARAMS, &sb[li], 1, &failed, &d);
            double t2 = bench_now();
            if (!ok) {
                add_error(r, "runtime at %lld: %s", (long long)n, d.msg);
                r->valid = false;
                goto done;
            }
            if (k == 0)
                continue;   /* the first run pages the buffers in */
            pbest[li] = t1 - t0 < pbest[li] ? t1 - t0 : pbest[li];
            sbest[li] = t2 - t1 < sbest[li] ? t2 - t1 : sbest[li];
        }
        if (cfg_perturb && n == 1)
            ((float *)pa[li]->data)[0] = ((float *)pa[li]->data)[0] * 1.01f + 0.01f;
        if (memcmp(pa[li]->data, sb[li]->data, pa[li]->nbytes) != 0) {
            r->valid = false;
            if (!strstr(r->error, "MISMATCH"))
                add_error(r, "MISMATCH: the polymorphic result differs from the static compile's at length %lld",
                          (long long)n);
        }
        poly_sum += pbest[li];
        stat_sum += sbest[li];
        if (pbest[li] / sbest[li] > worst) {
            worst = pbest[li] / sbest[li];
            worst_at = n;
        }
        n_len++;
    }
    /* the length changes on every run */
    double sweep = INFINITY, ssweep = INFINITY;
    for (int k = 0; k < (cfg->quick ? 3 : 20); k++) {
        for (int side = 0; side < 2; side++) {
            double t0 = bench_now();
            for (int64_t n = 1; n <= NL; n += step) {
                bool ok = side == 0
                              ? plumb_executable_run_into(pex, in[n - 1], POLY_ENC_PARAMS, &pa[n - 1], 1, &failed, &d)
                              : plumb_executable_run_into(sex[n - 1], in[n - 1], POLY_ENC_PARAMS, &sb[n - 1], 1,
                                                          &failed, &d);
                if (!ok) {
                    add_error(r, "runtime sweep at %lld: %s", (long long)n, d.msg);
                    r->valid = false;
                    goto done;
                }
            }
            double t = bench_now() - t0;
            if (side == 0)
                sweep = t < sweep ? t : sweep;
            else
                ssweep = t < ssweep ? t : ssweep;
        }
    }
    plumb_runtime_stats_get(rt, NULL, &after);
    plumb_runtime_stats sst = {.struct_size = sizeof sst};
    plumb_runtime_stats_get(srt, NULL, &sst);
    if (after.compiles - before.compiles != 1) {
        r->valid = false;
        add_error(r, "the polymorphic encoder compiled %llu times, expected once",
                  (unsigned long long)(after.compiles - before.compiles));
    }
    r->ran = true;
    r->rt_s = poly_sum;
    r->rt_median_s = poly_sum;
    r->aux_s = stat_sum;
    r->value_s = poly_sum / stat_sum;
    snprintf(r->note, sizeof r->note,
             "polymorphic/static %.3f over %lld lengths (%.3g s vs %.3g s), worst length %lld at %.3f; length "
             "changing every run %.3f (%.3g s vs %.3g s); compiles: polymorphic %llu, static %llu",
             r->value_s, (long long)n_len, poly_sum, stat_sum, (long long)worst_at, worst, sweep / ssweep, sweep, ssweep,
             (unsigned long long)(after.compiles - before.compiles), (unsigned long long)sst.compiles);
    snprintf(r->tolerance, sizeof r->tolerance, "bit-identical to the static compile of each length");
done:
    for (int i = 0; i < NL; i++) {
        free_tensors(in[i], POLY_ENC_PARAMS);
        plumb_tensor_free(pa[i]);
        plumb_tensor_free(sb[i]);
        ir_module_free(sm[i]);
    }
    plumb_runtime_destroy(srt);
    ir_module_free(poly);
    free(text);
}

/* ---- indexing: embedding gather and scatter-add rows -------------------------- */

/* A module from StableHLO text (the indexing ops have no nn builder). */
static ir_module *parse_module(const char *src, bench_result *r)
{
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, strlen(src), "bench", NULL, &d);
    if (!m) {
        add_error(r, "parsing the program: %s", d.msg);
        return NULL;
    }
    if (!verify_module(m, r, "the program")) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

/* result[k, :] = table[idx[k], :]: k rows of a row-major table. */
static ir_module *build_gather(int64_t rows, int64_t cols, int64_t k, bench_result *r)
{
    char src[1024];
    snprintf(src, sizeof src,
             "func.func @main(%%t: tensor<%lldx%lldxf32>, %%i: tensor<%lldx1xi32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%g = \"stablehlo.gather\"(%%t, %%i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
             "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %lld>}> "
             ": (tensor<%lldx%lldxf32>, tensor<%lldx1xi32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%g : tensor<%lldx%lldxf32>\n}\n",
             (long long)rows, (long long)cols, (long long)k, (long long)k, (long long)cols, (long long)cols,
             (long long)rows, (long long)cols, (long long)k, (long long)k, (long long)cols, (long long)k,
             (long long)cols);
    return parse_module(src, r);
}

/* table[idx[k], :] += upd[k, :] in update order (a gradient of the lookup). */
static ir_module *build_scatter_add(int64_t rows, int64_t cols, int64_t k, bench_result *r)
{
    char src[1280];
    snprintf(src, sizeof src,
             "func.func @main(%%t: tensor<%lldx%lldxf32>, %%i: tensor<%lldx1xi32>, %%u: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%r = \"stablehlo.scatter\"(%%t, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
             "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
             "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "      %%s = stablehlo.add %%a, %%b : tensor<f32>\n"
             "      stablehlo.return %%s : tensor<f32>\n"
             "    }) : (tensor<%lldx%lldxf32>, tensor<%lldx1xi32>, tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldxf32>\n}\n",
             (long long)rows, (long long)cols, (long long)k, (long long)k, (long long)cols, (long long)rows,
             (long long)cols, (long long)rows, (long long)cols, (long long)k, (long long)k, (long long)cols,
             (long long)rows, (long long)cols, (long long)rows, (long long)cols);
    return parse_module(src, r);
}

static void fill_indices(plumb_tensor *t, uint64_t seed, int64_t rows)
{
    uint64_t s = seed, n = plumb_tensor_numel(t);
    int32_t *p = t->data;
    for (uint64_t i = 0; i < n; i++)
        p[i] = (int32_t)(rng_next(&s) % (uint64_t)rows);
}

/* Embedding lookup: 8192 random rows of 512 f32 from a 50000-row table. The
 * reference gathers the first 1/ref_fraction of the indices (a prefix of
 * the result's rows); the result must be its bits exactly. */
static void wl_gather(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t rows = cfg->quick ? 2000 : 50000, cols = cfg->quick ? 64 : 512, k = cfg->quick ? 256 : 8192;
    int64_t ks = subset_of(k, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lld of %lldx%lld f32", (long long)k, (long long)rows, (long long)cols);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld of %lld indices", (long long)ks, (long long)k);
    r->ref_scale = (double)k / (double)ks;
    r->elems = (double)(k * cols);
    r->bytes = 2.0 * 4.0 * (double)(k * cols) + 4.0 * (double)k;
    snprintf(r->tolerance, sizeof r->tolerance, "exact (bits)");
    ir_module *m = build_gather(rows, cols, k, r), *ms = build_gather(rows, cols, ks, r);
    plumb_tensor *in[2] = {0}, *ins[2] = {0};
    int64_t td[2] = {rows, cols}, id[2] = {k, 1};
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 2, td, r)) || !(in[1] = new_tensor(PLUMB_I32, 2, id, r)))
        goto done;
    fill(in[0], 11, -2, 2);
    fill_indices(in[1], 12, rows);
    if (!(ins[0] = plumb_tensor_clone(in[0], NULL)) || !(ins[1] = prefix_rows(in[1], ks, r)))
        goto done;
    ref_ctx rc;
    rt_ctx c;
    if (!run_ref(&rc, ms, ins, 2, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 2, r)) {
        r->valid = true;
        validate(r, rc.res.outputs[0], c.out[0], &(tolerance){0}, "gathered rows");
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free_tensors(in, 2);
    free_tensors(ins, 2);
    ir_module_free(m);
    ir_module_free(ms);
}

/* Scatter-add of 8192 update rows of 512 f32 into an 8192-row table, indices
 * with repeats (a lookup's gradient). The reference runs the first
 * 1/ref_fraction of the updates; the runtime runs that program too and must
 * give its bits (f32 adds per target in update order), and the full
 * program is timed. Bytes: the table in and out, the updates in. */
static void wl_scatter_add(const bench_config *cfg, plumb_runtime *rt, bench_result *r)
{
    int64_t rows = cfg->quick ? 512 : 8192, cols = cfg->quick ? 64 : 512, k = cfg->quick ? 256 : 8192;
    int64_t ks = subset_of(k, cfg->ref_fraction);
    snprintf(r->size, sizeof r->size, "%lld rows of %lld into %lld f32", (long long)k, (long long)cols,
             (long long)rows);
    snprintf(r->ref_subset, sizeof r->ref_subset, "first %lld of %lld updates", (long long)ks, (long long)k);
    r->ref_scale = (double)k / (double)ks;
    r->elems = (double)(k * cols);
    r->bytes = 2.0 * 4.0 * (double)(rows * cols) + 4.0 * (double)(k * cols) + 4.0 * (double)k;
    snprintf(r->tolerance, sizeof r->tolerance, "exact (bits): the subset program on both");
    ir_module *m = build_scatter_add(rows, cols, k, r), *ms = build_scatter_add(rows, cols, ks, r);
    plumb_tensor *in[3] = {0}, *ins[3] = {0};
    int64_t td[2] = {rows, cols}, id[2] = {k, 1}, ud[2] = {k, cols};
    if (!m || !ms || !(in[0] = new_tensor(PLUMB_F32, 2, td, r)) || !(in[1] = new_tensor(PLUMB_I32, 2, id, r)) ||
        !(in[2] = new_tensor(PLUMB_F32, 2, ud, r)))
        goto done;
    fill(in[0], 13, -1, 1);
    /* indices over a quarter of the rows: every target sees several updates */
    fill_indices(in[1], 14, rows / 4 > 0 ? rows / 4 : 1);
    fill(in[2], 15, -1, 1);
    if (!(ins[0] = plumb_tensor_clone(in[0], NULL)) || !(ins[1] = prefix_rows(in[1], ks, r)) ||
        !(ins[2] = prefix_rows(in[2], ks, r)))
        goto done;
    ref_ctx rc;
    rt_ctx c, cs;
    if (!run_ref(&rc, ms, ins, 3, cfg, r))
        goto done;
    if (rt_prepare(&c, rt, m, in, 3, r)) {
        r->valid = true;
        if (rt_prepare(&cs, rt, ms, ins, 3, r)) {
            if (cfg_perturb) /* the subset is what is validated: corrupt it too */
                *(float *)cs.out[0]->data = *(float *)cs.out[0]->data * 1.01f + 0.01f;
            validate(r, rc.res.outputs[0], cs.out[0], &(tolerance){0}, "subset scatter-add");
            rt_release(&cs);
        } else {
            r->valid = false;
        }
        run_rt(&c, cfg, r);
        rt_release(&c);
    }
    plumb_ref_result_free(&rc.res);
done:
    free_tensors(in, 3);
    free_tensors(ins, 3);
    ir_module_free(m);
    ir_module_free(ms);
}

const char *const bench_workloads[] = {
    "chain", "softmax", "layer_norm", "sum", "dot_f32", "dot_bf16", "mlp_train_step", "attention_block",
    "compile_mlp_train_step", "compile_attention_block", "compile_moe_layer", "cache_hit_100", "cache_hit_baked", "poly_encoder",
    "gather_rows", "scatter_add_rows", "conv3x3_f32", "ew_f8E4M3FN", "ew_bf16", "dot_f8E4M3FN",
};
const unsigned bench_n_workloads = sizeof bench_workloads / sizeof *bench_workloads;

bool bench_run_workload(const char *name, const bench_config *cfg, plumb_runtime *rt,
                        plumb_runtime *rt1, bench_result *r)
{
    r->worst = 0;
    r->ref_scale = 1;
    cfg_perturb = cfg->perturb;
    if (strcmp(name, "chain") == 0) {
        r->kind = BENCH_MEMORY;
        wl_chain(cfg, rt, rt1, r);
    } else if (strcmp(name, "softmax") == 0) {
        r->kind = BENCH_MEMORY;
        wl_rows(ROW_SOFTMAX, cfg, rt, r);
    } else if (strcmp(name, "layer_norm") == 0) {
        r->kind = BENCH_MEMORY;
        wl_rows(ROW_LAYER_NORM, cfg, rt, r);
    } else if (strcmp(name, "sum") == 0) {
        r->kind = BENCH_MEMORY;
        wl_sum(cfg, rt, r);
    } else if (strcmp(name, "dot_f32") == 0) {
        r->kind = BENCH_GEMM;
        wl_dot(PLUMB_F32, cfg, rt, r);
    } else if (strcmp(name, "dot_bf16") == 0) {
        r->kind = BENCH_GEMM;
        wl_dot(PLUMB_BF16, cfg, rt, r);
    } else if (strcmp(name, "ew_f8E4M3FN") == 0 || strcmp(name, "ew_bf16") == 0) {
        r->kind = BENCH_MEMORY;
        wl_ew2(name[3] == 'f' ? PLUMB_F8E4M3FN : PLUMB_BF16, cfg, rt, r);
    } else if (strcmp(name, "dot_f8E4M3FN") == 0) {
        r->kind = BENCH_GEMM;
        wl_dot_fp8(cfg, rt, r);
    } else if (strcmp(name, "conv3x3_f32") == 0) {
        r->kind = BENCH_GEMM;
        wl_conv(cfg, rt, r);
    } else if (strcmp(name, "mlp_train_step") == 0 || strcmp(name, "attention_block") == 0) {
        char file[64];
        snprintf(file, sizeof file, "%s.mlir", name);
        r->kind = BENCH_PROGRAM;
        wl_example(file, cfg, rt, r);
    } else if (strncmp(name, "compile_", 8) == 0) {
        char file[64];
        snprintf(file, sizeof file, "%s.mlir", name + 8);
        r->kind = BENCH_COMPILE;
        bool known = false;
        for (unsigned i = 0; i < bench_n_workloads; i++)
            known |= strcmp(bench_workloads[i], name) == 0;
        if (!known)
            return false;
        wl_compile(file, cfg, r);
    } else if (strcmp(name, "cache_hit_100") == 0) {
        r->kind = BENCH_OVERHEAD;
        wl_cache_hit(cfg, rt, r);
    } else if (strcmp(name, "cache_hit_baked") == 0) {
        r->kind = BENCH_OVERHEAD;
        wl_cache_hit_baked(cfg, rt, r);
    } else if (strcmp(name, "gather_rows") == 0) {
        r->kind = BENCH_MEMORY;
        wl_gather(cfg, rt, r);
    } else if (strcmp(name, "scatter_add_rows") == 0) {
        r->kind = BENCH_MEMORY;
        wl_scatter_add(cfg, rt, r);
    } else if (strcmp(name, "poly_encoder") == 0) {
        r->kind = BENCH_POLY;
        wl_poly_encoder(cfg, rt, r);
    } else {
        return false;
    }
    return true;
}
