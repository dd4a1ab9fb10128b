/* Certification reports written and read back (conformance/report.c,
 * baseline.c, merge.c) on hand-built runs: the digest ignores case order
 * and shard, a JSON report loads back to the same digest and counts, and
 * loading or merging rejects reports whose counts or case ids are wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../conformance/certify.h"

/* A run of two passing f32 add cases on a backend claiming add/f32 only. */
static void make_run(conf_run *run, const char *id0, const char *id1)
{
    memset(run, 0, sizeof *run);
    conf_run_options_init(&run->opts);
    snprintf(run->backend.name, sizeof run->backend.name, "handmade");
    snprintf(run->backend.version, sizeof run->backend.version, "1.0");
    snprintf(run->backend.where, sizeof run->backend.where, "handmade.so");
    conf_caps *c = &run->backend.caps;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        c->accum[t] = (plumb_dtype)t;
    c->claims[PLUMB_OP_ADD] = PLUMB_TY_BIT(PLUMB_F32);
    c->n_claimed_ops = 1;
    c->deterministic = true;
    run->op_in_run[PLUMB_OP_ADD] = true;
    conf_op_summary *s = &run->ops[PLUMB_OP_ADD];
    s->op = PLUMB_OP_ADD;
    s->claimed = c->claims[PLUMB_OP_ADD];
    s->expected = s->generated = 2;
    s->cases = s->passed = 2;
    s->manifest_ok = true;
    run->cases = calloc(2, sizeof *run->cases);
    assert_non_null(run->cases);
    run->cap_cases = 0; /* freed here, not by conf_run_free */
    const char *ids[2] = {id0, id1};
    for (int i = 0; i < 2; i++) {
        conf_case_result *r = &run->cases[i];
        snprintf(r->id, sizeof r->id, "%s", ids[i]);
        r->op = PLUMB_OP_ADD;
        r->dtype = PLUMB_F32;
        r->status = CONF_ST_PASS;
        r->budget_used = i ? 0.25 : 0.5;
        r->seconds = 0.001;
        r->attempts = 1;
    }
    run->n_cases = 2;
    run->passed = 2;
    run->started = 1767225600; /* 2026-01-01T00:00:00 */
    conf_run_digest(run);
    conf_run_judge(run);
}

static void free_run(conf_run *run)
{
    free(run->cases);
    run->cases = NULL;
    run->n_cases = 0;
}

static char *write_json(const conf_run *run, const char *edit_from, const char *edit_to)
{
    plumb_buf b;
    plumb_buf_init(&b);
    conf_report_json(&b, run);
    assert_false(b.failed);
    char *text = b.data;
    if (edit_from) {
        char *at = strstr(text, edit_from);
        assert_non_null(at);
        assert_int_equal(strlen(edit_from), strlen(edit_to));
        memcpy(at, edit_to, strlen(edit_to));
    }
    static char path[64];
    snprintf(path, sizeof path, "/tmp/plumb_test_report_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, b.len), (ssize_t)b.len);
    close(fd);
    plumb_buf_free(&b);
    return path;
}

/* The digest is over the verdicts, not over the order workers or shards
 * delivered them, and a shard's digest leaves the shard out. */
static void test_digest_order_and_shard(void **state)
{
    (void)state;
    conf_run a, b;
    make_run(&a, "add/f32/odd/normal/0", "add/f32/odd/uniform/0");
    make_run(&b, "add/f32/odd/uniform/0", "add/f32/odd/normal/0");
    /* b got the budgets the other way round: give each id a's budget. */
    for (int i = 0; i < 2; i++)
        b.cases[i].budget_used = strcmp(b.cases[i].id, "add/f32/odd/normal/0") == 0 ? 0.5 : 0.25;
    conf_run_digest(&b);
    assert_memory_equal(a.digest, b.digest, sizeof a.digest);
    b.opts.shard_index = 1;
    b.opts.shard_count = 4;
    conf_run_digest(&b);
    assert_memory_equal(a.digest, b.digest, sizeof a.digest);
    /* A verdict that differs changes it. */
    b.cases[0].budget_used = 0.5000000001;
    conf_run_digest(&b);
    assert_memory_not_equal(a.digest, b.digest, sizeof a.digest);
    free_run(&a);
    free_run(&b);
}

/* The small formats' accumulators (ABI 1.4 accum_small) are in the digest:
 * the same verdicts under another declared f8E8M0FNU accumulator are not
 * the same certificate; and a report read back keeps them, so its digest
 * still matches. */
static void test_digest_accum_small(void **state)
{
    (void)state;
    conf_run a, b, l;
    make_run(&a, "add/f32/odd/normal/0", "add/f32/odd/uniform/0");
    make_run(&b, "add/f32/odd/normal/0", "add/f32/odd/uniform/0");
    b.backend.caps.accum[PLUMB_F8E8M0FNU] = PLUMB_F64;
    conf_run_digest(&b);
    assert_memory_not_equal(a.digest, b.digest, sizeof a.digest);
    const char *path = write_json(&b, NULL, NULL);
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_report_load(path, &l, &d))
        fail_msg("load: %s", d.msg);
    unlink(path);
    assert_int_equal(l.backend.caps.accum[PLUMB_F8E8M0FNU], PLUMB_F64);
    assert_memory_equal(b.digest, l.digest, sizeof b.digest);
    conf_run_free(&l);
    free_run(&a);
    free_run(&b);
}

/* Written and read back: same terms, counts, records and digest. */
static void test_round_trip(void **state)
{
    (void)state;
    conf_run a, l;
    make_run(&a, "add/f32/odd/normal/0", "add/f32/odd/uniform/0");
    const char *path = write_json(&a, NULL, NULL);
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!conf_report_load(path, &l, &d))
        fail_msg("load: %s", d.msg);
    assert_string_equal(l.backend.name, "handmade");
    assert_int_equal(l.backend.caps.claims[PLUMB_OP_ADD], PLUMB_TY_BIT(PLUMB_F32));
    assert_int_equal(l.n_cases, 2);
    assert_int_equal(l.passed, 2);
    assert_true(l.cases[1].budget_used == 0.25 || l.cases[0].budget_used == 0.25);
    assert_memory_equal(a.digest, l.digest, sizeof a.digest);
    assert_int_equal(l.started, a.started);
    assert_true(l.ok);
    /* The scope is part of what is read back (here: unrestricted). */
    assert_int_equal(conf_run_certified(&l), conf_run_certified(&a));
    assert_int_equal(l.opts.shard_count, 1);
    assert_false(l.opts.ops_filter);
    conf_run_free(&l);
    remove(path);
    free_run(&a);
}

/* Counts that disagree with the records are refused, naming the file. */
static void test_counts_checked(void **state)
{
    (void)state;
    conf_run a, l;
    make_run(&a, "add/f32/odd/normal/0", "add/f32/odd/uniform/0");
    const char *path = write_json(&a, "\"passed\": 2, \"failed\": 0, \"skipped\"", "\"passed\": 3, \"failed\": 0, \"skipped\"");
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_false(conf_report_load(path, &l, &d));
    assert_non_null(strstr(d.msg, "disagree"));
    assert_non_null(d.file);
    assert_string_equal(d.file, path);
    remove(path);
    free_run(&a);
}

/* A report whose digest matches its records but which names a case the
 * suite does not have (another plumb's generator) is refused by merge. */
static void test_unknown_case_refused(void **state)
{
    (void)state;
    conf_run a, m;
    make_run(&a, "add/f32/odd/normal/0", "add/f32/odd/normal/99");
    const char *path = write_json(&a, NULL, NULL);
    plumb_diag d;
    plumb_diag_clear(&d);
    const char *paths[1] = {path};
    assert_false(conf_report_merge(paths, 1, &m, &d));
    assert_non_null(strstr(d.msg, "case add/f32/odd/normal/99 is no case of the quick suite (seed 1)"));
    assert_non_null(strstr(d.msg, path));
    remove(path);
    free_run(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_order_and_shard),
        cmocka_unit_test(test_digest_accum_small),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_counts_checked),
        cmocka_unit_test(test_unknown_case_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
