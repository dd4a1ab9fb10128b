/* The reference interpreter exposed through the backend ABI ("ref"), and the
 * helpers every backend built on plumb's library shares (errors, buffers).
 * Certifying ref against itself is the runner's own sanity check: every case
 * must pass with zero budget used. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "certify.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "plumb/ref.h"

/* ---- shared helpers ----------------------------------------------------- */

typedef struct bk_error {
    plumb_backend_error pub;
    size_t alloc;              /* bytes of this object, for plumb_free */
    char msg[];
} bk_error;

/* Returned when even the error cannot be allocated: static, never freed. */
static bk_error bk_nomem = {{sizeof(plumb_backend_error), PLUMB_BACKEND_ERR_RESOURCE, "out of memory"}, 0};

plumb_backend_error *conf_bk_error(int32_t code, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    size_t len = strlen(tmp);
    size_t alloc = sizeof(bk_error) + len + 1;
    bk_error *e = plumb_malloc(alloc);
    if (!e)
        return &bk_nomem.pub;
    e->pub.struct_size = sizeof e->pub;
    e->pub.code = code;
    memcpy(e->msg, tmp, len + 1);
    e->pub.message = e->msg;
    e->alloc = alloc;
    return &e->pub;
}

plumb_backend_error *conf_bk_error_from_diag(const plumb_diag *d)
{
    int32_t code = d->code == PLUMB_ERR_UNSUPPORTED ? PLUMB_BACKEND_ERR_UNSUPPORTED
                 : d->code == PLUMB_ERR_NOMEM || d->code == PLUMB_ERR_LIMIT ? PLUMB_BACKEND_ERR_RESOURCE
                 : d->code == PLUMB_ERR_PARSE || d->code == PLUMB_ERR_INVALID || d->code == PLUMB_ERR_USAGE
                     ? PLUMB_BACKEND_ERR_INVALID_ARGUMENT
                     : PLUMB_BACKEND_ERR_INTERNAL;
    if (d->loc.line)
        return conf_bk_error(code, "%u:%u: %s", d->loc.line, d->loc.col, d->msg);
    return conf_bk_error(code, "%s", d->msg[0] ? d->msg : plumb_code_name(d->code));
}

void conf_bk_error_free(plumb_backend_error *e)
{
    if (!e || e == &bk_nomem.pub)
        return;
    bk_error *be = (bk_error *)e;
    plumb_free(be, be->alloc);
}

uint32_t conf_bk_abi_mask(uint32_t plumb_mask)
{
    uint32_t out = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(plumb_mask & PLUMB_TY_BIT(t)))
            continue;
        /* bit b of the ABI mask (include/plumb/backend.h; 13-29 since ABI 1.3) */
        static const char *const names[] = {"i1", "i8", "i16", "i32", "i64", "ui8", "ui16",
                                            "ui32", "ui64", "f16", "bf16", "f32", "f64",
                                            "complex<f32>", "complex<f64>", "f8E4M3FN", "f8E5M2",
                                            "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E3M4",
                                            "f8E4M3", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN",
                                            "i2", "i4", "ui2", "ui4"};
        for (uint32_t b = 0; b < sizeof names / sizeof names[0]; b++)
            if (strcmp(names[b], plumb_dtype_name((plumb_dtype)t)) == 0)
                out |= 1u << b;
    }
    return out;
}

uint32_t conf_bk_plumb_mask(uint32_t abi_mask)
{
    uint32_t out = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        if (conf_bk_abi_mask(PLUMB_TY_BIT(t)) & abi_mask)
            out |= PLUMB_TY_BIT(t);
    return out;
}

double conf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ir_module *conf_bk_parse(const char *text, size_t len, plumb_backend_error **err)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    *err = NULL;
    if (!text) {
        *err = conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: program is NULL");
        return NULL;
    }
    ir_module *m = ir_parse(text, len, "<program>", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) {
        *err = conf_bk_error_from_diag(&d);
        ir_module_free(m);
        return NULL;
    }
    return m;
}

plumb_backend_error *conf_bk_inputs(const plumb_backend_buffer *in, size_t n, plumb_tensor **views)
{
    for (size_t i = 0; i < n; i++) {
        const plumb_backend_buffer *b = &in[i];
        if (b->struct_size < sizeof *b)
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "input %zu: struct_size %zu too short", i,
                                 b->struct_size);
        plumb_dtype t;
        if (!b->dtype || !plumb_dtype_parse(b->dtype, strlen(b->dtype), &t))
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "input %zu: unknown element type '%s'", i,
                                 b->dtype ? b->dtype : "(null)");
        if (b->rank > PLUMB_MAX_RANK || (b->rank && !b->dims))
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "input %zu: bad rank %u", i, b->rank);
        plumb_diag d;
        plumb_diag_clear(&d);
        uint64_t numel, nbytes;
        if (!plumb_shape_size(t, b->rank, b->dims, 0, &numel, &nbytes, &d))
            return conf_bk_error_from_diag(&d);
        if (nbytes != b->byte_size || (nbytes && !b->data))
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT,
                                 "input %zu: byte_size %llu, but its type needs %llu bytes", i,
                                 (unsigned long long)b->byte_size, (unsigned long long)nbytes);
        plumb_tensor *v = plumb_calloc(1, sizeof *v);
        if (!v) {
            for (size_t k = 0; k < i; k++)
                plumb_tensor_free(views[k]);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        v->dtype = t;
        v->rank = b->rank;
        for (uint32_t k = 0; k < b->rank; k++)
            v->dims[k] = b->dims[k];
        v->data = nbytes ? b->data : NULL;
        v->nbytes = (size_t)nbytes;
        v->owned = false;
        views[i] = v;
    }
    return NULL;
}

typedef struct bk_outputs {
    plumb_backend_outputs pub;
    plumb_tensor **ts;
    plumb_backend_buffer *bufs;
    uint32_t n;
} bk_outputs;

plumb_backend_error *conf_bk_outputs(plumb_tensor **ts, uint32_t n, plumb_backend_outputs **out)
{
    bk_outputs *o = plumb_calloc(1, sizeof *o);
    plumb_backend_buffer *bufs = n ? plumb_calloc(n, sizeof *bufs) : NULL;
    if (!o || (n && !bufs)) {
        plumb_free(o, sizeof *o);
        plumb_free(bufs, (size_t)n * sizeof *bufs);
        conf_tensors_free(ts, n);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        bufs[i].struct_size = sizeof bufs[i];
        bufs[i].dtype = plumb_dtype_name(ts[i]->dtype);
        bufs[i].rank = ts[i]->rank;
        bufs[i].dims = ts[i]->dims;
        bufs[i].data = ts[i]->data;
        bufs[i].byte_size = ts[i]->nbytes;
    }
    o->pub.struct_size = sizeof o->pub;
    o->pub.buffers = bufs;
    o->pub.n_buffers = n;
    o->ts = ts;
    o->bufs = bufs;
    o->n = n;
    *out = &o->pub;
    return NULL;
}

void conf_bk_outputs_free(plumb_backend_outputs *po)
{
    if (!po)
        return;
    bk_outputs *o = (bk_outputs *)po;
    conf_tensors_free(o->ts, o->n);
    plumb_free(o->bufs, (size_t)o->n * sizeof *o->bufs);
    plumb_free(o, sizeof *o);
}

/* ---- the reference backend ----------------------------------------------- */

struct plumb_backend {
    double timeout_s;          /* per execution, seconds; 0 = none */
    uint64_t *seen;            /* XXH3-64 of every program text compiled, for cache-hit counting */
    size_t n_seen, cap_seen;
    plumb_backend_stats st;
    char why[128];             /* explain: why the last compile call counted a build; "" = it did not */
};

struct plumb_backend_executable {
    ir_module *m;
    char entry[128];
};

static plumb_backend_op_cap ref_ops[PLUMB_OP_COUNT];
static plumb_backend_capabilities ref_caps;

static plumb_backend_error *ref_create(plumb_backend_create_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "create: args struct_size too short");
    double timeout = 0;
    for (size_t i = 0; i < a->n_options; i++) {
        const plumb_backend_option *o = &a->options[i];
        if (o->name && strcmp(o->name, "timeout") == 0 && o->value) {
            char *end;
            timeout = strtod(o->value, &end);
            if (*end || !(timeout >= 0))
                return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "option timeout: '%s' is not seconds",
                                     o->value);
        } else {
            return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT,
                                 "unknown option '%s' (ref accepts: timeout)", o->name ? o->name : "(null)");
        }
    }
    plumb_backend *b = plumb_calloc(1, sizeof *b);
    if (!b)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    b->timeout_s = timeout;
    a->backend = b;
    return NULL;
}

size_t conf_bk_table_ops(plumb_backend_op_cap *ops)
{
    size_t n = 0;
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        const plumb_op_info *oi = plumb_op_get((plumb_opcode)op);
        /* structure and checks are not ops a backend claims, except the
         * control-flow ops of op set v2 that compute results */
        if ((oi->kind == PLUMB_KIND_FUNC || oi->kind == PLUMB_KIND_CHECK) && op != PLUMB_OP_OPTIMIZATION_BARRIER &&
            op != PLUMB_OP_WHILE && op != PLUMB_OP_IF && op != PLUMB_OP_CASE && op != PLUMB_OP_MAP &&
            op != PLUMB_OP_COMPOSITE && op != PLUMB_OP_TUPLE && op != PLUMB_OP_GET_TUPLE_ELEMENT && op != PLUMB_OP_SCAN)
            continue;
        /* complex is outside the rows' masks: an op takes it when
         * ir_complex_accepts says so (docs/spec/complex.md) */
        uint32_t types = oi->types | (ir_complex_accepts((plumb_opcode)op) ? PLUMB_TY_COMPLEX : 0);
        /* the small types where the op takes them (ir/lowp.c) */
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if (plumb_dtype_is_lowp((plumb_dtype)t) && ir_lowp_accepts((plumb_opcode)op, (plumb_dtype)t))
                types |= PLUMB_TY_BIT(t);
        if (!conf_bk_abi_mask(types))
            continue;
        ops[n].struct_size = sizeof ops[n];
        ops[n].name = oi->name;
        ops[n].dtypes = conf_bk_abi_mask(types);
        n++;
    }
    return n;
}

static plumb_backend_error *ref_destroy(plumb_backend_destroy_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "destroy: args struct_size too short");
    if (a->backend) {
        plumb_free(a->backend->seen, a->backend->cap_seen * sizeof *a->backend->seen);
        plumb_free(a->backend, sizeof *a->backend);
    }
    return NULL;
}

static plumb_backend_error *ref_capabilities(plumb_backend_capabilities_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "capabilities: args struct_size too short");
    /* Built on each call from the op table (cheap, and the same every time). */
    size_t n = conf_bk_table_ops(ref_ops);
    memset(&ref_caps, 0, sizeof ref_caps);
    ref_caps.struct_size = sizeof ref_caps;
    ref_caps.ops = ref_ops;
    ref_caps.n_ops = n;
    /* The reference interprets: one parsed program runs at any size, each
     * result sized from its operands (ir_shape_infer), a size above a
     * bound refused by ir_shape_check_args; nothing is built per size. */
    ref_caps.polymorphic_shapes = PLUMB_BACKEND_POLY_UNBOUNDED;
    ref_caps.flush_subnormals = 0;
    ref_caps.preserves_nan_payload = 1;
    ref_caps.deterministic = 1;
    /* The reference accumulates exactly (or with enough extra precision) and
     * rounds once, so it meets the tightest bound of each type. */
    ref_caps.accum_f16 = PLUMB_BACKEND_DT_F16;
    ref_caps.accum_bf16 = PLUMB_BACKEND_DT_BF16;
    ref_caps.accum_f32 = PLUMB_BACKEND_DT_F32;
    ref_caps.accum_f64 = PLUMB_BACKEND_DT_F64;
    /* The small formats' dots and convolutions: exact products summed in
     * double-double (ref/accum.c), rounded once to the result, at least as
     * tight as an f64 accumulator (ABI 1.4). */
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++) ref_caps.accum_small[i] = PLUMB_BACKEND_DT_F64;
    a->capabilities = &ref_caps;
    return NULL;
}

static plumb_backend_error *ref_compile(plumb_backend_compile_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: bad args");
    plumb_backend *b = a->backend;
    b->why[0] = 0;
    double t0 = conf_now();
    const char *entry = a->entry ? a->entry : "main";
    if (strlen(entry) >= sizeof(((plumb_backend_executable *)0)->entry))
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: entry name too long");
    plumb_backend_error *err;
    ir_module *m = conf_bk_parse(a->program, a->program_size, &err);
    if (!m)
        return err;
    if (!ir_module_find_func(m, entry)) {
        ir_module_free(m);
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: no function @%s", entry);
    }
    plumb_backend_executable *x = plumb_calloc(1, sizeof *x);
    if (!x) {
        ir_module_free(m);
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    }
    x->m = m;
    snprintf(x->entry, sizeof x->entry, "%s", entry);
    /* The reference keeps no compiled form, but it counts like a cache so the
     * cache-stability scenarios read meaningful numbers from it. */
    uint64_t h = XXH3_64bits_withSeed(a->program, a->program_size, XXH3_64bits(entry, strlen(entry)));
    bool hit = false;
    for (size_t i = 0; i < b->n_seen && !hit; i++)
        hit = b->seen[i] == h;
    if (hit) {
        b->st.cache_hits++;
    } else {
        if (b->n_seen == b->cap_seen) {
            size_t nc = b->cap_seen ? 2 * b->cap_seen : 16;
            uint64_t *ns = plumb_realloc(b->seen, b->cap_seen * sizeof *ns, nc * sizeof *ns);
            if (ns) {
                b->seen = ns;
                b->cap_seen = nc;
            }
        }
        /* The reference's "cache" is keyed on the text and entry alone, so
         * that is all it can say (the runtime names the difference). */
        snprintf(b->why, sizeof b->why, "program text of @%.60s not seen before (%zu cached)", entry, b->n_seen);
        if (b->n_seen < b->cap_seen)
            b->seen[b->n_seen++] = h;
        b->st.compiles++;
        b->st.compile_seconds += conf_now() - t0;
    }
    a->executable = x;
    return NULL;
}

/* ABI 1.2: why the last compile call counted a build. */
static plumb_backend_error *ref_explain(plumb_backend_explain_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "explain: bad args");
    a->text = a->backend->why[0] ? a->backend->why : NULL;
    a->json = NULL;
    return NULL;
}

static plumb_backend_error *ref_executable_free(plumb_backend_executable_free_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "executable_free: bad args");
    if (a->executable) {
        ir_module_free(a->executable->m);
        plumb_free(a->executable, sizeof *a->executable);
    }
    return NULL;
}

static plumb_backend_error *ref_execute(plumb_backend_execute_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->executable || (a->n_inputs && !a->inputs) ||
        a->n_inputs > UINT32_MAX)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "execute: bad args");
    size_t n = a->n_inputs;
    plumb_tensor **views = n ? plumb_calloc(n, sizeof *views) : NULL;
    if (n && !views)
        return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    plumb_backend_error *err = conf_bk_inputs(a->inputs, n, views);
    if (err) {
        plumb_free(views, n * sizeof *views);
        return err;
    }
    plumb_ref_options ro;
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.timeout_s = a->backend->timeout_s;
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = plumb_ref_run(a->executable->m, a->executable->entry, views, (uint32_t)n, &ro, &res, &d);
    for (size_t i = 0; i < n; i++)
        plumb_tensor_free(views[i]);
    plumb_free(views, n * sizeof *views);
    if (!ok)
        return conf_bk_error_from_diag(&d);
    /* The outputs object takes the result tensors; the result's array is
     * handed over with them. */
    plumb_tensor **ts = NULL;
    if (res.n_outputs) {
        ts = plumb_calloc(res.n_outputs, sizeof *ts);
        if (!ts) {
            plumb_ref_result_free(&res);
            return conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
        }
        for (uint32_t i = 0; i < res.n_outputs; i++) {
            ts[i] = res.outputs[i];
            res.outputs[i] = NULL;
        }
    }
    uint32_t nout = res.n_outputs;
    plumb_ref_result_free(&res);
    err = conf_bk_outputs(ts, nout, &a->outputs);
    if (!err)
        a->backend->st.executions++;
    return err;
}

static plumb_backend_error *ref_stats(plumb_backend_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->stats)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "stats: bad args");
    size_t n = a->stats->struct_size < sizeof a->backend->st ? a->stats->struct_size : sizeof a->backend->st;
    if (n > sizeof(size_t))
        memcpy((char *)a->stats + sizeof(size_t), (const char *)&a->backend->st + sizeof(size_t),
               n - sizeof(size_t));
    return NULL;
}

static plumb_backend_error *ref_reset_stats(plumb_backend_reset_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return conf_bk_error(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "reset_stats: bad args");
    memset(&a->backend->st, 0, sizeof a->backend->st);
    return NULL;
}

static const plumb_backend_api ref_api = {
    .struct_size = sizeof(plumb_backend_api),
    .abi_major = PLUMB_BACKEND_ABI_MAJOR,
    .abi_minor = PLUMB_BACKEND_ABI_MINOR,
    .name = "ref",
    .version = PLUMB_VERSION_STRING,
    .error_free = conf_bk_error_free,
    .create = ref_create,
    .destroy = ref_destroy,
    .capabilities = ref_capabilities,
    .compile = ref_compile,
    .executable_free = ref_executable_free,
    .execute = ref_execute,
    .outputs_free = conf_bk_outputs_free,
    .stats = ref_stats,
    .reset_stats = ref_reset_stats,
    .explain = ref_explain,
};

const plumb_backend_api *conf_backend_ref_api(uint32_t abi_major)
{
    return abi_major == PLUMB_BACKEND_ABI_MAJOR ? &ref_api : NULL;
}
