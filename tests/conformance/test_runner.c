/* The certification runner: a crashing or hanging backend fails only the
 * case it was running (with a reproducer) and the run goes on; shards split
 * cases without loss; a run short of its manifest fails; ref certifies;
 * inputs are protected, determinism is tested, the cache suite counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../conformance/certify.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/plumb_test_runner_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *plugin_path(const char *name, char *buf, size_t cap)
{
    const char *b = getenv("BUILD");
    snprintf(buf, cap, "%s/plugins/%s.so", b && *b ? b : "build", name);
    return buf;
}

static void opts_for(conf_run_options *o, const char *backend, plumb_opcode op)
{
    conf_run_options_init(o);
    o->backend = backend;
    o->jobs = 2;
    o->cache_suite = false;
    o->ops_filter = true;
    o->ops_given[op] = true;
    o->repro_dir = tmpdir;
}

static uint32_t count_status(const conf_run *r, conf_status s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_cases; i++)
        n += r->cases[i].status == s;
    return n;
}

/* The backend dies on exactly one exponential case: that case fails as a
 * crash naming the signal, a reproducer (program + inputs) is saved, and
 * every other case of the op still runs and passes. */
static void test_crash_isolated(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("run_crash_one", p, sizeof p), PLUMB_OP_EXPONENTIAL);
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    const conf_op_summary *s = &run.ops[PLUMB_OP_EXPONENTIAL];
    assert_int_equal(count_status(&run, CONF_ST_CRASH), 1);
    assert_int_equal(s->failed, 1);
    assert_int_equal(s->passed + s->failed, s->generated);
    assert_true(s->passed > 10);
    assert_false(run.ok);
    for (uint32_t i = 0; i < run.n_cases; i++) {
        const conf_case_result *r = &run.cases[i];
        if (r->status != CONF_ST_CRASH)
            continue;
        assert_non_null(strstr(r->id, "exponential/f32/"));
        assert_non_null(strstr(r->reason, "signal 11"));
        assert_true(r->repro[0] != 0);
        char f[700];
        struct stat st;
        snprintf(f, sizeof f, "%s/program.mlir", r->repro);
        assert_int_equal(stat(f, &st), 0);
        snprintf(f, sizeof f, "%s/input_0.tensor", r->repro);
        assert_int_equal(stat(f, &st), 0);
        /* the saved input reads back as the one-element f32 that crashed */
        plumb_diag_clear(&d);
        plumb_tensor *t = plumb_tensor_load(f, 0, &d);
        assert_non_null(t);
        assert_int_equal(t->dtype, PLUMB_F32);
        assert_int_equal(plumb_tensor_numel(t), 1);
        plumb_tensor_free(t);
    }
    conf_run_free(&run);
}

/* A case that never returns is killed at the timeout and fails as a
 * timeout; the cases after it in its batch still run. */
static void test_hang_times_out(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("run_hang", p, sizeof p), PLUMB_OP_NEGATE);
    o.timeout_s = 1;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    const conf_op_summary *s = &run.ops[PLUMB_OP_NEGATE];
    uint32_t timeouts = count_status(&run, CONF_ST_TIMEOUT);
    assert_true(timeouts >= 1);
    assert_int_equal(s->failed, timeouts);
    assert_int_equal(s->passed + s->failed, s->generated);
    assert_true(s->passed > 0);
    for (uint32_t i = 0; i < run.n_cases; i++)
        if (run.cases[i].status == CONF_ST_TIMEOUT)
            assert_non_null(strstr(run.cases[i].id, "/f64/scalar/"));
    assert_false(run.ok);
    conf_run_free(&run);
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Three shards run every case of the whole exactly once. */
static void test_shards_partition(void **state)
{
    (void)state;
    conf_run_options o;
    opts_for(&o, "ref", PLUMB_OP_ADD);
    conf_run whole;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &whole, &d));
    assert_true(whole.ok);
    uint32_t n = whole.n_cases;
    assert_int_equal(n, conf_manifest_count(PLUMB_OP_ADD, CONF_SUITE_QUICK));
    char (*ids)[128] = calloc(n, sizeof *ids);
    assert_non_null(ids);
    uint32_t got = 0;
    for (uint32_t k = 0; k < 3; k++) {
        o.shard_index = k;
        o.shard_count = 3;
        conf_run part;
        assert_true(conf_run_certify(&o, &part, &d));
        assert_true(part.ok);
        assert_true(part.n_cases > 0 && part.n_cases < n);
        for (uint32_t i = 0; i < part.n_cases && got < n; i++)
            memcpy(ids[got++], part.cases[i].id, 128);
        assert_true(got <= n);
        conf_run_free(&part);
    }
    assert_int_equal(got, n);
    qsort(ids, n, sizeof *ids, cmp_str);
    for (uint32_t i = 1; i < n; i++)
        assert_true(strcmp(ids[i - 1], ids[i]) != 0);
    /* whole.cases is sorted by (op, id) already */
    for (uint32_t i = 0; i < n; i++)
        assert_string_equal(ids[i], whole.cases[i].id);
    free(ids);
    conf_run_free(&whole);
}

/* Running fewer cases than the manifest (--limit) fails even though every
 * case that ran passed: no vacuous certificate. */
static void test_manifest_shortfall_fails(void **state)
{
    (void)state;
    conf_run_options o;
    opts_for(&o, "ref", PLUMB_OP_ABS);
    o.limit = 3;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    const conf_op_summary *s = &run.ops[PLUMB_OP_ABS];
    assert_int_equal(s->cases, 3);
    assert_int_equal(s->failed, 0);
    assert_false(s->manifest_ok);
    assert_non_null(strstr(s->note, "manifest"));
    assert_false(run.ok);
    conf_run_free(&run);
}

/* Ops and element types the backend does not claim are skipped and counted,
 * never run: the example backend claims f32 only. */
static void test_unclaimed_reported(void **state)
{
    (void)state;
    const char *b = getenv("BUILD");
    char p[512];
    snprintf(p, sizeof p, "%s/backends/minicpu.so", b && *b ? b : "build");
    conf_run_options o;
    opts_for(&o, p, PLUMB_OP_ADD);
    o.ops_given[PLUMB_OP_SQRT] = true;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_true(run.ok);
    const conf_op_summary *add = &run.ops[PLUMB_OP_ADD], *sq = &run.ops[PLUMB_OP_SQRT];
    assert_int_equal(add->claimed, PLUMB_TY_BIT(PLUMB_F32));
    assert_true(add->passed > 0 && add->skipped > 0);
    assert_int_equal(add->passed + add->skipped, conf_manifest_count(PLUMB_OP_ADD, CONF_SUITE_QUICK));
    assert_int_equal(sq->claimed, 0);
    assert_int_equal(sq->cases, 0);
    assert_int_equal(sq->skipped, conf_manifest_count(PLUMB_OP_SQRT, CONF_SUITE_QUICK));
    assert_int_equal(run.skipped, add->skipped + sq->skipped);
    plumb_buf t;
    plumb_buf_init(&t);
    conf_report_last_line(&t, &run);
    char want[128];
    snprintf(want, sizeof want, "certify: %u passed, 0 failed, %u skipped", add->passed, add->skipped + sq->skipped);
    assert_string_equal(t.data, want);
    plumb_buf_free(&t);
    conf_run_free(&run);
}

/* The reference certifies against itself, and the digest is the same for
 * the same seed and differs for another. */
static void test_ref_certifies_deterministically(void **state)
{
    (void)state;
    conf_run_options o;
    opts_for(&o, "ref", PLUMB_OP_REDUCE);
    o.ops_given[PLUMB_OP_COSINE] = true;
    conf_run a;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &a, &d));
    assert_true(a.ok);
    conf_run b;
    assert_true(conf_run_certify(&o, &b, &d));
    assert_memory_equal(a.digest, b.digest, sizeof a.digest);
    o.seed = 2;
    conf_run c;
    assert_true(conf_run_certify(&o, &c, &d));
    assert_memory_not_equal(a.digest, c.digest, sizeof a.digest);
    conf_run_free(&a);
    conf_run_free(&b);
    conf_run_free(&c);
}

/* A backend that writes into its input after executing: conf_run_case fails
 * the case naming input 0 and the element it changed (the last one: the
 * fault flips the lowest bit of the buffer's last byte), and the case's own
 * input memory - what the reference checks with - is untouched. */
static void test_input_written_named(void **state)
{
    (void)state;
    char p[512];
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open(plugin_path("fault_writes_input", p, sizeof p), NULL, 0, &b, &d));
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    int64_t n = 4;
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, &n, 0, &d), *y = plumb_tensor_new(PLUMB_F32, 1, &n, 0, &d);
    assert_non_null(x);
    assert_non_null(y);
    const float xv[4] = {1.0f, 2.0f, 3.0f, 4.0f}, yv[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    memcpy(x->data, xv, sizeof xv);
    memcpy(y->data, yv, sizeof yv);
    plumb_tensor *in[2] = {x, y};
    conf_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "multiply/f32/test/0");
    c.op = PLUMB_OP_MULTIPLY;
    c.dtype = PLUMB_F32;
    c.shape_class = "test";
    c.value_class = "test";
    c.program = "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %0 = stablehlo.multiply %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    c.inputs = in;
    c.n_inputs = 2;
    conf_case_verdict v;
    conf_run_case(&b, &c, NULL, NULL, &v);
    assert_int_equal(v.status, CONF_ST_FAIL);
    /* 4.0f is 0x40800000; its last byte (0x40) becomes 0x41: 0x41800000 = 16. */
    assert_non_null(strstr(v.reason, "modified input 0"));
    assert_non_null(strstr(v.reason, "element [3] was 0x40800000 (4), now 0x41800000 (16)"));
    assert_memory_equal(x->data, xv, sizeof xv);
    assert_memory_equal(y->data, yv, sizeof yv);
    plumb_tensor_free(x);
    plumb_tensor_free(y);
    conf_backend_close(&b);
}

/* A backend that declares determinism but flips a bit on every other
 * multiply: each case's second run differs from its first, so every
 * multiply case with a non-empty result fails as not deterministic (and
 * none for another reason: the first run is the right one). */
static void test_nondeterminism_caught(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("fault_nondeterministic", p, sizeof p), PLUMB_OP_MULTIPLY);
    o.repro_dir = NULL;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_false(run.ok);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < run.n_cases; i++) {
        if (run.cases[i].status == CONF_ST_PASS)
            continue;
        assert_int_equal(run.cases[i].status, CONF_ST_FAIL);
        assert_true(strncmp(run.cases[i].reason, "not deterministic: output 0 element ", 36) == 0);
        nd++;
    }
    assert_true(nd > 100);
    assert_int_equal(nd, run.ops[PLUMB_OP_MULTIPLY].failed);
    conf_run_free(&run);
}

/* The cache suite on the reference (which counts a compile per distinct
 * program text): every scenario runs, passes, with exactly the number of
 * distinct programs of its steps (counted by hand from cache_suite.c's
 * tables) built, and more than 100 compile calls in all. */
static void test_cache_suite_exact(void **state)
{
    (void)state;
    conf_run_options o;
    opts_for(&o, "ref", PLUMB_OP_ADD);
    o.ops_given[PLUMB_OP_SUBTRACT] = o.ops_given[PLUMB_OP_MULTIPLY] = o.ops_given[PLUMB_OP_MAXIMUM] = true;
    o.cache_suite = true;
    o.limit = 1;
    o.repro_dir = NULL;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    static const struct { const char *name; uint64_t compiles, calls; } want[] = {
        {"new parameter values", 1, 32},       {"element type change", 2, 8},
        {"static shape change", 4, 12},        {"op change", 4, 12},
        {"return to earlier programs", 7, 24}, {"constant value (vector)", 6, 10},
        {"constant value (scalar)", 6, 10},    {"constant value (one element)", 6, 10},
        /* the reference claims unbounded polymorphism: one parse serves the
         * 24 runs at 20 sizes within the bound 64 and the 10 runs at 8
         * sizes (up to 1000) of the unbounded program */
        {"polymorphic dimension", 1, 24},      {"unbounded polymorphic dim", 1, 10},
    };
    assert_int_equal(run.n_cache, 10);
    uint64_t calls = 0;
    for (uint32_t i = 0; i < 10; i++) {
        assert_string_equal(run.cache[i].name, want[i].name);
        if (!run.cache[i].pass) fprintf(stderr, "%s: %s\n", run.cache[i].name, run.cache[i].reason);
        assert_true(run.cache[i].pass);
        assert_int_equal(run.cache[i].compiles, want[i].compiles);
        assert_int_equal(run.cache[i].expected_min, want[i].compiles);
        assert_int_equal(run.cache[i].expected_max, want[i].compiles);
        assert_int_equal(run.cache[i].calls, want[i].calls);
        calls += run.cache[i].calls;
    }
    assert_int_equal(run.cache[8].runs, 24);
    assert_int_equal(run.cache[8].distinct, 20);
    assert_int_equal(run.cache[9].distinct, 8);
    assert_non_null(strstr(run.cache[8].note, "unbounded: one compile for 24 runs at 20 sizes within the bound 64"));
    assert_true(calls >= 100);
    conf_run_free(&run);
}

static const conf_cache_scenario *scenario(const conf_run *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_cache; i++)
        if (strcmp(r->cache[i].name, name) == 0)
            return &r->cache[i];
    return NULL;
}

/* Caches that get it wrong fail the scenario made for them: one keyed on
 * input values builds once per call (32 distinct input sets, one program);
 * one that ignores constants' values serves 1.5's executable for -2.25; a
 * two-entry cache with a stale index serves 300's for 100 on the fifth
 * step (order 0 1 2 3 0: program 0's slot went to program 2). */
static void test_cache_faults(void **state)
{
    (void)state;
    char p[512];
    static const struct { const char *plugin, *scenario, *reason; } cases[] = {
        {"fault_cache_params", "new parameter values", "32 compiles for 32 compile calls"},
        {"fault_cache_stale_const", "constant value (scalar)", "got 0x3fc00000 (1.5), want 0xc0100000 (-2.25)"},
        {"fault_cache_evict", "return to earlier programs", "step 4, stablehlo.add (fail)"},
        /* claims bounded, builds per size at execute (20 distinct sizes) */
        {"fault_poly_per_size", "polymorphic dimension",
         "20 compiles for 24 runs of one program at 20 distinct sizes, expected exactly 1 (claims bounded: it "
         "recompiled for new sizes)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        conf_run_options o;
        opts_for(&o, plugin_path(cases[k].plugin, p, sizeof p), PLUMB_OP_ADD);
        o.cache_suite = true;
        o.limit = 1;
        o.repro_dir = NULL;
        conf_run run;
        plumb_diag d;
        plumb_diag_clear(&d);
        assert_true(conf_run_certify(&o, &run, &d));
        const conf_cache_scenario *s = scenario(&run, cases[k].scenario);
        assert_non_null(s);
        assert_false(s->pass);
        if (!strstr(s->reason, cases[k].reason))
            fail_msg("%s: %s: '%s' lacks '%s'", cases[k].plugin, s->name, s->reason, cases[k].reason);
        assert_false(run.ok);
        conf_run_free(&run);
    }
}

/* The same per-size backend claiming what it does (per-shape) passes the
 * polymorphic scenario with its 20 builds (1 to 20 allowed: a size seen
 * before must not build again), and the report says what was certified. */
static void test_cache_poly_per_shape(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("fault_poly_per_size", p, sizeof p), PLUMB_OP_ADD);
    o.cache_suite = true;
    o.limit = 1;
    o.repro_dir = NULL;
    setenv("PLUMB_FAULT_POLY_CLAIM", "per-shape", 1);
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = conf_run_certify(&o, &run, &d);
    unsetenv("PLUMB_FAULT_POLY_CLAIM");
    assert_true(ok);
    assert_int_equal(run.backend.caps.poly, PLUMB_BACKEND_POLY_PER_SHAPE);
    const conf_cache_scenario *s = scenario(&run, "polymorphic dimension");
    assert_non_null(s);
    if (!s->pass) fprintf(stderr, "%s\n", s->reason);
    assert_true(s->pass);
    assert_int_equal(s->compiles, 20);
    assert_int_equal(s->expected_min, 1);
    assert_int_equal(s->expected_max, 20);
    assert_non_null(strstr(s->note, "per-shape: at most one compile per distinct size (20 sizes, 24 runs)"));
    /* the unbounded scenario is for backends that claim it */
    assert_null(scenario(&run, "unbounded polymorphic dim"));
    conf_run_free(&run);
    /* ... and running size 65 against the bound 64 instead of refusing it
     * fails the scenario once its count is right (its output, 65 rows
     * where the program declares at most 64, is refused too) */
    setenv("PLUMB_FAULT_POLY_CLAIM", "per-shape", 1);
    setenv("PLUMB_FAULT_POLY_NO_BOUND", "1", 1);
    plumb_diag_clear(&d);
    ok = conf_run_certify(&o, &run, &d);
    unsetenv("PLUMB_FAULT_POLY_CLAIM");
    unsetenv("PLUMB_FAULT_POLY_NO_BOUND");
    assert_true(ok);
    s = scenario(&run, "polymorphic dimension");
    assert_non_null(s);
    assert_false(s->pass);
    assert_int_equal(s->compiles, 20);
    if (!strstr(s->reason, "size 65 above the bound 64: expected execute to fail with INVALID_ARGUMENT, got: "))
        fail_msg("%s", s->reason);
    assert_false(run.ok);
    conf_run_free(&run);
}

/* The same backend claiming no polymorphism is given the static programs
 * plumb_ref_refine makes for each size and must build each once: exactly
 * 20 for the 20 sizes; the report says it was certified on refined
 * programs, and its polymorphic conformance cases are unsupported. */
static void test_cache_poly_refined(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("fault_poly_per_size", p, sizeof p), PLUMB_OP_ADD);
    o.cache_suite = true;
    o.repro_dir = NULL;
    setenv("PLUMB_FAULT_POLY_CLAIM", "none", 1);
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = conf_run_certify(&o, &run, &d);
    unsetenv("PLUMB_FAULT_POLY_CLAIM");
    assert_true(ok);
    assert_int_equal(run.backend.caps.poly, PLUMB_BACKEND_POLY_NONE);
    const conf_cache_scenario *s = scenario(&run, "polymorphic dimension");
    assert_non_null(s);
    if (!s->pass) fprintf(stderr, "%s\n", s->reason);
    assert_true(s->pass);
    assert_int_equal(s->compiles, 20);
    assert_int_equal(s->expected_min, 20);
    assert_int_equal(s->expected_max, 20);
    assert_non_null(strstr(s->note, "certified on refined (static) programs"));
    /* add's 4 sizes x 13 types of the dyn family: unsupported, not run */
    assert_int_equal(run.skipped_poly, 52);
    assert_int_equal(run.ops[PLUMB_OP_ADD].skipped, 52);
    assert_true(run.ok);
    plumb_buf b;
    plumb_buf_init(&b);
    conf_report_text(&b, &run);
    assert_non_null(strstr(b.data, "polymorphism  none: certified on refined (static) programs; 52 polymorphic cases"));
    plumb_buf_free(&b);
    /* per op in JSON and JUnit, told apart from unclaimed element types */
    assert_int_equal(run.ops[PLUMB_OP_ADD].skipped_poly, 52);
    plumb_buf_init(&b);
    conf_report_json(&b, &run);
    assert_non_null(strstr(b.data, "\"unsupported\": 52, \"unsupported_polymorphic\": 52,"));
    assert_non_null(strstr(b.data, "\"skipped_polymorphic\": 52,"));
    plumb_buf_free(&b);
    plumb_buf_init(&b);
    conf_report_junit(&b, &run);
    assert_non_null(strstr(b.data, "name=\"polymorphic cases\" time=\"0\"><skipped message=\"52 polymorphic cases (the "
                                   "backend claims polymorphic shapes none)\""));
    plumb_buf_free(&b);
    conf_run_free(&run);
}

/* The runtime certifies polymorphism: it claims unbounded, its add cases
 * at the sizes 0, 1, 7 and 16 (52, all 13 types) run and pass, and one
 * build serves the 24 runs at 20 sizes within the bound 64 and the 10 runs
 * up to size 1000 of the unbounded program. */
static void test_runtime_poly_certified(void **state)
{
    (void)state;
    conf_run_options o;
    opts_for(&o, "runtime", PLUMB_OP_ADD);
    o.cache_suite = true;
    o.repro_dir = NULL;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_int_equal(run.backend.caps.poly, PLUMB_BACKEND_POLY_UNBOUNDED);
    assert_true(run.ok);
    assert_int_equal(run.skipped_poly, 0);
    uint32_t dyn = 0;
    for (uint32_t i = 0; i < run.n_cases; i++)
        if (strstr(run.cases[i].id, "/dyn_")) {
            assert_int_equal(run.cases[i].status, CONF_ST_PASS);
            dyn++;
        }
    assert_int_equal(dyn, 52);
    static const char *const names[2] = {"polymorphic dimension", "unbounded polymorphic dim"};
    for (int k = 0; k < 2; k++) {
        const conf_cache_scenario *s = scenario(&run, names[k]);
        assert_non_null(s);
        if (!s->pass) fprintf(stderr, "%s: %s\n", s->name, s->reason);
        assert_true(s->pass);
        assert_int_equal(s->compiles, 1);
        assert_int_equal(s->calls, k ? 10 : 24);
    }
    conf_run_free(&run);
}

/* Counts the cases whose reason contains what. */
static uint32_t count_reason(const conf_run *r, const char *what)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_cases; i++)
        n += strstr(r->cases[i].reason, what) != NULL;
    return n;
}

/* A backend whose first execution on a new instance differs: runs in one
 * warm instance agree, so only the rerun on a fresh instance in a separate
 * process (one case in 16, the plain build's default) names it, for sampled
 * cases past each worker's first. */
static void test_fresh_instance_rerun(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("fault_fresh_instance", p, sizeof p), PLUMB_OP_MULTIPLY);
    o.repro_dir = NULL;
    o.few_forks = false;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_false(run.ok);
    assert_true(count_reason(&run, "not deterministic: a fresh instance in a separate process") >= 2);
    conf_run_free(&run);
}

/* The same backend with few_forks (the sanitized builds' default): batches
 * of up to 64 cases mixing multiply's element types, each one's last case
 * rerun in a fresh process. By hand: with B = ceil(n / 64) batches of n
 * cases, each batch's first case fails (the worker's new instance flips a
 * bit of its first run, which the checker or the repeat sees) and its last
 * case fails in the fresh-instance rerun, and no other case fails: 2B
 * failures, B of them from the rerun (one less each when the last batch
 * has a single case, n mod 64 = 1: its first case is its last), with B
 * below the number of element types run (batches of one type each would
 * need at least one batch per type). */
static void test_fresh_instance_rerun_few_forks(void **state)
{
    (void)state;
    char p[512];
    conf_run_options o;
    opts_for(&o, plugin_path("fault_fresh_instance", p, sizeof p), PLUMB_OP_MULTIPLY);
    o.repro_dir = NULL;
    o.few_forks = true;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_false(run.ok);
    uint32_t n = run.n_cases;
    assert_true(n > 64);
    uint32_t batches = (n + 63) / 64, single = n % 64 == 1;
    assert_int_equal(count_reason(&run, "not deterministic: a fresh instance in a separate process"),
                     batches - single);
    assert_int_equal(run.failed, 2 * batches - single);
    assert_int_equal(run.passed, n - (2 * batches - single));
    /* the element types run: the second field of the ids "multiply/TYPE/..." */
    char types[64][48];
    uint32_t n_types = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *t = strchr(run.cases[i].id, '/');
        assert_non_null(t);
        t++;
        size_t len = strcspn(t, "/");
        assert_true(len < sizeof types[0]);
        uint32_t k = 0;
        while (k < n_types && !(strlen(types[k]) == len && memcmp(types[k], t, len) == 0))
            k++;
        if (k == n_types) {
            assert_true(n_types < 64);
            memcpy(types[n_types], t, len);
            types[n_types++][len] = 0;
        }
    }
    assert_true(batches < n_types);
    conf_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_isolated),
        cmocka_unit_test(test_hang_times_out),
        cmocka_unit_test(test_shards_partition),
        cmocka_unit_test(test_manifest_shortfall_fails),
        cmocka_unit_test(test_unclaimed_reported),
        cmocka_unit_test(test_ref_certifies_deterministically),
        cmocka_unit_test(test_input_written_named),
        cmocka_unit_test(test_nondeterminism_caught),
        cmocka_unit_test(test_cache_suite_exact),
        cmocka_unit_test(test_cache_faults),
        cmocka_unit_test(test_cache_poly_per_shape),
        cmocka_unit_test(test_cache_poly_refined),
        cmocka_unit_test(test_runtime_poly_certified),
        cmocka_unit_test(test_fresh_instance_rerun),
        cmocka_unit_test(test_fresh_instance_rerun_few_forks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
