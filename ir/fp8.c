/* The small float formats and the sub-byte integers: one codec for every
 * format, driven by its descriptor (include/plumb/fp8.h, docs/spec/types.md).
 *
 * Every value of a format of at most 8 bits is exactly a double, so decoding
 * is exact and a conversion from any float type to a small format is one
 * rounding of a double: f16, bf16 and f32 values are exactly doubles too, so
 * none of them is rounded twice. Widening a small format to f16 or bf16 goes
 * through the exact double and rounds once there (f8E8M0FNU's range exceeds
 * f16's). */
#include <math.h>

#include "plumb/fp8.h"

/* The OCP 8-bit floating point specification (v1.0) for E4M3FN/E5M2, the
 * OCP Microscaling formats specification (v1.0) for E8M0, E2M3, E3M2 and
 * E2M1, and LLVM's APFloat semantics for the FNUZ and E3M4/E4M3 variants
 * (which StableHLO's types name). */
static const plumb_fpfmt fmt_e4m3fn   = {8, 3, 4, 7, PLUMB_FPNAN_FN};
static const plumb_fpfmt fmt_e5m2     = {8, 2, 5, 15, PLUMB_FPNAN_IEEE};
static const plumb_fpfmt fmt_e4m3fnuz = {8, 3, 4, 8, PLUMB_FPNAN_FNUZ};
static const plumb_fpfmt fmt_e5m2fnuz = {8, 2, 5, 16, PLUMB_FPNAN_FNUZ};
static const plumb_fpfmt fmt_e4m3b11  = {8, 3, 4, 11, PLUMB_FPNAN_FNUZ};
static const plumb_fpfmt fmt_e3m4     = {8, 4, 3, 3, PLUMB_FPNAN_IEEE};
static const plumb_fpfmt fmt_e4m3     = {8, 3, 4, 7, PLUMB_FPNAN_IEEE};
static const plumb_fpfmt fmt_e8m0     = {8, 0, 8, 127, PLUMB_FPNAN_E8M0};
static const plumb_fpfmt fmt_e2m3     = {6, 3, 2, 1, PLUMB_FPNAN_NONE};
static const plumb_fpfmt fmt_e3m2     = {6, 2, 3, 3, PLUMB_FPNAN_NONE};
static const plumb_fpfmt fmt_e2m1     = {4, 1, 2, 1, PLUMB_FPNAN_NONE};

const plumb_fpfmt *plumb_fpfmt_get(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F8E4M3FN: return &fmt_e4m3fn;
    case PLUMB_F8E5M2: return &fmt_e5m2;
    case PLUMB_F8E4M3FNUZ: return &fmt_e4m3fnuz;
    case PLUMB_F8E5M2FNUZ: return &fmt_e5m2fnuz;
    case PLUMB_F8E4M3B11FNUZ: return &fmt_e4m3b11;
    case PLUMB_F8E3M4: return &fmt_e3m4;
    case PLUMB_F8E4M3: return &fmt_e4m3;
    case PLUMB_F8E8M0FNU: return &fmt_e8m0;
    case PLUMB_F6E2M3FN: return &fmt_e2m3;
    case PLUMB_F6E3M2FN: return &fmt_e3m2;
    case PLUMB_F4E2M1FN: return &fmt_e2m1;
    default: return NULL;
    }
}

bool plumb_dtype_is_subbyte_int(plumb_dtype t)
{
    return t == PLUMB_I2 || t == PLUMB_I4 || t == PLUMB_UI2 || t == PLUMB_UI4;
}

static uint32_t sign_bit(const plumb_fpfmt *f) { return 1u << (f->bits - 1); }
static uint32_t field_ones(const plumb_fpfmt *f) { return (1u << f->expo) - 1; }
static uint32_t frac_ones(const plumb_fpfmt *f) { return (1u << f->mant) - 1; }

bool plumb_small_is_nan(const plumb_fpfmt *f, uint32_t b)
{
    uint32_t field = (b >> f->mant) & field_ones(f), frac = b & frac_ones(f);
    switch (f->nan) {
    case PLUMB_FPNAN_IEEE: return field == field_ones(f) && frac != 0;
    case PLUMB_FPNAN_FN: return field == field_ones(f) && frac == frac_ones(f);
    case PLUMB_FPNAN_FNUZ: return b == sign_bit(f);
    case PLUMB_FPNAN_E8M0: return b == 0xFF;
    case PLUMB_FPNAN_NONE: return false;
    }
    return false;
}

bool plumb_small_is_inf(const plumb_fpfmt *f, uint32_t b)
{
    return f->nan == PLUMB_FPNAN_IEEE && ((b >> f->mant) & field_ones(f)) == field_ones(f) &&
           (b & frac_ones(f)) == 0;
}

uint32_t plumb_small_qnan(const plumb_fpfmt *f)
{
    switch (f->nan) {
    case PLUMB_FPNAN_IEEE: return (field_ones(f) << f->mant) | (1u << (f->mant - 1));
    case PLUMB_FPNAN_FN: return (field_ones(f) << f->mant) | frac_ones(f);
    case PLUMB_FPNAN_FNUZ: return sign_bit(f);
    case PLUMB_FPNAN_E8M0: return 0xFF;
    case PLUMB_FPNAN_NONE: return 0;
    }
    return 0;
}

double plumb_small_to_f64(const plumb_fpfmt *f, uint32_t b)
{
    if (f->nan == PLUMB_FPNAN_E8M0)
        return b == 0xFF ? NAN : ldexp(1.0, (int)b - f->bias);
    bool neg = (b & sign_bit(f)) != 0;
    if (plumb_small_is_nan(f, b))
        return neg && f->nan != PLUMB_FPNAN_FNUZ ? -NAN : NAN;
    if (plumb_small_is_inf(f, b))
        return neg ? -INFINITY : INFINITY;
    uint32_t field = (b >> f->mant) & field_ones(f), frac = b & frac_ones(f);
    double v = field == 0 ? ldexp((double)frac, 1 - f->bias - f->mant)
                          : ldexp((double)(frac | (1u << f->mant)), (int)field - f->bias - f->mant);
    return neg ? -v : v;
}

/* The largest finite pattern's field and fraction. */
static void max_finite(const plumb_fpfmt *f, uint32_t *field, uint32_t *frac)
{
    switch (f->nan) {
    case PLUMB_FPNAN_IEEE: *field = field_ones(f) - 1; *frac = frac_ones(f); break;
    case PLUMB_FPNAN_FN: *field = field_ones(f); *frac = frac_ones(f) - 1; break;
    case PLUMB_FPNAN_E8M0: *field = 0xFE; *frac = 0; break;
    default: *field = field_ones(f); *frac = frac_ones(f); break;
    }
}

double plumb_small_max(const plumb_fpfmt *f)
{
    uint32_t field, frac;
    max_finite(f, &field, &frac);
    return plumb_small_to_f64(f, (field << f->mant) | frac);
}

/* What a value beyond the largest finite one (or an infinity) becomes. */
static uint32_t overflow(const plumb_fpfmt *f, uint32_t sign)
{
    uint32_t field, frac;
    switch (f->nan) {
    case PLUMB_FPNAN_IEEE: return sign | (field_ones(f) << f->mant);
    case PLUMB_FPNAN_NONE:
        max_finite(f, &field, &frac);
        return sign | (field << f->mant) | frac;
    case PLUMB_FPNAN_FN: return sign | plumb_small_qnan(f);
    default: return plumb_small_qnan(f);
    }
}

uint32_t plumb_f64_to_small(const plumb_fpfmt *f, double x)
{
    bool ov;
    return plumb_f64_to_small_ov(f, x, &ov);
}

uint32_t plumb_f64_to_small_ov(const plumb_fpfmt *f, double x, bool *overflowed)
{
    *overflowed = false;
    bool neg = signbit(x) != 0;
    double a = fabs(x);
    if (f->nan == PLUMB_FPNAN_E8M0) {
        if (isnan(x) || isinf(x) || (neg && a != 0))
            return 0xFF;
        if (a == 0)
            return 0x00;
        int e = ilogb(a);
        int E = e < -f->bias ? -f->bias : e;
        /* One significand bit: the candidates are 2^E and 2^(E+1); a tie
         * goes up (APFloat's tie-to-even looks at that one bit, always 1). */
        double n = nearbyint(ldexp(a, -E));
        if (n >= 2)
            E++;
        if (E > 127) {
            *overflowed = true;
            return 0xFF;
        }
        return (uint32_t)(E + f->bias);
    }
    uint32_t sign = neg ? sign_bit(f) : 0;
    if (isnan(x)) {
        if (f->nan == PLUMB_FPNAN_NONE)
            return 0;
        if (f->nan == PLUMB_FPNAN_IEEE) {
            /* Keep the sign and the top payload bits, quiet bit set. */
            uint64_t m = plumb_f64_bits(x) & ((1ull << 52) - 1);
            uint32_t payload = (uint32_t)(m >> (52 - f->mant));
            return sign | (field_ones(f) << f->mant) | payload | (1u << (f->mant - 1));
        }
        return f->nan == PLUMB_FPNAN_FN ? sign | plumb_small_qnan(f) : plumb_small_qnan(f);
    }
    if (isinf(x))
        return overflow(f, sign);
    if (f->nan == PLUMB_FPNAN_FNUZ && a == 0)
        return 0;
    if (a == 0)
        return sign;
    const int emin = 1 - f->bias;
    int e = ilogb(a);
    int E = e < emin ? emin : e;
    /* a / 2^(E - mant) is exact (a power-of-two scaling of a double that
     * stays normal) and below 2^(mant + 1); nearbyint rounds it to nearest,
     * ties to even, in the default rounding mode. */
    double n = nearbyint(ldexp(a, f->mant - E));
    uint32_t q = (uint32_t)n;
    if (q == 0)
        return f->nan == PLUMB_FPNAN_FNUZ ? 0 : sign;
    if (q >= (2u << f->mant)) {   /* rounded up to the next binade */
        q >>= 1;
        E++;
    }
    uint32_t field, frac;
    if (q >= (1u << f->mant)) {
        long fld = (long)E + f->bias;
        uint32_t mf, mfr;
        max_finite(f, &mf, &mfr);
        frac = q - (1u << f->mant);
        if (fld > (long)mf || (fld == (long)mf && frac > mfr)) {
            *overflowed = true;
            return overflow(f, sign);
        }
        field = (uint32_t)fld;
    } else {
        field = 0;
        frac = q;
    }
    return sign | (field << f->mant) | frac;
}

int64_t plumb_subint_value(plumb_dtype t, uint64_t bits)
{
    uint32_t w = plumb_dtype_get(t)->bits;
    uint64_t m = bits & ((1ull << w) - 1);
    if (plumb_dtype_is_signed(t) && (m >> (w - 1)))
        return (int64_t)m - (int64_t)(1ull << w);
    return (int64_t)m;
}

uint64_t plumb_subint_bits(plumb_dtype t, int64_t v)
{
    uint32_t w = plumb_dtype_get(t)->bits;
    return (uint64_t)v & ((1ull << w) - 1);
}

/* A float type's pattern as its exact double value. */
static double float_value(plumb_dtype t, uint64_t bits)
{
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)bits);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)bits);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)bits);
    case PLUMB_F64: return plumb_f64_from_bits(bits);
    default: return plumb_small_to_f64(plumb_fpfmt_get(t), (uint32_t)bits);
    }
}

uint64_t plumb_float_convert_bits(plumb_dtype s, plumb_dtype d, uint64_t bits)
{
    /* The source value is exactly a double, so the one rounding is the
     * double's to d: f64 -> f32 by the hardware's correctly rounded
     * conversion, the others by their software codecs. */
    double v = float_value(s, bits);
    switch (d) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    default: return plumb_f64_to_small(plumb_fpfmt_get(d), v);
    }
}

/* A double rounded once to float type d. */
static uint64_t float_encode(plumb_dtype d, double v)
{
    switch (d) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    case PLUMB_F64: return plumb_f64_bits(v);
    default: return plumb_f64_to_small(plumb_fpfmt_get(d), v);
    }
}

/* An integer magnitude as a double rounded to odd at 53 bits: exact below
 * 2^53, otherwise a double that rounds to any format of at most 51 bits as
 * the integer itself would (one rounding in effect). */
static double odd_double(uint64_t mag)
{
    if (mag < (1ull << 53))
        return (double)mag;
    int shift = 64 - __builtin_clzll(mag) - 53;
    uint64_t kept = mag >> shift;
    if (mag & ((1ull << shift) - 1))
        kept |= 1;
    return ldexp((double)kept, shift);
}

uint64_t plumb_lowp_convert_bits(plumb_dtype s, plumb_dtype d, uint64_t x)
{
    const plumb_dtype_info *si = plumb_dtype_get(s), *di = plumb_dtype_get(d);
    uint64_t dmask = di->bits >= 64 ? ~0ull : (1ull << di->bits) - 1;
    if (si->cls == PLUMB_DC_FLOAT) {
        if (di->cls == PLUMB_DC_FLOAT)
            return plumb_float_convert_bits(s, d, x);
        double v = float_value(s, x);
        if (di->cls == PLUMB_DC_BOOL)
            return v != 0;   /* NaN != 0 */
        /* Truncated toward zero and saturated; NaN -> 0 (as XLA). */
        if (isnan(v))
            return 0;
        double t = trunc(v);
        if (di->cls == PLUMB_DC_SINT) {
            double lo = -ldexp(1.0, (int)di->bits - 1), hi = ldexp(1.0, (int)di->bits - 1);
            if (t < lo)
                return (1ull << (di->bits - 1)) & dmask;
            if (t >= hi)
                return ((1ull << (di->bits - 1)) - 1) & dmask;
            return (uint64_t)(int64_t)t & dmask;
        }
        if (t < 0)
            return 0;
        if (t >= ldexp(1.0, (int)di->bits))
            return dmask;
        return (uint64_t)t;
    }
    /* An integer or i1 source: its sign and magnitude. */
    bool neg = false;
    uint64_t mag;
    if (si->cls == PLUMB_DC_BOOL) {
        mag = x != 0;
    } else if (si->cls == PLUMB_DC_SINT) {
        uint64_t m = si->bits >= 64 ? x : x & ((1ull << si->bits) - 1);
        int64_t v = si->bits >= 64 ? (int64_t)m
                    : (m >> (si->bits - 1)) ? (int64_t)(m - (1ull << si->bits)) : (int64_t)m;
        neg = v < 0;
        mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    } else {
        mag = si->bits >= 64 ? x : x & ((1ull << si->bits) - 1);
    }
    if (di->cls == PLUMB_DC_BOOL)
        return mag != 0;
    if (di->cls == PLUMB_DC_FLOAT) {
        double v = d == PLUMB_F64 ? (double)mag : odd_double(mag);
        return float_encode(d, neg ? -v : v);
    }
    return (neg ? 0 - mag : mag) & dmask;   /* modulo 2^w */
}
