/* Tests of the shared core: allocator hook, arenas, diagnostics, buffers,
 * overflow-checked arithmetic, the op/dtype tables and the safe file writer
 * (never through a link, only over regular files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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
    assert_false(plumb_op_lookup("stablehlo.all_reduce", 20, &op));
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
        assert_true(plumb_op_table[i].arity >= PLUMB_VAR && plumb_op_table[i].arity <= 5);   /* dynamic_pad: 5 */
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
    /* The small types are one byte each (docs/spec/types.md); TF32 is not
     * a StableHLO element type plumb knows. */
    assert_true(plumb_dtype_parse("f8E4M3FN", 8, &t));
    assert_int_equal(plumb_dtype_size(t), 1);
    assert_true(plumb_dtype_parse("ui4", 3, &t));
    assert_int_equal(plumb_dtype_get(t)->bits, 4);
    assert_false(plumb_dtype_parse("tf32", 4, &t));
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

/* ---- safe file writing ------------------------------------------------------
 * Every test works in its own mkdtemp directory (wdir) and removes it. */
static char wdir[512];

static void wdir_make(void)
{
    snprintf(wdir, sizeof wdir, "%s/plumb-core.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(wdir));
}

/* Removes wdir recursively (links are removed, never followed). */
static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (dir) {
            struct dirent *e;
            char p[1024];
            while ((e = readdir(dir)))
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
                    rm_tree(p);
                }
            closedir(dir);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static const char *wpath(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", wdir, name);
    return buf;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_file_is(const char *path, const char *text)
{
    char got[256] = {0};
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = 0;
    assert_string_equal(got, text);
}

static bool write_text(const char *path, const char *text, plumb_diag *d)
{
    plumb_diag_clear(d);
    const void *parts[2] = {text, "!"};
    size_t lens[2] = {strlen(text), 1};
    return plumb_write_file_atomic(path, parts, lens, 2, d);
}

/* Entries of wdir whose name contains ".plumb-tmp." (left-over temporaries). */
static int temp_files_left(void)
{
    DIR *dir = opendir(wdir);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        n += strstr(e->d_name, ".plumb-tmp.") != NULL;
    closedir(dir);
    return n;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "the writer blocked (it opened a FIFO)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* A new file gets the parts concatenated and 0666 minus the umask; a
 * rewrite keeps the old permission bits but drops set-id bits. */
static void test_write_atomic_modes(void **state)
{
    (void)state;
    wdir_make();
    char p[600];
    plumb_diag d;
    mode_t mask = umask(022);
    assert_true(write_text(wpath(p, sizeof p, "new.txt"), "hello", &d));
    assert_file_is(p, "hello!");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(chmod(p, 04750), 0);
    assert_true(write_text(p, "again", &d));
    assert_file_is(p, "again!");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0750);
    umask(mask);
    assert_int_equal(temp_files_left(), 0);
    rm_tree(wdir);
}

/* A symbolic link at the final name is refused with a message saying so:
 * the link's target keeps its contents and the link stays a link (the old
 * writer resolved the link and replaced its target). */
static void test_write_atomic_refuses_symlink(void **state)
{
    (void)state;
    wdir_make();
    char p[600], target[600];
    plumb_diag d;
    put_file(wpath(target, sizeof target, "target"), "precious");
    assert_int_equal(symlink(target, wpath(p, sizeof p, "link")), 0);
    assert_false(write_text(p, "evil", &d));
    assert_int_equal(d.code, PLUMB_ERR_IO);
    assert_non_null(strstr(d.msg, "is a symbolic link"));
    assert_non_null(strstr(d.msg, p));
    assert_file_is(target, "precious");
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* a dangling link is refused too (it would create its target) */
    assert_int_equal(symlink("nowhere", wpath(p, sizeof p, "dangling")), 0);
    assert_false(write_text(p, "evil", &d));
    assert_non_null(strstr(d.msg, "is a symbolic link"));
    assert_int_equal(access(wpath(p, sizeof p, "nowhere"), F_OK), -1);
    assert_false(plumb_check_write_target(wpath(p, sizeof p, "link"), &d));
    assert_int_equal(temp_files_left(), 0);
    rm_tree(wdir);
}

/* A FIFO, a directory and a device node at the final name are refused
 * without being opened (a FIFO opened for writing would block until the
 * alarm ends the test) and stay what they were. */
static void test_write_atomic_refuses_special_files(void **state)
{
    (void)state;
    wdir_make();
    char p[600];
    plumb_diag d;
    struct stat st;
    signal(SIGALRM, on_alarm);
    alarm(10);
    assert_int_equal(mkfifo(wpath(p, sizeof p, "fifo"), 0644), 0);
    assert_false(write_text(p, "x", &d));
    assert_non_null(strstr(d.msg, "is a FIFO"));
    assert_false(plumb_check_write_target(p, &d));
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    alarm(0);
    assert_int_equal(mkdir(wpath(p, sizeof p, "dir"), 0755), 0);
    assert_false(write_text(p, "x", &d));
    assert_non_null(strstr(d.msg, "is a directory"));
    assert_false(write_text(wpath(p, sizeof p, "dir/"), "x", &d));
    assert_non_null(strstr(d.msg, "names a directory"));
    /* a character device like /dev/null, made here (needs root) */
    if (mknod(wpath(p, sizeof p, "null"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        assert_false(write_text(p, "x", &d));
        assert_non_null(strstr(d.msg, "is a character device"));
        assert_int_equal(lstat(p, &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    } else {
        fprintf(stderr, "skipped the device-node case: mknod: %s\n", strerror(errno));
    }
    assert_int_equal(temp_files_left(), 0);
    rm_tree(wdir);
}

/* A link in the directory part is followed (the caller named it), and a
 * missing directory is an error naming the path. */
static void test_write_atomic_directory_part(void **state)
{
    (void)state;
    wdir_make();
    char p[600], real[600];
    plumb_diag d;
    assert_int_equal(mkdir(wpath(real, sizeof real, "real"), 0755), 0);
    assert_int_equal(symlink(real, wpath(p, sizeof p, "via")), 0);
    assert_true(write_text(wpath(p, sizeof p, "via/out.txt"), "through the dir link", &d));
    assert_file_is(wpath(real, sizeof real, "real/out.txt"), "through the dir link!");
    assert_false(write_text(wpath(p, sizeof p, "missing/out.txt"), "x", &d));
    assert_non_null(strstr(d.msg, "missing/out.txt"));
    assert_non_null(strstr(d.msg, "cannot open its directory"));
    rm_tree(wdir);
}

/* mkdir -p: every missing component is created with the mode given;
 * existing directories are fine; a file in the way is an error. */
static void test_mkdir_p_nested(void **state)
{
    (void)state;
    wdir_make();
    char p[600];
    plumb_diag d;
    plumb_diag_clear(&d);
    mode_t mask = umask(022);
    assert_true(plumb_mkdir_p(wpath(p, sizeof p, "a/b/c"), 0700, &d));
    static const char *const parts[] = {"a", "a/b", "a/b/c"};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        assert_int_equal(stat(wpath(p, sizeof p, parts[i]), &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0700);
    }
    assert_true(plumb_mkdir_p(wpath(p, sizeof p, "a/b/c/"), 0700, &d));
    assert_true(plumb_mkdir_p(wpath(p, sizeof p, "a//b"), 0700, &d));
    put_file(wpath(p, sizeof p, "file"), "x");
    assert_false(plumb_mkdir_p(wpath(p, sizeof p, "file/sub"), 0700, &d));
    assert_non_null(strstr(d.msg, "is not a directory"));
    umask(mask);
    rm_tree(wdir);
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
        cmocka_unit_test(test_write_atomic_modes),
        cmocka_unit_test(test_write_atomic_refuses_symlink),
        cmocka_unit_test(test_write_atomic_refuses_special_files),
        cmocka_unit_test(test_write_atomic_directory_part),
        cmocka_unit_test(test_mkdir_p_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
