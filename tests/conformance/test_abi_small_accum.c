/* ABI 1.4's accumulators of the FP8/FP6/FP4 formats
 * (plumb_backend_capabilities.accum_small, docs/abi.md "Accumulators of the
 * small float formats"): the released layout, the f32 default of older
 * tables and of 0 entries, the loader's rejections, what ref and runtime
 * declare, and the certificate's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../conformance/certify.h"

static const plumb_backend_op_cap add_f32[] = {{sizeof(plumb_backend_op_cap), "add", PLUMB_BACKEND_DT_F32}};

static plumb_backend_capabilities caps(void)
{
    plumb_backend_capabilities c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.ops = add_f32;
    c.n_ops = 1;
    return c;
}

/* The field sits after ABI 1.0's last one, one uint32_t per format in bit order. */
static void test_layout_1_4(void **state)
{
    (void)state;
    assert_true(PLUMB_BACKEND_ABI_MINOR >= 4);
    assert_int_equal(offsetof(plumb_backend_capabilities, accum_small), 56);
    assert_int_equal(PLUMB_BACKEND_CAPABILITIES_SIZE_1_0, 56);
    assert_int_equal(PLUMB_BACKEND_N_SMALL_FLOATS, 11);
    assert_int_equal(sizeof(plumb_backend_capabilities), 104);
    /* the last entry is f4E2M1FN's: bit 15 + 10 */
    assert_int_equal(PLUMB_BACKEND_DT_F8E4M3FN << 10, PLUMB_BACKEND_DT_F4E2M1FN);
}

/* A table older than 1.4 declares nothing for the small formats: each gets
 * f32, and the loader reads neither bytes past a short struct_size nor a
 * full struct's accum_small when abi_minor says 1.3. */
static void test_old_tables_default_f32(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    plumb_backend_capabilities c = caps();
    for (int i = 0; i < PLUMB_BACKEND_N_SMALL_FLOATS; i++) c.accum_small[i] = 0xdeadbeefu;   /* garbage */
    c.struct_size = PLUMB_BACKEND_CAPABILITIES_SIZE_1_0;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_int_equal(out.accum[PLUMB_F8E4M3FN], PLUMB_F32);
    assert_int_equal(out.accum[PLUMB_F4E2M1FN], PLUMB_F32);
    c.struct_size = sizeof c;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 3, "x.so", &out, &d));
    assert_int_equal(out.accum[PLUMB_F8E5M2], PLUMB_F32);
    assert_int_equal(out.accum[PLUMB_F8E8M0FNU], PLUMB_F32);
    /* the wide types keep their own rule: 0 = the type itself */
    assert_int_equal(out.accum[PLUMB_F16], PLUMB_F16);
}

/* A 1.4 table's declarations are taken as given; 0 still means f32. */
static void test_declared(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    plumb_backend_capabilities c = caps();
    c.accum_small[0] = PLUMB_BACKEND_DT_F8E4M3FN;   /* f8E4M3FN in itself */
    c.accum_small[1] = PLUMB_BACKEND_DT_F16;        /* f8E5M2 in f16 */
    c.accum_small[7] = PLUMB_BACKEND_DT_F64;        /* f8E8M0FNU in f64 */
    c.accum_small[10] = PLUMB_BACKEND_DT_BF16;      /* f4E2M1FN in bf16 */
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_int_equal(out.accum[PLUMB_F8E4M3FN], PLUMB_F8E4M3FN);
    assert_int_equal(out.accum[PLUMB_F8E5M2], PLUMB_F16);
    assert_int_equal(out.accum[PLUMB_F8E8M0FNU], PLUMB_F64);
    assert_int_equal(out.accum[PLUMB_F4E2M1FN], PLUMB_BF16);
    assert_int_equal(out.accum[PLUMB_F6E2M3FN], PLUMB_F32);
}

/* An accumulator that cannot hold the format's values, or that is not one
 * float bit, is rejected with the entry and the types named. */
static void test_rejections(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    plumb_backend_capabilities c = caps();
    c.accum_small[0] = PLUMB_BACKEND_DT_F8E5M2;     /* 2 significand bits for f8E4M3FN's 3 */
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "accum_small[0] = f8E5M2 is narrower than f8E4M3FN"));
    c = caps();
    c.accum_small[7] = PLUMB_BACKEND_DT_F16;        /* 5 exponent bits for f8E8M0FNU's 8 */
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "accum_small[7] = f16 is narrower than f8E8M0FNU"));
    c = caps();
    c.accum_small[2] = PLUMB_BACKEND_DT_I32;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "accum_small[2] (f8E4M3FNUZ) = 0x8 is not one float element-type bit"));
    c = caps();
    c.accum_small[3] = PLUMB_BACKEND_DT_F32 | PLUMB_BACKEND_DT_F64;
    plumb_diag_clear(&d);
    assert_false(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    assert_non_null(strstr(d.msg, "accum_small[3] (f8E5M2FNUZ)"));
}

/* ref sums exactly (declares f64); runtime sums in f32, f8E8M0FNU in f64. */
static void test_builtin_declarations(void **state)
{
    (void)state;
    conf_backend b;
    plumb_diag d;
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("ref", NULL, 0, &b, &d));
    assert_int_equal(b.caps.accum[PLUMB_F8E4M3FN], PLUMB_F64);
    assert_int_equal(b.caps.accum[PLUMB_F4E2M1FN], PLUMB_F64);
    conf_backend_close(&b);
    plumb_diag_clear(&d);
    assert_true(conf_backend_open("runtime", NULL, 0, &b, &d));
    assert_int_equal(b.caps.accum[PLUMB_F8E4M3FN], PLUMB_F32);
    assert_int_equal(b.caps.accum[PLUMB_F6E3M2FN], PLUMB_F32);
    assert_int_equal(b.caps.accum[PLUMB_F8E8M0FNU], PLUMB_F64);
    conf_backend_close(&b);
}

/* The certificate's line: one accumulator for all, or each format, and a
 * format summed in itself named as a limitation. */
static void test_certificate_text(void **state)
{
    (void)state;
    conf_caps out;
    plumb_diag d;
    char text[768];
    plumb_backend_capabilities c = caps();
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    conf_caps_small_accum_text(&out, text, sizeof text);
    assert_string_equal(text, "FP8/FP6/FP4->f32");
    c.accum_small[10] = PLUMB_BACKEND_DT_F4E2M1FN;
    plumb_diag_clear(&d);
    assert_true(conf_caps_translate_minor(&c, 4, "x.so", &out, &d));
    conf_caps_small_accum_text(&out, text, sizeof text);
    assert_non_null(strstr(text, "f8E4M3FN->f32 "));
    assert_non_null(strstr(text, "f4E2M1FN->f4E2M1FN"));
    assert_non_null(strstr(text, "summed in the format itself: f4E2M1FN (limitation:"));
    /* a short buffer is cut, never overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    conf_caps_small_accum_text(&out, small, 6);
    assert_int_equal(strlen(small), 5);
    assert_int_equal(small[6], 'x');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_1_4),
        cmocka_unit_test(test_old_tables_default_f32),
        cmocka_unit_test(test_declared),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_builtin_declarations),
        cmocka_unit_test(test_certificate_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
