/* Shared helpers for the runtime pipeline tests: parse programs, run them on
 * the runtime and on the reference (the oracle) and compare. */
#ifndef PLUMB_TESTS_RTA_TEST_H
#define PLUMB_TESTS_RTA_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "run_harness.h"   /* parse_ok */

static inline plumb_runtime *rt_new(uint32_t threads, uint32_t opt_level, const char *cache_dir)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = threads;
    o.opt_level = opt_level;
    o.cache_dir = cache_dir;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

static inline plumb_tensor *tensor_f32(uint32_t rank, const int64_t *dims, const float *v)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, rank, dims, 0, &d);
    assert_non_null(t);
    if (v)
        memcpy(t->data, v, t->nbytes);
    return t;
}

/* Deterministic pseudo-random floats in [-1, 1) (xorshift). */
static inline void fill_random(float *v, size_t n, uint32_t seed)
{
    uint32_t s = seed ? seed : 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v[i] = (float)((double)(s >> 8) / (double)(1u << 23)) - 1.0f;
    }
}

/* Runs m on the runtime; fails the test on any error. */
static inline void rt_run_ok(plumb_runtime *rt, const ir_module *m, plumb_tensor *const *in, uint32_t n_in,
                             plumb_tensor **out, uint32_t n_out)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    uint32_t failed = 0;
    bool ok = plumb_runtime_run(rt, m, NULL, in, n_in, out, n_out, &failed, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(failed, 0);
}

/* Runs m on the reference and on rt and asserts bit-identical outputs
 * (for programs made of exact ops). */
static inline void expect_same_as_ref(plumb_runtime *rt, const ir_module *m, plumb_tensor *const *in, uint32_t n_in)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_ref_result res;
    bool ok = plumb_ref_run(m, NULL, in, n_in, NULL, &res, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    plumb_tensor *out[8] = {0};
    assert_true(res.n_outputs <= 8);
    rt_run_ok(rt, m, in, n_in, out, res.n_outputs);
    for (uint32_t i = 0; i < res.n_outputs; i++) {
        if (!plumb_tensor_equal(out[i], res.outputs[i]))
            fprintf(stderr, "output %u differs from the reference\n", i);
        assert_true(plumb_tensor_equal(out[i], res.outputs[i]));
        plumb_tensor_free(out[i]);
    }
    plumb_ref_result_free(&res);
}

#endif
