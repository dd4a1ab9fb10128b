/* The GEMMs behind dot_general: against a naive long-double triple loop on
 * edge sizes, and dot_general's dimension numbers, batching and element
 * types against the reference, within the data-dependent bound; bitwise
 * equal on 1 and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

/* ---- helpers: run a one-op program on the reference (the oracle) and on
 * the runtime at every ISA level the CPU has, on 1 and 2 threads, and
 * compare: bitwise for exact ops, within the data-dependent bound for
 * reductions and dots. ---- */

#define RT_MAX_OUT 8

static plumb_runtime *rt_cfg[4][3];   /* [isa][threads] */

static plumb_isa rt_hw_isa(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma"))
        return PLUMB_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return PLUMB_ISA_AVX2;
#endif
    return PLUMB_ISA_PORTABLE;
}

static plumb_runtime *rt_get(plumb_isa isa, uint32_t threads)
{
    if (!rt_cfg[isa][threads]) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = threads;
        o.isa = isa;
        o.opt_level = 0;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        rt_cfg[isa][threads] = plumb_runtime_create(&o, &d);
        if (!rt_cfg[isa][threads]) plumb_diag_print(&d, stderr);
        assert_non_null(rt_cfg[isa][threads]);
    }
    return rt_cfg[isa][threads];
}

static void rt_free_all(void)
{
    for (int i = 0; i < 4; i++)
        for (int t = 0; t < 3; t++)
            if (rt_cfg[i][t]) {
                plumb_runtime_destroy(rt_cfg[i][t]);
                rt_cfg[i][t] = NULL;
            }
}

static ir_module *rt_parse(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "test", NULL, &d);
    if (!m) plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

static uint32_t rt_ref(const ir_module *m, plumb_tensor *const *in, uint32_t n, plumb_tensor **out)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    bool ok = plumb_ref_run(m, NULL, in, n, NULL, &res, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_true(res.n_outputs <= RT_MAX_OUT);
    for (uint32_t i = 0; i < res.n_outputs; i++) {
        out[i] = res.outputs[i];
        res.outputs[i] = NULL;
    }
    uint32_t no = res.n_outputs;
    plumb_ref_result_free(&res);
    return no;
}

static void rt_exec_on(const ir_module *m, plumb_isa isa, uint32_t threads, plumb_tensor *const *in,
                       uint32_t n, plumb_tensor **out, uint32_t nout)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = plumb_runtime_run(rt_get(isa, threads), m, NULL, in, n, out, nout, NULL, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
}

static void rt_outs_free(plumb_tensor **o, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) plumb_tensor_free(o[i]);
}

static void rt_report_diff(const plumb_tensor *a, const plumb_tensor *b, const char *what)
{
    uint64_t n = plumb_tensor_numel(a);
    for (uint64_t i = 0; i < n && plumb_tensor_numel(b) == n; i++) {
        uint64_t x = plumb_load_bits(a->dtype, a->data, i), y = plumb_load_bits(b->dtype, b->data, i);
        if (x != y) {
            fprintf(stderr, "%s: element %llu: 0x%llx vs 0x%llx\n", what, (unsigned long long)i,
                    (unsigned long long)x, (unsigned long long)y);
            return;
        }
    }
}

/* Bitwise equality, except that with any_nan every NaN equals every NaN
 * (the exact class for ops that compute rather than move data). */
static bool rt_equal(const plumb_tensor *a, const plumb_tensor *b, bool any_nan)
{
    if (!any_nan || !plumb_dtype_is_float(a->dtype) || a->dtype != b->dtype || a->rank != b->rank ||
        plumb_tensor_numel(a) != plumb_tensor_numel(b))
        return plumb_tensor_equal(a, b);
    uint64_t n = plumb_tensor_numel(a);
    for (uint64_t i = 0; i < n; i++) {
        double x = plumb_load_f64(a->dtype, a->data, i), y = plumb_load_f64(b->dtype, b->data, i);
        if (isnan(x) && isnan(y)) continue;
        if (plumb_load_bits(a->dtype, a->data, i) != plumb_load_bits(b->dtype, b->data, i)) return false;
    }
    return true;
}

static void rt_check_exact_cls(const char *src, plumb_tensor *const *in, uint32_t n, bool any_nan)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT], *got[RT_MAX_OUT];
    uint32_t no = rt_ref(m, in, n, want);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, in, n, got, no);
            for (uint32_t i = 0; i < no; i++) {
                bool eq = rt_equal(want[i], got[i], any_nan);
                if (!eq) {
                    fprintf(stderr, "isa %d threads %u output %u differs from the reference\n", isa, th, i);
                    rt_report_diff(want[i], got[i], "ref vs rt");
                }
                assert_true(eq);
            }
            rt_outs_free(got, no);
        }
    rt_outs_free(want, no);
    ir_module_free(m);
}

/* Exact ops that move data: bit for bit, NaN payloads included. */
static inline void rt_check_exact(const char *src, plumb_tensor *const *in, uint32_t n)
{
    rt_check_exact_cls(src, in, n, false);
}

/* Exact ops that compute (max/min, integer sums): NaNs compare equal. */
static inline void rt_check_exact_nan(const char *src, plumb_tensor *const *in, uint32_t n)
{
    rt_check_exact_cls(src, in, n, true);
}

static double rt_unit_roundoff(plumb_dtype t) { return t == PLUMB_F64 ? 0x1p-53 : 0x1p-24; }

/* Copy of t with every float element replaced by its magnitude. */
static plumb_tensor *rt_abs_copy(const plumb_tensor *t)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *c = plumb_tensor_clone(t, &d);
    assert_non_null(c);
    if (plumb_dtype_is_float(t->dtype)) {
        uint64_t n = plumb_tensor_numel(t);
        unsigned bits = plumb_dtype_get(t->dtype)->bits;
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(t->dtype, c->data, i, plumb_load_bits(t->dtype, t->data, i) & ~(1ull << (bits - 1)));
    }
    return c;
}

/* Reductions and dots over nterms terms: |got - exact| <= gamma(nterms-1) *
 * sum|x| + u*|exact|, with exact and sum|x| the reference's results on the
 * inputs and on their magnitudes (the reference rounds once, so the check
 * adds that rounding as slack; f16/bf16 results also get half an ULP of
 * their own type for the final rounding). Also: bitwise equal on 1 and 2
 * threads, and across ISA levels when same_across_isa. */
static inline void rt_check_bound(const char *src, plumb_tensor *const *in, uint32_t n, uint64_t nterms,
                                  bool same_across_isa)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT], *sabs[RT_MAX_OUT], *got[RT_MAX_OUT], *first[RT_MAX_OUT], *one[RT_MAX_OUT];
    plumb_tensor *ain[16];
    uint32_t no = rt_ref(m, in, n, want);
    for (uint32_t i = 0; i < n; i++) ain[i] = rt_abs_copy(in[i]);
    rt_ref(m, ain, n, sabs);
    bool have_first = false;
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, in, n, got, no);
            for (uint32_t o = 0; o < no; o++) {
                const plumb_tensor *w = want[o], *g = got[o];
                assert_int_equal(w->dtype, g->dtype);
                uint64_t ne = plumb_tensor_numel(w);
                double u = rt_unit_roundoff(w->dtype);
                double k = nterms ? (double)(nterms - 1) : 0.0;
                double gam = k * u / (1 - k * u);
                for (uint64_t e = 0; e < ne; e++) {
                    if (!plumb_dtype_is_float(w->dtype)) {
                        assert_true(plumb_load_bits(w->dtype, w->data, e) == plumb_load_bits(g->dtype, g->data, e));
                        continue;
                    }
                    double ex = plumb_load_f64(w->dtype, w->data, e), gv = plumb_load_f64(g->dtype, g->data, e);
                    double s = plumb_load_f64(w->dtype, sabs[o]->data, e);
                    if (isnan(ex) || isinf(ex)) {
                        bool ok = isnan(ex) ? isnan(gv) : gv == ex;
                        if (!ok)
                            fprintf(stderr, "isa %d th %u out %u elem %llu: got %g want %g\n", isa, th, o,
                                    (unsigned long long)e, gv, ex);
                        assert_true(ok);
                        continue;
                    }
                    double bound = gam * s * (1 + 2 * u) + 2 * u * fabs(ex);
                    if (w->dtype == PLUMB_F16 || w->dtype == PLUMB_BF16) {
                        double ulp = w->dtype == PLUMB_F16 ? 0x1p-10 : 0x1p-7;
                        bound += ulp * fabs(ex) + (w->dtype == PLUMB_F16 ? 0x1p-24 : 0x1p-133);
                    }
                    bool ok = fabs(gv - ex) <= bound || gv == ex;
                    if (!ok)
                        fprintf(stderr, "isa %d th %u out %u elem %llu: got %.17g want %.17g bound %.3g\n", isa, th,
                                o, (unsigned long long)e, gv, ex, bound);
                    assert_true(ok);
                }
            }
            if (th == 1) {
                for (uint32_t o = 0; o < no; o++) one[o] = got[o];
            } else {
                for (uint32_t o = 0; o < no; o++) {
                    bool eq = plumb_tensor_equal(one[o], got[o]);
                    if (!eq) rt_report_diff(one[o], got[o], "1 vs 2 threads");
                    assert_true(eq);
                }
                rt_outs_free(got, no);
            }
        }
        if (same_across_isa && !have_first) {
            for (uint32_t o = 0; o < no; o++) first[o] = one[o];
            have_first = true;
            continue;
        }
        if (same_across_isa)
            for (uint32_t o = 0; o < no; o++) {
                bool eq = plumb_tensor_equal(first[o], one[o]);
                if (!eq) rt_report_diff(first[o], one[o], "across ISA levels");
                assert_true(eq);
            }
        rt_outs_free(one, no);
    }
    if (have_first) rt_outs_free(first, no);
    for (uint32_t i = 0; i < n; i++) plumb_tensor_free(ain[i]);
    rt_outs_free(want, no);
    rt_outs_free(sabs, no);
    ir_module_free(m);
}

static uint64_t rt_rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rt_rand(void)
{
    uint64_t z = (rt_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random tensor: floats uniform in [-1, 1) scaled by 2^(0..7); integers
 * arbitrary bits; i1 0 or 1. */
static plumb_tensor *rt_rand_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims, bool specials)
{
    (void)specials;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        if (plumb_dtype_is_float(t)) {
            double v = ((double)(r >> 11) * 0x1p-53 * 2 - 1) * (double)(1u << (r & 7));
            uint64_t bits;
            switch (t) {
            case PLUMB_F32: bits = plumb_f32_bits((float)v); break;
            case PLUMB_F64: bits = plumb_f64_bits(v); break;
            case PLUMB_F16: bits = plumb_f64_to_f16(v); break;
            default: bits = plumb_f64_to_bf16(v); break;
            }
            plumb_store_bits(t, x->data, i, bits);
        } else {
            plumb_store_bits(t, x->data, i, t == PLUMB_I1 ? r & 1 : r);
        }
    }
    return x;
}

static inline plumb_tensor *rt_scalar_bits(plumb_dtype t, uint64_t bits)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, 0, NULL, 0, &d);
    assert_non_null(x);
    plumb_store_bits(t, x->data, 0, bits);
    return x;
}

/* "tensor<2x3xf32>" into buf. */
static const char *rt_ty(char *buf, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    size_t o = (size_t)snprintf(buf, cap, "tensor<");
    for (uint32_t i = 0; i < rank; i++) o += (size_t)snprintf(buf + o, cap - o, "%lldx", (long long)dims[i]);
    snprintf(buf + o, cap - o, "%s>", plumb_dtype_name(t));
    return buf;
}

/* f32 and bf16 matmuls of every (m, n, k) from edge sizes around the tile
 * and block widths: each element within gamma(k-1) * sum|a*b| + u*|exact|
 * of a long-double triple loop (exact for these products and sums up to
 * the long double's rounding, which the bound's slack covers). */
static void gemm_sizes(plumb_dtype t)
{
    const int64_t sz[] = {1, 7, 17, 63, 64, 65, 255, 257};
    const size_t ns = sizeof sz / sizeof sz[0];
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++)
            for (size_t c = 0; c < ns; c++) {
                int64_t m = sz[a], n = sz[b], k = sz[c];
                /* every triple with a small side; large ones on a diagonal subset */
                if (m * n * k > 65 * 65 * 65 && ((a + b + c) % 4 != 0 || m * n * k > 65 * 65 * 257)) continue;
                char src[1024], ta[64], tb[64], tc[64];
                int64_t da[2] = {m, k}, db[2] = {k, n}, dc[2] = {m, n};
                rt_ty(ta, sizeof ta, t, 2, da);
                rt_ty(tb, sizeof tb, t, 2, db);
                rt_ty(tc, sizeof tc, PLUMB_F32, 2, dc);
                snprintf(src, sizeof src,
                         "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                         "  %%r = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : (%s, %s) -> %s\n"
                         "  func.return %%r : %s\n}\n",
                         ta, tb, tc, ta, tb, tc, tc);
                ir_module *mod = rt_parse(src);
                plumb_tensor *in[2] = {rt_rand_tensor(t, 2, da, false), rt_rand_tensor(t, 2, db, false)};
                plumb_tensor *got[1], *first = NULL;
                for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                    for (uint32_t th = 1; th <= 2; th++) {
                        rt_exec_on(mod, (plumb_isa)isa, th, in, 2, got, 1);
                        const float *g = got[0]->data;
                        double u = 0x1p-24, kk = (double)(k - 1), gam = kk * u / (1 - kk * u);
                        for (int64_t i = 0; i < m; i++)
                            for (int64_t j = 0; j < n; j++) {
                                long double ex = 0, s = 0;
                                for (int64_t p = 0; p < k; p++) {
                                    long double x = plumb_load_f64(t, in[0]->data, (size_t)(i * k + p));
                                    long double y = plumb_load_f64(t, in[1]->data, (size_t)(p * n + j));
                                    ex += x * y;
                                    s += fabsl(x * y);
                                }
                                double bound = gam * (double)s * 1.0001 + u * fabs((double)ex) + 1e-300;
                                double err = fabs((double)((long double)g[i * n + j] - ex));
                                if (err > bound)
                                    fprintf(stderr, "%s m %lld n %lld k %lld isa %d th %u (%lld,%lld): err %g bound %g\n",
                                            plumb_dtype_name(t), (long long)m, (long long)n, (long long)k, isa, th,
                                            (long long)i, (long long)j, err, bound);
                                assert_true(err <= bound);
                            }
                        if (th == 1) {
                            first = got[0];
                        } else {
                            assert_true(plumb_tensor_equal(first, got[0]));
                            plumb_tensor_free(first);
                            plumb_tensor_free(got[0]);
                        }
                    }
                plumb_tensor_free(in[0]);
                plumb_tensor_free(in[1]);
                ir_module_free(mod);
            }
}

/* f32 GEMM on edge sizes. */
static void test_gemm_f32_sizes(void **state)
{
    (void)state;
    gemm_sizes(PLUMB_F32);
}

/* bf16 GEMM (vdpbf16ps where the CPU has it) on edge sizes. */
static void test_gemm_bf16_sizes(void **state)
{
    (void)state;
    gemm_sizes(PLUMB_BF16);
}

static void dot_case(const char *lt, const char *rt, const char *ot, const char *dims, plumb_dtype ldt,
                     const int64_t *ld, uint32_t lr, plumb_dtype rdt, const int64_t *rd, uint32_t rr, uint64_t k)
{
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
             "  %%r = stablehlo.dot_general %%a, %%b, %s : (%s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             lt, rt, ot, dims, lt, rt, ot, ot);
    plumb_tensor *in[2] = {rt_rand_tensor(ldt, lr, ld, false), rt_rand_tensor(rdt, rr, rd, false)};
    if (plumb_dtype_is_float(ldt))
        rt_check_bound(src, in, 2, k, false);
    else
        rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Batching and contracting dimensions in arbitrary positions, several
 * contracting dims, every float type, mixed operands: within the bound
 * against the reference. */
static void test_dot_general_dims(void **state)
{
    (void)state;
    int64_t l1[4] = {3, 5, 2, 7}, r1[4] = {7, 3, 4, 2};
    const char *d1 = "batching_dims = [0] x [1], contracting_dims = [3, 2] x [0, 3]";
    dot_case("tensor<3x5x2x7xf32>", "tensor<7x3x4x2xf32>", "tensor<3x5x4xf32>", d1, PLUMB_F32, l1, 4, PLUMB_F32, r1, 4, 14);
    dot_case("tensor<3x5x2x7xf64>", "tensor<7x3x4x2xf64>", "tensor<3x5x4xf64>", d1, PLUMB_F64, l1, 4, PLUMB_F64, r1, 4, 14);
    dot_case("tensor<3x5x2x7xf16>", "tensor<7x3x4x2xf16>", "tensor<3x5x4xf16>", d1, PLUMB_F16, l1, 4, PLUMB_F16, r1, 4, 14);
    dot_case("tensor<3x5x2x7xbf16>", "tensor<7x3x4x2xbf16>", "tensor<3x5x4xbf16>", d1, PLUMB_BF16, l1, 4, PLUMB_BF16, r1, 4, 14);
    int64_t l2[3] = {4, 33, 70}, r2[3] = {4, 70, 40};
    const char *d2 = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
    dot_case("tensor<4x33x70xbf16>", "tensor<4x70x40xbf16>", "tensor<4x33x40xf32>", d2, PLUMB_BF16, l2, 3, PLUMB_BF16, r2, 3, 70);
    dot_case("tensor<4x33x70xf32>", "tensor<4x70x40xf32>", "tensor<4x33x40xf32>", d2, PLUMB_F32, l2, 3, PLUMB_F32, r2, 3, 70);
    int64_t l3[2] = {70, 33}, r3[2] = {40, 70};
    dot_case("tensor<70x33xf32>", "tensor<40x70xf32>", "tensor<33x40xf32>", "contracting_dims = [0] x [1]", PLUMB_F32, l3,
             2, PLUMB_F32, r3, 2, 70);
    int64_t v[1] = {1000};
    dot_case("tensor<1000xf32>", "tensor<1000xf32>", "tensor<f32>", "contracting_dims = [0] x [0]", PLUMB_F32, v, 1,
             PLUMB_F32, v, 1, 1000);
    int64_t z1[2] = {3, 0}, z2[2] = {0, 4};
    dot_case("tensor<3x0xf32>", "tensor<0x4xf32>", "tensor<3x4xf32>", "contracting_dims = [1] x [0]", PLUMB_F32, z1, 2,
             PLUMB_F32, z2, 2, 0);
    int64_t i1[2] = {6, 9}, i2[2] = {9, 5};
    dot_case("tensor<6x9xi32>", "tensor<9x5xi32>", "tensor<6x5xi32>", "contracting_dims = [1] x [0]", PLUMB_I32, i1, 2,
             PLUMB_I32, i2, 2, 9);
    dot_case("tensor<6x9xi8>", "tensor<9x5xi8>", "tensor<6x5xi8>", "contracting_dims = [1] x [0]", PLUMB_I8, i1, 2,
             PLUMB_I8, i2, 2, 9);
    dot_case("tensor<6x9xi1>", "tensor<9x5xi1>", "tensor<6x5xi1>", "contracting_dims = [1] x [0]", PLUMB_I1, i1, 2,
             PLUMB_I1, i2, 2, 9);
}

/* stablehlo.dot (matrix-vector) and special values: NaN, inf - inf. */
static void test_dot_specials(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {\n"
                      "  %r = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>\n"
                      "  func.return %r : tensor<4xf32>\n}\n";
    int64_t da[2] = {4, 8}, db[1] = {8};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, da, false), rt_rand_tensor(PLUMB_F32, 1, db, false)};
    plumb_store_bits(PLUMB_F32, in[0]->data, 3, 0x7FC00001);
    plumb_store_bits(PLUMB_F32, in[0]->data, 8, plumb_f32_bits(INFINITY));
    plumb_store_bits(PLUMB_F32, in[0]->data, 9, plumb_f32_bits(-INFINITY));
    plumb_store_bits(PLUMB_F32, in[1]->data, 1, plumb_f32_bits(1.0f));
    plumb_store_bits(PLUMB_F32, in[0]->data, 16, plumb_f32_bits(INFINITY));
    rt_check_bound(src, in, 2, 8, false);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* bf16 results: with one term per result the product is exact in f32, so
 * the runtime's rounding of its f32 accumulator to bf16 must give the
 * reference's correctly rounded result bit for bit: ties to even (normal
 * and subnormal), overflow to infinity, negative values, NaN, in the vector
 * body and the tail of the rounding loop. */
static void test_dot_bf16_result_rounding(void **state)
{
    (void)state;
    const char *src = "func.func @main(%a: tensor<2x1xbf16>, %b: tensor<1x67xbf16>) -> tensor<2x67xbf16> {\n"
                      "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x1xbf16>, tensor<1x67xbf16>) -> tensor<2x67xbf16>\n"
                      "  func.return %r : tensor<2x67xbf16>\n}\n";
    int64_t da[2] = {2, 1}, db[2] = {1, 67};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_BF16, 2, da, false), rt_rand_tensor(PLUMB_BF16, 2, db, false)};
    plumb_store_bits(PLUMB_BF16, in[0]->data, 0, 0x3F81);   /* 1 + 2^-7 */
    plumb_store_bits(PLUMB_BF16, in[0]->data, 1, 0x3FC0);   /* 1.5 */
    for (int j = 0; j < 67; j++)
        plumb_store_bits(PLUMB_BF16, in[1]->data, (size_t)j, (uint64_t)(0x3F80 + 2 * j));   /* j = 32: a tie */
    static const uint16_t special[] = {0x7FC1, 0x7F80, 0x7F7F, 0xBF83, 0x0080, 0x0001, 0x0003};
    for (int j = 0; j < 7; j++)
        plumb_store_bits(PLUMB_BF16, in[1]->data, (size_t)(60 + j), special[j]);
    rt_check_exact_cls(src, in, 2, true);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_f32_sizes),
        cmocka_unit_test(test_gemm_bf16_sizes),
        cmocka_unit_test(test_dot_general_dims),
        cmocka_unit_test(test_dot_specials),
        cmocka_unit_test(test_dot_bf16_result_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
