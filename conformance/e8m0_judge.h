/* Judging an f8E8M0FNU result by plumb's promise for the ops that compute
 * in a wider type and round once into the small formats (docs/spec/types.md,
 * "FP8, FP6, FP4 and E8M0 arithmetic"; docs/spec/batchnorm.md and
 * docs/spec/linalg.md, "Small formats"). The format's u = 2^-1 makes an
 * error bound in its own units useless (it admits a neighbouring power of
 * two either way), so the checker encloses the wide result instead: when
 * the wide value lies in [lo, hi], the results a faithful backend can give
 * are the roundings of the values in [lo, hi]. The rounding (docs/spec/
 * types.md, "Conversions": values below 2^-127, zero included, become
 * 2^-127; a negative value and anything at or past 1.5 * 2^127 becomes the
 * NaN 0xFF; ties between 2^e and 2^(e+1) go up) is monotone in the pattern
 * order 0x00 = 2^-127 ... 0xFE = 2^127, 0xFF, so the admitted patterns are
 * the range from round(max(lo, 0)) to round(hi), and the NaN when lo < 0.
 * Used by conformance/check_batchnorm.c and conformance/check_linalg.c. */
#ifndef PLUMB_CONF_E8M0_JUDGE_H
#define PLUMB_CONF_E8M0_JUDGE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "plumb/fp8.h"

/* Whether pattern b is the rounding of a value in [lo, hi] (a NaN end: only
 * the NaN); *lo_b and *hi_b get the admitted range (0xFF..0xFF when none
 * but the NaN). The ends, long double, are widened by 2^-50 relative before
 * their conversion to double, which could otherwise round them inward. */
static inline bool conf_e8m0_admits(uint64_t b, long double lo, long double hi, uint32_t *lo_b, uint32_t *hi_b)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(PLUMB_F8E8M0FNU);
    *lo_b = *hi_b = 0xFF;
    if (isnan(lo) || isnan(hi)) return b == 0xFF;
    if (hi >= 0) {
        double lod = lo > 0 ? (double)(lo * (1.0L - 0x1p-50L)) : 0.0;
        double hid = isinf(hi) ? INFINITY : (double)(hi * (1.0L + 0x1p-50L));
        *lo_b = plumb_f64_to_small(f, lod);
        *hi_b = isinf(hi) ? 0xFF : plumb_f64_to_small(f, hid);
        if (b >= *lo_b && b <= *hi_b) return true;
    }
    return b == 0xFF && lo < 0;
}

#endif
