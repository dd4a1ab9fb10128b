/* The f32/f64 vector loops of runtime/k_ew_float.c against the reference
 * interpreter (the oracle), bit for bit with NaN payloads, at every ISA
 * level this CPU has: dense special values (every pair of them for binary
 * and ternary ops), rounding edges (halves, 0.49999997, 2^23 +- k, odd
 * integers above 2^23), random bits and moderate magnitudes; the loops
 * called directly on every length 0..70 and a long one from unaligned
 * starts, with nothing written past the end; hand-derived roundings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../runtime/rt_internal.h"
#include "../../runtime/rt_pipeline.h"
#include "ew_harness.h"

static uint64_t rng_state = 0x0DDB1A5E5BAD5EEDull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

static uint64_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t dbits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

/* Special and edge values of t (f32 or f64) as bit patterns. */
static size_t specials(plumb_dtype t, uint64_t *v)
{
    size_t n = 0;
    if (t == PLUMB_F32) {
        static const uint32_t b[] = {
            0x00000000, 0x3F800000, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FC12345, 0x7FA00003,
            0x7F7FFFFF, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F000000, 0x3EFFFFFF /* 0.49999997 */,
            0x3F000001, 0x3FC00000 /* 1.5 */, 0x40200000 /* 2.5 */, 0x40100000 /* 2.25 */,
            0x40300000 /* 2.75 */, 0x3F7FFFFF, 0x3F800001, 0x4AFFFFFF /* 2^23 - 0.5 */,
            0x4B000000 /* 2^23 */, 0x4B000001 /* 2^23 + 1 */, 0x4B7FFFFF /* 2^24 - 1 */,
            0x4B800001, 0x4EFFFFFF, 0x4F000000, 0x3E99999A /* 0.3 */, 0x3F333333 /* 0.7 */,
            0x4B3FFFFF, 0x4A800001 /* 4194304.5 */, 0x4AFFFFFD, 0x40490FDB, 0x3FFFFFFF};
        for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
            v[n++] = b[i];
            v[n++] = b[i] | 0x80000000u;
        }
    } else {
        static const uint64_t b[] = {
            0, 0x3FF0000000000000ull, 0x7FF0000000000000ull, 0x7FF8000000000000ull, 0x7FF0000000000001ull,
            0x7FF8123456789ABCull, 0x7FF4000000000003ull, 0x7FEFFFFFFFFFFFFFull, 1, 0x000FFFFFFFFFFFFFull,
            0x0010000000000000ull, 0x3FE0000000000000ull, 0x3FDFFFFFFFFFFFFFull /* 0.49999999999999994 */,
            0x3FE0000000000001ull, 0x3FF8000000000000ull, 0x4004000000000000ull, 0x4002000000000000ull,
            0x4006000000000000ull, 0x3FEFFFFFFFFFFFFFull, 0x3FF0000000000001ull,
            0x432FFFFFFFFFFFFFull /* 2^52 - 0.5 */, 0x4330000000000000ull /* 2^52 */,
            0x4330000000000001ull /* 2^52 + 1 */, 0x433FFFFFFFFFFFFFull, 0x4340000000000001ull,
            0x3FD3333333333333ull, 0x3FE6666666666666ull, 0x4327FFFFFFFFFFFFull, 0x4320000000000001ull,
            0x400921FB54442D18ull, 0x41DFFFFFFFC00000ull, 0x4160000000000001ull, 0x3FFFFFFFFFFFFFFFull};
        for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
            v[n++] = b[i];
            v[n++] = b[i] | 0x8000000000000000ull;
        }
    }
    return n;
}

/* A random value: raw bits, or a moderate magnitude near a multiple of 1/2
 * (where rounding decides), or a random integer-ish value near 2^p. */
static uint64_t random_value(plumb_dtype t)
{
    uint64_t r = rnd();
    double f;
    switch (r & 3) {
    case 0: return t == PLUMB_F32 ? (r >> 32) : r;
    case 1: f = (double)(int64_t)(rnd() % 2001 - 1000) * 0.5; break;
    case 2: f = ((double)(rnd() >> 11) * 0x1p-53 - 0.5) * 64.0; break;
    default: f = (double)(rnd() % 64) + (t == PLUMB_F32 ? 0x1p23 : 0x1p52) - 32.0 + ((rnd() & 1) ? 0.5 : 0); break;
    }
    if (rnd() & 1)
        f = -f;
    if (t == PLUMB_F32) {
        uint64_t u = fbits((float)f);
        /* a neighbour of the value, so that 1 ULP around each half is seen */
        return (r & 0x30) == 0x10 ? u + 1 : (r & 0x30) == 0x20 && (u & 0x7FFFFFFF) ? u - 1 : u;
    }
    uint64_t u = dbits(f);
    return (r & 0x30) == 0x10 ? u + 1 : (r & 0x30) == 0x20 && (u & ~(1ull << 63)) ? u - 1 : u;
}

static uint64_t failures;

static void report(const ew_job *j, plumb_isa isa, const char *how, uint64_t i, uint64_t got, uint64_t want)
{
    uint64_t a = plumb_load_bits(j->t, j->in[0]->data, i);
    uint64_t b = j->arity > 1 ? plumb_load_bits(j->t, j->in[1]->data, i) : 0;
    print_message("%s %s (dir %d type %d) isa %s %s element %llu: in 0x%llx 0x%llx got 0x%llx want 0x%llx\n",
                  plumb_op_name(j->code), plumb_dtype_name(j->t), (int)j->dir, (int)j->cmp, rt_isa_name(isa), how,
                  (unsigned long long)i, (unsigned long long)a, (unsigned long long)b, (unsigned long long)got,
                  (unsigned long long)want);
}

/* The whole tensor through the runtime kernel (the engine and its hook),
 * at every ISA; every element bitwise against the reference. */
static void check_kernel(harness *h, ew_job *j)
{
    const plumb_tensor *want = j->res.outputs[0];
    int64_t dims[1] = {(int64_t)j->n};
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec x;
        plumb_diag d = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&x, h->pool, isa, j->m, 0, &d));
        plumb_tensor *got = plumb_tensor_new(j->rt, 1, dims, 0, &d);
        assert_non_null(got);
        if (got->nbytes)
            memset(got->data, 0xA5, got->nbytes);
        assert_true(rt_run_kernel(&x, j->op, j->in, &got));
        uint64_t bad = 0;
        for (uint64_t i = 0; i < j->n; i++) {
            uint64_t g = plumb_load_bits(j->rt, got->data, i), w = plumb_load_bits(j->rt, want->data, i);
            if (g != w && bad++ < 3)
                report(j, isa, "kernel", i, g, w);
        }
        failures += bad;
        plumb_tensor_free(got);
        rt_exec_fini(&x);
    }
}

/* The loop called directly (rt_ew_float) on [off, off + len) of the job's
 * tensors: it must take the op (handled), give the reference's bits and
 * leave the bytes after the range alone. */
static void check_direct(const ew_job *j, plumb_isa isa, size_t off, size_t len, bool handled)
{
    size_t es = plumb_dtype_size(j->rt);
    size_t guard = 72 * 8;
    uint8_t *buf = malloc((off + len) * es + guard);
    assert_non_null(buf);
    memset(buf, 0x5A, (off + len) * es + guard);
    rt_ew_args a = {.op = j->op, .code = j->code, .isa = isa, .t = j->t, .rt = j->rt, .n_in = j->arity,
                    .out = buf + off * es, .n = len};
    for (uint32_t k = 0; k < j->arity; k++)
        a.in[k] = (const uint8_t *)j->in[k]->data + off * plumb_dtype_size(j->t);
    bool took = rt_ew_float(&a);
    if (took != handled) {
        print_message("%s %s isa %s: rt_ew_float returned %d, expected %d\n", plumb_op_name(j->code),
                      plumb_dtype_name(j->t), rt_isa_name(isa), (int)took, (int)handled);
        failures++;
    }
    if (took) {
        const plumb_tensor *want = j->res.outputs[0];
        uint64_t bad = 0;
        for (size_t i = 0; i < len; i++) {
            uint64_t g = plumb_load_bits(j->rt, buf, off + i), w = plumb_load_bits(j->rt, want->data, off + i);
            if (g != w && bad++ < 3)
                report(j, isa, "direct", off + i, g, w);
        }
        for (size_t i = 0; i < guard; i++)
            if (buf[(off + len) * es + i] != 0x5A) {
                print_message("%s %s isa %s: wrote past the end (len %zu, byte %zu)\n", plumb_op_name(j->code),
                              plumb_dtype_name(j->t), rt_isa_name(isa), len, i);
                bad++;
                break;
            }
        failures += bad;
    }
    free(buf);
}

/* Inputs: for unary ops the specials then random values; for binary and
 * ternary ops every pair of specials (operand 2 of clamp cycles through
 * them), then random values. */
static uint64_t make_inputs(plumb_dtype t, uint32_t arity, uint64_t *vals[3], uint64_t n_random)
{
    uint64_t sp[128];
    size_t ns = specials(t, sp);
    uint64_t n = (arity == 1 ? ns : ns * ns) + n_random;
    for (uint32_t k = 0; k < arity; k++) {
        vals[k] = malloc(n * sizeof(uint64_t));
        assert_non_null(vals[k]);
    }
    uint64_t i = 0;
    if (arity == 1) {
        for (size_t p = 0; p < ns; p++)
            vals[0][i++] = sp[p];
    } else {
        for (size_t p = 0; p < ns; p++)
            for (size_t q = 0; q < ns; q++, i++) {
                vals[0][i] = sp[p];
                vals[1][i] = sp[q];
                if (arity == 3)
                    vals[2][i] = sp[(p * 7 + q * 3) % ns];
            }
    }
    for (; i < n; i++)
        for (uint32_t k = 0; k < arity; k++)
            vals[k][i] = random_value(t);
    return n;
}

/* Builds and checks one op: the kernel at every ISA, and the loop
 * directly on lengths 0..70 from offsets 0..3 and on 1000+ elements from
 * an odd offset. */
static void run_op(harness *h, plumb_opcode code, plumb_dtype t, ir_cmp_dir dir, ir_cmp_type cmp, bool handled)
{
    uint32_t arity = (uint32_t)plumb_op_get(code)->arity;
    uint64_t *vals[3] = {NULL, NULL, NULL};
    uint64_t n = make_inputs(t, arity, vals, 3000);
    ew_job j;
    ew_job_build(&j, code, t, dir, cmp, (const uint64_t *const *)vals, n);
    check_kernel(h, &j);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        for (size_t len = 0; len <= 70; len++)
            check_direct(&j, isa, (len * 5) % 4 + (size_t)(rnd() % 64) * 16, len, handled && len > 0);
        check_direct(&j, isa, 3, 1037, handled);
        check_direct(&j, isa, 1, n - 1, handled);
    }
    ew_job_free(&j);
    for (uint32_t k = 0; k < arity; k++)
        free(vals[k]);
}

/* f32 sign, floor, ceil, both roundings, sqrt, is_finite and clamp at
 * every ISA, bitwise against the reference (NaN payloads included). */
static void test_f32_ops(void **state)
{
    harness *h = *state;
    failures = 0;
    static const plumb_opcode ops[] = {PLUMB_OP_SIGN, PLUMB_OP_FLOOR, PLUMB_OP_CEIL, PLUMB_OP_ROUND_NEAREST_EVEN,
                                       PLUMB_OP_ROUND_NEAREST_AFZ, PLUMB_OP_SQRT, PLUMB_OP_IS_FINITE,
                                       PLUMB_OP_CLAMP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        run_op(h, ops[i], PLUMB_F32, IR_CMP_EQ, IR_CMP_TYPE_NONE, true);
    assert_int_equal(failures, 0);
}

/* f64 arithmetic, maximum/minimum, the unary exact ops, is_finite and
 * clamp at every ISA, bitwise against the reference. */
static void test_f64_ops(void **state)
{
    harness *h = *state;
    failures = 0;
    static const plumb_opcode ops[] = {
        PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_DIVIDE, PLUMB_OP_MAXIMUM, PLUMB_OP_MINIMUM,
        PLUMB_OP_ABS, PLUMB_OP_NEGATE, PLUMB_OP_SIGN, PLUMB_OP_FLOOR, PLUMB_OP_CEIL, PLUMB_OP_ROUND_NEAREST_EVEN,
        PLUMB_OP_ROUND_NEAREST_AFZ, PLUMB_OP_SQRT, PLUMB_OP_IS_FINITE, PLUMB_OP_CLAMP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        run_op(h, ops[i], PLUMB_F64, IR_CMP_EQ, IR_CMP_TYPE_NONE, true);
    assert_int_equal(failures, 0);
}

/* compare in every direction: f64 FLOAT and TOTALORDER and f32
 * TOTALORDER through the loops; f32 FLOAT stays with the engine's direct
 * loop (the hook declines it) and still agrees. */
static void test_compare(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int dir = IR_CMP_EQ; dir <= IR_CMP_GE; dir++) {
        run_op(h, PLUMB_OP_COMPARE, PLUMB_F64, (ir_cmp_dir)dir, IR_CMP_FLOAT, true);
        run_op(h, PLUMB_OP_COMPARE, PLUMB_F64, (ir_cmp_dir)dir, IR_CMP_TOTALORDER, true);
        run_op(h, PLUMB_OP_COMPARE, PLUMB_F32, (ir_cmp_dir)dir, IR_CMP_TOTALORDER, true);
        run_op(h, PLUMB_OP_COMPARE, PLUMB_F32, (ir_cmp_dir)dir, IR_CMP_FLOAT, false);
    }
    assert_int_equal(failures, 0);
}

/* The f32 ops with vector loops elsewhere (arithmetic, maximum/minimum,
 * negate/abs) are declined, and the engine's results still agree with the
 * reference bitwise; f32 and f64 remainder are taken (f32_rem, f64_rem)
 * and agree with it bitwise at every ISA. */
static void test_declined_exact(void **state)
{
    harness *h = *state;
    failures = 0;
    static const plumb_opcode f32_ops[] = {PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_DIVIDE,
                                           PLUMB_OP_MAXIMUM, PLUMB_OP_MINIMUM, PLUMB_OP_NEGATE, PLUMB_OP_ABS};
    for (size_t i = 0; i < sizeof f32_ops / sizeof f32_ops[0]; i++)
        run_op(h, f32_ops[i], PLUMB_F32, IR_CMP_EQ, IR_CMP_TYPE_NONE, false);
    run_op(h, PLUMB_OP_REMAINDER, PLUMB_F64, IR_CMP_EQ, IR_CMP_TYPE_NONE, true);
    run_op(h, PLUMB_OP_REMAINDER, PLUMB_F32, IR_CMP_EQ, IR_CMP_TYPE_NONE, true);
    assert_int_equal(failures, 0);
}

/* The transcendentals (f32 vector math, f64 long double paths), power and
 * atan2 are declined in both types: their paths stay the engine's; except
 * f64 exponential, exponential_minus_one, log, log_plus_one, logistic, tanh,
 * sine, cosine, power and atan2, which runtime/math_f64.h takes here
 * (tests/runtime/test_math_f64.c and test_math_f64_pow.c check them against
 * MPFR). */
static void test_declined_math(void **state)
{
    harness *h = *state;
    static const plumb_opcode ops[] = {PLUMB_OP_EXPONENTIAL, PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_LOG,
                                       PLUMB_OP_LOG_PLUS_ONE, PLUMB_OP_LOGISTIC, PLUMB_OP_TANH, PLUMB_OP_SINE,
                                       PLUMB_OP_COSINE, PLUMB_OP_TAN, PLUMB_OP_RSQRT, PLUMB_OP_CBRT, PLUMB_OP_ERF,
                                       PLUMB_OP_POWER, PLUMB_OP_ATAN2};
    double x[4] = {1, 2, 3, 4}, y[4] = {1, 2, 3, 4}, o[4];
    ir_op op;
    memset(&op, 0, sizeof op);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++)
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            for (int t = 0; t < 2; t++) {
                plumb_dtype ty = t ? PLUMB_F64 : PLUMB_F32;
                rt_ew_args a = {.op = &op, .code = ops[i], .isa = isa, .t = ty, .rt = ty,
                                .n_in = (uint32_t)plumb_op_get(ops[i])->arity, .in = {x, y}, .out = o, .n = 4};
                bool taken = ty == PLUMB_F64 && (ops[i] == PLUMB_OP_EXPONENTIAL || ops[i] == PLUMB_OP_LOG ||
                                                 ops[i] == PLUMB_OP_LOGISTIC || ops[i] == PLUMB_OP_TANH ||
                                                 ops[i] == PLUMB_OP_EXPONENTIAL_MINUS_ONE ||
                                                 ops[i] == PLUMB_OP_LOG_PLUS_ONE || ops[i] == PLUMB_OP_SINE ||
                                                 ops[i] == PLUMB_OP_COSINE || ops[i] == PLUMB_OP_POWER ||
                                                 ops[i] == PLUMB_OP_ATAN2);
                assert_int_equal(rt_ew_float(&a), taken);
            }
}

/* Hand-derived roundings (IEEE 754 roundToIntegral*, C's round() for
 * ties away from zero): the x + 0.5 traps and the sign of zero results. */
static void test_hand_values(void **state)
{
    harness *h = *state;
    static const struct { float x, even, afz, fl, ce; } f[] = {
        {0.49999997f, 0.0f, 0.0f, 0.0f, 1.0f},
        {-0.49999997f, -0.0f, -0.0f, -1.0f, -0.0f},
        {0.5f, 0.0f, 1.0f, 0.0f, 1.0f},
        {-0.5f, -0.0f, -1.0f, -1.0f, -0.0f},
        {2.5f, 2.0f, 3.0f, 2.0f, 3.0f},
        {-3.5f, -4.0f, -4.0f, -4.0f, -3.0f},
        {8388609.0f, 8388609.0f, 8388609.0f, 8388609.0f, 8388609.0f},   /* 2^23 + 1: x + 0.5 would give +2 */
        {8388607.5f, 8388608.0f, 8388608.0f, 8388607.0f, 8388608.0f},
        {4194304.5f, 4194304.0f, 4194305.0f, 4194304.0f, 4194305.0f},
        {-1e-45f, -0.0f, -0.0f, -1.0f, -0.0f},
        {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f},
    };
    size_t nf = sizeof f / sizeof f[0];
    float x[16], o[16];
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        static const plumb_opcode ops[] = {PLUMB_OP_ROUND_NEAREST_EVEN, PLUMB_OP_ROUND_NEAREST_AFZ, PLUMB_OP_FLOOR,
                                           PLUMB_OP_CEIL};
        for (size_t k = 0; k < 4; k++) {
            for (size_t i = 0; i < nf; i++)
                x[i] = f[i].x;
            ir_op op;
            memset(&op, 0, sizeof op);
            rt_ew_args a = {.op = &op, .code = ops[k], .isa = isa, .t = PLUMB_F32, .rt = PLUMB_F32, .n_in = 1,
                            .in = {x}, .out = o, .n = nf};
            assert_true(rt_ew_float(&a));
            for (size_t i = 0; i < nf; i++) {
                float w = k == 0 ? f[i].even : k == 1 ? f[i].afz : k == 2 ? f[i].fl : f[i].ce;
                if (fbits(o[i]) != fbits(w))
                    print_message("%s isa %s x %a: got %a want %a\n", plumb_op_name(ops[k]), rt_isa_name(isa),
                                  (double)x[i], (double)o[i], (double)w);
                assert_int_equal(fbits(o[i]), fbits(w));
            }
        }
        /* f64: 0.49999999999999994 and 2^52 + 1 under ties away from zero */
        double dx[4] = {0.49999999999999994, -0.49999999999999994, 4503599627370497.0, -2.5}, dout[4];
        double dw[4] = {0.0, -0.0, 4503599627370497.0, -3.0};
        ir_op op;
        memset(&op, 0, sizeof op);
        rt_ew_args a = {.op = &op, .code = PLUMB_OP_ROUND_NEAREST_AFZ, .isa = isa, .t = PLUMB_F64,
                        .rt = PLUMB_F64, .n_in = 1, .in = {dx}, .out = dout, .n = 4};
        assert_true(rt_ew_float(&a));
        for (size_t i = 0; i < 4; i++)
            assert_int_equal(dbits(dout[i]), dbits(dw[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_f32_ops),
        cmocka_unit_test(test_f64_ops),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_declined_exact),
        cmocka_unit_test(test_declined_math),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
