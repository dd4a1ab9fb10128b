/* Tests of the shared core: allocator hook, arenas, diagnostics, buffers,
 * overflow-checked arithmetic and the op/dtype tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/core.h"
#include "plumb/dtype.h"
#include "plumb/ops.h"

/* An allocator that fails the n-th allocation (counting from 1). */
static int fail_at;
static int alloc_count;
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

/* Arena allocations are zeroed, 16-byte aligned, and survive many chunks. */
static void test_arena_alignment_and_zeroing(void **state)
{
    (void)state;
    plumb_arena *a = plumb_arena_new(128);
    assert_non_null(a);
    for (int i = 1; i < 500; i++) {
        unsigned char *p = plumb_arena_alloc(a, (size_t)i);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (int j = 0; j < i; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xAB, (size_t)i);
    }
    /* A block larger than the chunk size is served too. */
    assert_non_null(plumb_arena_alloc(a, 10000));
    plumb_arena_free(a);
}

/* Array allocation refuses counts whose byte size overflows. */
static void test_arena_array_overflow(void **state)
{
    (void)state;
    plumb_arena *a = plumb_arena_new(0);
    assert_null(plumb_arena_array(a, SIZE_MAX / 2, 4));
    assert_null(plumb_arena_alloc(a, SIZE_MAX - 8));
    assert_non_null(plumb_arena_array(a, 10, 8));
    plumb_arena_free(a);
}

/* A failing allocation surfaces as NULL from every entry point, no abort. */
static void test_allocation_failure_injection(void **state)
{
    (void)state;
    plumb_set_allocator(failing_alloc, NULL);
    alloc_count = 0;
    fail_at = 1;
    assert_null(plumb_arena_new(0));
    alloc_count = 0;
    fail_at = 2;
    plumb_arena *a = plumb_arena_new(64);
    assert_non_null(a);
    assert_null(plumb_arena_alloc(a, 8)); /* the first chunk is allocation 2 */
    plumb_arena_free(a);
    alloc_count = 0;
    fail_at = 1;
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "hello");
    assert_true(b.failed);
    assert_null(plumb_buf_take(&b, NULL));
    plumb_set_allocator(NULL, NULL);
}

/* The diagnostic keeps the first error (the root cause) and prints
 * FILE:LINE:COL: error: message. */
static void test_diag_first_error_wins_and_format(void **state)
{
    (void)state;
    plumb_diag d = {0};
    d.file = "x.mlir";
    plumb_loc l1 = {3, 7}, l2 = {9, 1};
    plumb_diag_set(&d, PLUMB_ERR_PARSE, l1, "expected '%s'", ":");
    plumb_diag_set(&d, PLUMB_ERR_INVALID, l2, "later");
    assert_int_equal(d.code, PLUMB_ERR_PARSE);
    assert_string_equal(d.msg, "expected ':'");
    char out[256] = {0};
    FILE *f = fmemopen(out, sizeof out, "w");
    plumb_diag_print(&d, f);
    fclose(f);
    assert_string_equal(out, "x.mlir:3:7: error: expected ':'\n");
}

/* Messages are one line: embedded newlines are folded. */
static void test_diag_is_one_line(void **state)
{
    (void)state;
    plumb_diag d = {0};
    plumb_loc l = {1, 1};
    plumb_diag_set(&d, PLUMB_ERR_PARSE, l, "a\nb\rc");
    assert_string_equal(d.msg, "a b c");
}

/* The buffer grows across its small-format path and keeps exact contents. */
static void test_buf_growth(void **state)
{
    (void)state;
    plumb_buf b;
    plumb_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        plumb_buf_printf(&b, "%d,", i % 10);
    char big[600];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    plumb_buf_printf(&b, "%s", big);
    size_t len;
    char *s = plumb_buf_take(&b, &len);
    assert_int_equal(len, 2000 + 599);
    assert_int_equal(s[0], '0');
    assert_int_equal(s[1999], ',');
    assert_int_equal(s[2000], 'z');
    assert_int_equal(s[len], '\0');
    plumb_free(s, len + 1);
}

/* Overflow checks agree with hand-picked boundaries. */
static void test_overflow_helpers(void **state)
{
    (void)state;
    uint64_t r;
    assert_false(plumb_mul_overflow_u64(1ull << 32, (1ull << 32) - 1, &r));
    assert_true(plumb_mul_overflow_u64(1ull << 32, 1ull << 32, &r));
    assert_false(plumb_add_overflow_u64(UINT64_MAX - 1, 1, &r));
    assert_true(plumb_add_overflow_u64(UINT64_MAX, 1, &r));
}

/* Every op is found by its full name; stablehlo/func ops by their bare name,
 * and `return` is func.return (stablehlo.return needs its prefix). */
static void test_op_lookup(void **state)
{
    (void)state;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        plumb_opcode op;
        const char *n = plumb_op_table[i].name;
        assert_true(plumb_op_lookup(n, strlen(n), &op));
        assert_int_equal(op, i);
    }
    plumb_opcode op;
    assert_true(plumb_op_lookup("add", 3, &op));
    assert_int_equal(op, PLUMB_OP_ADD);
    assert_true(plumb_op_lookup("return", 6, &op));
    assert_int_equal(op, PLUMB_OP_FUNC_RETURN);
    assert_true(plumb_op_lookup("call", 4, &op));
    assert_int_equal(op, PLUMB_OP_CALL);
    assert_false(plumb_op_lookup("erf", 3, &op)); /* chlo ops keep their prefix */
    assert_string_equal(plumb_op_short_name(PLUMB_OP_ADD), "add");
    assert_string_equal(plumb_op_short_name(PLUMB_OP_ERF), "erf");
    assert_string_equal(plumb_op_short_name(PLUMB_OP_EXPECT_CLOSE), "expect_close");
    assert_false(plumb_op_lookup("stablehlo.while", 15, &op));
    assert_false(plumb_op_lookup("stablehlo.ad", 12, &op));
}

/* The op table states the numerics contract's strict bounds (DESIGN.md). */
static void test_op_table_bounds(void **state)
{
    (void)state;
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_EXPONENTIAL, PLUMB_F32), 1);
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_TANH, PLUMB_F32), 2);
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_LOGISTIC, PLUMB_F32), 2);
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_ATAN2, PLUMB_F32), 2);
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_TANH, PLUMB_BF16), 1);
    assert_int_equal(plumb_op_ulp_bound(PLUMB_OP_ADD, PLUMB_F32), 0);
    assert_int_equal(plumb_op_table[PLUMB_OP_ADD].agree, PLUMB_AGREE_EXACT);
    assert_int_equal(plumb_op_table[PLUMB_OP_REDUCE].agree, PLUMB_AGREE_DATA);
    assert_int_equal(plumb_op_table[PLUMB_OP_DOT_GENERAL].agree, PLUMB_AGREE_DATA);
    /* Every op has a name with a dialect prefix and a sane arity. */
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        assert_non_null(strchr(plumb_op_table[i].name, '.'));
        assert_true(plumb_op_table[i].arity >= PLUMB_VAR && plumb_op_table[i].arity <= 3);
        assert_true(plumb_op_table[i].types != 0);
    }
}

/* dtype spellings parse back to themselves; sizes match the spec. */
static void test_dtype_table(void **state)
{
    (void)state;
    static const struct { const char *s; size_t bytes; } want[] = {
        {"i1", 1}, {"i8", 1}, {"i16", 2}, {"i32", 4}, {"i64", 8}, {"ui8", 1}, {"ui16", 2},
        {"ui32", 4}, {"ui64", 8}, {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        plumb_dtype t;
        assert_true(plumb_dtype_parse(want[i].s, strlen(want[i].s), &t));
        assert_int_equal(plumb_dtype_size(t), want[i].bytes);
        assert_string_equal(plumb_dtype_name(t), want[i].s);
    }
    plumb_dtype t;
    assert_false(plumb_dtype_parse("f8E4M3FN", 8, &t));
    assert_false(plumb_dtype_parse("i", 1, &t));
}

/* Generic element access sign-extends signed types and decodes floats. */
static void test_element_access(void **state)
{
    (void)state;
    int8_t i8[2] = {-1, 5};
    assert_int_equal(plumb_load_i64(PLUMB_I8, i8, 0), -1);
    assert_int_equal(plumb_load_u64(PLUMB_UI8, i8, 0), 255);
    uint16_t h[1] = {0x3C00}; /* f16 1.0 */
    assert_true(plumb_load_f64(PLUMB_F16, h, 0) == 1.0);
    uint16_t bf[1] = {0xC000}; /* bf16 -2.0 */
    assert_true(plumb_load_f64(PLUMB_BF16, bf, 0) == -2.0);
    uint64_t w[1];
    plumb_store_bits(PLUMB_F64, w, 0, 0x3FF8000000000000ull);
    assert_true(plumb_load_f64(PLUMB_F64, w, 0) == 1.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_alignment_and_zeroing),
        cmocka_unit_test(test_arena_array_overflow),
        cmocka_unit_test(test_allocation_failure_injection),
        cmocka_unit_test(test_diag_first_error_wins_and_format),
        cmocka_unit_test(test_diag_is_one_line),
        cmocka_unit_test(test_buf_growth),
        cmocka_unit_test(test_overflow_helpers),
        cmocka_unit_test(test_op_lookup),
        cmocka_unit_test(test_op_table_bounds),
        cmocka_unit_test(test_dtype_table),
        cmocka_unit_test(test_element_access),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
