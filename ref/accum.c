/* Extra-precision accumulation: see accum.h for what is guaranteed. */
#include "accum.h"

#include <math.h>

#include "plumb/fp8.h"

void ref_two_sum(double a, double b, double *s, double *e)
{
    /* Knuth's TwoSum: no branch on magnitudes, exact for finite a, b. */
    double sum = a + b;
    double bb = sum - a;
    *e = (a - (sum - bb)) + (b - bb);
    *s = sum;
}

void ref_two_prod(double a, double b, double *p, double *e)
{
    /* fma is called explicitly; the build forbids implicit contraction. */
    double prod = a * b;
    *e = fma(a, b, -prod);
    *p = prod;
}

uint64_t ref_bits_from_f64(plumb_dtype t, double x)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);
    default:
        if (plumb_fpfmt_get(t))   /* one rounding, the format's rules (ir/fp8.c) */
            return plumb_f64_to_small(plumb_fpfmt_get(t), x);
        return plumb_f64_bits(x);
    }
}

uint64_t ref_mpfr_to_bits(mpfr_srcptr x, plumb_dtype t)
{
    const plumb_dtype_info *info = plumb_dtype_get(t);
    long bias = (1L << (info->exp_bits - 1)) - 1;
    mpfr_prec_t p = (mpfr_prec_t)info->mant_bits + 1;
    if (mpfr_nan_p(x))
        return ref_bits_from_f64(t, NAN);
    if (plumb_fpfmt_get(t)) {
        /* FP8/FP6/FP4: x rounded to odd at 53 bits, then the codec rounds
         * once with the format's overflow and NaN rules (Boldo & Melquiond:
         * 53 >= p + 2). Beyond the double range every format overflows;
         * below it every one rounds to its zero (E8M0: its smallest value). */
        mpfr_t z;
        mpfr_init2(z, 53);
        int zi = mpfr_set(z, x, MPFR_RNDZ);
        double d = mpfr_get_d(z, MPFR_RNDZ);
        mpfr_clear(z);
        if (zi != 0 && isfinite(d) && d != 0 && (plumb_f64_bits(d) & 1) == 0)
            d = nextafter(d, signbit(d) ? -INFINITY : INFINITY);
        return plumb_f64_to_small(plumb_fpfmt_get(t), d);
    }
    mpfr_t y;
    mpfr_init2(y, p);
    /* Round to p bits in the wide default range first, then let
     * check_range/subnormalize redo the rounding with the ternary value, which
     * is MPFR's documented way to emulate a format without double rounding. */
    int inex = mpfr_set(y, x, MPFR_RNDN);
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(3 - bias - (long)p);
    mpfr_set_emax(bias + 1);
    inex = mpfr_check_range(y, inex, MPFR_RNDN);
    mpfr_subnormalize(y, inex, MPFR_RNDN);
    double d = mpfr_get_d(y, MPFR_RNDN);   /* exact: y fits t, t fits double */
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clear(y);
    return ref_bits_from_f64(t, d);
}

void ref_acc_init(ref_acc *a, bool exact)
{
    a->exact = exact;
    mpfr_init2(a->m, exact ? REF_ACC_EXACT_PREC : 2200);
    mpfr_init2(a->t, 128);
    ref_acc_reset(a);
}

void ref_acc_clear(ref_acc *a)
{
    mpfr_clear(a->m);
    mpfr_clear(a->t);
}

void ref_acc_reset(ref_acc *a)
{
    a->nan = a->pinf = a->ninf = false;
    a->all_negzero = true;
    a->hi = a->lo = 0.0;
    mpfr_set_zero(a->m, 1);
}

static bool acc_special(ref_acc *a, double x)
{
    if (isnan(x)) {
        a->nan = true;
        return true;
    }
    if (isinf(x)) {
        if (x > 0) a->pinf = true;
        else a->ninf = true;
        return true;
    }
    return false;
}

void ref_acc_add(ref_acc *a, double x)
{
    if (acc_special(a, x))
        return;
    if (!(x == 0 && signbit(x)))
        a->all_negzero = false;
    if (x == 0)
        return;
    if (a->exact) {
        mpfr_add_d(a->m, a->m, x, MPFR_RNDN);   /* exact at this precision */
        return;
    }
    double s, e;
    ref_two_sum(a->hi, x, &s, &e);
    double lo = a->lo + e;
    ref_two_sum(s, lo, &a->hi, &a->lo);
}

void ref_acc_add_prod(ref_acc *a, double x, double y)
{
    if (isnan(x) || isnan(y)) {
        a->nan = true;
        return;
    }
    if (isinf(x) || isinf(y)) {
        if (x == 0 || y == 0)
            a->nan = true;               /* 0 * inf */
        else
            acc_special(a, x * y);
        return;
    }
    if (x == 0 || y == 0) {
        if (!(signbit(x) != signbit(y)))
            a->all_negzero = false;      /* a +0 product */
        return;
    }
    a->all_negzero = false;
    if (a->exact) {
        mpfr_set_d(a->t, x, MPFR_RNDN);
        mpfr_mul_d(a->t, a->t, y, MPFR_RNDN);  /* 106 bits: exact */
        mpfr_add(a->m, a->m, a->t, MPFR_RNDN);
        return;
    }
    /* Narrow inputs: x*y is exact in double (at most 48 significant bits and
     * far from double's range limits). */
    double s, e;
    ref_two_sum(a->hi, x * y, &s, &e);
    double lo = a->lo + e;
    ref_two_sum(s, lo, &a->hi, &a->lo);
}

uint64_t ref_acc_round(ref_acc *a, plumb_dtype t)
{
    if (a->nan || (a->pinf && a->ninf))
        return ref_bits_from_f64(t, NAN);
    if (a->pinf)
        return ref_bits_from_f64(t, INFINITY);
    if (a->ninf)
        return ref_bits_from_f64(t, -INFINITY);
    if (!a->exact) {
        mpfr_set_d(a->m, a->hi, MPFR_RNDN);
        mpfr_add_d(a->m, a->m, a->lo, MPFR_RNDN);   /* exact: 2200 bits */
    }
    if (mpfr_zero_p(a->m))
        return ref_bits_from_f64(t, a->all_negzero ? -0.0 : 0.0);
    return ref_mpfr_to_bits(a->m, t);
}

void ref_prod_init(ref_prod *p)
{
    mpfr_init2(p->m, REF_PROD_PREC);
    ref_prod_reset(p);
}

void ref_prod_clear(ref_prod *p) { mpfr_clear(p->m); }

void ref_prod_reset(ref_prod *p)
{
    p->nan = p->inf = p->zero = p->neg = false;
    mpfr_set_ui(p->m, 1, MPFR_RNDN);
}

void ref_prod_mul(ref_prod *p, double x)
{
    if (isnan(x)) {
        p->nan = true;
        return;
    }
    if (signbit(x))
        p->neg = !p->neg;
    if (isinf(x))
        p->inf = true;
    else if (x == 0)
        p->zero = true;
    else
        mpfr_mul_d(p->m, p->m, fabs(x), MPFR_RNDN);
}

uint64_t ref_prod_round(ref_prod *p, plumb_dtype t)
{
    if (p->nan || (p->inf && p->zero))
        return ref_bits_from_f64(t, NAN);
    double sgn = p->neg ? -1.0 : 1.0;
    if (p->inf)
        return ref_bits_from_f64(t, sgn * INFINITY);
    if (p->zero)
        return ref_bits_from_f64(t, sgn * 0.0);
    mpfr_t v;
    mpfr_init2(v, REF_PROD_PREC);
    mpfr_mul_d(v, p->m, sgn, MPFR_RNDN);
    uint64_t r = ref_mpfr_to_bits(v, t);
    mpfr_clear(v);
    return r;
}
