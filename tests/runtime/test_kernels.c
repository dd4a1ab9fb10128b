/* Runtime kernels against the reference: data movement, reduce, indexing,
 * rng (exact ops bit for bit; reductions within the data-dependent bound),
 * at every ISA level and on 1 and 2 threads. */
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

/* ---- reduce ------------------------------------------------------------------ */

static const char *body_of(const char *op, const char *t, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "({\n  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n    %%r = stablehlo.%s %%a, %%b : tensor<%s>\n"
             "    stablehlo.return %%r : tensor<%s>\n  })",
             t, t, op, t, t);
    return buf;
}

/* Builds `reduce(x, init) dims` with the given body op and checks it. */
static void reduce_case(plumb_dtype t, uint32_t rank, const int64_t *dims, const int64_t *rd, uint32_t nrd,
                        const char *bop, bool specials, uint64_t init_bits)
{
    char src[4096], tin[256], tout[256], body[1024], dl[128] = "";
    int64_t od[PLUMB_MAX_RANK];
    uint32_t orank = 0;
    uint64_t nterms = 1;
    for (uint32_t d = 0; d < rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < nrd; i++) r |= rd[i] == (int64_t)d;
        if (r) nterms *= (uint64_t)dims[d];
        else od[orank++] = dims[d];
    }
    size_t o = 0;
    for (uint32_t i = 0; i < nrd; i++) o += (size_t)snprintf(dl + o, sizeof dl - o, "%s%lld", i ? ", " : "", (long long)rd[i]);
    const char *tn = plumb_dtype_name(t);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%i: tensor<%s>) -> %s {\n"
             "  %%r = stablehlo.reduce(%%x init: %%i) applies stablehlo.%s across dimensions = [%s] : (%s, tensor<%s>) -> %s\n"
             "  func.return %%r : %s\n}\n",
             rt_ty(tin, sizeof tin, t, rank, dims), tn, rt_ty(tout, sizeof tout, t, orank, od), bop, dl, tin, tn,
             tout, tout);
    (void)body_of; (void)body;
    plumb_tensor *in[2] = {rt_rand_tensor(t, rank, dims, specials), rt_scalar_bits(t, init_bits)};
    if (plumb_dtype_is_float(t) && strcmp(bop, "add") == 0)
        rt_check_bound(src, in, 2, nterms + 1, true);
    else
        rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Float sums over rows, columns, middle and scattered dims, every float
 * type, sizes around the vector and block widths: within the bound, the
 * same bits on 1 and 2 threads and at every ISA level. */
static void test_reduce_sum_float(void **state)
{
    (void)state;
    plumb_dtype ts[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16};
    int64_t lens[] = {0, 1, 7, 31, 32, 33, 100, 2047, 2049, 9000};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            int64_t d1[1] = {lens[li]}, r0[1] = {0};
            reduce_case(ts[ti], 1, d1, r0, 1, "add", false, 0);
            int64_t d2[2] = {3, lens[li]}, r1[1] = {1};
            reduce_case(ts[ti], 2, d2, r1, 1, "add", false, 0);
            int64_t d3[3] = {2, lens[li] % 300, 5}, rm[1] = {1};
            reduce_case(ts[ti], 3, d3, rm, 1, "add", false, 0);
        }
    int64_t d4[4] = {3, 4, 5, 6}, rs[2] = {0, 2}, ra[4] = {0, 1, 2, 3};
    reduce_case(PLUMB_F32, 4, d4, rs, 2, "add", false, plumb_f32_bits(1.5f));
    reduce_case(PLUMB_F64, 4, d4, ra, 4, "add", false, 0);
    int64_t big[1] = {300000}, r0[1] = {0};
    reduce_case(PLUMB_F32, 1, big, r0, 1, "add", false, 0);
    int64_t cols[2] = {5000, 70}, c0[1] = {0};
    reduce_case(PLUMB_F32, 2, cols, c0, 1, "add", false, 0);
}

/* max/min over floats, integers of every width, and/or, i1, products: bit
 * for bit. */
static void test_reduce_exact(void **state)
{
    (void)state;
    int64_t d2[2] = {17, 65}, r1[1] = {1}, r0[1] = {0};
    plumb_dtype fs[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16};
    for (size_t i = 0; i < 4; i++) {
        reduce_case(fs[i], 2, d2, r1, 1, "maximum", true, plumb_dtype_get(fs[i])->bits == 64 ? plumb_f64_bits(-INFINITY) : fs[i] == PLUMB_F32 ? plumb_f32_bits(-INFINITY) : fs[i] == PLUMB_F16 ? 0xFC00 : 0xFF80);
        reduce_case(fs[i], 2, d2, r0, 1, "minimum", true, 0);
    }
    plumb_dtype is[] = {PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};
    const char *ops[] = {"add", "multiply", "maximum", "minimum", "and", "or"};
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < 6; k++) {
            reduce_case(is[i], 2, d2, r1, 1, ops[k], false, 3);
            reduce_case(is[i], 2, d2, r0, 1, ops[k], false, 1);
        }
    for (size_t k = 0; k < 6; k++) reduce_case(PLUMB_I1, 2, d2, r1, 1, ops[k], false, 0);
}

/* A two-input argmax body goes through the generic path in the
 * reference's order: the first maximal index wins. */
static void test_reduce_argmax(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4x9xf32>, %ix: tensor<4x9xi32>, %i0: tensor<f32>, %j0: tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>) {\n"
        "  %r:2 = stablehlo.reduce(%x init: %i0), (%ix init: %j0) across dimensions = [1] : (tensor<4x9xf32>, tensor<4x9xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
        "   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {\n"
        "    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>\n"
        "    %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>\n"
        "    stablehlo.return %v, %i : tensor<f32>, tensor<i32>\n"
        "  }\n"
        "  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>\n}\n";
    int64_t d[2] = {4, 9};
    plumb_tensor *x = rt_rand_tensor(PLUMB_F32, 2, d, false);
    plumb_tensor *ix = rt_rand_tensor(PLUMB_I32, 2, d, false);
    for (int i = 0; i < 36; i++) plumb_store_bits(PLUMB_I32, ix->data, (size_t)i, (uint64_t)(i % 9));
    plumb_store_bits(PLUMB_F32, x->data, 3, plumb_f32_bits(100.0f));
    plumb_store_bits(PLUMB_F32, x->data, 5, plumb_f32_bits(100.0f));
    plumb_tensor *in[4] = {x, ix, rt_scalar_bits(PLUMB_F32, plumb_f32_bits(-INFINITY)), rt_scalar_bits(PLUMB_I32, 0)};
    rt_check_exact_nan(src, in, 4);
    for (int i = 0; i < 4; i++) plumb_tensor_free(in[i]);
}

/* Special values in sums: NaN anywhere gives NaN, inf - inf gives NaN,
 * sums of -0 stay -0 and +0 + -0 is +0. */
static void test_reduce_specials(void **state)
{
    (void)state;
    int64_t d[2] = {4, 40}, r1[1] = {1};
    char src[2048];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<4x40xf32>, %%i: tensor<f32>) -> tensor<4xf32> {\n"
             "  %%r = stablehlo.reduce(%%x init: %%i) applies stablehlo.add across dimensions = [1] : (tensor<4x40xf32>, tensor<f32>) -> tensor<4xf32>\n"
             "  func.return %%r : tensor<4xf32>\n}\n");
    (void)r1;
    plumb_tensor *x = rt_rand_tensor(PLUMB_F32, 2, d, false);
    for (int i = 0; i < 40; i++) plumb_store_bits(PLUMB_F32, x->data, (size_t)(120 + i), plumb_f32_bits(-0.0f));
    plumb_store_bits(PLUMB_F32, x->data, 7, 0x7FC01234);
    plumb_store_bits(PLUMB_F32, x->data, 41, plumb_f32_bits(INFINITY));
    plumb_store_bits(PLUMB_F32, x->data, 79, plumb_f32_bits(-INFINITY));
    for (int i = 0; i < 40; i++) plumb_store_bits(PLUMB_F32, x->data, (size_t)(80 + i), plumb_f32_bits(i == 3 ? INFINITY : 1.0f));
    plumb_tensor *in[2] = {x, rt_scalar_bits(PLUMB_F32, plumb_f32_bits(-0.0f))};
    rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[1]);
    in[1] = rt_scalar_bits(PLUMB_F32, plumb_f32_bits(0.0f));
    rt_check_exact_nan(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* ---- data movement ---------------------------------------------------------------- */

/* One-operand program `%r = <op text>` on a random input with NaN payloads
 * and signed zeros: bit for bit. */
static void move1(plumb_dtype t, uint32_t rank, const int64_t *dims, const char *optext, const char *rty)
{
    char src[4096], tin[256];
    rt_ty(tin, sizeof tin, t, rank, dims);
    snprintf(src, sizeof src, "func.func @main(%%x: %s) -> %s {\n  %%r = %s\n  func.return %%r : %s\n}\n", tin, rty,
             optext, rty);
    plumb_tensor *in[1] = {rt_rand_tensor(t, rank, dims, true)};
    uint64_t n = plumb_tensor_numel(in[0]);
    if (plumb_dtype_is_float(t) && n > 2) {
        unsigned bits = plumb_dtype_get(t)->bits;
        plumb_store_bits(t, in[0]->data, 0, (bits == 64 ? 0x7FF0000000000123ull : bits == 32 ? 0x7F800123ull : 0x7C01ull));
        plumb_store_bits(t, in[0]->data, 1, 1ull << (bits - 1));
    }
    rt_check_exact(src, in, 1);
    plumb_tensor_free(in[0]);
}

/* transpose over dtypes and shapes, including ones above the 32x32 tile
 * and permutations that keep or move the innermost dimension. */
static void test_transpose(void **state)
{
    (void)state;
    plumb_dtype ts[] = {PLUMB_F32, PLUMB_F64, PLUMB_BF16, PLUMB_I8, PLUMB_I1};
    int64_t sizes[][3] = {{1, 1, 1}, {0, 3, 4}, {2, 33, 65}, {3, 7, 17}, {1, 130, 257}};
    int64_t perms[][3] = {{0, 2, 1}, {2, 1, 0}, {1, 0, 2}, {2, 0, 1}};
    char op[1024], rty[256];
    for (size_t t = 0; t < 5; t++)
        for (size_t s = 0; s < 5; s++)
            for (size_t p = 0; p < 4; p++) {
                int64_t rd[3];
                for (int i = 0; i < 3; i++) rd[i] = sizes[s][perms[p][i]];
                rt_ty(rty, sizeof rty, ts[t], 3, rd);
                char tin[256];
                snprintf(op, sizeof op, "stablehlo.transpose %%x, dims = [%lld, %lld, %lld] : (%s) -> %s",
                         (long long)perms[p][0], (long long)perms[p][1], (long long)perms[p][2],
                         rt_ty(tin, sizeof tin, ts[t], 3, sizes[s]), rty);
                move1(ts[t], 3, sizes[s], op, rty);
            }
    int64_t big[2] = {700, 500};
    move1(PLUMB_F32, 2, big, "stablehlo.transpose %x, dims = [1, 0] : (tensor<700x500xf32>) -> tensor<500x700xf32>",
          "tensor<500x700xf32>");
    int64_t sc[1] = {0};
    move1(PLUMB_F32, 0, sc, "stablehlo.transpose %x, dims = [] : (tensor<f32>) -> tensor<f32>", "tensor<f32>");
}

/* broadcast_in_dim, reshape, slice, reverse, pad, iota, concatenate,
 * dynamic (update) slice with clamping, bitcast between widths. */
static void test_movement_misc(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d1[1] = {3}, d0[1] = {0}, d57[2] = {5, 7}, d4[1] = {4};
    move1(PLUMB_F32, 1, d1, "stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>", "tensor<4x3xf32>");
    move1(PLUMB_F64, 2, d23, "stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<2x3xf64>) -> tensor<2x5x3xf64>", "tensor<2x5x3xf64>");
    int64_t d13[2] = {1, 3};
    move1(PLUMB_I16, 2, d13, "stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x3xi16>) -> tensor<6x3xi16>", "tensor<6x3xi16>");
    move1(PLUMB_F32, 0, d0, "stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<2x3xf32>", "tensor<2x3xf32>");
    move1(PLUMB_F32, 1, d0, "stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<0xf32>) -> tensor<3x0xf32>", "tensor<3x0xf32>");
    move1(PLUMB_F16, 2, d23, "stablehlo.reshape %x : (tensor<2x3xf16>) -> tensor<3x2xf16>", "tensor<3x2xf16>");
    move1(PLUMB_F32, 2, d57, "stablehlo.slice %x [1:5:2, 0:7:3] : (tensor<5x7xf32>) -> tensor<2x3xf32>", "tensor<2x3xf32>");
    move1(PLUMB_F32, 2, d57, "stablehlo.slice %x [2:2, 0:7] : (tensor<5x7xf32>) -> tensor<0x7xf32>", "tensor<0x7xf32>");
    move1(PLUMB_F64, 2, d57, "stablehlo.reverse %x, dims = [0, 1] : tensor<5x7xf64>", "tensor<5x7xf64>");
    move1(PLUMB_UI8, 2, d57, "stablehlo.reverse %x, dims = [1] : tensor<5x7xui8>", "tensor<5x7xui8>");
    move1(PLUMB_F32, 1, d4, "stablehlo.iota dim = 0 : tensor<5x3xf32>", "tensor<5x3xf32>");
    move1(PLUMB_F32, 1, d4, "stablehlo.iota dim = 1 : tensor<5x300xui8>", "tensor<5x300xui8>");
    move1(PLUMB_F32, 1, d4, "stablehlo.iota dim = 0 : tensor<3000xf16>", "tensor<3000xf16>");
    move1(PLUMB_F32, 1, d4, "stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4x4xui8>", "tensor<4x4xui8>");
    move1(PLUMB_UI8, 1, d4, "stablehlo.bitcast_convert %x : (tensor<4xui8>) -> tensor<f32>", "tensor<f32>");
    move1(PLUMB_F32, 1, d4, "stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4xi32>", "tensor<4xi32>");
}

/* pad with negative, interior and positive padding; concatenate; dynamic
 * slices with out-of-range starts (clamped). */
static void test_movement_multi(void **state)
{
    (void)state;
    const char *pad =
        "func.func @main(%x: tensor<5x7xf32>, %p: tensor<f32>) -> tensor<12x20xf32> {\n"
        "  %r = stablehlo.pad %x, %p, low = [1, -2], high = [2, 3], interior = [1, 2] : (tensor<5x7xf32>, tensor<f32>) -> tensor<12x20xf32>\n"
        "  func.return %r : tensor<12x20xf32>\n}\n";
    int64_t d57[2] = {5, 7};
    plumb_tensor *in[4] = {rt_rand_tensor(PLUMB_F32, 2, d57, true), rt_scalar_bits(PLUMB_F32, 0x7FC0ABCD)};
    rt_check_exact(pad, in, 2);
    const char *cat =
        "func.func @main(%x: tensor<5x7xf32>, %y: tensor<5x0xf32>, %z: tensor<5x2xf32>) -> tensor<5x16xf32> {\n"
        "  %r = stablehlo.concatenate %x, %y, %z, %x, dim = 1 : (tensor<5x7xf32>, tensor<5x0xf32>, tensor<5x2xf32>, tensor<5x7xf32>) -> tensor<5x16xf32>\n"
        "  func.return %r : tensor<5x16xf32>\n}\n";
    int64_t d50[2] = {5, 0}, d52[2] = {5, 2};
    plumb_tensor *cin[3] = {in[0], rt_rand_tensor(PLUMB_F32, 2, d50, false), rt_rand_tensor(PLUMB_F32, 2, d52, true)};
    rt_check_exact(cat, cin, 3);
    plumb_tensor_free(cin[1]);
    plumb_tensor_free(cin[2]);
    const char *ds =
        "func.func @main(%x: tensor<5x7xf32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<2x3xf32> {\n"
        "  %r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<5x7xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>\n"
        "  func.return %r : tensor<2x3xf32>\n}\n";
    const char *dus =
        "func.func @main(%x: tensor<5x7xf32>, %u: tensor<2x3xf32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<5x7xf32> {\n"
        "  %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<5x7xf32>, tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<5x7xf32>\n"
        "  func.return %r : tensor<5x7xf32>\n}\n";
    int64_t starts[][2] = {{0, 0}, {-3, 100}, {4, 4}, {1, 2}};
    int64_t d23[2] = {2, 3};
    plumb_tensor *u = rt_rand_tensor(PLUMB_F32, 2, d23, true);
    for (int s = 0; s < 4; s++) {
        plumb_tensor *a[3] = {in[0], rt_scalar_bits(PLUMB_I64, (uint64_t)starts[s][0]), rt_scalar_bits(PLUMB_I64, (uint64_t)starts[s][1])};
        rt_check_exact(ds, a, 3);
        plumb_tensor *b[4] = {in[0], u, a[1], a[2]};
        rt_check_exact(dus, b, 4);
        plumb_tensor_free(a[1]);
        plumb_tensor_free(a[2]);
    }
    plumb_tensor_free(u);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* ---- indexing and rng ------------------------------------------------------------- */

/* gather with clamped starts, collapsed and batching dims: bit for bit. */
static void test_gather(void **state)
{
    (void)state;
    const char *g1 =
        "func.func @main(%x: tensor<7x9xf32>, %i: tensor<40x1xi32>) -> tensor<40x3xf32> {\n"
        "  %g = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<7x9xf32>, tensor<40x1xi32>) -> tensor<40x3xf32>\n"
        "  func.return %g : tensor<40x3xf32>\n}\n";
    int64_t dx[2] = {7, 9}, di[2] = {40, 1};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, dx, true), rt_rand_tensor(PLUMB_I32, 2, di, false)};
    for (int i = 0; i < 40; i++) plumb_store_bits(PLUMB_I32, in[1]->data, (size_t)i, (uint64_t)(int64_t)(i - 10));
    rt_check_exact(g1, in, 2);
    const char *g2 =
        "func.func @main(%x: tensor<3x5xf64>, %i: tensor<3x1xi64>) -> tensor<3xf64> {\n"
        "  %g = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<3x5xf64>, tensor<3x1xi64>) -> tensor<3xf64>\n"
        "  func.return %g : tensor<3xf64>\n}\n";
    int64_t dx2[2] = {3, 5}, di2[2] = {3, 1};
    plumb_tensor *in2[2] = {rt_rand_tensor(PLUMB_F64, 2, dx2, true), rt_rand_tensor(PLUMB_I64, 2, di2, false)};
    rt_check_exact(g2, in2, 2);
    for (int k = 0; k < 2; k++) {
        plumb_tensor_free(in[k]);
        plumb_tensor_free(in2[k]);
    }
}

/* scatter: replace and add bodies (fast paths) and a max body (generic),
 * out-of-range windows skipped, duplicate indices applied in order. */
static void test_scatter(void **state)
{
    (void)state;
    const char *bodies[3] = {
        "      stablehlo.return %b : tensor<f32>\n",
        "      %s = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n",
        "      %s = stablehlo.maximum %b, %a : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n",
    };
    int64_t dx[2] = {6, 4}, di[2] = {30, 1}, du[2] = {30, 4};
    plumb_tensor *in[3] = {rt_rand_tensor(PLUMB_F32, 2, dx, true), rt_rand_tensor(PLUMB_I32, 2, di, false),
                           rt_rand_tensor(PLUMB_F32, 2, du, true)};
    for (int i = 0; i < 30; i++) plumb_store_bits(PLUMB_I32, in[1]->data, (size_t)i, (uint64_t)(int64_t)(i % 9 - 1));
    for (int b = 0; b < 3; b++) {
        char src[4096];
        snprintf(src, sizeof src,
                 "func.func @main(%%x: tensor<6x4xf32>, %%i: tensor<30x1xi32>, %%u: tensor<30x4xf32>) -> tensor<6x4xf32> {\n"
                 "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
                 "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n%s"
                 "    }) : (tensor<6x4xf32>, tensor<30x1xi32>, tensor<30x4xf32>) -> tensor<6x4xf32>\n"
                 "  func.return %%r : tensor<6x4xf32>\n}\n",
                 bodies[b]);
        rt_check_exact_nan(src, in, 3);
    }
    for (int k = 0; k < 3; k++) plumb_tensor_free(in[k]);
}

/* sort: a recognised comparator (native, parallel over slices) on floats
 * with NaNs and ties, a two-key generic comparator, along inner and outer
 * dimensions; top_k with NaNs, infinities and ties. */
static void test_sort_topk(void **state)
{
    (void)state;
    int64_t d[2] = {5, 37};
    plumb_tensor *k = rt_rand_tensor(PLUMB_F32, 2, d, false), *v = rt_rand_tensor(PLUMB_I32, 2, d, false);
    for (int i = 0; i < 185; i += 7) plumb_store_bits(PLUMB_F32, k->data, (size_t)i, 0x3F800000);
    plumb_store_bits(PLUMB_F32, k->data, 3, 0x7FC00000);
    plumb_store_bits(PLUMB_F32, k->data, 40, 0xFFC00000);
    plumb_store_bits(PLUMB_F32, k->data, 41, plumb_f32_bits(-0.0f));
    plumb_store_bits(PLUMB_F32, k->data, 42, plumb_f32_bits(0.0f));
    const char *dirs[3] = {"LT", "GT", "LT"};
    const char *types[3] = {"FLOAT", "FLOAT", "TOTALORDER"};
    for (int dim = 0; dim < 2; dim++)
        for (int c = 0; c < 3; c++) {
            char src[4096];
            snprintf(src, sizeof src,
                     "func.func @main(%%k: tensor<5x37xf32>, %%v: tensor<5x37xi32>) -> (tensor<5x37xf32>, tensor<5x37xi32>) {\n"
                     "  %%s:2 = \"stablehlo.sort\"(%%k, %%v) <{dimension = %d : i64, is_stable = true}> ({\n"
                     "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>, %%c: tensor<i32>, %%e: tensor<i32>):\n"
                     "      %%lt = stablehlo.compare  %s, %%a, %%b,  %s : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                     "      stablehlo.return %%lt : tensor<i1>\n"
                     "    }) : (tensor<5x37xf32>, tensor<5x37xi32>) -> (tensor<5x37xf32>, tensor<5x37xi32>)\n"
                     "  func.return %%s#0, %%s#1 : tensor<5x37xf32>, tensor<5x37xi32>\n}\n",
                     dim, dirs[c], types[c]);
            plumb_tensor *in[2] = {k, v};
            rt_check_exact(src, in, 2);
        }
    const char *two =
        "func.func @main(%k: tensor<5x37xf32>, %v: tensor<5x37xi32>) -> (tensor<5x37xf32>, tensor<5x37xi32>) {\n"
        "  %s:2 = \"stablehlo.sort\"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %e: tensor<i32>):\n"
        "      %lt = stablehlo.compare  GT, %c, %e,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "      stablehlo.return %lt : tensor<i1>\n"
        "    }) : (tensor<5x37xf32>, tensor<5x37xi32>) -> (tensor<5x37xf32>, tensor<5x37xi32>)\n"
        "  func.return %s#0, %s#1 : tensor<5x37xf32>, tensor<5x37xi32>\n}\n";
    plumb_tensor *in[2] = {k, v};
    rt_check_exact(two, in, 2);
    const char *tk =
        "func.func @main(%k: tensor<5x37xf32>) -> (tensor<5x6xf32>, tensor<5x6xi32>) {\n"
        "  %v, %i = chlo.top_k(%k, k = 6) : tensor<5x37xf32> -> (tensor<5x6xf32>, tensor<5x6xi32>)\n"
        "  func.return %v, %i : tensor<5x6xf32>, tensor<5x6xi32>\n}\n";
    rt_check_exact(tk, in, 1);
    plumb_tensor_free(k);
    plumb_tensor_free(v);
}

/* rng_bit_generator: both algorithms, 32- and 64-bit outputs, odd shapes,
 * 2- and 3-word Philox states with a carry into the high word. */
static void test_rng(void **state)
{
    (void)state;
    const char *cases[][3] = {
        {"THREE_FRY", "2", "tensor<3x5xui32>"}, {"THREE_FRY", "2", "tensor<7xui64>"},
        {"THREE_FRY", "2", "tensor<4x6xui32>"}, {"PHILOX", "3", "tensor<9x7xui32>"},
        {"PHILOX", "2", "tensor<11xui64>"},    {"PHILOX", "3", "tensor<3x3xui8>"},
        {"DEFAULT", "2", "tensor<5000xui32>"}, {"THREE_FRY", "2", "tensor<0xui32>"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "func.func @main(%%s: tensor<%sxui64>) -> (tensor<%sxui64>, %s) {\n"
                 "  %%o, %%v = stablehlo.rng_bit_generator %%s, algorithm = %s : (tensor<%sxui64>) -> (tensor<%sxui64>, %s)\n"
                 "  func.return %%o, %%v : tensor<%sxui64>, %s\n}\n",
                 cases[c][1], cases[c][1], cases[c][2], cases[c][0], cases[c][1], cases[c][1], cases[c][2], cases[c][1],
                 cases[c][2]);
        int64_t ds[1] = {cases[c][1][0] - '0'};
        plumb_tensor *in[1] = {rt_rand_tensor(PLUMB_UI64, 1, ds, false)};
        if (ds[0] == 3) plumb_store_bits(PLUMB_UI64, in[0]->data, 1, ~0ull - 2);
        rt_check_exact(src, in, 1);
        plumb_tensor_free(in[0]);
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
        cmocka_unit_test(test_reduce_sum_float),
        cmocka_unit_test(test_reduce_exact),
        cmocka_unit_test(test_reduce_argmax),
        cmocka_unit_test(test_reduce_specials),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_movement_misc),
        cmocka_unit_test(test_movement_multi),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_sort_topk),
        cmocka_unit_test(test_rng),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
