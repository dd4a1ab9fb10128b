/* dot_general's algorithm helpers (ir/dotalg.c, docs/spec/dotalg.md), with
 * expected values derived by hand from the formats and from StableHLO's
 * list of known algorithms (stablehlo/dialect/Base.cpp,
 * getKnownDotAlgorithm). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/dotalg.h"

static ir_dot_algorithm alg(int l, int r, int c, int64_t n, bool imp)
{
    ir_dot_algorithm a = {true, imp, (int16_t)l, (int16_t)r, (int16_t)c, 1, 1, n};
    return a;
}

/* tf32 keeps 11 significant bits with f32's exponent range: 1 + 2^-12
 * rounds down, 1 + 2^-11 is a tie that goes to the even 1, 1 + 3·2^-11 a
 * tie that goes to the even 1 + 2^-9; (2 - 2^-11)·2^127 is a tie between
 * the largest value (2 - 2^-10)·2^127 and 2^128, which is even: +inf; the
 * subnormal spacing is 2^-136, so 2^-137 (a tie with 0) goes to 0 and
 * 3·2^-137 to 2·2^-136. */
static void test_tf32_rounding(void **state)
{
    (void)state;
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, 1.0 + ldexp(1, -12)) == 1.0);
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, 1.0 + ldexp(1, -11)) == 1.0);
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, 1.0 + ldexp(3, -11)) == 1.0 + ldexp(1, -9));
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, -(1.0 + ldexp(3, -11))) == -(1.0 + ldexp(1, -9)));
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, ldexp(2.0 - ldexp(1, -10), 127)) == ldexp(2.0 - ldexp(1, -10), 127));
    assert_true(isinf(ir_dotalg_round(IR_DOTALG_TF32, ldexp(2.0 - ldexp(1, -11), 127))));
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, ldexp(1, -137)) == 0.0);
    assert_true(ir_dotalg_round(IR_DOTALG_TF32, ldexp(3, -137)) == ldexp(2, -136));
    assert_true(isnan(ir_dotalg_round(IR_DOTALG_TF32, NAN)));
    assert_true(ir_dotalg_unit_roundoff(IR_DOTALG_TF32) == ldexp(1, -11));
}

/* The other precision types round as stablehlo.convert does: bf16 keeps 8
 * bits (1 + 2^-9 -> 1), f16 overflows past 65520 to +inf, f8E4M3FN has no
 * infinity: 464, the midpoint between its largest 448 (fraction 110, even)
 * and the unrepresentable 480, ties to 448, anything above it is NaN; it
 * keeps 4 bits (0.3 -> 0.3125). */
static void test_other_types(void **state)
{
    (void)state;
    assert_true(ir_dotalg_round(PLUMB_BF16, 1.0 + ldexp(1, -9)) == 1.0);
    assert_true(ir_dotalg_round(PLUMB_F16, 65519.0) == 65504.0);
    assert_true(isinf(ir_dotalg_round(PLUMB_F16, 65520.0)));
    assert_true(ir_dotalg_round(PLUMB_F8E4M3FN, 464.0) == 448.0);
    assert_true(isnan(ir_dotalg_round(PLUMB_F8E4M3FN, 465.0)));
    assert_true(ir_dotalg_round(PLUMB_F8E4M3FN, 0.3) == 0.3125);
    assert_true(ir_dotalg_round(PLUMB_F32, 1.0 + ldexp(1, -30)) == 1.0);
    assert_true(ir_dotalg_round(PLUMB_F64, 1.0 + ldexp(1, -30)) == 1.0 + ldexp(1, -30));
    assert_true(ir_dotalg_unit_roundoff(PLUMB_BF16) == ldexp(1, -8));
    assert_true(ir_dotalg_unit_roundoff(PLUMB_F8E5M2) == ldexp(1, -3));
}

/* Spellings: tf32 and every float element type; integers are not
 * precision types (StableHLO I8: FloatType or TensorFloat32). */
static void test_type_names(void **state)
{
    (void)state;
    int t;
    assert_true(ir_dotalg_type_parse("tf32", 4, &t) && t == IR_DOTALG_TF32);
    assert_true(ir_dotalg_type_parse("f8E4M3FNUZ", 10, &t) && t == PLUMB_F8E4M3FNUZ);
    assert_false(ir_dotalg_type_parse("i32", 3, &t));
    assert_false(ir_dotalg_type_parse("tf3", 3, &t));
    assert_string_equal(ir_dotalg_type_name(IR_DOTALG_TF32), "tf32");
    assert_string_equal(ir_dotalg_type_name(PLUMB_BF16), "bf16");
}

/* StableHLO's known list: FP8 x FP8 -> f32 with one operation (imprecise
 * accumulation allowed), the ten named combinations (bf16 with 1, 3 or 6
 * operations, tf32 with 1 or 3), component counts 1; anything else, and
 * imprecise accumulation outside FP8, is unknown. */
static void test_known(void **state)
{
    (void)state;
    ir_dot_algorithm a = alg(PLUMB_F8E5M2, PLUMB_F8E4M3FNUZ, PLUMB_F32, 1, true);
    assert_true(ir_dotalg_known(&a));
    a = alg(PLUMB_F8E8M0FNU, PLUMB_F8E4M3FN, PLUMB_F32, 1, false);
    assert_false(ir_dotalg_known(&a));
    a = alg(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 6, false);
    assert_true(ir_dotalg_known(&a));
    a = alg(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 2, false);
    assert_false(ir_dotalg_known(&a));
    a = alg(IR_DOTALG_TF32, IR_DOTALG_TF32, PLUMB_F32, 3, false);
    assert_true(ir_dotalg_known(&a));
    a = alg(IR_DOTALG_TF32, IR_DOTALG_TF32, PLUMB_F32, 6, false);
    assert_false(ir_dotalg_known(&a));
    a = alg(PLUMB_F32, PLUMB_F32, PLUMB_F32, 1, true);
    assert_false(ir_dotalg_known(&a));
    a = alg(PLUMB_F64, PLUMB_F64, PLUMB_F32, 1, false);
    assert_false(ir_dotalg_known(&a));
    a = alg(PLUMB_F32, PLUMB_F32, PLUMB_F32, 1, false);
    a.lhs_component_count = 3;
    assert_false(ir_dotalg_known(&a));
    char d[200];
    ir_dotalg_describe(&a, d, sizeof d);
    assert_string_equal(d, "{lhs:'f32', rhs:'f32', accum:'f32', lhs_components:3, rhs_components:1, primitive_ops:1, imprecise:0}");
}

/* Split emulation: 3 operations are 2 components, 6 are 3. With u = 2^-8
 * (bf16), k = 2: the dropped product a_2·b_2 (<= (1+u)^2·u^2), A·e_b
 * (<= (1+u^2)·u^2) and e_a·b (<= u^2) give u^2·(3 + 2u + 2u^2) =
 * 3·2^-16 + 2^-23 + 2^-31. k = 3: dropped (2,3), (3,2), (3,3) give
 * (1+u)^2·(2u^3 + u^4) = 2u^3 + 5u^4 + 4u^5 + u^6, plus u^3·(1+u^3) +
 * u^3: 4u^3 + 5u^4 + 4u^5 + 2u^6 = 2^-22 + 5·2^-32 + 2^-38 + 2^-47. */
static void test_split_eps(void **state)
{
    (void)state;
    ir_dot_algorithm a = alg(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 3, false);
    assert_int_equal(ir_dotalg_split(&a), 2);
    assert_true(ir_dotalg_split_eps(&a) == 3 * ldexp(1, -16) + ldexp(1, -23) + ldexp(1, -31));
    a.num_primitive_operations = 6;
    assert_int_equal(ir_dotalg_split(&a), 3);
    assert_true(ir_dotalg_split_eps(&a) == ldexp(1, -22) + 5 * ldexp(1, -32) + ldexp(1, -38) + ldexp(1, -47));
    a.num_primitive_operations = 1;
    assert_int_equal(ir_dotalg_split(&a), 1);
    assert_true(ir_dotalg_split_eps(&a) == 0.0);
    a.num_primitive_operations = 2;
    assert_int_equal(ir_dotalg_split(&a), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tf32_rounding),
        cmocka_unit_test(test_other_types),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_split_eps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
