/* Runtime kernels of stablehlo.reduce_window and stablehlo.select_and_scatter
 * (op set v2, docs/spec/window.md; geometry and semantics in ref/window.c).
 *
 * reduce_window, recognised one-input bodies (add, multiply, maximum,
 * minimum; and, or on integers; the body is looked at once per run, never
 * per element): the output is split into rows along its innermost
 * dimension, rows spread over the thread pool (a row is computed by one
 * thread, so the result never depends on the thread count). A row keeps one
 * accumulator per output element and folds whole input rows into it, window
 * position by window position in row-major order, init first:
 *   floats   accumulator double (f16, bf16, f32 and f64 terms); add and
 *            multiply round in double at each step and once more to the
 *            element type at the end (f16 and bf16 adds: see below; f64
 *            sums and products of any float type whose double fold left
 *            double's range are computed again exactly: win_exact);
 *            maximum/minimum are exact (IEEE
 *            754-2019: NaN propagates, -0 < +0), bitwise the reference's
 *   integers accumulator 64 bits, add/multiply wrapping (truncated to the
 *            element width at the end), max/min by signedness; i1 add/max/or
 *            = or, multiply/min/and = and; bitwise the reference's
 * The window's positions that fall on padding or dilation holes fold the
 * init value, as the spec's padded input holds it. An f32 sum of k window
 * positions is init + k terms added in double (error at most (k) * 2^-53
 * * sum|terms|) then rounded once to f32: within the certified data-dependent
 * bound gamma(k) * sum|terms| of reduce (docs/runtime-reduce.md), far
 * inside it; f64 sums are sequential in double, gamma(k) by Higham's
 * recursive-summation bound. Contiguous input rows (innermost stride and
 * base dilation 1) of f32 and f64 take AVX2 or AVX-512 loops at those
 * levels; each lane does the portable loop's operations in its order, so
 * every level gives the same bits.
 *
 * f16 and bf16 add: the double sum alone would round twice (exact -> double
 * -> element type), and an exact sum on an element-type midpoint plus a
 * term below double's resolution (a tiny init, say) would then tie to even
 * where the exact sum rounds away: the reference's correctly rounded sum
 * differs by one ulp. So each add also keeps its exact rounding error
 * (TwoSum) in a second double, and the final rounding goes through the
 * sum rounded to odd in double (53 >= p + 2 bits for p = 11 and 8, so
 * rounding that to the element type is rounding the sum once): correctly
 * rounded unless the errors' own double sum loses the sign of a residue
 * (terms spanning more than about 2 x 53 binades). Where no add rounds in
 * double the result is the plain double sum's, bit for bit.
 *
 * Channels-last rows (innermost window 1, stride 1, no padding there, the
 * window inside the operand on the outer dimensions: NHWC pooling) of the
 * exact folds (f16/bf16/f32/f64 maximum/minimum, integer max/min/add/and/or)
 * at AVX-512 keep each block's accumulator in a register through every
 * window position and write the result once: blocks aligned to 64-byte
 * lines, a software prefetch per window row, streaming stores for large
 * results (docs/runtime-window.md has the measurements). Border windows
 * (on padding or base-dilation holes of the outer dimensions) of the
 * idempotent folds (max, min, and, or) take the same kernels on their
 * positions inside the operand: init is folded first, so its repeats on
 * the padded positions change nothing. Channels-first rows (the innermost
 * dimension windowed) of f32 maximum/minimum: at AVX-512 with stride 1 or
 * 2, a register per block of sixteen results through every window
 * position (f32_rowwin_cf_avx512; stride 2 gathers even lanes with
 * VPERMT2PS); at AVX2, each window position's input row folded into f32
 * accumulators, prefetched.
 *
 * Any other body (several inputs, argmax pairs, promoted types) runs
 * through the program's compiled region (rt_eval_region), per element in the
 * reference's order, so it matches the reference bit for bit.
 *
 * select_and_scatter: selection and scatter run through the regions
 * (rt_eval_region) in the reference's order, except the common pooling
 * gradient (select = compare GE or GT of (selected, candidate), scatter =
 * add), which is evaluated directly: the same comparisons and the same
 * additions in the same order (adds in double, rounded to the element type
 * at every step, correctly rounded for every float type since double has
 * more than 2p + 2 bits), so bit for bit the reference's result. Windows
 * that tile the operand (sas_tiles) skip the init fill: each element is
 * written once, init or init + its one source. Overlapping windows over
 * an unwindowed batch dimension 0 (sas_lazy) fill each slab along
 * dimension 1 just before the first window reaching it, which keeps every
 * element's sequence (init, then its sources in source order); windows
 * overlapping along dimension 0 itself (sas_lazy0) the slabs along
 * dimension 0 likewise.
 *
 * Overlapping pools of the idempotent folds (and of integer add) at
 * AVX-512 take separable lines (rw_sep_line: the folds off one dimension per input column, then
 * along it), channels-last along dimension last - 1 and channels-first
 * along the innermost dimension; docs/runtime-window.md. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "rt_internal.h"
#include "rt_lowp.h"
#include "rt_pipeline.h"
#include "plumb/fp8.h"
#include "plumb/window.h"

#if defined(__x86_64__) || defined(__i386__)
#define WIN_X86 1
#include <immintrin.h>
#else
#define WIN_X86 0
#endif

/* Outputs at least this large are written with streaming stores (no read
 * for ownership, no eviction of the input's lines): they would leave the
 * caches before a consumer reads them anyway. */
#define WIN_STREAM_BYTES ((uint64_t)16 << 20)

typedef ir_window win_geom;

static bool geom_init(rt_exec *x, const ir_op *op, const plumb_tensor *t, bool dilations, win_geom *g)
{
    char why[160];
    if (!ir_window_init(g, &op->a, t->rank, t->dims, dilations, why, sizeof why))
        return rt_fail(x, op, PLUMB_ERR_INVALID, "%s", why);
    return true;
}

/* ---- float folds on double accumulators ------------------------------------ */

static inline double f_max(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline double f_min(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

static inline double f_fold(ir_window_body k, double a, double v)
{
    switch (k) {
    case IR_WB_ADD: return a + v;
    case IR_WB_MUL: return a * v;
    case IR_WB_MAX: return f_max(a, v);
    default: return f_min(a, v);
    }
}

static inline double f_load(plumb_dtype t, const void *p, int64_t i)
{
    switch (t) {
    case PLUMB_F32: return ((const float *)p)[i];
    case PLUMB_F64: return ((const double *)p)[i];
    case PLUMB_F16: return plumb_f16_to_f64(((const uint16_t *)p)[i]);
    default: return plumb_bf16_to_f64(((const uint16_t *)p)[i]);
    }
}

static inline void f_store(plumb_dtype t, void *p, int64_t i, double v)
{
    switch (t) {
    case PLUMB_F32: ((float *)p)[i] = (float)v; break;
    case PLUMB_F64: ((double *)p)[i] = v; break;
    case PLUMB_F16: ((uint16_t *)p)[i] = plumb_f64_to_f16(v); break;
    default: ((uint16_t *)p)[i] = plumb_f64_to_bf16(v); break;
    }
}

static void f_row_portable(ir_window_body k, plumb_dtype t, double *acc, const void *src, int64_t off, int64_t step, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        acc[j] = f_fold(k, acc[j], f_load(t, src, off + j * step));
}

/* hi + v in double, the add's exact rounding error (Knuth's TwoSum, no
 * magnitude ordering needed) added to *lo: hi + lo tracks the sum far
 * below double's last bit. A non-finite hi makes lo NaN; only hi is read
 * then (half_sum). */
static inline void f_add2(double *hi, double *lo, double v)
{
    double a = *hi, s = a + v, bv = s - a;
    *lo += (a - (s - bv)) + (v - bv);
    *hi = s;
}

/* hi + lo rounded to odd in double: the TwoSum of the two, then, when that
 * rounding was inexact and left an even last bit, the double next to it on
 * the exact value's side (the exact value lies strictly between the two).
 * Rounding this to a format of at most 51 bits rounds hi + lo correctly:
 * no midpoint of that format falls strictly between them. */
static inline double half_sum(double hi, double lo)
{
    if (lo == 0 || !isfinite(hi))
        return hi;   /* also keeps -0 + -0 = -0 */
    double s = hi + lo, bv = s - hi, e = (hi - (s - bv)) + (lo - bv);
    if (e == 0)
        return s;
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    return (bits & 1) ? s : nextafter(s, e > 0 ? INFINITY : -INFINITY);
}

static void f_row_comp(plumb_dtype t, double *acc, double *lo, const void *src, int64_t off, int64_t step, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        f_add2(&acc[j], &lo[j], f_load(t, src, off + j * step));
}

/* ---- exact recomputation of the windows the double fold got wrong -----------
 *
 * An f64 add in double overflows where the exact sum need not (the
 * cumulative sum of [1.7e308, 1.7e308, -1.7e308] is +inf, the reference's
 * exact sum 1.7e308), and a product in double overflows or underflows
 * where the exact product need not (of any float type: 18 f32 factors
 * reach 2^1024; [1e300, 1e300, 1e-300] gives inf, [1e-300, 1e-300, 1e300]
 * 0, [1e-300, 1e-20, 1e300] a 1e-20 short of 14 bits). Such windows are
 * computed again here, the way the reference (ref/accum.c) does:
 *
 *   f64 add   an exact fixed-point sum (xsum: 32-bit digits in signed
 *             64-bit limbs covering 2^-1074 .. 2^1165), rounded once to
 *             nearest even: the reference's bits, whatever the order.
 *   multiply  the magnitude as a double-double times a separate binary
 *             exponent (xprod: frexp-normalised, each factor by an FMA
 *             TwoProduct, relative error below about k 2^-104 for k
 *             factors), rounded once to the element type (f64: to nearest
 *             even, subnormals included; narrower types through the value
 *             rounded to odd in double): the reference's correctly rounded
 *             product except within k 2^-104 of a midpoint.
 *
 * Special values combine as the reference's: any NaN, or +inf with -inf
 * (0 with inf for products), gives NaN; else an infinity wins; an exact
 * zero sum is -0 only when every term is -0, a product's sign is the
 * product of the signs. A sum that has a NaN term or both infinities is
 * NaN in double too and keeps the double fold's NaN. When the recompute
 * runs: an f64 sum whose double result is not finite (a finite
 * intermediate never leaves the double range once it is infinite, so
 * finite results saw no overflow); a product any of whose double
 * intermediates was zero, subnormal, infinite or NaN (row loop:
 * win_mul_mark; scans: the line's results). On ordinary data neither
 * happens and the results are the double fold's, bit for bit. */

#define XS_LIMBS 72   /* 72 x 32 bits: 2^-1074 .. 2^1230, carries of 2^62 terms */

typedef struct xsum {
    int64_t d[XS_LIMBS];   /* digit i weighs 2^(32 i - 1074) */
    uint32_t adds;         /* adds since the last carry pass */
    bool nan, pinf, ninf, all_negzero;
} xsum;

static void xs_reset(xsum *a)
{
    memset(a->d, 0, sizeof a->d);
    a->adds = 0;
    a->nan = a->pinf = a->ninf = false;
    a->all_negzero = true;
}

/* Every digit but the top one into [0, 2^32); the top digit keeps the
 * sign. Exact integer arithmetic (limbs stay below 2^62 in magnitude). */
static void xs_carry(xsum *a)
{
    for (int i = 0; i + 1 < XS_LIMBS; i++) {
        int64_t v = a->d[i], lo = (int64_t)((uint64_t)v & 0xffffffffu);
        a->d[i] = lo;
        a->d[i + 1] += (v - lo) / ((int64_t)1 << 32);
    }
    a->adds = 0;
}

static void xs_add(xsum *a, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    unsigned ex = (unsigned)(b >> 52) & 0x7ff;
    if (ex == 0x7ff) {
        if (b & 0xfffffffffffffull) a->nan = true;
        else if (b >> 63) a->ninf = true;
        else a->pinf = true;
        return;
    }
    if (b != 0x8000000000000000ull) a->all_negzero = false;
    uint64_t m = b & 0xfffffffffffffull;
    if (ex) m |= 1ull << 52;
    if (m == 0) return;
    /* x = m 2^(p - 1074), p = max(ex, 1) - 1 in [0, 2045] */
    unsigned p = ex ? ex - 1 : 0, li = p / 32, off = p % 32;
    int64_t d0 = (int64_t)((m << off) & 0xffffffffu);
    int64_t d1 = (int64_t)((off ? m >> (32 - off) : m >> 32) & 0xffffffffu);
    int64_t d2 = (int64_t)(off ? m >> (64 - off) : 0);
    if (b >> 63) d0 = -d0, d1 = -d1, d2 = -d2;
    a->d[li] += d0;
    a->d[li + 1] += d1;
    a->d[li + 2] += d2;
    if (++a->adds >= (1u << 29)) xs_carry(a);
}

/* Bit b (>= 0) of the magnitude held in d (every digit in [0, 2^32)). */
static inline unsigned xs_bit(const int64_t *d, int b) { return (unsigned)((uint64_t)d[b / 32] >> (b % 32)) & 1u; }

/* The sum rounded once to double, to nearest even; does not change a's value. */
static double xs_round(const xsum *a)
{
    if (a->nan || (a->pinf && a->ninf)) return NAN;
    if (a->pinf) return INFINITY;
    if (a->ninf) return -INFINITY;
    xsum t = *a;
    xs_carry(&t);
    bool neg = t.d[XS_LIMBS - 1] < 0;
    if (neg) {
        for (int i = 0; i < XS_LIMBS; i++) t.d[i] = -t.d[i];
        xs_carry(&t);
    }
    int h = XS_LIMBS - 1;
    while (h >= 0 && t.d[h] == 0) h--;
    if (h < 0) return a->all_negzero ? -0.0 : 0.0;
    int top = 63 - __builtin_clzll((unsigned long long)t.d[h]) + 32 * h;   /* the leading bit */
    double r;
    if (top < 53) {   /* below 2^-1021: the value itself, a multiple of 2^-1074 */
        uint64_t v = (uint64_t)t.d[0] | (h > 0 ? (uint64_t)t.d[1] << 32 : 0);
        r = ldexp((double)v, -1074);
    } else {
        /* 53 bits from the leading one, then the rounding bit and the sticky rest */
        uint64_t mant = 0;
        for (int b = top; b > top - 53; b--) mant = mant << 1 | xs_bit(t.d, b);
        int rb = top - 53;
        bool half = xs_bit(t.d, rb), sticky = false;
        for (int b = rb - 1; b >= 0 && !sticky; b--) {
            if (b % 32 == 31 && t.d[b / 32] == 0) {   /* a whole zero digit */
                b -= 31;
                continue;
            }
            sticky = xs_bit(t.d, b);
        }
        if (half && (sticky || (mant & 1))) mant++;
        r = ldexp((double)mant, top - 52 - 1074);   /* 2^53 after the carry is exact; overflow gives inf */
    }
    return neg ? -r : r;
}

typedef struct xprod {
    double h, l;   /* magnitude (h + l) 2^e, h in [0.5, 1), |l| <= ulp(h) / 2 */
    int64_t e;
    bool nan, inf, zero, neg;
} xprod;

static void xp_reset(xprod *p)
{
    p->h = 0.5, p->l = 0, p->e = 1;
    p->nan = p->inf = p->zero = p->neg = false;
}

static void xp_mul(xprod *p, double x)
{
    if (x != x) {
        p->nan = true;
        return;
    }
    if (signbit(x)) p->neg = !p->neg;
    if (isinf(x)) {
        p->inf = true;
        return;
    }
    if (x == 0) {
        p->zero = true;
        return;
    }
    int ex, eh;
    double m = frexp(fabs(x), &ex);
    double ph = p->h * m, pe = fma(p->h, m, -ph), pl = fma(p->l, m, pe);
    double s = ph + pl, sl = pl - (s - ph);   /* |ph| >= |pl|: Fast2Sum */
    s = frexp(s, &eh);
    p->h = s;
    p->l = ldexp(sl, -eh);
    p->e += ex + eh;
}

/* The product rounded once to t, as a double that f_store stores as that
 * rounding (t f64: the rounded value itself; narrower: the value rounded to
 * odd in double, which f_store's one rounding to a format of <= 24 bits
 * rounds correctly). */
static double xp_round(const xprod *p, plumb_dtype t)
{
    if (p->nan || (p->inf && p->zero)) return NAN;
    double sg = p->neg ? -1.0 : 1.0;
    if (p->inf) return sg * INFINITY;
    if (p->zero) return sg * 0.0;
    /* the value lies in [2^(e-1), 2^e] */
    if (p->e > 1025) return sg * INFINITY;
    if (t != PLUMB_F64) {
        if (p->e < -1020) return sg * 0.0;   /* far below every narrow type's half smallest subnormal */
        return sg * ldexp(half_sum(p->h, p->l), (int)p->e);
    }
    if (p->e - 1 >= -1022) return sg * ldexp(p->h, (int)p->e);   /* h is (h + l) rounded; overflow gives inf */
    if (p->e + 1074 < 0) return sg * 0.0;                          /* below 2^-1075 */
    /* subnormal: round (h + l) 2^(e + 1074) to an integer, ties to even */
    double hs = ldexp(p->h, (int)(p->e + 1074)), ls = ldexp(p->l, (int)(p->e + 1074));
    double f = floor(hs), rem = hs - f;
    bool up = rem > 0.5 || (rem == 0.5 && (ls > 0 || (ls == 0 && fmod(f, 2.0) != 0)));
    return sg * ldexp(f + (up ? 1.0 : 0.0), -1074);
}

/* The window of output index o (all rank entries) of an f64 add or any
 * float multiply, computed exactly as above. */
static double win_exact(const win_geom *g, ir_window_body k, plumb_dtype t, const void *src, double init, const int64_t *o)
{
    int64_t kw[PLUMB_MAX_RANK] = {0};
    if (k == IR_WB_ADD) {
        xsum a;
        xs_reset(&a);
        xs_add(&a, init);
        for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, g->rank)) {
            int64_t at = ir_window_at(g, o, kw);
            xs_add(&a, at < 0 ? init : f_load(t, src, at));
        }
        return xs_round(&a);
    }
    xprod p;
    xp_reset(&p);
    xp_mul(&p, init);
    for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, g->rank)) {
        int64_t at = ir_window_at(g, o, kw);
        xp_mul(&p, at < 0 ? init : f_load(t, src, at));
    }
    return xp_round(&p, t);
}

/* A product intermediate outside double's normal range (zero, subnormal,
 * infinite, NaN) has lost or may lose what the exact product keeps: it is
 * set to NaN, which every later factor keeps, and the result recomputed
 * (win_exact). */
static inline void win_mul_mark(double *acc, int64_t n)
{
    for (int64_t q = 0; q < n; q++) {
        double a = fabs(acc[q]);
        if (!(a >= DBL_MIN && a <= DBL_MAX)) acc[q] = NAN;
    }
}

/* Whether any of the n double-fold results needs win_redo's recompute:
 * an exponent field of all ones (infinite or NaN), tested on the bits so
 * that the loop vectorises and costs next to nothing on ordinary rows. */
static bool win_row_redo(ir_window_body k, plumb_dtype t, const double *acc, int64_t n)
{
    if (k != IR_WB_MUL && (k != IR_WB_ADD || t != PLUMB_F64)) return false;
    uint64_t any = 0;
    for (int64_t q = 0; q < n; q++) {
        uint64_t b;
        memcpy(&b, &acc[q], sizeof b);
        any |= (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
    }
    return any != 0;
}

/* A double-fold result: a value to store as it is, or a recomputed one. */
static inline bool win_redo(ir_window_body k, plumb_dtype t, double v)
{
    return k == IR_WB_MUL ? v != v : k == IR_WB_ADD && t == PLUMB_F64 && !isfinite(v);
}

#if WIN_X86
/* IEEE maximum/minimum of four lanes, the portable f_max/f_min's choices:
 * a NaN accumulator stays, a NaN term is taken, equal values pick +0 for
 * max (and of the bits) and -0 for min (or of the bits). */
__attribute__((target("avx2")))
static inline __m256d max4(__m256d a, __m256d b, bool is_max)
{
    __m256d r = is_max ? _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_GT_OQ))
                       : _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_LT_OQ));
    __m256d eq = _mm256_cmp_pd(a, b, _CMP_EQ_OQ);
    r = _mm256_blendv_pd(r, is_max ? _mm256_and_pd(a, b) : _mm256_or_pd(a, b), eq);
    r = _mm256_blendv_pd(r, b, _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
    return _mm256_blendv_pd(r, a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}

__attribute__((target("avx2")))
static void f_row_avx2(ir_window_body k, plumb_dtype t, double *acc, const void *src, int64_t off, int64_t n)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d v = t == PLUMB_F32 ? _mm256_cvtps_pd(_mm_loadu_ps((const float *)src + off + j))
                                   : _mm256_loadu_pd((const double *)src + off + j);
        __m256d a = _mm256_loadu_pd(acc + j);
        a = k == IR_WB_ADD ? _mm256_add_pd(a, v) : k == IR_WB_MUL ? _mm256_mul_pd(a, v) : max4(a, v, k == IR_WB_MAX);
        _mm256_storeu_pd(acc + j, a);
    }
    for (; j < n; j++)
        acc[j] = f_fold(k, acc[j], f_load(t, src, off + j));
}
#endif

#if WIN_X86
/* f32 maximum/minimum kept in f32 (the choice is exact, so the same bits
 * as the double accumulators): eight lanes, the same selection rules. */
__attribute__((target("avx2")))
static void f32_row_avx2(bool is_max, float *acc, const float *src, int64_t n)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 a = _mm256_loadu_ps(acc + j), b = _mm256_loadu_ps(src + j);
        /* the predicate must be a constant expression (clang requires it) */
        __m256 win = is_max ? _mm256_cmp_ps(a, b, _CMP_GT_OQ) : _mm256_cmp_ps(a, b, _CMP_LT_OQ);
        __m256 r = _mm256_blendv_ps(b, a, win);
        r = _mm256_blendv_ps(r, is_max ? _mm256_and_ps(a, b) : _mm256_or_ps(a, b), _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
        r = _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
        _mm256_storeu_ps(acc + j, _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q)));
    }
    for (; j < n; j++)
        acc[j] = (float)(is_max ? f_max(acc[j], src[j]) : f_min(acc[j], src[j]));
}
#endif

#if WIN_X86
/* The AVX-512 forms of the two loops above: sixteen f32 (eight double)
 * lanes, the same per-lane choices, so the same bits as every other level.
 * max/min: a lane takes the accumulator where it compares greater (less),
 * else the term, which covers a NaN term (unordered compares false); equal
 * values take the AND (OR) of the bits, so max(-0, +0) = +0 and
 * min = -0; a NaN accumulator stays. */
#define WIN_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
WIN_AVX512
static inline __m512 mm16(__m512 a, __m512 b, bool is_max)
{
    __mmask16 win = is_max ? _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) : _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
    __m512 r = _mm512_mask_blend_ps(win, b, a);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ), is_max ? _mm512_and_ps(a, b) : _mm512_or_ps(a, b));
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a);
}

/* The channels-last kernels' software prefetch distance: the window rows
 * are read as several streams (one per window row), each moving a few
 * hundred bytes per output row, and the hardware prefetchers alone left
 * the 2x2 and 3x3 NHWC pools at under a quarter of STREAM (issue 17); a
 * prefetch 2 KiB ahead of every load measured best among 1, 2 and 4 KiB
 * (docs/runtime-window.md). The per-position rows (f32_row_avx512,
 * f32_row_s2_avx512: channels-first pools) were as latency-bound without
 * it (3.5x the time on the NCHW 2x2 pool). A prefetch never faults, so running past the
 * tensor's end is harmless; the address is formed as an integer so no
 * out-of-bounds pointer is made. */
#define WIN_PF_BYTES 2048
#define WIN_PREFETCH(p) _mm_prefetch((const char *)((uintptr_t)(p) + WIN_PF_BYTES), _MM_HINT_T0)

WIN_AVX512
static void f32_row_avx512(bool is_max, float *acc, const float *src, int64_t n)
{
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        WIN_PREFETCH(src + j);
        _mm512_storeu_ps(acc + j, mm16(_mm512_loadu_ps(acc + j), _mm512_loadu_ps(src + j), is_max));
    }
    if (j < n) {
        /* the tail under a mask: lanes past n are neither read nor written */
        __mmask16 m = (__mmask16)((1u << (n - j)) - 1);
        __m512 a = _mm512_maskz_loadu_ps(m, acc + j), b = _mm512_maskz_loadu_ps(m, src + j);
        _mm512_mask_storeu_ps(acc + j, m, mm16(a, b, is_max));
    }
}


/* The channels-last kernels' blocks of sixteen lanes start on the 64-byte
 * lines of `base` (tensors come from calloc, 16 bytes past a line: every
 * unaligned 64-byte load spans two lines and doubles the L1 traffic, which
 * measured about twice the time): a masked head block up to the first
 * line, whole blocks, a masked tail. */
static inline int64_t win_head(const void *base, int64_t elem, int64_t n)
{
    int64_t h = (int64_t)(((uintptr_t)0 - (uintptr_t)base) & 63) / elem;
    return h < n ? h : n;
}

static inline __mmask16 win_mask16(int64_t k)
{
    return k >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << k) - 1);
}

/* f32_row_avx512 on a stride-2 walk (channels-first pooling, stride 2
 * along W): acc[j] folds src[2 j]. Sixteen results take 31 consecutive
 * elements, two loads whose even lanes VPERMT2PS gathers; the second load
 * is masked to its 15 lanes in use and the tail's to the elements the
 * last result reads, so nothing past src[2 (n - 1)] is touched. */
WIN_AVX512
static void f32_row_s2_avx512(bool is_max, float *acc, const float *src, int64_t n)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t j = 0; j < n; j += 16) {
        int64_t len = n - j < 16 ? n - j : 16, used = 2 * len - 1;   /* elements read: 2j .. 2j + used - 1 */
        __mmask16 m = win_mask16(len);
        const float *p = src + 2 * j;
        WIN_PREFETCH(p);
        __m512 lo = _mm512_maskz_loadu_ps(win_mask16(used), p);
        __m512 hi = _mm512_maskz_loadu_ps(win_mask16(used > 16 ? used - 16 : 0), p + 16);
        __m512 v = _mm512_permutex2var_ps(lo, even, hi);
        /* whole blocks unmasked: the next window position reloads them,
         * and a masked store does not forward to that load (it waits for
         * the store to retire: it measured most of the row's time) */
        if (len == 16) _mm512_storeu_ps(acc + j, mm16(_mm512_loadu_ps(acc + j), v, is_max));
        else _mm512_mask_storeu_ps(acc + j, m, mm16(_mm512_maskz_loadu_ps(m, acc + j), v, is_max));
    }
}

/* A whole channels-first f32 maximum/minimum row (the innermost dimension
 * windowed: wl positions, stride s of 1 or 2, window dilation wd, low
 * padding lo, extent in): the results whose every window element lies in
 * the row ([qa, qb)) keep their block's accumulator in a register through
 * init and every window position, in wofs order (wofs[wi] the outer
 * offset, the innermost position wi mod wl), folded as f32_rowwin_k does
 * (VRANGEPS, a block with a NaN refolded by mm16 in the reference's order);
 * stride 2 gathers even lanes as f32_row_s2_avx512. The few results at the
 * row's ends fold init for their padded positions, one by one in the
 * reference's order. */
WIN_AVX512
static void f32_rowwin_cf_avx512(bool is_max, float *dst, float init, const float *src, const int64_t *wofs,
                                 uint64_t wc, int64_t wl, int64_t s, int64_t wd, int64_t lo, int64_t in, int64_t n)
{
    int64_t c1 = (wl - 1) * wd - lo;
    int64_t qa = lo <= 0 ? 0 : (lo + s - 1) / s, qb = in - 1 - c1 < 0 ? 0 : (in - 1 - c1) / s + 1;
    if (qb > n) qb = n;
    if (qa > qb) qa = qb;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    __m512 vi = _mm512_set1_ps(init);
    __mmask16 init_nan = _mm512_cmp_ps_mask(vi, vi, _CMP_UNORD_Q);
    for (int64_t q = qa; q < qb; q += 16) {
        int64_t len = qb - q < 16 ? qb - q : 16, used = 2 * len - 1;
        __mmask16 m = win_mask16(len), nan = init_nan;
        __m512 a = vi;
        int64_t k = 0;
        for (uint64_t wi = 0; wi < wc; wi++) {
            const float *p = src + wofs[wi] + q * s + k * wd - lo;
            k = k + 1 == wl ? 0 : k + 1;
            WIN_PREFETCH(p);
            __m512 v = s == 1 ? _mm512_maskz_loadu_ps(m, p)
                              : _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(win_mask16(used), p), even,
                                                       _mm512_maskz_loadu_ps(win_mask16(used > 16 ? used - 16 : 0), p + 16));
            nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            a = is_max ? _mm512_range_ps(a, v, 5) : _mm512_range_ps(a, v, 4);
        }
        if (__builtin_expect(nan != 0, 0)) {
            a = vi;
            k = 0;
            for (uint64_t wi = 0; wi < wc; wi++) {
                const float *p = src + wofs[wi] + q * s + k * wd - lo;
                k = k + 1 == wl ? 0 : k + 1;
                __m512 v = s == 1 ? _mm512_maskz_loadu_ps(m, p)
                                  : _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(win_mask16(used), p), even,
                                                           _mm512_maskz_loadu_ps(win_mask16(used > 16 ? used - 16 : 0), p + 16));
                a = mm16(a, v, is_max);
            }
        }
        _mm512_mask_storeu_ps(dst + q, m, a);
    }
    for (int64_t q = 0; q < n; q++) {
        if (q == qa) q = qb;
        if (q >= n) break;
        double acc = init;
        int64_t k = 0;
        for (uint64_t wi = 0; wi < wc; wi++) {
            int64_t i = q * s + k * wd - lo;
            k = k + 1 == wl ? 0 : k + 1;
            double v = i >= 0 && i < in ? (double)src[wofs[wi] + i] : (double)init;
            acc = is_max ? f_max(acc, v) : f_min(acc, v);
        }
        dst[q] = (float)acc;
    }
}

/* A store of a block: streamed when asked for and the block is a whole
 * aligned line, else masked. */
WIN_AVX512
static inline void win_store16(float *p, __mmask16 m, __m512 v, bool nt)
{
    if (nt && m == 0xFFFF && ((uintptr_t)p & 63) == 0) _mm512_stream_ps(p, v);
    else _mm512_mask_storeu_ps(p, m, v);
}

/* A whole channels-last output row of f32 (f64): for each block of 16 (8)
 * channels the accumulator stays in a register through init and every
 * window position (offsets wofs from src), each input element read once
 * per output row it feeds. The fold is VRANGEPS/VRANGEPD (imm 5: maximum,
 * 4: minimum, the sign from the comparison), one instruction where
 * mm16/mm8 take seven: on non-NaN operands it is IEEE maximum/minimum
 * with -0 < +0, so the same bits as mm16/mm8 in any order (max and min of
 * a total order are associative); it drops a NaN operand instead of
 * propagating it, so a block whose init or terms hold a NaN (tracked with
 * one compare per load) is folded again by mm16/mm8 in the reference's
 * order. One body for both widths (the intrinsics named per width): T the
 * element, V the vector, M its lane mask, L the lanes, X the suffix
 * (ps/pd), MM the seven-instruction fold. */
#define WIN_FROWWIN_K(name, T, V, M, L, X, MM)                                                              \
    WIN_AVX512 __attribute__((always_inline))                                                               \
    static inline void name(const bool is_max, T *dst, T init, const T *src, const int64_t *wofs,            \
                            uint64_t wc, int64_t n, bool nt, bool *seen)                                    \
    {                                                                                                       \
        int64_t head = win_head(src + wofs[0], (int64_t)sizeof(T), n);                                      \
        V vi = _mm512_set1_##X(init);                                                                       \
        M init_nan = _mm512_cmp_##X##_mask(vi, vi, _CMP_UNORD_Q);                                           \
        for (int64_t c = 0; c < n;) {                                                                       \
            int64_t len = c == 0 && head > 0 ? head : n - c;                                                \
            M m = (M)(len >= L ? (1u << L) - 1 : (1u << len) - 1), nan = init_nan;                          \
            V a = vi;                                                                                       \
            for (uint64_t wi = 0; wi < wc; wi++) {                                                          \
                const T *p = src + wofs[wi] + c;                                                            \
                WIN_PREFETCH(p);                                                                            \
                V v = _mm512_maskz_loadu_##X(m, p);                                                         \
                nan |= _mm512_cmp_##X##_mask(v, v, _CMP_UNORD_Q);                                          \
                a = is_max ? _mm512_range_##X(a, v, 5) : _mm512_range_##X(a, v, 4);                        \
            }                                                                                               \
            if (__builtin_expect(nan != 0, 0)) {                                                            \
                if (seen) *seen = true;                                                                     \
                a = vi;                                                                                     \
                for (uint64_t wi = 0; wi < wc; wi++)                                                        \
                    a = MM(a, _mm512_maskz_loadu_##X(m, src + wofs[wi] + c), is_max);                       \
            }                                                                                               \
            /* whole blocks unmasked: a masked store does not forward to a                                  \
             * later load (the separable lines' passes reread these) */                                    \
            if (nt && m == (M)((1u << L) - 1) && ((uintptr_t)(dst + c) & 63) == 0)                          \
                _mm512_stream_##X(dst + c, a);                                                              \
            else if (m == (M)((1u << L) - 1))                                                               \
                _mm512_storeu_##X(dst + c, a);                                                              \
            else                                                                                            \
                _mm512_mask_storeu_##X(dst + c, m, a);                                                      \
            c += len < L ? len : L;                                                                         \
        }                                                                                                   \
    }

WIN_FROWWIN_K(f32_rowwin_k, float, __m512, __mmask16, 16, ps, mm16)

WIN_AVX512
static void f32_rowwin_avx512(bool is_max, float *dst, float init, const float *src, const int64_t *wofs, uint64_t wc,
                              int64_t n, bool nt)
{
    if (is_max) f32_rowwin_k(true, dst, init, src, wofs, wc, n, nt, NULL);
    else f32_rowwin_k(false, dst, init, src, wofs, wc, n, nt, NULL);
}

/* The f64 form of mm16: eight lanes, the same choices. */
WIN_AVX512
static inline __m512d mm8(__m512d a, __m512d b, bool is_max)
{
    __mmask8 win = is_max ? _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ) : _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
    __m512d r = _mm512_mask_blend_pd(win, b, a);
    r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ), is_max ? _mm512_and_pd(a, b) : _mm512_or_pd(a, b));
    return _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), a);
}

/* Channels-last rows of the other exact folds (the f32 rows' loop, 64
 * bytes = 64 / size lanes a block, byte masks serving every width):
 *   f64 maximum/minimum: VRANGEPD, a block with a NaN refolded by mm8 in
 *        the reference's order (as f32_rowwin_k);
 *   integers: maximum/minimum by signedness, add (wrapping: any order is
 *        the reference's bits), and, or; i1 folds as ui8 max/min of 0/1.
 * init is the element's bytes. */
typedef void (*win_rowwin_fn)(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc,
                              int64_t n, bool nt, bool *seen);

#define WIN_ROWWIN(name, expr)                                                                              \
    WIN_AVX512                                                                                              \
    static void name(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc, \
                     int64_t n, bool nt, bool *seen)                                                        \
    {                                                                                                       \
        (void)seen;                                                                                         \
        /* init broadcast by width (a memcpy per lane was a libc call each: */                             \
        /* most of a short channels-first i8 row's time) */                                                 \
        uint64_t ib = 0;                                                                                    \
        memcpy(&ib, init, es);                                                                              \
        const __m512i vi = es == 1   ? _mm512_set1_epi8((char)ib)                                           \
                           : es == 2 ? _mm512_set1_epi16((short)ib)                                         \
                           : es == 4 ? _mm512_set1_epi32((int)ib)                                           \
                                     : _mm512_set1_epi64((long long)ib);                                    \
        const char *s = src;                                                                                \
        char *d = dst;                                                                                      \
        int64_t bytes = n * (int64_t)es, head = win_head(s + wofs[0] * (int64_t)es, 1, bytes);              \
        for (int64_t c = 0; c < bytes;) {                                                                   \
            int64_t len = c == 0 && head > 0 ? head : bytes - c;                                            \
            __mmask64 m = len >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << len) - 1);                          \
            __m512i a = vi;                                                                                 \
            for (uint64_t wi = 0; wi < wc; wi++) {                                                          \
                const char *p = s + wofs[wi] * (int64_t)es + c;                                             \
                WIN_PREFETCH(p);                                                                            \
                __m512i v = _mm512_maskz_loadu_epi8(m, p);                                                  \
                a = expr;                                                                                   \
            }                                                                                               \
            if (nt && len >= 64 && ((uintptr_t)(d + c) & 63) == 0) _mm512_stream_si512((void *)(d + c), a); \
            else if (len >= 64) _mm512_storeu_si512((void *)(d + c), a);                                    \
            else _mm512_mask_storeu_epi8(d + c, m, a);                                                      \
            c += len < 64 ? len : 64;                                                                       \
        }                                                                                                   \
    }

WIN_ROWWIN(rw_max_i8, _mm512_max_epi8(a, v))
WIN_ROWWIN(rw_max_u8, _mm512_max_epu8(a, v))
WIN_ROWWIN(rw_max_i16, _mm512_max_epi16(a, v))
WIN_ROWWIN(rw_max_u16, _mm512_max_epu16(a, v))
WIN_ROWWIN(rw_max_i32, _mm512_max_epi32(a, v))
WIN_ROWWIN(rw_max_u32, _mm512_max_epu32(a, v))
WIN_ROWWIN(rw_max_i64, _mm512_max_epi64(a, v))
WIN_ROWWIN(rw_max_u64, _mm512_max_epu64(a, v))
WIN_ROWWIN(rw_min_i8, _mm512_min_epi8(a, v))
WIN_ROWWIN(rw_min_u8, _mm512_min_epu8(a, v))
WIN_ROWWIN(rw_min_i16, _mm512_min_epi16(a, v))
WIN_ROWWIN(rw_min_u16, _mm512_min_epu16(a, v))
WIN_ROWWIN(rw_min_i32, _mm512_min_epi32(a, v))
WIN_ROWWIN(rw_min_u32, _mm512_min_epu32(a, v))
WIN_ROWWIN(rw_min_i64, _mm512_min_epi64(a, v))
WIN_ROWWIN(rw_min_u64, _mm512_min_epu64(a, v))
WIN_ROWWIN(rw_add_8, _mm512_add_epi8(a, v))
WIN_ROWWIN(rw_add_16, _mm512_add_epi16(a, v))
WIN_ROWWIN(rw_add_32, _mm512_add_epi32(a, v))
WIN_ROWWIN(rw_add_64, _mm512_add_epi64(a, v))
WIN_ROWWIN(rw_and, _mm512_and_si512(a, v))
WIN_ROWWIN(rw_or, _mm512_or_si512(a, v))
#undef WIN_ROWWIN

WIN_FROWWIN_K(f64_rowwin_k, double, __m512d, __mmask8, 8, pd, mm8)
#undef WIN_FROWWIN_K

WIN_AVX512
static void rw_max_f64(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc,
                       int64_t n, bool nt, bool *seen)
{
    double i;
    memcpy(&i, init, sizeof i);
    (void)es;
    f64_rowwin_k(true, dst, i, src, wofs, wc, n, nt, seen);
}

WIN_AVX512
static void rw_min_f64(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc,
                       int64_t n, bool nt, bool *seen)
{
    double i;
    memcpy(&i, init, sizeof i);
    (void)es;
    f64_rowwin_k(false, dst, i, src, wofs, wc, n, nt, seen);
}

/* f16 and bf16 maximum/minimum rows: sixteen elements widened to f32
 * (exactly: VCVTPH2PS, or the bf16 bits shifted up), folded as
 * f32_rowwin_k does, narrowed back exactly (the result is the init or one
 * of the terms, so VCVTPS2PH rounds nothing and the bf16 low half is 0). */
WIN_AVX512
static inline __m512 win_h2f(__m256i h, bool bf)
{
    return bf ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}

WIN_AVX512
static inline __m256i win_f2h(__m512 f, bool bf)
{
    return bf ? _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(f), 16))
              : _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

WIN_AVX512 __attribute__((always_inline))
static inline void h_rowwin_k(const bool is_max, const bool bf, uint16_t *dst, const void *initp, const uint16_t *src,
                              const int64_t *wofs, uint64_t wc, int64_t n, bool *seen)
{
    uint16_t init;
    memcpy(&init, initp, sizeof init);
    /* 32-byte blocks: the head runs to the first window row's 32-byte boundary */
    int64_t head = (int64_t)(((uintptr_t)0 - (uintptr_t)(src + wofs[0])) & 31) / 2;
    if (head > n) head = n;
    __m512 vi = win_h2f(_mm256_set1_epi16((short)init), bf);
    __mmask16 init_nan = _mm512_cmp_ps_mask(vi, vi, _CMP_UNORD_Q);
    for (int64_t c = 0; c < n;) {
        int64_t len = c == 0 && head > 0 ? head : n - c;
        __mmask16 m = win_mask16(len), nan = init_nan;
        __m512 a = vi;
        for (uint64_t wi = 0; wi < wc; wi++) {
            const uint16_t *p = src + wofs[wi] + c;
            WIN_PREFETCH(p);
            __m512 v = win_h2f(_mm256_maskz_loadu_epi16(m, p), bf);
            nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            a = is_max ? _mm512_range_ps(a, v, 5) : _mm512_range_ps(a, v, 4);
        }
        if (__builtin_expect(nan != 0, 0)) {
            if (seen) *seen = true;
            a = vi;
            for (uint64_t wi = 0; wi < wc; wi++)
                a = mm16(a, win_h2f(_mm256_maskz_loadu_epi16(m, src + wofs[wi] + c), bf), is_max);
        }
        if (m == 0xFFFF) _mm256_storeu_si256((__m256i *)(dst + c), win_f2h(a, bf));
        else _mm256_mask_storeu_epi16(dst + c, m, win_f2h(a, bf));
        c += len < 16 ? len : 16;
    }
}

#define WIN_HROW(name, mx, bf)                                                                                 \
    WIN_AVX512                                                                                                 \
    static void name(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc, \
                     int64_t n, bool nt, bool *seen)                                                           \
    {                                                                                                          \
        (void)es;                                                                                              \
        (void)nt;                                                                                              \
        h_rowwin_k(mx, bf, dst, init, src, wofs, wc, n, seen);                                                 \
    }
WIN_HROW(rw_max_f16, true, false)
WIN_HROW(rw_min_f16, false, false)
WIN_HROW(rw_max_bf16, true, true)
WIN_HROW(rw_min_bf16, false, true)
#undef WIN_HROW

/* The row kernel of (type, fold) above, NULL for the others. */
static win_rowwin_fn win_rowwin_pick(plumb_dtype t, ir_window_body k)
{
    if (t == PLUMB_F64)
        return k == IR_WB_MAX ? rw_max_f64 : k == IR_WB_MIN ? rw_min_f64 : NULL;
    if (t == PLUMB_F16)
        return k == IR_WB_MAX ? rw_max_f16 : k == IR_WB_MIN ? rw_min_f16 : NULL;
    if (t == PLUMB_BF16)
        return k == IR_WB_MAX ? rw_max_bf16 : k == IR_WB_MIN ? rw_min_bf16 : NULL;
    if (plumb_dtype_is_float(t))
        return NULL;
    bool sg = plumb_dtype_is_signed(t) && t != PLUMB_I1;
    size_t es = plumb_dtype_size(t);
    static const win_rowwin_fn mx[2][4] = {{rw_max_u8, rw_max_u16, rw_max_u32, rw_max_u64},
                                           {rw_max_i8, rw_max_i16, rw_max_i32, rw_max_i64}};
    static const win_rowwin_fn mn[2][4] = {{rw_min_u8, rw_min_u16, rw_min_u32, rw_min_u64},
                                           {rw_min_i8, rw_min_i16, rw_min_i32, rw_min_i64}};
    static const win_rowwin_fn ad[4] = {rw_add_8, rw_add_16, rw_add_32, rw_add_64};
    int w = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : -1;
    if (w < 0)
        return NULL;
    switch (k) {
    case IR_WB_MAX: return mx[sg][w];
    case IR_WB_MIN: return mn[sg][w];
    case IR_WB_ADD: return t == PLUMB_I1 ? NULL : ad[w];
    case IR_WB_AND: return rw_and;
    case IR_WB_OR: return rw_or;
    default: return NULL;
    }
}

/* ---- separable lines (overlapping windows: each input read once) ----------------
 *
 * An idempotent, order-free fold (integer max/min/and/or; float max/min
 * on operands without NaN) over a window is the fold over one dimension p
 * of the folds over the others: line = every result along p (the others'
 * indices fixed); first the column pass folds init and the window's
 * positions off p (position p = 0) for every input column along p
 * (colbuf, one column = the C channels of a channels-last row, or one
 * element channels-first), each input element read once; then the result
 * pass folds the w[p] columns each result's window spans. Overlapping
 * windows (3x3 stride 2) read each input row up to three times in the
 * per-result rows; here once, the result pass reading colbuf from L1.
 * Padding along p is columns of init (folding init again changes nothing),
 * padding off p the positions inside the operand (the border rows' rule).
 * Both passes are the row kernels above, so every element type with one.
 * A float NaN anywhere in colbuf sends the line back to the per-result
 * rows, which keep the reference's order, so a NaN's payload is the
 * reference's (the separable order would pick another NaN first). */

/* f32 on the win_rowwin_fn signature (the column and result passes) */
WIN_AVX512
static void rw_max_f32(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc,
                       int64_t n, bool nt, bool *seen)
{
    float i;
    memcpy(&i, init, sizeof i);
    (void)es;
    f32_rowwin_k(true, dst, i, src, wofs, wc, n, nt, seen);
}

WIN_AVX512
static void rw_min_f32(void *dst, const void *init, size_t es, const void *src, const int64_t *wofs, uint64_t wc,
                       int64_t n, bool nt, bool *seen)
{
    float i;
    memcpy(&i, init, sizeof i);
    (void)es;
    f32_rowwin_k(false, dst, i, src, wofs, wc, n, nt, seen);
}

/* n elements of es bytes at p set to the element at init. */
static void win_fill(void *p, const void *init, size_t es, int64_t n)
{
    if (n <= 0)
        return;
    memcpy(p, init, es);
    /* doubling copies: log2(n) memcpy calls */
    for (int64_t k = 1; k < n;) {
        int64_t c = k < n - k ? k : n - k;
        memcpy((char *)p + (size_t)k * es, p, (size_t)c * es);
        k += c;
    }
}

/* dst[r * L + i] = src[i * s + r] for i * s + r < X: the s phases of a
 * channels-first colbuf, so the result pass at stride s reads each
 * window position's terms contiguously (phase m mod s, from m / s). */
static void win_deinterleave(void *dst, const void *src, size_t es, int64_t X, int64_t s, int64_t L)
{
#define WIN_DI(T)                                                                                \
    do {                                                                                         \
        const T *a_ = src;                                                                       \
        T *b_ = dst;                                                                             \
        for (int64_t r = 0; r < s; r++)                                                          \
            for (int64_t i = 0; i * s + r < X; i++) b_[r * L + i] = a_[i * s + r];               \
    } while (0)
    switch (es) {
    case 1: WIN_DI(uint8_t); break;
    case 2: WIN_DI(uint16_t); break;
    case 4: WIN_DI(uint32_t); break;
    default: WIN_DI(uint64_t); break;
    }
#undef WIN_DI
}

/* f32 stride 2: the even and odd lanes of 32 elements (VPERMT2PS), the
 * deinterleave of the channels-first max pools' colbuf. */
WIN_AVX512
static void win_deinterleave2_f32(float *dst, const float *src, int64_t X, int64_t L)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    int64_t i = 0;
    for (; 2 * i + 32 <= X; i += 16) {
        __m512 lo = _mm512_loadu_ps(src + 2 * i), hi = _mm512_loadu_ps(src + 2 * i + 16);
        _mm512_storeu_ps(dst + i, _mm512_permutex2var_ps(lo, even, hi));
        _mm512_storeu_ps(dst + L + i, _mm512_permutex2var_ps(lo, odd, hi));
    }
    for (; 2 * i < X; i++) {
        dst[i] = src[2 * i];
        if (2 * i + 1 < X) dst[L + i] = src[2 * i + 1];
    }
}

/* The separable line of a channels-first f32 maximum/minimum with stride
 * 2, window 3 and dilation 1 along the row (the 3x3 stride 2 pools), in
 * registers: column x (input column x - lo) folds init and the vc rows
 * at vofs (columns off the row are init: padding), result q folds columns
 * 2q, 2q + 1, 2q + 2. Per sixteen results two column blocks of sixteen
 * (the next block's first column carried over), the even, odd and next
 * even lanes gathered by VPERMT2PS, each input element loaded once;
 * VRANGEPS folds (exact without NaNs, any order). false, the row partly
 * written, when a loaded element is a NaN (the caller refolds the whole
 * row in the reference's order). */
WIN_AVX512
static inline __m512 win_sep_col16(const bool is_max, __m512 vi, const float *src, const int64_t *vofs, uint64_t vc,
                                   int64_t i0, int64_t in, __mmask16 *nan)
{
    int64_t a = i0 < 0 ? -i0 : 0, b = in - i0 < 16 ? in - i0 : 16;
    __mmask16 m = b <= a ? 0 : (__mmask16)(((1u << b) - 1) & ~((1u << a) - 1));
    __m512 acc = vi;
    for (uint64_t v = 0; v < vc; v++) {
        /* the address as an integer: lanes before the row's start are masked off, no pointer is formed there */
        const float *p = (const float *)((uintptr_t)src + (uintptr_t)((vofs[v] + i0) * (int64_t)sizeof(float)));
        WIN_PREFETCH(p);
        __m512 x = _mm512_mask_loadu_ps(vi, m, p);
        *nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        acc = is_max ? _mm512_range_ps(acc, x, 5) : _mm512_range_ps(acc, x, 4);
    }
    return acc;
}

WIN_AVX512
static bool f32_sep_s2w3_avx512(bool is_max, float *dst, float init, const float *src, const int64_t *vofs, uint64_t vc,
                                int64_t lo, int64_t in, int64_t n)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i even1 = _mm512_add_epi32(even, _mm512_set1_epi32(2));   /* lane 15 (32) taken from the next block */
    __m512 vi = _mm512_set1_ps(init);
    __mmask16 nan = 0;
    __m512 na = win_sep_col16(is_max, vi, src, vofs, vc, -lo, in, &nan);
    for (int64_t q = 0; q < n; q += 16) {
        __m512 a = na, b = win_sep_col16(is_max, vi, src, vofs, vc, 2 * q + 16 - lo, in, &nan);
        na = win_sep_col16(is_max, vi, src, vofs, vc, 2 * q + 32 - lo, in, &nan);
        __m512 e = _mm512_permutex2var_ps(a, even, b), o = _mm512_permutex2var_ps(a, odd, b);
        __m512 e1 = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, even1, b), (__mmask16)0x8000,
                                               _mm512_setzero_si512(), na);
        __m512 r = is_max ? _mm512_range_ps(_mm512_range_ps(e, o, 5), e1, 5)
                          : _mm512_range_ps(_mm512_range_ps(e, o, 4), e1, 4);
        if (n - q >= 16) _mm512_storeu_ps(dst + q, r);
        else _mm512_mask_storeu_ps(dst + q, win_mask16(n - q), r);
    }
    return nan == 0;
}

WIN_AVX512
static void f_row_avx512(ir_window_body k, plumb_dtype t, double *acc, const void *src, int64_t off, int64_t n)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d v = t == PLUMB_F32 ? _mm512_cvtps_pd(_mm256_loadu_ps((const float *)src + off + j))
                                   : _mm512_loadu_pd((const double *)src + off + j);
        __m512d a = _mm512_loadu_pd(acc + j);
        if (k == IR_WB_ADD) {
            a = _mm512_add_pd(a, v);
        } else if (k == IR_WB_MUL) {
            a = _mm512_mul_pd(a, v);
        } else {
            bool mx = k == IR_WB_MAX;
            __mmask8 win = mx ? _mm512_cmp_pd_mask(a, v, _CMP_GT_OQ) : _mm512_cmp_pd_mask(a, v, _CMP_LT_OQ);
            __m512d r = _mm512_mask_blend_pd(win, v, a);
            r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(a, v, _CMP_EQ_OQ), mx ? _mm512_and_pd(a, v) : _mm512_or_pd(a, v));
            a = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), a);
        }
        _mm512_storeu_pd(acc + j, a);
    }
    for (; j < n; j++)
        acc[j] = f_fold(k, acc[j], f_load(t, src, off + j));
}
#endif

static void f_row(ir_window_body k, plumb_dtype t, int isa, double *acc, const void *src, int64_t off, int64_t step, int64_t n)
{
#if WIN_X86
    if (step == 1 && isa >= PLUMB_ISA_AVX512 && (t == PLUMB_F32 || t == PLUMB_F64)) {
        f_row_avx512(k, t, acc, src, off, n);
        return;
    }
    if (step == 1 && isa >= PLUMB_ISA_AVX2 && (t == PLUMB_F32 || t == PLUMB_F64)) {
        f_row_avx2(k, t, acc, src, off, n);
        return;
    }
#else
    (void)isa;
#endif
    f_row_portable(k, t, acc, src, off, step, n);
}

/* ---- integer folds on 64-bit accumulators ------------------------------------ */

typedef struct int_ty {
    unsigned bits;
    bool is_signed;
} int_ty;

static inline int64_t i_load(plumb_dtype t, const void *p, int64_t i)
{
    switch (plumb_dtype_size(t)) {
    case 1: return plumb_dtype_is_signed(t) ? (int64_t)((const int8_t *)p)[i] : (int64_t)((const uint8_t *)p)[i];
    case 2: return plumb_dtype_is_signed(t) ? (int64_t)((const int16_t *)p)[i] : (int64_t)((const uint16_t *)p)[i];
    case 4: return plumb_dtype_is_signed(t) ? (int64_t)((const int32_t *)p)[i] : (int64_t)((const uint32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
    }
}

static inline int64_t i_fold(ir_window_body k, bool u64, int64_t a, int64_t v)
{
    switch (k) {
    case IR_WB_ADD: return (int64_t)((uint64_t)a + (uint64_t)v);
    case IR_WB_MUL: return (int64_t)((uint64_t)a * (uint64_t)v);
    case IR_WB_AND: return a & v;
    case IR_WB_OR: return a | v;
    case IR_WB_MAX: return u64 ? ((uint64_t)v > (uint64_t)a ? v : a) : (v > a ? v : a);
    default: return u64 ? ((uint64_t)v < (uint64_t)a ? v : a) : (v < a ? v : a);
    }
}

static void i_row(ir_window_body k, plumb_dtype t, int64_t *acc, const void *src, int64_t off, int64_t step, int64_t n)
{
    bool u64 = t == PLUMB_UI64;
    /* one loop per width and kind, so the compiler can vectorise the
     * contiguous ones */
#define I_LOOP(T)                                                                         \
    do {                                                                                  \
        const T *s_ = (const T *)src + off;                                               \
        if (k == IR_WB_ADD)                                                                  \
            for (int64_t j = 0; j < n; j++) acc[j] = (int64_t)((uint64_t)acc[j] + (uint64_t)(int64_t)s_[j * step]); \
        else                                                                              \
            for (int64_t j = 0; j < n; j++) acc[j] = i_fold(k, u64, acc[j], (int64_t)s_[j * step]); \
    } while (0)
    switch (t) {
    case PLUMB_I1:
    case PLUMB_UI8: I_LOOP(uint8_t); break;
    case PLUMB_I8: I_LOOP(int8_t); break;
    case PLUMB_I16: I_LOOP(int16_t); break;
    case PLUMB_UI16: I_LOOP(uint16_t); break;
    case PLUMB_I32: I_LOOP(int32_t); break;
    case PLUMB_UI32: I_LOOP(uint32_t); break;
    default: I_LOOP(int64_t); break;
    }
#undef I_LOOP
}

static inline void i_store(plumb_dtype t, void *p, int64_t i, int64_t v)
{
    switch (plumb_dtype_size(t)) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((int64_t *)p)[i] = v; break;
    }
}

/* ---- reduce_window, recognised bodies ---------------------------------------- */

/* The element types the fast paths load and store natively; every other
 * (narrow floats and integers) runs through the region. */
static bool fast_type(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: case PLUMB_BF16: case PLUMB_F32: case PLUMB_F64:
    case PLUMB_I1: case PLUMB_I8: case PLUMB_I16: case PLUMB_I32: case PLUMB_I64:
    case PLUMB_UI8: case PLUMB_UI16: case PLUMB_UI32: case PLUMB_UI64:
        return true;
    default:
        return false;
    }
}

typedef struct rw_job {
    rt_exec *x;
    const ir_op *op;
    const win_geom *g;
    ir_window_body k;
    plumb_dtype t;
    bool isf;
    bool comp;                 /* f16/bf16 add: compensated sum (f_add2, half_sum) */
    int isa;
    bool nt;                   /* streaming stores (a large result; WIN_STREAM_BYTES) */
    bool idem;                 /* max, min, and, or: a padded position's init folds to no change */
    bool fix;                  /* f64 add, float multiply: results the double fold may get wrong are recomputed (win_final) */
#if WIN_X86
    win_rowwin_fn rowwin;      /* channels-last rows of f64 and integer exact folds (AVX-512), or NULL */
    win_rowwin_fn seprow;      /* separable lines' row kernel (f32 too; rw_sep_line), or NULL: none */
#endif
    uint32_t sep_p;            /* the separable lines' dimension: last - 1 channels-last, last channels-first */
    size_t sep_off;            /* their scratch's byte offset in a chunk's scratch */
    const int64_t *vofs;       /* the window's positions off sep_p: offsets from the window's origin */
    uint64_t vc;               /* their count */
    unsigned char init_b[8];   /* init's element bytes (i1: 0 or 1) */
    const void *src;
    void *dst;
    double init_f;
    int64_t init_i;
    int64_t row;               /* output elements per row (innermost dimension) */
    void **scratch;            /* per chunk: row accumulators (comp: then their errors), then
                                  wcount + 1 window offsets (a border row's positions) */
    const int64_t *wofs;       /* per window position: offset on the outer dimensions from the window's origin */
} rw_job;

#if WIN_X86
/* One separable line (see above win_any_nan): the results along j->sep_p
 * with the other result indices o (row: the line's first row); false,
 * nothing written, when colbuf holds a NaN (the per-result rows then take
 * the line in the reference's order). */
static bool rw_sep_line(const rw_job *j, const int64_t *o, uint64_t row, uint32_t chunk)
{
    const win_geom *g = j->g;
    uint32_t r = g->rank, last = r - 1, p = j->sep_p;
    size_t es = plumb_dtype_size(j->t);
    bool cl = p != last;   /* channels-last: a column is a row of C channels */
    int64_t C = cl ? j->row : 1, np = g->out[p], s = g->s[p], wd = g->wd[p], lo = g->lo[p], w = g->w[p];
    int64_t X = (np - 1) * s + (w - 1) * wd + 1;   /* colbuf's columns: padded positions 0 .. X - 1 along p */
    char *col = (char *)(((uintptr_t)j->scratch[chunk] + j->sep_off + 63) & ~(uintptr_t)63);
    char *ph = col + (((size_t)(X * C) * es + 63) & ~(size_t)63);
    int64_t *vsub = (int64_t *)(ph + (((size_t)(X + s) * es + 63) & ~(size_t)63)), *hofs = vsub + g->wcount + 1;
    /* the window's positions off p (position 0 along p, and along the
     * unwindowed channels), inside the operand, in the window's order:
     * j->vofs from the window's origin when the window lies inside on
     * every dimension off p, else absolute offsets at column 0 */
    bool inside = true;
    int64_t origin = 0;
    for (uint32_t d = 0; d < last; d++) {
        if (d == p)
            continue;
        int64_t pd = o[d] * g->s[d] - g->lo[d];
        inside = inside && g->b[d] == 1 && pd >= 0 && pd + (g->w[d] - 1) * g->wd[d] < g->in[d];
        origin += pd * g->istride[d];
    }
    const int64_t *vs = j->vofs;
    uint64_t vc = j->vc;
    if (!inside) {
        int64_t kw[PLUMB_MAX_RANK];
        memset(kw, 0, sizeof kw);
        vc = 0;
        origin = 0;
        for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, r)) {
            if (kw[p] != 0 || kw[last] != 0)
                continue;
            int64_t at = 0;
            for (uint32_t d = 0; d < last && at >= 0; d++) {
                if (d == p)
                    continue;
                int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                at = i < 0 ? -1 : at + i * g->istride[d];
            }
            if (at >= 0) vsub[vc++] = at;
        }
        if (vc == 0) vsub[0] = 0;   /* the kernels align on wofs[0]; nothing is read */
        vs = vsub;
    }
    const char *sbase = (const char *)j->src + (size_t)origin * es;
    if (!cl && j->t == PLUMB_F32 && s == 2 && w == 3 && wd == 1) {
        float fi;
        memcpy(&fi, j->init_b, sizeof fi);
        return f32_sep_s2w3_avx512(j->k == IR_WB_MAX, (float *)j->dst + (int64_t)row * np, fi, (const float *)sbase, vs,
                                   vc, lo, g->in[p], np);
    }
    /* colbuf column x is input column x - lo along p: [a, b) inside */
    int64_t i0 = lo < 0 ? -lo : 0, i1 = X - lo < g->in[p] ? X - lo : g->in[p];
    int64_t a = i1 > i0 ? i0 + lo : X, b = i1 > i0 ? i1 + lo : X;
    /* integer add (wrapping, so any order is the reference's sum): each
     * padded position adds init once, so an inside column starts from
     * init times the line's padded positions off p, a padding column is
     * init times all of them, and the result pass adds init once */
    uint64_t cinit = 0, ginit = 0;
    memcpy(&cinit, j->init_b, es);
    memcpy(&ginit, j->init_b, es);
    if (j->k == IR_WB_ADD) {
        uint64_t wp = g->wcount / (uint64_t)w;
        cinit = (uint64_t)j->init_i * (wp - vc);
        ginit = (uint64_t)j->init_i * wp;
    }
    win_fill(col, &ginit, es, a * C);   /* little-endian: the element's bytes come first */
    win_fill(col + (size_t)(b * C) * es, &ginit, es, (X - b) * C);
    bool nan = false;
    if (b > a)
        j->seprow(col + (size_t)(a * C) * es, &cinit, es, sbase + (size_t)(i0 * g->istride[p]) * es, vs, vc,
                  (b - a) * C, false, &nan);
    if (nan)
        return false;
    if (cl) {
        for (int64_t k = 0; k < w; k++) hofs[k] = k * wd * C;
        for (int64_t q = 0; q < np; q++)
            j->seprow((char *)j->dst + (size_t)((int64_t)(row + (uint64_t)q) * C) * es, j->init_b, es,
                      col + (size_t)(q * s * C) * es, hofs, (uint64_t)w, C, j->nt, NULL);
        return true;
    }
    const char *hs = col;
    if (s > 1) {
        int64_t L = (X + s - 1) / s;
        if (es == 4 && s == 2) win_deinterleave2_f32((float *)ph, (const float *)col, X, L);
        else win_deinterleave(ph, col, es, X, s, L);
        for (int64_t k = 0; k < w; k++) hofs[k] = (k * wd % s) * L + k * wd / s;
        hs = ph;
    } else {
        for (int64_t k = 0; k < w; k++) hofs[k] = k * wd;
    }
    j->seprow((char *)j->dst + (size_t)((int64_t)row * np) * es, j->init_b, es, hs, hofs, (uint64_t)w, np, j->nt, NULL);
    return true;
}
#endif

/* i1 folds as unsigned maximum (add, max, or) or minimum (multiply, min,
 * and) of 0 and 1. */
static ir_window_body bool_kind(ir_window_body k)
{
    return k == IR_WB_ADD || k == IR_WB_MAX || k == IR_WB_OR ? IR_WB_MAX : IR_WB_MIN;
}

/* Output q of the row at outer indices o (o[last] ignored): the double
 * fold's v, or the window recomputed exactly when v may be wrong (f64 add
 * not finite, product marked by win_mul_mark). A recomputed sum that is
 * NaN (a NaN term, or both infinities) keeps the fold's NaN. */
static double win_final(const rw_job *j, const int64_t *o, int64_t q, double v)
{
    if (!win_redo(j->k, j->t, v)) return v;
    int64_t oo[PLUMB_MAX_RANK];
    uint32_t last = j->g->rank - 1;
    memcpy(oo, o, (size_t)last * sizeof *oo);
    oo[last] = q;
    double r = win_exact(j->g, j->k, j->t, j->src, j->init_f, oo);
    return j->k == IR_WB_ADD && r != r ? v : r;
}

static void rw_rows_body(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    rw_job *j = ctx;
    const win_geom *g = j->g;
    uint32_t r = g->rank, last = r - 1;
    int64_t n = j->row;
    double *fa = j->scratch[chunk];
    double *fe = j->comp ? fa + n : NULL;   /* the sums' errors */
    int64_t *ia = j->scratch[chunk];
    int64_t o[PLUMB_MAX_RANK], kw[PLUMB_MAX_RANK];
    int64_t s = g->s[last], wdl = g->wd[last], lo = g->lo[last], bl = g->b[last];
#if WIN_X86
    /* f32 maximum/minimum on contiguous rows: f32 accumulators, 8 lanes */
    bool f32mm = j->t == PLUMB_F32 && (j->k == IR_WB_MAX || j->k == IR_WB_MIN) && j->isa >= PLUMB_ISA_AVX2 &&
                 (g->s[last] == 1 || (g->s[last] == 2 && j->isa >= PLUMB_ISA_AVX512)) && g->b[last] == 1;
#else
    bool f32mm = false;
#endif
    float *f32a = j->scratch[chunk];
    bool chan = f32mm && g->s[last] == 1 && g->w[last] == 1 && g->lo[last] == 0 && n <= g->in[last];
    /* channels-first f32 max/min rows (f32_rowwin_cf_avx512) */
    bool cf = f32mm && !chan && j->isa >= PLUMB_ISA_AVX512;
    /* the other exact folds' channels-last rows (win_rowwin_pick) */
    bool chan_any = g->s[last] == 1 && g->b[last] == 1 && g->w[last] == 1 && g->lo[last] == 0 && n <= g->in[last];
    (void)chan;   /* read only by the x86 rows */
    (void)cf;
    (void)chan_any;
    /* the first row's output index on the outer dimensions; each later row
     * steps it (a division per dimension and row measured a visible share
     * of the 64-channel NHWC pools' rows) */
    uint64_t rem = begin;
    for (uint32_t d = last; d-- > 0;) {
        o[d] = (int64_t)(rem % (uint64_t)g->out[d]);
        rem /= (uint64_t)g->out[d];
    }
    o[last] = 0;
    int64_t *sub = (int64_t *)((char *)j->scratch[chunk] + (size_t)n * (j->comp ? 16 : 8));
    (void)sub;   /* read only by the x86 rows */
    for (uint64_t row = begin; row < end; row++, ir_window_next_index(o, g->out, last)) {
        if (atomic_load_explicit(&j->x->timed_out, memory_order_relaxed))
            return;
#if WIN_X86
        /* a separable line: channels-first the row itself, channels-last
         * the rows along dimension last - 1 when this range holds them all */
        if (j->seprow) {
            uint32_t p = j->sep_p;
            if (p == last) {
                if (rw_sep_line(j, o, row, chunk)) continue;
            } else if (o[p] == 0 && row + (uint64_t)g->out[p] <= end && rw_sep_line(j, o, row, chunk)) {
                row += (uint64_t)g->out[p] - 1;
                o[p] = g->out[p] - 1;
                continue;
            }
        }
#endif
        /* a window wholly inside the operand on the outer dimensions (no
         * padding, no base dilation there: every pooling window but the
         * border ones) takes its positions' offsets from j->wofs instead of
         * ir_window_dim_at per dimension and position */
        bool inside = true;
        int64_t origin = 0;
        for (uint32_t d = 0; d < last; d++) {
            int64_t p = o[d] * g->s[d] - g->lo[d];
            inside = inside && g->b[d] == 1 && p >= 0 && p + (g->w[d] - 1) * g->wd[d] < g->in[d];
            origin += p * g->istride[d];
        }
#if WIN_X86
        /* A border window (on padding or base-dilation holes) of an
         * idempotent fold (max, min, and, or: folding init again changes
         * nothing, and init comes first) takes the same row kernels on
         * its positions inside the operand alone (sub, absolute offsets,
         * in the window's order, so a NaN block's refold keeps the
         * reference's order); padded positions of an add would each add
         * init, so those rows stay on the general loop below. */
        const int64_t *wo = j->wofs;
        uint64_t wc = g->wcount;
        if (!inside && j->idem && (chan || cf || (chan_any && j->rowwin))) {
            memset(kw, 0, sizeof kw);
            wc = 0;
            origin = 0;
            /* every position, the innermost one too (channels-first rows
             * window it: a valid outer position keeps all its innermost
             * ones, so the kernels' position mod w[last] still holds) */
            for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, r)) {
                int64_t at = 0;
                for (uint32_t d = 0; d < last && at >= 0; d++) {
                    int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                    at = i < 0 ? -1 : at + i * g->istride[d];
                }
                if (at >= 0) sub[wc++] = at;
            }
            if (wc == 0) sub[0] = 0;   /* the kernels align on wofs[0]; nothing is read */
            wo = sub;
            inside = true;
        }
        if (inside && cf) {
            f32_rowwin_cf_avx512(j->k == IR_WB_MAX, (float *)j->dst + (int64_t)row * n, (float)j->init_f,
                                 (const float *)j->src + origin, wo, wc, g->w[last], s, wdl, lo, g->dil[last], n);
            continue;
        }
        if (inside && chan_any && j->rowwin) {
            size_t es = plumb_dtype_size(j->t);
            j->rowwin((char *)j->dst + (size_t)row * (size_t)n * es, j->init_b, es,
                      (const char *)j->src + (size_t)origin * es, wo, wc, n, j->nt, NULL);
            continue;
        }
        if (inside && chan) {
            /* channels-last rows (innermost window 1, stride 1, no padding
             * there): each window position's input row folds whole into the
             * result row itself, init first, the same order as below */
            float *dr = (float *)j->dst + (int64_t)row * n, fi = (float)j->init_f;
            bool mx = j->k == IR_WB_MAX;
            if (j->isa >= PLUMB_ISA_AVX512) {
                f32_rowwin_avx512(mx, dr, fi, (const float *)j->src + origin, wo, wc, n, j->nt);
                continue;
            }
            for (int64_t q = 0; q < n; q++) dr[q] = fi;
            for (uint64_t wi = 0; wi < wc; wi++) {
                const float *sr = (const float *)j->src + origin + wo[wi];
                if (j->isa >= PLUMB_ISA_AVX512) f32_row_avx512(mx, dr, sr, n);
                else f32_row_avx2(mx, dr, sr, n);
            }
            continue;
        }
#endif
        if (inside && chan_any && !fe && !f32mm && (j->t == PLUMB_F32 || j->t == PLUMB_F64)) {
            /* f32/f64 channels-last rows of a fold the kernels above do
             * not take (add, multiply; max/min below AVX2): what the loop
             * below does for them (init, then each window position's
             * whole input row through f_row, in wofs order, rounded once)
             * without its per-element type and kind tests */
            bool mul = j->k == IR_WB_MUL;
            for (int64_t q = 0; q < n; q++) fa[q] = j->init_f;
            for (uint64_t wi = 0; wi < g->wcount; wi++) {
                if (mul) win_mul_mark(fa, n);
                f_row(j->k, j->t, j->isa, fa, j->src, origin + j->wofs[wi], 1, n);
            }
            if (mul) win_mul_mark(fa, n);
            if (j->fix && win_row_redo(j->k, j->t, fa, n))
                for (int64_t q = 0; q < n; q++) fa[q] = win_final(j, o, q, fa[q]);
            if (j->t == PLUMB_F32)
                for (int64_t q = 0; q < n; q++) ((float *)j->dst)[(int64_t)row * n + q] = (float)fa[q];
            else
                memcpy((double *)j->dst + (int64_t)row * n, fa, (size_t)n * sizeof(double));
            continue;
        }
        for (int64_t q = 0; q < n; q++) {
            if (f32mm) f32a[q] = (float)j->init_f;
            else if (j->isf) fa[q] = j->init_f;
            else ia[q] = j->init_i;
            if (fe) fe[q] = 0;
        }
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, r)) {
            if (j->isf && j->k == IR_WB_MUL) win_mul_mark(fa, n);
            int64_t base = inside ? origin + j->wofs[wi] : 0;
            bool pad = false;
            for (uint32_t d = 0; d < last && !pad && !inside; d++) {
                int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                if (i < 0) pad = true;
                else base += i * g->istride[d];
            }
            /* the innermost dimension: p = q * s + c for output q */
            int64_t c = kw[last] * wdl - lo, q0 = n, q1 = n;
            if (!pad && bl == 1) {
                /* valid q: 0 <= q * s + c < dil */
                /* stride 1 (every channels-last pooling) needs no division */
                q0 = c >= 0 ? 0 : s == 1 ? -c : (-c + s - 1) / s;
                q1 = g->dil[last] - c <= 0 ? 0 : s == 1 ? g->dil[last] - c : (g->dil[last] - c + s - 1) / s;
                if (q1 > n) q1 = n;
                if (q0 > q1) q0 = q1;
            }
            if (pad && f32mm) {
                float fi = (float)j->init_f;
                for (int64_t q = 0; q < n; q++)
                    f32a[q] = (float)(j->k == IR_WB_MAX ? f_max(f32a[q], fi) : f_min(f32a[q], fi));
                continue;
            }
            if (pad || bl != 1) {
                for (int64_t q = 0; q < n; q++) {
                    int64_t i = pad ? -1 : ir_window_dim_at(g, last, q, kw[last]);
                    double v = j->isf ? (i < 0 ? j->init_f : f_load(j->t, j->src, base + i)) : 0;
                    if (fe) f_add2(&fa[q], &fe[q], v);
                    else if (j->isf) fa[q] = f_fold(j->k, fa[q], v);
                    else ia[q] = i_fold(j->k, j->t == PLUMB_UI64, ia[q], i < 0 ? j->init_i : i_load(j->t, j->src, base + i));
                }
                continue;
            }
#if WIN_X86
            if (f32mm) {
                float fi = (float)j->init_f;
                bool mx = j->k == IR_WB_MAX;
                for (int64_t q = 0; q < q0; q++) f32a[q] = (float)(mx ? f_max(f32a[q], fi) : f_min(f32a[q], fi));
                if (q1 > q0 && s == 2)
                    f32_row_s2_avx512(mx, f32a + q0, (const float *)j->src + base + 2 * q0 + c, q1 - q0);
                else if (q1 > q0 && j->isa >= PLUMB_ISA_AVX512)
                    f32_row_avx512(mx, f32a + q0, (const float *)j->src + base + q0 + c, q1 - q0);
                else if (q1 > q0)
                    f32_row_avx2(mx, f32a + q0, (const float *)j->src + base + q0 + c, q1 - q0);
                for (int64_t q = q1; q < n; q++) f32a[q] = (float)(mx ? f_max(f32a[q], fi) : f_min(f32a[q], fi));
                continue;
            }
#endif
            for (int64_t q = 0; q < q0; q++) {
                if (fe) f_add2(&fa[q], &fe[q], j->init_f);
                else if (j->isf) fa[q] = f_fold(j->k, fa[q], j->init_f);
                else ia[q] = i_fold(j->k, j->t == PLUMB_UI64, ia[q], j->init_i);
            }
            if (q1 > q0) {
                int64_t off = base + q0 * s + c;
                if (fe) f_row_comp(j->t, fa + q0, fe + q0, j->src, off, s, q1 - q0);
                else if (j->isf) f_row(j->k, j->t, j->isa, fa + q0, j->src, off, s, q1 - q0);
                else i_row(j->k, j->t, ia + q0, j->src, off, s, q1 - q0);
            }
            for (int64_t q = q1; q < n; q++) {
                if (fe) f_add2(&fa[q], &fe[q], j->init_f);
                else if (j->isf) fa[q] = f_fold(j->k, fa[q], j->init_f);
                else ia[q] = i_fold(j->k, j->t == PLUMB_UI64, ia[q], j->init_i);
            }
        }
        int64_t ob = (int64_t)row * n;
        if (f32mm) {
            memcpy((float *)j->dst + ob, f32a, (size_t)n * sizeof(float));
            continue;
        }
        if (j->isf && j->k == IR_WB_MUL) win_mul_mark(fa, n);
        if (j->fix && win_row_redo(j->k, j->t, fa, n))
            for (int64_t q = 0; q < n; q++) fa[q] = win_final(j, o, q, fa[q]);
        for (int64_t q = 0; q < n; q++) {
            if (fe) f_store(j->t, j->dst, ob + q, half_sum(fa[q], fe[q]));
            else if (j->isf) f_store(j->t, j->dst, ob + q, fa[q]);
            else i_store(j->t, j->dst, ob + q, ia[q]);
        }
    }
}

static void rw_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    rw_rows_body(ctx, begin, end, chunk);
#if WIN_X86
    /* this thread's streamed stores are visible before the range ends */
    if (((rw_job *)ctx)->nt) _mm_sfence();
#endif
}

static void scalar_view(plumb_tensor *t, plumb_dtype dt, void *buf)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = buf;
    t->nbytes = plumb_dtype_size(dt);
}

#define WIN_MAX_INPUTS 32

/* Any body: per element through the compiled region, the reference's
 * order (accumulator first, window positions row-major, padding = init). */
static bool rw_generic(rt_exec *x, const ir_op *op, const win_geom *g, uint32_t n, plumb_tensor *const *in,
                       plumb_tensor *const *out)
{
    const ir_block *body = &op->regions[0];
    if (body->n_args != 2 * n)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "body takes %u arguments, expected %u", body->n_args, 2 * n);
    /* [2]: a complex<f64> element is 16 bytes; elements are copied whole */
    uint64_t accbuf[WIN_MAX_INPUTS][2], xbuf[WIN_MAX_INPUTS][2], resbuf[WIN_MAX_INPUTS][2];
    plumb_tensor targ[2 * WIN_MAX_INPUTS], tres[WIN_MAX_INPUTS];
    plumb_tensor *args[2 * WIN_MAX_INPUTS], *res[WIN_MAX_INPUTS];
    for (uint32_t k = 0; k < n; k++) {
        if (body->args[k]->type.dtype != in[k]->dtype || body->args[n + k]->type.dtype != in[k]->dtype)
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "body argument %u has element type %s, input %u has %s", k,
                           plumb_dtype_name(body->args[k]->type.dtype), k, plumb_dtype_name(in[k]->dtype));
        scalar_view(&targ[k], in[k]->dtype, &accbuf[k]);
        scalar_view(&targ[n + k], in[k]->dtype, &xbuf[k]);
        scalar_view(&tres[k], in[k]->dtype, &resbuf[k]);
        args[k] = &targ[k];
        args[n + k] = &targ[n + k];
        res[k] = &tres[k];
    }
    uint64_t ocount = plumb_tensor_numel(out[0]);
    int64_t o[PLUMB_MAX_RANK] = {0}, kw[PLUMB_MAX_RANK];
    for (uint64_t oi = 0; oi < ocount; oi++, ir_window_next_index(o, g->out, g->rank)) {
        for (uint32_t k = 0; k < n; k++)
            memcpy(accbuf[k], in[n + k]->data, plumb_dtype_size(in[k]->dtype));
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, g->rank)) {
            int64_t at = 0;
            for (uint32_t d = 0; d < g->rank && at >= 0; d++) {
                int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                at = i < 0 ? -1 : at + i * g->istride[d];
            }
            for (uint32_t k = 0; k < n; k++) {
                size_t sz = plumb_dtype_size(in[k]->dtype);
                memcpy(xbuf[k], at < 0 ? in[n + k]->data : (const char *)in[k]->data + (size_t)at * sz, sz);
            }
            if (!rt_eval_region(x, body, args, res))
                return false;
            for (uint32_t k = 0; k < n; k++) {
                memcpy(accbuf[k], resbuf[k], plumb_dtype_size(in[k]->dtype));
            }
        }
        for (uint32_t k = 0; k < n; k++)
            memcpy((char *)out[k]->data + (size_t)oi * plumb_dtype_size(in[k]->dtype), accbuf[k], plumb_dtype_size(in[k]->dtype));
    }
    return true;
}

/* Whether j takes separable lines (rw_sep_line) and along which dimension;
 * sets j->seprow, j->sep_p and j->sep_off (after the row accumulators and
 * the border rows' positions) and returns the lines' scratch bytes (0:
 * none). Channels-last (the rows' kernels' shape, the row the whole
 * channel extent) along dimension last - 1 when its windows overlap
 * (extent above the stride: 3x3 stride 2; tiling windows read each input
 * once already); channels-first (the innermost dimension windowed, no
 * base dilation there) along the innermost dimension, f32 only where
 * f32_rowwin_cf_avx512 does not apply or the windows overlap. At most
 * 512 KiB of columns (they are to stay in L2). */
static size_t win_sep_pick(rw_job *j, const win_geom *g)
{
    j->sep_off = (size_t)j->row * (j->comp ? 16 : 8) + (g->wcount + 1) * sizeof(int64_t);
#if WIN_X86
    uint32_t last = g->rank - 1;
    j->seprow = NULL;
    if (j->isa < PLUMB_ISA_AVX512 || !(j->idem || (j->k == IR_WB_ADD && !j->isf)))
        return 0;
    win_rowwin_fn f = j->t != PLUMB_F32 ? j->rowwin : j->k == IR_WB_MAX ? rw_max_f32 : j->k == IR_WB_MIN ? rw_min_f32 : NULL;
    /* a NaN init: every line holds it (padding columns, every fold) */
    if (!f || (j->isf && j->init_f != j->init_f))
        return 0;
    bool chan = g->s[last] == 1 && g->b[last] == 1 && g->w[last] == 1 && g->lo[last] == 0 && j->row <= g->in[last];
    uint32_t p;
    if (chan) {
        if (g->rank < 2 || j->row != g->in[last])
            return 0;
        p = last - 1;
        if ((g->w[p] - 1) * g->wd[p] + 1 <= g->s[p])
            return 0;
    } else {
        p = last;
        bool overlap = (g->w[p] - 1) * g->wd[p] + 1 > g->s[p];
        if (j->t == PLUMB_F32 && !overlap && g->s[p] <= 2)
            return 0;
    }
    if (g->b[p] != 1)
        return 0;
    int64_t C = p == last ? 1 : j->row, X = (g->out[p] - 1) * g->s[p] + (g->w[p] - 1) * g->wd[p] + 1;
    size_t es = plumb_dtype_size(j->t), colb = (size_t)(X * C) * es;
    if (colb > ((size_t)512 << 10))
        return 0;
    j->seprow = f;
    j->sep_p = p;
    return 64 + ((colb + 63) & ~(size_t)63) + (((size_t)(X + g->s[p]) * es + 63) & ~(size_t)63) +
           (g->wcount + 1 + (size_t)g->w[p]) * sizeof(int64_t);
#else
    (void)g;
    return 0;
#endif
}

/* ---- prefix windows: scans ---------------------------------------------------- */

/* A cumulative sum (max, product, ...) written as reduce_window, as
 * jax.lax.cumsum lowers it: one dimension p whose every window runs from
 * the padding before index 0 to an index that grows by one per result
 * (stride, base and window dilation 1, low padding >= results - 1, no
 * padding after the last element), every other dimension untouched
 * (window 1, stride 1, no padding). Result o then folds init, init again
 * per leading pad, then elements 0 .. o + c in order (c = w - 1 - lo). When
 * fold(init, init) is init (0 for add, 1 for multiply, anything for
 * max/min, all ones for and, 0 for or), the pads leave init as it was, so
 * result o's accumulator is result o-1's folded with one more element: a
 * running fold gives every result with the same operations, in the same
 * order and precision (double for floats, 64-bit wrapping integers), as
 * the row loop's window-by-window fold, so the same bits; O(n) instead of
 * O(n w) (a 1024x1024 f32 cumsum along rows: 419 ms, numpy 3.3). f16/bf16
 * sums (compensated, see the top) and i1 keep the row loop. */
typedef struct scan_job {
    ir_window_body k;
    plumb_dtype t;
    bool isf;
    int isa;
    double init_f;
    int64_t init_i;
    const void *src;
    void *dst;
    int64_t len, c, inner, nres;   /* along p: input length, elements before result 0's last, results */
    int64_t blk, nblk;             /* inner columns per work item */
    uint64_t outer;
    bool fix;                      /* f64 add, float multiply: lines the double fold may get wrong are redone (scan_fix) */
} scan_job;

/* The line of results d0, d0 + ds, ... over elements so, so + ss, ...
 * whose double fold left the range (win_redo's cases): the double fold
 * again, the same operations, and the exact one (xsum, xprod) beside it;
 * results up to the first double intermediate outside the range (f64 add:
 * not finite; multiply: zero, subnormal, infinite or NaN) keep the fold's
 * bits, every later one is the exact fold's rounding (a sum that is NaN
 * keeps the fold's NaN): what the row loop (win_final) gives each window. */
static void scan_fix(const scan_job *j, int64_t so, int64_t ss, int64_t d0, int64_t ds)
{
    bool add = j->k == IR_WB_ADD;
    double f = j->init_f;
    xsum a;
    xprod p;
    if (add) xs_reset(&a), xs_add(&a, f);
    else xp_reset(&p), xp_mul(&p, f);
    bool gone = !add && !(fabs(f) >= DBL_MIN && fabs(f) <= DBL_MAX);
    for (int64_t e = 0; e < j->c + j->nres; e++) {
        double v = f_load(j->t, j->src, so + e * ss);
        f = f_fold(j->k, f, v);
        if (add) xs_add(&a, v);
        else xp_mul(&p, v);
        gone = gone || (add ? !isfinite(f) : !(fabs(f) >= DBL_MIN && fabs(f) <= DBL_MAX));
        if (e < j->c || !gone) continue;
        int64_t d = d0 + (e - j->c) * ds;
        if (!add) {
            f_store(j->t, j->dst, d, xp_round(&p, j->t));
        } else {
            double r = xs_round(&a);
            if (r == r) f_store(j->t, j->dst, d, r);
        }
    }
}

/* Whether line l of a last-dimension scan, its double fold ending at fa,
 * needs scan_fix: an f64 sum that is not finite; a product whose fold was
 * marked (scan_lines_part) or left a result that an intermediate outside
 * double's normal range would leave (f64: the result itself outside it;
 * f32: zero, infinite or NaN; scan_fix then finds the first such
 * intermediate). */
static bool scan_line_bad(const scan_job *j, int64_t l, double fa)
{
    if (j->k == IR_WB_ADD) return !isfinite(fa);
    if (fa != fa) return true;
    if (j->t == PLUMB_F64) {
        const double *d = (const double *)j->dst + l * j->nres;
        for (int64_t i = 0; i < j->nres; i++)
            if (!(fabs(d[i]) >= DBL_MIN && fabs(d[i]) <= DBL_MAX)) return true;
    } else {
        const float *d = (const float *)j->dst + l * j->nres;
        for (int64_t i = 0; i < j->nres; i++)
            if (d[i] == 0 || !isfinite(d[i])) return true;
    }
    return false;
}

#define SCAN_BLK 256
#define SCAN_LANES 8   /* lines of a last-dimension scan run together */

/* Lines l0 .. l0 + nl - 1 (nl <= SCAN_LANES) of a scan along the last
 * dimension (inner 1): each line's running fold as in scan_range, the
 * lines' folds interleaved element by element so that their dependency
 * chains (a double add's latency per element) overlap; per line the same
 * operations in the same order, so the same bits. f32 and f64 with the
 * fold's kind fixed per loop; other types through f_fold / i_fold. */
/* e in [e0, e1) of lines l0 .. l0 + nl - 1: the generic fold per lane,
 * interleaved (f_fold / i_fold, the row loop's operations) */
static void scan_lines_part(const scan_job *j, int64_t l0, int nl, int64_t e0, int64_t e1, double *fa, int64_t *ia)
{
    const int64_t len = j->len, nres = j->nres, c = j->c;
    bool u64 = j->t == PLUMB_UI64;
    for (int64_t e = e0; e < e1; e++) {
        for (int l = 0; l < nl; l++) {
            int64_t so = (l0 + l) * len + e, d = (l0 + l) * nres + e - c;
            if (j->isf) {
                fa[l] = f_fold(j->k, fa[l], f_load(j->t, j->src, so));
                if (j->k == IR_WB_MUL) win_mul_mark(&fa[l], 1);
                if (e >= c) f_store(j->t, j->dst, d, fa[l]);
            } else {
                ia[l] = i_fold(j->k, u64, ia[l], i_load(j->t, j->src, so));
                if (e >= c) i_store(j->t, j->dst, d, ia[l]);
            }
        }
    }
}

#if WIN_X86
/* 8x8 f32 transpose in registers (rows r[0..7] become columns) */
__attribute__((target("avx2")))
static inline void scan_tr8_ps(__m256 *r)
{
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/* 4x4 f64 transpose in registers */
__attribute__((target("avx2")))
static inline void scan_tr4_pd(__m256d *r)
{
    __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

__attribute__((target("avx2")))
static inline __m256d scan_fold4(ir_window_body k, __m256d a, __m256d v)
{
    return k == IR_WB_ADD ? _mm256_add_pd(a, v) : k == IR_WB_MUL ? _mm256_mul_pd(a, v) : max4(a, v, k == IR_WB_MAX);
}

/* Eight lines' elements e0 .. e1 - 1 (e0 >= c; 16 f32 or 8 f64 apart) of
 * an f32 or f64 scan: blocks of 64 bytes per line loaded as rows,
 * transposed in registers so that a lane holds a line, each column folded
 * into the lines' double accumulators (four lanes per register: max4 and
 * the add/multiply of f_fold, the same operations per lane), rounded to
 * the element type and transposed back. */
__attribute__((target("avx2")))
static void scan_lines_avx2(const scan_job *j, int64_t l0, int64_t e0, int64_t e1, double *fa)
{
    const int64_t len = j->len, nres = j->nres, c = j->c;
    ir_window_body k = j->k;
    __m256d lo = _mm256_loadu_pd(fa), hi = _mm256_loadu_pd(fa + 4);
    if (j->t == PLUMB_F32) {
        const float *s = (const float *)j->src + l0 * len;
        float *d = (float *)j->dst + l0 * nres - c;
        for (int64_t e = e0; e < e1; e += 16) {
            /* 16 columns: a whole 64-byte line per row (lines a power of
             * two apart share a cache set: use each line once) */
            __m256 r[16];
            for (int l = 0; l < 8; l++) {
                r[l] = _mm256_loadu_ps(s + l * len + e);
                r[8 + l] = _mm256_loadu_ps(s + l * len + e + 8);
            }
            scan_tr8_ps(r);
            scan_tr8_ps(r + 8);
            for (int q = 0; q < 16; q++) {
                lo = scan_fold4(k, lo, _mm256_cvtps_pd(_mm256_castps256_ps128(r[q])));
                hi = scan_fold4(k, hi, _mm256_cvtps_pd(_mm256_extractf128_ps(r[q], 1)));
                r[q] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
            }
            scan_tr8_ps(r);
            scan_tr8_ps(r + 8);
            for (int l = 0; l < 8; l++) {
                _mm256_storeu_ps(d + l * nres + e, r[l]);
                _mm256_storeu_ps(d + l * nres + e + 8, r[8 + l]);
            }
        }
    } else {
        const double *s = (const double *)j->src + l0 * len;
        double *d = (double *)j->dst + l0 * nres - c;
        for (int64_t e = e0; e < e1; e += 8) {
            /* r: lines 0-3, u: lines 4-7; columns e .. e + 3 then e + 4 .. e + 7 */
            __m256d r[8], u[8];
            for (int l = 0; l < 4; l++) {
                r[l] = _mm256_loadu_pd(s + l * len + e);
                r[4 + l] = _mm256_loadu_pd(s + l * len + e + 4);
                u[l] = _mm256_loadu_pd(s + (l + 4) * len + e);
                u[4 + l] = _mm256_loadu_pd(s + (l + 4) * len + e + 4);
            }
            scan_tr4_pd(r);
            scan_tr4_pd(r + 4);
            scan_tr4_pd(u);
            scan_tr4_pd(u + 4);
            for (int q = 0; q < 8; q++) {
                r[q] = lo = scan_fold4(k, lo, r[q]);
                u[q] = hi = scan_fold4(k, hi, u[q]);
            }
            scan_tr4_pd(r);
            scan_tr4_pd(r + 4);
            scan_tr4_pd(u);
            scan_tr4_pd(u + 4);
            for (int l = 0; l < 4; l++) {
                _mm256_storeu_pd(d + l * nres + e, r[l]);
                _mm256_storeu_pd(d + l * nres + e + 4, r[4 + l]);
                _mm256_storeu_pd(d + (l + 4) * nres + e, u[l]);
                _mm256_storeu_pd(d + (l + 4) * nres + e + 4, u[4 + l]);
            }
        }
    }
    _mm256_storeu_pd(fa, lo);
    _mm256_storeu_pd(fa + 4, hi);
}
#endif

/* Lines l0 .. l0 + nl - 1 (nl <= SCAN_LANES) of a scan along the last
 * dimension (inner 1): each line's running fold as in scan_range, the
 * lines' folds interleaved element by element so that their dependency
 * chains (a double add's latency per element) overlap; per line the same
 * operations in the same order, so the same bits. Eight f32 or f64 lines
 * at AVX2 and above go through scan_lines_avx2 from the first result on
 * (whole blocks of 16 or 8 elements); the elements before it, the last
 * partial block and every other type through scan_lines_part. */
static void scan_lines(const scan_job *j, int64_t l0, int nl)
{
    const int64_t c = j->c, ne = c + j->nres;
    double fa[SCAN_LANES];
    int64_t ia[SCAN_LANES];
    for (int l = 0; l < SCAN_LANES; l++) {
        fa[l] = j->init_f;
        ia[l] = j->init_i;
    }
    int64_t e = 0;
#if WIN_X86
    if (nl == SCAN_LANES && j->isa >= PLUMB_ISA_AVX2 && (j->t == PLUMB_F32 || j->t == PLUMB_F64)) {
        int64_t blk = j->t == PLUMB_F32 ? 16 : 8, nv = (ne - c) / blk * blk;
        scan_lines_part(j, l0, nl, 0, c, fa, ia);
        scan_lines_avx2(j, l0, c, c + nv, fa);
        e = c + nv;
    }
#endif
    scan_lines_part(j, l0, nl, e, ne, fa, ia);
    if (j->fix)
        for (int l = 0; l < nl; l++)
            if (scan_line_bad(j, l0 + l, fa[l])) scan_fix(j, (l0 + l) * j->len, 1, (l0 + l) * j->nres, 1);
}

static void scan_lines_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const scan_job *j = ctx;
    for (uint64_t it = begin; it < end; it++) {
        uint64_t l0 = it * SCAN_LANES, nl = j->outer - l0 < SCAN_LANES ? j->outer - l0 : SCAN_LANES;
        scan_lines(j, (int64_t)l0, (int)nl);
    }
}

static void scan_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    const scan_job *j = ctx;
    double fa[SCAN_BLK];
    int64_t ia[SCAN_BLK];
    for (uint64_t it = begin; it < end; it++) {
        int64_t ob = (int64_t)(it / (uint64_t)j->nblk), i0 = (int64_t)(it % (uint64_t)j->nblk) * j->blk;
        int64_t nb = j->inner - i0 < j->blk ? j->inner - i0 : j->blk;
        int64_t sb = ob * j->len * j->inner + i0, db = ob * j->nres * j->inner + i0;
        for (int64_t q = 0; q < nb; q++) {
            fa[q] = j->init_f;
            ia[q] = j->init_i;
        }
        bool mul = j->isf && j->k == IR_WB_MUL;
        if (mul) win_mul_mark(fa, nb);
        /* the elements before result 0's last one; then one element per
         * result: each a contiguous run of nb lanes folded by the row
         * loop's kernels (f_row, i_row: the same per-lane operations) */
        for (int64_t e = 0; e < j->c + j->nres; e++) {
            int64_t so = sb + e * j->inner;
            if (j->isf) {
                f_row(j->k, j->t, j->isa, fa, j->src, so, 1, nb);
                if (mul) win_mul_mark(fa, nb);
            } else
                i_row(j->k, j->t, ia, j->src, so, 1, nb);
            if (e < j->c) continue;
            int64_t d = db + (e - j->c) * j->inner;
            if (j->t == PLUMB_F32)
                for (int64_t q = 0; q < nb; q++) ((float *)j->dst)[d + q] = (float)fa[q];
            else if (j->t == PLUMB_F64)
                memcpy((double *)j->dst + d, fa, (size_t)nb * sizeof(double));
            else if (j->isf)
                for (int64_t q = 0; q < nb; q++) f_store(j->t, j->dst, d + q, fa[q]);
            else
                for (int64_t q = 0; q < nb; q++) i_store(j->t, j->dst, d + q, ia[q]);
        }
        if (j->fix)
            for (int64_t q = 0; q < nb; q++)
                if (win_redo(j->k, j->t, fa[q])) scan_fix(j, sb + q, j->inner, db + q, j->inner);
    }
}

/* Runs the scan when g is one (true); false leaves the op to the row loop. */
static bool rw_scan(rt_exec *x, const win_geom *g, ir_window_body k, plumb_dtype t, const plumb_tensor *init,
                    const void *src, void *dst)
{
    if (t == PLUMB_I1 || ((t == PLUMB_F16 || t == PLUMB_BF16) && k != IR_WB_MAX && k != IR_WB_MIN))
        return false;
    int p = -1;
    for (uint32_t d = 0; d < g->rank; d++) {
        if (g->b[d] != 1 || g->s[d] != 1) return false;
        if (g->w[d] == 1 && g->lo[d] == 0 && g->out[d] == g->in[d]) continue;
        if (p >= 0 || g->wd[d] != 1) return false;
        p = (int)d;
    }
    if (p < 0) return false;
    int64_t w = g->w[p], lo = g->lo[p], nres = g->out[p], len = g->in[p], c = w - 1 - lo;
    /* every window starts at or before index 0, the last one ends inside */
    if (nres < 1 || w < 2 || lo < nres - 1 || c < 0 || nres - 1 + c > len - 1) return false;
    scan_job j = {.k = k, .t = t, .isf = plumb_dtype_is_float(t), .isa = (int)rt_isa(x), .src = src, .dst = dst,
                  .len = len, .c = c, .nres = nres, .inner = 1};
    if (j.isf) {
        j.init_f = f_load(t, init->data, 0);
        double ff = f_fold(k, j.init_f, j.init_f);
        if (memcmp(&ff, &j.init_f, sizeof ff) != 0) return false;
    } else {
        j.init_i = i_load(t, init->data, 0);
        if (i_fold(k, t == PLUMB_UI64, j.init_i, j.init_i) != j.init_i) return false;
    }
    uint64_t outer = 1;
    for (int d = 0; d < p; d++) outer *= (uint64_t)g->in[d];
    for (uint32_t d = (uint32_t)p + 1; d < g->rank; d++) j.inner *= g->in[d];
    j.fix = j.isf && (k == IR_WB_MUL || (k == IR_WB_ADD && t == PLUMB_F64));
    if (outer == 0 || j.inner == 0) return true;
    j.outer = outer;
    if (j.inner == 1) {
        uint64_t per = (uint64_t)len * SCAN_LANES, grain = per >= 16384 ? 1 : 16384 / per;
        rt_parallel_for(x, (outer + SCAN_LANES - 1) / SCAN_LANES, grain, scan_lines_range, &j);
        return true;
    }
    j.blk = j.inner < SCAN_BLK ? j.inner : SCAN_BLK;
    j.nblk = (j.inner + j.blk - 1) / j.blk;
    uint64_t per = (uint64_t)(len * j.blk), grain = per >= 16384 ? 1 : 16384 / per;
    rt_parallel_for(x, outer * (uint64_t)j.nblk, grain, scan_range, &j);
    return true;
}

bool rt_op_REDUCE_WINDOW(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    uint32_t n = op->n_operands / 2;
    if (n == 0 || op->n_operands != 2 * n || op->n_results != n || op->n_regions != 1)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs N inputs, N init values, N results and one body");
    if (n > WIN_MAX_INPUTS)
        return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "%u inputs (at most %u)", n, WIN_MAX_INPUTS);
    win_geom g;
    if (!geom_init(x, op, in[0], true, &g))
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (in[k]->rank != g.rank || memcmp(in[k]->dims, in[0]->dims, g.rank * sizeof(int64_t)) != 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "input %u differs in shape from input 0", k);
        if (in[n + k]->rank != 0 || in[n + k]->dtype != in[k]->dtype || out[k]->dtype != in[k]->dtype)
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED,
                           "init value and result %u must have input %u's element type (promoted bodies are not run)", k, k);
        if (out[k]->rank != g.rank || memcmp(out[k]->dims, g.out, g.rank * sizeof(int64_t)) != 0)
            return rt_fail(x, op, PLUMB_ERR_INVALID, "result %u's shape is not the number of windows", k);
    }
    plumb_dtype t = in[0]->dtype;
    if (n == 1 && plumb_dtype_is_lowp(t) && ir_window_body_kind(&op->regions[0], t) != IR_WB_GENERIC)
        return rt_lowp_reduce_window(x, op, &g, in, out);   /* runtime/k_lowp_reduce.c */
    ir_window_body k = n == 1 && fast_type(t) ? ir_window_body_kind(&op->regions[0], t) : IR_WB_GENERIC;
    if (k == IR_WB_GENERIC || g.rank == 0)
        return rw_generic(x, op, &g, n, in, out);
    uint64_t ocount = plumb_tensor_numel(out[0]);
    if (ocount == 0)
        return true;
    if (rw_scan(x, &g, plumb_dtype_is_bool(t) ? bool_kind(k) : k, t, in[1], in[0]->data, out[0]->data))
        return rt_check_deadline(x, op);
    rw_job j = {.x = x, .op = op, .g = &g, .k = plumb_dtype_is_bool(t) ? bool_kind(k) : k, .t = t,
                .isf = plumb_dtype_is_float(t), .isa = (int)rt_isa(x), .src = in[0]->data, .dst = out[0]->data,
                .row = g.out[g.rank - 1]};
    j.comp = (t == PLUMB_F16 || t == PLUMB_BF16) && j.k == IR_WB_ADD;
    j.fix = j.isf && (j.k == IR_WB_MUL || (j.k == IR_WB_ADD && t == PLUMB_F64));
    j.idem = j.k == IR_WB_MAX || j.k == IR_WB_MIN || j.k == IR_WB_AND || j.k == IR_WB_OR;
    j.nt = j.isa >= PLUMB_ISA_AVX512 && out[0]->nbytes >= WIN_STREAM_BYTES;
    memcpy(j.init_b, in[1]->data, plumb_dtype_size(t) <= 8 ? plumb_dtype_size(t) : 8);
    if (t == PLUMB_I1) j.init_b[0] &= 1;
#if WIN_X86
    j.rowwin = j.isa >= PLUMB_ISA_AVX512 ? win_rowwin_pick(t, j.k) : NULL;
#endif
    size_t sep_bytes = win_sep_pick(&j, &g);
    if (j.isf) j.init_f = f_load(t, in[1]->data, 0);
    else j.init_i = plumb_dtype_is_bool(t) ? (int64_t)(((const uint8_t *)in[1]->data)[0] & 1) : i_load(t, in[1]->data, 0);
    uint64_t rows = ocount / (uint64_t)j.row;
    /* rows of at least ~4096 output-window products per chunk */
    uint64_t per_row = (uint64_t)j.row * g.wcount, grain = per_row >= 4096 ? 1 : 4096 / per_row;
    uint32_t chunks = rt_parallel_chunks(x, rows, grain);
    void **scr = rt_scratch(x, op, chunks * sizeof *scr);
    if (!scr)
        return false;
    for (uint32_t c = 0; c < chunks; c++)
        if (!(scr[c] = rt_scratch(x, op, j.sep_off + sep_bytes)))
            return false;
    j.scratch = scr;
    int64_t *wofs = rt_scratch(x, op, g.wcount * sizeof *wofs);
    if (!wofs)
        return false;
    int64_t kw[PLUMB_MAX_RANK] = {0};
    for (uint64_t wi = 0; wi < g.wcount; wi++, ir_window_next_index(kw, g.w, g.rank)) {
        wofs[wi] = 0;
        for (uint32_t d = 0; d + 1 < g.rank; d++)
            wofs[wi] += kw[d] * g.wd[d] * g.istride[d];
    }
    j.wofs = wofs;
    if (sep_bytes) {
        int64_t *vofs = rt_scratch(x, op, g.wcount * sizeof *vofs);
        if (!vofs)
            return false;
        uint32_t last = g.rank - 1;
        memset(kw, 0, sizeof kw);
        j.vc = 0;
        for (uint64_t wi = 0; wi < g.wcount; wi++, ir_window_next_index(kw, g.w, g.rank)) {
            if (kw[j.sep_p] != 0 || kw[last] != 0)
                continue;
            vofs[j.vc] = 0;
            for (uint32_t d = 0; d < last; d++)
                vofs[j.vc] += kw[d] * g.wd[d] * g.istride[d];
            j.vc++;
        }
        j.vofs = vofs;
    }
    rt_parallel_for(x, rows, grain, rw_rows, &j);
    return rt_check_deadline(x, op);
}

/* ---- select_and_scatter ------------------------------------------------------ */

/* select = `compare GE|GT, %a0, %a1` then return: the pooling gradient's
 * "keep the current selection while it is >= (>) the candidate". */
static int simple_select(const ir_block *b, plumb_dtype t)
{
    if (b->n_args != 2 || b->n_ops != 2 || !b->first || b->first->code != PLUMB_OP_COMPARE)
        return 0;
    const ir_op *c = b->first, *ret = c->next;
    if (ret->code != PLUMB_OP_RETURN || ret->n_operands != 1 || ret->operands[0] != c->results[0] ||
        c->operands[0] != b->args[0] || c->operands[1] != b->args[1])
        return 0;
    if (!plumb_dtype_is_float(t) && !(plumb_dtype_is_int(t)))
        return 0;
    /* the default comparison type for the element type only */
    ir_cmp_type want = plumb_dtype_is_float(t) ? IR_CMP_FLOAT : plumb_dtype_is_signed(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
    if (c->a.cmp_type != IR_CMP_TYPE_NONE && c->a.cmp_type != want)
        return 0;
    return c->a.cmp_dir == IR_CMP_GE ? 1 : c->a.cmp_dir == IR_CMP_GT ? 2 : 0;
}

static bool keeps(int sel, plumb_dtype t, const void *p, int64_t cur, int64_t cand)
{
    if (plumb_dtype_is_float(t)) {
        double a = f_load(t, p, cur), b = f_load(t, p, cand);
        return sel == 1 ? a >= b : a > b;
    }
    int64_t a = i_load(t, p, cur), b = i_load(t, p, cand);
    if (t == PLUMB_UI64)
        return sel == 1 ? (uint64_t)a >= (uint64_t)b : (uint64_t)a > (uint64_t)b;
    return sel == 1 ? a >= b : a > b;
}

/* The pooling gradient (select GE/GT, scatter add) without the regions.
 * Sources run in row-major order within each index of dimension 0; when
 * windows along dimension 0 do not overlap (extent <= stride), distinct
 * indices there write disjoint parts of the result, so they spread over
 * the thread pool with every element's additions still in the reference's
 * order; otherwise one range covers them all. A window wholly inside the
 * operand (no padding) walks precomputed offsets, the others ir_window_dim_at. */
typedef struct sas_job {
    rt_exec *x;
    const win_geom *g;
    int sel;
    plumb_dtype t;
    const void *opd, *src;
    void *dst;
    const int64_t *wofs;       /* per window position: offset from the window's origin */
    uint64_t per0;             /* sources per index of dimension 0 */
    int isa;
    bool tile;                 /* the windows tile the operand (sas_tiles): every element written once */
    bool nt;                   /* streaming stores (a large result; WIN_STREAM_BYTES) */
    bool lazy;                 /* sas_lazy: each dimension-1 slab filled with init just before its first use */
    bool lazy0;                /* sas_lazy0: each dimension-0 slab likewise */
    const void *init;          /* init_value's element */
} sas_job;

/* The windows cover every operand element exactly once (no window
 * dilation, window = stride and no low padding on every dimension, and
 * the windows reach the operand's end): each element's result is init,
 * plus the one source whose window selected it. The tile rows write that
 * once instead of filling the result with init and adding into it, a
 * full pass over the result less (the 2x2 stride 2 pooling gradient). */
static bool sas_tiles(const win_geom *g)
{
    for (uint32_t d = 0; d < g->rank; d++)
        if (g->wd[d] != 1 || g->w[d] != g->s[d] || g->lo[d] != 0 || g->out[d] * g->s[d] != g->in[d])
            return false;
    return true;
}

/* Overlapping windows over a batch dimension 0 that is not windowed
 * (window 1, stride 1, no padding: every NHWC pooling gradient), rank 3
 * or more: instead of a pass filling the whole result with init before
 * the adds, each slab along dimension 1 of an image is filled just before
 * the first source whose window reaches it. The sources of an image run in
 * row-major order and the window of a source at o1 reaches slabs below
 * o1 s1 - lo1 + (w1 - 1) wd1 + 1, which never decreases, so every element
 * still gets init before any of its additions and then its sources in the
 * source order: the reference's sequence, bit for bit. The slab is filled
 * while its lines are about to be read again (a 3x3 window spans three
 * rows of an image), so the init pass no longer goes to memory on its
 * own. */
static bool sas_lazy(const win_geom *g)
{
    return g->rank >= 3 && g->w[0] == 1 && g->s[0] == 1 && g->lo[0] == 0 && g->out[0] == g->in[0];
}

/* Fills slabs [*filled, upto) of dimension 1 of image i with init. */
/* Overlapping windows along dimension 0 itself (sas_lazy0: one range
 * runs every source, dimension 0 not split between threads): the same
 * rule one level up, the slabs along dimension 0 of the whole result;
 * the last slab a source at o0 reaches, o0 s0 - lo0 + (w0 - 1) wd0,
 * never decreases in source order. */
static bool sas_lazy0(const win_geom *g)
{
    return g->rank >= 1 && (g->w[0] - 1) * g->wd[0] + 1 > g->s[0];
}

static void sas_fill_slabs(const sas_job *j, uint32_t dim, int64_t i, int64_t *filled, int64_t upto)
{
    const win_geom *g = j->g;
    if (upto > g->in[dim]) upto = g->in[dim];
    if (upto <= *filled) return;
    size_t sz = plumb_dtype_size(j->t);
    size_t at = (size_t)((dim ? i * g->istride[0] : 0) + *filled * g->istride[dim]);
    size_t cnt = (size_t)((upto - *filled) * g->istride[dim]);
    char *d = (char *)j->dst + at * sz;
    static const unsigned char zero8[8];
    if (sz <= sizeof zero8 && memcmp(j->init, zero8, sz) == 0)
        memset(d, 0, cnt * sz);
    else
        for (size_t k = 0; k < cnt; k++) memcpy(d + k * sz, j->init, sz);
    *filled = upto;
}

/* Border windows of at most this many positions take the vector rows on a
 * stack list of their positions inside the operand. */
#define SAS_SUB_MAX 64

static inline bool keeps_f32(int sel, float a, float b) { return sel == 1 ? a >= b : a > b; }

#if WIN_X86
/* One channels-last row of f32 sources (innermost window 1, stride 1, no
 * padding there; the window inside the operand on the outer dimensions):
 * sixteen channels at a time, each lane running the scalar selection (a
 * lane keeps its selection where it compares GE/GT, ordered, so a NaN on
 * either side takes the candidate, as keeps does) and adding its source
 * to the selected element; lanes are distinct channels, so every
 * element's additions keep the source order. An f32 add is the double
 * add rounded once (double has more than 2p + 2 bits). */
WIN_AVX512
static void sas_row_avx512(const sas_job *j, int64_t origin, const int64_t *wofs, uint32_t wc, uint64_t si, int64_t n)
{
    const float *x = j->opd, *sv = (const float *)j->src + si;
    float *out = j->dst;
    for (int64_t c = 0; c < n; c += 16) {
        __mmask16 m = n - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - c)) - 1);
        /* prefetched as the tile rows are (the hardware prefetchers left
         * these window rows latency-bound: perf, 3x3 stride 2 gradient) */
        WIN_PREFETCH(x + origin + wofs[0] + c);
        __m512 best = _mm512_maskz_loadu_ps(m, x + origin + wofs[0] + c);
        __m512i idx = _mm512_setzero_si512();
        for (uint32_t k = 1; k < wc; k++) {
            WIN_PREFETCH(x + origin + wofs[k] + c);
            __m512 v = _mm512_maskz_loadu_ps(m, x + origin + wofs[k] + c);
            __mmask16 keep = j->sel == 1 ? _mm512_cmp_ps_mask(best, v, _CMP_GE_OQ) : _mm512_cmp_ps_mask(best, v, _CMP_GT_OQ);
            __mmask16 take = (__mmask16)~keep;
            best = _mm512_mask_mov_ps(best, take, v);
            idx = _mm512_mask_mov_epi32(idx, take, _mm512_set1_epi32((int)k));
        }
        WIN_PREFETCH(sv + c);
        __m512 src = _mm512_maskz_loadu_ps(m, sv + c);
        for (uint32_t k = 0; k < wc; k++) {
            __mmask16 e = _mm512_mask_cmpeq_epi32_mask(m, idx, _mm512_set1_epi32((int)k));
            if (!e)
                continue;
            float *op = out + origin + wofs[k] + c;
            _mm512_mask_storeu_ps(op, e, _mm512_add_ps(_mm512_maskz_loadu_ps(e, op), src));
        }
    }
}
#endif

#if WIN_X86
/* The tile form of sas_row_avx512: the selection the same, then each
 * window position's block written once, init where the lane did not
 * select it and init + source where it did (an f32 add, correctly rounded
 * as the reference's double add rounded to f32 is). Blocks are aligned to
 * the result's lines, so the streamed stores take whole lines. */
WIN_AVX512
static void sas_tile_avx512(const sas_job *j, int64_t origin, uint64_t si, int64_t n)
{
    const float *x = (const float *)j->opd + origin, *sv = (const float *)j->src + si;
    float *out = (float *)j->dst + origin;
    const int64_t *wofs = j->wofs;
    uint32_t wc = (uint32_t)j->g->wcount;
    float init;
    memcpy(&init, j->init, sizeof init);
    __m512 vi = _mm512_set1_ps(init);
    int64_t head = win_head(out + wofs[0], 4, n);
    for (int64_t c = 0; c < n;) {
        int64_t len = c == 0 && head > 0 ? head : n - c;
        __mmask16 m = win_mask16(len);
        WIN_PREFETCH(x + wofs[0] + c);
        __m512 best = _mm512_maskz_loadu_ps(m, x + wofs[0] + c);
        __m512i idx = _mm512_setzero_si512();
        for (uint32_t k = 1; k < wc; k++) {
            const float *p = x + wofs[k] + c;
            WIN_PREFETCH(p);
            __m512 v = _mm512_maskz_loadu_ps(m, p);
            __mmask16 keep = j->sel == 1 ? _mm512_cmp_ps_mask(best, v, _CMP_GE_OQ) : _mm512_cmp_ps_mask(best, v, _CMP_GT_OQ);
            __mmask16 take = (__mmask16)~keep;
            best = _mm512_mask_mov_ps(best, take, v);
            idx = _mm512_mask_mov_epi32(idx, take, _mm512_set1_epi32((int)k));
        }
        WIN_PREFETCH(sv + c);
        __m512 sum = _mm512_add_ps(vi, _mm512_maskz_loadu_ps(m, sv + c));
        for (uint32_t k = 0; k < wc; k++) {
            __mmask16 e = _mm512_cmpeq_epi32_mask(idx, _mm512_set1_epi32((int)k));
            win_store16(out + wofs[k] + c, m, _mm512_mask_blend_ps(e, vi, sum), j->nt);
        }
        c += len < 16 ? len : 16;
    }
}
#endif

static void sas_rows_body(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    sas_job *j = ctx;
    const win_geom *g = j->g;
    uint32_t r = g->rank;
    int64_t o[PLUMB_MAX_RANK], kw[PLUMB_MAX_RANK];
    uint64_t rem = begin * j->per0;
    for (uint32_t d = r; d-- > 0;) {
        o[d] = (int64_t)(rem % (uint64_t)g->out[d]);
        rem /= (uint64_t)g->out[d];
    }
    bool f32 = j->t == PLUMB_F32;
    const float *of = j->opd;
    int64_t nch = g->out[r - 1];
    bool vec = f32 && j->isa >= PLUMB_ISA_AVX512 && r >= 2 && g->w[r - 1] == 1 && g->s[r - 1] == 1 &&
               g->lo[r - 1] == 0 && nch <= g->in[r - 1] && g->wcount < (1u << 30);
    (void)vec;   /* read only by the x86 rows */
    /* sas_lazy: the image in progress and its slabs along dimension 1 filled so far */
    int64_t img = -1, filled = 0, ext1 = r >= 2 ? (g->w[1] - 1) * g->wd[1] + 1 : 1, ext0 = (g->w[0] - 1) * g->wd[0] + 1;
    for (uint64_t si = begin * j->per0; si < end * j->per0; si++, ir_window_next_index(o, g->out, r)) {
        if ((si & 1023) == 0 && atomic_load_explicit(&j->x->timed_out, memory_order_relaxed))
            return;
        if (j->lazy) {
            if (o[0] != img) {
                if (img >= 0) sas_fill_slabs(j, 1, img, &filled, g->in[1]);
                img = o[0];
                filled = 0;
            }
            sas_fill_slabs(j, 1, img, &filled, o[1] * g->s[1] - g->lo[1] + ext1);
        } else if (j->lazy0) {
            sas_fill_slabs(j, 0, 0, &filled, o[0] * g->s[0] - g->lo[0] + ext0);
        }
#if WIN_X86
        if (vec && o[r - 1] == 0) {
            int64_t origin = 0;
            bool in_ = true;
            for (uint32_t d = 0; d + 1 < r; d++) {
                int64_t p = o[d] * g->s[d] - g->lo[d];
                in_ = in_ && p >= 0 && p + (g->w[d] - 1) * g->wd[d] < g->in[d];
                origin += p * g->istride[d];
            }
            if (in_) {
                if (j->tile) sas_tile_avx512(j, origin, si, nch);
                else sas_row_avx512(j, origin, j->wofs, (uint32_t)g->wcount, si, nch);
                /* the loop's step moves past the row */
                si += (uint64_t)nch - 1;
                o[r - 1] = nch - 1;
                continue;
            }
            if (!j->tile && g->wcount <= SAS_SUB_MAX) {
                /* a border window (on padding): the reference skips the
                 * padded positions, so the row kernel runs on the positions
                 * inside the operand, in the window's order (absolute
                 * offsets); none inside: no selection, nothing added */
                int64_t sub[SAS_SUB_MAX];
                uint32_t wc = 0;
                memset(kw, 0, sizeof kw);
                for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, r - 1)) {
                    int64_t at = 0;
                    for (uint32_t d = 0; d + 1 < r && at >= 0; d++) {
                        int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                        at = i < 0 ? -1 : at + i * g->istride[d];
                    }
                    if (at >= 0) sub[wc++] = at;
                }
                if (wc > 0) sas_row_avx512(j, 0, sub, wc, si, nch);
                si += (uint64_t)nch - 1;
                o[r - 1] = nch - 1;
                continue;
            }
        }
#endif
        int64_t chosen = -1, base = 0;
        bool inside = true;
        for (uint32_t d = 0; d < r; d++) {
            int64_t p = o[d] * g->s[d] - g->lo[d];
            inside = inside && p >= 0 && p + (g->w[d] - 1) * g->wd[d] < g->in[d];
            base += p * g->istride[d];
        }
        if (inside) {
            chosen = base + j->wofs[0];
            for (uint64_t wi = 1; wi < g->wcount; wi++) {
                int64_t at = base + j->wofs[wi];
                if (f32 ? !keeps_f32(j->sel, of[chosen], of[at]) : !keeps(j->sel, j->t, j->opd, chosen, at))
                    chosen = at;
            }
        } else {
            memset(kw, 0, sizeof kw);
            for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, r)) {
                int64_t at = 0;
                for (uint32_t d = 0; d < r && at >= 0; d++) {
                    int64_t i = ir_window_dim_at(g, d, o[d], kw[d]);
                    at = i < 0 ? -1 : at + i * g->istride[d];
                }
                if (at >= 0 && (chosen < 0 || !keeps(j->sel, j->t, j->opd, chosen, at)))
                    chosen = at;
            }
            if (chosen < 0)
                continue;
        }
        if (j->tile) {
            /* every element of this window is written here and nowhere
             * else: init, the selected one init + source */
            size_t sz = plumb_dtype_size(j->t);
            for (uint64_t wi = 0; wi < g->wcount; wi++)
                memcpy((char *)j->dst + (size_t)(base + j->wofs[wi]) * sz, j->init, sz);
        }
        if (f32)
            ((float *)j->dst)[chosen] = (float)((double)((float *)j->dst)[chosen] + (double)((const float *)j->src)[si]);
        else if (plumb_dtype_is_float(j->t))
            f_store(j->t, j->dst, chosen, f_load(j->t, j->dst, chosen) + f_load(j->t, j->src, (int64_t)si));
        else
            i_store(j->t, j->dst, chosen, (int64_t)((uint64_t)i_load(j->t, j->dst, chosen) +
                                                    (uint64_t)i_load(j->t, j->src, (int64_t)si)));
    }
    if (img >= 0)
        sas_fill_slabs(j, 1, img, &filled, g->in[1]);
    if (j->lazy0)
        sas_fill_slabs(j, 0, 0, &filled, g->in[0]);   /* the slabs no window reaches */
}

static void sas_rows(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    sas_rows_body(ctx, begin, end, chunk);
#if WIN_X86
    /* this thread's streamed stores are visible before the range ends */
    if (((sas_job *)ctx)->nt) _mm_sfence();
#endif
}

static bool sas_fast(rt_exec *x, const ir_op *op, const win_geom *g, int sel, plumb_dtype t, const plumb_tensor *opd,
                     const plumb_tensor *src, const plumb_tensor *init, plumb_tensor *out)
{
    uint64_t scount = plumb_tensor_numel(src);
    if (scount == 0)
        return true;
    int64_t *wofs = rt_scratch(x, op, g->wcount * sizeof *wofs);
    if (!wofs)
        return false;
    int64_t kw[PLUMB_MAX_RANK] = {0};
    for (uint64_t wi = 0; wi < g->wcount; wi++, ir_window_next_index(kw, g->w, g->rank)) {
        wofs[wi] = 0;
        for (uint32_t d = 0; d < g->rank; d++)
            wofs[wi] += kw[d] * g->wd[d] * g->istride[d];
    }
    sas_job j = {.x = x, .g = g, .sel = sel, .t = t, .opd = opd->data, .src = src->data, .dst = out->data,
                 .wofs = wofs, .per0 = scount / (uint64_t)g->out[0], .isa = (int)rt_isa(x), .tile = sas_tiles(g),
                 .init = init->data};
    j.lazy = !j.tile && sas_lazy(g);   /* the caller skipped the init fill (scount > 0: every image has sources) */
    j.lazy0 = !j.tile && !j.lazy && sas_lazy0(g);   /* likewise; one range (the windows overlap along dimension 0) */
    j.nt = j.tile && j.isa >= PLUMB_ISA_AVX512 && out->nbytes >= WIN_STREAM_BYTES;
    bool disjoint = (g->w[0] - 1) * g->wd[0] + 1 <= g->s[0];
    if (disjoint) {
        uint64_t grain = j.per0 * g->wcount >= 4096 ? 1 : 4096 / (j.per0 * g->wcount);
        rt_parallel_for(x, (uint64_t)g->out[0], grain, sas_rows, &j);
    } else {
        sas_rows(&j, 0, (uint64_t)g->out[0], 0);
    }
    return rt_check_deadline(x, op);
}

bool rt_op_SELECT_AND_SCATTER(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *opd = in[0], *src = in[1], *init = in[2];
    if (op->n_operands != 3 || op->n_results != 1 || op->n_regions != 2)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "needs operand, source, init_value, one result and two regions");
    plumb_dtype t = opd->dtype;
    if (src->dtype != t || init->dtype != t || init->rank != 0 || out[0]->dtype != t)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "source, init_value and result must have the operand's element type");
    win_geom g;
    if (!geom_init(x, op, opd, false, &g))
        return false;
    if (src->rank != g.rank || memcmp(src->dims, g.out, g.rank * sizeof(int64_t)) != 0)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "source's shape is not the number of windows");
    const ir_block *sel = &op->regions[0], *sc = &op->regions[1];
    if (sel->n_args != 2 || sc->n_args != 2)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "select and scatter take two arguments each");
    for (uint32_t i = 0; i < 2; i++)
        if (sel->args[i]->type.dtype != t || sc->args[i]->type.dtype != t)
            return rt_fail(x, op, PLUMB_ERR_UNSUPPORTED, "region arguments must have the operand's element type %s",
                           plumb_dtype_name(t));
    int fast_sel = fast_type(t) && t != PLUMB_I1 ? simple_select(sel, t) : 0;
    bool fast_add = fast_type(t) && t != PLUMB_I1 && ir_window_body_kind(sc, t) == IR_WB_ADD;
    /* elements are copied whole by their byte size ([2]: a complex<f64> is 16 bytes) */
    size_t sz = plumb_dtype_size(t);
    char *od = out[0]->data;
    const char *xd = opd->data, *sd = src->data;
    uint64_t numel = plumb_tensor_numel(out[0]);
    static const unsigned char zero16[16];
    bool fast = fast_sel && fast_add && g.rank > 0;
    if (fast && (sas_tiles(&g) || ((sas_lazy(&g) || sas_lazy0(&g)) && plumb_tensor_numel(src) > 0)))
        return sas_fast(x, op, &g, fast_sel, t, opd, src, init, out[0]);   /* writes every element */
    if (sz <= sizeof zero16 && memcmp(init->data, zero16, sz) == 0)
        memset(out[0]->data, 0, out[0]->nbytes);
    else
        for (uint64_t i = 0; i < numel; i++)
            memcpy(od + (size_t)i * sz, init->data, sz);
    if (fast)
        return sas_fast(x, op, &g, fast_sel, t, opd, src, init, out[0]);
    uint64_t a0[2] = {0, 0}, a1[2] = {0, 0}, r0[2] = {0, 0}, pb = 0;
    plumb_tensor ta0, ta1, tr, tp;
    scalar_view(&ta0, t, a0);
    scalar_view(&ta1, t, a1);
    scalar_view(&tr, t, r0);
    scalar_view(&tp, PLUMB_I1, &pb);
    plumb_tensor *args[2] = {&ta0, &ta1}, *res[1] = {&tr}, *pres[1] = {&tp};
    uint64_t scount = plumb_tensor_numel(src);
    int64_t o[PLUMB_MAX_RANK] = {0}, kw[PLUMB_MAX_RANK];
    for (uint64_t si = 0; si < scount; si++, ir_window_next_index(o, g.out, g.rank)) {
        if ((si & 1023) == 0 && !rt_check_deadline(x, op))
            return false;
        int64_t chosen = -1;
        memset(kw, 0, sizeof kw);
        for (uint64_t wi = 0; wi < g.wcount; wi++, ir_window_next_index(kw, g.w, g.rank)) {
            int64_t at = 0;
            for (uint32_t d = 0; d < g.rank && at >= 0; d++) {
                int64_t i = ir_window_dim_at(&g, d, o[d], kw[d]);
                at = i < 0 ? -1 : at + i * g.istride[d];
            }
            if (at < 0)
                continue;
            if (chosen < 0) {
                chosen = at;
            } else if (fast_sel) {
                if (!keeps(fast_sel, t, opd->data, chosen, at))
                    chosen = at;
            } else {
                pb = 0;
                memcpy(a0, xd + (size_t)chosen * sz, sz);
                memcpy(a1, xd + (size_t)at * sz, sz);
                if (!rt_eval_region(x, sel, args, pres))
                    return false;
                if (!(pb & 1))
                    chosen = at;
            }
        }
        if (chosen < 0)
            continue;
        if (fast_add && plumb_dtype_is_float(t)) {
            f_store(t, out[0]->data, chosen, f_load(t, out[0]->data, chosen) + f_load(t, src->data, (int64_t)si));
        } else if (fast_add) {
            i_store(t, out[0]->data, chosen, (int64_t)((uint64_t)i_load(t, out[0]->data, chosen) +
                                                       (uint64_t)i_load(t, src->data, (int64_t)si)));
        } else {
            memcpy(a0, od + (size_t)chosen * sz, sz);
            memcpy(a1, sd + (size_t)si * sz, sz);
            if (!rt_eval_region(x, sc, args, res))
                return false;
            memcpy(od + (size_t)chosen * sz, r0, sz);
        }
    }
    return true;
}
