/* Per-op agreement of the polymorphic encoder (issue 13) with the
 * reference, at the 20 lengths of the scenario, on non-exact inputs.
 *
 * The encoder's result is the end of 50 ops, so no single bound covers it
 * (`plumb run --compare` reports it as "composite", unbounded). What can be
 * bounded is each op: the encoder is rewritten to return every value it
 * computes (the "tap" program, one runtime compile for all lengths), and
 * each op's runtime result is checked by the conformance checker
 * (conf_check_case: the op table's bound for that op, with Σ|x| for sums and
 * dots, against the reference run on the same operands, the runtime's own
 * intermediate values) — the oracle `plumb fuzz` applies to its programs.
 * The tap program's last value must also be the bits of the encoder itself,
 * so the checked ops are the encoder's computation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/poly_encoder.h"
#include "../../conformance/certify.h"
#include "../../conformance/conf.h"
#include "plumb/ir.h"
#include "plumb/runtime.h"

static const int64_t lengths[20] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32, 33, 40, 47, 55, 63, 64};

#define MAX_VALUES 64

/* The encoder's ops in order, with their text and what they read. */
typedef struct enc_op {
    const ir_op *op;
    const char *name;        /* result's SSA name */
    char *line;              /* "  %name = ...", malloc'd */
    uint32_t n_args;
    const char *args[4];     /* distinct %names read, in order of appearance */
} enc_op;

typedef struct encoder {
    ir_module *m;
    const ir_func *f;
    enc_op ops[MAX_VALUES];
    uint32_t n_ops;
    char *tap;               /* the encoder returning every op's value */
} encoder;

static ir_module *parse_verified(const char *text, const char *name)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(text, strlen(text), name, NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) {
        plumb_diag_print(&d, stderr);
        fail();
    }
    return m;
}

static void put_type(plumb_buf *b, const ir_type *t) { ir_type_print(b, t); }

/* The type of %name: a parameter or an op's result. */
static const ir_type *type_of(const encoder *e, const char *name)
{
    for (uint32_t i = 0; i < e->f->body.n_args; i++)
        if (e->f->body.args[i]->name && strcmp(e->f->body.args[i]->name, name) == 0)
            return &e->f->body.args[i]->type;
    for (uint32_t k = 0; k < e->n_ops; k++)
        if (strcmp(e->ops[k].name, name) == 0)
            return &e->ops[k].op->results[0]->type;
    return NULL;
}

/* Splits the generator's text into its op lines (one op per line, in the
 * order of the parsed body) and builds the tap program. */
static void encoder_load(encoder *e)
{
    memset(e, 0, sizeof *e);
    char *text = poly_encoder_text(-1);
    assert_non_null(text);
    e->m = parse_verified(text, "encoder.mlir");
    e->f = ir_module_find_func(e->m, "main");
    assert_non_null(e->f);
    const char *p = strchr(text, '\n') + 1;
    const ir_op *op = e->f->body.first;
    while (op && op->next) {   /* every op but the return */
        assert_true(e->n_ops < MAX_VALUES);
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        enc_op *o = &e->ops[e->n_ops++];
        o->op = op;
        assert_int_equal(op->n_results, 1);
        o->name = op->results[0]->name;
        assert_non_null(o->name);
        o->line = strndup(p, (size_t)(nl - p));
        /* the line defines this op's value */
        char head[64];
        snprintf(head, sizeof head, "  %%%s = ", o->name);
        assert_true(strncmp(o->line, head, strlen(head)) == 0);
        for (const char *q = o->line + strlen(head); (q = strchr(q, '%')) != NULL;) {
            const char *s = ++q;
            while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_')
                q++;
            char nm[32];
            snprintf(nm, sizeof nm, "%.*s", (int)(q - s), s);
            bool seen = false;
            for (uint32_t j = 0; j < o->n_args; j++)
                seen |= strcmp(o->args[j], nm) == 0;
            if (!seen) {
                assert_true(o->n_args < 4);
                o->args[o->n_args++] = strdup(nm);
            }
        }
        p = nl + 1;
        op = op->next;
    }
    assert_int_equal(e->n_ops, 50);
    /* The tap program: the same signature and ops, every value returned. */
    plumb_buf b;
    plumb_buf_init(&b);
    const char *arrow = strstr(text, ") -> ");
    const char *eol = strchr(text, '\n');
    while (arrow && strstr(arrow + 1, ") -> ") && strstr(arrow + 1, ") -> ") < eol)
        arrow = strstr(arrow + 1, ") -> ");
    assert_non_null(arrow);
    plumb_buf_printf(&b, "%.*s) -> (", (int)(arrow - text), text);
    for (uint32_t k = 0; k < e->n_ops; k++) {
        plumb_buf_puts(&b, k ? ", " : "");
        put_type(&b, &e->ops[k].op->results[0]->type);
    }
    plumb_buf_puts(&b, ") {\n");
    for (uint32_t k = 0; k < e->n_ops; k++)
        plumb_buf_printf(&b, "%s\n", e->ops[k].line);
    plumb_buf_puts(&b, "  return ");
    for (uint32_t k = 0; k < e->n_ops; k++)
        plumb_buf_printf(&b, "%s%%%s", k ? ", " : "", e->ops[k].name);
    plumb_buf_puts(&b, " : ");
    for (uint32_t k = 0; k < e->n_ops; k++) {
        plumb_buf_puts(&b, k ? ", " : "");
        put_type(&b, &e->ops[k].op->results[0]->type);
    }
    plumb_buf_puts(&b, "\n}\n");
    assert_false(b.failed);
    e->tap = strdup(b.data);
    plumb_buf_free(&b);
    free(text);
}

static void encoder_free(encoder *e)
{
    for (uint32_t k = 0; k < e->n_ops; k++) {
        free(e->ops[k].line);
        for (uint32_t j = 0; j < e->ops[k].n_args; j++)
            free((char *)e->ops[k].args[j]);
    }
    free(e->tap);
    ir_module_free(e->m);
}

/* The single-op program of op k: its operands are parameters. */
static char *op_program(const encoder *e, uint32_t k)
{
    const enc_op *o = &e->ops[k];
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "func.func @main(");
    for (uint32_t j = 0; j < o->n_args; j++) {
        plumb_buf_printf(&b, "%s%%%s: ", j ? ", " : "", o->args[j]);
        const ir_type *t = type_of(e, o->args[j]);
        assert_non_null(t);
        put_type(&b, t);
    }
    plumb_buf_puts(&b, ") -> ");
    put_type(&b, &o->op->results[0]->type);
    plumb_buf_printf(&b, " {\n%s\n  return %%%s : ", o->line, o->name);
    put_type(&b, &o->op->results[0]->type);
    plumb_buf_puts(&b, "\n}\n");
    assert_false(b.failed);
    char *s = strdup(b.data);
    plumb_buf_free(&b);
    return s;
}

/* The inputs at length n: valid ids (every one a row of the table) and
 * weights of a few bits near 1/sqrt(width), as tests/runtime/
 * test_poly_encoder.c makes them. */
static void make_inputs(int64_t n, uint32_t seed, plumb_tensor **in)
{
    const int64_t D = POLY_ENC_D, F = POLY_ENC_F, V = POLY_ENC_V;
    int64_t dims[POLY_ENC_PARAMS][2] = {{n, 0}, {V, D}, {D, 0}, {D, 0}, {D, D}, {D, D}, {D, D}, {D, F}, {F, D}};
    uint32_t rank[POLY_ENC_PARAMS] = {1, 2, 1, 1, 2, 2, 2, 2, 2};
    float scale[POLY_ENC_PARAMS] = {0, 1.0f, 1.0f, 0.5f, 0.18f, 0.18f, 0.18f, 0.18f, 0.125f};
    uint32_t s = seed * 2654435761u + 17;
    for (int i = 0; i < POLY_ENC_PARAMS; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        in[i] = plumb_tensor_new(i == 0 ? PLUMB_I32 : PLUMB_F32, rank[i], dims[i], 0, &d);
        assert_non_null(in[i]);
        size_t ne = (size_t)plumb_tensor_numel(in[i]);
        if (i == 0) {
            int32_t *ids = in[i]->data;
            for (size_t k = 0; k < ne; k++)
                ids[k] = (int32_t)(poly_enc_rand(&s) % (uint32_t)V);
        } else {
            poly_enc_fill(in[i]->data, ne, scale[i], &s);
        }
    }
}

/* The tensor holding %name in this run: a parameter or a tap result. */
static plumb_tensor *value_of(const encoder *e, const char *name, plumb_tensor **in, plumb_tensor **tap)
{
    for (uint32_t i = 0; i < e->f->body.n_args; i++)
        if (strcmp(e->f->body.args[i]->name, name) == 0)
            return in[i];
    for (uint32_t k = 0; k < e->n_ops; k++)
        if (strcmp(e->ops[k].name, name) == 0)
            return tap[k];
    return NULL;
}

/* At each of the 20 lengths every op of the encoder is within its bound of
 * the reference, on the runtime's own operands; one compile of the tap
 * program serves every length; its last value is the encoder's result,
 * bit for bit. */
static void test_every_op_within_its_bound(void **state)
{
    (void)state;
    encoder e;
    encoder_load(&e);
    ir_module *tap = parse_verified(e.tap, "encoder_tap.mlir");
    plumb_diag d;
    memset(&d, 0, sizeof d);
    conf_backend rb;
    if (!conf_backend_open("runtime", NULL, 0, &rb, &d)) {
        plumb_diag_print(&d, stderr);
        fail();
    }
    conf_check_opts co;
    conf_caps_check_opts(&rb.caps, PLUMB_F32, &co);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_non_null(rt);
    double worst[MAX_VALUES] = {0};
    plumb_arena *arena = plumb_arena_new(0);
    assert_non_null(arena);
    uint32_t checked = 0, failed = 0;
    for (int li = 0; li < 20; li++) {
        int64_t n = lengths[li];
        plumb_tensor *in[POLY_ENC_PARAMS], *outs[MAX_VALUES] = {NULL}, *enc_out[1] = {NULL};
        make_inputs(n, (uint32_t)li + 101, in);
        bool ok = plumb_runtime_run(rt, tap, NULL, in, POLY_ENC_PARAMS, outs, e.n_ops, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        /* the encoder itself, on a runtime of its own */
        plumb_runtime *ert = plumb_runtime_create(&o, &d);
        assert_non_null(ert);
        ok = plumb_runtime_run(ert, e.m, NULL, in, POLY_ENC_PARAMS, enc_out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        const plumb_tensor *last = outs[e.n_ops - 1];
        assert_int_equal(last->nbytes, enc_out[0]->nbytes);
        assert_int_equal(last->dims[0], n);
        if (memcmp(last->data, enc_out[0]->data, last->nbytes) != 0) {
            fprintf(stderr, "length %lld: the tap program's result differs from the encoder's\n", (long long)n);
            fail();
        }
        plumb_runtime_destroy(ert);
        for (uint32_t k = 0; k < e.n_ops; k++) {
            const enc_op *op = &e.ops[k];
            if (op->op->code == PLUMB_OP_CONSTANT)
                continue;   /* a literal: nothing computed */
            char *prog = op_program(&e, k);
            plumb_tensor *args[4];
            for (uint32_t j = 0; j < op->n_args; j++) {
                args[j] = value_of(&e, op->args[j], in, outs);
                assert_non_null(args[j]);
            }
            conf_case c;
            memset(&c, 0, sizeof c);
            snprintf(c.id, sizeof c.id, "encoder/%s/n%lld", op->name, (long long)n);
            c.op = op->op->code;
            c.dtype = op->op->n_operands ? op->op->operands[0]->type.dtype : op->op->results[0]->type.dtype;
            c.shape_class = "encoder";
            c.value_class = "encoder";
            /* As the conformance runner checks a polymorphic case: against the
             * static program at its size (every `?` here is the length n), so
             * that sums and dots count their actual terms; the dynamic ops
             * (exact, their results sized by shape operands) run as written. */
            bool dyn_op = c.op == PLUMB_OP_GET_DIMENSION_SIZE || c.op == PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM;
            c.program = dyn_op ? prog : conf_poly_concretize(arena, prog, n);
            assert_non_null(c.program);
            c.inputs = args;
            c.n_inputs = op->n_args;
            conf_result r;
            memset(&r, 0, sizeof r);
            ok = conf_check_case(&c, &outs[k], 1, &co, &r, &d);
            if (!ok) {
                fprintf(stderr, "%s: the checker could not run: %s\n", c.id, d.msg);
                fail();
            }
            checked++;
            if (!r.pass) {
                failed++;
                fprintf(stderr, "%s (%s): %.3g of its bound: %s\n", c.id, plumb_op_name(c.op), r.budget_used,
                        r.reason);
            }
            if (r.budget_used > worst[k])
                worst[k] = r.budget_used;
            free(prog);
        }
        for (uint32_t k = 0; k < e.n_ops; k++)
            plumb_tensor_free(outs[k]);
        plumb_tensor_free(enc_out[0]);
        for (int i = 0; i < POLY_ENC_PARAMS; i++)
            plumb_tensor_free(in[i]);
    }
    /* The figures, for the record: each op's worst fraction of its bound. */
    for (uint32_t k = 0; k < e.n_ops; k++)
        if (worst[k] > 0)
            fprintf(stderr, "  %%%s (%s): worst %.3g of its bound over the 20 lengths\n", e.ops[k].name,
                    plumb_op_name(e.ops[k].op->code), worst[k]);
    fprintf(stderr, "  %u op results checked, %u outside their bound\n", checked, failed);
    assert_int_equal(failed, 0);
    assert_int_equal(checked, 20 * 43);   /* 50 ops, 7 of them constants */
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.recompiles, 0);
    plumb_runtime_destroy(rt);
    conf_backend_close(&rb);
    plumb_arena_free(arena);
    ir_module_free(tap);
    encoder_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_within_its_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
