/* Tests of the nn builder: every composite verifies and computes the
 * hand-derived values on the reference; invalid arguments give clear errors;
 * the committed examples are exactly what the generator writes and pass
 * their own checks. */
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
#include "plumb/nn.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct fixture {
    ir_module *m;
    plumb_nn nn;
    plumb_diag d;
} fixture;

static void fx_begin(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->m = ir_module_new("t");
    assert_non_null(f->m);
    assert_true(plumb_nn_init(&f->nn, f->m, &f->d));
    assert_true(plumb_nn_begin_func(&f->nn, "main", true));
}

static void fx_end(fixture *f)
{
    ir_module_free(f->m);
}

static void assert_verifies(const ir_module *m)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        print_error("ir_verify: %s\n", d.msg);
    assert_true(ok);
}

/* Returns v after building `return v` and checking the module verifies. */
static void finish(fixture *f, ir_value *v)
{
    if (!plumb_nn_ok(&f->nn))
        print_error("builder: %s\n", f->d.msg);
    assert_non_null(v);
    assert_true(plumb_nn_return(&f->nn, &v, 1));
    assert_verifies(f->m);
}

static void assert_error(fixture *f, plumb_code code, const char *needle)
{
    assert_false(plumb_nn_ok(&f->nn));
    assert_int_equal(f->d.code, code);
    if (!strstr(f->d.msg, needle))
        print_error("message \"%s\" lacks \"%s\"\n", f->d.msg, needle);
    assert_non_null(strstr(f->d.msg, needle));
}

static uint32_t count_ops(const ir_block *b, plumb_opcode code)
{
    uint32_t n = 0;
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->code == code)
            n++;
        for (uint32_t r = 0; r < op->n_regions; r++)
            n += count_ops(&op->regions[r], code);
    }
    return n;
}

/* ---- structure and verification ------------------------------------------------ */

/* Every composite builds a graph that the verifier accepts, with the result
 * type the API documents. */
static void test_composites_verify(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d3[1] = {3};
    struct {
        const char *name;
    } cases[] = {{"softmax"}, {"log_softmax"}, {"layer_norm"}, {"rms_norm"}, {"gelu_erf"},
                 {"gelu_tanh"}, {"silu"}, {"linear"}, {"xent"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture f;
        fx_begin(&f);
        plumb_nn *nn = &f.nn;
        ir_value *x = plumb_nn_param(nn, PLUMB_F32, 2, d23);
        ir_value *g = plumb_nn_param(nn, PLUMB_F32, 1, d3);
        ir_value *y = NULL;
        const char *n = cases[c].name;
        if (!strcmp(n, "softmax"))
            y = plumb_nn_softmax(nn, x, -1);
        else if (!strcmp(n, "log_softmax"))
            y = plumb_nn_log_softmax(nn, x, 0);
        else if (!strcmp(n, "layer_norm"))
            y = plumb_nn_layer_norm(nn, x, g, g, 1e-5);
        else if (!strcmp(n, "rms_norm"))
            y = plumb_nn_rms_norm(nn, x, g, 1e-6);
        else if (!strcmp(n, "gelu_erf"))
            y = plumb_nn_gelu(nn, x, PLUMB_NN_GELU_ERF);
        else if (!strcmp(n, "gelu_tanh"))
            y = plumb_nn_gelu(nn, x, PLUMB_NN_GELU_TANH);
        else if (!strcmp(n, "silu"))
            y = plumb_nn_silu(nn, x);
        else if (!strcmp(n, "linear")) {
            int64_t w[2] = {3, 5};
            y = plumb_nn_linear(nn, x, plumb_nn_full(nn, PLUMB_F32, 2, w, 0.5), NULL);
            assert_non_null(y);
            assert_int_equal(y->type.dims[1], 5);
        } else if (!strcmp(n, "xent")) {
            y = plumb_nn_softmax_cross_entropy(nn, x, plumb_nn_full(nn, PLUMB_F32, 2, d23, 0.25));
            assert_non_null(y);
            assert_int_equal(y->type.rank, 0);
        }
        finish(&f, y);
        if (strcmp(n, "linear") && strcmp(n, "xent"))
            assert_true(ir_type_equal(&y->type, &x->type));
        fx_end(&f);
    }
}

/* Attention over [batch, heads, S, D] with a causal i1 mask and with an
 * additive mask verifies and has shape [batch, heads, Sq, Dv]. */
static void test_attention_verifies(void **state)
{
    (void)state;
    for (int additive = 0; additive < 2; additive++) {
        fixture f;
        fx_begin(&f);
        int64_t qd[4] = {2, 3, 4, 8}, vd[4] = {2, 3, 4, 5}, md[2] = {4, 4};
        ir_value *q = plumb_nn_param(&f.nn, PLUMB_F32, 4, qd);
        ir_value *k = plumb_nn_param(&f.nn, PLUMB_F32, 4, qd);
        ir_value *v = plumb_nn_param(&f.nn, PLUMB_F32, 4, vd);
        ir_value *mask = additive ? plumb_nn_full(&f.nn, PLUMB_F32, 2, md, -1.0)
                                  : plumb_nn_causal_mask(&f.nn, 4, 4);
        ir_value *y = plumb_nn_attention(&f.nn, q, k, v, mask, 0);
        finish(&f, y);
        assert_int_equal(y->type.rank, 4);
        assert_int_equal(y->type.dims[2], 4);
        assert_int_equal(y->type.dims[3], 5);
        assert_int_equal(count_ops(&f.m->funcs[0]->body, PLUMB_OP_DOT_GENERAL), 2);
        fx_end(&f);
    }
}

/* MoE routing yields [T, E, C] dispatch and combine tensors and verifies. */
static void test_moe_route_verifies(void **state)
{
    (void)state;
    fixture f;
    fx_begin(&f);
    int64_t ld[2] = {6, 4};
    ir_value *l = plumb_nn_param(&f.nn, PLUMB_F32, 2, ld);
    plumb_nn_moe_routing r;
    assert_true(plumb_nn_moe_route(&f.nn, l, 2, 3, true, &r));
    ir_value *outs[3] = {r.probs, r.dispatch, r.combine};
    assert_true(plumb_nn_return(&f.nn, outs, 3));
    assert_verifies(f.m);
    assert_int_equal(r.dispatch->type.rank, 3);
    assert_int_equal(r.dispatch->type.dims[0], 6);
    assert_int_equal(r.dispatch->type.dims[1], 4);
    assert_int_equal(r.dispatch->type.dims[2], 3);
    assert_int_equal(count_ops(&f.m->funcs[0]->body, PLUMB_OP_TOP_K), 1);
    fx_end(&f);
}

/* reduce builds a body of two scalar arguments, the combiner and a return. */
static void test_reduce_body(void **state)
{
    (void)state;
    fixture f;
    fx_begin(&f);
    int64_t d[3] = {2, 3, 4}, dims[2] = {2, 0};
    ir_value *x = plumb_nn_param(&f.nn, PLUMB_F32, 3, d);
    ir_value *y = plumb_nn_reduce(&f.nn, x, PLUMB_NN_MAX, dims, 2);
    finish(&f, y);
    assert_int_equal(y->type.rank, 1);
    assert_int_equal(y->type.dims[0], 3);
    const ir_op *op = y->def;
    assert_int_equal(op->code, PLUMB_OP_REDUCE);
    assert_int_equal(op->n_regions, 1);
    assert_int_equal(op->regions[0].n_args, 2);
    assert_int_equal(op->regions[0].first->code, PLUMB_OP_MAXIMUM);
    assert_int_equal(op->regions[0].last->code, PLUMB_OP_RETURN);
    assert_int_equal(op->a.dims.n, 2);
    assert_int_equal(op->a.dims.v[0], 0);
    assert_int_equal(op->a.dims.v[1], 2);
    /* the init value is -inf, the identity of maximum */
    const ir_op *init = op->operands[1]->def;
    assert_int_equal(init->code, PLUMB_OP_CONSTANT);
    assert_true(isinf(plumb_load_f64(PLUMB_F32, init->a.value->data, 0)));
    fx_end(&f);
}

/* ---- invalid arguments ---------------------------------------------------------- */

/* An out-of-range axis names the axis and the operand's rank, and nothing is
 * appended to the function. */
static void test_error_axis(void **state)
{
    (void)state;
    fixture f;
    fx_begin(&f);
    int64_t d[2] = {2, 3};
    ir_value *x = plumb_nn_param(&f.nn, PLUMB_F32, 2, d);
    assert_null(plumb_nn_softmax(&f.nn, x, 2));
    assert_error(&f, PLUMB_ERR_INVALID, "axis 2 is out of range for an operand of rank 2");
    assert_null(f.m->funcs[0]->body.first);
    fx_end(&f);
}

/* The first error is kept and later calls on NULL values do nothing. */
static void test_error_propagates(void **state)
{
    (void)state;
    fixture f;
    fx_begin(&f);
    int64_t d[2] = {2, 3};
    ir_value *x = plumb_nn_param(&f.nn, PLUMB_F32, 2, d);
    ir_value *bad = plumb_nn_log_softmax(&f.nn, x, -3);
    assert_null(bad);
    assert_null(plumb_nn_add(&f.nn, bad, x));
    assert_null(plumb_nn_gelu(&f.nn, bad, PLUMB_NN_GELU_ERF));
    assert_false(plumb_nn_return(&f.nn, &bad, 1));
    assert_error(&f, PLUMB_ERR_INVALID, "log_softmax: axis -3");
    fx_end(&f);
}

/* Mismatched shapes are rejected by each primitive with both types named. */
static void test_error_shapes(void **state)
{
    (void)state;
    struct {
        int which;
        const char *msg;
    } cases[] = {
        {0, "operand types differ: tensor<2x3xf32> and tensor<3x2xf32>"},
        {1, "contracting dimension 0 has size 3 in lhs tensor<2x3xf32> but 2 in rhs tensor<2x3xf32>"},
        {2, "cannot reshape tensor<2x3xf32> (6 elements) to tensor<4xf32> (4 elements)"},
        {3, "permutation[1] = 0 is out of range or repeated"},
        {4, "operand dimension 1 has size 3, which is neither 1 nor the result's size 4"},
        {5, "gamma must be tensor<3xf32>"},
        {6, "must have a float element type"},
        {7, "k = 4 must be in [0, 3]"},
        {8, "mask tensor<3x3xi1> must be i1 or f32 of shape [2, 2]"},
        {9, "capacity 0 must be >= 1"},
        {10, "range [1:4] of dimension 1 is not within [0:3]"},
        {11, "no function @nowhere"},
        {12, "rank 17 exceeds the maximum rank 16"},
        {13, "value 0.5 (element 0) is not representable in i32"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture f;
        fx_begin(&f);
        plumb_nn *nn = &f.nn;
        int64_t d23[2] = {2, 3}, d32[2] = {3, 2};
        ir_value *x = plumb_nn_param(nn, PLUMB_F32, 2, d23);
        ir_value *xt = plumb_nn_param(nn, PLUMB_F32, 2, d32);
        ir_value *xi = plumb_nn_param(nn, PLUMB_I32, 2, d23);
        int64_t one = 1, zero = 0, four = 4, perm[2] = {0, 0}, bd[2] = {0, 1}, to[2] = {2, 4};
        int64_t d2[1] = {2}, start[2] = {0, 1}, lim[2] = {2, 4}, big[17];
        for (int i = 0; i < 17; i++)
            big[i] = 1;
        ir_value *dummy[2];
        switch (cases[c].which) {
        case 0: assert_null(plumb_nn_add(nn, x, xt)); break;
        case 1: assert_null(plumb_nn_dot_general(nn, x, x, NULL, NULL, 0, &one, &zero, 1)); break;
        case 2: assert_null(plumb_nn_reshape(nn, x, 1, &four)); break;
        case 3: assert_null(plumb_nn_transpose(nn, x, perm)); break;
        case 4: assert_null(plumb_nn_broadcast_in_dim(nn, x, 2, to, bd)); break;
        case 5: assert_null(plumb_nn_layer_norm(nn, x, plumb_nn_full(nn, PLUMB_F32, 1, d2, 1), NULL, 1e-5)); break;
        case 6: assert_null(plumb_nn_softmax(nn, xi, -1)); break;
        case 7: assert_false(plumb_nn_top_k(nn, x, 4, &dummy[0], &dummy[1])); break;
        case 8: {
            int64_t q[2] = {2, 4};
            ir_value *qq = plumb_nn_full(nn, PLUMB_F32, 2, q, 1);
            assert_null(plumb_nn_attention(nn, qq, qq, qq, plumb_nn_causal_mask(nn, 3, 3), 0));
            break;
        }
        case 9: {
            plumb_nn_moe_routing r;
            assert_false(plumb_nn_moe_route(nn, x, 1, 0, false, &r));
            break;
        }
        case 10: assert_null(plumb_nn_slice(nn, x, start, lim)); break;
        case 11: assert_false(plumb_nn_call(nn, "nowhere", NULL, 0, NULL, 0)); break;
        case 12: assert_null(plumb_nn_full(nn, PLUMB_F32, 17, big, 0)); break;
        case 13: assert_null(plumb_nn_scalar(nn, PLUMB_I32, 0.5)); break;
        }
        assert_error(&f, PLUMB_ERR_INVALID, cases[c].msg);
        fx_end(&f);
    }
}

/* API misuse (NULL values with no earlier error, no function) is a usage
 * error, not a crash. */
static void test_error_usage(void **state)
{
    (void)state;
    ir_module *m = ir_module_new(NULL);
    plumb_nn nn;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_true(plumb_nn_init(&nn, m, &d));
    assert_null(plumb_nn_scalar(&nn, PLUMB_F32, 1));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "no function is being built"));
    ir_module_free(m);

    fixture f;
    fx_begin(&f);
    assert_null(plumb_nn_silu(&f.nn, NULL));
    assert_error(&f, PLUMB_ERR_USAGE, "silu: operand is NULL");
    fx_end(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_composites_verify),
        cmocka_unit_test(test_attention_verifies),
        cmocka_unit_test(test_moe_route_verifies),
        cmocka_unit_test(test_reduce_body),
        cmocka_unit_test(test_error_axis),
        cmocka_unit_test(test_error_propagates),
        cmocka_unit_test(test_error_shapes),
        cmocka_unit_test(test_error_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
