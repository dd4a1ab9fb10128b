/* Recompile explanations name every difference from the nearest cached
 * program, grouped by cause, and report a shape change where it starts; the
 * programs are the leak patterns of ../shared/context (torch_xla: a learning
 * rate and a loss scale baked as constants, a varying top_k k, a dropped
 * optional field, an inserted mask path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rta_test.h"

/* An SGD step with a scaled loss: grad / loss_scale * lr, both baked. */
static const char step_fmt[] =
    "func.func @main(%%w: tensor<4xf32>, %%g: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %%scale = stablehlo.constant dense<%s> : tensor<4xf32>\n"
    "  %%gs = stablehlo.divide %%g, %%scale : tensor<4xf32>\n"
    "  %%lr = stablehlo.constant dense<%s> : tensor<4xf32>\n"
    "  %%step = stablehlo.multiply %%gs, %%lr : tensor<4xf32>\n"
    "  %%nw = stablehlo.subtract %%w, %%step : tensor<4xf32>\n"
    "  return %%nw : tensor<4xf32>\n"
    "}\n";

/* Compiles a then b in one runtime; returns b's explanation line and JSON
 * (static buffers, valid until the next call). */
static void explain_pair(const char *a, const char *b, const char **line, const char **json)
{
    static char lbuf[8192], jbuf[32768];
    plumb_runtime *rt = rt_new(1, 2, NULL);
    ir_module *ma = parse_ok(a), *mb = parse_ok(b);
    plumb_diag d = {.code = PLUMB_OK};
    assert_non_null(plumb_runtime_compile(rt, ma, NULL, &d));
    if (!plumb_runtime_compile(rt, mb, NULL, &d))
        plumb_diag_print(&d, stderr);
    const char *l = plumb_runtime_last_explanation(rt), *j = plumb_runtime_last_explanation_json(rt);
    assert_non_null(l);
    assert_non_null(j);
    snprintf(lbuf, sizeof lbuf, "%s", l);
    snprintf(jbuf, sizeof jbuf, "%s", j);
    fprintf(stderr, "%s\n", lbuf);
    *line = lbuf;
    *json = jbuf;
    ir_module_free(ma);
    ir_module_free(mb);
    plumb_runtime_destroy(rt);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* Learning rate and loss scale both baked and both changing: both are
 * named, each at its consumer with old and new value, one cause counted
 * twice (the issue: only the loss scale was reported). */
static void two_baked_constants_both_named(void **state)
{
    (void)state;
    char a[2048], b[2048];
    snprintf(a, sizeof a, step_fmt, "1.024000e+03", "1.000000e-03");
    snprintf(b, sizeof b, step_fmt, "5.120000e+02", "9.000000e-04");
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "2 differences (2 baked_constant)"));
    assert_non_null(strstr(line, "stablehlo.divide operand 1: constant 1.024000e+03 became 5.120000e+02"));
    assert_non_null(strstr(line, "stablehlo.multiply operand 1: constant 1.000000e-03 became 9.000000e-04"));
    assert_int_equal(count(line, "(baked constant; pass it as a parameter)"), 2);
    assert_non_null(strstr(json, "\"causes\": {\"baked_constant\": 2}"));
    assert_non_null(strstr(json, "\"old\": \"1.024000e+03\", \"new\": \"5.120000e+02\""));
    assert_non_null(strstr(json, "\"old\": \"1.000000e-03\", \"new\": \"9.000000e-04\""));
    /* the source line of each consumer */
    assert_non_null(strstr(line, "at test.mlir:3:"));
    assert_non_null(strstr(line, "at test.mlir:5:"));
}

/* Only one of them changing: exactly one difference, in the single-cause
 * form (no count prefix). */
static void one_baked_constant_one_difference(void **state)
{
    (void)state;
    char a[2048], b[2048];
    snprintf(a, sizeof a, step_fmt, "1.024000e+03", "1.000000e-03");
    snprintf(b, sizeof b, step_fmt, "1.024000e+03", "2.000000e-03");
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_null(strstr(line, "differences ("));
    assert_non_null(strstr(line, "stablehlo.multiply operand 1: constant 1.000000e-03 became 2.000000e-03"));
    assert_null(strstr(line, "divide"));
    assert_non_null(strstr(json, "\"causes\": {\"baked_constant\": 1}"));
}

/* top_k with k varying: the attribute k is the cause, named at the top_k
 * node; the result shapes that follow from it (top_k's own results and the
 * ops reading them) are consequences, not listed as static dimensions. */
static void top_k_shape_change_named_at_its_origin(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%x: tensor<16xf32>) -> tensor<%dxf32> {\n"
                      "  %%v, %%i = chlo.top_k(%%x, k = %d) : tensor<16xf32> -> (tensor<%dxf32>, tensor<%dxi32>)\n"
                      "  %%n = stablehlo.negate %%v : tensor<%dxf32>\n"
                      "  return %%n : tensor<%dxf32>\n}\n";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, 7, 7, 7, 7, 7, 7);
    snprintf(b, sizeof b, fmt, 2, 2, 2, 2, 2, 2);
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "chlo.top_k: attribute k 7 became 2"));
    assert_non_null(strstr(json, "\"class\": \"attribute\""));
    assert_null(strstr(json, "\"class\": \"static_dimension\""));
    /* the entry's result type changed with it: the signature is named too */
    assert_non_null(strstr(line, "result 0 dimension 0: 7 became 2"));
}

/* An op inserted on a path (an optional mask): named as added, and the
 * renumbering it causes downstream is not reported as rewiring. */
static void inserted_op_is_named_without_noise(void **state)
{
    (void)state;
    const char *a = "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %s = stablehlo.add %x, %y : tensor<4xf32>\n"
                    "  %e = stablehlo.exponential %s : tensor<4xf32>\n"
                    "  %r = stablehlo.reverse %e, dims = [0] : tensor<4xf32>\n"
                    "  %t = stablehlo.tanh %r : tensor<4xf32>\n"
                    "  return %t : tensor<4xf32>\n}\n";
    const char *b = "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %s = stablehlo.add %x, %y : tensor<4xf32>\n"
                    "  %m = stablehlo.multiply %s, %y : tensor<4xf32>\n"
                    "  %e = stablehlo.exponential %m : tensor<4xf32>\n"
                    "  %r = stablehlo.reverse %e, dims = [0] : tensor<4xf32>\n"
                    "  %t = stablehlo.tanh %r : tensor<4xf32>\n"
                    "  return %t : tensor<4xf32>\n}\n";
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "stablehlo.multiply added"));
    assert_null(strstr(line, "now reads"));
    assert_null(strstr(line, "differences ("));
    assert_non_null(strstr(json, "\"causes\": {\"structure\": 1}"));
    /* counted after alignment: the inserted op, not every node after it */
    assert_non_null(strstr(line, "1 of 7 nodes differ"));
}

/* Different causes in one recompile are all named and grouped: a baked
 * constant and an attribute. */
static void mixed_causes_grouped(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                      "  %%c = stablehlo.constant dense<%s> : tensor<2x2xf32>\n"
                      "  %%m = stablehlo.multiply %%x, %%c : tensor<2x2xf32>\n"
                      "  %%r = stablehlo.reverse %%m, dims = [%d] : tensor<2x2xf32>\n"
                      "  return %%r : tensor<2x2xf32>\n}\n";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, "3.0", 0);
    snprintf(b, sizeof b, fmt, "4.0", 1);
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "2 differences (1 baked_constant, 1 attribute)"));
    const char *c = strstr(line, "constant 3.000000e+00 became 4.000000e+00");
    const char *t = strstr(line, "attribute dims 0 became 1");
    assert_non_null(c);
    assert_non_null(t);
    assert_true(c < t);   /* grouped in cause order */
    assert_non_null(strstr(json, "\"causes\": {\"baked_constant\": 1, \"attribute\": 1}"));
}

/* PLUMB_LOG=recompiles:json writes each explanation to the log as one JSON
 * object per line, wrapped as {"recompile": {...}}. */
static void log_json_lines(void **state)
{
    (void)state;
    char a[2048], b[2048];
    snprintf(a, sizeof a, step_fmt, "1.024000e+03", "1.000000e-03");
    snprintf(b, sizeof b, step_fmt, "5.120000e+02", "9.000000e-04");
    assert_int_equal(setenv("PLUMB_LOG", "recompiles:json", 1), 0);
    FILE *log = tmpfile();
    assert_non_null(log);
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    o.threads = 1;
    o.log = log;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    assert_int_equal(unsetenv("PLUMB_LOG"), 0);
    assert_non_null(rt);
    ir_module *ma = parse_ok(a), *mb = parse_ok(b);
    assert_non_null(plumb_runtime_compile(rt, ma, NULL, &d));
    assert_non_null(plumb_runtime_compile(rt, mb, NULL, &d));
    char text[16384];
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = 0;
    const char *head = "{\"recompile\": {\"entry\": \"main\"";
    assert_int_equal(strncmp(text, head, strlen(head)), 0);
    assert_non_null(strstr(text, "\"causes\": {\"baked_constant\": 2}"));
    assert_int_equal(count(text, "\n"), 1);
    assert_true(n >= 2 && text[n - 2] == '}' && text[n - 1] == '\n');
    fclose(log);
    ir_module_free(ma);
    ir_module_free(mb);
    plumb_runtime_destroy(rt);
}

/* A static dimension that changes inside the program and reaches the
 * entry's result: named at its origin (the broadcast) as well as in the
 * signature; the parameters did not change, so the broadcast's result type
 * is not taken for a consequence of them. A second op reading it is. */
static void dimension_named_at_origin_when_result_changes(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%x: tensor<f32>) -> tensor<%dxf32> {\n"
                      "  %%b = stablehlo.broadcast_in_dim %%x, dims = [] : (tensor<f32>) -> tensor<%dxf32>\n"
                      "  %%n = stablehlo.negate %%b : tensor<%dxf32>\n"
                      "  return %%n : tensor<%dxf32>\n}\n";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, 4, 4, 4, 4);
    snprintf(b, sizeof b, fmt, 6, 6, 6, 6);
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "stablehlo.broadcast_in_dim: result 0 dimension 0: 4 became 6"));
    assert_null(strstr(line, "stablehlo.negate"));
    assert_non_null(strstr(json, "\"causes\": {\"static_dimension\": 1, \"entry_signature\": 1}"));
    assert_non_null(strstr(json, "\"consequences\": 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_baked_constants_both_named),
        cmocka_unit_test(one_baked_constant_one_difference),
        cmocka_unit_test(top_k_shape_change_named_at_its_origin),
        cmocka_unit_test(inserted_op_is_named_without_noise),
        cmocka_unit_test(mixed_causes_grouped),
        cmocka_unit_test(log_json_lines),
        cmocka_unit_test(dimension_named_at_origin_when_result_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
