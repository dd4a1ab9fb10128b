/* Data-movement kernels of the reference. Expected values are the examples
 * of the StableHLO spec (docs/spec.md of the StableHLO repository, section
 * "Ops") or derived by hand from its definitions; modules are built with
 * the IR builder so that these tests depend on nothing but the kernels and
 * the interpreter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

/* ---- a tiny module builder: main(params) { ops; return } ------------------ */

typedef struct tb {
    ir_module *m;
    ir_func *f;
    plumb_tensor *owned[16];   /* constant attribute tensors to free */
    int n_owned;
} tb;

static void tb_init(tb *b)
{
    memset(b, 0, sizeof *b);
    b->m = ir_module_new("t");
    assert_non_null(b->m);
    b->f = ir_func_new(b->m, "main", true);
    assert_non_null(b->f);
}

static void tb_free(tb *b)
{
    for (int i = 0; i < b->n_owned; i++)
        plumb_tensor_free(b->owned[i]);
    ir_module_free(b->m);
}

static ir_type ty(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    return ir_type_make(t, rank, dims);
}

static ir_value *tb_param(tb *b, ir_type t)
{
    ir_value *v = ir_block_add_arg(b->m, &b->f->body, &t);
    assert_non_null(v);
    return v;
}

static ir_op *tb_op(tb *b, plumb_opcode code, ir_value **ops, uint32_t n, ir_type rt)
{
    ir_op *op = ir_op_new(b->m, code, ops, n, &rt, 1);
    assert_non_null(op);
    ir_block_append(&b->f->body, op);
    return op;
}

static void tb_return(tb *b, ir_value *v)
{
    ir_op *op = ir_op_new(b->m, PLUMB_OP_FUNC_RETURN, &v, 1, NULL, 0);
    assert_non_null(op);
    ir_block_append(&b->f->body, op);
    assert_true(ir_func_set_results(b->m, b->f, &v->type, 1));
}

static plumb_tensor *tensor(plumb_dtype t, uint32_t rank, const int64_t *dims, const void *data)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    if (x->nbytes)
        memcpy(x->data, data, x->nbytes);
    return x;
}

static ir_value *tb_const(tb *b, plumb_dtype t, uint32_t rank, const int64_t *dims, const void *data)
{
    plumb_tensor *x = tensor(t, rank, dims, data);
    b->owned[b->n_owned++] = x;
    ir_op *op = tb_op(b, PLUMB_OP_CONSTANT, NULL, 0, ty(t, rank, dims));
    op->a.value = x;
    return op->results[0];
}

/* Runs main on inputs; returns its only result (caller frees). */
static plumb_tensor *run(tb *b, plumb_tensor **ins, uint32_t n)
{
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = plumb_ref_run(b->m, NULL, ins, n, &o, &res, &d);
    if (!ok)
        fprintf(stderr, "run failed: %s\n", d.msg);
    assert_true(ok);
    assert_int_equal(res.n_outputs, 1);
    plumb_tensor *r = res.outputs[0];
    res.outputs[0] = NULL;
    plumb_ref_result_free(&res);
    return r;
}

static ir_ints ints(tb *b, const int64_t *v, uint32_t n) { return ir_ints_make(b->m, v, n); }

static void expect_i32(const plumb_tensor *t, uint32_t rank, const int64_t *dims, const int32_t *want)
{
    assert_int_equal(t->dtype, PLUMB_I32);
    assert_int_equal(t->rank, rank);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        assert_int_equal(t->dims[i], dims[i]);
        n *= (uint64_t)dims[i];
    }
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(((const int32_t *)t->data)[i], want[i]);
}

/* ---- tests --------------------------------------------------------------------- */

/* Spec example: broadcast_in_dim of [[1, 2, 3]] to 2x3x2 with dims [2, 1]. */
static void test_broadcast_in_dim_spec(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {1, 3}, rd[] = {2, 3, 2}, bd[] = {2, 1};
    int32_t x[] = {1, 2, 3};
    ir_value *c = tb_const(&b, PLUMB_I32, 2, od, x);
    ir_op *op = tb_op(&b, PLUMB_OP_BROADCAST_IN_DIM, &c, 1, ty(PLUMB_I32, 3, rd));
    op->a.dims = ints(&b, bd, 2);
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    int32_t want[] = {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3};
    expect_i32(r, 3, rd, want);
    plumb_tensor_free(r);
    tb_free(&b);
}

/* Spec example: iota along dimension 0 and 1 of a 4x5 result. */
static void test_iota_spec(void **state)
{
    (void)state;
    for (int dim = 0; dim < 2; dim++) {
        tb b;
        tb_init(&b);
        int64_t rd[] = {4, 5};
        ir_op *op = tb_op(&b, PLUMB_OP_IOTA, NULL, 0, ty(PLUMB_I32, 2, rd));
        op->a.dimension = dim;
        tb_return(&b, op->results[0]);
        plumb_tensor *r = run(&b, NULL, 0);
        int32_t want[20];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 5; j++)
                want[i * 5 + j] = dim == 0 ? i : j;
        expect_i32(r, 2, rd, want);
        plumb_tensor_free(r);
        tb_free(&b);
    }
}

/* iota in f16 and bf16: 0, 1, 2, 3 as their IEEE/bfloat16 bit patterns;
 * f16 index 2049 rounds to 2048 (ties to even; 2049 lies halfway). */
static void test_iota_half(void **state)
{
    (void)state;
    const uint16_t f16[] = {0x0000, 0x3C00, 0x4000, 0x4200};
    const uint16_t bf16[] = {0x0000, 0x3F80, 0x4000, 0x4040};
    for (int k = 0; k < 2; k++) {
        tb b;
        tb_init(&b);
        int64_t rd[] = {4};
        ir_op *op = tb_op(&b, PLUMB_OP_IOTA, NULL, 0, ty(k ? PLUMB_BF16 : PLUMB_F16, 1, rd));
        op->a.dimension = 0;
        tb_return(&b, op->results[0]);
        plumb_tensor *r = run(&b, NULL, 0);
        assert_memory_equal(r->data, k ? bf16 : f16, 8);
        plumb_tensor_free(r);
        tb_free(&b);
    }
    tb b;
    tb_init(&b);
    int64_t rd[] = {2050};
    ir_op *op = tb_op(&b, PLUMB_OP_IOTA, NULL, 0, ty(PLUMB_F16, 1, rd));
    op->a.dimension = 0;
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    /* 2048 = 0x6800; 2049 -> 2048 (even); 2047 = 0x67FF */
    assert_int_equal(((uint16_t *)r->data)[2047], 0x67FF);
    assert_int_equal(((uint16_t *)r->data)[2048], 0x6800);
    assert_int_equal(((uint16_t *)r->data)[2049], 0x6800);
    plumb_tensor_free(r);
    tb_free(&b);
}

/* Spec example: reshape [[1,2,3],[4,5,6]] to 3x2 keeps row-major order. */
static void test_reshape_spec(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {2, 3}, rd[] = {3, 2};
    ir_value *p = tb_param(&b, ty(PLUMB_I32, 2, od));
    ir_op *op = tb_op(&b, PLUMB_OP_RESHAPE, &p, 1, ty(PLUMB_I32, 2, rd));
    tb_return(&b, op->results[0]);
    int32_t x[] = {1, 2, 3, 4, 5, 6};
    plumb_tensor *in = tensor(PLUMB_I32, 2, od, x);
    plumb_tensor *r = run(&b, &in, 1);
    expect_i32(r, 2, rd, x);
    plumb_tensor_free(r);
    plumb_tensor_free(in);
    tb_free(&b);
}

/* Spec example: transpose of a 2x3x2 tensor with permutation [2, 1, 0]. */
static void test_transpose_spec(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {2, 3, 2}, perm[] = {2, 1, 0};
    ir_value *p = tb_param(&b, ty(PLUMB_I32, 3, od));
    ir_op *op = tb_op(&b, PLUMB_OP_TRANSPOSE, &p, 1, ty(PLUMB_I32, 3, od));
    op->a.dims = ints(&b, perm, 3);
    tb_return(&b, op->results[0]);
    int32_t x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    plumb_tensor *in = tensor(PLUMB_I32, 3, od, x);
    plumb_tensor *r = run(&b, &in, 1);
    int32_t want[] = {1, 7, 3, 9, 5, 11, 2, 8, 4, 10, 6, 12};
    expect_i32(r, 3, od, want);
    plumb_tensor_free(r);
    plumb_tensor_free(in);
    tb_free(&b);
}

/* slice with strides: [0..7][1:7:2] = [1, 3, 5]; and an empty slice. */
static void test_slice_strides_and_empty(void **state)
{
    (void)state;
    for (int empty = 0; empty < 2; empty++) {
        tb b;
        tb_init(&b);
        int64_t od[] = {8}, rd[] = {empty ? 0 : 3};
        int64_t st[] = {empty ? 4 : 1}, li[] = {empty ? 4 : 7}, sr[] = {2};
        ir_value *p = tb_param(&b, ty(PLUMB_I32, 1, od));
        ir_op *op = tb_op(&b, PLUMB_OP_SLICE, &p, 1, ty(PLUMB_I32, 1, rd));
        op->a.start = ints(&b, st, 1);
        op->a.limit = ints(&b, li, 1);
        op->a.strides = ints(&b, sr, 1);
        tb_return(&b, op->results[0]);
        int32_t x[] = {0, 1, 2, 3, 4, 5, 6, 7};
        plumb_tensor *in = tensor(PLUMB_I32, 1, od, x);
        plumb_tensor *r = run(&b, &in, 1);
        int32_t want[] = {1, 3, 5};
        expect_i32(r, 1, rd, want);
        plumb_tensor_free(r);
        plumb_tensor_free(in);
        tb_free(&b);
    }
}

/* Spec example shape: dynamic_slice with starts (-1, 3) and sizes 2x2 on a
 * 4x4 operand clamps to (0, 2). The index types are i64 and ui32. */
static void test_dynamic_slice_clamps(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {4, 4}, rd[] = {2, 2}, sz[] = {2, 2};
    ir_value *ops[3];
    ops[0] = tb_param(&b, ty(PLUMB_I32, 2, od));
    ops[1] = tb_param(&b, ty(PLUMB_I64, 0, NULL));
    ops[2] = tb_param(&b, ty(PLUMB_UI32, 0, NULL));
    ir_op *op = tb_op(&b, PLUMB_OP_DYNAMIC_SLICE, ops, 3, ty(PLUMB_I32, 2, rd));
    op->a.sizes = ints(&b, sz, 2);
    tb_return(&b, op->results[0]);
    int32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = i;
    int64_t s0 = -1;
    uint32_t s1 = 3;
    plumb_tensor *in[3] = {tensor(PLUMB_I32, 2, od, x), tensor(PLUMB_I64, 0, NULL, &s0),
                           tensor(PLUMB_UI32, 0, NULL, &s1)};
    plumb_tensor *r = run(&b, in, 3);
    int32_t want[] = {2, 3, 6, 7};
    expect_i32(r, 2, rd, want);
    plumb_tensor_free(r);
    /* A huge unsigned start clamps to the last valid start too. */
    uint32_t big = 0xFFFFFFFFu;
    memcpy(in[2]->data, &big, 4);
    int64_t one = 1;
    memcpy(in[1]->data, &one, 8);
    r = run(&b, in, 3);
    int32_t want2[] = {6, 7, 10, 11};
    expect_i32(r, 2, rd, want2);
    plumb_tensor_free(r);
    for (int i = 0; i < 3; i++)
        plumb_tensor_free(in[i]);
    tb_free(&b);
}

/* Spec example shape: dynamic_update_slice with starts (-1, 3) writes a 2x2
 * update at (0, 2) of a zero 4x4 operand; the rest is unchanged. */
static void test_dynamic_update_slice_clamps(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {4, 4}, ud[] = {2, 2};
    ir_value *ops[4];
    ops[0] = tb_param(&b, ty(PLUMB_I32, 2, od));
    ops[1] = tb_param(&b, ty(PLUMB_I32, 2, ud));
    ops[2] = tb_param(&b, ty(PLUMB_I32, 0, NULL));
    ops[3] = tb_param(&b, ty(PLUMB_I32, 0, NULL));
    ir_op *op = tb_op(&b, PLUMB_OP_DYNAMIC_UPDATE_SLICE, ops, 4, ty(PLUMB_I32, 2, od));
    tb_return(&b, op->results[0]);
    int32_t x[16] = {0}, u[] = {1, 2, 3, 4}, s0 = -1, s1 = 3;
    plumb_tensor *in[4] = {tensor(PLUMB_I32, 2, od, x), tensor(PLUMB_I32, 2, ud, u),
                           tensor(PLUMB_I32, 0, NULL, &s0), tensor(PLUMB_I32, 0, NULL, &s1)};
    plumb_tensor *r = run(&b, in, 4);
    int32_t want[16] = {0, 0, 1, 2, 0, 0, 3, 4};
    expect_i32(r, 2, od, want);
    plumb_tensor_free(r);
    for (int i = 0; i < 4; i++)
        plumb_tensor_free(in[i]);
    tb_free(&b);
}

/* Spec example: concatenate [[1,2],[3,4],[5,6]] and [[7,8]] along 0; then
 * along dimension 1 with an operand of zero extent in between. */
static void test_concatenate(void **state)
{
    (void)state;
    {
        tb b;
        tb_init(&b);
        int64_t ad[] = {3, 2}, bd[] = {1, 2}, rd[] = {4, 2};
        int32_t x[] = {1, 2, 3, 4, 5, 6}, y[] = {7, 8};
        ir_value *ops[2] = {tb_const(&b, PLUMB_I32, 2, ad, x), tb_const(&b, PLUMB_I32, 2, bd, y)};
        ir_op *op = tb_op(&b, PLUMB_OP_CONCATENATE, ops, 2, ty(PLUMB_I32, 2, rd));
        op->a.dimension = 0;
        tb_return(&b, op->results[0]);
        plumb_tensor *r = run(&b, NULL, 0);
        int32_t want[] = {1, 2, 3, 4, 5, 6, 7, 8};
        expect_i32(r, 2, rd, want);
        plumb_tensor_free(r);
        tb_free(&b);
    }
    {
        tb b;
        tb_init(&b);
        int64_t ad[] = {2, 1}, zd[] = {2, 0}, bd[] = {2, 2}, rd[] = {2, 3};
        int32_t x[] = {1, 2}, y[] = {3, 4, 5, 6};
        ir_value *ops[3] = {tb_const(&b, PLUMB_I32, 2, ad, x), tb_const(&b, PLUMB_I32, 2, zd, NULL),
                            tb_const(&b, PLUMB_I32, 2, bd, y)};
        ir_op *op = tb_op(&b, PLUMB_OP_CONCATENATE, ops, 3, ty(PLUMB_I32, 2, rd));
        op->a.dimension = 1;
        tb_return(&b, op->results[0]);
        plumb_tensor *r = run(&b, NULL, 0);
        int32_t want[] = {1, 3, 4, 2, 5, 6};
        expect_i32(r, 2, rd, want);
        plumb_tensor_free(r);
        tb_free(&b);
    }
}

static plumb_tensor *run_pad(const int32_t *x, int64_t n, int64_t lo, int64_t hi, int64_t in_,
                             int64_t rn)
{
    tb b;
    tb_init(&b);
    int64_t od[] = {n}, rd[] = {rn};
    int32_t pv = -9;
    ir_value *ops[2] = {tb_const(&b, PLUMB_I32, 1, od, x), tb_const(&b, PLUMB_I32, 0, NULL, &pv)};
    ir_op *op = tb_op(&b, PLUMB_OP_PAD, ops, 2, ty(PLUMB_I32, 1, rd));
    op->a.low = ints(&b, &lo, 1);
    op->a.high = ints(&b, &hi, 1);
    op->a.interior = ints(&b, &in_, 1);
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    tb_free(&b);
    return r;
}

/* Spec example: pad [[1,2,3],[4,5,6]] with low [0,1], high [2,1], interior
 * [1,2] and padding 0 gives the spec's 5x9 result. */
static void test_pad_spec(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {2, 3}, rd[] = {5, 9}, lo[] = {0, 1}, hi[] = {2, 1}, in_[] = {1, 2};
    int32_t x[] = {1, 2, 3, 4, 5, 6}, pv = 0;
    ir_value *ops[2] = {tb_const(&b, PLUMB_I32, 2, od, x), tb_const(&b, PLUMB_I32, 0, NULL, &pv)};
    ir_op *op = tb_op(&b, PLUMB_OP_PAD, ops, 2, ty(PLUMB_I32, 2, rd));
    op->a.low = ints(&b, lo, 2);
    op->a.high = ints(&b, hi, 2);
    op->a.interior = ints(&b, in_, 2);
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    int32_t want[] = {
        0, 1, 0, 0, 2, 0, 0, 3, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 4, 0, 0, 5, 0, 0, 6, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    expect_i32(r, 2, rd, want);
    plumb_tensor_free(r);
    tb_free(&b);
}

/* Negative padding crops: [1..5] low -1 high -2 -> [2, 3]; with interior 1,
 * [1,2,3] low -1 gives [p, 2, p, 3]; an empty operand gives only padding. */
static void test_pad_negative_and_empty(void **state)
{
    (void)state;
    int32_t x[] = {1, 2, 3, 4, 5};
    plumb_tensor *r = run_pad(x, 5, -1, -2, 0, 2);
    int64_t d2[] = {2}, d4[] = {4};
    int32_t w1[] = {2, 3};
    expect_i32(r, 1, d2, w1);
    plumb_tensor_free(r);
    r = run_pad(x, 3, -1, 0, 1, 4);
    int32_t w2[] = {-9, 2, -9, 3};
    expect_i32(r, 1, d4, w2);
    plumb_tensor_free(r);
    r = run_pad(x, 0, 1, 1, 3, 2);
    int32_t w3[] = {-9, -9};
    expect_i32(r, 1, d2, w3);
    plumb_tensor_free(r);
}

/* Spec example: reverse [[1,2],[3,4],[5,6]] along dimension 1. */
static void test_reverse_spec(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {3, 2}, dims[] = {1};
    int32_t x[] = {1, 2, 3, 4, 5, 6};
    ir_value *c = tb_const(&b, PLUMB_I32, 2, od, x);
    ir_op *op = tb_op(&b, PLUMB_OP_REVERSE, &c, 1, ty(PLUMB_I32, 2, od));
    op->a.dims = ints(&b, dims, 1);
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    int32_t want[] = {2, 1, 4, 3, 6, 5};
    expect_i32(r, 2, od, want);
    plumb_tensor_free(r);
    tb_free(&b);
}

static plumb_tensor *run_bitcast(plumb_dtype from, uint32_t orank, const int64_t *od, const void *x,
                                 plumb_dtype to, uint32_t rrank, const int64_t *rd)
{
    tb b;
    tb_init(&b);
    ir_value *c = tb_const(&b, from, orank, od, x);
    ir_op *op = tb_op(&b, PLUMB_OP_BITCAST_CONVERT, &c, 1, ty(to, rrank, rd));
    tb_return(&b, op->results[0]);
    plumb_tensor *r = run(&b, NULL, 0);
    tb_free(&b);
    return r;
}

/* bitcast_convert: f32 1.0 is 0x3F800000; i32 0x01020304 splits into the
 * ui8 elements [4, 3, 2, 1] (least significant first); four ui8 bytes
 * [0, 0, 0x80, 0x3F] join into f32 1.0; f64 1.0 splits into ui32
 * [0, 0x3FF00000]; a NaN payload survives. */
static void test_bitcast_convert(void **state)
{
    (void)state;
    float one = 1.0f;
    plumb_tensor *r = run_bitcast(PLUMB_F32, 0, NULL, &one, PLUMB_I32, 0, NULL);
    assert_int_equal(*(uint32_t *)r->data, 0x3F800000u);
    plumb_tensor_free(r);

    int32_t v = 0x01020304;
    int64_t d4[] = {4};
    r = run_bitcast(PLUMB_I32, 0, NULL, &v, PLUMB_UI8, 1, d4);
    const uint8_t w8[] = {4, 3, 2, 1};
    assert_memory_equal(r->data, w8, 4);
    plumb_tensor_free(r);

    const uint8_t bytes[] = {0x00, 0x00, 0x80, 0x3F};
    r = run_bitcast(PLUMB_UI8, 1, d4, bytes, PLUMB_F32, 0, NULL);
    assert_int_equal(*(uint32_t *)r->data, 0x3F800000u);
    plumb_tensor_free(r);

    double dv = 1.0;
    int64_t d2[] = {2};
    r = run_bitcast(PLUMB_F64, 0, NULL, &dv, PLUMB_UI32, 1, d2);
    assert_int_equal(((uint32_t *)r->data)[0], 0u);
    assert_int_equal(((uint32_t *)r->data)[1], 0x3FF00000u);
    plumb_tensor_free(r);

    uint16_t nan = 0x7E01;   /* f16 quiet NaN with payload 1 */
    r = run_bitcast(PLUMB_F16, 0, NULL, &nan, PLUMB_I16, 0, NULL);
    assert_int_equal(*(uint16_t *)r->data, 0x7E01);
    plumb_tensor_free(r);
}

/* constant copies its value bit for bit (a signalling NaN and -0 stay). */
static void test_constant_bits(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t d[] = {3};
    uint32_t x[] = {0x7F800001u, 0x80000000u, 0x00000001u};
    ir_value *c = tb_const(&b, PLUMB_F32, 1, d, x);
    tb_return(&b, c);
    plumb_tensor *r = run(&b, NULL, 0);
    assert_memory_equal(r->data, x, sizeof x);
    plumb_tensor_free(r);
    tb_free(&b);
}

/* broadcast of a zero-size operand dimension into a zero-size result and
 * transpose of an empty tensor run without touching memory. */
static void test_zero_size(void **state)
{
    (void)state;
    tb b;
    tb_init(&b);
    int64_t od[] = {0, 3}, rd[] = {3, 0}, perm[] = {1, 0};
    ir_value *p = tb_param(&b, ty(PLUMB_F32, 2, od));
    ir_op *op = tb_op(&b, PLUMB_OP_TRANSPOSE, &p, 1, ty(PLUMB_F32, 2, rd));
    op->a.dims = ints(&b, perm, 2);
    tb_return(&b, op->results[0]);
    plumb_tensor *in = tensor(PLUMB_F32, 2, od, NULL);
    plumb_tensor *r = run(&b, &in, 1);
    assert_int_equal(r->nbytes, 0);
    assert_int_equal(r->dims[0], 3);
    assert_int_equal(r->dims[1], 0);
    plumb_tensor_free(r);
    plumb_tensor_free(in);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_in_dim_spec),
        cmocka_unit_test(test_iota_spec),
        cmocka_unit_test(test_iota_half),
        cmocka_unit_test(test_reshape_spec),
        cmocka_unit_test(test_transpose_spec),
        cmocka_unit_test(test_slice_strides_and_empty),
        cmocka_unit_test(test_dynamic_slice_clamps),
        cmocka_unit_test(test_dynamic_update_slice_clamps),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_pad_spec),
        cmocka_unit_test(test_pad_negative_and_empty),
        cmocka_unit_test(test_reverse_spec),
        cmocka_unit_test(test_bitcast_convert),
        cmocka_unit_test(test_constant_bits),
        cmocka_unit_test(test_zero_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
