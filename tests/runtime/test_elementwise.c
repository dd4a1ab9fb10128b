/* Runtime elementwise kernels against the reference interpreter (the
 * oracle): every elementwise op x every element type it accepts, on random
 * and special-value inputs (all 65536 patterns for f16/bf16 unary ops), at
 * every ISA level this CPU has. Exact-class ops must match bit for bit;
 * ULP-class ops within the op table's bound, with NaN, infinities and
 * zeros and subnormals exact; midpoint cases of atan2 and power against an
 * MPFR oracle computed here. The fused executor's rt_ew_tile must give the kernel's bits. */
#include <math.h>
#include <mpfr.h>
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
#include "../../runtime/rt_pipeline.h"
#include "ew_harness.h"

#define N_RANDOM 1500

static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

/* Special bit patterns of float type t: zeros, ones, infinities, NaNs
 * (quiet, signaling, negative, with payload), extremes and subnormals. */
static size_t float_specials(plumb_dtype t, uint64_t *v)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint64_t s = 1ull << (d->bits - 1), em = ((1ull << d->exp_bits) - 1) << d->mant_bits;
    /* q: the quiet bit; formats without a mantissa field (f8E8M0FNU) have none */
    uint64_t one = ((1ull << (d->exp_bits - 1)) - 1) << d->mant_bits, q = d->mant_bits ? 1ull << (d->mant_bits - 1) : 0;
    uint64_t base[] = {0, one, em, em | q, em | 1, em | q | 3, em - 1, 1, (1ull << d->mant_bits) - 1,
                       1ull << d->mant_bits, one + 1, one - 1, one + (1ull << d->mant_bits), one | q};
    size_t n = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        v[n++] = base[i];
        v[n++] = base[i] | s;
    }
    return n;
}

static void fill(plumb_dtype t, plumb_tensor *x, uint64_t n, bool exhaustive16)
{
    uint64_t sp[64];
    size_t ns = plumb_dtype_is_float(t) ? float_specials(t, sp) : 0;
    const plumb_dtype_info *d = plumb_dtype_get(t);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        if (exhaustive16)
            v = i;
        else if (i < ns)
            v = sp[i];
        else if (!plumb_dtype_is_float(t) && (i & 3) == 0)
            v = rnd() % 70;                           /* small values reach shift/divide edges */
        else if (plumb_dtype_is_float(t) && (i & 3) == 0) {
            /* moderate magnitudes, where transcendental results are not saturated */
            double f = ((double)(rnd() >> 11) * 0x1p-53 - 0.5) * 40.0;
            uint8_t buf[8];
            switch (t) {
            case PLUMB_F16: v = plumb_f64_to_f16(f); break;
            case PLUMB_BF16: v = plumb_f64_to_bf16(f); break;
            case PLUMB_F32: { float g = (float)f; memcpy(buf, &g, 4); v = plumb_load_bits(t, buf, 0); break; }
            default: v = plumb_f64_bits(f); break;
            }
        } else
            v = rnd();
        if (d->bits < 64)
            v &= (1ull << d->bits) - 1;
        if (t == PLUMB_I1)
            v &= 1;
        plumb_store_bits(t, x->data, i, v);
    }
}

typedef struct variant {
    plumb_opcode code;
    plumb_dtype in_t[3];
    plumb_dtype out_t;
    uint64_t n_in[3];          /* elements per operand (1 = broadcast scalar) */
    ir_cmp_dir dir;
    ir_cmp_type cmp;
    int eb, mb;
} variant;

static uint64_t failures;

/* Builds op as a one-op program, runs reference and runtime, compares. */
static void run_variant(harness *h, const variant *v, uint64_t n, bool exhaustive16)
{
    const plumb_op_info *info = plumb_op_get(v->code);
    uint32_t arity = (uint32_t)info->arity;
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    ir_value *args[3];
    for (uint32_t k = 0; k < arity; k++) {
        int64_t dims[1] = {(int64_t)v->n_in[k]};
        ir_type ty = v->n_in[k] == 1 && n != 1 ? ir_type_scalar(v->in_t[k]) : ir_type_make(v->in_t[k], 1, dims);
        args[k] = ir_block_add_arg(m, &f->body, &ty);
    }
    int64_t odims[1] = {(int64_t)n};
    ir_type rty = ir_type_make(v->out_t, 1, odims);
    ir_op *op = ir_op_new(m, v->code, args, arity, &rty, 1);
    op->a.cmp_dir = v->dir;
    op->a.cmp_type = v->cmp;
    op->a.exponent_bits = v->eb;
    op->a.mantissa_bits = v->mb;
    ir_block_append(&f->body, op);
    ir_op *ret = ir_op_new(m, PLUMB_OP_FUNC_RETURN, op->results, 1, NULL, 0);
    ir_block_append(&f->body, ret);
    assert_true(ir_func_set_results(m, f, &rty, 1));
    plumb_diag d = {.code = PLUMB_OK};
    if (!ir_verify(m, NULL, &d)) {   /* a combination the op set rejects */
        ir_module_free(m);
        return;
    }
    plumb_tensor *in[3] = {NULL, NULL, NULL};
    for (uint32_t k = 0; k < arity; k++) {
        in[k] = plumb_tensor_new(v->in_t[k], args[k]->type.rank, args[k]->type.dims, 0, &d);
        assert_non_null(in[k]);
        fill(v->in_t[k], in[k], v->n_in[k], exhaustive16 && v->n_in[k] == n);
    }
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(m, NULL, in, arity, &ro, &res, &d));
    const plumb_tensor *want = res.outputs[0];
    plumb_dtype t = v->out_t;
    uint32_t bound = info->agree == PLUMB_AGREE_ULP ? plumb_op_ulp_bound(v->code, t) : 0;
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec x;
        plumb_diag xd = {.code = PLUMB_OK};
        assert_true(rt_exec_init(&x, h->pool, isa, m, 0, &xd));
        plumb_tensor *got = plumb_tensor_new(t, 1, odims, 0, &d);
        assert_non_null(got);
        if (got->nbytes)
            memset(got->data, 0xA5, got->nbytes);   /* every element must be written */
        assert_true(rt_run_kernel(&x, op, in, &got));
        uint64_t bad = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
            bool ok = g == w;
            if (!ok && plumb_dtype_is_float(t) && bound) {
                /* within the bound, unless a NaN, infinity or zero is involved (exact) */
                uint64_t smask = (1ull << (plumb_dtype_get(t)->bits - 1)) - 1;
                uint64_t inf = ((1ull << plumb_dtype_get(t)->exp_bits) - 1) << plumb_dtype_get(t)->mant_bits;
                /* subnormal results too: the contract wants them exact */
                bool special = plumb_float_is_nan(t, g) || plumb_float_is_nan(t, w) || (w & inf) == 0 ||
                               (g & inf) == 0 || (w & smask) == inf;
                ok = !special && plumb_ulp_distance(t, g, w) <= bound;
            }
            if (!ok && bad++ < 3)
                print_message("%s %s->%s isa %s element %llu: got 0x%llx want 0x%llx\n",
                              plumb_op_name(v->code), plumb_dtype_name(v->in_t[arity > 1 && v->code == PLUMB_OP_SELECT ? 1 : 0]),
                              plumb_dtype_name(t), rt_isa_name(isa), (unsigned long long)i,
                              (unsigned long long)g, (unsigned long long)w);
        }
        failures += bad;
        /* rt_ew_tile on the same data gives the kernel's bits (no broadcasts) */
        bool bc = false;
        for (uint32_t k = 0; k < arity; k++)
            bc |= v->n_in[k] != n;
        if (!bc && rt_ew_supported(op)) {
            plumb_tensor *tile = plumb_tensor_new(t, 1, odims, 0, &d);
            const void *ins[3] = {in[0]->data, arity > 1 ? in[1]->data : NULL, arity > 2 ? in[2]->data : NULL};
            for (uint64_t b = 0; b < n; b += RT_TILE) {
                size_t len = n - b < RT_TILE ? (size_t)(n - b) : RT_TILE;
                const void *tin[3];
                for (uint32_t k = 0; k < arity; k++)
                    tin[k] = (const uint8_t *)ins[k] + b * plumb_dtype_size(v->in_t[k]);
                assert_true(rt_ew_tile(&x, op, tin, (uint8_t *)tile->data + b * plumb_dtype_size(t), len));
            }
            if (!plumb_tensor_equal(tile, got)) {
                print_message("%s: rt_ew_tile differs from the kernel (isa %s)\n", plumb_op_name(v->code),
                              rt_isa_name(isa));
                failures++;
            }
            plumb_tensor_free(tile);
        }
        plumb_tensor_free(got);
        rt_exec_fini(&x);
    }
    plumb_ref_result_free(&res);
    for (uint32_t k = 0; k < arity; k++)
        plumb_tensor_free(in[k]);
    ir_module_free(m);
}

static void same_type_variant(variant *v, plumb_opcode code, plumb_dtype t, uint64_t n)
{
    memset(v, 0, sizeof *v);
    v->code = code;
    int arity = plumb_op_get(code)->arity;
    for (int k = 0; k < arity; k++) {
        v->in_t[k] = t;
        v->n_in[k] = n;
    }
    v->out_t = t;
    v->eb = 5;
    v->mb = 3;
}

/* Every unary and binary elementwise op (not compare, select, clamp,
 * convert) on every element type, random and special inputs, every ISA;
 * f16/bf16 unary ops on all 65536 patterns. */
static void test_all_ops_all_types(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int c = 0; c < PLUMB_OP_COUNT; c++) {
        const plumb_op_info *info = plumb_op_get((plumb_opcode)c);
        if (info->kind != PLUMB_KIND_ELEMENTWISE || c == PLUMB_OP_COMPARE || c == PLUMB_OP_SELECT ||
            c == PLUMB_OP_CLAMP || c == PLUMB_OP_CONVERT)
            continue;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            if (!(info->types & PLUMB_TY_BIT(t)))
                continue;
            variant v;
            bool ex = info->arity == 1 && plumb_dtype_size((plumb_dtype)t) == 2 && plumb_dtype_is_float((plumb_dtype)t);
            uint64_t n = ex ? 65536 : N_RANDOM;
            same_type_variant(&v, (plumb_opcode)c, (plumb_dtype)t, n);
            if (c == PLUMB_OP_IS_FINITE)
                v.out_t = PLUMB_I1;
            run_variant(h, &v, n, ex);
            if (c == PLUMB_OP_REDUCE_PRECISION) {
                v.eb = 8;
                v.mb = 7;
                run_variant(h, &v, n, ex);
                v.eb = 2;
                v.mb = 0;
                run_variant(h, &v, n, ex);
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* MPFR oracle: op(a, b) correctly rounded by MPFR at t's precision within
 * t's exponent range, then subnormalized with the ternary value: one
 * rounding, so an exact midpoint result rounds to even and a value just
 * below a midpoint rounds down (a detour through a wider value would lose
 * atan2's correction of 2^-250 relative and round twice). */
static uint64_t mp_oracle(plumb_opcode code, plumb_dtype t, double a, double b)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    long bias = (1l << (d->exp_bits - 1)) - 1;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t x, y, o;
    mpfr_inits2(53, x, y, (mpfr_ptr)0);
    mpfr_init2(o, (mpfr_prec_t)d->mant_bits + 1);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    mpfr_set_emin(-bias - (long)d->mant_bits + 2);
    mpfr_set_emax(bias + 1);
    int inex = code == PLUMB_OP_POWER ? mpfr_pow(o, x, y, MPFR_RNDN) : mpfr_atan2(o, x, y, MPFR_RNDN);
    inex = mpfr_check_range(o, inex, MPFR_RNDN);
    mpfr_subnormalize(o, inex, MPFR_RNDN);
    double v = mpfr_get_d(o, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(x, y, o, (mpfr_ptr)0);
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

static uint64_t bits_of(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

static double value_of(plumb_dtype t, uint64_t b)
{
    uint8_t buf[8];
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* Runs the runtime kernel of binary op code on the pairs (a[i], b[i]) of
 * type t at every ISA and compares each result with the MPFR oracle, bit
 * for bit (the cases are chosen with subnormal results, which the numerics
 * contract wants exact). */
static void check_pairs(harness *h, plumb_opcode code, plumb_dtype t, const double *a, const double *b, size_t n)
{
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    int64_t dims[1] = {(int64_t)n};
    ir_type ty = ir_type_make(t, 1, dims);
    ir_value *args[2] = {ir_block_add_arg(m, &f->body, &ty), ir_block_add_arg(m, &f->body, &ty)};
    ir_op *op = ir_op_new(m, code, args, 2, &ty, 1);
    ir_block_append(&f->body, op);
    ir_block_append(&f->body, ir_op_new(m, PLUMB_OP_FUNC_RETURN, op->results, 1, NULL, 0));
    assert_true(ir_func_set_results(m, f, &ty, 1));
    plumb_diag d = {.code = PLUMB_OK};
    assert_true(ir_verify(m, NULL, &d));
    plumb_tensor *in[2], *got;
    for (int k = 0; k < 2; k++) {
        in[k] = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(in[k]);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = bits_of(t, k ? b[i] : a[i]);
            assert_true(value_of(t, v) == (k ? b[i] : a[i]));   /* operands are values of t */
            plumb_store_bits(t, in[k]->data, i, v);
        }
    }
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        rt_exec x;
        assert_true(rt_exec_init(&x, h->pool, isa, m, 0, &d));
        got = plumb_tensor_new(t, 1, dims, 0, &d);
        assert_non_null(got);
        assert_true(rt_run_kernel(&x, op, in, &got));
        for (size_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(t, got->data, i), w = mp_oracle(code, t, a[i], b[i]);
            if (g != w)
                fail_msg("%s %s isa %s (%a, %a): got 0x%llx want 0x%llx", plumb_op_name(code), plumb_dtype_name(t),
                         rt_isa_name(isa), a[i], b[i], (unsigned long long)g, (unsigned long long)w);
        }
        plumb_tensor_free(got);
        rt_exec_fini(&x);
    }
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    ir_module_free(m);
}

/* Results that a wide evaluation puts exactly on (or next to) a rounding
 * midpoint of a subnormal target: atan2 of a tiny ratio (y/x is exactly a
 * midpoint, the exact value just below it: the case certify caught, in
 * every type) and power with an exact midpoint result (ties to even). */
static void test_midpoints(void **state)
{
    harness *h = *state;
    const plumb_dtype types[] = {PLUMB_F16, PLUMB_BF16, PLUMB_F32, PLUMB_F64};
    for (size_t k = 0; k < 4; k++) {
        plumb_dtype t = types[k];
        const plumb_dtype_info *di = plumb_dtype_get(t);
        long bias = (1l << (di->exp_bits - 1)) - 1;
        double q = ldexp(1.0, (int)(1 - bias - (long)di->mant_bits));     /* subnormal quantum */
        double maxsub = q * (ldexp(1.0, (int)di->mant_bits) - 1);
        double ay[] = {maxsub, -maxsub, 3 * q, 5 * q, q, 6 * q, 2 * q, -3 * q, maxsub - 2 * q, 7 * q};
        double ax[] = {2.0, 2.0, 2.0, 2.0, 2.0, 4.0, 4.0, 2.0, 2.0, 0x1p3};
        check_pairs(h, PLUMB_OP_ATAN2, t, ay, ax, sizeof ay / sizeof ay[0]);
    }
    /* exact midpoints: 243 * 2^-150 = 121.5 f32 quanta -> 122; 2^-150 -> 0 */
    const double f32a[] = {0x3p-30, 0x1p-100, 0x1p-75, -0x3p-30};
    const double f32b[] = {5.0, 1.5, 2.0, 5.0};
    check_pairs(h, PLUMB_OP_POWER, PLUMB_F32, f32a, f32b, 4);
    const double f16a[] = {0x3p-5, 0x1p-5, 0x1p-10};     /* 121.5 quanta; 2^-25; 2^-25 */
    const double f16b[] = {5.0, 5.0, 2.5};
    check_pairs(h, PLUMB_OP_POWER, PLUMB_F16, f16a, f16b, 3);
    const double bfa[] = {0x3p-67, 0x1p-67};              /* 4.5 quanta; 2^-134 */
    const double bfb[] = {2.0, 2.0};
    check_pairs(h, PLUMB_OP_POWER, PLUMB_BF16, bfa, bfb, 2);
    const double f64a[] = {0x3p-215, 0x1p-215, -0x3p-215};   /* 121.5 quanta; 2^-1075 */
    const double f64b[] = {5.0, 5.0, 5.0};
    check_pairs(h, PLUMB_OP_POWER, PLUMB_F64, f64a, f64b, 3);
}

/* compare: every direction with every comparison type on every type. */
static void test_compare(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        for (int ty = IR_CMP_TYPE_NONE; ty <= IR_CMP_UNSIGNED; ty++)
            for (int dir = IR_CMP_EQ; dir <= IR_CMP_GE; dir++) {
                variant v;
                same_type_variant(&v, PLUMB_OP_COMPARE, (plumb_dtype)t, 600);
                v.out_t = PLUMB_I1;
                v.cmp = (ir_cmp_type)ty;
                v.dir = (ir_cmp_dir)dir;
                run_variant(h, &v, 600, false);
            }
    assert_int_equal(failures, 0);
}

/* convert: every source type to every destination type (float -> int
 * saturation and NaN -> 0, int -> f16/bf16 single rounding, narrowing). */
static void test_convert(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int s = 0; s < PLUMB_DTYPE_COUNT; s++)
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
            variant v;
            same_type_variant(&v, PLUMB_OP_CONVERT, (plumb_dtype)s, 2000);
            v.out_t = (plumb_dtype)t;
            run_variant(h, &v, 2000, false);
        }
    assert_int_equal(failures, 0);
}

/* select and clamp, with full operands and with single-element predicate
 * or bounds broadcast over the tensor. */
static void test_select_clamp(void **state)
{
    harness *h = *state;
    failures = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        variant v;
        same_type_variant(&v, PLUMB_OP_SELECT, (plumb_dtype)t, 700);
        v.in_t[0] = PLUMB_I1;
        run_variant(h, &v, 700, false);
        v.n_in[0] = 1;
        run_variant(h, &v, 700, false);
        same_type_variant(&v, PLUMB_OP_CLAMP, (plumb_dtype)t, 700);
        run_variant(h, &v, 700, false);
        v.n_in[0] = 1;
        v.n_in[2] = 1;
        run_variant(h, &v, 700, false);
    }
    assert_int_equal(failures, 0);
}

/* A kernel given an element type its op does not take fails with a clear
 * error instead of computing something. */
static void test_bad_type(void **state)
{
    harness *h = *state;
    ir_module *m = ir_module_new("t");
    ir_func *f = ir_func_new(m, "main", true);
    int64_t dims[1] = {4};
    ir_type ty = ir_type_make(PLUMB_I32, 1, dims);
    ir_value *a = ir_block_add_arg(m, &f->body, &ty);
    ir_op *op = ir_op_new(m, PLUMB_OP_TANH, &a, 1, &ty, 1);
    plumb_diag d = {.code = PLUMB_OK};
    rt_exec x;
    assert_true(rt_exec_init(&x, h->pool, PLUMB_ISA_PORTABLE, m, 0, &d));
    x.d = &d;
    plumb_tensor *in = plumb_tensor_new(PLUMB_I32, 1, dims, 0, &d);
    plumb_tensor *out = plumb_tensor_new(PLUMB_I32, 1, dims, 0, &d);
    assert_false(rt_run_kernel(&x, op, &in, &out));
    assert_int_equal(d.code, PLUMB_ERR_UNSUPPORTED);
    assert_non_null(strstr(d.msg, "i32"));
    assert_false(rt_ew_supported(op));
    plumb_tensor_free(in);
    plumb_tensor_free(out);
    rt_exec_fini(&x);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_ops_all_types),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_select_clamp),
        cmocka_unit_test(test_bad_type),
        cmocka_unit_test(test_midpoints),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
