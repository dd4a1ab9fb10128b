/* The 16-lane f32 exp, logistic, tanh and erf of the AVX-512 level, as inline
 * functions on one register: math_avx512.c wraps them into array functions
 * (with the exact path for the lanes they flag), and the fused executor
 * (fusion_exec.c) evaluates them inside its register loops. Include only from
 * code that runs after rt_isa chose AVX-512; the functions carry their own
 * target so the includer needs no pragma. */
#ifndef PLUMB_RT_MATH_X16_H
#define PLUMB_RT_MATH_X16_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stdint.h>

#include "rt_target.h"
#include "math_erf.h"

RT_TARGET_PUSH("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")

/* ---- true 16-lane f32 exp, logistic and tanh ---------------------------------
 *
 * f32 arithmetic on 16 lanes (FMA), no double inside: each function is a few
 * f32 operations per lane where the double path above needs two 256-bit
 * issues per operation. Error analysis (docs/runtime-math.md has the full
 * budget and the exhaustive sweeps; u = 2^-24):
 *
 * e^x = 2^k T_j e^r: N = round(x 32/ln2) (|x| <= 88.5 so |N| < 2^13),
 * k = N >> 5, j = N & 31, r = x - N ln2/32 with ln2/32 = C1 + C2 in f32.
 * fma(-N, C1, x) is exact (N C1 and x are multiples of 2^-29, or of 2^-30
 * when N = +-1 and x < 2^-6, and the result is below 2^-6 = 2^24 such
 * multiples); the C2 step rounds once: r within 2^-32 absolute, |r| <= 0.01083.
 * e^r - 1 = s = r + r^2 (1/2 + r/6): omitted r^4/24 < 2^-30.7; s rounds by
 * <= 2^-31. T_j = 2^(j/32) = T_hi + T_lo (two floats, 2^-48 relative);
 * u = fma(T_hi, s, T_lo) rounds by <= 2^-30 (|u| < 2^-5), T_lo s (< 2^-30.5)
 * is left out. So T_hi + u is within 4.1e-9 < 2^-27.8 relative of e^r T_j
 * (>= 0.989), i.e. within 0.07 ULP of p's binade, and exp's one rounding
 * p = RN(T_hi + u) gives <= 0.57 ULP; the scaling by 2^k is an exponent
 * add, exact for normal results.
 *
 * logistic and tanh go through y = 1/(1 + e^v), v >= 0, on the same
 * reduction (t = fma(v, K/32, 1.5 2^18) rounds v K to a multiple of 1/32:
 * nf = N/32, k = floor(nf) by vscalefps, j = the low 5 bits of t) and a
 * correctly rounded division (vdivps: one op where rcp14 and a Newton step
 * took three). "ULP" below is the result's; a relative error e is at most
 * e 2^24 ULP.
 *
 * logistic(x) = y for x < 0, 1 - y for x >= 0, with v = |x| (so e^v >= 1,
 * k >= 0). e^v = 2^k (T12 + u): T12 = 2^(j/32) rounded to 12 bits
 * (x16_t12, a multiple of 2^-11), T12lo its rest (x16_t12lo, 2^-36),
 * u = fma(T r, w, T12lo) with T = x16_thi[j], e^r - 1 = r w, w = 1 + r/2 +
 * r^2/6 (r as for exp with nf ln2). u is within 2^-27.8 relative of
 * 2^(j/32) e^r - T12 (T's rounding 2^-30.5, the Taylor tail 2^-30.7, w's
 * rounding 2^-30.5, T r's and u's 2^-30 each, r's 2^-31), i.e. e^v within
 * 0.07 u. c = RN(2^k T12 + 1) is exact for k <= 23 (a multiple of
 * 2^min(0, k-11) below 2^24 of them), 2^k u is exact (vscalefps), so
 * d = RN(c + 2^k u) is 1 + e^v rounded once. x < 0: with d in [2^m,
 * 2^(m+1)), d's rounding (<= 2^(m-24)) moves 1/d by <= (2^m/d)^2 <= 1 ULP
 * of y, e^v's 0.07 u by <= 0.07 ULP, and the division's rounding adds 0.5:
 * <= 1.57 ULP. x >= 0: y <= 1/2 carries 1.07 u relative, i.e. <= 0.54 ULP
 * of 1 - y in [1/2, 1), y's rounding <= 2^-26 (0.25 ULP) and 1 - y's 0.5:
 * <= 1.29 ULP. k >= 24 (|x| >= 16.6): 2^k T12 >= 2^24 is a multiple of
 * 2^13, so c = 2^k T12 (the 1 is lost; at k = 24 it is a tie resolved to
 * the even value): d = RN(e^v). For x >= 0 that moves y < 2^-24 by y^2, far
 * below 1 - y's ULP. For x < 0 (only in blocks with a lane below -16.5,
 * which then also screen x < -86 and NaN) one Newton step from y' = 1/d
 * towards 1/(d + 1): rho = (1 - d y') - y' (below 2^-23, rounded by
 * 2^-47), y = y' + y' rho within rho^2 <= 2^-46 relative before its
 * rounding, so the x < 0 bound holds with d + 1 for d: <= 1.57 ULP.
 *
 * tanh |x| = a (a = min(|x|, 10) by vrangeps; tanh is 1 in f32 for a >=
 * 9.1): for a >= 0.6875, R = 1 - 2Y, Y = 1/(1 + E), E = e^2a, where errors
 * are damped: E's relative error e moves R by 2E/(1+E)^2 e = e/(2
 * cosh^2 a) <= 0.322 e, d's relative rounding by 2Y e <= 0.404 e. So E
 * is rounded to f32 on its own: p = fma(T h, w2, T) with h = a - nf ln2/2
 * (one fma with ln2 rounded to f32: no C2 step, its 2.9 a 2^-29 error is
 * damped to <= 0.021 u), e^2h = 1 + h w2, w2 = 2 + 2h + (4/3) h^2, T =
 * x16_thi[j] (no T_lo: 1 u), E = 2^k p by vscalefps (exact). E carries
 * 1 u (T) + 1 u (p) + 0.064 u (h, Taylor tail, w2, T h) + 0.092 a u
 * (ln2): ULP of R in [0.596, 1): 0.322 (2.064 + 0.092 a) + 0.404 (d) +
 * 0.25 (Y's rounding, Y < 0.25) + 0.5 (R's) <= 1.84 ULP at a = 0.6875, and
 * less above (both factors fall with a). For a < 0.6875: a + a^3 P(a^2),
 * P of degree 4, a weighted least-squares fit of (tanh a - a)/a^3 on z =
 * a^2 in [0, 0.4727] (weight z, i.e. relative error of tanh; 400 Chebyshev
 * nodes, long double, coefficients fixed to f32 one at a time with the
 * rest refitted): 2^-26.2 relative with these f32 coefficients (0.22 ULP).
 * The correction a^3 P is <= 0.153 tanh a and carries the roundings of z,
 * a z, Horner (<= 1.5 u relative on P) and the fma: < 4 u relative to it,
 * 0.61 u relative to the result: with the last rounding <= 1.33 ULP.
 *
 * Lanes whose input is special for the function (NaN; x < -86.5 or > 88
 * for exp, x < -86 for logistic, +-0 and subnormal inputs for tanh) take
 * their half-block of 8 from the exact path of math_impl.h, blended lane by
 * lane, as the double fast path does. The input screens leave only normal
 * results, so no result needs checking (exp: e^-86.5 > 1.1 * 2^-125, the
 * subnormal and zero results below it come from the exact path, and e^88 <
 * 2^127; logistic
 * >= 2^-124.07 for x >= -86; |tanh x| >= 0.76 |x| >= 2^-126.4 for normal x,
 * where the small branch returns x itself once x^3 underflows). */

#define X16_K 0x1.715476p+5f     /* 32/ln2 rounded to f32 */
#define X16_C1 0x1.62e43p-6f     /* ln2/32 rounded to f32 */
#define X16_C2 -0x1.05c61p-34f   /* ln2/32 - X16_C1, rounded */
#define X16_SHIFT 0x1.8p23f      /* adding it rounds |v| < 2^22 to an integer */

static const float x16_thi[32] __attribute__((aligned(64), unused)) = {
    0x1p+0, 0x1.059b0ep+0, 0x1.0b5586p+0, 0x1.11301ep+0, 0x1.172b84p+0, 0x1.1d4874p+0,
    0x1.2387a6p+0, 0x1.29e9ep+0, 0x1.306fep+0, 0x1.371a74p+0, 0x1.3dea64p+0, 0x1.44e086p+0,
    0x1.4bfdaep+0, 0x1.5342b6p+0, 0x1.5ab07ep+0, 0x1.6247ecp+0, 0x1.6a09e6p+0, 0x1.71f75ep+0,
    0x1.7a1148p+0, 0x1.82589ap+0, 0x1.8ace54p+0, 0x1.93737cp+0, 0x1.9c4918p+0, 0x1.a5503cp+0,
    0x1.ae89fap+0, 0x1.b7f77p+0, 0x1.c199bep+0, 0x1.cb720ep+0, 0x1.d5818ep+0, 0x1.dfc974p+0,
    0x1.ea4afap+0, 0x1.f50766p+0,
};
/* 2^(j/32) - x16_thi[j], rounded (computed in long double) */
static const float x16_tlo[32] __attribute__((aligned(64), unused)) = {
    0x0p+0, -0x1.9d4f52p-25, 0x1.9f3122p-25, -0x1.fdb496p-25, -0x1.c15742p-27, -0x1.d2e8cap-25,
    0x1.ceac48p-25, -0x1.5c0424p-25, 0x1.4636e2p-25, -0x1.18aac6p-25, 0x1.824684p-25, 0x1.8624b4p-30,
    -0x1.593abcp-25, -0x1.2c561p-25, -0x1.5bd5ecp-27, -0x1.f8b55p-25, 0x1.9fcef4p-26, 0x1.1d8beep-25,
    -0x1.829fdp-25, -0x1.accc7cp-26, 0x1.15506ep-27, -0x1.e64744p-25, 0x1.51f848p-27, -0x1.b83b54p-25,
    -0x1.a94b14p-26, -0x1.a09438p-25, -0x1.3d56b2p-27, -0x1.8837ccp-27, -0x1.822dbcp-27, -0x1.908c94p-25,
    0x1.52486cp-27, -0x1.246ebp-26,
};

#define X16I static inline __attribute__((always_inline, unused))

X16I __m512 x16_set(float c) { return _mm512_set1_ps(c); }

/* e^x = 2^k (T_hi + u) for |x| <= 88.5 (see above): returns T_hi and u. */
X16I void x16_exp_parts(__m512 x, __m512 *thi, __m512 *u, __m512i *k)
{
    __m512 t = _mm512_fmadd_ps(x, x16_set(X16_K), x16_set(X16_SHIFT));
    __m512 nf = _mm512_sub_ps(t, x16_set(X16_SHIFT));
    __m512i n = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_castps_si512(x16_set(X16_SHIFT)));
    __m512 r = _mm512_fnmadd_ps(nf, x16_set(X16_C1), x);
    r = _mm512_fnmadd_ps(nf, x16_set(X16_C2), r);
    __m512 q = _mm512_fmadd_ps(r, x16_set(1.0f / 6), x16_set(0.5f));
    __m512 s = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);
    __m512i j = _mm512_and_si512(n, _mm512_set1_epi32(31));
    __m512 h0 = _mm512_load_ps(x16_thi), h1 = _mm512_load_ps(x16_thi + 16);
    __m512 l0 = _mm512_load_ps(x16_tlo), l1 = _mm512_load_ps(x16_tlo + 16);
    *thi = _mm512_permutex2var_ps(h0, j, h1);
    *u = _mm512_fmadd_ps(*thi, s, _mm512_permutex2var_ps(l0, j, l1));
    *k = _mm512_srai_epi32(n, 5);
}

/* 2^k as a float, -126 <= k <= 127 */
X16I __m512 x16_pow2(__m512i k)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k, _mm512_set1_epi32(127)), 23));
}

/* e^x with the lanes outside [lo, hi] (and NaN) flagged, for
 * -86.5 <= lo <= hi <= 88: a caller that rounds the result to a narrower
 * type flags there the operands whose results leave that type's normal
 * range, instead of testing each result (fusion_exec.c, f16) */
X16I __m512 x16_exp_in(__m512 x, float lo, float hi, __mmask16 *bad)
{
    *bad = ~(_mm512_cmp_ps_mask(x, x16_set(lo), _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, x16_set(hi), _CMP_LE_OQ));
    __m512 xc = _mm512_min_ps(_mm512_max_ps(x, x16_set(lo)), x16_set(hi));
    __m512 thi, u;
    __m512i k;
    x16_exp_parts(xc, &thi, &u, &k);
    __m512 p = _mm512_add_ps(thi, u);
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(k, 23)));
}

X16I __m512 x16_exp(__m512 x, __mmask16 *bad)
{
    /* e^-86.5 > 1.1 * 2^-125 and e^88 < 2^127: every unflagged result
     * (within 1 ULP) is normal, at least 2^-125 and at most 2^127 */
    return x16_exp_in(x, -86.5f, 88.0f, bad);
}

/* 2^(j/32) rounded to 12 significant bits (a multiple of 2^-11), so that
 * 1 + 2^k x16_t12[j] is exact for 0 <= k <= 23 (computed in long double) */
static const float x16_t12[32] __attribute__((aligned(64), unused)) = {
    0x1p+0, 0x1.05ap+0, 0x1.0b6p+0, 0x1.114p+0, 0x1.172p+0, 0x1.1d4p+0,
    0x1.238p+0, 0x1.29ep+0, 0x1.306p+0, 0x1.372p+0, 0x1.3dep+0, 0x1.44ep+0,
    0x1.4cp+0, 0x1.534p+0, 0x1.5acp+0, 0x1.624p+0, 0x1.6ap+0, 0x1.72p+0,
    0x1.7a2p+0, 0x1.826p+0, 0x1.8acp+0, 0x1.938p+0, 0x1.9c4p+0, 0x1.a56p+0,
    0x1.ae8p+0, 0x1.b8p+0, 0x1.c1ap+0, 0x1.cb8p+0, 0x1.d58p+0, 0x1.dfcp+0,
    0x1.ea4p+0, 0x1.f5p+0,
};
/* 2^(j/32) - x16_t12[j], rounded (long double) */
static const float x16_t12lo[32] __attribute__((aligned(64), unused)) = {
    0x0p+0, -0x1.3cb3aap-14, -0x1.4f260cp-13, -0x1.fc5fdcp-13, 0x1.7078fap-13, 0x1.0e62d2p-13,
    0x1.e9b9d6p-14, 0x1.3bea4p-13, 0x1.fc1464p-13, -0x1.632316p-14, 0x1.4c9824p-13, 0x1.0c0c32p-17,
    -0x1.29564ep-15, 0x1.5ab4eap-15, -0x1.f0457p-13, 0x1.fac0eap-14, 0x1.3cccfep-13, -0x1.142e28p-13,
    -0x1.d7182ap-13, -0x1.d99accp-14, 0x1.ca8456p-13, -0x1.909e64p-13, 0x1.230548p-13, -0x1.f89b84p-13,
    0x1.3f32b6p-13, -0x1.121a0ap-13, -0x1.9089eap-14, -0x1.be462p-13, 0x1.8dcfbap-16, 0x1.2e66f8p-13,
    0x1.5f454ap-13, 0x1.d96dbap-14,
};

#define X16_SHIFT5 0x1.8p18f  /* adding it rounds |v| < 2^17 to a multiple of 1/32 */

/* table[j] for j = the low 5 bits of each lane of idx (the permute reads
 * only those) */
X16I __m512 x16_tab32(const float *table, __m512 idx)
{
    return _mm512_permutex2var_ps(_mm512_load_ps(table), _mm512_castps_si512(idx), _mm512_load_ps(table + 16));
}

X16I __m512 x16_logistic(__m512 x, __mmask16 *bad)
{
    __m512 one = x16_set(1.0f);
    __mmask16 neg = _mm512_movepi32_mask(_mm512_castps_si512(x));
    /* x < -16.5 or NaN: rare; only then are the exact-path lanes and the
     * lanes with 2^k >= 2^24 sorted out (below) */
    __mmask16 far = _mm512_cmp_ps_mask(x, x16_set(-16.5f), _CMP_NGE_UQ);
    /* v = min(|x|, 88) (a NaN gives 88: such lanes are flagged) */
    __m512 v = _mm512_range_ps(x, x16_set(88.0f), 0x0A);
    /* e^v = 2^k 2^(j/32) e^r, N = 32k + j = round(v 32/ln2), nf = N/32 */
    __m512 t = _mm512_fmadd_ps(v, x16_set(X16_K / 32), x16_set(X16_SHIFT5));
    __m512 nf = _mm512_sub_ps(t, x16_set(X16_SHIFT5));
    __m512 r = _mm512_fnmadd_ps(nf, x16_set(X16_C1 * 32), v);
    r = _mm512_fnmadd_ps(nf, x16_set(X16_C2 * 32), r);
    __m512 th = x16_tab32(x16_t12, t), tl = x16_tab32(x16_t12lo, t), tf = x16_tab32(x16_thi, t);
    /* c = 1 + 2^k T12 (exact for k <= 23), 2^k by vscalefps (k = floor(nf)) */
    __m512 c = _mm512_add_ps(_mm512_scalef_ps(th, nf), one);
    /* e^r - 1 = r w, w = 1 + r/2 + r^2/6; u = T12lo + T r w */
    __m512 w = _mm512_fmadd_ps(r, _mm512_fmadd_ps(r, x16_set(1.0f / 6), x16_set(0.5f)), one);
    __m512 u = _mm512_fmadd_ps(_mm512_mul_ps(tf, r), w, tl);
    __m512 d = _mm512_add_ps(c, _mm512_scalef_ps(u, nf));   /* 1 + e^v, rounded once */
    __m512 y = _mm512_div_ps(one, d);
    *bad = 0;
    if (__builtin_expect(far != 0, 0)) {
        /* x < -86 (results below 2^-124) and NaN: the exact path. x < 0
         * with k >= 24: c lost the 1, so one Newton step from 1/d towards
         * 1/(d + 1) (for x > 0, 1 - y does not see it) */
        *bad = _mm512_cmp_ps_mask(x, x16_set(-86.0f), _CMP_NGE_UQ);
        __mmask16 fix = neg & _mm512_cmp_ps_mask(nf, x16_set(24.0f), _CMP_GE_OQ);
        __m512 rho = _mm512_sub_ps(_mm512_fnmadd_ps(d, y, one), y);
        y = _mm512_mask_fmadd_ps(y, fix, rho, y);
    }
    return _mm512_mask_sub_ps(y, (__mmask16)~neg, one, y);
}

X16I __m512 x16_tanh(__m512 x, __mmask16 *bad)
{
    /* NaN, +-0 and subnormal inputs: the exact path (fpclass: QNaN, +0,
     * -0, denormal, SNaN) */
    *bad = _mm512_fpclass_ps_mask(x, 0xA7);
    __m512 a = _mm512_range_ps(x, x16_set(10.0f), 0x0A);   /* min(|x|, 10) */
    /* a < 0.6875: a + a^3 P(a^2) */
    __m512 z = _mm512_mul_ps(a, a);
    __m512 p = x16_set(-0x1.56c6aep-8f);
    p = _mm512_fmadd_ps(p, z, x16_set(0x1.4ac3fap-6f));
    p = _mm512_fmadd_ps(p, z, x16_set(-0x1.b7091cp-5f));
    p = _mm512_fmadd_ps(p, z, x16_set(0x1.10fd66p-3f));
    p = _mm512_fmadd_ps(p, z, x16_set(-0x1.555502p-2f));
    __m512 r = _mm512_fmadd_ps(_mm512_mul_ps(a, z), p, a);
    /* a >= 0.6875: 1 - 2/(1 + e^2a), only computed when a lane needs it */
    __mmask16 lg = _mm512_cmp_ps_mask(a, x16_set(0.6875f), _CMP_GE_OQ);
    if (lg) {
        /* e^2a = 2^k T e^(2h), N = 32k + j = round(2a 32/ln2), nf = N/32,
         * h = a - nf ln2/2 */
        __m512 t = _mm512_fmadd_ps(a, x16_set(X16_K / 16), x16_set(X16_SHIFT5));
        __m512 nf = _mm512_sub_ps(t, x16_set(X16_SHIFT5));
        __m512 h = _mm512_fnmadd_ps(nf, x16_set(X16_C1 * 16), a);
        /* e^2h = 1 + h w2, w2 = 2 + 2h + (4/3) h^2 */
        __m512 w2 = _mm512_fmadd_ps(h, _mm512_fmadd_ps(h, x16_set(4.0f / 3), x16_set(2.0f)), x16_set(2.0f));
        __m512 tf = x16_tab32(x16_thi, t);
        __m512 e = _mm512_scalef_ps(_mm512_fmadd_ps(_mm512_mul_ps(tf, h), w2, tf), nf);
        __m512 d = _mm512_add_ps(e, x16_set(1.0f));
        __m512 y = _mm512_div_ps(x16_set(1.0f), d);
        r = _mm512_mask_blend_ps(lg, r, _mm512_fnmadd_ps(x16_set(2.0f), y, x16_set(1.0f)));
    }
    /* r | (x & sign) */
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(r), _mm512_castps_si512(x),
                                                         _mm512_set1_epi32(INT32_MIN), 0xF8));
}

/* erf on 16 lanes (math_erf.h has the method and its error analysis): f32
 * arithmetic, the operations of rt_erf_f32_lane in the same order, so
 * every lane it does not flag has the bits of the portable and AVX2 levels.
 * Flagged (NaN and subnormal inputs) lanes need the exact path, which the
 * caller runs: math_avx512.c's array function, and the fused executor's
 * register loops (fusion_exec.c), where gelu's erf form runs. Each of the
 * six coefficients is one vpermps of a 16-float table row by the piece
 * index; no branch on the operands (the old table's blend branch for
 * |x| < 1.5 saved permutes the new one no longer has). */
X16I __m512 rt_x16_erf(__m512 x, __mmask16 *bad)
{
    /* fpclass: QNaN, denormal, SNaN */
    *bad = _mm512_fpclass_ps_mask(x, 0xA1);
    __m512 a = _mm512_range_ps(x, x16_set(RT_ERF_CLAMP), 0x0A);   /* min(|x|, 4^-), sign cleared */
    __m512 t = _mm512_mul_ps(a, x16_set(RT_ERF_SCALE));
    /* t - floor(t), exact: the lane form's t - k */
    __m512 u = _mm512_reduce_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512i k = _mm512_cvttps_epi32(t);
#define X16_ERF_ROW(j) _mm512_permutexvar_ps(k, _mm512_load_ps(rt_erf_tab[j]))
    /* written out: a rolled loop would reload the rows */
    __m512 e = X16_ERF_ROW(5);
    e = _mm512_fmadd_ps(e, u, X16_ERF_ROW(4));
    e = _mm512_fmadd_ps(e, u, X16_ERF_ROW(3));
    e = _mm512_fmadd_ps(e, u, X16_ERF_ROW(2));
    e = _mm512_fmadd_ps(e, u, X16_ERF_ROW(1));
    e = _mm512_fmadd_ps(e, u, X16_ERF_ROW(0));
#undef X16_ERF_ROW
    /* A = min(|x|, 1) with the sign of x (range: min of magnitudes, sign of
     * the first operand); fma(e, A, A) is a + a Q or 1 - E with the sign */
    __m512 A = _mm512_range_ps(x, x16_set(1.0f), 0x02);
    return _mm512_fmadd_ps(e, A, A);
}

RT_TARGET_POP

#endif
#endif
