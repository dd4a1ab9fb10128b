/* Vector f64 exponential and log for the elementwise loops of runtime/k_ew_float.c,
 * which includes this file twice: once outside its per-ISA body (with
 * MATH_F64_SHARED defined: the table and the scalar path of the lanes the
 * vector code does not take) and once inside it for each ISA (portable,
 * AVX2, AVX-512; its vd/vl vector types, N() names and TI qualifiers).
 *
 * Plain IEEE double operations (the library builds with
 * -ffp-contract=off) and, at AVX2 and AVX-512, explicit fused
 * multiply-adds only where their one rounding gives an exact value
 * (d_mul_err, d_sq_err, d_rem_exact, d_zinv_m1) that the portable level,
 * which has no fused multiply-add, computes exactly too: so every ISA
 * gives the same bits. docs/runtime-math.md ("f64 exponential") has
 * the error budget: before its one rounding the value is within 2^-57.2
 * relative of e^x, so the result is within 0.554 ULP of the exact value,
 * inside the op table's 1 ULP of the correctly rounded one. */
#ifdef MATH_F64_SHARED

/* e^x = 2^k 2^(j/64) e^r, N = round(x 64/ln2) = 64k + j, r = x - N ln2/64.
 * EXP64_L1 is ln2/64 rounded to 36 significant bits, so N*L1 is exact for
 * |N| < 2^17 (|x| <= 709 gives |N| <= 65,464); EXP64_L2 = ln2/64 - L1
 * rounded to double (L1 + L2 is within 2^-99 of ln2/64). Computed with
 * MPFR at 400 bits. */
#define EXP64_INV 0x1.71547652b82fep+6   /* 64/ln2 rounded */
#define EXP64_L1 0x1.62e42fefap-7
#define EXP64_L2 0x1.cf79abc9e3b3ap-46
#define EXP64_LO (-708.0)   /* e^-708 > 2^-1022: every result of [LO, HI] is normal */
#define EXP64_HI 709.0      /* e^709 < 2^1023.9 (DBL_MAX): no overflow */

/* 2^(j/64) = EXP64_T[2j] + EXP64_T[2j+1], the first the value rounded to
 * double, the second the rest rounded (MPFR, 400 bits): within 2^-106. */
static const double EXP64_T[128] = {
    0x1p+0, 0x0p+0,    0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
    0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,    0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
    0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,    0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
    0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,    0x1.1429aaea92dep+0, -0x1.32fbf9af1369ep-54,
    0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,    0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
    0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,    0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
    0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,    0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
    0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,    0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
    0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,    0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
    0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,    0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
    0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,    0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
    0x1.44e086061892dp+0, 0x1.89b7a04ef80dp-59,    0x1.486a2b5c13cdp+0, 0x1.3c1a3b69062fp-56,
    0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,    0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
    0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,    0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
    0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,    0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
    0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,    0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
    0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,    0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
    0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,    0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
    0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,    0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
    0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,    0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
    0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,    0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
    0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,    0x1.97d829fde4e5p+0, -0x1.d185b7c1b85d1p-54,
    0x1.9c49182a3f09p+0, 0x1.c7c46b071f2bep-56,    0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
    0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,    0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
    0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,    0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
    0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,    0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
    0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,    0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
    0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,    0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
    0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,    0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
    0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,    0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
    0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,    0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6bp-54,
    0x1.f50765b6e454p+0, 0x1.9d3e12dd8a18bp-54,    0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55,
};

/* Lanes outside [EXP64_LO, EXP64_HI] (NaN, infinities, overflow,
 * subnormal and zero results): the engine's per-element rule
 * (k_elementwise.c: NaN quieted, else the long double exp rounded once,
 * exact where subnormal or at the overflow threshold). */
/* NaN lanes: quieted, payload and sign kept (the engine's rule); also the
 * whole scalar path of the vector tanh, which takes every other lane. */
static double f64_nan_lane(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    b |= 0x0008000000000000ull;
    memcpy(&x, &b, 8);
    return x;
}

static double f64_exp_lane(double x)
{
    if (x != x)
        return f64_nan_lane(x);
    uint64_t r = rt_math_narrow_ld(PLUMB_OP_EXPONENTIAL, expl(x), RT_MATH_LDERR, x, 0);
    double d;
    memcpy(&d, &r, 8);
    return d;
}

/* log1p (and expm1's reduction: LN2_HI, LN2_LO): fdlibm's constants
 * (e_log.c, s_log1p.c; Sun Microsystems, 1993). x = 2^k (1 + f), 1 + f
 * in [sqrt(2)/2, sqrt(2)), s = f/(2 + f), log(1 + f) = f - hfsq + s (hfsq
 * + R), R(s^2) the minimax polynomial below (|R - (2 atanh(s)/s - 2 -
 * ...)| < 2^-58.45 on its interval, fdlibm's analysis), k ln2 in two
 * parts (LN2_HI has 21 trailing zero bits: k LN2_HI is exact for |k| <=
 * 1074); fdlibm states the result within 1 ULP of the exact value. (log
 * itself: the table method, d_log.) */
#define LOG64_LN2_HI 6.93147180369123816490e-01 /* 0x3FE62E42 FEE00000 */
#define LOG64_LN2_LO 1.90821492927058770002e-10 /* 0x3DEA39EF 35793C76 */
#define LOG64_LG1 6.666666666666735130e-01 /* 3FE55555 55555593 */
#define LOG64_LG2 3.999999999940941908e-01 /* 3FD99999 9997FA04 */
#define LOG64_LG3 2.857142874366239149e-01 /* 3FD24924 94229359 */
#define LOG64_LG4 2.222219843214978396e-01 /* 3FCC71C5 1D8E78AF */
#define LOG64_LG5 1.818357216161805012e-01 /* 3FC74664 96CB03DE */
#define LOG64_LG6 1.531383769920937332e-01 /* 3FC39A09 D078C69F */
#define LOG64_LG7 1.479819860511658591e-01 /* 3FC2F112 DF3E5244 */

/* Lanes the vector log does not take (NaN, zero, negative, subnormal,
 * infinite operands): the engine's per-element rule, as f64_exp_lane. */
static double f64_log_lane(double x)
{
    uint64_t b;
    double d;
    if (x != x)
        return f64_nan_lane(x);
    long double r = logl(x);
    b = isnan(r) ? 0x7FF8000000000000ull : rt_math_narrow_ld(PLUMB_OP_LOG, r, RT_MATH_LDERR, x, 0);
    memcpy(&d, &b, 8);
    return d;
}

/* Lanes the vector logistic does not take (NaN, |x| > LOGI64_MAX): the
 * engine's rule, 1/(1 + e^-x) in long double rounded once. */
#define LOGI64_MAX 700.0
static double f64_logistic_lane(double x)
{
    uint64_t b;
    double d;
    if (x != x)
        return f64_nan_lane(x);
    long double r = 1.0L / (1.0L + expl(-(long double)x));
    b = rt_math_narrow_ld(PLUMB_OP_LOGISTIC, r, RT_MATH_LDERR, x, 0);
    memcpy(&d, &b, 8);
    return d;
}

/* e^f - 1 = f + f^2/2 + f^3 Q(f), Q = sum_{n=3}^{14} f^(n-3)/n!: the
 * 1/n! rounded to double (exact rationals, Python's fractions), for the
 * pair of d_expm1_pair, |f| <= ln2/2 + 2^-40: the omitted f^15/15! is
 * below 2^-61.6 |f|. */
static const double EM64_C[12] = {
    0x1.5555555555555p-3, 0x1.5555555555555p-5, 0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10,
    0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22,
    0x1.ae64567f544e4p-26, 0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37,
};
#define EM64_INVLN2 0x1.71547652b82fep+0 /* 1/ln2 rounded */
#define TANH64_BIG 22.0   /* tanh is 1 in double from 19.07 on */

/* tanh x = -m/(2 + m), m = e^t - 1, t = -2a (a = |x| clamped to
 * TANH64_BIG), the sign put back at the end. Two methods, both computed
 * on every lane (each lane's bits depend on its own operand only, so
 * every vector width agrees), the lane taking one by a < 1/16:
 *
 * a >= 1/16: m from exp's table (d_exp_parts' reduction, N = RN(t 64/ln2)
 * = 64K + j, r = t - N ln2/64, p = e^r - 1 by its degree-6 polynomial),
 * e^t = S (1 + p) + Sl (1 + p), S = 2^K T_hi and Sl = 2^K T_lo exact
 * (K <= -1: t <= -1/8 gives N <= -11; 2^K >= 2^-64, normal). m = A + l:
 * A = RN(S - 1) with its error A_lo = S - (A + 1) exact (Fast2Sum, 1 >=
 * S), l = S p + ((A_lo + Sl) + Sl p). Error of m, absolute: the roundings
 * of r, p, S p and l, each half an ULP of a value below 2^-7 (|r| <=
 * 0.005417), so <= 2^-61 each (and proportional to S), p's truncation
 * 2^-65: <= 2^-59 in all; relative to |m| >= 0.1175 (a >= 1/16) <=
 * 2^-55.9 = 0.134 2^-53, times tanh's sensitivity 2/(2 + m) <= 1.06
 * there (at larger a, S and the errors shrink as |m| grows).
 * Then, as the pair method before: Fast2Sum to n + nl = -m (|A| >= 0.11
 * > |l|), d + dl = 2 - n - nl (Fast2Sum, 2 >= n), q = RN(n/d), y = RN(q
 * + ((n - q d) + nl - q dl)/d) with n - q d exact (d_rem_exact; until
 * issue 17's sixth round within 2^-76 q d by Dekker's product on halves
 * cut by masks; the correction is below 2^-52 q, its roundings < 0.01
 * ULP). <= 0.5 + 0.15 + 0.01 = 0.66 ULP.
 *
 * a < 1/16: tanh a = a + a z P(z), z = a^2, P = Taylor's -1/3 + 2/15 z -
 * ... to z^5 (a^13; the coefficients 2^2n (2^2n - 1) B_2n/(2n)! rounded
 * to double from exact rationals): the omitted a^15 term is below
 * 2^-65.4 a; a z P < a/768, so its few roundings are below 0.01 ULP of
 * the result: <= 0.51 ULP. a below 2^-27 (subnormal too) gives a
 * exactly (a z P under half an ULP of a).
 *
 * Budget <= 0.66 ULP from the exact value (was 0.81 with d_expm1_pair's
 * pair on every lane), inside the table's 2 ULP. *bad: NaN lanes. */
#define TANH64_SMALL 0.0625
/* sign, exponent and the top 25 stored bits: x & F64_HI26 and the rest
 * split a double into two parts of 26 and 27 significant bits (Dekker's
 * product without Veltkamp's three operations per split) */
#define F64_HI26 ((int64_t)0xFFFFFFFFF8000000ull)
static const double TANH64_P[6] = {
    -0x1.5555555555555p-2, 0x1.1111111111111p-3, -0x1.ba1ba1ba1ba1cp-5,
    0x1.664f4882c10fap-6, -0x1.226e355e6c23dp-7, 0x1.d6d3d0e157de0p-9,
};

/* Lanes the vector expm1 does not take (NaN, x > EXP64_HI: overflow and
 * its neighbourhood): the engine's rule, expm1l rounded once. */
static double f64_expm1_lane(double x)
{
    if (x != x)
        return f64_nan_lane(x);
    uint64_t r = rt_math_narrow_ld(PLUMB_OP_EXPONENTIAL_MINUS_ONE, expm1l(x), RT_MATH_LDERR, x, 0);
    double d;
    memcpy(&d, &r, 8);
    return d;
}

/* Lanes the vector log1p does not take (NaN, x <= -1, +infinity): the
 * engine's rule, log1pl rounded once (-1 gives -infinity, below it the
 * default NaN). */
static double f64_log1p_lane(double x)
{
    uint64_t b;
    double d;
    if (x != x)
        return f64_nan_lane(x);
    long double r = log1pl(x);
    b = isnan(r) ? 0x7FF8000000000000ull : rt_math_narrow_ld(PLUMB_OP_LOG_PLUS_ONE, r, RT_MATH_LDERR, x, 0);
    memcpy(&d, &b, 8);
    return d;
}

/* sine and cosine: fdlibm's e_rem_pio2.c medium case (|x| <= 2^19 pi/2:
 * n = trunc(|x| 2/pi + 1/2), |x| - n pi/2 in three 33-bit pieces of pi/2,
 * the second and third only where the first cancels) and its
 * __kernel_sin/__kernel_cos (Sun Microsystems, 1993), constants and
 * operation order as there; fdlibm states sin and cos within 1 ULP. */
#define SC64_INVPIO2 6.36619772367581382433e-01 /* 0x3FE45F30 6DC9C883 */
#define SC64_PIO2_1 1.57079632673412561417e+00  /* 0x3FF921FB 54400000 */
#define SC64_PIO2_1T 6.07710050650619224932e-11 /* 0x3DD0B461 1A626331 */
#define SC64_PIO2_2 6.07710050630396597660e-11  /* 0x3DD0B461 1A600000 */
#define SC64_PIO2_2T 2.02226624879595063154e-21 /* 0x3BA3198A 2E037073 */
#define SC64_PIO2_3 2.02226624871116645580e-21  /* 0x3BA3198A 2E000000 */
#define SC64_PIO2_3T 8.47842766036889956997e-32 /* 0x397B839A 252049C1 */
#define SC64_S1 -1.66666666666666324348e-01 /* 0xBFC55555 55555549 */
#define SC64_S2 8.33333333332248946124e-03  /* 0x3F811111 1110F8A6 */
#define SC64_S3 -1.98412698298579493134e-04 /* 0xBF2A01A0 19C161D5 */
#define SC64_S4 2.75573137070700676789e-06  /* 0x3EC71DE3 57B1FE7D */
#define SC64_S5 -2.50507602534068634195e-08 /* 0xBE5AE5E6 8A2B9CEB */
#define SC64_S6 1.58969099521155010221e-10  /* 0x3DE5D93A 5ACFD57C */
#define SC64_C1 4.16666666666666019037e-02  /* 0x3FA55555 5555554C */
#define SC64_C2 -1.38888888888741095749e-03 /* 0xBF56C16C 16C15177 */
#define SC64_C3 2.48015872894767294178e-05  /* 0x3EFA01A0 19CB1590 */
#define SC64_C4 -2.75573143513906633035e-07 /* 0xBE927E4F 809C52AD */
#define SC64_C5 2.08757232129817482790e-09  /* 0x3E21EE9E BDB4B1C4 */
#define SC64_C6 -1.13596475577881948265e-11 /* 0xBDA8FAE9 BE8838D4 */

/* Lanes the vector sine/cosine do not take (NaN, infinities, |x| above
 * 2^19 pi/2, whose reduction needs more of pi): the engine's rule, sinl or
 * cosl rounded once. */
static double f64_sincos_lane(plumb_opcode op, double x)
{
    uint64_t b;
    double d;
    if (x != x)
        return f64_nan_lane(x);
    long double r = op == PLUMB_OP_SINE ? sinl(x) : cosl(x);
    b = isnan(r) ? 0x7FF8000000000000ull : rt_math_narrow_ld(op, r, RT_MATH_LDERR, x, 0);
    memcpy(&d, &b, 8);
    return d;
}
static double f64_sin_lane(double x) { return f64_sincos_lane(PLUMB_OP_SINE, x); }
static double f64_cos_lane(double x) { return f64_sincos_lane(PLUMB_OP_COSINE, x); }

/* power and atan2: the lanes the vector paths do not take, by the
 * engine's per-element rule (k_elementwise.c's f64_binary): pow(x, +-0) =
 * pow(+1, y) = 1 even for NaN (IEEE 754-2019 9.2.1), else a NaN operand
 * quieted (x's first), else powl/atan2l rounded once (exact where the
 * result is subnormal, zero or at the overflow threshold), a NaN value the
 * positive default NaN. */
static double f64_binary_lane(plumb_opcode op, double x, double y)
{
    uint64_t b;
    double d;
    if (op == PLUMB_OP_POWER && ((y == y && y == 0) || x == 1.0))
        return 1.0;
    if (x != x)
        return f64_nan_lane(x);
    if (y != y)
        return f64_nan_lane(y);
    long double r = op == PLUMB_OP_POWER ? powl(x, y) : atan2l(x, y);
    b = isnan(r) ? 0x7FF8000000000000ull : rt_math_narrow_ld(op, r, RT_MATH_LDERR, x, y);
    memcpy(&d, &b, 8);
    return d;
}
static double f64_pow_lane(double x, double y) { return f64_binary_lane(PLUMB_OP_POWER, x, y); }
static double f64_atan2_lane(double y, double x) { return f64_binary_lane(PLUMB_OP_ATAN2, y, x); }

/* atan2: fdlibm's e_atan2.c and s_atan.c (Sun Microsystems, 1993), lane
 * by lane: atan of q = |y/x| by the argument reduction to |t| < 7/16
 * around 0, 1/2, 1, 3/2 or infinity (atan(c) in two parts ATAN64_HI/LO)
 * and the odd polynomial aT; the quadrant from the signs, pi - atan with
 * pi's tail. fdlibm states atan within 1 ULP; q's rounding adds at most
 * half an ULP (atan's condition number q/((1 + q^2) atan q) is below 1),
 * inside the table's 2 ULP. */
#define ATAN64_PI 3.1415926535897931160e+00      /* 0x400921FB 54442D18 */
#define ATAN64_PI_LO 1.2246467991473531772e-16   /* 0x3CA1A626 33145C07 */
#define ATAN64_PIO2 1.5707963267948965580e+00    /* 0x3FF921FB 54442D18 */
static const double ATAN64_HI[4] = {
    4.63647609000806093515e-01, /* atan(0.5)hi 0x3FDDAC67 0561BB4F */
    7.85398163397448278999e-01, /* atan(1.0)hi 0x3FE921FB 54442D18 */
    9.82793723247329054082e-01, /* atan(1.5)hi 0x3FEF730B D281F69B */
    1.57079632679489655800e+00, /* atan(inf)hi 0x3FF921FB 54442D18 */
};
static const double ATAN64_LO[4] = {
    2.26987774529616870924e-17, /* 0x3C7A2B7F 222F65E2 */
    3.06161699786838301793e-17, /* 0x3C81A626 33145C07 */
    1.39033110312309984516e-17, /* 0x3C700788 7AF0CBBD */
    6.12323399573676603587e-17, /* 0x3C91A626 33145C07 */
};
static const double ATAN64_T[11] = {
    3.33333333333329318027e-01,  /* 0x3FD55555 5555550D */
    -1.99999999998764832476e-01, /* 0xBFC99999 9998EBC4 */
    1.42857142725034663711e-01,  /* 0x3FC24924 920083FF */
    -1.11111104054623557880e-01, /* 0xBFBC71C6 FE231671 */
    9.09088713343650656196e-02,  /* 0x3FB745CD C54C206E */
    -7.69187620504482999495e-02, /* 0xBFB3B0F2 AF749A6D */
    6.66107313738753120669e-02,  /* 0x3FB10D66 A0D03D51 */
    -5.83357013379057348645e-02, /* 0xBFADDE2D 52DEFD9A */
    4.97687799461593236017e-02,  /* 0x3FA97B4B 24760DEB */
    -3.65315727442169155270e-02, /* 0xBFA2B444 2C6A6C2F */
    1.62858201153657823623e-02,  /* 0x3F90AD3A E322DA11 */
};

#include "math_f64_pow.h"
#else /* per ISA */

/* math_f64_pow.h (included at the end): the EXP64_T pair of each lane by
 * one 16-byte load per lane and a transpose in registers, and whether
 * any lane of a mask is set, tested in registers */
TI void N(pow_exp_pairs)(vl j, vd *th, vd *tl);
TI bool N(pow_any)(vl m);
/* and the POW64_LOG_T rows of the values at xp (d_log) */
TI void N(pow_log_rows)(const double *xp, vd *a, vd *b, vd *c);

/* min(x, c) and max(x, c) for a constant c: a NaN x gives c (as the
 * selects sel(x <= c, x, c) and sel(x >= c, x, c), which the portable
 * level uses). AVX2's and AVX-512's min/max return their second operand
 * when either is NaN or both are equal, so the same values in one
 * instruction, where GCC made each select a comparison and two masked
 * XORs. */
#if EWF_PASS == 3
TI vd N(d_minc)(vd x, double c) { return (vd)_mm512_min_pd((__m512d)x, _mm512_set1_pd(c)); }
TI vd N(d_maxc)(vd x, double c) { return (vd)_mm512_max_pd((__m512d)x, _mm512_set1_pd(c)); }
#elif EWF_PASS == 2
TI vd N(d_minc)(vd x, double c) { return (vd)_mm256_min_pd((__m256d)x, _mm256_set1_pd(c)); }
TI vd N(d_maxc)(vd x, double c) { return (vd)_mm256_max_pd((__m256d)x, _mm256_set1_pd(c)); }
#else
TI vd N(d_minc)(vd x, double c) { return (vd)N(sell)(x <= c, (vl)x, (vl)((vd){0} + c)); }
TI vd N(d_maxc)(vd x, double c) { return (vd)N(sell)(x >= c, (vl)x, (vl)((vd){0} + c)); }
#endif

/* Exact error terms, the same values at every level (issue 17, the f64
 * transcendentals' shared step): d_mul_err(a, b, p) = a*b - p exactly for
 * p = RN(a*b), and d_rem_exact(n, q, d) = n - q*d exactly when that value
 * is a double (q = RN(n/d), the remainder of a correctly rounded
 * quotient). Both need no underflow in the products' halves (every
 * |a*b| >= 2^-969 is enough) and no overflow. AVX2 and AVX-512 have fused
 * multiply-add, which rounds the exact a*b - p (a double) once: exactly
 * it. The portable level, which has none, uses Dekker's product
 * (Dekker, Numer. Math. 18, 1971) with Veltkamp's split: a = ah + al with
 * ah = (C a) - ((C a) - a), C = 2^27 + 1, so ah and al have at most 26
 * significant bits each (al's sign carries the 27th) and every partial
 * product is exact; the sum ((ah bh - p) + ah bl + al bh) + al bl is
 * exact. d_sq_err(a, p) = a*a - p likewise. So the vector levels compute
 * the same bits as the portable one with one instruction where the
 * splits took 2 to 11 operations. */
#if EWF_PASS == 3
TI vd N(d_mul_err)(vd a, vd b, vd p) { return (vd)_mm512_fmsub_pd((__m512d)a, (__m512d)b, (__m512d)p); }
TI vd N(d_rem_exact)(vd n, vd q, vd d) { return (vd)_mm512_fnmadd_pd((__m512d)q, (__m512d)d, (__m512d)n); }
TI vd N(d_sq_err)(vd a, vd p) { return (vd)_mm512_fmsub_pd((__m512d)a, (__m512d)a, (__m512d)p); }
#elif EWF_PASS == 2
TI vd N(d_mul_err)(vd a, vd b, vd p) { return (vd)_mm256_fmsub_pd((__m256d)a, (__m256d)b, (__m256d)p); }
TI vd N(d_rem_exact)(vd n, vd q, vd d) { return (vd)_mm256_fnmadd_pd((__m256d)q, (__m256d)d, (__m256d)n); }
TI vd N(d_sq_err)(vd a, vd p) { return (vd)_mm256_fmsub_pd((__m256d)a, (__m256d)a, (__m256d)p); }
#else
TI vd N(d_mul_err)(vd a, vd b, vd p)
{
    vd ca = a * 134217729.0, cb = b * 134217729.0;   /* 2^27 + 1 */
    vd ah = ca - (ca - a), bh = cb - (cb - b);
    vd al = a - ah, bl = b - bh;
    return (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
}
/* the square: one split, the two middle products as one exact 2 ah al
 * (their sum is Dekker's second partial sum, a double) */
TI vd N(d_sq_err)(vd a, vd p)
{
    vd ca = a * 134217729.0;
    vd ah = ca - (ca - a), al = a - ah;
    return ((ah * ah - p) + 2.0 * ah * al) + al * al;
}
/* n - p exact (Sterbenz: q d within a factor 2 of n), and the exact
 * remainder minus the exact product's error: a double, so exact */
TI vd N(d_rem_exact)(vd n, vd q, vd d)
{
    vd p = q * d;
    return (n - p) - N(d_mul_err)(q, d, p);
}
#endif

/* r = z invc - 1 for log's and power's table step (z in [0x1.6b8p-1,
 * 0x1.6b8p0), invc of 9 significant bits from POW64_LOG_T): the exact
 * value is a double (math_f64_pow.h, step 1), so one fused multiply-add
 * at AVX2 and AVX-512 gives it; the portable level cuts z into zhi (a
 * multiple of 2^-20, by adding and subtracting 1.5 2^32) and zlo, whose
 * products with invc are exact, zhi invc - 1 exact (Sterbenz) and the sum
 * exact: the same value in five operations. */
TI vd N(d_zinv_m1)(vd z, vd invc)
{
#if EWF_PASS >= 2
    return N(d_mul_err)(z, invc, (vd){0} + 1.0);
#else
    vd zhi = (z + 0x1.8p32) - 0x1.8p32;
    vd zlo = z - zhi;
    return (zhi * invc - 1.0) + zlo * invc;
#endif
}

/* e^x = 2^k (*th + *u) for x in [EXP64_LO, EXP64_HI], the pair within
 * 2^-57.2 relative (docs/runtime-math.md), |*u| < 2^-6 |*th|. */
/* e^r - 1 on exp's reduced argument (|r| <= 0.005417): r + r^2 (1/2 +
 * r/6 + r^2/24 + r^3/120 + r^4/720), Horner; the omitted r^7/5040 is
 * below 2^-65. Shared by exp's parts and tanh's table path. */
TI vd N(d_exp_r_m1)(vd r)
{
    vd q = r * (1.0 / 720) + 1.0 / 120;
    q = q * r + 1.0 / 24;
    q = q * r + 1.0 / 6;
    q = q * r + 0.5;
    return r + (r * r) * q;
}

TI void N(d_exp_parts)(vd x, vd *th_out, vd *u_out, vl *k_out)
{
    vd t = x * EXP64_INV + 0x1.8p52;   /* N in the low bits (|N| < 2^51) */
    vd nd = t - 0x1.8p52;
    vl nl = (vl)t - (vl)((vd){0} + 0x1.8p52);
    vl j = nl & 63, k = nl >> 6;
    /* x - N L1 is exact: both are multiples of 2^-59 (or N = 0), the
     * difference is below 2^-7.4 */
    vd r = (x - nd * EXP64_L1) - nd * EXP64_L2;
    vd p = N(d_exp_r_m1)(r);   /* e^r - 1 */
    vd th, tl;
    N(pow_exp_pairs)(j, &th, &tl);   /* lane by lane, GCC inserted each value through memory */
    *th_out = th;
    *u_out = th * p + tl;
    *k_out = k;
}

/* 2^k as a double, for the k of d_exp_parts whose scaled results are
 * normal (-1022 <= k <= 1023): the exponent field built directly. */
TI vd N(d_pow2)(vl k)
{
    return (vd)((k + 1023) << 52);
}

/* e^x from d_exp_parts in one rounding (th + u), then scaled exactly:
 * the value exp and tanh use (x in [EXP64_LO, EXP64_HI]). */
TI vd N(d_exp_in_range)(vd x)
{
    vd th, u;
    vl k;
    N(d_exp_parts)(x, &th, &u, &k);
    return (th + u) * N(d_pow2)(k);
}

/* r with its *bad lanes replaced by the scalar rule lane(x): the vector
 * paths' one exit for the lanes they cannot guarantee. */
TI vd N(d_fix_lanes)(vd r, vd x, vl bad, double (*lane)(double))
{
    if (__builtin_expect(N(pow_any)(bad), 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad[l])
                r[l] = lane(x[l]);
    return r;
}

/* e^t - 1 = *s + *l (not normalized: |*l| < 0.03 |*s|), t in [-46, 709]
 * (no NaN), for expm1 and tanh; docs/runtime-math.md ("f64 expm1 and
 * tanh: one formula") has the budget. No table: k = RN(t/ln2) (|k| <=
 * 1023), f = t - k ln2 = fh + fl with fh = t - k LN2_HI exact (k LN2_HI
 * has at most 40 significant bits; Sterbenz for k != 0, fh = t for
 * k = 0) and fl = -k LN2_LO (|fl| < 2^-36.9 |k|); |fh| <= ln2/2 + 2^-40.
 * e^t - 1 = (2^k - 1) + 2^k (fh + fh^2/2 + fh^3 Q(fh)) + 2^k e^fh (e^fl -
 * 1), each piece exact or small: A = RN(2^k - 1) and its error A_lo
 * (exact, either formula by the sign of k; kpos = 0 when t <= 0), B = 2^k fh and H = 2^k f2/2
 * (fh^2 = f2 + f2e within 2^-103 fh^2; the scalings exact) added by two Fast2Sums
 * (|A| >= |B| or A = 0, |s1| >= |H|), their errors e1, e2 exact; the rest
 * (f2e/2, c3 = fh^3 Q, the fl term e^fh (e^fl - 1), A_lo) summed into *l:
 * within 0.36 2^-53 of e^t - 1 relative. So for k = 0 (|t| <
 * ln2/2) the pair is t + t^2/2 + ... relative to e^t - 1 (no cancelling
 * subtraction: the reason for not using exp's table, whose absolute
 * 2^-58 errors cancel into relative ones as t -> 0). Q by Estrin (the
 * chain 5 deep instead of 11). */
TI void N(d_expm1_pair)(vd t, int kpos, vd *s_out, vd *l_out)
{
    vd sh = t * EM64_INVLN2 + 0x1.8p52;   /* k in the low bits */
    vd kd = sh - 0x1.8p52;
    vl k = (vl)sh - (vl)((vd){0} + 0x1.8p52);
    vd fh = t - kd * LOG64_LN2_HI;
    vd fl = (vd){0} - kd * LOG64_LN2_LO;
    vd f2 = fh * fh, f4 = f2 * f2, f8 = f4 * f4;
    vd q0 = (EM64_C[0] + EM64_C[1] * fh) + (EM64_C[2] + EM64_C[3] * fh) * f2;
    vd q1 = (EM64_C[4] + EM64_C[5] * fh) + (EM64_C[6] + EM64_C[7] * fh) * f2;
    vd q2 = (EM64_C[8] + EM64_C[9] * fh) + (EM64_C[10] + EM64_C[11] * fh) * f2;
    vd Q = (q0 + q1 * f4) + q2 * f8;
    vd hf2 = 0.5 * f2;
    /* fh^2 - f2 (Dekker's product): f2's rounding would be the pair's
     * largest error (0.29 2^-53 of the result at t = ln2/2). fh split by
     * F64_HI26 (two operations, Veltkamp's split four): fhh^2 and 2 fhh fhl
     * exact, fhl^2 (27 bits squared) rounded, so f2e is within 2^-103 fh^2
     * of fh^2 - f2 instead of exact */
    vd fhh = (vd)((vl)fh & F64_HI26), fhl = fh - fhh;
    vd f2e = ((fhh * fhh - f2) + 2.0 * fhh * fhl) + fhl * fhl;
    vd c3 = (f2 * fh) * Q;
    vd g = fl + 0.5 * fl * fl;   /* e^fl - 1, the omitted fl^3/6 < 2^-69 */
    vd flt = g + g * (fh + (hf2 + c3));   /* e^fh (e^fl - 1) */
    vd p2 = N(d_pow2)(k);
    vd A = p2 - 1.0;
    vd A_lo = p2 - (1.0 + A);
    if (kpos)   /* t may be positive (expm1; tanh's t <= 0 never is) */
        A_lo = (vd)N(sell)(k > 0, (vl)((p2 - A) - 1.0), (vl)A_lo);
    vd B = p2 * fh;
    vd s1 = A + B;
    vd e1 = (A - s1) + B;
    vd H = p2 * hf2;
    vd s = s1 + H;
    vd e2 = (s1 - s) + H;
    *s_out = s;
    *l_out = ((e1 + e2) + A_lo) + p2 * ((0.5 * f2e + c3) + flt);
}

/* e^t - 1 = *A + *l (not normalized) from exp's reduction and table,
 * t in [-46, -1/8] (tanh's): N = RN(t 64/ln2) = 64k + j, r = t - N
 * ln2/64, p = e^r - 1 (d_exp_r_m1), S = 2^k T_hi and Sl = 2^k T_lo
 * exact, A = RN(S - 1) and its error A_lo (exact: Fast2Sum with -1 first,
 * S <= 1, A + 1 exact), *l = S p + ((A_lo + Sl) + Sl p). The roundings
 * of r, p, S p and *l are each at most half an ULP of a value below 2^-7
 * S, p's truncation 2^-65 S: *A + *l is within 2^-59 S of e^t - 1. (Also
 * tried for expm1 with |t| >= 1/16: docs/runtime-math.md, "expm1 by
 * exp's table, tried".) */
TI void N(d_em1_table)(vd t, vd *A_out, vd *l_out)
{
    vd sh = t * EXP64_INV + 0x1.8p52;   /* N in the low bits */
    vd nd = sh - 0x1.8p52;
    vl ni = (vl)sh - (vl)((vd){0} + 0x1.8p52);
    vd r = (t - nd * EXP64_L1) - nd * EXP64_L2;   /* t - N L1 exact, as in d_exp_parts */
    vd p = N(d_exp_r_m1)(r);
    vd th, tl;
    N(pow_exp_pairs)(ni & 63, &th, &tl);
    vd p2 = N(d_pow2)(ni >> 6);
    vd S = th * p2, Sl = tl * p2;
    vd A = S - 1.0;
    vd A_lo = S - (A + 1.0);
    *A_out = A;
    *l_out = S * p + ((A_lo + Sl) + Sl * p);
}

/* e^x on the lanes of x in [EXP64_LO, EXP64_HI]; *bad marks the others
 * (NaN included), whose lanes hold an unspecified value. */
TI vd N(d_exp)(vd x, vl *bad)
{
    vl ok = (x >= EXP64_LO) & (x <= EXP64_HI);
    *bad = ~ok;
    /* the other lanes run on x clamped to [LO, HI] (NaN: LO), as min and
     * max off the comparisons' path (the mask was on it) */
    x = N(d_minc)(N(d_maxc)(x, EXP64_LO), EXP64_HI);
    return N(d_exp_in_range)(x);   /* th + u the one rounding that matters; the scaling is exact (normal result) */
}

/* logistic(x) = 1/(1 + e^-|x|) for x >= 0, e^-|x|/(1 + e^-|x|) for x < 0,
 * for |x| <= LOGI64_MAX; *bad marks the other lanes and NaN. E = e^-|x|
 * as E + El (the pair of d_exp_parts, Fast2Sum, both scaled by 2^k:
 * within 2^-57.2 relative, El's underflow below e^-671 costs < 2^-65);
 * d = RN(1 + E), dl = ((1 - d) + E) + El (Fast2Sum: 1 + E = d + dl within
 * 2^-105 plus E's error). q = RN(n/d), n = 1 (x >= 0) or E (x < 0),
 * and y = RN(q + (nl - q dl) y1), nl = 0 or El, y1 ~ 1/d (x >= 0: y1 = q
 * = RN(1/d), 1/(d + dl) = 1/d - dl/d^2 + O(2^-106); x < 0: y1 = RN(1 -
 * q), within 2^-52 of 1/d, on a correction below 2^-52 of y). Each is
 * q's rounding (0.5 ULP), the pair's 2^-57.2 (< 0.06 ULP) and the
 * correction's few 2^-104 before the last rounding: within 1.06 + 0.5
 * ULP of the exact value, inside the table's 2 ULP of the correctly
 * rounded one. */
TI vd N(d_logistic)(vd x, vl *bad)
{
    vd a = (vd)((vl)x & F64_ABS);
    vl ok = a <= LOGI64_MAX;
    *bad = ~ok;
    vd t = -N(d_minc)(a, LOGI64_MAX);   /* NaN: -LOGI64_MAX; off the comparison's path */
    vd th, u;
    vl k;
    N(d_exp_parts)(t, &th, &u, &k);
    vd hi = th + u, lo = (th - hi) + u;
    vd s = N(d_pow2)(k);
    vd E = hi * s, El = lo * s;
    vd d = 1.0 + E;
    vd dl = ((1.0 - d) + E) + El;
    /* one division for both signs (two before, 1/d and E/d): for x >= 0
     * the same operations as the former y1 - y1 (y1 dl), the same bits;
     * for x < 0 y1 = 1 - E/d = 1/d from q instead of its own division */
    vl pos = x >= 0.0;
    vd n = (vd)N(sell)(pos, (vl)((vd){0} + 1.0), (vl)E);
    vd nl = (vd)((vl)El & ~pos);
    vd q = n / d;
    vd y1 = (vd)N(sell)(pos, (vl)q, (vl)(1.0 - q));
    return q + (nl - q * dl) * y1;
}

TI vd N(d_logisticv)(vd x)
{
    vl bad;
    vd r = N(d_logistic)(x, &bad);
    return N(d_fix_lanes)(r, x, bad, f64_logistic_lane);
}

TI vd N(d_expv)(vd x)
{
    vl bad;
    vd r = N(d_exp)(x, &bad);
    return N(d_fix_lanes)(r, x, bad, f64_exp_lane);
}

/* expm1 x = RN(s + l), the pair of d_expm1_pair on x clamped to [-40,
 * EXP64_HI] (below -40 the result is -1: e^x < 2^-57.7, under half an
 * ULP of 1 - 2^-53), one formula for every lane (the Taylor series below
 * 0.25 and exp's table branch both ran on every lane before). Budget
 * (docs/runtime-math.md): the pair within 0.36 2^-53 of e^x - 1 relative,
 * then the one rounding: <= 0.86 ULP from the exact value, inside the
 * table's 1 ULP of the correctly rounded one. -0 and +0 return x. *bad:
 * NaN and x > EXP64_HI. */
TI vd N(d_expm1)(vd x, vl *bad)
{
    vl ok = x <= EXP64_HI;   /* false for NaN */
    *bad = ~ok;
    vd xc = N(d_minc)(N(d_maxc)(x, -40.0), EXP64_HI);   /* NaN: -40; the lanes left out are replaced */
    vd s, l;
    N(d_expm1_pair)(xc, 1, &s, &l);
    vd r = s + l;
    return (vd)N(sell)(x == 0.0, (vl)x, (vl)r);
}

TI vd N(d_expm1v)(vd x)
{
    vl bad;
    vd r = N(d_expm1)(x, &bad);
    return N(d_fix_lanes)(r, x, bad, f64_expm1_lane);
}

/* log1p: fdlibm's s_log1p.c (Sun Microsystems, 1993), its general
 * formula on every lane; fdlibm states the error below 1 ULP.
 * -0.2929 < x < 0.41422 (fdlibm's bounds on the high word, here as
 * double comparisons): k = 0, c = 0, f = x. Otherwise u = RN(1 + x) (also
 * from 2^53 on, where fdlibm takes x), c = the rounding error of u divided
 * by u (also from 2^53 on, where fdlibm takes 0: the term it drops there
 * is below 2^-53, 2^-58 of the result), u = 2^k (1 + f) normalized
 * into about [sqrt(2)/2, sqrt(2)) as log does. Then log(1 + f) + c + k ln2 = k LN2_HI - ((hfsq - (s (hfsq
 * + R) + (k LN2_LO + c))) - f), s = f/(2 + f). fdlibm's shortcuts (x
 * below 2^-29: x - x^2/2; |f| < 2^-20: a shorter series; f = 0) only
 * save time in scalar code: the general formula is the one fdlibm's
 * analysis covers (R holds on the whole interval of s) and a vector
 * computes every branch, so they are gone; only x = -0 is kept apart (the
 * formula gives +0). *bad: NaN, x <= -1, +infinity. */
TI vd N(d_log1p)(vd x, vl *bad)
{
    vl ok = (x > -1.0) & (x <= 0x1.fffffffffffffp1023);
    *bad = ~ok;
    /* the other lanes run on their own x (their results are replaced; no
     * integer step below can overflow on any pattern) */
    vl k0 = (x < 0x1.a827ap-2) & (x > -0x1.2bec4p-2);
    vd u1 = 1.0 + x;
    /* from 2^53 on too (fdlibm takes u = x and c = 0 there): u1 is x, or
     * x + 2 on ties to even in [2^53, 2^54), 1 - (u1 - x) is exact and c
     * the true correction (1 + x - u1)/u1 rounded, |c| <= 2^-53; three
     * operations fewer than the separate case (log1p 8% faster in cache) */
    vl ui = (vl)u1;
    vl k = (ui >> 52) - 1023;   /* u1 > 0 */
    vd c = (vd)N(sell)(k > 0, (vl)(1.0 - (u1 - x)), (vl)(x - (u1 - 1.0))) / u1;
    c = (vd)((vl)c & ~k0);
    /* normalize u or u/2, as d_log */
    vd m1 = (vd)((ui & 0x000FFFFFFFFFFFFFll) | 0x3FF0000000000000ll);
    vl big = m1 >= 0x1.6a09cp0;
    vd un = (vd)N(sell)(big, (vl)(0.5 * m1), (vl)m1);
    k -= big;   /* all ones: k + 1 */
    vd f = (vd)N(sell)(k0, (vl)x, (vl)(un - 1.0));
    vd dk = (vd)((vl)__builtin_convertvector(k, vd) & ~k0);
    vd hfsq = 0.5 * f * f;
    vd s = f / (2.0 + f);
    vd z = s * s;
    /* R in fdlibm log's two halves (odd and even powers of z, w = z^2):
     * a dependency chain of 4 steps instead of Horner's 7, which kept
     * the loop waiting on the division (perf: the samples sat on the
     * chain's additions) */
    vd w = z * z;
    vd t1 = w * (LOG64_LG2 + w * (LOG64_LG4 + w * LOG64_LG6));
    vd t2 = z * (LOG64_LG1 + w * (LOG64_LG3 + w * (LOG64_LG5 + w * LOG64_LG7)));
    vd R = t2 + t1;
    vd r = dk * LOG64_LN2_HI - ((hfsq - (s * (hfsq + R) + (dk * LOG64_LN2_LO + c))) - f);
    return (vd)N(sell)(x == 0.0, (vl)x, (vl)r);
}

TI vd N(d_log1pv)(vd x)
{
    vl bad;
    vd r = N(d_log1p)(x, &bad);
    return N(d_fix_lanes)(r, x, bad, f64_log1p_lane);
}

/* sin (cosine = 0) or cos (cosine = 1) of x, |x| < 0x1.921fcp19 (fdlibm's
 * high word <= 0x413921fb), as fdlibm's sin/cos on |x| (the sine's sign put
 * back at the end: both kernels and the reduction are odd or even in
 * their operands under round-to-nearest). *bad: NaN, infinities, larger
 * |x|. */
TI vd N(d_sincos)(vd x, int cosine, vl *bad)
{
    vd t = (vd)((vl)x & F64_ABS);
    vl ok = t < 0x1.921fcp19;
    *bad = ~ok;
    t = (vd)((vl)t & ok);
    /* |x| <= pi/4 (high word <= 0x3fe921fb): no reduction, n = 0 */
    vd fn = N(d_round)(t * SC64_INVPIO2 + 0.5, R_TRUNC);
    fn = (vd)((vl)fn & ~(vl)(t < 0x1.921fcp-1));
    vd r = t - fn * SC64_PIO2_1;   /* exact: 33-bit piece times n < 2^20 */
    vd w = fn * SC64_PIO2_1T;
    vd y0 = r - w;
    vl j = (vl)t >> 52;
    vl it2 = (j - (((vl)y0 >> 52) & 0x7ff)) > 16;   /* cancellation: a second piece */
    vd r2 = r - fn * SC64_PIO2_2;
    vd w2 = fn * SC64_PIO2_2T - ((r - r2) - fn * SC64_PIO2_2);
    vd y02 = r2 - w2;
    vl it3 = it2 & ((j - (((vl)y02 >> 52) & 0x7ff)) > 49);   /* and a third */
    vd r3 = r2 - fn * SC64_PIO2_3;
    vd w3 = fn * SC64_PIO2_3T - ((r2 - r3) - fn * SC64_PIO2_3);
    vd y03 = r3 - w3;
    r = (vd)N(sell)(it3, (vl)r3, N(sell)(it2, (vl)r2, (vl)r));
    w = (vd)N(sell)(it3, (vl)w3, N(sell)(it2, (vl)w2, (vl)w));
    y0 = (vd)N(sell)(it3, (vl)y03, N(sell)(it2, (vl)y02, (vl)y0));
    vd y1 = (r - y0) - w;
    /* __kernel_sin(y0, y1, iy = y1 != 0) */
    vd z = y0 * y0, v = z * y0;
    vd rs = SC64_S2 + z * (SC64_S3 + z * (SC64_S4 + z * (SC64_S5 + z * SC64_S6)));
    vd ks0 = y0 + v * (SC64_S1 + z * rs);
    vd ks1 = y0 - ((z * (0.5 * y1 - v * rs) - y1) - v * SC64_S1);
    vd ks = (vd)N(sell)(y1 == 0.0, (vl)ks0, (vl)ks1);
    vd ay = (vd)((vl)y0 & F64_ABS);
    vl tiny = ay < 0x1p-27;
    ks = (vd)N(sell)(tiny, (vl)y0, (vl)ks);
    /* __kernel_cos(y0, y1) */
    vd rc = z * (SC64_C1 + z * (SC64_C2 + z * (SC64_C3 + z * (SC64_C4 + z * (SC64_C5 + z * SC64_C6)))));
    vd kc_small = 1.0 - (0.5 * z - (z * rc - y0 * y1));
    vl ix = (vl)ay >> 32;
    vd qx = (vd)N(sell)(ix > 0x3fe90000, (vl)((vd){0} + 0.28125), (ix - 0x00200000) << 32);
    vd hz = 0.5 * z - qx;
    vd kc_big = (1.0 - qx) - (hz - (z * rc - y0 * y1));
    vd kc = (vd)N(sell)(ay < 0x1.33333p-2, (vl)kc_small, (vl)kc_big);   /* |y0| < 0.3: high word < 0x3FD33333 */
    kc = (vd)N(sell)(tiny, (vl)((vd){0} + 1.0), (vl)kc);
    vl q = __builtin_convertvector(fn, vl) + cosine;   /* cos x = sin(x + pi/2) */
    vd res = (vd)N(sell)((q & 1) != 0, (vl)kc, (vl)ks);
    res = (vd)((vl)res ^ ((vl)((q & 2) != 0) & F64_SIGN));
    if (!cosine)
        res = (vd)((vl)res ^ ((vl)x & F64_SIGN));
    return res;
}

/* sin (cosine = 0) or cos (cosine = 1) of the lanes with |x| <
 * SC64_FAST_MAX (*fast marks them; the others hold an unspecified value).
 * The cheap path of docs/runtime-math.md ("f64 sine and cosine"): about
 * 55 vector operations where d_sincos takes over 100 (its three
 * reductions and both kernels' branches all run on every lane).
 * n = RN(x 2/pi) by the 1.5 2^52 shift (n's low bits are then in t's
 * low bits, two's complement for x < 0), y + y1 = x - n pi/2 with pi/2 in
 * three pieces (SC64_PIO2_1 + SC64_PIO2_2 + SC64_PIO2_2T, 2^-122.9 from
 * pi/2): x - n PIO2_1 is exact (Sterbenz: x is within a factor 2 of
 * n PIO2_1 for n >= 1), n PIO2_2 is exact (33 bits times 5), the
 * subtraction's error e is recovered exactly (Fast2Sum, or exact
 * subtraction where |a| < |n PIO2_2|: both are then multiples of 2^-66
 * within 38 bits), and y + y1 is the rounded b - (n PIO2_2T - e) with its
 * error (Fast2Sum). With n <= 20 and |x - n pi/2| >= 2^-53.86 (the nearest
 * double to each n pi/2, mpmath at 300 bits), y + y1 is within 2^-65
 * relative of the exact reduced argument. The kernels are fdlibm's
 * __kernel_sin and __kernel_cos with y1, the latter without its qx split
 * (1 - 0.5 z rounded once instead: at most 0.57 ULP before the last
 * rounding at |y| = pi/4, 1.07 ULP in all, inside the table's 1 ULP of
 * the correctly rounded value); both run on every lane and each lane
 * takes the one its quadrant wants. The operations are odd in x under
 * round-to-nearest, so the sign of the sine needs no separate step. */
#define SC64_FAST_MAX 32.0
TI vd N(d_sincos_fast)(vd x, int cosine, vl *fast)
{
    *fast = (vd)((vl)x & F64_ABS) < SC64_FAST_MAX;   /* false for NaN */
    vd t = x * SC64_INVPIO2 + 0x1.8p52;
    vd fn = t - 0x1.8p52;
    vd a = x - fn * SC64_PIO2_1;
    vd p2 = fn * SC64_PIO2_2;
    vd b = a - p2;
    vd e = (a - b) - p2;
    vd tail = fn * SC64_PIO2_2T - e;
    vd y = b - tail;
    vd y1 = (b - y) - tail;
    vd z = y * y, v = z * y;
    /* __kernel_sin(y, y1, 1) */
    vd rs = SC64_S2 + z * (SC64_S3 + z * (SC64_S4 + z * (SC64_S5 + z * SC64_S6)));
    vd ks = y - ((z * (0.5 * y1 - v * rs) - y1) - v * SC64_S1);
    /* __kernel_cos(y, y1), qx = 0 */
    vd rc = z * (SC64_C1 + z * (SC64_C2 + z * (SC64_C3 + z * (SC64_C4 + z * (SC64_C5 + z * SC64_C6)))));
    vd kc = 1.0 - (0.5 * z - (z * rc - y * y1));
    /* n mod 4 in the low bits; cos x = sin(x + pi/2). In unsigned lanes:
     * a NaN lane's t (0x7FFF...F) plus 1 would overflow a signed one (its
     * result is replaced later, but the addition must still be defined). */
    typedef uint64_t N(vu64) __attribute__((vector_size(VBYTES)));
    N(vu64) q = (N(vu64))t + (uint64_t)cosine;
    vd res = (vd)N(sell)((vl)(q & 1) != 0, (vl)kc, (vl)ks);
    /* the sign flip from bit 1 of n, shifted to the sign */
    return (vd)((vl)res ^ (vl)((q << 62) & 0x8000000000000000ull));
}

/* sin or cos: the cheap path where every lane has |x| < SC64_FAST_MAX,
 * else d_sincos for the others too (each lane's bits depend only on its
 * own operand, so every vector width gives the same bits), the scalar
 * rule for NaN, infinities and |x| above 2^19 pi/2. d_sincos_slow is
 * the part after the cheap path (r its result, fast its lanes), apart so
 * that f64_math's two-vector loop runs both cheap paths first. */
TI vd N(d_sincos_slow)(vd r, vd x, int cosine, vl fast)
{
    vl slow = ~fast;
    if (__builtin_expect(N(pow_any)(slow), 0)) {
        vl bad;
        vd r2 = N(d_sincos)(x, cosine, &bad);
        r = (vd)N(sell)(fast, (vl)r, (vl)r2);
        r = N(d_fix_lanes)(r, x, bad & slow, cosine ? f64_cos_lane : f64_sin_lane);
    }
    return r;
}

TI vd N(d_sincosv)(vd x, int cosine)
{
    vl fast;
    vd r = N(d_sincos_fast)(x, cosine, &fast);
    return N(d_sincos_slow)(r, x, cosine, fast);
}

TI vd N(d_sinv)(vd x) { return N(d_sincosv)(x, 0); }

TI vd N(d_cosv)(vd x) { return N(d_sincosv)(x, 1); }

/* log x for positive normal finite lanes; *bad marks the others. The
 * table of power's step 1 (math_f64_pow.h has the method and the table's
 * checked properties) with a shorter polynomial: x = 2^k z, z in
 * [0x1.6b8p-1, 0x1.6b8p0), the row of z's subinterval in POW64_LOG_T
 * (invc of 9 significant bits, log c = logc + logctail), r = z invc - 1
 * exact (d_zinv_m1), |r| < 2^-8.4; log x = k ln2 +
 * log c + log1p(r). t1 = k LN2_HI + logc is exact and t2 + lo2 = t1 + r
 * too (Fast2Sum: |logc| >= |r| or logc = 0); log1p(r) - r = r^2 P(r), P
 * Taylor's -1/2 + r/3 - ... + r^5/7 (the omitted r^8/8 below 2^-70.2),
 * by Estrin's scheme. Absolute error before the last rounding, below
 * 2^-67.5: the truncation, r^2 P's roundings (r^2 2^-52.3 < 2^-69.1),
 * the two additions into lo (2^-70 each) and lo1's (2^-87). Where |log
 * x| >= 2^-10 (every subinterval but the one of 1) that is 2^-57.5
 * relative, 0.044 ULP; in the subinterval of 1 ([1 - 2^-10, 1 + 2^-9),
 * invc = 1, logc = 0, k = 0) t2 = r = x - 1 exactly and the rest scales
 * with r (below 2^-61 relative). So RN(t2 + lo) is within 0.545 ULP of
 * the exact value (test_math_f64 checks 0.55), where fdlibm's method
 * before (the division s = f/(2 + f), a degree-14 polynomial) stated 1
 * ULP. No division: at AVX-512 12% faster in cache, portable 30%. xp
 * holds x's lanes in memory: the rows' byte offsets are computed from
 * there in integer registers (pow_row_off; see pow_log_rows). (Power's
 * full step 1, its r^2/2 split and r^8 series for 2^-77, was 3% slower
 * than fdlibm's log at AVX-512.) */
TI vd N(d_log)(vd x, const double *xp, vl *bad)
{
    vl ok = (x >= 0x1p-1022) & (x <= 0x1.fffffffffffffp1023);
    *bad = ~ok;
    /* |x|: the other lanes' values are replaced, but their integer steps
     * must not overflow (a negative x's pattern minus POW64_OFF would) */
    vl ix = (vl)x & F64_ABS;
    vl tmp = ix - (int64_t)POW64_OFF;
    vl iz = ix - (tmp & (int64_t)0xFFF0000000000000ull);
    vd kd = __builtin_convertvector(tmp >> 52, vd);
    vd z = (vd)iz;
    vd invc, logc, logctail;
    N(pow_log_rows)(xp, &invc, &logc, &logctail);
    vd r = N(d_zinv_m1)(z, invc);   /* exact */
    vd t1 = kd * POW64_LN2_HI + logc;
    vd t2 = t1 + r;
    vd lo1 = kd * POW64_LN2_LO + logctail;
    vd lo2 = (t1 - t2) + r;
    /* log1p(r) - r = r^2 P(r), P = -1/2 + r/3 - ... + r^5/7 (Taylor's
     * coefficients rounded to double), by Estrin's scheme */
    vd r2 = r * r, r4 = r2 * r2;
    vd P = ((-0.5 + r * (1.0 / 3)) + r2 * (-0.25 + r * 0.2)) + r4 * (-1.0 / 6 + r * (1.0 / 7));
    vd lo = (lo1 + lo2) + r2 * P;
    return t2 + lo;
}

/* log of VD_LANES values at xs into out (which may be xs): the last
 * partial vector of a loop comes from a copy padded with 1 */
TI void N(d_logv)(const double *xs, double *out)
{
    vd x;
    vl bad;
    memcpy(&x, xs, sizeof x);
    vd r = N(d_log)(x, xs, &bad);
    r = N(d_fix_lanes)(r, x, bad, f64_log_lane);
    memcpy(out, &r, sizeof r);
}

/* tanh: TANH64_* (the shared part above) has the method and its budget. */
TI vd N(d_tanh_core)(vd x, vl *bad)
{
    *bad = N(d_isnan)(x);
    vd a = (vd)((vl)x & F64_ABS);
    vd ac = N(d_minc)(a, TANH64_BIG);   /* NaN too */
    vd ab = N(d_maxc)(ac, TANH64_SMALL);   /* the table lanes' range */
    vd t = (vd){0} - (ab + ab);
    vd A, l;
    N(d_em1_table)(t, &A, &l);   /* t <= -1/8 */
    vd u = A + l;
    vd nl = (u - A) - l;   /* -(the error of u): n + nl = -(A + l) */
    vd n = (vd){0} - u;
    vd d = 2.0 - n;
    vd dl = ((2.0 - d) - n) - nl;
    vd q = n / d;
    /* n - q d exactly (d_rem_exact: one fused multiply-add at AVX2 and
     * AVX-512, Dekker's product at the portable level; q >= 0.0587 and d
     * < 3, so no underflow nor overflow). Until issue 17's sixth round:
     * Dekker's product on halves cut by F64_HI26 at every level, within
     * 2^-76 q d, 13 operations */
    vd rem = N(d_rem_exact)(n, q, d);
    /* the correction divided by d (a second division: these loops are
     * bound by their operation count and the divider idles; one Newton
     * step for 1/d took five operations and was 4% slower; 1/d = (1 +
     * q)/2, two operations, was 2% slower too) */
    return q + ((rem + nl) - q * dl) / d;
}

/* tanh's small lanes and the sign put back, on y = d_tanh_core(x): apart
 * so that f64_math's two-vector loop runs both cores first. The small
 * lanes' polynomial runs on every vector at AVX2 and AVX-512 and only for
 * a vector that has one at the portable level (the same bits: each lane
 * selects its own): on uniform(-2, 2) operands (the broad suite's) 22% of
 * 8-lane vectors have a lane below 1/16 (12% of 4-lane ones), a branch
 * mispredicted often enough that computing it always was faster, 8M
 * elements (thread CPU time, pinned, alternated 3x, load 10-13): AVX-512
 * 1.68-1.72 -> 1.55-1.56 ns/element, AVX2 2.88-2.91 -> 2.81 (in cache
 * AVX-512 1.56-1.57 -> 1.51-1.53, AVX2 2.74 -> 2.78, portable equal with
 * 6% of 2-lane vectors: kept the branch) */
TI vd N(d_tanh_finish)(vd y, vd x)
{
    vl sign = (vl)x & F64_SIGN;
    vd a = (vd)((vl)x & F64_ABS);
    /* the small lanes: a + a z P(z) by Horner */
    vl small = a < TANH64_SMALL;
    if (EWF_PASS >= 2 || N(pow_any)(small)) {
        vd z = a * a;
        vd P = TANH64_P[4] + TANH64_P[5] * z;
        P = TANH64_P[3] + P * z;
        P = TANH64_P[2] + P * z;
        P = TANH64_P[1] + P * z;
        P = TANH64_P[0] + P * z;
        vd ys = a + a * (z * P);
        y = (vd)N(sell)(small, (vl)ys, (vl)y);
    }
    return (vd)((vl)y | sign);
}

TI vd N(d_tanh)(vd x, vl *bad) { return N(d_tanh_finish)(N(d_tanh_core)(x, bad), x); }

TI vd N(d_tanhv)(vd x)
{
    vl bad;
    vd r = N(d_tanh)(x, &bad);
    return N(d_fix_lanes)(r, x, bad, f64_nan_lane);
}

/* r with its *bad lanes replaced by the binary scalar rule lane(x, y). */
TI vd N(d_fix_lanes2)(vd r, vd x, vd y, vl bad, double (*lane)(double, double))
{
    if (__builtin_expect(N(pow_any)(bad), 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad[l])
                r[l] = lane(x[l], y[l]);
    return r;
}

/* atan2(y, x) (see ATAN64_*) on the lanes with y finite and nonzero,
 * |x| in [2^-968, 2^1020] and a result not below 2^-1020 in magnitude (a
 * subnormal result must be exact); *bad marks the others (zeros,
 * infinities, NaNs, the far ends of |x|) for the scalar rule. One
 * division: fdlibm's t = num(q)/den(q), q = |y/x|, is formed from a = |y|
 * and b = |x| directly (the reductions' numerators and denominators
 * multiplied by b), so q is never rounded: t = a/b (q < 7/16), (2a -
 * b)/(2b + a), (a - b)/(a + b), ((a - 2b) + b/2)/(b + 1.5a), -b/a (q >=
 * 39/16). The numerators are exact (Sterbenz: 2a within a factor 2 of b,
 * a of b, a of 2b on the respective intervals; the last sum may round
 * once for q > 2), the denominators round once or twice: t within
 * 2^-51.4 relative, |t| <= 0.21 on the reduced intervals, where fdlibm's
 * q rounded first cost about as much (docs/runtime-math.md, "f64 power and
 * atan2"). The interval tests compare a with b times 7/16, 11/16, 19/16,
 * 39/16 (rounded products: a q within an ULP of a switch point may take
 * either side, both valid there). |x| in [2^-968, 2^1020] keeps the sums
 * finite and normal (a within 2.5 b on the reduced intervals). */
TI vd N(d_atan2)(vd y, vd x, vl *bad)
{
    vd a = (vd)((vl)y & F64_ABS), b = (vd)((vl)x & F64_ABS);
    vl ok = (a <= 0x1.fffffffffffffp1023) & (a != 0.0) & (b >= 0x1p-968) & (b <= 0x1p1020);
    /* the other lanes run on their own a and b (zeros, infinities, NaN,
     * extreme ratios: floating-point operations have no undefined
     * behaviour, and the integer steps below take patterns without the
     * sign bit): their results are replaced */
    vl xneg = x < 0.0;
    vl k = (((vl)a >> 32) - ((vl)b >> 32)) >> 20;   /* fdlibm's exponent difference */
    vl huge = k > 60;                             /* |y/x| > 2^60: pi/2 */
    vl zero = xneg & (k < -60);                   /* x < 0, |y/x| < 2^-60: pi */
    /* s_atan.c's intervals of q around c = 0, 1/2, 1, 3/2, inf */
    vl id0 = a >= 0.4375 * b, id1 = a >= 0.6875 * b, id2 = a >= 1.1875 * b, id3 = a >= 2.4375 * b;
    vd b2 = b + b;
    vd num = (vd)N(sell)(id3, (vl)((vd){0} - b),
                         N(sell)(id2, (vl)((a - b2) + 0.5 * b), N(sell)(id1, (vl)(a - b), N(sell)(id0, (vl)((a + a) - b), (vl)a))));
    vd den = (vd)N(sell)(id3, (vl)a, N(sell)(id2, (vl)(b + 1.5 * a), N(sell)(id1, (vl)(a + b), N(sell)(id0, (vl)(b2 + a), (vl)b))));
    vd t = num / den;
    ok &= huge | xneg | id0 | (t >= 0x1p-1020);   /* t = q below 7/16 */
    vd z = t * t, w = z * z;
    vd s1 = z * (ATAN64_T[0] + w * (ATAN64_T[2] + w * (ATAN64_T[4] + w * (ATAN64_T[6] + w * (ATAN64_T[8] + w * ATAN64_T[10])))));
    vd s2 = w * (ATAN64_T[1] + w * (ATAN64_T[3] + w * (ATAN64_T[5] + w * (ATAN64_T[7] + w * ATAN64_T[9]))));
    vd hi = (vd)N(sell)(id3, (vl)((vd){0} + ATAN64_HI[3]),
                        N(sell)(id2, (vl)((vd){0} + ATAN64_HI[2]), N(sell)(id1, (vl)((vd){0} + ATAN64_HI[1]), (vl)((vd){0} + ATAN64_HI[0]))));
    vd lo = (vd)N(sell)(id3, (vl)((vd){0} + ATAN64_LO[3]),
                        N(sell)(id2, (vl)((vd){0} + ATAN64_LO[2]), N(sell)(id1, (vl)((vd){0} + ATAN64_LO[1]), (vl)((vd){0} + ATAN64_LO[0]))));
    vd at_red = hi - ((t * (s1 + s2) - lo) - t);
    /* below 2^-27 (fdlibm returns t there) this is t too: t (s1 + s2) <
     * t 2^-55.5 is under half an ULP of t on either side (2^-54 t below a
     * power of two), so the subtraction rounds back to t; the select that
     * returned t there is gone */
    vd at_small = t - t * (s1 + s2);
    vd at = (vd)N(sell)(id0, (vl)at_red, (vl)at_small);
    at = (vd)N(sell)(huge, (vl)((vd){0} + (ATAN64_PIO2 + 0.5 * ATAN64_PI_LO)), (vl)at);
    at = (vd)((vl)at & ~zero);
    vl left = xneg & ~huge;   /* x < 0: pi - atan, pi's tail first */
    vd res = (vd)N(sell)(left, (vl)(ATAN64_PI - (at - ATAN64_PI_LO)), (vl)at);
    *bad = ~ok;
    return (vd)((vl)res ^ ((vl)y & F64_SIGN));
}

TI vd N(d_atan2v)(vd y, vd x)
{
    vl bad;
    vd r = N(d_atan2)(y, x, &bad);
    return N(d_fix_lanes2)(r, y, x, bad, f64_atan2_lane);
}

#include "math_f64_pow.h"
#endif
