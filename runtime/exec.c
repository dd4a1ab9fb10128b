/* The execution context kernels see (errors, ISA, scratch, region
 * evaluation, checks) and the persistent thread pool.
 *
 * Determinism: rt_parallel_for splits [0, n) into chunks whose boundaries
 * depend only on n and grain — not on the number of threads, not on timing.
 * Threads take chunks in any order, but a kernel that reduces per chunk and
 * combines the chunk results in chunk order gets the same bits on 1 thread
 * as on 8, run after run. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/complex.h"
#include "plumb/lowp.h"
#include "plumb/shape.h"
#include "rt_lowp.h"
#include "rt_complex.h"
#include "rt_math.h"
#include "rt_pipeline.h"

/* Upper bound on chunks per parallel loop: enough to balance a few cores
 * with uneven chunks, few enough that per-chunk partial results stay small. */
#define RT_MAX_CHUNKS 64u

/* Work units (about one element read or written, or one op or region
 * evaluation entered) between two readings of the clock inside regions:
 * the count is the run's, so a region nested in a region cannot do
 * unbounded work between two checks. */
#define RT_POLL_UNITS ((uint64_t)1 << 16)

static const rt_kernel_fn rt_kernels[PLUMB_OP_COUNT] = {
#define OP(e, ...) [PLUMB_OP_##e] = rt_op_##e,
#include "../ir/ops.def"
#undef OP
};

/* ---- thread pool ------------------------------------------------------------ */

struct rt_pool {
    uint32_t threads;           /* including the caller */
    pthread_t *tids;
    uint32_t n_workers;         /* started */
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    pthread_mutex_t submit;     /* one loop at a time per pool */
    uint64_t gen;               /* bumped per job */
    bool stop;
    /* the current job */
    rt_range_fn fn;
    void *ctx;
    rt_exec *x;                 /* whose deadline the chunks check, or NULL */
    uint64_t n, chunk_len;
    uint32_t chunks;
    atomic_uint next;           /* next chunk to take */
    uint32_t active;            /* workers still in the job */
};

/* Set in workers, and in a caller while it runs a loop: a parallel loop
 * started from inside a chunk runs inline (same chunk boundaries). */
static _Thread_local bool rt_in_loop;

static void take_chunks(rt_pool *p)
{
    for (;;) {
        uint32_t c = atomic_fetch_add(&p->next, 1u);
        if (c >= p->chunks)
            break;
        /* Past the deadline the remaining chunks are skipped: the step
         * fails with the timeout as soon as the loop returns. */
        if (p->x && rt_deadline_passed(p->x))
            continue;
        uint64_t b = (uint64_t)c * p->chunk_len;
        uint64_t e = b + p->chunk_len < p->n ? b + p->chunk_len : p->n;
        p->fn(p->ctx, b, e, c);
    }
}

static void *worker(void *arg)
{
    rt_pool *p = arg;
    rt_in_loop = true;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen)
            pthread_cond_wait(&p->cv_work, &p->mu);
        if (p->stop)
            break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        take_chunks(p);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0)
            pthread_cond_signal(&p->cv_done);
    }
    pthread_mutex_unlock(&p->mu);
    rt_math_thread_done();
    return NULL;
}

rt_pool *rt_pool_new(uint32_t threads, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    if (threads == 0)
        threads = 1;
    rt_pool *p = plumb_calloc(1, sizeof *p);
    if (!p) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory creating the thread pool");
        return NULL;
    }
    p->threads = threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->submit, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    atomic_init(&p->next, 0u);
    if (threads > 1) {
        p->tids = plumb_calloc(threads - 1, sizeof *p->tids);
        if (!p->tids) {
            rt_pool_free(p);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory creating the thread pool");
            return NULL;
        }
        for (uint32_t i = 0; i + 1 < threads; i++) {
            if (pthread_create(&p->tids[i], NULL, worker, p) != 0) {
                rt_pool_free(p);
                plumb_diag_set(d, PLUMB_ERR_RUNTIME, none,
                               "could not start worker thread %u of %u", i + 1, threads - 1);
                return NULL;
            }
            p->n_workers++;
        }
    }
    return p;
}

void rt_pool_free(rt_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->n_workers; i++)
        pthread_join(p->tids[i], NULL);
    if (p->tids)
        plumb_free(p->tids, (size_t)(p->threads - 1) * sizeof *p->tids);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->submit);
    pthread_cond_destroy(&p->cv_work);
    pthread_cond_destroy(&p->cv_done);
    plumb_free(p, sizeof *p);
}

uint32_t rt_pool_threads(const rt_pool *p) { return p ? p->threads : 1; }

/* Chunk length for (n, grain): a function of n and grain only. */
static uint64_t chunk_len(uint64_t n, uint64_t grain)
{
    if (grain == 0)
        grain = 1;
    uint64_t chunks = n / grain + (n % grain != 0);
    if (chunks > RT_MAX_CHUNKS)
        chunks = RT_MAX_CHUNKS;
    if (chunks == 0)
        chunks = 1;
    return n / chunks + (n % chunks != 0);
}

uint32_t rt_parallel_chunks(const rt_exec *x, uint64_t n, uint64_t grain)
{
    (void)x;
    if (n == 0)
        return 0;
    uint64_t len = chunk_len(n, grain);
    return (uint32_t)(n / len + (n % len != 0));
}

void rt_parallel_for(rt_exec *x, uint64_t n, uint64_t grain, rt_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    uint64_t len = chunk_len(n, grain);
    uint32_t chunks = (uint32_t)(n / len + (n % len != 0));
    rt_pool *p = x ? x->pool : NULL;
    if (!p || p->n_workers == 0 || chunks == 1 || rt_in_loop) {
        for (uint32_t c = 0; c < chunks; c++) {
            if (x && rt_deadline_passed(x))
                return;   /* the step fails with the timeout */
            uint64_t b = (uint64_t)c * len;
            fn(ctx, b, b + len < n ? b + len : n, c);
        }
        return;
    }
    pthread_mutex_lock(&p->submit);
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->x = x;
    p->n = n;
    p->chunk_len = len;
    p->chunks = chunks;
    atomic_store(&p->next, 0u);
    p->active = p->n_workers;
    p->gen++;
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    rt_in_loop = true;
    take_chunks(p);
    rt_in_loop = false;
    pthread_mutex_lock(&p->mu);
    while (p->active > 0)
        pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->submit);
}

/* ---- execution context ---------------------------------------------------------- */

bool rt_exec_init(rt_exec *x, rt_pool *pool, plumb_isa isa, const ir_module *m, uint64_t max_bytes,
                  plumb_diag *d)
{
    memset(x, 0, sizeof *x);
    x->pool = pool;
    x->isa = isa == PLUMB_ISA_AUTO ? rt_cpu_best_isa() : isa;
    x->m = m;
    x->max_bytes = max_bytes;
    x->n_env = m->next_value_id ? m->next_value_id : 1;
    x->env = plumb_calloc(x->n_env, sizeof *x->env);
    if (!x->env) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0},
                       "out of memory preparing the execution context (%u values)", x->n_env);
        return false;
    }
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&x->region_mu, &at);
    pthread_mutexattr_destroy(&at);
    x->region_mu_init = true;
    atomic_init(&x->timed_out, false);
    return true;
}

void rt_exec_start_run(rt_exec *x, double timeout_s)
{
    atomic_store(&x->timed_out, false);
    x->work_left = RT_POLL_UNITS;
    /* Past 1e9 s no run can end in time: no deadline (and no overflow),
     * as in the reference. */
    x->has_deadline = timeout_s > 0 && timeout_s < 1e9;
    x->timeout_s = x->has_deadline ? timeout_s : 0;
    if (!x->has_deadline)
        return;
    clock_gettime(CLOCK_MONOTONIC, &x->deadline);
    time_t whole = (time_t)timeout_s;
    x->deadline.tv_sec += whole;
    x->deadline.tv_nsec += (long)((timeout_s - (double)whole) * 1e9);
    if (x->deadline.tv_nsec >= 1000000000L) {
        x->deadline.tv_sec++;
        x->deadline.tv_nsec -= 1000000000L;
    }
}

bool rt_deadline_passed(rt_exec *x)
{
    if (!x->has_deadline)
        return false;
    if (atomic_load_explicit(&x->timed_out, memory_order_relaxed))
        return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bool past = now.tv_sec != x->deadline.tv_sec ? now.tv_sec > x->deadline.tv_sec
                                                 : now.tv_nsec >= x->deadline.tv_nsec;
    if (past)
        atomic_store(&x->timed_out, true);
    return past;
}

void rt_exec_fini(rt_exec *x)
{
    for (uint32_t i = 0; x->env && i < x->n_env; i++)
        plumb_tensor_free(x->env[i]);
    if (x->env)
        plumb_free(x->env, (size_t)x->n_env * sizeof *x->env);
    for (uint32_t i = 0; i < x->n_scratch; i++)
        plumb_free(x->scratch[i].raw, x->scratch[i].cap + 64);
    if (x->scratch)
        plumb_free(x->scratch, (size_t)x->cap_scratch * sizeof *x->scratch);
    if (x->region_mu_init)
        pthread_mutex_destroy(&x->region_mu);
    memset(x, 0, sizeof *x);
}

static bool vfail(rt_exec *x, const ir_op *op, plumb_code code, const char *fmt, va_list ap)
{
    if (!x->d || x->d->code != PLUMB_OK)
        return false;   /* keep the root cause */
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    x->d->file = x->m ? x->m->filename : NULL;
    if (op) {
        char origin[700];   /* the front end's `loc(...)`, if any */
        ir_debug_loc_describe(origin, sizeof origin, &op->dloc);
        plumb_diag_set(x->d, code, op->loc, "%s: %s%s", plumb_op_name(op->code), msg, origin);
    } else
        plumb_diag_set(x->d, code, (plumb_loc){0, 0}, "%s", msg);
    return false;
}

bool rt_fail(rt_exec *x, const ir_op *op, plumb_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(x, op, code, fmt, ap);
    va_end(ap);
    return false;
}

bool rt_check_deadline(rt_exec *x, const ir_op *op)
{
    if (!rt_deadline_passed(x))
        return true;
    if (x->loop && x->loop != op)
        return rt_fail(x, op, PLUMB_ERR_RUNTIME,
                       "timeout: the run exceeded its limit of %g s while executing this op, in iteration %llu of "
                       "the stablehlo.while at line %u",
                       x->timeout_s, (unsigned long long)x->loop_iter + 1, x->loop->loc.line);
    if (x->loop)
        return rt_fail(x, op, PLUMB_ERR_RUNTIME,
                       "timeout: the run exceeded its limit of %g s after %llu iterations of this loop", x->timeout_s,
                       (unsigned long long)x->loop_iter);
    return rt_fail(x, op, PLUMB_ERR_RUNTIME, "timeout: the run exceeded its limit of %g s while executing this op",
                   x->timeout_s);
}

plumb_isa rt_isa(const rt_exec *x) { return x->isa; }
FILE *rt_check_log(const rt_exec *x) { return x->check_log ? x->check_log : stderr; }
const ir_module *rt_module(const rt_exec *x) { return x->m; }

void rt_count_check(rt_exec *x, bool passed)
{
    x->checks_run++;
    if (!passed)
        x->checks_failed++;
}

/* Scratch is a stack over blocks kept for the executable's life: a request
 * is taken from the current block or a later one, so everything handed out
 * after a mark lies at or after it and rt_eval_region can give back what a
 * body evaluation took (a region nested in a region would otherwise take
 * fresh scratch per evaluation until the step ends). After the first run
 * every request fits an existing block. When a step needed more than one
 * block, the next reset merges them into one block of the combined size, so
 * the set converges to a single block. All blocks together stay within
 * max_bytes: the limit bounds the step's workspace, not only each request. */
void *rt_scratch(rt_exec *x, const ir_op *op, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (bytes > x->max_bytes || bytes > SIZE_MAX - 128) {
        rt_fail(x, op, PLUMB_ERR_LIMIT, "needs %zu bytes of scratch memory, over the limit of %llu bytes",
                bytes, (unsigned long long)x->max_bytes);
        return NULL;
    }
    size_t need = (bytes + 63) & ~(size_t)63;
    for (uint32_t i = x->cur_scratch; i < x->n_scratch; i++) {
        rt_scratch_block *b = &x->scratch[i];
        if (b->cap - b->used >= need) {
            void *r = b->base + b->used;
            b->used += need;
            x->cur_scratch = i;
            return r;
        }
    }
    size_t cap = need < ((size_t)1 << 16) ? ((size_t)1 << 16) : need;
    if (x->scratch_total + cap > x->max_bytes)
        cap = need;   /* the minimum block, rather than a limit error */
    if (x->scratch_total > x->max_bytes || cap > x->max_bytes - x->scratch_total) {
        rt_fail(x, op, PLUMB_ERR_LIMIT,
                "needs %zu more bytes of scratch memory while the step holds %zu; together over the limit of "
                "%llu bytes", bytes, x->scratch_total, (unsigned long long)x->max_bytes);
        return NULL;
    }
    if (x->n_scratch == x->cap_scratch) {
        uint32_t ncap = x->cap_scratch ? x->cap_scratch * 2 : 4;
        rt_scratch_block *nb = plumb_realloc(x->scratch, (size_t)x->cap_scratch * sizeof *nb,
                                             (size_t)ncap * sizeof *nb);
        if (!nb) {
            rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory growing the scratch list");
            return NULL;
        }
        x->scratch = nb;
        x->cap_scratch = ncap;
    }
    void *raw = plumb_malloc(cap + 64);
    if (!raw) {
        rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory allocating %zu bytes of scratch memory", bytes);
        return NULL;
    }
    x->cur_scratch = x->n_scratch;
    rt_scratch_block *b = &x->scratch[x->n_scratch++];
    b->raw = raw;
    b->base = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    b->cap = cap;
    b->used = need;
    x->scratch_total += cap;
    return b->base;
}

/* A point in the scratch stack to come back to. */
typedef struct scratch_mark {
    uint32_t block;
    size_t used;
} scratch_mark;

static scratch_mark scratch_get_mark(const rt_exec *x)
{
    scratch_mark mk = {x->cur_scratch, x->n_scratch ? x->scratch[x->cur_scratch].used : 0};
    return mk;
}

/* Gives back everything handed out since mk (blocks are kept). */
static void scratch_release(rt_exec *x, scratch_mark mk)
{
    if (x->n_scratch == 0)
        return;
    for (uint32_t i = mk.block + 1; i < x->n_scratch; i++)
        x->scratch[i].used = 0;
    x->cur_scratch = mk.block;
    x->scratch[mk.block].used = mk.used;
}

void rt_scratch_reset(rt_exec *x)
{
    if (x->n_scratch > 1) {
        size_t total = 0;
        for (uint32_t i = 0; i < x->n_scratch; i++) {
            total += x->scratch[i].cap;
            plumb_free(x->scratch[i].raw, x->scratch[i].cap + 64);
        }
        x->n_scratch = 0;
        x->scratch_total = 0;
        void *raw = plumb_malloc(total + 64);
        if (raw) {   /* on failure the next request allocates again */
            rt_scratch_block *b = &x->scratch[x->n_scratch++];
            b->raw = raw;
            b->base = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
            b->cap = total;
            x->scratch_total = total;
        }
    }
    for (uint32_t i = 0; i < x->n_scratch; i++)
        x->scratch[i].used = 0;
    x->cur_scratch = 0;
}

bool rt_run_kernel(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if ((unsigned)op->code >= PLUMB_OP_COUNT)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "unknown opcode %u", (unsigned)op->code);
    /* complex arithmetic has its own kernels (runtime/k_complex.c) */
    bool ok = ir_complex_kernel(op)     ? rt_complex_run(x, op, in, out)
            : ir_lowp_elementwise(op)   ? rt_lowp_run(x, op, in, out)   /* runtime/k_lowp.c */
            : rt_kernels[op->code](x, op, in, out);
    if (!ok && x->d && x->d->code == PLUMB_OK)
        rt_fail(x, op, PLUMB_ERR_RUNTIME, "the kernel failed without saying why");
    return ok;
}

/* ---- regions ---------------------------------------------------------------------- */

static plumb_tensor *region_value(rt_exec *x, const ir_value *v)
{
    plumb_tensor *t = v->id < x->n_env ? x->env[v->id] : NULL;
    if (t || !x->outer || v->id >= x->n_outer)
        return t;
    /* a value of the function body that a while's region captures */
    const ir_block *b = v->def ? v->def->parent : v->owner;
    return b && !b->parent ? &x->outer[v->id] : NULL;
}

const plumb_tensor *rt_region_value(rt_exec *x, const ir_value *v) { return region_value(x, v); }

/* Charges units of region work; every RT_POLL_UNITS units the clock is
 * read. Under region_mu. */
static bool region_work(rt_exec *x, const ir_op *op, uint64_t units)
{
    if (units < x->work_left) {
        x->work_left -= units;
        return !atomic_load_explicit(&x->timed_out, memory_order_relaxed) || rt_check_deadline(x, op);
    }
    x->work_left = RT_POLL_UNITS;
    return rt_check_deadline(x, op);
}

/* An if/case inside a region whose branch taken returns a value with a `?`
 * of its own: its results' sizes are known only once that branch has run
 * (runtime/plan.c run_branch_first does the same for the function body).
 * *taken false: not such an op, nothing done (the shape rule decides).
 * Otherwise the branch runs now, each returned value is checked against
 * the declared result (ir_shape_check_result, as the reference does) and a
 * copy of it becomes the result's tensor in the environment. */
static bool region_branch(rt_exec *x, const ir_op *op, const plumb_tensor *sel, bool *taken)
{
    *taken = false;
    if ((op->code != PLUMB_OP_IF && op->code != PLUMB_OP_CASE) || !sel->data || plumb_tensor_numel(sel) != 1)
        return true;
    uint32_t r = ir_branch_select(op, sel->data);
    const ir_op *ret = r < op->n_regions ? op->regions[r].last : NULL;
    if (!ret || ret->n_operands != op->n_results)
        return true;
    bool dyn = false;
    for (uint32_t j = 0; j < ret->n_operands; j++)
        dyn |= !ir_type_is_static(&ret->operands[j]->type);
    if (!dyn)
        return true;
    *taken = true;
    if (!rt_eval_region(x, &op->regions[r], NULL, NULL))
        return false;
    for (uint32_t j = 0; j < op->n_results; j++) {
        const plumb_tensor *t = region_value(x, ret->operands[j]);
        const ir_value *v = op->results[j];
        plumb_diag sd = {.code = PLUMB_OK};
        if (!t || v->id >= x->n_env)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "branch %u's value %u has no tensor", r, j);
        plumb_tensor *c = NULL;
        if (!ir_shape_check_result(op, j, t, &sd) || !(c = plumb_tensor_clone(t, &sd))) {
            if (x->d && x->d->code == PLUMB_OK) {
                *x->d = sd;
                x->d->file = x->m ? x->m->filename : NULL;
            }
            return false;
        }
        plumb_tensor_free(x->env[v->id]);
        x->env[v->id] = c;
    }
    return true;
}

/* Runs the ops of a region like the reference does: values defined in the
 * region keep their tensors between evaluations (a body runs once per
 * element; allocating each time would dominate). Serialized by a recursive
 * lock because the environment is shared; kernels that need speed recognise
 * common bodies and never get here.
 *
 * Limits hold inside: the scratch the body's kernels take is given back
 * when the evaluation ends, and each evaluation and each op in it (for the
 * elements it reads and writes) is charged to the run's work counter, so
 * the deadline is seen however deeply regions nest. */
bool rt_eval_region(rt_exec *x, const ir_block *region, plumb_tensor *const *args,
                    plumb_tensor *const *results)
{
    pthread_mutex_lock(&x->region_mu);
    /* on the stack up to 8 arguments, on the heap beyond (a while carrying
     * a dozen values) */
    plumb_tensor *saved_small[8], **saved_args = saved_small;
    uint32_t n_saved = region->n_args;
    bool ok = true;
    if (n_saved > 8 && !(saved_args = plumb_calloc(n_saved, sizeof *saved_args))) {
        n_saved = 0;
        ok = rt_fail(x, region->parent, PLUMB_ERR_NOMEM, "out of memory for %u region arguments", region->n_args);
        goto out;
    }
    for (uint32_t i = 0; i < region->n_args; i++) {
        if (region->args[i]->id >= x->n_env) {
            ok = rt_fail(x, region->parent, PLUMB_ERR_INVALID, "region argument %u has no slot", i);
            goto out;
        }
    }
    if (!(ok = region_work(x, region->parent, 1)))
        goto out;
    /* A nested evaluation of the same region (a reduce inside a reduce body)
     * must not clobber the outer arguments. */
    for (uint32_t i = 0; i < n_saved; i++)
        saved_args[i] = x->env[region->args[i]->id];
    for (uint32_t i = 0; i < region->n_args; i++)
        x->env[region->args[i]->id] = (plumb_tensor *)args[i];
    /* The body's kernels finish with their scratch before the next op. */
    scratch_mark mk = scratch_get_mark(x);
    const ir_op *op = region->first;
    for (; ok && op; op = op->next) {
        if (op->code == PLUMB_OP_RETURN || op->code == PLUMB_OP_FUNC_RETURN)
            break;
        plumb_tensor *io_small[16], **in_small = io_small, **out_small;
        if (op->n_operands + op->n_results > 16 &&
            !(in_small = plumb_calloc(op->n_operands + op->n_results, sizeof *in_small))) {
            ok = rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u operands and %u results", op->n_operands,
                         op->n_results);
            break;
        }
        out_small = in_small + op->n_operands;
        for (uint32_t i = 0; i < op->n_operands; i++) {
            if (!(in_small[i] = region_value(x, op->operands[i]))) {
                ok = rt_fail(x, op, PLUMB_ERR_INVALID, "operand %u has no value inside the region", i);
                break;
            }
        }
        bool taken = false;
        if (ok && op->n_operands)
            ok = region_branch(x, op, in_small[0], &taken);
        /* A result with a `?` (a loop or branch over a polymorphic batch)
         * gets its size from the op's run-time shape rule on the operands
         * at hand, each evaluation: the body's values may differ in size
         * from one evaluation to the next (another caller's operands), so
         * a kept tensor of other dims is replaced. Static results skip
         * this, as before. */
        ir_type dyn_small[8], *dyn_types = NULL;
        for (uint32_t i = 0; ok && !taken && i < op->n_results && !dyn_types; i++)
            if (!ir_type_is_static(&op->results[i]->type)) {
                plumb_diag sd = {.code = PLUMB_OK};
                dyn_types = op->n_results <= 8 ? dyn_small : plumb_calloc(op->n_results, sizeof *dyn_types);
                if (!dyn_types)
                    ok = rt_fail(x, op, PLUMB_ERR_NOMEM, "out of memory for %u result shapes", op->n_results);
                else if (!ir_shape_infer(op, (const plumb_tensor *const *)in_small, dyn_types, x->max_bytes, &sd)) {
                    ok = false;   /* sd names the op already */
                    if (x->d && x->d->code == PLUMB_OK) {
                        *x->d = sd;
                        x->d->file = x->m ? x->m->filename : NULL;
                    }
                }
            }
        for (uint32_t i = 0; ok && !taken && i < op->n_results; i++) {
            const ir_value *v = op->results[i];
            plumb_tensor *t = region_value(x, v);
            const ir_type *want = dyn_types ? &dyn_types[i] : &v->type;
            if (t && dyn_types && v->id < x->n_env && x->env[v->id] == t &&
                (t->rank != want->rank || memcmp(t->dims, want->dims, want->rank * sizeof want->dims[0]))) {
                plumb_tensor_free(t);
                x->env[v->id] = t = NULL;
            }
            if (!t) {
                plumb_diag sd = {.code = PLUMB_OK};
                t = plumb_tensor_new(want->dtype, want->rank, want->dims, x->max_bytes, &sd);
                if (!t) {
                    ok = rt_fail(x, op, sd.code ? sd.code : PLUMB_ERR_NOMEM, "%s", sd.msg);
                    break;
                }
                x->env[v->id] = t;
            }
            out_small[i] = t;
        }
        if (ok && !taken) {
            uint64_t units = 1;
            for (uint32_t i = 0; i < op->n_operands; i++)
                units += plumb_tensor_numel(in_small[i]);
            for (uint32_t i = 0; i < op->n_results; i++)
                units += plumb_tensor_numel(out_small[i]);
            ok = region_work(x, op, units);
        }
        if (ok && !taken) {
            ok = rt_run_kernel(x, op, in_small, out_small);
            /* a kernel whose chunks were skipped at the deadline
             * returns without an error of its own */
            if (ok && atomic_load_explicit(&x->timed_out, memory_order_relaxed))
                ok = rt_check_deadline(x, op);
        }
        scratch_release(x, mk);
        if (dyn_types && dyn_types != dyn_small)
            plumb_free(dyn_types, op->n_results * sizeof *dyn_types);
        if (in_small != io_small)
            free(in_small);
    }
    if (ok && !op)
        ok = rt_fail(x, region->parent, PLUMB_ERR_INVALID, "region has no return");
    for (uint32_t i = 0; ok && results && i < op->n_operands; i++) {
        const plumb_tensor *src = region_value(x, op->operands[i]);
        /* the shape too, not only the size (ref_eval_region's rule) */
        if (!src || src->nbytes != results[i]->nbytes || src->dtype != results[i]->dtype ||
            src->rank != results[i]->rank ||
            (src->rank && memcmp(src->dims, results[i]->dims, src->rank * sizeof src->dims[0]))) {
            ok = rt_fail(x, op, PLUMB_ERR_INVALID, "returned value %u does not match the type its caller expects", i);
            break;
        }
        if (src->nbytes)
            memcpy(results[i]->data, src->data, src->nbytes);
    }
    for (uint32_t i = 0; i < region->n_args; i++)
        x->env[region->args[i]->id] = i < n_saved ? saved_args[i] : NULL;
out:
    if (saved_args != saved_small)
        free(saved_args);
    pthread_mutex_unlock(&x->region_mu);
    return ok;
}
