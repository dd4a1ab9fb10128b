/* The reference interpreter: calls, multiple results, input checking,
 * limits (time, memory, call depth) and clean failure on allocation
 * failure. Modules are built with the IR builder; expected values follow
 * from the definitions of the data-movement ops used (hand-derived). */
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

static ir_type ty1(plumb_dtype t, int64_t n)
{
    return ir_type_make(t, 1, &n);
}

static ir_op *add_op(ir_module *m, ir_block *b, plumb_opcode code, ir_value **ops, uint32_t n,
                     const ir_type *rt, uint32_t nr)
{
    ir_op *op = ir_op_new(m, code, ops, n, rt, nr);
    assert_non_null(op);
    ir_block_append(b, op);
    return op;
}

static void add_return(ir_module *m, ir_func *f, ir_value **vals, uint32_t n)
{
    add_op(m, &f->body, PLUMB_OP_FUNC_RETURN, vals, n, NULL, 0);
    ir_type ts[8];
    for (uint32_t i = 0; i < n; i++)
        ts[i] = vals[i]->type;
    assert_true(ir_func_set_results(m, f, ts, n));
}

static plumb_tensor *f32_tensor(int64_t n, const float *v)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 1, &n, 0, &d);
    assert_non_null(t);
    if (t->nbytes)
        memcpy(t->data, v, t->nbytes);
    return t;
}

/* @pair(%a: 3xf32) -> (3xf32 reversed, 6xf32 concat(a, a));
 * @main(%x: 3xf32) -> (%x itself, pair's results, pair's first again). */
static ir_module *build_calls(void)
{
    ir_module *m = ir_module_new("calls");
    assert_non_null(m);
    ir_func *pair = ir_func_new(m, "pair", false);
    ir_type t3 = ty1(PLUMB_F32, 3), t6 = ty1(PLUMB_F32, 6);
    ir_value *a = ir_block_add_arg(m, &pair->body, &t3);
    ir_op *rev = add_op(m, &pair->body, PLUMB_OP_REVERSE, &a, 1, &t3, 1);
    int64_t zero = 0;
    rev->a.dims = ir_ints_make(m, &zero, 1);
    ir_value *aa[2] = {a, a};
    ir_op *cat = add_op(m, &pair->body, PLUMB_OP_CONCATENATE, aa, 2, &t6, 1);
    cat->a.dimension = 0;
    ir_value *pr[2] = {rev->results[0], cat->results[0]};
    add_return(m, pair, pr, 2);

    ir_func *mainf = ir_func_new(m, "main", true);
    ir_value *x = ir_block_add_arg(m, &mainf->body, &t3);
    ir_type rts[2] = {t3, t6};
    ir_op *call = add_op(m, &mainf->body, PLUMB_OP_CALL, &x, 1, rts, 2);
    call->a.callee = "pair";
    ir_value *mr[4] = {x, call->results[0], call->results[1], call->results[0]};
    add_return(m, mainf, mr, 4);
    return m;
}

/* A call with two results; main returns its parameter, both call results
 * and one of them twice, each as its own tensor. */
static void test_call_multi_results(void **state)
{
    (void)state;
    ir_module *m = build_calls();
    float x[] = {1.0f, 2.0f, 3.0f};
    plumb_tensor *in = f32_tensor(3, x);
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(plumb_ref_run(m, NULL, &in, 1, &o, &res, &d));
    assert_int_equal(res.n_outputs, 4);
    float rev[] = {3.0f, 2.0f, 1.0f}, cat[] = {1, 2, 3, 1, 2, 3};
    assert_memory_equal(res.outputs[0]->data, x, sizeof x);
    assert_ptr_not_equal(res.outputs[0], in);
    assert_memory_equal(res.outputs[1]->data, rev, sizeof rev);
    assert_memory_equal(res.outputs[2]->data, cat, sizeof cat);
    assert_memory_equal(res.outputs[3]->data, rev, sizeof rev);
    assert_ptr_not_equal(res.outputs[1], res.outputs[3]);
    plumb_ref_result_free(&res);
    /* the input is untouched and still owned by the caller */
    assert_memory_equal(in->data, x, sizeof x);
    plumb_tensor_free(in);
    ir_module_free(m);
}

/* Inputs that do not match the parameters: wrong shape, wrong dtype, wrong
 * count. The error names the parameter index and both types. */
static void test_input_mismatch(void **state)
{
    (void)state;
    ir_module *m = build_calls();
    float x[] = {1, 2};
    plumb_tensor *in = f32_tensor(2, x);
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    assert_false(plumb_ref_run(m, NULL, &in, 1, &o, &res, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "input 0"));
    assert_non_null(strstr(d.msg, "tensor<2xf32>"));
    assert_non_null(strstr(d.msg, "tensor<3xf32>"));
    plumb_tensor_free(in);

    plumb_diag d2 = {.code = PLUMB_OK};
    int64_t n = 3;
    plumb_tensor *wrong = plumb_tensor_new(PLUMB_F16, 1, &n, 0, &d2);
    assert_false(plumb_ref_run(m, NULL, &wrong, 1, &o, &res, &d2));
    assert_non_null(strstr(d2.msg, "tensor<3xf16>"));
    plumb_diag d3 = {.code = PLUMB_OK};
    assert_false(plumb_ref_run(m, NULL, NULL, 0, &o, &res, &d3));
    assert_non_null(strstr(d3.msg, "1 parameters but 0 inputs"));
    plumb_diag d4 = {.code = PLUMB_OK};
    assert_false(plumb_ref_run(m, "nope", &wrong, 1, &o, &res, &d4));
    assert_non_null(strstr(d4.msg, "@nope"));
    plumb_tensor_free(wrong);
    ir_module_free(m);
}

/* main(%x) = 400 reshapes of a 64Ki-element tensor back and forth. */
static ir_module *build_long(void)
{
    ir_module *m = ir_module_new("long");
    assert_non_null(m);
    m->filename = "long.mlir";
    ir_func *f = ir_func_new(m, "main", true);
    int64_t da[] = {65536}, db[] = {256, 256};
    ir_type ta = ir_type_make(PLUMB_F32, 1, da), tb = ir_type_make(PLUMB_F32, 2, db);
    ir_value *v = ir_block_add_arg(m, &f->body, &ta);
    for (int i = 0; i < 400; i++) {
        ir_op *op = add_op(m, &f->body, PLUMB_OP_RESHAPE, &v, 1, i % 2 ? &ta : &tb, 1);
        op->loc.line = (uint32_t)i + 2;
        op->loc.col = 5;
        v = op->results[0];
    }
    add_return(m, f, &v, 1);
    return m;
}

/* A run past its deadline stops with a timeout error naming the op and its
 * location; the same run with a generous limit completes. */
static void test_timeout(void **state)
{
    (void)state;
    ir_module *m = build_long();
    int64_t n = 65536;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in = plumb_tensor_new(PLUMB_F32, 1, &n, 0, &d);
    assert_non_null(in);
    plumb_ref_options o = {.struct_size = sizeof o, .timeout_s = 1e-6};
    plumb_ref_result res;
    assert_false(plumb_ref_run(m, NULL, &in, 1, &o, &res, &d));
    assert_int_equal(d.code, PLUMB_ERR_RUNTIME);
    assert_non_null(strstr(d.msg, "timeout"));
    assert_non_null(strstr(d.msg, "stablehlo.reshape"));
    assert_string_equal(d.file, "long.mlir");
    assert_true(d.loc.line >= 2);
    assert_int_equal(d.loc.col, 5);
    plumb_diag d2 = {.code = PLUMB_OK};
    o.timeout_s = 60;
    assert_true(plumb_ref_run(m, NULL, &in, 1, &o, &res, &d2));
    plumb_ref_result_free(&res);
    plumb_tensor_free(in);
    ir_module_free(m);
}

/* ---- allocator hooks ---------------------------------------------------------- */

typedef struct alloc_stats {
    long live;            /* outstanding allocations */
    long count;           /* allocations made */
    long fail_at;         /* fail the allocation with this count (1-based); 0 = never */
    size_t largest;       /* largest allocation requested, in bytes */
} alloc_stats;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    alloc_stats *s = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr)
            s->live--;
        free(ptr);
        return NULL;
    }
    if (nsize > s->largest)
        s->largest = nsize;
    if (!ptr) {
        s->count++;
        if (s->fail_at && s->count == s->fail_at)
            return NULL;
        void *p = malloc(nsize);
        if (p)
            s->live++;
        return p;
    }
    s->count++;
    if (s->fail_at && s->count == s->fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

/* A result over the byte limit is refused before anything that large is
 * allocated, with a limit error naming the op. */
static void test_memory_limit_before_allocation(void **state)
{
    (void)state;
    ir_module *m = ir_module_new("mem");
    ir_func *f = ir_func_new(m, "main", true);
    ir_type t = ty1(PLUMB_I32, 1000000);
    ir_op *op = add_op(m, &f->body, PLUMB_OP_IOTA, NULL, 0, &t, 1);
    op->a.dimension = 0;
    add_return(m, f, op->results, 1);
    alloc_stats s = {0};
    plumb_set_allocator(counting_alloc, &s);
    plumb_ref_options o = {.struct_size = sizeof o, .max_bytes = 1000};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = plumb_ref_run(m, NULL, NULL, 0, &o, &res, &d);
    plumb_set_allocator(NULL, NULL);
    assert_false(ok);
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "stablehlo.iota"));
    assert_true(s.largest < 4000000);
    assert_int_equal(s.live, 0);
    ir_module_free(m);
}

/* Failing the n-th allocation, for every n the run makes, fails the run
 * with an out-of-memory error and leaks nothing; the next n succeeds. */
static void test_allocation_failure_injection(void **state)
{
    (void)state;
    ir_module *m = build_calls();
    float x[] = {1.0f, 2.0f, 3.0f};
    plumb_tensor *in = f32_tensor(3, x);
    bool succeeded = false;
    long n;
    for (n = 1; n < 1000 && !succeeded; n++) {
        alloc_stats s = {.fail_at = n};
        plumb_set_allocator(counting_alloc, &s);
        plumb_ref_options o = {.struct_size = sizeof o};
        plumb_ref_result res;
        plumb_diag d = {.code = PLUMB_OK};
        bool ok = plumb_ref_run(m, NULL, &in, 1, &o, &res, &d);
        if (ok) {
            assert_int_equal(res.n_outputs, 4);
            plumb_ref_result_free(&res);
            succeeded = s.count < n;   /* no allocation was refused */
        } else {
            assert_int_equal(d.code, PLUMB_ERR_NOMEM);
        }
        plumb_set_allocator(NULL, NULL);
        assert_int_equal(s.live, 0);
    }
    assert_true(succeeded);
    assert_true(n > 5);   /* the run does allocate: several failure points were hit */
    plumb_tensor_free(in);
    ir_module_free(m);
}

/* Unbounded recursion stops at the call-depth limit with an error. */
static void test_recursion_limit(void **state)
{
    (void)state;
    ir_module *m = ir_module_new("rec");
    ir_func *f = ir_func_new(m, "main", true);
    ir_type t = ty1(PLUMB_F32, 2);
    ir_value *x = ir_block_add_arg(m, &f->body, &t);
    ir_op *call = add_op(m, &f->body, PLUMB_OP_CALL, &x, 1, &t, 1);
    call->a.callee = "main";
    add_return(m, f, call->results, 1);
    float v[] = {1, 2};
    plumb_tensor *in = f32_tensor(2, v);
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    assert_false(plumb_ref_run(m, NULL, &in, 1, &o, &res, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "func.call"));
    assert_non_null(strstr(d.msg, "deeper"));
    plumb_tensor_free(in);
    ir_module_free(m);
}

/* A `?` result that nothing determines at run time (iota has no operand;
 * dynamic_iota takes its shape as one) is an error naming the op. */
static void test_dynamic_dim_unsupported(void **state)
{
    (void)state;
    ir_module *m = ir_module_new("dyn");
    ir_func *f = ir_func_new(m, "main", true);
    ir_type t = ty1(PLUMB_I32, PLUMB_DIM_DYN);
    ir_op *op = add_op(m, &f->body, PLUMB_OP_IOTA, NULL, 0, &t, 1);
    op->a.dimension = 0;
    add_return(m, f, op->results, 1);
    plumb_ref_options o = {.struct_size = sizeof o};
    plumb_ref_result res;
    plumb_diag d = {.code = PLUMB_OK};
    assert_false(plumb_ref_run(m, NULL, NULL, 0, &o, &res, &d));
    assert_int_equal(d.code, PLUMB_ERR_INVALID);
    assert_non_null(strstr(d.msg, "stablehlo.iota"));
    assert_non_null(strstr(d.msg, "dynamic_iota"));
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_multi_results),
        cmocka_unit_test(test_input_mismatch),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_memory_limit_before_allocation),
        cmocka_unit_test(test_allocation_failure_injection),
        cmocka_unit_test(test_recursion_limit),
        cmocka_unit_test(test_dynamic_dim_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
