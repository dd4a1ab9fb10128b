/* Fusion (runtime/fusion_pass.c): which ops are grouped, that the schedule is a
 * valid order, and that fused execution (opt_level 2) gives the same bits
 * as unfused execution (opt_level 1) on 1 and 2 threads, and as the
 * reference where the ops are exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"

/* ---- helpers -------------------------------------------------------------------- */

typedef struct fused_prog {
    plumb_arena *a;
    rt_group *g;
    uint32_t n;
} fused_prog;

/* Runs the passes and fusion on @main of m (modified in place). */
static fused_prog fuse(ir_module *m, uint32_t level)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_true(rt_run_passes(m, f, level, 0, &d));
    fused_prog fp;
    fp.a = plumb_arena_new(0);
    assert_non_null(fp.a);
    bool ok = rt_fuse(fp.a, f, level, &fp.g, &fp.n, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return fp;
}

/* Every op of f is in exactly one group; every group input is a parameter
 * or the output of an earlier group; single-op groups are unfused; no
 * constant, check or return is in a fused group. */
static void check_schedule(const ir_module *m, const fused_prog *fp)
{
    const ir_func *f = ir_module_find_func(m, "main");
    uint32_t n_ids = m->next_value_id;
    uint8_t *ready = calloc(n_ids, 1);
    assert_non_null(ready);
    for (uint32_t i = 0; i < f->body.n_args; i++)
        ready[f->body.args[i]->id] = 1;
    uint32_t ops = 0;
    for (uint32_t g = 0; g < fp->n; g++) {
        const rt_group *G = &fp->g[g];
        ops += G->n_ops;
        if (G->n_ops == 1 && !G->fused)
            ;
        else {
            assert_non_null(G->fused);
            for (uint32_t k = 0; k < G->n_ops; k++) {
                plumb_kind kind = plumb_op_get(G->ops[k]->code)->kind;
                assert_true(kind != PLUMB_KIND_CHECK && kind != PLUMB_KIND_FUNC);
                assert_int_not_equal(G->ops[k]->code, PLUMB_OP_CONSTANT);
            }
        }
        for (uint32_t i = 0; i < G->n_inputs; i++)
            assert_true(ready[G->inputs[i]->id]);
        for (uint32_t k = 0; k < G->n_ops; k++)
            for (uint32_t r = 0; r < G->ops[k]->n_results; r++)
                ready[G->ops[k]->results[r]->id] = 1;
        /* a fused group's outputs are values it computes */
        for (uint32_t o = 0; o < G->n_outputs; o++)
            assert_true(ready[G->outputs[o]->id]);
    }
    assert_int_equal(ops, f->body.n_ops);
    free(ready);
}

static uint32_t n_fused(const fused_prog *fp)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < fp->n; g++)
        n += fp->g[g].fused != NULL;
    return n;
}

static const rt_group *fused_group(const fused_prog *fp, uint32_t k)
{
    for (uint32_t g = 0; g < fp->n; g++)
        if (fp->g[g].fused && k-- == 0)
            return &fp->g[g];
    fail();
    return NULL;
}

static uint32_t count_code(const rt_group *G, plumb_opcode c)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < G->n_ops; k++)
        n += G->ops[k]->code == c;
    return n;
}

/* The chain of the benchmark: tanh(x*a+b) * logistic(x), a, b scalars. */
static const char *chain_src(char *buf, size_t cap, int64_t n)
{
    char T[64];
    snprintf(T, sizeof T, "tensor<%lldxf32>", (long long)n);
    snprintf(buf, cap,
             "func.func @main(%%x: %s) -> %s {\n"
             "  %%sa = stablehlo.constant dense<0.75> : tensor<f32>\n"
             "  %%sb = stablehlo.constant dense<-0.25> : tensor<f32>\n"
             "  %%a = stablehlo.broadcast_in_dim %%sa, dims = [] : (tensor<f32>) -> %s\n"
             "  %%b = stablehlo.broadcast_in_dim %%sb, dims = [] : (tensor<f32>) -> %s\n"
             "  %%m = stablehlo.multiply %%x, %%a : %s\n"
             "  %%p = stablehlo.add %%m, %%b : %s\n"
             "  %%t = stablehlo.tanh %%p : %s\n"
             "  %%l = stablehlo.logistic %%x : %s\n"
             "  %%r = stablehlo.multiply %%t, %%l : %s\n"
             "  return %%r : %s\n"
             "}\n",
             T, T, T, T, T, T, T, T, T, T);
    return buf;
}

static plumb_tensor *new_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

static const uint32_t specials32[16] = {
    0x7fc12345u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u,
    0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u, 0xbfc00000u, 0x7f7fffffu, 0x40490fdbu,
    0xc2f6e979u, 0x3e99999au,
};

/* Special values first, then a deterministic spread of ordinary ones. */
static void fill_f32(plumb_tensor *t, uint32_t seed)
{
    size_t n = (size_t)plumb_tensor_numel(t);
    float *p = t->data;
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        if (i < 16 && seed == 0)
            memcpy(&p[i], &specials32[i], 4);
        else
            p[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * 8.0f;
    }
}

/* The kernel level rt_run asks for (AUTO = the best the CPU has). */
static plumb_isa run_isa = PLUMB_ISA_AUTO;

/* Runs @main of m on the runtime at opt_level and thread count. */
static plumb_tensor **rt_run(const ir_module *m, uint32_t level, uint32_t threads, plumb_tensor *const *in,
                             uint32_t n_in, uint32_t n_out)
{
    return run_program(m, level, threads, run_isa, in, n_in, n_out);
}


static void expect_same(plumb_tensor *const *a, plumb_tensor *const *b, uint32_t n, const char *what)
{
    for (uint32_t i = 0; i < n; i++) {
        bool eq = plumb_tensor_equal(a[i], b[i]);
        if (!eq) {
            size_t ne = (size_t)plumb_tensor_numel(a[i]);
            for (size_t k = 0, shown = 0; k < ne && shown < 5; k++) {
                uint64_t x = plumb_load_bits(a[i]->dtype, a[i]->data, k);
                uint64_t y = plumb_load_bits(b[i]->dtype, b[i]->data, k);
                if (x != y) {
                    fprintf(stderr, "%s: result %u element %zu: 0x%llx vs 0x%llx\n", what, i, k,
                            (unsigned long long)x, (unsigned long long)y);
                    shown++;
                }
            }
        }
        assert_true(eq);
    }
}

/* opt 2 on 1 and 2 threads and with portable kernels == opt 1; with
 * exact, also == the reference. */
static void check_exec(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out, bool exact)
{
    plumb_tensor **u = rt_run(m, 1, 1, in, n_in, n_out);
    plumb_tensor **f1 = rt_run(m, 2, 1, in, n_in, n_out);
    plumb_tensor **f2 = rt_run(m, 2, 2, in, n_in, n_out);
    expect_same(u, f1, n_out, "unfused vs fused, 1 thread");
    expect_same(u, f2, n_out, "unfused vs fused, 2 threads");
    /* and with the portable kernels (the fused rows' own f32 arithmetic
     * has a portable path too) */
    run_isa = PLUMB_ISA_PORTABLE;
    plumb_tensor **up = rt_run(m, 1, 1, in, n_in, n_out);
    plumb_tensor **fp = rt_run(m, 2, 1, in, n_in, n_out);
    run_isa = PLUMB_ISA_AUTO;
    expect_same(up, fp, n_out, "unfused vs fused, portable kernels");
    run_free_outs(up, n_out);
    run_free_outs(fp, n_out);
    if (exact) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_ref_result r;
        assert_true(plumb_ref_run(m, NULL, in, n_in, NULL, &r, &d));
        expect_same(r.outputs, f2, n_out, "reference vs fused");
        plumb_ref_result_free(&r);
    }
    run_free_outs(u, n_out);
    run_free_outs(f1, n_out);
    run_free_outs(f2, n_out);
}

/* ---- grouping ------------------------------------------------------------------------ */

/* The benchmark chain is one fused group reading x and two scalars and
 * writing one result; the broadcasts are absorbed. */
static void test_chain_is_one_group(void **state)
{
    (void)state;
    char src[2048];
    ir_module *m = parse_ok(chain_src(src, sizeof src, 4096));
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    const rt_group *G = fused_group(&fp, 0);
    assert_int_equal(count_code(G, PLUMB_OP_MULTIPLY), 2);
    assert_int_equal(count_code(G, PLUMB_OP_BROADCAST_IN_DIM), 2);
    assert_int_equal(count_code(G, PLUMB_OP_TANH) + count_code(G, PLUMB_OP_LOGISTIC) +
                     count_code(G, PLUMB_OP_ADD), 3);
    assert_int_equal(G->n_inputs, 3);   /* x and the two scalar constants */
    assert_int_equal(G->n_outputs, 1);
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* A DAG with a shared subexpression is one group; a value used both inside
 * and outside (returned) is an output. */
static void test_dag_shared_subexpression(void **state)
{
    (void)state;
    const char *T = "tensor<1000xf32>";
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s) -> (%s, %s) {\n"
             "  %%y = stablehlo.exponential %%x : %s\n"
             "  %%p = stablehlo.multiply %%y, %%y : %s\n"
             "  %%q = stablehlo.add %%y, %%x : %s\n"
             "  %%r = stablehlo.subtract %%p, %%q : %s\n"
             "  return %%r, %%y : %s, %s\n"
             "}\n",
             T, T, T, T, T, T, T, T, T);
    ir_module *m = parse_ok(src);
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    const rt_group *G = fused_group(&fp, 0);
    assert_int_equal(G->n_ops, 4);
    assert_int_equal(G->n_inputs, 1);
    assert_int_equal(G->n_outputs, 2);
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* exp(x) -> dot -> add(exp, dot): the add may not join exp's group (the
 * dot would have to run both before and after it). */
static void test_no_cycle_through_outside_op(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
        "  %e = stablehlo.exponential %x : tensor<8x8xf32>\n"
        "  %n = stablehlo.negate %e : tensor<8x8xf32>\n"
        "  %d = stablehlo.dot_general %n, %w, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>\n"
        "  %s = stablehlo.add %e, %d : tensor<8x8xf32>\n"
        "  %t = stablehlo.tanh %s : tensor<8x8xf32>\n"
        "  return %t : tensor<8x8xf32>\n"
        "}\n";
    ir_module *m = parse_ok(src);
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 2);   /* {exp, negate}, {add, tanh} */
    assert_int_equal(fused_group(&fp, 0)->n_ops, 2);
    assert_int_equal(fused_group(&fp, 1)->n_ops, 2);
    assert_int_equal(fused_group(&fp, 0)->n_outputs, 2);   /* e and n */
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* opt_level 1 (and 0): one unfused group per op. Checks, constants and
 * returns are never fused at level 2 either. */
static void test_levels_and_unfusable(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {\n"
        "  %c = stablehlo.constant dense<3.0> : tensor<64xf32>\n"
        "  %a = stablehlo.multiply %x, %c : tensor<64xf32>\n"
        "  %b = stablehlo.tanh %a : tensor<64xf32>\n"
        "  check.expect_eq %b, %b : tensor<64xf32>\n"
        "  return %b : tensor<64xf32>\n"
        "}\n";
    for (uint32_t level = 0; level <= 1; level++) {
        ir_module *m = parse_ok(src);
        fused_prog fp = fuse(m, level);
        check_schedule(m, &fp);
        assert_int_equal(n_fused(&fp), 0);
        for (uint32_t g = 0; g < fp.n; g++)
            assert_int_equal(fp.g[g].n_ops, 1);
        plumb_arena_free(fp.a);
        ir_module_free(m);
    }
    ir_module *m = parse_ok(src);
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    assert_int_equal(fused_group(&fp, 0)->n_ops, 2);
    assert_int_equal(fused_group(&fp, 0)->n_outputs, 1);
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* Builds softmax or layer_norm of an f32 [rows, cols] parameter. */
static ir_module *nn_prog(int which, int64_t rows, int64_t cols)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    int64_t dims[2] = {rows, cols};
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 2, dims);
    ir_value *y;
    if (which == 0) {
        y = plumb_nn_softmax(&nn, x, -1);
    } else {
        ir_value *gamma = plumb_nn_param(&nn, PLUMB_F32, 1, &dims[1]);
        ir_value *beta = plumb_nn_param(&nn, PLUMB_F32, 1, &dims[1]);
        y = plumb_nn_layer_norm(&nn, x, gamma, beta, 1e-5);
    }
    return nn_finish(&nn, m, &y, 1);
}

/* softmax is one row group: max, exp, sum and the division in one pass. */
static void test_softmax_one_row_group(void **state)
{
    (void)state;
    ir_module *m = nn_prog(0, 64, 256);
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    const rt_group *G = fused_group(&fp, 0);
    assert_int_equal(count_code(G, PLUMB_OP_REDUCE), 2);
    assert_int_equal(count_code(G, PLUMB_OP_EXPONENTIAL), 1);
    assert_int_equal(count_code(G, PLUMB_OP_DIVIDE), 1);
    assert_int_equal(G->n_outputs, 1);
    /* x - max, its exp and the exp's sum are one pass */
    uint32_t sq, ex;
    rt_fused_row_passes(G->fused, &sq, &ex);
    assert_int_equal(sq, 0);
    assert_int_equal(ex, 1);
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* layer_norm (mean, variance, normalize, scale, shift) is one row group. */
static void test_layer_norm_row_group(void **state)
{
    (void)state;
    ir_module *m = nn_prog(1, 64, 256);
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    const rt_group *G = fused_group(&fp, 0);
    assert_int_equal(count_code(G, PLUMB_OP_REDUCE), 2);
    assert_int_equal(G->n_outputs, 1);
    plumb_arena_free(fp.a);
    ir_module_free(m);
}

/* ---- execution ---------------------------------------------------------------------- */

/* Exact elementwise chains with scalar and row/column broadcasts, sizes
 * that are not multiples of the tile, and zero size: fused == unfused ==
 * reference, bit for bit, on 1 and 2 threads. */
static void test_exec_exact_chain_with_broadcasts(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{37, 53}, {1, 1}, {3, 1025}, {129, 33}, {0, 7}, {5, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t r = shapes[s][0], c = shapes[s][1];
        char T[64], R[64], C[64], B[64];
        snprintf(T, sizeof T, "tensor<%lldx%lldxf32>", (long long)r, (long long)c);
        snprintf(B, sizeof B, "tensor<%lldx%lldxi1>", (long long)r, (long long)c);
        snprintf(R, sizeof R, "tensor<%lldxf32>", (long long)c);
        snprintf(C, sizeof C, "tensor<%lldxf32>", (long long)r);
        char F[64];
        snprintf(F, sizeof F, "tensor<%lldx%lldxf64>", (long long)r, (long long)c);
        char src[4096];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%row: %s, %%col: %s) -> (%s, %s) {\n"
                 "  %%br = stablehlo.broadcast_in_dim %%row, dims = [1] : (%s) -> %s\n"
                 "  %%bc = stablehlo.broadcast_in_dim %%col, dims = [0] : (%s) -> %s\n"
                 "  %%k = stablehlo.constant dense<-0.0> : tensor<f32>\n"
                 "  %%bk = stablehlo.broadcast_in_dim %%k, dims = [] : (tensor<f32>) -> %s\n"
                 "  %%a = stablehlo.multiply %%x, %%br : %s\n"
                 "  %%b = stablehlo.add %%a, %%bc : %s\n"
                 "  %%n = stablehlo.negate %%b : %s\n"
                 "  %%m = stablehlo.maximum %%n, %%bk : %s\n"
                 "  %%p = stablehlo.compare LT, %%x, %%br : (%s, %s) -> %s\n"
                 "  %%q = stablehlo.select %%p, %%m, %%x : %s, %s\n"
                 "  %%w = stablehlo.convert %%q : (%s) -> %s\n"
                 "  %%v = stablehlo.divide %%q, %%bc : %s\n"
                 "  return %%v, %%w : %s, %s\n"
                 "}\n",
                 T, R, C, T, F, R, T, C, T, T, T, T, T, T, T, T, B, B, T, T, F, T, T, F);
        ir_module *m = parse_ok(src);
        int64_t dx[2] = {r, c};
        plumb_tensor *in[3] = {new_tensor(PLUMB_F32, 2, dx), new_tensor(PLUMB_F32, 1, &dx[1]),
                               new_tensor(PLUMB_F32, 1, &dx[0])};
        fill_f32(in[0], 0);
        fill_f32(in[1], 1);
        fill_f32(in[2], 2);
        check_exec(m, in, 3, 2, true);
        for (int i = 0; i < 3; i++)
            plumb_tensor_free(in[i]);
        ir_module_free(m);
    }
}

/* The transcendental chain: fused == unfused bitwise (the tile kernels are
 * the whole-tensor kernels), odd sizes included. */
static void test_exec_transcendental_chain(void **state)
{
    (void)state;
    static const int64_t sizes[] = {1, 1000, 1024, 1025, 3001, 0};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        char src[2048];
        ir_module *m = parse_ok(chain_src(src, sizeof src, sizes[s]));
        plumb_tensor *x = new_tensor(PLUMB_F32, 1, &sizes[s]);
        fill_f32(x, 0);
        check_exec(m, &x, 1, 1, false);
        plumb_tensor_free(x);
        ir_module_free(m);
    }
}

/* softmax (which 0) or layer_norm (1) of an f32 [dims] x (gamma, beta
 * ordinary values), x ordinary then passed to special (may be NULL) with
 * its rows and row length: check_exec. */
static void exec_nn_prog(int which, const int64_t *dims, void (*special)(plumb_tensor *, size_t, size_t))
{
    ir_module *m = nn_prog(which, dims[0], dims[1]);
    plumb_tensor *in[3];
    in[0] = new_tensor(PLUMB_F32, 2, dims);
    fill_f32(in[0], 0);
    if (special)
        special(in[0], (size_t)dims[0], (size_t)dims[1]);
    uint32_t n_in = 1;
    if (which == 1) {
        in[1] = new_tensor(PLUMB_F32, 1, &dims[1]);
        in[2] = new_tensor(PLUMB_F32, 1, &dims[1]);
        fill_f32(in[1], 3);
        fill_f32(in[2], 4);
        n_in = 3;
    }
    check_exec(m, in, n_in, 1, false);
    for (uint32_t i = 0; i < n_in; i++)
        plumb_tensor_free(in[i]);
    ir_module_free(m);
}

/* softmax and layer_norm: fused rows == the unfused reduce kernels,
 * bitwise, on 1 and 2 threads; rows with NaN, inf and odd lengths. */
static void test_exec_softmax_layer_norm(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{67, 129}, {5, 1000}, {3, 1}, {1, 4099}};
    for (int which = 0; which < 2; which++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            exec_nn_prog(which, shapes[s], NULL);
        }
}

/* layer_norm's one-pass x - mean, square and variance sum: rows over one
 * sum block with a tail, an infinity in the second block (inf - inf), NaN
 * payloads, squares that overflow f32, signed zeros, subnormals: fused ==
 * unfused bitwise at every ISA and thread count. */
static void test_exec_layer_norm_variance_pass(void **state)
{
    (void)state;
    const int64_t shape[2] = {6, 2100};
    const size_t L = 2100;
    ir_module *m = nn_prog(1, shape[0], shape[1]);
    plumb_tensor *in[3];
    in[0] = new_tensor(PLUMB_F32, 2, shape);
    in[1] = new_tensor(PLUMB_F32, 1, &shape[1]);
    in[2] = new_tensor(PLUMB_F32, 1, &shape[1]);
    fill_f32(in[0], 7);
    fill_f32(in[1], 3);
    fill_f32(in[2], 4);
    uint32_t *b = in[0]->data;
    b[0 * L + 2050] = 0x7f800000u;                          /* mean inf: inf - inf */
    b[1 * L + 40] = 0x7f800123u;                            /* signaling NaN payload */
    b[1 * L + 2090] = 0xffc00abcu;                          /* a second, in the tail */
    for (size_t i = 0; i < L; i++) {
        b[2 * L + i] = (i % 3) ? 0x80000000u : 0u;          /* signed zeros */
        b[3 * L + i] = (i % 2) ? 0x7f000000u : 0xff000000u; /* squares overflow */
        b[4 * L + i] = (uint32_t)(i % 5);                   /* subnormals */
    }
    check_exec(m, in, 3, 1, false);
    for (int i = 0; i < 3; i++)
        plumb_tensor_free(in[i]);
    ir_module_free(m);
}

/* softmax's one-pass exp(x - max) and its sum: rows over one sum block
 * with a tail; a row with +inf (inf - inf = NaN, the rest exp(-inf) = 0),
 * NaN payloads, a row of -inf (max -inf: every x - max NaN), exps that
 * underflow to subnormals and zero (lanes the fast exp flags), signed
 * zeros: fused == unfused bitwise at every ISA and thread count. */
static void test_exec_softmax_exp_pass(void **state)
{
    (void)state;
    const int64_t shape[2] = {7, 2100};
    const size_t L = 2100;
    ir_module *m = nn_prog(0, shape[0], shape[1]);
    plumb_tensor *in[1];
    in[0] = new_tensor(PLUMB_F32, 2, shape);
    fill_f32(in[0], 9);
    uint32_t *b = in[0]->data;
    b[0 * L + 2050] = 0x7f800000u;                          /* max inf */
    b[1 * L + 40] = 0x7f800123u;                            /* signaling NaN payload */
    b[1 * L + 2090] = 0xffc00abcu;                          /* a second, in the tail */
    for (size_t i = 0; i < L; i++) {
        float f = (i % 4) ? -90.0f - (float)(i % 17) : 0.0f;   /* exp(-90..-106): subnormal or 0 */
        memcpy(&b[2 * L + i], &f, 4);
        b[3 * L + i] = 0xff800000u;                         /* all -inf */
        b[4 * L + i] = (i % 3) ? 0x80000000u : 0u;          /* signed zeros */
        f = (i % 2) ? -86.0f - (float)(i % 5) * 0.5f : 0.0f; /* x - max around the fast exp's lower edge */
        memcpy(&b[5 * L + i], &f, 4);
    }
    check_exec(m, in, 1, 1, false);
    plumb_tensor_free(in[0]);
    ir_module_free(m);
}

/* softmax's one-pass exp(x - max) on x - max in [-86.9, -86.64], where
 * the exp is normal but below 2^-125: the exp kernel sends those results
 * through its exact path (it checks results, not only inputs), so the
 * one pass must too: fused == unfused bitwise. */
static void test_exec_softmax_exp_small_results(void **state)
{
    (void)state;
    const int64_t shape[2] = {4, 4000};
    const size_t L = 4000;
    ir_module *m = nn_prog(0, shape[0], shape[1]);
    plumb_tensor *in[1];
    in[0] = new_tensor(PLUMB_F32, 2, shape);
    float lo = -86.64f;
    uint32_t b0;
    memcpy(&b0, &lo, 4);
    uint32_t *b = in[0]->data;
    for (size_t r = 0; r < 4; r++)
        for (size_t i = 0; i < L; i++)
            b[r * L + i] = i == 0 ? 0u : b0 + 2u * (uint32_t)(r * L + i);   /* max 0 */
    check_exec(m, in, 1, 1, false);
    plumb_tensor_free(in[0]);
    ir_module_free(m);
}

/* Per-row work written over full rows (a row sum broadcast back, divided
 * by a broadcast scalar, through exp) runs once per row; the full-row value
 * is still produced where it is returned. fused == unfused bitwise. */
static void test_exec_row_uniform_ops(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%x: tensor<37x300xf32>, %c: tensor<f32>) -> (tensor<37x300xf32>, tensor<37x300xf32>) {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<37x300xf32>, tensor<f32>) -> tensor<37xf32>\n"
        "  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<37xf32>) -> tensor<37x300xf32>\n"
        "  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<37x300xf32>\n"
        "  %mean = stablehlo.divide %sb, %cb : tensor<37x300xf32>\n"
        "  %e = stablehlo.exponential %mean : tensor<37x300xf32>\n"
        "  %y = stablehlo.subtract %x, %e : tensor<37x300xf32>\n"
        "  return %y, %e : tensor<37x300xf32>, tensor<37x300xf32>\n"
        "}\n");
    fused_prog fp = fuse(m, 2);
    check_schedule(m, &fp);
    assert_int_equal(n_fused(&fp), 1);
    plumb_arena_free(fp.a);
    plumb_tensor *in[2];
    in[0] = new_tensor(PLUMB_F32, 2, (int64_t[]){37, 300});
    in[1] = new_tensor(PLUMB_F32, 0, NULL);
    fill_f32(in[0], 0);
    *(float *)in[1]->data = 300.0f;
    check_exec(m, in, 2, 2, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* The row groups' f32 arithmetic, one loop per operation, per-row side and
 * streaming: add/subtract/multiply/divide with the per-row operand first,
 * second or absent, per-row arithmetic on the row sums, NaN lanes of every
 * origin (payloads from either operand, 0/0, inf - inf), a row length that
 * leaves a tail, and results both streamed out and read again in the group.
 * fused == unfused bitwise, at every ISA and thread count. */
static void test_exec_row_arith_special_lanes(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%x: tensor<7x70xf32>, %c: tensor<f32>) -> (tensor<7x70xf32>, tensor<7x70xf32>, tensor<7x70xf32>) {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<7x70xf32>, tensor<f32>) -> tensor<7xf32>\n"
        "  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<7xf32>) -> tensor<7x70xf32>\n"
        "  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<7x70xf32>\n"
        "  %q = stablehlo.divide %sb, %cb : tensor<7x70xf32>\n"
        "  %q2 = stablehlo.subtract %q, %cb : tensor<7x70xf32>\n"
        "  %d1 = stablehlo.subtract %x, %q2 : tensor<7x70xf32>\n"
        "  %d2 = stablehlo.divide %q, %x : tensor<7x70xf32>\n"
        "  %d3 = stablehlo.multiply %d1, %d2 : tensor<7x70xf32>\n"
        "  %d4 = stablehlo.add %d3, %x : tensor<7x70xf32>\n"
        "  %d5 = stablehlo.multiply %q, %d4 : tensor<7x70xf32>\n"
        "  return %d5, %d2, %d4 : tensor<7x70xf32>, tensor<7x70xf32>, tensor<7x70xf32>\n"
        "}\n");
    plumb_tensor *in[2];
    in[0] = new_tensor(PLUMB_F32, 2, (int64_t[]){7, 70});
    in[1] = new_tensor(PLUMB_F32, 0, NULL);
    fill_f32(in[0], 6);
    uint32_t *b = in[0]->data;
    const size_t L = 70;
    for (size_t i = 0; i < L; i++)
        b[3 * L + i] = (i % 2) ? 0x80000000u : 0u;   /* zeros: sum 0, 0/0 in d2 */
    b[1 * L + 5] = 0x7f800123u;                        /* signaling NaN payload */
    b[1 * L + 66] = 0xffc00abcu;                       /* a second, in the tail */
    b[2 * L + 69] = 0x7fc0beefu;                       /* last lane */
    b[4 * L + 10] = 0x7f800000u;                       /* inf - inf in the sum */
    b[4 * L + 20] = 0xff800000u;
    b[5 * L + 33] = 0x00000001u;                       /* smallest subnormal */
    const uint32_t cs[] = {0x40400000u /* 3 */, 0u /* +0: q is inf or NaN */, 0x7fc00077u /* NaN */};
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        memcpy(in[1]->data, &cs[k], 4);
        check_exec(m, in, 2, 3, false);
    }
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* Row maxima (the fused rows' vector max): rows of signed zeros, NaNs of
 * different payloads deep in a row, infinities, a single element: fused ==
 * unfused bitwise, and the max itself is the reference's where no NaN is
 * involved (IEEE maximum, -0 < +0). */
static void test_exec_row_max_special_rows(void **state)
{
    (void)state;
    ir_module *m = parse_ok(
        "func.func @main(%x: tensor<8x517xf32>) -> (tensor<8x517xf32>, tensor<8xf32>) {\n"
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x517xf32>, tensor<f32>) -> tensor<8xf32>\n"
        "  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x517xf32>\n"
        "  %y = stablehlo.subtract %x, %mb : tensor<8x517xf32>\n"
        "  return %y, %m : tensor<8x517xf32>, tensor<8xf32>\n"
        "}\n");
    plumb_tensor *x = new_tensor(PLUMB_F32, 2, (int64_t[]){8, 517});
    fill_f32(x, 5);
    uint32_t *b = x->data;
    const size_t L = 517;
    for (size_t i = 0; i < L; i++) {
        b[0 * L + i] = 0x80000000u;                          /* all -0 */
        b[1 * L + i] = (i % 7 == 3) ? 0u : 0x80000000u;      /* -0 and +0 */
        b[4 * L + i] = 0xff800000u;                          /* all -inf */
    }
    b[2 * L + 300] = 0x7fc12345u;                            /* one NaN deep in the row */
    b[3 * L + 100] = 0xffc00001u;                            /* two NaNs */
    b[3 * L + 400] = 0x7fa00000u;
    b[5 * L + 516] = 0x7f800000u;                            /* +inf in the tail */
    b[6 * L + 17] = 0x7f7fffffu;                             /* the largest finite */
    check_exec(m, &x, 1, 2, false);
    plumb_tensor **f = rt_run(m, 2, 2, &x, 1, 2);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result r;
    assert_true(plumb_ref_run(m, NULL, &x, 1, NULL, &r, &d));
    const uint32_t *got = f[1]->data, *want = r.outputs[1]->data;
    for (int row = 0; row < 8; row++) {
        if (row == 2 || row == 3)
            assert_true((got[row] & 0x7fffffffu) > 0x7f800000u);   /* a NaN */
        else
            assert_int_equal(got[row], want[row]);
    }
    assert_int_equal(got[0], 0x80000000u);
    assert_int_equal(got[1], 0u);
    plumb_ref_result_free(&r);
    run_free_outs(f, 2);
    plumb_tensor_free(x);
    ir_module_free(m);
}

/* Special rows scattered over x [R, L] (not only the first unit's first
 * row): a NaN payload, +inf, a row of -inf, a row of signed zeros, a row
 * of subnormals, in rows that land inside and at the ends of multi-row
 * units. */
static void scatter_special_rows(plumb_tensor *x, size_t R, size_t L)
{
    uint32_t *b = x->data;
    for (size_t r = 1; r < R; r += 11) {
        uint32_t *row = b + r * L;
        switch ((r / 11) % 5) {
        case 0: row[L / 2] = 0x7f800123u + (uint32_t)r; break;
        case 1: row[L - 1] = 0x7f800000u; break;
        case 2: for (size_t i = 0; i < L; i++) row[i] = 0xff800000u; break;
        case 3: for (size_t i = 0; i < L; i++) row[i] = (i % 3) ? 0x80000000u : 0u; break;
        default: for (size_t i = 0; i < L; i++) row[i] = 0x00000001u + (uint32_t)(i % 7); break;
        }
    }
    if (R > 1)
        b[(R - 1) * L] = 0xffc00abcu;   /* the last (partial) unit's last row */
}

/* softmax and layer_norm on rows shorter than 1024, which run several rows
 * per unit (rows of 1, 7, 16 and 64, most with a partial last unit; 600
 * rows of 64 make two chunks on 2 threads), and on 3 rows of 1000, 1024
 * and 1025 (one row per unit), specials scattered over the rows: fused ==
 * unfused bitwise at every ISA and thread count. */
static void test_exec_short_row_blocks(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{130, 7}, {100, 64}, {600, 64}, {70, 1}, {129, 16},
                                        {3, 1000}, {3, 1024}, {3, 1025}, {1, 5}};
    for (int which = 0; which < 2; which++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            exec_nn_prog(which, shapes[s], scatter_special_rows);
        }
}

/* Row sums in f64 next to f32 row maxima on short rows (several rows per
 * unit: 8-byte and 4-byte per-row values in one unit), the f64 mean
 * hoisted to per-row work with a scalar, subtracted over full rows and
 * summed again; the per-row results returned. fused == unfused bitwise,
 * and == the reference where the ops are exact (maxima, converts). */
static void test_exec_short_rows_f64_sums(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{130, 7}, {33, 1}, {600, 64}, {3, 1025}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        long long R = shapes[k][0], L = shapes[k][1];
        char T[64], D[64], V[64], W[64];
        snprintf(T, sizeof T, "tensor<%lldx%lldxf32>", R, L);
        snprintf(D, sizeof D, "tensor<%lldx%lldxf64>", R, L);
        snprintf(V, sizeof V, "tensor<%lldxf32>", R);
        snprintf(W, sizeof W, "tensor<%lldxf64>", R);
        char src[4096];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%c: tensor<f64>) -> (%s, %s, %s, %s) {\n"
                 "  %%z = stablehlo.constant dense<0.0> : tensor<f64>\n"
                 "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                 "  %%xd = stablehlo.convert %%x : (%s) -> %s\n"
                 "  %%mx = stablehlo.reduce(%%x init: %%ninf) applies stablehlo.maximum across dimensions = [1] : "
                 "(%s, tensor<f32>) -> %s\n"
                 "  %%s = stablehlo.reduce(%%xd init: %%z) applies stablehlo.add across dimensions = [1] : "
                 "(%s, tensor<f64>) -> %s\n"
                 "  %%sb = stablehlo.broadcast_in_dim %%s, dims = [0] : (%s) -> %s\n"
                 "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f64>) -> %s\n"
                 "  %%mean = stablehlo.divide %%sb, %%cb : %s\n"
                 "  %%y = stablehlo.subtract %%xd, %%mean : %s\n"
                 "  %%s2 = stablehlo.reduce(%%y init: %%z) applies stablehlo.add across dimensions = [1] : "
                 "(%s, tensor<f64>) -> %s\n"
                 "  return %%y, %%s, %%mx, %%s2 : %s, %s, %s, %s\n"
                 "}\n",
                 T, D, W, V, W, T, D, T, V, D, W, W, D, D, D, D, D, W, D, W, V, W);
        ir_module *m = parse_ok(src);
        fused_prog fp = fuse(m, 2);
        check_schedule(m, &fp);
        assert_int_equal(n_fused(&fp), 1);
        plumb_arena_free(fp.a);
        plumb_tensor *in[2];
        in[0] = new_tensor(PLUMB_F32, 2, shapes[k]);
        in[1] = new_tensor(PLUMB_F64, 0, NULL);
        fill_f32(in[0], 5);
        scatter_special_rows(in[0], (size_t)R, (size_t)L);
        double c = (double)L;
        memcpy(in[1]->data, &c, 8);
        check_exec(m, in, 2, 4, false);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        ir_module_free(m);
    }
}

/* The one-pass steps (variance, softmax's exp and sum) on values computed
 * in the group, so that their later results may be given the slot of an
 * operand the pass still reads for the later rows of a multi-row unit:
 * the variance sum the mean's slot (0), the slot of x + c (1: the sum of
 * row r is written over element r of x + c, which row r' > r no longer
 * needs), the exps the slot of x * c (2). Rows of 1, 7, 64 and 1025.
 * fused == unfused bitwise. */
static void test_exec_short_rows_pass_slots(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{130, 7}, {70, 1}, {100, 64}, {3, 1025}};
    for (int which = 0; which < 3; which++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            long long R = shapes[k][0], L = shapes[k][1];
            char T[64], V[64];
            snprintf(T, sizeof T, "tensor<%lldx%lldxf32>", R, L);
            snprintf(V, sizeof V, "tensor<%lldxf32>", R);
            char src[4096];
            if (which == 0)   /* x * c - mean over its variance (the sum a temporary) */
                snprintf(src, sizeof src,
                         "func.func @main(%%x: %s, %%c: tensor<f32>, %%n: tensor<f32>) -> %s {\n"
                         "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                         "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> %s\n"
                         "  %%nb = stablehlo.broadcast_in_dim %%n, dims = [] : (tensor<f32>) -> %s\n"
                         "  %%x2 = stablehlo.multiply %%x, %%cb : %s\n"
                         "  %%s = stablehlo.reduce(%%x2 init: %%z) applies stablehlo.add across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%sb = stablehlo.broadcast_in_dim %%s, dims = [0] : (%s) -> %s\n"
                         "  %%mean = stablehlo.divide %%sb, %%nb : %s\n"
                         "  %%xc = stablehlo.subtract %%x2, %%mean : %s\n"
                         "  %%q = stablehlo.multiply %%xc, %%xc : %s\n"
                         "  %%v = stablehlo.reduce(%%q init: %%z) applies stablehlo.add across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%vb = stablehlo.broadcast_in_dim %%v, dims = [0] : (%s) -> %s\n"
                         "  %%r = stablehlo.divide %%xc, %%vb : %s\n"
                         "  return %%r : %s\n"
                         "}\n",
                         T, T, T, T, T, T, V, V, T, T, T, T, T, V, V, T, T, T);
            else if (which == 1)   /* the same with x + c centered by the mean of x * c: slots
                                    * such that the variance sum is given the slot of x + c */
                snprintf(src, sizeof src,
                         "func.func @main(%%x: %s, %%c: tensor<f32>, %%n: tensor<f32>) -> %s {\n"
                         "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                         "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> %s\n"
                         "  %%nb = stablehlo.broadcast_in_dim %%n, dims = [] : (tensor<f32>) -> %s\n"
                         "  %%u = stablehlo.multiply %%x, %%cb : %s\n"
                         "  %%x2 = stablehlo.add %%x, %%cb : %s\n"
                         "  %%s = stablehlo.reduce(%%u init: %%z) applies stablehlo.add across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%sb = stablehlo.broadcast_in_dim %%s, dims = [0] : (%s) -> %s\n"
                         "  %%mean = stablehlo.divide %%sb, %%nb : %s\n"
                         "  %%xc = stablehlo.subtract %%x2, %%mean : %s\n"
                         "  %%q = stablehlo.multiply %%xc, %%xc : %s\n"
                         "  %%v = stablehlo.reduce(%%q init: %%z) applies stablehlo.add across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%vb = stablehlo.broadcast_in_dim %%v, dims = [0] : (%s) -> %s\n"
                         "  %%r = stablehlo.divide %%xc, %%vb : %s\n"
                         "  return %%r : %s\n"
                         "}\n",
                         T, T, T, T, T, T, T, V, V, T, T, T, T, T, V, V, T, T, T);
            else   /* softmax of x * c, and its row sums */
                snprintf(src, sizeof src,
                         "func.func @main(%%x: %s, %%c: tensor<f32>, %%n: tensor<f32>) -> (%s, %s) {\n"
                         "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                         "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                         "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> %s\n"
                         "  %%x2 = stablehlo.multiply %%x, %%cb : %s\n"
                         "  %%mx = stablehlo.reduce(%%x2 init: %%ninf) applies stablehlo.maximum across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%mb = stablehlo.broadcast_in_dim %%mx, dims = [0] : (%s) -> %s\n"
                         "  %%xm = stablehlo.subtract %%x2, %%mb : %s\n"
                         "  %%e = stablehlo.exponential %%xm : %s\n"
                         "  %%s = stablehlo.reduce(%%e init: %%z) applies stablehlo.add across dimensions = [1] : "
                         "(%s, tensor<f32>) -> %s\n"
                         "  %%sb = stablehlo.broadcast_in_dim %%s, dims = [0] : (%s) -> %s\n"
                         "  %%y = stablehlo.divide %%e, %%sb : %s\n"
                         "  return %%y, %%s : %s, %s\n"
                         "}\n",
                         T, T, V, T, T, T, V, V, T, T, T, T, V, V, T, T, T, V);
            ir_module *m = parse_ok(src);
            plumb_tensor *in[3];
            in[0] = new_tensor(PLUMB_F32, 2, shapes[k]);
            in[1] = new_tensor(PLUMB_F32, 0, NULL);
            in[2] = new_tensor(PLUMB_F32, 0, NULL);
            fill_f32(in[0], 8);
            scatter_special_rows(in[0], (size_t)R, (size_t)L);
            float c = 1.5f, n = (float)L;
            memcpy(in[1]->data, &c, 4);
            memcpy(in[2]->data, &n, 4);
            check_exec(m, in, 3, which < 2 ? 1 : 2, false);
            for (int i = 0; i < 3; i++)
                plumb_tensor_free(in[i]);
            ir_module_free(m);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_is_one_group),
        cmocka_unit_test(test_dag_shared_subexpression),
        cmocka_unit_test(test_no_cycle_through_outside_op),
        cmocka_unit_test(test_levels_and_unfusable),
        cmocka_unit_test(test_softmax_one_row_group),
        cmocka_unit_test(test_layer_norm_row_group),
        cmocka_unit_test(test_exec_exact_chain_with_broadcasts),
        cmocka_unit_test(test_exec_transcendental_chain),
        cmocka_unit_test(test_exec_softmax_layer_norm),
        cmocka_unit_test(test_exec_softmax_exp_pass),
        cmocka_unit_test(test_exec_softmax_exp_small_results),
        cmocka_unit_test(test_exec_layer_norm_variance_pass),
        cmocka_unit_test(test_exec_row_uniform_ops),
        cmocka_unit_test(test_exec_row_max_special_rows),
        cmocka_unit_test(test_exec_row_arith_special_lanes),
        cmocka_unit_test(test_exec_short_row_blocks),
        cmocka_unit_test(test_exec_short_rows_f64_sums),
        cmocka_unit_test(test_exec_short_rows_pass_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
