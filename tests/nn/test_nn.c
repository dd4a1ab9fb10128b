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
#include "plumb/ref.h"

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

/* An allocator that fails the n-th allocation (counting from 1). */
static int fail_at, alloc_count;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (!ptr && ++alloc_count == fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

/* Every allocation failure while building a large graph ends in a NOMEM
 * error (or, when the module itself cannot be made, a NULL module), never a
 * crash; with no failure the same graph builds. */
static void test_allocation_failures(void **state)
{
    (void)state;
    bool completed = false;
    for (fail_at = 1; fail_at < 200 && !completed; fail_at++) {
        alloc_count = 0;
        plumb_set_allocator(failing_alloc, NULL);
        ir_module *m = ir_module_new("t");
        if (m) {
            plumb_nn nn;
            plumb_diag d;
            memset(&d, 0, sizeof d);
            plumb_nn_init(&nn, m, &d);
            plumb_nn_begin_func(&nn, "main", true);
            int64_t ld[2] = {64, 8};
            ir_value *l = plumb_nn_param(&nn, PLUMB_F32, 2, ld);
            plumb_nn_moe_routing r;
            for (int rep = 0; rep < 8; rep++)
                plumb_nn_moe_route(&nn, l, 2, 16, rep & 1, &r);
            if (plumb_nn_ok(&nn))
                completed = true;
            else
                assert_int_equal(d.code, PLUMB_ERR_NOMEM);
            ir_module_free(m);
        }
        plumb_set_allocator(NULL, NULL);
    }
    assert_true(completed);
    assert_true(fail_at > 3);   /* the graph needed several arena chunks */
}

/* ---- running on the reference ------------------------------------------------------ */

/* Returns x from main, runs the module on the reference and returns output 0
 * (owned by res). */
static const plumb_tensor *run_main(fixture *f, ir_value *const *outs, uint32_t n, plumb_ref_result *res)
{
    if (!plumb_nn_ok(&f->nn))
        print_error("builder: %s\n", f->d.msg);
    assert_true(plumb_nn_return(&f->nn, outs, n));
    assert_verifies(f->m);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    memset(res, 0, sizeof *res);
    bool ok = plumb_ref_run(f->m, "main", NULL, 0, NULL, res, &d);
    if (!ok)
        print_error("plumb_ref_run: %s\n", d.msg);
    assert_true(ok);
    assert_int_equal(res->n_outputs, n);
    return res->outputs[0];
}

static void assert_values(const plumb_tensor *t, const double *want, size_t n, double tol)
{
    assert_int_equal(plumb_tensor_numel(t), n);
    for (size_t i = 0; i < n; i++) {
        double got = plumb_load_f64(t->dtype, t->data, i);
        if (!(fabs(got - want[i]) <= tol))
            print_error("element %zu: got %.17g, want %.17g (tolerance %g)\n", i, got, want[i], tol);
        assert_true(fabs(got - want[i]) <= tol);
    }
}

/* softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6 and log_softmax gives log(k/6),
 * in f64 (hand-derived). */
static void test_ref_softmax(void **state)
{
    (void)state;
    for (int lg = 0; lg < 2; lg++) {
        fixture f;
        fx_begin(&f);
        int64_t d[2] = {1, 3};
        double in[3] = {0, log(2.0), log(3.0)};
        ir_value *x = plumb_nn_constant(&f.nn, PLUMB_F64, 2, d, in);
        ir_value *y = lg ? plumb_nn_log_softmax(&f.nn, x, 1) : plumb_nn_softmax(&f.nn, x, -1);
        plumb_ref_result res;
        const plumb_tensor *t = run_main(&f, &y, 1, &res);
        double want[3] = {1.0 / 6, 2.0 / 6, 3.0 / 6};
        double wlog[3] = {-log(6.0), -log(3.0), -log(2.0)};
        assert_values(t, lg ? wlog : want, 3, 1e-15);
        plumb_ref_result_free(&res);
        fx_end(&f);
    }
}

/* layer_norm([1, 2, 3, 4]) = [-3, -1, 1, 3] / sqrt 5 (mean 2.5, biased
 * variance 1.25); with gamma 2 and beta 1 it is 1 + 2 * that. rms_norm([3, 4])
 * = [3, 4] / sqrt(12.5). */
static void test_ref_norms(void **state)
{
    (void)state;
    for (int c = 0; c < 3; c++) {
        fixture f;
        fx_begin(&f);
        int64_t d4 = 4, d2 = 2;
        double in[4] = {1, 2, 3, 4}, in2[2] = {3, 4};
        ir_value *y;
        if (c < 2) {
            ir_value *x = plumb_nn_constant(&f.nn, PLUMB_F64, 1, &d4, in);
            ir_value *g = c ? plumb_nn_full(&f.nn, PLUMB_F64, 1, &d4, 2) : NULL;
            ir_value *b = c ? plumb_nn_full(&f.nn, PLUMB_F64, 1, &d4, 1) : NULL;
            y = plumb_nn_layer_norm(&f.nn, x, g, b, 0);
        } else {
            y = plumb_nn_rms_norm(&f.nn, plumb_nn_constant(&f.nn, PLUMB_F64, 1, &d2, in2), NULL, 0);
        }
        plumb_ref_result res;
        const plumb_tensor *t = run_main(&f, &y, 1, &res);
        double r5 = sqrt(5.0);
        double w0[4] = {-3 / r5, -1 / r5, 1 / r5, 3 / r5};
        double w1[4] = {1 - 6 / r5, 1 - 2 / r5, 1 + 2 / r5, 1 + 6 / r5};
        double w2[2] = {3 / sqrt(12.5), 4 / sqrt(12.5)};
        assert_values(t, c == 0 ? w0 : c == 1 ? w1 : w2, c < 2 ? 4 : 2, 1e-15);
        plumb_ref_result_free(&res);
        fx_end(&f);
    }
}

/* gelu (erf form) at -1, 0, 1 is -(1 - Phi(1)), 0, Phi(1) with Phi(1) =
 * 0.8413447460685429 (normal table); the tanh form at 1 is 0.8411919906082768
 * (its formula evaluated by hand to 17 digits); silu(+-1) = +-1/(1 + e^-+1)
 * = 0.7310585786300049 and -0.2689414213699951. */
static void test_ref_activations(void **state)
{
    (void)state;
    for (int c = 0; c < 3; c++) {
        fixture f;
        fx_begin(&f);
        int64_t d = 3;
        double in[3] = {-1, 0, 1};
        ir_value *x = plumb_nn_constant(&f.nn, PLUMB_F64, 1, &d, in);
        ir_value *y = c == 0 ? plumb_nn_gelu(&f.nn, x, PLUMB_NN_GELU_ERF)
                    : c == 1 ? plumb_nn_gelu(&f.nn, x, PLUMB_NN_GELU_TANH)
                             : plumb_nn_silu(&f.nn, x);
        plumb_ref_result res;
        const plumb_tensor *t = run_main(&f, &y, 1, &res);
        double phi1 = 0.8413447460685429, gt1 = 0.8411919906082768;
        double w[3][3] = {{-(1 - phi1), 0, phi1}, {-(1 - gt1), 0, gt1},
                          {-0.2689414213699951, 0, 0.7310585786300049}};
        assert_values(t, w[c], 3, 1e-15);
        plumb_ref_result_free(&res);
        fx_end(&f);
    }
}

/* One-dimensional attention by hand: q = 1, keys 0 and ln 3, values 4 and 8,
 * scale 1. The scores 0 and ln 3 weigh the values 1/4 and 3/4: 7. Causally
 * masked, query 0 sees only key 0: 4. A fully false mask, or an additive
 * mask [0, -ln 3] on row 1, gives equal weights: 6. */
static void test_ref_attention(void **state)
{
    (void)state;
    for (int c = 0; c < 3; c++) {
        fixture f;
        fx_begin(&f);
        int64_t d[2] = {2, 1}, md[2] = {2, 2};
        double qv[2] = {1, 1}, kv[2] = {0, log(3.0)}, vv[2] = {4, 8};
        ir_value *q = plumb_nn_constant(&f.nn, PLUMB_F64, 2, d, qv);
        ir_value *k = plumb_nn_constant(&f.nn, PLUMB_F64, 2, d, kv);
        ir_value *v = plumb_nn_constant(&f.nn, PLUMB_F64, 2, d, vv);
        ir_value *mask;
        if (c == 0) {
            mask = plumb_nn_causal_mask(&f.nn, 2, 2);
        } else if (c == 1) {
            mask = plumb_nn_convert(&f.nn, plumb_nn_full(&f.nn, PLUMB_I32, 2, md, 0), PLUMB_I1);
        } else {
            double add[4] = {0, 0, 0, -log(3.0)};
            mask = plumb_nn_constant(&f.nn, PLUMB_F64, 2, md, add);
        }
        ir_value *y = plumb_nn_attention(&f.nn, q, k, v, mask, 1.0);
        plumb_ref_result res;
        const plumb_tensor *t = run_main(&f, &y, 1, &res);
        double w[3][2] = {{4, 7}, {6, 6}, {7, 6}};
        assert_values(t, w[c], 2, 1e-14);
        plumb_ref_result_free(&res);
        fx_end(&f);
    }
}

/* Top-2 routing of 3 tokens over 3 experts with capacity 1, worked by hand:
 * preferences t0: e0 > e1, t1: e0 > e2, t2: e1 > e0. First choices go first:
 * t0 takes e0, t1 is dropped from e0, t2 takes e1; then t0's e1 and t2's e0
 * are full, t1 takes e2. Renormalized gates: t0 and t2 keep
 * e^2/(e^2 + e^1) = 0.7310585786300049, t1 keeps e^1/(e^2 + e^1). */
static void test_ref_moe_route(void **state)
{
    (void)state;
    fixture f;
    fx_begin(&f);
    int64_t d[2] = {3, 3};
    double lg[9] = {2, 1, 0, 2, 0, 1, 1, 2, 0};
    ir_value *l = plumb_nn_constant(&f.nn, PLUMB_F64, 2, d, lg);
    plumb_nn_moe_routing r;
    assert_true(plumb_nn_moe_route(&f.nn, l, 2, 1, true, &r));
    ir_value *outs[2] = {r.dispatch, r.combine};
    plumb_ref_result res;
    run_main(&f, outs, 2, &res);
    double wd[9] = {0}, wc[9] = {0};
    /* index (t, e, c=0) = t * 3 + e */
    wd[0 * 3 + 0] = 1, wc[0 * 3 + 0] = 0.7310585786300049;
    wd[2 * 3 + 1] = 1, wc[2 * 3 + 1] = 0.7310585786300049;
    wd[1 * 3 + 2] = 1, wc[1 * 3 + 2] = 0.2689414213699951;
    assert_values(res.outputs[0], wd, 9, 0);
    assert_values(res.outputs[1], wc, 9, 1e-15);
    plumb_ref_result_free(&res);
    fx_end(&f);
}

/* ---- the examples ------------------------------------------------------------------------ */

static const char *const example_names[] = {"mlp_train_step", "attention_block", "moe_layer"};
static const uint32_t example_checks[] = {9, 1, 3};

static char *slurp(const char *path, size_t *len)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    char *s = plumb_read_file(path, 0, len, &d);
    if (!s)
        print_error("%s\n", d.msg);
    return s;
}

/* Regenerating the examples with tools/gen_examples writes exactly the
 * committed files. */
static void test_examples_regenerate(void **state)
{
    (void)state;
    const char *build = getenv("BUILD");
    char tmpl[] = "/tmp/plumb_nn_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s/tools/gen_examples' '%s'", build && *build ? build : "build", tmpl);
    int rc = system(cmd);
    if (rc != 0)
        print_error("'%s' failed (%d); build it with make first\n", cmd, rc);
    bool same[3] = {false, false, false};
    for (size_t i = 0; rc == 0 && i < sizeof example_names / sizeof example_names[0]; i++) {
        char a[4200], b[4200];
        snprintf(a, sizeof a, "examples/%s.mlir", example_names[i]);
        snprintf(b, sizeof b, "%s/%s.mlir", tmpl, example_names[i]);
        size_t la = 0, lb = 0;
        char *sa = slurp(a, &la), *sb = slurp(b, &lb);
        same[i] = sa && sb && la == lb && memcmp(sa, sb, la) == 0;
        if (!same[i])
            print_error("%s differs from the generator's output; run gen_examples examples/\n", a);
        if (sa)
            plumb_free(sa, la + 1);
        if (sb)
            plumb_free(sb, lb + 1);
    }
    /* Clean up before asserting, so a failure leaves no temporary files. */
    for (size_t i = 0; i < sizeof example_names / sizeof example_names[0]; i++) {
        char b[4200];
        snprintf(b, sizeof b, "%s/%s.mlir", tmpl, example_names[i]);
        remove(b);
    }
    remove(tmpl);
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < sizeof example_names / sizeof example_names[0]; i++)
        assert_true(same[i]);
}

/* Each committed example parses, verifies and passes all of its checks on
 * the reference. */
static void test_examples_pass_on_ref(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof example_names / sizeof example_names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "examples/%s.mlir", example_names[i]);
        size_t len = 0;
        char *text = slurp(path, &len);
        assert_non_null(text);
        plumb_diag d;
        memset(&d, 0, sizeof d);
        ir_module *m = ir_parse(text, len, path, NULL, &d);
        if (!m)
            print_error("%s:%u:%u: %s\n", path, d.loc.line, d.loc.col, d.msg);
        assert_non_null(m);
        assert_verifies(m);
        plumb_ref_result res;
        memset(&res, 0, sizeof res);
        bool ok = plumb_ref_run(m, NULL, NULL, 0, NULL, &res, &d);
        if (!ok)
            print_error("%s: %s\n", path, d.msg);
        assert_true(ok);
        assert_int_equal(res.checks_run, example_checks[i]);
        assert_int_equal(res.checks_failed, 0);
        plumb_ref_result_free(&res);
        ir_module_free(m);
        plumb_free(text, len + 1);
    }
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
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_ref_softmax),
        cmocka_unit_test(test_ref_norms),
        cmocka_unit_test(test_ref_activations),
        cmocka_unit_test(test_ref_attention),
        cmocka_unit_test(test_ref_moe_route),
        cmocka_unit_test(test_examples_regenerate),
        cmocka_unit_test(test_examples_pass_on_ref),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
