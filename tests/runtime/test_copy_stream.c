/* Streaming copies and the one-pass pad (runtime/k_copy.c,
 * runtime/k_movement.c, runtime/k_index.c's gather rows):
 * - rt_copy_stream and rt_fill against a byte-by-byte model at every ISA
 *   level the CPU has, for every destination alignment within a line,
 *   lengths around the 256-byte streaming threshold and element sizes that
 *   divide a line and that do not;
 * - pad without interior padding (each result row written once) on random
 *   shapes of rank 0 to 4 with negative and positive edge padding, and pad
 *   with interior padding (fill then copy), against the reference bit for
 *   bit on every element size;
 * - slice, concatenate, pad and gather whose results pass the 8 MiB mark
 *   where their contiguous rows go out with streaming stores, with rows
 *   that start off a line boundary, against the reference bit for bit;
 * - transposes run in panels of destination columns, rows longer than a
 *   panel and block edges cut short, against the reference bit for bit.
 * Every runtime run is at every ISA level on 1 and 2 threads (rt_test.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../runtime/rt_copy.h"
#include "runtime/rt_test.h"

/* rt_copy_stream copies exactly [0, bytes) at any alignment: the bytes
 * around the destination are untouched. */
static void test_copy_stream_model(void **state)
{
    (void)state;
    enum { CAP = 1024 };
    unsigned char src[CAP], dst[CAP + 256];
    for (int i = 0; i < CAP; i++) src[i] = (unsigned char)(i * 7 + 3);
    static const size_t lens[] = {0, 1, 63, 64, 65, 255, 256, 257, 300, 511, 640, 1000};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (size_t off = 0; off < 64; off++)
            for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
                memset(dst, 0xA5, sizeof dst);
                rt_copy_stream((plumb_isa)isa, dst + off, src + (off * 5) % 24, lens[k]);
                rt_copy_fence((plumb_isa)isa);
                for (size_t i = 0; i < sizeof dst; i++) {
                    bool in = i >= off && i < off + lens[k];
                    unsigned char want = in ? src[(off * 5) % 24 + i - off] : 0xA5;
                    if (dst[i] != want)
                        fail_msg("isa %d offset %zu length %zu: byte %zu is 0x%02x, expected 0x%02x", isa, off,
                                 lens[k], i, dst[i], want);
                }
            }
}

/* rt_fill writes n copies of the value, in phase from dst, streamed or
 * not, for element sizes that divide 64 and that do not (3, 12, 96). */
static void test_fill_model(void **state)
{
    (void)state;
    enum { CAP = 4096 };
    static unsigned char dst[CAP + 256];
    unsigned char val[96];
    for (int i = 0; i < 96; i++) val[i] = (unsigned char)(0x10 + i);
    static const size_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 32, 64, 96};
    static const size_t counts[] = {0, 1, 5, 31, 64, 65, 129, 300};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (int stream = 0; stream <= 1; stream++)
            for (size_t e = 0; e < sizeof sizes / sizeof *sizes; e++)
                for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
                    for (size_t off = 0; off < 64; off += sizes[e] < 8 ? sizes[e] : 8) {
                        size_t es = sizes[e], n = counts[c];
                        if (off + es * n > CAP) continue;
                        memset(dst, 0x5A, sizeof dst);
                        rt_fill((plumb_isa)isa, dst + off, val, es, n, stream);
                        rt_copy_fence((plumb_isa)isa);
                        for (size_t i = 0; i < sizeof dst; i++) {
                            bool in = i >= off && i < off + es * n;
                            unsigned char want = in ? val[(i - off) % es] : 0x5A;
                            if (dst[i] != want)
                                fail_msg("isa %d stream %d es %zu n %zu offset %zu: byte %zu is 0x%02x, expected "
                                         "0x%02x",
                                         isa, stream, es, n, off, i, dst[i], want);
                        }
                    }
}

static const plumb_dtype ptypes[] = {PLUMB_I8, PLUMB_BF16, PLUMB_F32, PLUMB_F64, PLUMB_I1};

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(rt_rand() % (uint64_t)(hi - lo + 1)); }

static void ints(char *buf, size_t cap, uint32_t n, const int64_t *v)
{
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < n; i++) o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)v[i]);
    snprintf(buf + o, cap - o, "]");
}

/* One pad program against the reference; lo, hi may be negative. */
static void check_pad(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *lo, const int64_t *hi,
                      const int64_t *in)
{
    int64_t rd[PLUMB_MAX_RANK];
    for (uint32_t d = 0; d < rank; d++) rd[d] = lo[d] + hi[d] + dims[d] + (dims[d] ? (dims[d] - 1) * in[d] : 0);
    char src[2048], ta[128], tr[128], ts[64], l[96], h[96], it[96];
    rt_ty(ta, sizeof ta, t, rank, dims);
    rt_ty(tr, sizeof tr, t, rank, rd);
    rt_ty(ts, sizeof ts, t, 0, NULL);
    ints(l, sizeof l, rank, lo);
    ints(h, sizeof h, rank, hi);
    ints(it, sizeof it, rank, in);
    snprintf(src, sizeof src,
             "func.func @main(%%a: %s, %%v: %s) -> %s {\n"
             "  %%r = stablehlo.pad %%a, %%v, low = %s, high = %s, interior = %s : (%s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             ta, ts, tr, l, h, it, ta, ts, tr, tr);
    plumb_tensor *ins[2] = {rt_rand_tensor(t, rank, dims, false), rt_scalar_bits(t, t == PLUMB_I1 ? 1 : rt_rand())};
    rt_check_exact(src, ins, 2);
    plumb_tensor_free(ins[0]);
    plumb_tensor_free(ins[1]);
}

/* Pad on random shapes: rank 0 to 4, each edge padding in [-3, 3] (kept
 * so that the result has no negative extent), interior padding on a third
 * of the programs. */
static void test_pad_random(void **state)
{
    (void)state;
    for (int it = 0; it < 60; it++) {
        plumb_dtype t = ptypes[it % (int)(sizeof ptypes / sizeof *ptypes)];
        uint32_t rank = (uint32_t)rnd(0, 4);
        int64_t dims[PLUMB_MAX_RANK], lo[PLUMB_MAX_RANK], hi[PLUMB_MAX_RANK], in[PLUMB_MAX_RANK];
        bool interior = it % 3 == 2;
        for (uint32_t d = 0; d < rank; d++) {
            dims[d] = rnd(0, rank > 2 ? 6 : 40);
            in[d] = interior ? rnd(0, 2) : 0;
            int64_t full = dims[d] + (dims[d] ? (dims[d] - 1) * in[d] : 0);
            lo[d] = rnd(-3, 3);
            hi[d] = rnd(-3, 3);
            while (lo[d] + hi[d] + full < 0) {
                if (lo[d] < 0) lo[d]++;
                else hi[d]++;
            }
        }
        check_pad(t, rank, dims, lo, hi, in);
    }
}

/* A ring dropped by negative padding and replaced by positive padding on
 * the other side; a row cropped to nothing; an operand of no elements. */
static void test_pad_edges(void **state)
{
    (void)state;
    int64_t d1[2] = {7, 9}, l1[2] = {-2, 5}, h1[2] = {3, -4}, z[2] = {0, 0};
    check_pad(PLUMB_F32, 2, d1, l1, h1, z);
    int64_t l2[2] = {0, -9}, h2[2] = {0, 2};   /* every row's operand part cropped away */
    check_pad(PLUMB_F32, 2, d1, l2, h2, z);
    int64_t d3[2] = {0, 5}, l3[2] = {2, 1}, h3[2] = {1, 0};
    check_pad(PLUMB_F64, 2, d3, l3, h3, z);
}

/* Results past RT_STREAM_MIN_BYTES: pad, slice, concatenate and gather
 * take their streaming paths; rows of 1031 f32 start at every offset
 * within a line. */
static void test_large_movement(void **state)
{
    (void)state;
    char src[2048];
    int64_t da[2] = {2100, 1031};
    plumb_tensor *a = rt_rand_tensor(PLUMB_F32, 2, da, false), *b = rt_rand_tensor(PLUMB_F32, 2, da, false);
    plumb_tensor *v = rt_scalar_bits(PLUMB_F32, 0x7fc01234u);
    plumb_tensor *pin[2] = {a, v};
    snprintf(src, sizeof src,
             "func.func @main(%%a: tensor<2100x1031xf32>, %%v: tensor<f32>) -> tensor<2102x1029xf32> {\n"
             "  %%r = stablehlo.pad %%a, %%v, low = [3, -1], high = [-1, -1], interior = [0, 0] : "
             "(tensor<2100x1031xf32>, tensor<f32>) -> tensor<2102x1029xf32>\n"
             "  func.return %%r : tensor<2102x1029xf32>\n}\n");
    rt_check_exact(src, pin, 2);
    plumb_tensor *cin[2] = {a, b};
    snprintf(src, sizeof src,
             "func.func @main(%%a: tensor<2100x1031xf32>, %%b: tensor<2100x1031xf32>) -> tensor<4198x1029xf32> {\n"
             "  %%c = stablehlo.concatenate %%a, %%b, dim = 0 : (tensor<2100x1031xf32>, tensor<2100x1031xf32>) -> "
             "tensor<4200x1031xf32>\n"
             "  %%s = stablehlo.slice %%c [1:4199, 1:1030] : (tensor<4200x1031xf32>) -> tensor<4198x1029xf32>\n"
             "  func.return %%s : tensor<4198x1029xf32>\n}\n");
    rt_check_exact(src, cin, 2);
    /* gather 2200 rows of 1031 (9 MB), indices past both ends clamped */
    int64_t di[2] = {2200, 1};
    plumb_tensor *idx = rt_rand_tensor(PLUMB_I32, 2, di, false);
    for (int64_t i = 0; i < 2200; i++)
        plumb_store_bits(PLUMB_I32, idx->data, (uint64_t)i, (uint64_t)(uint32_t)(int32_t)rnd(-5, 2105));
    plumb_tensor *gin[2] = {a, idx};
    snprintf(src, sizeof src,
             "func.func @main(%%a: tensor<2100x1031xf32>, %%i: tensor<2200x1xi32>) -> tensor<2200x1031xf32> {\n"
             "  %%r = \"stablehlo.gather\"(%%a, %%i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
             "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
             "slice_sizes = array<i64: 1, 1031>} : (tensor<2100x1031xf32>, tensor<2200x1xi32>) -> "
             "tensor<2200x1031xf32>\n"
             "  func.return %%r : tensor<2200x1031xf32>\n}\n");
    rt_check_exact(src, gin, 2);
    plumb_tensor_free(idx);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(v);
}

/* The streaming pad on 2-byte and 8-byte elements: rows of odd length so
 * the fill's pattern starts mid-line. */
static void test_large_pad_sizes(void **state)
{
    (void)state;
    int64_t d16[2] = {2050, 2047}, l16[2] = {1, 3}, h16[2] = {2, -2}, z[2] = {0, 0};
    check_pad(PLUMB_BF16, 2, d16, l16, h16, z);
    int64_t d64[2] = {1030, 1023}, l64[2] = {-1, 1}, h64[2] = {2, 3};
    check_pad(PLUMB_F64, 2, d64, l64, h64, z);
}

/* Transposes whose destination rows are longer than a panel (TR_PANEL
 * elements, runtime/k_movement.c) and not a multiple of it, with block
 * edges cut short on both sides, for 1-, 2-, 4- and 8-byte elements, a 3-d
 * permutation included. */
static void test_transpose_panels(void **state)
{
    (void)state;
    static const plumb_dtype ts[] = {PLUMB_I8, PLUMB_BF16, PLUMB_F32, PLUMB_F64};
    for (size_t k = 0; k < sizeof ts / sizeof *ts; k++) {
        char src[1024], ta[64], tr[64];
        int64_t da[2] = {700, 37}, dr[2] = {37, 700};
        rt_ty(ta, sizeof ta, ts[k], 2, da);
        rt_ty(tr, sizeof tr, ts[k], 2, dr);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s) -> %s {\n"
                 "  %%r = stablehlo.transpose %%a, dims = [1, 0] : (%s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 ta, tr, ta, tr, tr);
        plumb_tensor *a = rt_rand_tensor(ts[k], 2, da, false);
        rt_check_exact(src, &a, 1);
        plumb_tensor_free(a);
        int64_t d3[3] = {3, 531, 70}, r3[3] = {70, 3, 531};
        rt_ty(ta, sizeof ta, ts[k], 3, d3);
        rt_ty(tr, sizeof tr, ts[k], 3, r3);
        snprintf(src, sizeof src,
                 "func.func @main(%%a: %s) -> %s {\n"
                 "  %%r = stablehlo.transpose %%a, dims = [2, 0, 1] : (%s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 ta, tr, ta, tr, tr);
        a = rt_rand_tensor(ts[k], 3, d3, false);
        rt_check_exact(src, &a, 1);
        plumb_tensor_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_stream_model), cmocka_unit_test(test_fill_model),
        cmocka_unit_test(test_pad_random),        cmocka_unit_test(test_pad_edges),
        cmocka_unit_test(test_large_movement),    cmocka_unit_test(test_large_pad_sizes),
        cmocka_unit_test(test_transpose_panels),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return r;
}
