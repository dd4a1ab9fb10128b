/* gen_pow_log_table: prints runtime/math_f64_pow.h's log table
 * (POW64_LOG_T), its constants POW64_LN2_HI/LO and the exp table
 * POW64_EXP_T (2^(j/32), j = 0..31, as a value of 26 significant bits, so
 * that its product with another 26-bit number is exact, and the tail
 * rounded to double: the pairs are within 2^-79 of 2^(j/32)), computed with MPFR at 400 bits, and checks the
 * properties the vector power relies on:
 *
 *   gen_pow_log_table > table.txt     (exit 1 when a check fails)
 *
 * z in [0x1.6b8p-1, 0x1.6b8p0) (bit patterns POW64_OFF .. POW64_OFF + 2^52)
 * is split into 256 subintervals of 2^44 patterns each; the one holding 1
 * is [1 - 2^-10, 1 + 2^-9). For each, invc = 1/c is 256/center rounded to
 * an integer, over 256 (center < 1), or 512/center rounded, over 512
 * (center >= 1): a multiple of 2^-8 or 2^-9, so z*invc - 1 is a multiple
 * of 2^-61 (z a multiple of 2^-53 below 1, of 2^-52 above) and, below
 * 2^-8 in size, a double: the vector code computes it exactly without
 * fused multiply-add. logc = -log(invc) rounded to a multiple of 2^-43,
 * so k*POW64_LN2_HI + logc is exact for |k| <= 1024 (POW64_LN2_HI is ln 2
 * rounded to a multiple of 2^-43: |k| ln2 < 2^10 with 53 bits below it);
 * logctail = the rest, rounded to double (the pair within 2^-96 of
 * log c). Checks: each z*invc - 1 below 2^-8 (and reports the largest),
 * the subintervals near 1 have invc = 1 (logc = 0: log z = log1p(z - 1)
 * keeps its relative precision), and |logc| >= the subinterval's largest
 * |z*invc - 1| wherever logc is not 0 (t1 + r is then a Fast2Sum). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <mpfr.h>

#define OFF 0x3FE6B80000000000ull
#define NT 256   /* subintervals: bits 44..51 of z's pattern above OFF */

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

int main(void)
{
    mpfr_t a, b, t;
    mpfr_inits2(400, a, b, t, (mpfr_ptr)0);
    int fail = 0;
    double maxr = 0;
    /* ln 2 = hi + lo: hi a multiple of 2^-43 */
    mpfr_const_log2(a, MPFR_RNDN);
    mpfr_mul_2si(t, a, 43, MPFR_RNDN);
    mpfr_rint(t, t, MPFR_RNDN);
    mpfr_mul_2si(t, t, -43, MPFR_RNDN);
    double ln2hi = mpfr_get_d(t, MPFR_RNDN);
    mpfr_sub(b, a, t, MPFR_RNDN);
    double ln2lo = mpfr_get_d(b, MPFR_RNDN);
    printf("#define POW64_LN2_HI %a\n#define POW64_LN2_LO %a\n", ln2hi, ln2lo);
    printf("static const double POW64_LOG_T[%d] = {\n", 4 * NT);
    for (int i = 0; i < NT; i++) {
        double lo = from_bits(OFF + ((uint64_t)i << 44));
        double hi = from_bits(OFF + ((uint64_t)(i + 1) << 44)); /* excluded */
        double hil = nextafter(hi, 0);                           /* the largest z of the subinterval */
        double center = 0.5 * (lo + hi);
        double invc = center < 1 ? nearbyint(256 / center) / 256 : nearbyint(512 / center) / 512;
        /* the largest |z*invc - 1| is at an end (it is monotone in z) */
        double r1 = fabs(lo * invc - 1), r2 = fabs(hil * invc - 1);
        double rm = r1 > r2 ? r1 : r2;
        maxr = rm > maxr ? rm : maxr;
        if (rm >= 0x1p-8) {
            fprintf(stderr, "entry %d: |z*invc - 1| = %a >= 2^-8\n", i, rm);
            fail = 1;
        }
        if (lo <= 1.0 && 1.0 < hi && invc != 1.0) {
            fprintf(stderr, "entry %d holds 1 but invc = %a\n", i, invc);
            fail = 1;
        }
        /* multiples of 2^-8 (z < 1) and 2^-9 (z >= 1): z*invc - 1 exact */
        if ((lo < 1 && nearbyint(invc * 256) != invc * 256) || (hil >= 1 && nearbyint(invc * 512) != invc * 512)) {
            fprintf(stderr, "entry %d: invc %a has too many bits\n", i, invc);
            fail = 1;
        }
        mpfr_set_d(a, invc, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_neg(a, a, MPFR_RNDN); /* log c */
        mpfr_mul_2si(t, a, 43, MPFR_RNDN);
        mpfr_rint(t, t, MPFR_RNDN);
        mpfr_mul_2si(t, t, -43, MPFR_RNDN);
        double logc = mpfr_get_d(t, MPFR_RNDN) + 0.0; /* +0, not -0, for c = 1 */
        mpfr_sub(b, a, t, MPFR_RNDN);
        double logctail = mpfr_get_d(b, MPFR_RNDN);
        if (logc != 0 && fabs(logc) < rm) {
            fprintf(stderr, "entry %d: |logc| %a < |r| %a\n", i, logc, rm);
            fail = 1;
        }
        printf("    %a, %a, %a, 0, /* z in [%.6f, %.6f) */\n", invc, logc, logctail, lo, hi);
    }
    printf("};\n/* largest |z*invc - 1|: %a */\n", maxr);
    /* 2^(j/32) = POW64_EXP_T[2j] + POW64_EXP_T[2j+1] */
    printf("static const double POW64_EXP_T[64] = {\n");
    for (int j = 0; j < 32; j++) {
        mpfr_set_si(a, j, MPFR_RNDN);
        mpfr_div_ui(a, a, 32, MPFR_RNDN);
        mpfr_exp2(a, a, MPFR_RNDN);
        mpfr_set_prec(t, 26);
        mpfr_set(t, a, MPFR_RNDN);
        double th = mpfr_get_d(t, MPFR_RNDN);
        mpfr_set_prec(t, 400);
        /* 26 significant bits: the low 27 of the 52 stored are zero */
        uint64_t tb;
        memcpy(&tb, &th, 8);
        if (tb & ((1ull << 27) - 1)) {
            fprintf(stderr, "2^(%d/32): value %a has more than 26 bits\n", j, th);
            fail = 1;
        }
        mpfr_sub_d(b, a, th, MPFR_RNDN);
        double tl = mpfr_get_d(b, MPFR_RNDN);
        printf("    %a, %a,\n", th, tl);
    }
    printf("};\n");
    mpfr_clears(a, b, t, (mpfr_ptr)0);
    mpfr_free_cache();
    return fail;
}
