/* examples/encoder/encoder.mlir is the polymorphic encoder that
 * bench/poly_encoder.h generates (the program tests/runtime/
 * test_poly_encoder.c and the poly_encoder benchmark run), written out for
 * the command line (tests/cli/test_encoder.sh). These tests keep the two
 * the same program. Run from the repository's top folder (tests/run.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/poly_encoder.h"
#include "plumb/ir.h"

static const char example_path[] = "examples/encoder/encoder.mlir";

/* The example's text after its leading '//' comment lines; NULL (and a
 * message) when it cannot be read. *base is what to free. */
static const char *example_body(char **base, size_t *len)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    *base = plumb_read_file(example_path, 0, len, &d);
    if (!*base) {
        print_error("%s: %s\n", example_path, d.msg);
        return NULL;
    }
    const char *p = *base;
    while (strncmp(p, "//", 2) == 0) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return p;
}

/* Parsed, verified and printed canonically; NULL when it fails to parse
 * or verify (the diagnostic is printed). */
static char *canonical(const char *text, const char *name)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(text, strlen(text), name, NULL, &d);
    if (!m || !ir_verify(m, NULL, &d)) {
        plumb_diag_print(&d, stderr);
        ir_module_free(m);
        return NULL;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    ir_module_free(m);
    char *s = b.failed || !b.data ? NULL : strdup(b.data);
    plumb_buf_free(&b);
    return s;
}

/* Below its comment header the example is the generator's text, byte for
 * byte: regenerate it when bench/poly_encoder.h changes. */
static void test_example_is_generator_text(void **state)
{
    (void)state;
    char *base = NULL;
    size_t len = 0;
    const char *body = example_body(&base, &len);
    assert_non_null(body);
    char *gen = poly_encoder_text(-1);
    assert_non_null(gen);
    bool same = strcmp(body, gen) == 0;
    if (!same)
        print_error("%s differs from poly_encoder_text(-1) in bench/poly_encoder.h below its comments\n",
                    example_path);
    free(gen);
    plumb_free(base, len + 1);
    assert_true(same);
}

/* The whole file, comments included, verifies and prints the same
 * canonical program as the generator's text: the comments change
 * nothing. */
static void test_example_canonical_form(void **state)
{
    (void)state;
    char *base = NULL;
    size_t len = 0;
    assert_non_null(example_body(&base, &len));
    char *gen = poly_encoder_text(-1);
    assert_non_null(gen);
    char *a = canonical(base, example_path), *b = canonical(gen, "poly_encoder_text");
    bool same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    free(gen);
    plumb_free(base, len + 1);
    assert_true(same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_is_generator_text),
        cmocka_unit_test(test_example_canonical_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
