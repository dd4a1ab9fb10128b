/* The depth families: crossed value classes, thresholds, midpoints and
 * binades (conf_boundaries), and the operand-crossed dots (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* ---- depth families (docs/conformance.md, "Crossed classes, boundaries, binades") ---- */

/* The next representable value of float type t above (up) or below bits b
 * (finite b; ±0 steps to ±the smallest subnormal). */
static uint64_t fstep(plumb_dtype t, uint64_t b, bool up)
{
    uint64_t sign = 1ull << (plumb_dtype_get(t)->bits - 1);
    if ((b & ~sign) == 0) return up ? 1 : sign | 1;
    bool neg = (b & sign) != 0;
    return neg == up ? b - 1 : b + 1;
}

static double fval(plumb_dtype t, uint64_t b)
{
    uint8_t buf[8] = {0};
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* The largest value of float type t that is <= x (x held in MPFR, well
 * inside t's normal range): MPFR rounds to t's precision downwards, and
 * the result is then exact in a double and in t. */
static uint64_t floor_in(plumb_dtype t, const mpfr_t x)
{
    mpfr_t y;
    mpfr_init2(y, (mpfr_prec_t)plumb_dtype_get(t)->mant_bits + 1);
    mpfr_set(y, x, MPFR_RNDD);
    double d = mpfr_get_d(y, MPFR_RNDN);
    mpfr_clear(y);
    return conf_gen_fbits(t, d);
}

/* max_t + ulp/2 = 2^emax·(2 − 2^-p) (the overflow threshold of a correctly
 * rounded result) and min_subnormal/2 = 2^(emin − p) (below it, or at it by
 * ties-to-even, a result rounds to zero), both exact in MPFR. */
static void overflow_at(plumb_dtype t, mpfr_t r)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1, p = (int)di->mant_bits + 1;
    mpfr_set_ui_2exp(r, 1, -p, MPFR_RNDN);
    mpfr_ui_sub(r, 2, r, MPFR_RNDN);
    mpfr_mul_2si(r, r, emax, MPFR_RNDN);
}

static void underflow_at(plumb_dtype t, mpfr_t r)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1, p = (int)di->mant_bits + 1;
    mpfr_set_ui_2exp(r, 1, (1 - emax) - p, MPFR_RNDN);
}

static uint32_t push_pair(conf_boundary *out, uint32_t n, uint32_t cap, uint64_t below, uint64_t above)
{
    if (out && n < cap) { out[n].below = below; out[n].above = above; out[n].other = 0; }
    return n + 1;
}

/* A pair of y values for a binary op with x = other. */
static uint32_t push_pair_x(conf_boundary *out, uint32_t n, uint32_t cap, uint64_t other, uint64_t below, uint64_t above)
{
    n = push_pair(out, n, cap, below, above);
    if (out && n <= cap) out[n - 1].other = other;
    return n;
}

/* A saturation threshold x0 (in MPFR): the pair (largest value <= x0, the next one). */
static uint32_t push_threshold(plumb_dtype t, const mpfr_t x0, conf_boundary *out, uint32_t n, uint32_t cap)
{
    uint64_t lo = floor_in(t, x0);
    return push_pair(out, n, cap, lo, fstep(t, lo, true));
}

uint32_t conf_boundaries(plumb_opcode op, plumb_dtype t, conf_boundary *out, uint32_t cap)
{
    if (!plumb_dtype_is_float(t)) return 0;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int p = (int)di->mant_bits + 1;
    uint64_t sign = 1ull << (di->bits - 1);
    uint32_t n = 0;
    mpfr_t a, b, half;
    mpfr_inits2(256, a, b, half, (mpfr_ptr)0);
    /* 2^-(p+1): half the spacing just below 1; a result within it of ±1
     * rounds to ±1 (at it, ties-to-even picks ±1, whose significand is even) */
    mpfr_set_ui_2exp(half, 1, -(p + 1), MPFR_RNDN);
    switch (op) {
    case PLUMB_OP_EXPONENTIAL:
        overflow_at(t, a);               /* exp(x) = max + ulp/2 */
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, a);              /* exp(x) = min_subnormal/2 */
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE:
        overflow_at(t, a);               /* e^x − 1 = max + ulp/2 */
        mpfr_log1p(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_log(a, half, MPFR_RNDN);    /* e^x = 2^-(p+1): −1 + e^x rounds to −1 */
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_TANH:
        /* 1 − tanh(x) = 2/(e^2x + 1) = 2^-(p+1): x = ln(2/δ − 1)/2; odd */
        mpfr_ui_div(a, 2, half, MPFR_RNDN);
        mpfr_sub_ui(a, a, 1, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_LOGISTIC:
        /* 1 − σ(x) = δ at x = ln((1 − δ)/δ); σ(x) = min_subnormal/2 at x = −ln((1 − m)/m) */
        mpfr_ui_sub(a, 1, half, MPFR_RNDN);
        mpfr_div(a, a, half, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, b);
        mpfr_ui_sub(a, 1, b, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_ERF: {
        /* erfc(x) = 2^-(p+1), by bisection on [0, 30] (erfc decreases) */
        mpfr_t lo, hi, mid, v;
        mpfr_inits2(256, lo, hi, mid, v, (mpfr_ptr)0);
        mpfr_set_ui(lo, 0, MPFR_RNDN);
        mpfr_set_ui(hi, 30, MPFR_RNDN);
        for (int it = 0; it < 200; it++) {
            mpfr_add(mid, lo, hi, MPFR_RNDN);
            mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
            mpfr_erfc(v, mid, MPFR_RNDN);
            if (mpfr_cmp(v, half) > 0) mpfr_set(lo, mid, MPFR_RNDN);
            else mpfr_set(hi, mid, MPFR_RNDN);
        }
        n = push_threshold(t, lo, out, n, cap);
        mpfr_neg(lo, lo, MPFR_RNDN);
        n = push_threshold(t, lo, out, n, cap);
        mpfr_clears(lo, hi, mid, v, (mpfr_ptr)0);
        break;
    }
    case PLUMB_OP_COSH:
    case PLUMB_OP_SINH:
        /* cosh(x) = max + ulp/2 at x = acosh(max + ulp/2), and at -x (even);
         * sinh at +-asinh(max + ulp/2) (odd: -inf on the negative side) */
        overflow_at(t, a);
        if (op == PLUMB_OP_COSH) mpfr_acosh(a, a, MPFR_RNDN);
        else mpfr_asinh(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_ERFC: {
        /* By bisection on [0, 40] (erfc decreases; erfc(40) < 2^-2300):
         * erfc(x) = min_subnormal/2 (underflow to +0 above it); erfc(x) =
         * 1 - 2^-(p+1) (rounds to 1 below it: half the spacing under 1);
         * erfc(-x) = 2 - erfc(x) = 1 + 2^-p (rounds to 1 above -x: half the
         * spacing over 1). */
        mpfr_t lo, hi, mid, v;
        mpfr_inits2(256, lo, hi, mid, v, (mpfr_ptr)0);
        for (int which = 0; which < 3; which++) {
            if (which == 0) {
                underflow_at(t, b);
            } else {
                mpfr_set_ui_2exp(b, 1, -(p + (which == 1)), MPFR_RNDN);
                mpfr_ui_sub(b, 1, b, MPFR_RNDN);
            }
            mpfr_set_ui(lo, 0, MPFR_RNDN);
            mpfr_set_ui(hi, 40, MPFR_RNDN);
            for (int it = 0; it < 240; it++) {
                mpfr_add(mid, lo, hi, MPFR_RNDN);
                mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
                mpfr_erfc(v, mid, MPFR_RNDN);
                if (mpfr_cmp(v, b) > 0) mpfr_set(lo, mid, MPFR_RNDN);
                else mpfr_set(hi, mid, MPFR_RNDN);
            }
            if (which == 2) mpfr_neg(lo, lo, MPFR_RNDN);
            n = push_threshold(t, lo, out, n, cap);
        }
        mpfr_clears(lo, hi, mid, v, (mpfr_ptr)0);
        break;
    }
    case PLUMB_OP_POWER: {
        /* the exponent y with 3^y = max + ulp/2 and = min_subnormal/2 (base x = 3) */
        uint32_t n0 = n;
        mpfr_set_ui(b, 3, MPFR_RNDN);
        mpfr_log(b, b, MPFR_RNDN);
        overflow_at(t, a);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, a);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        for (uint32_t i = n0; out && i < n && i < cap; i++) out[i].other = conf_gen_fbits(t, 3.0);
        break;
    }
    case PLUMB_OP_ADD:
    case PLUMB_OP_SUBTRACT:
    case PLUMB_OP_MULTIPLY:
    case PLUMB_OP_DIVIDE: {
        /* max + ulp(max)/2 = max + 2^(emax-p) is the overflow threshold and
         * a tie that rounds to infinity (max's significand is odd); the
         * smallest subnormal times 1/2 is a tie that rounds to 0 */
        uint64_t maxb = ((((1ull << di->exp_bits) - 1) << di->mant_bits)) - 1, one = conf_gen_fbits(t, 1.0), two = conf_gen_fbits(t, 2.0);
        int emax = (1 << (di->exp_bits - 1)) - 1;
        uint64_t h = conf_gen_fbits(t, ldexp(1.0, emax - p)), hf = conf_gen_fbits(t, 0.5);
        if (op == PLUMB_OP_ADD) {
            n = push_pair_x(out, n, cap, maxb, fstep(t, h, false), h);             /* max, inf */
            n = push_pair_x(out, n, cap, maxb | sign, h | sign, fstep(t, h, false) | sign); /* -inf, -max */
        } else if (op == PLUMB_OP_SUBTRACT) {
            n = push_pair_x(out, n, cap, maxb, h | sign, fstep(t, h, false) | sign); /* inf, max */
            n = push_pair_x(out, n, cap, maxb | sign, fstep(t, h, false), h);        /* -max, -inf */
        } else if (op == PLUMB_OP_MULTIPLY) {
            n = push_pair_x(out, n, cap, maxb, one, fstep(t, one, true));           /* max, inf */
            n = push_pair_x(out, n, cap, 1, hf, fstep(t, hf, true));                /* 0, min_subnormal */
        } else {
            n = push_pair_x(out, n, cap, maxb, fstep(t, one, false), one);          /* inf, max */
            n = push_pair_x(out, n, cap, 1, fstep(t, two, false), two);             /* min_subnormal, 0 */
        }
        break;
    }
    case PLUMB_OP_FLOOR:
    case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN:
    case PLUMB_OP_ROUND_NEAREST_AFZ: {
        /* the points where the result steps: integers for floor/ceil,
         * k + 1/2 for the nearest roundings, including 1/2 itself (whose
         * predecessor trips floor(x + 1/2)) and the largest half-integer
         * 2^(p-1) − 1/2; each straddled by its two neighbours, both signs */
        bool nearest = op == PLUMB_OP_ROUND_NEAREST_EVEN || op == PLUMB_OP_ROUND_NEAREST_AFZ;
        double top = ldexp(1.0, p - 1);
        double near[] = {0.5, 1.5, 2.5, 3.5, 1000.5, top - 0.5}, ints[] = {0.0, 1.0, 2.0, 3.0, 1000.0, top - 1.0};
        for (uint32_t i = 0; i < LEN(near); i++) {
            double m = nearest ? near[i] : ints[i];
            if (fval(t, conf_gen_fbits(t, m)) != m) continue; /* not a value of t */
            for (int s = 0; s < 2; s++) {
                if (m == 0 && s) continue;
                uint64_t mb = conf_gen_fbits(t, m) | (s ? sign : 0);
                n = push_pair(out, n, cap, fstep(t, mb, false), fstep(t, mb, true));
            }
        }
        break;
    }
    default:
        break;
    }
    mpfr_clears(a, b, half, (mpfr_ptr)0);
    return n;
}

/* Convert src → dst rounds where the source holds more precision than the
 * target or a wider exponent range (bf16 → f16 rounds in f16's subnormal
 * range and overflows): float pairs with p_src > p_dst or emax_src >
 * emax_dst, and integers of more bits than p_dst. */
static bool convert_rounds(plumb_dtype src, plumb_dtype dst)
{
    if (!plumb_dtype_is_float(dst)) return false;
    uint32_t pd = plumb_dtype_get(dst)->mant_bits + 1;
    if (plumb_dtype_is_float(src))
        return plumb_dtype_get(src)->mant_bits + 1 > pd || plumb_dtype_get(src)->exp_bits > plumb_dtype_get(dst)->exp_bits;
    return !plumb_dtype_is_bool(src) && plumb_dtype_get(src)->bits > pd;
}

/* Float → integer conversion truncates: its result steps at every integer
 * the source holds within the target's range. */
static bool convert_truncates(plumb_dtype src, plumb_dtype dst)
{
    return plumb_dtype_is_float(src) && !plumb_dtype_is_float(dst) && !plumb_dtype_is_bool(dst);
}

/* Truncation steps of float src → integer dst: the pairs (pred(k), k) for
 * k = 1, 2, 3, 100 and the largest value of src not above dst's maximum,
 * and (−k, succ(−k)) for signed targets (−1 < x < 0 gives 0). */
static uint32_t truncation_steps(plumb_dtype src, plumb_dtype dst, conf_boundary *out, uint32_t cap)
{
    const plumb_dtype_info *di = plumb_dtype_get(dst);
    bool sg = plumb_dtype_is_signed(dst);
    double imax = ldexp(1.0, (int)di->bits - (sg ? 1 : 0)) - 1.0; /* rounded up to a power of two in a double for 64 bits */
    uint64_t top = conf_gen_fbits(src, imax);
    while (fval(src, top) > imax || isinf(fval(src, top)) || fval(src, top) >= ldexp(1.0, (int)di->bits - (sg ? 1 : 0)))
        top = fstep(src, top, false);
    uint64_t sign = 1ull << (plumb_dtype_get(src)->bits - 1);
    double ks[] = {1.0, 2.0, 3.0, 100.0, fval(src, top)};
    uint32_t n = 0;
    for (uint32_t i = 0; i < LEN(ks); i++) {
        if (ks[i] > fval(src, top) || fval(src, conf_gen_fbits(src, ks[i])) != ks[i]) continue;
        uint64_t kb = conf_gen_fbits(src, ks[i]);
        n = push_pair(out, n, cap, fstep(src, kb, false), kb);
        if (sg) n = push_pair(out, n, cap, kb | sign, fstep(src, kb | sign, true));
    }
    return n;
}

uint32_t conf_convert_boundaries(plumb_dtype src, plumb_dtype dst, conf_boundary *out, uint32_t cap)
{
    if (plumb_dtype_is_complex(src) || plumb_dtype_is_complex(dst)) return 0;   /* not generated yet */
    /* The FP8/FP6/FP4 and sub-byte formats: no midpoint search yet (fstep
     * assumes a sign bit, which f8E8M0FNU has not: it looped forever). */
    if ((PLUMB_TY_LOWP & (PLUMB_TY_BIT(src) | PLUMB_TY_BIT(dst))) != 0) return 0;
    if (convert_truncates(src, dst)) return truncation_steps(src, dst, out, cap);
    if (!convert_rounds(src, dst)) return 0;
    const plumb_dtype_info *dd = plumb_dtype_get(dst);
    int pd = (int)dd->mant_bits + 1, emax = (1 << (dd->exp_bits - 1)) - 1;
    uint32_t n = 0;
    if (!plumb_dtype_is_float(src)) {
        /* odd multiples of 2^s in [2^(pd+s), 2^(pd+s+1)) are midpoints of dst:
         * (2^pd + 1)·2^s ties to the even 2^pd·2^s, (2^pd + 3)·2^s to (2^pd + 4)·2^s */
        const plumb_dtype_info *si = plumb_dtype_get(src);
        uint64_t mask = si->bits == 64 ? ~0ull : (1ull << si->bits) - 1;
        bool sg = plumb_dtype_is_signed(src);
        int top = (int)si->bits - (sg ? 1 : 0); /* value bits */
        /* the largest shift keeps m below 2^top and below dst's overflow */
        int shifts[2] = {0, (top < emax ? top : emax) - pd - 1};
        for (int k = 0; k < 2; k++) {
            if (k && shifts[1] <= 0) break;
            for (uint64_t j = 1; j <= 3; j += 2) {
                uint64_t m = ((1ull << pd) + j) << shifts[k];
                n = push_pair(out, n, cap, m - 1, m + 1);
                if (sg) n = push_pair(out, n, cap, (0 - (m + 1)) & mask, (0 - (m - 1)) & mask);
            }
        }
        /* the overflow threshold max + ulp/2 = 2^emax·(2 − 2^-pd), an integer
         * when emax >= pd, within the source's range (f16 targets) */
        if (emax >= pd && emax + 1 < top) {
            uint64_t m = ((2ull << pd) - 1) << (emax - pd);
            n = push_pair(out, n, cap, m - 1, m + 1);
        }
        return n;
    }
    /* float: midpoints between neighbours of dst near 1 (ties down and up),
     * near the top of its range, the overflow threshold max + ulp/2, and in
     * its subnormal range; each straddled by the source's neighbours, both
     * signs */
    double sub = ldexp(1.0, 1 - emax - (pd - 1)); /* dst's smallest subnormal */
    double mids[] = {1.0 + ldexp(1.0, -pd), 1.0 + 3.0 * ldexp(1.0, -pd), ldexp(1.0 + 3.0 * ldexp(1.0, -pd), emax - 1),
                     ldexp(2.0 - ldexp(1.0, -pd), emax), 0.5 * sub, 1.5 * sub, 2.5 * sub};
    uint64_t sign = 1ull << (plumb_dtype_get(src)->bits - 1);
    for (uint32_t i = 0; i < LEN(mids); i++) {
        /* the source's neighbours strictly below and above the midpoint
         * (its predecessor and successor when the source holds it) */
        uint64_t lo = conf_gen_fbits(src, mids[i]), hi = lo;
        if (!isfinite(fval(src, lo)) || fval(src, lo) == 0) continue; /* outside the source's range */
        while (fval(src, lo) >= mids[i]) lo = fstep(src, lo, false);
        while (fval(src, hi) <= mids[i]) hi = fstep(src, hi, true);
        if (!isfinite(fval(src, hi))) continue;
        for (int s = 0; s < 2; s++)
            n = s ? push_pair(out, n, cap, hi | sign, lo | sign) : push_pair(out, n, cap, lo, hi);
    }
    return n;
}

uint32_t conf_double_rounding_traps(plumb_dtype dst, uint64_t *out, uint32_t cap)
{
    if (dst != PLUMB_F16 && dst != PLUMB_BF16) return 0;
    const plumb_dtype_info *dd = plumb_dtype_get(dst);
    int pd = (int)dd->mant_bits + 1;
    /* x = m ± δ with m a midpoint of dst and 0 < δ < half an f32 ulp of m:
     * f64 → f32 rounds x to m, whose tie then goes to the even neighbour,
     * which is the far side of m for these signs of δ; one rounding goes
     * to the near side. m = 1 + 2^-pd ties down (1 is even): x = m + δ;
     * m = 1 + 3·2^-pd ties up: x = m − δ. */
    double delta = ldexp(1.0, -24 - 4);
    double v[] = {1.0 + ldexp(1.0, -pd) + delta, 1.0 + 3.0 * ldexp(1.0, -pd) - delta,
                  ldexp(1.0 + ldexp(1.0, -pd) + delta, 10), ldexp(1.0 + 3.0 * ldexp(1.0, -pd) - delta, -10)};
    uint32_t n = 0;
    for (uint32_t i = 0; i < LEN(v); i++)
        for (int s = 0; s < 2; s++) {
            if (out && n < cap) out[n] = plumb_f64_bits(s ? -v[i] : v[i]);
            n++;
        }
    return n;
}

/* The pool a crossed case draws from, ordered by class: special values, the
 * class "boundary", subnormals, small normals near the smallest normal, and
 * random normal(0, 1) values; for integers the edge values and random bits. */
#define POOL_MAX 64
static uint32_t value_pool(gen *g, plumb_dtype t, uint64_t *pool, uint32_t *class_start)
{
    uint32_t n = 0, c = 0;
    if (plumb_dtype_is_bool(t)) {
        pool[n++] = 0;
        pool[n++] = 1;
        class_start[c++] = 0;
        class_start[c] = n;
        return n;
    }
    if (!plumb_dtype_is_float(t)) {
        class_start[c++] = n;
        for (uint64_t i = 0; i < 10; i++) pool[n++] = conf_gen_int_boundary(t, i);
        class_start[c++] = n;
        for (int i = 0; i < 6; i++) pool[n++] = conf_gen_random_bits(g, plumb_dtype_get(t)->bits);
        class_start[c] = n;
        return n;
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    class_start[c++] = n;
    n += conf_float_specials(t, pool + n);
    class_start[c++] = n;
    for (uint64_t i = 0; i < 9; i++) pool[n++] = conf_gen_float_value(g, t, "boundary", i * 7);
    class_start[c++] = n;
    for (int i = 0; i < 6; i++) pool[n++] = conf_gen_float_value(g, t, "subnormal", (uint64_t)i);
    class_start[c++] = n;
    for (int i = 0; i < 4; i++)
        pool[n++] = ((1ull << di->mant_bits) | conf_gen_random_bits(g, di->mant_bits)) | (i % 2 ? 1ull << (di->bits - 1) : 0);
    class_start[c++] = n;
    for (int i = 0; i < 8; i++) pool[n++] = conf_gen_float_value(g, t, "normal", 0);
    class_start[c] = n;
    return n;
}

static uint32_t pool_classes(plumb_dtype t)
{
    return plumb_dtype_is_bool(t) ? 1 : plumb_dtype_is_float(t) ? 5 : 2;
}

/* Elementwise ops of arity >= 2: the operands' pool values crossed (x the
 * row, y the column: every class pair, integer edge pairs such as
 * (INT_MIN, −1) included); clamp crosses x with lo and takes hi from a
 * diagonal; compare returns every direction (and for floats both
 * comparison types) on the same crossed data. */
static bool gen_cross_ew(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    uint32_t K = value_pool(g, t, pool, cls);
    int64_t n = (int64_t)K * K;
    const char *T = conf_gen_tys(g, t, 1, &n);
    plumb_buf *b = &g->body;
    plumb_tensor *p = NULL, *x, *y, *z = NULL;
    if (g->op == PLUMB_OP_SELECT) p = conf_gen_param(g, "p", PLUMB_I1, 1, &n, "uniform", 0, 0);
    x = conf_gen_param(g, g->op == PLUMB_OP_CLAMP ? "lo" : "x", t, 1, &n, NULL, 0, 0);
    y = conf_gen_param(g, g->op == PLUMB_OP_CLAMP ? "x" : "y", t, 1, &n, NULL, 0, 0);
    if (g->op == PLUMB_OP_CLAMP) z = conf_gen_param(g, "hi", t, 1, &n, NULL, 0, 0);
    (void)p;
    if (!x || !y || (g->op == PLUMB_OP_CLAMP && !z)) return conf_gen_push_case(g, "%r");
    for (int64_t i = 0; i < n; i++) {
        plumb_store_bits(t, x->data, (size_t)i, pool[i / K]);
        plumb_store_bits(t, y->data, (size_t)i, pool[i % K]);
        if (z) plumb_store_bits(t, z->data, (size_t)i, pool[(i / K + 2 * (i % K) + 1) % K]);
    }
    if (g->op == PLUMB_OP_COMPARE) {
        const char *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
        uint32_t nt = plumb_dtype_is_float(t) ? 2 : 1;
        plumb_buf names, types;
        plumb_buf_init(&names);
        plumb_buf_init(&types);
        for (uint32_t k = 0; k < nt; k++)
            for (uint32_t d = 0; d < 6; d++) {
                plumb_buf_printf(b, "  %%r%u = stablehlo.compare %s, %%x, %%y%s : (%s, %s) -> %s\n", k * 6 + d,
                                 conf_gen_cmp_dirs[d], !plumb_dtype_is_float(t) ? "" : k ? ", TOTALORDER" : ", FLOAT", T, T, I1);
                plumb_buf_printf(&names, "%s%%r%u", k + d ? ", " : "", k * 6 + d);
                plumb_buf_printf(&types, "%s%s", k + d ? ", " : "", I1);
            }
        char *rn = plumb_arena_strdup(g->out->arena, names.data ? names.data : "");
        g->ret_types = plumb_arena_strdup(g->out->arena, types.data ? types.data : "");
        plumb_buf_free(&names);
        plumb_buf_free(&types);
        if (!rn || !g->ret_types) { g->failed = true; g->ret_types = ""; return conf_gen_push_case(g, ""); }
        return conf_gen_push_case(g, rn);
    }
    if (g->op == PLUMB_OP_SELECT)
        plumb_buf_printf(b, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", conf_gen_tys(g, PLUMB_I1, 1, &n), T);
    else if (g->op == PLUMB_OP_CLAMP)
        plumb_buf_printf(b, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : %s\n", T);
    else
        plumb_buf_printf(b, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
    g->ret_types = T;
    return conf_gen_push_case(g, "%r");
}

/* Dots and reduces with the classes crossed by rows: row r of x (and
 * column r of a dot's y) holds pool values of class r; the last row mixes
 * every class (column c from class c), so a dot multiplies every class by
 * every other (a subnormal by a normal number included) and sums classes
 * within one row. Reduces (add body) get a random init value, not the
 * identity, so an ignored init shows. */
static bool gen_cross_contract(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    value_pool(g, t, pool, cls);
    uint32_t nc = pool_classes(t);
    int64_t rows = nc + 1, len = 13;
    int64_t xd[2] = {rows, len}, yd[2] = {len, rows}, od[2] = {rows, rows};
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, xd, NULL, 0, 0);
    plumb_tensor *y = g->op == PLUMB_OP_REDUCE ? NULL : conf_gen_param(g, "y", t, 2, yd, NULL, 0, 0);
    plumb_tensor *c = g->op == PLUMB_OP_REDUCE ? conf_gen_param(g, "c", t, 0, NULL, "normal", 0, 0) : NULL;
    if (!x || (g->op == PLUMB_OP_REDUCE ? !c : !y)) return conf_gen_push_case(g, "%r");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < len; k++) {
            uint32_t ca = r < (int64_t)nc ? (uint32_t)r : (uint32_t)(k % nc);
            uint32_t span = cls[ca + 1] - cls[ca];
            uint64_t a = pool[cls[ca] + (uint32_t)gsl_rng_uniform_int(g->rng, span)];
            plumb_store_bits(t, x->data, (size_t)(r * len + k), a);
            if (y) {
                uint64_t bv = pool[cls[ca] + (uint32_t)gsl_rng_uniform_int(g->rng, span)];
                plumb_store_bits(t, y->data, (size_t)(k * rows + r), bv);
            }
        }
    const char *X = conf_gen_tys(g, t, 2, xd);
    if (g->op == PLUMB_OP_REDUCE) {
        const char *U = conf_gen_tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [1] : (%s, %s) -> %s\n",
                         X, conf_gen_tys(g, t, 0, NULL), U);
        g->ret_types = U;
    } else {
        const char *Y = conf_gen_tys(g, t, 2, yd), *O = conf_gen_tys(g, t, 2, od);
        if (g->op == PLUMB_OP_DOT)
            plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", X, Y, O);
        else
            plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : (%s, %s) -> %s\n",
                             X, Y, O);
        g->ret_types = O;
    }
    return conf_gen_push_case(g, "%r");
}

/* Pad crossed with pad values of every class: one pad per value (floats: a
 * NaN with a payload, -0, -inf, the smallest subnormal, the largest finite;
 * integers: min, -1 or max, max; i1: true) of an operand mixing the pool's
 * classes, with low, high and interior padding. */
static bool gen_cross_pad(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    uint32_t K = value_pool(g, t, pool, cls);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t pv[5];
    uint32_t np = 0;
    if (plumb_dtype_is_float(t)) {
        uint64_t sign = 1ull << (di->bits - 1), expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
        pv[np++] = expm | conf_gen_qbit(di) | 5; /* quiet NaN, payload 5 */
        pv[np++] = sign;
        pv[np++] = expm | sign;
        pv[np++] = 1;
        pv[np++] = expm - 1;
    } else if (plumb_dtype_is_bool(t)) {
        pv[np++] = 1;
    } else {
        pv[np++] = conf_gen_int_boundary(t, 3);
        pv[np++] = conf_gen_int_boundary(t, 2);
        pv[np++] = conf_gen_int_boundary(t, 4);
    }
    int64_t n = 7, on = 2 + 1 + n + (n - 1);
    const char *T = conf_gen_tys(g, t, 1, &n), *T0 = conf_gen_tys(g, t, 0, NULL), *U = conf_gen_tys(g, t, 1, &on);
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x) return conf_gen_push_case(g, "%r0");
    for (int64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (size_t)i, pool[(uint32_t)(i * 7) % K]);
    plumb_buf names, types;
    plumb_buf_init(&names);
    plumb_buf_init(&types);
    for (uint32_t k = 0; k < np; k++) {
        char pn[16];   /* "v" and any unsigned: gcc -O0 checks the width */
        snprintf(pn, sizeof pn, "v%u", k);
        plumb_tensor *v = conf_gen_param(g, pn, t, 0, NULL, NULL, 0, 0);
        if (v) plumb_store_bits(t, v->data, 0, pv[k]);
        plumb_buf_printf(&g->body, "  %%r%u = stablehlo.pad %%x, %%v%u, low = [2], high = [1], interior = [1] : (%s, %s) -> %s\n",
                         k, k, T, T0, U);
        plumb_buf_printf(&names, "%s%%r%u", k ? ", " : "", k);
        plumb_buf_printf(&types, "%s%s", k ? ", " : "", U);
    }
    char *rn = plumb_arena_strdup(g->out->arena, names.data ? names.data : "");
    g->ret_types = plumb_arena_strdup(g->out->arena, types.data ? types.data : "");
    plumb_buf_free(&names);
    plumb_buf_free(&types);
    if (!rn || !g->ret_types) { g->failed = true; g->ret_types = ""; return conf_gen_push_case(g, ""); }
    return conf_gen_push_case(g, rn);
}

/* Scatter-add with the classes crossed: operand row r holds class r (the
 * last row mixes them), update j lands on row j mod rows with column c from
 * class (c + j) mod classes, so every operand class meets every update class
 * and each row is updated twice (the second on top of the first). */
static bool gen_cross_scatter(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    value_pool(g, t, pool, cls);
    uint32_t nc = pool_classes(t);
    int64_t rows = nc + 1, cols = 13, nu = 2 * rows;
    int64_t xd[2] = {rows, cols}, id[2] = {nu, 1}, ud[2] = {nu, cols};
    plumb_tensor *x = conf_gen_param(g, "x", t, 2, xd, NULL, 0, 0);
    plumb_tensor *ix = conf_gen_param(g, "i", PLUMB_I32, 2, id, NULL, 0, 0);
    plumb_tensor *u = conf_gen_param(g, "u", t, 2, ud, NULL, 0, 0);
    if (!x || !ix || !u) return conf_gen_push_case(g, "%r");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            uint32_t k = r < (int64_t)nc ? (uint32_t)r : (uint32_t)(c % nc);
            plumb_store_bits(t, x->data, (size_t)(r * cols + c),
                             pool[cls[k] + (uint32_t)gsl_rng_uniform_int(g->rng, cls[k + 1] - cls[k])]);
        }
    for (int64_t j = 0; j < nu; j++) {
        plumb_store_bits(PLUMB_I32, ix->data, (size_t)j, (uint64_t)(j % rows));
        for (int64_t c = 0; c < cols; c++) {
            uint32_t k = (uint32_t)((c + j) % nc);
            plumb_store_bits(t, u->data, (size_t)(j * cols + c),
                             pool[cls[k] + (uint32_t)gsl_rng_uniform_int(g->rng, cls[k + 1] - cls[k])]);
        }
    }
    const char *T0 = conf_gen_tys(g, t, 0, NULL), *X = conf_gen_tys(g, t, 2, xd), *IX = conf_gen_tys(g, PLUMB_I32, 2, id), *U = conf_gen_tys(g, t, 2, ud);
    plumb_buf_printf(&g->body, "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                     "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                     "index_vector_dim = 1>}> ({\n"
                     "    ^bb0(%%a: %s, %%c: %s):\n"
                     "      %%s = stablehlo.add %%a, %%c : %s\n"
                     "      stablehlo.return %%s : %s\n"
                     "    }) : (%s, %s, %s) -> %s\n",
                     T0, T0, T0, T0, X, IX, U, X);
    g->ret_types = X;
    return conf_gen_push_case(g, "%r");
}

static void unary_body(gen *g, const char *T, int64_t n)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    if (conf_gen_pred_op(g->op)) {
        const char *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
        g->ret_types = I1;
    } else if (g->op == PLUMB_OP_REDUCE_PRECISION) {
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = e5m10 : %s\n", T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
}

/* Format boundaries of op (conf_boundaries): each pair and one more
 * neighbour on either side; power takes base 3 for x. */
static bool gen_thresholds(gen *g)
{
    plumb_dtype t = g->t;
    conf_boundary bd[32];
    uint32_t nb = conf_boundaries(g->op, t, bd, 32);
    if (nb > 32) nb = 32;
    int64_t n = (int64_t)nb * 4;
    const char *T = conf_gen_tys(g, t, 1, &n);
    bool pw = plumb_op_get(g->op)->arity == 2;
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = pw ? conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || (pw && !y)) return conf_gen_push_case(g, "%r");
    for (uint32_t i = 0; i < nb; i++) {
        uint64_t v[4] = {fstep(t, bd[i].below, false), bd[i].below, bd[i].above, fstep(t, bd[i].above, true)};
        for (int k = 0; k < 4; k++) {
            plumb_store_bits(t, (pw ? y : x)->data, i * 4 + (uint32_t)k, v[k]);
            if (pw) plumb_store_bits(t, x->data, i * 4 + (uint32_t)k, bd[i].other);
        }
    }
    if (pw) {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
        g->ret_types = T;
    } else unary_body(g, T, n);
    return conf_gen_push_case(g, "%r");
}

/* A convert with a small type on either side (conf_small_convert_inputs,
 * conformance/gen_types.c): one rank-1 case holding the pair's whole list. */
static bool gen_small_convert(gen *g)
{
    uint64_t n = conf_small_convert_inputs(g->t, g->target, NULL, 0);
    uint64_t *v = malloc(sizeof *v * (n ? n : 1));
    if (!v) { g->failed = true; return false; }
    conf_small_convert_inputs(g->t, g->target, v, n);
    int64_t dn = (int64_t)n;
    plumb_tensor *x = conf_gen_param(g, "x", g->t, 1, &dn, NULL, 0, 0);
    if (x)
        for (uint64_t i = 0; i < n; i++) plumb_store_bits(g->t, x->data, i, v[i]);
    free(v);
    if (!x) return conf_gen_push_case(g, "%r");
    const char *U = conf_gen_tys(g, g->target, 1, &dn);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", conf_gen_tys(g, g->t, 1, &dn), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

/* Conversion midpoints (conf_convert_boundaries) and, for f64 → f16/bf16,
 * the double-rounding traps. */
static bool gen_midpoints(gen *g)
{
    if (conf_small_convert_pair(g->t, g->target)) return gen_small_convert(g);
    conf_boundary bd[32];
    uint64_t tr[16];
    uint32_t nb = conf_convert_boundaries(g->t, g->target, bd, 32);
    uint32_t nt = g->t == PLUMB_F64 ? conf_double_rounding_traps(g->target, tr, 16) : 0;
    if (nb > 32) nb = 32;
    if (nt > 16) nt = 16;
    int64_t n = (int64_t)nb * 3 + nt;
    plumb_tensor *x = conf_gen_param(g, "x", g->t, 1, &n, NULL, 0, 0);
    if (!x) return conf_gen_push_case(g, "%r");
    uint32_t k = 0;
    for (uint32_t i = 0; i < nb; i++) {
        plumb_store_bits(g->t, x->data, k++, bd[i].below);
        plumb_store_bits(g->t, x->data, k++, bd[i].above);
        /* the midpoint itself: between the two for a float source; ±1 apart for integers */
        uint64_t m = plumb_dtype_is_float(g->t) ? fstep(g->t, bd[i].below, true) : bd[i].below + 1;
        plumb_store_bits(g->t, x->data, k++, m);
    }
    for (uint32_t i = 0; i < nt; i++) plumb_store_bits(g->t, x->data, k++, tr[i]);
    const char *U = conf_gen_tys(g, g->target, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", conf_gen_tys(g, g->t, 1, &n), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

/* f32/f64 unary ops: every binade of the type (subnormal binades
 * included), both signs, a fixed number of random significands in each. */
static bool gen_binades(gen *g)
{
    plumb_dtype t = g->t;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint32_t per = CONF_BINADE_SAMPLES;
    uint32_t nbin = ((1u << di->exp_bits) - 2) + di->mant_bits; /* normal + subnormal binades */
    int64_t n = (int64_t)nbin * 2 * per;
    const char *T = conf_gen_tys(g, t, 1, &n);
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x) return conf_gen_push_case(g, "%r");
    uint64_t sign = 1ull << (di->bits - 1);
    int64_t k = 0;
    for (uint32_t bn = 0; bn < nbin; bn++) {
        for (uint32_t s = 0; s < 2 * per; s++) {
            uint64_t b;
            if (bn < di->mant_bits) {
                /* subnormal binade [2^bn, 2^(bn+1)) in units of the smallest subnormal */
                b = (1ull << bn) | (bn ? conf_gen_random_bits(g, bn) : 0);
            } else {
                uint64_t e = bn - di->mant_bits + 1;
                b = (e << di->mant_bits) | conf_gen_random_bits(g, di->mant_bits);
            }
            plumb_store_bits(t, x->data, (size_t)k++, b | (s % 2 ? sign : 0));
        }
    }
    unary_body(g, T, n);
    return conf_gen_push_case(g, "%r");
}

static bool threshold_op(plumb_opcode op, plumb_dtype t)
{
    if (op == PLUMB_OP_POWER || op == PLUMB_OP_ADD || op == PLUMB_OP_SUBTRACT || op == PLUMB_OP_MULTIPLY ||
        op == PLUMB_OP_DIVIDE)
        return plumb_dtype_is_float(t);
    return (t == PLUMB_F32 || t == PLUMB_F64) && conf_boundaries(op, t, NULL, 0) > 0;
}

/* The depth families of op, after every other case so that the ordinals
 * (and so the data) of the older families do not move. */
bool conf_gen_depth(gen *g)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) continue;   /* complex: not generated yet */
        if (oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity >= 2) ok = conf_gen_depth_case(g, t, t, "cross", gen_cross_ew);
        if (ok && g->op == PLUMB_OP_PAD) ok = conf_gen_depth_case(g, t, t, "cross", gen_cross_pad);
        if (ok && g->op == PLUMB_OP_SCATTER) ok = conf_gen_depth_case(g, t, t, "cross", gen_cross_scatter);
        if (ok && ((oi->kind == PLUMB_KIND_CONTRACTION && g->op != PLUMB_OP_TRIANGULAR_SOLVE &&
                    g->op != PLUMB_OP_CHOLESKY && g->op != PLUMB_OP_CONVOLUTION && g->op != PLUMB_OP_FFT &&
                    g->op != PLUMB_OP_DYNAMIC_CONV && g->op != PLUMB_OP_RAGGED_DOT) ||
                   g->op == PLUMB_OP_REDUCE))
            ok = conf_gen_depth_case(g, t, t, "cross", gen_cross_contract);
        if (ok && threshold_op(g->op, t)) ok = conf_gen_depth_case(g, t, t, "threshold", gen_thresholds);
        if (ok && (t == PLUMB_F32 || t == PLUMB_F64) && conf_gen_is_unary_float_ew(g->op, t))
            ok = conf_gen_depth_case(g, t, t, "binades", gen_binades);
        if (ok && g->op == PLUMB_OP_CONVERT) {
            for (int u = 0; ok && u < PLUMB_DTYPE_COUNT; u++) {
                if (convert_rounds(t, (plumb_dtype)u)) ok = conf_gen_depth_case(g, t, (plumb_dtype)u, "midpoint", gen_midpoints);
                else if (convert_truncates(t, (plumb_dtype)u)) ok = conf_gen_depth_case(g, t, (plumb_dtype)u, "steps", gen_midpoints);
            }
            /* a small source: every pattern into every type */
            for (int u = 0; ok && plumb_dtype_is_lowp(t) && u < PLUMB_DTYPE_COUNT; u++)
                ok = conf_gen_depth_case(g, t, (plumb_dtype)u, "patterns", gen_small_convert);
        }
    }
    return ok;
}

/* ---- operand-crossed dots (docs/conformance.md, "Operand classes crossed") ------------
 * x entirely from class A, y entirely from class B. The other families never
 * make the two operands of a dot differ in class as whole operands (conf_gen_dot
 * fills both from one class, gen_cross_contract puts every class in both),
 * so a backend that picks a kernel by a rule over each whole operand (e.g.
 * "no subnormal can matter when the other operand is >= 2^15", the rule
 * that sent subnormal bf16 operands to a DAZ instruction) was never
 * exercised on the side of the rule that breaks. Ids
 * "<op>/<type>/<shape>/opcross/<A>_<B>", after every other family. */

const char *const conf_opcross_pairs[CONF_OPCROSS_PAIRS][2] = {
    {"subnormal", "large"}, {"large", "subnormal"}, {"subnormal", "normal"},
    {"normal", "subnormal"}, {"special", "subnormal"}, {"subnormal", "special"},
};

/* The binade [2^E, 2^(E+1)) of the "large" class: about the square root of
 * the largest finite value, but at least 2^15 (the threshold of that rule),
 * so E = max(15, emax / 2): f16 15, bf16 and f32 63, f64 511. A large value
 * is only ever multiplied by a subnormal here, and the product of the
 * smallest subnormal 2^(1 - emax - mant) by 2^E is far above the result
 * type's smallest subnormal (f16: 2^-9, bf16: 2^-70, f32: 2^-86, f64:
 * 2^-563), while the largest, below 2^(1 - emax) * 2^(E + 1), is far below
 * 1, so the exact products neither underflow nor overflow. */
int conf_opcross_large_exp(plumb_dtype t)
{
    int emax = (1 << (plumb_dtype_get(t)->exp_bits - 1)) - 1;
    return emax / 2 > 15 ? emax / 2 : 15;
}

static uint64_t opcross_value(gen *g, plumb_dtype t, const char *cls, uint64_t i)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = gsl_rng_uniform(g->rng) < 0.5 ? 1ull << (di->bits - 1) : 0;
    uint64_t mant = conf_gen_random_bits(g, di->mant_bits);
    int bias = (1 << (di->exp_bits - 1)) - 1;
    if (!strcmp(cls, "subnormal")) return (mant ? mant : 1) | sign;   /* every element a nonzero subnormal */
    if (!strcmp(cls, "large"))
        return ((uint64_t)(conf_opcross_large_exp(t) + bias) << di->mant_bits) | mant | sign;
    if (!strcmp(cls, "normal")) {
        /* normal(0, 1) values; the rare one that rounds to 0 or a subnormal becomes 1 */
        uint64_t b = conf_gen_fbits(t, gsl_ran_gaussian(g->rng, 1.0));
        uint64_t mag = b & ((1ull << (di->bits - 1)) - 1);
        return mag < (1ull << di->mant_bits) ? conf_gen_fbits(t, 1.0) : b;
    }
    uint64_t sp[32];
    uint32_t n = conf_float_specials(t, sp);
    return sp[i % n];
}

static bool opcross_case(gen *g, plumb_dtype t, const char *shape, uint32_t pair)
{
    g->t = t; g->target = t; g->shape = shape; g->value = "opcross"; g->rep = 0;
    g->opcross = NULL;
    gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    char nm[32];
    snprintf(nm, sizeof nm, "%s_%s", conf_opcross_pairs[pair][0], conf_opcross_pairs[pair][1]);
    g->opcross = plumb_arena_strdup(g->out->arena, nm);
    if (!g->opcross) g->failed = true;
    shp l = {2, {7, 13}}, r = {2, {13, 5}}, o = {2, {7, 5}};
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(shape, "dimnums")) {
        l = (shp){3, {2, 5, 3}}; r = (shp){3, {3, 2, 4}}; o = (shp){3, {2, 5, 4}};
        dn = "batching_dims = [0] x [1], contracting_dims = [2] x [0]";
    }
    plumb_tensor *x = conf_gen_param(g, "x", t, l.rank, l.dims, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", t, r.rank, r.dims, NULL, 0, 0);
    if (x && y) {
        for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
            plumb_store_bits(t, x->data, i, opcross_value(g, t, conf_opcross_pairs[pair][0], i));
        for (uint64_t i = 0, n = plumb_tensor_numel(y); i < n; i++)
            plumb_store_bits(t, y->data, i, opcross_value(g, t, conf_opcross_pairs[pair][1], i * 7 + 3));
    }
    const char *U = conf_gen_tys(g, t, o.rank, o.dims);
    if (g->op == PLUMB_OP_DOT)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", conf_gen_tys(g, t, l.rank, l.dims),
                         conf_gen_tys(g, t, r.rank, r.dims), U);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                         conf_gen_tys(g, t, l.rank, l.dims), conf_gen_tys(g, t, r.rank, r.dims), U);
    g->ret_types = U;
    bool ok = conf_gen_push_case(g, "%r");
    g->opcross = NULL;
    return ok;
}

/* Every float type of dot and dot_general: the plain form ("odd") and, for
 * dot_general, the batched one ("dimnums"), each pair once. */
bool conf_gen_opcross(gen *g)
{
    if (g->op != PLUMB_OP_DOT && g->op != PLUMB_OP_DOT_GENERAL) return true;
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || !plumb_dtype_is_float(t)) continue;
        for (uint32_t s = 0; ok && s < (g->op == PLUMB_OP_DOT ? 1u : 2u); s++)
            for (uint32_t p = 0; ok && p < CONF_OPCROSS_PAIRS; p++) ok = opcross_case(g, t, s ? "dimnums" : "odd", p);
    }
    return ok && !g->failed;
}

