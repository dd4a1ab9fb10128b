/* Iotas generated inside fused groups (runtime/fusion_pass.c iota_ok,
 * fusion_build.c R_IOTA, fusion_exec.c iota_gen): an iota whose every
 * consumer is in its group is never materialized; each tile of it is
 * computed from the elements' coordinates where it is read. Its results
 * must be the reference interpreter's bit for bit (iota, add, compare,
 * select and convert are exact ops), and so must the unfused route
 * (opt_level 1: the iota kernel writes the tensor, the consumers read it),
 * at every ISA level the CPU has and on 1 and 2 threads. Expected values
 * come from the reference (ref/movement.c, ref_op_IOTA), and for f32
 * indices past 2^24 also from hand rounding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/dtype.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_iota.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* "AxBxC" of dims[0..rank) followed by "x" (empty for rank 0) */
static void shape_str(char *s, size_t cap, uint32_t rank, const int64_t *dims)
{
    size_t k = 0;
    s[0] = 0;
    for (uint32_t i = 0; i < rank; i++)
        k += (size_t)snprintf(s + k, cap - k, "%lldx", (long long)dims[i]);
}

/* A tensor of type t and the given shape, small values (floats: quarters
 * in [-8, 8), exact in every float type; integers: random bits). */
static plumb_tensor *input(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t r = next32();
        double v = (double)((int)(r % 64) - 32) / 4.0;
        uint64_t bits;
        switch (t) {
        case PLUMB_F16: bits = plumb_f64_to_f16(v); break;
        case PLUMB_BF16: bits = plumb_f64_to_bf16(v); break;
        case PLUMB_F32: bits = plumb_f32_bits((float)v); break;
        case PLUMB_F64: bits = plumb_f64_bits(v); break;
        default: bits = ((uint64_t)next32() << 32) ^ r; break;
        }
        plumb_store_bits(t, x->data, (size_t)i, bits);
    }
    return x;
}

/* Program `which` over x of type tensor<S x T>, iota along dim d (d2 the
 * second iota's dim):
 * 0: add(iota, x): the iota's one consumer is in the group;
 * 1: select(compare GE(iota_d, iota_d2), x, iota_d): two iotas, one read twice;
 * 2: multiply(convert(iota) to f32, ...), and the iota returned too: it has
 *    a consumer outside the group, so it is materialized and read. */
static void program(char *s, size_t cap, int which, const char *sh, const char *ty, uint32_t d, uint32_t d2)
{
    char t[160];
    snprintf(t, sizeof t, "tensor<%s%s>", sh, ty);
    if (which == 0)
        snprintf(s, cap,
                 "func.func @main(%%x: %s) -> %s {\n"
                 "  %%i = stablehlo.iota dim = %u : %s\n"
                 "  %%y = stablehlo.add %%i, %%x : %s\n"
                 "  func.return %%y : %s\n}\n",
                 t, t, d, t, t, t);
    else if (which == 1)
        snprintf(s, cap,
                 "func.func @main(%%x: %s) -> %s {\n"
                 "  %%i = stablehlo.iota dim = %u : %s\n"
                 "  %%j = stablehlo.iota dim = %u : %s\n"
                 "  %%c = stablehlo.compare GE, %%i, %%j : (%s, %s) -> tensor<%si1>\n"
                 "  %%y = stablehlo.select %%c, %%x, %%i : tensor<%si1>, %s\n"
                 "  func.return %%y : %s\n}\n",
                 t, t, d, t, d2, t, t, t, sh, sh, t, t);
    else
        snprintf(s, cap,
                 "func.func @main(%%x: %s) -> (tensor<%sf32>, %s) {\n"
                 "  %%i = stablehlo.iota dim = %u : %s\n"
                 "  %%f = stablehlo.convert %%i : (%s) -> tensor<%sf32>\n"
                 "  %%y = stablehlo.multiply %%f, %%f : tensor<%sf32>\n"
                 "  func.return %%y, %%i : tensor<%sf32>, %s\n}\n",
                 t, sh, t, d, t, t, sh, sh, sh, t);
}

/* Generated iotas of the fused groups planned for @main of m. */
static uint32_t planned_iotas(ir_module *m)
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
    for (uint32_t i = 0; i < n; i++) r += rt_fused_iotas(g[i].fused);
    plumb_arena_free(a);
    return r;
}

static bool has_isa(int isa)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == PLUMB_ISA_AVX2) return __builtin_cpu_supports("avx2");
    if (isa == PLUMB_ISA_AVX512) return __builtin_cpu_supports("avx512f");
    return true;
#else
    return isa == PLUMB_ISA_PORTABLE;
#endif
}

/* Runs m at every level the CPU has, fused and unfused, 1 and 2 threads,
 * and requires the reference's bits for each of n_out results; with
 * want_gen, a fused run must have generated an iota (the counter moves). */
static void check_all(const ir_module *m, plumb_tensor *x, uint32_t n_out, bool want_gen, const char *what)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    plumb_tensor *in[1] = {x};
    bool ok = plumb_ref_run(m, NULL, in, 1, NULL, &res, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        for (uint32_t level = 1; level <= 2; level++)
            for (uint32_t th = 1; th <= 2; th++) {
                uint64_t before = rt_fused_iota_runs();
                plumb_tensor **o = run_program(m, level, th, (plumb_isa)isa, in, 1, n_out);
                uint64_t ran = rt_fused_iota_runs() - before;
                if (level == 1) assert_int_equal(ran, 0);
                else if (want_gen) assert_true(ran >= 1);
                for (uint32_t r = 0; r < n_out; r++) {
                    const plumb_tensor *w = res.outputs[r];
                    bool eq = o[r]->dtype == w->dtype && o[r]->nbytes == w->nbytes &&
                              (w->nbytes == 0 || memcmp(o[r]->data, w->data, w->nbytes) == 0);
                    if (!eq)
                        fprintf(stderr, "%s: isa %d level %u threads %u output %u differs\n", what, isa, level, th,
                                r);
                    assert_true(eq);
                }
                run_free_outs(o, n_out);
            }
    }
    plumb_ref_result_free(&res);
}

static const plumb_dtype types[] = {PLUMB_I8,  PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8, PLUMB_UI16,
                                    PLUMB_UI32, PLUMB_UI64, PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

typedef struct shp {
    uint32_t rank;
    int64_t dims[4];
} shp;

/* ranks 1-4; sizes 0, 1 and odd; tiles of 1024 crossed inside and across rows */
static const shp shapes[] = {
    {1, {0}},          {1, {1}},          {1, {7}},           {1, {3001}},       {2, {1, 1}},
    {2, {3, 5}},       {2, {37, 41}},     {2, {1, 2049}},     {2, {0, 3}},       {3, {2, 3, 5}},
    {3, {7, 1, 130}},  {3, {3, 0, 2}},    {4, {2, 3, 4, 5}},  {4, {3, 1, 7, 65}},
};

/* Every type, rank, shape and iota_dimension, programs 0-2: the planner
 * generates the iotas of programs 0 and 1 and not program 2's (returned),
 * and every run equals the reference bit for bit. */
static void test_iota_groups(void **state)
{
    (void)state;
    static char s[4096];
    char sh[96], what[256];
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            const shp *h = &shapes[si];
            shape_str(sh, sizeof sh, h->rank, h->dims);
            const char *ty = plumb_dtype_name(types[ti]);
            for (uint32_t d = 0; d < h->rank; d++)
                for (int which = 0; which < 3; which++) {
                    uint32_t d2 = (d + 1) % h->rank;
                    program(s, sizeof s, which, sh, ty, d, d2);
                    ir_module *m = parse_ok(s);
                    ir_module *mp = parse_ok(s);
                    /* program 1 of rank 1 has one iota: CSE merges the two */
                    uint32_t want = which == 2 ? 0 : which == 1 && d2 != d ? 2 : 1;
                    assert_int_equal(planned_iotas(mp), want);
                    ir_module_free(mp);
                    plumb_tensor *x = input(types[ti], h->rank, h->dims);
                    snprintf(what, sizeof what, "program %d %s%s dim %u", which, sh, ty, d);
                    uint64_t numel = 1;
                    for (uint32_t k = 0; k < h->rank; k++) numel *= (uint64_t)h->dims[k];
                    check_all(m, x, which == 2 ? 2 : 1, which != 2 && numel > 0, what);
                    plumb_tensor_free(x);
                    ir_module_free(m);
                }
        }
}

/* A row group: the f32 iota along the rows (and one across them) added to
 * x, then summed per row; the iotas are generated in the row group. */
static void test_iota_row_group(void **state)
{
    (void)state;
    static const int64_t rows[] = {1, 3, 37}, cols[] = {1, 5, 1000, 1027};
    static char s[4096];
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++) {
            long long r = rows[a], c = cols[b];
            snprintf(s, sizeof s,
                     "func.func @main(%%x: tensor<%lldx%lldxf32>) -> tensor<%lldxf32> {\n"
                     "  %%i = stablehlo.iota dim = 1 : tensor<%lldx%lldxf32>\n"
                     "  %%j = stablehlo.iota dim = 0 : tensor<%lldx%lldxf32>\n"
                     "  %%s = stablehlo.add %%x, %%i : tensor<%lldx%lldxf32>\n"
                     "  %%t = stablehlo.multiply %%s, %%j : tensor<%lldx%lldxf32>\n"
                     "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                     "  %%m = stablehlo.reduce(%%t init: %%z) applies stablehlo.add across dimensions = [1] :"
                     " (tensor<%lldx%lldxf32>, tensor<f32>) -> tensor<%lldxf32>\n"
                     "  func.return %%m : tensor<%lldxf32>\n}\n",
                     r, c, r, r, c, r, c, r, c, r, c, r, c, r, r);
            ir_module *m = parse_ok(s);
            ir_module *mp = parse_ok(s);
            assert_int_equal(planned_iotas(mp), 2);
            ir_module_free(mp);
            int64_t dims[2] = {r, c};
            plumb_tensor *x = input(PLUMB_F32, 2, dims);
            check_all(m, x, 1, true, "row group");
            plumb_tensor_free(x);
            ir_module_free(m);
        }
}

/* An f32 iota past 2^24 rounds to nearest even: index 2^24 + 1 gives 2^24,
 * 2^24 + 3 gives 2^24 + 4 (hand rounding), as the reference does; the
 * fused group (iota + 0.0 into a fresh result) gives those bits. */
static void test_iota_f32_past_2p24(void **state)
{
    (void)state;
    const int64_t n = (1 << 24) + 37;
    static char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldxf32>) -> tensor<%lldxf32> {\n"
             "  %%i = stablehlo.iota dim = 0 : tensor<%lldxf32>\n"
             "  %%y = stablehlo.add %%i, %%x : tensor<%lldxf32>\n"
             "  func.return %%y : tensor<%lldxf32>\n}\n",
             (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
    ir_module *m = parse_ok(s);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, &n, 0, &d);   /* zeros: +0 + +0 = +0, k + 0 = k */
    assert_non_null(x);
    plumb_tensor *in[1] = {x};
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    assert_true(plumb_ref_run(m, NULL, in, 1, NULL, &res, &d));
    const float *w = res.outputs[0]->data;
    assert_true(w[(1 << 24) + 1] == 16777216.0f);
    assert_true(w[(1 << 24) + 3] == 16777220.0f);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        uint64_t before = rt_fused_iota_runs();
        plumb_tensor **o = run_program(m, 2, 2, (plumb_isa)isa, in, 1, 1);
        assert_true(rt_fused_iota_runs() > before);
        const float *g = o[0]->data;
        assert_true(g[(1 << 24) + 1] == 16777216.0f);
        assert_true(g[(1 << 24) + 3] == 16777220.0f);
        assert_memory_equal(o[0]->data, res.outputs[0]->data, res.outputs[0]->nbytes);
        run_free_outs(o, 1);
    }
    plumb_ref_result_free(&res);
    plumb_tensor_free(x);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iota_groups),
        cmocka_unit_test(test_iota_row_group),
        cmocka_unit_test(test_iota_f32_past_2p24),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
