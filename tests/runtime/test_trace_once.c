/* The trace-once guard (runtime/rt_guard.h): lookups of a module seen before
 * skip copying and comparing its large constants' bytes, and never serve a
 * program compiled for a different module. Every test here tries to make it
 * serve the wrong one: a module freed and another parsed at the same
 * addresses, a constant written in place, ops, attributes, small constants
 * and parameter types edited in place, two modules with the same @name and
 * entry, polymorphic and static signatures. Expected values are worked out
 * by hand: x = 0, 1, 2, ... times a weight that is a small integer, exact in
 * f32. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rta_test.h"

#define N 256   /* 1 KiB of f32: above the guard's RT_GUARD_REF_BYTES, so referenced */

/* y = x * w with w a baked constant of N elements equal to W. */
static char *weight_src(const char *module_name, int w)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0],
             "module @%s {\n"
             "  func.func @main(%%x: tensor<%dxf32>) -> tensor<%dxf32> {\n"
             "    %%w = stablehlo.constant dense<%d.0> : tensor<%dxf32>\n"
             "    %%y = stablehlo.multiply %%x, %%w : tensor<%dxf32>\n"
             "    return %%y : tensor<%dxf32>\n"
             "  }\n"
             "}\n",
             module_name, N, N, w, N, N, N);
    return b;
}

static ir_op *first_op(const ir_module *m, plumb_opcode code)
{
    const ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    for (ir_op *op = f->body.first; op; op = op->next)
        if (op->code == code)
            return op;
    fail_msg("no op %d", (int)code);
    return NULL;
}

/* Runs m on rt with x[i] = i (n elements) and checks y[i] == i * w + add. */
static void expect_scaled(plumb_runtime *rt, const ir_module *m, int64_t n, float w, float add)
{
    float x[N];
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)i;
    plumb_tensor *in = tensor_f32(1, &n, x);
    plumb_tensor *out = NULL;
    rt_run_ok(rt, m, &in, 1, &out, 1);
    assert_int_equal(out->dims[0], n);
    const float *y = out->data;
    for (int64_t i = 0; i < n; i++)
        if (y[i] != (float)i * w + add)
            fail_msg("y[%lld] = %g, expected %g", (long long)i, (double)y[i], (double)((float)i * w + add));
    plumb_tensor_free(out);
    plumb_tensor_free(in);
}

static plumb_runtime_stats stats(const plumb_runtime *rt)
{
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    return st;
}

/* An unchanged module is served by the guard after its first compile: one
 * compile, every later lookup a hit the guard served. */
static void unchanged_module_is_served_by_the_guard(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *m = parse_ok(weight_src("net", 2));
    for (int i = 0; i < 4; i++)
        expect_scaled(rt, m, N, 2.0f, 0.0f);
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.cache_hits, 3);
    /* the second lookup records the guard form on the full path's hit or
     * compile of the first; every lookup after the first is the guard's */
    assert_int_equal(st.trace_hits, 3);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* Writing a large constant's bytes in place, then ir_module_touch, serves
 * a program for the new bytes; writing the old bytes back finds the first
 * program again (a full-lookup hit, not a compile). */
static void inplace_constant_write_with_touch_recompiles(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *m = parse_ok(weight_src("net", 2));
    expect_scaled(rt, m, N, 2.0f, 0.0f);
    expect_scaled(rt, m, N, 2.0f, 0.0f);
    plumb_tensor *w = first_op(m, PLUMB_OP_CONSTANT)->a.value;
    assert_int_equal(w->nbytes, N * sizeof(float));
    uint64_t uid = m->uid;
    for (int i = 0; i < N; i++)
        ((float *)w->data)[i] = 3.0f;
    ir_module_touch(m);
    assert_true(m->uid != uid);
    expect_scaled(rt, m, N, 3.0f, 0.0f);
    expect_scaled(rt, m, N, 3.0f, 0.0f);
    assert_int_equal(stats(rt).compiles, 2);
    for (int i = 0; i < N; i++)
        ((float *)w->data)[i] = 2.0f;
    ir_module_touch(m);
    expect_scaled(rt, m, N, 2.0f, 0.0f);
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.cache_hits, 3);
    assert_int_equal(st.trace_hits, 2);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* Everything but a large constant's bytes is compared on every lookup, so
 * in-place edits without ir_module_touch are caught: the op (multiply
 * becomes add), a small constant's bytes, a parameter's type. */
static void inplace_edits_without_touch_are_caught(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *m = parse_ok(weight_src("net", 2));
    expect_scaled(rt, m, N, 2.0f, 0.0f);
    expect_scaled(rt, m, N, 2.0f, 0.0f);
    first_op(m, PLUMB_OP_MULTIPLY)->code = PLUMB_OP_ADD;   /* y = x + 2 */
    expect_scaled(rt, m, N, 1.0f, 2.0f);
    assert_int_equal(stats(rt).compiles, 2);
    ir_module_free(m);

    /* a small constant (16 bytes, copied into the guard form) next to a large one */
    m = parse_ok("func.func @main(%x: tensor<256xf32>) -> (tensor<4xf32>, tensor<256xf32>) {\n"
                 "  %w = stablehlo.constant dense<2.0> : tensor<256xf32>\n"
                 "  %s = stablehlo.constant dense<5.0> : tensor<4xf32>\n"
                 "  %y = stablehlo.multiply %x, %w : tensor<256xf32>\n"
                 "  return %s, %y : tensor<4xf32>, tensor<256xf32>\n"
                 "}\n");
    for (int round = 0; round < 3; round++) {
        float want = round == 2 ? 7.0f : 5.0f;
        int64_t n = N;
        float x[N] = {0};
        plumb_tensor *in = tensor_f32(1, &n, x);
        plumb_tensor *out[2] = {NULL, NULL};
        rt_run_ok(rt, m, &in, 1, out, 2);
        for (int i = 0; i < 4; i++)
            assert_true(((float *)out[0]->data)[i] == want);
        plumb_tensor_free(out[0]);
        plumb_tensor_free(out[1]);
        plumb_tensor_free(in);
        if (round == 1) {
            ir_op *c = first_op(m, PLUMB_OP_CONSTANT)->next;
            assert_int_equal(c->a.value->nbytes, 16);
            for (int i = 0; i < 4; i++)
                ((float *)c->a.value->data)[i] = 7.0f;   /* no ir_module_touch */
        }
    }
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 4);
    assert_int_equal(st.trace_hits, 2);   /* the second lookup of each module */
    ir_module_free(m);

    /* a parameter's type: the same module object edited to tensor<128xf32> */
    m = parse_ok("func.func @main(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {\n"
                 "  %w = stablehlo.constant dense<2.0> : tensor<256xf32>\n"
                 "  %y = stablehlo.add %x, %x : tensor<256xf32>\n"
                 "  return %y, %w : tensor<256xf32>, tensor<256xf32>\n"
                 "}\n");
    for (int round = 0; round < 4; round++) {
        int64_t n = round < 2 ? N : 128;
        float x[N];
        for (int i = 0; i < N; i++)
            x[i] = (float)i;
        plumb_tensor *in = tensor_f32(1, &n, x);
        plumb_tensor *out[2] = {NULL, NULL};
        rt_run_ok(rt, m, &in, 1, out, 2);
        assert_int_equal(out[0]->dims[0], n);
        for (int64_t i = 0; i < n; i++)
            assert_true(((float *)out[0]->data)[i] == 2.0f * (float)i);
        plumb_tensor_free(out[0]);
        plumb_tensor_free(out[1]);
        plumb_tensor_free(in);
        if (round == 1) {
            ir_func *f = ir_module_find_func(m, "main");
            f->body.args[0]->type.dims[0] = 128;
            first_op(m, PLUMB_OP_ADD)->results[0]->type.dims[0] = 128;
            f->result_types[0].dims[0] = 128;
        }
    }
    st = stats(rt);
    assert_int_equal(st.compiles, 6);
    assert_int_equal(st.trace_hits, 4);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* An allocator that hands a freed block of the same size back first (last
 * freed, first reused): a module parsed right after another of the same
 * shape was freed lands at exactly the same addresses. */
#define POOL 4096
typedef struct pool {
    void *blk[POOL];
    size_t size[POOL];
    int n;
} pool;

static void *pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    pool *p = ud;
    if (nsize == 0) {
        if (ptr && p->n < POOL) {
            p->blk[p->n] = ptr;
            p->size[p->n++] = osize;
        } else {
            free(ptr);
        }
        return NULL;
    }
    if (!ptr)
        for (int i = p->n - 1; i >= 0; i--)
            if (p->size[i] == nsize) {
                void *b = p->blk[i];
                memmove(&p->blk[i], &p->blk[i + 1], (size_t)(p->n - i - 1) * sizeof p->blk[0]);
                memmove(&p->size[i], &p->size[i + 1], (size_t)(p->n - i - 1) * sizeof p->size[0]);
                p->n--;
                return b;
            }
    return realloc(ptr, nsize);
}

/* A module freed and a different one parsed into the very same memory
 * (module struct, constant tensor and its bytes at the same addresses) is
 * never served the first one's program: its uid is new. */
static void freed_module_reused_memory_is_not_served(void **state)
{
    (void)state;
    static pool p;
    plumb_alloc_fn old_fn;
    void *old_ud;
    plumb_get_allocator(&old_fn, &old_ud);
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *a = parse_ok(weight_src("net", 2));
    expect_scaled(rt, a, N, 2.0f, 0.0f);
    expect_scaled(rt, a, N, 2.0f, 0.0f);
    const plumb_tensor *wa = first_op(a, PLUMB_OP_CONSTANT)->a.value;
    const void *a_addr = a, *wa_addr = wa, *wa_data = wa->data;
    uint64_t a_uid = a->uid;
    plumb_set_allocator(pool_alloc, &p);
    ir_module_free(a);
    ir_module *b = parse_ok(weight_src("net", 3));
    plumb_set_allocator(old_fn, old_ud);
    const plumb_tensor *wb = first_op(b, PLUMB_OP_CONSTANT)->a.value;
    /* the attack's precondition: everything the guard form could name by address is reused */
    assert_ptr_equal(b, a_addr);
    assert_ptr_equal(wb, wa_addr);
    assert_ptr_equal(wb->data, wa_data);
    assert_true(b->uid != a_uid);
    expect_scaled(rt, b, N, 3.0f, 0.0f);
    expect_scaled(rt, b, N, 3.0f, 0.0f);
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.trace_hits, 2);
    plumb_set_allocator(pool_alloc, &p);   /* b's blocks may be pool blocks: free them the same way */
    ir_module_free(b);
    plumb_set_allocator(old_fn, old_ud);
    for (int i = 0; i < p.n; i++)
        free(p.blk[i]);
    p.n = 0;
    plumb_runtime_destroy(rt);
}

/* Two live modules with the same @name and entry but other weights share
 * an entry (and budget) yet never a program: each is served its own,
 * alternating, by the guard. */
static void same_name_modules_get_their_own_programs(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *a = parse_ok(weight_src("net", 2));
    ir_module *b = parse_ok(weight_src("net", 3));
    ir_module *c = parse_ok(weight_src("net", 2));   /* same contents as a: a's program */
    for (int i = 0; i < 3; i++) {
        expect_scaled(rt, a, N, 2.0f, 0.0f);
        expect_scaled(rt, b, N, 3.0f, 0.0f);
        expect_scaled(rt, c, N, 2.0f, 0.0f);
    }
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.cache_hits, 7);
    assert_int_equal(st.trace_hits, 6);
    ir_module_free(a);
    ir_module_free(b);
    ir_module_free(c);
    plumb_runtime_destroy(rt);
}

/* A polymorphic signature compiles once and the guard serves it for every
 * actual size; the static program of the same body is a program of its own. */
static void polymorphic_and_static_signatures(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    static const char poly[] =
        "func.func @main(%x: tensor<?xf32, #stablehlo.bounds<256>>) -> (tensor<?xf32, #stablehlo.bounds<256>>, tensor<256xf32>) {\n"
        "  %w = stablehlo.constant dense<2.0> : tensor<256xf32>\n"
        "  %y = stablehlo.add %x, %x : tensor<?xf32, #stablehlo.bounds<256>>\n"
        "  return %y, %w : tensor<?xf32, #stablehlo.bounds<256>>, tensor<256xf32>\n"
        "}\n";
    static const char stat[] =
        "func.func @main(%x: tensor<7xf32>) -> (tensor<7xf32>, tensor<256xf32>) {\n"
        "  %w = stablehlo.constant dense<2.0> : tensor<256xf32>\n"
        "  %y = stablehlo.add %x, %x : tensor<7xf32>\n"
        "  return %y, %w : tensor<7xf32>, tensor<256xf32>\n"
        "}\n";
    ir_module *mp = parse_ok(poly), *ms = parse_ok(stat);
    const int64_t sizes[] = {3, 7, 256, 1, 7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int which = 0; which < 2; which++) {
            int64_t n = which ? 7 : sizes[k];
            float x[N];
            for (int i = 0; i < N; i++)
                x[i] = (float)(i + 1);
            plumb_tensor *in = tensor_f32(1, &n, x);
            plumb_tensor *out[2] = {NULL, NULL};
            rt_run_ok(rt, which ? ms : mp, &in, 1, out, 2);
            assert_int_equal(out[0]->dims[0], n);
            for (int64_t i = 0; i < n; i++)
                assert_true(((float *)out[0]->data)[i] == 2.0f * (float)(i + 1));
            for (int i = 0; i < N; i++)
                assert_true(((float *)out[1]->data)[i] == 2.0f);
            plumb_tensor_free(out[0]);
            plumb_tensor_free(out[1]);
            plumb_tensor_free(in);
        }
    }
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.trace_hits, 8);
    ir_module_free(mp);
    ir_module_free(ms);
    plumb_runtime_destroy(rt);
}

/* More modules of one entry than the guard keeps forms for: results stay
 * right, the full lookup finds their programs, the forms kept are bounded
 * (the oldest replaced) and serve the modules they belong to. */
static void more_modules_than_guard_slots(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    enum { M = 20 };
    ir_module *m[M];
    for (int i = 0; i < M; i++)
        m[i] = parse_ok(weight_src("net", 2 + i % 2));
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < M; i++)
            expect_scaled(rt, m[i], N, (float)(2 + i % 2), 0.0f);
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.cache_hits, 2 * M - 2);
    /* 8 forms, the oldest replaced: the first round leaves m[12..19]'s,
     * which the second round's first 12 lookups replace before m[12] comes
     * round, so the second round is all full lookups ... */
    assert_int_equal(st.trace_hits, 0);
    /* ... and leaves m[12..19]'s forms, which serve them now */
    for (int i = M - 8; i < M; i++)
        expect_scaled(rt, m[i], N, (float)(2 + i % 2), 0.0f);
    assert_int_equal(stats(rt).trace_hits, 8);
    for (int i = 0; i < M; i++)
        ir_module_free(m[i]);
    plumb_runtime_destroy(rt);
}

/* PLUMB_TRACE_ONCE=0 turns the guard off: the same results, no guard hits. */
static void env_turns_the_guard_off(void **state)
{
    (void)state;
    setenv("PLUMB_TRACE_ONCE", "0", 1);
    plumb_runtime *rt = rt_new(1, 2, NULL);
    unsetenv("PLUMB_TRACE_ONCE");
    ir_module *m = parse_ok(weight_src("net", 2));
    for (int i = 0; i < 3; i++)
        expect_scaled(rt, m, N, 2.0f, 0.0f);
    plumb_runtime_stats st = stats(rt);
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.cache_hits, 2);
    assert_int_equal(st.trace_hits, 0);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unchanged_module_is_served_by_the_guard),
        cmocka_unit_test(inplace_constant_write_with_touch_recompiles),
        cmocka_unit_test(inplace_edits_without_touch_are_caught),
        cmocka_unit_test(freed_module_reused_memory_is_not_served),
        cmocka_unit_test(same_name_modules_get_their_own_programs),
        cmocka_unit_test(polymorphic_and_static_signatures),
        cmocka_unit_test(more_modules_than_guard_slots),
        cmocka_unit_test(env_turns_the_guard_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
