/* The runtime's canonicalization policies (runtime/policy.c,
 * docs/policies.md): lift turns scalar and splat constants into hidden
 * parameters before the key, so a baked value stops making programs, and
 * every result stays the bits the program gives without the policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../fuzz/fuzz.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"

static plumb_runtime *make_rt(const char *policy)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.policy = policy ? policy : "none";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

static ir_module *parse(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "test.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d))
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    return m;
}

static uint64_t compiles(const plumb_runtime *rt)
{
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st.compiles;
}

/* Runs src (one output) on rt with inputs in and returns the output. */
static plumb_tensor *run1(plumb_runtime *rt, const char *src, plumb_tensor *const *in, uint32_t n)
{
    ir_module *m = parse(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *out = NULL;
    bool ok = plumb_runtime_run(rt, m, NULL, in, n, &out, 1, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    ir_module_free(m);
    return out;
}

static plumb_tensor *f32_vec(uint32_t n, float v0, float step)
{
    int64_t dims[1] = {n};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 1, dims, 0, NULL);
    assert_non_null(t);
    for (uint32_t i = 0; i < n; i++)
        ((float *)t->data)[i] = v0 + step * (float)i;
    return t;
}

static const char lr_fmt[] =
    "func.func @main(%%w: tensor<16xf32>, %%g: tensor<16xf32>) -> tensor<16xf32> {\n"
    "  %%lr = stablehlo.constant dense<%s> : tensor<f32> loc(\"train.py\":41:10)\n"
    "  %%lr16 = stablehlo.broadcast_in_dim %%lr, dims = [] : (tensor<f32>) -> tensor<16xf32>\n"
    "  %%step = stablehlo.multiply %%g, %%lr16 : tensor<16xf32>\n"
    "  %%nw = stablehlo.subtract %%w, %%step : tensor<16xf32>\n"
    "  return %%nw : tensor<16xf32>\n"
    "}\n";

/* The baked-learning-rate leak: 20 steps with lr = 0.001 ... 0.020 compile
 * 20 programs without a policy and 1 with lift, and every step's result is
 * the same bits either way. */
static void lift_closes_baked_lr_bitwise(void **state)
{
    (void)state;
    plumb_runtime *off = make_rt(NULL), *on = make_rt("lift");
    plumb_tensor *in[2] = {f32_vec(16, 1.0f, 0.37f), f32_vec(16, -3.0f, 0.81f)};
    for (int s = 1; s <= 20; s++) {
        char lr[32], src[1024];
        snprintf(lr, sizeof lr, "%.3f", s / 1000.0);
        snprintf(src, sizeof src, lr_fmt, lr);
        plumb_tensor *a = run1(off, src, in, 2), *b = run1(on, src, in, 2);
        assert_true(plumb_tensor_equal(a, b));
        plumb_tensor_free(a);
        plumb_tensor_free(b);
    }
    assert_int_equal(compiles(off), 20);
    assert_int_equal(compiles(on), 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_runtime_destroy(off);
    plumb_runtime_destroy(on);
}

/* A hand-checked value: w = 1, g = 2, lr = 0.25 gives 1 - 0.5 = 0.5 exactly
 * through the lifted parameter. */
static void lift_hand_value(void **state)
{
    (void)state;
    plumb_runtime *on = make_rt("lift");
    plumb_tensor *in[2] = {f32_vec(16, 1.0f, 0.0f), f32_vec(16, 2.0f, 0.0f)};
    char src[1024];
    snprintf(src, sizeof src, lr_fmt, "0.25");
    plumb_tensor *out = run1(on, src, in, 2);
    for (int i = 0; i < 16; i++)
        assert_true(((float *)out->data)[i] == 0.5f);
    plumb_tensor_free(out);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_runtime_destroy(on);
}

/* The leak under lift and the hand-written fix (lr a parameter) are one
 * program: the fix after the lifted leak is a cache hit. */
static void lifted_leak_shares_fix_program(void **state)
{
    (void)state;
    plumb_runtime *on = make_rt("lift");
    plumb_tensor *w = f32_vec(16, 1.0f, 0.5f), *g = f32_vec(16, 2.0f, 0.25f);
    int64_t none[1] = {0};
    plumb_tensor *lr = plumb_tensor_new(PLUMB_F32, 0, none, 0, NULL);
    *(float *)lr->data = 0.125f;
    char src[1024];
    snprintf(src, sizeof src, lr_fmt, "0.125");
    plumb_tensor *in2[2] = {w, g}, *in3[3] = {w, g, lr};
    plumb_tensor *a = run1(on, src, in2, 2);
    plumb_tensor *b = run1(on,
                           "func.func @main(%w: tensor<16xf32>, %g: tensor<16xf32>, %lr: tensor<f32>) -> tensor<16xf32> {\n"
                           "  %lr16 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<16xf32>\n"
                           "  %step = stablehlo.multiply %g, %lr16 : tensor<16xf32>\n"
                           "  %nw = stablehlo.subtract %w, %step : tensor<16xf32>\n"
                           "  return %nw : tensor<16xf32>\n"
                           "}\n",
                           in3, 3);
    assert_true(plumb_tensor_equal(a, b));
    assert_int_equal(compiles(on), 1);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(w);
    plumb_tensor_free(g);
    plumb_tensor_free(lr);
    plumb_runtime_destroy(on);
}

static const char counter_fmt[] =
    "func.func @main(%%dropped: tensor<64xi32>) -> tensor<i32> {\n"
    "  %%zero = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %%n = stablehlo.reduce(%%dropped init: %%zero) applies stablehlo.add across dimensions = [0] : "
    "(tensor<64xi32>, tensor<i32>) -> tensor<i32>\n"
    "  %%total = stablehlo.constant dense<%d> : tensor<i32>\n"
    "  %%new = stablehlo.add %%total, %%n : tensor<i32>\n"
    "  return %%new : tensor<i32>\n"
    "}\n";

/* lift leaves integers alone (they may be sizes or indices elsewhere);
 * lift-int lifts the overflow counter (an add operand) but not the
 * reduce's init: 8 totals are 8 programs under lift and 1 under lift-int,
 * each total + sum(0..63) = total + 2016. */
static void lift_int_counter(void **state)
{
    (void)state;
    plumb_runtime *f = make_rt("lift"), *i = make_rt("lift,lift-int");
    int64_t dims[1] = {64};
    plumb_tensor *in = plumb_tensor_new(PLUMB_I32, 1, dims, 0, NULL);
    for (int k = 0; k < 64; k++)
        ((int32_t *)in->data)[k] = k;
    static const int totals[8] = {0, 5, 9, 14, 20, 27, 31, 40};
    for (int s = 0; s < 8; s++) {
        char src[1024];
        snprintf(src, sizeof src, counter_fmt, totals[s]);
        plumb_tensor *a = run1(f, src, &in, 1), *b = run1(i, src, &in, 1);
        assert_int_equal(*(int32_t *)a->data, totals[s] + 2016);
        assert_int_equal(*(int32_t *)b->data, totals[s] + 2016);
        plumb_tensor_free(a);
        plumb_tensor_free(b);
    }
    assert_int_equal(compiles(f), 8);
    assert_int_equal(compiles(i), 1);
    plumb_tensor_free(in);
    plumb_runtime_destroy(f);
    plumb_runtime_destroy(i);
}

/* What lift must not touch: an index of dynamic_slice, a reduce's init, a
 * constant only folded through an inexact op (exp of a constant: the
 * reference folds it correctly rounded, the runtime's exp may differ by an
 * ulp). Each of these programs, with two values of its constant, compiles
 * twice under lift,lift-int. */
static void lift_leaves_unsafe_constants(void **state)
{
    (void)state;
    static const char *const fmts[] = {
        "func.func @main(%%x: tensor<8xf32>) -> tensor<2xf32> {\n"
        "  %%i = stablehlo.constant dense<%d> : tensor<i32>\n"
        "  %%r = stablehlo.dynamic_slice %%x, %%i, sizes = [2] : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>\n"
        "  return %%r : tensor<2xf32>\n"
        "}\n",
        "func.func @main(%%x: tensor<8xf32>) -> tensor<f32> {\n"
        "  %%z = stablehlo.constant dense<%d.0> : tensor<f32>\n"
        "  %%r = stablehlo.reduce(%%x init: %%z) applies stablehlo.add across dimensions = [0] : "
        "(tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
        "  return %%r : tensor<f32>\n"
        "}\n",
        "func.func @main(%%x: tensor<8xf32>) -> tensor<8xf32> {\n"
        "  %%c = stablehlo.constant dense<%d.5> : tensor<f32>\n"
        "  %%e = stablehlo.exponential %%c : tensor<f32>\n"
        "  %%b = stablehlo.broadcast_in_dim %%e, dims = [] : (tensor<f32>) -> tensor<8xf32>\n"
        "  %%r = stablehlo.multiply %%x, %%b : tensor<8xf32>\n"
        "  return %%r : tensor<8xf32>\n"
        "}\n",
    };
    plumb_tensor *x = f32_vec(8, 0.5f, 1.25f);
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        plumb_runtime *rt = make_rt("lift,lift-int");
        for (int v = 1; v <= 2; v++) {
            char src[1024];
            snprintf(src, sizeof src, fmts[k], v);
            plumb_tensor *o = run1(rt, src, &x, 1);
            plumb_tensor_free(o);
        }
        if (compiles(rt) != 2)
            fprintf(stderr, "program %zu: %llu compiles\n", k, (unsigned long long)compiles(rt));
        assert_int_equal(compiles(rt), 2);
        plumb_runtime_destroy(rt);
    }
    plumb_tensor_free(x);
}

/* An entry that another function also calls keeps its constants (new
 * parameters would break the call): two values, two programs, and the
 * module still compiles and gives x * 3 through the call. */
static void lift_skips_called_entry(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt("lift");
    plumb_tensor *x = f32_vec(4, 1.0f, 1.0f);
    for (int v = 2; v <= 3; v++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %%c = stablehlo.constant dense<%d.0> : tensor<4xf32>\n"
                 "  %%r = stablehlo.multiply %%x, %%c : tensor<4xf32>\n"
                 "  return %%r : tensor<4xf32>\n"
                 "}\n"
                 "func.func @outer(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %%r = func.call @main(%%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                 "  return %%r : tensor<4xf32>\n"
                 "}\n",
                 v);
        plumb_tensor *o = run1(rt, src, &x, 1);
        assert_true(((float *)o->data)[3] == 4.0f * (float)v);
        plumb_tensor_free(o);
    }
    assert_int_equal(compiles(rt), 2);
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
}

/* A splat of rank 1 is lifted as its scalar (broadcast back): three
 * values, one program, and x * 0.5 (etc.) exactly. */
static void lift_splat_tensor(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt("lift");
    plumb_tensor *x = f32_vec(16, -4.0f, 0.5f);
    static const char *const vals[3] = {"0.5", "0.25", "-2.0"};
    static const float fv[3] = {0.5f, 0.25f, -2.0f};
    for (int k = 0; k < 3; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: tensor<16xf32>) -> tensor<16xf32> {\n"
                 "  %%s = stablehlo.constant dense<%s> : tensor<16xf32>\n"
                 "  %%r = stablehlo.multiply %%x, %%s : tensor<16xf32>\n"
                 "  return %%r : tensor<16xf32>\n"
                 "}\n",
                 vals[k]);
        plumb_tensor *o = run1(rt, src, &x, 1);
        for (int i = 0; i < 16; i++)   /* a power of two times x: exact */
            assert_true(((float *)o->data)[i] == (-4.0f + 0.5f * (float)i) * fv[k]);
        plumb_tensor_free(o);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
}

/* A recompile of a lifted program names the hidden parameter as lifted
 * by policy: a second baked scale adds a hidden parameter. */
static void explanation_says_lifted(void **state)
{
    (void)state;
    plumb_runtime *rt = make_rt("lift");
    plumb_tensor *x = f32_vec(4, 1.0f, 1.0f);
    plumb_tensor *o = run1(rt,
                           "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                           "  %a = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
                           "  %r = stablehlo.multiply %x, %a : tensor<4xf32>\n"
                           "  return %r : tensor<4xf32>\n"
                           "}\n",
                           &x, 1);
    plumb_tensor_free(o);
    o = run1(rt,
             "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
             "  %a = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
             "  %r = stablehlo.multiply %x, %a : tensor<4xf32>\n"
             "  %scale = stablehlo.constant dense<3.0> : tensor<4xf32>\n"
             "  %r2 = stablehlo.add %r, %scale : tensor<4xf32>\n"
             "  return %r2 : tensor<4xf32>\n"
             "}\n",
             &x, 1);
    assert_true(((float *)o->data)[0] == 5.0f && ((float *)o->data)[3] == 11.0f);
    plumb_tensor_free(o);
    const char *why = plumb_runtime_last_explanation(rt);
    assert_non_null(why);
    if (!strstr(why, "scale (lifted by policy)"))
        fprintf(stderr, "explanation: %s\n", why);
    assert_non_null(strstr(why, "scale (lifted by policy)"));
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
}

/* The lifted program goes through the disk cache like any other: a second
 * runtime on the same directory serves it from disk (a disk hit, no
 * build) and binds this run's value: lr = 0.75 gives 1 - 2 * 0.75 = -0.5. */
static void lift_disk_cache_warm_start(void **state)
{
    (void)state;
    char dir[] = "/tmp/plumb-policy-cache.XXXXXX";
    assert_non_null(mkdtemp(dir));
    plumb_tensor *in[2] = {f32_vec(16, 1.0f, 0.0f), f32_vec(16, 2.0f, 0.0f)};
    for (int pass = 0; pass < 2; pass++) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 1;
        o.policy = "lift";
        o.cache_dir = dir;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        assert_non_null(rt);
        char src[1024];
        snprintf(src, sizeof src, lr_fmt, pass ? "0.75" : "0.25");
        plumb_tensor *out = run1(rt, src, in, 2);
        assert_true(((float *)out->data)[7] == (pass ? -0.5f : 0.5f));
        plumb_tensor_free(out);
        plumb_runtime_stats st;
        assert_true(plumb_runtime_stats_get(rt, NULL, &st));
        assert_int_equal(st.disk_hits, pass ? 1 : 0);
        assert_int_equal(st.compiles, 1);
        plumb_runtime_destroy(rt);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Bad policy words fail runtime creation naming the word, from the options
 * and from PLUMB_POLICY; the environment applies when the option is NULL. */
static void policy_words(void **state)
{
    (void)state;
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.policy = "lift,bucket";
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_null(plumb_runtime_create(&o, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "'bucket'"));
    o.policy = NULL;
    setenv("PLUMB_POLICY", "lfit", 1);
    memset(&d, 0, sizeof d);
    assert_null(plumb_runtime_create(&o, &d));
    assert_non_null(strstr(d.msg, "PLUMB_POLICY"));
    setenv("PLUMB_POLICY", "lift", 1);
    o.threads = 1;
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    unsetenv("PLUMB_POLICY");
    plumb_tensor *in[2] = {f32_vec(16, 1.0f, 0.0f), f32_vec(16, 2.0f, 0.0f)};
    for (int s = 1; s <= 3; s++) {
        char lr[16], src[1024];
        snprintf(lr, sizeof lr, "0.%d", s);
        snprintf(src, sizeof src, lr_fmt, lr);
        plumb_tensor_free(run1(rt, src, in, 2));
    }
    assert_int_equal(compiles(rt), 1);
    /* A lifted executable still takes the caller's 2 inputs, not 3. */
    char src[1024];
    snprintf(src, sizeof src, lr_fmt, "0.5");
    ir_module *m = parse(src);
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    assert_non_null(ex);
    plumb_tensor *out = NULL;
    plumb_tensor *in3[3] = {in[0], in[1], in[1]};
    memset(&d, 0, sizeof d);
    assert_false(plumb_executable_run(ex, in3, 3, &out, 1, NULL, &d));
    assert_non_null(strstr(d.msg, "takes 2 inputs, 3 given"));
    ir_module_free(m);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_runtime_destroy(rt);
}

/* Random programs from the fuzz generator, every non-index constant made a
 * splat so lift applies widely: under lift,lift-int each gives the bits it
 * gives without a policy (NaN payloads included), run on the same inputs. */
static void lift_random_programs_bitwise(void **state)
{
    (void)state;
    fz_gen_opts go;
    fz_gen_opts_init(&go);
    plumb_runtime *off = make_rt(NULL), *on = make_rt("lift,lift-int");
    uint32_t lifted_programs = 0, ran = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        fz_prog p;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        memset(&p, 0, sizeof p);
        assert_true(fz_generate(&go, seed, 0, &p, &d));
        for (uint32_t k = 0; k < p.n_nodes; k++) {
            fz_node *n = &p.n[k];
            if (n->kind != FZ_CONST || n->fixed || !n->value)
                continue;
            uint64_t b0 = plumb_load_bits(n->value->dtype, n->value->data, 0);
            for (uint64_t i = 1; i < plumb_tensor_numel(n->value); i++)
                plumb_store_bits(n->value->dtype, n->value->data, (size_t)i, b0);
        }
        assert_true(fz_fill_inputs(&p, seed * 7919, &d));
        plumb_buf b;
        plumb_buf_init(&b);
        assert_true(fz_prog_text(&p, &b));
        ir_module *m = ir_parse(b.data, b.len, "fuzz.mlir", NULL, &d);
        plumb_buf_free(&b);
        if (!m || !ir_verify(m, NULL, &d)) {
            ir_module_free(m);
            fz_prog_free(&p);
            continue;
        }
        plumb_tensor *oa[64] = {0}, *ob[64] = {0};
        uint32_t no = p.n_results;
        assert_true(no <= 64);
        uint64_t before = compiles(on);
        plumb_diag da, db;
        memset(&da, 0, sizeof da);
        memset(&db, 0, sizeof db);
        bool ka = plumb_runtime_run(off, m, NULL, p.inputs, p.n_params, oa, no, NULL, &da);
        bool kb = plumb_runtime_run(on, m, NULL, p.inputs, p.n_params, ob, no, NULL, &db);
        assert_int_equal(ka, kb);
        if (ka) {
            ran++;
            for (uint32_t i = 0; i < no; i++) {
                if (!plumb_tensor_equal(oa[i], ob[i]))
                    fprintf(stderr, "seed %llu result %u differs under lift\n", (unsigned long long)seed, i);
                assert_true(plumb_tensor_equal(oa[i], ob[i]));
            }
        }
        /* The lifted copy has hidden parameters: its key differs from the
         * plain program's exactly when something was lifted. */
        uint64_t k0[2], k1[2];
        assert_true(plumb_runtime_key(off, m, NULL, k0, &d));
        assert_true(plumb_runtime_key(on, m, NULL, k1, &d));
        if (compiles(on) > before && (k0[0] != k1[0] || k0[1] != k1[1]))
            lifted_programs++;
        for (uint32_t i = 0; i < no; i++) {
            plumb_tensor_free(oa[i]);
            plumb_tensor_free(ob[i]);
        }
        ir_module_free(m);
        fz_prog_free(&p);
    }
    fprintf(stderr, "lift: %u programs ran, %u had constants lifted\n", ran, lifted_programs);
    assert_true(ran >= 200);
    assert_true(lifted_programs >= 20);
    plumb_runtime_destroy(off);
    plumb_runtime_destroy(on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lift_closes_baked_lr_bitwise),
        cmocka_unit_test(lift_hand_value),
        cmocka_unit_test(lifted_leak_shares_fix_program),
        cmocka_unit_test(lift_int_counter),
        cmocka_unit_test(lift_leaves_unsafe_constants),
        cmocka_unit_test(lift_skips_called_entry),
        cmocka_unit_test(lift_splat_tensor),
        cmocka_unit_test(explanation_says_lifted),
        cmocka_unit_test(lift_disk_cache_warm_start),
        cmocka_unit_test(policy_words),
        cmocka_unit_test(lift_random_programs_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
