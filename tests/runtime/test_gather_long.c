/* gather's long rows decoded a block at a time (runtime/k_index.c,
 * gather_long_range): an embedding lookup whose result is large enough
 * for streaming stores (at least 8 MiB, rt_copy.h), rows of 2,080 bytes (not
 * a multiple of a cache line), a row count that is not a multiple of the
 * decode block (512) and start indices out of range on both sides,
 * including the index types' extremes. The expected rows are derived from
 * the StableHLO spec's gather semantics, not from the code under test:
 * result row r is operand row clamp(index[r], 0, rows - 1) (the start
 * clamped into [0, operand dim - slice size]); an unsigned index past
 * int64's range is a too-large start. Checked at every ISA level the CPU
 * has, on 1 and 2 threads. The smaller long-row layouts (several start
 * indices, batch and batching dimensions, every element and index type)
 * are test_gather_rows.c's, against the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/dtype.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"

#define TROWS 4099
#define TCOLS 520
#define K 4100

static bool has_isa(int isa)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == PLUMB_ISA_AVX2) return __builtin_cpu_supports("avx2");
    if (isa == PLUMB_ISA_AVX512) return __builtin_cpu_supports("avx512f");
    return true;
#else
    return isa == PLUMB_ISA_PORTABLE;
#endif
}

/* The gather of K rows of TCOLS f32 from a TROWS x TCOLS table by a Kx1
 * index tensor of type it. */
static ir_module *embed_prog(const char *it)
{
    char s[1400];
    snprintf(s, sizeof s,
             "func.func @main(%%t: tensor<%dx%dxf32>, %%i: tensor<%dx1x%s>) -> tensor<%dx%dxf32> {\n"
             "  %%g = \"stablehlo.gather\"(%%t, %%i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
             "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %d>}> "
             ": (tensor<%dx%dxf32>, tensor<%dx1x%s>) -> tensor<%dx%dxf32>\n"
             "  func.return %%g : tensor<%dx%dxf32>\n}\n",
             TROWS, TCOLS, K, it, K, TCOLS, TCOLS, TROWS, TCOLS, K, it, K, TCOLS, K, TCOLS);
    return parse_ok(s);
}

/* Index r of the program as a signed value: out of range on both sides
 * (unsigned types: never negative), the ends, and random rows. */
static int64_t index_value(uint32_t r, uint64_t *state, bool is_unsigned)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    switch (r % 16) {
    case 0: return is_unsigned ? 0 : -1;
    case 1: return is_unsigned ? TROWS - 1 : -3000;
    case 2: return TROWS;                       /* one past the end */
    case 3: return 100000;                      /* far past */
    case 4: return TROWS - 1;
    case 5: return 0;
    default: return (int64_t)(*state % TROWS);
    }
}

/* The table's element (row, col): a pattern that names its place. */
static float cell(int64_t row, int64_t col) { return (float)(row * 1000 + col) + 0.25f; }

/* One index type: the result equals the spec's rows at every level and
 * thread count. */
static void check_type(plumb_dtype itype, const char *it)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t tdims[2] = {TROWS, TCOLS}, idims[2] = {K, 1};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 2, tdims, 0, &d), *ix = plumb_tensor_new(itype, 2, idims, 0, &d);
    assert_non_null(t);
    assert_non_null(ix);
    float *tv = t->data;
    for (int64_t r = 0; r < TROWS; r++)
        for (int64_t c = 0; c < TCOLS; c++) tv[r * TCOLS + c] = cell(r, c);
    bool uns = !plumb_dtype_is_signed(itype);
    uint64_t st = 0x9E3779B97F4A7C15ull;
    int64_t *want_row = malloc(K * sizeof *want_row);
    assert_non_null(want_row);
    for (uint32_t r = 0; r < K; r++) {
        int64_t v = index_value(r, &st, uns);
        /* extremes of the type in a few rows */
        if (r == 7) v = uns ? -1 : INT64_MIN;   /* unsigned: all ones (the top) */
        if (r == 8 && !uns) v = INT64_MAX;
        uint64_t bits = (uint64_t)v;
        if (itype == PLUMB_I32) {
            if (r == 7) bits = 0x80000000u;
            if (r == 8) bits = 0x7fffffffu;
        }
        plumb_store_bits(itype, ix->data, r, bits);
        /* the index as the type holds it, then the spec's clamp */
        uint64_t held = plumb_load_bits(itype, ix->data, r);
        unsigned w = (unsigned)plumb_dtype_size(itype) * 8;
        int64_t s;
        if (uns) s = w == 64 && held > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)held;
        else s = w == 64 ? (int64_t)held : (int64_t)(held ^ (1ull << (w - 1))) - (int64_t)(1ull << (w - 1));
        want_row[r] = s < 0 ? 0 : s > TROWS - 1 ? TROWS - 1 : s;
    }
    ir_module *m = embed_prog(it);
    plumb_tensor *in[2] = {t, ix};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **o = run_program(m, 2, th, (plumb_isa)isa, in, 2, 1);
            assert_int_equal(o[0]->nbytes, (size_t)K * TCOLS * 4);
            const float *g = o[0]->data;
            for (uint32_t r = 0; r < K; r++) {
                const float *want = tv + want_row[r] * TCOLS;
                if (memcmp(g + (size_t)r * TCOLS, want, TCOLS * sizeof(float)) != 0) {
                    fprintf(stderr, "%s: isa %d threads %u: row %u is not operand row %lld\n", it, isa, th, r,
                            (long long)want_row[r]);
                    fail();
                }
            }
            run_free_outs(o, 1);
        }
    }
    ir_module_free(m);
    free(want_row);
    plumb_tensor_free(t);
    plumb_tensor_free(ix);
}

/* i32 (the embedding lookup's), i64 and ui64 indices (a top past int64's
 * range). */
static void test_streamed_long_rows(void **state)
{
    (void)state;
    check_type(PLUMB_I32, "i32");
    check_type(PLUMB_I64, "i64");
    check_type(PLUMB_UI64, "ui64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed_long_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
