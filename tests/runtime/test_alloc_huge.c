/* Large blocks on huge pages (ir/core.c, the default allocator): where the
 * system has madvise(MADV_HUGEPAGE), the whole 2 MiB pages inside a fresh
 * block of at least 4 MiB are advised for transparent huge pages. The
 * tests check what that must and must not change: tensor data and the
 * runtime's planned buffers of that size carry the advice from their first
 * 2 MiB boundary to their last, new tensors are still all zero, a compile
 * still leaves its buffers untouched, a hook set by plumb_set_allocator is
 * still called with the exact sizes of the protocol, and a failed large
 * allocation is still a clean PLUMB_ERR_NOMEM. Sizes are odd (not multiples of 2 MiB or of a
 * vector) and just at the threshold; the expected values are derived by
 * hand in each comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"
#include "plumb/tensor.h"

/* ir/core.c's PLUMB_HUGE_PAGE and PLUMB_HUGE_MIN */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

/* AddressSanitizer fills the first bytes of every block it hands out, so a
 * fresh block has a resident page under it. */
#if defined(__SANITIZE_ADDRESS__)
#define FILLS_NEW_BLOCKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FILLS_NEW_BLOCKS 1
#endif
#endif
#ifndef FILLS_NEW_BLOCKS
#define FILLS_NEW_BLOCKS 0
#endif

/* 1023 x 2049 f32: 8 384 508 bytes, 4 x 2 MiB less 4 100 bytes. */
#define R 1023
#define C 2049
#define BIG_BYTES ((size_t)R * C * 4)

/* ---- a hook that records what it is asked -------------------------------- */

static plumb_alloc_fn base_fn;      /* the default allocator, or NULL: malloc */
static void *base_ud;
static size_t fail_min = SIZE_MAX;  /* fresh requests of at least this fail */
static long long outstanding;       /* bytes handed out and not freed */
static bool compiling;

#define MAX_REC 64
typedef struct rec {
    void *p;
    size_t size;
    bool at_compile;
    bool freed_with_size;   /* the free passed the allocation's size */
} rec;
static rec recs[MAX_REC];
static int n_recs;

static rec *find_rec(const void *p)
{
    for (int i = 0; i < n_recs; i++)
        if (recs[i].p == p) return &recs[i];
    return NULL;
}

static void *rec_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (ptr && nsize == 0) {
        rec *r = find_rec(ptr);
        if (r) {
            r->freed_with_size = osize == r->size;
            r->p = NULL;
        }
        outstanding -= (long long)osize;
    } else if (!ptr && nsize >= fail_min) {
        return NULL;
    }
    void *q = base_fn ? base_fn(base_ud, ptr, osize, nsize)
            : nsize == 0 ? (free(ptr), NULL)
            : realloc(ptr, nsize);
    if (nsize && q) {
        outstanding += (long long)nsize - (long long)(ptr ? osize : 0);
        if (!ptr && nsize >= HUGE_MIN && n_recs < MAX_REC)
            recs[n_recs++] = (rec){q, nsize, compiling, false};
    }
    return q;
}

/* Installs rec_alloc over the default allocator (over_default) or over
 * plain malloc/realloc/free (a user's allocator). */
static void hook(bool over_default, size_t fail_from)
{
    plumb_alloc_fn def;
    void *def_ud;
    plumb_set_allocator(NULL, NULL);
    plumb_get_allocator(&def, &def_ud);
    base_fn = over_default ? def : NULL;
    base_ud = over_default ? def_ud : NULL;
    fail_min = fail_from;
    outstanding = 0;
    n_recs = 0;
    memset(recs, 0, sizeof recs);
    plumb_set_allocator(rec_alloc, NULL);
}

static void unhook(void) { plumb_set_allocator(NULL, NULL); }

/* ---- what the system says about a block ---------------------------------- */


/* Resident pages of [p, p + n), from the first page boundary in it: the
 * page the block starts in also holds the C library's header of it. */
static size_t resident_pages(const void *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1);
    size_t np = ((uintptr_t)p + n - lo) / pg;
    unsigned char *vec = malloc(np);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)lo, np * pg, vec), 0);
    size_t r = 0;
    for (size_t k = 0; k < np; k++) r += vec[k] & 1;
    free(vec);
    return r;
}

/* Whether this system accepts the advice at all: a kernel without
 * transparent huge pages (or another system) refuses it, and the
 * allocator then silently leaves ordinary pages. */
static bool thp_advice_supported(void)
{
#if defined(MADV_HUGEPAGE) && defined(__linux__)
    void *m = mmap(NULL, HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    bool ok = madvise(m, HUGE_PAGE, MADV_HUGEPAGE) == 0;
    munmap(m, HUGE_PAGE);
    return ok;
#else
    return false;
#endif
}

/* Linux: whether the mapping holding p carries the huge-page advice (the
 * "hg" flag of its VmFlags line in /proc/self/smaps). */
static bool advised_at(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return false;
    char line[512];
    bool in = false, hg = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            hg = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return hg;
}

/* Whether block [p, p + n) is advised from its first 2 MiB boundary to its
 * last: the mapping at each whole 2 MiB page inside it says so (n is at
 * least 4 MiB, so there is at least one). */
static bool advised_huge(const void *p, size_t n)
{
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
    assert_true(hi > lo);
    for (uintptr_t a = lo; a < hi; a += HUGE_PAGE)
        if (!advised_at((const void *)a)) return false;
    return true;
}

static ir_module *parse(const char *src)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(src, strlen(src), "t", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) plumb_diag_print(&d, stderr);
    assert_non_null(m);
    return m;
}

/* (x + y) * y, then + x: the sum and the product are intermediates of
 * BIG_BYTES each, so planned buffers that size exist (unless the passes
 * fuse everything into one loop; the test then still checks the results). */
static const char *prog =
    "func.func @main(%x: tensor<1023x2049xf32>, %y: tensor<1023x2049xf32>) -> tensor<1023x2049xf32> {\n"
    "  %s = stablehlo.add %x, %y : tensor<1023x2049xf32>\n"
    "  %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<1023x2049xf32>) -> tensor<2049x1023xf32>\n"
    "  %u = stablehlo.transpose %t, dims = [1, 0] : (tensor<2049x1023xf32>) -> tensor<1023x2049xf32>\n"
    "  %p = stablehlo.multiply %u, %y : tensor<1023x2049xf32>\n"
    "  %r = stablehlo.add %p, %x : tensor<1023x2049xf32>\n"
    "  func.return %r : tensor<1023x2049xf32>\n}\n";

/* x[i] = i mod 13, y[i] = (i mod 7) / 4: (x + y) * y + x is exact in f32
 * (at most 14.5 * 1.5 + 12, multiples of 1/16). */
static void fill_inputs(plumb_tensor *x, plumb_tensor *y)
{
    float *xv = x->data, *yv = y->data;
    for (size_t i = 0; i < (size_t)R * C; i++) {
        xv[i] = (float)(i % 13);
        yv[i] = (float)(i % 7) * 0.25f;
    }
}

static void check_result(const plumb_tensor *r)
{
    assert_int_equal(r->nbytes, BIG_BYTES);
    const float *v = r->data;
    for (size_t i = 0; i < (size_t)R * C; i++) {
        float x = (float)(i % 13), y = (float)(i % 7) * 0.25f;
        if (v[i] != (x + y) * y + x) fail_msg("element %zu: %g, want %g", i, (double)v[i], (double)((x + y) * y + x));
    }
}

/* The runtime's planned buffers at the size, through the default allocator
 * (recorded on the way): advised where advice works, not touched by the
 * compile; the run (1 and 2 threads) computes the values derived above,
 * and its result tensor is advised too. Runs first, while the C library
 * still maps large blocks fresh (after a large free it may reuse heap
 * pages, which are resident). */
static void test_planned_buffers(void **state)
{
    (void)state;
    bool advice = thp_advice_supported();
    for (uint32_t threads = 1; threads <= 2; threads++) {
        hook(true, SIZE_MAX);
        ir_module *m = parse(prog);
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = threads;
        plumb_diag d;
        memset(&d, 0, sizeof d);
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        assert_non_null(rt);
        compiling = true;
        plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
        compiling = false;
        if (!ex) plumb_diag_print(&d, stderr);
        assert_non_null(ex);
        int n_compile = 0;
        for (int i = 0; i < n_recs; i++) {
            if (!recs[i].p || !recs[i].at_compile) continue;
            n_compile++;
            if (advice) assert_true(advised_huge(recs[i].p, recs[i].size));
            if (threads == 1 && !FILLS_NEW_BLOCKS) assert_int_equal(resident_pages(recs[i].p, recs[i].size), 0);
        }
        int64_t dims[2] = {R, C};
        plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d), plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d)};
        assert_non_null(in[0]);
        assert_non_null(in[1]);
        fill_inputs(in[0], in[1]);
        plumb_tensor *out = NULL;
        bool ok = plumb_executable_run(ex, in, 2, &out, 1, NULL, &d);
        if (!ok) plumb_diag_print(&d, stderr);
        assert_true(ok);
        check_result(out);
        if (advice) assert_true(advised_huge(out->data, out->nbytes));
        fprintf(stderr, "%u thread(s): %d large blocks at compile\n", threads, n_compile);
        plumb_tensor_free(out);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        plumb_runtime_destroy(rt);
        ir_module_free(m);
        unhook();
        assert_true(n_compile >= 1);
        for (int i = 0; i < n_recs; i++) assert_null(recs[i].p);   /* every large block freed */
    }
}

/* Tensors from plumb_tensor_new with the default allocator: just below the
 * threshold, at it, and an odd size above it. Every byte is zero; the
 * large ones are advised; a clone is advised and equal;
 * plumb_tensor_free releases them (ASan's leak check would say otherwise). */
static void test_tensor_data(void **state)
{
    (void)state;
    bool advice = thp_advice_supported();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t below[1] = {(int64_t)HUGE_MIN - 1}, at[1] = {(int64_t)HUGE_MIN}, odd[2] = {R, C};
    plumb_tensor *a = plumb_tensor_new(PLUMB_UI8, 1, below, 0, &d);
    plumb_tensor *b = plumb_tensor_new(PLUMB_UI8, 1, at, 0, &d);
    plumb_tensor *c = plumb_tensor_new(PLUMB_F32, 2, odd, 0, &d);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    if (advice) {
        assert_true(advised_huge(b->data, b->nbytes));
        assert_true(advised_huge(c->data, c->nbytes));
    }
    plumb_tensor *t[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        const unsigned char *p = t[k]->data;
        for (size_t i = 0; i < t[k]->nbytes; i++)
            if (p[i]) fail_msg("tensor %d byte %zu is %u, not 0", k, i, p[i]);
    }
    unsigned char *p = c->data;
    for (size_t i = 0; i < c->nbytes; i++) p[i] = (unsigned char)(i * 131u + 7u);
    plumb_tensor *cc = plumb_tensor_clone(c, &d);
    assert_non_null(cc);
    if (advice) assert_true(advised_huge(cc->data, cc->nbytes));
    assert_int_equal(cc->nbytes, BIG_BYTES);
    assert_memory_equal(cc->data, c->data, BIG_BYTES);
    for (int k = 0; k < 3; k++) plumb_tensor_free(t[k]);
    plumb_tensor_free(cc);
}

/* A hook of the user's (plain malloc) is called with the
 * protocol's sizes: the tensor's data is allocated at exactly nbytes and
 * freed with nbytes, and plumb uses the pointer the hook returned. */
static void test_user_allocator_sizes(void **state)
{
    (void)state;
    hook(false, SIZE_MAX);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[2] = {R, C};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(t);
    assert_int_equal(n_recs, 1);
    assert_ptr_equal(recs[0].p, t->data);
    assert_int_equal(recs[0].size, BIG_BYTES);
    plumb_tensor_free(t);
    assert_null(recs[0].p);
    assert_true(recs[0].freed_with_size);
    assert_int_equal(outstanding, 0);
    unhook();
}

/* A large allocation that fails (every request of at least the threshold,
 * through the default allocator otherwise) is a clean PLUMB_ERR_NOMEM:
 * for plumb_tensor_new, naming the bytes, with the header it had already
 * allocated freed; for a compile whose planned buffers are that large,
 * naming the planned buffer. Nothing is left allocated afterwards. */
static void test_large_failure(void **state)
{
    (void)state;
    hook(true, HUGE_MIN);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[2] = {R, C};
    assert_null(plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_NOMEM);
    assert_non_null(strstr(d.msg, "8384508 bytes of tensor data"));
    assert_int_equal(outstanding, 0);

    ir_module *m = parse(prog);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_null(plumb_runtime_compile(rt, m, "main", &d));
    assert_int_equal(d.code, PLUMB_ERR_NOMEM);
    if (!strstr(d.msg, "planned buffer")) fail_msg("message '%s'", d.msg);
    plumb_runtime_destroy(rt);
    ir_module_free(m);
    assert_int_equal(outstanding, 0);
    unhook();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planned_buffers),
        cmocka_unit_test(test_tensor_data),
        cmocka_unit_test(test_user_allocator_sizes),
        cmocka_unit_test(test_large_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
