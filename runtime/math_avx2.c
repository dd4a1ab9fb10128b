/* The f32 vector math for AVX2 + FMA (runtime/math_impl.h, compiled for
 * this target), and 8-lane f32 exp, logistic and tanh. Only reached after
 * run-time CPU detection (rt_isa). */
#if defined(__x86_64__) || defined(__i386__)   /* the whole file: x86 only (math_portable.c dispatches here only there) */
#include "rt_target.h"
RT_TARGET_PUSH("avx2,fma")   /* the whole file, up to the RT_TARGET_POP at its end */
#pragma GCC diagnostic ignored "-Wpsabi"   /* see math_impl.h */
#include "rt_internal.h"
#include "math_erf.h"

#define VM_SUFFIX _avx2
#define VM_LANES 4   /* 4 doubles: one register (8 would live in memory) */
#include "math_impl.h"

#include <immintrin.h>

/* a*b + c rounded once (math_fast_impl.h) */
VMI vd vfma(vd a, vd b, vd c) { return (vd)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c); }
/* any lane of the mask m (all ones or zero per lane) set */
VMI int vany(vl m) { return _mm256_movemask_pd((__m256d)m) != 0; }
#include "math_fast_impl.h"

/* ---- 8-lane f32 exp, logistic and tanh ---------------------------------------
 *
 * The double path above works on 4 doubles per register (about 2 ns per
 * element for exp on 1024 floats); these are f32 on 8 lanes, each step one
 * IEEE f32 operation (fma where written), structured as math_avx512.c's
 * 16-lane functions but with a table this ISA looks up in one instruction:
 * 8 entries, one vpermps. docs/runtime-math.md ("The AVX2 f32 path") has
 * the same analysis and the exhaustive sweeps. u = 2^-24; a value with
 * relative error e before the last rounding is within e 2^24 ULP of the
 * exact result, and the last rounding adds 0.5.
 *
 * e^x = 2^k T_j e^r: N = round(x 8/ln2) (x clamped to [-87, 88], |N| <=
 * 1016), k = N >> 3, j = N & 7 (vpermps reads the index's low 3 bits),
 * r = x - N ln2/8, ln2/8 = C1 + C2 in f32. C1 has 21 significant bits, a
 * multiple of 2^-24, so N C1 is too; for N != 0, |x| >= 0.043 is a
 * multiple of 2^-28, and fma(-N, C1, x) is below 2^-4, i.e. fewer than
 * 2^24 multiples of 2^-28: exact. |r| <= ln2/16 + 5e-6 < 0.043323 < 2^-4.5
 * (the f32 constant K = 8/ln2 moves N's rounding point), C1 + C2 misses ln2/8
 * by N 2^-56 < 2^-46. The C2 fma rounds r by <= 2^-29 (half an ulp below
 * 2^-4). T_j = 2^(j/8) = T_hi (1 + t), T_hi and t floats (t = T_j/T_hi - 1,
 * |t| < 2^-24.9, stored within 2^-48); t is folded into the argument:
 * r' = RN(r + t), one more rounding <= 2^-29 (|r'| < 2^-4), since
 * e^(r + t) = e^r (1 + t) within t^2 < 2^-49. w = e^r' - 1 = r' + r'^2
 * (1/2 + r'/6 + r'^2/24 + r'^3/120): the omitted r'^6/720 < 2^-36.5; the
 * roundings of r'^2 and of the Horner steps are < 2^-23 relative on
 * r'^2 q <= 2^-10, i.e. < 2^-33; w rounds by <= 2^-29 (|w| <= 0.0443).
 * An absolute error d on r or r' moves e^r' by <= 1.045 d, so 1 + w is
 * within (1.045 + 1.045 + 1) 2^-29 + 2^-32.9 < 3.2 2^-29 absolute of
 * T_j e^r / T_hi, i.e. relative (1 + w >= 0.9576) < 3.35 2^-29 = 2^-27.26,
 * 0.105 ULP. exp: p = fma(T_hi, w, T_hi), the one rounding: <= 0.61 ULP;
 * p in [0.957, 1.92), times 2^k by an exponent add (exact for normal
 * results).
 *
 * logistic(x) = 1/(1 + e^-x) = 1/d: a = 2^k T_hi is exact (k >= -126 for
 * v = -x >= -87), s = RN(1 + a) and its error by Fast2Sum of max(1, a) and
 * min(1, a), and d_lo = fma(a, w, err) (the product exact inside the fma):
 * |a w + err| <= 0.0443 a + 2^-24 s < 2^-4.39 d, so d_lo rounds by
 * <= 2^-28.39 d. d = s + d_lo is renormalized by a second Fast2Sum
 * (s >= |d_lo|): sd + sd_lo exactly, |sd_lo| <= 2^-24 sd. The reciprocal
 * (no 14-bit estimate on AVX2; the 12-bit one needs two Newton steps and
 * measured slower): y0 = RN(1/sd), 1 - sd y0 is exact in one fma (the
 * remainder of a correctly rounded reciprocal is a float), minus sd_lo y0
 * by a second fma: e = 1 - d y0 with |e| <= 2^-23 + 2^-48 and a rounding
 * <= 2^-47; y = fma(y0, e, y0) leaves e^2 + 2^-47 < 2^-45.4 relative.
 * Total before the last rounding 2^-27.26 + 2^-28.39 + 2^-45.4 < 2^-26.68,
 * 0.16 ULP: <= 0.66 ULP.
 *
 * tanh |x| = a: for a >= 0.5625, 1 - 2/(1 + e^2a) with that reciprocal
 * (2y <= 0.49 within 2^-26.68 relative, 2^-27.7 absolute, 0.08 ULP of
 * [0.5, 1)) and one rounding fma(-2, y, 1): <= 0.58 ULP; there v = 2a >= 0
 * gives k >= 0, a >= 1, and the Fast2Sum needs no max/min. For a < 0.5625:
 * a + a^3 P(a^2), math_avx512.c's polynomial with its f32 coefficients
 * and operations (2^-33.8 relative fit), so its analysis holds: <= 0.87 ULP.
 *
 * Lanes whose input is special for the function (NaN; x < -87 or > 88 for
 * exp, x < -86 for logistic, |x| < 2^-125 for tanh) or, for exp, whose f32
 * result is below 2^-125 or above 2^127, take their half-block of 4 from the
 * exact path of math_impl.h, blended lane by lane: one movemask test per 8
 * lanes when nothing is special. logistic's and tanh's screens leave only
 * normal results below 1 (logistic(-86) ~ 2^-124.07). */

#define X8_K 0x1.715476p+3f      /* 8/ln2 rounded to f32 */
#define X8_C1 0x1.62e43p-4f      /* ln2/8 rounded to f32 (21 bits) */
#define X8_C2 -0x1.05c61p-32f    /* ln2/8 - X8_C1, rounded */
#define X8_SHIFT 0x1.8p23f       /* adding it rounds |v| < 2^22 to an integer */

/* 2^(j/8) rounded to f32 */
static const float x8_thi[8] __attribute__((aligned(32))) = {
    0x1p+0, 0x1.172b84p+0, 0x1.306fep+0, 0x1.4bfdaep+0,
    0x1.6a09e6p+0, 0x1.8ace54p+0, 0x1.ae89fap+0, 0x1.d5818ep+0,
};
/* 2^(j/8) / x8_thi[j] - 1, rounded (computed with 200-bit arithmetic) */
static const float x8_t[8] __attribute__((aligned(32))) = {
    0x0p+0, -0x1.9c0c22p-27, 0x1.125002p-25, -0x1.0a355p-25,
    0x1.26055cp-26, 0x1.67a1cap-28, -0x1.f9c304p-27, -0x1.a5217cp-28,
};

#define X8I static inline __attribute__((always_inline))

X8I __m256 x8_set(float c) { return _mm256_set1_ps(c); }
X8I int x8_any(__m256 m) { return _mm256_movemask_ps(m) != 0; }

/* e^x = 2^k T_hi (1 + w) for -87 <= x <= 88 (see above) */
X8I void x8_exp_parts(__m256 x, __m256 *thi, __m256 *w, __m256i *k)
{
    __m256 t = _mm256_fmadd_ps(x, x8_set(X8_K), x8_set(X8_SHIFT));
    __m256 nf = _mm256_sub_ps(t, x8_set(X8_SHIFT));
    __m256i n = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(x8_set(X8_SHIFT)));
    __m256 r = _mm256_fnmadd_ps(nf, x8_set(X8_C1), x);
    r = _mm256_fnmadd_ps(nf, x8_set(X8_C2), r);
    *thi = _mm256_permutevar8x32_ps(_mm256_load_ps(x8_thi), n);
    r = _mm256_add_ps(r, _mm256_permutevar8x32_ps(_mm256_load_ps(x8_t), n));
    __m256 q = _mm256_fmadd_ps(r, x8_set(1.0f / 120), x8_set(1.0f / 24));
    q = _mm256_fmadd_ps(q, r, x8_set(1.0f / 6));
    q = _mm256_fmadd_ps(q, r, x8_set(0.5f));
    *w = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
    *k = _mm256_srai_epi32(n, 3);
}

/* 2^k as a float, -126 <= k <= 127 */
X8I __m256 x8_pow2(__m256i k)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}

/* 1/(1 + e^v) for -87 <= v <= 87, within 2^-26.68 relative (see above).
 * `a_ge_1`: every lane has v >= 0 (then 2^k T_hi >= 1, no max/min). */
X8I __m256 x8_recip1pexp_(__m256 v, bool a_ge_1)
{
    __m256 thi, w;
    __m256i k;
    x8_exp_parts(v, &thi, &w, &k);
    __m256 a = _mm256_mul_ps(thi, x8_pow2(k));
    __m256 one = x8_set(1.0f);
    __m256 s = _mm256_add_ps(a, one);
    __m256 err = a_ge_1 ? _mm256_add_ps(_mm256_sub_ps(a, s), one)
                        : _mm256_add_ps(_mm256_sub_ps(_mm256_max_ps(a, one), s), _mm256_min_ps(a, one));
    __m256 dlo = _mm256_fmadd_ps(a, w, err);
    __m256 sd = _mm256_add_ps(s, dlo);
    __m256 sdlo = _mm256_add_ps(_mm256_sub_ps(s, sd), dlo);
    __m256 y0 = _mm256_div_ps(one, sd);
    __m256 e = _mm256_fnmadd_ps(sd, y0, one);   /* exact */
    e = _mm256_fnmadd_ps(sdlo, y0, e);
    return _mm256_fmadd_ps(y0, e, y0);
}

X8I __m256 x8_exp(__m256 x, __m256 *bad)
{
    *bad = _mm256_or_ps(_mm256_cmp_ps(x, x8_set(-87.0f), _CMP_NGE_UQ), _mm256_cmp_ps(x, x8_set(88.0f), _CMP_NLE_UQ));
    __m256 xc = _mm256_min_ps(_mm256_max_ps(x, x8_set(-87.0f)), x8_set(88.0f));
    __m256 thi, w;
    __m256i k;
    x8_exp_parts(xc, &thi, &w, &k);
    __m256 p = _mm256_fmadd_ps(thi, w, thi);
    __m256 r = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(k, 23)));
    /* zero, subnormal and near-overflow results are the exact path's */
    __m256 m = _mm256_andnot_ps(x8_set(-0.0f), r);
    *bad = _mm256_or_ps(*bad, _mm256_or_ps(_mm256_cmp_ps(m, x8_set(0x1p-125f), _CMP_NGE_UQ),
                                           _mm256_cmp_ps(m, x8_set(0x1p127f), _CMP_NLE_UQ)));
    return r;
}

X8I __m256 x8_logistic(__m256 x, __m256 *bad)
{
    /* x >= -86 keeps the result normal; NaN compares unordered */
    *bad = _mm256_cmp_ps(x, x8_set(-86.0f), _CMP_NGE_UQ);
    __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_xor_ps(x, x8_set(-0.0f)), x8_set(-87.0f)), x8_set(86.0f));
    return x8_recip1pexp_(v, false);
}

X8I __m256 x8_tanh(__m256 x, __m256 *bad)
{
    __m256 signbit = x8_set(-0.0f);
    __m256 a = _mm256_andnot_ps(signbit, x);
    /* NaN, and |x| < 2^-125 whose results the contract wants exact */
    *bad = _mm256_cmp_ps(a, x8_set(0x1p-125f), _CMP_NGE_UQ);
    a = _mm256_min_ps(a, x8_set(10.0f));   /* NaN lanes: bad, any value */
    __m256 z = _mm256_mul_ps(a, a);
    __m256 p = x8_set(-0x1.87066ap-10f);
    p = _mm256_fmadd_ps(p, z, x8_set(0x1.07a13p-8f));
    p = _mm256_fmadd_ps(p, z, x8_set(-0x1.2aa1eap-7f));
    p = _mm256_fmadd_ps(p, z, x8_set(0x1.675814p-6f));
    p = _mm256_fmadd_ps(p, z, x8_set(-0x1.ba2c3ep-5f));
    p = _mm256_fmadd_ps(p, z, x8_set(0x1.11115p-3f));
    p = _mm256_fmadd_ps(p, z, x8_set(-0x1.555556p-2f));
    __m256 r = _mm256_fmadd_ps(_mm256_mul_ps(a, z), p, a);
    __m256 lg = _mm256_cmp_ps(a, x8_set(0.5625f), _CMP_GE_OQ);
    if (x8_any(lg)) {
        /* v = 2a >= 0 in every lane: 2^k T_hi >= 1 */
        __m256 y = x8_recip1pexp_(_mm256_add_ps(a, a), true);
        r = _mm256_blendv_ps(r, _mm256_fnmadd_ps(x8_set(2.0f), y, x8_set(1.0f)), lg);
    }
    return _mm256_or_ps(r, _mm256_and_ps(x, signbit));
}

/* erf in f32 (math_erf.h has the method and its error analysis): the
 * operations of rt_erf_f32_lane in the same order, so the same bits as the
 * portable and AVX-512 levels. A coefficient is two vpermps (the 8-float
 * halves of its 16-float table row, indexed by the piece's low 3 bits)
 * and a blendv on bit 3 of the piece, or one vpermps when no lane of the
 * vector reaches a = 2. Flags NaN and subnormal inputs;
 * every other result is normal or a zero of x's sign. */
X8I __m256 x8_erf(__m256 x, __m256 *bad)
{
    __m256 sgn = _mm256_and_ps(x, x8_set(-0.0f));
    __m256 a = _mm256_andnot_ps(x8_set(-0.0f), x);
    *bad = _mm256_and_ps(_mm256_cmp_ps(a, x8_set(0x1p-126f), _CMP_NGE_UQ),
                         _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NEQ_UQ));
    a = _mm256_min_ps(a, x8_set(RT_ERF_CLAMP));   /* NaN lanes: the clamp, flagged */
    __m256 t = _mm256_mul_ps(a, x8_set(RT_ERF_SCALE));
    /* t - floor(t), exact: the lane form's t - k */
    __m256 u = _mm256_sub_ps(t, _mm256_round_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    __m256i k = _mm256_cvttps_epi32(t);
    __m256 hi = _mm256_castsi256_ps(_mm256_slli_epi32(k, 28));   /* bit 3 of k in the sign */
/* the Horner chain with the coefficients from ROW(j): one text for both
 * branches below, so they run the same operations in the same order */
#define X8_ERF_CHAIN(e, ROW) do { \
        e = ROW(5); \
        e = _mm256_fmadd_ps(e, u, ROW(4)); \
        e = _mm256_fmadd_ps(e, u, ROW(3)); \
        e = _mm256_fmadd_ps(e, u, ROW(2)); \
        e = _mm256_fmadd_ps(e, u, ROW(1)); \
        e = _mm256_fmadd_ps(e, u, ROW(0)); \
    } while (0)
    __m256 e;
    if (!_mm256_movemask_ps(hi)) {
        /* every lane below a = 2 (pieces 0..7; gelu's operands x/sqrt 2
         * for |x| < 2.83, 96% of its 8-lane vectors on N(0,1) data): the
         * low halves of the rows hold every coefficient needed, one
         * vpermps each instead of two and a blend (the same values) */
#define X8_ERF_LO(j) _mm256_permutevar8x32_ps(_mm256_load_ps(rt_erf_tab[j]), k)
        X8_ERF_CHAIN(e, X8_ERF_LO);
#undef X8_ERF_LO
    } else {
#define X8_ERF_ROW(j) _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(rt_erf_tab[j]), k), \
                                       _mm256_permutevar8x32_ps(_mm256_load_ps(rt_erf_tab[j] + 8), k), hi)
        X8_ERF_CHAIN(e, X8_ERF_ROW);
#undef X8_ERF_ROW
    }
#undef X8_ERF_CHAIN
    /* A = min(|x|, 1) with the sign of x: fma(e, A, A) is a + a Q or 1 - E
     * with the sign */
    __m256 A = _mm256_or_ps(_mm256_min_ps(a, x8_set(1.0f)), sgn);
    return _mm256_fmadd_ps(e, A, A);
}

/* One block of 8: the fast value where it is safe, else the exact path's
 * value for the half-blocks of 4 (its block width here) holding a special
 * lane, blended lane by lane. Array tails: masked loads and stores. */
#define X8_UNARY(name, OPC, dexpr)                                                   \
    X8I __m256 x8b_##name(__m256 x)                                                  \
    {                                                                                \
        __m256 bad;                                                                  \
        __m256 r = x8_##name(x, &bad);                                               \
        int mb = _mm256_movemask_ps(bad);                                            \
        if (__builtin_expect(mb != 0, 0)) {                                          \
            __m128 lo = _mm256_castps256_ps128(r), hi = _mm256_extractf128_ps(r, 1); \
            if (mb & 0x0F) {                                                         \
                vf xv = (vf)_mm256_castps256_ps128(x);                               \
                lo = _mm_blendv_ps(lo, (__m128)f32_of(OPC, xv, dexpr),               \
                                   _mm256_castps256_ps128(bad));                     \
            }                                                                        \
            if (mb & 0xF0) {                                                         \
                vf xv = (vf)_mm256_extractf128_ps(x, 1);                             \
                hi = _mm_blendv_ps(hi, (__m128)f32_of(OPC, xv, dexpr),               \
                                   _mm256_extractf128_ps(bad, 1));                   \
            }                                                                        \
            r = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);             \
        }                                                                            \
        return r;                                                                    \
    }                                                                                \
    static void x8_arr_##name(const float *in, float *out, size_t n)                 \
    {                                                                                \
        size_t i = 0;                                                                \
        for (; i + 8 <= n; i += 8)                                                   \
            _mm256_storeu_ps(out + i, x8b_##name(_mm256_loadu_ps(in + i)));          \
        if (i < n) {                                                                 \
            __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)),          \
                                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); \
            __m256 x = _mm256_blendv_ps(x8_set(1.0f), _mm256_maskload_ps(in + i, m),  \
                                        _mm256_castsi256_ps(m));                     \
            _mm256_maskstore_ps(out + i, m, x8b_##name(x));                          \
        }                                                                            \
    }

X8_UNARY(exp, PLUMB_OP_EXPONENTIAL, dv_exp(xv))
X8_UNARY(logistic, PLUMB_OP_LOGISTIC, dv_logistic(xv))
X8_UNARY(tanh, PLUMB_OP_TANH, dv_tanh(xv))
X8_UNARY(erf, PLUMB_OP_ERF, dv_erf(xv))

rt_vmath_f32_fn rt_vmath_unary_avx2(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: return x8_arr_exp;
    case PLUMB_OP_LOGISTIC: return x8_arr_logistic;
    case PLUMB_OP_TANH: return x8_arr_tanh;
    case PLUMB_OP_ERF: return x8_arr_erf;
    default: return fx_unary_avx2(op);
    }
}
rt_vmath2_f32_fn rt_vmath_binary_avx2(plumb_opcode op) { return vm_binary_avx2(op); }
rt_vmath_f32d_fn rt_vmathd_unary_avx2(plumb_opcode op) { return vmd_unary_avx2(op); }
rt_vmath2_f32d_fn rt_vmathd_binary_avx2(plumb_opcode op) { return vmd_binary_avx2(op); }

RT_TARGET_POP
#else
typedef int rt_math_avx2_is_x86_only;   /* a translation unit may not be empty */
#endif
