/* Tests of the one JSON string encoder every report writer uses
 * (plumb_json_str_append / plumb_json_str_fput): escapes, UTF-8 kept, and
 * invalid UTF-8 replaced so that any byte string gives valid JSON. Expected
 * strings are written by hand from RFC 8259 section 7 and RFC 3629 section 4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/core.h"

static void expect(const char *in, const char *want)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_json_str_append(&b, in);
    assert_false(b.failed);
    assert_string_equal(b.data, want);
    plumb_buf_free(&b);

    /* The FILE writer gives the same bytes. */
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    assert_non_null(f);
    plumb_json_str_fput(f, in);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(mem, want);
    free(mem);
}

/* Quotes and backslashes are escaped; plain ASCII is copied. */
static void test_quote_and_backslash(void **state)
{
    (void)state;
    expect("a\"b\\c", "\"a\\\"b\\\\c\"");
    expect("", "\"\"");
}

/* Every control byte and DEL become \u00XX (RFC 8259 requires it below 0x20). */
static void test_controls(void **state)
{
    (void)state;
    expect("\x01\n\t\x1f\x7f", "\"\\u0001\\u000a\\u0009\\u001f\\u007f\"");
}

/* Well-formed 2-, 3- and 4-byte sequences, including the range ends, are copied unchanged. */
static void test_valid_utf8_kept(void **state)
{
    (void)state;
    expect("\xc3\xa9", "\"\xc3\xa9\"");                 /* U+00E9 */
    expect("\xc2\x80\xdf\xbf", "\"\xc2\x80\xdf\xbf\""); /* U+0080, U+07FF */
    expect("\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80", "\"\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\""); /* U+0800 U+D7FF U+E000 */
    expect("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\""); /* U+10000 U+10FFFF */
}

/* Ill-formed bytes each become U+FFFD's escape and the rest of the string
 * continues from the next byte: lone continuation, overlong forms, surrogates,
 * code points above U+10FFFF, F5..FF, and a sequence cut short by the end. */
static void test_invalid_utf8_replaced(void **state)
{
    (void)state;
    expect("\x80", "\"\\ufffd\"");
    expect("\xc0\xaf", "\"\\ufffd\\ufffd\"");             /* overlong '/' */
    expect("\xc1\xbf", "\"\\ufffd\\ufffd\"");
    expect("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");   /* overlong 3-byte */
    expect("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");   /* U+D800 */
    expect("\xf0\x8f\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong 4-byte */
    expect("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* U+110000 */
    expect("\xf5\xff", "\"\\ufffd\\ufffd\"");
    expect("a\xe2\x82", "\"a\\ufffd\\ufffd\"");            /* truncated U+20AC */
    expect("\xe2\x82" "b", "\"\\ufffd\\ufffdb\"");
}

/* NULL is written as the empty string, not dereferenced. */
static void test_null_is_empty(void **state)
{
    (void)state;
    expect(NULL, "\"\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_and_backslash),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_valid_utf8_kept),
        cmocka_unit_test(test_invalid_utf8_replaced),
        cmocka_unit_test(test_null_is_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
