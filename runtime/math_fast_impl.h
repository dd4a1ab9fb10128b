/* Fast f32 transcendentals for AVX2 and AVX-512 (both with FMA), included
 * by math_avx2.c and math_avx512.c after math_impl.h, which define
 * vfma() and vany() (is any lane of a mask set) for their target. The
 * arithmetic is written once on blocks of doubles (4 lanes at AVX2, 8 at
 * AVX-512: math_impl.h's VM_LANES), each step one IEEE operation per lane
 * (multiply, add, fused multiply-add, f32 division), so both targets give
 * the same bits.
 *
 * Why double inside: an f32 result whose internal value carries a relative
 * error e rounds to within 0.5 + e 2^24 ULP; with e < 2^-26 every function
 * stays within 0.75 ULP, inside the op table's 1 ULP (2 for tanh and
 * logistic), with short Taylor polynomials and no double division (the
 * reciprocals are an f32 division refined by one Newton step in double:
 * 2^-24 -> 2^-48). docs/runtime-math.md has each function's error budget
 * and the exhaustive measurements.
 *
 * Only normal results are produced here. A lane whose input is special
 * (NaN, infinity, out of the fast range) or whose value is not safely
 * normal (|v| < 2^-125, where the contract wants the subnormal or zero
 * EXACT, or |v| > 2^127 near the overflow threshold) is recomputed, its
 * whole block, by the exact double path of math_impl.h and blended in: so
 * special values and subnormal results are those of that path.
 *
 * exp, logistic and tanh are taken from here at neither level: AVX-512 has
 * 16-lane f32 versions (math_avx512.c) and AVX2 8-lane f32 versions
 * (math_avx2.c), with the same blend rule; their bits differ between the
 * two levels. expm1, log, log1p, sin, cos and erfc come from here at both;
 * erf is math_erf.h's f32 form at every level (the same bits at all three). */

#define F_LOG2E 1.4426950408889634074
#define F_LN2HI 0x1.62e42fefa39efp-1         /* ln 2 rounded to double */
#define F_LN2LO 0x1.abc9e3b39803fp-56        /* ln 2 - F_LN2HI */

/* k = round(x / ln 2), r = x - k ln 2 for |x| <= 200: x - k F_LN2HI in
 * one fma is within 2^-54 |r| (|r| <= 0.35), the F_LN2LO term brings the
 * constant to 2^-108, so r is within 2^-53 relative of x - k ln 2. */
VMI vd fx_reduce(vd x, vl *k)
{
    vd t = x * F_LOG2E + VM_SHIFT;
    vd kd = t - VM_SHIFT;
    *k = (vl)t - (vl)vsplat(VM_SHIFT);
    vd r = vfma(-kd, vsplat(F_LN2HI), x);
    return vfma(-kd, vsplat(F_LN2LO), r);
}

/* e^r for |r| <= 0.35: Taylor to r^7, omitted term < 0.35^8/8! < 2^-27.5
 * relative; Horner's roundings add < 2^-50. */
VMI vd fx_exp_r(vd r)
{
    vd p = vsplat(1.0 / 5040);
    p = vfma(p, r, vsplat(1.0 / 720));
    p = vfma(p, r, vsplat(1.0 / 120));
    p = vfma(p, r, vsplat(1.0 / 24));
    p = vfma(p, r, vsplat(1.0 / 6));
    p = vfma(p, r, vsplat(0.5));
    p = vfma(p, r, vsplat(1.0));
    return vfma(p, r, vsplat(1.0));
}

/* e^r - 1 for |r| <= 0.35: r + r^2 (1/2 + ... + r^6/8!), omitted term
 * r^9/9! < 2^-30 |r|, so relative to r even near 0. */
VMI vd fx_expm1_r(vd r)
{
    vd p = vsplat(1.0 / 40320);
    p = vfma(p, r, vsplat(1.0 / 5040));
    p = vfma(p, r, vsplat(1.0 / 720));
    p = vfma(p, r, vsplat(1.0 / 120));
    p = vfma(p, r, vsplat(1.0 / 24));
    p = vfma(p, r, vsplat(1.0 / 6));
    p = vfma(p, r, vsplat(0.5));
    return vfma(r * r, p, r);
}

/* e^x, |x| <= 200: relative error < 2^-27. */
VMI vd fx_exp(vd x)
{
    vl k;
    vd r = fx_reduce(x, &k);
    return fx_exp_r(r) * vpow2i(k);
}

/* e^x - 1, |x| <= 200: k = 0 gives the series (relative near 0); otherwise
 * 2^k q + (2^k - 1) with |e^x - 1| >= 0.29, where the sum does not cancel
 * (relative error < 2^-29). */
VMI vd fx_expm1(vd x)
{
    vl k;
    vd r = fx_reduce(x, &k);
    vd q = fx_expm1_r(r), s = vpow2i(k);
    return vsel(k == 0, q, vfma(s, q, s - 1.0));
}

/* 1/d for d in [2^-100, 2^100]: the f32 quotient (relative 2^-24; d within
 * f32's range) and one Newton step y + y (1 - d y): relative 2^-48 + 2^-52. */
VMI vd fx_recip(vd d)
{
    vf df = vtof(d);
    vd y = vtod(1.0f / df);
    return vfma(y, vfma(-d, y, vsplat(1.0)), y);
}

/* log a for a normal double a > 0: a = 2^k m, m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s), s = (m-1)/(m+1) (m - 1 exact; the reciprocal 2^-48),
 * |s| <= 0.1716, series to s^13 (omitted s^15/15 < 2^-34 |s|); k ln2 in two
 * parts. Relative error < 2^-33 (for k != 0 the result is >= 0.34). */
VMI vd fx_log(vd a)
{
    vl ix = (vl)a;
    vl tmp = ix - 0x3FE6A09E667F3BCDll;
    vl k = tmp >> 52;
    vd m = (vd)(ix - (tmp & (int64_t)0xFFF0000000000000ull));
    vd s = (m - 1.0) * fx_recip(m + 1.0);
    vd z = s * s;
    vd p = vsplat(1.0 / 13);
    p = vfma(p, z, vsplat(1.0 / 11));
    p = vfma(p, z, vsplat(1.0 / 9));
    p = vfma(p, z, vsplat(1.0 / 7));
    p = vfma(p, z, vsplat(1.0 / 5));
    p = vfma(p, z, vsplat(1.0 / 3));
    vd s2 = s + s;
    vd lm = vfma(s2 * z, p, s2);
    vd kd = vi2d(k);
    return vfma(kd, vsplat(F_LN2HI), vfma(kd, vsplat(F_LN2LO), lm));
}

/* ---- the fast blocks: value in double, and which lanes must be redone -------- */

VMI vl fx_unsafe(vd v)
{
    vd m = vabs(v);
    return ~((m >= 0x1p-125) & (m <= 0x1p127));   /* NaN: unsafe too */
}

/* exp: |x| <= 88.7 (beyond: overflow or subnormal results, the exact path) */
VMI vd fb_exp(vf xf, vl *bad)
{
    vd x = vtod(xf);
    *bad = ~(vabs(x) <= 88.0);
    return fx_exp(clamp200(x));
}

VMI vd fb_expm1(vf xf, vl *bad)
{
    vd x = vtod(xf);
    *bad = ~(x <= 88.0);
    return fx_expm1(clamp200(x));
}

/* logistic = 1/(1 + e^-x): e within 2^-27, 1 + e adds 2^-53 (no
 * cancellation), the reciprocal 2^-48. x < -87 (subnormal results) is the
 * exact path's. */
VMI vd fb_logistic(vf xf, vl *bad)
{
    vd x = vtod(xf);
    *bad = ~(x >= -87.0);
    vd e = fx_exp(vmax(vmin(-x, vsplat(87.0)), vsplat(-100.0)));
    return fx_recip(1.0 + e);
}

/* tanh |x| = e/(e + 2), e = expm1(2|x|) (relative 2^-29 even near 0; the
 * quotient's sensitivity to e is 2/(e+2) <= 1); |x| clamped to 10, where
 * tanh is 1 in f32. */
VMI vd fb_tanh(vf xf, vl *bad)
{
    vd x = vtod(xf);
    *bad = ~(vabs(x) <= __FLT_MAX__);
    vd a = vmin(vabs(x), vsplat(10.0));
    vd e = fx_expm1(a + a);
    return vor(e * fx_recip(e + 2.0), vsign(x));
}

VMI vd fb_log(vf xf, vl *bad)
{
    vd x = vtod(xf);
    vl ok = (x > 0.0) & (x <= __FLT_MAX__);
    *bad = ~ok;
    return fx_log(vsel(ok, x, vsplat(1.0)));
}

/* log1p: |x| < 2^-10 by x - x^2/2 + x^3/3 - x^4/4 (omitted x^5/5 < 2^-42
 * |x|); otherwise log(1 + x) with 1 + x exact in double for f32 x below
 * 2^20 and rounded by 2^-53 above (which moves log by less). */
VMI vd fb_log1p(vf xf, vl *bad)
{
    vd x = vtod(xf);
    vl ok = (x > -1.0) & (x <= __FLT_MAX__);
    *bad = ~ok;
    vd u = vsel(ok, 1.0 + x, vsplat(1.0));
    vd big = fx_log(u);
    vd p = vfma(x, vsplat(-0.25), vsplat(1.0 / 3));
    p = vfma(p, x, vsplat(-0.5));
    vd small = vfma(x * x, p, x);
    return vsel(vabs(x) < 0x1p-10, small, big);
}

/* sin, cos: k = round(x 2/pi) (|x| < 2^20, so k < 2^20), r = x - k pi/2
 * by three fmas with pi/2 in three doubles: x - k P1 is exact (a multiple
 * of 2^-52 below 1), the next two round by 2^-53 relative and leave
 * k 2^-160 of the constant, so r is within 2^-52 relative of the exact
 * reduction while |r| >= 2^-40 (f32 inputs below 2^20 stay farther from
 * multiples of pi/2). Taylor to r^11 / r^12 on |r| <= pi/4: omitted terms
 * < 2^-36 relative. */
#define F_PIO2_1 0x1.921fb54442d18p0
#define F_PIO2_2 0x1.1a62633145c07p-54
#define F_PIO2_3 -0x1.f1976b7ed8fbcp-110
VMI vd fb_trig(vf xf, vl *bad, int cosine)
{
    vd x = vtod(xf);
    vl ok = vabs(x) < 0x1p20;
    *bad = ~ok;
    x = vsel(ok, x, vsplat(0.0));
    vd t = x * INVPIO2 + VM_SHIFT;
    vd k = t - VM_SHIFT;
    vl q = ((vl)t - (vl)vsplat(VM_SHIFT)) + cosine;
    vd r = vfma(-k, vsplat(F_PIO2_1), x);
    r = vfma(-k, vsplat(F_PIO2_2), r);
    r = vfma(-k, vsplat(F_PIO2_3), r);
    vd z = r * r;
    vd ps = vsplat(-1.0 / 39916800);
    ps = vfma(ps, z, vsplat(1.0 / 362880));
    ps = vfma(ps, z, vsplat(-1.0 / 5040));
    ps = vfma(ps, z, vsplat(1.0 / 120));
    ps = vfma(ps, z, vsplat(-1.0 / 6));
    vd s = vfma(r * z, ps, r);
    vd pc = vsplat(1.0 / 479001600);
    pc = vfma(pc, z, vsplat(-1.0 / 3628800));
    pc = vfma(pc, z, vsplat(1.0 / 40320));
    pc = vfma(pc, z, vsplat(-1.0 / 720));
    pc = vfma(pc, z, vsplat(1.0 / 24));
    pc = vfma(pc, z, vsplat(-0.5));
    vd c = vfma(z, pc, vsplat(1.0));
    vd res = vsel((q & 1) != 0, c, s);
    return vsel((q & 2) != 0, -res, res);
}
VMI vd fb_sin(vf xf, vl *bad) { return fb_trig(xf, bad, 0); }
VMI vd fb_cos(vf xf, vl *bad) { return fb_trig(xf, bad, 1); }

/* erfc (math_impl.h's form with shorter polynomials; f32 erf no longer
 * comes from here, see math_erf.h, but the analysis reads for both): |x| < 1/2
 * by the Taylor series to n = 7 (omitted term 0.25^8/(8! 17) < 2^-34.4
 * relative to x; the alternating terms fall by 4 or more, no
 * cancellation); z = |x| >= 1/2 by erfc z = t e^(P(s) - z^2), t = 2/(2 +
 * z) = 2 recip(2 + z) (2^-48), s = 3.125 t - 1.5, P the degree-11
 * Chebyshev interpolant of log(erfc(z)/t) + z^2 on t in [0.16, 0.8]
 * (z in [0.5, 10.5]; computed as math_impl.h's degree-16 one; error below
 * 2^-33.2 on 20,001 points against MPFR). fx_exp's 2^-27 dominates: erfc z
 * within 2^-26.9 relative. erf = +-(1 - erfc z) with erfc z <= 0.4795 and
 * 1 - erfc z >= 0.5205: within 2^-27 relative; erfc x = 2 - erfc |x|
 * for x <= -1/2 (>= 1.52, no cancellation), 1 - erf x for |x| < 1/2.
 * So each is within 0.5 + 2^-2.9 ULP of the exact value before the
 * blend. Results below 2^-125 (erf of tiny x, erfc of x > 9.2) and NaN
 * inputs are the exact path's (fx_unsafe). */
static const double FX_ERFC_G11[12] = {
    -0x1.65b1a9cfee7fep-1,  0x1.b6320d8c994cdp-2,  0x1.62ceb7e81d116p-6, -0x1.8411c4cef044ap-7,
    -0x1.fdc1b78c0483ap-10, 0x1.d49d1ee69704bp-11, 0x1.5b1e8bbd67245p-13, -0x1.9fecd41068d15p-14,
    -0x1.829ef5c8072abp-17, 0x1.95cb41a160eabp-17, 0x1.76e2e250ap-22,     -0x1.2a7f71d7dd555p-20,
};

VMI vd fx_erf_small(vd x)
{
    vd z = x * x;
    vd p = vsplat(-1.0 / (40320.0 * 17));
    p = vfma(p, z, vsplat(1.0 / (5040.0 * 15)));
    p = vfma(p, z, vsplat(-1.0 / (720.0 * 13)));
    p = vfma(p, z, vsplat(1.0 / (120.0 * 11)));
    p = vfma(p, z, vsplat(-1.0 / (24.0 * 9)));
    p = vfma(p, z, vsplat(1.0 / (6.0 * 7)));
    p = vfma(p, z, vsplat(-1.0 / (2.0 * 5)));
    p = vfma(p, z, vsplat(1.0 / 3));
    return (ERF_2_SQRTPI * x) * vfma(-z, p, vsplat(1.0));
}

/* erfc z for z in [0.5, 10.5] (callers clamp) */
VMI vd fx_erfc_tail(vd z)
{
    vd q = fx_recip(z + 2.0);
    vd s = vfma(q, vsplat(6.25), vsplat(-1.5));
    vd p = vsplat(FX_ERFC_G11[11]);
    for (int i = 10; i >= 0; i--)
        p = vfma(p, s, vsplat(FX_ERFC_G11[i]));
    return (q + q) * fx_exp(vfma(-z, z, p));
}

/* erfc; the tail is computed only in blocks where some lane needs it.
 * (f32 erf is math_erf.h's at every level.) */
VMI vd fb_erfc(vf xf, vl *bad)
{
    vd x = vtod(xf);
    vd a = vabs(x);
    *bad = x != x;
    vd r = 1.0 - fx_erf_small(x);
    vl big = a >= 0.5;
    if (vany(big)) {
        vd e = fx_erfc_tail(vmax(vmin(a, vsplat(10.5)), vsplat(0.5)));
        r = vsel(big, vsel(x < 0.0, 2.0 - e, e), r);
    }
    return r;
}

/* One block: the fast value where it is safe, else the exact path's
 * block (exactexpr) for all its lanes, blended lane by lane. */
#define FX_UNARY(name, exactexpr)                                               \
    VMI vf VM(fxb_##name)(vf x)                                                 \
    {                                                                           \
        vl bad;                                                                 \
        vd v = fb_##name(x, &bad);                                              \
        vf r = vtof(v);                                                         \
        vl redo = bad | fx_unsafe(v);                                           \
        if (__builtin_expect(vany(redo), 0)) {                                  \
            vf e = exactexpr;                                                   \
            vi m = __builtin_convertvector(redo, vi);                           \
            r = (vf)((m & fbits(e)) | (~m & fbits(r)));                         \
        }                                                                       \
        return r;                                                               \
    }                                                                           \
    static void VM(fx_##name)(const float *in, float *out, size_t n)            \
    {                                                                           \
        size_t i = 0;                                                           \
        for (; i + 2 * VM_LANES <= n; i += 2 * VM_LANES) {                      \
            vf a = VM(fxb_##name)(vload(in + i));                               \
            vf b = VM(fxb_##name)(vload(in + i + VM_LANES));                    \
            vstore(out + i, a);                                                 \
            vstore(out + i + VM_LANES, b);                                      \
        }                                                                       \
        for (; i + VM_LANES <= n; i += VM_LANES)                                \
            vstore(out + i, VM(fxb_##name)(vload(in + i)));                     \
        if (i < n) {                                                            \
            float buf[VM_LANES] = {0};                                          \
            memcpy(buf, in + i, (n - i) * sizeof(float));                      \
            vstore(buf, VM(fxb_##name)(vload(buf)));                            \
            memcpy(out + i, buf, (n - i) * sizeof(float));                      \
        }                                                                       \
    }

FX_UNARY(exp, f32_of(PLUMB_OP_EXPONENTIAL, x, dv_exp(x)))
FX_UNARY(expm1, f32_of(PLUMB_OP_EXPONENTIAL_MINUS_ONE, x, dv_expm1(x)))
FX_UNARY(logistic, f32_of(PLUMB_OP_LOGISTIC, x, dv_logistic(x)))
FX_UNARY(tanh, f32_of(PLUMB_OP_TANH, x, dv_tanh(x)))
FX_UNARY(log, f32_of(PLUMB_OP_LOG, x, dv_log(x)))
FX_UNARY(log1p, f32_of(PLUMB_OP_LOG_PLUS_ONE, x, dv_log1p(x)))
FX_UNARY(sin, f32_of(PLUMB_OP_SINE, x, dv_trig(x, TRIG_SIN)))
FX_UNARY(cos, f32_of(PLUMB_OP_COSINE, x, dv_trig(x, TRIG_COS)))
FX_UNARY(erfc, f32_of(PLUMB_OP_ERFC, x, dv_erfc(x)))

/* This ISA's table: the fast functions where there is one. */
static rt_vmath_f32_fn VM(fx_unary)(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: return VM(fx_exp);
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: return VM(fx_expm1);
    case PLUMB_OP_LOGISTIC: return VM(fx_logistic);
    case PLUMB_OP_TANH: return VM(fx_tanh);
    case PLUMB_OP_LOG: return VM(fx_log);
    case PLUMB_OP_LOG_PLUS_ONE: return VM(fx_log1p);
    case PLUMB_OP_SINE: return VM(fx_sin);
    case PLUMB_OP_COSINE: return VM(fx_cos);
    case PLUMB_OP_ERFC: return VM(fx_erfc);
    default: return VM(vm_unary)(op);
    }
}
