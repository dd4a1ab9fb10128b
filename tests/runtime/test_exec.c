/* Runtime execution: results against the reference, determinism across
 * thread counts, input checking, memory limits, allocation failures, planned
 * buffers kept between runs, results written into caller tensors, calls
 * inlined, check ops counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rta_test.h"

/* Sum over all elements and a row-wise max: reductions whose order matters. */
static const char reduce_src[] =
    "func.func @main(%x: tensor<256x1024xf32>) -> (tensor<f32>, tensor<256xf32>) {\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
    "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<256x1024xf32>, tensor<f32>) -> tensor<f32>\n"
    "  %r = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>\n"
    "  return %s, %r : tensor<f32>, tensor<256xf32>\n"
    "}\n";

/* The sum agrees with the reference within DESIGN.md's bound
 * gamma(n-1) * sum|x| + u * |exact| (the reference is correctly rounded, so
 * its value stands in for the exact one); the max is bit-exact. */
static void reduce_matches_reference(void **state)
{
    (void)state;
    ir_module *m = parse_ok(reduce_src);
    int64_t dims[2] = {256, 1024};
    plumb_tensor *x = tensor_f32(2, dims, NULL);
    fill_random(x->data, 256 * 1024, 7);
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(plumb_ref_run(m, NULL, &x, 1, NULL, &res, &d));
    plumb_runtime *rt = rt_new(2, 2, NULL);
    plumb_tensor *out[2];
    rt_run_ok(rt, m, &x, 1, out, 2);
    double abs_sum = 0;
    for (size_t i = 0; i < 256 * 1024; i++)
        abs_sum += fabs((double)((float *)x->data)[i]);
    double u = ldexp(1.0, -24), n = 256.0 * 1024.0;
    double gamma = (n - 1) * u / (1 - (n - 1) * u);
    double exact = ((float *)res.outputs[0]->data)[0];
    double got = ((float *)out[0]->data)[0];
    assert_true(fabs(got - exact) <= gamma * abs_sum + u * fabs(exact) + u * fabs(exact));
    assert_true(plumb_tensor_equal(out[1], res.outputs[1]));
    plumb_tensor_free(out[0]);
    plumb_tensor_free(out[1]);
    plumb_ref_result_free(&res);
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* One thread and two threads give the same bits, and so does a second run. */
static void threads_bitwise_identical(void **state)
{
    (void)state;
    ir_module *m = parse_ok(reduce_src);
    int64_t dims[2] = {256, 1024};
    plumb_tensor *x = tensor_f32(2, dims, NULL);
    fill_random(x->data, 256 * 1024, 11);
    plumb_runtime *r1 = rt_new(1, 2, NULL), *r2 = rt_new(2, 2, NULL);
    plumb_tensor *a[2], *b[2], *c[2];
    rt_run_ok(r1, m, &x, 1, a, 2);
    rt_run_ok(r2, m, &x, 1, b, 2);
    rt_run_ok(r2, m, &x, 1, c, 2);
    for (int i = 0; i < 2; i++) {
        assert_true(plumb_tensor_equal(a[i], b[i]));
        assert_true(plumb_tensor_equal(b[i], c[i]));
        plumb_tensor_free(a[i]);
        plumb_tensor_free(b[i]);
        plumb_tensor_free(c[i]);
    }
    /* the thread count is not in the key: both runtimes compute the same key */
    uint64_t k1[2], k2[2];
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(plumb_runtime_key(r1, m, NULL, k1, &d));
    assert_true(plumb_runtime_key(r2, m, NULL, k2, &d));
    assert_true(k1[0] == k2[0] && k1[1] == k2[1]);
    plumb_tensor_free(x);
    plumb_runtime_destroy(r1);
    plumb_runtime_destroy(r2);
    ir_module_free(m);
}

static const char movement_src[] =
    "func.func private @twice(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
    "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
    "  return %t : tensor<3x2xf32>\n"
    "}\n"
    "func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<3x2xf32>) {\n"
    "  %0 = func.call @twice(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
    "  %1 = stablehlo.reshape %0 : (tensor<3x2xf32>) -> tensor<6xf32>\n"
    "  %2 = stablehlo.reverse %x, dims = [1] : tensor<2x3xf32>\n"
    "  %3 = func.call @twice(%2) : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
    "  return %0, %1, %x, %3 : tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<3x2xf32>\n"
    "}\n";

/* Calls are inlined (a function called twice), a parameter returned as is
 * comes back as a copy, and the input is left untouched. */
static void calls_and_movement_match_reference(void **state)
{
    (void)state;
    ir_module *m = parse_ok(movement_src);
    int64_t dims[2] = {2, 3};
    float v[6] = {1, -2, 3.5f, -0.0f, 5, 6};
    plumb_tensor *x = tensor_f32(2, dims, v);
    plumb_runtime *rt = rt_new(2, 2, NULL);
    expect_same_as_ref(rt, m, &x, 1);
    assert_memory_equal(x->data, v, sizeof v);
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Wrong count, type, shape or a NULL input: a usage error before any work,
 * naming the input, and the run counter still counts the attempt. */
static void input_mismatch_is_a_clear_error(void **state)
{
    (void)state;
    ir_module *m = parse_ok(movement_src);
    plumb_runtime *rt = rt_new(1, 2, NULL);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    assert_non_null(ex);
    assert_int_equal(plumb_executable_num_outputs(ex), 4);
    plumb_tensor *out[4];
    int64_t good[2] = {2, 3}, bad[2] = {3, 2};
    plumb_tensor *x = tensor_f32(2, bad, NULL);
    assert_false(plumb_executable_run(ex, &x, 1, out, 4, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "input 0 has type tensor<3x2xf32> but parameter 0 of @main has type tensor<2x3xf32>"));
    plumb_tensor_free(x);

    plumb_diag_clear(&d);
    plumb_tensor *y = plumb_tensor_new(PLUMB_F64, 2, good, 0, &d);
    assert_false(plumb_executable_run(ex, &y, 1, out, 4, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "tensor<2x3xf64>"));
    plumb_tensor_free(y);

    plumb_diag_clear(&d);
    assert_false(plumb_executable_run(ex, NULL, 0, out, 4, NULL, &d));
    assert_non_null(strstr(d.msg, "takes 1 parameters but 0 inputs were given"));

    plumb_diag_clear(&d);
    plumb_tensor *none = NULL;
    assert_false(plumb_executable_run(ex, &none, 1, out, 4, NULL, &d));
    assert_non_null(strstr(d.msg, "input 0 of @main is missing"));

    plumb_diag_clear(&d);
    plumb_tensor *z = tensor_f32(2, good, NULL);
    assert_false(plumb_executable_run(ex, &z, 1, out, 3, NULL, &d));
    assert_non_null(strstr(d.msg, "returns 4 results"));
    plumb_tensor_free(z);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* A program whose values exceed max_bytes fails to compile with a limit
 * error naming the size, before anything is allocated. */
static void memory_limit_checked_at_compile(void **state)
{
    (void)state;
    ir_module *m = parse_ok(reduce_src);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.max_bytes = 4096;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_null(plumb_runtime_compile(rt, m, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 0);
    assert_int_equal(st.programs, 0);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* ---- allocator hooks ---------------------------------------------------------- */

static long alloc_countdown = -1;   /* fail when it reaches 0; -1 = never */
static long alloc_count;

static void *hook(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    alloc_count++;
    if (alloc_countdown >= 0 && alloc_countdown-- == 0)
        return NULL;
    return realloc(ptr, nsize);
}

/* Failing the n-th allocation, for every n, gives an error object (never a
 * crash or abort), and the runtime stays usable; the sanitizer build checks
 * nothing leaks. */
static void allocation_failure_is_an_error(void **state)
{
    (void)state;
    ir_module *m = parse_ok(movement_src);
    int64_t dims[2] = {2, 3};
    float v[6] = {1, 2, 3, 4, 5, 6};
    plumb_tensor *x = tensor_f32(2, dims, v);
    plumb_set_allocator(hook, NULL);
    bool succeeded = false;
    for (long n = 0; n < 5000 && !succeeded; n++) {
        alloc_countdown = -1;
        plumb_diag d = {.code = PLUMB_OK};
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 2;
        alloc_countdown = n;
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        if (!rt) {
            assert_int_equal(d.code, PLUMB_ERR_NOMEM);
            continue;
        }
        plumb_tensor *out[4] = {0};
        uint32_t failed = 0;
        bool ok = plumb_runtime_run(rt, m, NULL, &x, 1, out, 4, &failed, &d);
        alloc_countdown = -1;
        if (ok) {
            succeeded = true;
            for (int i = 0; i < 4; i++) {
                assert_non_null(out[i]);
                plumb_tensor_free(out[i]);
            }
        } else {
            assert_true(d.code == PLUMB_ERR_NOMEM || d.code == PLUMB_ERR_LIMIT);
            assert_true(d.msg[0] != 0);
            for (int i = 0; i < 4; i++)
                assert_null(out[i]);
        }
        plumb_runtime_destroy(rt);
    }
    plumb_set_allocator(NULL, NULL);
    assert_true(succeeded);
    assert_memory_equal(x->data, v, sizeof v);
    plumb_tensor_free(x);
    ir_module_free(m);
}

/* After the first run, a run allocates only its results (a tensor struct and
 * its data each): intermediates live in the planned buffers. */
static void planned_buffers_persist_between_runs(void **state)
{
    (void)state;
    ir_module *m = parse_ok(reduce_src);
    int64_t dims[2] = {256, 1024};
    plumb_tensor *x = tensor_f32(2, dims, NULL);
    fill_random(x->data, 256 * 1024, 3);
    plumb_runtime *rt = rt_new(2, 2, NULL);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    assert_non_null(ex);
    plumb_tensor *out[2];
    assert_true(plumb_executable_run(ex, &x, 1, out, 2, NULL, &d));
    plumb_tensor_free(out[0]);
    plumb_tensor_free(out[1]);
    plumb_set_allocator(hook, NULL);
    alloc_countdown = -1;
    alloc_count = 0;
    assert_true(plumb_executable_run(ex, &x, 1, out, 2, NULL, &d));
    long during = alloc_count;
    plumb_set_allocator(NULL, NULL);
    assert_true(during <= 4);
    plumb_tensor_free(out[0]);
    plumb_tensor_free(out[1]);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.runs, 2);
    assert_int_equal(st.compiles, 1);
    assert_true(st.execute_seconds > 0);
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Results of every origin: computed and also read by a later op (%a, %b),
 * a parameter returned as is (%y), a constant (%c), one value returned
 * twice (%b). */
static const char into_src[] =
    "func.func @main(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<64x256xf32>, tensor<2xi32>, tensor<64x256xf32>) {\n"
    "  %a = stablehlo.add %x, %y : tensor<64x256xf32>\n"
    "  %b = stablehlo.multiply %a, %x : tensor<64x256xf32>\n"
    "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
    "  %m = stablehlo.reduce(%b init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>\n"
    "  %c = stablehlo.constant dense<[3, 4]> : tensor<2xi32>\n"
    "  return %b, %y, %m, %a, %c, %b : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<64x256xf32>, tensor<2xi32>, tensor<64x256xf32>\n"
    "}\n";

static plumb_tensor *result_like(const plumb_tensor *t)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *r = plumb_tensor_new(t->dtype, t->rank, t->dims, 0, &d);
    assert_non_null(r);
    if (r->nbytes)
        memset(r->data, 0xA5, r->nbytes);   /* garbage the run must overwrite */
    return r;
}

/* run_into writes every kind of result into the caller's tensors, bit for
 * bit the reference's (exact ops), with and without fusion; after the first
 * run a run allocates nothing (intermediates stay in the planned buffers,
 * results go where the caller keeps them), new input values give new right
 * answers, and the inputs are never modified. */
static void run_into_reuses_buffers_and_matches_reference(void **state)
{
    (void)state;
    ir_module *m = parse_ok(into_src);
    int64_t dims[2] = {64, 256};
    const size_t n = 64 * 256;
    for (uint32_t opt = 1; opt <= 2; opt++) {
        plumb_runtime *rt = rt_new(2, opt, NULL);
        plumb_diag d = {.code = PLUMB_OK};
        plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
        assert_non_null(ex);
        assert_int_equal(plumb_executable_num_outputs(ex), 6);
        plumb_tensor *in[2] = {tensor_f32(2, dims, NULL), tensor_f32(2, dims, NULL)};
        plumb_tensor *out[6] = {0};
        for (int run = 0; run < 3; run++) {
            fill_random(in[0]->data, n, 100 + (uint32_t)run);
            fill_random(in[1]->data, n, 200 + (uint32_t)run);
            plumb_tensor *keep0 = plumb_tensor_clone(in[0], &d), *keep1 = plumb_tensor_clone(in[1], &d);
            assert_non_null(keep0);
            assert_non_null(keep1);
            plumb_ref_result res;
            assert_true(plumb_ref_run(m, NULL, in, 2, NULL, &res, &d));
            assert_int_equal(res.n_outputs, 6);
            if (run == 0)
                for (int i = 0; i < 6; i++)
                    out[i] = result_like(res.outputs[i]);
            else
                for (int i = 0; i < 6; i++)
                    memset(out[i]->data, 0xA5, out[i]->nbytes);
            if (run > 0) {
                plumb_set_allocator(hook, NULL);
                alloc_countdown = -1;
                alloc_count = 0;
            }
            uint32_t failed = 9;
            bool ok = plumb_executable_run_into(ex, in, 2, out, 6, &failed, &d);
            long during = alloc_count;
            plumb_set_allocator(NULL, NULL);
            if (!ok)
                plumb_diag_print(&d, stderr);
            assert_true(ok);
            assert_int_equal(failed, 0);
            if (run > 0)
                assert_int_equal(during, 0);
            for (int i = 0; i < 6; i++)
                assert_true(plumb_tensor_equal(out[i], res.outputs[i]));
            assert_true(plumb_tensor_equal(in[0], keep0));
            assert_true(plumb_tensor_equal(in[1], keep1));
            plumb_tensor_free(keep0);
            plumb_tensor_free(keep1);
            plumb_ref_result_free(&res);
        }
        /* the allocating call still gives the same results */
        plumb_tensor *fresh[6];
        assert_true(plumb_executable_run(ex, in, 2, fresh, 6, NULL, &d));
        for (int i = 0; i < 6; i++) {
            assert_true(plumb_tensor_equal(fresh[i], out[i]));
            plumb_tensor_free(fresh[i]);
            plumb_tensor_free(out[i]);
        }
        plumb_runtime_stats st;
        assert_true(plumb_runtime_stats_get(rt, "main", &st));
        assert_int_equal(st.runs, 4);
        assert_int_equal(st.compiles, 1);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        plumb_runtime_destroy(rt);
    }
    ir_module_free(m);
}

/* Outputs of the wrong number, type or size, missing, sharing memory with
 * an input or with each other are refused before any work, naming the
 * output; the inputs are untouched. */
static void run_into_rejects_bad_outputs(void **state)
{
    (void)state;
    ir_module *m = parse_ok(into_src);
    int64_t dims[2] = {64, 256};
    const size_t n = 64 * 256;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    assert_non_null(ex);
    plumb_tensor *in[2] = {tensor_f32(2, dims, NULL), tensor_f32(2, dims, NULL)};
    fill_random(in[0]->data, n, 5);
    fill_random(in[1]->data, n, 6);
    plumb_tensor *keep0 = plumb_tensor_clone(in[0], &d), *keep1 = plumb_tensor_clone(in[1], &d);
    plumb_ref_result res;
    assert_true(plumb_ref_run(m, NULL, in, 2, NULL, &res, &d));
    plumb_tensor *out[6];
    for (int i = 0; i < 6; i++)
        out[i] = result_like(res.outputs[i]);
    struct {
        int slot;              /* output replaced, -1 = count check */
        int kind;              /* 0 NULL, 1 f64, 2 wrong dims, 3 = in[0]'s data, 4 = inside in[1], 5 = out[0]'s data */
        const char *says;
    } cases[] = {
        {-1, 0, "room for 5"},
        {1, 0, "output 1 of @main is missing"},
        {2, 1, "output 2 is tensor<64xf64>"},
        {3, 2, "output 3 is tensor<256x64xf32>"},
        {0, 3, "output 0 of @main shares memory with input 0"},
        {5, 4, "output 5 of @main shares memory with input 1"},
        {3, 5, "outputs 0 and 3 of @main share memory"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memset(&d, 0, sizeof d);
        plumb_tensor *bad = NULL, hdr;
        plumb_tensor *use[6];
        memcpy(use, out, sizeof use);
        uint32_t count = 6;
        int slot = cases[c].slot;
        if (slot < 0) {
            count = 5;
        } else if (cases[c].kind == 0) {
            use[slot] = NULL;
        } else if (cases[c].kind == 1) {
            bad = plumb_tensor_new(PLUMB_F64, 1, (int64_t[]){64}, 0, &d);
            use[slot] = bad;
        } else if (cases[c].kind == 2) {
            bad = plumb_tensor_new(PLUMB_F32, 2, (int64_t[]){256, 64}, 0, &d);
            use[slot] = bad;
        } else {
            hdr = *out[slot];
            hdr.owned = false;
            hdr.data = cases[c].kind == 3 ? in[0]->data
                     : cases[c].kind == 4 ? (void *)((char *)in[1]->data + 4 * n - 4) : out[0]->data;
            use[slot] = &hdr;
        }
        assert_false(plumb_executable_run_into(ex, in, 2, use, count, NULL, &d));
        assert_int_equal(d.code, PLUMB_ERR_USAGE);
        if (!strstr(d.msg, cases[c].says))
            fprintf(stderr, "case %zu: %s\n", c, d.msg);
        assert_non_null(strstr(d.msg, cases[c].says));
        assert_true(plumb_tensor_equal(in[0], keep0));
        assert_true(plumb_tensor_equal(in[1], keep1));
        plumb_tensor_free(bad);
    }
    memset(&d, 0, sizeof d);
    assert_false(plumb_executable_run_into(ex, in, 2, NULL, 6, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    memset(&d, 0, sizeof d);
    assert_false(plumb_executable_run_into(NULL, in, 2, out, 6, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    /* and the good outputs still work afterwards */
    memset(&d, 0, sizeof d);
    assert_true(plumb_executable_run_into(ex, in, 2, out, 6, NULL, &d));
    for (int i = 0; i < 6; i++) {
        assert_true(plumb_tensor_equal(out[i], res.outputs[i]));
        plumb_tensor_free(out[i]);
    }
    plumb_ref_result_free(&res);
    plumb_tensor_free(keep0);
    plumb_tensor_free(keep1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

static const char check_src[] =
    "func.func @main() -> tensor<2xi32> {\n"
    "  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
    "  %b = stablehlo.reverse %a, dims = [0] : tensor<2xi32>\n"
    "  stablehlo.custom_call @check.expect_eq_const(%b) {has_side_effect = true, value = dense<[2, 1]> : tensor<2xi32>} : (tensor<2xi32>) -> ()\n"
    "  stablehlo.custom_call @check.expect_eq_const(%b) {has_side_effect = true, value = dense<[1, 2]> : tensor<2xi32>} : (tensor<2xi32>) -> ()\n"
    "  return %b : tensor<2xi32>\n"
    "}\n";

/* Check ops run in the program: one passes, one fails and is counted. */
static void check_ops_are_executed_and_counted(void **state)
{
    (void)state;
    ir_module *m = parse_ok(check_src);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    FILE *log = tmpfile();
    assert_non_null(log);
    o.log = log;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    plumb_tensor *out = NULL;
    uint32_t failed = 99;
    assert_true(plumb_runtime_run(rt, m, NULL, NULL, 0, &out, 1, &failed, &d));
    assert_int_equal(failed, 1);
    assert_int_equal(((int32_t *)out->data)[0], 2);
    plumb_tensor_free(out);
    assert_true(ftell(log) > 0);   /* the failing check was described */
    plumb_runtime_destroy(rt);
    fclose(log);   /* after destroy, which may write the summary to it */
    ir_module_free(m);
}

/* A parameter with a bounded `?` returned as it is: one compile runs every
 * size within the bound (the result copied at this run's size); a size
 * above it is refused naming the parameter, dimension, size and bound. */
static void dynamic_shapes_run_within_their_bounds(void **state)
{
    (void)state;
    ir_module *m = parse_ok("func.func @main(%x: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {\n"
                            "  return %x : tensor<?x4xf32, #stablehlo.bounds<8, ?>>\n}\n");
    plumb_runtime *rt = rt_new(1, 2, NULL);
    plumb_diag d = {.code = PLUMB_OK};
    for (int64_t n = 0; n <= 9; n += 3) {
        int64_t dims[2] = {n, 4};
        plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
        assert_non_null(x);
        for (int64_t i = 0; i < n * 4; i++)
            ((float *)x->data)[i] = (float)i;
        plumb_tensor *out = NULL;
        bool ok = plumb_runtime_run(rt, m, NULL, &x, 1, &out, 1, NULL, &d);
        if (n <= 8) {
            assert_true(ok);
            assert_int_equal(out->dims[0], n);
            assert_int_equal(out->nbytes, x->nbytes);
            assert_true(x->nbytes == 0 || memcmp(out->data, x->data, x->nbytes) == 0);
            plumb_tensor_free(out);
        } else {
            assert_false(ok);
            assert_int_equal(d.code, PLUMB_ERR_USAGE);
            assert_non_null(strstr(d.msg, "parameter 0 (%x) dimension 0: size 9 exceeds its bound 8"));
        }
        plumb_tensor_free(x);
    }
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reduce_matches_reference),
        cmocka_unit_test(threads_bitwise_identical),
        cmocka_unit_test(calls_and_movement_match_reference),
        cmocka_unit_test(input_mismatch_is_a_clear_error),
        cmocka_unit_test(memory_limit_checked_at_compile),
        cmocka_unit_test(allocation_failure_is_an_error),
        cmocka_unit_test(planned_buffers_persist_between_runs),
        cmocka_unit_test(run_into_reuses_buffers_and_matches_reference),
        cmocka_unit_test(run_into_rejects_bad_outputs),
        cmocka_unit_test(check_ops_are_executed_and_counted),
        cmocka_unit_test(dynamic_shapes_run_within_their_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
