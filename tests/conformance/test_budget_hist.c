/* Budget-used histograms (conformance/report.c, conf.h): bins and
 * nearest-rank quantiles on hand-chosen budgets, and the per op x type
 * histogram of a hand-built run (only checked cases count). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/certify.h"

/* Each bin's edges: 0 alone, then (lo, hi] with hi included, over 1 (and NaN, and the mismatch sentinel) last. */
static void test_bins_edges(void **state)
{
    (void)state;
    assert_int_equal(conf_hist_bin(0.0), 0);
    assert_int_equal(conf_hist_bin(1e-300), 1);
    assert_int_equal(conf_hist_bin(0.0625), 1);
    assert_int_equal(conf_hist_bin(0.0625000001), 2);
    assert_int_equal(conf_hist_bin(0.125), 2);
    assert_int_equal(conf_hist_bin(0.2), 3);
    assert_int_equal(conf_hist_bin(0.25), 3);
    assert_int_equal(conf_hist_bin(0.5), 4);
    assert_int_equal(conf_hist_bin(0.75), 5);
    assert_int_equal(conf_hist_bin(1.0), 5);
    assert_int_equal(conf_hist_bin(1.0000001), 6);
    assert_int_equal(conf_hist_bin(CONF_BUDGET_MISMATCH), 6);
    assert_int_equal(conf_hist_bin(NAN), 6);
}

/* Ten budgets: counts per bin and nearest-rank quantiles (p50 = 5th smallest,
 * p90 = 9th, p99 = 10th) worked out by hand. */
static void test_fill_quantiles(void **state)
{
    (void)state;
    double v[10] = {1.0, 0.0, 0.5, 0.0, 2.0, 0.03, 0.0, 0.5, 0.1, 0.25};
    conf_budget_hist h;
    conf_budget_hist_fill(v, 10, &h);
    assert_int_equal(h.n, 10);
    const uint32_t want[CONF_HIST_BINS] = {3, 1, 1, 1, 2, 1, 1};
    for (int k = 0; k < CONF_HIST_BINS; k++) assert_int_equal(h.bins[k], want[k]);
    /* sorted: 0 0 0 0.03 0.1 0.25 0.5 0.5 1 2 */
    assert_true(h.p50 == 0.1);
    assert_true(h.p90 == 1.0);
    assert_true(h.p99 == 2.0);
    assert_true(h.worst == 2.0);
    conf_budget_hist_fill(v, 0, &h);
    assert_int_equal(h.n, 0);
    assert_true(h.worst == 0.0);
}

/* A run with add f32 cases (pass 0, pass 0.75, fail 3, error), an add f16 case
 * and a multiply f32 case: add/f32 counts the three checked cases only. */
static void test_run_hist(void **state)
{
    (void)state;
    conf_run run;
    memset(&run, 0, sizeof run);
    conf_case_result cs[6];
    memset(cs, 0, sizeof cs);
    const struct { plumb_opcode op; plumb_dtype t; conf_status st; double b; } spec[6] = {
        {PLUMB_OP_ADD, PLUMB_F32, CONF_ST_PASS, 0.0},     {PLUMB_OP_ADD, PLUMB_F32, CONF_ST_PASS, 0.75},
        {PLUMB_OP_ADD, PLUMB_F32, CONF_ST_FAIL, 3.0},     {PLUMB_OP_ADD, PLUMB_F32, CONF_ST_ERROR, CONF_BUDGET_MISMATCH},
        {PLUMB_OP_ADD, PLUMB_F16, CONF_ST_PASS, 0.5},     {PLUMB_OP_MULTIPLY, PLUMB_F32, CONF_ST_PASS, 0.01},
    };
    for (int i = 0; i < 6; i++) {
        cs[i].op = spec[i].op;
        cs[i].dtype = spec[i].t;
        cs[i].status = spec[i].st;
        cs[i].budget_used = spec[i].b;
    }
    run.cases = cs;
    run.n_cases = 6;
    conf_budget_hist h;
    assert_true(conf_run_budget_hist(&run, PLUMB_OP_ADD, PLUMB_F32, &h));
    assert_int_equal(h.n, 3);
    assert_int_equal(h.bins[0], 1);
    assert_int_equal(h.bins[5], 1);
    assert_int_equal(h.bins[6], 1);
    assert_true(h.p50 == 0.75);
    assert_true(h.worst == 3.0);
    assert_true(conf_run_budget_hist(&run, PLUMB_OP_ADD, PLUMB_F16, &h));
    assert_int_equal(h.n, 1);
    assert_int_equal(h.bins[4], 1);
    assert_true(conf_run_budget_hist(&run, PLUMB_OP_ADD, PLUMB_BF16, &h));
    assert_int_equal(h.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bins_edges),
        cmocka_unit_test(test_fill_quantiles),
        cmocka_unit_test(test_run_hist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
