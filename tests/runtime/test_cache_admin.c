/* The disk cache seen from `plumb cache` and `plumb explain`
 * (runtime/cache_admin.c, runtime/explain_pair.c): entries written by the
 * runtime read back valid (so the admin's copy of the header layout and mac
 * agrees with cache.c's); verify's deeper checks catch entries whose mac is
 * right but whose contents are not (written with this build's key through
 * rt_disk_store); removal spares valid entries unless asked, and every
 * file not named like an entry; two modules are explained as a recompile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rta_test.h"
#include "../../runtime/rt_cache_admin.h"
#include "../../runtime/rt_pipeline.h"

static const char src[] =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>\n"
    "  %m = stablehlo.multiply %x, %c : tensor<4xf32>\n"
    "  return %m : tensor<4xf32>\n"
    "}\n";

static char tmp_dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/plumb-cache-admin.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *dir = opendir(tmp_dir);
    if (dir) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(dir)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(p, sizeof p, "%s/%s", tmp_dir, e->d_name);
                unlink(p);
            }
        closedir(dir);
    }
    rmdir(tmp_dir);
    return 0;
}

/* The entry of l in file name, or the other one of two (name NULL: the one
 * not named other). Entry keys of real graphs include the build identity,
 * so tests never rely on where they sort. */
static const rt_cache_entry *find(const rt_cache_listing *l, const char *name, const char *other)
{
    for (size_t i = 0; i < l->n; i++)
        if (name ? strcmp(l->v[i].file, name) == 0 : strcmp(l->v[i].file, other) != 0)
            return &l->v[i];
    fail_msg("no entry %s", name ? name : "besides the named one");
    return NULL;
}

static rt_cache_listing scan(bool verify, uint32_t sample)
{
    rt_cache_listing l;
    char msg[1400];
    bool missing = true;
    bool ok = rt_cache_scan(tmp_dir, verify, sample, &l, &missing, msg, sizeof msg);
    if (!ok)
        fprintf(stderr, "scan: %s\n", msg);
    assert_true(ok);
    assert_false(missing);
    return l;
}

/* Stores src's serialization under key (NULL: its own key) with text as
 * the stored program, authenticated with this build's key. */
static void store(const uint64_t *key, const char *text)
{
    ir_module *m = parse_ok(src);
    rt_canon c;
    memset(&c, 0, sizeof c);
    plumb_diag d = {.code = PLUMB_OK};
    rt_key_ctx kc = {rt_cpu_best_isa(), 2};
    assert_true(rt_canon_build(&c, m, ir_module_find_func(m, "main"), &kc, &d));
    uint64_t k[2];
    rt_canon_key(&c, k);
    if (key) {
        k[0] = key[0];
        k[1] = key[1];
    }
    bool ok = rt_disk_store(tmp_dir, k, &c, &kc, text, strlen(text), &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    rt_canon_free(&c);
    ir_module_free(m);
}

/* src printed canonically: a program that parses, verifies and builds. */
static char *canonical_text(void)
{
    ir_module *m = parse_ok(src);
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    ir_module_free(m);
    assert_false(b.failed);
    size_t n;
    return plumb_buf_take(&b, &n);
}

/* An entry the runtime itself wrote is valid, names @main, carries this
 * build's identity and survives every deeper check. */
static void runtime_entries_are_valid_and_rebuild(void **state)
{
    (void)state;
    ir_module *m = parse_ok(src);
    plumb_runtime *rt = rt_new(1, 2, tmp_dir);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    plumb_runtime_destroy(rt);
    ir_module_free(m);
    rt_cache_listing l = scan(true, UINT32_MAX);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.v[0].state, RT_CACHE_VALID);
    assert_true(l.v[0].deep);
    assert_string_equal(l.v[0].func, "main");
    assert_string_equal(l.v[0].module, "");
    assert_string_equal(l.v[0].runtime, RT_RUNTIME_VERSION);
    assert_int_equal(l.v[0].opt_level, 2);
    assert_int_equal(l.ignored, 0);
    rt_cache_listing_free(&l);
    /* a second program: --sample 1 rebuilds the first in name order only */
    char other[sizeof src];   /* the same length: one constant's digits replaced */
    memcpy(other, src, sizeof src);
    char *at = strstr(other, "5.000000e-01");
    assert_non_null(at);
    memcpy(at, "2.500000e-01", 12);
    m = parse_ok(other);
    rt = rt_new(1, 2, tmp_dir);
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    plumb_runtime_destroy(rt);
    ir_module_free(m);
    l = scan(true, 1);
    assert_int_equal(l.n, 2);
    assert_true(l.v[0].deep);
    assert_false(l.v[1].deep);
    assert_int_equal(l.v[1].state, RT_CACHE_VALID);
    rt_cache_listing_free(&l);
    l = scan(true, UINT32_MAX);
    assert_true(l.v[0].deep && l.v[1].deep);
    assert_int_equal(l.v[0].state, RT_CACHE_VALID);
    assert_int_equal(l.v[1].state, RT_CACHE_VALID);
    rt_cache_listing_free(&l);
}

/* Authenticated entries whose body is wrong: the header checks pass (the
 * runtime would accept them up to the graph comparison), verify's deeper
 * checks name each fault; --sample 0 skips them. */
static void verify_catches_authentic_but_wrong_entries(void **state)
{
    (void)state;
    char *good = canonical_text();
    size_t gl = strlen(good);
    /* not canonical: two spaces where the printer writes one */
    char *spaced = plumb_malloc(gl + 2);
    assert_non_null(spaced);
    const char *at = strstr(good, " = stablehlo.multiply");
    assert_non_null(at);
    size_t pre = (size_t)(at - good);
    memcpy(spaced, good, pre);
    spaced[pre] = ' ';
    memcpy(spaced + pre + 1, good + pre, gl - pre + 1);
    store(NULL, spaced);
    const uint64_t other[2] = {0x1111111111111111ull, 0x2222222222222222ull};
    store(other, good);   /* the graph does not hash to this key */
    const uint64_t third[2] = {0x3333333333333333ull, 0x4444444444444444ull};
    rt_cache_listing l = scan(false, 0);
    assert_int_equal(l.n, 2);
    for (size_t i = 0; i < l.n; i++)
        assert_int_equal(l.v[i].state, RT_CACHE_VALID);
    rt_cache_listing_free(&l);

    l = scan(true, UINT32_MAX);
    assert_int_equal(l.n, 2);
    const char *k12 = "11111111111111112222222222222222.plumbc";
    const rt_cache_entry *e = find(&l, k12, NULL);
    assert_int_equal(e->state, RT_CACHE_CORRUPT);
    assert_non_null(strstr(e->reason, "its stored graph hashes to "));
    assert_non_null(strstr(e->reason, "not to its key"));
    e = find(&l, NULL, k12);
    assert_int_equal(e->state, RT_CACHE_CORRUPT);
    assert_non_null(strstr(e->reason, "not canonical text"));
    rt_cache_listing_free(&l);

    /* a stored program that does not parse, under its graph's own key (so
     * the graph checks pass), next to another misfiled one */
    uint32_t removed = 0;
    uint64_t freed = 0;
    char msg[1400];
    l = scan(false, 0);
    assert_true(rt_cache_remove(tmp_dir, &l, true, &removed, &freed, msg, sizeof msg));
    assert_int_equal(removed, 2);
    rt_cache_listing_free(&l);
    store(NULL, "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { frob }\n");
    store(third, good);
    const char *k34 = "33333333333333334444444444444444.plumbc";
    l = scan(true, 0);   /* every graph checked, no program rebuilt */
    assert_int_equal(l.n, 2);
    e = find(&l, k34, NULL);
    assert_int_equal(e->state, RT_CACHE_CORRUPT);
    assert_non_null(strstr(e->reason, "not to its key"));
    e = find(&l, NULL, k34);
    assert_int_equal(e->state, RT_CACHE_VALID);
    assert_false(e->deep);
    rt_cache_listing_free(&l);
    l = scan(true, UINT32_MAX);
    e = find(&l, NULL, k34);
    assert_true(e->deep);
    assert_int_equal(e->state, RT_CACHE_CORRUPT);
    assert_non_null(strstr(e->reason, "its stored program does not parse"));
    rt_cache_listing_free(&l);
    plumb_free(spaced, gl + 2);
    plumb_free(good, gl + 1);
}

/* Removal: without `all` only invalid entries go; files not named like
 * entries stay either way; the bytes freed are the files' sizes. */
static void remove_spares_valid_entries_and_other_files(void **state)
{
    (void)state;
    char *good = canonical_text();
    store(NULL, good);
    const uint64_t other[2] = {5, 6};
    store(other, good);
    char p[600];
    snprintf(p, sizeof p, "%s/00000000000000050000000000000006.plumbc", tmp_dir);
    FILE *f = fopen(p, "ab");   /* one byte after the end: corrupt */
    assert_non_null(f);
    fputc('x', f);
    fclose(f);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    snprintf(p, sizeof p, "%s/notes.plumbc", tmp_dir);
    f = fopen(p, "wb");
    assert_non_null(f);
    fclose(f);
    rt_cache_listing l = scan(false, 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.ignored, 1);
    const rt_cache_entry *e = find(&l, "00000000000000050000000000000006.plumbc", NULL);
    assert_int_equal(e->state, RT_CACHE_CORRUPT);
    assert_non_null(strstr(e->reason, "(data after the end)"));
    uint32_t removed = 0;
    uint64_t freed = 0;
    char msg[1400];
    assert_true(rt_cache_remove(tmp_dir, &l, false, &removed, &freed, msg, sizeof msg));
    assert_int_equal(removed, 1);
    assert_int_equal(freed, (uint64_t)sb.st_size);
    rt_cache_listing_free(&l);
    l = scan(false, 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.v[0].state, RT_CACHE_VALID);
    assert_true(rt_cache_remove(tmp_dir, &l, true, &removed, &freed, msg, sizeof msg));
    assert_int_equal(removed, 1);
    rt_cache_listing_free(&l);
    l = scan(false, 0);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.ignored, 1);
    rt_cache_listing_free(&l);
    assert_int_equal(access(p, F_OK), 0);
    plumb_free(good, strlen(good) + 1);
}

/* An entry judged invalid and then rewritten by a runtime (a new file
 * renamed over the name) before the removal is the new entry: kept. */
static void remove_skips_entries_rewritten_since_the_scan(void **state)
{
    (void)state;
    char *good = canonical_text();
    const uint64_t k[2] = {7, 8};
    store(k, "not canonical and never served");
    char p[600];
    snprintf(p, sizeof p, "%s/00000000000000070000000000000008.plumbc", tmp_dir);
    FILE *f = fopen(p, "ab");   /* corrupt: a byte after the end */
    assert_non_null(f);
    fputc('x', f);
    fclose(f);
    rt_cache_listing l = scan(false, 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.v[0].state, RT_CACHE_CORRUPT);
    store(k, good);   /* rebuilt meanwhile: written and renamed over the name */
    uint32_t removed = 9;
    uint64_t freed = 9;
    char msg[1400];
    assert_true(rt_cache_remove(tmp_dir, &l, false, &removed, &freed, msg, sizeof msg));
    assert_int_equal(removed, 0);
    assert_int_equal(freed, 0);
    assert_int_equal(access(p, F_OK), 0);
    rt_cache_listing_free(&l);
    l = scan(false, 0);
    assert_int_equal(l.v[0].state, RT_CACHE_VALID);   /* the header checks only */
    rt_cache_listing_free(&l);
    plumb_free(good, strlen(good) + 1);
}

/* A missing directory is told apart from one that cannot be trusted. */
static void scan_errors(void **state)
{
    (void)state;
    rt_cache_listing l;
    char msg[1400], p[600];
    bool missing = false;
    snprintf(p, sizeof p, "%s/none", tmp_dir);
    assert_false(rt_cache_scan(p, false, 0, &l, &missing, msg, sizeof msg));
    assert_true(missing);
    assert_non_null(strstr(msg, "does not exist"));
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(chmod(p, 0777), 0);
    assert_false(rt_cache_scan(p, false, 0, &l, &missing, msg, sizeof msg));
    assert_false(missing);
    assert_non_null(strstr(msg, "writable by every user"));
    rmdir(p);
}

/* Two modules: the same graph under other names is a hit; a changed
 * constant is explained as the runtime's recompile explanation. */
static void explain_two_modules(void **state)
{
    (void)state;
    ir_module *a = parse_ok(src);
    ir_module *b = parse_ok("func.func @main(%y: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "  %h = stablehlo.constant dense<0.5> : tensor<4xf32>\n"
                            "  %p = stablehlo.multiply %y, %h : tensor<4xf32>\n"
                            "  return %p : tensor<4xf32>\n"
                            "}\n");
    ir_module *c = parse_ok("func.func @main(%y: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "  %h = stablehlo.constant dense<0.25> : tensor<4xf32>\n"
                            "  %p = stablehlo.multiply %y, %h : tensor<4xf32>\n"
                            "  return %p : tensor<4xf32>\n"
                            "}\n");
    static char line[8192], json[32768];
    bool same = false;
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(rt_explain_modules(a, ir_module_find_func(a, "main"), b, ir_module_find_func(b, "main"), &same, line,
                                   sizeof line, json, sizeof json, &d));
    assert_true(same);
    assert_true(rt_explain_modules(a, ir_module_find_func(a, "main"), c, ir_module_find_func(c, "main"), &same, line,
                                   sizeof line, json, sizeof json, &d));
    assert_false(same);
    assert_non_null(strstr(line, "recompile of @main (program 2): node 2 stablehlo.multiply operand 1: constant "
                                 "5.000000e-01 became 2.500000e-01"));
    assert_non_null(strstr(json, "\"class\": \"baked_constant\""));
    ir_module_free(a);
    ir_module_free(b);
    ir_module_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(runtime_entries_are_valid_and_rebuild, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(verify_catches_authentic_but_wrong_entries, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(remove_spares_valid_entries_and_other_files, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(remove_skips_entries_rewritten_since_the_scan, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(scan_errors, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(explain_two_modules, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
