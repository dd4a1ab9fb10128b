/* f32 erf in f32 arithmetic, the same IEEE operations at every level: the
 * table and the one-lane form (the portable level), which the 16-lane
 * (math_x16.h, rt_x16_erf) and 8-lane (math_avx2.c, x8_erf) versions
 * repeat operation for operation, so all three give the same bits. (The
 * vector forms fetch a lane's coefficients by a permute of the table rows
 * below: the same values.)
 *
 * With a = min(|x|, 4^-) (4^- = 0x1.fffffep1, the largest float below 4),
 * t = 4a, the piece k = floor(t) in 0..15 (a in [k/4, (k+1)/4)) and the
 * variable u = t - k in [0, 1): t is exact (a power of 2 times a; a is
 * normal or 0, t < 16), and so is u (k <= t < k + 1, both multiples of
 * t's ULP: no rounding). Each piece is a degree-5 polynomial P_k(u),
 * evaluated by Horner (fma per step), and the result is
 *
 *     fma(P, A, A),   A = min(|x|, 1) with the sign of x
 *
 * which is one rounding of both forms of the method:
 *
 * pieces 0..3 (a < 1, A = +-a): P approximates Q = erf(a)/a - 1 in
 * [-0.16, 0.129], so the result is a + a Q rounded once. a Q is small
 * against a, so Q's roundings are small against the result: P's last
 * Horner step rounds by <= 2^-27 (|P| < 1/4), which moves the result by
 * <= 2^-27 |a|, against its ULP of at least 2^-24 0.84 |a| (erf a >=
 * 0.84 a below 1): under 0.15 ULP. The approximation errors are measured
 * by the sweep below together with the roundings (at most 0.21 ULP
 * beyond the final rounding's 0.5).
 *
 * pieces 4..15 (a >= 1, A = +-1): P approximates -erfc a (the table holds
 * -E), so the result is RN(1 - E) (the product by 1 exact), with sign:
 * erfc a <= 0.158 here, so an absolute error of E is an absolute error of
 * the result, which lies in [0.84, 1) where one ULP is 2^-24; E's Horner
 * roundings are below 2^-27. Every |x| >= 3.92 gives +-1 (erfc < 2^-25),
 * and the clamp at 4^- (piece 15) keeps that up to infinity.
 *
 * The sign needs no separate step: A carries it and erf is odd
 * (erf(+-0) = fma(P, +-0, +-0) = +-0).
 *
 * Coefficients (tools/gen_erf_coeffs.c, `gen_erf_coeffs table 4 5 1`):
 * weighted least squares on 600 Chebyshev nodes per piece in long double
 * against erfl/erfcl (Q: relative weight a/erf(a); E: absolute), then
 * fixed to f32 one at a time from the constant term up with the rest
 * refitted.
 *
 * Measured (the proof): `gen_erf_coeffs sweep` runs rt_erf_f32_lane below
 * on every f32 a from 2^-126 to +inf against glibc's erfl (64-bit
 * significand): at most 0.703 ULP from the exact value (at a =
 * 0x1.f7ca58p-1, piece 3), 0 results more than 1 ULP from the correctly
 * rounded one (the op table's bound); erf is odd and the form works on |x|
 * and puts the sign back exactly, so the negative half is the mirror
 * image. (The previous table, pieces of 0.875-0.75 at degrees 6 and 8:
 * 0.809 ULP; per piece now: 0.663, 0.597, 0.574, 0.703, 0.676, 0.613,
 * then falling to 0.500.)
 *
 * Flagged for the exact path (math_impl.h's dv_erf, rounded once): NaN
 * and subnormal inputs, whose subnormal results the contract wants
 * correctly rounded. Every other input gives a normal result (erf a >=
 * 1.128 a >= 2^-126 for normal a) or a zero (a = 0), so no result needs
 * checking. */
#ifndef PLUMB_RT_MATH_ERF_H
#define PLUMB_RT_MATH_ERF_H

#include <math.h>

#define RT_ERF_CLAMP 0x1.fffffep1f   /* the largest float below 4: t = 4a < 16, piece <= 15 */
#define RT_ERF_SCALE 4.0f            /* pieces per unit of a */
#define RT_ERF_DEG 5

/* Row j: the coefficient of u^j of each piece's polynomial, pieces 0..15
 * (a in [k/4, (k+1)/4)) in lanes 0..15: pieces 0..3 Q, pieces 4..15 -E
 * (above). One row is one 512-bit register for a lane-wise vpermps by the
 * piece index (two 256-bit halves at the AVX2 level). Why narrow pieces
 * of low degree (issue 17): the vector forms' cost was the permutes, one
 * per coefficient (ten for the old table of degree 8 plus offsets); now
 * six, and no offset row (u comes from t by its fraction). */
static const float rt_erf_tab[RT_ERF_DEG + 1][16] __attribute__((aligned(64), unused)) = {
    {0x1.06eba8p-3f, 0x1.af54e2p-4f, 0x1.4fdeb8p-5f, -0x1.a848bap-5f,
     -0x1.422616p-3f, -0x1.3bcd14p-4f, -0x1.15aaaap-5f, -0x1.b4be22p-7f,
     -0x1.328f5ep-8f, -0x1.7f713ap-10f, -0x1.aab846p-12f, -0x1.a609dp-14f,
     -0x1.729db8p-16f, -0x1.20c0ep-18f, -0x1.8ef1f8p-21f, -0x1.e8732ap-24f},
    {-0x1.2406c4p-23f, -0x1.73072p-5f, -0x1.4c3876p-4f, -0x1.a0cdaep-4f,
     0x1.a91202p-4f, 0x1.e46598p-5f, 0x1.e72402p-6f, 0x1.b05594p-7f,
     0x1.529b64p-8f, 0x1.d4128p-10f, 0x1.1d8066p-11f, 0x1.335b4ap-13f,
     0x1.24001p-15f, 0x1.e99ecap-18f, 0x1.6a400ep-20f, 0x1.d90834p-23f},
    {-0x1.811e94p-6f, -0x1.5762a4p-6f, -0x1.d6e2ep-7f, -0x1.9a9bdep-8f,
     -0x1.a91686p-6f, -0x1.2ec8a4p-6f, -0x1.6d678ep-7f, -0x1.7a533p-8f,
     -0x1.529674p-9f, -0x1.0736dcp-10f, -0x1.64a4f4p-12f, -0x1.a622fap-14f,
     -0x1.b53b2p-16f, -0x1.8ccf7ap-18f, -0x1.3bde66p-20f, -0x1.b97038p-23f},
    {-0x1.485d1ep-17f, 0x1.abcbe2p-10f, 0x1.563088p-9f, 0x1.5bcb3cp-9f,
     0x1.1c0c44p-9f, 0x1.585c64p-9f, 0x1.1d0938p-9f, 0x1.71de14p-10f,
     0x1.8ab882p-11f, 0x1.628edep-12f, 0x1.0f7f5ap-13f, 0x1.6561cap-15f,
     0x1.9682ccp-17f, 0x1.911bfap-19f, 0x1.58458cp-21f, 0x1.019ae8p-23f},
    {0x1.e32b82p-12f, 0x1.76aedap-12f, 0x1.fcdfe8p-14f, -0x1.d29ccap-14f,
     0x1.11228p-12f, -0x1.635c3ep-15f, -0x1.88e822p-13f, -0x1.9398cap-13f,
     -0x1.180196p-13f, -0x1.2e05eep-14f, -0x1.09deb4p-15f, -0x1.87ab7cp-17f,
     -0x1.e9592cp-19f, -0x1.059616p-20f, -0x1.e16c2ep-23f, -0x1.7f0a04p-25f},
    {-0x1.38c09cp-16f, -0x1.7957bcp-15f, -0x1.7d1636p-15f, -0x1.a16b18p-16f,
     -0x1.f6676ep-15f, -0x1.f5bc0ep-16f, -0x1.29f1a6p-19f, 0x1.745974p-17f,
     0x1.97c2fep-17f, 0x1.1216aap-17f, 0x1.158ae8p-18f, 0x1.c4d9d4p-20f,
     0x1.324cap-21f, 0x1.5d61b8p-23f, 0x1.53639cp-25f, 0x1.1ae0a2p-27f},
};

/* One lane: erf x, and *bad set when x is NaN or subnormal (the caller
 * takes those from the exact path). fmaf is the one rounding of a*b + c
 * (a library call or one instruction), the rest plain f32 operations
 * (t - k exact, so the same value as the vector forms' t - floor(t)). */
static inline __attribute__((unused)) float rt_erf_f32_lane(float x, int *bad)
{
    float a = fabsf(x);
    *bad = !(a >= 0x1p-126f) && a != 0.0f;   /* NaN, or subnormal */
    a = a < RT_ERF_CLAMP ? a : RT_ERF_CLAMP;  /* NaN: the clamp, flagged */
    float t = a * RT_ERF_SCALE;
    int k = (int)t;                           /* 0..15 */
    float u = t - (float)k;
    float e = rt_erf_tab[RT_ERF_DEG][k];
    for (int j = RT_ERF_DEG - 1; j >= 0; j--)
        e = fmaf(e, u, rt_erf_tab[j][k]);
    float A = copysignf(a < 1.0f ? a : 1.0f, x);
    return fmaf(e, A, A);
}

#endif
