/* One-element operands of the elementwise kernels (clamp's bounds, select's
 * predicate) through the block path of runtime/k_elementwise.c, which
 * repeats them into a block buffer and runs the per-type vector loops block
 * by block: against the reference interpreter, bit for bit, at every ISA
 * level this CPU has, at lengths on both sides of the block size (512) and
 * of its multiples, for float, half and integer types. */
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

static const uint64_t lengths[] = {1, 2, 15, 511, 512, 513, 1024, 1500};

static uint64_t rng_state = 0x5EED0F0B10C5ull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

/* Element i of a full operand: random bits with a NaN, -0 and an infinity
 * of the type early on (floats), so clamp's NaN rule is exercised too. */
static uint64_t element(plumb_dtype t, uint64_t i)
{
    unsigned w = plumb_dtype_get(t)->bits;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    if (plumb_dtype_is_float(t) && i < 4) {
        unsigned mant = t == PLUMB_F16 ? 10 : t == PLUMB_BF16 ? 7 : t == PLUMB_F32 ? 23 : 52;
        uint64_t exp_all = (m >> 1) & ~((1ull << mant) - 1), sign = 1ull << (w - 1);
        uint64_t special[4] = {exp_all | 5, sign, exp_all, sign | exp_all};   /* NaN, -0, +inf, -inf */
        return special[i];
    }
    if (plumb_dtype_is_float(t)) {
        /* values around the bounds used below (-1 .. 1 in the type) */
        double v = (double)(int64_t)(rnd() % 4001) / 1000.0 - 2.0;
        return t == PLUMB_F16 ? plumb_f64_to_f16(v) : t == PLUMB_BF16 ? plumb_f64_to_bf16(v) : 0;
    }
    return rnd() & m;
}

static void set_float(plumb_dtype t, void *p, double v)
{
    if (t == PLUMB_F32) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (t == PLUMB_F64) {
        memcpy(p, &v, 8);
    } else {
        uint16_t h = t == PLUMB_F16 ? plumb_f64_to_f16(v) : plumb_f64_to_bf16(v);
        memcpy(p, &h, 2);
    }
}

static void fill_full(plumb_dtype t, plumb_tensor *x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (plumb_dtype_is_float(t) && i >= 4 && (t == PLUMB_F32 || t == PLUMB_F64)) {
            double v = (double)(int64_t)(rnd() % 4001) / 1000.0 - 2.0;
            set_float(t, (uint8_t *)x->data + i * plumb_dtype_size(t), v);
        } else {
            plumb_store_bits(t, x->data, i, element(t, i));
        }
    }
}

/* Builds code with operand k of rank 0 where scalar_mask has bit k, runs it
 * on the reference and on the runtime kernel at every ISA, and counts the
 * mismatching elements. */
static uint64_t check(plumb_opcode code, plumb_dtype t, uint64_t n, unsigned scalar_mask, uint64_t *ran)
{
    uint32_t arity = 3;
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    int64_t dims[1] = {(int64_t)n};
    ir_value *args[3];
    plumb_tensor *in[3] = {NULL, NULL, NULL};
    plumb_diag d = {.code = PLUMB_OK};
    for (uint32_t k = 0; k < arity; k++) {
        plumb_dtype kt = code == PLUMB_OP_SELECT && k == 0 ? PLUMB_I1 : t;
        bool scalar = (scalar_mask >> k) & 1;
        ir_type ty = ir_type_make(kt, scalar ? 0 : 1, dims);
        args[k] = ir_block_add_arg(m, &f->body, &ty);
        in[k] = plumb_tensor_new(kt, scalar ? 0 : 1, dims, 0, &d);
        assert_non_null(in[k]);
        if (code == PLUMB_OP_CLAMP && scalar) {
            if (plumb_dtype_is_float(t))
                set_float(t, in[k]->data, k == 0 ? -0.75 : 0.5);
            else
                plumb_store_bits(t, in[k]->data, 0, k == 0 ? 3 : (1ull << (plumb_dtype_get(t)->bits - 2)));
        } else if (kt == PLUMB_I1) {
            for (uint64_t i = 0; i < (scalar ? 1 : n); i++)
                plumb_store_bits(kt, in[k]->data, i, rnd() & 1);
        } else {
            fill_full(t, in[k], scalar ? 1 : n);
        }
    }
    ir_type rty = ir_type_make(t, 1, dims);
    ir_op *op = ir_op_new(m, code, args, arity, &rty, 1);
    ir_block_append(&f->body, op);
    ir_block_append(&f->body, ir_op_new(m, PLUMB_OP_FUNC_RETURN, op->results, 1, NULL, 0));
    assert_true(ir_func_set_results(m, f, &rty, 1));
    assert_true(ir_verify(m, NULL, &d));
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(m, NULL, in, arity, &ro, &res, &d));
    uint64_t bad = 0;
    rt_pool *pool = rt_pool_new(2, &d);
    assert_non_null(pool);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        rt_exec x;
        assert_true(rt_exec_init(&x, pool, isa, m, 0, &d));
        plumb_tensor *got = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(got);
        memset(got->data, 0xA5, got->nbytes);
        assert_true(rt_run_kernel(&x, op, in, &got));
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, res.outputs[0]->data, i);
            if (g != w && bad++ < 8)
                print_message("%s %s n %llu scalars 0x%x isa %s element %llu: got 0x%llx want 0x%llx\n",
                              plumb_op_name(code), plumb_dtype_name(t), (unsigned long long)n, scalar_mask,
                              rt_isa_name(isa), (unsigned long long)i, (unsigned long long)g,
                              (unsigned long long)w);
        }
        plumb_tensor_free(got);
        rt_exec_fini(&x);
    }
    (*ran)++;
    rt_pool_free(pool);
    plumb_ref_result_free(&res);
    for (uint32_t k = 0; k < arity; k++)
        plumb_tensor_free(in[k]);
    ir_module_free(m);
    return bad;
}

static const plumb_dtype types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I8, PLUMB_I32, PLUMB_UI16,
                                    PLUMB_I64};

/* clamp(lo, x, hi) with scalar bounds (either or both) across block edges. */
static void test_clamp_scalar_bounds(void **state)
{
    (void)state;
    uint64_t bad = 0, ran = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
            for (unsigned mi = 0; mi < 3; mi++) {
                static const unsigned masks[3] = {1, 4, 5};   /* lo; hi; both */
                bad += check(PLUMB_OP_CLAMP, types[ti], lengths[li], masks[mi], &ran);
            }
    assert_int_equal(bad, 0);
    assert_true(ran >= 8 * 8 * 3);
}

/* select with a scalar predicate across block edges. */
static void test_select_scalar_operands(void **state)
{
    (void)state;
    uint64_t bad = 0, ran = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
            bad += check(PLUMB_OP_SELECT, types[ti], lengths[li], 1, &ran);
    assert_int_equal(bad, 0);
    assert_true(ran >= 8 * 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clamp_scalar_bounds),
        cmocka_unit_test(test_select_scalar_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
