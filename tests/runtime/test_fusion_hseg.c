/* f16/bf16 register segments (runtime/fusion_build.c mark_hsegs and
 * runtime/fusion_exec.c run_hseg):
 * consecutive half elementwise steps of a loop or row group run block by
 * block in registers at the AVX-512 level, rounding once per op. Every op
 * class (arithmetic, sqrt, sign operations, exp/logistic/tanh in f32
 * registers, and ops the segment hands to the kernel on the block) on
 * every f16 and bf16 pattern against special and random second operands:
 * the fused program equals the unfused one (each op its own kernel) bit for
 * bit at the AVX-512, AVX2 and portable levels, on 1 and 2 threads; the
 * exact ops equal the reference interpreter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"
#include "../../runtime/rt_fusion.h"

static const plumb_dtype HALVES[2] = {PLUMB_F16, PLUMB_BF16};

/* NaNs (quiet and signaling, both signs, payloads), infinities, zeros,
 * subnormals, the largest finite and smallest normal values, ones, and
 * values whose products and exps overflow or underflow */
static const uint16_t SP_F16[] = {0x7E01, 0x7C01, 0xFD55, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x83FF,
                                  0x7BFF, 0xFBFF, 0x0400, 0x3C00, 0xBC00, 0x4000, 0x5A00, 0xCB00, 0x1400};
static const uint16_t SP_BF16[] = {0x7FC1, 0x7F81, 0xFF95, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x807F,
                                   0x7F7F, 0xFF7F, 0x0080, 0x3F80, 0xBF80, 0x4000, 0x42B4, 0xC2C0, 0x2000};

static char ctx[160];

static plumb_tensor *new_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* x: every pattern in turn from `start`; y: a special value every third
 * element, else pseudo-random patterns (any class) */
static void fill_pair(plumb_tensor *x, plumb_tensor *y, uint32_t start, uint32_t seed)
{
    size_t n = (size_t)plumb_tensor_numel(x);
    bool f16 = x->dtype == PLUMB_F16;
    const uint16_t *sp = f16 ? SP_F16 : SP_BF16;
    size_t ns = sizeof SP_F16 / sizeof SP_F16[0];
    uint16_t *px = x->data, *py = y->data;
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        px[i] = (uint16_t)(start + i);
        py[i] = i % 3 == 0 ? sp[(i / 3) % ns] : (uint16_t)(s >> 16);
    }
}

static void expect_same(plumb_tensor *const *a, plumb_tensor *const *b, uint32_t n, const char *what)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t ne = (size_t)plumb_tensor_numel(a[i]), shown = 0;
        for (size_t k = 0; k < ne && shown < 5; k++) {
            uint64_t x = plumb_load_bits(a[i]->dtype, a[i]->data, k);
            uint64_t y = plumb_load_bits(b[i]->dtype, b[i]->data, k);
            if (x != y) {
                fprintf(stderr, "%s %s (%s): result %u element %zu: 0x%llx vs 0x%llx\n", ctx, what,
                        plumb_dtype_name(a[i]->dtype), i, k, (unsigned long long)x, (unsigned long long)y);
                shown++;
            }
        }
        assert_true(plumb_tensor_equal(a[i], b[i]));
    }
}

/* opt 2 (segments) == opt 1 (op by op) on 1 and 2 threads at every level */
static void check_levels(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out)
{
    const plumb_isa isas[3] = {PLUMB_ISA_AUTO, PLUMB_ISA_AVX2, PLUMB_ISA_PORTABLE};
    static const char *names[3] = {"best level", "avx2", "portable"};
    for (int k = 0; k < 3; k++) {
        plumb_tensor **u = run_program(m, 1, 1, isas[k], in, n_in, n_out);
        plumb_tensor **f1 = run_program(m, 2, 1, isas[k], in, n_in, n_out);
        plumb_tensor **f2 = run_program(m, 2, 2, isas[k], in, n_in, n_out);
        char w[64];
        snprintf(w, sizeof w, "unfused vs fused, %s, 1 thread", names[k]);
        expect_same(u, f1, n_out, w);
        snprintf(w, sizeof w, "unfused vs fused, %s, 2 threads", names[k]);
        expect_same(u, f2, n_out, w);
        run_free_outs(u, n_out);
        run_free_outs(f1, n_out);
        run_free_outs(f2, n_out);
    }
}

/* The fused best-level results [0, n_cmp) equal the reference bit for bit,
 * any NaN matching any NaN (NaN payloads are not part of the ops' contract). */
static void check_ref(const ir_module *m, plumb_tensor *const *in, uint32_t n_in, uint32_t n_out, uint32_t n_cmp)
{
    plumb_tensor **f = run_program(m, 2, 1, PLUMB_ISA_AUTO, in, n_in, n_out);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result r;
    assert_true(plumb_ref_run(m, NULL, in, n_in, NULL, &r, &d));
    for (uint32_t i = 0; i < n_cmp; i++) {
        const plumb_tensor *want = r.outputs[i], *got = f[i];
        size_t ne = (size_t)plumb_tensor_numel(want), bad = 0;
        for (size_t k = 0; k < ne; k++) {
            uint64_t a = plumb_load_bits(want->dtype, want->data, k), b = plumb_load_bits(got->dtype, got->data, k);
            if (a == b || (plumb_float_is_nan(want->dtype, a) && plumb_float_is_nan(got->dtype, b)))
                continue;
            if (bad++ < 5)
                fprintf(stderr, "%s reference vs fused (%s): result %u element %zu: 0x%llx vs 0x%llx\n", ctx,
                        plumb_dtype_name(want->dtype), i, k, (unsigned long long)a, (unsigned long long)b);
        }
        assert_int_equal(bad, 0);
    }
    plumb_ref_result_free(&r);
    run_free_outs(f, n_out);
}

/* Segments and the steps in them of @main's fused groups (after the
 * passes), summed over the groups; *groups: fused groups. */
static uint32_t plan_hsegs(ir_module *m, uint32_t *steps, uint32_t *groups)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_true(rt_run_passes(m, f, 2, 0, &d));
    plumb_arena *a = plumb_arena_new(0);
    rt_group *g;
    uint32_t n, segs = 0, k = 0, nf = 0;
    assert_true(rt_fuse(a, f, 2, &g, &n, &d));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t st = 0;
        if (!g[i].fused)
            continue;
        nf++;
        segs += rt_fused_hsegs(g[i].fused, &st);
        k += st;
    }
    plumb_arena_free(a);
    *steps = k;
    *groups = nf;
    return segs;
}

typedef struct opcase {
    const char *op;
    bool binary;
    bool exact;   /* correctly rounded on both backends: the reference's bits */
} opcase;

/* the register ops, then ops the segment runs through the kernel */
static const opcase OPS[] = {
    {"add", true, true},          {"subtract", true, true},     {"multiply", true, true},
    {"divide", true, true},       {"sqrt", false, true},        {"negate", false, true},
    {"abs", false, true},         {"exponential", false, false}, {"logistic", false, false},
    {"tanh", false, false},       {"maximum", true, true},      {"log", false, false},
    {"rsqrt", false, false},      {"floor", false, true},       {"power", true, false},
};

/* A loop group: %a = OP(x, -y) reads memory and a segment value, %b =
 * OP(%a, y) reads a segment value that also leaves the group, %c = %b * x.
 * Each op of the chain sees every pattern (as x) and the specials (as y). */
static ir_module *op_prog(const opcase *oc, const char *tn, int64_t R, int64_t L)
{
    char ty[64], src[2048];
    snprintf(ty, sizeof ty, "tensor<%lldx%lldx%s>", (long long)R, (long long)L, tn);
    if (oc->binary)
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n"
                 "  %%n = stablehlo.negate %%y : %s\n"
                 "  %%a = stablehlo.%s %%x, %%n : %s\n"
                 "  %%b = stablehlo.%s %%a, %%y : %s\n"
                 "  %%c = stablehlo.multiply %%b, %%x : %s\n"
                 "  return %%a, %%c : %s, %s\n"
                 "}\n",
                 ty, ty, ty, ty, ty, oc->op, ty, oc->op, ty, ty, ty, ty);
    else
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n"
                 "  %%a = stablehlo.%s %%x : %s\n"
                 "  %%s = stablehlo.add %%a, %%y : %s\n"
                 "  %%b = stablehlo.%s %%s : %s\n"
                 "  %%c = stablehlo.multiply %%b, %%x : %s\n"
                 "  return %%a, %%c : %s, %s\n"
                 "}\n",
                 ty, ty, ty, ty, oc->op, ty, ty, oc->op, ty, ty, ty, ty);
    return parse_ok(src);
}

/* The op-class chains are planned as one segment of all their steps. */
static void test_hseg_planned(void **state)
{
    (void)state;
    for (int ti = 0; ti < 2; ti++)
        for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
            ir_module *m = op_prog(&OPS[o], ti ? "bf16" : "f16", 8, 64);
            uint32_t steps, groups;
            assert_int_equal(plan_hsegs(m, &steps, &groups), 1);
            assert_int_equal(groups, 1);
            assert_int_equal(steps, 4);   /* binary: negate, OP, OP, multiply; unary: OP, add, OP, multiply */
            ir_module_free(m);
        }
}

/* softmax and layer_norm of f16/bf16: the row broadcasts and the
 * elementwise steps between the row folds form segments (softmax: the
 * shift and exp, and the division; layer_norm: the centring and its square,
 * and the normalization chain); f32 plans none. */
static void test_hseg_norms_planned(void **state)
{
    (void)state;
    const plumb_dtype ts[3] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32};
    for (int ti = 0; ti < 3; ti++)
        for (int which = 0; which < 2; which++) {
            ir_module *m = ir_module_new(NULL);
            plumb_nn nn;
            assert_true(plumb_nn_init(&nn, m, NULL));
            assert_true(plumb_nn_begin_func(&nn, "main", true));
            int64_t dims[2] = {64, 256};
            ir_value *x = plumb_nn_param(&nn, ts[ti], 2, dims), *y;
            if (which == 0) {
                y = plumb_nn_softmax(&nn, x, -1);
            } else {
                ir_value *gamma = plumb_nn_param(&nn, ts[ti], 1, &dims[1]);
                ir_value *beta = plumb_nn_param(&nn, ts[ti], 1, &dims[1]);
                y = plumb_nn_layer_norm(&nn, x, gamma, beta, 1e-5);
            }
            m = nn_finish(&nn, m, &y, 1);
            uint32_t steps, groups, segs = plan_hsegs(m, &steps, &groups);
            snprintf(ctx, sizeof ctx, "%s %s", which ? "layer_norm" : "softmax", plumb_dtype_name(ts[ti]));
            if (ti == 2) {
                assert_int_equal(segs, 0);
            } else {
                if (segs != 2)
                    fprintf(stderr, "%s: %u segments of %u steps\n", ctx, segs, steps);
                assert_int_equal(segs, 2);
                assert_true(steps >= 5);
            }
            ir_module_free(m);
        }
}

/* Every op class on all 65536 patterns (x) against specials and random
 * patterns (y), f16 and bf16, in a loop group of whole blocks and in one
 * whose tiles end in partial blocks: fused == unfused at every level and
 * thread count; the exact ops == the reference. */
static void test_hseg_ops_all_patterns(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{256, 256}, {7, 1001}};
    for (int ti = 0; ti < 2; ti++)
        for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++)
            for (size_t s = 0; s < 2; s++) {
                const int64_t *dims = shapes[s];
                ir_module *m = op_prog(&OPS[o], ti ? "bf16" : "f16", dims[0], dims[1]);
                snprintf(ctx, sizeof ctx, "%s %s %lldx%lld:", OPS[o].op, ti ? "bf16" : "f16", (long long)dims[0],
                         (long long)dims[1]);
                plumb_tensor *in[2] = {new_tensor(HALVES[ti], 2, dims), new_tensor(HALVES[ti], 2, dims)};
                fill_pair(in[0], in[1], s ? 0x3000u : 0u, (uint32_t)(o * 2 + s));
                check_levels(m, in, 2, 2);
                if (OPS[o].exact)
                    check_ref(m, in, 2, 2, 2);
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
                ir_module_free(m);
            }
}

/* Squares in a segment (run_hseg passes one block as both operands; the
 * step loads and widens it once): a group input squared (x * x), a
 * segment value squared ((x + x)^2) and a product of two different
 * operands (x * (x + x), not a square), on every pattern of f16 and bf16, in
 * whole and partial blocks: fused == unfused at every level and thread
 * count, and == the reference (an exact op). */
static void test_hseg_square_all_patterns(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{64, 1024}, {5, 13109}};
    for (int ti = 0; ti < 2; ti++)
        for (size_t s = 0; s < 2; s++) {
            const int64_t *dims = shapes[s];
            const char *tn = ti ? "bf16" : "f16";
            char ty[64], src[1024];
            snprintf(ty, sizeof ty, "tensor<%lldx%lldx%s>", (long long)dims[0], (long long)dims[1], tn);
            snprintf(src, sizeof src,
                     "func.func @main(%%x: %s) -> (%s, %s, %s) {\n"
                     "  %%n = stablehlo.add %%x, %%x : %s\n"
                     "  %%a = stablehlo.multiply %%x, %%x : %s\n"
                     "  %%b = stablehlo.multiply %%n, %%n : %s\n"
                     "  %%c = stablehlo.multiply %%x, %%n : %s\n"
                     "  %%d = stablehlo.add %%b, %%c : %s\n"
                     "  return %%a, %%b, %%d : %s, %s, %s\n"
                     "}\n",
                     ty, ty, ty, ty, ty, ty, ty, ty, ty, ty, ty, ty);
            ir_module *pm = parse_ok(src);
            uint32_t steps = 0, groups = 0;
            assert_true(plan_hsegs(pm, &steps, &groups) >= 1);
            assert_true(steps >= 4);   /* of x + x, the three multiplies and the add */
            ir_module_free(pm);
            ir_module *m = parse_ok(src);
            snprintf(ctx, sizeof ctx, "square %s %lldx%lld:", tn, (long long)dims[0], (long long)dims[1]);
            plumb_tensor *in[2] = {new_tensor(HALVES[ti], 2, dims), new_tensor(HALVES[ti], 2, dims)};
            fill_pair(in[0], in[1], 0x1234u, (uint32_t)s);
            check_levels(m, in, 1, 3);
            check_ref(m, in, 1, 3, 3);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
            ir_module_free(m);
        }
}

/* A row group whose segment starts with the row broadcast of a row max
 * and mixes register and kernel ops, stores a value the group returns and
 * one a later row fold reads, with a per-row sqrt of the row maxima (run
 * by hs_rows; negative maxima give the positive default NaN, where the
 * vector instruction gives a negative one): rows of 1 to 4099 elements (units of several rows,
 * partial blocks), every pattern as x: fused == unfused. */
static void test_hseg_row_group(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{67, 129}, {5, 1000}, {1, 4099}, {40, 64}, {3, 1}, {16, 4096}};
    for (int ti = 0; ti < 2; ti++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const char *tn = ti ? "bf16" : "f16";
            long long R = shapes[s][0], L = shapes[s][1];
            char ty[64], ry[64], src[4096];
            snprintf(ty, sizeof ty, "tensor<%lldx%lldx%s>", R, L, tn);
            snprintf(ry, sizeof ry, "tensor<%lldx%s>", R, tn);
            snprintf(src, sizeof src,
                     "func.func @main(%%x: %s, %%y: %s) -> (%s, %s, %s) {\n"
                     "  %%ni = stablehlo.constant dense<0x%s> : tensor<%s>\n"
                     "  %%z = stablehlo.constant dense<0x0000> : tensor<%s>\n"
                     "  %%m = stablehlo.reduce(%%x init: %%ni) applies stablehlo.maximum across dimensions = [1]"
                     " : (%s, tensor<%s>) -> %s\n"
                     "  %%b = stablehlo.broadcast_in_dim %%m, dims = [0] : (%s) -> %s\n"
                     "  %%d = stablehlo.subtract %%x, %%b : %s\n"
                     "  %%e = stablehlo.exponential %%d : %s\n"
                     "  %%f = stablehlo.multiply %%e, %%y : %s\n"
                     "  %%g = stablehlo.maximum %%f, %%d : %s\n"
                     "  %%t = stablehlo.tanh %%g : %s\n"
                     "  %%q = stablehlo.reduce(%%t init: %%z) applies stablehlo.add across dimensions = [1]"
                     " : (%s, tensor<%s>) -> %s\n"
                     "  %%qb = stablehlo.broadcast_in_dim %%q, dims = [0] : (%s) -> %s\n"
                     "  %%qq = stablehlo.sqrt %%b : %s\n"
                     "  %%h = stablehlo.divide %%e, %%qb : %s\n"
                     "  %%k = stablehlo.add %%qq, %%h : %s\n"
                     "  return %%k, %%e, %%q : %s, %s, %s\n"
                     "}\n",
                     ty, ty, ty, ty, ry, ti ? "FF80" : "FC00", tn, tn, ty, tn, ry, ry, ty, ty, ty, ty, ty, ty, ty,
                     tn, ry, ry, ty, ty, ty, ty, ty, ty, ry);
            ir_module *m = parse_ok(src);
            uint32_t steps, groups;
            uint32_t segs = plan_hsegs(m, &steps, &groups);
            assert_int_equal(groups, 1);
            assert_int_equal(segs, 2);
            snprintf(ctx, sizeof ctx, "row group %s %lldx%lld:", tn, R, L);
            int64_t dims[2] = {R, L};
            plumb_tensor *in[2] = {new_tensor(HALVES[ti], 2, dims), new_tensor(HALVES[ti], 2, dims)};
            for (uint32_t start = 0; start < 65536; start += (uint32_t)(R * L) > 8192 ? (uint32_t)(R * L) : 8192) {
                fill_pair(in[0], in[1], start, start + (uint32_t)s);
                check_levels(m, in, 2, 3);
                if (R * L < 1000)
                    break;
            }
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
            ir_module_free(m);
        }
}

/* A binary step whose second operand is a row broadcast (run_hseg widens
 * it once per block) and whose result is stored in whole blocks straight
 * into its memory: every row's broadcast value is one of the specials
 * (NaN payloads, signaling NaNs, infinities, zeros, subnormals, extremes),
 * x runs through every pattern, rows of 2500 (two whole blocks of 1024 and
 * a partial one) and 1024 (whole blocks only), each of add, subtract,
 * multiply and divide; fused == unfused at every level and thread count,
 * and == the reference. */
static void test_hseg_bcast_operand(void **state)
{
    (void)state;
    static const char *const ops[] = {"add", "subtract", "multiply", "divide"};
    static const int64_t lens[] = {2500, 1024};
    const int64_t R = (int64_t)(sizeof SP_F16 / sizeof SP_F16[0]);
    for (int ti = 0; ti < 2; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const char *tn = ti ? "bf16" : "f16";
                long long L = lens[li];
                char ty[64], ry[64], src[2048];
                snprintf(ty, sizeof ty, "tensor<%lldx%lldx%s>", (long long)R, L, tn);
                snprintf(ry, sizeof ry, "tensor<%lldx%s>", (long long)R, tn);
                /* the row max of y (each row one special value) is that
                 * value, broadcast back over the row */
                snprintf(src, sizeof src,
                         "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n"
                         "  %%ni = stablehlo.constant dense<0x%s> : tensor<%s>\n"
                         "  %%m = stablehlo.reduce(%%y init: %%ni) applies stablehlo.maximum across dimensions = [1]"
                         " : (%s, tensor<%s>) -> %s\n"
                         "  %%b = stablehlo.broadcast_in_dim %%m, dims = [0] : (%s) -> %s\n"
                         "  %%a = stablehlo.%s %%x, %%b : %s\n"
                         "  %%e = stablehlo.exponential %%a : %s\n"
                         "  return %%a, %%e : %s, %s\n"
                         "}\n",
                         ty, ty, ty, ty, ti ? "FF80" : "FC00", tn, ty, tn, ry, ry, ty, ops[oi], ty, ty, ty, ty);
                ir_module *m = parse_ok(src);
                uint32_t steps, groups;
                assert_true(plan_hsegs(m, &steps, &groups) >= 1);
                snprintf(ctx, sizeof ctx, "broadcast operand %s %s %lldx%lld:", ops[oi], tn, (long long)R, L);
                int64_t dims[2] = {R, L};
                plumb_tensor *in[2] = {new_tensor(HALVES[ti], 2, dims), new_tensor(HALVES[ti], 2, dims)};
                const uint16_t *sp = ti ? SP_BF16 : SP_F16;
                uint16_t *py = in[1]->data;
                for (int64_t r = 0; r < R; r++)
                    for (int64_t k = 0; k < L; k++)
                        py[r * L + k] = sp[r];
                for (uint32_t start = 0; start < 65536; start += (uint32_t)(R * L)) {
                    uint16_t *px = in[0]->data;
                    for (int64_t i = 0; i < R * L; i++)
                        px[i] = (uint16_t)(start + (uint32_t)i);
                    check_levels(m, in, 2, 2);
                    check_ref(m, in, 2, 2, 1);   /* the exact op; exp is within bounds, not exact */
                }
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
                ir_module_free(m);
            }
}

/* A division by a row broadcast (bf16 segments multiply by the f32
 * reciprocal when 2^-126 <= |c| <= 2^126, runtime/fusion_exec.c
 * hs_rcp_ok): each row's divisor one of the values around that range's
 * ends (2^-126 and the next ones, 2^126 and the next ones, where the
 * reciprocal would be subnormal), subnormals, powers of two, ones, threes,
 * the largest finite value, and random patterns, both signs; the dividend
 * runs through every pattern in rows of 4099 (whole and partial blocks):
 * fused == unfused at every level and thread count, and == the reference
 * (division is correctly rounded), for bf16 and f16. */
static void test_hseg_bcast_divide(void **state)
{
    (void)state;
    static const uint16_t DIV_BF16[] = {0x0080, 0x0081, 0x00FF, 0x0100, 0x007F, 0x0001, 0x3F80, 0x4040, 0x3FAB,
                                        0x7E80, 0x7E7F, 0x7E81, 0x7EFF, 0x7F00, 0x7F7F, 0x4B7F, 0x3401, 0x0C35};
    static const uint16_t DIV_F16[] = {0x0400, 0x0401, 0x07FF, 0x0800, 0x03FF, 0x0001, 0x3C00, 0x4200, 0x3D55,
                                       0x7800, 0x77FF, 0x7801, 0x7BFF, 0x5BFF, 0x1001, 0x2E35, 0x4A9B, 0x0235};
    /* rows of 4099 (RT_ROW_UNIT-sized rows and longer would not keep the
     * broadcast in a register): row r divides patterns 4096 (r / 2nd) + k
     * by divisor r % nd, negated in the second nd rows of each 2nd */
    const int64_t nd = (int64_t)(sizeof DIV_BF16 / sizeof DIV_BF16[0]), R = 2 * nd * 16, L = 4099;
    for (int ti = 0; ti < 2; ti++) {
        const char *tn = ti ? "bf16" : "f16";
        char ty[64], ry[64], src[2048];
        snprintf(ty, sizeof ty, "tensor<%lldx%lldx%s>", (long long)R, (long long)L, tn);
        snprintf(ry, sizeof ry, "tensor<%lldx%s>", (long long)R, tn);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n"
                 "  %%ni = stablehlo.constant dense<0x%s> : tensor<%s>\n"
                 "  %%m = stablehlo.reduce(%%y init: %%ni) applies stablehlo.maximum across dimensions = [1]"
                 " : (%s, tensor<%s>) -> %s\n"
                 "  %%b = stablehlo.broadcast_in_dim %%m, dims = [0] : (%s) -> %s\n"
                 "  %%a = stablehlo.divide %%x, %%b : %s\n"
                 "  %%e = stablehlo.negate %%a : %s\n"
                 "  return %%a, %%e : %s, %s\n"
                 "}\n",
                 ty, ty, ty, ty, ti ? "FF80" : "FC00", tn, ty, tn, ry, ry, ty, ty, ty, ty, ty);
        ir_module *m = parse_ok(src);
        uint32_t steps, groups;
        assert_true(plan_hsegs(m, &steps, &groups) >= 1);
        snprintf(ctx, sizeof ctx, "broadcast divisor %s %lldx%lld:", tn, (long long)R, (long long)L);
        int64_t dims[2] = {R, L};
        plumb_tensor *in[2] = {new_tensor(HALVES[ti], 2, dims), new_tensor(HALVES[ti], 2, dims)};
        const uint16_t *dv = ti ? DIV_BF16 : DIV_F16;
        uint16_t *px = in[0]->data, *py = in[1]->data;
        for (int64_t r = 0; r < R; r++)
            for (int64_t k = 0; k < L; k++) {
                px[r * L + k] = (uint16_t)(4096 * (r / (2 * nd)) + k);
                py[r * L + k] = (uint16_t)(dv[r % nd] | (r % (2 * nd) >= nd ? 0x8000u : 0u));
            }
        check_levels(m, in, 2, 2);
        check_ref(m, in, 2, 2, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        ir_module_free(m);
    }
}

/* The bf16 segment tests again with the integer rounding where the CPU
 * would round with the AVX512-BF16 conversion (rt_hseg_bf16cvt): both
 * give the same bits, so fused == unfused and == the reference hold for
 * either. */
static void test_hseg_intround(void **state)
{
    bool had = rt_hseg_bf16cvt(-1);
    rt_hseg_bf16cvt(0);
    assert_false(rt_hseg_bf16cvt(-1));
    test_hseg_ops_all_patterns(state);
    test_hseg_row_group(state);
    test_hseg_bcast_operand(state);
    test_hseg_bcast_divide(state);
    rt_hseg_bf16cvt(had);
    assert_true(rt_hseg_bf16cvt(-1) == had);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hseg_planned),
        cmocka_unit_test(test_hseg_norms_planned),
        cmocka_unit_test(test_hseg_ops_all_patterns),
        cmocka_unit_test(test_hseg_square_all_patterns),
        cmocka_unit_test(test_hseg_row_group),
        cmocka_unit_test(test_hseg_bcast_operand),
        cmocka_unit_test(test_hseg_bcast_divide),
        cmocka_unit_test(test_hseg_intround),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
