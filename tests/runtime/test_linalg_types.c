/* triangular_solve and cholesky on complex<f32>/complex<f64> and the small
 * float formats (ref/linalg.c, runtime/k_linalg.c, docs/spec/linalg.md):
 * hand-derived values on the reference and on the runtime (every ISA level,
 * 1 and 2 threads), and the certification bounds
 * (conformance/check_linalg.c) rejecting the two classic complex mistakes,
 * a factor without conjugates and an ADJOINT solve run as TRANSPOSE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rt_test.h"
#include "plumb/fp8.h"
#include "../../conformance/linalg_bound.h"

static plumb_tensor *c64_tensor(uint32_t rank, const int64_t *dims, const float *re_im)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_C64, rank, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, re_im, t->nbytes);
    return t;
}

static plumb_tensor *small_tensor(plumb_dtype ty, uint32_t rank, const int64_t *dims, const double *v)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(ty, rank, dims, 0, &d);
    assert_non_null(t);
    for (uint64_t i = 0; i < plumb_tensor_numel(t); i++)
        plumb_store_bits(ty, t->data, i, plumb_f64_to_small(plumb_fpfmt_get(ty), v[i]));
    return t;
}

/* Runs src on the reference and on the runtime (every ISA level, 1 and 2
 * threads) and checks output 0 holds exactly the bytes of want. */
static void expect_bytes(const char *src, plumb_tensor *const *in, uint32_t n, const void *want, size_t nbytes)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *out[RT_MAX_OUT];
    uint32_t no = rt_ref(m, in, n, out);
    assert_int_equal(no, 1);
    assert_int_equal(out[0]->nbytes, nbytes);
    assert_memory_equal(out[0]->data, want, nbytes);
    rt_outs_free(out, no);
    for (int isa = PLUMB_ISA_PORTABLE; isa <= (int)rt_hw_isa(); isa++)
        for (uint32_t th = 1; th <= 2; th++) {
            rt_exec_on(m, (plumb_isa)isa, th, in, n, out, 1);
            assert_memory_equal(out[0]->data, want, nbytes);
            rt_outs_free(out, 1);
        }
    ir_module_free(m);
}

#define CHOL_C64(lower)                                                                                     \
    "func.func @main(%a: tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>> {\n"                      \
    "  %r = \"stablehlo.cholesky\"(%a) <{lower = " lower "}> : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>\n" \
    "  return %r : tensor<2x2xcomplex<f32>>\n}\n"

/* A = [[4, 2+2i], [2-2i, 6]] (Hermitian, positive definite): l00 = sqrt(4)
 * = 2, l10 = a10 / l00 = (2-2i)/2 = 1-i, l11 = sqrt(6 - |1-i|^2) =
 * sqrt(4) = 2, so L = [[2, 0], [1-i, 2]] and U = L^H = [[2, 1+i], [0, 2]]
 * (L L^H: (1,0) = (1-i) 2 = a10, (1,1) = 2 + 4 = 6). The triangle not read
 * holds junk and the diagonal an imaginary part, neither of which may
 * change the factor; the opposite triangle of the result is +0. */
static void test_complex_cholesky_2x2(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2};
    float lo_in[8] = {4, 5, 99, -7, 2, -2, 6, -3};   /* a01 junk, diagonal imaginary parts not read */
    float up_in[8] = {4, 5, 2, 2, 99, -7, 6, -3};    /* a10 junk */
    float L[8] = {2, 0, 0, 0, 1, -1, 2, 0}, U[8] = {2, 0, 1, 1, 0, 0, 2, 0};
    plumb_tensor *a = c64_tensor(2, d2, lo_in);
    expect_bytes(CHOL_C64("true"), &a, 1, L, sizeof L);
    plumb_tensor_free(a);
    a = c64_tensor(2, d2, up_in);
    expect_bytes(CHOL_C64("false"), &a, 1, U, sizeof U);
    plumb_tensor_free(a);
}

/* Not positive definite: [[1, 0], [0, -1]] has pivot -1 at (1,1): every
 * element of the result, both triangles and both components, is NaN, as
 * for the real types (docs/spec/linalg.md). */
static void test_complex_cholesky_not_pd(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2};
    float in[8] = {1, 0, 0, 0, 0, 0, -1, 0};
    plumb_tensor *a = c64_tensor(2, d2, in);
    ir_module *m = rt_parse(CHOL_C64("true"));
    plumb_tensor *out[RT_MAX_OUT];
    assert_int_equal(rt_ref(m, &a, 1, out), 1);
    for (int i = 0; i < 8; i++) assert_true(isnan(((float *)out[0]->data)[i]));
    rt_outs_free(out, 1);
    rt_exec_on(m, rt_hw_isa(), 1, &a, 1, out, 1);
    for (int i = 0; i < 8; i++) assert_true(isnan(((float *)out[0]->data)[i]));
    rt_outs_free(out, 1);
    ir_module_free(m);
    plumb_tensor_free(a);
}

#define TRSM_C64(left, lower, tr, unit, bshape)                                                               \
    "func.func @main(%a: tensor<2x2xcomplex<f32>>, %b: tensor<" bshape "xcomplex<f32>>) -> tensor<" bshape        \
    "xcomplex<f32>> {\n"                                                                                        \
    "  %r = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = " left ", lower = " lower                       \
    ", transpose_a = #stablehlo<transpose " tr ">, unit_diagonal = " unit "}> : (tensor<2x2xcomplex<f32>>, "       \
    "tensor<" bshape "xcomplex<f32>>) -> tensor<" bshape "xcomplex<f32>>\n"                                       \
    "  return %r : tensor<" bshape "xcomplex<f32>>\n}\n"

/* a = [[2, junk], [1+i, 1]], lower, left side.
 * ADJOINT: op(a) = conj(a)^T = [[2, 1-i], [0, 1]]; with b = [3-i, 2i]:
 * x1 = 2i, x0 = (3-i - (1-i)(2i))/2 = (3-i - (2+2i))/2 = (1-3i)/2.
 * TRANSPOSE: op(a) = [[2, 1+i], [0, 1]]: x1 = 2i, x0 = (3-i - (1+i)(2i))/2
 * = (3-i - (-2+2i))/2 = (5-3i)/2 (the conjugate makes the difference).
 * Right side, ADJOINT: x op(a) = b with b = [2+2i, 3]: x0 2 = 2+2i gives
 * x0 = 1+i, x0 (1-i) + x1 = 3 gives x1 = 3 - 2 = 1.
 * Unit diagonal, NO_TRANSPOSE, a = [[5i, 0], [2-i, 7]] read as [[1, 0],
 * [2-i, 1]], b = [1, 1]: x0 = 1, x1 = 1 - (2-i) = -1+i. */
static void test_complex_trsm_modes(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2}, dcol[2] = {2, 1}, drow[2] = {1, 2};
    float av[8] = {2, 0, 42, 42, 1, 1, 1, 0}, bcol[4] = {3, -1, 0, 2}, brow[4] = {2, 2, 3, 0};
    float x_adj[4] = {0.5f, -1.5f, 0, 2}, x_tr[4] = {2.5f, -1.5f, 0, 2}, x_right[4] = {1, 1, 1, 0};
    plumb_tensor *in[2] = {c64_tensor(2, d2, av), c64_tensor(2, dcol, bcol)};
    expect_bytes(TRSM_C64("true", "true", "ADJOINT", "false", "2x1"), in, 2, x_adj, sizeof x_adj);
    expect_bytes(TRSM_C64("true", "true", "TRANSPOSE", "false", "2x1"), in, 2, x_tr, sizeof x_tr);
    plumb_tensor_free(in[1]);
    in[1] = c64_tensor(2, drow, brow);
    expect_bytes(TRSM_C64("false", "true", "ADJOINT", "false", "1x2"), in, 2, x_right, sizeof x_right);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    float au[8] = {0, 5, 0, 0, 2, -1, 7, 0}, b1[4] = {1, 0, 1, 0}, x_unit[4] = {1, 0, -1, 1};
    in[0] = c64_tensor(2, d2, au);
    in[1] = c64_tensor(2, dcol, b1);
    expect_bytes(TRSM_C64("true", "true", "NO_TRANSPOSE", "true", "2x1"), in, 2, x_unit, sizeof x_unit);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* f8E4M3FN (3 fraction bits): cholesky of [[2, 1], [1, 2]] computed wide
 * and rounded once: sqrt(2) = 1.414 -> 1.375 (0x3b; neighbours 1.375 and
 * 1.5), 1/sqrt(2) = 0.7071 -> 0.6875 (0x33; neighbours 0.6875, 0.75),
 * sqrt(3/2) = 1.2247 -> 1.25 (0x3a). A format-precision computation would
 * divide by the rounded 1.375 and get 0.7273 -> 0.75 (0x34) instead. */
static void test_fp8_cholesky_rounds_once(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2};
    double av[4] = {2, 1, 1, 2};
    uint8_t want[4] = {0x3b, 0x00, 0x33, 0x3a};
    plumb_tensor *a = small_tensor(PLUMB_F8E4M3FN, 2, d2, av);
    expect_bytes("func.func @main(%a: tensor<2x2xf8E4M3FN>) -> tensor<2x2xf8E4M3FN> {\n"
                 "  %r = stablehlo.cholesky %a, lower = true : tensor<2x2xf8E4M3FN>\n"
                 "  return %r : tensor<2x2xf8E4M3FN>\n}\n",
                 &a, 1, want, sizeof want);
    plumb_tensor_free(a);
}

/* f4E2M1FN (values 0, 0.5, 1, 1.5, 2, 3, 4, 6): [[3]] x = [[1]] gives 1/3,
 * nearer 0.5 (pattern 0x1) than 0; and cholesky's NaN for a matrix that is
 * not positive definite becomes +0, the format having no NaN (convert's
 * rule). f8E8M0FNU: [[2]] x = [[8]] is 4 = 2^2, pattern 127 + 2 = 0x81. */
static void test_small_formats(void **state)
{
    (void)state;
    int64_t d1[2] = {1, 1}, d2[2] = {2, 2};
    double three = 3, one = 1, npd[4] = {1, 0, 0, -1}, two = 2, eight = 8;
    plumb_tensor *in[2] = {small_tensor(PLUMB_F4E2M1FN, 2, d1, &three), small_tensor(PLUMB_F4E2M1FN, 2, d1, &one)};
    uint8_t third = 0x1, zeros[4] = {0, 0, 0, 0}, four = 0x81;
    expect_bytes("func.func @main(%a: tensor<1x1xf4E2M1FN>, %b: tensor<1x1xf4E2M1FN>) -> tensor<1x1xf4E2M1FN> {\n"
                 "  %r = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = true, transpose_a = "
                 "#stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<1x1xf4E2M1FN>, "
                 "tensor<1x1xf4E2M1FN>) -> tensor<1x1xf4E2M1FN>\n"
                 "  return %r : tensor<1x1xf4E2M1FN>\n}\n",
                 in, 2, &third, 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    in[0] = small_tensor(PLUMB_F4E2M1FN, 2, d2, npd);
    expect_bytes("func.func @main(%a: tensor<2x2xf4E2M1FN>) -> tensor<2x2xf4E2M1FN> {\n"
                 "  %r = stablehlo.cholesky %a, lower = true : tensor<2x2xf4E2M1FN>\n"
                 "  return %r : tensor<2x2xf4E2M1FN>\n}\n",
                 in, 1, zeros, sizeof zeros);
    plumb_tensor_free(in[0]);
    in[0] = small_tensor(PLUMB_F8E8M0FNU, 2, d1, &two);
    in[1] = small_tensor(PLUMB_F8E8M0FNU, 2, d1, &eight);
    expect_bytes("func.func @main(%a: tensor<1x1xf8E8M0FNU>, %b: tensor<1x1xf8E8M0FNU>) -> tensor<1x1xf8E8M0FNU> {\n"
                 "  %r = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = false, lower = false, transpose_a = "
                 "#stablehlo<transpose ADJOINT>, unit_diagonal = false}> : (tensor<1x1xf8E8M0FNU>, "
                 "tensor<1x1xf8E8M0FNU>) -> tensor<1x1xf8E8M0FNU>\n"
                 "  return %r : tensor<1x1xf8E8M0FNU>\n}\n",
                 in, 2, &four, 1);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* The complex bounds reject the two classic mistakes on the hand example:
 * the cholesky factor [[2, 0], [1+i, 2]] (l10 not conjugated) leaves a
 * residual |(1+i) 2 - (2-2i)| = 4 at (1,0), far above its bound (about
 * gamma(6) 10 for complex<f32>); the TRANSPOSE answer (5-3i)/2 to the
 * ADJOINT solve is 2 away from (1-3i)/2; the right answers pass with budget 0. */
static void test_complex_bounds_reject(void **state)
{
    (void)state;
    int64_t d2[2] = {2, 2}, dcol[2] = {2, 1};
    float ain[8] = {4, 0, 2, 2, 2, -2, 6, 0}, L[8] = {2, 0, 0, 0, 1, -1, 2, 0}, Lbad[8] = {2, 0, 0, 0, 1, 1, 2, 0};
    plumb_tensor *A = c64_tensor(2, d2, ain), *G = c64_tensor(2, d2, L), *B = c64_tensor(2, d2, Lbad);
    conf_linalg_verdict v;
    conf_linalg_chol_judge(true, A, G, G, &v);
    assert_true(v.budget == 0.0);
    conf_linalg_chol_judge(true, A, B, G, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 2);
    plumb_tensor_free(A);
    plumb_tensor_free(G);
    plumb_tensor_free(B);
    float av[8] = {2, 0, 0, 0, 1, 1, 1, 0}, bcol[4] = {3, -1, 0, 2};
    float x_adj[4] = {0.5f, -1.5f, 0, 2}, x_tr[4] = {2.5f, -1.5f, 0, 2}, x_ulp[4] = {0.5f, -1.5f + 0x1p-23f, 0, 2};
    plumb_tensor *Ta = c64_tensor(2, d2, av), *Tb = c64_tensor(2, dcol, bcol), *W = c64_tensor(2, dcol, x_adj),
                 *Bad = c64_tensor(2, dcol, x_tr), *Ulp = c64_tensor(2, dcol, x_ulp);
    ir_attrs at;
    memset(&at, 0, sizeof at);
    at.left_side = true;
    at.lower = true;
    at.transpose_a = IR_TRANSPOSE_ADJOINT;
    conf_linalg_trsm_judge(&at, Ta, Tb, Bad, W, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 0);
    conf_linalg_trsm_judge(&at, Ta, Tb, Ulp, W, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_trsm_judge(&at, Ta, Tb, W, W, &v);
    assert_true(v.budget == 0.0);
    plumb_tensor_free(Ta);
    plumb_tensor_free(Tb);
    plumb_tensor_free(W);
    plumb_tensor_free(Bad);
    plumb_tensor_free(Ulp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complex_cholesky_2x2),
        cmocka_unit_test(test_complex_cholesky_not_pd),
        cmocka_unit_test(test_complex_trsm_modes),
        cmocka_unit_test(test_fp8_cholesky_rounds_once),
        cmocka_unit_test(test_small_formats),
        cmocka_unit_test(test_complex_bounds_reject),
    };
    (void)rt_ty;   /* rt_test.h helpers these tests do not need */
    (void)rt_rand_tensor;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
