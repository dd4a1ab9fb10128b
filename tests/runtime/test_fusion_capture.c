/* Fusion around ops whose regions read (capture) a value of the enclosing
 * function: the op holding the region reads that value, so an elementwise
 * op that feeds the region and one that reads the region op's result must
 * not fuse into one group (the group would run both before and after the
 * region op: rt_fuse used to refuse the function with "fusion of @main
 * produced a cyclic schedule"). Each program runs on the reference and on
 * the runtime at opt level 2 (where fusion runs) at every ISA level the
 * CPU has, on 1 and 2 threads; the reference's outputs are first checked
 * against hand-derived values, then the runtime's against the reference
 * bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../runtime/rt_passes.h"
#include "runtime/rt_test.h"

static int fc_teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

static const float fc_x[4] = {1.0f, -2.0f, 3.5f, 0.25f};

static plumb_tensor *fc_x_tensor(void)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t dims[1] = {4};
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 1, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, fc_x, sizeof fc_x);
    return t;
}

static plumb_tensor *fc_scalar(plumb_dtype dt, int64_t v)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(dt, 0, NULL, 0, &d);
    assert_non_null(t);
    if (dt == PLUMB_I1)
        *(uint8_t *)t->data = (uint8_t)(v != 0);
    else
        *(int32_t *)t->data = (int32_t)v;
    return t;
}

static plumb_tensor *fc_f32(float v)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F32, 0, NULL, 0, &d);
    assert_non_null(t);
    memcpy(t->data, &v, sizeof v);
    return t;
}

/* rt_fuse at level 2 accepts @main, then src's single output on the
 * reference is the nwant f32 values want (bitwise; NULL: not checked by
 * hand) and on the runtime the reference's bits. */
static void fc_check_n(const char *src, plumb_tensor *const *in, uint32_t n, const float *want, int nwant)
{
    ir_module *m = rt_parse(src);
    rt_check_fuses(m, src);
    plumb_tensor *ref[RT_MAX_OUT] = {NULL};
    uint32_t no = rt_ref(m, in, n, ref);
    assert_int_equal(no, 1);
    for (int i = 0; want && i < nwant; i++) {
        assert_int_equal(plumb_tensor_numel(ref[0]), nwant);
        float r;
        memcpy(&r, (const uint8_t *)ref[0]->data + 4 * i, 4);
        if (memcmp(&r, &want[i], 4) != 0)
            fprintf(stderr, "reference element %d: %a, by hand %a\n%s", i, (double)r, (double)want[i], src);
        assert_memory_equal(&r, &want[i], 4);
    }
    rt_check_runtime_at(m, src, 2, PLUMB_ISA_PORTABLE, in, n, ref, no, false);
    rt_outs_free(ref, no);
    ir_module_free(m);
}

static void fc_check(const char *src, plumb_tensor *const *in, uint32_t n, const float *want)
{
    fc_check_n(src, in, n, want, 4);
}

/* The fuzzer's finding: negate, an if whose branches read the negation,
 * and an add of both. n = -x; true: n + n = -2x; false: n + n*n. */
static void test_if_captures_producer(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n"
        "  %n = stablehlo.negate %x : tensor<4xf32>\n"
        "  %r = \"stablehlo.if\"(%p) ({\n"
        "    stablehlo.return %n : tensor<4xf32>\n"
        "  }, {\n"
        "    %m = stablehlo.multiply %n, %n : tensor<4xf32>\n"
        "    stablehlo.return %m : tensor<4xf32>\n"
        "  }) : (tensor<i1>) -> tensor<4xf32>\n"
        "  %s = stablehlo.add %n, %r : tensor<4xf32>\n"
        "  return %s : tensor<4xf32>\n}\n";
    static const float want_t[4] = {-2.0f, 4.0f, -7.0f, -0.5f};
    static const float want_f[4] = {0.0f, 6.0f, 8.75f, -0.1875f};
    for (int p = 0; p < 2; p++) {
        plumb_tensor *in[2] = {fc_x_tensor(), fc_scalar(PLUMB_I1, p)};
        fc_check(src, in, 2, p ? want_t : want_f);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* case, the capture one op deeper (inside an op of a branch): n = -x;
 * branch 0: n + n = -2x; branch 1 (and out of range, 7): n + |n|. */
static void test_case_captures_producer(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>, %k: tensor<i32>) -> tensor<4xf32> {\n"
        "  %n = stablehlo.negate %x : tensor<4xf32>\n"
        "  %c = \"stablehlo.case\"(%k) ({\n"
        "    stablehlo.return %n : tensor<4xf32>\n"
        "  }, {\n"
        "    %a = stablehlo.abs %n : tensor<4xf32>\n"
        "    stablehlo.return %a : tensor<4xf32>\n"
        "  }) : (tensor<i32>) -> tensor<4xf32>\n"
        "  %s = stablehlo.add %n, %c : tensor<4xf32>\n"
        "  return %s : tensor<4xf32>\n}\n";
    static const float want0[4] = {-2.0f, 4.0f, -7.0f, -0.5f};
    static const float want1[4] = {0.0f, 4.0f, 0.0f, 0.0f};
    static const int32_t ks[3] = {0, 1, 7};
    for (int i = 0; i < 3; i++) {
        plumb_tensor *in[2] = {fc_x_tensor(), fc_scalar(PLUMB_I32, ks[i])};
        fc_check(src, in, 2, ks[i] == 0 ? want0 : want1);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* while whose body reads the negation: acc = x + n + n = -x after two
 * trips, and n + acc = -2x. */
static void test_while_captures_producer(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
        "  %two = stablehlo.constant dense<2> : tensor<i32>\n"
        "  %n = stablehlo.negate %x : tensor<4xf32>\n"
        "  %w:2 = stablehlo.while(%i = %z, %acc = %x) : tensor<i32>, tensor<4xf32>\n"
        "  cond {\n"
        "    %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n"
        "    %i1 = stablehlo.add %i, %one : tensor<i32>\n"
        "    %a1 = stablehlo.add %acc, %n : tensor<4xf32>\n"
        "    stablehlo.return %i1, %a1 : tensor<i32>, tensor<4xf32>\n"
        "  }\n"
        "  %s = stablehlo.add %n, %w#1 : tensor<4xf32>\n"
        "  return %s : tensor<4xf32>\n}\n";
    static const float want[4] = {-2.0f, 4.0f, -7.0f, -0.5f};
    plumb_tensor *in[1] = {fc_x_tensor()};
    fc_check(src, in, 1, want);
    plumb_tensor_free(in[0]);
}

/* A longer fusible chain around the if: n = -x, e = n * n (fusible with n),
 * the branch reads e; t = e + r joins the chain only if nothing closes a
 * cycle. true: e + e = 2x^2; false: e + n = x^2 - x. */
static void test_chain_around_if(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n"
        "  %n = stablehlo.negate %x : tensor<4xf32>\n"
        "  %e = stablehlo.multiply %n, %n : tensor<4xf32>\n"
        "  %r = \"stablehlo.if\"(%p) ({\n"
        "    stablehlo.return %e : tensor<4xf32>\n"
        "  }, {\n"
        "    stablehlo.return %n : tensor<4xf32>\n"
        "  }) : (tensor<i1>) -> tensor<4xf32>\n"
        "  %t = stablehlo.add %e, %r : tensor<4xf32>\n"
        "  return %t : tensor<4xf32>\n}\n";
    static const float want_t[4] = {2.0f, 8.0f, 24.5f, 0.125f};
    static const float want_f[4] = {0.0f, 6.0f, 8.75f, -0.1875f};
    for (int p = 0; p < 2; p++) {
        plumb_tensor *in[2] = {fc_x_tensor(), fc_scalar(PLUMB_I1, p)};
        fc_check(src, in, 2, p ? want_t : want_f);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* The if program of test_if_captures_producer on random f32 values
 * (specials included) of shapes spanning several tiles and, on 2
 * threads, several chunks: the runtime equals the reference bit for bit
 * for both branches. */
static void test_if_capture_random_shapes(void **state)
{
    (void)state;
    static const int64_t shapes[3][2] = {{7, 13}, {3, 1500}, {5, 4000}};
    for (int s = 0; s < 3; s++) {
        char ty[64], src[1024];
        rt_ty(ty, sizeof ty, PLUMB_F32, 2, shapes[s]);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%p: tensor<i1>) -> %s {\n"
                 "  %%n = stablehlo.negate %%x : %s\n"
                 "  %%r = \"stablehlo.if\"(%%p) ({\n"
                 "    stablehlo.return %%n : %s\n"
                 "  }, {\n"
                 "    %%m = stablehlo.multiply %%n, %%n : %s\n"
                 "    stablehlo.return %%m : %s\n"
                 "  }) : (tensor<i1>) -> %s\n"
                 "  %%a = stablehlo.add %%n, %%r : %s\n"
                 "  %%t = stablehlo.multiply %%a, %%x : %s\n"
                 "  return %%t : %s\n}\n",
                 ty, ty, ty, ty, ty, ty, ty, ty, ty, ty);
        for (int p = 0; p < 2; p++) {
            plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, shapes[s], true), fc_scalar(PLUMB_I1, p)};
            fc_check(src, in, 2, NULL);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
        }
    }
}

/* A map body reading a rank-0 negation: ns = -s, m = x * ns, and
 * ns + m = -s (1 + x): x = 3, s = 0.5 give -2. */
static void test_map_captures_producer(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<f32>, %s: tensor<f32>) -> tensor<f32> {\n"
        "  %ns = stablehlo.negate %s : tensor<f32>\n"
        "  %m = \"stablehlo.map\"(%x) <{dimensions = array<i64>}> ({\n"
        "  ^bb0(%a: tensor<f32>):\n"
        "    %b = stablehlo.multiply %a, %ns : tensor<f32>\n"
        "    stablehlo.return %b : tensor<f32>\n"
        "  }) : (tensor<f32>) -> tensor<f32>\n"
        "  %t = stablehlo.add %ns, %m : tensor<f32>\n"
        "  return %t : tensor<f32>\n}\n";
    static const float want[1] = {-2.0f};
    plumb_tensor *in[2] = {fc_f32(3.0f), fc_f32(0.5f)};
    fc_check_n(src, in, 2, want, 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* The capture two regions deep (an op after a map inside a case branch
 * reads ns = -s): with s = x, the branch gives 2x * -x and the add
 * -x - 2x^2. */
static void test_nested_capture(void **state)
{
    (void)state;
    const char *src =
        "func.func @main(%x: tensor<4xf32>, %s: tensor<4xf32>, %k: tensor<i32>) -> tensor<4xf32> {\n"
        "  %ns = stablehlo.negate %s : tensor<4xf32>\n"
        "  %e = \"stablehlo.case\"(%k) ({\n"
        "    %m = \"stablehlo.map\"(%x) <{dimensions = array<i64: 0>}> ({\n"
        "    ^bb0(%a: tensor<f32>):\n"
        "      %b = stablehlo.add %a, %a : tensor<f32>\n"
        "      stablehlo.return %b : tensor<f32>\n"
        "    }) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    %p = stablehlo.multiply %m, %ns : tensor<4xf32>\n"
        "    stablehlo.return %p : tensor<4xf32>\n"
        "  }) : (tensor<i32>) -> tensor<4xf32>\n"
        "  %t = stablehlo.add %ns, %e : tensor<4xf32>\n"
        "  return %t : tensor<4xf32>\n}\n";
    static const float want[4] = {-3.0f, -6.0f, -28.0f, -0.375f};
    plumb_tensor *in[3] = {fc_x_tensor(), fc_x_tensor(), fc_scalar(PLUMB_I32, 0)};
    fc_check(src, in, 3, want);
    for (int i = 0; i < 3; i++)
        plumb_tensor_free(in[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_captures_producer),
        cmocka_unit_test(test_case_captures_producer),
        cmocka_unit_test(test_while_captures_producer),
        cmocka_unit_test(test_chain_around_if),
        cmocka_unit_test(test_if_capture_random_shapes),
        cmocka_unit_test(test_map_captures_producer),
        cmocka_unit_test(test_nested_capture),
    };
    return cmocka_run_group_tests(tests, NULL, fc_teardown);
}
