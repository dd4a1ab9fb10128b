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
    /* each named as the program names the constant */
    assert_non_null(strstr(line, "at test.mlir:3:9, value %scale"));
    assert_non_null(strstr(line, "at test.mlir:5:11, value %lr"));
    assert_non_null(strstr(json, "\"name\": \"%lr\""));
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
    /* the entry's result type changed with it: named in the signature and
     * traced back to the top_k, not to the negate it comes from */
    assert_non_null(strstr(line, "result 0 dimension 0: 7 became 2 (tensor<7xf32> became tensor<2xf32>), follows "
                                 "from node 1 chlo.top_k"));
    assert_null(strstr(line, "negate"));
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
    ir_module_free(ma);
    ir_module_free(mb);
    /* the runtime writes its per-entry summary to the log at destroy: the
     * log stays open until then */
    plumb_runtime_destroy(rt);
    fclose(log);
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

/* The batch without and with the optional doc_ids field (the seed's
 * optional-batch-fields leak): the parameters are paired by name, so the
 * added one is named, and the ops are aligned by structure, so the four
 * inserted ops are each named once and nothing after them is reported as
 * rewired or turned into another op. Expected by hand: 1 entry_signature
 * (%doc_ids added), 4 structure (%z, %live, %zf, %md added). */
static const char plain_batch[] =
    "func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>) -> tensor<f32> {\n"
    "  %c0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : "
    "(tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>\n"
    "  %l = stablehlo.reduce(%m init: %c0) applies stablehlo.add across dimensions = [0] : "
    "(tensor<8xf32>, tensor<f32>) -> tensor<f32> loc(\"model.py\":214:12)\n"
    "  return %l : tensor<f32>\n}\n";
static const char doc_ids_batch[] =
    "func.func @main(%logits: tensor<8x32xf32>, %labels: tensor<8xi32>, %doc_ids: tensor<8xi32>) -> tensor<f32> {\n"
    "  %c0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %m = stablehlo.reduce(%logits init: %c0) applies stablehlo.maximum across dimensions = [1] : "
    "(tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>\n"
    "  %z = stablehlo.constant dense<0> : tensor<8xi32>\n"
    "  %live = stablehlo.compare NE, %doc_ids, %z : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1> "
    "loc(\"model.py\":212:9)\n"
    "  %zf = stablehlo.constant dense<0.0> : tensor<8xf32>\n"
    "  %md = stablehlo.select %live, %m, %zf : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n"
    "  %l = stablehlo.reduce(%md init: %c0) applies stablehlo.add across dimensions = [0] : "
    "(tensor<8xf32>, tensor<f32>) -> tensor<f32> loc(\"model.py\":214:12)\n"
    "  return %l : tensor<f32>\n}\n";

static void added_parameter_and_ops_named_not_misaligned(void **state)
{
    (void)state;
    const char *line, *json;
    explain_pair(plain_batch, doc_ids_batch, &line, &json);
    assert_non_null(strstr(line, "5 differences (4 structure, 1 entry_signature)"));
    assert_non_null(strstr(line, "parameter 2 %doc_ids: tensor<8xi32> added"));
    assert_non_null(strstr(line, "stablehlo.constant added (%z)"));
    assert_non_null(strstr(line, "stablehlo.compare added (%live)"));
    assert_non_null(strstr(line, "stablehlo.constant added (%zf)"));
    assert_non_null(strstr(line, "stablehlo.select added (%md)"));
    /* the compare's front-end location */
    assert_non_null(strstr(line, "(from model.py:212:9)"));
    /* no positional noise: nothing turned into another op or "rewired" */
    assert_null(strstr(line, " became stablehlo."));
    assert_null(strstr(line, "now reads"));
    assert_null(strstr(line, "parameter count"));
    assert_non_null(strstr(json, "\"causes\": {\"structure\": 4, \"entry_signature\": 1}"));
    assert_non_null(strstr(json, "\"parameter\": 2, \"name\": \"%doc_ids\""));
    /* the reduce reading the select counts as a consequence of the insertion */
    assert_non_null(strstr(json, "\"consequences\": 1"));
}

/* The other way round: the field dropped. The parameter and the four ops
 * are removed (named as in the cached program), nothing else. */
static void removed_parameter_and_ops_named(void **state)
{
    (void)state;
    const char *line, *json;
    explain_pair(doc_ids_batch, plain_batch, &line, &json);
    assert_non_null(strstr(line, "5 differences (4 structure, 1 entry_signature)"));
    assert_non_null(strstr(line, "parameter 2 %doc_ids: tensor<8xi32> of the cached program removed"));
    assert_non_null(strstr(line, "stablehlo.compare removed (node 6 of the cached program, %live)"));
    assert_non_null(strstr(line, "stablehlo.select removed (node 8 of the cached program, %md)"));
    assert_null(strstr(line, "now reads"));
    assert_null(strstr(line, " became "));
    assert_non_null(strstr(json, "\"in\": \"cached\""));
}

/* One optional field swapped for another (doc_ids for loss_mask, both at
 * position 2): paired by name, so it is one removed and one added
 * parameter, not "parameter 2 element type i32 became f32". */
static void swapped_field_is_removed_and_added(void **state)
{
    (void)state;
    const char *a = "func.func @main(%x: tensor<8xf32>, %doc_ids: tensor<8xi32>) -> tensor<8xf32> {\n"
                    "  %c = stablehlo.convert %doc_ids : (tensor<8xi32>) -> tensor<8xf32>\n"
                    "  %m = stablehlo.multiply %x, %c : tensor<8xf32>\n"
                    "  return %m : tensor<8xf32>\n}\n";
    const char *b = "func.func @main(%x: tensor<8xf32>, %loss_mask: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "  %m = stablehlo.multiply %x, %loss_mask : tensor<8xf32>\n"
                    "  return %m : tensor<8xf32>\n}\n";
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "parameter 1 %loss_mask: tensor<8xf32> added"));
    assert_non_null(strstr(line, "parameter 1 %doc_ids: tensor<8xi32> of the cached program removed"));
    assert_non_null(strstr(line, "stablehlo.convert removed"));
    assert_null(strstr(line, "element type"));
    assert_non_null(strstr(json, "\"causes\": {\"structure\": 1, \"entry_signature\": 2}"));
}

/* Parameters named by the front end (jax.arg_info, an argument's loc name)
 * are paired by that name even when the SSA names are positional (%arg0):
 * two fields passed in the other order are named as moved, and the ops
 * reading them are not reported as rewired. */
static void parameters_paired_by_front_end_names(void **state)
{
    (void)state;
    const char *a = "func.func @main(%arg0: tensor<8xf32> {jax.arg_info = \"batch['logits']\"}, "
                    "%arg1: tensor<8xi32> loc(\"batch.doc_ids\")) -> tensor<8xf32> {\n"
                    "  %0 = stablehlo.convert %arg1 : (tensor<8xi32>) -> tensor<8xf32>\n"
                    "  %1 = stablehlo.multiply %arg0, %0 : tensor<8xf32>\n"
                    "  return %1 : tensor<8xf32>\n}\n";
    const char *b = "func.func @main(%arg0: tensor<8xi32> loc(\"batch.doc_ids\"), "
                    "%arg1: tensor<8xf32> {jax.arg_info = \"batch['logits']\"}) -> tensor<8xf32> {\n"
                    "  %0 = stablehlo.convert %arg0 : (tensor<8xi32>) -> tensor<8xf32>\n"
                    "  %1 = stablehlo.multiply %arg1, %0 : tensor<8xf32>\n"
                    "  return %1 : tensor<8xf32>\n}\n";
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "parameter 0 %batch.doc_ids was parameter 1 of the cached program (moved)"));
    assert_non_null(strstr(line, "parameter 1 \"batch['logits']\" was parameter 0 of the cached program (moved)"));
    assert_null(strstr(line, "now reads"));
    assert_null(strstr(line, "added"));
    assert_non_null(strstr(json, "\"causes\": {\"entry_signature\": 2}"));
}

/* A sequence length as a static dimension of a parameter: named at the
 * parameter, the hint is the fix the runtime supports (a bounded '?'
 * dimension, compiled once), and the ops whose types follow from it are
 * consequences; the result is traced back to the parameter. */
static void sequence_length_hint_is_bounded_dim(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%tokens: tensor<%dx16xf32>) -> tensor<%dx16xf32> {\n"
                      "  %%e = stablehlo.exponential %%tokens : tensor<%dx16xf32>\n"
                      "  %%n = stablehlo.negate %%e : tensor<%dx16xf32>\n"
                      "  return %%n : tensor<%dx16xf32>\n}\n";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, 5, 5, 5, 5, 5);
    snprintf(b, sizeof b, fmt, 12, 12, 12, 12, 12);
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "node 0 func.func: parameter 0 dimension 0: 5 became 12 (tensor<5x16xf32> became "
                                 "tensor<12x16xf32>)"));
    assert_non_null(strstr(line, "value %tokens"));
    assert_non_null(strstr(line, "declare dimension 0 of %tokens as ? with #stablehlo.bounds<N> (N at least 12"));
    assert_null(strstr(line, "pad inputs"));
    assert_non_null(strstr(line, "follows from parameter 0 %tokens"));
    assert_null(strstr(line, "exponential"));
    assert_null(strstr(line, "negate"));
    assert_non_null(strstr(json, "\"causes\": {\"entry_signature\": 2}"));
    assert_non_null(strstr(json, "\"consequences\": 2"));
}

/* iota's size (a capacity) changing: the iota is the origin and the only
 * static_dimension; the convert and the add that carry the new size on
 * are consequences, and the result is traced to the iota. */
static void iota_size_change_named_at_iota_only(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%x: tensor<f32>) -> tensor<%dxf32> {\n"
                      "  %%i = stablehlo.iota dim = 0 : tensor<%dxi32>\n"
                      "  %%f = stablehlo.convert %%i : (tensor<%dxi32>) -> tensor<%dxf32>\n"
                      "  %%b = stablehlo.broadcast_in_dim %%x, dims = [] : (tensor<f32>) -> tensor<%dxf32>\n"
                      "  %%s = stablehlo.add %%f, %%b : tensor<%dxf32>\n"
                      "  return %%s : tensor<%dxf32>\n}\n";
    char a[2048], b[2048];
    snprintf(a, sizeof a, fmt, 9, 9, 9, 9, 9, 9, 9);
    snprintf(b, sizeof b, fmt, 10, 10, 10, 10, 10, 10, 10);
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "stablehlo.iota: result 0 dimension 0: 9 became 10"));
    /* the broadcast's size also changed on its own (its operand did not) */
    assert_non_null(strstr(line, "stablehlo.broadcast_in_dim: result 0 dimension 0: 9 became 10"));
    assert_null(strstr(line, "stablehlo.convert"));
    assert_null(strstr(line, "stablehlo.add"));
    assert_non_null(strstr(line, "follows from node 1 stablehlo.iota"));
    assert_non_null(strstr(json, "\"causes\": {\"static_dimension\": 2, \"entry_signature\": 1}"));
    assert_non_null(strstr(json, "\"consequences\": 2"));
}

/* An op reading another existing value than before (no insertion): a real
 * rewiring, named with both values. */
static void rewired_operand_named(void **state)
{
    (void)state;
    const char *fmt = "func.func @main(%%x: tensor<4xf32>, %%y: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %%s = stablehlo.add %%x, %%y : tensor<4xf32>\n"
                      "  %%t = stablehlo.multiply %%s, %%%s : tensor<4xf32>\n"
                      "  return %%t : tensor<4xf32>\n}\n";
    char a[1024], b[1024];
    snprintf(a, sizeof a, fmt, "x");
    snprintf(b, sizeof b, fmt, "y");
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "stablehlo.multiply operand 1: now reads parameter 1 (%y) instead of "
                                 "parameter 0 (%x)"));
    assert_non_null(strstr(json, "\"causes\": {\"structure\": 1}"));
}

/* An op with a region (a reduce) inserted: one difference, its body is
 * part of it. */
static void inserted_region_op_is_one_difference(void **state)
{
    (void)state;
    const char *a = "func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {\n"
                    "  %n = stablehlo.negate %x : tensor<4x3xf32>\n"
                    "  return %n : tensor<4x3xf32>\n}\n";
    const char *b = "func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {\n"
                    "  %c0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
                    "  %r = stablehlo.reduce(%x init: %c0) applies stablehlo.add across dimensions = [1] : "
                    "(tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>\n"
                    "  %n = stablehlo.negate %x : tensor<4x3xf32>\n"
                    "  return %n : tensor<4x3xf32>\n}\n";
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "stablehlo.constant added (%c0)"));
    assert_non_null(strstr(line, "stablehlo.reduce added (%r)"));
    assert_null(strstr(line, "stablehlo.add added"));
    assert_null(strstr(line, "stablehlo.return"));
    assert_non_null(strstr(json, "\"causes\": {\"structure\": 2}"));
}

/* A parameter renamed (%x to %y, same type and place) is the same
 * parameter: names are not in the key, so only the constant is named. */
static void renamed_parameter_is_not_a_difference(void **state)
{
    (void)state;
    const char *a = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %c = stablehlo.constant dense<0.5> : tensor<4xf32>\n"
                    "  %p = stablehlo.multiply %x, %c : tensor<4xf32>\n"
                    "  return %p : tensor<4xf32>\n}\n";
    const char *b = "func.func @main(%y: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %h = stablehlo.constant dense<0.25> : tensor<4xf32>\n"
                    "  %q = stablehlo.multiply %y, %h : tensor<4xf32>\n"
                    "  return %q : tensor<4xf32>\n}\n";
    const char *line, *json;
    explain_pair(a, b, &line, &json);
    assert_non_null(strstr(line, "node 2 stablehlo.multiply operand 1: constant 5.000000e-01 became 2.500000e-01"));
    assert_non_null(strstr(line, "value %h"));
    assert_null(strstr(line, "parameter 0"));
    assert_null(strstr(json, "entry_signature"));
    assert_non_null(strstr(json, "\"causes\": {\"baked_constant\": 1}"));
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
        cmocka_unit_test(added_parameter_and_ops_named_not_misaligned),
        cmocka_unit_test(removed_parameter_and_ops_named),
        cmocka_unit_test(swapped_field_is_removed_and_added),
        cmocka_unit_test(parameters_paired_by_front_end_names),
        cmocka_unit_test(sequence_length_hint_is_bounded_dim),
        cmocka_unit_test(iota_size_change_named_at_iota_only),
        cmocka_unit_test(rewired_operand_named),
        cmocka_unit_test(inserted_region_op_is_one_difference),
        cmocka_unit_test(renamed_parameter_is_not_a_difference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
