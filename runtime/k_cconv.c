/* complex<f32> convolution's matrix product (k_conv.c's im2col'd A [G·M, K]
 * and packed kernel B [G, K, N], complex<f32> elements), with the
 * reference's bits (ref/conv.c: each result component the sum of its 2K
 * exact products accumulated in double-double, rounded once to f32).
 *
 * Fast path: each component summed in plain double (every product of two
 * f32 values is exact in double, so the only errors are the 2K - 1 adds),
 * four real products per complex term over the kernel split into planar
 * real and imaginary double rows, in 4-lane vectors across the output
 * features. The recursive sum s of n exact terms is within
 * E = γ(n)·Σ|p| of the exact sum (Higham, Thm 4.4), and by Cauchy-Schwarz
 * Σ|p| <= |a|₂·|b|₂ for both components, where |a|₂ is the 2-norm of the
 * row's 2K components and |b|₂ that of the column's. When s - 2E and
 * s + 2E lie strictly between the f32 midpoints around (float)s, the exact
 * sum and the reference's double-double value (far nearer to it than E)
 * both round to (float)s: that is the result. Otherwise (a sum near a
 * midpoint, a result near zero, subnormal or near overflow, a NaN or
 * infinity anywhere) the element is computed again by cc_exact, which
 * repeats the reference's double-double steps in its term order, so the
 * bits are the reference's in every case.
 *
 * The vector code is the same at every ISA level (an AVX2 build of it for
 * speed): each lane runs the same IEEE operations in the same order, so
 * results do not depend on the ISA or on the thread split. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "rt_conv.h"

typedef double cc_v4 __attribute__((vector_size(32)));
#define CC_LANES 4
#define CC_NB 32   /* output features per block: 8 vectors of re and im each */

typedef struct cc_job {
    const float *A;          /* [G·M, K] complex<f32>, (re, im) interleaved */
    const float *B;          /* [G, K, N] complex<f32> */
    const double *Br, *Bi;   /* [G, K, Np] planar, Np = N rounded up to 4, zero tail */
    const double *nb;        /* [G, N] column 2-norms */
    float *C;                /* [G·M, N] complex<f32> */
    int64_t M, K, N, Np, KI, Kw;
    double c;                /* E = c · |a|₂ · |b|₂ */
    bool avx2;
} cc_job;

/* ---- the reference's double-double accumulation (ref/accum.c) ---- */

typedef struct cc_dd {
    bool nan, pinf, ninf, all_negzero;
    double hi, lo;
} cc_dd;

static void cc_two_sum(double a, double b, double *s, double *e)
{
    double sum = a + b, bb = sum - a;
    *e = (a - (sum - bb)) + (b - bb);
    *s = sum;
}

/* ref_acc_add_prod for f32 operands (products exact in double) */
static void cc_dd_add_prod(cc_dd *a, double x, double y)
{
    if (isnan(x) || isnan(y)) {
        a->nan = true;
        return;
    }
    if (isinf(x) || isinf(y)) {
        if (x == 0 || y == 0) a->nan = true;
        else if (isnan(x * y)) a->nan = true;
        else if (x * y > 0) a->pinf = true;
        else a->ninf = true;
        return;
    }
    if (x == 0 || y == 0) {
        if (signbit(x) == signbit(y)) a->all_negzero = false;   /* a +0 product */
        return;
    }
    a->all_negzero = false;
    double s, e;
    cc_two_sum(a->hi, x * y, &s, &e);
    double lo = a->lo + e;
    cc_two_sum(s, lo, &a->hi, &a->lo);
}

/* ref_acc_round to f32: hi + lo rounded once. hi + lo is first rounded to
 * odd at double's 53 bits (RN, then one step toward the discarded part
 * when that is nonzero and the RN result is even), which then rounds to
 * f32's 24 bits (subnormals too) as hi + lo itself would (53 >= 24 + 2,
 * Boldo & Melquiond). */
static float cc_dd_round(const cc_dd *a)
{
    if (a->nan || (a->pinf && a->ninf)) return NAN;
    if (a->pinf) return INFINITY;
    if (a->ninf) return -INFINITY;
    double s, e;
    cc_two_sum(a->hi, a->lo, &s, &e);
    if (s == 0 && e == 0) return a->all_negzero ? -0.0f : 0.0f;
    if (e != 0) {
        uint64_t b;
        memcpy(&b, &s, sizeof b);
        if (!(b & 1)) s = nextafter(s, e > 0 ? INFINITY : -INFINITY);
    }
    return (float)s;
}

/* Element (r, n) in the reference's term order: input feature ki
 * outermost, window position inside (A's columns are window-major). */
static void cc_exact(const cc_job *j, int64_t r, int64_t n, float *out)
{
    int64_t grp = r / j->M;
    const float *a = j->A + (size_t)r * (size_t)j->K * 2;
    const float *b = j->B + ((size_t)grp * (size_t)j->K * (size_t)j->N + (size_t)n) * 2;
    cc_dd re = {false, false, false, true, 0.0, 0.0}, im = re;
    for (int64_t ki = 0; ki < j->KI; ki++)
        for (int64_t wl = 0; wl < j->Kw; wl++) {
            size_t k = (size_t)(wl * j->KI + ki);
            double ar = a[2 * k], ai = a[2 * k + 1];
            double br = b[2 * k * (size_t)j->N], bi = b[2 * k * (size_t)j->N + 1];
            cc_dd_add_prod(&re, ar, br);
            cc_dd_add_prod(&re, -ai, bi);
            cc_dd_add_prod(&im, ar, bi);
            cc_dd_add_prod(&im, ai, br);
        }
    out[0] = cc_dd_round(&re);
    out[1] = cc_dd_round(&im);
}

/* Whether the double sum s, within E of the exact sum, settles its f32
 * rounding (see the top); *f is then the result. */
static bool cc_settled(double s, double E, float *f)
{
    if (!isfinite(s) || !(E < INFINITY)) return false;
    if (E == 0) {
        /* every product is ±0: s is exactly the sum, its sign the
         * reference's (-0 only when every product was -0) */
        *f = (float)s;
        return true;
    }
    float v = (float)s, av = fabsf(v);
    if (!(av >= FLT_MIN && av < FLT_MAX)) return false;
    /* on magnitudes (s has v's sign): the f32 neighbours of |v| are its
     * bit pattern ± 1 (|v| normal and below FLT_MAX); a sum of two
     * neighbours has <= 25 significant bits, exact in double; the
     * differences below are exact by Sterbenz (|s| lies between the two
     * midpoints, within a factor 2 of each) */
    uint32_t u, ud, uu;
    memcpy(&u, &av, sizeof u);
    ud = u - 1;
    uu = u + 1;
    float dn, up;
    memcpy(&dn, &ud, sizeof dn);
    memcpy(&up, &uu, sizeof up);
    double as = fabs(s), mlo = ((double)av + dn) * 0.5, mhi = ((double)av + up) * 0.5;
    if (as - mlo > 2 * E && mhi - as > 2 * E) {
        *f = v;
        return true;
    }
    return false;
}

/* Row r of C: all N output features, CC_NB at a time. */
static inline __attribute__((always_inline)) void cc_row_body(const cc_job *j, int64_t r)
{
    int64_t grp = r / j->M, K = j->K;
    const float *a = j->A + (size_t)r * (size_t)K * 2;
    double sa = 0;
    for (int64_t k = 0; k < 2 * K; k++) sa += (double)a[k] * (double)a[k];
    double na = sqrt(sa);
    const double *Br = j->Br + (size_t)grp * (size_t)K * (size_t)j->Np, *Bi = j->Bi + (size_t)grp * (size_t)K * (size_t)j->Np;
    float *c = j->C + (size_t)r * (size_t)j->N * 2;
    for (int64_t n0 = 0; n0 < j->N; n0 += CC_NB) {
        int64_t nv = (j->Np - n0 < CC_NB ? j->Np - n0 : CC_NB) / CC_LANES;
        cc_v4 re[CC_NB / CC_LANES], im[CC_NB / CC_LANES];
        for (int64_t v = 0; v < nv; v++) re[v] = im[v] = (cc_v4){-0.0, -0.0, -0.0, -0.0};
        for (int64_t k = 0; k < K; k++) {
            double ar = a[2 * k], ai = a[2 * k + 1];
            cc_v4 var = {ar, ar, ar, ar}, vai = {ai, ai, ai, ai}, vnai = -vai;
            const double *br = Br + (size_t)k * (size_t)j->Np + n0, *bi = Bi + (size_t)k * (size_t)j->Np + n0;
            for (int64_t v = 0; v < nv; v++) {
                cc_v4 vbr, vbi;
                memcpy(&vbr, br + v * CC_LANES, sizeof vbr);
                memcpy(&vbi, bi + v * CC_LANES, sizeof vbi);
                re[v] += var * vbr;
                re[v] += vnai * vbi;
                im[v] += var * vbi;
                im[v] += vai * vbr;
            }
        }
        int64_t nn = j->N - n0 < CC_NB ? j->N - n0 : CC_NB;
        for (int64_t q = 0; q < nn; q++) {
            double E = j->c * na * j->nb[grp * j->N + n0 + q];
            float *o = c + (size_t)(n0 + q) * 2;
            if (!cc_settled(re[q / CC_LANES][q % CC_LANES], E, &o[0]) ||
                !cc_settled(im[q / CC_LANES][q % CC_LANES], E, &o[1]))
                cc_exact(j, r, n0 + q, o);
        }
    }
}

static void cc_row_base(const cc_job *j, int64_t r) { cc_row_body(j, r); }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void cc_row_avx2(const cc_job *j, int64_t r) { cc_row_body(j, r); }
#endif

static void cc_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const cc_job *j = ctx;
    for (uint64_t r = begin; r < end; r++) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (j->avx2) {
            cc_row_avx2(j, (int64_t)r);
            continue;
        }
#endif
        cc_row_base(j, (int64_t)r);
    }
}

/* The kernel split into planar double rows and its column norms, one
 * (group, k) row per index. */
typedef struct cc_pack {
    const float *B;
    double *Br, *Bi, *nb;
    int64_t K, N, Np;
} cc_pack;

static void cc_pack_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const cc_pack *p = ctx;
    for (uint64_t r = begin; r < end; r++) {
        rt_cplanar_row(p->B + (size_t)r * (size_t)p->N * 2, false, p->N, p->Np, p->Br + (size_t)r * (size_t)p->Np,
                       p->Bi + (size_t)r * (size_t)p->Np);
    }
}

bool rt_cconv_f32(rt_exec *x, const ir_op *op, const void *A, const void *B, void *C, int64_t G, int64_t M, int64_t K,
                  int64_t N, int64_t KI)
{
    int64_t Np = (N + CC_LANES - 1) / CC_LANES * CC_LANES;
    uint64_t bsz, nsz;
    if (__builtin_mul_overflow((uint64_t)(G * K), (uint64_t)Np * 2 * sizeof(double), &bsz) ||
        __builtin_mul_overflow((uint64_t)G, (uint64_t)N * sizeof(double), &nsz) || bsz > SIZE_MAX)
        return rt_fail(x, op, PLUMB_ERR_LIMIT, "complex kernel scratch size overflows (K = %lld, N = %lld)", (long long)K,
                       (long long)N);
    double *Br = rt_scratch(x, op, (size_t)bsz), *nb = rt_scratch(x, op, (size_t)nsz);
    if (!Br || !nb) return false;
    double *Bi = Br + (size_t)(G * K) * (size_t)Np;
    cc_pack pk = {B, Br, Bi, nb, K, N, Np};
    rt_parallel_for(x, (uint64_t)(G * K), 64, cc_pack_range, &pk);
    /* column norms: sums of squares in K order, one column at a time */
    for (int64_t g = 0; g < G; g++)
        for (int64_t n = 0; n < N; n++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++) {
                double r = Br[(size_t)(g * K + k) * (size_t)Np + (size_t)n], i = Bi[(size_t)(g * K + k) * (size_t)Np + (size_t)n];
                s += r * r;
                s += i * i;
            }
            nb[g * N + n] = sqrt(s);
        }
    /* γ(2K) = 2K·u/(1 - 2K·u), widened by 2^-10 for the norms' own
     * rounding (relative error about K·u each, K < 2^30 here) */
    cc_job j = {A, B, Br, Bi, nb, C, M, K, N, Np, KI, K / KI, 0, false};
    j.c = K < ((int64_t)1 << 30) ? (double)(2 * K + 4) * 0x1p-53 * (1 + 0x1p-10) : INFINITY;
    j.avx2 = rt_isa(x) >= PLUMB_ISA_AVX2;
    uint64_t per = (uint64_t)(K * N), grain = per >= 4096 ? 1 : 4096 / (per ? per : 1);
    rt_parallel_for(x, (uint64_t)(G * M), grain, cc_range, &j);
    return true;
}
