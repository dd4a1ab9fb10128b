/* Reductions over leading and middle dimensions (runtime/k_reduce.c's
 * column paths: whole rows folded into a row of accumulators with the kept
 * dimension in the vector lanes, the kept columns split into strips that
 * the threads share) against the reference: every element type and
 * recognised body, ranks 2 to 4, leading, middle and several reduced dims,
 * kept widths that are not multiples of the vector width or of a strip, row
 * counts that are not multiples of the eight-row groups, 0-size dims; at
 * every ISA level the CPU has (rt_test.h forces portable, AVX2 and AVX-512
 * in turn) on 1 and 2 threads. */
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


typedef struct shape {
    uint32_t rank;
    int64_t dims[4];
    uint32_t nrd;
    int64_t rd[4];
} shape;

/* Leading, middle and several reduced dims; kept widths around the vector
 * widths (8 to 64 lanes) and the strips (256 columns of sums, 4 KiB of
 * accumulators of the exact folds: 2048 to 16384 columns) and partial
 * strips, row counts around the groups of eight; reduced dims between kept
 * ones (copied so that the innermost kept dims stay innermost); empty
 * dims. */
static const shape shapes[] = {
    {2, {7, 5}, 1, {0}},
    {2, {13, 64}, 1, {0}},
    {2, {9, 67}, 1, {0}},
    {2, {5, 1100}, 1, {0}},
    {2, {6, 4100}, 1, {0}},
    {2, {2, 300}, 1, {0}},
    {3, {4, 11, 33}, 1, {1}},
    {3, {3, 6, 530}, 1, {1}},
    {3, {5, 3, 17}, 2, {0, 1}},
    {3, {4, 3, 9}, 2, {0, 2}},
    {4, {3, 5, 4, 37}, 1, {0}},
    {4, {3, 5, 4, 37}, 2, {1, 2}},
    {4, {2, 3, 4, 70}, 3, {0, 1, 2}},
    {4, {3, 4, 2, 9}, 2, {0, 2}},
    {4, {3, 2, 5, 300}, 2, {0, 2}},
    {4, {2, 3, 1, 70}, 2, {0, 2}},
    {4, {4, 3, 5, 6}, 2, {1, 3}},
    {2, {9, 4200}, 1, {0}},
    {2, {3, 17000}, 1, {0}},
    {2, {0, 40}, 1, {0}},
    {2, {40, 0}, 1, {0}},
    {3, {3, 0, 20}, 1, {1}},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

static const plumb_dtype int_types[] = {PLUMB_I8,  PLUMB_I16,  PLUMB_I32,  PLUMB_I64, PLUMB_UI8,
                                        PLUMB_UI16, PLUMB_UI32, PLUMB_UI64, PLUMB_I1};
static const plumb_dtype float_types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

static unsigned width(plumb_dtype t) { return (unsigned)plumb_dtype_get(t)->bits; }

static void make_src(char *src, size_t cap, plumb_dtype t, const shape *s, const char *bop)
{
    char tin[256], tout[256], dl[64] = "";
    int64_t od[PLUMB_MAX_RANK];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < s->rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < s->nrd; i++) r |= s->rd[i] == (int64_t)d;
        if (!r) od[orank++] = s->dims[d];
    }
    size_t o = 0;
    for (uint32_t i = 0; i < s->nrd; i++)
        o += (size_t)snprintf(dl + o, sizeof dl - o, "%s%lld", i ? ", " : "", (long long)s->rd[i]);
    const char *tn = plumb_dtype_name(t);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
             "  %%r = stablehlo.reduce(%%x init: %%i) applies stablehlo.%s across dimensions = [%s] : (%s, tensor<%s>) -> %s\n"
             "  func.return %%r : %s\n}\n",
             rt_ty(tin, sizeof tin, t, s->rank, s->dims), tn, rt_ty(tout, sizeof tout, t, orank, od), bop, dl, tin,
             tn, tout, tout);
}

/* Every float special but NaN (zeros of both signs, infinities,
 * subnormals, the largest finite values) in about one element of five;
 * with nans, also quiet and signaling NaNs with payloads in about one of
 * 97. */
static void sprinkle(plumb_tensor *x, bool nans)
{
    plumb_dtype t = x->dtype;
    uint64_t n = plumb_tensor_numel(x);
    unsigned w = width(t);
    uint64_t sign = 1ull << (w - 1);
    uint64_t inf = t == PLUMB_F16 ? 0x7c00 : t == PLUMB_BF16 ? 0x7f80 : t == PLUMB_F32 ? 0x7f800000u
                                                                                      : 0x7ff0000000000000ull;
    uint64_t maxf = inf - 1, qnan = inf | (inf >> 1 & ~(inf >> 2) & (sign - 1)) | 3, snan = inf | 5;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        uint64_t b;
        if (nans && r % 97 == 0) b = (r & 256 ? qnan : snan) | (r & 512 ? sign : 0);
        else if (r % 5 == 0) {
            const uint64_t sp[] = {0, sign, inf, inf | sign, 1, 1 | sign, maxf, maxf | sign};
            b = sp[(r >> 8) % 8];
        } else continue;
        plumb_store_bits(t, x->data, i, b);
    }
}

/* Integer add, multiply, and, or, xor, max and min (i1's or/and/parity)
 * over every shape: the reference's bits exactly. */
static void test_int_cols(void **state)
{
    (void)state;
    static const char *ops[] = {"add", "multiply", "and", "or", "xor", "maximum", "minimum"};
    char src[2048];
    for (size_t ti = 0; ti < sizeof int_types / sizeof int_types[0]; ti++)
        for (size_t si = 0; si < NSHAPES; si++) {
            plumb_dtype t = int_types[ti];
            plumb_tensor *x = rt_rand_tensor(t, shapes[si].rank, shapes[si].dims, false);
            for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
                /* a non-identity init, so that it is folded in once */
                plumb_tensor *init = rt_scalar_bits(t, t == PLUMB_I1 ? (k == 1 || k == 2 || k == 6) : 5 + 2 * k);
                plumb_tensor *in[2] = {x, init};
                make_src(src, sizeof src, t, &shapes[si], ops[k]);
                rt_check_exact(src, in, 2);
                plumb_tensor_free(init);
            }
            plumb_tensor_free(x);
        }
}

/* Float max/min over every shape, with infinities, signed zeros,
 * subnormals and the extremes: without NaNs the reference's bits exactly
 * (-0 < +0 decided per column whatever the grouping of rows); with NaNs
 * (the vector loop hands the strip to the sequential one) a NaN exactly
 * where the reference has one and its bits elsewhere; a -inf / +inf and a
 * -0 init. */
static void test_float_maxmin_cols(void **state)
{
    (void)state;
    char src[2048];
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++)
        for (size_t si = 0; si < NSHAPES; si++)
            for (int nans = 0; nans < 2; nans++) {
                plumb_dtype t = float_types[ti];
                plumb_tensor *x = rt_rand_tensor(t, shapes[si].rank, shapes[si].dims, false);
                sprinkle(x, nans);
                for (int k = 0; k < 2; k++) {
                    uint64_t sign = 1ull << (width(t) - 1);
                    uint64_t inf = t == PLUMB_F16 ? 0x7c00 : t == PLUMB_BF16 ? 0x7f80
                                                           : t == PLUMB_F32  ? 0x7f800000u
                                                                             : 0x7ff0000000000000ull;
                    const uint64_t inits[2] = {k ? inf : inf | sign, sign};
                    for (int ii = 0; ii < 2; ii++) {
                        plumb_tensor *init = rt_scalar_bits(t, inits[ii]);
                        plumb_tensor *in[2] = {x, init};
                        make_src(src, sizeof src, t, &shapes[si], k ? "minimum" : "maximum");
                        if (nans) rt_check_exact_nan(src, in, 2);
                        else rt_check_exact(src, in, 2);
                        plumb_tensor_free(init);
                    }
                }
                plumb_tensor_free(x);
            }
}

/* Float sums over a leading dim of [rows, cols] inputs wide enough to span
 * several 256-column strips (and a partial one), rows over several sum
 * blocks: every column equals the documented order's model bit for bit at
 * every level on 1 and 2 threads (the strips do not change any column's
 * order), and lies within the data-dependent bound of the reference. */
static void test_sum_cols_order(void **state)
{
    (void)state;
    /* also rows below, at and past the 32 lanes of a block (lanes that get
     * no term, lanes with one or two terms) and kept widths around 128
     * columns and the 4096-column strips of sums */
    static const int64_t dims[][2] = {{5, 700},  {2100, 259}, {4099, 33}, {9, 1},   {1, 257},
                                      {31, 129}, {32, 4095},  {33, 4097}, {64, 130}, {65, 4096}};
    char src[2048];
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            plumb_dtype t = float_types[ti];
            shape s = {2, {dims[di][0], dims[di][1]}, 1, {0}};
            plumb_tensor *x = rt_rand_tensor(t, 2, s.dims, false);
            plumb_tensor *init = rt_scalar_bits(t, 0);
            plumb_tensor *in[2] = {x, init};
            make_src(src, sizeof src, t, &s, "add");
            ir_module *m = rt_parse(src);
            uint64_t rows = (uint64_t)s.dims[0], cols = (uint64_t)s.dims[1];
            double *v = malloc(sizeof(double) * rows);
            assert_non_null(v);
            uint64_t *want = malloc(sizeof(uint64_t) * cols);
            assert_non_null(want);
            for (uint64_t j = 0; j < cols; j++) {
                for (uint64_t i = 0; i < rows; i++) v[i] = plumb_load_f64(t, x->data, (size_t)(i * cols + j));
                want[j] = round_bits(t, 0.0 + model_sum(v, rows));
            }
            for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
                for (uint32_t th = 1; th <= 2; th++) {
                    plumb_tensor *got[RT_MAX_OUT];
                    rt_exec_on(m, (plumb_isa)isa, th, in, 2, got, 1);
                    for (uint64_t j = 0; j < cols; j++) {
                        uint64_t g = plumb_load_bits(t, got[0]->data, (size_t)j);
                        if (g != want[j])
                            fail_msg("%s [%llu, %llu] isa %d threads %u column %llu: got 0x%llx want 0x%llx",
                                     plumb_dtype_name(t), (unsigned long long)rows, (unsigned long long)cols, isa,
                                     th, (unsigned long long)j, (unsigned long long)g, (unsigned long long)want[j]);
                    }
                    plumb_tensor_free(got[0]);
                }
            rt_check_bound(src, in, 2, rows + 1, true);
            free(v);
            free(want);
            ir_module_free(m);
            plumb_tensor_free(init);
            plumb_tensor_free(x);
        }
}

/* Float sums over every shape: within the reference's data-dependent
 * bound, the same bits on 1 and 2 threads and at every level. */
static void test_sum_cols_bound(void **state)
{
    (void)state;
    char src[2048];
    for (size_t ti = 0; ti < sizeof float_types / sizeof float_types[0]; ti++)
        for (size_t si = 0; si < NSHAPES; si++) {
            plumb_dtype t = float_types[ti];
            const shape *s = &shapes[si];
            plumb_tensor *x = rt_rand_tensor(t, s->rank, s->dims, false);
            plumb_tensor *init = rt_scalar_bits(t, 1ull << (width(t) - 1));
            plumb_tensor *in[2] = {x, init};
            make_src(src, sizeof src, t, s, "add");
            uint64_t nterms = 1;
            for (uint32_t i = 0; i < s->nrd; i++) nterms *= (uint64_t)s->dims[s->rd[i]];
            rt_check_bound(src, in, 2, nterms + 1, true);
            plumb_tensor_free(init);
            plumb_tensor_free(x);
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
        cmocka_unit_test(test_int_cols),
        cmocka_unit_test(test_float_maxmin_cols),
        cmocka_unit_test(test_sum_cols_order),
        cmocka_unit_test(test_sum_cols_bound),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
