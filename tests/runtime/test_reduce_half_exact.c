/* f16/bf16 add reductions through the exact double path (runtime/k_reduce.c,
 * "exact half sums"): where the terms' range lets double adds be exact in
 * any order the runtime sums them in vector lanes (rows, columns, one long
 * row on the threads) and rounds once; elsewhere it falls back to the
 * compensated sum. Every case is compared with the reference bit for bit at
 * every ISA level on 1 and 2 threads, and the hand-made rows also with
 * hand-derived bits: sums on or next to a half-type midpoint whose
 * deciding term lies beyond double's 53 bits of the largest one (where a
 * double sum that were not exact would tie to even), on both sides of the
 * range test's boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static void make_src(char *src, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims, int64_t rd)
{
    char tin[128], tout[128];
    int64_t od[PLUMB_MAX_RANK];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < rank; d++)
        if ((int64_t)d != rd) od[orank++] = dims[d];
    const char *tn = plumb_dtype_name(t);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
             "  %%r = stablehlo.reduce(%%x init: %%i) applies stablehlo.add across dimensions = [%lld] : (%s, "
             "tensor<%s>) -> %s\n"
             "  func.return %%r : %s\n}\n",
             rt_ty(tin, sizeof tin, t, rank, dims), tn, rt_ty(tout, sizeof tout, t, orank, od), (long long)rd, tin, tn,
             tout, tout);
}

static uint64_t to_bits(plumb_dtype t, double v)
{
    return t == PLUMB_F16 ? plumb_f64_to_f16(v) : plumb_f64_to_bf16(v);
}

/* value families: 0 uniform [-1,1)·2^(0..7); 1 positive, 2^-24..1 (softmax
 * exponentials); 2 any finite pattern (the fallback); 3 a few infinities and
 * NaNs among family 0; 4 signed zeros only; 5 family 0 with one huge and one
 * tiny term per 500 (mixed) */
static plumb_tensor *family(plumb_dtype t, uint32_t rank, const int64_t *dims, int fam)
{
    plumb_tensor *x = rt_rand_tensor(t, rank, dims, true);   /* family 0 as it is */
    if (fam == 0) return x;
    uint64_t n = plumb_tensor_numel(x);
    unsigned inf = t == PLUMB_F16 ? 0x7c00 : 0x7f80;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        double u = (double)(r >> 11) * 0x1p-53;
        uint64_t b;
        switch (fam) {
        case 1: b = to_bits(t, ldexp(0.5 + u / 2, -(int)(r % 24))); break;
        case 2: b = r % inf | (r >> 40 & 0x8000); break;
        case 3: b = r % 97 == 0 ? (r % 3 == 0 ? inf | 0x8000 : r % 3 == 1 ? inf : inf | 0x41) : to_bits(t, (2 * u - 1) * 8); break;
        case 4: b = r & 0x8000; break;
        case 5:
            b = i % 500 == 7 ? to_bits(t, t == PLUMB_F16 ? 60000.0 : 0x1p100)
                : i % 500 == 250 ? to_bits(t, t == PLUMB_F16 ? 0x1p-24 : 0x1p-120) : to_bits(t, (2 * u - 1) * 4);
            break;
        default: b = to_bits(t, (2 * u - 1) * (double)(1u << (r & 7))); break;
        }
        plumb_store_bits(t, x->data, i, b);
    }
    return x;
}

static void check_case(plumb_dtype t, uint32_t rank, const int64_t *dims, int64_t rd, int fam, uint64_t init_bits)
{
    char src[1024];
    make_src(src, sizeof src, t, rank, dims, rd);
    plumb_tensor *in[2] = {family(t, rank, dims, fam), rt_scalar_bits(t, init_bits)};
    rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Rows of every tail length around the 16-, 32- and 64-wide vector steps and
 * longer ones, each value family, zero and nonzero inits. */
static void test_rows_against_reference(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97, 100, 127, 128, 1024, 1029};
    plumb_dtype ts[] = {PLUMB_BF16, PLUMB_F16};
    for (unsigned ti = 0; ti < 2; ti++)
        for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (int fam = 0; fam < 6; fam++) {
                int64_t dims[2] = {5, lens[li]};
                /* f16 rows this short are exact in double anyway: longer ones
                 * reach the range test */
                if (ts[ti] == PLUMB_F16) dims[1] = 8192 + lens[li];
                check_case(ts[ti], 2, dims, 1, fam, 0x8000);
                check_case(ts[ti], 2, dims, 1, fam, to_bits(ts[ti], 1.5));
            }
}

/* Column sums (a leading dim reduced), widths off the vector widths. */
static void test_columns_against_reference(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{3, 45}, {37, 33}, {300, 130}, {1000, 7}};
    for (unsigned si = 0; si < 4; si++)
        for (int fam = 0; fam < 6; fam++) {
            int64_t bd[2] = {shapes[si][0], shapes[si][1]};
            check_case(PLUMB_BF16, 2, bd, 0, fam, 0x8000);
            int64_t fd[2] = {shapes[si][0] + 8192, shapes[si][1] % 20 + 1};
            check_case(PLUMB_F16, 2, fd, 0, fam, to_bits(PLUMB_F16, -2.0));
        }
}

/* One long row: its blocks summed on the threads (and the fallback). */
static void test_long_row_against_reference(void **state)
{
    (void)state;
    static const int64_t lens[] = {8193, 20000, 65536 + 17};
    for (unsigned li = 0; li < 3; li++)
        for (int fam = 0; fam < 6; fam++) {
            int64_t d1[1] = {lens[li]};
            check_case(PLUMB_BF16, 1, d1, 0, fam, 0x8000);
            check_case(PLUMB_F16, 1, d1, 0, fam, to_bits(PLUMB_F16, 0.25));
        }
}

/* terms v[0..k) padded with +0 to n, init 0; the runtime's and the
 * reference's bits must both be want */
static void check_row(plumb_dtype t, const double *v, unsigned k, int64_t n, uint64_t want)
{
    char src[1024];
    int64_t dims[1] = {n};
    make_src(src, sizeof src, t, 1, dims, 0);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, 1, dims, 0, &d);
    assert_non_null(x);
    for (int64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (uint64_t)i, (uint64_t)i < k ? to_bits(t, v[i]) : 0);
    plumb_tensor *in[2] = {x, rt_scalar_bits(t, 0)};
    ir_module *m = rt_parse(src);
    plumb_tensor *ref[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, in, 2, ref), 1);
    assert_int_equal(plumb_load_bits(t, ref[0]->data, 0), want);
    rt_outs_free(ref, 1);
    ir_module_free(m);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(x);
    plumb_tensor_free(in[1]);
}

/* bf16 2^40 (0x5380) has ulp 2^33, so 2^40 + 2^32 is a midpoint: exactly
 * on it the sum ties to even (0x5380), a 2^-20 above it rounds up
 * (0x5381), below it down. Double cannot hold 2^40 + 2^32 + 2^-20, so the
 * range test must send these rows to the compensated sum; with 2^-10 in
 * place of 2^-20 (58 bits) likewise, and with 2^8 (33 bits) the double
 * sum of 3 terms is exact (of 9000 it is past the test again). 2^-13 is
 * half an ulp of 2^40 in double: a double sum would tie to even onto the
 * midpoint (a range test 10 bits too lax lets that happen), as would the
 * two 2^-14 added one by one. f16 2048 (0x6800, ulp 2): 2048 + 1 + 2^-24 rounds up
 * (0x6801) over 9000 terms, within the range test (35 bits); 32768
 * (0x7800, ulp 32) + 16 + 2^-24 over 9000 terms is past it (45 + 14 > 44
 * bits) and also rounds up (0x7801). */
static void test_midpoints_hand_derived(void **state)
{
    (void)state;
    const double b1[] = {0x1p40, 0x1p32, 0x1p-20}, b2[] = {0x1p40, 0x1p32}, b3[] = {0x1p40, 0x1p32, -0x1p-20};
    const double b4[] = {0x1p-10, 0x1p32, 0x1p40}, b5[] = {0x1p40, 0x1p8, 0x1p32};
    const double b6[] = {0x1p40, 0x1p32, 0x1p-13}, b7[] = {0x1p40, 0x1p32, 0x1p-14, 0x1p-14};
    for (int64_t n = 3; n <= 9000; n += 8997) {
        check_row(PLUMB_BF16, b1, 3, n, 0x5381);
        check_row(PLUMB_BF16, b2, 2, n, 0x5380);
        check_row(PLUMB_BF16, b3, 3, n, 0x5380);
        check_row(PLUMB_BF16, b4, 3, n, 0x5381);
        check_row(PLUMB_BF16, b5, 3, n, 0x5381);
        check_row(PLUMB_BF16, b6, 3, n, 0x5381);
        check_row(PLUMB_BF16, b7, 4, n, 0x5381);
    }
    const double f1[] = {2048, 1, 0x1p-24}, f2[] = {2048, 1}, f3[] = {32768, 16, 0x1p-24}, f4[] = {-0x1p-24, 32768, 16};
    check_row(PLUMB_F16, f1, 3, 9000, 0x6801);
    check_row(PLUMB_F16, f2, 2, 9000, 0x6800);
    check_row(PLUMB_F16, f3, 3, 9000, 0x7801);
    check_row(PLUMB_F16, f4, 3, 9000, 0x7800);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_against_reference),
        cmocka_unit_test(test_columns_against_reference),
        cmocka_unit_test(test_long_row_against_reference),
        cmocka_unit_test(test_midpoints_hand_derived),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return r;
}
