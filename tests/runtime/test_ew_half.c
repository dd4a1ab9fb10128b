/* The f16/bf16 vector loops of runtime/k_ew_half.c against the reference
 * interpreter (the oracle), bit for bit and NaN payloads included, at every
 * ISA level this CPU has: unary ops on all 65536 patterns, binary arithmetic
 * on every pattern against a set of special and random second operands and
 * on pairs whose results are subnormal, compare/maximum/minimum/clamp on
 * crosses of special values, lengths 0..70 and 1000+ at unaligned starts.
 * The transcendentals must give the element engine's bits (the double
 * result rounded once by rt_math_narrow), computed here element by element
 * from the same pieces, and lie within the op table's bound of the
 * reference; exp, logistic and tanh at the vector levels, computed in f32
 * registers and rounded once, only the latter (with zeros, subnormals,
 * infinities and NaNs exactly the reference's). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../runtime/rt_math.h"
#include "../../runtime/rt_internal.h"
#include "../../runtime/rt_pipeline.h"
#include "../../runtime/rt_fusion.h"
#include "ew_harness.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

static const plumb_dtype TYPES[2] = {PLUMB_F16, PLUMB_BF16};

/* The element engine's bits for a transcendental on x: the double result
 * on the widened operand rounded once by rt_math_narrow. */
static void engine_vmath(plumb_opcode code, plumb_dtype t, plumb_isa isa, const uint16_t *x, uint16_t *o, size_t n)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint16_t em = (uint16_t)(((1u << d->exp_bits) - 1) << d->mant_bits), q = (uint16_t)(1u << (d->mant_bits - 1));
    float *f = malloc(n * sizeof *f);
    double *v = malloc(n * sizeof *v);
    assert_non_null(f);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        f[i] = t == PLUMB_F16 ? plumb_f16_to_f32(x[i]) : plumb_bf16_to_f32(x[i]);
    rt_vmath_f32d(code, isa)(f, v, n);
    for (size_t i = 0; i < n; i++) {
        if ((x[i] & 0x7FFF) > em)
            o[i] = x[i] | q;
        else if (isnan(v[i]))
            o[i] = (uint16_t)(em | q);
        else
            o[i] = (uint16_t)rt_math_narrow(code, t, v[i], RT_MATH_DERR, f[i], 0);
    }
    free(f);
    free(v);
}

static bool is_vmath(plumb_opcode c)
{
    switch (c) {
    case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_ERF:
        return true;
    default:
        return false;
    }
}

/* The ops k_ew_half.c computes in f32 registers at this level: their bits
 * may differ from the engine's double recipe, within the bound. */
static bool f32_path(plumb_opcode c, plumb_isa isa)
{
    return (c == PLUMB_OP_EXPONENTIAL || c == PLUMB_OP_LOGISTIC || c == PLUMB_OP_TANH) &&
           (isa == PLUMB_ISA_AVX2 || isa == PLUMB_ISA_AVX512);
}

static uint64_t failures;

/* Runs the op on in[k][0..n) through the reference and, at every ISA, the
 * runtime kernel; counts elements whose bits differ (transcendentals: from
 * the engine's bits, and from the reference beyond the op's bound). */
static void check(harness *h, plumb_opcode code, plumb_dtype t, ir_cmp_dir dir, ir_cmp_type ct,
                  uint16_t *const *in, size_t n)
{
    ew_prog p;
    ew_prog_make(&p, code, t, dir, ct, n);
    plumb_diag d = {.code = PLUMB_OK};
    int64_t dims[1] = {(int64_t)n};
    plumb_tensor *x[3] = {NULL, NULL, NULL};
    for (uint32_t k = 0; k < p.arity; k++) {
        x[k] = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(x[k]);
        memcpy(x[k]->data, in[k], n * 2);
    }
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(p.m, NULL, x, p.arity, &ro, &res, &d));
    const plumb_tensor *want = res.outputs[0];
    bool vm = is_vmath(code);
    uint32_t bound = vm ? plumb_op_ulp_bound(code, t) : 0;
    uint16_t *eng = vm ? malloc(n * 2) : NULL;
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec ex;
        plumb_diag xd = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&ex, h->pool, isa, p.m, 0, &xd));
        plumb_tensor *got = plumb_tensor_new(p.rt, 1, dims, 0, &d);
        assert_non_null(got);
        memset(got->data, 0xA5, got->nbytes);   /* every element must be written */
        assert_true(rt_run_kernel(&ex, p.op, x, &got));
        if (vm)
            engine_vmath(code, t, isa, in[0], eng, n);
        uint64_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(p.rt, got->data, i), w = plumb_load_bits(p.rt, want->data, i);
            if (vm) {
                if (!f32_path(code, isa) && g != eng[i]) {
                    if (bad++ < 3)
                        ew_prog_report(&p, t, isa, i, in, g, eng[i], "engine");
                    continue;
                }
                if (g == w)
                    continue;
                uint64_t inf = ((1ull << plumb_dtype_get(t)->exp_bits) - 1) << plumb_dtype_get(t)->mant_bits;
                bool special = plumb_float_is_nan(t, g) || plumb_float_is_nan(t, w) || (w & inf) == 0 ||
                               (g & inf) == 0 || (w & 0x7FFF) == inf;
                if (special || plumb_ulp_distance(t, g, w) > bound) {
                    if (bad++ < 3)
                        ew_prog_report(&p, t, isa, i, in, g, w, "reference");
                }
            } else if (g != w) {
                if (bad++ < 3)
                    ew_prog_report(&p, t, isa, i, in, g, w, "reference");
            }
        }
        failures += bad;
        plumb_tensor_free(got);
        rt_exec_fini(&ex);
    }
    free(eng);
    plumb_ref_result_free(&res);
    for (uint32_t k = 0; k < p.arity; k++)
        plumb_tensor_free(x[k]);
    ir_module_free(p.m);
}

static uint16_t *all_patterns(void)
{
    uint16_t *v = malloc(65536 * 2);
    assert_non_null(v);
    for (uint32_t i = 0; i < 65536; i++)
        v[i] = (uint16_t)i;
    return v;
}

/* Each of the n one-operand ops on all 65536 patterns of both types. */
static void unary_all_patterns(harness *h, const plumb_opcode *ops, size_t n)
{
    uint16_t *v = all_patterns();
    uint16_t *in[3] = {v, NULL, NULL};
    failures = 0;
    for (size_t o = 0; o < n; o++)
        for (int ti = 0; ti < 2; ti++)
            check(h, ops[o], TYPES[ti], IR_CMP_EQ, IR_CMP_TYPE_NONE, in, 65536);
    free(v);
    assert_int_equal(failures, 0);
}

/* sqrt, rounding to integers, sign, is_finite, abs, negate: every pattern
 * of both types, bit for bit. */
static void test_unary_exhaustive(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_SQRT, PLUMB_OP_FLOOR, PLUMB_OP_CEIL, PLUMB_OP_ROUND_NEAREST_EVEN,
                                       PLUMB_OP_ROUND_NEAREST_AFZ, PLUMB_OP_SIGN, PLUMB_OP_IS_FINITE,
                                       PLUMB_OP_ABS, PLUMB_OP_NEGATE};
    unary_all_patterns(*state, ops, sizeof ops / sizeof ops[0]);
}

/* The transcendentals on every pattern of both types: the engine's bits
 * (one rounding of the double result), within the bound of the reference. */
static void test_vmath_exhaustive(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_RSQRT, PLUMB_OP_CBRT, PLUMB_OP_EXPONENTIAL,
                                       PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_LOG, PLUMB_OP_LOG_PLUS_ONE,
                                       PLUMB_OP_LOGISTIC, PLUMB_OP_TANH, PLUMB_OP_SINE, PLUMB_OP_COSINE,
                                       PLUMB_OP_TAN, PLUMB_OP_ERF};
    unary_all_patterns(*state, ops, sizeof ops / sizeof ops[0]);
}

/* add, subtract, multiply, divide: every pattern against each of the
 * special values and some random ones (both operand orders), bit for bit:
 * the one f32 operation rounded once more gives the correctly rounded
 * result. */
static void test_arith_all_patterns(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_DIVIDE};
    harness *h = *state;
    enum { NB = 16 };
    failures = 0;
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = TYPES[ti];
        uint16_t extra[NB], *a, *b;
        for (size_t k = 0; k < NB; k++)
            extra[k] = (uint16_t)rnd();
        size_t n = ew_half_pairs(t, extra, NB, &a, &b);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            uint16_t *ab[3] = {a, b, NULL}, *ba[3] = {b, a, NULL};
            check(h, ops[o], t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ab, n);
            check(h, ops[o], t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ba, n);
        }
        free(a);
        free(b);
    }
    assert_int_equal(failures, 0);
}

/* Random pairs whose products and quotients fall in or near the subnormal
 * range, and random pairs of nearby magnitudes for add/subtract (where
 * cancellation is exact): double rounding through f32 must not show. */
static void test_arith_subnormal_results(void **state)
{
    harness *h = *state;
    enum { N = 200000 };
    uint16_t *a = malloc(N * 2), *b = malloc(N * 2);
    assert_non_null(a);
    assert_non_null(b);
    failures = 0;
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = TYPES[ti];
        const plumb_dtype_info *d = plumb_dtype_get(t);
        unsigned M = d->mant_bits, bias = (1u << (d->exp_bits - 1)) - 1;
        for (int mode = 0; mode < 3; mode++) {
            for (size_t i = 0; i < N; i++) {
                uint64_t r = rnd();
                uint16_t man1 = (uint16_t)(r & ((1u << M) - 1)), man2 = (uint16_t)((r >> 16) & ((1u << M) - 1));
                unsigned e1, e2;
                if (mode == 0) {          /* a small, b near 1 or larger: a / b, a * (1/b) subnormal */
                    e1 = (unsigned)(r >> 32) % (M + 3);
                    e2 = bias - 2 + (unsigned)(r >> 40) % (M + 4);
                } else if (mode == 1) {   /* both small-ish: products underflow */
                    e1 = 1 + (unsigned)(r >> 32) % (bias / 2 + 2);
                    e2 = 1 + (unsigned)(r >> 40) % (bias / 2 + 2);
                } else {                  /* anything: e1 near e2 */
                    e1 = (unsigned)(r >> 32) % ((1u << d->exp_bits) - 1);
                    e2 = e1 + (unsigned)(r >> 40) % 3;
                    if (e2 >= (1u << d->exp_bits) - 1)
                        e2 = e1;
                }
                a[i] = (uint16_t)((e1 << M) | man1 | ((r >> 48) & 0x8000));
                b[i] = (uint16_t)((e2 << M) | man2 | ((r >> 47) & 0x8000));
            }
            uint16_t *ab[3] = {a, b, NULL};
            check(h, mode == 2 ? PLUMB_OP_ADD : PLUMB_OP_DIVIDE, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ab, N);
            check(h, mode == 2 ? PLUMB_OP_SUBTRACT : PLUMB_OP_MULTIPLY, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ab, N);
        }
    }
    free(a);
    free(b);
    assert_int_equal(failures, 0);
}

/* compare (every direction; default, FLOAT and TOTALORDER comparison),
 * maximum, minimum on the cross of special values plus random pairs;
 * clamp on triples of special values. */
static void test_compare_minmax_clamp(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = TYPES[ti];
        uint16_t sp[64];
        size_t ns = ew_half_specials(t, sp);
        size_t n2 = ns * ns + 20000, n3 = ns * ns * ns;
        uint16_t *a = malloc(n3 * 2), *b = malloc(n3 * 2), *c = malloc(n3 * 2);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        for (size_t i = 0; i < n2; i++) {
            if (i < ns * ns) {
                a[i] = sp[i / ns];
                b[i] = sp[i % ns];
            } else {
                uint64_t r = rnd();
                a[i] = (uint16_t)r;
                b[i] = (r >> 20) & 1 ? (uint16_t)(r >> 32) : (uint16_t)(a[i] ^ ((r >> 32) & 3));
            }
        }
        uint16_t *ab[3] = {a, b, NULL};
        static const ir_cmp_type cts[] = {IR_CMP_TYPE_NONE, IR_CMP_FLOAT, IR_CMP_TOTALORDER};
        for (int dir = IR_CMP_EQ; dir <= IR_CMP_GE; dir++)
            for (size_t k = 0; k < 3; k++)
                check(h, PLUMB_OP_COMPARE, t, (ir_cmp_dir)dir, cts[k], ab, n2);
        check(h, PLUMB_OP_MAXIMUM, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ab, n2);
        check(h, PLUMB_OP_MINIMUM, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, ab, n2);
        for (size_t i = 0; i < n3; i++) {
            a[i] = sp[i / (ns * ns)];
            b[i] = sp[(i / ns) % ns];
            c[i] = sp[i % ns];
        }
        uint16_t *abc[3] = {a, b, c};
        check(h, PLUMB_OP_CLAMP, t, IR_CMP_EQ, IR_CMP_TYPE_NONE, abc, n3);
        free(a);
        free(b);
        free(c);
    }
    assert_int_equal(failures, 0);
}

/* rt_ew_half called directly on lengths 0..70, 1000 and 1003 at unaligned
 * starts: each element as in the whole-array run, nothing written past
 * the end or before the start. */
static void test_lengths_and_offsets(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_ADD, PLUMB_OP_DIVIDE, PLUMB_OP_SQRT, PLUMB_OP_FLOOR,
                                       PLUMB_OP_ROUND_NEAREST_AFZ, PLUMB_OP_SIGN, PLUMB_OP_IS_FINITE,
                                       PLUMB_OP_COMPARE, PLUMB_OP_MAXIMUM, PLUMB_OP_CLAMP, PLUMB_OP_EXPONENTIAL,
                                       PLUMB_OP_TANH};
    harness *h = *state;
    enum { N = 1100 };
    failures = 0;
    for (int ti = 0; ti < 2; ti++) {
        plumb_dtype t = TYPES[ti];
        uint16_t sp[64];
        size_t ns = ew_half_specials(t, sp);
        uint16_t *in[3];
        for (int k = 0; k < 3; k++) {
            in[k] = malloc(N * 2);
            assert_non_null(in[k]);
            for (size_t i = 0; i < N; i++)
                in[k][i] = (i * 7 + (size_t)k) % 5 == 0 ? sp[(i + (size_t)k * 3) % ns] : (uint16_t)rnd();
        }
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ew_prog p;
            ew_prog_make(&p, ops[o], t, IR_CMP_LT, IR_CMP_TYPE_NONE, N);
            size_t osz = plumb_dtype_size(p.rt);
            plumb_diag d = {.code = PLUMB_OK};
            int64_t dims[1] = {N};
            plumb_tensor *x[3] = {NULL, NULL, NULL};
            for (uint32_t k = 0; k < p.arity; k++) {
                x[k] = plumb_tensor_new(t, 1, dims, 0, &d);
                assert_non_null(x[k]);
                memcpy(x[k]->data, in[k], N * 2);
            }
            plumb_ref_result res;
            plumb_ref_options ro = {.struct_size = sizeof ro};
            assert_true(plumb_ref_run(p.m, NULL, x, p.arity, &ro, &res, &d));
            const uint8_t *want = res.outputs[0]->data;
            uint16_t *eng = malloc(N * 2);
            assert_non_null(eng);
            uint8_t *out = malloc((N + 8) * osz);
            assert_non_null(out);
            for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
                if (is_vmath(ops[o])) {
                    engine_vmath(ops[o], t, isa, in[0], eng, N);
                    want = (const uint8_t *)eng;
                }
                for (size_t len = 0; len <= 1003; len = len == 70 ? 1000 : len + 1) {
                    for (size_t off = 0; off < 4; off++) {
                        memset(out, 0x5A, (N + 8) * osz);
                        rt_ew_args a = {.op = p.op, .code = ops[o], .isa = isa, .t = t, .rt = p.rt,
                                        .n_in = p.arity, .out = out + (off + 1) * osz, .n = len};
                        for (uint32_t k = 0; k < p.arity; k++)
                            a.in[k] = in[k] + off;
                        if (!rt_ew_half(&a)) {
                            print_message("%s %s: not handled\n", plumb_op_name(ops[o]), plumb_dtype_name(t));
                            failures++;
                            continue;
                        }
                        bool ok = memcmp(out + (off + 1) * osz, want + off * osz, len * osz) == 0;
                        for (size_t i = 0; i < (off + 1) * osz; i++)
                            ok &= out[i] == 0x5A;
                        for (size_t i = (off + 1 + len) * osz; i < (N + 8) * osz; i++)
                            ok &= out[i] == 0x5A;
                        if (!ok && failures++ < 5)
                            print_message("%s %s isa %s length %zu offset %zu differs\n", plumb_op_name(ops[o]),
                                          plumb_dtype_name(t), rt_isa_name(isa), len, off);
                    }
                }
                want = res.outputs[0]->data;
            }
            free(out);
            free(eng);
            plumb_ref_result_free(&res);
            for (uint32_t k = 0; k < p.arity; k++)
                plumb_tensor_free(x[k]);
            ir_module_free(p.m);
        }
        for (int k = 0; k < 3; k++)
            free(in[k]);
    }
    assert_int_equal(failures, 0);
}

/* The result written over the operand (in place) gives the same bits as a
 * separate result buffer, for the transcendentals too, whose NaN fix-up
 * reads the operand after the block's results are written: NaN payloads,
 * subnormals and infinities in whole blocks and in the tail. */
static void test_vmath_in_place(void **state)
{
    (void)state;
    static const plumb_opcode ops[] = {PLUMB_OP_EXPONENTIAL, PLUMB_OP_LOG, PLUMB_OP_TANH, PLUMB_OP_SQRT,
                                       PLUMB_OP_ADD};
    static const plumb_dtype ts[] = {PLUMB_F16, PLUMB_BF16};
    enum { N = 700 };
    uint16_t in[N], out[N], buf[N];
    unsigned bad = 0, ran = 0;
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++)
            for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_cpu_best_isa(); isa++) {
                for (int i = 0; i < N; i++) {
                    /* every 7th element a NaN with a payload of its own, some
                     * infinities and subnormals, the rest ordinary values */
                    uint16_t e = ts[ti] == PLUMB_F16 ? 0x7C00 : 0x7F80;
                    in[i] = i % 7 == 3 ? (uint16_t)(e | (1 + i % 13) | (i & 0x8000))
                          : i % 11 == 5 ? (uint16_t)(e | (i % 2 ? 0x8000 : 0))
                          : i % 13 == 1 ? (uint16_t)(1 + i % 5)
                          : (uint16_t)(0x3C00 + 37 * i % 0x0800 - 0x0400);
                }
                memcpy(buf, in, sizeof in);
                uint32_t arity = (uint32_t)plumb_op_get(ops[oi])->arity;
                rt_ew_args a = {.op = NULL, .code = ops[oi], .isa = (plumb_isa)isa, .t = ts[ti], .rt = ts[ti],
                                .n_in = arity, .in = {in, in}, .out = out, .n = N};
                assert_true(rt_ew_half(&a));
                a.in[0] = a.in[1] = buf;
                a.out = buf;
                assert_true(rt_ew_half(&a));
                ran++;
                for (int i = 0; i < N; i++)
                    if (buf[i] != out[i] && bad++ < 8)
                        print_message("%s %s isa %d element %d (input 0x%04x): in place 0x%04x, apart 0x%04x\n",
                                      plumb_op_name(ops[oi]), plumb_dtype_name(ts[ti]), isa, i, in[i], buf[i],
                                      out[i]);
            }
    assert_int_equal(bad, 0);
    assert_true(ran >= 2 * 5);
}

/* exp, logistic and tanh at the levels that compute them in f32 registers
 * (AVX2, AVX-512; AVX-512 in one fused pass per vector): every pattern of
 * both types, in whole blocks, a tail and in place, equals the recipe
 * built here from the same pieces: the exactly widened operand, the
 * level's f32 array function, and then, where the f32 value v is NaN,
 * below the half type's smallest normal (zero included) or finite at or
 * above its largest finite value, the engine's exact rules; elsewhere v
 * rounded once to nearest even by the shared conversion. */
static void test_vmath_f32_recipe(void **state)
{
    (void)state;
    static const plumb_opcode ops[] = {PLUMB_OP_EXPONENTIAL, PLUMB_OP_LOGISTIC, PLUMB_OP_TANH};
    enum { N = 65536 + 21 };
    uint16_t *x = malloc(N * 2), *got = malloc(N * 2), *want = malloc(N * 2), *eng = malloc(N * 2);
    float *f = malloc(N * sizeof *f), *v = malloc(N * sizeof *v);
    assert_true(x && got && want && eng && f && v);
    for (uint32_t i = 0; i < N; i++)
        x[i] = (uint16_t)(i * 40503u);   /* every pattern (odd multiplier), then 21 more */
    uint64_t bad = 0;
    unsigned ran = 0;
    for (int ti = 0; ti < 2; ti++)
        for (size_t oi = 0; oi < 3; oi++)
            for (int isa = PLUMB_ISA_AVX2; isa <= (int)rt_cpu_best_isa(); isa++) {
                plumb_dtype t = TYPES[ti];
                bool f16 = t == PLUMB_F16;
                uint32_t mn = f16 ? 0x38800000u : 0x00800000u, mx = f16 ? 0x477FE000u : 0x7F7F0000u;
                for (size_t i = 0; i < N; i++)
                    f[i] = f16 ? plumb_f16_to_f32(x[i]) : plumb_bf16_to_f32(x[i]);
                rt_vmath_f32(ops[oi], (plumb_isa)isa)(f, v, N);
                engine_vmath(ops[oi], t, (plumb_isa)isa, x, eng, N);
                for (size_t i = 0; i < N; i++) {
                    uint32_t b;
                    memcpy(&b, &v[i], 4);
                    b &= 0x7FFFFFFFu;
                    bool flagged = b > 0x7F800000u || b < mn || (b >= mx && b < 0x7F800000u);
                    want[i] = flagged ? eng[i] : f16 ? plumb_f32_to_f16(v[i]) : plumb_f32_to_bf16(v[i]);
                }
                rt_ew_args a = {.op = NULL, .code = ops[oi], .isa = (plumb_isa)isa, .t = t, .rt = t,
                                .n_in = 1, .in = {x}, .out = got, .n = N};
                for (int inplace = 0; inplace < 2; inplace++) {
                    if (inplace) {
                        memcpy(got, x, N * 2);
                        a.in[0] = got;
                    }
                    assert_true(rt_ew_half(&a));
                    ran++;
                    for (size_t i = 0; i < N; i++)
                        if (got[i] != want[i] && bad++ < 8)
                            print_message("%s %s isa %d%s, input 0x%04x: 0x%04x, recipe 0x%04x\n",
                                          plumb_op_name(ops[oi]), plumb_dtype_name(t), isa,
                                          inplace ? " in place" : "", x[i], got[i], want[i]);
                }
            }
    free(x), free(got), free(want), free(eng), free(f), free(v);
    assert_int_equal(bad, 0);
    if (rt_cpu_best_isa() >= PLUMB_ISA_AVX2)
        assert_true(ran >= 12);
}

/* The recipe check and the in-place runs again with the integer bf16
 * rounding where the CPU would round bf16 exp with the AVX512-BF16
 * conversion (rt_hseg_bf16cvt, k_ew_half.c vm32_loop): both give the
 * recipe's bits. */
static void test_vmath_f32_recipe_intround(void **state)
{
    bool had = rt_hseg_bf16cvt(-1);
    rt_hseg_bf16cvt(0);
    assert_false(rt_hseg_bf16cvt(-1));
    test_vmath_f32_recipe(state);
    test_vmath_in_place(state);
    rt_hseg_bf16cvt(had);
    assert_true(rt_hseg_bf16cvt(-1) == had);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_exhaustive),
        cmocka_unit_test(test_vmath_exhaustive),
        cmocka_unit_test(test_arith_all_patterns),
        cmocka_unit_test(test_arith_subnormal_results),
        cmocka_unit_test(test_compare_minmax_clamp),
        cmocka_unit_test(test_lengths_and_offsets),
        cmocka_unit_test(test_vmath_in_place),
        cmocka_unit_test(test_vmath_f32_recipe),
        cmocka_unit_test(test_vmath_f32_recipe_intround),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
