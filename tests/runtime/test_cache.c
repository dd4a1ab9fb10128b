/* The compile cache: key stability and sensitivity, counters, recompile
 * explanations, the per-entry cap and error-on-recompile, and the disk cache
 * (hits across runtimes, corrupt or mismatching entries rebuilt, atomic
 * writes under concurrent writers, no link or FIFO at an entry's name
 * followed, nested directories created 0700, a directory others can write
 * never trusted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <sys/stat.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <xxhash.h>

#include "rta_test.h"
#include "../../runtime/rt_pipeline.h"

static const char base_src[] =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>\n"
    "  %m = stablehlo.multiply %x, %c : tensor<4xf32>\n"
    "  %r = stablehlo.reverse %m, dims = [0] : tensor<4xf32>\n"
    "  return %r : tensor<4xf32>\n"
    "}\n";

/* The same program with other SSA names, spacing and a spelled-out
 * default (compare type omitted vs written is covered below). */
static const char renamed_src[] =
    "func.func @main(%input: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %half   = stablehlo.constant dense<0.5> : tensor<4xf32>\n"
    "      %prod = stablehlo.multiply %input,   %half : tensor<4xf32>\n"
    "  %out = stablehlo.reverse %prod, dims = [0] : tensor<4xf32>\n"
    "  return %out : tensor<4xf32>\n"
    "}\n";

static void key_of(plumb_runtime *rt, const ir_module *m, uint64_t k[2])
{
    plumb_diag d = {.code = PLUMB_OK};
    bool ok = plumb_runtime_key(rt, m, NULL, k, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
}

static void key_src(plumb_runtime *rt, const char *src, uint64_t k[2])
{
    ir_module *m = parse_ok(src);
    key_of(rt, m, k);
    ir_module_free(m);
}

static bool key_eq(const uint64_t a[2], const uint64_t b[2]) { return a[0] == b[0] && a[1] == b[1]; }

/* Replaces the first occurrence of from in src with to (one static buffer per call site). */
static const char *edit(char *buf, size_t cap, const char *src, const char *from, const char *to)
{
    const char *at = strstr(src, from);
    assert_non_null(at);
    int n = snprintf(buf, cap, "%.*s%s%s", (int)(at - src), src, to, at + strlen(from));
    assert_true(n > 0 && (size_t)n < cap);
    return buf;
}

/* Printing and re-parsing, renaming values, spacing and equivalent literal
 * spellings keep the key. */
static void key_stable_under_printing_and_renaming(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *m = parse_ok(base_src);
    uint64_t k0[2], k1[2], k2[2];
    key_of(rt, m, k0);
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    assert_false(b.failed);
    key_src(rt, b.data, k1);
    assert_true(key_eq(k0, k1));
    plumb_buf_free(&b);
    key_src(rt, renamed_src, k2);
    assert_true(key_eq(k0, k2));
    /* an omitted compare type and the one the element type implies */
    const char *c1 = "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {\n"
                     "  %0 = stablehlo.compare LT, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
                     "  return %0 : tensor<3xi1>\n}\n";
    const char *c2 = "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {\n"
                     "  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
                     "  return %0 : tensor<3xi1>\n}\n";
    key_src(rt, c1, k1);
    key_src(rt, c2, k2);
    assert_true(key_eq(k1, k2));
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* Every semantic change gives a different key: a baked constant's value, a
 * static dimension, an element type, an attribute, an op, the wiring, and a
 * polymorphic dimension's bound. All keys are pairwise distinct. */
static void key_sensitive_to_every_semantic_change(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    char b1[2048], b2[2048], b3[2048];
    const char *variants[] = {
        base_src,
        edit(b1, sizeof b1, base_src, "dense<5.000000e-01>", "dense<2.500000e-01>"),
        /* static dimension */
        "func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
        "  %c = stablehlo.constant dense<5.000000e-01> : tensor<8xf32>\n"
        "  %m = stablehlo.multiply %x, %c : tensor<8xf32>\n"
        "  %r = stablehlo.reverse %m, dims = [0] : tensor<8xf32>\n"
        "  return %r : tensor<8xf32>\n}\n",
        /* element type */
        "func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {\n"
        "  %c = stablehlo.constant dense<5.000000e-01> : tensor<4xf64>\n"
        "  %m = stablehlo.multiply %x, %c : tensor<4xf64>\n"
        "  %r = stablehlo.reverse %m, dims = [0] : tensor<4xf64>\n"
        "  return %r : tensor<4xf64>\n}\n",
        /* op */
        edit(b2, sizeof b2, base_src, "stablehlo.multiply", "stablehlo.add"),
        /* wiring: multiply the constant by x instead of x by the constant */
        edit(b3, sizeof b3, base_src, "multiply %x, %c", "multiply %c, %x"),
        /* attribute */
        "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %r = stablehlo.reverse %x, dims = [0] : tensor<2x2xf32>\n"
        "  return %r : tensor<2x2xf32>\n}\n",
        "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %r = stablehlo.reverse %x, dims = [1] : tensor<2x2xf32>\n"
        "  return %r : tensor<2x2xf32>\n}\n",
        /* bound of a polymorphic dimension */
        "func.func @main(%x: tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<8>> {\n"
        "  return %x : tensor<?xf32, #stablehlo.bounds<8>>\n}\n",
        "func.func @main(%x: tensor<?xf32, #stablehlo.bounds<16>>) -> tensor<?xf32, #stablehlo.bounds<16>> {\n"
        "  return %x : tensor<?xf32, #stablehlo.bounds<16>>\n}\n",
    };
    enum { N = sizeof variants / sizeof variants[0] };
    uint64_t k[N][2];
    for (int i = 0; i < N; i++)
        key_src(rt, variants[i], k[i]);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            if (key_eq(k[i], k[j]))
                fprintf(stderr, "variants %d and %d have the same key\n", i, j);
            assert_false(key_eq(k[i], k[j]));
        }
    plumb_runtime_destroy(rt);
}

/* Options that change code are in the key (opt_level); the thread count,
 * which does not change results, is not. */
static void key_includes_code_options_only(void **state)
{
    (void)state;
    plumb_runtime *a = rt_new(1, 2, NULL), *b = rt_new(2, 2, NULL), *c = rt_new(1, 1, NULL);
    uint64_t ka[2], kb[2], kc[2];
    key_src(a, base_src, ka);
    key_src(b, base_src, kb);
    key_src(c, base_src, kc);
    assert_true(key_eq(ka, kb));
    assert_false(key_eq(ka, kc));
    plumb_runtime_destroy(a);
    plumb_runtime_destroy(b);
    plumb_runtime_destroy(c);
}

/* New parameter values never compile: one compile, then cache hits, and
 * every result is the reference's. */
static void parameter_values_never_compile(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(2, 2, NULL);
    ir_module *m = parse_ok(base_src);
    int64_t dims[1] = {4};
    for (int i = 0; i < 5; i++) {
        float v[4] = {(float)i, -1.5f * (float)i, 3.0f, -0.0f};
        plumb_tensor *x = tensor_f32(1, dims, v);
        expect_same_as_ref(rt, m, &x, 1);
        plumb_tensor_free(x);
    }
    /* a fresh parse of the same text is the same program */
    ir_module *m2 = parse_ok(renamed_src);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, m2, NULL, &d));
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.cache_hits, 5);
    assert_int_equal(st.runs, 5);
    assert_int_equal(st.programs, 1);
    assert_null(plumb_runtime_last_explanation(rt));
    ir_module_free(m2);
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

/* Changing a baked constant compiles exactly once more, and the explanation
 * names the consuming multiply (node 2), its operand 1, both values, the
 * class and the fix, as one line (also logged) and as JSON. */
static void baked_constant_compiles_once_and_is_explained(void **state)
{
    (void)state;
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.log = log;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    char buf[2048];
    ir_module *m1 = parse_ok(base_src);
    ir_module *m2 = parse_ok(edit(buf, sizeof buf, base_src, "dense<5.000000e-01>", "dense<2.500000e-01>"));
    int64_t dims[1] = {4};
    float v[4] = {1, 2, 3, 4};
    plumb_tensor *x = tensor_f32(1, dims, v);
    expect_same_as_ref(rt, m1, &x, 1);
    expect_same_as_ref(rt, m2, &x, 1);
    expect_same_as_ref(rt, m2, &x, 1);
    expect_same_as_ref(rt, m1, &x, 1);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.compiles, 2);
    assert_int_equal(st.programs, 2);
    assert_int_equal(st.cache_hits, 2);
    const char *line = plumb_runtime_last_explanation(rt);
    assert_non_null(line);
    fprintf(stderr, "%s\n", line);
    assert_non_null(strstr(line, "recompile of @main (program 2): node 2 stablehlo.multiply operand 1: "
                                 "constant 5.000000e-01 became 2.500000e-01"));
    assert_non_null(strstr(line, "(baked constant; pass it as a parameter)"));
    assert_non_null(strstr(line, "test.mlir:3:"));
    const char *json = plumb_runtime_last_explanation_json(rt);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"class\": \"baked_constant\""));
    assert_non_null(strstr(json, "\"node\": 2"));
    assert_non_null(strstr(json, "\"operand\": 1"));
    assert_non_null(strstr(json, "\"old\": \"5.000000e-01\""));
    assert_non_null(strstr(json, "\"new\": \"2.500000e-01\""));
    assert_non_null(strstr(json, "\"line\": 3"));
    char logged[4096] = "";
    rewind(log);
    size_t n = fread(logged, 1, sizeof logged - 1, log);
    logged[n] = 0;
    assert_non_null(strstr(logged, "recompile of @main (program 2)"));
    plumb_tensor_free(x);
    ir_module_free(m1);
    ir_module_free(m2);
    plumb_runtime_destroy(rt);
    fclose(log);   /* after destroy, which may write the summary to it */
}

/* Compiles base, then other, and returns the JSON class of the explanation. */
static void expect_class(const char *base, const char *other, const char *cls, const char *needle)
{
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *a = parse_ok(base), *b = parse_ok(other);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, a, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, b, NULL, &d));
    const char *json = plumb_runtime_last_explanation_json(rt);
    const char *line = plumb_runtime_last_explanation(rt);
    assert_non_null(json);
    char want[128];
    snprintf(want, sizeof want, "\"class\": \"%s\"", cls);
    if (!strstr(json, want) || !strstr(line, needle))
        fprintf(stderr, "expected %s and '%s' in:\n%s\n%s\n", cls, needle, line, json);
    assert_non_null(strstr(json, want));
    assert_non_null(strstr(line, needle));
    ir_module_free(a);
    ir_module_free(b);
    plumb_runtime_destroy(rt);
}

/* Each kind of difference is classified and described. */
static void explanations_classify_differences(void **state)
{
    (void)state;
    char b1[2048], b2[2048], b3[2048];
    (void)b2;
    /* entry signature: the parameter's shape */
    const char *sig8 = "func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
                       "  %r = stablehlo.reverse %x, dims = [0] : tensor<8xf32>\n"
                       "  return %r : tensor<8xf32>\n}\n";
    const char *sig4 = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                       "  %r = stablehlo.reverse %x, dims = [0] : tensor<4xf32>\n"
                       "  return %r : tensor<4xf32>\n}\n";
    expect_class(sig4, sig8, "entry_signature", "parameter 0 dimension 0: 4 became 8");
    /* static dimension inside the program */
    const char *in6 = "func.func @main(%x: tensor<f32>) -> tensor<2xf32> {\n"
                      "  %b = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<6xf32>\n"
                      "  %s = stablehlo.slice %b [0:2] : (tensor<6xf32>) -> tensor<2xf32>\n"
                      "  return %s : tensor<2xf32>\n}\n";
    expect_class(edit(b1, sizeof b1, edit(b2, sizeof b2, in6, "tensor<6xf32>", "tensor<4xf32>"), "tensor<6xf32>",
                      "tensor<4xf32>"),
                 in6, "static_dimension", "node 1 stablehlo.broadcast_in_dim: result 0 dimension 0: 4 became 6");
    /* element type */
    const char *cv = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf64> {\n"
                     "  %c = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf64>\n"
                     "  return %c : tensor<4xf64>\n}\n";
    const char *cv16 = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf16> {\n"
                       "  %c = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf16>\n"
                       "  return %c : tensor<4xf16>\n}\n";
    expect_class(cv, cv16, "entry_signature", "result 0 element type f64 became f16");
    const char *cvi = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %c = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf64>\n"
                      "  %d = stablehlo.convert %c : (tensor<4xf64>) -> tensor<4xf32>\n"
                      "  return %d : tensor<4xf32>\n}\n";
    char b4[2048];
    const char *cvi16 = edit(b4, sizeof b4, edit(b3, sizeof b3, cvi, "-> tensor<4xf64>\n", "-> tensor<4xf16>\n"),
                             "(tensor<4xf64>) -> tensor<4xf32>", "(tensor<4xf16>) -> tensor<4xf32>");
    expect_class(cvi, cvi16, "element_type", "node 1 stablehlo.convert: result 0 element type f64 became f16");
    /* attribute */
    expect_class("func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                 "  %r = stablehlo.reverse %x, dims = [0] : tensor<2x2xf32>\n  return %r : tensor<2x2xf32>\n}\n",
                 "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                 "  %r = stablehlo.reverse %x, dims = [1] : tensor<2x2xf32>\n  return %r : tensor<2x2xf32>\n}\n",
                 "attribute", "node 1 stablehlo.reverse: attribute dims 0 became 1");
    /* structure: an op added */
    expect_class(sig4,
                 "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %n = stablehlo.negate %x : tensor<4xf32>\n"
                 "  %r = stablehlo.reverse %n, dims = [0] : tensor<4xf32>\n"
                 "  return %r : tensor<4xf32>\n}\n",
                 "structure", "stablehlo.negate added");
}

/* The cap and error-on-recompile fail the compile with the explanation in
 * the error, and leave the cached programs usable. */
static void cap_and_error_on_recompile(void **state)
{
    (void)state;
    char buf[2048];
    ir_module *m1 = parse_ok(base_src);
    ir_module *m2 = parse_ok(edit(buf, sizeof buf, base_src, "dense<5.000000e-01>", "dense<2.500000e-01>"));
    for (int mode = 0; mode < 2; mode++) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 1;
        if (mode == 0)
            o.max_programs_per_entry = 1;
        else
            o.error_on_recompile = true;
        plumb_diag d = {.code = PLUMB_OK};
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        assert_non_null(rt);
        assert_non_null(plumb_runtime_compile(rt, m1, NULL, &d));
        assert_null(plumb_runtime_compile(rt, m2, NULL, &d));
        assert_int_equal(d.code, PLUMB_ERR_LIMIT);
        assert_non_null(strstr(d.msg, "constant 5.000000e-01 became 2.500000e-01"));
        assert_non_null(strstr(d.msg, mode == 0 ? "max_programs_per_entry = 1" : "error_on_recompile"));
        plumb_diag_clear(&d);
        assert_non_null(plumb_runtime_compile(rt, m1, NULL, &d));   /* still a hit */
        plumb_runtime_stats st;
        assert_true(plumb_runtime_stats_get(rt, NULL, &st));
        assert_int_equal(st.compiles, 1);
        assert_int_equal(st.cache_hits, 1);
        assert_int_equal(st.programs, 1);
        plumb_runtime_destroy(rt);
    }
    ir_module_free(m1);
    ir_module_free(m2);
}

/* ---- disk cache ---------------------------------------------------------------- */

/* Movement only, with a baked constant: the disk tests exercise the cache,
 * not the arithmetic kernels. */
static const char disk_src[] =
    "func.func @main(%x: tensor<4xf32>) -> tensor<6xf32> {\n"
    "  %c = stablehlo.constant dense<[7.5, -1.25]> : tensor<2xf32>\n"
    "  %j = stablehlo.concatenate %x, %c, dim = 0 : (tensor<4xf32>, tensor<2xf32>) -> tensor<6xf32>\n"
    "  %r = stablehlo.reverse %j, dims = [0] : tensor<6xf32>\n"
    "  return %r : tensor<6xf32>\n"
    "}\n";

static char tmp_dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "%s/plumb-rt-cache.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
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
            if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..") != 0)) {
                snprintf(p, sizeof p, "%s/%s", tmp_dir, e->d_name);
                unlink(p);
            }
        closedir(dir);
    }
    rmdir(tmp_dir);
    return 0;
}

static int count_files(const char *suffix)
{
    DIR *dir = opendir(tmp_dir);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strstr(e->d_name, suffix))
            n++;
    closedir(dir);
    return n;
}

/* Compiles m in a fresh runtime on cache directory dir (log: its log, may
 * be NULL); returns its stats and checks the result against the reference. */
static plumb_runtime_stats fresh_compile_in(const ir_module *m, const char *dir, FILE *log)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.opt_level = 2;
    o.cache_dir = dir;
    o.log = log;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    int64_t dims[1] = {4};
    float v[4] = {1, -2, 3, 0.25f};
    plumb_tensor *x = tensor_f32(1, dims, v);
    expect_same_as_ref(rt, m, &x, 1);
    plumb_tensor_free(x);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    plumb_runtime_destroy(rt);
    return st;
}

static plumb_runtime_stats fresh_compile(const ir_module *m) { return fresh_compile_in(m, tmp_dir, NULL); }

static void entry_path(const ir_module *m, char *path, size_t cap)
{
    plumb_runtime *rt = rt_new(1, 2, NULL);
    uint64_t k[2];
    key_of(rt, m, k);
    assert_true(rt_disk_path(tmp_dir, k, path, cap));
    plumb_runtime_destroy(rt);
}

/* A second runtime (a new process, as far as the cache knows) is served
 * from disk: compiles counts the miss, disk_hits says it came from disk. */
static void disk_hit_in_second_runtime(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    plumb_runtime_stats a = fresh_compile(m);
    assert_int_equal(a.compiles, 1);
    assert_int_equal(a.disk_hits, 0);
    assert_int_equal(count_files(".plumbc"), 1);
    plumb_runtime_stats b = fresh_compile(m);
    assert_int_equal(b.compiles, 1);
    assert_int_equal(b.disk_hits, 1);
    assert_int_equal(count_files(".plumb-tmp."), 0);
    ir_module_free(m);
}

static void rewrite_file(const char *path, long off, const void *bytes, size_t n, long truncate_to)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    if (bytes) {
        assert_int_equal(fseek(f, off, SEEK_SET), 0);
        assert_int_equal(fwrite(bytes, 1, n, f), n);
    }
    fclose(f);
    if (truncate_to >= 0)
        assert_int_equal(truncate(path, truncate_to), 0);
}

static long file_size(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (long)sb.st_size;
}

/* A corrupt, truncated, foreign-version or wrong-graph entry is never used:
 * the program is rebuilt (no disk hit), correct, and the entry rewritten so
 * the next runtime gets a disk hit again. */
static void disk_bad_entries_are_rebuilt(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char other_buf[2048];
    ir_module *other = parse_ok(edit(other_buf, sizeof other_buf, disk_src, "-1.25", "-2.5"));
    char path[600], opath[600];
    entry_path(m, path, sizeof path);
    entry_path(other, opath, sizeof opath);
    (void)fresh_compile(m);
    (void)fresh_compile(other);
    for (int kind = 0; kind < 5; kind++) {
        long size = file_size(path);
        switch (kind) {
        case 0: {   /* a flipped byte in the program text */
            char z = '~';
            rewrite_file(path, size - 3, &z, 1, -1);
            break;
        }
        case 1:     /* truncated */
            rewrite_file(path, 0, NULL, 0, size / 2);
            break;
        case 2:     /* another runtime version */
            rewrite_file(path, 16, "plumb-rt 9.9.9/9", 16, -1);
            break;
        case 3: {   /* another ISA level in the header */
            uint32_t isa = 77;
            rewrite_file(path, 48, &isa, 4, -1);
            break;
        }
        case 4: {   /* another graph's entry under this key (a collision) */
            FILE *src = fopen(opath, "rb"), *dst = fopen(path, "wb");
            assert_non_null(src);
            assert_non_null(dst);
            char b[8192];
            size_t n;
            while ((n = fread(b, 1, sizeof b, src)) > 0)
                assert_int_equal(fwrite(b, 1, n, dst), n);
            fclose(src);
            fclose(dst);
            break;
        }
        }
        plumb_runtime_stats st = fresh_compile(m);
        if (st.disk_hits != 0)
            fprintf(stderr, "bad entry of kind %d was used\n", kind);
        assert_int_equal(st.disk_hits, 0);
        assert_int_equal(st.compiles, 1);
        st = fresh_compile(m);
        assert_int_equal(st.disk_hits, 1);
    }
    ir_module_free(m);
    ir_module_free(other);
}

/* A program whose stored text names an op an edit can swap for another. */
static const char sub_src[] =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<[7.5, -1.25, 2.0, 0.5]> : tensor<4xf32>\n"
    "  %s = stablehlo.subtract %x, %c : tensor<4xf32>\n"
    "  return %s : tensor<4xf32>\n"
    "}\n";

/* Offsets of the disk header's fields (cache.c's layout, format 2). */
enum { HDR_RUNTIME = 16, HDR_CANON = 72, HDR_TEXT = 80, HDR_MAC = 88, HDR_BYTES = 104 };

/* memmem without _GNU_SOURCE. */
static const void *find_bytes(const void *hay, size_t n, const void *needle, size_t k)
{
    const uint8_t *h = hay;
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (memcmp(h + i, needle, k) == 0)
            return h + i;
    return NULL;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long sz = ftell(f);
    assert_true(sz >= HDR_BYTES);
    rewind(f);
    uint8_t *b = malloc((size_t)sz + 64);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return b;
}

/* Writes header + canon + text to path with a mac over them computed as
 * someone forging the entry would: keyed with `secret` (16 bytes), or a
 * plain XXH3-128 without one (secret NULL), the best an editor without
 * the writing build's key can do. */
static void forge_entry(const char *path, uint8_t *hdr, const uint8_t *canon, size_t canon_n, const char *text,
                        size_t text_n, const uint8_t *secret)
{
    uint64_t tn = text_n;
    memcpy(hdr + HDR_TEXT, &tn, 8);
    memset(hdr + HDR_MAC, 0, 16);
    XXH3_state_t *st = XXH3_createState();
    assert_non_null(st);
    XXH3_128bits_reset(st);
    if (secret)
        XXH3_128bits_update(st, secret, 16);
    XXH3_128bits_update(st, hdr, HDR_BYTES);
    XXH3_128bits_update(st, canon, canon_n);
    XXH3_128bits_update(st, text, text_n);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    memcpy(hdr + HDR_MAC, &h.low64, 8);
    memcpy(hdr + HDR_MAC + 8, &h.high64, 8);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(hdr, 1, HDR_BYTES, f), HDR_BYTES);
    assert_int_equal(fwrite(canon, 1, canon_n, f), canon_n);
    assert_int_equal(fwrite(text, 1, text_n, f), text_n);
    fclose(f);
}

/* Reads the whole log back (for messages the runtime printed). */
static char *log_text(FILE *log)
{
    static char buf[8192];
    fflush(log);
    rewind(log);
    size_t n = fread(buf, 1, sizeof buf - 1, log);
    buf[n] = 0;
    return buf;
}

/* The experiments: an entry whose program text was edited to say
 * `add` where the graph says `subtract`, its integrity field recomputed
 * without the writing build's key, and an entry from another build (another
 * key, or another build identity in the header) are rebuilt, counted as
 * rejected and logged with the reason, never served; the same bytes with the
 * right key are served (so the forging below is faithful and the test can
 * fail). */
static void disk_edited_or_foreign_entries_are_never_served(void **state)
{
    (void)state;
    ir_module *m = parse_ok(sub_src);
    char path[600];
    entry_path(m, path, sizeof path);
    (void)fresh_compile(m);
    size_t n;
    uint8_t *orig = slurp(path, &n);
    uint64_t cn, tn;
    memcpy(&cn, orig + HDR_CANON, 8);
    memcpy(&tn, orig + HDR_TEXT, 8);
    assert_int_equal(HDR_BYTES + cn + tn, n);
    const uint8_t *canon = orig + HDR_BYTES;
    const char *text = (const char *)orig + HDR_BYTES + cn;
    const char *at = find_bytes(text, tn, "stablehlo.subtract", 18);
    assert_non_null(at);
    /* the edited text: "subtract" -> "add" */
    char *edited = malloc(tn + 1);
    assert_non_null(edited);
    size_t pre = (size_t)(at - text) + 10;
    memcpy(edited, text, pre);
    memcpy(edited + pre, "add", 3);
    memcpy(edited + pre + 3, at + 18, tn - pre - 8);
    size_t en = tn - 5;
    uint8_t other_secret[16];
    for (int i = 0; i < 16; i++)
        other_secret[i] = (uint8_t)(rt_build_secret[i] ^ 0x5a);
    for (int kind = 0; kind < 5; kind++) {
        uint8_t hdr[HDR_BYTES];
        memcpy(hdr, orig, HDR_BYTES);
        const char *want_why = "authentication failed";
        bool served = false;
        switch (kind) {
        case 0:   /* edited, integrity recomputed without a key */
            forge_entry(path, hdr, canon, cn, edited, en, NULL);
            break;
        case 1:   /* edited, keyed by another build */
            forge_entry(path, hdr, canon, cn, edited, en, other_secret);
            break;
        case 2:   /* unedited, written by another build (its key) */
            forge_entry(path, hdr, canon, cn, text, tn, other_secret);
            break;
        case 3:   /* another build identity in the header, even under this key */
            memcpy(hdr + HDR_RUNTIME, "plumb-rt 0123456789abcdef", 26);
            forge_entry(path, hdr, canon, cn, text, tn, rt_build_secret);
            want_why = "runtime version differs";
            break;
        case 4:   /* control: the original bytes re-keyed as this build does */
            forge_entry(path, hdr, canon, cn, text, tn, rt_build_secret);
            served = true;
            break;
        }
        FILE *log = tmpfile();
        assert_non_null(log);
        plumb_runtime_stats st = fresh_compile_in(m, tmp_dir, log);   /* also checks the result */
        const char *lt = log_text(log);
        if (served) {
            assert_int_equal(st.disk_hits, 1);
            assert_int_equal(st.disk_rejects, 0);
        } else {
            if (st.disk_hits != 0)
                fprintf(stderr, "forged entry of kind %d was served\n", kind);
            assert_int_equal(st.disk_hits, 0);
            assert_int_equal(st.disk_rejects, 1);
            assert_non_null(strstr(lt, "rejected: "));
            assert_non_null(strstr(lt, want_why));
            /* rebuilt: the next runtime is served the rewritten entry */
            st = fresh_compile(m);
            assert_int_equal(st.disk_hits, 1);
        }
        fclose(log);
    }
    free(edited);
    free(orig);
    ir_module_free(m);
}

/* The build identity is derived from the sources at build time: "plumb-rt "
 * and 16 hex digits, never the old hand-kept "plumb-rt 0.1.0/1", and it is
 * in every key (a different identity changes the key) and entry header. */
static void build_identity_is_generated(void **state)
{
    (void)state;
    assert_int_equal(strncmp(rt_runtime_version, "plumb-rt ", 9), 0);
    assert_int_equal(strlen(rt_runtime_version), 9 + 16);
    for (int i = 9; i < 25; i++)
        assert_non_null(strchr("0123456789abcdef", rt_runtime_version[i]));
    ir_module *m = parse_ok(sub_src);
    rt_key_ctx kc = {PLUMB_ISA_PORTABLE, 2};
    rt_canon c;
    memset(&c, 0, sizeof c);
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(rt_canon_build(&c, m, ir_module_find_func(m, "main"), &kc, &d));
    assert_non_null(find_bytes(c.bytes, c.len, rt_runtime_version, 25));
    rt_canon_free(&c);
    char path[600];
    entry_path(m, path, sizeof path);
    (void)fresh_compile(m);
    size_t n;
    uint8_t *b = slurp(path, &n);
    assert_memory_equal(b + HDR_RUNTIME, rt_runtime_version, 26);
    free(b);
    ir_module_free(m);
}

/* Sets an entry's last-use time to t seconds after the epoch. */
static void set_used(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static plumb_runtime_stats compile_capped(const ir_module *m, uint64_t cap)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.cache_dir = tmp_dir;
    o.cache_max_bytes = cap;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    plumb_runtime_destroy(rt);
    return st;
}

/* Eviction keeps the directory under cache_max_bytes by removing the least
 * recently used entries: a hit refreshes an entry, so with room for two
 * entries, writing a third removes the one neither written nor used last.
 * Files that are not entries are never counted or removed. */
static void disk_eviction_is_least_recently_used(void **state)
{
    (void)state;
    char b1[2048], b2[2048], b3[2048];
    ir_module *m1 = parse_ok(edit(b1, sizeof b1, disk_src, "7.5", "11.5"));
    ir_module *m2 = parse_ok(edit(b2, sizeof b2, disk_src, "7.5", "12.5"));
    ir_module *m3 = parse_ok(edit(b3, sizeof b3, disk_src, "7.5", "13.5"));
    char p1[600], p2[600], p3[600], other[700];
    entry_path(m1, p1, sizeof p1);
    entry_path(m2, p2, sizeof p2);
    entry_path(m3, p3, sizeof p3);
    /* start from an empty directory apart from one stranger file */
    DIR *dir = opendir(tmp_dir);
    assert_non_null(dir);
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strstr(e->d_name, ".plumbc")) {
            char q[700];
            snprintf(q, sizeof q, "%s/%s", tmp_dir, e->d_name);
            unlink(q);
        }
    closedir(dir);
    snprintf(other, sizeof other, "%s/notes.txt", tmp_dir);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++)
        fputc('x', f);
    fclose(f);
    uint64_t none = UINT64_MAX;
    (void)compile_capped(m1, none);
    (void)compile_capped(m2, none);
    long one = file_size(p1);
    assert_int_equal(file_size(p2), one);
    set_used(p1, 1000000);
    set_used(p2, 2000000);
    /* m1 used again: served from disk, now the most recently used */
    plumb_runtime_stats st = compile_capped(m1, none);
    assert_int_equal(st.disk_hits, 1);
    /* room for two entries (the stranger file does not count): m3 evicts m2 */
    st = compile_capped(m3, (uint64_t)(2 * one + one / 2));
    assert_int_equal(st.disk_evictions, 1);
    assert_int_equal(access(p2, F_OK), -1);
    assert_int_equal(access(p1, F_OK), 0);
    assert_int_equal(access(p3, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
    /* a cap below one entry keeps only the entry just written */
    st = compile_capped(m2, 1);
    assert_int_equal(st.disk_evictions, 2);
    assert_int_equal(count_files(".plumbc"), 1);
    assert_int_equal(access(p2, F_OK), 0);
    unlink(other);
    ir_module_free(m1);
    ir_module_free(m2);
    ir_module_free(m3);
}

static plumb_runtime *rt_gated(const char *dir, bool error_on_recompile)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.cache_dir = dir;
    o.error_on_recompile = error_on_recompile;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    return rt;
}

/* Budgets are per module and entry: two unrelated models, each `@main` of
 * its own named module, compile once each under error_on_recompile; the
 * same module's second program is refused. Per-entry counters are kept per
 * module and summed by bare name. */
static void gates_count_per_module_and_entry(void **state)
{
    (void)state;
    const char *ma = "module @model_a {\n"
                     "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %r = stablehlo.reverse %x, dims = [0] : tensor<4xf32>\n"
                     "  return %r : tensor<4xf32>\n}\n}\n";
    const char *mb = "module @model_b {\n"
                     "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %r = stablehlo.negate %x : tensor<4xf32>\n"
                     "  return %r : tensor<4xf32>\n}\n}\n";
    char buf[1024];
    ir_module *a = parse_ok(ma), *b = parse_ok(mb);
    ir_module *a2 = parse_ok(edit(buf, sizeof buf, ma, "stablehlo.reverse %x, dims = [0]", "stablehlo.abs %x"));
    plumb_runtime *rt = rt_gated(NULL, true);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, a, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, b, NULL, &d));
    assert_null(plumb_runtime_compile(rt, a2, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "error_on_recompile"));
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, "model_a/main", &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.recompiles, 0);
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.compiles, 2);
    assert_false(plumb_runtime_stats_get(rt, "model_c/main", &st));
    assert_int_equal(plumb_runtime_entry_count(rt), 2);
    const char *mod = NULL, *name = NULL;
    assert_true(plumb_runtime_entry_stats(rt, 1, &mod, &name, &st));
    assert_string_equal(mod, "model_b");
    assert_string_equal(name, "main");
    assert_false(plumb_runtime_entry_stats(rt, 2, &mod, &name, &st));
    plumb_runtime_destroy(rt);
    ir_module_free(a);
    ir_module_free(b);
    ir_module_free(a2);
}

/* A warm start is not a recompile: programs an earlier run built come from
 * disk under error_on_recompile (counted as disk hits, never recompiles);
 * only a program built now is refused. */
static void warm_start_disk_hits_are_not_recompiles(void **state)
{
    (void)state;
    char b1[2048], b2[2048];
    ir_module *m1 = parse_ok(edit(b1, sizeof b1, disk_src, "7.5", "21.5"));
    ir_module *m2 = parse_ok(edit(b2, sizeof b2, disk_src, "7.5", "22.5"));
    ir_module *m3 = parse_ok(edit(b2, sizeof b2, disk_src, "7.5", "23.5"));
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_gated(tmp_dir, false);
    assert_non_null(plumb_runtime_compile(rt, m1, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, m2, NULL, &d));
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.recompiles, 1);
    plumb_runtime_destroy(rt);
    rt = rt_gated(tmp_dir, true);
    assert_non_null(plumb_runtime_compile(rt, m1, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, m2, NULL, &d));
    assert_null(plumb_runtime_last_explanation(rt));
    assert_null(plumb_runtime_compile(rt, m3, NULL, &d));
    if (!strstr(d.msg, "became 2.350000e+01"))
        fprintf(stderr, "%s\n", d.msg);
    assert_non_null(strstr(d.msg, "became 2.350000e+01"));
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.disk_hits, 2);
    assert_int_equal(st.recompiles, 0);
    plumb_runtime_destroy(rt);
    ir_module_free(m1);
    ir_module_free(m2);
    ir_module_free(m3);
}

typedef struct writer_arg {
    const ir_module *m;
    int rounds;
    bool ok;
} writer_arg;

static void *writer(void *p)
{
    writer_arg *w = p;
    w->ok = true;
    for (int i = 0; i < w->rounds; i++) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = 1;
        o.cache_dir = tmp_dir;
        plumb_diag d = {.code = PLUMB_OK};
        plumb_runtime *rt = plumb_runtime_create(&o, &d);
        if (!rt || !plumb_runtime_compile(rt, w->m, NULL, &d))
            w->ok = false;
        plumb_runtime_destroy(rt);
    }
    return NULL;
}

/* Writers racing on one entry while a reader keeps loading it: every load
 * that finds a file gets a whole, valid entry, and no temporary files stay. */
static void concurrent_writers_never_expose_half_entries(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char path[600];
    entry_path(m, path, sizeof path);
    unlink(path);
    writer_arg w[3] = {{m, 30, false}, {m, 30, false}, {m, 30, false}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, writer, &w[i]), 0);
    plumb_runtime *probe = rt_new(1, 2, NULL);
    rt_canon c;
    memset(&c, 0, sizeof c);
    plumb_diag d = {.code = PLUMB_OK};
    rt_key_ctx kc = {rt_cpu_best_isa(), 2};
    assert_true(rt_canon_build(&c, m, ir_module_find_func(m, "main"), &kc, &d));
    uint64_t k[2];
    rt_canon_key(&c, k);
    int seen = 0;
    for (int i = 0; i < 2000; i++) {
        const char *why = NULL;
        size_t len = 0;
        char *text = rt_disk_load(tmp_dir, k, &c, &kc, &len, &why);
        if (text) {
            seen++;
            assert_non_null(strstr(text, "func.func"));
            plumb_free(text, len + 1);
        } else if (why && why[0]) {
            fprintf(stderr, "reader saw a bad entry: %s\n", why);
            fail();
        }
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        assert_true(w[i].ok);
    }
    assert_int_equal(count_files(".plumb-tmp."), 0);
    /* the last rename left a whole entry */
    size_t len = 0;
    char *text = rt_disk_load(tmp_dir, k, &c, &kc, &len, NULL);
    assert_non_null(text);
    plumb_free(text, len + 1);
    fprintf(stderr, "reader loaded the entry %d times while it was being replaced\n", seen);
    rt_canon_free(&c);
    plumb_runtime_destroy(probe);
    ir_module_free(m);
}

/* ---- a cache directory others can reach --------------------------------------- */

/* Removes path recursively; links are removed, never followed. */
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

static void read_whole(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = 0;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "the disk cache blocked on an entry that is a FIFO\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* A symbolic link planted at an entry's (predictable) name is never
 * followed: the lookup calls it a bad entry, the store refuses to write
 * through it, the link's target keeps its contents, the program still runs
 * right (the old writer resolved the link and overwrote its target). */
static void disk_symlink_at_entry_name_is_never_followed(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char path[600], victim[600], got[64];
    entry_path(m, path, sizeof path);
    unlink(path);
    snprintf(victim, sizeof victim, "%s/victim", tmp_dir);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    assert_int_equal(symlink(victim, path), 0);
    for (int round = 0; round < 2; round++) {
        plumb_runtime_stats st = fresh_compile(m);
        assert_int_equal(st.disk_hits, 0);
        assert_int_equal(st.compiles, 1);
    }
    read_whole(victim, got, sizeof got);
    assert_string_equal(got, "precious");
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    /* the lookup names the problem */
    rt_canon c;
    memset(&c, 0, sizeof c);
    plumb_diag d = {.code = PLUMB_OK};
    rt_key_ctx kc = {rt_cpu_best_isa(), 2};
    assert_true(rt_canon_build(&c, m, ir_module_find_func(m, "main"), &kc, &d));
    uint64_t k[2];
    rt_canon_key(&c, k);
    const char *why = NULL;
    size_t len = 0;
    assert_null(rt_disk_load(tmp_dir, k, &c, &kc, &len, &why));
    assert_string_equal(why, "entry is a symbolic link");
    /* and the store says why it wrote nothing */
    assert_false(rt_disk_store(tmp_dir, k, &c, &kc, "x", 1, &d));
    assert_non_null(strstr(d.msg, "is a symbolic link"));
    rt_canon_free(&c);
    unlink(path);
    unlink(victim);
    assert_int_equal(count_files(".plumb-tmp."), 0);
    ir_module_free(m);
}

/* A FIFO at an entry's name neither blocks the lookup (the alarm would end
 * the test) nor is replaced. */
static void disk_fifo_at_entry_name_does_not_block(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char path[600];
    entry_path(m, path, sizeof path);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(20);
    plumb_runtime_stats st = fresh_compile(m);
    alarm(0);
    assert_int_equal(st.disk_hits, 0);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    unlink(path);
    ir_module_free(m);
}

/* A missing cache directory is created with every missing parent, each
 * 0700 whatever the umask allows (the old code made only the last one, so
 * a nested path never got a cache). */
static void cache_dir_created_with_parents_0700(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char top[600], dir[600];
    snprintf(top, sizeof top, "%s/a", tmp_dir);
    snprintf(dir, sizeof dir, "%s/a/b/c", tmp_dir);
    mode_t mask = umask(022);
    plumb_runtime_stats st = fresh_compile_in(m, dir, NULL);
    umask(mask);
    assert_int_equal(st.compiles, 1);
    static const char *const parts[] = {"a", "a/b", "a/b/c"};
    for (int i = 0; i < 3; i++) {
        char p[600];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", tmp_dir, parts[i]);
        assert_int_equal(stat(p, &sb), 0);
        assert_true(S_ISDIR(sb.st_mode));
        assert_int_equal(sb.st_mode & 07777, 0700);
    }
    st = fresh_compile_in(m, dir, NULL);
    assert_int_equal(st.disk_hits, 1);
    rm_tree(top);
    ir_module_free(m);
}

/* Compiles m on dir with a log; returns the log's text in out. */
static plumb_runtime_stats compile_logged(const ir_module *m, const char *dir, char *out, size_t cap)
{
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_runtime_stats st = fresh_compile_in(m, dir, log);
    rewind(log);
    size_t n = fread(out, 1, cap - 1, log);
    out[n] = 0;
    fclose(log);
    return st;
}

static int count_lines_with(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* A cache directory writable by every user (sticky or not), by its group
 * (without PLUMB_CACHE_SHARED=1), or owned by another user is never
 * trusted: one warning line, no entry read from it even when a valid one
 * is there, none written, and the run itself succeeds. */
static void untrusted_cache_dir_disabled_with_warning(void **state)
{
    (void)state;
    ir_module *m = parse_ok(disk_src);
    char dir[600], log[4096];
    snprintf(dir, sizeof dir, "%s/shared", tmp_dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    /* a valid entry, written while the directory was still private */
    plumb_runtime_stats st = fresh_compile_in(m, dir, NULL);
    st = fresh_compile_in(m, dir, NULL);
    assert_int_equal(st.disk_hits, 1);
    unsetenv("PLUMB_CACHE_SHARED");
    static const struct { unsigned mode; const char *why; } bad[] = {
        {0777, "writable by every user (mode 0777)"},
        {01777, "writable by every user (mode 1777)"},
        {0770, "writable by its group (mode 0770; PLUMB_CACHE_SHARED=1 trusts the group)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(chmod(dir, bad[i].mode), 0);
        st = compile_logged(m, dir, log, sizeof log);
        if (!strstr(log, bad[i].why))
            fprintf(stderr, "log was: %s\n", log);
        assert_non_null(strstr(log, bad[i].why));
        assert_int_equal(count_lines_with(log, "plumb: warning: disk cache disabled: cache directory '"), 1);
        assert_int_equal(count_lines_with(log, "\n"), 1);
        assert_int_equal(st.disk_hits, 0);
        assert_int_equal(st.compiles, 1);
    }
    /* the lookup itself refuses it too (a caller that skipped the check) */
    rt_canon c;
    memset(&c, 0, sizeof c);
    plumb_diag d = {.code = PLUMB_OK};
    rt_key_ctx kc = {rt_cpu_best_isa(), 2};
    assert_true(rt_canon_build(&c, m, ir_module_find_func(m, "main"), &kc, &d));
    uint64_t k[2];
    rt_canon_key(&c, k);
    const char *why = NULL;
    size_t len = 0;
    assert_int_equal(chmod(dir, 0777), 0);
    assert_null(rt_disk_load(dir, k, &c, &kc, &len, &why));
    assert_string_equal(why, "cache directory is not trusted or cannot be opened");
    /* the group is trusted when the user says so */
    assert_int_equal(chmod(dir, 0770), 0);
    setenv("PLUMB_CACHE_SHARED", "1", 1);
    st = compile_logged(m, dir, log, sizeof log);
    unsetenv("PLUMB_CACHE_SHARED");
    assert_string_equal(log, "");
    assert_int_equal(st.disk_hits, 1);
    /* another user's directory (only root can make one here) */
    if (geteuid() == 0) {
        assert_int_equal(chmod(dir, 0700), 0);
        assert_int_equal(chown(dir, 65534, 65534), 0);
        st = compile_logged(m, dir, log, sizeof log);
        assert_non_null(strstr(log, "is owned by uid 65534, not by this user (uid 0) or root"));
        assert_int_equal(st.disk_hits, 0);
    } else {
        fprintf(stderr, "skipped the other-owner case: it needs root to chown\n");
    }
    rt_canon_free(&c);
    rm_tree(dir);
    ir_module_free(m);
}

/* Counters reset to zero but keep the program count; clearing the cache
 * drops the programs so the next compile is a miss again. */
static void stats_reset_and_cache_clear(void **state)
{
    (void)state;
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *m = parse_ok(base_src);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    plumb_runtime_stats st;
    plumb_runtime_stats_reset(rt);
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 0);
    assert_int_equal(st.cache_hits, 0);
    assert_int_equal(st.programs, 1);
    plumb_runtime_cache_clear(rt);
    assert_non_null(plumb_runtime_compile(rt, m, NULL, &d));
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.programs, 1);
    assert_false(plumb_runtime_stats_get(rt, "nope", &st));
    ir_module_free(m);
    plumb_runtime_destroy(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_stable_under_printing_and_renaming),
        cmocka_unit_test(key_sensitive_to_every_semantic_change),
        cmocka_unit_test(key_includes_code_options_only),
        cmocka_unit_test(parameter_values_never_compile),
        cmocka_unit_test(baked_constant_compiles_once_and_is_explained),
        cmocka_unit_test(explanations_classify_differences),
        cmocka_unit_test(cap_and_error_on_recompile),
        cmocka_unit_test(disk_hit_in_second_runtime),
        cmocka_unit_test(disk_bad_entries_are_rebuilt),
        cmocka_unit_test(disk_edited_or_foreign_entries_are_never_served),
        cmocka_unit_test(build_identity_is_generated),
        cmocka_unit_test(disk_eviction_is_least_recently_used),
        cmocka_unit_test(gates_count_per_module_and_entry),
        cmocka_unit_test(warm_start_disk_hits_are_not_recompiles),
        cmocka_unit_test(concurrent_writers_never_expose_half_entries),
        cmocka_unit_test(disk_symlink_at_entry_name_is_never_followed),
        cmocka_unit_test(disk_fifo_at_entry_name_does_not_block),
        cmocka_unit_test(cache_dir_created_with_parents_0700),
        cmocka_unit_test(untrusted_cache_dir_disabled_with_warning),
        cmocka_unit_test(stats_reset_and_cache_clear),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
