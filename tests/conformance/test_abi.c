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
#include <sys/mman.h>
#include <unistd.h>

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

/* ABI 1.3's element-type bits: every plumb type has exactly one bit, bits
 * 13-29 in the order of ir/dtypes.def (written out by hand: they are ABI),
 * and a translation in each direction by name. */
static void test_dtype_bits_1_3(void **state)
{
    (void)state;
    assert_true(PLUMB_BACKEND_ABI_MINOR >= 3);
    static const struct { plumb_dtype t; uint32_t bit; } want[] = {
        {PLUMB_I1, 0x1u}, {PLUMB_F64, 0x1000u}, {PLUMB_C64, 0x2000u}, {PLUMB_C128, 0x4000u},
        {PLUMB_F8E4M3FN, 0x8000u}, {PLUMB_F8E5M2, 0x10000u}, {PLUMB_F8E4M3FNUZ, 0x20000u},
        {PLUMB_F8E5M2FNUZ, 0x40000u}, {PLUMB_F8E4M3B11FNUZ, 0x80000u}, {PLUMB_F8E3M4, 0x100000u},
        {PLUMB_F8E4M3, 0x200000u}, {PLUMB_F8E8M0FNU, 0x400000u}, {PLUMB_F6E2M3FN, 0x800000u},
        {PLUMB_F6E3M2FN, 0x1000000u}, {PLUMB_F4E2M1FN, 0x2000000u}, {PLUMB_I2, 0x4000000u},
        {PLUMB_I4, 0x8000000u}, {PLUMB_UI2, 0x10000000u}, {PLUMB_UI4, 0x20000000u},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(conf_bk_abi_mask(PLUMB_TY_BIT(want[i].t)), want[i].bit);
        assert_int_equal(conf_bk_plumb_mask(want[i].bit), PLUMB_TY_BIT(want[i].t));
    }
    uint32_t all = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        uint32_t m = conf_bk_abi_mask(PLUMB_TY_BIT(t));
        assert_int_equal(__builtin_popcount(m), 1);
        all |= m;
    }
    assert_int_equal(all, PLUMB_BACKEND_DT_ALL_V1_3);
    assert_int_equal(PLUMB_BACKEND_DT_C64, 1u << 13);
    assert_int_equal(PLUMB_BACKEND_DT_UI4, 1u << 29);
}

/* What a table may claim of the 1.3 types: complex where the op takes it
 * (add, not popcnt), FP8 where the row says (convert, not add yet unless
 * the row grew), and nothing of 1.3 in a table that says 1.2, by name. */
static void test_caps_1_3(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    plumb_backend_op_cap cplx[] = {{sizeof(plumb_backend_op_cap), "add", PLUMB_BACKEND_DT_C64 | PLUMB_BACKEND_DT_F32},
                                   {sizeof(plumb_backend_op_cap), "convert",
                                    PLUMB_BACKEND_DT_F8E4M3FN | PLUMB_BACKEND_DT_F4E2M1FN | PLUMB_BACKEND_DT_I4}};
    plumb_backend_capabilities c = {0};
    c.struct_size = sizeof c;
    c.ops = cplx;
    c.n_ops = 2;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 3, "x.so", &out, &d));
    assert_int_equal(out.claims[PLUMB_OP_ADD], PLUMB_TY_BIT(PLUMB_C64) | PLUMB_TY_BIT(PLUMB_F32));
    assert_int_equal(out.claims[PLUMB_OP_CONVERT],
                     PLUMB_TY_BIT(PLUMB_F8E4M3FN) | PLUMB_TY_BIT(PLUMB_F4E2M1FN) | PLUMB_TY_BIT(PLUMB_I4));
    /* the same table from a 1.2 backend: bits it cannot know of */
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 2, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "which ABI 1.3 defines, but the table says ABI 1.2"));
    /* complex on an op that never takes it */
    plumb_backend_op_cap pop[] = {{sizeof(plumb_backend_op_cap), "popcnt", PLUMB_BACKEND_DT_C128}};
    c.ops = pop;
    c.n_ops = 1;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 3, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "does not accept: complex<f64>"));
    /* a small float format may be declared flushed; an integer one not */
    plumb_backend_op_cap conv[] = {{sizeof(plumb_backend_op_cap), "convert", PLUMB_BACKEND_DT_F8E5M2}};
    c.ops = conv;
    c.flush_subnormals = PLUMB_BACKEND_DT_F8E5M2;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 3, "x.so", &out, &d));
    assert_int_equal(out.flush_subnormals, PLUMB_TY_BIT(PLUMB_F8E5M2));
    c.flush_subnormals = PLUMB_BACKEND_DT_UI4;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 3, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "not floats"));
    /* the built-in backends claim the new types their op rows accept */
    conf_backend b;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("runtime", NULL, 0, &b, &d));
    assert_true(b.caps.claims[PLUMB_OP_MULTIPLY] & PLUMB_TY_BIT(PLUMB_C128));
    assert_true(b.caps.claims[PLUMB_OP_TRANSPOSE] & PLUMB_TY_BIT(PLUMB_F6E3M2FN));
    assert_true(b.caps.claims[PLUMB_OP_CONVERT] & PLUMB_TY_BIT(PLUMB_UI2));
    conf_backend_close(&b);
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
    /* an element-type bit no ABI version defines (1.3 defines bits 0-29) */
    plumb_backend_op_cap bad_bit[] = {{sizeof(plumb_backend_op_cap), "add", 1u << 30}};
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
    /* a polymorphic_shapes value past the last one defined (ABI 1.1: 3) */
    c = caps_with(ok_ops, 1);
    c.polymorphic_shapes = PLUMB_BACKEND_POLY_UNBOUNDED + 1;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate(&c, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "unknown polymorphic_shapes value 4"));
    /* ... and each defined one translates, named as reports print it */
    static const char *const poly_names[4] = {"none", "per-shape", "bounded", "unbounded"};
    for (uint32_t v = 0; v < 4; v++) {
        c = caps_with(ok_ops, 1);
        c.polymorphic_shapes = v;
        plumb_diag_clear(&d);
        assert_true(conf_caps_translate(&c, "x.so", &out, &d));
        assert_int_equal(out.poly, v);
        assert_string_equal(conf_poly_name(out.poly), poly_names[v]);
    }
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

/* ABI 1.2 appended explain to the table and its args struct: the offsets,
 * written out by hand, and the 1.0/1.1 size a loader still accepts. */
static void test_layout_explain_1_2(void **state)
{
    (void)state;
    assert_true(PLUMB_BACKEND_ABI_MINOR >= 2);   /* 1.2 appended explain; 1.3 element-type bits */
    assert_int_equal(PLUMB_BACKEND_API_SIZE_1_0, 112);
    assert_int_equal(offsetof(plumb_backend_api, explain), 112);
    assert_int_equal(sizeof(plumb_backend_api), 120);
    assert_int_equal(offsetof(plumb_backend_explain_args, backend), 8);
    assert_int_equal(offsetof(plumb_backend_explain_args, text), 16);
    assert_int_equal(offsetof(plumb_backend_explain_args, json), 24);
    assert_int_equal(sizeof(plumb_backend_explain_args), 32);
    plumb_backend_api old;
    memset(&old, 0, sizeof old);
    old.struct_size = 112;
    assert_false(PLUMB_BACKEND_HAS_FIELD(&old, plumb_backend_api, explain));
    assert_true(PLUMB_BACKEND_HAS_FIELD(&old, plumb_backend_api, reset_stats));
}

/* Compiles prog on b's instance and runs it on two f32[2] inputs. */
static void run_two(conf_backend *b, const char *prog)
{
    plumb_diag d;
    plumb_diag_clear(&d);
    int64_t dims[1] = {2};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d), *y = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d);
    plumb_tensor *in[2] = {x, y};
    plumb_tensor **outs = NULL;
    uint32_t n = 0;
    bool ok = conf_backend_run(b, prog, in, 2, &outs, &n, &d);
    if (!ok)
        fprintf(stderr, "run: %s\n", d.msg);
    assert_true(ok);
    conf_tensors_free(outs, n);
    plumb_tensor_free(x);
    plumb_tensor_free(y);
}

#define PROG_C(c)                                                                                  \
    "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"                   \
    "  %c = stablehlo.constant dense<" c "> : tensor<2xf32>\n"                                     \
    "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  %1 = stablehlo.add %0, %c : tensor<2xf32>\n"  \
    "  return %1 : tensor<2xf32>\n}\n"

/* A plugin built against ABI 1.1 (struct_size 112, no explain) still loads
 * and runs; the loader reports it has no explanations and never reads the
 * bytes past its table (the plugin put an aborting function there). */
static void test_old_abi_plugin_loads(void **state)
{
    (void)state;
    char p[512];
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    bool ok = conf_backend_open(plugin_path("old_abi_1_1", p, sizeof p), NULL, 0, &b, &d);
    if (!ok)
        fprintf(stderr, "open: %s\n", d.msg);
    assert_true(ok);
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    assert_int_equal(b.api->struct_size, 112);
    assert_int_equal(b.api->abi_minor, 1);
    assert_false(conf_backend_has_explain(&b));
    /* a 1.1 backend claims none of 1.3's types: their cases are not claimed */
    assert_int_equal(b.caps.claims[PLUMB_OP_CONVERT] & (PLUMB_TY_COMPLEX | PLUMB_TY_LOWP), 0);
    assert_true(b.caps.claims[PLUMB_OP_CONVERT] & PLUMB_TY_BIT(PLUMB_F32));
    run_two(&b, PROG_C("1.0"));
    run_two(&b, PROG_C("2.0"));
    plumb_backend_stats st;
    assert_true(conf_backend_stats(&b, &st, &d));
    assert_int_equal(st.compiles, 2);
    char text[256], json[256];
    assert_true(conf_backend_explain(&b, text, sizeof text, json, sizeof json, &d));
    assert_string_equal(text, "");
    assert_string_equal(json, "");
    conf_backend_close(&b);
}

/* The runtime says why each build happened: its entry's first program, no
 * reason for a cache hit, and the changed constant (its old and new value,
 * as text and as a JSON object) for a recompile. */
static void test_runtime_explains(void **state)
{
    (void)state;
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("runtime", NULL, 0, &b, &d));
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    assert_true(conf_backend_has_explain(&b));
    char text[1024], json[2048];
    run_two(&b, PROG_C("1.0"));
    assert_true(conf_backend_explain(&b, text, sizeof text, json, sizeof json, &d));
    assert_string_equal(text, "first program of @main");
    assert_string_equal(json, "");
    run_two(&b, PROG_C("1.0"));
    assert_true(conf_backend_explain(&b, text, sizeof text, json, sizeof json, &d));
    assert_string_equal(text, "");   /* a hit built nothing */
    run_two(&b, PROG_C("2.5"));
    assert_true(conf_backend_explain(&b, text, sizeof text, json, sizeof json, &d));
    if (!strstr(text, "constant 1.000000e+00 became 2.500000e+00"))
        fprintf(stderr, "text: %s\n", text);
    assert_non_null(strstr(text, "constant 1.000000e+00 became 2.500000e+00"));
    assert_true(json[0] == '{');
    assert_non_null(strstr(json, "baked_constant"));
    conf_backend_close(&b);
}

/* The example backend implements explain minimally: a build is a text it
 * had not seen; a repeat is a hit with no reason. */
static void test_example_explains(void **state)
{
    (void)state;
    const char *bd = getenv("BUILD");
    char p[512];
    snprintf(p, sizeof p, "%s/backends/minicpu.so", bd && *bd ? bd : "build");
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open(p, NULL, 0, &b, &d));
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    assert_true(conf_backend_has_explain(&b));
    const char *prog = "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
                       "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    char text[256];
    run_two(&b, prog);
    assert_true(conf_backend_explain(&b, text, sizeof text, NULL, 0, &d));
    assert_non_null(strstr(text, "program text not seen before"));
    run_two(&b, prog);
    assert_true(conf_backend_explain(&b, text, sizeof text, NULL, 0, &d));
    assert_string_equal(text, "");
    conf_backend_close(&b);
}

/* The reference counts builds by text, and says so: a new text, with how
 * many it had; a repeat is a hit with no reason. */
static void test_ref_explains(void **state)
{
    (void)state;
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("ref", NULL, 0, &b, &d));
    assert_true(conf_backend_instance(&b, NULL, 0, &d));
    assert_true(conf_backend_has_explain(&b));
    char text[256];
    run_two(&b, PROG_C("1.0"));
    assert_true(conf_backend_explain(&b, text, sizeof text, NULL, 0, &d));
    assert_string_equal(text, "program text of @main not seen before (0 cached)");
    run_two(&b, PROG_C("1.0"));
    assert_true(conf_backend_explain(&b, text, sizeof text, NULL, 0, &d));
    assert_string_equal(text, "");
    run_two(&b, PROG_C("3.0"));
    assert_true(conf_backend_explain(&b, text, sizeof text, NULL, 0, &d));
    assert_string_equal(text, "program text of @main not seen before (1 cached)");
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

/* ---- outputs that lie, in process: a table wrapping ref whose execute
 * replaces the result per lie_mode ---------------------------------------- */
static enum { LIE_NONE, LIE_NONUL, LIE_NULLDATA, LIE_HUGE, LIE_RANK } lie_mode;
static plumb_backend_api lie_api;
static plumb_backend_buffer lie_buf;
static plumb_backend_outputs lie_outs, *lie_held;
static int64_t lie_dims[2];
static uint8_t lie_small[16];
static char *lie_page;

static plumb_backend_error *lie_execute(plumb_backend_execute_args *a)
{
    plumb_backend_error *e = conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR)->execute(a);
    if (e || lie_mode == LIE_NONE)
        return e;
    lie_buf = a->outputs->buffers[0];
    switch (lie_mode) {
    case LIE_NONUL: {
        /* 16 non-NUL bytes ending where an unreadable page begins. */
        long pg = sysconf(_SC_PAGESIZE);
        if (!lie_page) {
            lie_page = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            assert_true(lie_page != MAP_FAILED);
            assert_int_equal(mprotect(lie_page + pg, (size_t)pg, PROT_NONE), 0);
        }
        char *str = lie_page + pg - 16;
        for (int i = 0; i < 16; i++)
            str[i] = "f32"[i % 3];
        lie_buf.dtype = str;
        break;
    }
    case LIE_NULLDATA:
        lie_buf.data = NULL;
        break;
    case LIE_HUGE:
        lie_dims[0] = (int64_t)1 << 31;
        lie_buf.rank = 1;
        lie_buf.dims = lie_dims;
        lie_buf.data = lie_small;
        lie_buf.byte_size = (uint64_t)4 << 31;
        break;
    case LIE_RANK:
        /* the right element count, the wrong shape: 2x1 for tensor<2xf32> */
        lie_dims[0] = 2;
        lie_dims[1] = 1;
        lie_buf.rank = 2;
        lie_buf.dims = lie_dims;
        break;
    case LIE_NONE:
        break;
    }
    lie_held = a->outputs;
    lie_outs.struct_size = sizeof lie_outs;
    lie_outs.buffers = &lie_buf;
    lie_outs.n_buffers = 1;
    a->outputs = &lie_outs;
    return NULL;
}

static void lie_outputs_free(plumb_backend_outputs *o)
{
    if (o == &lie_outs) {
        o = lie_held;
        lie_held = NULL;
    }
    conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR)->outputs_free(o);
}

/* Runs a 2-element multiply on the lying table; returns the message. */
static bool lie_run(int mode, uint64_t max_bytes, plumb_diag *d)
{
    lie_api = *conf_backend_ref_api(PLUMB_BACKEND_ABI_MAJOR);
    lie_api.execute = lie_execute;
    lie_api.outputs_free = lie_outputs_free;
    lie_mode = mode;
    conf_backend b;
    memset(&b, 0, sizeof b);
    b.api = &lie_api;
    b.max_bytes = max_bytes;
    snprintf(b.where, sizeof b.where, "liar");
    plumb_diag_clear(d);
    assert_true(conf_backend_instance(&b, NULL, 0, d));
    const char *prog = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                       "  %0 = stablehlo.negate %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    int64_t dims[1] = {2};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 1, dims, 0, d);
    plumb_tensor **outs = NULL;
    uint32_t n = 0;
    bool ok = conf_backend_run(&b, prog, &x, 1, &outs, &n, d);
    conf_tensors_free(outs, n);
    plumb_tensor_free(x);
    conf_backend_close(&b);
    return ok;
}

/* A dtype string without a NUL within CONF_BK_DTYPE_MAX bytes is rejected
 * without reading past that bound (the byte after it is unreadable: an
 * unbounded strlen dies here). */
static void test_output_dtype_unterminated(void **state)
{
    (void)state;
    plumb_diag d;
    assert_false(lie_run(LIE_NONUL, 0, &d));
    assert_non_null(strstr(d.msg, "liar: output 0: the element type is not a NUL-terminated string"));
}

/* A NULL data pointer with a correct byte_size is reported as such, not as
 * a size mismatch. */
static void test_output_null_data(void **state)
{
    (void)state;
    plumb_diag d;
    assert_false(lie_run(LIE_NULLDATA, 0, &d));
    assert_non_null(strstr(d.msg, "output 0: the data pointer is NULL (8 bytes promised)"));
}

/* A claimed output is held to the program's declared result type before
 * anything is allocated for it: 2^31 f32 elements over a 16-byte buffer
 * are refused by type, and a 2x1 result for tensor<2xf32> too. */
static void test_output_shape_checked_before_allocation(void **state)
{
    (void)state;
    plumb_diag d;
    assert_false(lie_run(LIE_HUGE, 0, &d));
    assert_non_null(strstr(d.msg, "the backend returned tensor<2147483648xf32>, the program declares tensor<2xf32>"));
    assert_false(lie_run(LIE_RANK, 0, &d));
    assert_non_null(strstr(d.msg, "the backend returned tensor<2x1xf32>, the program declares tensor<2xf32>"));
    /* the honest result passes, and the byte limit applies to it */
    assert_true(lie_run(LIE_NONE, 0, &d));
    assert_false(lie_run(LIE_NONE, 4, &d));
    assert_non_null(strstr(d.msg, "liar: output 0:"));
}

/* A plugin that exits 0 in create or capabilities cannot end the process
 * that judges it: the probe runs in a child and open fails naming the call
 * (this test process going on is half the proof). */
static void test_probe_survives_plugin_exit(void **state)
{
    (void)state;
    char so[512];
    plugin_path("misbehave", so, sizeof so);
    static const char *const modes[][2] = {
        {"exit0@create", "exited with status 0 in create"},
        {"_exit0@capabilities", "exited with status 0 in capabilities"},
        {"segv@capabilities", "died of signal 11"},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        setenv("PLUMB_MISBEHAVE", modes[i][0], 1);
        expect_rejected(so, modes[i][1]);
    }
    unsetenv("PLUMB_MISBEHAVE");
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open(so, NULL, 0, &b, &d));
    assert_string_equal(b.name, "misbehave");
    assert_true(b.caps.claims[PLUMB_OP_NEGATE] & PLUMB_TY_BIT(PLUMB_F32));
    /* the parent never loaded it: the table is loaded by whoever runs it */
    assert_null(b.api);
    conf_backend_close(&b);
}

/* Failure detail: row-major multi-dimensional indices and input values,
 * derived by hand. */
static void test_describe(void **state)
{
    (void)state;
    plumb_diag d;
    plumb_diag_clear(&d);
    int64_t dims[3] = {2, 3, 4};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 3, dims, 0, &d);
    char buf[256];
    conf_describe_index(t, 23, buf, sizeof buf);   /* 23 = 1*12 + 2*4 + 3 */
    assert_string_equal(buf, "[1,2,3]");
    conf_describe_index(t, 0, buf, sizeof buf);
    assert_string_equal(buf, "[0,0,0]");
    float v[24] = {0};
    v[23] = 0.5f;
    memcpy(t->data, v, sizeof v);
    conf_describe_value(PLUMB_F32, t->data, 23, buf, sizeof buf);
    assert_string_equal(buf, "0x3f000000 (0.5)");
    plumb_tensor *s = plumb_tensor_new(PLUMB_F32, 0, NULL, 0, &d);
    float one = 1.0f;
    memcpy(s->data, &one, 4);
    conf_describe_index(s, 0, buf, sizeof buf);
    assert_string_equal(buf, "[]");
    /* an input shaped like the output gives element i, a scalar its one */
    plumb_tensor *ins[2] = {t, s};
    assert_true(conf_describe_inputs(ins, 2, NULL, t, 23, buf, sizeof buf));
    assert_string_equal(buf, "%arg0=0x3f000000 (0.5), %arg1=0x3f800000 (1)");
    int64_t other[1] = {24};
    plumb_tensor *flat = plumb_tensor_new(PLUMB_F32, 1, other, 0, &d);
    ins[1] = flat;
    assert_false(conf_describe_inputs(ins, 2, NULL, t, 23, buf, sizeof buf));
    /* a checker line gains the index and, for an elementwise op, inputs */
    conf_case c;
    memset(&c, 0, sizeof c);
    c.op = PLUMB_OP_NEGATE;
    ins[1] = s;
    c.inputs = ins;
    c.n_inputs = 1;
    char reason[512] = "output 0 element 23: got 0x3f000001 (0.50000006), want 0x3f000000 (0.5); error 1 ulp, bound 0 ulp";
    conf_describe_reason(&c, &t, 1, 0, 23, reason, sizeof reason);
    assert_string_equal(reason, "output 0 element 23 at [1,2,3]: got 0x3f000001 (0.50000006), want 0x3f000000 (0.5); "
                                "error 1 ulp, bound 0 ulp; inputs %arg0=0x3f000000 (0.5)");
    /* whole-tensor reasons stay as they are */
    char whole[512] = "the backend returned 2 outputs, the program has 1";
    conf_describe_reason(&c, &t, 1, 0, 0, whole, sizeof whole);
    assert_string_equal(whole, "the backend returned 2 outputs, the program has 1");
    plumb_tensor_free(flat);
    plumb_tensor_free(s);
    plumb_tensor_free(t);
}

/* With the case's program, inputs are named as written and read through a
 * broadcast_in_dim: element 5 of a 2x3 result is [1,2], which reads x[1,2]
 * and y_in[2] (y_in broadcast along dimension 1). */
static void test_describe_broadcast(void **state)
{
    (void)state;
    plumb_diag d;
    plumb_diag_clear(&d);
    int64_t xd[2] = {2, 3}, yd[1] = {3};
    plumb_tensor *x = plumb_tensor_new(PLUMB_F32, 2, xd, 0, &d), *y = plumb_tensor_new(PLUMB_F32, 1, yd, 0, &d);
    float xv[6] = {0, 0, 0, 0, 0, 0.25f}, yv[3] = {0.5f, 1.0f, 2.0f};
    memcpy(x->data, xv, sizeof xv);
    memcpy(y->data, yv, sizeof yv);
    plumb_tensor *ins[2] = {x, y};
    conf_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "add/f32/broadcast/test/0");
    c.op = PLUMB_OP_ADD;
    c.inputs = ins;
    c.n_inputs = 2;
    c.program = (char *)"func.func @main(%x: tensor<2x3xf32>, %y_in: tensor<3xf32>) -> (tensor<2x3xf32>) {\n"
                        "  %y = stablehlo.broadcast_in_dim %y_in, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>\n"
                        "  %r = stablehlo.add %x, %y : tensor<2x3xf32>\n"
                        "  return %r : tensor<2x3xf32>\n}\n";
    char reason[512] = "output 0 element 5: got 0x40100001 (2.25000024), want 0x40100000 (2.25); error 1 ulp, bound 0 ulp";
    conf_describe_reason(&c, &x, 1, 0, 5, reason, sizeof reason);
    assert_string_equal(reason, "output 0 element 5 at [1,2]: got 0x40100001 (2.25000024), want 0x40100000 (2.25); "
                                "error 1 ulp, bound 0 ulp; inputs %x=0x3e800000 (0.25), %y_in=0x40000000 (2)");
    plumb_tensor_free(x);
    plumb_tensor_free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_pins),
        cmocka_unit_test(test_layout_explain_1_2),
        cmocka_unit_test(test_old_abi_plugin_loads),
        cmocka_unit_test(test_runtime_explains),
        cmocka_unit_test(test_example_explains),
        cmocka_unit_test(test_ref_explains),
        cmocka_unit_test(test_has_field),
        cmocka_unit_test(test_dtype_bits_1_3),
        cmocka_unit_test(test_caps_1_3),
        cmocka_unit_test(test_reject_major),
        cmocka_unit_test(test_reject_short),
        cmocka_unit_test(test_reject_missing_function),
        cmocka_unit_test(test_reject_unknown_op),
        cmocka_unit_test(test_reject_not_a_backend),
        cmocka_unit_test(test_caps_validation),
        cmocka_unit_test(test_ref_through_abi),
        cmocka_unit_test(test_unknown_option),
        cmocka_unit_test(test_output_dtype_unterminated),
        cmocka_unit_test(test_output_null_data),
        cmocka_unit_test(test_output_shape_checked_before_allocation),
        cmocka_unit_test(test_probe_survives_plugin_exit),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_describe_broadcast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
