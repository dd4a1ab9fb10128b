/* Vector f64 power for runtime/k_ew_float.c, included from math_f64.h in
 * both of its parts: with MATH_F64_SHARED defined (the constants and the
 * log table) and once per ISA inside its per-ISA body (the vector code,
 * using math_f64.h's EXP64_* table and constants and its helpers d_pow2,
 * d_round, d_sqrt, f64_pow_lane). Kept apart from math_f64.h
 * so that power's method can change without touching the other f64
 * functions. Same rules as math_f64.h: plain IEEE double operations, fused
 * multiply-add only where it gives an exact value the portable level
 * computes too (d_mul_err and its kin), the same bits at every ISA level.
 *
 * Method (the table-driven scheme of ARM's optimized-routines pow,
 * Szabolcs Nagy 2018, in its variant without fused multiply-add; the
 * table, constants and code here are plumb's own):
 *
 * 1. log|x| = hi + lo. |x| = 2^k z, z in [0x1.6b8p-1, 0x1.6b8p0) by bit
 *    pattern arithmetic (|k| <= 1024); z's top 8 mantissa bits above
 *    POW64_OFF pick one of 256 subintervals, with invc ~ 1/c for c near
 *    its centre and log c = logc + logctail (POW64_LOG_T, printed and
 *    checked by tools/gen_pow_log_table.c: MPFR at 400 bits). invc is a
 *    multiple of 2^-8 (z < 1) or 2^-9 (z >= 1), 9 significant bits, so
 *    r = z*invc - 1 (|r| <= 0x1.7f8p-9 < 2^-8.4) is a multiple of 2^-61
 *    below 2^-8: a double. It is computed exactly without FMA from z =
 *    zhi + zlo, zhi = z rounded to a multiple of 2^-20 (21 bits at most):
 *    zhi*invc (30 bits) and zlo*invc (32 + 9 bits) are exact, zhi*invc - 1
 *    is exact (Sterbenz) and so is their sum (at AVX2 and AVX-512 one
 *    fused multiply-add gives the same r: d_zinv_m1). logc and POW64_LN2_HI are
 *    multiples of 2^-43, so t1 = k ln2hi + logc is exact; the subinterval
 *    holding 1 ([1 - 2^-10, 1 + 2^-9)) has invc = 1 and logc = 0 (log x =
 *    log1p(x - 1) near 1 keeps its relative precision), elsewhere |logc|
 *    >= |r| (the generator checks both), so t2 = t1 + r and hi = t2 -
 *    RN(r^2)/2 are Fast2Sums with their errors kept (lo2, lo4); r^2/2 =
 *    RN(r^2)/2 + its exact error/2 (lo3; d_sq_err: one fused
 *    multiply-add at AVX2 and AVX-512, Dekker's square at the portable
 *    level; until issue 17's sixth round rhi^2/2 + rlo (r + rhi)/2, the
 *    last term rounded). The rest, log1p(r) - r + r^2/2 = p,
 *    is Taylor's series to r^8 (truncation below |r|^9/9 < 2^-78.8), by
 *    Estrin's scheme. Absolute error of hi + lo below 2^-77: the roundings
 *    of the low parts' sum, each below 2^-53 of |lo| ~ |p| <= |r|^3/3 <
 *    2^-26.8, lead. Relative: below 2^-67 where |log x| >= 2^-10 (every
 *    subinterval but the one of 1), and in the one of 1 every term scales
 *    with r. (128 subintervals, the previous table, needed r^9 and gave
 *    2^-65: the larger table costs no more loads, one row per lane.)
 * 2. y log|x| = ehi + elo: lh = hi + lo (rounded; ll its exact tail),
 *    ehi = RN(y lh) and its exact error (d_mul_err: one fused
 *    multiply-add at AVX2 and AVX-512, Dekker's product with Veltkamp's
 *    split at the portable level, the same value) plus y ll: within
 *    2^-104 relative. (Until issue 17's sixth round: y and lh cut to 26
 *    bits by masks, ehi = yhi*lhh, elo = ylo*lhh + y*((lh - lhh) + ll).)
 * 3. e^(ehi + elo) = 2^(N/32) e^(er + erl), N = round(ehi 32/ln2), ea =
 *    ehi - N L1 exact (L1 has 36 bits; Sterbenz), er + erl = ea + (elo -
 *    N L2) by Fast2Sum, |er| < 2^-6.5; e^(er + erl) - 1 = pe = er + w, w =
 *    er^2 (1/2 + ... + er^5/7!) + erl (truncation below er^8/8! <
 *    2^-67.5; erl's product with er below 2^-65). 2^(j/32) = th + tl
 *    (POW64_EXP_T: th of 26 significant bits, tl the rest, within 2^-79),
 *    and (th + tl)(1 + pe) = th + th*erh + (th*(pe - erh) + tl (1 + pe)),
 *    erh = er cut to 26 bits: th*erh is exact (26 by 26 bits), th + th*erh
 *    a Fast2Sum, and the rest, below 2^-13 of th, has roundings below
 *    2^-66: within 2^-65 of e^(ehi + elo) relative before the last
 *    rounding. (With th the full double, the roundings of th*pe and of
 *    th*pe + tl, each up to 2^-59.5, made 0.15% of results miss the
 *    correctly rounded value and one golden case; 2^(j/64) from EXP64_T
 *    needed a load per lane and a transpose, while the 32 pairs fit in
 *    eight AVX-512 registers, looked up by two-table permutes.)
 * Budget: |y log x| <= 709 on the lanes taken (a normal result), so step
 * 1's relative 2^-67 is at most 2^-57.5 absolute in y log x, and before
 * its one rounding the result is within 2^-57.5 + 2^-65 < 2^-57.4
 * relative of x^y: at most 0.5 + 0.025 ULP from the exact value, within 1
 * ULP of the correctly rounded one (the op table's bound for f64 power).
 * test_math_f64_pow checks 0.55 against MPFR at 256 bits on random and
 * hard pairs (x at the subintervals' ends and near 1, |y ln x| in [600,
 * 709]); measured worst: see docs/runtime-math.md. The log table lookup
 * is one load per lane, at an offset computed in integer registers from
 * the base's bits in memory, and a transpose in registers (pow_log_rows;
 * hardware gathers cost 40% of the time). */
#ifdef MATH_F64_SHARED

/* the subintervals of z start at this bit pattern (0x1.6b8p-1); the one of
 * pattern 0x3FF0000000000000 (1.0) is [1 - 2^-10, 1 + 2^-9) */
#define POW64_OFF 0x3FE6B80000000000ll
/* The byte offset of the POW64_LOG_T row of the base at *xp: i = bits 44
 * to 51 of |x| - POW64_OFF (the subinterval of z, |x| = 2^k z), times 32.
 * In general-purpose registers from the base's high 32 bits in memory,
 * shifted left once to drop the sign (|x|): the vector levels ran out of
 * floating-point issue slots, not integer ones, and extracting eight
 * offsets from a vector register cost about 14 instructions there (perf
 * annotate; this saved 14% of power's time at AVX-512, 11% at AVX2 and
 * 10% portable). POW64_OFF's low 32 bits are
 * zero, so the subtraction on the high word borrows nothing. */
static inline uint32_t pow_row_off(const double *xp)
{
    uint64_t b;
    memcpy(&b, xp, sizeof b);
    return ((((uint32_t)(b >> 32) << 1) - (uint32_t)(POW64_OFF >> 31)) >> 8) & (255u << 5);
}

/* ln 2 = HI + LO, HI a multiple of 2^-43 (tools/gen_pow_log_table.c) */
#define POW64_LN2_HI 0x1.62e42fefa38p-1
#define POW64_LN2_LO 0x1.ef35793c7673p-45
/* log1p(r) - r + r^2/2 = (-r^3/2) (C3 + C4 r + ... + C8 r^5): Taylor's
 * coefficients (-1)^n 2/n rounded to double */
#define POW64_C3 (-2.0 / 3)
#define POW64_C4 0.5
#define POW64_C5 (-2.0 / 5)
#define POW64_C6 (1.0 / 3)
#define POW64_C7 (-2.0 / 7)
#define POW64_C8 0.25
/* e^v = 2^(N/32) e^er: 32/ln2 rounded, ln2/32 = L1 + L2 (math_f64.h's
 * EXP64_INV, EXP64_L1, EXP64_L2 times 1/2 or 2: exact scalings, so L1 has
 * 36 significant bits and N*L1 is exact for |N| < 2^17) */
#define POW64_EINV 0x1.71547652b82fep+5
#define POW64_EL1 0x1.62e42fefap-6
#define POW64_EL2 0x1.cf79abc9e3b3ap-45
/* e^er - 1 = er + er^2 (E2 + E3 er + ... + E7 er^5): Taylor's 1/n!
 * rounded to double */
#define POW64_E2 0.5
#define POW64_E3 (1.0 / 6)
#define POW64_E4 (1.0 / 24)
#define POW64_E5 (1.0 / 120)
#define POW64_E6 (1.0 / 720)
#define POW64_E7 (1.0 / 5040)

/* For each of the 256 subintervals of z: invc, logc, logctail and a pad
 * (one 32-byte row: a lane's three values come in one load). Then
 * POW64_EXP_T: 2^(j/16) as value + tail (within 2^-106), j = 0..15.
 * tools/gen_pow_log_table.c prints these tables and checks the log
 * table's properties (see the method above). */
static const double POW64_LOG_T[1024] = {
    0x1.68p+0, -0x1.5d1bdbf5808p-2, -0x1.ca508d8e0f72p-46, 0, /* z in [0.709961, 0.711914) */
    0x1.67p+0, -0x1.5a42ab0f4dp-2, 0x1.e63af2df7ba69p-50, 0, /* z in [0.711914, 0.713867) */
    0x1.66p+0, -0x1.57677174558p-2, -0x1.362a4d5b6506dp-45, 0, /* z in [0.713867, 0.715820) */
    0x1.65p+0, -0x1.548a2c3addp-2, -0x1.3167e63081cf7p-45, 0, /* z in [0.715820, 0.717773) */
    0x1.64p+0, -0x1.51aad872df8p-2, -0x1.684e49eb067d5p-49, 0, /* z in [0.717773, 0.719727) */
    0x1.63p+0, -0x1.4ec97326p-2, -0x1.34d7aaf04d104p-45, 0, /* z in [0.719727, 0.721680) */
    0x1.62p+0, -0x1.4be5f957778p-2, -0x1.41b6993293eep-47, 0, /* z in [0.721680, 0.723633) */
    0x1.61p+0, -0x1.49006804008p-2, -0x1.d0cc00797c1d1p-46, 0, /* z in [0.723633, 0.725586) */
    0x1.6p+0, -0x1.4618bc21c6p-2, 0x1.3d82f484c84ccp-46, 0, /* z in [0.725586, 0.727539) */
    0x1.5fp+0, -0x1.432ef2a04e8p-2, -0x1.3b59b3a3a94dcp-50, 0, /* z in [0.727539, 0.729492) */
    0x1.5ep+0, -0x1.404308686a8p-2, 0x1.c42f3ed820b3ap-50, 0, /* z in [0.729492, 0.731445) */
    0x1.5ep+0, -0x1.404308686a8p-2, 0x1.c42f3ed820b3ap-50, 0, /* z in [0.731445, 0.733398) */
    0x1.5dp+0, -0x1.3d54fa5c1f8p-2, 0x1.e0f1932e350e5p-47, 0, /* z in [0.733398, 0.735352) */
    0x1.5cp+0, -0x1.3a64c556948p-2, 0x1.0b1c68651946p-45, 0, /* z in [0.735352, 0.737305) */
    0x1.5bp+0, -0x1.3772662bfd8p-2, -0x1.6bc953ac4fddp-48, 0, /* z in [0.737305, 0.739258) */
    0x1.5ap+0, -0x1.347dd9a988p-2, 0x1.5594dd4c58092p-45, 0, /* z in [0.739258, 0.741211) */
    0x1.59p+0, -0x1.31871c9544p-2, -0x1.84fab94cecfd9p-46, 0, /* z in [0.741211, 0.743164) */
    0x1.58p+0, -0x1.2e8e2bae12p-2, 0x1.67b1e99b72bd8p-45, 0, /* z in [0.743164, 0.745117) */
    0x1.57p+0, -0x1.2b9303ab8ap-2, 0x1.6db12d6bfb0a5p-45, 0, /* z in [0.745117, 0.747070) */
    0x1.56p+0, -0x1.2895a13de88p-2, 0x1.5ca14b6cfb03fp-46, 0, /* z in [0.747070, 0.749023) */
    0x1.55p+0, -0x1.2596010df78p-2, 0x1.c610f76c57076p-46, 0, /* z in [0.749023, 0.750977) */
    0x1.54p+0, -0x1.22941fbcf78p-2, -0x1.65a242853da76p-46, 0, /* z in [0.750977, 0.752930) */
    0x1.54p+0, -0x1.22941fbcf78p-2, -0x1.65a242853da76p-46, 0, /* z in [0.752930, 0.754883) */
    0x1.53p+0, -0x1.1f8ff9e48ap-2, -0x1.7946c040cbe77p-45, 0, /* z in [0.754883, 0.756836) */
    0x1.52p+0, -0x1.1c898c16998p-2, -0x1.fafbc68e75404p-46, 0, /* z in [0.756836, 0.758789) */
    0x1.51p+0, -0x1.1980d2dd42p-2, -0x1.b7b3a7a361c9ap-45, 0, /* z in [0.758789, 0.760742) */
    0x1.5p+0, -0x1.1675cababa8p-2, 0x1.f1fc63382a8fp-46, 0, /* z in [0.760742, 0.762695) */
    0x1.4fp+0, -0x1.136870293a8p-2, -0x1.60bdb314c76e9p-47, 0, /* z in [0.762695, 0.764648) */
    0x1.4ep+0, -0x1.1058bf9ae48p-2, -0x1.6a8c4fd055a66p-45, 0, /* z in [0.764648, 0.766602) */
    0x1.4ep+0, -0x1.1058bf9ae48p-2, -0x1.6a8c4fd055a66p-45, 0, /* z in [0.766602, 0.768555) */
    0x1.4dp+0, -0x1.0d46b579ab8p-2, 0x1.69bf04df8f0d1p-47, 0, /* z in [0.768555, 0.770508) */
    0x1.4cp+0, -0x1.0a324e2739p-2, -0x1.c6bee7ef4030ep-47, 0, /* z in [0.770508, 0.772461) */
    0x1.4bp+0, -0x1.071b85fcd58p-2, -0x1.0d1d1707f97bep-46, 0, /* z in [0.772461, 0.774414) */
    0x1.4ap+0, -0x1.0402594b4dp-2, -0x1.036b89ef42d7fp-48, 0, /* z in [0.774414, 0.776367) */
    0x1.49p+0, -0x1.00e6c45ad5p-2, -0x1.cc68d52e01203p-50, 0, /* z in [0.776367, 0.778320) */
    0x1.49p+0, -0x1.00e6c45ad5p-2, -0x1.cc68d52e01203p-50, 0, /* z in [0.778320, 0.780273) */
    0x1.48p+0, -0x1.fb9186d5e4p-3, 0x1.d572aab993c87p-47, 0, /* z in [0.780273, 0.782227) */
    0x1.47p+0, -0x1.f550a564b8p-3, 0x1.323e3a09202fep-45, 0, /* z in [0.782227, 0.784180) */
    0x1.46p+0, -0x1.ef0adcbdc6p-3, 0x1.b26b79c86af24p-45, 0, /* z in [0.784180, 0.786133) */
    0x1.45p+0, -0x1.e8c0252aa6p-3, 0x1.6805b80e8e6ffp-45, 0, /* z in [0.786133, 0.788086) */
    0x1.44p+0, -0x1.e27076e2afp-3, -0x1.72f4f543fff1p-46, 0, /* z in [0.788086, 0.790039) */
    0x1.44p+0, -0x1.e27076e2afp-3, -0x1.72f4f543fff1p-46, 0, /* z in [0.790039, 0.791992) */
    0x1.43p+0, -0x1.dc1bca0abfp-3, 0x1.c14f9675ccce9p-46, 0, /* z in [0.791992, 0.793945) */
    0x1.42p+0, -0x1.d5c216b4fcp-3, 0x1.1ba91bbca681bp-45, 0, /* z in [0.793945, 0.795898) */
    0x1.41p+0, -0x1.cf6354e09cp-3, -0x1.771239a07d55bp-45, 0, /* z in [0.795898, 0.797852) */
    0x1.4p+0, -0x1.c8ff7c79aap-3, 0x1.7794f689f8434p-45, 0, /* z in [0.797852, 0.799805) */
    0x1.4p+0, -0x1.c8ff7c79aap-3, 0x1.7794f689f8434p-45, 0, /* z in [0.799805, 0.801758) */
    0x1.3fp+0, -0x1.c2968558c2p-3, 0x1.cfd73dee38a4p-45, 0, /* z in [0.801758, 0.803711) */
    0x1.3ep+0, -0x1.bc286742d9p-3, 0x1.94eb0318bb78fp-46, 0, /* z in [0.803711, 0.805664) */
    0x1.3dp+0, -0x1.b5b519e8fbp-3, -0x1.691ba27fdc19ep-45, 0, /* z in [0.805664, 0.807617) */
    0x1.3dp+0, -0x1.b5b519e8fbp-3, -0x1.691ba27fdc19ep-45, 0, /* z in [0.807617, 0.809570) */
    0x1.3cp+0, -0x1.af3c94e80cp-3, 0x1.a4e633fcd9066p-52, 0, /* z in [0.809570, 0.811523) */
    0x1.3bp+0, -0x1.a8becfc883p-3, 0x1.ce7a30de4630ep-48, 0, /* z in [0.811523, 0.813477) */
    0x1.3ap+0, -0x1.a23bc1fe2bp-3, -0x1.58c64dc46c1eap-45, 0, /* z in [0.813477, 0.815430) */
    0x1.3ap+0, -0x1.a23bc1fe2bp-3, -0x1.58c64dc46c1eap-45, 0, /* z in [0.815430, 0.817383) */
    0x1.39p+0, -0x1.9bb362e7ep-3, 0x1.1f2a8a1ce0ffcp-45, 0, /* z in [0.817383, 0.819336) */
    0x1.38p+0, -0x1.9525a9cf45p-3, -0x1.ad1d904c1d4e3p-45, 0, /* z in [0.819336, 0.821289) */
    0x1.37p+0, -0x1.8e928de887p-3, 0x1.5faad3b0a34adp-46, 0, /* z in [0.821289, 0.823242) */
    0x1.37p+0, -0x1.8e928de887p-3, 0x1.5faad3b0a34adp-46, 0, /* z in [0.823242, 0.825195) */
    0x1.36p+0, -0x1.87fa06520dp-3, 0x1.bbdbf7fdbfa09p-45, 0, /* z in [0.825195, 0.827148) */
    0x1.35p+0, -0x1.815c0a1435p-3, -0x1.fab5a0dbfc63p-45, 0, /* z in [0.827148, 0.829102) */
    0x1.34p+0, -0x1.7ab890210ep-3, 0x1.bdb9072534a58p-45, 0, /* z in [0.829102, 0.831055) */
    0x1.34p+0, -0x1.7ab890210ep-3, 0x1.bdb9072534a58p-45, 0, /* z in [0.831055, 0.833008) */
    0x1.33p+0, -0x1.740f8f5403p-3, -0x1.e9326cdfceabep-45, 0, /* z in [0.833008, 0.834961) */
    0x1.32p+0, -0x1.6d60fe719dp-3, -0x1.0e46aa3b2e266p-46, 0, /* z in [0.834961, 0.836914) */
    0x1.32p+0, -0x1.6d60fe719dp-3, -0x1.0e46aa3b2e266p-46, 0, /* z in [0.836914, 0.838867) */
    0x1.31p+0, -0x1.66acd4272bp-3, 0x1.5790900e4e1ebp-46, 0, /* z in [0.838867, 0.840820) */
    0x1.3p+0, -0x1.5ff3070a79p-3, -0x1.e9e439f105039p-46, 0, /* z in [0.840820, 0.842773) */
    0x1.2fp+0, -0x1.59338d9982p-3, -0x1.0ba68b7555d4ap-48, 0, /* z in [0.842773, 0.844727) */
    0x1.2fp+0, -0x1.59338d9982p-3, -0x1.0ba68b7555d4ap-48, 0, /* z in [0.844727, 0.846680) */
    0x1.2ep+0, -0x1.526e5e3a1bp-3, -0x1.0de8b90075b8fp-45, 0, /* z in [0.846680, 0.848633) */
    0x1.2dp+0, -0x1.4ba36f39a5p-3, -0x1.79568981bcc36p-45, 0, /* z in [0.848633, 0.850586) */
    0x1.2dp+0, -0x1.4ba36f39a5p-3, -0x1.79568981bcc36p-45, 0, /* z in [0.850586, 0.852539) */
    0x1.2cp+0, -0x1.44d2b6ccb8p-3, 0x1.70cc16135783cp-46, 0, /* z in [0.852539, 0.854492) */
    0x1.2bp+0, -0x1.3dfc2b0eccp-3, -0x1.8a72a62b8c13fp-45, 0, /* z in [0.854492, 0.856445) */
    0x1.2bp+0, -0x1.3dfc2b0eccp-3, -0x1.8a72a62b8c13fp-45, 0, /* z in [0.856445, 0.858398) */
    0x1.2ap+0, -0x1.371fc201e9p-3, 0x1.178864d27543ap-48, 0, /* z in [0.858398, 0.860352) */
    0x1.29p+0, -0x1.303d718e48p-3, 0x1.680b5ce3ecb05p-50, 0, /* z in [0.860352, 0.862305) */
    0x1.29p+0, -0x1.303d718e48p-3, 0x1.680b5ce3ecb05p-50, 0, /* z in [0.862305, 0.864258) */
    0x1.28p+0, -0x1.29552f81ffp-3, -0x1.48d301771c408p-45, 0, /* z in [0.864258, 0.866211) */
    0x1.27p+0, -0x1.2266f190a6p-3, 0x1.4d20ab840e7f6p-45, 0, /* z in [0.866211, 0.868164) */
    0x1.27p+0, -0x1.2266f190a6p-3, 0x1.4d20ab840e7f6p-45, 0, /* z in [0.868164, 0.870117) */
    0x1.26p+0, -0x1.1b72ad52f6p-3, -0x1.e80a41811a396p-45, 0, /* z in [0.870117, 0.872070) */
    0x1.25p+0, -0x1.1478584674p-3, -0x1.563451027c75p-46, 0, /* z in [0.872070, 0.874023) */
    0x1.25p+0, -0x1.1478584674p-3, -0x1.563451027c75p-46, 0, /* z in [0.874023, 0.875977) */
    0x1.24p+0, -0x1.0d77e7cd09p-3, 0x1.a699688e85bf4p-47, 0, /* z in [0.875977, 0.877930) */
    0x1.23p+0, -0x1.0671512ca6p-3, 0x1.a47579cdc0a3dp-45, 0, /* z in [0.877930, 0.879883) */
    0x1.23p+0, -0x1.0671512ca6p-3, 0x1.a47579cdc0a3dp-45, 0, /* z in [0.879883, 0.881836) */
    0x1.22p+0, -0x1.fec9131dbep-4, -0x1.575545ca333f2p-45, 0, /* z in [0.881836, 0.883789) */
    0x1.21p+0, -0x1.f0a30c0116p-4, -0x1.5330be64b8b77p-47, 0, /* z in [0.883789, 0.885742) */
    0x1.21p+0, -0x1.f0a30c0116p-4, -0x1.5330be64b8b77p-47, 0, /* z in [0.885742, 0.887695) */
    0x1.2p+0, -0x1.e27076e2bp-4, 0x1.a342c2af0003cp-45, 0, /* z in [0.887695, 0.889648) */
    0x1.1fp+0, -0x1.d4313d66ccp-4, 0x1.9454379135713p-45, 0, /* z in [0.889648, 0.891602) */
    0x1.1fp+0, -0x1.d4313d66ccp-4, 0x1.9454379135713p-45, 0, /* z in [0.891602, 0.893555) */
    0x1.1ep+0, -0x1.c5e548f5bcp-4, -0x1.d0c57585fbe06p-46, 0, /* z in [0.893555, 0.895508) */
    0x1.1ep+0, -0x1.c5e548f5bcp-4, -0x1.d0c57585fbe06p-46, 0, /* z in [0.895508, 0.897461) */
    0x1.1dp+0, -0x1.b78c82bb0ep-4, -0x1.b4210878cf032p-45, 0, /* z in [0.897461, 0.899414) */
    0x1.1cp+0, -0x1.a926d3a4aep-4, 0x1.53935e85baac8p-45, 0, /* z in [0.899414, 0.901367) */
    0x1.1cp+0, -0x1.a926d3a4aep-4, 0x1.53935e85baac8p-45, 0, /* z in [0.901367, 0.903320) */
    0x1.1bp+0, -0x1.9ab4246204p-4, 0x1.8a64826787061p-45, 0, /* z in [0.903320, 0.905273) */
    0x1.1ap+0, -0x1.8c345d631ap-4, 0x1.37c294d2f5668p-46, 0, /* z in [0.905273, 0.907227) */
    0x1.1ap+0, -0x1.8c345d631ap-4, 0x1.37c294d2f5668p-46, 0, /* z in [0.907227, 0.909180) */
    0x1.19p+0, -0x1.7da766d7b2p-4, 0x1.a66f776fe6ecap-45, 0, /* z in [0.909180, 0.911133) */
    0x1.19p+0, -0x1.7da766d7b2p-4, 0x1.a66f776fe6ecap-45, 0, /* z in [0.911133, 0.913086) */
    0x1.18p+0, -0x1.6f0d28ae56p-4, -0x1.69737c93373dap-45, 0, /* z in [0.913086, 0.915039) */
    0x1.17p+0, -0x1.60658a9376p-4, 0x1.e789c422c7611p-45, 0, /* z in [0.915039, 0.916992) */
    0x1.17p+0, -0x1.60658a9376p-4, 0x1.e789c422c7611p-45, 0, /* z in [0.916992, 0.918945) */
    0x1.16p+0, -0x1.51b073f062p-4, 0x1.f025b61c65e57p-46, 0, /* z in [0.918945, 0.920898) */
    0x1.16p+0, -0x1.51b073f062p-4, 0x1.f025b61c65e57p-46, 0, /* z in [0.920898, 0.922852) */
    0x1.15p+0, -0x1.42edcbea64p-4, -0x1.bc0eeea7c9acdp-46, 0, /* z in [0.922852, 0.924805) */
    0x1.15p+0, -0x1.42edcbea64p-4, -0x1.bc0eeea7c9acdp-46, 0, /* z in [0.924805, 0.926758) */
    0x1.14p+0, -0x1.341d7961bep-4, 0x1.c5edaccf913dfp-45, 0, /* z in [0.926758, 0.928711) */
    0x1.13p+0, -0x1.253f62f0a2p-4, 0x1.7d20e092cb1fep-45, 0, /* z in [0.928711, 0.930664) */
    0x1.13p+0, -0x1.253f62f0a2p-4, 0x1.7d20e092cb1fep-45, 0, /* z in [0.930664, 0.932617) */
    0x1.12p+0, -0x1.16536eea38p-4, 0x1.47c5e768fa309p-46, 0, /* z in [0.932617, 0.934570) */
    0x1.12p+0, -0x1.16536eea38p-4, 0x1.47c5e768fa309p-46, 0, /* z in [0.934570, 0.936523) */
    0x1.11p+0, -0x1.075983598ep-4, -0x1.1c4c06d2999e2p-46, 0, /* z in [0.936523, 0.938477) */
    0x1.1p+0, -0x1.f0a30c0118p-5, 0x1.d599e83368e91p-45, 0, /* z in [0.938477, 0.940430) */
    0x1.1p+0, -0x1.f0a30c0118p-5, 0x1.d599e83368e91p-45, 0, /* z in [0.940430, 0.942383) */
    0x1.0fp+0, -0x1.d276b8adbp-5, -0x1.6a423c78a64bp-46, 0, /* z in [0.942383, 0.944336) */
    0x1.0fp+0, -0x1.d276b8adbp-5, -0x1.6a423c78a64bp-46, 0, /* z in [0.944336, 0.946289) */
    0x1.0ep+0, -0x1.b42dd71198p-5, 0x1.c827ae5d6704cp-46, 0, /* z in [0.946289, 0.948242) */
    0x1.0ep+0, -0x1.b42dd71198p-5, 0x1.c827ae5d6704cp-46, 0, /* z in [0.948242, 0.950195) */
    0x1.0dp+0, -0x1.95c830ec9p-5, 0x1.c148297c5feb8p-45, 0, /* z in [0.950195, 0.952148) */
    0x1.0dp+0, -0x1.95c830ec9p-5, 0x1.c148297c5feb8p-45, 0, /* z in [0.952148, 0.954102) */
    0x1.0cp+0, -0x1.77458f632cp-5, -0x1.cfc4634f2a1eep-45, 0, /* z in [0.954102, 0.956055) */
    0x1.0bp+0, -0x1.58a5bafc9p-5, 0x1.b2b739570ad39p-45, 0, /* z in [0.956055, 0.958008) */
    0x1.0bp+0, -0x1.58a5bafc9p-5, 0x1.b2b739570ad39p-45, 0, /* z in [0.958008, 0.959961) */
    0x1.0ap+0, -0x1.39e87b9fecp-5, 0x1.502b7f526feaap-48, 0, /* z in [0.959961, 0.961914) */
    0x1.0ap+0, -0x1.39e87b9fecp-5, 0x1.502b7f526feaap-48, 0, /* z in [0.961914, 0.963867) */
    0x1.09p+0, -0x1.1b0d98923cp-5, -0x1.97fc2ca2eec8ap-45, 0, /* z in [0.963867, 0.965820) */
    0x1.09p+0, -0x1.1b0d98923cp-5, -0x1.97fc2ca2eec8ap-45, 0, /* z in [0.965820, 0.967773) */
    0x1.08p+0, -0x1.f829b0e78p-6, -0x1.980267c7e09e4p-45, 0, /* z in [0.967773, 0.969727) */
    0x1.08p+0, -0x1.f829b0e78p-6, -0x1.980267c7e09e4p-45, 0, /* z in [0.969727, 0.971680) */
    0x1.07p+0, -0x1.b9fc027af8p-6, -0x1.197fbd465b759p-46, 0, /* z in [0.971680, 0.973633) */
    0x1.07p+0, -0x1.b9fc027af8p-6, -0x1.197fbd465b759p-46, 0, /* z in [0.973633, 0.975586) */
    0x1.06p+0, -0x1.7b91b07d58p-6, -0x1.88d5493faa639p-45, 0, /* z in [0.975586, 0.977539) */
    0x1.06p+0, -0x1.7b91b07d58p-6, -0x1.88d5493faa639p-45, 0, /* z in [0.977539, 0.979492) */
    0x1.05p+0, -0x1.3cea443468p-6, -0x1.2ba779a52b7eap-45, 0, /* z in [0.979492, 0.981445) */
    0x1.05p+0, -0x1.3cea443468p-6, -0x1.2ba779a52b7eap-45, 0, /* z in [0.981445, 0.983398) */
    0x1.04p+0, -0x1.fc0a8b0fcp-7, -0x1.f1e7cf6d3a69cp-50, 0, /* z in [0.983398, 0.985352) */
    0x1.04p+0, -0x1.fc0a8b0fcp-7, -0x1.f1e7cf6d3a69cp-50, 0, /* z in [0.985352, 0.987305) */
    0x1.03p+0, -0x1.7dc475f81p-7, -0x1.4edba4a25e0b1p-48, 0, /* z in [0.987305, 0.989258) */
    0x1.03p+0, -0x1.7dc475f81p-7, -0x1.4edba4a25e0b1p-48, 0, /* z in [0.989258, 0.991211) */
    0x1.02p+0, -0x1.fe02a6b1p-8, -0x1.9e23f0dda40e4p-46, 0, /* z in [0.991211, 0.993164) */
    0x1.02p+0, -0x1.fe02a6b1p-8, -0x1.9e23f0dda40e4p-46, 0, /* z in [0.993164, 0.995117) */
    0x1.01p+0, -0x1.ff00aa2bp-9, -0x1.0bc04a086b56ap-45, 0, /* z in [0.995117, 0.997070) */
    0x1.01p+0, -0x1.ff00aa2bp-9, -0x1.0bc04a086b56ap-45, 0, /* z in [0.997070, 0.999023) */
    0x1p+0, 0x0p+0, 0x0p+0, 0, /* z in [0.999023, 1.001953) */
    0x1.fep-1, 0x1.008055958p-8, 0x1.166afcb31c67bp-45, 0, /* z in [1.001953, 1.005859) */
    0x1.fcp-1, 0x1.010157589p-7, -0x1.0c76b999d2be8p-46, 0, /* z in [1.005859, 1.009766) */
    0x1.fap-1, 0x1.82448a389p-7, -0x1.75577da74f64p-45, 0, /* z in [1.009766, 1.013672) */
    0x1.f8p-1, 0x1.0205658938p-6, -0x1.3dc5b06e2f7d2p-45, 0, /* z in [1.013672, 1.017578) */
    0x1.f6p-1, 0x1.432a92598p-6, 0x1.98139928637fep-47, 0, /* z in [1.017578, 1.021484) */
    0x1.f4p-1, 0x1.8492528c9p-6, -0x1.aa0ba325a0c34p-45, 0, /* z in [1.021484, 1.025391) */
    0x1.f2p-1, 0x1.c63d2ec148p-6, 0x1.578c63f9eb2f3p-45, 0, /* z in [1.025391, 1.029297) */
    0x1.fp-1, 0x1.0415d89e74p-5, 0x1.111c05cf1d753p-47, 0, /* z in [1.029297, 1.033203) */
    0x1.efp-1, 0x1.149e3e4004p-5, 0x1.a8ceacb7d2e06p-45, 0, /* z in [1.033203, 1.037109) */
    0x1.edp-1, 0x1.35c8bfaa14p-5, -0x1.f2a0a8418532bp-46, 0, /* z in [1.037109, 1.041016) */
    0x1.ebp-1, 0x1.5715c4c03cp-5, 0x1.dddc880ee276p-46, 0, /* z in [1.041016, 1.044922) */
    0x1.e9p-1, 0x1.788595a358p-5, -0x1.08b0d083b3a4cp-46, 0, /* z in [1.044922, 1.048828) */
    0x1.e7p-1, 0x1.9a187b573cp-5, 0x1.e7ba362764de5p-45, 0, /* z in [1.048828, 1.052734) */
    0x1.e5p-1, 0x1.bbcebfc69p-5, -0x1.7bf868c317c2ap-46, 0, /* z in [1.052734, 1.056641) */
    0x1.e4p-1, 0x1.ccb73cdddcp-5, -0x1.a68f247d82807p-46, 0, /* z in [1.056641, 1.060547) */
    0x1.e2p-1, 0x1.eea31c006cp-5, -0x1.e113e4fc93b7bp-47, 0, /* z in [1.060547, 1.064453) */
    0x1.ep-1, 0x1.08598b59e4p-4, -0x1.7e5dd7009902cp-46, 0, /* z in [1.064453, 1.068359) */
    0x1.dep-1, 0x1.1973bd1466p-4, -0x1.5325d560d9e9bp-45, 0, /* z in [1.068359, 1.072266) */
    0x1.ddp-1, 0x1.2207b5c786p-4, -0x1.6c4e607de7082p-45, 0, /* z in [1.072266, 1.076172) */
    0x1.dbp-1, 0x1.333d7f8184p-4, -0x1.692b6a81b8848p-49, 0, /* z in [1.076172, 1.080078) */
    0x1.d9p-1, 0x1.4485e03dbep-4, -0x1.4ae45cb655244p-50, 0, /* z in [1.080078, 1.083984) */
    0x1.d7p-1, 0x1.55e10050ep-4, 0x1.c1d740c53c72ep-47, 0, /* z in [1.083984, 1.087891) */
    0x1.d6p-1, 0x1.5e95a4d97ap-4, -0x1.c69063c5d1d1ep-45, 0, /* z in [1.087891, 1.091797) */
    0x1.d4p-1, 0x1.700d30aeacp-4, 0x1.c1e8da99ded32p-49, 0, /* z in [1.091797, 1.095703) */
    0x1.d2p-1, 0x1.8197e2f40ep-4, 0x1.f80dcf96ffdf7p-47, 0, /* z in [1.095703, 1.099609) */
    0x1.d1p-1, 0x1.8a6477a91ep-4, -0x1.eb9fa83214905p-47, 0, /* z in [1.099609, 1.103516) */
    0x1.cfp-1, 0x1.9c0c32d4d2p-4, 0x1.520fd85f1e661p-46, 0, /* z in [1.103516, 1.107422) */
    0x1.cep-1, 0x1.a4e7640b1cp-4, -0x1.e42b6b94407c8p-47, 0, /* z in [1.107422, 1.111328) */
    0x1.ccp-1, 0x1.b6ac88dad6p-4, -0x1.390802bf768e5p-46, 0, /* z in [1.111328, 1.115234) */
    0x1.cap-1, 0x1.c885801bc4p-4, 0x1.646d1c65aacd3p-45, 0, /* z in [1.115234, 1.119141) */
    0x1.c9p-1, 0x1.d17978821ap-4, -0x1.9379894208225p-45, 0, /* z in [1.119141, 1.123047) */
    0x1.c7p-1, 0x1.e3707ee304p-4, 0x1.0f684e6766abdp-45, 0, /* z in [1.123047, 1.126953) */
    0x1.c6p-1, 0x1.ec739830a2p-4, -0x1.dc068afe645ep-45, 0, /* z in [1.126953, 1.130859) */
    0x1.c4p-1, 0x1.fe89139dbep-4, -0x1.534d64fa10afdp-45, 0, /* z in [1.130859, 1.134766) */
    0x1.c2p-1, 0x1.08598b59e4p-3, -0x1.7e5dd7009902cp-45, 0, /* z in [1.134766, 1.138672) */
    0x1.c1p-1, 0x1.0ce7ecdcccp-3, 0x1.4652dabff5447p-46, 0, /* z in [1.138672, 1.142578) */
    0x1.bfp-1, 0x1.160c8024b2p-3, 0x1.ec2d2a9009e3dp-45, 0, /* z in [1.142578, 1.146484) */
    0x1.bep-1, 0x1.1aa2b7e23fp-3, 0x1.ca78e44389934p-45, 0, /* z in [1.146484, 1.150391) */
    0x1.bcp-1, 0x1.23d712a49cp-3, 0x1.00d238fd3df5cp-46, 0, /* z in [1.150391, 1.154297) */
    0x1.bbp-1, 0x1.28753bc11bp-3, -0x1.16d6394d9fa33p-45, 0, /* z in [1.154297, 1.158203) */
    0x1.b9p-1, 0x1.31b994d3a5p-3, -0x1.ece238b5efe06p-49, 0, /* z in [1.158203, 1.162109) */
    0x1.b8p-1, 0x1.365fcb0159p-3, 0x1.62fa8234b7289p-51, 0, /* z in [1.162109, 1.166016) */
    0x1.b6p-1, 0x1.3fb45a5993p-3, -0x1.cd1d87e6a354dp-45, 0, /* z in [1.166016, 1.169922) */
    0x1.b5p-1, 0x1.4462b9dc9bp-3, 0x1.ede9d63b93e7ap-46, 0, /* z in [1.169922, 1.173828) */
    0x1.b3p-1, 0x1.4dc7b897bcp-3, 0x1.c79b60ae1ff0fp-47, 0, /* z in [1.173828, 1.177734) */
    0x1.b2p-1, 0x1.527e5e4a1bp-3, 0x1.633e8e5697dc7p-45, 0, /* z in [1.177734, 1.181641) */
    0x1.b1p-1, 0x1.5737cc9019p-3, -0x1.91561651de028p-46, 0, /* z in [1.181641, 1.185547) */
    0x1.afp-1, 0x1.60b3100b09p-3, 0x1.1d7526cee0fd8p-45, 0, /* z in [1.185547, 1.189453) */
    0x1.aep-1, 0x1.6574ebe8c1p-3, 0x1.9cf8b2c3c2e78p-46, 0, /* z in [1.189453, 1.193359) */
    0x1.acp-1, 0x1.6f0128b757p-3, -0x1.5118de59c21e1p-45, 0, /* z in [1.193359, 1.197266) */
    0x1.abp-1, 0x1.73cb9074fdp-3, 0x1.4cab797ffd2ccp-47, 0, /* z in [1.197266, 1.201172) */
    0x1.aap-1, 0x1.7898d85445p-3, -0x1.c661070914305p-46, 0, /* z in [1.201172, 1.205078) */
    0x1.a8p-1, 0x1.823c16551ap-3, 0x1.e0ddb9a631e83p-46, 0, /* z in [1.205078, 1.208984) */
    0x1.a7p-1, 0x1.871213750fp-3, -0x1.9ae297a0ca116p-45, 0, /* z in [1.208984, 1.212891) */
    0x1.a5p-1, 0x1.90c6db9fccp-3, -0x1.935f57718d7cap-46, 0, /* z in [1.212891, 1.216797) */
    0x1.a4p-1, 0x1.95a5adcf7p-3, 0x1.7f22858a0ff6fp-47, 0, /* z in [1.216797, 1.220703) */
    0x1.a3p-1, 0x1.9a8778debbp-3, -0x1.71e0b820278ep-45, 0, /* z in [1.220703, 1.224609) */
    0x1.a1p-1, 0x1.a454082e6bp-3, -0x1.3eb106fc11d1ep-45, 0, /* z in [1.224609, 1.228516) */
    0x1.ap-1, 0x1.a93ed3c8aep-3, -0x1.8724350562169p-45, 0, /* z in [1.228516, 1.232422) */
    0x1.9fp-1, 0x1.ae2ca6f673p-3, -0x1.0ae54a356155fp-45, 0, /* z in [1.232422, 1.236328) */
    0x1.9dp-1, 0x1.b811730b82p-3, 0x1.e90683b9cd768p-46, 0, /* z in [1.236328, 1.240234) */
    0x1.9cp-1, 0x1.bd087383bep-3, -0x1.d4bc4595412b6p-45, 0, /* z in [1.240234, 1.244141) */
    0x1.9bp-1, 0x1.c2028ab18p-3, -0x1.92e0ee55c7ac6p-45, 0, /* z in [1.244141, 1.248047) */
    0x1.9ap-1, 0x1.c6ffbc6f01p-3, -0x1.1ec72c5962bd2p-48, 0, /* z in [1.248047, 1.251953) */
    0x1.98p-1, 0x1.d1037f2656p-3, -0x1.84a7e75b6f6e4p-47, 0, /* z in [1.251953, 1.255859) */
    0x1.97p-1, 0x1.d60a17f903p-3, 0x1.4523f207be58ep-45, 0, /* z in [1.255859, 1.259766) */
    0x1.96p-1, 0x1.db13db0d49p-3, -0x1.aff2af715b035p-45, 0, /* z in [1.259766, 1.263672) */
    0x1.95p-1, 0x1.e020cc6236p-3, -0x1.52b00adb91424p-45, 0, /* z in [1.263672, 1.267578) */
    0x1.93p-1, 0x1.ea4449f04bp-3, -0x1.42dd33919ab94p-45, 0, /* z in [1.267578, 1.271484) */
    0x1.92p-1, 0x1.ef5ade4ddp-3, -0x1.a211565bb8e11p-51, 0, /* z in [1.271484, 1.275391) */
    0x1.91p-1, 0x1.f474b134dfp-3, 0x1.146d838821289p-46, 0, /* z in [1.275391, 1.279297) */
    0x1.9p-1, 0x1.f991c6cb3bp-3, 0x1.bcbecca0cdf3p-46, 0, /* z in [1.279297, 1.283203) */
    0x1.8ep-1, 0x1.01eae5626c8p-2, -0x1.6f08c1485e94ap-46, 0, /* z in [1.283203, 1.287109) */
    0x1.8dp-1, 0x1.047e60cde8p-2, 0x1.dbdf10d397f3cp-45, 0, /* z in [1.287109, 1.291016) */
    0x1.8cp-1, 0x1.07138604d58p-2, 0x1.89cdb16ed4e91p-48, 0, /* z in [1.291016, 1.294922) */
    0x1.8bp-1, 0x1.09aa572e6c8p-2, -0x1.2bd787a32f2f6p-46, 0, /* z in [1.294922, 1.298828) */
    0x1.8ap-1, 0x1.0c42d67616p-2, 0x1.7188b163ceae9p-45, 0, /* z in [1.298828, 1.302734) */
    0x1.88p-1, 0x1.1178e8227e8p-2, -0x1.c210e63a5f01cp-45, 0, /* z in [1.302734, 1.306641) */
    0x1.87p-1, 0x1.14167ef3678p-2, -0x1.f3f87db2550acp-48, 0, /* z in [1.306641, 1.310547) */
    0x1.86p-1, 0x1.16b5ccbacf8p-2, 0x1.b9acdf7a51681p-45, 0, /* z in [1.310547, 1.314453) */
    0x1.85p-1, 0x1.1956d3b9bcp-2, 0x1.7d2f73ad1aa14p-45, 0, /* z in [1.314453, 1.318359) */
    0x1.84p-1, 0x1.1bf99635a68p-2, 0x1.ca6ed5147bdb7p-45, 0, /* z in [1.318359, 1.322266) */
    0x1.83p-1, 0x1.1e9e1678898p-2, 0x1.f4544b0dd2688p-46, 0, /* z in [1.322266, 1.326172) */
    0x1.82p-1, 0x1.214456d0eb8p-2, 0x1.a87deba46baeap-47, 0, /* z in [1.326172, 1.330078) */
    0x1.8p-1, 0x1.269621134d8p-2, 0x1.c93c1df5bb3b6p-45, 0, /* z in [1.330078, 1.333984) */
    0x1.7fp-1, 0x1.2941afb1868p-2, 0x1.bde7a919e3aebp-45, 0, /* z in [1.333984, 1.337891) */
    0x1.7ep-1, 0x1.2bef07cdc9p-2, 0x1.a9cfa4a5004f4p-45, 0, /* z in [1.337891, 1.341797) */
    0x1.7dp-1, 0x1.2e9e2bce12p-2, 0x1.4300c128d1dc2p-45, 0, /* z in [1.341797, 1.345703) */
    0x1.7cp-1, 0x1.314f1e1d36p-2, -0x1.8e27ad3213cb8p-45, 0, /* z in [1.345703, 1.349609) */
    0x1.7bp-1, 0x1.3401e12aec8p-2, 0x1.d07195523adc6p-45, 0, /* z in [1.349609, 1.353516) */
    0x1.7ap-1, 0x1.36b6776be1p-2, 0x1.16ecdb0f177c8p-46, 0, /* z in [1.353516, 1.357422) */
    0x1.79p-1, 0x1.396ce359bcp-2, -0x1.5839c5663663dp-47, 0, /* z in [1.357422, 1.361328) */
    0x1.78p-1, 0x1.3c25277333p-2, 0x1.83b54b606bd5cp-46, 0, /* z in [1.361328, 1.365234) */
    0x1.76p-1, 0x1.419b423d5e8p-2, 0x1.8e436ec90e09dp-47, 0, /* z in [1.365234, 1.369141) */
    0x1.75p-1, 0x1.44591e053ap-2, -0x1.6e95892923d88p-47, 0, /* z in [1.369141, 1.373047) */
    0x1.74p-1, 0x1.4718dc271c8p-2, -0x1.f27ce0967d675p-45, 0, /* z in [1.373047, 1.376953) */
    0x1.73p-1, 0x1.49da7f3bcc8p-2, -0x1.f099964a168cdp-45, 0, /* z in [1.376953, 1.380859) */
    0x1.72p-1, 0x1.4c9e09e173p-2, -0x1.e20891b0ad8a4p-45, 0, /* z in [1.380859, 1.384766) */
    0x1.71p-1, 0x1.4f637ebba98p-2, 0x1.f539a676da36ep-51, 0, /* z in [1.384766, 1.388672) */
    0x1.7p-1, 0x1.522ae0738ap-2, 0x1.ebe708164c759p-45, 0, /* z in [1.388672, 1.392578) */
    0x1.6fp-1, 0x1.54f431b7bep-2, 0x1.a8954c0910952p-46, 0, /* z in [1.392578, 1.396484) */
    0x1.6ep-1, 0x1.57bf753c8dp-2, 0x1.fadedee5d40efp-46, 0, /* z in [1.396484, 1.400391) */
    0x1.6dp-1, 0x1.5a8cadbbeep-2, -0x1.7c79b0af7ecf8p-48, 0, /* z in [1.400391, 1.404297) */
    0x1.6cp-1, 0x1.5d5bddf596p-2, -0x1.a0b2a08a465dcp-47, 0, /* z in [1.404297, 1.408203) */
    0x1.6bp-1, 0x1.602d08af09p-2, 0x1.ebe9176df3f65p-46, 0, /* z in [1.408203, 1.412109) */
    0x1.6ap-1, 0x1.630030b3abp-2, -0x1.db623e731aep-45, 0, /* z in [1.412109, 1.416016) */
    0x1.69p-1, 0x1.65d558d4cep-2, 0x1.544fd2dc5bdcp-51, 0, /* z in [1.416016, 1.419922) */
};
/* largest |z*invc - 1|: 0x1.7f7fffffffep-9 */
static const double POW64_EXP_T[64] = {
    0x1p+0, 0x0p+0,
    0x1.059b0dp+0, 0x1.8ac2ba1d73e2ap-27,
    0x1.0b5587p+0, -0x1.833b784eb3a37p-27,
    0x1.11301dp+0, 0x1.25b50a4ebbf1bp-32,
    0x1.172b84p+0, -0x1.c15742919041cp-27,
    0x1.1d4873p+0, 0x1.68b9aa7805b8p-28,
    0x1.2387a7p+0, -0x1.8a9dc7993e052p-28,
    0x1.29e9df8p+0, -0x1.70108f69ed175p-27,
    0x1.306fe08p+0, 0x1.18db8a96f46adp-27,
    0x1.371a738p+0, -0x1.8aac6ab1d756p-29,
    0x1.3dea65p+0, -0x1.f6e5eee525f6fp-27,
    0x1.44e086p+0, 0x1.8624b40c4dbdp-30,
    0x1.4bfdad8p+0, -0x1.64eaec715e343p-27,
    0x1.5342b58p+0, -0x1.62b07e20f57c4p-28,
    0x1.5ab07ep+0, -0x1.5bd5eb539b67fp-27,
    0x1.6247ebp+0, 0x1.d2ac258f87d03p-31,
    0x1.6a09e68p+0, -0x1.80c4336f74d05p-28,
    0x1.71f75e8p+0, 0x1.d8bee7ba46e1ep-29,
    0x1.7a1147p+0, 0x1.f580c36bea881p-27,
    0x1.8258998p+0, 0x1.4cce128acf88bp-28,
    0x1.8ace54p+0, 0x1.15506dadd3e2bp-27,
    0x1.93737bp+0, 0x1.9b8bc9e8a0388p-29,
    0x1.9c4918p+0, 0x1.51f8480e3e236p-27,
    0x1.a5503bp+0, 0x1.1f12ae45a1225p-27,
    0x1.ae89f98p+0, 0x1.5ad3ad5e8734dp-28,
    0x1.b7f76fp+0, 0x1.7daf237553d84p-27,
    0x1.c199bep+0, -0x1.3d56b1eeef9a7p-27,
    0x1.cb720ep+0, -0x1.8837cb757e1a1p-27,
    0x1.d5818ep+0, -0x1.822dbc6d12fd3p-27,
    0x1.dfc973p+0, 0x1.bdcdaf5cb4656p-27,
    0x1.ea4afap+0, 0x1.52486cc2c7b9dp-27,
    0x1.f507658p+0, 0x1.b722a033a7c26p-27,
};

#else /* per ISA */

/* unsigned 64-bit lanes, for wrapping integer arithmetic */
typedef uint64_t N(vul) __attribute__((vector_size(VBYTES)));

/* The table lookups: lane l's row of POW64_LOG_T (invc, logc, logctail)
 * and its pair of EXP64_T (2^(j/64) value and tail), each one load per
 * lane and a transpose in registers. Hardware gathers cost 40% of power
 * (five per vector: measured; three for the log rows alone, 20% on the
 * Zen 5 machine of issue 17) and lane-by-lane inserts through memory
 * stall store forwarding; the loads are exact, so every level gets the
 * same values. The log rows' offsets come from the bases in memory
 * (pow_row_off, integer registers), not from a vector. */
#if EWF_PASS == 3
TI void N(pow_log_rows)(const double *xp, vd *a, vd *b, vd *c)
{
    const char *t = (const char *)POW64_LOG_T;
#define POW_ROWS(l) \
    _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd((const double *)(t + pow_row_off(xp + l)))), \
                       _mm256_loadu_pd((const double *)(t + pow_row_off(xp + l + 4))), 1)
    /* z_l = rows l and l+4: (a b c pad) (a b c pad); named values, not an
     * array, which the compiler kept in memory */
    __m512d z0 = POW_ROWS(0), z1 = POW_ROWS(1), z2 = POW_ROWS(2), z3 = POW_ROWS(3);
#undef POW_ROWS
    __m512d lo01 = _mm512_unpacklo_pd(z0, z1), hi01 = _mm512_unpackhi_pd(z0, z1);
    __m512d lo23 = _mm512_unpacklo_pd(z2, z3), hi23 = _mm512_unpackhi_pd(z2, z3);
    /* lo01 = a0 a1 c0 c1 a4 a5 c4 c5, lo23 = a2 a3 c2 c3 a6 a7 c6 c7 */
    const __m512i ia = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), ic = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    *a = (vd)_mm512_permutex2var_pd(lo01, ia, lo23);
    *b = (vd)_mm512_permutex2var_pd(hi01, ia, hi23);
    *c = (vd)_mm512_permutex2var_pd(lo01, ic, lo23);
}
TI void N(pow_exp_pairs)(vl j, vd *th, vd *tl)
{
    /* e = pairs 0 2 4 6, o = pairs 1 3 5 7: unpacklo/hi give value, tail */
    vl off = j << 4;
    const char *t = (const char *)EXP64_T;
#define POW_PAIR(l) _mm_loadu_pd((const double *)(t + off[l]))
    __m512d e = _mm512_castpd128_pd512(POW_PAIR(0)), o = _mm512_castpd128_pd512(POW_PAIR(1));
    e = _mm512_insertf64x2(_mm512_insertf64x2(_mm512_insertf64x2(e, POW_PAIR(2), 1), POW_PAIR(4), 2), POW_PAIR(6), 3);
    o = _mm512_insertf64x2(_mm512_insertf64x2(_mm512_insertf64x2(o, POW_PAIR(3), 1), POW_PAIR(5), 2), POW_PAIR(7), 3);
#undef POW_PAIR
    *th = (vd)_mm512_unpacklo_pd(e, o);
    *tl = (vd)_mm512_unpackhi_pd(e, o);
}
/* power's 2^(j/32), j in 0..31: POW64_EXP_T's values and tails in eight
 * registers (loop invariant: the compiler keeps them out of the loop), two
 * two-table permutes and a blend on j's bit 4 each, instead of eight loads,
 * eight index extractions and a transpose; exact, so the same values as
 * the loads of the other levels */
TI __m512d N(pow_deal)(int o, int half)
{
    /* the values (o = 0) or tails (o = 1) of pairs 8 half .. 8 half + 7 */
    const double *t = POW64_EXP_T + 16 * half;
    const __m512i ix = _mm512_set_epi64(14 + o, 12 + o, 10 + o, 8 + o, 6 + o, 4 + o, 2 + o, o);
    return _mm512_permutex2var_pd(_mm512_loadu_pd(t), ix, _mm512_loadu_pd(t + 8));
}
TI void N(pow_exp32)(vl j, vd *th, vd *tl)
{
    /* j's bits 0-3 pick the element of a register pair, bit 4 the pair:
     * the higher bits are ignored, so j needs no mask */
    __m512d h0 = N(pow_deal)(0, 0), h1 = N(pow_deal)(0, 1), h2 = N(pow_deal)(0, 2), h3 = N(pow_deal)(0, 3);
    __m512d l0 = N(pow_deal)(1, 0), l1 = N(pow_deal)(1, 1), l2 = N(pow_deal)(1, 2), l3 = N(pow_deal)(1, 3);
    __mmask8 up = _mm512_test_epi64_mask((__m512i)j, _mm512_set1_epi64(16));
    __m512i jj = (__m512i)j;
    *th = (vd)_mm512_mask_blend_pd(up, _mm512_permutex2var_pd(h0, jj, h1), _mm512_permutex2var_pd(h2, jj, h3));
    *tl = (vd)_mm512_mask_blend_pd(up, _mm512_permutex2var_pd(l0, jj, l1), _mm512_permutex2var_pd(l2, jj, l3));
}
#elif EWF_PASS == 2
TI void N(pow_log_rows)(const double *xp, vd *a, vd *b, vd *c)
{
    const char *t = (const char *)POW64_LOG_T;
    __m256d r0 = _mm256_loadu_pd((const double *)(t + pow_row_off(xp))), r1 = _mm256_loadu_pd((const double *)(t + pow_row_off(xp + 1)));
    __m256d r2 = _mm256_loadu_pd((const double *)(t + pow_row_off(xp + 2))), r3 = _mm256_loadu_pd((const double *)(t + pow_row_off(xp + 3)));
    __m256d lo01 = _mm256_unpacklo_pd(r0, r1), hi01 = _mm256_unpackhi_pd(r0, r1);   /* a0 a1 c0 c1, b0 b1 pad */
    __m256d lo23 = _mm256_unpacklo_pd(r2, r3), hi23 = _mm256_unpackhi_pd(r2, r3);
    *a = (vd)_mm256_permute2f128_pd(lo01, lo23, 0x20);
    *b = (vd)_mm256_permute2f128_pd(hi01, hi23, 0x20);
    *c = (vd)_mm256_permute2f128_pd(lo01, lo23, 0x31);
}
TI void N(pow_exp_pairs)(vl j, vd *th, vd *tl)
{
    __m256d e = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(EXP64_T + 2 * j[0])),
                                     _mm_loadu_pd(EXP64_T + 2 * j[2]), 1);
    __m256d o = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(EXP64_T + 2 * j[1])),
                                     _mm_loadu_pd(EXP64_T + 2 * j[3]), 1);
    *th = (vd)_mm256_unpacklo_pd(e, o);
    *tl = (vd)_mm256_unpackhi_pd(e, o);
}
TI void N(pow_exp32)(vl jb, vd *th, vd *tl)
{
    vl j = jb & 31;
    __m256d e = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(POW64_EXP_T + 2 * j[0])),
                                     _mm_loadu_pd(POW64_EXP_T + 2 * j[2]), 1);
    __m256d o = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(POW64_EXP_T + 2 * j[1])),
                                     _mm_loadu_pd(POW64_EXP_T + 2 * j[3]), 1);
    *th = (vd)_mm256_unpacklo_pd(e, o);
    *tl = (vd)_mm256_unpackhi_pd(e, o);
}
#else
TI void N(pow_log_rows)(const double *xp, vd *a, vd *b, vd *c)
{
    const double *r0 = POW64_LOG_T + pow_row_off(xp) / 8, *r1 = POW64_LOG_T + pow_row_off(xp + 1) / 8;
    *a = (vd){r0[0], r1[0]};
    *b = (vd){r0[1], r1[1]};
    *c = (vd){r0[2], r1[2]};
}
TI void N(pow_exp_pairs)(vl j, vd *th, vd *tl)
{
    *th = (vd){EXP64_T[2 * j[0]], EXP64_T[2 * j[1]]};
    *tl = (vd){EXP64_T[2 * j[0] + 1], EXP64_T[2 * j[1] + 1]};
}
TI void N(pow_exp32)(vl jb, vd *th, vd *tl)
{
    vl j = jb & 31;
    *th = (vd){POW64_EXP_T[2 * j[0]], POW64_EXP_T[2 * j[1]]};
    *tl = (vd){POW64_EXP_T[2 * j[0] + 1], POW64_EXP_T[2 * j[1] + 1]};
}
#endif

/* whether any lane of mask m is set, in registers (a memcmp of the
 * vector goes through memory: a store and eight reloads per call) */
#if EWF_PASS == 3
TI bool N(pow_any)(vl m) { return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0; }
#elif EWF_PASS == 2
TI bool N(pow_any)(vl m) { return !_mm256_testz_si256((__m256i)m, (__m256i)m); }
#else
TI bool N(pow_any)(vl m) { return (m[0] | m[1]) != 0; }
#endif

/* whether a lane of power needs d_pow's rarer tests: x's sign bit set, or
 * y's mantissa field zero (+-1, 2 and 1/2 are powers of two; so are 0,
 * the infinities and 2^k, which those tests leave as they are) */
#if EWF_PASS == 3
TI bool N(pow_rare)(vd x, vd y)
{
    return (_mm512_movepi64_mask((__m512i)x) | _mm512_testn_epi64_mask((__m512i)y, _mm512_set1_epi64(0x000FFFFFFFFFFFFFll))) != 0;
}
#else
TI bool N(pow_rare)(vd x, vd y)
{
    return N(pow_any)(((vl)x < 0) | (((vl)y & (int64_t)0x000FFFFFFFFFFFFFll) == 0));
}
#endif

/* pow(x, y) on the lanes with x normal and finite, y finite with |y| <=
 * 2^31, x > 0 or y an integer (the sign of |x|^y then from y's parity),
 * and y ln|x| in (EXP64_LO, EXP64_HI): a normal result, no overflow (the
 * method above; x = 1 or y = 0 give exactly 1 on this path: log 1 = 0
 * exactly, e^0 = 1). y = 1, 2, -1 (any finite nonzero x) and 1/2 (x > 0)
 * are x, x*x, 1/x and sqrt x, correctly rounded; x < 0 finite with a
 * non-integral finite y is the default NaN. The results go to *out; the
 * return is true when every lane is done (the common case: one test and
 * branch, *bad not written), else *bad marks the rest (zeros,
 * infinities, NaN, subnormal x, huge |y|, overflow and underflow), for
 * the scalar rule. xp holds x's lanes in memory (the log rows' offsets
 * are read from there). */
TI bool N(d_pow)(vd x, vd y, const double *xp, vd *out, vl *bad)
{
    vd ax = (vd)((vl)x & F64_ABS), ay = (vd)((vl)y & F64_ABS);
    /* the lanes of a normal x and a finite y that the main path takes
     * (false for NaN); a negative x also needs an integral y (below) */
#if EWF_PASS == 3
    /* in mask registers: as vectors, GCC built all-ones and masked moves
     * to and from the masks (about five instructions per vector) */
    __mmask8 okm = _mm512_cmp_pd_mask((__m512d)ax, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) &
                   _mm512_cmp_pd_mask((__m512d)ax, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ) &
                   _mm512_cmp_pd_mask((__m512d)ay, _mm512_set1_pd(0x1p31), _CMP_LE_OQ);
#else
    vl ok = (ax >= 0x1p-1022) & (ax <= 0x1.fffffffffffffp1023) & (ay <= 0x1p31);
#endif
    /* the main path runs on every lane, |x| and y as they are: the other
     * lanes' values (from zeros, infinities, NaN) are replaced; waiting
     * for ok here would put the tests of y on the path's latency */
    vd xs = ax, ys = y;
    /* |x| = 2^k z, z in [0x1.6b8p-1, 0x1.6b8p0); the subinterval's row
     * comes from xp (pow_row_off: the same bits 44 to 51 of tmp) */
    vl ix = (vl)xs;
    vl tmp = ix - (int64_t)POW64_OFF;
    vl iz = ix - (tmp & (int64_t)0xFFF0000000000000ull);
    vd kd = __builtin_convertvector(tmp >> 52, vd);
    vd z = (vd)iz;
    vd invc, logc, logctail;
    N(pow_log_rows)(xp, &invc, &logc, &logctail);
    /* r = z*invc - 1 exactly (d_zinv_m1: one fused multiply-add, or at
     * the portable level z cut at 2^-20 by adding and subtracting 1.5
     * 2^32, floating-point operands from memory, where the integer
     * rounding and mask needed two more constants built in registers) */
    vd r = N(d_zinv_m1)(z, invc);
    /* log|x| = k ln2 + log c + log1p(r) = hi + lo */
    vd t1 = kd * POW64_LN2_HI + logc;
    vd t2 = t1 + r;
    vd lo1 = kd * POW64_LN2_LO + logctail;
    vd lo2 = (t1 - t2) + r;
    /* -r^2/2 = ar2 + lo3 exactly: r2 = RN(r^2) and its exact error
     * (d_sq_err: one fused multiply-add at AVX2 and AVX-512, Dekker's
     * square at the portable level; r is a multiple of 2^-61, so r^2 is 0
     * or above 2^-122: no underflow), both halved exactly. Until issue
     * 17's sixth round: rhi^2/2 (exact, rhi = r cut at 2^-29) + rlo (r +
     * rhi)/2 (rounded), which needed r in two parts */
    vd r2 = r * r, r4 = r2 * r2;
    vd ar2 = -0.5 * r2, ar3 = r * ar2;
    vd hi = t2 + ar2;
    vd lo3 = -0.5 * N(d_sq_err)(r, r2);
    vd lo4 = (t2 - hi) + ar2;
    /* Estrin's scheme: the loop is bound by this path's latency */
    vd p = ar3 * (((POW64_C3 + r * POW64_C4) + r2 * (POW64_C5 + r * POW64_C6)) + r4 * (POW64_C7 + r * POW64_C8));
    vd lo = (((lo1 + lo3) + lo4) + lo2) + p;
    vd lh = hi + lo;
    vd ll = (hi - lh) + lo;
    /* y log|x| = ehi + elo: ehi = RN(y lh) and its exact error
     * (d_mul_err; |y lh| below 2^-960 gives a result of 1 whatever elo
     * is), elo = that error + y ll (within 2^-104 |ehi|). Until issue
     * 17's sixth round: Dekker's product on 26-bit halves cut by a mask,
     * eight operations */
    vd ehi = ys * lh;
    vd elo = N(d_mul_err)(ys, lh, ehi) + ys * ll;
#if EWF_PASS == 3
    okm &= _mm512_cmp_pd_mask((__m512d)ehi, _mm512_set1_pd(EXP64_LO), _CMP_GT_OQ) &
           _mm512_cmp_pd_mask((__m512d)ehi, _mm512_set1_pd(EXP64_HI), _CMP_LT_OQ);
#else
    ok &= (ehi > EXP64_LO) & (ehi < EXP64_HI);
#endif
    /* e^(ehi + elo) = 2^ke 2^(j/32) e^(er + erl), N = 32 ke + j = round(ehi 32/ln2) */
    vd tt = ehi * POW64_EINV + 0x1.8p52;
    vd nd = tt - 0x1.8p52;
    /* tt's pattern is 0x4338000000000000 + N: its low 5 bits are j (the
     * lookup masks them) and, shifted right by 5 then left by 52 (in
     * unsigned lanes), it gives ke in the exponent field, the constant's
     * part (a multiple of 2^64 after the shifts) gone. On the lanes ok
     * leaves out ehi may be huge or NaN: their results are replaced. */
    vl j = (vl)tt;
    N(vul) kf = ((N(vul))tt >> 5) << 52;
    /* ea exact (Sterbenz), er + erl = ea + eb (Fast2Sum: |ea| >= |eb|
     * unless both are below 2^-28, where er's error is below 2^-80) */
    vd ea = ehi - nd * POW64_EL1, eb = elo - nd * POW64_EL2;
    vd er = ea + eb;
    vd erl = (ea - er) + eb;
    vd er2 = er * er;
    vd q = ((POW64_E2 + er * POW64_E3) + er2 * (POW64_E4 + er * POW64_E5)) + (er2 * er2) * (POW64_E6 + er * POW64_E7);
    vd th, tl;
    N(pow_exp32)(j, &th, &tl);
    /* e^(er + erl) - 1 = pe = er + w, w = er^2 q + erl (erl er < 2^-65.5);
     * 2^(j/32) e^(er + erl) = (th + tl)(1 + pe) = th + th*erh + (th*(pe -
     * erh) + tl (1 + pe)) where erh = er cut to 26 bits: th has 26 bits,
     * so th*erh is exact and th + th*erh a Fast2Sum (s + serr); the rest
     * is below 2^-13 of th, its roundings below 2^-66 (tl < 2^-26 th, so
     * 1 + pe's rounding costs it 2^-79): the result's only large rounding
     * is its last one */
    vd w = er2 * q + erl;
    const vl cut = (vl){0} + (int64_t)0xFFFFFFFFF8000000ull;
    vd erh = (vd)((vl)er & cut);
    vd rest = (er - erh) + w;
    vd ph = th * erh;
    vd s = th + ph;
    vd serr = (th - s) + ph;
    vd tlp = tl * ((1.0 + er) + w);
    /* times 2^ke by adding ke to the exponent field: exact, the result
     * being normal on the ok lanes (unsigned lanes: the others' ke may be
     * anything, and their results are replaced) */
    vd res = (vd)((N(vul))(s + (serr + (th * rest + tlp))) + kf);
    /* the rarer lanes, only when a lane has one (the tests, the division
     * and the square root cost every lane): a negative x (an integral y
     * gives the sign of |x|^y by its parity, else the default NaN) and
     * the correctly rounded special exponents (pow_rare: one cheap test
     * for them) */
    bool rare = N(pow_rare)(x, y);
#if EWF_PASS == 3
    if (__builtin_expect(!rare && okm == 0xFF, 1)) {
        *out = res;
        return true;
    }
    vl ok = (vl)_mm512_movm_epi64(okm);
#else
    if (__builtin_expect(!rare && !N(pow_any)(~ok), 1)) {
        *out = res;
        return true;
    }
#endif
    vl spec = {0};
    if (rare) {
        vl xneg = x < 0.0;
        vl xfin = ax <= 0x1.fffffffffffffp1023, yfin = ay <= 0x1.fffffffffffffp1023;   /* false for NaN */
        vd yt = N(d_round)((vd)N(sell)(yfin, (vl)y, (vl)((vd){0})), R_TRUNC);
        vl yint = yt == y;
        vl nanres = xneg & xfin & yfin & ~yint;
        ok &= ~xneg | yint;
        /* |yt| <= 2^31 on the ok lanes: the conversion is exact */
        vl yodd = yint & ((__builtin_convertvector((vd)N(sell)(ok, (vl)yt, (vl)((vd){0})), vl) & 1) != 0);
        res = (vd)((vl)res ^ (xneg & yodd & F64_SIGN));
        vl xnz = xfin & (x != 0.0);
        vl e1 = xnz & (y == 1.0), e2 = xnz & (y == 2.0), em1 = xnz & (y == -1.0), eh = xfin & (x > 0.0) & (y == 0.5);
        vd xe = (vd)N(sell)(xnz, (vl)x, (vl)((vd){0} + 1.0));
        res = (vd)N(sell)(e2, (vl)(xe * xe), (vl)res);
        res = (vd)N(sell)(em1, (vl)(1.0 / xe), (vl)res);
        res = (vd)N(sell)(eh, (vl)N(d_sqrt)((vd)N(sell)(eh, (vl)x, (vl)((vd){0} + 1.0))), (vl)res);
        res = (vd)N(sell)(e1, (vl)x, (vl)res);
        res = (vd)N(sell)(nanres, (vl){0} + F64_DNAN, (vl)res);
        spec = e1 | e2 | em1 | eh | nanres;
    }
    *bad = ~(ok | spec);
    *out = res;
    return !N(pow_any)(*bad);
}

/* power of 2 VD_LANES pairs at xs, ys into out: two independent chains
 * for f64_pow_loop's scheduling (see there); the scalar lanes from the
 * copies, as in d_powv */
TI void N(d_powv2)(const double *xs, const double *ys, double *out)
{
    vd x0, y0, x1, y1;
    memcpy(&x0, xs, sizeof x0);
    memcpy(&y0, ys, sizeof y0);
    memcpy(&x1, xs + VD_LANES, sizeof x1);
    memcpy(&y1, ys + VD_LANES, sizeof y1);
    vl bad0, bad1;
    vd r0, r1;
    bool done0 = N(d_pow)(x0, y0, xs, &r0, &bad0);
    bool done1 = N(d_pow)(x1, y1, xs + VD_LANES, &r1, &bad1);
    if (__builtin_expect(!done0, 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad0[l])
                r0[l] = f64_pow_lane(x0[l], y0[l]);
    if (__builtin_expect(!done1, 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad1[l])
                r1[l] = f64_pow_lane(x1[l], y1[l]);
    memcpy(out, &r0, sizeof r0);
    memcpy(out + VD_LANES, &r1, sizeof r1);
}

/* power of VD_LANES pairs at xs, ys into out: the bases are read from
 * memory twice, as a vector and as scalars for the log table's rows
 * (pow_row_off), so xs must be the caller's array, not a copy just stored
 * (store forwarding from a vector store to scalar loads cost back all the
 * gain: measured) */
TI void N(d_powv)(const double *xs, const double *ys, double *out)
{
    vd x, y;
    memcpy(&x, xs, sizeof x);
    memcpy(&y, ys, sizeof y);
    vl bad;
    vd r;
    bool done = N(d_pow)(x, y, xs, &r, &bad);
    /* the scalar lanes from the copies x, y: out may be xs or ys (in place) */
    if (__builtin_expect(!done, 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad[l])
                r[l] = f64_pow_lane(x[l], y[l]);
    memcpy(out, &r, sizeof r);
}

#endif
