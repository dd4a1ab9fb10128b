/* Conversion inputs for the small types: the FP8/FP6/FP4 formats and the
 * sub-byte integers (docs/spec/types.md, docs/conformance.md "Small
 * types"). Each list is built from the formats' own values, so that every
 * rounding decision of a conversion into a small float format is made on
 * both sides of it and on it (ties), and every special value of each format
 * (NaNs, infinities where present, both zeros where present, the smallest
 * subnormal, the largest subnormal, the smallest normal, the largest finite
 * value) is converted to and from every type. */
#include "plumb/cmplx_compat.h"   /* <complex.h>, and CMPLX/CMPLXL where it lacks them */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "plumb/fp8.h"

/* The value of a pattern of float type t. */
static double value_of(plumb_dtype t, uint64_t b)
{
    unsigned char buf[16] = {0};
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* x rounded to nearest even in f16, bf16, f32 or f64 (a source type). */
static uint64_t encode_wide(plumb_dtype t, double x)
{
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(x);
    case PLUMB_BF16: return plumb_f64_to_bf16(x);
    case PLUMB_F32: return plumb_f32_bits((float)x);
    default: return plumb_f64_bits(x);
    }
}

typedef struct list {
    uint64_t *v;
    uint64_t n, cap;
} list;

static void put(list *l, uint64_t b)
{
    if (l->n < l->cap && l->v) l->v[l->n] = b;
    l->n++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The distinct finite non-negative values of small float format d,
 * ascending, into vals (at most 256); returns their count. */
static uint32_t small_values(plumb_dtype d, double *vals)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(d);
    uint32_t n = 0;
    for (uint32_t b = 0; b < (1u << f->bits); b++) {
        double v = plumb_small_to_f64(f, b);
        if (isnan(v) || isinf(v) || v < 0 || (v == 0 && signbit(v))) continue;
        bool seen = false;
        for (uint32_t k = 0; k < n && !seen; k++) seen = vals[k] == v;
        if (!seen) vals[n++] = v;
    }
    qsort(vals, n, sizeof vals[0], cmp_double);
    return n;
}

/* Source patterns of a wide float type s (f32, f64; f16 and bf16 when
 * asked) around x > 0: the largest below, x itself when s holds it, and the
 * smallest above, each with both signs. Outside s's finite range nothing. */
static void around(list *l, plumb_dtype s, double x)
{
    uint64_t sign = 1ull << (plumb_dtype_get(s)->bits - 1);
    uint64_t b = encode_wide(s, x);
    double v = value_of(s, b);
    if (!isfinite(v) || v == 0) return;
    uint64_t lo = b, hi = b;
    while (lo > 0 && value_of(s, lo) >= x) lo--;
    while (value_of(s, hi) <= x) hi++;
    if (!isfinite(value_of(s, hi))) hi = lo;
    uint64_t pick[3] = {lo, b, hi};
    for (int k = 0; k < 3; k++) {
        if (k == 1 && v != x) continue;
        put(l, pick[k]);
        put(l, pick[k] | sign);
    }
}

/* Every pattern of a type of at most 16 bits. */
static void all_patterns(list *l, plumb_dtype s)
{
    uint32_t bits = plumb_dtype_get(s)->bits;
    if (s == PLUMB_I1) bits = 1;
    for (uint64_t b = 0; b < (1ull << bits); b++) put(l, b);
}

uint64_t conf_small_convert_inputs(plumb_dtype src, plumb_dtype dst, uint64_t *out, uint64_t cap)
{
    list l = {out, 0, cap};
    uint32_t sbits = plumb_dtype_get(src)->bits;
    /* A small or narrow source: all of it (at most 2^16 patterns; f16 and
     * bf16 into a small format are exhaustive that way). */
    if (plumb_dtype_is_lowp(src) || sbits <= 16 || plumb_dtype_is_bool(src)) {
        all_patterns(&l, src);
        return l.n;
    }
    const plumb_fpfmt *f = plumb_fpfmt_get(dst);
    if (plumb_dtype_is_float(src)) {
        /* f32 / f64 into a small float format (or into a sub-byte integer:
         * the steps at each of its values) */
        uint64_t sign = 1ull << (sbits - 1);
        const plumb_dtype_info *si = plumb_dtype_get(src);
        uint64_t expm = ((1ull << si->exp_bits) - 1) << si->mant_bits;
        uint64_t quiet = 1ull << (si->mant_bits - 1);
        /* zeros, infinities, a quiet, a signalling and a negative NaN, the
         * source's extremes */
        uint64_t sp[] = {0, sign, expm, expm | sign, expm | quiet, expm | 1, expm | quiet | sign | 3,
                         expm - 1, (expm - 1) | sign, 1, 1 | sign};
        for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++) put(&l, sp[k]);
        if (f) {
            double vals[256];
            uint32_t nv = small_values(dst, vals);
            double ulp_top = nv >= 2 ? vals[nv - 1] - vals[nv - 2] : 1.0;
            for (uint32_t k = 0; k < nv; k++) {
                if (vals[k] > 0) around(&l, src, vals[k]);
                /* the midpoint to the next value (ties), and beyond the
                 * largest: max + ulp/2 (the overflow threshold) and max + ulp */
                double next = k + 1 < nv ? vals[k + 1] : vals[k] + ulp_top;
                around(&l, src, vals[k] + (next - vals[k]) / 2);
                if (k + 1 == nv) {
                    around(&l, src, next);
                    around(&l, src, 2 * vals[k]);
                }
            }
            /* below the smallest positive value: half of it (a tie to 0 or,
             * in f8E8M0FNU, to its smallest), a quarter, and far below */
            double lo = vals[0] > 0 ? vals[0] : nv > 1 ? vals[1] : 1.0;
            around(&l, src, lo / 2);
            around(&l, src, lo / 4);
            around(&l, src, lo / 1024);
        } else {
            /* float into an integer type: truncation steps at each value */
            for (int64_t k = -9; k <= 17; k++) {
                double x = (double)(k < 0 ? -k : k);
                if (x > 0) around(&l, src, x);
                around(&l, src, x + 0.5);
            }
        }
        return l.n;
    }
    /* a wide integer source (i16 .. ui64) into a small float format or
     * sub-byte integer: every integer within twice the target's range (the
     * small formats' integers are few), then the source's boundaries */
    double top = f ? plumb_small_max(f) : 16.0;
    const plumb_dtype_info *si = plumb_dtype_get(src);
    uint64_t mask = si->bits == 64 ? ~0ull : (1ull << si->bits) - 1;
    bool sg = plumb_dtype_is_signed(src);
    double smax = ldexp(1.0, (int)si->bits - (sg ? 1 : 0)) - 1;
    if (f) {
        double vals[256];
        uint32_t nv = small_values(dst, vals);
        for (uint32_t k = 0; k < nv; k++) {
            double next = k + 1 < nv ? vals[k + 1] : 2 * vals[k];
            double mid = vals[k] + (next - vals[k]) / 2;
            double xs[3] = {floor(mid) - 1, floor(mid), floor(mid) + 1};
            for (int j = 0; j < 3; j++) {
                if (xs[j] < 0 || xs[j] > smax || xs[j] >= 0x1p63) continue;
                uint64_t u = (uint64_t)xs[j];
                put(&l, u);
                if (sg && u) put(&l, (0 - u) & mask);
            }
        }
    } else {
        for (int64_t k = -(int64_t)top * 2; k <= (int64_t)top * 2; k++)
            if (k >= 0 || sg) put(&l, (uint64_t)k & mask);
    }
    uint64_t smin = sg ? 1ull << (si->bits - 1) : 0;
    uint64_t bnd[] = {smin, (smin - 1) & mask, mask, 1};
    for (size_t k = 0; k < sizeof bnd / sizeof bnd[0]; k++) put(&l, bnd[k]);
    return l.n;
}

bool conf_small_convert_pair(plumb_dtype src, plumb_dtype dst)
{
    return plumb_dtype_is_lowp(src) || plumb_dtype_is_lowp(dst);
}

/* The special values of small type t as bit patterns (at most 64), in a
 * fixed order: for an FP8/FP6/FP4/E8M0 format every NaN pattern, both
 * infinities where present, both zeros where present, and with both signs
 * the smallest and largest subnormal, the smallest normal, 1 and the
 * largest finite value; for i2/i4/ui2/ui4 every pattern. */
uint32_t conf_lowp_specials(plumb_dtype t, uint64_t *out)
{
    if (plumb_dtype_is_subbyte_int(t)) {
        uint32_t np = 1u << plumb_dtype_get(t)->bits;
        for (uint32_t p = 0; p < np; p++) out[p] = p;
        return np;
    }
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (!f) return 0;
    uint32_t np = 1u << f->bits, n = 0;
    /* the positive codes of interest: smallest and largest subnormal (an
     * exponent field of 0 and a fraction), smallest normal, one, largest */
    double min_sub = INFINITY, max_sub = 0, min_norm = INFINITY, max_fin = 0;
    for (uint32_t p = 0; p < np; p++) {
        double v = plumb_small_to_f64(f, p);
        if (plumb_small_is_nan(f, p) || isinf(v) || !(v > 0)) continue;
        bool sub = f->mant && ((p >> f->mant) & ((1u << f->expo) - 1)) == 0;
        if (sub) { if (v < min_sub) min_sub = v; if (v > max_sub) max_sub = v; }
        else if (v < min_norm) min_norm = v;
        if (v > max_fin) max_fin = v;
    }
    for (uint32_t p = 0; p < np && n < 64; p++) {
        double v = plumb_small_to_f64(f, p), a = fabs(v);
        bool keep = plumb_small_is_nan(f, p) || plumb_small_is_inf(f, p) || v == 0 || a == min_sub ||
                    a == max_sub || a == min_norm || a == 1.0 || a == max_fin;
        if (keep) out[n++] = p;
    }
    return n;
}

/* Whether complex atan2(y, x) (y = yr + i yi the lhs, x = xr + i xi) is
 * far enough from its singular and ill-conditioned inputs for the stated
 * bound (docs/spec/complex.md, "atan2"): with s = x^2 + y^2, w = x + iy
 * and q = w / sqrt(s), atan2 = -i log q. The runtime forms s, sqrt s, q
 * and log q in long double, each step within a few units of 2^-64 of
 * the magnitudes it combines; kept are the inputs where none of them
 * cancels by more than a factor 4: |s| >= (|x|^2 + |y|^2)/4 (away from
 * the pole x = +-iy), |w| >= (|x| + |y|)/4, and |log q| >= 1/4 (the result
 * is not small beside the errors of q). There the long double errors stay
 * below 2^-56 of the result, far inside the normwise bound. */
bool conf_catan2_accept(double yr, double yi, double xr, double xi)
{
    double complex x = CMPLX(xr, xi), y = CMPLX(yr, yi);
    double ax = cabs(x), ay = cabs(y);
    double complex s = x * x + y * y, w = x + I * y;
    if (!(cabs(s) >= (ax * ax + ay * ay) / 4) || !(cabs(w) >= (ax + ay) / 4)) return false;
    double complex q = w / csqrt(s);
    return cabs(clog(q)) >= 0.25;
}
