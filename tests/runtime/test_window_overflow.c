/* reduce_window sums of f64 and products of every float type whose
 * intermediates leave double's range where the exact result does not
 * (runtime/k_window.c: win_exact, scan_fix): the cumulative sum of
 * [1.7e308, 1.7e308, -1.7e308] is 1.7e308, the cumulative product of
 * [1e300, 1e300, 1e-300] 1e300, as the reference's exact fold
 * (ref/accum.c) gives. Bit for bit against the reference interpreter (NaNs
 * equal) at every ISA level the CPU has, on 1 and 2 threads (rt_test.h),
 * on every path the runtime takes for these folds: scans along the last
 * dimension (eight lines transposed at AVX2 and above, the rest one by
 * one) and along others, scans whose first result already folds several
 * elements, channels-last pool rows, and the general row loop with
 * padding, window and base dilation, windows along the innermost
 * dimension. The data keep every double fold exact where it stays in
 * range (integers times 2^1010, powers of two and small odd factors), so
 * only the out-of-range windows could differ: those whose partial sums or
 * products overflow (or underflow) while the exact result does not,
 * genuine overflows (inf in the reference too), and windows holding
 * infinities and NaNs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"

typedef struct win {
    uint32_t rank;
    int64_t in[4], w[4], s[4], b[4], wd[4], lo[4], hi[4];
} win;

static int64_t out_dim(const win *g, uint32_t d)
{
    int64_t dil = (g->in[d] - 1) * g->b[d] + 1, pad = g->lo[d] + dil + g->hi[d], span = (g->w[d] - 1) * g->wd[d] + 1;
    return pad < span ? 0 : (pad - span) / g->s[d] + 1;
}

static void arr(char *buf, size_t cap, const char *name, uint32_t r, const int64_t *v)
{
    size_t o = strlen(buf);
    o += (size_t)snprintf(buf + o, cap - o, "%s = array<i64: ", name);
    for (uint32_t d = 0; d < r; d++) o += (size_t)snprintf(buf + o, cap - o, "%s%lld", d ? ", " : "", (long long)v[d]);
    snprintf(buf + o, cap - o, ">, ");
}

/* The window of g over x (values converted to t), body `body` ("add" or
 * "multiply"), init `init`: the runtime's result against the reference's. */
static void check(plumb_dtype t, const win *g, const char *body, const double *x, double init)
{
    static char prog[8192];
    char attrs[1024] = "", it[128], ot[128];
    int64_t od[4];
    uint32_t r = g->rank;
    for (uint32_t d = 0; d < r; d++) od[d] = out_dim(g, d);
    arr(attrs, sizeof attrs, "base_dilations", r, g->b);
    size_t o = strlen(attrs);
    o += (size_t)snprintf(attrs + o, sizeof attrs - o, "padding = dense<[");
    for (uint32_t d = 0; d < r; d++)
        o += (size_t)snprintf(attrs + o, sizeof attrs - o, "%s[%lld, %lld]", d ? ", " : "", (long long)g->lo[d],
                              (long long)g->hi[d]);
    snprintf(attrs + o, sizeof attrs - o, "]> : tensor<%ux2xi64>, ", r);
    arr(attrs, sizeof attrs, "window_dilations", r, g->wd);
    arr(attrs, sizeof attrs, "window_dimensions", r, g->w);
    arr(attrs, sizeof attrs, "window_strides", r, g->s);
    attrs[strlen(attrs) - 2] = 0;
    const char *e = plumb_dtype_name(t);
    rt_ty(it, sizeof it, t, r, g->in);
    rt_ty(ot, sizeof ot, t, r, od);
    snprintf(prog, sizeof prog,
             "func.func @main(%%x: %s, %%c: tensor<%s>) -> %s {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
             "    %%m = stablehlo.%s %%a, %%b : tensor<%s>\n"
             "    stablehlo.return %%m : tensor<%s>\n"
             "  }) : (%s, tensor<%s>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, e, ot, attrs, e, e, body, e, e, it, e, ot, ot);
    plumb_diag dg;
    memset(&dg, 0, sizeof dg);
    plumb_tensor *in[2];
    in[0] = plumb_tensor_new(t, r, g->in, 0, &dg);
    assert_non_null(in[0]);
    uint64_t n = plumb_tensor_numel(in[0]);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits = t == PLUMB_F64 ? plumb_f64_bits(x[i]) : t == PLUMB_F32 ? plumb_f32_bits((float)x[i])
                      : t == PLUMB_F16 ? plumb_f64_to_f16(x[i]) : plumb_f64_to_bf16(x[i]);
        plumb_store_bits(t, in[0]->data, i, bits);
    }
    in[1] = rt_scalar_bits(t, t == PLUMB_F64 ? plumb_f64_bits(init) : t == PLUMB_F32 ? plumb_f32_bits((float)init)
                            : t == PLUMB_F16 ? plumb_f64_to_f16(init) : plumb_f64_to_bf16(init));
    rt_check_exact_nan(prog, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* A cumulative fold along dimension p of dims (jax.lax.cumsum's form:
 * window the whole length, low padding length - 1 - c, so result 0 folds
 * elements 0 .. c). */
static win cum(uint32_t rank, const int64_t *dims, uint32_t p, int64_t c)
{
    win g;
    memset(&g, 0, sizeof g);
    g.rank = rank;
    for (uint32_t d = 0; d < rank; d++) {
        g.in[d] = dims[d];
        g.w[d] = g.s[d] = g.b[d] = g.wd[d] = 1;
    }
    g.w[p] = dims[p];
    g.lo[p] = dims[p] - 1 - c;
    return g;
}

/* Sum terms: integers in [-12000, 12000] times 2^1010, so two terms can
 * pass 2^1024 (16384 units) and every in-range partial sum is exact. */
static double sum_term(void) { return (double)((int64_t)(rt_rand() % 24001) - 12000) * 0x1p1010; }

/* Product factors: +-2^e, e in [-emax, emax], or 3 (one in eight), so
 * every in-range partial product is exact for the windows used here. */
static double prod_factor(int emax)
{
    uint64_t r = rt_rand();
    if (r % 8 == 0) return 3.0;
    double v = ldexp(1.0, (int)((r >> 8) % (uint64_t)(2 * emax + 1)) - emax);
    return (r >> 40) & 1 ? -v : v;
}

/* Sum lines with a known answer, each `len` long (the rest filled with 0). */
static const double sum_lines[][8] = {
    {1.7e308, 1.7e308, -1.7e308, 0, 0, 0, 0, 0},                              /* 1.7e308 after an overflow */
    {0x1p1023, 0x1p1023, -0x1p1023, -0x1p1023, 1, 0x1p-53, 0x1p-1074, -1},   /* a tie, then the sticky bit */
    {1.7e308, 1.7e308, -INFINITY, 1.7e308, 0, 0, 0, 0},                       /* -inf (double: NaN) */
    {1.7e308, 1.7e308, 0x1p1000, -0x1p1000, 0, 0, 0, 0},                      /* genuine overflow */
    {-1.7e308, -1.7e308, 1.7e308, 1.7e308, 1.7e308, 0, 0, 0},                 /* back through -inf to +0, 1.7e308 */
    {1, NAN, 1.7e308, 1.7e308, -1.7e308, 0, 0, 0},                            /* NaN throughout */
    {INFINITY, 1.7e308, 1.7e308, -INFINITY, 5, 0, 0, 0},                      /* +inf with -inf */
    {-0.0, -0.0, -0.0, 0x1p-1074, -0x1p-1074, 0, 0, 0},                        /* signed zeros, subnormals */
};

static const double prod_lines[][8] = {
    {1e300, 1e300, 1e-300, 1, 1, 1, 1, 1},                      /* 1e300 after an overflow */
    {0x1p-600, 0x1p-600, 0x1p600, 0x1p600, 3, 1, 1, 1},         /* after an underflow to 0 */
    {3486784401.0, 0x1p-600, 0x1p-500, 0x1p1000, 0x1p100, 1, 1, 1},   /* 3^20 through a subnormal */
    {1e300, 1e300, 0, 1, 1, 1, 1, 1},                           /* 0 (double: inf * 0 = NaN) */
    {1e300, 1e300, 1e-300, -INFINITY, 1, 1, 1, 1},              /* -inf */
    {0x1p1000, 0x1p1000, 0x1p1000, 1, 1, 1, 1, 1},              /* genuine overflow */
    {0x1p-1000, 0x1p-100, 0x1p-10, 0x1p-1, 1, 1, 1, 1},         /* genuine underflow, rounded */
    {INFINITY, 0.0, 1, NAN, 1, 1, 1, 1},                        /* inf * 0, NaN */
};

/* The cumulative sums and products along the last dimension: 11 lines
 * (eight together, three alone) of 45 and 9, the first lines the known
 * cases above, then random walks that leave the range and come back;
 * result 0 folding one element and three. */
static void test_cumulative_last(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++)
        for (int64_t len = 9; len <= 45; len += 36)
            for (int64_t c = 0; c <= 2; c += 2) {
                int64_t dims[2] = {11, len};
                double x[11 * 45];
                for (int64_t l = 0; l < 11; l++)
                    for (int64_t i = 0; i < len; i++) {
                        double v = kind ? prod_factor(700) : sum_term();
                        if (l < 8 && i < 8) v = kind ? prod_lines[l][i] : sum_lines[l][i];
                        x[l * len + i] = v;
                    }
                win g = cum(2, dims, 1, c);
                check(PLUMB_F64, &g, kind ? "multiply" : "add", x, kind ? 1.0 : 0.0);
            }
}

/* Along a leading dimension: inner columns 5 (one block) and 300 (two
 * blocks of the scan's 256), each column the same kinds of data. */
static void test_cumulative_inner(void **state)
{
    (void)state;
    static double x[20 * 300];
    for (int kind = 0; kind < 2; kind++)
        for (int64_t inner = 5; inner <= 300; inner += 295) {
            int64_t dims[2] = {20, inner};
            for (int64_t e = 0; e < 20; e++)
                for (int64_t q = 0; q < inner; q++) {
                    double v = kind ? prod_factor(700) : sum_term();
                    if (q < 8 && e < 8) v = kind ? prod_lines[q][e] : sum_lines[q][e];
                    x[e * inner + q] = v;
                }
            win g = cum(2, dims, 0, 0);
            check(PLUMB_F64, &g, kind ? "multiply" : "add", x, kind ? 1.0 : 0.0);
            g = cum(2, dims, 0, 3);
            check(PLUMB_F64, &g, kind ? "multiply" : "add", x, kind ? 1.0 : 0.0);
        }
}

/* f32 cumulative products: nine factors of 2^127 pass 2^1024 in double
 * and nine of 2^-126 bring the product back to 2^9; random walks of
 * f32 powers of two. Last dimension (eight lines at once) and leading. */
static void test_cumulative_f32_product(void **state)
{
    (void)state;
    double x[16 * 40];
    for (int64_t l = 0; l < 16; l++)
        for (int64_t i = 0; i < 40; i++)
            x[l * 40 + i] = l == 0 ? (i < 9 ? 0x1p127 : i < 18 ? 0x1p-126 : 1) : prod_factor(126);
    int64_t d1[2] = {16, 40}, d2[2] = {40, 16};
    win g = cum(2, d1, 1, 0);
    check(PLUMB_F32, &g, "multiply", x, 1.0);
    for (int64_t l = 0; l < 16; l++)   /* the same lines as columns */
        for (int64_t i = 0; i < 40; i++) x[i * 16 + l] = l == 0 ? (i < 9 ? 0x1p127 : i < 18 ? 0x1p-126 : 1) : prod_factor(126);
    g = cum(2, d2, 0, 0);
    check(PLUMB_F32, &g, "multiply", x, 1.0);
}

/* f64 sum and product pools: NHWC 2x2 stride 2 (the channels-last rows),
 * 3x3 stride 2 padding 1 (border windows on the general loop), a window
 * along the innermost dimension with padding and window dilation, and
 * base dilation with padding; 7 channels. */
static void test_pools(void **state)
{
    (void)state;
    static double x[2 * 8 * 6 * 7];
    win g[4];
    memset(g, 0, sizeof g);
    for (int i = 0; i < 4; i++) {
        g[i].rank = 4;
        int64_t in[4] = {2, 8, 6, 7};
        for (int d = 0; d < 4; d++) g[i].in[d] = in[d], g[i].w[d] = g[i].s[d] = g[i].b[d] = g[i].wd[d] = 1;
    }
    g[0].w[1] = g[0].w[2] = g[0].s[1] = g[0].s[2] = 2;
    g[1].w[1] = g[1].w[2] = 3, g[1].s[1] = g[1].s[2] = 2, g[1].lo[1] = g[1].lo[2] = g[1].hi[1] = g[1].hi[2] = 1;
    g[2].w[3] = 3, g[2].wd[3] = 2, g[2].lo[3] = 2, g[2].hi[3] = 1, g[2].w[2] = 2;
    g[3].b[1] = 2, g[3].b[3] = 2, g[3].w[1] = 3, g[3].w[3] = 2, g[3].lo[1] = 1, g[3].hi[3] = 2, g[3].s[3] = 2;
    for (int kind = 0; kind < 2; kind++)
        for (int i = 0; i < 4; i++) {
            for (size_t e = 0; e < sizeof x / sizeof x[0]; e++) x[e] = kind ? prod_factor(700) : sum_term();
            for (int l = 0; l < 8; l++)   /* a known line along w of image 0, channel 0 */
                for (int q = 0; q < 6; q++) x[(l * 6 + q) * 7] = kind ? prod_lines[l][q] : sum_lines[l][q];
            check(PLUMB_F64, &g[i], kind ? "multiply" : "add", x, kind ? 1.0 : 0.0);
        }
    /* an init whose own folds overflow: padded positions add 2^1023 */
    for (size_t e = 0; e < sizeof x / sizeof x[0]; e++) x[e] = -sum_term();
    check(PLUMB_F64, &g[1], "add", x, 0x1p1023);
}

/* Products of f32, f16 and bf16 on the row loop: a 1-D window of 140
 * over 70 factors of 2^15 then 70 of 2^-15 (f16: 2^1050 in double before
 * it comes back to 1), stride 10, padding 30 each side; and 12-wide
 * windows of random powers of two. */
static void test_narrow_products(void **state)
{
    (void)state;
    static double x[300];
    win g;
    memset(&g, 0, sizeof g);
    g.rank = 1, g.in[0] = 300, g.w[0] = 140, g.s[0] = 10, g.b[0] = g.wd[0] = 1, g.lo[0] = g.hi[0] = 30;
    for (int i = 0; i < 300; i++) x[i] = i % 150 < 70 ? 0x1p15 : i % 150 < 140 ? 0x1p-15 : 3;
    check(PLUMB_F16, &g, "multiply", x, 1.0);
    check(PLUMB_BF16, &g, "multiply", x, 1.0);
    check(PLUMB_F32, &g, "multiply", x, 1.0);
    g.w[0] = 12, g.s[0] = 1, g.lo[0] = 3, g.hi[0] = 0;
    const plumb_dtype ts[3] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32};
    const int em[3] = {15, 126, 126};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 300; i++) x[i] = prod_factor(em[k]);
        check(ts[k], &g, "multiply", x, 1.0);
    }
}

/* f64 products on the row loop whose intermediates are subnormal: 3^20
 * times 2^-1100 loses 26 bits in double before 2^1000 brings it back
 * (windows of 4, stride 1, along the innermost dimension and along an
 * outer one, channels-last); and windows of 3 whose exact products round
 * to subnormals: 1.5, 1.25, 1.75, 0.75, 0.5 and -1.5 times 2^-1074 (ties
 * to even) and 3 x 2^-1074 exactly. */
static void test_subnormal_products(void **state)
{
    (void)state;
    static const double cyc[4] = {3486784401.0, 0x1p-600, 0x1p-500, 0x1p1000};
    double x[64 * 3];
    win g;
    memset(&g, 0, sizeof g);
    g.rank = 1, g.in[0] = 64, g.w[0] = 4, g.s[0] = g.b[0] = g.wd[0] = 1, g.hi[0] = 2;
    for (int i = 0; i < 64; i++) x[i] = cyc[i % 4];
    check(PLUMB_F64, &g, "multiply", x, 1.0);
    g.rank = 2, g.in[1] = 3, g.w[1] = g.s[1] = g.b[1] = g.wd[1] = 1, g.hi[0] = 0;   /* 64 x 3, window 4 x 1 */
    for (int i = 0; i < 64 * 3; i++) x[i] = cyc[(i / 3 + i % 3) % 4];
    check(PLUMB_F64, &g, "multiply", x, 1.0);
    static const double ties[8][3] = {{3, 0x1p-1000, 0x1p-75}, {5, 0x1p-1000, 0x1p-76}, {7, 0x1p-1000, 0x1p-76},
                                      {3, 0x1p-1000, 0x1p-76}, {1, 0x1p-1000, 0x1p-75}, {-3, 0x1p-1000, 0x1p-75},
                                      {3, 0x1p-1000, 0x1p-74}, {0x1p-1000, 0x1p-1000, 0x1p1000}};
    memset(&g, 0, sizeof g);
    g.rank = 1, g.in[0] = 24, g.w[0] = g.s[0] = 3, g.b[0] = g.wd[0] = 1;
    for (int i = 0; i < 24; i++) x[i] = ties[i / 3][i % 3];
    check(PLUMB_F64, &g, "multiply", x, 1.0);
}

/* Ordinary data (uniform, scaled by up to 2^7) keep the double fold:
 * the cumulative sum along the last dimension of 8 x 100 f64 is, bit for
 * bit, init then each element added in double in index order (the
 * documented order, computed here), at every ISA level and thread count. */
static void test_ordinary_data_keep_double_fold(void **state)
{
    (void)state;
    int64_t dims[2] = {8, 100};
    win g = cum(2, dims, 1, 0);
    char it[64];
    rt_ty(it, sizeof it, PLUMB_F64, 2, dims);
    static char prog[2048];
    snprintf(prog, sizeof prog,
             "func.func @main(%%x: %s, %%c: tensor<f64>) -> %s {\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{padding = dense<[[0, 0], [%lld, 0]]> : tensor<2x2xi64>, "
             "window_dimensions = array<i64: 1, %lld>}> ({\n"
             "  ^bb0(%%a: tensor<f64>, %%b: tensor<f64>):\n"
             "    %%m = stablehlo.add %%a, %%b : tensor<f64>\n"
             "    stablehlo.return %%m : tensor<f64>\n"
             "  }) : (%s, tensor<f64>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, it, (long long)g.lo[1], (long long)g.w[1], it, it, it);
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F64, 2, dims, false), rt_scalar_bits(PLUMB_F64, 0)};
    const double *x = in[0]->data;
    double want[800];
    for (int l = 0; l < 8; l++) {
        double s = 0;
        for (int i = 0; i < 100; i++) want[l * 100 + i] = s += x[l * 100 + i];
    }
    ir_module *m = rt_parse(prog);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *got;
            rt_exec_on(m, (plumb_isa)isa, th, in, 2, &got, 1);
            assert_memory_equal(got->data, want, sizeof want);
            plumb_tensor_free(got);
        }
    ir_module_free(m);
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
        cmocka_unit_test(test_cumulative_last),
        cmocka_unit_test(test_cumulative_inner),
        cmocka_unit_test(test_cumulative_f32_product),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_narrow_products),
        cmocka_unit_test(test_subnormal_products),
        cmocka_unit_test(test_ordinary_data_keep_double_fold),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
