/* Case generators: counts match the manifest, every case verifies and runs on
 * the reference, generation is deterministic and sharding partitions it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../conformance/conf.h"
#include "plumb/ref.h"

static void gen_ok(plumb_opcode op, conf_suite s, uint64_t seed, uint32_t si, uint32_t sn, conf_cases *cs)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = conf_generate(op, s, seed, si, sn, cs, &d);
    if (!ok) fprintf(stderr, "%s: %s\n", plumb_op_name(op), d.msg);
    assert_true(ok);
}

/* The quick suite of every op has exactly the manifest's count, ids are unique, and every case runs on the reference. */
static void test_quick_matches_manifest_and_runs(void **state)
{
    (void)state;
    uint32_t total = 0;
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        conf_cases cs;
        gen_ok((plumb_opcode)o, CONF_SUITE_QUICK, 1, 0, 1, &cs);
        if (cs.n != conf_manifest_count((plumb_opcode)o, CONF_SUITE_QUICK))
            fprintf(stderr, "%s: %u cases, manifest %u\n", plumb_op_name((plumb_opcode)o), cs.n,
                    conf_manifest_count((plumb_opcode)o, CONF_SUITE_QUICK));
        assert_int_equal(cs.n, conf_manifest_count((plumb_opcode)o, CONF_SUITE_QUICK));
        if (conf_op_generated((plumb_opcode)o)) assert_true(cs.n > 0);
        for (uint32_t i = 0; i < cs.n; i++) {
            const conf_case *c = &cs.v[i];
            for (uint32_t j = 0; j < i; j++) assert_string_not_equal(c->id, cs.v[j].id);
            plumb_diag d;
            memset(&d, 0, sizeof d);
            ir_module *m = ir_parse(c->program, strlen(c->program), c->id, NULL, &d);
            assert_non_null(m);
            plumb_ref_result r;
            memset(&r, 0, sizeof r);
            bool ok = plumb_ref_run(m, NULL, c->inputs, c->n_inputs, NULL, &r, &d);
            if (!ok) fprintf(stderr, "%s: %s\n%s", c->id, d.msg, c->program);
            assert_true(ok);
            plumb_ref_result_free(&r);
            ir_module_free(m);
        }
        total += cs.n;
        conf_cases_free(&cs);
    }
    fprintf(stderr, "quick suite: %u cases\n", total);
}

static bool same_case(const conf_case *a, const conf_case *b)
{
    if (strcmp(a->id, b->id) || strcmp(a->program, b->program) || a->n_inputs != b->n_inputs) return false;
    for (uint32_t i = 0; i < a->n_inputs; i++)
        if (!plumb_tensor_equal(a->inputs[i], b->inputs[i])) return false;
    return true;
}

/* The same seed gives the same cases, ids and bytes; another seed changes random inputs but not ids. */
static void test_deterministic(void **state)
{
    (void)state;
    plumb_opcode ops[] = {PLUMB_OP_ADD, PLUMB_OP_EXPONENTIAL, PLUMB_OP_REDUCE, PLUMB_OP_GATHER};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        conf_cases a, b, c;
        gen_ok(ops[k], CONF_SUITE_QUICK, 42, 0, 1, &a);
        gen_ok(ops[k], CONF_SUITE_QUICK, 42, 0, 1, &b);
        gen_ok(ops[k], CONF_SUITE_QUICK, 43, 0, 1, &c);
        assert_int_equal(a.n, b.n);
        assert_int_equal(a.n, c.n);
        bool differs = false;
        for (uint32_t i = 0; i < a.n; i++) {
            assert_true(same_case(&a.v[i], &b.v[i]));
            assert_string_equal(a.v[i].id, c.v[i].id);
            differs |= !same_case(&a.v[i], &c.v[i]);
        }
        assert_true(differs);
        conf_cases_free(&a);
        conf_cases_free(&b);
        conf_cases_free(&c);
    }
}

/* Shards partition the cases: their union is the unsharded list, case for case. */
static void test_shards_partition(void **state)
{
    (void)state;
    conf_cases all;
    gen_ok(PLUMB_OP_MULTIPLY, CONF_SUITE_QUICK, 7, 0, 1, &all);
    uint32_t seen = 0;
    for (uint32_t s = 0; s < 3; s++) {
        conf_cases part;
        gen_ok(PLUMB_OP_MULTIPLY, CONF_SUITE_QUICK, 7, s, 3, &part);
        for (uint32_t i = 0; i < part.n; i++) {
            uint32_t j = 0;
            while (j < all.n && strcmp(all.v[j].id, part.v[i].id)) j++;
            assert_true(j < all.n);
            assert_int_equal(j % 3, s);
            assert_true(same_case(&all.v[j], &part.v[i]));
        }
        seen += part.n;
        conf_cases_free(&part);
    }
    assert_int_equal(seen, all.n);
    conf_cases_free(&all);
}

/* The full suite is larger than the quick one and matches its manifest. */
static void test_full_manifest(void **state)
{
    (void)state;
    plumb_opcode ops[] = {PLUMB_OP_SINE, PLUMB_OP_DOT_GENERAL, PLUMB_OP_TRANSPOSE};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        conf_cases cs;
        gen_ok(ops[k], CONF_SUITE_FULL, 3, 0, 1, &cs);
        assert_int_equal(cs.n, conf_manifest_count(ops[k], CONF_SUITE_FULL));
        assert_true(cs.n > conf_manifest_count(ops[k], CONF_SUITE_QUICK));
        conf_cases_free(&cs);
    }
}

/* The f16 sweep of a unary op holds every one of the 65,536 bit patterns once. */
static void test_exhaustive_f16(void **state)
{
    (void)state;
    conf_cases cs;
    gen_ok(PLUMB_OP_LOG, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    uint32_t found = 0;
    for (uint32_t i = 0; i < cs.n; i++) {
        if (strcmp(cs.v[i].value_class, "exhaustive")) continue;
        const plumb_tensor *x = cs.v[i].inputs[0];
        assert_int_equal(plumb_tensor_numel(x), 65536);
        for (uint32_t b = 0; b < 65536; b++) assert_int_equal(plumb_load_bits(x->dtype, x->data, b), b);
        found++;
    }
    assert_int_equal(found, 2); /* f16 and bf16 */
    conf_cases_free(&cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_matches_manifest_and_runs),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_shards_partition),
        cmocka_unit_test(test_full_manifest),
        cmocka_unit_test(test_exhaustive_f16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
