/* CHLO's math ops on the runtime (runtime/k_elementwise.c) against the
 * reference interpreter (correctly rounded, the oracle):
 *  - acos, asin, atan, acosh, asinh, atanh, cosh, sinh, erfc, lgamma and
 *    digamma on every f16 and bf16 bit pattern, on 2^14 f32 and 2^13 f64
 *    operands spread over every binade plus the specials and the domain
 *    edges: within the op table's ULP bound, NaN exactly where the
 *    reference has NaN, and bit-exact where the reference result is zero,
 *    subnormal or infinite (the numerics contract); digamma in f16, bf16
 *    and f32, whose runtime path decides its rounding from a proven bound,
 *    bit-exact everywhere.
 *    The largest distance
 *    seen per op and type is printed (docs/runtime-math.md quotes it);
 *  - square, is_inf, is_pos_inf, is_neg_inf and next_after bit for bit
 *    (NaN payloads included) on every 16-bit pattern and on the f32/f64
 *    samples, next_after against a set of special second operands;
 *  - 1 and 2 threads give the same bits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/checkcmp.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic operands, independent of the code under test */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static const plumb_opcode MATH[] = {
    PLUMB_OP_ACOS, PLUMB_OP_ASIN, PLUMB_OP_ATAN, PLUMB_OP_ACOSH, PLUMB_OP_ASINH, PLUMB_OP_ATANH,
    PLUMB_OP_COSH, PLUMB_OP_SINH, PLUMB_OP_ERFC, PLUMB_OP_LGAMMA, PLUMB_OP_DIGAMMA,
};
static const plumb_opcode EXACT1[] = {PLUMB_OP_SQUARE, PLUMB_OP_IS_INF, PLUMB_OP_IS_POS_INF, PLUMB_OP_IS_NEG_INF};

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

static bool is_pred(plumb_opcode op)
{
    return op == PLUMB_OP_IS_INF || op == PLUMB_OP_IS_POS_INF || op == PLUMB_OP_IS_NEG_INF;
}

/* The one-op program on n elements of t. */
static ir_module *program(plumb_opcode op, plumb_dtype t, uint64_t n)
{
    const char *tn = plumb_dtype_name(t), *name = plumb_op_name(op);
    char T[64], R[64], text[1024];
    snprintf(T, sizeof T, "tensor<%llux%s>", (unsigned long long)n, tn);
    snprintf(R, sizeof R, "tensor<%llux%s>", (unsigned long long)n, is_pred(op) ? "i1" : tn);
    if (op == PLUMB_OP_NEXT_AFTER)
        snprintf(text, sizeof text,
                 "func.func @main(%%x: %s, %%y: %s) -> %s {\n  %%r = %s %%x, %%y : %s, %s -> %s\n"
                 "  return %%r : %s\n}\n", T, T, R, name, T, T, R, R);
    else
        snprintf(text, sizeof text,
                 "func.func @main(%%x: %s) -> %s {\n  %%r = %s %%x : %s -> %s\n  return %%r : %s\n}\n", T, R, name,
                 T, R, R);
    plumb_diag d = {0};
    ir_module *m = ir_parse(text, strlen(text), "chlo.mlir", NULL, &d);
    if (!m || !ir_verify(m, NULL, &d))
        fail_msg("%s\n%s", d.msg, text);
    return m;
}

/* Runs m on the reference and on the runtime (1 and 2 threads, which must
 * agree bit for bit); returns the two results. */
static void run_both(const ir_module *m, plumb_tensor **in, uint32_t n_in, plumb_tensor **want, plumb_tensor **got)
{
    plumb_diag d = {0};
    plumb_ref_result res = {0};
    if (!plumb_ref_run(m, NULL, in, n_in, NULL, &res, &d))
        fail_msg("reference: %s", d.msg);
    assert_int_equal(res.n_outputs, 1);
    *want = res.outputs[0];
    res.outputs[0] = NULL;
    plumb_ref_result_free(&res);
    plumb_tensor *two = NULL;
    if (!plumb_runtime_run(rt(1), m, NULL, in, n_in, got, 1, NULL, &d))
        fail_msg("runtime: %s", d.msg);
    if (!plumb_runtime_run(rt(2), m, NULL, in, n_in, &two, 1, NULL, &d))
        fail_msg("runtime on 2 threads: %s", d.msg);
    assert_true(plumb_tensor_equal(*got, two));
    plumb_tensor_free(two);
}

static plumb_tensor *tensor(plumb_dtype t, uint64_t n)
{
    int64_t dim = (int64_t)n;
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, 1, &dim, 0, &d);
    assert_non_null(x);
    return x;
}

static void store_d(plumb_dtype t, void *data, uint64_t i, double v)
{
    uint64_t b;
    switch (t) {
    case PLUMB_F16: b = plumb_f64_to_f16(v); break;
    case PLUMB_BF16: b = plumb_f64_to_bf16(v); break;
    case PLUMB_F32: b = plumb_f32_bits((float)v); break;
    default: b = plumb_f64_bits(v); break;
    }
    plumb_store_bits(t, data, i, b);
}

/* Every 16-bit pattern; for f32/f64, n operands: the specials, values at
 * and next to the domain edges +-1 and the first zeros of lgamma, then
 * random significands of every binade with a random sign. */
static uint64_t fill(plumb_tensor *x, plumb_dtype t)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t n = plumb_tensor_numel(x);
    if (di->bits == 16) {
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(t, x->data, i, i);
        return n;
    }
    static const double edges[] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, INFINITY, -INFINITY, NAN, 0.5, -0.5,
                                   -2.4570247382208006, -2.7476826467274127, -3.1435808883499800, 1e-300,
                                   1e-40, 88.72, 89.4, 710.4, 9.1647, 27.2, -3.0, -1e6, 1e30, 3.5};
    uint64_t k = 0, ne = sizeof edges / sizeof edges[0];
    for (; k < ne; k++)
        store_d(t, x->data, k, edges[k]);
    /* both neighbours of +-1 and 2 (the domain edges of acos, asin, atanh, acosh) */
    for (int up = 0; up < 2; up++) {
        double e[3] = {1.0, -1.0, 2.0};
        for (int j = 0; j < 3; j++) {
            double v = t == PLUMB_F32 ? (double)nextafterf((float)e[j], up ? INFINITY : -INFINITY)
                                      : nextafter(e[j], up ? INFINITY : -INFINITY);
            store_d(t, x->data, k++, v);
        }
    }
    uint32_t ebits = di->exp_bits, mb = di->mant_bits;
    for (; k < n; k++) {
        uint64_t r = rnd(), e = (k % ((1u << ebits) - 1)) & ((1ull << ebits) - 1);
        uint64_t bits = ((r >> 1) & ((1ull << mb) - 1)) | (e << mb) | ((r & 1) << (di->bits - 1));
        plumb_store_bits(t, x->data, k, bits);
    }
    return n;
}

static bool is_nan_bits(plumb_dtype t, uint64_t b) { return plumb_float_is_nan(t, b); }

/* Zero, subnormal or infinite: the results the contract wants exact. */
static bool must_be_exact(plumb_dtype t, uint64_t b)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t e = (b >> di->mant_bits) & ((1ull << di->exp_bits) - 1);
    return e == 0 || e == (1ull << di->exp_bits) - 1;
}

static uint64_t sample_size(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: case PLUMB_BF16: return 65536;
    case PLUMB_F32: return 1u << 14;
    default: return 1u << 13;
    }
}

static const plumb_dtype FLOATS[4] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};

/* The transcendental ops: within the table's bound of the correctly
 * rounded reference, exact at zero/subnormal/infinite results. */
static void test_math_bound(void **state)
{
    (void)state;
    for (size_t oi = 0; oi < sizeof MATH / sizeof MATH[0]; oi++)
        for (int ti = 0; ti < 4; ti++) {
            plumb_opcode op = MATH[oi];
            plumb_dtype t = FLOATS[ti];
            uint64_t n = sample_size(t);
            plumb_tensor *x = tensor(t, n), *want, *got;
            fill(x, t);
            ir_module *m = program(op, t, n);
            run_both(m, &x, 1, &want, &got);
            uint32_t bound = plumb_op_ulp_bound(op, t);
            uint64_t worst = 0, off = 0;
            for (uint64_t i = 0; i < n; i++) {
                uint64_t w = plumb_load_bits(t, want->data, i), g = plumb_load_bits(t, got->data, i);
                uint64_t xb = plumb_load_bits(t, x->data, i);
                bool ok;
                uint64_t dist = 0;
                if (is_nan_bits(t, w) || is_nan_bits(t, g)) {
                    ok = is_nan_bits(t, w) && is_nan_bits(t, g);
                } else if (must_be_exact(t, w)) {
                    ok = w == g;
                } else {
                    dist = plumb_ulp_distance(t, w, g);
                    ok = dist <= bound;
                }
                if (dist > worst)
                    worst = dist;
                off += w != g;
                if (!ok)
                    fail_msg("%s %s x=0x%llx: runtime 0x%llx, reference 0x%llx (bound %u ulp)", plumb_op_name(op),
                             plumb_dtype_name(t), (unsigned long long)xb, (unsigned long long)g,
                             (unsigned long long)w, bound);
            }
            /* narrow digamma decides its rounding from a proven error
             * bound (or MPFR): correctly rounded, not merely within it */
            if (op == PLUMB_OP_DIGAMMA && t != PLUMB_F64 && off)
                fail_msg("digamma %s: %llu results not correctly rounded", plumb_dtype_name(t),
                         (unsigned long long)off);
            printf("# %-14s %-4s %6llu operands: max %llu ulp, %llu not correctly rounded\n", plumb_op_name(op),
                   plumb_dtype_name(t), (unsigned long long)n, (unsigned long long)worst, (unsigned long long)off);
            plumb_tensor_free(x);
            plumb_tensor_free(want);
            plumb_tensor_free(got);
            ir_module_free(m);
        }
}

/* square and the is_inf family: bit for bit on every operand. */
static void test_exact_unary(void **state)
{
    (void)state;
    for (size_t oi = 0; oi < sizeof EXACT1 / sizeof EXACT1[0]; oi++)
        for (int ti = 0; ti < 4; ti++) {
            plumb_dtype t = FLOATS[ti];
            uint64_t n = sample_size(t);
            plumb_tensor *x = tensor(t, n), *want, *got;
            fill(x, t);
            ir_module *m = program(EXACT1[oi], t, n);
            run_both(m, &x, 1, &want, &got);
            if (!plumb_tensor_equal(want, got))
                fail_msg("%s %s differs from the reference", plumb_op_name(EXACT1[oi]), plumb_dtype_name(t));
            plumb_tensor_free(x);
            plumb_tensor_free(want);
            plumb_tensor_free(got);
            ir_module_free(m);
        }
}

/* next_after: every operand against each special direction (+-0, +-1,
 * +-inf, a NaN, the operand itself) bit for bit. */
static void test_next_after(void **state)
{
    (void)state;
    static const double dirs[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN};
    for (int ti = 0; ti < 4; ti++) {
        plumb_dtype t = FLOATS[ti];
        uint64_t n = sample_size(t);
        ir_module *m = program(PLUMB_OP_NEXT_AFTER, t, n);
        for (size_t k = 0; k <= sizeof dirs / sizeof dirs[0]; k++) {
            plumb_tensor *in[2] = {tensor(t, n), tensor(t, n)}, *want, *got;
            fill(in[0], t);
            for (uint64_t i = 0; i < n; i++) {
                if (k < sizeof dirs / sizeof dirs[0])
                    store_d(t, in[1]->data, i, dirs[k]);
                else
                    plumb_store_bits(t, in[1]->data, i, plumb_load_bits(t, in[0]->data, i));
            }
            run_both(m, in, 2, &want, &got);
            if (!plumb_tensor_equal(want, got))
                fail_msg("next_after %s toward direction %zu differs from the reference", plumb_dtype_name(t), k);
            plumb_tensor_free(in[0]);
            plumb_tensor_free(in[1]);
            plumb_tensor_free(want);
            plumb_tensor_free(got);
        }
        ir_module_free(m);
    }
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
        cmocka_unit_test(test_math_bound),
        cmocka_unit_test(test_exact_unary),
        cmocka_unit_test(test_next_after),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
