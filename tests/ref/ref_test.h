/* Shared helpers for the reference kernel tests: run a program given as
 * text on the reference and read its outputs bit for bit. Static inline so
 * each test file takes only what it uses. */
#ifndef PLUMB_TESTS_REF_TEST_H
#define PLUMB_TESTS_REF_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

/* Parses and verifies src, runs @main on inputs; fails the test on any error. */
static inline plumb_ref_result run_inputs(const char *src, plumb_tensor *const *inputs, uint32_t n)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "test", NULL, &d);
    if (!m) plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    assert_true(ok);
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    ok = plumb_ref_run(m, NULL, inputs, n, NULL, &res, &d);
    if (!ok) plumb_diag_print(&d, stderr);
    ir_module_free(m);
    assert_true(ok);
    assert_int_equal(res.checks_failed, 0);
    return res;
}

static inline plumb_ref_result run(const char *src) { return run_inputs(src, NULL, 0); }

/* Runs `text`, whose @main returns (%r, %e): the result under test and
 * its expected value written as a constant; asserts the two are equal bit
 * for bit, printing both and the program when they are not. */
static inline void expect_outputs_equal(const char *text)
{
    plumb_ref_result res = run(text);
    assert_int_equal(res.n_outputs, 2);
    bool eq = plumb_tensor_equal(res.outputs[0], res.outputs[1]);
    if (!eq) {
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_dense_print(&b, res.outputs[0], true);
        plumb_buf_puts(&b, " != ");
        plumb_dense_print(&b, res.outputs[1], true);
        fprintf(stderr, "%s\n%s\n", b.data, text);
        plumb_buf_free(&b);
    }
    plumb_ref_result_free(&res);
    assert_true(eq);
}

/* Parses and verifies text, a whole module; fails unless it is refused
 * with a message containing want (printing the message and the text). */
static inline void expect_refused(const char *text, const char *want)
{
    plumb_diag d = {0};
    ir_module *m = ir_parse(text, strlen(text), "t.mlir", NULL, &d);
    bool ok = m && ir_verify(m, NULL, &d);
    if (ok || !strstr(d.msg, want))
        fail_msg("expected an error naming '%s', got %s: %s\n%s", want, ok ? "success" : "error", d.msg, text);
    ir_module_free(m);
}

/* Parses and verifies src, prints it into b1 (initialized here, freed by
 * the caller, who checks what the print must hold), then parses, verifies
 * and prints that print: the two prints must be equal, so the canonical
 * form reads back as itself. */
static inline void expect_print_fixpoint(const char *src, plumb_buf *b1)
{
    plumb_diag d = {0};
    ir_module *m = ir_parse(src, strlen(src), "t.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d))
        fail_msg("%s", d.msg);
    plumb_buf b2;
    plumb_buf_init(b1);
    plumb_buf_init(&b2);
    ir_print(b1, m);
    ir_module *m2 = ir_parse(b1->data, b1->len, "t2.mlir", NULL, &d);
    if (!m2 || !ir_verify(m2, NULL, &d))
        fail_msg("%s\n%s", d.msg, b1->data);
    ir_print(&b2, m2);
    assert_string_equal(b1->data, b2.data);
    plumb_buf_free(&b2);
    ir_module_free(m);
    ir_module_free(m2);
}

/* Asserts element i of output k has the bit pattern bits. */
static inline void expect_bits(const plumb_ref_result *r, uint32_t k, size_t i, uint64_t bits)
{
    assert_true(k < r->n_outputs);
    const plumb_tensor *t = r->outputs[k];
    assert_true(i < plumb_tensor_numel(t));
    uint64_t got = plumb_load_bits(t->dtype, t->data, i);
    if (got != bits)
        fprintf(stderr, "output %u element %zu: got 0x%llx, expected 0x%llx\n", k, i,
                (unsigned long long)got, (unsigned long long)bits);
    assert_true(got == bits);
}

static inline void expect_f32(const plumb_ref_result *r, uint32_t k, size_t i, float v)
{
    expect_bits(r, k, i, plumb_f32_bits(v));
}

static inline void expect_f64(const plumb_ref_result *r, uint32_t k, size_t i, double v)
{
    expect_bits(r, k, i, plumb_f64_bits(v));
}

static inline void expect_int(const plumb_ref_result *r, uint32_t k, size_t i, int64_t v)
{
    const plumb_tensor *t = r->outputs[k];
    assert_true(i < plumb_tensor_numel(t));
    int64_t got = plumb_load_i64(t->dtype, t->data, i);
    if (got != v)
        fprintf(stderr, "output %u element %zu: got %lld, expected %lld\n", k, i, (long long)got, (long long)v);
    assert_true(got == v);
}

static inline void expect_nan(const plumb_ref_result *r, uint32_t k, size_t i)
{
    const plumb_tensor *t = r->outputs[k];
    assert_true(isnan(plumb_load_f64(t->dtype, t->data, i)));
}

#endif
