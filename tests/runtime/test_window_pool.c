/* reduce_window (maximum, minimum, integer and float add) and the pooling
 * gradient (select_and_scatter GE/GT + add) on random geometries: ranks 2
 * to 4, windows, strides, padding, window and base dilations, the
 * innermost dimension not windowed (channels-last: the vector row
 * kernels, runtime/k_window.c) or windowed (channels-first), every
 * element type the fast paths take, operands full of ties, signed zeros,
 * infinities and NaNs (also as init). Bit for bit against the reference
 * interpreter (NaNs equal, as for every compute op; float sums within the
 * data-dependent bound) at every ISA level the CPU has, on 1 and 2
 * threads (rt_test.h). The channel counts give the aligned row kernels a
 * head block, whole blocks and a masked tail. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/window.h"
#include "rt_test.h"

typedef struct pool_geom {
    uint32_t rank;
    int64_t in[4], out[4], w[4], s[4], wd[4], b[4], lo[4], hi[4];
} pool_geom;

static int64_t pick(const int64_t *v, size_t n) { return v[rt_rand() % n]; }

/* The result extent of one dimension (docs/spec/window.md): the base
 * dilated and padded operand, windows of extent (w - 1) * wd + 1 every s. */
static int64_t pool_out(int64_t in, int64_t w, int64_t s, int64_t wd, int64_t b, int64_t lo, int64_t hi)
{
    int64_t padded = (in - 1) * b + 1 + lo + hi, ext = (w - 1) * wd + 1;
    return padded < ext ? 0 : (padded - ext) / s + 1;
}

/* A random geometry with at least one window per dimension; channels_last:
 * the innermost dimension has window 1, stride 1, no padding or dilation
 * (the NHWC pooling case), else it is windowed like the others. tile: the
 * windows cover the operand exactly once (window = stride, no padding or
 * dilation; the select_and_scatter tile rows). sas: no base dilation
 * (select_and_scatter has none). */
static void pool_geom_rand(pool_geom *g, bool channels_last, bool tile, bool sas)
{
    static const int64_t chans[] = {1, 5, 16, 21, 37, 70};
    g->rank = 2 + (uint32_t)(rt_rand() % 3);
    for (uint32_t d = 0; d < g->rank; d++) {
        bool inner = d + 1 == g->rank;
        for (;;) {
            if (inner && channels_last) {
                g->in[d] = pick(chans, 6);
                g->w[d] = g->s[d] = g->wd[d] = g->b[d] = 1;
                g->lo[d] = g->hi[d] = 0;
            } else if (tile) {
                g->w[d] = g->s[d] = 1 + (int64_t)(rt_rand() % 3);
                g->in[d] = g->w[d] * (1 + (int64_t)(rt_rand() % 4));
                g->wd[d] = g->b[d] = 1;
                g->lo[d] = g->hi[d] = 0;
            } else {
                g->in[d] = 1 + (int64_t)(rt_rand() % 9);
                g->w[d] = 1 + (int64_t)(rt_rand() % 3);
                g->s[d] = 1 + (int64_t)(rt_rand() % 3);
                g->wd[d] = !sas && rt_rand() % 4 == 0 ? 2 : 1;
                g->b[d] = !sas && rt_rand() % 5 == 0 ? 2 : 1;
                g->lo[d] = (int64_t)(rt_rand() % 3);
                g->hi[d] = (int64_t)(rt_rand() % 3);
            }
            g->out[d] = pool_out(g->in[d], g->w[d], g->s[d], g->wd[d], g->b[d], g->lo[d], g->hi[d]);
            if (g->out[d] > 0)
                break;
        }
    }
}

static void arr(char *buf, size_t n, const int64_t *v, uint32_t rank)
{
    size_t k = (size_t)snprintf(buf, n, "array<i64: ");
    for (uint32_t d = 0; d < rank; d++)
        k += (size_t)snprintf(buf + k, n - k, "%lld%s", (long long)v[d], d + 1 < rank ? ", " : ">");
}

static void attrs(char *buf, size_t n, const pool_geom *g, bool sas)
{
    char w[96], s[96], wd[96], b[96], pad[160];
    arr(w, sizeof w, g->w, g->rank);
    arr(s, sizeof s, g->s, g->rank);
    arr(wd, sizeof wd, g->wd, g->rank);
    arr(b, sizeof b, g->b, g->rank);
    size_t k = (size_t)snprintf(pad, sizeof pad, "dense<[");
    for (uint32_t d = 0; d < g->rank; d++)
        k += (size_t)snprintf(pad + k, sizeof pad - k, "[%lld, %lld]%s", (long long)g->lo[d], (long long)g->hi[d],
                              d + 1 < g->rank ? ", " : "");
    snprintf(pad + k, sizeof pad - k, "]> : tensor<%ux2xi64>", g->rank);
    if (sas)
        snprintf(buf, n, "padding = %s, window_dimensions = %s, window_strides = %s", pad, w, s);
    else
        snprintf(buf, n, "base_dilations = %s, padding = %s, window_dilations = %s, window_dimensions = %s, "
                         "window_strides = %s", b, pad, wd, w, s);
}

/* The bits of the double v (exact in t, or a NaN) in float type t. */
static uint64_t fbits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    case PLUMB_F16: return plumb_f64_to_f16(v);
    default: return plumb_f64_to_bf16(v);
    }
}

/* The bits of a small value v (ties in most windows) in type t. */
static uint64_t small_bits(plumb_dtype t, int64_t v)
{
    return plumb_dtype_is_float(t) ? fbits(t, (double)v) : (uint64_t)v;
}

/* Overwrites some elements of x: ties (small values), signed zeros,
 * infinities and, with nans, a few NaNs. */
static void salt(plumb_tensor *x, bool nans)
{
    plumb_dtype t = x->dtype;
    bool f = plumb_dtype_is_float(t);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand() % 64;
        if (r < 16)
            plumb_store_bits(t, x->data, i, small_bits(t, (int64_t)(r % 4) - 1));
        else if (f && r < 24)
            plumb_store_bits(t, x->data, i, fbits(t, r < 20 ? -0.0 : 0.0));
        else if (f && r < 26)
            plumb_store_bits(t, x->data, i, fbits(t, r == 24 ? INFINITY : -INFINITY));
        else if (f && nans && r == 26)
            plumb_store_bits(t, x->data, i, fbits(t, NAN));
    }
}

static void dims_text(char *buf, size_t n, const int64_t *d, uint32_t rank, plumb_dtype t)
{
    rt_ty(buf, n, t, rank, d);
}

static const plumb_dtype rw_types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I8,
                                       PLUMB_UI8, PLUMB_I16, PLUMB_UI32, PLUMB_I64, PLUMB_UI64};

/* One reduce_window case on geometry g: type t, body max/min/add/and/or;
 * init: the body's identity (add), or (init_salt) a random element, NaN
 * at times (a NaN init propagates through every max/min window). */
static void rw_case_nan(const pool_geom *gp, plumb_dtype t, const char *body, bool init_salt, bool nans);

static void rw_case_on(const pool_geom *gp, plumb_dtype t, const char *body, bool init_salt)
{
    rw_case_nan(gp, t, body, init_salt, strcmp(body, "add") != 0);
}

/* rw_case_on with NaNs in the operand (nans) or not: a NaN anywhere in a
 * separable line's columns sends it to the per-result rows, so lines
 * without one are the only ones that take the separable passes. */
static void rw_case_nan(const pool_geom *gp, plumb_dtype t, const char *body, bool init_salt, bool nans)
{
    pool_geom g = *gp;
    char a[1024], it[128], ot[128], src[4096];
    attrs(a, sizeof a, &g, false);
    dims_text(it, sizeof it, g.in, g.rank, t);
    dims_text(ot, sizeof ot, g.out, g.rank, t);
    const char *e = plumb_dtype_name(t);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%c: tensor<%s>) -> %s {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "    %%m = stablehlo.%s %%a, %%b : tensor<%s>\n"
             "    stablehlo.return %%m : tensor<%s>\n"
             "  }) : (%s, tensor<%s>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, e, ot, a, e, e, body, e, e, it, e, ot, ot);
    plumb_tensor *in[2] = {rt_rand_tensor(t, g.rank, g.in, true), rt_rand_tensor(t, 0, NULL, true)};
    bool add = strcmp(body, "add") == 0, fl = plumb_dtype_is_float(t);
    salt(in[0], nans);
    if (init_salt && !add)
        salt(in[1], nans);
    else if (add && fl)
        plumb_store_bits(t, in[1]->data, 0, 0);   /* integer sums: any init (wrapping, bitwise) */
    uint64_t wcount = 1;
    for (uint32_t d = 0; d < g.rank; d++)
        wcount *= (uint64_t)g.w[d];
    if (add && fl)
        rt_check_bound(src, in, 2, wcount + 1, true);
    else
        rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* One random reduce_window case of the layout (rw_case_on). */
static void rw_case(plumb_dtype t, const char *body, bool channels_last, bool init_salt)
{
    pool_geom g;
    pool_geom_rand(&g, channels_last, false, false);
    rw_case_on(&g, t, body, init_salt);
}

/* Sets dimension d of g and its result extent (pool_out). */
static void geom_dim(pool_geom *g, uint32_t d, int64_t in, int64_t w, int64_t s, int64_t wd, int64_t b, int64_t lo,
                     int64_t hi)
{
    g->in[d] = in;
    g->w[d] = w;
    g->s[d] = s;
    g->wd[d] = wd;
    g->b[d] = b;
    g->lo[d] = lo;
    g->hi[d] = hi;
    g->out[d] = pool_out(in, w, s, wd, b, lo, hi);
}

/* A channels-first pool (NCHW): ranks 2 to 4, the leading dimensions not
 * windowed, the last two windowed with stride 2 (the stride-2 row kernel
 * along the innermost one: rows long enough for whole blocks, a masked
 * tail, the last result at the row's last element or one short of it),
 * padding 0 or 1 and window dilation 1 or 2 on both. */
static void nchw_geom(pool_geom *g)
{
    static const int64_t widths[] = {7, 31, 32, 33, 64, 69, 112};
    g->rank = 2 + (uint32_t)(rt_rand() % 3);
    for (uint32_t d = 0; d + 2 < g->rank; d++)
        geom_dim(g, d, 1 + (int64_t)(rt_rand() % 3), 1, 1, 1, 1, 0, 0);
    for (uint32_t d = g->rank - 2; d < g->rank; d++) {
        bool inner = d + 1 == g->rank;
        do
            geom_dim(g, d, inner ? pick(widths, 7) : 3 + (int64_t)(rt_rand() % 6), 2 + (int64_t)(rt_rand() % 2), 2,
                     rt_rand() % 3 == 0 ? 2 : 1, 1, (int64_t)(rt_rand() % 2), (int64_t)(rt_rand() % 2));
        while (g->out[d] <= 0);
    }
}

/* Channels-first max/min pools with stride 2 along the innermost
 * dimension (the stride-2 f32 row kernel at AVX-512; every other type and
 * level on the general rows): every type, NaNs in the operand and init,
 * bitwise. */
static void test_pool_nchw_stride2(void **state)
{
    (void)state;
    for (int rep = 0; rep < 2; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++) {
            pool_geom g;
            nchw_geom(&g);
            rw_case_on(&g, rw_types[ti], "maximum", rep == 1);
            nchw_geom(&g);
            rw_case_on(&g, rw_types[ti], "minimum", rep == 0);
        }
    /* f32 at the pooling shape itself, many rows */
    pool_geom g = {.rank = 4};
    geom_dim(&g, 0, 2, 1, 1, 1, 1, 0, 0);
    geom_dim(&g, 1, 3, 1, 1, 1, 1, 0, 0);
    geom_dim(&g, 2, 16, 3, 2, 1, 1, 1, 1);
    geom_dim(&g, 3, 112, 3, 2, 1, 1, 1, 1);
    rw_case_on(&g, PLUMB_F32, "maximum", false);
    rw_case_on(&g, PLUMB_F32, "minimum", true);
}

/* A channels-last pool whose outer windows run onto padding or base
 * dilation holes (the border rows the row kernels take for max, min, and,
 * or on the positions inside the operand): ranks 2 to 4, windows 1 to 3,
 * strides 1 to 3, padding 0 to 2, dilations 1 or 2. */
static void border_geom(pool_geom *g)
{
    static const int64_t chans[] = {1, 5, 16, 21, 37, 70};
    g->rank = 2 + (uint32_t)(rt_rand() % 3);
    for (uint32_t d = 0; d + 1 < g->rank; d++)
        do
            geom_dim(g, d, 1 + (int64_t)(rt_rand() % 6), 1 + (int64_t)(rt_rand() % 3), 1 + (int64_t)(rt_rand() % 3),
                     rt_rand() % 3 == 0 ? 2 : 1, rt_rand() % 3 == 0 ? 2 : 1, (int64_t)(rt_rand() % 3),
                     (int64_t)(rt_rand() % 3));
        while (g->out[d] <= 0);
    geom_dim(g, g->rank - 1, pick(chans, 6), 1, 1, 1, 1, 0, 0);
}

/* Channels-last border rows of the idempotent folds: max and min on every
 * type, and and or on the integers, random (NaN at times) init, bitwise;
 * integer add on the same geometries keeps folding init once per padded
 * position (the general rows). */
static void test_pool_border_rows(void **state)
{
    (void)state;
    static const char *const ibodies[] = {"and", "or", "add"};
    for (int rep = 0; rep < 2; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++) {
            plumb_dtype t = rw_types[ti];
            pool_geom g;
            border_geom(&g);
            rw_case_on(&g, t, rep ? "minimum" : "maximum", true);
            if (!plumb_dtype_is_float(t)) {
                border_geom(&g);
                rw_case_on(&g, t, ibodies[(rep + ti) % 3], true);
            }
        }
}

/* reduce_window max and min on every type, both layouts, random
 * geometries with padding and both dilations: bitwise. */
static void test_pool_maxmin_random(void **state)
{
    (void)state;
    for (int rep = 0; rep < 3; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++)
            for (int layout = 0; layout < 2; layout++) {
                rw_case(rw_types[ti], "maximum", layout == 0, rep == 2);
                rw_case(rw_types[ti], "minimum", layout == 0, rep == 1);
            }
}

/* reduce_window add: integers bitwise (wrapping sums), floats within the
 * data-dependent bound, both layouts. */
static void test_pool_add_random(void **state)
{
    (void)state;
    for (int rep = 0; rep < 2; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++)
            for (int layout = 0; layout < 2; layout++)
                rw_case(rw_types[ti], "add", layout == 0, false);
}

/* Channels-last f32 max/min with a NaN in only one lane of one block, and
 * a NaN init: the VRANGEPS fold drops NaNs, so such blocks must be
 * refolded; every other block keeps the fast fold. */
static void test_pool_nan_blocks(void **state)
{
    (void)state;
    int64_t d[4] = {2, 6, 6, 70}, o[4] = {2, 3, 3, 70};
    static const char *const bodies[] = {"maximum", "minimum"};
    for (int b = 0; b < 2; b++)
        for (int where = 0; where < 4; where++) {
            plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 4, d, true), rt_scalar_bits(PLUMB_F32, b ? 0x7F800000u : 0xFF800000u)};
            uint64_t n = plumb_tensor_numel(in[0]);
            if (where < 3)   /* first lane of the first block, a mid lane, the tail's last lane */
                plumb_store_bits(PLUMB_F32, in[0]->data, where == 0 ? 0 : where == 1 ? n / 2 + 7 : n - 1, 0x7FC00000u);
            else
                plumb_store_bits(PLUMB_F32, in[1]->data, 0, 0xFFC00001u);
            char src[2000];
            snprintf(src, sizeof src,
                     "func.func @main(%%x: tensor<2x6x6x70xf32>, %%c: tensor<f32>) -> tensor<2x3x3x70xf32> {\n"
                     "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{window_dimensions = array<i64: 1, 2, 2, 1>, "
                     "window_strides = array<i64: 1, 2, 2, 1>}> ({\n"
                     "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
                     "    %%m = stablehlo.%s %%a, %%b : tensor<f32>\n"
                     "    stablehlo.return %%m : tensor<f32>\n"
                     "  }) : (tensor<2x6x6x70xf32>, tensor<f32>) -> tensor<2x3x3x70xf32>\n"
                     "  return %%r : tensor<2x3x3x70xf32>\n}\n",
                     bodies[b]);
            (void)o;
            rt_check_exact_nan(src, in, 2);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
}

static const char *const idem_bodies[] = {"maximum", "minimum", "and", "or", "add"};

/* A body the separable lines take for type t: max or min on floats, any
 * of the four idempotent ones or (wrapping, exact in any order) add on
 * integers. */
static const char *idem_body(plumb_dtype t, unsigned pick_)
{
    return idem_bodies[plumb_dtype_is_float(t) ? pick_ % 2 : pick_ % 5];
}

/* A channels-last pool with overlapping windows along dimension last - 1
 * (the separable lines: column pass, then the result pass; k_window.c
 * rw_sep_line): ranks 2 to 4, windows 2 to 4 with strides 1 to 3 below
 * the extent, window dilation 1 or 2, padding 0 to 2 there; the outer
 * dimensions windowed 1 to 3 with padding, strides and base dilation (the
 * border lines' positions). */
static void sep_cl_geom(pool_geom *g)
{
    static const int64_t chans[] = {1, 5, 16, 21, 37, 70};
    g->rank = 2 + (uint32_t)(rt_rand() % 3);
    for (uint32_t d = 0; d + 2 < g->rank; d++)
        do
            geom_dim(g, d, 1 + (int64_t)(rt_rand() % 6), 1 + (int64_t)(rt_rand() % 3), 1 + (int64_t)(rt_rand() % 3),
                     rt_rand() % 3 == 0 ? 2 : 1, rt_rand() % 4 == 0 ? 2 : 1, (int64_t)(rt_rand() % 3),
                     (int64_t)(rt_rand() % 3));
        while (g->out[d] <= 0);
    uint32_t p = g->rank - 2;
    do {
        int64_t w = 2 + (int64_t)(rt_rand() % 3), wd = rt_rand() % 3 == 0 ? 2 : 1;
        int64_t s = 1 + (int64_t)(rt_rand() % ((w - 1) * wd < 3 ? (w - 1) * wd : 3));
        geom_dim(g, p, 2 + (int64_t)(rt_rand() % 14), w, s, wd, 1, (int64_t)(rt_rand() % 3), (int64_t)(rt_rand() % 3));
    } while (g->out[p] <= 0);
    geom_dim(g, g->rank - 1, pick(chans, 6), 1, 1, 1, 1, 0, 0);
}

/* Channels-last separable lines: every type, max/min (and/or on the
 * integers), operands with ties and signed zeros and without NaNs (the
 * separable passes), then with NaNs (lines sent back to the per-result
 * rows), random init (NaN at times): bitwise, every ISA, 1 and 2 threads
 * (two threads split some lines between ranges: those take the rows). */
static void test_sep_channels_last(void **state)
{
    (void)state;
    for (int rep = 0; rep < 4; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++) {
            pool_geom g;
            sep_cl_geom(&g);
            rw_case_nan(&g, rw_types[ti], idem_body(rw_types[ti], (unsigned)(rep + ti)), rep == 1, rep == 3);
        }
    /* the 3x3 stride 2 padding 1 pool, 64 channels */
    pool_geom g = {.rank = 4};
    geom_dim(&g, 0, 2, 1, 1, 1, 1, 0, 0);
    geom_dim(&g, 1, 9, 3, 2, 1, 1, 1, 1);
    geom_dim(&g, 2, 14, 3, 2, 1, 1, 1, 1);
    geom_dim(&g, 3, 64, 1, 1, 1, 1, 0, 0);
    for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++)
        rw_case_nan(&g, rw_types[ti], ti % 2 ? "minimum" : "maximum", false, false);
}

/* A channels-first pool (the innermost dimension windowed: the separable
 * lines along it, colbuf deinterleaved by stride): ranks 2 to 4, the
 * leading dimensions windowed 1 to 3 (padding, strides, base dilation),
 * the innermost window 1 to 4, stride 1 to 4, dilation 1 or 2, padding 0
 * to 2, widths around the 16- and 32-lane blocks. */
static void sep_cf_geom(pool_geom *g)
{
    static const int64_t widths[] = {1, 3, 7, 16, 31, 32, 33, 63, 64, 65, 112};
    g->rank = 2 + (uint32_t)(rt_rand() % 3);
    for (uint32_t d = 0; d + 1 < g->rank; d++)
        do
            geom_dim(g, d, 1 + (int64_t)(rt_rand() % 6), 1 + (int64_t)(rt_rand() % 3), 1 + (int64_t)(rt_rand() % 3),
                     rt_rand() % 3 == 0 ? 2 : 1, rt_rand() % 4 == 0 ? 2 : 1, (int64_t)(rt_rand() % 3),
                     (int64_t)(rt_rand() % 3));
        while (g->out[d] <= 0);
    uint32_t l = g->rank - 1;
    do
        geom_dim(g, l, pick(widths, 11), 1 + (int64_t)(rt_rand() % 4), 1 + (int64_t)(rt_rand() % 4),
                 rt_rand() % 3 == 0 ? 2 : 1, 1, (int64_t)(rt_rand() % 3), (int64_t)(rt_rand() % 3));
    while (g->out[l] <= 0);
}

/* Channels-first separable lines: every type, the idempotent bodies,
 * without NaNs (the separable passes, strides 1 to 4 deinterleaved) and
 * with them (the rows), random init: bitwise, every ISA, 1 and 2 threads;
 * then the NCHW 3x3 stride 2 padding 1 pool on every type. */
static void test_sep_channels_first(void **state)
{
    (void)state;
    for (int rep = 0; rep < 4; rep++)
        for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++) {
            pool_geom g;
            sep_cf_geom(&g);
            rw_case_nan(&g, rw_types[ti], idem_body(rw_types[ti], (unsigned)(rep + 3 * ti)), rep == 2, rep == 3);
        }
    pool_geom g = {.rank = 4};
    geom_dim(&g, 0, 2, 1, 1, 1, 1, 0, 0);
    geom_dim(&g, 1, 3, 1, 1, 1, 1, 0, 0);
    geom_dim(&g, 2, 11, 3, 2, 1, 1, 1, 1);
    geom_dim(&g, 3, 112, 3, 2, 1, 1, 1, 1);
    for (size_t ti = 0; ti < sizeof rw_types / sizeof rw_types[0]; ti++)
        rw_case_nan(&g, rw_types[ti], ti % 2 ? "maximum" : "minimum", ti % 3 == 0, false);
    /* one NaN in one line of an otherwise NaN-free f32 operand: that line
     * alone goes to the rows, the others stay separable */
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, g.rank, g.in, true), rt_scalar_bits(PLUMB_F32, 0xFF800000u)};
    plumb_store_bits(PLUMB_F32, in[0]->data, 3 * 112 + 57, 0x7FC00123u);
    char src[2000];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<2x3x11x112xf32>, %%c: tensor<f32>) -> tensor<2x3x6x56xf32> {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : "
             "tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 3, 3>, "
             "window_strides = array<i64: 1, 1, 2, 2>}> ({\n"
             "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "    %%m = stablehlo.maximum %%a, %%b : tensor<f32>\n"
             "    stablehlo.return %%m : tensor<f32>\n"
             "  }) : (tensor<2x3x11x112xf32>, tensor<f32>) -> tensor<2x3x6x56xf32>\n"
             "  return %%r : tensor<2x3x6x56xf32>\n}\n");
    rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* NaN payloads: two NaNs in one window, the one first in the window's
 * row-major order (position (0, 1)) is not the one the separable passes
 * meet first (column 0 folds row 1's NaN): the result carries the first
 * one's payload, bitwise, as the reference does, so a line with a NaN
 * must leave the separable passes (f32 and f64; channels-last along
 * dimension last - 1 and channels-first along the last, 2x2 windows of
 * stride 1). */
static void test_sep_nan_payload(void **state)
{
    (void)state;
    static const plumb_dtype ts[] = {PLUMB_F32, PLUMB_F64};
    for (int cf = 0; cf < 2; cf++)
        for (size_t ti = 0; ti < 2; ti++) {
            plumb_dtype t = ts[ti];
            const char *e = plumb_dtype_name(t);
            int64_t dims[3] = {3, 4, 5}, outd[3] = {2, 3, 5};
            if (cf) outd[2] = 4;
            plumb_tensor *in[2] = {rt_rand_tensor(t, cf ? 2 : 3, cf ? (int64_t[]){3, 5} : dims, true),
                                   rt_scalar_bits(t, t == PLUMB_F32 ? 0xFF800000u : 0xFFF0000000000000ull)};
            /* row 0 column 1 holds payload A, row 1 column 0 payload B */
            uint64_t qa = t == PLUMB_F32 ? 0x7FC00A0Au : 0x7FF80000000A0A0Aull;
            uint64_t qb = t == PLUMB_F32 ? 0x7FC00B0Bu : 0x7FF80000000B0B0Bull;
            int64_t rs = cf ? 5 : 4 * 5, cs = cf ? 1 : 5;
            plumb_store_bits(t, in[0]->data, (uint64_t)(0 * rs + 1 * cs + (cf ? 0 : 2)), qa);
            plumb_store_bits(t, in[0]->data, (uint64_t)(1 * rs + 0 * cs + (cf ? 0 : 2)), qb);
            char it[64], ot[64], src[2000];
            if (cf) {
                rt_ty(it, sizeof it, t, 2, (int64_t[]){3, 5});
                rt_ty(ot, sizeof ot, t, 2, (int64_t[]){2, 4});
            } else {
                rt_ty(it, sizeof it, t, 3, dims);
                rt_ty(ot, sizeof ot, t, 3, outd);
            }
            snprintf(src, sizeof src,
                     "func.func @main(%%x: %s, %%c: tensor<%s>) -> %s {\n"
                     "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{window_dimensions = array<i64: %s>}> ({\n"
                     "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                     "    %%m = stablehlo.maximum %%a, %%b : tensor<%s>\n"
                     "    stablehlo.return %%m : tensor<%s>\n"
                     "  }) : (%s, tensor<%s>) -> %s\n"
                     "  return %%r : %s\n}\n",
                     it, e, ot, cf ? "2, 2" : "2, 2, 1", e, e, e, e, it, e, ot, ot);
            rt_check_exact(src, in, 2);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
}

static const plumb_dtype sas_types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I32, PLUMB_UI8, PLUMB_I64};

/* One random pooling gradient: select GE or GT, scatter add, a random
 * init (zero at times); tile: windows covering the operand exactly once
 * (the rows that write each element once), else random padding and
 * overlapping windows. */
static void sas_case_on(const pool_geom *gp, plumb_dtype t, const char *cmp, bool zero_init)
{
    pool_geom g = *gp;
    char a[1024], it[128], st[128], src[4096];
    attrs(a, sizeof a, &g, true);
    dims_text(it, sizeof it, g.in, g.rank, t);
    dims_text(st, sizeof st, g.out, g.rank, t);
    const char *e = plumb_dtype_name(t);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%s: %s, %%c: tensor<%s>) -> %s {\n"
             "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "    %%p = stablehlo.compare %s, %%a, %%b : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
             "    stablehlo.return %%p : tensor<i1>\n"
             "  }, {\n"
             "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "    %%m = stablehlo.add %%a, %%b : tensor<%s>\n"
             "    stablehlo.return %%m : tensor<%s>\n"
             "  }) : (%s, %s, tensor<%s>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, st, e, it, a, e, e, cmp, e, e, e, e, e, e, it, st, e, it, it);
    plumb_tensor *in[3] = {rt_rand_tensor(t, g.rank, g.in, true), rt_rand_tensor(t, g.rank, g.out, true),
                           rt_rand_tensor(t, 0, NULL, true)};
    salt(in[0], true);
    salt(in[1], true);
    if (zero_init)
        plumb_store_bits(t, in[2]->data, 0, 0);
    rt_check_exact_nan(src, in, 3);
    for (int k = 0; k < 3; k++)
        plumb_tensor_free(in[k]);
}

/* One random pooling gradient of the layout (sas_case_on). */
static void sas_case(plumb_dtype t, const char *cmp, bool channels_last, bool tile, bool zero_init)
{
    pool_geom g;
    pool_geom_rand(&g, channels_last, tile, true);
    sas_case_on(&g, t, cmp, zero_init);
}

/* The pooling gradient on windows that tile the operand (each element
 * written once: init, or init + source where selected), both layouts,
 * GE and GT, zero and random init: bitwise. */
static void test_sas_tile_random(void **state)
{
    (void)state;
    for (int rep = 0; rep < 2; rep++)
        for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++)
            for (int layout = 0; layout < 2; layout++) {
                sas_case(sas_types[ti], "GE", layout == 0, true, rep == 0);
                sas_case(sas_types[ti], "GT", layout == 0, true, rep == 1);
            }
}

/* The pooling gradient on random windows with padding and overlaps (the
 * fill-then-add rows): bitwise. */
static void test_sas_overlap_random(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++)
        for (int layout = 0; layout < 2; layout++) {
            sas_case(sas_types[ti], "GE", layout == 0, false, true);
            sas_case(sas_types[ti], "GT", layout == 0, false, false);
        }
}

/* The pooling gradient over a batch dimension with overlapping windows on
 * the others (each slab along dimension 1 filled with init just before
 * the first window that reaches it, k_window.c sas_lazy): ranks 3 and 4,
 * batch 1 to 3, windows 1 to 3 with strides 1 to 3 and padding 0 to 2 on
 * the middle dimensions, channels-last or windowed innermost, every type,
 * GE and GT, zero and random init: bitwise. */
static void test_sas_lazy_fill(void **state)
{
    (void)state;
    static const int64_t chans[] = {1, 5, 16, 21, 37};
    for (int rep = 0; rep < 2; rep++)
        for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++)
            for (int layout = 0; layout < 2; layout++) {
                pool_geom g = {.rank = 3 + (uint32_t)(rt_rand() % 2)};
                geom_dim(&g, 0, 1 + (int64_t)(rt_rand() % 3), 1, 1, 1, 1, 0, 0);
                for (uint32_t d = 1; d < g.rank; d++)
                    if (layout == 0 && d + 1 == g.rank)
                        geom_dim(&g, d, pick(chans, 5), 1, 1, 1, 1, 0, 0);
                    else
                        do
                            geom_dim(&g, d, 1 + (int64_t)(rt_rand() % 8), 1 + (int64_t)(rt_rand() % 3),
                                     1 + (int64_t)(rt_rand() % 3), 1, 1, (int64_t)(rt_rand() % 3),
                                     (int64_t)(rt_rand() % 3));
                        while (g.out[d] <= 0);
                sas_case_on(&g, sas_types[ti], rep ? "GT" : "GE", rep == layout);
            }
}

/* The pooling gradient with overlapping windows along dimension 0 itself
 * (no batch dimension: each slab along dimension 0 filled with init just
 * before the first window reaching it, k_window.c sas_lazy0): ranks 1 to
 * 4, dimension 0 windows 2 to 4 with strides below the extent (and gaps
 * between windows' reach elsewhere: strides above the window on the other
 * dimensions, padding 0 to 2, so some slabs are reached by no window and
 * filled at the end), every type, GE and GT, zero and random init:
 * bitwise. */
static void test_sas_lazy_dim0(void **state)
{
    (void)state;
    for (int rep = 0; rep < 3; rep++)
        for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++) {
            pool_geom g = {.rank = 1 + (uint32_t)(rt_rand() % 4)};
            do {
                int64_t w = 2 + (int64_t)(rt_rand() % 3);
                geom_dim(&g, 0, 1 + (int64_t)(rt_rand() % 9), w, 1 + (int64_t)(rt_rand() % (uint64_t)(w - 1)), 1, 1,
                         (int64_t)(rt_rand() % 3), (int64_t)(rt_rand() % 3));
            } while (g.out[0] <= 0);
            for (uint32_t d = 1; d < g.rank; d++)
                do
                    geom_dim(&g, d, 1 + (int64_t)(rt_rand() % 7), 1 + (int64_t)(rt_rand() % 3),
                             1 + (int64_t)(rt_rand() % 4), 1, 1, (int64_t)(rt_rand() % 3), (int64_t)(rt_rand() % 3));
                while (g.out[d] <= 0);
            sas_case_on(&g, sas_types[ti], rep == 1 ? "GT" : "GE", rep != 2);
        }
    /* windows of 3 every 2 over 8 rows: row 7 is in no window (filled at
     * the end), random init */
    pool_geom g = {.rank = 2};
    geom_dim(&g, 0, 8, 3, 2, 1, 1, 0, 0);
    geom_dim(&g, 1, 21, 1, 1, 1, 1, 0, 0);
    for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++)
        sas_case_on(&g, sas_types[ti], "GE", false);
}

/* Rank-1 operands: the geometry's dimensions past the rank hold a size-1
 * window of stride 1 (kernels that look at dimension 1 read defined
 * values; a rank-1 gradient read garbage there and overflowed under
 * UBSan), and rank-1 pools and pooling gradients with overlapping,
 * padded windows agree with the reference bit for bit on every type. */
static void test_rank1(void **state)
{
    (void)state;
    ir_window g;
    memset(&g, 0x5a, sizeof g);
    int64_t w[1] = {3}, st[1] = {2}, pad[2] = {1, 1}, dims[1] = {9};
    ir_attrs a;
    memset(&a, 0, sizeof a);
    a.window_dims = (ir_ints){w, 1};
    a.window_strides = (ir_ints){st, 1};
    a.padding = (ir_ints){pad, 2};
    char why[128];
    assert_true(ir_window_init(&g, &a, 1, dims, true, why, sizeof why));
    assert_int_equal(g.out[0], 5);   /* (1 + 9 + 1 - 3) / 2 + 1 */
    for (uint32_t d = 1; d < PLUMB_MAX_RANK; d++) {
        assert_int_equal(g.w[d], 1);
        assert_int_equal(g.s[d], 1);
        assert_int_equal(g.wd[d], 1);
        assert_int_equal(g.lo[d], 0);
    }
    for (int rep = 0; rep < 3; rep++)
        for (size_t ti = 0; ti < sizeof sas_types / sizeof sas_types[0]; ti++) {
            pool_geom pg = {.rank = 1};
            do
                geom_dim(&pg, 0, 1 + (int64_t)(rt_rand() % 40), 1 + (int64_t)(rt_rand() % 4),
                         1 + (int64_t)(rt_rand() % 3), 1, 1, (int64_t)(rt_rand() % 3), (int64_t)(rt_rand() % 3));
            while (pg.out[0] <= 0);
            sas_case_on(&pg, sas_types[ti], rep == 1 ? "GT" : "GE", rep == 2);
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_maxmin_random),
        cmocka_unit_test(test_pool_add_random),
        cmocka_unit_test(test_pool_nan_blocks),
        cmocka_unit_test(test_pool_nchw_stride2),
        cmocka_unit_test(test_pool_border_rows),
        cmocka_unit_test(test_sep_channels_last),
        cmocka_unit_test(test_sep_channels_first),
        cmocka_unit_test(test_sep_nan_payload),
        cmocka_unit_test(test_sas_tile_random),
        cmocka_unit_test(test_sas_overlap_random),
        cmocka_unit_test(test_sas_lazy_fill),
        cmocka_unit_test(test_sas_lazy_dim0),
        cmocka_unit_test(test_rank1),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
