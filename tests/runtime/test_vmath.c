/* The runtime's f32 vector math (rt_vmath_f32, rt_vmath2_f32) at every ISA
 * level this CPU has: special-value tables (hand-derived from C99 Annex F
 * and IEEE 754-2019) and dense samples against an oracle computed here
 * with MPFR (at f32's precision and exponent range, subnormals included,
 * one rounding), within the op table's bound. Also: results do not
 * depend on the array length or alignment (tails, in place). */
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
#include "../../runtime/rt_internal.h"
#include "../../runtime/rt_math.h"

static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The correctly rounded f32 value of op(x, y): MPFR's functions round
 * correctly at the precision of their result, so they are called at 24 bits
 * within f32's exponent range and subnormalized with their ternary value
 * (one rounding; a detour through a wider value would round twice where the
 * exact value is extremely close to a midpoint, as atan2 of a tiny ratio
 * is). logistic, a composite, goes through 200 bits (its results are never
 * that close to a midpoint in the tests' inputs). */
static float oracle(plumb_opcode op, float x, float y)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t a, b, r, w;
    mpfr_inits2(200, a, b, w, (mpfr_ptr)0);
    mpfr_init2(r, 24);
    mpfr_set_flt(a, x, MPFR_RNDN);
    mpfr_set_flt(b, y, MPFR_RNDN);
    int inex = 0;
    if (op == PLUMB_OP_LOGISTIC) {
        mpfr_neg(w, a, MPFR_RNDN);
        mpfr_exp(w, w, MPFR_RNDN);
        mpfr_add_ui(w, w, 1, MPFR_RNDN);
        mpfr_ui_div(w, 1, w, MPFR_RNDN);
    }
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: inex = mpfr_exp(r, a, MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: inex = mpfr_expm1(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG: inex = mpfr_log(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOG_PLUS_ONE: inex = mpfr_log1p(r, a, MPFR_RNDN); break;
    case PLUMB_OP_TANH: inex = mpfr_tanh(r, a, MPFR_RNDN); break;
    case PLUMB_OP_LOGISTIC: inex = mpfr_set(r, w, MPFR_RNDN); break;
    case PLUMB_OP_SINE: inex = mpfr_sin(r, a, MPFR_RNDN); break;
    case PLUMB_OP_COSINE: inex = mpfr_cos(r, a, MPFR_RNDN); break;
    case PLUMB_OP_TAN: inex = mpfr_tan(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ERF: inex = mpfr_erf(r, a, MPFR_RNDN); break;
    case PLUMB_OP_ERFC: inex = mpfr_erfc(r, a, MPFR_RNDN); break;
    case PLUMB_OP_RSQRT: inex = mpfr_rec_sqrt(r, a, MPFR_RNDN); break;
    case PLUMB_OP_CBRT: inex = mpfr_cbrt(r, a, MPFR_RNDN); break;
    case PLUMB_OP_POWER: inex = mpfr_pow(r, a, b, MPFR_RNDN); break;
    default: inex = mpfr_atan2(r, a, b, MPFR_RNDN); break;
    }
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    float f = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(a, b, r, w, (mpfr_ptr)0);
    return f;
}

static const plumb_opcode unary_ops[] = {
    PLUMB_OP_EXPONENTIAL, PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_LOG, PLUMB_OP_LOG_PLUS_ONE,
    PLUMB_OP_TANH, PLUMB_OP_LOGISTIC, PLUMB_OP_SINE, PLUMB_OP_COSINE, PLUMB_OP_TAN, PLUMB_OP_ERF,
    PLUMB_OP_ERFC, PLUMB_OP_RSQRT, PLUMB_OP_CBRT,
};

static uint64_t rs = 99;
static uint32_t rnd32(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rs >> 32);
}

/* Sample inputs: random bit patterns (every binade) and random values of
 * moderate size, where results are neither saturated nor trivial. */
static float sample(uint32_t i)
{
    if (i & 1)
        return bf(rnd32());
    return ((float)rnd32() / 4294967296.0f - 0.5f) * ((i & 2) ? 200.0f : 8.0f);
}

/* Dense samples of every unary function within its bound of MPFR's
 * correctly rounded value, at every ISA (NaN for NaN; exact where the
 * correctly rounded value is an infinity or zero). */
static void test_unary_dense(void **state)
{
    (void)state;
    enum { N = 6000 };
    static float in[N], out[N], want[N];
    for (size_t k = 0; k < sizeof unary_ops / sizeof unary_ops[0]; k++) {
        plumb_opcode op = unary_ops[k];
        for (uint32_t i = 0; i < N; i++) {
            in[i] = sample(i);
            want[i] = oracle(op, in[i], 0);
        }
        uint32_t bound = plumb_op_ulp_bound(op, PLUMB_F32);
        for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
            rt_vmath_f32_fn f = rt_vmath_f32(op, isa);
            assert_non_null(f);
            f(in, out, N);
            for (uint32_t i = 0; i < N; i++) {
                uint32_t g = fb(out[i]), w = fb(want[i]);
                bool ok;
                if (isnan(want[i]) || isnan(out[i]))
                    ok = isnan(want[i]) && isnan(out[i]);
                else if (isinf(want[i]) || want[i] == 0)
                    ok = g == w;
                else
                    ok = plumb_ulp_distance(PLUMB_F32, g, w) <= bound;
                if (!ok)
                    fail_msg("%s isa %s x=%a (0x%08X): got 0x%08X want 0x%08X", plumb_op_name(op),
                             rt_isa_name(isa), (double)in[i], fb(in[i]), g, w);
            }
        }
    }
}

typedef struct sv { uint32_t x, want; } sv;

static void check_table(plumb_opcode op, const sv *t, size_t n)
{
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        rt_vmath_f32_fn f = rt_vmath_f32(op, isa);
        for (size_t i = 0; i < n; i++) {
            float x = bf(t[i].x), r;
            f(&x, &r, 1);
            if (fb(r) != t[i].want)
                fail_msg("%s isa %s x=0x%08X: got 0x%08X want 0x%08X", plumb_op_name(op), rt_isa_name(isa),
                         t[i].x, fb(r), t[i].want);
        }
    }
}

#define PINF 0x7F800000u
#define NINF 0xFF800000u
#define PZ 0x00000000u
#define NZ 0x80000000u
#define DNAN 0x7FC00000u
#define ONE 0x3F800000u
#define MONE 0xBF800000u
#define SNAN 0x7F800001u
#define QSNAN 0x7FC00001u   /* SNAN quieted, payload kept */
#define NNAN 0xFFC12345u

/* Special values: C99 Annex F / IEEE 754-2019, plumb's NaN rule (NaN in ->
 * that NaN quieted; invalid -> the positive default NaN). */
static void test_unary_specials(void **state)
{
    (void)state;
    const sv exp_t[] = {{PZ, ONE}, {NZ, ONE}, {PINF, PINF}, {NINF, PZ}, {SNAN, QSNAN}, {NNAN, NNAN},
                        {0x42B20000u, PINF} /* 89 */, {0xC2D00000u, PZ} /* -104 */};
    check_table(PLUMB_OP_EXPONENTIAL, exp_t, sizeof exp_t / sizeof exp_t[0]);
    const sv expm1_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, PINF}, {NINF, MONE}, {SNAN, QSNAN}, {0x00000001u, 0x00000001u}};
    check_table(PLUMB_OP_EXPONENTIAL_MINUS_ONE, expm1_t, sizeof expm1_t / sizeof expm1_t[0]);
    const sv log_t[] = {{PZ, NINF}, {NZ, NINF}, {ONE, PZ}, {PINF, PINF}, {NINF, DNAN}, {MONE, DNAN},
                        {SNAN, QSNAN}, {0x80000001u, DNAN}};
    check_table(PLUMB_OP_LOG, log_t, sizeof log_t / sizeof log_t[0]);
    const sv log1p_t[] = {{PZ, PZ}, {NZ, NZ}, {MONE, NINF}, {0xC0000000u, DNAN}, {PINF, PINF}, {NINF, DNAN},
                          {0x80000001u, 0x80000001u}};
    check_table(PLUMB_OP_LOG_PLUS_ONE, log1p_t, sizeof log1p_t / sizeof log1p_t[0]);
    const sv tanh_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, ONE}, {NINF, MONE}, {SNAN, QSNAN}, {0x41A00000u, ONE}};
    check_table(PLUMB_OP_TANH, tanh_t, sizeof tanh_t / sizeof tanh_t[0]);
    const sv logi_t[] = {{PZ, 0x3F000000u}, {NZ, 0x3F000000u}, {PINF, ONE}, {NINF, PZ}, {SNAN, QSNAN}};
    check_table(PLUMB_OP_LOGISTIC, logi_t, sizeof logi_t / sizeof logi_t[0]);
    const sv sin_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, DNAN}, {NINF, DNAN}, {SNAN, QSNAN}};
    check_table(PLUMB_OP_SINE, sin_t, sizeof sin_t / sizeof sin_t[0]);
    const sv cos_t[] = {{PZ, ONE}, {NZ, ONE}, {PINF, DNAN}, {NINF, DNAN}, {NNAN, NNAN}};
    check_table(PLUMB_OP_COSINE, cos_t, sizeof cos_t / sizeof cos_t[0]);
    const sv tan_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, DNAN}, {NINF, DNAN}};
    check_table(PLUMB_OP_TAN, tan_t, sizeof tan_t / sizeof tan_t[0]);
    /* erf(+-2^-149) = +-1.128 2^-149 rounds to +-2^-149; erf(+-20) rounds to +-1 (erfc 20 < 2^-580) */
    const sv erf_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, ONE}, {NINF, MONE}, {SNAN, QSNAN}, {NNAN, NNAN},
                        {0x00000001u, 0x00000001u}, {0x80000001u, 0x80000001u}, {0x41A00000u, ONE},
                        {0xC1A00000u, MONE}, {0x7F7FFFFFu, ONE}};
    check_table(PLUMB_OP_ERF, erf_t, sizeof erf_t / sizeof erf_t[0]);
    /* erfc: 1 at +-0 and at subnormal x (erfc differs from 1 by 1.13 x, far
     * below 2^-25), 0 at +inf and from about 10.06 on (erfc 20 < 2^-580), 2 at -inf and
     * below -3.9 */
    const sv erfc_t[] = {{PZ, ONE}, {NZ, ONE}, {PINF, PZ}, {NINF, 0x40000000u}, {SNAN, QSNAN}, {NNAN, NNAN},
                         {0x00000001u, ONE}, {0x80000001u, ONE}, {0x41A00000u, PZ}, {0xC1A00000u, 0x40000000u},
                         {0x7F7FFFFFu, PZ}, {0xFF7FFFFFu, 0x40000000u}};
    check_table(PLUMB_OP_ERFC, erfc_t, sizeof erfc_t / sizeof erfc_t[0]);
    const sv rsqrt_t[] = {{PZ, PINF}, {NZ, NINF}, {PINF, PZ}, {MONE, DNAN}, {NINF, DNAN}, {0x40800000u, 0x3F000000u}};
    check_table(PLUMB_OP_RSQRT, rsqrt_t, sizeof rsqrt_t / sizeof rsqrt_t[0]);
    const sv cbrt_t[] = {{PZ, PZ}, {NZ, NZ}, {PINF, PINF}, {NINF, NINF}, {0xC1000000u, 0xC0000000u} /* -8 -> -2 */};
    check_table(PLUMB_OP_CBRT, cbrt_t, sizeof cbrt_t / sizeof cbrt_t[0]);
}

typedef struct sv2 { uint32_t a, b, want; } sv2;

/* pow (IEEE 754-2019 9.2.1, C99 F.9.4.4) and atan2 (C99 F.9.1.4) special
 * values, and dense pairs against MPFR. */
static void test_binary(void **state)
{
    (void)state;
    const sv2 pow_t[] = {
        {DNAN, PZ, ONE}, {ONE, DNAN, ONE}, {SNAN, ONE, QSNAN}, {0x40000000u, SNAN, QSNAN},
        {0xC1000000u, 0x3EAAAAABu, DNAN},        /* pow(-8, 1/3) */
        {NZ, 0xC0400000u, NINF}, {PZ, 0xC0400000u, PINF}, {NZ, 0xC0000000u, PINF}, {NZ, 0x40400000u, NZ},
        {NZ, 0xBF000000u, PINF},                 /* pow(-0, -0.5) = +inf */
        {MONE, PINF, ONE}, {MONE, NINF, ONE}, {0x3F000000u, NINF, PINF}, {0x40000000u, NINF, PZ},
        {NINF, 0x40400000u, NINF}, {NINF, 0x3F000000u, PINF}, {NINF, 0xC0400000u, NZ},
        {0xC0000000u, 0x40400000u, 0xC1000000u}, /* (-2)^3 = -8 */
        {0x40000000u, 0x41200000u, 0x44800000u}, /* 2^10 */
    };
    const sv2 atan2_t[] = {
        {PZ, NZ, 0x40490FDBu}, {NZ, NZ, 0xC0490FDBu}, {PZ, PZ, PZ}, {NZ, PZ, NZ},
        {PINF, NINF, 0x4016CBE4u}, {PINF, PINF, 0x3F490FDBu}, {ONE, NINF, 0x40490FDBu},
        {ONE, PZ, 0x3FC90FDBu}, {SNAN, ONE, QSNAN}, {ONE, NNAN, NNAN},
    };
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        for (int which = 0; which < 2; which++) {
            plumb_opcode op = which ? PLUMB_OP_ATAN2 : PLUMB_OP_POWER;
            rt_vmath2_f32_fn f = rt_vmath2_f32(op, isa);
            assert_non_null(f);
            const sv2 *t = which ? atan2_t : pow_t;
            size_t n = which ? sizeof atan2_t / sizeof atan2_t[0] : sizeof pow_t / sizeof pow_t[0];
            for (size_t i = 0; i < n; i++) {
                float a = bf(t[i].a), b = bf(t[i].b), r;
                f(&a, &b, &r, 1);
                if (fb(r) != t[i].want)
                    fail_msg("%s isa %s (0x%08X, 0x%08X): got 0x%08X want 0x%08X", plumb_op_name(op),
                             rt_isa_name(isa), t[i].a, t[i].b, fb(r), t[i].want);
            }
            uint32_t bound = plumb_op_ulp_bound(op, PLUMB_F32);
            for (int i = 0; i < 3000; i++) {
                float a = which ? sample((uint32_t)i) : fabsf(sample((uint32_t)i)) * (i % 7 == 0 ? -1.0f : 1.0f);
                float b = which ? sample((uint32_t)i + 1) : ((float)rnd32() / 4294967296.0f - 0.5f) * 60.0f;
                if (!which && i % 7 == 0)
                    b = (float)(int)b;                   /* negative bases need integer exponents */
                float r, w = oracle(op, a, b);
                f(&a, &b, &r, 1);
                bool ok = (isnan(w) && isnan(r)) ||
                          ((isinf(w) || w == 0) ? fb(r) == fb(w)
                                                : !isnan(r) && plumb_ulp_distance(PLUMB_F32, fb(r), fb(w)) <= bound);
                if (!ok)
                    fail_msg("%s isa %s (%a, %a): got %a want %a", plumb_op_name(op), rt_isa_name(isa), (double)a,
                             (double)b, (double)r, (double)w);
            }
        }
    }
}

/* Subnormal results that a double evaluation puts exactly on an f32
 * rounding midpoint: atan2 of a tiny ratio (y/x is exactly a midpoint, the
 * exact value just below: 0x007FFFFF / 2 -> 0x003FFFFF, not 0x00400000)
 * and power with an exact midpoint result (ties to even), each against
 * MPFR at every ISA, bit for bit. */
static void test_midpoints(void **state)
{
    (void)state;
    const float q = 0x1p-149f;
    const float ay[] = {bf(0x007FFFFFu), -bf(0x007FFFFFu), 3 * q, 5 * q, q, 6 * q, 0x1.fffffcp-127f, 7 * q};
    const float ax[] = {2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 4.0f, 2.0f, 8.0f};
    const float pa[] = {0x3p-30f, 0x1p-100f, 0x1p-75f, -0x3p-30f};
    const float pb[] = {5.0f, 1.5f, 2.0f, 5.0f};
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        for (int which = 0; which < 2; which++) {
            plumb_opcode op = which ? PLUMB_OP_POWER : PLUMB_OP_ATAN2;
            const float *a = which ? pa : ay, *b = which ? pb : ax;
            size_t n = which ? 4 : 8;
            for (size_t i = 0; i < n; i++) {
                float r, w = oracle(op, a[i], b[i]);
                rt_vmath2_f32(op, isa)(&a[i], &b[i], &r, 1);
                if (fb(r) != fb(w))
                    fail_msg("%s isa %s (%a, %a): got 0x%08X want 0x%08X", plumb_op_name(op), rt_isa_name(isa),
                             (double)a[i], (double)b[i], fb(r), fb(w));
            }
        }
    }
    assert_int_equal(fb(oracle(PLUMB_OP_ATAN2, bf(0x007FFFFFu), 2.0f)), 0x003FFFFFu);   /* the oracle agrees */
}

/* The result of an element does not depend on the array length (vector
 * body or tail) nor on running in place, at every ISA (each level has its
 * own tail handling). */
static void test_lengths_in_place(void **state)
{
    (void)state;
    float in[37], ref[37], out[37];
    for (int i = 0; i < 37; i++)
        in[i] = sample((uint32_t)i * 3 + 1);
    in[5] = 3e6f;   /* a big-argument trig lane */
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        for (size_t k = 0; k < sizeof unary_ops / sizeof unary_ops[0]; k++) {
            rt_vmath_f32_fn f = rt_vmath_f32(unary_ops[k], isa);
            f(in, ref, 37);
            for (size_t n = 1; n <= 37; n += 2) {
                memcpy(out, in, sizeof in);
                f(out, out, n);
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(fb(out[i]), fb(ref[i]));
                for (size_t i = n; i < 37; i++)
                    assert_int_equal(fb(out[i]), fb(in[i]));   /* nothing past n written */
            }
        }
    }
}

enum { EDGE_W = 256, EDGE_MAXC = 32 };

/* 256 consecutive floats around each center (both signs around 0), with a
 * NaN, -inf and a signaling NaN planted in each run, through ops at every
 * ISA against MPFR: NaN operands quieted, zero, infinite and subnormal
 * results exact, the rest within the op table's bound. */
static void check_edges(const plumb_opcode *ops, size_t nops, const float *centers, size_t nc)
{
    enum { W = EDGE_W, N = EDGE_W * EDGE_MAXC };
    static float in[N], out[N], want[N];
    assert_true(nc <= EDGE_MAXC);
    for (size_t c = 0; c < nc; c++) {
        uint32_t b = fb(centers[c]);
        for (uint32_t i = 0; i < W; i++) {
            uint32_t u = centers[c] == 0.0f ? (i & 1 ? 0x80000000u : 0u) + i / 2 : b - W / 2 + i;
            in[c * W + i] = bf(u);
        }
        in[c * W + 19] = bf(0x7FC01234u);     /* a NaN in the second half of a block */
        in[c * W + 36] = -INFINITY;           /* out of range in the first half */
        in[c * W + 77] = bf(0xFF812345u);     /* a signaling NaN */
    }
    uint32_t n = (uint32_t)(nc * W);
    for (size_t k = 0; k < nops; k++) {
        plumb_opcode op = ops[k];
        uint32_t bound = plumb_op_ulp_bound(op, PLUMB_F32);
        for (uint32_t i = 0; i < n; i++)
            want[i] = oracle(op, in[i], 0);
        for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
            rt_vmath_f32_fn f = rt_vmath_f32(op, isa);
            f(in, out, n);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t g = fb(out[i]), w = fb(want[i]);
                bool ok;
                if (isnan(in[i]))
                    ok = g == (fb(in[i]) | 0x00400000u);   /* the operand, quieted */
                else if (isinf(want[i]) || want[i] == 0 || fabsf(want[i]) < 0x1p-126f)
                    ok = g == w;                          /* exact */
                else
                    ok = plumb_ulp_distance(PLUMB_F32, g, w) <= bound;
                if (!ok)
                    fail_msg("%s isa %s x=%a (0x%08X): got 0x%08X want 0x%08X", plumb_op_name(op),
                             rt_isa_name(isa), (double)in[i], fb(in[i]), g, w);
            }
        }
    }
}

/* exp, logistic and tanh around the edges of the AVX-512 and AVX2 f32
 * paths (their fast range limits, the tanh branch point 0.5625, the
 * subnormal-result thresholds, 0, the steps of the 32- and 8-entry tables,
 * where the reduced argument is largest): 256 consecutive floats each, in
 * blocks where a NaN or an out-of-range lane sits in one half of 16 lanes
 * only, within the bound of MPFR's value at every ISA. */
static void test_f32_edges(void **state)
{
    (void)state;
    static const float centers[] = {
        87.0f, -87.0f, 88.0f, -87.33655f, -88.7f, 88.72283f, -103.97f, 0.5625f, -0.5625f, 9.0109f,
        10.0f, 0.0f, 0x1p-20f, 0.0108304f, 0.0324913f, 0.693147f, 1.125f, 17.0f, -17.0f, 0x1p-125f,
        0.0433217f, -0.0433217f, 0.1299651f, 0.2166085f, -86.0f, 86.0f, 87.98637f,
    };
    static const plumb_opcode ops[] = {PLUMB_OP_EXPONENTIAL, PLUMB_OP_LOGISTIC, PLUMB_OP_TANH};
    check_edges(ops, sizeof ops / sizeof ops[0], centers, sizeof centers / sizeof centers[0]);
}

/* erf and erfc around the edges of their vector paths: the branch point
 * |x| = 1/2 (Taylor series below, the erfc tail above), 0 with the
 * subnormals of both signs, the smallest normals and 2^-125 (below it the
 * fast path hands erf's results to the exact path), where erf reaches 1
 * (3.83) and erfc 2 (-3.83), where erfc falls below 2^-125 (9.19) and to
 * subnormals and 0 (9.9 to 10.06), the 10.5 clamp of the tail, 1, 2, 5,
 * -1, -5, and the largest floats. */
static void test_erf_edges(void **state)
{
    (void)state;
    static const float centers[] = {
        0.5f, -0.5f, 0.0f, 0x1p-126f, -0x1p-126f, 0x1p-125f, 3.8325f, -3.8325f, 9.194f, 9.9f, 10.0f, 10.0542f,
        10.5f, -10.5f, 1.0f, 2.0f, 5.0f, -1.0f, -5.0f, 0x1.fffffep127f, -0x1.fffffep127f, 0x1p-20f,
    };
    static const plumb_opcode ops[] = {PLUMB_OP_ERF, PLUMB_OP_ERFC};
    check_edges(ops, sizeof ops / sizeof ops[0], centers, sizeof centers / sizeof centers[0]);
}

/* logistic and tanh around the edges of the 16-lane f32 versions that
 * evaluate 1/(1 + e^|v|) with a division: the tanh branch point 0.6875,
 * logistic's rare branch below -16.5 and the step at |x| = 767.5 ln2/32
 * (about 16.6248) where 1 + 2^k T12 stops being exact (k = 24), the
 * 88 clamp, where tanh reaches 1, tiny normal tanh inputs (the small
 * branch returns x once x^3 underflows): 256 consecutive floats each, with
 * x and -x alternating lane by lane so that every block of 16 mixes both
 * signs (the k >= 24 fix applies to the negative lanes only), within the
 * bound of MPFR's value at every ISA. */
static void test_f32_edges_div(void **state)
{
    (void)state;
    static const float centers[] = {
        0.6875f, 16.5f, 16.62476f, 16.0f, 17.5f, 24.0f, 85.99f, 87.9f, 88.0f, 9.0109f,
        0x1p-126f, 0x1p-100f, 0x1p-42f, 0.021660849f, 1.0f, 2.0f,
    };
    static const plumb_opcode ops[] = {PLUMB_OP_LOGISTIC, PLUMB_OP_TANH};
    enum { W = 256, N = W * (sizeof centers / sizeof centers[0]) };
    static float in[N], out[N], want[N];
    for (size_t c = 0; c < sizeof centers / sizeof centers[0]; c++) {
        uint32_t b = fb(centers[c]);
        for (uint32_t i = 0; i < W; i++) {
            float v = bf(b - W / 2 + i / 2);
            in[c * W + i] = i & 1 ? -v : v;
        }
    }
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        plumb_opcode op = ops[k];
        uint32_t bound = plumb_op_ulp_bound(op, PLUMB_F32);
        for (uint32_t i = 0; i < N; i++)
            want[i] = oracle(op, in[i], 0);
        for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
            rt_vmath_f32_fn f = rt_vmath_f32(op, isa);
            f(in, out, N);
            for (uint32_t i = 0; i < N; i++) {
                uint32_t g = fb(out[i]), w = fb(want[i]);
                bool ok = fabsf(want[i]) < 0x1p-126f ? g == w : plumb_ulp_distance(PLUMB_F32, g, w) <= bound;
                if (!ok)
                    fail_msg("%s isa %s x=%a (0x%08X): got 0x%08X want 0x%08X", plumb_op_name(op),
                             rt_isa_name(isa), (double)in[i], fb(in[i]), g, w);
            }
        }
    }
}

/* NaN operands of atan2 come back quieted with their payload even where
 * the other operand alone would decide a zero result (x = +0 or +inf: the
 * result's magnitude is 0 there, which once sent the lane to the slow
 * path and lost the payload). Expected values: plumb's NaN rule (the first
 * NaN operand, quiet bit set, sign and payload kept). */
static void test_atan2_nan_payload(void **state)
{
    (void)state;
    const sv2 t[] = {
        {0xFFC12345u, PZ, 0xFFC12345u}, {0xFF800001u, PZ, 0xFFC00001u}, {0xFF800001u, PINF, 0xFFC00001u},
        {0xFFC12345u, PINF, 0xFFC12345u}, {0x7F800001u, NZ, 0x7FC00001u}, {PZ, 0xFF800001u, 0xFFC00001u},
        {0xFFC12345u, 0xFF812345u, 0xFFC12345u}, {0xFF812345u, 0x7FC00000u, 0xFFC12345u},
    };
    for (plumb_isa isa = PLUMB_ISA_PORTABLE; isa <= rt_cpu_best_isa(); isa++) {
        rt_vmath2_f32_fn f = rt_vmath2_f32(PLUMB_OP_ATAN2, isa);
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
            float a = bf(t[i].a), b = bf(t[i].b), r;
            f(&a, &b, &r, 1);
            if (fb(r) != t[i].want)
                fail_msg("atan2 isa %s (0x%08X, 0x%08X): got 0x%08X want 0x%08X", rt_isa_name(isa), t[i].a,
                         t[i].b, fb(r), t[i].want);
        }
    }
}

static bool same_double(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y || (isnan(a) && isnan(b));   /* a NaN's payload is unspecified there */
}

/* Inputs for comparing two levels: special values, then every 4097th
 * f32 bit pattern (all binades, both signs, NaNs) in a; second operands in
 * b: random patterns, moderate values and specials in turn. */
enum { LV_NS = 26, LV_N = LV_NS + (int)(0x100000000ull / 4097) + 2 };
static float lv_a[LV_N], lv_b[LV_N], lv_r1[LV_N], lv_r2[LV_N];
static double lv_d1[LV_N], lv_d2[LV_N];

static void level_inputs(uint64_t st)
{
    static const uint32_t specials[LV_NS] = {
        PZ, NZ, PINF, NINF, DNAN, NNAN, SNAN, 0xFF800001u, 0x00000001u, 0x80000001u, 0x007FFFFFu,
        0x00800000u, ONE, MONE, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x42B17218u, 0xC2CFF1B5u, 0x49800000u,
        0xC9800000u, 0x3F000000u, 0x40490FDBu, 0x3FC90FDBu, 0x3A800000u, 0xBA800000u, 0x4B800000u,
    };
    for (uint32_t i = 0; i < LV_N; i++) {
        lv_a[i] = i < LV_NS ? bf(specials[i]) : bf((uint32_t)((uint64_t)(i - LV_NS) * 4097));
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t u = (uint32_t)(st >> 32);
        lv_b[i] = i % 3 == 0 ? bf(u) : i % 3 == 1 ? ((float)u / 4294967296.0f - 0.5f) * 16.0f : bf(specials[u % LV_NS]);
    }
}

/* op at levels l1 and l2 on the level_inputs (both operand orders for the
 * binary functions; the second order one element shorter, so both tails
 * of a block run): the double values (f16/bf16 variants) bit for bit, and
 * the f32 results too where f32_too says so. */
static void compare_levels(plumb_opcode op, plumb_isa l1, plumb_isa l2, bool f32_too)
{
    bool bin = op == PLUMB_OP_POWER || op == PLUMB_OP_ATAN2;
    for (int swap = 0; swap < (bin ? 2 : 1); swap++) {
        const float *x = swap ? lv_b : lv_a, *y = swap ? lv_a : lv_b;
        size_t n = LV_N - (size_t)swap;
        if (bin) {
            rt_vmath2_f32(op, l1)(x, y, lv_r1, n);
            rt_vmath2_f32(op, l2)(x, y, lv_r2, n);
            rt_vmath2_f32d(op, l1)(x, y, lv_d1, n);
            rt_vmath2_f32d(op, l2)(x, y, lv_d2, n);
        } else {
            if (f32_too) {
                rt_vmath_f32(op, l1)(x, lv_r1, n);
                rt_vmath_f32(op, l2)(x, lv_r2, n);
            }
            rt_vmath_f32d(op, l1)(x, lv_d1, n);
            rt_vmath_f32d(op, l2)(x, lv_d2, n);
        }
        for (uint32_t i = 0; i < n; i++) {
            if ((bin || f32_too) && fb(lv_r1[i]) != fb(lv_r2[i]))
                fail_msg("%s (0x%08X, 0x%08X): %s 0x%08X, %s 0x%08X", plumb_op_name(op), fb(x[i]), fb(y[i]),
                         rt_isa_name(l1), fb(lv_r1[i]), rt_isa_name(l2), fb(lv_r2[i]));
            if (!same_double(lv_d1[i], lv_d2[i]))
                fail_msg("%s double (0x%08X, 0x%08X): %s %a, %s %a", plumb_op_name(op), fb(x[i]), fb(y[i]),
                         rt_isa_name(l1), lv_d1[i], rt_isa_name(l2), lv_d2[i]);
        }
    }
}

/* The avx2 and avx512 levels compute the double-path functions (all but
 * exp, logistic and tanh, which have f32 versions per level) with the same
 * operations per lane, so docs/runtime-math.md promises the same bits: f32
 * results and the double values of the f16/bf16 variants, bit for bit.
 * Skipped without AVX-512. */
static void test_avx2_avx512_same_bits(void **state)
{
    (void)state;
    if (rt_cpu_best_isa() < PLUMB_ISA_AVX512)
        skip();
    static const plumb_opcode ops[] = {
        PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_LOG, PLUMB_OP_LOG_PLUS_ONE, PLUMB_OP_SINE, PLUMB_OP_COSINE,
        PLUMB_OP_TAN, PLUMB_OP_ERF, PLUMB_OP_ERFC, PLUMB_OP_RSQRT, PLUMB_OP_CBRT, PLUMB_OP_POWER, PLUMB_OP_ATAN2,
    };
    level_inputs(12345);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        compare_levels(ops[k], PLUMB_ISA_AVX2, PLUMB_ISA_AVX512, true);
}

/* The portable level runs math_impl.h on blocks of 2 lanes, avx2 on 4 and
 * avx512 on 8, with the same operations per lane and no fused
 * multiply-add: the double values of every function (the f16/bf16
 * variants) and the f32 results of power and atan2 (the exact path at
 * every level) are the same bits at the portable level as at the best
 * level, with lengths that leave a tail. */
static void test_portable_same_bits(void **state)
{
    (void)state;
    plumb_isa best = rt_cpu_best_isa();
    if (best == PLUMB_ISA_PORTABLE)
        skip();
    static const plumb_opcode ops[] = {
        PLUMB_OP_EXPONENTIAL, PLUMB_OP_EXPONENTIAL_MINUS_ONE, PLUMB_OP_LOG, PLUMB_OP_LOG_PLUS_ONE,
        PLUMB_OP_TANH, PLUMB_OP_LOGISTIC, PLUMB_OP_SINE, PLUMB_OP_COSINE, PLUMB_OP_TAN, PLUMB_OP_ERF,
        PLUMB_OP_ERFC, PLUMB_OP_RSQRT, PLUMB_OP_CBRT, PLUMB_OP_POWER, PLUMB_OP_ATAN2,
    };
    level_inputs(777);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        compare_levels(ops[k], PLUMB_ISA_PORTABLE, best, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_specials),
        cmocka_unit_test(test_unary_dense),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_lengths_in_place),
        cmocka_unit_test(test_midpoints),
        cmocka_unit_test(test_f32_edges),
        cmocka_unit_test(test_erf_edges),
        cmocka_unit_test(test_f32_edges_div),
        cmocka_unit_test(test_atan2_nan_payload),
        cmocka_unit_test(test_avx2_avx512_same_bits),
        cmocka_unit_test(test_portable_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
