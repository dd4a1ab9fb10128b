/* Host tensors: shape arithmetic, limits, allocation, clone and equality. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/tensor.h"

static void expect_shape_error(plumb_dtype t, uint32_t rank, const int64_t *dims,
                               uint64_t max, plumb_code code, const char *frag)
{
    plumb_diag d = {0};
    uint64_t n = 77, b = 77;
    assert_false(plumb_shape_size(t, rank, dims, max, &n, &b, &d));
    assert_int_equal(d.code, code);
    if (!strstr(d.msg, frag))
        fail_msg("message '%s' lacks '%s'", d.msg, frag);
    assert_int_equal(n, 77);   /* outputs untouched on error */
}

/* Element count and byte size of ordinary shapes. */
static void test_shape_size(void **state)
{
    (void)state;
    plumb_diag d = {0};
    int64_t dims[3] = {2, 3, 4};
    uint64_t n, b;
    assert_true(plumb_shape_size(PLUMB_F32, 3, dims, 0, &n, &b, &d));
    assert_int_equal(n, 24);
    assert_int_equal(b, 96);
    assert_true(plumb_shape_size(PLUMB_I1, 0, NULL, 0, &n, &b, &d));
    assert_int_equal(n, 1);
    assert_int_equal(b, 1);
    /* A zero dimension makes the tensor empty even next to huge ones whose
     * product alone would overflow. */
    int64_t z[3] = {INT64_MAX, 0, INT64_MAX};
    assert_true(plumb_shape_size(PLUMB_F64, 3, z, 0, &n, &b, &d));
    assert_int_equal(n, 0);
    assert_int_equal(b, 0);
}

/* Negative sizes, overflow of the count or the byte size, the rank limit and
 * the byte limit are errors naming what is wrong. */
static void test_shape_errors(void **state)
{
    (void)state;
    int64_t neg[2] = {3, -1};
    expect_shape_error(PLUMB_F32, 2, neg, 0, PLUMB_ERR_INVALID, "dimension 1 has negative size -1");
    int64_t big[3] = {1ll << 32, 1ll << 32, 2};
    expect_shape_error(PLUMB_I8, 3, big, UINT64_MAX, PLUMB_ERR_LIMIT, "overflows 64 bits at dimension 1");
    int64_t bytes[1] = {1ll << 62};
    expect_shape_error(PLUMB_F64, 1, bytes, UINT64_MAX, PLUMB_ERR_LIMIT, "overflows 64 bits");
    int64_t r[PLUMB_MAX_RANK + 1];
    for (int i = 0; i < PLUMB_MAX_RANK + 1; i++)
        r[i] = 1;
    expect_shape_error(PLUMB_F32, PLUMB_MAX_RANK + 1, r, 0, PLUMB_ERR_LIMIT, "exceeds the maximum rank");
    int64_t k[1] = {1024};
    expect_shape_error(PLUMB_F32, 1, k, 4095, PLUMB_ERR_LIMIT, "4096 bytes exceeds the limit of 4095");
    plumb_diag d = {0};
    assert_true(plumb_shape_size(PLUMB_F32, 1, k, 4096, NULL, NULL, &d));
    /* The default limit is 16 GiB: 2^32 f32 elements is exactly that. */
    int64_t g[1] = {1ll << 32};
    assert_true(plumb_shape_size(PLUMB_F32, 1, g, 0, NULL, NULL, &d));
    int64_t g2[1] = {(1ll << 32) + 1};
    expect_shape_error(PLUMB_F32, 1, g2, 0, PLUMB_ERR_LIMIT, "exceeds the limit of 17179869184");
}

/* PLUMB_MAX_BYTES in the environment replaces the default limit. */
static void test_env_limit(void **state)
{
    (void)state;
    int64_t k[1] = {25};
    plumb_diag d = {0};
    setenv("PLUMB_MAX_BYTES", "100", 1);
    assert_true(plumb_shape_size(PLUMB_F32, 1, k, 0, NULL, NULL, &d));
    k[0] = 26;
    expect_shape_error(PLUMB_F32, 1, k, 0, PLUMB_ERR_LIMIT, "limit of 100 bytes");
    /* An explicit limit wins over the environment. */
    assert_true(plumb_shape_size(PLUMB_F32, 1, k, 104, NULL, NULL, &d));
    setenv("PLUMB_MAX_BYTES", "junk", 1);
    assert_true(plumb_shape_size(PLUMB_F32, 1, k, 0, NULL, NULL, &d));
    unsetenv("PLUMB_MAX_BYTES");
}

/* New tensors are zero-filled; clones are equal; equality sees type, shape
 * and every payload bit. */
static void test_new_clone_equal(void **state)
{
    (void)state;
    plumb_diag d = {0};
    int64_t dims[2] = {2, 3};
    plumb_tensor *a = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_non_null(a);
    assert_int_equal(a->nbytes, 24);
    assert_int_equal(plumb_tensor_numel(a), 6);
    for (size_t i = 0; i < 24; i++)
        assert_int_equal(((unsigned char *)a->data)[i], 0);
    plumb_store_bits(PLUMB_F32, a->data, 4, 0x7FC00001);
    plumb_tensor *b = plumb_tensor_clone(a, &d);
    assert_non_null(b);
    assert_ptr_not_equal(a->data, b->data);
    assert_true(plumb_tensor_equal(a, b));
    plumb_store_bits(PLUMB_F32, b->data, 4, 0x7FC00000);
    assert_false(plumb_tensor_equal(a, b));
    int64_t t3[2] = {3, 2};
    plumb_tensor *c = plumb_tensor_new(PLUMB_F32, 2, t3, 0, &d);
    plumb_tensor *e = plumb_tensor_new(PLUMB_I32, 2, dims, 0, &d);
    plumb_tensor *f = plumb_tensor_new(PLUMB_F32, 2, dims, 0, &d);
    assert_false(plumb_tensor_equal(c, f));   /* same size, other shape */
    assert_false(plumb_tensor_equal(e, f));   /* same size, other type */
    plumb_tensor_free(a);
    plumb_tensor_free(b);
    plumb_tensor_free(c);
    plumb_tensor_free(e);
    plumb_tensor_free(f);
    int64_t zero[1] = {0};
    plumb_tensor *z = plumb_tensor_new(PLUMB_I8, 1, zero, 0, &d);
    assert_non_null(z);
    assert_null(z->data);
    plumb_tensor *z2 = plumb_tensor_clone(z, &d);
    assert_true(plumb_tensor_equal(z, z2));
    plumb_tensor_free(z);
    plumb_tensor_free(z2);
    plumb_tensor_free(NULL);
    assert_int_equal(d.code, PLUMB_OK);
}

/* Type spelling as StableHLO writes it. */
static void test_type_print(void **state)
{
    (void)state;
    plumb_diag d = {0};
    int64_t dims[2] = {2, 3};
    struct { plumb_dtype t; uint32_t rank; const char *want; } cases[] = {
        {PLUMB_F32, 2, "tensor<2x3xf32>"},
        {PLUMB_BF16, 0, "tensor<bf16>"},
        {PLUMB_UI64, 1, "tensor<2xui64>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plumb_tensor *t = plumb_tensor_new(cases[i].t, cases[i].rank, dims, 0, &d);
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_tensor_type_print(&b, t);
        assert_string_equal(b.data, cases[i].want);
        plumb_buf_free(&b);
        plumb_tensor_free(t);
    }
}

static int fail_at;   /* allocation number that fails (1-based); 0 = none */
static int alloc_count;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (++alloc_count == fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

/* An allocation failure at any point is an error, with nothing leaked. */
static void test_alloc_failure(void **state)
{
    (void)state;
    plumb_alloc_fn old;
    void *old_ud;
    plumb_get_allocator(&old, &old_ud);
    plumb_set_allocator(failing_alloc, NULL);
    int64_t dims[1] = {10};
    for (fail_at = 1; fail_at <= 2; fail_at++) {
        alloc_count = 0;
        plumb_diag d = {0};
        assert_null(plumb_tensor_new(PLUMB_F64, 1, dims, 0, &d));
        assert_int_equal(d.code, PLUMB_ERR_NOMEM);
    }
    fail_at = 0;
    plumb_set_allocator(old, old_ud);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_size),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_env_limit),
        cmocka_unit_test(test_new_clone_equal),
        cmocka_unit_test(test_type_print),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
