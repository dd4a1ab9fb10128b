/* The integer and i1 loops of runtime/k_ew_int.c against the reference
 * interpreter (the oracle), bit for bit, at every ISA level this CPU has:
 * every pair of special values (MIN, MAX, -1, 0, 1, shift amounts 0,
 * width-1, width, larger and negative) plus random values, through the
 * runtime kernel and through rt_ew_int directly at unaligned starts, at
 * every length 0..70 and in place. */
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
#include "../../runtime/rt_pipeline.h"
#include "ew_harness.h"

static uint64_t rng_state = 0x0DDBA11C0FFEE123ull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

static const plumb_dtype int_types[] = {PLUMB_I1,  PLUMB_I8,   PLUMB_I16,  PLUMB_I32, PLUMB_I64,
                                        PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};

/* Special bit patterns of a w-bit integer type. */
static size_t specials(plumb_dtype t, uint64_t *v)
{
    unsigned w = plumb_dtype_get(t)->bits;
    if (w == 1) {
        v[0] = 0;
        v[1] = 1;
        return 2;
    }
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1, top = 1ull << (w - 1);
    uint64_t base[] = {0, 1, 2, 3, 5, 7, m, m - 1, m - 6, top, top - 1, top + 1, top - 2,
                       w - 1, w, w + 1, 2 * w, 63, 64, 65, 127, 128, 255, 256, 0x5555555555555555ull,
                       0x0F0F0F0F0F0F0F0Full};
    size_t n = sizeof base / sizeof base[0];
    for (size_t i = 0; i < n; i++)
        v[i] = base[i] & m;
    return n;
}

/* Operand k of n elements: the first ns*ns (or ns^3) elements walk all
 * combinations of the specials, the rest mixes small and random values. */
static void fill(plumb_dtype t, plumb_tensor *x, uint32_t k, uint32_t arity, uint64_t n)
{
    uint64_t sp[32];
    size_t ns = specials(t, sp);
    unsigned w = plumb_dtype_get(t)->bits;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    uint64_t stride = k == 0 ? 1 : k == 1 ? ns : ns * ns, all = arity == 1 ? ns : arity == 2 ? ns * ns : ns * ns * ns;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        if (i < all)
            v = sp[(i / stride) % ns];
        else if (i % 3 == 0)
            v = rnd() % 70;
        else if (i % 3 == 1)
            v = 0 - rnd() % 70;
        else
            v = rnd();
        plumb_store_bits(t, x->data, i, v & m);
    }
}

typedef struct ctx {
    harness *h;
    uint64_t failures;   /* mismatching elements */
    uint64_t ran;        /* combinations checked */
} ctx;

static void report(ctx *c, const char *how, plumb_opcode code, plumb_dtype t, plumb_isa isa, uint64_t i,
                   uint64_t got, uint64_t want)
{
    if (c->failures++ < 8)
        print_message("%s %s %s isa %s element %llu: got 0x%llx want 0x%llx\n", how, plumb_op_name(code),
                      plumb_dtype_name(t), rt_isa_name(isa), (unsigned long long)i, (unsigned long long)got,
                      (unsigned long long)want);
}

/* Runs code on n elements of type t (compare: direction dir, type cmp) on
 * the reference and compares the runtime kernel and rt_ew_int's loops with
 * it at every ISA. */
static void check(ctx *c, plumb_opcode code, plumb_dtype t, uint64_t n, ir_cmp_dir dir, ir_cmp_type cmp)
{
    uint32_t arity = (uint32_t)plumb_op_get(code)->arity;
    plumb_dtype rt = code == PLUMB_OP_COMPARE ? PLUMB_I1 : t;
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    int64_t dims[1] = {(int64_t)n};
    ir_type ty = ir_type_make(t, 1, dims), rty = ir_type_make(rt, 1, dims);
    ir_value *args[3];
    for (uint32_t k = 0; k < arity; k++)
        args[k] = ir_block_add_arg(m, &f->body, &ty);
    ir_op *op = ir_op_new(m, code, args, arity, &rty, 1);
    op->a.cmp_dir = dir;
    op->a.cmp_type = cmp;
    ir_block_append(&f->body, op);
    ir_block_append(&f->body, ir_op_new(m, PLUMB_OP_FUNC_RETURN, op->results, 1, NULL, 0));
    assert_true(ir_func_set_results(m, f, &rty, 1));
    plumb_diag d = {.code = PLUMB_OK};
    if (!ir_verify(m, NULL, &d)) {   /* a combination the op set rejects */
        ir_module_free(m);
        return;
    }
    plumb_tensor *in[3] = {NULL, NULL, NULL};
    for (uint32_t k = 0; k < arity; k++) {
        in[k] = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(in[k]);
        fill(t, in[k], k, arity, n);
    }
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(m, NULL, in, arity, &ro, &res, &d));
    const plumb_tensor *want = res.outputs[0];
    size_t isz = plumb_dtype_size(t), osz = plumb_dtype_size(rt);
    uint8_t *buf = malloc((size_t)n * osz + 64);
    assert_non_null(buf);
    c->ran++;
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= c->h->best; isa++) {
        /* the whole tensor through the runtime's kernel */
        rt_exec x;
        plumb_diag xd = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&x, c->h->pool, isa, m, 0, &xd));
        plumb_tensor *got = plumb_tensor_new(rt, 1, dims, 0, &d);
        assert_non_null(got);
        memset(got->data, 0xA5, got->nbytes);
        assert_true(rt_run_kernel(&x, op, in, &got));
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(rt, got->data, i), w = plumb_load_bits(rt, want->data, i);
            if (g != w)
                report(c, "kernel", code, t, isa, i, g, w);
        }
        plumb_tensor_free(got);
        rt_exec_fini(&x);

        /* rt_ew_int itself: starts 0..3 elements past the tensor's (aligned)
         * start, every length 0..70, then the rest in one piece */
        rt_ew_args a = {.op = op, .code = code, .isa = isa, .t = t, .rt = rt, .n_in = arity};
        for (size_t start = 0; start < 4; start++) {
            for (size_t len = 0; start + len <= n && len <= 71; len++) {
                size_t ln = len == 71 ? (size_t)n - start : len;
                size_t end = (start + ln) * osz;
                memset(buf, 0xA5, end + 64);
                for (uint32_t k = 0; k < arity; k++)
                    a.in[k] = (const uint8_t *)in[k]->data + start * isz;
                a.out = buf + start * osz;
                a.n = ln;
                assert_true(rt_ew_int(&a));
                for (size_t i = 0; i < ln; i++) {
                    uint64_t g = plumb_load_bits(rt, a.out, i), w = plumb_load_bits(rt, want->data, start + i);
                    if (g != w)
                        report(c, "rt_ew_int", code, t, isa, start + i, g, w);
                }
                /* nothing written past the end */
                for (size_t i = end; i < end + 64; i++)
                    if (buf[i] != 0xA5)
                        report(c, "rt_ew_int past the end", code, t, isa, i / osz, buf[i], 0xA5);
            }
        }
        /* in place: the result over operand 0 (same element size only) */
        if (osz == isz) {
            uint8_t *copy = malloc((size_t)n * isz);
            assert_non_null(copy);
            memcpy(copy, in[0]->data, (size_t)n * isz);
            for (uint32_t k = 0; k < arity; k++)
                a.in[k] = k == 0 ? copy : in[k]->data;
            a.out = copy;
            a.n = (size_t)n;
            assert_true(rt_ew_int(&a));
            for (uint64_t i = 0; i < n; i++) {
                uint64_t g = plumb_load_bits(rt, copy, i), w = plumb_load_bits(rt, want->data, i);
                if (g != w)
                    report(c, "in place", code, t, isa, i, g, w);
            }
            free(copy);
        }
    }
    free(buf);
    plumb_ref_result_free(&res);
    for (uint32_t k = 0; k < arity; k++)
        plumb_tensor_free(in[k]);
    ir_module_free(m);
}

static uint64_t size_for(plumb_opcode code, plumb_dtype t)
{
    uint64_t sp[32];
    uint64_t ns = specials(t, sp);
    uint64_t all = plumb_op_get(code)->arity == 3 ? ns * ns * ns : ns * ns;
    return all + 1100;   /* tails of every vector width after the specials */
}

static void run_ops(void **state, const plumb_opcode *ops, size_t n_ops)
{
    ctx c = {.h = *state};
    for (size_t i = 0; i < n_ops; i++)
        for (size_t j = 0; j < sizeof int_types / sizeof int_types[0]; j++)
            check(&c, ops[i], int_types[j], size_for(ops[i], int_types[j]), IR_CMP_EQ, IR_CMP_TYPE_NONE);
    assert_int_equal(c.failures, 0);
    assert_true(c.ran >= n_ops);   /* each op ran on some type */
}

/* Wrap-around arithmetic, bitwise ops and minimum/maximum on every integer
 * type and i1 (where the op set takes it). */
static void test_arith_bitwise(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_ADD, PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_MAXIMUM,
                                       PLUMB_OP_MINIMUM, PLUMB_OP_AND, PLUMB_OP_OR, PLUMB_OP_XOR};
    run_ops(state, ops, sizeof ops / sizeof ops[0]);
}

/* Unary ops: abs and negate of MIN wrap, sign, not, popcnt and
 * count_leading_zeros (of 0 too). */
static void test_unary(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_ABS, PLUMB_OP_NEGATE, PLUMB_OP_SIGN, PLUMB_OP_NOT, PLUMB_OP_POPCNT,
                                       PLUMB_OP_COUNT_LEADING_ZEROS};
    run_ops(state, ops, sizeof ops / sizeof ops[0]);
}

/* Shifts by 0, width-1, width, more and negative amounts. */
static void test_shifts(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_SHIFT_LEFT, PLUMB_OP_SHIFT_RIGHT_ARITHMETIC,
                                       PLUMB_OP_SHIFT_RIGHT_LOGICAL};
    run_ops(state, ops, sizeof ops / sizeof ops[0]);
}

/* Division and remainder: by zero, MIN / -1, signs of quotient and
 * remainder, and the f32/f64 quotient paths on random operands. */
static void test_divide_remainder(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_DIVIDE, PLUMB_OP_REMAINDER};
    run_ops(state, ops, sizeof ops / sizeof ops[0]);
}

/* Large random operands of division: the 16- and 32-bit quotients through
 * f32/f64 where they are closest to an integer. */
static void test_divide_dense(void **state)
{
    ctx c = {.h = *state};
    static const plumb_dtype ts[] = {PLUMB_I8, PLUMB_UI8, PLUMB_I16, PLUMB_UI16, PLUMB_I32, PLUMB_UI32};
    for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
        check(&c, PLUMB_OP_DIVIDE, ts[j], 20000, IR_CMP_EQ, IR_CMP_TYPE_NONE);
        check(&c, PLUMB_OP_REMAINDER, ts[j], 20000, IR_CMP_EQ, IR_CMP_TYPE_NONE);
    }
    assert_int_equal(c.failures, 0);
    assert_int_equal(c.ran, 12);
}

/* Every comparison direction under the default, SIGNED and UNSIGNED
 * comparison types (unsigned data compared as signed and the reverse), i1
 * results. */
static void test_compare(void **state)
{
    ctx c = {.h = *state};
    static const ir_cmp_dir dirs[] = {IR_CMP_EQ, IR_CMP_NE, IR_CMP_LT, IR_CMP_LE, IR_CMP_GT, IR_CMP_GE};
    static const ir_cmp_type tys[] = {IR_CMP_TYPE_NONE, IR_CMP_SIGNED, IR_CMP_UNSIGNED};
    for (size_t j = 0; j < sizeof int_types / sizeof int_types[0]; j++)
        for (size_t d = 0; d < 6; d++)
            for (size_t y = 0; y < 3; y++)
                check(&c, PLUMB_OP_COMPARE, int_types[j], size_for(PLUMB_OP_COMPARE, int_types[j]), dirs[d], tys[y]);
    assert_int_equal(c.failures, 0);
    assert_true(c.ran >= 9 * 6);
}

/* clamp with bounds in either order (lo > hi gives hi), all triples of
 * special values. */
static void test_clamp(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_CLAMP};
    run_ops(state, ops, 1);
}

/* chlo.mulhi: every pair of the specials (MIN * MIN, MIN * MAX, -1 * 1,
 * all-ones squares, limb-straddling patterns) and random values on each
 * integer type (i1 is not one mulhi takes: check skips what the verifier
 * rejects), then 20000 mostly random pairs per type for the widening
 * multiplies of the 8- to 32-bit vector loops and the 64-bit products. */
static void test_mulhi(void **state)
{
    static const plumb_opcode ops[] = {PLUMB_OP_MULHI};
    run_ops(state, ops, 1);
    ctx c = {.h = *state};
    for (size_t j = 1; j < sizeof int_types / sizeof int_types[0]; j++)
        check(&c, PLUMB_OP_MULHI, int_types[j], 20000, IR_CMP_EQ, IR_CMP_TYPE_NONE);
    assert_int_equal(c.failures, 0);
    assert_int_equal(c.ran, 8);
}

/* What the loops do not take goes back to the engine: float types, ops
 * outside the set (atan2), mismatched result types. */
static void test_declines(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, o[4];
    int32_t xi[4] = {1, 2, 3, 4}, oi[4];
    rt_ew_args a = {.op = NULL, .code = PLUMB_OP_ADD, .isa = PLUMB_ISA_PORTABLE, .t = PLUMB_F32, .rt = PLUMB_F32,
                    .n_in = 2, .in = {x, x}, .out = o, .n = 4};
    assert_false(rt_ew_int(&a));
    a.t = a.rt = PLUMB_I32;
    a.in[0] = a.in[1] = xi;
    a.out = oi;
    a.code = PLUMB_OP_ATAN2;   /* float-only */
    assert_false(rt_ew_int(&a));
    a.code = PLUMB_OP_ADD;
    a.rt = PLUMB_I64;
    assert_false(rt_ew_int(&a));
    a.rt = PLUMB_I32;
    a.n_in = 1;
    assert_false(rt_ew_int(&a));
    a.n_in = 2;
    assert_true(rt_ew_int(&a));
    assert_int_equal(oi[3], 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arith_bitwise), cmocka_unit_test(test_unary),
        cmocka_unit_test(test_shifts),        cmocka_unit_test(test_divide_remainder),
        cmocka_unit_test(test_divide_dense),  cmocka_unit_test(test_compare),
        cmocka_unit_test(test_clamp),         cmocka_unit_test(test_declines),
        cmocka_unit_test(test_mulhi),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
