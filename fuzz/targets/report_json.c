/* Fuzz target "report_json": the strict JSON reader (conformance/json.c)
 * and the certify report reader built on it (conf_report_load, used by
 * `plumb certify merge` and --rerun-failures), which reads from a path, so
 * the input goes through a file in a private directory.
 *
 * Oracles: (1) a document the reader accepts, written back out by this
 * target's own minimal writer, is accepted again as the same tree (types,
 * numbers' text, strings byte for byte, keys and their order); (2) a
 * report that loads, written again by conf_report_json, loads again with
 * the same digest and the same pass/fail/skip counts. */
#include <stdio.h>
#include <string.h>

#include "certify.h"
#include "json.h"
#include "plumb/core.h"
#include "target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_tmpdir();
    return 0;
}

static void write_json(plumb_buf *b, const conf_json *v)
{
    switch (v->type) {
    case CONF_JSON_NULL: plumb_buf_puts(b, "null"); break;
    case CONF_JSON_BOOL: plumb_buf_puts(b, v->boolean ? "true" : "false"); break;
    case CONF_JSON_NUMBER: plumb_buf_puts(b, v->raw ? v->raw : "0"); break;
    case CONF_JSON_STRING: plumb_json_str_append(b, v->string); break;
    case CONF_JSON_ARRAY:
    case CONF_JSON_OBJECT:
        plumb_buf_puts(b, v->type == CONF_JSON_ARRAY ? "[" : "{");
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                plumb_buf_puts(b, ",");
            if (v->type == CONF_JSON_OBJECT) {
                plumb_json_str_append(b, v->keys[i]);
                plumb_buf_puts(b, ":");
            }
            write_json(b, &v->items[i]);
        }
        plumb_buf_puts(b, v->type == CONF_JSON_ARRAY ? "]" : "}");
        break;
    }
}

/* Same tree; names the first difference in why. */
static bool same_json(const conf_json *a, const conf_json *b, const char **why)
{
    if (a->type != b->type)
        return *why = "a value's type", false;
    switch (a->type) {
    case CONF_JSON_NULL: return true;
    case CONF_JSON_BOOL: return a->boolean == b->boolean || (*why = "a boolean", false);
    case CONF_JSON_NUMBER:
        if (!a->raw || !b->raw || strcmp(a->raw, b->raw) != 0)
            return *why = "a number's text", false;
        if (!(a->number == b->number) && !(a->number != a->number && b->number != b->number))
            return *why = "a number's value", false;
        return true;
    case CONF_JSON_STRING: return strcmp(a->string, b->string) == 0 || (*why = "a string", false);
    case CONF_JSON_ARRAY:
    case CONF_JSON_OBJECT:
        if (a->n != b->n)
            return *why = "a member count", false;
        for (uint32_t i = 0; i < a->n; i++) {
            if (a->type == CONF_JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0)
                return *why = "a key", false;
            if (!same_json(&a->items[i], &b->items[i], why))
                return false;
        }
        return true;
    }
    return *why = "an unknown type", false;
}

static void check_report(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_tmpdir();
    char path[4400], path2[4400];
    snprintf(path, sizeof path, "%s/report.json", dir);
    snprintf(path2, sizeof path2, "%s/again.json", dir);
    fuzz_write(dir, "report.json", data, size);
    conf_run run;
    plumb_diag d = {.code = PLUMB_OK};
    if (!conf_report_load(path, &run, &d)) {
        if (!d.msg[0])
            fuzz_fail("conf_report_load refused a report without saying why");
        return;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    conf_report_json(&b, &run);
    if (!b.failed) {
        fuzz_write(dir, "again.json", b.data, b.len);
        conf_run again;
        plumb_diag d2 = {.code = PLUMB_OK};
        if (!conf_report_load(path2, &again, &d2))
            fuzz_fail("a report that loaded does not load again once rewritten: %s", d2.msg);
        if (again.digest[0] != run.digest[0] || again.digest[1] != run.digest[1] || again.passed != run.passed ||
            again.failed != run.failed || again.skipped != run.skipped)
            fuzz_fail("a rewritten report loads with another digest or other counts");
        conf_run_free(&again);
    }
    plumb_buf_free(&b);
    conf_run_free(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    conf_json_doc doc;
    plumb_diag d = {.code = PLUMB_OK};
    if (!conf_json_parse((const char *)data, size, "input", &doc, &d)) {
        if (!d.msg[0])
            fuzz_fail("the JSON reader refused the input without saying why");
        return 0;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    write_json(&b, doc.root);
    if (!b.failed) {
        conf_json_doc doc2;
        plumb_diag d2 = {.code = PLUMB_OK};
        if (!conf_json_parse(b.data, b.len, "rewritten", &doc2, &d2))
            fuzz_fail("an accepted document, written again, is refused: %u:%u: %s", d2.loc.line, d2.loc.col, d2.msg);
        const char *why = "";
        if (!same_json(doc.root, doc2.root, &why))
            fuzz_fail("an accepted document, written again, reads back differing in %s", why);
        conf_json_free(&doc2);
    }
    plumb_buf_free(&b);
    /* Only objects can be reports: spares the file for the rest. */
    bool object = doc.root->type == CONF_JSON_OBJECT;
    conf_json_free(&doc);
    if (object)
        check_report(data, size);
    return 0;
}
