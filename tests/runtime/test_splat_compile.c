/* A splat constant costs the compile the same at every size: the parser
 * marks a literal whose elements all have the same bits, and the compiler
 * then keys it and builds it from element 0 alone. Proved structurally, not
 * by timing: while compiling, every page of the literal's data past the
 * one holding element 0 is made unreadable (mprotect PROT_NONE) in a child
 * process that compiles, and a read of any of them kills it (SIGSEGV). With the
 * mark cleared (as code that writes a constant in place must), the same
 * compile does read them, which shows the probe sees reads when there are
 * any. Results are checked against values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"

#define N 2048

static ir_module *parse(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) plumb_diag_print(&d, stderr);
    assert_non_null(m);
    return m;
}

/* The first constant op of @main. */
static ir_op *first_constant(ir_module *m)
{
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    for (ir_op *op = f->body.first; op; op = op->next)
        if (op->code == PLUMB_OP_CONSTANT) return op;
    fail_msg("no constant in @main");
    return NULL;
}

static plumb_runtime *new_runtime(void);

/* The whole pages of t's data after the page holding element 0. */
static void guarded_range(const plumb_tensor *t, char **lo, size_t *len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)t->data + page) & ~(page - 1);
    uintptr_t b = ((uintptr_t)t->data + t->nbytes) & ~(page - 1);
    assert_true(b > a);
    *lo = (char *)a;
    *len = (size_t)(b - a);
}

/* Compiles @main of m on a fresh runtime in a child process, with the
 * literal's pages past element 0 unreadable there; true when the compile
 * read none of them (a read kills the child with SIGSEGV). */
static bool compile_without_reading(ir_module *m, const plumb_tensor *lit)
{
    char *lo;
    size_t len;
    guarded_range(lit, &lo, &len);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);   /* not cmocka's handler: the parent reads the signal */
        plumb_runtime *rt = new_runtime();
        plumb_diag d;
        memset(&d, 0, sizeof d);
        if (mprotect(lo, len, PROT_NONE) != 0) _exit(3);
        plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
        if (!ex) plumb_diag_print(&d, stderr);
        _exit(ex ? 0 : 2);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) {
        assert_int_equal(WTERMSIG(status), SIGSEGV);
        return false;
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return true;
}

static const char prog_half[] =
    "func.func @main(%x: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {\n"
    "  %c = stablehlo.constant dense<0.5> : tensor<2048x2048xf32>\n"
    "  %0 = stablehlo.multiply %x, %c : tensor<2048x2048xf32>\n"
    "  %1 = stablehlo.add %0, %x : tensor<2048x2048xf32>\n"
    "  func.return %1 : tensor<2048x2048xf32>\n}\n";

static plumb_runtime *new_runtime(void)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.cache_dir = "";   /* no disk cache: every program here is compiled */
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    return rt;
}

/* x[i] = (i % 9) / 4: every product and sum below is exact in f32. */
static plumb_tensor *input(void)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[2] = {N, N};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(t);
    float *x = t->data;
    for (size_t i = 0; i < (size_t)N * N; i++) x[i] = (float)(i % 9) * 0.25f;
    return t;
}

/* Runs ex on input() and checks out[i] = x[i] * c[i] + x[i], with c[i] =
 * c0 except c[at] = c_at. */
static void check_run(plumb_executable *ex, float c0, size_t at, float c_at)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in = input(), *out = NULL;
    bool ok = plumb_executable_run(ex, &in, 1, &out, 1, NULL, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    const float *x = in->data, *y = out->data;
    for (size_t i = 0; i < (size_t)N * N; i += 997) {
        float c = i == at ? c_at : c0;
        assert_true(y[i] == x[i] * c + x[i]);
    }
    assert_true(y[at] == x[at] * c_at + x[at]);
    plumb_tensor_free(out);
    plumb_tensor_free(in);
}

/* The parser marks splats however they are written (a scalar, a list of
 * equal elements, one raw element) and nothing else. */
static void test_parser_marks_splats(void **state)
{
    (void)state;
    static const struct {
        const char *lit;
        bool splat;
    } cases[] = {
        {"dense<1.0> : tensor<4xf32>", true},
        {"dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>", true},
        {"dense<\"0x0000803F\"> : tensor<4xf32>", true},
        {"dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>", false},
        {"dense<[0.0, -0.0, 0.0, 0.0]> : tensor<4xf32>", false},   /* equal values, other bits */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 "func.func @main() -> tensor<4xf32> {\n  %%c = stablehlo.constant %s\n"
                 "  func.return %%c : tensor<4xf32>\n}\n", cases[k].lit);
        ir_module *m = parse(src);
        ir_op *c = first_constant(m);
        if (ir_attrs_value_splat(&c->a) != cases[k].splat) fail_msg("%s: splat mark %d", cases[k].lit, !cases[k].splat);
        /* a replaced tensor is not marked */
        plumb_tensor other = *c->a.value;
        float buf[4] = {1, 1, 1, 1};
        other.data = buf;
        c->a.value = &other;
        assert_false(ir_attrs_value_splat(&c->a));
        ir_module_free(m);
    }
}

/* A 2048x2048 splat constant: the compile reads none of its pages past
 * element 0, and the program computes x * 0.5 + x. */
static void test_splat_compile_reads_one_element(void **state)
{
    (void)state;
    ir_module *m = parse(prog_half);
    ir_op *c = first_constant(m);
    assert_true(ir_attrs_value_splat(&c->a));
    assert_true(compile_without_reading(m, c->a.value));
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
    assert_non_null(ex);
    check_run(ex, 0.5f, 0, 0.5f);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* The probe sees reads: with one element written in place and the mark
 * cleared, as such code must, the compile reads the whole literal, and the
 * changed element is in the result. */
static void test_unmarked_literal_is_read_whole(void **state)
{
    (void)state;
    ir_module *m = parse(prog_half);
    ir_op *c = first_constant(m);
    size_t at = (size_t)N * N - 5;
    ((float *)c->a.value->data)[at] = 2.0f;
    c->a.value_splat_data = NULL;
    assert_false(compile_without_reading(m, c->a.value));
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
    if (!ex) plumb_diag_print(&d, stderr);
    assert_non_null(ex);
    check_run(ex, 0.5f, at, 2.0f);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Keyed by element 0: the same splat again is a cache hit, another value a
 * compile whose explanation names both values. */
static void test_splat_key_and_explanation(void **state)
{
    (void)state;
    plumb_runtime *rt = new_runtime();
    ir_module *a = parse(prog_half), *b = parse(prog_half);
    char quarter[sizeof prog_half];
    memcpy(quarter, prog_half, sizeof prog_half);
    char *p = strstr(quarter, "dense<0.5>");
    assert_non_null(p);
    memcpy(p, "dense<2.5>", 10);
    ir_module *q = parse(quarter);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    assert_non_null(plumb_runtime_compile(rt, a, "main", &d));
    assert_non_null(plumb_runtime_compile(rt, b, "main", &d));
    plumb_runtime_stats st = {.struct_size = sizeof st};
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    plumb_executable *ex = plumb_runtime_compile(rt, q, "main", &d);
    assert_non_null(ex);
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 2);
    const char *why = plumb_runtime_last_explanation(rt);
    assert_non_null(why);
    if (!strstr(why, "constant 5.000000e-01 became 2.500000e+00"))
        fail_msg("explanation does not name 0.5 and 2.5: %s", why);
    check_run(ex, 2.5f, 0, 2.5f);
    plumb_runtime_destroy(rt);
    ir_module_free(a);
    ir_module_free(b);
    ir_module_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parser_marks_splats),
        cmocka_unit_test(test_splat_compile_reads_one_element),
        cmocka_unit_test(test_unmarked_literal_is_read_whole),
        cmocka_unit_test(test_splat_key_and_explanation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
