/* The f32 vector math, written once and compiled three times: by
 * math_portable.c (baseline instructions), math_avx2.c (AVX2 + FMA) and
 * math_avx512.c (AVX-512), each of which sets the target with a pragma and
 * defines VM_SUFFIX before including this file. Private to those three.
 *
 * Design (docs/runtime-math.md has the error analysis and the measured
 * worst errors): every function converts a block of floats (VM_LANES: 8, or
 * 4 at AVX2, 2 at the portable level) to doubles, evaluates
 * in double precision with a relative error below 2^-43 (RT_MATH_DERR
 * allows 2^-40), and rounds once: to float with the hardware conversion
 * (round to nearest even, subnormals produced, MXCSR never touched), or —
 * the vmd_* variants — hands the double to the f16/bf16 kernels, which
 * round it once to their type. An f32 result carrying a relative error
 * e < 2^-35 before its one rounding is within 0.5 + 2^-11 ULP. Results the
 * contract wants exact (subnormal, zero, at the overflow threshold) are
 * checked against that error bound and, when the double cannot decide
 * them, recomputed by the correctly rounded slow path (math_slow.c). The
 * approximations are Taylor/atanh series after Cody-Waite range reduction
 * (exact in double for float inputs), so their truncation errors are
 * bounded by the first omitted term. This is the exact path: the portable
 * level uses it for everything, the AVX2/AVX-512 fast path
 * (math_fast_impl.h) for its special lanes.
 *
 * The code uses GCC's generic vector extensions only, so the compiler picks
 * the instructions of the target the including file selected. No FMA is
 * relied on: the file is built with -ffp-contract=off and every product of
 * a reduction step is exact by construction. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt_math.h"

#ifndef PLUMB_RT_MATH_IMPL_ONCE
#define PLUMB_RT_MATH_IMPL_ONCE
/* Each ISA's tables (math_avx2.c, math_avx512.c); math_portable.c dispatches. */
rt_vmath_f32_fn rt_vmath_unary_avx2(plumb_opcode op);
rt_vmath2_f32_fn rt_vmath_binary_avx2(plumb_opcode op);
rt_vmath_f32d_fn rt_vmathd_unary_avx2(plumb_opcode op);
rt_vmath2_f32d_fn rt_vmathd_binary_avx2(plumb_opcode op);
rt_vmath_f32_fn rt_vmath_unary_avx512(plumb_opcode op);
rt_vmath2_f32_fn rt_vmath_binary_avx512(plumb_opcode op);
rt_vmath_f32d_fn rt_vmathd_unary_avx512(plumb_opcode op);
rt_vmath2_f32d_fn rt_vmathd_binary_avx512(plumb_opcode op);
#endif

/* Every function taking or returning a vector here is static, so the
 * vector calling convention never crosses a file boundary. */
#pragma GCC diagnostic ignored "-Wpsabi"

#define VMI static inline __attribute__((always_inline))

#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VM(name) VM_CAT(name, VM_SUFFIX)

/* Lanes per block: 8 by default; an including file may set 4 (math_avx2.c:
 * GCC keeps 8-double vectors in memory on a 256-bit target, 4 doubles fit
 * one register) or 2 (math_portable.c: the 128-bit baseline). Every
 * operation is per lane, so a lane's bits do not depend on the width. */
#ifndef VM_LANES
#define VM_LANES 8
#endif
#if VM_LANES != 8 && VM_LANES != 4 && VM_LANES != 2
#error "VM_LANES must be 8, 4 or 2"
#endif
typedef double vd __attribute__((vector_size(8 * VM_LANES)));
typedef int64_t vl __attribute__((vector_size(8 * VM_LANES)));
typedef float vf __attribute__((vector_size(4 * VM_LANES)));
typedef int32_t vi __attribute__((vector_size(4 * VM_LANES)));

#define VM_SHIFT 0x1.8p52   /* adding it rounds |x| < 2^51 to an integer */

VMI vd vsel(vl m, vd a, vd b) { return (vd)(((vl)a & m) | ((vl)b & ~m)); }
VMI vd vabs(vd x) { return (vd)((vl)x & 0x7FFFFFFFFFFFFFFFll); }
VMI vd vsign(vd x) { return (vd)((vl)x & (int64_t)0x8000000000000000ull); }
VMI vd vor(vd a, vd b) { return (vd)((vl)a | (vl)b); }
#if VM_LANES == 8
VMI vd vsplat(double c) { return (vd){c, c, c, c, c, c, c, c}; }
#elif VM_LANES == 4
VMI vd vsplat(double c) { return (vd){c, c, c, c}; }
#else
VMI vd vsplat(double c) { return (vd){c, c}; }
#endif
VMI vd vmin(vd a, vd b) { return vsel(a < b, a, b); }
VMI vd vmax(vd a, vd b) { return vsel(a > b, a, b); }
VMI vd vtod(vf x) { return __builtin_convertvector(x, vd); }
VMI vf vtof(vd x) { return __builtin_convertvector(x, vf); }
/* int64 lanes (|k| < 2^51) to double without a conversion instruction. */
VMI vd vi2d(vl k) { return (vd)(k + (vl)vsplat(VM_SHIFT)) - VM_SHIFT; }
VMI vd vpow2i(vl k) { return (vd)((k + 1023) << 52); }   /* -1022 <= k <= 1023 */

/* ---- float-domain special-value fixes -------------------------------------- */

VMI vi fbits(vf x) { return (vi)x; }
VMI vi fisnan(vf x) { return (fbits(x) & 0x7FFFFFFF) > 0x7F800000; }
/* NaN operands give the operand quieted (sign and payload kept). */
VMI vf fix_nan1(vf x, vf r)
{
    vi m = fisnan(x);
    return (vf)((m & (fbits(x) | 0x00400000)) | (~m & fbits(r)));
}
VMI vf fset(vi m, vf r, uint32_t bits) { return (vf)((m & (int32_t)bits) | (~m & fbits(r))); }
#define F_DEFAULT_NAN 0x7FC00000u

/* ---- cores on doubles ------------------------------------------------------- */

static const double LN2HI = 6.93147180369123816490e-01;   /* 0x3FE62E42FEE00000: 32 bits */
static const double LN2LO = 1.90821492927058770002e-10;   /* ln2 - LN2HI */
static const double LOG2E = 1.44269504088896338700e+00;

/* x = k ln2 + r, |r| <= ln2/2 (+ rounding), for |x| <= 200: k*LN2HI is
 * exact (9 + 32 bits) and x - k*LN2HI is exact (Sterbenz), so r carries
 * only the rounding of the LN2LO term, ~2^-53 |k ln2|, far below 2^-40. */
VMI vd reduce_ln2(vd x, vl *k)
{
    vd t = x * LOG2E + VM_SHIFT;
    vd kd = t - VM_SHIFT;
    *k = (vl)t - (vl)vsplat(VM_SHIFT);
    return (x - kd * LN2HI) - kd * LN2LO;
}

/* e^r - 1 for |r| <= 0.35: Taylor to r^11; the first omitted term is
 * below 0.35^12/12! < 2^-46 relative. */
VMI vd expm1_poly(vd r)
{
    vd p = 1.0 / 39916800.0 + r * 0.0;
    p = 1.0 / 3628800.0 + r * p;
    p = 1.0 / 362880.0 + r * p;
    p = 1.0 / 40320.0 + r * p;
    p = 1.0 / 5040.0 + r * p;
    p = 1.0 / 720.0 + r * p;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    return r + (r * r) * p;
}

/* e^x for |x| <= 200 (callers clamp), relative error < 2^-45. */
VMI vd d_exp(vd x)
{
    vl k;
    vd r = reduce_ln2(x, &k);
    return (1.0 + expm1_poly(r)) * vpow2i(k);
}

/* e^x - 1 for |x| <= 200, relative error < 2^-44 (also near 0). */
VMI vd d_expm1(vd x)
{
    vl k;
    vd r = reduce_ln2(x, &k);
    vd q = expm1_poly(r), s = vpow2i(k);
    /* k != 0: |result| >= e^-1.04... - 1 stays away from 0, no cancellation. */
    return vsel(k == 0, q, s * q + (s - 1.0));
}

/* log(a) for finite a > 0 (a normal double), relative error < 2^-50:
 * a = 2^k m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
 * |s| <= 0.1716; series to s^23 (omitted term < 0.1716^24/25 < 2^-65). */
VMI vd d_log(vd a)
{
    vl ix = (vl)a;
    vl tmp = ix - 0x3FE6A09E667F3BCDll;
    vl k = tmp >> 52;
    vd m = (vd)(ix - (tmp & (int64_t)0xFFF0000000000000ull));
    vd s = (m - 1.0) / (m + 1.0);
    vd z = s * s;
    vd p = 1.0 / 23 + z * 0.0;
    p = 1.0 / 21 + z * p;
    p = 1.0 / 19 + z * p;
    p = 1.0 / 17 + z * p;
    p = 1.0 / 15 + z * p;
    p = 1.0 / 13 + z * p;
    p = 1.0 / 11 + z * p;
    p = 1.0 / 9 + z * p;
    p = 1.0 / 7 + z * p;
    p = 1.0 / 5 + z * p;
    p = 1.0 / 3 + z * p;
    vd lm = 2.0 * s + (2.0 * s) * (z * p);
    vd kd = vi2d(k);
    return kd * LN2HI + (kd * LN2LO + lm);
}

/* ---- the functions on a block of lanes, in double -------------------------------
 * Each dv_<name> returns the function's value in double (relative error
 * <= RT_MATH_DERR, infinities and signed zeros exact, invalid operations a
 * NaN); NaN operands are the wrappers' business. The f32 wrappers round it
 * once to float; the *_f32d variants hand it to the f16/bf16 kernels, which
 * round it once to their type. */

#define D_NAN vsplat(__builtin_nan(""))
#define D_INF vsplat(__builtin_inf())

VMI vd clamp200(vd x) { return vmax(vmin(x, vsplat(200.0)), vsplat(-200.0)); }

VMI vd dv_exp(vf xf) { return d_exp(clamp200(vtod(xf))); }

/* expm1 keeps the sign of x (the series' sum would turn -0 into +0). */
VMI vd dv_expm1(vf xf)
{
    vd x = clamp200(vtod(xf));
    return vor(d_expm1(x), vsign(x));
}

VMI vd dv_logistic(vf xf) { return 1.0 / (1.0 + d_exp(-clamp200(vtod(xf)))); }

/* tanh |x| = e/(e+2), e = expm1(2|x|); the sign is put back, so -0 -> -0. */
VMI vd dv_tanh(vf xf)
{
    vd x = vtod(xf);
    vd a = vmin(vabs(x), vsplat(20.0));
    vd e = d_expm1(a + a);
    return vor(e / (e + 2.0), vsign(x));
}

VMI vd dv_log(vf xf)
{
    vd x = vtod(xf);
    vd r = d_log(vsel((x > 0.0) & (x < __builtin_inf()), x, vsplat(1.0)));
    r = vsel(x == __builtin_inf(), D_INF, r);
    r = vsel(x == 0.0, -D_INF, r);
    return vsel(x < 0.0, D_NAN, r);
}

/* log1p: |x| < 2^-10 by its series (omitted term x^7/7 < 2^-60 |x|);
 * otherwise 1 + x is exact in double (x's last bit is >= 2^-33) or, for
 * x > 2^29, rounded with a relative error 2^-53 that changes log by less. */
VMI vd dv_log1p(vf xf)
{
    vd x = vtod(xf);
    vd u = 1.0 + x;
    vd big = d_log(vsel((u > 0.0) & (u < __builtin_inf()), u, vsplat(1.0)));
    vd p = -1.0 / 6 + x * (1.0 / 7);
    p = 1.0 / 5 + x * p;
    p = -1.0 / 4 + x * p;
    p = 1.0 / 3 + x * p;
    p = -0.5 + x * p;
    vd small = x + x * (x * p);
    vd r = vsel(vabs(x) < 0x1p-10, small, big);
    r = vsel(x == __builtin_inf(), D_INF, r);
    r = vsel(x == -1.0, -D_INF, r);
    return vsel(x < -1.0, D_NAN, r);
}

/* 1/sqrt: Newton's iteration y <- y (3/2 - a y^2 / 2) from a bit-pattern
 * estimate (relative error < 0.035); four steps reach the rounding level of
 * double (0.035 -> 1.8e-3 -> 5e-6 -> 4e-11 -> 2^-52). */
VMI vd dv_rsqrt(vf xf)
{
    vd a = vtod(xf);
    vd safe = vsel((a > 0.0) & (a < __builtin_inf()), a, vsplat(1.0));
    vd y = (vd)(0x5FE6EB50C7B537A9ll - ((vl)safe >> 1));
    vd h = 0.5 * safe;
    for (int i = 0; i < 4; i++)
        y = y * (1.5 - h * y * y);
    y = vsel(a == __builtin_inf(), vsplat(0.0), y);
    y = vsel(a == 0.0, vor(D_INF, vsign(a)), y);     /* rsqrt(+-0) = +-inf */
    return vsel(a < 0.0, D_NAN, y);
}

/* cbrt |x| = exp(log|x| / 3): log's absolute error (< 2^-50 * 104) and
 * exp's relative error leave < 2^-42 relative. */
VMI vd dv_cbrt(vf xf)
{
    vd x = vtod(xf);
    vd a = vabs(x);
    vl fin = (a > 0.0) & (a < __builtin_inf());
    vd c = d_exp(d_log(vsel(fin, a, vsplat(1.0))) * (1.0 / 3.0));
    return vor(vsel(fin, c, a), vsign(x));            /* 0, inf kept */
}

/* erfc (chlo.erfc), and the tail both erf paths share.
 *
 * |x| < 1/2: 1 - erf x with erf x = 2/sqrt(pi) sum_n (-1)^n x^(2n+1) /
 * (n! (2n+1)) (Taylor), n <= 10: the omitted term is below 0.25^11 /
 * (11! 23) < 2^-51 relative to x and the terms fall by at least 4 each, so
 * the alternating sum loses nothing; erf x <= 0.5205, so 1 - erf x >=
 * 0.4795 carries the same relative error.
 *
 * z = |x| >= 1/2: erfc z = t e^(P(s) - z^2) with t = 2/(2 + z) and P a
 * polynomial in s = 3.125 t - 1.5 (s in [-1, 1] for t in [0.16, 0.8], z
 * in [0.5, 10.5]) approximating g = log(erfc(z)/t) + z^2, the form of
 * Numerical Recipes' erfcc: g is smooth in t on all of [0, 1] (g(0) =
 * -log(2 sqrt(pi))), and an absolute error of P is a relative error of
 * erfc, the same at every z. P is the degree-16 Chebyshev interpolant of g
 * at 17 nodes on [0.16, 0.8], g evaluated with MPFR at 256 bits, converted
 * to monomials in s in long double and rounded to double; its error,
 * measured on 20,001 points against MPFR, is below 2^-46.4 (largest at
 * t = 0.16). The other roundings: t 2^-53, s within 2^-52 (moves P by
 * less), Horner's about 2^-51 of |P| <= 0.71, z^2 exact (f32 z), the sum
 * P - z^2 2^-53 of <= 111 (2^-46.2), d_exp 2^-45: erfc z within 2^-43.8
 * relative. z > 10.5: erfc z < 2^-161 rounds to 0 in every type served.
 * x <= -1/2: erfc x = 2 - erfc |x|, with erfc |x| <= 0.4795 no
 * cancellation (the result is >= 1.52). */
static const double ERFC_G16[17] = {
    -0x1.65b1a9cf759b2p-1, 0x1.b6320d8d9de22p-2,  0x1.62ceb3a36ecafp-6,  -0x1.8411cdfa6f7c5p-7,
    -0x1.fdbe8931be8bap-10, 0x1.d4a3d76a222f1p-11, 0x1.5aad06db8ce2dp-13, -0x1.a0d4a8fb93778p-14,
    -0x1.73c2f60f54969p-17, 0x1.a40bc13323f0fp-17, -0x1.ed3da1241e1e2p-24, -0x1.94181e585e1e2p-20,
    0x1.f7116e1c78788p-23,  0x1.3c9f4d4cp-23,      -0x1.b0517f74b4b4bp-25, -0x1.2af06ee1e1e1ep-27,
    0x1.66291ad2d2d2dp-28,
};
#define ERF_2_SQRTPI 1.1283791670955125739   /* 2/sqrt(pi) */

/* erf x for |x| < 1/2 by the Taylor series above (n <= 10) */
VMI vd erf_taylor(vd x)
{
    vd z = x * x;
    vd p = vsplat(-1.0 / (3628800.0 * 21));
    p = 1.0 / (362880.0 * 19) + z * p;
    p = -1.0 / (40320.0 * 17) + z * p;
    p = 1.0 / (5040.0 * 15) + z * p;
    p = -1.0 / (720.0 * 13) + z * p;
    p = 1.0 / (120.0 * 11) + z * p;
    p = -1.0 / (24.0 * 9) + z * p;
    p = 1.0 / (6.0 * 7) + z * p;
    p = -1.0 / (2.0 * 5) + z * p;
    p = 1.0 / 3 + z * p;
    return (ERF_2_SQRTPI * x) * (1.0 - z * p);
}

/* erfc z for z in [0.5, 10.5] (callers clamp) */
VMI vd erfc_tail(vd z)
{
    vd t = 2.0 / (2.0 + z);
    vd s = 3.125 * t - 1.5;
    vd p = vsplat(ERFC_G16[16]);
    for (int i = 15; i >= 0; i--)
        p = ERFC_G16[i] + s * p;
    return t * d_exp(p - z * z);
}

VMI vd dv_erfc(vf xf)
{
    vd x = vtod(xf);
    vd a = vabs(x);
    vd e = erfc_tail(vmax(vmin(a, vsplat(10.5)), vsplat(0.5)));
    vd r = vsel(x < 0.0, 2.0 - e, e);
    r = vsel(x > 10.5, vsplat(0.0), r);
    return vsel(a < 0.5, 1.0 - erf_taylor(vsel(a < 0.5, x, vsplat(0.0))), r);
}

/* erf x: the Taylor series for |x| < 1/2, +-(1 - erfc |x|) above, where
 * erfc |x| <= 0.4795 keeps 1 - erfc |x| >= 0.5205 (relative error below
 * 2^-43.9); +-1 for |x| > 10.5, where erfc |x| is below 2^-161. */
VMI vd dv_erf(vf xf)
{
    vd x = vtod(xf);
    vd a = vabs(x);
    vd e = erfc_tail(vmax(vmin(a, vsplat(10.5)), vsplat(0.5)));
    vd r = vor(1.0 - e, vsign(x));
    return vsel(a < 0.5, erf_taylor(vsel(a < 0.5, x, vsplat(0.0))), r);
}

/* ---- sine, cosine, tangent ----------------------------------------------------
 * x = k pi/2 + r with pi/2 in four parts of 33 bits (k < 2^20 times a part
 * is exact; the sum of the parts is pi/2 to 2^-130). Lanes with |x| >= 2^20
 * take the scalar path (trig_big). */
static const double INVPIO2 = 6.36619772367581382433e-01;
static const double PIO2_1 = 1.57079632673412561417e+00;    /* 0x3FF921FB54400000 */
static const double PIO2_2 = 6.07710050630396597660e-11;    /* 0x3DD0B4611A600000 */
static const double PIO2_3 = 2.02226624871116645580e-21;    /* 0x3BA3198A2E000000 */
static const double PIO2_3T = 8.47842766036889956997e-32;   /* 0x397B839A252049C1 */

VMI vd trig_reduce(vd x, vl *q)
{
    vd t = x * INVPIO2 + VM_SHIFT;
    vd k = t - VM_SHIFT;
    *q = ((vl)t - (vl)vsplat(VM_SHIFT)) & 3;
    return (((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3) - k * PIO2_3T;
}

/* sin r, cos r for |r| <= pi/4 + eps: Taylor to r^15 / r^16 (omitted
 * terms < 0.79^16/16! < 2^-48 relative). */
VMI vd sin_poly(vd r)
{
    vd z = r * r;
    vd p = -1.0 / 1307674368000.0 + z * 0.0;
    p = 1.0 / 6227020800.0 + z * p;
    p = -1.0 / 39916800.0 + z * p;
    p = 1.0 / 362880.0 + z * p;
    p = -1.0 / 5040.0 + z * p;
    p = 1.0 / 120.0 + z * p;
    p = -1.0 / 6.0 + z * p;
    return r + r * (z * p);
}

VMI vd cos_poly(vd r)
{
    vd z = r * r;
    vd p = 1.0 / 20922789888000.0 + z * 0.0;
    p = -1.0 / 87178291200.0 + z * p;
    p = 1.0 / 479001600.0 + z * p;
    p = -1.0 / 3628800.0 + z * p;
    p = 1.0 / 40320.0 + z * p;
    p = -1.0 / 720.0 + z * p;
    p = 1.0 / 24.0 + z * p;
    p = -0.5 + z * p;
    return 1.0 + z * p;
}

enum { TRIG_SIN, TRIG_COS, TRIG_TAN };

/* |x| >= 2^20: the C library's double functions reduce every double
 * exactly and are within 1 ULP of double (relative 2^-52), far inside
 * RT_MATH_DERR. Rare in practice; measured by the sweep. */
static double vm_trig_big(double d, int which)
{
    return which == TRIG_SIN ? sin(d) : which == TRIG_COS ? cos(d) : tan(d);
}

VMI vd dv_trig(vf xf, int which)
{
    vd x = vtod(xf);
    vl bigl = (vabs(x) >= 0x1p20) & (vabs(x) < __builtin_inf());
    vd xs = vsel(vabs(x) < 0x1p20, x, vsplat(0.0));
    vl q;
    vd r = trig_reduce(xs, &q);
    vd s = sin_poly(r), c = cos_poly(r);
    vd res;
    vl odd = (q & 1) != 0;
    if (which == TRIG_TAN) {
        res = vsel(odd, -c, s) / vsel(odd, s, c);
    } else {
        if (which == TRIG_COS)
            q = q + 1;
        res = vsel((q & 1) != 0, c, s);
        res = vsel((q & 2) != 0, -res, res);
    }
    res = vsel(vabs(x) == __builtin_inf(), D_NAN, res);
    if (which != TRIG_COS)   /* sin(+-0) = tan(+-0) = +-0 */
        res = vsel(x == 0.0, x, res);
    int any = 0;
    for (int j = 0; j < VM_LANES; j++)
        any |= bigl[j] != 0;
    if (any)
        for (int j = 0; j < VM_LANES; j++)
            if (bigl[j])
                res[j] = vm_trig_big(x[j], which);
    return res;
}

/* ---- power ----------------------------------------------------------------------
 * |x|^y = exp(y log|x|): log's relative error 2^-50 and the double product
 * give y log|x| within 2^-44 absolute while |y log|x|| <= 200, so exp's
 * result is within 2^-43 relative (beyond 200 the result is 0 or inf in
 * every type this serves). Special values per IEEE 754-2019 9.2.1 / C99
 * F.9.4.4, selected lane by lane at the end; NaN operands and pow(x, +-0),
 * pow(1, y) are the wrappers'. */
VMI vd dv_pow(vf xf, vf yf)
{
    vd x = vtod(xf), y = vtod(yf);
    vd a = vabs(x);
    vd l = d_log(vsel((a > 0.0) & (a < __builtin_inf()), a, vsplat(1.0)));
    l = vsel(a == 0.0, -D_INF, vsel(a == __builtin_inf(), D_INF, l));
    vd w = y * l;                                   /* NaN only for 0 * inf: a = 1, y = inf */
    vd r = d_exp(clamp200(w));
    r = vsel(w == __builtin_inf(), D_INF, r);
    r = vsel(w == -__builtin_inf(), vsplat(0.0), r);
    /* y integer and odd: |y| < 2^24 (larger floats are even integers). */
    vd ay = vabs(y);
    vd yr = (ay + VM_SHIFT) - VM_SHIFT;
    vl yint = (yr == ay) | (ay >= 0x1p24);
    vl yodd = (yr == ay) & (ay < 0x1p24) & ((((vl)(ay + VM_SHIFT)) & 1) != 0);
    vl xneg = (vl)x < 0;
    r = vsel(xneg & yodd, -r, r);
    /* x < 0 finite with y finite non-integer: invalid */
    r = vsel(xneg & ~yint & (a > 0.0) & (a < __builtin_inf()) & (ay < __builtin_inf()), D_NAN, r);
    /* |x| = 1 with y = +-inf: 1 (pow(-1, +-inf) = 1) */
    return vsel((a == 1.0) & (ay == __builtin_inf()), vsplat(1.0), r);
}

/* ---- atan2 ------------------------------------------------------------------------
 * t = min(|y|,|x|) / max(|y|,|x|) in [0, 1]; for t > tan(pi/8),
 * atan t = pi/4 + atan u with u = (n - d)/(n + d) computed from the
 * operands directly (one division either way); |u| <= tan(pi/8) = 0.4142,
 * series to u^29 (omitted term < 0.4142^30/31 < 2^-43 relative). */
VMI vd atan_series(vd u)
{
    vd z = u * u;
    vd p = -1.0 / 29 + z * 0.0;
    p = 1.0 / 27 + z * p;
    p = -1.0 / 25 + z * p;
    p = 1.0 / 23 + z * p;
    p = -1.0 / 21 + z * p;
    p = 1.0 / 19 + z * p;
    p = -1.0 / 17 + z * p;
    p = 1.0 / 15 + z * p;
    p = -1.0 / 13 + z * p;
    p = 1.0 / 11 + z * p;
    p = -1.0 / 9 + z * p;
    p = 1.0 / 7 + z * p;
    p = -1.0 / 5 + z * p;
    p = 1.0 / 3 + z * p;
    return u - u * (z * p);
}

/* Tiny ratios (result = atan(n/d) with n/d < 2^-100, the only results that
 * can be subnormal in f32, f16 or bf16): u = RN(n/d) and the series leaves
 * it unchanged (u^3/3 is below half an ulp of u), but u may be exactly a
 * rounding midpoint of the target while the exact value is not. The value
 * returned is instead the exact value rounded to odd at 53 bits, from which
 * one rounding to any format of <= 51 bits is correct (Boldo & Melquiond,
 * IEEE Trans. Computers 2008). Direction of the exact value from u: the
 * remainder rho = u d - n is exact here — u is split into 26 + 27 bits
 * (Dekker), each part times the f32 d is exact (50, 51 bits), hi d - n is
 * exact (Sterbenz: hi d is within 2^-26 of n) and the final sum is the
 * representable remainder of a correctly rounded quotient. If rho >= 0 then
 * u >= n/d > atan(n/d). If rho < 0, n/d - u = -rho/d is a nonzero multiple
 * of ulp(u) ulp(d)/d >= u 2^-77, while atan's correction (n/d)^3/3 is below
 * u 2^-200, so atan(n/d) > u. Never exact (atan t is irrational for
 * rational t != 0), so rounding to odd is: step one ulp toward the exact
 * value when u is even. */
VMI vd atan_tiny_odd(vd u, vd n, vd d)
{
    vd c = u * 134217729.0;                 /* 2^27 + 1 */
    vd hi = c - (c - u), lo = u - hi;
    vd rho = (hi * d - n) + lo * d;
    vl even = ((vl)u & 1) == 0;
    vl delta = (vl)(rho >= 0.0) | 1;        /* -1: toward 0 (u > 0), +1: away */
    return vsel(even & (u > 0.0), (vd)((vl)u + delta), u);
}

/* *exact_odd: lanes whose value is rounded to odd (no error bound needed). */
VMI vd dv_atan2(vf yf, vf xf, vl *exact_odd)
{
    vd y = vtod(yf), x = vtod(xf);
    vd ay = vabs(y), ax = vabs(x);
    vl swap = ay > ax;
    vd n = vsel(swap, ax, ay), d = vsel(swap, ay, ax);   /* n <= d */
    vl both_inf = (n == __builtin_inf());
    vl both_zero = (d == 0.0);
    n = vsel(both_inf, vsplat(1.0), vsel(both_zero, vsplat(0.0), n));
    d = vsel(both_inf, vsplat(1.0), vsel(both_zero, vsplat(1.0), d));
    vl inf_d = d == __builtin_inf();                     /* n finite, d inf: t = 0 */
    n = vsel(inf_d, vsplat(0.0), n);
    d = vsel(inf_d, vsplat(1.0), d);
    vl big = n > 0.41421356237309503 * d;
    vd u = vsel(big, n - d, n) / vsel(big, n + d, d);
    vd at = atan_series(u);
    vl tiny = ~big & ~swap & ((vl)x >= 0) & (u < 0x1p-100);
    at = vsel(tiny, atan_tiny_odd(u, n, d), at);
    *exact_odd = tiny;
    at = vsel(big, 0.78539816339744830962 + at, at);
    at = vsel(swap, 1.57079632679489661923 - at, at);
    at = vsel((vl)x < 0, 3.14159265358979323846 - at, at);
    return vor(at, vsign(y));
}

/* ---- f32 results ------------------------------------------------------------------ */

/* Lanes of the double value v (error bound rel per lane) whose f32
 * rounding the contract wants exact (subnormal, zero, overflow threshold)
 * but v cannot decide: their results come from the correctly rounded slow
 * path. Rare (a straddle needs the exact value within 2^-40 of a
 * boundary); the common case costs a few compares per block. The straddle
 * is tested on |v| (rounding to nearest is symmetric): on v itself an exact
 * -0 would straddle, -0 + 0 being +0. Lanes with a NaN operand are the NaN
 * rule's (their v is unspecified; the slow path would lose the payload). */
VMI void fix_hard(plumb_opcode op, vd v, vd rel, vf a, vf b, vf *r)
{
    vd m = vabs(v), e = m * rel;
    vl range = (m < 0x1p-126) | ((m >= 0x1p127) & (m < __builtin_inf()));
    vl straddle = __builtin_convertvector((fbits(vtof(m - e)) != fbits(vtof(m + e))) & ~fisnan(a) & ~fisnan(b), vl);
    vl hard = range & straddle;
    int any = 0;
    for (int j = 0; j < VM_LANES; j++)
        any |= hard[j] != 0;
    if (any)
        for (int j = 0; j < VM_LANES; j++)
            if (hard[j])
                (*r)[j] = plumb_f32_from_bits((uint32_t)rt_math_slow(op, PLUMB_F32, a[j], b[j]));
}

VMI vf f32_of(plumb_opcode op, vf x, vd v)
{
    vf r = fix_nan1(x, vtof(v));
    fix_hard(op, v, vsplat(RT_MATH_DERR), x, x, &r);
    return r;
}

/* NaN rule of the binary functions: the first NaN operand, quieted. */
VMI vf fix_nan2(vf a, vf b, vf r)
{
    vi na = fisnan(a), nb = fisnan(b), nan = na | nb;
    vi nanv = (na & (fbits(a) | 0x00400000)) | (~na & (fbits(b) | 0x00400000));
    return (vf)((nan & nanv) | (~nan & fbits(r)));
}

VMI vf f32_pow(vf xf, vf yf)
{
    vd v = dv_pow(xf, yf);
    vf r = fix_nan2(xf, yf, vtof(v));
    fix_hard(PLUMB_OP_POWER, v, vsplat(RT_MATH_DERR), xf, yf, &r);
    vi fx = fbits(xf), fy = fbits(yf);
    vi one = ((fy & 0x7FFFFFFF) == 0) | (fx == 0x3F800000);          /* pow(x, +-0), pow(1, y) */
    return fset(one, r, 0x3F800000u);
}

VMI vf f32_atan2(vf yf, vf xf)
{
    vl odd;
    vd v = dv_atan2(yf, xf, &odd);
    vf r = fix_nan2(yf, xf, vtof(v));
    fix_hard(PLUMB_OP_ATAN2, v, vsel(odd, vsplat(0.0), vsplat(RT_MATH_DERR)), yf, xf, &r);
    return r;
}

/* ---- array wrappers ------------------------------------------------------------- */

VMI vf vload(const float *p) { vf v; memcpy(&v, p, sizeof v); return v; }
VMI void vstore(float *p, vf v) { memcpy(p, &v, sizeof v); }
VMI void vstored(double *p, vd v) { memcpy(p, &v, sizeof v); }

/* Every wrapper runs whole blocks (the tail through a zeroed buffer),
 * so a lane's result never depends on the array length or alignment. */
#define VM_UNARY(name, OP, dexpr)                                               \
    static void VM(vm_##name)(const float *in, float *out, size_t n)            \
    {                                                                           \
        size_t i = 0;                                                           \
        for (; i + VM_LANES <= n; i += VM_LANES) {                              \
            vf x = vload(in + i);                                               \
            vstore(out + i, f32_of(OP, x, dexpr));                              \
        }                                                                       \
        if (i < n) {                                                            \
            float buf[VM_LANES] = {0};                                          \
            memcpy(buf, in + i, (n - i) * sizeof(float));                      \
            vf x = vload(buf);                                                  \
            vstore(buf, f32_of(OP, x, dexpr));                                  \
            memcpy(out + i, buf, (n - i) * sizeof(float));                      \
        }                                                                       \
    }                                                                           \
    static void VM(vmd_##name)(const float *in, double *out, size_t n)          \
    {                                                                           \
        size_t i = 0;                                                           \
        for (; i + VM_LANES <= n; i += VM_LANES) {                              \
            vf x = vload(in + i);                                               \
            vstored(out + i, dexpr);                                            \
        }                                                                       \
        if (i < n) {                                                            \
            float buf[VM_LANES] = {0};                                          \
            double bd[VM_LANES];                                                \
            memcpy(buf, in + i, (n - i) * sizeof(float));                      \
            vf x = vload(buf);                                                  \
            vstored(bd, dexpr);                                                 \
            memcpy(out + i, bd, (n - i) * sizeof(double));                     \
        }                                                                       \
    }

#define VM_BINARY(name, fexpr, dexpr)                                           \
    static void VM(vm_##name)(const float *ina, const float *inb, float *out, size_t n) \
    {                                                                           \
        size_t i = 0;                                                           \
        for (; i + VM_LANES <= n; i += VM_LANES) {                              \
            vf a = vload(ina + i), b = vload(inb + i);                          \
            vstore(out + i, fexpr);                                             \
        }                                                                       \
        if (i < n) {                                                            \
            float ba[VM_LANES] = {0}, bb[VM_LANES] = {0};                       \
            memcpy(ba, ina + i, (n - i) * sizeof(float));                       \
            memcpy(bb, inb + i, (n - i) * sizeof(float));                       \
            vf a = vload(ba), b = vload(bb);                                    \
            vstore(ba, fexpr);                                                  \
            memcpy(out + i, ba, (n - i) * sizeof(float));                       \
        }                                                                       \
    }                                                                           \
    static void VM(vmd_##name)(const float *ina, const float *inb, double *out, size_t n) \
    {                                                                           \
        vl odd;                                                                 \
        (void)odd;                                                              \
        size_t i = 0;                                                           \
        for (; i + VM_LANES <= n; i += VM_LANES) {                              \
            vf a = vload(ina + i), b = vload(inb + i);                          \
            vstored(out + i, dexpr);                                            \
        }                                                                       \
        if (i < n) {                                                            \
            float ba[VM_LANES] = {0}, bb[VM_LANES] = {0};                       \
            double bd[VM_LANES];                                                \
            memcpy(ba, ina + i, (n - i) * sizeof(float));                       \
            memcpy(bb, inb + i, (n - i) * sizeof(float));                       \
            vf a = vload(ba), b = vload(bb);                                    \
            vstored(bd, dexpr);                                                 \
            memcpy(out + i, bd, (n - i) * sizeof(double));                     \
        }                                                                       \
    }

VM_UNARY(exp, PLUMB_OP_EXPONENTIAL, dv_exp(x))
VM_UNARY(expm1, PLUMB_OP_EXPONENTIAL_MINUS_ONE, dv_expm1(x))
VM_UNARY(log, PLUMB_OP_LOG, dv_log(x))
VM_UNARY(log1p, PLUMB_OP_LOG_PLUS_ONE, dv_log1p(x))
VM_UNARY(tanh, PLUMB_OP_TANH, dv_tanh(x))
VM_UNARY(logistic, PLUMB_OP_LOGISTIC, dv_logistic(x))
VM_UNARY(rsqrt, PLUMB_OP_RSQRT, dv_rsqrt(x))
VM_UNARY(cbrt, PLUMB_OP_CBRT, dv_cbrt(x))
VM_UNARY(sin, PLUMB_OP_SINE, dv_trig(x, TRIG_SIN))
VM_UNARY(cos, PLUMB_OP_COSINE, dv_trig(x, TRIG_COS))
VM_UNARY(tan, PLUMB_OP_TAN, dv_trig(x, TRIG_TAN))
VM_UNARY(erfc, PLUMB_OP_ERFC, dv_erfc(x))
VM_UNARY(erf, PLUMB_OP_ERF, dv_erf(x))
VM_BINARY(pow, f32_pow(a, b), dv_pow(a, b))
VM_BINARY(atan2, f32_atan2(a, b), dv_atan2(a, b, &odd))

/* The tables of this ISA's functions, indexed by opcode. */
#define VM_TABLE(ret, prefix)                                                   \
    static ret VM(prefix##_unary)(plumb_opcode op)                              \
    {                                                                           \
        switch (op) {                                                           \
        case PLUMB_OP_EXPONENTIAL: return VM(prefix##_exp);                     \
        case PLUMB_OP_EXPONENTIAL_MINUS_ONE: return VM(prefix##_expm1);         \
        case PLUMB_OP_LOG: return VM(prefix##_log);                             \
        case PLUMB_OP_LOG_PLUS_ONE: return VM(prefix##_log1p);                  \
        case PLUMB_OP_TANH: return VM(prefix##_tanh);                           \
        case PLUMB_OP_LOGISTIC: return VM(prefix##_logistic);                   \
        case PLUMB_OP_RSQRT: return VM(prefix##_rsqrt);                         \
        case PLUMB_OP_CBRT: return VM(prefix##_cbrt);                           \
        case PLUMB_OP_ERF: return VM(prefix##_erf);                             \
        case PLUMB_OP_ERFC: return VM(prefix##_erfc);                           \
        case PLUMB_OP_SINE: return VM(prefix##_sin);                            \
        case PLUMB_OP_COSINE: return VM(prefix##_cos);                          \
        case PLUMB_OP_TAN: return VM(prefix##_tan);                             \
        default: return NULL;                                                   \
        }                                                                       \
    }
VM_TABLE(rt_vmath_f32_fn, vm)
VM_TABLE(rt_vmath_f32d_fn, vmd)

static rt_vmath2_f32_fn VM(vm_binary)(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_POWER: return VM(vm_pow);
    case PLUMB_OP_ATAN2: return VM(vm_atan2);
    default: return NULL;
    }
}

static rt_vmath2_f32d_fn VM(vmd_binary)(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_POWER: return VM(vmd_pow);
    case PLUMB_OP_ATAN2: return VM(vmd_atan2);
    default: return NULL;
    }
}
