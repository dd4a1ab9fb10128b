/* chlo.bessel_i1e, chlo.zeta and chlo.polygamma on the runtime
 * (runtime/math_special2.c) against the reference (ref/special2.c,
 * correctly rounded; tests/ref/test_special2.c checks it against mpmath),
 * bit for bit: the runtime rounds its long double value only where the
 * stated bound decides the rounding, so where that bound holds it is
 * correctly rounded too (its contract, ops.def, is 1 ULP).
 *  - bessel_i1e: every f16 and bf16 pattern, 2^13 f32 and 2^12 f64
 *    operands over every binade (subnormals, infinities and NaNs included);
 *  - zeta and polygamma: 2^11 operand pairs per type, from every class the
 *    definition separates (x > 1 and q > 0 over many binades, q < 0 with
 *    integer x, poles, x <= 1, integer and non-integer orders, zeros,
 *    infinities, NaNs);
 *  - one and two threads agree. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

static uint64_t rng_state = 0x13198A2E03707344ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic operands, independent of the code under test */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static plumb_runtime *rts[3];

static plumb_runtime *rt(uint32_t threads)
{
    if (!rts[threads]) {
        plumb_runtime_options o;
        plumb_runtime_options_init(&o);
        o.threads = threads;
        plumb_diag d = {0};
        rts[threads] = plumb_runtime_create(&o, &d);
        if (!rts[threads])
            plumb_diag_print(&d, stderr);
        assert_non_null(rts[threads]);
    }
    return rts[threads];
}

static uint64_t from_double(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

/* A random pattern: any sign, exponent and significand. */
static uint64_t any_pattern(plumb_dtype t)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    return rnd() & ((di->bits == 64) ? ~0ull : ((1ull << di->bits) - 1));
}

/* A value in the op's interesting range: |v| = 2^u with u uniform in
 * [lo, hi], a random sign when neg. */
static uint64_t ranged(plumb_dtype t, double lo, double hi, bool neg)
{
    double u = lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53;
    double v = exp2(u);
    if (neg && (rnd() & 1))
        v = -v;
    return from_double(t, v);
}

/* The operand pair k of a binary op's sample: classes in turn. */
static void pair(plumb_opcode op, plumb_dtype t, uint64_t k, uint64_t *a, uint64_t *b)
{
    double hi = t == PLUMB_F16 ? 15 : t == PLUMB_F64 ? 60 : 40;
    switch (k % 8) {
    case 0:   /* the ordinary domain: a > 1 (an order n >= 1 for polygamma), b > 0 */
    case 1:
        if (op == PLUMB_OP_POLYGAMMA)
            *a = from_double(t, (double)(1 + rnd() % 12));
        else
            *a = from_double(t, 1 + exp2(-6 + 11.0 * (double)(rnd() >> 11) * 0x1p-53));
        *b = ranged(t, -12, hi / 4, false);
        break;
    case 2:   /* integer a, negative non-integer b */
        *a = from_double(t, (double)(2 + rnd() % 9));
        *b = from_double(t, -(double)(rnd() % 20) - 0.125 - 0.75 * (double)(rnd() >> 11) * 0x1p-53);
        break;
    case 3:   /* large a */
        *a = ranged(t, 3, hi, false);
        *b = ranged(t, -4, 8, false);
        break;
    case 4:   /* poles and integers */
        *a = from_double(t, (double)(rnd() % 6));
        *b = from_double(t, -(double)(rnd() % 5));
        break;
    default:  /* anything */
        *a = any_pattern(t);
        *b = (k % 8 == 5) ? ranged(t, -20, hi, true) : any_pattern(t);
        break;
    }
}

static void compare(plumb_opcode op, plumb_dtype t, uint64_t n)
{
    const char *tn = plumb_dtype_name(t), *on = plumb_op_name(op);
    bool binary = op != PLUMB_OP_BESSEL_I1E;
    char text[1024];
    unsigned long long N = (unsigned long long)n;
    if (binary)
        snprintf(text, sizeof text,
                 "func.func @main(%%a: tensor<%llux%s>, %%b: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%r = %s %%a, %%b : tensor<%llux%s>, tensor<%llux%s> -> tensor<%llux%s>\n"
                 "  return %%r : tensor<%llux%s>\n}\n",
                 N, tn, N, tn, N, tn, on, N, tn, N, tn, N, tn, N, tn);
    else
        snprintf(text, sizeof text,
                 "func.func @main(%%a: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%r = %s %%a : tensor<%llux%s> -> tensor<%llux%s>\n"
                 "  return %%r : tensor<%llux%s>\n}\n",
                 N, tn, N, tn, on, N, tn, N, tn, N, tn);
    plumb_diag d = {0};
    ir_module *m = ir_parse(text, strlen(text), "special2.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d))
        fail_msg("%s\n%s", d.msg, text);
    int64_t dim = (int64_t)n;
    plumb_tensor *in[2] = {plumb_tensor_new(t, 1, &dim, 0, &d), plumb_tensor_new(t, 1, &dim, 0, &d)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t a, b = 0;
        if (!binary)
            a = di->bits == 16 && n == 65536 ? k : (k % 4 ? ranged(t, -30, 12, true) : any_pattern(t));
        else
            pair(op, t, k, &a, &b);
        plumb_store_bits(t, in[0]->data, k, a);
        plumb_store_bits(t, in[1]->data, k, b);
    }
    uint32_t nin = binary ? 2 : 1;
    plumb_ref_result res = {0};
    plumb_tensor *got = NULL, *two = NULL;
    if (!plumb_ref_run(m, NULL, in, nin, NULL, &res, &d))
        fail_msg("reference: %s", d.msg);
    if (!plumb_runtime_run(rt(1), m, NULL, in, nin, &got, 1, NULL, &d))
        fail_msg("runtime: %s", d.msg);
    if (!plumb_runtime_run(rt(2), m, NULL, in, nin, &two, 1, NULL, &d))
        fail_msg("runtime on 2 threads: %s", d.msg);
    assert_true(plumb_tensor_equal(got, two));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t w = plumb_load_bits(t, res.outputs[0]->data, i), g = plumb_load_bits(t, got->data, i);
        if (w != g && bad++ < 5)
            print_error("%s %s(0x%llx, 0x%llx): runtime 0x%llx, reference 0x%llx\n", tn, on,
                        (unsigned long long)plumb_load_bits(t, in[0]->data, i),
                        (unsigned long long)plumb_load_bits(t, in[1]->data, i), (unsigned long long)g,
                        (unsigned long long)w);
    }
    print_message("%s %s: %llu operands, %llu differ from the reference\n", on, tn, N, (unsigned long long)bad);
    assert_int_equal(bad, 0);
    plumb_tensor_free(got);
    plumb_tensor_free(two);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    plumb_ref_result_free(&res);
    ir_module_free(m);
}

/* Every 16-bit pattern and the f32/f64 samples, bit for bit. */
static void test_bessel_i1e(void **state)
{
    (void)state;
    compare(PLUMB_OP_BESSEL_I1E, PLUMB_F16, 65536);
    compare(PLUMB_OP_BESSEL_I1E, PLUMB_BF16, 65536);
    compare(PLUMB_OP_BESSEL_I1E, PLUMB_F32, 1u << 13);
    compare(PLUMB_OP_BESSEL_I1E, PLUMB_F64, 1u << 11);
}

/* Operand pairs from every class of the definition, each type. */
static void test_zeta(void **state)
{
    (void)state;
    compare(PLUMB_OP_ZETA, PLUMB_F16, 1u << 11);
    compare(PLUMB_OP_ZETA, PLUMB_BF16, 1u << 11);
    compare(PLUMB_OP_ZETA, PLUMB_F32, 1u << 11);
    compare(PLUMB_OP_ZETA, PLUMB_F64, 1u << 11);
}

static void test_polygamma(void **state)
{
    (void)state;
    compare(PLUMB_OP_POLYGAMMA, PLUMB_F16, 1u << 11);
    compare(PLUMB_OP_POLYGAMMA, PLUMB_BF16, 1u << 11);
    compare(PLUMB_OP_POLYGAMMA, PLUMB_F32, 1u << 11);
    compare(PLUMB_OP_POLYGAMMA, PLUMB_F64, 1u << 11);
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        if (rts[i])
            plumb_runtime_destroy(rts[i]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bessel_i1e),
        cmocka_unit_test(test_zeta),
        cmocka_unit_test(test_polygamma),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
