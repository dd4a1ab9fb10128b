/* The f8E8M0FNU judging of batch norm, triangular_solve and cholesky
 * (conformance/e8m0_judge.h, check_batchnorm.c, check_linalg.c): the
 * admitted patterns are the roundings into the format of the wide result's
 * enclosure. Every expected pattern is worked by hand from the format's
 * rule (docs/spec/types.md, "Conversions": 2^e is pattern 127 + e; below
 * 2^-127, zero included, 0x00; negative and from 1.5 * 2^127 on, the NaN
 * 0xFF; a tie between 2^e and 2^(e+1) up). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "../../conformance/batchnorm_bound.h"
#include "../../conformance/e8m0_judge.h"
#include "../../conformance/linalg_bound.h"

static plumb_tensor *e8(uint32_t rank, const int64_t *dims, const uint8_t *pat)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *t = plumb_tensor_new(PLUMB_F8E8M0FNU, rank, dims, 0, &d);
    assert_non_null(t);
    memcpy(t->data, pat, t->nbytes);
    return t;
}

/* The pattern ranges of hand intervals: 3.2 is above the midpoint 3 of 2
 * and 4 (only 4, 0x81); [2.9, 3.1] reaches both; an exact tie 3 admits both
 * too (its ends are widened by 2^-50 against their conversion); [-0.5, 0.25] the NaN and 2^-127 (0x00)
 * up to 2^-2 (0x7d); from 1.6 * 2^127 only the NaN; a NaN end only the
 * NaN; a negative interval only the NaN. */
static void test_admits(void **state)
{
    (void)state;
    uint32_t lo, hi;
    assert_true(conf_e8m0_admits(0x81, 3.2L, 3.2L, &lo, &hi));
    assert_false(conf_e8m0_admits(0x80, 3.2L, 3.2L, &lo, &hi));
    assert_false(conf_e8m0_admits(0xFF, 3.2L, 3.2L, &lo, &hi));
    assert_true(conf_e8m0_admits(0x80, 3.0L, 3.0L, &lo, &hi) && conf_e8m0_admits(0x81, 3.0L, 3.0L, &lo, &hi));
    assert_true(conf_e8m0_admits(0x80, 2.9L, 3.1L, &lo, &hi));
    assert_true(conf_e8m0_admits(0x81, 2.9L, 3.1L, &lo, &hi));
    assert_int_equal(lo, 0x80);
    assert_int_equal(hi, 0x81);
    assert_true(conf_e8m0_admits(0xFF, -0.5L, 0.25L, &lo, &hi));
    assert_true(conf_e8m0_admits(0x00, -0.5L, 0.25L, &lo, &hi));
    assert_true(conf_e8m0_admits(0x7D, -0.5L, 0.25L, &lo, &hi));
    assert_false(conf_e8m0_admits(0x7E, -0.5L, 0.25L, &lo, &hi));
    assert_true(conf_e8m0_admits(0xFF, 1.6L * 0x1p127L, INFINITY, &lo, &hi));
    assert_false(conf_e8m0_admits(0xFE, 1.6L * 0x1p127L, INFINITY, &lo, &hi));
    assert_true(conf_e8m0_admits(0xFF, NAN, NAN, &lo, &hi));
    assert_false(conf_e8m0_admits(0x7F, NAN, NAN, &lo, &hi));
    assert_true(conf_e8m0_admits(0xFF, -2.0L, -1.0L, &lo, &hi));
    assert_false(conf_e8m0_admits(0x00, -2.0L, -1.0L, &lo, &hi));
}

/* batch_norm_inference, one feature x = [1, 8], scale 1, offset 1, mean 2,
 * variance 1, eps 2^-40: y = (x - 2) / sqrt(1 + 2^-40) + 1 is about 2^-41
 * (within the bound of 0: the NaN or any small power of two) and 7 (to
 * nearest 8, 0x82; toward zero 4, 0x81, which fails). */
static void test_batch_norm(void **state)
{
    (void)state;
    int64_t dx[2] = {2, 1}, df = 1;
    const uint8_t xv[2] = {0x7F, 0x82}, one = 0x7F, two = 0x80;
    plumb_tensor *x = e8(2, dx, xv), *sc = e8(1, &df, &one), *of = e8(1, &df, &one), *m = e8(1, &df, &two),
                 *var = e8(1, &df, &one);
    const plumb_tensor *in[5] = {x, sc, of, m, var};
    const uint8_t want_v[2] = {0x56, 0x82}, low_v[2] = {0x56, 0x81}, nan_v[2] = {0xFF, 0x82};
    plumb_tensor *want = e8(2, dx, want_v), *low = e8(2, dx, low_v), *nan0 = e8(2, dx, nan_v);
    conf_bn_verdict v;
    conf_bn_judge(PLUMB_OP_BATCH_NORM_INFERENCE, 0x1p-40, 1, in, 0, want, want, &v);
    assert_true(v.budget <= 1.0);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_INFERENCE, 0x1p-40, 1, in, 0, nan0, want, &v);
    assert_true(v.budget <= 1.0);
    conf_bn_judge(PLUMB_OP_BATCH_NORM_INFERENCE, 0x1p-40, 1, in, 0, low, want, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 1);
    assert_non_null(strstr(v.reason, "patterns 0x82..0x82"));
    plumb_tensor *ts[] = {x, sc, of, m, var, want, low, nan0};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) plumb_tensor_free(ts[i]);
}

/* triangular_solve, lower T = [[2, NaN], [1, 4]] (the NaN unread), b =
 * [4, 16]: x = [2, 3.5], 3.5 to nearest 4 (0x81); 2 (0x80) fails. With b =
 * [4, 1], x1 = -1/4: only the NaN. */
static void test_trsm(void **state)
{
    (void)state;
    int64_t da[2] = {2, 2}, db[2] = {2, 1};
    const uint8_t av[4] = {0x80, 0xFF, 0x7F, 0x81}, bv[2] = {0x81, 0x83}, wv[2] = {0x80, 0x81}, lv[2] = {0x80, 0x80};
    const uint8_t bneg[2] = {0x81, 0x7F}, wneg[2] = {0x80, 0xFF}, gneg[2] = {0x80, 0x7D};
    plumb_tensor *A = e8(2, da, av), *B = e8(2, db, bv), *W = e8(2, db, wv), *L = e8(2, db, lv);
    plumb_tensor *Bn = e8(2, db, bneg), *Wn = e8(2, db, wneg), *Gn = e8(2, db, gneg);
    ir_attrs at;
    memset(&at, 0, sizeof at);
    at.left_side = true;
    at.lower = true;
    at.transpose_a = IR_TRANSPOSE_NO_TRANSPOSE;
    conf_linalg_verdict v;
    conf_linalg_trsm_judge(&at, A, B, W, W, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_trsm_judge(&at, A, B, L, W, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 1);
    conf_linalg_trsm_judge(&at, A, Bn, Wn, Wn, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_trsm_judge(&at, A, Bn, Gn, Wn, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 1);
    plumb_tensor *ts[] = {A, B, W, L, Bn, Wn, Gn};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) plumb_tensor_free(ts[i]);
}

/* cholesky, lower: [[4, 2], [2, 4]] has L = [[2, 0], [1, sqrt 3]], sqrt 3
 * to nearest 2 (0x80); 1 (0x7f) fails. [[1, 2], [2, 1]] is not positive
 * definite (pivot 1 - 4 < 0): every element of the triangle must be NaN. */
static void test_cholesky(void **state)
{
    (void)state;
    int64_t d[2] = {2, 2};
    const uint8_t av[4] = {0x81, 0x80, 0x80, 0x81}, wv[4] = {0x80, 0x00, 0x7F, 0x80}, lv[4] = {0x80, 0x00, 0x7F, 0x7F};
    const uint8_t npd[4] = {0x7F, 0x80, 0x80, 0x7F}, wn[4] = {0xFF, 0xFF, 0xFF, 0xFF}, gn[4] = {0x7F, 0xFF, 0x80, 0xFF};
    plumb_tensor *A = e8(2, d, av), *W = e8(2, d, wv), *L = e8(2, d, lv), *An = e8(2, d, npd), *Wn = e8(2, d, wn),
                 *Gn = e8(2, d, gn);
    conf_linalg_verdict v;
    conf_linalg_chol_judge(true, A, W, W, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_chol_judge(true, A, L, W, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 3);
    conf_linalg_chol_judge(true, An, Wn, Wn, &v);
    assert_true(v.budget <= 1.0);
    conf_linalg_chol_judge(true, An, Gn, Wn, &v);
    assert_true(v.budget > 1.0);
    assert_int_equal(v.idx, 0);
    plumb_tensor *ts[] = {A, W, L, An, Wn, Gn};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) plumb_tensor_free(ts[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admits),
        cmocka_unit_test(test_batch_norm),
        cmocka_unit_test(test_trsm),
        cmocka_unit_test(test_cholesky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
