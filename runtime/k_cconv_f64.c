/* complex<f64> convolution's matrix product (k_conv.c's im2col'd A [G·M, K]
 * and packed kernel B [G, K, N], complex<f64> elements), with the
 * reference's bits.
 *
 * The reference's contract (ref/conv.c, ref/accum.c): each result
 * component is a sum of n = 2K products x·y (Re: ar·br and (-ai)·bi,
 * Im: ar·bi and ai·br), each product exact, summed exactly (an MPFR
 * accumulator of 4300 bits, wider than every product's span) and rounded
 * once to f64, to nearest even, with f64's subnormals and overflow to
 * infinity. A NaN operand, 0·inf or +inf together with -inf gives NaN,
 * otherwise an infinite product gives that infinity; an exact zero sum
 * is -0 only when every product was -0 (padding's (+0, +0) included).
 * The exact sum does not depend on the term order, so neither does the
 * result: any summation that provably lands on the same rounding is
 * bit-equal to the reference.
 *
 * Fast path, per component, in vector lanes across the output features:
 * with m a power of two >= |x|·|y| for every term of the lane (the row's
 * largest component times the column's, each rounded up to a power of
 * two) and 2^L >= n, the lane starts S at σ = 2^(L+2)·m, then for each
 * product
 *     S' = fma(x, y, S);  q = S' - S;  r = fma(x, y, -q);  R += r;  S = S'.
 * S stays within σ·(1 ± 1/4 + n·2^-52), so q is exact (Sterbenz), the
 * q's add up exactly to S - σ (exact too), and x·y - q, the rounding
 * error of S + x·y, is below 2^-53·σ; r is it to a relative 2^-53 (plus
 * 2^-1075 if it underflows). So the exact sum X differs from
 * T = (S - σ) + R by at most
 *     E = n·2^-106·σ + γ(n)·n·2^-53·σ + n·2^-1075 <= c·σ + d
 * (the r roundings, the recursive sum of the r's; c and d in
 * rt_cconv_f64). With h + l = T (TwoSum), h is the result when X's whole
 * interval [T - E, T + E] lies strictly between the midpoints around h.
 * Otherwise (a sum near a midpoint, a result below 2^-1000 or an exact
 * zero, σ outside [2^-900, 2^1000], a component above 2^995 or a NaN
 * or infinity in the row or the column) the component is computed by
 * cf_exact, the reference's own
 * method. Four floating-point operations per product, two of them fmas.
 *
 * Every accepted result is the correctly rounded exact sum, so the
 * vector width, blocking and term order may differ between ISA levels
 * (AVX-512: 8 lanes, 32 features a block; AVX2: 4 lanes, 8 features;
 * portable: 2 lanes, 8 features, Dekker's products instead of fma, see
 * cf_p_*) and between thread splits without changing a bit. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <mpfr.h>

#include "rt_conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CF_X86 1
#else
#define CF_X86 0
#endif

#define CF_PAD 8      /* planar kernel rows padded to a multiple of the widest vector */
#define CF_NBMAX 32   /* the widest block of output features */

/* 16 bytes: the baseline ABI's vector size on x86-64 and aarch64 */
typedef double cf_v2 __attribute__((vector_size(16)));

typedef struct cf_job {
    const double *A;         /* [G·M, K] complex<f64>, (re, im) interleaved */
    const double *B;         /* [G, K, N] complex<f64> */
    const double *Br, *Bi;   /* [G, K, Np] planar, zero tail */
    const double *bs;        /* [G, Np]: 2^(L+2) · the column's power-of-two bound, 0 when unusable */
    double *C;               /* [G·M, N] complex<f64> */
    int64_t M, K, N, Np;
    double c, d;             /* E = c·σ + d */
    int isa;                 /* 2: AVX-512, 1: AVX2, 0: portable */
} cf_job;

/* The smallest power of two >= v (v finite, >= 0); 0 for 0. */
static double cf_pow2_ceil(double v)
{
    if (v == 0) return 0;
    int e;
    double f = frexp(v, &e);   /* v = f·2^e, f in [0.5, 1) */
    return f == 0.5 ? ldexp(1.0, e - 1) : ldexp(1.0, e);
}

/* ---- the reference's exact method (ref/accum.c's exact ref_acc) ---- */

typedef struct cf_exact_acc {
    bool nan, pinf, ninf, all_negzero, live;
    bool inexact;            /* an add rounded: the precision was too small */
    mpfr_prec_t prec;
    mpfr_t m, t;
} cf_exact_acc;

static void cf_exact_add(cf_exact_acc *a, double x, double y)
{
    if (isnan(x) || isnan(y)) {
        a->nan = true;
        return;
    }
    if (isinf(x) || isinf(y)) {
        if (x == 0 || y == 0) a->nan = true;   /* 0 · inf */
        else if (x * y > 0) a->pinf = true;
        else a->ninf = true;
        return;
    }
    if (x == 0 || y == 0) {
        if (signbit(x) == signbit(y)) a->all_negzero = false;   /* a +0 product */
        return;
    }
    a->all_negzero = false;
    if (!a->live) {
        /* MPFR only for components with a nonzero finite product: zero
         * rows and special-valued ones need none */
        mpfr_init2(a->m, a->prec);
        mpfr_init2(a->t, 128);
        mpfr_set_zero(a->m, 1);
        a->live = true;
    }
    mpfr_set_d(a->t, x, MPFR_RNDN);
    mpfr_mul_d(a->t, a->t, y, MPFR_RNDN);   /* 106 bits: exact */
    if (mpfr_add(a->m, a->m, a->t, MPFR_RNDN) != 0) a->inexact = true;
}

/* The sum rounded once to f64 (ref_acc_round); frees the MPFR state. */
static double cf_exact_round(cf_exact_acc *a)
{
    double v;
    if (a->nan || (a->pinf && a->ninf)) v = NAN;
    else if (a->pinf) v = INFINITY;
    else if (a->ninf) v = -INFINITY;
    else if (!a->live || mpfr_zero_p(a->m)) v = a->all_negzero ? -0.0 : 0.0;
    else v = mpfr_get_d(a->m, MPFR_RNDN);   /* one rounding: subnormals and overflow to inf as f64's own */
    if (a->live) {
        mpfr_clear(a->m);
        mpfr_clear(a->t);
    }
    return v;
}

/* Component im (0: real, 1: imaginary) of element (r, n) by the
 * reference's method. One component at a time: a component whose
 * products are all ±0 (real-valued data stored as complex) never settles
 * on the fast path, and costs no MPFR work here. The sum is first kept at
 * 256 bits, where every add reports whether it rounded: when none did
 * (products within about 150 binades of each other, as in the exact
 * zeros that cancelling data gives) that sum is the exact one, at a
 * sixteenth of the cost; otherwise it is redone at ref/accum.h's
 * REF_ACC_EXACT_PREC, 4300 bits, which holds every product's span. */
static double cf_exact(const cf_job *j, int64_t r, int64_t n, int im)
{
    int64_t grp = r / j->M;
    const double *a = j->A + (size_t)r * (size_t)j->K * 2;
    const double *b = j->B + ((size_t)grp * (size_t)j->K * (size_t)j->N + (size_t)n) * 2;
    static const mpfr_prec_t precs[2] = {256, 4300};
    for (int pass = 0;; pass++) {
        cf_exact_acc acc;
        memset(&acc, 0, sizeof acc);
        acc.all_negzero = true;
        acc.prec = precs[pass];
        for (int64_t k = 0; k < j->K; k++) {
            double ar = a[2 * k], ai = a[2 * k + 1];
            double br = b[2 * (size_t)k * (size_t)j->N], bi = b[2 * (size_t)k * (size_t)j->N + 1];
            if (im) {
                cf_exact_add(&acc, ar, bi);
                cf_exact_add(&acc, ai, br);
            } else {
                cf_exact_add(&acc, ar, br);
                cf_exact_add(&acc, -ai, bi);
            }
        }
        if (!acc.inexact || pass == 1) return cf_exact_round(&acc);
        cf_exact_round(&acc);   /* frees */
    }
}

/* Whether lane (S, R, σ) settles its f64 rounding (see the top); *f is
 * then the result. */
static bool cf_settled(const cf_job *j, double S, double R, double sigma, double *f)
{
    if (!(sigma >= 0x1p-900 && sigma <= 0x1p1000)) return false;
    double hi = S - sigma;   /* exact: S within a factor 2 of σ */
    double h = hi + R, bb = h - hi, l = (hi - (h - bb)) + (R - bb);   /* TwoSum: h + l = hi + R */
    double ah = fabs(h);
    if (!(ah >= 0x1p-1000 && ah <= 0x1p1010)) return false;   /* also NaN from a broken lane */
    double E = j->c * sigma + j->d;   /* c·σ exact (normal, a power of two's multiple) */
    uint64_t u;
    memcpy(&u, &ah, sizeof u);
    uint64_t eb = u & 0x7ff0000000000000ull;
    double p2;   /* 2^exponent(h) */
    memcpy(&p2, &eb, sizeof p2);
    double hgu = p2 * 0x1p-53, hgd = (u & 0x000fffffffffffffull) ? hgu : p2 * 0x1p-54;   /* half gaps above and below |h| */
    double al = h > 0 ? l : -l;   /* T's magnitude is |h| + al */
    /* strict, and conservative under rounding: RN is monotonic and the
     * half gaps are representable */
    if (al + E < hgu && E - al < hgd) {
        *f = h;
        return true;
    }
    return false;
}

/* Finish one block: settle each (feature, component) or hand it over. */
static void cf_finish(const cf_job *j, int64_t r, int64_t n0, int64_t nn, const double *Sre, const double *Rre,
                      const double *Sim, const double *Rim, const double *sig)
{
    double *c = j->C + ((size_t)r * (size_t)j->N + (size_t)n0) * 2;
    for (int64_t q = 0; q < nn; q++) {
        double *o = c + 2 * q;
        if (!cf_settled(j, Sre[q], Rre[q], sig[q], &o[0])) o[0] = cf_exact(j, r, n0 + q, 0);
        if (!cf_settled(j, Sim[q], Rim[q], sig[q], &o[1])) o[1] = cf_exact(j, r, n0 + q, 1);
    }
}

/* The row's power-of-two bound (0 with a NaN or infinity: the row falls
 * back). Its reads are the first touch of the im2col'd row, which comes
 * from memory: 14-16% of the bench's cycles land here (perf), about as
 * much with an integer max in four chains as with this loop. */
static double cf_row_bound(const cf_job *j, int64_t r)
{
    const double *a = j->A + (size_t)r * (size_t)j->K * 2;
    double mx = 0;
    bool fin = true;
    for (int64_t k = 0; k < 2 * j->K; k++) {
        double v = fabs(a[k]);
        fin &= v <= DBL_MAX;   /* false for inf and NaN */
        mx = v > mx ? v : mx;
    }
    /* above 2^995 the portable path's Veltkamp split overflows */
    return fin && mx <= 0x1p995 ? cf_pow2_ceil(mx) : 0;
}

/* One block of nv (<= 4) vectors of W lanes: the accumulation (see the
 * top) over all K terms, then cf_finish. FMA(x, y, z) = x·y + z and
 * FMS(x, y, z) = x·y - z, each rounded once. nv is a constant where the
 * block is inlined, and every per-vector step is written out for v = 0..3
 * under `v < nv`, so the accumulators are registers (a loop over v kept
 * them in memory: a load and a store per operation). */
#define CF_EACH(X) X(0) X(1) X(2) X(3)
#define CF_BLOCK(NAME, ATTR, VT, W, LOADU, STOREU, SET1, FMA, FMS)                                                 \
    ATTR static inline void NAME(const cf_job *j, int64_t r, int64_t n0, double a2, int nv, int64_t nn)            \
    {                                                                                                               \
        int64_t grp = r / j->M, K = j->K, Np = j->Np;                                                               \
        const double *a = j->A + (size_t)r * (size_t)K * 2;                                                         \
        const double *Br = j->Br + (size_t)grp * (size_t)K * (size_t)Np + n0;                                       \
        const double *Bi = j->Bi + (size_t)grp * (size_t)K * (size_t)Np + n0;                                       \
        const double *bs = j->bs + grp * Np + n0;                                                                   \
        VT Sre[4], Rre[4], Sim[4], Rim[4], sg[4];                                                                   \
        VT va2 = SET1(a2);                                                                                          \
        CF_EACH(CF_INIT_##W)                                                                                        \
        for (int64_t k = 0; k < K; k++) {                                                                           \
            VT ar = SET1(a[2 * k]), ai = SET1(a[2 * k + 1]), nai = SET1(-a[2 * k + 1]);                             \
            const double *br = Br + (size_t)k * (size_t)Np, *bi = Bi + (size_t)k * (size_t)Np;                      \
            CF_EACH(CF_STEP_##W)                                                                                    \
        }                                                                                                           \
        double sre[CF_NBMAX], rre[CF_NBMAX], sim[CF_NBMAX], rim[CF_NBMAX], sig[CF_NBMAX];                           \
        CF_EACH(CF_OUT_##W)                                                                                         \
        cf_finish(j, r, n0, nn, sre, rre, sim, rim, sig);                                                           \
    }

/* the per-vector steps, one set per width (each names its block's locals) */
#define CF_INIT(v, W, LOADU, SET1)                                                                                  \
    if (v < nv) {                                                                                                   \
        sg[v] = va2 * LOADU(bs + v * W);                                                                            \
        Sre[v] = Sim[v] = sg[v];                                                                                    \
        Rre[v] = Rim[v] = SET1(0.0);                                                                                \
    }
#define CF_STEP(v, W, VT, LOADU, FMA, FMS)                                                                          \
    if (v < nv) {                                                                                                   \
        VT vbr = LOADU(br + v * W), vbi = LOADU(bi + v * W), s, q;                                                  \
        s = FMA(ar, vbr, Sre[v]);                                                                                   \
        q = s - Sre[v];                                                                                             \
        Rre[v] += FMS(ar, vbr, q);                                                                                  \
        Sre[v] = s;                                                                                                 \
        s = FMA(nai, vbi, Sre[v]);                                                                                  \
        q = s - Sre[v];                                                                                             \
        Rre[v] += FMS(nai, vbi, q);                                                                                 \
        Sre[v] = s;                                                                                                 \
        s = FMA(ar, vbi, Sim[v]);                                                                                   \
        q = s - Sim[v];                                                                                             \
        Rim[v] += FMS(ar, vbi, q);                                                                                  \
        Sim[v] = s;                                                                                                 \
        s = FMA(ai, vbr, Sim[v]);                                                                                   \
        q = s - Sim[v];                                                                                             \
        Rim[v] += FMS(ai, vbr, q);                                                                                  \
        Sim[v] = s;                                                                                                 \
    }
#define CF_OUT(v, W, STOREU)                                                                                        \
    if (v < nv) {                                                                                                   \
        STOREU(sre + v * W, Sre[v]);                                                                                \
        STOREU(rre + v * W, Rre[v]);                                                                                \
        STOREU(sim + v * W, Sim[v]);                                                                                \
        STOREU(rim + v * W, Rim[v]);                                                                                \
        STOREU(sig + v * W, sg[v]);                                                                                 \
    }

/* Row r: blocks of NB features, the last one as few vectors as it needs
 * (each call with a constant count, so each is unrolled on its own). */
#define CF_ROW(NAME, ATTR, BLOCK, W, NB)                                                                             \
    ATTR static void NAME(const cf_job *j, int64_t r)                                                              \
    {                                                                                                               \
        double a2 = cf_row_bound(j, r);                                                                             \
        for (int64_t n0 = 0; n0 < j->N; n0 += NB) {                                                                 \
            int64_t nn = j->N - n0 < NB ? j->N - n0 : NB;                                                           \
            switch ((int)((nn + W - 1) / W)) {                                                                      \
            case 1: BLOCK(j, r, n0, a2, 1, nn); break;                                                              \
            case 2: BLOCK(j, r, n0, a2, 2, nn); break;                                                              \
            case 3: BLOCK(j, r, n0, a2, 3, nn); break;                                                              \
            default: BLOCK(j, r, n0, a2, NB / W, nn); break;                                                        \
            }                                                                                                       \
        }                                                                                                           \
    }

/* portable: 2-lane vectors (the baseline ABI's), and no fma: where the
 * CPU lacks it (x86 before AVX2) the C library's fma is a slow software
 * routine. Each product is split exactly by Dekker's TwoProduct,
 * x·y = p + e (Veltkamp halves; exact for |x|, |y| <= 2^995, which the
 * row and column bounds ensure, and without underflow), then
 * S' = S + p, q = S' - S (exact: Sterbenz), r = (p - q) + e, R += r:
 * p - q is the exact error of S + p (|S| >= |p|), so x·y - q is again
 * below 2^-53·σ(1 + 2^-L-2) and r is it to a relative 2^-53. The bound's
 * c grows by 1/4 for the larger r's; underflow in the split's partial
 * products costs at most 2^-1017 per product, which d covers. */
static inline cf_v2 cf_p_loadu(const double *p)
{
    cf_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void cf_p_storeu(double *p, cf_v2 v) { memcpy(p, &v, sizeof v); }
static inline cf_v2 cf_p_set1(double x) { return (cf_v2){x, x}; }

#define CF_SPLIT(y, yh, yl)                                                                                         \
    cf_v2 yh, yl;                                                                                                   \
    {                                                                                                               \
        cf_v2 c_ = (y) * 134217729.0; /* 2^27 + 1 */                                                                \
        yh = c_ - (c_ - (y));                                                                                       \
        yl = (y) - yh;                                                                                              \
    }
#define CF_DEKKER(S, R, x, xh, xl, y, yh, yl)                                                                       \
    {                                                                                                               \
        cf_v2 p_ = (x) * (y);                                                                                       \
        cf_v2 e_ = (((xh) * (yh) - p_) + (xh) * (yl) + (xl) * (yh)) + (xl) * (yl);                                  \
        cf_v2 s_ = S + p_, q_ = s_ - S;                                                                             \
        R += (p_ - q_) + e_;                                                                                        \
        S = s_;                                                                                                     \
    }
#define CF_INIT_2(v) CF_INIT(v, 2, cf_p_loadu, cf_p_set1)
#define CF_STEP_2(v)                                                                                                \
    if (v < nv) {                                                                                                   \
        cf_v2 vbr = cf_p_loadu(br + v * 2), vbi = cf_p_loadu(bi + v * 2);                                           \
        CF_SPLIT(ar, arh, arl)                                                                                      \
        CF_SPLIT(ai, aih, ail)                                                                                      \
        CF_SPLIT(nai, naih, nail)                                                                                   \
        CF_SPLIT(vbr, brh, brl)                                                                                     \
        CF_SPLIT(vbi, bih, bil)                                                                                     \
        CF_DEKKER(Sre[v], Rre[v], ar, arh, arl, vbr, brh, brl)                                                      \
        CF_DEKKER(Sre[v], Rre[v], nai, naih, nail, vbi, bih, bil)                                                   \
        CF_DEKKER(Sim[v], Rim[v], ar, arh, arl, vbi, bih, bil)                                                      \
        CF_DEKKER(Sim[v], Rim[v], ai, aih, ail, vbr, brh, brl)                                                      \
    }
#define CF_OUT_2(v) CF_OUT(v, 2, cf_p_storeu)
CF_BLOCK(cf_block_base, __attribute__((always_inline)), cf_v2, 2, cf_p_loadu, cf_p_storeu, cf_p_set1, , )
CF_ROW(cf_row_base, , cf_block_base, 2, 8)

#if CF_X86
#define CF_AVX2 __attribute__((target("avx2,fma")))
#define CF_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma")))
#define CF_INIT_4(v) CF_INIT(v, 4, _mm256_loadu_pd, _mm256_set1_pd)
#define CF_STEP_4(v) CF_STEP(v, 4, __m256d, _mm256_loadu_pd, _mm256_fmadd_pd, _mm256_fmsub_pd)
#define CF_OUT_4(v) CF_OUT(v, 4, _mm256_storeu_pd)
CF_BLOCK(cf_block_avx2, CF_AVX2 __attribute__((always_inline)), __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd,
         _mm256_set1_pd, _mm256_fmadd_pd, _mm256_fmsub_pd)
CF_ROW(cf_row_avx2, CF_AVX2, cf_block_avx2, 4, 8)
#define CF_INIT_8(v) CF_INIT(v, 8, _mm512_loadu_pd, _mm512_set1_pd)
#define CF_STEP_8(v) CF_STEP(v, 8, __m512d, _mm512_loadu_pd, _mm512_fmadd_pd, _mm512_fmsub_pd)
#define CF_OUT_8(v) CF_OUT(v, 8, _mm512_storeu_pd)
CF_BLOCK(cf_block_avx512, CF_AVX512 __attribute__((always_inline)), __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd,
         _mm512_set1_pd, _mm512_fmadd_pd, _mm512_fmsub_pd)
CF_ROW(cf_row_avx512, CF_AVX512, cf_block_avx512, 8, 32)
#endif

static void cf_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const cf_job *j = ctx;
    for (uint64_t r = begin; r < end; r++) {
#if CF_X86
        if (j->isa == 2) {
            cf_row_avx512(j, (int64_t)r);
            continue;
        }
        if (j->isa == 1) {
            cf_row_avx2(j, (int64_t)r);
            continue;
        }
#endif
        cf_row_base(j, (int64_t)r);
    }
}

/* The kernel split into planar rows, one (group, k) row per index. */
typedef struct cf_pack {
    const double *B;
    double *Br, *Bi;
    int64_t N, Np;
} cf_pack;

static void cf_pack_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const cf_pack *p = ctx;
    for (uint64_t r = begin; r < end; r++) {
        rt_cplanar_row(p->B + (size_t)r * (size_t)p->N * 2, true, p->N, p->Np, p->Br + (size_t)r * (size_t)p->Np,
                       p->Bi + (size_t)r * (size_t)p->Np);
    }
}

bool rt_cconv_f64(rt_exec *x, const ir_op *op, const void *A, const void *B, void *C, int64_t G, int64_t M, int64_t K,
                  int64_t N)
{
    int64_t Np = (N + CF_PAD - 1) / CF_PAD * CF_PAD;
    uint64_t bsz, ssz;
    if (__builtin_mul_overflow((uint64_t)(G * K), (uint64_t)Np * 2 * sizeof(double), &bsz) ||
        __builtin_mul_overflow((uint64_t)G, (uint64_t)Np * sizeof(double), &ssz) || bsz > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "complex kernel scratch size overflows (K = %lld, N = %lld)", (long long)K,
                       (long long)N);
    double *Br = rt_scratch(x, op, (size_t)bsz), *bs = rt_scratch(x, op, (size_t)ssz);
    if (!Br || !bs) return false;
    double *Bi = Br + (size_t)(G * K) * (size_t)Np;
    cf_pack pk = {B, Br, Bi, N, Np};
    rt_parallel_for(x, (uint64_t)(G * K), 64, cf_pack_range, &pk);
    /* n = 2K products per component, 2^L >= n */
    int64_t n = 2 * K;
    int L = 0;
    while (L < 62 && ((int64_t)1 << L) < n) L++;
    double lscale = ldexp(1.0, L + 2);
    /* column bounds: 2^(L+2) times the largest component's power-of-two
     * ceiling; 0 (every element of the column falls back) with a NaN or
     * infinity in the column or an overflow here */
    for (int64_t g = 0; g < G; g++)
        for (int64_t c = 0; c < Np; c++) {
            double mx = 0;
            bool fin = true;
            for (int64_t k = 0; k < K && c < N; k++) {
                double vr = fabs(Br[(size_t)(g * K + k) * (size_t)Np + (size_t)c]);
                double vi = fabs(Bi[(size_t)(g * K + k) * (size_t)Np + (size_t)c]);
                fin &= vr <= DBL_MAX && vi <= DBL_MAX;
                mx = vr > mx ? vr : mx;
                mx = vi > mx ? vi : mx;
            }
            double v = fin && mx <= 0x1p995 ? cf_pow2_ceil(mx) * lscale : 0;
            bs[g * Np + c] = v <= DBL_MAX ? v : 0;
        }
    /* E = n·2^-106·σ + γ(n)·n·2^-53·σ·(1 + u) + n·2^-1075, with
     * γ(n) <= n·2^-53·(1 + 2^-20) for n < 2^25: c = n(n+1)·2^-106 widened
     * by 2^-9 (exact products: n < 2^25), d = (n+1)·2^-1074 */
    cf_job j = {A, B, Br, Bi, bs, C, M, K, N, Np, 0, 0, 0};
    /* beyond 2^25 products the bound's γ(n) step does not hold: every
     * element takes the exact method */
    j.c = n < ((int64_t)1 << 25) ? (double)n * (double)(n + 1) * 0x1p-106 * (1 + 0x1p-9) : INFINITY;
    j.d = (double)(n + 1) * 0x1p-1074;
    plumb_isa isa = rt_isa(x);
    j.isa = isa >= PLUMB_ISA_AVX512 ? 2 : isa >= PLUMB_ISA_AVX2 ? 1 : 0;
    if (j.isa == 0) {
        /* the portable path's Dekker products: r up to 1 + 2^-L-2 larger, and
         * underflowed partial products (see cf_p_*) */
        j.c *= 1.25;
        j.d = (double)(n + 1) * 0x1p-1010;
    }
    uint64_t per = (uint64_t)(K * N), grain = per >= 4096 ? 1 : 4096 / (per ? per : 1);
    rt_parallel_for(x, (uint64_t)(G * M), grain, cf_range, &j);
    return true;
}
