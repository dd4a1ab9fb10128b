/* The 16-lane f32 exp, logistic and tanh of the AVX-512 level, as inline
 * functions on one register: math_avx512.c wraps them into array functions
 * (with the exact path for the lanes they flag), and the fused executor
 * (fusion.c) evaluates them inside its register loops. Include only from
 * code that runs after rt_isa chose AVX-512; the functions carry their own
 * target so the includer needs no pragma. */
#ifndef PLUMB_RT_MATH_X16_H
#define PLUMB_RT_MATH_X16_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stdbool.h>

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")

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
 * logistic(x) = 1/(1 + e^-x) = 1/d: with a = 2^k T_hi (exact), d = 1 + a
 * + 2^k u is carried as s + d_lo: s = RN(1 + a), its error recovered exactly
 * by Fast2Sum of max(1, a) and min(1, a), and 2^k u added by one fma, which
 * rounds by <= 2^-24 |d_lo| <= 2^-29 d; so d carries the 2^-27.8 of e and
 * 2^-29. y0 = rcp14(RN(s + d_lo)) (relative 2^-14), rho = 1 - d y0 by two
 * fmas (1 - s y0 is below 2^-4.9 and rounds by 2^-29; the second rounds by
 * 2^-38), y = y0 + y0 rho: the Newton step leaves rho^2 <= 2^-28. Total
 * before the last rounding < 2^-26.3 relative (2^-27.8 + 2 2^-29 + 2^-28),
 * i.e. <= 0.21 ULP (a relative error e is at most e 2^24 ULP): <= 0.71 ULP.
 * p = T_hi + u is never rounded on its own (one f32 rounding there would
 * cost a full 2^-24).
 *
 * tanh |x| = a: for a >= 0.5625 (tanh >= 0.51), 1 - 2/(1 + e^2a) with the
 * same reciprocal (2y within 2^-26.3 relative, 2y <= 0.49, so 2^-27.3
 * absolute = 0.1 ULP of [0.5, 1)) and one rounding fma(-2, y, 1): <= 0.6
 * ULP; there e^2a >= 3, so 2^k T_hi >= 1 and the Fast2Sum needs no
 * max/min. For a < 0.5625: a + a^3 P(a^2), P a degree-6 weighted
 * least-squares fit of (tanh a - a)/a^3 on z = a^2 in [0, 0.3164] (weight z, i.e.
 * relative error of tanh; 400 Chebyshev nodes, long double, coefficients
 * fixed to f32 one at a time with the rest refitted): 2^-33.8 relative
 * with these f32 coefficients. The correction a^3 P is <= 0.09 a and
 * carries a z rounding, a (a z) rounding, Horner (<= 2^-23 relative on P
 * for z <= 0.32) and the fma: < 4 u relative to it, 0.36 u relative to the
 * result: with the last rounding <= 0.87 ULP. a >= 10: 1 in f32 (the
 * large branch gives it, a clamped to 10).
 *
 * Lanes whose input is special for the function (NaN; x < -87 or > 88 for
 * exp, x < -86 for logistic, |x| < 2^-125 for tanh) or, for exp, whose f32
 * result is below 2^-125 (zero and subnormal results, exact on the exact
 * path) or above 2^127 take their half-block of 8 from the exact path of
 * math_impl.h, blended lane by lane, as the double fast path does. The
 * input screens of logistic and tanh leave only normal results below 1. */

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

/* 1/(1 + e^v) for -87 <= v <= 87, within 2^-26.9 relative (see above):
 * d = 1 + 2^k (T_hi + u) is carried as s + d_lo, s = RN(1 + 2^k T_hi) with
 * its error recovered exactly (Fast2Sum on the larger and smaller of 1 and
 * a = 2^k T_hi, which is exact: T_hi is normal and k >= -126) and 2^k u
 * added to it by one fma. p = T_hi + u is never rounded on its own, so the
 * only roundings are those of the analysis. `a_ge_1`: every lane has
 * v >= 0 (then a >= 1 and the larger is a, no max/min needed). */
X16I __m512 x16_recip1pexp_(__m512 v, bool a_ge_1)
{
    __m512 thi, u;
    __m512i k;
    x16_exp_parts(v, &thi, &u, &k);
    __m512 sc = x16_pow2(k);
    __m512 a = _mm512_mul_ps(thi, sc);
    __m512 one = x16_set(1.0f);
    __m512 s = _mm512_add_ps(a, one);
    __m512 err = a_ge_1 ? _mm512_add_ps(_mm512_sub_ps(a, s), one)
                        : _mm512_add_ps(_mm512_sub_ps(_mm512_max_ps(a, one), s), _mm512_min_ps(a, one));
    __m512 dlo = _mm512_fmadd_ps(u, sc, err);
    /* the reciprocal's seed needs d itself (d_lo is up to 2^-5 d) */
    __m512 y0 = _mm512_rcp14_ps(_mm512_add_ps(s, dlo));
    __m512 rho = _mm512_fnmadd_ps(s, y0, one);
    rho = _mm512_fnmadd_ps(dlo, y0, rho);
    return _mm512_fmadd_ps(y0, rho, y0);
}

X16I __m512 x16_exp(__m512 x, __mmask16 *bad)
{
    *bad = ~(_mm512_cmp_ps_mask(x, x16_set(-87.0f), _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, x16_set(88.0f), _CMP_LE_OQ));
    __m512 xc = _mm512_min_ps(_mm512_max_ps(x, x16_set(-87.0f)), x16_set(88.0f));
    __m512 thi, u;
    __m512i k;
    x16_exp_parts(xc, &thi, &u, &k);
    __m512 p = _mm512_add_ps(thi, u);
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(k, 23)));
}

X16I __m512 x16_logistic(__m512 x, __mmask16 *bad)
{
    /* x >= -86 keeps the result at or above 2^-124.07 (normal): no result
     * check is needed; NaN compares false */
    *bad = _mm512_cmp_ps_mask(x, x16_set(-86.0f), _CMP_NGE_UQ);
    __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_xor_ps(x, x16_set(-0.0f)), x16_set(-87.0f)), x16_set(86.0f));
    return x16_recip1pexp_(v, false);
}

X16I __m512 x16_tanh(__m512 x, __mmask16 *bad)
{
    __m512 signbit = x16_set(-0.0f);
    __m512 a = _mm512_andnot_ps(signbit, x);
    /* NaN, and |x| < 2^-125 whose results the contract wants exact: the
     * exact path. Every other result is at least 2^-125 (tanh a >= 0.76 a
     * below 1), below 1. */
    *bad = _mm512_cmp_ps_mask(a, x16_set(0x1p-125f), _CMP_NGE_UQ);
    a = _mm512_min_ps(a, x16_set(10.0f));   /* NaN lanes: bad, any value */
    /* a < 0.5625 */
    __m512 z = _mm512_mul_ps(a, a);
    __m512 p = x16_set(-0x1.87066ap-10f);
    p = _mm512_fmadd_ps(p, z, x16_set(0x1.07a13p-8f));
    p = _mm512_fmadd_ps(p, z, x16_set(-0x1.2aa1eap-7f));
    p = _mm512_fmadd_ps(p, z, x16_set(0x1.675814p-6f));
    p = _mm512_fmadd_ps(p, z, x16_set(-0x1.ba2c3ep-5f));
    p = _mm512_fmadd_ps(p, z, x16_set(0x1.11115p-3f));
    p = _mm512_fmadd_ps(p, z, x16_set(-0x1.555556p-2f));
    __m512 r = _mm512_fmadd_ps(_mm512_mul_ps(a, z), p, a);
    /* a >= 0.5625 (only computed when a lane needs it) */
    __mmask16 lg = _mm512_cmp_ps_mask(a, x16_set(0.5625f), _CMP_GE_OQ);
    if (lg) {
        /* 2a >= 1.125 where needed: 2^k T_hi >= 1 in those lanes; the
         * other lanes are blended away */
        __m512 y = x16_recip1pexp_(_mm512_add_ps(a, a), true);
        r = _mm512_mask_blend_ps(lg, r, _mm512_fnmadd_ps(x16_set(2.0f), y, x16_set(1.0f)));
    }
    return _mm512_or_ps(r, _mm512_and_ps(x, signbit));
}

#pragma GCC pop_options

#endif
#endif
