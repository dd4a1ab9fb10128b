/* The reduce kernel's vector paths (integer folds, float max/min by
 * ordered-integer keys, f16/bf16 and column sums) against the reference and
 * against models of the documented sequential results: special values,
 * lengths around the vector widths, rows, columns, both, middle dims, at
 * every ISA level on 1 and 2 threads, bit for bit. */
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

#include "runtime/rt_test.h"
#include "runtime/sum_model.h"
#include "../../runtime/rt_internal.h"
#include "../../runtime/rt_sum.h"


static unsigned width(plumb_dtype t) { return (unsigned)plumb_dtype_get(t)->bits; }

/* Float special values of each type as bit patterns: zeros, infinities,
 * quiet/signaling/negative NaNs with payloads, subnormals, the largest
 * finite values. */
static uint64_t float_special(plumb_dtype t, uint64_t r)
{
    static const uint64_t f16[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01, 0x7c05, 0xfe3f, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff};
    static const uint64_t bf16[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc1, 0x7f85, 0xffc3, 0x0001, 0x8001, 0x007f, 0x7f7f, 0xff7f};
    static const uint64_t f32[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00123u, 0x7f800321u, 0xffc00007u,
                                   1, 0x80000001u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu};
    static const uint64_t f64[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                   0x7ff8000000000123ull, 0x7ff0000000000321ull, 0xfff8000000000007ull, 1,
                                   0x8000000000000001ull, 0x000fffffffffffffull, 0x7fefffffffffffffull,
                                   0xffefffffffffffffull};
    size_t k = (size_t)(r % 12);
    switch (t) {
    case PLUMB_F16: return f16[k];
    case PLUMB_BF16: return bf16[k];
    case PLUMB_F32: return f32[k];
    default: return f64[k];
    }
}

static bool is_nan_bits(plumb_dtype t, uint64_t b)
{
    unsigned w = width(t);
    uint64_t mag = b & ((w == 64 ? ~0ull : (1ull << w) - 1) >> 1);
    uint64_t inf = t == PLUMB_F16 ? 0x7c00 : t == PLUMB_BF16 ? 0x7f80 : t == PLUMB_F32 ? 0x7f800000u : 0x7ff0000000000000ull;
    return mag > inf;
}

/* Random input; with specials set, about one element in `every` is a
 * special value (floats: the list above, NaNs only when nans; integers:
 * 0, -1, 1 and the signed and unsigned extremes). */
static plumb_tensor *make_input(plumb_dtype t, uint32_t rank, const int64_t *dims, unsigned every, bool nans)
{
    plumb_tensor *x = rt_rand_tensor(t, rank, dims, false);
    uint64_t n = plumb_tensor_numel(x);
    unsigned w = width(t);
    for (uint64_t i = 0; every && i < n; i++) {
        uint64_t r = rt_rand();
        if (r % every) continue;
        r >>= 8;
        uint64_t b;
        if (plumb_dtype_is_float(t)) {
            do b = float_special(t, r++); while (!nans && is_nan_bits(t, b));
        } else if (t == PLUMB_I1) {
            b = r & 1;
        } else {
            uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
            const uint64_t ext[] = {0, m, 1, 1ull << (w - 1), m >> 1, (1ull << (w - 1)) + 1};
            b = ext[r % 6];
        }
        plumb_store_bits(t, x->data, i, b);
    }
    return x;
}

static void make_src(char *src, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *rd,
                     uint32_t nrd, const char *bop)
{
    char tin[256], tout[256], dl[128] = "";
    int64_t od[PLUMB_MAX_RANK];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < nrd; i++) r |= rd[i] == (int64_t)d;
        if (!r) od[orank++] = dims[d];
    }
    size_t o = 0;
    for (uint32_t i = 0; i < nrd; i++)
        o += (size_t)snprintf(dl + o, sizeof dl - o, "%s%lld", i ? ", " : "", (long long)rd[i]);
    const char *tn = plumb_dtype_name(t);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
             "  %%r = stablehlo.reduce(%%x init: %%i) applies stablehlo.%s across dimensions = [%s] : (%s, tensor<%s>) -> %s\n"
             "  func.return %%r : %s\n}\n",
             rt_ty(tin, sizeof tin, t, rank, dims), tn, rt_ty(tout, sizeof tout, t, orank, od), bop, dl, tin, tn, tout,
             tout);
}

/* For output o, the input element indices it reduces, in the row-major order
 * of the reduced dims (the reference's order); returns their count. */
static uint64_t reduced_indices(uint32_t rank, const int64_t *dims, const bool *red, uint64_t o, uint64_t *idx)
{
    int64_t str[PLUMB_MAX_RANK], s = 1;
    for (uint32_t d = rank; d-- > 0;) { str[d] = s; s *= dims[d]; }
    int64_t base = 0;
    uint64_t rem = o;
    for (uint32_t d = rank; d-- > 0;)
        if (!red[d]) { base += (int64_t)(rem % (uint64_t)dims[d]) * str[d]; rem /= (uint64_t)dims[d]; }
    uint64_t cnt = 1;
    for (uint32_t d = 0; d < rank; d++) if (red[d]) cnt *= (uint64_t)dims[d];
    for (uint64_t k = 0; k < cnt; k++) {
        int64_t off = base;
        uint64_t q = k;
        for (uint32_t d = rank; d-- > 0;)
            if (red[d]) { off += (int64_t)(q % (uint64_t)dims[d]) * str[d]; q /= (uint64_t)dims[d]; }
        idx[k] = (uint64_t)off;
    }
    return cnt;
}

/* The sequential IEEE max/min the reduce kernel documents: from init in the
 * reference's order, a NaN accumulator sticks (the first NaN), -0 < +0;
 * the chosen value goes through double and back. */
static double seq_maxmin(bool mx, double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return (signbit(a) != 0) == mx ? b : a;
    return (a > b) == mx ? a : b;
}

/* CMP_SUM_NAN: the sum model where two NaN terms may meet: which payload
 * survives an add of two NaNs depends on the operand order the compiler
 * picks for each loop (x86 keeps the first source's), so those results
 * only have to be NaNs; a single NaN term, and NaNs made from inf - inf
 * (always the default NaN), keep their exact bits. */
typedef enum { CMP_REF, CMP_SUM_MODEL, CMP_SUM_NAN, CMP_MAXMIN_MODEL } cmp_kind;

/* Runs the reduce at every ISA level on 1 and 2 threads; each result must
 * be bitwise equal to the expected tensor (CMP_REF: the reference's, NaNs
 * of any payload equal to each other, and then every run bitwise equal to
 * the first). */
static void check_case(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *rd, uint32_t nrd,
                       const char *bop, const plumb_tensor *x, uint64_t init_bits, cmp_kind cmp)
{
    char src[4096];
    make_src(src, sizeof src, t, rank, dims, rd, nrd, bop);
    ir_module *m = rt_parse(src);
    plumb_tensor *init = rt_scalar_bits(t, init_bits);
    plumb_tensor *in[2] = {(plumb_tensor *)x, init};
    plumb_tensor *want[RT_MAX_OUT];
    uint32_t no = rt_ref(m, in, 2, want);
    assert_int_equal(no, 1);
    bool red[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < nrd; i++) red[rd[i]] = true;
    bool half_ref = false;   /* some expected values are the reference's half sums */
    if (cmp != CMP_REF) {
        uint64_t nout = plumb_tensor_numel(want[0]), total = plumb_tensor_numel(x);
        uint64_t *idx = malloc(sizeof(uint64_t) * (total + 1));
        double *v = malloc(sizeof(double) * (total + 1));
        assert_non_null(idx);
        assert_non_null(v);
        double di = plumb_load_f64(t, &init_bits, 0);
        for (uint64_t o = 0; o < nout; o++) {
            uint64_t c = reduced_indices(rank, dims, red, o, idx);
            /* bf16 sums and f16 sums of more than 8191 terms are compensated
             * and rounded once (k_reduce.c half_csum): the reference's
             * correctly rounded sum, not the lane model's (a NaN: any NaN,
             * its bits are the runtime's own, as for CMP_SUM_NAN) */
            if ((cmp == CMP_SUM_MODEL || cmp == CMP_SUM_NAN) && (t == PLUMB_BF16 || (t == PLUMB_F16 && c >= 8192))) {
                half_ref = true;
                continue;
            }
            for (uint64_t k = 0; k < c; k++) v[k] = plumb_load_f64(t, x->data, (size_t)idx[k]);
            double r;
            if (cmp == CMP_SUM_MODEL || cmp == CMP_SUM_NAN) {
                double ms = model_sum(v, c);
                /* an f64 lane sum that met an infinity is summed again in
                 * index order with the terms scaled by 2^-64, compensated
                 * (Neumaier), then scaled back (k_reduce.c) */
                if (t == PLUMB_F64 && !isfinite(ms)) {
                    double cs = 0.0;
                    ms = -0.0;
                    for (uint64_t k = 0; k < c; k++) {
                        double y = v[k] * 0x1p-64, tt = ms + y;
                        if (isfinite(tt)) cs += fabs(ms) >= fabs(y) ? (ms - tt) + y : (y - tt) + ms;
                        ms = tt;
                    }
                    if (isfinite(ms)) ms += cs;
                    ms *= 0x1p64;
                }
                r = di + ms;
            } else {
                r = di;
                for (uint64_t k = 0; k < c; k++) r = seq_maxmin(strcmp(bop, "maximum") == 0, r, v[k]);
            }
            plumb_store_bits(t, want[0]->data, (size_t)o, round_bits(t, r));
        }
        free(idx);
        free(v);
    }
    plumb_tensor *first = NULL, *first1 = NULL;   /* first run; this level's one-thread run */
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *got[RT_MAX_OUT];
            rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
            bool anynan = cmp == CMP_REF || cmp == CMP_SUM_NAN || half_ref;
            bool eq = rt_equal(want[0], got[0], anynan);
            if (eq && first) eq = rt_equal(first, got[0], anynan) && (th == 1 || plumb_tensor_equal(first1, got[0]));
            if (!eq) {
                fprintf(stderr, "%s %s rank %u isa %d threads %u\n", plumb_dtype_name(t), bop, rank, isa, th);
                rt_report_diff(want[0], got[0], "expected vs runtime");
                if (first) rt_report_diff(first, got[0], "first run vs this run");
            }
            assert_true(eq);
            if (!first) { first = got[0]; first1 = got[0]; continue; }
            if (th == 1) {
                if (first1 != first) plumb_tensor_free(first1);
                first1 = got[0];
            } else {
                plumb_tensor_free(got[0]);
            }
        }
    if (first1 != first) plumb_tensor_free(first1);
    plumb_tensor_free(first);
    plumb_tensor_free(want[0]);
    plumb_tensor_free(init);
    ir_module_free(m);
}

/* Reduced-dim layouts over shapes whose lengths straddle the vector widths
 * (64 bytes: 8 to 64 lanes, 4 accumulators) and the column block. */
typedef struct layout {
    uint32_t rank;
    int64_t dims[3];
    uint32_t nrd;
    int64_t rd[3];
} layout;

static const layout layouts[] = {
    {1, {1}, 1, {0}},
    {1, {63}, 1, {0}},
    {1, {257}, 1, {0}},
    {1, {1000}, 1, {0}},
    {2, {3, 255}, 1, {1}},
    {2, {5, 64}, 1, {1}},
    {2, {4, 65}, 1, {1}},
    {2, {37, 7}, 1, {0}},
    {2, {9, 130}, 1, {0}},
    {2, {3, 2100}, 1, {0}},
    {2, {6, 33}, 2, {0, 1}},
    {3, {3, 17, 21}, 1, {1}},
    {3, {4, 5, 70}, 1, {1}},
    {3, {3, 9, 5}, 2, {0, 2}},
};

static const plumb_dtype int_types[] = {PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8,
                                        PLUMB_UI16, PLUMB_UI32, PLUMB_UI64, PLUMB_I1};
static const plumb_dtype float_types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

/* Integer add, multiply, and, or, xor, max, min wrap and compare in the
 * element type: every layout, extremes mixed in, a nonzero init; equal to
 * the reference bit for bit everywhere. */
static void test_integer_folds(void **state)
{
    (void)state;
    static const char *ops[] = {"add", "multiply", "and", "or", "xor", "maximum", "minimum"};
    for (size_t ti = 0; ti < sizeof int_types / sizeof int_types[0]; ti++)
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
            const layout *L = &layouts[li];
            plumb_tensor *x = make_input(int_types[ti], L->rank, L->dims, li % 2 ? 4 : 50, false);
            for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
                uint64_t init = int_types[ti] == PLUMB_I1 ? (k == 1 || k == 2 || k == 6) : (uint64_t)(k * 7 + 3);
                check_case(int_types[ti], L->rank, L->dims, L->rd, L->nrd, ops[k], x, init, CMP_REF);
            }
            plumb_tensor_free(x);
        }
}

/* All-extreme rows: sums that wrap several times, products of the minimum,
 * max/min at the extremes themselves. */
static void test_integer_extremes(void **state)
{
    (void)state;
    static const char *ops[] = {"add", "multiply", "maximum", "minimum", "xor"};
    const int64_t dims[2] = {3, 300}, r1[1] = {1}, r0[1] = {0};
    for (size_t ti = 0; ti + 1 < sizeof int_types / sizeof int_types[0]; ti++) {
        plumb_tensor *x = make_input(int_types[ti], 2, dims, 1, false);
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            check_case(int_types[ti], 2, dims, r1, 1, ops[k], x, 1, CMP_REF);
            check_case(int_types[ti], 2, dims, r0, 1, ops[k], x, 0, CMP_REF);
        }
        plumb_tensor_free(x);
    }
}

/* Float max/min: the sequential per-element result bit for bit (the first
 * NaN in order, quieted, when there is one; -0 < +0; subnormals and
 * infinities as values), and the reference's value; rows with and without
 * NaNs, NaN and -0 inits. */
static void test_float_maxmin(void **state)
{
    (void)state;
    static const char *ops[] = {"maximum", "minimum"};
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++) {
        plumb_dtype t = float_types[ti];
        unsigned w = width(t);
        uint64_t ninf = t == PLUMB_F16 ? 0xfc00 : t == PLUMB_BF16 ? 0xff80 : t == PLUMB_F32 ? 0xff800000u : 0xfff0000000000000ull;
        uint64_t negz = 1ull << (w - 1), pinf = ninf & ~negz;
        uint64_t qnan = float_special(t, 4);
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
            const layout *L = &layouts[li];
            for (int mode = 0; mode < 3; mode++) {
                /* 0: no specials; 1: specials without NaNs; 2: with NaNs */
                plumb_tensor *x = make_input(t, L->rank, L->dims, mode == 0 ? 0 : mode == 1 ? 3 : 40, mode == 2);
                for (size_t k = 0; k < 2; k++) {
                    uint64_t inits[3] = {k == 0 ? ninf : pinf, negz, qnan};
                    for (int ii = 0; ii < 3; ii++) {
                        check_case(t, L->rank, L->dims, L->rd, L->nrd, ops[k], x, inits[ii], CMP_MAXMIN_MODEL);
                        if (ii == 0) check_case(t, L->rank, L->dims, L->rd, L->nrd, ops[k], x, inits[ii], CMP_REF);
                    }
                }
                plumb_tensor_free(x);
            }
        }
    }
}

/* Rows of only zeros of both signs: max picks +0, min picks -0, whichever
 * lane or position the +0 or -0 is in. */
static void test_signed_zeros(void **state)
{
    (void)state;
    const int64_t dims[2] = {4, 70}, r1[1] = {1}, r0[1] = {0};
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++) {
        plumb_dtype t = float_types[ti];
        uint64_t negz = 1ull << (width(t) - 1);
        plumb_tensor *x = rt_rand_tensor(t, 2, dims, false);
        for (uint64_t i = 0; i < 280; i++) plumb_store_bits(t, x->data, i, negz);
        plumb_store_bits(t, x->data, 69, 0);      /* row 0: last */
        plumb_store_bits(t, x->data, 70 + 17, 0); /* row 1: middle */
        plumb_store_bits(t, x->data, 2 * 70, 0);  /* row 2: first */
        for (int k = 0; k < 2; k++) {
            const char *op = k ? "minimum" : "maximum";
            check_case(t, 2, dims, r1, 1, op, x, negz, CMP_MAXMIN_MODEL);
            check_case(t, 2, dims, r0, 1, op, x, negz, CMP_MAXMIN_MODEL);
            check_case(t, 2, dims, r1, 1, op, x, 0, CMP_MAXMIN_MODEL);
        }
        plumb_tensor_free(x);
    }
}

/* Float sums in every type: the documented order's bits exactly (lanes,
 * blocks, double accumulation, one rounding), rows, columns, both and
 * middle dims, with and without special values; within the data-dependent
 * bound of the reference on plain data. */
static void test_float_sums(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++) {
        plumb_dtype t = float_types[ti];
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
            const layout *L = &layouts[li];
            for (int mode = 0; mode < 3; mode++) {
                plumb_tensor *x = make_input(t, L->rank, L->dims, mode == 0 ? 0 : mode == 1 ? 5 : 60, mode == 2);
                cmp_kind ck = mode == 2 ? CMP_SUM_NAN : CMP_SUM_MODEL;
                check_case(t, L->rank, L->dims, L->rd, L->nrd, "add", x, 0, ck);
                check_case(t, L->rank, L->dims, L->rd, L->nrd, "add", x, 1ull << (width(t) - 1), ck);
                if (mode == 0) {
                    char src[4096];
                    make_src(src, sizeof src, t, L->rank, L->dims, L->rd, L->nrd, "add");
                    uint64_t nterms = 1;
                    for (uint32_t i = 0; i < L->nrd; i++) nterms *= (uint64_t)L->dims[L->rd[i]];
                    plumb_tensor *in[2] = {x, rt_scalar_bits(t, 0)};
                    rt_check_bound(src, in, 2, nterms + 1, true);
                    plumb_tensor_free(in[1]);
                }
                plumb_tensor_free(x);
            }
        }
    }
}

/* Long rows over several sum blocks (the threaded block path for one row)
 * and columns over several row blocks, f16 and bf16 with subnormals: the
 * documented order's bits on 1 and 2 threads. */
static void test_long_sums(void **state)
{
    (void)state;
    const plumb_dtype ts[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32};
    const int64_t d1[1] = {9001}, d2[2] = {4500, 3}, r0[1] = {0};
    for (size_t ti = 0; ti < 3; ti++) {
        plumb_tensor *x = make_input(ts[ti], 1, d1, 7, false);
        check_case(ts[ti], 1, d1, r0, 1, "add", x, 0, CMP_SUM_MODEL);
        plumb_tensor_free(x);
        x = make_input(ts[ti], 2, d2, 7, false);
        check_case(ts[ti], 2, d2, r0, 1, "add", x, 0, CMP_SUM_MODEL);
        plumb_tensor_free(x);
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* rt_sum.h's register lanes (the AVX-512 f32 sums' fast path) against the
 * lane array and rt_sum_fold_lanes (its reference path): 32 whole terms
 * then a tail of every length 0..31, terms ordinary, all -0.0 (a lane
 * without terms must stay -0.0), or specials with NaN payloads: bit for
 * bit, NaN for NaN. */
__attribute__((target("avx512f"))) static double lanes_fast(const float *t, size_t n)
{
    __m512d a[4];
    rt_sum_lanes_init(a);
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        rt_sum_lanes_add32(a, _mm512_loadu_ps(t + i), _mm512_loadu_ps(t + i + 16));
    if (i < n)
        rt_sum_lanes_add_tail(a, t + i, n - i);
    return rt_sum_lanes_fold(a);
}
#endif

static void test_sum_lanes_registers(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
    if (rt_cpu_best_isa() != PLUMB_ISA_AVX512) {
        printf("test_sum_lanes_registers: no AVX-512 here: the register lanes are not used\n");
        return;
    }
    float t[64];
    for (int kind = 0; kind < 3; kind++)
        for (size_t n = 32; n < 64; n++) {
            uint32_t r = 12345u + (uint32_t)n * 7919u;
            for (size_t i = 0; i < n; i++) {
                r = r * 1664525u + 1013904223u;
                uint32_t b;
                if (kind == 0) {
                    /* magnitudes 2^-40 .. 2^40: the double sums round, so
                     * the order of the additions shows */
                    float f = ldexpf((float)(r >> 8) / 16777216.0f - 0.5f, (int)(r % 81) - 40);
                    memcpy(&b, &f, 4);
                } else if (kind == 1) {
                    b = 0x80000000u;
                } else {
                    b = (uint32_t)float_special(PLUMB_F32, r >> 4);
                }
                memcpy(&t[i], &b, 4);
            }
            double l[32];
            for (unsigned j = 0; j < 32; j++)
                l[j] = -0.0;
            for (size_t i = 0; i < n; i++)
                l[i % 32] = l[i % 32] + (double)t[i];
            double want = rt_sum_fold_lanes(l), got = lanes_fast(t, n);
            uint64_t wb, gb;
            memcpy(&wb, &want, 8);
            memcpy(&gb, &got, 8);
            /* a NaN result: which of several NaN terms' payloads survives
             * depends on the operand order the compiler gave the scalar
             * additions (documented: docs/runtime-reduce.md) */
            if (wb != gb && !(isnan(want) && isnan(got)))
                fail_msg("kind %d, %zu terms: got 0x%016llx want 0x%016llx", kind, n, (unsigned long long)gb,
                         (unsigned long long)wb);
        }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_folds),
        cmocka_unit_test(test_integer_extremes),
        cmocka_unit_test(test_float_maxmin),
        cmocka_unit_test(test_signed_zeros),
        cmocka_unit_test(test_float_sums),
        cmocka_unit_test(test_long_sums),
        cmocka_unit_test(test_sum_lanes_registers),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
