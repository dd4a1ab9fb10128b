/* The small float formats (ir/fp8.c) against an exact-rational oracle
 * written here from the format definitions (OCP 8-bit FP and Microscaling
 * specs, LLVM APFloat's FNUZ/E3M4/E4M3/E8M0 semantics; docs/spec/types.md):
 *   - every pattern of every format decodes to sign * M * 2^E, M and E read
 *     off the bit fields here, never from the code under test;
 *   - narrowing to a small format picks, by exact integer comparison of
 *     M * 2^E pairs, the nearest of the format's finite values (enumerated
 *     here), ties to the even fraction, with a virtual value one ulp beyond
 *     the largest finite one standing for overflow;
 *   - widening to f16/bf16/f32/f64 rounds M * 2^E with integer shifts at the
 *     target's precision and exponent range.
 * Sources: every pattern of every <= 8-bit format, every f16 and bf16
 * pattern, and f32/f64 samples (a stride over all patterns plus, for each
 * target format, every midpoint between neighbours and the values one ulp
 * either side of it). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"

enum kind { K_IEEE, K_FN, K_FNUZ, K_NONE, K_E8M0 };

typedef struct sfmt {
    plumb_dtype t;
    int bits, mant, expo, bias;
    enum kind kind;
} sfmt;

/* Restated from the specifications, independently of ir/fp8.c. */
static const sfmt FMTS[] = {
    {PLUMB_F8E4M3FN, 8, 3, 4, 7, K_FN},
    {PLUMB_F8E5M2, 8, 2, 5, 15, K_IEEE},
    {PLUMB_F8E4M3FNUZ, 8, 3, 4, 8, K_FNUZ},
    {PLUMB_F8E5M2FNUZ, 8, 2, 5, 16, K_FNUZ},
    {PLUMB_F8E4M3B11FNUZ, 8, 3, 4, 11, K_FNUZ},
    {PLUMB_F8E3M4, 8, 4, 3, 3, K_IEEE},
    {PLUMB_F8E4M3, 8, 3, 4, 7, K_IEEE},
    {PLUMB_F8E8M0FNU, 8, 0, 8, 127, K_E8M0},
    {PLUMB_F6E2M3FN, 6, 3, 2, 1, K_NONE},
    {PLUMB_F6E3M2FN, 6, 2, 3, 3, K_NONE},
    {PLUMB_F4E2M1FN, 4, 1, 2, 1, K_NONE},
};
#define NFMT (sizeof FMTS / sizeof FMTS[0])

/* A value: NaN, +-inf, or (-1)^neg * m * 2^e. */
typedef struct val {
    int cls;   /* 0 finite, 1 inf, 2 nan */
    int neg;
    uint64_t m;
    int e;
} val;

static val decode_ref(const sfmt *f, uint32_t p)
{
    val v = {0, 0, 0, 0};
    if (f->kind == K_E8M0) {
        if (p == 0xFF)
            v.cls = 2;
        else {
            v.m = 1;
            v.e = (int)p - 127;
        }
        return v;
    }
    uint32_t sign = 1u << (f->bits - 1), ones = (1u << f->expo) - 1, fones = (1u << f->mant) - 1;
    uint32_t field = (p >> f->mant) & ones, frac = p & fones;
    v.neg = (p & sign) != 0;
    if (f->kind == K_FNUZ && p == sign) {
        /* The FNUZ NaN occupies the -0 code; it has no sign of its own. */
        v.cls = 2;
        v.neg = 0;
        return v;
    }
    if (f->kind == K_IEEE && field == ones) {
        v.cls = frac ? 2 : 1;
        return v;
    }
    if (f->kind == K_FN && field == ones && frac == fones) {
        v.cls = 2;
        return v;
    }
    if (field == 0) {
        v.m = frac;
        v.e = 1 - f->bias - f->mant;
    } else {
        v.m = frac | (1u << f->mant);
        v.e = (int)field - f->bias - f->mant;
    }
    return v;
}

static int bitlen(uint64_t m) { return m ? 64 - __builtin_clzll(m) : 0; }

/* Compares m1*2^e1 with m2*2^e2 (both >= 0) exactly. */
static int cmp_exact(uint64_t m1, int e1, uint64_t m2, int e2)
{
    if (!m1 || !m2)
        return (m1 != 0) - (m2 != 0);
    int t1 = e1 + bitlen(m1), t2 = e2 + bitlen(m2);
    if (t1 != t2)
        return t1 < t2 ? -1 : 1;
    /* Same top bit: the exponents differ by less than 64, so aligning the
     * one with the larger exponent fits 128 bits. */
    unsigned __int128 a = m1, b = m2;
    if (e1 > e2)
        a <<= (e1 - e2);
    else
        b <<= (e2 - e1);
    return a < b ? -1 : a > b;
}

/* The positive finite values of a format in ascending order (with +0 first
 * where the format has zero), their patterns, and the overflow stand-in. */
typedef struct table {
    int n;
    uint64_t m[256];
    int e[256];
    uint32_t pat[256];
    uint64_t big_m;   /* one ulp above the largest finite value */
    int big_e;
    int big_even;     /* whether a tie between max and big goes to big */
} table;

static table TAB[NFMT];

static void build_table(size_t fi)
{
    const sfmt *f = &FMTS[fi];
    table *t = &TAB[fi];
    t->n = 0;
    uint32_t npat = 1u << f->bits;
    /* Positive patterns in ascending order are ascending values. */
    for (uint32_t p = 0; p < npat; p++) {
        if (f->kind != K_E8M0 && (p >> (f->bits - 1)))
            continue;
        val v = decode_ref(f, p);
        if (v.cls)
            continue;
        t->m[t->n] = v.m;
        t->e[t->n] = v.e;
        t->pat[t->n] = p;
        t->n++;
    }
    int last = t->n - 1;
    /* max = m * 2^e; the next value of an unbounded format is max + 2^e
     * (its ulp: m carries the full significand). */
    t->big_m = t->m[last] + 1;
    t->big_e = t->e[last];
    if (f->kind == K_E8M0) {
        t->big_m = 2;
        t->big_even = 1;   /* one significand bit, always set: ties go up */
    } else {
        t->big_even = (t->pat[last] & 1) != 0;   /* max odd: the tie goes beyond */
    }
}

static uint32_t nan_of(const sfmt *f, int neg)
{
    switch (f->kind) {
    case K_IEEE: return (neg ? 1u << 7 : 0) | (((1u << f->expo) - 1) << f->mant) | (1u << (f->mant - 1));
    case K_FN: return (neg ? 0x80u : 0) | 0x7Fu;
    case K_FNUZ: return 0x80;
    case K_E8M0: return 0xFF;
    case K_NONE: return 0;   /* no NaN: +0, APFloat's result */
    }
    return 0;
}

static uint32_t signed_pat(const sfmt *f, int neg, uint32_t p)
{
    return neg ? p | (1u << (f->bits - 1)) : p;
}

/* The expected pattern for v rounded to f; *any_nan when any NaN pattern of
 * the right sign would do (IEEE formats keep a payload). */
static uint32_t expect_small(size_t fi, val v, int *any_nan)
{
    const sfmt *f = &FMTS[fi];
    const table *t = &TAB[fi];
    *any_nan = 0;
    if (v.cls == 2) {
        *any_nan = f->kind == K_IEEE;
        return nan_of(f, v.neg);
    }
    int last = t->n - 1;
    uint32_t maxp = t->pat[last];
    uint32_t over;
    switch (f->kind) {
    case K_IEEE: over = signed_pat(f, v.neg, ((1u << f->expo) - 1) << f->mant); break;
    case K_FN: over = nan_of(f, v.neg); break;
    case K_NONE: over = signed_pat(f, v.neg, maxp); break;
    default: over = nan_of(f, v.neg); break;
    }
    if (v.cls == 1)
        return over;
    if (f->kind == K_E8M0) {
        if (v.neg && v.m)
            return 0xFF;
        if (!v.m)
            return 0x00;
    }
    /* Largest table index with value <= |v|. */
    int lo = -1;
    for (int a = 0, b = t->n - 1; a <= b;) {
        int mid = (a + b) / 2;
        if (cmp_exact(t->m[mid], t->e[mid], v.m, v.e) <= 0) {
            lo = mid;
            a = mid + 1;
        } else {
            b = mid - 1;
        }
    }
    uint32_t res;
    if (lo < 0) {
        res = t->pat[0];   /* E8M0: below 2^-127, the smallest value */
    } else if (cmp_exact(t->m[lo], t->e[lo], v.m, v.e) == 0) {
        res = t->pat[lo];
    } else {
        uint64_t bm;
        int be, hi_even;
        bool beyond = lo == last;
        if (beyond) {
            bm = t->big_m;
            be = t->big_e;
            hi_even = t->big_even;
        } else {
            bm = t->m[lo + 1];
            be = t->e[lo + 1];
            hi_even = f->kind == K_E8M0 ? 1 : (t->pat[lo + 1] & 1) == 0;
        }
        /* midpoint = (a + b) / 2 with a common exponent */
        int e0 = t->e[lo] < be ? t->e[lo] : be;
        uint64_t am = t->m[lo] << (t->e[lo] - e0), bmm = bm << (be - e0);
        int c = cmp_exact(am + bmm, e0 - 1, v.m, v.e);   /* mid vs |v| */
        bool up = c < 0 || (c == 0 && hi_even);
        if (up && beyond)
            return over;
        res = up ? t->pat[lo + 1] : t->pat[lo];
    }
    if (f->kind == K_E8M0)
        return res;
    if (res == 0 && f->kind == K_FNUZ)
        return 0;
    return signed_pat(f, v.neg, res);
}

/* An IEEE format's parameters for the widening oracle. */
typedef struct ieee {
    plumb_dtype t;
    int p, emin, emax, ebits;
} ieee;

static const ieee WIDE[] = {
    {PLUMB_F16, 11, -14, 15, 5},
    {PLUMB_BF16, 8, -126, 127, 8},
    {PLUMB_F32, 24, -126, 127, 8},
    {PLUMB_F64, 53, -1022, 1023, 11},
};

/* v (finite) rounded to w, as a pattern built from integer fields. */
static uint64_t expect_wide(const ieee *w, val v)
{
    int nbits = w->t == PLUMB_F64 ? 64 : w->t == PLUMB_F32 ? 32 : 16;
    uint64_t sign = (uint64_t)v.neg << (nbits - 1);
    uint64_t inf = (((1ull << w->ebits) - 1) << (w->p - 1));
    if (v.cls == 1)
        return sign | inf;
    if (!v.m)
        return sign;
    int top = v.e + bitlen(v.m) - 1;                 /* exponent of the leading bit */
    int eff = top < w->emin ? w->emin : top;
    int qe = eff - (w->p - 1);                       /* exponent of the last kept bit */
    uint64_t q;
    if (v.e >= qe) {
        q = v.m << (v.e - qe);
    } else {
        int sh = qe - v.e;
        if (sh > 64) {
            q = 0;   /* below half of the smallest subnormal */
        } else {
            unsigned __int128 mm = v.m;
            q = (uint64_t)(mm >> sh);
            unsigned __int128 rem = mm - ((unsigned __int128)q << sh), half = (unsigned __int128)1 << (sh - 1);
            if (rem > half || (rem == half && (q & 1)))
                q++;
        }
    }
    /* q < 2^p, or == 2^p after a carry. */
    if (q >> w->p) {
        q >>= 1;
        qe++;
    }
    if (q >> (w->p - 1)) {                           /* normal */
        int field = qe + (w->p - 1) + (w->emax);     /* biased exponent */
        if (field >= (1 << w->ebits) - 1)
            return sign | inf;
        return sign | ((uint64_t)field << (w->p - 1)) | (q & ((1ull << (w->p - 1)) - 1));
    }
    return sign | q;                                 /* subnormal (or zero) */
}

static val val_of_double(double d)
{
    val v = {0, signbit(d) != 0, 0, 0};
    if (isnan(d)) { v.cls = 2; return v; }
    if (isinf(d)) { v.cls = 1; return v; }
    if (d == 0) return v;
    int e;
    double fr = frexp(fabs(d), &e);
    v.m = (uint64_t)ldexp(fr, 53);
    v.e = e - 53;
    return v;
}

static val val_of_half(uint16_t h, bool bf)
{
    int mant = bf ? 7 : 10, ebits = bf ? 8 : 5, bias = bf ? 127 : 15;
    val v = {0, h >> 15, 0, 0};
    uint32_t field = (h >> mant) & ((1u << ebits) - 1), frac = h & ((1u << mant) - 1);
    if (field == (1u << ebits) - 1) { v.cls = frac ? 2 : 1; return v; }
    if (field == 0) { v.m = frac; v.e = 1 - bias - mant; }
    else { v.m = frac | (1u << mant); v.e = (int)field - bias - mant; }
    return v;
}

static long failures;

static void check_small(size_t fi, val v, uint32_t got, const char *what, uint64_t src)
{
    int any_nan;
    uint32_t want = expect_small(fi, v, &any_nan);
    const sfmt *f = &FMTS[fi];
    bool ok = got == want;
    if (any_nan) {
        val g = decode_ref(f, got);
        ok = g.cls == 2 && g.neg == v.neg;
    }
    if (!ok && failures++ < 20)
        print_error("%s 0x%llx -> %s: got 0x%02x, want 0x%02x\n", what, (unsigned long long)src,
                    plumb_dtype_name(f->t), got, want);
}

static void setup_tables(void)
{
    static int done;
    if (done)
        return;
    for (size_t i = 0; i < NFMT; i++)
        build_table(i);
    done = 1;
}

/* Every pattern of every format decodes to the value its fields define,
 * through the generic element loader. */
static void test_decode_all(void **state)
{
    (void)state;
    failures = 0;
    for (size_t fi = 0; fi < NFMT; fi++) {
        const sfmt *f = &FMTS[fi];
        for (uint32_t p = 0; p < (1u << f->bits); p++) {
            unsigned char byte = (unsigned char)p;
            double got = plumb_load_f64(f->t, &byte, 0);
            val v = decode_ref(f, p);
            bool ok;
            if (v.cls == 2)
                ok = isnan(got);
            else if (v.cls == 1)
                ok = isinf(got) && (signbit(got) != 0) == v.neg;
            else {
                val g = val_of_double(got);
                ok = !isnan(got) && !isinf(got) && (g.neg == v.neg || (!v.m && f->kind == K_FNUZ)) &&
                     cmp_exact(g.m, g.e, v.m, v.e) == 0;
            }
            if (!ok && failures++ < 20)
                print_error("%s pattern 0x%02x decodes to %.17g\n", plumb_dtype_name(f->t), p, got);
        }
    }
    assert_int_equal(failures, 0);
}

/* The format descriptors agree with the hand-stated largest values
 * (OCP spec tables: E4M3FN 448, E5M2 57344, E2M3 7.5, E3M2 28, E2M1 6;
 * FNUZ per APFloat: E4M3FNUZ 240, E5M2FNUZ 57344, E4M3B11FNUZ 30). */
static void test_max_values(void **state)
{
    (void)state;
    struct { plumb_dtype t; double max; } w[] = {
        {PLUMB_F8E4M3FN, 448}, {PLUMB_F8E5M2, 57344}, {PLUMB_F8E4M3FNUZ, 240},
        {PLUMB_F8E5M2FNUZ, 57344}, {PLUMB_F8E4M3B11FNUZ, 30}, {PLUMB_F8E3M4, 15.5},
        {PLUMB_F8E4M3, 240}, {PLUMB_F8E8M0FNU, 0x1p127}, {PLUMB_F6E2M3FN, 7.5},
        {PLUMB_F6E3M2FN, 28}, {PLUMB_F4E2M1FN, 6},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        assert_true(plumb_small_max(plumb_fpfmt_get(w[i].t)) == w[i].max);
}

/* Every pattern of every small format converted to every small format. */
static void test_small_to_small(void **state)
{
    (void)state;
    setup_tables();
    failures = 0;
    for (size_t si = 0; si < NFMT; si++)
        for (size_t di = 0; di < NFMT; di++)
            for (uint32_t p = 0; p < (1u << FMTS[si].bits); p++) {
                uint32_t got = (uint32_t)plumb_float_convert_bits(FMTS[si].t, FMTS[di].t, p);
                check_small(di, decode_ref(&FMTS[si], p), got, plumb_dtype_name(FMTS[si].t), p);
            }
    assert_int_equal(failures, 0);
}

/* Every pattern of every small format widened to f16, bf16, f32 and f64. */
static void test_widen(void **state)
{
    (void)state;
    failures = 0;
    for (size_t si = 0; si < NFMT; si++)
        for (size_t wi = 0; wi < 4; wi++)
            for (uint32_t p = 0; p < (1u << FMTS[si].bits); p++) {
                const ieee *w = &WIDE[wi];
                val v = decode_ref(&FMTS[si], p);
                uint64_t got = plumb_float_convert_bits(FMTS[si].t, w->t, p);
                bool ok;
                if (v.cls == 2) {
                    uint64_t inf = ((1ull << w->ebits) - 1) << (w->p - 1);
                    int nbits = w->t == PLUMB_F64 ? 64 : w->t == PLUMB_F32 ? 32 : 16;
                    ok = (got & inf) == inf && (got & ((1ull << (w->p - 1)) - 1)) != 0 &&
                         (int)((got >> (nbits - 1)) & 1) == v.neg;
                } else {
                    ok = got == expect_wide(w, v);
                }
                if (!ok && failures++ < 20)
                    print_error("%s 0x%02x -> %s: got 0x%llx want 0x%llx\n", plumb_dtype_name(FMTS[si].t), p,
                                plumb_dtype_name(w->t), (unsigned long long)got,
                                (unsigned long long)expect_wide(w, v));
            }
    assert_int_equal(failures, 0);
}

/* Every f16 and bf16 pattern narrowed to every small format. */
static void test_from_half(void **state)
{
    (void)state;
    setup_tables();
    failures = 0;
    for (int bf = 0; bf < 2; bf++)
        for (size_t di = 0; di < NFMT; di++)
            for (uint32_t h = 0; h < 65536; h++) {
                uint32_t got = (uint32_t)plumb_float_convert_bits(bf ? PLUMB_BF16 : PLUMB_F16, FMTS[di].t, h);
                check_small(di, val_of_half((uint16_t)h, bf), got, bf ? "bf16" : "f16", h);
            }
    assert_int_equal(failures, 0);
}

static void check_f64(size_t di, double d)
{
    uint32_t got = (uint32_t)plumb_float_convert_bits(PLUMB_F64, FMTS[di].t, plumb_f64_bits(d));
    check_small(di, val_of_double(d), got, "f64", plumb_f64_bits(d));
}

static void check_f32(size_t di, float x)
{
    uint32_t got = (uint32_t)plumb_float_convert_bits(PLUMB_F32, FMTS[di].t, plumb_f32_bits(x));
    check_small(di, val_of_double((double)x), got, "f32", plumb_f32_bits(x));
}

/* f32 and f64 narrowed to every small format: a stride over all f32
 * patterns and over the f64 exponent range, and every midpoint between
 * neighbouring values of the target (including the overflow threshold and
 * the midpoint between zero and the smallest value) with its f32/f64
 * neighbours, both signs. */
static void test_from_wide(void **state)
{
    (void)state;
    setup_tables();
    failures = 0;
    for (size_t di = 0; di < NFMT; di++) {
        for (uint64_t u = 0; u < (1ull << 32); u += 2654435761ull % (1u << 12) + 1)
            check_f32(di, plumb_f32_from_bits((uint32_t)u));
        for (uint64_t u = 0x3000000000000000ull; u < 0x5000000000000000ull; u += 0x0000F1234567ABCDull)
            for (int s = 0; s < 2; s++)
                check_f64(di, plumb_f64_from_bits(u | ((uint64_t)s << 63)));
        const table *t = &TAB[di];
        for (int i = 0; i < t->n; i++) {
            double a = ldexp((double)t->m[i], t->e[i]);
            double b = i + 1 < t->n ? ldexp((double)t->m[i + 1], t->e[i + 1]) : ldexp((double)t->big_m, t->big_e);
            double pts[3] = {a, (a + b) / 2, b};
            if (i == 0 && a > 0) {
                pts[0] = a / 2;   /* E8M0: below its smallest value */
                pts[2] = a;
            }
            for (int k = 0; k < 3; k++)
                for (int s = 0; s < 2; s++) {
                    double m = s ? -pts[k] : pts[k];
                    check_f64(di, m);
                    check_f64(di, nextafter(m, INFINITY));
                    check_f64(di, nextafter(m, -INFINITY));
                    float mf = (float)m;
                    check_f32(di, mf);
                    check_f32(di, nextafterf(mf, INFINITY));
                    check_f32(di, nextafterf(mf, -INFINITY));
                }
        }
        double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e300, -1e300, 1e-300, -1e-300,
                             0x1p-1074, -0x1p-1074};
        for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
            check_f64(di, specials[k]);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_all),
        cmocka_unit_test(test_max_values),
        cmocka_unit_test(test_small_to_small),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_from_half),
        cmocka_unit_test(test_from_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
