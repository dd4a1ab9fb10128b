/* Programs for the runtime's pass and fusion tests (test_passes.c,
 * test_fusion.c, test_fusion_chain.c): parsed or nn-built and verified, and
 * run through the public runtime API with one fresh runtime per call, so
 * each run compiles at the options given. */
#ifndef PLUMB_TESTS_RUN_HARNESS_H
#define PLUMB_TESTS_RUN_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/runtime.h"
#include "plumb/tensor.h"

/* Runs @main of m at opt level, thread count and kernel level isa; returns
 * n_out new result tensors (free with run_free_outs). Fails the test on
 * any error. */
static inline plumb_tensor **run_program(const ir_module *m, uint32_t level, uint32_t threads, plumb_isa isa,
                                         plumb_tensor *const *in, uint32_t n_in, uint32_t n_out)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.opt_level = level;
    o.threads = threads;
    o.isa = isa;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    plumb_tensor **out = calloc(n_out, sizeof *out);
    assert_non_null(out);
    bool ok = plumb_runtime_run(rt, m, NULL, in, n_in, out, n_out, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    plumb_runtime_destroy(rt);
    return out;
}

/* Runs m (one result of `bytes` bytes) at the portable, AVX2 and AVX-512
 * kernel levels up to best, fails the test unless every level gives the
 * same bits, and returns the portable level's outputs (free with
 * run_free_outs): a vector path must not depend on the level it runs at. */
static inline plumb_tensor **run_levels_same(const ir_module *m, plumb_isa best, plumb_tensor *const *in,
                                             uint32_t n_in, size_t bytes)
{
    static const plumb_isa isas[] = {PLUMB_ISA_PORTABLE, PLUMB_ISA_AVX2, PLUMB_ISA_AVX512};
    plumb_tensor **first = NULL;
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        if (isas[i] > best)
            continue;
        plumb_tensor **o = run_program(m, 1, 1, isas[i], in, n_in, 1);
        if (!first) {
            first = o;
            continue;
        }
        assert_memory_equal(first[0]->data, o[0]->data, bytes);
        plumb_tensor_free(o[0]);
        free(o);
    }
    return first;
}

/* m verifies; fails the test (printing the error) when not. Returns m. */
static inline ir_module *verify_ok(ir_module *m)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

/* Ends the function nn is building with results y[0..n) and verifies
 * module m; fails the test (printing the error) on any problem. */
static inline ir_module *nn_finish(plumb_nn *nn, ir_module *m, ir_value *const *y, uint32_t n)
{
    bool ok = plumb_nn_return(nn, y, n) && plumb_nn_ok(nn);
    if (!ok && nn->d)
        plumb_diag_print(nn->d, stderr);
    assert_true(ok);
    return verify_ok(m);
}

/* Parses and verifies a program text; fails the test (printing the error)
 * when either fails. */
static inline ir_module *parse_ok(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "test.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    return verify_ok(m);
}

static inline void run_free_outs(plumb_tensor **o, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(o[i]);
    free(o);
}

#endif
