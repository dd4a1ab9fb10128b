/* The runtime's typed key sort (runtime/k_sort_keys.c): sort programs whose
 * comparator is one `compare DIR, a, b [, TYPE]` (or its mirror) on every
 * integer and float element type, LT/GT/LE/GE, FLOAT and TOTALORDER,
 * SIGNED/UNSIGNED, one operand (keys alone) or with an iota payload that
 * makes the order of equal keys visible, slices of 0, 1, 2 elements, around
 * the insertion-run, merge/radix and 8/11-bit digit thresholds, along the
 * first, middle and last dimension of rank 1-3 tensors, inputs drawn from a
 * few values (many ties) with -0/+0, infinities and NaNs of both signs.
 * Each program is compared with the reference interpreter bit for bit
 * (rt_check_exact: every ISA level, 1 and 2 threads, opt levels 0 and 2).
 * A few small cases are checked against orders written out by hand, and
 * 1M-element sorts against an independent check (sorted by the compare's
 * order, a permutation, equal keys in position order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

typedef struct sort_case {
    plumb_dtype t;
    const char *dir;     /* LT GT LE GE */
    const char *type;    /* FLOAT TOTALORDER SIGNED UNSIGNED, or "" for the default */
    bool swapped;        /* compare DIR, b, a */
    bool payload;        /* a second operand, i32 iota along the slice */
    bool key_second;     /* the payload is operand 0, the keys operand 1 */
    uint32_t rank;
    int64_t dims[3];
    int64_t dim;
} sort_case;

/* The program of c. */
static void sort_src(char *src, size_t cap, const sort_case *c)
{
    char kt[96], pt[96];
    rt_ty(kt, sizeof kt, c->t, c->rank, c->dims);
    rt_ty(pt, sizeof pt, PLUMB_I32, c->rank, c->dims);
    const char *tn = plumb_dtype_name(c->t);
    char cmp[256];
    const char *a = c->key_second ? "%c" : "%a", *b = c->key_second ? "%d" : "%b";
    snprintf(cmp, sizeof cmp, "      %%z = stablehlo.compare %s, %s, %s%s%s : (tensor<%s>, tensor<%s>) -> tensor<i1>\n",
             c->dir, c->swapped ? b : a, c->swapped ? a : b, *c->type ? ", " : "", c->type, tn, tn);
    if (!c->payload) {
        snprintf(src, cap,
                 "func.func @main(%%x: %s) -> %s {\n"
                 "  %%r = \"stablehlo.sort\"(%%x) <{dimension = %lld : i64, is_stable = true}> ({\n"
                 "    ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n%s"
                 "      stablehlo.return %%z : tensor<i1>\n"
                 "  }) : (%s) -> %s\n"
                 "  func.return %%r : %s\n}\n",
                 kt, kt, (long long)c->dim, tn, tn, cmp, kt, kt, kt);
        return;
    }
    const char *t0 = c->key_second ? pt : kt, *t1 = c->key_second ? kt : pt;
    const char *n0 = c->key_second ? "i32" : tn, *n1 = c->key_second ? tn : "i32";
    snprintf(src, cap,
             "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n"
             "  %%r:2 = \"stablehlo.sort\"(%%x, %%y) <{dimension = %lld : i64, is_stable = true}> ({\n"
             "    ^bb0(%%a: tensor<%s>, %%b: tensor<%s>, %%c: tensor<%s>, %%d: tensor<%s>):\n%s"
             "      stablehlo.return %%z : tensor<i1>\n"
             "  }) : (%s, %s) -> (%s, %s)\n"
             "  func.return %%r#0, %%r#1 : %s, %s\n}\n",
             t0, t1, t0, t1, (long long)c->dim, n0, n0, n1, n1, cmp, t0, t1, t0, t1, t0, t1);
}

static plumb_tensor *new_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    return x;
}

/* A value pattern of t: mostly from a pool of `pool` random patterns (ties),
 * the rest special values: +-0, +-inf and (when nans) NaNs of both signs. */
static uint64_t pick_bits(plumb_dtype t, const uint64_t *pool, unsigned pool_n, bool nans)
{
    const plumb_dtype_info *info = plumb_dtype_get(t);
    unsigned bits = info->bits;
    uint64_t sign = 1ull << (bits - 1), mask = bits == 64 ? ~0ull : (sign << 1) - 1;
    uint64_t r = rt_rand();
    if (!plumb_dtype_is_float(t) || r % 8) return pool[(r >> 8) % pool_n] & mask;
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    switch ((r >> 8) % 6) {
    case 0: return 0;
    case 1: return f && (f->nan == PLUMB_FPNAN_FNUZ || f->nan == PLUMB_FPNAN_E8M0) ? 1 : sign;   /* -0 */
    case 2:
    case 3: {   /* +-inf, or the largest finite value */
        uint64_t inf = f ? 0 : ((1ull << info->exp_bits) - 1) << info->mant_bits;
        if (f) inf = mask >> 1;
        return ((r >> 8) % 6 == 3 && !(f && f->nan == PLUMB_FPNAN_E8M0)) ? inf | sign : inf;
    }
    default: {   /* a NaN, or another pool value */
        if (!nans) return pool[(r >> 16) % pool_n] & mask;
        uint64_t nan = f ? (uint64_t)plumb_small_qnan(f) : (((1ull << info->exp_bits) - 1) << info->mant_bits) | (r >> 20 & ((1ull << info->mant_bits) - 1)) | 1;
        if (f && f->nan == PLUMB_FPNAN_NONE) return 0;
        if (!f && (r >> 16) & 1) nan |= sign;
        return nan & mask;
    }
    }
}

/* Inputs of c (keys drawn from `pool_n` random patterns plus specials,
 * payload iota along the flattened tensor), run on the reference and the
 * runtime, compared bit for bit. */
static void run_case(const sort_case *c, unsigned pool_n, bool nans)
{
    char src[4096];
    sort_src(src, sizeof src, c);
    plumb_tensor *k = new_tensor(c->t, c->rank, c->dims), *p = NULL;
    uint64_t n = plumb_tensor_numel(k), pool[64];
    assert_true(pool_n >= 1 && pool_n <= 64);
    for (unsigned i = 0; i < pool_n; i++) pool[i] = c->t == PLUMB_I1 ? rt_rand() & 1 : rt_rand();
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(c->t, k->data, (size_t)i, pick_bits(c->t, pool, pool_n, nans));
    if (c->payload) {
        p = new_tensor(PLUMB_I32, c->rank, c->dims);
        for (uint64_t i = 0; i < n; i++) plumb_store_bits(PLUMB_I32, p->data, (size_t)i, i);
        plumb_tensor *in[2] = {c->key_second ? p : k, c->key_second ? k : p};
        rt_check_exact(src, in, 2);
        plumb_tensor_free(p);
    } else {
        plumb_tensor *in[1] = {k};
        rt_check_exact(src, in, 1);
    }
    plumb_tensor_free(k);
}

static const plumb_dtype int_types[] = {PLUMB_I1, PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8, PLUMB_UI16,
                                        PLUMB_UI32, PLUMB_UI64, PLUMB_I2, PLUMB_I4, PLUMB_UI2, PLUMB_UI4};
static const plumb_dtype float_types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64, PLUMB_F8E4M3FN, PLUMB_F8E5M2,
                                          PLUMB_F8E4M3FNUZ, PLUMB_F8E8M0FNU, PLUMB_F6E2M3FN, PLUMB_F4E2M1FN};
static const char *const dirs[] = {"LT", "GT", "LE", "GE"};

/* Shape of a case: slice length len along dimension dim of a rank-1..3
 * tensor (the other extents small). */
static void shape(sort_case *c, int64_t len, unsigned form)
{
    switch (form % 4) {
    case 0: c->rank = 1; c->dims[0] = len; c->dim = 0; break;
    case 1: c->rank = 2; c->dims[0] = 3; c->dims[1] = len; c->dim = 1; break;
    case 2: c->rank = 2; c->dims[0] = len; c->dims[1] = 3; c->dim = 0; break;
    default: c->rank = 3; c->dims[0] = 2; c->dims[1] = len; c->dims[2] = 2; c->dim = 1; break;
    }
}

static const int64_t lens[] = {0, 1, 2, 3, 15, 16, 17, 33, 127, 128, 129, 300};

/* Integer types: every direction, mirrored and not, the default and the
 * spelled comparison type (SIGNED, or UNSIGNED for unsigned and i1), keys alone and with a payload in either operand
 * position, every length, every layout: the reference's bits. */
static void test_int_types(void **state)
{
    (void)state;
    unsigned form = 0;
    for (size_t ti = 0; ti < NELEM(int_types); ti++)
        for (size_t di = 0; di < NELEM(dirs); di++)
            for (int v = 0; v < 6; v++) {
                sort_case c;
                memset(&c, 0, sizeof c);
                c.t = int_types[ti];
                c.dir = dirs[di];
                c.type = v % 3 != 1 ? "" : plumb_dtype_is_signed(int_types[ti]) ? "SIGNED" : "UNSIGNED";
                c.swapped = (v + di) & 1;
                c.payload = v >= 2;
                c.key_second = v >= 4;
                shape(&c, lens[(ti * 7 + di * 3 + (size_t)v) % NELEM(lens)], form++);
                run_case(&c, v & 1 ? 3 : 40, false);
            }
}

/* Float types: every direction, mirrored and not, FLOAT (default and
 * spelled) and TOTALORDER, keys alone and with a payload; +-0, +-inf and
 * NaNs of both signs (TOTALORDER orders them; under FLOAT a slice with a
 * NaN takes the merge sort, one without the key sort). */
static void test_float_types(void **state)
{
    (void)state;
    unsigned form = 0;
    for (size_t ti = 0; ti < NELEM(float_types); ti++)
        for (size_t di = 0; di < NELEM(dirs); di++)
            for (int v = 0; v < 8; v++) {
                sort_case c;
                memset(&c, 0, sizeof c);
                c.t = float_types[ti];
                c.dir = dirs[di];
                c.type = v % 3 == 0 ? "" : v % 3 == 1 ? "FLOAT" : "TOTALORDER";
                c.swapped = (v + di) & 1;
                c.payload = v % 4 >= 2;
                c.key_second = v % 4 == 3;
                shape(&c, lens[(ti * 5 + di * 3 + (size_t)v) % NELEM(lens)], form++);
                run_case(&c, v & 1 ? 4 : 50, v >= 4);
            }
}

/* Long slices (radix sort, 8-bit digits and, from 64K elements, 11-bit
 * ones), few and many distinct keys, with and without payload, on the
 * types whose keys take each item layout (8, 16, 32 and 64 bits). */
static void test_long_slices(void **state)
{
    (void)state;
    static const plumb_dtype ts[] = {PLUMB_F32, PLUMB_I64, PLUMB_BF16, PLUMB_UI8, PLUMB_F64, PLUMB_I32};
    for (size_t ti = 0; ti < NELEM(ts); ti++)
        for (int v = 0; v < 4; v++) {
            sort_case c;
            memset(&c, 0, sizeof c);
            c.t = ts[ti];
            c.dir = dirs[(ti + (size_t)v) % 4];
            c.type = plumb_dtype_is_float(ts[ti]) ? (v & 1 ? "TOTALORDER" : "FLOAT") : "";
            c.swapped = v >= 2;
            c.payload = v & 1;
            c.rank = 1;
            c.dims[0] = v >= 2 ? 70001 : 2000;
            run_case(&c, v & 1 ? 64 : 5, false);
        }
    /* two slices of 40000 along dim 0 of a 40000x2 tensor */
    sort_case c;
    memset(&c, 0, sizeof c);
    c.t = PLUMB_F32;
    c.dir = "LT";
    c.type = "FLOAT";
    c.payload = true;
    c.rank = 2;
    c.dims[0] = 40000;
    c.dims[1] = 2;
    run_case(&c, 64, false);
}

/* FLOAT with a NaN in some slices only: those take the merge sort, the
 * rest the key sort; the reference's bits either way. */
static void test_float_nan_slices(void **state)
{
    (void)state;
    static const char *const src =
        "func.func @main(%x: tensor<4x200xf32>, %y: tensor<4x200xi32>) -> (tensor<4x200xf32>, tensor<4x200xi32>) {\n"
        "  %r:2 = \"stablehlo.sort\"(%x, %y) <{dimension = 1 : i64, is_stable = false}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
        "      %z = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "      stablehlo.return %z : tensor<i1>\n"
        "  }) : (tensor<4x200xf32>, tensor<4x200xi32>) -> (tensor<4x200xf32>, tensor<4x200xi32>)\n"
        "  func.return %r#0, %r#1 : tensor<4x200xf32>, tensor<4x200xi32>\n}\n";
    int64_t d[2] = {4, 200};
    plumb_tensor *x = rt_rand_tensor(PLUMB_F32, 2, d, false), *y = new_tensor(PLUMB_I32, 2, d);
    for (size_t i = 0; i < 800; i++) {
        plumb_store_bits(PLUMB_F32, x->data, i, plumb_f32_bits((float)(rt_rand() % 9) - 4.0f));
        plumb_store_bits(PLUMB_I32, y->data, i, i);
    }
    plumb_store_bits(PLUMB_F32, x->data, 17, 0x7FC00001);       /* row 0: +NaN */
    plumb_store_bits(PLUMB_F32, x->data, 400 + 3, 0xFFC00000);  /* row 2: -NaN */
    plumb_store_bits(PLUMB_F32, x->data, 200, 0x80000000);      /* row 1: -0 among +0s */
    plumb_tensor *in[2] = {x, y};
    rt_check_exact(src, in, 2);
    plumb_tensor_free(x);
    plumb_tensor_free(y);
}

/* Runs src on the runtime (opt level 0, every ISA level, 1 and 2 threads)
 * and checks output o's bits against want. */
static void expect_bits(const char *src, plumb_tensor *const *in, uint32_t n, uint32_t nout, uint32_t o,
                        plumb_dtype t, const uint64_t *want, size_t len)
{
    ir_module *m = rt_parse(src);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *got[RT_MAX_OUT];
            rt_exec_at(m, 0, (plumb_isa)isa, th, in, n, got, nout, NULL);
            for (size_t i = 0; i < len; i++) {
                uint64_t g = plumb_load_bits(t, got[o]->data, i);
                if (g != want[i])
                    fprintf(stderr, "isa %d threads %u element %zu: 0x%llx, want 0x%llx\n", isa, th, i,
                            (unsigned long long)g, (unsigned long long)want[i]);
                assert_true(g == want[i]);
            }
            rt_outs_free(got, nout);
        }
    ir_module_free(m);
}

static const char *const hand_src =
    "func.func @main(%%x: tensor<6xf32>, %%y: tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>) {\n"
    "  %%r:2 = \"stablehlo.sort\"(%%x, %%y) <{dimension = 0 : i64}> ({\n"
    "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>, %%c: tensor<i32>, %%d: tensor<i32>):\n"
    "      %%z = stablehlo.compare %s, %%a, %%b, %s : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "      stablehlo.return %%z : tensor<i1>\n"
    "  }) : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)\n"
    "  func.return %%r#0, %%r#1 : tensor<6xf32>, tensor<6xi32>\n}\n";

static void hand_case(const char *dir, const char *type, const uint32_t *x, const uint64_t *want_x,
                      const uint64_t *want_i)
{
    char src[2048];
    snprintf(src, sizeof src, hand_src, dir, type);
    int64_t d = 6;
    plumb_tensor *a = new_tensor(PLUMB_F32, 1, &d), *b = new_tensor(PLUMB_I32, 1, &d);
    for (size_t i = 0; i < 6; i++) {
        plumb_store_bits(PLUMB_F32, a->data, i, x[i]);
        plumb_store_bits(PLUMB_I32, b->data, i, i);
    }
    plumb_tensor *in[2] = {a, b};
    expect_bits(src, in, 2, 2, 0, PLUMB_F32, want_x, 6);
    expect_bits(src, in, 2, 2, 1, PLUMB_I32, want_i, 6);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
}

/* Orders written out by hand from IEEE 754 totalOrder and the merge sort's
 * tie rule (LE/GE: the right run goes first on a tie, so equal keys come
 * in decreasing position order). */
static void test_hand_orders(void **state)
{
    (void)state;
    /* [+NaN, -0, +0, -NaN, -inf, 1] */
    const uint32_t x[6] = {0x7FC00000, 0x80000000, 0x00000000, 0xFFC00000, 0xFF800000, 0x3F800000};
    /* TOTALORDER LT: -NaN < -inf < -0 < +0 < 1 < +NaN */
    const uint64_t lt_x[6] = {0xFFC00000, 0xFF800000, 0x80000000, 0x00000000, 0x3F800000, 0x7FC00000};
    const uint64_t lt_i[6] = {3, 4, 1, 2, 5, 0};
    hand_case("LT", "TOTALORDER", x, lt_x, lt_i);
    /* TOTALORDER GT: the reverse (all keys distinct) */
    const uint64_t gt_x[6] = {0x7FC00000, 0x3F800000, 0x00000000, 0x80000000, 0xFF800000, 0xFFC00000};
    const uint64_t gt_i[6] = {0, 5, 2, 1, 4, 3};
    hand_case("GT", "TOTALORDER", x, gt_x, gt_i);
    /* [2, -0, 1, +0, 1, -1] */
    const uint32_t y[6] = {0x40000000, 0x80000000, 0x3F800000, 0x00000000, 0x3F800000, 0xBF800000};
    /* FLOAT LT: -1, then -0 == +0 in position order (1, 3), 1 == 1 (2, 4), 2 */
    const uint64_t flt_x[6] = {0xBF800000, 0x80000000, 0x00000000, 0x3F800000, 0x3F800000, 0x40000000};
    const uint64_t flt_i[6] = {5, 1, 3, 2, 4, 0};
    hand_case("LT", "FLOAT", y, flt_x, flt_i);
    /* FLOAT LE: ties in decreasing position order: +0 (3) before -0 (1), 1 (4) before 1 (2) */
    const uint64_t fle_x[6] = {0xBF800000, 0x00000000, 0x80000000, 0x3F800000, 0x3F800000, 0x40000000};
    const uint64_t fle_i[6] = {5, 3, 1, 4, 2, 0};
    hand_case("LE", "FLOAT", y, fle_x, fle_i);
    /* FLOAT GE: 2, 1 (4), 1 (2), +0 (3), -0 (1), -1 */
    const uint64_t fge_x[6] = {0x40000000, 0x3F800000, 0x3F800000, 0x00000000, 0x80000000, 0xBF800000};
    const uint64_t fge_i[6] = {0, 4, 2, 3, 1, 5};
    hand_case("GE", "FLOAT", y, fge_x, fge_i);

    /* One operand (keys alone), FLOAT: [+0, -0, 3, -0, +0] sorts to the
     * zeros in input order, then 3. */
    static const char *const one =
        "func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {\n"
        "  %r = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "      %z = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "      stablehlo.return %z : tensor<i1>\n"
        "  }) : (tensor<5xf32>) -> tensor<5xf32>\n"
        "  func.return %r : tensor<5xf32>\n}\n";
    int64_t d = 5;
    plumb_tensor *z = new_tensor(PLUMB_F32, 1, &d);
    const uint32_t zin[5] = {0x00000000, 0x80000000, 0x40400000, 0x80000000, 0x00000000};
    for (size_t i = 0; i < 5; i++) plumb_store_bits(PLUMB_F32, z->data, i, zin[i]);
    const uint64_t zwant[5] = {0x00000000, 0x80000000, 0x80000000, 0x00000000, 0x40400000};
    plumb_tensor *in[1] = {z};
    expect_bits(one, in, 1, 1, 0, PLUMB_F32, zwant, 5);
    plumb_tensor_free(z);
    /* i8 SIGNED GT with payload: [-128, 127, 0, -1, 127] -> 127 (1), 127 (4), 0, -1, -128 */
    static const char *const i8s =
        "func.func @main(%x: tensor<5xi8>, %y: tensor<5xi32>) -> (tensor<5xi8>, tensor<5xi32>) {\n"
        "  %r:2 = \"stablehlo.sort\"(%x, %y) <{dimension = 0 : i64}> ({\n"
        "    ^bb0(%a: tensor<i8>, %b: tensor<i8>, %c: tensor<i32>, %d: tensor<i32>):\n"
        "      %z = stablehlo.compare GT, %a, %b : (tensor<i8>, tensor<i8>) -> tensor<i1>\n"
        "      stablehlo.return %z : tensor<i1>\n"
        "  }) : (tensor<5xi8>, tensor<5xi32>) -> (tensor<5xi8>, tensor<5xi32>)\n"
        "  func.return %r#0, %r#1 : tensor<5xi8>, tensor<5xi32>\n}\n";
    plumb_tensor *a = new_tensor(PLUMB_I8, 1, &d), *b = new_tensor(PLUMB_I32, 1, &d);
    const uint8_t ain[5] = {0x80, 0x7F, 0x00, 0xFF, 0x7F};
    for (size_t i = 0; i < 5; i++) {
        plumb_store_bits(PLUMB_I8, a->data, i, ain[i]);
        plumb_store_bits(PLUMB_I32, b->data, i, i);
    }
    const uint64_t i8x[5] = {0x7F, 0x7F, 0x00, 0xFF, 0x80}, i8i[5] = {1, 4, 2, 3, 0};
    plumb_tensor *in2[2] = {a, b};
    expect_bits(i8s, in2, 2, 2, 0, PLUMB_I8, i8x, 5);
    expect_bits(i8s, in2, 2, 2, 1, PLUMB_I32, i8i, 5);
    plumb_tensor_free(a);
    plumb_tensor_free(b);
}

/* The f32 totalOrder key, computed here from the definition. */
static uint32_t total_key32(uint32_t b) { return (b & 0x80000000u) ? ~b : b | 0x80000000u; }

static int cmp_total(const void *a, const void *b)
{
    uint32_t x = total_key32(*(const uint32_t *)a), y = total_key32(*(const uint32_t *)b);
    return (x > y) - (x < y);
}

/* 1M f32 (the sort_1m workload), alone and with an iota payload, few and
 * many distinct values: the result is checked without the reference (whose
 * region calls take minutes at this size): non-decreasing totalOrder keys,
 * with a payload the values are the inputs at the payload's positions and
 * equal keys hold increasing positions; alone, the bits equal the input
 * sorted by libc's qsort on the key (every key is one pattern). */
static void test_1m(void **state)
{
    (void)state;
    const int64_t n = 1 << 20;
    for (int v = 0; v < 4; v++) {
        bool payload = v & 1;
        uint32_t distinct = v < 2 ? 1000 : 0;   /* 0: arbitrary patterns */
        char src[2048];
        sort_case c;
        memset(&c, 0, sizeof c);
        c.t = PLUMB_F32;
        c.dir = "LT";
        c.type = "TOTALORDER";
        c.payload = payload;
        c.rank = 1;
        c.dims[0] = n;
        sort_src(src, sizeof src, &c);
        plumb_tensor *x = new_tensor(PLUMB_F32, 1, &n), *y = new_tensor(PLUMB_I32, 1, &n);
        uint32_t *xv = x->data;
        for (int64_t i = 0; i < n; i++) {
            uint32_t r = (uint32_t)rt_rand();
            xv[i] = distinct ? total_key32((uint32_t)(r % distinct) * 0x00400000u + 0x100u) : r;
            ((int32_t *)y->data)[i] = (int32_t)i;
        }
        ir_module *m = rt_parse(src);
        plumb_tensor *in[2] = {x, y};
        for (uint32_t th = 1; th <= 2; th++) {
            plumb_tensor *got[RT_MAX_OUT];
            rt_exec_at(m, 0, rt_hw_isa(), th, in, payload ? 2 : 1, got, payload ? 2 : 1, NULL);
            const uint32_t *gx = got[0]->data;
            for (int64_t i = 1; i < n; i++) assert_true(total_key32(gx[i - 1]) <= total_key32(gx[i]));
            if (payload) {
                const int32_t *gi = got[1]->data;
                uint8_t *seen = calloc((size_t)n, 1);
                assert_non_null(seen);
                for (int64_t i = 0; i < n; i++) {
                    assert_true(gi[i] >= 0 && gi[i] < n && !seen[gi[i]]);
                    seen[gi[i]] = 1;
                    assert_true(gx[i] == xv[gi[i]]);
                    if (i && gx[i] == gx[i - 1]) assert_true(gi[i - 1] < gi[i]);
                }
                free(seen);
            } else {
                /* alone: the input sorted here by libc's qsort on the key */
                uint32_t *want = malloc((size_t)n * sizeof *want);
                assert_non_null(want);
                memcpy(want, xv, (size_t)n * sizeof *want);
                qsort(want, (size_t)n, sizeof *want, cmp_total);
                assert_memory_equal(want, gx, (size_t)n * sizeof *want);
                free(want);
            }
            rt_outs_free(got, payload ? 2 : 1);
        }
        ir_module_free(m);
        plumb_tensor_free(x);
        plumb_tensor_free(y);
    }
}

static uint64_t total_key64(uint64_t b) { return (b >> 63) ? ~b : b | (1ull << 63); }

static int cmp_total64(const void *a, const void *b)
{
    uint64_t x = total_key64(*(const uint64_t *)a), y = total_key64(*(const uint64_t *)b);
    return (x > y) - (x < y);
}

/* 1M f64 alone, descending by totalOrder (GT; the 64-bit items of the
 * long-slice path): the input sorted here by libc's qsort and reversed. */
static void test_1m_f64(void **state)
{
    (void)state;
    const int64_t n = 1 << 20;
    char src[2048];
    sort_case c;
    memset(&c, 0, sizeof c);
    c.t = PLUMB_F64;
    c.dir = "GT";
    c.type = "TOTALORDER";
    c.rank = 1;
    c.dims[0] = n;
    sort_src(src, sizeof src, &c);
    plumb_tensor *x = new_tensor(PLUMB_F64, 1, &n);
    uint64_t *xv = x->data;
    for (int64_t i = 0; i < n; i++) xv[i] = i % 5 ? rt_rand() : plumb_f64_bits((double)(rt_rand() % 1000) - 500.0);
    uint64_t *want = malloc((size_t)n * sizeof *want);
    assert_non_null(want);
    memcpy(want, xv, (size_t)n * sizeof *want);
    qsort(want, (size_t)n, sizeof *want, cmp_total64);
    ir_module *m = rt_parse(src);
    plumb_tensor *in[1] = {x};
    for (uint32_t th = 1; th <= 2; th++) {
        plumb_tensor *got[RT_MAX_OUT];
        rt_exec_at(m, 0, rt_hw_isa(), th, in, 1, got, 1, NULL);
        const uint64_t *g = got[0]->data;
        for (int64_t i = 0; i < n; i++) assert_true(g[i] == want[n - 1 - i]);
        rt_outs_free(got, 1);
    }
    ir_module_free(m);
    free(want);
    plumb_tensor_free(x);
}

/* An element of an expected order: its key in the compare's order, a tie
 * rank (position, or minus it for LE/GE) and its position. */
typedef struct kpos {
    uint64_t key;
    int64_t tie, pos;
} kpos;

static int cmp_kpos(const void *a, const void *b)
{
    const kpos *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->tie > y->tie) - (x->tie < y->tie);
}

/* Slices long enough for the MSD pass made from the source (300000 keys
 * alone, from 2^18), in layouts and directions test_1m does not take:
 * f32 FLOAT LE along dim 0 of a 300000x2 tensor (stride 2, read backwards,
 * -0 and +0 equal: the zeros in decreasing position order), i32 GE along
 * the last dim of 2x300000 (descending, contiguous), f32 TOTALORDER GT
 * along dim 0 of 300000x3. The expected slice is written here from the
 * comparator's definition (keys from the bits, ties by position, qsort),
 * at every ISA level on 1 and 2 threads. A NaN under FLOAT makes the slice
 * leave this path for the merge sort: a permutation of the input, with the
 * NaN-free other slice as expected. */
static void test_msd_source_layouts(void **state)
{
    (void)state;
    const int64_t L = 300000;
    static const struct {
        plumb_dtype t;
        const char *dir, *type;
        int64_t d0, d1, dim;
        bool nan;
    } cs[] = {
        {PLUMB_F32, "LE", "FLOAT", 300000, 2, 0, false},
        {PLUMB_I32, "GE", "SIGNED", 2, 300000, 1, false},
        {PLUMB_F32, "GT", "TOTALORDER", 300000, 3, 0, false},
        {PLUMB_F32, "LT", "FLOAT", 2, 300000, 1, true},
    };
    for (size_t ci = 0; ci < NELEM(cs); ci++) {
        sort_case c;
        memset(&c, 0, sizeof c);
        c.t = cs[ci].t;
        c.dir = cs[ci].dir;
        c.type = cs[ci].type;
        c.rank = 2;
        c.dims[0] = cs[ci].d0;
        c.dims[1] = cs[ci].d1;
        c.dim = cs[ci].dim;
        char src[2048];
        sort_src(src, sizeof src, &c);
        plumb_tensor *x = new_tensor(c.t, 2, c.dims);
        uint32_t *xv = x->data;
        int64_t n = c.dims[0] * c.dims[1], nsl = n / L;
        int64_t stride = c.dim == 0 ? c.dims[1] : 1, outer = c.dim == 0 ? 1 : L;
        for (int64_t i = 0; i < n; i++) {
            uint32_t r = (uint32_t)rt_rand();
            /* ties: a few hundred values, zeros of both signs, some arbitrary patterns */
            xv[i] = r % 7 == 0 ? (r & 0x100 ? 0x80000000u : 0u) : r % 3 ? (r % 300) * 0x00400000u + 0x3f000000u : r;
            if (c.t == PLUMB_F32 && (xv[i] & 0x7f800000u) == 0x7f800000u) xv[i] &= 0xbfffffffu;   /* no NaN/inf */
        }
        if (cs[ci].nan) xv[12345] = 0x7fc00000u;   /* slice 0 (dim 1: slices are rows) */
        bool desc = c.dir[0] == 'G', rev = c.dir[1] == 'E';
        kpos *e = malloc((size_t)L * sizeof *e);
        uint32_t *want = malloc((size_t)n * sizeof *want);
        assert_non_null(e);
        assert_non_null(want);
        for (int64_t s = 0; s < nsl; s++) {
            int64_t base = s * outer;
            for (int64_t q = 0; q < L; q++) {
                uint32_t b = xv[base + q * stride];
                uint64_t k;
                if (c.t == PLUMB_I32) k = b ^ 0x80000000u;
                else if (!strcmp(c.type, "FLOAT") && (b & 0x7fffffffu) == 0) k = 0x80000000u;   /* -0 == +0 */
                else k = total_key32(b);
                e[q].key = desc ? ~k & 0xffffffffu : k;
                e[q].tie = rev ? -q : q;
                e[q].pos = q;
            }
            qsort(e, (size_t)L, sizeof *e, cmp_kpos);
            for (int64_t q = 0; q < L; q++) want[base + q * stride] = xv[base + e[q].pos * stride];
        }
        ir_module *m = rt_parse(src);
        plumb_tensor *in[1] = {x};
        for (int isa = (int)PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
            for (uint32_t th = 1; th <= 2; th++) {
                plumb_tensor *got[RT_MAX_OUT];
                rt_exec_at(m, 0, (plumb_isa)isa, th, in, 1, got, 1, NULL);
                const uint32_t *g = got[0]->data;
                if (!cs[ci].nan) {
                    assert_memory_equal(want, g, (size_t)n * sizeof *g);
                } else {
                    /* slice 1 as expected; slice 0 (the NaN's) a permutation */
                    assert_memory_equal(want + L, g + L, (size_t)L * sizeof *g);
                    uint32_t *a = malloc((size_t)L * sizeof *a), *b = malloc((size_t)L * sizeof *b);
                    assert_non_null(a);
                    assert_non_null(b);
                    memcpy(a, xv, (size_t)L * sizeof *a);
                    memcpy(b, g, (size_t)L * sizeof *b);
                    qsort(a, (size_t)L, sizeof *a, cmp_total);
                    qsort(b, (size_t)L, sizeof *b, cmp_total);
                    assert_memory_equal(a, b, (size_t)L * sizeof *a);
                    free(a);
                    free(b);
                }
                rt_outs_free(got, 1);
            }
        ir_module_free(m);
        free(e);
        free(want);
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
        cmocka_unit_test(test_hand_orders),
        cmocka_unit_test(test_int_types),
        cmocka_unit_test(test_float_types),
        cmocka_unit_test(test_float_nan_slices),
        cmocka_unit_test(test_long_slices),
        cmocka_unit_test(test_1m),
        cmocka_unit_test(test_1m_f64),
        cmocka_unit_test(test_msd_source_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
