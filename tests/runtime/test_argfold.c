/* Pair folds (runtime/k_argfold.c): two-input reduces whose body selects
 * one of two (value, index) candidates, recognised by evaluating the body
 * and folded in any order. Against the reference interpreter bit for bit
 * at every ISA level the CPU has, on 1 and 2 threads, at opt levels 0 and
 * 2 (rt_test.h): argmax and argmin as jax writes them (NaN check, lowest
 * index on ties), the broad suite's body (no NaN check), a TOTALORDER
 * variant and a body written from the element's side; f32, f64, f16,
 * bf16, i32, i8 and ui8 values with i32 and i64 indices; rows, columns,
 * the middle dim of rank 3, two adjacent dims, rows of length 1 and 0;
 * NaNs of both signs, infinities, -0 and +0, ties, all-equal rows; iota
 * indices and arbitrary ones (duplicates, negatives). Hand-derived
 * results for a few rows. Bodies that look alike but are not a selection
 * rule of the class (ties to the higher index, a mixed pair, compare GE
 * without the index tie break, a value chosen by the indices) must not
 * take the pair fold (its run counter) and still equal the reference. */
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

#include "../../runtime/rt_argfold.h"
#include "runtime/rt_test.h"

/* ---- bodies (VT: value type, IT: index type) ------------------------------------ */

#define CMPV(name, dir, x, y, extra) \
    "    %" name " = stablehlo.compare " dir ", %" x ", %" y extra " : (tensor<VT>, tensor<VT>) -> tensor<i1>\n"
#define CMPI(name, dir, x, y) \
    "    %" name " = stablehlo.compare " dir ", %" x ", %" y " : (tensor<IT>, tensor<IT>) -> tensor<i1>\n"
#define RET2(v, k)                                                        \
    "    %v2 = stablehlo.select %" v ", %a, %c : tensor<i1>, tensor<VT>\n" \
    "    %k2 = stablehlo.select %" k ", %b, %e : tensor<i1>, tensor<IT>\n" \
    "    stablehlo.return %v2, %k2 : tensor<VT>, tensor<IT>\n"

/* jax.lax.argmax/argmin: pick = cmp(a, c) or isnan(a); index also on
 * equal values with the lower index */
#define JAX_BODY(dir)                                                     \
    CMPV("gt", dir, "a", "c", "") CMPV("nan", "NE", "a", "a", "")         \
    "    %p = stablehlo.or %gt, %nan : tensor<i1>\n"                      \
    CMPV("eq", "EQ", "a", "c", "") CMPI("lt", "LT", "b", "e")             \
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"                    \
    "    %pi = stablehlo.or %p, %tie : tensor<i1>\n" RET2("p", "pi")
/* bench/bench_broad.c b_argmax (no NaN check) */
#define BENCH_BODY(dir, idir)                                             \
    CMPV("gt", dir, "a", "c", "") CMPV("eq", "EQ", "a", "c", "")          \
    CMPI("lt", idir, "b", "e")                                            \
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"                    \
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n" RET2("take", "take")

static const char body_jax_max[] = JAX_BODY("GT");
static const char body_jax_min[] = JAX_BODY("LT");
static const char body_bench_max[] = BENCH_BODY("GT", "LT");
static const char body_bench_min[] = BENCH_BODY("LT", "LT");
/* IEEE totalOrder compares: -NaN lowest, +NaN highest, -0 < +0 */
static const char body_total_max[] =
    CMPV("gt", "GT", "a", "c", ", TOTALORDER") CMPV("eq", "EQ", "a", "c", ", TOTALORDER") CMPI("lt", "LT", "b", "e")
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n" RET2("take", "take");
/* from the element's side: take the element when it is smaller, or equal
 * with a lower index (argmin), written with not and select on i1 */
static const char body_elem_min[] =
    CMPV("lt", "LT", "c", "a", "") CMPV("eq", "EQ", "c", "a", "") CMPI("il", "LT", "e", "b")
    "    %tie = stablehlo.and %eq, %il : tensor<i1>\n"
    "    %te = stablehlo.select %lt, %lt, %tie : tensor<i1>, tensor<i1>\n"
    "    %keep = stablehlo.not %te : tensor<i1>\n" RET2("keep", "keep");

/* not of the class */
static const char body_neg_high[] = BENCH_BODY("GT", "GT");   /* ties to the higher index */
static const char body_neg_mix[] =                             /* index of the loser */
    CMPV("gt", "GT", "a", "c", "") CMPV("eq", "EQ", "a", "c", "") CMPI("lt", "LT", "b", "e")
    "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    "    %take = stablehlo.or %gt, %tie : tensor<i1>\n"
    "    %v2 = stablehlo.select %take, %a, %c : tensor<i1>, tensor<VT>\n"
    "    %k2 = stablehlo.select %take, %e, %b : tensor<i1>, tensor<IT>\n"
    "    stablehlo.return %v2, %k2 : tensor<VT>, tensor<IT>\n";
static const char body_neg_ge[] = CMPV("ge", "GE", "a", "c", "") RET2("ge", "ge");   /* no index tie break */
static const char body_neg_vidx[] =                                                    /* value chosen by index */
    CMPV("gt", "GT", "a", "c", "") CMPI("lt", "LT", "b", "e") RET2("lt", "gt");

/* ---- programs --------------------------------------------------------------------- */

typedef struct shape {
    uint32_t rank;
    int64_t dims[3];
    uint32_t nrd;
    int64_t rd[2];
} shape;

/* rows, columns (two strips of 256), the middle dim of rank 3, the last of
 * rank 3, rows of length 1 and 0, one long row (vector tails), two
 * adjacent dims, two apart (not the class's layout: the generic path) */
static const shape shapes[] = {
    {2, {37, 29}, 1, {1}},  {2, {9, 600}, 1, {0}},  {3, {5, 6, 13}, 1, {1}}, {3, {4, 3, 70}, 1, {2}},
    {2, {50, 1}, 1, {1}},   {2, {6, 0}, 1, {1}},    {1, {1037}, 1, {0}},     {3, {2, 3, 40}, 2, {0, 1}},
    {3, {3, 4, 5}, 2, {0, 2}},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0], SHAPE_APART = NSHAPES - 1 };

static void replace_all(char *dst, size_t cap, const char *src, const char *pat, const char *rep)
{
    size_t o = 0, pl = strlen(pat), rl = strlen(rep);
    while (*src) {
        if (strncmp(src, pat, pl) == 0) {
            assert_true(o + rl < cap);
            memcpy(dst + o, rep, rl);
            o += rl;
            src += pl;
        } else {
            assert_true(o + 1 < cap);
            dst[o++] = *src++;
        }
    }
    dst[o] = 0;
}

/* @main(x, [idx,] v0, i0) -> (values, indices): the reduce of (x, idx)
 * over s's dims with body; idx an iota along the first reduced dim when
 * iota. */
static void prog(char *src, size_t cap, const char *body, plumb_dtype vt, plumb_dtype it, const shape *s, bool iota)
{
    char tin[128], tix[128], tov[128], toi[128], dl[32] = "";
    int64_t od[3];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < s->rank; d++) {
        bool r = false;
        for (uint32_t i = 0; i < s->nrd; i++) r |= s->rd[i] == (int64_t)d;
        if (!r) od[orank++] = s->dims[d];
    }
    for (uint32_t i = 0, o = 0; i < s->nrd; i++)
        o += (uint32_t)snprintf(dl + o, sizeof dl - o, "%s%lld", i ? ", " : "", (long long)s->rd[i]);
    rt_ty(tin, sizeof tin, vt, s->rank, s->dims);
    rt_ty(tix, sizeof tix, it, s->rank, s->dims);
    rt_ty(tov, sizeof tov, vt, orank, od);
    rt_ty(toi, sizeof toi, it, orank, od);
    const char *vn = plumb_dtype_name(vt), *in_ = plumb_dtype_name(it);
    char head[1024], b1[4096], b2[4096];
    if (iota)
        snprintf(head, sizeof head,
                 "func.func @main(%%x: %s, %%v0: tensor<%s>, %%i0: tensor<%s>) -> (%s, %s) {\n"
                 "  %%i = stablehlo.iota dim = %lld : %s\n",
                 tin, vn, in_, tov, toi, (long long)s->rd[0], tix);
    else
        snprintf(head, sizeof head,
                 "func.func @main(%%x: %s, %%i: %s, %%v0: tensor<%s>, %%i0: tensor<%s>) -> (%s, %s) {\n", tin, tix,
                 vn, in_, tov, toi);
    replace_all(b1, sizeof b1, body, "VT", vn);
    replace_all(b2, sizeof b2, b1, "IT", in_);
    int n = snprintf(src, cap,
                     "%s"
                     "  %%v, %%k = stablehlo.reduce(%%x init: %%v0), (%%i init: %%i0) across dimensions = [%s] :"
                     " (%s, %s, tensor<%s>, tensor<%s>) -> (%s, %s)\n"
                     "   reducer(%%a: tensor<%s>, %%c: tensor<%s>) (%%b: tensor<%s>, %%e: tensor<%s>) {\n"
                     "%s"
                     "  }\n"
                     "  func.return %%v, %%k : %s, %s\n}\n",
                     head, dl, tin, tix, vn, in_, tov, toi, vn, vn, in_, in_, b2, tov, toi);
    assert_true(n > 0 && (size_t)n < cap);
}

/* ---- data ------------------------------------------------------------------------- */

/* Values with many ties: floats from {-2, -1, -0, +0, 1, 2} and, with
 * specials, NaNs of both signs and two payloads and infinities in about
 * one element of five; integers from {MIN, -1, 0, 1, MAX, 5} (bit
 * patterns of the width). */
static uint64_t pick_value(plumb_dtype t, uint64_t r, bool specials)
{
    if (plumb_dtype_is_float(t)) {
        static const double v[] = {-2, -1, -0.0, 0.0, 1, 2};
        double d = v[r % 6];
        if (specials && (r >> 8) % 5 == 0) {
            static const double sp[] = {INFINITY, -INFINITY, NAN, -NAN};
            d = sp[(r >> 16) % 4];
        }
        uint64_t b;
        switch (t) {
        case PLUMB_F32: b = plumb_f32_bits((float)d); break;
        case PLUMB_F64: b = plumb_f64_bits(d); break;
        case PLUMB_F16: b = plumb_f64_to_f16(d); break;
        default: b = plumb_f64_to_bf16(d); break;
        }
        if (isnan(d) && (r >> 20) & 1) b |= 1;   /* a second payload */
        return b;
    }
    unsigned w = plumb_dtype_table[t].bits;
    uint64_t s = 1ull << (w - 1), m = w == 64 ? ~0ull : (1ull << w) - 1;
    const uint64_t v[6] = {s, m, 0, 1, s - 1, 5};
    return v[r % 6];
}

static plumb_tensor *values(plumb_dtype t, const shape *s, bool specials)
{
    plumb_tensor *x = rt_rand_tensor(t, s->rank, s->dims, false);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, i, pick_value(t, rt_rand(), specials));
    return x;
}

/* arbitrary indices: -3..3 (duplicates, negatives) */
static plumb_tensor *indices(plumb_dtype t, const shape *s)
{
    plumb_tensor *x = rt_rand_tensor(t, s->rank, s->dims, false);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, i, (uint64_t)((int64_t)(rt_rand() % 7) - 3));
    return x;
}

/* the init value: the worst for the direction, or a NaN, or 1 */
static uint64_t init_value(plumb_dtype t, bool max, int which)
{
    if (plumb_dtype_is_float(t)) {
        double d = which == 0 ? (max ? -INFINITY : INFINITY) : which == 1 ? NAN : 1.0;
        switch (t) {
        case PLUMB_F32: return plumb_f32_bits((float)d);
        case PLUMB_F64: return plumb_f64_bits(d);
        case PLUMB_F16: return plumb_f64_to_f16(d);
        default: return plumb_f64_to_bf16(d);
        }
    }
    unsigned w = plumb_dtype_table[t].bits;
    uint64_t s = 1ull << (w - 1), m = w == 64 ? ~0ull : (1ull << w) - 1;
    bool sig = plumb_dtype_is_signed(t);
    if (which == 0) return max ? (sig ? s : 0) : (sig ? s - 1 : m);
    return 1;
}

/* One program against the reference; whether the pair fold ran (its
 * counter moved). */
static bool check_one(const char *body, plumb_dtype vt, plumb_dtype it, const shape *s, bool iota, bool specials,
                      bool max, int init)
{
    char src[8192];
    prog(src, sizeof src, body, vt, it, s, iota);
    plumb_tensor *x = values(vt, s, specials), *ix = iota ? NULL : indices(it, s);
    plumb_tensor *v0 = rt_scalar_bits(vt, init_value(vt, max, init));
    plumb_tensor *i0 = rt_scalar_bits(it, init == 2 ? (uint64_t)-1 : init == 1 ? 0x7f : 0);
    plumb_tensor *in[4];
    uint32_t n = 0;
    in[n++] = x;
    if (ix) in[n++] = ix;
    in[n++] = v0;
    in[n++] = i0;
    uint64_t before = rt_argfold_runs();
    rt_check_exact(src, in, n);
    bool ran = rt_argfold_runs() != before;
    for (uint32_t i = 0; i < n; i++) plumb_tensor_free(in[i]);
    return ran;
}

static const plumb_dtype vtypes[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I32, PLUMB_I8, PLUMB_UI8};
static const plumb_dtype itypes[] = {PLUMB_I32, PLUMB_I64};

/* Every recognised body, value type, index type and shape, with iota and
 * with arbitrary indices, specials in every other case, three kinds of
 * init: the reference's values and indices bit for bit, and the pair
 * fold ran except for the layout it does not take. */
static void test_bodies(void **state)
{
    (void)state;
    struct { const char *body; bool max, float_only; } bodies[] = {
        {body_jax_max, true, false},   {body_jax_min, false, false}, {body_bench_max, true, false},
        {body_bench_min, false, false}, {body_total_max, true, true}, {body_elem_min, false, false},
    };
    for (size_t bi = 0; bi < sizeof bodies / sizeof bodies[0]; bi++)
        for (size_t vi = 0; vi < sizeof vtypes / sizeof vtypes[0]; vi++)
            for (size_t ii = 0; ii < 2; ii++)
                for (size_t si = 0; si < NSHAPES; si++) {
                    plumb_dtype vt = vtypes[vi];
                    if (bodies[bi].float_only && !plumb_dtype_is_float(vt)) continue;
                    /* iota, specials and the init vary independently of the shape */
                    bool iota = (si + ii + bi + vi) % 2 == 0, specials = (si + vi + bi) % 3 != 2;
                    bool ran = check_one(bodies[bi].body, vt, itypes[ii], &shapes[si], iota, specials, bodies[bi].max,
                                         (int)((si + ii + bi) % 3));
                    if (si != SHAPE_APART && !ran)
                        fprintf(stderr, "pair fold not taken: body %zu, %s, %s, shape %zu\n", bi,
                                plumb_dtype_name(vt), plumb_dtype_name(itypes[ii]), si);
                    assert_true(si == SHAPE_APART || ran);
                }
}

/* Bodies that are not a selection rule of the class (ties to the higher
 * index; the index of the candidate whose value lost; compare GE without
 * the index tie break, which keeps the accumulator's higher index; the
 * value chosen by the index compare): the pair fold never runs and the
 * results are the reference's (each would differ under the lowest-index
 * rule on these ties and arbitrary indices). */
static void test_not_the_class(void **state)
{
    (void)state;
    const char *bodies[] = {body_neg_high, body_neg_mix, body_neg_ge, body_neg_vidx};
    for (size_t bi = 0; bi < 4; bi++)
        for (size_t vi = 0; vi < sizeof vtypes / sizeof vtypes[0]; vi += 2)
            for (size_t si = 0; si < 4; si++)
                assert_false(check_one(bodies[bi], vtypes[vi], PLUMB_I32, &shapes[si], si % 2 == 0, si % 3 == 0, true, 0));
}

/* Hand-derived rows (f32 values, iota indices along the row, init -inf
 * for max and +inf for min with index 0), folded by hand in the
 * reference's order:
 *   r0 [1, 3, 3, -inf]           max (3, 1)            min (-inf, 3)
 *   r1 [NaN1, 1, -NaN2, 5]       jax max/min (NaN1, 0): the first NaN is
 *                                kept; broad body (5, 3): a NaN is always
 *                                replaced by the next element
 *   r2 [-0, +0, -0, -1]          max (-0, 0): equal zeros take the newer
 *                                value and the lower index; min (-1, 3)
 *   r3 [2, 2, 2, 2]              (2, 0) both ways
 *   r4 [-inf, -inf, 7, 7]        max (7, 2)            min (-inf, 0) */
static void test_hand_rows(void **state)
{
    (void)state;
    const uint32_t NAN1 = 0x7fc00001u, NAN2 = 0xffc00002u, NINF = 0xff800000u, PINF = 0x7f800000u;
    const uint32_t x[5][4] = {
        {0x3f800000u, 0x40400000u, 0x40400000u, NINF},
        {NAN1, 0x3f800000u, NAN2, 0x40a00000u},
        {0x80000000u, 0x00000000u, 0x80000000u, 0xbf800000u},
        {0x40000000u, 0x40000000u, 0x40000000u, 0x40000000u},
        {NINF, NINF, 0x40e00000u, 0x40e00000u},
    };
    struct {
        const char *body;
        bool max;
        uint32_t v[5];
        int32_t k[5];
    } cases[] = {
        {body_jax_max, true, {0x40400000u, NAN1, 0x80000000u, 0x40000000u, 0x40e00000u}, {1, 0, 0, 0, 2}},
        {body_bench_max, true, {0x40400000u, 0x40a00000u, 0x80000000u, 0x40000000u, 0x40e00000u}, {1, 3, 0, 0, 2}},
        {body_jax_min, false, {NINF, NAN1, 0xbf800000u, 0x40000000u, NINF}, {3, 0, 3, 0, 0}},
        {body_bench_min, false, {NINF, 0x40a00000u, 0xbf800000u, 0x40000000u, NINF}, {3, 3, 3, 0, 0}},
    };
    const shape s = {2, {5, 4}, 1, {1}};
    char src[8192];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        prog(src, sizeof src, cases[c].body, PLUMB_F32, PLUMB_I32, &s, true);
        ir_module *m = rt_parse(src);
        plumb_tensor *xt = rt_rand_tensor(PLUMB_F32, 2, s.dims, false);
        memcpy(xt->data, x, sizeof x);
        plumb_tensor *v0 = rt_scalar_bits(PLUMB_F32, cases[c].max ? NINF : PINF), *i0 = rt_scalar_bits(PLUMB_I32, 0);
        int64_t od[1] = {5};
        plumb_tensor *want[2] = {rt_rand_tensor(PLUMB_F32, 1, od, false), rt_rand_tensor(PLUMB_I32, 1, od, false)};
        memcpy(want[0]->data, cases[c].v, sizeof cases[c].v);
        memcpy(want[1]->data, cases[c].k, sizeof cases[c].k);
        plumb_tensor *in[3] = {xt, v0, i0};
        uint64_t before = rt_argfold_runs();
        rt_check_runtime_at(m, src, 0, PLUMB_ISA_PORTABLE, in, 3, want, 2, false);
        rt_check_runtime_at(m, src, RT_CLI_OPT_LEVEL, rt_hw_isa(), in, 3, want, 2, false);
        assert_true(rt_argfold_runs() > before);
        /* and the reference agrees with the hand */
        plumb_tensor *ref[RT_MAX_OUT] = {NULL};
        uint32_t no = rt_ref(m, in, 3, ref);
        assert_int_equal(no, 2);
        assert_true(plumb_tensor_equal(ref[0], want[0]) && plumb_tensor_equal(ref[1], want[1]));
        rt_outs_free(ref, no);
        rt_outs_free(want, 2);
        rt_outs_free(in, 3);
        ir_module_free(m);
    }
}

/* The broad suite's shape (rows of 1024 f32, iota indices) with uniform
 * values and a NaN, a zero best and an all-equal row planted: every
 * vector level's row loops and the sequential rows they hand over. */
static void test_long_rows(void **state)
{
    (void)state;
    const shape s = {2, {8, 1024}, 1, {1}};
    char src[8192];
    for (int b = 0; b < 2; b++) {
        prog(src, sizeof src, b ? body_jax_max : body_bench_max, PLUMB_F32, PLUMB_I32, &s, true);
        plumb_tensor *x = rt_rand_tensor(PLUMB_F32, 2, s.dims, false);
        float *f = x->data;
        f[1 * 1024 + 700] = NAN;
        for (int i = 0; i < 1024; i++) f[2 * 1024 + i] = -fabsf(f[2 * 1024 + i]) - 1.0f;
        f[2 * 1024 + 900] = -0.0f;   /* the best is a zero */
        for (int i = 0; i < 1024; i++) f[3 * 1024 + i] = 0.5f;
        f[4 * 1024 + 1023] = 1e30f;  /* the best in the tail */
        f[5 * 1024 + 17] = 1e30f;
        f[5 * 1024 + 1000] = 1e30f;  /* a tie far apart */
        plumb_tensor *v0 = rt_scalar_bits(PLUMB_F32, 0xff800000u), *i0 = rt_scalar_bits(PLUMB_I32, 0);
        plumb_tensor *in[3] = {x, v0, i0};
        uint64_t seq = rt_argfold_sequential();
        rt_check_exact(src, in, 3);
        assert_true(rt_argfold_sequential() > seq);   /* the NaN and zero rows */
        rt_outs_free(in, 3);
    }
}

/* Columns (dimension 0 of 300x530 f32: two whole strips and a partial
 * one, a tail of 18 columns after the 16-wide blocks) with uniform values,
 * argmax and argmin, a NaN column, a column whose best is a zero and a
 * tie far apart planted: every level's column loops against the
 * reference. */
static void test_long_cols(void **state)
{
    (void)state;
    const shape s = {2, {300, 530}, 1, {0}};
    char src[8192];
    for (int b = 0; b < 2; b++) {
        prog(src, sizeof src, b ? body_jax_min : body_jax_max, PLUMB_F32, PLUMB_I32, &s, true);
        plumb_tensor *x = rt_rand_tensor(PLUMB_F32, 2, s.dims, false);
        float *f = x->data;
        f[17 * 530 + 3] = NAN;
        for (int r = 0; r < 300; r++) f[r * 530 + 40] = b ? fabsf(f[r * 530 + 40]) + 1.0f : -fabsf(f[r * 530 + 40]) - 1.0f;
        f[123 * 530 + 40] = 0.0f;   /* the best of column 40 */
        f[5 * 530 + 520] = b ? -1e30f : 1e30f;
        f[250 * 530 + 520] = b ? -1e30f : 1e30f;
        plumb_tensor *v0 = rt_scalar_bits(PLUMB_F32, b ? 0x7f800000u : 0xff800000u), *i0 = rt_scalar_bits(PLUMB_I32, 0);
        plumb_tensor *in[3] = {x, v0, i0};
        uint64_t runs = rt_argfold_runs();
        rt_check_exact(src, in, 3);
        assert_true(rt_argfold_runs() > runs);
        rt_outs_free(in, 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_rows),
        cmocka_unit_test(test_long_rows),
        cmocka_unit_test(test_long_cols),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_not_the_class),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
