/* Programs with `?` dimensions on the compiled runtime: one compile serves
 * every size (bounded and unbounded), each run gives the reference's bits
 * (exact ops on values whose sums are exact) and a static compile's bits,
 * fused groups take their extents and broadcast strides from the run's
 * sizes, the dynamic ops' kernels agree with the reference, and sizes the
 * program forbids are clear errors before any out-of-bounds access. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

static ir_module *parse_verified(const char *text)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(text, strlen(text), "dyn.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

static plumb_runtime *new_runtime(uint32_t threads)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = threads;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

static plumb_tensor *tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* f32 values k/8 for small integers k: every sum and product below is
 * exact in f32, so any order of accumulation gives the reference's bits. */
static void fill_eighths(plumb_tensor *t, uint32_t seed)
{
    float *p = t->data;
    uint32_t s = seed * 2654435761u + 3;
    for (size_t i = 0; i < plumb_tensor_numel(t); i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)((int)((s >> 8) % 33u) - 16) / 8.0f;
    }
}

static plumb_tensor *i64_vec(uint32_t n, const int64_t *v)
{
    int64_t d = n;
    plumb_tensor *t = tensor(PLUMB_I64, 1, &d);
    memcpy(t->data, v, n * sizeof *v);
    return t;
}

static void expect_same(const plumb_tensor *a, const plumb_tensor *b, const char *what)
{
    bool eq = a->dtype == b->dtype && a->rank == b->rank && a->nbytes == b->nbytes;
    for (uint32_t i = 0; eq && i < a->rank; i++)
        eq = a->dims[i] == b->dims[i];
    if (eq && a->nbytes)
        eq = memcmp(a->data, b->data, a->nbytes) == 0;
    if (!eq) {
        plumb_buf x, y;
        plumb_buf_init(&x);
        plumb_buf_init(&y);
        plumb_tensor_type_print(&x, a);
        plumb_tensor_type_print(&y, b);
        fprintf(stderr, "%s: %s vs %s (or their bits) differ\n", what, x.data ? x.data : "?", y.data ? y.data : "?");
        plumb_buf_free(&x);
        plumb_buf_free(&y);
    }
    assert_true(eq);
}

/* Runs m on rt and on the reference; every result must be bit-identical. */
static void run_vs_ref(plumb_runtime *rt, const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out,
                       const char *what)
{
    plumb_tensor *out[4] = {NULL};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = plumb_runtime_run(rt, m, NULL, in, n_in, out, n_out, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    plumb_ref_result r;
    memset(&r, 0, sizeof r);
    ok = plumb_ref_run(m, NULL, in, n_in, NULL, &r, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(r.n_outputs, n_out);
    for (uint32_t i = 0; i < n_out; i++) {
        expect_same(out[i], r.outputs[i], what);
        plumb_tensor_free(out[i]);
    }
    plumb_ref_result_free(&r);
}

/* The run fails with code and a message containing want. */
static void run_fails(plumb_runtime *rt, const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out,
                      plumb_code code, const char *want)
{
    plumb_tensor *out[4] = {NULL};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_false(plumb_runtime_run(rt, m, NULL, in, n_in, out, n_out, NULL, &d));
    for (uint32_t i = 0; i < n_out; i++)
        assert_null(out[i]);
    if (d.code != code || !strstr(d.msg, want))
        fprintf(stderr, "expected code %d containing '%s', got %d: %s\n", code, want, d.code, d.msg);
    assert_int_equal(d.code, code);
    assert_non_null(strstr(d.msg, want));
}

static uint64_t compiles(const plumb_runtime *rt)
{
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st.compiles;
}

static void free_all(plumb_tensor **t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(t[i]);
}

/* An unbounded `?` (no #stablehlo.bounds): a fused elementwise chain with a
 * broadcast row, and a row sum, run at sizes that grow and shrink (the
 * buffers are sized per run and kept): one compile, the reference's bits,
 * the bits of a static compile of each size. */
static const char *unbounded_src =
    "func.func @main(%x: tensor<?x24xf32>, %y: tensor<24xf32>) -> (tensor<?x24xf32>, tensor<?xf32>) {\n"
    "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x24xf32>) -> tensor<i32>\n"
    "  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>\n"
    "  %c = stablehlo.constant dense<24> : tensor<1xi32>\n"
    "  %sh = stablehlo.concatenate %n1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
    "  %yb = stablehlo.dynamic_broadcast_in_dim %y, %sh, dims = [1] : (tensor<24xf32>, tensor<2xi32>) -> tensor<?x24xf32>\n"
    "  %a = stablehlo.add %x, %yb : tensor<?x24xf32>\n"
    "  %m = stablehlo.multiply %a, %x : tensor<?x24xf32>\n"
    "  %z = stablehlo.negate %m : tensor<?x24xf32>\n"
    "  %mx = stablehlo.maximum %z, %a : tensor<?x24xf32>\n"
    "  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
    "  %s = stablehlo.reduce(%mx init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x24xf32>, tensor<f32>) -> tensor<?xf32>\n"
    "  return %mx, %s : tensor<?x24xf32>, tensor<?xf32>\n"
    "}\n";

static char *static_of_unbounded(int64_t n)
{
    char *t = malloc(4096);
    assert_non_null(t);
    snprintf(t, 4096,
             "func.func @main(%%x: tensor<%lldx24xf32>, %%y: tensor<24xf32>) -> (tensor<%lldx24xf32>, tensor<%lldxf32>) {\n"
             "  %%yb = stablehlo.broadcast_in_dim %%y, dims = [1] : (tensor<24xf32>) -> tensor<%lldx24xf32>\n"
             "  %%a = stablehlo.add %%x, %%yb : tensor<%lldx24xf32>\n"
             "  %%m = stablehlo.multiply %%a, %%x : tensor<%lldx24xf32>\n"
             "  %%z = stablehlo.negate %%m : tensor<%lldx24xf32>\n"
             "  %%mx = stablehlo.maximum %%z, %%a : tensor<%lldx24xf32>\n"
             "  %%zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
             "  %%s = stablehlo.reduce(%%mx init: %%zero) applies stablehlo.add across dimensions = [1] : (tensor<%lldx24xf32>, tensor<f32>) -> tensor<%lldxf32>\n"
             "  return %%mx, %%s : tensor<%lldx24xf32>, tensor<%lldxf32>\n"
             "}\n",
             (long long)n, (long long)n, (long long)n, (long long)n, (long long)n, (long long)n, (long long)n,
             (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
    return t;
}

static void test_unbounded_sizes_compile_once(void **state)
{
    (void)state;
    ir_module *m = parse_verified(unbounded_src);
    plumb_runtime *rt = new_runtime(2);
    static const int64_t sizes[] = {3, 1000, 1, 5000, 0, 17, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int64_t xd[2] = {sizes[k], 24}, yd[1] = {24};
        plumb_tensor *in[2] = {tensor(PLUMB_F32, 2, xd), tensor(PLUMB_F32, 1, yd)};
        fill_eighths(in[0], (uint32_t)k);
        fill_eighths(in[1], (uint32_t)k + 100);
        run_vs_ref(rt, m, in, 2, 2, "unbounded vs reference");
        /* a static compile of this size gives the same bits */
        char *st = static_of_unbounded(sizes[k]);
        ir_module *sm = parse_verified(st);
        plumb_runtime *srt = new_runtime(2);
        plumb_tensor *a[2] = {NULL}, *b[2] = {NULL};
        plumb_diag d;
        memset(&d, 0, sizeof d);
        assert_true(plumb_runtime_run(rt, m, NULL, in, 2, a, 2, NULL, &d));
        bool ok = plumb_runtime_run(srt, sm, NULL, in, 2, b, 2, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        expect_same(a[0], b[0], "unbounded vs static compile, result 0");
        expect_same(a[1], b[1], "unbounded vs static compile, result 1");
        free_all(a, 2);
        free_all(b, 2);
        plumb_runtime_destroy(srt);
        ir_module_free(sm);
        free(st);
        free_all(in, 2);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* A loop group reading a broadcast whose operand has a `?` dim: at run
 * time the operand's dim may be 1 (broadcast, stride 0) or the full size
 * (stride of a row), which the compile cannot know. Rows, columns and a
 * scalar per run; bounded, so the buffers are planned at the bound. */
static const char *bcast_src =
    "func.func @main(%x: tensor<?x?xf32, #stablehlo.bounds<40, 40>>, %r: tensor<?x?xf32, #stablehlo.bounds<40, 40>>, %c: tensor<?xf32, #stablehlo.bounds<40>>) -> tensor<?x?xf32, #stablehlo.bounds<40, 40>> {\n"
    "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x?xf32, #stablehlo.bounds<40, 40>>) -> tensor<i32>\n"
    "  %m = stablehlo.get_dimension_size %x, dim = 1 : (tensor<?x?xf32, #stablehlo.bounds<40, 40>>) -> tensor<i32>\n"
    "  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>\n"
    "  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>\n"
    "  %sh = stablehlo.concatenate %n1, %m1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
    "  %rb = stablehlo.dynamic_broadcast_in_dim %r, %sh, dims = [0, 1] : (tensor<?x?xf32, #stablehlo.bounds<40, 40>>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "  %cb = stablehlo.dynamic_broadcast_in_dim %c, %sh, dims = [0] : (tensor<?xf32, #stablehlo.bounds<40>>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "  %a = stablehlo.multiply %x, %rb : tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "  %b = stablehlo.add %a, %cb : tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "  %e = stablehlo.subtract %b, %x : tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "  return %e : tensor<?x?xf32, #stablehlo.bounds<40, 40>>\n"
    "}\n";

static void test_broadcast_strides_per_run(void **state)
{
    (void)state;
    ir_module *m = parse_verified(bcast_src);
    plumb_runtime *rt = new_runtime(2);
    /* x dims, r dims (each 1 or x's), c dim (1 or x's rows) */
    static const int64_t cases[][5] = {
        {7, 5, 7, 5, 7}, {7, 5, 1, 5, 1}, {7, 5, 7, 1, 7}, {7, 5, 1, 1, 1}, {40, 40, 40, 1, 40},
        {1, 1, 1, 1, 1}, {33, 31, 1, 31, 33}, {2, 39, 2, 1, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        plumb_tensor *in[3] = {tensor(PLUMB_F32, 2, cases[k]), tensor(PLUMB_F32, 2, cases[k] + 2),
                               tensor(PLUMB_F32, 1, cases[k] + 4)};
        for (int i = 0; i < 3; i++)
            fill_eighths(in[i], (uint32_t)(k * 3 + (size_t)i));
        run_vs_ref(rt, m, in, 3, 1, "broadcast of a `?` operand");
        free_all(in, 3);
    }
    assert_int_equal(compiles(rt), 1);
    /* a row operand of another size is refused by name before the group
     * reads it */
    int64_t xd[2] = {6, 4}, rd[2] = {3, 4}, cd[1] = {6};
    plumb_tensor *in[3] = {tensor(PLUMB_F32, 2, xd), tensor(PLUMB_F32, 2, rd), tensor(PLUMB_F32, 1, cd)};
    for (int i = 0; i < 3; i++)
        fill_eighths(in[i], (uint32_t)i);
    run_fails(rt, m, in, 3, 1, PLUMB_ERR_INVALID, "stablehlo.dynamic_broadcast_in_dim");
    free_all(in, 3);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Two `?` operands of an elementwise op must have equal sizes at run time:
 * a mismatch is an error naming the op, never a read past the shorter. */
static void test_elementwise_size_mismatch(void **state)
{
    (void)state;
    ir_module *m = parse_verified("func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {\n"
                                  "  %a = stablehlo.add %x, %y : tensor<?xf32>\n"
                                  "  %b = stablehlo.multiply %a, %x : tensor<?xf32>\n"
                                  "  return %b : tensor<?xf32>\n"
                                  "}\n");
    plumb_runtime *rt = new_runtime(1);
    int64_t a = 9, b = 8;
    plumb_tensor *in[2] = {tensor(PLUMB_F32, 1, &a), tensor(PLUMB_F32, 1, &b)};
    fill_eighths(in[0], 1);
    fill_eighths(in[1], 2);
    run_fails(rt, m, in, 2, 1, PLUMB_ERR_INVALID, "stablehlo.add");
    plumb_tensor_free(in[1]);
    in[1] = tensor(PLUMB_F32, 1, &a);
    fill_eighths(in[1], 3);
    run_vs_ref(rt, m, in, 2, 1, "equal sizes");
    free_all(in, 2);
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* A result declared with a smaller bound than its operand's: a size within
 * the operand's bound but above the result's is refused naming the op, the
 * result, the size and the bound, before anything is written past the
 * result's planned (4-element) buffer. */
static void test_result_above_its_bound(void **state)
{
    (void)state;
    ir_module *m = parse_verified(
        "func.func @main(%x: tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<4>> {\n"
        "  %y = stablehlo.negate %x : (tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<4>>\n"
        "  return %y : tensor<?xf32, #stablehlo.bounds<4>>\n"
        "}\n");
    plumb_runtime *rt = new_runtime(1);
    int64_t ok_n = 4, bad_n = 6;
    plumb_tensor *x = tensor(PLUMB_F32, 1, &ok_n);
    fill_eighths(x, 5);
    run_vs_ref(rt, m, &x, 1, 1, "within both bounds");
    plumb_tensor_free(x);
    x = tensor(PLUMB_F32, 1, &bad_n);
    fill_eighths(x, 6);
    run_fails(rt, m, &x, 1, 1, PLUMB_ERR_INVALID, "size 6 exceeds its bound 4");
    plumb_tensor_free(x);
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* The dynamic ops whose result shape follows from an operand's values:
 * each run on several values, through one compile, with the reference's
 * bits. */
static void test_dynamic_ops_vs_reference(void **state)
{
    (void)state;
    plumb_runtime *rt = new_runtime(2);
    /* dynamic_iota and dynamic_reshape from a shape parameter */
    ir_module *iota = parse_verified(
        "func.func @main(%s: tensor<2xi64>) -> tensor<?x?xf32> {\n"
        "  %r = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<?x?xf32>\n"
        "  return %r : tensor<?x?xf32>\n"
        "}\n");
    ir_module *resh = parse_verified(
        "func.func @main(%x: tensor<?xi32>, %s: tensor<2xi64>) -> tensor<?x?xi32> {\n"
        "  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xi32>, tensor<2xi64>) -> tensor<?x?xi32>\n"
        "  return %r : tensor<?x?xi32>\n"
        "}\n");
    /* 3x4, 4x3, 3x4: the same operand dims with other shape values (a
     * run must not keep the shapes its step derived last time) */
    static const int64_t shapes[][2] = {{3, 4}, {4, 3}, {3, 4}, {1, 1}, {12, 5}, {0, 7}};
    for (size_t k = 0; k < 6; k++) {
        plumb_tensor *s = i64_vec(2, shapes[k]);
        run_vs_ref(rt, iota, &s, 1, 1, "dynamic_iota");
        int64_t n = shapes[k][0] * shapes[k][1];
        plumb_tensor *x = tensor(PLUMB_I32, 1, &n);
        for (int64_t i = 0; i < n; i++)
            ((int32_t *)x->data)[i] = (int32_t)(i * 7 - 3);
        plumb_tensor *in[2] = {x, s};
        run_vs_ref(rt, resh, in, 2, 1, "dynamic_reshape");
        free_all(in, 2);
    }
    /* real_dynamic_slice with starts, limits and strides as parameters */
    ir_module *rds = parse_verified(
        "func.func @main(%x: tensor<?x?xf32>, %a: tensor<2xi64>, %b: tensor<2xi64>, %c: tensor<2xi64>) -> tensor<?x?xf32> {\n"
        "  %r = stablehlo.real_dynamic_slice %x, %a, %b, %c : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>\n"
        "  return %r : tensor<?x?xf32>\n"
        "}\n");
    static const int64_t sl[][8] = {
        {9, 7, 1, 2, 8, 7, 2, 1}, {9, 7, 0, 0, 9, 7, 1, 1}, {5, 5, 4, 4, 4, 5, 1, 3}, {30, 3, 3, 0, 29, 3, 5, 2},
    };
    for (size_t k = 0; k < 4; k++) {
        plumb_tensor *in[4] = {tensor(PLUMB_F32, 2, sl[k]), i64_vec(2, sl[k] + 2), i64_vec(2, sl[k] + 4),
                               i64_vec(2, sl[k] + 6)};
        fill_eighths(in[0], (uint32_t)k);
        run_vs_ref(rt, rds, in, 4, 1, "real_dynamic_slice");
        free_all(in, 4);
    }
    /* a limit past the operand is an error naming the op, not a read */
    {
        int64_t xd[2] = {4, 4}, a[2] = {0, 0}, b[2] = {5, 4}, c[2] = {1, 1};
        plumb_tensor *in[4] = {tensor(PLUMB_F32, 2, xd), i64_vec(2, a), i64_vec(2, b), i64_vec(2, c)};
        fill_eighths(in[0], 9);
        run_fails(rt, rds, in, 4, 1, PLUMB_ERR_INVALID, "stablehlo.real_dynamic_slice");
        free_all(in, 4);
    }
    /* dynamic_pad with every padding a parameter (negative edges too) */
    ir_module *pad = parse_verified(
        "func.func @main(%x: tensor<?xi32>, %p: tensor<i32>, %lo: tensor<1xi64>, %hi: tensor<1xi64>, %in: tensor<1xi64>) -> tensor<?xi32> {\n"
        "  %r = stablehlo.dynamic_pad %x, %p, %lo, %hi, %in : (tensor<?xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>\n"
        "  return %r : tensor<?xi32>\n"
        "}\n");
    static const int64_t pads[][4] = {{5, 2, 3, 1}, {5, -1, 0, 2}, {1, 0, 0, 0}, {6, 3, -2, 0}};
    for (size_t k = 0; k < 4; k++) {
        int64_t n = pads[k][0], z = 0;
        plumb_tensor *in[5] = {tensor(PLUMB_I32, 1, &n), tensor(PLUMB_I32, 0, &z), i64_vec(1, pads[k] + 1),
                               i64_vec(1, pads[k] + 2), i64_vec(1, pads[k] + 3)};
        for (int64_t i = 0; i < n; i++)
            ((int32_t *)in[0]->data)[i] = (int32_t)(100 + i);
        *(int32_t *)in[1]->data = -7;
        run_vs_ref(rt, pad, in, 5, 1, "dynamic_pad");
        free_all(in, 5);
    }
    /* dynamic_gather with slice sizes from a parameter */
    ir_module *gat = parse_verified(
        "func.func @main(%x: tensor<5x6xi32>, %i: tensor<3x1xi32>, %s: tensor<2xi32>) -> tensor<3x?xi32> {\n"
        "  %g = \"stablehlo.dynamic_gather\"(%x, %i, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<5x6xi32>, tensor<3x1xi32>, tensor<2xi32>) -> tensor<3x?xi32>\n"
        "  return %g : tensor<3x?xi32>\n"
        "}\n");
    static const int32_t gsz[] = {6, 1, 3, 0};
    for (size_t k = 0; k < 4; k++) {
        int64_t xd[2] = {5, 6}, id[2] = {3, 1}, sd = 2;
        plumb_tensor *in[3] = {tensor(PLUMB_I32, 2, xd), tensor(PLUMB_I32, 2, id), tensor(PLUMB_I32, 1, &sd)};
        for (int i = 0; i < 30; i++)
            ((int32_t *)in[0]->data)[i] = i * 3 + 1;
        int32_t idx[3] = {4, 0, 2};
        memcpy(in[1]->data, idx, sizeof idx);
        int32_t ss[2] = {1, gsz[k]};
        memcpy(in[2]->data, ss, sizeof ss);
        run_vs_ref(rt, gat, in, 3, 1, "dynamic_gather");
        free_all(in, 3);
    }
    /* each program compiled once, whatever its shape operands held */
    assert_int_equal(compiles(rt), 5);
    plumb_runtime_destroy(rt);
    ir_module_free(iota);
    ir_module_free(resh);
    ir_module_free(rds);
    ir_module_free(pad);
    ir_module_free(gat);
}

/* A dynamic_reshape whose element count does not match is refused with
 * both counts; a negative size too. */
static void test_dynamic_reshape_bad_shape(void **state)
{
    (void)state;
    ir_module *m = parse_verified(
        "func.func @main(%x: tensor<?xi32>, %s: tensor<2xi64>) -> tensor<?x?xi32> {\n"
        "  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xi32>, tensor<2xi64>) -> tensor<?x?xi32>\n"
        "  return %r : tensor<?x?xi32>\n"
        "}\n");
    plumb_runtime *rt = new_runtime(1);
    int64_t n = 6, bad[2] = {2, 4}, neg[2] = {-2, -3};
    plumb_tensor *in[2] = {tensor(PLUMB_I32, 1, &n), i64_vec(2, bad)};
    run_fails(rt, m, in, 2, 1, PLUMB_ERR_INVALID, "stablehlo.dynamic_reshape");
    plumb_tensor_free(in[1]);
    in[1] = i64_vec(2, neg);
    run_fails(rt, m, in, 2, 1, PLUMB_ERR_INVALID, "stablehlo.dynamic_reshape");
    free_all(in, 2);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* shape_assertion: a true predicate runs on and counts no check; a false
 * one fails the run with the program's message, `{k}` replaced by operand
 * k + 1's value, exactly as the reference words it. */
static void test_shape_assertion(void **state)
{
    (void)state;
    ir_module *m = parse_verified(
        "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
        "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>\n"
        "  %lim = stablehlo.constant dense<8> : tensor<i32>\n"
        "  %ok = stablehlo.compare LE, %n, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  stablehlo.custom_call @shape_assertion(%ok, %n, %lim) {error_message = \"size {0} above {1} ({x})\", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()\n"
        "  %y = stablehlo.negate %x : tensor<?xf32>\n"
        "  return %y : tensor<?xf32>\n"
        "}\n");
    plumb_runtime *rt = new_runtime(1);
    int64_t good = 8, bad = 9;
    plumb_tensor *x = tensor(PLUMB_F32, 1, &good);
    fill_eighths(x, 1);
    plumb_tensor *out[1] = {NULL};
    uint32_t failed = 99;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(plumb_runtime_run(rt, m, NULL, &x, 1, out, 1, &failed, &d));
    assert_int_equal(failed, 0);
    plumb_tensor_free(out[0]);
    plumb_tensor_free(x);
    x = tensor(PLUMB_F32, 1, &bad);
    fill_eighths(x, 2);
    run_fails(rt, m, &x, 1, 1, PLUMB_ERR_RUNTIME, "shape assertion failed: size 9 above 8 ({x})");
    plumb_ref_result r;
    memset(&r, 0, sizeof r);
    plumb_diag rd;
    memset(&rd, 0, sizeof rd);
    assert_false(plumb_ref_run(m, NULL, &x, 1, NULL, &r, &rd));
    memset(&d, 0, sizeof d);
    assert_false(plumb_runtime_run(rt, m, NULL, &x, 1, out, 1, NULL, &d));
    assert_string_equal(d.msg, rd.msg);
    plumb_tensor_free(x);
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* One row group by the types (max over x's rows, broadcast back, exp, sum
 * over the rows), but the broadcast takes its shape from %s: with %s =
 * [n, k] and x [n, m], k != m, its rows are not x's. Such a run executes
 * the group's ops one by one (each row sums k ones: k), never the group
 * over x's row length (which would give m); with k = m the group runs.
 * Row maxima are 0, so exp gives exactly 1 and the sums are exact. */
static void test_group_with_other_row_length(void **state)
{
    (void)state;
    ir_module *m = parse_verified(
        "func.func @main(%x: tensor<?x?xf32, #stablehlo.bounds<16, 16>>, %s: tensor<2xi32>) -> tensor<?xf32, #stablehlo.bounds<16>> {\n"
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
        "  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32, #stablehlo.bounds<16, 16>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<16>>\n"
        "  %mxb = stablehlo.dynamic_broadcast_in_dim %mx, %s, dims = [0] : (tensor<?xf32, #stablehlo.bounds<16>>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<16, 16>>\n"
        "  %e = stablehlo.exponential %mxb : tensor<?x?xf32, #stablehlo.bounds<16, 16>>\n"
        "  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32, #stablehlo.bounds<16, 16>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<16>>\n"
        "  return %sum : tensor<?xf32, #stablehlo.bounds<16>>\n"
        "}\n");
    plumb_runtime *rt = new_runtime(2);
    static const int32_t ks[] = {7, 5, 16, 1, 5};
    for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
        int64_t xd[2] = {3, 5}, sd = 2;
        plumb_tensor *in[2] = {tensor(PLUMB_F32, 2, xd), tensor(PLUMB_I32, 1, &sd)};
        float *xv = in[0]->data;
        for (int i = 0; i < 15; i++)
            xv[i] = i % 5 == (int)c % 5 ? 0.0f : -(float)(i % 7 + 1) / 8.0f;   /* one 0 per row */
        int32_t sh[2] = {3, ks[c]};
        memcpy(in[1]->data, sh, sizeof sh);
        plumb_tensor *out[1] = {NULL};
        plumb_diag d;
        memset(&d, 0, sizeof d);
        bool ok = plumb_runtime_run(rt, m, NULL, in, 2, out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        assert_int_equal(out[0]->dims[0], 3);
        for (int r = 0; r < 3; r++)
            assert_true(((float *)out[0]->data)[r] == (float)ks[c]);
        plumb_tensor_free(out[0]);
        run_vs_ref(rt, m, in, 2, 1, "a group whose broadcast has other rows");
        free_all(in, 2);
    }
    assert_int_equal(compiles(rt), 1);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* A program with bounded and unbounded `?` dims stored in the disk cache
 * (its optimized text keeps `?` and the bounds) is served to a new runtime
 * as a disk hit, and the served program runs every size with the
 * reference's bits. */
static void test_disk_cache_round_trip(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/plumb-rt-dyn.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    ir_module *m = parse_verified(bcast_src);
    for (int pass = 0; pass < 2; pass++) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 2;
        o.cache_dir = dir;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        assert_non_null(rt);
        static const int64_t cases[][5] = {{7, 5, 1, 5, 7}, {40, 3, 40, 3, 1}, {1, 1, 1, 1, 1}};
        for (size_t k = 0; k < 3; k++) {
            plumb_tensor *in[3] = {tensor(PLUMB_F32, 2, cases[k]), tensor(PLUMB_F32, 2, cases[k] + 2),
                                   tensor(PLUMB_F32, 1, cases[k] + 4)};
            for (int i = 0; i < 3; i++)
                fill_eighths(in[i], (uint32_t)(k * 3 + (size_t)i + 50));
            run_vs_ref(rt, m, in, 3, 1, pass ? "served from disk" : "compiled");
            free_all(in, 3);
        }
        plumb_runtime_stats st;
        assert_true(plumb_runtime_stats_get(rt, NULL, &st));
        assert_int_equal(st.compiles, 1);
        assert_int_equal(st.disk_hits, (uint64_t)pass);
        assert_int_equal(st.disk_rejects, 0);
        plumb_runtime_destroy(rt);
    }
    ir_module_free(m);
    DIR *dd = opendir(dir);
    if (dd) {
        struct dirent *e;
        char path[600];
        while ((e = readdir(dd)))
            if (e->d_name[0] != '.') {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(dd);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unbounded_sizes_compile_once),
        cmocka_unit_test(test_broadcast_strides_per_run),
        cmocka_unit_test(test_elementwise_size_mismatch),
        cmocka_unit_test(test_result_above_its_bound),
        cmocka_unit_test(test_dynamic_ops_vs_reference),
        cmocka_unit_test(test_dynamic_reshape_bad_shape),
        cmocka_unit_test(test_shape_assertion),
        cmocka_unit_test(test_disk_cache_round_trip),
        cmocka_unit_test(test_group_with_other_row_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
