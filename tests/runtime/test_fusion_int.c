/* Integer loop groups in registers (runtime/fusion_build.c, regs_int_op): chains
 * of i32 and ui32 add, subtract, multiply, and, or, xor, the three shifts,
 * maximum, minimum, negate and not, with scalar broadcasts, are planned to
 * run in registers, and their results equal the reference's bit for bit
 * at every ISA level the CPU has, fused (opt_level 2) and unfused
 * (opt_level 1), on 1 and 2 threads, on lengths that leave partial
 * vectors, blocks and tiles. Operands cover the wrapping cases (INT_MIN,
 * products that overflow) and shift counts of 0, 31, 32, large and
 * negative (read unsigned: past the width). */
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
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* Program `which` on [n] of type ty ("i32" or "ui32"):
 * 0: ((a * b + c) >> k) with k a scalar parameter broadcast (arithmetic)
 * 1: (a << b) ^ ~(c >>> b), max(a, c) - min(b, -a), both returned
 * 2: (a & c | b) * k, and a + b, a result that a later step reads. */
static void program(char *s, size_t cap, int which, int64_t n, const char *ty)
{
    char t[64];
    snprintf(t, sizeof t, "tensor<%lldx%s>", (long long)n, ty);
    if (which == 0)
        snprintf(s, cap,
                 "func.func @main(%%a: %s, %%b: %s, %%c: %s, %%k: tensor<%s>) -> %s {\n"
                 "  %%m = stablehlo.multiply %%a, %%b : %s\n"
                 "  %%s = stablehlo.add %%m, %%c : %s\n"
                 "  %%kb = stablehlo.broadcast_in_dim %%k, dims = [] : (tensor<%s>) -> %s\n"
                 "  %%r = stablehlo.shift_right_arithmetic %%s, %%kb : %s\n"
                 "  func.return %%r : %s\n}\n",
                 t, t, t, ty, t, t, t, ty, t, t, t);
    else if (which == 1)
        snprintf(s, cap,
                 "func.func @main(%%a: %s, %%b: %s, %%c: %s, %%k: tensor<%s>) -> (%s, %s) {\n"
                 "  %%l = stablehlo.shift_left %%a, %%b : %s\n"
                 "  %%q = stablehlo.shift_right_logical %%c, %%b : %s\n"
                 "  %%nq = stablehlo.not %%q : %s\n"
                 "  %%x = stablehlo.xor %%l, %%nq : %s\n"
                 "  %%mx = stablehlo.maximum %%a, %%c : %s\n"
                 "  %%na = stablehlo.negate %%a : %s\n"
                 "  %%mn = stablehlo.minimum %%b, %%na : %s\n"
                 "  %%d = stablehlo.subtract %%mx, %%mn : %s\n"
                 "  func.return %%x, %%d : %s, %s\n}\n",
                 t, t, t, ty, t, t, t, t, t, t, t, t, t, t, t, t);
    else
        snprintf(s, cap,
                 "func.func @main(%%a: %s, %%b: %s, %%c: %s, %%k: tensor<%s>) -> (%s, %s) {\n"
                 "  %%u = stablehlo.add %%a, %%b : %s\n"
                 "  %%w = stablehlo.and %%u, %%c : %s\n"
                 "  %%o = stablehlo.or %%w, %%b : %s\n"
                 "  %%kb = stablehlo.broadcast_in_dim %%k, dims = [] : (tensor<%s>) -> %s\n"
                 "  %%r = stablehlo.multiply %%o, %%kb : %s\n"
                 "  func.return %%r, %%u : %s, %s\n}\n",
                 t, t, t, ty, t, t, t, t, t, ty, t, t, t, t);
}

/* Loop groups planned in registers in @main of m (modified in place). */
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
    for (uint32_t i = 0; i < n; i++) r += rt_fused_regs(g[i].fused);
    plumb_arena_free(a);
    return r;
}

/* Every loop group of the three programs runs in registers. */
static void test_int_regs_planned(void **state)
{
    (void)state;
    static char s[4096];
    for (int which = 0; which < 3; which++)
        for (int u = 0; u < 2; u++) {
            program(s, sizeof s, which, 4096, u ? "ui32" : "i32");
            ir_module *m = parse_ok(s);
            /* program 1's two results share no intermediate: two groups */
            assert_int_equal(planned_regs(m), which == 1 ? 2 : 1);
            ir_module_free(m);
        }
}

static plumb_tensor *tensor_i32(plumb_dtype t, int64_t n, bool shift_counts)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, n < 0 ? 0 : 1, &n, 0, &d);
    assert_non_null(x);
    uint32_t *v = x->data;
    static const uint32_t edge[] = {0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0, 1, 0x10000u};
    static const uint32_t counts[] = {0, 1, 3, 31, 32, 33, 1000, 0xFFFFFFFFu, 0x80000000u};
    uint64_t m = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < m; i++) {
        uint32_t r = next32();
        if (shift_counts) v[i] = r % 4 ? counts[r % 9] : r % 40;
        else v[i] = r % 5 == 0 ? edge[r % 6] : r;
    }
    return x;
}

/* Every program, both types, several lengths: runtime == reference bit for
 * bit at every level, fused and unfused, 1 and 2 threads. */
static void test_int_regs_exec(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 16, 127, 128, 129, 1000, 4099, 40000};
    static char s[4096];
    for (int which = 0; which < 3; which++)
        for (int u = 0; u < 2; u++)
            for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
                plumb_dtype t = u ? PLUMB_UI32 : PLUMB_I32;
                program(s, sizeof s, which, lens[k], u ? "ui32" : "i32");
                ir_module *m = parse_ok(s);
                uint32_t n_out = which == 0 ? 1 : 2;
                plumb_tensor *in[4] = {tensor_i32(t, lens[k], false), tensor_i32(t, lens[k], which == 1),
                                       tensor_i32(t, lens[k], false), tensor_i32(t, -1, which == 0)};
                plumb_diag d;
                memset(&d, 0, sizeof d);
                plumb_ref_result res;
                memset(&res, 0, sizeof res);
                bool ok = plumb_ref_run(m, NULL, in, 4, NULL, &res, &d);
                if (!ok) plumb_diag_print(&d, stderr);
                assert_true(ok);
                for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
#if defined(__x86_64__)
                    __builtin_cpu_init();
                    if (isa == PLUMB_ISA_AVX2 && !__builtin_cpu_supports("avx2")) continue;
                    if (isa == PLUMB_ISA_AVX512 && !__builtin_cpu_supports("avx512f")) continue;
#else
                    if (isa != PLUMB_ISA_PORTABLE) continue;
#endif
                    for (uint32_t level = 1; level <= 2; level++)
                        for (uint32_t th = 1; th <= 2; th++) {
                            plumb_tensor **o = run_program(m, level, th, (plumb_isa)isa, in, 4, n_out);
                            for (uint32_t r = 0; r < n_out; r++) {
                                bool eq = plumb_tensor_equal(o[r], res.outputs[r]);
                                if (!eq)
                                    fprintf(stderr, "program %d %s n %lld isa %d level %u threads %u output %u differs\n",
                                            which, u ? "ui32" : "i32", (long long)lens[k], isa, level, th, r);
                                assert_true(eq);
                            }
                            run_free_outs(o, n_out);
                        }
                }
                plumb_ref_result_free(&res);
                for (int i = 0; i < 4; i++) plumb_tensor_free(in[i]);
                ir_module_free(m);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_regs_planned),
        cmocka_unit_test(test_int_regs_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
