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
 * last evaluation, counted by cr_special2_undecided() (values like
 * zeta(2^40, 1) = 1 + 2^(-2^40) reached it before lead_dyadic decided them).
 *
 * The exponent range is widened to MPFR's largest for the evaluation, so
 * q^-s, n! and their products do not overflow before the final rounding;
 * where even that range overflows, the result is decided beyond every
 * target's range (the argument is at each such place). */
#include <float.h>
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

/* A small format's thresholds (small_beyond, small_range): every value of
 * magnitude >= 2^hi overflows it, every one below 2^lo rounds as a zero. */
static void small_limits(const plumb_fpfmt *sf, long *hi, long *lo)
{
    double minpos = sf->nan == PLUMB_FPNAN_E8M0 ? ldexp(1.0, -sf->bias) : ldexp(1.0, 1 - sf->bias - sf->mant);
    *hi = (long)ilogb(plumb_small_max(sf)) + 1;
    *lo = (long)ilogb(minpos) - 1;
}

/* A small format's result decided by its magnitude alone: y (nonzero,
 * within f64's range) approximates the exact value v with an error of at
 * most 2^(E-2), E = EXP(y) (|y| in [2^(E-1), 2^E)), so v has y's sign and
 * 2^(E-2) <= |v| < 2^(E+1). The format (ir/fp8.c) rounds every |v| >=
 * 2^hi, hi = ilogb(largest finite) + 1, to its overflow result (the largest
 * finite value lies below 2^hi by at least an ulp, so 2^hi is beyond it
 * plus half an ulp), and every |v| below 2^lo, lo = ilogb(smallest positive)
 * - 1, to its result for a zero of v's sign (below half the smallest
 * positive value; E8M0, without zero, rounds every positive value below
 * 2^-127 to 2^-127 and every negative one to NaN). Both results depend on
 * nothing but v's sign, and the rounding to odd in small_odd keeps a
 * value's sign and its side of a double such as 2^hi, so the result is the
 * codec's for the double +-2^hi or +-2^(lo-1): what small_odd would return
 * once Ziv had decided v's rounding at the format's precision + 1. True with
 * *res set when v is decided so. */
static bool small_beyond(plumb_dtype t, const plumb_fpfmt *sf, const mpfr_t y, uint64_t *res)
{
    long hi, lo;
    small_limits(sf, &hi, &lo);
    long E = (long)mpfr_get_exp(y);
    double sign = mpfr_sgn(y) > 0 ? 1.0 : -1.0;
    if (E - 2 >= hi) {
        *res = cr_from_double(t, sign * ldexp(1.0, (int)hi));
        return true;
    }
    if (E + 1 <= lo) {
        *res = cr_from_double(t, sign * ldexp(1.0, (int)lo - 1));
        return true;
    }
    return false;
}

/* Ziv's loop around an evaluation whose result is neither exactly
 * representable in t nor zero. On a small float format the loop decides
 * the rounding toward zero at its precision + 1 (small_odd) and takes f64's range for
 * its early decisions, which lie beyond every small format's range too,
 * and then the format's own (small_beyond). */
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
            /* within f64's range but beyond the small format's: see
             * small_beyond. Without this a result like 2^1016 (1 + 2^-1016)
             * (zeta(8, 2^-127) in f8E8M0FNU) costs Ziv 2^11 bits to round
             * at the format's precision, and then overflows it anyway. */
            if (small && small_beyond(t, sf, y, &res))
                break;
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

/* A small format's result decided before any evaluation, for q > 0 and
 * s > 1 (s = n + 1 when plus1; n >= 1 for polygamma, else n < 0): the
 * value sign F q^-s Z of zeta_part, F = n! or 1, has
 *   1 <= Z <= 1 + r_1 (1 + (q + 1)/(s - 1)) <= 2 + (q + 1)/(s - 1)
 * (zscaled's integral bound, r_1 <= 1), and for n >= 1 Robbins' bounds
 * (Amer. Math. Monthly 62, 1955) give
 *   (n + 1/2) log n - n + log(2 pi)/2 < log n! < the same + 1/(12 n),
 * so log|V| lies between
 *   log F_lo - s log q  and  log F_hi - s log q + log(2 + (q + 1)/(s - 1)),
 * computed at 64 bits in directed rounding (one correctly rounded log each
 * of q and n, the other direction one ulp away; log Z's bound from its
 * binary exponent). Beyond small_beyond's thresholds the result is the
 * codec's for +-2^hi or +-2^(lo-1), as there, which is what the loop
 * returns after an evaluation (its f64-range decisions included: the codec
 * takes +-inf and +-0 as it takes those doubles). The one exception is a
 * negative value on f8E8M0FNU: the loop rounds one below 2^-1076 as -0
 * (to 2^-127) and a larger one to NaN, so here -0's result is taken below
 * 2^-1080, NaN above 2^-1070, and the loop decides between.
 *
 * q < 0 (not an integer, s an integer >= 2): overflow only. With d the
 * distance from q to its nearest integer, d <= 1/4, the nearest term
 * (q + j)^-s has magnitude d^-s, and every other base's magnitude is a
 * distinct one of i - d or i + d (i >= 1), so the other terms add up to at
 * most 2 zeta(s, 1 - d) <= 2 (1 - d)^-s (1 + (1 - d)/(s - 1)) <= 4 (d/(1-d))^s
 * d^-s <= (4/9) d^-s: |V| >= F d^-s / 2 with the nearest term's sign,
 * negative when q + j < 0 and s is odd. */
static bool small_range(plumb_dtype t, double s, bool plus1, double q, double n, int sign, uint64_t *res)
{
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    long hi, lo;
    small_limits(sf, &hi, &lo);
    bool neg_q = q < 0;
    if (neg_q) {
        double d = q - nearbyint(q);                  /* exact, in [-1/2, 1/2] */
        bool s_odd = plus1 ? fmod(n, 2) == 0 : fmod(s, 2) == 1;
        if (fabs(d) > 0.25)
            return false;
        if (d < 0 && s_odd)
            sign = -sign;
        q = fabs(d);
    }
    mpfr_t s_lo, s_hi, lq_lo, lq_hi, f_lo, f_hi, z, u;
    mpfr_inits2(64, s_lo, s_hi, lq_lo, lq_hi, f_lo, f_hi, z, u, (mpfr_ptr)0);
    mpfr_set_d(s_lo, s, MPFR_RNDN);                   /* exact */
    mpfr_set_d(s_hi, s, MPFR_RNDN);
    if (plus1) {
        mpfr_add_ui(s_lo, s_lo, 1, MPFR_RNDD);
        mpfr_add_ui(s_hi, s_hi, 1, MPFR_RNDU);
    }
    mpfr_set_d(u, q, MPFR_RNDN);
    mpfr_log(lq_lo, u, MPFR_RNDD);
    mpfr_set(lq_hi, lq_lo, MPFR_RNDN);
    mpfr_nextabove(lq_hi);
    /* log F */
    mpfr_set_ui(f_lo, 0, MPFR_RNDN);
    mpfr_set_ui(f_hi, 0, MPFR_RNDN);
    if (n >= 1) {
        mpfr_set_d(z, n, MPFR_RNDN);                  /* exact: n < 2^1024 */
        mpfr_log(f_lo, z, MPFR_RNDD);                 /* log n >= 0 */
        mpfr_set(f_hi, f_lo, MPFR_RNDN);
        mpfr_nextabove(f_hi);
        mpfr_add_d(u, z, 0.5, MPFR_RNDD);
        mpfr_mul(f_lo, f_lo, u, MPFR_RNDD);
        mpfr_add_d(u, z, 0.5, MPFR_RNDU);
        mpfr_mul(f_hi, f_hi, u, MPFR_RNDU);
        mpfr_sub(f_lo, f_lo, z, MPFR_RNDD);
        mpfr_sub(f_hi, f_hi, z, MPFR_RNDU);
        mpfr_add_d(f_lo, f_lo, 0.9189385332, MPFR_RNDD);   /* log(2 pi)/2 = 0.91893853320467... */
        mpfr_add_d(f_hi, f_hi, 0.9189385333 + 1.0 / 12, MPFR_RNDU);
    }
    /* log Z < log(2 + (q + 1)/(s - 1)) < EXP of that times log 2 */
    mpfr_set_d(u, q, MPFR_RNDN);
    mpfr_add_ui(u, u, 1, MPFR_RNDU);                  /* q + 1, up */
    mpfr_sub_ui(z, s_lo, 1, MPFR_RNDD);               /* s - 1 > 0, down */
    mpfr_div(z, u, z, MPFR_RNDU);
    mpfr_add_ui(z, z, 2, MPFR_RNDU);
    mpfr_exp_t ez = mpfr_get_exp(z);                  /* the value is below 2^ez */
    /* the largest and smallest s log q over the intervals */
    mpfr_mul(u, mpfr_sgn(lq_hi) >= 0 ? s_hi : s_lo, lq_hi, MPFR_RNDU);
    mpfr_sub(f_lo, f_lo, u, MPFR_RNDD);               /* log|V| >= f_lo */
    mpfr_mul(u, mpfr_sgn(lq_lo) >= 0 ? s_lo : s_hi, lq_lo, MPFR_RNDD);
    mpfr_sub(f_hi, f_hi, u, MPFR_RNDU);
    mpfr_const_log2(u, MPFR_RNDU);
    mpfr_mul_si(z, u, (long)ez, MPFR_RNDU);           /* > log Z (ez >= 2) */
    mpfr_add(f_hi, f_hi, z, MPFR_RNDU);               /* log|V| <= f_hi */
    bool e8m0_neg = sign < 0 && sf->nan == PLUMB_FPNAN_E8M0;
    bool done = true;
    if (neg_q)
        mpfr_sub(f_lo, f_lo, u, MPFR_RNDD);           /* the factor 1/2 */
    mpfr_mul_si(z, u, hi, MPFR_RNDU);                 /* >= hi log 2 (hi > 0) */
    if (mpfr_cmp(f_lo, z) >= 0) {
        *res = cr_from_double(t, sign * ldexp(1.0, (int)hi));
    } else if (neg_q) {
        done = false;
    } else if (mpfr_mul_si(z, u, e8m0_neg ? -1080 : lo, MPFR_RNDD), mpfr_cmp(f_hi, z) < 0) {
        /* below 2^lo (lo < 0), or below 2^-1080 for E8M0's negative values */
        *res = cr_from_double(t, e8m0_neg ? -0.0 : sign * ldexp(1.0, (int)lo - 1));
    } else if (e8m0_neg && (mpfr_mul_si(z, u, lo, MPFR_RNDD), mpfr_cmp(f_hi, z) < 0) &&
               (mpfr_mul_si(z, u, -1070, MPFR_RNDD), mpfr_cmp(f_lo, z) > 0)) {
        *res = cr_from_double(t, -ldexp(1.0, (int)lo - 1));
    } else {
        done = false;
    }
    mpfr_clears(s_lo, s_hi, lq_lo, lq_hi, f_lo, f_hi, z, u, (mpfr_ptr)0);
    return done;
}

/* A result decided by its leading term alone: for q > 0 and s > 1,
 *   F zeta(s, q) = F q^-s (1 + R),  0 < R <= r_1 (1 + (q + 1)/(s - 1)),
 * r_1 = (q/(q+1))^s (zscaled's integral bound on the terms from k = 1 on),
 * with F = n! for polygamma (n <= 20) and 1 for zeta. When q = 2^k and k s
 * is an integer, the leading term L = sign F 2^(-k s) is a double (checked:
 * normal and exact), and when the bound on R is below 2^-60 the exact value
 * lies strictly between L and the next double beyond it, 2^-52 |L| or more
 * away. Ziv's loop can never decide such a value at the target's precision
 * + 1 before w exceeds k s-like sizes (zeta(2^40, 1) = 1 + 2^(-2^40) + ...),
 * and it can tell no more than that side of L either:
 *   - a small format: the rounding to odd at 53 bits of such a value is L
 *     when L's last significand bit is odd, else the next double beyond L:
 *     exactly small_odd's result for y = L, inexact;
 *   - f16, bf16, f32, f64: when L is a value of t, it is the correctly
 *     rounded result (the value lies within 2^-60 |L| of it, less than half
 *     of any ulp of t, and on the side away from zero, so no midpoint of t
 *     lies between them); otherwise no decision.
 * The bound on R is computed with MPFR in directed rounding: s log1p(1/q)
 * rounded down, log(1 + (q + 1)/(s - 1)) rounded up. True with *res set
 * when decided. */
static bool lead_dyadic(plumb_dtype t, double s, double q, double fact, int sign, uint64_t *res)
{
    int ex;
    if (!(q > 0) || !(s > 1) || frexp(q, &ex) != 0.5)
        return false;
    double k = (double)(ex - 1);                      /* q = 2^k, |k| <= 1074 */
    double ks = k * s;
    if (!(fabs(ks) <= 2000) || fma(k, s, -ks) != 0 || ks != floor(ks))
        return false;                                 /* k s not an exact integer of a sane size */
    double L = ldexp(fact, (int)-ks);
    if (!(fabs(L) >= DBL_MIN) || isinf(L) || ldexp(L, (int)ks) != fact)
        return false;                                 /* not a normal double, or rounded */
    mpfr_t a, b, c;
    mpfr_inits2(64, a, b, c, (mpfr_ptr)0);
    mpfr_set_d(a, q, MPFR_RNDN);                      /* exact */
    mpfr_ui_div(a, 1, a, MPFR_RNDD);                  /* exact too: q = 2^k */
    mpfr_log1p(a, a, MPFR_RNDD);
    mpfr_mul_d(a, a, s, MPFR_RNDD);                   /* <= -log r_1 */
    mpfr_set_d(c, s, MPFR_RNDN);
    mpfr_sub_ui(c, c, 1, MPFR_RNDD);                  /* s - 1 > 0, rounded down */
    mpfr_set_d(b, q, MPFR_RNDN);
    mpfr_add_ui(b, b, 1, MPFR_RNDU);                  /* q + 1, rounded up */
    mpfr_div(c, b, c, MPFR_RNDU);
    mpfr_add_ui(c, c, 1, MPFR_RNDU);
    mpfr_log(c, c, MPFR_RNDU);                        /* >= log(1 + (q+1)/(s-1)) */
    mpfr_sub(a, a, c, MPFR_RNDD);                     /* <= -log(bound on R) */
    bool tiny = mpfr_cmp_d(a, 60 * 0.6931471805599453 + 1e-6) >= 0;
    mpfr_clears(a, b, c, (mpfr_ptr)0);
    if (!tiny)
        return false;
    L = sign < 0 ? -L : L;
    if (plumb_fpfmt_get(t)) {
        mpfr_t y;
        mpfr_init2(y, 64);
        mpfr_set_d(y, L, MPFR_RNDN);
        *res = small_odd(t, y, false);
        mpfr_clear(y);
        return true;
    }
    uint64_t r = cr_from_double(t, L);
    if (cr_to_double(t, r) != L)
        return false;
    *res = r;
    return true;
}

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
    uint64_t r;
    if (plumb_fpfmt_get(t) && small_range(t, x, false, q, -1, 1, &r))
        return r;
    if (lead_dyadic(t, x, q, 1.0, 1, &r))
        return r;
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
    uint64_t r;
    if (plumb_fpfmt_get(t) && small_range(t, n, true, x, n, odd ? 1 : -1, &r))
        return r;
    if (n <= 20) {                                    /* n! exact in a double */
        double fact = 1;
        for (int i = 2; i <= (int)n; i++)
            fact *= i;
        if (lead_dyadic(t, n + 1, x, fact, odd ? 1 : -1, &r))
            return r;
    }
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
