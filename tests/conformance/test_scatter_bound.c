/* Scatter's bound follows the spec's rounding: the update body runs once
 * per update on the element type, so every application rounds to it, even
 * when the backend declares a wider accumulator for sums and dots
 * (docs/conformance.md, "Scatter"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../conformance/conf.h"
#include "plumb/ref.h"

/* Element 0 of 32 (the others hold 1 and receive nothing, so that the
 * TOSA-style statistics over the tensor judge one odd element among exact
 * ones) receives 1 and then eight updates of 2^-11. */
static const char PROG[] =
    "func.func @main(%x: tensor<32xf16>, %i: tensor<9x1xi32>, %u: tensor<9xf16>) -> (tensor<32xf16>) {\n"
    "  %r = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<"
    "update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
    "index_vector_dim = 1>}> ({\n"
    "    ^bb0(%a: tensor<f16>, %c: tensor<f16>):\n"
    "      %s = stablehlo.add %a, %c : tensor<f16>\n"
    "      stablehlo.return %s : tensor<f16>\n"
    "    }) : (tensor<32xf16>, tensor<9x1xi32>, tensor<9xf16>) -> tensor<32xf16>\n"
    "  return %r : tensor<32xf16>\n}\n";

/* Adding the eight 2^-11 updates to 1 one at a time in f16 leaves 1 (each
 * sum 1 + 2^-11 is a tie that rounds to the even 1); adding them first gives
 * the exact 1 + 2^-8. Both are orders of the spec's per-update f16
 * rounding, 4 f16 ulps apart: the bound γ(9)·u_f16·Σ|x| ≈ 0.0044 admits
 * that, while an f32 accumulator's γ(9)·u_f32·Σ|x| + 2·u_f16·|want| ≈ 0.001
 * would not. Whichever the reference returns, the other must pass too. */
static void test_scatter_rounds_in_element_type(void **state)
{
    (void)state;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    int64_t n32 = 32, nine = 9, idims[2] = {9, 1};
    plumb_tensor *in[3] = {plumb_tensor_new(PLUMB_F16, 1, &n32, 0, &d), plumb_tensor_new(PLUMB_I32, 2, idims, 0, &d),
                           plumb_tensor_new(PLUMB_F16, 1, &nine, 0, &d)};
    assert_true(in[0] && in[1] && in[2]);
    for (int k = 0; k < 32; k++) plumb_store_bits(PLUMB_F16, in[0]->data, (size_t)k, k ? 0x3C00 : 0); /* +0, 1, 1, ... */
    for (int k = 0; k < 9; k++) {
        plumb_store_bits(PLUMB_I32, in[1]->data, (size_t)k, 0);
        plumb_store_bits(PLUMB_F16, in[2]->data, (size_t)k, k == 0 ? 0x3C00 /* 1 */ : 0x0C00 /* 2^-11 */);
    }
    conf_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "scatter/f16/hand/order/0");
    c.op = PLUMB_OP_SCATTER;
    c.dtype = PLUMB_F16;
    c.shape_class = "hand";
    c.value_class = "hand";
    c.program = (char *)PROG;
    c.inputs = in;
    c.n_inputs = 3;
    conf_check_opts o;
    memset(&o, 0, sizeof o);
    o.preserves_nan_payload = true;
    o.accum[PLUMB_F16] = PLUMB_F32; /* declared for sums and dots; scatter must ignore it */
    uint64_t orders[2] = {0x3C00 /* 1 */, 0x3C04 /* 1 + 2^-8 */};
    for (int k = 0; k < 2; k++) {
        plumb_tensor *got = plumb_tensor_new(PLUMB_F16, 1, &n32, 0, &d);
        assert_non_null(got);
        for (int e = 0; e < 32; e++) plumb_store_bits(PLUMB_F16, got->data, (size_t)e, e ? 0x3C00 : orders[k]);
        conf_result r;
        assert_true(conf_check_case(&c, &got, 1, &o, &r, &d));
        if (!r.pass) fprintf(stderr, "got %#llx: %s\n", (unsigned long long)orders[k], r.reason);
        assert_true(r.pass);
        plumb_tensor_free(got);
    }
    /* 8 ulps off (1 + 2^-7) is beyond any order: still caught */
    plumb_tensor *bad = plumb_tensor_new(PLUMB_F16, 1, &n32, 0, &d);
    assert_non_null(bad);
    for (int e = 0; e < 32; e++) plumb_store_bits(PLUMB_F16, bad->data, (size_t)e, e ? 0x3C00 : 0x3C08);
    conf_result r;
    assert_true(conf_check_case(&c, &bad, 1, &o, &r, &d));
    assert_false(r.pass);
    plumb_tensor_free(bad);
    for (int k = 0; k < 3; k++) plumb_tensor_free(in[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scatter_rounds_in_element_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
