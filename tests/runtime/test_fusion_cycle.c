/* Fusion of two reductions of one input whose results are read across:
 * r1 = reduce max, r2 = reduce add, a consumer of both joins r1's row group,
 * and a second consumer of both then must not join r2's group: r1's group
 * already reads r2, so r2's group reading r1 would make the two groups
 * wait on each other (rt_fuse used to refuse such functions with "fusion
 * of @main produced a cyclic schedule": its cycle check walked ops, not
 * groups, and skipped ops placed before the groups' first member, which
 * r1 is). Each program runs on the reference and on the runtime at opt
 * level 2 (where fusion runs) at every ISA level the CPU has, on 1 and 2
 * threads; the reference's outputs are first checked against hand-derived
 * values, then the runtime's against the reference bit for bit. Inputs
 * are exactly representable in f32, f16 and bf16 and every sum is exact,
 * so the hand values hold in each type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../runtime/rt_passes.h"
#include "runtime/rt_test.h"

static int fy_teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

static const char *const fy_types[3] = {"f32", "f16", "bf16"};
static const plumb_dtype fy_dtypes[3] = {PLUMB_F32, PLUMB_F16, PLUMB_BF16};
static const char *const fy_ninf[3] = {"0xFF800000", "0xFC00", "0xFF80"};   /* -inf */

/* A tensor of dtype dt and the given dims holding vals (each exactly
 * representable in dt: the bits are written by hand per type). */
static plumb_tensor *fy_tensor(plumb_dtype dt, uint32_t rank, const int64_t *dims, const double *vals)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(dt, rank, dims, 0, &d);
    assert_non_null(t);
    size_t n = (size_t)plumb_tensor_numel(t);
    for (size_t i = 0; i < n; i++) {
        float f = (float)vals[i];
        uint32_t u;
        memcpy(&u, &f, 4);
        uint64_t bits = u;
        if (dt == PLUMB_BF16) {
            assert_int_equal(u & 0xffffu, 0);   /* exact in bf16 */
            bits = u >> 16;
        } else if (dt == PLUMB_F16) {
            /* normal f32 with at most 10 fraction bits and exponent in f16's range */
            uint32_t e = (u >> 23) & 0xffu;
            assert_int_equal(u & 0x1fffu, 0);
            assert_true(f == 0.0f || (e >= 127 - 14 && e <= 127 + 15));
            bits = f == 0.0f ? (u >> 16) : (((u >> 16) & 0x8000u) | ((e - 112) << 10) | ((u >> 13) & 0x3ffu));
        }
        plumb_store_bits(dt, t->data, i, bits);
        assert_true(plumb_load_f64(dt, t->data, i) == vals[i]);
    }
    return t;
}

/* Replaces every "T" in tmpl by the type name ty and every "N" by
 * ninf, the type's -inf as a hex literal. */
static char *fy_subst(const char *tmpl, const char *ty, const char *ninf)
{
    size_t n = 0, lt = strlen(ty), ln = strlen(ninf);
    for (const char *p = tmpl; *p; p++)
        n += *p == 'T' ? lt : *p == 'N' ? ln : 1;
    char *s = malloc(n + 1);
    assert_non_null(s);
    char *o = s;
    for (const char *p = tmpl; *p; p++) {
        if (*p == 'T' || *p == 'N') {
            const char *r = *p == 'T' ? ty : ninf;
            size_t lr = *p == 'T' ? lt : ln;
            memcpy(o, r, lr);
            o += lr;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

/* rt_fuse at level 2 accepts @main; output k's element e on the reference
 * is want[k * per + e] (per elements each, compared as values: -inf and
 * the zeros' signs included; want NULL: not checked by hand), and on the
 * runtime the reference's bits. */
static void fy_check(const char *src, plumb_tensor *const *in, uint32_t n, uint32_t n_out, const double *want,
                     uint32_t per)
{
    ir_module *m = rt_parse(src);
    rt_check_fuses(m, src);
    plumb_tensor *ref[RT_MAX_OUT] = {NULL};
    uint32_t no = rt_ref(m, in, n, ref);
    assert_int_equal(no, n_out);
    for (uint32_t k = 0; want && k < no; k++) {
        assert_int_equal(plumb_tensor_numel(ref[k]), per);
        for (uint32_t e = 0; e < per; e++) {
            double r = plumb_load_f64(ref[k]->dtype, ref[k]->data, e), w = want[k * per + e];
            if (r != w || signbit(r) != signbit(w))
                fprintf(stderr, "reference output %u element %u: %a, by hand %a\n%s", k, e, r, w, src);
            assert_true(r == w && signbit(r) == signbit(w));
        }
    }
    rt_check_runtime_at(m, src, 2, PLUMB_ISA_PORTABLE, in, n, ref, no, false);
    rt_outs_free(ref, no);
    ir_module_free(m);
}

/* Runs tmpl (T: the element type, N: its -inf) in f32, f16 and bf16 on inputs x (of
 * dims xd) and y (a scalar). */
static void fy_all_types(const char *tmpl, uint32_t xr, const int64_t *xd, const double *x, double y,
                         uint32_t n_out, const double *want, uint32_t per)
{
    for (int t = 0; t < 3; t++) {
        char *src = fy_subst(tmpl, fy_types[t], fy_ninf[t]);
        plumb_tensor *in[2] = {fy_tensor(fy_dtypes[t], xr, xd, x), fy_tensor(fy_dtypes[t], 0, NULL, &y)};
        fy_check(src, in, 2, n_out, want, per);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
        free(src);
    }
}

static const int64_t fy_d2[1] = {2};
static const double fy_x2[2] = {1.5, -4.0};

/* The fuzzer's program: m = max(1.5, -4) = 1.5, s = 1.5 - 4 = -2.5,
 * v5 = m + s = -1, v6 = -2, v7 = s + m = -1, v9 = v5 + 0.25 = -0.75,
 * v10 = v9 + -inf = -inf. */
static void test_two_reductions_cross_read(void **state)
{
    (void)state;
    const char *tmpl =
        "func.func @main(%a0: tensor<2xT>, %a1: tensor<T>) -> (tensor<T>, tensor<T>, tensor<T>, tensor<T>, "
        "tensor<T>, tensor<T>, tensor<T>) {\n"
        "  %c1 = stablehlo.constant dense<N> : tensor<T>\n"
        "  %v2 = stablehlo.reduce(%a0 init: %c1) applies stablehlo.maximum across dimensions = [0] : "
        "(tensor<2xT>, tensor<T>) -> tensor<T>\n"
        "  %v3 = stablehlo.constant dense<0.0> : tensor<T>\n"
        "  %v4 = stablehlo.reduce(%a0 init: %v3) applies stablehlo.add across dimensions = [0] : "
        "(tensor<2xT>, tensor<T>) -> tensor<T>\n"
        "  %v5 = stablehlo.add %v2, %v4 : tensor<T>\n"
        "  %v6 = stablehlo.add %v5, %v5 : tensor<T>\n"
        "  %v7 = stablehlo.add %v4, %v2 : tensor<T>\n"
        "  %v9 = stablehlo.add %v5, %a1 : tensor<T>\n"
        "  %v10 = stablehlo.add %v9, %c1 : tensor<T>\n"
        "  return %v2, %v4, %v5, %v6, %v7, %v9, %v10 : tensor<T>, tensor<T>, tensor<T>, tensor<T>, "
        "tensor<T>, tensor<T>, tensor<T>\n}\n";
    static const double want[7] = {1.5, -2.5, -1.0, -2.0, -1.0, -0.75, -INFINITY};
    fy_all_types(tmpl, 1, fy_d2, fy_x2, 0.25, 7, want, 1);
}

/* The same with the reductions and consumers in another order: the sum
 * first, a reader of both joins it, then one reading max before sum. */
static void test_shuffled_order(void **state)
{
    (void)state;
    const char *tmpl =
        "func.func @main(%a0: tensor<2xT>, %a1: tensor<T>) -> (tensor<T>, tensor<T>, tensor<T>, tensor<T>, "
        "tensor<T>) {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<T>\n"
        "  %s = stablehlo.reduce(%a0 init: %z) applies stablehlo.add across dimensions = [0] : "
        "(tensor<2xT>, tensor<T>) -> tensor<T>\n"
        "  %n = stablehlo.constant dense<-8.0> : tensor<T>\n"
        "  %m = stablehlo.reduce(%a0 init: %n) applies stablehlo.maximum across dimensions = [0] : "
        "(tensor<2xT>, tensor<T>) -> tensor<T>\n"
        "  %u = stablehlo.add %s, %m : tensor<T>\n"
        "  %w = stablehlo.add %m, %s : tensor<T>\n"
        "  %q = stablehlo.add %w, %a1 : tensor<T>\n"
        "  %r = stablehlo.add %u, %q : tensor<T>\n"
        "  return %r, %q, %u, %w, %m : tensor<T>, tensor<T>, tensor<T>, tensor<T>, tensor<T>\n}\n";
    /* s = -2.5, m = 1.5, u = w = -1, q = -0.75, r = -1.75 */
    static const double want[5] = {-1.75, -0.75, -1.0, -1.0, 1.5};
    fy_all_types(tmpl, 1, fy_d2, fy_x2, 0.25, 5, want, 1);
}

static const int64_t fy_d22[2] = {2, 2};
static const double fy_x22[4] = {1.5, -4.0, 2.0, 0.5};

/* Rows of a 2x2 input, three reductions (max, sum, and the max of the
 * negation) each read by consumers of the others, some of which read
 * each other. Rows [1.5, -4], [2, 0.5]: m = [1.5, 2], s = [-2.5, 2.5],
 * k = max(-x) = [4, -0.5]; a = m + s = [-1, 4.5]; b = s * k = [-10, -1.25];
 * c = k + m = [5.5, 1.5]; e = a + b = [-11, 3.25]; f = c * s = [-13.75, 3.75];
 * g = e + 0.25 = [-10.75, 3.5]. */
static void test_three_reductions_many_consumers(void **state)
{
    (void)state;
    const char *tmpl =
        "func.func @main(%x: tensor<2x2xT>, %y: tensor<T>) -> (tensor<2xT>, tensor<2xT>, tensor<2xT>, "
        "tensor<2xT>, tensor<2xT>, tensor<2xT>) {\n"
        "  %lo = stablehlo.constant dense<-8.0> : tensor<T>\n"
        "  %m = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [1] : "
        "(tensor<2x2xT>, tensor<T>) -> tensor<2xT>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<T>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : "
        "(tensor<2x2xT>, tensor<T>) -> tensor<2xT>\n"
        "  %a = stablehlo.add %m, %s : tensor<2xT>\n"
        "  %nx = stablehlo.negate %x : tensor<2x2xT>\n"
        "  %k = stablehlo.reduce(%nx init: %lo) applies stablehlo.maximum across dimensions = [1] : "
        "(tensor<2x2xT>, tensor<T>) -> tensor<2xT>\n"
        "  %b = stablehlo.multiply %s, %k : tensor<2xT>\n"
        "  %c = stablehlo.add %k, %m : tensor<2xT>\n"
        "  %e = stablehlo.add %a, %b : tensor<2xT>\n"
        "  %f = stablehlo.multiply %c, %s : tensor<2xT>\n"
        "  %yb = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<T>) -> tensor<2xT>\n"
        "  %g = stablehlo.add %e, %yb : tensor<2xT>\n"
        "  return %a, %b, %c, %e, %f, %g : tensor<2xT>, tensor<2xT>, tensor<2xT>, tensor<2xT>, "
        "tensor<2xT>, tensor<2xT>\n}\n";
    static const double want[12] = {-1.0, 4.5,   -10.0, -1.25, 5.5,    1.5,
                                    -11.0, 3.25, -13.75, 3.75, -10.75, 3.5};
    fy_all_types(tmpl, 2, fy_d22, fy_x22, 0.25, 6, want, 2);
}

/* The fuzzer's shape of program over the rows of random f32 inputs of 1,
 * 37 and 1000 rows of 2 (several chunks on 2 threads): each row's sum is
 * one rounding on both backends, so the runtime equals the reference bit
 * for bit. */
static void test_random_rows(void **state)
{
    (void)state;
    static const int64_t shapes[3][2] = {{1, 2}, {37, 2}, {1000, 2}};
    for (int i = 0; i < 3; i++) {
        char xt[64], rt[64], src[2048];
        rt_ty(xt, sizeof xt, PLUMB_F32, 2, shapes[i]);
        rt_ty(rt, sizeof rt, PLUMB_F32, 1, shapes[i]);
        snprintf(src, sizeof src,
                 "func.func @main(%%x: %s, %%y: %s) -> (%s, %s, %s, %s, %s) {\n"
                 "  %%ni = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                 "  %%m = stablehlo.reduce(%%x init: %%ni) applies stablehlo.maximum across dimensions = [1] : "
                 "(%s, tensor<f32>) -> %s\n"
                 "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                 "  %%s = stablehlo.reduce(%%x init: %%z) applies stablehlo.add across dimensions = [1] : "
                 "(%s, tensor<f32>) -> %s\n"
                 "  %%a = stablehlo.add %%m, %%s : %s\n"
                 "  %%b = stablehlo.add %%a, %%a : %s\n"
                 "  %%c = stablehlo.add %%s, %%m : %s\n"
                 "  %%d = stablehlo.add %%a, %%y : %s\n"
                 "  return %%m, %%s, %%b, %%c, %%d : %s, %s, %s, %s, %s\n}\n",
                 xt, rt, rt, rt, rt, rt, rt, xt, rt, xt, rt, rt, rt, rt, rt, rt, rt, rt, rt, rt);
        plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, shapes[i], false),
                               rt_rand_tensor(PLUMB_F32, 1, shapes[i], false)};
        fy_check(src, in, 2, 5, NULL, 0);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_reductions_cross_read),
        cmocka_unit_test(test_shuffled_order),
        cmocka_unit_test(test_three_reductions_many_consumers),
        cmocka_unit_test(test_random_rows),
    };
    return cmocka_run_group_tests(tests, NULL, fy_teardown);
}
