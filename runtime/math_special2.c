/* chlo.zeta, chlo.polygamma and chlo.bessel_i1e on the runtime: one x87
 * long double evaluation per element (64-bit significand) with a stated
 * relative error bound, rounded once to the element type when the bound
 * decides the rounding (Ziv's strategy), else the reference's correctly
 * rounded MPFR evaluation (ref/special2.c) for that element, as digamma
 * takes mpfr_digamma. docs/runtime-math.md has the bounds and the
 * measurements; tests/runtime/test_special2.c compares with the reference.
 *
 * The bounds are analytic in form (terms times units of 2^-64) with a
 * margin of 4x; they are checked against the reference's values rather
 * than proved operation by operation, so the runtime's contract is 1 ULP
 * (ops.def), and it is correctly rounded wherever the stated bound holds
 * (every element measured so far). */
#include <math.h>
#include <mpfr.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "rt_internal.h"
#include "rt_math.h"
#include "../ref/special2.h"

/* 2 zeta(2j) / (2 pi) = |B_2j| (2 pi)^(2j-1) / (2j)!, j = 1..SP2_EM_TERMS,
 * for the Euler-Maclaurin tail: filled once from MPFR (correctly rounded
 * zeta, 128 bits, then one rounding to long double). */
#define SP2_EM_TERMS 40
typedef struct { long double v[SP2_EM_TERMS + 1]; } bern_tab;
/* Published once by compare-and-swap, never freed: no lock and no
 * pthread_once, since certify forks workers at any moment and a child must
 * not inherit an initialization in progress. */
static _Atomic(bern_tab *) g_bern;

static const long double *bern(void)
{
    bern_tab *cur = atomic_load(&g_bern);
    if (cur)
        return cur->v;
    bern_tab *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    mpfr_t z, p;
    mpfr_inits2(128, z, p, (mpfr_ptr)0);
    t->v[0] = 0;
    for (int j = 1; j <= SP2_EM_TERMS; j++) {
        mpfr_zeta_ui(z, (unsigned long)(2 * j), MPFR_RNDN);
        mpfr_mul_2ui(z, z, 1, MPFR_RNDN);
        mpfr_const_pi(p, MPFR_RNDN);
        mpfr_mul_2ui(p, p, 1, MPFR_RNDN);
        mpfr_div(z, z, p, MPFR_RNDN);
        t->v[j] = mpfr_get_ld(z, MPFR_RNDN);
    }
    mpfr_clears(z, p, (mpfr_ptr)0);
    if (!atomic_compare_exchange_strong(&g_bern, &cur, t)) {
        free(t);   /* another thread's table (equal) is published */
        return cur->v;
    }
    return t->v;
}

static uint64_t to_t(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

static double from_t(plumb_dtype t, uint64_t b)
{
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)b);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)b);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)b);
    default: return plumb_f64_from_bits(b);
    }
}

static bool is_nan_t(plumb_dtype t, uint64_t b) { return isnan(from_t(t, b)); }

/* v within relative rel of the exact value: true (with *out) when every
 * value of [v - rel|v|, v + rel|v|] rounds to one value of t. For f32 and
 * f64 the ends round once from long double; for f16/bf16 they pass through
 * double, which is monotone, and rel >= 2^-50 keeps any f16/bf16 rounding
 * boundary near the exact value inside the rounded ends, so equal ends are
 * still the correct rounding. */
static bool decide(plumb_dtype t, long double v, long double rel, uint64_t *out)
{
    if (!isfinite(v) || v == 0)
        return false;
    long double e = fabsl(v) * rel, lo = v - e, hi = v + e;
    uint64_t a, b;
    switch (t) {
    case PLUMB_F64: a = plumb_f64_bits((double)lo); b = plumb_f64_bits((double)hi); break;
    case PLUMB_F32: a = plumb_f32_bits((float)lo); b = plumb_f32_bits((float)hi); break;
    default:
        if (rel < 0x1p-50L) {
            e = fabsl(v) * 0x1p-50L;
            lo = v - e;
            hi = v + e;
        }
        a = to_t(t, (double)lo);
        b = to_t(t, (double)hi);
        break;
    }
    if (a != b)
        return false;
    *out = a;
    return true;
}

/* ---- bessel_i1e ------------------------------------------------------------
 * |x| <= 24: the power series of I1 (positive terms, stopped below 2^-66 of
 * the sum with the term ratio < 1/2) times expl(-|x|): <= 60 terms, two
 * roundings each plus the sum's: relative error below (4n + 8) 2^-64 <=
 * 2^-55.8. |x| > 24: Hankel's expansion sum (-1)^k a_k / x^k (terms
 * decrease until k ~ 2|x| > 48, stopped below 2^-66; the remainder and the
 * dropped e^-2x part are below 2^-66) over sqrtl(2 pi |x|): below 2^-58.
 * Stated: 2^-54. */
#define RT_I1E_REL 0x1p-54L

static long double i1e_ld(long double ax)
{
    if (ax <= 24) {
        long double h = ax / 2, h2 = h * h, term = h, sum = h;
        for (int k = 0; k < 200; k++) {
            term *= h2 / ((long double)(k + 1) * (long double)(k + 2));
            sum += term;
            if (term < sum * 0x1p-66L && h2 < 0.5L * (long double)(k + 2) * (long double)(k + 3))
                break;
        }
        return sum * expl(-ax);
    }
    long double term = 1, sum = 1;
    for (int k = 1; k < 100; k++) {
        term *= -(4.0L - (long double)(2 * k - 1) * (long double)(2 * k - 1)) / (8.0L * (long double)k * ax);
        if (fabsl(term) < 0x1p-66L)
            break;
        sum += term;
    }
    return sum / sqrtl(2 * 3.14159265358979323846264338327950288L * ax);
}

static uint64_t i1e(plumb_dtype t, uint64_t xb)
{
    if (is_nan_t(t, xb))
        return cr_bessel_i1e(t, xb);   /* NaN quieted, as the reference */
    double x = from_t(t, xb);
    if (x == 0 || isinf(x))
        return cr_bessel_i1e(t, xb);   /* +-0 */
    long double v = i1e_ld(fabsl((long double)x));
    uint64_t r;
    if (decide(t, x < 0 ? -v : v, RT_I1E_REL, &r))
        return r;
    return cr_bessel_i1e(t, xb);
}

/* ---- the scaled Hurwitz zeta in long double -----------------------------------
 * Z(s, q) = q^s zeta(s, q) for s > 1, q > 0, as the reference does it
 * (ref/special2.c, zscaled): direct terms exp(-s log1p(k/q)) while q + k <
 * (s + 64)/pi unless their rest r_N (1 + (q+N)/(s-1)) falls below 2^-66,
 * then Euler-Maclaurin at a = q + N with at most SP2_EM_TERMS terms, each
 * term ratio below 1/4. Each direct term above 2^-66 has an exponent below
 * 46 in magnitude, so its relative error is below 50 2^-64; the sum of
 * positive terms adds one rounding per term. Returns -1 when the tail did
 * not converge within the table (never for s + 64 < 2 pi a, kept as a
 * guard). */
static long double zscaled_ld(const long double *g_b, long double s, long double q, int *terms)
{
    long double amin = (s + 64) / 3.14159265358979323846L, sum = 0, r = 1;
    long n = 0;
    for (;; n++) {
        r = n == 0 ? 1.0L : expl(-s * log1pl((long double)n / q));
        if (q + (long double)n >= amin)
            break;
        if (n > 0 && r * (1 + (q + (long double)n) / (s - 1)) < 0x1p-66L) {
            *terms = (int)n;
            return sum;
        }
        sum += r;
        if (n > 4096) {
            *terms = -1;
            return sum;
        }
    }
    long double a = q + (long double)n, tpa = 2 * 3.14159265358979323846264338327950288L * a;
    long double em = a / (s - 1) + 0.5L, c = s / tpa;
    int j;
    for (j = 1; j <= SP2_EM_TERMS; j++) {
        /* T_j = B_2j/(2j)! (s)_(2j-1) a^(1-2j) = (-1)^(j+1) 2 zeta(2j)/(2 pi) c_j,
         * c_j = (s)_(2j-1) / (2 pi a)^(2j-1) */
        long double tj = g_b[j] * c;
        if (j % 2 == 0)
            tj = -tj;
        if (fabsl(tj) * 4 < 0x1p-66L * em)
            break;
        em += tj;
        c *= (s + (long double)(2 * j - 1)) * (s + (long double)(2 * j)) / (tpa * tpa);
    }
    *terms = j > SP2_EM_TERMS ? -1 : (int)(n + j);
    return sum + r * em;
}

/* zeta(s, q) times e^F (F = log n! for polygamma), signed, in long double,
 * for q > 0: exp(F - s log q) Z(s, q). Relative error: Z's (terms + 8) 50
 * 2^-64, plus exp's argument error (|F| + 2|s log q| + 64) 2^-64. Returns
 * false outside long double's comfortable range (the reference decides). */
static bool zeta_ld(long double s, long double q, long double F, long double *v, long double *rel)
{
    const long double *b = bern();
    if (!b)
        return false;
    int terms;
    long double z = zscaled_ld(b, s, q, &terms);
    if (terms < 0 || !(z >= 1))
        return false;
    long double sl = s * logl(q), T = F - sl;
    if (!(fabsl(T) < 11000))
        return false;
    *v = expl(T) * z;
    *rel = 4 * ((long double)(terms + 8) * 50 + fabsl(F) + 2 * fabsl(sl) + 64) * 0x1p-64L;
    return isfinite(*v) && *v != 0;
}

static uint64_t zeta(plumb_dtype t, uint64_t xb, uint64_t qb)
{
    double x = from_t(t, xb), q = from_t(t, qb);
    long double v, rel;
    uint64_t r;
    /* the fast path: the ordinary domain x > 1, q > 0, both finite; every
     * special rule and q < 0 are the reference's */
    if (x > 1 && q > 0 && isfinite(x) && isfinite(q) && zeta_ld(x, q, 0, &v, &rel) &&
        decide(t, v, rel, &r))
        return r;
    return cr_zeta(t, xb, qb);
}

static uint64_t polygamma(plumb_dtype t, uint64_t nb, uint64_t xb)
{
    double n = from_t(t, nb), x = from_t(t, xb);
    long double v, rel;
    uint64_t r;
    if (n >= 1 && n <= 1e6 && n == floor(n) && x > 0 && isfinite(x)) {
        int sg;
        long double F = lgammal_r((long double)n + 1, &sg);   /* log n!, n + 1 exact */
        if (zeta_ld((long double)n + 1, x, F, &v, &rel)) {
            rel += 4 * fabsl(F) * 0x1p-63L;                   /* lgammal's own error */
            if (fmod(n, 2) == 0)
                v = -v;                                       /* (-1)^(n+1) */
            if (decide(t, v, rel, &r))
                return r;
        }
    }
    return cr_polygamma(t, nb, xb);
}

uint64_t rt_special2(plumb_opcode op, plumb_dtype t, uint64_t a, uint64_t b)
{
    switch (op) {
    case PLUMB_OP_BESSEL_I1E: return i1e(t, a);
    case PLUMB_OP_ZETA: return zeta(t, a, b);
    default: return polygamma(t, a, b);
    }
}
