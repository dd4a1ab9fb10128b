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
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "certify.h"
#include "plumb/contract.h"
#include "plumb/ref.h"

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* Appends item to a ", "-separated list if it fits whole; else counts it
 * in *more (the list never ends in a cut name). */
static void cs_list_add(char *list, size_t cap, uint32_t *more, const char *item, const char *suffix)
{
    size_t len = strlen(list);
    int n = snprintf(list + len, cap - len, "%s%s%s", len ? ", " : "", item, suffix);
    /* keep room for " and N more" */
    if (n < 0 || len + (size_t)n + 16 >= cap) {
        list[len] = 0;
        (*more)++;
    }
}

static void cs_list_end(char *list, size_t cap, uint32_t more)
{
    size_t len = strlen(list);
    if (more)
        snprintf(list + len, cap - len, " and %u more", more);
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
    uint32_t builds_explained;
    uint32_t no_explain;       /* the backend's table has no explain (read where it is loaded: here) */
    char reason[232];
    char explain[1024];
} cache_wire;

/* The compile contract of the run (--contract), loaded once before the
 * workers fork, and the ledger of the scenario a worker runs (a cold
 * instance is one run of a model). */
static plumb_contract *cs_contract;
static plumb_contract_ledger *cs_ledger;
static char cs_contract_err[256];   /* why it could not be loaded */

/* A build the contract refuses: the whole text among the scenario's lines
 * (every broken rule and the backend's reason), a short reason. */
static void cs_contract_check(const char *prog, uint32_t step, uint64_t runs, const char *why_built,
                              cache_wire *w, bool *ok)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    ir_module *m = ir_parse(prog, strlen(prog), "scenario.mlir", NULL, &d);
    char why[1024];
    bool admitted = m && plumb_contract_ledger_build(cs_ledger, m, NULL, runs,
                                                     why_built && why_built[0] ? why_built
                                                                           : "the backend gave no reason for it",
                                                     why, sizeof why);
    if (!m)
        snprintf(why, sizeof why, "the program does not parse: %.200s", d.msg);
    ir_module_free(m);
    if (admitted)
        return;
    size_t len = strlen(w->explain), cap = sizeof w->explain;
    int n = snprintf(w->explain + len, cap - len, "%sstep %u: CONTRACT VIOLATION: %s", len ? "\n" : "", step, why);
    (void)n;
    if (*ok)
        snprintf(w->reason, sizeof w->reason, "step %u: %.200s", step, why);
    *ok = false;
}

/* After a compile call: when the stats count a new build, asks the backend
 * why (ABI 1.2 explain) and appends "step N: why" to the scenario's lines,
 * then, under a contract, checks the build (prog, after `runs` compile
 * calls). builds is the count before the call, updated. False (reason
 * set) when stats or explain failed or the contract refused the build. */
static bool cs_note_build(conf_backend *b, uint32_t step, uint64_t *builds, cache_wire *w, const char *prog,
                          uint64_t runs)
{
    bool explains = conf_backend_has_explain(b);
    if (!explains && !cs_ledger)
        return true;
    plumb_backend_stats st;
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_backend_stats(b, &st, &d)) {
        snprintf(w->reason, sizeof w->reason, "step %u: stats: %.200s", step, d.msg);
        return false;
    }
    if (st.compiles <= *builds)
        return true;
    *builds = st.compiles;
    char text[512] = "";
    if (explains && !conf_backend_explain(b, text, sizeof text, NULL, 0, &d)) {
        snprintf(w->reason, sizeof w->reason, "step %u: %.200s", step, d.msg);
        return false;
    }
    bool ok = true;
    if (cs_ledger)
        cs_contract_check(prog, step, runs, text, w, &ok);
    if (!text[0])
        return ok;
    w->builds_explained++;
    /* Keep whole lines; the reports count those left out against
     * builds_explained. */
    size_t len = strlen(w->explain), cap = sizeof w->explain;
    char line[600];
    int n = snprintf(line, sizeof line, "%sstep %u: %s", len ? "\n" : "", step, text);
    if (n > 0 && len + (size_t)n < cap)
        memcpy(w->explain + len, line, (size_t)n + 1);
    return ok;
}


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
    uint64_t builds = 0;
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
            if (!cs_note_build(b, i, &builds, w, c.program, w->calls - 1))
                ok = false;
            if (ok && v.status != CONF_ST_PASS) {
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
    w->compiles = st.compiles ? st.compiles : builds;   /* stats not read after a failed step */
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

/* ---- the seed recompile scenarios (scenarios/, docs/scenarios.md) --------------
 * Each is a leak (what a front end traces at each step) and its fix, as
 * program files run in name order, cycled up to the scenario's steps, on a
 * cold instance each. The expected builds are docs/scenarios.md's table,
 * written here by hand: one per distinct program of the leak, one for the
 * fix. The results are not compared with the reference here (the op suites
 * certify the numerics; the scenarios here above certify that a cache
 * serves the right executable): what these hold a backend to is the count,
 * and the report carries the backend's reason for every build. */
typedef struct cs_seed {
    const char *name;
    uint32_t steps;            /* of the leak and of the fix */
    uint64_t leak_compiles;    /* docs/scenarios.md */
    bool sized;                /* the fix has a '?' dimension sized per step (cs_seq_lengths) */
} cs_seed;

static const cs_seed cs_seeds[] = {
    {"baked-learning-rate", 20, 20, false},    {"moe-overflow-counter", 8, 8, false},
    {"grad-create-accumulate", 8, 2, false},   {"optional-batch-fields", 8, 4, false},
    {"moe-capacity-drift", 10, 5, false},      {"topk-varying-k", 10, 5, false},
    {"varying-sequence-length", 20, 20, true},
};
#define CS_N_SEEDS N_OF(cs_seeds)
/* The sequence length of each step (the leak's file names say the same). */
static const int64_t cs_seq_lengths[] = {5, 12, 7, 31, 64, 1, 18, 40, 9, 23, 50, 3, 27, 14, 61, 36, 11, 45, 20, 57};
#define CS_SEQ_DISTINCT 20
#define CS_SEED_MAX_FILES 32

/* One leak/ or fix/ folder, read and parsed by the parent before the worker
 * forks (the worker uses them as they are). */
typedef struct cs_part {
    uint32_t n;
    char *text[CS_SEED_MAX_FILES];       /* canonical text (ir_print), what compile gets */
    size_t len[CS_SEED_MAX_FILES];
    ir_module *mod[CS_SEED_MAX_FILES];
    char file[CS_SEED_MAX_FILES][128];
} cs_part;

static cs_part cs_parts[CS_N_SEEDS][2];

/* A job of the worker: one of the suite's own scenarios, or a seed's leak
 * (fix false) or fix. */
typedef struct cs_job {
    int kind;                  /* cs_kind, or -1 for a seed scenario */
    uint32_t seed;
    bool fix;
} cs_job;

static int cs_name_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void cs_part_free(cs_part *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->text[i])
            plumb_free(p->text[i], p->len[i] + 1);
        ir_module_free(p->mod[i]);
    }
    memset(p, 0, sizeof *p);
}

/* Reads every .mlir of dir into p (name order), parsed and printed in the
 * canonical format. False with why set. */
static bool cs_part_load(const char *dir, cs_part *p, char *why, size_t wcap)
{
    memset(p, 0, sizeof *p);
    DIR *dp = opendir(dir);
    if (!dp) {
        snprintf(why, wcap, "cannot read '%.120s': %s", dir, strerror(errno));
        return false;
    }
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".mlir") != 0)
            continue;
        if (p->n == CS_SEED_MAX_FILES || len >= sizeof p->file[0]) {
            snprintf(why, wcap, "'%.120s': more than %d programs or a name too long", dir, CS_SEED_MAX_FILES);
            ok = false;
            break;
        }
        memcpy(p->file[p->n++], e->d_name, len + 1);
    }
    closedir(dp);
    if (ok && p->n == 0) {
        snprintf(why, wcap, "no .mlir programs in '%.120s'", dir);
        ok = false;
    }
    if (!ok) {
        p->n = 0;
        return false;
    }
    qsort(p->file, p->n, sizeof p->file[0], cs_name_cmp);
    for (uint32_t i = 0; i < p->n && ok; i++) {
        char path[1024];
        if (snprintf(path, sizeof path, "%s/%s", dir, p->file[i]) >= (int)sizeof path) {
            snprintf(why, wcap, "the path of '%.60s' is too long", p->file[i]);
            ok = false;
            break;
        }
        plumb_diag d;
        plumb_diag_clear(&d);
        size_t tlen = 0;
        char *text = plumb_read_file(path, 1u << 20, &tlen, &d);
        if (text) {
            p->mod[i] = ir_parse(text, tlen, p->file[i], NULL, &d);
            plumb_free(text, tlen + 1);
        }
        if (!p->mod[i]) {
            snprintf(why, wcap, "%.*s", (int)(wcap > 1 ? wcap - 1 : 0), d.msg);
            ok = false;
            break;
        }
        plumb_buf b;
        plumb_buf_init(&b);
        ir_print(&b, p->mod[i]);
        if (b.failed || !(p->text[i] = plumb_calloc(b.len + 1, 1))) {
            snprintf(why, wcap, "out of memory printing '%.120s'", path);
            ok = false;
        } else {
            memcpy(p->text[i], b.data, b.len);
            p->len[i] = b.len;
        }
        plumb_buf_free(&b);
    }
    if (!ok)
        cs_part_free(p);
    return ok;
}

/* Ops of a block and its regions into used[]. */
static void cs_ops_used(const ir_block *blk, bool *used)
{
    for (const ir_op *op = blk->first; op; op = op->next) {
        used[op->code] = true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            cs_ops_used(&op->regions[r], used);
    }
}

/* Whether every op of the seed's programs (leak and fix) is claimed and,
 * with --ops, selected; else why not, naming the first ops that are not. */
static bool cs_seed_fits(const conf_run *run, uint32_t k, char *why, size_t wcap)
{
    bool used[PLUMB_OP_COUNT] = {false};
    for (int part = 0; part < 2; part++)
        for (uint32_t i = 0; i < cs_parts[k][part].n; i++) {
            const ir_module *m = cs_parts[k][part].mod[i];
            for (uint32_t f = 0; f < m->n_funcs; f++)
                cs_ops_used(&m->funcs[f]->body, used);
        }
    /* returns and calls are structure, not ops a backend claims */
    used[PLUMB_OP_FUNC_RETURN] = used[PLUMB_OP_RETURN] = used[PLUMB_OP_CALL] = false;
    const conf_caps *c = &run->backend.caps;
    const conf_run_options *o = &run->opts;
    char unclaimed[150] = "", unselected[150] = "";
    uint32_t more_c = 0, more_s = 0;
    for (int op = 0; op < PLUMB_OP_COUNT; op++) {
        if (!used[op])
            continue;
        if (!c->claims[op])
            cs_list_add(unclaimed, sizeof unclaimed, &more_c, plumb_op_name((plumb_opcode)op), "");
        else if (o->ops_filter && !o->ops_given[op])
            cs_list_add(unselected, sizeof unselected, &more_s, plumb_op_name((plumb_opcode)op), "");
    }
    cs_list_end(unclaimed, sizeof unclaimed, more_c);
    cs_list_end(unselected, sizeof unselected, more_s);
    if (unclaimed[0])
        snprintf(why, wcap, "not run (the backend does not claim %s)", unclaimed);
    else if (unselected[0])
        snprintf(why, wcap, "not run (ops not selected: %s)", unselected);
    return !unclaimed[0] && !unselected[0];
}

/* The inputs of step i: each parameter's type with a '?' dimension at this
 * step's length; small values (integers 0..6, so that indices, labels and
 * k stay in range; flags alternate). */
static bool cs_seed_inputs(const ir_func *f, uint32_t step, plumb_tensor **in)
{
    for (uint32_t j = 0; j < f->body.n_args; j++) {
        const ir_type *t = &f->body.args[j]->type;
        int64_t dims[PLUMB_MAX_RANK];
        for (uint32_t r = 0; r < t->rank; r++)
            dims[r] = t->dims[r] == PLUMB_DIM_DYN ? cs_seq_lengths[step % N_OF(cs_seq_lengths)] : t->dims[r];
        plumb_diag d;
        plumb_diag_clear(&d);
        if (!(in[j] = plumb_tensor_new(t->dtype, t->rank, dims, 0, &d)))
            return false;
        uint64_t n = plumb_tensor_numel(in[j]);
        for (uint64_t i = 0; i < n; i++) {
            int64_t v = (int64_t)((i * 5 + step + j) % 7);
            double x = ((double)((i * 7 + step * 3 + j) % 17) - 8.0) / 8.0;
            switch (t->dtype) {
            case PLUMB_F32: { float y = (float)x; memcpy((char *)in[j]->data + 4 * i, &y, 4); break; }
            case PLUMB_F64: memcpy((char *)in[j]->data + 8 * i, &x, 8); break;
            case PLUMB_I32: { int32_t y = (int32_t)v; memcpy((char *)in[j]->data + 4 * i, &y, 4); break; }
            case PLUMB_I64: memcpy((char *)in[j]->data + 8 * i, &v, 8); break;
            case PLUMB_I1: ((unsigned char *)in[j]->data)[i] = (unsigned char)((step + j) % 2); break;
            default: break; /* zeros: no seed program has other parameter types */
            }
        }
    }
    return true;
}

/* The builds a seed part may take under the backend's polymorphism claim;
 * false (why set) when the part cannot run on it. */
static bool cs_seed_expect(const cs_seed *sd, bool fix, plumb_backend_poly poly, conf_cache_scenario *s, char *why,
                           size_t wcap)
{
    s->expected_min = s->expected_max = fix ? 1 : sd->leak_compiles;
    if (!fix) {
        snprintf(s->note, sizeof s->note, "seed scenario: %llu distinct programs over %u steps (docs/scenarios.md)",
                 (unsigned long long)sd->leak_compiles, sd->steps);
        return true;
    }
    snprintf(s->note, sizeof s->note, "seed scenario, fixed: one program over %u steps", sd->steps);
    if (!sd->sized)
        return true;
    s->runs = sd->steps;
    s->distinct = CS_SEQ_DISTINCT;
    switch (poly) {
    case PLUMB_BACKEND_POLY_NONE:
        snprintf(why, wcap, "not run (the fix has a bounded '?' dimension; the backend claims polymorphic_shapes none)");
        return false;
    case PLUMB_BACKEND_POLY_PER_SHAPE:
        s->expected_max = CS_SEQ_DISTINCT;
        snprintf(s->note, sizeof s->note, "seed scenario, fixed: per-shape, at most one build per length (%u lengths)",
                 CS_SEQ_DISTINCT);
        return true;
    case PLUMB_BACKEND_POLY_BOUNDED:
    case PLUMB_BACKEND_POLY_UNBOUNDED:
        snprintf(s->note, sizeof s->note, "seed scenario, fixed: %s, one build for %u lengths within the bound 64",
                 conf_poly_name(poly), CS_SEQ_DISTINCT);
        return true;
    }
    return true;
}

/* Runs a seed's leak or fix on a cold instance, counting builds and taking
 * the backend's reason for each. */
static void cs_seed_run(conf_run *run, uint32_t k, bool fix, const conf_cache_scenario *sc, cache_wire *w)
{
    conf_backend *b = &run->backend;
    const cs_seed *sd = &cs_seeds[k];
    const cs_part *p = &cs_parts[k][fix];
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_backend_instance(b, run->opts.options, run->opts.n_options, &d)) {
        snprintf(w->reason, sizeof w->reason, "cannot create an instance: %.190s", d.msg);
        return;
    }
    bool ok = conf_backend_reset_stats(b, &d);
    if (!ok)
        snprintf(w->reason, sizeof w->reason, "reset_stats: %.200s", d.msg);
    uint64_t builds = 0;
    for (uint32_t i = 0; i < sd->steps && ok; i++) {
        uint32_t f = i % p->n;
        const ir_func *fn = ir_module_find_func(p->mod[f], "main");
        plumb_tensor *in[16] = {NULL};
        plumb_tensor **outs = NULL;
        uint32_t n_outs = 0, n_in = fn ? fn->body.n_args : 0;
        if (!fn || n_in > N_OF(in)) {
            snprintf(w->reason, sizeof w->reason, "%.60s: no @main of at most %zu parameters", p->file[f], N_OF(in));
            ok = false;
        } else if (!cs_seed_inputs(fn, i, in)) {
            snprintf(w->reason, sizeof w->reason, "step %u (%.60s): out of memory building its inputs", i + 1,
                     p->file[f]);
            ok = false;
        } else {
            plumb_diag_clear(&d);
            if (!conf_backend_run(b, p->text[f], in, n_in, &outs, &n_outs, &d)) {
                snprintf(w->reason, sizeof w->reason, "step %u (%.60s): %.150s", i + 1, p->file[f], d.msg);
                ok = false;
            }
            w->calls++;
            if (ok && !cs_note_build(b, i + 1, &builds, w, p->text[f], w->calls - 1))
                ok = false;
        }
        conf_tensors_free(outs, n_outs);
        for (uint32_t j = 0; j < n_in && j < N_OF(in); j++)
            plumb_tensor_free(in[j]);
    }
    plumb_backend_stats st;
    memset(&st, 0, sizeof st);
    plumb_diag_clear(&d);
    if (ok && !conf_backend_stats(b, &st, &d)) {
        snprintf(w->reason, sizeof w->reason, "stats: %.200s", d.msg);
        ok = false;
    }
    w->compiles = st.compiles ? st.compiles : builds;   /* stats not read after a failed step */
    if (ok && (st.compiles < sc->expected_min || st.compiles > sc->expected_max)) {
        char want[64];
        if (sc->expected_min == sc->expected_max)
            snprintf(want, sizeof want, "exactly %llu", (unsigned long long)sc->expected_max);
        else
            snprintf(want, sizeof want, "%llu to %llu", (unsigned long long)sc->expected_min,
                     (unsigned long long)sc->expected_max);
        snprintf(w->reason, sizeof w->reason, "%llu builds for %u steps of %u program%s, expected %s (%s)",
                 (unsigned long long)st.compiles, sd->steps, p->n, p->n == 1 ? "" : "s", want,
                 st.compiles < sc->expected_min ? "an executable served a program it was not built from"
                                                : "a program it had was built again");
        ok = false;
    }
    w->pass = ok;
}

static void cs_worker(conf_run *run, const cs_job *jobs, int fd)
{
    /* The parent's instance (if any) is not ours across fork. */
    run->backend.inst = NULL;
    for (uint32_t s = 0; s < run->n_cache; s++) {
        cache_wire w;
        memset(&w, 0, sizeof w);
        w.index = s;
        plumb_diag d;
        plumb_diag_clear(&d);
        /* every scenario is one run of a model: a fresh ledger */
        if (run->opts.contract_file && (!cs_contract || !(cs_ledger = plumb_contract_ledger_new(cs_contract, &d))))
            snprintf(w.reason, sizeof w.reason, "contract: %.200s", cs_contract ? d.msg : cs_contract_err);
        else if (jobs[s].kind < 0)
            cs_seed_run(run, jobs[s].seed, jobs[s].fix, &run->cache[s], &w);
        else
            cs_run(run, (cs_kind)jobs[s].kind, &run->cache[s], &w);
        plumb_contract_ledger_free(cs_ledger);
        cs_ledger = NULL;
        /* A plugin is loaded in this process only (the parent never
         * dlopens it), so this is where its table can be read. */
        w.no_explain = run->backend.api && !conf_backend_has_explain(&run->backend);
        if (!conf_write_all(fd, &w, sizeof w))
            _exit(3);
    }
    conf_backend_close(&run->backend);
    _exit(0);
}

/* Why scenario k of the suite's own is not run: the ops it needs that the
 * backend does not claim (f32; f64 too for the element type change), else
 * those --ops did not select. */
static void cs_op_why(const conf_run *run, cs_kind k, char *why, size_t cap)
{
    const conf_caps *c = &run->backend.caps;
    const conf_run_options *o = &run->opts;
    uint32_t f32 = PLUMB_TY_BIT(PLUMB_F32), f64 = PLUMB_TY_BIT(PLUMB_F64);
    plumb_opcode need[6];
    uint32_t bits[6], n = 0;
    need[n] = PLUMB_OP_ADD;
    bits[n++] = f32;
    if (k == CS_DTYPE) {
        need[n] = PLUMB_OP_ADD;
        bits[n++] = f64;
    }
    if (k == CS_OP)
        for (size_t i = 1; i < N_OF(cs_opcodes); i++) {
            need[n] = cs_opcodes[i];
            bits[n++] = f32;
        }
    plumb_opcode cop;
    if ((k == CS_RETURN || k == CS_CONST_VECTOR || k == CS_CONST_SCALAR || k == CS_CONST_ONE) &&
        plumb_op_lookup("stablehlo.constant", strlen("stablehlo.constant"), &cop)) {
        need[n] = cop;
        bits[n++] = f32;
    }
    char unclaimed[150] = "", unselected[150] = "";
    uint32_t more_c = 0, more_s = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *ty = bits[i] == f64 ? " f64" : " f32";
        if (!(c->claims[need[i]] & bits[i]))
            cs_list_add(unclaimed, sizeof unclaimed, &more_c, plumb_op_name(need[i]), ty);
        else if (o->ops_filter && !o->ops_given[need[i]] && need[i] != cop)
            cs_list_add(unselected, sizeof unselected, &more_s, plumb_op_name(need[i]), ty);
    }
    cs_list_end(unclaimed, sizeof unclaimed, more_c);
    cs_list_end(unselected, sizeof unselected, more_s);
    if (unclaimed[0])
        snprintf(why, cap, "not run (the backend does not claim %s)", unclaimed);
    else if (unselected[0])
        snprintf(why, cap, "not run (ops not selected: %s)", unselected);
    else
        snprintf(why, cap, "not run");
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
    cs_job jobs[N_OF(run->cache)];
    run->n_cache = 0;
    run->n_cache_not_run = 0;
    for (int k = 0; k < CS_COUNT; k++) {
        if (!runs[k]) {
            /* The unbounded scenario is for backends that claim it; any
             * other is left out for an op, and says which. */
            conf_cache_not_run *nr = &run->cache_not_run[run->n_cache_not_run++];
            copy_str(nr->name, sizeof nr->name, cs_names[k]);
            if (k == CS_POLY_UNBOUNDED && runs[CS_POLY])
                snprintf(nr->reason, sizeof nr->reason, "not run (the backend claims polymorphic_shapes %s, not "
                         "unbounded)", conf_poly_name(c->poly));
            else
                cs_op_why(run, (cs_kind)k, nr->reason, sizeof nr->reason);
            continue;
        }
        conf_cache_scenario *s = &run->cache[run->n_cache];
        jobs[run->n_cache++] = (cs_job){k, 0, false};
        memset(s, 0, sizeof *s);
        copy_str(s->name, sizeof s->name, cs_names[k]);
        cs_expect((cs_kind)k, c->poly, s);
        snprintf(s->reason, sizeof s->reason, "not run");
    }
    /* The seed scenarios: their programs from the scenarios folder. */
    const char *dir = o->scenarios_dir;
    if (!dir || !*dir)
        dir = getenv("PLUMB_SCENARIOS_DIR");
    if (!dir || !*dir)
        dir = "scenarios";
    for (uint32_t k = 0; k < CS_N_SEEDS; k++) {
        char why[200] = "", path[1024];
        bool ok = true;
        for (int part = 0; part < 2 && ok; part++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, cs_seeds[k].name, part ? "fix" : "leak");
            char lw[180];
            ok = cs_part_load(path, &cs_parts[k][part], lw, sizeof lw);
            if (!ok)
                snprintf(why, sizeof why, "not run (programs not found: %.110s; see --scenarios-dir, PLUMB_SCENARIOS_DIR)", lw);
        }
        ok = ok && cs_seed_fits(run, k, why, sizeof why);
        for (int part = 0; part < 2; part++) {
            char name[96];
            snprintf(name, sizeof name, "seed %s (%s)", cs_seeds[k].name, part ? "fix" : "leak");
            conf_cache_scenario *s = &run->cache[run->n_cache];
            char pwhy[200];
            if (ok && run->n_cache < N_OF(run->cache)) {
                memset(s, 0, sizeof *s);
                if (cs_seed_expect(&cs_seeds[k], part == 1, c->poly, s, pwhy, sizeof pwhy)) {
                    copy_str(s->name, sizeof s->name, name);
                    snprintf(s->reason, sizeof s->reason, "not run");
                    jobs[run->n_cache++] = (cs_job){-1, k, part == 1};
                    continue;
                }
            } else {
                copy_str(pwhy, sizeof pwhy, why);
            }
            if (run->n_cache_not_run < N_OF(run->cache_not_run)) {
                conf_cache_not_run *nr = &run->cache_not_run[run->n_cache_not_run++];
                copy_str(nr->name, sizeof nr->name, name);
                copy_str(nr->reason, sizeof nr->reason, pwhy);
            }
        }
    }
    if (run->n_cache == 0)
        goto out_seeds;
    if (o->contract_file && !cs_contract) {
        plumb_diag cd;
        plumb_diag_clear(&cd);
        if (!(cs_contract = plumb_contract_load(o->contract_file, &cd)))
            snprintf(cs_contract_err, sizeof cs_contract_err, "%.250s", cd.msg);
    }
    int p[2];
    if (pipe(p) != 0)
        goto out_seeds;
    conf_guard *guard = conf_guard_new();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        conf_guard_free(guard);
        goto out_seeds;
    }
    if (pid == 0) {
        close(p[0]);
        conf_guard_child(guard);
        cs_worker(run, jobs, p[1]);
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
        w.explain[sizeof w.explain - 1] = 0;
        copy_str(s->reason, sizeof s->reason, w.reason);
        copy_str(s->explain, sizeof s->explain, w.explain);
        s->builds_explained = w.builds_explained;
        run->no_explain = w.no_explain != 0;
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
out_seeds:
    for (uint32_t k = 0; k < CS_N_SEEDS; k++)
        for (int part = 0; part < 2; part++)
            cs_part_free(&cs_parts[k][part]);
}
