/* Transposes through the register tiles of runtime/k_movement.c (2x2,
 * 4x4, 8x8 and 16x16 tiles and the scalar loops, by element size and ISA
 * level) for 1-, 2-, 4-, 8- and 16-byte (complex<f64>) elements: sides below, at and past
 * every tile width, 2-d to 4-d permutations with the source's contiguous
 * dim anywhere, and results past 8 MiB whose rows are and are not whole
 * 64-byte lines (panels over many pages). Each is compared with the
 * reference bit for bit (a transpose moves bits) at every ISA level on 1
 * and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/rt_test.h"

static void check_transpose(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *perm)
{
    char src[1024], ta[128], tr[128], pl[64];
    int64_t rd[PLUMB_MAX_RANK];
    size_t o = 0;
    for (uint32_t i = 0; i < rank; i++) {
        rd[i] = dims[perm[i]];
        o += (size_t)snprintf(pl + o, sizeof pl - o, "%s%lld", i ? ", " : "", (long long)perm[i]);
    }
    rt_ty(ta, sizeof ta, t, rank, dims);
    rt_ty(tr, sizeof tr, t, rank, rd);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s) -> %s {\n"
             "  %%r = stablehlo.transpose %%a, dims = [%s] : (%s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             ta, tr, pl, ta, tr, tr);
    plumb_tensor *a;
    if (t == PLUMB_C128) {   /* ordinary complex values: random components in [-1, 1) */
        plumb_diag dg;
        memset(&dg, 0, sizeof dg);
        a = plumb_tensor_new(t, rank, dims, 0, &dg);
        assert_non_null(a);
        double *v = a->data;
        for (uint64_t i = 0; i < 2 * plumb_tensor_numel(a); i++) v[i] = (double)(rt_rand() >> 11) * 0x1p-52 - 1;
    } else {
        a = rt_rand_tensor(t, rank, dims, false);
    }
    rt_check_exact(src, &a, 1);
    plumb_tensor_free(a);
}

static const plumb_dtype types[] = {PLUMB_I8, PLUMB_BF16, PLUMB_F32, PLUMB_I32, PLUMB_F64, PLUMB_I64, PLUMB_C128};

/* Small shapes: sides of 1, below, at and past the 8 and 16 tile widths. */
static void test_small_shapes(void **state)
{
    (void)state;
    static const int64_t sides[] = {1, 7, 8, 9, 16, 17, 33, 64, 100};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (size_t i = 0; i < sizeof sides / sizeof *sides; i++)
            for (size_t j = 0; j < sizeof sides / sizeof *sides; j += 2) {
                int64_t d[2] = {sides[i], sides[j]}, p[2] = {1, 0};
                check_transpose(types[k], 2, d, p);
            }
}

/* Rank 3 and 4 permutations, the contiguous source dim anywhere. */
static void test_higher_ranks(void **state)
{
    (void)state;
    static const int64_t p3[][3] = {{2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    static const int64_t p4[][4] = {{0, 2, 1, 3}, {3, 2, 1, 0}, {0, 3, 1, 2}, {2, 3, 0, 1}};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        int64_t d3[3] = {5, 33, 48};
        for (size_t i = 0; i < 5; i++) check_transpose(types[k], 3, d3, p3[i]);
        int64_t d4[4] = {3, 17, 16, 24};
        for (size_t i = 0; i < 4; i++) check_transpose(types[k], 4, d4, p4[i]);
    }
}

/* Past 8 MiB: destination rows that are whole lines and rows that are not. */
static void test_large(void **state)
{
    (void)state;
    int64_t p2[2] = {1, 0}, p3[3] = {2, 0, 1};
    int64_t a32[2] = {1600, 1536}, u32[2] = {1601, 1531};
    check_transpose(PLUMB_F32, 2, a32, p2);
    check_transpose(PLUMB_F32, 2, u32, p2);
    int64_t a64[2] = {1000, 1152}, u64[2] = {1100, 1001};
    check_transpose(PLUMB_F64, 2, a64, p2);
    check_transpose(PLUMB_I64, 2, u64, p2);
    int64_t c3[3] = {128, 144, 128};
    check_transpose(PLUMB_F32, 3, c3, p3);
    int64_t h2[2] = {2048, 2112};
    check_transpose(PLUMB_BF16, 2, h2, p2);
    int64_t b2[2] = {3072, 3008};
    check_transpose(PLUMB_I8, 2, b2, p2);
    int64_t c2[2] = {700, 803};
    check_transpose(PLUMB_C128, 2, c2, p2);
}

/* Blocks of 64 source rows and panels of 1 KiB along the source rows
 * (256 / es rows and 256-element panels for 1- and 2-byte elements),
 * shifted to start where each side is 64-byte aligned: per element size,
 * source rows of a whole number of lines (1216 bytes: the panel start
 * moves to the first aligned element, a narrow head panel before it) and
 * of 1024 bytes + 13 elements (no shift, a 13-element tail panel), and
 * destination rows of 448 bytes (7 lines, blocks shifted by the output's
 * offset in its line, a narrow head block). Inputs and outputs past
 * 128 KiB come from mmap, 16 bytes past a page, so the shifts are not 0.
 * An outer dim of 3 moves the bases between blocks. */
static void test_panel_edges(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        int64_t es = (int64_t)plumb_dtype_size(types[k]);
        int64_t nb = 448 / es, a_lines = 1216 / es, a_odd = 1024 / es + 13;
        int64_t p[3] = {0, 2, 1};
        int64_t d1[3] = {3, nb, a_lines}, d2[3] = {3, nb, a_odd};
        check_transpose(types[k], 3, d1, p);
        check_transpose(types[k], 3, d2, p);
    }
}

/* Permutations that keep the innermost dim (row copies whose sources are
 * far apart, prefetched ahead through an odometer over the outer dims):
 * every element size, row lengths of 1, odd and past a line, odometer
 * carries across several dims, chunks starting mid-row-block on 2 threads,
 * and results past 8 MiB with short rows (cached stores, prefetched) and
 * rows past 4 KiB starting at every offset in a line (streaming stores). */
static void test_outer_permutations(void **state)
{
    (void)state;
    static const int64_t p3[][3] = {{1, 0, 2}};
    static const int64_t p4[][4] = {{0, 2, 1, 3}, {2, 1, 0, 3}, {1, 2, 0, 3}, {2, 0, 1, 3}};
    static const int64_t inner[] = {1, 3, 17, 40};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (size_t n = 0; n < sizeof inner / sizeof *inner; n++) {
            int64_t d3[3] = {13, 9, inner[n]};
            check_transpose(types[k], 3, d3, p3[0]);
            int64_t d4[4] = {5, 7, 11, inner[n]};
            for (size_t i = 0; i < sizeof p4 / sizeof *p4; i++) check_transpose(types[k], 4, d4, p4[i]);
        }
    int64_t big[4] = {24, 56, 48, 33}, p[4] = {0, 2, 1, 3};
    check_transpose(PLUMB_F32, 4, big, p);
    int64_t bigh[4] = {40, 40, 40, 68};
    check_transpose(PLUMB_BF16, 4, bigh, p);
    int64_t longr[4] = {6, 5, 70, 1031};
    check_transpose(PLUMB_F32, 4, longr, p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_shapes),
        cmocka_unit_test(test_higher_ranks),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_panel_edges),
        cmocka_unit_test(test_outer_permutations),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return r;
}
