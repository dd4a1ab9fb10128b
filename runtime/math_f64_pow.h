/* Vector f64 power for runtime/k_ew_float.c, included from math_f64.h in
 * both of its parts: with MATH_F64_SHARED defined (the constants) and once
 * per ISA inside its per-ISA body (the vector code, using math_f64.h's
 * helpers: d_pow2, d_round, d_fix_lanes2, f64_pow_lane). Kept apart from
 * math_f64.h so that power's method can change without touching the other
 * f64 functions. Same rules as math_f64.h: plain IEEE double operations,
 * no fused multiply-add, the same bits at every ISA level. */
#ifdef MATH_F64_SHARED

/* power: fdlibm's e_pow.c (Sun Microsystems, 1993) main path, lane by
 * lane: log2|x| = t1 + t2 in extra precision (t1 with 29 trailing zero
 * bits) from s = (x - bp)/(x + bp), bp = 1 or 1.5, and the polynomial in
 * s^2 below; y log2|x| = p_h + p_l (y split into 21 + 32 bits, so p_h =
 * y1 t1 is exact); 2^(p_h + p_l) = 2^n 2^r, |r| <= 1/2, its tail carried
 * into the exp2 polynomial (P1..P5, fdlibm's exp kernel). fdlibm states
 * the result "nearly rounded"; Java's StrictMath.pow is this code and
 * Math.pow's contract (within 1 ULP of the exact value) is met by it:
 * within 1 ULP of the correctly rounded value, the table's bound, which
 * the test checks on 10^7 operands against MPFR. Constants as fdlibm
 * prints them (hex in its comments). */
#define POW64_DP_H 5.84962487220764160156e-01  /* 0x3FE2B803 40000000: log2(1.5) high */
#define POW64_DP_L 1.35003920212974897128e-08  /* 0x3E4CFDEB 43CFD006 */
#define POW64_L1 5.99999999999994648725e-01 /* 0x3FE33333 33333303 */
#define POW64_L2 4.28571428578550184252e-01 /* 0x3FDB6DB6 DB6FABFF */
#define POW64_L3 3.33333329818377432918e-01 /* 0x3FD55555 518F264D */
#define POW64_L4 2.72728123808534006489e-01 /* 0x3FD17460 A91D4101 */
#define POW64_L5 2.30660745775561754067e-01 /* 0x3FCD864A 93C9DB65 */
#define POW64_L6 2.06975017800338417784e-01 /* 0x3FCA7E28 4A454EEF */
#define POW64_P1 1.66666666666666019037e-01  /* 0x3FC55555 5555553E */
#define POW64_P2 -2.77777777770155933842e-03 /* 0xBF66C16C 16BEBD93 */
#define POW64_P3 6.61375632143793436117e-05  /* 0x3F11566A AF25DE2C */
#define POW64_P4 -1.65339022054652515390e-06 /* 0xBEBBBD41 C5D26BF1 */
#define POW64_P5 4.13813679705723846039e-08  /* 0x3E663769 72BEA4D0 */
#define POW64_LG2 6.93147180559945286227e-01   /* 0x3FE62E42 FEFA39EF */
#define POW64_LG2_H 6.93147182464599609375e-01 /* 0x3FE62E43 00000000 */
#define POW64_LG2_L -1.90465429995776804525e-09 /* 0xBE205C61 0CA86C39 */
#define POW64_CP 9.61796693925975554329e-01   /* 0x3FEEC709 DC3A03FD: 2/(3 ln2) */
#define POW64_CP_H 9.61796700954437255859e-01 /* 0x3FEEC709 E0000000 */
#define POW64_CP_L -7.02846165095275826516e-09 /* 0xBE3E2FE0 145B01F5 */

#else /* per ISA */

/* x with its low 32 bits cleared (fdlibm's __LO(x) = 0) */
TI vd N(d_lo0)(vd x) { return (vd)((vl)x & (int64_t)0xFFFFFFFF00000000ull); }

/* pow(x, y), fdlibm's main path (see POW64_*), on the lanes with x
 * normal and finite, y finite, nonzero and |y| <= 2^31, x > 0 or y an
 * integer (the sign of |x|^y then from y's parity), and y log2|x| in
 * (-1021, 1023): a normal result, no overflow. y = 1, 2, -1 (any finite
 * nonzero x) and 1/2 (x > 0) are x, x*x, 1/x and sqrt x, correctly
 * rounded; x < 0 finite with a non-integral finite y is the default NaN.
 * *bad marks the rest (zeros, infinities, NaN, subnormal x, x = 1,
 * y = 0, huge |y|, overflow and underflow), for the scalar rule. */
TI vd N(d_pow)(vd x, vd y, vl *bad)
{
    vd ax = (vd)((vl)x & F64_ABS), ay = (vd)((vl)y & F64_ABS);
    vl xfin = ax <= 0x1.fffffffffffffp1023, yfin = ay <= 0x1.fffffffffffffp1023;   /* false for NaN */
    vd yt = N(d_round)((vd)N(sell)(yfin, (vl)y, (vl)((vd){0})), R_TRUNC);
    vl yint = yt == y;
    vl xneg = x < 0.0;
    vl nanres = xneg & xfin & yfin & ~yint;
    vl ok = (ax >= 0x1p-1022) & xfin & (ay <= 0x1p31) & (y != 0.0) & (x != 1.0) & (~xneg | yint);
    vl yodd = yint & ((__builtin_convertvector((vd)N(sell)(ok, (vl)yt, (vl)((vd){0})), vl) & 1) != 0);
    vd xs = (vd)N(sell)(ok, (vl)ax, (vl)((vd){0} + 1.5));
    vd ys = (vd)N(sell)(ok, (vl)y, (vl)((vd){0} + 1.0));
    /* log2|x| = n + log2(axn), axn in [1, 2) or [0.75, 1.5) around bp */
    vl ix = (vl)xs >> 32;
    vl n = (ix >> 20) - 0x3ff;
    vl j = ix & 0x000fffff;
    ix = j | 0x3ff00000;
    vl k1 = (j > 0x3988E) & (j < 0xBB67A);   /* sqrt(3/2) <= axn < sqrt(3): bp = 1.5 */
    vl kup = j >= 0xBB67A;                   /* axn >= sqrt(3): halve it */
    n -= kup;
    ix -= kup & 0x00100000;
    vd axn = (vd)((ix << 32) | ((vl)xs & 0xFFFFFFFFll));
    vd bp = (vd)N(sell)(k1, (vl)((vd){0} + 1.5), (vl)((vd){0} + 1.0));
    vd dph = (vd)((vl)((vd){0} + POW64_DP_H) & k1);
    vd dpl = (vd)((vl)((vd){0} + POW64_DP_L) & k1);
    /* ss = s_h + s_l = (axn - bp)/(axn + bp) */
    vd u = axn - bp;
    vd v = 1.0 / (axn + bp);
    vd ss = u * v;
    vd s_h = N(d_lo0)(ss);
    vd t_h = (vd)((((ix >> 1) | 0x20000000) + 0x00080000 + (k1 & (1 << 18))) << 32);   /* axn + bp, high part */
    vd t_l = axn - (t_h - bp);
    vd s_l = v * ((u - s_h * t_h) - s_h * t_l);
    vd s2 = ss * ss;
    vd r = s2 * s2 * (POW64_L1 + s2 * (POW64_L2 + s2 * (POW64_L3 + s2 * (POW64_L4 + s2 * (POW64_L5 + s2 * POW64_L6)))));
    r += s_l * (s_h + ss);
    s2 = s_h * s_h;
    t_h = N(d_lo0)(3.0 + s2 + r);
    t_l = r - ((t_h - 3.0) - s2);
    u = s_h * t_h;
    v = s_l * t_h + t_l * ss;
    vd p_h = N(d_lo0)(u + v);
    vd p_l = v - (p_h - u);
    vd z_h = POW64_CP_H * p_h;
    vd z_l = POW64_CP_L * p_h + p_l * POW64_CP + dpl;
    vd t = __builtin_convertvector(n, vd);
    vd t1 = N(d_lo0)(((z_h + z_l) + dph) + t);
    vd t2 = z_l - (((t1 - t) - dph) - z_h);
    /* y log2|x| = p_h + p_l, p_h exact (21 by 24 bits) */
    vd y1 = N(d_lo0)(ys);
    p_l = (ys - y1) * t1 + ys * t2;
    p_h = y1 * t1;
    vd z = p_l + p_h;
    ok &= (z > -1021.0) & (z < 1023.0);
    /* 2^z = 2^nd 2^(p_h - nd + p_l), nd the nearest integer (|z| < 2^41
     * here: the 1.5 2^52 trick is exact); p_h - nd is exact (Sterbenz, or
     * nd = 0) */
    vd nd = (z + 0x1.8p52) - 0x1.8p52;
    nd = (vd)((vl)nd & ok);
    p_h -= nd;
    t = N(d_lo0)(p_l + p_h);
    u = t * POW64_LG2_H;
    v = (p_l - (t - p_h)) * POW64_LG2 + t * POW64_LG2_L;
    z = u + v;
    vd w = v - (z - u);
    t = z * z;
    t1 = z - t * (POW64_P1 + t * (POW64_P2 + t * (POW64_P3 + t * (POW64_P4 + t * POW64_P5))));
    r = (z * t1) / (t1 - 2.0) - (w + z * w);
    z = 1.0 - (r - z);
    vd res = z * N(d_pow2)(__builtin_convertvector(nd, vl));   /* exact: normal result */
    res = (vd)((vl)res ^ (xneg & yodd & F64_SIGN));
    /* the correctly rounded special exponents */
    vl xnz = xfin & (x != 0.0);
    vl e1 = xnz & (y == 1.0), e2 = xnz & (y == 2.0), em1 = xnz & (y == -1.0), eh = xfin & (x > 0.0) & (y == 0.5);
    vd xe = (vd)N(sell)(xnz, (vl)x, (vl)((vd){0} + 1.0));
    res = (vd)N(sell)(e2, (vl)(xe * xe), (vl)res);
    res = (vd)N(sell)(em1, (vl)(1.0 / xe), (vl)res);
    res = (vd)N(sell)(eh, (vl)N(d_sqrt)((vd)N(sell)(eh, (vl)x, (vl)((vd){0} + 1.0))), (vl)res);
    res = (vd)N(sell)(e1, (vl)x, (vl)res);
    res = (vd)N(sell)(nanres, (vl){0} + F64_DNAN, (vl)res);
    *bad = ~(ok | e1 | e2 | em1 | eh | nanres);
    return res;
}

TI vd N(d_powv)(vd x, vd y)
{
    vl bad;
    vd r = N(d_pow)(x, y, &bad);
    return N(d_fix_lanes2)(r, x, y, bad, f64_pow_lane);
}

#endif
