/* The HTML report (conformance/report_html.c, svg.c) on hand-built runs:
 * escaping of every byte class, the verdict banner against
 * conf_run_certified, failures grouped by op and reason shape, the
 * histogram bins and the compile timeline's marks. Expected strings are
 * written out by hand from the HTML and SVG rules, not produced by the
 * writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/certify.h"
#include "../../conformance/html.h"

static char *esc(const char *s, size_t n)
{
    plumb_buf b;
    plumb_buf_init(&b);
    conf_html_esc_n(&b, s, n);
    assert_false(b.failed);
    size_t len;
    return plumb_buf_take(&b, &len);
}

/* plumb_buf_take's block is len + 1 bytes, freed as such. */
static void take_free(char *p) { plumb_free(p, strlen(p) + 1); }

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* Markup characters and both quotes become entities: no string can end an
 * element or a quoted attribute. */
static void test_escape_markup(void **state)
{
    (void)state;
    const char *s = "<script>alert('x')</script> & \"q\"";
    char *e = esc(s, strlen(s));
    assert_string_equal(e, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
    take_free(e);
}

/* Control characters (but tab and newline), DEL and bytes that are not
 * valid UTF-8 (a lone continuation, an overlong '/', a surrogate, a
 * truncated sequence) become U+FFFD; valid multibyte characters pass. */
static void test_escape_bytes(void **state)
{
    (void)state;
    const char s[] = "a\x01" "b\tc\n\x7f" "\x80" "\xc0\xaf" "\xed\xa0\x80" "\xe2\x86\x92" "\xf0\x9f\x98\x80" "\xe2\x86";
    char *e = esc(s, sizeof s - 1);
    const char *want = "a\xef\xbf\xbd" "b\tc\n\xef\xbf\xbd" "\xef\xbf\xbd"
                       "\xef\xbf\xbd\xef\xbf\xbd" "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                       "\xe2\x86\x92" "\xf0\x9f\x98\x80" "\xef\xbf\xbd\xef\xbf\xbd";
    assert_string_equal(e, want);
    take_free(e);
}

/* A complete, passing run of one op: add/f32 with three checked cases. */
static void make_run(conf_run *run)
{
    memset(run, 0, sizeof *run);
    conf_run_options_init(&run->opts);
    snprintf(run->backend.name, sizeof run->backend.name, "hand<made>");
    snprintf(run->backend.version, sizeof run->backend.version, "1.0");
    snprintf(run->backend.where, sizeof run->backend.where, "/tmp/a\"b'c/x.so");
    conf_caps *c = &run->backend.caps;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) c->accum[t] = (plumb_dtype)t;
    c->claims[PLUMB_OP_ADD] = PLUMB_TY_BIT(PLUMB_F32);
    c->n_claimed_ops = 1;
    run->op_in_run[PLUMB_OP_ADD] = true;
    conf_op_summary *s = &run->ops[PLUMB_OP_ADD];
    s->op = PLUMB_OP_ADD;
    s->claimed = c->claims[PLUMB_OP_ADD];
    s->expected = s->generated = s->cases = s->passed = 3;
    s->manifest_ok = true;
    run->cases = calloc(8, sizeof *run->cases);
    assert_non_null(run->cases);
    const double budgets[3] = {0.0, 0.1, 0.75};   /* bins 0, 2 ((1/16, 1/8]) and 5 ((1/2, 1]) */
    for (int i = 0; i < 3; i++) {
        conf_case_result *r = &run->cases[i];
        snprintf(r->id, sizeof r->id, "add/f32/odd/normal/%d", i);
        r->op = PLUMB_OP_ADD;
        r->dtype = PLUMB_F32;
        r->status = CONF_ST_PASS;
        r->budget_used = budgets[i];
        r->attempts = 1;
    }
    run->n_cases = 3;
    run->passed = 3;
    s->worst_budget = 0.75;
    conf_run_judge(run);
}

static char *page(const conf_run *run)
{
    plumb_buf b;
    plumb_buf_init(&b);
    conf_report_html(&b, run);
    assert_false(b.failed);
    size_t len;
    return plumb_buf_take(&b, &len);
}

/* A complete run that passed is CERTIFIED, and the backend's strings are
 * escaped wherever they appear. */
static void test_certified(void **state)
{
    (void)state;
    conf_run run;
    make_run(&run);
    assert_true(conf_run_certified(&run));
    char *p = page(&run);
    assert_non_null(strstr(p, "class=\"verdict v-pass\" data-certified=\"true\""));
    assert_non_null(strstr(p, "<p class=\"word\">CERTIFIED</p>"));
    assert_null(strstr(p, "hand<made>"));
    assert_non_null(strstr(p, "hand&lt;made&gt;"));
    assert_null(strstr(p, "a\"b'c"));
    assert_non_null(strstr(p, "/tmp/a&quot;b&#39;c/x.so"));
    assert_non_null(strstr(p, "<h2 id=\"failures\">Failures (0)</h2>"));
    /* make_run declares every type its own accumulator: the small formats
     * are listed one by one and named as summed in themselves */
    assert_non_null(strstr(p, "<dd id=\"accum-small\">f8E4M3FN-&gt;f8E4M3FN f8E5M2-&gt;f8E5M2"));
    assert_non_null(strstr(p, "; summed in the format itself: f8E4M3FN"));
    take_free(p);
    free(run.cases);
}

/* The same passing cases under --limit are a partial run: the banner says
 * PARTIAL and never CERTIFIED; a failed complete run says NOT CERTIFIED. */
static void test_partial_and_failed(void **state)
{
    (void)state;
    conf_run run;
    make_run(&run);
    run.opts.limit = 3;
    conf_run_judge(&run);
    char *p = page(&run);
    assert_non_null(strstr(p, "class=\"verdict v-partial\" data-certified=\"false\""));
    assert_non_null(strstr(p, "PARTIAL RUN — NOT A CERTIFICATE"));
    assert_null(strstr(p, ">CERTIFIED<"));
    take_free(p);
    run.opts.limit = 0;
    run.cases[2].status = CONF_ST_FAIL;
    run.ops[PLUMB_OP_ADD].passed = 2;
    run.ops[PLUMB_OP_ADD].failed = 1;
    run.passed = 2;
    run.failed = 1;
    conf_run_judge(&run);
    p = page(&run);
    assert_non_null(strstr(p, "class=\"verdict v-fail\" data-certified=\"false\""));
    assert_non_null(strstr(p, "<p class=\"word\">NOT CERTIFIED</p>"));
    take_free(p);
    free(run.cases);
}

/* Failures of one op whose reasons differ only in numbers and indices form
 * one group; another reason another group; a crash a third. Each lists its
 * replay command with the run's suite and seed. */
static void test_failure_groups(void **state)
{
    (void)state;
    conf_run run;
    make_run(&run);
    const char *reasons[5] = {
        "output 0 element 3 at [3]: got 0x3f800002 (1.00000024), want 0x3f800000 (1); error 2 ulp, bound 1 ulp",
        "output 0 element 10 at [0,10]: got 0x7effff9e (1.7014019e+38), want 0x7effff9c (1.70140169e+38); error 2 ulp, bound 1 ulp",
        "output 0 element 1 at [1]: got -0.5 (-0.5), want 0.5 (0.5); error 3 ulp, bound 1 ulp",
        "output 0 has shape [2,3], want [3,2]",
        "died of signal 11 (Segmentation fault) in execute",
    };
    const conf_status st[5] = {CONF_ST_FAIL, CONF_ST_FAIL, CONF_ST_FAIL, CONF_ST_FAIL, CONF_ST_CRASH};
    for (int i = 0; i < 5; i++) {
        conf_case_result *r = &run.cases[3 + i];
        snprintf(r->id, sizeof r->id, "add/f32/odd/cross/%d", i);
        r->op = PLUMB_OP_ADD;
        r->dtype = PLUMB_F32;
        r->status = st[i];
        r->budget_used = 2.0;
        snprintf(r->reason, sizeof r->reason, "%s", reasons[i]);
    }
    run.n_cases = 8;
    run.failed = 5;
    run.ops[PLUMB_OP_ADD].failed = 5;
    run.ops[PLUMB_OP_ADD].cases = 8;
    conf_run_judge(&run);
    char *p = page(&run);
    assert_non_null(strstr(p, "<section class=\"fail-op\" data-op=\"stablehlo.add\" data-count=\"5\">"));
    assert_non_null(strstr(p, "5 failures in 3 groups"));
    /* the first three reasons share one shape: numbers and indices as # */
    assert_non_null(strstr(p, "<div class=\"fail-group\" data-count=\"3\">"));
    assert_non_null(strstr(p, "fail: output # element # at [#]: got # (#), want # (#); error # ulp, bound # ulp"));
    assert_int_equal(count(p, "<div class=\"fail-group\" data-count=\"1\">"), 2);
    assert_non_null(strstr(p, "crash: died of signal # (Segmentation fault) in execute"));
    assert_int_equal(count(p, "<li class=\"failure\""), 5);
    assert_non_null(strstr(p, "plumb certify --backend /tmp/a&quot;b&#39;c/x.so --suite quick --seed 1 --case "
                              "add/f32/odd/cross/4</code>"));
    take_free(p);
    free(run.cases);
}

/* The op's histogram has one bar per bin; the three cases fall in bins 0,
 * 2 and 5 (budgets 0, 0.1, 0.75), whose tooltips carry count 1, the others
 * 0; the failure bin is drawn in the failure colour. */
static void test_histogram(void **state)
{
    (void)state;
    const uint32_t bins[7] = {1, 0, 1, 0, 0, 1, 0};
    const char *labels[7] = {"a", "b", "c", "d", "e", "f", "g"};
    plumb_buf b;
    plumb_buf_init(&b);
    conf_svg_hist(&b, bins, 7, labels, 1u << 6, "t<");
    assert_false(b.failed);
    size_t len;
    char *s = plumb_buf_take(&b, &len);
    assert_int_equal(count(s, "<rect "), 7);
    assert_non_null(strstr(s, "<title>a: 1</title>"));
    assert_non_null(strstr(s, "<title>b: 0</title>"));
    assert_non_null(strstr(s, "<title>c: 1</title>"));
    assert_non_null(strstr(s, "<title>f: 1</title>"));
    assert_non_null(strstr(s, "fill=\"#c0392b\"><title>g: 0</title>"));
    assert_non_null(strstr(s, "aria-label=\"t&lt;\""));
    take_free(s);

    conf_run run;
    make_run(&run);
    char *p = page(&run);
    assert_non_null(strstr(p, "<title>exact (0): 1</title>"));
    assert_non_null(strstr(p, "<title>(0, 1/16]: 0</title>"));
    assert_non_null(strstr(p, "<title>(1/16, 1/8]: 1</title>"));
    assert_non_null(strstr(p, "<title>(1/2, 1]: 1</title>"));
    take_free(p);
    free(run.cases);
}

/* A timeline over steps 0..7 with compiles at 0 and 3: eight ticks, two
 * marks, the second 3 steps (24 px) right of the first. */
static void test_timeline(void **state)
{
    (void)state;
    const uint32_t builds[2] = {0, 3};
    plumb_buf b;
    plumb_buf_init(&b);
    conf_svg_timeline(&b, 0, 7, builds, 2, false, "x");
    size_t len;
    char *s = plumb_buf_take(&b, &len);
    assert_int_equal(count(s, "<circle "), 2);
    assert_int_equal(count(s, "stroke=\"#bbb\""), 8);
    assert_non_null(strstr(s, "cx=\"6.0\" cy=\"14\" r=\"4\" fill=\"#1f4e79\"><title>compile at step 0</title>"));
    assert_non_null(strstr(s, "cx=\"30.0\" cy=\"14\" r=\"4\" fill=\"#1f4e79\"><title>compile at step 3</title>"));
    take_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_markup),   cmocka_unit_test(test_escape_bytes),
        cmocka_unit_test(test_certified),       cmocka_unit_test(test_partial_and_failed),
        cmocka_unit_test(test_failure_groups),  cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_timeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
