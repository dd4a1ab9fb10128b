/* Graph passes of the compiled runtime (runtime/passes.c): each rewrite
 * happens (the IR is inspected), rejected rewrites stay rejected, and the
 * optimized program gives the reference's results of the unoptimized one
 * bit for bit on special values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "run_harness.h"

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "../../runtime/rt_passes.h"

/* ---- helpers -------------------------------------------------------------------- */

/* Parses src and runs the passes on @main; the result still verifies. */
static ir_module *optimized(const char *src, uint32_t level)
{
    ir_module *m = parse_ok(src);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    bool ok = rt_run_passes(m, f, level, 0, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    ok = ir_verify(m, NULL, &d);
    if (!ok) {
        plumb_buf b;
        plumb_buf_init(&b);
        ir_print(&b, m);
        fprintf(stderr, "%s\n", b.data);
        plumb_buf_free(&b);
        plumb_diag_print(&d, stderr);
    }
    assert_true(ok);
    return m;
}

static uint32_t count_ops(const ir_module *m, plumb_opcode code)
{
    const ir_func *f = ir_module_find_func(m, "main");
    uint32_t n = 0;
    for (const ir_op *op = f->body.first; op; op = op->next)
        n += op->code == code;
    return n;
}

static plumb_ref_result ref_run(const ir_module *m, plumb_tensor *const *in, uint32_t n)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result r;
    bool ok = plumb_ref_run(m, NULL, in, n, NULL, &r, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(r.checks_failed, 0);
    return r;
}

/* The reference's results of src and of src optimized at `level` are
 * bitwise identical (NaN payloads included). Returns the optimized module. */
static ir_module *check_same(const char *src, uint32_t level, plumb_tensor *const *in, uint32_t n)
{
    ir_module *orig = parse_ok(src);
    ir_module *opt = optimized(src, level);
    plumb_ref_result a = ref_run(orig, in, n), b = ref_run(opt, in, n);
    assert_int_equal(a.n_outputs, b.n_outputs);
    for (uint32_t i = 0; i < a.n_outputs; i++) {
        bool eq = plumb_tensor_equal(a.outputs[i], b.outputs[i]);
        if (!eq) {
            const plumb_tensor *t = a.outputs[i];
            for (size_t k = 0; k < plumb_tensor_numel(t); k++) {
                uint64_t x = plumb_load_bits(t->dtype, t->data, k);
                uint64_t y = plumb_load_bits(t->dtype, b.outputs[i]->data, k);
                if (x != y)
                    fprintf(stderr, "result %u element %zu: unoptimized 0x%llx, optimized 0x%llx\n", i, k,
                            (unsigned long long)x, (unsigned long long)y);
            }
        }
        assert_true(eq);
    }
    plumb_ref_result_free(&a);
    plumb_ref_result_free(&b);
    ir_module_free(orig);
    return opt;
}

/* Special f32 values: NaNs with payloads (quiet, negative, signaling), the
 * infinities, both zeros, subnormals, the normal extremes, ordinary values. */
static const uint32_t specials32[16] = {
    0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u,
    0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u, 0xbfc00000u, 0x7f7fffffu,
    0x40490fdbu, 0xc2f6e979u,
};

static plumb_tensor *specials_f32(void)
{
    int64_t dims[1] = {16};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, specials32, sizeof specials32);
    return t;
}

/* Special f16 values in the same order. */
static plumb_tensor *specials_f16(void)
{
    static const uint16_t v[16] = {0x7e55, 0xfe01, 0x7c01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001,
                                   0x8001, 0x03ff, 0x0400, 0x3c00, 0xbe00, 0x7bff, 0x4248, 0xd7b7};
    int64_t dims[1] = {16};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F16, 1, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, v, sizeof v);
    return t;
}

static plumb_tensor *ints_i32(void)
{
    static const int32_t v[8] = {0, 1, -1, 2147483647, -2147483647 - 1, 12345, -7, 100};
    int64_t dims[1] = {8};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_I32, 1, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, v, sizeof v);
    return t;
}

#define T16 "tensor<16xf32>"

/* ---- algebraic simplification: accepted ---------------------------------------- */

/* x*1, 1*x, x/1, x-(+0), x+(-0) of a value that can never be a signaling NaN
 * (here maximum(p, p), which is p with NaNs quieted) become x. */
static void test_identities_accepted_f32(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%p: " T16 ") -> (" T16 ", " T16 ", " T16 ", " T16 ", " T16 ") {\n"
        "  %x = stablehlo.maximum %p, %p : " T16 "\n"
        "  %one = stablehlo.constant dense<1.0> : " T16 "\n"
        "  %z = stablehlo.constant dense<0.0> : " T16 "\n"
        "  %nz = stablehlo.constant dense<-0.0> : " T16 "\n"
        "  %a = stablehlo.multiply %x, %one : " T16 "\n"
        "  %b = stablehlo.multiply %one, %x : " T16 "\n"
        "  %c = stablehlo.divide %x, %one : " T16 "\n"
        "  %e = stablehlo.subtract %x, %z : " T16 "\n"
        "  %f = stablehlo.add %nz, %x : " T16 "\n"
        "  return %a, %b, %c, %e, %f : " T16 ", " T16 ", " T16 ", " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_DIVIDE), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_SUBTRACT), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_ADD), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_CONSTANT), 0);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* The same identities in f16, with a one broadcast from a scalar constant. */
static void test_identities_accepted_f16_broadcast(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%p: tensor<16xf16>) -> (tensor<16xf16>, tensor<16xf16>) {\n"
        "  %x = stablehlo.exponential %p : tensor<16xf16>\n"
        "  %s = stablehlo.constant dense<1.0> : tensor<f16>\n"
        "  %one = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f16>) -> tensor<16xf16>\n"
        "  %a = stablehlo.multiply %x, %one : tensor<16xf16>\n"
        "  %c = stablehlo.convert %a : tensor<16xf16>\n"
        "  return %a, %c : tensor<16xf16>, tensor<16xf16>\n"
        "}\n";
    plumb_tensor *in = specials_f16();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_CONVERT), 0);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* Integers have no signaling NaN: x*1, x/1, x-0, x+0 of a parameter go. */
static void test_identities_accepted_int(void **state)
{
    (void)state;
    const char *T = "tensor<8xi32>";
    char src[1024];
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s) -> (%s, %s, %s, %s) {\n"
             "  %%one = stablehlo.constant dense<1> : %s\n"
             "  %%z = stablehlo.constant dense<0> : %s\n"
             "  %%a = stablehlo.multiply %%x, %%one : %s\n"
             "  %%c = stablehlo.divide %%x, %%one : %s\n"
             "  %%e = stablehlo.subtract %%x, %%z : %s\n"
             "  %%f = stablehlo.add %%z, %%x : %s\n"
             "  return %%a, %%c, %%e, %%f : %s, %s, %s, %s\n"
             "}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);
    plumb_tensor *in = ints_i32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY) + count_ops(m, PLUMB_OP_DIVIDE) +
                     count_ops(m, PLUMB_OP_SUBTRACT) + count_ops(m, PLUMB_OP_ADD), 0);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* negate(negate(x)) -> x even for a signaling NaN parameter (negate only
 * flips the sign bit); convert to the same integer type -> x. */
static void test_negate_negate_and_convert(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: " T16 ", %i: tensor<8xi32>) -> (" T16 ", tensor<8xi32>) {\n"
        "  %a = stablehlo.negate %x : " T16 "\n"
        "  %b = stablehlo.negate %a : " T16 "\n"
        "  %c = stablehlo.convert %i : tensor<8xi32>\n"
        "  return %b, %c : " T16 ", tensor<8xi32>\n"
        "}\n";
    plumb_tensor *in[2] = {specials_f32(), ints_i32()};
    ir_module *m = check_same(src, 1, in, 2);
    assert_int_equal(count_ops(m, PLUMB_OP_NEGATE), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_CONVERT), 0);
    ir_module_free(m);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* select with a constant predicate (scalar or broadcast) picks an operand. */
static void test_select_constant_predicate(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: " T16 ", %y: " T16 ") -> (" T16 ", " T16 ") {\n"
        "  %t = stablehlo.constant dense<true> : tensor<i1>\n"
        "  %f = stablehlo.constant dense<false> : tensor<16xi1>\n"
        "  %a = stablehlo.select %t, %x, %y : tensor<i1>, " T16 "\n"
        "  %b = stablehlo.select %f, %x, %y : tensor<16xi1>, " T16 "\n"
        "  return %a, %b : " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in[2] = {specials_f32(), specials_f32()};
    float *y = in[1]->data;
    for (int i = 0; i < 16; i++)
        y[i] = (float)i;
    ir_module *m = check_same(src, 1, in, 2);
    assert_int_equal(count_ops(m, PLUMB_OP_SELECT), 0);
    ir_module_free(m);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* ---- algebraic simplification: rejected ------------------------------------------ */

/* Bit pattern of element i of output k. */
static uint32_t out_bits(const plumb_ref_result *r, uint32_t k, size_t i)
{
    return (uint32_t)plumb_load_bits(r->outputs[k]->dtype, r->outputs[k]->data, i);
}

/* x + (+0), x * 0, x - (-0) are never rewritten, and the reference shows why:
 * -0 + +0 = +0, inf * 0 = NaN, -0 * 0 = -0, -0 - (-0) = +0. */
static void test_rejected_zero_rewrites(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%p: " T16 ") -> (" T16 ", " T16 ", " T16 ") {\n"
        "  %x = stablehlo.maximum %p, %p : " T16 "\n"
        "  %z = stablehlo.constant dense<0.0> : " T16 "\n"
        "  %nz = stablehlo.constant dense<-0.0> : " T16 "\n"
        "  %a = stablehlo.add %x, %z : " T16 "\n"
        "  %b = stablehlo.multiply %x, %z : " T16 "\n"
        "  %c = stablehlo.subtract %x, %nz : " T16 "\n"
        "  return %a, %b, %c : " T16 ", " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_ADD), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_SUBTRACT), 1);
    plumb_ref_result r = ref_run(m, &in, 1);
    assert_int_equal(out_bits(&r, 0, 6), 0x00000000u);            /* -0 + +0 = +0, not x */
    assert_true((out_bits(&r, 1, 3) & 0x7fc00000u) == 0x7fc00000u); /* inf * 0 = NaN, not 0 */
    assert_int_equal(out_bits(&r, 1, 6), 0x80000000u);            /* -0 * 0 = -0, not +0 */
    assert_int_equal(out_bits(&r, 2, 6), 0x00000000u);            /* -0 - -0 = +0, not x */
    plumb_ref_result_free(&r);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* x * 1 and convert-to-itself of a float parameter stay: the parameter may
 * be a signaling NaN, which the arithmetic quiets (reference: 0x7f800001 ->
 * 0x7fc00001), so replacing it by x would change bits. */
static void test_rejected_signaling_nan(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: " T16 ") -> (" T16 ", " T16 ") {\n"
        "  %one = stablehlo.constant dense<1.0> : " T16 "\n"
        "  %a = stablehlo.multiply %x, %one : " T16 "\n"
        "  %b = stablehlo.convert %x : " T16 "\n"
        "  return %a, %b : " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_CONVERT), 1);
    plumb_ref_result r = ref_run(m, &in, 1);
    assert_int_equal(out_bits(&r, 0, 2), 0x7fc00001u);
    assert_int_equal(out_bits(&r, 1, 2), 0x7fc00001u);
    plumb_ref_result_free(&r);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* x * 2 and x / -1 are not identities (never mistaken for x * 1). */
static void test_rejected_not_one(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%p: " T16 ") -> (" T16 ", " T16 ") {\n"
        "  %x = stablehlo.maximum %p, %p : " T16 "\n"
        "  %two = stablehlo.constant dense<2.0> : " T16 "\n"
        "  %m1 = stablehlo.constant dense<-1.0> : " T16 "\n"
        "  %a = stablehlo.multiply %x, %two : " T16 "\n"
        "  %b = stablehlo.divide %x, %m1 : " T16 "\n"
        "  return %a, %b : " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_MULTIPLY), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_DIVIDE), 1);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* ---- movement folding --------------------------------------------------------------- */

/* transpose of transpose composes into one (or none); reshape of reshape
 * into one; identity reshape/transpose vanish. Payloads of every NaN kept. */
static void test_transpose_reshape_folding(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<2x4x2xf32>) -> (tensor<4x2x2xf32>, tensor<2x4x2xf32>, tensor<16xf32>, tensor<2x4x2xf32>) {\n"
        "  %t1 = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<2x4x2xf32>) -> tensor<4x2x2xf32>\n"
        "  %t2 = stablehlo.transpose %t1, dims = [0, 2, 1] : (tensor<4x2x2xf32>) -> tensor<4x2x2xf32>\n"
        "  %u = stablehlo.transpose %t1, dims = [1, 0, 2] : (tensor<4x2x2xf32>) -> tensor<2x4x2xf32>\n"
        "  %r1 = stablehlo.reshape %x : (tensor<2x4x2xf32>) -> tensor<8x2xf32>\n"
        "  %r2 = stablehlo.reshape %r1 : (tensor<8x2xf32>) -> tensor<16xf32>\n"
        "  %r3 = stablehlo.reshape %u : (tensor<2x4x2xf32>) -> tensor<2x4x2xf32>\n"
        "  return %t2, %u, %r2, %r3 : tensor<4x2x2xf32>, tensor<2x4x2xf32>, tensor<16xf32>, tensor<2x4x2xf32>\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    in->rank = 3;
    in->dims[0] = 2;
    in->dims[1] = 4;
    in->dims[2] = 2;
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_TRANSPOSE), 1);   /* t2 = x with [1, 2, 0] */
    assert_int_equal(count_ops(m, PLUMB_OP_RESHAPE), 1);     /* r2 = reshape x */
    const ir_func *f = ir_module_find_func(m, "main");
    const ir_op *ret = f->body.last;
    assert_ptr_equal(ret->operands[1], f->body.args[0]);    /* u is x */
    assert_ptr_equal(ret->operands[3], f->body.args[0]);    /* r3 is x */
    const ir_op *t = ret->operands[0]->def;
    assert_int_equal(t->code, PLUMB_OP_TRANSPOSE);
    assert_ptr_equal(t->operands[0], f->body.args[0]);
    assert_int_equal(t->a.dims.v[0], 1);
    assert_int_equal(t->a.dims.v[1], 2);
    assert_int_equal(t->a.dims.v[2], 0);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* broadcast_in_dim of broadcast_in_dim composes, size-1 stretching included. */
static void test_broadcast_folding(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<1x4xf32>) -> tensor<3x2x4xf32> {\n"
        "  %a = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>\n"
        "  %b = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x4xf32>) -> tensor<3x2x4xf32>\n"
        "  return %b : tensor<3x2x4xf32>\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    in->rank = 2;
    in->dims[0] = 1;
    in->dims[1] = 4;
    in->nbytes = 16;
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_BROADCAST_IN_DIM), 1);
    const ir_func *f = ir_module_find_func(m, "main");
    const ir_op *b = f->body.last->operands[0]->def;
    assert_ptr_equal(b->operands[0], f->body.args[0]);
    assert_int_equal(b->a.dims.n, 2);
    assert_int_equal(b->a.dims.v[0], 1);
    assert_int_equal(b->a.dims.v[1], 2);
    in->nbytes = 64;
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* ---- constant folding ----------------------------------------------------------------- */

/* Ops of constants are evaluated by the reference: special values in, the
 * reference's bits out (correctly rounded exp and tanh included), and a
 * reduce with its body region folds too. */
static void test_constant_folding(void **state)
{
    (void)state;
    const char *src =
        "func.func @main() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xi1>) {\n"
        "  %a = stablehlo.constant dense<[0x7FC12345, -0.0, 0x00000001, 0x7F800000]> : tensor<4xf32>\n"
        "  %b = stablehlo.constant dense<[1.0, 0.0, 0x80000001, 0xFF800000]> : tensor<4xf32>\n"
        "  %s = stablehlo.add %a, %b : tensor<4xf32>\n"
        "  %e = stablehlo.exponential %a : tensor<4xf32>\n"
        "  %t = stablehlo.tanh %b : tensor<4xf32>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
        "  %c = stablehlo.compare LT, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
        "  return %s, %e, %t, %r, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xi1>\n"
        "}\n";
    ir_module *m = check_same(src, 1, NULL, 0);
    const ir_func *f = ir_module_find_func(m, "main");
    for (const ir_op *op = f->body.first; op; op = op->next)
        assert_true(op->code == PLUMB_OP_CONSTANT || op->code == PLUMB_OP_FUNC_RETURN);
    assert_int_equal(count_ops(m, PLUMB_OP_CONSTANT), 5);
    ir_module_free(m);
}

/* Folding stops at the size cap: an add of two 8192-element constants
 * stays, one of 16 elements folds; broadcasts are never folded (fused loops
 * read them for free). */
static void test_constant_folding_cap(void **state)
{
    (void)state;
    const char *src =
        "func.func @main() -> (tensor<8192xf32>, tensor<16xf32>, tensor<16xf32>) {\n"
        "  %s = stablehlo.constant dense<0x7F800001> : tensor<f32>\n"
        "  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8192xf32>\n"
        "  %c = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<16xf32>\n"
        "  %k = stablehlo.iota dim = 0 : tensor<8192xf32>\n"
        "  %j = stablehlo.constant dense<[1.0, -0.0, 0x7FC00001, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 0x00000001]> : tensor<16xf32>\n"
        "  %kk = stablehlo.add %k, %k : tensor<8192xf32>\n"
        "  %jj = stablehlo.add %j, %j : tensor<16xf32>\n"
        "  %r = stablehlo.add %kk, %b : tensor<8192xf32>\n"
        "  return %r, %c, %jj : tensor<8192xf32>, tensor<16xf32>, tensor<16xf32>\n"
        "}\n";
    ir_module *m = check_same(src, 1, NULL, 0);
    assert_int_equal(count_ops(m, PLUMB_OP_BROADCAST_IN_DIM), 2);
    assert_int_equal(count_ops(m, PLUMB_OP_ADD), 2);   /* the 8192-element ones */
    const ir_func *f = ir_module_find_func(m, "main");
    assert_int_equal(f->body.last->operands[2]->def->code, PLUMB_OP_CONSTANT);
    ir_module_free(m);
}

/* A large splat constant becomes a broadcast of a scalar constant. */
static void test_large_splat_split(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {\n"
        "  %c = stablehlo.constant dense<-0.0> : tensor<64x128xf32>\n"
        "  %y = stablehlo.multiply %x, %c : tensor<64x128xf32>\n"
        "  return %y : tensor<64x128xf32>\n"
        "}\n";
    int64_t dims[2] = {64, 128};
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    for (size_t i = 0; i < 64 * 128; i++)
        ((uint32_t *)in->data)[i] = specials32[i % 16];
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_BROADCAST_IN_DIM), 1);
    const ir_func *f = ir_module_find_func(m, "main");
    for (const ir_op *op = f->body.first; op; op = op->next)
        if (op->code == PLUMB_OP_CONSTANT)
            assert_int_equal(op->results[0]->type.rank, 0);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* ---- CSE ---------------------------------------------------------------------------- */

/* Identical ops and constants merge; ops that differ in an attribute, and
 * constants that differ only in the sign of zero, do not. */
static void test_cse(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: " T16 ", %y: " T16 ") -> (" T16 ", " T16 ", tensor<16xi1>, tensor<16xi1>, " T16 ", " T16 ") {\n"
        "  %a1 = stablehlo.add %x, %y : " T16 "\n"
        "  %a2 = stablehlo.add %x, %y : " T16 "\n"
        "  %c1 = stablehlo.compare LT, %x, %y : (" T16 ", " T16 ") -> tensor<16xi1>\n"
        "  %c2 = stablehlo.compare GT, %x, %y : (" T16 ", " T16 ") -> tensor<16xi1>\n"
        "  %k1 = stablehlo.constant dense<0.0> : " T16 "\n"
        "  %k2 = stablehlo.constant dense<-0.0> : " T16 "\n"
        "  %k3 = stablehlo.constant dense<0.0> : " T16 "\n"
        "  %m1 = stablehlo.maximum %x, %k1 : " T16 "\n"
        "  %m2 = stablehlo.maximum %x, %k2 : " T16 "\n"
        "  %m3 = stablehlo.maximum %x, %k3 : " T16 "\n"
        "  %s1 = stablehlo.add %a1, %m1 : " T16 "\n"
        "  %s2 = stablehlo.add %a2, %m3 : " T16 "\n"
        "  return %s1, %s2, %c1, %c2, %m1, %m2 : " T16 ", " T16 ", tensor<16xi1>, tensor<16xi1>, " T16 ", " T16 "\n"
        "}\n";
    plumb_tensor *in[2] = {specials_f32(), specials_f32()};
    float *y = in[1]->data;
    for (int i = 0; i < 16; i++)
        y[i] = -y[i];
    ir_module *m = check_same(src, 1, in, 2);
    assert_int_equal(count_ops(m, PLUMB_OP_ADD), 2);       /* a, s */
    assert_int_equal(count_ops(m, PLUMB_OP_COMPARE), 2);
    assert_int_equal(count_ops(m, PLUMB_OP_CONSTANT), 2);  /* +0 and -0 */
    assert_int_equal(count_ops(m, PLUMB_OP_MAXIMUM), 2);
    const ir_func *f = ir_module_find_func(m, "main");
    assert_ptr_equal(f->body.last->operands[0], f->body.last->operands[1]);
    ir_module_free(m);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Reduces with the same body merge; with a different body they do not. */
static void test_cse_regions(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %r1 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  %r2 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  %r3 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  return %r1, %r2, %r3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    in->rank = 2;
    in->dims[0] = 4;
    in->dims[1] = 4;
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_REDUCE), 2);
    ir_module_free(m);
    plumb_tensor_free(in);
}

/* ---- DCE -------------------------------------------------------------------------------- */

/* Unused ops go; a check and what it reads stay; opt_level 0 changes nothing. */
static void test_dce_and_level0(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: " T16 ") -> " T16 " {\n"
        "  %dead = stablehlo.tanh %x : " T16 "\n"
        "  %dead2 = stablehlo.add %dead, %dead : " T16 "\n"
        "  %n = stablehlo.negate %x : " T16 "\n"
        "  %nn = stablehlo.abs %n : " T16 "\n"
        "  %ax = stablehlo.abs %x : " T16 "\n"
        "  check.expect_eq %nn, %ax : " T16 "\n"
        "  return %x : " T16 "\n"
        "}\n";
    plumb_tensor *in = specials_f32();
    ir_module *m = check_same(src, 1, &in, 1);
    assert_int_equal(count_ops(m, PLUMB_OP_TANH), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_ADD), 0);
    assert_int_equal(count_ops(m, PLUMB_OP_EXPECT_EQ), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_NEGATE), 1);
    assert_int_equal(count_ops(m, PLUMB_OP_ABS), 2);
    ir_module_free(m);

    ir_module *m0 = optimized(src, 0), *p = parse_ok(src);
    plumb_buf b0, b1;
    plumb_buf_init(&b0);
    plumb_buf_init(&b1);
    ir_print(&b0, m0);
    ir_print(&b1, p);
    assert_string_equal(b0.data, b1.data);
    plumb_buf_free(&b0);
    plumb_buf_free(&b1);
    ir_module_free(m0);
    ir_module_free(p);
    plumb_tensor_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identities_accepted_f32),
        cmocka_unit_test(test_identities_accepted_f16_broadcast),
        cmocka_unit_test(test_identities_accepted_int),
        cmocka_unit_test(test_negate_negate_and_convert),
        cmocka_unit_test(test_select_constant_predicate),
        cmocka_unit_test(test_rejected_zero_rewrites),
        cmocka_unit_test(test_rejected_signaling_nan),
        cmocka_unit_test(test_rejected_not_one),
        cmocka_unit_test(test_transpose_reshape_folding),
        cmocka_unit_test(test_broadcast_folding),
        cmocka_unit_test(test_constant_folding),
        cmocka_unit_test(test_constant_folding_cap),
        cmocka_unit_test(test_large_splat_split),
        cmocka_unit_test(test_cse),
        cmocka_unit_test(test_cse_regions),
        cmocka_unit_test(test_dce_and_level0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
