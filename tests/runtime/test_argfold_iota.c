/* Index iotas of pair folds generated, not materialized (runtime/plan.c
 * gen_iotas, runtime/k_argfold.c): a reduce of (x, iota) pairs with an
 * argmax/argmin body whose iota is read by nothing else gets no iota step
 * and no buffer; the fold computes each index from the element's
 * coordinate. Results must be the reference interpreter's bit for bit
 * (argmax and argmin are exact) at every ISA level the CPU has, on 1 and
 * 2 threads, at opt level 2 (generated) and 1 (the iota's kernel writes
 * the tensor the fold reads: the reference route of the runtime). Index
 * types i32, i64, ui32, ui8 (wraps at 256) and f32 (not of the fold's
 * class: materialized); ranks 1-3; the iota along the reduced dim, along a
 * kept dim and across several reduced dims; sizes 0, 1 and odd; values
 * with ties, NaN, -0 and +0. Expected values come from the reference
 * (ref_op_IOTA and the reduce's sequential fold), and for one program by
 * hand. Counters (rt_argfold_generated, rt_argfold_materialized) show
 * which route ran. */
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
#include "../../runtime/rt_argfold.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* jax.lax.argmax (NaN wins, lowest index on ties) and the bench suite's
 * argmin without a NaN check; VT value type, IT index type */
static const char body_jax_max[] =
    "    %gt = stablehlo.compare GT, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %nan = stablehlo.compare NE, %a, %a : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %p = stablehlo.or %gt, %nan : tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare LT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %pi = stablehlo.or %p, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %p, %a, %c : tensor<i1>, tensor<VT>\n"
    "    %k2 = stablehlo.select %pi, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<VT>, tensor<IT>\n";
static const char body_min[] =
    "    %lt0 = stablehlo.compare LT, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare LT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %lt0, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<VT>\n"
    "    %k2 = stablehlo.select %take, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<VT>, tensor<IT>\n";
/* of the same structure but not of the class (ties to the higher index):
 * the plan cannot tell, the run materializes the iota in scratch */
static const char body_high[] =
    "    %gt = stablehlo.compare GT, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
    "    %hi = stablehlo.compare GT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %hi : tensor<i1>\n"
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<VT>\n"
    "    %k2 = stablehlo.select %take, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<VT>, tensor<IT>\n";

static void replace_all(char *dst, size_t cap, const char *src, const char *pat, const char *rep)
{
    size_t o = 0, pl = strlen(pat), rl = strlen(rep);
    while (*src) {
        if (strncmp(src, pat, pl) == 0) {
            assert_true(o + rl < cap);
            memcpy(dst + o, rep, rl);
            o += rl;
            src += pl;
        } else {
            assert_true(o + 1 < cap);
            dst[o++] = *src++;
        }
    }
    dst[o] = 0;
}

typedef struct shape {
    uint32_t rank;
    int64_t dims[3];
    uint32_t nrd;
    int64_t rd[2];
} shape;

/* how the index iota is written and used */
enum { USE_ONLY, USE_RETURNED, USE_BCAST };

static void shape_str(char *s, size_t cap, uint32_t rank, const int64_t *dims)
{
    size_t k = 0;
    s[0] = 0;
    for (uint32_t i = 0; i < rank; i++) k += (size_t)snprintf(s + k, cap - k, "%lldx", (long long)dims[i]);
}

/* @main(x) -> (values, indices[, the iota]): the reduce of (x, iota along
 * idim) over s's reduced dims. USE_RETURNED returns the iota too (a second
 * consumer); USE_BCAST writes it as a broadcast of a rank-1 iota. */
static void prog(char *src, size_t cap, const char *body, plumb_dtype vt, plumb_dtype it, const shape *s,
                 uint32_t idim, int use)
{
    char sh[64], osh[64], tmp[2048], b1[2048], dl[32] = "";
    int64_t od[3];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < s->rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < s->nrd; i++) r |= s->rd[i] == (int64_t)d;
        if (!r) od[orank++] = s->dims[d];
    }
    for (uint32_t i = 0, o = 0; i < s->nrd; i++)
        o += (uint32_t)snprintf(dl + o, sizeof dl - o, i ? ", %lld" : "%lld", (long long)s->rd[i]);
    shape_str(sh, sizeof sh, s->rank, s->dims);
    shape_str(osh, sizeof osh, orank, od);
    const char *vn = plumb_dtype_name(vt), *in = plumb_dtype_name(it);
    char iota[256];
    if (use == USE_BCAST)
        snprintf(iota, sizeof iota,
                 "  %%i1 = stablehlo.iota dim = 0 : tensor<%lldx%s>\n"
                 "  %%i = stablehlo.broadcast_in_dim %%i1, dims = [%u] : (tensor<%lldx%s>) -> tensor<%s%s>\n",
                 (long long)s->dims[idim], in, idim, (long long)s->dims[idim], in, sh, in);
    else
        snprintf(iota, sizeof iota, "  %%i = stablehlo.iota dim = %u : tensor<%s%s>\n", idim, sh, in);
    bool ret = use == USE_RETURNED;
    snprintf(tmp, sizeof tmp,
             "func.func @main(%%x: tensor<%sVT>) -> (tensor<%sVT>, tensor<%sIT>%s%s%s) {\n"
             "%s"
             "  %%v0 = stablehlo.constant dense<%s> : tensor<VT>\n"
             "  %%i0 = stablehlo.constant dense<0> : tensor<IT>\n"
             "  %%v, %%k = stablehlo.reduce(%%x init: %%v0), (%%i init: %%i0) across dimensions = [%s] :"
             " (tensor<%sVT>, tensor<%sIT>, tensor<VT>, tensor<IT>) -> (tensor<%sVT>, tensor<%sIT>)\n"
             "   reducer(%%a: tensor<VT>, %%c: tensor<VT>) (%%b: tensor<IT>, %%e: tensor<IT>) {\n"
             "BODY"
             "  }\n"
             "  func.return %%v, %%k%s%s%s : tensor<%sVT>, tensor<%sIT>%s%s%s\n}\n",
             sh, osh, osh, ret ? ", tensor<" : "", ret ? sh : "", ret ? "IT>" : "", iota,
             body == body_min ? "0x7F800000" : "0xFF800000", dl, sh, sh, osh, osh, ret ? ", %i" : "", "", "", osh,
             osh, ret ? ", tensor<" : "", ret ? sh : "", ret ? "IT>" : "");
    replace_all(b1, sizeof b1, tmp, "BODY", body);
    replace_all(tmp, sizeof tmp, b1, "VT", vn);
    replace_all(src, cap, tmp, "IT", in);
}

/* f32 values from a small set (ties), some NaN (both signs), -0 and +0 */
static plumb_tensor *input(uint32_t rank, const int64_t *dims, bool nans)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    static const uint32_t special[] = {0x7FC00000u, 0xFFC00001u, 0x80000000u, 0x00000000u};
    for (uint64_t i = 0; i < n; i++) {
        uint32_t r = next32();
        uint32_t bits = plumb_f32_bits((float)((int)(r % 9) - 4));
        if (r % 53 == 0) bits = special[(r >> 8) % (nans ? 4 : 2) + (nans ? 0 : 2)];
        plumb_store_bits(PLUMB_F32, x->data, (size_t)i, bits);
    }
    return x;
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

enum { WANT_NONE, WANT_GEN, WANT_MAT };

/* Runs m at every ISA level the CPU has, opt levels 1 and 2, 1 and 2
 * threads; every result equals the reference's bits. At opt level 2 the
 * counters must show `want` (generated / materialized in scratch / neither)
 * and at opt level 1 neither. */
static void check_all(const ir_module *m, plumb_tensor *x, uint32_t n_out, int want, const char *what)
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
                uint64_t g0 = rt_argfold_generated(), m0 = rt_argfold_materialized();
                plumb_tensor **o = run_program(m, level, th, (plumb_isa)isa, in, 1, n_out);
                uint64_t gen = rt_argfold_generated() - g0, mat = rt_argfold_materialized() - m0;
                int w = level == 2 ? want : WANT_NONE;
                if (gen != (w == WANT_GEN) || mat != (w == WANT_MAT))
                    fprintf(stderr, "%s: isa %d level %u threads %u: generated %llu materialized %llu\n", what, isa,
                            level, th, (unsigned long long)gen, (unsigned long long)mat);
                assert_int_equal(gen, w == WANT_GEN);
                assert_int_equal(mat, w == WANT_MAT);
                for (uint32_t r = 0; r < n_out; r++) {
                    const plumb_tensor *e = res.outputs[r];
                    bool eq = o[r]->dtype == e->dtype && o[r]->nbytes == e->nbytes &&
                              (e->nbytes == 0 || memcmp(o[r]->data, e->data, e->nbytes) == 0);
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

/* rank 1-3: sizes 0, 1, odd; rows, columns, the middle dim; two reduced
 * dims (the iota along the outer one: indices non-decreasing along the
 * slice; along the inner one: they wrap within it); a row of 300 (a ui8
 * iota wraps at 256); a long row (vector blocks and tails) */
static const shape shapes[] = {
    {1, {0}, 1, {0}},        {1, {1}, 1, {0}},        {1, {37}, 1, {0}},        {2, {5, 33}, 1, {1}},
    {2, {7, 21}, 1, {0}},    {2, {4, 0}, 1, {1}},     {2, {3, 300}, 1, {1}},    {3, {3, 4, 5}, 1, {1}},
    {3, {3, 4, 5}, 1, {2}},  {3, {3, 4, 5}, 1, {0}},  {3, {2, 6, 7}, 2, {1, 2}}, {3, {5, 3, 4}, 2, {0, 1}},
    {2, {2, 1037}, 1, {1}},  {3, {4, 1, 9}, 1, {2}},
};

static bool reduced(const shape *s, uint32_t d)
{
    for (uint32_t i = 0; i < s->nrd; i++)
        if (s->rd[i] == (int64_t)d) return true;
    return false;
}

static uint64_t numel_of(const shape *s)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < s->rank; d++) n *= (uint64_t)s->dims[d];
    return n;
}

/* Every shape, iota dim and index type with the jax argmax body (NaNs) and
 * the argmin body: generated at opt level 2 for the integer index types
 * (f32 indices are not of the fold's class: materialized by the plan,
 * the generic reduce), equal to the reference everywhere. */
static void test_generated_indices(void **state)
{
    (void)state;
    static const plumb_dtype its[] = {PLUMB_I32, PLUMB_I64, PLUMB_UI32, PLUMB_UI8, PLUMB_F32};
    static char src[4096];
    char what[160];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        for (uint32_t idim = 0; idim < s->rank; idim++)
            for (size_t ti = 0; ti < sizeof its / sizeof its[0]; ti++)
                for (int bi = 0; bi < 2; bi++) {
                    if (its[ti] == PLUMB_UI8 && s->dims[idim] < 256 && bi == 1) continue;
                    const char *body = bi ? body_min : body_jax_max;
                    prog(src, sizeof src, body, PLUMB_F32, its[ti], s, idim, USE_ONLY);
                    ir_module *m = parse_ok(src);
                    plumb_tensor *x = input(s->rank, s->dims, bi == 0);
                    snprintf(what, sizeof what, "shape %zu iota dim %u (%s) %s %s", si, idim,
                             reduced(s, idim) ? "reduced" : "kept", plumb_dtype_name(its[ti]), bi ? "min" : "max");
                    int want = its[ti] == PLUMB_F32 || numel_of(s) == 0 ? WANT_NONE : WANT_GEN;
                    check_all(m, x, 2, want, what);
                    plumb_tensor_free(x);
                    ir_module_free(m);
                }
    }
}

/* The iota returned too (a second consumer): it is materialized, the fold
 * reads it, the returned iota is the reference's. A broadcast of a rank-1
 * iota: the passes make it an iota of the broadcast's shape, generated. */
static void test_other_consumer_and_broadcast(void **state)
{
    (void)state;
    static char src[4096];
    char what[160];
    static const size_t pick[] = {3, 4, 7, 10, 12};
    for (size_t q = 0; q < sizeof pick / sizeof pick[0]; q++) {
        const shape *s = &shapes[pick[q]];
        for (uint32_t idim = 0; idim < s->rank; idim++)
            for (int use = USE_RETURNED; use <= USE_BCAST; use++) {
                prog(src, sizeof src, body_jax_max, PLUMB_F32, PLUMB_I32, s, idim, use);
                ir_module *m = parse_ok(src);
                plumb_tensor *x = input(s->rank, s->dims, true);
                snprintf(what, sizeof what, "shape %zu iota dim %u %s", pick[q], idim,
                         use == USE_RETURNED ? "returned" : "broadcast");
                check_all(m, x, use == USE_RETURNED ? 3 : 2, use == USE_RETURNED ? WANT_NONE : WANT_GEN, what);
                plumb_tensor_free(x);
                ir_module_free(m);
            }
    }
}

/* A body the plan takes for the class but the run rejects (ties to the
 * higher index): the iota is written into scratch by its kernel and the
 * generic reduce reads it; the reference's bits. */
static void test_fallback_materializes(void **state)
{
    (void)state;
    static char src[4096];
    static const size_t pick[] = {3, 8, 11};
    for (size_t q = 0; q < sizeof pick / sizeof pick[0]; q++) {
        const shape *s = &shapes[pick[q]];
        prog(src, sizeof src, body_high, PLUMB_F32, PLUMB_I64, s, s->rank - 1, USE_ONLY);
        ir_module *m = parse_ok(src);
        plumb_tensor *x = input(s->rank, s->dims, false);
        check_all(m, x, 2, WANT_MAT, "ties to the higher index");
        plumb_tensor_free(x);
        ir_module_free(m);
    }
}

/* By hand: rows [1, 5, 5, 2] -> (5, 1) (the first of the tie);
 * [0, NaN, 3, NaN] -> (NaN, 1) (jax's argmax: the first NaN wins);
 * [-1, +0, -0, +0] -> index 1 (-0 == +0 as numbers: the first zero);
 * at every level, generated at opt level 2. */
static void test_by_hand(void **state)
{
    (void)state;
    static char src[4096];
    const shape s = {2, {3, 4}, 1, {1}};
    prog(src, sizeof src, body_jax_max, PLUMB_F32, PLUMB_I32, &s, 1, USE_ONLY);
    ir_module *m = parse_ok(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, s.dims, 0, &d);
    assert_non_null(x);
    static const uint32_t v[12] = {0x3F800000u, 0x40A00000u, 0x40A00000u, 0x40000000u,
                                   0x00000000u, 0x7FC00000u, 0x40400000u, 0x7FC00000u,
                                   0xBF800000u, 0x00000000u, 0x80000000u, 0x00000000u};
    memcpy(x->data, v, sizeof v);
    plumb_tensor *in[1] = {x};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        for (uint32_t th = 1; th <= 2; th++) {
            uint64_t g0 = rt_argfold_generated();
            plumb_tensor **o = run_program(m, 2, th, (plumb_isa)isa, in, 1, 2);
            assert_int_equal(rt_argfold_generated() - g0, 1);
            const uint32_t *val = o[0]->data;
            const int32_t *idx = o[1]->data;
            assert_int_equal(idx[0], 1);
            assert_int_equal(idx[1], 1);
            assert_int_equal(idx[2], 1);
            assert_int_equal(val[0], 0x40A00000u);
            assert_int_equal(val[1], 0x7FC00000u);
            run_free_outs(o, 2);
        }
    }
    plumb_tensor_free(x);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_indices),
        cmocka_unit_test(test_other_consumer_and_broadcast),
        cmocka_unit_test(test_fallback_materializes),
        cmocka_unit_test(test_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
