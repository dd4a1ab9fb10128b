/* CHLO's special functions in the reference: chlo.erf_inv, correctly rounded.
 *
 * MPFR has no inverse error function, so the result is decided by the
 * monotonicity of erf instead of by evaluating erf^-1. For x in (0, 1) the
 * exact y = erf^-1(x) rounds (to nearest even, in x's type t) to the value
 * r of t exactly when y lies between the midpoints m- = (r- + r)/2 and
 * m+ = (r + r+)/2 of r with its neighbours; as erf is strictly increasing,
 * that holds exactly when erf(m-) < x < erf(m+) (with equality: a tie,
 * settled to the even neighbour). Each comparison is decided by an MPFR
 * evaluation of erf(m) in a directed rounding, which encloses the exact
 * value in [e, next(e)] (the ternary value says when e is exact), at
 * increasing precision until the enclosure lies on one side of x. The
 * midpoints are exact at 64 bits (two adjacent values of t need at most
 * p + 1 <= 54 bits). Near 1, where erf(m) and x agree in their leading
 * bits, the comparison is made as 1 - x against erfc(m) (1 - x is exact in
 * double for x >= 1/2, Sterbenz), so the working precision never has to
 * cover the cancellation.
 *
 * The candidate r comes from a double-precision estimate (Winitzki's
 * closed form refined by Newton steps on erf or erfc); when a comparison
 * says y lies beyond a midpoint, r steps to that neighbour and the test is
 * repeated, so the estimate only decides the speed, never the result. */
#include <float.h>
#include <math.h>
#include <mpfr.h>

#include "crmath.h"
#include "ref_internal.h"

#define ERFINV_POLL 4096

/* sign(erf(m) - x): via erfc when tail (then q = 1 - x, exact). Precision
 * grows from 64 bits; 2^15 bits are far beyond any decision seen (the gap
 * |erf(m) - x| is about erf'(y) ulp(y) / 2, above 2^-1200 relative for every
 * supported type); should it still tie there, the exact equality is assumed
 * (erf of a nonzero dyadic is never a dyadic in practice). */
static int erf_cmp(const mpfr_t m, double x, bool tail)
{
    double q = tail ? 1.0 - x : x;
    int res = 0;
    /* Shortcut: m (<= 55 bits) is exact in a long double of >= 55 bits;
     * erfl/erfcl are taken to lie within 16 ulps of the exact value, the
     * bound ref/crmath.c's fast path assumes of the C library. When the
     * long double value and q are more than 128 of its ulps apart, the
     * exact value lies on the same side of q, which is the sign the loop
     * below would return at 64 bits; otherwise the loop decides. */
    if (LDBL_MANT_DIG >= 55) {
        long double ml = mpfr_get_ld(m, MPFR_RNDN);
        long double el = tail ? erfcl(ml) : erfl(ml);
        long double d = ldexpl(fabsl(el), 7 - LDBL_MANT_DIG);
        if (el - d > q)
            return tail ? -1 : 1;
        if (el + d < q)
            return tail ? 1 : -1;
    }
    mpfr_t e;
    mpfr_init2(e, 64);
    for (mpfr_prec_t w = 64; w <= (1 << 15); w *= 2) {
        mpfr_set_prec(e, w);
        int inex = tail ? mpfr_erfc(e, m, MPFR_RNDD) : mpfr_erf(e, m, MPFR_RNDD);
        /* the exact value lies in [e, e] when inex == 0, else in (e, next(e)) */
        int lo = mpfr_cmp_d(e, q);
        if (inex == 0) {
            res = lo;
            goto out;
        }
        if (lo >= 0) {          /* e >= q and the exact value is above e */
            res = 1;
            goto out;
        }
        mpfr_nextabove(e);
        if (mpfr_cmp_d(e, q) <= 0) {   /* exact value below next(e) <= q */
            res = -1;
            goto out;
        }
    }
out:
    mpfr_clear(e);
    /* erfc decreases where erf increases: erf(m) - x = (1 - x) - erfc(m) */
    return tail ? -res : res;
}

/* sign(erf((v(ra) + v(rb)) / 2) - x) for adjacent positive patterns ra < rb of t. */
static int mid_cmp(plumb_dtype t, uint64_t ra, uint64_t rb, double x)
{
    mpfr_t m;
    mpfr_init2(m, 64);
    mpfr_set_d(m, cr_to_double(t, ra), MPFR_RNDN);
    mpfr_add_d(m, m, cr_to_double(t, rb), MPFR_RNDN);   /* exact: <= 55 bits */
    mpfr_div_2ui(m, m, 1, MPFR_RNDN);
    int s = erf_cmp(m, x, x >= 0.5);
    mpfr_clear(m);
    return s;
}

/* erf^-1(x) for 0 < x < 1 in double, within a few ULP: the series below
 * 2^-8, else Winitzki's approximation (relative error below 2e-3), then
 * Newton steps, on erf below 1/2 and on erfc above (whose relative accuracy
 * near 1 erf lacks). */
static double erfinv_seed(double x)
{
    const double k = 0.147, pi = 3.14159265358979323846;
    double y;
    if (x < 0x1p-8) {
        /* the series sqrt(pi)/2 (x + pi x^3/12 + 7 pi^2 x^5/480): Winitzki's
         * form loses x^2 to cancellation here (and gives 0 below ~1e-8) */
        double x2 = x * x;
        y = 0.88622692545275801365 * x * (1 + x2 * (pi / 12 + x2 * (7 * pi * pi / 480)));
    } else {
        double l = log1p(-x * x);   /* log(1 - x^2) */
        double u = 2 / (pi * k) + l / 2;
        y = sqrt(sqrt(u * u - l / k) - u);
    }
    double b = 1 - x;
    for (int i = 0; i < 6 && isfinite(y) && y > 0; i++) {
        double d = 1.12837916709551257390 * exp(-y * y);   /* erf'(y) */
        double f = x < 0.5 ? erf(y) - x : b - erfc(y);
        if (d == 0)
            break;
        y -= f / d;
    }
    return isfinite(y) && y > 0 ? y : x;
}

uint64_t cr_erf_inv(plumb_dtype t, uint64_t xb)
{
    if (cr_is_nan(t, xb))
        return cr_quiet(t, xb);
    double x = cr_to_double(t, xb);
    if (x == 0)
        return xb;   /* erf^-1(+-0) = +-0 */
    if (fabs(x) == 1)
        return cr_from_double(t, copysign(INFINITY, x));
    if (!(fabs(x) < 1))
        return cr_default_nan(t);
    const plumb_dtype_info *d = plumb_dtype_get(t);
    uint64_t sign = 1ull << (d->bits - 1);
    double a = fabs(x);
    /* erf^-1 is odd: decide |y|, then give it x's sign. |y| < 6 for every
     * x < 1 of every type (erf^-1(1 - 2^-53) = 5.86), so r + 1 is finite;
     * |y| > 0.886 |x| keeps r >= the smallest subnormal. */
    uint64_t r = cr_from_double(t, erfinv_seed(a)) & ~sign;
    if (r == 0)
        r = 1;
    for (;;) {
        int lo = mid_cmp(t, r - 1, r, a);
        if (lo > 0) {           /* y < m-: the answer is below r */
            r--;
            continue;
        }
        int hi = mid_cmp(t, r, r + 1, a);
        if (hi < 0) {           /* y > m+ */
            r++;
            continue;
        }
        if (lo == 0 && (r & 1))         /* y = m-: ties to the even pattern */
            r--;
        else if (hi == 0 && (r & 1))    /* y = m+ */
            r++;
        break;
    }
    return r | (xb & sign);
}

/* ---- chlo.erf_inv -------------------------------------------------------------
 * Floats only: the inverse of erf on (-1, 1), correctly rounded (nearest
 * even) in the operand's type, subnormals kept. erf_inv(+-0) = +-0,
 * erf_inv(+-1) = +-inf, |x| > 1 (infinities included) -> the default NaN,
 * a NaN operand -> that NaN quieted. Odd: erf_inv(-x) = -erf_inv(x). Small
 * |x|: erf_inv(x) = sqrt(pi)/2 (x + pi x^3/12 + ...), so a subnormal x gives
 * a subnormal (never zero) result. */
bool ref_op_ERF_INV(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_dtype t = in[0]->dtype;
    if (op->n_operands != 1 || op->n_results != 1 || plumb_tensor_numel(in[0]) != plumb_tensor_numel(out[0]))
        return ref_fail(c, op, PLUMB_ERR_INVALID, "expected one operand with as many elements as the result");
    if ((t != PLUMB_F16 && t != PLUMB_BF16 && t != PLUMB_F32 && t != PLUMB_F64) || out[0]->dtype != t)
        return ref_fail(c, op, PLUMB_ERR_UNSUPPORTED, "element type %s is not supported by %s",
                        plumb_dtype_name(t), plumb_op_name(op->code));
    uint64_t n = plumb_tensor_numel(out[0]);
    for (uint64_t i = 0; i < n; i++) {
        if (i && i % ERFINV_POLL == 0 && !ref_poll(c, op))
            return false;
        plumb_store_bits(t, out[0]->data, i, cr_erf_inv(t, plumb_load_bits(t, in[0]->data, i)));
    }
    return true;
}
