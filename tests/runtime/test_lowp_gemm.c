/* FP8/FP6/FP4 dot_general on the runtime widens each operand's bytes
 * through its format's f32 table inside the GEMM's packing (rt_gemm_f8,
 * runtime/k_gemm.c) instead of copying the operands to f32 first. Every
 * value of these formats is an f32, so the result must be bit for bit the
 * runtime's own f32 dot of the operands converted to f32 (convert is exact
 * here), at every ISA level on 1 and 2 threads: row-major and transposed
 * operands (the byte copy of arrange8), a batch, mixed formats, a
 * contraction longer than one k block, f32, f16 and f8E4M3FN results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "plumb/fp8.h"

static uint64_t g_seed = 0x2545F4914F6CDD1Dull;

/* Random patterns of t with NaN and infinity codes replaced by 0. */
static plumb_tensor *fp8_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    for (uint64_t e = 0; e < plumb_tensor_numel(x); e++) {
        g_seed = g_seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t b = (uint32_t)(g_seed >> 40) & ((1u << f->bits) - 1);
        if (plumb_small_is_nan(f, b) || plumb_small_is_inf(f, b)) b = 0;
        plumb_store_bits(t, x->data, e, b);
    }
    return x;
}

typedef struct dcase {
    plumb_dtype l, r;
    const char *res;
    bool transposed, batched;
} dcase;

static void run(const dcase *c, int64_t M, int64_t K, int64_t N)
{
    const char *ln = plumb_dtype_name(c->l), *rn = plumb_dtype_name(c->r), *res = c->res;
    char lt[64], rt[64], ot[64], ltf[64], rtf[64], dims[160];
    const char *bp = c->batched ? "3x" : "";
    /* lhs [B,]M,K or [B,]K,M; rhs [B,]K,N or [B,]N,K */
    int64_t l0 = c->transposed ? K : M, l1 = c->transposed ? M : K, r0 = c->transposed ? N : K, r1 = c->transposed ? K : N;
    snprintf(lt, sizeof lt, "tensor<%s%lldx%lldx%s>", bp, (long long)l0, (long long)l1, ln);
    snprintf(rt, sizeof rt, "tensor<%s%lldx%lldx%s>", bp, (long long)r0, (long long)r1, rn);
    snprintf(ltf, sizeof ltf, "tensor<%s%lldx%lldxf32>", bp, (long long)l0, (long long)l1);
    snprintf(rtf, sizeof rtf, "tensor<%s%lldx%lldxf32>", bp, (long long)r0, (long long)r1);
    snprintf(ot, sizeof ot, "tensor<%s%lldx%lldx%s>", bp, (long long)M, (long long)N, res);
    int b = c->batched ? 1 : 0;
    snprintf(dims, sizeof dims, "%scontracting_dims = [%d] x [%d]", c->batched ? "batching_dims = [0] x [0], " : "",
             b + (c->transposed ? 0 : 1), b + (c->transposed ? 1 : 0));
    char p8[2048], pf[2048];
    snprintf(p8, sizeof p8,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%0 = stablehlo.dot_general %%a, %%b, %s : (%s, %s) -> %s\n"
             "  return %%0 : %s\n}\n",
             lt, rt, ot, dims, lt, rt, ot, ot);
    char otf[64];
    snprintf(otf, sizeof otf, "tensor<%s%lldx%lldxf32>", bp, (long long)M, (long long)N);
    snprintf(pf, sizeof pf,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%x = stablehlo.convert %%a : (%s) -> %s\n"
             "  %%y = stablehlo.convert %%b : (%s) -> %s\n"
             "  %%0 = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n"
             "  %%1 = stablehlo.convert %%0 : (%s) -> %s\n"
             "  return %%1 : %s\n}\n",
             lt, rt, ot, lt, ltf, rt, rtf, dims, ltf, rtf, otf, otf, ot, ot);
    int64_t ld[3], rd[3];
    uint32_t rank = c->batched ? 3 : 2, k = 0;
    if (c->batched) { ld[k] = 3; rd[k] = 3; k++; }
    ld[k] = l0; ld[k + 1] = l1; rd[k] = r0; rd[k + 1] = r1;
    plumb_tensor *in[2] = {fp8_tensor(c->l, rank, ld), fp8_tensor(c->r, rank, rd)};
    ir_module *m8 = rt_parse(p8), *mf = rt_parse(pf);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *g8[RT_MAX_OUT], *gf[RT_MAX_OUT];
            rt_exec_on(m8, (plumb_isa)isa, th, in, 2, g8, 1);
            rt_exec_on(mf, (plumb_isa)isa, th, in, 2, gf, 1);
            bool eq = plumb_tensor_equal(g8[0], gf[0]);
            if (!eq) {
                fprintf(stderr, "%s x %s -> %s (%s%s) isa %d threads %u: FP8 dot differs from the f32 dot\n", ln, rn,
                        res, c->transposed ? "transposed" : "row-major", c->batched ? ", batched" : "", isa, th);
                rt_report_diff(gf[0], g8[0], "f32 path vs FP8 path");
            }
            assert_true(eq);
            rt_outs_free(g8, 1);
            rt_outs_free(gf, 1);
        }
    ir_module_free(m8);
    ir_module_free(mf);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* The widening pack gives the f32 GEMM's bits for every layout. */
static void test_fp8_dot_equals_f32_dot(void **state)
{
    (void)state;
    static const dcase cases[] = {
        {PLUMB_F8E4M3FN, PLUMB_F8E4M3FN, "f32", false, false},
        {PLUMB_F8E4M3FN, PLUMB_F8E4M3FN, "f32", true, false},
        {PLUMB_F8E5M2, PLUMB_F8E4M3FN, "f32", false, true},
        {PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ, "f16", true, true},
        {PLUMB_F4E2M1FN, PLUMB_F6E2M3FN, "f32", false, false},
        {PLUMB_F8E3M4, PLUMB_F8E4M3, "f8E4M3FN", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run(&cases[i], 37, 700, 41);   /* k longer than one KC block on every ISA level */
        run(&cases[i], 5, 3, 2);       /* smaller than one register tile */
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    (void)rt_ty;   /* rt_test.h helpers this file does not use */
    (void)rt_rand_tensor;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp8_dot_equals_f32_dot),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
