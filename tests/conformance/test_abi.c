/* The backend ABI: released layouts, the loader's rejections (each naming
 * the problem and the file), capability validation, and the built-in
 * backends served through the same table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conformance/certify.h"

static const char *plugin_path(const char *name, char *buf, size_t cap)
{
    const char *b = getenv("BUILD");
    snprintf(buf, cap, "%s/plugins/%s.so", b && *b ? b : "build", name);
    return buf;
}

/* Opening must fail, and the message must name the file and contain what. */
static void expect_rejected(const char *spec, const char *what)
{
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = conf_backend_open(spec, NULL, 0, &b, &d);
    if (ok || !strstr(d.msg, spec) || !strstr(d.msg, what))
        fprintf(stderr, "spec %s: ok=%d msg=%s (want '%s')\n", spec, ok, d.msg, what);
    assert_false(ok);
    assert_non_null(strstr(d.msg, spec));
    assert_non_null(strstr(d.msg, what));
}

/* Offsets that ABI 1.0 released, written out by hand: moving any of them
 * breaks every plugin built before. */
static void test_layout_pins(void **state)
{
    (void)state;
    assert_int_equal(PLUMB_BACKEND_ABI_MAJOR, 1);
    assert_int_equal(offsetof(plumb_backend_api, struct_size), 0);
    assert_int_equal(offsetof(plumb_backend_api, name), 16);
    assert_int_equal(offsetof(plumb_backend_api, error_free), 32);
    assert_int_equal(offsetof(plumb_backend_api, reset_stats), 104);
    assert_int_equal(offsetof(plumb_backend_buffer, byte_size), 40);
    assert_int_equal(offsetof(plumb_backend_capabilities, accum_f64), 52);
    assert_int_equal(offsetof(plumb_backend_stats, compile_seconds), 40);
    /* dtype bits are ABI too: f32 is bit 11 for ever. */
    assert_int_equal(PLUMB_BACKEND_DT_F32, 1u << 11);
    assert_int_equal(conf_bk_abi_mask(PLUMB_TY_BIT(PLUMB_F32)), PLUMB_BACKEND_DT_F32);
    assert_int_equal(conf_bk_plumb_mask(PLUMB_BACKEND_DT_BF16 | PLUMB_BACKEND_DT_I1),
                     PLUMB_TY_BIT(PLUMB_BF16) | PLUMB_TY_BIT(PLUMB_I1));
}

/* A reader checks struct_size before a field: a shorter (older) struct
 * does not have the fields past its end. */
static void test_has_field(void **state)
{
    (void)state;
    plumb_backend_stats st = {0};
    st.struct_size = offsetof(plumb_backend_stats, executions);
    assert_true(PLUMB_BACKEND_HAS_FIELD(&st, plumb_backend_stats, disk_hits));
    assert_false(PLUMB_BACKEND_HAS_FIELD(&st, plumb_backend_stats, executions));
    st.struct_size = sizeof st;
    assert_true(PLUMB_BACKEND_HAS_FIELD(&st, plumb_backend_stats, compile_seconds));
}

/* A table built for another major version is rejected by the version check. */
static void test_reject_major(void **state)
{
    (void)state;
    char p[512];
    expect_rejected(plugin_path("bad_major", p, sizeof p), "major version 99");
}

/* A table shorter than ABI 1.0's is rejected before any function is read. */
static void test_reject_short(void **state)
{
    (void)state;
    char p[512];
    expect_rejected(plugin_path("bad_short", p, sizeof p), "struct_size 32 is shorter");
}

/* A NULL required function is named. */
static void test_reject_missing_function(void **state)
{
    (void)state;
    char p[512];
    expect_rejected(plugin_path("bad_missing", p, sizeof p), "'execute' is NULL");
}

/* Capabilities naming an op plumb does not know are rejected by name. */
static void test_reject_unknown_op(void **state)
{
    (void)state;
    char p[512];
    expect_rejected(plugin_path("bad_caps", p, sizeof p), "unknown op 'stablehlo.frobnicate'");
}

/* A file that is not there, or not a backend, is an I/O or usage error
 * naming it; a name that is neither built in nor a path is a usage error. */
static void test_reject_not_a_backend(void **state)
{
    (void)state;
    expect_rejected("/nonexistent/backend.so", "cannot load backend");
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_false(conf_backend_open("nosuchbackend", NULL, 0, &b, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "nosuchbackend"));
}

static plumb_backend_capabilities caps_with(const plumb_backend_op_cap *ops, size_t n)
{
    plumb_backend_capabilities c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.ops = ops;
    c.n_ops = n;
    return c;
}

/* Each contradiction in a capabilities object is caught with a message. */
static void test_caps_validation(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    /* sqrt takes floats only: claiming i32 contradicts the op table */
    plumb_backend_op_cap bad_type[] = {{sizeof(plumb_backend_op_cap), "stablehlo.sqrt", PLUMB_BACKEND_DT_I32}};
    plumb_backend_capabilities c = caps_with(bad_type, 1);
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "does not accept: i32"));
    /* an element-type bit ABI 1.0 does not define */
    plumb_backend_op_cap bad_bit[] = {{sizeof(plumb_backend_op_cap), "add", 1u << 20}};
    c = caps_with(bad_bit, 1);
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "unknown element-type bits"));
    /* an accumulator narrower than its input type */
    plumb_backend_op_cap ok_ops[] = {{sizeof(plumb_backend_op_cap), "add", PLUMB_BACKEND_DT_F32}};
    c = caps_with(ok_ops, 1);
    c.accum_f32 = PLUMB_BACKEND_DT_F16;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "accum_f32 = f16 is narrower than f32"));
    /* flushing an integer type makes no sense */
    c = caps_with(ok_ops, 1);
    c.flush_subnormals = PLUMB_BACKEND_DT_I8;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "not floats"));
    /* the same op twice */
    plumb_backend_op_cap twice[] = {{sizeof(plumb_backend_op_cap), "add", PLUMB_BACKEND_DT_F32},
                                    {sizeof(plumb_backend_op_cap), "stablehlo.add", PLUMB_BACKEND_DT_F64}};
    c = caps_with(twice, 2);
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "twice"));
    /* a short capabilities struct */
    c = caps_with(ok_ops, 1);
    c.struct_size = 16;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "struct_size 16"));
    /* and a valid one translates: bare names, declared accumulator, flush */
    c = caps_with(ok_ops, 1);
    c.accum_f16 = PLUMB_BACKEND_DT_F32;
    c.flush_subnormals = PLUMB_BACKEND_DT_BF16;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate(&c, "x.so", &out, &d));
    assert_int_equal(out.claims[PLUMB_OP_ADD], PLUMB_TY_BIT(PLUMB_F32));
    assert_int_equal(out.accum[PLUMB_F16], PLUMB_F32);
    assert_int_equal(out.accum[PLUMB_F32], PLUMB_F32);
    assert_int_equal(out.flush_subnormals, PLUMB_TY_BIT(PLUMB_BF16));
    conf_check_opts co;
    conf_caps_check_opts(&out, PLUMB_BF16, &co);
    assert_true(co.flushes_subnormals);
    conf_caps_check_opts(&out, PLUMB_F32, &co);
    assert_false(co.flushes_subnormals);
}

/* ref, through the ABI, runs a program and counts a repeated compile as a
 * cache hit; its errors come back as objects with a message. */
static void test_ref_through_abi(void **state)
{
    (void)state;
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("ref", NULL, 0, &b, &d));
    assert_string_equal(b.name, "ref");
    assert_true(b.caps.claims[PLUMB_OP_EXPONENTIAL] & PLUMB_TY_BIT(PLUMB_BF16));
    assert_null(b.inst);
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    const char *prog = "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
                       "  %0 = stablehlo.multiply %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    int64_t dims[1] = {2};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d), *y = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d);
    float xv[2] = {1.5f, -2.0f}, yv[2] = {4.0f, 0.25f};
    memcpy(x->data, xv, 8);
    memcpy(y->data, yv, 8);
    plumb_tensor *in[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        plumb_tensor **outs;
        uint32_t n;
        assert_true(conf_backend_run(&b, prog, in, 2, &outs, &n, &d));
        assert_int_equal(n, 1);
        float got[2];
        memcpy(got, outs[0]->data, 8);
        assert_true(got[0] == 6.0f && got[1] == -0.5f);   /* by hand */
        conf_tensors_free(outs, n);
    }
    plumb_backend_stats st;
    assert_true(conf_backend_stats(&b, &st, &d));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.cache_hits, 1);
    assert_int_equal(st.executions, 2);
    assert_true(conf_backend_reset_stats(&b, &d));
    assert_true(conf_backend_stats(&b, &st, &d));
    assert_int_equal(st.compiles, 0);
    /* a bad program is an error object, relayed with the step and message */
    plumb_tensor **outs;
    uint32_t n;
    plumb_diag_clear(&d);
    assert_false(conf_backend_run(&b, "func.func @main( {", in, 2, &outs, &n, &d));
    assert_true(d.msg[0] != 0);
    /* wrong inputs: execute reports, nothing crashes */
    plumb_diag_clear(&d);
    assert_false(conf_backend_run(&b, prog, in, 1, &outs, &n, &d));
    assert_non_null(strstr(d.msg, "execute failed"));
    plumb_tensor_free(x);
    plumb_tensor_free(y);
    conf_backend_close(&b);
}

/* Unknown backend options are refused by create with the option's name. */
static void test_unknown_option(void **state)
{
    (void)state;
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    plumb_backend_option o = {sizeof o, "warp_speed", "9"};
    assert_false(conf_backend_open("ref", &o, 1, &b, &d));
    assert_non_null(strstr(d.msg, "warp_speed"));
    plumb_diag_clear(&d);
    assert_false(conf_backend_open("runtime", &o, 1, &b, &d));
    assert_non_null(strstr(d.msg, "warp_speed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_pins),
        cmocka_unit_test(test_has_field),
        cmocka_unit_test(test_reject_major),
        cmocka_unit_test(test_reject_short),
        cmocka_unit_test(test_reject_missing_function),
        cmocka_unit_test(test_reject_unknown_op),
        cmocka_unit_test(test_reject_not_a_backend),
        cmocka_unit_test(test_caps_validation),
        cmocka_unit_test(test_ref_through_abi),
        cmocka_unit_test(test_unknown_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
