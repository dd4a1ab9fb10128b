/* The element engine's own vector loops (runtime/k_elementwise.c: f32
 * add/subtract/multiply/divide/maximum/minimum, f32 FLOAT compare, select
 * of every element width) against the reference interpreter (the oracle),
 * bit for bit with NaN payloads, at every ISA level this CPU has: every
 * ordered pair of ~60 special f32 values, random bits; through the whole
 * tensor kernel and through rt_ew_tile on every length 0..70 (and a long
 * one) from unaligned starts, with nothing written past the end; and
 * hand-derived NaN, zero-sign and infinity results. */
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

static uint64_t rng_state = 0xF32100F5EEDull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

/* f32 specials, both signs of each: zeros, ones, infinities, quiet and
 * signaling NaNs with payloads (top, bottom and middle bits), the largest
 * finite, the smallest normal and subnormals, values whose sums, products
 * and quotients overflow, underflow, cancel exactly or round at a tie. */
static const uint32_t special_pos[] = {
    0x00000000, 0x3F800000, 0x7F800000, 0x7FC00000, 0x7FC00001, 0x7F800001, 0x7FA00003, 0x7FFFFFFF,
    0x7FC12345, 0x7F7FFFFF, 0x7F7FFFFE, 0x00800000, 0x00000001, 0x007FFFFF, 0x00400000, 0x3F000000,
    0x40000000, 0x3F7FFFFF, 0x3F800001, 0x33800000 /* 2^-24 */, 0x4B800000 /* 2^24 */, 0x40490FDB,
    0x1E3CE508 /* 1e-20 */, 0x60AD78EC /* 1e20 */, 0x34000000 /* 2^-23 */, 0x3EAAAAAB /* 1/3 */,
    0x4B000001, 0x3FC00000, 0x41200000 /* 10 */, 0x00800001,
};
#define N_SPECIAL (2 * sizeof special_pos / sizeof special_pos[0])

static void specials(uint32_t *v)
{
    size_t n = 0;
    for (size_t i = 0; i < N_SPECIAL / 2; i++) {
        v[n++] = special_pos[i];
        v[n++] = special_pos[i] | 0x80000000u;
    }
}

/* This file's compares are float compares; no other op takes a compare type. */
static void job_build(ew_job *j, plumb_opcode code, plumb_dtype t, ir_cmp_dir dir, uint64_t *const *vals, uint64_t n)
{
    ir_cmp_type cmp = code == PLUMB_OP_COMPARE ? IR_CMP_FLOAT : IR_CMP_TYPE_NONE;
    ew_job_build(j, code, t, dir, cmp, (const uint64_t *const *)vals, n);
}

static uint64_t failures;

static void report(const ew_job *j, plumb_isa isa, const char *how, uint64_t i, uint64_t got, uint64_t want)
{
    uint64_t a[3] = {0, 0, 0};
    for (uint32_t k = 0; k < j->arity; k++)
        a[k] = plumb_load_bits(j->in_t[k], j->in[k]->data, i);
    print_message("%s %s (dir %d) isa %s %s element %llu: in 0x%llx 0x%llx 0x%llx got 0x%llx want 0x%llx\n",
                  plumb_op_name(j->code), plumb_dtype_name(j->t), (int)j->dir, rt_isa_name(isa), how,
                  (unsigned long long)i, (unsigned long long)a[0], (unsigned long long)a[1],
                  (unsigned long long)a[2], (unsigned long long)got, (unsigned long long)want);
}

/* The whole tensor through the runtime kernel (split over the pool). */
static void check_kernel(rt_exec *x, plumb_isa isa, const ew_job *j)
{
    const plumb_tensor *want = j->res.outputs[0];
    int64_t dims[1] = {(int64_t)j->n};
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *got = plumb_tensor_new(j->rt, 1, dims, 0, &d);
    assert_non_null(got);
    if (got->nbytes)
        memset(got->data, 0xA5, got->nbytes);
    assert_true(rt_run_kernel(x, j->op, j->in, &got));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < j->n; i++) {
        uint64_t g = plumb_load_bits(j->rt, got->data, i), w = plumb_load_bits(j->rt, want->data, i);
        if (g != w && bad++ < 3)
            report(j, isa, "kernel", i, g, w);
    }
    failures += bad;
    plumb_tensor_free(got);
}

/* rt_ew_tile (the engine on one tile) on [off, off + len): the reference's
 * bits, and the bytes after the range left alone. Operands and result sit
 * 0..3 elements past an allocation, so the loops see every start relative
 * to their vector width (element alignment is C's and the callers'). */
static void check_tile(rt_exec *x, plumb_isa isa, const ew_job *j, size_t off, size_t len)
{
    size_t es = plumb_dtype_size(j->rt), guard = 80 * 8;
    uint8_t *buf = malloc(len * es + guard + 4 * 8);
    uint8_t *copy[3] = {NULL, NULL, NULL};
    const void *in[3] = {NULL, NULL, NULL};
    assert_non_null(buf);
    size_t shift = (size_t)(rnd() % 4) * es;   /* off vector alignment, element-aligned as C requires */
    uint8_t *out = buf + shift;
    memset(buf, 0x5A, len * es + guard + 4 * 8);
    for (uint32_t k = 0; k < j->arity; k++) {
        size_t s = plumb_dtype_size(j->in_t[k]);
        copy[k] = malloc(len * s + 3 * 8);
        assert_non_null(copy[k]);
        memcpy(copy[k] + (off % 4) * s, (const uint8_t *)j->in[k]->data + off * s, len * s);
        in[k] = copy[k] + (off % 4) * s;
    }
    assert_true(rt_ew_tile(x, j->op, in, out, len));
    const plumb_tensor *want = j->res.outputs[0];
    uint64_t bad = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t g = plumb_load_bits(j->rt, out, i), w = plumb_load_bits(j->rt, want->data, off + i);
        if (g != w && bad++ < 3)
            report(j, isa, "tile", off + i, g, w);
    }
    for (size_t i = 0; i < guard; i++)
        if (out[len * es + i] != 0x5A) {
            print_message("%s %s isa %s: wrote past the end (len %zu, byte %zu)\n", plumb_op_name(j->code),
                          plumb_dtype_name(j->t), rt_isa_name(isa), len, i);
            bad++;
            break;
        }
    failures += bad;
    for (uint32_t k = 0; k < j->arity; k++)
        free(copy[k]);
    free(buf);
}

/* Every ISA: the kernel on the whole job, tiles of every length 0..70 from
 * unaligned offsets, and one long tile from an odd offset. */
static void check_job(harness *h, const ew_job *j)
{
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec x;
        plumb_diag d = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&x, h->pool, isa, j->m, 0, &d));
        check_kernel(&x, isa, j);
        for (size_t len = 0; len <= 70 && len <= j->n; len++)
            check_tile(&x, isa, j, (size_t)(rnd() % (j->n - len + 1)), len);
        if (j->n > 1100)
            check_tile(&x, isa, j, 3, 1037);
        rt_exec_fini(&x);
    }
}

/* Every ordered pair of f32 specials, then n_random random bit patterns
 * (half of them NaNs or infinities less often than raw bits give). */
static uint64_t f32_pairs(uint64_t *vals[2], uint64_t n_random)
{
    uint32_t sp[N_SPECIAL];
    specials(sp);
    uint64_t n = N_SPECIAL * N_SPECIAL + n_random, i = 0;
    for (int k = 0; k < 2; k++) {
        vals[k] = malloc(n * sizeof(uint64_t));
        assert_non_null(vals[k]);
    }
    for (size_t p = 0; p < N_SPECIAL; p++)
        for (size_t q = 0; q < N_SPECIAL; q++, i++) {
            vals[0][i] = sp[p];
            vals[1][i] = sp[q];
        }
    for (; i < n; i++) {
        uint64_t r = rnd();
        vals[0][i] = (uint32_t)r;
        /* the second operand near the first often, so sums cancel and ties occur */
        vals[1][i] = (r >> 62) == 0 ? (uint32_t)r ^ 0x80000000u ^ (uint32_t)((r >> 32) & 7) : (uint32_t)(r >> 32);
    }
    return n;
}

static void run_f32(harness *h, plumb_opcode code, ir_cmp_dir dir)
{
    uint64_t *vals[2];
    uint64_t n = f32_pairs(vals, 2000);
    ew_job j;
    job_build(&j, code, PLUMB_F32, dir, vals, n);
    check_job(h, &j);
    ew_job_free(&j);
    free(vals[0]);
    free(vals[1]);
}

/* f32 add, subtract, multiply, divide at every ISA: the IEEE result, NaN
 * lanes the first operand's NaN quieted, else the second's, else
 * 0x7FC00000, bitwise as the reference. */
static void test_f32_arith(void **state)
{
    harness *h = *state;
    failures = 0;
    static const plumb_opcode ops[] = {PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_DIVIDE};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        run_f32(h, ops[i], IR_CMP_EQ);
    assert_int_equal(failures, 0);
}

/* f32 maximum and minimum at every ISA (NaN propagates quieted, first
 * operand's first; -0 < +0), bitwise as the reference. */
static void test_f32_minmax(void **state)
{
    harness *h = *state;
    failures = 0;
    run_f32(h, PLUMB_OP_MAXIMUM, IR_CMP_EQ);
    run_f32(h, PLUMB_OP_MINIMUM, IR_CMP_EQ);
    assert_int_equal(failures, 0);
}

/* f32 FLOAT compare in all six directions at every ISA (false with a NaN
 * operand, NE true; -0 == +0), one byte 0/1 each, as the reference. */
static void test_f32_compare(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int dir = IR_CMP_EQ; dir <= IR_CMP_GE; dir++)
        run_f32(h, PLUMB_OP_COMPARE, (ir_cmp_dir)dir);
    assert_int_equal(failures, 0);
}

/* select of every element width at every ISA: the predicate's low bit
 * picks whole elements (NaN payloads copied as they are). */
static void test_select(void **state)
{
    harness *h = *state;
    failures = 0;
    static const plumb_dtype ts[] = {PLUMB_F32, PLUMB_F16, PLUMB_I8, PLUMB_F64, PLUMB_I1, PLUMB_I64};
    for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++) {
        uint64_t n = 3000, *vals[3];
        for (int k = 0; k < 3; k++) {
            vals[k] = malloc(n * sizeof(uint64_t));
            assert_non_null(vals[k]);
        }
        uint64_t m = ts[ti] == PLUMB_I1 ? 1 : plumb_dtype_size(ts[ti]) == 8 ? ~0ull
                                                                          : (1ull << (8 * plumb_dtype_size(ts[ti]))) - 1;
        for (uint64_t i = 0; i < n; i++) {
            vals[0][i] = rnd() & 1;
            vals[1][i] = rnd() & m;
            vals[2][i] = rnd() & m;
        }
        ew_job j;
        job_build(&j, PLUMB_OP_SELECT, ts[ti], IR_CMP_EQ, vals, n);
        check_job(h, &j);
        ew_job_free(&j);
        for (int k = 0; k < 3; k++)
            free(vals[k]);
    }
    assert_int_equal(failures, 0);
}

/* Hand-derived results at every ISA, in a full vector of every width and in
 * the tail: NaN operand choice and quieting, created NaNs, signed zeros. */
static void test_hand_values(void **state)
{
    harness *h = *state;
    static const struct { plumb_opcode code; uint32_t a, b, want; } c[] = {
        {PLUMB_OP_ADD, 0x7F800001, 0x3F800000, 0x7FC00001},   /* sNaN + 1: quieted payload */
        {PLUMB_OP_ADD, 0x3F800000, 0xFFA00003, 0xFFE00003},   /* 1 + -sNaN: second NaN, sign kept */
        {PLUMB_OP_ADD, 0x7F800001, 0xFFC12345, 0x7FC00001},   /* two NaNs: the first wins */
        {PLUMB_OP_SUBTRACT, 0x7F800000, 0x7F800000, 0x7FC00000},   /* inf - inf: default NaN, positive */
        {PLUMB_OP_MULTIPLY, 0x00000000, 0xFF800000, 0x7FC00000},   /* 0 * -inf */
        {PLUMB_OP_DIVIDE, 0x80000000, 0x00000000, 0x7FC00000},     /* -0 / 0 */
        {PLUMB_OP_DIVIDE, 0x3F800000, 0x80000000, 0xFF800000},     /* 1 / -0 = -inf */
        {PLUMB_OP_ADD, 0x80000000, 0x80000000, 0x80000000},        /* -0 + -0 = -0 */
        {PLUMB_OP_ADD, 0x3F800000, 0xBF800000, 0x00000000},        /* 1 - 1 = +0 */
        {PLUMB_OP_MULTIPLY, 0x00000001, 0x3F000000, 0x00000000},   /* 2^-149 / 2: tie to even 0 */
        {PLUMB_OP_MULTIPLY, 0x00000003, 0x3F000000, 0x00000002},   /* 3 * 2^-150: tie to even 2^-148 */
        {PLUMB_OP_MAXIMUM, 0x80000000, 0x00000000, 0x00000000},
        {PLUMB_OP_MAXIMUM, 0x00000000, 0x80000000, 0x00000000},
        {PLUMB_OP_MINIMUM, 0x00000000, 0x80000000, 0x80000000},
        {PLUMB_OP_MINIMUM, 0x80000000, 0x00000000, 0x80000000},
        {PLUMB_OP_MAXIMUM, 0x3F800000, 0xFFA00003, 0xFFE00003},    /* NaN propagates, quieted */
        {PLUMB_OP_MINIMUM, 0x7FA00003, 0xFFC00001, 0x7FE00003},
        {PLUMB_OP_MINIMUM, 0xFF800000, 0x7F7FFFFF, 0xFF800000},
        {PLUMB_OP_MAXIMUM, 0x00000001, 0x80000001, 0x00000001},
    };
    enum { LEN = 37 };   /* full vectors at every width and a tail */
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++)
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            for (size_t pos = 0; pos < LEN; pos += 5) {
                uint64_t *vals[2];
                for (int k = 0; k < 2; k++) {
                    vals[k] = calloc(LEN, sizeof(uint64_t));
                    assert_non_null(vals[k]);
                    for (size_t e = 0; e < LEN; e++)
                        vals[k][e] = 0x3F800000;   /* 1.0 everywhere else */
                }
                vals[0][pos] = c[i].a;
                vals[1][pos] = c[i].b;
                ew_job j;
                job_build(&j, c[i].code, PLUMB_F32, IR_CMP_EQ, vals, LEN);
                rt_exec x;
                plumb_diag d = {.code = PLUMB_OK};
                assert_true(rt_exec_init(&x, h->pool, isa, j.m, 0, &d));
                uint32_t out[LEN];
                const void *in[2] = {j.in[0]->data, j.in[1]->data};
                assert_true(rt_ew_tile(&x, j.op, in, out, LEN));
                if (out[pos] != c[i].want)
                    print_message("%s 0x%08x 0x%08x isa %s at %zu: got 0x%08x want 0x%08x\n",
                                  plumb_op_name(c[i].code), c[i].a, c[i].b, rt_isa_name(isa), pos, out[pos],
                                  c[i].want);
                assert_int_equal(out[pos], c[i].want);
                rt_exec_fini(&x);
                ew_job_free(&j);
                free(vals[0]);
                free(vals[1]);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_arith),   cmocka_unit_test(test_f32_minmax), cmocka_unit_test(test_f32_compare),
        cmocka_unit_test(test_select),      cmocka_unit_test(test_hand_values),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
