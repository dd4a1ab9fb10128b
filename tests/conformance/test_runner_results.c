/* The runner's verdict list: while workers run it lives outside the heap
 * every fork copies (conformance/runner.c, results_settle); a run of more
 * cases than its first allocation holds still ends with one verdict per
 * generated case, in an ordinary allocation of exactly that many. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/certify.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* bitcast_convert's quick cases (1332 in the manifest, more than the 1024
 * verdicts the list starts with, so it grows once while workers hold
 * children of their own) on the reference with 2 workers: as many verdicts
 * as the manifest counts, all passing, and their ids exactly the ids the
 * generator gives for the op (generated here on their own, not by the
 * runner). The list ends settled: capacity = count. */
static void test_verdicts_past_first_growth(void **state)
{
    (void)state;
    const plumb_opcode op = PLUMB_OP_BITCAST_CONVERT;
    uint32_t m = conf_manifest_count(op, CONF_SUITE_QUICK);
    assert_true(m > 1024);
    conf_run_options o;
    conf_run_options_init(&o);
    o.backend = "ref";
    o.jobs = 2;
    o.cache_suite = false;
    o.ops_filter = true;
    o.ops_given[op] = true;
    conf_run run;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_run_certify(&o, &run, &d));
    assert_true(run.ok);
    assert_int_equal(run.n_cases, m);
    assert_int_equal(run.cap_cases, run.n_cases);
    assert_int_equal(run.passed, m);

    conf_cases cs;
    memset(&cs, 0, sizeof cs);
    assert_true(conf_generate(op, CONF_SUITE_QUICK, o.seed, 0, 1, &cs, &d));
    assert_int_equal(cs.n, m);
    const char **want = calloc(m, sizeof *want), **got = calloc(m, sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    for (uint32_t i = 0; i < m; i++) {
        want[i] = cs.v[i].id;
        got[i] = run.cases[i].id;
        assert_int_equal(run.cases[i].status, CONF_ST_PASS);
        assert_int_equal(run.cases[i].op, op);
    }
    qsort(want, m, sizeof *want, cmp_str);
    qsort(got, m, sizeof *got, cmp_str);
    for (uint32_t i = 0; i < m; i++) {
        assert_string_equal(got[i], want[i]);
        if (i)
            assert_true(strcmp(got[i - 1], got[i]) < 0);
    }
    free(want);
    free(got);
    conf_cases_free(&cs);
    conf_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_past_first_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
