/* Tensor files: binary and text round trips, the exact binary layout, every
 * corruption giving its own error, and no crash on any truncation or byte
 * flip. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>

#include "plumb/tensor.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/plumb_tensorfile_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(dp))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (remove(p) != 0)
                rmdir(p);
        }
        closedir(dp);
    }
    rmdir(dir);
    return 0;
}

static uint64_t rng_state = 0x13198A2E03707344ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static plumb_tensor *random_tensor(plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, rank, dims, 0, &d);
    assert_non_null(x);
    const plumb_dtype_info *info = plumb_dtype_get(t);
    size_t n = x->nbytes / info->bytes;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        if (t == PLUMB_I1)
            r &= 1;
        plumb_store_bits(t, x->data, i, r);
    }
    return x;
}

static void path_of(char *out, size_t n, const char *file)
{
    snprintf(out, n, "%s/%s", dir, file);
}

static int count_files(void)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (e->d_name[0] != '.')
            n++;
    closedir(dp);
    return n;
}

/* Every element type and several shapes (rank 0, empty, rank 3) survive save
 * and load, in both forms, through files and through memory. */
static void test_roundtrip(void **state)
{
    (void)state;
    int64_t shapes[4][3] = {{0}, {7}, {2, 0, 3}, {2, 3, 5}};
    uint32_t ranks[4] = {0, 1, 3, 3};
    char p[300];
    path_of(p, sizeof p, "t.tns");
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        for (int s = 0; s < 4; s++) {
            plumb_tensor *x = random_tensor((plumb_dtype)t, ranks[s], shapes[s]);
            for (int text = 0; text < 2; text++) {
                plumb_diag d = {0};
                if (!plumb_tensor_save(p, x, text, &d))
                    fail_msg("save %s: %s", plumb_dtype_name((plumb_dtype)t), d.msg);
                plumb_tensor *y = plumb_tensor_load(p, 0, &d);
                if (!y)
                    fail_msg("load %s text=%d: %s", plumb_dtype_name((plumb_dtype)t), text, d.msg);
                assert_true(plumb_tensor_equal(x, y));
                plumb_tensor_free(y);
            }
            plumb_diag d = {0};
            size_t len;
            void *buf = plumb_tensor_serialize(x, &len, &d);
            assert_non_null(buf);
            plumb_tensor *y = plumb_tensor_load_mem(buf, len, "mem", 0, &d);
            assert_non_null(y);
            assert_true(plumb_tensor_equal(x, y));
            plumb_tensor_free(y);
            plumb_free(buf, len);
            plumb_tensor_free(x);
        }
    }
    assert_int_equal(count_files(), 1);   /* no temporary files left behind */
}

/* The binary layout, byte by byte, as documented. */
static void test_binary_layout(void **state)
{
    (void)state;
    plumb_diag d = {0};
    int64_t n = 2;
    plumb_tensor *x = plumb_tensor_new(PLUMB_I32, 1, &n, 0, &d);
    plumb_store_bits(PLUMB_I32, x->data, 0, 1);
    plumb_store_bits(PLUMB_I32, x->data, 1, 0x80000000u);
    size_t len;
    unsigned char *b = plumb_tensor_serialize(x, &len, &d);
    assert_non_null(b);
    static const unsigned char want[] = {
        'P', 'L', 'U', 'M', 'B', 'T', 'N', 'S',
        1, 0, 0, 0,         /* version */
        3, 0, 0, 0,         /* i32 is row 3 of ir/dtypes.def */
        1, 0, 0, 0,         /* rank */
        0, 0, 0, 0,         /* reserved */
        2, 0, 0, 0, 0, 0, 0, 0,   /* dims[0] */
        8, 0, 0, 0, 0, 0, 0, 0,   /* payload bytes */
        1, 0, 0, 0, 0, 0, 0, 0x80,
    };
    assert_int_equal(len, sizeof want + 8);
    assert_memory_equal(b, want, sizeof want);
    uint64_t h = XXH3_64bits(want, sizeof want);
    for (int i = 0; i < 8; i++)
        assert_int_equal(b[sizeof want + i], (unsigned char)(h >> (8 * i)));
    plumb_free(b, len);
    plumb_tensor_free(x);
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void reseal(unsigned char *b, size_t len)
{
    wr64(b + len - 8, XXH3_64bits(b, len - 8));
}

static void expect_load_error(const unsigned char *b, size_t len, uint64_t max, plumb_code code,
                              const char *frag)
{
    plumb_diag d = {0};
    plumb_tensor *t = plumb_tensor_load_mem(b, len, "x.tns", max, &d);
    if (t)
        fail_msg("corrupt file loaded (expected '%s')", frag);
    if (d.code != code)
        fail_msg("code %s, expected %s: %s", plumb_code_name(d.code), plumb_code_name(code), d.msg);
    if (!strstr(d.msg, frag) || !strstr(d.msg, "'x.tns'"))
        fail_msg("message '%s' lacks '%s' or the file name", d.msg, frag);
}

/* A valid f32 [2,3] file to corrupt: header 48 bytes (dims at 24 and 32,
 * payload size at 40), payload 24, checksum 8 at byte 72. */
static unsigned char *valid_file(size_t *len)
{
    int64_t dims[2] = {2, 3};
    plumb_tensor *x = random_tensor(PLUMB_F32, 2, dims);
    plumb_diag d = {0};
    unsigned char *b = plumb_tensor_serialize(x, len, &d);
    assert_non_null(b);
    assert_int_equal(*len, 48 + 24 + 8);
    plumb_tensor_free(x);
    return b;
}

/* Each kind of corruption is rejected with an error naming the field and its
 * byte offset. */
static void test_corruptions(void **state)
{
    (void)state;
    size_t len;
    unsigned char *v = valid_file(&len);
    unsigned char b[256];

#define FRESH() memcpy(b, v, len)
    FRESH(); b[0] = 'Q';
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "bad magic at byte 0");
    FRESH(); wr32(b + 8, 2);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "unknown version 2 at byte 8");
    FRESH(); wr32(b + 12, 255);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "unknown element type 255 at byte 12");
    FRESH(); wr32(b + 16, 17);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "rank 17 at byte 16");
    FRESH(); wr32(b + 20, 5);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "reserved field at byte 20");
    FRESH(); wr64(b + 32, UINT64_MAX);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "dimension 1 at byte 32");
    FRESH(); wr64(b + 40, 20);
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "payload size at byte 40 is 20");
    FRESH();
    expect_load_error(b, len - 1, 0, PLUMB_ERR_PARSE, "truncated: 79 bytes, expected 80");
    expect_load_error(b, 30, 0, PLUMB_ERR_PARSE, "truncated: 30 bytes");
    expect_load_error(b, 5, 0, PLUMB_ERR_PARSE, "truncated: 5 bytes, the magic alone takes 8");
    expect_load_error(b, 0, 0, PLUMB_ERR_PARSE, "bad magic");
    FRESH(); b[len] = 0;
    expect_load_error(b, len + 1, 0, PLUMB_ERR_PARSE, "1 trailing bytes");
    FRESH(); b[50] ^= 0x10;
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "checksum mismatch at byte 72");
    FRESH(); b[70] ^= 0x01;
    expect_load_error(b, len, 0, PLUMB_ERR_PARSE, "checksum mismatch");
    /* Byte limit: checked from the header, before allocating. */
    FRESH();
    expect_load_error(b, len, 23, PLUMB_ERR_LIMIT, "exceeds the limit of 23");
    /* Dims whose product overflows 64 bits. */
    FRESH(); wr64(b + 24, 1ull << 40); wr64(b + 32, 1ull << 40);
    expect_load_error(b, len, 0, PLUMB_ERR_LIMIT, "overflows 64 bits");
    /* A header claiming 64 GiB in a tiny file: the default limit rejects it. */
    FRESH(); wr64(b + 24, 1ull << 32); wr64(b + 32, 4);
    expect_load_error(b, len, 0, PLUMB_ERR_LIMIT, "exceeds the limit");
    /* ...and with a larger limit, the size field and the length disagree. */
    FRESH(); wr64(b + 24, 1ull << 32); wr64(b + 32, 4); wr64(b + 40, 1ull << 36);
    expect_load_error(b, len, UINT64_MAX, PLUMB_ERR_PARSE, "truncated");
#undef FRESH
    plumb_free(v, len);

    /* An i1 payload byte other than 0 or 1, behind a valid checksum. */
    int64_t n = 3;
    plumb_tensor *x = random_tensor(PLUMB_I1, 1, &n);
    plumb_diag d = {0};
    unsigned char *bb = plumb_tensor_serialize(x, &len, &d);
    bb[40 + 1] = 2;   /* payload at 40: 24 fixed + 8 dims + 8 size */
    reseal(bb, len);
    expect_load_error(bb, len, 0, PLUMB_ERR_PARSE, "i1 element 1 at byte 41 is 2");
    plumb_free(bb, len);
    plumb_tensor_free(x);
}

/* Loading from a path: missing files, and an oversized header rejected
 * before the payload is read. */
static void test_load_path_errors(void **state)
{
    (void)state;
    char p[300];
    plumb_diag d = {0};
    path_of(p, sizeof p, "missing.tns");
    assert_null(plumb_tensor_load(p, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_IO);
    assert_non_null(strstr(d.msg, "missing.tns"));
    size_t len;
    unsigned char *v = valid_file(&len);
    wr64(v + 24, 1ull << 40);
    path_of(p, sizeof p, "huge.tns");
    FILE *f = fopen(p, "wb");
    fwrite(v, 1, len, f);
    fclose(f);
    memset(&d, 0, sizeof d);
    assert_null(plumb_tensor_load(p, 0, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    /* Trailing bytes through the path loader too. */
    wr64(v + 24, 2);
    path_of(p, sizeof p, "trail.tns");
    f = fopen(p, "wb");
    fwrite(v, 1, len, f);
    fwrite("xyz", 1, 3, f);
    fclose(f);
    memset(&d, 0, sizeof d);
    assert_null(plumb_tensor_load(p, 0, &d));
    assert_non_null(strstr(d.msg, "trailing bytes"));
    plumb_free(v, len);
    remove(p);
    path_of(p, sizeof p, "huge.tns");
    remove(p);
}

static plumb_tensor *load_text(const char *s, plumb_diag *d)
{
    memset(d, 0, sizeof *d);
    return plumb_tensor_load_mem(s, strlen(s), "t.txt", 0, d);
}

/* The text form: literal, type, comments and blank lines. */
static void test_text_form(void **state)
{
    (void)state;
    plumb_diag d;
    plumb_tensor *t = load_text("// weights\n\n  dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>  // ok\n// end\n", &d);
    if (!t)
        fail_msg("%s", d.msg);
    assert_int_equal(t->rank, 2);
    assert_int_equal(plumb_load_bits(PLUMB_I32, t->data, 3), 4);
    plumb_tensor_free(t);
    t = load_text("dense<\"0x0000C03F\"> : tensor<3xf32>", &d);
    assert_non_null(t);
    assert_int_equal(plumb_load_bits(PLUMB_F32, t->data, 2), 0x3FC00000);
    plumb_tensor_free(t);
    t = load_text("dense<1.5> : tensor<bf16>", &d);
    assert_non_null(t);
    assert_int_equal(plumb_load_bits(PLUMB_BF16, t->data, 0), 0x3FC0);
    plumb_tensor_free(t);
    t = load_text("dense<> : tensor<0x4xf16>", &d);
    assert_non_null(t);
    plumb_tensor_free(t);
}

/* Text errors carry the line and column and name the file. */
static void test_text_errors(void **state)
{
    (void)state;
    struct { const char *text; plumb_code code; const char *frag; uint32_t line, col; } cases[] = {
        {"dense<[1, 2]> : tensor<?xi32>", PLUMB_ERR_PARSE, "dynamic dimension", 1, 24},
        {"dense<[1, 2]> : tensor<2xcomplex<f16>>", PLUMB_ERR_UNSUPPORTED, "unsupported element type 'complex<f16>'", 1, 26},
        {"dense<[1, 2]> : tensor<2xcomplex<f32>>", PLUMB_ERR_PARSE, "expected '(' opening a (real, imaginary) pair", 1, 8},
        {"dense<[1, 2]", PLUMB_ERR_PARSE, "missing the '>'", 1, 13},
        {"dense<[1, 2]> tensor<2xi32>", PLUMB_ERR_PARSE, "expected ':'", 1, 15},
        {"dense<[1, 2]> : tensor<2xi32> x", PLUMB_ERR_PARSE, "unexpected text", 1, 31},
        {"dense<[1, 2]> : tensor<2xi32", PLUMB_ERR_PARSE, "expected '>'", 1, 29},
        {"dense<[1, 2]> : tensor<2x3>", PLUMB_ERR_PARSE, "expected 'x' after dimension 1", 1, 27},
        {"// c\ndense<[1,\n 2, 3]> : tensor<2xi32>", PLUMB_ERR_INVALID, "3 elements, expected 2", 2, 7},
        {"dense<[1, 300]> : tensor<2xui8>", PLUMB_ERR_INVALID, "out of range for ui8", 1, 11},
        {"dense<1> : tensor<99999999999x99999999999xf32>", PLUMB_ERR_LIMIT, "overflows 64 bits at dimension 1", 1, 7},
        {"dense<1> : tensor<99999x99999xf32>", PLUMB_ERR_LIMIT, "exceeds the limit", 1, 7},
        {"  tensor<2xf32>", PLUMB_ERR_PARSE, "bad magic", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plumb_diag d;
        plumb_tensor *t = load_text(cases[i].text, &d);
        if (t)
            fail_msg("'%s' loaded", cases[i].text);
        if (d.code != cases[i].code || !strstr(d.msg, cases[i].frag) || !strstr(d.msg, "t.txt") ||
            d.loc.line != cases[i].line || d.loc.col != cases[i].col)
            fail_msg("'%s': got %s at %u:%u '%s'; want %s at %u:%u with '%s'", cases[i].text,
                     plumb_code_name(d.code), d.loc.line, d.loc.col, d.msg,
                     plumb_code_name(cases[i].code), cases[i].line, cases[i].col, cases[i].frag);
    }
}

/* Saving is atomic: a failed save leaves the target as it was and no
 * temporary file behind. */
static void test_save_atomic(void **state)
{
    (void)state;
    char p[300];
    path_of(p, sizeof p, "keep.tns");
    int64_t n = 4;
    plumb_tensor *x = random_tensor(PLUMB_F64, 1, &n);
    plumb_diag d = {0};
    assert_true(plumb_tensor_save(p, x, false, &d));
    int before = count_files();
    /* A malformed tensor fails before touching anything. */
    plumb_tensor bad = *x;
    bad.nbytes = 8;
    assert_false(plumb_tensor_save(p, &bad, false, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    plumb_tensor *y = plumb_tensor_load(p, 0, &(plumb_diag){0});
    assert_non_null(y);
    assert_true(plumb_tensor_equal(x, y));
    plumb_tensor_free(y);
    /* The rename fails when the target is a directory: the temporary file
     * must be removed. */
    char sub[300];
    path_of(sub, sizeof sub, "adir");
    assert_int_equal(mkdir(sub, 0700), 0);
    char inner[320];
    snprintf(inner, sizeof inner, "%s/f", sub);
    FILE *f = fopen(inner, "w");
    fclose(f);
    memset(&d, 0, sizeof d);
    assert_false(plumb_tensor_save(sub, x, true, &d));
    assert_int_equal(d.code, PLUMB_ERR_IO);
    assert_int_equal(count_files(), before + 1);
    remove(inner);
    rmdir(sub);
    /* A directory that does not exist. */
    path_of(sub, sizeof sub, "nodir/x.tns");
    memset(&d, 0, sizeof d);
    assert_false(plumb_tensor_save(sub, x, false, &d));
    assert_int_equal(d.code, PLUMB_ERR_IO);
    remove(p);
    plumb_tensor_free(x);
}

/* Every truncation and every single-byte change of a binary file is
 * rejected; text files never crash the loader whatever is cut or changed. */
static void test_fuzz_truncate_flip(void **state)
{
    (void)state;
    size_t len;
    unsigned char *v = valid_file(&len);
    unsigned char *b = malloc(len);
    for (size_t k = 0; k < len; k++) {
        plumb_diag d = {0};
        unsigned char *cut = malloc(k ? k : 1);
        memcpy(cut, v, k);
        plumb_tensor *t = plumb_tensor_load_mem(cut, k, "cut", 0, &d);
        if (t)
            fail_msg("file truncated to %zu bytes loaded", k);
        assert_int_not_equal(d.code, PLUMB_OK);
        free(cut);
    }
    static const unsigned char masks[] = {0x01, 0x80, 0xFF, 0x10};
    for (size_t i = 0; i < len; i++) {
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(b, v, len);
            b[i] ^= masks[m];
            plumb_diag d = {0};
            plumb_tensor *t = plumb_tensor_load_mem(b, len, "flip", 0, &d);
            if (t)
                fail_msg("file with byte %zu ^ 0x%02x loaded", i, masks[m]);
        }
    }
    free(b);
    plumb_free(v, len);

    int64_t dims[2] = {2, 3};
    plumb_tensor *x = random_tensor(PLUMB_F16, 2, dims);
    plumb_buf tb;
    plumb_buf_init(&tb);
    plumb_buf_puts(&tb, "// c\n");
    plumb_dense_print(&tb, x, false);
    plumb_buf_puts(&tb, " : ");
    plumb_tensor_type_print(&tb, x);
    plumb_buf_puts(&tb, "\n");
    static const char subst[] = {'\0', '>', '<', '[', ']', ',', '"', 'x', '9', '-', '.', ' ', '\n', '/', 0x7F};
    for (size_t k = 0; k <= tb.len; k++) {
        char *cut = malloc(k ? k : 1);
        memcpy(cut, tb.data, k);
        plumb_diag d = {0};
        plumb_tensor *t = plumb_tensor_load_mem(cut, k, "cut", 0, &d);
        assert_true(t != NULL || d.code != PLUMB_OK);
        plumb_tensor_free(t);
        free(cut);
    }
    char *c = malloc(tb.len);
    for (size_t i = 0; i < tb.len; i++) {
        for (size_t s = 0; s < sizeof subst; s++) {
            memcpy(c, tb.data, tb.len);
            c[i] = subst[s];
            plumb_diag d = {0};
            plumb_tensor *t = plumb_tensor_load_mem(c, tb.len, "flip", 0, &d);
            assert_true(t != NULL || d.code != PLUMB_OK);
            plumb_tensor_free(t);
        }
    }
    free(c);
    plumb_buf_free(&tb);
    plumb_tensor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_binary_layout),
        cmocka_unit_test(test_corruptions),
        cmocka_unit_test(test_load_path_errors),
        cmocka_unit_test(test_text_form),
        cmocka_unit_test(test_text_errors),
        cmocka_unit_test(test_save_atomic),
        cmocka_unit_test(test_fuzz_truncate_flip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
