/* CHLO's Hurwitz zeta, polygamma and exponentially scaled Bessel I1 in the
 * reference: chlo.zeta, chlo.polygamma, chlo.bessel_i1e, correctly rounded
 * in f16, bf16, f32 and f64 (docs/spec/special2.md has the rules, their
 * sources and the proofs).
 *
 * MPFR has none of the three (mpfr_zeta is Riemann's zeta only, and MPFR has
 * no modified Bessel function), so each is evaluated here with MPFR
 * arithmetic at a working precision w together with a bound on the
 * absolute error of the result, and rounded by Ziv's strategy: when the
 * enclosure [y - err, y + err] holds no rounding boundary of the target
 * (mpfr_can_round at the target's precision + 1 toward zero, which also
 * makes the ternary value right for the subnormal rounding), y rounds to
 * the correctly rounded result; otherwise w doubles. The error bounds count
 * every MPFR operation as one rounding (relative 2^-w each) and bound the
 * truncated tails of the series analytically (comments at each).
 *
 * None of the three is exact at a finite non-special operand (the special
 * cases are handled before the loop), so the loop ends; it stops at
 * SP2_MAX_PREC bits in any case and then returns the value rounded from the
 * last evaluation, counted by cr_special2_undecided() (no test input has
 * reached it).
 *
 * The exponent range is widened to MPFR's largest for the evaluation, so
 * q^-s, n! and their products do not overflow before the final rounding;
 * where even that range overflows, the result is decided beyond every
 * target's range (the argument is at each such place). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <mpfr.h>
#include <stdatomic.h>
#include <string.h>

#include "crmath.h"
#include "plumb/fp8.h"
#include "ref_internal.h"
#include "special2.h"

#define SP2_POLL 1024
#define SP2_MAX_PREC (1 << 15)
/* the error bound of an exact value */
#define SP2_EXACT ((mpfr_exp_t)LONG_MIN)

static atomic_ulong g_undecided;

unsigned long cr_special2_undecided(void) { return atomic_load(&g_undecided); }

/* MPFR's exponent range of t: the largest finite value lies below 2^emax,
 * the smallest subnormal is 2^(emin-1) (MPFR significands are in [1/2, 1)),
 * so emin is the exponent mpfr_subnormalize wants. */
static void range_of(plumb_dtype t, mpfr_exp_t *emin, mpfr_exp_t *emax, mpfr_prec_t *prec)
{
    const plumb_dtype_info *d = plumb_dtype_get(t);
    long bias = (1l << (d->exp_bits - 1)) - 1;
    *emax = bias + 1;
    *emin = -bias - (long)d->mant_bits + 2;
    *prec = (mpfr_prec_t)d->mant_bits + 1;
}

/* y (any exponent, not NaN) rounded once to t: y is taken as the value to
 * round (its ternary relative to the exact value is inex). */
static uint64_t round_to(plumb_dtype t, const mpfr_t y, int inex_y)
{
    mpfr_exp_t emin, emax, omin = mpfr_get_emin(), omax = mpfr_get_emax();
    mpfr_prec_t p;
    range_of(t, &emin, &emax, &p);
    mpfr_t r;
    mpfr_init2(r, p);
    int inex = mpfr_set(r, y, MPFR_RNDN);
    if (inex == 0)
        inex = inex_y;
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    inex = mpfr_check_range(r, inex, MPFR_RNDN);
    mpfr_subnormalize(r, inex, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);   /* exact: r has t's precision and range */
    mpfr_set_emin(omin);
    mpfr_set_emax(omax);
    mpfr_clear(r);
    return cr_from_double(t, d);
}

/* An evaluation: writes the value at precision w into y and returns the
 * base-2 exponent E of an absolute error bound 2^E (SP2_EXACT for exact). */
typedef mpfr_exp_t (*sp2_eval_fn)(mpfr_t y, mpfr_prec_t w, const void *arg);

/* A small float format's result (FP8/FP6/FP4/E8M0, ir/fp8.c): y, whose
 * rounding toward zero at the format's precision p + 1 is that of the
 * exact value and which lies on no (p + 1)-bit number (mpfr_can_round
 * fails on one), rounded to odd at 53 bits and then once by the format's
 * codec. Rounding to odd at 53 bits keeps the truncation at p + 1 bits
 * and a nonzero sticky bit below it, the two things the rounding to p
 * bits (or to the coarser grid of the format's subnormals, whose points
 * and midpoints are (p + 1)-bit numbers too) depends on; so the result is
 * the exact value's correct rounding (Boldo and Melquiond, IEEE TC 57(4),
 * 2008: 53 >= p + 2). exact: y is the exact value. */
static uint64_t small_odd(plumb_dtype t, const mpfr_t y, bool exact)
{
    double d = mpfr_get_d(y, MPFR_RNDZ);
    bool inexact = !exact || mpfr_cmp_d(y, d) != 0;
    if (inexact && isfinite(d)) {
        uint64_t b;
        memcpy(&b, &d, sizeof b);
        if ((b & 1) == 0)
            d = nextafter(d, mpfr_signbit(y) ? -INFINITY : INFINITY);
    }
    return cr_from_double(t, d);
}

/* Ziv's loop around an evaluation whose result is neither exactly
 * representable in t nor zero. On a small float format the loop decides
 * the rounding toward zero at its precision + 1 (small_odd) and takes f64's range for
 * its early decisions, which lie beyond every small format's range too. */
static uint64_t ziv(plumb_dtype t, sp2_eval_fn f, const void *arg)
{
    mpfr_exp_t omin = mpfr_get_emin(), omax = mpfr_get_emax();
    mpfr_exp_t emin, emax;
    mpfr_prec_t p;
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    bool small = sf != NULL;
    range_of(small ? PLUMB_F64 : t, &emin, &emax, &p);
    if (small)
        p = (mpfr_prec_t)sf->mant + 1;   /* the format's precision (f64's range) */
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t y;
    mpfr_init2(y, 64);
    uint64_t res = 0;
    for (mpfr_prec_t w = 2 * p + 40;; w *= 2) {
        mpfr_set_prec(y, w);
        mpfr_exp_t e = f(y, w, arg);
        if (mpfr_nan_p(y)) {
            res = cr_default_nan(t);
            break;
        }
        /* the widened range itself overflowed or underflowed (error
         * SP2_EXACT): the evaluations only do that where the result lies
         * beyond every target's range (see the callers). A zero from
         * cancellation (q < 0) decides only when its error bound is below a
         * quarter of t's smallest subnormal; otherwise w grows. */
        if (mpfr_inf_p(y) || (mpfr_zero_p(y) && (e == SP2_EXACT || e < emin - 2))) {
            res = cr_from_double(t, mpfr_inf_p(y) ? (mpfr_sgn(y) > 0 ? INFINITY : -INFINITY)
                                                  : (mpfr_signbit(y) ? -0.0 : 0.0));
            break;
        }
        if (mpfr_zero_p(y)) {
            if (w >= SP2_MAX_PREC) {
                atomic_fetch_add(&g_undecided, 1);
                res = cr_from_double(t, 0.0);
                break;
            }
            continue;
        }
        /* beyond t's range with room to spare (the error below half of |y|):
         * |y| >= 2^emax overflows, |y| < 2^(emin-2) (a quarter of the
         * smallest subnormal) rounds to zero. Deciding these here spares
         * results like 16^314 (1 + 15^-314) in f16 a precision of 2^11 bits. */
        if (e == SP2_EXACT || mpfr_get_exp(y) > e + 1) {
            if (mpfr_get_exp(y) > emax) {
                res = cr_from_double(t, mpfr_sgn(y) > 0 ? INFINITY : -INFINITY);
                break;
            }
            if (mpfr_get_exp(y) < emin - 2) {
                res = cr_from_double(t, mpfr_sgn(y) > 0 ? 0.0 : -0.0);
                break;
            }
        }
        if (e == SP2_EXACT || (mpfr_get_exp(y) > e &&
                                  mpfr_can_round(y, mpfr_get_exp(y) - e, MPFR_RNDN, MPFR_RNDZ, p + 1))) {
            res = small ? small_odd(t, y, e == SP2_EXACT) : 0;
            mpfr_set_emin(omin);
            mpfr_set_emax(omax);
            if (!small)
                res = round_to(t, y, 0);
            goto out;
        }
        if (w >= SP2_MAX_PREC) {
            atomic_fetch_add(&g_undecided, 1);
            res = small ? small_odd(t, y, false) : 0;
            mpfr_set_emin(omin);
            mpfr_set_emax(omax);
            if (!small)
                res = round_to(t, y, 0);
            goto out;
        }
    }
    mpfr_set_emin(omin);
    mpfr_set_emax(omax);
out:
    mpfr_clear(y);
    return res;
}

/* zeta(2j) for Euler-Maclaurin's coefficients: mpfr_zeta_ui costs tens of
 * microseconds at these precisions and every element wants dozens, so the
 * values are kept process-wide, computed at the largest precision asked for
 * so far (at least 512 bits) and handed out rounded to the caller's: two
 * roundings, within the two units per coefficient the error bounds below
 * count. No lock (certify forks its workers at any moment, and a child
 * must not inherit a held mutex): a table is immutable once published by
 * compare-and-swap; a larger one replaces it and keeps the older ones
 * reachable through prev (a few hundred numbers in all, never freed). */
typedef struct z2tab {
    struct z2tab *prev;
    long n;                   /* v[j] = zeta(2j), j = 1..n */
    mpfr_prec_t prec;
    mpfr_t v[];
} z2tab;
static _Atomic(z2tab *) g_z2;

static void zeta2j(mpfr_t out, long j)
{
    mpfr_prec_t p = mpfr_get_prec(out);
    z2tab *cur = atomic_load(&g_z2);
    while (!cur || j > cur->n || p > cur->prec) {
        long n = cur ? (j > 2 * cur->n ? j : 2 * cur->n) : (j > 64 ? j : 64);
        mpfr_prec_t np = cur ? (p > 2 * cur->prec ? p : 2 * cur->prec) : (p > 512 ? p : 512);
        z2tab *t = malloc(sizeof *t + sizeof(mpfr_t) * (size_t)(n + 1));
        if (!t) {   /* no table: compute this one directly */
            mpfr_zeta_ui(out, (unsigned long)(2 * j), MPFR_RNDN);
            return;
        }
        t->prev = cur;
        t->n = n;
        t->prec = np;
        for (long i = 1; i <= n; i++) {
            mpfr_init2(t->v[i], np);
            mpfr_zeta_ui(t->v[i], (unsigned long)(2 * i), MPFR_RNDN);
        }
        if (atomic_compare_exchange_strong(&g_z2, &cur, t)) {
            cur = t;
            break;
        }
        /* another thread published first: cur now holds its table; retry */
        for (long i = 1; i <= n; i++)
            mpfr_clear(t->v[i]);
        free(t);
    }
    mpfr_set(out, cur->v[j], MPFR_RNDN);
}

/* ceil(log2(x)) for x >= 1, as an exponent offset. */
static mpfr_exp_t clog2(double x) { return x <= 1 ? 0 : (mpfr_exp_t)ceil(log2(x)); }

/* ---- the scaled Hurwitz zeta ------------------------------------------------
 * Z(s, q) = q^s zeta(s, q) = sum_{k>=0} (q / (q + k))^s for s > 1, q > 0:
 * Z >= 1 (its first term), and Z <= 1 + q/(s - 1) + ... is moderate, so the
 * scaling keeps every term in range whatever s. Terms (q/(q+k))^s are
 * computed as exp(-s log1p(k/q)): relative error <= (3 s L + 3) 2^-w with
 * s L = -log(term); only terms above 2^-(w+8) matter and for them s L <
 * (w + 8) log 2, so each term is within (3w + 30) 2^-w relative.
 *
 * Direct terms are added while a = q + N is below (s + w)/pi; the sum stops
 * early when the rest is below the integral bound
 *   sum_{k>=N} (q/(q+k))^s <= r_N (1 + (q + N)/(s - 1)),  r_N = (q/(q+N))^s,
 * is below 2^-(w+4). Otherwise the tail q^s zeta(s, a) is Euler-Maclaurin's
 *   r_N [a/(s-1) + 1/2 + sum_{j=1..M} T_j],
 *   T_j = B_2j/(2j)! (s)_(2j-1) a^(1-2j)
 *       = (-1)^(j+1) 2 zeta(2j) (s)_(2j-1) / (2 pi a)^(2j-1) / (2 pi)
 * ((s)_m the rising factorial), whose remainder after M terms is at most
 * 4 |T_(M+1)| r_N for real s > 1 (the bound of Johansson, "Rigorous
 * high-precision computation of the Hurwitz zeta function", 2015, Theorem 1,
 * with its factor (s + 2M + 1)/(s + 2M + 1) = 1, taken 4x). With
 * a >= (s + w)/pi the ratio |T_(j+1)/T_j| <= ((s + 2j)/(2 pi a))^2 stays
 * below 1/4 for 2j <= w, so M <= w terms suffice. Returns the error bound's
 * exponent; *abs_sum receives sum |parts| (for the caller's error sums). */
static mpfr_exp_t zscaled(mpfr_t z, mpfr_prec_t w, const mpfr_t s, const mpfr_t q)
{
    mpfr_t term, a, tmp, sum, em, c, tpa, pi2;
    mpfr_inits2(w + 16, term, a, tmp, sum, em, c, tpa, pi2, (mpfr_ptr)0);
    double sd = mpfr_get_d(s, MPFR_RNDN), qd = mpfr_get_d(q, MPFR_RNDN);
    double wd = (double)w;
    double amin = (sd + wd) / 3.14159;
    mpfr_set_ui(sum, 0, MPFR_RNDN);
    long n = 0;
    bool direct_done = false;
    double cap = 1e7;                          /* a safety cap, never reached (see above) */
    for (;; n++) {
        /* r_n = (q/(q+n))^s */
        if (n == 0) {
            mpfr_set_ui(term, 1, MPFR_RNDN);
        } else {
            mpfr_set_ui(tmp, (unsigned long)n, MPFR_RNDN);
            mpfr_div(tmp, tmp, q, MPFR_RNDN);
            mpfr_log1p(tmp, tmp, MPFR_RNDN);
            mpfr_mul(tmp, tmp, s, MPFR_RNDN);
            mpfr_neg(tmp, tmp, MPFR_RNDN);
            mpfr_exp(term, tmp, MPFR_RNDN);
        }
        if (qd + (double)n >= amin || (double)n >= cap)
            break;
        /* the rest from n on: r_n (1 + (q+n)/(s-1)) */
        mpfr_set_d(tmp, qd + (double)n, MPFR_RNDU);
        mpfr_sub_ui(a, s, 1, MPFR_RNDD);
        mpfr_div(tmp, tmp, a, MPFR_RNDU);
        mpfr_add_ui(tmp, tmp, 1, MPFR_RNDU);
        mpfr_mul(tmp, tmp, term, MPFR_RNDU);
        if (n > 0 && (mpfr_zero_p(tmp) || mpfr_get_exp(tmp) < -(mpfr_exp_t)w - 4 + 1)) {
            direct_done = true;
            break;
        }
        mpfr_add(sum, sum, term, MPFR_RNDN);
    }
    /* error so far: each of n terms (3w+40) 2^-w relative and one addition
     * each; Z >= 1 and the terms are positive, so relative to Z */
    mpfr_exp_t e_sum = clog2((double)(n + 2) * (3 * wd + 42)) - (mpfr_exp_t)w;
    if (direct_done) {
        /* plus the rest, below 2^-(w+4) <= 2^-(w+4) Z */
        mpfr_set(z, sum, MPFR_RNDN);
        mpfr_exp_t e = mpfr_get_exp(z) + e_sum + 1;
        mpfr_clears(term, a, tmp, sum, em, c, tpa, pi2, (mpfr_ptr)0);
        return e;
    }
    /* Euler-Maclaurin at a = q + n; term holds r_n */
    mpfr_set_ui(a, (unsigned long)n, MPFR_RNDN);
    mpfr_add(a, a, q, MPFR_RNDN);
    mpfr_sub_ui(tmp, s, 1, MPFR_RNDN);
    mpfr_div(em, a, tmp, MPFR_RNDN);             /* a/(s-1) */
    mpfr_add_d(em, em, 0.5, MPFR_RNDN);
    mpfr_const_pi(pi2, MPFR_RNDN);
    mpfr_mul_2ui(pi2, pi2, 1, MPFR_RNDN);        /* 2 pi */
    mpfr_mul(tpa, pi2, a, MPFR_RNDN);            /* 2 pi a */
    mpfr_div(c, s, tpa, MPFR_RNDN);              /* c_1 = s / (2 pi a) */
    mpfr_t zz;
    mpfr_init2(zz, w + 16);
    double last = 0;
    long j;
    for (j = 1; j <= (long)w; j++) {
        /* T_j = (-1)^(j+1) 2 zeta(2j) c_j / (2 pi) */
        zeta2j(zz, j);
        mpfr_mul(tmp, zz, c, MPFR_RNDN);
        mpfr_mul_2ui(tmp, tmp, 1, MPFR_RNDN);
        mpfr_div(tmp, tmp, pi2, MPFR_RNDN);
        if (j % 2 == 0)
            mpfr_neg(tmp, tmp, MPFR_RNDN);
        last = fabs(mpfr_get_d(tmp, MPFR_RNDN));
        /* stop before adding T_j when 4 |T_j| r_n < 2^-(w+4) (it is then the remainder bound) */
        mpfr_mul(zz, tmp, term, MPFR_RNDN);
        if (mpfr_zero_p(zz) || mpfr_get_exp(zz) + 2 < -(mpfr_exp_t)w - 4)
            break;
        mpfr_add(em, em, tmp, MPFR_RNDN);
        /* c_(j+1) = c_j (s + 2j - 1)(s + 2j) / (2 pi a)^2 */
        mpfr_add_ui(zz, s, (unsigned long)(2 * j - 1), MPFR_RNDN);
        mpfr_mul(c, c, zz, MPFR_RNDN);
        mpfr_add_ui(zz, s, (unsigned long)(2 * j), MPFR_RNDN);
        mpfr_mul(c, c, zz, MPFR_RNDN);
        mpfr_div(c, c, tpa, MPFR_RNDN);
        mpfr_div(c, c, tpa, MPFR_RNDN);
    }
    (void)last;
    mpfr_clear(zz);
    bool converged = j <= (long)w;
    mpfr_mul(em, em, term, MPFR_RNDN);
    mpfr_add(z, sum, em, MPFR_RNDN);
    /* the EM part: about 8 roundings per T_j on factors that grow by one
     * rounding per step (c_j carries 4j roundings), a/(s-1) and r_n; all
     * parts are at most a few times Z (the T_j decrease geometrically below
     * a/(s-1) + 1/2), so 2^-w (8 j^2 + 3w + 60) relative to 4 Z bounds
     * them, plus the remainder below 2^-(w+4) */
    double ops = (double)(n + 2) * (3 * wd + 42) + 4 * (8.0 * (double)j * (double)j + 3 * wd + 60) + 1;
    mpfr_exp_t e = mpfr_get_exp(z) + clog2(ops) - (mpfr_exp_t)w + 1;
    if (!converged)
        e = mpfr_get_exp(z) + 4;                 /* no bound: Ziv retries at a higher precision */
    mpfr_clears(term, a, tmp, sum, em, c, tpa, pi2, (mpfr_ptr)0);
    (void)sd;
    return e;
}

/* F + log|value|: the scaled zeta at base b > 0 gives
 * zeta(s, b) = exp(-s log b) Z(s, b). Writes sign * exp(F - s log b) Z into y
 * and returns its absolute error bound's exponent. F (n!'s logarithm for
 * polygamma, 0 for zeta) carries relative error 2^-w. */
static mpfr_exp_t zeta_part(mpfr_t y, mpfr_prec_t w, const mpfr_t s, const mpfr_t b, const mpfr_t F, int sign)
{
    mpfr_t z, l, big;
    mpfr_inits2(w + 16, z, l, big, (mpfr_ptr)0);
    mpfr_exp_t ez = zscaled(z, w, s, b);
    mpfr_log(l, b, MPFR_RNDN);
    mpfr_mul(l, l, s, MPFR_RNDN);                /* s log b: relative error 2 2^-w */
    mpfr_sub(l, F, l, MPFR_RNDN);                /* exponent T, absolute error (|F| + 2|s log b| + |T|) 2^-w */
    double mag = fabs(mpfr_get_d(F, MPFR_RNDN)) + 3 * fabs(mpfr_get_d(l, MPFR_RNDN)) + 4;
    mpfr_exp(big, l, MPFR_RNDN);
    mpfr_mul(y, big, z, MPFR_RNDN);
    if (sign < 0)
        mpfr_neg(y, y, MPFR_RNDN);
    mpfr_exp_t e;
    if (mpfr_zero_p(y) || mpfr_inf_p(y)) {
        e = SP2_EXACT;
    } else {
        /* relative: exp's argument error (mag 2^-w + 2^-w) gives e^that - 1
         * <= 2 mag 2^-w; Z's relative error 2^(ez - EXP(z)); two roundings */
        mpfr_exp_t rel_z = ez - mpfr_get_exp(z) + 1;
        mpfr_exp_t rel_t = clog2(2 * mag + 8) - (mpfr_exp_t)w;
        e = mpfr_get_exp(y) + (rel_z > rel_t ? rel_z : rel_t) + 1;
    }
    mpfr_clears(z, l, big, (mpfr_ptr)0);
    return e;
}

/* The exponent of one rounding's error on y at precision w (y finite). */
static mpfr_exp_t rounding_err(const mpfr_t y, mpfr_prec_t w)
{
    return mpfr_zero_p(y) || !mpfr_number_p(y) ? SP2_EXACT : mpfr_get_exp(y) - (mpfr_exp_t)w;
}

/* 2^a + 2^b bounded by 2^(max + 1). */
static mpfr_exp_t esum(mpfr_exp_t a, mpfr_exp_t b)
{
    if (a == SP2_EXACT)
        return b;
    if (b == SP2_EXACT)
        return a;
    return (a > b ? a : b) + 1;
}

typedef struct zarg {
    double s;         /* s (plus one when plus1: polygamma's n + 1, exact in MPFR) */
    bool plus1;
    double q;         /* finite: q > 0, or q < 0 not an integer with s an integer */
    double n;         /* polygamma's order (F = log n!, sign (-1)^(n+1)); negative for zeta */
} zarg;

/* F = log(n!) (n >= 1 an integer) or 0. */
static void logfact(mpfr_t F, double n)
{
    if (n < 0) {
        mpfr_set_ui(F, 0, MPFR_RNDN);
        return;
    }
    mpfr_t n1;
    mpfr_init2(n1, 1100);              /* n + 1 exact: n < 2^1024 */
    mpfr_set_d(n1, n, MPFR_RNDN);
    mpfr_add_ui(n1, n1, 1, MPFR_RNDN);
    mpfr_lngamma(F, n1, MPFR_RNDN);
    mpfr_clear(n1);
}

/* zeta(s, q) (times n! (-1)^(n+1) for polygamma). For q < 0 (not an
 * integer; s an integer), with m = ceil(-q) and f = q + m in (0, 1):
 *   sum_{k<m} (q+k)^-s = (-1)^s sum_{j=1..m} (j - f)^-s
 *                      = (-1)^s [zeta(s, 1 - f) - zeta(s, m + 1 - f)]
 * so zeta(s, q) = (-1)^s [zeta(s, 1-f) - zeta(s, m+1-f)] + zeta(s, f), three
 * positive-base parts; at f = 1/2 the first and last bases coincide and
 * their sum is (1 + (-1)^s) zeta(s, 1/2) exactly. */
static mpfr_exp_t zeta_eval(mpfr_t y, mpfr_prec_t w, const void *argp)
{
    const zarg *A = argp;
    mpfr_t s, q, F, part, b;
    /* s, q: doubles, and s + 1 below 2^1024: exact in 1100 bits only when
     * s is huge, so the width follows s's exponent; the bases f, 1 - f and
     * m + 1 - f are multiples of ulp(q) below 2^54: 64 bits plus the
     * binades q lies below 1 */
    int eq = 0, es = 0;
    (void)frexp(A->q, &eq);
    (void)frexp(A->s, &es);
    mpfr_prec_t pb = 64 + (eq < 0 ? (mpfr_prec_t)(53 - eq) : 0);
    mpfr_init2(s, 64 + (A->plus1 && es > 53 ? (mpfr_prec_t)es : 0));
    mpfr_init2(q, 64);
    mpfr_init2(b, pb);
    mpfr_inits2(w + 16, F, part, (mpfr_ptr)0);
    mpfr_set_d(s, A->s, MPFR_RNDN);
    if (A->plus1)
        mpfr_add_ui(s, s, 1, MPFR_RNDN);           /* exact */
    mpfr_set_d(q, A->q, MPFR_RNDN);
    int sign = 1;
    if (A->n >= 0 && fmod(A->n, 2) == 0)
        sign = -1;                                 /* (-1)^(n+1) */
    logfact(F, A->n);
    mpfr_exp_t e;
    if (A->q > 0) {
        e = zeta_part(y, w, s, q, F, sign);
    } else {
        double m = ceil(-A->q);
        int ps = (fmod(A->s, 2) == 0) != A->plus1 ? 1 : -1;   /* (-1)^s */
        mpfr_t f;
        mpfr_init2(f, pb);
        mpfr_add_d(f, q, m, MPFR_RNDN);            /* exact */
        mpfr_set_ui(y, 0, MPFR_RNDN);
        e = SP2_EXACT;
        if (mpfr_cmp_d(f, 0.5) == 0) {
            if (ps > 0) {
                e = zeta_part(part, w, s, f, F, sign);
                mpfr_mul_2ui(y, part, 1, MPFR_RNDN);
                e = e == SP2_EXACT ? e : e + 1;
            }
        } else {
            e = zeta_part(y, w, s, f, F, sign);
            mpfr_ui_sub(b, 1, f, MPFR_RNDN);       /* exact */
            mpfr_exp_t e2 = zeta_part(part, w, s, b, F, sign * ps);
            if (mpfr_inf_p(y) || mpfr_inf_p(part)) {
                /* the widened range overflowed: the smaller base dominates
                 * (its part is larger by (b_max/b_min)^s, beyond 2^(2^60)) */
                if (!(mpfr_inf_p(y) && mpfr_cmp_d(f, 0.5) < 0))
                    mpfr_set(y, part, MPFR_RNDN);
                goto done;
            }
            mpfr_add(y, y, part, MPFR_RNDN);
            e = esum(esum(e, e2), rounding_err(y, w));
        }
        if (mpfr_inf_p(y))
            goto done;                             /* the third part is smaller still */
        mpfr_d_sub(b, m + 1, f, MPFR_RNDN);        /* m + 1 - f, exact (m < 2^53) */
        mpfr_exp_t e3 = zeta_part(part, w, s, b, F, -sign * ps);
        if (mpfr_inf_p(part)) {                    /* then so were the larger parts */
            mpfr_set(y, part, MPFR_RNDN);
            goto done;
        }
        mpfr_add(y, y, part, MPFR_RNDN);
        e = esum(esum(e, e3), rounding_err(y, w));
    done:
        mpfr_clear(f);
    }
    mpfr_clears(s, q, b, F, part, (mpfr_ptr)0);
    return e;
}

static bool is_int(double x) { return isfinite(x) && x == floor(x); }

/* ---- chlo.zeta ----------------------------------------------------------- */
uint64_t cr_zeta(plumb_dtype t, uint64_t xb, uint64_t qb)
{
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    if (cr_is_nan(t, qb))
        return cr_quiet(t, qb);
    double x = cr_to_double(t, xb), q = cr_to_double(t, qb);
    if (x == 1)
        return cr_from_double(t, INFINITY);           /* the harmonic series */
    if (q <= 0 && (q == floor(q))) {                  /* a pole (q = -inf included) */
        bool even = is_int(x) && fmod(x, 2) == 0;
        return even ? cr_from_double(t, INFINITY) : cr_default_nan(t);
    }
    if (q <= 0 && !is_int(x))
        return cr_default_nan(t);                     /* x = +inf included: no parity */
    if (!(x > 1))
        return cr_default_nan(t);
    if (isinf(q))
        return cr_from_double(t, 0.0);                /* every term vanishes */
    if (isinf(x))                                     /* q > 0: q^-inf decides */
        return cr_from_double(t, q < 1 ? INFINITY : q == 1 ? 1.0 : 0.0);
    zarg A = {x, false, q, -1};
    return ziv(t, zeta_eval, &A);
}

/* ---- chlo.polygamma ------------------------------------------------------ */
uint64_t cr_polygamma(plumb_dtype t, uint64_t nb, uint64_t xb)
{
    if (cr_is_nan(t, nb))
        return cr_quiet(t, nb);
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    double n = cr_to_double(t, nb), x = cr_to_double(t, xb);
    if (!is_int(n) || n < 0)
        return cr_default_nan(t);                     /* not a natural number (+inf included) */
    if (n == 0)
        return cr_unary(CR_DIGAMMA, t, xb);
    bool odd = fmod(n, 2) == 1;
    if (x == 0) {
        /* the one-sided limits (-1)^(n+1) n! / x^(n+1), as digamma's at +-0 */
        if (odd)
            return cr_from_double(t, INFINITY);
        return cr_from_double(t, signbit(x) ? INFINITY : -INFINITY);
    }
    if (x < 0 && x == floor(x))                       /* a pole, -inf included */
        return odd ? cr_from_double(t, INFINITY) : cr_default_nan(t);
    if (isinf(x))
        return cr_from_double(t, odd ? 0.0 : -0.0);
    zarg A = {n, true, x, n};                         /* s = n + 1, formed exactly in MPFR */
    return ziv(t, zeta_eval, &A);
}

/* ---- chlo.bessel_i1e ------------------------------------------------------
 * e^-|x| I1(x) for x != 0 finite. I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!)
 * below |x| = w (all terms positive; the ratio of consecutive terms is
 * (x/2)^2 / ((k+1)(k+2)), so once it is below 1/2 the rest is below the last
 * term; stop when a term is below 2^-(w+4) of the sum), then times
 * exp(-|x|). From |x| = w on, Hankel's expansion
 *   e^-x I1(x) = (2 pi x)^-1/2 sum_k (-1)^k a_k / x^k,
 *   a_0 = 1, a_k = a_(k-1) (4 - (2k-1)^2) / (8k)   (DLMF 10.40.1, nu = 1),
 * dropping the exponentially small e^-2x companion (below 2^-(2w)); its
 * terms decrease while k < 2x, and the remainder is bounded by 2 |first
 * omitted term| (DLMF 10.40.10 with 10.40.11's factor below 2 on the real
 * axis), taken when that is below 2^-(w+4) of the sum. */
static mpfr_exp_t i1e_eval(mpfr_t y, mpfr_prec_t w, const void *argp)
{
    double x = *(const double *)argp, ax = fabs(x);
    mpfr_t h, h2, term, sum, tmp;
    mpfr_inits2(w + 16, h, h2, term, sum, tmp, (mpfr_ptr)0);
    long k;
    double ops;
    if (ax < (double)w) {
        mpfr_set_d(h, ax, MPFR_RNDN);
        mpfr_div_2ui(h, h, 1, MPFR_RNDN);          /* x/2, exact */
        mpfr_sqr(h2, h, MPFR_RNDN);
        mpfr_set(term, h, MPFR_RNDN);
        mpfr_set(sum, h, MPFR_RNDN);
        for (k = 0;; k++) {
            mpfr_mul(term, term, h2, MPFR_RNDN);
            mpfr_div_ui(term, term, (unsigned long)((k + 1) * (k + 2)), MPFR_RNDN);
            mpfr_add(sum, sum, term, MPFR_RNDN);
            double ratio = (ax / 2) * (ax / 2) / ((double)(k + 2) * (double)(k + 3));
            if (ratio < 0.5 && mpfr_get_exp(term) < mpfr_get_exp(sum) - (mpfr_exp_t)w - 4)
                break;
        }
        mpfr_set_d(tmp, -ax, MPFR_RNDN);
        mpfr_exp(tmp, tmp, MPFR_RNDN);
        mpfr_mul(y, sum, tmp, MPFR_RNDN);
        /* term k carries 3(k+1) roundings, the sum one per term: all positive,
         * so relative 2^-w (4k + 8) for the sum, plus exp and the product */
        ops = 4.0 * (double)k + 16;
    } else {
        mpfr_set_ui(term, 1, MPFR_RNDN);
        mpfr_set_ui(sum, 1, MPFR_RNDN);
        mpfr_set_d(h, ax, MPFR_RNDN);
        for (k = 1;; k++) {
            /* (-1)^k a_k / a_(k-1) = -(4 - (2k-1)^2) / (8k): exact in double */
            double c = -(4.0 - (double)(2 * k - 1) * (double)(2 * k - 1)) / (8.0 * (double)k);
            mpfr_mul_d(term, term, c, MPFR_RNDN);
            mpfr_div(term, term, h, MPFR_RNDN);
            if (mpfr_get_exp(term) + 1 < mpfr_get_exp(sum) - (mpfr_exp_t)w - 4)
                break;                                  /* 2 |term| is the remainder bound */
            mpfr_add(sum, sum, term, MPFR_RNDN);
        }
        mpfr_const_pi(tmp, MPFR_RNDN);
        mpfr_mul_2ui(tmp, tmp, 1, MPFR_RNDN);
        mpfr_mul(tmp, tmp, h, MPFR_RNDN);
        mpfr_rec_sqrt(tmp, tmp, MPFR_RNDN);
        mpfr_mul(y, sum, tmp, MPFR_RNDN);
        /* the sum: terms alternate but decrease fast from 1 (|a_1/x| <= 3/(8w)),
         * so sum >= 1/2 and sum |terms| <= 2: relative 2^-w (6k + 16) */
        ops = 6.0 * (double)k + 24;
    }
    if (x < 0)
        mpfr_neg(y, y, MPFR_RNDN);
    mpfr_exp_t e = mpfr_get_exp(y) + clog2(ops) - (mpfr_exp_t)w + 1;
    mpfr_clears(h, h2, term, sum, tmp, (mpfr_ptr)0);
    return e;
}

uint64_t cr_bessel_i1e(plumb_dtype t, uint64_t xb)
{
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    double x = cr_to_double(t, xb);
    if (x == 0)
        return xb;                                     /* odd: +-0 */
    if (isinf(x))
        return cr_from_double(t, x > 0 ? 0.0 : -0.0);  /* ~ (2 pi |x|)^-1/2 -> 0 */
    return ziv(t, i1e_eval, &x);
}

/* ---- the kernels -------------------------------------------------------------- */
static bool sp2_types(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, int arity)
{
    plumb_dtype t = in[0]->dtype;
    if (op->n_operands != (uint32_t)arity || op->n_results != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "expected %d operand(s) and one result", arity);
    for (int k = 0; k < arity; k++)
        if (plumb_tensor_numel(in[k]) != plumb_tensor_numel(out[0]) || in[k]->dtype != t)
            return ref_fail(c, op, PLUMB_ERR_INVALID,
                            "operand %d must have the result's element count and element type", k);
    if ((t != PLUMB_F16 && t != PLUMB_BF16 && t != PLUMB_F32 && t != PLUMB_F64 && !plumb_fpfmt_get(t)) ||
        out[0]->dtype != t)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "element type %s is not supported by %s",
                        plumb_dtype_name(t), plumb_op_name(op->code));
    return true;
}

/* The elementwise loop of a binary function of this file: f on each pair
 * of operand bits, polling for the timeout every SP2_POLL elements. */
static bool sp2_binary(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out,
                       uint64_t (*f)(plumb_dtype, uint64_t, uint64_t))
{
    plumb_dtype t = in[0]->dtype;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (i && i % SP2_POLL == 0 && !ref_poll(c, op))
            return false;
        plumb_store_bits(t, out[0]->data, i, f(t, plumb_load_bits(t, in[0]->data, i), plumb_load_bits(t, in[1]->data, i)));
    }
    return true;
}

/* chlo.zeta(x, q): Hurwitz's zeta sum_k (q + k)^-x, correctly rounded.
 * x = 1 -> +inf; q a non-positive integer (a pole) -> +inf for an even
 * integer x, else NaN; q <= 0 with x not an integer -> NaN; x < 1 -> NaN;
 * otherwise x > 1 and the sum (q < 0: the continuation over the integers
 * s). NaN operands quieted, x's first. docs/spec/special2.md. */
bool ref_op_ZETA(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!sp2_types(c, op, in, out, 2))
        return false;
    return sp2_binary(c, op, in, out, cr_zeta);
}

/* chlo.polygamma(n, x): the n-th derivative of digamma, (-1)^(n+1) n!
 * zeta(n + 1, x) for a natural n >= 1, digamma(x) for n = 0, NaN for any
 * other n; poles at the non-positive integers (+inf for odd n, NaN for even
 * n, the signed limit at +-0). docs/spec/special2.md. */
bool ref_op_POLYGAMMA(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!sp2_types(c, op, in, out, 2))
        return false;
    return sp2_binary(c, op, in, out, cr_polygamma);
}

/* chlo.bessel_i1e(x) = e^-|x| I1(x): odd, +-0 at +-0 and at +-inf, NaN
 * quieted. docs/spec/special2.md. */
bool ref_op_BESSEL_I1E(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    if (!sp2_types(c, op, in, out, 1))
        return false;
    plumb_dtype t = in[0]->dtype;
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (i && i % SP2_POLL == 0 && !ref_poll(c, op))
            return false;
        plumb_store_bits(t, out[0]->data, i, cr_bessel_i1e(t, plumb_load_bits(t, in[0]->data, i)));
    }
    return true;
}
