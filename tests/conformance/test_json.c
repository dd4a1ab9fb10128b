/* The strict JSON reader that reports are read back with
 * (conformance/json.c): what it accepts, and that each kind of bad input is
 * rejected with the line and column of the problem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/json.h"

static bool parse(const char *text, conf_json_doc *doc, plumb_diag *d)
{
    plumb_diag_clear(d);
    return conf_json_parse(text, strlen(text), "t.json", doc, d);
}

/* Rejects text, with the error at line:col and msg in the message. */
static void rejects(const char *text, uint32_t line, uint32_t col, const char *msg)
{
    conf_json_doc doc;
    plumb_diag d;
    if (parse(text, &doc, &d)) {
        conf_json_free(&doc);
        fail_msg("accepted: %s", text);
    }
    if (!strstr(d.msg, msg))
        fail_msg("'%s': message '%s' lacks '%s'", text, d.msg, msg);
    assert_int_equal(d.loc.line, line);
    assert_int_equal(d.loc.col, col);
    /* Errors with a place carry the file; those without name it in the message. */
    if (line) {
        assert_non_null(d.file);
        assert_string_equal(d.file, "t.json");
    } else {
        assert_non_null(strstr(d.msg, "t.json"));
    }
}

/* Objects, arrays, strings with escapes, numbers and literals read back as
 * written; member order is kept and numbers keep their text. */
static void test_values(void **state)
{
    (void)state;
    conf_json_doc doc;
    plumb_diag d;
    assert_true(parse(" {\"a\": [1, -2.5e3, true, false, null],\n \"s\": \"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\", "
                      "\"big\": 18446744073709551615, \"o\": {}} ",
                      &doc, &d));
    const conf_json *r = doc.root;
    assert_int_equal(r->type, CONF_JSON_OBJECT);
    assert_int_equal(r->n, 4);
    assert_string_equal(r->keys[0], "a");
    assert_string_equal(r->keys[3], "o");
    const conf_json *a = conf_json_get(r, "a");
    assert_int_equal(a->type, CONF_JSON_ARRAY);
    assert_int_equal(a->n, 5);
    assert_true(a->items[0].number == 1.0);
    assert_true(a->items[1].number == -2500.0);
    assert_string_equal(a->items[1].raw, "-2.5e3");
    assert_true(a->items[2].boolean);
    assert_int_equal(a->items[3].type, CONF_JSON_BOOL);
    assert_false(a->items[3].boolean);
    assert_int_equal(a->items[4].type, CONF_JSON_NULL);
    /* q " \ / newline, e-acute (C3 A9), U+1F600 (F0 9F 98 80) */
    assert_string_equal(conf_json_get(r, "s")->string, "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
    assert_string_equal(conf_json_get(r, "big")->raw, "18446744073709551615");
    assert_int_equal(conf_json_get(r, "o")->n, 0);
    assert_null(conf_json_get(r, "missing"));
    assert_int_equal(a->loc.line, 1);
    assert_int_equal(a->loc.col, 8);
    assert_int_equal(conf_json_get(r, "s")->loc.line, 2);
    conf_json_free(&doc);
}

/* A file cut short anywhere is rejected as truncated, at its end. */
static void test_truncated(void **state)
{
    (void)state;
    rejects("", 0, 0, "empty file");
    rejects("{\"a\": [1, 2", 1, 12, "truncated");
    rejects("{\"a\": 1,\n \"b\"", 2, 5, "truncated");
    rejects("{\"a\": \"abc", 1, 11, "truncated: the file ends inside a string");
    rejects("[1, ", 1, 5, "truncated");
}

/* Every proper prefix of a document is rejected (never half-read), with
 * an error inside the prefix. */
static void test_every_prefix(void **state)
{
    (void)state;
    static const char doc_text[] =
        "{\"format\": \"plumb-certify-report\", \"n\": [1, -2.5e-3, true, null],\n"
        " \"s\": \"a\\u00e9\\n\", \"o\": {\"k\": [[], {}]}, \"f\": false}";
    size_t len = sizeof doc_text - 1;
    conf_json_doc doc;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_json_parse(doc_text, len, "p.json", &doc, &d));
    conf_json_free(&doc);
    for (size_t n = 0; n < len; n++) {
        plumb_diag_clear(&d);
        if (conf_json_parse(doc_text, n, "p.json", &doc, &d)) {
            conf_json_free(&doc);
            fail_msg("prefix of %zu bytes accepted", n);
        }
        assert_true(d.msg[0] != 0);
        /* The place is in the prefix (or the message says the file is empty). */
        assert_true(d.loc.line <= 2);
    }
}

/* What other readers tolerate is refused here: trailing commas, comments,
 * NaN, leading zeros, duplicate keys, control characters, bad escapes,
 * lone surrogates, trailing text. */
static void test_strict(void **state)
{
    (void)state;
    rejects("[1, 2,]", 1, 7, "a value was expected");
    rejects("{\"a\": 1,}", 1, 9, "member name");
    rejects("// c\n{}", 1, 1, "a value was expected");
    rejects("[NaN]", 1, 2, "a value was expected");
    rejects("[01]", 1, 2, "leading zero");
    rejects("[1.]", 1, 2, "digits expected after '.'");
    rejects("[1e999]", 1, 2, "out of range");
    rejects("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate member \"a\"");
    rejects("[\"a\tb\"]", 1, 4, "control character");
    rejects("[\"\\x\"]", 1, 4, "unknown escape");
    rejects("[\"\\ud800\"]", 1, 9, "unpaired surrogate");
    rejects("[\"\\u0000\"]", 1, 9, "\\u0000");
    rejects("{} {}", 1, 4, "trailing characters");
    rejects("[tru]", 1, 2, "a value was expected");
}

/* Nesting is bounded: CONF_JSON_MAX_DEPTH levels parse, one more does not. */
static void test_depth(void **state)
{
    (void)state;
    char deep[2 * CONF_JSON_MAX_DEPTH + 3];
    for (int k = 0; k < 2; k++) {
        int n = CONF_JSON_MAX_DEPTH + k;
        for (int i = 0; i < n; i++) {
            deep[i] = '[';
            deep[n + i] = ']';
        }
        deep[2 * n] = 0;
        conf_json_doc doc;
        plumb_diag d;
        bool ok = parse(deep, &doc, &d);
        if (k == 0) {
            assert_true(ok);
            conf_json_free(&doc);
        } else {
            assert_false(ok);
            assert_non_null(strstr(d.msg, "nested too deeply"));
            assert_int_equal(d.loc.col, CONF_JSON_MAX_DEPTH + 1);
        }
    }
}

/* A missing file is an error naming it; a file over the size bound is
 * refused before it is parsed. */
static void test_load(void **state)
{
    (void)state;
    conf_json_doc doc;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_false(conf_json_load("/nonexistent/plumb/r.json", 0, &doc, &d));
    assert_non_null(strstr(d.msg, "/nonexistent/plumb/r.json"));
    char path[] = "/tmp/plumb_test_json_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("[\"0123456789\"]\n", f);
    fclose(f);
    plumb_diag_clear(&d);
    assert_false(conf_json_load(path, 8, &doc, &d));
    plumb_diag_clear(&d);
    assert_true(conf_json_load(path, 64, &doc, &d));
    assert_string_equal(doc.root->items[0].string, "0123456789");
    conf_json_free(&doc);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
