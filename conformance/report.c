/* Certification reports: the text a person reads, JSON for tools, JUnit XML
 * for CI dashboards. All three carry the same certificate and verdicts. */
#include <math.h>
#include <string.h>

#include "certify.h"

static const char *poly_name(plumb_backend_poly p)
{
    switch (p) {
    case PLUMB_BACKEND_POLY_NONE: return "none";
    case PLUMB_BACKEND_POLY_PER_SHAPE: return "per-shape";
    case PLUMB_BACKEND_POLY_BOUNDED: return "bounded";
    }
    return "?";
}

static void type_list(plumb_buf *b, uint32_t mask)
{
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t)))
            continue;
        plumb_buf_printf(b, "%s%s", first ? "" : ",", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
    if (first)
        plumb_buf_puts(b, "-");
}

static const char *suite_name(conf_suite s) { return s == CONF_SUITE_FULL ? "full" : "quick"; }

/* Budgets of exact-class mismatches are huge sentinels; print them as such. */
static void budget_text(plumb_buf *b, double v)
{
    if (v >= 1e29 || !isfinite(v))
        plumb_buf_puts(b, "mismatch");
    else
        plumb_buf_printf(b, "%.3g", v);
}

void conf_report_last_line(plumb_buf *b, const conf_run *run)
{
    plumb_buf_printf(b, "certify: %llu passed, %llu failed, %llu skipped", (unsigned long long)run->passed,
                     (unsigned long long)run->failed, (unsigned long long)run->skipped);
}

void conf_report_text(plumb_buf *b, const conf_run *run)
{
    const conf_backend *bk = &run->backend;
    const conf_caps *c = &bk->caps;
    const conf_run_options *o = &run->opts;
    plumb_buf_printf(b, "plumb certify %s\n\n", PLUMB_VERSION_STRING);
    plumb_buf_puts(b, "certificate\n");
    plumb_buf_printf(b, "  backend       %s %s (%s)\n", bk->name, bk->version, bk->where);
    plumb_buf_printf(b, "  verdict       %s\n", run->ok ? "CERTIFIED: every claimed op passed" : "NOT CERTIFIED");
    plumb_buf_printf(b, "  suite         %s, seed %llu, shard %u/%u\n", suite_name(o->suite),
                     (unsigned long long)o->seed, o->shard_index, o->shard_count);
    plumb_buf_printf(b, "  claims        %u ops; polymorphic shapes %s; subnormals ", c->n_claimed_ops,
                     poly_name(c->poly));
    if (c->flush_subnormals) {
        plumb_buf_puts(b, "flushed to zero for ");
        type_list(b, c->flush_subnormals);
    } else {
        plumb_buf_puts(b, "IEEE");
    }
    plumb_buf_printf(b, "; NaN payloads %s; %s\n", c->preserves_nan_payload ? "preserved" : "not preserved",
                     c->deterministic ? "deterministic" : "not deterministic");
    plumb_buf_printf(b, "  accumulators  f16->%s bf16->%s f32->%s f64->%s\n", plumb_dtype_name(c->accum[PLUMB_F16]),
                     plumb_dtype_name(c->accum[PLUMB_BF16]), plumb_dtype_name(c->accum[PLUMB_F32]),
                     plumb_dtype_name(c->accum[PLUMB_F64]));
    plumb_buf_printf(b, "  digest        xxh3-128:%016llx%016llx\n", (unsigned long long)run->digest[0],
                     (unsigned long long)run->digest[1]);
    plumb_buf_printf(b, "  duration      %.1f s\n\n", run->seconds);

    plumb_buf_printf(b, "%-32s %-44s %7s %7s %7s %12s %11s\n", "op", "types claimed", "cases", "passed", "failed",
                     "worst budget", "unsupported");
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        plumb_buf tl;
        plumb_buf_init(&tl);
        if (s->claimed)
            type_list(&tl, s->claimed);
        else
            plumb_buf_puts(&tl, "(unsupported)");
        plumb_buf bt;
        plumb_buf_init(&bt);
        if (s->cases)
            budget_text(&bt, s->worst_budget);
        else
            plumb_buf_puts(&bt, "-");
        plumb_buf_printf(b, "%-32s %-44s %7u %7u %7u %12s %11u%s%s\n", plumb_op_name((plumb_opcode)i),
                         tl.data ? tl.data : "", s->cases, s->passed, s->failed, bt.data ? bt.data : "", s->skipped,
                         s->note[0] && s->claimed ? "  " : "", s->note[0] && s->claimed ? s->note : "");
        plumb_buf_free(&tl);
        plumb_buf_free(&bt);
    }

    bool any = false;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->status == CONF_ST_PASS)
            continue;
        if (!any)
            plumb_buf_puts(b, "\nfailures\n");
        any = true;
        plumb_buf_printf(b, "  %s  [%s] %s\n", r->id, conf_status_name(r->status), r->reason);
        if (r->repro[0])
            plumb_buf_printf(b, "      reproducer: %s\n", r->repro);
    }
    if (run->n_cache) {
        plumb_buf_puts(b, "\ncache stability (compiles counted through the backend's stats)\n");
        for (uint32_t i = 0; i < run->n_cache; i++) {
            const conf_cache_scenario *s = &run->cache[i];
            plumb_buf_printf(b, "  %-24s compiles %llu (at most %llu)  %s%s%s\n", s->name,
                             (unsigned long long)s->compiles, (unsigned long long)s->expected_max,
                             s->pass ? "pass" : "FAIL", s->pass ? "" : ": ", s->pass ? "" : s->reason);
        }
    }
    plumb_buf_puts(b, "\n");
    conf_report_last_line(b, run);
    plumb_buf_puts(b, "\n");
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_str(plumb_buf *b, const char *s)
{
    plumb_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            plumb_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            plumb_buf_printf(b, "\\u%04x", *p);
        else
            plumb_buf_append(b, (const char *)p, 1);
    }
    plumb_buf_puts(b, "\"");
}

static void json_num(plumb_buf *b, double v)
{
    if (!isfinite(v))
        plumb_buf_puts(b, "null");
    else
        plumb_buf_printf(b, "%.17g", v);
}

static void json_types(plumb_buf *b, uint32_t mask)
{
    plumb_buf_puts(b, "[");
    bool first = true;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (!(mask & PLUMB_TY_BIT(t)))
            continue;
        plumb_buf_printf(b, "%s\"%s\"", first ? "" : ", ", plumb_dtype_name((plumb_dtype)t));
        first = false;
    }
    plumb_buf_puts(b, "]");
}

void conf_report_json(plumb_buf *b, const conf_run *run)
{
    const conf_backend *bk = &run->backend;
    const conf_caps *c = &bk->caps;
    const conf_run_options *o = &run->opts;
    plumb_buf_puts(b, "{\n  \"plumb_version\": ");
    json_str(b, PLUMB_VERSION_STRING);
    plumb_buf_puts(b, ",\n  \"certificate\": {\n    \"backend\": ");
    json_str(b, bk->name);
    plumb_buf_puts(b, ", \"version\": ");
    json_str(b, bk->version);
    plumb_buf_puts(b, ", \"location\": ");
    json_str(b, bk->where);
    plumb_buf_printf(b, ",\n    \"certified\": %s, \"suite\": \"%s\", \"seed\": %llu, \"shard_index\": %u, \"shard_count\": %u,\n",
                     run->ok ? "true" : "false", suite_name(o->suite), (unsigned long long)o->seed, o->shard_index,
                     o->shard_count);
    plumb_buf_printf(b, "    \"digest\": \"xxh3-128:%016llx%016llx\", \"seconds\": ", (unsigned long long)run->digest[0],
                     (unsigned long long)run->digest[1]);
    json_num(b, run->seconds);
    plumb_buf_printf(b, ",\n    \"capabilities\": {\"polymorphic_shapes\": \"%s\", \"flush_subnormals\": ",
                     poly_name(c->poly));
    json_types(b, c->flush_subnormals);
    plumb_buf_printf(b, ", \"preserves_nan_payload\": %s, \"deterministic\": %s, \"accumulators\": {",
                     c->preserves_nan_payload ? "true" : "false", c->deterministic ? "true" : "false");
    plumb_buf_printf(b, "\"f16\": \"%s\", \"bf16\": \"%s\", \"f32\": \"%s\", \"f64\": \"%s\"},\n      \"ops\": {",
                     plumb_dtype_name(c->accum[PLUMB_F16]), plumb_dtype_name(c->accum[PLUMB_BF16]),
                     plumb_dtype_name(c->accum[PLUMB_F32]), plumb_dtype_name(c->accum[PLUMB_F64]));
    bool first = true;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!c->claims[i])
            continue;
        plumb_buf_printf(b, "%s\n        ", first ? "" : ",");
        json_str(b, plumb_op_name((plumb_opcode)i));
        plumb_buf_puts(b, ": ");
        json_types(b, c->claims[i]);
        first = false;
    }
    plumb_buf_puts(b, "}}\n  },\n  \"ops\": [");
    first = true;
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        plumb_buf_printf(b, "%s\n    {\"op\": ", first ? "" : ",");
        first = false;
        json_str(b, plumb_op_name((plumb_opcode)i));
        plumb_buf_puts(b, ", \"claimed\": ");
        json_types(b, s->claimed);
        plumb_buf_printf(b, ", \"supported\": %s, \"expected\": %u, \"generated\": %u, \"cases\": %u, \"passed\": %u, "
                            "\"failed\": %u, \"unsupported\": %u, \"manifest_ok\": %s, \"worst_budget\": ",
                         s->claimed ? "true" : "false", s->expected, s->generated, s->cases, s->passed, s->failed,
                         s->skipped, s->manifest_ok ? "true" : "false");
        json_num(b, s->worst_budget);
        plumb_buf_puts(b, ", \"worst_case\": ");
        json_str(b, s->worst_case);
        plumb_buf_puts(b, ", \"note\": ");
        json_str(b, s->note);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, "\n  ],\n  \"failures\": [");
    first = true;
    for (uint32_t i = 0; i < run->n_cases; i++) {
        const conf_case_result *r = &run->cases[i];
        if (r->status == CONF_ST_PASS)
            continue;
        plumb_buf_printf(b, "%s\n    {\"id\": ", first ? "" : ",");
        first = false;
        json_str(b, r->id);
        plumb_buf_puts(b, ", \"op\": ");
        json_str(b, plumb_op_name(r->op));
        plumb_buf_printf(b, ", \"dtype\": \"%s\", \"status\": \"%s\", \"budget_used\": ", plumb_dtype_name(r->dtype),
                         conf_status_name(r->status));
        json_num(b, r->budget_used);
        plumb_buf_puts(b, ", \"reason\": ");
        json_str(b, r->reason);
        plumb_buf_puts(b, ", \"reproducer\": ");
        json_str(b, r->repro);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_puts(b, "\n  ],\n  \"cache_stability\": [");
    for (uint32_t i = 0; i < run->n_cache; i++) {
        const conf_cache_scenario *s = &run->cache[i];
        plumb_buf_printf(b, "%s\n    {\"scenario\": ", i ? "," : "");
        json_str(b, s->name);
        plumb_buf_printf(b, ", \"compiles\": %llu, \"max_compiles\": %llu, \"pass\": %s, \"reason\": ",
                         (unsigned long long)s->compiles, (unsigned long long)s->expected_max,
                         s->pass ? "true" : "false");
        json_str(b, s->pass ? "" : s->reason);
        plumb_buf_puts(b, "}");
    }
    plumb_buf_printf(b, "\n  ],\n  \"passed\": %llu, \"failed\": %llu, \"skipped\": %llu\n}\n",
                     (unsigned long long)run->passed, (unsigned long long)run->failed,
                     (unsigned long long)run->skipped);
}

/* ---- JUnit XML -------------------------------------------------------------- */

static void xml_str(plumb_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': plumb_buf_puts(b, "&amp;"); break;
        case '<': plumb_buf_puts(b, "&lt;"); break;
        case '>': plumb_buf_puts(b, "&gt;"); break;
        case '"': plumb_buf_puts(b, "&quot;"); break;
        case '\'': plumb_buf_puts(b, "&apos;"); break;
        default:
            /* XML 1.0 allows no control characters but tab and newlines. */
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                plumb_buf_puts(b, "?");
            else
                plumb_buf_append(b, (const char *)p, 1);
        }
    }
}

void conf_report_junit(plumb_buf *b, const conf_run *run)
{
    uint64_t tests = run->passed + run->failed + run->skipped;
    plumb_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    plumb_buf_printf(b, "<testsuites name=\"plumb certify ");
    xml_str(b, run->backend.name);
    plumb_buf_printf(b, "\" tests=\"%llu\" failures=\"%llu\" skipped=\"%llu\" time=\"%.3f\">\n",
                     (unsigned long long)tests, (unsigned long long)run->failed, (unsigned long long)run->skipped,
                     run->seconds);
    for (int i = 0; i < PLUMB_OP_COUNT; i++) {
        if (!run->op_in_run[i])
            continue;
        const conf_op_summary *s = &run->ops[i];
        const char *opn = plumb_op_name((plumb_opcode)i);
        bool op_fail = s->claimed && !s->manifest_ok;
        plumb_buf_printf(b, "  <testsuite name=\"%s\" tests=\"%u\" failures=\"%u\" skipped=\"%u\">\n", opn,
                         s->cases + s->skipped + (op_fail ? 1 : 0), s->failed + (op_fail ? 1 : 0), s->skipped);
        if (!s->claimed)
            plumb_buf_printf(b, "    <testcase classname=\"%s\" name=\"unsupported\"><skipped message=\"not claimed by the backend (%u cases)\"/></testcase>\n",
                             opn, s->skipped);
        else if (s->skipped)
            plumb_buf_printf(b, "    <testcase classname=\"%s\" name=\"unclaimed element types\"><skipped message=\"%u cases of element types the backend does not claim\"/></testcase>\n",
                             opn, s->skipped);
        if (op_fail) {
            plumb_buf_printf(b, "    <testcase classname=\"%s\" name=\"manifest\"><failure message=\"", opn);
            xml_str(b, s->note);
            plumb_buf_puts(b, "\"/></testcase>\n");
        }
        for (uint32_t k = 0; k < run->n_cases; k++) {
            const conf_case_result *r = &run->cases[k];
            if (r->op != (plumb_opcode)i)
                continue;
            plumb_buf_printf(b, "    <testcase classname=\"%s\" name=\"", opn);
            xml_str(b, r->id);
            plumb_buf_printf(b, "\" time=\"%.6f\"", r->seconds);
            if (r->status == CONF_ST_PASS) {
                plumb_buf_puts(b, "/>\n");
                continue;
            }
            plumb_buf_printf(b, "><failure type=\"%s\" message=\"", conf_status_name(r->status));
            xml_str(b, r->reason);
            plumb_buf_puts(b, "\">");
            if (r->repro[0]) {
                plumb_buf_puts(b, "reproducer: ");
                xml_str(b, r->repro);
            }
            plumb_buf_puts(b, "</failure></testcase>\n");
        }
        plumb_buf_puts(b, "  </testsuite>\n");
    }
    if (run->n_cache) {
        uint32_t nf = 0;
        for (uint32_t i = 0; i < run->n_cache; i++)
            nf += !run->cache[i].pass;
        plumb_buf_printf(b, "  <testsuite name=\"cache stability\" tests=\"%u\" failures=\"%u\">\n", run->n_cache, nf);
        for (uint32_t i = 0; i < run->n_cache; i++) {
            const conf_cache_scenario *s = &run->cache[i];
            plumb_buf_puts(b, "    <testcase classname=\"cache\" name=\"");
            xml_str(b, s->name);
            if (s->pass) {
                plumb_buf_puts(b, "\"/>\n");
            } else {
                plumb_buf_puts(b, "\"><failure message=\"");
                xml_str(b, s->reason);
                plumb_buf_puts(b, "\"/></testcase>\n");
            }
        }
        plumb_buf_puts(b, "  </testsuite>\n");
    }
    plumb_buf_puts(b, "</testsuites>\n");
}
