/* Exhaustive sweeps of a unary float op over every input of its type (2^16
 * for f16/bf16, 2^32 for f32, 2^8 or fewer for the FP8/FP6/FP4 formats), in
 * fixed-size chunks so that the backend compiles one program for the whole
 * sweep (docs/conformance.md). */
#include <dlfcn.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "certify.h"
#include "conf.h"
#include "plumb/backend.h"
#include "plumb/checkcmp.h"
#include "plumb/fp8.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

/* ---- one backend instance per worker thread ------------------------------------ */

typedef struct xbackend {
    int kind;                         /* 0 ref, 1 runtime, 2 plugin */
    ir_module *m;                     /* the chunk program (ref) */
    plumb_runtime *rt;
    plumb_executable *ex;
    const plumb_backend_api *api;
    plumb_backend *inst;
    plumb_backend_executable *bex;
} xbackend;

static bool api_err(plumb_backend_error *e, const plumb_backend_api *api, const char *step, plumb_diag *d)
{
    if (!e) return true;
    plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "backend %s failed: %s", step,
                   e->message ? e->message : "(no message)");
    if (api->error_free) api->error_free(e);
    return false;
}

static bool xb_open(xbackend *b, const conf_exhaustive_opts *o, void *dl, const char *prog, plumb_diag *d)
{
    memset(b, 0, sizeof *b);
    b->m = ir_parse(prog, strlen(prog), "exhaustive chunk", NULL, d);
    if (!b->m || !ir_verify(b->m, NULL, d)) return false;
    const char *spec = o->backend ? o->backend : "ref";
    if (!strcmp(spec, "ref")) { b->kind = 0; return true; }
    if (!strcmp(spec, "runtime")) {
        b->kind = 1;
        plumb_runtime_options ro;
        plumb_runtime_options_init(&ro);
        ro.threads = 1;
        /* the environment's PLUMB_POLICY, PLUMB_CONTRACT and PLUMB_CACHE_DIR
         * never shape a sweep (as for certify: conformance/backend_runtime.c) */
        ro.policy = "none";
        ro.contract_file = "";
        ro.cache_dir = "";
        b->rt = plumb_runtime_create(&ro, d);
        if (!b->rt) return false;
        b->ex = plumb_runtime_compile(b->rt, b->m, NULL, d);
        return b->ex != NULL;
    }
    b->kind = 2;
    plumb_backend_get_api_fn get = (plumb_backend_get_api_fn)(uintptr_t)dlsym(dl, PLUMB_BACKEND_GET_API_SYMBOL);
    conf_guard_note(PLUMB_BACKEND_GET_API_SYMBOL);
    b->api = get ? get(PLUMB_BACKEND_ABI_MAJOR) : NULL;
    conf_guard_note(NULL);
    if (!b->api || b->api->abi_major != PLUMB_BACKEND_ABI_MAJOR || !b->api->create || !b->api->compile ||
        !b->api->execute) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "%s: no usable plumb_backend_get_api(%u) table", spec,
                       PLUMB_BACKEND_ABI_MAJOR);
        return false;
    }
    plumb_backend_create_args ca = {sizeof ca, NULL, 0, NULL};
    conf_guard_note("create");
    if (!api_err(b->api->create(&ca), b->api, "create", d)) return false;
    conf_guard_note(NULL);
    b->inst = ca.backend;
    plumb_backend_compile_args cc = {sizeof cc, b->inst, prog, strlen(prog), NULL, NULL};
    conf_guard_note("compile");
    if (!api_err(b->api->compile(&cc), b->api, "compile", d)) return false;
    conf_guard_note(NULL);
    b->bex = cc.executable;
    return true;
}

static void xb_close(xbackend *b)
{
    if (b->kind == 1 && b->rt) plumb_runtime_destroy(b->rt);
    if (b->kind == 2 && b->api) {
        if (b->bex && b->api->executable_free) {
            plumb_backend_executable_free_args fa = {sizeof fa, b->inst, b->bex};
            plumb_backend_error *e = b->api->executable_free(&fa);
            if (e && b->api->error_free) b->api->error_free(e);
        }
        if (b->inst && b->api->destroy) {
            plumb_backend_destroy_args da = {sizeof da, b->inst};
            plumb_backend_error *e = b->api->destroy(&da);
            if (e && b->api->error_free) b->api->error_free(e);
        }
    }
    ir_module_free(b->m);
    memset(b, 0, sizeof *b);
}

/* Runs the chunk; *got receives a new tensor. */
static bool xb_run(xbackend *b, plumb_tensor *x, plumb_tensor **got, plumb_diag *d)
{
    *got = NULL;
    if (b->kind == 0) {
        plumb_ref_result r;
        memset(&r, 0, sizeof r);
        if (!plumb_ref_run(b->m, NULL, &x, 1, NULL, &r, d)) return false;
        *got = r.outputs[0];
        r.outputs[0] = NULL;
        plumb_ref_result_free(&r);
        return true;
    }
    if (b->kind == 1) return plumb_executable_run(b->ex, &x, 1, got, 1, NULL, d);
    plumb_backend_buffer in = {sizeof in, plumb_dtype_name(x->dtype), x->rank, x->dims, x->data, x->nbytes};
    plumb_backend_outputs *outs = NULL;
    plumb_backend_execute_args ea = {sizeof ea, b->inst, b->bex, &in, 1, NULL};
    ea.outputs = NULL;
    conf_guard_note("execute");
    plumb_backend_error *e = b->api->execute(&ea);
    conf_guard_note(NULL);
    outs = ea.outputs;
    if (!api_err(e, b->api, "execute", d)) return false;
    bool ok = outs && outs->n_buffers == 1 && outs->buffers[0].byte_size == x->nbytes &&
              outs->buffers[0].rank == x->rank && !strcmp(outs->buffers[0].dtype, plumb_dtype_name(x->dtype));
    if (ok) {
        *got = plumb_tensor_new(x->dtype, x->rank, x->dims, 0, d);
        ok = *got != NULL;
        if (ok && x->nbytes) memcpy((*got)->data, outs->buffers[0].data, x->nbytes);
    } else {
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "backend returned outputs of the wrong number, type or size");
    }
    if (b->api->outputs_free) b->api->outputs_free(outs);
    return ok;
}

/* ---- the sweep ------------------------------------------------------------------- */

typedef struct sweep {
    const conf_exhaustive_opts *o;
    void *dl;
    const char *prog;
    uint64_t begin, end, chunk;
    uint64_t next;                   /* next chunk start, under lock */
    pthread_mutex_t lock;
    conf_exhaustive_result res;      /* under lock */
    bool failed;
    plumb_diag d;
    double t0;
    uint32_t bound;
    bool exact;
} sweep;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool is_nan_bits(plumb_dtype t, uint64_t b)
{
    if (plumb_fpfmt_get(t)) return plumb_float_is_nan(t, b);   /* FN/FNUZ/E8M0 NaN codes */
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t em = ((1ull << di->exp_bits) - 1) << di->mant_bits, fm = (1ull << di->mant_bits) - 1;
    return (b & em) == em && (b & fm);
}

static bool is_special_bits(plumb_dtype t, uint64_t b)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f) {
        /* NaN, infinity, zero and subnormal by the format's own rules: the
         * all-ones exponent of an FN format holds finite values */
        if (plumb_small_is_nan(f, (uint32_t)b) || plumb_small_is_inf(f, (uint32_t)b)) return true;
        if (f->nan == PLUMB_FPNAN_E8M0) return false;
        return ((b >> f->mant) & ((1u << f->expo) - 1)) == 0;
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t em = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    return (b & em) == em || (b & em) == 0;  /* NaN, inf, zero, subnormal */
}

static void compare_chunk(sweep *s, const plumb_tensor *x, const plumb_tensor *got, const plumb_tensor *want,
                          uint64_t base, uint64_t valid, conf_exhaustive_result *loc)
{
    plumb_dtype t = want->dtype;
    for (uint64_t i = 0; i < valid; i++) {
        uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
        loc->checked++;
        if (g == w || (plumb_dtype_is_float(t) && is_nan_bits(t, g) && is_nan_bits(t, w))) continue;
        double ulps;
        bool over;
        if (!plumb_dtype_is_float(t) || s->exact || is_special_bits(t, g) || is_special_bits(t, w)) {
            ulps = INFINITY;
            over = true;
        } else {
            ulps = (double)plumb_ulp_distance(t, g, w);
            over = ulps > s->bound;
        }
        if (over) loc->over_bound++;
        if (ulps > loc->worst_ulp || (over && loc->over_bound == 1 && !loc->first_failure[0])) {
            if (ulps > loc->worst_ulp) loc->worst_ulp = ulps;
            loc->worst_input_bits = plumb_load_bits(x->dtype, x->data, i);
            loc->worst_got = g;
            loc->worst_want = w;
        }
        if (over && !loc->first_failure[0])
            snprintf(loc->first_failure, sizeof loc->first_failure,
                     "input 0x%llx: got 0x%llx, want 0x%llx (%s)", (unsigned long long)(base + i),
                     (unsigned long long)g, (unsigned long long)w,
                     isinf(ulps) ? "special value or exact op must match exactly" : "over the ULP bound");
    }
}

static void *worker(void *arg)
{
    sweep *s = arg;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    xbackend b;
    plumb_tensor *x = NULL;
    plumb_dtype t = s->o->dtype;
    int64_t n = (int64_t)s->chunk;
    bool ok = xb_open(&b, s->o, s->dl, s->prog, &d);
    ir_module *refm = ok ? ir_parse(s->prog, strlen(s->prog), "exhaustive chunk", NULL, &d) : NULL;
    ok = ok && refm;
    if (ok) x = plumb_tensor_new(t, 1, &n, 0, &d);
    ok = ok && x;
    while (ok) {
        pthread_mutex_lock(&s->lock);
        uint64_t start = s->next;
        bool stop = s->failed || start >= s->end;
        if (!stop) s->next = start + s->chunk;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        uint64_t valid = s->end - start < s->chunk ? s->end - start : s->chunk;
        /* a short last chunk repeats its first input so the shape, and so the
         * compiled program, stays the same */
        for (uint64_t i = 0; i < s->chunk; i++) plumb_store_bits(t, x->data, i, start + (i < valid ? i : 0));
        plumb_tensor *got = NULL;
        plumb_ref_result want;
        memset(&want, 0, sizeof want);
        ok = xb_run(&b, x, &got, &d) && plumb_ref_run(refm, NULL, &x, 1, NULL, &want, &d);
        conf_exhaustive_result loc;
        memset(&loc, 0, sizeof loc);
        if (ok) compare_chunk(s, x, got, want.outputs[0], start, valid, &loc);
        plumb_tensor_free(got);
        plumb_ref_result_free(&want);
        pthread_mutex_lock(&s->lock);
        if (ok) {
            conf_exhaustive_result *r = &s->res;
            r->checked += loc.checked;
            r->over_bound += loc.over_bound;
            if (loc.worst_ulp > r->worst_ulp || (!r->first_failure[0] && loc.first_failure[0])) {
                if (loc.worst_ulp > r->worst_ulp) {
                    r->worst_ulp = loc.worst_ulp;
                    r->worst_input_bits = loc.worst_input_bits;
                    r->worst_got = loc.worst_got;
                    r->worst_want = loc.worst_want;
                }
            }
            if (!r->first_failure[0] && loc.first_failure[0]) memcpy(r->first_failure, loc.first_failure, sizeof loc.first_failure);
            if (s->o->progress) {
                double done = (double)r->checked / (double)(s->end - s->begin);
                double el = now_s() - s->t0;
                double eta = done > 0 ? el * (1 - done) / done : 0;
                fprintf(s->o->progress, "\r  %5.1f%%  %llu/%llu inputs  %llu over bound  ETA %02d:%02d:%02d ", done * 100,
                        (unsigned long long)r->checked, (unsigned long long)(s->end - s->begin),
                        (unsigned long long)r->over_bound, (int)(eta / 3600), (int)fmod(eta / 60, 60), (int)fmod(eta, 60));
                fflush(s->o->progress);
            }
        } else if (!s->failed) {
            s->failed = true;
            s->d = d;
        }
        pthread_mutex_unlock(&s->lock);
    }
    if (!ok) {
        pthread_mutex_lock(&s->lock);
        if (!s->failed) { s->failed = true; s->d = d; }
        pthread_mutex_unlock(&s->lock);
    }
    plumb_tensor_free(x);
    ir_module_free(refm);
    xb_close(&b);
    /* The reference's correctly rounded functions (lgamma, digamma, erf_inv,
     * ...) ran MPFR on this thread: free its per-thread constant caches
     * before the thread ends, or they are lost (LeakSanitizer). */
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
    return NULL;
}

/* A plugin's sweep runs in a child process (conf_guard_run): a plugin that
 * exits, crashes or prints there cannot end plumb with a pass. */
typedef struct xiso {
    const conf_exhaustive_opts *o;
} xiso;

typedef struct xiso_answer {
    uint32_t ok;
    int32_t code;
    char msg[sizeof(((plumb_diag *)0)->msg)];
    conf_exhaustive_result res;
} xiso_answer;

static bool in_guarded_child;

/* The sweep's program over n elements of op on t, into prog. */
static void chunk_program(char *prog, size_t cap, plumb_opcode op, plumb_dtype t, uint64_t n)
{
    const plumb_op_info *oi = plumb_op_get(op);
    const char *tn = plumb_dtype_name(t);
    unsigned long long c = (unsigned long long)n;
    if (op == PLUMB_OP_REDUCE_PRECISION)
        snprintf(prog, cap,
                 "func.func @main(%%x: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%r = stablehlo.reduce_precision %%x, format = e4m3 : tensor<%llux%s>\n"
                 "  return %%r : tensor<%llux%s>\n}\n",
                 c, tn, c, tn, c, tn, c, tn);
    else if (op == PLUMB_OP_IS_FINITE || op == PLUMB_OP_IS_INF || op == PLUMB_OP_IS_POS_INF ||
             op == PLUMB_OP_IS_NEG_INF)
        snprintf(prog, cap,
                 "func.func @main(%%x: tensor<%llux%s>) -> tensor<%lluxi1> {\n"
                 "  %%r = %s %%x : (tensor<%llux%s>) -> tensor<%lluxi1>\n"
                 "  return %%r : tensor<%lluxi1>\n}\n",
                 c, tn, c, oi->name, c, tn, c, c);
    else
        snprintf(prog, cap,
                 "func.func @main(%%x: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%r = %s %%x : tensor<%llux%s>\n"
                 "  return %%r : tensor<%llux%s>\n}\n",
                 c, tn, c, tn, oi->name, c, tn, c, tn);
}

bool conf_exhaustive_accepts(plumb_opcode op, plumb_dtype t)
{
    if (op >= PLUMB_OP_COUNT) return false;
    const plumb_op_info *oi = plumb_op_get(op);
    if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->arity != 1 || op == PLUMB_OP_CONVERT) return false;
    if (t == PLUMB_F16 || t == PLUMB_BF16 || t == PLUMB_F32) return (oi->types & PLUMB_TY_BIT(t)) != 0;
    if (!plumb_fpfmt_get(t)) return false;
    /* the small formats are accepted op by op: ask the verifier */
    char prog[512];
    chunk_program(prog, sizeof prog, op, t, 4);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(prog, strlen(prog), "exhaustive probe", NULL, &d);
    bool ok = m && ir_verify(m, NULL, &d);
    ir_module_free(m);
    return ok;
}

static void xiso_child(void *arg)
{
    xiso *x = arg;
    xiso_answer a;
    memset(&a, 0, sizeof a);
    plumb_diag cd;
    memset(&cd, 0, sizeof cd);
    in_guarded_child = true;
    a.ok = conf_exhaustive_run(x->o, &a.res, &cd);
    a.code = cd.code;
    memcpy(a.msg, cd.msg, sizeof a.msg);
    conf_guard_answer(&a, sizeof a);
}

bool conf_exhaustive_run(const conf_exhaustive_opts *o, conf_exhaustive_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    if (!in_guarded_child && o->backend && conf_backend_is_path(o->backend)) {
        xiso x = {o};
        xiso_answer a;
        char why[200];
        if (!conf_guard_run(xiso_child, &x, &a, sizeof a, why, sizeof why)) {
            plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "%s: the backend's process %s", o->backend, why);
            return false;
        }
        a.msg[sizeof a.msg - 1] = 0;
        *res = a.res;
        if (!a.ok)
            plumb_diag_set(d, (plumb_code)a.code, (plumb_loc){0, 0}, "%s", a.msg);
        return a.ok;
    }
    const plumb_op_info *oi = plumb_op_get(o->op);
    bool small = plumb_fpfmt_get(o->dtype) != NULL;
    if (o->dtype != PLUMB_F16 && o->dtype != PLUMB_BF16 && o->dtype != PLUMB_F32 && !small) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0},
                       "exhaustive: --dtype must be f16, bf16, f32 or an FP8/FP6/FP4 format, not %s",
                       plumb_dtype_name(o->dtype));
        return false;
    }
    if (o->op >= PLUMB_OP_COUNT || !conf_exhaustive_accepts(o->op, o->dtype)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "exhaustive: %s is not a unary elementwise op accepting %s",
                       plumb_op_name(o->op), plumb_dtype_name(o->dtype));
        return false;
    }
    uint32_t shards = o->shard_count ? o->shard_count : 1;
    if (o->shard_index >= shards) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "exhaustive: shard %u/%u out of range", o->shard_index, shards);
        return false;
    }
    uint64_t total = 1ull << plumb_dtype_get(o->dtype)->bits;
    sweep s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.begin = total / shards * o->shard_index;
    s.end = o->shard_index + 1 == shards ? total : total / shards * (o->shard_index + 1);
    s.next = s.begin;
    s.chunk = o->chunk ? o->chunk : (total <= 65536 ? total : 1u << 20);
    /* the small formats take the bound of the other types of at most 16
     * bits (f16, bf16): one rounding of a wider value */
    s.bound = small ? (oi->agree == PLUMB_AGREE_ULP ? oi->ulp_half : 0) : plumb_op_ulp_bound(o->op, o->dtype);
    s.exact = oi->agree == PLUMB_AGREE_EXACT;
    s.t0 = now_s();
    pthread_mutex_init(&s.lock, NULL);
    const char *spec = o->backend ? o->backend : "ref";
    if (strcmp(spec, "ref") && strcmp(spec, "runtime")) {
        /* A bare "x.so" is the file here, not a library-path search. */
        char here[4096];
        snprintf(here, sizeof here, "%s%s", strchr(spec, '/') ? "" : "./", spec);
        conf_guard_note("dlopen (the library's constructors)");
        s.dl = dlopen(here, RTLD_NOW | RTLD_LOCAL);
        conf_guard_note(NULL);
        if (!s.dl) {
            const char *why = dlerror();
            plumb_diag_set(d, PLUMB_ERR_IO, (plumb_loc){0, 0}, "cannot load backend %s: %s", spec, why ? why : "?");
            pthread_mutex_destroy(&s.lock);
            return false;
        }
    }
    char prog[512];
    chunk_program(prog, sizeof prog, o->op, o->dtype, s.chunk);
    s.prog = prog;
    uint32_t nt = o->threads ? o->threads : 1;
    if (nt > 64) nt = 64;
    pthread_t th[64];
    uint32_t started = 0;
    for (uint32_t i = 0; i < nt; i++) {
        if (pthread_create(&th[i], NULL, worker, &s)) break;
        started++;
    }
    if (!started) worker(&s);
    for (uint32_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (o->progress) fputc('\n', o->progress);
    *res = s.res;
    res->seconds = now_s() - s.t0;
    res->bound_ulp = s.exact ? 0 : s.bound;
    if (s.dl) dlclose(s.dl);
    pthread_mutex_destroy(&s.lock);
    if (s.failed) {
        *d = s.d;
        return false;
    }
    return true;
}
