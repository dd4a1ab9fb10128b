/* reduce_precision on the FP8/FP6/FP4 formats against XLA's definition
 * (docs/spec/types.md, "reduce_precision"), modelled here independently of
 * plumb's codec and of ir/lowp.c:
 *
 *   XLA's HLO evaluator instantiates its typed visitor for every FP8 type
 *   with float as the element computation type
 *   (HloEvaluatorTypedVisitor<tsl::float8_e4m3fnuz, float>, ... in
 *   xla/hlo/evaluator/hlo_evaluator_typed_visitor.h), so HandleReducePrecision
 *   runs its bit algorithm on the operand widened to f32 and the result
 *   goes back by static_cast (ml_dtypes' conversion, convert's rule).
 *
 * The model: decode the pattern by the format's own table below, widen to
 * f32, apply XLA's algorithm on the f32 bits (round the significand to m
 * bits adding 0111..1 plus the last kept bit, clear the dropped bits; if
 * e < 8 an exponent field above 127 + b' becomes +-inf and one at or below
 * 127 - b' becomes +-0, b' = 2^(e-1) - 1; a NaN stays when m > 0 and is
 * +inf when m = 0), then look the value up among the format's patterns
 * (overflow and zero by the format's rules). With m = 0 a tie 1.5 * 2^k
 * goes to the even f32 exponent field 127 + k + 1, i.e. up when k is even:
 * on f8E4M3FNUZ and f8E5M2FNUZ, whose own biases (8, 16) are even, a rule
 * applied to their patterns would round the other way (f8E4M3B11FNUZ's bias
 * 11 is odd, like f32's: there both agree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_test.h"
#include "plumb/fp8.h"

/* A small float format, written from its definition (OCP 8-bit FP spec,
 * OCP MX spec, the FNUZ formats of Graphcore/AMD and XLA's B11 variant),
 * not from plumb's tables. */
typedef enum { NAN_IEEE, NAN_FN, NAN_FNUZ, NAN_E8M0, NAN_NONE } nan_kind;
typedef struct fmt {
    plumb_dtype t;
    int bits, ebits, mbits, bias;
    nan_kind nk;
} fmt;

static const fmt fmts[] = {
    {PLUMB_F8E4M3FN, 8, 4, 3, 7, NAN_FN},          {PLUMB_F8E5M2, 8, 5, 2, 15, NAN_IEEE},
    {PLUMB_F8E4M3FNUZ, 8, 4, 3, 8, NAN_FNUZ},      {PLUMB_F8E5M2FNUZ, 8, 5, 2, 16, NAN_FNUZ},
    {PLUMB_F8E4M3B11FNUZ, 8, 4, 3, 11, NAN_FNUZ},  {PLUMB_F8E3M4, 8, 3, 4, 3, NAN_IEEE},
    {PLUMB_F8E4M3, 8, 4, 3, 7, NAN_IEEE},          {PLUMB_F8E8M0FNU, 8, 8, 0, 127, NAN_E8M0},
    {PLUMB_F6E2M3FN, 6, 2, 3, 1, NAN_NONE},        {PLUMB_F6E3M2FN, 6, 3, 2, 3, NAN_NONE},
    {PLUMB_F4E2M1FN, 4, 2, 1, 1, NAN_NONE},
};

static bool f_is_nan(const fmt *f, uint32_t p)
{
    uint32_t mag = p & ((1u << (f->bits - 1)) - 1), emax = (1u << f->ebits) - 1;
    switch (f->nk) {
    case NAN_IEEE: return (mag >> f->mbits) == emax && (mag & ((1u << f->mbits) - 1));
    case NAN_FN: return mag == (1u << (f->bits - 1)) - 1;
    case NAN_FNUZ: return p == 1u << (f->bits - 1);
    case NAN_E8M0: return p == 0xFF;
    default: return false;
    }
}

static bool f_is_inf(const fmt *f, uint32_t p)
{
    uint32_t mag = p & ((1u << (f->bits - 1)) - 1);
    return f->nk == NAN_IEEE && mag == ((1u << f->ebits) - 1) << f->mbits;
}

/* the value of a finite pattern (exact in a double) */
static double f_decode(const fmt *f, uint32_t p)
{
    if (f->nk == NAN_E8M0) return ldexp(1.0, (int)p - 127);
    int s = (p >> (f->bits - 1)) & 1;
    int e = (int)((p >> f->mbits) & ((1u << f->ebits) - 1));
    double m = (double)(p & ((1u << f->mbits) - 1));
    double v = e == 0 ? ldexp(m, 1 - f->bias - f->mbits) : ldexp(1.0 + ldexp(m, -f->mbits), e - f->bias);
    return s ? -v : v;
}

static double f_max(const fmt *f)
{
    double mx = 0;
    for (uint32_t p = 0; p < (1u << f->bits); p++)
        if (!f_is_nan(f, p) && !f_is_inf(f, p) && f_decode(f, p) > mx) mx = f_decode(f, p);
    return mx;
}

/* The pattern of v, a value the reduce step produced: representable, zero,
 * an infinity or beyond the largest finite value (a carry at the top).
 * Those go by convert's rule for the format (docs/spec/types.md): an
 * infinity where the format has one, NaN in FN, FNUZ and E8M0, the largest
 * finite value in FP6/FP4 (neither); zero is +0 in FNUZ and 2^-127 in E8M0
 * (no zero). Returns false if v is none of these (the model's premise
 * broken). */
static bool f_encode(const fmt *f, double v, uint32_t *out)
{
    uint32_t sign = signbit(v) ? 1u << (f->bits - 1) : 0;
    if (isnan(v)) return false;
    if (isinf(v) || fabs(v) > f_max(f)) {
        switch (f->nk) {
        case NAN_IEEE: *out = sign | (((1u << f->ebits) - 1) << f->mbits); return true;
        case NAN_FN: *out = sign | ((1u << (f->bits - 1)) - 1); return true;
        case NAN_FNUZ: *out = 1u << (f->bits - 1); return true;
        case NAN_E8M0: *out = 0xFF; return true;
        case NAN_NONE: *out = sign | ((1u << (f->bits - 1)) - 1); return true;
        }
    }
    if (v == 0) {
        *out = f->nk == NAN_FNUZ || f->nk == NAN_E8M0 ? 0 : sign;
        return true;
    }
    for (uint32_t p = 0; p < (1u << f->bits); p++)
        if (!f_is_nan(f, p) && !f_is_inf(f, p) && f_decode(f, p) == v && (signbit(f_decode(f, p)) != 0) == (sign != 0)) {
            *out = p;
            return true;
        }
    return false;
}

static uint32_t f32_bits(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }
static float f32_of(uint32_t b) { float x; memcpy(&x, &b, 4); return x; }

/* XLA's HandleReducePrecision<float> on one value (see the header). */
static float xla_reduce_precision_f32(float x, int eb, int mb)
{
    uint32_t v = f32_bits(x);
    const int smant = 23, sexp = 8;
    if (mb < smant) {
        uint32_t last = 1u << (smant - mb);
        uint32_t bias = (last >> 1) - 1 + ((v & last) >> (smant - mb));
        v = (v + bias) & ~(last - 1);
    }
    if (eb < sexp) {
        uint32_t sign = 0x80000000u, em = 0x7F800000u;
        uint32_t b = 127, rb = (1u << (eb - 1)) - 1;
        uint32_t xe = v & em;
        if (xe > ((b + rb) << smant)) v = (v & sign) | em;
        else if (xe <= ((b - rb) << smant)) v &= sign;
    }
    float r = f32_of(v);
    if (isnan(x)) r = mb > 0 ? x : INFINITY;
    return r;
}

/* plumb's reference on every pattern of f with format (eb, mb) */
static plumb_tensor *ref_reduce_precision(const fmt *f, int eb, int mb)
{
    int64_t n = 1 << f->bits;
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *x = plumb_tensor_new(f->t, 1, &n, 0, &d);
    assert_non_null(x);
    for (int64_t i = 0; i < n; i++) plumb_store_bits(f->t, x->data, (size_t)i, (uint64_t)i);
    char src[512];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%lldx%s>) -> tensor<%lldx%s> {\n"
             "  %%r = stablehlo.reduce_precision %%x, format = e%dm%d : tensor<%lldx%s>\n"
             "  return %%r : tensor<%lldx%s>\n}\n",
             (long long)n, plumb_dtype_name(f->t), (long long)n, plumb_dtype_name(f->t), eb, mb, (long long)n,
             plumb_dtype_name(f->t), (long long)n, plumb_dtype_name(f->t));
    plumb_ref_result r = run_inputs(src, &x, 1);
    plumb_tensor_free(x);
    plumb_tensor *out = r.outputs[0];
    r.outputs[0] = NULL;
    plumb_ref_result_free(&r);
    return out;
}

/* Every pattern of every small float format, every exponent width 1..10
 * and mantissa width 0..mbits+1: the reference equals the model bit for bit
 * (a NaN: any NaN of the format). */
static void test_every_pattern_matches_xla_model(void **state)
{
    (void)state;
    uint64_t checked = 0, ties = 0;
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        const fmt *f = &fmts[k];
        for (int eb = 1; eb <= 10; eb++)
            for (int mb = 0; mb <= f->mbits + 1; mb++) {
                plumb_tensor *got = ref_reduce_precision(f, eb, mb);
                for (uint32_t p = 0; p < (1u << f->bits); p++) {
                    uint32_t g = (uint32_t)plumb_load_bits(f->t, got->data, p), want = 0;
                    bool nan_in = f_is_nan(f, p);
                    float x = nan_in ? NAN
                              : f_is_inf(f, p) ? ((p >> (f->bits - 1)) & 1 ? -INFINITY : INFINITY)
                                               : (float)f_decode(f, p);   /* exact: every value is an f32 */
                    float r = xla_reduce_precision_f32(x, eb, mb);
                    bool ok;
                    if (isnan(r)) ok = f_is_nan(f, g);
                    else {
                        bool enc = f_encode(f, r, &want);
                        if (!enc) fprintf(stderr, "%s 0x%x e%dm%d: model value %a not encodable\n",
                                          plumb_dtype_name(f->t), p, eb, mb, r);
                        assert_true(enc);
                        ok = g == want;
                    }
                    if (!ok)
                        fprintf(stderr, "%s pattern 0x%02x format e%dm%d: got 0x%02x, XLA's model gives %a\n",
                                plumb_dtype_name(f->t), p, eb, mb, g, r);
                    assert_true(ok);
                    checked++;
                    /* a tie of the mantissa-less rounding: significand exactly 1.5 */
                    if (mb == 0 && !nan_in && !f_is_inf(f, p) && f_decode(f, p) != 0) {
                        int e;
                        double m = frexp(fabs(f_decode(f, p)), &e);
                        ties += m == 0.75;
                    }
                }
                plumb_tensor_free(got);
            }
    }
    fprintf(stderr, "reduce_precision vs XLA's model: %llu results, %llu of them mantissa-less ties\n",
            (unsigned long long)checked, (unsigned long long)ties);
    assert_true(ties > 0);
}

/* Hand-worked ties of format e5m0 on the FNUZ formats: 1.5 * 2^k goes to
 * 2^(k+1) for even k and to 2^k for odd k (the f32 exponent field 127 + k
 * is odd for even k, so the tie rounds up to the even field). Patterns
 * from each format's definition: value 2^(E - bias) (1 + m / 2^M). */
static void test_fnuz_ties_hand_worked(void **state)
{
    (void)state;
    static const struct {
        plumb_dtype t;
        uint8_t in, want;
        const char *what;
    } cases[] = {
        /* f8E4M3FNUZ, bias 8 */
        {PLUMB_F8E4M3FNUZ, 0x44, 0x48, "1.5 -> 2"},      /* E=8 m=4 -> E=9 */
        {PLUMB_F8E4M3FNUZ, 0x4C, 0x48, "3 -> 2"},        /* E=9 m=4 -> E=9 */
        {PLUMB_F8E4M3FNUZ, 0x54, 0x58, "6 -> 8"},        /* E=10 m=4 -> E=11 */
        {PLUMB_F8E4M3FNUZ, 0x3C, 0x38, "0.75 -> 0.5"},   /* E=7 m=4 -> E=7 */
        {PLUMB_F8E4M3FNUZ, 0xC4, 0xC8, "-1.5 -> -2"},
        {PLUMB_F8E4M3FNUZ, 0xCC, 0xC8, "-3 -> -2"},
        /* f8E5M2FNUZ, bias 16 */
        {PLUMB_F8E5M2FNUZ, 0x42, 0x44, "1.5 -> 2"},      /* E=16 m=2 -> E=17 */
        {PLUMB_F8E5M2FNUZ, 0x46, 0x44, "3 -> 2"},        /* E=17 m=2 -> E=17 */
        {PLUMB_F8E5M2FNUZ, 0x4A, 0x4C, "6 -> 8"},        /* E=18 m=2 -> E=19 */
        /* f8E4M3B11FNUZ, bias 11 (odd: the pattern's parity agrees) */
        {PLUMB_F8E4M3B11FNUZ, 0x5C, 0x60, "1.5 -> 2"},   /* E=11 m=4 -> E=12 */
        {PLUMB_F8E4M3B11FNUZ, 0x64, 0x60, "3 -> 2"},     /* E=12 m=4 -> E=12 */
        /* not a tie: 1.25 -> 1, 1.75 -> 2 (f8E4M3FNUZ) */
        {PLUMB_F8E4M3FNUZ, 0x42, 0x40, "1.25 -> 1"},
        {PLUMB_F8E4M3FNUZ, 0x46, 0x48, "1.75 -> 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fmt *f = NULL;
        for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++)
            if (fmts[k].t == cases[i].t) f = &fmts[k];
        assert_non_null(f);
        plumb_tensor *got = ref_reduce_precision(f, 5, 0);
        uint64_t g = plumb_load_bits(f->t, got->data, cases[i].in);
        if (g != cases[i].want)
            fprintf(stderr, "%s %s: got 0x%02llx, want 0x%02x\n", plumb_dtype_name(f->t), cases[i].what,
                    (unsigned long long)g, cases[i].want);
        assert_int_equal(g, cases[i].want);
        plumb_tensor_free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pattern_matches_xla_model),
        cmocka_unit_test(test_fnuz_ties_hand_worked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
