/* Integer and i1 dot_general/dot and transpose against the reference, bit
 * for bit, at every ISA level the CPU has and on 1 and 2 threads: integer
 * dots that wrap around, MIN/MAX operands, mixed operand and result types,
 * edge shapes around the register tiles, batch dims and contracting dims
 * in different positions; transposes of 1-, 2-, 4- and 8-byte elements
 * (random bits: NaN payloads included), ranks 2 to 4, odd sizes and every
 * permutation of rank 3. */
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

/* Every element arbitrary bits (i1: 0 or 1). */
static plumb_tensor *rand_bits(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        plumb_store_bits(t, x->data, i, t == PLUMB_I1 ? r & 1 : r);
    }
    return x;
}

/* Elements drawn from the type's extremes and small values: MIN, MAX,
 * MIN+1, MAX-1, -1, 0, 1 (the unsigned types' all-ones is their MAX). */
static plumb_tensor *extremes(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_tensor *x = rt_rand_tensor(t, rank, dims, false);
    unsigned bits = plumb_dtype_get(t)->bits;
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool sgn = plumb_dtype_is_signed(t);
    uint64_t mn = sgn ? 1ull << (bits - 1) : 0, mx = sgn ? mn - 1 : ones;
    uint64_t pick[7] = {mn, mx, mn + 1, mx - 1, ones, 0, 1};
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, i, pick[rt_rand() % 7] & ones);
    return x;
}

static void dot_run(const char *dims_attr, plumb_dtype lt, uint32_t lr, const int64_t *ld, plumb_dtype rt_,
                    uint32_t rr, const int64_t *rd, plumb_dtype ot, uint32_t orank, const int64_t *od, bool ext)
{
    char a[128], b[128], o[128], src[1024];
    rt_ty(a, sizeof a, lt, lr, ld);
    rt_ty(b, sizeof b, rt_, rr, rd);
    rt_ty(o, sizeof o, ot, orank, od);
    if (dims_attr)
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                 "  %%r = stablehlo.dot_general %%a, %%b, %s : (%s, %s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 a, b, o, dims_attr, a, b, o, o);
    else
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
                 "  %%r = stablehlo.dot %%a, %%b : (%s, %s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 a, b, o, a, b, o, o);
    plumb_tensor *in[2] = {ext ? extremes(lt, lr, ld) : rand_bits(lt, lr, ld),
                           ext ? extremes(rt_, rr, rd) : rand_bits(rt_, rr, rd)};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* [m, k] x [k, n] -> [m, n] with one contracting dim. */
static void matmul(plumb_dtype lt, plumb_dtype rt_, plumb_dtype ot, int64_t m, int64_t n, int64_t k, bool ext)
{
    int64_t ld[2] = {m, k}, rd[2] = {k, n}, od[2] = {m, n};
    dot_run("contracting_dims = [1] x [0]", lt, 2, ld, rt_, 2, rd, ot, 2, od, ext);
}

static const plumb_dtype ints[] = {PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64,
                                   PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};

/* Every integer type with itself, on random bits: sums wrap modulo 2^bits. */
static void test_int_dot_every_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) matmul(ints[i], ints[i], ints[i], 13, 37, 21, false);
    matmul(PLUMB_I1, PLUMB_I1, PLUMB_I1, 13, 37, 21, false);
}

/* Mixed operand and result types: operands sign- or zero-extended by their
 * own type, the sum wrapped to the result's width; i1 results are the OR of
 * the operands' low bits ANDed. */
static void test_int_dot_mixed_types(void **state)
{
    (void)state;
    matmul(PLUMB_I8, PLUMB_I32, PLUMB_I32, 9, 20, 11, false);
    matmul(PLUMB_UI8, PLUMB_I8, PLUMB_I16, 9, 20, 11, false);
    matmul(PLUMB_I64, PLUMB_I8, PLUMB_I8, 9, 20, 11, false);
    matmul(PLUMB_I8, PLUMB_I8, PLUMB_I64, 9, 20, 11, false);
    matmul(PLUMB_UI32, PLUMB_I16, PLUMB_UI64, 9, 20, 11, false);
    matmul(PLUMB_I1, PLUMB_I32, PLUMB_I32, 9, 20, 11, false);
    matmul(PLUMB_I32, PLUMB_UI16, PLUMB_I1, 9, 20, 11, false);
    matmul(PLUMB_I64, PLUMB_UI64, PLUMB_UI32, 9, 20, 11, false);
}

/* MIN, MAX, MIN+1, MAX-1, -1, 0, 1 operands: products and sums overflow. */
static void test_int_dot_extremes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) matmul(ints[i], ints[i], ints[i], 7, 19, 33, true);
    matmul(PLUMB_I8, PLUMB_I8, PLUMB_I32, 7, 19, 33, true);
    matmul(PLUMB_I32, PLUMB_I32, PLUMB_I64, 7, 19, 33, true);
}

/* Shapes from 1x1x1 to 70x33x129: every tail of the register tiles (4, 6
 * rows; 8, 16, 32 columns) and of the k blocks. */
static void test_int_dot_shapes(void **state)
{
    (void)state;
    const int64_t s[][3] = {{1, 1, 1}, {1, 5, 1}, {5, 1, 1}, {1, 1, 9}, {6, 32, 1}, {7, 33, 2},
                            {13, 17, 129}, {70, 33, 129}, {4, 16, 257}, {25, 65, 3}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        matmul(PLUMB_I32, PLUMB_I32, PLUMB_I32, s[i][0], s[i][1], s[i][2], false);
        matmul(PLUMB_I8, PLUMB_I8, PLUMB_I8, s[i][0], s[i][1], s[i][2], false);
    }
    matmul(PLUMB_I64, PLUMB_I64, PLUMB_I64, 70, 33, 129, false);
    matmul(PLUMB_I1, PLUMB_I1, PLUMB_I1, 70, 33, 129, false);
}

/* Batching and contracting dims in different positions, several free and
 * contracting dims (rhs rows cross panel boundaries), transposed operands,
 * outer products, rank-0 results and stablehlo.dot. */
static void test_int_dot_dims(void **state)
{
    (void)state;
    const plumb_dtype ts[] = {PLUMB_I32, PLUMB_I8, PLUMB_UI64, PLUMB_I1};
    for (size_t t = 0; t < sizeof ts / sizeof ts[0]; t++) {
        plumb_dtype T = ts[t];
        int64_t l1[4] = {3, 5, 2, 7}, r1[4] = {7, 3, 4, 2}, o1[3] = {3, 5, 4};
        dot_run("batching_dims = [0] x [1], contracting_dims = [3, 2] x [0, 3]", T, 4, l1, T, 4, r1, T, 3, o1, false);
        int64_t l2[3] = {4, 33, 70}, r2[3] = {4, 70, 40}, o2[3] = {4, 33, 40};
        dot_run("batching_dims = [0] x [0], contracting_dims = [2] x [1]", T, 3, l2, T, 3, r2, T, 3, o2, false);
        int64_t l3[2] = {70, 33}, r3[2] = {40, 70}, o3[2] = {33, 40};
        dot_run("contracting_dims = [0] x [1]", T, 2, l3, T, 2, r3, T, 2, o3, false);
        int64_t l4[3] = {6, 9, 5}, r4[4] = {4, 9, 7, 5}, o4[4] = {5, 6, 4, 7};
        dot_run("batching_dims = [2] x [3], contracting_dims = [1] x [1]", T, 3, l4, T, 4, r4, T, 4, o4, false);
        int64_t l5[2] = {3, 4}, r5[2] = {5, 6}, o5[4] = {3, 4, 5, 6};
        dot_run("contracting_dims = [] x []", T, 2, l5, T, 2, r5, T, 4, o5, false);
        int64_t v[1] = {1000};
        dot_run("contracting_dims = [0] x [0]", T, 1, v, T, 1, v, T, 0, NULL, false);
        int64_t l6[2] = {17, 30}, r6[1] = {30}, o6[1] = {17};
        dot_run(NULL, T, 2, l6, T, 1, r6, T, 1, o6, false);
        int64_t l7[1] = {30}, r7[2] = {30, 19}, o7[1] = {19};
        dot_run(NULL, T, 1, l7, T, 2, r7, T, 1, o7, false);
        int64_t l8[2] = {3, 0}, r8[2] = {0, 4}, o8[2] = {3, 4};
        dot_run("contracting_dims = [1] x [0]", T, 2, l8, T, 2, r8, T, 2, o8, false);
    }
}

/* ---- transpose -------------------------------------------------------------- */

static void transpose_case(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *perm)
{
    int64_t od[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++) od[i] = dims[perm[i]];
    char a[128], o[128], p[64], src[1024];
    rt_ty(a, sizeof a, t, rank, dims);
    rt_ty(o, sizeof o, t, rank, od);
    size_t n = 0;
    for (uint32_t i = 0; i < rank; i++) n += (size_t)snprintf(p + n, sizeof p - n, "%s%lld", i ? ", " : "", (long long)perm[i]);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s) -> %s {\n"
             "  %%r = stablehlo.transpose %%a, dims = [%s] : (%s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             a, o, p, a, o, o);
    plumb_tensor *in[1] = {rand_bits(t, rank, dims)};
    rt_check_exact(src, in, 1);
    plumb_tensor_free(in[0]);
}

static const plumb_dtype sizes[] = {PLUMB_I8, PLUMB_I1, PLUMB_BF16, PLUMB_F16, PLUMB_F32, PLUMB_I32, PLUMB_F64, PLUMB_UI64};

/* Rank 2, every element size: odd sizes around the 4x4, 8x8 and cache
 * tiles, and 1023 rows or columns. */
static void test_transpose_rank2(void **state)
{
    (void)state;
    const int64_t s[][2] = {{1, 1}, {1, 7}, {7, 1}, {7, 17}, {17, 7}, {8, 8}, {16, 16}, {33, 65},
                            {64, 64}, {1023, 17}, {17, 1023}, {1, 1023}, {130, 257}};
    int64_t perm[2] = {1, 0};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++)
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) transpose_case(sizes[t], 2, s[i], perm);
    int64_t big[2] = {1023, 1023};
    transpose_case(PLUMB_F32, 2, big, perm);
    transpose_case(PLUMB_F64, 2, big, perm);
}

/* Every permutation of rank 3, every element size, including size-1 and
 * odd extents. */
static void test_transpose_rank3_all_perms(void **state)
{
    (void)state;
    const int64_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int64_t s[][3] = {{7, 17, 9}, {1, 17, 33}, {19, 1, 23}, {18, 40, 1}, {3, 65, 66}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++)
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
            for (int p = 0; p < 6; p++) transpose_case(sizes[t], 3, s[i], perms[p]);
}

/* Rank 4: all 24 permutations for 4-byte elements, a sample for the other
 * sizes. */
static void test_transpose_rank4(void **state)
{
    (void)state;
    int64_t dims[4] = {3, 9, 7, 17};
    int64_t p[4];
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                if (a == b || a == c || b == c) continue;
                p[0] = a; p[1] = b; p[2] = c; p[3] = 6 - a - b - c;
                transpose_case(PLUMB_F32, 4, dims, p);
            }
    const int64_t sample[3][4] = {{3, 2, 1, 0}, {0, 3, 1, 2}, {1, 3, 0, 2}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++)
        for (int i = 0; i < 3; i++) transpose_case(sizes[t], 4, dims, sample[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_dot_every_type),
        cmocka_unit_test(test_int_dot_mixed_types),
        cmocka_unit_test(test_int_dot_extremes),
        cmocka_unit_test(test_int_dot_shapes),
        cmocka_unit_test(test_int_dot_dims),
        cmocka_unit_test(test_transpose_rank2),
        cmocka_unit_test(test_transpose_rank3_all_perms),
        cmocka_unit_test(test_transpose_rank4),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return r;
}
