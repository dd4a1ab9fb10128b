/* The runtime's limits: the deadline inside every kind of nested region
 * (reduce bodies, sort comparators, scatter updates, inlined calls), the
 * scratch of a region nested in a region given back per evaluation, the
 * step's scratch bounded by max_bytes as a whole, the inlining budget, and
 * the planner's out-of-memory paths freeing with the sizes they allocated.
 * Expected values are derived by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "runtime/limits_progs.h"

static ir_module *parse_verified(const char *src)
{
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(src, strlen(src), "limits.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

static plumb_runtime *new_runtime(uint32_t threads, double timeout_s, uint64_t max_bytes)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = threads;
    o.timeout_s = timeout_s;
    o.max_bytes = max_bytes;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

/* ---- the deadline ------------------------------------------------------------ */

/* Every nested-region program stops with a timeout error once 50 ms have
 * passed, on one thread and on two (the pool's chunks check the deadline
 * too), instead of running for minutes. */
static void test_timeout_in_nested_regions(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 2; threads++) {
        for (int i = 0; i < LIMITS_N_PROGS; i++) {
            ir_module *m = parse_verified(limits_progs[i]);
            plumb_runtime *rt = new_runtime(threads, 0.05, 0);
            plumb_tensor *out = NULL;
            plumb_diag d = {.code = PLUMB_OK};
            bool ok = plumb_runtime_run(rt, m, NULL, NULL, 0, &out, 1, NULL, &d);
            plumb_tensor_free(out);
            fprintf(stderr, "  %u thread(s), %s: %s\n", threads, limits_prog_names[i], d.msg);
            assert_false(ok);
            assert_int_equal(d.code, PLUMB_ERR_RUNTIME);
            assert_non_null(strstr(d.msg, "timeout"));
            assert_non_null(strstr(d.msg, "0.05 s"));
            plumb_runtime_destroy(rt);
            ir_module_free(m);
        }
    }
}

/* The deadline is per run: a run that finishes well inside its limit
 * succeeds again and again (each run rearms it), and timeout_s = 0 means
 * none. @main: sum of iota(8) = 28. */
static void test_deadline_per_run(void **state)
{
    (void)state;
    ir_module *m = parse_verified("func.func @main() -> tensor<f32> {\n"
                                  "  %x = stablehlo.iota dim = 0 : tensor<8xf32>\n"
                                  "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                                  "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] "
                                  ": (tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
                                  "  return %r : tensor<f32>\n"
                                  "}\n");
    double limits[2] = {30.0, 0.0};
    for (int l = 0; l < 2; l++) {
        plumb_runtime *rt = new_runtime(2, limits[l], 0);
        for (int run = 0; run < 3; run++) {
            plumb_tensor *out = NULL;
            plumb_diag d = {.code = PLUMB_OK};
            bool ok = plumb_runtime_run(rt, m, NULL, NULL, 0, &out, 1, NULL, &d);
            if (!ok)
                plumb_diag_print(&d, stderr);
            assert_true(ok);
            assert_true(((const float *)out->data)[0] == 28.0f);
            plumb_tensor_free(out);
        }
        plumb_runtime_destroy(rt);
    }
    ir_module_free(m);
}

/* ---- memory ---------------------------------------------------------------------- */

/* An allocator that knows every live block's size: frees and resizes with
 * a size other than the one allocated are counted, and so is the peak of
 * live bytes. Failing allocation number fail_at (1-based) is optional. */
#define TRACK_SLOTS (1u << 20)

typedef struct tracker {
    void **ptr;
    size_t *size;
    size_t live, peak;
    long count, fail_at;
    long bad_sizes;
} tracker;

static size_t slot_of(const tracker *t, const void *p)
{
    size_t h = (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (TRACK_SLOTS - 1);
    while (t->ptr[h] && t->ptr[h] != p)
        h = (h + 1) & (TRACK_SLOTS - 1);
    return h;
}

/* Linear-probing delete: re-place the entries after the hole. */
static void slot_remove(tracker *t, size_t h)
{
    t->ptr[h] = NULL;
    for (size_t j = (h + 1) & (TRACK_SLOTS - 1); t->ptr[j]; j = (j + 1) & (TRACK_SLOTS - 1)) {
        void *p = t->ptr[j];
        size_t s = t->size[j];
        t->ptr[j] = NULL;
        size_t k = slot_of(t, p);
        t->ptr[k] = p;
        t->size[k] = s;
    }
}

static void *tracking_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    tracker *t = ud;
    if (ptr) {
        size_t h = slot_of(t, ptr);
        if (!t->ptr[h] || t->size[h] != osize)
            t->bad_sizes++;
    }
    if (nsize == 0) {
        if (ptr) {
            size_t h = slot_of(t, ptr);
            if (t->ptr[h]) {
                t->live -= t->size[h];
                slot_remove(t, h);
            }
            free(ptr);
        }
        return NULL;
    }
    if (t->fail_at && ++t->count == t->fail_at)
        return NULL;
    /* a resize is a new block, a copy and a free, so the table never
     * holds a pointer realloc may have released */
    void *np = malloc(nsize);
    if (!np)
        return NULL;
    size_t h = slot_of(t, np);
    t->ptr[h] = np;
    t->size[h] = nsize;
    t->live += nsize;
    if (t->live > t->peak)
        t->peak = t->live;
    if (ptr) {
        memcpy(np, ptr, osize < nsize ? osize : nsize);
        tracking_alloc(ud, ptr, osize, 0);
    }
    return np;
}

static void tracker_init(tracker *t)
{
    memset(t, 0, sizeof *t);
    t->ptr = calloc(TRACK_SLOTS, sizeof *t->ptr);
    t->size = calloc(TRACK_SLOTS, sizeof *t->size);
    assert_non_null(t->ptr);
    assert_non_null(t->size);
}

static void tracker_fini(tracker *t)
{
    free(t->ptr);
    free(t->size);
}

/* Generic reduces nested three deep: @main sums, over x = iota(1024),
 * mid(x) = sum over 64 copies of x of inner(x), where inner(e) folds 16
 * copies of e with max(g + h, g) from 0, which for e >= 0 is 16e. So
 * mid(x) = 64 * 16 * x = 1024x and the result is 1024 * (0 + ... + 1023)
 * = 1024 * 523776 = 536346624 = 2^10 * 2^8 * 2046.0, exact in f32 (every
 * partial sum is 1024 * k(k+1)/2 with k(k+1)/2 < 2^19: 20 significant bits
 * at most). The innermost reduce runs 65536 times. */
static const char nested_small[] =
    "func.func @main() -> tensor<f32> {\n"
    "  %x = stablehlo.iota dim = 0 : tensor<1024xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<1024xf32>, tensor<f32>) -> tensor<f32>\n"
    "   reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
    "    %hb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<64xf32>\n"
    "    %hz = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "    %w = stablehlo.reduce(%hb init: %hz) across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>\n"
    "     reducer(%hc: tensor<f32>, %he: tensor<f32>) {\n"
    "      %hcc = stablehlo.broadcast_in_dim %he, dims = [] : (tensor<f32>) -> tensor<16xf32>\n"
    "      %hz3 = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "      %hin = stablehlo.reduce(%hcc init: %hz3) across dimensions = [0] : (tensor<16xf32>, tensor<f32>) -> "
    "tensor<f32>\n"
    "       reducer(%hg: tensor<f32>, %hh: tensor<f32>) {\n"
    "        %hs = stablehlo.add %hg, %hh : tensor<f32>\n"
    "        %ht = stablehlo.maximum %hs, %hg : tensor<f32>\n"
    "        stablehlo.return %ht : tensor<f32>\n"
    "      }\n"
    "      %hs2 = stablehlo.add %hc, %hin : tensor<f32>\n"
    "      stablehlo.return %hs2 : tensor<f32>\n"
    "    }\n"
    "    %s = stablehlo.add %a, %w : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n"
    "  }\n"
    "  return %r : tensor<f32>\n"
    "}\n";

/* A generic reduce nested in a reducer body gives its scratch back after
 * each evaluation: the run's extra memory stays under 1 MiB although the
 * innermost kernel runs 65536 times (taking fresh scratch each time, it
 * needed about 25 MB), and the result is the hand-derived sum. */
static void test_nested_region_scratch_reused(void **state)
{
    (void)state;
    ir_module *m = parse_verified(nested_small);
    tracker t;
    tracker_init(&t);
    plumb_set_allocator(tracking_alloc, &t);
    plumb_runtime *rt = new_runtime(1, 0, 0);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
    if (!ex)
        plumb_diag_print(&d, stderr);
    assert_non_null(ex);
    size_t before = t.live;
    t.peak = t.live;
    plumb_tensor *out = NULL;
    bool ok = plumb_executable_run(ex, NULL, 0, &out, 1, NULL, &d);
    size_t extra = t.peak - before;
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    fprintf(stderr, "  run's peak extra memory: %zu bytes\n", extra);
    assert_true(((const float *)out->data)[0] == 536346624.0f);
    plumb_tensor_free(out);
    plumb_runtime_destroy(rt);
    plumb_set_allocator(NULL, NULL);
    assert_int_equal(t.bad_sizes, 0);
    assert_true(extra < ((size_t)1 << 20));
    tracker_fini(&t);
    ir_module_free(m);
}

/* The limit bounds a step's scratch as a whole, not only each request: the
 * integer dot of a 256x512 by a 512x256 i32 matrix packs both operands
 * (512 KiB each, plus padding) into scratch. With max_bytes = 600 KiB every
 * tensor fits (the largest is 512 KiB) but the packs together do not: a
 * limit error naming scratch, not a run over the limit. */
static void test_scratch_total_within_max_bytes(void **state)
{
    (void)state;
    ir_module *m = parse_verified("func.func @main() -> tensor<256x256xi32> {\n"
                                  "  %a = stablehlo.iota dim = 0 : tensor<256x512xi32>\n"
                                  "  %b = stablehlo.iota dim = 1 : tensor<512x256xi32>\n"
                                  "  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                                  "(tensor<256x512xi32>, tensor<512x256xi32>) -> tensor<256x256xi32>\n"
                                  "  return %c : tensor<256x256xi32>\n"
                                  "}\n");
    plumb_runtime *rt = new_runtime(1, 0, 600 * 1024);
    plumb_tensor *out = NULL;
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = plumb_runtime_run(rt, m, NULL, NULL, 0, &out, 1, NULL, &d);
    plumb_tensor_free(out);
    fprintf(stderr, "  %s\n", d.msg);
    assert_false(ok);
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "scratch"));
    plumb_runtime_destroy(rt);
    /* the same program within a limit that holds both packs runs; element
     * (i, j) = sum over k < 512 of i * j = 512 * i * j */
    rt = new_runtime(1, 0, 4u << 20);
    d = (plumb_diag){.code = PLUMB_OK};
    ok = plumb_runtime_run(rt, m, NULL, NULL, 0, &out, 1, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    const int32_t *c = out->data;
    assert_int_equal(c[3 * 256 + 5], 512 * 3 * 5);
    assert_int_equal(c[255 * 256 + 255], 512 * 255 * 255);
    plumb_tensor_free(out);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
}

/* Writes a module where @f0 calls @f1 twice, ..., @f(levels-1) calls @leaf
 * twice, and @main calls @f0: 2^levels call sites of @leaf once inlined. */
static char *call_tree(int levels)
{
    size_t cap = 4096 + (size_t)levels * 400, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    n += (size_t)snprintf(s + n, cap - n,
                          "func.func @leaf(%%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                          "  %%b = stablehlo.add %%a, %%a : tensor<4xf32>\n"
                          "  return %%b : tensor<4xf32>\n}\n");
    for (int i = levels - 1; i >= 0; i--) {
        char next[16];
        if (i == levels - 1)
            snprintf(next, sizeof next, "leaf");
        else
            snprintf(next, sizeof next, "f%d", i + 1);
        n += (size_t)snprintf(s + n, cap - n,
                              "func.func @f%d(%%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                              "  %%b = func.call @%s(%%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
                              "  %%c = func.call @%s(%%b) : (tensor<4xf32>) -> tensor<4xf32>\n"
                              "  return %%c : tensor<4xf32>\n}\n", i, next, next);
    }
    n += (size_t)snprintf(s + n, cap - n,
                          "func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                          "  %%b = func.call @f0(%%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
                          "  return %%b : tensor<4xf32>\n}\n");
    assert_true(n < cap);
    return s;
}

/* Inlining has a budget: 2^24 call sites in about 5 KB of text stop the
 * compile with a limit error naming the inlining (it used to copy until
 * gigabytes were taken), and so do 2^12 when max_bytes is too small for
 * the copy; the compile allocates far less than either would need. */
static void test_inlining_budget(void **state)
{
    (void)state;
    int levels[2] = {24, 12};
    uint64_t limits[2] = {0, 256 * 1024};
    for (int k = 0; k < 2; k++) {
        char *src = call_tree(levels[k]);
        ir_module *m = parse_verified(src);
        free(src);
        tracker t;
        tracker_init(&t);
        plumb_set_allocator(tracking_alloc, &t);
        plumb_runtime *rt = new_runtime(1, 0, limits[k]);
        plumb_diag d = {.code = PLUMB_OK};
        plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
        plumb_runtime_destroy(rt);
        plumb_set_allocator(NULL, NULL);
        fprintf(stderr, "  2^%d call sites: %s (peak %zu bytes)\n", levels[k], d.msg, t.peak);
        assert_null(ex);
        assert_int_equal(d.code, PLUMB_ERR_LIMIT);
        assert_non_null(strstr(d.msg, "inlin"));
        assert_int_equal(t.bad_sizes, 0);
        assert_true(t.peak < ((size_t)1 << 30));
        tracker_fini(&t);
        ir_module_free(m);
    }
}

/* Failing each allocation of a compile in turn (a program with 40 live
 * values, so the planner's buffer tables grow twice) ends in a clean error,
 * and every block is freed with the size it was allocated with: a table
 * grown before its twin's growth failed used to be freed with its old
 * size. */
static void test_compile_allocation_failures_free_sizes(void **state)
{
    (void)state;
    /* 40 iotas live to the end (all returned), each its own buffer */
    char src[16384];
    size_t n = 0;
    n += (size_t)snprintf(src + n, sizeof src - n, "func.func @main() -> (");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%stensor<%dxi32>", i ? ", " : "", i + 1);
    n += (size_t)snprintf(src + n, sizeof src - n, ") {\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "  %%v%d = stablehlo.iota dim = 0 : tensor<%dxi32>\n", i,
                              i + 1);
    n += (size_t)snprintf(src + n, sizeof src - n, "  return ");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%s%%v%d", i ? ", " : "", i);
    n += (size_t)snprintf(src + n, sizeof src - n, " : ");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%stensor<%dxi32>", i ? ", " : "", i + 1);
    n += (size_t)snprintf(src + n, sizeof src - n, "\n}\n");
    assert_true(n < sizeof src);
    ir_module *m = parse_verified(src);
    bool compiled = false;
    long fail_at;
    for (fail_at = 1; fail_at < 20000 && !compiled; fail_at++) {
        tracker t;
        tracker_init(&t);
        t.fail_at = fail_at;
        plumb_set_allocator(tracking_alloc, &t);
        plumb_diag d = {.code = PLUMB_OK};
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 1;
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        if (rt) {
            plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, &d);
            compiled = ex != NULL && t.count < fail_at;   /* no allocation was refused */
            if (!ex)
                assert_int_not_equal(d.code, PLUMB_OK);
            plumb_runtime_destroy(rt);
        }
        plumb_set_allocator(NULL, NULL);
        if (t.bad_sizes || t.live)
            fprintf(stderr, "  failing allocation %ld: %ld frees with a wrong size, %zu bytes left\n", fail_at,
                    t.bad_sizes, t.live);
        assert_int_equal(t.bad_sizes, 0);
        assert_int_equal(t.live, 0);
        tracker_fini(&t);
    }
    assert_true(compiled);
    assert_true(fail_at > 20);   /* the compile allocates: many failure points were hit */
    ir_module_free(m);
}

int main(void)
{
    /* A run that never checks its deadline would hang the suite: fail it. */
    alarm(300);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout_in_nested_regions),
        cmocka_unit_test(test_deadline_per_run),
        cmocka_unit_test(test_nested_region_scratch_reused),
        cmocka_unit_test(test_scratch_total_within_max_bytes),
        cmocka_unit_test(test_inlining_budget),
        cmocka_unit_test(test_compile_allocation_failures_free_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
