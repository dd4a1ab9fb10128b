/* Fast paths issue 17's probe added for cumulative folds and complex
 * multiply, at every ISA level the CPU has (rt_test.h forces portable,
 * AVX2 and AVX-512 in turn), on 1 and 2 threads:
 *   - reduce_window prefix windows (runtime/k_window.c rw_scan): along the
 *     last dimension several lines run together (scan_lines), along any
 *     other dimension contiguous runs of lanes go through the row loop's
 *     kernels (scan_range);
 *   - channels-last (NHWC) pooling rows of f32/f64 add and multiply
 *     (runtime/k_window.c rw_rows_body: whole rows through f_row);
 *   - complex<f32> and complex<f64> elementwise multiply in vector lanes
 *     (runtime/k_complex.c cmul_range).
 * Expected values come from the documented arithmetic computed here, one
 * element at a time (the fold in double from init; the products in
 * double, or Kahan's fma form), and from the reference interpreter for
 * the exact folds and the non-finite complex products. A NaN that an add
 * or multiply makes (inf - inf, 0 x inf) has no specified sign or payload
 * (IEEE 754-2019 6.2.3): those compare as any NaN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

/* reduce_window along dim p of dims with window w, padding lo before and
 * none after, every other dim untouched, body op. */
static void scan_src(char *src, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims, uint32_t p, int64_t w,
                     int64_t lo, const char *op)
{
    int64_t od[3];
    char wd[64] = "", pd[128] = "", ti[128], to[128];
    size_t a = 0, b = 0;
    for (uint32_t d = 0; d < rank; d++) {
        od[d] = d == p ? dims[d] + lo - w + 1 : dims[d];
        a += (size_t)snprintf(wd + a, sizeof wd - a, "%s%lld", d ? ", " : "", (long long)(d == p ? w : 1));
        b += (size_t)snprintf(pd + b, sizeof pd - b, "%s[%lld, 0]", d ? ", " : "", (long long)(d == p ? lo : 0));
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

/* IEEE 754-2019 maximum / minimum as the spec defines them: NaN
 * propagates (the first NaN met), -0 < +0. */
static double ieee_max(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static double ieee_min(double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* Random floats with, one in eight, a special: NaN, +-inf, -0, +0. */
static plumb_tensor *scan_data(plumb_dtype t, uint32_t rank, const int64_t *dims, bool specials)
{
    plumb_tensor *x = rt_rand_tensor(t, rank, dims, false);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; specials && i < n; i++) {
        uint64_t r = rt_rand();
        if (r % 8) continue;
        static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
        double v = sp[(r >> 8) % 5];
        plumb_store_bits(t, x->data, i, t == PLUMB_F32 ? plumb_f32_bits((float)v) : plumb_f64_bits(v));
    }
    return x;
}

/* Cumulative folds along the last dimension (several line counts around
 * the lanes run together: 1, 7, 8, 9, 17; lengths 2, 3, 37, 100),
 * along the first and a middle dimension (inner runs of 3, 17, 300: a
 * partial block of 256), cumsum windows (c = 0) and windows ending 2 past
 * the element; f32 and f64 add, multiply, maximum and minimum, with and
 * without NaN/inf/-0 terms: bit for bit the documented fold computed here
 * (init, init per leading pad, then the elements in order, in double,
 * rounded once to the element type) at every ISA level on 1 and 2
 * threads; maximum/minimum also bit for bit the reference's. */
static void test_scan_float(void **state)
{
    (void)state;
    static const struct { uint32_t rank; int64_t dims[3]; uint32_t p; } shapes[] = {
        {2, {1, 37}, 1}, {2, {7, 3}, 1},    {2, {8, 100}, 1},  {2, {9, 37}, 1}, {3, {17, 1, 2}, 2},
        {3, {3, 3, 37}, 2}, {2, {37, 3}, 0}, {3, {2, 37, 17}, 1}, {2, {5, 300}, 0}, {2, {0, 6}, 1},
    };
    static const char *const ops[] = {"add", "multiply", "maximum", "minimum"};
    char src[2048];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        uint32_t rank = shapes[si].rank, p = shapes[si].p;
        const int64_t *dims = shapes[si].dims;
        int64_t len = dims[p];
        for (int ci = 0; ci < 2; ci++) {
            int64_t c = ci ? (len > 3 ? 2 : 1) : 0, w = len, lo = len - 1 - c, nres = len + lo - w + 1;
            for (int fi = 0; fi < 2; fi++)
                for (int oi = 0; oi < 4; oi++)
                    for (int sp = 0; sp < 2; sp++) {
                        plumb_dtype t = fi ? PLUMB_F64 : PLUMB_F32;
                        /* products of 37 terms up to 2^7 overflow f32: scale them to [-2, 2) */
                        plumb_tensor *x = scan_data(t, rank, dims, sp);
                        uint64_t n = plumb_tensor_numel(x);
                        if (oi == 1)
                            for (uint64_t i = 0; i < n; i++) {
                                double v = plumb_load_f64(t, x->data, i);
                                if (isfinite(v)) v = ldexp(frexp(v, &(int){0}), 1);
                                plumb_store_bits(t, x->data, i, fi ? plumb_f64_bits(v) : plumb_f32_bits((float)v));
                            }
                        double initv = oi == 0 ? 0.0 : oi == 1 ? 1.0 : oi == 2 ? -INFINITY : INFINITY;
                        plumb_tensor *init = rt_scalar_bits(t, fi ? plumb_f64_bits(initv) : plumb_f32_bits((float)initv));
                        plumb_tensor *in[2] = {x, init};
                        scan_src(src, sizeof src, t, rank, dims, p, w, lo, ops[oi]);
                        if (oi >= 2) rt_check_exact(src, in, 2);
                        uint64_t outer = 1, inner = 1;
                        for (uint32_t d = 0; d < p; d++) outer *= (uint64_t)dims[d];
                        for (uint32_t d = p + 1; d < rank; d++) inner *= (uint64_t)dims[d];
                        ir_module *m = rt_parse(src);
                        for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                            for (uint32_t th = 1; th <= 2; th++) {
                                plumb_tensor *got[RT_MAX_OUT];
                                rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
                                for (uint64_t ob = 0; ob < outer; ob++)
                                    for (uint64_t q = 0; q < inner; q++) {
                                        double acc = initv;
                                        for (int64_t e = -lo; e < nres + c; e++) {
                                            double v = e < 0 ? initv
                                                             : plumb_load_f64(t, x->data, (size_t)((ob * (uint64_t)len + (uint64_t)e) * inner + q));
                                            acc = oi == 0 ? acc + v : oi == 1 ? acc * v : oi == 2 ? ieee_max(acc, v) : ieee_min(acc, v);
                                            int64_t o = e - c;
                                            if (o < 0) continue;
                                            uint64_t want = fi ? plumb_f64_bits(acc) : plumb_f32_bits((float)acc);
                                            size_t at = (size_t)((ob * (uint64_t)nres + (uint64_t)o) * inner + q);
                                            uint64_t g = plumb_load_bits(t, got[0]->data, at);
                                            /* a NaN an add or multiply makes (inf - inf, 0 x inf) has
                                             * no specified sign or payload: any NaN */
                                            bool nan2 = isnan(acc) && isnan(plumb_load_f64(t, got[0]->data, at));
                                            if (g != want && !(oi < 2 && nan2))
                                                fail_msg("%s %s shape %zu c %lld specials %d isa %d threads %u at %zu: got 0x%llx want 0x%llx",
                                                         plumb_dtype_name(t), ops[oi], si, (long long)c, sp, isa, th, at,
                                                         (unsigned long long)g, (unsigned long long)want);
                                        }
                                    }
                                plumb_tensor_free(got[0]);
                            }
                        ir_module_free(m);
                        plumb_tensor_free(init);
                        plumb_tensor_free(x);
                    }
        }
    }
}

/* The other element types through the lines run together (the generic
 * fold per lane): integer add/multiply/max/min/and/or, unsigned 64-bit
 * max, f16 max with NaNs, over 1, 7, 9 and 17 lines and a length-1
 * dimension (no scan: window 1): exactly the reference's. */
static void test_scan_other(void **state)
{
    (void)state;
    static const struct { uint32_t rank; int64_t dims[3]; uint32_t p; } shapes[] = {
        {2, {1, 37}, 1}, {2, {7, 5}, 1}, {2, {9, 37}, 1}, {3, {17, 2, 3}, 2}, {2, {4, 1}, 1}, {2, {3, 21}, 0},
    };
    static const struct { plumb_dtype t; const char *op; uint64_t init; } ex[] = {
        {PLUMB_I32, "add", 0},     {PLUMB_I8, "multiply", 1}, {PLUMB_UI64, "maximum", 0}, {PLUMB_I16, "and", 0xffff},
        {PLUMB_I64, "or", 0},      {PLUMB_UI32, "minimum", 0xffffffffu}, {PLUMB_I64, "minimum", INT64_MAX},
        {PLUMB_F16, "maximum", 0xfc00},
    };
    char src[2048];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++) {
            uint32_t rank = shapes[si].rank, p = shapes[si].p;
            const int64_t *dims = shapes[si].dims;
            int64_t len = dims[p];
            plumb_tensor *x = rt_rand_tensor(ex[k].t, rank, dims, true);
            if (ex[k].t == PLUMB_F16)
                for (uint64_t i = 0; i < plumb_tensor_numel(x); i += 5) plumb_store_bits(PLUMB_F16, x->data, i, 0x7e01);
            plumb_tensor *init = rt_scalar_bits(ex[k].t, ex[k].init);
            plumb_tensor *in[2] = {x, init};
            scan_src(src, sizeof src, ex[k].t, rank, dims, p, len, len - 1, ex[k].op);
            rt_check_exact_nan(src, in, 2);
            plumb_tensor_free(init);
            plumb_tensor_free(x);
        }
}

/* ---- channels-last pooling of add and multiply ---- */

/* NHWC pooling (window 1 x kh x kw x 1, stride 1 x sh x sw x 1, padding
 * ph/pw on both sides of H and W) with body op: f32 and f64 add and
 * multiply, and max/min (at the portable level these rows take the same
 * path), C = 1, 7, 64 and 67 channels, 2x2 stride 2 (every window inside)
 * and 3x3 stride 1 padded by 1 (border windows on the general loop), with
 * and without NaN/inf/-0 terms: bit for bit the documented fold computed
 * here (init, then the window's positions in row-major order, padding
 * folding init, in double, rounded once) at every ISA level on 1 and 2
 * threads; a NaN an add or multiply makes compares as any NaN. */
static void test_pool_nhwc(void **state)
{
    (void)state;
    static const int64_t chans[] = {1, 7, 64, 67};
    static const struct { int64_t kh, kw, sh, sw, ph, pw; } geo[] = {{2, 2, 2, 2, 0, 0}, {3, 3, 1, 1, 1, 1}};
    static const char *const ops[] = {"add", "multiply", "maximum", "minimum"};
    char src[2048], ti[128], to[128];
    for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++)
        for (int gi = 0; gi < 2; gi++)
            for (int fi = 0; fi < 2; fi++)
                for (int oi = 0; oi < 4; oi++)
                    for (int sp = 0; sp < 2; sp++) {
                        plumb_dtype t = fi ? PLUMB_F64 : PLUMB_F32;
                        int64_t C = chans[ci], H = 6, W = 5, kh = geo[gi].kh, kw = geo[gi].kw, sh = geo[gi].sh,
                                sw = geo[gi].sw, ph = geo[gi].ph, pw = geo[gi].pw;
                        int64_t dims[4] = {2, H, W, C};
                        int64_t OH = (H + 2 * ph - kh) / sh + 1, OW = (W + 2 * pw - kw) / sw + 1;
                        int64_t od[4] = {2, OH, OW, C};
                        const char *tn = plumb_dtype_name(t);
                        snprintf(src, sizeof src,
                                 "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
                                 "  %%r = \"stablehlo.reduce_window\"(%%x, %%i) <{window_dimensions = array<i64: 1, %lld, %lld, 1>,"
                                 " window_strides = array<i64: 1, %lld, %lld, 1>,"
                                 " padding = dense<[[0, 0], [%lld, %lld], [%lld, %lld], [0, 0]]> : tensor<4x2xi64>}> ({\n"
                                 "    ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                                 "      %%s = stablehlo.%s %%a, %%b : tensor<%s>\n"
                                 "      stablehlo.return %%s : tensor<%s>\n"
                                 "  }) : (%s, tensor<%s>) -> %s\n"
                                 "  func.return %%r : %s\n}\n",
                                 rt_ty(ti, sizeof ti, t, 4, dims), tn, rt_ty(to, sizeof to, t, 4, od), (long long)kh,
                                 (long long)kw, (long long)sh, (long long)sw, (long long)ph, (long long)ph, (long long)pw,
                                 (long long)pw, tn, tn, ops[oi], tn, tn, ti, tn, to, to);
                        plumb_tensor *x = scan_data(t, 4, dims, sp);
                        double initv = oi == 0 ? 0.0 : oi == 1 ? 1.0 : oi == 2 ? -INFINITY : INFINITY;
                        if (oi == 0 && gi == 0) initv = 0.75;   /* any init: not a scan */
                        plumb_tensor *init = rt_scalar_bits(t, fi ? plumb_f64_bits(initv) : plumb_f32_bits((float)initv));
                        plumb_tensor *in[2] = {x, init};
                        ir_module *m = rt_parse(src);
                        for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                            for (uint32_t th = 1; th <= 2; th++) {
                                plumb_tensor *got[RT_MAX_OUT];
                                rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
                                for (int64_t nb = 0; nb < 2; nb++)
                                    for (int64_t oh = 0; oh < OH; oh++)
                                        for (int64_t ow = 0; ow < OW; ow++)
                                            for (int64_t c = 0; c < C; c++) {
                                                double acc = initv;
                                                for (int64_t a = 0; a < kh; a++)
                                                    for (int64_t b = 0; b < kw; b++) {
                                                        int64_t h = oh * sh + a - ph, w = ow * sw + b - pw;
                                                        double v = h < 0 || h >= H || w < 0 || w >= W
                                                                       ? initv
                                                                       : plumb_load_f64(t, x->data, (size_t)(((nb * H + h) * W + w) * C + c));
                                                        acc = oi == 0 ? acc + v : oi == 1 ? acc * v : oi == 2 ? ieee_max(acc, v) : ieee_min(acc, v);
                                                    }
                                                size_t at = (size_t)(((nb * OH + oh) * OW + ow) * C + c);
                                                uint64_t want = fi ? plumb_f64_bits(acc) : plumb_f32_bits((float)acc);
                                                uint64_t g = plumb_load_bits(t, got[0]->data, at);
                                                bool nan2 = isnan(acc) && isnan(plumb_load_f64(t, got[0]->data, at));
                                                if (g != want && !(oi < 2 && nan2))
                                                    fail_msg("%s %s C %lld geo %d specials %d isa %d threads %u at %zu: got 0x%llx want 0x%llx",
                                                             tn, ops[oi], (long long)C, gi, sp, isa, th, at,
                                                             (unsigned long long)g, (unsigned long long)want);
                                            }
                                plumb_tensor_free(got[0]);
                            }
                        ir_module_free(m);
                        plumb_tensor_free(init);
                        plumb_tensor_free(x);
                    }
}

/* ---- complex multiply ---- */

/* n complex values, one component in five a special (NaN, +-inf, -0,
 * huge: products that overflow) when specials, subnormals sometimes. */
static plumb_tensor *cx_data(plumb_dtype t, int64_t n, bool specials)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, 1, &n, 0, &d);
    assert_non_null(x);
    for (int64_t i = 0; i < 2 * n; i++) {
        uint64_t r = rt_rand();
        double v = ((double)(r >> 11) * 0x1p-53 * 2 - 1) * (double)(1u << (r & 7));
        if (specials && (r >> 4) % 5 == 0) {
            double big = t == PLUMB_C64 ? 0x1p120 : 0x1p1000, tiny = t == PLUMB_C64 ? 0x1p-140 : 0x1p-1070;
            static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 1, -1, 1, 1};
            unsigned s = (unsigned)((r >> 8) % 8);
            v = s < 4 ? sp[s] : s == 4 ? big : s == 5 ? -big : s == 6 ? tiny : 3 * big;
        }
        if (t == PLUMB_C64) ((float *)x->data)[i] = (float)v;
        else ((double *)x->data)[i] = v;
    }
    return x;
}

/* v rounded to f32 (through a volatile float: the rounding must happen) */
static double to_f32(double v)
{
    volatile float f = (float)v;
    return f;
}

/* ab - cd as the runtime documents it for complex<f64> (Kahan's fma form) */
static double kahan_ref(double a, double b, double c, double d)
{
    double w = c * d;
    return fma(a, b, -w) - fma(c, d, -w);
}

/* Elementwise multiply of n complex<f32> and complex<f64> values (n = 0,
 * 1, 3, 4, 7, 8, 9, 17, 1000, 40000: vector tails and several thread
 * chunks), with and without specials: where all four inputs are finite
 * (and, complex<f64>, both Kahan components finite), bit for bit the
 * documented arithmetic computed here (complex<f32>: exact products in
 * double, ac - bd and ad + bc rounded in double then to f32; complex<f64>:
 * Kahan's fma form) at every ISA level on 1 and 2 threads; every other
 * element bit for bit the portable level's (the C11 Annex G scalar path)
 * and of the reference's class (NaN where it has NaN). */
static void test_complex_multiply(void **state)
{
    (void)state;
    static const int64_t sizes[] = {0, 1, 3, 4, 7, 8, 9, 17, 1000, 40000};
    char src[512], ty[64];
    for (int ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int sp = 0; sp < 2; sp++) {
                plumb_dtype t = ti ? PLUMB_C128 : PLUMB_C64;
                int64_t n = sizes[si];
                rt_ty(ty, sizeof ty, t, 1, &n);
                snprintf(src, sizeof src,
                         "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                         "  %%r = stablehlo.multiply %%a, %%b : %s\n  func.return %%r : %s\n}\n",
                         ty, ty, ty, ty, ty);
                plumb_tensor *a = cx_data(t, n, sp), *b = cx_data(t, n, sp);
                plumb_tensor *in[2] = {a, b}, *want[RT_MAX_OUT], *base[RT_MAX_OUT];
                ir_module *m = rt_parse(src);
                rt_ref(m, in, 2, want);
                rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, 2, base, 1);
                for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                    for (uint32_t th = 1; th <= 2; th++) {
                        plumb_tensor *got[RT_MAX_OUT];
                        rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
                        for (int64_t i = 0; i < n; i++) {
                            double x[4], g[2], r[2], bs[2], e[2];
                            bool fin = true, kfin = true;
                            for (int k = 0; k < 2; k++) {
                                x[k] = ti ? ((double *)a->data)[2 * i + k] : ((float *)a->data)[2 * i + k];
                                x[2 + k] = ti ? ((double *)b->data)[2 * i + k] : ((float *)b->data)[2 * i + k];
                                g[k] = ti ? ((double *)got[0]->data)[2 * i + k] : ((float *)got[0]->data)[2 * i + k];
                                bs[k] = ti ? ((double *)base[0]->data)[2 * i + k] : ((float *)base[0]->data)[2 * i + k];
                                r[k] = ti ? ((double *)want[0]->data)[2 * i + k] : ((float *)want[0]->data)[2 * i + k];
                            }
                            for (int k = 0; k < 4; k++) fin = fin && isfinite(x[k]);
                            double pa = x[0], pb = x[1], pc = x[2], pd = x[3];
                            if (ti) {
                                e[0] = kahan_ref(pa, pc, pb, pd);
                                e[1] = kahan_ref(pa, pd, -pb, pc);
                                kfin = isfinite(e[0]) && isfinite(e[1]);
                            } else {
                                e[0] = to_f32(pa * pc - pb * pd);
                                e[1] = to_f32(pa * pd + pb * pc);
                            }
                            for (int k = 0; k < 2; k++) {
                                bool ok;
                                if (fin && kfin)   /* never NaN: finite, or inf from rounding */
                                    ok = g[k] == e[k] && signbit(g[k]) == signbit(e[k]);
                                else
                                    ok = (isnan(g[k]) && isnan(bs[k])) || memcmp(&g[k], &bs[k], sizeof(double)) == 0;
                                ok = ok && isnan(g[k]) == isnan(r[k]);
                                if (!ok)
                                    fail_msg("%s n %lld specials %d isa %d threads %u element %lld.%d: got %a want %a "
                                             "(portable %a, reference %a; inputs %a %a %a %a)",
                                             plumb_dtype_name(t), (long long)n, sp, isa, th, (long long)i, k, g[k],
                                             fin && kfin ? e[k] : bs[k], bs[k], r[k], x[0], x[1], x[2], x[3]);
                            }
                        }
                        plumb_tensor_free(got[0]);
                    }
                plumb_tensor_free(want[0]);
                plumb_tensor_free(base[0]);
                ir_module_free(m);
                plumb_tensor_free(a);
                plumb_tensor_free(b);
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
        cmocka_unit_test(test_scan_float),
        cmocka_unit_test(test_scan_other),
        cmocka_unit_test(test_pool_nhwc),
        cmocka_unit_test(test_complex_multiply),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
