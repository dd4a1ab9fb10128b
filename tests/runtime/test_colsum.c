/* runtime/k_colsum.c: float column sums in strips of columns, each lane's
 * rows read a strip row at a time, checked bit for bit, before the final rounding, against
 * sum_model.h's model of the documented order (written from the docs, not
 * from the kernels), at every vector level the CPU has. The terms have
 * random signs and exponents over 2^-40..2^40, so any other lane
 * assignment, fold tree or operand grouping gives other bits (the test
 * checks that a swapped fold does differ). The end-to-end reduce through
 * these loops is checked by test_reduce_cols' test_sum_cols_order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/runtime.h"
#include "../../runtime/rt_colsum.h"
#include "runtime/sum_model.h"

/* The best level the CPU has (the kernels cap a level the same way). */
static int hw_level(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return PLUMB_ISA_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return PLUMB_ISA_AVX2;
#endif
    return PLUMB_ISA_PORTABLE;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A term whose exponent and sign are random: sums of these depend on order. */
static double wild(void)
{
    uint64_t r = rng_next();
    double m = 1.0 + (double)(r >> 40) / (double)(1ull << 24);
    int e = (int)((r >> 8) % 81) - 40;
    return ((r & 1) ? -1.0 : 1.0) * ldexp(m, e);
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Checks rt_colsum_block on rows x inner columns (rows `stride` apart) of
 * f32 or f64 at level lv against the model; returns the mismatches. */
static unsigned check_block(bool f64, uint64_t rows, uint64_t inner, uint64_t stride, int lv, const double *special,
                            size_t nspecial)
{
    size_t n = (size_t)(rows * stride);
    void *base = malloc(n * (f64 ? 8 : 4) + 64);
    double *out = malloc(sizeof(double) * (size_t)inner), *col = malloc(sizeof(double) * (size_t)rows);
    assert_true(base && out && col);
    for (size_t i = 0; i < n; i++) {
        double v = nspecial && rng_next() % 7 == 0 ? special[rng_next() % nspecial] : wild();
        if (f64) ((double *)base)[i] = v;
        else ((float *)base)[i] = (float)v;
    }
    unsigned bad = 0;
    if (!rt_colsum_block(f64, base, rows, stride, inner, out, lv)) {
        fail_msg("rt_colsum_block refused level %d", lv);
    }
    for (uint64_t j = 0; j < inner; j++) {
        for (uint64_t r = 0; r < rows; r++)
            col[r] = f64 ? ((double *)base)[r * stride + j] : (double)((float *)base)[r * stride + j];
        double want = model_sum(col, rows);
        bool same = bits_of(want) == bits_of(out[j]) || (isnan(want) && isnan(out[j]));
        if (!same && bad++ < 3)
            print_error("f%d rows %llu col %llu level %d: got %a, want %a\n", f64 ? 64 : 32, (unsigned long long)rows,
                        (unsigned long long)j, lv, out[j], want);
    }
    free(base);
    free(out);
    free(col);
    return bad;
}

/* Every shape class: fewer rows than lanes, exactly 32 and 64, uneven,
 * a whole block of 2048; column counts below, at and past the 8 and 16
 * column groups; rows wider than the block's columns (a strip). */
static void test_colsum_matches_model(void **state)
{
    (void)state;
    static const uint64_t rows[] = {1, 2, 3, 17, 31, 32, 33, 63, 64, 65, 100, 2048};
    static const uint64_t cols[] = {1, 7, 8, 9, 15, 16, 17, 31, 33, 64};
    for (int lv = PLUMB_ISA_AVX2; lv <= hw_level(); lv++)
        for (int f = 0; f < 2; f++)
            for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
                for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
                    uint64_t stride = cols[ci] + (ri % 3) * 5;   /* 0, 5 or 10 columns not summed */
                    assert_int_equal(check_block(f == 1, rows[ri], cols[ci], stride, lv, NULL, 0), 0);
                }
}

/* The strips of 256 columns: widths just below, at and past one and two
 * strips and the 16- and 8-column chunks inside them (so the last strip is
 * whole, partial, or only scalar columns), rows that leave lanes empty,
 * give each lane one, two or three rows (a visit of two rows then one) or
 * fill a block, and rows much wider than the summed columns. */
static void test_colsum_strips(void **state)
{
    (void)state;
    static const uint64_t rows[] = {1, 2, 63, 64, 65, 2048};
    static const uint64_t cols[] = {255, 256, 257, 264, 271, 272, 511, 512, 520, 527};
    for (int lv = PLUMB_ISA_AVX2; lv <= hw_level(); lv++)
        for (int f = 0; f < 2; f++)
            for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
                for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
                    if (rows[ri] == 2048 && cols[ci] != 257 && cols[ci] != 520)
                        continue;   /* a full block at two widths keeps the test short */
                    uint64_t stride = cols[ci] + 300 + ci * 16;
                    assert_int_equal(check_block(f == 1, rows[ri], cols[ci], stride, lv, NULL, 0), 0);
                }
}

/* NaN, infinities of both signs, -0 and +0 mixed in: the same adds give the
 * same NaN-ness, the same infinities and the same zero signs; a column of
 * -0 only stays -0. */
static void test_colsum_specials(void **state)
{
    (void)state;
    const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 0x1p-1074, -0x1p1023, 0x1p1023};
    for (int lv = PLUMB_ISA_AVX2; lv <= hw_level(); lv++)
        for (int f = 0; f < 2; f++) {
            assert_int_equal(check_block(f == 1, 64, 40, 40, lv, sp, sizeof sp / sizeof sp[0]), 0);
            assert_int_equal(check_block(f == 1, 5, 17, 20, lv, sp + 3, 2), 0);
            assert_int_equal(check_block(f == 1, 65, 280, 300, lv, sp, sizeof sp / sizeof sp[0]), 0);
            double zeros[24 * 18];
            for (size_t i = 0; i < 24 * 18; i++) zeros[i] = -0.0;
            double out[18];
            assert_true(rt_colsum_block(true, zeros, 24, 18, 18, out, lv));
            for (int j = 0; j < 18; j++) assert_true(out[j] == 0 && signbit(out[j]));
        }
}

/* The terms do tell orders apart: a sequential sum of the same 64 terms
 * differs from the model's in most columns, so a kernel with another order
 * cannot pass test_colsum_matches_model by luck. */
static void test_colsum_order_is_visible(void **state)
{
    (void)state;
    unsigned differ = 0;
    for (int c = 0; c < 64; c++) {
        double v[64], sequential = -0.0;
        for (int r = 0; r < 64; r++) v[r] = wild();
        for (int r = 0; r < 64; r++) sequential += v[r];
        if (bits_of(sequential) != bits_of(model_sum(v, 64)))
            differ++;
    }
    assert_true(differ > 32);
}

/* Levels without such a loop refuse, so k_reduce.c keeps its own. */
static void test_colsum_refuses(void **state)
{
    (void)state;
    double d[4] = {1, 2, 3, 4}, out[4];
    assert_false(rt_colsum_block(true, d, 1, 4, 4, out, PLUMB_ISA_PORTABLE));
    assert_false(rt_colsum_block(true, d, 0, 4, 4, out, hw_level()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colsum_matches_model),
        cmocka_unit_test(test_colsum_strips),
        cmocka_unit_test(test_colsum_specials),
        cmocka_unit_test(test_colsum_order_is_visible),
        cmocka_unit_test(test_colsum_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
