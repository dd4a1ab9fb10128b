/* The golden generator (docs/golden.md): correctly rounded results computed
 * with MPFR directly — never through the reference interpreter — and
 * rounded once to the element type from a result whose rounding is certain
 * (Ziv's strategy: evaluate at a precision, widen until mpfr_can_round
 * says the rounding to the format, subnormals included, is decided).
 *
 * Inputs come from a private splitmix64 stream seeded from the manifest's
 * seed and the entry, so the files regenerate byte for byte on any machine
 * and any GSL version. */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/golden.h"
#include "golden_internal.h"
#include "../conformance/conf.h"

/* ---- the op list ------------------------------------------------------------------ */

uint32_t golden_ew_arity(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT:
    case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG:
    case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE:
    case PLUMB_OP_COSINE: case PLUMB_OP_TAN: case PLUMB_OP_ERF:
    /* CHLO's math (op set v2) */
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH: case PLUMB_OP_ASINH:
    case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE:
    case PLUMB_OP_LGAMMA: case PLUMB_OP_DIGAMMA:
    /* chlo.tan is stablehlo.tan under its CHLO name; chlo.conj on a real
     * float is the identity (docs/spec/complex.md), both checked here so a
     * backend lowering them on its own is held to the same values */
    case PLUMB_OP_CHLO_TAN: case PLUMB_OP_CONJ:
        return 1;
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_ATAN2:
        return 2;
    /* with attributes or non-float operands or results (gen_decided) */
    case PLUMB_OP_IS_FINITE: case PLUMB_OP_REDUCE_PRECISION: case PLUMB_OP_CONVERT:
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF:
        return 1;
    case PLUMB_OP_COMPARE: case PLUMB_OP_NEXT_AFTER:
        return 2;
    case PLUMB_OP_CLAMP: case PLUMB_OP_SELECT:
        return 3;
    default:
        return 0;
    }
}

bool golden_format_known(plumb_dtype t)
{
    return t == PLUMB_F16 || t == PLUMB_BF16 || t == PLUMB_F32 || t == PLUMB_F64;
}

bool golden_op_exact(plumb_opcode op) { return plumb_op_get(op)->agree == PLUMB_AGREE_EXACT; }

/* ---- the format, from its parameters alone ------------------------------------------- */

typedef struct fmt {
    int p;              /* precision, hidden bit included */
    int emin, emax;     /* IEEE exponents of the smallest and largest normal binade */
    int bits;
} fmt;

static fmt fmt_of(plumb_dtype t)
{
    const plumb_dtype_info *i = plumb_dtype_get(t);
    int bias = (1 << (i->exp_bits - 1)) - 1;
    return (fmt){(int)i->mant_bits + 1, 1 - bias, bias, (int)i->bits};
}

static uint64_t sign_bit(fmt f) { return 1ull << (f.bits - 1); }
static uint64_t exp_all(fmt f) { return ((1ull << (f.bits - f.p)) - 1) << (f.p - 1); }
static uint64_t qnan(fmt f) { return exp_all(f) | 1ull << (f.p - 2); }

/* The value of a bit pattern (every golden format is a subset of double). */
static double decode(fmt f, uint64_t b)
{
    uint64_t m = b & ((1ull << (f.p - 1)) - 1);
    int e = (int)((b & exp_all(f)) >> (f.p - 1));
    double s = (b & sign_bit(f)) ? -1.0 : 1.0;
    if ((b & exp_all(f)) == exp_all(f)) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, f.emin - (f.p - 1));
    return s * ldexp((double)(m | 1ull << (f.p - 1)), e - f.emax - (f.p - 1));
}

/* The bit pattern of v, which the format represents exactly (NaN: the
 * canonical quiet NaN). */
static uint64_t encode(fmt f, double v)
{
    if (isnan(v)) return qnan(f);
    uint64_t s = signbit(v) ? sign_bit(f) : 0;
    double a = fabs(v);
    if (a == 0) return s;
    if (isinf(a)) return s | exp_all(f);
    int e = ilogb(a);
    if (e < f.emin) return s | (uint64_t)ldexp(a, (f.p - 1) - f.emin);
    uint64_t m = (uint64_t)ldexp(a, (f.p - 1) - e) & ((1ull << (f.p - 1)) - 1);
    return s | (uint64_t)(e + f.emax) << (f.p - 1) | m;
}

/* Precision available to a result in y's binade (fewer bits below the
 * normal range; <= 0 below half the smallest subnormal's binade). */
static int eff_prec(fmt f, const mpfr_t y)
{
    int E = (int)mpfr_get_exp(y) - 1;
    return E >= f.emin ? f.p : f.p - (f.emin - E);
}

/* Rounds y, taken as the exact value, to the format: nearest, ties to
 * even, subnormals and overflow as IEEE 754 binary formats do. */
static uint64_t round_fmt(fmt f, const mpfr_t y)
{
    if (mpfr_nan_p(y)) return qnan(f);
    uint64_t s = mpfr_signbit(y) ? sign_bit(f) : 0;
    if (mpfr_zero_p(y)) return s;
    if (mpfr_inf_p(y)) return s | exp_all(f);
    if (mpfr_get_exp(y) - 1 > f.emax) return s | exp_all(f);
    int pe = eff_prec(f, y);
    if (pe < 0) return s;
    if (pe == 0) {
        /* |y| in [min_sub/2, min_sub): the tie at min_sub/2 goes to even (0) */
        mpfr_t h;
        mpfr_init2(h, 8);
        mpfr_set_ui_2exp(h, 1, f.emin - f.p, MPFR_RNDN);
        bool tie = mpfr_cmpabs(y, h) == 0;
        mpfr_clear(h);
        return tie ? s : s | 1;
    }
    mpfr_t z;
    mpfr_init2(z, pe);
    mpfr_set(z, y, MPFR_RNDN);
    double v = mpfr_get_d(z, MPFR_RNDN);
    mpfr_clear(z);
    if (fabs(v) > ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax)) return s | exp_all(f);
    return encode(f, v);
}

/* ---- the ops in MPFR -------------------------------------------------------------------- */

/* y = op(x...) at y's precision. Returns the number of correct bits of y
 * (mpfr_can_round's err): the precision for a correctly rounded MPFR
 * function, fewer for compositions; 0 when y is exact. */
static long eval_op(plumb_opcode op, mpfr_t y, mpfr_t *x)
{
    long P = (long)mpfr_get_prec(y);
    int inex = 0;
    switch (op) {
    case PLUMB_OP_ABS: inex = mpfr_abs(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_NEGATE: inex = mpfr_neg(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_SIGN:
        if (mpfr_nan_p(x[0]) || mpfr_zero_p(x[0])) inex = mpfr_set(y, x[0], MPFR_RNDN);
        else inex = mpfr_set_si(y, mpfr_sgn(x[0]) < 0 ? -1 : 1, MPFR_RNDN);
        break;
    /* The integer roundings' return value says whether the result differs
     * from the input, not whether it was rounded: an integral value of the
     * format fits in P >= p bits, so the result is always exact. */
    case PLUMB_OP_FLOOR: mpfr_floor(y, x[0]); return 0;
    case PLUMB_OP_CEIL: mpfr_ceil(y, x[0]); return 0;
    case PLUMB_OP_ROUND_NEAREST_EVEN: mpfr_roundeven(y, x[0]); return 0;
    case PLUMB_OP_ROUND_NEAREST_AFZ: mpfr_round(y, x[0]); return 0;
    case PLUMB_OP_SQRT: inex = mpfr_sqrt(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_RSQRT:
        /* IEEE 754-2019 rSqrt(±0) = ±inf (MPFR gives +inf for both) */
        if (mpfr_zero_p(x[0])) { mpfr_set_inf(y, mpfr_signbit(x[0]) ? -1 : 1); return 0; }
        inex = mpfr_rec_sqrt(y, x[0], MPFR_RNDN);
        break;
    case PLUMB_OP_CBRT: inex = mpfr_cbrt(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL: inex = mpfr_exp(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: inex = mpfr_expm1(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_LOG: inex = mpfr_log(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_LOG_PLUS_ONE: inex = mpfr_log1p(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_LOGISTIC: {
        /* 1 / (1 + exp(-x)): three roundings, each within 2^-P relative,
         * so y errs by less than 4 ulps at P: P - 2 correct bits. */
        mpfr_t t;
        mpfr_init2(t, P);
        int i1 = mpfr_neg(t, x[0], MPFR_RNDN);
        i1 |= mpfr_exp(t, t, MPFR_RNDN);
        i1 |= mpfr_add_ui(t, t, 1, MPFR_RNDN);
        i1 |= mpfr_ui_div(y, 1, t, MPFR_RNDN);
        mpfr_clear(t);
        return i1 ? P - 2 : 0;
    }
    case PLUMB_OP_TANH: inex = mpfr_tanh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_SINE: inex = mpfr_sin(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_COSINE: inex = mpfr_cos(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_TAN: case PLUMB_OP_CHLO_TAN: inex = mpfr_tan(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_CONJ: inex = mpfr_set(y, x[0], MPFR_RNDN); break;   /* a real x: x itself, NaN kept */
    case PLUMB_OP_ERF: inex = mpfr_erf(y, x[0], MPFR_RNDN); break;
    /* CHLO's math: MPFR's correctly rounded functions, whose special
     * values are C99 Annex F's (docs/ops.md): lgamma is log|gamma| (+inf at
     * the poles and at +-0), digamma(+-0) = -+inf and NaN at the negative
     * integers and -inf */
    case PLUMB_OP_ACOS: inex = mpfr_acos(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ASIN: inex = mpfr_asin(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ATAN: inex = mpfr_atan(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ACOSH: inex = mpfr_acosh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ASINH: inex = mpfr_asinh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ATANH: inex = mpfr_atanh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_COSH: inex = mpfr_cosh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_SINH: inex = mpfr_sinh(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ERFC: inex = mpfr_erfc(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_SQUARE: inex = mpfr_sqr(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_LGAMMA: {
        int sg;
        inex = mpfr_lgamma(y, &sg, x[0], MPFR_RNDN);
        break;
    }
    case PLUMB_OP_DIGAMMA: inex = mpfr_digamma(y, x[0], MPFR_RNDN); break;
    case PLUMB_OP_ADD: inex = mpfr_add(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_SUBTRACT: inex = mpfr_sub(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_MULTIPLY: inex = mpfr_mul(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_DIVIDE: inex = mpfr_div(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_REMAINDER: inex = mpfr_fmod(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_POWER: inex = mpfr_pow(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_ATAN2: inex = mpfr_atan2(y, x[0], x[1], MPFR_RNDN); break;
    case PLUMB_OP_MAXIMUM:
    case PLUMB_OP_MINIMUM: {
        /* IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0 */
        if (mpfr_nan_p(x[0]) || mpfr_nan_p(x[1])) { mpfr_set_nan(y); return 0; }
        int c = mpfr_cmp(x[0], x[1]);
        if (c == 0) c = (mpfr_signbit(x[1]) ? 1 : 0) - (mpfr_signbit(x[0]) ? 1 : 0);
        bool first = op == PLUMB_OP_MAXIMUM ? c >= 0 : c <= 0;
        inex = mpfr_set(y, first ? x[0] : x[1], MPFR_RNDN);
        break;
    }
    default:
        mpfr_set_nan(y);
        return 0;
    }
    return inex ? P : 0;
}

/* Whether every value within 2^(EXP(y) - err) of y rounds to the same
 * value of the format as y (round_fmt is monotonic: the two ends agreeing
 * decides it). Unlike mpfr_can_round's directed-rounding test, a result
 * next to a representable number (expm1(-65504) = -1 + e^-65504) is
 * decided at once; only closeness to a midpoint needs more bits. */
static bool decided(fmt f, const mpfr_t y, long err)
{
    mpfr_prec_t P = mpfr_get_prec(y) + 4;
    mpfr_t lo, hi;
    mpfr_init2(lo, P);
    mpfr_init2(hi, P);
    mpfr_set_ui_2exp(lo, 1, mpfr_get_exp(y) - err, MPFR_RNDN);
    mpfr_add(hi, y, lo, MPFR_RNDN);     /* exact: err <= prec(y) */
    mpfr_sub(lo, y, lo, MPFR_RNDN);
    bool same = mpfr_signbit(lo) == mpfr_signbit(hi) && round_fmt(f, lo) == round_fmt(f, hi);
    mpfr_clear(lo);
    mpfr_clear(hi);
    return same;
}

/* The correctly rounded result of op on inputs in (bit patterns of t). */
static bool cr_result(plumb_opcode op, fmt f, const uint64_t *in, uint32_t n, uint64_t *out, plumb_diag *d)
{
    mpfr_t x[2], y;
    for (uint32_t i = 0; i < n; i++) {
        mpfr_init2(x[i], 64);
        mpfr_set_d(x[i], decode(f, in[i]), MPFR_RNDN);
    }
    bool ok = false;
    for (long P = f.p + 40; P <= 16384; P *= 2) {
        mpfr_init2(y, P);
        mpfr_clear_flags();
        long err = eval_op(op, y, x);
        bool done = err == 0 || !mpfr_regular_p(y);
        if (!done) done = decided(f, y, err);
        if (done) {
            *out = round_fmt(f, y);
            ok = true;
        }
        mpfr_clear(y);
        if (ok) break;
    }
    for (uint32_t i = 0; i < n; i++) mpfr_clear(x[i]);
    if (!ok)
        plumb_diag_set(d, PLUMB_ERR_RUNTIME, (plumb_loc){0, 0}, "golden: %s: the rounding of the result on "
                       "inputs 0x%llx, 0x%llx is not decided at 16384 bits", plumb_op_name(op),
                       (unsigned long long)in[0], (unsigned long long)(n > 1 ? in[1] : 0));
    return ok;
}

/* How close op's exact result on in lies to a rounding midpoint of the
 * format, in ulps (0 = on one; 0.5 = representable); 1 when the result
 * is special or outside the normal range. */
static double midpoint_distance(plumb_opcode op, fmt f, const uint64_t *in)
{
    mpfr_t x[2], y, t;
    uint32_t n = golden_ew_arity(op);
    for (uint32_t i = 0; i < n; i++) {
        mpfr_init2(x[i], 64);
        mpfr_set_d(x[i], decode(f, in[i]), MPFR_RNDN);
    }
    long P = 2 * f.p + 40;
    mpfr_init2(y, P);
    mpfr_init2(t, P);
    (void)eval_op(op, y, x);
    double dist = 1.0;
    if (mpfr_regular_p(y) && eff_prec(f, y) == f.p && mpfr_get_exp(y) - 1 <= f.emax) {
        mpfr_abs(t, y, MPFR_RNDN);
        mpfr_mul_2si(t, t, f.p - mpfr_get_exp(y), MPFR_RNDN);
        mpfr_frac(t, t, MPFR_RNDN);
        mpfr_sub_d(t, t, 0.5, MPFR_RNDN);
        dist = fabs(mpfr_get_d(t, MPFR_RNDN));
    }
    mpfr_clear(y);
    mpfr_clear(t);
    for (uint32_t i = 0; i < n; i++) mpfr_clear(x[i]);
    return dist;
}

/* ---- input choice ------------------------------------------------------------------------ */

typedef struct rng { uint64_t s; } rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rbelow(rng *r, uint64_t n) { return rnext(r) % n; }

static uint64_t rand_finite_bits(rng *r, fmt f)
{
    for (;;) {
        uint64_t b = rnext(r) & ((f.bits == 64) ? ~0ull : ((1ull << f.bits) - 1));
        if ((b & exp_all(f)) != exp_all(f)) return b;
    }
}

/* A value with a random sign (unless positive), significand and binary
 * exponent in [lo, hi] (clamped to the normal range). */
static uint64_t rand_binade(rng *r, fmt f, int lo, int hi, bool positive)
{
    if (lo < f.emin) lo = f.emin;
    if (hi > f.emax) hi = f.emax;
    int e = lo + (int)rbelow(r, (uint64_t)(hi - lo + 1));
    uint64_t m = rnext(r) & ((1ull << (f.p - 1)) - 1);
    uint64_t s = (!positive && (rnext(r) & 1)) ? sign_bit(f) : 0;
    return s | (uint64_t)(e + f.emax) << (f.p - 1) | m;
}

static uint64_t rand_subnormal(rng *r, fmt f)
{
    uint64_t m = 1 + rbelow(r, (1ull << (f.p - 1)) - 1);
    return ((rnext(r) & 1) ? sign_bit(f) : 0) | m;
}

/* The binades where op's interesting results live, for random inputs. */
static void op_range(plumb_opcode op, fmt f, int *lo, int *hi)
{
    *lo = -12;
    *hi = 12;
    switch (op) {
    case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH:
    case PLUMB_OP_ERF:
        *hi = f.emax >= 127 ? 7 : 3;
        break;
    case PLUMB_OP_POWER: *lo = -4; *hi = 3; break;
    case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ERFC:
        *hi = f.emax >= 127 ? 7 : 3;
        break;
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATANH:
        *lo = -24;          /* the domain is [-1, 1] */
        *hi = -1;
        break;
    default: break;
    }
}

typedef struct recs {
    uint64_t *v;        /* n records of w elements */
    uint32_t n, cap, w;
} recs;

static bool recs_push(recs *rs, const uint64_t *rec, plumb_diag *d)
{
    if (rs->n == rs->cap) {
        uint32_t nc = rs->cap ? rs->cap * 2 : 256;
        uint64_t *nv = plumb_calloc((size_t)nc * rs->w, sizeof *nv);
        if (!nv) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); return false; }
        if (rs->v) {
            memcpy(nv, rs->v, (size_t)rs->n * rs->w * sizeof *nv);
            plumb_free(rs->v, (size_t)rs->cap * rs->w * sizeof *nv);
        }
        rs->v = nv;
        rs->cap = nc;
    }
    memcpy(rs->v + (size_t)rs->n * rs->w, rec, rs->w * sizeof *rec);
    rs->n++;
    return true;
}

#define GOLDEN_RANDOM 48u       /* seeded random cases per elementwise entry */
#define GOLDEN_HARD 24u         /* hard-to-round cases kept ... */
#define GOLDEN_HARD_POOL 1024u  /* ... from this many random candidates */

/* Pushes inputs in with its correctly rounded result. */
static bool push_ew(recs *rs, plumb_opcode op, fmt f, const uint64_t *in, plumb_diag *d)
{
    uint64_t rec[4];
    uint32_t n = golden_ew_arity(op);
    memcpy(rec, in, n * sizeof *in);
    return cr_result(op, f, in, n, &rec[n], d) && recs_push(rs, rec, d);
}

static void specials(fmt f, uint64_t *v, uint32_t *n, bool small)
{
    double sub_min = ldexp(1.0, f.emin - f.p + 1), norm_min = ldexp(1.0, f.emin);
    double maxf = ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax), sub_max = norm_min - sub_min;
    const double big[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                          sub_min, -sub_min, sub_max, -sub_max, norm_min, -norm_min, maxf, -maxf, 10.0, -10.0};
    const double few[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 2.0, 0.5, sub_min, maxf, -3.0};
    const double *s = small ? few : big;
    uint32_t k = small ? sizeof few / sizeof *few : sizeof big / sizeof *big;
    for (uint32_t i = 0; i < k; i++) v[i] = encode(f, s[i]);
    *n = k;
}

static bool gen_elementwise(rng *r, const plumb_golden_spec *s, recs *rs, plumb_diag *d)
{
    plumb_opcode op = s->op;
    fmt f = fmt_of(s->dtype);
    uint32_t ar = golden_ew_arity(op);
    uint64_t sp[32], in[2];
    uint32_t nsp;
    int lo, hi;
    op_range(op, f, &lo, &hi);
    /* special values: each one (unary), every pair (binary) */
    specials(f, sp, &nsp, ar == 2);
    for (uint32_t i = 0; i < nsp; i++)
        for (uint32_t j = 0; j < (ar == 2 ? nsp : 1); j++) {
            in[0] = sp[i];
            in[1] = sp[j];
            if (!push_ew(rs, op, f, in, d)) return false;
        }
    /* subnormals, alone and against normal numbers */
    for (uint32_t i = 0; i < 8; i++) {
        in[0] = rand_subnormal(r, f);
        in[1] = i < 4 ? rand_subnormal(r, f) : rand_binade(r, f, -4, 4, false);
        if (!push_ew(rs, op, f, in, d)) return false;
    }
    /* range boundaries of the format (conformance's MPFR thresholds) */
    if (ar == 1 || op == PLUMB_OP_POWER) {
        conf_boundary b[16];
        uint32_t nb = conf_boundaries(op, s->dtype, b, 16);
        if (nb > 16) nb = 16;
        for (uint32_t i = 0; i < nb; i++)
            for (int k = 0; k < 2; k++) {
                uint64_t v = k ? b[i].above : b[i].below;
                in[0] = ar == 1 ? v : encode(f, 3.0);
                in[1] = v;
                if (!push_ew(rs, op, f, in, d)) return false;
            }
    }
    /* the overflow and underflow edges of binary arithmetic: max + ulp(max)/2
     * is a tie that rounds to even, i.e. to infinity, one less stays max;
     * 1.5 and 2.5 smallest subnormals halve to ties (to 2 and 2: even) */
    if (op == PLUMB_OP_ADD || op == PLUMB_OP_SUBTRACT || op == PLUMB_OP_MULTIPLY || op == PLUMB_OP_DIVIDE) {
        uint64_t maxb = encode(f, ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax));
        uint64_t half_ulp = encode(f, ldexp(1.0, f.emax - f.p)), sgn = sign_bit(f);
        bool sub = op == PLUMB_OP_SUBTRACT;
        const uint64_t edge[][2] = {
            {maxb, sub ? half_ulp | sgn : half_ulp}, {maxb, sub ? (half_ulp - 1) | sgn : half_ulp - 1},
            {maxb | sgn, sub ? half_ulp : half_ulp | sgn}, {maxb, sub ? (half_ulp + 1) | sgn : half_ulp + 1},
        };
        const uint64_t scale[][2] = {
            {maxb, encode(f, 1.0 + ldexp(1.0, 1 - f.p))}, {3, encode(f, 0.5)}, {5, encode(f, 0.5)},
            {encode(f, ldexp(1.0, f.emin)), encode(f, 0.5)}, {maxb, encode(f, 2.0)},
        };
        bool additive = op == PLUMB_OP_ADD || sub;
        uint32_t ne = additive ? 4 : 5;
        for (uint32_t i = 0; i < ne; i++) {
            in[0] = additive ? edge[i][0] : scale[i][0];
            in[1] = additive ? edge[i][1] : scale[i][1];
            /* divide: by 2 instead of times 0.5, by 0.5 instead of times 2, and by
             * 1 - 2^-p (the predecessor of 1) instead of times 1 + 2^(1-p) */
            if (op == PLUMB_OP_DIVIDE) {
                double m = decode(f, in[1]);
                in[1] = encode(f, m == 0.5 ? 2.0 : m == 2.0 ? 0.5 : 1.0 - ldexp(1.0, -f.p));
            }
            if (!push_ew(rs, op, f, in, d)) return false;
        }
    }
    /* seeded random samples: a quarter random bit patterns, the rest in the op's binades */
    for (uint32_t i = 0; i < GOLDEN_RANDOM; i++) {
        for (uint32_t k = 0; k < ar; k++)
            in[k] = i % 4 == 0 ? rand_finite_bits(r, f)
                               : rand_binade(r, f, lo, hi, (op == PLUMB_OP_POWER && k == 0) || op == PLUMB_OP_ACOSH);
        /* cancellation for add and subtract: operands a few ulps apart */
        if (ar == 2 && i % 4 == 1 && (op == PLUMB_OP_ADD || op == PLUMB_OP_SUBTRACT)) {
            in[1] = in[0] + rbelow(r, 5);
            if (op == PLUMB_OP_ADD) in[1] ^= sign_bit(f);
        }
        if (!push_ew(rs, op, f, in, d)) return false;
    }
    /* hard to round: the candidates whose exact result lies nearest a midpoint */
    uint64_t best[GOLDEN_HARD][2];
    double bd[GOLDEN_HARD];
    uint32_t nbest = 0;
    for (uint32_t i = 0; i < GOLDEN_HARD_POOL; i++) {
        for (uint32_t k = 0; k < ar; k++)
            in[k] = i % 2 ? rand_finite_bits(r, f)
                          : rand_binade(r, f, lo, hi, (op == PLUMB_OP_POWER && k == 0) || op == PLUMB_OP_ACOSH);
        double dist = midpoint_distance(op, f, in);
        if (dist >= 0.5) continue;
        uint32_t at = nbest;
        if (nbest == GOLDEN_HARD) {
            at = 0;
            for (uint32_t k = 1; k < nbest; k++)
                if (bd[k] > bd[at]) at = k;
            if (dist >= bd[at]) continue;
        } else {
            nbest++;
        }
        bd[at] = dist;
        best[at][0] = in[0];
        best[at][1] = in[1];
    }
    for (uint32_t i = 0; i < nbest; i++)
        if (!push_ew(rs, op, f, best[i], d)) return false;
    return true;
}

/* ---- ops decided without Ziv's loop ------------------------------------------------------------
 * compare, is_finite and select decide or copy; clamp picks with IEEE
 * 754-2019 maximum/minimum; convert rounds an exact value once;
 * reduce_precision rounds the significand once (then applies the reduced
 * exponent range). Each result is exact from its definition, so no
 * precision search is needed; MPFR still does the roundings. */

typedef struct dec_op {
    plumb_opcode op;
    fmt f;
    int dir;            /* compare: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE */
    bool total;         /* compare: TOTALORDER */
    fmt dst;            /* convert: the target format */
    int eb, mb;         /* reduce_precision: exponent and mantissa bits */
} dec_op;

static bool is_nan_b(fmt f, uint64_t b) { return (b & exp_all(f)) == exp_all(f) && (b & ((1ull << (f.p - 1)) - 1)); }
static uint64_t fmask(fmt f) { return f.bits == 64 ? ~0ull : (1ull << f.bits) - 1; }

/* IEEE 754-2019 totalOrder as an unsigned key: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. */
static uint64_t total_order_key(fmt f, uint64_t b)
{
    return (b & sign_bit(f)) ? (~b & fmask(f)) : (b | sign_bit(f));
}

/* maximum (want_max) or minimum of IEEE 754-2019: NaN propagates, -0 < +0. */
static uint64_t ieee_pick(fmt f, uint64_t a, uint64_t b, bool want_max)
{
    if (is_nan_b(f, a) || is_nan_b(f, b)) return qnan(f);
    double x = decode(f, a), y = decode(f, b);
    int c = (x > y) - (x < y);
    if (c == 0) c = (int)((b & sign_bit(f)) != 0) - (int)((a & sign_bit(f)) != 0);
    return (want_max ? c >= 0 : c <= 0) ? a : b;
}

/* reduce_precision as XLA defines it (the behaviour StableHLO's testdata
 * records): the significand rounded to mb bits, nearest even, on the
 * value — a normal x to mb + 1 significant bits, a subnormal x to a
 * multiple of 2^(emin - mb), the spacing the bit-pattern rounding gives
 * there — a result past the type's range becoming infinity; then, when
 * eb is narrower than the type's exponent, exponents above the reduced
 * format's bias become infinities and those below its smallest normal
 * exponent zeros (the reduced format has no subnormals). A NaN stays a NaN
 * (mb > 0) or becomes +inf (mb = 0: no NaN to round to). */
static uint64_t reduce_precision_bits(fmt f, uint64_t x, int eb, int mb)
{
    if (is_nan_b(f, x)) return mb > 0 ? x : exp_all(f);
    if ((x & exp_all(f)) == exp_all(f) || (x & ~sign_bit(f)) == 0) return x;
    mpfr_t y;
    mpfr_init2(y, 64);
    mpfr_set_d(y, decode(f, x), MPFR_RNDN);
    uint64_t s = x & sign_bit(f), out;
    if (mb < f.p - 1) {
        if (mpfr_get_exp(y) - 1 >= f.emin) {
            mpfr_prec_round(y, mb + 1, MPFR_RNDN);
            mpfr_prec_round(y, 64, MPFR_RNDN);
        } else {
            mpfr_mul_2si(y, y, mb - f.emin, MPFR_RNDN);
            mpfr_rint(y, y, MPFR_RNDN);
            mpfr_mul_2si(y, y, f.emin - mb, MPFR_RNDN);
        }
    }
    int exp_bits = f.bits - f.p;
    long E = mpfr_zero_p(y) ? 0 : (long)mpfr_get_exp(y) - 1;
    if (mpfr_zero_p(y)) {
        out = s;
    } else if (E > f.emax) {
        out = s | exp_all(f);
    } else if (eb < exp_bits && E > (1L << (eb - 1)) - 1) {
        out = s | exp_all(f);
    } else if (eb < exp_bits && E < 2 - (1L << (eb - 1))) {
        out = s;
    } else {
        out = encode(f, mpfr_get_d(y, MPFR_RNDN));
    }
    mpfr_clear(y);
    return out;
}

static uint64_t decided_result(const dec_op *a, const uint64_t *in)
{
    fmt f = a->f;
    switch (a->op) {
    case PLUMB_OP_COMPARE: {
        int c;
        if (a->total) {
            uint64_t x = total_order_key(f, in[0]), y = total_order_key(f, in[1]);
            c = (x > y) - (x < y);
        } else if (is_nan_b(f, in[0]) || is_nan_b(f, in[1])) {
            return a->dir == 1;         /* unordered: only NE holds */
        } else {
            double x = decode(f, in[0]), y = decode(f, in[1]);
            c = (x > y) - (x < y);
        }
        switch (a->dir) {
        case 0: return c == 0;
        case 1: return c != 0;
        case 2: return c < 0;
        case 3: return c <= 0;
        case 4: return c > 0;
        default: return c >= 0;
        }
    }
    case PLUMB_OP_IS_FINITE: return (in[0] & exp_all(f)) != exp_all(f);
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF: {
        bool inf = (in[0] & ~sign_bit(f)) == exp_all(f), neg = (in[0] & sign_bit(f)) != 0;
        return a->op == PLUMB_OP_IS_INF ? inf : a->op == PLUMB_OP_IS_POS_INF ? inf && !neg : inf && neg;
    }
    case PLUMB_OP_NEXT_AFTER: {
        /* C99 nextafter: NaN in, NaN out; x == y gives y; from a zero, the
         * smallest subnormal with y's sign; else one step toward y, which on
         * sign-magnitude patterns is +1 away from zero and -1 toward it */
        if (is_nan_b(f, in[0]) || is_nan_b(f, in[1])) return qnan(f);
        double x = decode(f, in[0]), y = decode(f, in[1]);
        if (x == y) return in[1];
        if (x == 0) return (in[1] & sign_bit(f)) | 1;
        return ((x < y) == (x > 0)) ? in[0] + 1 : in[0] - 1;
    }
    case PLUMB_OP_SELECT: return in[0] ? in[1] : in[2];
    case PLUMB_OP_CLAMP: return ieee_pick(f, ieee_pick(f, in[1], in[0], true), in[2], false);
    case PLUMB_OP_CONVERT: {
        mpfr_t y;
        mpfr_init2(y, 64);
        mpfr_set_d(y, decode(f, in[0]), MPFR_RNDN);     /* exact */
        uint64_t r = round_fmt(a->dst, y);              /* one rounding; NaN: the quiet NaN */
        mpfr_clear(y);
        return r;
    }
    case PLUMB_OP_REDUCE_PRECISION: return reduce_precision_bits(f, in[0], a->eb, a->mb);
    default: return 0;
    }
}

static bool push_dec(recs *rs, const dec_op *a, const uint64_t *in, plumb_diag *d)
{
    uint64_t rec[4];
    uint32_t n = golden_ew_arity(a->op);
    memcpy(rec, in, n * sizeof *in);
    rec[n] = decided_result(a, in);
    return recs_push(rs, rec, d);
}

/* x with its low `drop` significand bits replaced by a tie (10...0) plus
 * delta (-1, 0, +1): on, just below and just above a rounding midpoint of
 * a format with drop fewer significand bits. */
static uint64_t tie_bits(uint64_t x, int drop, int delta)
{
    uint64_t low = (1ull << drop) - 1;
    return (uint64_t)((int64_t)((x & ~low) | (1ull << (drop - 1))) + delta);
}

static bool gen_decided(rng *r, const plumb_golden_spec *s, recs *rs, plumb_diag *d)
{
    fmt f = fmt_of(s->dtype);
    dec_op a = {s->op, f, 0, false, f, 0, 0};
    uint64_t sp[32], in[3], big[32];
    uint32_t nsp, nbig;
    specials(f, sp, &nsp, true);
    specials(f, big, &nbig, false);
    uint64_t nneg = qnan(f) | sign_bit(f);
    switch (s->op) {
    case PLUMB_OP_COMPARE: {
        static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
        for (int i = 0; i < 6; i++)
            if (!strncmp(s->attr, dirs[i], 2)) a.dir = i;
        a.total = strstr(s->attr, "_TOTALORDER") != NULL;
        /* every pair of special values, and a negative NaN against each */
        for (uint32_t i = 0; i < nsp; i++)
            for (uint32_t j = 0; j < nsp; j++) {
                in[0] = sp[i];
                in[1] = sp[j];
                if (!push_dec(rs, &a, in, d)) return false;
            }
        for (uint32_t i = 0; i < nsp; i++)
            for (int k = 0; k < 2; k++) {
                in[k] = nneg;
                in[1 - k] = sp[i];
                if (!push_dec(rs, &a, in, d)) return false;
            }
        /* neighbours: equal, one ulp apart either way, subnormals */
        for (uint32_t i = 0; i < 24; i++) {
            in[0] = i % 3 == 2 ? rand_subnormal(r, f) : rand_binade(r, f, -12, 12, false);
            in[1] = i % 3 == 0 ? in[0] : in[0] + (i % 2 ? 1 : (uint64_t)-1);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        for (uint32_t i = 0; i < 24; i++) {
            in[0] = rand_finite_bits(r, f);
            in[1] = i % 2 ? rand_finite_bits(r, f) : in[0] ^ sign_bit(f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        return true;
    }
    case PLUMB_OP_NEXT_AFTER: {
        /* every pair of special values (zeros, infinities, max, subnormals
         * toward each other), then random pairs, half of them equal or
         * adjacent, and steps across binade edges */
        for (uint32_t i = 0; i < nsp; i++)
            for (uint32_t j = 0; j < nsp; j++) {
                in[0] = sp[i];
                in[1] = sp[j];
                if (!push_dec(rs, &a, in, d)) return false;
            }
        for (uint32_t i = 0; i < 32; i++) {
            in[0] = i % 4 == 0 ? rand_subnormal(r, f) : rand_finite_bits(r, f);
            in[1] = i % 4 == 1 ? in[0] : i % 4 == 2 ? in[0] + 1 : rand_finite_bits(r, f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        for (uint32_t i = 0; i < 8; i++) {
            uint64_t e = rand_binade(r, f, -8, 8, false) & ~((1ull << (f.p - 1)) - 1);   /* a power of two */
            in[0] = e;
            in[1] = encode(f, i % 2 ? INFINITY : 0.0);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        return true;
    }
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF:
    case PLUMB_OP_IS_FINITE: {
        for (uint32_t i = 0; i < nbig; i++)
            if (!push_dec(rs, &a, &big[i], d)) return false;
        /* every NaN encoding class: the smallest and largest payloads, both signs */
        uint64_t frac = (1ull << (f.p - 1)) - 1;
        const uint64_t nans[] = {exp_all(f) | 1, exp_all(f) | frac, sign_bit(f) | exp_all(f) | 1, nneg,
                                 exp_all(f) - 1, sign_bit(f) | (exp_all(f) - 1)};
        for (uint32_t i = 0; i < sizeof nans / sizeof *nans; i++)
            if (!push_dec(rs, &a, &nans[i], d)) return false;
        for (uint32_t i = 0; i < 24; i++) {
            in[0] = i % 4 == 0 ? rand_subnormal(r, f) : rand_finite_bits(r, f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        return true;
    }
    case PLUMB_OP_SELECT: {
        for (uint32_t i = 0; i < nsp; i++)
            for (uint64_t p = 0; p < 2; p++) {
                in[0] = p;
                in[1] = sp[i];
                in[2] = sp[(i + 5) % nsp];
                if (!push_dec(rs, &a, in, d)) return false;
            }
        for (uint32_t i = 0; i < 24; i++) {
            in[0] = rnext(r) & 1;
            in[1] = rand_finite_bits(r, f);
            in[2] = rand_finite_bits(r, f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        return true;
    }
    case PLUMB_OP_CLAMP: {
        /* bounds: ordinary, signed zeros, NaN, infinities, and min > max */
        const double lo[] = {-1.0, -0.0, 0.0, NAN, -INFINITY, 2.0};
        const double hi[] = {1.0, 0.0, -0.0, NAN, INFINITY, -2.0};
        for (uint32_t i = 0; i < 6; i++)
            for (uint32_t j = 0; j < 6; j++)
                for (uint32_t k = 0; k < nsp; k++) {
                    in[0] = encode(f, lo[i]);
                    in[1] = sp[k];
                    in[2] = encode(f, hi[j]);
                    if (!push_dec(rs, &a, in, d)) return false;
                }
        for (uint32_t i = 0; i < 24; i++) {
            in[0] = rand_binade(r, f, -4, 4, false);
            in[1] = i % 4 == 0 ? rand_finite_bits(r, f) : rand_binade(r, f, -4, 4, false);
            in[2] = rand_binade(r, f, -4, 4, false);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        return true;
    }
    case PLUMB_OP_CONVERT: {
        plumb_dtype u;
        (void)plumb_dtype_parse(s->attr, strlen(s->attr), &u);
        a.dst = fmt_of(u);
        for (uint32_t i = 0; i < nbig; i++)
            if (!push_dec(rs, &a, &big[i], d)) return false;
        for (uint32_t i = 0; i < 8; i++) {
            in[0] = rand_subnormal(r, f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        /* the target's rounding and range boundaries (conformance's, from the formats) */
        conf_boundary b[32];
        uint32_t nb = conf_convert_boundaries(s->dtype, u, b, 32);
        if (nb > 32) nb = 32;
        for (uint32_t i = 0; i < nb; i++)
            for (int k = 0; k < 2; k++) {
                in[0] = k ? b[i].above : b[i].below;
                if (!push_dec(rs, &a, in, d)) return false;
            }
        /* f64 values that round differently when rounded twice through f32 */
        if (s->dtype == PLUMB_F64 && (u == PLUMB_F16 || u == PLUMB_BF16)) {
            uint64_t tr[16];
            uint32_t nt = conf_double_rounding_traps(u, tr, 16);
            for (uint32_t i = 0; i < nt && i < 16; i++)
                if (!push_dec(rs, &a, &tr[i], d)) return false;
        }
        /* random values over the target's binades (and a little past them) */
        int lo_e = a.dst.emin - a.dst.p - 2, hi_e = a.dst.emax + 1;
        for (uint32_t i = 0; i < 32; i++) {
            in[0] = i % 4 == 0 ? rand_finite_bits(r, f) : rand_binade(r, f, lo_e, hi_e, false);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        /* narrowing: ties of the target's precision and their neighbours */
        if (a.dst.p < f.p)
            for (uint32_t i = 0; i < 8; i++) {
                uint64_t x = rand_binade(r, f, a.dst.emin, a.dst.emax - 1, false);
                for (int dl = -1; dl <= 1; dl++) {
                    in[0] = tie_bits(x, f.p - a.dst.p, dl);
                    if (!push_dec(rs, &a, in, d)) return false;
                }
            }
        return true;
    }
    case PLUMB_OP_REDUCE_PRECISION: {
        (void)sscanf(s->attr, "e%dm%d", &a.eb, &a.mb);
        for (uint32_t i = 0; i < nbig; i++)
            if (!push_dec(rs, &a, &big[i], d)) return false;
        uint64_t frac = (1ull << (f.p - 1)) - 1;
        const uint64_t nans[] = {exp_all(f) | 1, nneg, exp_all(f) | frac};
        for (uint32_t i = 0; i < 3; i++)
            if (!push_dec(rs, &a, &nans[i], d)) return false;
        for (uint32_t i = 0; i < 8; i++) {
            in[0] = rand_subnormal(r, f);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        int rb = (1 << (a.eb - 1)) - 1;
        for (uint32_t i = 0; i < 32; i++) {
            in[0] = i % 4 == 0 ? rand_finite_bits(r, f) : rand_binade(r, f, -rb - 2, rb + 1, false);
            if (!push_dec(rs, &a, in, d)) return false;
        }
        /* ties of the reduced significand and their neighbours */
        if (a.mb < f.p - 1)
            for (uint32_t i = 0; i < 8; i++) {
                uint64_t x = i < 2 ? rand_subnormal(r, f) | 1ull << (f.p - 2) : rand_binade(r, f, -12, 12, false);
                for (int dl = -1; dl <= 1; dl++) {
                    in[0] = tie_bits(x, f.p - 1 - a.mb, dl);
                    if (!push_dec(rs, &a, in, d)) return false;
                }
            }
        /* the reduced range's edges where the type can hold them: the
         * largest reduced value and the tie above it, the smallest normal
         * reduced value and its predecessor */
        if (a.eb < f.bits - f.p) {
            double rmax = ldexp(2.0 - ldexp(1.0, -a.mb), rb), rmin = ldexp(1.0, 1 - rb);
            double pts[] = {rmax, rmax + ldexp(1.0, rb - a.mb - 1), rmin, -rmin};
            for (uint32_t i = 0; i < 4; i++) {
                if (fabs(pts[i]) > decode(f, encode(f, ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax))) ||
                    fabs(pts[i]) < ldexp(1.0, f.emin))
                    continue;
                mpfr_t y;
                mpfr_init2(y, 64);
                mpfr_set_d(y, pts[i], MPFR_RNDN);
                uint64_t v = round_fmt(f, y);
                mpfr_clear(y);
                for (int dl = -1; dl <= 1; dl++) {
                    in[0] = v + (uint64_t)(int64_t)dl;
                    if (!push_dec(rs, &a, in, d)) return false;
                }
            }
        }
        return true;
    }
    default:
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "golden: no generator for %s", plumb_op_name(s->op));
        return false;
    }
}

/* ---- sums and dots: exact in MPFR, rounded once ---------------------------------------------- */

/* The exact sum of the terms (x, or x[i]·y[i]), rounded once to the format,
 * and Σ|terms| over the finite terms, also rounded once. IEEE 754 exact-zero
 * sums: the init value is +0, so an exact zero is +0. */
static void exact_sum(fmt f, const uint64_t *x, const uint64_t *y, uint32_t len, uint64_t *res, uint64_t *abs_sum)
{
    /* wide enough for any sum of up to GOLDEN_MAX_LENGTH terms or products
     * of the formats (f64 products span 2^-2148 .. 2^2048): exact */
    const mpfr_prec_t W = 4400;
    mpfr_t *t = malloc(len * sizeof *t), *a = malloc(len * sizeof *a);
    mpfr_ptr *tp = malloc(len * sizeof *tp), *ap = malloc(len * sizeof *ap);
    mpfr_t s, sa;
    mpfr_inits2(W, s, sa, (mpfr_ptr)0);
    uint32_t na = 0;
    for (uint32_t i = 0; i < len; i++) {
        mpfr_init2(t[i], 2 * f.p + 2);
        mpfr_set_d(t[i], decode(f, x[i]), MPFR_RNDN);
        if (y) {
            mpfr_t b;
            mpfr_init2(b, 64);
            mpfr_set_d(b, decode(f, y[i]), MPFR_RNDN);
            mpfr_mul(t[i], t[i], b, MPFR_RNDN);   /* exact: 2p + 2 bits */
            mpfr_clear(b);
        }
        tp[i] = t[i];
        if (mpfr_number_p(t[i])) {
            mpfr_init2(a[na], 2 * f.p + 2);
            mpfr_abs(a[na], t[i], MPFR_RNDN);
            ap[na] = a[na];
            na++;
        }
    }
    mpfr_sum(s, tp, len, MPFR_RNDN);
    if (mpfr_zero_p(s)) mpfr_set_zero(s, 1);
    *res = round_fmt(f, s);
    mpfr_sum(sa, ap, na, MPFR_RNDN);
    *abs_sum = round_fmt(f, sa);
    for (uint32_t i = 0; i < len; i++) mpfr_clear(t[i]);
    for (uint32_t i = 0; i < na; i++) mpfr_clear(a[i]);
    mpfr_clears(s, sa, (mpfr_ptr)0);
    free(t);
    free(a);
    free(tp);
    free(ap);
}

static double sum_midpoint_distance(fmt f, const uint64_t *x, const uint64_t *y, uint32_t len)
{
    /* distance of the exact sum to a midpoint: through an f.p + 40 bit
     * rounding of it, which is plenty to rank candidates */
    mpfr_t *t = malloc(len * sizeof *t);
    mpfr_ptr *tp = malloc(len * sizeof *tp);
    for (uint32_t i = 0; i < len; i++) {
        mpfr_init2(t[i], 2 * f.p + 2);
        mpfr_set_d(t[i], decode(f, x[i]), MPFR_RNDN);
        if (y) mpfr_mul_d(t[i], t[i], decode(f, y[i]), MPFR_RNDN);
        tp[i] = t[i];
    }
    mpfr_t s;
    mpfr_init2(s, f.p + 40);
    mpfr_sum(s, tp, len, MPFR_RNDN);
    double dist = 1.0;
    if (mpfr_regular_p(s) && eff_prec(f, s) == f.p && mpfr_get_exp(s) - 1 <= f.emax) {
        mpfr_exp_t e = mpfr_get_exp(s);
        mpfr_abs(s, s, MPFR_RNDN);
        mpfr_mul_2si(s, s, f.p - e, MPFR_RNDN);
        mpfr_frac(s, s, MPFR_RNDN);
        mpfr_sub_d(s, s, 0.5, MPFR_RNDN);
        dist = fabs(mpfr_get_d(s, MPFR_RNDN));
    }
    mpfr_clear(s);
    for (uint32_t i = 0; i < len; i++) mpfr_clear(t[i]);
    free(t);
    free(tp);
    return dist;
}

/* A random row of len terms of one flavour (finite; sums of them stay far
 * from overflow). */
static void rand_row(rng *r, fmt f, uint32_t flavour, uint64_t *v, uint32_t len)
{
    int top = f.emax >= 127 ? 10 : 3;
    for (uint32_t i = 0; i < len; i++) {
        switch (flavour % 5) {
        case 0: v[i] = rand_binade(r, f, -1, 0, false); break;                 /* uniform-ish in (-2, 2) */
        case 1: v[i] = rand_binade(r, f, -top, top, true); break;              /* positive, wide */
        case 2: v[i] = rand_binade(r, f, -top, top, false); break;             /* mixed sign, wide */
        case 3: v[i] = i % 3 == 0 ? rand_subnormal(r, f) : rand_binade(r, f, f.emin, f.emin + 3, false); break;
        default:                                                               /* cancelling pairs plus noise */
            v[i] = i % 2 ? v[i - 1] ^ sign_bit(f) : rand_binade(r, f, 0, top, false);
            if (i % 7 == 6) v[i] = rand_binade(r, f, -top, -1, false);
            break;
        }
    }
}

/* maximum or minimum over a row from the reduction's init value (-inf for
 * maximum, +inf for minimum), IEEE 754-2019: NaN propagates, -0 < +0. */
static uint64_t row_pick(fmt f, const uint64_t *x, uint32_t len, bool want_max)
{
    uint64_t acc = encode(f, want_max ? -INFINITY : INFINITY);
    for (uint32_t i = 0; i < len; i++) acc = ieee_pick(f, acc, x[i], want_max);
    return acc;
}

/* The stored result of a row: the exact sum or dot rounded once, or for a
 * maximum/minimum body the element it picks; Σ|terms| in both cases. */
static void row_result(fmt f, const plumb_golden_spec *s, const uint64_t *x, const uint64_t *y, uint32_t len,
                       uint64_t *res, uint64_t *abs_sum)
{
    exact_sum(f, x, y, len, res, abs_sum);
    if (golden_sum_exact(s->attr)) *res = row_pick(f, x, len, !strcmp(s->attr, "maximum"));
}

static bool gen_contraction(rng *r, const plumb_golden_spec *s, recs *rs, plumb_diag *d)
{
    fmt f = fmt_of(s->dtype);
    uint32_t len = s->length, w = rs->w;
    bool dot = s->kind == PLUMB_GOLDEN_DOT;
    uint64_t *rec = plumb_calloc(w, sizeof *rec), *cand = plumb_calloc(w, sizeof *cand);
    bool ok = false;
    if (!rec || !cand) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
    uint32_t nin = dot ? 2 * len : len;
    /* special rows: a NaN term, an infinite term, infinities of both signs */
    const double spec[4][2] = {{NAN, 1.0}, {INFINITY, 1.0}, {-INFINITY, 1.0}, {INFINITY, -INFINITY}};
    for (uint32_t k = 0; k < 4; k++) {
        rand_row(r, f, 0, rec, nin);
        rec[0] = encode(f, spec[k][0]);
        if (dot) rec[len] = encode(f, 1.0);
        if (k == 3 && len > 1) {
            rec[len - 1] = encode(f, spec[k][1]);
            if (dot) rec[2 * len - 1] = encode(f, 1.0);
        }
        row_result(f, s, rec, dot ? rec + len : NULL, len, &rec[nin], &rec[nin + 1]);
        if (!recs_push(rs, rec, d)) goto out;
    }
    /* maximum and minimum: rows of signed zeros (-0 < +0 decides) */
    for (uint32_t k = 0; golden_sum_exact(s->attr) && k < 2; k++) {
        for (uint32_t i = 0; i < nin; i++) rec[i] = (k == 0 || i % 3) ? sign_bit(f) : 0;
        row_result(f, s, rec, NULL, len, &rec[nin], &rec[nin + 1]);
        if (!recs_push(rs, rec, d)) goto out;
    }
    for (uint32_t k = 0; k < 20; k++) {
        rand_row(r, f, k, rec, nin);
        row_result(f, s, rec, dot ? rec + len : NULL, len, &rec[nin], &rec[nin + 1]);
        if (!recs_push(rs, rec, d)) goto out;
    }
    /* dots: subnormal operands times large ones, products as large as the
     * rest of the row's (a multiplier that flushes subnormal inputs loses them) */
    for (uint32_t k = 0; dot && k < 4; k++) {
        int lo = f.emin + f.p, big = f.p + 2;
        for (uint32_t i = 0; i < len; i++) {
            bool tiny = i % 2 == 0;
            rec[i] = tiny ? rand_subnormal(r, f) : rand_binade(r, f, lo, lo + 4, false);
            rec[len + i] = tiny ? rand_binade(r, f, big, big + 4, false) : rand_binade(r, f, 0, 4, false);
        }
        row_result(f, s, rec, rec + len, len, &rec[nin], &rec[nin + 1]);
        if (!recs_push(rs, rec, d)) goto out;
    }
    /* hard to round: of 256 candidate rows, the 8 nearest a midpoint */
    double bd[8];
    uint32_t nbest = 0, first = rs->n;
    for (uint32_t k = 0; k < 256; k++) {
        rand_row(r, f, k % 3, cand, nin);
        double dist = sum_midpoint_distance(f, cand, dot ? cand + len : NULL, len);
        if (dist >= 0.5) continue;
        uint32_t at = nbest;
        if (nbest == 8) {
            at = 0;
            for (uint32_t i = 1; i < nbest; i++)
                if (bd[i] > bd[at]) at = i;
            if (dist >= bd[at]) continue;
        } else {
            if (!recs_push(rs, cand, d)) goto out;
            nbest++;
        }
        bd[at] = dist;
        memcpy(rs->v + (size_t)(first + at) * w, cand, nin * sizeof *cand);
    }
    for (uint32_t i = 0; i < nbest; i++) {
        uint64_t *q = rs->v + (size_t)(first + i) * w;
        row_result(f, s, q, dot ? q + len : NULL, len, &q[nin], &q[nin + 1]);
    }
    ok = true;
out:
    if (rec) plumb_free(rec, w * sizeof *rec);
    if (cand) plumb_free(cand, w * sizeof *cand);
    return ok;
}

/* ---- the file ------------------------------------------------------------------------------ */

bool plumb_golden_generate(uint64_t seed, const plumb_golden_spec *s, uint8_t **out, size_t *len, plumb_diag *d)
{
    *out = NULL;
    *len = 0;
    uint32_t spec_crc = plumb_golden_spec_crc(seed, s);
    rng r = {seed ^ ((uint64_t)spec_crc << 32 | spec_crc)};
    uint32_t n_in = s->kind == PLUMB_GOLDEN_ELEMENTWISE ? golden_ew_arity(s->op)
                    : s->kind == PLUMB_GOLDEN_DOT ? 2 * s->length : s->length;
    uint32_t n_out = s->kind == PLUMB_GOLDEN_ELEMENTWISE ? 1 : 2;
    recs rs = {NULL, 0, 0, n_in + n_out};
    /* the generator's own rounding is the only one: MPFR's exponent range
     * is left at its default (far wider than any format) */
    bool decided_op = s->op == PLUMB_OP_COMPARE || s->op == PLUMB_OP_IS_FINITE || s->op == PLUMB_OP_SELECT ||
                      s->op == PLUMB_OP_CLAMP || s->op == PLUMB_OP_CONVERT || s->op == PLUMB_OP_REDUCE_PRECISION ||
                      s->op == PLUMB_OP_IS_INF || s->op == PLUMB_OP_IS_POS_INF || s->op == PLUMB_OP_IS_NEG_INF ||
                      s->op == PLUMB_OP_NEXT_AFTER;
    bool ok = s->kind != PLUMB_GOLDEN_ELEMENTWISE ? gen_contraction(&r, s, &rs, d)
              : decided_op ? gen_decided(&r, s, &rs, d) : gen_elementwise(&r, s, &rs, d);
    if (!ok) goto out;
    uint32_t eb = golden_elem_bytes(s->op, s->dtype, s->attr);
    size_t n = PLUMB_GOLDEN_HEADER_SIZE + (size_t)rs.n * rs.w * eb;
    uint8_t *p = plumb_calloc(n, 1);
    if (!p) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); ok = false; goto out; }
    memcpy(p, PLUMB_GOLDEN_MAGIC, 8);
    golden_wr32(p + 8, PLUMB_GOLDEN_VERSION);
    golden_wr32(p + 12, PLUMB_GOLDEN_HEADER_SIZE);
    snprintf((char *)p + 16, PLUMB_GOLDEN_OP_NAME_MAX, "%s%s%s", plumb_op_name(s->op), s->attr[0] ? " " : "", s->attr);
    snprintf((char *)p + 56, PLUMB_GOLDEN_DTYPE_NAME_MAX, "%s", plumb_dtype_name(s->dtype));
    golden_wr32(p + 64, (uint32_t)s->kind);
    golden_wr32(p + 68, n_in);
    golden_wr32(p + 72, n_out);
    golden_wr32(p + 76, eb);
    golden_wr32(p + 80, rs.n);
    golden_wr32(p + 84, spec_crc);
    uint8_t *q = p + PLUMB_GOLDEN_HEADER_SIZE;
    for (size_t i = 0; i < (size_t)rs.n * rs.w; i++)
        for (uint32_t b = 0; b < eb; b++) *q++ = (uint8_t)(rs.v[i] >> (8 * b));
    golden_wr32(p + 88, plumb_golden_crc32(p + PLUMB_GOLDEN_HEADER_SIZE, n - PLUMB_GOLDEN_HEADER_SIZE));
    golden_wr32(p + 92, plumb_golden_crc32(p, 92));
    *out = p;
    *len = n;
out:
    if (rs.v) plumb_free(rs.v, (size_t)rs.cap * rs.w * sizeof *rs.v);
    return ok;
}
