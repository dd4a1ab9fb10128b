/* The vectorized convert loops (runtime/k_ew_convert.c, rt_ew_convert)
 * against the reference interpreter, bit for bit, for every pair of element
 * types at every ISA level this CPU has: all 65536 f16/bf16 patterns; f32
 * and f64 around every integer type's limits, at .5 cases, at the rounding
 * midpoints of every narrower float type (and one ulp beside them), NaNs
 * with payloads, infinities, zeros and subnormals; integers at their
 * extremes and around 2^24, 2^53 and f16's overflow threshold. Lengths
 * 0..70 and unaligned starts exercise the block tails. */
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
#include "../../runtime/rt_pipeline.h"
#include "ew_harness.h"

static uint64_t rng_state = 0x0DDB1A5E5BAD5EEDull;
static uint64_t rnd(void) { return ew_rnd(&rng_state); }

typedef struct vals {
    uint64_t *v;
    size_t n, cap;
} vals;

static void push(vals *s, uint64_t x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    s->v[s->n++] = x;
}

/* x, its neighbours one ulp away and the negatives of all three, in type t */
static void push_real(vals *s, plumb_dtype t, double x)
{
    double near[3] = {x, nextafter(x, INFINITY), nextafter(x, -INFINITY)};
    for (int k = 0; k < 3; k++) {
        for (int sg = 0; sg < 2; sg++) {
            double y = sg ? -near[k] : near[k];
            if (t == PLUMB_F64) {
                push(s, plumb_f64_bits(y));
            } else {
                float f = (float)y;
                push(s, plumb_f32_bits(f));
                push(s, plumb_f32_bits(nextafterf(f, INFINITY)));
                push(s, plumb_f32_bits(nextafterf(f, -INFINITY)));
            }
        }
    }
}

static void float_values(vals *s, plumb_dtype t)
{
    bool dbl = t == PLUMB_F64;
    /* NaNs (quiet, signaling, payloads, both signs), infinities, zeros, subnormals */
    uint64_t pats32[] = {0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                         0xFF800001u, 0x7FA00000u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FC02000u, 0x7F802000u,
                         1, 0x80000001u, 0x007FFFFFu, 0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu};
    uint64_t pats64[] = {0, 1ull << 63, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
                         0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF0000000000001ull,
                         0x7FF4000000000000ull, 0x7FF7FFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFFull, ~0ull,
                         0x7FF8040000000000ull, 0x7FF0040000000000ull, 0x7FF0000020000000ull, 1,
                         0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull,
                         0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull};
    if (dbl)
        for (size_t i = 0; i < sizeof pats64 / sizeof pats64[0]; i++)
            push(s, pats64[i]);
    else
        for (size_t i = 0; i < sizeof pats32 / sizeof pats32[0]; i++)
            push(s, pats32[i]);
    /* integer limits and .5 cases */
    for (int k = 0; k <= 65; k++) {
        double p = ldexp(1.0, k);
        push_real(s, t, p);
        push_real(s, t, p - 1);
        push_real(s, t, p + 1);
        push_real(s, t, p - 0.5);
        push_real(s, t, p + 0.5);
    }
    for (int k = 0; k < 40; k++)
        push_real(s, t, k * 0.25);
    double misc[] = {65504, 65519, 65520, 65536, 3.4028234663852886e38, 0x1p-14, 0x1p-24, 0x1p-25, 0x1.8p-25,
                     0x1p-126, 0x1p-133, 0x1p-134, 0x1.8p-134, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1p-1022,
                     0x1p1023, 0x1p127, 0x1p128, 0x1p-1074};
    for (size_t i = 0; i < sizeof misc / sizeof misc[0]; i++)
        push_real(s, t, misc[i]);
    /* every f16 and bf16 value and the midpoints between neighbours (the
     * rounding ties, and one ulp of the source type either side) */
    for (uint32_t h = 0; h < 0x7C00u; h++) {
        double a = plumb_f16_to_f64((uint16_t)h), b = plumb_f16_to_f64((uint16_t)(h + 1));
        push_real(s, t, a);
        push_real(s, t, (a + b) / 2);
    }
    for (uint32_t h = 0; h < 0x7F80u; h += dbl ? 1 : 3) {
        double a = plumb_bf16_to_f64((uint16_t)h), b = plumb_bf16_to_f64((uint16_t)(h + 1));
        push_real(s, t, (a + b) / 2);
    }
    if (dbl) {
        /* f32 rounding midpoints: doubles that must not round twice */
        for (int i = 0; i < 4000; i++) {
            float f = plumb_f32_from_bits((uint32_t)rnd() & 0x7F7FFFFFu);
            double a = f, b = nextafterf(f, INFINITY);
            push_real(s, t, (a + b) / 2);
        }
    }
    for (int i = 0; i < 4000; i++)
        push(s, dbl ? rnd() : rnd() & 0xFFFFFFFFu);
}

static void int_values(vals *s, plumb_dtype t)
{
    unsigned w = plumb_dtype_get(t)->bits;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    if (t == PLUMB_I1) {
        for (int i = 0; i < 64; i++)
            push(s, (uint64_t)(i & 1));
        return;
    }
    for (unsigned k = 0; k < 64; k++) {
        uint64_t p = 1ull << k;
        uint64_t c[] = {p, p - 1, p + 1, 0 - p, 0 - p - 1, 0 - p + 1, p * 3, p + (p >> 1), p + (p >> 1) + 1};
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            push(s, c[i] & m);
    }
    /* 2^53 and above: rounding to f16/bf16 needs the sticky bits below */
    for (int k = 53; k < 64; k++) {
        for (int j = 0; j < 40; j++) {
            uint64_t x = (1ull << k) | (rnd() & ((1ull << k) - 1));
            if (j & 1)
                x &= ~((1ull << (k - 9)) - 1), x |= 1ull << (k - 9);   /* a bf16 tie, plus */
            if (j & 2)
                x |= 1;
            push(s, x & m);
            push(s, (0 - x) & m);
        }
    }
    int64_t misc[] = {0, 1, -1, 65504, 65519, 65520, 65521, 65535, -65520, -65521, 16777217, -16777217, 2049,
                      INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof misc / sizeof misc[0]; i++)
        push(s, (uint64_t)misc[i] & m);
    for (int i = 0; i < 4000; i++)
        push(s, rnd() & m);
}

static void values(vals *s, plumb_dtype t)
{
    if (t == PLUMB_F16 || t == PLUMB_BF16)
        for (uint32_t h = 0; h < 65536u; h++)
            push(s, h);
    else if (plumb_dtype_is_float(t))
        float_values(s, t);
    else
        int_values(s, t);
}

/* convert s -> d of n elements as a one-op program */
static ir_module *convert_module(plumb_dtype s, plumb_dtype d, uint64_t n, ir_op **op_out)
{
    ir_module *m = ir_module_new("t");
    assert_non_null(m);
    ir_func *f = ir_func_new(m, "main", true);
    int64_t dims[1] = {(int64_t)n};
    ir_type ty = ir_type_make(s, 1, dims), rty = ir_type_make(d, 1, dims);
    ir_value *arg = ir_block_add_arg(m, &f->body, &ty);
    ir_op *op = ir_op_new(m, PLUMB_OP_CONVERT, &arg, 1, &rty, 1);
    ir_block_append(&f->body, op);
    ir_block_append(&f->body, ir_op_new(m, PLUMB_OP_FUNC_RETURN, op->results, 1, NULL, 0));
    assert_true(ir_func_set_results(m, f, &rty, 1));
    plumb_diag dg = {.code = PLUMB_OK};
    assert_true(ir_verify(m, NULL, &dg));
    *op_out = op;
    return m;
}

static uint64_t failures;

static void report(plumb_dtype s, plumb_dtype d, plumb_isa isa, const char *how, uint64_t i, uint64_t x,
                   uint64_t g, uint64_t w)
{
    if (failures++ < 12)
        print_message("%s->%s isa %s %s element %llu (0x%llx): got 0x%llx want 0x%llx\n", plumb_dtype_name(s),
                      plumb_dtype_name(d), rt_isa_name(isa), how, (unsigned long long)i, (unsigned long long)x,
                      (unsigned long long)g, (unsigned long long)w);
}

/* Runs one pair on the values of s: the whole array through rt_ew_convert
 * at each start offset 0..3, lengths 0..70, and the whole kernel through
 * the runtime (engine hook included), all against the reference. */
static void check_pair(harness *h, plumb_dtype s, plumb_dtype d, const vals *v)
{
    uint64_t n = v->n;
    ir_op *op;
    ir_module *m = convert_module(s, d, n, &op);
    plumb_diag dg = {.code = PLUMB_OK};
    plumb_tensor *in = plumb_tensor_new(s, 1, (int64_t[]){(int64_t)n}, 0, &dg);
    assert_non_null(in);
    for (uint64_t i = 0; i < n; i++)
        plumb_store_bits(s, in->data, i, v->v[i]);
    plumb_ref_result res;
    plumb_ref_options ro = {.struct_size = sizeof ro};
    assert_true(plumb_ref_run(m, NULL, &in, 1, &ro, &res, &dg));
    const plumb_tensor *want = res.outputs[0];
    size_t ds = plumb_dtype_size(d), ss = plumb_dtype_size(s);
    uint8_t *buf = malloc((n + 8) * ds);
    assert_non_null(buf);
    /* complex values never reach the elementwise engine (ew_setup routes them
     * to runtime/k_complex.c): rt_ew_convert must decline them, and only the
     * whole kernel is checked */
    bool cplx = plumb_dtype_is_complex(s) || plumb_dtype_is_complex(d);
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= h->best; isa++) {
        if (cplx) {
            rt_ew_args a = {.op = op, .code = PLUMB_OP_CONVERT, .isa = isa, .t = s, .rt = d, .n_in = 1,
                            .in = {in->data}, .out = buf, .n = n};
            assert_false(rt_ew_convert(&a));
        }
        for (uint64_t off = 0; off < 4 && off < n && !cplx; off++) {
            memset(buf, 0xA5, (n + 8) * ds);
            rt_ew_args a = {.op = op, .code = PLUMB_OP_CONVERT, .isa = isa, .t = s, .rt = d, .n_in = 1,
                            .in = {(const uint8_t *)in->data + off * ss}, .out = buf + off * ds, .n = n - off};
            assert_true(rt_ew_convert(&a));
            for (uint64_t i = off; i < n; i++) {
                uint64_t g = plumb_load_bits(d, buf, i), w = plumb_load_bits(d, want->data, i);
                if (g != w)
                    report(s, d, isa, "offset", i, v->v[i], g, w);
            }
            for (uint64_t i = 0; i < off * ds; i++)
                if (buf[i] != 0xA5)
                    report(s, d, isa, "write before start", i, 0, buf[i], 0xA5);
            for (uint64_t i = n * ds; i < (n + 8) * ds; i++)
                if (buf[i] != 0xA5)
                    report(s, d, isa, "write past end", i, 0, buf[i], 0xA5);
        }
        for (uint64_t len = 0; len <= 70 && len < n && !cplx; len++) {
            memset(buf, 0xA5, (len + 8) * ds);
            rt_ew_args a = {.op = op, .code = PLUMB_OP_CONVERT, .isa = isa, .t = s, .rt = d, .n_in = 1,
                            .in = {in->data}, .out = buf, .n = len};
            assert_true(rt_ew_convert(&a));
            for (uint64_t i = 0; i < len; i++) {
                uint64_t g = plumb_load_bits(d, buf, i), w = plumb_load_bits(d, want->data, i);
                if (g != w)
                    report(s, d, isa, "length", i, v->v[i], g, w);
            }
            for (uint64_t i = len * ds; i < (len + 8) * ds; i++)
                if (buf[i] != 0xA5)
                    report(s, d, isa, "write past length", len, 0, buf[i], 0xA5);
        }
        rt_exec x;
        assert_true(rt_exec_init(&x, h->pool, isa, m, 0, &dg));
        plumb_tensor *got = plumb_tensor_new(d, 1, (int64_t[]){(int64_t)n}, 0, &dg);
        assert_non_null(got);
        memset(got->data, 0xA5, got->nbytes);
        assert_true(rt_run_kernel(&x, op, &in, &got));
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = plumb_load_bits(d, got->data, i), w = plumb_load_bits(d, want->data, i);
            if (g != w)
                report(s, d, isa, "kernel", i, v->v[i], g, w);
        }
        plumb_tensor_free(got);
        rt_exec_fini(&x);
    }
    free(buf);
    plumb_ref_result_free(&res);
    plumb_tensor_free(in);
    ir_module_free(m);
}

static void check_from(void **state, const plumb_dtype *srcs, size_t ns)
{
    harness *h = *state;
    failures = 0;
    for (size_t i = 0; i < ns; i++) {
        vals v = {0};
        values(&v, srcs[i]);
        for (int d = 0; d < PLUMB_DTYPE_COUNT; d++)
            check_pair(h, srcs[i], (plumb_dtype)d, &v);
        free(v.v);
    }
    assert_int_equal(failures, 0);
}

/* Every f16 and bf16 pattern converted to every type. */
static void test_from_half(void **state)
{
    plumb_dtype s[] = {PLUMB_F16, PLUMB_BF16};
    check_from(state, s, 2);
}

/* f32 and f64 special values, limits, ties and midpoints to every type. */
static void test_from_float(void **state)
{
    plumb_dtype s[] = {PLUMB_F32, PLUMB_F64};
    check_from(state, s, 2);
}

/* Integer and i1 extremes and rounding cases to every type. */
static void test_from_int(void **state)
{
    plumb_dtype s[] = {PLUMB_I1, PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64,
                       PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};
    check_from(state, s, 9);
}

/* Other ops and convert with two operands' worth of arguments are declined. */
static void test_declines_other_ops(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, o[4];
    rt_ew_args a = {.code = PLUMB_OP_NEGATE, .isa = PLUMB_ISA_PORTABLE, .t = PLUMB_F32, .rt = PLUMB_F32,
                    .n_in = 1, .in = {x}, .out = o, .n = 4};
    assert_false(rt_ew_convert(&a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_half),
        cmocka_unit_test(test_from_float),
        cmocka_unit_test(test_from_int),
        cmocka_unit_test(test_declines_other_ops),
    };
    return cmocka_run_group_tests(tests, ew_setup, ew_teardown);
}
