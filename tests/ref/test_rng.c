/* Reference rng_bit_generator: the generators against the published known-answer vectors, and the op's bit layout and state update. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"

#include "ref/ref_test.h"

#include "plumb/rng.h"

/* Threefry-2x32-20 known answers (Random123 kat_vectors; Salmon et al.,
 * SC11): zero, all-ones and pi-digit counter/key. */
static void test_threefry_kat(void **state)
{
    (void)state;
    static const uint32_t v[3][6] = {
        {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x6b200159, 0x99ba4efe},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xc4923a9c, 0x483df7a0},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[2];
        plumb_threefry2x32_20(&v[i][0], &v[i][2], out);
        assert_int_equal(out[0], v[i][4]);
        assert_int_equal(out[1], v[i][5]);
    }
}

/* Philox-4x32-10 known answers (same source): counter[4], key[2] -> out[4]. */
static void test_philox_kat(void **state)
{
    (void)state;
    static const uint32_t v[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
         0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        plumb_philox4x32_10(&v[i][0], &v[i][4], out);
        for (int j = 0; j < 4; j++)
            assert_int_equal(out[j], v[i][6 + j]);
    }
}

/* THREE_FRY, 64-bit output: state [key, counter]; value i is block
 * counter + i with words (low, high); the state's counter advances by 1. */
static void test_op_threefry64(void **state)
{
    (void)state;
    /* key = 0x0370734413198a2e, counter = 0x85a308d3243f6a88 (the pi KAT) */
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xui64>, tensor<1xui64>) {\n"
        "  %s = stablehlo.constant dense<[0x0370734413198a2e, 0x85a308d3243f6a88]> : tensor<2xui64>\n"
        "  %o, %v = stablehlo.rng_bit_generator %s, algorithm =  THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<1xui64>)\n"
        "  return %o, %v : tensor<2xui64>, tensor<1xui64>\n}\n");
    expect_bits(&r, 0, 0, 0x0370734413198a2eull);
    expect_bits(&r, 0, 1, 0x85a308d3243f6a89ull);
    expect_bits(&r, 1, 0, 0x483df7a0c4923a9cull);
    plumb_ref_result_free(&r);
}

/* THREE_FRY, 32-bit output of shape [4]: split along dim 0 into 2 blocks;
 * element j is word j % 2 of block j / 2; the counter advances by 2. */
static void test_op_threefry32(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<2xui64>, tensor<4xui32>) {\n"
        "  %s = stablehlo.constant dense<0> : tensor<2xui64>\n"
        "  %o, %v = stablehlo.rng_bit_generator %s, algorithm =  THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)\n"
        "  return %o, %v : tensor<2xui64>, tensor<4xui32>\n}\n");
    expect_bits(&r, 0, 1, 2);
    expect_bits(&r, 1, 0, 0x6b200159);
    expect_bits(&r, 1, 1, 0x99ba4efe);
    uint32_t ctr[2] = {1, 0}, key[2] = {0, 0}, out[2];
    plumb_threefry2x32_20(ctr, key, out);
    expect_bits(&r, 1, 2, out[0]);
    expect_bits(&r, 1, 3, out[1]);
    plumb_ref_result_free(&r);
}

/* PHILOX with a 3-element state: 32-bit values are the 4 words of each block
 * in order; the 128-bit counter carries from low into high. */
static void test_op_philox(void **state)
{
    (void)state;
    plumb_ref_result r = run(
        "func.func @main() -> (tensor<3xui64>, tensor<4xui32>, tensor<3xui64>, tensor<2xui64>) {\n"
        "  %s = stablehlo.constant dense<[0x299f31d0a4093822, 0x85a308d3243f6a88, 0x0370734413198a2e]> : tensor<3xui64>\n"
        "  %o, %v = stablehlo.rng_bit_generator %s, algorithm =  PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)\n"
        "  %t = stablehlo.constant dense<[0xffffffffffffffff, 0xffffffffffffffff, 7]> : tensor<3xui64>\n"
        "  %p, %w = stablehlo.rng_bit_generator %t, algorithm =  PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2xui64>)\n"
        "  return %o, %v, %p, %w : tensor<3xui64>, tensor<4xui32>, tensor<3xui64>, tensor<2xui64>\n}\n");
    expect_bits(&r, 0, 1, 0x85a308d3243f6a89ull);
    expect_bits(&r, 0, 2, 0x0370734413198a2eull);
    expect_bits(&r, 1, 0, 0xd16cfe09);
    expect_bits(&r, 1, 1, 0x94fdcceb);
    expect_bits(&r, 1, 2, 0x5001e420);
    expect_bits(&r, 1, 3, 0x24126ea1);
    /* two u64 values use one block; counter 2^64-1 + 1 carries into 8 */
    expect_bits(&r, 2, 1, 0);
    expect_bits(&r, 2, 2, 8);
    uint32_t ctr[4] = {0xffffffff, 0xffffffff, 7, 0}, key[2] = {0xffffffff, 0xffffffff}, out[4];
    plumb_philox4x32_10(ctr, key, out);
    expect_bits(&r, 3, 0, (uint64_t)out[0] | ((uint64_t)out[1] << 32));
    expect_bits(&r, 3, 1, (uint64_t)out[2] | ((uint64_t)out[3] << 32));
    plumb_ref_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threefry_kat),
        cmocka_unit_test(test_philox_kat),
        cmocka_unit_test(test_op_threefry64),
        cmocka_unit_test(test_op_threefry32),
        cmocka_unit_test(test_op_philox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
