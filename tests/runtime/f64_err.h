/* Shared by the f64 power and atan2 tests: how far a result is from the
 * exact value, in ULPs, by MPFR. Needs <math.h>, <mpfr.h> and plumb's op
 * codes before it. */
#ifndef PLUMB_TESTS_F64_ERR_H
#define PLUMB_TESTS_F64_ERR_H

/* |got - f(x, y)| in ULPs of the correctly rounded normal result cr
 * (2^(e - 52) for cr in [2^e, 2^(e+1))), f evaluated with MPFR at 256
 * bits: how far from the exact value a result off the correctly rounded
 * one is (the code's error budget, not only the op table's bound). */
static inline double err_ulps(plumb_opcode op, double x, double y, double got, double cr)
{
    /* MPFR's whole exponent range here: the difference lies far below
     * double's (the caller set MPFR's range to double's for the oracle) */
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t r, a, b;
    mpfr_inits2(256, r, a, b, (mpfr_ptr)0);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    if (op == PLUMB_OP_POWER)
        mpfr_pow(r, a, b, MPFR_RNDN);
    else
        mpfr_atan2(r, a, b, MPFR_RNDN);
    mpfr_set_d(a, got, MPFR_RNDN);
    mpfr_sub(r, r, a, MPFR_RNDN);
    int ex;
    frexp(cr, &ex);   /* cr = m 2^ex, m in [1/2, 1): its ULP is 2^(ex - 53) */
    mpfr_mul_2si(r, r, 53 - ex, MPFR_RNDN);
    double e = fabs(mpfr_get_d(r, MPFR_RNDN));
    mpfr_clears(r, a, b, (mpfr_ptr)0);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return e;
}

#endif
