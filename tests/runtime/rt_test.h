/* Shared helpers of the runtime kernel tests: run a one-op program on the
 * reference (the oracle) and on the runtime at every ISA level the CPU has,
 * on 1 and 2 threads, and compare: bitwise for exact ops, within the
 * data-dependent bound for reductions and dots. Static: each test binary
 * includes it once.
 *
 * Optimization levels: the checks run each program at level 0 (the kernels
 * alone: no pass may fold or rewrite the op under test) at every ISA level,
 * and at level 2, the level `plumb run` compiles at (passes and fusion),
 * at the CPU's own ISA level (the one plumb run picks; the kernels' ISA
 * variants are level 0's part), so a fault that only the fused or
 * rewritten program has fails them too. rt_exec_on, for
 * tests that compare with values of their own, runs at level 2 unless the
 * program holds a constant: at levels 1 and 2 an op of constants is folded
 * by the reference itself, and the kernel it tests would not run. */
#ifndef PLUMB_TESTS_RT_TEST_H
#define PLUMB_TESTS_RT_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"


#define RT_MAX_OUT 8

#define RT_MAX_THREADS 4
#define RT_CLI_OPT_LEVEL 2   /* plumb_runtime_options_init's default, which plumb run keeps */
static plumb_runtime *rt_cfg[3][4][RT_MAX_THREADS + 1];   /* [opt level][isa][threads] */

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

static plumb_runtime *rt_get_at(plumb_isa isa, uint32_t threads, uint32_t level)
{
    assert_true(threads <= RT_MAX_THREADS && level <= 2);
    if (!rt_cfg[level][isa][threads]) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = threads;
        o.isa = isa;
        o.opt_level = level;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        rt_cfg[level][isa][threads] = plumb_runtime_create(&o, &d);
        if (!rt_cfg[level][isa][threads]) plumb_diag_print(&d, stderr);
        assert_non_null(rt_cfg[level][isa][threads]);
    }
    return rt_cfg[level][isa][threads];
}

static inline plumb_runtime *rt_get(plumb_isa isa, uint32_t threads)
{
    return rt_get_at(isa, threads, RT_CLI_OPT_LEVEL);
}

static void rt_free_all(void)
{
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < 4; i++)
            for (int t = 0; t <= RT_MAX_THREADS; t++)
                if (rt_cfg[l][i][t]) {
                    plumb_runtime_destroy(rt_cfg[l][i][t]);
                    rt_cfg[l][i][t] = NULL;
                }
}

/* Whether an op of b, or of a region below it, is a constant. */
static bool rt_block_has_constant(const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->code == PLUMB_OP_CONSTANT) return true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (rt_block_has_constant(&op->regions[r])) return true;
    }
    return false;
}

/* The level rt_exec_on runs m at (see the top of this file). */
static uint32_t rt_exec_level(const ir_module *m)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (rt_block_has_constant(&m->funcs[i]->body)) return 0;
    return RT_CLI_OPT_LEVEL;
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

static void rt_exec_at(const ir_module *m, uint32_t level, plumb_isa isa, uint32_t threads,
                       plumb_tensor *const *in, uint32_t n, plumb_tensor **out, uint32_t nout, const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = plumb_runtime_run(rt_get_at(isa, threads, level), m, NULL, in, n, out, nout, NULL, &d);
    if (!ok) {
        plumb_diag_print(&d, stderr);
        fprintf(stderr, "opt level %u, isa %d, %u threads%s%s", level, (int)isa, threads, src ? ":\n" : "\n",
                src ? src : "");
    }
    assert_true(ok);
}

static inline void rt_exec_on(const ir_module *m, plumb_isa isa, uint32_t threads, plumb_tensor *const *in,
                              uint32_t n, plumb_tensor **out, uint32_t nout)
{
    rt_exec_at(m, rt_exec_level(m), isa, threads, in, n, out, nout, NULL);
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

/* m at opt level `level`, at every ISA level from isa_lo to the CPU's, on
 * 1 and 2 threads: its no outputs equal want bit for bit (with any_nan,
 * every NaN equals every NaN). src, when not NULL, is printed with a
 * difference. */
static void rt_check_runtime_at(const ir_module *m, const char *src, uint32_t level, plumb_isa isa_lo,
                                plumb_tensor *const *in, uint32_t n, plumb_tensor *const *want, uint32_t no,
                                bool any_nan)
{
    plumb_tensor *got[RT_MAX_OUT];
    for (int isa = (int)isa_lo; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_at(m, level, (plumb_isa)isa, th, in, n, got, no, src);
            for (uint32_t i = 0; i < no; i++) {
                bool eq = rt_equal(want[i], got[i], any_nan);
                if (!eq) {
                    fprintf(stderr, "opt level %u isa %d threads %u output %u differs from the reference%s%s", level,
                            isa, th, i, src ? ":\n" : "\n", src ? src : "");
                    rt_report_diff(want[i], got[i], "ref vs rt");
                }
                assert_true(eq);
            }
            rt_outs_free(got, no);
        }
}

static void rt_check_exact_cls(const char *src, plumb_tensor *const *in, uint32_t n, bool any_nan)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT] = {NULL};
    uint32_t no = rt_ref(m, in, n, want);
    rt_check_runtime_at(m, NULL, 0, PLUMB_ISA_PORTABLE, in, n, want, no, any_nan);
    rt_check_runtime_at(m, NULL, RT_CLI_OPT_LEVEL, rt_hw_isa(), in, n, want, no, any_nan);
    rt_outs_free(want, no);
    ir_module_free(m);
}

#ifdef PLUMB_RT_PASSES_H
/* rt_fuse at level 2 on @main of m, which must accept it (it used to
 * refuse some functions as cyclic): the function and its groups, held by
 * a (for the fusion and view tests, which include runtime/rt_passes.h
 * first); src is printed when it refuses. */
static inline ir_func *rt_fuse_main(const ir_module *m, const char *src, plumb_arena *a, rt_group **g, uint32_t *ng)
{
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = rt_fuse(a, f, 2, g, ng, &d);
    if (!ok) {
        plumb_diag_print(&d, stderr);
        fprintf(stderr, "%s", src);
    }
    assert_true(ok);
    return f;
}

static inline void rt_check_fuses(const ir_module *m, const char *src)
{
    plumb_arena *a = plumb_arena_new(0);
    rt_group *g = NULL;
    uint32_t ng = 0;
    rt_fuse_main(m, src, a, &g, &ng);
    plumb_arena_free(a);
}
#endif

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
 * threads, and across ISA levels when same_across_isa; at opt levels 0 and
 * 2 (see the top of this file). */
static inline void rt_check_bound(const char *src, plumb_tensor *const *in, uint32_t n, uint64_t nterms,
                                  bool same_across_isa)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT], *sabs[RT_MAX_OUT], *got[RT_MAX_OUT], *first[RT_MAX_OUT], *one[RT_MAX_OUT];
    plumb_tensor *ain[16];
    uint32_t no = rt_ref(m, in, n, want);
    for (uint32_t i = 0; i < n; i++) ain[i] = rt_abs_copy(in[i]);
    rt_ref(m, ain, n, sabs);
    for (uint32_t level = 0; level <= RT_CLI_OPT_LEVEL; level += RT_CLI_OPT_LEVEL) {
        bool have_first = false;
        for (int isa = level ? (int)rt_hw_isa() : PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++) {
            for (uint32_t th = 1; th <= 2; th++) {
                rt_exec_at(m, level, (plumb_isa)isa, th, in, n, got, no, NULL);
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
                                fprintf(stderr, "level %u isa %d th %u out %u elem %llu: got %g want %g\n", level, isa, th, o,
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
                            fprintf(stderr, "level %u isa %d th %u out %u elem %llu: got %.17g want %.17g bound %.3g\n", level, isa, th,
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
    }
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

#endif
