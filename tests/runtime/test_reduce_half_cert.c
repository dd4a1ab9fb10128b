/* f16/bf16 row sums certified in f32 (runtime/k_reduce.c, "certified half
 * sums in f32"): at the AVX-512 level a row's terms are summed in f32 with
 * an error bound, and the result is taken only when both ends of the
 * bound round to the same half value; other rows take the double paths.
 * The bits must be the reference's (the correctly rounded sum) at every
 * ISA level and in the fused row groups: random rows of every tail length
 * and value family, and hand-made rows whose exact sum lies just off a
 * half-type midpoint by less than the f32 sum can see (so the f32 sum
 * alone would tie to even onto the wrong side: the certificate must
 * refuse them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static uint64_t to_bits(plumb_dtype t, double v)
{
    return t == PLUMB_F16 ? plumb_f64_to_f16(v) : plumb_f64_to_bf16(v);
}

/* reduce add over the last dim of x; with neg, of -x (the negate fuses
 * with the sum into a row group at level 2: rt_fold_half_row) */
static void make_src(char *src, size_t cap, plumb_dtype t, int64_t rows, int64_t n, bool neg)
{
    const char *tn = plumb_dtype_name(t);
    char tx[64], neg_line[128];
    int64_t dims[2] = {rows, n};
    rt_ty(tx, sizeof tx, t, 2, dims);
    snprintf(neg_line, sizeof neg_line, "  %%y = stablehlo.negate %%x : %s\n", tx);
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> tensor<%lldx%s> {\n"
             "%s"
             "  %%r = stablehlo.reduce(%s init: %%i) applies stablehlo.add across dimensions = [1] : "
             "(%s, tensor<%s>) -> tensor<%lldx%s>\n"
             "  func.return %%r : tensor<%lldx%s>\n}\n",
             tx, tn, (long long)rows, tn, neg ? neg_line : "", neg ? "%y" : "%x", tx, tn, (long long)rows, tn,
             (long long)rows, tn);
}

/* families: 0 uniform [-1,1)·2^(0..7) (mixed signs, sums that partly
 * cancel); 1 positive 2^-24..1 (softmax's exponentials); 2 any finite
 * pattern (huge ranges: the double paths); 3 a few infinities and NaNs;
 * 4 signed zeros only; 5 nonnegative squares of family 0 (layer_norm) */
static plumb_tensor *family(plumb_dtype t, int64_t rows, int64_t n, int fam)
{
    int64_t dims[2] = {rows, n};
    plumb_tensor *x = rt_rand_tensor(t, 2, dims, false);
    uint64_t numel = plumb_tensor_numel(x);
    unsigned inf = t == PLUMB_F16 ? 0x7c00 : 0x7f80;
    for (uint64_t i = 0; i < numel; i++) {
        uint64_t r = rt_rand();
        double u = (double)(r >> 11) * 0x1p-53, v = (2 * u - 1) * (double)(1u << (r & 7));
        uint64_t b;
        switch (fam) {
        case 1: b = to_bits(t, ldexp(0.5 + u / 2, -(int)(r % 24))); break;
        case 2: b = r % inf | (r >> 40 & 0x8000); break;
        case 3: b = r % 97 == 0 ? (r % 3 == 0 ? inf | 0x8000 : r % 3 == 1 ? inf : inf | 0x41) : to_bits(t, v); break;
        case 4: b = r & 0x8000; break;
        case 5: b = to_bits(t, v * v / 8); break;
        default: b = to_bits(t, v); break;
        }
        plumb_store_bits(t, x->data, i, b);
    }
    return x;
}

/* Rows of every tail length around the 32- and 64-term steps, each family,
 * zero and nonzero inits, plain and fused: the reference's bits at every
 * ISA level, 1 and 2 threads (rt_check_exact_nan). */
static void test_rows_against_reference(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 2, 15, 31, 32, 33, 63, 64, 65, 97, 128, 255, 1000, 1024, 1029, 4099};
    const plumb_dtype ts[] = {PLUMB_BF16, PLUMB_F16};
    for (unsigned ti = 0; ti < 2; ti++)
        for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (int fam = 0; fam < 6; fam++)
                for (int neg = 0; neg < 2; neg++) {
                    char src[2048];
                    int64_t rows = lens[li] > 1000 ? 3 : 9;
                    make_src(src, sizeof src, ts[ti], rows, lens[li], neg);
                    uint64_t init = fam == 4 ? 0x8000 : neg ? to_bits(ts[ti], 1.5) : 0;
                    plumb_tensor *in[2] = {family(ts[ti], rows, lens[li], fam), rt_scalar_bits(ts[ti], init)};
                    rt_check_exact_nan(src, in, 2);
                    plumb_tensor_free(in[0]);
                    plumb_tensor_free(in[1]);
                }
}

/* Row v[0..k) padded with zeros (pattern pad) to n terms, placed at
 * position at (the program negates them when neg): the
 * runtime's bits at every level and the reference's must equal want. */
static void check_row(plumb_dtype t, const double *v, unsigned k, int64_t n, int64_t at, bool neg, uint64_t pad,
                      uint64_t want)
{
    char src[2048];
    make_src(src, sizeof src, t, 2, n, neg);
    int64_t dims[2] = {2, n};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, 2, dims, 0, &d);
    assert_non_null(x);
    for (int64_t r = 0; r < 2; r++)
        for (int64_t i = 0; i < n; i++) {
            int64_t j = (i - at + n) % n;   /* the terms from position at on, wrapping */
            uint64_t b = j < (int64_t)k ? to_bits(t, v[j]) : pad;
            plumb_store_bits(t, x->data, (uint64_t)(r * n + i), b);
        }
    plumb_tensor *in[2] = {x, rt_scalar_bits(t, 0)};
    ir_module *m = rt_parse(src);
    plumb_tensor *ref[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, in, 2, ref), 1);
    assert_int_equal(plumb_load_bits(t, ref[0]->data, 0), want);
    assert_int_equal(plumb_load_bits(t, ref[0]->data, 1), want);
    rt_outs_free(ref, 1);
    /* the runtime at every level the CPU has, levels 0 and 2 */
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t lvl = 0; lvl <= 2; lvl += 2) {
            plumb_tensor *o[RT_MAX_OUT];
            rt_exec_at(m, lvl, (plumb_isa)isa, 1, in, 2, o, 1, src);
            if (plumb_load_bits(t, o[0]->data, 0) != want || plumb_load_bits(t, o[0]->data, 1) != want)
                fprintf(stderr, "isa %d level %u n %lld at %lld neg %d: %#llx, want %#llx\n", isa, lvl, (long long)n,
                        (long long)at, neg, (unsigned long long)plumb_load_bits(t, o[0]->data, 0),
                        (unsigned long long)want);
            assert_int_equal(plumb_load_bits(t, o[0]->data, 0), want);
            assert_int_equal(plumb_load_bits(t, o[0]->data, 1), want);
            rt_outs_free(o, 1);
        }
    ir_module_free(m);
    plumb_tensor_free(x);
    plumb_tensor_free(in[1]);
}

/* Hand-derived. bf16 1 (0x3F80) has ulp 2^-7: 1 + 2^-8 is a midpoint,
 * ties to even (0x3F80); 2^-40 above it rounds up (0x3F81), below it down
 * (0x3F80). f32 cannot hold 1 + 2^-8 + 2^-40, so its sum lands on the
 * midpoint and would tie to even: wrong above it. Likewise 2^-30 (within
 * 2^-21 of the midpoint, inside the bound for the longer rows) and two
 * 2^-41 added one by one. f16 1 (0x3C00), ulp 2^-10: 1 + 2^-11 + 2^-24
 * (the smallest subnormal) rounds up (0x3C01); f32 holds 1 + 2^-11 but
 * 2^-24 is half its ulp at 1, so the f32 sum ties onto the midpoint. Far
 * from a midpoint the certificate decides: 1 + 2^-9 + 2^-40 gives 0x3F80
 * (bf16), 1 + 3·2^-12 gives 0x3C01 (f16). Negated rows give the same
 * bits with the sign set (the program negates before summing). Rows of 3
 * to 1029 terms, the terms at the start, the middle and wrapping the end,
 * padded with +0 or -0. */
static void test_near_midpoints_hand_derived(void **state)
{
    (void)state;
    const double b1[] = {1.0, 0x1p-8, 0x1p-40}, b2[] = {1.0, 0x1p-8, -0x1p-40}, b3[] = {0x1p-30, 1.0, 0x1p-8};
    const double b4[] = {0x1p-41, 1.0, 0x1p-41, 0x1p-8}, b5[] = {1.0, 0x1p-9, 0x1p-40}, b6[] = {1.0, 0x1p-8};
    const double f1[] = {1.0, 0x1p-11, 0x1p-24}, f2[] = {0x1p-24, 0x1p-11, -0x1p-24, 0x1p-24, 1.0};
    const double f3[] = {1.0, 0x1p-11, -0x1p-24}, f4[] = {1.0, 0x1p-12, 0x1p-11};
    static const int64_t lens[] = {5, 33, 64, 65, 1029};
    for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int64_t at = 0; at < lens[li]; at += lens[li] / 2 + 1)
            for (int neg = 0; neg < 2; neg++)
                for (uint64_t pad = 0; pad <= 0x8000; pad += 0x8000) {
                    int64_t n = lens[li];
                    uint64_t s = neg ? 0x8000 : 0;
                    check_row(PLUMB_BF16, b1, 3, n, at, neg, pad, 0x3F81 | s);
                    check_row(PLUMB_BF16, b2, 3, n, at, neg, pad, 0x3F80 | s);
                    check_row(PLUMB_BF16, b3, 3, n, at, neg, pad, 0x3F81 | s);
                    check_row(PLUMB_BF16, b4, 4, n, at, neg, pad, 0x3F81 | s);
                    check_row(PLUMB_BF16, b5, 3, n, at, neg, pad, 0x3F80 | s);
                    check_row(PLUMB_BF16, b6, 2, n, at, neg, pad, 0x3F80 | s);
                    check_row(PLUMB_F16, f1, 3, n, at, neg, pad, 0x3C01 | s);
                    check_row(PLUMB_F16, f2, 5, n, at, neg, pad, 0x3C01 | s);
                    check_row(PLUMB_F16, f3, 3, n, at, neg, pad, 0x3C00 | s);
                    check_row(PLUMB_F16, f4, 3, n, at, neg, pad, 0x3C01 | s);
                }
}

static double to_val(plumb_dtype t, uint64_t b)
{
    return t == PLUMB_F16 ? plumb_f16_to_f64((uint16_t)b) : plumb_bf16_to_f64((uint16_t)b);
}

/* The certificate's hard cases at scale: random rows whose exact sum is
 * moved next to a half-type rounding boundary (the midpoint m between the
 * rounding of the row's sum and its neighbour away from zero) by
 * correction terms at random positions: m - 2^-24, m, m + 2^-24 for f16
 * (2^-24: f16's smallest subnormal, below the f32 sum's resolution for
 * sums past 1), m ± 2^-12 ulp(m) and m for bf16. The terms are
 * layer_norm-like (zero-mean, ±2^-8..2^3 with full mantissas, so the f32
 * partial sums round), or positive (every partial sum large). A bound
 * that misses part of the f32 sum's rounding error certifies a rounding
 * onto the wrong side of m for some of them; the reference (exact) is
 * the oracle, at every ISA level, plain and fused. */
static void test_rows_next_to_boundaries(void **state)
{
    (void)state;
    static const int64_t lens[] = {33, 64, 1024, 1029, 4099};
    const plumb_dtype ts[] = {PLUMB_F16, PLUMB_BF16};
    for (unsigned ti = 0; ti < 2; ti++)
        for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (int pos = 0; pos < 2; pos++)
                for (int neg = 0; neg < 2; neg++) {
                    plumb_dtype t = ts[ti];
                    int64_t n = lens[li], rows = n > 1000 ? 24 : 60;
                    int64_t dims[2] = {rows, n};
                    plumb_tensor *x = rt_rand_tensor(t, 2, dims, false);
                    for (int64_t r = 0; r < rows; r++) {
                        int64_t slots[6];
                        unsigned ns = t == PLUMB_F16 ? 4 : 6;
                        for (unsigned k = 0; k < ns; k++)
                            slots[k] = (int64_t)(rt_rand() % (uint64_t)n);
                        double rest = 0.0;   /* exact: multiples of 2^-24 below 2^20 */
                        for (int64_t i = 0; i < n; i++) {
                            uint64_t q = rt_rand();
                            double u = (double)(q >> 11) * 0x1p-53;
                            double v = pos ? ldexp(1.0 + u, (int)(q % 12) - 8) : (2 * u - 1) * ldexp(1.0, (int)(q % 12) - 8);
                            uint64_t b = to_bits(t, v);
                            for (unsigned k = 0; k < ns; k++)
                                if (slots[k] == i)
                                    b = 0;
                            plumb_store_bits(t, x->data, (uint64_t)(r * n + i), b);
                            rest += to_val(t, b);
                        }
                        /* the boundary above |rest|'s rounding, with rest's sign */
                        uint64_t h = to_bits(t, fabs(rest));
                        double m = (to_val(t, h) + to_val(t, h + 1)) / 2, ulp = to_val(t, h + 1) - to_val(t, h);
                        if (rest < 0)
                            m = -m;
                        double off = t == PLUMB_F16 ? 0x1p-24 : ldexp(ulp, -12);
                        double want = m + (double)((int)(rt_rand() % 3) - 1) * off;
                        double c = want - rest;   /* split into half values, largest first */
                        for (unsigned k = 0; k < ns; k++) {
                            uint64_t b = to_bits(t, c);
                            c -= to_val(t, b);
                            /* a slot drawn twice keeps its last value: the row's sum just lands elsewhere */
                            plumb_store_bits(t, x->data, (uint64_t)(r * n + slots[k]), b);
                        }
                    }
                    char src[2048];
                    make_src(src, sizeof src, t, rows, n, neg);
                    plumb_tensor *in[2] = {x, rt_scalar_bits(t, 0)};
                    rt_check_exact_nan(src, in, 2);
                    plumb_tensor_free(in[0]);
                    plumb_tensor_free(in[1]);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_against_reference),
        cmocka_unit_test(test_near_midpoints_hand_derived),
        cmocka_unit_test(test_rows_next_to_boundaries),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return r;
}
