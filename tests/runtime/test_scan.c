/* chlo.scan on the compiled runtime (runtime/k_scan.c): results bitwise
 * equal to the reference's (ref/scan.c) at every ISA level, on 1 and 2
 * threads, at opt levels 0 and 2 (rt_check_exact), for random data with
 * float specials: integer and float bodies, every scan dimension of a
 * rank-3 input, is_reverse, several inputs and carries, an empty scan
 * dimension, a body reading a value of the enclosing function, a body
 * with a reduce in it. Plus the upstream cumulative sum's values by hand
 * (1, 3, 6, 10) on the runtime alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"

/* [1, 2, 3, 4] prefix sums on the runtime: 1, 3, 6, 10 and carry 10 (by
 * hand), then against the reference. */
static void test_cumsum_values(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<4xi32>, %i: tensor<i32>) -> (tensor<4xi32>, tensor<i32>) {\n"
        "  %r:2 = chlo.scan(%a) inits(%i) dimension=0 {\n"
        "  ^bb0(%x: tensor<i32>, %c: tensor<i32>):\n"
        "    %s = stablehlo.add %x, %c : tensor<i32>\n"
        "    stablehlo.return %s, %s : tensor<i32>, tensor<i32>\n"
        "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)\n"
        "  return %r#0, %r#1 : tensor<4xi32>, tensor<i32>\n}\n";
    int64_t four = 4;
    plumb_diag d = {.code = PLUMB_OK};
    plumb_tensor *in[2] = {plumb_tensor_new(PLUMB_I32, 1, &four, 0, &d), rt_scalar_bits(PLUMB_I32, 0)};
    assert_non_null(in[0]);
    static const int32_t a[4] = {1, 2, 3, 4}, want[4] = {1, 3, 6, 10};
    memcpy(in[0]->data, a, sizeof a);
    ir_module *m = rt_parse(src);
    plumb_tensor *out[2] = {NULL, NULL};
    rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, 2, out, 2);
    for (int i = 0; i < 4; i++)
        assert_int_equal(plumb_load_i64(PLUMB_I32, out[0]->data, (size_t)i), want[i]);
    assert_int_equal(plumb_load_i64(PLUMB_I32, out[1]->data, 0), 10);
    rt_outs_free(out, 2);
    ir_module_free(m);
    rt_check_exact(src, in, 2);
    rt_outs_free(in, 2);
}

/* Float running sum and running max along each dimension of a 3x4x5 f32
 * input with specials (NaN payloads, infinities, signed zeros,
 * subnormals), forward and reverse: the body's add and maximum are the
 * runtime's own kernels, each step rounded as the reference's. */
static void test_float_every_dim(void **state)
{
    (void)state;
    static const int64_t dims[3] = {3, 4, 5};
    for (int dim = 0; dim < 3; dim++)
        for (int rev = 0; rev < 2; rev++) {
            int64_t cd[2];
            uint32_t k = 0;
            for (int i = 0; i < 3; i++)
                if (i != dim)
                    cd[k++] = dims[i];
            char T[64], C[64], src[4096];
            rt_ty(T, sizeof T, PLUMB_F32, 3, dims);
            rt_ty(C, sizeof C, PLUMB_F32, 2, cd);
            snprintf(src, sizeof src,
                     "func.func @main(%%a: %s, %%i: %s, %%j: %s) -> (%s, %s, %s, %s) {\n"
                     "  %%r:4 = chlo.scan(%%a) inits(%%i, %%j) dimension=%d%s {\n"
                     "  ^bb0(%%x: %s, %%c: %s, %%m: %s):\n"
                     "    %%s = stablehlo.add %%c, %%x : %s\n"
                     "    %%n = stablehlo.maximum %%m, %%x : %s\n"
                     "    stablehlo.return %%s, %%n, %%s, %%n : %s, %s, %s, %s\n"
                     "  } : (%s, %s, %s) -> (%s, %s, %s, %s)\n"
                     "  return %%r#0, %%r#1, %%r#2, %%r#3 : %s, %s, %s, %s\n}\n",
                     T, C, C, T, T, C, C, dim, rev ? " attributes {is_reverse = true}" : "", C, C, C, C, C, C, C,
                     C, C, T, C, C, T, T, C, C, T, T, C, C);
            plumb_tensor *in[3] = {rt_rand_tensor(PLUMB_F32, 3, dims, true), rt_rand_tensor(PLUMB_F32, 2, cd, true),
                                   rt_rand_tensor(PLUMB_F32, 2, cd, true)};
            rt_check_exact_nan(src, in, 3);
            rt_outs_free(in, 3);
        }
}

/* tmpl with every '$' replaced by e, into out (cap bytes, enough). */
static void subst(char *out, size_t cap, const char *tmpl, const char *e)
{
    size_t o = 0, el = strlen(e);
    for (const char *c = tmpl; *c; c++) {
        if (*c == '$') {
            assert_true(o + el < cap);
            memcpy(out + o, e, el);
            o += el;
        } else {
            assert_true(o + 1 < cap);
            out[o++] = *c;
        }
    }
    out[o] = '\0';
}

/* Integer bodies on several element types: two inputs, two carries, a
 * compare and select (cummax with its index, as upstream's test), and an
 * output of another element type than the inputs (the carry converted). */
static void test_int_multi(void **state)
{
    (void)state;
    static const plumb_dtype types[] = {PLUMB_I8, PLUMB_UI16, PLUMB_I32, PLUMB_I64};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const char *e = plumb_dtype_name(types[t]);
        /* the program with every `$` replaced by the element type */
        static const char *tmpl =
            "func.func @main(%v: tensor<6x37x$>, %p: tensor<6x37x$>, %iv: tensor<6x$>, %ip: tensor<6x$>)\n"
            "    -> (tensor<6x37x$>, tensor<6x37xf32>, tensor<6x$>, tensor<6x$>) {\n"
            "  %r:4 = chlo.scan(%v, %p) inits(%iv, %ip) dimension=1 {\n"
            "  ^bb0(%cv: tensor<6x$>, %cp: tensor<6x$>, %rv: tensor<6x$>, %rp: tensor<6x$>):\n"
            "    %nv = stablehlo.maximum %rv, %cv : tensor<6x$>\n"
            "    %gt = stablehlo.compare GT, %rv, %cv : (tensor<6x$>, tensor<6x$>) -> tensor<6xi1>\n"
            "    %np = stablehlo.select %gt, %rp, %cp : tensor<6xi1>, tensor<6x$>\n"
            "    %f = stablehlo.convert %np : (tensor<6x$>) -> tensor<6xf32>\n"
            "    stablehlo.return %nv, %f, %nv, %np : tensor<6x$>, tensor<6xf32>, tensor<6x$>, tensor<6x$>\n"
            "  } : (tensor<6x37x$>, tensor<6x37x$>, tensor<6x$>, tensor<6x$>)\n"
            "      -> (tensor<6x37x$>, tensor<6x37xf32>, tensor<6x$>, tensor<6x$>)\n"
            "  return %r#0, %r#1, %r#2, %r#3 : tensor<6x37x$>, tensor<6x37xf32>, tensor<6x$>, tensor<6x$>\n}\n";
        char src[4096];
        subst(src, sizeof src, tmpl, e);
        static const int64_t full[2] = {6, 37}, row[1] = {6};
        plumb_tensor *in[4] = {rt_rand_tensor(types[t], 2, full, false), rt_rand_tensor(types[t], 2, full, false),
                               rt_rand_tensor(types[t], 1, row, false), rt_rand_tensor(types[t], 1, row, false)};
        rt_check_exact(src, in, 4);
        rt_outs_free(in, 4);
    }
}

/* An empty scan dimension (the carries are the inits), a body that reads
 * %k of the enclosing function (a capture), a body with a reduce, and no
 * inputs at all (Fibonacci from the carries, wrapping in i16). */
static void test_edges(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%e: tensor<3x0xf64>, %i: tensor<3xf64>, %a: tensor<9x4xi32>, %k: tensor<4xi32>,\n"
        "                %z: tensor<i32>, %u: tensor<i16>, %w: tensor<i16>)\n"
        "    -> (tensor<3x0xf64>, tensor<3xf64>, tensor<9x4xi32>, tensor<4xi32>, tensor<9xi32>, tensor<i32>,\n"
        "        tensor<30xi16>, tensor<i16>) {\n"
        "  %r:2 = chlo.scan(%e) inits(%i) dimension=1 {\n"
        "  ^bb0(%x: tensor<3xf64>, %c: tensor<3xf64>):\n"
        "    %s = stablehlo.add %x, %c : tensor<3xf64>\n"
        "    stablehlo.return %s, %s : tensor<3xf64>, tensor<3xf64>\n"
        "  } : (tensor<3x0xf64>, tensor<3xf64>) -> (tensor<3x0xf64>, tensor<3xf64>)\n"
        "  %q:2 = chlo.scan(%a) inits(%k) dimension=0 attributes {is_reverse = true} {\n"
        "  ^bb0(%x: tensor<4xi32>, %c: tensor<4xi32>):\n"
        "    %m = stablehlo.multiply %c, %k : tensor<4xi32>\n"
        "    %s = stablehlo.add %m, %x : tensor<4xi32>\n"
        "    stablehlo.return %s, %s : tensor<4xi32>, tensor<4xi32>\n"
        "  } : (tensor<9x4xi32>, tensor<4xi32>) -> (tensor<9x4xi32>, tensor<4xi32>)\n"
        "  %t:2 = chlo.scan(%a) inits(%z) dimension=0 {\n"
        "  ^bb0(%x: tensor<4xi32>, %c: tensor<i32>):\n"
        "    %s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0]\n"
        "        : (tensor<4xi32>, tensor<i32>) -> tensor<i32>\n"
        "    stablehlo.return %s, %s : tensor<i32>, tensor<i32>\n"
        "  } : (tensor<9x4xi32>, tensor<i32>) -> (tensor<9xi32>, tensor<i32>)\n"
        "  %f:3 = chlo.scan() inits(%u, %w) dimension=0 {\n"
        "  ^bb0(%p: tensor<i16>, %n: tensor<i16>):\n"
        "    %s = stablehlo.add %p, %n : tensor<i16>\n"
        "    stablehlo.return %p, %n, %s : tensor<i16>, tensor<i16>, tensor<i16>\n"
        "  } : (tensor<i16>, tensor<i16>) -> (tensor<30xi16>, tensor<i16>, tensor<i16>)\n"
        "  return %r#0, %r#1, %q#0, %q#1, %t#0, %t#1, %f#0, %f#2 : tensor<3x0xf64>, tensor<3xf64>, tensor<9x4xi32>,\n"
        "    tensor<4xi32>, tensor<9xi32>, tensor<i32>, tensor<30xi16>, tensor<i16>\n}\n";
    static const int64_t e[2] = {3, 0}, i3[1] = {3}, a[2] = {9, 4}, k4[1] = {4};
    plumb_tensor *in[7] = {rt_rand_tensor(PLUMB_F64, 2, e, true), rt_rand_tensor(PLUMB_F64, 1, i3, true),
                           rt_rand_tensor(PLUMB_I32, 2, a, false), rt_rand_tensor(PLUMB_I32, 1, k4, false),
                           rt_scalar_bits(PLUMB_I32, 5), rt_scalar_bits(PLUMB_I16, 0), rt_scalar_bits(PLUMB_I16, 1)};
    rt_check_exact(src, in, 7);
    rt_outs_free(in, 7);
}

/* Five steps over slices with no elements (a 5x0 input along dimension
 * 0, whose buffer may be absent; forward and reverse): the body runs five
 * times, its carry counting them (by hand: 0 + 1 + 1 + 1 + 1 + 1 = 5),
 * the output is empty; then runtime == reference. */
static void test_empty_slices(void **state)
{
    (void)state;
    for (int rev = 0; rev < 2; rev++) {
        char src[2048];
        snprintf(src, sizeof src,
                 "func.func @main(%%a: tensor<5x0xi32>, %%i: tensor<i32>) -> (tensor<5x0xi32>, tensor<i32>) {\n"
                 "  %%r:2 = chlo.scan(%%a) inits(%%i) dimension=0%s {\n"
                 "  ^bb0(%%x: tensor<0xi32>, %%c: tensor<i32>):\n"
                 "    %%o = stablehlo.constant dense<1> : tensor<i32>\n"
                 "    %%s = stablehlo.add %%c, %%o : tensor<i32>\n"
                 "    stablehlo.return %%x, %%s : tensor<0xi32>, tensor<i32>\n"
                 "  } : (tensor<5x0xi32>, tensor<i32>) -> (tensor<5x0xi32>, tensor<i32>)\n"
                 "  return %%r#0, %%r#1 : tensor<5x0xi32>, tensor<i32>\n}\n",
                 rev ? " attributes {is_reverse = true}" : "");
        static const int64_t e[2] = {5, 0};
        plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_I32, 2, e, false), rt_scalar_bits(PLUMB_I32, 0)};
        ir_module *m = rt_parse(src);
        plumb_tensor *out[2] = {NULL, NULL};
        rt_exec_on(m, PLUMB_ISA_PORTABLE, 1, in, 2, out, 2);
        assert_int_equal(plumb_tensor_numel(out[0]), 0);
        assert_int_equal(plumb_load_i64(PLUMB_I32, out[1]->data, 0), 5);
        rt_outs_free(out, 2);
        ir_module_free(m);
        rt_check_exact(src, in, 2);
        rt_outs_free(in, 2);
    }
}

/* The small types (i4 wrapping, f8E4M3FN with specials, reversed) and
 * complex<f64> through a scan: runtime == reference bit for bit. */
static void test_small_and_complex_types(void **state)
{
    (void)state;
    static const plumb_dtype types[] = {PLUMB_I4, PLUMB_F8E4M3FN, PLUMB_C64};
    static const char *const names[] = {"i4", "f8E4M3FN", "complex<f32>"};
    for (size_t t = 0; t < 3; t++) {
        static const char *tmpl =
            "func.func @main(%a: tensor<5x9x$>, %c: tensor<5x$>) -> (tensor<5x9x$>, tensor<5x$>) {\n"
            "  %r:2 = chlo.scan(%a) inits(%c) dimension=1 attributes {is_reverse = true} {\n"
            "  ^bb0(%x: tensor<5x$>, %u: tensor<5x$>):\n"
            "    %s = stablehlo.add %u, %x : tensor<5x$>\n"
            "    stablehlo.return %s, %s : tensor<5x$>, tensor<5x$>\n"
            "  } : (tensor<5x9x$>, tensor<5x$>) -> (tensor<5x9x$>, tensor<5x$>)\n"
            "  return %r#0, %r#1 : tensor<5x9x$>, tensor<5x$>\n}\n";
        char src[4096];
        subst(src, sizeof src, tmpl, names[t]);
        static const int64_t full[2] = {5, 9}, row[1] = {5};
        plumb_tensor *in[2] = {rt_rand_tensor(types[t], 2, full, true), rt_rand_tensor(types[t], 1, row, true)};
        rt_check_exact_nan(src, in, 2);
        rt_outs_free(in, 2);
    }
}

/* A '?' batch dimension (ir_shape_infer's scan rule sizes the results):
 * f32 running sums of 6x11 (the '?' is 6) along 1, runtime == reference. */
static void test_polymorphic_batch(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%a: tensor<?x11xf32>, %i: tensor<?xf32>) -> (tensor<?x11xf32>, tensor<?xf32>) {\n"
        "  %r:2 = chlo.scan(%a) inits(%i) dimension=1 {\n"
        "  ^bb0(%x: tensor<?xf32>, %c: tensor<?xf32>):\n"
        "    %s = stablehlo.add %c, %x : tensor<?xf32>\n"
        "    stablehlo.return %s, %s : tensor<?xf32>, tensor<?xf32>\n"
        "  } : (tensor<?x11xf32>, tensor<?xf32>) -> (tensor<?x11xf32>, tensor<?xf32>)\n"
        "  return %r#0, %r#1 : tensor<?x11xf32>, tensor<?xf32>\n}\n";
    static const int64_t full[2] = {6, 11}, row[1] = {6};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, full, true), rt_rand_tensor(PLUMB_F32, 1, row, true)};
    rt_check_exact_nan(src, in, 2);
    rt_outs_free(in, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cumsum_values),
        cmocka_unit_test(test_float_every_dim),
        cmocka_unit_test(test_int_multi),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_empty_slices),
        cmocka_unit_test(test_small_and_complex_types),
        cmocka_unit_test(test_polymorphic_batch),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
