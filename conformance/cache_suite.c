/* The cache suite: sequences of compile calls that a backend's executable
 * cache must serve right, on a cold instance per scenario, with the exact
 * number of programs built (the ABI's stats) and every result checked
 * against the reference.
 *
 * A scenario is a list of steps (a program and inputs); the expected compile
 * count is the number of distinct programs among them: a backend that
 * builds fewer served some program another one's executable (a key that
 * misses a shape, an op or a constant's value), one that builds more
 * recompiles what it has (a key on data, or an eviction of something still
 * in use; a scenario holds at most 7 distinct programs). Steps return to
 * earlier programs after others, so a cache that evicts and then hands out
 * the wrong entry gives wrong results. Every scenario runs in one worker
 * process, which reports each scenario's count and verdict.
 *
 * The polymorphic scenarios run one program with `?` parameters at many
 * sizes (0, 1, odd and even ones, the bound, revisits) and hold the count to
 * the backend's polymorphic_shapes claim (include/plumb/backend.h): bounded
 * and unbounded backends build once, a per-shape backend at most once per
 * distinct size, and a backend without polymorphism runs the static
 * programs plumb_ref_refine derives for each size (one build per distinct
 * size; its certificate says it was certified on refined programs). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "certify.h"
#include "plumb/ref.h"

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* The scenarios, in report order. */
typedef enum cs_kind {
    CS_VALUES,        /* one program, new parameter values every call */
    CS_DTYPE,         /* f32 and f64 alternating */
    CS_SHAPE,         /* four static shapes, round robin, back and forth */
    CS_OP,            /* add, subtract, multiply, maximum */
    CS_RETURN,        /* seven programs differing in a constant, revisited after others */
    CS_CONST_VECTOR,  /* one element of an 8-element constant changes */
    CS_CONST_SCALAR,  /* a rank-0 constant changes */
    CS_CONST_ONE,     /* a one-element (tensor<1xf32>) constant changes */
    CS_POLY,          /* a bounded polymorphic dimension, 24 runs at 20 sizes */
    CS_POLY_UNBOUNDED,/* an unbounded one (backends that claim UNBOUNDED) */
    CS_COUNT
} cs_kind;

static const char *const cs_names[CS_COUNT] = {
    "new parameter values", "element type change", "static shape change", "op change",
    "return to earlier programs", "constant value (vector)", "constant value (scalar)",
    "constant value (one element)", "polymorphic dimension", "unbounded polymorphic dim",
};

/* Steps per scenario (compile calls) and distinct programs among them. */
#define CS_VALUES_STEPS 32
static const char *const cs_ops[] = {"add", "subtract", "multiply", "maximum"};
static const plumb_opcode cs_opcodes[] = {PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_MAXIMUM};
static const int64_t cs_sizes[] = {8, 5, 1, 13};
/* Return scenario: constants k of "x + y + k", visiting order over 7
 * programs; a 2- or 3-entry cache has evicted each one by its next visit. */
static const int cs_return_order[] = {0, 1, 2, 3, 0, 4, 5, 6, 1, 0, 2, 6, 3, 5, 4, 0, 6, 1, 2, 3, 4, 5, 6, 0};
/* Constant scenarios: the values, in visiting order. The zeros of both
 * signs are distinct programs (an input of -0 tells them apart: -0 + +0 is
 * +0, -0 + -0 is -0); a cache that compares values numerically does not. */
static const float cs_const_values[] = {1.5f, -2.25f, 1.5f, 0.0f, -0.0f, 1024.0f, -2.25f, 3.0e38f, 0.0f, -0.0f};
/* Polymorphic scenarios: the leading size of tensor<?x4xf32> per run. The
 * bounded one (bound CS_POLY_BOUND) visits 20 distinct sizes: 0, 1, odd and
 * even ones, the bound itself, and returns to 1, 64, 0 and 7 after others. */
#define CS_POLY_BOUND 64
#define CS_POLY_COLS 4
static const int64_t cs_poly_sizes[] = {1, 0, 64, 7, 33, 2, 63, 17, 5, 48, 1, 31,
                                        9, 64, 12, 3, 40, 25, 0, 57, 11, 7, 20, 50};
#define CS_POLY_DISTINCT 20
/* The unbounded one: sizes past any bound the other uses, 0 and 1. */
static const int64_t cs_unbounded_sizes[] = {3, 100, 0, 1, 257, 64, 100, 65, 1000, 3};
#define CS_UNBOUNDED_DISTINCT 8

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t cs_steps(cs_kind k)
{
    switch (k) {
    case CS_VALUES: return CS_VALUES_STEPS;
    case CS_DTYPE: return 8;
    case CS_SHAPE: return 3 * N_OF(cs_sizes);
    case CS_OP: return 3 * N_OF(cs_ops);
    case CS_RETURN: return N_OF(cs_return_order);
    case CS_CONST_VECTOR:
    case CS_CONST_SCALAR:
    case CS_CONST_ONE: return N_OF(cs_const_values);
    case CS_POLY: return N_OF(cs_poly_sizes);
    case CS_POLY_UNBOUNDED: return N_OF(cs_unbounded_sizes);
    case CS_COUNT: break;
    }
    return 0;
}

/* Distinct programs of a scenario: by hand from the tables above. */
static uint64_t cs_distinct(cs_kind k)
{
    switch (k) {
    case CS_VALUES: return 1;
    case CS_DTYPE: return 2;
    case CS_SHAPE: return N_OF(cs_sizes);
    case CS_OP: return N_OF(cs_ops);
    case CS_RETURN: return 7;
    case CS_CONST_VECTOR:
    case CS_CONST_SCALAR:
    case CS_CONST_ONE: return 6;   /* 1.5, -2.25, +0, -0, 1024, 3e38 */
    case CS_POLY: return CS_POLY_DISTINCT;
    case CS_POLY_UNBOUNDED: return CS_UNBOUNDED_DISTINCT;
    case CS_COUNT: break;
    }
    return 0;
}

/* The compile counts a scenario allows under a polymorphism claim, and what
 * the count certifies (note). Static scenarios: exactly their distinct
 * programs. Polymorphic ones: one program compiled once (bounded,
 * unbounded); at least once and at most once per distinct size (per-shape:
 * a size seen before must not build again); or, for a backend without
 * polymorphism, the refined static program of each distinct size once. */
static void cs_expect(cs_kind k, plumb_backend_poly poly, conf_cache_scenario *s)
{
    uint64_t n = cs_distinct(k);
    s->expected_min = s->expected_max = n;
    if (k != CS_POLY && k != CS_POLY_UNBOUNDED)
        return;
    s->runs = cs_steps(k);
    s->distinct = (uint32_t)n;
    const char *where = k == CS_POLY ? "within the bound 64" : "of a dimension without a bound (up to 1000)";
    switch (poly) {
    case PLUMB_BACKEND_POLY_BOUNDED:
    case PLUMB_BACKEND_POLY_UNBOUNDED:
        s->expected_min = s->expected_max = 1;
        snprintf(s->note, sizeof s->note, "%s: one compile for %u runs at %u sizes %s", conf_poly_name(poly), s->runs,
                 s->distinct, where);
        break;
    case PLUMB_BACKEND_POLY_PER_SHAPE:
        s->expected_min = 1;
        snprintf(s->note, sizeof s->note, "per-shape: at most one compile per distinct size (%u sizes, %u runs)",
                 s->distinct, s->runs);
        break;
    case PLUMB_BACKEND_POLY_NONE:
        snprintf(s->note, sizeof s->note,
                 "certified on refined (static) programs: plumb_ref_refine per size, %u sizes, %u runs", s->distinct,
                 s->runs);
        break;
    }
}

/* A vector of n elements of type t: base + step·i, element 0 set to -0
 * (so a constant's zero sign shows in the sum). */
static plumb_tensor *cs_vec(plumb_dtype t, int64_t n, double base, double step)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_tensor *x = plumb_tensor_new(t, n < 0 ? 0 : 1, &n, 0, &d);
    if (!x)
        return NULL;
    int64_t m = n < 0 ? 1 : n;
    for (int64_t i = 0; i < m; i++) {
        double v = i == 0 ? -0.0 : base + step * (double)i;
        if (t == PLUMB_F32) {
            float f = (float)v;
            memcpy((char *)x->data + 4 * i, &f, 4);
        } else {
            memcpy((char *)x->data + 8 * i, &v, 8);
        }
    }
    return x;
}

/* The constant's literal: a float's bit pattern, exact whatever its value
 * (the zero's sign included). */
static void cs_bits(float v, char *buf, size_t cap)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    snprintf(buf, cap, "0x%08X", (unsigned)u);
}

/* An m x CS_POLY_COLS f32 matrix: base + step·i, element 0 set to -0. */
static plumb_tensor *cs_mat(int64_t m, double base, double step)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    int64_t dims[2] = {m, CS_POLY_COLS};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    if (!x)
        return NULL;
    for (int64_t i = 0; i < m * CS_POLY_COLS; i++) {
        float f = i == 0 ? -0.0f : (float)(base + step * (double)i);
        memcpy((char *)x->data + 4 * i, &f, 4);
    }
    return x;
}

/* (x + y) + x on tensor<?x4xf32>, bounded by 64 or unbounded: two ops, so
 * that a backend's fusion and buffer planning meet the run-time size. */
static void cs_poly_prog(bool bounded, char *prog, size_t cap)
{
    const char *T = bounded ? "tensor<?x4xf32, #stablehlo.bounds<64, ?>>" : "tensor<?x4xf32>";
    snprintf(prog, cap,
             "func.func @main(%%arg0: %s, %%arg1: %s) -> %s {\n"
             "  %%0 = stablehlo.add %%arg0, %%arg1 : %s\n"
             "  %%1 = stablehlo.add %%0, %%arg0 : %s\n"
             "  return %%1 : %s\n}\n",
             T, T, T, T, T, T);
}

static void cs_static_prog(int64_t m, char *prog, size_t cap)
{
    char T[64];
    snprintf(T, sizeof T, "tensor<%lldx4xf32>", (long long)m);
    snprintf(prog, cap,
             "func.func @main(%%arg0: %s, %%arg1: %s) -> %s {\n"
             "  %%0 = stablehlo.add %%arg0, %%arg1 : %s\n"
             "  %%1 = stablehlo.add %%0, %%arg0 : %s\n"
             "  return %%1 : %s\n}\n",
             T, T, T, T, T, T);
}

/* A backend without polymorphism runs what shape refinement makes of the
 * polymorphic program for the size of this run: plumb_ref_refine's module,
 * printed in the canonical format. False with why set when refinement fails. */
static bool cs_refine(const char *poly, int64_t m, char *out, size_t cap, char *why, size_t wcap)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_buf b;
    plumb_buf_init(&b);
    ir_module *r = NULL;
    ir_module *pm = ir_parse(poly, strlen(poly), "cache scenario", NULL, &d);
    bool ok = pm != NULL;
    if (ok) {
        ir_type at[2];
        memset(at, 0, sizeof at);
        for (int j = 0; j < 2; j++) {
            at[j].dtype = PLUMB_F32;
            at[j].rank = 2;
            at[j].dims[0] = m;
            at[j].dims[1] = CS_POLY_COLS;
            at[j].bounds[0] = at[j].bounds[1] = PLUMB_NO_BOUND;
        }
        r = plumb_ref_refine(pm, "main", at, 2, 0, &d);
        ok = r != NULL;
    }
    if (ok) {
        ir_print(&b, r);
        ok = !b.failed && b.len < cap;
        if (ok)
            memcpy(out, b.data, b.len + 1);
        else
            snprintf(d.msg, sizeof d.msg, "the refined program does not fit in %zu bytes", cap);
    }
    if (!ok)
        snprintf(why, wcap, "plumb_ref_refine at size %lld: %.180s", (long long)m, d.msg);
    plumb_buf_free(&b);
    ir_module_free(r);
    ir_module_free(pm);
    return ok;
}

/* Builds step i of scenario k: the program (and, for the polymorphic one,
 * the static program the reference runs), the op and the inputs. */
static bool cs_step(cs_kind k, uint32_t i, char *prog, size_t cap, char *static_prog, size_t scap,
                    plumb_opcode *op, plumb_dtype *t, plumb_tensor **in, uint32_t *n_in)
{
    const char *ty = "f32";
    int64_t n = 8;
    char lit[16];
    *op = PLUMB_OP_ADD;
    *t = PLUMB_F32;
    *n_in = 2;
    static_prog[0] = 0;
    switch (k) {
    case CS_VALUES:
    case CS_DTYPE:
    case CS_SHAPE:
    case CS_OP: {
        const char *opn = "add";
        if (k == CS_DTYPE && i % 2) {
            ty = "f64";
            *t = PLUMB_F64;
        }
        if (k == CS_SHAPE)
            n = cs_sizes[i % N_OF(cs_sizes)];
        if (k == CS_OP) {
            opn = cs_ops[i % N_OF(cs_ops)];
            *op = cs_opcodes[i % N_OF(cs_ops)];
        }
        snprintf(prog, cap,
                 "func.func @main(%%arg0: tensor<%lldx%s>, %%arg1: tensor<%lldx%s>) -> tensor<%lldx%s> {\n"
                 "  %%0 = stablehlo.%s %%arg0, %%arg1 : tensor<%lldx%s>\n"
                 "  return %%0 : tensor<%lldx%s>\n}\n",
                 (long long)n, ty, (long long)n, ty, (long long)n, ty, opn, (long long)n, ty, (long long)n, ty);
        in[0] = cs_vec(*t, n, 0.5 * i + 1, 0.25);
        in[1] = cs_vec(*t, n, -3.0 + i, 1.0 + 0.125 * i);
        break;
    }
    case CS_RETURN: {
        int c = cs_return_order[i];
        snprintf(prog, cap,
                 "func.func @main(%%arg0: tensor<8xf32>, %%arg1: tensor<8xf32>) -> tensor<8xf32> {\n"
                 "  %%c = stablehlo.constant dense<%d.0> : tensor<8xf32>\n"
                 "  %%0 = stablehlo.add %%arg0, %%arg1 : tensor<8xf32>\n"
                 "  %%1 = stablehlo.add %%0, %%c : tensor<8xf32>\n"
                 "  return %%1 : tensor<8xf32>\n}\n",
                 100 * (c + 1));
        in[0] = cs_vec(PLUMB_F32, 8, 2, 1);
        in[1] = cs_vec(PLUMB_F32, 8, 3, 0.5);
        break;
    }
    case CS_CONST_VECTOR:
        cs_bits(cs_const_values[i], lit, sizeof lit);
        /* Only element 0 changes; the input's element 0 is -0. */
        snprintf(prog, cap,
                 "func.func @main(%%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                 "  %%c = stablehlo.constant dense<[%s, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>\n"
                 "  %%0 = stablehlo.add %%arg0, %%c : tensor<8xf32>\n"
                 "  return %%0 : tensor<8xf32>\n}\n",
                 lit);
        in[0] = cs_vec(PLUMB_F32, 8, 1, 0.5);
        *n_in = 1;
        break;
    case CS_CONST_SCALAR:
        cs_bits(cs_const_values[i], lit, sizeof lit);
        snprintf(prog, cap,
                 "func.func @main(%%arg0: tensor<f32>) -> tensor<f32> {\n"
                 "  %%c = stablehlo.constant dense<%s> : tensor<f32>\n"
                 "  %%0 = stablehlo.add %%arg0, %%c : tensor<f32>\n"
                 "  return %%0 : tensor<f32>\n}\n",
                 lit);
        in[0] = cs_vec(PLUMB_F32, -1, 0, 0);
        *n_in = 1;
        break;
    case CS_CONST_ONE:
        /* (x + c) + y with x = y = -0: the result is c, its zero sign kept. */
        cs_bits(cs_const_values[i], lit, sizeof lit);
        snprintf(prog, cap,
                 "func.func @main(%%arg0: tensor<1xf32>, %%arg1: tensor<1xf32>) -> tensor<1xf32> {\n"
                 "  %%c = stablehlo.constant dense<%s> : tensor<1xf32>\n"
                 "  %%0 = stablehlo.add %%arg0, %%c : tensor<1xf32>\n"
                 "  %%1 = stablehlo.add %%0, %%arg1 : tensor<1xf32>\n"
                 "  return %%1 : tensor<1xf32>\n}\n",
                 lit);
        in[0] = cs_vec(PLUMB_F32, 1, 0, 0);
        in[1] = cs_vec(PLUMB_F32, 1, 0, 0);
        break;
    case CS_POLY:
    case CS_POLY_UNBOUNDED: {
        int64_t m = k == CS_POLY ? cs_poly_sizes[i] : cs_unbounded_sizes[i];
        cs_poly_prog(k == CS_POLY, prog, cap);
        /* The reference checks the static program of the same size. */
        cs_static_prog(m, static_prog, scap);
        in[0] = cs_mat(m, 0.5 * (double)i + 1, 0.25);
        in[1] = cs_mat(m, -3.0 + (double)i, 1.0 + 0.125 * (double)i);
        break;
    }
    case CS_COUNT:
        return false;
    }
    for (uint32_t j = 0; j < *n_in; j++)
        if (!in[j])
            return false;
    return true;
}

/* What the worker sends per scenario. */
typedef struct cache_wire {
    uint32_t index;
    uint32_t pass;
    uint64_t compiles;
    uint64_t calls;
    char reason[232];
} cache_wire;

/* A polymorphic backend given a size above the bound: execute must fail
 * with INVALID_ARGUMENT (include/plumb/backend.h), before reading the
 * buffer; accepting it, or failing another way, fails the scenario. */
static bool cs_over_bound(conf_backend *b, const char *prog, char *reason, size_t cap)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_tensor *in[2] = {cs_mat(CS_POLY_BOUND + 1, 1, 0.5), cs_mat(CS_POLY_BOUND + 1, 2, 0.25)};
    plumb_tensor **outs = NULL;
    uint32_t n_outs = 0;
    bool ok = false;
    if (!in[0] || !in[1]) {
        snprintf(reason, cap, "out of memory building the inputs of size %d", CS_POLY_BOUND + 1);
    } else if (conf_backend_run(b, prog, in, 2, &outs, &n_outs, &d)) {
        snprintf(reason, cap,
                 "accepted parameter 0 dimension 0 of size %d above its bound %d (expected execute to fail with "
                 "INVALID_ARGUMENT)",
                 CS_POLY_BOUND + 1, CS_POLY_BOUND);
    } else if (d.code != PLUMB_ERR_INVALID || !strstr(d.msg, "execute failed")) {
        snprintf(reason, cap, "size %d above the bound %d: expected execute to fail with INVALID_ARGUMENT, got: %.150s",
                 CS_POLY_BOUND + 1, CS_POLY_BOUND, d.msg);
    } else {
        ok = true;
    }
    conf_tensors_free(outs, n_outs);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    return ok;
}

/* Runs scenario k on a cold instance: every step checked, then the count. */
static void cs_run(conf_run *run, cs_kind k, const conf_cache_scenario *sc, cache_wire *w)
{
    conf_backend *b = &run->backend;
    plumb_backend_poly poly = b->caps.poly;
    bool polyk = k == CS_POLY || k == CS_POLY_UNBOUNDED;
    plumb_diag d;
    plumb_diag_clear(&d);
    /* Cold: a new instance per scenario, so nothing an earlier scenario
     * compiled can serve (or hide) this one's programs. */
    if (!conf_backend_instance(b, run->opts.options, run->opts.n_options, &d)) {
        snprintf(w->reason, sizeof w->reason, "cannot create an instance: %.190s", d.msg);
        return;
    }
    bool ok = conf_backend_reset_stats(b, &d);
    if (!ok)
        snprintf(w->reason, sizeof w->reason, "reset_stats: %.200s", d.msg);
    static char prog[2048], sprog[2048], rprog[4096];
    uint32_t steps = cs_steps(k);
    for (uint32_t i = 0; i < steps && ok; i++) {
        plumb_tensor *in[2] = {NULL, NULL};
        uint32_t n_in = 0;
        plumb_opcode op;
        plumb_dtype t;
        if (!cs_step(k, i, prog, sizeof prog, sprog, sizeof sprog, &op, &t, in, &n_in)) {
            snprintf(w->reason, sizeof w->reason, "step %u: out of memory building its inputs", i);
            ok = false;
        } else if (polyk && poly == PLUMB_BACKEND_POLY_NONE &&
                   !cs_refine(prog, in[0]->dims[0], rprog, sizeof rprog, w->reason, sizeof w->reason)) {
            /* certified on refined programs: the backend compiles the
             * static program refinement made, checked as it is */
            ok = false;
        } else {
            bool refined = polyk && poly == PLUMB_BACKEND_POLY_NONE;
            if (refined)
                sprog[0] = 0;
            conf_case c;
            memset(&c, 0, sizeof c);
            snprintf(c.id, sizeof c.id, "cache/%u/step/%u", (unsigned)k, i);
            c.op = op;
            c.dtype = t;
            c.shape_class = "cache";
            c.value_class = "cache";
            c.program = refined ? rprog : prog;
            c.inputs = in;
            c.n_inputs = n_in;
            conf_case_verdict v;
            conf_run_case(b, &c, sprog[0] ? sprog : NULL, NULL, &v);
            w->calls++;
            if (v.status != CONF_ST_PASS) {
                if (polyk)
                    snprintf(w->reason, sizeof w->reason, "step %u (size %lld), %.40s (%s): %.150s", i,
                             (long long)in[0]->dims[0], plumb_op_name(op), conf_status_name(v.status), v.reason);
                else
                    snprintf(w->reason, sizeof w->reason, "step %u, %.40s (%s): %.160s", i, plumb_op_name(op),
                             conf_status_name(v.status), v.reason);
                ok = false;
            }
        }
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
    plumb_backend_stats st;
    memset(&st, 0, sizeof st);
    plumb_diag_clear(&d);
    if (ok && !conf_backend_stats(b, &st, &d)) {
        snprintf(w->reason, sizeof w->reason, "stats: %.200s", d.msg);
        ok = false;
    }
    w->compiles = st.compiles;
    if (ok && (st.compiles < sc->expected_min || st.compiles > sc->expected_max)) {
        char want[64];
        if (sc->expected_min == sc->expected_max)
            snprintf(want, sizeof want, "exactly %llu", (unsigned long long)sc->expected_max);
        else
            snprintf(want, sizeof want, "%llu to %llu", (unsigned long long)sc->expected_min,
                     (unsigned long long)sc->expected_max);
        if (polyk && poly != PLUMB_BACKEND_POLY_NONE)
            snprintf(w->reason, sizeof w->reason,
                     "%llu compiles for %llu runs of one program at %u distinct sizes, expected %s (claims %s: %s)",
                     (unsigned long long)st.compiles, (unsigned long long)w->calls, sc->distinct, want,
                     conf_poly_name(poly),
                     st.compiles > sc->expected_max ? (poly == PLUMB_BACKEND_POLY_PER_SHAPE
                                                           ? "a size it had compiled was built again"
                                                           : "it recompiled for new sizes")
                                                    : "nothing was built");
        else
            snprintf(w->reason, sizeof w->reason,
                     "%llu compiles for %llu compile calls of %llu distinct programs, expected %s (%s)",
                     (unsigned long long)st.compiles, (unsigned long long)w->calls, (unsigned long long)cs_distinct(k),
                     want,
                     st.compiles < sc->expected_min ? "an executable served a program it was not compiled from"
                                                    : "programs it had were built again");
        ok = false;
    }
    if (ok && k == CS_POLY && poly != PLUMB_BACKEND_POLY_NONE)
        ok = cs_over_bound(b, prog, w->reason, sizeof w->reason);
    w->pass = ok;
}

static void cs_worker(conf_run *run, const cs_kind *kinds, int fd)
{
    /* The parent's instance (if any) is not ours across fork. */
    run->backend.inst = NULL;
    for (uint32_t s = 0; s < run->n_cache; s++) {
        cache_wire w;
        memset(&w, 0, sizeof w);
        w.index = s;
        cs_run(run, kinds[s], &run->cache[s], &w);
        if (!conf_write_all(fd, &w, sizeof w))
            _exit(3);
    }
    conf_backend_close(&run->backend);
    _exit(0);
}

void conf_cache_suite(conf_run *run)
{
    const conf_caps *c = &run->backend.caps;
    const conf_run_options *o = &run->opts;
    uint32_t f32 = PLUMB_TY_BIT(PLUMB_F32), f64 = PLUMB_TY_BIT(PLUMB_F64);
#define CS_HAS(op, bit) ((c->claims[op] & (bit)) && (!o->ops_filter || o->ops_given[op]))
    bool add32 = CS_HAS(PLUMB_OP_ADD, f32);
    bool ops4 = add32;
    for (size_t i = 0; i < N_OF(cs_opcodes); i++)
        ops4 = ops4 && CS_HAS(cs_opcodes[i], f32);
    /* Scenarios need ops the backend claims (and, with --ops, ops of the
     * run); the others are not run. */
    bool runs[CS_COUNT] = {
        [CS_VALUES] = add32,
        [CS_DTYPE] = add32 && CS_HAS(PLUMB_OP_ADD, f64),
        [CS_SHAPE] = add32,
        [CS_OP] = ops4,
        [CS_RETURN] = add32,
        [CS_CONST_VECTOR] = add32,
        [CS_CONST_SCALAR] = add32,
        [CS_CONST_ONE] = add32,
        /* every claim: a backend without polymorphism on refined programs */
        [CS_POLY] = add32,
        [CS_POLY_UNBOUNDED] = add32 && c->poly == PLUMB_BACKEND_POLY_UNBOUNDED,
    };
#undef CS_HAS
    /* Four scenarios bake a constant: the backend must claim it (f32). */
    plumb_opcode cop;
    bool const32 = plumb_op_lookup("stablehlo.constant", strlen("stablehlo.constant"), &cop) &&
                   (c->claims[cop] & f32);
    runs[CS_RETURN] = runs[CS_RETURN] && const32;
    runs[CS_CONST_VECTOR] = runs[CS_CONST_VECTOR] && const32;
    runs[CS_CONST_SCALAR] = runs[CS_CONST_SCALAR] && const32;
    runs[CS_CONST_ONE] = runs[CS_CONST_ONE] && const32;
    cs_kind kinds[CS_COUNT];
    run->n_cache = 0;
    for (int k = 0; k < CS_COUNT; k++) {
        if (!runs[k] || run->n_cache >= N_OF(run->cache))
            continue;
        conf_cache_scenario *s = &run->cache[run->n_cache];
        kinds[run->n_cache++] = (cs_kind)k;
        memset(s, 0, sizeof *s);
        copy_str(s->name, sizeof s->name, cs_names[k]);
        cs_expect((cs_kind)k, c->poly, s);
        snprintf(s->reason, sizeof s->reason, "not run");
    }
    if (run->n_cache == 0)
        return;
    int p[2];
    if (pipe(p) != 0)
        return;
    conf_guard *guard = conf_guard_new();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        conf_guard_free(guard);
        return;
    }
    if (pid == 0) {
        close(p[0]);
        conf_guard_child(guard);
        cs_worker(run, kinds, p[1]);
    }
    close(p[1]);
    double deadline = conf_now() + o->timeout_s * (double)run->n_cache;
    uint32_t got = 0;
    char buf[sizeof(cache_wire)];
    size_t have = 0;
    bool timed_out = false;
    while (got < run->n_cache) {
        double left = deadline - conf_now();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr <= 0)
            continue;
        ssize_t n = read(p[0], buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        if (have < sizeof buf)
            continue;
        cache_wire w;
        memcpy(&w, buf, sizeof w);
        have = 0;
        /* Records come in order; anything else is a corrupt worker. */
        if (w.index != got)
            break;
        conf_cache_scenario *s = &run->cache[got++];
        s->compiles = w.compiles;
        s->calls = w.calls;
        s->pass = w.pass != 0;
        w.reason[sizeof w.reason - 1] = 0;
        copy_str(s->reason, sizeof s->reason, w.reason);
    }
    int status = 0;
    if (timed_out || got < run->n_cache)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(p[0]);
    for (uint32_t i = got; i < run->n_cache; i++) {
        conf_cache_scenario *s = &run->cache[i];
        s->pass = false;
        if (timed_out)
            snprintf(s->reason, sizeof s->reason, "timed out");
        else
            conf_run_describe_exit(status, guard, s->reason, sizeof s->reason);
    }
    conf_guard_free(guard);
}
