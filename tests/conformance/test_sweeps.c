/* Issue 20's claims about the generated cases, checked on the cases
 * themselves (conformance/gen_sweeps.c and the families before it): every
 * unary elementwise op over every pattern of each type of at most 16 bits
 * it takes, convert from each such type into every type, and chlo.zeta and
 * chlo.polygamma over every pair of patterns of each 8-bit format in the
 * full suite. A case "holds every pattern" when one of its inputs of that
 * type contains all 2^bits codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/conf.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"

static void gen_ok(plumb_opcode op, conf_suite s, conf_cases *cs)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    bool ok = conf_generate(op, s, 1, 0, 1, cs, &d);
    if (!ok) fprintf(stderr, "%s: %s\n", plumb_op_name(op), d.msg);
    assert_true(ok);
}

static bool holds_every_pattern(const plumb_tensor *x)
{
    uint64_t np = 1ull << plumb_dtype_get(x->dtype)->bits, n = plumb_tensor_numel(x), cnt = 0;
    if (n < np) return false;
    char *seen = calloc(np, 1);
    assert_non_null(seen);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = plumb_load_bits(x->dtype, x->data, i) & (np - 1);
        cnt += !seen[b];
        seen[b] = 1;
    }
    free(seen);
    return cnt == np;
}

/* the result element type of a convert case: the last type of its program */
static bool convert_target(const conf_case *c, plumb_dtype *u)
{
    const char *p = strstr(c->program, "stablehlo.convert"), *a;
    if (!p || !(p = strstr(p, "-> tensor<"))) return false;
    p += 10;
    const char *e = strchr(p, '>');
    if (!e) return false;
    for (a = e; a > p && a[-1] != 'x' && a[-1] != '<'; a--) {}
    return plumb_dtype_parse(a, (size_t)(e - a), u);
}

/* Every unary elementwise op on every type of at most 16 bits it takes
 * (its table row or ir_lowp_accepts), complex aside, has a quick-suite case
 * holding every pattern; convert has one per (source, target) pair. */
static void test_unary_ops_every_pattern(void **state)
{
    (void)state;
    uint32_t pairs = 0, missing = 0;
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        const plumb_op_info *oi = plumb_op_get((plumb_opcode)o);
        if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->arity != 1) continue;
        conf_cases cs;
        gen_ok((plumb_opcode)o, CONF_SUITE_QUICK, &cs);
        static char have[PLUMB_DTYPE_COUNT][PLUMB_DTYPE_COUNT];
        memset(have, 0, sizeof have);
        for (uint32_t c = 0; c < cs.n; c++)
            for (uint32_t k = 0; k < cs.v[c].n_inputs; k++) {
                const plumb_tensor *x = cs.v[c].inputs[k];
                if (plumb_dtype_get(x->dtype)->bits > 16 || !holds_every_pattern(x)) continue;
                plumb_dtype u = x->dtype;
                if (o == PLUMB_OP_CONVERT && !convert_target(&cs.v[c], &u)) continue;
                have[x->dtype][u] = 1;
            }
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (plumb_dtype_get((plumb_dtype)t)->bits > 16 || plumb_dtype_is_complex((plumb_dtype)t)) continue;
            if (!(oi->types & PLUMB_TY_BIT(t)) && !ir_lowp_accepts((plumb_opcode)o, (plumb_dtype)t)) continue;
            for (int u = 0; u < PLUMB_DTYPE_COUNT; u++) {
                if (o == PLUMB_OP_CONVERT ? plumb_dtype_is_complex((plumb_dtype)u) : u != t) continue;
                pairs++;
                if (!have[t][u]) {
                    missing++;
                    fprintf(stderr, "no case holds every pattern: %s %s%s%s\n", oi->name, plumb_dtype_name((plumb_dtype)t),
                            o == PLUMB_OP_CONVERT ? " -> " : "", o == PLUMB_OP_CONVERT ? plumb_dtype_name((plumb_dtype)u) : "");
                }
            }
        }
        conf_cases_free(&cs);
    }
    fprintf(stderr, "unary op x type (convert: x target) pairs swept: %u of %u\n", pairs - missing, pairs);
    assert_true(pairs > 500);
    assert_int_equal(missing, 0);
}

/* chlo.zeta and chlo.polygamma: on each 8-bit format they take, the full
 * suite's cases meet every pattern of the first operand with every pattern
 * of the second (the quick suite: every first with a quarter of the second). */
static void test_zeta_polygamma_every_pair(void **state)
{
    (void)state;
    static const plumb_opcode ops[] = {PLUMB_OP_ZETA, PLUMB_OP_POLYGAMMA};
    uint32_t formats = 0;
    for (size_t k = 0; k < 2; k++) {
        conf_cases full, quick;
        gen_ok(ops[k], CONF_SUITE_FULL, &full);
        gen_ok(ops[k], CONF_SUITE_QUICK, &quick);
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!plumb_fpfmt_get((plumb_dtype)t) || plumb_dtype_get((plumb_dtype)t)->bits != 8 ||
                !ir_lowp_accepts(ops[k], (plumb_dtype)t))
                continue;
            formats++;
            for (int s = 0; s < 2; s++) {
                const conf_cases *cs = s ? &quick : &full;
                char *seen = calloc(65536, 1);
                assert_non_null(seen);
                uint32_t cnt = 0;
                for (uint32_t c = 0; c < cs->n; c++) {
                    const conf_case *cc = &cs->v[c];
                    if (cc->n_inputs != 2 || cc->inputs[0]->dtype != (plumb_dtype)t || cc->inputs[1]->dtype != (plumb_dtype)t)
                        continue;
                    for (uint64_t i = 0, n = plumb_tensor_numel(cc->inputs[0]); i < n; i++) {
                        uint32_t pair = (uint32_t)(plumb_load_bits((plumb_dtype)t, cc->inputs[0]->data, i) << 8 |
                                                   plumb_load_bits((plumb_dtype)t, cc->inputs[1]->data, i));
                        cnt += !seen[pair];
                        seen[pair] = 1;
                    }
                }
                free(seen);
                if (!s && cnt != 65536)
                    fprintf(stderr, "%s %s full suite: %u of 65536 pairs\n", plumb_op_name(ops[k]),
                            plumb_dtype_name((plumb_dtype)t), cnt);
                if (s) assert_true(cnt >= 16384);
                else assert_int_equal(cnt, 65536);
            }
        }
        conf_cases_free(&full);
        conf_cases_free(&quick);
    }
    assert_true(formats >= 2 * 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_ops_every_pattern),
        cmocka_unit_test(test_zeta_polygamma_every_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
