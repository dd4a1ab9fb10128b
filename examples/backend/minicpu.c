/* minicpu: a complete plumb backend plugin in one file — the template a
 * device team copies to start.
 *
 * It implements include/plumb/backend.h (and nothing else of plumb) with a
 * small interpreter for f32 programs made of these ops:
 *   add, subtract, multiply, maximum, negate, exponential, broadcast_in_dim
 * and declares exactly those in its capabilities, so `plumb certify` runs
 * their cases and reports every other op as unsupported.
 *
 * Where a real backend would lower to its device, this one parses plumb's
 * canonical text (what `plumb fmt` prints: one op per line, values named
 * %argN and %N) into a list of instructions at compile time and walks the
 * list at execute time. Replace compile and execute with your device's
 * compiler and runtime; keep the error handling, the stats and the
 * capabilities honest, and certify. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plumb/backend.h"

#define MC_MAX_RANK 8
#define MC_MAX_VALUES 256

/* ---- errors --------------------------------------------------------------- */

typedef struct mc_error {
    plumb_backend_error pub;
    char msg[512];
} mc_error;

static mc_error mc_nomem = {{sizeof(plumb_backend_error), PLUMB_BACKEND_ERR_RESOURCE, "out of memory"}, ""};

static plumb_backend_error *mc_err(int32_t code, const char *fmt, ...)
{
    mc_error *e = malloc(sizeof *e);
    if (!e)
        return &mc_nomem.pub;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->pub.struct_size = sizeof e->pub;
    e->pub.code = code;
    e->pub.message = e->msg;
    return &e->pub;
}

static void mc_error_free(plumb_backend_error *e)
{
    if (e && e != &mc_nomem.pub)
        free(e);
}

/* ---- the program ---------------------------------------------------------- */

typedef enum mc_opk { MC_PARAM, MC_ADD, MC_SUB, MC_MUL, MC_MAX, MC_NEG, MC_EXP, MC_BCAST } mc_opk;

typedef struct mc_shape {
    uint32_t rank;
    int64_t dims[MC_MAX_RANK];
} mc_shape;

typedef struct mc_value {
    char name[32];           /* SSA name without '%' */
    mc_opk op;
    int a, b;                /* operand value indices (-1 when unused) */
    uint32_t param;          /* MC_PARAM: parameter index */
    int64_t bdims[MC_MAX_RANK]; /* MC_BCAST: broadcast_dimensions */
    mc_shape shape;
} mc_value;

struct plumb_backend_executable {
    mc_value v[MC_MAX_VALUES];
    int n;
    uint32_t n_params;
    int results[16];
    int n_results;
};

struct plumb_backend {
    uint64_t *seen;          /* hashes of compiled texts, to count cache hits */
    size_t n_seen, cap_seen;
    plumb_backend_stats st;
    /* explain (ABI 1.2): why the last compile call built, or "" for a hit */
    char why[96];
};

static const plumb_backend_op_cap mc_ops[] = {
    {sizeof(plumb_backend_op_cap), "stablehlo.add", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.subtract", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.multiply", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.maximum", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.negate", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.exponential", PLUMB_BACKEND_DT_F32},
    {sizeof(plumb_backend_op_cap), "stablehlo.broadcast_in_dim", PLUMB_BACKEND_DT_F32},
};

static const plumb_backend_capabilities mc_caps = {
    .struct_size = sizeof(plumb_backend_capabilities),
    .ops = mc_ops,
    .n_ops = sizeof mc_ops / sizeof mc_ops[0],
    .polymorphic_shapes = PLUMB_BACKEND_POLY_NONE,
    .flush_subnormals = 0,          /* IEEE subnormals */
    .preserves_nan_payload = 1,
    .deterministic = 1,
    .accum_f32 = PLUMB_BACKEND_DT_F32,
};

/* ---- text parsing ------------------------------------------------------------ */

typedef struct mc_parser {
    const char *p, *end;
    int line;
} mc_parser;

static void skip_ws(mc_parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
        ps->p++;
}

static int eat(mc_parser *ps, const char *s)
{
    skip_ws(ps);
    size_t n = strlen(s);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, s, n) == 0) {
        ps->p += n;
        return 1;
    }
    return 0;
}

static int read_name(mc_parser *ps, char *out, size_t cap)
{
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != '%')
        return 0;
    ps->p++;
    size_t n = 0;
    while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '_') && n + 1 < cap)
        out[n++] = *ps->p++;
    out[n] = 0;
    return n > 0;
}

/* tensor<2x3xf32> or tensor<f32>; only f32 with static dims is ours. */
static plumb_backend_error *read_type(mc_parser *ps, mc_shape *sh)
{
    if (!eat(ps, "tensor<"))
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected tensor<...>", ps->line);
    sh->rank = 0;
    for (;;) {
        if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
            char *e;
            long long d = strtoll(ps->p, &e, 10);
            ps->p = e;
            if (sh->rank == MC_MAX_RANK)
                return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: rank above %d", ps->line, MC_MAX_RANK);
            sh->dims[sh->rank++] = d;
            if (!eat(ps, "x"))
                return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: bad tensor type", ps->line);
            continue;
        }
        if (ps->p < ps->end && *ps->p == '?')
            return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: polymorphic dimensions are not supported",
                          ps->line);
        break;
    }
    if (!eat(ps, "f32>"))
        return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: only f32 tensors are supported", ps->line);
    return NULL;
}

static int find_value(const plumb_backend_executable *x, const char *name)
{
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->v[i].name, name) == 0)
            return i;
    return -1;
}

static int same_shape(const mc_shape *a, const mc_shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

static plumb_backend_error *parse_operand(mc_parser *ps, plumb_backend_executable *x, int *out)
{
    char nm[32];
    if (!read_name(ps, nm, sizeof nm))
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected an operand", ps->line);
    *out = find_value(x, nm);
    if (*out < 0)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: unknown value %%%s", ps->line, nm);
    return NULL;
}

/* One line of the body: `%N = stablehlo.OP ...` or `return ...`. */
static plumb_backend_error *parse_line(mc_parser *ps, plumb_backend_executable *x, int *done)
{
    plumb_backend_error *e;
    if (eat(ps, "return")) {
        do {
            int r;
            if ((e = parse_operand(ps, x, &r)))
                return e;
            if (x->n_results == 16)
                return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: too many results", ps->line);
            x->results[x->n_results++] = r;
        } while (eat(ps, ","));
        *done = 1;
        return NULL;
    }
    if (x->n == MC_MAX_VALUES)
        return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: more than %d values", ps->line, MC_MAX_VALUES);
    mc_value *v = &x->v[x->n];
    memset(v, 0, sizeof *v);
    v->a = v->b = -1;
    if (!read_name(ps, v->name, sizeof v->name) || !eat(ps, "="))
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected '%%N = op'", ps->line);
    static const struct { const char *name; mc_opk k; int arity; } ops[] = {
        {"stablehlo.add ", MC_ADD, 2}, {"stablehlo.subtract ", MC_SUB, 2},
        {"stablehlo.multiply ", MC_MUL, 2}, {"stablehlo.maximum ", MC_MAX, 2},
        {"stablehlo.negate ", MC_NEG, 1}, {"stablehlo.exponential ", MC_EXP, 1},
        {"stablehlo.broadcast_in_dim ", MC_BCAST, 1},
    };
    size_t k = 0;
    while (k < sizeof ops / sizeof ops[0] && !eat(ps, ops[k].name))
        k++;
    if (k == sizeof ops / sizeof ops[0]) {
        skip_ws(ps);
        const char *s = ps->p;
        while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\n')
            ps->p++;
        return mc_err(PLUMB_BACKEND_ERR_UNSUPPORTED, "line %d: op '%.*s' is not supported by minicpu", ps->line,
                      (int)(ps->p - s), s);
    }
    v->op = ops[k].k;
    if ((e = parse_operand(ps, x, &v->a)))
        return e;
    if (ops[k].arity == 2 && (!eat(ps, ",") || (e = parse_operand(ps, x, &v->b))))
        return e ? e : mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected ', %%operand'", ps->line);
    if (v->op == MC_BCAST) {
        uint32_t nd = 0;
        if (!eat(ps, ",") || !eat(ps, "dims = ["))
            return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected 'dims = [...]'", ps->line);
        while (!eat(ps, "]")) {
            skip_ws(ps);
            char *endp;
            long long dv = strtoll(ps->p, &endp, 10);
            if (endp == ps->p || nd == MC_MAX_RANK)
                return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: bad dims list", ps->line);
            ps->p = endp;
            v->bdims[nd++] = dv;
            eat(ps, ",");
        }
        mc_shape in;
        if (!eat(ps, ":") || !eat(ps, "(") || (e = read_type(ps, &in)) || !eat(ps, ")") || !eat(ps, "->"))
            return e ? e : mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: bad broadcast type", ps->line);
        if ((e = read_type(ps, &v->shape)))
            return e;
        if (nd != x->v[v->a].shape.rank)
            return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: dims must name every operand dimension",
                          ps->line);
        for (uint32_t i = 0; i < nd; i++) {
            int64_t od = v->bdims[i];
            if (od < 0 || od >= (int64_t)v->shape.rank ||
                (x->v[v->a].shape.dims[i] != 1 && x->v[v->a].shape.dims[i] != v->shape.dims[od]))
                return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: bad broadcast dimension %u", ps->line, i);
        }
    } else {
        if (!eat(ps, ":") || (e = read_type(ps, &v->shape)))
            return e ? e : mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: expected ': type'", ps->line);
        if (!same_shape(&v->shape, &x->v[v->a].shape) || (v->b >= 0 && !same_shape(&v->shape, &x->v[v->b].shape)))
            return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: operand shapes differ from the result's",
                          ps->line);
    }
    x->n++;
    return NULL;
}

static plumb_backend_error *parse_program(const char *text, size_t len, const char *entry,
                                          plumb_backend_executable *x)
{
    mc_parser ps = {text, text + len, 1};
    char head[160];
    snprintf(head, sizeof head, "func.func @%s(", entry);
    /* Only the entry function matters; other functions would be callees,
     * and func.call is not among our ops. */
    const char *f = strstr(text, head);
    if (!f || (size_t)(f - text) >= len)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "no function @%s", entry);
    for (const char *c = text; c < f; c++)
        if (*c == '\n')
            ps.line++;
    ps.p = f + strlen(head);
    plumb_backend_error *e;
    while (!eat(&ps, ")")) {
        mc_value *v = &x->v[x->n];
        memset(v, 0, sizeof *v);
        v->op = MC_PARAM;
        v->a = v->b = -1;
        v->param = x->n_params++;
        if (x->n == MC_MAX_VALUES || !read_name(&ps, v->name, sizeof v->name) || !eat(&ps, ":"))
            return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "line %d: bad parameter list", ps.line);
        if ((e = read_type(&ps, &v->shape)))
            return e;
        x->n++;
        eat(&ps, ",");
    }
    while (ps.p < ps.end && *ps.p != '\n')
        ps.p++;
    int done = 0;
    while (!done && ps.p < ps.end) {
        ps.p++;
        ps.line++;
        if ((e = parse_line(&ps, x, &done)))
            return e;
        while (ps.p < ps.end && *ps.p != '\n')
            ps.p++;
    }
    if (!done)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "@%s has no return", entry);
    return NULL;
}

/* ---- the ABI functions ----------------------------------------------------- */

static plumb_backend_error *mc_create(plumb_backend_create_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "create: args too short");
    if (a->n_options)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "unknown option '%s' (minicpu takes none)",
                      a->options[0].name ? a->options[0].name : "(null)");
    a->backend = calloc(1, sizeof *a->backend);
    return a->backend ? NULL : mc_err(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
}

static plumb_backend_error *mc_destroy(plumb_backend_destroy_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "destroy: args too short");
    if (a->backend) {
        free(a->backend->seen);
        free(a->backend);
    }
    return NULL;
}

static plumb_backend_error *mc_capabilities(plumb_backend_capabilities_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "capabilities: args too short");
    a->capabilities = &mc_caps;
    return NULL;
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static plumb_backend_error *mc_compile(plumb_backend_compile_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->program)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "compile: bad args");
    double t0 = now_s();
    plumb_backend_executable *x = calloc(1, sizeof *x);
    if (!x)
        return mc_err(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    plumb_backend_error *e = parse_program(a->program, a->program_size, a->entry ? a->entry : "main", x);
    if (e) {
        free(x);
        return e;
    }
    /* A real backend would look the text up in its cache before lowering;
     * this one only counts, so the cache-stability suite sees the truth. */
    plumb_backend *b = a->backend;
    uint64_t h = fnv1a(a->program, a->program_size);
    int hit = 0;
    for (size_t i = 0; i < b->n_seen; i++)
        hit |= b->seen[i] == h;
    b->why[0] = 0;
    if (hit) {
        b->st.cache_hits++;
    } else {
        /* This cache is keyed on the program's bytes, so that is the only
         * reason it can give. */
        snprintf(b->why, sizeof b->why, "program text not seen before (hash %016llx, %zu programs cached)",
                 (unsigned long long)h, b->n_seen);
        if (b->n_seen == b->cap_seen) {
            size_t nc = b->cap_seen ? 2 * b->cap_seen : 16;
            uint64_t *ns = realloc(b->seen, nc * sizeof *ns);
            if (ns) {
                b->seen = ns;
                b->cap_seen = nc;
            }
        }
        if (b->n_seen < b->cap_seen)
            b->seen[b->n_seen++] = h;
        b->st.compiles++;
        b->st.compile_seconds += now_s() - t0;
    }
    a->executable = x;
    return NULL;
}

static plumb_backend_error *mc_executable_free(plumb_backend_executable_free_args *a)
{
    if (!a || a->struct_size < sizeof *a)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "executable_free: bad args");
    free(a->executable);
    return NULL;
}

static int64_t numel(const mc_shape *s)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n *= s->dims[i];
    return n;
}

/* IEEE 754-2019 maximum: NaN propagates, -0 < +0. */
static float mc_maximum(float a, float b)
{
    if (isnan(a))
        return a;
    if (isnan(b))
        return b;
    if (a == 0 && b == 0)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

typedef struct mc_outputs {
    plumb_backend_outputs pub;
    plumb_backend_buffer bufs[16];
    float *data[16];
    int64_t dims[16][MC_MAX_RANK];
} mc_outputs;

static void mc_outputs_free(plumb_backend_outputs *po)
{
    if (!po)
        return;
    mc_outputs *o = (mc_outputs *)po;
    for (size_t i = 0; i < o->pub.n_buffers; i++)
        free(o->data[i]);
    free(o);
}

static plumb_backend_error *mc_execute(plumb_backend_execute_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->executable || (a->n_inputs && !a->inputs))
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "execute: bad args");
    const plumb_backend_executable *x = a->executable;
    if (a->n_inputs != x->n_params)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "execute: %zu inputs for %u parameters", a->n_inputs,
                      x->n_params);
    float *vals[MC_MAX_VALUES] = {0};
    plumb_backend_error *e = NULL;
    for (int i = 0; i < x->n && !e; i++) {
        const mc_value *v = &x->v[i];
        int64_t n = numel(&v->shape);
        if (v->op == MC_PARAM) {
            const plumb_backend_buffer *in = &a->inputs[v->param];
            mc_shape s = {in->rank, {0}};
            for (uint32_t k = 0; k < in->rank && k < MC_MAX_RANK; k++)
                s.dims[k] = in->dims[k];
            if (in->struct_size < sizeof *in || !in->dtype || strcmp(in->dtype, "f32") != 0 ||
                in->rank > MC_MAX_RANK || !same_shape(&s, &v->shape) || in->byte_size != (uint64_t)n * 4) {
                e = mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "execute: input %u does not match %%%s", v->param,
                           v->name);
                break;
            }
        }
        vals[i] = malloc(n ? (size_t)n * sizeof(float) : 1);
        if (!vals[i]) {
            e = mc_err(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
            break;
        }
        float *r = vals[i];
        const float *p = v->a >= 0 ? vals[v->a] : NULL, *q = v->b >= 0 ? vals[v->b] : NULL;
        switch (v->op) {
        case MC_PARAM:
            if (n)
                memcpy(r, a->inputs[v->param].data, (size_t)n * sizeof(float));
            break;
        case MC_ADD: for (int64_t k = 0; k < n; k++) r[k] = p[k] + q[k]; break;
        case MC_SUB: for (int64_t k = 0; k < n; k++) r[k] = p[k] - q[k]; break;
        case MC_MUL: for (int64_t k = 0; k < n; k++) r[k] = p[k] * q[k]; break;
        case MC_MAX: for (int64_t k = 0; k < n; k++) r[k] = mc_maximum(p[k], q[k]); break;
        case MC_NEG: for (int64_t k = 0; k < n; k++) r[k] = -p[k]; break;
        case MC_EXP: for (int64_t k = 0; k < n; k++) r[k] = expf(p[k]); break;
        case MC_BCAST: {
            const mc_shape *is = &x->v[v->a].shape;
            for (int64_t k = 0; k < n; k++) {
                /* Output index -> operand index through the dims map. */
                int64_t idx[MC_MAX_RANK], rem = k, src = 0;
                for (int d = (int)v->shape.rank - 1; d >= 0; d--) {
                    idx[d] = v->shape.dims[d] ? rem % v->shape.dims[d] : 0;
                    rem = v->shape.dims[d] ? rem / v->shape.dims[d] : 0;
                }
                for (uint32_t d = 0; d < is->rank; d++)
                    src = src * is->dims[d] + (is->dims[d] == 1 ? 0 : idx[v->bdims[d]]);
                r[k] = p[src];
            }
            break;
        }
        }
    }
    mc_outputs *o = e ? NULL : calloc(1, sizeof *o);
    if (!e && !o)
        e = mc_err(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    if (!e) {
        o->pub.struct_size = sizeof o->pub;
        o->pub.buffers = o->bufs;
        o->pub.n_buffers = (size_t)x->n_results;
        for (int i = 0; i < x->n_results; i++) {
            const mc_value *v = &x->v[x->results[i]];
            int64_t n = numel(&v->shape);
            o->data[i] = malloc(n ? (size_t)n * sizeof(float) : 1);
            if (!o->data[i]) {
                o->pub.n_buffers = (size_t)i;
                mc_outputs_free(&o->pub);
                o = NULL;
                e = mc_err(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
                break;
            }
            if (n)
                memcpy(o->data[i], vals[x->results[i]], (size_t)n * sizeof(float));
            memcpy(o->dims[i], v->shape.dims, sizeof o->dims[i]);
            o->bufs[i] = (plumb_backend_buffer){sizeof(plumb_backend_buffer), "f32", v->shape.rank, o->dims[i],
                                                o->data[i], (uint64_t)n * 4};
        }
    }
    for (int i = 0; i < x->n; i++)
        free(vals[i]);
    if (e)
        return e;
    a->outputs = &o->pub;
    if (a->backend)
        a->backend->st.executions++;
    return NULL;
}

static plumb_backend_error *mc_stats(plumb_backend_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend || !a->stats)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "stats: bad args");
    /* Write only what the caller's struct holds. */
    size_t n = a->stats->struct_size < sizeof a->backend->st ? a->stats->struct_size : sizeof a->backend->st;
    if (n > sizeof(size_t))
        memcpy((char *)a->stats + sizeof(size_t), (const char *)&a->backend->st + sizeof(size_t),
               n - sizeof(size_t));
    return NULL;
}

static plumb_backend_error *mc_reset_stats(plumb_backend_reset_stats_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "reset_stats: bad args");
    memset(&a->backend->st, 0, sizeof a->backend->st);
    return NULL;
}

/* Optional (ABI 1.2): why the last compile call built a program. */
static plumb_backend_error *mc_explain(plumb_backend_explain_args *a)
{
    if (!a || a->struct_size < sizeof *a || !a->backend)
        return mc_err(PLUMB_BACKEND_ERR_INVALID_ARGUMENT, "explain: bad args");
    a->text = a->backend->why[0] ? a->backend->why : NULL;
    a->json = NULL;
    return NULL;
}

static const plumb_backend_api mc_api = {
    .struct_size = sizeof(plumb_backend_api),
    .abi_major = PLUMB_BACKEND_ABI_MAJOR,
    .abi_minor = PLUMB_BACKEND_ABI_MINOR,
    .name = "minicpu",
    .version = "1.0.0",
    .error_free = mc_error_free,
    .create = mc_create,
    .destroy = mc_destroy,
    .capabilities = mc_capabilities,
    .compile = mc_compile,
    .executable_free = mc_executable_free,
    .execute = mc_execute,
    .outputs_free = mc_outputs_free,
    .stats = mc_stats,
    .reset_stats = mc_reset_stats,
    .explain = mc_explain,
};

PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major)
{
    return abi_major == PLUMB_BACKEND_ABI_MAJOR ? &mc_api : NULL;
}
