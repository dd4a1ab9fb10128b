/* Case generators: counts match the manifest, every case verifies and runs on
 * the reference, generation is deterministic and sharding partitions it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
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
            /* a polymorphic case of a static op is checked through its static form */
            const char *prog = c->check_program ? c->check_program : c->program;
            assert_int_equal(c->polymorphic, strncmp(c->shape_class, "dyn_", 4) == 0);
            ir_module *m = ir_parse(prog, strlen(prog), c->id, NULL, &d);
            if (!m) fprintf(stderr, "%s: %s\n%s", c->id, d.msg, prog);
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

/* ---- depth families: crossed classes, format boundaries, binades ---------------- */

/* Runs "%r = <op> %x[, %y]" (convert when op is NULL) on the reference over n
 * elements; dst is the result type. Returns the result's bits in out. */
static void ref_ew(const char *op, plumb_dtype t, plumb_dtype dst, const uint64_t *x, const uint64_t *y, uint32_t n,
                   uint64_t *out)
{
    char prog[1024], T[64], U[64];
    snprintf(T, sizeof T, "tensor<%ux%s>", n, plumb_dtype_name(t));
    snprintf(U, sizeof U, "tensor<%ux%s>", n, plumb_dtype_name(dst));
    if (!op)
        snprintf(prog, sizeof prog, "func.func @main(%%x: %s) -> (%s) {\n  %%r = stablehlo.convert %%x : (%s) -> %s\n"
                 "  return %%r : %s\n}\n", T, U, T, U, U);
    else if (y)
        snprintf(prog, sizeof prog, "func.func @main(%%x: %s, %%y: %s) -> (%s) {\n  %%r = %s %%x, %%y : %s\n"
                 "  return %%r : %s\n}\n", T, T, T, op, T, T);
    else
        snprintf(prog, sizeof prog, "func.func @main(%%x: %s) -> (%s) {\n  %%r = %s %%x : %s\n  return %%r : %s\n}\n",
                 T, T, op, T, T);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(prog, strlen(prog), "boundary test", NULL, &d);
    assert_non_null(m);
    int64_t dim = n;
    plumb_tensor *in[2] = {plumb_tensor_new(t, 1, &dim, 0, &d), y ? plumb_tensor_new(t, 1, &dim, 0, &d) : NULL};
    assert_non_null(in[0]);
    for (uint32_t i = 0; i < n; i++) {
        plumb_store_bits(t, in[0]->data, i, x[i]);
        if (y) plumb_store_bits(t, in[1]->data, i, y[i]);
    }
    plumb_ref_result r;
    memset(&r, 0, sizeof r);
    bool ok = plumb_ref_run(m, NULL, in, y ? 2 : 1, NULL, &r, &d);
    if (!ok) fprintf(stderr, "%s\n%s", d.msg, prog);
    assert_true(ok);
    for (uint32_t i = 0; i < n; i++) out[i] = plumb_load_bits(dst, r.outputs[0]->data, i);
    plumb_ref_result_free(&r);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

static double bits_val(plumb_dtype t, uint64_t b)
{
    uint8_t buf[8] = {0};
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* A saturated result: ±inf, ±0 or ±1. */
static bool saturated(plumb_dtype t, uint64_t b)
{
    double v = bits_val(t, b);
    return isinf(v) || v == 0.0 || fabs(v) == 1.0;
}

/* The case of op in type t whose value class is vc, or NULL. */
static const conf_case *find_case(const conf_cases *cs, plumb_dtype t, const char *vc)
{
    for (uint32_t i = 0; i < cs->n; i++)
        if (cs->v[i].dtype == t && !strcmp(cs->v[i].value_class, vc)) return &cs->v[i];
    return NULL;
}

static bool holds(const plumb_tensor *x, uint64_t b)
{
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
        if (plumb_load_bits(x->dtype, x->data, i) == b) return true;
    return false;
}

/* Every format boundary really is one: the reference's result differs on
 * its two sides; for the overflowing and saturating ops the two sides are
 * adjacent values and exactly one result is saturated (±inf, ±0, ±1); and
 * each boundary is in the op's "threshold" case. */
static void test_boundaries_are_boundaries(void **state)
{
    (void)state;
    static const plumb_opcode ops[] = {PLUMB_OP_EXPONENTIAL, PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_TANH,
                                       PLUMB_OP_LOGISTIC, PLUMB_OP_ERF, PLUMB_OP_POWER, PLUMB_OP_ADD,
                                       PLUMB_OP_SUBTRACT, PLUMB_OP_MULTIPLY, PLUMB_OP_DIVIDE, PLUMB_OP_FLOOR,
                                       PLUMB_OP_CEIL, PLUMB_OP_ROUND_NEAREST_EVEN, PLUMB_OP_ROUND_NEAREST_AFZ,
                                       PLUMB_OP_COSH, PLUMB_OP_SINH, PLUMB_OP_ERFC};
    static const plumb_dtype types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};
    uint32_t checked = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        conf_cases cs;
        gen_ok(ops[k], CONF_SUITE_QUICK, 5, 0, 1, &cs);
        bool rounding = ops[k] >= PLUMB_OP_FLOOR && ops[k] <= PLUMB_OP_ROUND_NEAREST_AFZ;
        for (size_t ti = 0; ti < 4; ti++) {
            plumb_dtype t = types[ti];
            bool binary = plumb_op_get(ops[k])->arity == 2;
            if (!binary && (t == PLUMB_F16 || t == PLUMB_BF16)) continue;
            conf_boundary b[32];
            uint32_t n = conf_boundaries(ops[k], t, b, 32);
            assert_true(n >= 2 && n <= 32);
            const conf_case *c = find_case(&cs, t, "threshold");
            assert_non_null(c);
            uint64_t x[64], r[64], other[64];
            for (uint32_t i = 0; i < n; i++) {
                x[2 * i] = b[i].below;
                x[2 * i + 1] = b[i].above;
                assert_true(bits_val(t, b[i].below) < bits_val(t, b[i].above));
                assert_true(holds(c->inputs[binary ? 1 : 0], b[i].below));
                assert_true(holds(c->inputs[binary ? 1 : 0], b[i].above));
                if (binary) assert_true(holds(c->inputs[0], b[i].other));
                other[2 * i] = other[2 * i + 1] = b[i].other;
            }
            if (binary) ref_ew(plumb_op_name(ops[k]), t, t, other, x, 2 * n, r);
            else ref_ew(plumb_op_name(ops[k]), t, t, x, NULL, 2 * n, r);
            for (uint32_t i = 0; i < n; i++) {
                if (r[2 * i] == r[2 * i + 1])
                    fprintf(stderr, "%s %s: pair %u (%a, %a) gives %a twice\n", plumb_op_name(ops[k]),
                            plumb_dtype_name(t), i, bits_val(t, x[2 * i]), bits_val(t, x[2 * i + 1]), bits_val(t, r[2 * i]));
                assert_true(r[2 * i] != r[2 * i + 1]);
                if (!rounding) {
                    uint64_t up = b[i].below + ((b[i].below >> (plumb_dtype_get(t)->bits - 1)) ? -1 : 1);
                    assert_true(b[i].above == up);
                    assert_true(saturated(t, r[2 * i]) != saturated(t, r[2 * i + 1]));
                }
                checked++;
            }
        }
        conf_cases_free(&cs);
    }
    assert_true(checked > 60);
}

/* Hand-checked thresholds: f32 exp overflows above ln(FLT_MAX + ulp/2) =
 * 88.7228391..., whose f32 floor is 0x42B17217 (88.72283172...; the class
 * "boundary" has ln 2^127 = 88.03 as its exp limit); the f64 one
 * is 0x1.62e42fefa39efp+9 (709.782712893384, libm's exp threshold); tanh(x)
 * rounds to 1 in f32 from atanh(1 − 2^-25) = ln(2^26 − 1)/2 ≈ 13·ln 2 =
 * 9.0109133 on. */
static void test_known_thresholds(void **state)
{
    (void)state;
    conf_boundary b[8];
    assert_true(conf_boundaries(PLUMB_OP_EXPONENTIAL, PLUMB_F32, b, 8) >= 1);
    assert_int_equal(b[0].below, 0x42B17217u);
    assert_true(conf_boundaries(PLUMB_OP_EXPONENTIAL, PLUMB_F64, b, 8) >= 1);
    assert_true(b[0].below == 0x40862E42FEFA39EFull);
    assert_true(conf_boundaries(PLUMB_OP_TANH, PLUMB_F32, b, 8) >= 1);
    double lo = bits_val(PLUMB_F32, b[0].below), hi = bits_val(PLUMB_F32, b[0].above);
    assert_true(lo < 9.0109133 && hi > 9.0109130 && hi - lo < 1e-5);
}

/* Conversion midpoints straddle a rounding step (the reference converts the
 * two sides differently), and each double-rounding trap converts
 * differently from f64 directly than through f32. */
static void test_convert_midpoints(void **state)
{
    (void)state;
    uint32_t pairs = 0, traps = 0;
    for (int s = 0; s < PLUMB_DTYPE_COUNT; s++)
        for (int u = 0; u < PLUMB_DTYPE_COUNT; u++) {
            conf_boundary b[32];
            uint32_t n = conf_convert_boundaries((plumb_dtype)s, (plumb_dtype)u, b, 32);
            assert_true(n <= 32);
            if (!n) continue;
            uint64_t x[64], r[64];
            for (uint32_t i = 0; i < n; i++) { x[2 * i] = b[i].below; x[2 * i + 1] = b[i].above; }
            ref_ew(NULL, (plumb_dtype)s, (plumb_dtype)u, x, NULL, 2 * n, r);
            for (uint32_t i = 0; i < n; i++) {
                if (r[2 * i] == r[2 * i + 1])
                    fprintf(stderr, "convert %s -> %s: pair %u (%llx, %llx) converts the same\n",
                            plumb_dtype_name((plumb_dtype)s), plumb_dtype_name((plumb_dtype)u), i,
                            (unsigned long long)x[2 * i], (unsigned long long)x[2 * i + 1]);
                assert_true(r[2 * i] != r[2 * i + 1]);
                pairs++;
            }
        }
    assert_true(pairs > 100);
    plumb_dtype dsts[] = {PLUMB_F16, PLUMB_BF16};
    for (int k = 0; k < 2; k++) {
        uint64_t x[16], direct[16], mid[16], twice[16];
        uint32_t n = conf_double_rounding_traps(dsts[k], x, 16);
        assert_true(n >= 4 && n <= 16);
        ref_ew(NULL, PLUMB_F64, dsts[k], x, NULL, n, direct);
        ref_ew(NULL, PLUMB_F64, PLUMB_F32, x, NULL, n, mid);
        ref_ew(NULL, PLUMB_F32, dsts[k], mid, NULL, n, twice);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(direct[i] != twice[i]);
            traps++;
        }
    }
    assert_int_equal(traps, 16);
}

/* Crossed classes: the i32 divide case holds (INT_MIN, −1); the f32 dot
 * case multiplies a subnormal by a normal number in one of its rows; the
 * reduce case's init is not the add identity. */
static void test_crossed_classes(void **state)
{
    (void)state;
    conf_cases cs;
    gen_ok(PLUMB_OP_DIVIDE, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    const conf_case *c = find_case(&cs, PLUMB_I32, "cross");
    assert_non_null(c);
    bool found = false;
    for (uint64_t i = 0, n = plumb_tensor_numel(c->inputs[0]); i < n; i++)
        found |= plumb_load_bits(PLUMB_I32, c->inputs[0]->data, i) == 0x80000000u &&
                 plumb_load_bits(PLUMB_I32, c->inputs[1]->data, i) == 0xFFFFFFFFu;
    assert_true(found);
    conf_cases_free(&cs);

    gen_ok(PLUMB_OP_DOT, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    c = find_case(&cs, PLUMB_F32, "cross");
    assert_non_null(c);
    const plumb_tensor *x = c->inputs[0], *y = c->inputs[1];
    int64_t rows = x->dims[0], len = x->dims[1], cols = y->dims[1];
    found = false;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t col = 0; col < cols; col++)
            for (int64_t k = 0; k < len; k++) {
                double a = bits_val(PLUMB_F32, plumb_load_bits(PLUMB_F32, x->data, (size_t)(r * len + k)));
                double b = bits_val(PLUMB_F32, plumb_load_bits(PLUMB_F32, y->data, (size_t)(k * cols + col)));
                bool sa = a != 0 && fabs(a) < 0x1p-126, nb = fabs(b) >= 0x1p-126 && isfinite(b);
                found |= sa && nb;
            }
    assert_true(found);
    conf_cases_free(&cs);

    gen_ok(PLUMB_OP_REDUCE, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    c = find_case(&cs, PLUMB_F32, "cross");
    assert_non_null(c);
    assert_true(bits_val(PLUMB_F32, plumb_load_bits(PLUMB_F32, c->inputs[1]->data, 0)) != 0.0);
    conf_cases_free(&cs);
}

/* Crossed, not zipped: in the cross case of every elementwise op of two
 * operands and every type, each x value meets each y value (the distinct
 * (x, y) pairs number |X|·|Y|), over a pool of at least 40 float or 10
 * integer values. */
static void test_cross_is_a_product(void **state)
{
    (void)state;
    uint32_t cases = 0;
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        const plumb_op_info *oi = plumb_op_get((plumb_opcode)o);
        if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->arity != 2) continue;
        conf_cases cs;
        gen_ok((plumb_opcode)o, CONF_SUITE_QUICK, 9, 0, 1, &cs);
        for (uint32_t i = 0; i < cs.n; i++) {
            const conf_case *c = &cs.v[i];
            if (strcmp(c->value_class, "cross")) continue;
            const plumb_tensor *x = c->inputs[0], *y = c->inputs[1];
            uint64_t n = plumb_tensor_numel(x);
            assert_true(n <= 64 * 64);
            static uint64_t xs[4096], ys[4096], px[4096], py[4096];
            uint32_t nx = 0, ny = 0, np = 0;
            for (uint64_t e = 0; e < n; e++) {
                uint64_t a = plumb_load_bits(x->dtype, x->data, e), b = plumb_load_bits(y->dtype, y->data, e);
                uint32_t k;
                for (k = 0; k < nx && xs[k] != a; k++) {}
                if (k == nx) xs[nx++] = a;
                for (k = 0; k < ny && ys[k] != b; k++) {}
                if (k == ny) ys[ny++] = b;
                for (k = 0; k < np && !(px[k] == a && py[k] == b); k++) {}
                if (k == np) { px[np] = a; py[np] = b; np++; }
            }
            if (np != nx * ny) fprintf(stderr, "%s: %u pairs of %u x %u values\n", c->id, np, nx, ny);
            assert_int_equal(np, nx * ny);
            if (plumb_dtype_is_float(c->dtype)) assert_true(nx >= 40);
            else if (!plumb_dtype_is_bool(c->dtype)) assert_true(nx >= 10);
            cases++;
        }
        conf_cases_free(&cs);
    }
    assert_true(cases > 150);
}

/* The f32 binade sweep of exp holds CONF_BINADE_SAMPLES values of each sign
 * in each of f32's 254 normal and 23 subnormal binades. */
static void test_binades(void **state)
{
    (void)state;
    conf_cases cs;
    gen_ok(PLUMB_OP_EXPONENTIAL, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    const conf_case *c = find_case(&cs, PLUMB_F32, "binades");
    assert_non_null(c);
    static uint32_t count[2][277];
    memset(count, 0, sizeof count);
    for (uint64_t i = 0, n = plumb_tensor_numel(c->inputs[0]); i < n; i++) {
        uint32_t b = (uint32_t)plumb_load_bits(PLUMB_F32, c->inputs[0]->data, i);
        uint32_t e = (b >> 23) & 0xFF, f = b & 0x7FFFFF;
        assert_true(e != 0xFF && (e || f));
        uint32_t bin = e ? 22 + e : 31 - (uint32_t)__builtin_clz(f);
        count[b >> 31][bin]++;
    }
    for (int sg = 0; sg < 2; sg++)
        for (int bin = 0; bin < 277; bin++) assert_int_equal(count[sg][bin], CONF_BINADE_SAMPLES);
    conf_cases_free(&cs);
}

/* Every form the manifest promises is generated exactly once per (op, type) with the id "<op>/<type>/<shape>/<value>/forms/<form>", and no form case is unpromised. */
static void test_forms_match_manifest(void **state)
{
    (void)state;
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        conf_cases cs;
        gen_ok((plumb_opcode)o, CONF_SUITE_QUICK, 3, 0, 1, &cs);
        uint32_t generated = 0, promised = 0;
        for (uint32_t i = 0; i < cs.n; i++) generated += cs.v[i].form != NULL;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            static char names[128][CONF_FORM_NAME];
            uint32_t n = conf_manifest_forms((plumb_opcode)o, (plumb_dtype)t, names, 128);
            assert_true(n <= 128);
            promised += n;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t hits = 0;
                for (uint32_t i = 0; i < cs.n; i++) {
                    const conf_case *c = &cs.v[i];
                    if (!c->form || c->dtype != (plumb_dtype)t || strcmp(c->form, names[k])) continue;
                    hits++;
                    const char *tail = strstr(c->id, "/forms/");
                    assert_non_null(tail);
                    assert_string_equal(tail + 7, names[k]);
                }
                if (hits != 1) fprintf(stderr, "%s %s form %s: %u cases\n", plumb_op_name((plumb_opcode)o),
                                       plumb_dtype_name((plumb_dtype)t), names[k], hits);
                assert_int_equal(hits, 1);
            }
        }
        assert_int_equal(generated, promised);
        conf_cases_free(&cs);
    }
}

/* The form counts the issue asks for, counted by hand: 1!+2!+3!+4! transposes, 2+4+8+16 reverse sets, sum of 4!/(4-k)! for k = 0..4 broadcast maps, 1+3+7+15 reduce dimension sets, 4 operand counts x 3 dims of concatenate, 1+2+3+4 iota dims per type, 6 directions x 2 float comparison types. */
static void test_form_counts(void **state)
{
    (void)state;
    assert_int_equal(conf_manifest_forms(PLUMB_OP_TRANSPOSE, PLUMB_F32, NULL, 0), 1 + 2 + 6 + 24);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_REVERSE, PLUMB_F32, NULL, 0), 2 + 4 + 8 + 16);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_BROADCAST_IN_DIM, PLUMB_F32, NULL, 0), 1 + 4 + 12 + 24 + 24);
    /* f32 reduce: 26 dimension sets, 4 float bodies, maximum and minimum with a random init, argmax */
    assert_int_equal(conf_manifest_forms(PLUMB_OP_REDUCE, PLUMB_F32, NULL, 0), 1 + 3 + 7 + 15 + 4 + 2 + 1);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_REDUCE, PLUMB_I32, NULL, 0), 6);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_CONCATENATE, PLUMB_F32, NULL, 0), 12);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_IOTA, PLUMB_I32, NULL, 0), 10);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_COMPARE, PLUMB_BF16, NULL, 0), 12);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_COMPARE, PLUMB_UI8, NULL, 0), 6);
    assert_int_equal(conf_manifest_forms(PLUMB_OP_CLAMP, PLUMB_I1, NULL, 0), 3);
}

/* The sort forms make stability observable: the stable FLOAT keys repeat and hold both zeros, the unstable keys are bit-distinct along every sorted slice (else its result would not be defined), and the payload holds a NaN. */
static void test_sort_forms_observable(void **state)
{
    (void)state;
    conf_cases cs;
    gen_ok(PLUMB_OP_SORT, CONF_SUITE_QUICK, 5, 0, 1, &cs);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < cs.n; i++) {
        const conf_case *c = &cs.v[i];
        if (!c->form || c->dtype != PLUMB_F32) continue;
        assert_int_equal(c->n_inputs, 3);
        const plumb_tensor *k = c->inputs[0], *p = c->inputs[2];
        uint64_t n = plumb_tensor_numel(k);
        bool pz = false, nz = false, repeat = false, nan_payload = false;
        for (uint64_t a = 0; a < n; a++) {
            uint64_t ka = plumb_load_bits(PLUMB_F32, k->data, a);
            pz |= ka == 0;
            nz |= ka == 0x80000000u;
            nan_payload |= isnan(plumb_f32_from_bits((uint32_t)plumb_load_bits(PLUMB_F32, p->data, a)));
            /* elements of one slice along the last dimension (5 long) */
            for (uint64_t b = a - a % 5; b < a; b++) repeat |= plumb_load_bits(PLUMB_F32, k->data, b) == ka;
        }
        assert_true(nan_payload);
        if (!strcmp(c->form, "unstable_lt_totalorder")) assert_false(repeat);
        else if (strstr(c->form, "float")) assert_true(pz && nz && repeat);
        seen++;
    }
    assert_int_equal(seen, 6);
    conf_cases_free(&cs);
}

/* Element class of a whole operand, judged from the bits alone: 's' every
 * element a nonzero subnormal, 'L' every element finite in [2^E, 2^(E+1))
 * (E given), 'n' every element a finite normal number, 'x' every element one
 * of the type's special values with an infinity and a NaN among them; '?'
 * otherwise. */
static char operand_class(const plumb_tensor *x, int large_e)
{
    plumb_dtype t = x->dtype;
    uint64_t sp[32];
    uint32_t nsp = conf_float_specials(t, sp);
    bool all_sub = true, all_large = true, all_normal = true, all_special = true, inf = false, nan = false;
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++) {
        double v = plumb_load_f64(t, x->data, i);
        uint64_t b = plumb_load_bits(t, x->data, i);
        bool sub = v != 0 && fabs(v) < (t == PLUMB_F16 ? 0x1p-14 : t == PLUMB_BF16 || t == PLUMB_F32 ? 0x1p-126 : 0x1p-1022);
        all_sub &= sub;
        all_large &= isfinite(v) && fabs(v) >= ldexp(1.0, large_e) && fabs(v) < ldexp(1.0, large_e + 1);
        all_normal &= isfinite(v) && v != 0 && !sub;
        bool in = false;
        for (uint32_t k = 0; k < nsp; k++) in |= sp[k] == b;
        all_special &= in;
        inf |= isinf(v);
        nan |= isnan(v);
    }
    return all_sub ? 's' : all_large ? 'L' : all_normal ? 'n' : all_special && inf && nan ? 'x' : '?';
}

/* The operand-crossed dot family exists for dot (odd) and dot_general (odd
 * and batched dimnums) in every float type, after every other case, and x
 * and y of each case come entirely from the classes its id names; "large"
 * is at least 2^15 (the threshold of the old bf16 DAZ dispatch rule) and
 * in the binade derived by hand in docs/conformance.md. */
static void test_opcross_dots(void **state)
{
    (void)state;
    static const char *const pairs[6] = {"subnormal_large", "large_subnormal", "subnormal_normal",
                                         "normal_subnormal", "special_subnormal", "subnormal_special"};
    static const char cls[6][2] = {{'s', 'L'}, {'L', 's'}, {'s', 'n'}, {'n', 's'}, {'x', 's'}, {'s', 'x'}};
    static const plumb_dtype types[4] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};
    static const int large_e[4] = {15, 63, 63, 511};  /* max(15, emax / 2) with emax 15, 127, 127, 1023 */
    static const plumb_opcode ops[2] = {PLUMB_OP_DOT, PLUMB_OP_DOT_GENERAL};
    for (int oi = 0; oi < 2; oi++) {
        conf_cases cs;
        gen_ok(ops[oi], CONF_SUITE_QUICK, 7, 0, 1, &cs);
        /* then the polymorphic family: 4 sizes x 13 types, and for
         * dot_general the 18 cases of its algorithm family (docs/spec/dotalg.md);
         * the later families (complex sums and dots, the small types'
         * dots) are neither */
        uint32_t want = oi ? 48 : 24, ndyn = 4 * 13, nalg = oi ? 18 : 0, first = cs.n;
        for (uint32_t i = 0; i < cs.n && first == cs.n; i++)
            if (strstr(cs.v[i].id, "/opcross/")) first = i;
        assert_true(first + want + ndyn + nalg <= cs.n);
        for (uint32_t i = 0; i < cs.n; i++) {
            assert_int_equal(strstr(cs.v[i].id, "/opcross/") != NULL, i >= first && i < first + want);
            assert_int_equal(cs.v[i].polymorphic, i >= first + want && i < first + want + ndyn);
            assert_int_equal(strstr(cs.v[i].id, "/odd/alg_") != NULL, i >= first + want + ndyn && i < first + want + ndyn + nalg);
        }
        const char *name = oi ? "dot_general" : "dot";
        for (int ti = 0; ti < 4; ti++)
            for (int sh = 0; sh < (oi ? 2 : 1); sh++)
                for (int p = 0; p < 6; p++) {
                    char id[128];
                    snprintf(id, sizeof id, "%s/%s/%s/opcross/%s", name, plumb_dtype_name(types[ti]),
                             sh ? "dimnums" : "odd", pairs[p]);
                    const conf_case *c = NULL;
                    for (uint32_t i = first; i < cs.n; i++)
                        if (!strcmp(cs.v[i].id, id)) c = &cs.v[i];
                    if (!c) fprintf(stderr, "missing %s\n", id);
                    assert_non_null(c);
                    assert_int_equal(c->n_inputs, 2);
                    assert_int_equal(c->inputs[0]->dtype, types[ti]);
                    assert_int_equal(c->inputs[0]->rank, sh ? 3 : 2);
                    if (sh) assert_non_null(strstr(c->program, "batching_dims = [0] x [1]"));
                    for (int side = 0; side < 2; side++) {
                        char got = operand_class(c->inputs[side], large_e[ti]);
                        if (got != cls[p][side]) fprintf(stderr, "%s operand %d: class %c\n", id, side, got);
                        assert_int_equal(got, cls[p][side]);
                    }
                }
        conf_cases_free(&cs);
    }
}

/* Finds case id in cs (NULL when absent). */
static const conf_case *case_by_id(const conf_cases *cs, const char *id)
{
    for (uint32_t i = 0; i < cs->n; i++)
        if (!strcmp(cs->v[i].id, id)) return &cs->v[i];
    return NULL;
}

/* The static form of a polymorphic program: every `?` becomes the size and
 * every bounds encoding goes, whatever the ranks (strings by hand). */
static void test_poly_concretize(void **state)
{
    (void)state;
    plumb_arena *a = plumb_arena_new(0);
    assert_non_null(a);
    const char *in = "func.func @main(%x: tensor<?x3xf32, #stablehlo.bounds<16, ?>>) -> tensor<3x?xi8, "
                     "#stablehlo.bounds<?, 16>> {";
    char *out = conf_poly_concretize(a, in, 7);
    assert_non_null(out);
    assert_string_equal(out, "func.func @main(%x: tensor<7x3xf32>) -> tensor<3x7xi8> {");
    assert_string_equal(conf_poly_concretize(a, "tensor<?xf32>", 0), "tensor<0xf32>");
    plumb_arena_free(a);
}

/* The "dyn_*" family of a static op: the four sizes 0, 1, 7 and the bound
 * 16 in every type, the program typed `?` with the bound, the inputs at the
 * size, and the static form at that size for the reference (add f32, by
 * hand). */
static void test_poly_family(void **state)
{
    (void)state;
    static const char *const cls[4] = {"dyn_0", "dyn_1", "dyn_odd", "dyn_bound"};
    static const int64_t size[4] = {0, 1, 7, 16};
    conf_cases cs;
    gen_ok(PLUMB_OP_ADD, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    uint32_t ndyn = 0;
    for (uint32_t i = 0; i < cs.n; i++) ndyn += cs.v[i].polymorphic;
    assert_int_equal(ndyn, 4 * 13);   /* add accepts all 13 element types */
    for (int k = 0; k < 4; k++) {
        char id[128], stat[64];
        snprintf(id, sizeof id, "add/f32/%s/special/0", cls[k]);
        const conf_case *c = case_by_id(&cs, id);
        if (!c) fprintf(stderr, "missing %s\n", id);
        assert_non_null(c);
        assert_true(c->polymorphic);
        assert_non_null(strstr(c->program, "%x: tensor<?x3xf32, #stablehlo.bounds<16, ?>>"));
        assert_int_equal(c->n_inputs, 2);
        for (int j = 0; j < 2; j++) {
            assert_int_equal(c->inputs[j]->rank, 2);
            assert_int_equal(c->inputs[j]->dims[0], size[k]);
            assert_int_equal(c->inputs[j]->dims[1], 3);
        }
        assert_non_null(c->check_program);
        snprintf(stat, sizeof stat, "%%x: tensor<%lldx3xf32>", (long long)size[k]);
        assert_non_null(strstr(c->check_program, stat));
        assert_null(strchr(c->check_program, '?'));
    }
    /* The static cases stay static. */
    const conf_case *c = case_by_id(&cs, "add/f32/odd/special/0");
    assert_non_null(c);
    assert_false(c->polymorphic);
    assert_null(c->check_program);
    conf_cases_free(&cs);
    /* An op with no operand that could be `?` has none. */
    gen_ok(PLUMB_OP_IOTA, CONF_SUITE_QUICK, 1, 0, 1, &cs);
    for (uint32_t i = 0; i < cs.n; i++) assert_false(cs.v[i].polymorphic);
    conf_cases_free(&cs);
}

static int64_t i64_at(const plumb_tensor *t, uint64_t i)
{
    return (int64_t)plumb_load_bits(t->dtype, t->data, i);
}

/* The dynamic ops' own cases carry their sizes in shape operands whose
 * values follow the size (derived by hand at n = 7): dynamic_reshape
 * [3, 7]; dynamic_broadcast_in_dim [2, 7, 3]; dynamic_iota [7, 3];
 * real_dynamic_slice start [1, 1], limit [6, 4], strides [2, 2] (3 x 2
 * rows of the 7 x 5 operand); dynamic_pad low [1, -1], high [0, 2],
 * interior [1, 1] (7 x 3 -> 14 x 6, bound 32); dynamic_gather 7 indices,
 * slice sizes [1, 13]; and the reference runs them as written (no static
 * form). */
static void test_dynamic_op_cases(void **state)
{
    (void)state;
    static const struct {
        plumb_opcode op;
        const char *id;
        uint32_t operand;           /* the shape operand checked */
        int64_t v[3];
        uint32_t n;
        const char *result;         /* the declared result type */
    } want[] = {
        {PLUMB_OP_DYNAMIC_RESHAPE, "dynamic_reshape/f32/dyn_odd/special/0", 1, {3, 7}, 2,
         "tensor<3x?xf32, #stablehlo.bounds<?, 16>>"},
        {PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM, "dynamic_broadcast_in_dim/f32/dyn_odd/special/0", 1, {2, 7, 3}, 3,
         "tensor<2x?x3xf32, #stablehlo.bounds<?, 16, ?>>"},
        {PLUMB_OP_DYNAMIC_IOTA, "dynamic_iota/f32/dyn_odd/none/0", 0, {7, 3}, 2,
         "tensor<?x3xf32, #stablehlo.bounds<16, ?>>"},
        {PLUMB_OP_REAL_DYNAMIC_SLICE, "real_dynamic_slice/f32/dyn_odd/special/0", 2, {6, 4}, 2,
         "tensor<?x2xf32, #stablehlo.bounds<16, ?>>"},
        {PLUMB_OP_DYNAMIC_PAD, "dynamic_pad/f32/dyn_odd/special/0", 2, {1, -1}, 2,
         "tensor<?x6xf32, #stablehlo.bounds<32, ?>>"},
        {PLUMB_OP_DYNAMIC_GATHER, "dynamic_gather/f32/dyn_odd/special/0", 2, {1, 13}, 2,
         "tensor<?x13xf32, #stablehlo.bounds<16, ?>>"},
        {PLUMB_OP_GET_DIMENSION_SIZE, "get_dimension_size/f32/dyn_odd/none/0", 0, {7, 3}, 0, "tensor<i32>"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        conf_cases cs;
        gen_ok(want[k].op, CONF_SUITE_QUICK, 1, 0, 1, &cs);
        assert_int_equal(cs.n, conf_manifest_count(want[k].op, CONF_SUITE_QUICK));
        for (uint32_t i = 0; i < cs.n; i++) {
            /* the complex family's cases give their shapes as constants */
            assert_true(cs.v[i].polymorphic || strstr(cs.v[i].id, "/complex<"));
            assert_null(cs.v[i].check_program);
        }
        const conf_case *c = case_by_id(&cs, want[k].id);
        if (!c) fprintf(stderr, "missing %s\n", want[k].id);
        assert_non_null(c);
        char ret[128];
        snprintf(ret, sizeof ret, "return %%r : %s", want[k].result);
        if (!strstr(c->program, ret)) fprintf(stderr, "%s: no '%s' in\n%s", want[k].id, ret, c->program);
        assert_non_null(strstr(c->program, ret));
        const plumb_tensor *t = c->inputs[want[k].operand];
        if (want[k].n) {
            assert_int_equal(t->rank, 1);
            assert_int_equal(t->dims[0], want[k].n);
            for (uint32_t j = 0; j < want[k].n; j++) assert_int_equal(i64_at(t, j), want[k].v[j]);
        } else {
            /* get_dimension_size: the operand itself is 7 x 3 */
            assert_int_equal(t->rank, 2);
            assert_int_equal(t->dims[0], want[k].v[0]);
            assert_int_equal(t->dims[1], want[k].v[1]);
        }
        if (want[k].op == PLUMB_OP_DYNAMIC_GATHER) assert_int_equal(c->inputs[1]->dims[0], 7);
        conf_cases_free(&cs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_matches_manifest_and_runs),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_shards_partition),
        cmocka_unit_test(test_full_manifest),
        cmocka_unit_test(test_exhaustive_f16),
        cmocka_unit_test(test_boundaries_are_boundaries),
        cmocka_unit_test(test_known_thresholds),
        cmocka_unit_test(test_convert_midpoints),
        cmocka_unit_test(test_crossed_classes),
        cmocka_unit_test(test_cross_is_a_product),
        cmocka_unit_test(test_binades),
        cmocka_unit_test(test_forms_match_manifest),
        cmocka_unit_test(test_form_counts),
        cmocka_unit_test(test_sort_forms_observable),
        cmocka_unit_test(test_opcross_dots),
        cmocka_unit_test(test_poly_concretize),
        cmocka_unit_test(test_poly_family),
        cmocka_unit_test(test_dynamic_op_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
