/* Vector f64 power for runtime/k_ew_float.c, included from math_f64.h in
 * both of its parts: with MATH_F64_SHARED defined (the constants and the
 * log table) and once per ISA inside its per-ISA body (the vector code,
 * using math_f64.h's EXP64_* table and constants and its helpers d_pow2,
 * d_round, d_sqrt, f64_pow_lane). Kept apart from math_f64.h
 * so that power's method can change without touching the other f64
 * functions. Same rules as math_f64.h: plain IEEE double operations, no
 * fused multiply-add, the same bits at every ISA level.
 *
 * Method (the table-driven scheme of ARM's optimized-routines pow,
 * Szabolcs Nagy 2018, in its variant without fused multiply-add; the
 * table, constants and code here are plumb's own):
 *
 * 1. log|x| = hi + lo. |x| = 2^k z, z in [0x1.6bp-1, 0x1.6bp0) by bit
 *    pattern arithmetic (|k| <= 1024); z's top 7 mantissa bits above
 *    POW64_OFF pick one of 128 subintervals, with invc ~ 1/c for c near
 *    its centre and log c = logc + logctail (POW64_LOG_T, printed and
 *    checked by tools/gen_pow_log_table.c: MPFR at 400 bits). invc is a
 *    multiple of 2^-7 (z < 1) or 2^-8 (z >= 1), 8 significant bits, so
 *    r = z*invc - 1 (|r| <= 0x1.7fp-8) is a multiple of 2^-60 below 2^-7:
 *    a double. It is computed exactly without FMA from z = zhi + zlo, zhi
 *    = z to 21 bits: zhi*invc (29 bits) and zlo*invc (32 + 8 bits) are
 *    exact, zhi*invc - 1 is exact (Sterbenz) and so is their sum. logc
 *    and POW64_LN2_HI are multiples of 2^-43, so t1 = k ln2hi + logc is
 *    exact; the subinterval holding 1 has invc = 1 and logc = 0 (log x =
 *    log1p(x - 1) near 1 keeps its relative precision), elsewhere |logc|
 *    >= |r| (the generator checks both), so t2 = t1 + r and hi = t2 -
 *    rhi^2/2 are Fast2Sums with their errors kept (lo2, lo4); r^2/2 =
 *    rhi^2/2 (exact: rhi has at most 22 bits) + rlo (r + rhi)/2 (lo3).
 *    The rest, log1p(r) - r + r^2/2 = p, is Taylor's series to r^9
 *    (truncation below |r|^10/10 < 2^-77), by Estrin's scheme (the loop
 *    is bound by this path's latency). Absolute error of hi + lo below
 *    2^-74: the roundings of the low parts' sum, each below 2^-53 of
 *    |lo| ~ |p| <= |r|^3/3 < 2^-23.8, lead. Relative: below 2^-65 where
 *    |log x| >= 2^-9 (every subinterval but the one of 1), and in the one
 *    of 1 every term scales with r (below 2^-66).
 * 2. y log|x| = ehi + elo by Dekker's exact product without FMA: y and
 *    lh = hi + lo (rounded; ll its exact tail) cut to 26 bits (yhi, lhh),
 *    ehi = yhi*lhh exact, elo = ylo*lhh (27 by 26 bits: exact) + y*((lh -
 *    lhh) + ll): within 2^-77 relative.
 * 3. e^(ehi + elo) = 2^(N/64) e^er, N = round(ehi 64/ln2), er = (ehi -
 *    N L1) + (elo - N L2) with |er| < 2^-7.4 (EXP64_L1 has 36 bits: the
 *    first difference is exact; one rounding of 2^-60.4 on the sum), e^er
 *    - 1 = pe by Taylor's series to er^6 (truncation < 2^-65), 2^(j/64) =
 *    EXP64_T's value + tail (2^-106): th + (th*pe + tl) is within 2^-58.8
 *    of e^(ehi + elo) relative.
 * Budget: |y log x| <= 709 on the lanes taken (a normal result), so step
 * 1's relative 2^-65 is at most 2^-55.5 absolute in y log x, and before
 * its one rounding the result is within 2^-55.5 + 2^-58.8 < 2^-55.3
 * relative of x^y: at most 0.5 + 0.21 ULP from the exact value, within 1
 * ULP of the correctly rounded one (the op table's bound for f64 power).
 * test_math_f64_pow checks 0.71 against MPFR at 256 bits on random and
 * hard pairs (x at the subintervals' ends and near 1, |y ln x| in [600,
 * 709]); measured worst: 0.539 ULP (10^6 pairs), at x = 0.998, y = 2^18.
 * The table lookups are one load per lane and a transpose in registers
 * (pow_log_rows, pow_exp_pairs): hardware gathers cost 40% of the time. */
#ifdef MATH_F64_SHARED

/* the subintervals of z start at this bit pattern (0x1.6bp-1); the one of
 * pattern 0x3FF0000000000000 (1.0) is [1 - 2^-9, 1 + 2^-8) */
#define POW64_OFF 0x3FE6B00000000000ll
/* ln 2 = HI + LO, HI a multiple of 2^-43 (tools/gen_pow_log_table.c) */
#define POW64_LN2_HI 0x1.62e42fefa38p-1
#define POW64_LN2_LO 0x1.ef35793c7673p-45
/* log1p(r) - r + r^2/2 = (-r^3/2) (C3 + C4 r + ... + C9 r^6): Taylor's
 * coefficients (-1)^n 2/n rounded to double */
#define POW64_C3 (-2.0 / 3)
#define POW64_C4 0.5
#define POW64_C5 (-2.0 / 5)
#define POW64_C6 (1.0 / 3)
#define POW64_C7 (-2.0 / 7)
#define POW64_C8 0.25
#define POW64_C9 (-2.0 / 9)

/* For each of the 128 subintervals of z: invc, logc, logctail and a pad
 * (one 32-byte row: a lane's three values come in one load).
 * tools/gen_pow_log_table.c prints this table and checks its properties
 * (see the method above). */
static const double POW64_LOG_T[512] = {
    0x1.68p+0, -0x1.5d1bdbf5808p-2, -0x1.ca508d8e0f72p-46, 0, /* z in [0.708984, 0.712891) */
    0x1.66p+0, -0x1.57677174558p-2, -0x1.362a4d5b6506dp-45, 0, /* z in [0.712891, 0.716797) */
    0x1.64p+0, -0x1.51aad872df8p-2, -0x1.684e49eb067d5p-49, 0, /* z in [0.716797, 0.720703) */
    0x1.62p+0, -0x1.4be5f957778p-2, -0x1.41b6993293eep-47, 0, /* z in [0.720703, 0.724609) */
    0x1.6p+0, -0x1.4618bc21c6p-2, 0x1.3d82f484c84ccp-46, 0, /* z in [0.724609, 0.728516) */
    0x1.5ep+0, -0x1.404308686a8p-2, 0x1.c42f3ed820b3ap-50, 0, /* z in [0.728516, 0.732422) */
    0x1.5cp+0, -0x1.3a64c556948p-2, 0x1.0b1c68651946p-45, 0, /* z in [0.732422, 0.736328) */
    0x1.5ap+0, -0x1.347dd9a988p-2, 0x1.5594dd4c58092p-45, 0, /* z in [0.736328, 0.740234) */
    0x1.58p+0, -0x1.2e8e2bae12p-2, 0x1.67b1e99b72bd8p-45, 0, /* z in [0.740234, 0.744141) */
    0x1.58p+0, -0x1.2e8e2bae12p-2, 0x1.67b1e99b72bd8p-45, 0, /* z in [0.744141, 0.748047) */
    0x1.56p+0, -0x1.2895a13de88p-2, 0x1.5ca14b6cfb03fp-46, 0, /* z in [0.748047, 0.751953) */
    0x1.54p+0, -0x1.22941fbcf78p-2, -0x1.65a242853da76p-46, 0, /* z in [0.751953, 0.755859) */
    0x1.52p+0, -0x1.1c898c16998p-2, -0x1.fafbc68e75404p-46, 0, /* z in [0.755859, 0.759766) */
    0x1.5p+0, -0x1.1675cababa8p-2, 0x1.f1fc63382a8fp-46, 0, /* z in [0.759766, 0.763672) */
    0x1.4ep+0, -0x1.1058bf9ae48p-2, -0x1.6a8c4fd055a66p-45, 0, /* z in [0.763672, 0.767578) */
    0x1.4cp+0, -0x1.0a324e2739p-2, -0x1.c6bee7ef4030ep-47, 0, /* z in [0.767578, 0.771484) */
    0x1.4ap+0, -0x1.0402594b4dp-2, -0x1.036b89ef42d7fp-48, 0, /* z in [0.771484, 0.775391) */
    0x1.4ap+0, -0x1.0402594b4dp-2, -0x1.036b89ef42d7fp-48, 0, /* z in [0.775391, 0.779297) */
    0x1.48p+0, -0x1.fb9186d5e4p-3, 0x1.d572aab993c87p-47, 0, /* z in [0.779297, 0.783203) */
    0x1.46p+0, -0x1.ef0adcbdc6p-3, 0x1.b26b79c86af24p-45, 0, /* z in [0.783203, 0.787109) */
    0x1.44p+0, -0x1.e27076e2afp-3, -0x1.72f4f543fff1p-46, 0, /* z in [0.787109, 0.791016) */
    0x1.42p+0, -0x1.d5c216b4fcp-3, 0x1.1ba91bbca681bp-45, 0, /* z in [0.791016, 0.794922) */
    0x1.42p+0, -0x1.d5c216b4fcp-3, 0x1.1ba91bbca681bp-45, 0, /* z in [0.794922, 0.798828) */
    0x1.4p+0, -0x1.c8ff7c79aap-3, 0x1.7794f689f8434p-45, 0, /* z in [0.798828, 0.802734) */
    0x1.3ep+0, -0x1.bc286742d9p-3, 0x1.94eb0318bb78fp-46, 0, /* z in [0.802734, 0.806641) */
    0x1.3cp+0, -0x1.af3c94e80cp-3, 0x1.a4e633fcd9066p-52, 0, /* z in [0.806641, 0.810547) */
    0x1.3cp+0, -0x1.af3c94e80cp-3, 0x1.a4e633fcd9066p-52, 0, /* z in [0.810547, 0.814453) */
    0x1.3ap+0, -0x1.a23bc1fe2bp-3, -0x1.58c64dc46c1eap-45, 0, /* z in [0.814453, 0.818359) */
    0x1.38p+0, -0x1.9525a9cf45p-3, -0x1.ad1d904c1d4e3p-45, 0, /* z in [0.818359, 0.822266) */
    0x1.36p+0, -0x1.87fa06520dp-3, 0x1.bbdbf7fdbfa09p-45, 0, /* z in [0.822266, 0.826172) */
    0x1.36p+0, -0x1.87fa06520dp-3, 0x1.bbdbf7fdbfa09p-45, 0, /* z in [0.826172, 0.830078) */
    0x1.34p+0, -0x1.7ab890210ep-3, 0x1.bdb9072534a58p-45, 0, /* z in [0.830078, 0.833984) */
    0x1.32p+0, -0x1.6d60fe719dp-3, -0x1.0e46aa3b2e266p-46, 0, /* z in [0.833984, 0.837891) */
    0x1.3p+0, -0x1.5ff3070a79p-3, -0x1.e9e439f105039p-46, 0, /* z in [0.837891, 0.841797) */
    0x1.3p+0, -0x1.5ff3070a79p-3, -0x1.e9e439f105039p-46, 0, /* z in [0.841797, 0.845703) */
    0x1.2ep+0, -0x1.526e5e3a1bp-3, -0x1.0de8b90075b8fp-45, 0, /* z in [0.845703, 0.849609) */
    0x1.2cp+0, -0x1.44d2b6ccb8p-3, 0x1.70cc16135783cp-46, 0, /* z in [0.849609, 0.853516) */
    0x1.2cp+0, -0x1.44d2b6ccb8p-3, 0x1.70cc16135783cp-46, 0, /* z in [0.853516, 0.857422) */
    0x1.2ap+0, -0x1.371fc201e9p-3, 0x1.178864d27543ap-48, 0, /* z in [0.857422, 0.861328) */
    0x1.28p+0, -0x1.29552f81ffp-3, -0x1.48d301771c408p-45, 0, /* z in [0.861328, 0.865234) */
    0x1.28p+0, -0x1.29552f81ffp-3, -0x1.48d301771c408p-45, 0, /* z in [0.865234, 0.869141) */
    0x1.26p+0, -0x1.1b72ad52f6p-3, -0x1.e80a41811a396p-45, 0, /* z in [0.869141, 0.873047) */
    0x1.24p+0, -0x1.0d77e7cd09p-3, 0x1.a699688e85bf4p-47, 0, /* z in [0.873047, 0.876953) */
    0x1.24p+0, -0x1.0d77e7cd09p-3, 0x1.a699688e85bf4p-47, 0, /* z in [0.876953, 0.880859) */
    0x1.22p+0, -0x1.fec9131dbep-4, -0x1.575545ca333f2p-45, 0, /* z in [0.880859, 0.884766) */
    0x1.2p+0, -0x1.e27076e2bp-4, 0x1.a342c2af0003cp-45, 0, /* z in [0.884766, 0.888672) */
    0x1.2p+0, -0x1.e27076e2bp-4, 0x1.a342c2af0003cp-45, 0, /* z in [0.888672, 0.892578) */
    0x1.1ep+0, -0x1.c5e548f5bcp-4, -0x1.d0c57585fbe06p-46, 0, /* z in [0.892578, 0.896484) */
    0x1.1cp+0, -0x1.a926d3a4aep-4, 0x1.53935e85baac8p-45, 0, /* z in [0.896484, 0.900391) */
    0x1.1cp+0, -0x1.a926d3a4aep-4, 0x1.53935e85baac8p-45, 0, /* z in [0.900391, 0.904297) */
    0x1.1ap+0, -0x1.8c345d631ap-4, 0x1.37c294d2f5668p-46, 0, /* z in [0.904297, 0.908203) */
    0x1.1ap+0, -0x1.8c345d631ap-4, 0x1.37c294d2f5668p-46, 0, /* z in [0.908203, 0.912109) */
    0x1.18p+0, -0x1.6f0d28ae56p-4, -0x1.69737c93373dap-45, 0, /* z in [0.912109, 0.916016) */
    0x1.16p+0, -0x1.51b073f062p-4, 0x1.f025b61c65e57p-46, 0, /* z in [0.916016, 0.919922) */
    0x1.16p+0, -0x1.51b073f062p-4, 0x1.f025b61c65e57p-46, 0, /* z in [0.919922, 0.923828) */
    0x1.14p+0, -0x1.341d7961bep-4, 0x1.c5edaccf913dfp-45, 0, /* z in [0.923828, 0.927734) */
    0x1.14p+0, -0x1.341d7961bep-4, 0x1.c5edaccf913dfp-45, 0, /* z in [0.927734, 0.931641) */
    0x1.12p+0, -0x1.16536eea38p-4, 0x1.47c5e768fa309p-46, 0, /* z in [0.931641, 0.935547) */
    0x1.12p+0, -0x1.16536eea38p-4, 0x1.47c5e768fa309p-46, 0, /* z in [0.935547, 0.939453) */
    0x1.1p+0, -0x1.f0a30c0118p-5, 0x1.d599e83368e91p-45, 0, /* z in [0.939453, 0.943359) */
    0x1.0ep+0, -0x1.b42dd71198p-5, 0x1.c827ae5d6704cp-46, 0, /* z in [0.943359, 0.947266) */
    0x1.0ep+0, -0x1.b42dd71198p-5, 0x1.c827ae5d6704cp-46, 0, /* z in [0.947266, 0.951172) */
    0x1.0cp+0, -0x1.77458f632cp-5, -0x1.cfc4634f2a1eep-45, 0, /* z in [0.951172, 0.955078) */
    0x1.0cp+0, -0x1.77458f632cp-5, -0x1.cfc4634f2a1eep-45, 0, /* z in [0.955078, 0.958984) */
    0x1.0ap+0, -0x1.39e87b9fecp-5, 0x1.502b7f526feaap-48, 0, /* z in [0.958984, 0.962891) */
    0x1.0ap+0, -0x1.39e87b9fecp-5, 0x1.502b7f526feaap-48, 0, /* z in [0.962891, 0.966797) */
    0x1.08p+0, -0x1.f829b0e78p-6, -0x1.980267c7e09e4p-45, 0, /* z in [0.966797, 0.970703) */
    0x1.08p+0, -0x1.f829b0e78p-6, -0x1.980267c7e09e4p-45, 0, /* z in [0.970703, 0.974609) */
    0x1.06p+0, -0x1.7b91b07d58p-6, -0x1.88d5493faa639p-45, 0, /* z in [0.974609, 0.978516) */
    0x1.06p+0, -0x1.7b91b07d58p-6, -0x1.88d5493faa639p-45, 0, /* z in [0.978516, 0.982422) */
    0x1.04p+0, -0x1.fc0a8b0fcp-7, -0x1.f1e7cf6d3a69cp-50, 0, /* z in [0.982422, 0.986328) */
    0x1.04p+0, -0x1.fc0a8b0fcp-7, -0x1.f1e7cf6d3a69cp-50, 0, /* z in [0.986328, 0.990234) */
    0x1.02p+0, -0x1.fe02a6b1p-8, -0x1.9e23f0dda40e4p-46, 0, /* z in [0.990234, 0.994141) */
    0x1.02p+0, -0x1.fe02a6b1p-8, -0x1.9e23f0dda40e4p-46, 0, /* z in [0.994141, 0.998047) */
    0x1p+0, 0x0p+0, 0x0p+0, 0, /* z in [0.998047, 1.003906) */
    0x1.fcp-1, 0x1.010157589p-7, -0x1.0c76b999d2be8p-46, 0, /* z in [1.003906, 1.011719) */
    0x1.f8p-1, 0x1.0205658938p-6, -0x1.3dc5b06e2f7d2p-45, 0, /* z in [1.011719, 1.019531) */
    0x1.f4p-1, 0x1.8492528c9p-6, -0x1.aa0ba325a0c34p-45, 0, /* z in [1.019531, 1.027344) */
    0x1.fp-1, 0x1.0415d89e74p-5, 0x1.111c05cf1d753p-47, 0, /* z in [1.027344, 1.035156) */
    0x1.ecp-1, 0x1.466aed42ep-5, -0x1.c167375bdfd28p-45, 0, /* z in [1.035156, 1.042969) */
    0x1.eap-1, 0x1.67c94f2d4cp-5, -0x1.29efbec19afa2p-47, 0, /* z in [1.042969, 1.050781) */
    0x1.e6p-1, 0x1.aaef2d0fbp-5, 0x1.0fc1a353bb42ep-45, 0, /* z in [1.050781, 1.058594) */
    0x1.e2p-1, 0x1.eea31c006cp-5, -0x1.e113e4fc93b7bp-47, 0, /* z in [1.058594, 1.066406) */
    0x1.dep-1, 0x1.1973bd1466p-4, -0x1.5325d560d9e9bp-45, 0, /* z in [1.066406, 1.074219) */
    0x1.dap-1, 0x1.3bdf5a7d1ep-4, 0x1.cc85ea5db4ed7p-45, 0, /* z in [1.074219, 1.082031) */
    0x1.d8p-1, 0x1.4d3115d208p-4, -0x1.53a2582f4e1efp-48, 0, /* z in [1.082031, 1.089844) */
    0x1.d4p-1, 0x1.700d30aeacp-4, 0x1.c1e8da99ded32p-49, 0, /* z in [1.089844, 1.097656) */
    0x1.dp-1, 0x1.9335e5d594p-4, 0x1.3115c3abd47dap-45, 0, /* z in [1.097656, 1.105469) */
    0x1.cep-1, 0x1.a4e7640b1cp-4, -0x1.e42b6b94407c8p-47, 0, /* z in [1.105469, 1.113281) */
    0x1.cap-1, 0x1.c885801bc4p-4, 0x1.646d1c65aacd3p-45, 0, /* z in [1.113281, 1.121094) */
    0x1.c8p-1, 0x1.da72763844p-4, 0x1.a89401fa71733p-46, 0, /* z in [1.121094, 1.128906) */
    0x1.c4p-1, 0x1.fe89139dbep-4, -0x1.534d64fa10afdp-45, 0, /* z in [1.128906, 1.136719) */
    0x1.cp-1, 0x1.1178e8227ep-3, 0x1.1ef78ce2d07f2p-45, 0, /* z in [1.136719, 1.144531) */
    0x1.bep-1, 0x1.1aa2b7e23fp-3, 0x1.ca78e44389934p-45, 0, /* z in [1.144531, 1.152344) */
    0x1.bap-1, 0x1.2d1610c868p-3, 0x1.39d6ccb81b4a1p-47, 0, /* z in [1.152344, 1.160156) */
    0x1.b8p-1, 0x1.365fcb0159p-3, 0x1.62fa8234b7289p-51, 0, /* z in [1.160156, 1.167969) */
    0x1.b4p-1, 0x1.4913d8333bp-3, 0x1.5837954fdb678p-45, 0, /* z in [1.167969, 1.175781) */
    0x1.b2p-1, 0x1.527e5e4a1bp-3, 0x1.633e8e5697dc7p-45, 0, /* z in [1.175781, 1.183594) */
    0x1.bp-1, 0x1.5bf406b544p-3, -0x1.27023eb68981cp-46, 0, /* z in [1.183594, 1.191406) */
    0x1.acp-1, 0x1.6f0128b757p-3, -0x1.5118de59c21e1p-45, 0, /* z in [1.191406, 1.199219) */
    0x1.aap-1, 0x1.7898d85445p-3, -0x1.c661070914305p-46, 0, /* z in [1.199219, 1.207031) */
    0x1.a6p-1, 0x1.8beafeb39p-3, -0x1.73d54aae92cd1p-47, 0, /* z in [1.207031, 1.214844) */
    0x1.a4p-1, 0x1.95a5adcf7p-3, 0x1.7f22858a0ff6fp-47, 0, /* z in [1.214844, 1.222656) */
    0x1.a2p-1, 0x1.9f6c407089p-3, 0x1.9904d6865817ap-45, 0, /* z in [1.222656, 1.230469) */
    0x1.9ep-1, 0x1.b31d8575bdp-3, -0x1.c358d4eace1aap-47, 0, /* z in [1.230469, 1.238281) */
    0x1.9cp-1, 0x1.bd087383bep-3, -0x1.d4bc4595412b6p-45, 0, /* z in [1.238281, 1.246094) */
    0x1.9ap-1, 0x1.c6ffbc6f01p-3, -0x1.1ec72c5962bd2p-48, 0, /* z in [1.246094, 1.253906) */
    0x1.98p-1, 0x1.d1037f2656p-3, -0x1.84a7e75b6f6e4p-47, 0, /* z in [1.253906, 1.261719) */
    0x1.94p-1, 0x1.e530effe71p-3, 0x1.212276041f43p-51, 0, /* z in [1.261719, 1.269531) */
    0x1.92p-1, 0x1.ef5ade4ddp-3, -0x1.a211565bb8e11p-51, 0, /* z in [1.269531, 1.277344) */
    0x1.9p-1, 0x1.f991c6cb3bp-3, 0x1.bcbecca0cdf3p-46, 0, /* z in [1.277344, 1.285156) */
    0x1.8ep-1, 0x1.01eae5626c8p-2, -0x1.6f08c1485e94ap-46, 0, /* z in [1.285156, 1.292969) */
    0x1.8ap-1, 0x1.0c42d67616p-2, 0x1.7188b163ceae9p-45, 0, /* z in [1.292969, 1.300781) */
    0x1.88p-1, 0x1.1178e8227e8p-2, -0x1.c210e63a5f01cp-45, 0, /* z in [1.300781, 1.308594) */
    0x1.86p-1, 0x1.16b5ccbacf8p-2, 0x1.b9acdf7a51681p-45, 0, /* z in [1.308594, 1.316406) */
    0x1.84p-1, 0x1.1bf99635a68p-2, 0x1.ca6ed5147bdb7p-45, 0, /* z in [1.316406, 1.324219) */
    0x1.82p-1, 0x1.214456d0eb8p-2, 0x1.a87deba46baeap-47, 0, /* z in [1.324219, 1.332031) */
    0x1.8p-1, 0x1.269621134d8p-2, 0x1.c93c1df5bb3b6p-45, 0, /* z in [1.332031, 1.339844) */
    0x1.7ep-1, 0x1.2bef07cdc9p-2, 0x1.a9cfa4a5004f4p-45, 0, /* z in [1.339844, 1.347656) */
    0x1.7ap-1, 0x1.36b6776be1p-2, 0x1.16ecdb0f177c8p-46, 0, /* z in [1.347656, 1.355469) */
    0x1.78p-1, 0x1.3c25277333p-2, 0x1.83b54b606bd5cp-46, 0, /* z in [1.355469, 1.363281) */
    0x1.76p-1, 0x1.419b423d5e8p-2, 0x1.8e436ec90e09dp-47, 0, /* z in [1.363281, 1.371094) */
    0x1.74p-1, 0x1.4718dc271c8p-2, -0x1.f27ce0967d675p-45, 0, /* z in [1.371094, 1.378906) */
    0x1.72p-1, 0x1.4c9e09e173p-2, -0x1.e20891b0ad8a4p-45, 0, /* z in [1.378906, 1.386719) */
    0x1.7p-1, 0x1.522ae0738ap-2, 0x1.ebe708164c759p-45, 0, /* z in [1.386719, 1.394531) */
    0x1.6ep-1, 0x1.57bf753c8dp-2, 0x1.fadedee5d40efp-46, 0, /* z in [1.394531, 1.402344) */
    0x1.6cp-1, 0x1.5d5bddf596p-2, -0x1.a0b2a08a465dcp-47, 0, /* z in [1.402344, 1.410156) */
    0x1.6ap-1, 0x1.630030b3abp-2, -0x1.db623e731aep-45, 0, /* z in [1.410156, 1.417969) */
};
/* largest |z*invc - 1|: 0x1.7efffffffffp-8 */

#else /* per ISA */

/* unsigned 64-bit lanes, for wrapping integer arithmetic */
typedef uint64_t N(vul) __attribute__((vector_size(VBYTES)));

/* The table lookups: lane l's row of POW64_LOG_T (invc, logc, logctail)
 * and its pair of EXP64_T (2^(j/64) value and tail), each one load per
 * lane and a transpose in registers. Hardware gathers cost 40% of power
 * (five per vector: measured) and lane-by-lane inserts through memory
 * stall store forwarding; the loads are exact, so every level gets the
 * same values. */
#if EWF_PASS == 3
TI void N(pow_log_rows)(vl i, vd *a, vd *b, vd *c)
{
    vl o = i << 5;   /* byte offsets of the rows: no scalar shift per lane */
    const char *t = (const char *)POW64_LOG_T;
#define POW_ROWS(l) \
    _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd((const double *)(t + o[l]))), \
                       _mm256_loadu_pd((const double *)(t + o[l + 4])), 1)
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
#elif EWF_PASS == 2
TI void N(pow_log_rows)(vl i, vd *a, vd *b, vd *c)
{
    __m256d r0 = _mm256_loadu_pd(POW64_LOG_T + 4 * i[0]), r1 = _mm256_loadu_pd(POW64_LOG_T + 4 * i[1]);
    __m256d r2 = _mm256_loadu_pd(POW64_LOG_T + 4 * i[2]), r3 = _mm256_loadu_pd(POW64_LOG_T + 4 * i[3]);
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
#else
TI void N(pow_log_rows)(vl i, vd *a, vd *b, vd *c)
{
    const double *r0 = POW64_LOG_T + 4 * i[0], *r1 = POW64_LOG_T + 4 * i[1];
    *a = (vd){r0[0], r1[0]};
    *b = (vd){r0[1], r1[1]};
    *c = (vd){r0[2], r1[2]};
}
TI void N(pow_exp_pairs)(vl j, vd *th, vd *tl)
{
    *th = (vd){EXP64_T[2 * j[0]], EXP64_T[2 * j[1]]};
    *tl = (vd){EXP64_T[2 * j[0] + 1], EXP64_T[2 * j[1] + 1]};
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

/* pow(x, y) on the lanes with x normal and finite, y finite, nonzero and
 * |y| <= 2^31, x != 1, x > 0 or y an integer (the sign of |x|^y then
 * from y's parity), and y ln|x| in (EXP64_LO, EXP64_HI): a normal result,
 * no overflow (the method above). y = 1, 2, -1 (any finite nonzero x) and
 * 1/2 (x > 0) are x, x*x, 1/x and sqrt x, correctly rounded; x < 0 finite
 * with a non-integral finite y is the default NaN. *bad marks the rest
 * (zeros, infinities, NaN, subnormal x, x = 1, y = 0, huge |y|, overflow
 * and underflow), for the scalar rule. */
TI vd N(d_pow)(vd x, vd y, vl *bad)
{
    vd ax = (vd)((vl)x & F64_ABS), ay = (vd)((vl)y & F64_ABS);
    vl xneg = x < 0.0;
    /* the lanes of a normal x and a finite y that the main path takes
     * (false for NaN); a negative x also needs an integral y (below) */
    vl ok = (ax >= 0x1p-1022) & (ax <= 0x1.fffffffffffffp1023) & (ay <= 0x1p31) & (y != 0.0) & (x != 1.0);
    /* the main path runs on every lane, |x| and y as they are: the other
     * lanes' values (from zeros, infinities, NaN) are replaced; waiting
     * for ok here would put the tests of y on the path's latency */
    vd xs = ax, ys = y;
    /* |x| = 2^k z, z in [0x1.6bp-1, 0x1.6bp0), subinterval i */
    vl ix = (vl)xs;
    vl tmp = ix - (int64_t)POW64_OFF;
    vl i = (tmp >> 45) & 127;
    vl iz = ix - (tmp & (int64_t)0xFFF0000000000000ull);
    vd kd = __builtin_convertvector(tmp >> 52, vd);
    vd z = (vd)iz;
    vd invc, logc, logctail;
    N(pow_log_rows)(i, &invc, &logc, &logctail);
    /* r = z*invc - 1 exactly: zhi = z rounded to 21 bits */
    vd zhi = (vd)((iz + (int64_t)0x80000000) & (int64_t)0xFFFFFFFF00000000ull);
    vd zlo = z - zhi;
    vd rhi = zhi * invc - 1.0;
    vd rlo = zlo * invc;
    vd r = rhi + rlo;
    /* log|x| = k ln2 + log c + log1p(r) = hi + lo */
    vd t1 = kd * POW64_LN2_HI + logc;
    vd t2 = t1 + r;
    vd lo1 = kd * POW64_LN2_LO + logctail;
    vd lo2 = (t1 - t2) + r;
    vd ar = -0.5 * r, ar2 = r * ar, ar3 = r * ar2;
    vd arhi = -0.5 * rhi, arhi2 = rhi * arhi;
    vd hi = t2 + arhi2;
    vd lo3 = rlo * (ar + arhi);
    vd lo4 = (t2 - hi) + arhi2;
    /* Estrin's scheme: the loop is bound by this path's latency */
    vd r2 = r * r, r4 = r2 * r2;
    vd p = ar3 * (((POW64_C3 + r * POW64_C4) + r2 * (POW64_C5 + r * POW64_C6)) +
                  r4 * ((POW64_C7 + r * POW64_C8) + r2 * POW64_C9));
    vd lo = (((lo1 + lo3) + lo4) + lo2) + p;
    vd lh = hi + lo;
    vd ll = (hi - lh) + lo;
    /* y log|x| = ehi + elo: Dekker's product of y and lh (26-bit halves) */
    const vl cut = (vl){0} + (int64_t)0xFFFFFFFFF8000000ull;
    vd yhi = (vd)((vl)ys & cut), ylo = ys - yhi;
    vd lhh = (vd)((vl)lh & cut), llo = (lh - lhh) + ll;
    vd ehi = yhi * lhh;
    vd elo = ylo * lhh + ys * llo;
    ok &= (ehi > EXP64_LO) & (ehi < EXP64_HI);
    /* e^(ehi + elo) = 2^ke 2^(j/64) e^er (see d_exp_parts: the same
     * reduction, with elo carried into er) */
    vd tt = ehi * EXP64_INV + 0x1.8p52;
    vd nd = tt - 0x1.8p52;
    /* in unsigned lanes: on the lanes ok leaves out, ehi may be huge or
     * NaN and the difference out of int64_t's range (signed overflow is
     * undefined; gcc's UBSan reports it); their ke is discarded below */
    vl nl = (vl)((N(vul))tt - (N(vul))((vd){0} + 0x1.8p52));
    vl j = nl & 63, ke = nl >> 6;
    vd er = (ehi - nd * EXP64_L1) + (elo - nd * EXP64_L2);
    vd er2 = er * er;
    vd q = (0.5 + er * (1.0 / 6)) + er2 * ((1.0 / 24 + er * (1.0 / 120)) + er2 * (1.0 / 720));
    vd pe = er + er2 * q;
    vd th, tl;
    N(pow_exp_pairs)(j, &th, &tl);
    ke = (vl)N(sell)(ok, ke, (vl){0});   /* keep d_pow2's exponent in range on the other lanes */
    vd res = (th + (th * pe + tl)) * N(d_pow2)(ke);   /* exact: normal result */
    /* the rarer lanes, only when a lane has one (the tests, the division
     * and the square root cost every lane): a negative x (an integral y
     * gives the sign of |x|^y by its parity, else the default NaN) and
     * the correctly rounded special exponents */
    vl spec = {0};
    vl rare = xneg | (ay == 1.0) | (y == 2.0) | (y == 0.5);
    if (__builtin_expect(N(pow_any)(rare), 0)) {
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
    return res;
}

TI vd N(d_powv)(vd x, vd y)
{
    vl bad;
    vd r = N(d_pow)(x, y, &bad);
    if (__builtin_expect(N(pow_any)(bad), 0))
        for (int l = 0; l < VD_LANES; l++)
            if (bad[l])
                r[l] = f64_pow_lane(x[l], y[l]);
    return r;
}

#endif
