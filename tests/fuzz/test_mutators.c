/* The fuzzer's polymorphic generator and its mutators (fuzz/gen.c): each
 * mutant verifies and differs from its base exactly as its mutator says,
 * and the compile counts predicted per mutator and polymorphism claim are
 * the contract's (docs/fuzz.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../fuzz/fuzz.h"
#include "plumb/backend.h"

static uint32_t count_kind(const fz_prog *p, int kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        n += p->n[i].kind == kind;
    return n;
}

static char *text_of(const fz_prog *p)
{
    plumb_buf b;
    plumb_buf_init(&b);
    assert_true(fz_prog_text(p, &b));
    size_t len;
    return plumb_buf_take(&b, &len);
}

static void free_text(char *s) { plumb_free(s, strlen(s) + 1); }

static void assert_verifies(const fz_prog *p)
{
    char *t = text_of(p);
    plumb_diag d;
    plumb_diag_clear(&d);
    if (!fz_prog_verify(t, strlen(t), &d))
        fail_msg("does not verify: %s\n%s", d.msg, t);
    free_text(t);
}

/* A small fixed generator: f32, ops with attributes the mutators tweak. */
static void small_opts(fz_gen_opts *o, uint32_t poly)
{
    fz_gen_opts_init(o);
    memset(o->ops, 0, sizeof o->ops);
    o->ops[PLUMB_OP_ADD] = o->ops[PLUMB_OP_COMPARE] = o->ops[PLUMB_OP_REVERSE] = true;
    o->ops[PLUMB_OP_REDUCE] = o->ops[PLUMB_OP_TRANSPOSE] = o->ops[PLUMB_OP_NEGATE] = true;
    o->dtypes = PLUMB_TY_BIT(PLUMB_F32);
    o->max_nodes = 4;
    o->max_elems = 64;
    o->poly = poly;
}

/* The first seed from 1 on whose program mutator m applies to; base and
 * mutant are returned built. */
static uint64_t applicable_seed(const fz_gen_opts *o, fz_mutator m, fz_prog *base, fz_prog *mut)
{
    plumb_diag d;
    for (uint64_t s = 1; s < 500; s++) {
        bool app = true;
        plumb_diag_clear(&d);
        if (fz_mutate(o, s, m, mut, &app, &d)) {
            assert_true(fz_base(o, s, base, &d));
            return s;
        }
        assert_false(app); /* not applicable, never a failure */
    }
    fail_msg("mutator %s never applied in 500 seeds", fz_mutator_name(m));
    return 0;
}

/* The predictions: values and constants change nothing compiled, every
 * structural change exactly one compile, a new `?` size none on a bounded
 * or unbounded backend and one on a per-shape backend. */
static void predictions_per_mutator_and_claim(void **state)
{
    (void)state;
    static const uint32_t claims[] = {PLUMB_BACKEND_POLY_PER_SHAPE, PLUMB_BACKEND_POLY_BOUNDED,
                                      PLUMB_BACKEND_POLY_UNBOUNDED};
    for (int c = 0; c < 3; c++) {
        assert_int_equal(fz_mutator_predicts(FZ_MUT_PARAMS, claims[c]), 0);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_IDENTICAL, claims[c]), 0);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_CONSTANT, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_SHAPE, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_BAKE, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_LIFT, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_BATCH_FIELD, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_ATTR, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_INSERT, claims[c]), 1);
        assert_int_equal(fz_mutator_predicts(FZ_MUT_REMOVE, claims[c]), 1);
    }
    assert_int_equal(fz_mutator_predicts(FZ_MUT_POLY_SIZE, PLUMB_BACKEND_POLY_PER_SHAPE), 1);
    assert_int_equal(fz_mutator_predicts(FZ_MUT_POLY_SIZE, PLUMB_BACKEND_POLY_BOUNDED), 0);
    assert_int_equal(fz_mutator_predicts(FZ_MUT_POLY_SIZE, PLUMB_BACKEND_POLY_UNBOUNDED), 0);
    uint32_t mask;
    char bad[32];
    assert_true(fz_mutators_parse("poly-size,batch-field,remove", &mask, bad, sizeof bad));
    assert_int_equal(mask, (1u << FZ_MUT_POLY_SIZE) | (1u << FZ_MUT_BATCH_FIELD) | (1u << FZ_MUT_REMOVE));
    assert_true(fz_mutators_parse("all", &mask, bad, sizeof bad));
    assert_int_equal(mask, (1u << 11) - 1);
    assert_false(fz_mutators_parse("poly", &mask, bad, sizeof bad));
    assert_string_equal(bad, "poly");
}

/* With --poly 100 every parameter the generator draws (rank >= 1) has a
 * bounded `?` dimension 0; programs verify, their inputs have the program's one size
 * within every bound, and no op that needs a static size reads a `?`. */
static void poly_programs_verify(void **state)
{
    (void)state;
    fz_gen_opts o;
    fz_gen_opts_init(&o);
    o.poly = 100;
    uint32_t with_dyn = 0;
    for (uint64_t s = 1; s <= 300; s++) {
        fz_prog p;
        plumb_diag d;
        plumb_diag_clear(&d);
        assert_true(fz_base(&o, s, &p, &d));
        assert_verifies(&p);
        bool dyn = false;
        for (uint32_t i = 0; i < p.n_nodes; i++) {
            const fz_node *n = &p.n[i];
            /* the first parameter is drawn as such; others may copy an
             * operand's static type (a dot's right side, say) */
            if (i == 0 && n->rank)
                assert_int_equal(n->dyn, 1);
            for (uint32_t j = 0; n->kind == FZ_PARAM && j < n->rank; j++)
                if ((n->dyn >> j) & 1) {
                    assert_true(p.poly_size >= 1 && p.poly_size <= n->dims[j]);
                    assert_int_equal(p.inputs[n->index]->dims[j], p.poly_size);
                }
            if (n->kind == FZ_OP && (n->op == PLUMB_OP_BROADCAST_IN_DIM || n->op == PLUMB_OP_RESHAPE ||
                                     n->op == PLUMB_OP_SLICE))
                assert_int_equal(p.n[n->arg[0]].dyn, 0);
            dyn |= n->dyn != 0;
        }
        if (dyn) {
            char *t = text_of(&p);
            assert_non_null(strstr(t, "#stablehlo.bounds<"));
            free_text(t);
        }
        with_dyn += dyn;
        fz_prog_free(&p);
    }
    assert_true(with_dyn > 150);
}

/* poly-size: the same text, every `?` input at another size within the
 * bounds. */
static void poly_size_changes_only_sizes(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 100);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_POLY_SIZE, &b, &m);
    assert_verifies(&m);
    char *tb = text_of(&b), *tm = text_of(&m);
    assert_string_equal(tb, tm);
    assert_true(m.poly_size != b.poly_size);
    for (uint32_t i = 0; i < m.n_nodes; i++)
        for (uint32_t j = 0; m.n[i].kind == FZ_PARAM && j < m.n[i].rank; j++)
            if ((m.n[i].dyn >> j) & 1) {
                assert_int_equal(m.inputs[m.n[i].index]->dims[j], m.poly_size);
                assert_true(m.poly_size <= m.n[i].dims[j]);
            }
    free_text(tb);
    free_text(tm);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* bake: one parameter fewer, one constant more, holding that parameter's
 * input bit for bit. */
static void bake_turns_a_parameter_into_its_value(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_BAKE, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_params, b.n_params - 1);
    assert_int_equal(count_kind(&m, FZ_CONST), count_kind(&b, FZ_CONST) + 1);
    assert_int_equal(m.n_nodes, b.n_nodes);
    uint32_t changed = 0;
    for (uint32_t i = 0; i < m.n_nodes; i++)
        if (b.n[i].kind == FZ_PARAM && m.n[i].kind == FZ_CONST) {
            const plumb_tensor *in = b.inputs[b.n[i].index];
            assert_int_equal(in->nbytes, m.n[i].value->nbytes);
            assert_memory_equal(in->data, m.n[i].value->data, in->nbytes);
            changed++;
        }
    assert_int_equal(changed, 1);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* lift: one constant fewer, one parameter more, whose input is the
 * constant's value. */
static void lift_turns_a_constant_into_a_parameter(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_LIFT, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_params, b.n_params + 1);
    assert_int_equal(count_kind(&m, FZ_CONST), count_kind(&b, FZ_CONST) - 1);
    uint32_t changed = 0;
    for (uint32_t i = 0; i < m.n_nodes; i++)
        if (b.n[i].kind == FZ_CONST && m.n[i].kind == FZ_PARAM) {
            const plumb_tensor *in = m.inputs[m.n[i].index];
            assert_memory_equal(in->data, b.n[i].value->data, in->nbytes);
            changed++;
        }
    assert_int_equal(changed, 1);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* The first seed from 1 on whose batch-field mutant adds (grow) or drops a
 * parameter. */
static void batch_field_seed(const fz_gen_opts *o, bool grow, fz_prog *b, fz_prog *m)
{
    plumb_diag d;
    for (uint64_t s = 1; s < 500; s++) {
        bool app = true;
        plumb_diag_clear(&d);
        if (!fz_mutate(o, s, FZ_MUT_BATCH_FIELD, m, &app, &d))
            continue;
        assert_true(fz_base(o, s, b, &d));
        if ((m->n_params > b->n_params) == grow)
            return;
        fz_prog_free(b);
        fz_prog_free(m);
    }
    fail_msg("batch-field never %s a parameter in 500 seeds", grow ? "added" : "dropped");
}

/* batch-field adding: one parameter more, of an op result's type, and one
 * op more (the last) that adds it to that result. */
static void batch_field_adds_a_parameter_and_its_use(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 50);
    fz_prog b, m;
    batch_field_seed(&o, true, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_params, b.n_params + 1);
    assert_int_equal(m.n_results, b.n_results + 1);
    const fz_node *last = &m.n[m.n_nodes - 1], *field = &m.n[m.n_nodes - 2];
    assert_int_equal(last->kind, FZ_OP);
    assert_int_equal(last->op, PLUMB_OP_ADD);
    assert_int_equal(field->kind, FZ_PARAM);
    assert_int_equal(field->index, m.n_params - 1);
    assert_int_equal(last->arg[1], m.n_nodes - 2);
    assert_int_equal(m.n[last->arg[0]].kind, FZ_OP);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* batch-field dropping: a parameter that only an add reads goes with the
 * add (one parameter, one op, two nodes fewer); the add's readers read
 * its other operand. */
static void batch_field_drops_a_parameter_and_its_use(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    batch_field_seed(&o, false, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_params, b.n_params - 1);
    assert_int_equal(m.n_results, b.n_results - 1);
    assert_int_equal(m.n_nodes, b.n_nodes - 2);
    uint32_t adds_b = 0, adds_m = 0;
    for (uint32_t i = 0; i < b.n_nodes; i++)
        adds_b += b.n[i].kind == FZ_OP && b.n[i].op == PLUMB_OP_ADD;
    for (uint32_t i = 0; i < m.n_nodes; i++)
        adds_m += m.n[i].kind == FZ_OP && m.n[i].op == PLUMB_OP_ADD;
    assert_int_equal(adds_m, adds_b - 1);
    /* the inputs left are the base's, in order, minus the field's */
    uint32_t skipped = 0;
    for (uint32_t i = 0, j = 0; i < b.n_params; i++) {
        if (j < m.n_params && m.inputs[j]->nbytes == b.inputs[i]->nbytes &&
            !memcmp(m.inputs[j]->data, b.inputs[i]->data, b.inputs[i]->nbytes))
            j++;
        else
            skipped++;
    }
    assert_int_equal(skipped, 1);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* attr: the same nodes, exactly one op's attributes (direction, dims or
 * body) changed. */
static void attr_changes_one_attribute(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_ATTR, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_nodes, b.n_nodes);
    uint32_t changed = 0;
    for (uint32_t i = 0; i < m.n_nodes; i++) {
        assert_int_equal(m.n[i].kind, b.n[i].kind);
        assert_int_equal(m.n[i].op, b.n[i].op);
        if (strcmp(m.n[i].pre, b.n[i].pre) || strcmp(m.n[i].post, b.n[i].post) || m.n[i].body != b.n[i].body)
            changed++;
    }
    assert_int_equal(changed, 1);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* insert: one unary op more, appended, reading a value of the program. */
static void insert_appends_one_op(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_INSERT, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_nodes, b.n_nodes + 1);
    assert_int_equal(m.n_results, b.n_results + 1);
    const fz_node *last = &m.n[m.n_nodes - 1];
    assert_int_equal(last->kind, FZ_OP);
    assert_int_equal(last->op, PLUMB_OP_NEGATE); /* f32: negate is the first unary op that fits */
    assert_int_equal(last->n_args, 1);
    assert_true(last->arg[0] < b.n_nodes);
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* remove: the last op gone, every other node as it was. */
static void remove_drops_the_last_op(void **state)
{
    (void)state;
    fz_gen_opts o;
    small_opts(&o, 0);
    fz_prog b, m;
    applicable_seed(&o, FZ_MUT_REMOVE, &b, &m);
    assert_verifies(&m);
    assert_int_equal(m.n_nodes, b.n_nodes - 1);
    assert_int_equal(m.n_results, b.n_results - 1);
    uint32_t k = b.n_nodes;
    while (b.n[--k].kind != FZ_OP)
        ;
    for (uint32_t i = 0, j = 0; i < b.n_nodes; i++) {
        if (i == k)
            continue;
        assert_int_equal(m.n[j].kind, b.n[i].kind);
        assert_int_equal(m.n[j].op, b.n[i].op);
        j++;
    }
    fz_prog_free(&b);
    fz_prog_free(&m);
}

/* Every mutator's mutants verify over many programs of the full generator
 * with `?` dimensions, gather, scatter, sort, pad, iota and
 * dynamic_broadcast_in_dim among them. */
static void all_mutants_verify(void **state)
{
    (void)state;
    fz_gen_opts o;
    fz_gen_opts_init(&o);
    o.poly = 40;
    uint32_t seen[PLUMB_OP_COUNT] = {0};
    for (uint64_t s = 1; s <= 150; s++)
        for (int mi = 0; mi < FZ_MUT_COUNT; mi++) {
            fz_prog m;
            bool app = true;
            plumb_diag d;
            plumb_diag_clear(&d);
            if (!fz_mutate(&o, s, (fz_mutator)mi, &m, &app, &d)) {
                if (app)
                    fail_msg("seed %llu, mutator %s: %s", (unsigned long long)s, fz_mutator_name((fz_mutator)mi), d.msg);
                continue;
            }
            assert_verifies(&m);
            for (uint32_t i = 0; mi == FZ_MUT_IDENTICAL && i < m.n_nodes; i++)
                if (m.n[i].kind == FZ_OP)
                    seen[m.n[i].op]++;
            fz_prog_free(&m);
        }
    /* the wider op set is among the programs built and verified */
    assert_true(seen[PLUMB_OP_PAD] && seen[PLUMB_OP_IOTA] && seen[PLUMB_OP_SORT]);
    assert_true(seen[PLUMB_OP_GATHER] && seen[PLUMB_OP_SCATTER] && seen[PLUMB_OP_SELECT] && seen[PLUMB_OP_CLAMP]);
    /* a `?` operand broadcast to a shape the program computes */
    assert_true(seen[PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM] && seen[PLUMB_OP_GET_DIMENSION_SIZE]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predictions_per_mutator_and_claim),
        cmocka_unit_test(poly_programs_verify),
        cmocka_unit_test(poly_size_changes_only_sizes),
        cmocka_unit_test(bake_turns_a_parameter_into_its_value),
        cmocka_unit_test(lift_turns_a_constant_into_a_parameter),
        cmocka_unit_test(batch_field_adds_a_parameter_and_its_use),
        cmocka_unit_test(batch_field_drops_a_parameter_and_its_use),
        cmocka_unit_test(attr_changes_one_attribute),
        cmocka_unit_test(insert_appends_one_op),
        cmocka_unit_test(remove_drops_the_last_op),
        cmocka_unit_test(all_mutants_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
