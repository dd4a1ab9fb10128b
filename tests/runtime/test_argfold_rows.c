/* Row argmax/argmin in one pass (runtime/k_argfold.c, af_row1_f32 and
 * af_p1i_f32) and the memo of tabulated bodies (af_table).
 *
 * An f32 reduce of (x, iota) pairs over the innermost dim with an argmax
 * or argmin body finds each row's best and its first position in one
 * pass: per vector lane the best so far and where it was first reached,
 * then the least position among the lanes holding the row's best. The
 * result must be the reference interpreter's bit for bit (argmax and
 * argmin are exact: ties to the lowest index, the body's own NaN rule) at
 * every ISA level the CPU has, on 1 and 2 threads. Rows are laid out so
 * that every lane split is met: lengths around the vector widths (8, 16,
 * 32, 64) and their tails, the best tied in two lanes where the later
 * lane holds the earlier position, the best first, last and in the tail;
 * rows whose best equals the init (all -inf), holds a NaN, or is zero (the
 * general row code and the sequential fold). Expected values come from
 * the reference, and for one program by hand.
 *
 * The memo: a body is tabulated once per process; bodies that differ only
 * in a compare direction or in the index type get their own tables. */
#include <math.h>
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
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_argfold.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* argmax without a NaN check (the bench suite's), jax's argmax (NaN wins),
 * argmin; and argmax with ties to the higher index (not of the class). */
static const char body_max[] =
    "    %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare LT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<f32>\n"
    "    %k2 = stablehlo.select %take, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<f32>, tensor<IT>\n";
static const char body_high[] =
    "    %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare GT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<f32>\n"
    "    %k2 = stablehlo.select %take, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<f32>, tensor<IT>\n";
static const char body_jax[] =
    "    %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %nan = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %p = stablehlo.or %gt, %nan : tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare LT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %pi = stablehlo.or %p, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %p, %a, %c : tensor<i1>, tensor<f32>\n"
    "    %k2 = stablehlo.select %pi, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<f32>, tensor<IT>\n";
static const char body_min[] =
    "    %lt0 = stablehlo.compare LT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    %lt = stablehlo.compare LT, %b, %e : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %lt0, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<f32>\n"
    "    %k2 = stablehlo.select %take, %b, %e : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<f32>, tensor<IT>\n";

/* @main(x: rows x n f32) -> (values, indices): the fold of (x, iota along
 * dim 1) over dim 1 from (init, 0); IT the index type. */
static ir_module *row_prog(const char *body, const char *it, int64_t rows, int64_t n, const char *init)
{
    static char b1[2048], src[8192];
    size_t o = 0, il = strlen(it);
    for (const char *q = body; *q;) {
        if (q[0] == 'I' && q[1] == 'T') {
            memcpy(b1 + o, it, il);
            o += il;
            q += 2;
        } else {
            b1[o++] = *q++;
        }
        assert_true(o + 8 < sizeof b1);
    }
    b1[o] = 0;
    long long r = rows, c = n;
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%lldx%lldxf32>) -> (tensor<%lldxf32>, tensor<%lldx%s>) {\n"
             "  %%i = stablehlo.iota dim = 1 : tensor<%lldx%lldx%s>\n"
             "  %%v0 = stablehlo.constant dense<%s> : tensor<f32>\n"
             "  %%i0 = stablehlo.constant dense<0> : tensor<%s>\n"
             "  %%v, %%k = stablehlo.reduce(%%x init: %%v0), (%%i init: %%i0) across dimensions = [1] :"
             " (tensor<%lldx%lldxf32>, tensor<%lldx%lldx%s>, tensor<f32>, tensor<%s>) -> (tensor<%lldxf32>, tensor<%lldx%s>)\n"
             "   reducer(%%a: tensor<f32>, %%c: tensor<f32>) (%%b: tensor<%s>, %%e: tensor<%s>) {\n"
             "%s"
             "  }\n"
             "  func.return %%v, %%k : tensor<%lldxf32>, tensor<%lldx%s>\n}\n",
             r, c, r, r, it, r, c, it, init, it, r, c, r, c, it, it, r, r, it, it, it, b1, r, r, it);
    return parse_ok(src);
}

static void put(plumb_tensor *x, uint64_t i, float v) { ((float *)x->data)[i] = v; }

/* rows x n: row kinds by row number (see the top); values small integers
 * so that ties are common, the best placed or doubled where it tests the
 * lane split. lo: -1 for argmin's mirror. */
static plumb_tensor *rows_input(int64_t rows, int64_t n, float sign)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[2] = {rows, n};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(x);
    for (int64_t r = 0; r < rows; r++) {
        uint64_t b = (uint64_t)(r * n);
        for (int64_t i = 0; i < n; i++) put(x, b + (uint64_t)i, sign * (float)((int)(next32() % 13) - 6));
        float big = sign * 7.5f;
        switch (r % 12) {
        case 0: put(x, b, big); break;                                  /* first */
        case 1: put(x, b + (uint64_t)(n - 1), big); break;              /* last (the tail) */
        case 2:                                                          /* a later lane, an earlier block */
            put(x, b + (uint64_t)(n - 1), big);
            if (n > 20) put(x, b + 20, big);
            if (n > 5) put(x, b + 5 + (uint64_t)(n - 6) / 2, big);
            break;
        case 3:                                                          /* every element the best */
            for (int64_t i = 0; i < n; i++) put(x, b + (uint64_t)i, big);
            break;
        case 4:                                                          /* all -inf (argmax: the init's) */
            for (int64_t i = 0; i < n; i++) put(x, b + (uint64_t)i, sign * -INFINITY);
            break;
        case 5: put(x, b + next32() % (uint64_t)n, NAN); break;         /* a NaN */
        case 6:                                                          /* a zero best */
            for (int64_t i = 0; i < n; i++) put(x, b + (uint64_t)i, sign * -(float)(1 + next32() % 4));
            put(x, b + next32() % (uint64_t)n, (next32() & 1) ? 0.0f : -0.0f);
            break;
        case 7: put(x, b + next32() % (uint64_t)n, sign * INFINITY); break;   /* +inf best */
        default: break;                                                  /* random ties */
        }
    }
    return x;
}

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

/* m at every level the CPU has, 1 and 2 threads, opt level 2: both
 * results equal the reference's bits. Returns the rows the one pass took
 * (summed over the runs). */
static uint64_t check_rows(const ir_module *m, plumb_tensor *x, const char *what)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    plumb_tensor *in[1] = {x};
    bool ok = plumb_ref_run(m, NULL, in, 1, NULL, &res, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    uint64_t one0 = rt_argfold_onepass();
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **o = run_program(m, 2, th, (plumb_isa)isa, in, 1, 2);
            for (uint32_t r = 0; r < 2; r++) {
                const plumb_tensor *e = res.outputs[r];
                bool eq = o[r]->dtype == e->dtype && o[r]->nbytes == e->nbytes &&
                          (e->nbytes == 0 || memcmp(o[r]->data, e->data, e->nbytes) == 0);
                if (!eq) {
                    fprintf(stderr, "%s: isa %d threads %u output %u differs\n", what, isa, th, r);
                    size_t es = plumb_dtype_size(e->dtype);
                    for (size_t k = 0; k * es < e->nbytes; k++)
                        if (memcmp((const char *)o[r]->data + k * es, (const char *)e->data + k * es, es)) {
                            fprintf(stderr, "  first at row %zu\n", k);
                            break;
                        }
                }
                assert_true(eq);
            }
            run_free_outs(o, 2);
        }
    }
    plumb_ref_result_free(&res);
    return rt_argfold_onepass() - one0;
}

/* Lengths around every vector width and unroll, and a long row; argmax
 * (with and without a NaN check) and argmin; i32, i64 and ui8 indices
 * (a ui8 iota wraps at 256: 300 columns are not non-decreasing, so not
 * the one pass). Each row kind of rows_input, equal to the reference; the
 * one pass took rows at every level. */
static void test_rows_against_reference(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 300, 1037};
    static const struct {
        const char *body, *init;
        float sign;
    } bodies[] = {{body_max, "0xFF800000", 1.0f}, {body_jax, "0xFF800000", 1.0f}, {body_min, "0x7F800000", -1.0f}};
    static const char *const its[] = {"i32", "i64", "ui8"};
    char what[128];
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t bi = 0; bi < sizeof bodies / sizeof bodies[0]; bi++)
            for (size_t ti = 0; ti < sizeof its / sizeof its[0]; ti++) {
                if (ti > 0 && lens[li] != 300 && lens[li] != 33 && lens[li] != 1037) continue;
                int64_t rows = 24;
                ir_module *m = row_prog(bodies[bi].body, its[ti], rows, lens[li], bodies[bi].init);
                plumb_tensor *x = rows_input(rows, lens[li], bodies[bi].sign);
                snprintf(what, sizeof what, "n %lld body %zu %s", (long long)lens[li], bi, its[ti]);
                uint64_t one = check_rows(m, x, what);
                bool wraps = ti == 2 && lens[li] > 256;
                /* rows 0-3 and 7-11 of each 12 (not the init's, NaN or zero) */
                if (!wraps) assert_true(one > 0);
                else assert_int_equal(one, 0);
                plumb_tensor_free(x);
                ir_module_free(m);
            }
}

/* By hand, argmax over rows of 40 with i32 indices: 3.0 at positions 33
 * and 17 (lanes 1 of two 16-wide blocks, the later block's lane holds the
 * earlier position in the AVX2 split too) -> (3.0, 17); the best in the
 * last element -> 39; -inf everywhere -> (-inf, 0), the init's pair. */
static void test_by_hand(void **state)
{
    (void)state;
    ir_module *m = row_prog(body_max, "i32", 3, 40, "0xFF800000");
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[2] = {3, 40};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(x);
    for (uint64_t i = 0; i < 40; i++) {
        put(x, i, -1.0f);
        put(x, 40 + i, (float)i * 0.0625f);
        put(x, 80 + i, -INFINITY);
    }
    put(x, 33, 3.0f);
    put(x, 17, 3.0f);
    plumb_tensor *in[1] = {x};
    for (int isa = PLUMB_ISA_PORTABLE; isa <= PLUMB_ISA_AVX512; isa++) {
        if (!has_isa(isa)) continue;
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor **o = run_program(m, 2, th, (plumb_isa)isa, in, 1, 2);
            const float *val = o[0]->data;
            const int32_t *idx = o[1]->data;
            assert_int_equal(idx[0], 17);
            assert_true(val[0] == 3.0f);
            assert_int_equal(idx[1], 39);
            assert_true(val[1] == 39 * 0.0625f);
            assert_int_equal(idx[2], 0);
            assert_true(val[2] == -INFINITY);
            run_free_outs(o, 2);
        }
    }
    plumb_tensor_free(x);
    ir_module_free(m);
}

/* The memo: a body run again (another size, another runtime) is not
 * tabulated again; a body that differs only in the index compare's
 * direction (ties to the higher index: not of the class) or only in the
 * index type is tabulated anew, and each gives the reference's bits, so
 * no body is served another's table. */
static void test_memo(void **state)
{
    (void)state;
    ir_module *a = row_prog(body_max, "i32", 12, 33, "0xFF800000");
    ir_module *a2 = row_prog(body_max, "i32", 12, 70, "0xFF800000");
    ir_module *h = row_prog(body_high, "i32", 12, 33, "0xFF800000");
    ir_module *w = row_prog(body_max, "i16", 12, 33, "0xFF800000");
    plumb_tensor *x = rows_input(12, 33, 1.0f), *x2 = rows_input(12, 70, 1.0f);
    uint64_t t0 = rt_argfold_tabulations();
    check_rows(a, x, "memo: first");
    uint64_t t1 = rt_argfold_tabulations();
    assert_true(t1 - t0 <= 1);   /* 0 when an earlier test tabulated it */
    check_rows(a2, x2, "memo: again");
    assert_int_equal(rt_argfold_tabulations(), t1);
    uint64_t t2 = rt_argfold_tabulations();
    check_rows(h, x, "memo: ties to the higher index");
    assert_int_equal(rt_argfold_tabulations() - t2, 1);
    check_rows(w, x, "memo: i16 indices");
    assert_int_equal(rt_argfold_tabulations() - t2, 2);
    check_rows(h, x, "memo: ties to the higher index, again");
    assert_int_equal(rt_argfold_tabulations() - t2, 2);
    plumb_tensor_free(x);
    plumb_tensor_free(x2);
    ir_module_free(a);
    ir_module_free(a2);
    ir_module_free(h);
    ir_module_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_against_reference),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
