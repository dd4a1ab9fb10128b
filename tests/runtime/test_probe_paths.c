/* The general mechanisms the probe of unseen workloads added (issue 17,
 * docs/bench.md "Probe"), each against the reference interpreter bit for
 * bit at every ISA level the CPU has (rt_test.h forces portable, AVX2 and
 * AVX-512 in turn), on 1 and 2 threads, at opt levels 0 and 2:
 *   - reduce with a body the fast paths do not recognise, evaluated for
 *     many results at once (runtime/k_reduce.c, reduce_lanes): argmax and
 *     argmin pairs with ties and NaNs, a three-input fold, a body that
 *     returns its arguments swapped, i1 and f16 bodies, constants inside
 *     the body; rows, columns, middle and several reduced dims, more
 *     results than one block of lanes, empty reduced and kept dims;
 *   - iota written run by run and period by period (runtime/k_movement.c):
 *     every whole-byte type and the packed ones, each dim of ranks 1-3,
 *     sizes that split into several thread chunks mid-period;
 *   - strided rows copied with typed loops, and reversed rows no longer
 *     tiled (reverse, interior pad): element sizes 1, 2, 4, 8 and 16;
 *   - reduce_window prefix windows (cumulative folds) run as one running
 *     fold per line (runtime/k_window.c, rw_scan). */
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

typedef struct rshape {
    uint32_t rank;
    int64_t dims[3];
    uint32_t nrd;
    int64_t rd[3];
} rshape;

/* rows, columns, a middle dim, two dims, everything; > 512 results (more
 * than one block of lanes, and a partial last block); empty dims */
static const rshape rshapes[] = {
    {2, {37, 29}, 1, {1}},   {2, {1100, 7}, 1, {1}},  {2, {9, 1300}, 1, {0}},  {3, {5, 6, 130}, 1, {1}},
    {3, {4, 3, 5}, 2, {0, 2}}, {1, {1000}, 1, {0}},   {2, {0, 5}, 1, {1}},     {2, {6, 0}, 1, {1}},
    {3, {3, 4, 5}, 3, {0, 1, 2}},
};
enum { NRSHAPES = sizeof rshapes / sizeof rshapes[0] };

static void out_dims(const rshape *s, int64_t *od, uint32_t *orank, char *dl, size_t cap)
{
    *orank = 0;
    size_t o = 0;
    dl[0] = 0;
    for (uint32_t d = 0; d < s->rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < s->nrd; i++) r |= s->rd[i] == (int64_t)d;
        if (!r) od[(*orank)++] = s->dims[d];
    }
    for (uint32_t i = 0; i < s->nrd; i++)
        o += (size_t)snprintf(dl + o, cap - o, "%s%lld", i ? ", " : "", (long long)s->rd[i]);
}

/* argmax (GT) or argmin (LT) of x with the index from iota along the
 * first reduced dim, ties to the lower index; NaN compares false, so a
 * NaN is never taken and an init of NaN is kept. */
static void argext_src(char *src, size_t cap, plumb_dtype t, const rshape *s, const char *dir)
{
    char tin[128], tix[128], tout[128], tox[128], dl[32];
    int64_t od[3];
    uint32_t orank;
    out_dims(s, od, &orank, dl, sizeof dl);
    const char *tn = plumb_dtype_name(t);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%v0: tensor<%s>, %%i0: tensor<i32>) -> (%s, %s) {\n"
             "  %%i = stablehlo.iota dim = %lld : %s\n"
             "  %%v, %%k = stablehlo.reduce(%%x init: %%v0), (%%i init: %%i0) across dimensions = [%s] :"
             " (%s, %s, tensor<%s>, tensor<i32>) -> (%s, %s)\n"
             "   reducer(%%a: tensor<%s>, %%c: tensor<%s>) (%%b: tensor<i32>, %%d: tensor<i32>) {\n"
             "    %%gt = stablehlo.compare %s, %%a, %%c : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
             "    %%eq = stablehlo.compare EQ, %%a, %%c : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
             "    %%lt = stablehlo.compare LT, %%b, %%d : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
             "    %%tie = stablehlo.and %%eq, %%lt : tensor<i1>\n"
             "    %%take = stablehlo.or %%gt, %%tie : tensor<i1>\n"
             "    %%v2 = stablehlo.select %%take, %%a, %%c : tensor<i1>, tensor<%s>\n"
             "    %%k2 = stablehlo.select %%take, %%b, %%d : tensor<i1>, tensor<i32>\n"
             "    stablehlo.return %%v2, %%k2 : tensor<%s>, tensor<i32>\n"
             "  }\n"
             "  func.return %%v, %%k : %s, %s\n}\n",
             rt_ty(tin, sizeof tin, t, s->rank, s->dims), tn, rt_ty(tout, sizeof tout, t, orank, od),
             rt_ty(tox, sizeof tox, PLUMB_I32, orank, od), (long long)s->rd[0],
             rt_ty(tix, sizeof tix, PLUMB_I32, s->rank, s->dims), dl, tin, tix, tn, tout, tox, tn, tn, dir, tn, tn,
             tn, tn, tn, tn, tout, tox);
}

/* Data with many ties (a few distinct values) and, with nans, NaNs and
 * infinities in about one element of seven. */
static plumb_tensor *tie_data(plumb_dtype t, const rshape *s, bool nans)
{
    plumb_tensor *x = rt_rand_tensor(t, s->rank, s->dims, false);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        double v = (double)(r % 5) - 2.0;
        uint64_t b = t == PLUMB_F32 ? plumb_f32_bits((float)v) : t == PLUMB_F64 ? plumb_f64_bits(v)
                                                                                : plumb_f64_to_f16(v);
        if (nans && (r >> 8) % 7 == 0) {
            const uint64_t nan = t == PLUMB_F32 ? 0x7fc00001u : t == PLUMB_F64 ? 0x7ff8000000000001ull : 0x7e01;
            const uint64_t inf = t == PLUMB_F32 ? 0xff800000u : t == PLUMB_F64 ? 0xfff0000000000000ull : 0xfc00;
            b = (r >> 16) & 1 ? nan : inf;
        }
        plumb_store_bits(t, x->data, i, b);
    }
    return x;
}

/* argmax and argmin over every shape, f32, f64 and f16, with ties, NaNs
 * and -inf, a -inf or NaN init value: the reference's values and indices
 * bit for bit. */
static void test_argext(void **state)
{
    (void)state;
    static const plumb_dtype types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16};
    char src[4096];
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < NRSHAPES; si++)
            for (int nans = 0; nans < 2; nans++)
                for (int dir = 0; dir < 2; dir++) {
                    plumb_dtype t = types[ti];
                    plumb_tensor *x = tie_data(t, &rshapes[si], nans);
                    uint64_t ninit = t == PLUMB_F32 ? 0xff800000u : t == PLUMB_F64 ? 0xfff0000000000000ull : 0xfc00;
                    if (nans && dir) ninit = t == PLUMB_F32 ? 0x7fc00000u : t == PLUMB_F64 ? 0x7ff8000000000000ull
                                                                                          : 0x7e00;
                    plumb_tensor *v0 = rt_scalar_bits(t, ninit), *i0 = rt_scalar_bits(PLUMB_I32, 0x7fffffff);
                    plumb_tensor *in[3] = {x, v0, i0};
                    argext_src(src, sizeof src, t, &rshapes[si], dir ? "LT" : "GT");
                    rt_check_exact(src, in, 3);
                    plumb_tensor_free(v0);
                    plumb_tensor_free(i0);
                    plumb_tensor_free(x);
                }
}

/* Three inputs of three types folded together (a running i64 sum, an
 * i8 xor of a converted value, an f32 max of absolute values with a
 * constant floor inside the body); a body that returns its two
 * accumulators swapped (each result alternates between the two streams,
 * so the order of the fold shows); an i1 body (x and not acc). */
static void test_multi_bodies(void **state)
{
    (void)state;
    char src[4096];
    for (size_t si = 0; si < NRSHAPES; si++) {
        const rshape *s = &rshapes[si];
        char t64[128], t8[128], t32[128], o64[128], o8[128], o32[128], dl[32];
        int64_t od[3];
        uint32_t orank;
        out_dims(s, od, &orank, dl, sizeof dl);
        rt_ty(t64, sizeof t64, PLUMB_I64, s->rank, s->dims);
        rt_ty(t8, sizeof t8, PLUMB_I8, s->rank, s->dims);
        rt_ty(t32, sizeof t32, PLUMB_F32, s->rank, s->dims);
        rt_ty(o64, sizeof o64, PLUMB_I64, orank, od);
        rt_ty(o8, sizeof o8, PLUMB_I8, orank, od);
        rt_ty(o32, sizeof o32, PLUMB_F32, orank, od);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%b: %s, %%c: %s, %%a0: tensor<i64>, %%b0: tensor<i8>, %%c0: tensor<f32>)"
                 " -> (%s, %s, %s) {\n"
                 "  %%r:3 = stablehlo.reduce(%%a init: %%a0), (%%b init: %%b0), (%%c init: %%c0) across dimensions = [%s] :"
                 " (%s, %s, %s, tensor<i64>, tensor<i8>, tensor<f32>) -> (%s, %s, %s)\n"
                 "   reducer(%%p: tensor<i64>, %%q: tensor<i64>) (%%u: tensor<i8>, %%v: tensor<i8>)"
                 " (%%y: tensor<f32>, %%z: tensor<f32>) {\n"
                 "    %%s = stablehlo.add %%p, %%q : tensor<i64>\n"
                 "    %%w = stablehlo.convert %%q : (tensor<i64>) -> tensor<i8>\n"
                 "    %%x1 = stablehlo.xor %%u, %%w : tensor<i8>\n"
                 "    %%x2 = stablehlo.xor %%x1, %%v : tensor<i8>\n"
                 "    %%fl = stablehlo.constant dense<0.5> : tensor<f32>\n"
                 "    %%ab = stablehlo.abs %%z : tensor<f32>\n"
                 "    %%m1 = stablehlo.maximum %%y, %%ab : tensor<f32>\n"
                 "    %%m2 = stablehlo.maximum %%m1, %%fl : tensor<f32>\n"
                 "    stablehlo.return %%s, %%x2, %%m2 : tensor<i64>, tensor<i8>, tensor<f32>\n"
                 "  }\n"
                 "  func.return %%r#0, %%r#1, %%r#2 : %s, %s, %s\n}\n",
                 t64, t8, t32, o64, o8, o32, dl, t64, t8, t32, o64, o8, o32, o64, o8, o32);
        plumb_tensor *a = rt_rand_tensor(PLUMB_I64, s->rank, s->dims, false);
        plumb_tensor *b = rt_rand_tensor(PLUMB_I8, s->rank, s->dims, false);
        plumb_tensor *c = rt_rand_tensor(PLUMB_F32, s->rank, s->dims, true);
        plumb_tensor *a0 = rt_scalar_bits(PLUMB_I64, 7), *b0 = rt_scalar_bits(PLUMB_I8, 0x5a),
                     *c0 = rt_scalar_bits(PLUMB_F32, 0xff800000u);
        plumb_tensor *in[6] = {a, b, c, a0, b0, c0};
        rt_check_exact(src, in, 6);

        /* swapped: acc' = (acc1 - x0, acc0 * 3 + x1) in i32 */
        char i32t[128], i32o[128];
        rt_ty(i32t, sizeof i32t, PLUMB_I32, s->rank, s->dims);
        rt_ty(i32o, sizeof i32o, PLUMB_I32, orank, od);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%b: %s, %%a0: tensor<i32>, %%b0: tensor<i32>) -> (%s, %s) {\n"
                 "  %%r:2 = stablehlo.reduce(%%a init: %%a0), (%%b init: %%b0) across dimensions = [%s] :"
                 " (%s, %s, tensor<i32>, tensor<i32>) -> (%s, %s)\n"
                 "   reducer(%%p: tensor<i32>, %%q: tensor<i32>) (%%u: tensor<i32>, %%v: tensor<i32>) {\n"
                 "    %%k = stablehlo.constant dense<3> : tensor<i32>\n"
                 "    %%d = stablehlo.subtract %%u, %%q : tensor<i32>\n"
                 "    %%m = stablehlo.multiply %%p, %%k : tensor<i32>\n"
                 "    %%e = stablehlo.add %%m, %%v : tensor<i32>\n"
                 "    stablehlo.return %%d, %%e : tensor<i32>, tensor<i32>\n"
                 "  }\n"
                 "  func.return %%r#0, %%r#1 : %s, %s\n}\n",
                 i32t, i32t, i32o, i32o, dl, i32t, i32t, i32o, i32o, i32o, i32o);
        plumb_tensor *p = rt_rand_tensor(PLUMB_I32, s->rank, s->dims, false);
        plumb_tensor *q = rt_rand_tensor(PLUMB_I32, s->rank, s->dims, false);
        plumb_tensor *p0 = rt_scalar_bits(PLUMB_I32, 1), *q0 = rt_scalar_bits(PLUMB_I32, 2);
        plumb_tensor *in2[4] = {p, q, p0, q0};
        rt_check_exact(src, in2, 4);

        /* a one-input i1 body the fast paths do not know: acc' = x and not acc */
        char i1t[128], i1o[128];
        rt_ty(i1t, sizeof i1t, PLUMB_I1, s->rank, s->dims);
        rt_ty(i1o, sizeof i1o, PLUMB_I1, orank, od);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%a0: tensor<i1>) -> %s {\n"
                 "  %%r = stablehlo.reduce(%%a init: %%a0) across dimensions = [%s] : (%s, tensor<i1>) -> %s\n"
                 "   reducer(%%p: tensor<i1>, %%q: tensor<i1>) {\n"
                 "    %%n = stablehlo.not %%p : tensor<i1>\n"
                 "    %%e = stablehlo.and %%q, %%n : tensor<i1>\n"
                 "    stablehlo.return %%e : tensor<i1>\n"
                 "  }\n"
                 "  func.return %%r : %s\n}\n",
                 i1t, i1o, dl, i1t, i1o, i1o);
        plumb_tensor *z = rt_rand_tensor(PLUMB_I1, s->rank, s->dims, false);
        plumb_tensor *z0 = rt_scalar_bits(PLUMB_I1, 1);
        plumb_tensor *in3[2] = {z, z0};
        rt_check_exact(src, in3, 2);

        plumb_tensor *fr[] = {a, b, c, a0, b0, c0, p, q, p0, q0, z, z0};
        for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) plumb_tensor_free(fr[i]);
    }
}

/* iota of every whole-byte type (typed runs, period copies) and of the
 * packed ones (element by element), along each dim of ranks 1 to
 * 3; 70000-element shapes span two thread chunks (65536), the second
 * starting mid-period and mid-run. */
static void test_iota(void **state)
{
    (void)state;
    static const plumb_dtype types[] = {PLUMB_I8,  PLUMB_I16, PLUMB_I32,  PLUMB_I64,   PLUMB_UI8, PLUMB_UI32,
                                        PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64,   PLUMB_UI16, PLUMB_I4,
                                        PLUMB_F8E4M3FN};
    static const struct { uint32_t rank; int64_t dims[3]; } shapes[] = {
        {1, {1000}}, {2, {37, 300}}, {3, {7, 10000, 1}}, {3, {3, 7, 3334}}, {2, {0, 9}}, {3, {70, 10, 100}},
    };
    char src[512], ty[128];
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (uint32_t d = 0; d < shapes[si].rank; d++) {
                rt_ty(ty, sizeof ty, types[ti], shapes[si].rank, shapes[si].dims);
                snprintf(src, sizeof src,
                         "func.func @main() -> %s {\n  %%i = stablehlo.iota dim = %u : %s\n  func.return %%i : %s\n}\n",
                         ty, d, ty, ty);
                rt_check_exact(src, NULL, 0);
            }
}

/* reverse of each dim set and pad with interior padding (strided rows)
 * for element sizes 1, 2, 4, 8 and 16 (complex<f64>, the byte loop),
 * including rows shorter than a tile and 0-size dims. */
static void test_strided_rows(void **state)
{
    (void)state;
    static const plumb_dtype types[] = {PLUMB_I8, PLUMB_F16, PLUMB_F32, PLUMB_F64, PLUMB_C128};
    static const struct { uint32_t rank; int64_t dims[3]; const char *rev; } shapes[] = {
        {2, {33, 257}, "1"}, {2, {33, 257}, "0"}, {2, {33, 257}, "0, 1"}, {3, {5, 9, 70}, "2"},
        {3, {5, 9, 70}, "0, 2"}, {3, {4, 3, 2}, "1, 2"}, {2, {0, 7}, "1"}, {1, {5}, "0"},
    };
    char src[1024], ty[128], to[128];
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            plumb_dtype t = types[ti];
            rt_ty(ty, sizeof ty, t, shapes[si].rank, shapes[si].dims);
            snprintf(src, sizeof src,
                     "func.func @main(%%x: %s) -> %s {\n  %%r = stablehlo.reverse %%x, dims = [%s] : %s\n"
                     "  func.return %%r : %s\n}\n",
                     ty, ty, shapes[si].rev, ty, ty);
            plumb_tensor *x = rt_rand_tensor(t, shapes[si].rank, shapes[si].dims, true);
            plumb_tensor *in[1] = {x};
            rt_check_exact(src, in, 1);
            if (shapes[si].rank == 2) {
                /* interior 1 and 2, a low and a high edge */
                int64_t od[2];
                for (int k = 0; k < 2; k++) {
                    int64_t n = shapes[si].dims[k];
                    od[k] = n ? n + (n - 1) * (k + 1) + 1 + 2 : 3;
                }
                rt_ty(to, sizeof to, t, 2, od);
                const char *tn = plumb_dtype_name(t);
                snprintf(src, sizeof src,
                         "func.func @main(%%x: %s, %%p: tensor<%s>) -> %s {\n"
                         "  %%r = stablehlo.pad %%x, %%p, low = [1, 2], high = [2, 1], interior = [1, 2] :"
                         " (%s, tensor<%s>) -> %s\n  func.return %%r : %s\n}\n",
                         ty, tn, to, ty, tn, to, to);
                plumb_tensor *pv = rt_rand_tensor(t, 0, NULL, false);
                plumb_tensor *in2[2] = {x, pv};
                if (shapes[si].dims[0] > 0) rt_check_exact(src, in2, 2);
                plumb_tensor_free(pv);
            }
            plumb_tensor_free(x);
        }
}

/* reduce_window along dim p of dims (rank 2 or 3) with window w, padding
 * lo/hi there, every other dim untouched, body op. */
static void win_src(char *src, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims, uint32_t p, int64_t w,
                    int64_t lo, int64_t hi, const char *op)
{
    int64_t od[3];
    char wd[64] = "", pd[128] = "", ti[128], to[128];
    size_t a = 0, b = 0;
    for (uint32_t d = 0; d < rank; d++) {
        od[d] = d == p ? dims[d] + lo + hi - w + 1 : dims[d];
        a += (size_t)snprintf(wd + a, sizeof wd - a, "%s%lld", d ? ", " : "", (long long)(d == p ? w : 1));
        b += (size_t)snprintf(pd + b, sizeof pd - b, "%s[%lld, %lld]", d ? ", " : "", (long long)(d == p ? lo : 0),
                              (long long)(d == p ? hi : 0));
    }
    const char *tn = plumb_dtype_name(t);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%i) <{window_dimensions = array<i64: %s>,"
             " padding = dense<[%s]> : tensor<%ux2xi64>}> ({\n"
             "    ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "      %%s = stablehlo.%s %%a, %%b : tensor<%s>\n"
             "      stablehlo.return %%s : tensor<%s>\n"
             "  }) : (%s, tensor<%s>) -> %s\n"
             "  func.return %%r : %s\n}\n",
             rt_ty(ti, sizeof ti, t, rank, dims), tn, rt_ty(to, sizeof to, t, rank, od), wd, pd, rank, tn, tn, op, tn,
             tn, ti, tn, to, to);
}

/* Prefix windows (cumulative folds, runtime/k_window.c rw_scan) along the
 * last, a middle and the first dim (inner runs of 1, 4, 6 and 700
 * columns: several blocks of 256), windows ending at the element (c = 0,
 * cumsum) and 6 past it, init values that qualify (0, 1, -inf) and ones
 * that do not (1.5 for add, the row loop): f32 and f64 sums bit for bit
 * against the documented fold (init, init per leading pad, then the
 * elements in order, in double, rounded once) and within the reference's
 * bound; integer add/multiply/max/and and float max with NaNs exactly the
 * reference's. Also windows past the end (suffix sums), which stay on the
 * row loop. */
static void test_window_scan(void **state)
{
    (void)state;
    static const struct { uint32_t rank; int64_t dims[3]; uint32_t p; } shapes[] = {
        {2, {5, 37}, 1}, {2, {37, 6}, 0}, {3, {3, 37, 4}, 1}, {2, {37, 700}, 0}, {3, {2, 2, 37}, 2},
    };
    char src[2048];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        uint32_t rank = shapes[si].rank, p = shapes[si].p;
        const int64_t *dims = shapes[si].dims;
        int64_t len = dims[p];
        /* (w, lo, hi): cumsum; window ending 6 past (c = 6, 31 results);
         * suffix windows (past the end: not a scan) */
        const int64_t geo[3][3] = {{len, len - 1, 0}, {len, len - 7, 0}, {len, 0, len - 1}};
        for (int gi = 0; gi < 3; gi++) {
            int64_t w = geo[gi][0], lo = geo[gi][1], hi = geo[gi][2], nres = len + lo + hi - w + 1;
            for (int fi = 0; fi < 2; fi++) {
                plumb_dtype t = fi ? PLUMB_F64 : PLUMB_F32;
                plumb_tensor *x = rt_rand_tensor(t, rank, dims, false);
                for (int ii = 0; ii < 2; ii++) {
                    double initv = ii ? 1.5 : 0.0;
                    plumb_tensor *init = rt_scalar_bits(t, fi ? plumb_f64_bits(initv) : plumb_f32_bits((float)initv));
                    plumb_tensor *in[2] = {x, init};
                    win_src(src, sizeof src, t, rank, dims, p, w, lo, hi, "add");
                    rt_check_bound(src, in, 2, (uint64_t)w + 1, true);
                    if (gi < 2) {
                        /* the documented fold, per result */
                        uint64_t outer = 1, inner = 1;
                        for (uint32_t d = 0; d < p; d++) outer *= (uint64_t)dims[d];
                        for (uint32_t d = p + 1; d < rank; d++) inner *= (uint64_t)dims[d];
                        ir_module *m = rt_parse(src);
                        for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                            for (uint32_t th = 1; th <= 2; th++) {
                                plumb_tensor *got[RT_MAX_OUT];
                                rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
                                for (uint64_t ob = 0; ob < outer; ob++)
                                    for (int64_t o = 0; o < nres; o++)
                                        for (uint64_t q = 0; q < inner; q++) {
                                            double acc = initv;
                                            for (int64_t k = 0; k < w; k++) {
                                                int64_t e = o + k - lo;
                                                acc += e < 0 || e >= len ? initv
                                                                         : plumb_load_f64(t, x->data,
                                                                                          (size_t)((ob * (uint64_t)len + (uint64_t)e) * inner + q));
                                            }
                                            uint64_t want = fi ? plumb_f64_bits(acc) : plumb_f32_bits((float)acc);
                                            size_t at = (size_t)((ob * (uint64_t)nres + (uint64_t)o) * inner + q);
                                            uint64_t g = plumb_load_bits(t, got[0]->data, at);
                                            if (g != want)
                                                fail_msg("%s shape %zu geo %d init %g isa %d threads %u at %zu: got 0x%llx want 0x%llx",
                                                         plumb_dtype_name(t), si, gi, initv, isa, th, at,
                                                         (unsigned long long)g, (unsigned long long)want);
                                        }
                                plumb_tensor_free(got[0]);
                            }
                        ir_module_free(m);
                    }
                    plumb_tensor_free(init);
                }
                plumb_tensor_free(x);
            }
            /* exact folds: integers, and float max with NaNs and -inf init */
            static const struct { plumb_dtype t; const char *op; uint64_t init; } ex[] = {
                {PLUMB_I32, "add", 0},          {PLUMB_I8, "multiply", 1}, {PLUMB_UI64, "maximum", 0},
                {PLUMB_I16, "and", 0xffff},     {PLUMB_I32, "add", 3},     {PLUMB_F32, "maximum", 0xff800000u},
                {PLUMB_F16, "minimum", 0x7c00}, {PLUMB_F64, "multiply", 0x3ff0000000000000ull},
            };
            for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++) {
                plumb_tensor *x = rt_rand_tensor(ex[k].t, rank, dims, true);
                plumb_tensor *init = rt_scalar_bits(ex[k].t, ex[k].init);
                plumb_tensor *in[2] = {x, init};
                win_src(src, sizeof src, ex[k].t, rank, dims, p, w, lo, hi, ex[k].op);
                if (ex[k].t == PLUMB_F64) rt_check_bound(src, in, 2, (uint64_t)w + 1, true);
                else rt_check_exact_nan(src, in, 2);
                plumb_tensor_free(init);
                plumb_tensor_free(x);
            }
        }
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
        cmocka_unit_test(test_argext),
        cmocka_unit_test(test_multi_bodies),
        cmocka_unit_test(test_iota),
        cmocka_unit_test(test_strided_rows),
        cmocka_unit_test(test_window_scan),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
