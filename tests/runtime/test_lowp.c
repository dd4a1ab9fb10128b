/* Ops on the small float formats (FP8/FP6/FP4, E8M0) and the sub-byte
 * integers: the reference against an exact-rational oracle written here
 * (add, subtract, multiply, divide and sqrt over every pair / pattern of
 * every format but f8E8M0FNU, whose values are checked by hand), hand
 * values for the specials, and the runtime's table kernels
 * (runtime/k_lowp.c) against the reference bit for bit over every pattern
 * and every pair of every type, for every op, at every ISA level on 1 and 2
 * threads; FP8 dot_general on the runtime's f32 GEMM within the
 * data-dependent bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plumb/fp8.h"
#include "rt_test.h"

static const plumb_dtype small_floats[] = {
    PLUMB_F8E4M3FN, PLUMB_F8E5M2, PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ, PLUMB_F8E4M3B11FNUZ,
    PLUMB_F8E3M4, PLUMB_F8E4M3, PLUMB_F8E8M0FNU, PLUMB_F6E2M3FN, PLUMB_F6E3M2FN, PLUMB_F4E2M1FN,
};
#define N_SMALL (sizeof small_floats / sizeof small_floats[0])
static const plumb_dtype subints[] = {PLUMB_I2, PLUMB_I4, PLUMB_UI2, PLUMB_UI4};

static plumb_tensor *tensor1(plumb_dtype t, int64_t n)
{
    plumb_diag d = {0};
    plumb_tensor *x = plumb_tensor_new(t, 1, &n, 0, &d);
    assert_non_null(x);
    return x;
}

static unsigned width(plumb_dtype t) { return plumb_dtype_get(t)->bits; }

/* Every pattern of t (one operand), or every pair (two operands, lhs
 * major). */
static void all_patterns(plumb_dtype t, plumb_tensor **a)
{
    uint32_t n = 1u << width(t);
    *a = tensor1(t, n);
    for (uint32_t i = 0; i < n; i++)
        plumb_store_bits(t, (*a)->data, i, i);
}

static void all_pairs(plumb_dtype t, plumb_tensor **a, plumb_tensor **b)
{
    uint32_t n = 1u << width(t);
    *a = tensor1(t, (int64_t)n * n);
    *b = tensor1(t, (int64_t)n * n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            plumb_store_bits(t, (*a)->data, (size_t)i * n + j, i);
            plumb_store_bits(t, (*b)->data, (size_t)i * n + j, j);
        }
}

static char *program(const char *op, plumb_dtype t, uint32_t arity, uint64_t n, const char *rtype)
{
    static char buf[1024];
    const char *tn = plumb_dtype_name(t);
    const char *r = rtype ? rtype : tn;
    if (arity == 1)
        snprintf(buf, sizeof buf,
                 "func.func @main(%%a: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%0 = %s %%a : (tensor<%llux%s>) -> tensor<%llux%s>\n"
                 "  return %%0 : tensor<%llux%s>\n}\n",
                 (unsigned long long)n, tn, (unsigned long long)n, r, op, (unsigned long long)n, tn,
                 (unsigned long long)n, r, (unsigned long long)n, r);
    else
        snprintf(buf, sizeof buf,
                 "func.func @main(%%a: tensor<%llux%s>, %%b: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%0 = %s %%a, %%b : (tensor<%llux%s>, tensor<%llux%s>) -> tensor<%llux%s>\n"
                 "  return %%0 : tensor<%llux%s>\n}\n",
                 (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, r, op,
                 (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, r,
                 (unsigned long long)n, r);
    return buf;
}

static plumb_tensor *ref_one(const char *src, plumb_tensor *const *in, uint32_t n)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *out[RT_MAX_OUT];
    uint32_t no = rt_ref(m, in, n, out);
    assert_int_equal(no, 1);
    ir_module_free(m);
    return out[0];
}

/* ---- the exact-rational oracle ----------------------------------------------
 * Every value of the formats but f8E8M0FNU is a multiple of 2^-17 below
 * 2^16 (f8E5M2FNUZ spans both ends), so V = value * 2^34 is an integer
 * below 2^50 and a rational result N/D is placed among the format's
 * values by integer cross-multiplication (__int128). */
typedef __int128 i128;
#define SC 34

typedef struct ofmt {
    const plumb_fpfmt *f;
    uint32_t npos;           /* finite non-negative values, ascending */
    i128 v[256];
    uint32_t pat[256];
    i128 next;               /* the value above the largest (for overflow) */
} ofmt;

static void ofmt_init(ofmt *o, plumb_dtype t)
{
    o->f = plumb_fpfmt_get(t);
    o->npos = 0;
    uint32_t sb = 1u << (o->f->bits - 1);
    for (uint32_t b = 0; b < sb; b++) {   /* the sign bit clear: ascending values */
        if (plumb_small_is_nan(o->f, b) || plumb_small_is_inf(o->f, b))
            continue;
        double x = plumb_small_to_f64(o->f, b);
        o->v[o->npos] = (i128)ldexp(x, SC);
        assert_true((double)o->v[o->npos] == ldexp(x, SC));
        o->pat[o->npos++] = b;
    }
    /* the largest value's ulp: 2^(exponent - mant) */
    double mx = plumb_small_to_f64(o->f, o->pat[o->npos - 1]);
    int e;
    frexp(mx, &e);
    o->next = o->v[o->npos - 1] + (i128)ldexp(1.0, e - 1 - o->f->mant + SC);
}

/* The magnitude X / (D 2^34) (X >= 0, D > 0) rounded to nearest, ties to
 * the even pattern, with the format's overflow rule; neg gives the sign. */
static uint32_t oround(const ofmt *o, bool neg, i128 X, i128 D)
{
    uint32_t lo = 0, res = 0, sb = 1u << (o->f->bits - 1);
    bool over = false;
    while (lo + 1 < o->npos && o->v[lo + 1] * D <= X)
        lo++;
    if (o->v[lo] * D == X) {
        res = o->pat[lo];
    } else {
        bool last = lo + 1 >= o->npos;
        i128 b = last ? o->next : o->v[lo + 1];
        if (last && X >= b * D) {
            over = true;   /* at or beyond the value above the largest */
        } else {
            uint32_t pb = last ? o->pat[lo] + 1 : o->pat[lo + 1];   /* above the largest: the LSB flips */
            i128 l = X - o->v[lo] * D, h = b * D - X;
            bool up = h < l || (h == l && (pb & 1) == 0);
            if (up && last)
                over = true;
            else
                res = up ? pb : o->pat[lo];
        }
    }
    if (over) {
        switch (o->f->nan) {
        case PLUMB_FPNAN_IEEE: return plumb_f64_to_small(o->f, neg ? -INFINITY : INFINITY);
        case PLUMB_FPNAN_NONE: return o->pat[o->npos - 1] | (neg ? sb : 0);
        default: return plumb_small_qnan(o->f) | (o->f->nan == PLUMB_FPNAN_FN && neg ? sb : 0);
        }
    }
    if (neg && !(res == 0 && o->f->nan == PLUMB_FPNAN_FNUZ))
        res |= sb;
    return res;
}

/* a pattern's value as (sign, V = |value| * 2^34) */
static i128 oval(const plumb_fpfmt *f, uint32_t b, bool *neg)
{
    double x = plumb_small_to_f64(f, b);
    *neg = signbit(x);
    return (i128)ldexp(fabs(x), SC);
}

static bool is_fin(const plumb_fpfmt *f, uint32_t b) { return !plumb_small_is_nan(f, b) && !plumb_small_is_inf(f, b); }

/* add/subtract/multiply/divide of two finite patterns, exactly */
static uint32_t oracle2(const ofmt *o, char op, uint32_t a, uint32_t b)
{
    bool na, nb;
    i128 x = oval(o->f, a, &na), y = oval(o->f, b, &nb);
    i128 one = (i128)1 << SC;
    if (op == '-') { nb = !nb; op = '+'; }
    if (op == '+') {
        i128 sx = na ? -x : x, sy = nb ? -y : y, s = sx + sy;
        if (s == 0) {
            /* exact zero: +0, or -0 when both are -0 (RN) */
            return oround(o, na && nb, 0, 1);
        }
        return oround(o, s < 0, s < 0 ? -s : s, 1);   /* value s 2^-34 */
    }
    if (op == '*')
        return oround(o, na != nb, x * y, one);      /* value x y 2^-68 */
    /* '/': y != 0; value x / y */
    return oround(o, na != nb, x * one, y);
}

/* sqrt of a finite non-negative pattern: the two values around it and the
 * midpoint compared by squares */
static uint32_t oracle_sqrt(const ofmt *o, uint32_t a)
{
    bool na;
    i128 X = oval(o->f, a, &na);   /* value * 2^34 */
    if (X == 0)
        return a;                  /* sqrt(+-0) = +-0 */
    /* sqrt(X 2^-34) vs V 2^-34  <=>  X 2^34 vs V^2 */
    i128 x = X << SC;
    uint32_t lo = 0;
    while (lo + 1 < o->npos && o->v[lo + 1] * o->v[lo + 1] <= x)
        lo++;
    if (o->v[lo] * o->v[lo] == x || lo + 1 >= o->npos)
        return o->pat[lo];
    i128 m2 = (o->v[lo] + o->v[lo + 1]) * (o->v[lo] + o->v[lo + 1]);   /* (2 mid)^2 */
    if (4 * x < m2) return o->pat[lo];
    if (4 * x > m2) return o->pat[lo + 1];
    return (o->pat[lo] & 1) ? o->pat[lo + 1] : o->pat[lo];   /* a tie cannot happen: sqrt of a dyadic */
}

/* The reference's add, subtract, multiply and divide on every pair of
 * finite patterns of every format but E8M0 equal the exact-rational
 * oracle's rounding (overflow by each format's rule). */
static void test_ref_arith_oracle(void **state)
{
    (void)state;
    static const struct { const char *name; char op; } ops[] = {
        {"stablehlo.add", '+'}, {"stablehlo.subtract", '-'}, {"stablehlo.multiply", '*'}, {"stablehlo.divide", '/'},
    };
    for (size_t k = 0; k < N_SMALL; k++) {
        plumb_dtype t = small_floats[k];
        if (t == PLUMB_F8E8M0FNU)
            continue;
        ofmt o;
        ofmt_init(&o, t);
        plumb_tensor *in[2];
        all_pairs(t, &in[0], &in[1]);
        uint32_t n = 1u << width(t);
        for (size_t q = 0; q < 4; q++) {
            plumb_tensor *r = ref_one(program(ops[q].name, t, 2, (uint64_t)n * n, NULL), in, 2);
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = 0; b < n; b++) {
                    if (!is_fin(o.f, a) || !is_fin(o.f, b))
                        continue;
                    if (ops[q].op == '/' && plumb_small_to_f64(o.f, b) == 0)
                        continue;
                    uint32_t want = oracle2(&o, ops[q].op, a, b);
                    uint32_t got = (uint32_t)plumb_load_bits(t, r->data, (size_t)a * n + b);
                    if (got != want)
                        fprintf(stderr, "%s %s 0x%x 0x%x: got 0x%x want 0x%x\n", plumb_dtype_name(t), ops[q].name,
                                a, b, got, want);
                    assert_int_equal(got, want);
                }
            plumb_tensor_free(r);
        }
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* The reference's sqrt on every finite non-negative pattern of every
 * format but E8M0 is the oracle's correctly rounded root; negative
 * non-zero values give the format's NaN (FP6/FP4, without NaN: +0). */
static void test_ref_sqrt_oracle(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SMALL; k++) {
        plumb_dtype t = small_floats[k];
        if (t == PLUMB_F8E8M0FNU)
            continue;
        ofmt o;
        ofmt_init(&o, t);
        plumb_tensor *in;
        all_patterns(t, &in);
        uint32_t n = 1u << width(t);
        plumb_tensor *r = ref_one(program("stablehlo.sqrt", t, 1, n, NULL), &in, 1);
        for (uint32_t a = 0; a < n; a++) {
            if (!is_fin(o.f, a))
                continue;
            double v = plumb_small_to_f64(o.f, a);
            uint32_t want = v < 0 ? plumb_f64_to_small(o.f, NAN) : oracle_sqrt(&o, a);
            uint32_t got = (uint32_t)plumb_load_bits(t, r->data, a);
            if (got != want)
                fprintf(stderr, "%s sqrt 0x%x: got 0x%x want 0x%x\n", plumb_dtype_name(t), a, got, want);
            assert_int_equal(got, want);
        }
        plumb_tensor_free(r);
        plumb_tensor_free(in);
    }
}

/* Hand-derived values: specials of each NaN rule, overflow, E8M0 and the
 * bit-level ops (docs/spec/types.md, "Ops"). */
static void test_ref_hand_values(void **state)
{
    (void)state;
    static const struct { const char *op; plumb_dtype t; uint32_t a, b, want; } c[] = {
        {"stablehlo.add", PLUMB_F8E4M3FN, 0x7E, 0x60, 0x7F},        /* 448 + 32 = 480 > 464 -> NaN (no inf) */
        {"stablehlo.add", PLUMB_F8E4M3FN, 0x7E, 0x56, 0x7E},        /* 448 + 14 = 462 -> 448 */
        {"stablehlo.add", PLUMB_F8E4M3FN, 0x7E, 0x58, 0x7E},        /* 448 + 16 = 464: tie, 448 (even) */
        {"stablehlo.add", PLUMB_F8E5M2, 0x7B, 0x6C, 0x7C},          /* 57344 + 4096 = 61440: tie, +inf */
        {"stablehlo.add", PLUMB_F8E4M3FNUZ, 0x7F, 0x58, 0x80},      /* 240 + 8 = 248: tie, NaN */
        {"stablehlo.multiply", PLUMB_F4E2M1FN, 0x7, 0x7, 0x7},      /* 6 * 6 = 36 saturates to 6 */
        {"stablehlo.multiply", PLUMB_F4E2M1FN, 0x1, 0x1, 0x0},      /* 0.5 * 0.5 = 0.25: tie, +0 */
        {"stablehlo.multiply", PLUMB_F4E2M1FN, 0x9, 0x1, 0x8},      /* -0.5 * 0.5 = -0.25 -> -0 */
        {"stablehlo.multiply", PLUMB_F8E4M3FNUZ, 0x81, 0x01, 0x00}, /* -2^-10 * 2^-10 -> +0 (no -0) */
        {"stablehlo.multiply", PLUMB_F8E8M0FNU, 0x80, 0x81, 0x82},  /* 2 * 4 = 8 */
        {"stablehlo.multiply", PLUMB_F8E8M0FNU, 0xFE, 0x80, 0xFF},  /* 2^127 * 2 overflows -> NaN */
        {"stablehlo.divide", PLUMB_F8E8M0FNU, 0x7F, 0x80, 0x7E},    /* 1 / 2 = 2^-1 */
        {"stablehlo.add", PLUMB_F8E8M0FNU, 0x7F, 0x7F, 0x80},       /* 1 + 1 = 2 */
        {"stablehlo.add", PLUMB_F8E8M0FNU, 0x7F, 0x80, 0x81},       /* 1 + 2 = 3: tie of 2 and 4, up (APFloat) */
        {"stablehlo.subtract", PLUMB_F8E8M0FNU, 0x7F, 0x7F, 0x00},  /* 1 - 1 = 0: the smallest, 2^-127 */
        {"stablehlo.subtract", PLUMB_F8E8M0FNU, 0x7F, 0x80, 0xFF},  /* 1 - 2 < 0: NaN */
        {"stablehlo.divide", PLUMB_F8E4M3FN, 0x38, 0x00, 0x7F},     /* 1 / 0 = inf -> NaN */
        {"stablehlo.divide", PLUMB_F8E5M2, 0xBC, 0x00, 0xFC},       /* -1 / +0 = -inf */
        {"stablehlo.subtract", PLUMB_F8E5M2, 0x7C, 0x7C, 0x7E},     /* inf - inf: the format's NaN */
        {"stablehlo.maximum", PLUMB_F8E4M3FN, 0x80, 0x00, 0x00},    /* max(-0, +0) = +0 */
        {"stablehlo.minimum", PLUMB_F8E4M3FN, 0x00, 0x80, 0x80},    /* min(+0, -0) = -0 */
        {"stablehlo.maximum", PLUMB_F8E4M3FNUZ, 0x80, 0x01, 0x80},  /* NaN propagates */
        {"stablehlo.power", PLUMB_F8E4M3FN, 0x7F, 0x00, 0x38},      /* pow(NaN, 0) = 1 */
        {"stablehlo.power", PLUMB_F8E4M3FN, 0x40, 0x48, 0x58},      /* 2^4 = 16 */
        {"stablehlo.remainder", PLUMB_F8E4M3FN, 0x4E, 0x44, 0x38},  /* 7 rem 3 = 1 */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        plumb_tensor *in[2] = {tensor1(c[i].t, 1), tensor1(c[i].t, 1)};
        plumb_store_bits(c[i].t, in[0]->data, 0, c[i].a);
        plumb_store_bits(c[i].t, in[1]->data, 0, c[i].b);
        plumb_tensor *r = ref_one(program(c[i].op, c[i].t, 2, 1, NULL), in, 2);
        uint32_t got = (uint32_t)plumb_load_bits(c[i].t, r->data, 0);
        if (got != c[i].want)
            fprintf(stderr, "case %zu: %s %s 0x%x 0x%x: got 0x%x want 0x%x\n", i, c[i].op, plumb_dtype_name(c[i].t),
                    c[i].a, c[i].b, got, c[i].want);
        assert_int_equal(got, c[i].want);
        plumb_tensor_free(r);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
    static const struct { const char *op; plumb_dtype t; uint32_t a, want; } u[] = {
        {"stablehlo.abs", PLUMB_F8E4M3FNUZ, 0x80, 0x80},            /* the NaN stays NaN */
        {"stablehlo.abs", PLUMB_F8E4M3FN, 0xFF, 0x7F},              /* sign cleared, NaN kept */
        {"stablehlo.negate", PLUMB_F8E4M3FNUZ, 0x00, 0x00},         /* no -0 */
        {"stablehlo.negate", PLUMB_F8E4M3FNUZ, 0x01, 0x81},
        {"stablehlo.negate", PLUMB_F8E8M0FNU, 0x7F, 0xFF},          /* -1 does not exist: NaN */
        {"stablehlo.abs", PLUMB_F8E8M0FNU, 0xC0, 0xC0},
        {"stablehlo.sign", PLUMB_F8E8M0FNU, 0xC0, 0x7F},            /* sign(2^65) = 1 */
        {"stablehlo.sign", PLUMB_F6E3M2FN, 0x21, 0x2C},             /* sign(-0.0625 * 1.25) = -1 */
        {"stablehlo.floor", PLUMB_F8E4M3FN, 0xB4, 0xB8},            /* floor(-0.75) = -1 */
        {"stablehlo.ceil", PLUMB_F8E4M3FNUZ, 0xB8, 0x00},           /* ceil(-0.5) = -0 -> +0 */
        {"stablehlo.round_nearest_even", PLUMB_F8E4M3FN, 0x42, 0x40}, /* 2.5 -> 2 */
        {"stablehlo.round_nearest_afz", PLUMB_F8E4M3FN, 0x42, 0x44}, /* 2.5 -> 3 */
        {"stablehlo.exponential", PLUMB_F8E4M3FN, 0x38, 0x43},      /* e = 2.718 -> 2.75 */
        {"stablehlo.log", PLUMB_F8E4M3FN, 0xB8, 0x7F},              /* log(-1): the NaN */
        {"stablehlo.log", PLUMB_F8E5M2, 0x00, 0xFC},                /* log(0) = -inf */
        {"stablehlo.tanh", PLUMB_F4E2M1FN, 0x7, 0x2},               /* tanh(6) = 0.99998 -> 1 */
        {"stablehlo.sine", PLUMB_F8E3M4, 0x50, 0xA8},               /* sin(4) = -0.7568 -> -0.75 */
        {"stablehlo.rsqrt", PLUMB_F8E5M2, 0x80, 0xFC},              /* rsqrt(-0) = -inf */
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        plumb_tensor *in = tensor1(u[i].t, 1);
        plumb_store_bits(u[i].t, in->data, 0, u[i].a);
        plumb_tensor *r = ref_one(program(u[i].op, u[i].t, 1, 1, NULL), &in, 1);
        uint32_t got = (uint32_t)plumb_load_bits(u[i].t, r->data, 0);
        if (got != u[i].want)
            fprintf(stderr, "unary case %zu: %s %s 0x%x: got 0x%x want 0x%x\n", i, u[i].op,
                    plumb_dtype_name(u[i].t), u[i].a, got, u[i].want);
        assert_int_equal(got, u[i].want);
        plumb_tensor_free(r);
        plumb_tensor_free(in);
    }
}

static const char *float_unary[] = {
    "stablehlo.abs", "stablehlo.negate", "stablehlo.sign", "stablehlo.floor", "stablehlo.ceil",
    "stablehlo.round_nearest_even", "stablehlo.round_nearest_afz", "stablehlo.sqrt", "stablehlo.rsqrt",
    "stablehlo.cbrt", "stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.log",
    "stablehlo.log_plus_one", "stablehlo.logistic", "stablehlo.tanh", "stablehlo.sine", "stablehlo.cosine",
    "stablehlo.tan", "chlo.erf", "chlo.acos", "chlo.asin", "chlo.atan", "chlo.acosh", "chlo.asinh",
    "chlo.atanh", "chlo.cosh", "chlo.sinh", "chlo.erfc", "chlo.square", "chlo.lgamma", "chlo.digamma",
};
static const char *float_pred[] = {"stablehlo.is_finite", "chlo.is_inf", "chlo.is_pos_inf", "chlo.is_neg_inf"};
static const char *float_binary[] = {
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide", "stablehlo.remainder",
    "stablehlo.power", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.atan2",
};
static const char *int_unary_s[] = {"stablehlo.abs", "stablehlo.sign"};
static const char *int_unary[] = {"stablehlo.negate", "stablehlo.not", "stablehlo.popcnt", "stablehlo.count_leading_zeros"};
static const char *int_binary[] = {
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide", "stablehlo.remainder",
    "stablehlo.power", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or", "stablehlo.xor",
    "stablehlo.shift_left", "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical",
};

/* The runtime's unary ops on every pattern of every small float format
 * equal the reference bit for bit (both correctly rounded), the is_* ops
 * too. */
static void test_rt_float_unary(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SMALL; k++) {
        plumb_dtype t = small_floats[k];
        plumb_tensor *in;
        all_patterns(t, &in);
        uint64_t n = 1u << width(t);
        for (size_t q = 0; q < sizeof float_unary / sizeof *float_unary; q++)
            rt_check_exact(program(float_unary[q], t, 1, n, NULL), &in, 1);
        for (size_t q = 0; q < sizeof float_pred / sizeof *float_pred; q++)
            rt_check_exact(program(float_pred[q], t, 1, n, "i1"), &in, 1);
        plumb_tensor_free(in);
    }
}

/* The runtime's binary ops on every pair of patterns of every small float
 * format equal the reference bit for bit. */
static void test_rt_float_binary(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SMALL; k++) {
        plumb_dtype t = small_floats[k];
        plumb_tensor *in[2];
        all_pairs(t, &in[0], &in[1]);
        uint64_t n = (uint64_t)1 << (2 * width(t));
        for (size_t q = 0; q < sizeof float_binary / sizeof *float_binary; q++)
            rt_check_exact(program(float_binary[q], t, 2, n, NULL), in, 2);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* compare in every direction, FLOAT and TOTALORDER (small floats) and
 * SIGNED/UNSIGNED (sub-byte integers), every pair, equals the reference. */
static void test_rt_compare(void **state)
{
    (void)state;
    static const char *dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    char src[1024];
    for (size_t k = 0; k < N_SMALL + 4; k++) {
        plumb_dtype t = k < N_SMALL ? small_floats[k] : subints[k - N_SMALL];
        plumb_tensor *in[2];
        all_pairs(t, &in[0], &in[1]);
        uint64_t n = (uint64_t)1 << (2 * width(t));
        /* StableHLO C3: SIGNED for signed integers, UNSIGNED for unsigned */
        const char *tys[2] = {"FLOAT", "TOTALORDER"};
        int ny = 2;
        if (k >= N_SMALL) {
            tys[0] = plumb_dtype_is_signed(t) ? "SIGNED" : "UNSIGNED";
            ny = 1;
        }
        for (int d = 0; d < 6; d++)
            for (int y = 0; y < ny; y++) {
                const char *tn = plumb_dtype_name(t);
                snprintf(src, sizeof src,
                         "func.func @main(%%a: tensor<%llux%s>, %%b: tensor<%llux%s>) -> tensor<%lluxi1> {\n"
                         "  %%0 = stablehlo.compare %s, %%a, %%b, %s : (tensor<%llux%s>, tensor<%llux%s>) -> tensor<%lluxi1>\n"
                         "  return %%0 : tensor<%lluxi1>\n}\n",
                         (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, dirs[d], tys[y],
                         (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n,
                         (unsigned long long)n);
                rt_check_exact(src, in, 2);
            }
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* The sub-byte integer ops on every pattern / pair equal the reference,
 * and the reference wraps modulo 2^w with the integer rules (hand values:
 * i4 7 + 1 = -8, -8 / -1 = -8, x / 0 = -1, ui4 shifts). */
static void test_subint_ops(void **state)
{
    (void)state;
    for (size_t k = 0; k < 4; k++) {
        plumb_dtype t = subints[k];
        plumb_tensor *a, *p[2];
        all_patterns(t, &a);
        all_pairs(t, &p[0], &p[1]);
        uint64_t n1 = 1u << width(t), n2 = n1 * n1;
        if (plumb_dtype_is_signed(t))
            for (size_t q = 0; q < 2; q++)
                rt_check_exact(program(int_unary_s[q], t, 1, n1, NULL), &a, 1);
        for (size_t q = 0; q < sizeof int_unary / sizeof *int_unary; q++)
            rt_check_exact(program(int_unary[q], t, 1, n1, NULL), &a, 1);
        for (size_t q = 0; q < sizeof int_binary / sizeof *int_binary; q++)
            rt_check_exact(program(int_binary[q], t, 2, n2, NULL), p, 2);
        plumb_tensor_free(a);
        plumb_tensor_free(p[0]);
        plumb_tensor_free(p[1]);
    }
    static const struct { const char *op; plumb_dtype t; uint32_t a, b, want; } c[] = {
        {"stablehlo.add", PLUMB_I4, 0x7, 0x1, 0x8},                   /* 7 + 1 = -8 */
        {"stablehlo.divide", PLUMB_I4, 0x8, 0xF, 0x8},                /* -8 / -1 = -8 */
        {"stablehlo.remainder", PLUMB_I4, 0x8, 0xF, 0x0},             /* -8 % -1 = 0 */
        {"stablehlo.divide", PLUMB_I4, 0x5, 0x0, 0xF},                /* 5 / 0 = -1 */
        {"stablehlo.remainder", PLUMB_I4, 0x5, 0x0, 0x5},             /* 5 % 0 = 5 */
        {"stablehlo.divide", PLUMB_I4, 0x9, 0x2, 0xD},                /* -7 / 2 = -3 */
        {"stablehlo.remainder", PLUMB_I4, 0x9, 0x2, 0xF},             /* -7 % 2 = -1 */
        {"stablehlo.multiply", PLUMB_UI4, 0x5, 0x5, 0x9},             /* 25 mod 16 */
        {"stablehlo.shift_right_arithmetic", PLUMB_I4, 0x8, 0x2, 0xE}, /* -8 >> 2 = -2 */
        {"stablehlo.shift_right_logical", PLUMB_I4, 0x8, 0x2, 0x2},
        {"stablehlo.shift_left", PLUMB_UI2, 0x1, 0x2, 0x0},           /* by >= w: 0 */
        {"stablehlo.shift_right_arithmetic", PLUMB_I2, 0x2, 0x3, 0x3}, /* -2 >> 3 = -1 */
        {"stablehlo.power", PLUMB_I4, 0x3, 0x2, 0x9},                 /* 3^2 = 9 = -7 */
        {"stablehlo.maximum", PLUMB_I2, 0x2, 0x1, 0x1},               /* max(-2, 1) = 1 */
        {"stablehlo.maximum", PLUMB_UI2, 0x2, 0x1, 0x2},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        plumb_tensor *in[2] = {tensor1(c[i].t, 1), tensor1(c[i].t, 1)};
        plumb_store_bits(c[i].t, in[0]->data, 0, c[i].a);
        plumb_store_bits(c[i].t, in[1]->data, 0, c[i].b);
        plumb_tensor *r = ref_one(program(c[i].op, c[i].t, 2, 1, NULL), in, 2);
        uint32_t got = (uint32_t)plumb_load_bits(c[i].t, r->data, 0) & ((1u << width(c[i].t)) - 1);
        if (got != c[i].want)
            fprintf(stderr, "int case %zu: got 0x%x want 0x%x\n", i, got, c[i].want);
        assert_int_equal(got, c[i].want);
        plumb_tensor_free(r);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

/* select and clamp (scalar and full bounds) on a small float and a
 * sub-byte integer equal the reference. */
static void test_rt_select_clamp(void **state)
{
    (void)state;
    static const plumb_dtype ts[] = {PLUMB_F8E4M3FNUZ, PLUMB_F8E8M0FNU, PLUMB_F4E2M1FN, PLUMB_I4, PLUMB_UI2};
    char src[1024];
    for (size_t k = 0; k < sizeof ts / sizeof *ts; k++) {
        plumb_dtype t = ts[k];
        const char *tn = plumb_dtype_name(t);
        plumb_tensor *p[2];
        all_pairs(t, &p[0], &p[1]);
        uint64_t n = plumb_tensor_numel(p[0]);
        plumb_diag dg = {0};
        plumb_tensor *pred = tensor1(PLUMB_I1, (int64_t)n), *lo = plumb_tensor_new(t, 0, NULL, 0, &dg),
                     *hi = plumb_tensor_new(t, 0, NULL, 0, &dg);
        assert_non_null(lo);
        assert_non_null(hi);
        for (uint64_t i = 0; i < n; i++)
            plumb_store_bits(PLUMB_I1, pred->data, i, (i * 7 + i / 3) & 1);
        plumb_store_bits(t, lo->data, 0, 1);
        plumb_store_bits(t, hi->data, 0, (1u << width(t)) / 2 - 2);
        snprintf(src, sizeof src,
                 "func.func @main(%%p: tensor<%lluxi1>, %%a: tensor<%llux%s>, %%b: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%0 = stablehlo.select %%p, %%a, %%b : tensor<%lluxi1>, tensor<%llux%s>\n"
                 "  return %%0 : tensor<%llux%s>\n}\n",
                 (unsigned long long)n, (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, tn,
                 (unsigned long long)n, (unsigned long long)n, tn, (unsigned long long)n, tn);
        plumb_tensor *sin[3] = {pred, p[0], p[1]};
        rt_check_exact(src, sin, 3);
        snprintf(src, sizeof src,
                 "func.func @main(%%l: tensor<%s>, %%a: tensor<%llux%s>, %%h: tensor<%s>) -> tensor<%llux%s> {\n"
                 "  %%0 = stablehlo.clamp %%l, %%a, %%h : (tensor<%s>, tensor<%llux%s>, tensor<%s>) -> tensor<%llux%s>\n"
                 "  return %%0 : tensor<%llux%s>\n}\n",
                 tn, (unsigned long long)n, tn, tn, (unsigned long long)n, tn, tn, (unsigned long long)n, tn, tn,
                 (unsigned long long)n, tn, (unsigned long long)n, tn);
        plumb_tensor *cin[3] = {lo, p[0], hi};
        rt_check_exact(src, cin, 3);
        snprintf(src, sizeof src,
                 "func.func @main(%%l: tensor<%llux%s>, %%a: tensor<%llux%s>, %%h: tensor<%llux%s>) -> tensor<%llux%s> {\n"
                 "  %%0 = stablehlo.clamp %%l, %%a, %%h : tensor<%llux%s>\n"
                 "  return %%0 : tensor<%llux%s>\n}\n",
                 (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n, tn, (unsigned long long)n,
                 tn, (unsigned long long)n, tn, (unsigned long long)n, tn);
        plumb_tensor *fin[3] = {p[1], p[0], p[1]};
        rt_check_exact(src, fin, 3);
        plumb_tensor_free(pred);
        plumb_tensor_free(lo);
        plumb_tensor_free(hi);
        plumb_tensor_free(p[0]);
        plumb_tensor_free(p[1]);
    }
}

/* dot_general on FP8 operands (one type and mixed FP8 types) with f32 and
 * f16 results on the runtime's f32 GEMM is within the data-dependent bound
 * of the reference's exact dot; i8 x f8E4M3FN (mixed integer x float) too. */
static void test_rt_dot_fp8(void **state)
{
    (void)state;
    static const struct { plumb_dtype l, r; const char *res; } c[] = {
        {PLUMB_F8E4M3FN, PLUMB_F8E4M3FN, "f32"}, {PLUMB_F8E4M3FN, PLUMB_F8E5M2, "f32"},
        {PLUMB_F8E5M2FNUZ, PLUMB_F8E4M3B11FNUZ, "f16"}, {PLUMB_F4E2M1FN, PLUMB_F6E3M2FN, "f32"},
        {PLUMB_F8E8M0FNU, PLUMB_F8E3M4, "f32"}, {PLUMB_I8, PLUMB_F8E4M3FN, "f32"},
    };
    const int64_t M = 37, K = 129, N = 41;
    char src[1024];
    uint64_t s = 12345;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        plumb_diag d = {0};
        int64_t ld[2] = {M, K}, rd[2] = {K, N};
        plumb_tensor *in[2] = {plumb_tensor_new(c[i].l, 2, ld, 0, &d), plumb_tensor_new(c[i].r, 2, rd, 0, &d)};
        for (int o = 0; o < 2; o++) {
            plumb_dtype t = in[o]->dtype;
            const plumb_fpfmt *f = plumb_fpfmt_get(t);
            for (uint64_t e = 0; e < plumb_tensor_numel(in[o]); e++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t b = (uint32_t)(s >> 40) & ((1u << width(t)) - 1);
                if (f && (plumb_small_is_nan(f, b) || plumb_small_is_inf(f, b)))
                    b = 0;
                plumb_store_bits(t, in[o]->data, e, b);
            }
        }
        snprintf(src, sizeof src,
                 "func.func @main(%%a: tensor<%lldx%lldx%s>, %%b: tensor<%lldx%lldx%s>) -> tensor<%lldx%lldx%s> {\n"
                 "  %%0 = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : "
                 "(tensor<%lldx%lldx%s>, tensor<%lldx%lldx%s>) -> tensor<%lldx%lldx%s>\n"
                 "  return %%0 : tensor<%lldx%lldx%s>\n}\n",
                 (long long)M, (long long)K, plumb_dtype_name(c[i].l), (long long)K, (long long)N,
                 plumb_dtype_name(c[i].r), (long long)M, (long long)N, c[i].res, (long long)M, (long long)K,
                 plumb_dtype_name(c[i].l), (long long)K, (long long)N, plumb_dtype_name(c[i].r), (long long)M,
                 (long long)N, c[i].res, (long long)M, (long long)N, c[i].res);
        rt_check_bound(src, in, 2, (uint64_t)K, false);
        plumb_tensor_free(in[0]);
        plumb_tensor_free(in[1]);
    }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    (void)rt_ty;   /* rt_test.h helpers this file does not use */
    (void)rt_rand_tensor;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ref_arith_oracle),
        cmocka_unit_test(test_ref_sqrt_oracle),
        cmocka_unit_test(test_ref_hand_values),
        cmocka_unit_test(test_rt_float_unary),
        cmocka_unit_test(test_rt_float_binary),
        cmocka_unit_test(test_rt_compare),
        cmocka_unit_test(test_subint_ops),
        cmocka_unit_test(test_rt_select_clamp),
        cmocka_unit_test(test_rt_dot_fp8),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
