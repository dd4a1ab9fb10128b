/* f32 erf in f32 arithmetic, the same IEEE operations at every level: the
 * tables and the one-lane form (the portable level), which the 16-lane
 * (math_x16.h, rt_x16_erf) and 8-lane (math_avx2.c, x8_erf) versions
 * repeat operation for operation, so all three give the same bits. (The
 * vector forms fetch a lane's coefficients by a permute of the table rows
 * below, or, when every lane lies in pieces 0 and 1, by a blend of those
 * two pieces' constants: the same values either way.)
 *
 * With a = min(|x|, 4) and the sign of x put back at the end (erf is odd;
 * erf(+-0) = +-0 falls out):
 *
 * a < 0.875: erf a = a + a Q(z), z = a^2, Q(z) = erf(a)/a - 1 in [-0.105,
 * 0.129], Q of degree 6 (Horner, fma per step), the result fma(a, Q, a)
 * rounded once. The product a Q is small against a (|Q| <= 0.129), so the
 * roundings inside Q (z's, each Horner step's) reach the result damped by
 * |Q| and z: the last Horner step's rounding is <= 2^-28 a, the ones
 * before it <= 2^-26 z a, the approximation error 2^-29.9 a.
 *
 * a >= 0.875: erf a = 1 - E, E a degree-8 polynomial in s = a - m_i
 * approximating erfc a on four pieces [0.875, 1.5), [1.5, 2.25), [2.25,
 * 3), [3, 4] with midpoints m_i = 1.1875, 1.875, 2.625, 3.5: s is exact
 * (Sterbenz: m_i / 2 <= a <= 2 m_i), and erfc a <= 0.2167 here, so an
 * absolute error of E is an absolute error of the result, which lies in
 * [0.78, 1) where one ULP is 2^-24: E's approximation errors are 2^-28.7,
 * 2^-31.3, 2^-33.3, 2^-32.9 (each piece), its Horner roundings a few
 * 2^-27 at most (E < 0.22). Every |x| >= 3.92 gives 1 (erfc < 2^-25), and
 * a clamped at 4 keeps that for infinities.
 *
 * Coefficients: weighted least squares on 600 Chebyshev nodes in long
 * double against erfl/erfcl, then fixed to f32 one at a time from the
 * constant term up with the rest refitted (a throwaway program; the
 * errors above are its maxima on 20,001 points of each interval).
 *
 * Measured: a throwaway program running this lane form on every f32 a
 * in [2^-126, 4.5] against glibc's erfl (long double) found the result at
 * most 0.81 ULP from the exact value (at a = 0x1.bb8d7ap-1 = 0.866, the
 * top of the first piece), so never more than 1 ULP from the correctly
 * rounded result, the op table's bound. `nice build/erf/tools/ulp_sweep
 * --op chlo.erf --isa avx512 --threads 2` (all 2^32 inputs against the
 * reference's correctly rounded erf): worst 1 ULP, 29,250,586 inputs at
 * 1 ULP, 0 over the bound, 0 special-value mismatches.
 *
 * Flagged for the exact path (math_impl.h's dv_erf, rounded once): NaN
 * and subnormal inputs, whose subnormal results the contract wants
 * correctly rounded. Every other input gives a normal result (erf a >=
 * 1.128 a >= 2^-126 for normal a) or a zero (a = 0), so no result needs
 * checking. */
#ifndef PLUMB_RT_MATH_ERF_H
#define PLUMB_RT_MATH_ERF_H

#include <math.h>

#define RT_ERF_SPLIT 0.875f   /* below: the Q form; above: 1 - E */
#define RT_ERF_CLAMP 4.0f

/* Q(z) = erf(a)/a - 1, z = a^2 in [0, 0.766]: coefficients of z^0 .. z^6
 * (lane 0 of rt_erf_tail below; the vector forms use this copy when no lane
 * of a vector leaves the Q piece) */
static const float rt_erf_q[7] __attribute__((unused)) = {
    0x1.06eba8p-3f, -0x1.812742p-2f, 0x1.ce2dfep-4f, -0x1.b80f9p-6f,
    0x1.54deeep-8f, -0x1.ab694ap-11f, 0x1.61bc42p-14f,
};

/* Row 0: the pieces' variable offsets; row 1 + j: the coefficient of the
 * variable^j of each piece's polynomial. Lane 0 is the Q piece (variable
 * z, offset unused, degree 6: rows 8 and 9 zero), lanes 1-4 the four E
 * pieces (variable s = a - m_i). Each row is padded to 16 floats so that a
 * row is one 512-bit (or the first 256 bits) table for a lane-wise permute
 * by the piece index 0..4.
 *
 * Why one table with the Q piece in it (issue 17): a vector holding lanes
 * of both kinds evaluates one Horner chain on every lane, with the
 * coefficients of each lane's own piece, instead of the Q chain on all
 * lanes and the E chain on all lanes. The bits are those of the two
 * chains: on a Q lane the chain starts e = 0, fma(0, z, 0) = +0,
 * fma(0, z, q6) = q6 exactly, and then runs Q's own Horner steps; the
 * result fma(a, e, a) is Q's; on an E lane it is E's chain and 1 - e. */
static const float rt_erf_tail[10][16] __attribute__((aligned(64), unused)) = {
    {0.0f, 1.1875f, 1.875f, 2.625f, 3.5f},
    {0x1.06eba8p-3f, 0x1.7d3fa6p-4f, 0x1.067844p-7f, 0x1.aeb442p-13f, 0x1.8ef3cap-21f},
    {-0x1.812742p-2f, -0x1.1a0dc6p-2f, -0x1.12cebp-5f, -0x1.2ce8bep-10f, -0x1.6a34dp-18f},
    {0x1.ce2dfep-4f, 0x1.4ef06ep-2f, 0x1.01a1c8p-4f, 0x1.8af15ap-9f, 0x1.3d073p-16f},
    {-0x1.b80f9p-6f, -0x1.56485p-3f, -0x1.143dbp-4f, -0x1.407c4ep-8f, -0x1.63c0fep-15f},
    {0x1.54deeep-8f, -0x1.415952p-7f, 0x1.5a325cp-5f, 0x1.62d276p-8f, 0x1.1c405cp-14f},
    {-0x1.ab694ap-11f, 0x1.c0c458p-5f, -0x1.772b6p-7f, -0x1.14c3ap-8f, -0x1.519044p-14f},
    {0x1.61bc42p-14f, -0x1.35e5b8p-6f, -0x1.0de1acp-8f, 0x1.26e1d4p-9f, 0x1.4392aep-14f},
    {0.0f, -0x1.ad733cp-8f, 0x1.3b07b4p-8f, -0x1.4b4596p-11f, -0x1.188f5ep-14f},
    {0.0f, 0x1.52277ep-8f, -0x1.56c6f6p-10f, -0x1.f3830ap-15f, 0x1.36b0e6p-15f},
};

/* The piece boundaries above the first */
#define RT_ERF_B1 1.5f
#define RT_ERF_B2 2.25f
#define RT_ERF_B3 3.0f

/* One lane: erf x, and *bad set when x is NaN or subnormal (the caller
 * takes those from the exact path). fmaf is the one rounding of a*b + c
 * (a library call or one instruction), the rest plain f32 operations. */
static inline __attribute__((unused)) float rt_erf_f32_lane(float x, int *bad)
{
    float a = fabsf(x);
    *bad = !(a >= 0x1p-126f) && a != 0.0f;   /* NaN, or subnormal */
    a = a < RT_ERF_CLAMP ? a : RT_ERF_CLAMP;  /* NaN: 4, flagged */
    float z = a * a;
    /* the piece: 0 (Q) below the split, else 1 + how many boundaries a reaches */
    int i = (a >= RT_ERF_SPLIT) + (a >= RT_ERF_B1) + (a >= RT_ERF_B2) + (a >= RT_ERF_B3);
    float v = i ? a - rt_erf_tail[0][i] : z, e = rt_erf_tail[9][i];
    for (int j = 7; j >= 0; j--)
        e = fmaf(e, v, rt_erf_tail[1 + j][i]);
    float r = i ? 1.0f - e : fmaf(a, e, a);
    return copysignf(r, x);
}

#endif
