/* Chains of f32 arithmetic in row groups (runtime/fusion_exec.c, run_chain):
 * consecutive add/subtract/multiply/divide steps, each result read only by
 * the next, run as one loop with the intermediates in registers. They must
 * give the bits of the steps run apart: fused (opt_level 2) == unfused
 * (opt_level 1) bitwise on 1 and 2 threads and with the portable kernels,
 * NaN payloads included, and == the reference where no NaN is involved. */
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

/* Chains planned in @main of m (modified in place by the passes): their
 * number, *links their total length. */
static uint32_t planned_chains(ir_module *m, uint32_t *links)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_true(rt_run_passes(m, f, 2, 0, &d));
    plumb_arena *a = plumb_arena_new(0);
    assert_non_null(a);
    rt_group *g;
    uint32_t n;
    bool ok = rt_fuse(a, f, 2, &g, &n, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    uint32_t chains = 0, total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = 0;
        chains += rt_fused_chains(g[i].fused, &l);
        total += l;
    }
    plumb_arena_free(a);
    *links = total;
    return chains;
}

static plumb_tensor *new_tensor(uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* Ordinary values with, at pseudo-random places in every fourth window of
 * 64 elements, NaNs whose payload names
 * the operand (seed) and the place, infinities, signed zeros, subnormals
 * and values whose products overflow or underflow. */
static void fill_special(plumb_tensor *t, uint32_t seed)
{
    size_t n = (size_t)plumb_tensor_numel(t);
    uint32_t *p = t->data;
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        uint32_t r = s >> 8;
        float f = ((float)(r & 0xffff) / 65536.0f - 0.5f) * 6.0f + 0.25f;
        memcpy(&p[i], &f, 4);
        if ((i >> 6) % 4 != 0)
            continue;   /* specials in one 64-element window of four: the other blocks take the vector path */
        switch (r >> 20) {   /* 16 cases in 4096: about one element in six is special */
        case 0: p[i] = 0x7fc00000u | (seed << 12) | (uint32_t)(i & 0xfff); break;       /* quiet NaN */
        case 1: p[i] = 0xff800000u | (seed << 12) | (uint32_t)(i & 0xfff) | 1u; break;  /* signaling, negative */
        case 2: p[i] = 0x7f800000u; break;
        case 3: p[i] = 0xff800000u; break;
        case 4: p[i] = 0u; break;
        case 5: p[i] = 0x80000000u; break;
        case 6: p[i] = 0x00000001u + (r & 0xff); break;                               /* subnormals */
        case 7: p[i] = 0x807fffffu; break;
        case 8: p[i] = 0x7f7fffffu; break;                                            /* largest finite */
        case 9: p[i] = 0x00800000u; break;                                            /* smallest normal */
        default: break;
        }
    }
}

/* Rows 0..3 of x made special: a NaN (per-row max NaN), all zeros of both
 * signs, an infinity, all subnormal. */
static void special_rows(plumb_tensor *x, size_t L)
{
    uint32_t *b = x->data;
    size_t R = (size_t)plumb_tensor_numel(x) / L;
    for (size_t i = 0; i < L; i++) {
        if (R > 1)
            b[1 * L + i] = (i % 3) ? 0x80000000u : 0u;
        if (R > 3)
            b[3 * L + i] = 0x00000001u + (uint32_t)(i % 9);
    }
    b[L / 2] = 0x7fc0abcdu;
    if (R > 2)
        b[2 * L + L / 3] = 0x7f800000u;
}



/* Bitwise equality; with nan_any, any NaN equals any NaN (the reference's
 * NaN payloads are not the runtime's contract). */
static void expect_same(plumb_tensor *const *a, plumb_tensor *const *b, uint32_t n, bool nan_any, const char *what)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t ne = (size_t)plumb_tensor_numel(a[i]);
        assert_int_equal(ne, plumb_tensor_numel(b[i]));
        const uint32_t *x = a[i]->data, *y = b[i]->data;
        size_t bad = 0;
        for (size_t k = 0; k < ne; k++) {
            bool xn = (x[k] & 0x7fffffffu) > 0x7f800000u, yn = (y[k] & 0x7fffffffu) > 0x7f800000u;
            if (x[k] == y[k] || (nan_any && xn && yn))
                continue;
            if (bad++ < 5)
                fprintf(stderr, "%s: result %u element %zu: 0x%08x vs 0x%08x\n", what, i, k, x[k], y[k]);
        }
        assert_int_equal(bad, 0);
    }
}

/* opt 2 on 1 and 2 threads == opt 1 bitwise with the best kernels, and up
 * to NaN payloads with the portable ones; with ref, also == the reference up to NaN payloads. */
static void check_exec(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out, bool ref)
{
    plumb_tensor **u = run_program(m, 1, 1, PLUMB_ISA_AUTO, in, n_in, n_out);
    plumb_tensor **f1 = run_program(m, 2, 1, PLUMB_ISA_AUTO, in, n_in, n_out);
    plumb_tensor **f2 = run_program(m, 2, 2, PLUMB_ISA_AUTO, in, n_in, n_out);
    plumb_tensor **up = run_program(m, 1, 1, PLUMB_ISA_PORTABLE, in, n_in, n_out);
    plumb_tensor **fp = run_program(m, 2, 2, PLUMB_ISA_PORTABLE, in, n_in, n_out);
    expect_same(u, f1, n_out, false, "unfused vs fused, 1 thread");
    expect_same(u, f2, n_out, false, "unfused vs fused, 2 threads");
    /* With the portable kernels a row sum over several NaNs returns another
     * of them fused than unfused (the sum kernels', not the chains': no
     * chain runs there), so NaN payloads are not compared on that path. */
    expect_same(up, fp, n_out, true, "unfused vs fused, portable kernels");
    if (ref) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_ref_result r;
        assert_true(plumb_ref_run(m, NULL, in, n_in, NULL, &r, &d));
        expect_same(r.outputs, f2, n_out, true, "reference vs fused");
        plumb_ref_result_free(&r);
    }
    run_free_outs(u, n_out);
    run_free_outs(f1, n_out);
    run_free_outs(f2, n_out);
    run_free_outs(up, n_out);
    run_free_outs(fp, n_out);
}

/* ---- layer_norm and rms_norm ---------------------------------------------------------- */

/* layer_norm (which == 0) or rms_norm (1) of an f32 [rows, cols] parameter. */
static ir_module *norm_prog(int which, int64_t rows, int64_t cols)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    int64_t dims[2] = {rows, cols};
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 2, dims);
    ir_value *gamma = plumb_nn_param(&nn, PLUMB_F32, 1, &dims[1]);
    ir_value *y;
    if (which == 0) {
        ir_value *beta = plumb_nn_param(&nn, PLUMB_F32, 1, &dims[1]);
        y = plumb_nn_layer_norm(&nn, x, gamma, beta, 1e-5);
    } else {
        y = plumb_nn_rms_norm(&nn, x, gamma, 1e-5);
    }
    return nn_finish(&nn, m, &y, 1);
}

/* layer_norm's normalization xc * rstd * gamma + beta is one chain of three
 * links; rms_norm's x * rstd * gamma one of two. */
static void test_norm_chains_planned(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        ir_module *m = norm_prog(which, 8, 1024);
        uint32_t links = 0;
        assert_int_equal(planned_chains(m, &links), 1);
        assert_int_equal(links, which == 0 ? 3 : 2);
        ir_module_free(m);
    }
}

/* layer_norm and rms_norm on rows of 1, 15, 17, 1000, 1024 elements with
 * special rows and specials in x, gamma and beta: fused == unfused bitwise. */
static void test_norm_chains_exec(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 15, 17, 1000, 1024};
    for (int which = 0; which < 2; which++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            int64_t dims[2] = {6, lens[k]};
            ir_module *m = norm_prog(which, dims[0], dims[1]);
            plumb_tensor *in[3];
            uint32_t n_in = which == 0 ? 3 : 2;
            in[0] = new_tensor(2, dims);
            fill_special(in[0], 1);
            special_rows(in[0], (size_t)dims[1]);
            for (uint32_t i = 1; i < n_in; i++) {
                in[i] = new_tensor(1, &dims[1]);
                fill_special(in[i], 2 + i);
            }
            check_exec(m, in, n_in, 1, false);
            for (uint32_t i = 0; i < n_in; i++)
                plumb_tensor_free(in[i]);
            ir_module_free(m);
        }
}

/* ---- loop groups in registers ---------------------------------------------------------- */

/* Loop groups planned to run in registers in @main of m (modified in place). */
static uint32_t planned_regs(ir_module *m)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_true(rt_run_passes(m, f, 2, 0, &d));
    plumb_arena *a = plumb_arena_new(0);
    assert_non_null(a);
    rt_group *g;
    uint32_t n, r = 0;
    assert_true(rt_fuse(a, f, 2, &g, &n, &d));
    for (uint32_t i = 0; i < n; i++)
        r += rt_fused_regs(g[i].fused);
    plumb_arena_free(a);
    return r;
}

/* Programs on f32 [n]: 0: tanh(x*a + b) * logistic(x), a and b scalar
 * parameters broadcast; 1: t = |x| / y and -t - x*c, both returned (t is a
 * result that a later step also reads; exact ops only); 2: exp(x) +
 * exp(-x) and tanh(x) - exp(-x); 3: sine(x) * a (no register form:
 * planned apart). */
static ir_module *regs_prog(int which, int64_t n, uint32_t *n_in, uint32_t *n_out)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    plumb_diag nd;
    memset(&nd, 0, sizeof nd);
    assert_true(plumb_nn_init(&nn, m, &nd));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    /* every parameter before the first op */
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n);
    ir_value *v = which == 1 ? plumb_nn_param(&nn, PLUMB_F32, 1, &n) : NULL;
    ir_value *p1 = which != 2 ? plumb_nn_param(&nn, PLUMB_F32, 0, NULL) : NULL;
    ir_value *p2 = which == 0 ? plumb_nn_param(&nn, PLUMB_F32, 0, NULL) : NULL;
    ir_value *y[2];
    *n_in = which == 2 ? 1 : which == 3 ? 2 : 3;
    *n_out = which == 1 || which == 2 ? 2 : 1;
    if (which == 0) {
        ir_value *a = plumb_nn_broadcast_to(&nn, p1, &x->type), *b = plumb_nn_broadcast_to(&nn, p2, &x->type);
        ir_value *t = plumb_nn_unary(&nn, PLUMB_OP_TANH, plumb_nn_add(&nn, plumb_nn_mul(&nn, x, a), b));
        y[0] = plumb_nn_mul(&nn, t, plumb_nn_unary(&nn, PLUMB_OP_LOGISTIC, x));
    } else if (which == 3) {
        y[0] = plumb_nn_mul(&nn, plumb_nn_unary(&nn, PLUMB_OP_SINE, x), plumb_nn_broadcast_to(&nn, p1, &x->type));
    } else if (which == 1) {
        ir_value *c = plumb_nn_broadcast_to(&nn, p1, &x->type);
        y[0] = plumb_nn_div(&nn, plumb_nn_unary(&nn, PLUMB_OP_ABS, x), v);
        y[1] = plumb_nn_sub(&nn, plumb_nn_unary(&nn, PLUMB_OP_NEGATE, y[0]), plumb_nn_mul(&nn, x, c));
    } else {
        y[0] = plumb_nn_add(&nn, plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL, x),
                            plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL, plumb_nn_unary(&nn, PLUMB_OP_NEGATE, x)));
        y[1] = plumb_nn_sub(&nn, plumb_nn_unary(&nn, PLUMB_OP_TANH, x),
                            plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL, plumb_nn_unary(&nn, PLUMB_OP_NEGATE, x)));
    }
    return nn_finish(&nn, m, y, *n_out);
}

/* The f32 chains of add/subtract/multiply/divide, negate, abs, exp,
 * logistic and tanh with scalar broadcasts are planned in registers; a
 * group with an op that has no register form is not. */
static void test_regs_planned(void **state)
{
    (void)state;
    static const uint32_t want[4] = {1, 1, 1, 0};
    for (int which = 0; which < 4; which++) {
        uint32_t n_in, n_out;
        ir_module *m = regs_prog(which, 4096, &n_in, &n_out);
        assert_int_equal(planned_regs(m), want[which]);
        ir_module_free(m);
    }
}

/* Register-run loop groups on 1 .. 40000 elements (partial vectors and
 * blocks, several tiles, several chunks on 2 threads), with ordinary
 * values only, then with NaN payloads, infinities, signed zeros,
 * subnormals and overflowing values in every fourth 64-element window of
 * the full operands, then in the scalars too:
 * fused == unfused bitwise (the flagged and NaN blocks are recomputed by
 * the tile path), and the exact-op program == the reference. */
static void test_regs_exec(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 16, 127, 128, 129, 1000, 4099, 40000};
    for (int which = 0; which < 3; which++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            for (int special = 0; special < 3; special++) {
                int64_t n = lens[k];
                uint32_t n_in, n_out;
                ir_module *m = regs_prog(which, n, &n_in, &n_out);
                plumb_tensor *in[3];
                for (uint32_t i = 0; i < n_in; i++) {
                    bool full = i == 0 || (which == 1 && i == 1);
                    in[i] = full ? new_tensor(1, &n) : new_tensor(0, NULL);
                    fill_special(in[i], 7 + i);
                    float *f = in[i]->data;
                    if (!full && special < 2)
                        f[0] = i == 1 ? 0.75f : 0.25f;
                    else if (full && special == 0)
                        /* the same values with the specials replaced */
                        for (int64_t e = 0; e < n; e++)
                            if (!(f[e] > -4.0f && f[e] < 4.0f) || (f[e] > -1e-3f && f[e] < 1e-3f))
                                f[e] = 0.5f + (float)(e % 7) * 0.25f;
                }
                check_exec(m, in, n_in, n_out, which == 1);
                for (uint32_t i = 0; i < n_in; i++)
                    plumb_tensor_free(in[i]);
                ir_module_free(m);
            }
}

/* exp(x) * a on f32 [n], a a scalar parameter broadcast. */
static ir_module *regs_exp_prog(int64_t n)
{
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    assert_true(plumb_nn_init(&nn, m, NULL));
    assert_true(plumb_nn_begin_func(&nn, "main", true));
    ir_value *x = plumb_nn_param(&nn, PLUMB_F32, 1, &n);
    ir_value *p = plumb_nn_param(&nn, PLUMB_F32, 0, NULL);
    ir_value *y = plumb_nn_mul(&nn, plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL, x), plumb_nn_broadcast_to(&nn, p, &x->type));
    return nn_finish(&nn, m, &y, 1);
}

/* exp in a register-run loop group on x in [-86.9, -86.64], where e^x is
 * normal but below 2^-125: the exp kernel sends those results through its
 * exact path (it checks results, not only inputs), so the register path
 * must too: fused == unfused bitwise. */
static void test_regs_exp_small_results(void **state)
{
    (void)state;
    const int64_t n = 16000, one = 1;
    ir_module *m = regs_exp_prog(n);
    ir_module *mp = regs_exp_prog(n);
    assert_int_equal(planned_regs(mp), 1);
    ir_module_free(mp);
    plumb_tensor *in[2] = {new_tensor(1, &n), new_tensor(0, &one)};
    float lo = -86.64f, a = 1.0f;
    uint32_t b;
    memcpy(&b, &lo, 4);
    uint32_t *x = in[0]->data;
    for (int64_t e = 0; e < n; e++)
        x[e] = b + 2u * (uint32_t)e;   /* more negative as e grows */
    memcpy(in[1]->data, &a, 4);
    check_exec(m, in, 2, 1, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* A register-run loop group whose temporary is read twice by one step
 * (t * t), whose result is read by later steps (o1), once of them as both
 * operands (o1 / o1): each value a later step reads is kept for it, on
 * ordinary values and with specials (blocks recomputed by the tile path).
 * fused == unfused bitwise. */
static void test_regs_shared_operands(void **state)
{
    (void)state;
    static const int64_t lens[] = {128, 1000, 40000};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
        for (int special = 0; special < 2; special++) {
            long long n = lens[k];
            char src[2048];
            snprintf(src, sizeof src,
                     "func.func @main(%%x: tensor<%lldxf32>, %%a: tensor<f32>) -> (tensor<%lldxf32>, tensor<%lldxf32>) {\n"
                     "  %%ab = stablehlo.broadcast_in_dim %%a, dims = [] : (tensor<f32>) -> tensor<%lldxf32>\n"
                     "  %%u = stablehlo.multiply %%x, %%ab : tensor<%lldxf32>\n"
                     "  %%t = stablehlo.tanh %%u : tensor<%lldxf32>\n"
                     "  %%q = stablehlo.multiply %%t, %%t : tensor<%lldxf32>\n"
                     "  %%o1 = stablehlo.add %%q, %%u : tensor<%lldxf32>\n"
                     "  %%o2 = stablehlo.divide %%o1, %%o1 : tensor<%lldxf32>\n"
                     "  %%o3 = stablehlo.subtract %%o2, %%o1 : tensor<%lldxf32>\n"
                     "  return %%o1, %%o3 : tensor<%lldxf32>, tensor<%lldxf32>\n"
                     "}\n",
                     n, n, n, n, n, n, n, n, n, n, n, n);
            ir_module *pm = parse_ok(src);
            assert_int_equal(planned_regs(pm), 1);
            ir_module_free(pm);
            ir_module *m = parse_ok(src);
            int64_t dn = n;
            plumb_tensor *in[2] = {new_tensor(1, &dn), new_tensor(0, NULL)};
            fill_special(in[0], 60);
            float *f = in[0]->data;
            if (!special)
                for (int64_t e = 0; e < dn; e++)
                    if (!(f[e] > -4.0f && f[e] < 4.0f) || (f[e] > -1e-3f && f[e] < 1e-3f))
                        f[e] = 0.5f + (float)(e % 7) * 0.25f;
            float a = 0.75f;
            memcpy(in[1]->data, &a, 4);
            check_exec(m, in, 2, 2, false);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
            ir_module_free(m);
        }
}

/* Register-run blocks (RG_BLOCK, 512 elements) and their per-chunk step
 * descriptors: lengths around whole blocks (511, 512, 513, three blocks
 * and a tail, several tiles and chunks) with ordinary values, and with one
 * quiet NaN planted at the first element, in the middle or at the last
 * one (a whole block or the tail), whose block alone is recomputed by the
 * tile path while the blocks around it keep the register results. Every
 * program kind: results that are also read later (which 1), scalar
 * operands, the flagged functions. fused == unfused bitwise, and the
 * exact-op program == the reference. */
static void test_regs_block_edges(void **state)
{
    (void)state;
    static const int64_t lens[] = {511, 512, 513, 3 * 512 + 7, 10 * 512 + 100};
    for (int which = 0; which < 3; which++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            for (int plant = 0; plant < 4; plant++) {
                int64_t n = lens[k];
                uint32_t n_in, n_out;
                ir_module *m = regs_prog(which, n, &n_in, &n_out);
                plumb_tensor *in[3];
                for (uint32_t i = 0; i < n_in; i++) {
                    bool full = i == 0 || (which == 1 && i == 1);
                    in[i] = full ? new_tensor(1, &n) : new_tensor(0, NULL);
                    fill_special(in[i], 31 + i);
                    float *f = in[i]->data;
                    if (!full) {
                        f[0] = i == 1 ? 0.75f : 0.25f;
                        continue;
                    }
                    for (int64_t e = 0; e < n; e++)
                        if (!(f[e] > -4.0f && f[e] < 4.0f) || (f[e] > -1e-3f && f[e] < 1e-3f))
                            f[e] = 0.5f + (float)(e % 7) * 0.25f;
                    if (i == 0 && plant > 0) {
                        int64_t at = plant == 1 ? 0 : plant == 2 ? n / 2 : n - 1;
                        uint32_t qn = 0x7fc01234u;
                        memcpy(&f[at], &qn, 4);
                    }
                }
                check_exec(m, in, n_in, n_out, which == 1);
                for (uint32_t i = 0; i < n_in; i++)
                    plumb_tensor_free(in[i]);
                ir_module_free(m);
            }
}

/* ---- generated chains ------------------------------------------------------------- */

static const char *const op_name[4] = {"add", "subtract", "multiply", "divide"};

/* Operand kinds: a full row (one of the parameters %a..%d, or %gb, gamma
 * broadcast along the rows, in turn) or the per-row %p (the row max of x
 * broadcast back: exact in any order, so the reference agrees). */
typedef struct chain_spec {
    uint32_t links;
    int head;                 /* 0: row op row; 1: per-row op row; 2: row op per-row */
    int side[4];              /* links 1..: 0 running value first, 1 second */
    int scal[4];              /* links 1..: the other operand is per-row */
    int op[4];
    int out;                  /* 0: returned; 1: returned and summed in the group; 2: through exp */
} chain_spec;

static const char *row_name(uint32_t *k)
{
    static const char *const rows[] = {"%a", "%b", "%gb", "%c", "%d", "%x"};
    return rows[(*k)++ % 6];
}

static char *chain_src(const chain_spec *c, int64_t R, int64_t L)
{
    size_t cap = 8192;
    char *s = malloc(cap);
    assert_non_null(s);
    char T[64];
    snprintf(T, sizeof T, "tensor<%lldx%lldxf32>", (long long)R, (long long)L);
    size_t n = 0;
#define EMIT(...) (n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__), assert_true(n < cap))
    const char *res = c->out == 1 ? ", tensor<%lldxf32>" : "";
    EMIT("func.func @main(%%x: %s, %%a: %s, %%b: %s, %%c: %s, %%d: %s, %%g: tensor<%lldxf32>) -> (%s", T, T, T, T,
         T, (long long)L, T);
    EMIT(res, (long long)R);
    EMIT(") {\n");
    EMIT("  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n");
    EMIT("  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n");
    EMIT("  %%mx = stablehlo.reduce(%%x init: %%ninf) applies stablehlo.maximum across dimensions = [1] : (%s, "
         "tensor<f32>) -> tensor<%lldxf32>\n", T, (long long)R);
    EMIT("  %%p = stablehlo.broadcast_in_dim %%mx, dims = [0] : (tensor<%lldxf32>) -> %s\n", (long long)R, T);
    EMIT("  %%gb = stablehlo.broadcast_in_dim %%g, dims = [1] : (tensor<%lldxf32>) -> %s\n", (long long)L, T);
    uint32_t rk = 0;
    const char *h0 = c->head == 1 ? "%p" : row_name(&rk);
    const char *h1 = c->head == 2 ? "%p" : row_name(&rk);
    EMIT("  %%v0 = stablehlo.%s %s, %s : %s\n", op_name[c->op[0]], h0, h1, T);
    for (uint32_t j = 1; j < c->links; j++) {
        char prev[16];
        snprintf(prev, sizeof prev, "%%v%u", j - 1);
        const char *o = c->scal[j] ? "%p" : row_name(&rk);
        EMIT("  %%v%u = stablehlo.%s %s, %s : %s\n", j, op_name[c->op[j]], c->side[j] ? o : prev,
             c->side[j] ? prev : o, T);
    }
    uint32_t last = c->links - 1;
    if (c->out == 0) {
        EMIT("  return %%v%u : %s\n", last, T);
    } else if (c->out == 1) {
        EMIT("  %%s = stablehlo.reduce(%%v%u init: %%z) applies stablehlo.add across dimensions = [1] : (%s, "
             "tensor<f32>) -> tensor<%lldxf32>\n", last, T, (long long)R);
        EMIT("  return %%v%u, %%s : %s, tensor<%lldxf32>\n", last, T, (long long)R);
    } else {
        EMIT("  %%e = stablehlo.exponential %%v%u : %s\n", last, T);
        EMIT("  return %%e : %s\n", T);
    }
    EMIT("}\n");
#undef EMIT
    return s;
}

/* One generated chain: planned as one chain of c->links links, and fused ==
 * unfused (== the reference when only exact ops are involved). */
static void check_chain(const chain_spec *c, int64_t R, int64_t L, uint32_t seed)
{
    char *src = chain_src(c, R, L);
    ir_module *pm = parse_ok(src);
    /* chains run in row groups: the chain is in one when it reads the
     * per-row %p or its result is summed in the group */
    bool rows = c->head != 0 || c->out == 1;
    for (uint32_t j = 1; j < c->links; j++)
        rows |= c->scal[j] != 0;
    uint32_t links = 0;
    uint32_t chains = planned_chains(pm, &links);
    if (!rows) {
        assert_int_equal(chains, 0);
    } else if (chains != 1 || links != c->links)
        fprintf(stderr, "planned %u chains, %u links for:\n%s", chains, links, src);
    if (rows) {
        assert_int_equal(chains, 1);
        assert_int_equal(links, c->links);
    }
    ir_module_free(pm);
    ir_module *m = parse_ok(src);
    int64_t dims[2] = {R, L};
    plumb_tensor *in[6];
    for (int i = 0; i < 5; i++) {
        in[i] = new_tensor(2, dims);
        fill_special(in[i], seed + (uint32_t)i);
    }
    special_rows(in[0], (size_t)L);
    in[5] = new_tensor(1, &dims[1]);
    fill_special(in[5], seed + 5);
    /* the reference's row sum is not the runtime's (a bound, not bits);
     * exp is within its ULP bound only */
    check_exec(m, in, 6, c->out == 1 ? 2 : 1, c->out == 0);
    for (int i = 0; i < 6; i++)
        plumb_tensor_free(in[i]);
    ir_module_free(m);
    free(src);
}

/* Chains of two links: every head kind, every second-link kind (running
 * value on either side, full-row or per-row operand), all 16 operation
 * pairs across them, each result mode, rows of 1, 15, 17 and 1024. */
static void test_chains_of_two(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 15, 17, 1024};
    uint32_t k = 0;
    for (int head = 0; head < 3; head++)
        for (int kind = 0; kind < 4; kind++)
            for (int ops = 0; ops < 16; ops++, k++) {
                chain_spec c;
                memset(&c, 0, sizeof c);
                c.links = 2;
                c.head = head;
                c.side[1] = kind & 1;
                c.scal[1] = kind >> 1;
                c.op[0] = ops & 3;
                c.op[1] = ops >> 2;
                c.out = (int)(k % 3);
                check_chain(&c, 5, lens[k % 4], k);
            }
}

/* Chains of four links: every head kind and every combination of the three
 * later links' kinds, the operations in turn so that each appears at each
 * position, rows of 17, 1000 and 1024 (a 128-element block tail, a
 * 16-element tail, none). */
static void test_chains_of_four(void **state)
{
    (void)state;
    static const int64_t lens[] = {17, 1000, 1024};
    uint32_t k = 0;
    for (int head = 0; head < 3; head++)
        for (int kinds = 0; kinds < 64; kinds++, k++) {
            chain_spec c;
            memset(&c, 0, sizeof c);
            c.links = 4;
            c.head = head;
            for (int j = 1; j < 4; j++) {
                int kd = (kinds >> (2 * (j - 1))) & 3;
                c.side[j] = kd & 1;
                c.scal[j] = kd >> 1;
            }
            for (int j = 0; j < 4; j++)
                c.op[j] = (int)((k + (uint32_t)j * 3) % 4);
            c.out = (int)(k % 3);
            check_chain(&c, 3, lens[k % 3], 100 + k);
        }
}

/* A fifth link starts no longer chain: the planner cuts at four links and
 * the rest runs apart (one chain of 4, the fifth step alone), same bits. */
static void test_chain_of_five_cut(void **state)
{
    (void)state;
    static const char src5[] =
        "func.func @main(%x: tensor<4x100xf32>, %a: tensor<4x100xf32>) -> tensor<4x100xf32> {\n"
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x100xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  %p = stablehlo.broadcast_in_dim %mx, dims = [0] : (tensor<4xf32>) -> tensor<4x100xf32>\n"
        "  %v0 = stablehlo.subtract %x, %p : tensor<4x100xf32>\n"
        "  %v1 = stablehlo.multiply %v0, %a : tensor<4x100xf32>\n"
        "  %v2 = stablehlo.divide %p, %v1 : tensor<4x100xf32>\n"
        "  %v3 = stablehlo.add %a, %v2 : tensor<4x100xf32>\n"
        "  %v4 = stablehlo.subtract %v3, %x : tensor<4x100xf32>\n"
        "  return %v4 : tensor<4x100xf32>\n"
        "}\n";
    ir_module *m = parse_ok(src5);
    uint32_t links = 0;
    assert_int_equal(planned_chains(m, &links), 1);
    assert_int_equal(links, 4);
    ir_module_free(m);
    m = parse_ok(src5);
    int64_t dims[2] = {4, 100};
    plumb_tensor *in[2] = {new_tensor(2, dims), new_tensor(2, dims)};
    fill_special(in[0], 40);
    special_rows(in[0], 100);
    fill_special(in[1], 41);
    check_exec(m, in, 2, 1, true);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* Chains on rows short enough that a unit holds many rows (130 rows of 7:
 * 64 rows a unit and a partial last one; 600 rows of 64 over two chunks;
 * 70 rows of 1): every head kind, per-row operands in later links on
 * either side, each result mode. fused == unfused bitwise. */
static void test_chains_short_row_blocks(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{130, 7}, {600, 64}, {70, 1}};
    uint32_t k = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int head = 0; head < 3; head++)
            for (int kinds = 0; kinds < 64; kinds += 9, k++) {
                chain_spec c;
                memset(&c, 0, sizeof c);
                c.links = 2 + (uint32_t)(k % 3);
                c.head = head;
                for (uint32_t j = 1; j < c.links; j++) {
                    int kd = (kinds >> (2 * (j - 1))) & 3;
                    c.side[j] = kd & 1;
                    c.scal[j] = kd >> 1;
                }
                for (uint32_t j = 0; j < c.links; j++)
                    c.op[j] = (int)((k + j * 3) % 4);
                c.out = (int)(k % 3);
                check_chain(&c, shapes[sh][0], shapes[sh][1], 300 + k);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm_chains_planned),
        cmocka_unit_test(test_norm_chains_exec),
        cmocka_unit_test(test_regs_planned),
        cmocka_unit_test(test_regs_exec),
        cmocka_unit_test(test_regs_exp_small_results),
        cmocka_unit_test(test_regs_shared_operands),
        cmocka_unit_test(test_regs_block_edges),
        cmocka_unit_test(test_chains_of_two),
        cmocka_unit_test(test_chains_of_four),
        cmocka_unit_test(test_chain_of_five_cut),
        cmocka_unit_test(test_chains_short_row_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
