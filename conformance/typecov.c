/* The type coverage of the case generators (conformance/coverage.h,
 * `plumb certify --type-coverage`, docs/certify.md "Type coverage"): for
 * every op of the op table and every element type the verifier accepts for
 * it (the row's types, complex where ir_complex_accepts and the small
 * types ir_lowp_accepts add), how many cases conf_generate makes in the quick and
 * the full suite. Counted from the generated cases themselves, not from
 * the manifest, so a type a family forgets is a zero here even when the
 * manifest forgot it too. */
#include <string.h>

#include "coverage.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "plumb/ops.h"

bool conf_typecov_accepts(plumb_opcode op, plumb_dtype t)
{
    return (plumb_op_get(op)->types & PLUMB_TY_BIT(t)) || (plumb_dtype_is_complex(t) && ir_complex_accepts(op)) ||
           ir_lowp_accepts(op, t);   /* the verifier's three rules (ir/verify.c) */
}

bool conf_typecov_new_type(plumb_dtype t)
{
    return plumb_dtype_is_lowp(t) || plumb_dtype_is_complex(t);
}

/* The types a case counts for: its primary type; for a conversion
 * ("<src>_to_<dst>" in the id's type field) the target type as well, so a
 * type reached only as a conversion's result is not a hole; and the type
 * of its first operand when that is one of the new types and not the
 * primary one (fft's cases are keyed on the component type f32/f64 and
 * run complex operands). */
static void count_case(const conf_case *c, uint32_t *per_type)
{
    per_type[c->dtype]++;
    if (c->n_inputs && c->inputs[0] && c->inputs[0]->dtype != c->dtype && conf_typecov_new_type(c->inputs[0]->dtype))
        per_type[c->inputs[0]->dtype]++;
    const char *f = strchr(c->id, '/');
    if (!f) return;
    f++;
    const char *e = strchr(f, '/');
    const char *to = strstr(f, "_to_");
    if (!to || (e && to > e)) return;
    to += 4;
    size_t len = e ? (size_t)(e - to) : strlen(to);
    plumb_dtype dst;
    if (plumb_dtype_parse(to, len, &dst) && dst != c->dtype) per_type[dst]++;
}

bool conf_typecov_build(const bool *ops, uint64_t seed, conf_typecov *out, plumb_diag *d)
{
    memset(out, 0, sizeof *out);
    for (int o = 0; o < PLUMB_OP_COUNT; o++) {
        plumb_opcode op = (plumb_opcode)o;
        if (ops && !ops[o]) continue;
        out->selected[o] = true;
        for (int s = 0; s < 2; s++) {
            conf_cases cs;
            if (!conf_generate(op, s ? CONF_SUITE_FULL : CONF_SUITE_QUICK, seed, 0, 1, &cs, d)) return false;
            uint32_t per[PLUMB_DTYPE_COUNT] = {0};
            for (uint32_t i = 0; i < cs.n; i++) count_case(&cs.v[i], per);
            for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) out->cases[o][t][s] = per[t];
            conf_cases_free(&cs);
        }
    }
    return true;
}

/* A row is printed for every accepted pair and for a type with cases that
 * the verifier does not accept (it would be refused: a generator bug). */
static bool row(const conf_typecov *c, int o, int t)
{
    return c->selected[o] &&
           (conf_typecov_accepts((plumb_opcode)o, (plumb_dtype)t) || c->cases[o][t][0] || c->cases[o][t][1]);
}

void conf_typecov_summary(const conf_typecov *c, bool new_only, conf_typecov_totals *s)
{
    memset(s, 0, sizeof *s);
    for (int o = 0; o < PLUMB_OP_COUNT; o++)
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!row(c, o, t) || (new_only && !conf_typecov_new_type((plumb_dtype)t))) continue;
            if (!conf_typecov_accepts((plumb_opcode)o, (plumb_dtype)t)) {
                s->unaccepted++;
                continue;
            }
            s->pairs++;
            if (!conf_op_generated((plumb_opcode)o)) s->no_cases_of_own++;
            else if (c->cases[o][t][1] == 0) s->holes++;
            else s->covered++;
        }
}

static const char *status(const conf_typecov *c, int o, int t)
{
    if (!conf_typecov_accepts((plumb_opcode)o, (plumb_dtype)t)) return "not-accepted";
    if (!conf_op_generated((plumb_opcode)o)) return "no-cases-of-own";
    if (c->cases[o][t][1] == 0) return "hole";
    return c->cases[o][t][0] ? "covered" : "full-only";
}

void conf_typecov_text(plumb_buf *b, const conf_typecov *c, bool new_only)
{
    plumb_buf_printf(b, "%-34s %-16s %7s %7s  %s\n", "op", "type", "quick", "full", "status");
    for (int o = 0; o < PLUMB_OP_COUNT; o++)
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!row(c, o, t) || (new_only && !conf_typecov_new_type((plumb_dtype)t))) continue;
            plumb_buf_printf(b, "%-34s %-16s %7u %7u  %s\n", plumb_op_name((plumb_opcode)o),
                             plumb_dtype_name((plumb_dtype)t), c->cases[o][t][0], c->cases[o][t][1], status(c, o, t));
        }
    conf_typecov_totals s;
    conf_typecov_summary(c, new_only, &s);
    plumb_buf_printf(b,
                     "type coverage%s: %u op x type pairs accepted, %u with cases, %u holes, %u of ops without "
                     "cases of their own; %u pairs with cases the verifier does not accept\n",
                     new_only ? " (new types)" : "", s.pairs, s.covered, s.holes, s.no_cases_of_own, s.unaccepted);
}

void conf_typecov_json(plumb_buf *b, const conf_typecov *c, bool new_only)
{
    conf_typecov_totals s;
    conf_typecov_summary(c, new_only, &s);
    plumb_buf_printf(b, "{\"new_types_only\": %s, \"pairs\": %u, \"covered\": %u, \"holes\": %u, "
                        "\"no_cases_of_own\": %u, \"not_accepted\": %u, \"cells\": [\n",
                     new_only ? "true" : "false", s.pairs, s.covered, s.holes, s.no_cases_of_own, s.unaccepted);
    bool first = true;
    for (int o = 0; o < PLUMB_OP_COUNT; o++)
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!row(c, o, t) || (new_only && !conf_typecov_new_type((plumb_dtype)t))) continue;
            plumb_buf_puts(b, first ? "  {\"op\": " : ",\n  {\"op\": ");
            first = false;
            plumb_json_str_append(b, plumb_op_name((plumb_opcode)o));
            plumb_buf_puts(b, ", \"type\": ");
            plumb_json_str_append(b, plumb_dtype_name((plumb_dtype)t));
            plumb_buf_printf(b, ", \"new_type\": %s, \"quick\": %u, \"full\": %u, \"status\": \"%s\"}",
                             conf_typecov_new_type((plumb_dtype)t) ? "true" : "false", c->cases[o][t][0],
                             c->cases[o][t][1], status(c, o, t));
        }
    plumb_buf_puts(b, "\n]}\n");
}
