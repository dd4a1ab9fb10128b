/* Compile contracts (runtime/contract.c, docs/contracts.md) through the
 * API: parse errors name the file and line, contradictions and unknown
 * entries are refused, max-programs catches a storm, budgets are kept per
 * module and entry (and per module signature when a rule pins one), variant
 * lists are exact, and programs served from the disk cache never count
 * against a warm-up rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "plumb/contract.h"
#include "plumb/runtime.h"

static char tmp_dir[] = "/tmp/plumb-contract-XXXXXX";

/* A program of module `mod` (NULL: unnamed) whose @main scales by `c`:
 * each c is another program (a baked constant). */
static ir_module *prog(const char *mod, double c)
{
    char src[600];
    snprintf(src, sizeof src,
             "%s%s%s"
             "func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
             "  %%c = stablehlo.constant dense<%.6e> : tensor<4xf32>\n"
             "  %%m = stablehlo.multiply %%x, %%c : tensor<4xf32>\n"
             "  return %%m : tensor<4xf32>\n"
             "}\n%s",
             mod ? "module @" : "", mod ? mod : "", mod ? " {\n" : "", c, mod ? "}\n" : "");
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(src, strlen(src), "prog.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    assert_true(ir_verify(m, NULL, &d));
    return m;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[8][512];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 512, "%s/%s", tmp_dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static plumb_runtime *rt_with(const char *contract, const char *cache_dir, plumb_diag *d)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.contract_file = contract;
    o.cache_dir = cache_dir;
    o.cache_max_bytes = UINT64_MAX;
    return plumb_runtime_create(&o, d);
}

/* Compiles prog(mod, c); returns the diagnostic's code. */
static plumb_code compile(plumb_runtime *rt, const char *mod, double c, plumb_diag *d)
{
    *d = (plumb_diag){.code = PLUMB_OK};
    ir_module *m = prog(mod, c);
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, d);
    ir_module_free(m);
    assert_true((ex != NULL) == (d->code == PLUMB_OK));
    return d->code;
}

static void parse_fails(const char *text, const char *want)
{
    plumb_diag d = {.code = PLUMB_OK};
    plumb_contract *c = plumb_contract_parse(text, strlen(text), "gate.ct", &d);
    if (c || !strstr(d.msg, want))
        fprintf(stderr, "contract:\n%s\nmessage: %s\nwanted: %s\n", text, d.msg, want);
    assert_null(c);
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, want));
}

/* Each malformed line is an error naming the file and its line number. */
static void parse_errors_name_file_and_line(void **state)
{
    (void)state;
    parse_fails("# ok\nmodule * entry main max-programs 2\nmodule * entry main\n", "gate.ct:3: expected 'module");
    parse_fails("module a entry main max-programs 0\n", "gate.ct:1: max-programs takes one number");
    parse_fails("module a entry main max-programs two\n", "gate.ct:1: max-programs takes");
    parse_fails("\n\nmodule a entry main most-programs 2\n", "gate.ct:3: unknown rule 'most-programs'");
    parse_fails("module a entry main warmup-runs 3 then compile\n", "gate.ct:1: expected 'warmup-runs N then");
    parse_fails("module a entry * variants x.mlir\n", "gate.ct:1: variant file x.mlir needs a named entry");
    parse_fails("module a signature 12ab entry main max-programs 1\n", "gate.ct:1: signature '12ab' is not 16");
    parse_fails("module * signature 0123456789abcdef entry main max-programs 1\n",
                "gate.ct:1: a signature pins a named module");
    parse_fails("module a signature 0123456789abcdef entry main max-programs 1\n"
                "module a signature 0123456789abcdef entry main max-programs 2\n",
                "gate.ct:2: contradicts line 1: max-programs 1 there, 2 here");
    plumb_diag d = {.code = PLUMB_OK};
    const char *good = "# plumb compile contract\n\nmodule train entry main max-programs 2   # two\n"
                       "module * entry * warmup-runs 3 then no-new-compiles\n";
    plumb_contract *c = plumb_contract_parse(good, strlen(good), "gate.ct", &d);
    assert_non_null(c);
    assert_int_equal(plumb_contract_rule_count(c), 2);
    plumb_contract_free(c);
}

/* A contract that contradicts itself is refused with both lines named. */
static void contradictions_refused(void **state)
{
    (void)state;
    parse_fails("module a entry main max-programs 1\nmodule a entry main variants "
                "00000000000000000000000000000001 00000000000000000000000000000002\n",
                "gate.ct:2: contradicts line 1: max-programs 1 but 2 variants");
    parse_fails("module * entry * max-programs 1\nmodule a entry main variants "
                "00000000000000000000000000000001 00000000000000000000000000000002\n",
                "gate.ct:2: contradicts line 1");
    parse_fails("module a entry main max-programs 2\nmodule a entry main max-programs 3\n",
                "gate.ct:2: contradicts line 1: max-programs 2 there, 3 here");
    parse_fails("module a entry main variants 00000000000000000000000000000001\n"
                "module a entry main variants 00000000000000000000000000000002\n",
                "gate.ct:2: module a entry main already lists its variants at line 1");
}

/* max-programs 2: a storm of baked constants is refused at its third
 * program, naming the rule and explaining the compile. */
static void max_programs_catches_storm(void **state)
{
    (void)state;
    const char *ct = write_file("storm.ct", "module * entry main max-programs 2\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(ct, NULL, &d);
    assert_non_null(rt);
    assert_int_equal(compile(rt, NULL, 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.25, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.5, &d), PLUMB_OK);   /* a cache hit builds nothing */
    assert_int_equal(compile(rt, NULL, 0.125, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "storm.ct:1: @main would build program 3, max-programs 2"));
    assert_non_null(strstr(d.msg, "recompile of @main"));
    assert_non_null(strstr(d.msg, "baked constant"));
    plumb_runtime_destroy(rt);
}

/* Two unrelated modules that both have @main keep separate budgets. */
static void budgets_per_module(void **state)
{
    (void)state;
    const char *ct = write_file("mods.ct", "module * entry main max-programs 1\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(ct, NULL, &d);
    assert_non_null(rt);
    assert_int_equal(compile(rt, "bert", 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, "resnet", 0.25, &d), PLUMB_OK);
    assert_int_equal(compile(rt, "bert", 0.125, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "bert/@main would build program 2, max-programs 1"));
    assert_true(plumb_runtime_contract_check(rt, &d));
    plumb_runtime_destroy(rt);
}

/* A rule for one module leaves the other alone, and a rule no compile
 * matched (a misspelt module) fails the check with its line. */
static void named_module_rule_and_unmatched(void **state)
{
    (void)state;
    const char *ct = write_file("named.ct", "module bert entry main max-programs 1\nmodule bret entry main max-programs 4\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(ct, NULL, &d);
    assert_non_null(rt);
    assert_int_equal(compile(rt, "resnet", 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, "resnet", 0.25, &d), PLUMB_OK);
    assert_int_equal(compile(rt, "bert", 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, "bert", 0.25, &d), PLUMB_ERR_LIMIT);
    d = (plumb_diag){.code = PLUMB_OK};
    assert_false(plumb_runtime_contract_check(rt, &d));
    assert_int_equal(d.code, PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "named.ct:2: module bret entry main matched no compiled entry"));
    assert_null(strstr(d.msg, "named.ct:1"));
    plumb_runtime_destroy(rt);
}

/* Model A: @main(tensor<4xf32>) -> tensor<4xf32> scaled by c; model B:
 * @main(tensor<2x2xi32>) -> tensor<2x2xi32> plus c; model C: @main with
 * two f32 parameters. All three may be called `module @net`. */
static ir_module *model(char which, int c)
{
    char src[700];
    if (which == 'A')
        snprintf(src, sizeof src,
                 "module @net {\n  func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "    %%c = stablehlo.constant dense<%d.0> : tensor<4xf32>\n"
                 "    %%m = stablehlo.multiply %%x, %%c : tensor<4xf32>\n    return %%m : tensor<4xf32>\n  }\n}\n", c);
    else if (which == 'B')
        snprintf(src, sizeof src,
                 "module @net {\n  func.func @main(%%x: tensor<2x2xi32>) -> tensor<2x2xi32> {\n"
                 "    %%c = stablehlo.constant dense<%d> : tensor<2x2xi32>\n"
                 "    %%m = stablehlo.add %%x, %%c : tensor<2x2xi32>\n    return %%m : tensor<2x2xi32>\n  }\n}\n", c);
    else
        snprintf(src, sizeof src,
                 "module @net {\n  func.func @main(%%x: tensor<4xf32>, %%y: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "    %%c = stablehlo.constant dense<%d.0> : tensor<4xf32>\n"
                 "    %%m = stablehlo.multiply %%x, %%c : tensor<4xf32>\n"
                 "    %%s = stablehlo.add %%m, %%y : tensor<4xf32>\n    return %%s : tensor<4xf32>\n  }\n}\n", c);
    plumb_diag d = {.code = PLUMB_OK};
    ir_module *m = ir_parse(src, strlen(src), "model.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    assert_true(ir_verify(m, NULL, &d));
    return m;
}

/* The signature as docs/contracts.md defines it, computed here from that
 * text: XXH3-64, seed 0, of the u32 sequence n_params, n_results, then
 * element type and rank of each parameter and of each result. */
static void sig_hex(char which, char out[17])
{
    uint32_t v[16], n = 0;
    if (which == 'A') {
        uint32_t a[] = {1, 1, PLUMB_F32, 1, PLUMB_F32, 1};
        memcpy(v, a, sizeof a);
        n = 6;
    } else if (which == 'B') {
        uint32_t b[] = {1, 1, PLUMB_I32, 2, PLUMB_I32, 2};
        memcpy(v, b, sizeof b);
        n = 6;
    } else {
        uint32_t cc[] = {2, 1, PLUMB_F32, 1, PLUMB_F32, 1, PLUMB_F32, 1};
        memcpy(v, cc, sizeof cc);
        n = 8;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_withSeed(v, n * sizeof v[0], 0));
}

static plumb_code compile_model(plumb_runtime *rt, char which, int c, plumb_diag *d)
{
    *d = (plumb_diag){.code = PLUMB_OK};
    ir_module *m = model(which, c);
    plumb_executable *ex = plumb_runtime_compile(rt, m, NULL, d);
    ir_module_free(m);
    assert_true((ex != NULL) == (d->code == PLUMB_OK));
    return d->code;
}

/* Two different models under one @name: a rule by name alone still
 * shares its budget between them (a storm across them is caught) but says
 * so loudly once, with both signatures; rules pinned by signature give
 * each its own budget and refuse a third model under the name. */
static void same_name_modules_by_signature(void **state)
{
    (void)state;
    char sa[17], sb[17], sc[17];
    sig_hex('A', sa);
    sig_hex('B', sb);
    sig_hex('C', sc);
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.log = log;
    o.contract_file = write_file("shared.ct", "module net entry main max-programs 2\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_int_equal(compile_model(rt, 'A', 1, &d), PLUMB_OK);
    assert_int_equal(compile_model(rt, 'B', 1, &d), PLUMB_OK);
    assert_int_equal(compile_model(rt, 'A', 2, &d), PLUMB_ERR_LIMIT);   /* one budget for both */
    assert_non_null(strstr(d.msg, "net/@main would build program 3, max-programs 2"));
    plumb_runtime_destroy(rt);
    char text[4096] = "";
    rewind(log);
    size_t got = fread(text, 1, sizeof text - 1, log);
    text[got] = 0;
    fclose(log);
    char want[600];
    snprintf(want, sizeof want, "shared.ct:1: module net entry main now has signature %s, its first program %s", sb,
             sa);
    if (!strstr(text, want))
        fprintf(stderr, "log:\n%s\nwanted: %s\n", text, want);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "module net signature HEX entry main"));

    char ct[600];
    snprintf(ct, sizeof ct, "module net signature %s entry main max-programs 1\n"
                            "module net signature %s entry main max-programs 2\n", sa, sb);
    o.log = NULL;
    o.contract_file = write_file("pinned.ct", ct);
    rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_int_equal(compile_model(rt, 'A', 1, &d), PLUMB_OK);
    assert_int_equal(compile_model(rt, 'B', 1, &d), PLUMB_OK);
    assert_int_equal(compile_model(rt, 'B', 2, &d), PLUMB_OK);   /* B's own budget of 2 */
    assert_int_equal(compile_model(rt, 'B', 3, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "pinned.ct:2: net/@main would build program 3 of its signature, max-programs 2"));
    assert_int_equal(compile_model(rt, 'A', 2, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "pinned.ct:1: net/@main would build program 2 of its signature, max-programs 1"));
    assert_int_equal(compile_model(rt, 'A', 1, &d), PLUMB_OK);   /* a hit builds nothing */
    assert_int_equal(compile_model(rt, 'C', 1, &d), PLUMB_ERR_LIMIT);
    snprintf(want, sizeof want, "net/@main has module signature %s, but the contract pins module net entry main to "
                                "signature %s: another module under the same @name", sc, sa);
    if (!strstr(d.msg, want))
        fprintf(stderr, "msg: %s\nwanted: %s\n", d.msg, want);
    assert_non_null(strstr(d.msg, want));
    assert_true(plumb_runtime_contract_check(rt, &d));
    plumb_runtime_destroy(rt);

    /* a pinned rule whose module never came is named as unmatched, with its signature */
    snprintf(ct, sizeof ct, "module net signature %s entry main max-programs 1\n"
                            "module net signature %s entry main max-programs 1\n", sa, sc);
    o.contract_file = write_file("unused.ct", ct);
    rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    assert_int_equal(compile_model(rt, 'A', 1, &d), PLUMB_OK);
    d = (plumb_diag){.code = PLUMB_OK};
    assert_false(plumb_runtime_contract_check(rt, &d));
    snprintf(want, sizeof want, "unused.ct:2: module net signature %s entry main matched no compiled entry", sc);
    assert_non_null(strstr(d.msg, want));
    plumb_runtime_destroy(rt);
}

static void prog_file(const char *name, double c)
{
    char src[400];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
             "  %%c = stablehlo.constant dense<%.6e> : tensor<4xf32>\n"
             "  %%m = stablehlo.multiply %%x, %%c : tensor<4xf32>\n"
             "  return %%m : tensor<4xf32>\n}\n", c);
    write_file(name, src);
}

/* Variants by file (relative to the contract) are exact: the listed
 * programs build, a third is refused with its key; a variant file without
 * the rule's entry is an unknown entry at the contract's line. */
static void variants_exact(void **state)
{
    (void)state;
    prog_file("v1.mlir", 0.5);
    prog_file("v2.mlir", 0.25);
    const char *ct = write_file("var.ct", "# two programs\nmodule * entry main variants v1.mlir v2.mlir\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(ct, NULL, &d);
    assert_non_null(rt);
    assert_int_equal(compile(rt, NULL, 0.25, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.125, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "var.ct:2: @main program key "));
    assert_non_null(strstr(d.msg, "is not one of its 2 variants (v1.mlir = "));
    plumb_runtime_destroy(rt);

    ct = write_file("unk.ct", "module * entry step variants v1.mlir\n");
    d = (plumb_diag){.code = PLUMB_OK};
    assert_null(rt_with(ct, NULL, &d));
    assert_non_null(strstr(d.msg, "unk.ct:1: unknown entry: variant"));
    assert_non_null(strstr(d.msg, "has no function @step"));
}

/* warmup-runs 0 then no-new-compiles: a warm start whose programs all come
 * from the disk cache passes; a program never built before is refused. */
static void warmup_allows_disk_hits(void **state)
{
    (void)state;
    char cache[600];
    snprintf(cache, sizeof cache, "%s/cache", tmp_dir);
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(NULL, cache, &d);   /* the earlier run fills the cache */
    assert_non_null(rt);
    assert_int_equal(compile(rt, NULL, 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.25, &d), PLUMB_OK);
    plumb_runtime_destroy(rt);

    const char *ct = write_file("warm.ct", "module * entry * warmup-runs 0 then no-new-compiles\n");
    rt = rt_with(ct, cache, &d);
    assert_non_null(rt);
    assert_int_equal(compile(rt, NULL, 0.5, &d), PLUMB_OK);
    assert_int_equal(compile(rt, NULL, 0.25, &d), PLUMB_OK);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.disk_hits, 2);
    assert_int_equal(compile(rt, NULL, 0.125, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "warm.ct:1: @main compiles after 0 runs (warmup-runs 0 then no-new-compiles)"));
    plumb_runtime_destroy(rt);
}

/* After N runs of an entry, a new compile is refused; before, it is not. */
static void warmup_counts_runs(void **state)
{
    (void)state;
    const char *ct = write_file("runs.ct", "module * entry main warmup-runs 2 then no-new-compiles\n");
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = rt_with(ct, NULL, &d);
    assert_non_null(rt);
    float xs[4] = {1, 2, 3, 4};
    int64_t dims[1] = {4};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d);
    assert_non_null(x);
    memcpy(x->data, xs, sizeof xs);
    for (int i = 0; i < 3; i++) {
        ir_module *m = prog(NULL, i == 1 ? 0.25 : 0.5);
        plumb_tensor *out[1] = {NULL};
        d = (plumb_diag){.code = PLUMB_OK};
        assert_true(plumb_runtime_run(rt, m, NULL, &x, 1, out, 1, NULL, &d));
        plumb_tensor_free(out[0]);
        ir_module_free(m);
    }
    assert_int_equal(compile(rt, NULL, 0.125, &d), PLUMB_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "runs.ct:1: @main compiles after 3 runs"));
    plumb_tensor_free(x);
    plumb_runtime_destroy(rt);
}

/* A contract file that cannot be read is an error naming it. */
static void missing_contract_file(void **state)
{
    (void)state;
    plumb_diag d = {.code = PLUMB_OK};
    assert_null(rt_with("/nonexistent/gate.ct", NULL, &d));
    assert_non_null(strstr(d.msg, "/nonexistent/gate.ct"));
}

static int setup(void **state)
{
    (void)state;
    unsetenv("PLUMB_CONTRACT");
    unsetenv("PLUMB_CACHE_DIR");
    unsetenv("PLUMB_LOG");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_errors_name_file_and_line),
        cmocka_unit_test(contradictions_refused),
        cmocka_unit_test(max_programs_catches_storm),
        cmocka_unit_test(budgets_per_module),
        cmocka_unit_test(named_module_rule_and_unmatched),
        cmocka_unit_test(same_name_modules_by_signature),
        cmocka_unit_test(variants_exact),
        cmocka_unit_test(warmup_allows_disk_hits),
        cmocka_unit_test(warmup_counts_runs),
        cmocka_unit_test(missing_contract_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
